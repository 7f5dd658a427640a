/* wire.c - decoding what peers wrote into the mailboxes (wire.h). */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>

#include "coll/coll.h"
#include "coll/finalize_check.h"
#include "coll/wire.h"

void sym_fp_text(const struct sym_fp *fp, char *buf, size_t len)
{
    if (fp->seq == SYM_FP_FINAL) {
        snprintf(buf, len, FINAL_FLUSH_TEXT " on the team)");
        return;
    }
    char layout[32] = "";
    if (fp->kind == SYM_COLL_BARRIER_ALL && fp->root == SYM_FP_ROOT_FINALIZE) {
        snprintf(buf, len, FINALIZE_TEXT "%" PRIu64 " on this team)", fp->seq);
        return;
    }
    if (fp->kind == SYM_COLL_TEAM_SPLIT) {
        /* count is a hash of the member list, not a count */
        snprintf(buf, len,
                 "%s #%" PRIu64 " (%u new team(s) of up to %u members, member list hash %016" PRIx64
                 ")",
                 sym_coll_kind_name(fp->kind), fp->seq, (unsigned)fp->root, fp->layout, fp->count);
        return;
    }
    if (fp->layout)
        snprintf(layout, sizeof(layout), ", hash %08x", fp->layout);
    snprintf(buf, len, "%s #%" PRIu64 " (%s, %s, count %" PRIu64 "%s, root %d, %s)",
             sym_coll_kind_name(fp->kind), fp->seq, sym_datatype_name((sym_datatype_t)fp->dtype),
             sym_op_name((sym_op_t)fp->op), fp->count, layout, (int)fp->root,
             sym_algorithm_name((sym_algorithm_t)fp->algo));
}

uint64_t sym_poison_word(int member, sym_status_t status)
{
    return ((uint64_t)(uint32_t)(member + 1) << 32) | (uint32_t)(-(int)status);
}

static bool known_error(int64_t v)
{
    switch (v) {
#define KNOWN_(name, value, text) case value:
        SYM_STATUS_LIST(KNOWN_)
#undef KNOWN_
        return v != SYM_OK;
    }
    return false;
}

/* Decoded in 64-bit arithmetic: a word no PE wrote (0x80000000 in the low
 * half) must not overflow an int, and a status that is no error (or none
 * at all) must not let a waiter go on as if it had been served. */
sym_status_t sym_poison_decode(uint64_t word, int size, int *member_p)
{
    const int64_t status = -(int64_t)(uint32_t)word;
    const uint64_t by = word >> 32; /* member + 1 */
    *member_p = by >= 1 && size > 0 && by <= (uint64_t)size ? (int)by - 1 : -1;
    return known_error(status) ? (sym_status_t)status : SYM_ERR_INTERNAL;
}

static uint64_t chunk_len(uint64_t bytes, uint64_t have, size_t chunk)
{
    return bytes - have < chunk ? bytes - have : chunk;
}

const char *sym_p2p_chunk_check(const struct sym_chunk_hdr *h, size_t chunk,
                                const struct sym_p2p_partial *partial)
{
    if (h->fp.kind != SYM_COLL_P2P)
        return "not a point-to-point chunk";
    if (h->fp.root < 0)
        return "negative tag";
    if (h->fp.count != h->msg_bytes)
        return "message size and count disagree";
    if (h->msg_bytes > SIZE_MAX)
        return "message larger than the address space";
    if (!partial)
        return h->len == chunk_len(h->msg_bytes, 0, chunk) ? NULL
                                                           : "first chunk of the wrong length";
    if (h->msg_bytes != partial->bytes || h->fp.root != partial->tag)
        return "chunk of another message in the middle of one";
    if (partial->have >= partial->bytes)
        return "chunk beyond the end of the message";
    return h->len == chunk_len(partial->bytes, partial->have, chunk) ? NULL
                                                                     : "chunk of the wrong length";
}
