/*
 * health.c - the job health check that every wait runs: the abort word
 * (raised by a PE's sym_global_exit or by the launcher), and lost peers
 * (reported by the bootstrap or the launcher, or found gone by their pid).
 */
#include <errno.h>
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
    if (hv.lost_pe) {
        int pe = hv.lost_pe(hv.lost_pe_arg, NULL, 0);
        if (pe >= 0)
            return pe;
    }
    if (hv.job) {
        for (int i = 0; i < hv.npes; i++)
            if (__atomic_load_n(&hv.job->pe[i].state, __ATOMIC_ACQUIRE) == SYM_PE_DEAD)
                return i;
        return -1;
    }
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
            __atomic_store_n(&known_lost, i, __ATOMIC_RELEASE);
            return i;
        }
    }
    return -1;
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
