/*
 * p2p.c - tagged send / recv / sendrecv over point-to-point mailboxes.
 *
 * Each ordered pair of PEs has a FIFO link in the point-to-point area (the
 * same credit-based channel as the collectives).  A message is one or more
 * chunks; its first chunk's header carries the tag and the total size.  A
 * receive that finds its message next on the link copies it straight into
 * the caller's buffer; anything else that arrives while a PE waits (another
 * tag, a message too large for the buffer, a message from a PE nobody is
 * receiving from) is drained into a per-source queue, so a sender blocked
 * on a full mailbox is always released and two PEs sending to each other
 * cannot deadlock.
 *
 * A receive from any PE looks at the senders in turn, each sender's queue
 * before its link (that sender's older messages first), starting after the
 * sender it last took a message from, so one busy sender cannot starve the
 * others.  A probe runs the same search and stops at the message found.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/wire.h"

struct queued {
    struct queued *next;
    int tag;
    size_t bytes, have;
    uint8_t *data;
};

/* Per source: messages drained from the link, oldest first; the last one
 * may still be arriving (have < bytes). */
static struct queued **queue_head;
static int queue_npes;

struct tx {
    int dst, tag;
    const uint8_t *buf;
    size_t bytes, next, nchunks;
};

struct rx {
    int want;   /* the source asked for: a PE or SYM_ANY_PE */
    int tag;    /* the tag asked for, or SYM_ANY_TAG */
    bool probe; /* find the message only: nothing is received */
    uint8_t *buf;
    size_t cap;
    int src; /* direct copy from this PE in progress when total != SIZE_MAX */
    size_t total, have;
    int msg_tag;             /* tag of the message being copied */
    sym_msg_status_t status; /* the message delivered or found */
    sym_status_t st;
    bool done;
    bool moved; /* a chunk of this call's own message moved (restarts the deadline) */
};

/* Where the next any-source search starts: after the last PE served. */
static int any_next;

/* One point-to-point call at a time per PE (the queues are shared). */
static int p2p_busy;

static sym_status_t ensure_queues(void)
{
    if (queue_head && queue_npes == sym_rt.npes)
        return SYM_OK;
    free(queue_head);
    queue_head = calloc((size_t)sym_rt.npes, sizeof(*queue_head));
    queue_npes = sym_rt.npes;
    return queue_head ? SYM_OK
                      : sym_error(SYM_ERR_NO_MEMORY, "point-to-point: out of memory for queues");
}

void sym_p2p_fini(void)
{
    for (int i = 0; queue_head && i < queue_npes; i++)
        for (struct queued *q = queue_head[i], *next; q; q = next) {
            next = q->next;
            free(q->data);
            free(q);
        }
    free(queue_head);
    queue_head = NULL;
    queue_npes = 0;
    any_next = 0;
}

static struct queued *queue_tail(int src)
{
    struct queued *q = queue_head[src];
    while (q && q->next)
        q = q->next;
    return q;
}

static bool tag_matches(int want, int tag)
{
    return want == SYM_ANY_TAG || want == tag;
}

/* A chunk that no sender of this library writes (memory corruption, or a
 * process that is not a symheap PE) is refused before its sizes are used. */
static sym_status_t check_chunk(struct sym_coll *c, int src, const struct sym_chunk_hdr *h,
                                const struct sym_p2p_partial *partial)
{
    const char *why = sym_p2p_chunk_check(h, c->team->chan.chunk, partial);
    if (!why)
        return SYM_OK;
    return sym_error(SYM_ERR_INTERNAL,
                     "%s: malformed message from PE %d: %s (tag %d, %" PRIu64
                     " bytes, chunk of %" PRIu32 ")",
                     c->name, src, why, (int)h->fp.root, h->msg_bytes, h->len);
}

/* Move one arrived chunk from `src` into the queue. */
static sym_status_t drain_chunk(struct sym_coll *c, int src, const struct sym_chunk_hdr *h)
{
    struct queued *tail = queue_tail(src);
    struct sym_p2p_partial part = {0, 0, 0};
    const struct sym_p2p_partial *arriving = NULL; /* the message this chunk continues */
    if (tail && tail->have < tail->bytes) {
        part = (struct sym_p2p_partial){tail->bytes, tail->have, tail->tag};
        arriving = &part;
    }
    sym_status_t st = check_chunk(c, src, h, arriving);
    if (st != SYM_OK)
        return st;
    if (!arriving) {
        struct queued *q = calloc(1, sizeof(*q));
        if (!q || (h->msg_bytes && !(q->data = malloc(h->msg_bytes)))) {
            free(q);
            return sym_error(SYM_ERR_NO_MEMORY,
                             "%s: out of memory queueing a %" PRIu64 "-byte message from PE %d",
                             c->name, h->msg_bytes, src);
        }
        q->tag = h->fp.root;
        q->bytes = h->msg_bytes;
        if (tail)
            tail->next = q;
        else
            queue_head[src] = q;
        tail = q;
    }
    if (h->len)
        memcpy(tail->data + tail->have, (const uint8_t *)(h + 1), h->len);
    tail->have += h->len;
    return sym_chan_release(c, src);
}

/* Drain everything that has arrived from PEs other than `except`. */
static sym_status_t drain_others(struct sym_coll *c, int except, bool *drained_p)
{
    const struct sym_chan *ch = &c->team->chan;
    for (int pe = 0; pe < sym_rt.npes; pe++) {
        if (pe == sym_rt.me || pe == except)
            continue;
        const struct sym_chunk_hdr *h;
        while ((h = sym_chan_peek(ch, pe))) {
            sym_status_t st = drain_chunk(c, pe, h);
            if (st != SYM_OK)
                return st;
            *drained_p = true;
        }
    }
    return SYM_OK;
}

static bool tx_progress(struct sym_coll *c, struct tx *t, sym_status_t *st)
{
    bool moved = false;
    const size_t ck = c->team->chan.chunk;
    while (t->next < t->nchunks && sym_chan_can_send(&c->team->chan, t->dst)) {
        size_t off = t->next * ck, len = t->bytes - off < ck ? t->bytes - off : ck;
        c->fp.root = t->tag;
        c->fp.count = t->bytes;
        *st = sym_chan_send(c, t->dst, len ? t->buf + off : NULL, len, t->bytes);
        if (*st != SYM_OK)
            return true;
        t->next++;
        moved = true;
    }
    return moved;
}

/* The oldest queued message from `src` that matches `tag`, else NULL. */
static struct queued **queue_match(int src, int tag)
{
    for (struct queued **link = &queue_head[src]; *link; link = &(*link)->next)
        if (tag_matches(tag, (*link)->tag))
            return link;
    return NULL;
}

static void rx_found(struct rx *r, int src, int tag, size_t bytes)
{
    r->status = (sym_msg_status_t){.source = src, .tag = tag, .nbytes = bytes};
    r->done = true;
    if (r->want == SYM_ANY_PE && !r->probe)
        any_next = src + 1 < sym_rt.npes ? src + 1 : 0;
}

/* Deliver the whole queued message *link from `src`, or report that it
 * does not fit (it stays queued). */
static void rx_deliver_queued(struct rx *r, int src, struct queued **link)
{
    struct queued *q = *link;
    if (q->bytes > r->cap) {
        r->st = sym_error(SYM_ERR_TRUNCATED,
                          "sym_recv: the message from PE %d (tag %d) "
                          "has %zu bytes, the buffer %zu; it stays queued for a larger "
                          "buffer",
                          src, q->tag, q->bytes, r->cap);
        r->status = (sym_msg_status_t){.source = src, .tag = q->tag, .nbytes = q->bytes};
        r->done = true;
        return;
    }
    if (q->bytes)
        memcpy(r->buf, q->data, q->bytes);
    rx_found(r, src, q->tag, q->bytes);
    *link = q->next;
    free(q->data);
    free(q);
}

/* Copy the next chunk of the message being received directly. */
static void rx_copy_chunk(struct sym_coll *c, struct rx *r, const struct sym_chunk_hdr *h)
{
    if (h->len)
        memcpy(r->buf + r->have, (const uint8_t *)(h + 1), h->len);
    r->have += h->len;
    r->moved = true;
    if ((r->st = sym_chan_release(c, r->src)) != SYM_OK) {
        r->done = true;
        return;
    }
    if (r->have == r->total)
        rx_found(r, r->src, r->msg_tag, r->total);
}

/* Look for r's message from `src`: its queue first (older messages), then
 * its link, draining what does not match.  Returns when r is done, a direct
 * copy has started, or nothing from src matches yet. */
static void rx_source(struct sym_coll *c, struct rx *r, int src)
{
    const struct sym_chan *ch = &c->team->chan;
    for (;;) {
        struct queued **link = queue_match(src, r->tag);
        const struct sym_chunk_hdr *h = sym_chan_peek(ch, src);
        if (link) {
            struct queued *q = *link;
            if (r->probe)
                return rx_found(r, src, q->tag, q->bytes);
            if (q->have == q->bytes)
                return rx_deliver_queued(r, src, link);
            if (!h)
                return; /* still arriving */
            r->moved = true;
        } else if (!h) {
            return;
        } else {
            struct queued *tail = queue_tail(src);
            bool fresh = !tail || tail->have == tail->bytes;
            if (fresh && tag_matches(r->tag, h->fp.root)) {
                if ((r->st = check_chunk(c, src, h, NULL)) != SYM_OK) {
                    r->done = true;
                    return;
                }
                if (r->probe)
                    return rx_found(r, src, h->fp.root, h->msg_bytes);
                if (h->msg_bytes <= r->cap) { /* ours: copy it straight into the buffer */
                    r->src = src;
                    r->total = h->msg_bytes;
                    r->have = 0;
                    r->msg_tag = h->fp.root;
                    return rx_copy_chunk(c, r, h);
                }
                r->moved = true; /* too large: queued whole, then reported */
            }
        }
        if ((r->st = drain_chunk(c, src, h)) != SYM_OK) {
            r->done = true;
            return;
        }
    }
}

static void rx_progress(struct sym_coll *c, struct rx *r)
{
    const struct sym_chan *ch = &c->team->chan;
    if (r->total != SIZE_MAX) {
        const struct sym_chunk_hdr *h;
        while (!r->done && (h = sym_chan_peek(ch, r->src))) {
            struct sym_p2p_partial part = {r->total, r->have, r->msg_tag};
            if ((r->st = check_chunk(c, r->src, h, &part)) != SYM_OK) {
                r->done = true;
                return;
            }
            rx_copy_chunk(c, r, h);
        }
        return;
    }
    if (r->want != SYM_ANY_PE)
        return rx_source(c, r, r->want);
    const int n = sym_rt.npes;
    for (int i = 0; i < n && !r->done && r->total == SIZE_MAX; i++) {
        int src = (any_next + i) % n;
        if (src != sym_rt.me)
            rx_source(c, r, src);
    }
    if (r->total != SIZE_MAX && !r->done)
        rx_progress(c, r); /* a direct copy started: take what is there */
}

struct p2p_wait {
    struct sym_coll *c;
    struct tx *t;
    struct rx *r;
};

static bool p2p_ready(void *arg)
{
    struct p2p_wait *w = arg;
    const struct sym_chan *ch = &w->c->team->chan;
    if (w->t && w->t->next < w->t->nchunks && sym_chan_can_send(ch, w->t->dst))
        return true;
    for (int pe = 0; pe < sym_rt.npes; pe++)
        if (pe != sym_rt.me && sym_chan_peek(ch, pe))
            return true;
    return false;
}

static void tag_text(int tag, char *buf, size_t len)
{
    if (tag == SYM_ANY_TAG)
        snprintf(buf, len, "any tag");
    else
        snprintf(buf, len, "tag %d", tag);
}

static void p2p_describe(void *arg, char *buf, size_t len)
{
    struct p2p_wait *w = arg;
    char tag[32];
    if (w->r && !w->r->done) {
        tag_text(w->r->tag, tag, sizeof(tag));
        const char *what = w->r->probe ? "a message to probe" : "a message";
        if (w->r->want == SYM_ANY_PE)
            snprintf(buf, len, "any PE to send %s with %s", what, tag);
        else
            snprintf(buf, len, "PE %d to send %s with %s", w->r->want, what, tag);
    } else {
        snprintf(buf, len,
                 "PE %d to receive this PE's %zu-byte message (tag %d): its mailbox "
                 "is full",
                 w->t->dst, w->t->bytes, w->t->tag);
    }
}

/* The timeout of a call: its option, else the world team's (0 there:
 * SYMHEAP_TIMEOUT, which the deadline resolves itself). */
static double call_timeout(const sym_p2p_opts_t *opts)
{
    if (opts && opts->timeout_s > 0)
        return opts->timeout_s;
    const struct sym_team *world = sym_team_world();
    return world ? world->timeout_s : 0;
}

static sym_status_t run(const char *op, double timeout_s, struct tx *t, struct rx *r)
{
    struct sym_coll c = {.team = sym_p2p_team(), .name = op};
    c.fp.kind = SYM_COLL_P2P;
    sym_status_t st = ensure_queues();
    if (st != SYM_OK)
        return st;
    c.dl = sym_deadline_in(op, timeout_s);
    for (;;) {
        /* The deadline starts again whenever this call's own data moved:
         * a message goes on as long as the peer keeps making room or
         * sending, however long the whole of it takes, and a call whose
         * peer does nothing fails after the timeout. */
        bool moved = false;
        if (t)
            moved = tx_progress(&c, t, &st);
        if (st != SYM_OK)
            return st;
        if (r && !r->done) {
            r->moved = false;
            rx_progress(&c, r);
            moved = moved || r->moved;
        }
        if (r && r->done && r->st != SYM_OK && r->st != SYM_ERR_TRUNCATED)
            return r->st;
        bool tx_done = !t || t->next == t->nchunks, rx_done = !r || r->done;
        if (tx_done && rx_done)
            return r ? r->st : SYM_OK;
        if (moved)
            c.dl = sym_deadline_in(op, timeout_s);
        /* anything unrelated that arrived is parked, freeing its sender
         * (and leaving nothing on a link that would make the wait below
         * return at once, without driving progress) */
        int mine = -1;
        if (r && !r->done)
            mine = r->want != SYM_ANY_PE ? r->want : r->total != SIZE_MAX ? r->src : -1;
        bool drained = false;
        if ((st = drain_others(&c, mine, &drained)) != SYM_OK)
            return st;
        /* an any-source receive's message may be among what was parked:
         * look again before waiting for more */
        if (drained && r && !r->done && r->want == SYM_ANY_PE)
            continue;
        struct p2p_wait w = {&c, tx_done ? NULL : t, r};
        struct sym_waiter waiter = {p2p_ready, p2p_describe, &w, NULL};
        if ((st = sym_wait_for(&c.dl, &waiter)) != SYM_OK)
            return st;
    }
}

/* Enter a point-to-point call: not while another thread is inside one. */
static sym_status_t enter(const char *op)
{
    if (__atomic_exchange_n(&p2p_busy, 1, __ATOMIC_ACQUIRE))
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s: another thread of this PE is inside a point-to-point call "
                         "(they share the PE's queues: serialise them)",
                         op);
    return SYM_OK;
}

static sym_status_t leave(sym_status_t st)
{
    __atomic_store_n(&p2p_busy, 0, __ATOMIC_RELEASE);
    return st;
}

/* A peer: a PE other than this one, or SYM_ANY_PE where `any_ok`. */
static sym_status_t check_peer(const char *op, int pe, const char *role, bool any_ok)
{
    if (pe == SYM_ANY_PE && any_ok) {
        if (sym_rt.initialized && sym_rt.npes < 2)
            return sym_error(SYM_ERR_INVALID_ARG,
                             "%s: %s SYM_ANY_PE in a job of one PE: no PE can send to it", op,
                             role);
        return sym_check_pe(op, 0); /* initialised */
    }
    sym_status_t st = sym_check_pe(op, pe);
    if (st != SYM_OK)
        return st;
    if (pe == sym_rt.me)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %s PE %d is this PE itself (self rank)", op,
                         role, pe);
    return SYM_OK;
}

static sym_status_t check_recv_tag(const char *op, int tag)
{
    if (tag < 0 && tag != SYM_ANY_TAG)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: tag %d is negative (SYM_ANY_TAG is %d)", op, tag,
                         SYM_ANY_TAG);
    return SYM_OK;
}

static sym_status_t check_opts(const char *op, const sym_p2p_opts_t *opts)
{
    if (opts && (opts->timeout_s < 0 || opts->timeout_s != opts->timeout_s))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: timeout %g s is negative or NaN", op,
                         opts->timeout_s);
    return SYM_OK;
}

static void tx_init(struct tx *t, const void *buf, size_t bytes, int dst, int tag)
{
    size_t ck = sym_p2p_team()->chan.chunk;
    *t = (struct tx){.dst = dst,
                     .tag = tag,
                     .buf = buf,
                     .bytes = bytes,
                     .next = 0,
                     .nchunks = bytes ? (bytes + ck - 1) / ck : 1};
}

static struct rx rx_init(void *buf, size_t capacity, int pe, int tag, bool probe)
{
    return (struct rx){.want = pe,
                       .tag = tag,
                       .probe = probe,
                       .buf = buf,
                       .cap = capacity,
                       .src = -1,
                       .total = SIZE_MAX};
}

SYM_API sym_status_t sym_send_opts(const void *buf, size_t nbytes, int pe, int tag,
                                   const sym_p2p_opts_t *opts)
{
    static const char op[] = "sym_send";
    sym_fault_point(SYM_FAULT_OP_SEND);
    sym_status_t st = check_peer(op, pe, "destination", false);
    if (st == SYM_OK && !buf && nbytes)
        st = sym_error(SYM_ERR_INVALID_ARG, "%s: NULL buffer for %zu bytes", op, nbytes);
    if (st == SYM_OK && tag < 0)
        st = sym_error(SYM_ERR_INVALID_ARG, "%s: tag %d is negative", op, tag);
    if (st == SYM_OK)
        st = check_opts(op, opts);
    if (st != SYM_OK || (st = enter(op)) != SYM_OK)
        return st;
    struct tx t;
    tx_init(&t, buf, nbytes, pe, tag);
    return leave(run(op, call_timeout(opts), &t, NULL));
}

SYM_API sym_status_t sym_recv_opts(void *buf, size_t capacity, int pe, int tag,
                                   const sym_p2p_opts_t *opts, sym_msg_status_t *status)
{
    static const char op[] = "sym_recv";
    sym_fault_point(SYM_FAULT_OP_RECV);
    sym_status_t st = check_peer(op, pe, "source", true);
    if (st == SYM_OK && !buf && capacity)
        st = sym_error(SYM_ERR_INVALID_ARG, "%s: NULL buffer of %zu bytes", op, capacity);
    if (st == SYM_OK)
        st = check_recv_tag(op, tag);
    if (st == SYM_OK)
        st = check_opts(op, opts);
    if (st != SYM_OK || (st = enter(op)) != SYM_OK)
        return st;
    struct rx r = rx_init(buf, capacity, pe, tag, false);
    st = leave(run(op, call_timeout(opts), NULL, &r));
    if (status && (st == SYM_OK || st == SYM_ERR_TRUNCATED))
        *status = r.status;
    return st;
}

SYM_API sym_status_t sym_sendrecv_opts(const void *sendbuf, size_t sendbytes, int dest, int sendtag,
                                       void *recvbuf, size_t capacity, int source, int recvtag,
                                       const sym_p2p_opts_t *opts, sym_msg_status_t *status)
{
    static const char op[] = "sym_sendrecv";
    sym_fault_point(SYM_FAULT_OP_SEND);
    sym_fault_point(SYM_FAULT_OP_RECV);
    sym_status_t st = check_peer(op, dest, "destination", false);
    if (st == SYM_OK)
        st = check_peer(op, source, "source", true);
    if (st == SYM_OK && ((!sendbuf && sendbytes) || (!recvbuf && capacity)))
        st = sym_error(SYM_ERR_INVALID_ARG, "%s: NULL buffer", op);
    if (st == SYM_OK && sendtag < 0)
        st = sym_error(SYM_ERR_INVALID_ARG, "%s: send tag %d is negative", op, sendtag);
    if (st == SYM_OK)
        st = check_recv_tag(op, recvtag);
    if (st == SYM_OK)
        st = check_opts(op, opts);
    /* Large messages are received while the send is still being read. */
    if (st == SYM_OK && sendbytes && capacity &&
        sym_overlaps(sendbuf, sendbytes, recvbuf, capacity))
        st = sym_error(SYM_ERR_INVALID_ARG,
                       "%s: the send buffer (%zu bytes at %p) "
                       "and the receive buffer (%zu bytes at %p) overlap",
                       op, sendbytes, sendbuf, capacity, recvbuf);
    if (st != SYM_OK || (st = enter(op)) != SYM_OK)
        return st;
    struct tx t;
    tx_init(&t, sendbuf, sendbytes, dest, sendtag);
    struct rx r = rx_init(recvbuf, capacity, source, recvtag, false);
    st = leave(run(op, call_timeout(opts), &t, &r));
    if (status && (st == SYM_OK || st == SYM_ERR_TRUNCATED))
        *status = r.status;
    return st;
}

/* Probe: the receive's search without receiving; `wait` false gives up
 * after one pass (iprobe). */
static sym_status_t probe(const char *op, int pe, int tag, const sym_p2p_opts_t *opts, bool wait,
                          bool *found_p, sym_msg_status_t *status)
{
    sym_status_t st = check_peer(op, pe, "source", true);
    if (st == SYM_OK)
        st = check_recv_tag(op, tag);
    if (st == SYM_OK)
        st = check_opts(op, opts);
    if (st != SYM_OK || (st = enter(op)) != SYM_OK)
        return st;
    struct rx r = rx_init(NULL, 0, pe, tag, true);
    if (wait) {
        st = run(op, call_timeout(opts), NULL, &r);
    } else if ((st = ensure_queues()) == SYM_OK) {
        struct sym_coll c = {.team = sym_p2p_team(), .name = op};
        c.fp.kind = SYM_COLL_P2P;
        c.dl = sym_deadline_in(op, call_timeout(opts));
        sym_progress();
        rx_progress(&c, &r);
        st = r.done ? r.st : SYM_OK;
    }
    leave(st);
    *found_p = st == SYM_OK && r.done;
    if (status && *found_p)
        *status = r.status;
    return st;
}

SYM_API sym_status_t sym_probe(int pe, int tag, const sym_p2p_opts_t *opts,
                               sym_msg_status_t *status)
{
    bool found;
    return probe("sym_probe", pe, tag, opts, true, &found, status);
}

SYM_API sym_status_t sym_iprobe(int pe, int tag, int *found_p, sym_msg_status_t *status)
{
    if (!found_p)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_iprobe: found_p is NULL");
    bool found = false;
    sym_status_t st = probe("sym_iprobe", pe, tag, NULL, false, &found, status);
    *found_p = found;
    return st;
}

SYM_API sym_status_t sym_send(const void *buf, size_t nbytes, int pe, int tag)
{
    return sym_send_opts(buf, nbytes, pe, tag, NULL);
}

SYM_API sym_status_t sym_recv(void *buf, size_t capacity, int pe, int tag, size_t *received_p)
{
    sym_msg_status_t status = {0};
    sym_status_t st = sym_recv_opts(buf, capacity, pe, tag, NULL, &status);
    if (received_p && (st == SYM_OK || st == SYM_ERR_TRUNCATED))
        *received_p = status.nbytes;
    return st;
}

SYM_API sym_status_t sym_sendrecv(const void *sendbuf, size_t sendbytes, int dest, int sendtag,
                                  void *recvbuf, size_t capacity, int source, int recvtag,
                                  size_t *received_p)
{
    sym_msg_status_t status = {0};
    sym_status_t st = sym_sendrecv_opts(sendbuf, sendbytes, dest, sendtag, recvbuf, capacity,
                                        source, recvtag, NULL, &status);
    if (received_p && (st == SYM_OK || st == SYM_ERR_TRUNCATED))
        *received_p = status.nbytes;
    return st;
}
