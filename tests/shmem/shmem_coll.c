/*
 * shmem_coll.c - team collectives: barrier_all, sync_all, team_sync,
 * broadcast, collect (uneven counts), fcollect, alltoall, alltoalls for
 * every standard RMA type plus the mem forms; every and/or/xor, max/min,
 * sum/prod reduction for its types.  Run on the world, the shared team
 * and a strided team; results compared with a locally computed reference.
 */
#include "check.h"

#define NE 11

static int me, npes;
/* Symmetric buffers for every call (collectives take symmetric objects),
 * allocated once by all PEs: room for NE * npes * 3 of the widest type. */
static void *sym_src, *sym_dst, *sym_red_s, *sym_red_d;

/* clang-format off */
#define BIT_RED_TYPES(X)                                                                      \
    X(unsigned char, uchar) X(unsigned short, ushort) X(unsigned int, uint)                   \
    X(unsigned long, ulong) X(unsigned long long, ulonglong) X(int8_t, int8)                  \
    X(int16_t, int16) X(int32_t, int32) X(int64_t, int64) X(uint8_t, uint8)                   \
    X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64) X(size_t, size)
/* clang-format on */
#define CMPLX_TYPES(X) X(double _Complex, complexd) X(float _Complex, complexf)

#define DATA_TEST(T, N)                                                                            \
    static void data_##N(shmem_team_t team)                                                        \
    {                                                                                              \
        int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);                                \
        T *src = sym_src, *dst = sym_dst;                                                          \
        for (int i = 0; i < NE * n * 3; i++)                                                       \
            src[i] = TVAL(T, t, i, 5);                                                             \
        /* broadcast from the last member: dest updated everywhere, root too */                    \
        memset(dst, 0, NE * sizeof(T));                                                            \
        CHECK(shmem_##N##_broadcast(team, dst, src, NE, n - 1) == 0);                              \
        for (int i = 0; i < NE; i++)                                                               \
            CHECKF(dst[i] == TVAL(T, n - 1, i, 5), #N " broadcast %d", i);                         \
        CHECK(shmem_broadcast(team, dst, src + 1, NE - 1, 0) == 0);                                \
        for (int i = 0; i < NE - 1; i++)                                                           \
            CHECK(dst[i] == TVAL(T, 0, i + 1, 5));                                                 \
        /* fcollect and collect (member k gives k % 3 + 1 elements) */                             \
        CHECK(shmem_##N##_fcollect(team, dst, src, NE) == 0);                                      \
        for (int k = 0; k < n; k++)                                                                \
            for (int i = 0; i < NE; i++)                                                           \
                CHECKF(dst[k * NE + i] == TVAL(T, k, i, 5), #N " fcollect %d %d", k, i);           \
        memset(dst, 0, NE *(size_t)n * sizeof(T));                                                 \
        CHECK(shmem_collect(team, dst, src, (size_t)(t % 3 + 1)) == 0);                            \
        for (int k = 0, at = 0; k < n; at += k % 3 + 1, k++)                                       \
            for (int i = 0; i < k % 3 + 1; i++)                                                    \
                CHECKF(dst[at + i] == TVAL(T, k, i, 5), #N " collect %d %d", k, i);                \
        CHECK(shmem_fcollect(team, dst, src, 2) == 0 && dst[2 * n - 1] == TVAL(T, n - 1, 1, 5));   \
        CHECK(shmem_##N##_collect(team, dst, src, 1) == 0 && dst[n - 1] == TVAL(T, n - 1, 0, 5));  \
        /* alltoall: block j of member k goes to member j */                                       \
        CHECK(shmem_##N##_alltoall(team, dst, src, 2) == 0);                                       \
        for (int k = 0; k < n; k++)                                                                \
            for (int i = 0; i < 2; i++)                                                            \
                CHECKF(dst[k * 2 + i] == TVAL(T, k, t * 2 + i, 5), #N " alltoall %d", k);          \
        CHECK(shmem_alltoall(team, dst, src, 1) == 0 && dst[n - 1] == TVAL(T, n - 1, t, 5));       \
        /* alltoalls, dest stride 3, source stride 2 */                                            \
        memset(dst, 0, NE *(size_t)n * 3 * sizeof(T));                                             \
        CHECK(shmem_##N##_alltoalls(team, dst, src, 3, 2, 2) == 0);                                \
        for (int k = 0; k < n; k++)                                                                \
            for (int i = 0; i < 2; i++) {                                                          \
                CHECKF(dst[(k * 2 + i) * 3] == TVAL(T, k, (t * 2 + i) * 2, 5),                     \
                       #N " alltoalls %d %d", k, i);                                               \
                CHECK(dst[(k * 2 + i) * 3 + 1] == 0);                                              \
            }                                                                                      \
        CHECK(shmem_alltoalls(team, dst, src, 1, 1, 1) == 0 && dst[0] == TVAL(T, 0, t, 5));        \
    }
TEST_RMA_TYPES(DATA_TEST)

/* Inputs of member p, element i, per operation: exact in every type. */
#define IN_SUM(T, p, i)  ((T)(((p)*3 + (i)) % 10 + 1))
#define IN_PROD(T, p, i) ((T)(((p) + (i)) % 3 == 0 ? 2 : 1))
#define IN_MM(T, p, i)   ((T)(((p)*7 + (i)*3) % 50 + 1))
#define IN_BIT(T, p, i)  ((T)((((p) + 1) * 37 + (i)*11) & 0x7f))

#define RED_CHECK(T, N, op, IN, combine)                                                           \
    do {                                                                                           \
        T *s = sym_red_s, *d = sym_red_d, ref[NE];                                                 \
        for (int i = 0; i < NE; i++) {                                                             \
            s[i] = IN(T, t, i);                                                                    \
            ref[i] = IN(T, 0, i);                                                                  \
            for (int p = 1; p < n; p++) {                                                          \
                T x = IN(T, p, i);                                                                 \
                combine;                                                                           \
            }                                                                                      \
        }                                                                                          \
        CHECK(shmem_##N##_##op##_reduce(team, d, s, NE) == 0);                                     \
        for (int i = 0; i < NE; i++)                                                               \
            CHECKF(d[i] == ref[i], #N " " #op "_reduce element %d", i);                            \
        shmem_team_sync(team); /* all have read s before it is reused */                           \
        /* in place, through the generic name */                                                   \
        CHECK(shmem_##op##_reduce(team, s, s, NE) == 0);                                           \
        for (int i = 0; i < NE; i++)                                                               \
            CHECKF(s[i] == ref[i], #N " in-place " #op "_reduce element %d", i);                   \
    } while (0)

#define ARITH_TEST(T, N)                                                                           \
    static void arith_##N(shmem_team_t team)                                                       \
    {                                                                                              \
        int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);                                \
        RED_CHECK(T, N, sum, IN_SUM, ref[i] = (T)(ref[i] + x));                                    \
        RED_CHECK(T, N, prod, IN_PROD, ref[i] = (T)(ref[i] * x));                                  \
    }
#define MM_TEST(T, N)                                                                              \
    ARITH_TEST(T, N)                                                                               \
    static void mm_##N(shmem_team_t team)                                                          \
    {                                                                                              \
        int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);                                \
        RED_CHECK(T, N, max, IN_MM, if (x > ref[i]) ref[i] = x);                                   \
        RED_CHECK(T, N, min, IN_MM, if (x < ref[i]) ref[i] = x);                                   \
    }
#define BIT_TEST(T, N)                                                                             \
    static void bit_##N(shmem_team_t team)                                                         \
    {                                                                                              \
        int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);                                \
        RED_CHECK(T, N, and, IN_BIT, ref[i] &= x);                                                 \
        RED_CHECK(T, N, or, IN_BIT, ref[i] |= x);                                                  \
        RED_CHECK(T, N, xor, IN_BIT, ref[i] ^= x);                                                 \
    }
TEST_RMA_TYPES(MM_TEST)
CMPLX_TYPES(ARITH_TEST)
BIT_RED_TYPES(BIT_TEST)

static void mem_forms(shmem_team_t team)
{
    int n = shmem_team_n_pes(team), t = shmem_team_my_pe(team);
    unsigned char *src = sym_src, *dst = sym_dst;
    for (int i = 0; i < 64 * 8; i++)
        src[i] = (unsigned char)(t * 17 + i);
    CHECK(shmem_broadcastmem(team, dst, src, 33, 0) == 0);
    for (int i = 0; i < 33; i++)
        CHECK(dst[i] == (unsigned char)i);
    CHECK(shmem_fcollectmem(team, dst, src, 5) == 0);
    for (int k = 0; k < n; k++)
        CHECK(dst[k * 5 + 4] == (unsigned char)(k * 17 + 4));
    CHECK(shmem_collectmem(team, dst, src, (size_t)t + 1) == 0);
    for (int k = 0, at = 0; k < n; at += k + 1, k++)
        CHECK(dst[at + k] == (unsigned char)(k * 17 + k));
    CHECK(shmem_alltoallmem(team, dst, src, 3) == 0);
    for (int k = 0; k < n; k++)
        CHECK(dst[k * 3 + 2] == (unsigned char)(k * 17 + t * 3 + 2));
    CHECK(shmem_alltoallsmem(team, dst, src, 2, 3, 1) == 0);
    for (int k = 0; k < n; k++)
        CHECK(dst[k * 2] == (unsigned char)(k * 17 + t * 3));
}

static void run_on(shmem_team_t team)
{
    CHECK(shmem_team_sync(team) == 0);
#define RUN_DATA(T, N) data_##N(team);
    TEST_RMA_TYPES(RUN_DATA)
#define RUN_MM(T, N)                                                                               \
    mm_##N(team);                                                                                  \
    arith_##N(team);
    TEST_RMA_TYPES(RUN_MM)
#define RUN_ARITH(T, N) arith_##N(team);
    CMPLX_TYPES(RUN_ARITH)
#define RUN_BIT(T, N) bit_##N(team);
    BIT_RED_TYPES(RUN_BIT)
    mem_forms(team);
    CHECK(shmem_team_sync(team) == 0);
}

/* Globals are symmetric: source and dest as static arrays. */
static double g_in[8], g_out[8 * 64];
static int g_ibuf[64], g_iout[64 * 64];

static void globals(void)
{
    for (int i = 0; i < 8; i++)
        g_in[i] = me + 0.25 * i;
    g_ibuf[0] = me;
    CHECK(shmem_double_sum_reduce(SHMEM_TEAM_WORLD, g_out, g_in, 8) == 0);
    for (int i = 0; i < 8; i++)
        CHECK(g_out[i] == npes * (npes - 1) / 2.0 + npes * 0.25 * i);
    CHECK(shmem_fcollect(SHMEM_TEAM_WORLD, g_iout, g_ibuf, 1) == 0);
    for (int k = 0; k < npes; k++)
        CHECK(g_iout[k] == k);
    CHECK(shmem_broadcast(SHMEM_TEAM_WORLD, g_out, g_in, 8, npes - 1) == 0);
    CHECK(g_out[7] == npes - 1 + 0.25 * 7);
    CHECK(shmem_int_alltoall(SHMEM_TEAM_WORLD, g_iout, g_ibuf, 1) == 0 || npes > 64);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    /* barrier_all completes puts; sync_all just synchronises */
    int *x = shmem_calloc(1, sizeof(int));
    size_t room = NE * (size_t)npes * 3 * 32 + 4096;
    sym_src = shmem_malloc(room);
    sym_dst = shmem_malloc(room);
    sym_red_s = shmem_malloc(NE * 32);
    sym_red_d = shmem_malloc(NE * 32);
    CHECK(x && sym_src && sym_dst && sym_red_s && sym_red_d);
    shmem_int_p(x, me + 1, (me + 1) % npes);
    shmem_barrier_all();
    CHECK(*x == (me + npes - 1) % npes + 1);
    shmem_sync_all();
    run_on(SHMEM_TEAM_WORLD);
    run_on(SHMEM_TEAM_SHARED);
    /* every other PE, from the last one down: a team in reversed order */
    shmem_team_t odd;
    int size = (npes + 1) / 2;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes - 1, -2, size, NULL, 0, &odd) == 0);
    if (odd != SHMEM_TEAM_INVALID) {
        CHECK((npes - 1 - me) % 2 == 0);
        CHECK(shmem_team_my_pe(odd) == (npes - 1 - me) / 2);
        run_on(odd);
        shmem_team_destroy(odd);
    } else {
        CHECK((npes - 1 - me) % 2 == 1);
    }
    globals();
    shmem_free(x);
    shmem_free(sym_src);
    shmem_free(sym_dst);
    shmem_free(sym_red_s);
    shmem_free(sym_red_d);
    if (me == 0)
        printf("shmem_coll: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
