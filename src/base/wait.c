/*
 * wait.c - the one wait loop.
 *
 * Every blocking wait of the library (flags, signals, barriers, bootstrap)
 * comes here.  The loop spins briefly (never when the host is
 * oversubscribed: a spinning PE steals the core the awaited PE needs), then
 * yields, then sleeps with exponential backoff.  Between polls it drives
 * transport progress and pending non-blocking collectives (through the
 * hooks the layers above registered), runs the job health check
 * (health.c), and gives up at a deadline with an error that says what it
 * was waiting for.
 */
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

#include "base/error.h"
#include "base/health.h"
#include "base/wait.h"

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

/* Longest sleep of a waiter's own (sym_wait_for_sleeping): whoever ends
 * the wait wakes it, so this bounds only how late a deadline or a death
 * nobody signalled is noticed. */
#define OWN_SLEEP_NS 50000000L

static inline uint64_t now_ns(void)
{
    return sym_now_ns();
}

/* Hooks of the layers above; no-ops until init registers them, so the loop
 * calls them without testing. */
static bool no_need_progress(void)
{
    return false;
}

static void no_progress(void)
{
}

static bool no_sleep(long ns)
{
    (void)ns;
    return false;
}

static bool no_yield(void)
{
    return false;
}

static struct sym_wait_progress_hooks progress_hooks = {
    .need_progress = no_need_progress,
    .progress = no_progress,
    .sleep = no_sleep,
};
static struct sym_wait_request_hooks request_hooks = {
    .run_pending = no_progress,
    .yield = no_yield,
};
static struct sym_wait_tuning tuning;

void sym_wait_set_progress_hooks(const struct sym_wait_progress_hooks *h)
{
    progress_hooks.need_progress = h && h->need_progress ? h->need_progress : no_need_progress;
    progress_hooks.progress = h && h->progress ? h->progress : no_progress;
    progress_hooks.sleep = h && h->sleep ? h->sleep : no_sleep;
}

void sym_wait_set_request_hooks(const struct sym_wait_request_hooks *h)
{
    request_hooks.run_pending = h && h->run_pending ? h->run_pending : no_progress;
    request_hooks.yield = h && h->yield ? h->yield : no_yield;
}

void sym_wait_set_tuning(const struct sym_wait_tuning *t)
{
    tuning = *t;
}

/* A transport with manual data progress (libfabric's tcp;ofi_rxm, say)
 * applies incoming writes only inside its own calls: every waiting PE
 * drives it. */
static inline void progress_all(void)
{
    progress_hooks.progress();
}

void sym_progress(void)
{
    progress_all();
}

_Thread_local unsigned sym_transport_depth;

double sym_wait_timeout(void)
{
    return tuning.timeout_s;
}

sym_status_t sym_wait_for(struct sym_deadline *dl, const struct sym_waiter *w)
{
    return sym_wait_for_sleeping(dl, w, NULL);
}

sym_status_t sym_wait_for_sleeping(struct sym_deadline *dl, const struct sym_waiter *w,
                                   void (*sleep)(void *arg, long ns))
{
    const char *op = dl->op;
    if (w->ready(w->arg))
        return SYM_OK;
    /* Inside a non-blocking collective's coroutine, waiting means letting
     * the caller run: yield instead of spinning or sleeping.  Not from
     * inside a transport operation (see sym_transport_depth). */
    const bool nested = sym_transport_depth > 0;
    const bool coroutine = !nested && request_hooks.yield();
    if (coroutine && w->ready(w->arg))
        return SYM_OK;
    const bool own_sleep = sleep && !coroutine && !nested;
    unsigned long spins = tuning.oversubscribed || coroutine || own_sleep ? 0 : tuning.spin;
    for (unsigned long i = 0; i < spins; i++) {
        cpu_relax();
        if (i % 16 == 0 && progress_hooks.need_progress())
            progress_all();
        if (w->ready(w->arg))
            return SYM_OK;
    }
    const uint64_t deadline = sym_deadline_anchor(dl);
    const uint64_t start = now_ns();
    const uint64_t yield_until =
        tuning.sleep_at_once || own_sleep ? start : start + (uint64_t)tuning.yield_us * 1000u;
    uint64_t next_check = start;
    uint64_t next_stall_check = start + 1000000u;
    long sleep_ns = 0;
    for (;;) {
        progress_all();
        if (!coroutine && !nested)
            request_hooks.run_pending();
        if (w->ready(w->arg))
            return SYM_OK;
        uint64_t t = now_ns();
        if (t >= next_check) {
            next_check = t + 1000000u; /* a dead peer is reported within ~1 ms */
            sym_status_t bad = sym_job_check(op, NULL);
            if (bad != SYM_OK) {
                if (w->ready(w->arg)) /* it finished before it died: not lost */
                    return SYM_OK;
                char what[512], first[512];
                snprintf(first, sizeof(first), "%s", sym_last_error());
                w->describe(w->arg, what, sizeof(what));
                /* The same check again, to name what was awaited; a loss or
                 * an abort seen once stays the answer even if the second
                 * look misses it. */
                sym_status_t again = sym_job_check(op, what);
                return again != SYM_OK ? again
                                       : sym_error(bad, "%s while waiting for %s", first, what);
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
            return sym_deadline_timeout(dl, what);
        }
        if (coroutine) {
            request_hooks.yield();
            continue;
        }
        if (t < yield_until) {
            sched_yield();
            continue;
        }
        if (own_sleep) { /* woken by the event: long sleeps cost no latency */
            uint64_t left = deadline - t;
            sleep(w->arg, left < OWN_SLEEP_NS ? (long)left : OWN_SLEEP_NS);
            continue;
        }
        sleep_ns = sleep_ns ? sleep_ns * 2 : 10000;
        if (sleep_ns > 1000000)
            sleep_ns = 1000000;
        if (progress_hooks.sleep(sleep_ns))
            continue;
        struct timespec ts = {0, sleep_ns};
        nanosleep(&ts, NULL);
    }
}
