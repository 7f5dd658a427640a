/*
 * test_coll_alltoall.c - all_to_all and all_to_allv: one checked call, and their
 * matrix with uniform and ragged block counts.
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

/* all_to_all and all_to_allv: sc(i, j) elements go from member i to j.
 * Modes: OUT, IN (one buffer for both) and OVERLAP (dst starts in the
 * middle of src). */
void check_alltoall(struct tctx *t, bool v, sym_algorithm_t a, sym_datatype_t dt,
                    size_t (*sc)(int from, int to, size_t c), size_t c, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), v ? "all_to_allv" : "all_to_all", t, a, dt, 0, c, -1, m);
    const int n = t->n, me = t->me;
    const size_t es = dt_size(dt);
    const uint64_t salt = next_salt(t);
    size_t scount[HARNESS_MAX_PES], rcount[HARNESS_MAX_PES];
    size_t sdis[HARNESS_MAX_PES], rdis[HARNESS_MAX_PES], stot = 0, rtot = 0;
    for (int j = 0; j < n; j++) {
        scount[j] = sc(me, j, c);
        rcount[j] = sc(j, me, c);
        sdis[j] = stot;
        rdis[j] = rtot;
        stot += scount[j] * es;
        rtot += rcount[j] * es;
    }
    const size_t off = m == OVERLAP ? stot / 2 / es * es : 0;
    const size_t big = stot > off + rtot ? stot : off + rtot;
    struct gbuf s, dbuf;
    gb_alloc(&s, big, SENTINEL);
    gb_alloc(&dbuf, rtot, SENTINEL);
    for (int j = 0; j < n; j++)
        pat_fill(s.p + sdis[j], scount[j] * es, hkey(salt, (uint64_t)me, (uint64_t)j));
    uint8_t *orig = xdup(s.p, big);
    uint8_t *want = xmalloc(rtot);
    for (int i = 0; i < n; i++)
        pat_fill(want + rdis[i], rcount[i] * es, hkey(salt, (uint64_t)i, (uint64_t)me));
    uint8_t *dst = m == OUT ? dbuf.p : s.p + off;
    sym_coll_opts_t o = {.algorithm = a, .timeout_s = 0};
    if (v)
        CALL_OK(sym_all_to_allv(t->team, s.p, scount, dst, rcount, dt, &o), d);
    else
        CALL_OK(sym_all_to_all(t->team, dst, s.p, c, dt, &o), d);
    EXPECT_SAME(dst, want, rtot, es, d);
    /* in place, what lies outside the received data is not the call's */
    if (m == OUT) {
        EXPECT_SAME(s.p, orig, stot, es, d);
    } else {
        EXPECT_KEPT_OUTSIDE(s.p, orig, big, off, rtot, d);
    }
    GB_FINISH(&s, &dbuf, orig, want, d);
}

void all_to_all_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(all_to_all_algos); a++) {
        if (!matrix_wants(all_to_all_algos[a]))
            continue;
        for (int c = 0; c < nc; c++) {
            size_t count = counts[c] == LARGE ? LARGE / (size_t)t->n + 1 : counts[c];
            for (enum mode m = OUT; m <= OVERLAP; m++)
                check_alltoall(t, false, all_to_all_algos[a], matrix_dt(c + m, counts[c]),
                               uniform_count, count, m);
        }
        sym_coll_opts_t o = {.algorithm = all_to_all_algos[a], .timeout_s = 0};
        CALL_OK(sym_all_to_all(t->team, NULL, NULL, 0, SYM_INT64, &o), "count 0, NULL");
    }
}

void all_to_allv_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(all_to_all_algos); a++) {
        if (!matrix_wants(all_to_all_algos[a]))
            continue;
        for (int c = 0; c < nc; c++) {
            size_t count = counts[c] == LARGE ? LARGE / (size_t)t->n + 1 : counts[c];
            for (int ragged = 0; ragged < 2; ragged++)
                for (enum mode m = OUT; m <= OVERLAP; m++)
                    check_alltoall(t, true, all_to_all_algos[a],
                                   matrix_dt(c + ragged + m, counts[c]),
                                   ragged ? ragged_count : uniform_count, count, m);
        }
        sym_coll_opts_t o = {.algorithm = all_to_all_algos[a], .timeout_s = 0};
        size_t zero[HARNESS_MAX_PES] = {0};
        CALL_OK(sym_all_to_allv(t->team, NULL, zero, NULL, zero, SYM_BFLOAT16, &o),
                "counts 0, NULL");
    }
}

MATRIX_TEST(all_to_all)
MATRIX_TEST(all_to_allv)
