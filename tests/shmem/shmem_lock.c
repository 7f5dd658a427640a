/*
 * shmem_lock.c - distributed locks under contention: a counter on PE 0
 * updated with a non-atomic get-modify-put inside set_lock/clear_lock
 * loses no update; test_lock acquires only a free lock; every PE gets the
 * lock (no starvation) while others hammer it; fence, quiet, pcontrol.
 */
#include "check.h"

#define ROUNDS 30

/* Globals are symmetric: the usual `static long lock` pattern. */
static long g_lock;
static long g_counter;

int main(void)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *lock = shmem_calloc(2, sizeof(long));
    long *counter = shmem_calloc(1, sizeof(long));
    long *order = shmem_calloc((size_t)npes * ROUNDS * 2 + 1, sizeof(long));
    shmem_pcontrol(1);
    shmem_barrier_all();
    for (int r = 0; r < ROUNDS; r++) {
        shmem_set_lock(&lock[0]);
        long c = shmem_long_g(counter, 0);
        shmem_long_p(&order[c], me, 0); /* who held the lock at step c */
        shmem_fence();
        shmem_long_p(counter, c + 1, 0);
        shmem_clear_lock(&lock[0]);
    }
    shmem_barrier_all(); /* the second phase uses another lock on the same counter */
    /* test_lock: spin until acquired; while held, a second test fails */
    for (int r = 0; r < ROUNDS; r++) {
        while (shmem_test_lock(&lock[1]) != 0)
            ;
        CHECK(shmem_test_lock(&lock[1]) == 1);
        long c = shmem_long_g(counter, 0);
        shmem_long_p(&order[c], me, 0);
        shmem_quiet();
        shmem_long_p(counter, c + 1, 0);
        shmem_clear_lock(&lock[1]);
    }
    shmem_pcontrol(0);
    for (int r = 0; r < ROUNDS; r++) {
        shmem_set_lock(&g_lock);
        long c = shmem_long_g(&g_counter, 0);
        shmem_long_p(&g_counter, c + 1, 0);
        shmem_clear_lock(&g_lock);
    }
    shmem_barrier_all();
    if (me == 0)
        CHECKF(g_counter == (long)npes * ROUNDS, "global counter %ld", g_counter);
    shmem_barrier_all();
    if (me == 0) {
        CHECKF(*counter == (long)npes * ROUNDS * 2, "counter %ld, expected %ld", *counter,
               (long)npes * ROUNDS * 2);
        /* every PE appears ROUNDS times in each half */
        for (int p = 0; p < npes; p++) {
            int n1 = 0, n2 = 0;
            for (long k = 0; k < (long)npes * ROUNDS; k++) {
                n1 += order[k] == p;
                n2 += order[npes * ROUNDS + k] == p;
            }
            CHECKF(n1 == ROUNDS && n2 == ROUNDS, "PE %d held the lock %d/%d times", p, n1, n2);
        }
        printf("shmem_lock: %d PEs ok\n", npes);
    }
    shmem_free(order);
    shmem_free(counter);
    shmem_free(lock);
    shmem_finalize();
    return 0;
}
