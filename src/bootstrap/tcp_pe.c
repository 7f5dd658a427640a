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

/* Non-root: a message from the root.  Lock held. */
bool tcp_pe_handle(struct tcp_boot *tb, uint32_t type, const uint8_t *p, uint32_t len)
{
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
        uint32_t pe = len == 4 ? tcp_get32(p) : UINT32_MAX;
        if (pe == 0 || pe >= (uint32_t)tb->base.size || pe == (uint32_t)tb->base.rank)
            return tcp_root_garbage(tb, "a loss report naming no other PE of the job");
        tcp_mark_lost(tb, (int)pe,
                      "lost its bootstrap connection without finalizing (died or "
                      "unreachable; reported by the root, PE 0)");
        return true;
    }
    case MSG_BYE:
        tb->conns[0].bye = true;
        return true;
    default:
        return false;
    }
}

/* Non-root PE: connect to the root, retrying until the deadline (the root
 * may not be listening yet). */
sym_status_t tcp_pe_connect(struct tcp_boot *tb)
{
    struct addrinfo *res;
    sym_status_t st = tcp_resolve(tb->addr_text, &res);
    if (st != SYM_OK)
        return st;
    double start = tcp_now(), deadline = start + tb->timeout;
    int err = 0;
    long pause_ms = 10;
    int fd = -1;
    while (fd < 0) {
        for (struct addrinfo *ai = res; ai && fd < 0; ai = ai->ai_next) {
            int s = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                           ai->ai_protocol);
            if (s < 0) {
                err = errno;
                continue;
            }
            int rc = connect(s, ai->ai_addr, ai->ai_addrlen);
            if (rc != 0 && errno == EINPROGRESS) {
                double left = deadline - tcp_now();
                struct pollfd pfd = {.fd = s, .events = POLLOUT};
                int ms = left > 5.0 ? 5000 : left > 0 ? (int)(left * 1000) + 1 : 0;
                if (poll(&pfd, 1, ms) == 1) {
                    socklen_t l = sizeof(err);
                    getsockopt(s, SOL_SOCKET, SO_ERROR, &err, &l);
                    rc = err ? -1 : 0;
                } else {
                    err = ETIMEDOUT;
                }
            } else if (rc != 0) {
                err = errno;
            }
            if (rc == 0)
                fd = s;
            else
                close(s);
        }
        if (fd >= 0)
            break;
        double left = deadline - tcp_now();
        if (left <= 0)
            break;
        /* Also watch the job while retrying: symrun's abort, say. */
        if ((st = sym_job_check("sym_init (tcp bootstrap)", "the root to listen")) != SYM_OK)
            break;
        double pause = (double)pause_ms / 1000;
        struct timespec ts = {0, (long)((pause < left ? pause : left) * 1e9)};
        nanosleep(&ts, NULL);
        if (pause_ms < 200)
            pause_ms *= 2;
    }
    freeaddrinfo(res);
    if (st != SYM_OK)
        return st;
    if (fd < 0)
        return sym_error(SYM_ERR_TIMEOUT,
                         "sym_init (tcp bootstrap): PE %d never connected to the root (PE 0) "
                         "at %s within %.0f s: %s (is PE 0 running and listening there?)",
                         tb->base.rank, tb->addr_text, tb->timeout, strerror(err));
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    tb->conns[0] = (struct conn){.fd = fd, .open = true, .rank = 0};
    return SYM_OK;
}
