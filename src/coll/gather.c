/* gather.c - sym_gather: naive, tree (binomial). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/algorithms.h"
#include "coll/direct.h"
#include "coll/subtree.h"

/* An empty gather may come with NULL buffers: never offset NULL. */
static inline uint8_t *at(void *p, size_t off)
{
    return off ? (uint8_t *)p + off : p;
}

/* The root copies its own block first: after that its src is never read
 * again, so dst may overlap src in any way without staging. */
static void own_block(void *dst, const void *src, size_t bytes, int root)
{
    if (bytes)
        memmove(at(dst, (size_t)root * bytes), src, bytes);
}

/* Every non-root sends its block straight to the root, which takes chunk
 * column i from every member in rank order before column i + 1, so every
 * sender keeps streaming through its two slots. */
sym_status_t sym_gather_naive(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                              int root)
{
    const int n = c->team->size, me = c->team->rank;
    if (me != root) {
        return sym_msg_send(c, root, src, bytes);
    }
    own_block(dst, src, bytes, root);
    const size_t nch = sym_msg_chunks(c, bytes);
    for (size_t i = 0; i < nch; i++)
        for (int r = 0; r < n; r++) {
            if (r == me)
                continue;
            sym_status_t st = sym_msg_recv_chunk(c, r, at(dst, (size_t)r * bytes), bytes, i);
            if (st != SYM_OK)
                return st;
        }
    return SYM_OK;
}

/* Binomial tree (subtree.h): a member forwards its whole range to its
 * parent as one message, each outgoing chunk sent as soon as the bytes it
 * covers have arrived, so data streams up the tree. */
/* The root receives chunk i of child v + mask's range and stores it in
 * real rank order: relative byte x is real byte x + root * bytes, modulo
 * the whole buffer, so a range may wrap around the end of dst. */
static sym_status_t recv_rotated(const struct subtree *t, uint8_t *dst, int mask, size_t i)
{
    struct sym_coll *c = t->c;
    const int child = real_rank(t, mask);
    const size_t cb = child_bytes(t, mask), whole = (size_t)t->n * t->bytes;
    const void *data;
    size_t len;
    uint64_t total;
    sym_status_t st = sym_chan_recv_msg(c, child, cb, &data, &len, &total);
    if (st != SYM_OK)
        return st;
    if (total != cb || len != sym_msg_chunk_len(c, cb, i)) {
        /* sizes follow from the fingerprint, which matched */
        char msg[200];
        snprintf(msg, sizeof(msg), "gather tree: PE %d sent a %llu-byte range where %zu were due",
                 c->team->pe_of[child], (unsigned long long)total, cb);
        sym_chan_poison(c, SYM_ERR_INTERNAL, msg);
        return sym_error(SYM_ERR_INTERNAL, "%s: %s", c->name, msg);
    }
    if (len) {
        size_t r = (size_t)mask * t->bytes + i * c->team->chan.chunk + (size_t)t->root * t->bytes;
        if (r >= whole)
            r -= whole;
        const size_t first = len < whole - r ? len : whole - r;
        memcpy(dst + r, data, first);
        memcpy(dst, (const uint8_t *)data + first, len - first);
    }
    return sym_chan_release(c, child);
}

static sym_status_t gather_tree_root(const struct subtree *t, void *dst)
{
    size_t columns = 0;
    for (int mask = 1; has_child(t, mask); mask <<= 1) {
        size_t k = sym_msg_chunks(t->c, child_bytes(t, mask));
        if (k > columns)
            columns = k;
    }
    /* column by column over the children keeps every subtree streaming */
    for (size_t i = 0; i < columns; i++)
        for (int mask = 1; has_child(t, mask); mask <<= 1) {
            if (i >= sym_msg_chunks(t->c, child_bytes(t, mask)))
                continue;
            sym_status_t st = recv_rotated(t, dst, mask, i);
            if (st != SYM_OK)
                return st;
        }
    return SYM_OK;
}

/* An inner member: pull its children's ranges in order into `range`
 * (own block already at its start) and push chunks up as they fill. */
static sym_status_t gather_tree_inner(const struct subtree *t, uint8_t *range, size_t total)
{
    struct sym_coll *c = t->c;
    const int parent = real_rank(t, t->v - t->low);
    const size_t nout = sym_msg_chunks(c, total), ck = c->team->chan.chunk;
    size_t have = t->bytes, ci = 0;
    int mask = 1;
    sym_status_t st = SYM_OK;
    for (size_t i = 0; i < nout && st == SYM_OK; i++) {
        const size_t need = (i + 1) * ck < total ? (i + 1) * ck : total;
        /* before the last chunk, take every child message, even empty ones */
        while (st == SYM_OK && has_child(t, mask) && (have < need || i + 1 == nout)) {
            const size_t cb = child_bytes(t, mask);
            st = sym_msg_recv_chunk(c, real_rank(t, t->v + mask),
                                    at(range, (size_t)mask * t->bytes), cb, ci);
            have += sym_msg_chunk_len(c, cb, ci);
            if (++ci == sym_msg_chunks(c, cb)) {
                ci = 0;
                mask <<= 1;
            }
        }
        if (st == SYM_OK)
            st = sym_msg_send_chunk(c, parent, range, total, i);
    }
    return st;
}

sym_status_t sym_gather_tree(struct sym_coll *c, void *dst, const void *src, size_t bytes, int root)
{
    const int n = c->team->size, v = (c->team->rank - root + n) % n;
    struct subtree t = {c, n, v, root, v ? v & -v : n, bytes};
    if (v == 0) {
        own_block(dst, src, bytes, root);
        return gather_tree_root(&t, dst);
    }
    const int parent = real_rank(&t, v - t.low);
    const int span = n - v < t.low ? n - v : t.low;
    if (span == 1) { /* a leaf sends its src as it is */
        return sym_msg_send(c, parent, src, bytes);
    }
    const size_t total = (size_t)span * bytes;
    uint8_t *range = NULL;
    if (bytes) { /* then total >= 2 * bytes: sym_gather checked it fits */
        /* kept between calls: a fresh 64 MiB malloc is a fresh mmap whose
         * page faults made a 64 MiB gather 18x slower than a 16 MiB one */
        if (!(range = sym_team_scratch(c->team, 1, total)))
            return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", c->name, total);
        memcpy(range, src, bytes);
    }
    return gather_tree_inner(&t, range, total);
}

/* The root copies every member's block straight out of its buffer. */
sym_status_t sym_gather_direct(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                               int root)
{
    const int n = c->team->size, me = c->team->rank;
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    if (me != root) {
        sym_status_t st = sym_dcall_offer(
            &d, 1, src, bytes, 0, 0, (struct sym_dreaders){.all = false, .one = root}, NULL, NULL);
        return st == SYM_OK ? sym_dcall_end(&d) : st;
    }
    struct sym_dview *views = d.dt->views;
    uint8_t **dsts = d.dt->dsts;
    for (int i = 0; i < n; i++)
        dsts[i] = bytes ? (uint8_t *)dst + (size_t)i * bytes : NULL;
    own_block(dst, src, bytes, root); /* first, as in the naive gather */
    sym_status_t st = sym_dcall_view_all(&d, 1, views);
    if (st == SYM_OK)
        st = sym_direct_copy_all(&d, views, n, dsts);
    return st == SYM_OK ? sym_dcall_end(&d) : st;
}

static const sym_gather_fn gather_algorithms[] = {SYM_GATHER_ALGOS(SYM_ALGO_ENTRY)};

/* gather and scatter, from the arguments on: every member's own block
 * (gather's src, scatter's dst) must be there, the root's n blocks only at
 * the root. */
sym_status_t sym_rooted_move(enum sym_coll_kind kind, const sym_gather_fn *table, sym_team_t team,
                             void *dst, const void *src, size_t count, sym_datatype_t dt, int root,
                             const sym_coll_opts_t *opts)
{
    const bool gather = kind == SYM_COLL_GATHER;
    const char *name = gather ? "sym_gather" : "sym_scatter";
    struct sym_coll c;
    sym_status_t st = sym_coll_prepare(&c, name, team, kind, dt, 0, count, root, opts);
    if (st != SYM_OK)
        return st;
    const void *own = gather ? src : dst, *all = gather ? (const void *)dst : src;
    if (count && (!own || (team->rank == root && !all)))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: NULL %s buffer for %zu elements", name,
                         (!own) == gather ? "src" : "dst", count);
    const size_t bytes = count * sym_datatype_size(dt); /* sym_coll_prepare: n of them fit */
    st = sym_coll_select(&c, opts, (uint64_t)team->size * bytes);
    if (st != SYM_OK)
        return st;
    sym_coll_start(&c);
    sym_chan_use_cells_per_link(&c); /* a link carries one block or subtree */
    return sym_coll_end(&c, table[c.fp.algo](&c, dst, src, bytes, root));
}

sym_status_t sym_gather_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                               sym_datatype_t dt, int root, const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    return sym_rooted_move(SYM_COLL_GATHER, gather_algorithms, team, dst, src, count, dt, root,
                           opts);
}
