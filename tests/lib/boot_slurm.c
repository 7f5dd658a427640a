/*
 * boot_slurm.c - a private one-node Slurm for the srun tests (see
 * boot_slurm.h).  Slurm 22.05 (Debian 12) still has auth/none and
 * cred/none, so no munged is needed.  The node declares the CPUs it has
 * (more is refused: the node is set INVAL); srun -O (--overcommit) places
 * more tasks than CPUs on it.
 */
#include "boot_slurm.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot_jobs.h"

static pid_t guardian = -1;
static int guardian_fd = -1; /* write end of the guardian's pipe: only ours */

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* The first line `cmd` prints (stderr dropped), or "" when it fails. */
static void first_line(const char *cmd, char *out, size_t len)
{
    out[0] = '\0';
    FILE *p = popen(cmd, "r");
    if (!p)
        return;
    if (!fgets(out, (int)len, p))
        out[0] = '\0';
    while (fgetc(p) != EOF) /* let it finish writing */
        ;
    if (pclose(p) != 0)
        out[0] = '\0';
    out[strcspn(out, "\n")] = '\0';
}

const char *bslurm_missing(void)
{
    if (geteuid() != 0)
        return "slurmd must run as root to start tasks as root";
    if (system("command -v slurmctld >/dev/null && command -v slurmd >/dev/null && "
               "command -v srun >/dev/null && command -v sinfo >/dev/null 2>&1") != 0)
        return "slurmctld, slurmd, srun or sinfo is not installed (slurmctld slurmd "
               "slurm-client)";
    return NULL;
}

#define KILLED_MAX 256
static pid_t killed[KILLED_MAX]; /* the guardian's record of what it killed */
static int nkilled;

/* Whether /proc/<pid>/environ holds `entry` ("SLURM_CONF=..."). */
static bool environ_has(const char *pid, const char *entry)
{
    char path[300], buf[16384];
    snprintf(path, sizeof(path), "/proc/%s/environ", pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return false;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return false;
    buf[n] = '\0'; /* entries are NUL-separated; the last one ends here */
    for (ssize_t at = 0; at < n; at += (ssize_t)strlen(buf + at) + 1)
        if (!strcmp(buf + at, entry))
            return true;
    return false;
}

/* Send SIGKILL to every child of this process (read from /proc) and to
 * every process of this cluster's environment (`conf_env`): an srun the
 * test process started, left without its daemons, would wait on. */
static void kill_leftovers(const char *conf_env)
{
    DIR *d = opendir("/proc");
    if (!d)
        return;
    struct dirent *e;
    pid_t self = getpid();
    while ((e = readdir(d))) {
        char path[300], buf[512];
        snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, buf, sizeof(buf) - 1);
        close(fd);
        if (n <= 0)
            continue;
        buf[n] = '\0';
        char *rp = strrchr(buf, ')'); /* the command name may hold anything */
        int ppid;
        pid_t pid = (pid_t)atoi(e->d_name);
        if (pid == self || !rp || sscanf(rp + 1, " %*c %d", &ppid) != 1)
            continue;
        if (ppid == self || environ_has(e->d_name, conf_env)) {
            kill(pid, SIGKILL);
            int k = 0;
            while (k < nkilled && killed[k] != pid)
                k++;
            if (k == nkilled && nkilled < KILLED_MAX)
                killed[nkilled++] = pid;
        }
    }
    closedir(d);
}

/* libfabric's shm provider names its regions "<pid>:..." in /dev/shm and
 * unlinks them at close: a PE killed here leaves them; remove those of
 * the processes the guardian killed. */
static void unlink_killed_regions(void)
{
    DIR *d = opendir("/dev/shm");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        char *colon;
        long pid = strtol(e->d_name, &colon, 10);
        if (colon == e->d_name || *colon != ':')
            continue;
        for (int k = 0; k < nkilled; k++)
            if (killed[k] == (pid_t)pid) {
                char path[300];
                snprintf(path, sizeof(path), "/dev/shm/%s", e->d_name);
                unlink(path);
            }
    }
    closedir(d);
}

static pid_t spawn(const char *const *argv, const char *log)
{
    pid_t pid = fork();
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0)
            _exit(127);
        execvp(argv[0], (char *const *)argv);
        _exit(127);
    }
    return pid;
}

/* The guardian: starts the daemons, waits for the test process to close
 * the pipe (or die), then ends the daemons and everything below them.
 * As child subreaper it inherits every slurmstepd (slurmd double-forks
 * them) and, through them, the PEs; it kills its children until it has
 * none, so nothing it started outlives it. */
static void run_guardian(int rd, const struct bslurm *s)
{
    setsid(); /* a kill of the test's process group spares it */
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    int null = open("/dev/null", O_RDWR);
    if (dup2(rd, 0) < 0 || null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
        _exit(127);
    for (int fd = 3; fd < 1024; fd++) /* Criterion's, inherited without CLOEXEC */
        close(fd);
    char conf[128], ctld_log[128], d_log[128];
    snprintf(conf, sizeof(conf), "%s/slurm.conf", s->dir);
    snprintf(ctld_log, sizeof(ctld_log), "%s/slurmctld.out", s->dir);
    snprintf(d_log, sizeof(d_log), "%s/slurmd.out", s->dir);
    const char *ctld_argv[] = {"slurmctld", "-D", "-i", "-f", conf, NULL};
    const char *d_argv[] = {"slurmd", "-D", "-f", conf, NULL};
    pid_t ctld = spawn(ctld_argv, ctld_log);
    pid_t d = spawn(d_argv, d_log);
    char b;
    for (;;) { /* nobody writes: only the end of the test process ends this */
        ssize_t r = read(0, &b, 1);
        if (r == 0 || (r < 0 && errno != EINTR))
            break;
    }
    /* a clean stop first (slurmctld saves state, slurmd ends), bounded */
    if (ctld > 0)
        kill(ctld, SIGTERM);
    if (d > 0)
        kill(d, SIGTERM);
    double until = now_s() + 5;
    int left = (ctld > 0) + (d > 0);
    while (left > 0 && now_s() < until) {
        pid_t w = waitpid(-1, NULL, WNOHANG);
        if (w == ctld || w == d)
            left--;
        else if (w == 0)
            pause_ms(10);
        else if (w < 0 && errno == ECHILD)
            break;
    }
    for (;;) { /* whatever is left: slurmscriptd, steps, PEs, their children */
        kill_leftovers(s->conf_env);
        if (waitpid(-1, NULL, 0) < 0 && errno == ECHILD)
            break;
    }
    kill_leftovers(s->conf_env); /* sruns: not ours to wait for */
    unlink_killed_regions();
    execlp("rm", "rm", "-rf", "--", s->dir, (char *)NULL);
    _exit(127);
}

static bool write_conf(const struct bslurm *s)
{
    char path[128];
    snprintf(path, sizeof(path), "%s/slurm.conf", s->dir);
    FILE *f = fopen(path, "w");
    if (!f)
        return false;
    int ctld_port = bjob_free_port();
    int d_port;
    do
        d_port = bjob_free_port();
    while (d_port == ctld_port);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    fprintf(f,
            "ClusterName=symheap\n"
            "SlurmctldHost=localhost\n"
            "SlurmctldPort=%d\n"
            "SlurmdPort=%d\n"
            "AuthType=auth/none\n"
            "CredType=cred/none\n"
            "SlurmUser=root\n"
            "SlurmdUser=root\n"
            "StateSaveLocation=%s/state\n"
            "SlurmdSpoolDir=%s/spool\n"
            /* mpi_pmix's per-step client dirs: default /tmp, left there
             * by a killed step and refused ("File exists") by the next */
            "TmpFS=%s/tmp\n"
            "SlurmctldPidFile=%s/slurmctld.pid\n"
            "SlurmdPidFile=%s/slurmd.pid\n"
            "SlurmctldLogFile=%s/slurmctld.log\n"
            "SlurmdLogFile=%s/slurmd.log\n"
            "ProctrackType=proctrack/linuxproc\n"
            "TaskPlugin=task/none\n"
            "SwitchType=switch/none\n"
            "MpiDefault=none\n"
            "ReturnToService=2\n"
            "SchedulerType=sched/builtin\n"
            "SelectType=select/cons_tres\n"
            "SelectTypeParameters=CR_Core\n"
            "JobCompType=jobcomp/none\n"
            "AccountingStorageType=accounting_storage/none\n"
            "JobAcctGatherType=jobacct_gather/none\n"
            "NodeName=localhost CPUs=%ld State=UNKNOWN\n"
            "PartitionName=symheap Nodes=localhost Default=YES MaxTime=INFINITE State=UP "
            "OverSubscribe=FORCE\n",
            ctld_port, d_port, s->dir, s->dir, s->dir, s->dir, s->dir, s->dir, s->dir,
            cpus > 0 ? cpus : 1);
    return fclose(f) == 0;
}

/* Append the last lines of file `name` in the temp dir to `why`. */
static void add_tail(const struct bslurm *s, const char *name, char *why, size_t len)
{
    char cmd[300], buf[600];
    snprintf(cmd, sizeof(cmd), "tail -n 4 %s/%s 2>&1", s->dir, name);
    FILE *p = popen(cmd, "r");
    size_t n = p ? fread(buf, 1, sizeof(buf) - 1, p) : 0;
    buf[n] = '\0';
    if (p)
        pclose(p);
    size_t used = strlen(why);
    snprintf(why + used, len - used, "\n%s: %s", name, buf);
}

bool bslurm_start(struct bslurm *s, double deadline_s, char *why, size_t len)
{
    why[0] = '\0';
    snprintf(s->dir, sizeof(s->dir), "/tmp/symheap-slurm-XXXXXX");
    if (!mkdtemp(s->dir)) {
        snprintf(why, len, "mkdtemp: %s", strerror(errno));
        return false;
    }
    snprintf(s->conf_env, sizeof(s->conf_env), "SLURM_CONF=%s/slurm.conf", s->dir);
    char sub[128];
    snprintf(sub, sizeof(sub), "%s/state", s->dir);
    bool ok = mkdir(sub, 0700) == 0;
    snprintf(sub, sizeof(sub), "%s/spool", s->dir);
    ok = ok && mkdir(sub, 0700) == 0;
    snprintf(sub, sizeof(sub), "%s/tmp", s->dir);
    ok = ok && mkdir(sub, 0700) == 0 && write_conf(s);
    int p[2];
    if (ok)
        ok = pipe2(p, O_CLOEXEC) == 0;
    pid_t pid = ok ? fork() : -1;
    if (pid == 0)
        run_guardian(p[0], s);
    if (pid < 0) {
        snprintf(why, len, "cannot set up %s: %s", s->dir, strerror(errno));
        if (ok) {
            close(p[0]);
            close(p[1]);
        }
        char cmd[128];
        snprintf(cmd, sizeof(cmd), "rm -rf -- %s", s->dir);
        if (system(cmd) != 0)
            fprintf(stderr, "could not remove %s\n", s->dir);
        return false;
    }
    close(p[0]);
    guardian = pid;
    guardian_fd = p[1];

    char cmd[256], state[64] = "";
    snprintf(cmd, sizeof(cmd), "%s sinfo -h -o %%T 2>/dev/null", s->conf_env);
    double until = now_s() + deadline_s;
    while (now_s() < until) {
        first_line(cmd, state, sizeof(state));
        if (!strcmp(state, "idle"))
            break;
        pause_ms(50);
    }
    if (strcmp(state, "idle") != 0) {
        snprintf(why, len,
                 "the Slurm node was not idle %.0f s after slurmctld and slurmd "
                 "started (sinfo says \"%s\")",
                 deadline_s, state);
        add_tail(s, "slurmctld.log", why, len);
        add_tail(s, "slurmd.log", why, len);
        add_tail(s, "slurmd.out", why, len);
        bslurm_stop(s);
        return false;
    }
    return true;
}

void bslurm_stop(struct bslurm *s)
{
    (void)s;
    if (guardian_fd >= 0) {
        close(guardian_fd);
        guardian_fd = -1;
    }
    if (guardian > 0) {
        while (waitpid(guardian, NULL, 0) < 0 && errno == EINTR)
            ;
        guardian = -1;
    }
}
