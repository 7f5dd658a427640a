/* team_barrier.c - sym_barrier: dissemination (rd), naive, tree. */
#include "coll/algorithms.h"

/* An empty message carries the fingerprint: a PE in another collective is
 * caught at the first exchange. */
static sym_status_t ping(struct sym_coll *c, int dst)
{
    return sym_chan_send(c, dst, NULL, 0, 0);
}

static sym_status_t pong(struct sym_coll *c, int src)
{
    const void *data;
    sym_status_t st = sym_chan_recv(c, src, &data, NULL, NULL);
    return st == SYM_OK ? sym_chan_release(c, src) : st;
}

sym_status_t sym_coll_flush_all(struct sym_coll *c)
{
    for (int r = 0; r < c->team->size; r++) {
        if (r == c->team->rank)
            continue;
        sym_status_t st = sym_chan_flush(c, r);
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

sym_status_t sym_barrier_rd(struct sym_coll *c)
{
    const int n = c->team->size, me = c->team->rank;
    for (int dist = 1; dist < n; dist <<= 1) {
        sym_status_t st = ping(c, (me + dist) % n);
        if (st == SYM_OK)
            st = pong(c, (me - dist + n) % n);
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

sym_status_t sym_barrier_naive(struct sym_coll *c)
{
    const int n = c->team->size, me = c->team->rank;
    sym_status_t st = SYM_OK;
    if (me == 0) {
        for (int r = 1; r < n && st == SYM_OK; r++)
            st = pong(c, r);
        for (int r = 1; r < n && st == SYM_OK; r++)
            st = ping(c, r);
        return st;
    }
    st = ping(c, 0);
    return st == SYM_OK ? pong(c, 0) : st;
}

sym_status_t sym_barrier_tree(struct sym_coll *c)
{
    const int n = c->team->size, me = c->team->rank;
    sym_status_t st = SYM_OK;
    int mask = 1;
    /* fan-in: collect the subtree, then report to the parent */
    for (; mask < n; mask <<= 1) {
        if (me & mask) {
            if ((st = ping(c, me - mask)) != SYM_OK || (st = pong(c, me - mask)) != SYM_OK)
                return st;
            break;
        }
        if (me + mask < n && (st = pong(c, me + mask)) != SYM_OK)
            return st;
    }
    /* fan-out: release the children in reverse order */
    for (mask >>= 1; mask > 0; mask >>= 1)
        if (me + mask < n && (st = ping(c, me + mask)) != SYM_OK)
            return st;
    return SYM_OK;
}

static const sym_barrier_fn barrier_algorithms[] = {
    [SYM_ALGO_NAIVE] = sym_barrier_naive,
    [SYM_ALGO_TREE] = sym_barrier_tree,
    [SYM_ALGO_RD] = sym_barrier_rd,
};

SYM_API sym_status_t sym_barrier(sym_team_t team, const sym_coll_opts_t *opts)
{
    struct sym_coll c;
    sym_status_t st = sym_coll_begin(&c, "sym_barrier", team, SYM_COLL_BARRIER, 0, 0, 0, -1, opts);
    if (st != SYM_OK)
        return st;
    st = sym_coll_select(&c, opts, 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_TREE | 1u << SYM_ALGO_RD,
                         SYM_ALGO_RD);
    if (st != SYM_OK)
        return st;
    /* The team's timeout bounds the quiet too: over manual progress, a
     * write to a member that makes no library calls completes only when
     * it does (see chan.c). */
    double saved = sym_op_timeout_s;
    sym_op_timeout_s = c.timeout_s;
    st = sym_quiet_internal();
    sym_op_timeout_s = saved;
    if (st != SYM_OK)
        return st;
    return sym_coll_end(&c, barrier_algorithms[c.fp.algo](&c));
}
