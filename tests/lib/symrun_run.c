/* symrun_run.c - running the symrun command as a user does (see
 * symrun_run.h). */
#include <criterion/criterion.h>
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
#include <sys/wait.h>
#include <unistd.h>

#include "symrun_run.h"

extern char **environ;

/* A run still going after this long is hung. */
#define DEADLINE_S harness_seconds(30.0)
/* Output pipes still open this long after symrun exited: a PE outlived it. */
#define LINGER_S harness_seconds(5.0)
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

const char *tail_of(const char *s)
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
        argv[i + 1] =
            strcmp(args[i], "@PE") == 0 ? (char *)tool_path("SYMRUN_PE") : (char *)args[i];
    return argv;
}

/* ------------------------------------------------------------------------ */
/* Running symrun                                                            */
/* ------------------------------------------------------------------------ */

void run_start(struct run *r, const char *const *args, const char *const *extra_env)
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

enum pump_end run_pump(struct run *r, until_fn until, const void *arg)
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
                pfd[n] = (struct pollfd){.fd = r->fd[k], .events = POLLIN};
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
void run_kill(struct run *r)
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
bool is_key_line(const char *line, size_t len)
{
    return len == 4 + SYM_JOB_KEY_LEN && strncmp(line, "key ", 4) == 0 &&
           strspn(line + 4, "0123456789abcdef") >= SYM_JOB_KEY_LEN;
}

/* The key line PE 0 prints, tagged or not. */
void find_key(struct run *r)
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
int job_objects(const char *key, char *names, size_t cap, bool remove)
{
    char prefix[128];
    int plen =
        snprintf(prefix, sizeof(prefix), "%s%u-%s-", SYM_SHM_PREFIX, (unsigned)getuid(), key);
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
void run_finish(struct run *r)
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
    cr_assert(!survivors,
              "a process of the job is still running after symrun exited\n"
              "stdout:\n%s\nstderr:\n%s",
              tail_of(OUT(r)), tail_of(ERR(r)));
    cr_assert(left == 0, "%d object(s) of job %s left in /dev/shm:%s\nstderr:\n%s", left, r->key,
              names, tail_of(ERR(r)));
}

void run_free(struct run *r)
{
    free(r->buf[0]);
    free(r->buf[1]);
    r->buf[0] = r->buf[1] = NULL;
}

/* A full job: PE 0 must have named it. */
void run_job(struct run *r, const char *const *args, const char *const *env)
{
    run_start(r, args, env);
    run_finish(r);
    cr_assert(r->key[0] != '\0', "PE 0 did not print the job key\nstdout:\n%s\nstderr:\n%s",
              tail_of(OUT(r)), tail_of(ERR(r)));
}

void assert_exit(const struct run *r, int code)
{
    char st[64];
    cr_assert(r->exited && WIFEXITED(r->status) && WEXITSTATUS(r->status) == code,
              "symrun ended with %s, expected exit %d\nstdout:\n%s\nstderr:\n%s",
              status_text(r, st, sizeof(st)), code, tail_of(OUT(r)), tail_of(ERR(r)));
}

void assert_contains(const char *what, const char *text, const char *needle)
{
    cr_assert(strstr(text, needle) != NULL, "%s does not contain \"%s\":\n%s", what, needle,
              tail_of(text));
}

/* ------------------------------------------------------------------------ */
/* Reading the PEs' output                                                   */
/* ------------------------------------------------------------------------ */

/* Calls fn on every line of `text` (without its newline). */
void each_line(const char *text, void (*fn)(const char *line, size_t len, void *arg), void *arg)
{
    while (*text) {
        const char *nl = strchr(text, '\n');
        size_t len = nl ? (size_t)(nl - text) : strlen(text);
        fn(text, len, arg);
        text += len + (nl ? 1 : 0);
    }
}

int line_end_;

bool line_is_(const char *line, size_t len, const char *fmt, ...)
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

static void collect_pid(const char *line, size_t len, void *arg)
{
    struct pid_list *l = arg;
    long pid;
    if (LINE_IS(line, len, "pid %ld%n", &pid) && l->n < HARNESS_MAX_PES)
        l->pid[l->n++] = pid;
}

struct pid_list pids_of(const struct run *r)
{
    struct pid_list l = {0};
    each_line(OUT(r) ? OUT(r) : "", collect_pid, &l);
    return l;
}

void assert_pids_gone(const struct pid_list *l)
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
    } else if (LINE_IS(line, len, "pe %d lost PE %d%n", &pe, &victim) && pe >= 0 && pe < l->npes &&
               victim == l->victim) {
        l->seen[pe]++;
    } else if (l->other++ == 0) {
        snprintf(l->other_line, sizeof(l->other_line), "%.*s", (int)len, line);
    }
}

void assert_survivors_saw_loss(const struct run *r, int npes, int victim)
{
    struct lost_lines l = {.npes = npes, .victim = victim};
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

int count_occurrences(const char *text, const char *needle)
{
    int n = 0;
    for (const char *p = text; (p = strstr(p, needle)) != NULL; p += strlen(needle))
        n++;
    return n;
}

bool all_pids_printed(const struct run *r, const void *arg)
{
    return pids_of(r).n >= *(const int *)arg;
}
