/* tcp_wire.c - the tcp bootstrap's messages: resolving the root address,
 * sending (directly, or queued by the helper thread), reading and parsing
 * what arrives on a connection, and closing one. */
#include <errno.h>
#include <netdb.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>

#include "base/addr.h"
#include "base/error.h"
#include "tcp.h"

sym_status_t tcp_resolve(const char *text, struct addrinfo **res_p)
{
    char host[256], port[16];
    if (sym_addr_parse(text, host, sizeof(host), port, sizeof(port)) != 0)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_ROOT_ADDR='%s' is not valid: "
                         "expected host:port or [IPv6 address]:port with a port 1..65535",
                         text);
    struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM};
    int rc = getaddrinfo(host, port, &hints, res_p);
    if (rc != 0)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init (tcp bootstrap): cannot resolve SYMHEAP_ROOT_ADDR='%s': %s",
                         text, gai_strerror(rc));
    return SYM_OK;
}

/* Write all of buf to a non-blocking socket within `timeout` seconds. */
static int write_all(int fd, const void *buf, size_t len, double timeout)
{
    const uint8_t *p = buf;
    double deadline = tcp_now() + timeout;
    while (len) {
        ssize_t n = send(fd, p, len, MSG_NOSIGNAL);
        if (n > 0) {
            p += n;
            len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)
            return -1;
        double left = deadline - tcp_now();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd pfd = {.fd = fd, .events = POLLOUT};
        poll(&pfd, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
    }
    return 0;
}

/* One message from up to two payload pieces.  0 or -1 (errno). */
int tcp_send(struct tcp_boot *tb, int fd, uint32_t type, const void *a, size_t alen, const void *b,
             size_t blen)
{
    if (fd < 0) {
        errno = EPIPE;
        return -1;
    }
    uint32_t hdr[2] = {htonl(type), htonl((uint32_t)(alen + blen))};
    pthread_mutex_lock(&tb->send_lock);
    int rc = write_all(fd, hdr, sizeof(hdr), tb->timeout);
    if (rc == 0 && alen)
        rc = write_all(fd, a, alen, tb->timeout);
    if (rc == 0 && blen)
        rc = write_all(fd, b, blen, tb->timeout);
    pthread_mutex_unlock(&tb->send_lock);
    return rc;
}

/* Queue a message for the helper thread to send after it released the
 * lock (lock held): a write may block up to the timeout, and every waiter
 * polls state under that lock.  With owns_fd, fd is the queue's: shut down
 * and closed once the message is sent. */
void tcp_queue(struct tcp_boot *tb, int fd, bool owns_fd, uint32_t type, const void *a, size_t alen,
               const void *b, size_t blen)
{
    struct out_msg *m = malloc(sizeof(*m) + alen + blen);
    if (!m) { /* best effort, like a failed send */
        if (owns_fd) {
            shutdown(fd, SHUT_RDWR);
            close(fd);
        }
        return;
    }
    *m = (struct out_msg){.fd = fd, .owns_fd = owns_fd, .type = type, .len = alen + blen};
    if (alen)
        memcpy(m->data, a, alen);
    if (blen)
        memcpy(m->data + alen, b, blen);
    if (tb->out_tail)
        tb->out_tail->next = m;
    else
        tb->out_head = m;
    tb->out_tail = m;
}

/* Helper thread, lock not held: send what was queued, in order. */
void tcp_flush_queue(struct tcp_boot *tb, bool send)
{
    pthread_mutex_lock(&tb->lock);
    struct out_msg *m = tb->out_head;
    tb->out_head = tb->out_tail = NULL;
    pthread_mutex_unlock(&tb->lock);
    while (m) {
        struct out_msg *next = m->next;
        if (send)
            tcp_send(tb, m->fd, m->type, m->data, m->len, NULL, 0);
        if (m->owns_fd) {
            shutdown(m->fd, SHUT_RDWR);
            close(m->fd);
        }
        free(m);
        m = next;
    }
}

void tcp_handshake_mac(const struct tcp_boot *tb, const char *label, uint32_t rank, uint32_t size,
                       const uint8_t *job_id, const uint8_t *nonce_pe, const uint8_t *nonce_root,
                       uint8_t mac[SYM_MAC_LEN])
{
    /* Distinct labels: a proof one side made is never valid for the other
     * (no reflection); fresh nonces from both: no proof is valid twice. */
    uint32_t words[3] = {htonl(TCP_VERSION), htonl(rank), htonl(size)};
    const void *parts[] = {"symheap tcp bootstrap ", label, words, job_id, nonce_pe, nonce_root};
    const size_t lens[] = {
        22, strlen(label) + 1, sizeof(words), TCP_JOBID_LEN, TCP_NONCE_LEN, TCP_NONCE_LEN};
    sym_secret_mac(&tb->base.secret, sizeof(parts) / sizeof(parts[0]), parts, lens, mac);
}

double tcp_handshake_s(const struct tcp_boot *tb)
{
    return tb->timeout < TCP_HANDSHAKE_S ? tb->timeout : TCP_HANDSHAKE_S;
}

void tcp_mark_lost(struct tcp_boot *tb, int pe, bool consequence, const char *how)
{
    /* A PE that exits after the library returned it an error is not the
     * cause: a PE lost of its own accord replaces it. */
    if (tb->lost >= 0 && (consequence || !tb->lost_consequence))
        return;
    tb->lost = pe;
    tb->lost_consequence = consequence;
    tb->lost_at = tcp_now();
    snprintf(tb->lost_how, sizeof(tb->lost_how), "%s", how);
}

void tcp_root_report_lost(struct tcp_boot *tb, int pe, const char *how)
{
    struct conn *c = &tb->conns[pe];
    if (c->reported || c->bye)
        return;
    c->reported = true;
    tcp_mark_lost(tb, pe, c->failed, how);
    uint32_t msg[2] = {htonl((uint32_t)pe), htonl(c->failed ? 1u : 0u)};
    for (int r = 1; r < tb->base.size; r++)
        if (r != pe && tb->conns[r].open)
            tcp_queue(tb, tb->conns[r].fd, false, MSG_LOST, msg, sizeof(msg), NULL, 0);
}

void tcp_set_fatal(struct tcp_boot *tb, sym_status_t st, const char *fmt, ...)
{
    if (tb->fatal != SYM_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tb->fatal_msg, sizeof(tb->fatal_msg), fmt, ap);
    va_end(ap);
    tb->fatal = st;
}

/* Close a connection; on the root, report a PE that left without BYE to
 * everyone.  Lock held. */
void tcp_conn_closed(struct tcp_boot *tb, struct conn *c)
{
    c->open = false;
    if (c->fd >= 0) /* -1: handed to the send queue (root_handle) */
        shutdown(c->fd, SHUT_RDWR);
    if (c->rank < 0 && c->fd >= 0) { /* never a PE of the job: nobody else holds its number */
        if (tb->base.rank == 0 && c->hello)
            tcp_auth_failed(tb, c, "closed before it proved that it knows the job secret");
        close(c->fd);
        c->fd = -1;
    }
    free(c->in);
    c->in = NULL;
    c->in_len = c->in_cap = 0;
    if (c->bye || c->rank < 0)
        return;
    if (tb->base.rank != 0 && !tb->root_proven) {
        /* Not a lost PE 0: it never was one (a stranger at the root
         * address), or it refused this PE's hello. */
        tcp_set_fatal(tb, SYM_ERR_BOOTSTRAP,
                      "sym_init (tcp bootstrap): the connection to %s closed before the "
                      "handshake (is that address this job's PE 0, with the same symheap "
                      "version?)",
                      tb->addr_text);
        return;
    }
    if (tb->base.rank != 0) {
        tcp_mark_lost(tb, 0, tb->root_failed,
                      "(the bootstrap root) closed its connection without finalizing "
                      "(died or unreachable)");
        return;
    }
    tcp_root_report_lost(tb, c->rank,
                         "lost its bootstrap connection without finalizing (died or "
                         "unreachable)");
}

/* Handle every complete message buffered on `c`, checking each header as
 * soon as it is in: a connection that has not said hello may send nothing
 * but a hello, and nothing may announce more than TCP_MSG_MAX.  Lock held.
 * False when the connection must be dropped. */
static bool conn_parse(struct tcp_boot *tb, struct conn *c)
{
    size_t at = 0;
    bool ok = true;
    while (ok && c->in_len - at >= 8) {
        uint32_t type = tcp_get32(c->in + at), len = tcp_get32(c->in + at + 4);
        /* Before it is admitted a connection may send a hello (a short
         * one still names its version), then its proof: nothing else. */
        if (tb->base.rank == 0 && c->rank < 0 && !c->hello &&
            (type != MSG_HELLO || len > TCP_HELLO_LEN)) {
            tcp_stray_log(tb, c, "its first message is not a symheap hello");
            return false;
        }
        if (tb->base.rank == 0 && c->rank < 0 && c->hello &&
            (type != MSG_PROOF || len != TCP_PROOF_LEN)) {
            tcp_auth_failed(tb, c, "its answer to the challenge is not a proof");
            return false;
        }
        if (len > TCP_MSG_MAX) {
            if (tb->base.rank != 0)
                return tcp_root_garbage(tb, "a message longer than the bootstrap's maximum");
            char why[96];
            snprintf(why, sizeof(why), "PE %d announced a message of %u bytes (at most %u)",
                     c->rank, len, TCP_MSG_MAX);
            tcp_stray_log(tb, c, why);
            return false;
        }
        if (c->in_len - at - 8 < len)
            break;
        ok = tb->base.rank == 0 ? tcp_root_handle(tb, c, type, c->in + at + 8, len)
                                : tcp_pe_handle(tb, type, c->in + at + 8, len);
        at += 8 + len;
    }
    if (!ok)
        return false;
    memmove(c->in, c->in + at, c->in_len - at);
    c->in_len -= at;
    return true;
}

/* Read what is available on `c` (up to TCP_READ_BUDGET bytes) and handle
 * every complete message after each read, so the buffer never holds more
 * than one message: 8 + TCP_HELLO_LEN bytes before the hello, 8 +
 * TCP_MSG_MAX after.  Lock held.  False when the connection is gone. */
bool tcp_conn_read(struct tcp_boot *tb, struct conn *c)
{
    size_t budget = TCP_READ_BUDGET;
    while (budget) {
        size_t limit = c->rank < 0 ? 8 + TCP_HELLO_LEN : 8 + (size_t)TCP_MSG_MAX;
        if (c->in_len >= limit) /* cannot happen: conn_parse consumed or refused it */
            return false;
        if (c->in_cap < limit && c->in_cap - c->in_len < 4096) {
            size_t cap = c->in_cap ? c->in_cap * 2 : 4096;
            if (cap > limit)
                cap = limit;
            uint8_t *in = realloc(c->in, cap);
            if (!in)
                return false;
            c->in = in;
            c->in_cap = cap;
        }
        size_t room = (c->in_cap < limit ? c->in_cap : limit) - c->in_len;
        if (room > budget)
            room = budget;
        ssize_t n = recv(c->fd, c->in + c->in_len, room, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return true;
        if (n <= 0) {
            /* End (or reset): what came before it, a BYE say, was handled. */
            return false;
        }
        c->in_len += (size_t)n;
        budget -= (size_t)n;
        if (!conn_parse(tb, c))
            return false;
    }
    return true;
}
