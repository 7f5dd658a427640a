/*
 * harness_mpirun.c - SYMHEAP_TEST_LAUNCHER=mpirun: a job's PEs are ranks of
 * an Open MPI mpirun and join through PMIx (src/bootstrap/boot_pmix.c).
 *
 * A body is a function of the test process and mpirun execs programs, so
 * mpirun runs N copies of tests/mpirun_proxy, each sending the environment
 * mpirun gave its rank over a unix socket; for each, the harness forks a PE
 * that takes that environment (then the harness defaults and the job's env)
 * and runs the body: its PMIx_Init connects to mpirun's PMIx server as that
 * rank (PMIx checks the uid, not the pid: tried with libpmix 4.2.2 under
 * Open MPI 4.1.4).  When a PE ends, its proxy ends the same way, so mpirun
 * sees each rank end as its PE did; when mpirun ends a proxy first (its
 * answer to a failed rank is to end the job), that proxy's PE gets SIGTERM.
 *
 * Everything lives in a private directory (the socket, and Open MPI's
 * session directories through orte_tmpdir_base), removed at the end;
 * PEs and mpirun die with the test process (PR_SET_PDEATHSIG), proxies with
 * mpirun.  On timeout the PEs get SIGKILL, mpirun SIGTERM (it then ends
 * its proxies and its session), SIGKILL if it lingers.
 */
#include "harness.h"

#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "launch/launcher.h"
#include "launch/owner.h"

#ifndef HARNESS_MPIRUN_PROXY
#define HARNESS_MPIRUN_PROXY "mpirun_proxy"
#endif

/* How long mpirun may take to end after SIGTERM before SIGKILL. */
#define MPIRUN_TERM_S 5.0

struct rank {
    int conn;  /* the proxy's connection, -1 once closed */
    pid_t pid; /* the PE, 0 before it is forked */
    int pidfd;
    unsigned long long start; /* its start time, for its /dev/shm objects' owner tag */
    bool reaped;
    int status;
    bool told; /* its proxy got the status */
};

struct mjob {
    const struct pe_job *job;
    int npes;
    char dir[64];
    char sock[96];
    int lsock;
    pid_t mpirun;
    int mpirun_fd;
    bool mpirun_reaped;
    int mpirun_status;
    int connected;
    struct rank r[HARNESS_MAX_PES];
    const char *env[64];
};

static char last_dir[64];

const char *harness_mpirun_last_dir(void)
{
    return last_dir;
}

static int pidfd_of(pid_t pid)
{
    return (int)syscall(SYS_pidfd_open, pid, 0);
}

static const char *proxy_path(void)
{
    const char *p = getenv("SYMHEAP_TEST_MPIRUN_PROXY");
    return p && *p ? p : HARNESS_MPIRUN_PROXY;
}

/* fork() a child that dies with the harness (PR_SET_PDEATHSIG), so no
 * PE or mpirun outlives a killed test; returns as fork() does. */
static pid_t fork_tied(void)
{
    pid_t self = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        cr_assert_fail("pe_job_run (mpirun): fork failed: %s", strerror(errno));
    if (pid == 0 && (prctl(PR_SET_PDEATHSIG, SIGKILL) != 0 || getppid() != self))
        _exit(127);
    return pid;
}

static void start_mpirun(struct mjob *m)
{
    char np[16], tmpbase[96];
    snprintf(np, sizeof(np), "%d", m->npes);
    snprintf(tmpbase, sizeof(tmpbase), "%s", m->dir);
    const char *argv[] = {
        "mpirun", "--allow-run-as-root", "--oversubscribe", "--mca", "oob_tcp_if_include", "lo",
        /* its session directories where we remove them */
        "--mca", "orte_tmpdir_base", tmpbase, "-np", np, proxy_path(), m->sock, NULL};
    pid_t pid = fork_tied();
    if (pid == 0) {
        setpgid(0, 0); /* a terminal's ^C is the test's, not mpirun's */
        int nul = open("/dev/null", O_RDONLY);
        if (nul >= 0)
            dup2(nul, STDIN_FILENO);
        execvp(argv[0], (char *const *)argv);
        fprintf(stderr, "pe_job_run (mpirun): cannot execute mpirun: %s\n", strerror(errno));
        _exit(127);
    }
    m->mpirun = pid;
    m->mpirun_fd = pidfd_of(pid);
    if (m->mpirun_fd < 0)
        cr_assert_fail("pe_job_run (mpirun): pidfd_open failed: %s", strerror(errno));
}

/* Read exactly len bytes by `deadline`; 0, or -1 on end of file/error/late. */
static int read_by(int fd, void *buf, size_t len, double deadline)
{
    char *p = buf;
    while (len) {
        double left = deadline - harness_now();
        if (left <= 0)
            return -1;
        struct pollfd pfd = {.fd = fd, .events = POLLIN};
        int pr = poll(&pfd, 1, (int)(left * 1000) + 1);
        if (pr < 0 && errno == EINTR)
            continue;
        if (pr <= 0)
            return -1;
        ssize_t n = read(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

static _Noreturn void pe_child(struct mjob *m, int rank, char *block, size_t len)
{
    /* the PE only runs the body: nothing of the supervision */
    close(m->lsock);
    close(m->mpirun_fd);
    for (int i = 0; i < m->npes; i++) {
        if (m->r[i].conn >= 0)
            close(m->r[i].conn);
        if (m->r[i].pidfd >= 0)
            close(m->r[i].pidfd);
    }
    /* the rank's environment as mpirun made it, then ours on top */
    clearenv();
    for (char *p = block; p < block + len; p += strlen(p) + 1)
        if (strchr(p, '=') && putenv(p) != 0)
            _exit(127);
    for (size_t i = 0; m->env[i]; i++) {
        const char *eq = strchr(m->env[i], '=');
        char name[128];
        if (!eq || (size_t)(eq - m->env[i]) >= sizeof(name))
            continue;
        memcpy(name, m->env[i], (size_t)(eq - m->env[i]));
        name[eq - m->env[i]] = '\0';
        if (setenv(name, eq + 1, 1) != 0)
            _exit(127);
    }
    int rc = harness_pe_main(rank, m->npes, (void *)m->job);
    fflush(NULL);
    _exit(rc < 0 || rc > 255 ? 255 : rc);
}

/* A proxy connected: learn its rank and fork that rank's PE. */
static void accept_proxy(struct mjob *m, double deadline)
{
    int fd = accept4(m->lsock, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    uint32_t len = 0;
    char *block = NULL;
    if (read_by(fd, &len, sizeof(len), deadline) != 0 || len > (64u << 20) ||
        !(block = malloc((size_t)len + 1)) || read_by(fd, block, len, deadline) != 0) {
        fprintf(stderr, "pe_job_run (mpirun): a proxy connected but sent no environment\n");
        free(block);
        close(fd);
        return;
    }
    block[len] = '\0';
    int rank = -1;
    for (char *p = block; p < block + len; p += strlen(p) + 1)
        if (strncmp(p, "PMIX_RANK=", 10) == 0)
            rank = atoi(p + 10);
    if (rank < 0 || rank >= m->npes || m->r[rank].conn >= 0 || m->r[rank].pid) {
        fprintf(stderr, "pe_job_run (mpirun): a proxy came with PMIX_RANK %d (job of %d)\n", rank,
                m->npes);
        free(block);
        close(fd);
        return;
    }
    m->r[rank].conn = fd;
    m->connected++;
    pid_t pid = fork_tied();
    if (pid == 0) {
        pe_child(m, rank, block, len);
    }
    free(block);
    m->r[rank].pid = pid;
    m->r[rank].pidfd = pidfd_of(pid);
    if (sym_proc_start_time(pid, &m->r[rank].start) != 0)
        m->r[rank].start = 0;
    if (m->r[rank].pidfd < 0)
        cr_assert_fail("pe_job_run (mpirun): pidfd_open failed: %s", strerror(errno));
}

static void close_conn(struct rank *r)
{
    if (r->conn >= 0)
        close(r->conn);
    r->conn = -1;
}

static void reap_pe(struct mjob *m, int i)
{
    struct rank *r = &m->r[i];
    if (r->reaped || waitpid(r->pid, &r->status, WNOHANG) != r->pid)
        return;
    r->reaped = true;
    close(r->pidfd);
    r->pidfd = -1;
    if (r->conn >= 0) {
        /* the proxy ends as its PE did */
        ssize_t n = write(r->conn, &r->status, sizeof(r->status));
        r->told = n == (ssize_t)sizeof(r->status);
        if (!r->told)
            close_conn(r);
    }
}

static void reap_mpirun(struct mjob *m)
{
    if (m->mpirun_reaped || waitpid(m->mpirun, &m->mpirun_status, WNOHANG) != m->mpirun)
        return;
    m->mpirun_reaped = true;
    close(m->mpirun_fd);
    m->mpirun_fd = -1;
}

static bool pe_failed(const struct rank *r)
{
    return r->reaped && !(WIFEXITED(r->status) && WEXITSTATUS(r->status) == 0);
}

static void kill_pes(struct mjob *m, int sig)
{
    for (int i = 0; i < m->npes; i++)
        if (m->r[i].pid && !m->r[i].reaped)
            kill(m->r[i].pid, sig);
}

/* Wait for mpirun to end (its PEs are gone), SIGTERM then SIGKILL. */
static void end_mpirun(struct mjob *m)
{
    for (int i = 0; i < m->npes; i++)
        close_conn(&m->r[i]); /* a proxy still waiting ends (125) */
    for (int stage = 0; stage < 3 && !m->mpirun_reaped; stage++) {
        if (stage == 1)
            kill(m->mpirun, SIGTERM);
        if (stage == 2)
            kill(m->mpirun, SIGKILL);
        double until = harness_now() + (stage == 2 ? 60 : harness_seconds(MPIRUN_TERM_S));
        while (!m->mpirun_reaped && harness_now() < until) {
            struct pollfd pfd = {.fd = m->mpirun_fd, .events = POLLIN};
            poll(&pfd, 1, 100);
            reap_mpirun(m);
        }
    }
}

static void supervise(struct mjob *m, struct pe_outcome *out, double t0)
{
    const struct pe_job *job = m->job;
    double deadline = t0 + harness_seconds(job->job_timeout_s > 0 ? job->job_timeout_s : 120);
    double grace = harness_seconds(job->grace_s > 0 ? job->grace_s : 5);
    double kill_at = -1; /* after a failure: the survivors' grace ends */
    struct pollfd pfd[2 + 2 * HARNESS_MAX_PES];
    int what[2 + 2 * HARNESS_MAX_PES];

    for (;;) {
        int alive = 0, failed = 0;
        for (int i = 0; i < m->npes; i++) {
            alive += m->r[i].pid && !m->r[i].reaped;
            failed += pe_failed(&m->r[i]);
        }
        int reaped = 0;
        for (int i = 0; i < m->npes; i++)
            reaped += m->r[i].reaped;
        if (reaped == m->npes)
            break;
        /* mpirun gone before every rank connected: those never will */
        if (m->mpirun_reaped && alive == 0)
            break;
        if ((failed || m->mpirun_reaped) && kill_at < 0)
            kill_at = harness_now() + grace;
        double now = harness_now();
        if (now >= deadline) {
            out->timed_out = true;
            kill_pes(m, SIGKILL);
            break;
        }
        if (kill_at >= 0 && now >= kill_at) {
            kill_pes(m, SIGKILL);
            kill_at = deadline; /* only the reaping is left */
        }

        int n = 0;
        if (m->connected < m->npes && !m->mpirun_reaped) {
            pfd[n] = (struct pollfd){.fd = m->lsock, .events = POLLIN};
            what[n++] = -1;
        }
        if (!m->mpirun_reaped) {
            pfd[n] = (struct pollfd){.fd = m->mpirun_fd, .events = POLLIN};
            what[n++] = -2;
        }
        for (int i = 0; i < m->npes; i++) {
            if (m->r[i].pidfd >= 0) {
                pfd[n] = (struct pollfd){.fd = m->r[i].pidfd, .events = POLLIN};
                what[n++] = i;
            }
            if (m->r[i].conn >= 0) {
                pfd[n] = (struct pollfd){.fd = m->r[i].conn, .events = POLLIN};
                what[n++] = HARNESS_MAX_PES + i;
            }
        }
        double until = kill_at >= 0 && kill_at < deadline ? kill_at : deadline;
        int ms = (int)((until - now) * 1000) + 1;
        if (poll(pfd, (nfds_t)n, ms) <= 0)
            continue;
        for (int k = 0; k < n; k++) {
            if (!pfd[k].revents)
                continue;
            if (what[k] == -1) {
                accept_proxy(m, deadline);
            } else if (what[k] == -2) {
                reap_mpirun(m);
            } else if (what[k] < HARNESS_MAX_PES) {
                reap_pe(m, what[k]);
            } else {
                /* a proxy ended (or said something it should not) */
                struct rank *r = &m->r[what[k] - HARNESS_MAX_PES];
                char c;
                if (read(r->conn, &c, 1) <= 0) {
                    close_conn(r);
                    /* mpirun ended this rank before its PE ended */
                    if (r->pid && !r->reaped)
                        kill(r->pid, SIGTERM);
                }
            }
        }
    }
    /* the PEs first (their statuses), then mpirun */
    for (int i = 0; i < m->npes; i++) {
        if (m->r[i].pid && !m->r[i].reaped) {
            waitpid(m->r[i].pid, &m->r[i].status, 0);
            m->r[i].reaped = true;
            close(m->r[i].pidfd);
            m->r[i].pidfd = -1;
        }
    }
    if (!out->timed_out) {
        /* told proxies end now, and mpirun after them */
        while (!m->mpirun_reaped && harness_now() < deadline) {
            struct pollfd p = {.fd = m->mpirun_fd, .events = POLLIN};
            poll(&p, 1, (int)((deadline - harness_now()) * 1000) + 1);
            reap_mpirun(m);
        }
        if (!m->mpirun_reaped)
            out->timed_out = true;
    }
    end_mpirun(m);
}

/* The PEs' /dev/shm objects (their names carry the owner PE: pid and
 * start time), counted then removed; libfabric shm-provider regions of the
 * PEs ("<pid>:<n>:<n>") removed. */
static bool object_of_pe(const char *name, void *arg)
{
    const struct mjob *m = arg;
    unsigned uid;
    pid_t owner;
    unsigned long long start;
    if (sym_launch_parse_object_name(name, &uid, &owner, &start) != 0 || uid != (unsigned)getuid())
        return false;
    for (int i = 0; i < m->npes; i++)
        if (m->r[i].pid == owner && (m->r[i].start == 0 || start == 0 || m->r[i].start == start))
            return true;
    return false;
}

static bool region_of_pe(const char *name, void *arg)
{
    const struct mjob *m = arg;
    pid_t pid;
    if (sym_launch_parse_region_name(name, &pid) != 0)
        return false;
    for (int i = 0; i < m->npes; i++)
        if (m->r[i].pid > 0 && m->r[i].pid == pid)
            return true;
    return false;
}

static int sweep_pe_objects(struct mjob *m)
{
    int found = sym_launch_shm_scan(object_of_pe, m, true, NULL);
    sym_launch_shm_scan(region_of_pe, m, true, NULL);
    return found < 0 ? 0 : found;
}

static int rm_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    remove(path);
    return 0;
}

void harness_mpirun_job_run(const struct pe_job *job, struct pe_outcome *out)
{
    static struct mjob m; /* big; one job at a time */
    memset(&m, 0, sizeof(m));
    memset(out, 0, sizeof(*out));
    out->npes = job->npes;
    m.job = job;
    m.npes = job->npes;
    m.lsock = m.mpirun_fd = -1;
    for (int i = 0; i < HARNESS_MAX_PES; i++)
        m.r[i].conn = m.r[i].pidfd = -1;
    harness_job_env(job, m.env);

    snprintf(m.dir, sizeof(m.dir), "/tmp/symheap-mpirun-XXXXXX");
    if (!mkdtemp(m.dir))
        cr_assert_fail("pe_job_run (mpirun): mkdtemp failed: %s", strerror(errno));
    snprintf(last_dir, sizeof(last_dir), "%s", m.dir);
    snprintf(m.sock, sizeof(m.sock), "%s/s", m.dir);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", m.sock);
    m.lsock = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (m.lsock < 0 || bind(m.lsock, (struct sockaddr *)&sa, sizeof(sa)) != 0 ||
        listen(m.lsock, HARNESS_MAX_PES) != 0)
        cr_assert_fail("pe_job_run (mpirun): cannot listen on %s: %s", m.sock, strerror(errno));

    double t0 = harness_now();
    start_mpirun(&m);
    supervise(&m, out, t0);
    out->seconds = harness_now() - t0;
    close(m.lsock);

    int missing = 0;
    for (int i = 0; i < m.npes; i++) {
        int ws = m.r[i].status;
        if (!m.r[i].pid) {
            missing++;
            out->exit_code[i] = 127; /* never started */
        } else if (WIFSIGNALED(ws)) {
            out->term_signal[i] = WTERMSIG(ws);
            out->exit_code[i] = 128 + WTERMSIG(ws);
        } else {
            out->exit_code[i] = WEXITSTATUS(ws);
        }
    }
    int ms = m.mpirun_status;
    out->job_exit_code = out->timed_out    ? 124
                         : WIFSIGNALED(ms) ? 128 + WTERMSIG(ms)
                                           : WEXITSTATUS(ms);
    out->leftover_objects = sweep_pe_objects(&m);
    nftw(m.dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
    if (missing && !out->timed_out)
        fprintf(stderr,
                "pe_job_run (mpirun): mpirun ended (exit %d) before %d of %d ranks "
                "reached the harness\n",
                out->job_exit_code, missing, m.npes);
}
