/*
 * wait.c - the one wait loop, and the job health check it runs.
 *
 * Every blocking wait of the library (flags, signals, barriers, bootstrap)
 * comes here.  The loop spins briefly (never when the host is
 * oversubscribed: a spinning PE steals the core the awaited PE needs), then
 * yields, then sleeps with exponential backoff.  Between polls it drives
 * transport progress, looks for dead peers and the abort word, and gives up
 * at a deadline with an error that says what it was waiting for.
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "bootstrap/bootstrap.h"
#include "coll/request.h"
#include "core/internal.h"
#include "launch/job.h"

static inline void cpu_relax(void)
{
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#else
    __asm__ volatile("" ::: "memory");
#endif
}

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* How a lost PE ended, for messages. */
static void describe_death(int pe, char *buf, size_t len)
{
    if (sym_rt.boot && sym_rt.boot->ops->lost_pe &&
        sym_rt.boot->ops->lost_pe(sym_rt.boot, buf, len) == pe)
        return;
    if (sym_rt.job) {
        int ws = sym_rt.job->pe[pe].wait_status;
        if (WIFSIGNALED(ws)) {
            snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(ws),
                     strsignal(WTERMSIG(ws)));
            return;
        }
        if (WIFEXITED(ws)) {
            snprintf(buf, len, "exited with status %d without finalizing", WEXITSTATUS(ws));
            return;
        }
    }
    snprintf(buf, len, "is no longer running");
}

/* A peer is lost when the launcher reaped it before it finalized or, with no
 * launcher watching, when its process is gone and its heap does not say it
 * finalized.  Returns the first lost PE or -1. */
static int find_lost_pe(void)
{
    /* The bootstrap's word first: it sees peers on every host. */
    if (sym_rt.boot && sym_rt.boot->ops->lost_pe) {
        int pe = sym_rt.boot->ops->lost_pe(sym_rt.boot, NULL, 0);
        if (pe >= 0)
            return pe;
    }
    if (sym_rt.job) {
        for (int i = 0; i < sym_rt.npes; i++)
            if (__atomic_load_n(&sym_rt.job->pe[i].state, __ATOMIC_ACQUIRE) == SYM_PE_DEAD)
                return i;
        return -1;
    }
    /* A loss is permanent; remembering it keeps repeated checks consistent
     * even though the probe below is rate-limited.  Atomics: several
     * threads of a PE may wait at once (SYM_THREAD_MULTIPLE); whichever
     * probes first records what it found. */
    static int known_lost = -1;
    int lost = __atomic_load_n(&known_lost, __ATOMIC_ACQUIRE);
    if (lost >= 0 || !sym_rt.peer_pid)
        return lost;
    /* kill() is a system call: look at most every 100 ms. */
    static uint64_t next_probe;
    uint64_t t = now_ns();
    uint64_t due = __atomic_load_n(&next_probe, __ATOMIC_RELAXED);
    if (t < due || !__atomic_compare_exchange_n(&next_probe, &due, t + 100000000u, false,
                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return -1;
    for (int i = 0; i < sym_rt.npes; i++) {
        if (i == sym_rt.me || sym_rt.peer_pid[i] <= 0)
            continue;
        if (sym_rt.peer_local && !sym_rt.peer_local[i]) /* its pid means nothing here */
            continue;
        struct sym_heap_ctrl *hc = sym_rt.peer_base ? (void *)sym_rt.peer_base[i] : NULL;
        /* A process id means something on this host only: peers whose heap
         * is not mapped here are watched by the bootstrap. */
        if (!hc && sym_rt.peer_base)
            continue;
        if (hc && __atomic_load_n(&hc->state, __ATOMIC_ACQUIRE) >= SYM_PE_FINALIZED)
            continue;
        if (kill(sym_rt.peer_pid[i], 0) != 0 && errno == ESRCH) {
            __atomic_store_n(&known_lost, i, __ATOMIC_RELEASE);
            return i;
        }
    }
    return -1;
}

/* 0, or 1 + the PE that raised the abort (npes + 1: the launcher). */
static uint32_t abort_raised_by(int32_t *status_p)
{
    if (sym_rt.base) {
        struct sym_heap_ctrl *hc = (void *)sym_rt.base;
        uint32_t by = __atomic_load_n(&hc->abort_by, __ATOMIC_ACQUIRE);
        if (by) {
            *status_p = hc->abort_status;
            return by;
        }
    }
    if (sym_rt.job) {
        uint32_t by = __atomic_load_n(&sym_rt.job->abort_by, __ATOMIC_ACQUIRE);
        if (by) {
            *status_p = sym_rt.job->abort_status;
            return by;
        }
    }
    return 0;
}

/* Order matters: a PE that called sym_global_exit() dies right after raising
 * the abort, and its peers should hear "PE 2 aborted the job", not "PE 2
 * died"; the launcher's own abort follows a death and says less than it. */
static sym_status_t health(const char *op, const char *waiting_for)
{
    const char *sep = waiting_for ? " while waiting for " : "";
    if (!waiting_for)
        waiting_for = "";
    int32_t status = 0;
    uint32_t by = abort_raised_by(&status);
    if (by && by <= (uint32_t)sym_rt.npes)
        return sym_error(SYM_ERR_ABORTED, "%s: PE %u aborted the job with status %d%s%s", op,
                         by - 1, (int)status, sep, waiting_for);
    int lost = find_lost_pe();
    if (lost >= 0) {
        char how[128];
        describe_death(lost, how, sizeof(how));
        return sym_error(SYM_ERR_PEER_LOST, "%s: PE %d %s%s%s", op, lost, how, sep,
                         waiting_for);
    }
    if (by)
        return sym_error(SYM_ERR_ABORTED, "%s: the launcher aborted the job%s%s", op, sep,
                         waiting_for);
    return SYM_OK;
}

sym_status_t sym_job_check(const char *op, const char *waiting_for)
{
    return health(op, waiting_for);
}

/* A target with manual data progress (tcp;ofi_rxm, shm provider) applies
 * incoming writes only inside libfabric calls: every waiting PE drives it. */
static inline void progress_all(void)
{
    sym_transports_progress();
}

void sym_progress(void)
{
    progress_all();
}

_Thread_local unsigned sym_transport_depth;
_Thread_local double sym_op_timeout_s;

double sym_wait_timeout(void)
{
    return sym_op_timeout_s > 0 ? sym_op_timeout_s : sym_rt.cfg.timeout;
}

sym_status_t sym_wait_for(const char *op, const struct sym_waiter *w, double timeout_s)
{
    if (w->ready(w->arg))
        return SYM_OK;
    /* Inside a non-blocking collective's coroutine, waiting means letting
     * the caller run: yield instead of spinning or sleeping.  Not from
     * inside a transport operation (see sym_transport_depth). */
    const bool nested = sym_transport_depth > 0;
    const bool coroutine = !nested && sym_request_yield();
    if (coroutine && w->ready(w->arg))
        return SYM_OK;
    unsigned long spins = sym_rt.oversubscribed || coroutine ? 0 : sym_rt.cfg.wait_spin;
    for (unsigned long i = 0; i < spins; i++) {
        cpu_relax();
        if (i % 16 == 0 && sym_transports_need_progress())
            progress_all();
        if (w->ready(w->arg))
            return SYM_OK;
    }
    if (timeout_s <= 0)
        timeout_s = sym_wait_timeout();
    if (timeout_s > 1e9) /* ~31 years: keeps the nanosecond deadline in range */
        timeout_s = 1e9;
    const uint64_t start = now_ns();
    const uint64_t deadline = start + (uint64_t)(timeout_s * 1e9);
    const uint64_t yield_until =
        sym_rt.wait_sleeps_at_once ? start : start + (uint64_t)sym_rt.cfg.wait_yield_us * 1000u;
    uint64_t next_check = start;
    uint64_t next_stall_check = start + 1000000u;
    long sleep_ns = 0;
    for (;;) {
        progress_all();
        if (!coroutine && !nested)
            sym_requests_progress();
        if (w->ready(w->arg))
            return SYM_OK;
        uint64_t t = now_ns();
        if (t >= next_check) {
            next_check = t + 1000000u; /* a dead peer is reported within ~1 ms */
            if (health(op, NULL) != SYM_OK) {
                if (w->ready(w->arg)) /* it finished before it died: not lost */
                    return SYM_OK;
                char what[512];
                w->describe(w->arg, what, sizeof(what));
                return health(op, what);
            }
        }
        if (w->stalled && t >= next_stall_check) {
            next_stall_check = t + 10000000u;
            sym_status_t st = w->stalled(w->arg);
            if (st != SYM_OK)
                return w->ready(w->arg) ? SYM_OK : st;
        }
        if (t >= deadline) {
            if (w->ready(w->arg))
                return SYM_OK;
            char what[512];
            w->describe(w->arg, what, sizeof(what));
            return sym_error(SYM_ERR_TIMEOUT, "%s: timed out after %.1f s waiting for %s", op,
                             timeout_s, what);
        }
        if (coroutine) {
            sym_request_yield();
            continue;
        }
        if (t < yield_until) {
            sched_yield();
            continue;
        }
        sleep_ns = sleep_ns ? sleep_ns * 2 : 10000;
        if (sleep_ns > 1000000)
            sleep_ns = 1000000;
        if (sym_transports_sleep(sleep_ns))
            continue;
        struct timespec ts = { 0, sleep_ns };
        nanosleep(&ts, NULL);
    }
}
