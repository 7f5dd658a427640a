/*
 * shmem_hello.c - an OpenSHMEM program on symheap's shmem.h: a static
 * variable is symmetric, each PE puts its number into its right
 * neighbour's copy, and a sum reduction over the team of all PEs checks
 * the whole ring.
 *
 *   symcc shmem_hello.c -o shmem_hello && symrun -n 4 ./shmem_hello
 */
#include <shmem.h>
#include <stdio.h>

static long from_left = -1; /* global and static variables are symmetric */

int main(void)
{
    shmem_init(); /* on failure, prints why and ends the job */
    int me = shmem_my_pe(), n = shmem_n_pes();

    shmem_long_p(&from_left, me, (me + 1) % n);
    shmem_barrier_all();

    long *mine = shmem_malloc(sizeof(long)), *sum = shmem_malloc(sizeof(long));
    *mine = from_left;
    shmem_long_sum_reduce(SHMEM_TEAM_WORLD, sum, mine, 1);
    int ok = from_left == (me + n - 1) % n && *sum == (long)n * (n - 1) / 2;
    if (me == 0 || !ok)
        printf("PE %d of %d: from_left %ld, sum %ld: %s\n", me, n, from_left, *sum,
               ok ? "ok" : "WRONG");
    shmem_free(sum);
    shmem_free(mine);
    shmem_finalize();
    return ok ? 0 : 1;
}
