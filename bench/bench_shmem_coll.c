/*
 * bench_shmem_coll.c - OpenSHMEM collectives written against shmem.h only:
 * barrier_all, broadcast, float sum reduce-to-all, fcollect, collect and
 * alltoall over all PEs, 4 B .. 4 MiB contributed per PE, every call's
 * result verified once per size before it is timed.
 *
 * An OpenSHMEM 1.5 implementation (symheap's facade) is measured through the
 * team API on SHMEM_TEAM_WORLD (shmem_broadcastmem, shmem_float_sum_reduce,
 * shmem_fcollectmem, shmem_collectmem, shmem_alltoallmem); a 1.4 one (Open
 * MPI 4.1's OSHMEM) through the active-set calls (shmem_broadcast32,
 * shmem_float_sum_to_all, shmem_fcollect32, shmem_collect32,
 * shmem_alltoall32) with two pSync arrays used alternately.  Each is the
 * implementation's own current API; the data moved is the same.
 *
 *   oshrun -np 4 bench_shmem_coll [--coll NAME] [--min-size 4] [--max-size 4M]
 *          [--size-step 4] [--json FILE] ...
 *
 * Row label = bytes per PE; the size used for algbw/busbw is nccl-tests'
 * (bytes per PE * PEs for fcollect, collect and alltoall).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#if SHMEM_MAJOR_VERSION > 1 || (SHMEM_MAJOR_VERSION == 1 && SHMEM_MINOR_VERSION >= 5)
#define TEAMS 1
#else
#define TEAMS 0
#endif

#define SENTINEL (-12345.0f)

enum coll { C_BARRIER, C_BROADCAST, C_REDUCE, C_FCOLLECT, C_COLLECT, C_ALLTOALL, C_COUNT };

static const struct {
    const char *name, *call;
    enum bench_coll_kind bus;
    bool gathers; /* dst holds npes blocks */
} colls[C_COUNT] = {
    [C_BARRIER] = {"barrier", "shmem_barrier_all", BENCH_COLL_ROOTED, false},
#if TEAMS
    [C_BROADCAST] = {"broadcast", "shmem_broadcastmem", BENCH_COLL_ROOTED, false},
    [C_REDUCE] = {"reduce_to_all", "shmem_float_sum_reduce", BENCH_COLL_ALLREDUCE, false},
    [C_FCOLLECT] = {"fcollect", "shmem_fcollectmem", BENCH_COLL_GATHERLIKE, true},
    [C_COLLECT] = {"collect", "shmem_collectmem", BENCH_COLL_GATHERLIKE, true},
    [C_ALLTOALL] = {"alltoall", "shmem_alltoallmem", BENCH_COLL_GATHERLIKE, true},
#else
    [C_BROADCAST] = {"broadcast", "shmem_broadcast32", BENCH_COLL_ROOTED, false},
    [C_REDUCE] = {"reduce_to_all", "shmem_float_sum_to_all", BENCH_COLL_ALLREDUCE, false},
    [C_FCOLLECT] = {"fcollect", "shmem_fcollect32", BENCH_COLL_GATHERLIKE, true},
    [C_COLLECT] = {"collect", "shmem_collect32", BENCH_COLL_GATHERLIKE, true},
    [C_ALLTOALL] = {"alltoall", "shmem_alltoall32", BENCH_COLL_GATHERLIKE, true},
#endif
};

struct call {
    enum coll coll;
    float *src, *dst; /* symmetric */
    size_t bytes;     /* per PE (per block for alltoall) */
#if !TEAMS
    long *psync[2]; /* symmetric */
    float *pwrk;    /* symmetric */
    unsigned flip;
#endif
};

static void run_call(struct call *c)
{
    const size_t n32 = c->bytes / 4;
#if TEAMS
    int rc = 0;
    switch (c->coll) {
    case C_BARRIER:
        shmem_barrier_all();
        break;
    case C_BROADCAST:
        rc = shmem_broadcastmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes, 0);
        break;
    case C_REDUCE:
        rc = shmem_float_sum_reduce(SHMEM_TEAM_WORLD, c->dst, c->src, n32);
        break;
    case C_FCOLLECT:
        rc = shmem_fcollectmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes);
        break;
    case C_COLLECT:
        rc = shmem_collectmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes);
        break;
    case C_ALLTOALL:
        rc = shmem_alltoallmem(SHMEM_TEAM_WORLD, c->dst, c->src, c->bytes);
        break;
    case C_COUNT:
        break;
    }
    if (__builtin_expect(rc != 0, 0))
        bench_die("%s of %zu bytes returned %d", colls[c->coll].call, c->bytes, rc);
#else
    const int n = bench_npes();
    long *ps = c->psync[c->flip++ & 1];
    switch (c->coll) {
    case C_BARRIER:
        shmem_barrier_all();
        break;
    case C_BROADCAST:
        shmem_broadcast32(c->dst, c->src, n32, 0, 0, 0, n, ps);
        break;
    case C_REDUCE:
        shmem_float_sum_to_all(c->dst, c->src, (int)n32, 0, 0, n, c->pwrk, ps);
        break;
    case C_FCOLLECT:
        shmem_fcollect32(c->dst, c->src, n32, 0, 0, n, ps);
        break;
    case C_COLLECT:
        shmem_collect32(c->dst, c->src, n32, 0, 0, n, ps);
        break;
    case C_ALLTOALL:
        shmem_alltoall32(c->dst, c->src, n32, 0, 0, n, ps);
        break;
    case C_COUNT:
        break;
    }
#endif
}

static uint64_t coll_body(void *arg, uint64_t iters)
{
    struct call *c = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        run_call(c);
    uint64_t t1 = bench_now_ns();
    bench_clobber(c->dst);
    return t1 - t0;
}

static inline float val(int p, size_t i)
{
    return (float)((i * 7 + (size_t)p * 3 + 1) % 17);
}

/* One verified call; returns this PE's wrong count. */
static uint64_t verify(struct call *c)
{
    const int me = bench_me(), n = bench_npes();
    const size_t cnt = c->bytes / 4;
    const size_t nsrc = c->coll == C_ALLTOALL ? cnt * (size_t)n : cnt;
    const size_t ndst = colls[c->coll].gathers ? cnt * (size_t)n : cnt;
    for (size_t i = 0; i < nsrc; i++)
        c->src[i] = val(me, i);
    for (size_t i = 0; i < ndst; i++)
        c->dst[i] = SENTINEL;
    bench_barrier(); /* nobody writes into a dst that is still being poisoned */
    run_call(c);
    bench_barrier();
    uint64_t wrong = 0;
    switch (c->coll) {
    case C_BROADCAST:
        /* The root's dest is not written in 1.4 and is in 1.5: check the
         * others only. */
        if (me != 0)
            for (size_t i = 0; i < cnt; i++)
                wrong += c->dst[i] != val(0, i);
        break;
    case C_REDUCE:
        for (size_t i = 0; i < cnt; i++) {
            float s = 0;
            for (int p = 0; p < n; p++)
                s += val(p, i);
            wrong += c->dst[i] != s;
        }
        break;
    case C_FCOLLECT:
    case C_COLLECT:
        for (size_t b = 0; b < (size_t)n; b++)
            for (size_t i = 0; i < cnt; i++)
                wrong += c->dst[b * cnt + i] != val((int)b, i);
        break;
    case C_ALLTOALL:
        for (size_t b = 0; b < (size_t)n; b++)
            for (size_t i = 0; i < cnt; i++)
                wrong += c->dst[b * cnt + i] != val((int)b, (size_t)me * cnt + i);
        break;
    default:
        break;
    }
    return wrong;
}

static int only = -1;

static int strip_own_args(int argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--coll") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "bench_shmem_coll: --coll needs a value\n");
                exit(2);
            }
            const char *v = argv[++i];
            only = -2;
            for (int k = 0; k < C_COUNT; k++)
                if (strcmp(v, colls[k].name) == 0)
                    only = k;
            if (strcmp(v, "all") == 0)
                only = -1;
            if (only == -2) {
                fprintf(stderr, "bench_shmem_coll: unknown collective '%s'\n", v);
                exit(2);
            }
        } else {
            if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
                printf("bench_shmem_coll options besides the harness's (below):\n"
                       "  --coll NAME   barrier, broadcast, reduce_to_all, fcollect, collect, "
                       "alltoall or all\n\n");
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
        .name = "bench_shmem_coll",
        .about = "OpenSHMEM collectives: barrier, broadcast, reduce-to-all, fcollect, collect, "
                 "alltoall (float sum), 4 B .. 4 MiB per PE",
        .default_min_size = 4,
        .default_max_size = 4u << 20,
        .default_repeats = 5,
    };
    bench_init(argc, argv, &info);
    const int n = bench_npes();
    const size_t max = bench_opt.max_size < 4 ? 4 : bench_opt.max_size;
    bench_note("%s API on all %d PEs (%s)",
               TEAMS ? "OpenSHMEM 1.5 team"
                     : "OpenSHMEM 1.4 "
                       "active-set",
               n, bench_impl());
    struct call c = {0};
    c.src = shmem_malloc(max * (size_t)n);
    c.dst = shmem_malloc(max * (size_t)n);
    if (!c.src || !c.dst)
        bench_die("shmem_malloc of 2 x %zu bytes failed (symmetric heap too small? "
                  "SHMEM_SYMMETRIC_SIZE / SYMHEAP_HEAP_SIZE)",
                  max * (size_t)n);
    memset(c.src, 0, max * (size_t)n);
    memset(c.dst, 0, max * (size_t)n);
#if !TEAMS
    size_t nsync = SHMEM_BCAST_SYNC_SIZE;
    if (SHMEM_COLLECT_SYNC_SIZE > nsync)
        nsync = SHMEM_COLLECT_SYNC_SIZE;
    if (SHMEM_REDUCE_SYNC_SIZE > nsync)
        nsync = SHMEM_REDUCE_SYNC_SIZE;
    if (SHMEM_ALLTOALL_SYNC_SIZE > nsync)
        nsync = SHMEM_ALLTOALL_SYNC_SIZE;
    size_t nwrk = max / 4 / 2 + 1;
    if (nwrk < SHMEM_REDUCE_MIN_WRKDATA_SIZE)
        nwrk = SHMEM_REDUCE_MIN_WRKDATA_SIZE;
    for (int j = 0; j < 2; j++) {
        c.psync[j] = shmem_malloc(nsync * sizeof(long));
        if (!c.psync[j])
            bench_die("shmem_malloc of pSync failed");
        for (size_t i = 0; i < nsync; i++)
            c.psync[j][i] = SHMEM_SYNC_VALUE;
    }
    c.pwrk = shmem_malloc(nwrk * sizeof(float));
    if (!c.pwrk)
        bench_die("shmem_malloc of pWrk failed");
#endif
    bench_barrier();

    for (int k = 0; k < C_COUNT; k++) {
        if (only >= 0 && only != k)
            continue;
        c.coll = (enum coll)k;
        char title[200];
        snprintf(title, sizeof(title),
                 "%s (%s), %d PEs, float data; Row = bytes per PE, busbw from nccl-tests' "
                 "size; ns per call (slowest PE)",
                 colls[k].name, colls[k].call, n);
        struct bench_table t = {colls[k].name, title, BENCH_LAT, k == C_BARRIER ? "Op" : "PerPE(B)",
                                NULL,          false};
        if (k == C_BARRIER) {
            struct bench_meas m = {
                .name = "barrier", .body = coll_body, .arg = &c, .timing = BENCH_TIME_MAX};
            bench_measure(&m, 1);
            bench_table_begin(&t);
            bench_table_row(&t, "barrier_all", 0, &m.stat, NULL, 0);
            continue;
        }
        bench_table_begin_coll(&t, bench_bus_factor(colls[k].bus, n));
        for (size_t size = bench_size_first(); size; size = bench_size_next(size)) {
            if (size < 4)
                continue;
            c.bytes = size / 4 * 4;
            uint64_t wrong = bench_sum_u64(verify(&c));
            struct bench_meas m = {
                .name = colls[k].name, .body = coll_body, .arg = &c, .timing = BENCH_TIME_MAX};
            bench_measure(&m, 1);
            char label[32];
            snprintf(label, sizeof(label), "%zu", c.bytes);
            size_t nccl = colls[k].gathers ? c.bytes * (size_t)n : c.bytes;
            bench_table_row(&t, label, nccl, &m.stat, NULL, wrong);
        }
    }
    bench_barrier();
#if !TEAMS
    shmem_free(c.psync[0]);
    shmem_free(c.psync[1]);
    shmem_free(c.pwrk);
#endif
    shmem_free(c.src);
    shmem_free(c.dst);
    return bench_finish();
}
