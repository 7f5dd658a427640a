/*
 * bench_pingpong.c - cross-PE ping-pong between PE 0 and PE 1, reported
 * one-way (half the round trip), against a raw cache-line ping-pong between
 * two plain processes sampled interleaved with each figure:
 *   - sym_p64 of a sequence number, sym_wait_until_uint64 on the other side;
 *   - sym_put_signal of an 8 B .. 64 KiB payload, sym_signal_wait_until.
 * Other PEs, if any, sleep meanwhile.
 *
 *   symrun -n 2 build/bench/bench_pingpong [--json FILE] [--max-size 4K] ...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define MAX_SIZES 64

struct pp {
    uint64_t *flag; /* symmetric: the p64 ping-pong word */
    uint64_t *sig;  /* symmetric: put_signal's signal word */
    uint8_t *buf;   /* symmetric: put_signal's payload destination */
    uint8_t *src;   /* local payload source */
    size_t size;
    int me;
    uint64_t seq; /* advances identically on PE 0 and PE 1 */
    uint64_t wrong;
};

static uint64_t p64_body(void *arg, uint64_t iters)
{
    struct pp *p = arg;
    uint64_t seq = p->seq, wrong = 0;
    uint64_t t0 = bench_now_ns();
    if (p->me == 0) {
        for (uint64_t i = 0; i < iters; i++) {
            BENCH_OK(sym_p64(p->flag, ++seq, 1));
            BENCH_OK(sym_wait_until_uint64(p->flag, SYM_CMP_GE, seq));
            /* The peer answers seq only after it received seq. */
            wrong += __atomic_load_n(p->flag, __ATOMIC_ACQUIRE) != seq;
        }
    } else {
        for (uint64_t i = 0; i < iters; i++) {
            BENCH_OK(sym_wait_until_uint64(p->flag, SYM_CMP_GE, ++seq));
            wrong += __atomic_load_n(p->flag, __ATOMIC_ACQUIRE) != seq;
            BENCH_OK(sym_p64(p->flag, seq, 0));
        }
    }
    uint64_t t1 = bench_now_ns();
    p->seq = seq;
    p->wrong += wrong;
    return t1 - t0;
}

/* The sequence number travels in the payload's first and last 8 bytes, so
 * each round checks that the data arrived with its signal. */
static inline void stamp(uint8_t *b, size_t n, uint64_t seq)
{
    memcpy(b, &seq, 8);
    memcpy(b + n - 8, &seq, 8);
}

static inline uint64_t stamp_wrong(const uint8_t *b, size_t n, uint64_t seq)
{
    uint64_t x, y;
    memcpy(&x, b, 8);
    memcpy(&y, b + n - 8, 8);
    return (x != seq) + (y != seq);
}

static uint64_t put_signal_body(void *arg, uint64_t iters)
{
    struct pp *p = arg;
    const size_t n = p->size;
    const int peer = 1 - p->me;
    uint64_t seq = p->seq, wrong = 0, v = 0;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        ++seq;
        if (p->me == 0) {
            stamp(p->src, n, seq);
            BENCH_OK(sym_put_signal(p->buf, p->src, n, p->sig, seq, SYM_SIGNAL_SET, peer));
            BENCH_OK(sym_signal_wait_until(p->sig, SYM_CMP_GE, seq, &v));
            wrong += (v != seq) + stamp_wrong(p->buf, n, seq);
        } else {
            BENCH_OK(sym_signal_wait_until(p->sig, SYM_CMP_GE, seq, &v));
            wrong += (v != seq) + stamp_wrong(p->buf, n, seq);
            stamp(p->src, n, seq);
            BENCH_OK(sym_put_signal(p->buf, p->src, n, p->sig, seq, SYM_SIGNAL_SET, peer));
        }
    }
    uint64_t t1 = bench_now_ns();
    p->seq = seq;
    p->wrong += wrong;
    return t1 - t0;
}

int main(int argc, char **argv)
{
    static const struct bench_info info = {
        .name = "bench_pingpong",
        .about = "PE 0 <-> PE 1 ping-pong (p64 + wait_until; put_signal + signal_wait_until), "
                 "one-way",
        .default_min_size = 8,
        .default_max_size = 64u << 10,
    };
    bench_init(argc, argv, &info);
    const int me = bench_me(), npes = bench_npes();
    if (npes < 2) {
        bench_note("ping-pong needs at least 2 PEs; only the raw baseline was measured");
        return bench_finish();
    }
    if (bench_opt.min_size < 8) {
        bench_note("put_signal payloads start at 8 B (they carry the sequence number)");
        bench_opt.min_size = 8;
    }
    const size_t max = bench_opt.max_size;
    struct pp p = {.me = me};
    p.flag = sym_calloc(1, 64);
    p.sig = sym_calloc(1, 64);
    p.buf = sym_malloc(max);
    p.src = malloc(max);
    if (!p.flag || !p.sig || !p.buf || !p.src)
        bench_fail("allocation of the buffers", SYM_ERR_NO_MEMORY);
    memset(p.buf, 0, max);
    bench_note("one-way = round trip / 2; PEs other than 0 and 1 sleep; the raw baseline runs "
               "while PE 1 sleeps, next to each figure");

    /* p64 + wait_until. */
    struct bench_meas m[2] = {
        bench_raw_pingpong(),
        {.name = "p64", .body = p64_body, .arg = &p, .participants = 2, .ops_per_iter = 2},
    };
    bench_measure(m, 2);
    struct bench_stat p64_raw = m[0].stat, p64_s = m[1].stat;
    uint64_t p64_wrong = bench_sum_u64(p.wrong);

    /* put_signal + signal_wait_until over the payload sizes. */
    struct {
        size_t size;
        struct bench_stat raw, s;
        uint64_t wrong;
    } rows[MAX_SIZES];
    int nrows = 0;
    for (size_t size = bench_size_first(); size && nrows < MAX_SIZES;
         size = bench_size_next(size)) {
        const uint64_t seed = 77 + (uint64_t)size * 2;
        p.size = size;
        p.wrong = 0;
        if (me < 2) {
            bench_fill(p.src, size, seed + (uint64_t)me);
            memset(p.buf, 0, size);
        }
        bench_barrier();
        struct bench_meas mm[2] = {
            bench_raw_pingpong(),
            {.name = "put_signal",
             .body = put_signal_body,
             .arg = &p,
             .participants = 2,
             .ops_per_iter = 2},
        };
        bench_measure(mm, 2);
        bench_barrier();
        /* Between the stamps, each payload must be the peer's pattern. */
        uint64_t w = p.wrong;
        if (me < 2) {
            uint64_t peer_seed = seed + (uint64_t)(1 - me);
            for (size_t i = 8; i + 8 < size; i++)
                w += p.buf[i] != bench_pattern(peer_seed, i);
            w += stamp_wrong(p.buf, size, p.seq);
        }
        rows[nrows].size = size;
        rows[nrows].raw = mm[0].stat;
        rows[nrows].s = mm[1].stat;
        rows[nrows].wrong = bench_sum_u64(w);
        nrows++;
    }

    static const struct bench_table t_p64 = {
        "pingpong_p64",
        "sym_p64 + sym_wait_until_uint64 ping-pong, one-way ns; ratio = / raw cache-line "
        "one-way",
        BENCH_LAT,
        "Size",
        "raw(ns)",
        false};
    static const struct bench_table t_ps = {
        "pingpong_put_signal",
        "sym_put_signal + sym_signal_wait_until ping-pong, one-way ns; ratio = / raw "
        "cache-line one-way",
        BENCH_LAT,
        "Size",
        "raw(ns)",
        false};
    bench_table_begin(&t_p64);
    bench_table_row(&t_p64, NULL, 8, &p64_s, &p64_raw, p64_wrong);
    bench_table_begin(&t_ps);
    for (int i = 0; i < nrows; i++)
        bench_table_row(&t_ps, NULL, rows[i].size, &rows[i].s, &rows[i].raw, rows[i].wrong);

    free(p.src);
    return bench_finish();
}
