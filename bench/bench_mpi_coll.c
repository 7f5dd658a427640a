/*
 * bench_mpi_coll.c - the MPI twin of bench_coll: the same collectives, the
 * same sizes (nccl-tests "size": the whole vector, or the whole n-block
 * buffer), the same float-sum data and verification, through MPI calls,
 * plus MPI_Barrier.  Built with mpicc against the shared harness
 * (-DBENCH_RT_MPI); bench/compare pairs its rows with bench_coll's.
 *
 *   mpirun -np 2 bench_mpi_coll [--coll allreduce] [--step 4] [--core]
 *          [--min-size 8] [--max-size 4M] [--json FILE] ...
 *
 * JSON rows: test "<coll>", row and size = the bytes (bench/compare pairs them
 * with bench_coll's test "<coll>_<bytes>", row "auto" or an algorithm), and
 * test "barrier", row "mpi".
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_data.h"
#include "harness.h"

#define MAX_SIZES 32

static const struct {
    const char *name, *mpi;
    bool per_block;
    enum bench_coll_kind bus;
} colls[C_COUNT] = {
    [C_ALLREDUCE] = {"allreduce", "MPI_Allreduce", false, BENCH_COLL_ALLREDUCE},
    [C_REDUCE_SCATTER] = {"reduce_scatter", "MPI_Reduce_scatter_block", true,
                          BENCH_COLL_GATHERLIKE},
    [C_ALL_GATHER] = {"all_gather", "MPI_Allgather", true, BENCH_COLL_GATHERLIKE},
    [C_ALL_TO_ALL] = {"all_to_all", "MPI_Alltoall", true, BENCH_COLL_GATHERLIKE},
    [C_BROADCAST] = {"broadcast", "MPI_Bcast", false, BENCH_COLL_ROOTED},
    [C_REDUCE] = {"reduce", "MPI_Reduce", false, BENCH_COLL_ROOTED},
    [C_ALL_TO_ALLV] = {"all_to_allv", "MPI_Alltoallv", true, BENCH_COLL_GATHERLIKE},
    [C_GATHER] = {"gather", "MPI_Gather", true, BENCH_COLL_GATHERLIKE},
    [C_SCATTER] = {"scatter", "MPI_Scatter", true, BENCH_COLL_GATHERLIKE},
};

struct call {
    enum coll coll;
    float *src, *dst;
    int count;            /* elements per PE (per block for per_block collectives) */
    int *counts, *displs; /* all_to_allv */
};

static int run_call(const struct call *c)
{
    MPI_Comm w = MPI_COMM_WORLD;
    const int n = c->count;
    switch (c->coll) {
    case C_ALLREDUCE:
        return MPI_Allreduce(c->src, c->dst, n, MPI_FLOAT, MPI_SUM, w);
    case C_REDUCE_SCATTER:
        return MPI_Reduce_scatter_block(c->src, c->dst, n, MPI_FLOAT, MPI_SUM, w);
    case C_ALL_GATHER:
        return MPI_Allgather(c->src, n, MPI_FLOAT, c->dst, n, MPI_FLOAT, w);
    case C_ALL_TO_ALL:
        return MPI_Alltoall(c->src, n, MPI_FLOAT, c->dst, n, MPI_FLOAT, w);
    case C_BROADCAST:
        return MPI_Bcast(c->dst, n, MPI_FLOAT, 0, w);
    case C_REDUCE:
        return MPI_Reduce(c->src, c->dst, n, MPI_FLOAT, MPI_SUM, 0, w);
    case C_ALL_TO_ALLV:
        return MPI_Alltoallv(c->src, c->counts, c->displs, MPI_FLOAT, c->dst, c->counts, c->displs,
                             MPI_FLOAT, w);
    case C_GATHER:
        return MPI_Gather(c->src, n, MPI_FLOAT, c->dst, n, MPI_FLOAT, 0, w);
    case C_SCATTER:
        return MPI_Scatter(c->src, n, MPI_FLOAT, c->dst, n, MPI_FLOAT, 0, w);
    case C_COUNT:
        break;
    }
    return MPI_ERR_ARG;
}

static uint64_t coll_body(void *arg, uint64_t iters)
{
    const struct call *c = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        if (__builtin_expect(run_call(c) != MPI_SUCCESS, 0))
            bench_die("%s failed", colls[c->coll].mpi);
    uint64_t t1 = bench_now_ns();
    bench_clobber(c->dst);
    return t1 - t0;
}

static uint64_t barrier_body(void *arg, uint64_t iters)
{
    (void)arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        MPI_Barrier(MPI_COMM_WORLD);
    return bench_now_ns() - t0;
}

/* One verified call, checked as bench_coll checks its own (coll_data.h).
 * Returns this rank's wrong count. */
static uint64_t verify(struct call *c)
{
    const int me = bench_me(), n = bench_npes();
    coll_fill(c->coll, me, n, (size_t)c->count, c->src, c->dst);
    if (run_call(c) != MPI_SUCCESS)
        bench_die("%s failed", colls[c->coll].mpi);
    return coll_wrong(c->coll, me, n, (size_t)c->count, c->dst);
}

static struct {
    int coll; /* -1 all */
    int step;
    bool core;
    bool no_barrier;
} cfg = {-1, 4, false, false};

static int strip_own_args(int argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if ((strcmp(a, "--coll") == 0 || strcmp(a, "--step") == 0 || strcmp(a, "--algo") == 0) &&
            !v) {
            fprintf(stderr, "bench_mpi_coll: option '%s' needs a value\n", a);
            exit(2);
        }
        if (strcmp(a, "--coll") == 0) {
            cfg.coll = -1;
            if (strcmp(v, "all") != 0) {
                cfg.coll = -2;
                for (int k = 0; k < C_COUNT; k++)
                    if (strcmp(v, colls[k].name) == 0)
                        cfg.coll = k;
                if (strcmp(v, "barrier") == 0)
                    cfg.coll = C_COUNT;
                if (cfg.coll == -2) {
                    fprintf(stderr, "bench_mpi_coll: unknown collective '%s'\n", v);
                    exit(2);
                }
            }
            i++;
        } else if (strcmp(a, "--algo") == 0) {
            i++; /* accepted for symmetry with bench_coll; MPI chooses its own */
        } else if (strcmp(a, "--step") == 0) {
            cfg.step = coll_parse_step("bench_mpi_coll", v);
            i++;
        } else if (strcmp(a, "--core") == 0) {
            cfg.core = true;
        } else {
            if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
                printf("bench_mpi_coll options besides the harness's (below):\n"
                       "  --coll NAME   allreduce, reduce_scatter, all_gather, all_to_all, "
                       "broadcast, reduce,\n"
                       "                all_to_allv, gather, scatter, barrier or all (default)\n"
                       "  --step K      size multiplier 2, 4 (default), 8 or 64\n"
                       "  --core        only barrier and the six core collectives\n\n");
            argv[out++] = argv[i];
        }
    }
    argv[out] = NULL;
    return out;
}

int main(int argc, char **argv)
{
    argc = strip_own_args(argc, argv);
    static const struct bench_info info = {
        .name = "bench_mpi_coll",
        .about = "MPI twin of bench_coll: MPI collectives, nccl-tests style (float sum)",
        .default_min_size = 8,
        .default_max_size = (size_t)64 << 20,
        .default_repeats = 5,
    };
    bench_init(argc, argv, &info);
    const int n = bench_npes();
    bench_note("%d ranks on %ld cores (%s); size step x%d", n, sysconf(_SC_NPROCESSORS_ONLN),
               n > sysconf(_SC_NPROCESSORS_ONLN) ? "oversubscribed" : "one rank per core or fewer",
               cfg.step);

    if (cfg.coll == -1 || cfg.coll == C_COUNT) {
        struct bench_meas m = {
            .name = "MPI_Barrier", .body = barrier_body, .timing = BENCH_TIME_MAX};
        bench_measure(&m, 1);
        struct bench_table t = {"barrier", "barrier: MPI_Barrier, ns per call (slowest rank)",
                                BENCH_LAT, "Impl",
                                NULL,      false};
        bench_table_begin(&t);
        bench_table_row(&t, "mpi", 0, &m.stat, NULL, 0);
    }

    const size_t maxb = bench_opt.max_size;
    size_t cap = maxb + (size_t)n * sizeof(float) * 2 + 64;
    float *src = aligned_alloc(64, (cap + 63) / 64 * 64);
    float *dst = aligned_alloc(64, (cap + 63) / 64 * 64);
    int *counts = calloc((size_t)n, sizeof(int)), *displs = calloc((size_t)n, sizeof(int));
    if (!src || !dst || !counts || !displs)
        bench_die("allocation of %zu-byte buffers failed", cap);
    memset(src, 0, cap);
    memset(dst, 0, cap);

    for (int k = 0; k < C_COUNT; k++) {
        if (cfg.coll >= 0 && cfg.coll != k)
            continue;
        if (cfg.coll < 0 && cfg.core && k >= C_ALL_TO_ALLV)
            continue;
        char title[160];
        snprintf(title, sizeof(title),
                 "%s (%s), %d ranks, float sum; Size = nccl-tests size; ns per call (slowest "
                 "rank)",
                 colls[k].name, colls[k].mpi, n);
        struct bench_table hdr = {colls[k].name, title, BENCH_LAT, "Size", NULL, false};
        bool printed = false;
        size_t last_bytes = 0;
        for (size_t size = bench_opt.min_size; size && size <= maxb;
             size = coll_next_size(size, cfg.step)) {
            size_t bytes;
            const size_t count = coll_count(size, colls[k].per_block, n, &bytes);
            if (bytes == last_bytes)
                continue;
            last_bytes = bytes;
            for (int j = 0; j < n; j++) {
                counts[j] = (int)count;
                displs[j] = (int)(count * (size_t)j);
            }
            struct call c = {.coll = (enum coll)k,
                             .src = src,
                             .dst = dst,
                             .count = (int)count,
                             .counts = counts,
                             .displs = displs};
            uint64_t wrong = bench_sum_u64(verify(&c));
            struct bench_meas m = {
                .name = colls[k].mpi, .body = coll_body, .arg = &c, .timing = BENCH_TIME_MAX};
            bench_measure(&m, 1);
            if (!printed) {
                bench_table_begin_coll(&hdr, bench_bus_factor(colls[k].bus, n));
                printed = true;
            }
            bench_table_row(&hdr, NULL, bytes, &m.stat, NULL, wrong);
        }
    }
    free(src);
    free(dst);
    free(counts);
    free(displs);
    return bench_finish();
}
