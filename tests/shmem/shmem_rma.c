/*
 * shmem_rma.c - RMA for every standard type (typed, generic and context
 * forms): put, p, iput, get, g, iget, put_nbi, get_nbi, put_signal(_nbi),
 * signal_fetch, signal_wait_until; the sized and mem forms; contexts made
 * from a team take that team's PE numbers.
 */
#include "check.h"

#define NE 37 /* odd, not a multiple of any element size */

static int me, npes, right, left;
static uint64_t *sig; /* symmetric signal words, one per round */
static int round_no;

/* Wait for the signal of this round from `left`, as every round's put
 * goes right. */
static void next_round(void)
{
    round_no++;
}

/* Global and static variables are symmetric: the same calls on them. */
static uint64_t g_sig[64];

#define RMA_TEST(T, N)                                                                             \
    static T g_dst_##N[2 * NE], g_src_##N[NE];                                                     \
    static void globals_##N(void)                                                                  \
    {                                                                                              \
        T loc[NE];                                                                                 \
        for (int i = 0; i < NE; i++)                                                               \
            g_src_##N[i] = TVAL(T, me, i, 9);                                                      \
        shmem_barrier_all();                                                                       \
        shmem_##N##_put(g_dst_##N, g_src_##N, NE, right);                                          \
        shmem_p(&g_dst_##N[NE], TVAL(T, me, 0, 10), right);                                        \
        shmem_iput(g_dst_##N + NE + 1, g_src_##N, 2, 1, 3, right);                                 \
        shmem_put_signal_nbi(g_dst_##N + NE + 8, g_src_##N, 4, &g_sig[round_no], 1,                \
                             SHMEM_SIGNAL_ADD, right);                                             \
        shmem_quiet();                                                                             \
        shmem_signal_wait_until(&g_sig[round_no], SHMEM_CMP_EQ, 1);                                \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < NE; i++)                                                               \
            CHECKF(g_dst_##N[i] == TVAL(T, left, i, 9), #N " put to a global %d", i);              \
        CHECK(g_dst_##N[NE] == TVAL(T, left, 0, 10));                                              \
        for (int i = 0; i < 3; i++)                                                                \
            CHECK(g_dst_##N[NE + 1 + 2 * i] == TVAL(T, left, i, 9));                               \
        for (int i = 0; i < 4; i++)                                                                \
            CHECK(g_dst_##N[NE + 8 + i] == TVAL(T, left, i, 9));                                   \
        shmem_get(loc, g_src_##N, NE, right);                                                      \
        for (int i = 0; i < NE; i++)                                                               \
            CHECKF(loc[i] == TVAL(T, right, i, 9), #N " get from a global %d", i);                 \
        CHECK(shmem_##N##_g(&g_src_##N[3], right) == TVAL(T, right, 3, 9));                        \
        round_no++;                                                                                \
        shmem_barrier_all();                                                                       \
    }                                                                                              \
    static void test_##N(void)                                                                     \
    {                                                                                              \
        T *dst = shmem_calloc(4 * NE, sizeof(T));                                                  \
        T *src = shmem_malloc(4 * NE * sizeof(T));                                                 \
        T loc[4 * NE];                                                                             \
        CHECK(dst &&src);                                                                          \
        for (int i = 0; i < 4 * NE; i++)                                                           \
            src[i] = TVAL(T, me, i, 1);                                                            \
        shmem_barrier_all();                                                                       \
        /* put (typed), put (generic), put with the default and a new context */                   \
        shmem_##N##_put(dst, src, NE, right);                                                      \
        shmem_put(dst + NE, src + NE, NE, right);                                                  \
        shmem_ctx_##N##_put(SHMEM_CTX_DEFAULT, dst + 2 * NE, src + 2 * NE, NE / 2, right);         \
        shmem_put(SHMEM_CTX_DEFAULT, dst + 2 * NE + NE / 2, src + 2 * NE + NE / 2, NE - NE / 2,    \
                  right);                                                                          \
        shmem_##N##_p(dst + 3 * NE, TVAL(T, me, 0, 2), right);                                     \
        shmem_p(dst + 3 * NE + 1, TVAL(T, me, 1, 2), right);                                       \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < 3 * NE; i++)                                                           \
            CHECKF(dst[i] == TVAL(T, left, i, 1), #N " put: element %d", i);                       \
        CHECK(dst[3 * NE] == TVAL(T, left, 0, 2) && dst[3 * NE + 1] == TVAL(T, left, 1, 2));       \
        /* get, g, in every form */                                                                \
        memset(loc, 0, sizeof loc);                                                                \
        shmem_##N##_get(loc, src, NE, right);                                                      \
        shmem_get(loc + NE, src + NE, NE, right);                                                  \
        shmem_ctx_##N##_get(SHMEM_CTX_DEFAULT, loc + 2 * NE, src + 2 * NE, NE, right);             \
        for (int i = 0; i < 3 * NE; i++)                                                           \
            CHECKF(loc[i] == TVAL(T, right, i, 1), #N " get: element %d", i);                      \
        CHECK(shmem_##N##_g(src + 5, right) == TVAL(T, right, 5, 1));                              \
        CHECK(shmem_g(src + 6, right) == TVAL(T, right, 6, 1));                                    \
        CHECK(shmem_g(SHMEM_CTX_DEFAULT, src + 7, right) == TVAL(T, right, 7, 1));                 \
        CHECK(shmem_ctx_##N##_g(SHMEM_CTX_DEFAULT, src + 8, right) == TVAL(T, right, 8, 1));       \
        shmem_barrier_all();                                                                       \
        /* strided: every 3rd source element to every 2nd destination slot */                      \
        memset(dst, 0, 4 * NE * sizeof(T));                                                        \
        shmem_barrier_all();                                                                       \
        shmem_##N##_iput(dst, src, 2, 3, NE / 3, right);                                           \
        shmem_iput(SHMEM_CTX_DEFAULT, dst + 2 * NE, src + 1, 1, 2, NE / 2, right);                 \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < NE / 3; i++) {                                                         \
            CHECKF(dst[2 * i] == TVAL(T, left, 3 * i, 1), #N " iput %d", i);                       \
            CHECKF(dst[2 * i + 1] == 0, #N " iput wrote a gap %d", i);                             \
        }                                                                                          \
        for (int i = 0; i < NE / 2; i++)                                                           \
            CHECKF(dst[2 * NE + i] == TVAL(T, left, 1 + 2 * i, 1), #N " ctx iput %d", i);          \
        memset(loc, 0, sizeof loc);                                                                \
        shmem_##N##_iget(loc, src, 3, 2, NE / 3, right);                                           \
        shmem_iget(loc + 1, src + 1, 3, 1, NE / 3, right);                                         \
        for (int i = 0; i < NE / 3; i++) {                                                         \
            CHECKF(loc[3 * i] == TVAL(T, right, 2 * i, 1), #N " iget %d", i);                      \
            CHECKF(loc[3 * i + 1] == TVAL(T, right, 1 + i, 1), #N " generic iget %d", i);          \
            CHECKF(loc[3 * i + 2] == 0, #N " iget wrote a gap %d", i);                             \
        }                                                                                          \
        shmem_barrier_all();                                                                       \
        /* non-blocking, completed by quiet */                                                     \
        memset(dst, 0, 4 * NE * sizeof(T));                                                        \
        shmem_barrier_all();                                                                       \
        shmem_##N##_put_nbi(dst, src, NE, right);                                                  \
        shmem_put_nbi(dst + NE, src + NE, NE, right);                                              \
        shmem_put_nbi(SHMEM_CTX_DEFAULT, dst + 2 * NE, src + 2 * NE, NE, right);                   \
        memset(loc, 0, sizeof loc);                                                                \
        shmem_##N##_get_nbi(loc, src, NE, right);                                                  \
        shmem_get_nbi(loc + NE, src + NE, NE, right);                                              \
        shmem_ctx_##N##_get_nbi(SHMEM_CTX_DEFAULT, loc + 2 * NE, src + 2 * NE, NE, right);         \
        shmem_quiet();                                                                             \
        for (int i = 0; i < 3 * NE; i++)                                                           \
            CHECKF(loc[i] == TVAL(T, right, i, 1), #N " get_nbi %d", i);                           \
        shmem_barrier_all();                                                                       \
        for (int i = 0; i < 3 * NE; i++)                                                           \
            CHECKF(dst[i] == TVAL(T, left, i, 1), #N " put_nbi %d", i);                            \
        shmem_barrier_all();                                                                       \
        /* put with signal: the data is there once the signal is */                                \
        for (int i = 0; i < 4 * NE; i++)                                                           \
            src[i] = TVAL(T, me, i, 3 + round_no);                                                 \
        uint64_t *s = &sig[round_no];                                                              \
        shmem_##N##_put_signal(dst, src, NE, s, 1, SHMEM_SIGNAL_SET, right);                       \
        shmem_put_signal(dst + NE, src + NE, NE, s, 1, SHMEM_SIGNAL_ADD, right);                   \
        shmem_ctx_##N##_put_signal_nbi(SHMEM_CTX_DEFAULT, dst + 2 * NE, src + 2 * NE, NE, s, 1,    \
                                       SHMEM_SIGNAL_ADD, right);                                   \
        shmem_put_signal_nbi(dst + 3 * NE, src + 3 * NE, NE, s, 1, SHMEM_SIGNAL_ADD, right);       \
        shmem_quiet();                                                                             \
        uint64_t got = shmem_signal_wait_until(s, SHMEM_CMP_EQ, 4);                                \
        CHECKF(got == 4, "signal %llu", (unsigned long long)got);                                  \
        CHECK(shmem_signal_fetch(s) == 4);                                                         \
        for (int i = 0; i < 4 * NE; i++)                                                           \
            CHECKF(dst[i] == TVAL(T, left, i, 3 + round_no), #N " put_signal %d", i);              \
        next_round();                                                                              \
        shmem_barrier_all();                                                                       \
        shmem_free(dst);                                                                           \
        shmem_free(src);                                                                           \
    }
TEST_RMA_TYPES(RMA_TEST)

/* Sized and mem forms move bytes of the given width. */
static void test_sized(void)
{
    enum { BYTES = 16 * 64 };
    unsigned char *dst = shmem_calloc(BYTES, 1), *src = shmem_malloc(BYTES);
    unsigned char loc[BYTES];
    uint64_t *s = &sig[round_no];
    for (int i = 0; i < BYTES; i++)
        src[i] = (unsigned char)(me * 31 + i);
    shmem_barrier_all();
#define SIZED(BITS)                                                                                \
    do {                                                                                           \
        size_t n = 64 / (BITS / 8) * 4; /* 256 bytes */                                            \
        memset(dst, 0, BYTES);                                                                     \
        shmem_barrier_all();                                                                       \
        shmem_put##BITS(dst, src, n / 4, right);                                                   \
        shmem_ctx_put##BITS(SHMEM_CTX_DEFAULT, dst + 64, src + 64, n / 4, right);                  \
        shmem_put##BITS##_nbi(dst + 128, src + 128, n / 4, right);                                 \
        shmem_put##BITS##_signal(dst + 192, src + 192, n / 8, s, 1, SHMEM_SIGNAL_ADD, right);      \
        shmem_put##BITS##_signal_nbi(dst + 224, src + 224, n / 8, s, 1, SHMEM_SIGNAL_ADD, right);  \
        shmem_quiet();                                                                             \
        shmem_iput##BITS(dst + 256, src, 2, 1, 4, right);                                          \
        shmem_barrier_all();                                                                       \
        CHECK(shmem_signal_wait_until(s, SHMEM_CMP_GE, 2) >= 2);                                   \
        *s = 0;                                                                                    \
        for (int i = 0; i < 256; i++)                                                              \
            CHECKF(dst[i] == (unsigned char)(left * 31 + i), "put" #BITS " byte %d", i);           \
        for (int e = 0; e < 4; e++)                                                                \
            for (int b = 0; b < BITS / 8; b++) {                                                   \
                CHECK(dst[256 + 2 * e * (BITS / 8) + b] ==                                         \
                      (unsigned char)(left * 31 + e * (BITS / 8) + b));                            \
                CHECK(dst[256 + (2 * e + 1) * (BITS / 8) + b] == 0);                               \
            }                                                                                      \
        memset(loc, 0, sizeof loc);                                                                \
        shmem_get##BITS(loc, src, n, right);                                                       \
        shmem_get##BITS##_nbi(loc + 256, src + 256, n, right);                                     \
        shmem_ctx_get##BITS(SHMEM_CTX_DEFAULT, loc + 512, src + 512, n, right);                    \
        shmem_quiet();                                                                             \
        for (int i = 0; i < 768; i++)                                                              \
            CHECKF(loc[i] == (unsigned char)(right * 31 + i), "get" #BITS " byte %d", i);          \
        memset(loc, 0, sizeof loc);                                                                \
        shmem_iget##BITS(loc, src, 1, 3, 4, right);                                                \
        for (int e = 0; e < 4; e++)                                                                \
            for (int b = 0; b < BITS / 8; b++)                                                     \
                CHECK(loc[e * (BITS / 8) + b] ==                                                   \
                      (unsigned char)(right * 31 + 3 * e * (BITS / 8) + b));                       \
        shmem_barrier_all();                                                                       \
    } while (0)
    SIZED(8);
    SIZED(16);
    SIZED(32);
    SIZED(64);
    SIZED(128);
    memset(dst, 0, BYTES);
    shmem_barrier_all();
    shmem_putmem(dst, src, 100, right);
    shmem_putmem_nbi(dst + 100, src + 100, 100, right);
    shmem_ctx_putmem(SHMEM_CTX_DEFAULT, dst + 200, src + 200, 100, right);
    shmem_putmem_signal(dst + 300, src + 300, 50, s, 7, SHMEM_SIGNAL_SET, right);
    shmem_quiet();
    CHECK(shmem_signal_wait_until(s, SHMEM_CMP_EQ, 7) == 7);
    shmem_putmem_signal_nbi(dst + 350, src + 350, 50, s + 1, 8, SHMEM_SIGNAL_SET, right);
    shmem_quiet();
    CHECK(shmem_signal_wait_until(s + 1, SHMEM_CMP_EQ, 8) == 8);
    shmem_barrier_all();
    for (int i = 0; i < 400; i++)
        CHECKF(dst[i] == (unsigned char)(left * 31 + i), "putmem byte %d", i);
    memset(loc, 0, sizeof loc);
    shmem_getmem(loc, src, 100, right);
    shmem_getmem_nbi(loc + 100, src + 100, 100, right);
    shmem_ctx_getmem_nbi(SHMEM_CTX_DEFAULT, loc + 200, src + 200, 100, right);
    shmem_quiet();
    for (int i = 0; i < 300; i++)
        CHECKF(loc[i] == (unsigned char)(right * 31 + i), "getmem byte %d", i);
    round_no += 2;
    shmem_barrier_all();
    shmem_free(dst);
    shmem_free(src);
}

/* A context made from a team numbers PEs within that team. */
static void test_team_ctx(void)
{
    shmem_team_t odd_even;
    int color = me % 2;
    int size = (npes - color + 1) / 2;
    /* Two split calls, each collective over the world: the evens, then the odds. */
    shmem_team_t evens, odds;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &evens) == 0);
    int nodds = npes / 2;
    odds = SHMEM_TEAM_INVALID;
    if (nodds > 0)
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 1, 2, nodds, NULL, 0, &odds) == 0);
    odd_even = color ? odds : evens;
    CHECK(odd_even != SHMEM_TEAM_INVALID);
    CHECK(shmem_team_n_pes(odd_even) == size);
    shmem_ctx_t ctx;
    CHECK(shmem_team_create_ctx(odd_even, SHMEM_CTX_PRIVATE, &ctx) == 0);
    shmem_team_t back;
    CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == odd_even);
    long *box = shmem_calloc(2, sizeof(long));
    int tme = shmem_team_my_pe(odd_even);
    int tright = (tme + 1) % size;
    long v = 1000 + me;
    shmem_ctx_long_put(ctx, box, &v, 1, tright);
    shmem_ctx_long_p(ctx, box + 1, 2000 + me, tright);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    int tleft_global = shmem_team_translate_pe(odd_even, (tme + size - 1) % size, SHMEM_TEAM_WORLD);
    CHECKF(box[0] == 1000 + tleft_global && box[1] == 2000 + tleft_global,
           "team ctx put: %ld %ld from global PE %d", box[0], box[1], tleft_global);
    CHECK(shmem_ctx_long_g(ctx, box, tright) ==
          1000 + shmem_team_translate_pe(odd_even, tme, SHMEM_TEAM_WORLD));
    shmem_ctx_fence(ctx);
    shmem_ctx_destroy(ctx);
    shmem_barrier_all();
    shmem_free(box);
    shmem_team_destroy(evens);
    if (odds != SHMEM_TEAM_INVALID)
        shmem_team_destroy(odds);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    right = (me + 1) % npes;
    left = (me + npes - 1) % npes;
    sig = shmem_calloc(64, sizeof(uint64_t));
    CHECK(sig);
#define RUN(T, N)                                                                                  \
    test_##N();                                                                                    \
    globals_##N();
    TEST_RMA_TYPES(RUN)
    test_sized();
    test_team_ctx();
    shmem_free(sig);
    if (me == 0)
        printf("shmem_rma: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
