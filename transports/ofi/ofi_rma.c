/* ofi_rma.c - puts, gets, put-with-signal, quiet and fence: the ofi ops
 * table. */
#include <string.h>

#include "ofi_private.h"

static inline size_t min_sz(size_t a, size_t b)
{
    return a < b ? a : b;
}

/* Issue writes of [src, src + n) to (pe, off) in pieces the provider takes.
 * Small pieces are injected or copied into slots (src reusable at once);
 * with `wait`, returns only when pieces posted from src itself completed,
 * so the caller may reuse src; without, *from_src_p (if not NULL) says
 * whether any piece is still read from src.
 *
 * Only non-blocking writes (`!wait`) are injected.  An injected write
 * completes when it leaves, so the next quiet must prove it landed with a
 * read (ofi_flush): two operations where a delivery-complete write from a
 * slot is one.  Streams of put_nbi gain from injecting (libfabric's shm:
 * 2-3x the rate of delivery-complete writes); a blocking put is most often
 * followed by a quiet, fence or signal, where the extra read cost
 * libfabric's shm 1.3-1.7x of a raw delivery-complete write (put+quiet,
 * 1 B-4 KiB; tcp;ofi_rxm showed no difference either way). */
static sym_status_t write_range(struct ofi_transport *t, struct sym_deadline *dl, int pe,
                                uint64_t off, const void *src, size_t n, bool wait,
                                bool *from_src_p)
{
    const uint8_t *s = src;
    bool in_flight = false;
    uint64_t raddr = 0, key = 0;
    sym_status_t st = ofi_target(t, dl, pe, off, n, &raddr, &key);
    if (st != SYM_OK)
        return st;
    while (n) {
        size_t len = min_sz(n, t->max_msg);
        bool staged;
        void *desc = ofi_local_desc(t, s, len, &staged);
        const void *buf = s;
        if (staged) {
            len = min_sz(len, OFI_BOUNCE_BYTES);
            memcpy(t->bounce, s, len);
            buf = t->bounce;
            desc = t->bounce_desc;
        }
        struct ofi_ctx *ctx;
        if ((st = ofi_order(t, OFI_KIND_WRITE, pe, off + (uint64_t)(s - (const uint8_t *)src), len,
                            dl)) != SYM_OK ||
            (st = ofi_next_ctx(t, dl, pe, &ctx)) != SYM_OK)
            return st;
        if (!wait && len <= t->inject_size && t->inject_ok) {
            OFI_POST(t, dl, pe, "fi_inject_write",
                     fi_inject_write(t->ep, buf, len, t->addr[pe], raddr, key));
            ofi_mark_dirty(t, pe);
        } else if (len <= OFI_SLOT_BYTES) {
            void *slot = ofi_slot(t, ctx);
            memcpy(slot, buf, len);
            OFI_POST(t, dl, pe, "fi_write",
                     fi_write(t->ep, slot, len, t->bounce_desc, t->addr[pe], raddr, key, ctx));
        } else {
            OFI_POST(t, dl, pe, "fi_write",
                     fi_write(t->ep, buf, len, desc, t->addr[pe], raddr, key, ctx));
            in_flight = true;
        }
        ofi_issued(t);
        if (staged && (st = ofi_drain(t, dl)) != SYM_OK) /* the bounce buffer is reused */
            return st;
        s += len;
        raddr += len;
        n -= len;
    }
    if (from_src_p)
        *from_src_p = in_flight;
    if (wait && in_flight)
        return ofi_drain(t, dl);
    return SYM_OK;
}

/* A blocking read of at most a slot into memory that is not ours (often
 * the caller's stack) lands in the operation's slot and is copied out once
 * complete: if its wait fails, a late completion writes into the slot, not
 * into a frame that is gone (see ofi_settle). */
static sym_status_t read_small(struct ofi_transport *t, struct sym_deadline *dl, int pe, void *dst,
                               uint64_t raddr, uint64_t key, size_t n)
{
    struct ofi_ctx *ctx;
    sym_status_t st;
    if ((st = ofi_order(t, OFI_KIND_READ, pe, 0, 0, dl)) != SYM_OK ||
        (st = ofi_next_ctx(t, dl, pe, &ctx)) != SYM_OK)
        return st;
    void *slot = ofi_slot(t, ctx);
    OFI_POST(t, dl, pe, "fi_read",
             fi_read(t->ep, slot, n, t->bounce_desc, t->addr[pe], raddr, key, ctx));
    ofi_issued(t);
    if ((st = ofi_drain(t, dl)) != SYM_OK)
        return st;
    memcpy(dst, slot, n);
    return SYM_OK;
}

static sym_status_t read_range(struct ofi_transport *t, struct sym_deadline *dl, int pe, void *dst,
                               uint64_t off, size_t n, bool wait)
{
    uint8_t *d = dst;
    uint64_t raddr = 0, key = 0;
    sym_status_t st = ofi_target(t, dl, pe, off, n, &raddr, &key);
    if (st != SYM_OK)
        return st;
    if (wait && n && n <= OFI_SLOT_BYTES && !ofi_is_ours(t, d, n))
        return read_small(t, dl, pe, d, raddr, key, n);
    while (n) {
        size_t len = min_sz(n, t->max_msg);
        bool staged;
        void *desc = ofi_local_desc(t, d, len, &staged);
        void *buf = d;
        if (staged) {
            len = min_sz(len, OFI_BOUNCE_BYTES);
            buf = t->bounce;
            desc = t->bounce_desc;
        }
        struct ofi_ctx *ctx;
        if ((st = ofi_order(t, OFI_KIND_READ, pe, 0, 0, dl)) != SYM_OK ||
            (st = ofi_next_ctx(t, dl, pe, &ctx)) != SYM_OK)
            return st;
        OFI_POST(t, dl, pe, "fi_read",
                 fi_read(t->ep, buf, len, desc, t->addr[pe], raddr, key, ctx));
        ofi_issued(t);
        if (staged) {
            if ((st = ofi_drain(t, dl)) != SYM_OK)
                return st;
            memcpy(d, t->bounce, len);
        }
        d += len;
        raddr += len;
        n -= len;
    }
    return wait ? ofi_drain(t, dl) : SYM_OK;
}

sym_status_t ofi_put(struct sym_transport *tp, int pe, uint64_t off, const void *src, size_t n,
                     struct sym_deadline *dl)
{
    return write_range(ofi_of(tp), dl, pe, off, src, n, true, NULL);
}

sym_status_t ofi_put_nbi(struct sym_transport *tp, int pe, uint64_t off, const void *src, size_t n,
                         struct sym_deadline *dl)
{
    return write_range(ofi_of(tp), dl, pe, off, src, n, false, NULL);
}

sym_status_t ofi_get(struct sym_transport *tp, int pe, void *dst, uint64_t off, size_t n,
                     struct sym_deadline *dl)
{
    struct ofi_transport *t = ofi_of(tp);
    sym_status_t st = read_range(t, dl, pe, dst, off, n, true);
    /* Failed with pieces read straight into the caller's memory: they may
     * still land there (ofi_settle).  Small reads went through a slot, and
     * with FI_MR_LOCAL every piece goes through the bounce buffer. */
    if (st != SYM_OK && n > OFI_SLOT_BYTES && !t->mr_local && !ofi_is_ours(t, dst, n))
        ofi_settle(t);
    return st;
}

sym_status_t ofi_get_nbi(struct sym_transport *tp, int pe, void *dst, uint64_t off, size_t n,
                         struct sym_deadline *dl)
{
    return read_range(ofi_of(tp), dl, pe, dst, off, n, false);
}

/* A write's completion may be reported when it left (an injected write
 * always is), not when it landed.  Where a read is ordered after writes,
 * reading one word from every PE written since the last flush proves
 * those writes landed. */
static void clear_dirty(struct ofi_transport *t)
{
    for (int k = 0; k < t->ndirty; k++)
        t->dirty[t->dirty_list[k]] = 0;
    t->ndirty = 0;
}

sym_status_t ofi_flush(struct ofi_transport *t, struct sym_deadline *dl)
{
    sym_status_t st = SYM_OK;
    /* Nothing issued since the last drain (a blocking put or get waited
     * already) and no read to prove landing: done, without the libfabric
     * calls of a drain (a quiet right after a blocking put over tcp;ofi_rxm
     * cost microseconds of progress calls for nothing). */
    if (t->drained >= t->issued && t->failed == SYM_OK && (!t->raw_ordered || !t->ndirty)) {
        clear_dirty(t);
        return SYM_OK;
    }
    if (t->raw_ordered)
        for (int k = 0; k < t->ndirty && st == SYM_OK; k++)
            st =
                read_range(t, dl, t->dirty_list[k], t->bounce + OFI_BOUNCE_BYTES + 32, 0, 8, false);
    if (st == SYM_OK)
        st = ofi_drain(t, dl);
    if (st == SYM_OK)
        clear_dirty(t);
    return st;
}

sym_status_t ofi_put_signal(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                            size_t n, uint64_t sig_off, uint64_t signal, sym_signal_op_t op,
                            struct sym_deadline *dl)
{
    struct ofi_transport *t = ofi_of(tp);
    uint64_t sig_raddr = 0, sig_key = 0; /* checked before any data goes out */
    sym_status_t st = ofi_target(t, dl, pe, sig_off, 8, &sig_raddr, &sig_key);
    if (st != SYM_OK)
        return st;
    bool from_src = false;
    if (n && (st = write_range(t, dl, pe, off, src, n, false, &from_src)) != SYM_OK)
        return st;
    /* The signal may not overtake the data: ordered writes need nothing,
     * else a fenced atomic, else wait until the data landed. */
    bool fenced = false, flushed = false;
    if (n && !t->waw_ordered) {
        if (t->has_fence)
            fenced = true;
        else if ((st = ofi_flush(t, dl)) != SYM_OK)
            return st;
        else
            flushed = true;
    }
    if ((st = ofi_signal(t, pe, sig_off, signal, op, fenced, dl)) != SYM_OK)
        return st;
    /* src is the caller's again on return: after a flush the data has
     * landed already, and the signal's operand is a copy, so only a piece
     * still read from src is waited for (not the signal's round trip). */
    if (flushed || !from_src)
        return SYM_OK;
    return ofi_drain(t, dl);
}

sym_status_t ofi_quiet(struct sym_transport *tp, struct sym_deadline *dl)
{
    return ofi_flush(ofi_of(tp), dl);
}

sym_status_t ofi_fence(struct sym_transport *tp, struct sym_deadline *dl)
{
    struct ofi_transport *t = ofi_of(tp);
    if (t->waw_ordered) /* puts to one PE already land in issue order */
        return SYM_OK;
    return ofi_flush(t, dl);
}
