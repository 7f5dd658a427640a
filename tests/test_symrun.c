/*
 * test_symrun.c - the symrun command as a user runs it: the real binary
 * ($SYMRUN) started as a subprocess, running the PE program symrun_pe
 * ($SYMRUN_PE), its output and exit status captured.
 *
 * Covered: command-line errors and --help/--version; jobs of 1..8 PEs doing
 * a put/get ring; the option spellings; --tag-output; exit statuses of PEs
 * that exit with an error, are killed, hang or outlive the grace period;
 * --timeout; SIGTERM/SIGINT forwarding; the final sweep of a dead PE's heap
 * objects (and only of this job's); SYMHEAP_* reaching the PEs.
 *
 * Every run is bounded: symrun gets its own process group, and one that is
 * still going after DEADLINE_S is killed with its PEs and fails the test.
 * After every run the test checks that no process of that group is left and
 * that /dev/shm holds nothing of the job (PE 0 prints the job key).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "launch/job.h"

extern char **environ;

/* A run still going after this long is hung. */
#define DEADLINE_S harness_seconds(30.0)
/* Output pipes still open this long after symrun exited: a PE outlived it. */
#define LINGER_S harness_seconds(5.0)
/* Bound for "ends by itself, quickly": such jobs normally take well under
 * half a second, and this machine has 2 cores shared with other tests. */
#define QUICK_S harness_seconds(5.0)
/* Shown in failure messages. */
#define SHOW_MAX 3000

/* Small heaps keep 8-PE jobs cheap; the library timeout stays below the
 * run deadline so a stuck wait fails inside the PE, with a message. */
static const char *const default_env[] = {
    "SYMHEAP_HEAP_SIZE=4M",
    "SYMHEAP_MAILBOX_SIZE=1M",
    "SYMHEAP_TIMEOUT=20",
    NULL,
};

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

static const char *tail_of(const char *s)
{
    size_t n = strlen(s);
    return n > SHOW_MAX ? s + n - SHOW_MAX : s;
}

static const char *status_text(const struct run *r, char *buf, size_t len)
{
    if (!r->exited)
        snprintf(buf, len, "still running");
    else if (WIFEXITED(r->status))
        snprintf(buf, len, "exit %d", WEXITSTATUS(r->status));
    else if (WIFSIGNALED(r->status))
        snprintf(buf, len, "killed by signal %d", WTERMSIG(r->status));
    else
        snprintf(buf, len, "status 0x%x", r->status);
    return buf;
}

static double elapsed(const struct run *r)
{
    return r->exited_at - r->started;
}

/* ------------------------------------------------------------------------ */
/* Environment and command line                                              */
/* ------------------------------------------------------------------------ */

static bool env_has(char **env, size_t n, const char *entry)
{
    size_t name_len = strcspn(entry, "=");
    for (size_t i = 0; i < n; i++)
        if (strncmp(env[i], entry, name_len) == 0 && env[i][name_len] == '=')
            return true;
    return false;
}

/* The test's extra entries win over the defaults; SYMHEAP_* settings of
 * whoever runs the tests (SYMHEAP_DEBUG...) are left out, so that output
 * is what the test expects. */
static char **make_env(const char *const *extra)
{
    size_t total = 0;
    for (char **e = environ; *e; e++)
        total++;
    for (size_t i = 0; extra && extra[i]; i++)
        total++;
    total += sizeof(default_env) / sizeof(default_env[0]);
    char **env = calloc(total + 1, sizeof(*env));
    cr_assert(env != NULL);
    size_t n = 0;
    for (size_t i = 0; extra && extra[i]; i++)
        if (!env_has(env, n, extra[i]))
            env[n++] = (char *)extra[i];
    for (size_t i = 0; default_env[i]; i++) {
        /* the library timeout scales with the test's own limits */
        const char *d = strncmp(default_env[i], "SYMHEAP_TIMEOUT=", 16) == 0
                            ? harness_timeout_env(strtod(default_env[i] + 16, NULL))
                            : default_env[i];
        if (!env_has(env, n, d))
            env[n++] = (char *)d;
    }
    for (char **e = environ; *e; e++)
        if (strncmp(*e, "SYMHEAP_", 8) != 0 && !env_has(env, n, *e))
            env[n++] = *e;
    env[n] = NULL;
    return env;
}

static const char *tool_path(const char *var)
{
    const char *path = getenv(var);
    cr_assert(path != NULL && path[0] != '\0',
              "%s is not set: run this test through meson, or set it to the built binary", var);
    return path;
}

/* argv for symrun: "@PE" in `args` stands for the PE program's path. */
static char **make_argv(const char *const *args)
{
    size_t n = 0;
    while (args[n])
        n++;
    char **argv = calloc(n + 2, sizeof(*argv));
    cr_assert(argv != NULL);
    argv[0] = (char *)tool_path("SYMRUN");
    for (size_t i = 0; i < n; i++)
        argv[i + 1] = strcmp(args[i], "@PE") == 0 ? (char *)tool_path("SYMRUN_PE")
                                                   : (char *)args[i];
    return argv;
}

/* ------------------------------------------------------------------------ */
/* Running symrun                                                            */
/* ------------------------------------------------------------------------ */

static void run_start(struct run *r, const char *const *args, const char *const *extra_env)
{
    memset(r, 0, sizeof(*r));
    r->fd[0] = r->fd[1] = -1;
    char **argv = make_argv(args);
    char **env = make_env(extra_env);
    int out[2], err[2];
    cr_assert(pipe2(out, O_CLOEXEC) == 0 && pipe2(err, O_CLOEXEC) == 0, "pipe2: %s",
              strerror(errno));
    /* An ignored SIGCHLD would have the kernel reap symrun behind our back. */
    signal(SIGCHLD, SIG_DFL);
    /* PEs orphaned by a symrun we had to kill come to us, to be reaped. */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    pid_t parent = getpid();
    fflush(NULL);
    r->started = harness_now();
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        /* Own group, so a hung job can be killed whole; and gone with us
         * if the test process dies (the PEs follow symrun likewise). */
        setpgid(0, 0);
        if (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != parent)
            _exit(126);
        sigset_t none;
        sigemptyset(&none);
        sigprocmask(SIG_SETMASK, &none, NULL);
        for (int sig = 1; sig < NSIG; sig++)
            if (sig != SIGKILL && sig != SIGSTOP)
                signal(sig, SIG_DFL);
        int devnull = open("/dev/null", O_RDONLY);
        if (devnull < 0 || dup2(devnull, 0) < 0 || dup2(out[1], 1) < 0 || dup2(err[1], 2) < 0)
            _exit(126);
        execve(argv[0], argv, env);
        dprintf(2, "test_symrun: cannot execute %s: %s\n", argv[0], strerror(errno));
        _exit(126);
    }
    /* Also here: whichever of the two runs first, the group exists before
     * we might signal it. */
    setpgid(pid, pid);
    r->pid = pid;
    close(out[1]);
    close(err[1]);
    r->fd[0] = out[0];
    r->fd[1] = err[0];
    free(argv);
    free(env);
}

static void buf_append(struct run *r, int k, const char *data, size_t n)
{
    if (r->len[k] + n + 1 > r->cap[k]) {
        size_t cap = r->cap[k] ? r->cap[k] : 4096;
        while (cap < r->len[k] + n + 1)
            cap *= 2;
        r->buf[k] = realloc(r->buf[k], cap);
        cr_assert(r->buf[k] != NULL);
        r->cap[k] = cap;
    }
    memcpy(r->buf[k] + r->len[k], data, n);
    r->len[k] += n;
    r->buf[k][r->len[k]] = '\0';
}

static void check_exit(struct run *r)
{
    if (r->exited)
        return;
    int st;
    if (waitpid(r->pid, &st, WNOHANG) == r->pid) {
        r->exited = true;
        r->status = st;
        r->exited_at = harness_now();
    }
}

enum pump_end { PUMP_DONE, PUMP_UNTIL, PUMP_DEADLINE, PUMP_LINGER };

typedef bool (*until_fn)(const struct run *r, const void *arg);

/* Relay output into the buffers until symrun has exited and closed both
 * pipes, `until` holds, the deadline passes, or the pipes stay open too
 * long after symrun's exit. */
static enum pump_end run_pump(struct run *r, until_fn until, const void *arg)
{
    char chunk[65536];
    double deadline = r->started + DEADLINE_S;
    for (;;) {
        check_exit(r);
        if (until && until(r, arg))
            return PUMP_UNTIL;
        if (r->exited && r->fd[0] < 0 && r->fd[1] < 0)
            return PUMP_DONE;
        double now = harness_now();
        if (now >= deadline)
            return PUMP_DEADLINE;
        if (r->exited && now - r->exited_at >= LINGER_S)
            return PUMP_LINGER;
        struct pollfd pfd[2];
        int idx[2], n = 0;
        for (int k = 0; k < 2; k++) {
            if (r->fd[k] >= 0) {
                pfd[n] = (struct pollfd){ .fd = r->fd[k], .events = POLLIN };
                idx[n++] = k;
            }
        }
        /* The timeout is also how often symrun's exit is looked for. */
        if (poll(pfd, (nfds_t)n, 10) <= 0)
            continue;
        for (int j = 0; j < n; j++) {
            if (pfd[j].revents == 0)
                continue;
            int k = idx[j];
            ssize_t got = read(r->fd[k], chunk, sizeof(chunk));
            if (got > 0) {
                buf_append(r, k, chunk, (size_t)got);
            } else if (got == 0 || errno != EINTR) {
                close(r->fd[k]);
                r->fd[k] = -1;
            }
        }
    }
}

/* Kill symrun and everything in its group, and reap them all: symrun's
 * orphans are ours (subreaper) by the time symrun is reaped. */
static void run_kill(struct run *r)
{
    kill(-r->pid, SIGKILL);
    if (!r->exited) {
        int st;
        while (waitpid(r->pid, &st, 0) < 0 && errno == EINTR)
            ;
        r->exited = true;
        r->status = st;
        r->exited_at = harness_now();
    }
    while (waitpid(-r->pid, NULL, 0) > 0 || errno == EINTR)
        ;
    for (int k = 0; k < 2; k++) {
        if (r->fd[k] >= 0)
            close(r->fd[k]);
        r->fd[k] = -1;
    }
}

/* "key <hex>": PE 0's first line. */
static bool is_key_line(const char *line, size_t len)
{
    return len == 4 + SYM_JOB_KEY_LEN && strncmp(line, "key ", 4) == 0 &&
           strspn(line + 4, "0123456789abcdef") >= SYM_JOB_KEY_LEN;
}

/* The key line PE 0 prints, tagged or not. */
static void find_key(struct run *r)
{
    const char *s = OUT(r) ? OUT(r) : "";
    while (*s && !r->key[0]) {
        size_t len = strcspn(s, "\n");
        const char *p = strncmp(s, "[0] ", 4) == 0 ? s + 4 : s;
        size_t plen = len - (size_t)(p - s);
        if (is_key_line(p, plen)) {
            memcpy(r->key, p + 4, SYM_JOB_KEY_LEN);
            r->key[SYM_JOB_KEY_LEN] = '\0';
        }
        s += len + (s[len] == '\n');
    }
}

/* Names of /dev/shm objects of job `key` (our uid) into `names`; with
 * `remove`, unlinks them too.  Returns how many. */
static int job_objects(const char *key, char *names, size_t cap, bool remove)
{
    char prefix[128];
    int plen = snprintf(prefix, sizeof(prefix), "%s%u-%s-", SYM_SHM_PREFIX, (unsigned)getuid(),
                        key);
    DIR *dir = opendir("/dev/shm");
    cr_assert(dir != NULL, "opendir /dev/shm: %s", strerror(errno));
    int count = 0;
    size_t used = 0;
    if (cap)
        names[0] = '\0';
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, prefix, (size_t)plen) != 0)
            continue;
        count++;
        if (used < cap)
            used += (size_t)snprintf(names + used, cap - used, " %s", de->d_name);
        if (remove) {
            char name[300];
            snprintf(name, sizeof(name), "/%s", de->d_name);
            shm_unlink(name);
        }
    }
    closedir(dir);
    return count;
}

/* Waits for symrun to end (bounded), then checks that nothing of the job is
 * left: no process of its group, and, if PE 0 named the job, no object in
 * /dev/shm.  Cleans up whatever it finds before failing. */
static void run_finish(struct run *r)
{
    enum pump_end end = run_pump(r, NULL, NULL);
    if (end != PUMP_DONE) {
        char st[64];
        status_text(r, st, sizeof(st));
        run_kill(r);
        find_key(r);
        if (r->key[0])
            job_objects(r->key, NULL, 0, true);
        cr_assert_fail("%s\nstdout:\n%s\nstderr:\n%s",
                       end == PUMP_DEADLINE
                           ? "symrun did not finish within the deadline (killed it and its PEs)"
                           : "symrun exited, but its output stayed open: a PE outlived it",
                       tail_of(OUT(r) ? OUT(r) : ""), tail_of(ERR(r) ? ERR(r) : ""));
    }
    if (!OUT(r))
        buf_append(r, 0, "", 0);
    if (!ERR(r))
        buf_append(r, 1, "", 0);
    /* symrun has been reaped: any member of its group left is a PE (or a
     * child of one) that outlived the launcher. */
    bool survivors = kill(-r->pid, 0) == 0;
    if (survivors)
        run_kill(r);
    find_key(r);
    char names[512] = "";
    int left = r->key[0] ? job_objects(r->key, names, sizeof(names), true) : 0;
    cr_assert(!survivors, "a process of the job is still running after symrun exited\n"
              "stdout:\n%s\nstderr:\n%s", tail_of(OUT(r)), tail_of(ERR(r)));
    cr_assert(left == 0, "%d object(s) of job %s left in /dev/shm:%s\nstderr:\n%s", left,
              r->key, names, tail_of(ERR(r)));
}

static void run_free(struct run *r)
{
    free(r->buf[0]);
    free(r->buf[1]);
    r->buf[0] = r->buf[1] = NULL;
}

/* A full job: PE 0 must have named it. */
static void run_job(struct run *r, const char *const *args, const char *const *env)
{
    run_start(r, args, env);
    run_finish(r);
    cr_assert(r->key[0] != '\0', "PE 0 did not print the job key\nstdout:\n%s\nstderr:\n%s",
              tail_of(OUT(r)), tail_of(ERR(r)));
}

static void assert_exit(const struct run *r, int code)
{
    char st[64];
    cr_assert(r->exited && WIFEXITED(r->status) && WEXITSTATUS(r->status) == code,
              "symrun ended with %s, expected exit %d\nstdout:\n%s\nstderr:\n%s",
              status_text(r, st, sizeof(st)), code, tail_of(OUT(r)), tail_of(ERR(r)));
}

static void assert_contains(const char *what, const char *text, const char *needle)
{
    cr_assert(strstr(text, needle) != NULL, "%s does not contain \"%s\":\n%s", what, needle,
              tail_of(text));
}

/* ------------------------------------------------------------------------ */
/* Reading the PEs' output                                                   */
/* ------------------------------------------------------------------------ */

/* Calls fn on every line of `text` (without its newline). */
static void each_line(const char *text, void (*fn)(const char *line, size_t len, void *arg),
                      void *arg)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        fn(text, len, arg);
        text += len + (nl ? 1 : 0);
    }
}

/* Whether `line` (len bytes, no newline) is exactly `fmt`: the format ends
 * in %n, whose pointer LINE_IS passes, and the whole line must be used. */
static int line_end_;

__attribute__((format(scanf, 3, 4))) static bool line_is_(const char *line, size_t len,
                                                         const char *fmt, ...)
{
    char copy[256];
    if (len >= sizeof(copy))
        return false;
    memcpy(copy, line, len);
    copy[len] = '\0';
    line_end_ = -1;
    va_list ap;
    va_start(ap, fmt);
    vsscanf(copy, fmt, ap);
    va_end(ap);
    return line_end_ >= 0 && (size_t)line_end_ == len;
}

#define LINE_IS(line, len, fmt, ...) line_is_((line), (len), fmt, __VA_ARGS__, &line_end_)

struct pid_list {
    int n;
    long pid[HARNESS_MAX_PES];
};

static void collect_pid(const char *line, size_t len, void *arg)
{
    struct pid_list *l = arg;
    long pid;
    if (LINE_IS(line, len, "pid %ld%n", &pid) && l->n < HARNESS_MAX_PES)
        l->pid[l->n++] = pid;
}

static struct pid_list pids_of(const struct run *r)
{
    struct pid_list l = { 0 };
    each_line(OUT(r) ? OUT(r) : "", collect_pid, &l);
    return l;
}

static void assert_pids_gone(const struct pid_list *l)
{
    for (int i = 0; i < l->n; i++) {
        errno = 0;
        int rc = kill((pid_t)l->pid[i], 0);
        cr_assert(rc == -1 && errno == ESRCH, "PE process %ld still exists after symrun exited",
                  l->pid[i]);
    }
}

/* Survivors of a lost PE print "pe X lost PE V"; check every one did. */
struct lost_lines {
    int npes, victim;
    int seen[HARNESS_MAX_PES];
    int keys, other;
    char other_line[200];
};

static void collect_lost(const char *line, size_t len, void *arg)
{
    struct lost_lines *l = arg;
    int pe, victim;
    if (is_key_line(line, len)) {
        l->keys++;
    } else if (LINE_IS(line, len, "pe %d lost PE %d%n", &pe, &victim) && pe >= 0 &&
               pe < l->npes && victim == l->victim) {
        l->seen[pe]++;
    } else if (l->other++ == 0) {
        snprintf(l->other_line, sizeof(l->other_line), "%.*s", (int)len, line);
    }
}

static void assert_survivors_saw_loss(const struct run *r, int npes, int victim)
{
    struct lost_lines l = { .npes = npes, .victim = victim };
    each_line(OUT(r), collect_lost, &l);
    cr_assert(l.other == 0, "unexpected output line \"%s\"\nstdout:\n%s", l.other_line,
              tail_of(OUT(r)));
    cr_assert_eq(l.keys, 1, "%d key lines", l.keys);
    for (int pe = 0; pe < npes; pe++)
        cr_assert_eq(l.seen[pe], pe == victim ? 0 : 1,
                     "PE %d reported the loss of PE %d %d times\nstdout:\n%s\nstderr:\n%s", pe,
                     victim, l.seen[pe], tail_of(OUT(r)), tail_of(ERR(r)));
    /* symrun_pe's own complaints would mean a survivor checked and failed. */
    cr_assert(strstr(ERR(r), "symrun_pe:") == NULL, "a PE failed a check:\n%s", tail_of(ERR(r)));
}

static int count_occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

/* ------------------------------------------------------------------------ */
/* Command line errors, --help, --version                                    */
/* ------------------------------------------------------------------------ */

struct usage_case {
    const char *args[8];
    const char *message;
};

static const struct usage_case usage_cases[] = {
    { { NULL }, "missing -n N, the number of PEs to start" },
    { { "-n", "0", "@PE", "ring", NULL }, "-n needs a positive number, got '0'" },
    { { "-n", "abc", "@PE", "ring", NULL }, "-n needs a positive number, got 'abc'" },
    { { "-n", "-3", "@PE", "ring", NULL }, "-n needs a positive number, got '-3'" },
    { { "-n", "2x", "@PE", "ring", NULL }, "-n needs a positive number, got '2x'" },
    { { "-n", "5000", "@PE", "ring", NULL }, "-n must be at most 4096, got '5000'" },
    { { "-np", "99999999999999999999", "@PE", "ring", NULL }, "-np must be at most 4096" },
    { { "-n", "2", NULL }, "missing program to run" },
    { { "-n", "2", "--", NULL }, "missing program to run" },
    { { "@PE", "ring", NULL }, "missing -n N" },
    { { "--bogus", "-n", "2", "@PE", "ring", NULL }, "unknown option '--bogus'" },
    { { "-n", "2", "-x", "@PE", "ring", NULL }, "unknown option '-x'" },
    { { "-n", NULL }, "-n needs a value" },
    { { "-n", "2", "--timeout", "soon", "@PE", "ring", NULL },
      "--timeout needs a number of seconds from 0 to 1e9, got 'soon'" },
    { { "-n", "2", "--grace=-1", "@PE", "ring", NULL },
      "--grace needs a number of seconds from 0 to 1e9, got '-1'" },
    { { "-n", "2", "--transport", "carrier", "@PE", "ring", NULL },
      "--transport must be ofi, shm or auto, got 'carrier'" },
    { { "-n", "2", "--transport", NULL }, "--transport needs a value" },
};
#define N_USAGE_CASES ((int)(sizeof(usage_cases) / sizeof(usage_cases[0])))

ParameterizedTestParameters(symrun, usage_error)
{
    static int idx[N_USAGE_CASES];
    for (int i = 0; i < N_USAGE_CASES; i++)
        idx[i] = i;
    return cr_make_param_array(int, idx, N_USAGE_CASES);
}

/* Exit 2, one message naming the problem and pointing at --help, and no PE
 * started (nothing on stdout: PE 0 would have printed the key). */
ParameterizedTest(int *which, symrun, usage_error)
{
    const struct usage_case *c = &usage_cases[*which];
    struct run r;
    run_start(&r, c->args, NULL);
    run_finish(&r);
    assert_exit(&r, 2);
    cr_assert_str_empty(OUT(&r), "case %d printed on stdout:\n%s", *which, OUT(&r));
    assert_contains("stderr", ERR(&r), c->message);
    cr_assert(strncmp(ERR(&r), "symrun: ", 8) == 0, "message without the program name: %s",
              ERR(&r));
    assert_contains("stderr", ERR(&r), "Try 'symrun --help'");
    run_free(&r);
}

static void check_help(const char *opt)
{
    const char *args[] = { opt, NULL };
    struct run r;
    run_start(&r, args, NULL);
    run_finish(&r);
    assert_exit(&r, 0);
    cr_assert_str_empty(ERR(&r), "%s wrote on stderr:\n%s", opt, ERR(&r));
    cr_assert(strncmp(OUT(&r), "Usage: symrun -n N", 18) == 0, "%s printed:\n%s", opt, OUT(&r));
    static const char *const mentions[] = { "-np", "--npes", "--tag-output", "--timeout",
                                            "--grace", "--version", "124", NULL };
    for (int i = 0; mentions[i]; i++)
        assert_contains("the usage text", OUT(&r), mentions[i]);
    run_free(&r);
}

Test(symrun, help)
{
    check_help("--help");
    check_help("-h");
}

/* --help wins over the rest of the command line, even broken parts after it. */
Test(symrun, help_stops_parsing)
{
    const char *args[] = { "--help", "-n", "0", NULL };
    struct run r;
    run_start(&r, args, NULL);
    run_finish(&r);
    assert_exit(&r, 0);
    cr_assert(strncmp(OUT(&r), "Usage: symrun", 13) == 0, "stdout:\n%s", OUT(&r));
    run_free(&r);
}

/* The command reports the version of the library it belongs to. */
Test(symrun, version)
{
    const char *args[] = { "--version", NULL };
    struct run r;
    run_start(&r, args, NULL);
    run_finish(&r);
    assert_exit(&r, 0);
    char want[64];
    snprintf(want, sizeof(want), "symrun (symheap) %d.%d.%d\n", SYMHEAP_VERSION_MAJOR,
             SYMHEAP_VERSION_MINOR, SYMHEAP_VERSION_PATCH);
    cr_assert_str_eq(OUT(&r), want);
    cr_assert_str_empty(ERR(&r));
    run_free(&r);
}

/* A program that cannot be executed: one message (not one per PE) and the
 * shell's 127. */
Test(symrun, program_not_found)
{
    const char *args[] = { "-n", "3", "/nonexistent/symrun-test-program", NULL };
    struct run r;
    run_start(&r, args, NULL);
    run_finish(&r);
    assert_exit(&r, 127);
    cr_assert_eq(count_occurrences(ERR(&r), "cannot execute '/nonexistent/symrun-test-program'"),
                 1, "stderr:\n%s", ERR(&r));
    cr_assert_str_empty(OUT(&r));
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Jobs that succeed                                                         */
/* ------------------------------------------------------------------------ */

struct ring_lines {
    int npes;
    int seen[HARNESS_MAX_PES];
    int keys, other;
    char other_line[200];
};

static void collect_ring(const char *line, size_t len, void *arg)
{
    struct ring_lines *l = arg;
    int pe, n;
    if (is_key_line(line, len))
        l->keys++;
    else if (LINE_IS(line, len, "pe %d of %d ok%n", &pe, &n) && n == l->npes && pe >= 0 &&
             pe < n)
        l->seen[pe]++;
    else if (l->other++ == 0)
        snprintf(l->other_line, sizeof(l->other_line), "%.*s", (int)len, line);
}

/* Exactly one "pe X of N ok" per PE, in any order, the key, nothing else. */
static void assert_ring_ok(const struct run *r, int npes)
{
    assert_exit(r, 0);
    struct ring_lines l = { .npes = npes };
    each_line(OUT(r), collect_ring, &l);
    cr_assert(l.other == 0, "unexpected line \"%s\"\nstdout:\n%s", l.other_line, tail_of(OUT(r)));
    cr_assert_eq(l.keys, 1, "%d key lines\nstdout:\n%s", l.keys, tail_of(OUT(r)));
    for (int pe = 0; pe < npes; pe++)
        cr_assert_eq(l.seen[pe], 1, "PE %d of %d reported %d times\nstdout:\n%s", pe, npes,
                     l.seen[pe], tail_of(OUT(r)));
    cr_assert_str_empty(ERR(r), "stderr:\n%s", ERR(r));
}

ParameterizedTestParameters(symrun, ring)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, symrun, ring)
{
    char n[16];
    snprintf(n, sizeof(n), "%d", *npes);
    const char *args[] = { "-n", n, "@PE", "ring", NULL };
    struct run r;
    run_job(&r, args, NULL);
    assert_ring_ok(&r, *npes);
    run_free(&r);
}

/* --transport sets SYMHEAP_TRANSPORT for the PEs: with ofi every peer goes
 * through libfabric (the debug log says so), with shm none does; the ring
 * checks the data either way. */
ParameterizedTestParameters(symrun, transport)
{
    static int which[] = { 0, 1 };
    return cr_make_param_array(int, which, 2);
}

ParameterizedTest(int *which, symrun, transport)
{
    const char *t = *which ? "--transport=shm" : "--transport=ofi";
    const char *args[] = { "-n", "2", t, "@PE", "ring", NULL };
    const char *env[] = { "SYMHEAP_DEBUG=1", NULL };
    struct run r;
    run_job(&r, args, env);
    assert_exit(&r, 0); /* stderr has the debug log: not assert_ring_ok */
    assert_contains("stdout", OUT(&r), "pe 0 of 2 ok");
    assert_contains("stdout", OUT(&r), "pe 1 of 2 ok");
    if (*which)
        cr_assert(!strstr(ERR(&r), "ofi transport on provider"),
                  "--transport=shm used ofi:\n%s", tail_of(ERR(&r)));
    else
        assert_contains("stderr", ERR(&r), "ofi transport on provider");
    run_free(&r);
}

/* The other spellings of the PE count (OpenSHMEM's -np among them), the
 * "--" separator, and limits that a quick job does not reach. */
struct spelling {
    const char *args[10];
    int npes;
};

static const struct spelling spellings[] = {
    { { "-np", "4", "@PE", "ring", NULL }, 4 },
    { { "--npes", "3", "@PE", "ring", NULL }, 3 },
    { { "--npes=2", "@PE", "ring", NULL }, 2 },
    { { "-n", "2", "--", "@PE", "ring", NULL }, 2 },
    { { "--timeout", "60", "--grace=1", "-np", "3", "@PE", "ring", NULL }, 3 },
    { { "--timeout=0", "--grace", "0", "-n", "1", "@PE", "ring", NULL }, 1 },
};
#define N_SPELLINGS ((int)(sizeof(spellings) / sizeof(spellings[0])))

ParameterizedTestParameters(symrun, spellings)
{
    static int idx[N_SPELLINGS];
    for (int i = 0; i < N_SPELLINGS; i++)
        idx[i] = i;
    return cr_make_param_array(int, idx, N_SPELLINGS);
}

ParameterizedTest(int *which, symrun, spellings)
{
    struct run r;
    run_job(&r, spellings[*which].args, NULL);
    assert_ring_ok(&r, spellings[*which].npes);
    run_free(&r);
}

/* --tag-output: every line of stdout and stderr, the unterminated last one
 * included, carries the prefix of the PE that wrote it, and one PE's lines
 * keep their order. */
struct tagged_lines {
    int npes;
    int next[HARNESS_MAX_PES]; /* stdout: how many of the PE's lines seen */
    int errs[HARNESS_MAX_PES];
    int keys;
    char bad[400];
};

static void collect_tagged_out(const char *line, size_t len, void *arg)
{
    struct tagged_lines *l = arg;
    int tag, pe, n, consumed = -1;
    char copy[256];
    snprintf(copy, sizeof(copy), "%.*s", (int)len, line);
    if (sscanf(copy, "[%d]%n", &tag, &consumed) < 1 || consumed < 0 || copy[consumed] != ' ' ||
        tag < 0 || tag >= l->npes) {
        if (!l->bad[0])
            snprintf(l->bad, sizeof(l->bad), "untagged line \"%s\"", copy);
        return;
    }
    const char *body = copy + consumed + 1;
    size_t blen = strlen(body);
    bool ok;
    if (is_key_line(body, blen)) {
        ok = tag == 0 && l->keys++ == 0;
    } else {
        /* The PE's lines in the order it wrote them. */
        static const char *const order[] = { "of", "line a", "line b", "tail" };
        int step = l->next[tag];
        ok = false;
        if (step == 0)
            ok = LINE_IS(body, blen, "pe %d of %d ok%n", &pe, &n) && pe == tag && n == l->npes;
        else if (step < 4) {
            char want[64];
            snprintf(want, sizeof(want), "pe %d %s", tag, order[step]);
            ok = strcmp(body, want) == 0;
        }
        l->next[tag]++;
    }
    if (!ok && !l->bad[0])
        snprintf(l->bad, sizeof(l->bad), "line \"%s\" is not what PE %d writes at that point",
                 copy, tag);
}

static void collect_tagged_err(const char *line, size_t len, void *arg)
{
    struct tagged_lines *l = arg;
    int tag, pe;
    if (LINE_IS(line, len, "[%d] pe %d err%n", &tag, &pe) && tag == pe && tag >= 0 &&
        tag < l->npes)
        l->errs[tag]++;
    else if (!l->bad[0])
        snprintf(l->bad, sizeof(l->bad), "stderr line \"%.*s\"", (int)len, line);
}

ParameterizedTestParameters(symrun, tag_output)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, symrun, tag_output)
{
    char n[16];
    snprintf(n, sizeof(n), "%d", *npes);
    const char *args[] = { "--tag-output", "-n", n, "@PE", "ring-tagged", NULL };
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 0);
    struct tagged_lines l = { .npes = *npes };
    each_line(OUT(&r), collect_tagged_out, &l);
    each_line(ERR(&r), collect_tagged_err, &l);
    cr_assert(!l.bad[0], "%s\nstdout:\n%s\nstderr:\n%s", l.bad, tail_of(OUT(&r)),
              tail_of(ERR(&r)));
    cr_assert_eq(l.keys, 1);
    for (int pe = 0; pe < *npes; pe++) {
        cr_assert_eq(l.next[pe], 4, "PE %d: %d stdout lines, expected 4\nstdout:\n%s", pe,
                     l.next[pe], tail_of(OUT(&r)));
        cr_assert_eq(l.errs[pe], 1, "PE %d: %d stderr lines\nstderr:\n%s", pe, l.errs[pe],
                     tail_of(ERR(&r)));
    }
    /* Tagging relays output through symrun: its stdout must still end with
     * a complete line although the PEs' did not. */
    cr_assert(OUT(&r)[strlen(OUT(&r)) - 1] == '\n', "stdout does not end with a newline");
    run_free(&r);
}

/* SYMHEAP_* settings in symrun's environment reach every PE: the heap size
 * shows in sym_heap_free (two sizes, so a default cannot pass for it). */
struct heap_lines {
    size_t want;
    int npes;
    int seen[HARNESS_MAX_PES];
    char bad[200];
};

static void collect_heap(const char *line, size_t len, void *arg)
{
    struct heap_lines *l = arg;
    int pe;
    size_t free_bytes, largest;
    if (is_key_line(line, len))
        return;
    if (LINE_IS(line, len, "pe %d free %zu largest %zu%n", &pe, &free_bytes, &largest) &&
        pe >= 0 && pe < l->npes && free_bytes == l->want && largest == l->want)
        l->seen[pe]++;
    else if (!l->bad[0])
        snprintf(l->bad, sizeof(l->bad), "\"%.*s\" (expected %zu free bytes)", (int)len, line,
                 l->want);
}

ParameterizedTestParameters(symrun, environment)
{
    static int mib[] = { 3, 5 };
    return cr_make_param_array(int, mib, 2);
}

ParameterizedTest(int *mib, symrun, environment)
{
    char setting[64];
    snprintf(setting, sizeof(setting), "SYMHEAP_HEAP_SIZE=%dM", *mib);
    const char *env[] = { setting, NULL };
    const char *args[] = { "-n", "3", "@PE", "heapfree", NULL };
    struct run r;
    run_job(&r, args, env);
    assert_exit(&r, 0);
    struct heap_lines l = { .want = (size_t)*mib << 20, .npes = 3 };
    each_line(OUT(&r), collect_heap, &l);
    cr_assert(!l.bad[0], "%s\nstdout:\n%s\nstderr:\n%s", l.bad, tail_of(OUT(&r)),
              tail_of(ERR(&r)));
    for (int pe = 0; pe < 3; pe++)
        cr_assert_eq(l.seen[pe], 1, "PE %d reported %d times\nstdout:\n%s", pe, l.seen[pe],
                     tail_of(OUT(&r)));
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* Failing PEs                                                               */
/* ------------------------------------------------------------------------ */

ParameterizedTestParameters(symrun, pe_exit_status)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

/* One PE exits 3 without finalizing: symrun exits 3 and names it; the
 * others learn of it in their barrier and end by themselves. */
ParameterizedTest(int *npes, symrun, pe_exit_status)
{
    int victim = *npes / 2;
    char n[16], v[16];
    snprintf(n, sizeof(n), "%d", *npes);
    snprintf(v, sizeof(v), "%d", victim);
    const char *args[] = { "--grace", "20", "-n", n, "@PE", "exit", v, "3", NULL };
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 3);
    char want[64];
    snprintf(want, sizeof(want), "symrun: PE %d (pid ", victim);
    assert_contains("stderr", ERR(&r), want);
    assert_contains("stderr", ERR(&r), ") exited with status 3");
    assert_survivors_saw_loss(&r, *npes, victim);
    cr_assert(elapsed(&r) < QUICK_S, "the job took %.2f s", elapsed(&r));
    run_free(&r);
}

ParameterizedTestParameters(symrun, pe_killed)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

/* One PE is SIGKILLed: symrun exits 128 + 9 and says so; the survivors,
 * waiting in a barrier, get SYM_ERR_PEER_LOST and exit on their own long
 * before the grace period would have them killed. */
ParameterizedTest(int *npes, symrun, pe_killed)
{
    int victim = *npes - 1;
    char n[16], v[16];
    snprintf(n, sizeof(n), "%d", *npes);
    snprintf(v, sizeof(v), "%d", victim);
    const char *args[] = { "--grace", "20", "-n", n, "@PE", "die", v, NULL };
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 137);
    char want[96];
    snprintf(want, sizeof(want), "symrun: PE %d (pid ", victim);
    assert_contains("stderr", ERR(&r), want);
    assert_contains("stderr", ERR(&r), ") killed by signal 9");
    cr_assert(strstr(ERR(&r), "grace period") == NULL, "survivors were killed:\n%s",
              tail_of(ERR(&r)));
    assert_survivors_saw_loss(&r, *npes, victim);
    cr_assert(elapsed(&r) < QUICK_S, "the job took %.2f s (grace period 20 s)", elapsed(&r));
    run_free(&r);
}

ParameterizedTestParameters(symrun, grace_period)
{
    static int counts[] = { 2, 3, 4, 8 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

/* After a death, survivors that never notice it (they wait outside the
 * library) are killed once the grace period is over, and the job still
 * reports the first failure. */
ParameterizedTest(int *npes, symrun, grace_period)
{
    int victim = 0;
    char n[16];
    snprintf(n, sizeof(n), "%d", *npes);
    const char *args[] = { "--grace", "1", "-n", n, "@PE", "die-hang", "0", NULL };
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 137);
    char want[96];
    snprintf(want, sizeof(want), "symrun: PE %d (pid ", victim);
    assert_contains("stderr", ERR(&r), want);
    snprintf(want, sizeof(want), "killing %d PE(s) still running after the grace period",
             *npes - 1);
    assert_contains("stderr", ERR(&r), want);
    struct pid_list pids = pids_of(&r);
    cr_assert_eq(pids.n, *npes - 1, "%d survivors printed their pid\nstdout:\n%s", pids.n,
                 tail_of(OUT(&r)));
    assert_pids_gone(&pids);
    cr_assert(elapsed(&r) >= 1.0 && elapsed(&r) < 1.0 + QUICK_S,
              "the job took %.2f s with a 1 s grace period", elapsed(&r));
    run_free(&r);
}

/* A PE that hangs after the others finished: --timeout ends the job with
 * 124 shortly after the limit and the PE is gone, whether it dies of the
 * SIGTERM ("hang") or ignores it and must be killed ("hang-hard"). */
struct hang_case {
    const char *mode;
    int npes;
};

static const struct hang_case hang_cases[] = {
    { "hang", 1 }, { "hang", 3 }, { "hang-hard", 1 }, { "hang-hard", 4 },
};

ParameterizedTestParameters(symrun, timeout)
{
    static int idx[] = { 0, 1, 2, 3 };
    return cr_make_param_array(int, idx, sizeof(idx) / sizeof(idx[0]));
}

ParameterizedTest(int *which, symrun, timeout)
{
    const struct hang_case *c = &hang_cases[*which];
    char n[16], v[16];
    snprintf(n, sizeof(n), "%d", c->npes);
    snprintf(v, sizeof(v), "%d", c->npes - 1);
    /* the limit leaves the PEs time to start: scaled for slow builds */
    char limit[32], want[64];
    snprintf(limit, sizeof(limit), "%g", harness_seconds(2.0));
    snprintf(want, sizeof(want), "symrun: job timed out after %s s", limit);
    const char *args[] = { "--timeout", limit, "-n", n, "@PE", c->mode, v, NULL };
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 124);
    assert_contains("stderr", ERR(&r), want);
    struct pid_list pids = pids_of(&r);
    cr_assert_eq(pids.n, 1, "%d PEs printed a pid\nstdout:\n%s", pids.n, tail_of(OUT(&r)));
    assert_pids_gone(&pids);
    cr_assert(elapsed(&r) >= harness_seconds(2.0) && elapsed(&r) < harness_seconds(2.0) + QUICK_S,
              "the job took %.2f s with --timeout %s", elapsed(&r), limit);
    run_free(&r);
}

/* SIGTERM or SIGINT sent to symrun reaches every PE; symrun exits 128 +
 * the signal, promptly, and no PE is left.  PEs that ignore the signal
 * ("hard") are killed once the grace period (1 s) is over. */
struct signal_case {
    int sig;
    int npes;
    bool hard;
};

static const struct signal_case signal_cases[] = {
    { SIGTERM, 1, false }, { SIGTERM, 4, false }, { SIGTERM, 8, false },
    { SIGINT, 3, false },  { SIGTERM, 3, true },  { SIGINT, 2, true },
};

ParameterizedTestParameters(symrun, forwards_signal)
{
    static int idx[] = { 0, 1, 2, 3, 4, 5 };
    return cr_make_param_array(int, idx, sizeof(idx) / sizeof(idx[0]));
}

static bool all_pids_printed(const struct run *r, const void *arg)
{
    return pids_of(r).n >= *(const int *)arg;
}

ParameterizedTest(int *which, symrun, forwards_signal)
{
    const struct signal_case *c = &signal_cases[*which];
    char n[16];
    snprintf(n, sizeof(n), "%d", c->npes);
    /* Without forwarding, only the grace period would end the others. */
    const char *args[] = { "--grace", c->hard ? "1" : "20", "-n", n, "@PE",
                           c->hard ? "wait-signal-hard" : "wait-signal", NULL };
    struct run r;
    run_start(&r, args, NULL);
    /* Every PE is initialised and waiting once it printed its pid. */
    enum pump_end end = run_pump(&r, all_pids_printed, &c->npes);
    if (end != PUMP_UNTIL) {
        run_kill(&r);
        cr_assert_fail("the PEs did not all start (%d)\nstdout:\n%s\nstderr:\n%s", (int)end,
                       tail_of(OUT(&r) ? OUT(&r) : ""), tail_of(ERR(&r) ? ERR(&r) : ""));
    }
    double sent = harness_now();
    kill(r.pid, c->sig);
    run_finish(&r);
    assert_exit(&r, 128 + c->sig);
    struct pid_list pids = pids_of(&r);
    cr_assert_eq(pids.n, c->npes, "%d pid lines from %d PEs\nstdout:\n%s\nstderr:\n%s", pids.n,
                 c->npes, tail_of(OUT(&r) ? OUT(&r) : ""), tail_of(ERR(&r) ? ERR(&r) : ""));
    assert_pids_gone(&pids);
    double took = r.exited_at - sent;
    if (c->hard)
        cr_assert(took >= 1.0 && took < 1.0 + QUICK_S,
                  "symrun took %.2f s to end after signal %d (grace period 1 s)", took, c->sig);
    else
        cr_assert(took < harness_seconds(3.0), "symrun took %.2f s to end after signal %d", took, c->sig);
    run_free(&r);
}

/* ------------------------------------------------------------------------ */
/* The final sweep of /dev/shm                                               */
/* ------------------------------------------------------------------------ */

static void random_key(char key[SYM_JOB_KEY_LEN + 1])
{
    unsigned char raw[SYM_JOB_KEY_LEN / 2];
    cr_assert(getrandom(raw, sizeof(raw), 0) == (ssize_t)sizeof(raw));
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(key + 2 * i, 3, "%02x", raw[i]);
}

ParameterizedTestParameters(symrun, sweeps_dead_pe_objects)
{
    static int counts[] = { 1, 3 };
    return cr_make_param_array(int, counts, 2);
}

/* A PE dies holding a heap object of the job it never unlinked: symrun
 * removes it afterwards, and leaves another job's object alone. */
ParameterizedTest(int *npes, symrun, sweeps_dead_pe_objects)
{
    char other_key[SYM_JOB_KEY_LEN + 1], other[128];
    random_key(other_key);
    snprintf(other, sizeof(other), "/%s%u-%s-0", SYM_SHM_PREFIX, (unsigned)getuid(), other_key);
    int fd = shm_open(other, O_CREAT | O_EXCL | O_RDWR, 0600);
    cr_assert(fd >= 0, "shm_open(%s): %s", other, strerror(errno));
    close(fd);

    int victim = *npes - 1;
    char n[16], v[16];
    snprintf(n, sizeof(n), "%d", *npes);
    snprintf(v, sizeof(v), "%d", victim);
    const char *args[] = { "--grace", "20", "-n", n, "@PE", "leak-then-die", v, NULL };
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
    shm_unlink(other);
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
    bool gone[HARNESS_MAX_PES] = { false };
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
            cr_assert(r > 0 || errno == ECHILD, "waitpid(%ld): %s", pids->pid[i],
                      strerror(errno));
            if (r > 0)
                cr_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL,
                          "PE process %ld ended with status 0x%x, not SIGKILL", pids->pid[i],
                          st);
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
        struct timespec ts = { 0, 1000000 };
        nanosleep(&ts, NULL);
    }
    return last - since;
}

/* symrun SIGKILLed while its PEs run: the PEs die with it at once (they
 * hold PR_SET_PDEATHSIG), no process of the job is left, and /dev/shm holds
 * nothing of the job (its objects were unlinked once every PE mapped them). */
ParameterizedTestParameters(symrun, launcher_killed)
{
    static int counts[] = { 1, 4 };
    return cr_make_param_array(int, counts, 2);
}

ParameterizedTest(int *npes, symrun, launcher_killed)
{
    char n[16];
    snprintf(n, sizeof(n), "%d", *npes);
    const char *args[] = { "-n", n, "@PE", "wait-signal", NULL };
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

static bool job_has_objects(const struct run *r, const void *arg)
{
    struct run *rr = (struct run *)r;
    find_key(rr);
    return rr->key[0] && job_objects(rr->key, NULL, 0, false) >= *(const int *)arg;
}

/* symrun SIGKILLed while its PEs are inside sym_init, their heap objects
 * still named in /dev/shm: the PEs die with it before they can unlink them,
 * so the objects are left -- and the next symrun removes them at its start
 * (their owner, the dead launcher, is named in them). */
Test(symrun, launcher_killed_in_init_then_swept)
{
    const int npes = 3, want = 2; /* PE 1 never enters sym_init */
    const char *args[] = { "-n", "3", "@PE", "init-hang", "1", NULL };
    struct run r;
    run_start(&r, args, NULL);
    enum pump_end end = run_pump(&r, all_pids_printed, &npes);
    if (end == PUMP_UNTIL)
        end = run_pump(&r, job_has_objects, &want);
    if (end != PUMP_UNTIL) {
        run_kill(&r);
        cr_assert_fail("the PEs did not create their heaps (%d)\nstdout:\n%s\nstderr:\n%s",
                       (int)end, tail_of(OUT(&r) ? OUT(&r) : ""),
                       tail_of(ERR(&r) ? ERR(&r) : ""));
    }
    struct pid_list pids = pids_of(&r);
    double t0 = harness_now();
    kill(r.pid, SIGKILL);
    int st;
    while (waitpid(r.pid, &st, 0) < 0 && errno == EINTR)
        ;
    double took = reap_orphans(&pids, t0, QUICK_S);
    int leaked = job_objects(r.key, NULL, 0, false);
    fprintf(stderr, "symrun SIGKILLed with PEs in sym_init: all gone after %.1f ms, %d heap "
            "object(s) left for the sweep\n", took * 1e3, leaked);
    for (int k = 0; k < 2; k++)
        if (r.fd[k] >= 0)
            close(r.fd[k]);

    /* the next job's symrun sweeps them */
    struct run next;
    const char *ring[] = { "-n", "1", "@PE", "ring", NULL };
    run_job(&next, ring, NULL);
    assert_exit(&next, 0);
    char names[512] = "";
    int left = job_objects(r.key, names, sizeof(names), true);
    cr_assert(left == 0, "%d object(s) of the killed job survived the next symrun:%s", left,
              names);
    run_free(&next);
    run_free(&r);
}
