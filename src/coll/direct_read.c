/* direct_read.c - reading the members' offers of a direct call
 * (direct.h): one range at a time, or every view's range round by round,
 * copied or reduced in rank order. */
#include <string.h>

#include "coll/chan_private.h"
#include "coll/direct.h"
#include "core/cma.h"

/* Where byte `off` of a STAGED offer lies in its owner's staging area. */
static inline uint64_t staged_pos(const struct sym_dview *v, uint64_t off)
{
    const uint64_t r = off / v->win;
    return (r % SYM_DSLOTS) * v->win + (off - r * v->win);
}

sym_status_t sym_dview_copy(struct sym_dcall *d, const struct sym_dview *v, uint64_t off, void *dst,
                            size_t len)
{
    if (!len)
        return SYM_OK;
    switch (v->kind) {
    case SYM_DLOC_HEAP:
        memcpy(dst, v->ptr + off, len);
        return SYM_OK;
    case SYM_DLOC_STAGED:
        memcpy(dst, v->ptr + staged_pos(v, off), len);
        return SYM_OK;
    default: {
        struct sym_coll *c = d->c;
        sym_status_t st = sym_cma_read(c->name, c->team->pe_of[v->owner], dst, v->va + off, len);
        if (st == SYM_OK)
            return st;
        /* An owner that failed first and gave its buffer back (EFAULT here)
         * told the team why; else this PE tells the members waiting for it. */
        if (sym_flag_load(c->team->chan.poison_off))
            return sym_chan_poisoned(c);
        sym_chan_poison(c, st, sym_last_error());
        return st;
    }
    }
}

sym_status_t sym_dview_ptr(struct sym_dcall *d, const struct sym_dview *v, uint64_t off, size_t len,
                           uint8_t *bounce, const uint8_t **p)
{
    switch (v->kind) {
    case SYM_DLOC_HEAP:
        *p = v->ptr + off;
        return SYM_OK;
    case SYM_DLOC_STAGED:
        *p = v->ptr + staged_pos(v, off);
        return SYM_OK;
    default:
        *p = bounce;
        return sym_dview_copy(d, v, off, bounce, len);
    }
}

/* Rounds to go through: every view's and this PE's own offer's. */
static uint32_t rounds_of(const struct sym_dcall *d, const struct sym_dview *views, int nviews)
{
    uint32_t rounds = d->phase ? d->mine[d->phase - 1].rounds : 0;
    for (int i = 0; i < nviews; i++)
        if (views[i].owner >= 0 && views[i].rounds > rounds)
            rounds = views[i].rounds;
    return rounds;
}

static sym_status_t done_all(struct sym_dcall *d, struct sym_dview *views, int nviews)
{
    sym_status_t st = SYM_OK;
    for (int i = 0; i < nviews && st == SYM_OK; i++)
        st = sym_dcall_done(d, &views[i], UINT32_MAX);
    return st;
}

sym_status_t sym_direct_copy_all(struct sym_dcall *d, struct sym_dview *views, int nviews,
                                 uint8_t *const *dsts)
{
    const uint32_t rounds = rounds_of(d, views, nviews);
    sym_status_t st = SYM_OK;
    /* readers start next to themselves, so they do not all queue on one owner */
    const int first = nviews > 1 ? d->c->team->rank + 1 : 0;
    for (uint32_t r = 0; r < rounds && st == SYM_OK; r++) {
        st = sym_dcall_stage(d, r);
        for (int k = 0; k < nviews && st == SYM_OK; k++) {
            const int i = (first + k) % nviews;
            struct sym_dview *v = &views[i];
            uint64_t lo, hi;
            if (v->owner < 0 || r >= v->rounds)
                continue;
            sym_dview_window(v, r, &lo, &hi);
            if (lo < hi && (st = sym_dcall_ready(d, v, r)) == SYM_OK)
                st = sym_dview_copy(d, v, lo, dsts[i] + (lo - v->roff), (size_t)(hi - lo));
            /* a STAGED owner reuses its slots: say so round by round */
            if (st == SYM_OK && v->kind == SYM_DLOC_STAGED)
                st = sym_dcall_done(d, v, r + 1);
        }
    }
    return st == SYM_OK ? done_all(d, views, nviews) : st;
}

/* One piece [lo, lo + len) of every term, combined in rank order into out. */
static sym_status_t reduce_piece(struct sym_dcall *d, const struct sym_dview *views, int nviews,
                                 const uint8_t *own, uint64_t roff, uint64_t lo, size_t len,
                                 uint8_t *out, sym_datatype_t dt, sym_op_t op)
{
    const int me = d->c->team->rank;
    const size_t es = sym_datatype_size(dt);
    uint8_t *b0 = d->dt->scratch, *b1 = b0 + SYM_DPIECE;
    const uint8_t *t0, *t1;
    sym_status_t st = SYM_OK;
    /* term i: this PE's own (which starts at the others' roff), or member
     * i's range at lo */
#define TERM(i, bounce, p)                                                                         \
    ((i) == me ? (*(p) = own + (lo - roff), SYM_OK)                                                \
               : sym_dview_ptr(d, &views[i], lo, len, (bounce), (p)))
    if ((st = TERM(0, b0, &t0)) != SYM_OK)
        return st;
    if (nviews == 1) {
        if (out != t0)
            memmove(out, t0, len);
        return SYM_OK;
    }
    if ((st = TERM(1, b1, &t1)) != SYM_OK)
        return st;
    sym_reduce_apply3(dt, op, out, t0, t1, len / es);
    for (int i = 2; i < nviews && st == SYM_OK; i++) {
        const uint8_t *ti;
        if ((st = TERM(i, b0, &ti)) == SYM_OK)
            sym_reduce_apply(dt, op, out, ti, len / es);
    }
#undef TERM
    return st;
}

sym_status_t sym_direct_reduce_all(struct sym_dcall *d, struct sym_dview *views, int nviews,
                                   const uint8_t *own, uint8_t *dst, size_t bytes,
                                   sym_datatype_t dt, sym_op_t op)
{
    const int me = d->c->team->rank;
    const size_t es = sym_datatype_size(dt);
    const size_t piece = SYM_DPIECE / es * es;
    /* own's term is read after out is written from member 2 on: combine such
     * pieces aside */
    const bool aside = me >= 2 && own && sym_overlaps(own, bytes, dst, bytes);
    const uint32_t rounds = rounds_of(d, views, nviews);
    const struct sym_dview *geo = &views[me == 0 && nviews > 1 ? 1 : 0];
    sym_status_t st = SYM_OK;
    for (uint32_t r = 0; r < rounds && st == SYM_OK; r++) {
        st = sym_dcall_stage(d, r);
        uint64_t lo = 0, hi = 0;
        if (nviews > 1 && r < geo->rounds)
            sym_dview_window(geo, r, &lo, &hi);
        for (int i = 0; i < nviews && st == SYM_OK && lo < hi; i++)
            if (i != me)
                st = sym_dcall_ready(d, &views[i], r);
        for (uint64_t at = lo; at < hi && st == SYM_OK; at += piece) {
            const size_t len = (size_t)(hi - at < piece ? hi - at : piece);
            uint8_t *out = dst + (at - geo->roff);
            uint8_t *acc = aside ? d->dt->scratch + 2 * SYM_DPIECE : out;
            st = reduce_piece(d, views, nviews, own, geo->roff, at, len, acc, dt, op);
            if (st == SYM_OK && acc != out)
                memcpy(out, acc, len);
        }
        for (int i = 0; i < nviews && st == SYM_OK; i++)
            if (i != me && views[i].kind == SYM_DLOC_STAGED)
                st = sym_dcall_done(d, &views[i], r + 1);
    }
    if (nviews == 1 && bytes && own != dst)
        memmove(dst, own, bytes);
    return st == SYM_OK ? done_all(d, views, nviews) : st;
}
