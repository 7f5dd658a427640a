/* chan.c - the credit-based mailbox channel (chan.h). */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/team.h"
#include "coll/wire.h"
#include "core/internal.h"

#define POISON_MSG_BYTES 448u
#define HDR_BYTES ((uint64_t)sizeof(struct sym_chunk_hdr))
#define MIN_CHUNK 64u
#define SLOTS_PER_LINK 2
#define MAX_SLOTS_SHIFT 3 /* up to 8 slots per link */
#define DEEP_CHUNK_MIN 61440u
#define TINY_SHIFT 6 /* up to 64 tiny slots per link with SYMHEAP_COLL_RUNAHEAD */
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

static inline bool inline_fits(const struct sym_fp *fp, size_t len, uint64_t msg_bytes)
{
    return len <= INLINE_MAX && msg_bytes == len && fp->kind != SYM_COLL_P2P &&
           fp->kind <= UINT8_MAX && fp->dtype <= UINT8_MAX && fp->op <= UINT8_MAX &&
           fp->algo <= UINT8_MAX && fp->count <= UINT32_MAX;
}

/* The fingerprint a slot's header line carries, in either format. */
static void line_fp(const struct sym_chunk_hdr *hdr, struct sym_fp *out)
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

sym_status_t sym_chan_init(struct sym_chan *ch, uint64_t area_off, uint64_t area_size, int n,
                           const int *pe_of, size_t max_chunk, const char *what)
{
    memset(ch, 0, sizeof(*ch));
    /* More slots per link let a sender run further ahead of a receiver that
     * is not running (a loop of small broadcasts, more PEs than cores), but
     * cut the area into smaller chunks.  With SYMHEAP_COLL_RUNAHEAD set,
     * take the most slots (8, 4, else 2: a power of two) that still give
     * chunks of SYMHEAP_CHUNK_SIZE or 60 KiB, whichever is smaller (large
     * messages stream through such chunks at nearly full speed): the
     * world's 1 MiB gives 8 slots at 2 PEs, 4 at 3 and 4, 2 beyond.
     * Without it, 2 slots and the large chunks they give, as always. */
    const uint64_t want = max_chunk < DEEP_CHUNK_MIN ? max_chunk : DEEP_CHUNK_MIN;
    unsigned shift = sym_rt.cfg.coll_runahead ? MAX_SLOTS_SHIFT : 1;
    /* The tiny ring costs n * (tk + 1) lines (33 KiB at 8 PEs and 64
     * slots): it gets at most an eighth of the area, with as many slots
     * (a power of two) as fit, but no fewer than the largest k. */
    unsigned tshift = sym_rt.cfg.coll_runahead ? TINY_SHIFT : 0;
    while (tshift > MAX_SLOTS_SHIFT &&
           (uint64_t)n * ((UINT64_C(1) << tshift) + 1) * SYM_LINE > area_size / 8)
        tshift--;
    if (tshift <= MAX_SLOTS_SHIFT)
        tshift = 0;
    const uint64_t tk = tshift ? UINT64_C(1) << tshift : 0;
    const uint64_t tiny_bytes = tk ? (uint64_t)n * (tk + 1) * SYM_LINE : 0;
    uint64_t k, links, fixed, chunk;
    for (;; shift--) {
        k = UINT64_C(1) << shift;
        links = (uint64_t)n * k;
        fixed = 2 * SYM_LINE + POISON_MSG_BYTES + links * SYM_LINE + tiny_bytes;
        uint64_t per_slot = area_size > fixed ? (area_size - fixed) / links : 0;
        chunk = per_slot > HDR_BYTES ? (per_slot - HDR_BYTES) / SYM_LINE * SYM_LINE : 0;
        if (chunk >= want / SYM_LINE * SYM_LINE || k == SLOTS_PER_LINK)
            break;
    }
    if (chunk > max_chunk)
        chunk = max_chunk / SYM_LINE * SYM_LINE;
    if (chunk < MIN_CHUNK)
        return sym_error(SYM_ERR_NO_MEMORY,
                         "%s: a mailbox of %" PRIu64 " bytes cannot serve %d PEs (needs at "
                         "least %" PRIu64 " bytes; raise SYMHEAP_MAILBOX_SIZE)",
                         what, area_size, n, fixed + links * (HDR_BYTES + MIN_CHUNK));
    ch->sent = calloc((size_t)n, sizeof(uint64_t));
    ch->recvd = calloc((size_t)n, sizeof(uint64_t));
    ch->tsent = calloc((size_t)n, sizeof(uint64_t));
    ch->trecvd = calloc((size_t)n, sizeof(uint64_t));
    if (!ch->sent || !ch->recvd || !ch->tsent || !ch->trecvd) {
        sym_chan_fini(ch);
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", what);
    }
    ch->area_off = area_off;
    ch->area_size = area_size;
    ch->n = n;
    ch->k = (int)k;
    ch->kshift = shift;
    ch->kmask = k - 1;
    ch->chunk = (size_t)chunk;
    ch->pe_of = pe_of;
    ch->poison_off = area_off;
    ch->call_off = area_off + SYM_LINE;
    ch->msg_off = ch->call_off + SYM_LINE;
    ch->free_off = ch->msg_off + POISON_MSG_BYTES;
    ch->tk = (int)tk;
    ch->tkshift = tshift;
    ch->tkmask = tk ? tk - 1 : 0;
    ch->tcredit_off = ch->free_off + links * SYM_LINE;
    ch->tslot_off = ch->tcredit_off + (tk ? (uint64_t)n * SYM_LINE : 0);
    /* the tiny ring lies below slot_off: sym_chan_clear_local zeroes it */
    ch->slot_off = ch->tcredit_off + tiny_bytes;
    ch->slot_stride = HDR_BYTES + chunk;
    return SYM_OK;
}

void sym_chan_fini(struct sym_chan *ch)
{
    free(ch->sent);
    free(ch->recvd);
    free(ch->tsent);
    free(ch->trecvd);
    memset(ch, 0, sizeof(*ch));
}

static inline uint64_t slot_off(const struct sym_chan *ch, int src, uint64_t slot)
{
    return ch->slot_off + (((uint64_t)src << ch->kshift) + slot) * ch->slot_stride;
}

static inline uint64_t full_off(const struct sym_chan *ch, int src, uint64_t slot)
{
    return slot_off(ch, src, slot) + offsetof(struct sym_chunk_hdr, full);
}

void sym_chan_clear_local(struct sym_chan *ch)
{
    /* flags and the poison word only: slot payloads need no clearing */
    memset(sym_rt.base + ch->poison_off, 0, (size_t)(ch->slot_off - ch->poison_off));
    for (int src = 0; src < ch->n; src++)
        for (uint64_t slot = 0; slot < (uint64_t)ch->k; slot++)
            memset(sym_rt.base + full_off(ch, src, slot), 0, sizeof(uint64_t));
}

static inline uint64_t free_off(const struct sym_chan *ch, int dst, uint64_t slot)
{
    return ch->free_off + (((uint64_t)dst << ch->kshift) + slot) * SYM_LINE;
}

/* ---- the call line: each PE's current fingerprint, for stall checks ----
 * Written locally once per call (fingerprint, then its sequence number with
 * release); read remotely only when a wait is stuck. */
struct call_line {
    uint64_t seq; /* == fp.seq once fp is complete */
    struct sym_fp fp;
};

/* The collective's timeout, not SYMHEAP_TIMEOUT, bounds a transport call
 * of the channel that has to wait for its target: over a provider with
 * manual progress, a put completes only once the target makes library
 * calls, and a member that is late (or gone) must be reported within the
 * team's timeout, poisoning included.  A transport call never yields to
 * another coroutine, so the setting cannot leak into one. */
static double op_timeout_enter(const struct sym_coll *c)
{
    double saved = sym_op_timeout_s;
    sym_op_timeout_s = c->timeout_s;
    return saved;
}

static void op_timeout_leave(double saved)
{
    sym_op_timeout_s = saved;
}

static void publish_call(struct sym_coll *c)
{
    struct call_line *cl = (void *)(sym_rt.base + c->team->chan.call_off);
    __atomic_store_n(&cl->seq, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    cl->fp = c->fp;
    __atomic_store_n(&cl->seq, c->fp.seq, __ATOMIC_RELEASE);
    c->published = true;
}

/* Read member `pe`'s call line consistently: its sequence number before and
 * after the fingerprint must agree (the writer zeroes it while it writes),
 * else the line is being rewritten and false is returned. */
static bool read_call(const struct sym_chan *ch, int pe, struct call_line *out)
{
    uint64_t before, after;
    if (sym_get_off(pe, &before, ch->call_off, sizeof(before)) != SYM_OK || before == 0)
        return false;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (sym_get_off(pe, &out->fp, ch->call_off + offsetof(struct call_line, fp),
                    sizeof(out->fp)) != SYM_OK)
        return false;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (sym_get_off(pe, &after, ch->call_off, sizeof(after)) != SYM_OK)
        return false;
    out->seq = before;
    return before == after && out->fp.seq == before;
}

/* ---- waiting on a flag of the channel, or the team's poison word ---- */

struct chan_wait {
    struct sym_coll *c;
    uint64_t flag_off;
    uint64_t target;
    int peer;         /* team number of the PE we wait for */
    const char *what; /* "send chunk", "free slot" */
    uint64_t held;    /* credit waits: the peer's slot, whose header names the
                       * (maybe earlier) call that left it unconsumed; else 0 */
};

static bool chan_ready(void *arg)
{
    struct chan_wait *w = arg;
    return sym_flag_load(w->flag_off) >= w->target ||
           sym_flag_load(w->c->team->chan.poison_off) != 0;
}

/* Names the PE waited for and, since with trees and rings that PE is often
 * stuck itself, every member that has not even started this call. */
static void chan_describe(void *arg, char *buf, size_t len)
{
    struct chan_wait *w = arg;
    struct sym_team *t = w->c->team;
    size_t used = (size_t)snprintf(buf, len, "PE %d (member %d of %s) to %s for %s #%" PRIu64
                                   " on %s", t->pe_of[w->peer], w->peer, t->name, w->what,
                                   w->c->name + 4, w->c->fp.seq, t->name);
    struct sym_chunk_hdr line;
    double saved_held = op_timeout_enter(w->c); /* the read waits for the member over ofi */
    bool got_held = w->held && used < len &&
                    sym_get_off(t->pe_of[w->peer], &line, w->held, sizeof(line)) == SYM_OK;
    op_timeout_leave(saved_held);
    if (got_held) {
        char text[160];
        struct sym_fp held;
        line_fp(&line, &held);
        sym_fp_text(&held, text, sizeof(text));
        used += (size_t)snprintf(buf + used, len - used, " (the slot still holds this PE's "
                                 "chunk of %s, never consumed)", text);
    }
    const char *sep = "; PEs that have not started this call: PE";
    for (int r = 0; r < t->size && used < len; r++) {
        struct call_line theirs = { 0 };
        double saved = op_timeout_enter(w->c); /* reads wait for the member over ofi */
        bool started = r == t->rank || (read_call(&t->chan, t->pe_of[r], &theirs) &&
                                        theirs.seq >= w->c->fp.seq);
        op_timeout_leave(saved);
        if (started)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s %d", sep, t->pe_of[r]);
        sep = ", PE";
    }
}

static sym_status_t report_mismatch(struct sym_coll *c, int pe, const struct sym_fp *fp,
                                    bool moved_on)
{
    char mine[160], other[160], msg[600];
    sym_fp_text(&c->fp, mine, sizeof(mine));
    sym_fp_text(fp, other, sizeof(other));
    snprintf(msg, sizeof(msg), "mismatched collectives on %s: this PE called %s, PE %d %s %s",
             c->team->name, mine, pe, moved_on ? "has moved on to" : "called", other);
    sym_chan_poison(c, SYM_ERR_MISMATCH, msg);
    return sym_error(SYM_ERR_MISMATCH, "%s: %s", c->name, msg);
}

/* Members' published calls tell whether a stuck wait is a late peer (an
 * earlier sequence number) or a mismatch: any member in this same call
 * number with another fingerprint, or the awaited PE already past this call
 * without having done what this PE waits for.  Catches mismatches no chunk
 * reveals: two broadcast roots that only send, two reduce roots that only
 * receive, or calls whose algorithms share no link. */
static sym_status_t chan_stalled(void *arg)
{
    struct chan_wait *w = arg;
    struct sym_coll *c = w->c;
    const struct sym_team *t = c->team;
    for (int r = 0; r < t->size; r++) {
        struct call_line theirs;
        double saved = op_timeout_enter(c); /* reads wait for the member over ofi */
        bool got = r != t->rank && read_call(&t->chan, t->pe_of[r], &theirs);
        op_timeout_leave(saved);
        if (!got || theirs.seq < c->fp.seq)
            continue; /* being rewritten, or not in this call yet */
        if (theirs.seq == c->fp.seq) {
            if (memcmp(&theirs.fp, &c->fp, sizeof(c->fp)) != 0)
                return report_mismatch(c, t->pe_of[r], &theirs.fp, false);
            continue;
        }
        if (r != w->peer)
            continue; /* others may well have finished this call */
        /* The awaited PE did everything this PE waits for before it published
         * its next call: look at the flag again after the call line. */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (!chan_ready(w))
            return report_mismatch(c, t->pe_of[r], &theirs.fp, true);
    }
    return SYM_OK;
}

static sym_status_t chan_wait(struct sym_coll *c, uint64_t flag_off, uint64_t target, int peer,
                              const char *what, uint64_t held)
{
    if (__builtin_expect(sym_flag_load(flag_off) >= target, 1))
        return SYM_OK;
    struct chan_wait w = { c, flag_off, target, peer, what, held };
    struct sym_waiter waiter = { chan_ready, chan_describe, &w, chan_stalled };
    sym_status_t st = sym_wait_for(c->name, &waiter, c->timeout_s);
    if (st != SYM_OK)
        return st;
    if (sym_flag_load(flag_off) >= target)
        return SYM_OK;
    return sym_chan_poisoned(c);
}

/* ---- poison ---- */

void sym_chan_poison(struct sym_coll *c, sym_status_t status, const char *msg)
{
    struct sym_team *t = c->team;
    struct sym_chan *ch = &t->chan;
    char text[POISON_MSG_BYTES] = { 0 };
    memcpy(text, msg, strnlen(msg, sizeof(text) - 1)); /* cut long messages */
    uint64_t word = sym_poison_word(t->rank, status);
    double saved = op_timeout_enter(c);
    for (int r = 0; r < t->size; r++)
        if (r != t->rank)
            sym_put_signal_off(t->pe_of[r], ch->msg_off, text, sizeof(text), ch->poison_off,
                               word, SYM_SIGNAL_SET);
    op_timeout_leave(saved);
}

sym_status_t sym_chan_poisoned(struct sym_coll *c)
{
    struct sym_chan *ch = &c->team->chan;
    uint64_t word = sym_flag_load(ch->poison_off);
    if (!word)
        return SYM_OK;
    int by;
    sym_status_t st = sym_poison_decode(word, c->team->size, &by);
    const char *text = (const char *)(sym_rt.base + ch->msg_off);
    return sym_error(st, "%s #%" PRIu64 " on %s: member %d (PE %d) reported: %.*s", c->name,
                     c->fp.seq, c->team->name, by,
                     by >= 0 ? c->team->pe_of[by] : -1,
                     (int)POISON_MSG_BYTES, text);
}

/* ---- send / receive ---- */

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
                                                                     size_t len)
{
    uint8_t *d = sym_direct(pe, slot);
    if (!d)
        return;
    PREFETCH_W(d);
    if (len <= INLINE_MAX)
        return; /* (a chunk that may go inline; an ordinary one this small is rare) */
    for (size_t o = 0; o < len && o < 4 * SYM_LINE; o += SYM_LINE)
        PREFETCH_W(d + HDR_BYTES + o);
}

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

static inline void fill_inline(struct inline_line *l, const struct sym_coll *c, const void *data,
                               size_t len)
{
    *l = (struct inline_line){
        .seq = c->fp.seq, .kind = (uint8_t)c->fp.kind, .dtype = (uint8_t)c->fp.dtype,
        .op = (uint8_t)c->fp.op, .algo = (uint8_t)c->fp.algo,
        .count = (uint32_t)c->fp.count, .root = c->fp.root, .layout = c->fp.layout,
        .tag = INLINE_TAG | (uint32_t)len,
    };
    if (len)
        memcpy(l->data, data, len);
}

/* ---- the tiny ring (chan.h) ----
 * Chunk n from member `src` lands in line n % tk of src's ring in the
 * receiver's area, its full word set to n / tk + 1 after the rest of the
 * line; the receiver acknowledges by storing how many it consumed (n + 1)
 * into its own credit line in the sender's area. */
static inline uint64_t tslot_line(const struct sym_chan *ch, int src, uint64_t n)
{
    return ch->tslot_off + (((uint64_t)src << ch->tkshift) + (n & ch->tkmask)) * SYM_LINE;
}

static inline uint64_t tcredit_line(const struct sym_chan *ch, int r)
{
    return ch->tcredit_off + (uint64_t)r * SYM_LINE;
}

void sym_chan_use_tiny(struct sym_coll *c, size_t bytes)
{
    c->tiny = c->team->chan.tk > 0 && inline_fits(&c->fp, bytes, bytes);
}

static sym_status_t tiny_send(struct sym_coll *c, int dst, const void *data, size_t len,
                              uint64_t msg_bytes)
{
    struct sym_chan *ch = &c->team->chan;
    if (__builtin_expect(!inline_fits(&c->fp, len, msg_bytes), 0))
        return sym_error(SYM_ERR_INTERNAL, "%s: a chunk of %zu bytes (message %" PRIu64
                         ") on the tiny ring does not fit inline", c->name, len, msg_bytes);
    const uint64_t n = ch->tsent[dst];
    const int pe = ch->pe_of[dst];
    const uint64_t s = tslot_line(ch, c->team->rank, n);
    prefetch_for_write(pe, s, len);
    if (n >= (uint64_t)ch->tk) {
        /* credit: member dst consumed this line's previous chunk */
        sym_status_t st = chan_wait(c, tcredit_line(ch, dst), n - (uint64_t)ch->tk + 1, dst,
                                    "free a mailbox slot", s);
        if (st != SYM_OK)
            return st;
    }
    struct inline_line l;
    fill_inline(&l, c, data, len);
    double saved = op_timeout_enter(c);
    sym_status_t st = sym_put_signal_off(pe, s, &l, offsetof(struct inline_line, full),
                                         s + offsetof(struct inline_line, full),
                                         (n >> ch->tkshift) + 1, SYM_SIGNAL_SET);
    op_timeout_leave(saved);
    if (st == SYM_OK)
        ch->tsent[dst] = n + 1;
    return st;
}

sym_status_t sym_chan_send(struct sym_coll *c, int dst, const void *data, size_t len,
                           uint64_t msg_bytes)
{
    if (!c->published)
        publish_call(c);
    if (c->tiny)
        return tiny_send(c, dst, data, len, msg_bytes);
    struct sym_chan *ch = &c->team->chan;
    const uint64_t n = ch->sent[dst], slot = k_slot(ch, n), use = k_use(ch, n);
    const int pe = ch->pe_of[dst];
    uint64_t s = slot_off(ch, c->team->rank, slot);
    prefetch_for_write(pe, s, len);
    sym_status_t st = SYM_OK;
    if (use > 0) {
        /* credit: the receiver gave this slot back after its previous use */
        uint64_t f = free_off(ch, dst, slot);
        if ((st = chan_wait(c, f, use, dst, "free a mailbox slot", s)) != SYM_OK)
            return st;
    }
    if (inline_fits(&c->fp, len, msg_bytes)) {
        struct inline_line l;
        fill_inline(&l, c, data, len);
        double saved = op_timeout_enter(c);
        st = sym_put_signal_off(pe, s, &l, offsetof(struct inline_line, full),
                                full_off(ch, c->team->rank, slot), use + 1, SYM_SIGNAL_SET);
        op_timeout_leave(saved);
        if (st != SYM_OK)
            return st;
        ch->sent[dst] = n + 1;
        return SYM_OK;
    }
    struct sym_chunk_hdr hdr = { .fp = c->fp, .msg_bytes = msg_bytes, .len = (uint32_t)len };
    double saved = op_timeout_enter(c);
    /* everything but the full flag, which put_signal sets after the data */
    st = sym_put_off(pe, s, &hdr, offsetof(struct sym_chunk_hdr, full));
    if (st == SYM_OK)
        st = sym_put_signal_off(pe, s + HDR_BYTES, data, len, full_off(ch, c->team->rank, slot),
                                use + 1, SYM_SIGNAL_SET);
    op_timeout_leave(saved);
    if (st == SYM_OK)
        ch->sent[dst] = n + 1;
    return st;
}

/* A sender's format word that cannot be there: the team's mailboxes are
 * not what this library wrote, so the team is poisoned. */
static sym_status_t bad_format(struct sym_coll *c, int src, uint32_t tag, const char *what,
                               const char *where, const char *why)
{
    char msg[300];
    snprintf(msg, sizeof(msg), "PE %d wrote %s with format word 0x%08x into this PE's %s on %s "
             "(%s)", c->team->chan.pe_of[src], what, (unsigned)tag, where, c->team->name, why);
    sym_chan_poison(c, SYM_ERR_INTERNAL, msg);
    return sym_error(SYM_ERR_INTERNAL, "%s: %s", c->name, msg);
}

sym_status_t sym_chan_recv(struct sym_coll *c, int src, const void **data_p, size_t *len_p,
                           uint64_t *msg_bytes_p)
{
    struct sym_chan *ch = &c->team->chan;
    if (!c->published)
        publish_call(c);
    const struct sym_chunk_hdr *hdr;
    bool inl;
    uint32_t tag;
    if (c->tiny) {
        const uint64_t n = ch->trecvd[src], line = tslot_line(ch, src, n);
        sym_status_t st = chan_wait(c, line + offsetof(struct inline_line, full),
                                    (n >> ch->tkshift) + 1, src, "send its data", 0);
        if (st != SYM_OK)
            return st;
        hdr = (const void *)(sym_rt.base + line);
        tag = ((const struct inline_line *)hdr)->tag;
        inl = (tag & ~0xffu) == INLINE_TAG;
        if (__builtin_expect(!inl, 0))
            return bad_format(c, src, tag, "a line", "tiny ring",
                              "only inline chunks go there");
    } else {
        const uint64_t n = ch->recvd[src], slot = k_slot(ch, n), use = k_use(ch, n);
        sym_status_t st = chan_wait(c, full_off(ch, src, slot), use + 1, src, "send its data", 0);
        if (st != SYM_OK)
            return st;
        hdr = (const void *)(sym_rt.base + slot_off(ch, src, slot));
        tag = ((const struct inline_line *)hdr)->tag;
        inl = (tag & ~0xffu) == INLINE_TAG;
        prefetch_after_arrival(ch, c->team->rank, src, slot, hdr, inl);
    }
    const struct inline_line *l = (const void *)hdr;
    struct sym_fp fp_in;
    const struct sym_fp *fp = &hdr->fp;
    if (inl) {
        line_fp(hdr, &fp_in);
        fp = &fp_in;
    } else if (__builtin_expect(tag != 0, 0)) {
        return bad_format(c, src, tag, "a chunk header", "mailbox",
                          "not a chunk of this library");
    }
    if (__builtin_expect(memcmp(fp, &c->fp, sizeof(c->fp)) != 0, 0)) {
        char mine[160], theirs[160], msg[400];
        sym_fp_text(&c->fp, mine, sizeof(mine));
        sym_fp_text(fp, theirs, sizeof(theirs));
        snprintf(msg, sizeof(msg), "mismatched collectives on %s: this PE called %s, PE %d "
                 "called %s", c->team->name, mine, ch->pe_of[src], theirs);
        sym_chan_poison(c, SYM_ERR_MISMATCH, msg);
        return sym_error(SYM_ERR_MISMATCH, "%s: %s", c->name, msg);
    }
    if (inl) {
        const size_t len = tag & 0xffu;
        if (__builtin_expect(len > INLINE_MAX, 0)) {
            char msg[300];
            snprintf(msg, sizeof(msg), "PE %d wrote an inline chunk of %zu bytes (at most %u "
                     "fit) into this PE's mailbox on %s", ch->pe_of[src], len, INLINE_MAX,
                     c->team->name);
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
    *data_p = (const uint8_t *)hdr + HDR_BYTES;
    if (len_p)
        *len_p = hdr->len;
    if (msg_bytes_p)
        *msg_bytes_p = hdr->msg_bytes;
    return SYM_OK;
}

sym_status_t sym_chan_release(struct sym_coll *c, int src)
{
    struct sym_chan *ch = &c->team->chan;
    if (c->tiny) {
        const uint64_t n = ch->trecvd[src];
        ch->trecvd[src] = n + 1;
        double saved = op_timeout_enter(c);
        sym_status_t st = sym_flag_set(ch->pe_of[src], tcredit_line(ch, c->team->rank), n + 1);
        op_timeout_leave(saved);
        return st;
    }
    const uint64_t n = ch->recvd[src], slot = k_slot(ch, n), use = k_use(ch, n);
    ch->recvd[src] = n + 1;
    double saved = op_timeout_enter(c);
    sym_status_t st = sym_flag_set(ch->pe_of[src], free_off(ch, c->team->rank, slot), use + 1);
    op_timeout_leave(saved);
    return st;
}

sym_status_t sym_chan_flush(struct sym_coll *c, int dst)
{
    struct sym_chan *ch = &c->team->chan;
    if (!c->published)
        publish_call(c);
    const uint64_t tn = ch->tsent[dst];
    if (tn) {
        sym_status_t st = chan_wait(c, tcredit_line(ch, dst), tn, dst,
                                    "consume what this PE sent",
                                    tslot_line(ch, c->team->rank, tn - 1));
        if (st != SYM_OK)
            return st;
    }
    const uint64_t n = ch->sent[dst];
    if (n == 0)
        return SYM_OK;
    /* the last chunk sent used slot (n-1) % k for the ((n-1)/k)-th time */
    const uint64_t last = n - 1, slot = k_slot(ch, last);
    return chan_wait(c, free_off(ch, dst, slot), k_use(ch, last) + 1, dst,
                     "consume what this PE sent", slot_off(ch, c->team->rank, slot));
}

sym_status_t sym_chan_runahead_report(struct sym_team *team, const char *op)
{
    if (!team->chan.ran_ahead || team->broken || !sym_flag_load(team->chan.poison_off))
        return SYM_OK;
    struct sym_coll probe = { .team = team, .name = op };
    probe.fp.seq = team->coll_seq;
    sym_status_t why = sym_chan_poisoned(&probe);
    sym_team_break(team, why, sym_last_error());
    return sym_error(why, "%s: a broadcast or reduce on %s from which this PE returned early "
                     "(run-ahead) failed on another member: %s", op, team->name,
                     team->broken_msg);
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
