/*
 * launch_signals.c - the launcher process's own state during a run: which
 * signals it catches and blocks, and its descriptor limit; changed for the
 * run, restored afterwards and in every PE before the PE program runs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "launch_job.h"

#include <signal.h>
#include <string.h>
#include <sys/resource.h>

/* Signals whose disposition the launcher changes for the run. */
static const int managed_signals[] = {SIGCHLD, SIGINT, SIGTERM, SIGPIPE};
_Static_assert(sizeof managed_signals / sizeof managed_signals[0] == N_MANAGED,
               "N_MANAGED counts managed_signals");

static volatile sig_atomic_t pending_signal;

/* Its only purpose is to interrupt ppoll(); reaping happens in the loop. */
static void on_sigchld(int sig)
{
    (void)sig;
}

static void on_terminate(int sig)
{
    pending_signal = sig;
}

void launch_signals_install(struct job *job)
{
    sigset_t block;
    sigemptyset(&block);
    sigaddset(&block, SIGCHLD);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &job->old_mask);

    /* A caller that blocked SIGINT or SIGTERM keeps them blocked. */
    job->wait_mask = job->old_mask;
    sigdelset(&job->wait_mask, SIGCHLD);
    if (!sigismember(&job->old_mask, SIGINT))
        sigdelset(&job->wait_mask, SIGINT);
    if (!sigismember(&job->old_mask, SIGTERM))
        sigdelset(&job->wait_mask, SIGTERM);

    pending_signal = 0;
    for (int k = 0; k < N_MANAGED; k++) {
        int sig = managed_signals[k];
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sigemptyset(&sa.sa_mask);
        sigaction(sig, NULL, &job->old_action[k]);
        if (sig == SIGCHLD) {
            /* Also undoes SIG_IGN, which would make the kernel reap PEs
             * behind our back. */
            sa.sa_handler = on_sigchld;
            sa.sa_flags = SA_NOCLDSTOP;
        } else if (sig == SIGPIPE) {
            /* With tagged output a vanished reader must not kill the
             * launcher (and orphan the job); see sink_write (launch_relay.c). */
            if (!job->tag)
                continue;
            sa.sa_handler = SIG_IGN;
        } else {
            /* An ignored SIGINT (background job, nohup) stays ignored. */
            if (job->old_action[k].sa_handler == SIG_IGN)
                continue;
            sa.sa_handler = on_terminate;
        }
        job->action_changed[k] = sigaction(sig, &sa, NULL) == 0;
    }
}

void launch_signal_actions_restore(struct job *job)
{
    for (int k = 0; k < N_MANAGED; k++) {
        if (job->action_changed[k])
            sigaction(managed_signals[k], &job->old_action[k], NULL);
    }
}

/* Tagged output holds two pipes per PE, more than the usual soft limit of
 * 1024 descriptors allows for big jobs. */
void launch_nofile_raise(struct job *job)
{
    if (!job->tag || getrlimit(RLIMIT_NOFILE, &job->old_nofile) != 0)
        return;
    rlim_t need = (rlim_t)job->npes * 2 + 64;
    if (job->old_nofile.rlim_cur == RLIM_INFINITY || job->old_nofile.rlim_cur >= need)
        return;
    struct rlimit raised = job->old_nofile;
    raised.rlim_cur =
        raised.rlim_max == RLIM_INFINITY || raised.rlim_max > need ? need : raised.rlim_max;
    job->nofile_changed = setrlimit(RLIMIT_NOFILE, &raised) == 0;
}

void launch_nofile_restore(struct job *job)
{
    if (job->nofile_changed)
        setrlimit(RLIMIT_NOFILE, &job->old_nofile);
}

void launch_process_state_restore(struct job *job)
{
    launch_nofile_restore(job);
    /* Dispositions first: a signal still pending must meet the caller's
     * handler once unblocked, not ours. */
    launch_signal_actions_restore(job);
    sigprocmask(SIG_SETMASK, &job->old_mask, NULL);
}

int launch_take_signal(void)
{
    int sig = pending_signal;
    pending_signal = 0;
    return sig;
}
