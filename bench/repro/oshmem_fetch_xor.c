/*
 * oshmem_fetch_xor.c - reproducer for wrong values from Open MPI 4.1.4's
 * OSHMEM fetch_xor (fetch_and / fetch_or behave the same) on the symmetric
 * heap; the same calls on a global variable are right.  Not part of the
 * build:
 *
 *   oshcc -O2 bench/repro/oshmem_fetch_xor.c -o fx
 *   oshrun --allow-run-as-root --oversubscribe --mca osc ^rdma -np 2 ./fx
 *
 * Open MPI 4.1.4 prints, for the heap word, 0 from the second call on and a
 * final word of 0 (3 wrong); for the global word, 0 wrong.
 */
#include <shmem.h>
#include <stdio.h>
int main(void)
{
    shmem_init();
    static unsigned long gword;
    unsigned long *hword = shmem_malloc(sizeof *hword);
    const unsigned long init = 0x0123456789abcdefUL, x = 0x3c6ef372fe94f82aUL;
    for (int where = 0; where < 2; where++) {
        unsigned long *w = where ? &gword : hword;
        *w = init;
        shmem_barrier_all();
        if (shmem_my_pe() == 0) {
            unsigned long model = init;
            int bad = 0;
            for (int i = 0; i < 4; i++) {
                unsigned long got = shmem_ulong_atomic_fetch_xor(w, x, 1);
                if (got != model)
                    bad++;
                printf("%s fetch_xor #%d: got %#lx expected %#lx\n", where ? "global" : "heap", i,
                       got, model);
                model ^= x;
            }
            unsigned long fin = shmem_ulong_atomic_fetch(w, 1);
            printf("%s final %#lx expected %#lx; %d wrong\n", where ? "global" : "heap", fin, model,
                   bad);
        }
        shmem_barrier_all();
    }
    shmem_finalize();
    return 0;
}
