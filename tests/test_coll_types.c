/*
 * test_coll_types.c - every datatype x op on the world team, float16/bfloat16
 * accumulation in float, and repeatable bits with inexact floating-point
 * data.
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

/* ------------------------------------------------------------------------ */
/* Every datatype x op, on the world team                                    */
/* ------------------------------------------------------------------------ */

#define TYPES_PE_COUNTS                                                                            \
    {                                                                                              \
        1, 2, 3, 5, 8                                                                              \
    }

/* Each (datatype, op) once with every algorithm, each at its own count. */
static void types_allreduce_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    struct tctx t = world_ctx(10);
    static const struct {
        sym_algorithm_t a;
        size_t count;
    } runs[] = {{SYM_ALGO_TREE, 1},    {SYM_ALGO_NAIVE, 5},     {SYM_ALGO_RD, 13},
                {SYM_ALGO_RING, 1031}, {SYM_ALGO_DIRECT, 4099}, {SYM_ALGO_AUTO, 17}};
    for (size_t d = 0; d < NDTS; d++)
        for (size_t o = 0; o < NOPS; o++) {
            if (!op_valid(all_dts[d], all_ops[o]))
                continue;
            for (size_t k = 0; k < NELEMS(runs); k++)
                check_reduction(&t, false, runs[k].a, all_dts[d], all_ops[o], runs[k].count, -1,
                                (enum mode)((d + o + k) % 3));
        }
}

static void types_reduce_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    struct tctx t = world_ctx(11);
    for (size_t d = 0; d < NDTS; d++)
        for (size_t o = 0; o < NOPS; o++) {
            if (!op_valid(all_dts[d], all_ops[o]))
                continue;
            for (size_t k = 0; k < 4; k++)
                check_reduction(&t, true, reduce_algos[1 + k], all_dts[d], all_ops[o], 7 + 100 * k,
                                (int)((d + o + k) % (size_t)n), (enum mode)((d + k) % 3));
        }
}

static void types_reduce_scatter_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    struct tctx t = world_ctx(12);
    for (size_t d = 0; d < NDTS; d++)
        for (size_t o = 0; o < NOPS; o++) {
            if (!op_valid(all_dts[d], all_ops[o]))
                continue;
            for (size_t k = 0; k < 3; k++)
                check_reduce_scatter(&t, reduce_scatter_algos[1 + k], all_dts[d], all_ops[o],
                                     3 + 200 * k, k == 1 ? OWN : OUT);
        }
}

/* The collectives that move data: every element size and type. */
static void types_movers_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    struct tctx t = world_ctx(13);
    size_t per[HARNESS_MAX_PES];
    for (size_t d = 0; d < NDTS; d++) {
        const sym_datatype_t dt = all_dts[d];
        const sym_algorithm_t a = d % 2 ? SYM_ALGO_NAIVE : SYM_ALGO_AUTO;
        check_broadcast(&t, SYM_ALGO_TREE, dt, 13, (int)(d % (size_t)n));
        for (int r = 0; r < n; r++)
            per[r] = 13;
        check_gatherv_all(&t, false, SYM_ALGO_RING, dt, per, OUT);
        for (int r = 0; r < n; r++)
            per[r] = (size_t)(r + 1) * 3;
        check_gatherv_all(&t, true, a, dt, per, OWN);
        check_alltoall(&t, false, a, dt, uniform_count, 13, OUT);
        check_alltoall(&t, true, SYM_ALGO_PAIRWISE, dt, ragged_count, 13, IN);
        check_gather(&t, SYM_ALGO_TREE, dt, 13, n - 1, OUT);
        check_scatter(&t, SYM_ALGO_TREE, dt, 13, 0, OWN);
    }
}

#define TYPES_TEST(name)                                                                           \
    ParameterizedTestParameters(coll_types, name)                                                  \
    {                                                                                              \
        static int counts[] = TYPES_PE_COUNTS;                                                     \
        return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));               \
    }                                                                                              \
    ParameterizedTest(int *npes, coll_types, name)                                                 \
    {                                                                                              \
        run_pes_env(*npes, matrix_env, types_##name##_body, NULL);                                 \
    }

TYPES_TEST(allreduce)
TYPES_TEST(reduce)
TYPES_TEST(reduce_scatter)
TYPES_TEST(movers)

/* float16 and bfloat16 accumulate in float and round once: member 0 adds
 * 1024 (256 for bfloat16) and every other member half a unit in the last
 * place of that.  Rounding after each addition would stick at 1024 (a tie
 * to even every time); one rounding of the float sum does not. */
static void half_accumulation_body(int me, int n, void *arg)
{
    (void)arg;
    for (int b = 0; b < 2; b++) {
        const sym_datatype_t dt = b ? SYM_BFLOAT16 : SYM_FLOAT16;
        const double big = b ? 256 : 1024, ulp_half = b ? 1 : 0.5;
        enum { CNT = 9 };
        uint16_t src[CNT], dst[CNT], rs_src[CNT * HARNESS_MAX_PES];
        for (int i = 0; i < CNT; i++)
            flt_store(dt, src, (size_t)i, me == 0 ? big : ulp_half);
        for (int i = 0; i < CNT * n; i++)
            flt_store(dt, rs_src, (size_t)i, me == 0 ? big : ulp_half);
        uint16_t want = (uint16_t)(b ? bf16_bits(big + ulp_half * (n - 1))
                                     : f16_bits(big + ulp_half * (n - 1)));
        for (size_t a = 0; a < NELEMS(allreduce_algos); a++) {
            sym_coll_opts_t o = {.algorithm = allreduce_algos[a], .timeout_s = 0};
            PE_OK(sym_allreduce(sym_team_world(), dst, src, CNT, dt, SYM_OP_SUM, &o));
            for (int i = 0; i < CNT; i++)
                PE_ASSERT(dst[i] == want,
                          "%s allreduce/%s over %d PEs: element %d is 0x%04x, "
                          "expected 0x%04x (one rounding of the float sum)",
                          sym_datatype_name(dt), sym_algorithm_name(o.algorithm), n, i, dst[i],
                          want);
        }
        for (size_t a = 0; a < NELEMS(reduce_algos); a++) {
            sym_coll_opts_t o = {.algorithm = reduce_algos[a], .timeout_s = 0};
            memset(dst, 0, sizeof(dst));
            PE_OK(sym_reduce(sym_team_world(), dst, src, CNT, dt, SYM_OP_SUM, n - 1, &o));
            for (int i = 0; me == n - 1 && i < CNT; i++)
                PE_ASSERT(dst[i] == want, "%s reduce/%s: element %d is 0x%04x, expected 0x%04x",
                          sym_datatype_name(dt), sym_algorithm_name(o.algorithm), i, dst[i], want);
        }
        for (size_t a = 0; a < NELEMS(reduce_scatter_algos); a++) {
            sym_coll_opts_t o = {.algorithm = reduce_scatter_algos[a], .timeout_s = 0};
            PE_OK(sym_reduce_scatter(sym_team_world(), dst, rs_src, CNT, dt, SYM_OP_SUM, &o));
            for (int i = 0; i < CNT; i++)
                PE_ASSERT(dst[i] == want,
                          "%s reduce_scatter/%s: element %d is 0x%04x, "
                          "expected 0x%04x",
                          sym_datatype_name(dt), sym_algorithm_name(o.algorithm), i, dst[i], want);
        }
    }
}

ParameterizedTestParameters(coll_types, half_accumulates_in_float)
{
    static int counts[] = {2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_types, half_accumulates_in_float)
{
    run_pes(*npes, half_accumulation_body, NULL);
}

/* The reference converters themselves, so a wrong reference cannot make
 * a wrong library pass. */
Test(coll_types, reference_converters)
{
    cr_assert_eq(f16_bits(1.0), 0x3c00);
    cr_assert_eq(f16_bits(-2.0), 0xc000);
    cr_assert_eq(f16_bits(65504.0), 0x7bff);
    cr_assert_eq(f16_bits(65520.0), 0x7c00);                              /* rounds to infinity */
    cr_assert_eq(f16_bits(ldexp(1.0, -24)), 0x0001);                      /* smallest subnormal */
    cr_assert_eq(f16_bits(ldexp(1.0, -25)), 0x0000);                      /* tie to even: 0 */
    cr_assert_eq(f16_bits(1024.5), 0x6400);                               /* tie to even: 1024 */
    cr_assert_eq(f16_bits(1025.5), 0x6402);                               /* tie to even: 1026 */
    cr_assert_eq(f16_bits(ldexp(1023.0, -24) + ldexp(1.0, -25)), 0x0400); /* to normal */
    cr_assert_eq(bf16_bits(1.0), 0x3f80);
    cr_assert_eq(bf16_bits(257.0), 0x4380); /* tie to even: 256 */
    cr_assert_eq(bf16_bits(259.0), 0x4382); /* tie to even: 260 */
    for (unsigned b = 0; b < 0x10000u; b++) {
        if ((b & 0x7c00u) == 0x7c00u && (b & 0x3ffu))
            continue; /* nan payloads */
        cr_assert_eq(f16_bits(f16_value((uint16_t)b)), b, "f16 round trip of 0x%04x", b);
    }
    for (unsigned b = 0; b < 0x10000u; b++) {
        if ((b & 0x7f80u) == 0x7f80u && (b & 0x7fu))
            continue;
        cr_assert_eq(bf16_bits(bf16_value((uint16_t)b)), b, "bf16 round trip of 0x%04x", b);
        float f;
        uint32_t fb = (uint32_t)b << 16;
        memcpy(&f, &fb, sizeof(f));
        cr_assert_eq(bf16_value((uint16_t)b), (double)f, "bf16 value of 0x%04x", b);
    }
}

/* ------------------------------------------------------------------------ */
/* Inexact floating-point data: same bits on every PE and every run          */
/* ------------------------------------------------------------------------ */

/* Values of widely different magnitudes, so the order of additions shows
 * in the low bits. */
static double wild(uint64_t salt, int rank, size_t i)
{
    uint64_t h = hkey(salt, (uint64_t)rank, i);
    double m = (double)(h >> 11) * ldexp(1.0, -53) * 2 - 1;
    return ldexp(m, (int)(h % 41) - 20);
}

static uint64_t fnv(const void *p, size_t bytes)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * UINT64_C(1099511628211);
    return h;
}

/* Every member has the same hash of its result. */
static void all_same(uint64_t *slots, uint64_t h, const char *what)
{
    const int n = sym_n_pes(), me = sym_my_pe();
    for (int pe = 0; pe < n; pe++)
        PE_OK(sym_p64(&slots[me], h, pe));
    PE_OK(sym_barrier_all());
    for (int pe = 0; pe < n; pe++)
        PE_ASSERT(slots[pe] == h, "%s: PE %d's result differs from this PE's", what, pe);
    PE_OK(sym_barrier_all());
}

static void determinism_body(int me, int n, void *arg)
{
    (void)arg;
    uint64_t *slots = sym_calloc((size_t)n, sizeof(uint64_t));
    PE_ASSERT(slots, "sym_calloc: %s", sym_last_error());
    enum { CNT = 3001 };
    const sym_datatype_t dts[2] = {SYM_FLOAT, SYM_DOUBLE};
    double *ref = xmalloc(CNT * (size_t)n * sizeof(double));
    double *bound = xmalloc(CNT * (size_t)n * sizeof(double));
    for (int k = 0; k < 2; k++) {
        const sym_datatype_t dt = dts[k];
        const size_t es = dt_size(dt), tot = CNT * (size_t)n;
        uint8_t *src = xmalloc(tot * es), *r1 = xmalloc(tot * es), *r2 = xmalloc(tot * es);
        for (size_t i = 0; i < tot; i++) {
            flt_store(dt, src, i, wild((uint64_t)k, me, i));
            ref[i] = bound[i] = 0;
            for (int r = 0; r < n; r++) {
                uint8_t one[8]; /* the value as the datatype holds it */
                flt_store(dt, one, 0, wild((uint64_t)k, r, i));
                ref[i] += flt_load(dt, one, 0);
                bound[i] += fabs(flt_load(dt, one, 0));
            }
        }
        const double eps = dt == SYM_FLOAT ? ldexp(1.0, -23) : ldexp(1.0, -52);
        char what[128];
        for (size_t a = 1; a < NELEMS(allreduce_algos); a++) {
            sym_coll_opts_t o = {.algorithm = allreduce_algos[a], .timeout_s = 0};
            snprintf(what, sizeof(what), "allreduce/%s %s", sym_algorithm_name(o.algorithm),
                     sym_datatype_name(dt));
            PE_OK(sym_allreduce(sym_team_world(), r1, src, CNT, dt, SYM_OP_SUM, &o));
            PE_OK(sym_allreduce(sym_team_world(), r2, src, CNT, dt, SYM_OP_SUM, &o));
            PE_ASSERT(!memcmp(r1, r2, CNT * es), "%s: two runs gave different bits", what);
            for (size_t i = 0; i < CNT; i++)
                PE_ASSERT(fabs(flt_load(dt, r1, i) - ref[i]) <= n * eps * bound[i],
                          "%s: element %zu is %.17g, expected about %.17g", what, i,
                          flt_load(dt, r1, i), ref[i]);
            all_same(slots, fnv(r1, CNT * es), what);
        }
        for (size_t a = 1; a < NELEMS(reduce_algos); a++) {
            sym_coll_opts_t o = {.algorithm = reduce_algos[a], .timeout_s = 0};
            snprintf(what, sizeof(what), "reduce/%s %s", sym_algorithm_name(o.algorithm),
                     sym_datatype_name(dt));
            PE_OK(sym_reduce(sym_team_world(), r1, src, CNT, dt, SYM_OP_SUM, 0, &o));
            PE_OK(sym_reduce(sym_team_world(), r2, src, CNT, dt, SYM_OP_SUM, 0, &o));
            for (size_t i = 0; me == 0 && i < CNT; i++)
                PE_ASSERT(fabs(flt_load(dt, r1, i) - ref[i]) <= n * eps * bound[i],
                          "%s: element %zu is %.17g, expected about %.17g", what, i,
                          flt_load(dt, r1, i), ref[i]);
            PE_ASSERT(me != 0 || !memcmp(r1, r2, CNT * es), "%s: two runs gave different bits",
                      what);
        }
        for (size_t a = 1; a < NELEMS(reduce_scatter_algos); a++) {
            sym_coll_opts_t o = {.algorithm = reduce_scatter_algos[a], .timeout_s = 0};
            snprintf(what, sizeof(what), "reduce_scatter/%s %s", sym_algorithm_name(o.algorithm),
                     sym_datatype_name(dt));
            PE_OK(sym_reduce_scatter(sym_team_world(), r1, src, CNT, dt, SYM_OP_SUM, &o));
            PE_OK(sym_reduce_scatter(sym_team_world(), r2, src, CNT, dt, SYM_OP_SUM, &o));
            PE_ASSERT(!memcmp(r1, r2, CNT * es), "%s: two runs gave different bits", what);
            for (size_t i = 0; i < CNT; i++) {
                size_t g = (size_t)me * CNT + i;
                PE_ASSERT(fabs(flt_load(dt, r1, i) - ref[g]) <= n * eps * bound[g],
                          "%s: element %zu is %.17g, expected about %.17g", what, i,
                          flt_load(dt, r1, i), ref[g]);
            }
        }
        free(src);
        free(r1);
        free(r2);
    }
    free(ref);
    free(bound);
    sym_free(slots);
}

ParameterizedTestParameters(coll_determinism, inexact_floats)
{
    static int counts[] = {2, 3, 5, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_determinism, inexact_floats)
{
    run_pes(*npes, determinism_body, NULL);
}
