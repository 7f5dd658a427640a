/* chan.c - the credit-based mailbox channel (chan.h): its layout in the
 * area, send, receive, release and flush.  The cell queue is chan_cells.c,
 * waiting, stall checks and poison chan_stall.c. */
#include <inttypes.h>
#include <stdlib.h>

#include "coll/chan_private.h"

/*
 * How cells and slots share a team's area.  The area holds, in order: the
 * poison word, the call line and the poison message; the slots' free
 * flags; the cells' credit lines, their first lines (side by side, so
 * inline messages touch as few lines and pages as a one-line ring) and
 * their payloads; then the slots.
 *
 * The cells come first: the deepest queue (64, else 32, else 16 cells per
 * link) and at that depth the largest cells (a header line and 256, 192,
 * 128 or 64 payload bytes, else one line for inline messages of up to 28
 * bytes) whose lines take at most a quarter of the area.  The default
 * world area (2 MiB) gives 64 cells of 256 bytes per link up to 25 PEs,
 * 160 KiB at 8; a split team's 64 KiB gives 64 inline cells at 2 and 3
 * members, 32 at 4 to 7, 16 at 8 to 14, and none beyond.  A queue of
 * fewer than 16 cells would be hardly deeper than the slots beside it:
 * then the area has none, and every message takes the slots.
 *
 * The slots take the rest: the most slots per link (8, 4, else 2: a power
 * of two) that still give chunks of SYMHEAP_CHUNK_SIZE or 56 KiB,
 * whichever is smaller (large messages stream through such chunks at
 * nearly full speed): the world's 2 MiB gives 8 slots at 2 to 4 PEs, 4 at
 * 5 to 8, 2 beyond.  An area that cannot also hold the slots' minimum
 * with the cells drops the cells, so every area that serves the slots
 * alone still works.
 */
static uint64_t cells_bytes(int n, unsigned shift, unsigned lines)
{
    return (uint64_t)n * (((uint64_t)lines << shift) + 1) * SYM_LINE;
}

static uint32_t cell_payload(unsigned lines)
{
    return lines > 1 ? (lines - 1) * SYM_LINE : INLINE_MAX;
}

static unsigned cell_shape(uint64_t area_size, int n, size_t max_chunk, unsigned *lines_p)
{
    for (unsigned shift = CELL_SHIFT_MAX; shift >= CELL_SHIFT_MIN; shift--)
        for (unsigned lines = CELL_LINES_MAX; lines >= 1; lines--)
            if (cell_payload(lines) <= max_chunk && cells_bytes(n, shift, lines) <= area_size / 4) {
                *lines_p = lines;
                return shift;
            }
    return 0;
}

struct slot_shape {
    unsigned shift;
    uint64_t k, links, fixed, chunk;
};

static void slot_shape(struct slot_shape *s, uint64_t area_size, int n, size_t max_chunk,
                       uint64_t cell_area)
{
    const uint64_t want = max_chunk < DEEP_CHUNK_MIN ? max_chunk : DEEP_CHUNK_MIN;
    for (s->shift = MAX_SLOTS_SHIFT;; s->shift--) {
        s->k = UINT64_C(1) << s->shift;
        s->links = (uint64_t)n * s->k;
        s->fixed = 2 * SYM_LINE + POISON_MSG_BYTES + s->links * SYM_LINE + cell_area;
        uint64_t per_slot = area_size > s->fixed ? (area_size - s->fixed) / s->links : 0;
        s->chunk = per_slot > HDR_BYTES ? (per_slot - HDR_BYTES) / SYM_LINE * SYM_LINE : 0;
        if (s->chunk >= want / SYM_LINE * SYM_LINE || s->k == SLOTS_PER_LINK)
            break;
    }
    if (s->chunk > max_chunk)
        s->chunk = max_chunk / SYM_LINE * SYM_LINE;
}

sym_status_t sym_chan_init(struct sym_chan *ch, uint64_t area_off, uint64_t area_size, int n,
                           const int *pe_of, size_t max_chunk, bool cells, const char *what)
{
    memset(ch, 0, sizeof(*ch));
    unsigned lines = 0;
    unsigned cshift = cells ? cell_shape(area_size, n, max_chunk, &lines) : 0;
    uint64_t cell_area = cshift ? cells_bytes(n, cshift, lines) : 0;
    struct slot_shape s;
    slot_shape(&s, area_size, n, max_chunk, cell_area);
    if (cshift && (s.chunk < MIN_CHUNK || s.chunk < cell_payload(lines))) {
        cshift = 0;
        cell_area = 0;
        slot_shape(&s, area_size, n, max_chunk, 0);
    }
    if (s.chunk < MIN_CHUNK) {
        /* Named in what the user sets: the area is a share of the region
         * SYMHEAP_MAILBOX_SIZE asks for (rounded up to whole pages). */
        const uint64_t need = s.fixed + s.links * (HDR_BYTES + MIN_CHUNK);
        const uint64_t region = sym_rt.layout.mailbox_size;
        const uint64_t asked = area_size ? sym_round_up(need * (region / area_size), SYM_PAGE) : 0;
        return sym_error(SYM_ERR_NO_MEMORY,
                         "%s: its mailbox area of %" PRIu64 " bytes (a share of the %" PRIu64
                         "-byte mailbox region; SYMHEAP_MAILBOX_SIZE=%zu) cannot serve %d PEs "
                         "(needs at least %" PRIu64 " bytes: raise SYMHEAP_MAILBOX_SIZE to at "
                         "least %" PRIu64 ")",
                         what, area_size, region, sym_rt.cfg.mailbox_size, n, need,
                         asked > region ? asked : region * 2);
    }
    /* one block for the per-link counts: sent, recvd, csent, crecvd, cseen */
    ch->sent = calloc((size_t)n * 5, sizeof(uint64_t));
    ch->cheld = calloc((size_t)n, 1);
    if (!ch->sent || !ch->cheld) {
        sym_chan_fini(ch);
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", what);
    }
    ch->recvd = ch->sent + n;
    ch->csent = ch->sent + 2 * (size_t)n;
    ch->crecvd = ch->sent + 3 * (size_t)n;
    ch->cseen = ch->sent + 4 * (size_t)n;
    ch->area_off = area_off;
    ch->area_size = area_size;
    ch->n = n;
    ch->k = (int)s.k;
    ch->kshift = s.shift;
    ch->kmask = s.k - 1;
    ch->chunk = (size_t)s.chunk;
    ch->pe_of = pe_of;
    ch->poison_off = area_off;
    ch->call_off = area_off + SYM_LINE;
    ch->msg_off = ch->call_off + SYM_LINE;
    ch->free_off = ch->msg_off + POISON_MSG_BYTES;
    ch->ncells = cshift ? 1 << cshift : 0;
    ch->cellshift = cshift;
    ch->cellmask = cshift ? ((uint64_t)1 << cshift) - 1 : 0;
    ch->cell_bytes = cshift ? cell_payload(lines) : 0;
    ch->ccredit_off = ch->free_off + s.links * SYM_LINE;
    ch->cell_off = ch->ccredit_off + (cshift ? (uint64_t)n * SYM_LINE : 0);
    ch->cell_data_off = ch->cell_off + (cshift ? (uint64_t)n * SYM_LINE << cshift : 0);
    /* the cells lie below slot_off: sym_chan_clear_local zeroes them */
    ch->slot_off = ch->ccredit_off + cell_area;
    ch->slot_stride = HDR_BYTES + s.chunk;
    return SYM_OK;
}

void sym_chan_fini(struct sym_chan *ch)
{
    free(ch->sent);
    free(ch->cheld);
    memset(ch, 0, sizeof(*ch));
}

void sym_chan_restart(struct sym_chan *ch)
{
    sym_chan_clear_local(ch);
    memset(ch->sent, 0, (size_t)ch->n * 5 * sizeof(uint64_t));
}

void sym_chan_clear_local(struct sym_chan *ch)
{
    /* flags and the poison word only: slot payloads need no clearing */
    memset(sym_rt.base + ch->poison_off, 0, (size_t)(ch->slot_off - ch->poison_off));
    for (int src = 0; src < ch->n; src++)
        for (uint64_t slot = 0; slot < (uint64_t)ch->k; slot++)
            memset(sym_rt.base + full_off(ch, src, slot), 0, sizeof(uint64_t));
}

/* ---- send / receive ---- */

/* A chunk from `src` has arrived: its header, payload and, usually next,
 * the credit for this PE's next chunk to `src` are all lines another core
 * wrote.  Loaded one after the other (header check, then the caller's
 * copy or reduction, then the next send) each costs a cross-core miss;
 * asked for together they overlap.  The credit is final by now whenever
 * `src` released it before sending what just arrived (every exchange). */
__attribute__((always_inline)) static inline void
prefetch_after_arrival(const struct sym_chan *ch, int me, int src, uint64_t slot,
                       const struct sym_chunk_hdr *hdr, bool inl)
{
    if (!inl) {
        const uint8_t *payload = (const uint8_t *)hdr + HDR_BYTES;
        __builtin_prefetch(payload);
        __builtin_prefetch(payload + SYM_LINE);
    }
    __builtin_prefetch(sym_rt.base + free_off(ch, src, k_slot(ch, ch->sent[src])));
    /* the release will write the sender's free flag: stores become visible
     * in order, so until that line is here it holds back the next send */
    const uint8_t *f = sym_direct(ch->pe_of[src], free_off(ch, me, slot));
    if (f)
        PREFETCH_W(f);
}

sym_status_t sym_chan_send(struct sym_coll *c, int dst, const void *data, size_t len,
                           uint64_t msg_bytes)
{
    if (!c->published)
        sym_chan_publish_call(c);
    if (msg_bytes < c->cells_below)
        return sym_chan_cell_send(c, dst, data, len, msg_bytes);
    struct sym_chan *ch = &c->team->chan;
    const uint64_t n = ch->sent[dst], slot = k_slot(ch, n), use = k_use(ch, n);
    const int pe = ch->pe_of[dst];
    uint64_t s = slot_off(ch, c->team->rank, slot);
    prefetch_for_write(pe, s, s + HDR_BYTES, len);
    if (use > 0) {
        /* credit: the receiver gave this slot back after its previous use */
        uint64_t f = free_off(ch, dst, slot);
        sym_status_t st = chan_wait(c, f, use, dst, "free a mailbox slot", s);
        if (st != SYM_OK)
            return st;
    }
    sym_status_t st = chunk_put(c, pe, s, s + HDR_BYTES, use + 1, data, len, msg_bytes);
    if (st == SYM_OK)
        ch->sent[dst] = n + 1;
    return st;
}

/* The next slot from `src` has arrived: its header line and payload. */
static sym_status_t slot_arrived(struct sym_coll *c, int src, uint64_t expect,
                                 const struct sym_chunk_hdr **hdr_p, const uint8_t **payload_p)
{
    struct sym_chan *ch = &c->team->chan;
    const uint64_t n = ch->recvd[src], slot = k_slot(ch, n), use = k_use(ch, n);
    sym_status_t st = chan_wait_data(c, full_off(ch, src, slot), use + 1, src, false, expect);
    if (st != SYM_OK)
        return st;
    const struct sym_chunk_hdr *hdr = (const void *)(sym_rt.base + slot_off(ch, src, slot));
    const uint32_t tag = ((const struct inline_line *)hdr)->tag;
    prefetch_after_arrival(ch, c->team->rank, src, slot, hdr, (tag & ~0xffu) == INLINE_TAG);
    *hdr_p = hdr;
    *payload_p = (const uint8_t *)hdr + HDR_BYTES;
    return SYM_OK;
}

sym_status_t sym_chan_recv_msg(struct sym_coll *c, int src, uint64_t expect, const void **data_p,
                               size_t *len_p, uint64_t *msg_bytes_p)
{
    struct sym_chan *ch = &c->team->chan;
    if (!c->published)
        sym_chan_publish_call(c);
    const bool cell = expect < c->cells_below;
    const struct sym_chunk_hdr *hdr;
    const uint8_t *payload;
    sym_status_t st = cell ? sym_chan_cell_arrived(c, src, expect, &hdr, &payload)
                           : slot_arrived(c, src, expect, &hdr, &payload);
    if (st != SYM_OK)
        return st;
    ch->cheld[src] = cell;
    const struct inline_line *l = (const void *)hdr;
    const uint32_t tag = l->tag;
    const bool inl = (tag & ~0xffu) == INLINE_TAG;
    struct sym_fp fp_in;
    const struct sym_fp *fp = &hdr->fp;
    if (inl) {
        line_fp(hdr, &fp_in);
        fp = &fp_in;
    } else if (__builtin_expect(tag != 0, 0)) {
        return sym_chan_bad_format(c, src, tag, "a chunk header", "mailbox",
                                   "not a chunk of this library");
    }
    const uint64_t bytes = inl ? tag & 0xffu : hdr->msg_bytes;
    if (__builtin_expect(memcmp(fp, &c->fp, sizeof(c->fp)) != 0, 0))
        return sym_chan_chunk_mismatch(c, src, fp, bytes, expect);
    /* what a member sent on the link's other path in an earlier call (or
     * in this one, when its messages all take one path) will never be
     * taken: the member made that call differently */
    struct sym_fp stray;
    uint64_t stray_bytes;
    if (__builtin_expect(sym_chan_stray(c, src, cell, false, &stray, &stray_bytes), 0))
        return sym_chan_chunk_mismatch(c, src, &stray, stray_bytes, expect);
    if (inl) {
        const size_t len = tag & 0xffu;
        if (__builtin_expect(len > INLINE_MAX, 0)) {
            char msg[300];
            snprintf(msg, sizeof(msg),
                     "PE %d wrote an inline chunk of %zu bytes (at most %u "
                     "fit) into this PE's mailbox on %s",
                     ch->pe_of[src], len, INLINE_MAX, c->team->name);
            sym_chan_poison(c, SYM_ERR_INTERNAL, msg);
            return sym_error(SYM_ERR_INTERNAL, "%s: %s", c->name, msg);
        }
        *data_p = l->data;
        if (len_p)
            *len_p = len;
        if (msg_bytes_p)
            *msg_bytes_p = len;
        return SYM_OK;
    }
    *data_p = payload;
    if (len_p)
        *len_p = hdr->len;
    if (msg_bytes_p)
        *msg_bytes_p = hdr->msg_bytes;
    return SYM_OK;
}

sym_status_t sym_chan_release(struct sym_coll *c, int src)
{
    struct sym_chan *ch = &c->team->chan;
    if (ch->cheld[src])
        return sym_chan_cell_release(c, src);
    const uint64_t n = ch->recvd[src], slot = k_slot(ch, n), use = k_use(ch, n);
    ch->recvd[src] = n + 1;
    return chan_transport(
        c, sym_flag_set_dl(ch->pe_of[src], free_off(ch, c->team->rank, slot), use + 1, &c->dl));
}

sym_status_t sym_chan_flush(struct sym_coll *c, int dst)
{
    struct sym_chan *ch = &c->team->chan;
    if (!c->published)
        sym_chan_publish_call(c);
    sym_status_t st = sym_chan_cell_flush(c, dst);
    if (st != SYM_OK)
        return st;
    const uint64_t n = ch->sent[dst];
    if (n == 0)
        return SYM_OK;
    /* the last chunk sent used slot (n-1) % k for the ((n-1)/k)-th time */
    const uint64_t last = n - 1, slot = k_slot(ch, last);
    return chan_wait(c, free_off(ch, dst, slot), k_use(ch, last) + 1, dst,
                     "consume what this PE sent", slot_off(ch, c->team->rank, slot));
}

const struct sym_chunk_hdr *sym_chan_peek(const struct sym_chan *ch, int src)
{
    const uint64_t n = ch->recvd[src], slot = k_slot(ch, n), use = k_use(ch, n);
    if (sym_flag_load(full_off(ch, src, slot)) < use + 1)
        return NULL;
    return (const void *)(sym_rt.base + slot_off(ch, src, slot));
}

bool sym_chan_can_send(const struct sym_chan *ch, int dst)
{
    const uint64_t n = ch->sent[dst], slot = k_slot(ch, n), use = k_use(ch, n);
    return use == 0 || sym_flag_load(free_off(ch, dst, slot)) >= use;
}
