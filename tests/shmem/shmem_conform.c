/*
 * shmem_conform.c - OpenSHMEM 1.5 behaviours that portable programs rely
 * on, each checked as the specification states it:
 *
 *   sync       shmem_sync(team) (the team form, next to the deprecated
 *              active-set form) synchronises the team's PEs; together with a
 *              preceding quiet it makes their puts visible;
 *   team_ptr   shmem_team_ptr(team, dest, pe) is shmem_ptr of the team's PE
 *              pe; NULL for SHMEM_TEAM_INVALID;
 *   zero       a transfer of zero elements is a no-op whatever its
 *              addresses: NULL buffers included, for RMA and the deprecated
 *              active-set collectives alike;
 *   align      shmem_align returns memory aligned to any power of two that
 *              fits in the symmetric heap, beyond 2 MiB;
 *   ctx        routines called with SHMEM_CTX_INVALID do nothing;
 *   fair       shmem_test_any (and _some) called in a loop over words that
 *              all stay satisfied return every index, not the first one
 *              over and over;
 *   poll       a PE that only polls with shmem_test and shmem_signal_fetch
 *              serves the atomics and puts its peers make on it (a
 *              transport with manual progress needs the target's calls).
 *
 * Run with no argument: all of them.  `exit`: PE 0 calls
 * shmem_global_exit(99) while the others wait in shmem_barrier_all; the job
 * must end with status 99 (every PE's status, the launcher's).
 */
#include <stdint.h>

#include "check.h"

static long psync[SHMEM_BARRIER_SYNC_SIZE];
static long sync_counter;
static uint64_t poll_sig;
static long poll_flag, poll_sum;

static void check_sync(int me, int npes)
{
    /* every PE adds one to PE 0's counter, completes it, then joins */
    shmem_long_atomic_add(&sync_counter, 1, 0);
    shmem_quiet();
    CHECK(shmem_sync(SHMEM_TEAM_WORLD) == 0);
    if (me == 0)
        CHECKF(shmem_long_atomic_fetch(&sync_counter, 0) == npes, "counter %ld, want %d",
               shmem_long_atomic_fetch(&sync_counter, 0), npes);
    CHECK(shmem_team_sync(SHMEM_TEAM_WORLD) == 0);
    /* the deprecated form still takes the active set and a pSync */
    for (int i = 0; i < SHMEM_BARRIER_SYNC_SIZE; i++)
        psync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    shmem_sync(0, 0, npes, psync);
    shmem_sync(0, 0, npes, psync);
    shmem_barrier_all();
}

static void check_team_ptr(int me, int npes)
{
    long *buf = shmem_calloc(4, sizeof(long));
    CHECK(buf);
    for (int pe = 0; pe < npes; pe++)
        CHECK(shmem_team_ptr(SHMEM_TEAM_WORLD, buf, pe) == shmem_ptr(buf, pe));
    CHECK(shmem_team_ptr(SHMEM_TEAM_INVALID, buf, 0) == NULL);
    /* PE pe of the even PEs' team is world PE 2 * pe */
    shmem_team_t even = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 2, (npes + 1) / 2, NULL, 0, &even) == 0);
    if (me % 2 == 0) {
        CHECK(even != SHMEM_TEAM_INVALID);
        for (int pe = 0; pe < (npes + 1) / 2; pe++)
            CHECK(shmem_team_ptr(even, buf, pe) == shmem_ptr(buf, 2 * pe));
        CHECK(shmem_team_ptr(even, buf, (npes + 1) / 2) == NULL); /* not a member */
        /* the pointer reaches the PE's object: write through it, read back */
        long *mine = shmem_team_ptr(even, buf, shmem_team_my_pe(even));
        CHECK(mine == buf);
        mine[1] = 42 + me;
        CHECK(buf[1] == 42 + me);
        shmem_team_destroy(even);
    } else {
        CHECK(even == SHMEM_TEAM_INVALID);
    }
    shmem_barrier_all();
    shmem_free(buf);
}

static void check_zero(int me, int npes)
{
    const int peer = (me + 1) % npes;
    static uint64_t sig;
    shmem_putmem(NULL, NULL, 0, peer);
    shmem_getmem(NULL, NULL, 0, peer);
    shmem_putmem_nbi(NULL, NULL, 0, peer);
    shmem_getmem_nbi(NULL, NULL, 0, peer);
    shmem_long_put(NULL, NULL, 0, peer);
    shmem_long_get(NULL, NULL, 0, peer);
    shmem_int_iput(NULL, NULL, 1, 1, 0, peer);
    shmem_int_iget(NULL, NULL, 1, 1, 0, peer);
    shmem_put64(NULL, NULL, 0, peer);
    shmem_get32_nbi(NULL, NULL, 0, peer);
    shmem_ctx_putmem(SHMEM_CTX_DEFAULT, NULL, NULL, 0, peer);
    shmem_ctx_double_get(SHMEM_CTX_DEFAULT, NULL, NULL, 0, peer);
    shmem_quiet();
    /* a zero-length put with signal still delivers the signal */
    shmem_putmem_signal(NULL, NULL, 0, &sig, 7, SHMEM_SIGNAL_ADD, peer);
    shmem_quiet();
    shmem_barrier_all();
    CHECKF(shmem_signal_fetch(&sig) == 7, "signal %llu",
           (unsigned long long)shmem_signal_fetch(&sig));
    /* the deprecated active-set collectives with zero elements */
    static long bsync[SHMEM_BCAST_SYNC_SIZE], csync[SHMEM_COLLECT_SYNC_SIZE],
        async[SHMEM_ALLTOALL_SYNC_SIZE], rsync[SHMEM_REDUCE_SYNC_SIZE];
    static long pwrk[SHMEM_REDUCE_MIN_WRKDATA_SIZE];
    for (int i = 0; i < SHMEM_SYNC_SIZE; i++)
        bsync[i] = csync[i] = async[i] = rsync[i] = SHMEM_SYNC_VALUE;
    shmem_barrier_all();
    shmem_broadcast64(NULL, NULL, 0, 0, 0, 0, npes, bsync);
    shmem_barrier_all();
    shmem_broadcast32(NULL, NULL, 0, 0, 0, 0, npes, bsync);
    shmem_barrier_all();
    shmem_fcollect64(NULL, NULL, 0, 0, 0, npes, csync);
    shmem_barrier_all();
    shmem_collect32(NULL, NULL, 0, 0, 0, npes, csync);
    shmem_barrier_all();
    shmem_alltoall64(NULL, NULL, 0, 0, 0, npes, async);
    shmem_barrier_all();
    shmem_alltoalls32(NULL, NULL, 1, 1, 0, 0, 0, npes, async);
    shmem_barrier_all();
    shmem_long_sum_to_all(NULL, NULL, 0, 0, 0, npes, pwrk, rsync);
    shmem_barrier_all();
    shmem_int_max_to_all(NULL, NULL, 0, 0, 0, npes, (int *)pwrk, rsync);
    shmem_barrier_all();
    /* and the team collectives */
    CHECK(shmem_long_broadcast(SHMEM_TEAM_WORLD, NULL, NULL, 0, 0) == 0);
    CHECK(shmem_long_fcollect(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0);
    CHECK(shmem_long_alltoall(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0);
    CHECK(shmem_long_sum_reduce(SHMEM_TEAM_WORLD, NULL, NULL, 0) == 0);
    shmem_barrier_all();
}

static void check_align(int me, int npes)
{
    const int peer = (me + 1) % npes;
    for (size_t align = 1; align <= ((size_t)8 << 20); align *= 4) {
        unsigned char *p = shmem_align(align, 4096);
        CHECKF(p != NULL, "shmem_align(%zu, 4096) failed", align);
        CHECKF((uintptr_t)p % align == 0, "shmem_align(%zu) returned %p", align, (void *)p);
        /* the object is symmetric: write the next PE's, read it back */
        unsigned char v = (unsigned char)(me + align % 251);
        shmem_putmem(p + 4095, &v, 1, peer);
        shmem_barrier_all();
        unsigned char got = 0;
        shmem_getmem(&got, p + 4095, 1, peer);
        CHECK(got == (unsigned char)((peer + npes - 1) % npes + align % 251));
        shmem_barrier_all();
        shmem_free(p);
    }
    /* 4 GiB: a power of two beyond this heap: refused, on every PE */
    CHECK(shmem_align((size_t)4 << 30, 64) == NULL);
}

static void check_ctx_invalid(int me, int npes)
{
    const int peer = (me + 1) % npes;
    long *buf = shmem_calloc(4, sizeof(long));
    CHECK(buf);
    long src[4] = {1, 2, 3, 4}, local[4] = {5, 6, 7, 8}, fetched = -1;
    shmem_ctx_long_put(SHMEM_CTX_INVALID, buf, src, 4, peer);
    shmem_ctx_long_p(SHMEM_CTX_INVALID, buf, 9, peer);
    shmem_ctx_long_get(SHMEM_CTX_INVALID, local, buf, 4, peer);
    shmem_ctx_long_atomic_add(SHMEM_CTX_INVALID, buf, 3, peer);
    shmem_ctx_long_atomic_fetch_add_nbi(SHMEM_CTX_INVALID, &fetched, buf, 3, peer);
    shmem_ctx_fence(SHMEM_CTX_INVALID);
    shmem_ctx_quiet(SHMEM_CTX_INVALID);
    shmem_ctx_destroy(SHMEM_CTX_INVALID);
    shmem_barrier_all();
    for (int i = 0; i < 4; i++) {
        CHECKF(buf[i] == 0, "buf[%d] = %ld after operations on SHMEM_CTX_INVALID", i, buf[i]);
        CHECK(local[i] == 5 + i);
    }
    CHECK(fetched == -1);
    /* as in the specification's example: a context a team could not make
     * stays SHMEM_CTX_INVALID, and using it does nothing */
    shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &ctx) != 0);
    CHECK(ctx == SHMEM_CTX_INVALID);
    shmem_ctx_long_p(ctx, buf, 1, peer);
    shmem_ctx_quiet(ctx);
    shmem_barrier_all();
    CHECK(buf[0] == 0);
    shmem_free(buf);
}

static void check_fair(void)
{
    enum { N = 7 };
    static long ivars[N];
    int seen[N] = {0}, status[N] = {0};
    for (int i = 0; i < N; i++)
        ivars[i] = 1;
    /* every word satisfies the test all along: N calls return N indices */
    for (int k = 0; k < N; k++) {
        size_t i = shmem_long_test_any(ivars, N, NULL, SHMEM_CMP_EQ, 1);
        CHECK(i < N);
        seen[i]++;
    }
    for (int i = 0; i < N; i++)
        CHECKF(seen[i] == 1, "shmem_test_any returned index %d %d times in %d calls", i, seen[i],
               N);
    /* excluded words are skipped in the rotation too */
    status[2] = status[5] = 1;
    memset(seen, 0, sizeof seen);
    for (int k = 0; k < 2 * (N - 2); k++) {
        size_t i = shmem_long_test_any(ivars, N, status, SHMEM_CMP_EQ, 1);
        CHECK(i < N && !status[i]);
        seen[i]++;
    }
    for (int i = 0; i < N; i++)
        CHECK(seen[i] == (status[i] ? 0 : 2));
    /* wait_until_any and the vector form rotate the same way */
    memset(seen, 0, sizeof seen);
    long cmp_values[N];
    for (int i = 0; i < N; i++)
        cmp_values[i] = 1;
    for (int k = 0; k < N; k++) {
        size_t i = k % 2 ? shmem_long_wait_until_any(ivars, N, NULL, SHMEM_CMP_EQ, 1)
                         : shmem_long_test_any_vector(ivars, N, NULL, SHMEM_CMP_EQ, cmp_values);
        CHECK(i < N);
        seen[i]++;
    }
    for (int i = 0; i < N; i++)
        CHECK(seen[i] == 1);
    /* test_some returns every satisfied index, each once */
    size_t idx[N];
    CHECK(shmem_long_test_some(ivars, N, idx, NULL, SHMEM_CMP_EQ, 1) == N);
    memset(seen, 0, sizeof seen);
    for (int i = 0; i < N; i++)
        seen[idx[i]]++;
    for (int i = 0; i < N; i++)
        CHECK(seen[i] == 1);
}

static void check_poll(int me, int npes)
{
    /* PE 0 makes atomics and puts on the last PE, completes them, then sets
     * its flag; the last PE meanwhile only polls */
    const int target = npes - 1;
    shmem_barrier_all();
    if (me == 0 && target != 0) {
        for (int i = 0; i < 16; i++)
            shmem_long_atomic_add(&poll_sum, i, target);
        shmem_quiet();
        CHECK(shmem_long_atomic_fetch(&poll_sum, target) == 120);
        shmem_long_atomic_set(&poll_flag, 1, target);
        shmem_quiet();
        shmem_putmem_signal(&poll_sum, &poll_sum, 0, &poll_sig, 1, SHMEM_SIGNAL_SET, target);
        shmem_quiet();
    } else if (me == target && target != 0) {
        while (!shmem_long_test(&poll_flag, SHMEM_CMP_EQ, 1))
            ;
        CHECK(poll_sum == 120);
        while (shmem_signal_fetch(&poll_sig) != 1)
            ;
    }
    shmem_barrier_all();
}

int main(int argc, char **argv)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes();
    if (argc > 1 && strcmp(argv[1], "exit") == 0) {
        shmem_barrier_all();
        if (me == 0)
            shmem_global_exit(99);
        shmem_barrier_all(); /* blocked until PE 0's exit ends the job */
        if (npes > 1) {
            fprintf(stderr, "PE %d: the barrier returned after PE 0's shmem_global_exit\n", me);
            return 3;
        }
        return 0;
    }
    check_sync(me, npes);
    check_team_ptr(me, npes);
    check_zero(me, npes);
    check_align(me, npes);
    check_ctx_invalid(me, npes);
    check_fair();
    check_poll(me, npes);
    shmem_finalize();
    return 0;
}
