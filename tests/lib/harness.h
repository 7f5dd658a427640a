/*
 * harness.h - run a test body on N real PEs.
 *
 * The body runs in N processes forked by the real launcher (src/launch), each
 * joining the job through sym_init() exactly as under symrun; with
 * SYMHEAP_TEST_LAUNCHER=tcp, exactly as PEs started by hand with the TCP
 * rendezvous (the launcher still supervises them); with
 * SYMHEAP_TEST_LAUNCHER=mpirun, as the ranks of an Open MPI mpirun joining
 * through PMIx instead (harness_mpirun.c).  A PE reports
 * failure only through its exit status (Criterion's assertions must not be
 * used in a forked child): PE_ASSERT prints what failed, with the PE number,
 * and exits.  The test process then fails the Criterion test naming every
 * failing PE, and checks that the job left nothing in /dev/shm.
 */
#ifndef SYM_TEST_HARNESS_H
#define SYM_TEST_HARNESS_H

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <symheap.h>

#define HARNESS_MAX_PES 64

/* SYMHEAP_TEST_LAUNCHER: who starts the PEs of every job and how they join
 * it, read once.  "symrun" (unset or empty too): forked by the launcher,
 * joined through its job control segment, as under symrun.  "tcp": forked
 * and supervised by the same launcher, but joined through the TCP
 * rendezvous on 127.0.0.1, as PEs started by hand (harness_tcp.c).
 * "mpirun": ranks of Open MPI's mpirun joining through PMIx, each PE forked
 * by the harness with the environment its rank's proxy got from mpirun
 * (harness_mpirun.c).  Anything else aborts the test program, saying so. */
const char *harness_launcher(void);

/* For a test that checks what only symrun's job control segment gives (a
 * PE's exit status told to its peers, the segment itself, the launcher's
 * variables as plain configuration): under any other launcher, report the
 * test as skipped, saying why, instead of running it unfaithfully. */
void harness_require_symrun(const char *why);

/* The words survivors use for a PE's death by SIGKILL: under symrun the
 * launcher publishes how it died ("killed by signal 9"); under the TCP
 * rendezvous they only see its connection drop without a goodbye
 * ("... without finalizing (died or unreachable...)"). */
const char *harness_killed_words(void);

/* A body: runs on every PE.  Returning means success. */
typedef void (*pe_body_fn)(int me, int npes, void *arg);

struct pe_job {
    int npes;
    pe_body_fn body;
    void *arg;
    bool raw;               /* do not call sym_init/sym_finalize around the body */
    const char *const *env; /* extra "NAME=value" strings, NULL-terminated */
    double job_timeout_s;   /* whole job; default 120 */
    double grace_s;         /* launcher grace after the first failure; default 5 */
    const char *launcher;   /* NULL: harness_launcher(); or force "symrun", "tcp", "mpirun" */
};

struct pe_outcome {
    int npes;
    int exit_code[HARNESS_MAX_PES];   /* exit status, or 128 + signal */
    int term_signal[HARNESS_MAX_PES]; /* 0 unless killed by a signal */
    int job_exit_code;
    bool timed_out;
    int leftover_objects; /* /dev/shm objects of the job after it ended */
    double seconds;       /* wall time of the whole job */
};

/* Run a job and describe how it ended; never asserts. */
void pe_job_run(const struct pe_job *job, struct pe_outcome *out);

/* Run `body` on npes PEs around sym_init/sym_finalize and cr_assert that
 * every PE succeeded and nothing leaked in /dev/shm.  With the environment
 * variable SYMHEAP_TEST_PES (a comma-separated list of sizes) set, a job of
 * another size skips the test instead, saying why. */
void run_pes(int npes, pe_body_fn body, void *arg);

/* False when SYMHEAP_TEST_PES is set and does not list `npes`: for a test
 * that runs jobs of several sizes in a loop, to leave the unlisted ones out. */
bool harness_pes_listed(int npes);

/* Same with extra environment. */
void run_pes_env(int npes, const char *const *env, pe_body_fn body, void *arg);

/* cr_assert that every PE of `out` exited 0 and nothing leaked. */
void assert_job_ok(const struct pe_outcome *out);

/* Inside a PE: report a failure and exit. */
void pe_fail(const char *file, int line, const char *expr, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

#define PE_ASSERT(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond))                                                                               \
            pe_fail(__FILE__, __LINE__, #cond, __VA_ARGS__);                                       \
    } while (0)

/* A status the test does not check, on purpose (a cleanup after the point
 * of the test, a call expected to fail either way): every sym_status_t
 * call is warn_unused_result, and GCC does not take a cast to void as a
 * use. */
static inline void pe_ignore(sym_status_t status)
{
    (void)status;
}

/* Assert that a symheap call returned SYM_OK, printing sym_last_error(). */
#define PE_OK(call)                                                                                \
    do {                                                                                           \
        sym_status_t pe_st_ = (call);                                                              \
        if (pe_st_ != SYM_OK)                                                                      \
            pe_fail(__FILE__, __LINE__, #call, "returned %s: %s", sym_status_name(pe_st_),         \
                    sym_last_error());                                                             \
    } while (0)

/* Assert that a symheap call failed with `expected`. */
#define PE_FAILS_WITH(call, expected)                                                              \
    do {                                                                                           \
        sym_status_t pe_st_ = (call);                                                              \
        if (pe_st_ != (expected))                                                                  \
            pe_fail(__FILE__, __LINE__, #call, "returned %s, expected %s (%s)",                    \
                    sym_status_name(pe_st_), sym_status_name(expected), sym_last_error());         \
    } while (0)

/* Monotonic seconds. */
double harness_now(void);

/* Time limits of the tests (never the library's own defaults) scale by one
 * factor for slow builds: every job limit, launcher grace, harness default
 * SYMHEAP_TIMEOUT and every "within N s" bound of a test goes through
 * harness_seconds().  The factor is SYMHEAP_TEST_TIME_SCALE when set (a
 * number >= 1; .ci/test sets it for its valgrind stage), otherwise the
 * build's default: tests/meson.build sets 4 for ThreadSanitizer, 2 for
 * AddressSanitizer and 1 otherwise, and scales meson's per-binary timeouts
 * by the same factor.  With the factor 1 every bound is exactly the one
 * the test states. */
double harness_time_scale(void);

#ifndef HARNESS_BUILD_TIME_SCALE
#define HARNESS_BUILD_TIME_SCALE 1
#endif
/* A Criterion `.timeout` (a constant): `s` times the build's factor only. */
#define HARNESS_CR_TIMEOUT(s) ((s)*HARNESS_BUILD_TIME_SCALE)

/* `s` seconds times harness_time_scale(). */
double harness_seconds(double s);

/* "SYMHEAP_TIMEOUT=<s scaled>", for the env of a job that sets a short
 * library timeout; the error then names harness_timeout_text(s).  The
 * string lives in one of 16 static slots used in turn: enough for the
 * env of one job.  Not thread safe (tests call it before forking). */
const char *harness_timeout_env(double s);

/* The library's wording of a timeout of `s` scaled seconds ("1.0 s"),
 * in the same slots. */
const char *harness_timeout_text(double s);

/* For a job killing a PE on purpose and expecting the survivors to report
 * it: skipped, saying why, under a launcher that ends the whole job itself
 * when a PE dies (Open MPI's mpirun sends the survivors SIGTERM, racing
 * their report; nor can they learn the signal, symrun's job segment's). */
void harness_skip_if_launcher_ends_job_on_kill(void);

/* ---- for the launchers (harness_*.c) ---- */

/* A PE's life: sym_init, the body, sym_finalize (raw: the body alone);
 * `job` is the struct pe_job.  Returns the PE's exit status. */
int harness_pe_main(int pe, int npes, void *job);

/* The harness defaults then the job's env, NULL-terminated; returns the count. */
size_t harness_job_env(const struct pe_job *job, const char *env[64]);

/* harness_mpirun.c: the job's PEs as ranks of Open MPI's mpirun, joining
 * through PMIx.  Same contract as pe_job_run. */
void harness_mpirun_job_run(const struct pe_job *job, struct pe_outcome *out);

/* The private directory of the last mpirun job (its proxies carry it in
 * their arguments): tests check nothing of the job outlives it. */
const char *harness_mpirun_last_dir(void);

/* The PE counts every multi-PE feature is tested at. */
#define HARNESS_PE_COUNTS                                                                          \
    {                                                                                              \
        1, 2, 3, 4, 8                                                                              \
    }

#endif /* SYM_TEST_HARNESS_H */
