/* boot_jobs.c - see boot_jobs.h. */
#include "boot_jobs.h"

#include <criterion/criterion.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static const char *const default_env[] = {
    "SYMHEAP_HEAP_SIZE=16M",
    "SYMHEAP_MAILBOX_SIZE=1M",
    "SYMHEAP_TIMEOUT=20",
    /* tcp rendezvous jobs need one; the others ignore it */
    "SYMHEAP_JOB_SECRET=" BJOB_SECRET,
    NULL,
};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void bjob_init(struct bjob *j, int n)
{
    cr_assert(n >= 1 && n <= BJOB_MAX, "bjob_init: %d PEs", n);
    memset(j, 0, sizeof(*j));
    j->n = n;
}

/* The child's environment: the caller's without SYMHEAP_*, then the
 * defaults, then `extra` (later entries win: putenv order). */
static void child_env(const char *const *extra)
{
    for (char **e = environ; *e;) {
        if (!strncmp(*e, "SYMHEAP_", 8)) {
            char name[128];
            snprintf(name, sizeof(name), "%.*s", (int)strcspn(*e, "="), *e);
            unsetenv(name);
            e = environ;
            continue;
        }
        e++;
    }
    for (size_t i = 0; default_env[i]; i++)
        putenv((char *)default_env[i]);
    for (size_t i = 0; extra && extra[i]; i++)
        putenv((char *)extra[i]);
}

static void spawn(struct bjob *j, int r, const char *const *argv, const char *const *env)
{
    cr_assert(r >= 0 && r < j->n && !j->p[r].pid, "bjob: bad slot %d", r);
    struct bjob_proc *p = &j->p[r];
    char path[128];
    snprintf(path, sizeof(path), "/tmp/symheap-test-boot-%d-%d.log", (int)getpid(), r);
    p->log_fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    cr_assert(p->log_fd >= 0, "open %s: %s", path, strerror(errno));
    unlink(path);
    fflush(NULL);
    pid_t parent = getpid();
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(127);
        dup2(p->log_fd, 1);
        dup2(p->log_fd, 2);
        child_env(env);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "exec %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    p->pid = pid;
}

void bjob_start_argv(struct bjob *j, int r, const char *const *argv, const char *const *env)
{
    spawn(j, r, argv, env);
}

void bjob_start(struct bjob *j, int r, const char *const *prefix, const char *const *env,
                const char *const *args)
{
    const char *pe = getenv("BOOT_PE");
    cr_assert(pe, "BOOT_PE is not set (run the test through meson)");
    const char *argv[32];
    size_t n = 0;
    for (size_t i = 0; prefix && prefix[i] && n < 20; i++)
        argv[n++] = prefix[i];
    argv[n++] = pe;
    for (size_t i = 0; args && args[i] && n < 31; i++)
        argv[n++] = args[i];
    argv[n] = NULL;
    spawn(j, r, argv, env);
}

void bjob_start_tcp(struct bjob *j, int r, const char *const *prefix, const char *const *env,
                    const char *const *args)
{
    static char rank[BJOB_MAX][32], size[32];
    snprintf(rank[r], sizeof(rank[r]), "SYMHEAP_RANK=%d", r);
    snprintf(size, sizeof(size), "SYMHEAP_SIZE=%d", j->n);
    const char *all[32];
    size_t n = 0;
    all[n++] = rank[r];
    all[n++] = size;
    for (size_t i = 0; env && env[i] && n < 31; i++)
        all[n++] = env[i];
    all[n] = NULL;
    bjob_start(j, r, prefix, all, args);
}

char *bjob_output(struct bjob *j, int r)
{
    char *buf = calloc(1, 65536);
    if (buf && j->p[r].pid) {
        ssize_t n = pread(j->p[r].log_fd, buf, 65535, 0);
        buf[n > 0 ? n : 0] = '\0';
    }
    return buf;
}

static void dump_all(struct bjob *j)
{
    for (int r = 0; r < j->n; r++) {
        if (!j->p[r].pid)
            continue;
        char *out = bjob_output(j, r);
        fprintf(stderr, "---- output of slot %d (pid %d):\n%s", r, (int)j->p[r].pid,
                out ? out : "");
        free(out);
    }
}

void bjob_wait(struct bjob *j, double deadline_s)
{
    double end = now_s() + deadline_s;
    for (;;) {
        bool all = true;
        for (int r = 0; r < j->n; r++) {
            struct bjob_proc *p = &j->p[r];
            if (!p->pid || p->done)
                continue;
            pid_t w = waitpid(p->pid, &p->status, WNOHANG);
            if (w == p->pid)
                p->done = true;
            else
                all = false;
        }
        if (all)
            return;
        if (now_s() > end)
            break;
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    for (int r = 0; r < j->n; r++)
        if (j->p[r].pid && !j->p[r].done) {
            kill(j->p[r].pid, SIGKILL);
            waitpid(j->p[r].pid, &j->p[r].status, 0);
            j->p[r].done = true;
        }
    dump_all(j);
    cr_assert_fail("the job was still running after %.0f s: killed (outputs above)", deadline_s);
}

static const char *tail(const char *s)
{
    size_t n = strlen(s);
    return n > 2000 ? s + n - 2000 : s;
}

/* The tail of slot r's output in a static buffer: assertion failures end
 * the test, so nothing may stay allocated for them. */
static const char *output_tail(struct bjob *j, int r)
{
    static char buf[2048];
    char *out = bjob_output(j, r);
    snprintf(buf, sizeof(buf), "%s", out ? tail(out) : "(none)");
    free(out);
    return buf;
}

/* A failing slot often only reports that another one was lost: print how
 * every slot ended, with its output, before failing. */
static void print_all_slots(struct bjob *j)
{
    for (int k = 0; k < j->n; k++) {
        int ws = j->p[k].status;
        fprintf(stderr, "slot %d ended with %s %d; its output:\n%s\n", k,
                WIFSIGNALED(ws) ? "signal" : "exit",
                WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws), output_tail(j, k));
    }
}

void bjob_assert_exit(struct bjob *j, int r, int code)
{
    int ws = j->p[r].status;
    if (WIFEXITED(ws) && WEXITSTATUS(ws) == code)
        return;
    print_all_slots(j);
    cr_assert_fail("slot %d ended with %s %d, expected exit %d; its output:\n%s", r,
                   WIFSIGNALED(ws) ? "signal" : "exit",
                   WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws), code, output_tail(j, r));
}

void bjob_assert_signal(struct bjob *j, int r, int sig)
{
    int ws = j->p[r].status;
    if (WIFSIGNALED(ws) && WTERMSIG(ws) == sig)
        return;
    cr_assert_fail("slot %d ended with %s %d, expected signal %d; its output:\n%s", r,
                   WIFSIGNALED(ws) ? "signal" : "exit",
                   WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws), sig, output_tail(j, r));
}

void bjob_assert_output(struct bjob *j, int r, const char *needle)
{
    char *out = bjob_output(j, r);
    bool found = out && strstr(out, needle);
    free(out);
    if (!found)
        cr_assert_fail("slot %d did not print \"%s\"; its output:\n%s", r, needle,
                       output_tail(j, r));
}

void bjob_fini(struct bjob *j)
{
    for (int r = 0; r < j->n; r++)
        if (j->p[r].pid)
            close(j->p[r].log_fd);
}

/* A free TCP port on 127.0.0.1 (bound and released: PE 0 binds it again
 * with SO_REUSEADDR, and nothing else on this machine takes ports from the
 * ephemeral range on purpose). */
int bjob_free_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    cr_assert(fd >= 0 && bind(fd, (void *)&a, sizeof(a)) == 0 &&
                  getsockname(fd, (void *)&a, &len) == 0,
              "cannot find a free port: %s", strerror(errno));
    close(fd);
    return ntohs(a.sin_port);
}

bool bjob_have_mpirun(void)
{
    return system("command -v mpirun >/dev/null 2>&1") == 0;
}
