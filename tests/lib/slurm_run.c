/*
 * slurm_run.c - run one command next to a private one-node Slurm
 * (boot_slurm.c), for tests outside Criterion (the Python suite's srun
 * jobs):
 *
 *   slurm_run [--timeout S] -- srun --mpi=pmix -O -n 2 prog args...
 *
 * The command runs with SLURM_CONF naming the private cluster added to the
 * environment.  Exit status: the command's (128 + signal for a signal
 * death), 124 when it ran past the timeout (default 120 s; killed), 77
 * with "SKIPPED: <why>" on stdout when this host cannot run Slurm (not
 * root, no daemons, no PMIx plugin), 1 when the cluster did not come up.
 * Slurm and everything it started end with this program, however it ends.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot_slurm.h"

static void pause_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Whether srun names the pmix MPI plugin (srun --mpi=list). */
static bool have_pmix_plugin(const struct bslurm *s)
{
    char cmd[256], line[64] = "";
    snprintf(cmd, sizeof(cmd), "%s srun --mpi=list 2>&1 | grep -c -w pmix", s->conf_env);
    FILE *p = popen(cmd, "r");
    if (!p)
        return false;
    if (!fgets(line, sizeof(line), p))
        line[0] = '\0';
    pclose(p);
    return atoi(line) > 0;
}

/* Run argv with SLURM_CONF set; its exit status in the convention above. */
static int run_command(const struct bslurm *s, char **argv, double timeout_s)
{
    pid_t pid = fork();
    if (pid < 0) {
        perror("slurm_run: fork");
        return 1;
    }
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        putenv((char *)s->conf_env);
        execvp(argv[0], argv);
        fprintf(stderr, "slurm_run: cannot run %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    double until = now_s() + timeout_s;
    int ws;
    for (;;) {
        pid_t w = waitpid(pid, &ws, WNOHANG);
        if (w == pid)
            break;
        if (w < 0 && errno != EINTR) {
            perror("slurm_run: waitpid");
            return 1;
        }
        if (now_s() > until) {
            fprintf(stderr, "slurm_run: %s ran past %.0f s: killed\n", argv[0], timeout_s);
            kill(pid, SIGKILL);
            waitpid(pid, &ws, 0);
            return 124;
        }
        pause_ms(20);
    }
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
}

int main(int argc, char **argv)
{
    double timeout_s = 120;
    int i = 1;
    if (i + 1 < argc && !strcmp(argv[i], "--timeout"))
        timeout_s = atof(argv[i + 1]), i += 2;
    if (i < argc && !strcmp(argv[i], "--"))
        i++;
    if (i >= argc || timeout_s <= 0) {
        fprintf(stderr, "usage: slurm_run [--timeout S] -- command [args...]\n");
        return 2;
    }
    const char *missing = bslurm_missing();
    if (missing) {
        printf("SKIPPED: %s\n", missing);
        return 77;
    }
    struct bslurm s;
    char why[2048];
    if (!bslurm_start(&s, 20, why, sizeof(why))) {
        fprintf(stderr, "slurm_run: %s\n", why);
        return 1;
    }
    int rc;
    if (!have_pmix_plugin(&s)) {
        printf("SKIPPED: srun --mpi=list names no pmix plugin (mpi_pmix.so, in "
               "slurm-wlm-basic-plugins)\n");
        rc = 77;
    } else {
        fflush(stdout);
        rc = run_command(&s, argv + i, timeout_s);
    }
    bslurm_stop(&s);
    return rc;
}
