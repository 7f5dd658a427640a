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
 * loses its connection to the root has lost the root.  A PE that the
 * library returns a job-level error says so (FAILED, with the PE the error
 * named lost): its own exit after that is a consequence, and the PE it
 * named is the cause to report, even when the two reach the root in the
 * other order.  sym_global_exit() on any PE reaches every other (ABORT,
 * relayed by the root) before that PE's exit does.  A helper thread per
 * PE reads the connections, so losses are noticed at once whatever the
 * application thread is doing; the application thread only waits (through
 * sym_wait_for) on state the helper thread fills in.
 *
 * Wire format: every message is a header {type, length} of two 32-bit
 * big-endian words, then `length` payload bytes.
 *
 * The root address is open to anyone who can reach it, so no side trusts
 * the other before both proved that they know the job secret
 * (SYMHEAP_JOB_SECRET or SYMHEAP_JOB_SECRET_FILE, base/secret.h):
 *
 *   PE -> root   HELLO      magic, version, claimed rank and size, nonce_pe
 *   root -> PE   CHALLENGE  job id, nonce_root, MAC("root", claims, ids)
 *   PE -> root   PROOF      MAC("pe", claims, ids)
 *
 * Each MAC is HMAC-SHA256 keyed with the secret over a side label, the
 * protocol version, the claimed rank and size, the job id (random, drawn by
 * the root at start) and both nonces (random, fresh per connection).  The
 * PE checks the root's MAC before it answers, so a PE never talks to a
 * stranger at the root address; the root admits a connection as a PE only
 * after its proof, so nobody takes a rank without the secret.  Fresh nonces
 * on both sides make a recorded handshake worthless (no replay), and the
 * labels keep a proof of one side from serving as the other's.
 *
 * Until admitted a connection may send only its hello, then its proof, must
 * finish within TCP_HANDSHAKE_S (or the timeout, if shorter), and at most
 * TCP_PENDING_MAX + size such connections are kept (the oldest goes first).
 * No message may announce more than TCP_MSG_MAX bytes, every header is
 * checked as soon as it arrives, and a stranger (bad hello, wrong proof,
 * too slow) is closed, with the reason logged under SYMHEAP_DEBUG; it never
 * fails the job and never takes a rank.  Only a proven PE's claims can fail
 * the job (a wrong SYMHEAP_SIZE, a rank out of range or taken twice): those
 * are the job's own misconfiguration.  After the handshake the connection
 * is trusted as it stands: TCP itself is neither encrypted nor integrity
 * protected, so someone on the path can read and alter what follows
 * (README, Security).  The helper thread never writes to a socket while it
 * holds the lock that waiters poll (it queues).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <arpa/inet.h>
#include <unistd.h>

#include "base/addr.h"
#include "base/error.h"
#include "base/secret.h"
#include "tcp.h"

static sym_status_t tcp_allgather(struct sym_boot *b, const void *mine, size_t len, void *all)
{
    struct tcp_boot *tb = (struct tcp_boot *)b;
    const char *op = "sym_init (tcp bootstrap allgather)";
    if (len > TCP_BLOB_MAX)
        return sym_error(SYM_ERR_INTERNAL,
                         "%s: a blob of %zu bytes is more than the %u the "
                         "tcp bootstrap carries",
                         op, len, TCP_BLOB_MAX);
    uint32_t step = ++tb->step;
    struct tcp_wait w = {.tb = tb, .kind = WAIT_ALLGATHER, .step = step};
    uint32_t step_be = htonl(step);
    if (b->rank != 0) {
        if (tcp_send(tb, tb->conns[0].fd, MSG_GATHER, &step_be, 4, mine, len) != 0)
            return sym_error(SYM_ERR_BOOTSTRAP, "%s: PE %d cannot send to the root at %s: %s", op,
                             b->rank, tb->addr_text, strerror(errno));
        sym_status_t st = tcp_wait_for(&w, op, tb->timeout + TCP_ROOT_MARGIN_S(tb->timeout));
        if (st != SYM_OK)
            return st;
        pthread_mutex_lock(&tb->lock);
        bool ok = tb->result_len == len * (size_t)b->size;
        if (ok && len)
            memcpy(all, tb->result, tb->result_len);
        pthread_mutex_unlock(&tb->lock);
        if (!ok)
            return sym_error(SYM_ERR_BOOTSTRAP, "%s: the root sent %zu bytes, expected %zu", op,
                             tb->result_len, len * (size_t)b->size);
        return SYM_OK;
    }
    sym_status_t st = tcp_wait_for(&w, op, tb->timeout);
    if (st != SYM_OK) {
        tcp_root_fail_all(tb, st, sym_last_error());
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
        st = sym_error(SYM_ERR_BOOTSTRAP,
                       "%s: PE %d published %u bootstrap bytes, expected "
                       "%zu (PEs run different symheap versions?)",
                       op, bad, bad_len, len);
        tcp_root_fail_all(tb, st, sym_last_error());
        return st;
    }
    for (int r = 1; r < b->size; r++) {
        pthread_mutex_lock(&tb->lock);
        int fd = tb->conns[r].fd;
        pthread_mutex_unlock(&tb->lock);
        /* A failed send means the PE is gone: its loss is reported by the
         * helper thread and seen at the next wait. */
        tcp_send(tb, fd, MSG_GATHER_ALL, &step_be, 4, all, len * (size_t)b->size);
    }
    return SYM_OK;
}

static sym_status_t tcp_barrier(struct sym_boot *b, const char *step)
{
    (void)step;
    char none = 0;
    return tcp_allgather(b, &none, 0, &none);
}

/* Send one message from the calling thread, at once: a PE to the root, the
 * root to every PE whose connection is open.  Best effort (a connection
 * that fails is a loss the others learn of anyway); no lock held. */
static void send_to_peers(struct tcp_boot *tb, uint32_t type, const void *msg, size_t len)
{
    const struct sym_boot *b = &tb->base;
    int n = b->rank == 0 ? b->size : 1;
    for (int r = b->rank == 0 ? 1 : 0; tb->conns && r < n; r++) {
        pthread_mutex_lock(&tb->lock);
        int fd = tb->conns[r].open ? tb->conns[r].fd : -1;
        pthread_mutex_unlock(&tb->lock);
        if (fd >= 0)
            tcp_send(tb, fd, type, msg, len, NULL, 0);
    }
}

static void tcp_set_state(struct sym_boot *b, int state)
{
    if (state == SYM_PE_FINALIZED)
        send_to_peers((struct tcp_boot *)b, MSG_BYE, NULL, 0);
}

static int tcp_lost_pe(struct sym_boot *b, char *how, size_t len)
{
    struct tcp_boot *tb = (struct tcp_boot *)b;
    pthread_mutex_lock(&tb->lock);
    int lost = tb->lost;
    if (lost >= 0 && tb->lost_consequence && tcp_now() - tb->lost_at < TCP_CAUSE_GRACE_S)
        lost = -1;
    if (lost >= 0 && how && len)
        snprintf(how, len, "%s", tb->lost_how);
    pthread_mutex_unlock(&tb->lock);
    return lost;
}

static void tcp_tell_error(struct sym_boot *b, int status, int blamed)
{
    uint32_t msg[2] = {htonl((uint32_t)status), htonl((uint32_t)(blamed + 1))};
    send_to_peers((struct tcp_boot *)b, MSG_FAILED, msg, sizeof(msg));
}

/* Sent at once by the calling thread (it exits right after): to the root,
 * which relays it, or by the root to every PE. */
static void tcp_raise_abort(struct sym_boot *b, int status)
{
    struct tcp_boot *tb = (struct tcp_boot *)b;
    uint32_t msg[2] = {htonl((uint32_t)b->rank + 1), htonl((uint32_t)status)};
    pthread_mutex_lock(&tb->lock);
    if (!tb->abort_by) {
        tb->abort_by = (uint32_t)b->rank + 1;
        tb->abort_status = status;
    }
    pthread_mutex_unlock(&tb->lock);
    send_to_peers(tb, MSG_ABORT, msg, sizeof(msg));
}

static uint32_t tcp_aborted(struct sym_boot *b, int32_t *status_p)
{
    struct tcp_boot *tb = (struct tcp_boot *)b;
    pthread_mutex_lock(&tb->lock);
    uint32_t by = tb->abort_by;
    if (by)
        *status_p = tb->abort_status;
    pthread_mutex_unlock(&tb->lock);
    return by;
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
    sym_secret_wipe(&tb->base.secret, sizeof(tb->base.secret));
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
    .tell_error = tcp_tell_error,
    .raise_abort = tcp_raise_abort,
    .aborted = tcp_aborted,
};

static sym_status_t join(struct tcp_boot *tb)
{
    struct sym_boot *b = &tb->base;
    sym_status_t st = b->rank == 0 ? tcp_root_listen(tb) : tcp_pe_connect(tb);
    if (st != SYM_OK)
        return st;
    if (b->rank != 0) {
        uint32_t hello[4] = {htonl(TCP_MAGIC), htonl(TCP_VERSION), htonl((uint32_t)b->rank),
                             htonl((uint32_t)b->size)};
        if (sym_random_bytes(tb->nonce, TCP_NONCE_LEN) != 0)
            return sym_error(SYM_ERR_SYSTEM, "sym_init (tcp bootstrap): getrandom: %s",
                             strerror(errno));
        if (tcp_send(tb, tb->conns[0].fd, MSG_HELLO, hello, sizeof(hello), tb->nonce,
                     TCP_NONCE_LEN) != 0)
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
    int rc = pthread_create(&tb->thread, NULL, tcp_helper_main, tb);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0)
        return sym_error(SYM_ERR_SYSTEM, "sym_init (tcp bootstrap): cannot start a thread: %s",
                         strerror(rc));
    tb->thread_started = true;

    if (b->rank != 0) {
        struct tcp_wait w = {.tb = tb, .kind = WAIT_WELCOME};
        return tcp_wait_for(&w, "sym_init (tcp bootstrap: waiting for the root's welcome)",
                            tb->timeout + TCP_ROOT_MARGIN_S(tb->timeout));
    }
    struct tcp_wait w = {.tb = tb, .kind = WAIT_CONNECT};
    if (b->size > 1)
        st = tcp_wait_for(&w, "sym_init (tcp bootstrap: PE 0 waiting for the others)", tb->timeout);
    if (st == SYM_ERR_TIMEOUT) {
        /* Only PEs that proved themselves joined: the missing ones are
         * named, and connections that claimed a PE but never proved it are
         * counted, not blamed on the PE they claimed to be. */
        char missing[256], failed[320] = "";
        pthread_mutex_lock(&tb->lock);
        tcp_list_missing(tb, &w, missing, sizeof(missing));
        if (tb->auth_failures)
            snprintf(failed, sizeof(failed),
                     "; %d connection(s) claimed to be PEs of this job without proving it, "
                     "the last %s (is SYMHEAP_JOB_SECRET the same on every PE?)",
                     tb->auth_failures, tb->auth_last);
        pthread_mutex_unlock(&tb->lock);
        st = sym_error(SYM_ERR_TIMEOUT,
                       "sym_init (tcp bootstrap): %s %s never joined at %s within %.0f s (%s) "
                       "(not started, wrong SYMHEAP_ROOT_ADDR, or blocked by a firewall?)%s",
                       strchr(missing, ',') ? "PEs" : "PE", missing, tb->addr_text, tb->timeout,
                       tb->timeout_name, failed);
    }
    if (st != SYM_OK) {
        tcp_root_fail_all(tb, st, sym_last_error());
        return st;
    }
    if (sym_boot_random_key(b->key) != 0) {
        st = sym_error(SYM_ERR_SYSTEM, "sym_init: getrandom failed for the job key");
        tcp_root_fail_all(tb, st, sym_last_error());
        return st;
    }
    for (int r = 1; r < b->size; r++) {
        pthread_mutex_lock(&tb->lock);
        int fd = tb->conns[r].fd;
        pthread_mutex_unlock(&tb->lock);
        tcp_send(tb, fd, MSG_WELCOME, b->key, SYM_JOB_KEY_LEN, NULL, 0);
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
        return tcp_resolve(cfg->root_addr, NULL); /* the error naming the variable */
    if (cfg->size < 1 || cfg->size > SYM_JOB_MAX_PES)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: the tcp bootstrap needs SYMHEAP_SIZE, the "
                         "number of PEs (1..%d); got %lu",
                         SYM_JOB_MAX_PES, cfg->size);
    if (!cfg->rank_set || cfg->rank >= cfg->size) {
        char got[32] = "(unset)";
        if (cfg->rank_set)
            snprintf(got, sizeof(got), "%lu", cfg->rank);
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: the tcp bootstrap needs SYMHEAP_RANK, this "
                         "PE's number 0..%lu; got '%s'",
                         cfg->size - 1, got);
    }
    struct tcp_boot *tb = calloc(1, sizeof(*tb));
    if (!tb)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the bootstrap");
    tb->base.ops = &tcp_ops;
    tb->base.rank = (int)cfg->rank;
    tb->base.size = (int)cfg->size;
    snprintf(tb->addr_text, sizeof(tb->addr_text), "%s", cfg->root_addr);
    tb->timeout = cfg->timeout;
    tb->timeout_name = cfg->timeout_name;
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
        tb->conns[i] = (struct conn){.fd = -1, .rank = i};
    if (pipe2(tb->wake, O_CLOEXEC) != 0) {
        tcp_fini(&tb->base);
        return sym_error(SYM_ERR_SYSTEM, "sym_init (tcp bootstrap): pipe: %s", strerror(errno));
    }
    sym_status_t st =
        sym_secret_load(cfg->job_secret, cfg->job_secret_file, true, &tb->base.secret);
    if (st == SYM_OK && tb->base.rank == 0 && sym_random_bytes(tb->job_id, TCP_JOBID_LEN) != 0)
        st = sym_error(SYM_ERR_SYSTEM, "sym_init (tcp bootstrap): getrandom: %s", strerror(errno));
    if (st == SYM_OK)
        st = join(tb);
    if (st != SYM_OK) {
        tcp_fini(&tb->base);
        return st;
    }
    *boot_p = &tb->base;
    return SYM_OK;
}
