/*
 * ofi_lock.c - the ofi transport's ops table: every operation under the
 * transport's lock when the PE runs at SYM_THREAD_MULTIPLE.
 *
 * SYM_THREAD_MULTIPLE lets several threads of a PE call put/get/atomics,
 * quiet and waits at once, and the transport keeps mutable state (the
 * context ring, issue and completion counts, the peers with writes in
 * flight).  One lock is the simplest correct answer there: an uncontended
 * lock costs tens of nanoseconds against microseconds per network
 * operation.  Recursive, because an operation that has to wait (a full
 * context ring, quiet) runs the library's wait loop, which drives progress
 * through here.  Below SYM_THREAD_MULTIPLE no two threads are inside at
 * once, so no lock is taken (t->locked, chosen at creation as libfabric's
 * ofi_genlock chooses its kind).  The sleep of an idle waiter outside any
 * operation blocks without the lock; a nested one keeps it (its operation
 * is unfinished).  A wait inside an operation counts itself in
 * sym_transport_depth (ofi_drain).
 */
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <time.h>

#include "ofi_private.h"

static inline void lock(struct ofi_transport *t)
{
    if (t->locked)
        pthread_mutex_lock(&t->lock);
}

static inline void unlock(struct ofi_transport *t)
{
    if (t->locked)
        pthread_mutex_unlock(&t->lock);
}

#define LOCKED(tp, expr)                                                                           \
    do {                                                                                           \
        struct ofi_transport *t_ = ofi_of(tp);                                                     \
        lock(t_);                                                                                  \
        sym_status_t st_ = (expr);                                                                 \
        unlock(t_);                                                                                \
        return st_;                                                                                \
    } while (0)

static sym_status_t put(struct sym_transport *tp, int pe, uint64_t off, const void *src, size_t n,
                        struct sym_deadline *dl)
{
    LOCKED(tp, ofi_put(tp, pe, off, src, n, dl));
}

static sym_status_t get(struct sym_transport *tp, int pe, void *dst, uint64_t off, size_t n,
                        struct sym_deadline *dl)
{
    LOCKED(tp, ofi_get(tp, pe, dst, off, n, dl));
}

static sym_status_t put_nbi(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                            size_t n, struct sym_deadline *dl)
{
    LOCKED(tp, ofi_put_nbi(tp, pe, off, src, n, dl));
}

static sym_status_t get_nbi(struct sym_transport *tp, int pe, void *dst, uint64_t off, size_t n,
                            struct sym_deadline *dl)
{
    LOCKED(tp, ofi_get_nbi(tp, pe, dst, off, n, dl));
}

static sym_status_t put_signal(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                               size_t n, uint64_t sig_off, uint64_t signal, sym_signal_op_t op,
                               struct sym_deadline *dl)
{
    LOCKED(tp, ofi_put_signal(tp, pe, off, src, n, sig_off, signal, op, dl));
}

static sym_status_t atomic(struct sym_transport *tp, int pe, uint64_t off, sym_amo_op_t op,
                           size_t width, uint64_t operand, uint64_t compare, uint64_t *fetched_p,
                           struct sym_deadline *dl)
{
    LOCKED(tp, ofi_atomic(tp, pe, off, op, width, operand, compare, fetched_p, dl));
}

static sym_status_t quiet(struct sym_transport *tp, struct sym_deadline *dl)
{
    LOCKED(tp, ofi_quiet(tp, dl));
}

static sym_status_t fence(struct sym_transport *tp, struct sym_deadline *dl)
{
    LOCKED(tp, ofi_fence(tp, dl));
}

static sym_status_t progress(struct sym_transport *tp)
{
    LOCKED(tp, ofi_progress(tp));
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Until when this thread's waits poll instead of blocking: set when a
 * peer's operation arrived (the wait fd woke us, or the count of
 * operations on this PE rose).  With manual progress every incoming
 * operation (a put to serve, the acknowledgement of our own write) needs
 * this process to run; blocking again at once made each of them pay a
 * wake-up from ppoll, tens of microseconds on this host (an 8-byte put +
 * quiet over tcp;ofi_rxm took 60-80 us against 22 us with a polling
 * target).  Operations come in bursts, so for SYMHEAP_WAIT_YIELD_US after
 * one the waiter yields and drives progress, as the yield phase of
 * sym_wait_for does before a first sleep; an idle waiter still sleeps. */
static _Thread_local uint64_t hot_until_ns;

/* Under the lock: did peers' operations on this PE complete since the last
 * look?  Always false without a counter of them (no FI_RMA_EVENT). */
static bool served_since(struct ofi_transport *t)
{
    if (!t->rcntr || t->abandoned)
        return false;
    uint64_t v = fi_cntr_read(t->rcntr);
    if (v == t->rcntr_seen)
        return false;
    t->rcntr_seen = v;
    return true;
}

/* Silent sleeps that served something, before the fd counts as deaf: one
 * could be an operation that arrived between the timeout and the progress
 * call after it; a deaf fd gives one per operation that finds the waiter
 * asleep. */
#define OFI_DEAF_AFTER 3

/* Block on the provider's wait fd (when fi_trywait allows) without the
 * lock, else sleep, then make progress under it.
 *
 * With manual data progress a peer's get or fetching atomic on this PE is
 * served only inside this process's libfabric calls, so how long a waiter
 * sleeps is how late it serves them.  The wait fd, where there is one,
 * fires for what reaches the provider through it (tcp;ofi_rxm: a socket's
 * data, peers' operations included): sleeping on it costs nothing.
 * Without one (libfabric's shm provider offers no FI_WAIT_FD CQ), or with
 * one that stays silent for peers' operations, a waiter that slept up to
 * sym_wait_for's 1 ms served each of them that late: ~1 ms per get or
 * fetch-add against 2-4 us raw.  So such sleeps are capped at
 * SYMHEAP_WAIT_POLL_US: an idle waiter serves a peer within that, and
 * with a counter of the operations made on this PE (FI_RMA_EVENT) serving
 * one makes the waiter hot (above), so the rest of a burst is served at
 * polling speed.  That counter also tells a silent fd from a working one:
 * a sleep that ended by its timeout and then served an operation was not
 * woken for it; once that happened OFI_DEAF_AFTER times more often than
 * the fd woke us for one, the fd's sleeps are capped too. */
static sym_status_t sleep_(struct sym_transport *tp, long ns)
{
    struct ofi_transport *t = ofi_of(tp);
    const uint64_t hot_ns = (uint64_t)t->wait_yield_us * 1000u;
    const bool has_fd = t->wait_fd >= 0 && !t->abandoned;
    const bool serves = t->manual_progress && !t->abandoned; /* peers need our progress */
    if ((has_fd || serves) && hot_until_ns && mono_ns() < hot_until_ns) {
        sched_yield();
        /* Something arrived for the provider (the fd is readable before this
         * progress pass serves it): operations are still coming, stay hot.
         * Without it a provider without FI_RMA_EVENT (tcp;ofi_rxm) left the
         * hot window SYMHEAP_WAIT_YIELD_US after the fd last woke the
         * waiter, however busy, and the next operation paid a wake-up from
         * ppoll (120-260 us measured under SCHED_FIFO). */
        struct pollfd pfd = {.fd = t->wait_fd, .events = POLLIN};
        const bool pending = has_fd && poll(&pfd, 1, 0) > 0;
        lock(t);
        sym_status_t st = ofi_progress(tp);
        if (served_since(t) || pending)
            hot_until_ns = mono_ns() + hot_ns;
        unlock(t);
        return st;
    }
    bool can_block = false;
    if (has_fd || serves) {
        lock(t);
        (void)served_since(t); /* what was served before the sleep does not count */
        if (has_fd) {
            struct fid *fids[1] = {&t->cq->fid};
            can_block = fi_trywait(t->fabric, fids, 1) == FI_SUCCESS;
        }
        unlock(t);
    }
    const long cap_ns = t->wait_poll_us >= 1000000u /* a second: never reached */
                            ? 1000000000L
                            : (long)t->wait_poll_us * 1000;
    if (serves && (!has_fd || t->fd_deaf) && ns > cap_ns)
        ns = cap_ns;
    struct timespec ts = {0, ns};
    int woke = -1; /* 1: the fd ended the sleep, 0: its timeout did */
    if (can_block) {
        struct pollfd pfd = {.fd = t->wait_fd, .events = POLLIN};
        woke = ppoll(&pfd, 1, &ts, NULL) > 0;
        if (woke)
            hot_until_ns = mono_ns() + hot_ns;
    } else if (has_fd) {
        /* fi_trywait refused: there are events to progress first (below).
         * Give the core away meanwhile: on an oversubscribed host the peer
         * being waited for may need it, and a provider that kept refusing
         * would otherwise make the wait a busy loop. */
        sched_yield();
    } else {
        nanosleep(&ts, NULL);
    }
    lock(t);
    sym_status_t st = ofi_progress(tp);
    if ((woke >= 0 || !has_fd) && served_since(t)) {
        hot_until_ns = mono_ns() + hot_ns;
        if (woke == 1)
            t->sleeps_loud_served++;
        else if (woke == 0 && !t->fd_deaf &&
                 ++t->sleeps_silent_served >= OFI_DEAF_AFTER * (t->sleeps_loud_served + 1)) {
            t->fd_deaf = true;
            sym_debug("ofi: %s's wait fd did not wake this PE for %llu operations peers made "
                      "on it (woke it for %llu): sleeps are capped at %lu us from now on",
                      t->prov_name, (unsigned long long)t->sleeps_silent_served,
                      (unsigned long long)t->sleeps_loud_served, t->wait_poll_us);
        }
    }
    unlock(t);
    return st;
}

const struct sym_transport_ops ofi_ops = {
    .size = sizeof(struct sym_transport_ops),
    .name = "ofi",
    .put = put,
    .get = get,
    .put_nbi = put_nbi,
    .get_nbi = get_nbi,
    .put_signal = put_signal,
    .atomic = atomic,
    .quiet = quiet,
    .fence = fence,
    .ptr = NULL, /* nothing is mapped */
    .progress = progress,
    .sleep = sleep_,
    .fini = ofi_fini, /* the last call: no other thread may be inside */
};
