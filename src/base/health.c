/*
 * health.c - the job health check that every wait runs: the abort word
 * (raised by a PE's sym_global_exit or by the launcher), and lost peers
 * (reported by the bootstrap or the launcher, or found gone by their pid).
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "base/error.h"
#include "base/health.h"

static struct sym_health_view hv = {.me = -1, .npes = -1};

void sym_health_set(const struct sym_health_view *view)
{
    hv = *view;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* How a lost PE ended, for messages. */
static void describe_death(int pe, char *buf, size_t len)
{
    if (hv.lost_pe && hv.lost_pe(hv.lost_pe_arg, buf, len) == pe)
        return;
    if (hv.job) {
        int ws = hv.job->pe[pe].wait_status;
        if (WIFSIGNALED(ws)) {
            snprintf(buf, len, "was killed by signal %d (%s)", WTERMSIG(ws),
                     strsignal(WTERMSIG(ws)));
            return;
        }
        int32_t lib_error = __atomic_load_n(&hv.job->pe[pe].lib_error, __ATOMIC_ACQUIRE);
        if (WIFEXITED(ws) && lib_error) {
            snprintf(buf, len, "exited with status %d after the library returned it %s",
                     WEXITSTATUS(ws), sym_status_name((sym_status_t)lib_error));
            return;
        }
        if (WIFEXITED(ws)) {
            snprintf(buf, len, "exited with status %d without finalizing", WEXITSTATUS(ws));
            return;
        }
    }
    snprintf(buf, len, "is no longer running");
}

static bool is_job_error(sym_status_t status)
{
    switch (status) {
    case SYM_ERR_TIMEOUT:
    case SYM_ERR_PEER_LOST:
    case SYM_ERR_ABORTED:
    case SYM_ERR_MISMATCH:
    case SYM_ERR_TRANSPORT:
    case SYM_ERR_BOOTSTRAP:
        return true;
    default:
        return false;
    }
}

void sym_health_note_error(sym_status_t status)
{
    if (!is_job_error(status) || hv.me < 0)
        return;
    int32_t none = 0;
    if (hv.job)
        __atomic_compare_exchange_n(&hv.job->pe[hv.me].lib_error, &none, (int32_t)status, false,
                                    __ATOMIC_RELEASE, __ATOMIC_RELAXED);
    uint8_t *hc = hv.my_ctrl ? *hv.my_ctrl : NULL;
    none = 0;
    if (hc && hv.lib_error_off)
        __atomic_compare_exchange_n((int32_t *)(hc + hv.lib_error_off), &none, (int32_t)status,
                                    false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* Whether PE i's heap (mapped here) says the library returned it a
 * job-level error. */
static bool heap_says_lib_error(int i)
{
    uint8_t *hc = hv.peer_ctrl ? hv.peer_ctrl[i] : NULL;
    return hc && hv.lib_error_off &&
           __atomic_load_n((int32_t *)(hc + hv.lib_error_off), __ATOMIC_ACQUIRE) != 0;
}

/* The launcher's view: the first PE reaped dead that had not been returned
 * a job-level error, else the first reaped dead; -1 if none. */
static int first_dead_in_job(void)
{
    int best = -1;
    uint64_t best_key = UINT64_MAX;
    for (int i = 0; i < hv.npes; i++) {
        const struct sym_job_pe *slot = &hv.job->pe[i];
        if (__atomic_load_n(&slot->state, __ATOMIC_ACQUIRE) != SYM_PE_DEAD)
            continue;
        bool consequence = __atomic_load_n(&slot->lib_error, __ATOMIC_ACQUIRE) != 0;
        uint64_t key =
            (uint64_t)consequence << 32 | __atomic_load_n(&slot->death_order, __ATOMIC_RELAXED);
        if (key < best_key) {
            best_key = key;
            best = i;
        }
    }
    return best;
}

/* A peer is lost when the launcher reaped it before it finalized or, with no
 * launcher watching, when its process is gone and its heap does not say it
 * finalized.  Returns the lost PE to name (see health.h) or -1. */
static int find_lost_pe(void)
{
    /* The bootstrap's word first: it sees peers on every host.  A PE it
     * reports that died after a library error of its own gives way to one
     * the launcher saw die of another cause. */
    if (hv.lost_pe) {
        int pe = hv.lost_pe(hv.lost_pe_arg, NULL, 0);
        if (pe >= 0 && hv.job && (hv.job->pe[pe].lib_error || heap_says_lib_error(pe))) {
            int other = first_dead_in_job();
            if (other >= 0 && !hv.job->pe[other].lib_error)
                return other;
        }
        if (pe >= 0)
            return pe;
    }
    if (hv.job)
        return first_dead_in_job();
    /* A loss is permanent; remembering it keeps repeated checks consistent
     * even though the probe below is rate-limited.  Atomics: several
     * threads of a PE may wait at once (SYM_THREAD_MULTIPLE); whichever
     * probes first records what it found. */
    static int known_lost = -1;
    int lost = __atomic_load_n(&known_lost, __ATOMIC_ACQUIRE);
    if (lost >= 0 || !hv.peer_pid)
        return lost;
    /* kill() is a system call: look at most every 100 ms. */
    static uint64_t next_probe;
    uint64_t t = now_ns();
    uint64_t due = __atomic_load_n(&next_probe, __ATOMIC_RELAXED);
    if (t < due || !__atomic_compare_exchange_n(&next_probe, &due, t + 100000000u, false,
                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return -1;
    /* Without a launcher the order of deaths is unknown: a PE that died
     * without a library error of its own is the cause, and is kept; one
     * that died after such an error is named only while no other is found. */
    int consequence = -1;
    for (int i = 0; i < hv.npes; i++) {
        if (i == hv.me || hv.peer_pid[i] <= 0)
            continue;
        if (hv.peer_local && !hv.peer_local[i]) /* its pid means nothing here */
            continue;
        uint8_t *hc = hv.peer_ctrl ? hv.peer_ctrl[i] : NULL;
        /* A process id means something on this host only: peers whose heap
         * is not mapped here are watched by the bootstrap. */
        if (!hc && hv.peer_ctrl)
            continue;
        if (hc &&
            __atomic_load_n((uint32_t *)(hc + hv.state_off), __ATOMIC_ACQUIRE) >= SYM_PE_FINALIZED)
            continue;
        if (kill(hv.peer_pid[i], 0) != 0 && errno == ESRCH) {
            if (heap_says_lib_error(i)) {
                if (consequence < 0)
                    consequence = i;
                continue;
            }
            __atomic_store_n(&known_lost, i, __ATOMIC_RELEASE);
            return i;
        }
    }
    return consequence;
}

/* 0, or 1 + the PE that raised the abort (npes + 1: the launcher). */
static uint32_t abort_raised_by(int32_t *status_p)
{
    const uint8_t *hc = hv.my_ctrl ? *hv.my_ctrl : NULL;
    if (hc) {
        uint32_t by = __atomic_load_n((const uint32_t *)(hc + hv.abort_by_off), __ATOMIC_ACQUIRE);
        if (by) {
            *status_p = *(const int32_t *)(hc + hv.abort_status_off);
            return by;
        }
    }
    if (hv.job) {
        uint32_t by = __atomic_load_n(&hv.job->abort_by, __ATOMIC_ACQUIRE);
        if (by) {
            *status_p = hv.job->abort_status;
            return by;
        }
    }
    return 0;
}

/* Order matters: a PE that called sym_global_exit() dies right after raising
 * the abort, and its peers should hear "PE 2 aborted the job", not "PE 2
 * died"; the launcher's own abort follows a death and says less than it. */
sym_status_t sym_job_check(const char *op, const char *waiting_for)
{
    const char *sep = waiting_for ? " while waiting for " : "";
    if (!waiting_for)
        waiting_for = "";
    int32_t status = 0;
    uint32_t by = abort_raised_by(&status);
    if (by && by <= (uint32_t)hv.npes)
        return sym_error(SYM_ERR_ABORTED, "%s: PE %u aborted the job with status %d%s%s", op,
                         by - 1, (int)status, sep, waiting_for);
    int lost = find_lost_pe();
    if (lost >= 0) {
        char how[128];
        describe_death(lost, how, sizeof(how));
        return sym_error(SYM_ERR_PEER_LOST, "%s: PE %d %s%s%s", op, lost, how, sep, waiting_for);
    }
    if (by)
        return sym_error(SYM_ERR_ABORTED, "%s: the launcher aborted the job%s%s", op, sep,
                         waiting_for);
    return SYM_OK;
}
