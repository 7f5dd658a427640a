/*
 * coll_data.h - what bench_coll (symheap's collectives) and its MPI twin
 * bench_mpi_coll share, so that paired rows move and check the same data:
 * the collectives, the size sweep, the nccl-tests size of a call, the input
 * values and the check of every output element.  Header-only and free of
 * any runtime's calls: the MPI twin is built with mpicc from the harness
 * and its own source alone.
 */
#ifndef BENCH_COLL_DATA_H
#define BENCH_COLL_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define COLL_SENTINEL (-12345.0f)

enum coll {
    C_ALLREDUCE,
    C_REDUCE_SCATTER,
    C_ALL_GATHER,
    C_ALL_TO_ALL,
    C_BROADCAST,
    C_REDUCE,
    C_ALL_TO_ALLV,
    C_GATHER,
    C_SCATTER,
    C_COUNT
};

/* Input element i of PE p: a small integer, so any float sum over at most a
 * few hundred PEs is exact whatever the order of the additions. */
static inline float coll_val(int p, size_t i)
{
    return (float)((i * 7 + (size_t)p * 3 + 1) % 17);
}

static inline float coll_sum_at(int npes, size_t i)
{
    float s = 0;
    for (int p = 0; p < npes; p++)
        s += coll_val(p, i);
    return s;
}

/* --step K: the size multiplier of the sweep; anything else ends the
 * program (it runs before the runtime starts: every PE says so). */
static inline int coll_parse_step(const char *prog, const char *v)
{
    int step = atoi(v);
    if (step != 2 && step != 4 && step != 8 && step != 64) {
        fprintf(stderr, "%s: --step must be 2, 4, 8 or 64\n", prog);
        exit(2);
    }
    return step;
}

/* The next power of the step above size: 8, 16, 64, 256, ... for step 4,
 * so the sweep always hits 1 MiB and 4 MiB; 0 past SIZE_MAX. */
static inline size_t coll_next_size(size_t size, int step)
{
    size_t p = 1;
    while (p <= size) {
        if (p > SIZE_MAX / (size_t)step)
            return 0;
        p *= (size_t)step;
    }
    return p;
}

/* The elements per PE (per block when per_block: the size is n blocks) of
 * a call of nccl-tests size `size`, rounded down to whole floats and at
 * least one; *bytes gets the size actually moved. */
static inline size_t coll_count(size_t size, bool per_block, int n, size_t *bytes)
{
    size_t elems = size / sizeof(float);
    size_t count = per_block ? elems / (size_t)n : elems;
    if (count == 0)
        count = 1;
    *bytes = count * sizeof(float) * (per_block ? (size_t)n : 1);
    return count;
}

/* Before a verified call: PE me's source holds coll_val(me, global index)
 * (for per-block inputs global index = block * count + i), the destination
 * is poisoned, and the broadcast root's destination holds the data. */
static inline void coll_fill(enum coll k, int me, int n, size_t cnt, float *src, float *dst)
{
    const size_t total = cnt * (size_t)n;
    size_t nsrc, ndst;
    switch (k) {
    case C_ALLREDUCE:
    case C_REDUCE:
        nsrc = ndst = cnt;
        break;
    case C_BROADCAST:
        nsrc = 0;
        ndst = cnt;
        break;
    case C_REDUCE_SCATTER:
    case C_SCATTER:
        nsrc = total;
        ndst = cnt;
        break;
    case C_ALL_GATHER:
    case C_GATHER:
        nsrc = cnt;
        ndst = total;
        break;
    default: /* all_to_all(v) */
        nsrc = ndst = total;
        break;
    }
    for (size_t i = 0; i < nsrc; i++)
        src[i] = coll_val(me, i);
    for (size_t i = 0; i < ndst; i++)
        dst[i] = COLL_SENTINEL;
    if (k == C_BROADCAST && me == 0)
        for (size_t i = 0; i < cnt; i++)
            dst[i] = coll_val(0, i);
}

/* After the call coll_fill prepared: how many elements of PE me's defined
 * output are wrong (a rooted call's non-root destination must be untouched). */
static inline uint64_t coll_wrong(enum coll k, int me, int n, size_t cnt, const float *dst)
{
    uint64_t wrong = 0;
    switch (k) {
    case C_ALLREDUCE:
        for (size_t i = 0; i < cnt; i++)
            wrong += dst[i] != coll_sum_at(n, i);
        break;
    case C_REDUCE:
        for (size_t i = 0; i < cnt; i++)
            wrong += dst[i] != (me == 0 ? coll_sum_at(n, i) : COLL_SENTINEL);
        break;
    case C_BROADCAST:
        for (size_t i = 0; i < cnt; i++)
            wrong += dst[i] != coll_val(0, i);
        break;
    case C_REDUCE_SCATTER:
        for (size_t i = 0; i < cnt; i++)
            wrong += dst[i] != coll_sum_at(n, (size_t)me * cnt + i);
        break;
    case C_ALL_GATHER:
    case C_GATHER:
        for (size_t b = 0; b < (size_t)n; b++)
            for (size_t i = 0; i < cnt; i++)
                wrong += dst[b * cnt + i] !=
                         (k == C_GATHER && me != 0 ? COLL_SENTINEL : coll_val((int)b, i));
        break;
    case C_SCATTER:
        for (size_t i = 0; i < cnt; i++)
            wrong += dst[i] != coll_val(0, (size_t)me * cnt + i);
        break;
    default: /* all_to_all(v): block b of dst = PE b's block me */
        for (size_t b = 0; b < (size_t)n; b++)
            for (size_t i = 0; i < cnt; i++)
                wrong += dst[b * cnt + i] != coll_val((int)b, (size_t)me * cnt + i);
        break;
    }
    return wrong;
}

#endif
