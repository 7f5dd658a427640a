/*
 * boot_tcp.c - TCP rendezvous for launchers without PMIx (containers,
 * Kubernetes, torchrun-style scripts, PEs started by hand).
 *
 * Every PE is started with SYMHEAP_RANK, SYMHEAP_SIZE and
 * SYMHEAP_ROOT_ADDR=host:port.  PE 0 (the root) listens on exactly that
 * address and nothing else; the others connect to it, retrying until the
 * deadline since they may start first.  The root makes the job key and sends
 * it to everyone once all have said hello; allgathers and barriers go through
 * the root (star: 2 messages per PE per step, fine for the few steps of an
 * init).
 *
 * The connections stay open for the life of the job: they are how PEs on
 * other hosts learn that a peer died.  A PE says goodbye (BYE) when it
 * finalizes; a connection that ends without one is a lost PE.  The root sees
 * every PE's connection and relays a loss to all others; a non-root PE that
 * loses its connection to the root has lost the root.  A helper thread per
 * PE reads the connections, so losses are noticed at once whatever the
 * application thread is doing; the application thread only waits (through
 * sym_wait_for) on state the helper thread fills in.
 *
 * Wire format: every message is a header {type, length} of two 32-bit
 * big-endian words, then `length` payload bytes.
 *
 * The root address is open to anyone who can reach it, so the root trusts
 * no connection before its hello: until then a connection may send only a
 * hello (16 bytes), must send it within SYMHEAP_TIMEOUT, and at most
 * TCP_PENDING_MAX + size such connections are kept (the oldest goes first).  No
 * message may announce more than TCP_MSG_MAX bytes, every header is checked
 * as soon as it arrives, and a stranger is closed with the reason on
 * stderr; it never fails the job.  The helper thread never writes to a
 * socket while it holds the lock that waiters poll (it queues).
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <time.h>
#include <unistd.h>

#include "base/addr.h"
#include "base/error.h"
#include "base/wait.h"
#include "bootstrap.h"

#define TCP_MAGIC 0x53594d42u /* "SYMB" */
#define TCP_VERSION 1u
/* Largest message accepted: an allgather result of 4096 PEs x 4 KiB. */
#define TCP_MSG_MAX (16u << 20)
#define TCP_BLOB_MAX (64u << 10)
#define TCP_HELLO_LEN 16u
/* Accepted connections that have not said hello yet: beyond this many plus
 * the job size the oldest is dropped (real PEs say hello right after
 * connecting, so even a whole job connecting at once fits). */
#define TCP_PENDING_MAX 64
/* Bytes read from one connection per wake-up of the helper thread, which
 * holds the lock meanwhile; poll reports the rest. */
#define TCP_READ_BUDGET (1u << 20)
/* Dropped stray connections reported on stderr (then only counted). */
#define TCP_STRAY_LOG_MAX 10
/* Extra time a non-root PE gives the root to report a failure it detected
 * itself (it names the culprit; the non-root PE could only say "no answer"):
 * the timeout again, at most 10 s. */
#define TCP_ROOT_MARGIN_S(t) ((t) < 10.0 ? (t) : 10.0)

enum tcp_msg {
    MSG_HELLO = 1,      /* PE -> root: magic, version, rank, size */
    MSG_WELCOME = 2,    /* root -> PE: the job key */
    MSG_ERROR = 3,      /* root -> PE: status, text; the job cannot go on */
    MSG_GATHER = 4,     /* PE -> root: step, blob */
    MSG_GATHER_ALL = 5, /* root -> PE: step, every blob in rank order */
    MSG_LOST = 6,       /* root -> PE: a PE was lost */
    MSG_BYE = 7,        /* either way: the sender finalized; its EOF is no loss */
};

struct conn {
    int fd;        /* -1 until connected; kept until fini, so the number is never
                      reused under a sender (open says whether it still works) */
    bool open;
    int rank;      /* -1 until the hello (root side) */
    bool bye;      /* a BYE arrived: EOF is an orderly exit */
    uint8_t *in;   /* partial input */
    size_t in_len, in_cap;
    double since;  /* root: when it was accepted */
    char peer[64]; /* root: the address it came from, for messages */
};

/* A message the helper thread sends once it has released the lock. */
struct out_msg {
    struct out_msg *next;
    int fd;
    bool owns_fd; /* shut down and close fd once sent (a refused connection) */
    uint32_t type;
    size_t len;
    uint8_t data[];
};

struct slot {
    uint32_t step; /* the allgather step this blob belongs to (0: none yet) */
    uint32_t len;
    uint8_t *data;
};

struct tcp_boot {
    struct sym_boot base;
    char addr_text[256]; /* SYMHEAP_ROOT_ADDR as given */
    double timeout;

    pthread_t thread;
    bool thread_started;
    int wake[2];              /* pipe: tells the helper thread to stop */
    pthread_mutex_t send_lock; /* whole messages never interleave */
    pthread_mutex_t lock;     /* everything below */

    int listen_fd;            /* root, until everyone connected */
    struct conn *conns;       /* root: [size] by rank (0 unused); PE: [1], the root */
    struct conn *pending;     /* root: accepted, no hello yet */
    int npending, pending_cap;
    int connected;            /* root: PEs that said hello */

    uint32_t step;            /* allgather steps done by this PE */
    struct slot *slots;       /* root: [size] */
    uint8_t *result;          /* PE: last GATHER_ALL payload (after the step word) */
    size_t result_len;
    uint32_t result_step;

    struct out_msg *out_head, *out_tail; /* helper: to send without the lock */
    int strays;               /* root: stray connections dropped so far */

    bool welcomed;            /* PE: the key arrived */
    int lost;                 /* first lost PE or -1 */
    char lost_how[160];
    sym_status_t fatal;       /* SYM_OK, or the failure the job cannot survive */
    char fatal_msg[512];
};

static double mono_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ---- address ----------------------------------------------------------- */

static sym_status_t resolve(const char *text, struct addrinfo **res_p)
{
    char host[256], port[16];
    if (sym_addr_parse(text, host, sizeof(host), port, sizeof(port)) != 0)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_ROOT_ADDR='%s' is not valid: "
                         "expected host:port or [IPv6 address]:port with a port 1..65535",
                         text);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
    int rc = getaddrinfo(host, port, &hints, res_p);
    if (rc != 0)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init (tcp bootstrap): cannot resolve SYMHEAP_ROOT_ADDR='%s': %s",
                         text, gai_strerror(rc));
    return SYM_OK;
}

/* ---- sending ----------------------------------------------------------- */

/* Write all of buf to a non-blocking socket within `timeout` seconds. */
static int write_all(int fd, const void *buf, size_t len, double timeout)
{
    const uint8_t *p = buf;
    double deadline = mono_now() + timeout;
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
        double left = deadline - mono_now();
        if (left <= 0) {
            errno = ETIMEDOUT;
            return -1;
        }
        struct pollfd pfd = { .fd = fd, .events = POLLOUT };
        poll(&pfd, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
    }
    return 0;
}

/* One message from up to two payload pieces.  0 or -1 (errno). */
static int send_msg(struct tcp_boot *tb, int fd, uint32_t type, const void *a, size_t alen,
                    const void *b, size_t blen)
{
    if (fd < 0) {
        errno = EPIPE;
        return -1;
    }
    uint32_t hdr[2] = { htonl(type), htonl((uint32_t)(alen + blen)) };
    pthread_mutex_lock(&tb->send_lock);
    int rc = write_all(fd, hdr, sizeof(hdr), tb->timeout);
    if (rc == 0 && alen)
        rc = write_all(fd, a, alen, tb->timeout);
    if (rc == 0 && blen)
        rc = write_all(fd, b, blen, tb->timeout);
    pthread_mutex_unlock(&tb->send_lock);
    return rc;
}

static void send_error(struct tcp_boot *tb, int fd, sym_status_t st, const char *text)
{
    uint32_t code = htonl((uint32_t)(int32_t)st);
    send_msg(tb, fd, MSG_ERROR, &code, sizeof(code), text, strlen(text));
}

/* Queue a message for the helper thread to send after it released the
 * lock (lock held): a write may block up to the timeout, and every waiter
 * polls state under that lock.  With owns_fd, fd is the queue's: shut down
 * and closed once the message is sent. */
static void queue_msg(struct tcp_boot *tb, int fd, bool owns_fd, uint32_t type, const void *a,
                      size_t alen, const void *b, size_t blen)
{
    struct out_msg *m = malloc(sizeof(*m) + alen + blen);
    if (!m) { /* best effort, like a failed send */
        if (owns_fd) {
            shutdown(fd, SHUT_RDWR);
            close(fd);
        }
        return;
    }
    *m = (struct out_msg){ .fd = fd, .owns_fd = owns_fd, .type = type, .len = alen + blen };
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
static void flush_queue(struct tcp_boot *tb, bool send)
{
    pthread_mutex_lock(&tb->lock);
    struct out_msg *m = tb->out_head;
    tb->out_head = tb->out_tail = NULL;
    pthread_mutex_unlock(&tb->lock);
    while (m) {
        struct out_msg *next = m->next;
        if (send)
            send_msg(tb, m->fd, m->type, m->data, m->len, NULL, 0);
        if (m->owns_fd) {
            shutdown(m->fd, SHUT_RDWR);
            close(m->fd);
        }
        free(m);
        m = next;
    }
}

/* Root: tell every connected PE that the job failed, with the root's text. */
static void root_fail_all(struct tcp_boot *tb, sym_status_t st, const char *text)
{
    for (int r = 1; r < tb->base.size; r++) {
        pthread_mutex_lock(&tb->lock);
        int fd = tb->conns[r].open ? tb->conns[r].fd : -1;
        pthread_mutex_unlock(&tb->lock);
        if (fd >= 0)
            send_error(tb, fd, st, text);
    }
}

/* ---- the helper thread ------------------------------------------------- */

/* Record the first lost PE (lock held). */
static void mark_lost(struct tcp_boot *tb, int pe, const char *how)
{
    if (tb->lost >= 0)
        return;
    tb->lost = pe;
    snprintf(tb->lost_how, sizeof(tb->lost_how), "%s", how);
}

static void set_fatal(struct tcp_boot *tb, sym_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void set_fatal(struct tcp_boot *tb, sym_status_t st, const char *fmt, ...)
{
    if (tb->fatal != SYM_OK)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(tb->fatal_msg, sizeof(tb->fatal_msg), fmt, ap);
    va_end(ap);
    tb->fatal = st;
}

static uint32_t get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return ntohl(v);
}

/* Root: a connection that is no PE of this job is closed, saying why on
 * stderr (the first few; a flood is only counted).  Lock held. */
static void stray_log(struct tcp_boot *tb, const struct conn *c, const char *why)
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
static bool root_handle(struct tcp_boot *tb, struct conn *c, uint32_t type, const uint8_t *p,
                        uint32_t len)
{
    if (c->rank < 0) {
        if (type != MSG_HELLO || len != TCP_HELLO_LEN || get32(p) != TCP_MAGIC) {
            stray_log(tb, c, "its first message is not a symheap hello");
            return false;
        }
        uint32_t version = get32(p + 4), rank = get32(p + 8), size = get32(p + 12);
        char why[256] = "";
        if (version != TCP_VERSION)
            snprintf(why, sizeof(why), "PE %u speaks bootstrap protocol %u, the root %u "
                     "(different symheap versions?)", rank, version, TCP_VERSION);
        else if (size != (uint32_t)tb->base.size)
            snprintf(why, sizeof(why), "PE %u was started with SYMHEAP_SIZE=%u, the root "
                     "with SYMHEAP_SIZE=%d", rank, size, tb->base.size);
        else if (rank == 0 || rank >= size)
            snprintf(why, sizeof(why), "a PE connected claiming SYMHEAP_RANK=%u (valid: "
                     "1..%u; 0 is the root)", rank, size - 1);
        else if (tb->conns[rank].fd >= 0 || rank_pending(tb, c, (int)rank))
            snprintf(why, sizeof(why), "two PEs were started with SYMHEAP_RANK=%u", rank);
        if (why[0]) {
            set_fatal(tb, SYM_ERR_BOOTSTRAP, "sym_init (tcp bootstrap at %s): %s",
                      tb->addr_text, why);
            /* the reply is sent after the lock is released, then the
             * connection closed: the queue takes the descriptor */
            uint32_t code = htonl((uint32_t)(int32_t)SYM_ERR_BOOTSTRAP);
            queue_msg(tb, c->fd, true, MSG_ERROR, &code, sizeof(code), tb->fatal_msg,
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
            set_fatal(tb, SYM_ERR_NO_MEMORY, "sym_init (tcp bootstrap): out of memory");
            return true;
        }
        memcpy(d, p + 4, n);
        s->data = d;
        s->len = n;
        s->step = get32(p);
        return true;
    }
    case MSG_BYE:
        c->bye = true;
        return true;
    default:
        return false;
    }
}

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
static bool root_garbage(struct tcp_boot *tb, const char *what)
{
    set_fatal(tb, SYM_ERR_BOOTSTRAP, "sym_init (tcp bootstrap): the root (PE 0) at %s sent "
              "%s (a different symheap version, or not a symheap root?)", tb->addr_text, what);
    return false;
}

/* Non-root: a message from the root.  Lock held. */
static bool pe_handle(struct tcp_boot *tb, uint32_t type, const uint8_t *p, uint32_t len)
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
            return root_garbage(tb, "an error message without a status");
        int32_t st = (int32_t)get32(p);
        if (!status_is_error(st))
            return root_garbage(tb, "an error message with an unknown status");
        set_fatal(tb, (sym_status_t)st, "%.*s", (int)(len - 4), (const char *)p + 4);
        return true;
    }
    case MSG_GATHER_ALL: {
        if (len < 4)
            return false;
        uint8_t *d = realloc(tb->result, len - 4 ? len - 4 : 1);
        if (!d) {
            set_fatal(tb, SYM_ERR_NO_MEMORY, "sym_init (tcp bootstrap): out of memory");
            return true;
        }
        memcpy(d, p + 4, len - 4);
        tb->result = d;
        tb->result_len = len - 4;
        tb->result_step = get32(p);
        return true;
    }
    case MSG_LOST: {
        uint32_t pe = len == 4 ? get32(p) : UINT32_MAX;
        if (pe == 0 || pe >= (uint32_t)tb->base.size || pe == (uint32_t)tb->base.rank)
            return root_garbage(tb, "a loss report naming no other PE of the job");
        mark_lost(tb, (int)pe, "lost its bootstrap connection without finalizing (died or "
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

/* Close a connection; on the root, report a PE that left without BYE to
 * everyone.  Lock held. */
static void conn_closed(struct tcp_boot *tb, struct conn *c)
{
    c->open = false;
    if (c->fd >= 0) /* -1: handed to the send queue (root_handle) */
        shutdown(c->fd, SHUT_RDWR);
    if (c->rank < 0 && c->fd >= 0) { /* never a PE of the job: nobody else holds its number */
        close(c->fd);
        c->fd = -1;
    }
    free(c->in);
    c->in = NULL;
    c->in_len = c->in_cap = 0;
    if (c->bye || c->rank < 0)
        return;
    if (tb->base.rank != 0) {
        mark_lost(tb, 0, "(the bootstrap root) closed its connection without finalizing "
                         "(died or unreachable)");
        return;
    }
    bool first = tb->lost < 0;
    mark_lost(tb, c->rank, "lost its bootstrap connection without finalizing (died or "
                           "unreachable)");
    if (!first)
        return;
    uint32_t pe = htonl((uint32_t)c->rank);
    for (int r = 1; r < tb->base.size; r++)
        if (tb->conns[r].open)
            queue_msg(tb, tb->conns[r].fd, false, MSG_LOST, &pe, sizeof(pe), NULL, 0);
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
        uint32_t type = get32(c->in + at), len = get32(c->in + at + 4);
        if (tb->base.rank == 0 && c->rank < 0 && (type != MSG_HELLO || len != TCP_HELLO_LEN)) {
            stray_log(tb, c, "its first message is not a symheap hello");
            return false;
        }
        if (len > TCP_MSG_MAX) {
            if (tb->base.rank != 0)
                return root_garbage(tb, "a message longer than the bootstrap's maximum");
            char why[96];
            snprintf(why, sizeof(why), "PE %d announced a message of %u bytes (at most %u)",
                     c->rank, len, TCP_MSG_MAX);
            stray_log(tb, c, why);
            return false;
        }
        if (c->in_len - at - 8 < len)
            break;
        ok = tb->base.rank == 0 ? root_handle(tb, c, type, c->in + at + 8, len)
                                : pe_handle(tb, type, c->in + at + 8, len);
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
static bool conn_read(struct tcp_boot *tb, struct conn *c)
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

/* Root: drop pending connection i (lock held). */
static void drop_pending(struct tcp_boot *tb, int i, const char *why)
{
    struct conn *c = &tb->pending[i];
    if (why)
        stray_log(tb, c, why);
    conn_closed(tb, c);
    memmove(&tb->pending[i], &tb->pending[i + 1],
            (size_t)(tb->npending - i - 1) * sizeof(*c));
    tb->npending--;
}

static void root_accept(struct tcp_boot *tb)
{
    struct sockaddr_storage from;
    socklen_t fromlen = sizeof(from);
    int fd = accept4(tb->listen_fd, (struct sockaddr *)&from, &fromlen,
                     SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    char host[INET6_ADDRSTRLEN] = "?", serv[16] = "?";
    getnameinfo((struct sockaddr *)&from, fromlen, host, sizeof(host), serv, sizeof(serv),
                NI_NUMERICHOST | NI_NUMERICSERV);
    /* Real PEs say hello at once: make room by dropping the oldest. */
    if (tb->npending >= TCP_PENDING_MAX + tb->base.size)
        drop_pending(tb, 0, "too many connections without a hello (the oldest goes)");
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
    *c = (struct conn){ .fd = fd, .open = true, .rank = -1, .since = mono_now() };
    snprintf(c->peer, sizeof(c->peer), "%s port %s", host, serv);
}

static void *helper_main(void *arg)
{
    struct tcp_boot *tb = arg;
    int n = tb->base.rank == 0 ? tb->base.size : 1;
    struct pollfd *pfd = NULL;
    struct conn **who = NULL;
    for (;;) {
        pthread_mutex_lock(&tb->lock);
        int cap = 2 + n + tb->npending;
        struct pollfd *np = realloc(pfd, (size_t)cap * sizeof(*pfd));
        struct conn **nw = realloc(who, (size_t)cap * sizeof(*who));
        if (np)
            pfd = np;
        if (nw)
            who = nw;
        if (!np || !nw) {
            set_fatal(tb, SYM_ERR_NO_MEMORY, "sym_init (tcp bootstrap): out of memory");
            pthread_mutex_unlock(&tb->lock);
            break;
        }
        int k = 0;
        pfd[k] = (struct pollfd){ .fd = tb->wake[0], .events = POLLIN };
        who[k++] = NULL;
        if (tb->listen_fd >= 0) {
            pfd[k] = (struct pollfd){ .fd = tb->listen_fd, .events = POLLIN };
            who[k++] = NULL;
        }
        for (int i = 0; i < n; i++)
            if (tb->conns[i].open) {
                pfd[k] = (struct pollfd){ .fd = tb->conns[i].fd, .events = POLLIN };
                who[k++] = &tb->conns[i];
            }
        for (int i = 0; i < tb->npending; i++) {
            pfd[k] = (struct pollfd){ .fd = tb->pending[i].fd, .events = POLLIN };
            who[k++] = &tb->pending[i];
        }
        /* Wake up when the oldest pending connection's time is up. */
        int ms = -1;
        if (tb->npending) {
            double left = tb->pending[0].since + tb->timeout - mono_now();
            ms = left <= 0 ? 0 : left > 1000.0 ? 1000000 : (int)(left * 1000) + 1;
        }
        pthread_mutex_unlock(&tb->lock);

        if (poll(pfd, (nfds_t)k, ms) < 0 && errno != EINTR)
            break;
        if (pfd[0].revents)
            break;
        pthread_mutex_lock(&tb->lock);
        /* Handle the listening socket last: accepting moves `pending`. */
        bool accept_ready = false;
        for (int i = 1; i < k; i++) {
            if (!pfd[i].revents)
                continue;
            if (!who[i]) {
                accept_ready = true;
                continue;
            }
            if (!conn_read(tb, who[i]))
                conn_closed(tb, who[i]);
        }
        /* Pending connections that said hello move to their rank's place;
         * those that failed or closed are dropped. */
        int kept = 0;
        for (int i = 0; i < tb->npending; i++) {
            struct conn *c = &tb->pending[i];
            if (c->rank > 0)
                tb->conns[c->rank] = *c;
            else if (c->open)
                tb->pending[kept++] = *c;
        }
        tb->npending = kept;
        /* A PE says hello right after connecting: one that has not within
         * the timeout is no PE (in accept order: the oldest first). */
        double now = mono_now();
        while (tb->npending && tb->pending[0].since + tb->timeout <= now)
            drop_pending(tb, 0, "no symheap hello within SYMHEAP_TIMEOUT");
        if (accept_ready)
            root_accept(tb);
        /* Everyone is here: accept nothing more on the root address, and
         * whatever is still pending is no PE of this job. */
        if (tb->listen_fd >= 0 && tb->connected == tb->base.size - 1) {
            close(tb->listen_fd);
            tb->listen_fd = -1;
        }
        while (tb->listen_fd < 0 && tb->npending)
            drop_pending(tb, 0, "every PE of the job is already connected");
        pthread_mutex_unlock(&tb->lock);
        flush_queue(tb, true);
    }
    flush_queue(tb, false);
    free(pfd);
    free(who);
    return NULL;
}

/* ---- waiting on the helper's state ------------------------------------- */

enum wait_kind { WAIT_CONNECT, WAIT_WELCOME, WAIT_ALLGATHER };

struct tcp_wait {
    struct tcp_boot *tb;
    enum wait_kind kind;
    uint32_t step;
};

/* Whether the step itself completed, whatever happened since (lock held). */
static bool step_done_locked(const struct tcp_wait *w)
{
    struct tcp_boot *tb = w->tb;
    switch (w->kind) {
    case WAIT_CONNECT:
        return tb->connected == tb->base.size - 1;
    case WAIT_WELCOME:
        return tb->welcomed;
    case WAIT_ALLGATHER:
        if (tb->base.rank != 0)
            return tb->result_step == w->step;
        for (int r = 1; r < tb->base.size; r++)
            if (tb->slots[r].step != w->step)
                return false;
        return true;
    }
    return true;
}

/* The wait is over: the step completed, or it never will (lock held). */
static bool done_locked(const struct tcp_wait *w)
{
    const struct tcp_boot *tb = w->tb;
    return tb->fatal != SYM_OK || tb->lost >= 0 || step_done_locked(w);
}

static bool tcp_ready(void *arg)
{
    struct tcp_wait *w = arg;
    pthread_mutex_lock(&w->tb->lock);
    bool done = done_locked(w);
    pthread_mutex_unlock(&w->tb->lock);
    return done;
}

/* Comma-separated PEs matching `pred`, e.g. "3, 5" (lock held). */
static void list_missing(struct tcp_boot *tb, const struct tcp_wait *w, char *buf, size_t len)
{
    size_t used = 0;
    int count = 0;
    buf[0] = '\0';
    for (int r = 1; r < tb->base.size && used < len; r++) {
        bool missing = w->kind == WAIT_CONNECT ? tb->conns[r].fd < 0 && !tb->conns[r].bye
                                               : tb->slots[r].step != w->step;
        if (!missing)
            continue;
        if (++count > 32) {
            used += (size_t)snprintf(buf + used, len - used, ", ...");
            break;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%d", count > 1 ? ", " : "", r);
    }
}

static void tcp_describe(void *arg, char *buf, size_t len)
{
    struct tcp_wait *w = arg;
    struct tcp_boot *tb = w->tb;
    char missing[256];
    pthread_mutex_lock(&tb->lock);
    switch (w->kind) {
    case WAIT_CONNECT:
        list_missing(tb, w, missing, sizeof(missing));
        snprintf(buf, len, "PEs to connect to the root at %s; never connected: %s",
                 tb->addr_text, missing);
        break;
    case WAIT_WELCOME:
        snprintf(buf, len, "the root (PE 0) at %s to answer (is SYMHEAP_ROOT_ADDR the "
                 "address PE 0 listens on?)", tb->addr_text);
        break;
    case WAIT_ALLGATHER:
        if (tb->base.rank == 0) {
            list_missing(tb, w, missing, sizeof(missing));
            snprintf(buf, len, "PEs to reach bootstrap step %u; missing: %s", w->step,
                     missing);
        } else {
            snprintf(buf, len, "the root (PE 0) to complete bootstrap step %u", w->step);
        }
        break;
    }
    pthread_mutex_unlock(&tb->lock);
}

/* Wait for `w`; the error, if any, names the step. */
static sym_status_t tcp_wait_for(struct tcp_wait *w, const char *op, double timeout)
{
    struct tcp_boot *tb = w->tb;
    struct sym_waiter waiter = { tcp_ready, tcp_describe, w, NULL };
    sym_status_t st = sym_wait_for(op, &waiter, timeout);
    pthread_mutex_lock(&tb->lock);
    sym_status_t fatal = tb->fatal;
    char msg[512];
    snprintf(msg, sizeof(msg), "%s", tb->fatal_msg);
    int lost = tb->lost;
    char how[160];
    snprintf(how, sizeof(how), "%s", tb->lost_how);
    bool done = step_done_locked(w);
    pthread_mutex_unlock(&tb->lock);
    if (fatal != SYM_OK)
        return sym_error(fatal, "%s", msg);
    /* A step that completed before a PE was lost succeeded: its result is
     * whole, and the loss is reported by the next wait.  A root that fails
     * sym_init on what it just gathered (a loopback address, say) exits
     * right after sending the result; its EOF often arrives in the same
     * read, and reporting the root lost here would hide the real cause,
     * which every PE finds by itself in the same result. */
    if (done && st == SYM_OK)
        return SYM_OK;
    if (lost >= 0)
        return sym_error(SYM_ERR_PEER_LOST, "%s: PE %d %s", op, lost, how);
    if (st == SYM_OK && !done)
        return sym_error(SYM_ERR_INTERNAL, "%s: woke up before its step completed", op);
    return st;
}

/* ---- the boot ops ------------------------------------------------------ */

static sym_status_t tcp_allgather(struct sym_boot *b, const void *mine, size_t len, void *all)
{
    struct tcp_boot *tb = (struct tcp_boot *)b;
    const char *op = "sym_init (tcp bootstrap allgather)";
    if (len > TCP_BLOB_MAX)
        return sym_error(SYM_ERR_INTERNAL, "%s: a blob of %zu bytes is more than the %u the "
                         "tcp bootstrap carries", op, len, TCP_BLOB_MAX);
    uint32_t step = ++tb->step;
    struct tcp_wait w = { .tb = tb, .kind = WAIT_ALLGATHER, .step = step };
    uint32_t step_be = htonl(step);
    if (b->rank != 0) {
        if (send_msg(tb, tb->conns[0].fd, MSG_GATHER, &step_be, 4, mine, len) != 0)
            return sym_error(SYM_ERR_BOOTSTRAP, "%s: PE %d cannot send to the root at %s: %s",
                             op, b->rank, tb->addr_text, strerror(errno));
        sym_status_t st = tcp_wait_for(&w, op, tb->timeout + TCP_ROOT_MARGIN_S(tb->timeout));
        if (st != SYM_OK)
            return st;
        pthread_mutex_lock(&tb->lock);
        bool ok = tb->result_len == len * (size_t)b->size;
        if (ok && len)
            memcpy(all, tb->result, tb->result_len);
        pthread_mutex_unlock(&tb->lock);
        if (!ok)
            return sym_error(SYM_ERR_BOOTSTRAP, "%s: the root sent %zu bytes, expected %zu",
                             op, tb->result_len, len * (size_t)b->size);
        return SYM_OK;
    }
    sym_status_t st = tcp_wait_for(&w, op, tb->timeout);
    if (st != SYM_OK) {
        root_fail_all(tb, st, sym_last_error());
        return st;
    }
    pthread_mutex_lock(&tb->lock);
    int bad = -1;
    for (int r = 1; r < b->size && bad < 0; r++)
        if (tb->slots[r].len != len)
            bad = r;
    if (bad < 0) {
        if (len)
            memcpy(all, mine, len);
        for (int r = 1; r < b->size; r++)
            if (len)
                memcpy((uint8_t *)all + (size_t)r * len, tb->slots[r].data, len);
    }
    uint32_t bad_len = bad >= 0 ? tb->slots[bad].len : 0;
    pthread_mutex_unlock(&tb->lock);
    if (bad >= 0) {
        st = sym_error(SYM_ERR_BOOTSTRAP, "%s: PE %d published %u bootstrap bytes, expected "
                       "%zu (PEs run different symheap versions?)", op, bad, bad_len, len);
        root_fail_all(tb, st, sym_last_error());
        return st;
    }
    for (int r = 1; r < b->size; r++) {
        pthread_mutex_lock(&tb->lock);
        int fd = tb->conns[r].fd;
        pthread_mutex_unlock(&tb->lock);
        /* A failed send means the PE is gone: its loss is reported by the
         * helper thread and seen at the next wait. */
        send_msg(tb, fd, MSG_GATHER_ALL, &step_be, 4, all, len * (size_t)b->size);
    }
    return SYM_OK;
}

static sym_status_t tcp_barrier(struct sym_boot *b, const char *step)
{
    (void)step;
    char none = 0;
    return tcp_allgather(b, &none, 0, &none);
}

static void tcp_set_state(struct sym_boot *b, int state)
{
    struct tcp_boot *tb = (struct tcp_boot *)b;
    if (state != SYM_PE_FINALIZED)
        return;
    if (b->rank != 0) {
        send_msg(tb, tb->conns[0].fd, MSG_BYE, NULL, 0, NULL, 0);
        return;
    }
    for (int r = 1; r < b->size; r++) {
        pthread_mutex_lock(&tb->lock);
        int fd = tb->conns[r].open ? tb->conns[r].fd : -1;
        pthread_mutex_unlock(&tb->lock);
        if (fd >= 0)
            send_msg(tb, fd, MSG_BYE, NULL, 0, NULL, 0);
    }
}

static int tcp_lost_pe(struct sym_boot *b, char *how, size_t len)
{
    struct tcp_boot *tb = (struct tcp_boot *)b;
    pthread_mutex_lock(&tb->lock);
    int lost = tb->lost;
    if (lost >= 0 && how && len)
        snprintf(how, len, "%s", tb->lost_how);
    pthread_mutex_unlock(&tb->lock);
    return lost;
}

static void tcp_fini(struct sym_boot *b)
{
    struct tcp_boot *tb = (struct tcp_boot *)b;
    if (tb->thread_started) {
        char c = 0;
        while (write(tb->wake[1], &c, 1) < 0 && errno == EINTR)
            ;
        pthread_join(tb->thread, NULL);
    }
    int n = b->rank == 0 ? b->size : 1;
    for (int i = 0; tb->conns && i < n; i++) {
        if (tb->conns[i].fd >= 0)
            close(tb->conns[i].fd);
        free(tb->conns[i].in);
    }
    for (int i = 0; i < tb->npending; i++) {
        close(tb->pending[i].fd);
        free(tb->pending[i].in);
    }
    if (tb->listen_fd >= 0)
        close(tb->listen_fd);
    for (int i = 0; tb->slots && i < b->size; i++)
        free(tb->slots[i].data);
    if (tb->wake[0] >= 0) {
        close(tb->wake[0]);
        close(tb->wake[1]);
    }
    free(tb->slots);
    free(tb->conns);
    free(tb->pending);
    free(tb->result);
    pthread_mutex_destroy(&tb->lock);
    pthread_mutex_destroy(&tb->send_lock);
    free(tb);
}

static const struct sym_boot_ops tcp_ops = {
    .name = "tcp",
    .allgather = tcp_allgather,
    .barrier = tcp_barrier,
    .set_state = tcp_set_state,
    .fini = tcp_fini,
    .lost_pe = tcp_lost_pe,
};

/* ---- joining ------------------------------------------------------------ */

/* PE 0: listen on exactly the root address. */
static sym_status_t root_listen(struct tcp_boot *tb)
{
    struct addrinfo *res;
    sym_status_t st = resolve(tb->addr_text, &res);
    if (st != SYM_OK)
        return st;
    int err = 0;
    const char *what = "bind";
    for (struct addrinfo *ai = res; ai; ai = ai->ai_next) {
        int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
                        ai->ai_protocol);
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

/* Non-root PE: connect to the root, retrying until the deadline (the root
 * may not be listening yet). */
static sym_status_t pe_connect(struct tcp_boot *tb)
{
    struct addrinfo *res;
    sym_status_t st = resolve(tb->addr_text, &res);
    if (st != SYM_OK)
        return st;
    double start = mono_now(), deadline = start + tb->timeout;
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
                double left = deadline - mono_now();
                struct pollfd pfd = { .fd = s, .events = POLLOUT };
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
        double left = deadline - mono_now();
        if (left <= 0)
            break;
        /* Also watch the job while retrying: symrun's abort, say. */
        if ((st = sym_job_check("sym_init (tcp bootstrap)", "the root to listen")) != SYM_OK)
            break;
        double pause = (double)pause_ms / 1000;
        struct timespec ts = { 0, (long)((pause < left ? pause : left) * 1e9) };
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
    tb->conns[0] = (struct conn){ .fd = fd, .open = true, .rank = 0 };
    return SYM_OK;
}

static sym_status_t join(struct tcp_boot *tb)
{
    struct sym_boot *b = &tb->base;
    sym_status_t st = b->rank == 0 ? root_listen(tb) : pe_connect(tb);
    if (st != SYM_OK)
        return st;
    if (b->rank != 0) {
        uint32_t hello[4] = { htonl(TCP_MAGIC), htonl(TCP_VERSION), htonl((uint32_t)b->rank),
                              htonl((uint32_t)b->size) };
        if (send_msg(tb, tb->conns[0].fd, MSG_HELLO, hello, sizeof(hello), NULL, 0) != 0)
            return sym_error(SYM_ERR_BOOTSTRAP,
                             "sym_init (tcp bootstrap): PE %d cannot send its hello to the "
                             "root at %s: %s",
                             b->rank, tb->addr_text, strerror(errno));
    }
    /* The helper thread takes no signals: the application's handlers run
     * on its own threads, as they would without symheap. */
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&tb->thread, NULL, helper_main, tb);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return sym_error(SYM_ERR_SYSTEM, "sym_init (tcp bootstrap): cannot start a thread: %s",
                         strerror(rc));
    tb->thread_started = true;

    if (b->rank != 0) {
        struct tcp_wait w = { .tb = tb, .kind = WAIT_WELCOME };
        return tcp_wait_for(&w, "sym_init (tcp bootstrap: waiting for the root's welcome)",
                            tb->timeout + TCP_ROOT_MARGIN_S(tb->timeout));
    }
    struct tcp_wait w = { .tb = tb, .kind = WAIT_CONNECT };
    if (b->size > 1)
        st = tcp_wait_for(&w, "sym_init (tcp bootstrap: PE 0 waiting for the others)",
                          tb->timeout);
    if (st == SYM_ERR_TIMEOUT) {
        char missing[256];
        pthread_mutex_lock(&tb->lock);
        list_missing(tb, &w, missing, sizeof(missing));
        pthread_mutex_unlock(&tb->lock);
        st = sym_error(SYM_ERR_TIMEOUT,
                       "sym_init (tcp bootstrap): %s %s never connected to %s within %.0f s "
                       "(not started, wrong SYMHEAP_ROOT_ADDR, or blocked by a firewall?)",
                       strchr(missing, ',') ? "PEs" : "PE", missing, tb->addr_text,
                       tb->timeout);
    }
    if (st != SYM_OK) {
        root_fail_all(tb, st, sym_last_error());
        return st;
    }
    if (sym_boot_random_key(b->key) != 0) {
        st = sym_error(SYM_ERR_SYSTEM, "sym_init: getrandom failed for the job key");
        root_fail_all(tb, st, sym_last_error());
        return st;
    }
    for (int r = 1; r < b->size; r++) {
        pthread_mutex_lock(&tb->lock);
        int fd = tb->conns[r].fd;
        pthread_mutex_unlock(&tb->lock);
        send_msg(tb, fd, MSG_WELCOME, b->key, SYM_JOB_KEY_LEN, NULL, 0);
    }
    return SYM_OK;
}

sym_status_t sym_boot_tcp_open(const struct sym_boot_settings *cfg, struct sym_boot **boot_p)
{
    if (!cfg->root_addr[0])
        return sym_error(SYM_ERR_CONFIG, "sym_init: the tcp bootstrap needs SYMHEAP_ROOT_ADDR "
                         "(host:port where PE 0 listens)");
    char host[256], port[16];
    if (sym_addr_parse(cfg->root_addr, host, sizeof(host), port, sizeof(port)) != 0)
        return resolve(cfg->root_addr, NULL); /* the error naming the variable */
    if (cfg->size < 1 || cfg->size > SYM_JOB_MAX_PES)
        return sym_error(SYM_ERR_CONFIG, "sym_init: the tcp bootstrap needs SYMHEAP_SIZE, the "
                         "number of PEs (1..%d); got %lu", SYM_JOB_MAX_PES, cfg->size);
    if (!cfg->rank_set || cfg->rank >= cfg->size) {
        char got[32] = "(unset)";
        if (cfg->rank_set)
            snprintf(got, sizeof(got), "%lu", cfg->rank);
        return sym_error(SYM_ERR_CONFIG, "sym_init: the tcp bootstrap needs SYMHEAP_RANK, this "
                         "PE's number 0..%lu; got '%s'", cfg->size - 1, got);
    }
    struct tcp_boot *tb = calloc(1, sizeof(*tb));
    if (!tb)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the bootstrap");
    tb->base.ops = &tcp_ops;
    tb->base.rank = (int)cfg->rank;
    tb->base.size = (int)cfg->size;
    snprintf(tb->addr_text, sizeof(tb->addr_text), "%s", cfg->root_addr);
    tb->timeout = cfg->timeout;
    tb->listen_fd = -1;
    tb->wake[0] = tb->wake[1] = -1;
    tb->lost = -1;
    pthread_mutex_init(&tb->lock, NULL);
    pthread_mutex_init(&tb->send_lock, NULL);
    int n = tb->base.rank == 0 ? tb->base.size : 1;
    tb->conns = calloc((size_t)n, sizeof(*tb->conns));
    tb->slots = tb->base.rank == 0 ? calloc((size_t)n, sizeof(*tb->slots)) : NULL;
    if (!tb->conns || (tb->base.rank == 0 && !tb->slots)) {
        tcp_fini(&tb->base);
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the bootstrap");
    }
    for (int i = 0; i < n; i++)
        tb->conns[i] = (struct conn){ .fd = -1, .rank = i };
    if (pipe2(tb->wake, O_CLOEXEC) != 0) {
        tcp_fini(&tb->base);
        return sym_error(SYM_ERR_SYSTEM, "sym_init (tcp bootstrap): pipe: %s", strerror(errno));
    }
    sym_status_t st = join(tb);
    if (st != SYM_OK) {
        tcp_fini(&tb->base);
        return st;
    }
    *boot_p = &tb->base;
    return SYM_OK;
}
