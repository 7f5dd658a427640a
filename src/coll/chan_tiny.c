/* chan_tiny.c - the tiny ring (chan.h): inline chunks of small broadcasts
 * and reduces, one line each, credited by one running count per link. */
#include <inttypes.h>

#include "coll/chan_private.h"

void sym_chan_use_tiny(struct sym_coll *c, size_t bytes)
{
    c->tiny = c->team->chan.tk > 0 && inline_fits(&c->fp, bytes, bytes);
}

sym_status_t sym_chan_tiny_send(struct sym_coll *c, int dst, const void *data, size_t len,
                                uint64_t msg_bytes)
{
    struct sym_chan *ch = &c->team->chan;
    if (__builtin_expect(!inline_fits(&c->fp, len, msg_bytes), 0))
        return sym_error(SYM_ERR_INTERNAL,
                         "%s: a chunk of %zu bytes (message %" PRIu64
                         ") on the tiny ring does not fit inline",
                         c->name, len, msg_bytes);
    const uint64_t n = ch->tsent[dst];
    const int pe = ch->pe_of[dst];
    const uint64_t s = tslot_line(ch, c->team->rank, n);
    prefetch_for_write(pe, s, len);
    if (n >= (uint64_t)ch->tk) {
        /* credit: member dst consumed this line's previous chunk */
        sym_status_t st = chan_wait(c, tcredit_line(ch, dst), n - (uint64_t)ch->tk + 1, dst,
                                    "free a mailbox slot", s);
        if (st != SYM_OK)
            return st;
    }
    struct inline_line l;
    fill_inline(&l, c, data, len);
    sym_status_t st =
        chan_transport(c, sym_put_signal_off_dl(pe, s, &l, offsetof(struct inline_line, full),
                                                s + offsetof(struct inline_line, full),
                                                (n >> ch->tkshift) + 1, SYM_SIGNAL_SET, &c->dl));
    if (st == SYM_OK)
        ch->tsent[dst] = n + 1;
    return st;
}

sym_status_t sym_chan_tiny_arrived(struct sym_coll *c, int src, const struct sym_chunk_hdr **hdr_p)
{
    struct sym_chan *ch = &c->team->chan;
    const uint64_t n = ch->trecvd[src], line = tslot_line(ch, src, n);
    sym_status_t st = chan_wait(c, line + offsetof(struct inline_line, full),
                                (n >> ch->tkshift) + 1, src, "send its data", 0);
    if (st != SYM_OK)
        return st;
    const struct sym_chunk_hdr *hdr = (const void *)(sym_rt.base + line);
    const uint32_t tag = ((const struct inline_line *)hdr)->tag;
    if (__builtin_expect((tag & ~0xffu) != INLINE_TAG, 0))
        return sym_chan_bad_format(c, src, tag, "a line", "tiny ring",
                                   "only inline chunks go there");
    *hdr_p = hdr;
    return SYM_OK;
}

sym_status_t sym_chan_tiny_release(struct sym_coll *c, int src)
{
    struct sym_chan *ch = &c->team->chan;
    const uint64_t n = ch->trecvd[src];
    ch->trecvd[src] = n + 1;
    return chan_transport(
        c, sym_flag_set_dl(ch->pe_of[src], tcredit_line(ch, c->team->rank), n + 1, &c->dl));
}

sym_status_t sym_chan_tiny_flush(struct sym_coll *c, int dst)
{
    struct sym_chan *ch = &c->team->chan;
    const uint64_t tn = ch->tsent[dst];
    if (!tn)
        return SYM_OK;
    return chan_wait(c, tcredit_line(ch, dst), tn, dst, "consume what this PE sent",
                     tslot_line(ch, c->team->rank, tn - 1));
}

bool sym_chan_stray(const struct sym_coll *c, int src, struct sym_fp *fp)
{
    const struct sym_chan *ch = &c->team->chan;
    if (!ch->tk || c->fp.kind == SYM_COLL_P2P)
        return false;
    uint64_t line;
    if (c->tiny) {
        const uint64_t n = ch->recvd[src], slot = k_slot(ch, n);
        if (sym_flag_load(full_off(ch, src, slot)) < k_use(ch, n) + 1)
            return false;
        line = slot_off(ch, src, slot);
    } else {
        const uint64_t n = ch->trecvd[src];
        line = tslot_line(ch, src, n);
        if (sym_flag_load(line + offsetof(struct inline_line, full)) < (n >> ch->tkshift) + 1)
            return false;
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    line_fp((const void *)(sym_rt.base + line), fp);
    return fp->seq <= c->fp.seq;
}
