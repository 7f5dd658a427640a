/*
 * bench_ofi_sym.c - symheap's half of bench/ofi_compare: the operations
 * bench_ofi_raw times on raw libfabric, timed through symheap, with the
 * same sizes, iteration counts, output and target behaviour, so the two
 * tables compare like with like.
 *
 *   SYMHEAP_TRANSPORT=ofi build/symrun -n 2 build/bench/bench_ofi_sym [max-size]
 *
 * PE 0 times, per size (1 B, x4, up to max-size, default 1 MiB):
 *   put_lat   sym_put + sym_quiet, one at a time        (raw: fi_write + counter wait)
 *   get_lat   sym_get                                   (raw: fi_read + counter wait)
 *   bw_block  back-to-back blocking sym_put, one sym_quiet at the end
 *                                                       (raw: one fi_write in flight)
 *   bw_win    64 sym_put_nbi + one sym_quiet per window (raw: 64 fi_writes in flight)
 * and once, an 8-byte sym_atomic_fetch_add64 (raw: fi_fetch_atomic FI_SUM).
 * PE 1 meanwhile waits in sym_wait_until_uint64 on a word of its own heap that
 * PE 0 puts when a size is done (raw: polls its own word calling
 * fi_cq_read).  bench/ofi_compare sets SYMHEAP_WAIT_SPIN high so that this
 * wait keeps spinning and driving progress, as the raw target does; without
 * it the wait yields and then sleeps on the provider's wait fd, which is
 * the library's default behaviour and is what the "default wait" figures
 * measure.  Every size's data is verified (bit-exact) at the end of the
 * size; the fetch-add's returned values are checked one by one.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "symheap.h"

#define WINDOW 64

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

#define CHECK(call)                                                                                \
    do {                                                                                           \
        if ((call) != SYM_OK) {                                                                    \
            fprintf(stderr, "bench_ofi_sym: %s failed: %s\n", #call, sym_last_error());            \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

int main(int argc, char **argv)
{
    size_t max = argc > 1 ? strtoull(argv[1], NULL, 0) : 1u << 20;
    CHECK(sym_init());
    if (sym_n_pes() != 2) {
        fprintf(stderr, "bench_ofi_sym: needs exactly 2 PEs, got %d\n", sym_n_pes());
        return 1;
    }
    int me = sym_my_pe();
    uint8_t *src = sym_malloc(max), *dst = sym_malloc(max), *back = sym_malloc(max);
    uint64_t *done = sym_calloc(1, sizeof(uint64_t));
    uint64_t *counter = sym_calloc(1, sizeof(uint64_t));
    if (!src || !dst || !back || !done || !counter) {
        fprintf(stderr, "bench_ofi_sym: sym_malloc of 3 x %zu B failed: %s\n", max,
                sym_last_error());
        return 1;
    }
    CHECK(sym_barrier_all());
    uint64_t phase = 0, wrong_total = 0;
    if (me == 0)
        printf("# bench_ofi_sym: symheap, %d puts in flight for bw_win\n"
               "# %10s %12s %12s %12s %12s %8s\n",
               WINDOW, "size", "put_lat_ns", "get_lat_ns", "bw_block_MB/s", "bw_win_MB/s",
               "#wrong");
    /* fetch-add: 8 bytes on PE 1's counter, each old value checked. */
    phase++;
    if (me == 1) {
        CHECK(sym_wait_until_uint64(done, SYM_CMP_GE, phase));
    } else {
        const int iters = 1000;
        uint64_t old = 0, wrong = 0;
        for (int i = 0; i < 100; i++) /* warm-up */
            CHECK(sym_atomic_fetch_add64(counter, 1, &old, 1));
        uint64_t t0 = now_ns();
        for (int i = 0; i < iters; i++) {
            CHECK(sym_atomic_fetch_add64(counter, 1, &old, 1));
            wrong += old != (uint64_t)(100 + i);
        }
        double lat = (double)(now_ns() - t0) / iters;
        uint64_t final = 0;
        CHECK(sym_atomic_fetch64(&final, counter, 1));
        wrong += final != (uint64_t)(100 + iters);
        wrong_total += wrong;
        printf("  fadd %12.0f %8" PRIu64 "\n", lat, wrong);
        CHECK(sym_put(done, &phase, 8, 1));
        CHECK(sym_quiet());
    }
    for (size_t size = 1; size <= max; size *= 4) {
        phase++;
        if (me == 1) {
            CHECK(sym_wait_until_uint64(done, SYM_CMP_GE, phase));
            continue;
        }
        for (size_t k = 0; k < size; k++)
            src[k] = (uint8_t)(k * 7 + size + phase);
        memset(back, 0, size);
        for (int i = 0; i < 20; i++) { /* warm-up */
            CHECK(sym_put(dst, src, size, 1));
            CHECK(sym_quiet());
        }
        int lat_iters = size >= 65536 ? 100 : 500;
        uint64_t t0 = now_ns();
        for (int i = 0; i < lat_iters; i++) {
            CHECK(sym_put(dst, src, size, 1));
            CHECK(sym_quiet());
        }
        double put_lat = (double)(now_ns() - t0) / lat_iters;
        int rounds = size >= 65536 ? 5 : 20;
        t0 = now_ns();
        for (int i = 0; i < rounds * WINDOW; i++)
            CHECK(sym_put(dst, src, size, 1));
        CHECK(sym_quiet());
        double bw_block = (double)size * WINDOW * rounds / ((double)(now_ns() - t0) / 1e9) / 1e6;
        t0 = now_ns();
        for (int r = 0; r < rounds; r++) {
            for (int w = 0; w < WINDOW; w++)
                CHECK(sym_put_nbi(dst, src, size, 1));
            CHECK(sym_quiet());
        }
        double bw_win = (double)size * WINDOW * rounds / ((double)(now_ns() - t0) / 1e9) / 1e6;
        /* get: reads back what the puts left on PE 1; verified after. */
        t0 = now_ns();
        for (int i = 0; i < lat_iters; i++)
            CHECK(sym_get(back, dst, size, 1));
        double get_lat = (double)(now_ns() - t0) / lat_iters;
        uint64_t wrong = 0;
        for (size_t k = 0; k < size; k++)
            wrong += back[k] != src[k];
        wrong_total += wrong;
        CHECK(sym_put(done, &phase, 8, 1));
        CHECK(sym_quiet());
        printf("  %10zu %12.0f %12.0f %12.1f %12.1f %8" PRIu64 "\n", size, put_lat, get_lat,
               bw_block, bw_win, wrong);
        fflush(stdout);
    }
    CHECK(sym_barrier_all());
    CHECK(sym_finalize());
    return wrong_total ? 2 : 0;
}
