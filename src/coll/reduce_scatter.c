/* reduce_scatter.c - sym_reduce_scatter: naive, ring.
 *
 * src holds n blocks of `count` elements (block b starts at b * count);
 * member b ends with the combination of every member's block b.  The
 * algorithms accept dst either disjoint from src or equal to this member's
 * own block of src (in place); the wrapper stages every other overlap. */
#include <stdlib.h>
#include <string.h>

#include "coll/algorithms.h"
#include "coll/direct.h"

/* Block b of a src of n blocks, or NULL when blocks are empty (src may then
 * be NULL, and offsetting NULL is undefined). */
static inline const uint8_t *block(const void *src, size_t bytes, int b)
{
    return bytes ? (const uint8_t *)src + (size_t)b * bytes : NULL;
}

/* Every member sends block j straight to member j, which combines the n
 * contributions in rank order: the same expression as sym_allreduce_naive,
 * whatever the timing. */
sym_status_t sym_reduce_scatter_naive(struct sym_coll *c, void *dst, const void *src, size_t count,
                                      sym_datatype_t dt, sym_op_t op)
{
    const int n = c->team->size, me = c->team->rank;
    const size_t es = sym_datatype_size(dt), bytes = count * es, ck = c->team->chan.chunk;
    const size_t nch = sym_msg_chunks(c, bytes);
    const uint8_t *own_block = block(src, bytes, me);
    uint8_t *mine = NULL;
    /* in place, member 0's term lands in dst before ours is read */
    if ((void *)own_block == dst && me > 0 && bytes && !(mine = malloc(ck)))
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", c->name);
    sym_status_t st = SYM_OK;
    for (size_t i = 0; i < nch && st == SYM_OK; i++) {
        const size_t len = sym_msg_chunk_len(c, bytes, i);
        const uint8_t *own = len ? own_block + i * ck : NULL;
        uint8_t *d = len ? (uint8_t *)dst + i * ck : NULL;
        for (int r = 0; r < n && st == SYM_OK; r++)
            if (r != me)
                st = sym_msg_send_chunk(c, r, block(src, bytes, r), bytes, i);
        if (st != SYM_OK)
            break;
        if (mine && len) {
            memcpy(mine, own, len);
            own = mine;
        }
        for (int r = 0; r < n && st == SYM_OK; r++) {
            if (r == me) {
                if (!len)
                    continue;
                if (r == 0)
                    memmove(d, own, len);
                else
                    sym_reduce_apply(dt, op, d, own, len / es);
            } else if (r == 0) {
                st = sym_msg_recv_chunk(c, r, dst, bytes, i);
            } else {
                st = sym_msg_recv_reduce_chunk(c, r, dst, bytes, i, dt, op, es);
            }
        }
    }
    free(mine);
    return st;
}

/* The reduce-scatter half of the ring allreduce, with block indices shifted
 * by one so that member b (not b - 1) finishes block b: at step s a member
 * sends its partial of block me-s-1 to the right and folds its own term of
 * block me-s-2 into what arrives from the left.  Chunk columns are
 * pipelined as in the allreduce.  Within a column only the chunk passing
 * through needs storage, so one chunk of scratch replaces a copy of src.
 * Block b is combined as x[b] op (x[b-1] op (... op x[b+1])). */
sym_status_t sym_reduce_scatter_ring(struct sym_coll *c, void *dst, const void *src, size_t count,
                                     sym_datatype_t dt, sym_op_t op)
{
    const int n = c->team->size, me = c->team->rank;
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    const size_t es = sym_datatype_size(dt), bytes = count * es, ck = c->team->chan.chunk;
    if (n == 1) {
        if (bytes && dst != src)
            memmove(dst, src, bytes);
        return SYM_OK;
    }
    uint8_t *partial = NULL;
    if (n > 2 && bytes && !(partial = malloc(ck)))
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", c->name);
    const size_t nch = sym_msg_chunks(c, bytes);
    sym_status_t st = SYM_OK;
    for (size_t j = 0; j < nch && st == SYM_OK; j++) {
        const size_t len = sym_msg_chunk_len(c, bytes, j), off = j * ck;
        for (int s = 0; s < n - 1 && st == SYM_OK; s++) {
            const int sb = ((me - s - 1) % n + n) % n, rb = ((me - s - 2) % n + n) % n;
            /* step 0 sends our own term; later steps forward last step's partial */
            const void *out = !len ? NULL : s == 0 ? block(src, bytes, sb) + off : partial;
            if ((st = sym_chan_send(c, right, out, len, bytes)) != SYM_OK)
                break;
            const void *in;
            size_t got;
            uint64_t total;
            if ((st = sym_chan_recv(c, left, &in, &got, &total)) != SYM_OK)
                break;
            if (got != len || total != bytes) {
                /* the fingerprint carries count and type, so this is a bug */
                st = sym_error(SYM_ERR_INTERNAL,
                               "%s: chunk of %zu bytes (message %llu) from "
                               "member %d where %zu (message %zu) was expected",
                               c->name, got, (unsigned long long)total, left, len, bytes);
                break;
            }
            if (len) {
                /* the last step finishes our own block, straight into dst
                 * (which may be that block of src: apply3 allows aliasing) */
                uint8_t *acc = s == n - 2 ? (uint8_t *)dst + off : partial;
                sym_reduce_apply3(dt, op, acc, block(src, bytes, rb) + off, in, len / es);
            }
            st = sym_chan_release(c, left);
        }
    }
    free(partial);
    return st;
}

/* Member b reduces block b straight out of every member's buffer, in rank
 * order (the same expression as the naive algorithm). */
sym_status_t sym_reduce_scatter_direct(struct sym_coll *c, void *dst, const void *src, size_t count,
                                       sym_datatype_t dt, sym_op_t op)
{
    const int n = c->team->size, me = c->team->rank;
    const size_t bytes = count * sym_datatype_size(dt);
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    for (int i = 0; i < n; i++) {
        d.dt->roff[i] = (size_t)i * bytes;
        d.dt->rlen[i] = bytes;
    }
    /* this PE's own block is read by nobody else */
    sym_status_t st =
        sym_dcall_offer(&d, 1, src, (size_t)n * bytes, (size_t)me * bytes, (size_t)(me + 1) * bytes,
                        (struct sym_dreaders){.all = true, .one = -1}, d.dt->roff, d.dt->rlen);
    if (st == SYM_OK)
        st = sym_dcall_view_all(&d, 1, d.dt->views);
    if (st == SYM_OK)
        st = sym_direct_reduce_all(&d, d.dt->views, n, block(src, bytes, me), dst, bytes, dt, op);
    return st == SYM_OK ? sym_dcall_end(&d) : st;
}

static const sym_reduce_scatter_fn reduce_scatter_algorithms[] = {
    SYM_REDUCE_SCATTER_ALGOS(SYM_ALGO_ENTRY)};

sym_status_t sym_reduce_scatter_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                       sym_datatype_t dt, sym_op_t op, const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    if (count && (!dst || !src))
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_reduce_scatter: NULL %s buffer for %zu elements per member",
                         dst ? "src" : "dst", count);
    struct sym_coll c;
    sym_status_t st = sym_coll_prepare(&c, "sym_reduce_scatter", team, SYM_COLL_REDUCE_SCATTER, dt,
                                       op, count, -1, opts);
    if (st != SYM_OK)
        return st;
    const int n = team->size, me = team->rank;
    const sym_datatype_t acc = sym_acc_type(dt, op);
    const size_t es = sym_datatype_size(dt), aes = sym_datatype_size(acc);
    if (count > SIZE_MAX / aes / (size_t)n)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_reduce_scatter: %d blocks of %zu elements "
                         "overflow the address space",
                         n, count);
    const size_t bytes = count * es;
    st = sym_coll_select(&c, opts, (uint64_t)n * bytes);
    if (st != SYM_OK)
        return st;
    const void *in = src;
    void *out = dst, *scratch = NULL;
    const bool own_block = bytes && dst == (const uint8_t *)src + (size_t)me * bytes;
    size_t scratch_bytes = 0;
    if (acc != dt) /* reduce a wider copy of src, in place in its own block */
        scratch_bytes = (size_t)n * count * aes + 1;
    else if (!own_block && sym_overlaps(dst, bytes, src, (size_t)n * bytes))
        scratch_bytes = bytes; /* dst would clobber blocks still to be sent */
    if (scratch_bytes && !(scratch = sym_team_scratch(team, 0, scratch_bytes)))
        return sym_error(SYM_ERR_NO_MEMORY,
                         "sym_reduce_scatter: out of memory for %d blocks "
                         "of %zu elements",
                         n, count);
    sym_coll_start(&c);
    sym_chan_use_cells(&c, count * aes); /* no message is larger than a block */
    if (acc != dt) {
        sym_to_acc(dt, acc, scratch, src, (size_t)n * count);
        in = scratch;
        out = (uint8_t *)scratch + (size_t)me * count * aes;
    } else if (scratch) {
        out = scratch;
    }
    st = reduce_scatter_algorithms[c.fp.algo](&c, out, in, count, acc, op);
    if (st == SYM_OK)
        sym_from_acc(dt, acc, op, n, dst, out, count);
    return sym_coll_end(&c, st);
}
