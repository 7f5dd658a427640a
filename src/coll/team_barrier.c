/* team_barrier.c - sym_barrier: dissemination (rd), naive, tree; and the
 * choice of the world barrier's algorithm. */
#include "coll/algorithms.h"
#include "coll/direct.h"

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
    return sym_direct_flush(c);
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

static const sym_barrier_fn barrier_algorithms[] = {SYM_BARRIER_ALGOS(SYM_ALGO_ENTRY)};

/* The world barrier runs in core (core/barrier.c: sym_malloc and
 * sym_finalize need it too) on the sync area, not on a team's channel; its
 * algorithms are listed here with the team barrier's and chosen by the same
 * SYMHEAP_BARRIER_ALGORITHM, once at init, for the whole job (every PE
 * must run the same one).  Automatic (also for a choice it lacks, tree):
 * core picks naive, the central counter, when the host is oversubscribed,
 * rd, dissemination, otherwise (sym_rt.central_barrier, decided at init
 * after this). */
static const sym_barrier_all_fn barrier_all_algorithms[] = {SYM_BARRIER_ALL_ALGOS(SYM_ALGO_ENTRY)};

void sym_barrier_all_choose(sym_algorithm_t env_choice)
{
    sym_barrier_all_use(env_choice == SYM_ALGO_AUTO ? NULL : barrier_all_algorithms[env_choice]);
    if (env_choice != SYM_ALGO_AUTO)
        sym_debug("world barrier: algorithm %s (environment)", sym_algorithm_name(env_choice));
}

sym_status_t sym_barrier_nolock(sym_team_t team, const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    struct sym_coll c;
    sym_status_t st =
        sym_coll_prepare(&c, "sym_barrier", team, SYM_COLL_BARRIER, 0, 0, 0, -1, opts);
    if (st != SYM_OK)
        return st;
    st = sym_coll_select(&c, opts, 0);
    if (st != SYM_OK)
        return st;
    /* The call's deadline bounds the quiet too: over manual progress, a
     * write to a member that makes no library calls completes only when
     * it does. */
    st = sym_quiet_dl(&c.dl);
    if (st != SYM_OK)
        return st;
    sym_coll_start(&c);
    sym_chan_use_cells(&c, 0);
    return sym_coll_end(&c, barrier_algorithms[c.fp.algo](&c));
}
