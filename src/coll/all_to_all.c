/* all_to_all.c - sym_all_to_all and sym_all_to_allv: naive, pairwise. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/algorithms.h"
#include "coll/chan_private.h"
#include "coll/direct.h"
#include "coll/tuning.h"

/* An empty block may come with a NULL buffer: never offset NULL. */
static inline uint8_t *at(void *p, size_t off)
{
    return off ? (uint8_t *)p + off : p;
}

static inline const uint8_t *cat(const void *p, size_t off)
{
    return off ? (const uint8_t *)p + off : p;
}

/* The end of every call.  With per-PE counts only the receiver of a block
 * can see that its size is wrong: it reports the mismatch, and the sender,
 * which returns once its blocks are in the receivers' slots, learns of it
 * as every sender does (symheap/coll.h).  The own block is copied only
 * after everything else succeeded, so a failed call leaves it untouched. */
static sym_status_t finish(struct sym_coll *c, sym_status_t st, void *dst, const size_t *rbytes,
                           const size_t *rdispl, const void *src, const size_t *sdispl)
{
    const int me = c->team->rank;
    if (st != SYM_OK)
        return st;
    uint8_t *d = at(dst, rdispl[me]);
    const uint8_t *s = cat(src, sdispl[me]);
    if (rbytes[me] && d != s)
        memcpy(d, s, rbytes[me]);
    return SYM_OK;
}

/* Chunk column i of every block goes out to every peer, then column i of
 * every incoming block is taken in: no link ever holds more than the
 * current column, so blocks larger than the mailbox cannot deadlock.
 * Peers are visited starting next to me so that not every PE queues on
 * member 0 first.  In place with identical send and receive layouts is
 * safe: column i of a block is sent before column i is received over it. */
sym_status_t sym_all_to_allv_naive(struct sym_coll *c, void *dst, const size_t *rbytes,
                                   const size_t *rdispl, const void *src, const size_t *sbytes,
                                   const size_t *sdispl)
{
    const int n = c->team->size, me = c->team->rank;
    size_t columns = 0;
    for (int r = 0; r < n; r++) {
        if (r == me)
            continue;
        size_t s = sym_msg_chunks(c, sbytes[r]), q = sym_msg_chunks(c, rbytes[r]);
        if (s > columns)
            columns = s;
        if (q > columns)
            columns = q;
    }
    sym_status_t st = SYM_OK;
    for (size_t i = 0; i < columns && st == SYM_OK; i++) {
        for (int k = 1; k < n && st == SYM_OK; k++) {
            const int r = (me + k) % n;
            if (i < sym_msg_chunks(c, sbytes[r]))
                st = sym_msg_send_chunk(c, r, cat(src, sdispl[r]), sbytes[r], i);
        }
        for (int k = 1; k < n && st == SYM_OK; k++) {
            const int r = (me - k + n) % n;
            if (i < sym_msg_chunks(c, rbytes[r]))
                st = sym_msg_recv_chunk(c, r, at(dst, rdispl[r]), rbytes[r], i);
        }
    }
    return finish(c, st, dst, rbytes, rdispl, src, sdispl);
}

/* Step s pairs me with one destination (me + s) and one source (me - s),
 * so each PE has one incoming and one outgoing stream at a time; the two
 * are interleaved chunk by chunk so a block of any size flows through the
 * two slots of its link. */
sym_status_t sym_all_to_allv_pairwise(struct sym_coll *c, void *dst, const size_t *rbytes,
                                      const size_t *rdispl, const void *src, const size_t *sbytes,
                                      const size_t *sdispl)
{
    const int n = c->team->size, me = c->team->rank;
    sym_status_t st = SYM_OK;
    for (int s = 1; s < n && st == SYM_OK; s++) {
        const int to = (me + s) % n, from = (me - s + n) % n;
        const size_t ns = sym_msg_chunks(c, sbytes[to]), nr = sym_msg_chunks(c, rbytes[from]);
        for (size_t j = 0; (j < ns || j < nr) && st == SYM_OK; j++) {
            if (j < ns)
                st = sym_msg_send_chunk(c, to, cat(src, sdispl[to]), sbytes[to], j);
            if (st == SYM_OK && j < nr)
                st = sym_msg_recv_chunk(c, from, at(dst, rdispl[from]), rbytes[from], j);
        }
    }
    return finish(c, st, dst, rbytes, rdispl, src, sdispl);
}

/* Every member copies its block straight out of every other's buffer,
 * blocks of at least direct.pair_min bytes only; smaller ones go through
 * the mailboxes (the naive algorithm, on the small pairs alone), whose
 * small cells cost less than an announcement and run further ahead.  Both
 * ends of a pair know its size, so they agree on its path; a block's size
 * is checked by its reader, which alone knows both sides. */
sym_status_t sym_all_to_allv_direct(struct sym_coll *c, void *dst, const size_t *rbytes,
                                    const size_t *rdispl, const void *src, const size_t *sbytes,
                                    const size_t *sdispl)
{
    const int n = c->team->size, me = c->team->rank;
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    struct sym_dteam *t = d.dt;
    bool *big_out = t->picks, *big_in = t->picks + n, any_out = false, any_in = false;
    size_t stotal = 0;
    for (int i = 0; i < n; i++) {
        big_out[i] = i != me && sbytes[i] >= sym_tuning.pair_min;
        big_in[i] = i != me && rbytes[i] >= sym_tuning.pair_min;
        any_out |= big_out[i];
        any_in |= big_in[i];
        /* the mailboxes carry the small blocks only (and the own block) */
        t->roff[i] = big_out[i] ? 0 : sbytes[i];
        t->rlen[i] = big_in[i] ? 0 : rbytes[i];
        t->dsts[i] = rbytes[i] ? (uint8_t *)dst + rdispl[i] : NULL;
        if (sdispl[i] + sbytes[i] > stotal)
            stotal = sdispl[i] + sbytes[i];
    }
    sym_status_t st = SYM_OK;
    if (any_out)
        st = sym_dcall_offer(&d, 1, src, stotal, sdispl[me], sdispl[me] + sbytes[me],
                             (struct sym_dreaders){.one = -1, .which = big_out}, sdispl, sbytes);
    if (st == SYM_OK)
        st = sym_all_to_allv_naive(c, dst, t->rlen, rdispl, src, t->roff, sdispl);
    for (int i = 0; i < n && st == SYM_OK; i++) {
        struct sym_dview *v = &t->views[i];
        v->owner = -1;
        if (big_in[i] && (st = sym_dcall_view(&d, 1, i, v)) == SYM_OK && v->rlen != rbytes[i])
            st = sym_chan_chunk_mismatch(c, i, &c->fp, v->rlen, rbytes[i]);
    }
    if (st == SYM_OK && any_in)
        st = sym_direct_copy_all(&d, t->views, n, t->dsts);
    return st == SYM_OK ? sym_dcall_end(&d) : st;
}

static const sym_all_to_allv_fn all_to_all_algorithms[] = {SYM_ALL_TO_ALLV_ALGOS(SYM_ALGO_ENTRY)};

/* Byte layout of one call: per member, the size and offset of the block
 * sent to it and of the block received from it (both packed). */
struct layout {
    size_t *sbytes, *sdispl, *rbytes, *rdispl;
    size_t stotal, rtotal;
};

static void layout_free(struct layout *l)
{
    free(l->sbytes);
    memset(l, 0, sizeof(*l));
}

/* Counts in elements (one array per direction, or a single count for
 * every member when the arrays are NULL) to packed byte offsets.  Sizes
 * that do not fit in size_t are SYM_ERR_INVALID_ARG. */
static sym_status_t layout_make(struct layout *l, const char *name, int n, size_t es,
                                const size_t *send_counts, const size_t *recv_counts, size_t count)
{
    memset(l, 0, sizeof(*l));
    size_t *a = malloc(4 * (size_t)n * sizeof(size_t));
    if (!a)
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory for %d members", name, n);
    l->sbytes = a;
    l->sdispl = a + n;
    l->rbytes = a + 2 * (size_t)n;
    l->rdispl = a + 3 * (size_t)n;
    for (int r = 0; r < n; r++) {
        const size_t sc = send_counts ? send_counts[r] : count;
        const size_t rc = recv_counts ? recv_counts[r] : count;
        if ((es && (sc > SIZE_MAX / es || rc > SIZE_MAX / es)) || sc * es > SIZE_MAX - l->stotal ||
            rc * es > SIZE_MAX - l->rtotal) {
            layout_free(l);
            return sym_error(SYM_ERR_INVALID_ARG,
                             "%s: the blocks of member %d do not fit in "
                             "memory (%zu elements sent, %zu received)",
                             name, r, sc, rc);
        }
        l->sbytes[r] = sc * es;
        l->sdispl[r] = l->stotal;
        l->stotal += sc * es;
        l->rbytes[r] = rc * es;
        l->rdispl[r] = l->rtotal;
        l->rtotal += rc * es;
    }
    return SYM_OK;
}

/* Start and run a prepared, selected call.  The algorithms need src and dst apart,
 * except that naive may work in place when every block is received
 * exactly where it was sent from; anything else is staged through a copy
 * of src. */
static sym_status_t exchange(struct sym_coll *c, void *dst, const void *src, const struct layout *l)
{
    const int me = c->team->rank, n = c->team->size;
    bool same_layout = true;
    for (int r = 0; r < n && same_layout; r++)
        same_layout = l->sbytes[r] == l->rbytes[r];
    const bool in_place_ok = c->fp.algo == SYM_ALGO_NAIVE && same_layout;
    const void *in = src;
    void *copy = NULL;
    if (src == dst ? !in_place_ok : sym_overlaps(dst, l->rtotal, src, l->stotal)) {
        if (!(copy = malloc(l->stotal + 1)))
            return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory to stage %zu bytes", c->name,
                             l->stotal);
        if (l->stotal)
            memcpy(copy, src, l->stotal);
        in = copy;
    }
    sym_coll_start(c);
    sym_chan_use_cells_per_link(c); /* a link carries one block */
    sym_status_t st;
    if (l->sbytes[me] != l->rbytes[me]) {
        /* This PE disagrees with itself: stop every member at once rather
         * than let them wait for blocks this PE will not send. */
        char msg[256];
        snprintf(msg, sizeof(msg), "PE %d sends %zu bytes to itself but expects %zu", sym_rt.me,
                 l->sbytes[me], l->rbytes[me]);
        sym_chan_poison(c, SYM_ERR_MISMATCH, msg);
        st = sym_error(SYM_ERR_MISMATCH, "%s #%llu on %s: %s", c->name,
                       (unsigned long long)c->fp.seq, c->team->name, msg);
    } else {
        st = all_to_all_algorithms[c->fp.algo](c, dst, l->rbytes, l->rdispl, in, l->sbytes,
                                               l->sdispl);
    }
    free(copy);
    return sym_coll_end(c, st);
}

sym_status_t sym_all_to_all_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                   sym_datatype_t dt, const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    if (count && (!dst || !src))
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_all_to_all: NULL %s buffer for %zu elements "
                         "per member",
                         dst ? "src" : "dst", count);
    struct sym_coll c;
    sym_status_t st =
        sym_coll_prepare(&c, "sym_all_to_all", team, SYM_COLL_ALL_TO_ALL, dt, 0, count, -1, opts);
    if (st != SYM_OK)
        return st;
    struct layout l;
    if ((st = layout_make(&l, c.name, team->size, sym_datatype_size(dt), NULL, NULL, count)))
        return st;
    st = sym_coll_select(&c, opts, (uint64_t)team->size * count * sym_datatype_size(dt));
    if (st == SYM_OK)
        st = exchange(&c, dst, src, &l);
    layout_free(&l);
    return st;
}

sym_status_t sym_all_to_allv_nolock(sym_team_t team, const void *src, const size_t *send_counts,
                                    void *dst, const size_t *recv_counts, sym_datatype_t dt,
                                    const sym_coll_opts_t *opts)
{
    SYM_COLL_CALLER();
    if (!recv_counts || !send_counts)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_all_to_allv: NULL %s array",
                         recv_counts ? "send_counts" : "recv_counts");
    /* The counts differ from PE to PE: the fingerprint carries none (the
     * receiver of each block checks its size instead). */
    struct sym_coll c;
    sym_status_t st =
        sym_coll_prepare(&c, "sym_all_to_allv", team, SYM_COLL_ALL_TO_ALLV, dt, 0, 0, -1, opts);
    if (st != SYM_OK)
        return st;
    struct layout l;
    if ((st = layout_make(&l, c.name, team->size, sym_datatype_size(dt), send_counts, recv_counts,
                          0)))
        return st;
    if ((l.rtotal && !dst) || (l.stotal && !src)) {
        const bool no_dst = l.rtotal && !dst;
        const size_t need = no_dst ? l.rtotal : l.stotal;
        layout_free(&l);
        return sym_error(SYM_ERR_INVALID_ARG, "sym_all_to_allv: NULL %s buffer for %zu bytes",
                         no_dst ? "dst" : "src", need);
    }
    st = sym_coll_select(&c, opts, 0);
    if (st == SYM_OK)
        st = exchange(&c, dst, src, &l);
    layout_free(&l);
    return st;
}
