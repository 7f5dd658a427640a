/*
 * test_coll_gather.c - all_gather, all_gatherv, gather and scatter: one checked
 * call each, and their matrix.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll_check.h"

/* all_gather and all_gatherv: counts[r] elements from member r, packed.
 * Modes: OUT, OWN (src is this member's place in dst), IN (src == dst),
 * OVERLAP (src in the middle of dst, aligned to no block). */
void check_gatherv_all(struct tctx *t, bool v, sym_algorithm_t a, sym_datatype_t dt,
                       const size_t *counts, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), v ? "all_gatherv" : "all_gather", t, a, dt, 0, counts[t->me], -1, m);
    const size_t es = dt_size(dt);
    const uint64_t salt = next_salt(t);
    size_t displ[HARNESS_MAX_PES], total = 0;
    for (int r = 0; r < t->n; r++) {
        displ[r] = total;
        total += counts[r] * es;
    }
    const size_t mine = counts[t->me] * es;
    uint8_t *want = xmalloc(total);
    for (int r = 0; r < t->n; r++)
        pat_fill(want + displ[r], counts[r] * es, hkey(salt, (uint64_t)r, 1));
    struct gbuf dbuf, s;
    gb_alloc(&dbuf, total, SENTINEL);
    gb_alloc(&s, mine, SENTINEL);
    uint8_t *src = m == OUT   ? s.p
                   : m == OWN ? dbuf.p + displ[t->me]
                   : m == IN  ? dbuf.p
                              : dbuf.p + (total - mine) / 2 / es * es;
    memcpy(src, want + displ[t->me], mine);
    sym_coll_opts_t o = {.algorithm = a, .timeout_s = 0};
    if (v)
        CALL_OK(sym_all_gatherv(t->team, dbuf.p, src, counts, dt, &o), d);
    else
        CALL_OK(sym_all_gather(t->team, dbuf.p, src, counts[0], dt, &o), d);
    EXPECT_SAME(dbuf.p, want, total, es, d);
    if (m == OUT)
        EXPECT_SAME(s.p, want + displ[t->me], mine, es, d);
    GB_FINISH(&dbuf, &s, want, NULL, d);
}

/* gather: modes OUT and OWN (the root's src is its own block of dst);
 * away from the root dst is a sentinel buffer that must stay untouched. */
void check_gather(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, size_t count, int root,
                  enum mode m)
{
    char d[256];
    describe(d, sizeof(d), "gather", t, a, dt, 0, count, root, m);
    const size_t es = dt_size(dt), blk = count * es, total = blk * (size_t)t->n;
    const uint64_t salt = next_salt(t);
    uint8_t *want = xmalloc(total);
    for (int r = 0; r < t->n; r++)
        pat_fill(want + (size_t)r * blk, blk, hkey(salt, (uint64_t)r, 2));
    struct gbuf dbuf, s;
    gb_alloc(&dbuf, total, SENTINEL);
    gb_alloc(&s, blk, SENTINEL);
    const bool is_root = t->me == root;
    uint8_t *src = m == OWN && is_root ? dbuf.p + (size_t)root * blk : s.p;
    memcpy(src, want + (size_t)t->me * blk, blk);
    sym_coll_opts_t o = {.algorithm = a, .timeout_s = 0};
    CALL_OK(sym_gather(t->team, dbuf.p, src, count, dt, root, &o), d);
    if (is_root)
        EXPECT_SAME(dbuf.p, want, total, es, d);
    else
        EXPECT_UNTOUCHED(dbuf.p, total, d);
    if (src == s.p)
        EXPECT_SAME(s.p, want + (size_t)t->me * blk, blk, es, d);
    GB_FINISH(&dbuf, &s, want, NULL, d);
}

/* scatter: modes OUT and OWN (the root's dst is its own block of src). */
void check_scatter(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, size_t count, int root,
                   enum mode m)
{
    char d[256];
    describe(d, sizeof(d), "scatter", t, a, dt, 0, count, root, m);
    const size_t es = dt_size(dt), blk = count * es, total = blk * (size_t)t->n;
    const uint64_t salt = next_salt(t);
    const bool is_root = t->me == root;
    struct gbuf s, dbuf;
    gb_alloc(&s, total, SENTINEL);
    gb_alloc(&dbuf, blk, SENTINEL);
    if (is_root)
        for (int j = 0; j < t->n; j++)
            pat_fill(s.p + (size_t)j * blk, blk, hkey(salt, (uint64_t)root, (uint64_t)j));
    uint8_t *orig = xdup(s.p, total);
    uint8_t *want = xmalloc(blk);
    pat_fill(want, blk, hkey(salt, (uint64_t)root, (uint64_t)t->me));
    uint8_t *dst = m == OWN && is_root ? s.p + (size_t)root * blk : dbuf.p;
    sym_coll_opts_t o = {.algorithm = a, .timeout_s = 0};
    CALL_OK(sym_scatter(t->team, dst, s.p, count, dt, root, &o), d);
    EXPECT_SAME(dst, want, blk, es, d);
    /* the root's own block already holds its result: src stays as it was */
    EXPECT_SAME(s.p, orig, total, 1, d);
    GB_FINISH(&s, &dbuf, orig, want, d);
}

void all_gather_matrix(struct tctx *t)
{
    size_t counts[6], per[HARNESS_MAX_PES];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(all_gather_algos); a++) {
        if (!matrix_wants(all_gather_algos[a]))
            continue;
        for (int c = 0; c < nc; c++) {
            for (int r = 0; r < t->n; r++)
                per[r] = counts[c];
            for (enum mode m = OUT; m <= OWN; m++)
                check_gatherv_all(t, false, all_gather_algos[a], matrix_dt(c + m, counts[c]), per,
                                  m);
        }
        sym_coll_opts_t o = {.algorithm = all_gather_algos[a], .timeout_s = 0};
        CALL_OK(sym_all_gather(t->team, NULL, NULL, 0, SYM_UINT8, &o), "count 0, NULL");
    }
}

void all_gatherv_matrix(struct tctx *t)
{
    size_t counts[6], per[HARNESS_MAX_PES];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(all_gatherv_algos); a++) {
        if (!matrix_wants(all_gatherv_algos[a]))
            continue;
        for (int c = 0; c < nc; c++)
            for (int ragged = 0; ragged < 2; ragged++) {
                /* ragged: every third member sends nothing, the others differ */
                for (int r = 0; r < t->n; r++)
                    per[r] = !ragged ? counts[c] : r % 3 == 1 ? 0 : counts[c] + (size_t)r;
                for (enum mode m = OUT; m <= OWN; m += m == OUT ? 2 : 1)
                    check_gatherv_all(t, true, all_gatherv_algos[a],
                                      matrix_dt(c + ragged + m, counts[c]), per, m);
            }
        sym_coll_opts_t o = {.algorithm = all_gatherv_algos[a], .timeout_s = 0};
        size_t zero[HARNESS_MAX_PES] = {0};
        CALL_OK(sym_all_gatherv(t->team, NULL, NULL, zero, SYM_FLOAT, &o), "counts 0, NULL");
    }
}

void gather_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(gather_algos); a++) {
        if (!matrix_wants(gather_algos[a]))
            continue;
        for (int c = 0; c < nc; c++)
            for (int root = 0; root < t->n; root++)
                if (root_wanted(t, counts[c], root))
                    for (enum mode m = OUT; m <= OWN; m += 3)
                        check_gather(t, gather_algos[a], matrix_dt(c + root + m, counts[c]),
                                     counts[c], root, m);
        sym_coll_opts_t o = {.algorithm = gather_algos[a], .timeout_s = 0};
        CALL_OK(sym_gather(t->team, NULL, NULL, 0, SYM_INT8, 0, &o), "count 0, NULL");
    }
}

void scatter_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(gather_algos); a++) {
        if (!matrix_wants(gather_algos[a]))
            continue;
        for (int c = 0; c < nc; c++)
            for (int root = 0; root < t->n; root++)
                if (root_wanted(t, counts[c], root))
                    for (enum mode m = OUT; m <= OWN; m += 3)
                        check_scatter(t, gather_algos[a], matrix_dt(c + root + m, counts[c]),
                                      counts[c], root, m);
        sym_coll_opts_t o = {.algorithm = gather_algos[a], .timeout_s = 0};
        CALL_OK(sym_scatter(t->team, NULL, NULL, 0, SYM_UINT32, t->n - 1, &o), "count 0, NULL");
    }
}

MATRIX_TEST(all_gather)
MATRIX_TEST(all_gatherv)
MATRIX_TEST(gather)
MATRIX_TEST(scatter)
