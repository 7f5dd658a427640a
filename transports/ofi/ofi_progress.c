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
                     target, t->prov_name[0] ? t->prov_name : "(none yet)", fi_strerror((int)-rc));
}

/* A peer that dies under an operation fails it at once (its end of the
 * connection is gone), before its launcher has reaped it and the job
 * marks it dead.  So before reporting a failed operation, give the job's
 * health up to OFI_LOSS_GRACE_NS to name a lost PE: the caller can act on
 * "PE 3 was killed", not on a provider's "Input/output error".  A failure
 * with every peer alive takes that much longer to report, once. */
#define OFI_LOSS_GRACE_NS 1000000000u

struct grace_wait {
    struct ofi_transport *t;
    char what[sizeof(((struct ofi_transport *)0)->failed_msg) + 64];
};

/* Ready when the grace is over; the wait loop's health check ends it
 * earlier, with the lost PE's error. */
static bool grace_over(void *arg)
{
    struct grace_wait *g = arg;
    return now_ns() >= g->t->failed_grace_end;
}

static void grace_describe(void *arg, char *buf, size_t len)
{
    snprintf(buf, len, "%s", ((struct grace_wait *)arg)->what);
}

static sym_status_t failure(struct ofi_transport *t, struct sym_deadline *dl)
{
    struct grace_wait g = {.t = t};
    snprintf(g.what, sizeof(g.what), "a libfabric operation, which failed: %s", t->failed_msg);
    sym_status_t st = sym_job_check(dl->op, g.what);
    if (st != SYM_OK)
        return st;
    if (!t->failed_grace_end) /* the grace is given once: later calls report at once */
        t->failed_grace_end = now_ns() + OFI_LOSS_GRACE_NS;
    if (!grace_over(&g)) {
        struct sym_waiter waiter = {grace_over, grace_describe, &g, NULL};
        sym_transport_depth++; /* a wait inside an operation: see base/wait.h */
        st = sym_wait_for(dl, &waiter);
        sym_transport_depth--;
        if (st != SYM_OK)
            return st;
    }
    return sym_error(t->failed, "%s: %s", dl->op, t->failed_msg);
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
        const char *ptext = fi_cq_strerror(t->cq, err.prov_errno, err.err_data, text, sizeof(text));
        const struct ofi_ctx *c = err.op_context;
        bool ours = c >= t->ctx && c < t->ctx + OFI_CTX_RING;
        t->failed = SYM_ERR_TRANSPORT;
        /* an entry whose context is not one of ours (a provider-internal
         * operation) names no target */
        char target[24] = "";
        if (ours && c->pe >= 0)
            snprintf(target, sizeof(target), " to PE %d", c->pe);
        snprintf(t->failed_msg, sizeof(t->failed_msg),
                 "libfabric %s%s failed on provider %s: "
                 "%s (%s)",
                 ours && c->what ? c->what : "operation", target, t->prov_name,
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
    uint64_t err; /* the error counter when last read */
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
    snprintf(buf, len,
             "completion of %llu outstanding libfabric operations on %s (do the "
             "target PEs make symheap calls? %s needs them to)",
             (unsigned long long)(w->target - w->done), w->t->prov_name, w->t->prov_name);
}

sym_status_t ofi_drain(struct ofi_transport *t, struct sym_deadline *dl)
{
    if (__builtin_expect(t->abandoned, 0))
        return failure(t, dl);
    struct drain_wait w = {t, t->issued, 0, 0, 0};
    if (!drain_ready(&w)) {
        struct sym_waiter waiter = {drain_ready, drain_describe, &w, NULL};
        sym_transport_depth++; /* a wait inside an operation: see base/wait.h */
        sym_status_t st = sym_wait_for(dl, &waiter);
        sym_transport_depth--;
        if (st != SYM_OK) {
            t->unsettled = true;
            return st;
        }
    }
    if (t->failed != SYM_OK) {
        t->unsettled = w.done < w.target;
        return failure(t, dl);
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
                 (unsigned long long)left, t->prov_name, OFI_SETTLE_NS / 1e9);
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

sym_status_t ofi_next_ctx(struct ofi_transport *t, struct sym_deadline *dl, int pe,
                          struct ofi_ctx **ctx_p)
{
    if (__builtin_expect(t->failed != SYM_OK, 0))
        return failure(t, dl);
    if (t->issued && t->issued % OFI_CTX_RING == 0) {
        /* ofi_order already numbered the operation about to be posted
         * (last_seq = issued + 1), beyond what this drain covers. */
        sym_status_t st = ofi_drain(t, dl);
        if (st != SYM_OK)
            return st;
    }
    struct ofi_ctx *c = &t->ctx[t->issued % OFI_CTX_RING];
    c->pe = pe;
    c->what = dl->op;
    *ctx_p = c;
    return SYM_OK;
}

struct again_wait {
    struct ofi_transport *t;
    struct ofi_retry *r;
    int pe;
};

/* A retry is due once the provider completed something (room in its
 * queues), failed, or after 64 polls (it may be busy with something that
 * completes nothing of ours: connecting, a peer's traffic). */
static bool again_due(void *arg)
{
    struct again_wait *w = arg;
    struct ofi_transport *t = w->t;
    return t->failed != SYM_OK || ++w->r->polls % 64 == 0 || fi_cntr_read(t->cntr) != w->r->seen;
}

static void again_describe(void *arg, char *buf, size_t len)
{
    struct again_wait *w = arg;
    snprintf(buf, len,
             "libfabric to accept an operation to PE %d (provider %s kept answering "
             "-FI_EAGAIN%s)",
             w->pe, w->t->prov_name, w->t->eagain_every ? ", or SYMHEAP_OFI_EAGAIN_EVERY did" : "");
}

/* Between tries of a post that answered -FI_EAGAIN: the first is retried
 * at once after a progress pass, later ones after the one wait loop saw a
 * retry due (again_due), all of them within the operation's deadline,
 * which the first anchors (a retry that is due at once never reaches the
 * loop's own deadline check, so it is checked here too). */
sym_status_t ofi_again(struct ofi_transport *t, struct sym_deadline *dl, int pe,
                       struct ofi_retry *r)
{
    ofi_progress(&t->base);
    if (t->failed != SYM_OK)
        return failure(t, dl);
    if (r->tries++ == 0) {
        sym_deadline_anchor(dl);
        return SYM_OK;
    }
    struct again_wait w = {t, r, pe};
    if (r->tries % 64 == 0 || sym_deadline_passed(dl)) {
        char what[256];
        again_describe(&w, what, sizeof(what));
        sym_status_t st = sym_job_check(dl->op, what);
        if (st != SYM_OK)
            return st;
        if (sym_deadline_passed(dl))
            return sym_deadline_timeout(dl, what);
    }
    r->seen = fi_cntr_read(t->cntr);
    struct sym_waiter waiter = {again_due, again_describe, &w, NULL};
    sym_transport_depth++; /* a wait inside an operation: see base/wait.h */
    sym_status_t st = sym_wait_for(dl, &waiter);
    sym_transport_depth--;
    return st;
}
