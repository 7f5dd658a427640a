/*
 * launcher.c - start N PEs on this host and supervise them (see launcher.h).
 *
 * One run goes through these steps:
 *   1. create the job control segment, unlink it at once and keep its
 *      descriptor inheritable, so PEs find it through SYMHEAP_SYMRUN_FD;
 *   2. fork the PEs (each execs the program or runs the body);
 *   3. supervise: reap PEs and publish their deaths in the segment, relay
 *      tagged output, raise the abort word on the first failure, kill
 *      stragglers after the grace period, enforce the job timeout and
 *      forward SIGINT/SIGTERM;
 *   4. once every PE is reaped and every output pipe closed, remove any heap
 *      object of the job a dead PE left in /dev/shm, and report.
 *
 * With tcp_root_addr the PEs join through the TCP rendezvous instead of the
 * segment (step 1 still runs: the launcher keeps its own bookkeeping there,
 * which no PE sees).  They are still the launcher's children, so every step
 * of supervision above stays the same; only what a PE learns of a peer's
 * death comes from the rendezvous connections rather than from the segment.
 *
 * SIGCHLD, SIGINT and SIGTERM stay blocked except inside ppoll(), so the
 * handlers only run while the supervisor waits: a death wakes it at once,
 * and no other system call of the launcher ever sees EINTR.  The handler
 * state is global, so one process runs one job at a time.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "launcher.h"
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEFAULT_GRACE_S 5.0
/* After the job timeout's SIGTERM, how long PEs get before SIGKILL. */
#define TIMEOUT_KILL_DELAY_S 1.0
/* Longest the supervisor sleeps; SIGCHLD normally wakes it sooner, this
 * bounds the delay when the signal went to another thread of the caller. */
#define WAIT_SLICE_NS 5000000L
/* How long output of a reaped PE is still relayed: a grandchild may hold
 * the pipe open forever. */
#define DRAIN_LINGER_S 0.25
/* Longest line held back waiting for its newline; longer ones are split. */
#define TAG_LINE_MAX 65536
#define READ_CHUNK 65536
#define SINK_CAP 65536

enum { OUT_STDOUT = 0, OUT_STDERR = 1 };

/* One output pipe of one PE, as seen by the launcher (tag_output only). */
struct stream {
    int fd; /* read end, -1 when closed or unused */
    int pe;
    int dest; /* OUT_STDOUT or OUT_STDERR */
    char *part; /* incomplete last line, waiting for its newline */
    size_t len, cap;
};

struct pe_proc {
    pid_t pid; /* 0 until forked */
    unsigned long long start; /* its start time (owner.h); tcp_root_addr jobs only */
    bool reaped;
    int status;
    double reaped_at;
    struct stream io[2];
};

/* Buffered writer to one of the launcher's own output descriptors. */
struct sink {
    int fd;
    bool failed; /* stop writing: the descriptor is unusable */
    bool reader_gone; /* failed with EPIPE: let the PEs see it too */
    bool propagated;
    size_t len;
    char buf[SINK_CAP];
};

/* Signals whose disposition the launcher changes for the run. */
static const int managed_signals[] = {SIGCHLD, SIGINT, SIGTERM, SIGPIPE};
#define N_MANAGED ((int)(sizeof managed_signals / sizeof managed_signals[0]))

struct job {
    const struct sym_launch_opts *opts;
    int npes;
    bool tag;
    double grace_s;
    pid_t self;
    char key[SYM_JOB_KEY_LEN + 1];
    char owner[SYM_OWNER_LEN];
    int ctrl_fd;
    struct sym_job_ctrl *ctrl;
    size_t ctrl_size;
    /* Shared with the PEs: the first one whose exec fails says why, the
     * others keep quiet (they would all print the same line). */
    int *exec_error_claimed;

    struct pe_proc *pe;
    int live; /* forked and not yet reaped */
    int open_streams;
    struct pollfd *pfd;
    struct stream **pfd_stream;
    char *rdbuf;
    struct sink *sink[2];

    /* How the job is ending. */
    double start;
    bool outcome_set;
    int exit_code;
    bool exit_code_from_abort_word; /* a PE raised the abort word first */
    int first_failed_pe;
    bool report_pending;
    bool launcher_killing; /* deaths from here on are our doing */
    bool timed_out;
    bool aborted;
    bool pe_abort_seen;
    int signal_seen;
    bool kill_armed;
    bool kill_announce;
    double kill_at;

    /* Process state changed for the run, restored afterwards and in PEs. */
    sigset_t old_mask;
    sigset_t wait_mask;
    struct sigaction old_action[N_MANAGED];
    bool action_changed[N_MANAGED];
    struct rlimit old_nofile;
    bool nofile_changed;
};

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

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

__attribute__((format(printf, 1, 2))) static void launch_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("symrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ------------------------------------------------------------------------ */
/* Options and result                                                        */
/* ------------------------------------------------------------------------ */

static int validate_opts(const struct sym_launch_opts *opts)
{
    if (opts == NULL) {
        launch_error("no launch options given");
        return -1;
    }
    if (opts->npes < 1 || opts->npes > SYM_JOB_MAX_PES) {
        launch_error("the number of PEs must be between 1 and %d, got %d", SYM_JOB_MAX_PES,
                     opts->npes);
        return -1;
    }
    if (opts->argv != NULL ? opts->argv[0] == NULL : opts->body == NULL) {
        launch_error("nothing to run: no program and no PE function given");
        return -1;
    }
    /* Written so that NaN fails too. */
    if (!(opts->job_timeout_s >= 0) || !(opts->grace_s >= 0)) {
        launch_error("the job timeout and grace period must be >= 0 seconds");
        return -1;
    }
    for (const char *const *e = opts->env; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        if (eq == NULL || eq == *e) {
            launch_error("environment entry '%s' is not NAME=value", *e);
            return -1;
        }
    }
    /* Its syntax is the library's to check: a PE reports a bad one. */
    if (opts->tcp_root_addr != NULL && opts->tcp_root_addr[0] == '\0') {
        launch_error("the TCP rendezvous address is empty");
        return -1;
    }
    return 0;
}

static void result_reset(struct sym_launch_result *result, int npes)
{
    memset(result, 0, sizeof *result);
    result->npes = npes;
    result->first_failed_pe = -1;
}

/* Allocated before any PE starts, so that running out of memory can never
 * lose the outcome of a job that already ran. */
static int result_alloc(struct sym_launch_result *result, int npes)
{
    result->wait_status = calloc((size_t)npes, sizeof *result->wait_status);
    result->final_state = calloc((size_t)npes, sizeof *result->final_state);
    if (result->wait_status == NULL || result->final_state == NULL) {
        sym_launch_result_free(result);
        return -1;
    }
    return 0;
}

void sym_launch_result_free(struct sym_launch_result *result)
{
    if (result == NULL)
        return;
    free(result->wait_status);
    free(result->final_state);
    result->wait_status = NULL;
    result->final_state = NULL;
}

/* ------------------------------------------------------------------------ */
/* Job state                                                                 */
/* ------------------------------------------------------------------------ */

static void stream_release(struct stream *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->part);
    s->fd = -1;
    s->part = NULL;
    s->len = s->cap = 0;
}

static void job_free(struct job *job)
{
    if (job == NULL)
        return;
    if (job->pe != NULL) {
        for (int i = 0; i < job->npes; i++) {
            stream_release(&job->pe[i].io[0]);
            stream_release(&job->pe[i].io[1]);
        }
    }
    if (job->exec_error_claimed != NULL)
        munmap(job->exec_error_claimed, sizeof *job->exec_error_claimed);
    free(job->pe);
    free(job->pfd);
    free(job->pfd_stream);
    free(job->rdbuf);
    free(job->sink[0]);
    free(job->sink[1]);
    free(job);
}

static struct job *job_new(const struct sym_launch_opts *opts)
{
    struct job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return NULL;
    job->opts = opts;
    job->npes = opts->npes;
    job->tag = opts->tag_output;
    job->grace_s = opts->grace_s > 0 ? opts->grace_s : DEFAULT_GRACE_S;
    job->self = getpid();
    job->ctrl_fd = -1;
    job->first_failed_pe = -1;

    job->pe = calloc((size_t)job->npes, sizeof *job->pe);
    if (job->pe == NULL)
        goto fail;
    for (int i = 0; i < job->npes; i++) {
        for (int k = 0; k < 2; k++) {
            job->pe[i].io[k].fd = -1;
            job->pe[i].io[k].pe = i;
            job->pe[i].io[k].dest = k;
        }
    }
    if (opts->argv != NULL) {
        void *word = mmap(NULL, sizeof *job->exec_error_claimed, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (word == MAP_FAILED)
            goto fail;
        job->exec_error_claimed = word;
    }
    if (job->tag) {
        job->pfd = calloc((size_t)job->npes * 2, sizeof *job->pfd);
        job->pfd_stream = calloc((size_t)job->npes * 2, sizeof *job->pfd_stream);
        job->rdbuf = malloc(READ_CHUNK);
        for (int k = 0; k < 2; k++) {
            job->sink[k] = calloc(1, sizeof *job->sink[k]);
            if (job->sink[k] != NULL)
                job->sink[k]->fd = k == OUT_STDOUT ? STDOUT_FILENO : STDERR_FILENO;
        }
        if (job->pfd == NULL || job->pfd_stream == NULL || job->rdbuf == NULL ||
            job->sink[0] == NULL || job->sink[1] == NULL)
            goto fail;
    }
    return job;
fail:
    job_free(job);
    return NULL;
}

/* ------------------------------------------------------------------------ */
/* Control segment                                                           */
/* ------------------------------------------------------------------------ */

static int make_key(char key[SYM_JOB_KEY_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[SYM_JOB_KEY_LEN / 2];
    size_t got = 0;

    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++) {
        key[2 * i] = hex[raw[i] >> 4];
        key[2 * i + 1] = hex[raw[i] & 15];
    }
    key[SYM_JOB_KEY_LEN] = '\0';
    return 0;
}

/* PEs find the segment by descriptor number, so it must survive exec and
 * must not sit on 0-2, where a PE's stdio (or our output pipes) go. */
static int make_inheritable(int fd)
{
    if (fd < 3) {
        int moved = fcntl(fd, F_DUPFD, 3);
        int err = errno;
        close(fd);
        errno = err;
        return moved;
    }
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0 || fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

static int ctrl_open(struct job *job)
{
    char name[192];

    /* The job lives as long as this process does (the PEs die with it:
     * PR_SET_PDEATHSIG), so its objects carry this process as their owner. */
    sym_owner_tag(job->self, job->owner);
    for (int attempt = 0;; attempt++) {
        if (make_key(job->key) != 0) {
            launch_error("cannot draw a random job key: %s", strerror(errno));
            return -1;
        }
        snprintf(name, sizeof name, SYM_SHM_NAME_FMT, (unsigned)getuid(), job->key, job->owner,
                 "ctrl");
        int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd >= 0) {
            shm_unlink(name);
            return fd;
        }
        /* A clash of 128-bit random keys means something else is wrong,
         * but retrying costs nothing. */
        if (errno != EEXIST || attempt == 2) {
            launch_error("cannot create the job control segment %s: %s", name, strerror(errno));
            return -1;
        }
    }
}

static int ctrl_create(struct job *job)
{
    int fd = ctrl_open(job);
    if (fd < 0)
        return -1;

    size_t size = sym_job_ctrl_size((uint32_t)job->npes);
    int err = 0;
    if (ftruncate(fd, (off_t)size) != 0)
        err = errno;
    /* Reserve the pages now: a tmpfs that cannot back them would otherwise
     * kill a PE with SIGBUS later. */
    if (err == 0)
        err = posix_fallocate(fd, 0, (off_t)size);
    if (err != 0) {
        launch_error("cannot size the job control segment (%zu bytes): %s", size, strerror(err));
        close(fd);
        return -1;
    }
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        launch_error("cannot map the job control segment: %s", strerror(errno));
        close(fd);
        return -1;
    }
    fd = make_inheritable(fd);
    if (fd < 0) {
        launch_error("cannot pass the job control segment to PEs: %s", strerror(errno));
        munmap(map, size);
        return -1;
    }

    struct sym_job_ctrl *ctrl = map;
    ctrl->magic = SYM_JOB_MAGIC;
    ctrl->version = SYM_JOB_VERSION;
    ctrl->npes = (uint32_t)job->npes;
    memcpy(ctrl->key, job->key, sizeof ctrl->key);
    memcpy(ctrl->owner, job->owner, sizeof ctrl->owner);
    job->ctrl = ctrl;
    job->ctrl_size = size;
    job->ctrl_fd = fd;
    return 0;
}

static void ctrl_destroy(struct job *job)
{
    if (job->ctrl != NULL)
        munmap(job->ctrl, job->ctrl_size);
    if (job->ctrl_fd >= 0)
        close(job->ctrl_fd);
    job->ctrl = NULL;
    job->ctrl_fd = -1;
}

/* Publishing the status before the abort word lets a PE that sees the word
 * read the status.  A PE raising the word in the same instant may have its
 * status overwritten; the word itself still names whoever won. */
static void raise_abort(struct job *job, int status)
{
    uint32_t expected = 0;

    if (__atomic_load_n(&job->ctrl->abort_by, __ATOMIC_ACQUIRE) != 0)
        return;
    __atomic_store_n(&job->ctrl->abort_status, status, __ATOMIC_RELAXED);
    if (__atomic_compare_exchange_n(&job->ctrl->abort_by, &expected, (uint32_t)job->npes + 1,
                                    false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        job->aborted = true;
}

/* ------------------------------------------------------------------------ */
/* Launcher process state                                                    */
/* ------------------------------------------------------------------------ */

static void signals_install(struct job *job)
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
             * launcher (and orphan the job); see sink_write. */
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

static void signal_actions_restore(struct job *job)
{
    for (int k = 0; k < N_MANAGED; k++) {
        if (job->action_changed[k])
            sigaction(managed_signals[k], &job->old_action[k], NULL);
    }
}

/* Tagged output holds two pipes per PE, more than the usual soft limit of
 * 1024 descriptors allows for big jobs. */
static void nofile_raise(struct job *job)
{
    if (!job->tag || getrlimit(RLIMIT_NOFILE, &job->old_nofile) != 0)
        return;
    rlim_t need = (rlim_t)job->npes * 2 + 64;
    if (job->old_nofile.rlim_cur == RLIM_INFINITY || job->old_nofile.rlim_cur >= need)
        return;
    struct rlimit raised = job->old_nofile;
    raised.rlim_cur = raised.rlim_max == RLIM_INFINITY || raised.rlim_max > need ? need
                                                                                 : raised.rlim_max;
    job->nofile_changed = setrlimit(RLIMIT_NOFILE, &raised) == 0;
}

static void nofile_restore(struct job *job)
{
    if (job->nofile_changed)
        setrlimit(RLIMIT_NOFILE, &job->old_nofile);
}

static void process_state_restore(struct job *job)
{
    nofile_restore(job);
    /* Dispositions first: a signal still pending must meet the caller's
     * handler once unblocked, not ours. */
    signal_actions_restore(job);
    sigprocmask(SIG_SETMASK, &job->old_mask, NULL);
}

/* ------------------------------------------------------------------------ */
/* PE side of fork                                                           */
/* ------------------------------------------------------------------------ */

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
    return setenv("SYMHEAP_SIZE", num, 1);
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

    signal_actions_restore(job);
    nofile_restore(job);
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

/* ------------------------------------------------------------------------ */
/* Starting and stopping PEs                                                 */
/* ------------------------------------------------------------------------ */

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

static int spawn_all(struct job *job)
{
    /* Anything buffered now would otherwise be written once per PE. */
    fflush(NULL);
    job->start = now_s();
    for (int i = 0; i < job->npes; i++) {
        if (spawn_pe(job, i) != 0)
            return -1;
    }
    return 0;
}

static void kill_live(struct job *job, int sig)
{
    for (int i = 0; i < job->npes; i++) {
        if (job->pe[i].pid > 0 && !job->pe[i].reaped)
            kill(job->pe[i].pid, sig);
    }
}

/* For the paths that give up on a job: nothing may outlive the launcher. */
static void kill_and_reap_all(struct job *job)
{
    kill_live(job, SIGKILL);
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

/* ------------------------------------------------------------------------ */
/* Outcome                                                                   */
/* ------------------------------------------------------------------------ */

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

    __atomic_store_n(&slot->wait_status, status, __ATOMIC_RELAXED);
    __atomic_store_n(&slot->state, final, __ATOMIC_RELEASE);
}

static void record_exit(struct job *job, int i, int status)
{
    struct pe_proc *p = &job->pe[i];
    p->reaped = true;
    p->status = status;
    p->reaped_at = now_s();
    job->live--;
    publish_death(job, i, status);

    /* Deaths the launcher caused are consequences, not the failure. */
    if (!status_failed(status) || job->first_failed_pe >= 0 || job->launcher_killing)
        return;
    int code = status_exit_code(status);
    job->first_failed_pe = i;
    job->report_pending = true;
    decide_outcome(job, code);
    raise_abort(job, code);
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
        fprintf(stderr, "symrun: PE %d (pid %ld) exited with status %d\n", i,
                (long)job->pe[i].pid, status_exit_code(st));
}

static void fill_result(struct job *job, struct sym_launch_result *result)
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

/* ------------------------------------------------------------------------ */
/* Tagged output                                                             */
/* ------------------------------------------------------------------------ */

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && errno == EAGAIN) {
            /* Our stdout was left non-blocking by someone: wait for room. */
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            poll(&pf, 1, 100);
        } else {
            return w < 0 ? errno : EIO;
        }
    }
    return 0;
}

static void sink_write(struct sink *o, const char *p, size_t n)
{
    if (o->failed)
        return;
    int err = write_all(o->fd, p, n);
    if (err != 0) {
        o->failed = true;
        o->reader_gone = err == EPIPE;
    }
}

static void sink_flush(struct sink *o)
{
    sink_write(o, o->buf, o->len);
    o->len = 0;
}

static void sink_put(struct sink *o, const char *p, size_t n)
{
    if (o->failed || n == 0)
        return;
    if (o->len + n > SINK_CAP) {
        sink_flush(o);
        if (n > SINK_CAP) {
            sink_write(o, p, n);
            return;
        }
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

/* Emits "[pe] " + the held partial line + data + newline. */
static void emit_line(struct job *job, struct stream *s, const char *data, size_t n)
{
    struct sink *o = job->sink[s->dest];
    char prefix[24];
    int plen = snprintf(prefix, sizeof prefix, "[%d] ", s->pe);

    sink_put(o, prefix, (size_t)plen);
    sink_put(o, s->part, s->len);
    sink_put(o, data, n);
    sink_put(o, "\n", 1);
    s->len = 0;
}

static bool stream_reserve(struct stream *s, size_t need)
{
    if (need <= s->cap)
        return true;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < need)
        cap *= 2;
    char *grown = realloc(s->part, cap);
    if (grown == NULL)
        return false;
    s->part = grown;
    s->cap = cap;
    return true;
}

/* Hold an incomplete line until its newline arrives. */
static void stream_hold(struct job *job, struct stream *s, const char *data, size_t n)
{
    while (s->len + n > TAG_LINE_MAX) {
        size_t take = TAG_LINE_MAX - s->len;
        emit_line(job, s, data, take);
        data += take;
        n -= take;
    }
    if (n == 0)
        return;
    if (!stream_reserve(s, s->len + n)) {
        emit_line(job, s, data, n);
        return;
    }
    memcpy(s->part + s->len, data, n);
    s->len += n;
}

static void stream_consume(struct job *job, struct stream *s, const char *data, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        if (nl == NULL) {
            stream_hold(job, s, data, n);
            return;
        }
        size_t len = (size_t)(nl - data);
        emit_line(job, s, data, len);
        data += len + 1;
        n -= len + 1;
    }
}

static void stream_close(struct job *job, struct stream *s)
{
    if (s->fd < 0)
        return;
    if (s->len > 0) {
        emit_line(job, s, "", 0);
        sink_flush(job->sink[s->dest]);
    }
    stream_release(s);
    job->open_streams--;
}

static void stream_service(struct job *job, struct stream *s)
{
    ssize_t n = read(s->fd, job->rdbuf, READ_CHUNK);
    if (n > 0) {
        stream_consume(job, s, job->rdbuf, (size_t)n);
        sink_flush(job->sink[s->dest]);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        stream_close(job, s);
    }
}

/* When whoever reads our output has gone, close the PEs' pipes too: they
 * then get SIGPIPE just as if they wrote to that reader directly. */
static void propagate_broken_sinks(struct job *job)
{
    for (int k = 0; k < 2; k++) {
        struct sink *o = job->sink[k];
        if (!o->reader_gone || o->propagated)
            continue;
        o->propagated = true;
        for (int i = 0; i < job->npes; i++)
            stream_close(job, &job->pe[i].io[k]);
    }
}

static int build_pollfds(struct job *job)
{
    int n = 0;
    if (!job->tag)
        return 0;
    for (int i = 0; i < job->npes; i++) {
        for (int k = 0; k < 2; k++) {
            struct stream *s = &job->pe[i].io[k];
            if (s->fd < 0)
                continue;
            job->pfd[n] = (struct pollfd){.fd = s->fd, .events = POLLIN};
            job->pfd_stream[n] = s;
            n++;
        }
    }
    return n;
}

static void service_streams(struct job *job, int nfds)
{
    if (nfds == 0 || poll(job->pfd, (nfds_t)nfds, 0) <= 0)
        return;
    for (int k = 0; k < nfds; k++) {
        if (job->pfd[k].revents != 0)
            stream_service(job, job->pfd_stream[k]);
    }
    propagate_broken_sinks(job);
}

/* ------------------------------------------------------------------------ */
/* Supervision                                                               */
/* ------------------------------------------------------------------------ */

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
    int sig = pending_signal;
    if (sig == 0)
        return;
    pending_signal = 0;
    job->launcher_killing = true;
    kill_live(job, sig);
    if (job->signal_seen != 0)
        return;
    job->signal_seen = sig;
    decide_outcome(job, 128 + sig);
    raise_abort(job, 128 + sig);
    arm_kill(job, now_s() + job->grace_s, true);
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
    arm_kill(job, now_s() + job->grace_s, true);
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
    raise_abort(job, 124);
    kill_live(job, SIGTERM);
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
    kill_live(job, SIGKILL);
}

static void check_drain_deadlines(struct job *job, double now)
{
    if (!job->tag)
        return;
    for (int i = 0; i < job->npes; i++) {
        struct pe_proc *p = &job->pe[i];
        if (p->reaped && now - p->reaped_at >= DRAIN_LINGER_S) {
            stream_close(job, &p->io[0]);
            stream_close(job, &p->io[1]);
        }
    }
}

static void supervise(struct job *job)
{
    const struct timespec slice = {.tv_sec = 0, .tv_nsec = WAIT_SLICE_NS};

    while (job->live > 0 || job->open_streams > 0) {
        int nfds = build_pollfds(job);
        /* Only a wait: readiness is re-polled after reaping, so a dead PE's
         * last words are relayed before its death is reported. */
        ppoll(nfds > 0 ? job->pfd : NULL, (nfds_t)nfds, &slice, &job->wait_mask);
        reap_children(job);
        service_streams(job, nfds);
        handle_signal_request(job);
        watch_pe_abort(job);
        double now = now_s();
        check_job_timeout(job, now);
        report_failure(job); /* before the kill it may cause is announced */
        check_kill_deadline(job, now);
        check_drain_deadlines(job, now);
    }
}

/* ------------------------------------------------------------------------ */
/* Entry points                                                              */
/* ------------------------------------------------------------------------ */

/* libfabric's shm provider names a process's region "<pid>:<n>:<n>" in
 * /dev/shm and unlinks it when the endpoint closes, so a PE killed over
 * SYMHEAP_TRANSPORT=ofi with that provider leaves 16 MiB behind that no
 * symheap name covers.  Once every PE is reaped, such objects of this
 * user named after one of the job's PE pids are theirs: removed. */
static bool is_region_of(const char *name, const struct job *job)
{
    pid_t pid;
    if (sym_launch_parse_region_name(name, &pid) != 0)
        return false;
    for (int i = 0; i < job->npes; i++)
        if (job->pe[i].pid > 0 && job->pe[i].pid == pid)
            return true;
    return false;
}

static bool region_of_job(const char *name, void *job)
{
    return is_region_of(name, job);
}

static void provider_regions_cleanup(const struct job *job)
{
    sym_launch_shm_scan(region_of_job, (void *)job, true, NULL);
}

static int scan_job_objects(const char *key, bool remove);

/* A rendezvous PE owns the objects it creates: their names carry its own
 * "<pid>.<start>" (owner.h), and a job key PE 0 drew.  Those of this user
 * naming one of the job's PEs (pid and start time) are the job's. */
static bool object_of_pe(const char *name, void *arg)
{
    const struct job *job = arg;
    unsigned name_uid;
    pid_t pid;
    unsigned long long start;
    if (sym_launch_parse_object_name(name, &name_uid, &pid, &start) != 0 ||
        name_uid != (unsigned)getuid())
        return false;
    for (int i = 0; i < job->npes; i++)
        if (job->pe[i].pid == pid && job->pe[i].start == start)
            return true;
    return false;
}

static int scan_pe_objects(const struct job *job, bool remove)
{
    return sym_launch_shm_scan(object_of_pe, (void *)job, remove, NULL);
}

/* Every PE is gone: whatever symheap object of the job is still there was
 * left by a PE that died before it could unlink it. */
static int job_objects(const struct job *job, bool remove)
{
    if (job->opts->tcp_root_addr != NULL)
        return scan_pe_objects(job, remove);
    return scan_job_objects(job->key, remove);
}

int sym_launch_run(const struct sym_launch_opts *opts, struct sym_launch_result *result)
{
    if (result == NULL) {
        launch_error("no result structure given");
        return -1;
    }
    result_reset(result, opts != NULL ? opts->npes : 0);
    if (validate_opts(opts) != 0)
        return -1;

    struct job *job = job_new(opts);
    if (job == NULL || result_alloc(result, opts->npes) != 0) {
        launch_error("out of memory starting a job of %d PEs", opts->npes);
        job_free(job);
        return -1;
    }
    if (ctrl_create(job) != 0) {
        sym_launch_result_free(result);
        job_free(job);
        return -1;
    }

    signals_install(job);
    nofile_raise(job);
    int rc = spawn_all(job);
    if (rc == 0)
        supervise(job);
    else
        kill_and_reap_all(job);
    process_state_restore(job);

    int left = job_objects(job, false);
    if (!opts->keep_objects && left != 0)
        job_objects(job, true);
    /* libfabric's objects, not the library's: keep_objects (a test looking
     * at what symheap itself unlinked) does not keep them. */
    provider_regions_cleanup(job);
    if (rc == 0) {
        fill_result(job, result);
        result->objects_left = left;
    } else {
        sym_launch_result_free(result);
    }
    ctrl_destroy(job);
    job_free(job);
    return rc;
}

static bool object_of_key(const char *name, void *prefix)
{
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* Visits the /dev/shm objects of job `key` this user owns; unlinks them if
 * `remove`.  Returns how many it counted (removed), -1 on error. */

static int scan_job_objects(const char *key, bool remove)
{
    if (key == NULL || key[0] == '\0' || strchr(key, '/') != NULL)
        return -1;
    char prefix[128];
    int plen = snprintf(prefix, sizeof prefix, SYM_SHM_PREFIX "%u-%s-", (unsigned)getuid(), key);
    if (plen < 0 || (size_t)plen >= sizeof prefix)
        return -1;
    return sym_launch_shm_scan(object_of_key, prefix, remove, NULL);
}

int sym_launch_cleanup_job(const char *key)
{
    return scan_job_objects(key, true);
}

int sym_launch_count_job_objects(const char *key)
{
    return scan_job_objects(key, false);
}
