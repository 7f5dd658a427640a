/* reduce.c - sym_reduce: naive, ring, tree. */
#include <stdlib.h>
#include <string.h>

#include "coll/algorithms.h"
#include "coll/direct.h"

/* Everyone sends to the root, which reduces in rank order (the same
 * expression as the naive allreduce). */
sym_status_t sym_reduce_naive(struct sym_coll *c, void *dst, const void *src, size_t count,
                              sym_datatype_t dt, sym_op_t op, int root)
{
    const int me = c->team->rank;
    const size_t es = sym_datatype_size(dt), bytes = count * es, ck = c->team->chan.chunk;
    if (me != root) {
        /* no wait for the root to consume it: broadcast.c */
        return sym_msg_send(c, root, src, bytes);
    }
    uint8_t *mine = NULL;
    /* in place, members from 2 on write dst before reading their own term */
    if (dst == src && me >= 2 && bytes && !(mine = malloc(ck)))
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", c->name);
    const size_t nch = sym_msg_chunks(c, bytes);
    sym_status_t st = SYM_OK;
    for (size_t i = 0; i < nch && st == SYM_OK; i++) {
        const size_t len = sym_msg_chunk_len(c, bytes, i);
        const uint8_t *own = len ? (const uint8_t *)src + i * ck : NULL; /* NULL+0 is UB */
        if (mine && len) {
            memcpy(mine, own, len);
            own = mine;
        }
        st = sym_msg_reduce_chunk_in_order(c, dst, own, bytes, i, dt, op);
    }
    free(mine);
    return st;
}

/* Binomial tree towards the root; a PE combines its own vector with each
 * child's in order of increasing distance.  Non-roots work in a scratch
 * buffer (their dst is not written). */
sym_status_t sym_reduce_tree(struct sym_coll *c, void *dst, const void *src, size_t count,
                             sym_datatype_t dt, sym_op_t op, int root)
{
    const int n = c->team->size, me = c->team->rank;
    const int v = (me - root + n) % n;
    const size_t es = sym_datatype_size(dt), bytes = count * es;
    uint8_t *acc = me == root ? dst : NULL;
    if (!acc && bytes && !(acc = sym_team_scratch(c->team, 1, bytes)))
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", c->name);
    if (acc && acc != src)
        memcpy(acc, src, bytes);
    const size_t nch = sym_msg_chunks(c, bytes);
    sym_status_t st = SYM_OK;
    for (size_t i = 0; i < nch && st == SYM_OK; i++) {
        for (int mask = 1; mask < n && st == SYM_OK; mask <<= 1) {
            if (v & mask) {
                st = sym_msg_send_chunk(c, (v - mask + root) % n, acc, bytes, i);
                break;
            }
            if (v + mask < n)
                st = sym_msg_recv_reduce_chunk(c, (v + mask + root) % n, acc, bytes, i, dt, op, es);
        }
    }
    return st;
}

/* Ring reduce-scatter (pipelined, as in the ring allreduce) followed by
 * gathering the reduced blocks at the root. */
sym_status_t sym_reduce_ring(struct sym_coll *c, void *dst, const void *src, size_t count,
                             sym_datatype_t dt, sym_op_t op, int root)
{
    const int n = c->team->size, me = c->team->rank;
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    const size_t es = sym_datatype_size(dt), bytes = count * es;
    uint8_t *work = me == root ? dst : NULL, empty;
    if (!work && bytes && !(work = sym_team_scratch(c->team, 1, bytes)))
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", c->name);
    if (!work)
        work = &empty; /* 0 elements: offsets below stay 0, but not on NULL */
    if (bytes && work != src)
        memcpy(work, src, bytes);
    size_t max_chunks = 0;
    for (int b = 0; b < n; b++) {
        size_t k = sym_msg_chunks(c, sym_block_count(count, n, b) * es);
        if (k > max_chunks)
            max_chunks = k;
    }
    sym_status_t st = SYM_OK;
    for (size_t j = 0; j < max_chunks && st == SYM_OK; j++)
        for (int s = 0; s < n - 1 && st == SYM_OK; s++) {
            const int sb = ((me - s) % n + n) % n, rb = ((me - s - 1) % n + n) % n;
            const size_t sbytes = sym_block_count(count, n, sb) * es;
            const size_t rbytes = sym_block_count(count, n, rb) * es;
            if (j < sym_msg_chunks(c, sbytes))
                st = sym_msg_send_chunk(c, right, work + sym_block_start(count, n, sb) * es, sbytes,
                                        j);
            if (st == SYM_OK && j < sym_msg_chunks(c, rbytes))
                st = sym_msg_recv_reduce_chunk(c, left, work + sym_block_start(count, n, rb) * es,
                                               rbytes, j, dt, op, es);
        }
    /* PE b now holds the reduced block (b + 1) % n */
    const int own = (me + 1) % n;
    if (st == SYM_OK && me != root) {
        st = sym_msg_send(c, root, work + sym_block_start(count, n, own) * es,
                          sym_block_count(count, n, own) * es);
    } else if (st == SYM_OK) {
        for (int r = 0; r < n && st == SYM_OK; r++) {
            if (r == me)
                continue;
            const int b = (r + 1) % n;
            st = sym_msg_recv(c, r, work + sym_block_start(count, n, b) * es,
                              sym_block_count(count, n, b) * es);
        }
    }
    return st;
}

/* The root reduces straight out of every member's buffer, in rank order
 * (the same expression as the naive algorithm). */
sym_status_t sym_reduce_direct(struct sym_coll *c, void *dst, const void *src, size_t count,
                               sym_datatype_t dt, sym_op_t op, int root)
{
    const size_t bytes = count * sym_datatype_size(dt);
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    sym_status_t st;
    if (c->team->rank != root) {
        st = sym_dcall_offer(&d, 1, src, bytes, 0, 0,
                             (struct sym_dreaders){.all = false, .one = root}, NULL, NULL);
    } else {
        st = sym_dcall_view_all(&d, 1, d.dt->views);
        if (st == SYM_OK)
            st = sym_direct_reduce_all(&d, d.dt->views, c->team->size, src, dst, bytes, dt, op);
    }
    return st == SYM_OK ? sym_dcall_end(&d) : st;
}

static const sym_reduce_fn reduce_algorithms[] = {SYM_REDUCE_ALGOS(SYM_ALGO_ENTRY)};

sym_status_t sym_reduce_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                               sym_datatype_t dt, sym_op_t op, int root,
                               const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    struct sym_coll c;
    sym_status_t st =
        sym_coll_prepare(&c, "sym_reduce", team, SYM_COLL_REDUCE, dt, op, count, root, opts);
    if (st != SYM_OK)
        return st;
    const bool is_root = team->rank == root;
    if (count && (!src || (is_root && !dst)))
        return sym_error(SYM_ERR_INVALID_ARG, "sym_reduce: NULL %s buffer for %zu elements",
                         src ? "dst" : "src", count);
    const size_t es = sym_datatype_size(dt);
    st = sym_coll_select(&c, opts, count * es);
    if (st != SYM_OK)
        return st;
    const sym_datatype_t acc = sym_acc_type(dt, op);
    const size_t abytes = count * sym_datatype_size(acc);
    void *work_dst = is_root ? dst : NULL;
    const void *in = src;
    void *scratch = NULL;
    if (acc != dt || (is_root && src != dst && sym_overlaps(dst, count * es, src, count * es))) {
        if (!(scratch = sym_team_scratch(team, 0, 2 * abytes + 1)))
            return sym_error(SYM_ERR_NO_MEMORY, "sym_reduce: out of memory for %zu elements",
                             count);
        sym_to_acc(dt, acc, scratch, src, count);
        in = scratch;
        work_dst = is_root ? (uint8_t *)scratch + abytes : NULL;
    }
    sym_coll_start(&c);
    sym_chan_use_cells(&c, abytes); /* no message is larger than the vector */
    st = reduce_algorithms[c.fp.algo](&c, work_dst, in, count, acc, op, root);
    if (st == SYM_OK && is_root)
        sym_from_acc(dt, acc, op, team->size, dst, work_dst, count);
    return sym_coll_end(&c, st);
}
