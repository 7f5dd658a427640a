/*
 * mpirun_proxy.c - the program the test harness has mpirun start in place
 * of a PE (tests/lib/harness_mpirun.c).
 *
 * A test body is a function in the test process, and mpirun can only exec
 * programs: so mpirun starts one proxy per rank, the proxy hands the
 * environment mpirun gave it (PMIX_*, OMPI_*: the rank's PMIx identity) to
 * the harness over a unix socket, and the harness forks the PE, which runs
 * the body with that environment and joins the job as that rank's PMIx
 * client.  The proxy then only waits: it ends as the PE ended (same exit
 * code, or killed by the same signal), so mpirun sees the job end as if
 * the PE had been its own child.
 *
 * Usage: mpirun_proxy SOCKET_PATH
 * Protocol: proxy -> harness: u32 length, then every "NAME=value" of its
 * environment, each ending in '\0'.  harness -> proxy: one int, the PE's
 * waitpid() status.  End of file instead: the harness is gone (exit 125).
 */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

static int write_all(int fd, const void *buf, size_t len)
{
    const char *p = buf;
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return -1;
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: mpirun_proxy SOCKET_PATH\n");
        return 2;
    }
    /* mpirun killed hard must not leave this process waiting on its own */
    prctl(PR_SET_PDEATHSIG, SIGKILL);

    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (strlen(argv[1]) >= sizeof(sa.sun_path)) {
        fprintf(stderr, "mpirun_proxy: socket path too long: %s\n", argv[1]);
        return 2;
    }
    strcpy(sa.sun_path, argv[1]);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa)) != 0) {
        fprintf(stderr, "mpirun_proxy: cannot reach the test harness at %s: %s\n", argv[1],
                strerror(errno));
        return 125;
    }

    size_t len = 0;
    for (char **e = environ; *e; e++)
        len += strlen(*e) + 1;
    char *block = malloc(len ? len : 1);
    if (!block)
        return 125;
    char *p = block;
    for (char **e = environ; *e; e++) {
        size_t l = strlen(*e) + 1;
        memcpy(p, *e, l);
        p += l;
    }
    uint32_t len32 = (uint32_t)len;
    if (write_all(fd, &len32, sizeof(len32)) != 0 || write_all(fd, block, len) != 0) {
        fprintf(stderr, "mpirun_proxy: cannot send the environment to the harness: %s\n",
                strerror(errno));
        return 125;
    }
    free(block);

    int status;
    size_t got = 0;
    while (got < sizeof(status)) {
        ssize_t n = read(fd, (char *)&status + got, sizeof(status) - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return 125; /* the harness gave up on the job */
        got += (size_t)n;
    }
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        signal(sig, SIG_DFL);
        prctl(PR_SET_DUMPABLE, 0); /* the PE's core, if any, was the PE's */
        kill(getpid(), sig);
        return 128 + sig; /* a signal that does not kill (SIGCHLD...) */
    }
    return WEXITSTATUS(status);
}
