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

/* Root: a connection that is no PE of this job is closed, saying why on
 * stderr (the first few; a flood is only counted).  Lock held. */
void tcp_stray_log(struct tcp_boot *tb, const struct conn *c, const char *why)
{
    int n = ++tb->strays;
    if (n > TCP_STRAY_LOG_MAX)
        return;
    fprintf(stderr, "symheap: PE 0 (tcp bootstrap at %s): closed a connection from %s: %s%s\n",
            tb->addr_text, c->peer[0] ? c->peer : "?", why,
            n == TCP_STRAY_LOG_MAX ? " (further ones are not reported)" : "");
}

/* Root: does another accepted connection already claim `rank`? */
static bool rank_pending(const struct tcp_boot *tb, const struct conn *c, int rank)
{
    for (int i = 0; i < tb->npending; i++)
        if (&tb->pending[i] != c && tb->pending[i].rank == rank)
            return true;
    return false;
}

/* Root: a message from PE `c->rank` (or a hello from a pending connection).
 * Lock held.  Returns false to drop the connection. */
bool tcp_root_handle(struct tcp_boot *tb, struct conn *c, uint32_t type, const uint8_t *p,
                     uint32_t len)
{
    if (c->rank < 0) {
        if (type != MSG_HELLO || len != TCP_HELLO_LEN || tcp_get32(p) != TCP_MAGIC) {
            tcp_stray_log(tb, c, "its first message is not a symheap hello");
            return false;
        }
        uint32_t version = tcp_get32(p + 4), rank = tcp_get32(p + 8), size = tcp_get32(p + 12);
        char why[256] = "";
        if (version != TCP_VERSION)
            snprintf(why, sizeof(why),
                     "PE %u speaks bootstrap protocol %u, the root %u "
                     "(different symheap versions?)",
                     rank, version, TCP_VERSION);
        else if (size != (uint32_t)tb->base.size)
            snprintf(why, sizeof(why),
                     "PE %u was started with SYMHEAP_SIZE=%u, the root "
                     "with SYMHEAP_SIZE=%d",
                     rank, size, tb->base.size);
        else if (rank == 0 || rank >= size)
            snprintf(why, sizeof(why),
                     "a PE connected claiming SYMHEAP_RANK=%u (valid: "
                     "1..%u; 0 is the root)",
                     rank, size - 1);
        else if (tb->conns[rank].fd >= 0 || rank_pending(tb, c, (int)rank))
            snprintf(why, sizeof(why), "two PEs were started with SYMHEAP_RANK=%u", rank);
        if (why[0]) {
            tcp_set_fatal(tb, SYM_ERR_BOOTSTRAP, "sym_init (tcp bootstrap at %s): %s",
                          tb->addr_text, why);
            /* the reply is sent after the lock is released, then the
             * connection closed: the queue takes the descriptor */
            uint32_t code = htonl((uint32_t)(int32_t)SYM_ERR_BOOTSTRAP);
            tcp_queue(tb, c->fd, true, MSG_ERROR, &code, sizeof(code), tb->fatal_msg,
                      strlen(tb->fatal_msg));
            c->fd = -1;
            return false;
        }
        c->rank = (int)rank;
        tb->connected++;
        return true;
    }
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
    default:
        return false;
    }
}

/* Root: drop pending connection i (lock held). */
void tcp_drop_pending(struct tcp_boot *tb, int i, const char *why)
{
    struct conn *c = &tb->pending[i];
    if (why)
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
