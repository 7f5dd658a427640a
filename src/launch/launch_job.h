/*
 * launch_job.h - the launcher's private view of one running job, shared by
 * the files that start (launch_spawn.c), relay (launch_relay.c), supervise
 * (launch_supervise.c) and clean up after (launch_cleanup.c) its PEs.
 *
 * One run goes through these steps (launch_run.c drives them):
 *   1. create the job control segment, a memfd (never named), and keep its
 *      descriptor inheritable, so PEs find it through SYMHEAP_SYMRUN_FD
 *      (launch_ctrl.c);
 *   2. fork the PEs (each execs the program or runs the body);
 *   3. supervise: reap PEs and publish their deaths in the segment, relay
 *      tagged output, raise the abort word on the first failure, kill
 *      stragglers after the grace period, enforce the job timeout and
 *      forward SIGINT/SIGTERM;
 *   4. once every PE is reaped and every output pipe closed, count and
 *      remove any /dev/shm object named after the job (only a PE of an older
 *      symheap, which named its segments, could leave one), and report.
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
#ifndef SYM_LAUNCH_LAUNCH_JOB_H
#define SYM_LAUNCH_LAUNCH_JOB_H

#include "job.h"
#include "launcher.h"

#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <sys/resource.h>
#include <sys/types.h>

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
#define READ_CHUNK   65536
#define SINK_CAP     65536

enum { OUT_STDOUT = 0, OUT_STDERR = 1 };

/* One output pipe of one PE, as seen by the launcher (tag_output only). */
struct stream {
    int fd; /* read end, -1 when closed or unused */
    int pe;
    int dest;   /* OUT_STDOUT or OUT_STDERR */
    char *part; /* incomplete last line, waiting for its newline */
    size_t len, cap;
};

struct pe_proc {
    pid_t pid;                /* 0 until forked */
    unsigned long long start; /* its start time (owner.h); tcp_root_addr jobs only */
    bool reaped;
    int status;
    double reaped_at;
    struct stream io[2];
};

/* Buffered writer to one of the launcher's own output descriptors. */
struct sink {
    int fd;
    bool failed;      /* stop writing: the descriptor is unusable */
    bool reader_gone; /* failed with EPIPE: let the PEs see it too */
    bool propagated;
    size_t len;
    char buf[SINK_CAP];
};

/* Signals whose disposition the launcher changes for the run
 * (launch_signals.c): SIGCHLD, SIGINT, SIGTERM, SIGPIPE. */
#define N_MANAGED 4

struct job {
    const struct sym_launch_opts *opts;
    int npes;
    bool tag;
    double grace_s;
    pid_t self;
    char key[SYM_JOB_KEY_LEN + 1];
    char owner[SYM_OWNER_LEN];
    uint8_t secret[SYM_JOB_SECRET_LEN]; /* the segment's, for rendezvous PEs (never hold it) */
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

/* launch_run.c */
double launch_now_s(void);
__attribute__((format(printf, 1, 2))) void launch_error(const char *fmt, ...);

/* launch_ctrl.c: the job control segment */
int launch_ctrl_create(struct job *job);
void launch_ctrl_destroy(struct job *job);
void launch_raise_abort(struct job *job, int status);

/* launch_signals.c: the launcher process's state during a run */
void launch_signals_install(struct job *job);
void launch_signal_actions_restore(struct job *job);
void launch_nofile_raise(struct job *job);
void launch_nofile_restore(struct job *job);
void launch_process_state_restore(struct job *job);
/* The SIGINT/SIGTERM caught since the last call (0: none); signals must be
 * blocked. */
int launch_take_signal(void);

/* launch_spawn.c: starting and stopping PEs */
int launch_spawn_all(struct job *job);
void launch_kill_live(struct job *job, int sig);
void launch_kill_and_reap_all(struct job *job);

/* launch_relay.c: tagged output */
void launch_stream_release(struct stream *s);
void launch_stream_close(struct job *job, struct stream *s);
int launch_build_pollfds(struct job *job);
void launch_service_streams(struct job *job, int nfds);

/* launch_supervise.c: reaping, outcome, deadlines */
void launch_supervise(struct job *job);
void launch_fill_result(struct job *job, struct sym_launch_result *result);

/* launch_cleanup.c: what PEs left in /dev/shm */
int launch_job_objects(const struct job *job, bool remove);
void launch_provider_regions_cleanup(const struct job *job);

#endif /* SYM_LAUNCH_LAUNCH_JOB_H */
