/* chan.c - the credit-based mailbox channel (chan.h): its layout in the
 * area, send, receive, release and flush.  The tiny ring is chan_tiny.c,
 * waiting, stall checks and poison chan_stall.c. */
#include <inttypes.h>
#include <stdlib.h>

#include "coll/chan_private.h"
#include "coll/coll_check.h"

sym_status_t sym_chan_init(struct sym_chan *ch, uint64_t area_off, uint64_t area_size, int n,
                           const int *pe_of, size_t max_chunk, const char *what)
{
    memset(ch, 0, sizeof(*ch));
    /* More slots per link let a sender run further ahead of a receiver that
     * is not running (a loop of small broadcasts, more PEs than cores), but
     * cut the area into smaller chunks: take the most slots (8, 4, else 2:
     * a power of two) that still give chunks of SYMHEAP_CHUNK_SIZE or
     * 60 KiB, whichever is smaller (large messages stream through such
     * chunks at nearly full speed): the world's 1 MiB gives 8 slots at 2
     * PEs, 4 at 3 and 4, 2 beyond. */
    const uint64_t want = max_chunk < DEEP_CHUNK_MIN ? max_chunk : DEEP_CHUNK_MIN;
    unsigned shift = MAX_SLOTS_SHIFT;
    /* The tiny ring costs n * (tk + 1) lines (33 KiB at 8 PEs and 64
     * slots): it gets at most an eighth of the area, with as many slots
     * (a power of two) as fit, but no fewer than the largest k. */
    unsigned tshift = TINY_SHIFT;
    while (tshift > MAX_SLOTS_SHIFT &&
           (uint64_t)n * ((UINT64_C(1) << tshift) + 1) * SYM_LINE > area_size / 8)
        tshift--;
    if (tshift <= MAX_SLOTS_SHIFT)
        tshift = 0;
    const uint64_t tk = tshift ? UINT64_C(1) << tshift : 0;
    const uint64_t tiny_bytes = tk ? (uint64_t)n * (tk + 1) * SYM_LINE : 0;
    uint64_t k, links, fixed, chunk;
    for (;; shift--) {
        k = UINT64_C(1) << shift;
        links = (uint64_t)n * k;
        fixed = 2 * SYM_LINE + POISON_MSG_BYTES + links * SYM_LINE + tiny_bytes;
        uint64_t per_slot = area_size > fixed ? (area_size - fixed) / links : 0;
        chunk = per_slot > HDR_BYTES ? (per_slot - HDR_BYTES) / SYM_LINE * SYM_LINE : 0;
        if (chunk >= want / SYM_LINE * SYM_LINE || k == SLOTS_PER_LINK)
            break;
    }
    if (chunk > max_chunk)
        chunk = max_chunk / SYM_LINE * SYM_LINE;
    if (chunk < MIN_CHUNK) {
        /* Named in what the user sets: the area is a share of the region
         * SYMHEAP_MAILBOX_SIZE asks for (rounded up to whole pages). */
        const uint64_t need = fixed + links * (HDR_BYTES + MIN_CHUNK);
        const uint64_t region = sym_rt.layout.mailbox_size;
        const uint64_t asked = area_size ? sym_round_up(need * (region / area_size), SYM_PAGE) : 0;
        return sym_error(SYM_ERR_NO_MEMORY,
                         "%s: its mailbox area of %" PRIu64 " bytes (a share of the %" PRIu64
                         "-byte mailbox region; SYMHEAP_MAILBOX_SIZE=%zu) cannot serve %d PEs "
                         "(needs at least %" PRIu64 " bytes: raise SYMHEAP_MAILBOX_SIZE to at "
                         "least %" PRIu64 ")",
                         what, area_size, region, sym_rt.cfg.mailbox_size, n, need,
                         asked > region ? asked : region * 2);
    }
    ch->sent = calloc((size_t)n, sizeof(uint64_t));
    ch->recvd = calloc((size_t)n, sizeof(uint64_t));
    ch->tsent = calloc((size_t)n, sizeof(uint64_t));
    ch->trecvd = calloc((size_t)n, sizeof(uint64_t));
    if (!ch->sent || !ch->recvd || !ch->tsent || !ch->trecvd) {
        sym_chan_fini(ch);
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", what);
    }
    ch->area_off = area_off;
    ch->area_size = area_size;
    ch->n = n;
    ch->k = (int)k;
    ch->kshift = shift;
    ch->kmask = k - 1;
    ch->chunk = (size_t)chunk;
    ch->pe_of = pe_of;
    ch->poison_off = area_off;
    ch->call_off = area_off + SYM_LINE;
    ch->msg_off = ch->call_off + SYM_LINE;
    ch->free_off = ch->msg_off + POISON_MSG_BYTES;
    ch->tk = (int)tk;
    ch->tkshift = tshift;
    ch->tkmask = tk ? tk - 1 : 0;
    ch->tcredit_off = ch->free_off + links * SYM_LINE;
    ch->tslot_off = ch->tcredit_off + (tk ? (uint64_t)n * SYM_LINE : 0);
    /* the tiny ring lies below slot_off: sym_chan_clear_local zeroes it */
    ch->slot_off = ch->tcredit_off + tiny_bytes;
    ch->slot_stride = HDR_BYTES + chunk;
    return SYM_OK;
}

void sym_chan_fini(struct sym_chan *ch)
{
    free(ch->sent);
    free(ch->recvd);
    free(ch->tsent);
    free(ch->trecvd);
    memset(ch, 0, sizeof(*ch));
}

void sym_chan_clear_local(struct sym_chan *ch)
{
    /* flags and the poison word only: slot payloads need no clearing */
    memset(sym_rt.base + ch->poison_off, 0, (size_t)(ch->slot_off - ch->poison_off));
    for (int src = 0; src < ch->n; src++)
        for (uint64_t slot = 0; slot < (uint64_t)ch->k; slot++)
            memset(sym_rt.base + full_off(ch, src, slot), 0, sizeof(uint64_t));
}

/* ---- send / receive ---- */

/* A chunk from `src` has arrived: its header, payload and, usually next,
 * the credit for this PE's next chunk to `src` are all lines another core
 * wrote.  Loaded one after the other (header check, then the caller's
 * copy or reduction, then the next send) each costs a cross-core miss;
 * asked for together they overlap.  The credit is final by now whenever
 * `src` released it before sending what just arrived (every exchange). */
__attribute__((always_inline)) static inline void
prefetch_after_arrival(const struct sym_chan *ch, int me, int src, uint64_t slot,
                       const struct sym_chunk_hdr *hdr, bool inl)
{
    if (!inl) {
        const uint8_t *payload = (const uint8_t *)hdr + HDR_BYTES;
        __builtin_prefetch(payload);
        __builtin_prefetch(payload + SYM_LINE);
    }
    __builtin_prefetch(sym_rt.base + free_off(ch, src, k_slot(ch, ch->sent[src])));
    /* the release will write the sender's free flag: stores become visible
     * in order, so until that line is here it holds back the next send */
    const uint8_t *f = sym_direct(ch->pe_of[src], free_off(ch, me, slot));
    if (f)
        PREFETCH_W(f);
}

sym_status_t sym_chan_send(struct sym_coll *c, int dst, const void *data, size_t len,
                           uint64_t msg_bytes)
{
    if (!c->published)
        sym_chan_publish_call(c);
    if (c->tiny)
        return sym_chan_tiny_send(c, dst, data, len, msg_bytes);
    struct sym_chan *ch = &c->team->chan;
    const uint64_t n = ch->sent[dst], slot = k_slot(ch, n), use = k_use(ch, n);
    const int pe = ch->pe_of[dst];
    uint64_t s = slot_off(ch, c->team->rank, slot);
    prefetch_for_write(pe, s, len);
    sym_status_t st = SYM_OK;
    if (use > 0) {
        /* credit: the receiver gave this slot back after its previous use */
        uint64_t f = free_off(ch, dst, slot);
        if ((st = chan_wait(c, f, use, dst, "free a mailbox slot", s)) != SYM_OK)
            return st;
    }
    if (inline_fits(&c->fp, len, msg_bytes)) {
        struct inline_line l;
        fill_inline(&l, c, data, len);
        st = chan_transport(c, sym_put_signal_off_dl(pe, s, &l, offsetof(struct inline_line, full),
                                                     full_off(ch, c->team->rank, slot), use + 1,
                                                     SYM_SIGNAL_SET, &c->dl));
        if (st != SYM_OK)
            return st;
        ch->sent[dst] = n + 1;
        return SYM_OK;
    }
    struct sym_chunk_hdr hdr = {.fp = c->fp, .msg_bytes = msg_bytes, .len = (uint32_t)len};
    /* everything but the full flag, which put_signal sets after the data */
    st = sym_put_off_dl(pe, s, &hdr, offsetof(struct sym_chunk_hdr, full), &c->dl);
    if (st == SYM_OK)
        st = sym_put_signal_off_dl(pe, s + HDR_BYTES, data, len, full_off(ch, c->team->rank, slot),
                                   use + 1, SYM_SIGNAL_SET, &c->dl);
    st = chan_transport(c, st);
    if (st == SYM_OK)
        ch->sent[dst] = n + 1;
    return st;
}

sym_status_t sym_chan_mismatch(struct sym_coll *c, int src, const struct sym_fp *fp)
{
    const struct sym_chan *ch = &c->team->chan;
    char mine[160], theirs[160], sites[300] = "", msg[800];
    sym_fp_text(&c->fp, mine, sizeof(mine));
    sym_fp_text(fp, theirs, sizeof(theirs));
    if (c->site) {
        struct sym_call_line cl;
        const bool got = sym_chan_read_call(c, ch->pe_of[src], &cl) && cl.seq == fp->seq;
        sym_coll_sites_text(c, ch->pe_of[src], got ? cl.site : 0, sites, sizeof(sites));
    }
    snprintf(msg, sizeof(msg), "mismatched collectives on %s: this PE called %s, PE %d called %s%s",
             c->team->name, mine, ch->pe_of[src], theirs, sites);
    sym_chan_poison(c, SYM_ERR_MISMATCH, msg);
    return sym_error(SYM_ERR_MISMATCH, "%s: %s", c->name, msg);
}

sym_status_t sym_chan_recv(struct sym_coll *c, int src, const void **data_p, size_t *len_p,
                           uint64_t *msg_bytes_p)
{
    struct sym_chan *ch = &c->team->chan;
    if (!c->published)
        sym_chan_publish_call(c);
    const struct sym_chunk_hdr *hdr;
    bool inl;
    uint32_t tag;
    if (c->tiny) {
        sym_status_t st = sym_chan_tiny_arrived(c, src, &hdr);
        if (st != SYM_OK)
            return st;
        tag = ((const struct inline_line *)hdr)->tag;
        inl = true;
    } else {
        const uint64_t n = ch->recvd[src], slot = k_slot(ch, n), use = k_use(ch, n);
        sym_status_t st = chan_wait(c, full_off(ch, src, slot), use + 1, src, "send its data", 0);
        if (st != SYM_OK)
            return st;
        hdr = (const void *)(sym_rt.base + slot_off(ch, src, slot));
        tag = ((const struct inline_line *)hdr)->tag;
        inl = (tag & ~0xffu) == INLINE_TAG;
        prefetch_after_arrival(ch, c->team->rank, src, slot, hdr, inl);
    }
    const struct inline_line *l = (const void *)hdr;
    struct sym_fp fp_in;
    const struct sym_fp *fp = &hdr->fp;
    if (inl) {
        line_fp(hdr, &fp_in);
        fp = &fp_in;
    } else if (__builtin_expect(tag != 0, 0)) {
        return sym_chan_bad_format(c, src, tag, "a chunk header", "mailbox",
                                   "not a chunk of this library");
    }
    struct sym_fp stray;
    if (__builtin_expect(memcmp(fp, &c->fp, sizeof(c->fp)) != 0, 0))
        return sym_chan_mismatch(c, src, fp);
    /* what a member sent on the link's other path in this call or an
     * earlier one will never be taken: the member made that call
     * differently (a later call on this path would not see it) */
    if (__builtin_expect(sym_chan_stray(c, src, &stray), 0))
        return sym_chan_mismatch(c, src, &stray);
    if (inl) {
        const size_t len = tag & 0xffu;
        if (__builtin_expect(len > INLINE_MAX, 0)) {
            char msg[300];
            snprintf(msg, sizeof(msg),
                     "PE %d wrote an inline chunk of %zu bytes (at most %u "
                     "fit) into this PE's mailbox on %s",
                     ch->pe_of[src], len, INLINE_MAX, c->team->name);
            sym_chan_poison(c, SYM_ERR_INTERNAL, msg);
            return sym_error(SYM_ERR_INTERNAL, "%s: %s", c->name, msg);
        }
        *data_p = l->data;
        if (len_p)
            *len_p = len;
        if (msg_bytes_p)
            *msg_bytes_p = len;
        return SYM_OK;
    }
    *data_p = (const uint8_t *)hdr + HDR_BYTES;
    if (len_p)
        *len_p = hdr->len;
    if (msg_bytes_p)
        *msg_bytes_p = hdr->msg_bytes;
    return SYM_OK;
}

sym_status_t sym_chan_release(struct sym_coll *c, int src)
{
    struct sym_chan *ch = &c->team->chan;
    if (c->tiny)
        return sym_chan_tiny_release(c, src);
    const uint64_t n = ch->recvd[src], slot = k_slot(ch, n), use = k_use(ch, n);
    ch->recvd[src] = n + 1;
    return chan_transport(
        c, sym_flag_set_dl(ch->pe_of[src], free_off(ch, c->team->rank, slot), use + 1, &c->dl));
}

sym_status_t sym_chan_flush(struct sym_coll *c, int dst)
{
    struct sym_chan *ch = &c->team->chan;
    if (!c->published)
        sym_chan_publish_call(c);
    sym_status_t st = sym_chan_tiny_flush(c, dst);
    if (st != SYM_OK)
        return st;
    const uint64_t n = ch->sent[dst];
    if (n == 0)
        return SYM_OK;
    /* the last chunk sent used slot (n-1) % k for the ((n-1)/k)-th time */
    const uint64_t last = n - 1, slot = k_slot(ch, last);
    return chan_wait(c, free_off(ch, dst, slot), k_use(ch, last) + 1, dst,
                     "consume what this PE sent", slot_off(ch, c->team->rank, slot));
}

const struct sym_chunk_hdr *sym_chan_peek(const struct sym_chan *ch, int src)
{
    const uint64_t n = ch->recvd[src], slot = k_slot(ch, n), use = k_use(ch, n);
    if (sym_flag_load(full_off(ch, src, slot)) < use + 1)
        return NULL;
    return (const void *)(sym_rt.base + slot_off(ch, src, slot));
}

bool sym_chan_can_send(const struct sym_chan *ch, int dst)
{
    const uint64_t n = ch->sent[dst], slot = k_slot(ch, n), use = k_use(ch, n);
    return use == 0 || sym_flag_load(free_off(ch, dst, slot)) >= use;
}
