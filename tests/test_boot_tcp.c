/*
 * test_boot_tcp.c - jobs that symrun does not start, joined by the TCP
 * rendezvous: PEs started by hand (SYMHEAP_RANK, SYMHEAP_SIZE,
 * SYMHEAP_ROOT_ADDR), each running the self-checking program boot_pe
 * ($BOOT_PE) with its own output file; the test checks every PE's exit
 * status and what it printed.
 *
 * Covered: put/get/atomics/barrier/allreduce at 1..5 PEs, over shm and
 * ofi; a PE that never shows up (and a missing root): every PE reports it,
 * naming it, within the timeout; a killed PE (and a killed root): the
 * survivors get SYM_ERR_PEER_LOST naming it; a busy or foreign root
 * address, a malformed one, inconsistent SYMHEAP_SIZE/SYMHEAP_RANK and a
 * duplicate rank: clear errors; strangers at the root address; a peer on
 * another host that SYMHEAP_TRANSPORT=shm cannot reach.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "boot_jobs.h"

static void root_env(char *buf, size_t len, const char *host, int port)
{
    snprintf(buf, len, "SYMHEAP_ROOT_ADDR=%s:%d", host, port);
}

/* ---- data over the rendezvous ------------------------------------------ */

ParameterizedTestParameters(boot_tcp, check)
{
    static int counts[] = {1, 2, 3, 5};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, boot_tcp, check)
{
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, *npes);
    for (int r = 0; r < *npes; r++)
        bjob_start_tcp(&job, r, NULL, (const char *[]){addr, NULL},
                       (const char *[]){"check", NULL});
    bjob_wait(&job, 60);
    for (int r = 0; r < *npes; r++) {
        bjob_assert_exit(&job, r, 0);
        char want[64];
        snprintf(want, sizeof(want), "pe %d of %d ok", r, *npes);
        bjob_assert_output(&job, r, want);
    }
    bjob_fini(&job);
}

/* The same check with every peer reached through libfabric, on both
 * providers CI has (the rendezvous launches the suite's ofi path too):
 * put/get ring, atomics from every PE, allreduce, global variables. */
struct ofi_check {
    int npes;
    char provider[40]; /* inline: the runner passes parameters by value to re-executed workers */
};

ParameterizedTestParameters(boot_tcp, check_ofi)
{
    static struct ofi_check cases[] = {{2, "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm"},
                                       {3, "SYMHEAP_OFI_PROVIDER=shm"}};
    return cr_make_param_array(struct ofi_check, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct ofi_check *c, boot_tcp, check_ofi)
{
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, c->npes);
    for (int r = 0; r < c->npes; r++)
        bjob_start_tcp(&job, r, NULL,
                       (const char *[]){addr, "SYMHEAP_TRANSPORT=ofi", c->provider, NULL},
                       (const char *[]){"check", NULL});
    bjob_wait(&job, 120);
    for (int r = 0; r < c->npes; r++) {
        bjob_assert_exit(&job, r, 0);
        char want[64]; /* only my own heap is mapped: every peer went through ofi */
        snprintf(want, sizeof(want), "pe %d of %d ok shm:%d ", r, c->npes, r);
        bjob_assert_output(&job, r, want);
    }
    bjob_fini(&job);
}

/* ---- PEs that never show up -------------------------------------------- */

Test(boot_tcp, pe_never_connects)
{
    char addr[64];
    int port = bjob_free_port();
    root_env(addr, sizeof(addr), "127.0.0.1", port);
    struct bjob job;
    bjob_init(&job, 4);
    for (int r = 0; r < 4; r++)
        if (r != 2)
            bjob_start_tcp(&job, r, NULL, (const char *[]){addr, "SYMHEAP_TIMEOUT=2", NULL},
                           (const char *[]){"init-fails", "SYM_ERR_TIMEOUT", NULL});
    bjob_wait(&job, 30);
    char want[128];
    snprintf(want, sizeof(want), "PE 2 never joined at 127.0.0.1:%d within 2 s", port);
    for (int r = 0; r < 4; r++)
        if (r != 2) {
            bjob_assert_exit(&job, r, 0);
            bjob_assert_output(&job, r, want);
        }
    bjob_fini(&job);
}

Test(boot_tcp, root_never_listens)
{
    char addr[64];
    int port = bjob_free_port();
    root_env(addr, sizeof(addr), "127.0.0.1", port);
    struct bjob job;
    bjob_init(&job, 3);
    for (int r = 1; r < 3; r++)
        bjob_start_tcp(&job, r, NULL, (const char *[]){addr, "SYMHEAP_TIMEOUT=1", NULL},
                       (const char *[]){"init-fails", "SYM_ERR_TIMEOUT", NULL});
    bjob_wait(&job, 30);
    for (int r = 1; r < 3; r++) {
        char want[160];
        snprintf(want, sizeof(want),
                 "PE %d never connected to the root (PE 0) at 127.0.0.1:%d within 1 s", r, port);
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r, want);
    }
    bjob_fini(&job);
}

/* ---- PEs that die ------------------------------------------------------ */

ParameterizedTestParameters(boot_tcp, killed)
{
    /* victim: a non-root PE, then the root itself */
    static int victims[] = {2, 0};
    return cr_make_param_array(int, victims, sizeof(victims) / sizeof(victims[0]));
}

ParameterizedTest(int *victim, boot_tcp, killed)
{
    char addr[64], arg[16];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    snprintf(arg, sizeof(arg), "%d", *victim);
    struct bjob job;
    bjob_init(&job, 4);
    for (int r = 0; r < 4; r++)
        bjob_start_tcp(&job, r, NULL, (const char *[]){addr, NULL},
                       (const char *[]){"die", arg, NULL});
    bjob_wait(&job, 60);
    char want[32];
    snprintf(want, sizeof(want), "lost: sym_barrier_all: PE %d ", *victim);
    for (int r = 0; r < 4; r++) {
        if (r == *victim) {
            bjob_assert_signal(&job, r, SIGKILL);
            continue;
        }
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r, want);
    }
    bjob_fini(&job);
}

/* The PEs in this job are all on one host, where shm's own process probe
 * could notice the death too; the loss must come from the bootstrap
 * connections: with the shm probe out of the picture (PEs are then
 * "remote" to each other only through ofi) that is covered by the
 * network-namespace tests.  Here: the message says where it came from. */
Test(boot_tcp, loss_relayed_by_root)
{
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, 3);
    for (int r = 0; r < 3; r++)
        bjob_start_tcp(&job, r, NULL, (const char *[]){addr, NULL},
                       (const char *[]){"die", "1", NULL});
    bjob_wait(&job, 60);
    bjob_assert_signal(&job, 1, SIGKILL);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_exit(&job, 2, 0);
    bjob_assert_output(&job, 0, "PE 1 lost its bootstrap connection without finalizing");
    bjob_assert_output(&job, 2, "PE 1 lost its bootstrap connection without finalizing");
    bjob_assert_output(&job, 2, "reported by the root, PE 0");
    bjob_fini(&job);
}

/* ---- bad addresses and inconsistent settings ---------------------------- */

Test(boot_tcp, busy_root_address)
{
    /* Another program already listens on the root address: PE 0 says so;
     * PE 1, which reaches that program instead, hears no symheap answer. */
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    cr_assert(lfd >= 0 && bind(lfd, (void *)&a, sizeof(a)) == 0 && listen(lfd, 8) == 0 &&
              getsockname(lfd, (void *)&a, &len) == 0);
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", ntohs(a.sin_port));
    struct bjob job;
    bjob_init(&job, 2);
    bjob_start_tcp(&job, 0, NULL, (const char *[]){addr, "SYMHEAP_TIMEOUT=1", NULL},
                   (const char *[]){"init-fails", "SYM_ERR_BOOTSTRAP", NULL});
    bjob_start_tcp(&job, 1, NULL, (const char *[]){addr, "SYMHEAP_TIMEOUT=1", NULL},
                   (const char *[]){"init-fails", "SYM_ERR_TIMEOUT", NULL});
    bjob_wait(&job, 30);
    close(lfd);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_output(&job, 0, "PE 0 cannot listen on 127.0.0.1:");
    bjob_assert_output(&job, 0, "Address already in use");
    bjob_assert_exit(&job, 1, 0);
    bjob_assert_output(&job, 1, "the root (PE 0) at 127.0.0.1:");
    bjob_assert_output(&job, 1, "is SYMHEAP_ROOT_ADDR the address PE 0 listens on?");
    bjob_fini(&job);
}

/* SYMHEAP_INIT_TIMEOUT, not SYMHEAP_TIMEOUT, bounds meeting the root. */
Test(boot_tcp, init_timeout_bounds_init)
{
    char addr[64];
    int port = bjob_free_port();
    root_env(addr, sizeof(addr), "127.0.0.1", port);
    struct bjob job;
    bjob_init(&job, 2);
    bjob_start_tcp(&job, 1, NULL,
                   (const char *[]){addr, "SYMHEAP_TIMEOUT=600", "SYMHEAP_INIT_TIMEOUT=1", NULL},
                   (const char *[]){"init-fails", "SYM_ERR_TIMEOUT", NULL});
    bjob_wait(&job, 30);
    char want[160];
    snprintf(want, sizeof(want),
             "PE 1 never connected to the root (PE 0) at 127.0.0.1:%d within 1 s", port);
    bjob_assert_exit(&job, 1, 0);
    bjob_assert_output(&job, 1, want);
    bjob_assert_output(&job, 1, "(SYMHEAP_INIT_TIMEOUT)"); /* what set the limit */
    bjob_fini(&job);
}

Test(boot_tcp, root_address_not_local)
{
    /* 192.0.2.1 is TEST-NET-1: never an address of this host */
    struct bjob job;
    bjob_init(&job, 1);
    bjob_start_tcp(&job, 0, NULL,
                   (const char *[]){"SYMHEAP_ROOT_ADDR=192.0.2.1:5000", "SYMHEAP_SIZE=2",
                                    "SYMHEAP_TIMEOUT=1", NULL},
                   (const char *[]){"init-fails", "SYM_ERR_BOOTSTRAP", NULL});
    bjob_wait(&job, 30);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_output(&job, 0, "PE 0 cannot listen on 192.0.2.1:5000");
    bjob_assert_output(&job, 0, "not an address of this host");
    bjob_fini(&job);
}

Test(boot_tcp, bad_settings)
{
    struct {
        const char *env[4];
        const char *status;
        const char *says;
    } cases[] = {
        {{"SYMHEAP_ROOT_ADDR=localhost", NULL},
         "SYM_ERR_CONFIG",
         "SYMHEAP_ROOT_ADDR='localhost' is not valid"},
        {{"SYMHEAP_ROOT_ADDR=127.0.0.1:70000", NULL}, "SYM_ERR_CONFIG", "port 1..65535"},
        {{"SYMHEAP_ROOT_ADDR=127.0.0.1:5000", "SYMHEAP_SIZE=0", NULL},
         "SYM_ERR_CONFIG",
         "needs SYMHEAP_SIZE"},
        {{"SYMHEAP_ROOT_ADDR=127.0.0.1:5000", "SYMHEAP_SIZE=2", "SYMHEAP_RANK=2", NULL},
         "SYM_ERR_CONFIG",
         "needs SYMHEAP_RANK, this PE's number 0..1; got '2'"},
        {{"SYMHEAP_BOOTSTRAP=tcp", "SYMHEAP_SIZE=2", NULL},
         "SYM_ERR_CONFIG",
         "needs SYMHEAP_ROOT_ADDR"},
        {{"SYMHEAP_BOOTSTRAP=mpi", NULL}, "SYM_ERR_CONFIG", "{auto|pmix|symrun|tcp|singleton}"},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct bjob job;
        bjob_init(&job, 1);
        /* SYMHEAP_RANK stays unset unless the case sets it */
        bjob_start(&job, 0, NULL, cases[i].env,
                   (const char *[]){"init-fails", cases[i].status, NULL});
        bjob_wait(&job, 30);
        bjob_assert_exit(&job, 0, 0);
        bjob_assert_output(&job, 0, cases[i].says);
        bjob_fini(&job);
    }
}

Test(boot_tcp, inconsistent_job)
{
    /* PE 1 thinks the job has 3 PEs, PE 2 claims PE 1's number: the root
     * names both mistakes, and every PE fails with the root's words. */
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, 2);
    bjob_start(
        &job, 0, NULL,
        (const char *[]){addr, "SYMHEAP_RANK=0", "SYMHEAP_SIZE=2", "SYMHEAP_TIMEOUT=5", NULL},
        (const char *[]){"init-fails", "SYM_ERR_BOOTSTRAP", NULL});
    bjob_start(
        &job, 1, NULL,
        (const char *[]){addr, "SYMHEAP_RANK=1", "SYMHEAP_SIZE=3", "SYMHEAP_TIMEOUT=5", NULL},
        (const char *[]){"init-fails", "SYM_ERR_BOOTSTRAP", NULL});
    bjob_wait(&job, 30);
    for (int r = 0; r < 2; r++) {
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r,
                           "PE 1 was started with SYMHEAP_SIZE=3, the root with SYMHEAP_SIZE=2");
    }
    bjob_fini(&job);
}

Test(boot_tcp, duplicate_rank)
{
    /* two processes claim PE 1 (PE 2 is never started): the root says so
     * and every process fails with its words, long before the timeout */
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, 3);
    for (int slot = 0; slot < 3; slot++) {
        char rank[32];
        snprintf(rank, sizeof(rank), "SYMHEAP_RANK=%d", slot ? 1 : 0);
        bjob_start(&job, slot, NULL,
                   (const char *[]){addr, rank, "SYMHEAP_SIZE=3", "SYMHEAP_TIMEOUT=60", NULL},
                   (const char *[]){"init-fails", "SYM_ERR_BOOTSTRAP", NULL});
    }
    bjob_wait(&job, 50);
    for (int slot = 0; slot < 3; slot++) {
        bjob_assert_exit(&job, slot, 0);
        bjob_assert_output(&job, slot, "two PEs were started with SYMHEAP_RANK=1");
    }
    bjob_fini(&job);
}

/* ---- strangers at the root address ------------------------------------- */

/* Connect to 127.0.0.1:port, retrying until `deadline_s` (the root may not
 * listen yet).  Blocking socket, or -1. */
static int stranger_connect(int port, double deadline_s)
{
    for (int tries = 0; tries < (int)(deadline_s * 20); tries++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (fd >= 0 && connect(fd, (void *)&a, sizeof(a)) == 0)
            return fd;
        if (fd >= 0)
            close(fd);
        struct timespec ts = {0, 50000000};
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* Send `len` junk bytes after `hdr` (8 bytes, or NULL); true if the root
 * took them all, false once it refused the connection. */
static bool stranger_send(int fd, const uint32_t *hdr, size_t len)
{
    struct timeval tv = {30, 0}; /* never wait forever on a stuck root */
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (hdr && send(fd, hdr, 8, MSG_NOSIGNAL) != 8)
        return false;
    static char junk[65536];
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (char)(i * 131 + 7);
    while (len) {
        ssize_t n = send(fd, junk, len < sizeof(junk) ? len : sizeof(junk), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        len -= (size_t)n;
    }
    return true;
}

/* True when the root closes the connection within 30 s. */
static bool stranger_closed(int fd)
{
    struct timeval tv = {30, 0};
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char buf[256];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n == 0 || (n < 0 && errno != EINTR))
            return n == 0 || errno == ECONNRESET;
    }
}

Test(boot_tcp, strangers_at_root)
{
    /* Before the PEs 1 and 2 start, a stranger connects to the root again
     * and again: an oversized "hello" of 16 MiB, junk, a header announcing
     * 4 GiB, then more connections that say nothing than the root keeps
     * pending.  Each is closed, the root says why, and the job then starts
     * and passes its checks. */
    int port = bjob_free_port();
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", port);
    /* strangers are logged under SYMHEAP_DEBUG (which every PE must share:
     * it adds checks to collective allocations) */
    const char *env[] = {addr, "SYMHEAP_TIMEOUT=60", "SYMHEAP_DEBUG=1", NULL};
    struct bjob job;
    bjob_init(&job, 3);
    bjob_start_tcp(&job, 0, NULL, env, (const char *[]){"check", NULL});

    int fd = stranger_connect(port, 30);
    cr_assert(fd >= 0, "the root never listened on port %d", port);
    uint32_t big_hello[2] = {htonl(1), htonl(16u << 20)};
    bool took = stranger_send(fd, big_hello, 16u << 20);
    close(fd);
    cr_expect(!took, "the root read a 16 MiB 'hello' from a connection that never said hello");

    fd = stranger_connect(port, 5);
    cr_assert(fd >= 0, "the root stopped accepting");
    stranger_send(fd, NULL, 65536);
    cr_expect(stranger_closed(fd), "the root kept a connection that sent junk");
    close(fd);

    fd = stranger_connect(port, 5);
    cr_assert(fd >= 0, "the root stopped accepting");
    uint32_t huge[2] = {htonl(4), htonl(0xffffffffu)};
    stranger_send(fd, huge, 0);
    cr_expect(stranger_closed(fd), "the root kept a connection announcing 4 GiB");
    close(fd);

    enum { IDLE = 70 };
    int idle[IDLE];
    for (int i = 0; i < IDLE; i++) {
        idle[i] = stranger_connect(port, 5);
        cr_assert(idle[i] >= 0, "the root stopped accepting after %d silent connections", i);
    }
    cr_expect(stranger_closed(idle[0]), "the root kept more silent connections than it should");

    for (int r = 1; r < 3; r++)
        bjob_start_tcp(&job, r, NULL, env, (const char *[]){"check", NULL});
    bjob_wait(&job, 90);
    for (int i = 0; i < IDLE; i++)
        close(idle[i]);
    for (int r = 0; r < 3; r++) {
        bjob_assert_exit(&job, r, 0);
        char want[64];
        snprintf(want, sizeof(want), "pe %d of 3 ok", r);
        bjob_assert_output(&job, r, want);
    }
    bjob_assert_output(&job, 0, "closed a connection from 127.0.0.1");
    bjob_assert_output(&job, 0, "its first message is not a symheap hello");
    bjob_assert_output(&job, 0, "too many connections without a hello");
    bjob_fini(&job);
}

/* ---- SYMHEAP_TRANSPORT=shm with a peer on another host ------------------ */

/* PE 1 runs with a /dev/shm of its own (a private mount namespace: a
 * container's view), so it is on another "host" for the shm transport
 * (src/bootstrap/host_id.c) while the rendezvous still goes over
 * 127.0.0.1.  SYMHEAP_TRANSPORT=shm cannot reach it: sym_init fails with
 * SYM_ERR_UNAVAILABLE naming the peer instead of falling back to ofi.  PE 1
 * fails alike, unless PE 0's exit overtook the exchange (then it reports
 * PE 0 lost).  Needs root for the mount; skipped otherwise. */
Test(boot_tcp, transport_shm_refuses_other_host)
{
    if (geteuid() != 0 || system("unshare -m true >/dev/null 2>&1") != 0)
        cr_skip_test("SKIPPED: needs root and unshare(1) for a private /dev/shm");
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    const char *env[] = {addr, "SYMHEAP_TRANSPORT=shm", "SYMHEAP_TIMEOUT=30", NULL};
    const char *private_shm[] = {"unshare",
                                 "-m",
                                 "sh",
                                 "-c",
                                 "mount -t tmpfs -o mode=1777 symheap-test /dev/shm && "
                                 "exec \"$0\" \"$@\"",
                                 NULL};
    struct bjob job;
    bjob_init(&job, 2);
    bjob_start_tcp(&job, 0, NULL, env, (const char *[]){"init-fails", "SYM_ERR_UNAVAILABLE", NULL});
    bjob_start_tcp(&job, 1, private_shm, env,
                   (const char *[]){"init-fails", "SYM_ERR_UNAVAILABLE|SYM_ERR_PEER_LOST", NULL});
    bjob_wait(&job, 60);
    for (int r = 0; r < 2; r++)
        bjob_assert_exit(&job, r, 0);
    bjob_assert_output(&job, 0,
                       "PE 1 runs on another host, which SYMHEAP_TRANSPORT=shm cannot "
                       "reach");
    bjob_fini(&job);
}
