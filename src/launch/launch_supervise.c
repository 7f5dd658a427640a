/*
 * launch_supervise.c - the supervisor loop: reap PEs and publish their
 * deaths, decide how the job ends, forward signals, and enforce the grace
 * period, the job timeout and the output drain deadlines.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "launch_job.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

/* Outcome */

static bool status_failed(int status)
{
    return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

static int status_exit_code(int status)
{
    if (WIFEXITED(status))
        return WEXITSTATUS(status);
    if (WIFSIGNALED(status))
        return 128 + WTERMSIG(status);
    return 255;
}

/* The first event that dooms the job decides its exit code. */
static bool decide_outcome(struct job *job, int exit_code)
{
    if (job->outcome_set)
        return false;
    job->outcome_set = true;
    job->exit_code = exit_code;
    return true;
}

static void arm_kill(struct job *job, double at, bool announce)
{
    if (job->kill_armed && job->kill_at <= at)
        return;
    job->kill_armed = true;
    job->kill_at = at;
    job->kill_announce = announce;
}

static void publish_death(struct job *job, int i, int status)
{
    struct sym_job_pe *slot = &job->ctrl->pe[i];
    uint32_t seen = __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE);
    /* A PE that never touched the library and exited cleanly lost nothing
     * its peers could wait for. */
    bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    uint32_t final =
        seen == SYM_PE_FINALIZED || (seen == SYM_PE_NONE && clean) ? SYM_PE_EXITED : SYM_PE_DEAD;

    uint32_t order = 1;
    for (int j = 0; j < job->npes; j++)
        order += j != i && job->pe[j].reaped;
    __atomic_store_n(&slot->wait_status, status, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->death_order, order, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->state, final, __ATOMIC_RELEASE);
    /* PEs asleep in a bootstrap barrier learn of it at once. */
    sym_job_boot_wake(job->ctrl);
}

/* The first library error PE i had and never read (its program may have
 * ignored the status), printed when the PE ends badly: otherwise an exit
 * status would be all the user learns. */
static void report_unread_error(struct job *job, int i)
{
    struct sym_job_pe *slot = &job->ctrl->pe[i];
    if (job->opts->quiet ||
        __atomic_load_n(&slot->error_state, __ATOMIC_ACQUIRE) != SYM_JOB_ERROR_UNREAD)
        return;
    char msg[SYM_JOB_ERROR_MAX];
    memcpy(msg, slot->error_msg, sizeof(msg));
    msg[sizeof(msg) - 1] = '\0';
    fprintf(stderr, "symrun: PE %d's first symheap error, which it never read: %s\n", i, msg);
}

static void record_exit(struct job *job, int i, int status)
{
    struct pe_proc *p = &job->pe[i];
    p->reaped = true;
    p->status = status;
    p->reaped_at = launch_now_s();
    job->live--;
    publish_death(job, i, status);

    /* A clean exit without a successful sym_finalize is a loss to the
     * peers: say so, with the error that may explain it, unless the
     * library had returned the PE a job-level error (a lost peer, an
     * abort): then its exit is a consequence, reported by whoever caused
     * it. */
    const struct sym_job_pe *slot = &job->ctrl->pe[i];
    if (!status_failed(status) && !job->launcher_killing && !job->opts->quiet &&
        __atomic_load_n(&slot->state, __ATOMIC_ACQUIRE) == SYM_PE_DEAD &&
        __atomic_load_n(&slot->lib_error, __ATOMIC_ACQUIRE) == 0) {
        fprintf(stderr, "symrun: PE %d (pid %ld) exited with status 0 without finalizing\n", i,
                (long)p->pid);
        report_unread_error(job, i);
    }

    /* Deaths the launcher caused are consequences, not the failure. */
    if (!status_failed(status) || job->first_failed_pe >= 0 || job->launcher_killing)
        return;
    int code = status_exit_code(status);
    job->first_failed_pe = i;
    job->report_pending = true;
    decide_outcome(job, code);
    launch_raise_abort(job, code);
    arm_kill(job, p->reaped_at + job->grace_s, true);
}

/* Printed once the PE's pipes are closed (all its output relayed, its
 * partial last line included), so that the report comes after its last
 * words.  The drain deadline bounds the wait. */
static void report_failure(struct job *job)
{
    if (!job->report_pending)
        return;
    int i = job->first_failed_pe;
    if (job->pe[i].io[0].fd >= 0 || job->pe[i].io[1].fd >= 0)
        return;
    job->report_pending = false;
    if (job->opts->quiet)
        return;
    int st = job->pe[i].status;
    if (WIFSIGNALED(st))
        fprintf(stderr, "symrun: PE %d (pid %ld) killed by signal %d (%s)\n", i,
                (long)job->pe[i].pid, WTERMSIG(st), strsignal(WTERMSIG(st)));
    else
        fprintf(stderr, "symrun: PE %d (pid %ld) exited with status %d\n", i, (long)job->pe[i].pid,
                status_exit_code(st));
    report_unread_error(job, i);
}

void launch_fill_result(struct job *job, struct sym_launch_result *result)
{
    if (job->exit_code_from_abort_word) {
        /* Read only now: the PE that raised the word has exited, so its
         * status is surely written. */
        job->exit_code = __atomic_load_n(&job->ctrl->abort_status, __ATOMIC_ACQUIRE);
    }
    result->npes = job->npes;
    result->exit_code = job->outcome_set ? job->exit_code : 0;
    result->first_failed_pe = job->first_failed_pe;
    result->timed_out = job->timed_out;
    result->aborted = job->aborted;
    for (int i = 0; i < job->npes; i++) {
        result->wait_status[i] = job->pe[i].status;
        result->final_state[i] = (int)__atomic_load_n(&job->ctrl->pe[i].state, __ATOMIC_ACQUIRE);
    }
    memcpy(result->key, job->key, sizeof result->key);
}

/* Supervision */

static int pe_of_pid(struct job *job, pid_t pid)
{
    for (int i = 0; i < job->npes; i++) {
        if (job->pe[i].pid == pid && !job->pe[i].reaped)
            return i;
    }
    return -1;
}

static bool reap_pe(struct job *job, int i, int flags)
{
    int status;
    pid_t r;
    do {
        r = waitpid(job->pe[i].pid, &status, flags);
    } while (r < 0 && errno == EINTR);
    if (r != job->pe[i].pid)
        return false;
    record_exit(job, i, status);
    return true;
}

/* Slow path, one waitpid per live PE: only when the caller of
 * sym_launch_run has exited children of its own, which we must not reap. */
static void reap_by_pid(struct job *job)
{
    for (int i = 0; i < job->npes; i++) {
        if (job->pe[i].pid > 0 && !job->pe[i].reaped)
            reap_pe(job, i, WNOHANG);
    }
}

/* Peek at the next exited child without reaping it, so that only our own
 * PEs are collected: one system call per death instead of one per PE. */
static void reap_children(struct job *job)
{
    while (job->live > 0) {
        siginfo_t si;
        memset(&si, 0, sizeof si);
        if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) != 0 || si.si_pid == 0)
            return;
        int i = pe_of_pid(job, si.si_pid);
        if (i < 0 || !reap_pe(job, i, WNOHANG)) {
            reap_by_pid(job);
            return;
        }
    }
}

static void handle_signal_request(struct job *job)
{
    /* Signals are blocked here, so nothing can slip in between. */
    int sig = launch_take_signal();
    if (sig == 0)
        return;
    job->launcher_killing = true;
    launch_kill_live(job, sig);
    if (job->signal_seen != 0)
        return;
    job->signal_seen = sig;
    decide_outcome(job, 128 + sig);
    launch_raise_abort(job, 128 + sig);
    arm_kill(job, launch_now_s() + job->grace_s, true);
}

/* sym_global_exit(): a PE raised the abort word itself.  Its peers learn
 * of it through the segment; the launcher only has to make sure the job
 * ends, and that it ends with the status the PE asked for. */
static void watch_pe_abort(struct job *job)
{
    if (job->pe_abort_seen)
        return;
    uint32_t by = __atomic_load_n(&job->ctrl->abort_by, __ATOMIC_ACQUIRE);
    if (by == 0 || by > (uint32_t)job->npes)
        return;
    job->pe_abort_seen = true;
    if (decide_outcome(job, 0))
        job->exit_code_from_abort_word = true;
    arm_kill(job, launch_now_s() + job->grace_s, true);
    int status = __atomic_load_n(&job->ctrl->abort_status, __ATOMIC_ACQUIRE);
    if (status != 0 && !job->opts->quiet)
        fprintf(stderr, "symrun: PE %u aborted the job with status %d\n", by - 1, status);
}

static void check_job_timeout(struct job *job, double now)
{
    double limit = job->opts->job_timeout_s;
    if (limit <= 0 || job->timed_out || job->live == 0 || now - job->start < limit)
        return;
    job->timed_out = true;
    job->launcher_killing = true;
    if (!job->opts->quiet)
        fprintf(stderr, "symrun: job timed out after %g s\n", limit);
    decide_outcome(job, 124);
    launch_raise_abort(job, 124);
    launch_kill_live(job, SIGTERM);
    arm_kill(job, now + TIMEOUT_KILL_DELAY_S, false);
}

static void check_kill_deadline(struct job *job, double now)
{
    if (!job->kill_armed || now < job->kill_at)
        return;
    job->kill_armed = false;
    if (job->live == 0)
        return;
    if (job->kill_announce && !job->opts->quiet)
        fprintf(stderr, "symrun: killing %d PE(s) still running after the grace period\n",
                job->live);
    job->launcher_killing = true;
    launch_kill_live(job, SIGKILL);
}

static void check_drain_deadlines(struct job *job, double now)
{
    if (!job->tag)
        return;
    for (int i = 0; i < job->npes; i++) {
        struct pe_proc *p = &job->pe[i];
        if (p->reaped && now - p->reaped_at >= DRAIN_LINGER_S) {
            launch_stream_close(job, &p->io[0]);
            launch_stream_close(job, &p->io[1]);
        }
    }
}

void launch_supervise(struct job *job)
{
    const struct timespec slice = {.tv_sec = 0, .tv_nsec = WAIT_SLICE_NS};

    while (job->live > 0 || job->open_streams > 0) {
        int nfds = launch_build_pollfds(job);
        /* Only a wait: readiness is re-polled after reaping, so a dead PE's
         * last words are relayed before its death is reported. */
        ppoll(nfds > 0 ? job->pfd : NULL, (nfds_t)nfds, &slice, &job->wait_mask);
        reap_children(job);
        launch_service_streams(job, nfds);
        handle_signal_request(job);
        watch_pe_abort(job);
        double now = launch_now_s();
        check_job_timeout(job, now);
        report_failure(job); /* before the kill it may cause is announced */
        check_kill_deadline(job, now);
        check_drain_deadlines(job, now);
    }
}
