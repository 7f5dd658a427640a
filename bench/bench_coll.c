/*
 * bench_coll.c - the native collectives over SYM_TEAM_WORLD, every algorithm
 * and SYM_ALGO_AUTO, float sums, reported like nccl-tests: time per call,
 * algbw = size / time and busbw = algbw * the collective's bus factor, next
 * to single-thread memcpy of the same size and the raw cache-line one-way
 * ping-pong, both sampled interleaved with the collectives.
 *
 *   symrun -n 2 build/bench/bench_coll [--coll allreduce] [--algo ring]
 *          [--step 4] [--min-size 8] [--max-size 64M] [--json FILE] ...
 *
 * Size is the nccl-tests "size" column: the whole vector for allreduce,
 * broadcast and reduce; the whole (n-block) buffer for reduce_scatter,
 * all_gather, all_to_all(v), gather and scatter.  Counts are rounded down to
 * whole floats (per block), at least one, and the row shows the bytes that
 * were actually moved.  Buffers are private (malloc'd) memory, as an
 * application's would be; 64 MiB messages need no symmetric heap of their
 * own, but SYMHEAP_HEAP_SIZE=1G is what the results file uses so the
 * mailbox and heap are never the limit.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_data.h"
#include "harness.h"

#define MAX_SIZES 32
#define MAX_ALGOS 7

struct coll_desc {
    const char *name;
    bool per_block;     /* size = n blocks of count */
    bool bus_allreduce; /* busbw factor 2(n-1)/n */
    bool bus_one;       /* busbw factor 1 (else (n-1)/n) */
    sym_algorithm_t algos[MAX_ALGOS];
    int nalgos;
};

static const struct coll_desc colls[C_COUNT] = {
    [C_ALLREDUCE] = {"allreduce",
                     false,
                     true,
                     false,
                     {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE, SYM_ALGO_RD,
                      SYM_ALGO_DIRECT},
                     6},
    [C_REDUCE_SCATTER] = {"reduce_scatter",
                          true,
                          false,
                          false,
                          {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_DIRECT},
                          4},
    [C_ALL_GATHER] = {"all_gather",
                      true,
                      false,
                      false,
                      {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_RD, SYM_ALGO_DIRECT},
                      5},
    [C_ALL_TO_ALL] = {"all_to_all",
                      true,
                      false,
                      false,
                      {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE, SYM_ALGO_DIRECT},
                      4},
    [C_BROADCAST] = {"broadcast",
                     false,
                     false,
                     true,
                     {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE, SYM_ALGO_DIRECT},
                     5},
    [C_REDUCE] = {"reduce",
                  false,
                  false,
                  true,
                  {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE, SYM_ALGO_DIRECT},
                  5},
    [C_ALL_TO_ALLV] = {"all_to_allv",
                       true,
                       false,
                       false,
                       {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE, SYM_ALGO_DIRECT},
                       4},
    [C_GATHER] = {"gather",
                  true,
                  false,
                  false,
                  {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_DIRECT},
                  4},
    [C_SCATTER] = {"scatter",
                   true,
                   false,
                   false,
                   {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_DIRECT},
                   4},
};

/* One collective call's arguments; the body repeats it. */
struct call {
    enum coll coll;
    sym_coll_opts_t opts;
    float *src, *dst;
    size_t count;   /* elements per PE (per block for per_block collectives) */
    size_t *counts; /* all_to_allv: every entry = count */
};

static sym_status_t run_call(const struct call *c)
{
    sym_team_t w = sym_team_world();
    switch (c->coll) {
    case C_ALLREDUCE:
        return sym_allreduce(w, c->dst, c->src, c->count, SYM_FLOAT, SYM_OP_SUM, &c->opts);
    case C_REDUCE_SCATTER:
        return sym_reduce_scatter(w, c->dst, c->src, c->count, SYM_FLOAT, SYM_OP_SUM, &c->opts);
    case C_ALL_GATHER:
        return sym_all_gather(w, c->dst, c->src, c->count, SYM_FLOAT, &c->opts);
    case C_ALL_TO_ALL:
        return sym_all_to_all(w, c->dst, c->src, c->count, SYM_FLOAT, &c->opts);
    case C_BROADCAST:
        /* In place on dst: root's copy is the data, the others' is overwritten. */
        return sym_broadcast(w, c->dst, c->count, SYM_FLOAT, 0, &c->opts);
    case C_REDUCE:
        return sym_reduce(w, c->dst, c->src, c->count, SYM_FLOAT, SYM_OP_SUM, 0, &c->opts);
    case C_ALL_TO_ALLV:
        return sym_all_to_allv(w, c->src, c->counts, c->dst, c->counts, SYM_FLOAT, &c->opts);
    case C_GATHER:
        return sym_gather(w, c->dst, c->src, c->count, SYM_FLOAT, 0, &c->opts);
    case C_SCATTER:
        return sym_scatter(w, c->dst, c->src, c->count, SYM_FLOAT, 0, &c->opts);
    case C_COUNT:
        break;
    }
    return SYM_ERR_INVALID_ARG;
}

static uint64_t coll_body(void *arg, uint64_t iters)
{
    const struct call *c = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        sym_status_t st = run_call(c);
        if (__builtin_expect(st != SYM_OK, 0))
            bench_fail(colls[c->coll].name, st);
    }
    uint64_t t1 = bench_now_ns();
    bench_clobber(c->dst);
    return t1 - t0;
}

/* One verified call: inputs set from coll_val(), destination poisoned,
 * every element of the defined output checked.  Returns this PE's wrong
 * count. */
static uint64_t verify(struct call *c)
{
    const int me = bench_me(), n = bench_npes();
    coll_fill(c->coll, me, n, c->count, c->src, c->dst);
    sym_status_t st = run_call(c);
    if (st != SYM_OK)
        bench_fail(colls[c->coll].name, st);
    return coll_wrong(c->coll, me, n, c->count, c->dst);
}

static double bus_factor(enum coll k, int n)
{
    if (n < 2)
        return 1;
    if (colls[k].bus_allreduce)
        return 2.0 * (n - 1) / n;
    if (colls[k].bus_one)
        return 1;
    return (double)(n - 1) / n;
}

/* What one series (collective, algorithm) measured at each size. */
struct series {
    enum coll coll;
    sym_algorithm_t algo;
    int nsizes;
    size_t bytes[MAX_SIZES];
    size_t count[MAX_SIZES];
    struct bench_stat st[MAX_SIZES];
    double memcpy_ratio[MAX_SIZES]; /* busbw / memcpy bw, paired */
    uint64_t wrong[MAX_SIZES];
};

static struct {
    int coll;      /* -1: all */
    int algo;      /* -1: all */
    int step;      /* size multiplier */
    bool no_extra; /* --core: skip all_to_allv, gather, scatter */
} cfg = {-1, -1, 4, false};

static int find_coll(const char *s)
{
    for (int k = 0; k < C_COUNT; k++)
        if (strcmp(s, colls[k].name) == 0)
            return k;
    return -2;
}

static int find_algo(const char *s)
{
    static const sym_algorithm_t all[] = {SYM_ALGO_AUTO,  SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                          SYM_ALGO_TREE,  SYM_ALGO_RD,    SYM_ALGO_PAIRWISE,
                                          SYM_ALGO_DIRECT};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (strcmp(s, sym_algorithm_name(all[i])) == 0)
            return (int)all[i];
    return -2;
}

/* Take this program's own options out of argv before the harness parses the
 * rest (it rejects options it does not know).  Runs before sym_init, so
 * errors go to stderr from every PE; the launcher shows them once each. */
static int strip_own_args(int argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if ((strcmp(a, "--coll") == 0 || strcmp(a, "--algo") == 0 || strcmp(a, "--step") == 0) &&
            !v) {
            fprintf(stderr, "bench_coll: option '%s' needs a value\n", a);
            exit(2);
        }
        if (strcmp(a, "--coll") == 0) {
            if (strcmp(v, "all") == 0)
                cfg.coll = -1;
            else if ((cfg.coll = find_coll(v)) < 0) {
                fprintf(stderr, "bench_coll: unknown collective '%s'\n", v);
                exit(2);
            }
            i++;
        } else if (strcmp(a, "--algo") == 0) {
            if (strcmp(v, "all") == 0)
                cfg.algo = -1;
            else if ((cfg.algo = find_algo(v)) < 0) {
                fprintf(stderr, "bench_coll: unknown algorithm '%s'\n", v);
                exit(2);
            }
            i++;
        } else if (strcmp(a, "--step") == 0) {
            cfg.step = coll_parse_step("bench_coll", v);
            i++;
        } else if (strcmp(a, "--core") == 0) {
            cfg.no_extra = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            printf("bench_coll options besides the harness's (below):\n"
                   "  --coll NAME   allreduce, reduce_scatter, all_gather, all_to_all, "
                   "broadcast, reduce,\n"
                   "                all_to_allv, gather, scatter, or all (default)\n"
                   "  --algo NAME   auto, naive, ring, tree, rd, pairwise, direct, or all "
                   "(default); a\n"
                   "                collective without that algorithm is skipped\n"
                   "  --step K      size multiplier 2, 4 (default), 8 or 64\n"
                   "  --core        only the six core collectives (no all_to_allv, gather, "
                   "scatter)\n\n");
            argv[out++] = argv[i];
        } else {
            argv[out++] = argv[i];
        }
    }
    argv[out] = NULL;
    return out;
}

/* Largest ratio of a size's median time over its neighbours': a spike over
 * both sides (t[i] / max(t[i-1], t[i+1])), or a step up that outgrows the
 * size (t[i] / (t[i-1] * size[i] / size[i-1])). */
static double worst_jump(const struct series *s, int *at)
{
    double worst = 0;
    *at = -1;
    for (int i = 1; i < s->nsizes; i++) {
        double prev = s->st[i - 1].median, cur = s->st[i].median;
        double grow = (double)s->bytes[i] / (double)s->bytes[i - 1];
        double r = cur / (prev * (grow > 1 ? grow : 1));
        if (i + 1 < s->nsizes) {
            double nb = fmax(prev, s->st[i + 1].median);
            if (cur / nb > r)
                r = cur / nb;
        }
        if (r > worst) {
            worst = r;
            *at = i;
        }
    }
    return worst;
}

static void print_series(const struct series *s, const struct bench_stat *memcpy_st,
                         const size_t *memcpy_bytes)
{
    if (!bench_root())
        return;
    const int n = bench_npes();
    const double bf = bus_factor(s->coll, n);
    printf("\n# %s %s, %d PEs, float sum; size = %s; busbw = algbw * %.3f; "
           "memcpy bw of the same size sampled interleaved\n",
           colls[s->coll].name, sym_algorithm_name(s->algo), n,
           colls[s->coll].per_block ? "whole n-block buffer" : "whole vector", bf);
    printf("# %12s %10s %8s %11s %11s %11s %9s %9s %9s %7s %7s\n", "size(B)", "count", "iters",
           "time(us)", "min(us)", "max(us)", "algbw", "busbw", "memcpy", "bus/mc", "#wrong");
    printf("# %12s %10s %8s %11s %11s %11s %9s %9s %9s %7s %7s\n", "", "(per blk)", "", "median",
           "", "", "GB/s", "GB/s", "GB/s", "paired", "");
    for (int i = 0; i < s->nsizes; i++) {
        const struct bench_stat *t = &s->st[i];
        double algbw = (double)s->bytes[i] / t->median; /* bytes/ns = GB/s */
        double mc = (double)memcpy_bytes[i] / memcpy_st[i].median;
        printf("  %12zu %10zu %8" PRIu64 " %11.2f %11.2f %11.2f %9.3f %9.3f %9.3f %7.3f %7" PRIu64
               "\n",
               s->bytes[i], s->count[i], t->iters, t->median / 1e3, t->min / 1e3, t->max / 1e3,
               algbw, algbw * bf, mc, s->memcpy_ratio[i], s->wrong[i]);
    }
    fflush(stdout);
}

int main(int argc, char **argv)
{
    argc = strip_own_args(argc, argv);
    static const struct bench_info info = {
        .name = "bench_coll",
        .about = "native collectives, every algorithm, nccl-tests style (float sum)",
        .default_min_size = 8,
        .default_max_size = (size_t)64 << 20,
        .default_repeats = 5,
    };
    bench_init(argc, argv, &info);
    bench_copy_ceiling();
    const int n = bench_npes();
    const long nproc = sysconf(_SC_NPROCESSORS_ONLN);
    const size_t maxb = bench_opt.max_size;
    bench_note("%d PEs on %ld cores (%s); SYMHEAP_CHUNK_SIZE=%s, SYMHEAP_HEAP_SIZE=%s, "
               "SYMHEAP_MAILBOX_SIZE=%s; size step x%d",
               n, nproc, n > nproc ? "oversubscribed" : "one PE per core or fewer",
               getenv("SYMHEAP_CHUNK_SIZE") ? getenv("SYMHEAP_CHUNK_SIZE") : "(default)",
               getenv("SYMHEAP_HEAP_SIZE") ? getenv("SYMHEAP_HEAP_SIZE") : "(default)",
               getenv("SYMHEAP_MAILBOX_SIZE") ? getenv("SYMHEAP_MAILBOX_SIZE") : "(default)",
               cfg.step);

    /* Buffers: every collective's src and dst fit in max_size bytes
     * (rounded up to a whole float per PE block). */
    size_t cap = maxb + (size_t)n * sizeof(float) * 2 + 64;
    float *src = aligned_alloc(64, (cap + 63) / 64 * 64);
    float *dst = aligned_alloc(64, (cap + 63) / 64 * 64);
    void *mc_src = aligned_alloc(64, (cap + 63) / 64 * 64);
    void *mc_dst = aligned_alloc(64, (cap + 63) / 64 * 64);
    size_t *counts = calloc((size_t)n, sizeof(size_t));
    if (!src || !dst || !mc_src || !mc_dst || !counts)
        bench_fail("allocation of the buffers", SYM_ERR_NO_MEMORY);
    memset(src, 0, cap);
    memset(dst, 0, cap);
    memset(mc_src, 1, cap);
    memset(mc_dst, 0, cap);

    static struct series ser[C_COUNT][MAX_ALGOS];
    static struct bench_stat mc_stat[C_COUNT][MAX_SIZES];
    static size_t mc_bytes[C_COUNT][MAX_SIZES];
    struct bench_stat raw8 = {0};
    struct bench_stat ar8_auto = {0};
    bool have_raw8 = false;

    for (int k = 0; k < C_COUNT; k++) {
        if (cfg.coll >= 0 && cfg.coll != k)
            continue;
        if (cfg.coll < 0 && cfg.no_extra && k >= C_ALL_TO_ALLV)
            continue;
        const struct coll_desc *d = &colls[k];
        int na = 0;
        sym_algorithm_t algos[MAX_ALGOS];
        for (int a = 0; a < d->nalgos; a++)
            if (cfg.algo < 0 || (int)d->algos[a] == cfg.algo)
                algos[na++] = d->algos[a];
        if (na == 0)
            continue;
        int si = 0;
        for (size_t size = bench_opt.min_size; size && size <= maxb && si < MAX_SIZES;
             size = coll_next_size(size, cfg.step), si++) {
            size_t bytes;
            const size_t count = coll_count(size, d->per_block, n, &bytes);
            /* Small sizes round up to one float per block: measure each
             * resulting size once. */
            if (si > 0 && ser[k][0].nsizes == si && bytes == ser[k][0].bytes[si - 1]) {
                si--;
                continue;
            }
            for (int j = 0; j < n; j++)
                counts[j] = count;

            struct call calls[MAX_ALGOS];
            struct bench_meas m[MAX_ALGOS + 3];
            struct bench_memcpy_arg mca = {mc_dst, mc_src, bytes};
            int nm = 0;
            m[nm++] = bench_memcpy(&mca);
            const bool ping = k == C_ALLREDUCE && bytes == 8;
            if (ping)
                m[nm++] = bench_raw_pingpong();
            /* PE 0's memcpy sample evicts the collective's buffers from its
             * caches; a throwaway run of the first algorithm right after it
             * keeps that cost out of every reported series. */
            struct call warm_call;
            const int warm = nm++;
            const int first = nm;
            uint64_t wrong[MAX_ALGOS];
            for (int a = 0; a < na; a++) {
                calls[a] = (struct call){.coll = (enum coll)k,
                                         .opts = {.algorithm = algos[a], .timeout_s = 0},
                                         .src = src,
                                         .dst = dst,
                                         .count = count,
                                         .counts = counts};
                wrong[a] = bench_sum_u64(verify(&calls[a]));
                m[nm++] = (struct bench_meas){.name = sym_algorithm_name(algos[a]),
                                              .body = coll_body,
                                              .arg = &calls[a],
                                              .participants = 0,
                                              .timing = BENCH_TIME_MAX,
                                              .ops_per_iter = 1};
            }
            warm_call = calls[0];
            m[warm] = m[first];
            m[warm].name = "cache warm-up (not reported)";
            m[warm].arg = &warm_call;
            bench_measure(m, nm);
            mc_stat[k][si] = m[0].stat;
            mc_bytes[k][si] = bytes;
            if (ping) {
                raw8 = m[1].stat;
                have_raw8 = true;
            }
            for (int a = 0; a < na; a++) {
                struct series *s = &ser[k][a];
                s->coll = (enum coll)k;
                s->algo = algos[a];
                s->nsizes = si + 1;
                s->bytes[si] = bytes;
                s->count[si] = count;
                s->st[si] = m[first + a].stat;
                s->wrong[si] = wrong[a];
                /* busbw / memcpy bw = bf * (bytes/t) / (bytes/t_mc) = bf * t_mc / t */
                s->memcpy_ratio[si] = bus_factor((enum coll)k, n) *
                                      bench_paired_ratio(&m[0].stat, &m[first + a].stat);
                if (ping && algos[a] == SYM_ALGO_AUTO)
                    ar8_auto = m[first + a].stat;
                if (ping)
                    bench_note("allreduce %s 8 B: %.0f ns = %.2f x raw one-way ping-pong (%.0f "
                               "ns, paired ratio)",
                               sym_algorithm_name(algos[a]), m[first + a].stat.median,
                               bench_paired_ratio(&m[first + a].stat, &m[1].stat),
                               m[1].stat.median);
            }
            /* The harness's table: ns per call with the memcpy baseline, for
             * the JSON and the job's wrong-data exit status. */
            char test[64], title[160];
            snprintf(test, sizeof(test), "%s_%zu", d->name, bytes);
            snprintf(title, sizeof(title),
                     "%s, %zu B (count %zu): ns per call; ratio = call / memcpy of the same "
                     "bytes (paired)",
                     d->name, bytes, count);
            struct bench_table t = {test, title, BENCH_LAT, "Algo", "memcpy(ns)", false};
            bench_table_begin(&t);
            for (int a = 0; a < na; a++)
                bench_table_row(&t, sym_algorithm_name(algos[a]), bytes, &m[first + a].stat,
                                &m[0].stat, wrong[a]);
        }
        for (int a = 0; a < na; a++)
            print_series(&ser[k][a], mc_stat[k], mc_bytes[k]);

        /* Which algorithm wins at each size (medians). */
        if (bench_root() && na > 1) {
            printf("\n# %s, %d PEs: fastest algorithm per size (median; auto shown for "
                   "comparison)\n",
                   d->name, n);
            for (int i = 0; i < ser[k][0].nsizes; i++) {
                int best = -1;
                for (int a = 0; a < na; a++)
                    if (algos[a] != SYM_ALGO_AUTO &&
                        (best < 0 || ser[k][a].st[i].median < ser[k][best].st[i].median))
                        best = a;
                int ai = -1;
                for (int a = 0; a < na; a++)
                    if (algos[a] == SYM_ALGO_AUTO)
                        ai = a;
                if (best < 0)
                    continue;
                printf("  %12zu  best %-9s %11.2f us", ser[k][best].bytes[i],
                       sym_algorithm_name(algos[best]), ser[k][best].st[i].median / 1e3);
                if (ai >= 0)
                    printf("   auto %11.2f us (%.2fx best)", ser[k][ai].st[i].median / 1e3,
                           ser[k][ai].st[i].median / ser[k][best].st[i].median);
                printf("\n");
            }
        }
    }

    /* ---- targets ---- */
    char detail[300];
    if (n == 2 && have_raw8) {
        const struct bench_stat *ar = ar8_auto.n ? &ar8_auto : &ser[C_ALLREDUCE][0].st[0];
        double ratio = bench_paired_ratio(ar, &raw8);
        snprintf(detail, sizeof(detail),
                 "allreduce %s 8 B median %.0f ns vs raw one-way %.0f ns sampled alongside "
                 "(paired ratio); run-start raw %.0f ns",
                 ar8_auto.n ? "auto" : sym_algorithm_name(ser[C_ALLREDUCE][0].algo), ar->median,
                 raw8.median, bench_raw_before()->median);
        bench_target("2-PE 8 B allreduce / raw one-way ping-pong", ratio, "x", "<=", 2, detail);
    }
    if (n == 2 && ser[C_ALLREDUCE][0].nsizes > 0) {
        for (int i = 0; i < ser[C_ALLREDUCE][0].nsizes; i++) {
            size_t b = ser[C_ALLREDUCE][0].bytes[i];
            if (b != ((size_t)1 << 20) && b != ((size_t)4 << 20))
                continue;
            /* What a user gets counts: the automatic choice when it ran, else
             * the best algorithm. */
            int best = 0;
            for (int a = 1; a < MAX_ALGOS && ser[C_ALLREDUCE][a].nsizes > i; a++)
                if (ser[C_ALLREDUCE][a].memcpy_ratio[i] > ser[C_ALLREDUCE][best].memcpy_ratio[i])
                    best = a;
            int ai = -1;
            for (int a = 0; a < MAX_ALGOS && ser[C_ALLREDUCE][a].nsizes > i; a++)
                if (ser[C_ALLREDUCE][a].algo == SYM_ALGO_AUTO)
                    ai = a;
            const struct series *s = &ser[C_ALLREDUCE][ai >= 0 ? ai : best];
            double mc = (double)b / mc_stat[C_ALLREDUCE][i].median;
            snprintf(detail, sizeof(detail),
                     "algorithm %s: busbw %.2f GB/s vs memcpy %.2f GB/s (paired); auto "
                     "%.3f",
                     sym_algorithm_name(s->algo),
                     (double)b / s->st[i].median * bus_factor(C_ALLREDUCE, n), mc,
                     ai >= 0 ? ser[C_ALLREDUCE][ai].memcpy_ratio[i] : NAN);
            char name[80];
            snprintf(name, sizeof(name), "2-PE allreduce %s busbw / memcpy bw",
                     b == ((size_t)1 << 20) ? "1 MiB" : "4 MiB");
            bench_target(name, s->memcpy_ratio[i], "x", ">=", 0.5, detail);
        }
    }
    if (n == 4 || n == 8) {
        double worst = 0;
        int wk = -1, wa = -1, wi = -1;
        for (int k = 0; k < C_COUNT; k++)
            for (int a = 0; a < MAX_ALGOS; a++) {
                if (ser[k][a].nsizes < 2)
                    continue;
                int at;
                double j = worst_jump(&ser[k][a], &at);
                if (j > 4)
                    bench_note("jump: %s %s at %zu B: %.1fx over its neighbours", colls[k].name,
                               sym_algorithm_name(ser[k][a].algo), ser[k][a].bytes[at], j);
                if (j > worst) {
                    worst = j;
                    wk = k;
                    wa = a;
                    wi = at;
                }
            }
        if (wk >= 0) {
            snprintf(detail, sizeof(detail),
                     "worst series %s %s at %zu B (spike over both neighbours, or step-up "
                     "beyond the size ratio)",
                     colls[wk].name, sym_algorithm_name(ser[wk][wa].algo), ser[wk][wa].bytes[wi]);
            char name[80];
            snprintf(name, sizeof(name), "%d-PE worst time jump over neighbours", n);
            bench_target(name, worst, "x", "<=", 4, detail);
        }
    }
    free(src);
    free(dst);
    free(mc_src);
    free(mc_dst);
    free(counts);
    return bench_finish();
}
