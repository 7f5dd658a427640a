/*
 * chan_private.h - what the channel's files share (chan.c: layout, send,
 * receive; chan_cells.c: the cell queue; chan_stall.c: waits, stall checks,
 * poison): the area's layout and line formats, and the wait every side of
 * the channel goes through.
 */
#ifndef SYM_COLL_CHAN_PRIVATE_H
#define SYM_COLL_CHAN_PRIVATE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/team.h"
#include "coll/wire.h"
#include "core/internal.h"

#define POISON_MSG_BYTES 448u
#define HDR_BYTES        ((uint64_t)sizeof(struct sym_chunk_hdr))
#define MIN_CHUNK        64u
#define SLOTS_PER_LINK   2
#define MAX_SLOTS_SHIFT  3 /* up to 8 slots per link */
#define DEEP_CHUNK_MIN   57344u
#define CELL_SHIFT_MAX   6 /* up to 64 cells per link */
#define CELL_SHIFT_MIN   4 /* at least 16: deeper than the slots */
#define CELL_LINES_MAX   5 /* a header line and 256 payload bytes */
/* Slots per link are a power of two fixed when the channel is laid out,
 * so the n % k and n / k of every send, receive and release are a mask and
 * a shift (ch->kmask, ch->kshift) instead of two 64-bit divisions on the
 * tiny-message critical path. */
static inline uint64_t k_slot(const struct sym_chan *ch, uint64_t n)
{
    return n & ch->kmask;
}

static inline uint64_t k_use(const struct sym_chan *ch, uint64_t n)
{
    return n >> ch->kshift;
}

_Static_assert(sizeof(struct sym_chunk_hdr) == 64, "chunk header is one cache line");
_Static_assert(offsetof(struct sym_chunk_hdr, full) % 8 == 0, "full flag is a 64-bit word");

/* A chunk of at most INLINE_MAX bytes that is a whole message travels in
 * the header line itself, next to the full flag: the receiver that sees the
 * flag holds the data too, one cross-core transfer per chunk instead of
 * two.  The fingerprint is packed losslessly (a chunk is sent inline only
 * when every field fits), so a mismatch is still found by an exact compare
 * and reported with the sender's whole fingerprint.  `tag` lies where the
 * ordinary header's `pad` (always 0) does, so the receiver tells the two
 * formats apart; the whole line but the flag is written before the flag
 * (put-with-signal, over any transport), so nothing of it is read early. */
#define INLINE_MAX 28u
#define INLINE_TAG 0x49000000u /* 'I' in the top byte; the length below */
struct inline_line {
    uint64_t seq;
    uint8_t kind, dtype, op, algo;
    uint32_t count;
    int32_t root;
    uint32_t layout;
    uint8_t data[INLINE_MAX];
    uint32_t tag;
    uint64_t full;
};
_Static_assert(sizeof(struct inline_line) == 64, "inline chunk is one cache line");
_Static_assert(offsetof(struct inline_line, data) % 8 == 0, "inline payload is 8-byte aligned");
_Static_assert(offsetof(struct inline_line, tag) == offsetof(struct sym_chunk_hdr, pad),
               "the format tag lies in the ordinary header's padding");
_Static_assert(offsetof(struct inline_line, full) == offsetof(struct sym_chunk_hdr, full),
               "both formats keep the full flag in the same word");
_Static_assert(sizeof(struct sym_fp) == 40, "fingerprint has no padding (compared by memcmp)");

/* Every field of fp fits the inline format's packed fingerprint. */
static inline bool fp_packs(const struct sym_fp *fp)
{
    return fp->kind != SYM_COLL_P2P && fp->kind <= UINT8_MAX && fp->dtype <= UINT8_MAX &&
           fp->op <= UINT8_MAX && fp->algo <= UINT8_MAX && fp->count <= UINT32_MAX;
}

static inline bool inline_fits(const struct sym_fp *fp, size_t len, uint64_t msg_bytes)
{
    return len <= INLINE_MAX && msg_bytes == len && fp_packs(fp);
}

/* The fingerprint a slot's header line carries, in either format. */
static inline void line_fp(const struct sym_chunk_hdr *hdr, struct sym_fp *out)
{
    const struct inline_line *l = (const void *)hdr;
    if ((l->tag & ~0xffu) != INLINE_TAG) {
        *out = hdr->fp;
        return;
    }
    memset(out, 0, sizeof(*out));
    out->seq = l->seq;
    out->kind = l->kind;
    out->dtype = l->dtype;
    out->op = l->op;
    out->algo = l->algo;
    out->count = l->count;
    out->root = l->root;
    out->layout = l->layout;
}

static inline uint64_t slot_off(const struct sym_chan *ch, int src, uint64_t slot)
{
    return ch->slot_off + (((uint64_t)src << ch->kshift) + slot) * ch->slot_stride;
}

static inline uint64_t full_off(const struct sym_chan *ch, int src, uint64_t slot)
{
    return slot_off(ch, src, slot) + offsetof(struct sym_chunk_hdr, full);
}

static inline uint64_t free_off(const struct sym_chan *ch, int dst, uint64_t slot)
{
    return ch->free_off + (((uint64_t)dst << ch->kshift) + slot) * SYM_LINE;
}

/* ---- the cell queue (chan_cells.c) ----
 * Message n from member `src` lands in cell n % ncells of src's queue in
 * the receiver's area, its full word (in the cell's first line) set to
 * n / ncells + 1 after the rest of the cell; the receiver acknowledges by
 * storing how many it consumed (n + 1) into its own credit line in the
 * sender's area. */
static inline uint64_t cell_index(const struct sym_chan *ch, int src, uint64_t n)
{
    return ((uint64_t)src << ch->cellshift) + (n & ch->cellmask);
}

/* A cell's first line: its flag, and the header or the inline data. */
static inline uint64_t cell_at(const struct sym_chan *ch, int src, uint64_t n)
{
    return ch->cell_off + cell_index(ch, src, n) * SYM_LINE;
}

/* A cell's payload (a message beyond the inline format), in an array of
 * its own: the first lines of consecutive cells are adjacent, so inline
 * messages touch no more lines and pages than the one-line ring did. */
static inline uint64_t cell_data_at(const struct sym_chan *ch, int src, uint64_t n)
{
    return ch->cell_data_off + cell_index(ch, src, n) * ch->cell_bytes;
}

static inline uint64_t ccredit_line(const struct sym_chan *ch, int r)
{
    return ch->ccredit_off + (uint64_t)r * SYM_LINE;
}

/* PREFETCHW (exclusive, ready to write) exists on every x86-64 this runs
 * on; GCC only emits it for -mprfchw.  Elsewhere the portable hint. */
#if defined(__x86_64__)
#define PREFETCH_W(p) __asm__ volatile("prefetchw %0" ::"m"(*(const char *)(p)))
#else
#define PREFETCH_W(p) __builtin_prefetch((p), 1)
#endif

/* Where the peer's slot is mapped here (shared memory), ask for its lines
 * in exclusive state while the credit is still being read: the header line
 * (with the full flag) and the first payload lines were last read by the
 * peer, and each would otherwise be a cross-core miss after the credit's.
 * Only a hint: small messages are latency-bound, large ones stream anyway.
 * Always inlined and volatile asm: GCC deems a function that only
 * prefetches pure and drops the call. */
__attribute__((always_inline)) static inline void prefetch_for_write(int pe, uint64_t slot,
                                                                     uint64_t payload, size_t len)
{
    uint8_t *d = sym_direct(pe, slot);
    if (!d)
        return;
    PREFETCH_W(d);
    if (len <= INLINE_MAX)
        return; /* (a chunk that may go inline; an ordinary one this small is rare) */
    d += payload - slot;
    for (size_t o = 0; o < len && o < 4 * SYM_LINE; o += SYM_LINE)
        PREFETCH_W(d + o);
}

static inline void fill_inline(struct inline_line *l, const struct sym_coll *c, const void *data,
                               size_t len)
{
    *l = (struct inline_line){
        .seq = c->fp.seq,
        .kind = (uint8_t)c->fp.kind,
        .dtype = (uint8_t)c->fp.dtype,
        .op = (uint8_t)c->fp.op,
        .algo = (uint8_t)c->fp.algo,
        .count = (uint32_t)c->fp.count,
        .root = c->fp.root,
        .layout = c->fp.layout,
        .tag = INLINE_TAG | (uint32_t)len,
    };
    if (len)
        memcpy(l->data, data, len);
}

/* Write this PE's fingerprint to its call line (once per call, before its
 * first chunk), for the stall checks of members that wait on it. */
void sym_chan_publish_call(struct sym_coll *c);

/* A transport call of the channel failed (chan_stall.c): its message
 * starts with the call's name, its deadline's op, but not which call it
 * was; add the call's number and team, as the channel's own errors have
 * (point-to-point calls are not numbered: left as they are). */
sym_status_t sym_chan_transport_failed(struct sym_coll *c, sym_status_t st);

static inline sym_status_t chan_transport(struct sym_coll *c, sym_status_t st)
{
    return __builtin_expect(st == SYM_OK, 1) ? st : sym_chan_transport_failed(c, st);
}

/* Put one chunk into the slot or cell whose header line is `line` on PE
 * `pe`, then set the line's full flag to `use`: inline in the line if it
 * is a whole message that fits, else the ordinary header and the payload
 * at `payload` (a slot's lines after the header, a cell's payload). */
static inline sym_status_t chunk_put(struct sym_coll *c, int pe, uint64_t line, uint64_t payload,
                                     uint64_t use, const void *data, size_t len, uint64_t msg_bytes)
{
    const uint64_t full = line + offsetof(struct sym_chunk_hdr, full);
    sym_status_t st;
    if (inline_fits(&c->fp, len, msg_bytes)) {
        struct inline_line l;
        fill_inline(&l, c, data, len);
        st = sym_put_signal_off_dl(pe, line, &l, offsetof(struct inline_line, full), full, use,
                                   SYM_SIGNAL_SET, &c->dl);
    } else {
        struct sym_chunk_hdr hdr = {.fp = c->fp, .msg_bytes = msg_bytes, .len = (uint32_t)len};
        /* everything but the full flag, which put_signal sets after the data */
        st = sym_put_off_dl(pe, line, &hdr, offsetof(struct sym_chunk_hdr, full), &c->dl);
        if (st == SYM_OK)
            st = sym_put_signal_off_dl(pe, payload, data, len, full, use, SYM_SIGNAL_SET, &c->dl);
    }
    return chan_transport(c, st);
}

/* One wait of the channel: for this PE's flag at flag_off to reach target
 * (sent by member `peer`; `what` it is to do, for the timeout message),
 * or the team's poison. */
struct chan_wait {
    struct sym_coll *c;
    uint64_t flag_off;
    uint64_t target;
    int peer;
    const char *what;
    uint64_t held;   /* credit waits: the peer's slot or cell, whose header names
                      * the (maybe earlier) call that left it unconsumed; else 0 */
    int data;        /* waits for data: 1 in a slot, 2 in a cell; else 0 */
    uint64_t expect; /* waits for data: the size of the message */
};

/* The slow part of chan_wait and chan_wait_data (chan_stall.c). */
sym_status_t sym_chan_wait_slow(const struct chan_wait *w);

static inline sym_status_t chan_wait(struct sym_coll *c, uint64_t flag_off, uint64_t target,
                                     int peer, const char *what, uint64_t held)
{
    if (__builtin_expect(sym_flag_load(flag_off) >= target, 1))
        return SYM_OK;
    const struct chan_wait w = {c, flag_off, target, peer, what, held, 0, 0};
    return sym_chan_wait_slow(&w);
}

/* A wait for the next chunk from `peer`, of a message of `expect` bytes,
 * in a cell or a slot: when it is stuck, the other path is looked at too
 * (a member that sent the call's message there). */
static inline sym_status_t chan_wait_data(struct sym_coll *c, uint64_t flag_off, uint64_t target,
                                          int peer, bool cell, uint64_t expect)
{
    if (__builtin_expect(sym_flag_load(flag_off) >= target, 1))
        return SYM_OK;
    const struct chan_wait w = {c, flag_off,     target, peer, "send its data",
                                0, cell ? 2 : 1, expect};
    return sym_chan_wait_slow(&w);
}

/* The cell queue's side of send, receive, release and flush
 * (chan_cells.c). */
sym_status_t sym_chan_cell_send(struct sym_coll *c, int dst, const void *data, size_t len,
                                uint64_t msg_bytes);
sym_status_t sym_chan_cell_arrived(struct sym_coll *c, int src, uint64_t expect,
                                   const struct sym_chunk_hdr **hdr_p, const uint8_t **payload_p);
sym_status_t sym_chan_cell_release(struct sym_coll *c, int src);
sym_status_t sym_chan_cell_flush(struct sym_coll *c, int dst);

/* A chunk from `src` waiting on the other path of the link (the cells when
 * this receive of call c uses the slots, the slots when it uses the cells)
 * that no call of this PE will take: one of an earlier call, or of this
 * call when its messages all take one path (sym_chan_use_cells) or this
 * PE's receive is stuck (`stuck`: the member sent this call's message
 * over the other path).  Fills *fp with its fingerprint and *bytes_p with
 * its message size and returns true (chan_cells.c). */
bool sym_chan_stray(const struct sym_coll *c, int src, bool on_cells, bool stuck, struct sym_fp *fp,
                    uint64_t *bytes_p);

/* Member `src` sent data of call `fp` (a message of `bytes`) where this PE
 * expected a message of `expect` bytes of its own call c: report both (a
 * size disagreement when the calls are the same) to every member
 * (chan_stall.c). */
sym_status_t sym_chan_chunk_mismatch(struct sym_coll *c, int src, const struct sym_fp *fp,
                                     uint64_t bytes, uint64_t expect);

/* A sender's format word that cannot be there: the team's mailboxes are
 * not what this library wrote, so the team is poisoned (chan_stall.c). */
sym_status_t sym_chan_bad_format(struct sym_coll *c, int src, uint32_t tag, const char *what,
                                 const char *where, const char *why);

#endif /* SYM_COLL_CHAN_PRIVATE_H */
