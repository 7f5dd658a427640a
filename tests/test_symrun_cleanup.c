/*
 * test_symrun_cleanup.c - what is left when a job ends badly: symrun's final
 * sweep of a dead PE's heap objects (and only of this job's), and symrun
 * itself SIGKILLed, while its PEs run or while they are inside sym_init
 * (the PEs die with it; their segments are memfds, so nothing is left).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symrun_run.h"

static void random_key(char key[SYM_JOB_KEY_LEN + 1])
{
    unsigned char raw[SYM_JOB_KEY_LEN / 2];
    cr_assert(getrandom(raw, sizeof(raw), 0) == (ssize_t)sizeof(raw));
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(key + 2 * i, 3, "%02x", raw[i]);
}

ParameterizedTestParameters(symrun, sweeps_dead_pe_objects)
{
    static int counts[] = {1, 3};
    return cr_make_param_array(int, counts, 2);
}

/* The other job's object: removed however the test ends (a failed
 * assertion or a skip leaves the test body early and skips .fini; the
 * test's worker process still exits through exit()). */
static char other[128];

static void remove_other(void)
{
    if (other[0])
        shm_unlink(other);
    other[0] = '\0';
}

/* A PE dies holding a heap object of the job it never unlinked: symrun
 * removes it afterwards, and leaves another job's object alone. */
ParameterizedTest(int *npes, symrun, sweeps_dead_pe_objects)
{
    char other_key[SYM_JOB_KEY_LEN + 1];
    random_key(other_key);
    snprintf(other, sizeof(other), "/%s%u-%s-0", SYM_SHM_PREFIX, (unsigned)getuid(), other_key);
    int fd = shm_open(other, O_CREAT | O_EXCL | O_RDWR, 0600);
    cr_assert(fd >= 0, "shm_open(%s): %s", other, strerror(errno));
    atexit(remove_other);
    close(fd);

    int victim = *npes - 1;
    char n[16], v[16];
    snprintf(n, sizeof(n), "%d", *npes);
    snprintf(v, sizeof(v), "%d", victim);
    const char *args[] = {"--grace", "20", "-n", n, "@PE", "leak-then-die", v, NULL};
    struct run r;
    run_start(&r, args, NULL);
    run_pump(&r, NULL, NULL);
    /* Looked at before run_finish, which would clean up (and fail) itself. */
    find_key(&r);
    struct stat st;
    char leaked[160];
    snprintf(leaked, sizeof(leaked), "/dev/shm/%s%u-%s-99", SYM_SHM_PREFIX, (unsigned)getuid(),
             r.key);
    bool leaked_left = r.key[0] && stat(leaked, &st) == 0;
    char other_path[160];
    snprintf(other_path, sizeof(other_path), "/dev/shm%s", other);
    bool other_kept = stat(other_path, &st) == 0;
    remove_other();
    run_finish(&r);

    cr_assert(r.key[0], "PE 0 did not print the job key\nstdout:\n%s\nstderr:\n%s",
              tail_of(OUT(&r)), tail_of(ERR(&r)));
    assert_exit(&r, 137);
    char want[64];
    snprintf(want, sizeof(want), "symrun: PE %d (pid ", victim);
    assert_contains("stderr", ERR(&r), want);
    assert_survivors_saw_loss(&r, *npes, victim);
    cr_assert(!leaked_left, "the dead PE's object %s is still there", leaked);
    cr_assert(other_kept, "symrun removed %s, which belongs to another job", other);
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* The launcher itself killed                                                */
/* ------------------------------------------------------------------------ */

/* Reap the PEs symrun left to us (we are their subreaper), each of which
 * must die of SIGKILL (PR_SET_PDEATHSIG); returns the seconds from `since`
 * until the last is gone, or fails the test after `limit` seconds. */
static double reap_orphans(const struct pid_list *pids, double since, double limit)
{
    bool gone[HARNESS_MAX_PES] = {false};
    int left = pids->n;
    double last = since;
    while (left > 0) {
        for (int i = 0; i < pids->n; i++) {
            if (gone[i])
                continue;
            int st;
            pid_t r = waitpid((pid_t)pids->pid[i], &st, WNOHANG);
            if (r == 0)
                continue;
            /* ECHILD: reaped by someone else before it came to us */
            cr_assert(r > 0 || errno == ECHILD, "waitpid(%ld): %s", pids->pid[i], strerror(errno));
            if (r > 0)
                cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                          "PE process %ld ended with status 0x%x, not SIGKILL", pids->pid[i], st);
            gone[i] = true;
            left--;
            last = harness_now();
        }
        if (left > 0 && harness_now() - since > limit) {
            for (int i = 0; i < pids->n; i++)
                if (!gone[i])
                    kill((pid_t)pids->pid[i], SIGKILL);
            cr_assert_fail("%d PE(s) still alive %.1f s after symrun was killed", left, limit);
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    return last - since;
}

/* symrun SIGKILLed while its PEs run: the PEs die with it at once (they
 * hold PR_SET_PDEATHSIG), no process of the job is left, and /dev/shm holds
 * nothing of the job (its segments are memfds, never named). */
ParameterizedTestParameters(symrun, launcher_killed)
{
    static int counts[] = {1, 4};
    return cr_make_param_array(int, counts, 2);
}

ParameterizedTest(int *npes, symrun, launcher_killed)
{
    char n[16];
    snprintf(n, sizeof(n), "%d", *npes);
    const char *args[] = {"-n", n, "@PE", "wait-signal", NULL};
    struct run r;
    run_start(&r, args, NULL);
    enum pump_end end = run_pump(&r, all_pids_printed, npes);
    if (end != PUMP_UNTIL) {
        run_kill(&r);
        cr_assert_fail("the PEs did not all start (%d)\nstdout:\n%s\nstderr:\n%s", (int)end,
                       tail_of(OUT(&r) ? OUT(&r) : ""), tail_of(ERR(&r) ? ERR(&r) : ""));
    }
    struct pid_list pids = pids_of(&r);
    find_key(&r);
    cr_assert(r.key[0], "PE 0 did not print the job key");
    double t0 = harness_now();
    kill(r.pid, SIGKILL);
    int st;
    while (waitpid(r.pid, &st, 0) < 0 && errno == EINTR)
        ;
    r.exited = true;
    r.status = st;
    double took = reap_orphans(&pids, t0, QUICK_S);
    fprintf(stderr, "symrun SIGKILLed with %d PEs running: all gone after %.1f ms\n", *npes,
            took * 1e3);
    cr_assert(kill(-r.pid, 0) != 0 && errno == ESRCH, "a process of the job's group is left");
    char names[512] = "";
    int left = job_objects(r.key, names, sizeof(names), true);
    cr_assert(left == 0, "%d object(s) of the killed job left in /dev/shm:%s", left, names);
    for (int k = 0; k < 2; k++)
        if (r.fd[k] >= 0)
            close(r.fd[k]);
    run_free(&r);
}

/* How many of the job's PEs hold their heap segment (a memfd named
 * "symheap-heap"): they are inside sym_init. */
static bool heaps_made(const struct run *r, const void *arg)
{
    struct pid_list pids = pids_of(r);
    int made = 0;
    for (int i = 0; i < pids.n; i++) {
        char dir[64], link[PATH_MAX], target[PATH_MAX];
        snprintf(dir, sizeof(dir), "/proc/%ld/fd", pids.pid[i]);
        DIR *d = opendir(dir);
        if (!d)
            continue;
        bool has = false;
        for (struct dirent *e; !has && (e = readdir(d));) {
            snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
            ssize_t n = readlink(link, target, sizeof(target) - 1);
            has = n > 0 && (target[n] = '\0', strstr(target, "memfd:symheap-heap") != NULL);
        }
        closedir(d);
        made += has;
    }
    return made >= *(const int *)arg;
}

/* symrun SIGKILLed while its PEs are inside sym_init, their heaps made and
 * waiting for a peer: the PEs die with it, and since the heaps are memfds
 * nothing of the job was ever named in /dev/shm, so nothing is left and
 * there is nothing for a later sweep to do. */
Test(symrun, launcher_killed_in_init_leaves_nothing)
{
    const int npes = 3, want = 2; /* PE 1 never enters sym_init */
    const char *args[] = {"-n", "3", "@PE", "init-hang", "1", NULL};
    struct run r;
    run_start(&r, args, NULL);
    enum pump_end end = run_pump(&r, all_pids_printed, &npes);
    if (end == PUMP_UNTIL) {
        find_key(&r);
        end = run_pump(&r, heaps_made, &want);
    }
    if (end != PUMP_UNTIL) {
        run_kill(&r);
        cr_assert_fail("the PEs did not create their heaps (%d)\nstdout:\n%s\nstderr:\n%s",
                       (int)end, tail_of(OUT(&r) ? OUT(&r) : ""), tail_of(ERR(&r) ? ERR(&r) : ""));
    }
    cr_assert(r.key[0], "PE 0 did not print the job key");
    struct pid_list pids = pids_of(&r);
    double t0 = harness_now();
    kill(r.pid, SIGKILL);
    int st;
    while (waitpid(r.pid, &st, 0) < 0 && errno == EINTR)
        ;
    double took = reap_orphans(&pids, t0, QUICK_S);
    fprintf(stderr, "symrun SIGKILLed with PEs in sym_init: all gone after %.1f ms\n", took * 1e3);
    for (int k = 0; k < 2; k++)
        if (r.fd[k] >= 0)
            close(r.fd[k]);
    char names[512] = "";
    int left = job_objects(r.key, names, sizeof(names), true);
    cr_assert(left == 0, "%d object(s) of the killed job in /dev/shm:%s", left, names);
    run_free(&r);
}
