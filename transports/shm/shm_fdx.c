/*
 * shm_fdx.c - the shared-memory segments of this host's PEs change hands as
 * file descriptors, never as names.
 *
 * Every segment (a PE's heap, its global variables) is a memfd: it has no
 * name in /dev/shm or anywhere else, so another user can neither open,
 * replace nor pre-create it, nor even watch it appear, and its memory goes
 * away with the last process that maps it (a killed job leaks nothing).
 * Where the host lets peers reopen each other's descriptors on first use
 * (shm_lazy.c) nothing below runs; otherwise (SYMHEAP_SHM_MAP=eager, or a
 * PE that cannot be reopened) the peers on this host get the descriptors
 * at init like this:
 *
 *   1. Each PE listens on a SOCK_SEQPACKET unix socket in the abstract
 *      namespace, "@symheap-fdx-<128 random bits>", bound before anyone is
 *      told the name (so nobody can bind it first: squatting needs the name
 *      in advance).  It does so before the peers meet (the class's
 *      prepare step, right after the runtime made this PE's heap).
 *   2. The PEs publish the name and their pid over the bootstrap (symrun's
 *      control segment, PMIx, the TCP rendezvous).
 *   3. Each PE connects to every local peer's socket.  The listener checks
 *      the connecting process with SO_PEERCRED, which the kernel fills in:
 *      same uid, and a pid one of this host's PEs of the job published.
 *      Only then does it send its descriptors (SCM_RIGHTS); the peer
 *      answers one byte once it took them (until then it may connect
 *      again, so the listener stays open).  The connecting
 *      side checks the listener the same way (SO_PEERCRED of a connected
 *      socket names the process that called listen) before it trusts what
 *      arrives, and the segments are checked after that (memfd seals,
 *      owner, size, the heap header naming that PE and job).
 *   4. Once every local peer has its descriptors and this PE has theirs,
 *      the socket is closed.
 *
 * Why that is safe: abstract names are listed in /proc/net/unix and anyone
 * in the network namespace may connect, so the name is not what protects;
 * the credentials the kernel attaches are.  A process of another uid, or
 * of this uid but not a PE of this job on this host, is closed at once and
 * logged with SYMHEAP_DEBUG: it never gets a descriptor, never fails the
 * job and never takes a PE's place (a connection is not a rank; the
 * listener goes on serving the real peers).  The same works under every
 * bootstrap, symrun's included, so it is one path, tested by every job.
 * Residual trust: a process of the same uid is trusted by the kernel with
 * ptrace and /proc/<pid>/mem anyway.  Peers in different pid namespaces
 * would see each other's pids translated and be refused (the job then
 * times out naming them).
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "base/error.h"
#include "base/wait.h"
#include "shm_private.h"

#define FDX_MAGIC UINT64_C(0x53594d4644583031) /* "SYMFDX01" */
/* Connections to peers' sockets open at once: with many PEs on a host, a
 * PE never holds more than a few dozen descriptors for the exchange. */
#define FDX_OUTGOING_MAX 16

/* The one message a listener sends, with its descriptors attached. */
struct fdx_msg {
    uint64_t magic;
    int32_t pe;
    int32_t nfd;
};

static socklen_t fdx_addr(struct sockaddr_un *a, const char *name)
{
    memset(a, 0, sizeof(*a));
    a->sun_family = AF_UNIX;
    size_t n = strnlen(name, SHM_FDX_NAME_LEN);
    memcpy(a->sun_path + 1, name, n); /* sun_path[0] == 0: abstract */
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n);
}

sym_status_t shm_fdx_listen(struct shm_transport *t)
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[16];
    t->listen_fd = -1;
    for (int attempt = 0; attempt < 3; attempt++) {
        if (getrandom(raw, sizeof(raw), 0) != (ssize_t)sizeof(raw))
            return sym_error(SYM_ERR_SYSTEM, "sym_init: getrandom for a socket name: %s",
                             strerror(errno));
        char *p = t->sock_name + snprintf(t->sock_name, SHM_FDX_NAME_LEN, "symheap-fdx-");
        for (size_t i = 0; i < sizeof(raw); i++) {
            *p++ = hex[raw[i] >> 4];
            *p++ = hex[raw[i] & 15];
        }
        *p = '\0';
        int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return sym_error(SYM_ERR_SYSTEM, "sym_init: a unix socket for the shm exchange: %s",
                             strerror(errno));
        struct sockaddr_un a;
        socklen_t alen = fdx_addr(&a, t->sock_name);
        if (bind(fd, (struct sockaddr *)&a, alen) == 0 && listen(fd, 128) == 0) {
            t->listen_fd = fd;
            return SYM_OK;
        }
        int err = errno;
        close(fd);
        if (err != EADDRINUSE) /* 128 random bits taken: retry, but not forever */
            return sym_error(SYM_ERR_SYSTEM, "sym_init: cannot listen on @%s: %s", t->sock_name,
                             strerror(err));
    }
    return sym_error(SYM_ERR_SYSTEM, "sym_init: no free abstract socket name for the shm exchange");
}

void shm_fdx_close(struct shm_transport *t)
{
    if (t->listen_fd >= 0)
        close(t->listen_fd);
    t->listen_fd = -1;
}

/* The exchange's state while it waits (one sym_wait_for). */
struct fdx {
    struct shm_transport *t;
    const bool *local;
    const struct shm_card *cards;
    const int *mine;
    int nmine;
    shm_fdx_take_fn take_fn;
    void *take_arg;
    sym_status_t err; /* take_fn's first failure: ends the wait */
    int outgoing;     /* conn[] entries open */
    int awaiting;     /* acc[] entries open */
    int *conn;        /* [npes] my connection to that peer's listener, or -1 */
    int *acc;         /* [npes] that peer's connection to mine, sent to, awaiting its ack */
    bool *served;     /* [npes] that peer has my descriptors (it said so) */
    bool *have;       /* [npes] I have that peer's */
    int refused;      /* strangers turned away */
};

/* Out of descriptors: while some of mine are open for the exchange, the
 * next round may find one freed; with none, no retry will help, so the
 * wait ends saying why. */
static void no_fds(struct fdx *x, const char *what)
{
    if (x->err == SYM_OK && x->outgoing == 0 && x->awaiting == 0)
        x->err = sym_error(SYM_ERR_SYSTEM,
                           "sym_init: out of file descriptors (%s) while exchanging shared memory "
                           "with the PEs on this host: raise the limit (ulimit -n)",
                           what);
}

static bool is_peer(const struct fdx *x, int pe)
{
    return pe != x->t->me && (!x->local || x->local[pe]);
}

/* Who is on the other end of unix socket `fd`: the local PE of this job
 * whose pid and uid the kernel reports, or -1 (why in *why_p).  This is the
 * one place a connection is trusted: a challenge-response over the job
 * secret (a keyed MAC over fresh nonces) would go here, next to the
 * kernel's word on the peer's identity. */
static int peer_identity(const struct fdx *x, int fd, struct ucred *cred, const char **why_p)
{
    socklen_t len = sizeof(*cred);
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, cred, &len) != 0 || len != sizeof(*cred)) {
        *why_p = "no peer credentials";
        return -1;
    }
    if (cred->uid != getuid()) {
        *why_p = "another uid";
        return -1;
    }
    for (int pe = 0; pe < x->t->npes; pe++)
        if (is_peer(x, pe) && x->cards[pe].pid == cred->pid)
            return pe;
    *why_p = "not a PE of this job on this host";
    return -1;
}

static void send_mine(struct fdx *x, int c, int pe)
{
    struct fdx_msg m = {FDX_MAGIC, x->t->me, x->nmine};
    struct iovec iov = {&m, sizeof(m)};
    union {
        char buf[CMSG_SPACE(sizeof(int) * SHM_FDX_MAX)];
        struct cmsghdr align;
    } u;
    memset(&u, 0, sizeof(u));
    struct msghdr h = {.msg_iov = &iov, .msg_iovlen = 1};
    if (x->nmine > 0) {
        h.msg_control = u.buf;
        h.msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)x->nmine);
        struct cmsghdr *cm = CMSG_FIRSTHDR(&h);
        cm->cmsg_level = SOL_SOCKET;
        cm->cmsg_type = SCM_RIGHTS;
        cm->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)x->nmine);
        memcpy(CMSG_DATA(cm), x->mine, sizeof(int) * (size_t)x->nmine);
    }
    if (sendmsg(c, &h, MSG_NOSIGNAL) != (ssize_t)sizeof(m)) {
        /* the peer connects again when it sees the connection close */
        sym_debug("shm exchange: sending to PE %d: %s", pe, strerror(errno));
        close(c);
        return;
    }
    /* Served once the peer says it took them: a message it could not use
     * (or never read) must not end this PE's part while the peer still
     * needs the socket. */
    if (x->acc[pe] >= 0)
        close(x->acc[pe]);
    else
        x->awaiting++;
    x->acc[pe] = c;
}

/* A peer I sent to acknowledged (one byte), or ended the connection (an
 * end of file, or an error such as a reset).  A peer ends a connection
 * this PE sent on only after it read the message: either it took the
 * descriptors and its acknowledgement did not arrive (then it never
 * connects again, so waiting for one would hang this PE), or the message
 * was unusable, which fails that peer's sym_init with its own error.
 * Either way nothing more is owed to it. */
static void collect_acks(struct fdx *x)
{
    for (int pe = 0; pe < x->t->npes; pe++) {
        if (x->acc[pe] < 0)
            continue;
        char b;
        ssize_t n = recv(x->acc[pe], &b, 1, MSG_DONTWAIT);
        if (n < 0 && (errno == EAGAIN || errno == EINTR))
            continue;
        x->served[pe] = true;
        close(x->acc[pe]);
        x->acc[pe] = -1;
        x->awaiting--;
    }
}

/* Serve whoever is waiting at my socket. */
static void serve_pending(struct fdx *x)
{
    for (;;) {
        int c = accept4(x->t->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
        if (c < 0 && (errno == EMFILE || errno == ENFILE))
            no_fds(x, "accept");
        if (c < 0)
            return; /* EAGAIN, or a connection that went away meanwhile */
        struct ucred cred = {0, 0, 0};
        const char *why = NULL;
        int pe = peer_identity(x, c, &cred, &why);
        if (pe < 0) {
            x->refused++;
            sym_debug("shm exchange: refused a connection from pid %ld uid %ld (%s)",
                      (long)cred.pid, (long)cred.uid, why);
            close(c);
        } else {
            send_mine(x, c, pe); /* keeps c until the peer's ack */
        }
    }
}

static void drop_conn(struct fdx *x, int pe)
{
    close(x->conn[pe]);
    x->conn[pe] = -1;
    x->outgoing--;
}

/* Take the descriptors from a message on my connection to `pe`. */
static void take(struct fdx *x, int pe, const struct msghdr *h, const struct fdx_msg *m, ssize_t n)
{
    int fds[SHM_FDX_MAX], nfd = 0;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(h); cm; cm = CMSG_NXTHDR((struct msghdr *)h, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS)
            continue;
        size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);
        for (size_t i = 0; i < k; i++) {
            int fd;
            memcpy(&fd, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
            if (nfd < SHM_FDX_MAX)
                fds[nfd++] = fd;
            else
                close(fd);
        }
    }
    bool ok = n == (ssize_t)sizeof(*m) && !(h->msg_flags & (MSG_CTRUNC | MSG_TRUNC)) &&
              m->magic == FDX_MAGIC && m->pe == pe && m->nfd == nfd && nfd >= 1;
    if (h->msg_flags & MSG_CTRUNC)
        no_fds(x, "descriptors received");
    if (!ok) {
        sym_debug("shm exchange: PE %d's socket sent a malformed message (%zd bytes, %d fds)", pe,
                  n, nfd);
        for (int i = 0; i < nfd; i++)
            close(fds[i]);
        return;
    }
    sym_status_t st = x->take_fn(x->take_arg, pe, fds, nfd);
    for (int i = 0; i < nfd; i++)
        close(fds[i]);
    if (st != SYM_OK && x->err == SYM_OK)
        x->err = st;
    x->have[pe] = true;
}

/* Connect to peer `pe`'s socket if not yet, and read its descriptors if
 * they arrived. */
static void fetch(struct fdx *x, int pe)
{
    if (x->conn[pe] < 0) {
        if (x->outgoing >= FDX_OUTGOING_MAX)
            return; /* later, when one of the open ones is done */
        int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        struct sockaddr_un a;
        socklen_t alen = fdx_addr(&a, x->cards[pe].sock_name);
        if (c < 0) {
            if (errno == EMFILE || errno == ENFILE)
                no_fds(x, "socket");
            return;
        }
        if (connect(c, (struct sockaddr *)&a, alen) != 0) {
            close(c); /* a full backlog (EAGAIN): try again on the next round */
            return;
        }
        x->conn[pe] = c;
        x->outgoing++;
        struct ucred cred = {0, 0, 0};
        const char *why = NULL;
        if (peer_identity(x, c, &cred, &why) != pe) {
            sym_debug("shm exchange: the socket PE %d published is held by pid %ld uid %ld, "
                      "not by PE %d (pid %d): not using it",
                      pe, (long)cred.pid, (long)cred.uid, pe, (int)x->cards[pe].pid);
            drop_conn(x, pe);
            return;
        }
    }
    struct fdx_msg m;
    struct iovec iov = {&m, sizeof(m)};
    union {
        char buf[CMSG_SPACE(sizeof(int) * SHM_FDX_MAX)];
        struct cmsghdr align;
    } u;
    struct msghdr h = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
    ssize_t n = recvmsg(x->conn[pe], &h, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
        return;
    if (n > 0)
        take(x, pe, &h, &m, n);
    if (x->have[pe])
        (void)!send(x->conn[pe], "", 1, MSG_NOSIGNAL | MSG_DONTWAIT); /* the ack */
    drop_conn(x, pe); /* done, or closed without an answer: ask again */
}

static bool fdx_ready(void *arg)
{
    struct fdx *x = arg;
    bool done = true;
    serve_pending(x);
    collect_acks(x);
    for (int pe = 0; pe < x->t->npes; pe++) {
        if (!is_peer(x, pe))
            continue;
        if (!x->have[pe])
            fetch(x, pe);
        done &= x->have[pe] && x->served[pe];
    }
    return done || x->err != SYM_OK;
}

static void fdx_describe(void *arg, char *buf, size_t len)
{
    struct fdx *x = arg;
    size_t used =
        (size_t)snprintf(buf, len, "PEs on this host to exchange shared memory; missing:");
    for (int pe = 0; pe < x->t->npes && used < len; pe++)
        if (is_peer(x, pe) && (!x->have[pe] || !x->served[pe]))
            used += (size_t)snprintf(buf + used, len - used, " %d (%s)", pe,
                                     !x->have[pe] ? "its segments" : "has not taken mine");
}

sym_status_t shm_fdx_exchange(struct shm_transport *t, const struct sym_transport_config *cfg,
                              const struct shm_card *cards, const int *mine, int nmine,
                              shm_fdx_take_fn take, void *arg)
{
    const int npes = t->npes;
    int *conn = malloc((size_t)npes * 2 * sizeof(*conn));
    bool *flags = calloc((size_t)npes * 2, sizeof(*flags));
    if (!conn || !flags) {
        free(conn);
        free(flags);
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", npes);
    }
    for (int i = 0; i < npes * 2; i++)
        conn[i] = -1;
    sym_status_t st = SYM_OK;
    struct fdx x = {.t = t,
                    .local = cfg->reach,
                    .cards = cards,
                    .mine = mine,
                    .nmine = nmine,
                    .take_fn = take,
                    .take_arg = arg,
                    .conn = conn,
                    .acc = conn + npes,
                    .served = flags,
                    .have = flags + npes};
    bool any = false;
    for (int pe = 0; st == SYM_OK && pe < npes; pe++) {
        if (!is_peer(&x, pe))
            continue;
        any = true;
        if (!cards[pe].listening || t->listen_fd < 0)
            st = sym_error(SYM_ERR_BOOTSTRAP,
                           "sym_init: PE %d on this host has no socket for the shm exchange", pe);
    }
    if (st == SYM_OK && any) {
        struct sym_waiter w = {fdx_ready, fdx_describe, &x, NULL};
        st = sym_wait_for(cfg->deadline, &w);
    }
    if (st == SYM_OK)
        st = x.err;
    if (x.refused)
        sym_debug("shm exchange: %d connection(s) from strangers refused", x.refused);
    for (int i = 0; i < npes * 2; i++)
        if (conn[i] >= 0)
            close(conn[i]);
    shm_fdx_close(t);
    free(conn);
    free(flags);
    return st;
}
