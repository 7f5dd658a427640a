/* test_sync_wait.c - the typed sym_wait_until_T / sym_test_T: every
 * comparison against the C reference, following the type's signedness, and
 * waits that block until a peer's write satisfies them, at 1..8 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "harness.h"
#include "sync_check.h"

static const sym_cmp_t all_cmps[] = {SYM_CMP_EQ, SYM_CMP_NE, SYM_CMP_GT,
                                     SYM_CMP_GE, SYM_CMP_LT, SYM_CMP_LE};
#define NCMPS 6

static int pe_counts[] = HARNESS_PE_COUNTS;
#define NCOUNTS (sizeof(pe_counts) / sizeof(pe_counts[0]))

/* ------------------------------------------------------------------------ */
/* sym_wait_until_T / sym_test_T: comparisons follow the type's signedness   */
/* ------------------------------------------------------------------------ */

struct wait_step {
    sym_cmp_t cmp;
    int64_t value, init; /* converted to the type under test */
    int nseq;
    int64_t seq[3]; /* only the last one satisfies the condition */
};

/* Steps for the signed types, and for the unsigned ones where negative
 * numbers stand for the top of the range. */
static const struct wait_step signed_steps[] = {
    {SYM_CMP_EQ, -7, 0, 3, {-6, 7, -7}},     {SYM_CMP_NE, -1, -1, 2, {-1, 0}},
    {SYM_CMP_GT, -5, -100, 3, {-6, -5, -4}}, {SYM_CMP_GE, -5, -100, 2, {-6, -5}},
    {SYM_CMP_LT, 0, 5, 3, {3, 0, -1}}, /* unsigned would never be < 0 */
    {SYM_CMP_LE, -10, 0, 2, {-9, -10}},
};
static const struct wait_step unsigned_steps[] = {
    {SYM_CMP_EQ, -7, 0, 3, {-6, 7, -7}},
    {SYM_CMP_NE, 3, 3, 2, {3, -3}},
    {SYM_CMP_GT, 5, 0, 3, {4, 5, -1}}, /* signed would never be > 5 */
    {SYM_CMP_GE, -2, 7, 2, {-3, -2}},
    {SYM_CMP_LT, 5, -1, 3, {-100, 5, 4}}, /* signed: -1 < 5 at once */
    {SYM_CMP_LE, 5, -1, 2, {6, 5}},
};
#define NWAIT_STEPS 6

/* The word of every type lives at the start of a 64-byte line. */
#define TYPED_FNS(name, T, bits)                                                                   \
    static void set_word_##name(T *w, T v, int pe, int how)                                        \
    {                                                                                              \
        if (how)                                                                                   \
            PE_OK(sym_atomic_set##bits((uint##bits##_t *)w, (uint##bits##_t)v, pe));               \
        else                                                                                       \
            PE_OK(sym_p##bits((uint##bits##_t *)w, (uint##bits##_t)v, pe));                        \
    }                                                                                              \
    /* Every comparison of every pair of edge values against the C reference. */                   \
    static void test_table_##name(T *w)                                                            \
    {                                                                                              \
        const T vals[] = {(T)((uint##bits##_t)1 << (bits - 1)),      (T)-5, (T)-1, 0, 1, 5,        \
                          (T)(((uint##bits##_t)1 << (bits - 1)) - 1)};                             \
        const size_t nv = sizeof(vals) / sizeof(vals[0]);                                          \
        for (size_t a = 0; a < nv; a++) {                                                          \
            *w = vals[a];                                                                          \
            for (size_t b = 0; b < nv; b++)                                                        \
                for (int c = 0; c < NCMPS; c++) {                                                  \
                    sym_cmp_t cmp = all_cmps[c];                                                   \
                    int want = REF_CMP(vals[a], cmp, vals[b]), sat = -1;                           \
                    PE_OK(sym_test_##name(w, cmp, vals[b], &sat));                                 \
                    PE_ASSERT(sat == want,                                                         \
                              "sym_test_" #name "(%lld %s %lld) gave %d, "                         \
                              "expected %d",                                                       \
                              (long long)vals[a], cmp_text(cmp), (long long)vals[b], sat, want);   \
                    if (want)                                                                      \
                        PE_OK(sym_wait_until_##name(w, cmp, vals[b]));                             \
                }                                                                                  \
        }                                                                                          \
    }                                                                                              \
    /* PE 0 blocks while PE n-1 moves its word to the one satisfying value. */                     \
    static void wait_steps_##name(int me, int n, T *w, const struct wait_step *steps)              \
    {                                                                                              \
        const int waiter = 0, writer = n - 1;                                                      \
        for (int k = 0; k < NWAIT_STEPS; k++) {                                                    \
            const struct wait_step *s = &steps[k];                                                 \
            if (me == waiter)                                                                      \
                *w = (T)s->init;                                                                   \
            PE_OK(sym_barrier_all());                                                              \
            if (me == writer)                                                                      \
                for (int i = 0; i < s->nseq; i++) {                                                \
                    if (i == s->nseq - 1 && k % 2)                                                 \
                        pause_us(2000);                                                            \
                    set_word_##name(w, (T)s->seq[i], waiter, i % 2);                               \
                }                                                                                  \
            if (me == waiter) {                                                                    \
                T want = (T)s->seq[s->nseq - 1];                                                   \
                PE_ASSERT(REF_CMP(want, s->cmp, (T)s->value) &&                                    \
                              !REF_CMP((T)s->init, s->cmp, (T)s->value),                           \
                          "step table error");                                                     \
                PE_OK(sym_wait_until_##name(w, s->cmp, (T)s->value));                              \
                T got = __atomic_load_n(w, __ATOMIC_ACQUIRE);                                      \
                PE_ASSERT(got == want,                                                             \
                          "sym_wait_until_" #name "(%s %lld) returned while "                      \
                          "the word held %lld; only %lld satisfies it",                            \
                          cmp_text(s->cmp), (long long)(T)s->value, (long long)got,                \
                          (long long)want);                                                        \
                int sat = -1;                                                                      \
                PE_OK(sym_test_##name(w, s->cmp, (T)s->value, &sat));                              \
                PE_ASSERT(sat == 1, "sym_test_" #name " after the wait gave %d", sat);             \
            }                                                                                      \
            PE_OK(sym_barrier_all());                                                              \
        }                                                                                          \
    }

TYPED_FNS(int32, int32_t, 32)
TYPED_FNS(int64, int64_t, 64)
TYPED_FNS(uint32, uint32_t, 32)
TYPED_FNS(uint64, uint64_t, 64)

static void wait_until_body(int me, int n, void *arg)
{
    (void)arg;
    uint8_t *line = sym_calloc(4, 64);
    PE_ASSERT(line, "sym_calloc: %s", sym_last_error());
    int32_t *wi32 = (int32_t *)line;
    int64_t *wi64 = (int64_t *)(line + 64);
    uint32_t *wu32 = (uint32_t *)(line + 128);
    uint64_t *wu64 = (uint64_t *)(line + 192);

    /* the headline case: -1 > 0 is false for int, true for uint */
    int sat = -1;
    *wi32 = -1;
    PE_OK(sym_test_int32(wi32, SYM_CMP_GT, 0, &sat));
    PE_ASSERT(sat == 0, "int32: -1 > 0 tested %d", sat);
    *wu32 = (uint32_t)-1;
    PE_OK(sym_test_uint32(wu32, SYM_CMP_GT, 0, &sat));
    PE_ASSERT(sat == 1, "uint32: 0xffffffff > 0 tested %d", sat);
    *wi64 = -1;
    PE_OK(sym_test_int64(wi64, SYM_CMP_GT, 0, &sat));
    PE_ASSERT(sat == 0, "int64: -1 > 0 tested %d", sat);
    *wu64 = (uint64_t)-1;
    PE_OK(sym_test_uint64(wu64, SYM_CMP_GT, 0, &sat));
    PE_ASSERT(sat == 1, "uint64: 2^64-1 > 0 tested %d", sat);

    test_table_int32(wi32);
    test_table_int64(wi64);
    test_table_uint32(wu32);
    test_table_uint64(wu64);
    PE_OK(sym_barrier_all());

    wait_steps_int32(me, n, wi32, signed_steps);
    wait_steps_int64(me, n, wi64, signed_steps);
    wait_steps_uint32(me, n, wu32, unsigned_steps);
    wait_steps_uint64(me, n, wu64, unsigned_steps);
    sym_free(line);
}

ParameterizedTestParameters(sync, wait_until_and_test)
{
    return cr_make_param_array(int, pe_counts, NCOUNTS);
}

ParameterizedTest(int *npes, sync, wait_until_and_test)
{
    run_pes(*npes, wait_until_body, NULL);
}
