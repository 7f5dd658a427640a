/*
 * shmem_active.c - the deprecated active-set collectives (pSync forms):
 * barrier, sync, broadcast32/64, collect32/64, fcollect32/64,
 * alltoall(s)32/64 and *_to_all reductions, on the whole job and on two
 * disjoint strided sets running at the same time, reusing one pSync array
 * call after call (it must be left at SHMEM_SYNC_VALUE every time).
 */
#include "check.h"

#define NE 9

static int me, npes;
static long *psync;
static void *wrk;

/* Run everything over the set (start, log_stride, size) I belong to. */
static void run_set(int start, int log_stride, int size)
{
    int stride = 1 << log_stride, idx = (me - start) / stride;
    int32_t *s32 = shmem_malloc(NE * (size_t)npes * 2 * sizeof(int64_t));
    int32_t *d32 = shmem_malloc(NE * (size_t)npes * 2 * sizeof(int64_t));
    int64_t *d64 = (int64_t *)d32;
    /* (allocation is collective: every PE runs run_set equally often) */
    for (int i = 0; i < NE * npes * 2; i++)
        s32[i] = idx * 1000 + i;
    shmem_barrier(start, log_stride, size, psync);
    shmem_sync(start, log_stride, size, psync);

    /* broadcast: root's dest is left alone, the others get root's data */
    for (int i = 0; i < NE; i++)
        d32[i] = -1;
    shmem_barrier(start, log_stride, size, psync);
    int root = size - 1;
    shmem_broadcast32(d32, s32, NE, root, start, log_stride, size, psync);
    for (int i = 0; i < NE; i++)
        CHECKF(d32[i] == (idx == root ? -1 : root * 1000 + i), "broadcast32 %d: %d", i, d32[i]);
    shmem_broadcast64(d64, s32, NE / 2, 0, start, log_stride, size, psync);
    if (idx != 0)
        for (int i = 0; i < NE / 2; i++)
            CHECKF(d32[2 * i] == 2 * i && d32[2 * i + 1] == 2 * i + 1, "broadcast64 %d", i);

    /* fcollect / collect (member k gives k % 3 + 1 elements) */
    shmem_fcollect32(d32, s32, NE, start, log_stride, size, psync);
    for (int k = 0; k < size; k++)
        for (int i = 0; i < NE; i++)
            CHECKF(d32[k * NE + i] == k * 1000 + i, "fcollect32 %d %d", k, i);
    shmem_collect32(d32, s32, (size_t)(idx % 3 + 1), start, log_stride, size, psync);
    for (int k = 0, at = 0; k < size; at += k % 3 + 1, k++)
        for (int i = 0; i < k % 3 + 1; i++)
            CHECKF(d32[at + i] == k * 1000 + i, "collect32 %d %d", k, i);
    shmem_collect64(d64, s32, (size_t)(idx % 2 + 1), start, log_stride, size, psync);
    for (int k = 0, at = 0; k < size; at += k % 2 + 1, k++)
        CHECKF(d32[2 * at] == k * 1000 && d32[2 * at + 1] == k * 1000 + 1, "collect64 %d", k);
    shmem_fcollect64(d64, s32, 1, start, log_stride, size, psync);
    for (int k = 0; k < size; k++)
        CHECK(d32[2 * k] == k * 1000 && d32[2 * k + 1] == k * 1000 + 1);

    /* alltoall: block j to member j */
    shmem_alltoall32(d32, s32, 2, start, log_stride, size, psync);
    for (int k = 0; k < size; k++)
        CHECKF(d32[2 * k] == k * 1000 + 2 * idx && d32[2 * k + 1] == k * 1000 + 2 * idx + 1,
               "alltoall32 from %d", k);
    shmem_alltoall64(d64, s32, 1, start, log_stride, size, psync);
    for (int k = 0; k < size; k++)
        CHECK(d32[2 * k] == k * 1000 + 2 * idx);
    for (int i = 0; i < NE * npes; i++)
        d32[i] = -1;
    shmem_barrier(start, log_stride, size, psync);
    shmem_alltoalls32(d32, s32, 2, 3, 1, start, log_stride, size, psync);
    for (int k = 0; k < size; k++) {
        CHECKF(d32[2 * k] == k * 1000 + 3 * idx, "alltoalls32 from %d: %d", k, d32[2 * k]);
        CHECK(d32[2 * k + 1] == -1);
    }
    shmem_alltoalls64(d64, s32, 1, 1, 1, start, log_stride, size, psync);
    for (int k = 0; k < size; k++)
        CHECK(d32[2 * k] == k * 1000 + 2 * idx);

    /* reductions, one per type family, dest == source for one of them */
    int *is = (int *)s32, *id = (int *)d32;
    for (int i = 0; i < NE; i++)
        is[i] = idx + i + 1;
    shmem_int_sum_to_all(id, is, NE, start, log_stride, size, wrk, psync);
    for (int i = 0; i < NE; i++)
        CHECK(id[i] == size * (i + 1) + size * (size - 1) / 2);
    shmem_int_max_to_all(id, is, NE, start, log_stride, size, wrk, psync);
    shmem_int_min_to_all(id + NE, is, NE, start, log_stride, size, wrk, psync);
    shmem_int_prod_to_all(id + 2 * NE, is, 2, start, log_stride, size, wrk, psync);
    for (int i = 0; i < NE; i++)
        CHECK(id[i] == size + i && id[NE + i] == i + 1);
    long long prod = 1;
    for (int k = 0; k < size; k++)
        prod *= k + 1;
    CHECK(id[2 * NE] == (int)prod);
    for (int i = 0; i < NE; i++)
        is[i] = 1 << ((idx + i) % 20);
    shmem_int_or_to_all(id, is, NE, start, log_stride, size, wrk, psync);
    shmem_int_xor_to_all(id + NE, is, NE, start, log_stride, size, wrk, psync);
    shmem_int_and_to_all(id + 2 * NE, is, NE, start, log_stride, size, wrk, psync);
    for (int i = 0; i < NE; i++) {
        int o = 0, x = 0, a = -1;
        for (int k = 0; k < size; k++) {
            o |= 1 << ((k + i) % 20);
            x ^= 1 << ((k + i) % 20);
            a &= 1 << ((k + i) % 20);
        }
        CHECK(id[i] == o && id[NE + i] == x && id[2 * NE + i] == a);
    }
    double *ds = (double *)s32;
    for (int i = 0; i < NE; i++)
        ds[i] = 0.5 * (idx + i);
    shmem_double_sum_to_all(ds, ds, NE, start, log_stride, size, wrk, psync); /* in place */
    for (int i = 0; i < NE; i++)
        CHECK(ds[i] == 0.5 * (size * i + size * (size - 1) / 2));
    long double *ls = (long double *)s32, *ld = (long double *)d32;
    for (int i = 0; i < 3; i++)
        ls[i] = (long double)idx - i;
    shmem_longdouble_min_to_all(ld, ls, 3, start, log_stride, size, wrk, psync);
    for (int i = 0; i < 3; i++)
        CHECK(ld[i] == (long double)-i);
    double _Complex *cs = (double _Complex *)s32, *cd = (double _Complex *)d32;
    cs[0] = idx + 1;
    shmem_complexd_sum_to_all(cd, cs, 1, start, log_stride, size, wrk, psync);
    CHECK(cd[0] == (double)(size * (size + 1) / 2));
    short *ss = (short *)s32, *sd = (short *)d32;
    ss[0] = (short)idx;
    shmem_short_max_to_all(sd, ss, 1, start, log_stride, size, wrk, psync);
    CHECK(sd[0] == size - 1);
    shmem_barrier(start, log_stride, size, psync);
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        CHECKF(psync[i] == SHMEM_SYNC_VALUE, "pSync[%d] = %ld after the calls", i, psync[i]);
    shmem_free(s32);
    shmem_free(d32);
}

/* Globals are symmetric: pSync, pWrk and buffers as static arrays. */
static long g_psync[SHMEM_BCAST_SYNC_SIZE] = {SHMEM_SYNC_VALUE, SHMEM_SYNC_VALUE, SHMEM_SYNC_VALUE,
                                              SHMEM_SYNC_VALUE};
static long g_src[64], g_dst[64 * 8];
static long g_wrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];

static void globals(void)
{
    for (int i = 0; i < 4; i++)
        g_src[i] = me * 10 + i;
    shmem_barrier_all();
    shmem_broadcast64(g_dst, g_src, 4, 0, 0, 0, npes, g_psync);
    if (me != 0)
        for (int i = 0; i < 4; i++)
            CHECK(g_dst[i] == i);
    shmem_fcollect64(g_dst, g_src, 2, 0, 0, npes, g_psync);
    for (int k = 0; k < npes; k++)
        CHECK(g_dst[2 * k] == k * 10 && g_dst[2 * k + 1] == k * 10 + 1);
    shmem_long_sum_to_all(g_dst, g_src, 4, 0, 0, npes, g_wrk, g_psync);
    for (int i = 0; i < 4; i++)
        CHECK(g_dst[i] == 10L * npes * (npes - 1) / 2 + (long)npes * i);
    shmem_barrier(0, 0, npes, g_psync);
    for (int i = 0; i < SHMEM_BCAST_SYNC_SIZE; i++)
        CHECK(g_psync[i] == SHMEM_SYNC_VALUE);
}

int main(void)
{
    shmem_init();
    me = shmem_my_pe();
    npes = shmem_n_pes();
    psync = shmem_malloc(SHMEM_REDUCE_SYNC_SIZE * sizeof(long));
    wrk = shmem_malloc(SHMEM_REDUCE_MIN_WRKDATA_SIZE * 64);
    for (int i = 0; i < SHMEM_REDUCE_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    for (int rep = 0; rep < 2; rep++) {
        /* the whole job */
        run_set(0, 0, npes);
        shmem_barrier_all();
        /* evens and odds at the same time, sharing the pSync array */
        if (me % 2 == 0)
            run_set(0, 1, (npes + 1) / 2);
        else
            run_set(1, 1, npes / 2);
        shmem_barrier_all();
    }
    globals();
    shmem_free(wrk);
    shmem_free(psync);
    if (me == 0)
        printf("shmem_active: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
