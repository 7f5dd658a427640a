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
#include "coll/direct.h"

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

/* Every member copies straight out of the root's buffer (or the copy the
 * root staged once): one copy per member, no hop through another. */
sym_status_t sym_broadcast_direct(struct sym_coll *c, void *buf, size_t bytes, int root)
{
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    sym_status_t st;
    if (c->team->rank == root) {
        st = sym_dcall_offer(&d, 1, buf, bytes, 0, 0, (struct sym_dreaders){.all = true, .one = -1},
                             NULL, NULL);
    } else {
        struct sym_dview v;
        uint8_t *to = buf;
        st = sym_dcall_view(&d, 1, root, &v);
        if (st == SYM_OK)
            st = sym_direct_copy_all(&d, &v, 1, &to);
    }
    return st == SYM_OK ? sym_dcall_end(&d) : st;
}

static const sym_broadcast_fn broadcast_algorithms[] = {SYM_BROADCAST_ALGOS(SYM_ALGO_ENTRY)};

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
    st = sym_coll_select(&c, opts, bytes);
    if (st != SYM_OK)
        return st;
    sym_coll_start(&c);
    if (team->size == 1)
        return SYM_OK;
    sym_chan_use_cells(&c, bytes); /* every link carries the whole message */
    return sym_coll_end(&c, broadcast_algorithms[c.fp.algo](&c, buf, bytes, root));
}
