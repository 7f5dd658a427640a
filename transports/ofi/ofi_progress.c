/* ofi_progress.c - completion: progress, error entries, counters, draining,
 * and retrying a busy provider. */
#include <poll.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "ofi_private.h"

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

sym_status_t ofi_call_failed(struct ofi_transport *t, const char *op, int pe, const char *call,
                             ssize_t rc)
{
    char target[24] = "";
    if (pe >= 0)
        snprintf(target, sizeof(target), " to PE %d", pe);
    return sym_error(SYM_ERR_TRANSPORT, "%s: libfabric %s%s failed on provider %s: %s", op, call,
                     target, t->prov_name[0] ? t->prov_name : "(none yet)",
                     fi_strerror((int)-rc));
}

/* A peer that dies under an operation fails it at once (its end of the
 * connection is gone), before its launcher has reaped it and the job
 * marks it dead.  So before reporting a failed operation, give the job's
 * health up to OFI_LOSS_GRACE_NS to name a lost PE: the caller can act on
 * "PE 3 was killed", not on a provider's "Input/output error".  A failure
 * with every peer alive takes that much longer to report, once. */
#define OFI_LOSS_GRACE_NS 1000000000u

static sym_status_t failure(struct ofi_transport *t, const char *op)
{
    char what[sizeof(t->failed_msg) + 64];
    snprintf(what, sizeof(what), "a libfabric operation, which failed: %s", t->failed_msg);
    if (!t->failed_grace_end) /* the grace is given once: later calls report at once */
        t->failed_grace_end = now_ns() + OFI_LOSS_GRACE_NS;
    uint64_t end = t->failed_grace_end;
    for (;;) {
        sym_status_t st = sym_job_check(op, what);
        if (st != SYM_OK)
            return st;
        if (now_ns() >= end)
            break;
        struct timespec nap = { 0, 2000000 };
        nanosleep(&nap, NULL);
    }
    return sym_error(t->failed, "%s: %s", op, t->failed_msg);
}

/* Turn the CQ's error entries into one sticky transport error. */
static void read_errors(struct ofi_transport *t)
{
    for (;;) {
        struct fi_cq_err_entry err;
        memset(&err, 0, sizeof(err));
        ssize_t rc = fi_cq_readerr(t->cq, &err, 0);
        if (rc != 1)
            return;
        t->errors_seen++;
        if (t->failed != SYM_OK)
            continue;
        char text[160];
        const char *ptext = fi_cq_strerror(t->cq, err.prov_errno, err.err_data, text,
                                           sizeof(text));
        const struct ofi_ctx *c = err.op_context;
        bool ours = c >= t->ctx && c < t->ctx + OFI_CTX_RING;
        t->failed = SYM_ERR_TRANSPORT;
        /* an entry whose context is not one of ours (a provider-internal
         * operation) names no target */
        char target[24] = "";
        if (ours && c->pe >= 0)
            snprintf(target, sizeof(target), " to PE %d", c->pe);
        snprintf(t->failed_msg, sizeof(t->failed_msg), "libfabric %s%s failed on provider %s: "
                 "%s (%s)", ours && c->what ? c->what : "operation", target, t->prov_name,
                 fi_strerror(err.err), ptext ? ptext : "no provider detail");
    }
}

sym_status_t ofi_progress(struct sym_transport *tp)
{
    struct ofi_transport *t = ofi_of(tp);
    if (__builtin_expect(t->abandoned, 0))
        return SYM_OK;
    struct fi_cq_entry entries[8];
    ssize_t rc = fi_cq_read(t->cq, entries, 8);
    if (rc == -FI_EAVAIL)
        read_errors(t);
    return SYM_OK;
}

/* Counted completions, successes and failures alike. */
static uint64_t completed(struct ofi_transport *t)
{
    uint64_t err = fi_cntr_readerr(t->cntr);
    if (err > t->errors_seen)
        read_errors(t);
    return fi_cntr_read(t->cntr) + err;
}

struct drain_wait {
    struct ofi_transport *t;
    uint64_t target;
    uint64_t done;
    uint64_t err;   /* the error counter when last read */
    unsigned polls;
};

/* Polled in a loop while the operation is in flight, and every libfabric
 * call here costs a progress pass of the provider (libfabric's util
 * counters progress their endpoints when read; over tcp;ofi_rxm that is an
 * epoll_wait system call): three calls per poll (CQ, error counter, success
 * counter) made a put + quiet over tcp;ofi_rxm 1.2-1.4x raw libfabric's
 * fi_write + counter wait.  So the success counter alone decides the usual
 * case (a failed operation never raises it: reaching the target means all
 * succeeded), and the error counter is read on every 8th poll only: a
 * failure is noticed a few polls later.  No CQ read here: the CQ holds
 * error entries only (FI_SELECTIVE_COMPLETION), which read_errors takes,
 * and the wait loop around this calls ofi_progress anyway. */
static bool drain_ready(void *arg)
{
    struct drain_wait *w = arg;
    struct ofi_transport *t = w->t;
    uint64_t ok = fi_cntr_read(t->cntr);
    if (ok >= w->target) {
        w->done = ok;
        return true;
    }
    if (w->polls++ % 8 == 7) {
        w->err = fi_cntr_readerr(t->cntr);
        if (w->err > t->errors_seen)
            read_errors(t);
    }
    w->done = ok + w->err;
    return w->done >= w->target || t->failed != SYM_OK;
}

static void drain_describe(void *arg, char *buf, size_t len)
{
    struct drain_wait *w = arg;
    snprintf(buf, len, "completion of %llu outstanding libfabric operations on %s (do the "
             "target PEs make symheap calls? %s needs them to)",
             (unsigned long long)(w->target - w->done), w->t->prov_name, w->t->prov_name);
}

sym_status_t ofi_drain(struct ofi_transport *t, const char *op)
{
    if (__builtin_expect(t->abandoned, 0))
        return failure(t, op);
    struct drain_wait w = { t, t->issued, 0, 0, 0 };
    if (!drain_ready(&w)) {
        struct sym_waiter waiter = { drain_ready, drain_describe, &w, NULL };
        sym_transport_depth++; /* a wait inside an operation: see base/wait.h */
        sym_status_t st = sym_wait_for(op, &waiter, 0);
        sym_transport_depth--;
        if (st != SYM_OK) {
            t->unsettled = true;
            return st;
        }
    }
    if (t->failed != SYM_OK) {
        t->unsettled = w.done < w.target;
        return failure(t, op);
    }
    t->unsettled = false;
    if (w.target > t->drained)
        t->drained = w.target;
    return SYM_OK;
}

/* Bounds ofi_settle: a live target answers within a few round trips, a
 * dead one's connection fails as soon as its socket is gone. */
#define OFI_SETTLE_NS 2000000000u

/* A blocking get's destination may be the caller's stack: a read that
 * completes after the get returned an error writes into whatever frame is
 * there by then.  (Seen: a barrier's report of who never arrived read a
 * live PE's counter into a local; the read was left in flight when the
 * health check named a dead PE, and landed on a return address during
 * sym_finalize: SIGSEGV.)  So such a get waits, without the health check
 * that ended its drain, until every issued operation completed or failed.
 * If they do not within OFI_SETTLE_NS, no libfabric call is made on this
 * transport again (nothing can deliver into the stale buffer then: these
 * providers progress only inside our calls), and sym_finalize leaves its
 * endpoint and buffers unreleased rather than let a late completion write
 * into freed memory. */
void ofi_settle(struct ofi_transport *t)
{
    if (t->abandoned)
        return;
    const uint64_t end = now_ns() + OFI_SETTLE_NS;
    for (;;) {
        ofi_progress(&t->base);
        if (completed(t) >= t->issued) {
            t->unsettled = false;
            return;
        }
        if (now_ns() >= end)
            break;
        sched_yield();
    }
    const uint64_t left = t->issued - completed(t);
    t->abandoned = true;
    if (t->failed == SYM_OK) {
        t->failed = SYM_ERR_TRANSPORT;
        snprintf(t->failed_msg, sizeof(t->failed_msg),
                 "%llu libfabric operations on %s still in flight %.0f s after a failed wait: "
                 "the transport was abandoned",
                 (unsigned long long)left, t->prov_name,
                 OFI_SETTLE_NS / 1e9);
    }
}

bool ofi_all_done(struct ofi_transport *t)
{
    if (t->abandoned)
        return false;
    ofi_progress(&t->base);
    if (completed(t) < t->issued || t->failed != SYM_OK)
        return false;
    t->drained = t->issued;
    return true;
}

sym_status_t ofi_next_ctx(struct ofi_transport *t, const char *what, int pe,
                          struct ofi_ctx **ctx_p)
{
    if (__builtin_expect(t->failed != SYM_OK, 0))
        return failure(t, what);
    if (t->issued && t->issued % OFI_CTX_RING == 0) {
        /* ofi_order already numbered the operation about to be posted
         * (last_seq = issued + 1), beyond what this drain covers. */
        sym_status_t st = ofi_drain(t, what);
        if (st != SYM_OK)
            return st;
    }
    struct ofi_ctx *c = &t->ctx[t->issued % OFI_CTX_RING];
    c->pe = pe;
    c->what = what;
    *ctx_p = c;
    return SYM_OK;
}

sym_status_t ofi_again(struct ofi_transport *t, const char *op, int pe, struct ofi_retry *r)
{
    ofi_progress(&t->base);
    if (t->failed != SYM_OK)
        return failure(t, op);
    if (r->tries++ == 0) {
        r->start_ns = now_ns();
        return SYM_OK;
    }
    if (r->tries % 64)
        return SYM_OK;
    uint64_t waited = now_ns() - r->start_ns;
    char what[96];
    snprintf(what, sizeof(what), "libfabric to accept an operation to PE %d", pe);
    sym_status_t st = sym_job_check(op, what);
    if (st != SYM_OK)
        return st;
    if ((double)waited > sym_wait_timeout() * 1e9)
        return sym_error(SYM_ERR_TIMEOUT, "%s: timed out after %.1f s waiting for %s "
                         "(provider %s kept answering -FI_EAGAIN%s)",
                         op, sym_wait_timeout(), what, t->prov_name,
                         t->eagain_every ? ", or SYMHEAP_OFI_EAGAIN_EVERY did" : "");
    sched_yield();
    return SYM_OK;
}
