/*
 * bench_barrier.c - sym_barrier_all latency at any PE count, against a raw
 * cache-line ping-pong between two plain processes sampled interleaved
 * with it.  Two views of the same operation:
 *   batch:     back-to-back barriers, elapsed / rounds per sample (no clock
 *              read inside the loop); median / min over samples;
 *   per round: PE 0 reads the clock after every barrier; median / min /
 *              max over every round of every sample.
 *
 *   symrun -n 4 build/bench/bench_barrier [--json FILE] ...
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

struct bar {
    bool per_round;
    uint64_t count; /* barriers this PE has entered */
    double *rounds; /* PE 0, per-round mode, sample phase: ns per round */
    size_t nrounds, cap;
};

static void record(struct bar *b, double ns)
{
    if (b->nrounds == b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 65536;
        double *r = realloc(b->rounds, cap * sizeof(double));
        if (!r)
            bench_fail("realloc of the per-round array", SYM_ERR_NO_MEMORY);
        b->rounds = r;
        b->cap = cap;
    }
    b->rounds[b->nrounds++] = ns;
}

static uint64_t barrier_body(void *arg, uint64_t iters)
{
    struct bar *b = arg;
    const bool rec = b->per_round && bench_root() && bench_phase == BENCH_PHASE_SAMPLE;
    uint64_t t0 = bench_now_ns(), prev = t0;
    if (rec) {
        for (uint64_t i = 0; i < iters; i++) {
            BENCH_OK(sym_barrier_all());
            uint64_t t = bench_now_ns();
            record(b, (double)(t - prev));
            prev = t;
        }
    } else {
        for (uint64_t i = 0; i < iters; i++)
            BENCH_OK(sym_barrier_all());
    }
    uint64_t t1 = bench_now_ns();
    b->count += iters;
    return t1 - t0;
}

/* The same dissemination algorithm written with public calls only: a
 * 64-bit epoch flag per round on its own line, sym_p64 to PE me + 2^k,
 * sym_wait_until_uint64 for flag >= epoch.  What sym_barrier_all costs
 * beyond this is overhead of the library's barrier itself. */
struct api_bar {
    uint64_t *flags; /* symmetric: 8 words per round (one line each) */
    uint64_t epoch;
    uint64_t count;
};

static uint64_t api_barrier_body(void *arg, uint64_t iters)
{
    struct api_bar *b = arg;
    const int me = bench_me(), n = bench_npes();
    uint64_t epoch = b->epoch;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        ++epoch;
        BENCH_OK(sym_quiet());
        int round = 0;
        for (int dist = 1; dist < n; dist <<= 1, round++) {
            uint64_t *f = &b->flags[round * 8];
            BENCH_OK(sym_p64(f, epoch, (me + dist) % n));
            BENCH_OK(sym_wait_until_uint64(f, SYM_CMP_GE, epoch));
        }
    }
    uint64_t t1 = bench_now_ns();
    b->epoch = epoch;
    b->count += iters;
    return t1 - t0;
}

/* Does the barrier order a put before it with a read after it on every
 * PE?  Each PE puts the round number to its right neighbour, then the
 * barrier, then reads what its left neighbour put.  Two slots by parity:
 * the next put to a slot comes only after the next barrier, by which time
 * its reader has read it. */
static uint64_t verify_rounds(uint64_t *slots, int rounds)
{
    const int me = bench_me(), n = bench_npes();
    const int right = (me + 1) % n;
    uint64_t wrong = 0;
    for (int r = 1; r <= rounds; r++) {
        uint64_t v = ((uint64_t)(unsigned)me << 32) | (uint64_t)r;
        BENCH_OK(sym_put_nbi(&slots[r & 1], &v, sizeof(v), right));
        BENCH_OK(sym_barrier_all());
        int left = (me - 1 + n) % n;
        uint64_t expect = ((uint64_t)(unsigned)left << 32) | (uint64_t)r;
        wrong += __atomic_load_n(&slots[r & 1], __ATOMIC_ACQUIRE) != expect;
    }
    return wrong;
}

int main(int argc, char **argv)
{
    static const struct bench_info info = {
        .name = "bench_barrier",
        .about = "sym_barrier_all latency (batch and per round)",
        .default_repeats = 11,
    };
    bench_init(argc, argv, &info);
    const int npes = bench_npes();
    const long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    uint64_t *slots = sym_calloc(2, sizeof(uint64_t));
    if (!slots)
        bench_fail("sym_calloc of the slots", SYM_ERR_NO_MEMORY);
    bench_note("%d PEs on %ld cores (%s); the raw baseline runs while the other PEs sleep, "
               "next to each sample",
               npes, nproc, npes > nproc ? "oversubscribed" : "one PE per core or fewer");

    struct bar batch = {.per_round = false}, per = {.per_round = true};
    struct api_bar api = {.flags = sym_calloc(32 * 8, sizeof(uint64_t))};
    if (!api.flags)
        bench_fail("sym_calloc of the flags", SYM_ERR_NO_MEMORY);
    enum { RAW, HANDOFF, BATCH, PER_ROUND, API, NMEAS };
    struct bench_meas m[NMEAS] = {
        [RAW] = bench_raw_pingpong(),
        [HANDOFF] = bench_yield_handoff(),
        /* At least 100 rounds per sample even when a descheduled PE makes
         * calibration see a slow sample. */
        [BATCH] = {.name = "barrier_batch",
                   .body = barrier_body,
                   .arg = &batch,
                   .participants = 0,
                   .min_iters = 100},
        [PER_ROUND] = {.name = "barrier_per_round",
                       .body = barrier_body,
                       .arg = &per,
                       .participants = 0,
                       .min_iters = 100},
        [API] = {.name = "api_dissemination",
                 .body = api_barrier_body,
                 .arg = &api,
                 .participants = 0,
                 .min_iters = 100},
    };
    bench_measure(m, NMEAS);
    const struct bench_stat *raw = &m[RAW].stat, *ho = &m[HANDOFF].stat;

    /* Every PE must have entered the same number of barriers, and the
     * barrier must complete a put before it on every PE. */
    uint64_t total = bench_sum_u64(batch.count + per.count);
    uint64_t mine = bench_bcast_u64(batch.count + per.count);
    uint64_t wrong = total != mine * (uint64_t)npes;
    wrong += verify_rounds(slots, 200);
    wrong = bench_sum_u64(wrong);
    /* Every PE's round flags must hold the last epoch. */
    uint64_t api_wrong = 0;
    for (int dist = 1, round = 0; dist < npes; dist <<= 1, round++)
        api_wrong += __atomic_load_n(&api.flags[round * 8], __ATOMIC_ACQUIRE) != api.epoch;
    api_wrong = bench_sum_u64(api_wrong);

    double pr_med = 0, pr_min = 0, pr_max = 0;
    if (bench_root())
        bench_summarize(per.rounds, per.nrounds, &pr_med, &pr_min, &pr_max);

    static const struct bench_table t = {
        "barrier_latency", "sym_barrier_all latency, ns; ratio = / raw cache-line one-way",
        BENCH_LAT,         "View",
        "raw(ns)",         false};
    bench_table_begin(&t);
    bench_table_row(&t, "batch", 0, &m[BATCH].stat, raw, wrong);
    bench_table_row_values(&t, "per-round", 0, m[PER_ROUND].stat.iters, per.nrounds, pr_med, pr_min,
                           pr_max, raw, pr_med / raw->median, 0);
    static const struct bench_table t_api = {
        "api_dissemination_latency",
        "reference: the same dissemination barrier from sym_p64 + sym_wait_until_uint64 "
        "(batch), ns; ratio = / raw cache-line one-way",
        BENCH_LAT,
        "View",
        "raw(ns)",
        false};
    bench_table_begin(&t_api);
    bench_table_row(&t_api, "batch", 0, &m[API].stat, raw, api_wrong);
    /* With more PEs than cores every barrier needs each PE of a core to be
     * switched in at least once: PEs per core hand-offs is its floor. */
    const long per_core = (npes + nproc - 1) / (nproc > 0 ? nproc : 1);
    static const struct bench_table t_ho = {
        "barrier_vs_handoff",
        "sym_barrier_all against the same-core sched_yield hand-off (one switch between two "
        "waiting processes), ns; ratio = barrier / hand-off",
        BENCH_LAT,
        "View",
        "handoff(ns)",
        true};
    bench_table_begin(&t_ho);
    bench_table_row(&t_ho, "batch", 0, &m[BATCH].stat, ho, wrong);
    bench_table_row_values(&t_ho, "per-round", 0, m[PER_ROUND].stat.iters, per.nrounds, pr_med,
                           pr_min, pr_max, ho, pr_med / ho->median, 0);
    bench_note("sym_barrier_all / public-API dissemination (paired): %.3f",
               bench_paired_ratio(&m[BATCH].stat, &m[API].stat));
    if (npes > nproc)
        bench_note("oversubscribed floor: %ld PEs per core x hand-off %.0f ns = %.1f us per "
                   "barrier; per-round median is %.2fx that",
                   per_core, ho->median, (double)per_core * ho->median / 1e3,
                   pr_med / ((double)per_core * ho->median));
    if (bench_root()) {
        /* Tail of the per-round distribution: where oversubscription shows. */
        size_t n = per.nrounds;
        if (n)
            bench_note("per-round distribution over %zu rounds: p10 %.0f, p50 %.0f, p90 %.0f, "
                       "p99 %.0f, max %.0f ns",
                       n, per.rounds[n / 10], per.rounds[n / 2], per.rounds[n * 9 / 10],
                       per.rounds[n * 99 / 100], per.rounds[n - 1]);
    }

    char detail[240];
    if (npes == 2) {
        double ratio = bench_paired_ratio(&m[BATCH].stat, raw);
        snprintf(detail, sizeof(detail),
                 "batch median %.0f ns vs raw one-way %.0f ns sampled alongside (paired "
                 "ratio); per-round median %.0f ns (includes a clock read)",
                 m[BATCH].stat.median, raw->median, pr_med);
        bench_target("2-PE barrier / raw one-way ping-pong", ratio, "x", "<=", 1.5, detail);
    }
    if (npes == 4 || npes == 8) {
        snprintf(detail, sizeof(detail),
                 "per-round median over %zu rounds on %ld cores; batch median %.0f ns; "
                 "floor %ld x same-core hand-off = %.1f us",
                 per.nrounds, nproc, m[BATCH].stat.median, per_core,
                 (double)per_core * ho->median / 1e3);
        if (npes == 4)
            bench_target("4-PE barrier median (2 cores)", pr_med / 1e3, "us", "<", 5, detail);
        else
            bench_target("8-PE barrier median (2 cores)", pr_med / 1e3, "us", "<", 20, detail);
    }
    free(per.rounds);
    sym_free(api.flags);
    sym_free(slots);
    return bench_finish();
}
