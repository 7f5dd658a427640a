/*
 * bench_shmem_p2p_pingpong.c - the pingpong part of bench_shmem_p2p:
 * putmem payload + fence + long_atomic_set flag, answered after
 * shmem_long_wait_until, one-way, next to the raw cache-line ping-pong of
 * two plain processes sampled interleaved.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_shmem_p2p.h"

struct pp {
    uint8_t *buf; /* symmetric payload */
    long *flag;   /* symmetric */
    uint8_t *src; /* local */
    size_t size;  /* payload bytes, 0: flag only */
    int me;
    uint64_t seq; /* advances identically on PE 0 and PE 1 */
    uint64_t wrong;
};

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

/* One side's turn: payload, fence (ordering payload before flag), flag, quiet. */
static inline void pp_send(struct pp *p, uint64_t seq, int peer)
{
    if (p->size) {
        stamp(p->src, p->size, seq);
        shmem_putmem(p->buf, p->src, p->size, peer);
        shmem_fence();
    }
    shmem_long_atomic_set(p->flag, (long)seq, peer);
    shmem_quiet();
}

static inline uint64_t pp_recv(struct pp *p, uint64_t seq)
{
    shmem_long_wait_until(p->flag, SHMEM_CMP_GE, (long)seq);
    uint64_t w = (uint64_t)__atomic_load_n(p->flag, __ATOMIC_ACQUIRE) != seq;
    if (p->size)
        w += stamp_wrong(p->buf, p->size, seq);
    return w;
}

static uint64_t pp_body(void *arg, uint64_t iters)
{
    struct pp *p = arg;
    uint64_t seq = p->seq, wrong = 0;
    const int peer = 1 - p->me;
    uint64_t t0 = bench_now_ns();
    if (p->me == 0) {
        for (uint64_t i = 0; i < iters; i++) {
            pp_send(p, ++seq, peer);
            wrong += pp_recv(p, seq);
        }
    } else {
        for (uint64_t i = 0; i < iters; i++) {
            wrong += pp_recv(p, ++seq);
            pp_send(p, seq, peer);
        }
    }
    uint64_t t1 = bench_now_ns();
    p->seq = seq;
    p->wrong += wrong;
    return t1 - t0;
}

void run_pingpong(const struct loc *L)
{
    const int me = bench_me();
    if (bench_npes() < 2) {
        bench_note("%s ping-pong needs 2 PEs: skipped", L->name);
        return;
    }
    struct pp p = {.buf = L->pp_buf, .flag = L->pp_flag, .me = me};
    p.src = xmalloc(PP_MAX);
    *p.flag = 0;
    bench_barrier();
    static size_t sizes[MAX_SIZES];
    static struct bench_stat st[MAX_SIZES], raw[MAX_SIZES];
    static uint64_t wrong[MAX_SIZES];
    int n = 0;
    /* 0 = the flag alone (8 B), then payloads 8 B .. min(--max-size, 64 KiB) in
     * steps of 8 (or of --size-step when that is larger, as in a quick run). */
    const size_t pp_max = bench_opt.max_size < PP_MAX ? bench_opt.max_size : PP_MAX;
    const size_t pp_step = bench_opt.size_step > 8 ? bench_opt.size_step : 8;
    for (size_t size = 0; size <= pp_max && n < MAX_SIZES; size = size ? size * pp_step : 8) {
        p.size = size;
        p.wrong = 0;
        struct bench_meas m[2] = {
            bench_raw_pingpong(),
            {.name = "pingpong",
             .body = pp_body,
             .arg = &p,
             .participants = 2,
             .timing = BENCH_TIME_ROOT,
             .ops_per_iter = 2},
        };
        bench_measure(m, 2);
        raw[n] = m[0].stat;
        st[n] = m[1].stat;
        sizes[n] = size;
        wrong[n] = bench_sum_u64(me < 2 ? p.wrong : 0);
        n++;
    }
    char test[64], title[256];
    snprintf(test, sizeof(test), "%s_pingpong", L->name);
    snprintf(title, sizeof(title),
             "%s: one-way latency, putmem payload + fence + long_atomic_set flag + quiet, "
             "answered after long_wait_until; Size 0 = flag only; baseline raw cache-line "
             "ping-pong",
             test);
    struct bench_table t = {test, title, BENCH_LAT, "Size", "raw(ns)", false};
    bench_table_begin(&t);
    for (int i = 0; i < n; i++)
        bench_table_row(&t, NULL, sizes[i], &st[i], &raw[i], wrong[i]);
    free(p.src);
}
