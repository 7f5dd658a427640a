/* tcp_root.c - the tcp bootstrap's root (PE 0): listening on the root
 * address, accepting connections, admitting PEs by their hello and closing
 * strangers, and handling what PEs send. */
#include <errno.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "base/error.h"
#include "base/secret.h"
#include "tcp.h"

static void send_error(struct tcp_boot *tb, int fd, sym_status_t st, const char *text)
{
    uint32_t code = htonl((uint32_t)(int32_t)st);
    tcp_send(tb, fd, MSG_ERROR, &code, sizeof(code), text, strlen(text));
}

/* Root: tell every connected PE that the job failed, with the root's text. */
void tcp_root_fail_all(struct tcp_boot *tb, sym_status_t st, const char *text)
{
    for (int r = 1; r < tb->base.size; r++) {
        pthread_mutex_lock(&tb->lock);
        int fd = tb->conns[r].open ? tb->conns[r].fd : -1;
        pthread_mutex_unlock(&tb->lock);
        if (fd >= 0)
            send_error(tb, fd, st, text);
    }
}

/* Root: a connection that is no PE of this job is closed; with
 * SYMHEAP_DEBUG the reason is logged (the first few; a flood is only
 * counted).  Strangers never reach stderr otherwise: anyone who can reach
 * the root address could fill it.  Lock held. */
void tcp_stray_log(struct tcp_boot *tb, const struct conn *c, const char *why)
{
    int n = ++tb->strays;
    if (n > TCP_STRAY_LOG_MAX)
        return;
    sym_debug("tcp bootstrap at %s: closed a connection from %s: %s%s", tb->addr_text,
              c->peer[0] ? c->peer : "?", why,
              n == TCP_STRAY_LOG_MAX ? " (further ones are not reported)" : "");
}

/* Root: a connection that claimed to be a PE did not prove it knows the
 * job secret.  Logged like any stranger, and remembered for the message
 * of a rendezvous that times out: a real PE with another secret looks
 * exactly like this.  Lock held. */
void tcp_auth_failed(struct tcp_boot *tb, struct conn *c, const char *why)
{
    if (!c->hello)
        return;
    c->hello = false; /* counted once */
    char text[160];
    snprintf(text, sizeof(text), "claimed PE %u, then %s", c->claim_rank, why);
    tcp_stray_log(tb, c, text);
    tb->auth_failures++;
    snprintf(tb->auth_last, sizeof(tb->auth_last), "one from %s claiming PE %u",
             c->peer[0] ? c->peer : "?", c->claim_rank);
}

/* Root: has another connection been admitted as `rank` (it moves to its
 * place in conns only after this round of reads)? */
static bool rank_admitted(const struct tcp_boot *tb, const struct conn *c, int rank)
{
    for (int i = 0; i < tb->npending; i++)
        if (&tb->pending[i] != c && tb->pending[i].rank == rank)
            return true;
    return false;
}

/* Root: a hello.  Nothing it claims is trusted yet: the root answers with
 * a challenge (its own nonce, the job id, and its proof over both nonces,
 * so the PE knows it reached this job's root) and waits for the PE's
 * proof.  Lock held; false drops the connection. */
static bool root_hello(struct tcp_boot *tb, struct conn *c, const uint8_t *p, uint32_t len)
{
    if (len < 8 || tcp_get32(p) != TCP_MAGIC) {
        tcp_stray_log(tb, c, "its first message is not a symheap hello");
        return false;
    }
    uint32_t version = tcp_get32(p + 4);
    if (version != TCP_VERSION || len != TCP_HELLO_LEN) {
        char why[400];
        snprintf(why, sizeof(why),
                 "sym_init (tcp bootstrap at %s): this PE speaks bootstrap protocol %u, the "
                 "root %u (different symheap versions?)",
                 tb->addr_text, version, TCP_VERSION);
        tcp_stray_log(tb, c, why);
        /* Not the job's failure (anyone can send this): only the sender
         * learns why, then the connection is closed by the queue. */
        uint32_t code = htonl((uint32_t)(int32_t)SYM_ERR_BOOTSTRAP);
        tcp_queue(tb, c->fd, true, MSG_ERROR, &code, sizeof(code), why, strlen(why));
        c->fd = -1;
        return false;
    }
    c->claim_rank = tcp_get32(p + 8);
    c->claim_size = tcp_get32(p + 12);
    memcpy(c->nonce_pe, p + 16, TCP_NONCE_LEN);
    uint8_t msg[TCP_CHALLENGE_LEN];
    if (sym_random_bytes(c->nonce_root, TCP_NONCE_LEN) != 0) {
        tcp_stray_log(tb, c, "no random bytes for its challenge");
        return false;
    }
    memcpy(msg, tb->job_id, TCP_JOBID_LEN);
    memcpy(msg + TCP_JOBID_LEN, c->nonce_root, TCP_NONCE_LEN);
    tcp_handshake_mac(tb, "root", c->claim_rank, c->claim_size, tb->job_id, c->nonce_pe,
                      c->nonce_root, msg + TCP_JOBID_LEN + TCP_NONCE_LEN);
    /* Sent at once, not queued: the connection may be dropped (and its
     * descriptor number reused) before the queue is flushed.  A fresh
     * socket takes 88 bytes without blocking, or it is no PE. */
    uint32_t hdr[2] = {htonl(MSG_CHALLENGE), htonl(TCP_CHALLENGE_LEN)};
    uint8_t wire[8 + TCP_CHALLENGE_LEN];
    memcpy(wire, hdr, 8);
    memcpy(wire + 8, msg, TCP_CHALLENGE_LEN);
    if (send(c->fd, wire, sizeof(wire), MSG_NOSIGNAL | MSG_DONTWAIT) != (ssize_t)sizeof(wire)) {
        tcp_stray_log(tb, c, "it does not take the challenge");
        return false;
    }
    c->hello = true;
    return true;
}

/* Root: the proof of a challenged connection.  Only a proven PE's claims
 * count: a wrong size, a rank out of range or a rank already taken is then
 * a real misconfiguration of the job and fails it, saying so; an unproven
 * claim is only closed.  Lock held; false drops the connection. */
static bool root_proof(struct tcp_boot *tb, struct conn *c, const uint8_t *p)
{
    uint8_t want[SYM_MAC_LEN];
    tcp_handshake_mac(tb, "pe", c->claim_rank, c->claim_size, tb->job_id, c->nonce_pe,
                      c->nonce_root, want);
    bool ok = sym_mac_equal(want, p);
    sym_secret_wipe(want, sizeof(want));
    if (!ok) {
        tcp_auth_failed(tb, c, "failed to prove that it knows the job secret");
        return false;
    }
    uint32_t rank = c->claim_rank, size = c->claim_size;
    char why[256] = "";
    if (size != (uint32_t)tb->base.size)
        snprintf(why, sizeof(why),
                 "PE %u was started with SYMHEAP_SIZE=%u, the root "
                 "with SYMHEAP_SIZE=%d",
                 rank, size, tb->base.size);
    else if (rank == 0 || rank >= size)
        snprintf(why, sizeof(why),
                 "a PE connected claiming SYMHEAP_RANK=%u (valid: "
                 "1..%u; 0 is the root)",
                 rank, size - 1);
    else if (tb->conns[rank].fd >= 0 || rank_admitted(tb, c, (int)rank))
        snprintf(why, sizeof(why), "two PEs were started with SYMHEAP_RANK=%u", rank);
    if (why[0]) {
        tcp_set_fatal(tb, SYM_ERR_BOOTSTRAP, "sym_init (tcp bootstrap at %s): %s", tb->addr_text,
                      why);
        /* the reply is sent after the lock is released, then the
         * connection closed: the queue takes the descriptor */
        uint32_t code = htonl((uint32_t)(int32_t)SYM_ERR_BOOTSTRAP);
        tcp_queue(tb, c->fd, true, MSG_ERROR, &code, sizeof(code), tb->fatal_msg,
                  strlen(tb->fatal_msg));
        c->fd = -1;
        c->hello = false;
        return false;
    }
    c->hello = false;
    c->rank = (int)rank;
    tb->connected++;
    return true;
}

/* Root: a message from PE `c->rank`, or the hello or proof of a pending
 * connection.  Lock held.  Returns false to drop the connection. */
bool tcp_root_handle(struct tcp_boot *tb, struct conn *c, uint32_t type, const uint8_t *p,
                     uint32_t len)
{
    if (c->rank < 0)
        return c->hello ? root_proof(tb, c, p) : root_hello(tb, c, p, len);
    switch (type) {
    case MSG_GATHER: {
        if (len < 4)
            return false;
        struct slot *s = &tb->slots[c->rank];
        uint32_t n = len - 4;
        uint8_t *d = realloc(s->data, n ? n : 1);
        if (!d) {
            tcp_set_fatal(tb, SYM_ERR_NO_MEMORY, "sym_init (tcp bootstrap): out of memory");
            return true;
        }
        memcpy(d, p + 4, n);
        s->data = d;
        s->len = n;
        s->step = tcp_get32(p);
        return true;
    }
    case MSG_BYE:
        c->bye = true;
        return true;
    case MSG_ABORT: {
        /* The first abort stands (every PE then exits with its status);
         * relayed to the others before this PE's exit is. */
        if (len != 8 || tcp_get32(p) != (uint32_t)c->rank + 1)
            return false;
        if (!tb->abort_by) {
            tb->abort_by = (uint32_t)c->rank + 1;
            tb->abort_status = (int32_t)tcp_get32(p + 4);
            for (int r = 1; r < tb->base.size; r++)
                if (r != c->rank && tb->conns[r].open)
                    tcp_queue(tb, tb->conns[r].fd, false, MSG_ABORT, p, 8, NULL, 0);
        }
        return true;
    }
    case MSG_FAILED: {
        if (len != 8)
            return false;
        c->failed = true;
        /* The PE its error named lost: relayed now, so that every PE
         * learns the cause before this PE's own exit, which may follow at
         * once and reach other PEs first by another path. */
        uint32_t blamed = tcp_get32(p + 4);
        if (blamed > 1 && blamed <= (uint32_t)tb->base.size && (int)blamed - 1 != c->rank) {
            char how[160];
            snprintf(how, sizeof(how),
                     "was lost without finalizing (died or unreachable; reported by PE %d)",
                     c->rank);
            tcp_root_report_lost(tb, (int)blamed - 1, how);
        }
        return true;
    }
    default:
        return false;
    }
}

/* Root: drop pending connection i (lock held). */
void tcp_drop_pending(struct tcp_boot *tb, int i, const char *why)
{
    struct conn *c = &tb->pending[i];
    if (why && c->hello)
        tcp_auth_failed(tb, c, why);
    else if (why)
        tcp_stray_log(tb, c, why);
    tcp_conn_closed(tb, c);
    memmove(&tb->pending[i], &tb->pending[i + 1], (size_t)(tb->npending - i - 1) * sizeof(*c));
    tb->npending--;
}

void tcp_root_accept(struct tcp_boot *tb)
{
    struct sockaddr_storage from;
    socklen_t fromlen = sizeof(from);
    int fd =
        accept4(tb->listen_fd, (struct sockaddr *)&from, &fromlen, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    char host[INET6_ADDRSTRLEN] = "?", serv[16] = "?";
    getnameinfo((struct sockaddr *)&from, fromlen, host, sizeof(host), serv, sizeof(serv),
                NI_NUMERICHOST | NI_NUMERICSERV);
    /* Real PEs say hello at once: make room by dropping the oldest. */
    if (tb->npending >= TCP_PENDING_MAX + tb->base.size)
        tcp_drop_pending(tb, 0, "too many connections without a hello (the oldest goes)");
    if (tb->npending == tb->pending_cap) {
        int cap = tb->pending_cap ? tb->pending_cap * 2 : 16;
        struct conn *p = realloc(tb->pending, (size_t)cap * sizeof(*p));
        if (!p) {
            close(fd);
            return;
        }
        tb->pending = p;
        tb->pending_cap = cap;
    }
    struct conn *c = &tb->pending[tb->npending++];
    *c = (struct conn){.fd = fd, .open = true, .rank = -1, .since = tcp_now()};
    snprintf(c->peer, sizeof(c->peer), "%s port %s", host, serv);
}

/* PE 0: listen on exactly the root address. */
sym_status_t tcp_root_listen(struct tcp_boot *tb)
{
    struct addrinfo *res;
    sym_status_t st = tcp_resolve(tb->addr_text, &res);
    if (st != SYM_OK)
        return st;
    int err = 0;
    const char *what = "bind";
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int fd =
            socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK, ai->ai_protocol);
        if (fd < 0) {
            err = errno;
            what = "socket";
            continue;
        }
        /* Lets a new job reuse the port while an old job's connections
         * linger in TIME_WAIT; a live listener still makes bind fail. */
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
        if (bind(fd, ai->ai_addr, ai->ai_addrlen) != 0) {
            err = errno;
            what = "bind";
            close(fd);
            continue;
        }
        if (listen(fd, tb->base.size < 128 ? 128 : tb->base.size) != 0) {
            err = errno;
            what = "listen";
            close(fd);
            continue;
        }
        tb->listen_fd = fd;
        break;
    }
    freeaddrinfo(res);
    if (tb->listen_fd >= 0)
        return SYM_OK;
    const char *hint = err == EADDRINUSE      ? " (another program, or another job's PE 0, "
                                                "is using this port)"
                       : err == EADDRNOTAVAIL ? " (it is not an address of this host: "
                                                "SYMHEAP_ROOT_ADDR must be PE 0's own "
                                                "address)"
                       : err == EACCES        ? " (ports below 1024 need privileges)"
                                              : "";
    return sym_error(SYM_ERR_BOOTSTRAP,
                     "sym_init (tcp bootstrap): PE 0 cannot listen on %s "
                     "(SYMHEAP_ROOT_ADDR): %s: %s%s",
                     tb->addr_text, what, strerror(err), hint);
}
