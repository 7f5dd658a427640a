/* tcp_pe.c - the tcp bootstrap's other PEs: connecting to the root, and
 * handling what the root sends. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/secret.h"
#include "base/wait.h"
#include "tcp.h"

/* A status the root may send: one of the SYM_ERR_* codes. */
static bool status_is_error(int32_t st)
{
    switch (st) {
#define SYM_STATUS_CASE_(name, value, text) case value:
        SYM_STATUS_LIST(SYM_STATUS_CASE_)
#undef SYM_STATUS_CASE_
        return st != SYM_OK;
    default:
        return false;
    }
}

/* Non-root: the root sent something malformed; the job cannot go on
 * without it.  Lock held.  Returns false (drop the connection). */
bool tcp_root_garbage(struct tcp_boot *tb, const char *what)
{
    tcp_set_fatal(tb, SYM_ERR_BOOTSTRAP,
                  "sym_init (tcp bootstrap): the root (PE 0) at %s sent "
                  "%s (a different symheap version, or not a symheap root?)",
                  tb->addr_text, what);
    return false;
}

/* Non-root: the root's challenge.  The root proves first: a PE answers
 * nobody who does not know the job secret.  Lock held. */
static bool pe_challenge(struct tcp_boot *tb, const uint8_t *p, uint32_t len)
{
    if (tb->root_proven || len != TCP_CHALLENGE_LEN)
        return tcp_root_garbage(tb, "a malformed challenge");
    const uint8_t *job_id = p, *nonce_root = p + TCP_JOBID_LEN;
    uint32_t rank = (uint32_t)tb->base.rank, size = (uint32_t)tb->base.size;
    uint8_t mac[SYM_MAC_LEN];
    tcp_handshake_mac(tb, "root", rank, size, job_id, tb->nonce, nonce_root, mac);
    bool ok = sym_mac_equal(mac, p + TCP_JOBID_LEN + TCP_NONCE_LEN);
    if (!ok) {
        tcp_set_fatal(tb, SYM_ERR_BOOTSTRAP,
                      "sym_init (tcp bootstrap): whoever listens at %s could not prove that it "
                      "knows the job secret: is SYMHEAP_JOB_SECRET (or the file "
                      "SYMHEAP_JOB_SECRET_FILE names) the same on every PE, and is that "
                      "address this job's PE 0?",
                      tb->addr_text);
        return false;
    }
    memcpy(tb->job_id, job_id, TCP_JOBID_LEN);
    tcp_handshake_mac(tb, "pe", rank, size, job_id, tb->nonce, nonce_root, mac);
    tcp_queue(tb, tb->conns[0].fd, false, MSG_PROOF, mac, sizeof(mac), NULL, 0);
    sym_secret_wipe(mac, sizeof(mac));
    tb->root_proven = true;
    return true;
}

/* Non-root: a message from the root.  Until the root proved itself only
 * its challenge or an error (a refused hello says why) is taken.  Lock
 * held. */
bool tcp_pe_handle(struct tcp_boot *tb, uint32_t type, const uint8_t *p, uint32_t len)
{
    if (type == MSG_CHALLENGE)
        return pe_challenge(tb, p, len);
    if (!tb->root_proven && type != MSG_ERROR)
        return tcp_root_garbage(tb, "a message before proving that it knows the job secret");
    switch (type) {
    case MSG_WELCOME:
        if (len != SYM_JOB_KEY_LEN)
            return false;
        memcpy(tb->base.key, p, SYM_JOB_KEY_LEN);
        tb->base.key[SYM_JOB_KEY_LEN] = '\0';
        tb->welcomed = true;
        return true;
    case MSG_ERROR: {
        if (len < 4)
            return tcp_root_garbage(tb, "an error message without a status");
        int32_t st = (int32_t)tcp_get32(p);
        if (!status_is_error(st))
            return tcp_root_garbage(tb, "an error message with an unknown status");
        tcp_set_fatal(tb, (sym_status_t)st, "%.*s", (int)(len - 4), (const char *)p + 4);
        return true;
    }
    case MSG_GATHER_ALL: {
        if (len < 4)
            return false;
        uint8_t *d = realloc(tb->result, len - 4 ? len - 4 : 1);
        if (!d) {
            tcp_set_fatal(tb, SYM_ERR_NO_MEMORY, "sym_init (tcp bootstrap): out of memory");
            return true;
        }
        memcpy(d, p + 4, len - 4);
        tb->result = d;
        tb->result_len = len - 4;
        tb->result_step = tcp_get32(p);
        return true;
    }
    case MSG_LOST: {
        uint32_t pe = len == 8 ? tcp_get32(p) : UINT32_MAX;
        if (pe == 0 || pe >= (uint32_t)tb->base.size || pe == (uint32_t)tb->base.rank)
            return tcp_root_garbage(tb, "a loss report naming no other PE of the job");
        tcp_mark_lost(tb, (int)pe, tcp_get32(p + 4) != 0,
                      "lost its bootstrap connection without finalizing (died or "
                      "unreachable; reported by the root, PE 0)");
        return true;
    }
    case MSG_ABORT: {
        uint32_t by = len == 8 ? tcp_get32(p) : 0;
        if (by == 0 || by > (uint32_t)tb->base.size)
            return tcp_root_garbage(tb, "a job abort naming no PE of the job");
        if (!tb->abort_by) {
            tb->abort_by = by;
            tb->abort_status = (int32_t)tcp_get32(p + 4);
        }
        return true;
    }
    case MSG_FAILED: {
        if (len != 8)
            return tcp_root_garbage(tb, "an error report of the wrong length");
        tb->root_failed = true;
        /* The PE the root's error named lost, seen by the root first. */
        uint32_t blamed = tcp_get32(p + 4);
        if (blamed > 1 && blamed <= (uint32_t)tb->base.size &&
            blamed - 1 != (uint32_t)tb->base.rank)
            tcp_mark_lost(tb, (int)blamed - 1, false,
                          "was lost without finalizing (died or unreachable; reported by "
                          "the root, PE 0)");
        return true;
    }
    case MSG_BYE:
        tb->conns[0].bye = true;
        return true;
    default:
        return false;
    }
}

/* Connecting to the root, one attempt after another: the root may not be
 * listening yet, and then refuses at once.  Attempts are spaced by a pause
 * that doubles from 10 ms up to 320 ms. */
struct connect_try {
    const struct addrinfo *res;
    double deadline;
    double next_try; /* tcp_now() of the next attempt */
    double pause;    /* seconds after a failed attempt */
    int err;         /* errno of the last failure */
    int fd;          /* the connection, once made */
};

/* One attempt on every address of the root.  A connection in progress is
 * given up to 5 s (within the deadline) to be accepted. */
static void connect_once(struct connect_try *t)
{
    for (const struct addrinfo *ai = t->res; ai && t->fd < 0; ai = ai->ai_next) {
        int s =
            socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (s < 0) {
            t->err = errno;
            continue;
        }
        int rc = connect(s, ai->ai_addr, ai->ai_addrlen);
        if (rc != 0 && errno == EINPROGRESS) {
            double left = t->deadline - tcp_now();
            struct pollfd pfd = {.fd = s, .events = POLLOUT};
            int ms = left > 5.0 ? 5000 : left > 0 ? (int)(left * 1000) + 1 : 0;
            if (poll(&pfd, 1, ms) == 1) {
                socklen_t l = sizeof(t->err);
                getsockopt(s, SOL_SOCKET, SO_ERROR, &t->err, &l);
                rc = t->err ? -1 : 0;
            } else {
                t->err = ETIMEDOUT;
            }
        } else if (rc != 0) {
            t->err = errno;
        }
        if (rc == 0)
            t->fd = s;
        else
            close(s);
    }
}

/* The wait loop polls this: an attempt when the pause since the last one
 * is over.  The loop meanwhile watches the job (symrun's abort, say). */
static bool connect_ready(void *arg)
{
    struct connect_try *t = arg;
    if (t->fd >= 0)
        return true;
    if (tcp_now() < t->next_try)
        return false;
    connect_once(t);
    if (t->fd >= 0)
        return true;
    t->next_try = tcp_now() + t->pause;
    if (t->pause < 0.2)
        t->pause *= 2;
    return false;
}

static void connect_describe(void *arg, char *buf, size_t len)
{
    (void)arg;
    snprintf(buf, len, "the root to listen");
}

/* Non-root PE: connect to the root, retrying until the deadline (the root
 * may not be listening yet). */
sym_status_t tcp_pe_connect(struct tcp_boot *tb)
{
    struct addrinfo *res;
    sym_status_t st = tcp_resolve(tb->addr_text, &res);
    if (st != SYM_OK)
        return st;
    struct connect_try t = {
        .res = res, .deadline = tcp_now() + tb->timeout, .pause = 0.01, .fd = -1};
    struct sym_waiter w = {connect_ready, connect_describe, &t, NULL};
    struct sym_deadline dl =
        sym_deadline_named("sym_init (tcp bootstrap)", tb->timeout, tb->timeout_name);
    st = sym_wait_for(&dl, &w);
    freeaddrinfo(res);
    if (st == SYM_ERR_TIMEOUT && t.fd < 0)
        return sym_error(SYM_ERR_TIMEOUT,
                         "sym_init (tcp bootstrap): PE %d never connected to the root (PE 0) "
                         "at %s within %.0f s (%s): %s (is PE 0 running and listening there?)",
                         tb->base.rank, tb->addr_text, tb->timeout, tb->timeout_name,
                         strerror(t.err));
    if (st != SYM_OK) {
        if (t.fd >= 0)
            close(t.fd);
        return st;
    }
    int one = 1;
    setsockopt(t.fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    tb->conns[0] = (struct conn){.fd = t.fd, .open = true, .rank = 0};
    return SYM_OK;
}
