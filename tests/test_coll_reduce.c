/*
 * test_coll_reduce.c - reduce, allreduce and reduce_scatter: one checked call each
 * (against the locally computed reference), and their matrix.
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

/* Reduce and allreduce share the set-up: mode OUT (separate dst), IN
 * (dst == src) or OVERLAP (dst one element after src). */
void check_reduction(struct tctx *t, bool rooted, sym_algorithm_t a, sym_datatype_t dt, sym_op_t op,
                     size_t count, int root, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), rooted ? "reduce" : "allreduce", t, a, dt, op, count, root, m);
    const size_t es = dt_size(dt), bytes = count * es;
    const struct red r = {dt, op, next_salt(t)};
    const bool gets = !rooted || t->me == root;
    struct gbuf s, o_dst;
    gb_alloc(&s, bytes + es, SENTINEL);
    gb_alloc(&o_dst, bytes, SENTINEL);
    red_fill(&r, s.p, t->me, 0, count);
    uint8_t *orig = xdup(s.p, bytes + es);
    uint8_t *dst = m == OUT ? o_dst.p : m == IN ? s.p : s.p + es;
    /* dst is ignored away from the root: sometimes NULL there */
    if (!gets && m == OUT && (root + (int)count) % 2)
        dst = NULL;
    sym_coll_opts_t o = {.algorithm = a, .timeout_s = 0};
    if (rooted)
        CALL_OK(sym_reduce(t->team, dst, s.p, count, dt, op, root, &o), d);
    else
        CALL_OK(sym_allreduce(t->team, dst, s.p, count, dt, op, &o), d);
    if (gets) {
        uint8_t *want = xmalloc(bytes);
        red_ref(&r, want, t->n, 0, count);
        EXPECT_SAME(dst, want, bytes, es, d);
        free(want);
    } else {
        EXPECT_UNTOUCHED(o_dst.p, bytes, d);
    }
    if (m == OUT || !gets) /* src is const: unchanged unless it is the destination */
        EXPECT_SAME(s.p, orig, bytes + es, 1, d);
    GB_FINISH(&s, &o_dst, orig, NULL, d);
}

/* Modes: OUT, IN (dst == src, the first block), OWN (dst is this
 * member's own block of src) and OVERLAP (dst straddles the middle of src,
 * aligned to no block). */
void check_reduce_scatter(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, sym_op_t op,
                          size_t count, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), "reduce_scatter", t, a, dt, op, count, -1, m);
    const size_t es = dt_size(dt), blk = count * es, total = blk * (size_t)t->n;
    const struct red r = {dt, op, next_salt(t)};
    struct gbuf s, o_dst;
    gb_alloc(&s, total, SENTINEL);
    gb_alloc(&o_dst, blk, SENTINEL);
    red_fill(&r, s.p, t->me, 0, count * (size_t)t->n);
    uint8_t *orig = xdup(s.p, total);
    uint8_t *dst = m == OUT   ? o_dst.p
                   : m == IN  ? s.p
                   : m == OWN ? s.p + (size_t)t->me * blk
                              : s.p + (total - blk) / 2 / es * es;
    sym_coll_opts_t o = {.algorithm = a, .timeout_s = 0};
    CALL_OK(sym_reduce_scatter(t->team, dst, s.p, count, dt, op, &o), d);
    uint8_t *want = xmalloc(blk);
    red_ref(&r, want, t->n, (size_t)t->me * count, count);
    EXPECT_SAME(dst, want, blk, es, d);
    /* the rest of src is input only */
    if (m == OUT)
        EXPECT_SAME(s.p, orig, total, 1, d);
    else
        EXPECT_KEPT_OUTSIDE(s.p, orig, total, (size_t)(dst - s.p), blk, d);
    GB_FINISH(&s, &o_dst, want, orig, d);
}

void reduce_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(reduce_algos); a++) {
        if (!matrix_wants(reduce_algos[a]))
            continue;
        for (int c = 0; c < nc; c++)
            for (int root = 0; root < t->n; root++) {
                if (!root_wanted(t, counts[c], root))
                    continue;
                for (enum mode m = OUT; m <= OVERLAP; m++)
                    check_reduction(t, true, reduce_algos[a], matrix_dt(c + root + m, counts[c]),
                                    SYM_OP_SUM, counts[c], root, m);
            }
        sym_coll_opts_t o = {.algorithm = reduce_algos[a], .timeout_s = 0};
        CALL_OK(sym_reduce(t->team, NULL, NULL, 0, SYM_INT32, SYM_OP_SUM, 0, &o), "count 0, NULL");
    }
}

void allreduce_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(allreduce_algos); a++) {
        if (!matrix_wants(allreduce_algos[a]))
            continue;
        for (int c = 0; c < nc; c++)
            for (enum mode m = OUT; m <= OVERLAP; m++)
                check_reduction(t, false, allreduce_algos[a], matrix_dt(c + m, counts[c]),
                                SYM_OP_SUM, counts[c], -1, m);
        sym_coll_opts_t o = {.algorithm = allreduce_algos[a], .timeout_s = 0};
        CALL_OK(sym_allreduce(t->team, NULL, NULL, 0, SYM_DOUBLE, SYM_OP_MAX, &o), "count 0, NULL");
    }
}

void reduce_scatter_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(reduce_scatter_algos); a++) {
        if (!matrix_wants(reduce_scatter_algos[a]))
            continue;
        for (int c = 0; c < nc; c++) {
            /* n blocks of LARGE would be n times the work of the others */
            size_t count = counts[c] == LARGE ? LARGE / (size_t)t->n + 1 : counts[c];
            for (enum mode m = OUT; m <= OWN; m++)
                check_reduce_scatter(t, reduce_scatter_algos[a], matrix_dt(c + m, counts[c]),
                                     SYM_OP_SUM, count, m);
        }
        sym_coll_opts_t o = {.algorithm = reduce_scatter_algos[a], .timeout_s = 0};
        CALL_OK(sym_reduce_scatter(t->team, NULL, NULL, 0, SYM_INT16, SYM_OP_BXOR, &o),
                "count 0, NULL");
    }
}

MATRIX_TEST(reduce)
MATRIX_TEST(allreduce)
MATRIX_TEST(reduce_scatter)
