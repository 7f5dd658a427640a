/* broadcast.c - sym_broadcast: naive, ring (pipelined chain), tree.
 *
 * A sender returns once its last chunk is in its receivers' slots (the put
 * returned, so the buffer is the caller's again): a root in a loop of
 * broadcasts runs ahead of its receivers by the slots of each link.  Each
 * slot is waited for only when it is needed again (sym_chan_send's
 * credit, with the deadline and the error naming the call that left it
 * unconsumed).  A receiver compares every chunk's fingerprint with its own
 * call before it takes any of it, so a mismatch never mixes data; a sender
 * learns of it at a later call on the team, sym_team_sync or destroy. */
#include "coll/algorithms.h"

/* Number relative to the root, so every algorithm is written for root 0. */
static inline int vrank(const struct sym_coll *c, int root)
{
    return (c->team->rank - root + c->team->size) % c->team->size;
}

static inline int real(const struct sym_coll *c, int v, int root)
{
    return (v + root) % c->team->size;
}

sym_status_t sym_broadcast_naive(struct sym_coll *c, void *buf, size_t bytes, int root)
{
    const int n = c->team->size, me = c->team->rank;
    if (me != root)
        return sym_msg_recv(c, root, buf, bytes);
    const size_t nch = sym_msg_chunks(c, bytes);
    for (size_t i = 0; i < nch; i++)
        for (int r = 0; r < n; r++) {
            if (r == me)
                continue;
            sym_status_t st = sym_msg_send_chunk(c, r, buf, bytes, i);
            if (st != SYM_OK)
                return st;
        }
    return SYM_OK;
}

sym_status_t sym_broadcast_ring(struct sym_coll *c, void *buf, size_t bytes, int root)
{
    const int n = c->team->size, v = vrank(c, root);
    const int prev = real(c, v - 1 + n, root), next = real(c, v + 1, root);
    const size_t nch = sym_msg_chunks(c, bytes);
    for (size_t i = 0; i < nch; i++) {
        sym_status_t st = SYM_OK;
        if (v > 0)
            st = sym_msg_recv_chunk(c, prev, buf, bytes, i);
        if (st == SYM_OK && v < n - 1)
            st = sym_msg_send_chunk(c, next, buf, bytes, i);
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

sym_status_t sym_broadcast_tree(struct sym_coll *c, void *buf, size_t bytes, int root)
{
    const int n = c->team->size, v = vrank(c, root);
    int top = 1; /* lowest set bit of v: the subtree below it is ours */
    while (top < n && !(v & top))
        top <<= 1;
    const size_t nch = sym_msg_chunks(c, bytes);
    for (size_t i = 0; i < nch; i++) {
        sym_status_t st = SYM_OK;
        if (v > 0)
            st = sym_msg_recv_chunk(c, real(c, v - top, root), buf, bytes, i);
        for (int mask = top >> 1; st == SYM_OK && mask > 0; mask >>= 1)
            if (v + mask < n)
                st = sym_msg_send_chunk(c, real(c, v + mask, root), buf, bytes, i);
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

static const sym_broadcast_fn broadcast_algorithms[] = {SYM_BROADCAST_ALGOS(SYM_ALGO_ENTRY)};

/* Crowded, a root whose every message fits a cell sends them all and runs
 * ahead, while a tree's inner members must be scheduled to pass each call
 * on: naive was faster than the tree up to 256 bytes (8 PEs: 0.8 against
 * 1.8-2.9 us, median of 6 runs; 4 PEs: even to 1.5x). */
static sym_algorithm_t broadcast_auto(const struct sym_team *team, size_t bytes)
{
    if (team->size <= 2 || (sym_coll_crowded() && bytes <= team->chan.cell_bytes))
        return SYM_ALGO_NAIVE;
    return bytes <= 65536 ? SYM_ALGO_TREE : SYM_ALGO_RING;
}

sym_status_t sym_broadcast_nolock(sym_team_t team, void *buf, size_t count, sym_datatype_t dt,
                                  int root, const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    if (count && !buf)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_broadcast: NULL buffer for %zu elements", count);
    struct sym_coll c;
    sym_status_t st =
        sym_coll_prepare(&c, "sym_broadcast", team, SYM_COLL_BROADCAST, dt, 0, count, root, opts);
    if (st != SYM_OK)
        return st;
    const size_t bytes = count * sym_datatype_size(dt);
    st = sym_coll_select(&c, opts, broadcast_auto(team, bytes));
    if (st != SYM_OK)
        return st;
    sym_coll_start(&c);
    if (team->size == 1)
        return SYM_OK;
    sym_chan_use_cells(&c, bytes); /* every link carries the whole message */
    return sym_coll_end(&c, broadcast_algorithms[c.fp.algo](&c, buf, bytes, root));
}
