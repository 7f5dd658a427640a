/*
 * ofi_lock.c - the ofi transport's ops table for the runtime: every
 * operation under one recursive lock.
 *
 * SYM_THREAD_MULTIPLE lets several threads of a PE call put/get/atomics,
 * quiet and waits at once, and the transport keeps mutable state (the
 * context ring, issue and completion counts, the peers with writes in
 * flight).  One lock is the simplest correct answer: an uncontended lock
 * costs tens of nanoseconds against microseconds per network operation.
 * Recursive, because an operation that has to wait (a full context ring,
 * quiet) runs the library's wait loop, which drives progress through here.
 * Each operation counts itself in sym_transport_depth, so that such a
 * nested wait neither runs nor yields to non-blocking collectives (see
 * internal.h).  The sleep of an idle waiter outside any operation blocks
 * without the lock; a nested one keeps it (its operation is unfinished).
 */
#include <poll.h>
#include <sched.h>
#include <pthread.h>
#include <time.h>

#include "internal.h"
#include "ofi_private.h"

static pthread_mutex_t ofi_lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP;

#define LOCKED(expr)                                                                         \
    do {                                                                                     \
        pthread_mutex_lock(&ofi_lock);                                                       \
        sym_transport_depth++;                                                               \
        sym_status_t st_ = (expr);                                                           \
        sym_transport_depth--;                                                               \
        pthread_mutex_unlock(&ofi_lock);                                                     \
        return st_;                                                                          \
    } while (0)

static sym_status_t put(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                        size_t n)
{
    LOCKED(ofi_raw_ops.put(tp, pe, off, src, n));
}

static sym_status_t get(struct sym_transport *tp, int pe, void *dst, uint64_t off, size_t n)
{
    LOCKED(ofi_raw_ops.get(tp, pe, dst, off, n));
}

static sym_status_t put_nbi(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                            size_t n)
{
    LOCKED(ofi_raw_ops.put_nbi(tp, pe, off, src, n));
}

static sym_status_t get_nbi(struct sym_transport *tp, int pe, void *dst, uint64_t off,
                            size_t n)
{
    LOCKED(ofi_raw_ops.get_nbi(tp, pe, dst, off, n));
}

static sym_status_t put_signal(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                               size_t n, uint64_t sig_off, uint64_t signal,
                               sym_signal_op_t op)
{
    LOCKED(ofi_raw_ops.put_signal(tp, pe, off, src, n, sig_off, signal, op));
}

static sym_status_t atomic(struct sym_transport *tp, int pe, uint64_t off, sym_amo_op_t op,
                           size_t width, uint64_t operand, uint64_t compare,
                           uint64_t *fetched_p)
{
    LOCKED(ofi_raw_ops.atomic(tp, pe, off, op, width, operand, compare, fetched_p));
}

static sym_status_t quiet(struct sym_transport *tp)
{
    LOCKED(ofi_raw_ops.quiet(tp));
}

static sym_status_t fence(struct sym_transport *tp)
{
    LOCKED(ofi_raw_ops.fence(tp));
}

static sym_status_t progress(struct sym_transport *tp)
{
    LOCKED(ofi_raw_ops.progress(tp));
}

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Until when this thread's waits poll instead of blocking: set when the
 * wait fd woke it, i.e. a peer's operation arrived.  With manual progress
 * every incoming operation (a put to serve, the acknowledgement of our own
 * write) needs this process to run; blocking again at once made each of
 * them pay a wake-up from ppoll, tens of microseconds on this host (an
 * 8-byte put + quiet over tcp;ofi_rxm took 60-80 us against 22 us with a
 * polling target).  Operations come in bursts, so for SYMHEAP_WAIT_YIELD_US
 * after a wake-up the waiter yields and drives progress, as the yield phase
 * of sym_wait_for does before a first sleep; an idle waiter still sleeps. */
static _Thread_local uint64_t hot_until_ns;

/* Block on the provider's wait fd (when fi_trywait allows) without the
 * lock, then make progress under it. */
static sym_status_t sleep_(struct sym_transport *tp, long ns)
{
    struct ofi_transport *t = ofi_of(tp);
    struct timespec ts = { 0, ns };
    bool can_block = false;
    if (t->wait_fd >= 0 && hot_until_ns && mono_ns() < hot_until_ns) {
        sched_yield();
        LOCKED(ofi_raw_ops.progress(tp));
    }
    if (t->wait_fd >= 0 && !t->abandoned) {
        struct fid *fids[1] = { &t->cq->fid };
        pthread_mutex_lock(&ofi_lock);
        can_block = fi_trywait(t->fabric, fids, 1) == FI_SUCCESS;
        pthread_mutex_unlock(&ofi_lock);
    }
    if (can_block) {
        struct pollfd pfd = { .fd = t->wait_fd, .events = POLLIN };
        if (ppoll(&pfd, 1, &ts, NULL) > 0)
            hot_until_ns = mono_ns() + (uint64_t)sym_rt.cfg.wait_yield_us * 1000u;
    } else if (t->wait_fd >= 0 && !t->abandoned) {
        /* fi_trywait refused: there are events to progress first (below).
         * Give the core away meanwhile: on an oversubscribed host the peer
         * being waited for may need it, and a provider that kept refusing
         * would otherwise make the wait a busy loop. */
        sched_yield();
    } else {
        nanosleep(&ts, NULL);
    }
    LOCKED(ofi_raw_ops.progress(tp));
}

static void *ptr(struct sym_transport *tp, int pe, uint64_t off)
{
    return ofi_raw_ops.ptr(tp, pe, off); /* no state */
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
    .ptr = ptr,
    .progress = progress,
    .sleep = sleep_,
    .fini = ofi_fini, /* the last call: no other thread may be inside */
};
