/*
 * shmem_amo.c - atomics for every standard AMO type under contention from
 * all PEs: fetch_inc/fetch_add hand out each value exactly once, inc/add
 * count, compare_swap has one winner, swap chains lose nothing, the
 * bitwise families, the non-blocking fetching forms, context and
 * deprecated names; fetch/set/swap on float and double.
 */
#include "check.h"

#define K 20 /* operations per PE */

static int me, npes;

static int in_range(long long v, long long hi)
{
    return v >= 0 && v < hi;
}

/* clang-format off */
#define AMO_TYPES(X)                                                                          \
    X(int, int) X(long, long) X(long long, longlong) X(unsigned int, uint)                    \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int32_t, int32)                \
    X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)                 \
    X(ptrdiff_t, ptrdiff)
/* clang-format on */
/* clang-format off */
#define BIT_TYPES(X)                                                                          \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)            \
    X(int32_t, int32) X(int64_t, int64) X(uint32_t, uint32) X(uint64_t, uint64)
/* clang-format on */

/* Globals are symmetric: a counter and a swap word in .bss. */
#define AMO_TEST(T, N)                                                                             \
    static T g_count_##N, g_word_##N;                                                              \
    static void globals_##N(void)                                                                  \
    {                                                                                              \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < K; i++)                                                                \
            shmem_atomic_fetch_inc(&g_count_##N, 0);                                               \
        shmem_##N##_atomic_add(&g_count_##N, 2, 0);                                                \
        T old = shmem_atomic_compare_swap(&g_word_##N, (T)0, (T)(me + 1), 0);                      \
        static int g_won, g_total;                                                                 \
        g_won = old == 0;                                                                          \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &g_total, &g_won, 1) == 0 && g_total == 1);   \
        if (me == 0)                                                                               \
            CHECKF(g_count_##N == (T)((K + 2) * npes), #N " global counter %lld",                  \
                   (long long)g_count_##N);                                                        \
        CHECK(shmem_atomic_fetch(&g_word_##N, 0) >= 1);                                            \
        shmem_barrier_all();                                                                       \
    }                                                                                              \
    static void test_##N(void)                                                                     \
    {                                                                                              \
        T *w = shmem_calloc(8, sizeof(T));                                                         \
        int *seen = shmem_calloc((size_t)(4 * K * npes), sizeof(int));                             \
        shmem_barrier_all();                                                                       \
        /* fetch_inc: each value 0 .. K*n-1 handed out once */                                     \
        for (int i = 0; i < K; i++) {                                                              \
            T v =                                                                                  \
                i % 2 ? shmem_##N##_atomic_fetch_inc(&w[0], 0) : shmem_atomic_fetch_inc(&w[0], 0); \
            CHECKF(in_range((long long)v, K *npes), #N " fetch_inc gave %lld", (long long)v);      \
            shmem_int_atomic_inc(&seen[v], 0);                                                     \
        }                                                                                          \
        /* fetch_add by 3, also through a context and the nbi form */                              \
        for (int i = 0; i < K; i++) {                                                              \
            T v;                                                                                   \
            if (i % 3 == 0)                                                                        \
                v = shmem_ctx_##N##_atomic_fetch_add(SHMEM_CTX_DEFAULT, &w[1], 3, 0);              \
            else if (i % 3 == 1)                                                                   \
                shmem_atomic_fetch_add_nbi(&v, &w[1], 3, 0), shmem_quiet();                        \
            else                                                                                   \
                v = shmem_##N##_fadd(&w[1], 3, 0);                                                 \
            CHECK(v % 3 == 0 && v / 3 < (T)(K * npes));                                            \
            shmem_int_atomic_inc(&seen[K * npes + v / 3], 0);                                      \
        }                                                                                          \
        /* inc and add in every spelling */                                                        \
        for (int i = 0; i < K; i++) {                                                              \
            shmem_##N##_atomic_inc(&w[2], 0);                                                      \
            shmem_atomic_inc(SHMEM_CTX_DEFAULT, &w[2], 0);                                         \
            shmem_##N##_inc(&w[2], 0);                                                             \
            shmem_##N##_atomic_add(&w[3], 5, 0);                                                   \
            shmem_atomic_add(&w[3], 2, 0);                                                         \
            shmem_##N##_add(&w[3], 1, 0);                                                          \
            T f;                                                                                   \
            shmem_##N##_atomic_fetch_inc_nbi(&f, &w[2], 0);                                        \
        }                                                                                          \
        shmem_quiet();                                                                             \
        /* compare_swap: exactly one PE moves w[4] from 0 to its number + 1 */                     \
        T old = shmem_atomic_compare_swap(&w[4], (T)0, (T)(me + 1), 0);                            \
        T old2;                                                                                    \
        shmem_##N##_atomic_compare_swap_nbi(&old2, &w[5], 0, (T)(me + 1), 0);                      \
        shmem_quiet();                                                                             \
        int won = old == 0, won2 = old2 == 0, total = 0, total2 = 0;                               \
        shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &total, &won, 1);                                   \
        shmem_int_sum_reduce(SHMEM_TEAM_WORLD, &total2, &won2, 1);                                 \
        CHECKF(total == 1 && total2 == 1, #N " compare_swap winners %d %d", total, total2);        \
        CHECK(shmem_##N##_cswap(&w[4], (T)(npes + 5), 7, 0) != (T)(npes + 5));                     \
        /* swap: the values me+1 of all PEs, plus the initial 0, each seen once */                 \
        T prev = me % 2 ? shmem_atomic_swap(&w[6], (T)(me + 1), 0)                                 \
                        : shmem_##N##_swap(&w[6], (T)(me + 1), 0);                                 \
        shmem_int_atomic_inc(&seen[2 * K * npes + prev], 0);                                       \
        shmem_barrier_all();                                                                       \
        if (me == 0) {                                                                             \
            for (int v = 0; v < K * npes; v++) {                                                   \
                CHECKF(seen[v] == 1, #N " fetch_inc value %d seen %d times", v, seen[v]);          \
                CHECKF(seen[K * npes + v] == 1, #N " fetch_add value %d", 3 * v);                  \
            }                                                                                      \
            CHECK(w[0] == (T)(K * npes) && w[1] == (T)(3 * K * npes));                             \
            CHECKF(w[2] == (T)(4 * K * npes), #N " inc count %lld", (long long)w[2]);              \
            CHECK(w[3] == (T)(8 * K * npes));                                                      \
            T last = shmem_##N##_atomic_fetch(&w[6], 0);                                           \
            seen[2 * K * npes + last]++;                                                           \
            for (int v = 0; v <= npes; v++)                                                        \
                CHECKF(seen[2 * K * npes + v] == 1, #N " swap value %d", v);                       \
        }                                                                                          \
        /* set and fetch, remote */                                                                \
        shmem_barrier_all();                                                                       \
        shmem_##N##_atomic_set(&w[7], (T)(100 + me), (me + 1) % npes);                             \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_atomic_fetch(&w[7], me) == (T)(100 + (me + npes - 1) % npes));                 \
        T fnbi;                                                                                    \
        shmem_##N##_atomic_fetch_nbi(&fnbi, &w[7], (me + 1) % npes);                               \
        shmem_quiet();                                                                             \
        CHECK(fnbi == (T)(100 + me));                                                              \
        CHECK(shmem_##N##_fetch(&w[7], me) == (T)(100 + (me + npes - 1) % npes));                  \
        shmem_barrier_all();                                                                       \
        shmem_##N##_set(&w[7], 5, me);                                                             \
        shmem_atomic_set(SHMEM_CTX_DEFAULT, &w[7],                                                 \
                         shmem_atomic_fetch(SHMEM_CTX_DEFAULT, &w[7], me) + 1, me);                \
        T sw;                                                                                      \
        shmem_##N##_atomic_swap_nbi(&sw, &w[7], 9, me);                                            \
        shmem_quiet();                                                                             \
        CHECK(sw == 6 && w[7] == 9);                                                               \
        shmem_barrier_all();                                                                       \
        shmem_free(w);                                                                             \
        shmem_free(seen);                                                                          \
    }
AMO_TYPES(AMO_TEST)

#define BIT_TEST(T, N)                                                                             \
    static void bit_##N(void)                                                                      \
    {                                                                                              \
        T *w = shmem_calloc(4, sizeof(T));                                                         \
        w[1] = (T) ~(T)0;                                                                          \
        shmem_barrier_all();                                                                       \
        T bit = (T)1 << (me % (8 * (int)sizeof(T) - 1));                                           \
        T o1 = shmem_##N##_atomic_fetch_or(&w[0], bit, 0);                                         \
        shmem_atomic_or(&w[2], bit, 0);                                                            \
        shmem_##N##_atomic_and(&w[1], (T)~bit, 0);                                                 \
        T o2 = shmem_atomic_fetch_and(&w[1], (T) ~(T)0, 0);                                        \
        shmem_##N##_atomic_xor(&w[3], bit, 0);                                                     \
        T o3 = shmem_atomic_fetch_xor(SHMEM_CTX_DEFAULT, &w[3], 0, 0);                             \
        T f1, f2, f3;                                                                              \
        shmem_##N##_atomic_fetch_or_nbi(&f1, &w[0], 0, 0);                                         \
        shmem_atomic_fetch_and_nbi(&f2, &w[1], (T) ~(T)0, 0);                                      \
        shmem_ctx_##N##_atomic_fetch_xor_nbi(SHMEM_CTX_DEFAULT, &f3, &w[3], 0, 0);                 \
        shmem_quiet();                                                                             \
        (void)o1, (void)o2, (void)o3;                                                              \
        CHECK((f1 & bit) == bit && (f2 & bit) == 0);                                               \
        shmem_barrier_all();                                                                       \
        if (me == 0) {                                                                             \
            T all = 0, x = 0;                                                                      \
            for (int p = 0; p < npes; p++) {                                                       \
                all |= (T)1 << (p % (8 * (int)sizeof(T) - 1));                                     \
                x ^= (T)1 << (p % (8 * (int)sizeof(T) - 1));                                       \
            }                                                                                      \
            CHECK(w[0] == all && w[2] == all && w[1] == (T)~all && w[3] == x);                     \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        shmem_free(w);                                                                             \
    }
BIT_TYPES(BIT_TEST)

/* Extended AMO types: fetch, set, swap on float and double. */
#define FLT_TEST(T, N)                                                                             \
    static void flt_##N(void)                                                                      \
    {                                                                                              \
        T *w = shmem_calloc(2, sizeof(T));                                                         \
        shmem_barrier_all();                                                                       \
        int to = (me + 1) % npes;                                                                  \
        shmem_##N##_atomic_set(&w[0], (T)me + (T)0.5, to);                                         \
        shmem_barrier_all();                                                                       \
        T expect = (T)((me + npes - 1) % npes) + (T)0.5;                                           \
        CHECK(shmem_##N##_atomic_fetch(&w[0], me) == expect);                                      \
        CHECK(shmem_atomic_swap(&w[0], (T)-1.25, me) == expect && w[0] == (T)-1.25);               \
        T f;                                                                                       \
        shmem_atomic_fetch_nbi(&f, &w[0], me);                                                     \
        shmem_quiet();                                                                             \
        CHECK(f == (T)-1.25);                                                                      \
        shmem_barrier_all();                                                                       \
        shmem_free(w);                                                                             \
    }
FLT_TEST(float, float)
FLT_TEST(double, double)

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
#define RUN(T, N)                                                                                  \
    test_##N();                                                                                    \
    globals_##N();
    AMO_TYPES(RUN)
#define RUNB(T, N) bit_##N();
    BIT_TYPES(RUNB)
    flt_float();
    flt_double();
    if (me == 0)
        printf("shmem_amo: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
