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
#include <string.h>

#include "core/barrier.h"
#include "core/internal.h"

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

/* A round's line (and the central barrier's release line): the epoch is
 * the flag, the fingerprints its writer has gathered follow it.  The epoch
 * is set last (put-with-signal), so a reader that sees it sees them. */
struct sync_line {
    uint64_t epoch;
    struct sym_sync_agg agg;
};
_Static_assert(sizeof(struct sync_line) <= SYM_LINE, "a barrier line is one cache line");

/* A PE may be one barrier ahead of a line's reader (it finished barrier e
 * before the reader consumed its round), never two (barrier e + 1 cannot
 * end before the reader entered it): even and odd epochs use their own
 * lines, so a line is never overwritten before it was read. */
static uint64_t round_off(unsigned round, uint64_t epoch)
{
    return SYM_SYNC_LINE_OFF((epoch & 1 ? SYM_SYNC_BARRIER_ODD_LINE : SYM_SYNC_BARRIER_LINE) +
                             round);
}

static uint64_t release_off(uint64_t epoch)
{
    return SYM_SYNC_LINE_OFF(SYM_SYNC_RELEASE_LINE + (epoch & 1));
}

static sym_status_t line_send(int pe, uint64_t off, uint64_t epoch, const struct sym_sync_agg *agg,
                              struct sym_deadline *dl)
{
    return sym_put_signal_off_dl(pe, off + offsetof(struct sync_line, agg), agg, sizeof(*agg), off,
                                 epoch, SYM_SIGNAL_SET, dl);
}

static void line_take(uint64_t off, struct sym_sync_agg *agg)
{
    struct sym_sync_agg in;
    memcpy(&in, sym_rt.base + off + offsetof(struct sync_line, agg), sizeof(in));
    sym_sync_agg_merge(agg, &in);
}

sym_status_t sym_barrier_all_rd(struct sym_deadline *dl, struct sym_sync_agg *agg)
{
    const int n = sym_rt.npes, me = sym_rt.me;
    const uint64_t epoch = ++sym_rt.barrier_epoch;
    __atomic_store_n(&((struct sym_heap_ctrl *)sym_rt.base)->barrier_entered, epoch,
                     __ATOMIC_RELEASE);
    unsigned round = 0;
    for (int dist = 1; dist < n; dist <<= 1, round++) {
        uint64_t off = round_off(round, epoch);
        int to = (me + dist) % n, from = (me - dist + n) % n;
        sym_status_t st = line_send(to, off, epoch, agg, dl);
        if (st != SYM_OK)
            return st;
        if (sym_flag_load(off) < epoch) {
            struct barrier_wait w = {{off, epoch, from, "barrier"}, epoch, round};
            struct sym_waiter waiter = {barrier_ready, barrier_describe, &w, NULL};
            if ((st = sym_wait_for(dl, &waiter)) != SYM_OK)
                return st;
        }
        line_take(off, agg);
    }
    return SYM_OK;
}

/* The last arrival of the central barrier: every PE published its
 * fingerprint before it arrived, so gather them all. */
static sym_status_t gather_prints(uint64_t epoch, struct sym_sync_agg *agg, struct sym_deadline *dl)
{
    const uint64_t off = offsetof(struct sym_heap_ctrl, barrier_print[epoch & 1]);
    for (int pe = 0; pe < sym_rt.npes; pe++) {
        struct sym_sync_agg in;
        sym_status_t st = sym_get_off_dl(pe, &in.lo, off, sizeof(in.lo), dl);
        if (st != SYM_OK)
            return st;
        /* A PE that ended before this PE first reached its heap left no
         * fingerprint to read: if it was lost the barrier fails with that
         * loss, not with a mismatch against an "unknown call"; one that
         * finalized made an unknown call here indeed. */
        if (sym_pe_stand_in(pe) &&
            (st = sym_job_check(dl->op, "the fingerprints of the barrier's PEs")) != SYM_OK)
            return st;
        in.hi = in.lo;
        sym_sync_agg_merge(agg, &in);
    }
    return SYM_OK;
}

/* Oversubscribed hosts (more PEs than cores): every PE adds one to an
 * arrival counter on PE 0 and waits for its own release line, which the
 * last arrival sets on everyone.  Dissemination needs a specific partner
 * to be scheduled in every round; here only the last arrival has to run,
 * which is what a starved core can give (4 PEs on 2 cores: about half the
 * time of dissemination). */
sym_status_t sym_barrier_all_naive(struct sym_deadline *dl, struct sym_sync_agg *agg)
{
    const int n = sym_rt.npes;
    const uint64_t epoch = ++sym_rt.barrier_epoch;
    __atomic_store_n(&((struct sym_heap_ctrl *)sym_rt.base)->barrier_entered, epoch,
                     __ATOMIC_RELEASE);
    const uint64_t arrivals = SYM_SYNC_LINE_OFF(SYM_SYNC_ARRIVALS_LINE);
    const uint64_t release = release_off(epoch);
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
        st = gather_prints(epoch, agg, dl);
        for (int pe = 0; pe < n && st == SYM_OK; pe++)
            st = line_send(pe, release, epoch, agg, dl);
        return st;
    }
    if (sym_flag_load(release) < epoch) {
        struct barrier_wait w = {{release, epoch, 0, "barrier"}, epoch, 0};
        struct sym_waiter waiter = {barrier_ready, barrier_describe, &w, NULL};
        if ((st = sym_wait_for(dl, &waiter)) != SYM_OK)
            return st;
    }
    line_take(release, agg);
    return SYM_OK;
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
 * error instead of letting a stale count or flag release someone.  Before
 * it enters, a PE publishes its fingerprint in its control block (the
 * central barrier gathers them there; a mismatch names PEs from them). */
static sym_status_t barrier(struct sym_deadline *dl, const struct sym_sync_print *mine)
{
    if (sym_rt.barrier_broken)
        return sym_error(sym_rt.barrier_broken, "%s: an earlier barrier failed (%s)", dl->op,
                         sym_rt.barrier_broken_msg);
    const uint64_t epoch = sym_rt.barrier_epoch + 1;
    struct sym_heap_ctrl *hc = (void *)sym_rt.base;
    memcpy(hc->barrier_print[epoch & 1], mine->w, sizeof(mine->w));
    struct sym_sync_agg agg = {*mine, *mine};
    sym_status_t st;
    if (chosen)
        st = chosen(dl, &agg);
    else if (sym_rt.central_barrier)
        st = sym_barrier_all_naive(dl, &agg);
    else
        st = sym_barrier_all_rd(dl, &agg);
    if (st != SYM_OK) {
        sym_rt.barrier_broken = st;
        snprintf(sym_rt.barrier_broken_msg, sizeof(sym_rt.barrier_broken_msg), "%s",
                 sym_last_error());
        return st;
    }
    /* Every PE holds the same pair, so every PE decides alike. */
    if (sym_sync_print_cmp(&agg.lo, &agg.hi) != 0)
        return sym_sync_mismatch(dl->op, epoch, mine, &agg);
    return SYM_OK;
}

sym_status_t sym_barrier_agree(const char *op, const struct sym_sync_print *mine)
{
    struct sym_deadline dl = sym_deadline_default(op);
    sym_status_t st = sym_quiet_dl(&dl);
    if (st != SYM_OK)
        return st;
    return barrier(&dl, mine);
}

SYM_API sym_status_t sym_barrier_all(void)
{
    sym_fault_point(SYM_FAULT_OP_BARRIER);
    sym_status_t st = sym_check_init("sym_barrier_all");
    if (st != SYM_OK)
        return st;
    const struct sym_sync_print mine = sym_sync_print_make(SYM_SYNC_BARRIER, false, 0, 0, 0);
    return sym_barrier_agree("sym_barrier_all", &mine);
}

SYM_API sym_status_t sym_sync_all(void)
{
    sym_fault_point(SYM_FAULT_OP_BARRIER);
    sym_status_t st = sym_check_init("sym_sync_all");
    if (st != SYM_OK)
        return st;
    /* On shm every store is visible when issued; over libfabric completing
     * them first keeps sync_all as strong as it is on one host. */
    const struct sym_sync_print mine = sym_sync_print_make(SYM_SYNC_BARRIER, false, 0, 0, 0);
    return sym_barrier_agree("sym_sync_all", &mine);
}
