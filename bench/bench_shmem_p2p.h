/*
 * bench_shmem_p2p.h - what the parts of bench_shmem_p2p share: where a part
 * runs (the symmetric heap or global variables), the guard after each
 * destination, and the parts themselves (bench_shmem_p2p_<part>.c).
 */
#ifndef BENCH_SHMEM_P2P_H
#define BENCH_SHMEM_P2P_H

#include <stddef.h>
#include <stdint.h>

#include "harness.h"

#define MAX_SIZES 64
#define GMAX      (4u << 20) /* largest global-variable buffer */
#define PP_MAX    (64u << 10)

/* Open MPI before 4.1.5 smashes the stack in 32-bit compare-and-swap. */
#if defined(OSHMEM_MAJOR_VERSION) && defined(OSHMEM_RELEASE_VERSION) &&                            \
    (OSHMEM_MAJOR_VERSION * 10000 + OSHMEM_MINOR_VERSION * 100 + OSHMEM_RELEASE_VERSION) < 40105
#define SKIP_INT_CSWAP 1
#else
#define SKIP_INT_CSWAP 0
#endif

struct loc {
    const char *name; /* "heap" or "global" */
    uint8_t *put_dst, *bw_dst, *get_src, *pp_buf;
    long *pp_flag;
    long *word;
    int *word32;
};

/* Page-aligned, zeroed (faulted in) local memory; exits when there is none. */
void *xmalloc(size_t n);

/* put / get latency, bandwidth and message rate, 1 B .. max, PE 0 -> PE 1 */
void run_rma(const struct loc *L, size_t max);
/* latency and aggregate rate of every atomic on long/ulong and int/uint */
void run_amo(const struct loc *L);
/* putmem payload + fence + flag, answered after wait_until, one-way */
void run_pingpong(const struct loc *L);

#endif
