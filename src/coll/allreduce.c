/* allreduce.c - sym_allreduce: naive, ring, recursive doubling, tree. */
#include <stdlib.h>
#include <string.h>

#include "coll/algorithms.h"
#include "coll/direct.h"
#include "coll/tuning.h"

/* Every PE sends its vector to every peer and reduces all of them in rank
 * order, so every PE computes exactly the same expression. */
sym_status_t sym_allreduce_naive(struct sym_coll *c, void *dst, const void *src, size_t count,
                                 sym_datatype_t dt, sym_op_t op)
{
    const int n = c->team->size, me = c->team->rank;
    const size_t es = sym_datatype_size(dt), bytes = count * es, ck = c->team->chan.chunk;
    const size_t nch = sym_msg_chunks(c, bytes);
    uint8_t *mine = NULL;
    /* in place, members from 2 on write dst before reading their own term */
    if (dst == src && me >= 2 && bytes && !(mine = malloc(ck)))
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", c->name);
    sym_status_t st = SYM_OK;
    for (size_t i = 0; i < nch && st == SYM_OK; i++) {
        const size_t len = sym_msg_chunk_len(c, bytes, i);
        const uint8_t *own = len ? (const uint8_t *)src + i * ck : NULL; /* NULL+0 is UB */
        for (int r = 0; r < n && st == SYM_OK; r++)
            if (r != me)
                st = sym_msg_send_chunk(c, r, src, bytes, i);
        if (st != SYM_OK)
            break;
        if (mine && len) {
            memcpy(mine, own, len);
            own = mine;
        }
        st = sym_msg_reduce_chunk_in_order(c, dst, own, bytes, i, dt, op);
    }
    free(mine);
    return st;
}

/* Reduce-scatter then all-gather around the ring, pipelined chunk by chunk:
 * for chunk column j, all 2(n-1) steps run before column j+1, and a step
 * only waits for its own column's data, so columns overlap on the wire.
 * Block b is finished by PE b-1... and then copied, so all PEs hold the
 * same bits.  src is never copied into dst first: the first step sends
 * from src and every block is combined as dst = src op incoming, once,
 * before dst ever holds it (at 2 PEs this cuts the bytes moved per PE by a
 * third). */
sym_status_t sym_allreduce_ring(struct sym_coll *c, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, sym_op_t op)
{
    const int n = c->team->size, me = c->team->rank;
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    const size_t es = sym_datatype_size(dt);
    if (n == 1) {
        if (dst != src && count)
            memcpy(dst, src, count * es);
        return SYM_OK;
    }
    size_t max_chunks = 0;
    for (int b = 0; b < n; b++) {
        size_t k = sym_msg_chunks(c, sym_block_count(count, n, b) * es);
        if (k > max_chunks)
            max_chunks = k;
    }
    uint8_t *base = dst;
    const uint8_t *in = src;
    for (size_t j = 0; j < max_chunks; j++) {
        for (int step = 0; step < 2 * (n - 1); step++) {
            const bool scatter = step < n - 1;
            const int s = scatter ? step : step - (n - 1);
            /* reduce-scatter: send block me-s, receive block me-s-1;
             * all-gather: send block me+1-s, receive block me-s */
            const int sb = scatter ? ((me - s) % n + n) % n : ((me + 1 - s) % n + n) % n;
            const int rb = scatter ? ((me - s - 1) % n + n) % n : ((me - s) % n + n) % n;
            const size_t sbytes = sym_block_count(count, n, sb) * es;
            const size_t rbytes = sym_block_count(count, n, rb) * es;
            /* only step 0 sends a block dst does not hold yet (our own) */
            const size_t so = sym_block_start(count, n, sb) * es;
            const size_t ro = sym_block_start(count, n, rb) * es;
            const uint8_t *sptr = !count ? NULL : (step == 0 ? in : base) + so;
            uint8_t *rptr = count ? base + ro : NULL;
            const uint8_t *rsrc = count ? in + ro : NULL;
            sym_status_t st = SYM_OK;
            if (j < sym_msg_chunks(c, sbytes))
                st = sym_msg_send_chunk(c, right, sptr, sbytes, j);
            if (st == SYM_OK && j < sym_msg_chunks(c, rbytes))
                st = scatter
                         ? sym_msg_recv_reduce3_chunk(c, left, rptr, rsrc, rbytes, j, dt, op, es)
                         : sym_msg_recv_chunk(c, left, rptr, rbytes, j);
            if (st != SYM_OK)
                return st;
        }
    }
    return SYM_OK;
}

/* Exchange the whole vector with `partner` chunk by chunk and combine,
 * lower rank's term first so both partners compute the same bits.  Our
 * term is read from `from` (src in the first round, saving a copy of src
 * into d; d itself later) and the result written to d. */
static sym_status_t rd_exchange(struct sym_coll *c, int partner, uint8_t *d, const uint8_t *from,
                                size_t bytes, sym_datatype_t dt, sym_op_t op, size_t es)
{
    const size_t ck = c->team->chan.chunk, nch = sym_msg_chunks(c, bytes);
    for (size_t i = 0; i < nch; i++) {
        sym_status_t st = sym_msg_send_chunk(c, partner, from, bytes, i);
        const void *theirs;
        size_t len;
        uint64_t total;
        if (st == SYM_OK)
            st = sym_chan_recv(c, partner, &theirs, &len, &total);
        if (st != SYM_OK)
            return st;
        uint8_t *mine = len ? d + i * ck : NULL;
        const uint8_t *own = len ? from + i * ck : NULL;
        if (c->team->rank < partner)
            sym_reduce_apply3(dt, op, mine, own, theirs, len / es);
        else
            sym_reduce_apply3(dt, op, mine, theirs, own, len / es);
        if ((st = sym_chan_release(c, partner)) != SYM_OK)
            return st;
    }
    return SYM_OK;
}

/* Recursive doubling over the largest power of two p2 <= n; PEs p2..n-1
 * first fold their vector into PE r - p2 and get the result back at the
 * end.  The first combination reads src, so src is never copied to dst. */
sym_status_t sym_allreduce_rd(struct sym_coll *c, void *dst, const void *src, size_t count,
                              sym_datatype_t dt, sym_op_t op)
{
    const int n = c->team->size, me = c->team->rank;
    const size_t es = sym_datatype_size(dt), bytes = count * es;
    int p2 = 1;
    while (p2 * 2 <= n)
        p2 *= 2;
    sym_status_t st = SYM_OK;
    if (me >= p2) {
        st = sym_msg_send(c, me - p2, src, bytes);
        return st == SYM_OK ? sym_msg_recv(c, me - p2, dst, bytes) : st;
    }
    const uint8_t *cur = src; /* where our partial result is */
    if (me + p2 < n) {
        const size_t nch = sym_msg_chunks(c, bytes);
        for (size_t i = 0; i < nch && st == SYM_OK; i++)
            st = sym_msg_recv_reduce3_chunk(c, me + p2, dst, src, bytes, i, dt, op, es);
        cur = dst;
    }
    for (int mask = 1; mask < p2 && st == SYM_OK; mask <<= 1) {
        st = rd_exchange(c, me ^ mask, dst, cur, bytes, dt, op, es);
        cur = dst;
    }
    if (st == SYM_OK && cur != (const uint8_t *)dst && bytes)
        memcpy(dst, src, bytes); /* a team of one */
    if (st == SYM_OK && me + p2 < n)
        st = sym_msg_send(c, me + p2, dst, bytes);
    return st;
}

/* Binomial reduce to member 0, then binomial broadcast. */
sym_status_t sym_allreduce_tree(struct sym_coll *c, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, sym_op_t op)
{
    sym_status_t st = sym_reduce_tree(c, dst, src, count, dt, op, 0);
    return st == SYM_OK ? sym_broadcast_tree(c, dst, count * sym_datatype_size(dt), 0) : st;
}

/* One shot: every member reduces the whole vector straight out of every
 * member's buffer, in rank order (the naive algorithm's expression).  In
 * place, readers may still be reading this PE's buffer while it finishes:
 * the result waits aside until they are done, unless they read a staged
 * copy. */
static sym_status_t allreduce_one_shot(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                                       sym_datatype_t dt, sym_op_t op)
{
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    sym_status_t st = sym_dcall_offer(&d, 1, src, bytes, 0, 0,
                                      (struct sym_dreaders){.all = true, .one = -1}, NULL, NULL);
    uint8_t *out = dst;
    if (st == SYM_OK && d.mine[0].kind != SYM_DLOC_STAGED && sym_overlaps(dst, bytes, src, bytes) &&
        !(out = sym_team_scratch(c->team, 1, bytes)))
        st = sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", c->name, bytes);
    if (st == SYM_OK)
        st = sym_dcall_view_all(&d, 1, d.dt->views);
    if (st == SYM_OK)
        st = sym_direct_reduce_all(&d, d.dt->views, c->team->size, src, out, bytes, dt, op);
    if (st == SYM_OK)
        st = sym_dcall_end(&d);
    if (st == SYM_OK && out != (uint8_t *)dst)
        memcpy(dst, out, bytes);
    return st;
}

/* Two shots: member b reduces block b straight out of every member's
 * buffer, in rank order, then every member copies every reduced block out
 * of its reducer's dst (or the copy it staged).  In place is safe: a
 * member overwrites block b of its buffer only after member b announced
 * its result, which it does after reading its block from everyone. */
static sym_status_t allreduce_two_shot(struct sym_coll *c, void *dst, const void *src, size_t count,
                                       sym_datatype_t dt, sym_op_t op)
{
    const int n = c->team->size, me = c->team->rank;
    const size_t es = sym_datatype_size(dt), bytes = count * es;
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    struct sym_dteam *t = d.dt;
    for (int i = 0; i < n; i++) {
        t->roff[i] = sym_block_start(count, n, i) * es;
        t->rlen[i] = sym_block_count(count, n, i) * es;
        t->dsts[i] = bytes ? (uint8_t *)dst + t->roff[i] : NULL;
    }
    const size_t mine = t->roff[me], len = t->rlen[me];
    sym_status_t st =
        sym_dcall_offer(&d, 1, src, bytes, mine, mine + len,
                        (struct sym_dreaders){.all = true, .one = -1}, t->roff, t->rlen);
    if (st == SYM_OK)
        st = sym_dcall_view_all(&d, 1, t->views);
    if (st == SYM_OK)
        st = sym_direct_reduce_all(&d, t->views, n, bytes ? (const uint8_t *)src + mine : NULL,
                                   t->dsts[me], len, dt, op);
    if (st == SYM_OK)
        st = sym_dcall_offer(&d, 2, t->dsts[me], len, 0, 0,
                             (struct sym_dreaders){.all = true, .one = -1}, NULL, NULL);
    if (st == SYM_OK)
        st = sym_dcall_view_all(&d, 2, t->views2);
    if (st == SYM_OK)
        st = sym_direct_copy_all(&d, t->views2, n, t->dsts);
    return st == SYM_OK ? sym_dcall_end(&d) : st;
}

/* One shot reads n vectors per member, two shots 2 (n - 1) / n of one, at
 * the price of a second round of announcements. */
sym_status_t sym_allreduce_direct(struct sym_coll *c, void *dst, const void *src, size_t count,
                                  sym_datatype_t dt, sym_op_t op)
{
    const size_t bytes = count * sym_datatype_size(dt);
    if ((uint64_t)bytes * (uint64_t)(c->team->size - 1) <= sym_tuning.one_shot_max)
        return allreduce_one_shot(c, dst, src, bytes, dt, op);
    return allreduce_two_shot(c, dst, src, count, dt, op);
}

static const sym_allreduce_fn allreduce_algorithms[] = {SYM_ALLREDUCE_ALGOS(SYM_ALGO_ENTRY)};

sym_status_t sym_allreduce_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                  sym_datatype_t dt, sym_op_t op, const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    if (count && (!dst || !src))
        return sym_error(SYM_ERR_INVALID_ARG, "sym_allreduce: NULL %s buffer for %zu elements",
                         dst ? "src" : "dst", count);
    struct sym_coll c;
    sym_status_t st =
        sym_coll_prepare(&c, "sym_allreduce", team, SYM_COLL_ALLREDUCE, dt, op, count, -1, opts);
    if (st != SYM_OK)
        return st;
    const size_t es = sym_datatype_size(dt);
    st = sym_coll_select(&c, opts, count * es);
    if (st != SYM_OK)
        return st;
    const sym_datatype_t acc = sym_acc_type(dt, op);
    void *work = dst;
    const void *in = src;
    if (acc != dt || (src != dst && sym_overlaps(dst, count * es, src, count * es))) {
        /* a separate accumulation buffer: wider type, or partial overlap */
        if (!(work = sym_team_scratch(team, 0, count * sym_datatype_size(acc) + 1)))
            return sym_error(SYM_ERR_NO_MEMORY, "sym_allreduce: out of memory for %zu elements",
                             count);
        sym_to_acc(dt, acc, work, src, count);
        in = work;
    }
    sym_coll_start(&c);
    sym_chan_use_cells(&c, count * sym_datatype_size(acc)); /* none is larger than the vector */
    st = allreduce_algorithms[c.fp.algo](&c, work, in, count, acc, op);
    if (st == SYM_OK)
        sym_from_acc(dt, acc, op, team->size, dst, work, count);
    return sym_coll_end(&c, st);
}
