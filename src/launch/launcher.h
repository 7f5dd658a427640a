/*
 * launcher.h - start and supervise a job of N PEs on this host.
 *
 * Used by `symrun` (each PE execs a program) and by the test harness (each PE
 * runs a function in the forked child), so tests exercise the real launch
 * path.  The launcher owns the job control segment (job.h): it creates it
 * as a memfd that has no name, reaps PEs and publishes their deaths in it,
 * raises the job abort word on the first failure, kills stragglers after a
 * grace period, and finally counts (and removes) any /dev/shm object named
 * after the job: none, unless a PE ran an older symheap that named them.
 */
#ifndef SYM_LAUNCH_LAUNCHER_H
#define SYM_LAUNCH_LAUNCHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

/* A PE body for function mode: runs in the forked child; its return value is
 * the child's exit status. */
typedef int (*sym_launch_body_fn)(int pe, int npes, void *arg);

struct sym_launch_opts {
    int npes;                /* >= 1 */
    char *const *argv;       /* exec mode: program and arguments (NULL: function mode) */
    sym_launch_body_fn body; /* function mode */
    void *body_arg;
    double job_timeout_s;      /* kill the whole job after this long; 0 = no limit */
    double grace_s;            /* after the first failure, kill survivors after this; default 5 */
    bool tag_output;           /* prefix every output line with "[pe] " (exec mode only) */
    const char *const *env;    /* extra "NAME=value" strings set in every PE, NULL-terminated */
    bool quiet;                /* do not print failure reports to stderr */
    bool keep_objects;         /* skip the final /dev/shm sweep, so a test can see what
                                  the PEs themselves left behind */
    const char *tcp_root_addr; /* NULL: PEs join through the job control segment
                                  (SYMHEAP_SYMRUN_*).  "host:port": they join
                                  through the TCP rendezvous instead, exactly as
                                  PEs started by hand (SYMHEAP_BOOTSTRAP=tcp,
                                  SYMHEAP_RANK, SYMHEAP_SIZE, SYMHEAP_ROOT_ADDR;
                                  PE 0 listens there), never seeing the segment;
                                  the launcher still supervises them (final_state
                                  then only tells EXITED from DEAD; with
                                  keep_objects, `symheap-info --cleanup` is what
                                  removes what they left) */
};

struct sym_launch_result {
    int npes;
    int exit_code;       /* first failing PE's exit code (128 + signal if killed),
                            124 if the job timed out, 0 if every PE succeeded */
    int first_failed_pe; /* -1 if none */
    bool timed_out;      /* the job hit job_timeout_s */
    bool aborted;        /* the launcher raised the abort word */
    int *wait_status;    /* per PE raw waitpid() status (malloc'ed; free with
                            sym_launch_result_free) */
    int *final_state;    /* per PE enum sym_job_pe_state at the end */
    char key[33];        /* the job key (to check that nothing of the job is left) */
    int objects_left;    /* symheap objects of the job found in /dev/shm once every
                            PE was reaped, before the sweep (keep_objects: not swept):
                            named with the job key, or with tcp_root_addr, named
                            after one of the job's PEs as owner (a PE joining by the
                            rendezvous owns its objects and names them with the key
                            PE 0 drew, which the launcher never learns) */
};

/* Run a job to completion.  Returns 0 if the job could be started (inspect
 * *result for how it ended), or -1 with a message on stderr if it could not
 * (bad options, fork/shm failure). */
int sym_launch_run(const struct sym_launch_opts *opts, struct sym_launch_result *result);

void sym_launch_result_free(struct sym_launch_result *result);

/* The walk every /dev/shm sweep shares (sweep.c): for each entry `pick`
 * accepts that is a regular file this user owns, unlink it if `remove`,
 * then count it and call `counted` (may be NULL) with its name (without
 * the leading '/'); an object that could not be unlinked is not counted.
 * Returns the count, -1 if /dev/shm cannot be read. */
typedef bool (*sym_launch_pick_fn)(const char *name, void *arg);
typedef void (*sym_launch_counted_fn)(const char *name, void *arg);
int sym_launch_shm_scan(sym_launch_pick_fn pick, void *arg, bool remove,
                        sym_launch_counted_fn counted);

/* Remove this user's /dev/shm objects of dead jobs (sweep.c): those whose
 * name (job.h) names this user and an owner that is gone (owner.h), and
 * that this user really owns.  Objects of other users, of live owners and
 * names it cannot parse are never touched.  With `dry_run` only counts;
 * with `log`, prints one line per object.  Returns how many it removed
 * (would remove), -1 if /dev/shm cannot be read. */
int sym_launch_sweep_stale(bool dry_run, FILE *log);

/* Split an object name (without the leading '/') into its uid and owner;
 * 0 on success, -1 if it is not a name of this version of symheap. */
int sym_launch_parse_object_name(const char *name, unsigned *uid_p, pid_t *owner_pid_p,
                                 unsigned long long *owner_start_p);

/* Remove this user's regions of libfabric's shm provider whose creator is
 * gone (sweep.c): /dev/shm/<pid>:<n>:<n>, a regular file this user owns,
 * whose pid no process has (kill(pid, 0) fails with ESRCH).  A live pid's
 * region, another user's and other names are never touched; neither is a
 * region whose pid was reused (the name records no start time).  Only
 * symheap-info --cleanup calls it: the names are libfabric's, used by any
 * program of this user, so they are swept on request, not at every symrun.
 * dry_run and log as sym_launch_sweep_stale; returns how many it removed
 * (would remove), -1 if /dev/shm cannot be read. */
int sym_launch_sweep_provider_regions(bool dry_run, FILE *log);

/* The pid of a libfabric shm region's name "<pid>:<n>:<n>" (without the
 * leading '/'); 0 on success, -1 if the name is not of that form. */
int sym_launch_parse_region_name(const char *name, pid_t *pid_p);

#endif /* SYM_LAUNCH_LAUNCHER_H */
