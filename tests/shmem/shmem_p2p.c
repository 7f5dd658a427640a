/*
 * shmem_p2p.c - point-to-point synchronization for every p2p type:
 * wait_until (and the deprecated wait), wait_until_all/any/some and their
 * _vector forms, test and test_all/any/some(_vector), with status masks;
 * other PEs set the words while PE 0 waits.
 */
#include "check.h"

static int me, npes;

/* clang-format off */
#define P2P_TYPES(X)                                                                          \
    X(short, short) X(int, int) X(long, long) X(long long, longlong)                          \
    X(unsigned short, ushort) X(unsigned int, uint) X(unsigned long, ulong)                   \
    X(unsigned long long, ulonglong) X(int32_t, int32) X(int64_t, int64)                      \
    X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size) X(ptrdiff_t, ptrdiff)
/* clang-format on */

/* Each PE p sets flags[p] on PE 0 to p + 1 (phase 1), then to p + 101
 * (phase 2), then to 7 (phase 3); PE 0 waits in every form. */
#define P2P_TEST(T, N)                                                                             \
    static void test_##N(void)                                                                     \
    {                                                                                              \
        T *flags = shmem_calloc((size_t)npes + 1, sizeof(T));                                      \
        T *go = shmem_calloc(1, sizeof(T));                                                        \
        size_t *idx = malloc(((size_t)npes + 1) * sizeof *idx);                                    \
        int *status = calloc((size_t)npes + 1, sizeof *status);                                    \
        T *want = malloc(((size_t)npes + 1) * sizeof *want);                                       \
        /* phase 1: everyone, PE 0 included, raises its flag */                                    \
        shmem_##N##_p(&flags[me], (T)(me + 1), 0);                                                 \
        shmem_quiet();                                                                             \
        if (me == 0) {                                                                             \
            status[npes] = 1; /* the extra word never changes: excluded */                         \
            shmem_##N##_wait_until_all(flags, (size_t)npes + 1, status, SHMEM_CMP_GT, 0);          \
            CHECK(shmem_test_all(flags, (size_t)npes + 1, status, SHMEM_CMP_GT, 0) == 1);          \
            CHECK(shmem_##N##_test_all(flags, (size_t)npes + 1, NULL, SHMEM_CMP_GT, 0) == 0);      \
            for (int p = 0; p < npes; p++)                                                         \
                want[p] = (T)(p + 1);                                                              \
            shmem_wait_until_all_vector(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, want);            \
            CHECK(shmem_##N##_test_all_vector(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, want));     \
            CHECK(shmem_test(&flags[npes - 1], SHMEM_CMP_EQ, (T)npes));                            \
            CHECK(!shmem_##N##_test(&flags[npes], SHMEM_CMP_NE, 0));                               \
            /* any/some with everyone but the last masked out */                                   \
            for (int p = 0; p < npes; p++)                                                         \
                status[p] = p != npes - 1;                                                         \
            CHECK(shmem_##N##_wait_until_any(flags, (size_t)npes + 1, status, SHMEM_CMP_GE, 1) ==  \
                  (size_t)npes - 1);                                                               \
            CHECK(shmem_test_any(flags, (size_t)npes + 1, status, SHMEM_CMP_GE, 1) ==              \
                  (size_t)npes - 1);                                                               \
            CHECK(shmem_##N##_wait_until_some(flags, (size_t)npes + 1, idx, status, SHMEM_CMP_GE,  \
                                              1) == 1 &&                                           \
                  idx[0] == (size_t)npes - 1);                                                     \
            CHECK(shmem_test_some(flags, (size_t)npes + 1, idx, NULL, SHMEM_CMP_LE, (T)npes) ==    \
                  (size_t)npes + 1);                                                               \
            for (int p = 0; p <= npes; p++)                                                        \
                status[p] = 1;                                                                     \
            CHECK(shmem_##N##_wait_until_any(flags, (size_t)npes + 1, status, SHMEM_CMP_EQ, 0) ==  \
                  SIZE_MAX);                                                                       \
            CHECK(shmem_##N##_test_some(flags, (size_t)npes + 1, idx, status, SHMEM_CMP_EQ, 0) ==  \
                  0);                                                                              \
            memset(status, 0, ((size_t)npes + 1) * sizeof *status);                                \
            CHECK(shmem_##N##_test_any(flags, (size_t)npes, NULL, SHMEM_CMP_GT, (T)(npes + 5)) ==  \
                  SIZE_MAX);                                                                       \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        /* phase 2: PE 0 lets the others go, they set p + 101 */                                   \
        if (me == 0) {                                                                             \
            for (int p = 1; p < npes; p++)                                                         \
                shmem_##N##_p(go, 1, p);                                                           \
            flags[0] = 101;                                                                        \
            for (int p = 0; p < npes; p++)                                                         \
                want[p] = (T)(p + 101);                                                            \
            size_t got =                                                                           \
                shmem_wait_until_some_vector(flags, (size_t)npes, idx, NULL, SHMEM_CMP_EQ, want);  \
            CHECK(got >= 1 && got <= (size_t)npes);                                                \
            for (size_t k = 0; k < got; k++)                                                       \
                CHECK(flags[idx[k]] == want[idx[k]]);                                              \
            size_t any =                                                                           \
                shmem_##N##_wait_until_any_vector(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, want);  \
            CHECK(any < (size_t)npes && flags[any] == want[any]);                                  \
            shmem_##N##_wait_until_all_vector(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, want);      \
            /* every word satisfied: any index (scans rotate for fairness) */                      \
            CHECK(shmem_test_any_vector(flags, (size_t)npes, NULL, SHMEM_CMP_EQ, want) <           \
                  (size_t)npes);                                                                   \
            CHECK(shmem_##N##_test_some_vector(flags, (size_t)npes, idx, NULL, SHMEM_CMP_EQ,       \
                                               want) == (size_t)npes);                             \
        } else {                                                                                   \
            shmem_##N##_wait_until(go, SHMEM_CMP_EQ, 1);                                           \
            shmem_##N##_p(&flags[me], (T)(me + 101), 0);                                           \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        /* phase 3: the deprecated wait (until the value differs) */                               \
        if (me == npes - 1)                                                                        \
            shmem_##N##_p(go, 7, 0);                                                               \
        if (me == 0) {                                                                             \
            shmem_##N##_wait(go, 0);                                                               \
            if (npes > 1)                                                                          \
                shmem_wait_until(go, SHMEM_CMP_EQ, 7);                                             \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        free(idx);                                                                                 \
        free(status);                                                                              \
        free(want);                                                                                \
        shmem_free(flags);                                                                         \
        shmem_free(go);                                                                            \
    }
P2P_TYPES(P2P_TEST)

/* Globals are symmetric: PE 0 waits on a static array the others set. */
static long g_flags[64];
static uint64_t g_sig;

static void globals(void)
{
    shmem_long_atomic_set(&g_flags[me], me + 1, 0);
    shmem_putmem_signal(&g_flags[32 + me], &g_flags[me], 0, &g_sig, 1, SHMEM_SIGNAL_ADD, 0);
    if (me == 0) {
        shmem_wait_until_all(g_flags, (size_t)npes, NULL, SHMEM_CMP_GT, 0L);
        for (int p = 0; p < npes; p++)
            CHECK(g_flags[p] == p + 1);
        CHECK(shmem_signal_wait_until(&g_sig, SHMEM_CMP_EQ, (uint64_t)npes) == (uint64_t)npes);
        CHECK(shmem_long_test_any(g_flags, (size_t)npes, NULL, SHMEM_CMP_EQ, (long)npes) ==
              (size_t)npes - 1);
    }
    shmem_barrier_all();
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
#define RUN(T, N) test_##N();
    P2P_TYPES(RUN)
    globals();
    if (me == 0)
        printf("shmem_p2p: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
