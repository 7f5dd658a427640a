/* wire.c - decoding what peers wrote into the mailboxes (wire.h). */
#include <inttypes.h>
#include <stdio.h>

#include "coll/coll.h"
#include "coll/wire.h"

void sym_fp_text(const struct sym_fp *fp, char *buf, size_t len)
{
    char layout[32] = "";
    if (fp->layout)
        snprintf(layout, sizeof(layout), ", counts hash %08x", fp->layout);
    snprintf(buf, len, "%s #%" PRIu64 " (%s, %s, count %" PRIu64 "%s, root %d, %s)",
             sym_coll_kind_name(fp->kind), fp->seq, sym_datatype_name((sym_datatype_t)fp->dtype),
             sym_op_name((sym_op_t)fp->op), fp->count, layout, (int)fp->root,
             sym_algorithm_name((sym_algorithm_t)fp->algo));
}

uint64_t sym_poison_word(int member, sym_status_t status)
{
    return ((uint64_t)(uint32_t)(member + 1) << 32) | (uint32_t)(-(int)status);
}

sym_status_t sym_poison_decode(uint64_t word, int size, int *member_p)
{
    sym_status_t st = (sym_status_t)(-(int)(uint32_t)word);
    int by = (int)(word >> 32) - 1;
    *member_p = by >= 0 && by < size ? by : -1;
    return st;
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
