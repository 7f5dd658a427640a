/*
 * barrier.c - flags in the sync area and the dissemination barrier.
 *
 * Flags are 64-bit epoch counters that only grow: a waiter waits for
 * flag >= epoch and nobody ever resets one, so back-to-back barriers cannot
 * race with a reset.  In round k of barrier e, PE i stores e into round k's
 * flag on PE i + 2^k and waits for its own round-k flag to reach e; each
 * flag has exactly one writer per round, so a store (not an add) suffices.
 */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "core/barrier.h"
#include "core/internal.h"
#include "shm/shm_atomic.h"

sym_status_t sym_flag_set_dl(int pe, uint64_t off, uint64_t value, struct sym_deadline *dl)
{
    uint64_t *p = sym_direct(pe, off);
    if (p) {
        __atomic_store_n(p, value, __ATOMIC_RELEASE);
        return SYM_OK;
    }
    struct sym_transport *tp = sym_rt.peer_tp[pe];
    return tp->ops->put_signal(tp, pe, off, NULL, 0, off, value, SYM_SIGNAL_SET, dl);
}

struct flag_wait {
    uint64_t off;
    uint64_t value;
    int from_pe;
    const char *what;
};

static bool flag_ready(void *arg)
{
    struct flag_wait *w = arg;
    return sym_flag_load(w->off) >= w->value;
}

struct barrier_wait {
    struct flag_wait flag;
    uint64_t epoch;
    unsigned round;
};

static bool barrier_ready(void *arg)
{
    return flag_ready(&((struct barrier_wait *)arg)->flag);
}

/* Names the PE this round waits for and every PE that has not entered the
 * barrier at all: with dissemination most PEs wait on a PE that is itself
 * stuck, and the culprit is the one that never arrived. */
static void barrier_describe(void *arg, char *buf, size_t len)
{
    struct barrier_wait *w = arg;
    size_t used = (size_t)snprintf(buf, len, "PE %d to reach barrier #%" PRIu64 " (round %u)",
                                   w->flag.from_pe, w->epoch, w->round);
    const char *sep = "; PEs that never entered it:";
    for (int pe = 0; pe < sym_rt.npes && used < len; pe++) {
        uint64_t entered = 0;
        const uint64_t off = offsetof(struct sym_heap_ctrl, barrier_entered);
        const uint64_t *p = sym_direct(pe, off);
        /* its own deadline: the barrier's has passed when this is asked */
        struct sym_deadline dl = sym_deadline_default("sym_get");
        if (p)
            entered = __atomic_load_n(p, __ATOMIC_ACQUIRE);
        else if (sym_rt.peer_tp[pe]->ops->get(sym_rt.peer_tp[pe], pe, &entered, off,
                                              sizeof(entered), &dl) != SYM_OK)
            continue;
        if (entered < w->epoch) {
            used += (size_t)snprintf(buf + used, len - used, "%s %d", sep, pe);
            sep = ",";
        }
    }
}

sym_status_t sym_barrier_all_rd(struct sym_deadline *dl)
{
    const int n = sym_rt.npes, me = sym_rt.me;
    const uint64_t epoch = ++sym_rt.barrier_epoch;
    __atomic_store_n(&((struct sym_heap_ctrl *)sym_rt.base)->barrier_entered, epoch,
                     __ATOMIC_RELEASE);
    unsigned round = 0;
    for (int dist = 1; dist < n; dist <<= 1, round++) {
        uint64_t off = SYM_SYNC_LINE_OFF(SYM_SYNC_BARRIER_LINE + round);
        int to = (me + dist) % n, from = (me - dist + n) % n;
        sym_status_t st = sym_flag_set_dl(to, off, epoch, dl);
        if (st != SYM_OK)
            return st;
        if (sym_flag_load(off) >= epoch)
            continue;
        struct barrier_wait w = {{off, epoch, from, "barrier"}, epoch, round};
        struct sym_waiter waiter = {barrier_ready, barrier_describe, &w, NULL};
        if ((st = sym_wait_for(dl, &waiter)) != SYM_OK)
            return st;
    }
    return SYM_OK;
}

/* Oversubscribed hosts (more PEs than cores): every PE adds one to an
 * arrival counter on PE 0 and waits for its own release flag, which the
 * last arrival sets on everyone.  Dissemination needs a specific partner
 * to be scheduled in every round; here only the last arrival has to run,
 * which is what a starved core can give (4 PEs on 2 cores: about half the
 * time of dissemination). */
sym_status_t sym_barrier_all_naive(struct sym_deadline *dl)
{
    const int n = sym_rt.npes;
    const uint64_t epoch = ++sym_rt.barrier_epoch;
    __atomic_store_n(&((struct sym_heap_ctrl *)sym_rt.base)->barrier_entered, epoch,
                     __ATOMIC_RELEASE);
    const uint64_t arrivals = SYM_SYNC_LINE_OFF(SYM_SYNC_ARRIVALS_LINE);
    const uint64_t release = SYM_SYNC_LINE_OFF(SYM_SYNC_RELEASE_LINE);
    uint64_t before = 0;
    struct sym_transport *tp = sym_amo_tp(0);
    uint64_t *p = sym_direct_amo(0, arrivals);
    sym_status_t st = SYM_OK;
    if (p)
        before = __atomic_fetch_add(p, 1, __ATOMIC_ACQ_REL);
    else
        st = tp->ops->atomic(tp, 0, arrivals, SYM_AMO_FETCH_ADD, 8, 1, 0, &before, dl);
    if (st != SYM_OK)
        return st;
    if (before + 1 == epoch * (uint64_t)n) { /* last to arrive: release all */
        for (int pe = 0; pe < n && st == SYM_OK; pe++)
            st = sym_flag_set_dl(pe, release, epoch, dl);
        return st;
    }
    if (sym_flag_load(release) >= epoch)
        return SYM_OK;
    struct barrier_wait w = {{release, epoch, 0, "barrier"}, epoch, 0};
    struct sym_waiter waiter = {barrier_ready, barrier_describe, &w, NULL};
    return sym_wait_for(dl, &waiter);
}

/* Chosen at init by the coll layer (SYMHEAP_BARRIER_ALGORITHM); NULL:
 * automatic.  Only the barrier itself reads it, always on one thread at a
 * time like the epoch it goes with. */
static sym_barrier_all_fn chosen;

void sym_barrier_all_use(sym_barrier_all_fn algo)
{
    chosen = algo;
}

/* A failed barrier leaves the epoch flags and the arrival count out of step
 * (a PE that gave up may already count itself into the next barrier), so
 * after a failure every later world barrier fails at once with the first
 * error instead of letting a stale count or flag release someone. */
static sym_status_t barrier(struct sym_deadline *dl)
{
    if (sym_rt.barrier_broken)
        return sym_error(sym_rt.barrier_broken, "%s: an earlier barrier failed (%s)", dl->op,
                         sym_rt.barrier_broken_msg);
    sym_status_t st;
    if (chosen)
        st = chosen(dl);
    else
        st = sym_rt.central_barrier ? sym_barrier_all_naive(dl) : sym_barrier_all_rd(dl);
    if (st != SYM_OK) {
        sym_rt.barrier_broken = st;
        snprintf(sym_rt.barrier_broken_msg, sizeof(sym_rt.barrier_broken_msg), "%s",
                 sym_last_error());
    }
    return st;
}

sym_status_t sym_barrier_internal(const char *op)
{
    struct sym_deadline dl = sym_deadline_default(op);
    sym_status_t st = sym_quiet_dl(&dl);
    if (st != SYM_OK)
        return st;
    return barrier(&dl);
}

SYM_API sym_status_t sym_barrier_all(void)
{
    sym_fault_point(SYM_FAULT_OP_BARRIER);
    sym_status_t st = sym_check_init("sym_barrier_all");
    if (st != SYM_OK)
        return st;
    return sym_barrier_internal("sym_barrier_all");
}

SYM_API sym_status_t sym_sync_all(void)
{
    sym_fault_point(SYM_FAULT_OP_BARRIER);
    sym_status_t st = sym_check_init("sym_sync_all");
    if (st != SYM_OK)
        return st;
    /* On shm every store is visible when issued; over libfabric completing
     * them first keeps sync_all as strong as it is on one host. */
    struct sym_deadline dl = sym_deadline_default("sym_sync_all");
    if ((st = sym_quiet_dl(&dl)) != SYM_OK)
        return st;
    return barrier(&dl);
}
