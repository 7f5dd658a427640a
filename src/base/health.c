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

/* Whether this PE's first job-level error, and a PE that an error named
 * lost, were recorded and told (once each per job). */
static int noted_error, noted_blame;

/* The PE that this thread's last sym_job_check() named lost, for the
 * sym_health_note_error() that its sym_error() makes right after. */
static _Thread_local int naming_lost = -1;

/* A loss is permanent; remembering it keeps repeated checks consistent
 * even though the process probe is rate-limited.  Atomics: several threads
 * of a PE may wait at once (SYM_THREAD_MULTIPLE); whichever probes first
 * records what it found. */
static int known_lost = -1;
static uint64_t next_probe;
/* The first PE the probe found gone after a library error of its own (a
 * consequence): returned while no cause is found, so that a check between
 * two probes says what the last one said. */
static int known_consequence = -1;

void sym_health_set(const struct sym_health_view *view)
{
    hv = *view;
    if (view->me < 0) {
        __atomic_store_n(&noted_error, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&noted_blame, 0, __ATOMIC_RELAXED);
        __atomic_store_n(&known_lost, -1, __ATOMIC_RELAXED);
        __atomic_store_n(&known_consequence, -1, __ATOMIC_RELAXED);
        __atomic_store_n(&next_probe, 0, __ATOMIC_RELAXED);
    }
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* How a lost PE ended, for messages; reporter: the PE whose error named
 * it lost, when that is how it was found (-1: not). */
static void describe_death(int pe, int reporter, char *buf, size_t len)
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
    if (reporter >= 0)
        snprintf(buf, len,
                 "was lost without finalizing (died or unreachable; reported by PE %d, which "
                 "found it first)",
                 reporter);
    else
        snprintf(buf, len, "is no longer running (died or exited without finalizing)");
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
    int blamed = status == SYM_ERR_PEER_LOST ? naming_lost : -1;
    naming_lost = -1;
    if (!is_job_error(status) || hv.me < 0)
        return;
    int zero = 0;
    bool first = __atomic_compare_exchange_n(&noted_error, &zero, 1, false, __ATOMIC_ACQ_REL,
                                             __ATOMIC_RELAXED);
    zero = 0;
    bool blames = blamed >= 0 && __atomic_compare_exchange_n(&noted_blame, &zero, 1, false,
                                                             __ATOMIC_ACQ_REL, __ATOMIC_RELAXED);
    if (!first && !blames)
        return;
    uint8_t *hc = hv.my_ctrl ? *hv.my_ctrl : NULL;
    /* The blame before the error: a peer that sees the error follows it. */
    if (blames && hc && hv.lib_blame_off)
        __atomic_store_n((int32_t *)(hc + hv.lib_blame_off), blamed + 1, __ATOMIC_RELEASE);
    if (first) {
        int32_t none = 0;
        if (hv.job)
            __atomic_compare_exchange_n(&hv.job->pe[hv.me].lib_error, &none, (int32_t)status, false,
                                        __ATOMIC_RELEASE, __ATOMIC_RELAXED);
        none = 0;
        if (hc && hv.lib_error_off)
            __atomic_compare_exchange_n((int32_t *)(hc + hv.lib_error_off), &none, (int32_t)status,
                                        false, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
    }
    if (hv.tell_error)
        hv.tell_error(hv.tell_error_arg, status, blames ? blamed : -1);
}

void sym_health_note_message(sym_status_t status, const char *msg)
{
    if (!hv.job || hv.me < 0)
        return;
    struct sym_job_pe *slot = &hv.job->pe[hv.me];
    uint32_t state = __atomic_load_n(&slot->error_state, __ATOMIC_ACQUIRE);
    /* an unread one stays: it is the first; another thread may be writing */
    if ((state != SYM_JOB_ERROR_NONE && state != SYM_JOB_ERROR_READ) ||
        !__atomic_compare_exchange_n(&slot->error_state, &state, SYM_JOB_ERROR_WRITING, false,
                                     __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
        return;
    snprintf(slot->error_msg, sizeof(slot->error_msg), "%s: %s", sym_status_name(status), msg);
    __atomic_store_n(&slot->error_state, SYM_JOB_ERROR_UNREAD, __ATOMIC_RELEASE);
}

void sym_health_error_read(void)
{
    if (!hv.job || hv.me < 0)
        return;
    uint32_t unread = SYM_JOB_ERROR_UNREAD;
    __atomic_compare_exchange_n(&hv.job->pe[hv.me].error_state, &unread, SYM_JOB_ERROR_READ, false,
                                __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

/* PE i's control block where its heap is mapped here (another thread may
 * map it meanwhile: the entry is read atomically), or NULL. */
static uint8_t *peer_ctrl(int i)
{
    return hv.peer_ctrl ? __atomic_load_n(&hv.peer_ctrl[i], __ATOMIC_ACQUIRE) : NULL;
}

/* Whether PE i's heap (mapped here) says the library returned it a
 * job-level error. */
static bool heap_says_lib_error(int i)
{
    uint8_t *hc = peer_ctrl(i);
    return hc && hv.lib_error_off &&
           __atomic_load_n((int32_t *)(hc + hv.lib_error_off), __ATOMIC_ACQUIRE) != 0;
}

/* The PE that PE i's error named lost, from i's heap mapped here; -1 when
 * unknown. */
static int heap_blame(int i)
{
    uint8_t *hc = peer_ctrl(i);
    if (!hc || !hv.lib_blame_off)
        return -1;
    int b = __atomic_load_n((int32_t *)(hc + hv.lib_blame_off), __ATOMIC_ACQUIRE) - 1;
    return b >= 0 && b < hv.npes ? b : -1;
}

/* A lost PE that had been returned a job-level error naming another PE
 * lost died of the failure, not caused it: name the PE it blamed (and so
 * on, as far as heaps mapped here tell).  *reporter gets the last PE whose
 * word was followed, or stays -1. */
static int follow_blame(int pe, int *reporter)
{
    for (int hops = 0; pe >= 0 && hops < hv.npes; hops++) {
        if (!heap_says_lib_error(pe))
            break;
        int b = heap_blame(pe);
        if (b < 0 || b == pe || b == hv.me)
            break;
        *reporter = pe;
        pe = b;
    }
    return pe;
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

/* A process that has exited but was not reaped yet (a zombie answers
 * kill(pid, 0) as if it ran); read from /proc, so only on the rare path. */
static bool zombie(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return true; /* gone meanwhile */
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *paren = strrchr(buf, ')');
    return paren && paren[1] == ' ' && (paren[2] == 'Z' || paren[2] == 'X');
}

/* Whether local peer i counts for the probe: its pid means something here
 * and, if its heap is mapped here, it did not finalize. */
static bool probed(int i)
{
    if (i == hv.me || hv.peer_pid[i] <= 0 || (hv.peer_local && !hv.peer_local[i]))
        return false;
    uint8_t *hc = peer_ctrl(i);
    /* Without its heap mapped here a dead process cannot say whether
     * it failed first: the bootstrap, which tells, watches it. */
    if (!hc && (hv.peer_ctrl || hv.lost_pe))
        return false;
    return !hc ||
           __atomic_load_n((uint32_t *)(hc + hv.state_off), __ATOMIC_ACQUIRE) < SYM_PE_FINALIZED;
}

/* With no launcher watching: a local peer whose process is gone and whose
 * heap does not say it finalized (kill() is a system call: looked at most
 * every 100 ms).  The order of deaths is unknown, so a PE that died without
 * a library error of its own is the cause, and is kept; one that died after
 * such an error is returned only while no other is found (a process that
 * exited but was not reaped yet is looked for then), and between probes. */
static int probe_processes(void)
{
    int lost = __atomic_load_n(&known_lost, __ATOMIC_ACQUIRE);
    if (lost >= 0 || !hv.peer_pid)
        return lost;
    uint64_t t = now_ns();
    uint64_t due = __atomic_load_n(&next_probe, __ATOMIC_RELAXED);
    if (t < due || !__atomic_compare_exchange_n(&next_probe, &due, t + 100000000u, false,
                                                __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        return __atomic_load_n(&known_consequence, __ATOMIC_ACQUIRE);
    int consequence = -1;
    for (int i = 0; i < hv.npes; i++) {
        if (!probed(i))
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
    if (consequence < 0)
        return __atomic_load_n(&known_consequence, __ATOMIC_ACQUIRE);
    /* Only consequences: the cause may be a process not reaped yet. */
    for (int i = 0; i < hv.npes; i++)
        if (probed(i) && !heap_says_lib_error(i) && zombie(hv.peer_pid[i])) {
            __atomic_store_n(&known_lost, i, __ATOMIC_RELEASE);
            return i;
        }
    int none = -1;
    __atomic_compare_exchange_n(&known_consequence, &none, consequence, false, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    return __atomic_load_n(&known_consequence, __ATOMIC_ACQUIRE);
}

/* A peer is lost when the launcher reaped it before it finalized, when the
 * bootstrap lost it or, with no launcher watching, when its process is
 * gone and its heap does not say it finalized.  Returns the lost PE to
 * name (see health.h) or -1; *reporter as follow_blame(). */
static int find_lost_pe(int *reporter)
{
    *reporter = -1;
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
            return follow_blame(pe, reporter);
    }
    int pe = hv.job ? first_dead_in_job() : probe_processes();
    return pe >= 0 ? follow_blame(pe, reporter) : -1;
}

/* A PE's abort wherever it is found first; the launcher's (npes + 1, in
 * its segment) only when no PE's is. */
uint32_t sym_health_abort_by(int32_t *status_p)
{
    const uint8_t *hc = hv.my_ctrl ? *hv.my_ctrl : NULL;
    if (hc) {
        uint32_t by = __atomic_load_n((const uint32_t *)(hc + hv.abort_by_off), __ATOMIC_ACQUIRE);
        if (by) {
            *status_p = *(const int32_t *)(hc + hv.abort_status_off);
            return by;
        }
    }
    uint32_t job_by = hv.job ? __atomic_load_n(&hv.job->abort_by, __ATOMIC_ACQUIRE) : 0;
    if (job_by && job_by <= (uint32_t)hv.npes) {
        *status_p = hv.job->abort_status;
        return job_by;
    }
    if (hv.aborted) {
        int32_t status = 0;
        uint32_t by = hv.aborted(hv.aborted_arg, &status);
        if (by && by <= (uint32_t)hv.npes) {
            *status_p = status;
            return by;
        }
    }
    if (job_by)
        *status_p = hv.job->abort_status;
    return job_by;
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
    uint32_t by = sym_health_abort_by(&status);
    if (by && by <= (uint32_t)hv.npes)
        return sym_error(SYM_ERR_ABORTED, "%s: PE %u aborted the job with status %d%s%s", op,
                         by - 1, (int)status, sep, waiting_for);
    int reporter;
    int lost = find_lost_pe(&reporter);
    if (lost >= 0) {
        char how[160];
        describe_death(lost, reporter, how, sizeof(how));
        naming_lost = lost; /* the blame sym_health_note_error() records */
        return sym_error(SYM_ERR_PEER_LOST, "%s: PE %d %s%s%s", op, lost, how, sep, waiting_for);
    }
    if (by)
        return sym_error(SYM_ERR_ABORTED, "%s: the launcher aborted the job%s%s", op, sep,
                         waiting_for);
    return SYM_OK;
}
