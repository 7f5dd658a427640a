/*
 * bench_shmem_p2p_rma.c - the rma part of bench_shmem_p2p: put / get latency
 * (putmem + quiet; blocking getmem) and their nbi forms, bandwidth and
 * message rate (back-to-back puts / nbi gets, one quiet per sample), PE 0 ->
 * PE 1, next to memcpy of the size.
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_shmem_p2p.h"

struct rma {
    uint8_t *put_dst, *bw_dst, *get_src; /* symmetric */
    uint8_t *src, *get_dst;              /* local to PE 0 */
    size_t size;
    int target;
};

static uint64_t put_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        shmem_putmem(a->put_dst, a->src, a->size, a->target);
        shmem_quiet();
    }
    return bench_now_ns() - t0;
}

static uint64_t put_nbi_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        shmem_putmem_nbi(a->put_dst, a->src, a->size, a->target);
        shmem_quiet();
    }
    return bench_now_ns() - t0;
}

static uint64_t get_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        shmem_getmem(a->get_dst, a->get_src, a->size, a->target);
    uint64_t t1 = bench_now_ns();
    bench_clobber(a->get_dst);
    return t1 - t0;
}

static uint64_t get_nbi_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        shmem_getmem_nbi(a->get_dst, a->get_src, a->size, a->target);
        shmem_quiet();
    }
    uint64_t t1 = bench_now_ns();
    bench_clobber(a->get_dst);
    return t1 - t0;
}

static uint64_t put_bw_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        shmem_putmem(a->bw_dst, a->src, a->size, a->target);
    shmem_quiet();
    return bench_now_ns() - t0;
}

static uint64_t put_nbi_bw_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        shmem_putmem_nbi(a->bw_dst, a->src, a->size, a->target);
    shmem_quiet();
    return bench_now_ns() - t0;
}

static uint64_t get_nbi_bw_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        shmem_getmem_nbi(a->get_dst, a->get_src, a->size, a->target);
    shmem_quiet();
    uint64_t t1 = bench_now_ns();
    bench_clobber(a->get_dst);
    return t1 - t0;
}

enum { R_MEMCPY, R_PUT, R_PUT_NBI, R_GET, R_GET_NBI, R_PUT_BW, R_PUT_NBI_BW, R_GET_NBI_BW, R_N };

struct rma_row {
    size_t size;
    struct bench_stat st[R_N];
    uint64_t wrong_put, wrong_bw, wrong_get;
};

void run_rma(const struct loc *L, size_t max)
{
    const int me = bench_me(), npes = bench_npes();
    struct rma a = {.put_dst = L->put_dst,
                    .bw_dst = L->bw_dst,
                    .get_src = L->get_src,
                    .target = npes > 1 ? 1 : 0};
    a.src = xmalloc(max);
    a.get_dst = xmalloc(max + BENCH_GUARD);
    uint8_t *mc_dst = xmalloc(max + 4096);
    struct bench_memcpy_arg mc = {.dst = mc_dst + ((uintptr_t)a.put_dst & 4095),
                                  .src = xmalloc(max)};
    bench_fill((void *)mc.src, max, 7);

    /* First touches of a peer's pages (lazy mappings, registration caches)
     * are paid here, once, and reported. */
    bench_barrier();
    if (me == 0) {
        uint64_t t0 = bench_now_ns();
        shmem_putmem(a.bw_dst, a.src, max, a.target);
        shmem_quiet();
        uint64_t t1 = bench_now_ns();
        shmem_putmem(a.bw_dst, a.src, max, a.target);
        shmem_quiet();
        uint64_t t2 = bench_now_ns();
        shmem_putmem(a.put_dst, a.src, max, a.target);
        shmem_getmem(a.get_dst, a.get_src, max, a.target);
        shmem_quiet();
        char sz[24];
        bench_note("%s: first put of %s to PE %d: %.1f us; second: %.1f us", L->name,
                   bench_size_str(max, sz), a.target, (double)(t1 - t0) / 1e3,
                   (double)(t2 - t1) / 1e3);
    }
    bench_barrier();

    static struct rma_row rows[MAX_SIZES];
    int nrows = 0;
    for (size_t size = bench_size_first(); size && nrows < MAX_SIZES;
         size = bench_size_next(size)) {
        struct rma_row *r = &rows[nrows++];
        r->size = a.size = mc.size = size;
        const uint64_t seed = (uint64_t)size * 4 + (L->name[0] == 'g');
        if (me == 0) {
            bench_fill(a.src, size, seed + 1);
            memset(a.get_dst, BENCH_GUARD_BYTE, size + BENCH_GUARD);
        }
        if (me == a.target) {
            memset(a.put_dst, BENCH_GUARD_BYTE, size + BENCH_GUARD);
            memset(a.bw_dst, BENCH_GUARD_BYTE, size + BENCH_GUARD);
            bench_fill(a.get_src, size, seed + 3);
            memset(a.get_src + size, BENCH_GUARD_BYTE, BENCH_GUARD);
        }
        bench_barrier();
        struct bench_meas m[R_N] = {
            [R_MEMCPY] = bench_memcpy(&mc),
            [R_PUT] = {.name = "put",
                       .body = put_lat_body,
                       .arg = &a,
                       .participants = 1,
                       .target_progress = true},
            [R_PUT_NBI] = {.name = "put_nbi",
                           .body = put_nbi_lat_body,
                           .arg = &a,
                           .participants = 1,
                           .target_progress = true},
            [R_GET] = {.name = "get",
                       .body = get_lat_body,
                       .arg = &a,
                       .participants = 1,
                       .target_progress = true},
            [R_GET_NBI] = {.name = "get_nbi",
                           .body = get_nbi_lat_body,
                           .arg = &a,
                           .participants = 1,
                           .target_progress = true},
            [R_PUT_BW] = {.name = "put_bw",
                          .body = put_bw_body,
                          .arg = &a,
                          .participants = 1,
                          .target_progress = true},
            [R_PUT_NBI_BW] = {.name = "put_nbi_bw",
                              .body = put_nbi_bw_body,
                              .arg = &a,
                              .participants = 1,
                              .target_progress = true},
            [R_GET_NBI_BW] = {.name = "get_nbi_bw",
                              .body = get_nbi_bw_body,
                              .arg = &a,
                              .participants = 1,
                              .target_progress = true},
        };
        bench_measure(m, R_N);
        for (int k = 0; k < R_N; k++)
            r->st[k] = m[k].stat;
        bench_barrier();
        r->wrong_put = bench_check_on(a.target, a.put_dst, size, seed + 1);
        r->wrong_bw = bench_check_on(a.target, a.bw_dst, size, seed + 1);
        r->wrong_get = bench_check_on(0, a.get_dst, size, seed + 3);
    }

    static const struct {
        int k;
        const char *test, *title;
        enum bench_kind kind;
        int wrong; /* 0 put, 1 bw, 2 get */
        bool derived;
    } tabs[] = {
        {R_PUT, "put_latency", "putmem + quiet, ns per iteration", BENCH_LAT, 0, false},
        {R_PUT_NBI, "put_nbi_latency", "putmem_nbi + quiet, ns per iteration", BENCH_LAT, 0, false},
        {R_GET, "get_latency", "blocking getmem, ns per call", BENCH_LAT, 2, false},
        {R_GET_NBI, "get_nbi_latency", "getmem_nbi + quiet, ns per iteration", BENCH_LAT, 2, false},
        {R_PUT_BW, "put_bandwidth", "back-to-back putmem, one quiet per sample", BENCH_BW, 1,
         false},
        {R_PUT_NBI_BW, "put_nbi_bandwidth", "back-to-back putmem_nbi, one quiet per sample",
         BENCH_BW, 1, false},
        {R_GET, "get_bandwidth", "blocking getmem back to back (the get latency samples)", BENCH_BW,
         2, true},
        {R_GET_NBI_BW, "get_nbi_bandwidth", "back-to-back getmem_nbi, one quiet per sample",
         BENCH_BW, 2, false},
        {R_PUT_BW, "put_message_rate", "back-to-back putmem (the put bandwidth samples)",
         BENCH_RATE, 1, true},
        {R_PUT_NBI_BW, "put_nbi_message_rate",
         "back-to-back putmem_nbi (the put_nbi bandwidth "
         "samples)",
         BENCH_RATE, 1, true},
        {R_GET, "get_message_rate", "blocking getmem (the get latency samples)", BENCH_RATE, 2,
         true},
        {R_GET_NBI_BW, "get_nbi_message_rate",
         "back-to-back getmem_nbi (the get_nbi bandwidth "
         "samples)",
         BENCH_RATE, 2, true},
    };
    for (size_t t = 0; t < sizeof(tabs) / sizeof(tabs[0]); t++) {
        char test[64], title[256];
        snprintf(test, sizeof(test), "%s_%s", L->name, tabs[t].test);
        snprintf(title, sizeof(title), "%s, %s, PE 0 -> PE %d; baseline memcpy of the size", test,
                 tabs[t].title, a.target);
        const char *base = tabs[t].kind == BENCH_LAT  ? "memcpy(ns)"
                           : tabs[t].kind == BENCH_BW ? "memcpy(MB/s)"
                                                      : "memcpy(Mop/s)";
        struct bench_table tab = {test, title, tabs[t].kind, "Size", base, tabs[t].derived};
        bench_table_begin(&tab);
        for (int i = 0; i < nrows; i++) {
            uint64_t w = tabs[t].wrong == 0   ? rows[i].wrong_put
                         : tabs[t].wrong == 1 ? rows[i].wrong_bw
                                              : rows[i].wrong_get;
            bench_table_row(&tab, NULL, rows[i].size, &rows[i].st[tabs[t].k], &rows[i].st[R_MEMCPY],
                            w);
        }
    }
    free(a.src);
    free(a.get_dst);
    free(mc_dst);
    free((void *)mc.src);
}
