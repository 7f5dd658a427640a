/*
 * test_boot_auth.c - strangers and impostors against a forming job of the
 * tcp rendezvous.  Every connection must prove that it knows the job secret
 * (src/bootstrap/boot_tcp.c); these tests speak the wire protocol by hand,
 * as an attacker who can reach the root address would, and check that each
 * attempt is closed, never takes a rank and never fails the job, and that
 * the real PEs still form the job and pass their checks:
 *
 * - impostor_rank: a raw client claiming PE 2 with a made-up proof, and a
 *   real PE program claiming PE 2 with another secret, before the real PE 2;
 * - bad_hellos: an old-protocol hello, a wrong version, rank 0, a rank past
 *   the job, a wrong job size, a valid rank then closing, nothing at all;
 * - replay: a relay between PE 1 and the root records PE 1's handshake and
 *   replays it on a connection of its own before PE 1 finishes: refused;
 * - slow_client: connections that say hello (and take the challenge) or
 *   nothing, then hold on: the job forms without waiting for them, and
 *   they are closed once it has;
 * - user_secret: no secret (the error says how to set one), a secret file,
 *   a file others can read, the opt-out (one warning per PE), and two PEs
 *   with different secrets (each side names the secret, nobody is blamed
 *   for not starting).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "boot_jobs.h"

/* The wire protocol, from the outside (src/bootstrap/tcp.h). */
enum { HELLO = 1, ERROR = 3, CHALLENGE = 8, PROOF = 9 };
#define MAGIC         0x53594d42u
#define VERSION       2u
#define NONCE         32
#define HELLO_LEN     (16 + NONCE)
#define CHALLENGE_LEN (16 + NONCE + 32)

static const char *const ok_args[] = {"check", NULL};

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A blocking connection to 127.0.0.1:port, retried for up to 30 s (the
 * root may not listen yet), with 30 s limits on every send and receive. */
static int dial(int port)
{
    double end = now_s() + 30;
    while (now_s() < end) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = {.sin_family = AF_INET,
                                .sin_port = htons((uint16_t)port),
                                .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
        if (fd >= 0 && connect(fd, (void *)&a, sizeof(a)) == 0) {
            struct timeval tv = {30, 0};
            setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
            setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
            return fd;
        }
        if (fd >= 0)
            close(fd);
        nanosleep(&(struct timespec){0, 20000000}, NULL);
    }
    cr_assert_fail("nothing listens on port %d", port);
    return -1;
}

static void send_msg(int fd, uint32_t type, const void *p, uint32_t len)
{
    uint8_t buf[8 + 256];
    uint32_t hdr[2] = {htonl(type), htonl(len)};
    cr_assert(len <= 256);
    memcpy(buf, hdr, 8);
    memcpy(buf + 8, p, len);
    cr_assert(send(fd, buf, 8 + len, MSG_NOSIGNAL) == (ssize_t)(8 + len), "send: %s",
              strerror(errno));
}

/* Exactly n bytes, or false (closed, reset, or 30 s of silence). */
static bool recv_all(int fd, void *buf, size_t n)
{
    uint8_t *p = buf;
    while (n) {
        ssize_t got = recv(fd, p, n, 0);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return false;
        p += got;
        n -= (size_t)got;
    }
    return true;
}

/* A message of `type` and `len` bytes arrives (into buf). */
static void expect_msg(int fd, uint32_t type, void *buf, uint32_t len)
{
    uint32_t hdr[2];
    cr_assert(recv_all(fd, hdr, 8), "no message from the root (wanted type %u)", type);
    cr_assert(ntohl(hdr[0]) == type && ntohl(hdr[1]) == len,
              "the root sent type %u of %u bytes, wanted type %u of %u", ntohl(hdr[0]),
              ntohl(hdr[1]), type, len);
    cr_assert(recv_all(fd, buf, len));
}

/* The root closes fd (within 30 s), whatever it sends first. */
static bool closed_by_root(int fd)
{
    char buf[256];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n > 0 || (n < 0 && errno == EINTR))
            continue;
        return n == 0 || errno == ECONNRESET;
    }
}

static void hello(uint8_t out[HELLO_LEN], uint32_t version, uint32_t rank, uint32_t size)
{
    uint32_t w[4] = {htonl(MAGIC), htonl(version), htonl(rank), htonl(size)};
    memcpy(out, w, 16);
    cr_assert(getrandom(out + 16, NONCE, 0) == NONCE);
}

/* Claim `rank` of a `size`-PE job, take the challenge, answer with a
 * made-up proof: the root must close the connection. */
static void fake_proof(int port, uint32_t rank, uint32_t size)
{
    int fd = dial(port);
    uint8_t h[HELLO_LEN], ch[CHALLENGE_LEN], proof[32];
    hello(h, VERSION, rank, size);
    send_msg(fd, HELLO, h, sizeof(h));
    expect_msg(fd, CHALLENGE, ch, sizeof(ch));
    cr_assert(getrandom(proof, sizeof(proof), 0) == sizeof(proof));
    send_msg(fd, PROOF, proof, sizeof(proof));
    cr_expect(closed_by_root(fd), "the root kept a connection with a wrong proof for PE %u", rank);
    close(fd);
}

static void addr_env(char *buf, size_t len, int port)
{
    snprintf(buf, len, "SYMHEAP_ROOT_ADDR=127.0.0.1:%d", port);
}

/* Slots 0..n-1 of a job passed their checks. */
static void assert_job_ok(struct bjob *job, int n)
{
    for (int r = 0; r < n; r++) {
        bjob_assert_exit(job, r, 0);
        char want[64];
        snprintf(want, sizeof(want), "pe %d of %d ok", r, n);
        bjob_assert_output(job, r, want);
    }
}

/* Wait (up to 60 s) until slot r has exited (its output says why). */
static void wait_output(struct bjob *job, int r, const char *needle)
{
    double end = now_s() + 60;
    for (;;) {
        char *out = bjob_output(job, r);
        bool found = out && strstr(out, needle);
        free(out);
        if (found)
            return;
        cr_assert(now_s() < end, "slot %d never printed \"%s\"", r, needle);
        nanosleep(&(struct timespec){0, 50000000}, NULL);
    }
}

/* A 3-PE job whose root runs already, with SYMHEAP_DEBUG on every PE
 * (strangers are logged then; the setting must agree across PEs). */
struct auth_job {
    struct bjob job;
    int port;
    char addr[64];
    const char *env[4];
};

static void start_root(struct auth_job *a)
{
    a->port = bjob_free_port();
    addr_env(a->addr, sizeof(a->addr), a->port);
    a->env[0] = a->addr;
    a->env[1] = "SYMHEAP_TIMEOUT=60";
    a->env[2] = "SYMHEAP_DEBUG=1";
    a->env[3] = NULL;
    bjob_init(&a->job, 3);
    bjob_start_tcp(&a->job, 0, NULL, a->env, ok_args);
}

/* The other PEs join and the job passes its checks. */
static void finish_job(struct auth_job *a)
{
    for (int r = 1; r < 3; r++)
        bjob_start_tcp(&a->job, r, NULL, a->env, ok_args);
    bjob_wait(&a->job, 90);
    assert_job_ok(&a->job, 3);
}

Test(boot_auth, impostor_rank)
{
    int port = bjob_free_port();
    char addr[64];
    addr_env(addr, sizeof(addr), port);
    const char *env[] = {addr, "SYMHEAP_TIMEOUT=60", "SYMHEAP_DEBUG=1", NULL};
    struct bjob job;
    bjob_init(&job, 4); /* slot 3: the impostor program */
    bjob_start(&job, 0, NULL,
               (const char *[]){addr, "SYMHEAP_RANK=0", "SYMHEAP_SIZE=3", "SYMHEAP_TIMEOUT=60",
                                "SYMHEAP_DEBUG=1", NULL},
               ok_args);
    fake_proof(port, 2, 3);
    /* A symheap PE with another secret claims PE 2: the root cannot prove
     * itself to it, so it neither joins nor learns anything. */
    bjob_start(&job, 3, NULL,
               (const char *[]){addr, "SYMHEAP_RANK=2", "SYMHEAP_SIZE=3", "SYMHEAP_TIMEOUT=60",
                                "SYMHEAP_JOB_SECRET=ffffffffffffffffffffffffffffffff", NULL},
               (const char *[]){"init-fails", "SYM_ERR_BOOTSTRAP", NULL});
    wait_output(&job, 3, "init failed");
    for (int r = 1; r < 3; r++) {
        char rank[32], size[] = "SYMHEAP_SIZE=3";
        snprintf(rank, sizeof(rank), "SYMHEAP_RANK=%d", r);
        bjob_start(&job, r, NULL, (const char *[]){env[0], env[1], env[2], rank, size, NULL},
                   ok_args);
    }
    bjob_wait(&job, 90);
    assert_job_ok(&job, 3);
    bjob_assert_exit(&job, 3, 0);
    bjob_assert_output(&job, 3, "could not prove that it knows the job secret");
    bjob_assert_output(&job, 0, "claimed PE 2, then failed to prove that it knows the job secret");
    bjob_fini(&job);
}

Test(boot_auth, bad_hellos)
{
    static struct auth_job a;
    start_root(&a);
    int port = a.port;
    uint8_t h[HELLO_LEN], buf[512];

    /* the first protocol's 16-byte hello, and a version from the future:
     * told why (an old or new PE learns it), then closed */
    int fd = dial(port);
    hello(h, 1, 1, 3);
    send_msg(fd, HELLO, h, 16);
    uint32_t hdr[2];
    cr_assert(recv_all(fd, hdr, 8) && ntohl(hdr[0]) == ERROR, "no error for a version 1 hello");
    cr_assert(ntohl(hdr[1]) < sizeof(buf) && recv_all(fd, buf, ntohl(hdr[1])));
    cr_expect(closed_by_root(fd));
    close(fd);
    fd = dial(port);
    hello(h, 99, 1, 3);
    send_msg(fd, HELLO, h, sizeof(h));
    cr_expect(closed_by_root(fd), "the root kept a version 99 hello");
    close(fd);

    /* rank 0, a rank past the job, another job size: unproven claims,
     * closed without failing the job (each once failed every PE) */
    fake_proof(port, 0, 3);
    fake_proof(port, 3, 3);
    fake_proof(port, 1, 5);
    /* a valid rank, then gone: no PE lost */
    fd = dial(port);
    hello(h, VERSION, 1, 3);
    send_msg(fd, HELLO, h, sizeof(h));
    close(fd);
    /* a connection that says nothing and leaves */
    close(dial(port));

    finish_job(&a);
    bjob_assert_output(&a.job, 0, "speaks bootstrap protocol 1, the root 2");
    bjob_assert_output(&a.job, 0, "speaks bootstrap protocol 99, the root 2");
    bjob_assert_output(&a.job, 0, "claimed PE 0, then failed to prove");
    bjob_assert_output(&a.job, 0, "claimed PE 3, then failed to prove");
    bjob_assert_output(&a.job, 0, "claimed PE 1, then closed before it proved");
    bjob_fini(&a.job);
}

/* Copy what is readable on `from` to `to`; false at the end. */
static bool pump(int from, int to)
{
    char buf[65536];
    ssize_t n = recv(from, buf, sizeof(buf), MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return true;
    if (n <= 0)
        return false;
    return send(to, buf, (size_t)n, MSG_NOSIGNAL) == n;
}

Test(boot_auth, replay)
{
    /* PE 1 connects to a relay (this test), which records its hello and
     * proof on their way to the root, then replays both on a connection
     * of its own before passing the proof on. */
    int port = bjob_free_port();
    int lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof(a);
    cr_assert(lfd >= 0 && bind(lfd, (void *)&a, sizeof(a)) == 0 && listen(lfd, 4) == 0 &&
              getsockname(lfd, (void *)&a, &alen) == 0);
    char addr[64], relay[64];
    addr_env(addr, sizeof(addr), port);
    addr_env(relay, sizeof(relay), ntohs(a.sin_port));
    const char *env[] = {addr, "SYMHEAP_TIMEOUT=60", "SYMHEAP_DEBUG=1", NULL};
    const char *env1[] = {relay, "SYMHEAP_TIMEOUT=60", "SYMHEAP_DEBUG=1", NULL};
    struct bjob job;
    bjob_init(&job, 3);
    bjob_start_tcp(&job, 0, NULL, env, ok_args);
    bjob_start_tcp(&job, 1, NULL, env1, ok_args);
    bjob_start_tcp(&job, 2, NULL, env, ok_args);

    struct pollfd pl = {.fd = lfd, .events = POLLIN};
    cr_assert(poll(&pl, 1, 30000) == 1, "PE 1 never reached the relay");
    int pe = accept(lfd, NULL, NULL);
    close(lfd);
    struct timeval tv = {30, 0};
    setsockopt(pe, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    int root = dial(port);
    uint8_t h[8 + HELLO_LEN], ch[8 + CHALLENGE_LEN], pr[8 + 32], ch2[CHALLENGE_LEN];
    cr_assert(recv_all(pe, h, sizeof(h)), "no hello from PE 1");
    cr_assert(send(root, h, sizeof(h), MSG_NOSIGNAL) == sizeof(h));
    cr_assert(recv_all(root, ch, sizeof(ch)), "no challenge from the root");
    cr_assert(send(pe, ch, sizeof(ch), MSG_NOSIGNAL) == sizeof(ch));
    cr_assert(recv_all(pe, pr, sizeof(pr)), "no proof from PE 1");

    int again = dial(port);
    cr_assert(send(again, h, sizeof(h), MSG_NOSIGNAL) == sizeof(h));
    expect_msg(again, CHALLENGE, ch2, sizeof(ch2));
    cr_expect(memcmp(ch + 8 + 16, ch2 + 16, NONCE) != 0, "the root reused its nonce");
    cr_assert(send(again, pr, sizeof(pr), MSG_NOSIGNAL) == sizeof(pr));
    cr_expect(closed_by_root(again), "the root took a replayed proof");
    close(again);

    /* now PE 1's own proof, and relay the job's traffic to its end */
    cr_assert(send(root, pr, sizeof(pr), MSG_NOSIGNAL) == sizeof(pr));
    double end = now_s() + 90;
    for (bool open = true; open && now_s() < end;) {
        struct pollfd p[2] = {{.fd = pe, .events = POLLIN}, {.fd = root, .events = POLLIN}};
        if (poll(p, 2, 1000) <= 0)
            continue;
        if (p[0].revents)
            open = pump(pe, root);
        if (open && p[1].revents)
            open = pump(root, pe);
    }
    close(pe);
    close(root);
    bjob_wait(&job, 60);
    assert_job_ok(&job, 3);
    bjob_assert_output(&job, 0, "claimed PE 1, then failed to prove");
    bjob_fini(&job);
}

Test(boot_auth, slow_client)
{
    /* With a 60 s timeout, connections that hold on after their hello (one
     * reading the challenge, one not) or say nothing: the PEs join at once
     * and the job does not wait for them; they are closed once all PEs
     * joined. */
    static struct auth_job a;
    start_root(&a);
    int port = a.port;
    uint8_t h[HELLO_LEN], ch[CHALLENGE_LEN];
    int slow[3];
    slow[0] = dial(port);
    hello(h, VERSION, 1, 3);
    send_msg(slow[0], HELLO, h, sizeof(h));
    expect_msg(slow[0], CHALLENGE, ch, sizeof(ch));
    slow[1] = dial(port);
    hello(h, VERSION, 2, 3);
    send_msg(slow[1], HELLO, h, sizeof(h));
    slow[2] = dial(port);
    finish_job(&a);
    for (int i = 0; i < 3; i++) {
        cr_expect(closed_by_root(slow[i]), "slow connection %d was kept", i);
        close(slow[i]);
    }
    /* closed because the job had formed, not at the handshake deadline */
    bjob_assert_output(&a.job, 0, "claimed PE 1, then every PE of the job is already connected");
    bjob_assert_output(&a.job, 0, "claimed PE 2, then every PE of the job is already connected");
    bjob_fini(&a.job);
}

Test(boot_auth, user_secret)
{
    char path[] = "/tmp/symheap-auth-secret-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    cr_assert(write(fd, BJOB_SECRET "\n", sizeof(BJOB_SECRET)) == sizeof(BJOB_SECRET));
    close(fd);
    char file[128];
    snprintf(file, sizeof(file), "SYMHEAP_JOB_SECRET_FILE=%s", path);
    const char *fails[] = {"init-fails", "SYM_ERR_CONFIG", NULL};

    /* 1. no secret; 2. file PEs; 3. the file readable by others; 4. opt-out */
    int port = bjob_free_port();
    char addr[64];
    addr_env(addr, sizeof(addr), port);
    struct bjob job;
    bjob_init(&job, 1);
    bjob_start_tcp(&job, 0, NULL, (const char *[]){addr, "SYMHEAP_JOB_SECRET=", NULL}, fails);
    bjob_wait(&job, 30);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_output(&job, 0, "the tcp bootstrap needs a job secret");
    bjob_assert_output(&job, 0, "SYMHEAP_JOB_SECRET=$(openssl rand -hex 32)");
    bjob_fini(&job);

    addr_env(addr, sizeof(addr), bjob_free_port());
    bjob_init(&job, 2);
    for (int r = 0; r < 2; r++)
        bjob_start_tcp(&job, r, NULL, (const char *[]){addr, "SYMHEAP_JOB_SECRET=", file, NULL},
                       ok_args);
    bjob_wait(&job, 60);
    assert_job_ok(&job, 2);
    bjob_fini(&job);

    cr_assert(chmod(path, 0644) == 0);
    bjob_init(&job, 1);
    bjob_start_tcp(&job, 0, NULL, (const char *[]){addr, "SYMHEAP_JOB_SECRET=", file, NULL}, fails);
    bjob_wait(&job, 30);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_output(&job, 0, "has mode 0644: group or others can reach it");
    bjob_fini(&job);
    unlink(path);

    addr_env(addr, sizeof(addr), bjob_free_port());
    bjob_init(&job, 2);
    for (int r = 0; r < 2; r++)
        bjob_start_tcp(&job, r, NULL,
                       (const char *[]){addr, "SYMHEAP_JOB_SECRET=insecure-none", NULL}, ok_args);
    bjob_wait(&job, 60);
    assert_job_ok(&job, 2);
    for (int r = 0; r < 2; r++) {
        char *out = bjob_output(&job, r);
        const char *w = "warning: SYMHEAP_JOB_SECRET=insecure-none";
        char *first = strstr(out, w);
        cr_expect(first && !strstr(first + 1, w), "PE %d warned %s", r, first ? "twice" : "never");
        free(out);
    }
    bjob_fini(&job);

    /* PEs with different secrets: PE 1 says the root could not prove
     * itself; the root names PE 1 as missing and says a connection claimed
     * it without proof */
    addr_env(addr, sizeof(addr), bjob_free_port());
    bjob_init(&job, 2);
    bjob_start_tcp(&job, 0, NULL, (const char *[]){addr, "SYMHEAP_TIMEOUT=3", NULL},
                   (const char *[]){"init-fails", "SYM_ERR_TIMEOUT", NULL});
    bjob_start_tcp(&job, 1, NULL,
                   (const char *[]){addr, "SYMHEAP_TIMEOUT=3",
                                    "SYMHEAP_JOB_SECRET=eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee", NULL},
                   (const char *[]){"init-fails", "SYM_ERR_BOOTSTRAP", NULL});
    bjob_wait(&job, 30);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_exit(&job, 1, 0);
    bjob_assert_output(&job, 0, "PE 1 never joined");
    bjob_assert_output(&job, 0,
                       "claimed to be PEs of this job without proving it, the last one "
                       "from 127.0.0.1");
    bjob_assert_output(&job, 0, "is SYMHEAP_JOB_SECRET the same on every PE?");
    bjob_assert_output(&job, 1, "could not prove that it knows the job secret");
    bjob_fini(&job);
}
