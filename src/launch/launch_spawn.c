/*
 * launch_spawn.c - fork the PEs (each execs the program or runs the body,
 * with the environment that ties it to the job) and stop them.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "launch_job.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

/* PE side of fork */

/* A rendezvous PE gets what a user starting it by hand would give it, and
 * nothing of symrun's: not even variables of a symrun job the caller itself
 * runs in (sym_init would otherwise join that job). */
static int child_set_tcp_env(struct job *job, int pe)
{
    char num[32];

    if (unsetenv(SYM_ENV_SYMRUN_FD) != 0 || unsetenv(SYM_ENV_SYMRUN_PE) != 0 ||
        unsetenv(SYM_ENV_SYMRUN_NPES) != 0)
        return -1;
    if (setenv("SYMHEAP_BOOTSTRAP", "tcp", 1) != 0 ||
        setenv("SYMHEAP_ROOT_ADDR", job->opts->tcp_root_addr, 1) != 0)
        return -1;
    snprintf(num, sizeof num, "%d", pe);
    if (setenv("SYMHEAP_RANK", num, 1) != 0)
        return -1;
    snprintf(num, sizeof num, "%d", job->npes);
    if (setenv("SYMHEAP_SIZE", num, 1) != 0)
        return -1;
    /* The job's secret, as a user gives it to PEs started by hand, unless
     * the caller chose one (or a file) itself. */
    if (getenv("SYMHEAP_JOB_SECRET") != NULL || getenv("SYMHEAP_JOB_SECRET_FILE") != NULL)
        return 0;
    char hex[2 * SYM_JOB_SECRET_LEN + 1];
    for (int i = 0; i < SYM_JOB_SECRET_LEN; i++)
        snprintf(hex + 2 * i, 3, "%02x", job->secret[i]);
    return setenv("SYMHEAP_JOB_SECRET", hex, 1);
}

static int child_set_env(struct job *job, int pe)
{
    char num[32];

    for (const char *const *e = job->opts->env; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        char *name = strndup(*e, (size_t)(eq - *e));
        int rc = name != NULL ? setenv(name, eq + 1, 1) : -1;
        free(name);
        if (rc != 0)
            return -1;
    }
    if (job->opts->tcp_root_addr != NULL)
        return child_set_tcp_env(job, pe);
    /* Set last, so an extra entry cannot break the PE's link to the job. */
    snprintf(num, sizeof num, "%d", job->ctrl_fd);
    if (setenv(SYM_ENV_SYMRUN_FD, num, 1) != 0)
        return -1;
    snprintf(num, sizeof num, "%d", pe);
    if (setenv(SYM_ENV_SYMRUN_PE, num, 1) != 0)
        return -1;
    snprintf(num, sizeof num, "%d", job->npes);
    return setenv(SYM_ENV_SYMRUN_NPES, num, 1);
}

/* The pipe ends are all >= 3 (see pipe_pair), so dup2 cannot clobber one
 * with another. */
static void child_redirect_output(struct job *job, int pe, int pipes[2][2])
{
    if (dup2(pipes[0][1], STDOUT_FILENO) < 0 || dup2(pipes[1][1], STDERR_FILENO) < 0)
        _exit(127);
    for (int k = 0; k < 2; k++) {
        close(pipes[k][0]);
        close(pipes[k][1]);
    }
    /* Exec would close these (close-on-exec), a PE function would not: an
     * earlier PE's read end held here would keep that PE from getting
     * SIGPIPE when the launcher stops reading. */
    for (int j = 0; j < pe; j++) {
        for (int k = 0; k < 2; k++) {
            if (job->pe[j].io[k].fd >= 0)
                close(job->pe[j].io[k].fd);
        }
    }
}

static _Noreturn void child_exec(struct job *job)
{
    char *const *argv = job->opts->argv;
    execvp(argv[0], argv);
    int err = errno;
    if (__atomic_exchange_n(job->exec_error_claimed, 1, __ATOMIC_ACQ_REL) == 0)
        fprintf(stderr, "symrun: cannot execute '%s': %s\n", argv[0], strerror(err));
    _exit(127);
}

static _Noreturn void child_main(struct job *job, int pe, int pipes[2][2])
{
    /* If the launcher died before prctl took effect, no signal will come:
     * the parent check closes that window. */
    if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != job->self)
        _exit(127);
    /* The parent stores it too; whoever is first, it is set before the PE
     * program runs. */
    __atomic_store_n(&job->ctrl->pe[pe].pid, (int32_t)getpid(), __ATOMIC_RELEASE);
    /* A rendezvous PE must not even hold the segment: nothing of symrun's
     * may reach it (an exec'd PE would inherit the descriptor). */
    if (job->opts->tcp_root_addr != NULL) {
        munmap(job->ctrl, job->ctrl_size);
        job->ctrl = NULL;
        close(job->ctrl_fd);
        job->ctrl_fd = -1;
    }

    launch_signal_actions_restore(job);
    launch_nofile_restore(job);
    if (job->tag)
        child_redirect_output(job, pe, pipes);
    if (child_set_env(job, pe) != 0) {
        fprintf(stderr, "symrun: PE %d: cannot set its environment: %s\n", pe, strerror(errno));
        _exit(127);
    }
    sigprocmask(SIG_SETMASK, &job->old_mask, NULL);

    if (job->opts->argv != NULL)
        child_exec(job);
    int rc = job->opts->body(pe, job->npes, job->opts->body_arg);
    fflush(NULL);
    /* Only 8 bits survive: keep 256 and friends from reading as success. */
    _exit(rc < 0 || rc > 255 ? 255 : rc);
}

/* Starting and stopping PEs */

/* Close-on-exec, and above 0-2 even if the caller runs with stdio closed,
 * so the child's dup2 onto 1 and 2 cannot hit a pipe end. */
static int pipe_pair(int fds[2])
{
    if (pipe2(fds, O_CLOEXEC) != 0)
        return -1;
    for (int k = 0; k < 2; k++) {
        if (fds[k] < 3) {
            int moved = fcntl(fds[k], F_DUPFD_CLOEXEC, 3);
            close(fds[k]);
            fds[k] = moved;
        }
    }
    if (fds[0] < 0 || fds[1] < 0) {
        int err = errno;
        for (int k = 0; k < 2; k++) {
            if (fds[k] >= 0)
                close(fds[k]);
        }
        errno = err;
        return -1;
    }
    return 0;
}

static void close_pipes(int pipes[2][2])
{
    for (int k = 0; k < 2; k++) {
        for (int e = 0; e < 2; e++) {
            if (pipes[k][e] >= 0)
                close(pipes[k][e]);
        }
    }
}

/* ThreadSanitizer switches itself off for good (every access and every
 * synchronisation ignored, no report) in the child of a fork() from a
 * process with more than one thread, expecting an exec; the runtime gives
 * no way back.  A body PE never execs, and its parent is usually
 * multi-threaded (Criterion's workers run a nanomsg thread), so under TSan
 * the body PEs were never checked at all.  glibc's _Fork() is the same
 * fork without the atfork handlers, which TSan (LLVM 14) does not
 * intercept: its child keeps checking.  The handlers it skips do not
 * matter here: the child runs only the launcher's own code before the
 * body, and the library's one handler (globals.c) only acts after
 * sym_init, which a launcher process never holds while it forks its PEs.
 * Any other build, and every exec'd PE, forks as usual. */
#if defined(__SANITIZE_THREAD__)
#define SYM_LAUNCH_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SYM_LAUNCH_TSAN 1
#endif
#endif

static pid_t fork_pe(const struct job *job)
{
#ifdef SYM_LAUNCH_TSAN
    if (job->opts->argv == NULL)
        return _Fork();
#else
    (void)job;
#endif
    return fork();
}

static int spawn_pe(struct job *job, int i)
{
    int pipes[2][2] = {{-1, -1}, {-1, -1}};

    if (job->tag && (pipe_pair(pipes[0]) != 0 || pipe_pair(pipes[1]) != 0)) {
        launch_error("cannot create output pipes for PE %d: %s", i, strerror(errno));
        close_pipes(pipes);
        return -1;
    }
    pid_t pid = fork_pe(job);
    if (pid < 0) {
        launch_error("cannot start PE %d: fork: %s", i, strerror(errno));
        close_pipes(pipes);
        return -1;
    }
    if (pid == 0)
        child_main(job, i, pipes);

    job->pe[i].pid = pid;
    /* Unreaped, it keeps its /proc entry even if it already exited. */
    if (job->opts->tcp_root_addr != NULL && sym_proc_start_time(pid, &job->pe[i].start) != 0)
        job->pe[i].start = 0;
    job->live++;
    __atomic_store_n(&job->ctrl->pe[i].pid, (int32_t)pid, __ATOMIC_RELEASE);
    if (job->tag) {
        for (int k = 0; k < 2; k++) {
            close(pipes[k][1]);
            job->pe[i].io[k].fd = pipes[k][0];
            job->open_streams++;
        }
    }
    return 0;
}

int launch_spawn_all(struct job *job)
{
    /* Anything buffered now would otherwise be written once per PE. */
    fflush(NULL);
    job->start = launch_now_s();
    for (int i = 0; i < job->npes; i++) {
        if (spawn_pe(job, i) != 0)
            return -1;
    }
    return 0;
}

void launch_kill_live(struct job *job, int sig)
{
    for (int i = 0; i < job->npes; i++) {
        if (job->pe[i].pid > 0 && !job->pe[i].reaped)
            kill(job->pe[i].pid, sig);
    }
}

/* For the paths that give up on a job: nothing may outlive the launcher. */
void launch_kill_and_reap_all(struct job *job)
{
    launch_kill_live(job, SIGKILL);
    for (int i = 0; i < job->npes; i++) {
        struct pe_proc *p = &job->pe[i];
        if (p->pid <= 0 || p->reaped)
            continue;
        while (waitpid(p->pid, &p->status, 0) < 0 && errno == EINTR)
            ;
        p->reaped = true;
        job->live--;
    }
}
