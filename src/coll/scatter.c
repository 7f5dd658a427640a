/* scatter.c - sym_scatter: naive, tree (binomial). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/algorithms.h"
#include "coll/direct.h"
#include "coll/subtree.h"

/* An empty scatter may come with NULL buffers: never offset NULL. */
static inline const uint8_t *at(const void *p, size_t off)
{
    return off ? (const uint8_t *)p + off : p;
}

/* The root writes its own dst block last: a send copies the data out of
 * src before it returns, so after the last send src is no longer needed
 * and dst may overlap it in any way without staging. */
static void own_block(void *dst, const void *src, size_t bytes, int root)
{
    if (bytes)
        memmove(dst, at(src, (size_t)root * bytes), bytes);
}

/* The root sends chunk column i of every block, in rank order, before
 * column i + 1, and returns once it is in the receivers' slots. */
sym_status_t sym_scatter_naive(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                               int root)
{
    const int n = c->team->size, me = c->team->rank;
    if (me != root)
        return sym_msg_recv(c, root, dst, bytes);
    const size_t nch = sym_msg_chunks(c, bytes);
    for (size_t i = 0; i < nch; i++)
        for (int r = 0; r < n; r++) {
            if (r == me)
                continue;
            sym_status_t st = sym_msg_send_chunk(c, r, at(src, (size_t)r * bytes), bytes, i);
            if (st != SYM_OK)
                return st;
        }
    own_block(dst, src, bytes, root);
    return SYM_OK;
}

/* Binomial tree (subtree.h), the mirror of the gather tree: a member
 * receives its subtree's blocks from its parent and passes each child's
 * range on chunk by chunk as soon as it has arrived. */
/* The root sends chunk i of child v + mask's range out of src, which is in
 * real rank order: relative byte x is real byte x + root * bytes modulo
 * the whole buffer, so a chunk that wraps is assembled in `tmp`. */
static sym_status_t send_rotated(const struct subtree *t, const uint8_t *src, uint8_t *tmp,
                                 int mask, size_t i)
{
    struct sym_coll *c = t->c;
    const size_t cb = child_bytes(t, mask), whole = (size_t)t->n * t->bytes;
    const size_t len = sym_msg_chunk_len(c, cb, i);
    const uint8_t *p = NULL;
    if (len) {
        size_t r = (size_t)mask * t->bytes + i * c->team->chan.chunk + (size_t)t->root * t->bytes;
        if (r >= whole)
            r -= whole;
        if (len <= whole - r) {
            p = src + r;
        } else {
            memcpy(tmp, src + r, whole - r);
            memcpy(tmp + (whole - r), src, len - (whole - r));
            p = tmp;
        }
    }
    return sym_chan_send(c, real_rank(t, mask), p, len, cb);
}

static sym_status_t scatter_tree_root(const struct subtree *t, void *dst, const void *src)
{
    struct sym_coll *c = t->c;
    int top = 1;
    size_t columns = 0;
    for (int mask = 1; has_child(t, mask); mask <<= 1) {
        size_t k = sym_msg_chunks(c, child_bytes(t, mask));
        if (k > columns)
            columns = k;
        top = mask;
    }
    uint8_t *tmp = malloc(c->team->chan.chunk); /* for chunks that wrap around */
    if (!tmp)
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", c->name);
    sym_status_t st = SYM_OK;
    /* largest subtree first in each column: it has the longest way down */
    for (size_t i = 0; i < columns && st == SYM_OK; i++)
        for (int mask = top; mask > 0 && st == SYM_OK; mask >>= 1)
            if (i < sym_msg_chunks(c, child_bytes(t, mask)))
                st = send_rotated(t, src, tmp, mask, i);
    free(tmp);
    if (st == SYM_OK)
        own_block(dst, src, t->bytes, t->root);
    return st;
}

/* An inner member: receive its range into `range` and, after each chunk,
 * send every child chunk whose bytes are now all there. */
static sym_status_t scatter_tree_inner(const struct subtree *t, uint8_t *range, size_t total)
{
    struct sym_coll *c = t->c;
    const int parent = real_rank(t, t->v - t->low);
    const size_t nin = sym_msg_chunks(c, total), ck = c->team->chan.chunk;
    size_t next[sizeof(int) * 8] = {0}; /* per child (bit of its mask): next chunk */
    size_t have = 0;
    sym_status_t st = SYM_OK;
    for (size_t i = 0; i < nin && st == SYM_OK; i++) {
        st = sym_msg_recv_chunk(c, parent, range, total, i);
        have += sym_msg_chunk_len(c, total, i);
        for (int b = 0; has_child(t, 1 << b) && st == SYM_OK; b++) {
            const int mask = 1 << b;
            const size_t off = (size_t)mask * t->bytes, cb = child_bytes(t, mask);
            while (st == SYM_OK && next[b] < sym_msg_chunks(c, cb) &&
                   off + next[b] * ck + sym_msg_chunk_len(c, cb, next[b]) <= have) {
                st = sym_msg_send_chunk(c, real_rank(t, t->v + mask), at(range, off), cb, next[b]);
                next[b]++;
            }
        }
    }
    return st;
}

sym_status_t sym_scatter_tree(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                              int root)
{
    const int n = c->team->size, v = (c->team->rank - root + n) % n;
    struct subtree t = {c, n, v, root, v ? v & -v : n, bytes};
    if (v == 0)
        return scatter_tree_root(&t, dst, src);
    const int parent = real_rank(&t, v - t.low);
    const int span = n - v < t.low ? n - v : t.low;
    if (span == 1) /* a leaf receives straight into dst */
        return sym_msg_recv(c, parent, dst, bytes);
    const size_t total = (size_t)span * bytes;
    uint8_t *range = NULL;
    /* kept between calls, as in sym_gather_tree */
    if (total && !(range = sym_team_scratch(c->team, 1, total)))
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", c->name, total);
    sym_status_t st = scatter_tree_inner(&t, range, total);
    if (st == SYM_OK && range) /* range is NULL only when nothing moves */
        memcpy(dst, range, bytes);
    return st;
}

/* Every member copies its block straight out of the root's buffer. */
sym_status_t sym_scatter_direct(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                                int root)
{
    const int n = c->team->size, me = c->team->rank;
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    sym_status_t st;
    if (me == root) {
        size_t *roff = d.dt->roff, *rlen = d.dt->rlen;
        for (int i = 0; i < n; i++) {
            roff[i] = (size_t)i * bytes;
            rlen[i] = bytes;
        }
        st = sym_dcall_offer(&d, 1, src, (size_t)n * bytes, (size_t)me * bytes,
                             (size_t)(me + 1) * bytes,
                             (struct sym_dreaders){.all = true, .one = -1}, roff, rlen);
        /* dst may overlap any member's block: written once every reader
         * is done with src, as in the naive scatter */
        if (st == SYM_OK)
            st = sym_dcall_end(&d);
        if (st == SYM_OK)
            own_block(dst, src, bytes, root);
        return st;
    } else {
        struct sym_dview v;
        uint8_t *to = dst;
        st = sym_dcall_view(&d, 1, root, &v);
        if (st == SYM_OK)
            st = sym_direct_copy_all(&d, &v, 1, &to);
    }
    return st == SYM_OK ? sym_dcall_end(&d) : st;
}

static const sym_scatter_fn scatter_algorithms[] = {SYM_SCATTER_ALGOS(SYM_ALGO_ENTRY)};

sym_status_t sym_scatter_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, int root, const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    return sym_rooted_move(SYM_COLL_SCATTER, scatter_algorithms, team, dst, src, count, dt, root,
                           opts);
}
