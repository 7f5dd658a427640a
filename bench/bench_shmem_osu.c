/*
 * bench_shmem_osu.c - put and get latency in the style of the OSU
 * OpenSHMEM benchmarks (osu_oshm_put / osu_oshm_get), written against
 * shmem.h only: PE 0 times shmem_putmem + shmem_quiet (put) and blocking
 * shmem_getmem (get), one at a time, while PE 1 sits in shmem_barrier_all
 * for the whole loop, so the target's progress comes from the barrier's
 * wait only, as in OSU's programs.  Every size is verified.
 *
 *   symrun -n 2 bench_shmem_osu [iterations] [max-size]   (default 2000, 65536)
 *
 * Output: one line per size and direction, latency in microseconds.
 */
#define _POSIX_C_SOURCE 200809L /* clock_gettime, when built on its own */
#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e6 + (double)ts.tv_nsec / 1e3;
}

int main(int argc, char **argv)
{
    shmem_init();
    const int me = shmem_my_pe();
    const long iters = argc > 1 ? atol(argv[1]) : 2000;
    const size_t max = argc > 2 ? (size_t)atol(argv[2]) : 65536;
    if (shmem_n_pes() != 2 || iters < 1) {
        if (me == 0)
            fprintf(stderr, "bench_shmem_osu: needs 2 PEs and iterations >= 1\n");
        shmem_global_exit(2);
    }
    unsigned char *remote = shmem_malloc(max);
    unsigned char *local = malloc(max);
    if (!remote || !local)
        shmem_global_exit(2);
    const long skip = iters / 10 + 1;
    int wrong = 0;
    if (me == 0)
        printf("# bench_shmem_osu: %ld iterations, PE 1 in shmem_barrier_all\n"
               "%-6s %10s %12s\n",
               iters, "op", "bytes", "latency_us");
    for (size_t size = 1; size <= max; size *= 4) {
        memset(remote, (int)(size & 0x7f) + 1, size);
        memset(local, 0, size);
        shmem_barrier_all();
        if (me == 0) {
            double t0 = 0;
            for (long i = 0; i < iters + skip; i++) {
                if (i == skip)
                    t0 = now_us();
                shmem_getmem(local, remote, size, 1);
            }
            const double get_us = (now_us() - t0) / (double)iters;
            for (size_t i = 0; i < size; i++)
                wrong += local[i] != (unsigned char)((size & 0x7f) + 1);
            memset(local, (int)(size & 0x7f) + 2, size);
            for (long i = 0; i < iters + skip; i++) {
                if (i == skip)
                    t0 = now_us();
                shmem_putmem(remote, local, size, 1);
                shmem_quiet();
            }
            const double put_us = (now_us() - t0) / (double)iters;
            printf("%-6s %10zu %12.2f\n%-6s %10zu %12.2f\n", "put", size, put_us, "get", size,
                   get_us);
            fflush(stdout);
        }
        shmem_barrier_all();
        if (me == 1)
            for (size_t i = 0; i < size; i++)
                wrong += remote[i] != (unsigned char)((size & 0x7f) + 2);
    }
    if (wrong) {
        fprintf(stderr, "bench_shmem_osu: PE %d: %d wrong bytes\n", me, wrong);
        shmem_global_exit(1);
    }
    free(local);
    shmem_free(remote);
    shmem_finalize();
    return 0;
}
