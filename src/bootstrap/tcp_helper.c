/* tcp_helper.c - the tcp bootstrap's helper thread, which reads every
 * connection, and the waits of the application thread on what it fills in. */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "base/wait.h"
#include "tcp.h"

void *tcp_helper_main(void *arg)
{
    struct tcp_boot *tb = arg;
    int n = tb->base.rank == 0 ? tb->base.size : 1;
    struct pollfd *pfd = NULL;
    struct conn **who = NULL;
    int have = 0; /* entries of pfd and who */
    for (;;) {
        pthread_mutex_lock(&tb->lock);
        int cap = 2 + n + tb->npending;
        if (cap > have) {
            free(pfd);
            free(who);
            pfd = malloc((size_t)cap * sizeof(*pfd));
            who = malloc((size_t)cap * sizeof(*who));
            have = pfd && who ? cap : 0;
        }
        if (!have) {
            tcp_set_fatal(tb, SYM_ERR_NO_MEMORY, "sym_init (tcp bootstrap): out of memory");
            pthread_mutex_unlock(&tb->lock);
            break;
        }
        int k = 0;
        pfd[k] = (struct pollfd){.fd = tb->wake[0], .events = POLLIN};
        who[k++] = NULL;
        if (tb->listen_fd >= 0) {
            pfd[k] = (struct pollfd){.fd = tb->listen_fd, .events = POLLIN};
            who[k++] = NULL;
        }
        for (int i = 0; i < n; i++)
            if (tb->conns[i].open) {
                pfd[k] = (struct pollfd){.fd = tb->conns[i].fd, .events = POLLIN};
                who[k++] = &tb->conns[i];
            }
        for (int i = 0; i < tb->npending; i++) {
            pfd[k] = (struct pollfd){.fd = tb->pending[i].fd, .events = POLLIN};
            who[k++] = &tb->pending[i];
        }
        /* Wake up when the oldest pending connection's time is up. */
        int ms = -1;
        if (tb->npending) {
            double left = tb->pending[0].since + tcp_handshake_s(tb) - tcp_now();
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
            if (!tcp_conn_read(tb, who[i]))
                tcp_conn_closed(tb, who[i]);
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
        /* A PE says hello right after connecting and proves itself right
         * after the challenge: one that has not within the handshake
         * deadline is no PE (in accept order: the oldest first). */
        double now = tcp_now();
        while (tb->npending && tb->pending[0].since + tcp_handshake_s(tb) <= now)
            tcp_drop_pending(tb, 0, "no proof within the handshake deadline");
        if (accept_ready)
            tcp_root_accept(tb);
        /* Everyone is here: accept nothing more on the root address, and
         * whatever is still pending is no PE of this job. */
        if (tb->listen_fd >= 0 && tb->connected == tb->base.size - 1) {
            close(tb->listen_fd);
            tb->listen_fd = -1;
        }
        while (tb->listen_fd < 0 && tb->npending)
            tcp_drop_pending(tb, 0, "every PE of the job is already connected");
        pthread_mutex_unlock(&tb->lock);
        tcp_flush_queue(tb, true);
    }
    tcp_flush_queue(tb, false);
    free(pfd);
    free(who);
    return NULL;
}

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
void tcp_list_missing(struct tcp_boot *tb, const struct tcp_wait *w, char *buf, size_t len)
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
        tcp_list_missing(tb, w, missing, sizeof(missing));
        snprintf(buf, len, "PEs to join at %s (connected and proven); missing: %s", tb->addr_text,
                 missing);
        break;
    case WAIT_WELCOME:
        snprintf(buf, len,
                 "the root (PE 0) at %s to answer (is SYMHEAP_ROOT_ADDR the "
                 "address PE 0 listens on?)",
                 tb->addr_text);
        break;
    case WAIT_ALLGATHER:
        if (tb->base.rank == 0) {
            tcp_list_missing(tb, w, missing, sizeof(missing));
            snprintf(buf, len, "PEs to reach bootstrap step %u; missing: %s", w->step, missing);
        } else {
            snprintf(buf, len, "the root (PE 0) to complete bootstrap step %u", w->step);
        }
        break;
    }
    pthread_mutex_unlock(&tb->lock);
}

/* Wait for `w`; the error, if any, names the step. */
sym_status_t tcp_wait_for(struct tcp_wait *w, const char *op, double timeout)
{
    struct tcp_boot *tb = w->tb;
    struct sym_waiter waiter = {tcp_ready, tcp_describe, w, NULL};
    struct sym_deadline dl = sym_deadline_named(op, timeout, tb->timeout_name);
    sym_status_t st = sym_wait_for(&dl, &waiter);
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
