/*
 * boot_jobs.h - start the PEs of a job one by one, as a user would without
 * symrun (by hand with the TCP rendezvous, through mpirun, inside network
 * namespaces), and check how each ended and what it printed.
 *
 * Each PE is a process running boot_pe ($BOOT_PE) or any argv, with its
 * stdout and stderr in a file of its own, SYMHEAP_* of the caller's
 * environment removed and small heaps set.  PEs die with the test process
 * (PR_SET_PDEATHSIG); bjob_wait() never waits past its deadline: it kills
 * what is left and fails the test.
 */
#ifndef SYM_TEST_BOOT_JOBS_H
#define SYM_TEST_BOOT_JOBS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define BJOB_MAX 16
/* The job secret every bjob PE gets (SYMHEAP_JOB_SECRET): tests only.  A
 * test that wants another, or none, sets SYMHEAP_JOB_SECRET in `env` (an
 * empty value is unset). */
#define BJOB_SECRET "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

struct bjob_proc {
    pid_t pid;  /* 0: not started */
    int status; /* waitpid() status once done */
    bool done;
    int log_fd; /* its output: a file unlinked at once, so none is ever left */
};

struct bjob {
    int n;
    struct bjob_proc p[BJOB_MAX];
};

void bjob_init(struct bjob *j, int n);

/* Start slot r: `prefix` (NULL or e.g. {"ip", "netns", "exec", "ns0", NULL}),
 * then $BOOT_PE with `args`; `env` entries ("NAME=value") are added. */
void bjob_start(struct bjob *j, int r, const char *const *prefix, const char *const *env,
                const char *const *args);

/* bjob_start with SYMHEAP_RANK=r and SYMHEAP_SIZE=j->n added. */
void bjob_start_tcp(struct bjob *j, int r, const char *const *prefix, const char *const *env,
                    const char *const *args);

/* Start slot r running argv as is (argv[0] looked up in PATH). */
void bjob_start_argv(struct bjob *j, int r, const char *const *argv, const char *const *env);

/* Wait for every started process; after deadline_s kill them all and fail. */
void bjob_wait(struct bjob *j, double deadline_s);

void bjob_assert_exit(struct bjob *j, int r, int code);
void bjob_assert_signal(struct bjob *j, int r, int sig);
void bjob_assert_output(struct bjob *j, int r, const char *needle);

/* The output of slot r (malloc'ed). */
char *bjob_output(struct bjob *j, int r);

/* A free TCP port on 127.0.0.1. */
int bjob_free_port(void);

/* Whether Open MPI's mpirun is on PATH (openmpi-bin). */
bool bjob_have_mpirun(void);

/* Close the output files. */
void bjob_fini(struct bjob *j);

#endif
