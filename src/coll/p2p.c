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
    int src, tag;
    uint8_t *buf;
    size_t cap;
    size_t total, have; /* direct copy in progress when total != SIZE_MAX */
    int msg_tag;        /* tag of the message being copied */
    size_t received;
    sym_status_t st;
    bool done;
};

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
static sym_status_t drain_others(struct sym_coll *c, int except)
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

/* Deliver a queued message if one matches; true if the receive finished. */
static bool rx_from_queue(struct rx *r)
{
    struct queued **link = &queue_head[r->src];
    for (struct queued *q = *link; q; link = &q->next, q = q->next) {
        if (!tag_matches(r->tag, q->tag))
            continue;
        if (q->have < q->bytes)
            return false; /* still arriving: keep draining */
        r->received = q->bytes;
        if (q->bytes > r->cap) {
            r->st = sym_error(SYM_ERR_TRUNCATED,
                              "sym_recv: the message from PE %d (tag %d) "
                              "has %zu bytes, the buffer %zu; it stays queued for a larger "
                              "buffer",
                              r->src, q->tag, q->bytes, r->cap);
        } else {
            if (q->bytes)
                memcpy(r->buf, q->data, q->bytes);
            *link = q->next;
            free(q->data);
            free(q);
        }
        r->done = true;
        return true;
    }
    return false;
}

static bool rx_progress(struct sym_coll *c, struct rx *r)
{
    bool moved = false;
    const struct sym_chan *ch = &c->team->chan;
    for (;;) {
        if (r->total == SIZE_MAX && rx_from_queue(r))
            return true;
        const struct sym_chunk_hdr *h = sym_chan_peek(ch, r->src);
        if (!h)
            return moved;
        moved = true;
        if (r->total == SIZE_MAX) {
            struct queued *tail = queue_tail(r->src);
            bool fresh = !tail || tail->have == tail->bytes;
            if (!fresh || !tag_matches(r->tag, h->fp.root) || h->msg_bytes > r->cap) {
                if ((r->st = drain_chunk(c, r->src, h)) != SYM_OK)
                    return r->done = true;
                continue;
            }
            if ((r->st = check_chunk(c, r->src, h, NULL)) != SYM_OK)
                return r->done = true;
            r->total = h->msg_bytes; /* ours: copy it straight into the buffer */
            r->have = 0;
            r->msg_tag = h->fp.root;
        } else {
            struct sym_p2p_partial part = {r->total, r->have, r->msg_tag};
            if ((r->st = check_chunk(c, r->src, h, &part)) != SYM_OK)
                return r->done = true;
        }
        if (h->len)
            memcpy(r->buf + r->have, (const uint8_t *)(h + 1), h->len);
        r->have += h->len;
        if ((r->st = sym_chan_release(c, r->src)) != SYM_OK || r->have == r->total) {
            r->received = r->total;
            return r->done = true;
        }
    }
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

static void p2p_describe(void *arg, char *buf, size_t len)
{
    struct p2p_wait *w = arg;
    if (w->r && !w->r->done)
        snprintf(buf, len, "PE %d to send a message with tag %d", w->r->src, w->r->tag);
    else
        snprintf(buf, len,
                 "PE %d to receive this PE's %zu-byte message (tag %d): its mailbox "
                 "is full",
                 w->t->dst, w->t->bytes, w->t->tag);
}

static sym_status_t run(const char *op, struct tx *t, struct rx *r)
{
    struct sym_coll c = {.team = sym_p2p_team(), .name = op};
    c.fp.kind = SYM_COLL_P2P;
    sym_status_t st = ensure_queues();
    if (st != SYM_OK)
        return st;
    for (;;) {
        /* Each round gets SYMHEAP_TIMEOUT anew, its transport calls and its
         * wait alike: a message moves as long as the peer keeps making
         * room or sending, however long the whole of it takes. */
        c.dl = sym_deadline_default(op);
        if (t)
            tx_progress(&c, t, &st);
        if (st != SYM_OK)
            return st;
        if (r && !r->done)
            rx_progress(&c, r);
        if (r && r->done && r->st != SYM_OK && r->st != SYM_ERR_TRUNCATED)
            return r->st;
        bool tx_done = !t || t->next == t->nchunks, rx_done = !r || r->done;
        if (tx_done && rx_done)
            return r ? r->st : SYM_OK;
        /* anything unrelated that arrived is parked, freeing its sender */
        if ((st = drain_others(&c, r && !r->done ? r->src : -1)) != SYM_OK)
            return st;
        struct p2p_wait w = {&c, tx_done ? NULL : t, r};
        struct sym_waiter waiter = {p2p_ready, p2p_describe, &w, NULL};
        if ((st = sym_wait_for(&c.dl, &waiter)) != SYM_OK)
            return st;
    }
}

static sym_status_t check_peer(const char *op, int pe, const char *role)
{
    sym_status_t st = sym_check_pe(op, pe);
    if (st != SYM_OK)
        return st;
    if (pe == sym_rt.me)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %s PE %d is this PE itself (self rank)", op,
                         role, pe);
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

SYM_API sym_status_t sym_send(const void *buf, size_t nbytes, int pe, int tag)
{
    sym_fault_point(SYM_FAULT_OP_SEND);
    sym_status_t st = check_peer("sym_send", pe, "destination");
    if (st != SYM_OK)
        return st;
    if (!buf && nbytes)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_send: NULL buffer for %zu bytes", nbytes);
    if (tag < 0)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_send: tag %d is negative", tag);
    struct tx t;
    tx_init(&t, buf, nbytes, pe, tag);
    return run("sym_send", &t, NULL);
}

SYM_API sym_status_t sym_recv(void *buf, size_t capacity, int pe, int tag, size_t *received_p)
{
    sym_fault_point(SYM_FAULT_OP_RECV);
    sym_status_t st = check_peer("sym_recv", pe, "source");
    if (st != SYM_OK)
        return st;
    if (!buf && capacity)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_recv: NULL buffer of %zu bytes", capacity);
    if (tag < 0 && tag != SYM_ANY_TAG)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_recv: tag %d is negative", tag);
    struct rx r = {.src = pe, .tag = tag, .buf = buf, .cap = capacity, .total = SIZE_MAX};
    st = run("sym_recv", NULL, &r);
    if (received_p && (st == SYM_OK || st == SYM_ERR_TRUNCATED))
        *received_p = r.received;
    return st;
}

SYM_API sym_status_t sym_sendrecv(const void *sendbuf, size_t sendbytes, int dest, int sendtag,
                                  void *recvbuf, size_t capacity, int source, int recvtag,
                                  size_t *received_p)
{
    sym_fault_point(SYM_FAULT_OP_SEND);
    sym_fault_point(SYM_FAULT_OP_RECV);
    sym_status_t st = check_peer("sym_sendrecv", dest, "destination");
    if (st == SYM_OK)
        st = check_peer("sym_sendrecv", source, "source");
    if (st != SYM_OK)
        return st;
    if ((!sendbuf && sendbytes) || (!recvbuf && capacity))
        return sym_error(SYM_ERR_INVALID_ARG, "sym_sendrecv: NULL buffer");
    if (sendtag < 0 || (recvtag < 0 && recvtag != SYM_ANY_TAG))
        return sym_error(SYM_ERR_INVALID_ARG, "sym_sendrecv: negative tag");
    /* Large messages are received while the send is still being read. */
    if (sendbytes && capacity && sym_overlaps(sendbuf, sendbytes, recvbuf, capacity))
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_sendrecv: the send buffer (%zu bytes at %p) "
                         "and the receive buffer (%zu bytes at %p) overlap",
                         sendbytes, sendbuf, capacity, recvbuf);
    struct tx t;
    tx_init(&t, sendbuf, sendbytes, dest, sendtag);
    struct rx r = {
        .src = source, .tag = recvtag, .buf = recvbuf, .cap = capacity, .total = SIZE_MAX};
    st = run("sym_sendrecv", &t, &r);
    if (received_p && (st == SYM_OK || st == SYM_ERR_TRUNCATED))
        *received_p = r.received;
    return st;
}
