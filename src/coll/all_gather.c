/* all_gather.c - sym_all_gather and sym_all_gatherv (naive, ring, rd).
 *
 * Both are written once on bytes: bytes[i] from member i lands at
 * dst + displ[i].  The algorithms accept src either at dst + displ[me]
 * (in place) or disjoint from dst; the wrappers move every other overlap. */
#include <stdlib.h>
#include <string.h>

#include "coll/algorithms.h"
#include "coll/direct.h"

/* Where member b's block lives in dst; NULL for an empty block (dst may be
 * NULL then, and offsetting NULL is undefined). */
static inline uint8_t *slot(void *dst, const size_t *bytes, const size_t *displ, int b)
{
    return bytes[b] ? (uint8_t *)dst + displ[b] : NULL;
}

/* Put this member's own block in place before anything is forwarded from
 * dst. */
static void place_own(struct sym_coll *c, void *dst, const void *src, const size_t *bytes,
                      const size_t *displ)
{
    const int me = c->team->rank;
    uint8_t *own = slot(dst, bytes, displ, me);
    if (own && own != src)
        memcpy(own, src, bytes[me]);
}

/* Chunk columns every member walks: the most chunks of any block. */
static size_t max_chunks(struct sym_coll *c, const size_t *bytes)
{
    size_t m = 1;
    for (int b = 0; b < c->team->size; b++) {
        size_t k = sym_msg_chunks(c, bytes[b]);
        if (k > m)
            m = k;
    }
    return m;
}

/* Every member sends its block to every peer.  Column by column (chunk i
 * to everyone, then chunk i from everyone) so no link ever has more than
 * one column in flight ahead of its receiver. */
sym_status_t sym_all_gatherv_naive(struct sym_coll *c, void *dst, const void *src,
                                   const size_t *bytes, const size_t *displ)
{
    const int n = c->team->size, me = c->team->rank;
    place_own(c, dst, src, bytes, displ);
    const uint8_t *own = slot(dst, bytes, displ, me);
    const size_t cols = max_chunks(c, bytes), mine = sym_msg_chunks(c, bytes[me]);
    for (size_t i = 0; i < cols; i++) {
        sym_status_t st = SYM_OK;
        for (int r = 0; r < n && st == SYM_OK && i < mine; r++)
            if (r != me)
                st = sym_msg_send_chunk(c, r, own, bytes[me], i);
        for (int r = 0; r < n && st == SYM_OK; r++)
            if (r != me && i < sym_msg_chunks(c, bytes[r]))
                st = sym_msg_recv_chunk(c, r, slot(dst, bytes, displ, r), bytes[r], i);
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

/* n-1 steps: at step s a member forwards block me-s to the right and
 * receives block me-s-1 from the left, the all-gather phase of the ring
 * allreduce.  Column j runs all steps before column j+1, and a step only
 * needs the chunk its left neighbour got one step earlier, so columns
 * overlap on the wire. */
sym_status_t sym_all_gatherv_ring(struct sym_coll *c, void *dst, const void *src,
                                  const size_t *bytes, const size_t *displ)
{
    const int n = c->team->size, me = c->team->rank;
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    place_own(c, dst, src, bytes, displ);
    const size_t cols = n > 1 ? max_chunks(c, bytes) : 0;
    for (size_t j = 0; j < cols; j++) {
        for (int s = 0; s < n - 1; s++) {
            const int sb = ((me - s) % n + n) % n, rb = ((me - s - 1) % n + n) % n;
            sym_status_t st = SYM_OK;
            if (j < sym_msg_chunks(c, bytes[sb]))
                st = sym_msg_send_chunk(c, right, slot(dst, bytes, displ, sb), bytes[sb], j);
            if (st == SYM_OK && j < sym_msg_chunks(c, bytes[rb]))
                st = sym_msg_recv_chunk(c, left, slot(dst, bytes, displ, rb), bytes[rb], j);
            if (st != SYM_OK)
                return st;
        }
    }
    return SYM_OK;
}

/* Position in a run of consecutive blocks (first, first+1, ... mod n)
 * travelling as one stream of chunks, block after block. */
struct run {
    int first, nblocks, b; /* b: blocks done */
    size_t chunk;          /* next chunk of block first + b */
};

static inline bool run_done(const struct run *r)
{
    return r->b >= r->nblocks;
}

static inline int run_block(const struct run *r, int n)
{
    return (r->first + r->b) % n;
}

static inline void run_next(struct run *r, struct sym_coll *c, const size_t *bytes, int n)
{
    if (++r->chunk >= sym_msg_chunks(c, bytes[run_block(r, n)])) {
        r->chunk = 0;
        r->b++;
    }
}

/* Recursive doubling on blocks in Bruck's form, which needs no fold for
 * teams that are not powers of two: after the step at distance d a member
 * holds blocks me .. me+2d-1 (mod n), having sent its first min(d, n-d)
 * blocks to member me-d and received as many from member me+d.  Sends and
 * receives alternate chunk by chunk, so a step of any size cannot fill
 * every link at once; ceil(log2 n) steps in all. */
sym_status_t sym_all_gatherv_rd(struct sym_coll *c, void *dst, const void *src, const size_t *bytes,
                                const size_t *displ)
{
    const int n = c->team->size, me = c->team->rank;
    place_own(c, dst, src, bytes, displ);
    for (int d = 1; d < n; d *= 2) {
        const int to = (me - d + n) % n, from = (me + d) % n, k = d < n - d ? d : n - d;
        struct run out = {me, k, 0, 0}, in = {from, k, 0, 0};
        while (!run_done(&out) || !run_done(&in)) {
            sym_status_t st = SYM_OK;
            if (!run_done(&out)) {
                const int b = run_block(&out, n);
                st = sym_msg_send_chunk(c, to, slot(dst, bytes, displ, b), bytes[b], out.chunk);
                run_next(&out, c, bytes, n);
            }
            if (st == SYM_OK && !run_done(&in)) {
                const int b = run_block(&in, n);
                st = sym_msg_recv_chunk(c, from, slot(dst, bytes, displ, b), bytes[b], in.chunk);
                run_next(&in, c, bytes, n);
            }
            if (st != SYM_OK)
                return st;
        }
    }
    return SYM_OK;
}

/* Every member copies every other's block straight out of its buffer. */
sym_status_t sym_all_gatherv_direct(struct sym_coll *c, void *dst, const void *src,
                                    const size_t *bytes, const size_t *displ)
{
    const int n = c->team->size, me = c->team->rank;
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    for (int i = 0; i < n; i++)
        d.dt->dsts[i] = slot(dst, bytes, displ, i);
    sym_status_t st = sym_dcall_offer(&d, 1, src, bytes[me], 0, 0,
                                      (struct sym_dreaders){.all = true, .one = -1}, NULL, NULL);
    if (st == SYM_OK)
        st = sym_dcall_view_all(&d, 1, d.dt->views);
    for (int i = 0; i < n && st == SYM_OK; i++)
        if (i != me && d.dt->views[i].rlen != bytes[i])
            st = sym_error(SYM_ERR_INTERNAL,
                           "%s: member %d offers %llu bytes where %zu were expected", c->name, i,
                           (unsigned long long)d.dt->views[i].rlen, bytes[i]);
    if (st == SYM_OK)
        st = sym_direct_copy_all(&d, d.dt->views, n, d.dt->dsts);
    if (st == SYM_OK && bytes[me] && d.dt->dsts[me] != src)
        memmove(d.dt->dsts[me], src, bytes[me]);
    return st == SYM_OK ? sym_dcall_end(&d) : st;
}

static const sym_all_gatherv_fn all_gather_algorithms[] = {SYM_ALL_GATHERV_ALGOS(SYM_ALGO_ENTRY)};

/* The part both wrappers share, from a prepared call on: choose, start,
 * normalise src, run.  bytes/displ are owned by the caller. */
static sym_status_t all_gather_run(struct sym_coll *c, const sym_coll_opts_t *opts, void *dst,
                                   const void *src, const size_t *bytes, const size_t *displ)
{
    struct sym_team *team = c->team;
    const int n = team->size, me = team->rank;
    const size_t total = displ[n - 1] + bytes[n - 1];
    sym_status_t st = sym_coll_select(c, opts, total);
    if (st != SYM_OK)
        return st;
    sym_coll_start(c);
    size_t largest = 0; /* every message is one block */
    for (int i = 0; i < n; i++)
        largest = bytes[i] > largest ? bytes[i] : largest;
    sym_chan_use_cells(c, largest);
    uint8_t *own = slot(dst, bytes, displ, me);
    if (own && src != own && sym_overlaps(dst, total, src, bytes[me])) {
        /* src lies in dst but elsewhere than our slot: moving it there
         * first leaves every other byte of dst free to be received into */
        memmove(own, src, bytes[me]);
        src = own;
    }
    return sym_coll_end(c, all_gather_algorithms[c->fp.algo](c, dst, src, bytes, displ));
}

sym_status_t sym_all_gather_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                   sym_datatype_t dt, const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    if (count && (!dst || !src))
        return sym_error(SYM_ERR_INVALID_ARG, "sym_all_gather: NULL %s buffer for %zu elements",
                         dst ? "src" : "dst", count);
    struct sym_coll c;
    sym_status_t st =
        sym_coll_prepare(&c, "sym_all_gather", team, SYM_COLL_ALL_GATHER, dt, 0, count, -1, opts);
    if (st != SYM_OK)
        return st;
    const int n = team->size;
    const size_t es = sym_datatype_size(dt);
    /* n blocks of count elements fit: sym_coll_prepare checked it */
    size_t *bytes = malloc(2 * (size_t)n * sizeof(size_t));
    if (!bytes)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_all_gather: out of memory");
    size_t *displ = bytes + n;
    for (int i = 0; i < n; i++) {
        bytes[i] = count * es;
        displ[i] = (size_t)i * count * es;
    }
    st = all_gather_run(&c, opts, dst, src, bytes, displ);
    free(bytes);
    return st;
}

sym_status_t sym_all_gatherv_nolock(sym_team_t team, void *dst, const void *src,
                                    const size_t *counts, sym_datatype_t dt,
                                    const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    if (!counts)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_all_gatherv: NULL counts");
    /* the total goes into the fingerprint, so the team must be known first */
    sym_status_t st = sym_team_check("sym_all_gatherv", team);
    if (st != SYM_OK)
        return st;
    const int n = team->size, me = team->rank;
    const size_t es = sym_datatype_size(dt);
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        if (counts[i] > SIZE_MAX - total)
            return sym_error(SYM_ERR_INVALID_ARG, "sym_all_gatherv: counts overflow the "
                                                  "address space");
        total += counts[i];
    }
    if (es && total > SIZE_MAX / es)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_all_gatherv: %zu elements overflow the "
                         "address space",
                         total);
    if (total && !dst)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_all_gatherv: NULL dst buffer for %zu "
                         "elements",
                         total);
    if (counts[me] && !src)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_all_gatherv: NULL src buffer for %zu "
                         "elements",
                         counts[me]);
    struct sym_coll c;
    /* members that disagree on the total differ at their first chunk */
    st =
        sym_coll_prepare(&c, "sym_all_gatherv", team, SYM_COLL_ALL_GATHERV, dt, 0, total, -1, opts);
    if (st != SYM_OK)
        return st;
    /* the same total split differently is caught by a hash of the split */
    uint32_t h = 2166136261u;
    for (int i = 0; i < n; i++)
        h = (h ^ (uint32_t)(counts[i] ^ (counts[i] >> 32))) * 16777619u;
    c.fp.layout = h;
    size_t *bytes = malloc(2 * (size_t)n * sizeof(size_t));
    if (!bytes)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_all_gatherv: out of memory");
    size_t *displ = bytes + n;
    for (int i = 0; i < n; i++) {
        bytes[i] = counts[i] * es;
        displ[i] = i ? displ[i - 1] + bytes[i - 1] : 0;
    }
    st = all_gather_run(&c, opts, dst, src, bytes, displ);
    free(bytes);
    return st;
}
