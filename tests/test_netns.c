/*
 * test_netns.c - a job across "hosts": network namespaces on this machine,
 * joined by veth pairs, each PE started by hand inside its namespace with
 * the TCP rendezvous, the ofi transport (tcp;ofi_rxm) between namespaces
 * and shm inside one.
 *
 * Topology (made by the test, removed by its fini): a hub namespace routes
 * between spoke namespaces; spoke k has eth0 = 10.77.k.2/24, the hub's end
 * is 10.77.k.1 and the spoke's default route.  The hub only forwards: it
 * stands for the switch between hosts.  PE 0 runs in spoke 1 and listens on
 * 10.77.1.2.  Namespaces share the host name, boot id and /dev/shm with
 * each other: only the network namespace in the host identity tells them
 * apart, which is exactly what is being tested.
 *
 * The namespaces carry the creating worker's pid (symheap-PID-hub,
 * symheap-PID-K), and they never outlive it, even when Criterion kills the
 * worker on a timeout (its fini does not run then): a guardian process,
 * in a session of its own, holds the read end of a pipe whose only write
 * end is the worker's and deletes the worker's namespaces (and with them
 * their veth links) when that pipe closes, however the worker ended.  In
 * case the guardian was killed too (a kill of everything), each test first
 * deletes the namespaces of this naming scheme whose worker is dead
 * (kill(pid, 0) fails with ESRCH); a live run's are never touched.
 *
 * Needs root and `ip` (iproute2).  Where namespaces cannot be made the
 * tests are reported as SKIPPED with the reason, never as passed.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>
#include <signal.h>
#include <unistd.h>

#include "boot_jobs.h"

#define MAX_SPOKES 3

static int nspokes;
static char ns_hub[32], ns_spoke[MAX_SPOKES][32];
static char setup_error[1024];

/* Run a command quietly; its output goes to setup_error on failure. */
static int sh(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int sh(const char *fmt, ...)
{
    char cmd[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(cmd, sizeof(cmd), fmt, ap);
    va_end(ap);
    char full[700];
    snprintf(full, sizeof(full), "%s 2>&1", cmd);
    FILE *p = popen(full, "r");
    if (!p)
        return -1;
    char out[256] = "";
    size_t n = fread(out, 1, sizeof(out) - 1, p);
    out[n] = '\0';
    int rc = pclose(p);
    if (rc != 0)
        snprintf(setup_error, sizeof(setup_error), "`%s` failed: %s", cmd, out);
    return rc;
}

static pid_t guardian = -1;
static int guardian_fd = -1; /* the write end of the guardian's pipe */

static void net_teardown(void)
{
    for (int k = 0; k < nspokes; k++)
        if (ns_spoke[k][0])
            sh("ip netns del %s", ns_spoke[k]);
    if (ns_hub[0])
        sh("ip netns del %s", ns_hub);
    nspokes = 0;
    ns_hub[0] = '\0';
    if (guardian_fd >= 0) { /* nothing left for the guardian: let it go */
        close(guardian_fd);
        guardian_fd = -1;
    }
    if (guardian > 0) {
        while (waitpid(guardian, NULL, 0) < 0 && errno == EINTR)
            ;
        guardian = -1;
    }
}

/* The pid in a namespace name of this test's scheme (symheap-PID-hub or
 * symheap-PID-K), or -1 for any other name. */
static long scheme_pid(const char *name)
{
    long pid;
    int k, end = 0;
    char hub[4];
    if (sscanf(name, "symheap-%ld-%3[hub]%n", &pid, hub, &end) == 2 && !strcmp(hub, "hub") &&
        name[end] == '\0')
        return pid > 0 ? pid : -1;
    end = 0;
    if (sscanf(name, "symheap-%ld-%d%n", &pid, &k, &end) == 2 && name[end] == '\0' && k > 0)
        return pid > 0 ? pid : -1;
    return -1;
}

/* Delete the namespaces of this scheme whose creating worker is dead: left
 * by a run whose worker and guardian were both killed.  A name whose pid
 * is alive (another run now, or a recycled pid) is left alone. */
static void sweep_stale(void)
{
    DIR *d = opendir("/run/netns");
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d))) {
        long pid = scheme_pid(e->d_name);
        if (pid > 0 && pid != (long)getpid() && kill((pid_t)pid, 0) < 0 && errno == ESRCH)
            sh("ip netns del %s", e->d_name);
    }
    closedir(d);
}

/* Start the guardian that deletes this worker's namespaces once the worker
 * is gone.  A shell in its own session (so a kill of the worker's process
 * group spares it), with no descriptor of the worker's but the pipe's read
 * end: it must hold none of Criterion's pipes open after the worker died. */
static void start_guardian(int id)
{
    int p[2];
    if (pipe2(p, O_CLOEXEC) != 0)
        cr_skip_test("SKIPPED: pipe for the namespace guardian: %s", strerror(errno));
    char script[512];
    snprintf(script, sizeof(script),
             "cat >/dev/null; for n in $(ip netns list | sed -n "
             "'s/^\\(symheap-%d-[0-9a-z]*\\).*/\\1/p'); "
             "do ip netns del \"$n\"; done",
             id);
    pid_t pid = fork();
    if (pid < 0)
        cr_skip_test("SKIPPED: fork for the namespace guardian: %s", strerror(errno));
    if (pid == 0) {
        setsid();
        int null = open("/dev/null", O_RDWR);
        if (dup2(p[0], 0) < 0 || null < 0 || dup2(null, 1) < 0 || dup2(null, 2) < 0)
            _exit(127);
        for (int fd = 3; fd < 1024; fd++) /* Criterion's, inherited without CLOEXEC */
            close(fd);
        execl("/bin/sh", "sh", "-c", script, (char *)NULL);
        _exit(127);
    }
    close(p[0]);
    guardian = pid;
    guardian_fd = p[1];
}

/* Wait until the kernel marks link `dev` in namespace `ns` running
 * (operstate UP, IFF_RUNNING), which follows `ip link set up` by a moment
 * (up to about a second).  libfabric's tcp provider lists only running
 * interfaces: a PE started before that saw lo alone and advertised
 * 127.0.0.1, which the other hosts' PEs cannot reach (sym_init now says
 * so; it used to fail with -FI_EINVAL from connect()).  A real host's
 * network is up before jobs start on it. */
static bool link_running(const char *ns, const char *dev)
{
    for (int k = 0; k < 1000; k++) { /* 20 s */
        if (sh("ip -n %s -o link show dev %s | grep -q 'state UP'", ns, dev) == 0)
            return true;
        struct timespec ts = {0, 20000000};
        nanosleep(&ts, NULL);
    }
    snprintf(setup_error, sizeof(setup_error),
             "link %s in namespace %s is not running 20 s "
             "after it was set up",
             dev, ns);
    return false;
}

/* Make the hub and `n` spokes; skips the test when that is impossible. */
static void net_setup(int n)
{
    setup_error[0] = '\0';
    if (geteuid() != 0)
        cr_skip_test("SKIPPED: network namespaces need root (running as uid %d)", (int)geteuid());
    if (sh("ip -V") != 0)
        cr_skip_test("SKIPPED: the ip command (iproute2) is not available: %s", setup_error);
    int id = (int)getpid();
    sweep_stale();
    start_guardian(id);
    snprintf(ns_hub, sizeof(ns_hub), "symheap-%d-hub", id);
    bool ok = sh("ip netns add %s", ns_hub) == 0;
    if (!ok) {
        ns_hub[0] = '\0';
        cr_skip_test("SKIPPED: cannot create a network namespace here: %s", setup_error);
    }
    ok = sh("ip -n %s link set lo up", ns_hub) == 0 &&
         sh("ip netns exec %s sh -c 'echo 1 > /proc/sys/net/ipv4/ip_forward'", ns_hub) == 0;
    for (int k = 1; ok && k <= n; k++) {
        snprintf(ns_spoke[k - 1], sizeof(ns_spoke[k - 1]), "symheap-%d-%d", id, k);
        ok = sh("ip netns add %s", ns_spoke[k - 1]) == 0;
        if (!ok) {
            ns_spoke[k - 1][0] = '\0';
            break;
        }
        nspokes = k;
        const char *s = ns_spoke[k - 1];
        ok = sh("ip -n %s link add h%d type veth peer name eth0 netns %s", ns_hub, k, s) == 0 &&
             sh("ip -n %s addr add 10.77.%d.1/24 dev h%d", ns_hub, k, k) == 0 &&
             sh("ip -n %s link set h%d up", ns_hub, k) == 0 &&
             sh("ip -n %s addr add 10.77.%d.2/24 dev eth0", s, k) == 0 &&
             sh("ip -n %s link set eth0 up", s) == 0 && sh("ip -n %s link set lo up", s) == 0 &&
             sh("ip -n %s route add default via 10.77.%d.1", s, k) == 0;
    }
    for (int k = 1; ok && k <= n; k++) {
        char hub_end[16];
        snprintf(hub_end, sizeof(hub_end), "h%d", k);
        ok = link_running(ns_hub, hub_end) && link_running(ns_spoke[k - 1], "eth0");
    }
    if (!ok) {
        char why[1024];
        snprintf(why, sizeof(why), "%s", setup_error);
        net_teardown();
        cr_skip_test("SKIPPED: cannot build the veth network between namespaces: %s", why);
    }
}

static void fini(void)
{
    net_teardown();
}

/* Start PE r of job j in spoke `spoke` (1-based). */
static void start_in(struct bjob *j, int r, int spoke, const char *groups, int port,
                     const char *const *args)
{
    static char root[BJOB_MAX][64], grp[BJOB_MAX][128];
    snprintf(root[r], sizeof(root[r]), "SYMHEAP_ROOT_ADDR=10.77.1.2:%d", port);
    snprintf(grp[r], sizeof(grp[r]), "BOOT_PE_GROUPS=%s", groups);
    const char *prefix[] = {"ip", "netns", "exec", ns_spoke[spoke - 1], NULL};
    /* FI_TCP_IFACE: the spoke's link, as one would name the cluster
     * network on a real host with several interfaces. */
    /* 200 contended ticket rounds instead of 2000: every round of every
     * PE needs PE 0 (and PE 3) to be scheduled (manual progress), so on a
     * loaded 2-core host the 2000 rounds alone outlasted SYMHEAP_TIMEOUT
     * for the PE that finished first and waited in the next barrier
     * (seen at load 30); 200 rounds of 4
     * PEs on one word still interleave. */
    const char *env[] = {root[r], grp[r], "FI_TCP_IFACE=eth0", "SYMHEAP_TIMEOUT=30",
                         "BOOT_PE_CONTEND_ROUNDS=200",
                         /* connections between hosts set up inside sym_init,
                          * while every PE is there to accept them */
                         "SYMHEAP_OFI_EAGER_CONNECT=1", NULL};
    bjob_start_tcp(j, r, prefix, env, args);
}

static const char *digest_of(struct bjob *j, int r, char *buf, size_t len)
{
    char *out = bjob_output(j, r);
    const char *d = out ? strstr(out, "digest:") : NULL;
    snprintf(buf, len, "%.23s", d ? d : "(none)");
    free(out);
    return buf;
}

/* 4 PEs on 3 hosts: two in spoke 1 (shm between them), one in each of the
 * others; put/get ring, atomics, barriers and allreduce over ofi between
 * hosts, and each PE checks that only its own host's peers are mapped. */
Test(netns, three_hosts, .fini = fini, .timeout = 240)
{
    net_setup(3);
    struct bjob job;
    bjob_init(&job, 4);
    static const int spoke_of[] = {1, 1, 2, 3};
    for (int r = 0; r < 4; r++)
        start_in(&job, r, spoke_of[r], "1,1,2,3", 5301, (const char *[]){"check", NULL});
    bjob_wait(&job, 180);
    static const char *const shm[] = {"shm:0,1 ", "shm:0,1 ", "shm:2 ", "shm:3 "};
    for (int r = 0; r < 4; r++) {
        bjob_assert_exit(&job, r, 0);
        char want[64];
        snprintf(want, sizeof(want), "pe %d of 4 ok %s", r, shm[r]);
        bjob_assert_output(&job, r, want);
    }
    bjob_fini(&job);
}

/* The same job, and the PE alone on host 2 is killed after init: every
 * survivor gets SYM_ERR_PEER_LOST naming it.  Nobody can see that process
 * die directly (it is on another "host"): the news comes from the
 * bootstrap connections. */
Test(netns, host_pe_killed, .fini = fini, .timeout = 240)
{
    net_setup(3);
    struct bjob job;
    bjob_init(&job, 4);
    static const int spoke_of[] = {1, 1, 2, 3};
    for (int r = 0; r < 4; r++)
        start_in(&job, r, spoke_of[r], "1,1,2,3", 5302, (const char *[]){"die", "2", NULL});
    bjob_wait(&job, 180);
    bjob_assert_signal(&job, 2, SIGKILL);
    for (int r = 0; r < 4; r++) {
        if (r == 2)
            continue;
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r, "lost: sym_barrier_all: PE 2 lost its bootstrap connection");
    }
    bjob_fini(&job);
}

/* Mixed job: 2 PEs on each of 2 hosts.  Same-host peers are reached through
 * shm (sym_ptr non-NULL), the others through ofi (NULL); the allreduce
 * results are bit-identical to those of the same job on one host. */
Test(netns, mixed_two_by_two, .fini = fini, .timeout = 240)
{
    net_setup(2);
    struct bjob job;
    bjob_init(&job, 4);
    static const int spoke_of[] = {1, 1, 2, 2};
    for (int r = 0; r < 4; r++)
        start_in(&job, r, spoke_of[r], "1,1,2,2", 5303, (const char *[]){"check", NULL});
    bjob_wait(&job, 180);
    static const char *const shm[] = {"shm:0,1 ", "shm:0,1 ", "shm:2,3 ", "shm:2,3 "};
    for (int r = 0; r < 4; r++) {
        bjob_assert_exit(&job, r, 0);
        char want[64];
        snprintf(want, sizeof(want), "pe %d of 4 ok %s", r, shm[r]);
        bjob_assert_output(&job, r, want);
    }
    /* the reference: the same 4 PEs on one host, all shm */
    struct bjob ref;
    bjob_init(&ref, 4);
    char addr[64];
    snprintf(addr, sizeof(addr), "SYMHEAP_ROOT_ADDR=127.0.0.1:%d", bjob_free_port());
    const char *env[] = {addr, NULL};
    for (int r = 0; r < 4; r++)
        bjob_start_tcp(&ref, r, NULL, env, (const char *[]){"check", NULL});
    bjob_wait(&ref, 120);
    char a[32], b[32];
    for (int r = 0; r < 4; r++) {
        bjob_assert_exit(&ref, r, 0);
        bjob_assert_output(&ref, r, "shm:0,1,2,3 ");
        cr_assert_str_eq(digest_of(&job, r, a, sizeof(a)), digest_of(&ref, r, b, sizeof(b)),
                         "PE %d: the mixed job's results differ from the one-host job's", r);
    }
    bjob_fini(&ref);
    bjob_fini(&job);
}

/* A PE whose provider finds no running interface advertises the loopback
 * address (libfabric's tcp provider falls back to lo without a word);
 * peers on other hosts cannot reach it, which used to surface as a bare
 * -FI_EINVAL from the first connection.  Here PE 1's FI_TCP_IFACE names
 * an interface that is down (its bootstrap still goes over eth0): PE 0,
 * the bootstrap root, which has every address first, must fail sym_init
 * with SYM_ERR_UNAVAILABLE naming PE 1 and its address.  PE 1 checks the
 * same addresses and fails alike, with the same message: the root exits
 * right after sending them, and its EOF often arrives with them, which
 * must not turn PE 1's error into "the root was lost" (it did in 2 of 5
 * runs before the bootstrap let a completed step win over a later loss). */
Test(netns, loopback_address_refused, .fini = fini, .timeout = 240)
{
    net_setup(2);
    /* a veth pair left down inside spoke 2: an interface, never running */
    cr_assert(sh("ip -n %s link add nic1 type veth peer name nic1p", ns_spoke[1]) == 0 &&
                  sh("ip -n %s addr add 10.78.2.2/24 dev nic1", ns_spoke[1]) == 0,
              "cannot add the interface that stays down: %s", setup_error);
    struct bjob job;
    bjob_init(&job, 2);
    static const char *const iface[] = {"FI_TCP_IFACE=eth0", "FI_TCP_IFACE=nic1"};
    for (int r = 0; r < 2; r++) {
        const char *prefix[] = {"ip", "netns", "exec", ns_spoke[r], NULL};
        const char *env[] = {"SYMHEAP_ROOT_ADDR=10.77.1.2:5304", iface[r], NULL};
        bjob_start_tcp(&job, r, prefix, env,
                       (const char *[]){"init-fails", "SYM_ERR_UNAVAILABLE", NULL});
    }
    bjob_wait(&job, 120);
    for (int r = 0; r < 2; r++) {
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r,
                           "PE 1's libfabric address on provider tcp;ofi_rxm is the "
                           "loopback address 127.0.0.1, which PE 0 on another host "
                           "cannot reach");
    }
    bjob_fini(&job);
}
