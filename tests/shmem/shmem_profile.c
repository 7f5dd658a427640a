/*
 * shmem_profile.c - the OpenSHMEM profiling interface, used as a tool uses
 * it: the program defines its own shmem_putmem, shmem_long_put (reached
 * through the C11 generic shmem_put too), shmem_long_atomic_fetch_add and
 * shmem_barrier_all, each counting its calls and doing the work through
 * the library's pshmem_ name from pshmem.h.  The calls must reach the
 * wrappers, and the data must arrive as without them.  Every routine of
 * shmem.h also has its pshmem_ name (the header check references them all).
 */
#include <pshmem.h>

#include "check.h"

static int n_putmem, n_long_put, n_fadd, n_barrier_all;

void shmem_putmem(void *dest, const void *source, size_t nelems, int pe)
{
    n_putmem++;
    pshmem_putmem(dest, source, nelems, pe);
}

void shmem_long_put(long *dest, const long *source, size_t nelems, int pe)
{
    n_long_put++;
    pshmem_long_put(dest, source, nelems, pe);
}

long shmem_long_atomic_fetch_add(long *dest, long value, int pe)
{
    n_fadd++;
    return pshmem_long_atomic_fetch_add(dest, value, pe);
}

void shmem_barrier_all(void)
{
    n_barrier_all++;
    pshmem_barrier_all();
}

static long dst[8], counter;
static char bytes[32];

int main(void)
{
    shmem_init();
    const int me = shmem_my_pe(), npes = shmem_n_pes(), peer = (me + 1) % npes;
    long src[8];
    for (int i = 0; i < 8; i++)
        src[i] = me * 100 + i;
    shmem_long_put(dst, src, 8, peer);
    shmem_put(dst, src, 4, peer); /* the generic selection reaches the wrapper too */
    char msg[32];
    snprintf(msg, sizeof msg, "from PE %d", me);
    shmem_putmem(bytes, msg, sizeof msg, peer);
    shmem_long_atomic_fetch_add(&counter, 1, 0);
    shmem_barrier_all();
    const int from = (me + npes - 1) % npes;
    for (int i = 0; i < 8; i++)
        CHECKF(dst[i] == from * 100 + i, "dst[%d] = %ld", i, dst[i]);
    snprintf(msg, sizeof msg, "from PE %d", from);
    CHECK(strcmp(bytes, msg) == 0);
    if (me == 0)
        CHECKF(pshmem_long_atomic_fetch(&counter, 0) == npes, "counter %ld",
               pshmem_long_atomic_fetch(&counter, 0));
    CHECKF(n_long_put == 2 && n_putmem == 1 && n_fadd == 1 && n_barrier_all == 1,
           "wrapper calls: long_put %d, putmem %d, fetch_add %d, barrier_all %d", n_long_put,
           n_putmem, n_fadd, n_barrier_all);
    /* deprecated names have theirs (pNAME) */
    CHECK(p_my_pe() == me && p_num_pes() == npes);
    pshmem_sync(SHMEM_TEAM_WORLD);
    shmem_finalize();
    return 0;
}
