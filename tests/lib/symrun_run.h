/*
 * symrun_run.h - running the symrun command as a user does, for the
 * test_symrun_*.c files: the real binary ($SYMRUN) started as a subprocess,
 * running the PE program symrun_pe ($SYMRUN_PE), its output and exit status
 * captured.
 *
 * Every run is bounded: symrun gets its own process group, and one that is
 * still going after DEADLINE_S is killed with its PEs and fails the test.
 * After every run run_finish() checks that no process of that group is left
 * and that /dev/shm holds nothing of the job (PE 0 prints the job key).
 */
#ifndef SYM_TEST_SYMRUN_RUN_H
#define SYM_TEST_SYMRUN_RUN_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "harness.h"
#include "launch/job.h"

/* Bound for "ends by itself, quickly": such jobs normally take well under
 * half a second, and this machine has 2 cores shared with other tests. */
#define QUICK_S harness_seconds(5.0)

struct run {
    pid_t pid; /* symrun, also its process group */
    int fd[2]; /* read ends of its stdout and stderr; -1 at EOF */
    char *buf[2];
    size_t len[2], cap[2];
    bool exited;
    int status;
    double started, exited_at;
    char key[SYM_JOB_KEY_LEN + 1]; /* "" if PE 0 did not print one */
};

#define OUT(r) ((r)->buf[0])
#define ERR(r) ((r)->buf[1])

static inline double elapsed(const struct run *r)
{
    return r->exited_at - r->started;
}

/* The last part of `s` that failure messages show. */
const char *tail_of(const char *s);

/* Start symrun with `args` ("@PE" stands for the PE program's path) and the
 * caller's environment, less its SYMHEAP_* settings, plus small heaps and
 * `extra_env` (NULL-terminated, or NULL), which wins over both. */
void run_start(struct run *r, const char *const *args, const char *const *extra_env);

enum pump_end { PUMP_DONE, PUMP_UNTIL, PUMP_DEADLINE, PUMP_LINGER };

typedef bool (*until_fn)(const struct run *r, const void *arg);

/* Relay output into the buffers until symrun has exited and closed both
 * pipes, `until` (or NULL) holds, the deadline passes, or the pipes stay
 * open too long after symrun's exit. */
enum pump_end run_pump(struct run *r, until_fn until, const void *arg);

/* Kill symrun and everything in its group, and reap them all. */
void run_kill(struct run *r);

/* "key <hex>": PE 0's first line. */
bool is_key_line(const char *line, size_t len);

/* Sets r->key from the key line PE 0 printed, tagged or not. */
void find_key(struct run *r);

/* Names of /dev/shm objects of job `key` (our uid) into `names` (cap bytes,
 * or 0: none); with `remove`, unlinks them too.  Returns how many. */
int job_objects(const char *key, char *names, size_t cap, bool remove);

/* Waits for symrun to end (bounded), then checks that nothing of the job is
 * left: no process of its group, and, if PE 0 named the job, no object in
 * /dev/shm.  Cleans up whatever it finds before failing. */
void run_finish(struct run *r);

void run_free(struct run *r);

/* A full job (run_start, run_finish): PE 0 must have named it. */
void run_job(struct run *r, const char *const *args, const char *const *env);

void assert_exit(const struct run *r, int code);
void assert_contains(const char *what, const char *text, const char *needle);

/* Calls fn on every line of `text` (without its newline). */
void each_line(const char *text, void (*fn)(const char *line, size_t len, void *arg), void *arg);

/* Whether `line` (len bytes, no newline) is exactly `fmt`: the format ends
 * in %n, whose pointer LINE_IS passes, and the whole line must be used. */
extern int line_end_;
__attribute__((format(scanf, 3, 4))) bool line_is_(const char *line, size_t len, const char *fmt,
                                                   ...);
#define LINE_IS(line, len, fmt, ...) line_is_((line), (len), fmt, __VA_ARGS__, &line_end_)

/* The pids the PEs printed ("pid N" lines). */
struct pid_list {
    int n;
    long pid[HARNESS_MAX_PES];
};

struct pid_list pids_of(const struct run *r);
void assert_pids_gone(const struct pid_list *l);

/* An until_fn: every one of *(const int *)arg PEs printed its pid, that is,
 * is initialised and waiting. */
bool all_pids_printed(const struct run *r, const void *arg);

/* Survivors of a lost PE print "pe X lost PE V"; check every one did, and
 * nothing else. */
void assert_survivors_saw_loss(const struct run *r, int npes, int victim);

int count_occurrences(const char *text, const char *needle);

#endif
