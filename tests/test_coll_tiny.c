/*
 * test_coll_tiny.c - collectives of a few bytes.
 *
 * A chunk that is a whole message of at most 28 bytes travels inline, in
 * the slot's header line next to its flag (src/coll/chan.c), while larger
 * ones use the ordinary header + payload format in the same slots.  These
 * tests cover the edges of that: every datatype at every size from 1 to 64
 * bytes (both formats and the boundary), many calls back to back so every
 * slot is reused in both formats, tiny and large calls alternating, and
 * mismatches between a tiny and a large call.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "harness.h"
#include "symheap.h"

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const sym_datatype_t types[] = {SYM_INT8,  SYM_INT16,  SYM_INT32,   SYM_INT64,
                                       SYM_UINT8, SYM_UINT16, SYM_UINT32,  SYM_UINT64,
                                       SYM_FLOAT, SYM_DOUBLE, SYM_FLOAT16, SYM_BFLOAT16};
static const sym_algorithm_t algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE,
                                        SYM_ALGO_RD};

static bool is_int(sym_datatype_t dt)
{
    return dt <= SYM_UINT64;
}

/* Small non-negative integers are exact in every type, half included. */
static uint16_t f16_bits(unsigned v)
{
    if (!v)
        return 0;
    int e;
    double m = frexp((double)v, &e); /* v = m * 2^e, 0.5 <= m < 1 */
    /* binary16: value = 1.f * 2^(e-1), biased exponent e - 1 + 15 */
    unsigned frac = (unsigned)((m * 2.0 - 1.0) * 1024.0);
    return (uint16_t)((unsigned)(e - 1 + 15) << 10 | frac);
}

static uint16_t bf16_bits(unsigned v)
{
    float f = (float)v;
    uint32_t b;
    memcpy(&b, &f, sizeof(b));
    return (uint16_t)(b >> 16);
}

/* Store the small integer v as element i of a buffer of type dt. */
static void put_elem(void *buf, sym_datatype_t dt, size_t i, unsigned v)
{
    switch (dt) {
    case SYM_INT8:
        ((int8_t *)buf)[i] = (int8_t)v;
        break;
    case SYM_UINT8:
        ((uint8_t *)buf)[i] = (uint8_t)v;
        break;
    case SYM_INT16:
        ((int16_t *)buf)[i] = (int16_t)v;
        break;
    case SYM_UINT16:
        ((uint16_t *)buf)[i] = (uint16_t)v;
        break;
    case SYM_INT32:
        ((int32_t *)buf)[i] = (int32_t)v;
        break;
    case SYM_UINT32:
        ((uint32_t *)buf)[i] = v;
        break;
    case SYM_INT64:
        ((int64_t *)buf)[i] = (int64_t)v;
        break;
    case SYM_UINT64:
        ((uint64_t *)buf)[i] = v;
        break;
    case SYM_FLOAT:
        ((float *)buf)[i] = (float)v;
        break;
    case SYM_DOUBLE:
        ((double *)buf)[i] = (double)v;
        break;
    case SYM_FLOAT16:
        ((uint16_t *)buf)[i] = f16_bits(v);
        break;
    case SYM_BFLOAT16:
        ((uint16_t *)buf)[i] = bf16_bits(v);
        break;
    }
}

/* PE p's element i, different in every call (salt) and every position;
 * below 64 so sums over 8 PEs stay exact in int8 and in bfloat16's
 * 8-bit significand. */
static unsigned val(int p, size_t i, unsigned salt)
{
    return (unsigned)(p * 7 + i * 3 + salt) % 13 + (unsigned)p % 3;
}

/* Expected results of sum (or, for integers, bxor) over n PEs, in dt. */
static void reference(void *out, sym_datatype_t dt, sym_op_t op, size_t count, int n, unsigned salt)
{
    for (size_t i = 0; i < count; i++) {
        unsigned acc = 0;
        for (int p = 0; p < n; p++)
            acc = op == SYM_OP_BXOR ? acc ^ val(p, i, salt) : acc + val(p, i, salt);
        put_elem(out, dt, i, acc);
    }
}

/* Every datatype, every size 1..64 bytes, every allreduce algorithm, sum
 * and (integers) bxor, in and out of place; results compared bit by bit,
 * and the bytes just past dst must be untouched.  SYMHEAP_TEST_QUICK (the
 * sanitizer and libfabric stages, where a call costs 10-1000x more) keeps
 * every size and type but runs auto plus one other algorithm in turn, and
 * one op in turn, per size: 656 calls instead of 2840. */
static void sizes_body(int me, int n, void *arg)
{
    (void)arg;
    const bool quick = getenv("SYMHEAP_TEST_QUICK") != NULL;
    unsigned salt = 0;
    for (size_t t = 0; t < NELEMS(types); t++) {
        const sym_datatype_t dt = types[t];
        const size_t es = sym_datatype_size(dt);
        for (size_t count = 1; count * es <= 64; count++) {
            for (size_t a = 0; a < NELEMS(algos); a++) {
                if (quick && a != 0 && a != 1 + (count + t) % (NELEMS(algos) - 1))
                    continue;
                for (int o = 0; o < (is_int(dt) ? 2 : 1); o++) {
                    if (quick && is_int(dt) && o != (int)((count + a) % 2))
                        continue;
                    const sym_op_t op = o ? SYM_OP_BXOR : SYM_OP_SUM;
                    const bool in_place = (salt & 1) != 0;
                    unsigned char src[64], dst[72], want[64];
                    for (size_t i = 0; i < count; i++)
                        put_elem(src, dt, i, val(me, i, salt));
                    memset(dst, 0xA5, sizeof(dst));
                    if (in_place)
                        memcpy(dst, src, count * es);
                    reference(want, dt, op, count, n, salt);
                    sym_coll_opts_t opts = {.algorithm = algos[a], .timeout_s = 0};
                    PE_OK(sym_allreduce(sym_team_world(), dst, in_place ? dst : src, count, dt, op,
                                        &opts));
                    PE_ASSERT(!memcmp(dst, want, count * es),
                              "allreduce %s of %zu x type %d (%zu bytes), op %d, %s: wrong data",
                              sym_algorithm_name(algos[a]), count, (int)dt, count * es, (int)op,
                              in_place ? "in place" : "out of place");
                    for (size_t b = count * es; b < sizeof(dst); b++)
                        PE_ASSERT(dst[b] == 0xA5, "byte %zu past the result was written", b);
                    salt++;
                }
            }
        }
    }
}

ParameterizedTestParameters(coll_tiny, sizes)
{
    static int npes[] = {2, 3, 4};
    return cr_make_param_array(int, npes, NELEMS(npes));
}

ParameterizedTest(int *npes, coll_tiny, sizes)
{
    run_pes(*npes, sizes_body, NULL);
}

/* Many tiny calls back to back (every slot reused many times over), with
 * large ones (ordinary chunks in the same slots) and other collectives of
 * a few bytes mixed in, on the world and on a split team. */
static void mixed_body(int me, int n, void *arg)
{
    (void)arg;
    enum { BIG = 300000 }; /* int32 elements: several chunks of the default size */
    int32_t *bsrc = malloc(BIG * sizeof(int32_t)), *bdst = malloc(BIG * sizeof(int32_t));
    PE_ASSERT(bsrc && bdst, "out of memory");
    sym_team_t split;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &split));
    for (unsigned it = 0; it < 400; it++) {
        sym_team_t t = it % 3 == 2 ? split : sym_team_world();
        const size_t count = 1 + it % 7; /* 1..7 x int32: 4..28 bytes */
        int32_t src[8], dst[8], want[8];
        for (size_t i = 0; i < count; i++) {
            src[i] = (int32_t)val(me, i, it);
            want[i] = 0;
            for (int p = 0; p < n; p++)
                want[i] += (int32_t)val(p, i, it);
        }
        PE_OK(sym_allreduce(t, dst, src, count, SYM_INT32, SYM_OP_SUM, NULL));
        PE_ASSERT(!memcmp(dst, want, count * sizeof(int32_t)), "tiny allreduce %u wrong", it);
        if (it % 5 == 0) { /* a tiny broadcast and all_gather in between */
            int64_t b = me == (int)(it % (unsigned)n) ? (int64_t)it * 1000 + 7 : -1;
            PE_OK(sym_broadcast(t, &b, 1, SYM_INT64, (int)(it % (unsigned)n), NULL));
            PE_ASSERT(b == (int64_t)it * 1000 + 7, "tiny broadcast %u got %lld", it, (long long)b);
            int16_t g = (int16_t)(me + (int)it), gall[8];
            PE_OK(sym_all_gather(t, gall, &g, 1, SYM_INT16, NULL));
            for (int p = 0; p < n; p++)
                PE_ASSERT(gall[p] == (int16_t)(p + (int)it), "tiny all_gather %u wrong", it);
        }
        if (it % 50 == 7) { /* a large allreduce: ordinary chunks in the slots */
            for (size_t i = 0; i < BIG; i++)
                bsrc[i] = (int32_t)(i % 1000) + me * (int32_t)it;
            PE_OK(sym_allreduce(t, bdst, bsrc, BIG, SYM_INT32, SYM_OP_SUM, NULL));
            const int32_t pes = (int32_t)n * (n - 1) / 2;
            for (size_t i = 0; i < BIG; i++)
                PE_ASSERT(bdst[i] == (int32_t)(i % 1000) * n + pes * (int32_t)it,
                          "large allreduce %u element %zu: %d", it, i, bdst[i]);
        }
        if (it % 11 == 3)
            PE_OK(sym_barrier(t, NULL));
    }
    PE_OK(sym_team_destroy(split));
    free(bsrc);
    free(bdst);
}

ParameterizedTestParameters(coll_tiny, mixed)
{
    static int npes[] = {2, 3};
    return cr_make_param_array(int, npes, NELEMS(npes));
}

ParameterizedTest(int *npes, coll_tiny, mixed)
{
    run_pes(*npes, mixed_body, NULL);
}

/* PE 0 calls a tiny allreduce (inline chunk), the others the same call
 * with another count, tiny or large (ordinary chunks): every PE reports
 * SYM_ERR_MISMATCH naming both counts, and no other call's data lands. */
static void mismatch_body(int me, int n, void *arg)
{
    (void)n;
    const size_t other = *(const size_t *)arg;
    sym_team_t t;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, sym_n_pes(), &t));
    PE_OK(sym_team_set_timeout(t, 5.0)); /* a missed mismatch fails in 5 s */
    /* a few good calls first, so the slots hold earlier inline chunks */
    for (int i = 0; i < 5; i++) {
        int64_t v = me + i, s;
        PE_OK(sym_allreduce(t, &s, &v, 1, SYM_INT64, SYM_OP_SUM, NULL));
    }
    const size_t count = me == 0 ? 2 : other;
    int32_t *src = calloc(other > 2 ? other : 2, sizeof(int32_t));
    int32_t *dst = malloc((other > 2 ? other : 2) * sizeof(int32_t));
    PE_ASSERT(src && dst, "out of memory");
    memset(dst, 0x5A, (other > 2 ? other : 2) * sizeof(int32_t));
    sym_coll_opts_t naive = {.algorithm = SYM_ALGO_NAIVE, .timeout_s = 0};
    PE_FAILS_WITH(sym_allreduce(t, dst, src, count, SYM_INT32, SYM_OP_SUM, &naive),
                  SYM_ERR_MISMATCH);
    char w0[32], w1[32];
    snprintf(w0, sizeof(w0), "count 2");
    snprintf(w1, sizeof(w1), "count %zu", other);
    PE_ASSERT(strstr(sym_last_error(), w0) && strstr(sym_last_error(), w1),
              "the error names both calls: %s", sym_last_error());
    /* src is all zero: a sum could only leave zeros; nothing at all is the
     * rule, since the other side's call never matched */
    for (size_t i = 0; i < count; i++) {
        uint32_t b;
        memcpy(&b, &dst[i], sizeof(b));
        PE_ASSERT(b == 0x5A5A5A5Au, "element %zu of dst was written (0x%08x)", i, b);
    }
    PE_FAILS_WITH(sym_barrier(t, NULL), SYM_ERR_MISMATCH);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    int64_t v = me, s;
    PE_OK(sym_allreduce(sym_team_world(), &s, &v, 1, SYM_INT64, SYM_OP_SUM, NULL));
    PE_ASSERT(s == (int64_t)sym_n_pes() * (sym_n_pes() - 1) / 2, "world allreduce wrong");
    free(src);
    free(dst);
}

ParameterizedTestParameters(coll_tiny, mismatch)
{
    static size_t other[] = {3, 7, 8, 100000}; /* 12, 28 (inline), 32, 400000 bytes */
    return cr_make_param_array(size_t, other, NELEMS(other));
}

ParameterizedTest(size_t *other, coll_tiny, mismatch)
{
    run_pes(2, mismatch_body, other);
}
