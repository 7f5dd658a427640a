/*
 * bench_rma.c - put and get latency, put bandwidth and 8-byte put message
 * rate, PE 0 -> PE 1 (to itself on 1 PE), against single-thread memcpy of
 * the same size sampled interleaved with them.
 *
 *   symrun -n 2 build/bench/bench_rma [--json FILE] [--max-size 1M] ...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define WINDOW    64 /* message-rate puts rotate over this many 8-byte slots */
#define MAX_SIZES 64

struct rma {
    /* symmetric */
    uint8_t *put_dst; /* target of the latency puts */
    uint8_t *bw_dst;  /* target of the bandwidth puts */
    uint8_t *get_src; /* source of the gets */
    uint64_t *slots;  /* message-rate slots */
    /* local to PE 0 */
    uint8_t *put_src, *bw_src, *get_dst;
    size_t size;
    int target;
    uint64_t seq; /* message-rate sequence, continues across runs */
};

static uint64_t put_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        BENCH_OK(sym_put(a->put_dst, a->put_src, a->size, a->target));
        BENCH_OK(sym_quiet());
    }
    return bench_now_ns() - t0;
}

static uint64_t get_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        BENCH_OK(sym_get(a->get_dst, a->get_src, a->size, a->target));
    return bench_now_ns() - t0;
}

static uint64_t put_bw_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        BENCH_OK(sym_put(a->bw_dst, a->bw_src, a->size, a->target));
    BENCH_OK(sym_quiet());
    return bench_now_ns() - t0;
}

static uint64_t put_rate_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t seq = a->seq;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        uint64_t v = ++seq;
        BENCH_OK(sym_put(&a->slots[v % WINDOW], &v, sizeof(v), a->target));
    }
    BENCH_OK(sym_quiet());
    uint64_t t1 = bench_now_ns();
    a->seq = seq;
    return t1 - t0;
}

static void *xmalloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n) != 0) {
        fprintf(stderr, "bench_rma: out of memory (%zu bytes)\n", n);
        sym_global_exit(1);
    }
    memset(p, 0, n); /* fault the pages in before anything is timed */
    return p;
}

struct row {
    size_t size;
    struct bench_stat memcpy_s, put_lat, get_lat, put_bw;
    uint64_t wrong_put, wrong_get, wrong_bw;
};

int main(int argc, char **argv)
{
    static const struct bench_info info = {
        .name = "bench_rma",
        .about = "put/get latency, put bandwidth and 8 B put message rate, PE 0 -> PE 1",
        .default_min_size = 1,
        .default_max_size = 4u << 20,
    };
    bench_init(argc, argv, &info);
    const int me = bench_me(), npes = bench_npes();
    const size_t max = bench_opt.max_size;
    struct rma a = {.target = npes > 1 ? 1 : 0};
    a.put_dst = sym_malloc(max + BENCH_GUARD);
    a.bw_dst = sym_malloc(max + BENCH_GUARD);
    a.get_src = sym_malloc(max);
    a.slots = sym_calloc(WINDOW, sizeof(uint64_t));
    if (!a.put_dst || !a.bw_dst || !a.get_src || !a.slots)
        bench_fail("sym_malloc of the buffers", SYM_ERR_NO_MEMORY);
    memset(a.put_dst, 0, max + BENCH_GUARD);
    memset(a.bw_dst, 0, max + BENCH_GUARD);
    memset(a.get_src, 0, max);
    a.put_src = xmalloc(max);
    a.bw_src = xmalloc(max);
    a.get_dst = xmalloc(max + BENCH_GUARD);
    /* The baseline copies between buffers aligned like the put's, so 4 KiB
     * aliasing and alignment effects are the same on both sides. */
    uint8_t *mc_dst = xmalloc(max + 4096);
    struct bench_memcpy_arg mc = {.dst = mc_dst + ((uintptr_t)a.put_dst & 4095),
                                  .src = xmalloc(max)};
    bench_fill((void *)mc.src, max, 7);

    /* PE 0 maps every peer heap lazily: its first access to each 4 KiB page
     * takes a page fault.  Pay that once here (and report it), so the
     * sweep measures the steady state. */
    bench_barrier();
    if (me == 0) {
        uint64_t t0 = bench_now_ns();
        BENCH_OK(sym_put(a.bw_dst, a.bw_src, max, a.target));
        uint64_t t1 = bench_now_ns();
        BENCH_OK(sym_put(a.bw_dst, a.bw_src, max, a.target));
        uint64_t t2 = bench_now_ns();
        BENCH_OK(sym_put(a.put_dst, a.put_src, max, a.target));
        BENCH_OK(sym_get(a.get_dst, a.get_src, max, a.target));
        BENCH_OK(sym_quiet());
        char sz[24];
        bench_note("first put of %s into PE %d's heap: %.1f us (page faults of the lazy "
                   "mapping); second: %.1f us",
                   bench_size_str(max, sz), a.target, (double)(t1 - t0) / 1e3,
                   (double)(t2 - t1) / 1e3);
    }
    bench_barrier();

    bench_note("target PE %d%s; put latency = sym_put + sym_quiet per iteration; get = "
               "blocking sym_get; put bandwidth = back-to-back sym_put, one sym_quiet per "
               "sample",
               a.target, a.target == 0 ? " (1 PE: puts to itself)" : "");

    struct row rows[MAX_SIZES];
    int nrows = 0;
    for (size_t size = bench_size_first(); size && nrows < MAX_SIZES;
         size = bench_size_next(size)) {
        struct row *r = &rows[nrows++];
        r->size = size;
        a.size = size;
        mc.size = size;
        const uint64_t seed = (uint64_t)size * 4;
        if (me == 0) {
            bench_fill(a.put_src, size, seed + 1);
            bench_fill(a.bw_src, size, seed + 2);
            memset(a.get_dst, BENCH_GUARD_BYTE, size + BENCH_GUARD);
        }
        if (me == a.target) {
            memset(a.put_dst, BENCH_GUARD_BYTE, size + BENCH_GUARD);
            memset(a.bw_dst, BENCH_GUARD_BYTE, size + BENCH_GUARD);
            bench_fill(a.get_src, size, seed + 3);
        }
        bench_barrier();

        struct bench_meas m[4] = {
            bench_memcpy(&mc),
            {.name = "put_lat", .body = put_lat_body, .arg = &a, .participants = 1},
            {.name = "get_lat", .body = get_lat_body, .arg = &a, .participants = 1},
            {.name = "put_bw", .body = put_bw_body, .arg = &a, .participants = 1},
        };
        bench_measure(m, 4);
        r->memcpy_s = m[0].stat;
        r->put_lat = m[1].stat;
        r->get_lat = m[2].stat;
        r->put_bw = m[3].stat;

        bench_barrier();
        r->wrong_put = bench_check_on(a.target, a.put_dst, size, seed + 1);
        r->wrong_bw = bench_check_on(a.target, a.bw_dst, size, seed + 2);
        r->wrong_get = bench_check_on(0, a.get_dst, size, seed + 3);
    }

    /* 8-byte message rate over a window of slots. */
    struct bench_stat rate_s = {0}, rate_base = {0};
    uint64_t rate_wrong = 0;
    {
        if (me == a.target)
            memset(a.slots, 0, WINDOW * sizeof(uint64_t));
        a.seq = 0;
        bench_barrier();
        mc.size = 8;
        struct bench_meas m[2] = {
            bench_memcpy(&mc),
            {.name = "put_rate", .body = put_rate_body, .arg = &a, .participants = 1},
        };
        bench_measure(m, 2);
        rate_base = m[0].stat;
        rate_s = m[1].stat;
        uint64_t total = bench_bcast_u64(a.seq);
        uint64_t w = 0;
        if (me == a.target) {
            for (uint64_t j = 0; j < WINDOW; j++) {
                uint64_t expect = total >= j ? total - (total - j) % WINDOW : 0;
                w += __atomic_load_n(&a.slots[j], __ATOMIC_RELAXED) != expect;
            }
        }
        rate_wrong = bench_sum_u64(w);
    }

    static const struct bench_table t_put = {
        "put_latency", "put latency: sym_put + sym_quiet, ns per iteration; ratio = put / memcpy",
        BENCH_LAT,     "Size",
        "memcpy(ns)",  false};
    static const struct bench_table t_get = {
        "get_latency", "get latency: blocking sym_get, ns per call; ratio = get / memcpy",
        BENCH_LAT,     "Size",
        "memcpy(ns)",  false};
    static const struct bench_table t_pbw = {
        "put_bandwidth",
        "put bandwidth: back-to-back sym_put + one sym_quiet; ratio = put_bw / memcpy_bw",
        BENCH_BW,
        "Size",
        "memcpy(MB/s)",
        false};
    static const struct bench_table t_gbw = {
        "get_bandwidth", "get bandwidth (same samples as get latency); ratio = get_bw / memcpy_bw",
        BENCH_BW,        "Size",
        "memcpy(MB/s)",  true};
    static const struct bench_table t_rate = {
        "put_message_rate",
        "put message rate: 8 B sym_put back to back (window of 64 slots), one sym_quiet; "
        "ratio = put rate / memcpy(8 B) rate",
        BENCH_RATE,
        "Size",
        "memcpy(Mop/s)",
        false};

    bench_table_begin(&t_put);
    for (int i = 0; i < nrows; i++)
        bench_table_row(&t_put, NULL, rows[i].size, &rows[i].put_lat, &rows[i].memcpy_s,
                        rows[i].wrong_put);
    bench_table_begin(&t_get);
    for (int i = 0; i < nrows; i++)
        bench_table_row(&t_get, NULL, rows[i].size, &rows[i].get_lat, &rows[i].memcpy_s,
                        rows[i].wrong_get);
    bench_table_begin(&t_pbw);
    for (int i = 0; i < nrows; i++)
        bench_table_row(&t_pbw, NULL, rows[i].size, &rows[i].put_bw, &rows[i].memcpy_s,
                        rows[i].wrong_bw);
    bench_table_begin(&t_gbw);
    for (int i = 0; i < nrows; i++)
        bench_table_row(&t_gbw, NULL, rows[i].size, &rows[i].get_lat, &rows[i].memcpy_s,
                        rows[i].wrong_get);
    bench_table_begin(&t_rate);
    bench_table_row(&t_rate, NULL, 8, &rate_s, &rate_base, rate_wrong);

    for (int i = 0; i < nrows; i++) {
        char detail[160];
        if (rows[i].size == 8) {
            snprintf(detail, sizeof(detail),
                     "median of %d samples, min %.1f ns; memcpy(8 B) %.1f ns in the same run",
                     rows[i].put_lat.n, rows[i].put_lat.min, rows[i].memcpy_s.median);
            bench_target("8 B put + quiet latency", rows[i].put_lat.median, "ns", "<", 30, detail);
        }
        if (rows[i].size == (1u << 20)) {
            double ratio = bench_paired_ratio(&rows[i].memcpy_s, &rows[i].put_bw);
            snprintf(detail, sizeof(detail),
                     "put %.0f MB/s vs memcpy %.0f MB/s (medians), paired ratio %.3f",
                     (double)(1u << 20) / rows[i].put_bw.median * 1e3,
                     (double)(1u << 20) / rows[i].memcpy_s.median * 1e3, ratio);
            bench_target("1 MiB put bandwidth / memcpy bandwidth", ratio * 100, "%", ">=", 80,
                         detail);
        }
    }
    (void)me;
    return bench_finish();
}
