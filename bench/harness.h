/*
 * harness.h - the measurement harness shared by the symheap benchmarks.
 *
 * A benchmark is a set of "bodies": functions that run an operation `iters`
 * times and return how long the loop took (they time themselves, so setup
 * such as forking a child stays outside the measurement).  The harness
 * chooses `iters` so one sample takes a few milliseconds, warms up, takes
 * --repeats samples and reports median / min / max per operation.  Several
 * bodies measured together are interleaved sample by sample (A B A B ...),
 * because cross-core latency on this kind of machine drifts between regimes
 * within seconds and a ratio is only meaningful between neighbours in time.
 *
 * Every function documented as collective must be called by every PE in the
 * same order.  Only PE 0 prints and writes JSON.
 */
#ifndef BENCH_HARNESS_H
#define BENCH_HARNESS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bench_rt.h"

#define BENCH_MAX_REPEATS 101

struct bench_opts {
    uint64_t iters;     /* -n: fixed iterations per sample; 0 = calibrate */
    int repeats;        /* --repeats: samples per figure */
    size_t min_size;    /* --min-size */
    size_t max_size;    /* --max-size */
    double sample_ms;   /* --sample-ms: what calibration aims for per sample */
    const char *json;   /* --json FILE or NULL */
    unsigned size_step; /* --size-step: sweep multiplier (default 2) */
};

extern struct bench_opts bench_opt;

/* What a program tells bench_init() about itself. */
struct bench_info {
    const char *name;        /* "bench_rma" */
    const char *about;       /* one line for --help and the header */
    size_t default_min_size; /* 0 if the program has no size sweep */
    size_t default_max_size;
    int default_repeats; /* 0: 7 */
};

/* Parse the command line, sym_init(), allocate the harness's symmetric
 * control block, print the header and run the "before" raw ping-pong.
 * Exits the process on --help (0) or a usage error (2).  Collective. */
void bench_init(int argc, char **argv, const struct bench_info *info);

/* Run the "after" raw ping-pong, print the targets section, write JSON,
 * sym_finalize().  Returns the exit status for main(): 0, or 1 if any
 * verification found wrong data.  Collective. */
int bench_finish(void);

int bench_me(void);
int bench_npes(void);
static inline bool bench_root(void)
{
    return bench_me() == 0;
}

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t bench_now_ns(void);

/* Print "PROGRAM: PE n: message" to stderr and abort the whole job. */
void bench_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn, cold));

/* The implementation measured ("symheap 0.1.0 (native API)", "openshmem
 * 1.4: ..."), valid after bench_init(). */
const char *bench_impl(void);

#ifdef BENCH_RT_SYM
/* Abort the job with a message naming the failed call (and the library's
 * detail message) when `st` is not SYM_OK.  Used inside timed loops, so the
 * check is a predicted-not-taken branch. */
void bench_fail(const char *what, sym_status_t st) __attribute__((noreturn, cold));
#define BENCH_OK(call)                                                                             \
    do {                                                                                           \
        sym_status_t bench_st_ = (call);                                                           \
        if (__builtin_expect(bench_st_ != SYM_OK, 0))                                              \
            bench_fail(#call, bench_st_);                                                          \
    } while (0)
#endif

/* Keep the compiler from dropping or merging stores to *p. */
static inline void bench_clobber(const void *p)
{
    __asm__ volatile("" : : "r"(p) : "memory");
}

/* ---- measurement ------------------------------------------------------- */

/* Runs the measured operation `iters` times, returns elapsed ns. */
typedef uint64_t (*bench_body_fn)(void *arg, uint64_t iters);

enum bench_timing {
    BENCH_TIME_ROOT, /* the sample's time is PE 0's */
    BENCH_TIME_MAX,  /* the slowest participant's (aggregate rates) */
};

/* Why a body is being run; bodies that keep per-iteration data (the barrier
 * per-round times) record it only during BENCH_PHASE_SAMPLE. */
enum bench_phase { BENCH_PHASE_CALIBRATE, BENCH_PHASE_WARMUP, BENCH_PHASE_SAMPLE };
extern enum bench_phase bench_phase;

struct bench_stat {
    uint64_t iters;               /* iterations per sample */
    int n;                        /* samples */
    double ns[BENCH_MAX_REPEATS]; /* ns per operation, one per sample */
    double median, min, max;
};

struct bench_meas {
    const char *name;
    bench_body_fn body;
    void *arg;
    /* PEs 0 .. participants-1 run the body; the others sleep in a futex
     * meanwhile so they take no CPU from the measurement.  0 = all PEs. */
    int participants;
    enum bench_timing timing;
    /* Operations per iteration the ns are divided by: 2 for a round trip
     * reported one-way, npes for an aggregate rate.  0 counts as 1. */
    double ops_per_iter;
    /* Floor for the calibrated iteration count (0: 1), for bodies whose
     * per-iteration distribution matters more than the sample's length. */
    uint64_t min_iters;
    /* OpenSHMEM runtime only: PEs that take no part wait inside the library
     * (shmem_int_wait_until) instead of sleeping, because an implementation
     * may need the target to make progress (Open MPI's OSHMEM does for
     * global variables).  Ignored by the other runtimes. */
    bool target_progress;
    struct bench_stat stat; /* out, valid on PE 0 */
};

/* Calibrate, warm up and sample every measurement in m[0..count), sample r
 * of every measurement taken before sample r + 1 of any.  Collective. */
void bench_measure(struct bench_meas *m, int count);

/* Median over samples of a.ns[i] / b.ns[i]: the ratio of two interleaved
 * measurements, robust against drift between samples. */
double bench_paired_ratio(const struct bench_stat *a, const struct bench_stat *b);

/* Median / min / max of v[0..n) (reorders v). */
void bench_summarize(double *v, size_t n, double *median, double *min, double *max);

/* ---- physical limits ---------------------------------------------------- */

/* A measurement of a raw cache-line ping-pong between PE 0 and a forked child
 * over a MAP_SHARED page (flags on separate lines), reported one-way.  Only
 * PE 0 runs it; the other PEs sleep.  Pass to bench_measure(). */
struct bench_meas bench_raw_pingpong(void);

/* Same-core hand-off: PE 0 and a forked child pinned to PE 0's CPU pass a
 * flag back and forth, each waiting with sched_yield(); reported one-way
 * (one switch between two waiting processes).  The cost unit of any
 * synchronisation with more processes than cores.  Pass to bench_measure(). */
struct bench_meas bench_yield_handoff(void);

/* The before/after raw ping-pong figures (valid on PE 0 after bench_init /
 * in and after bench_finish). */
const struct bench_stat *bench_raw_before(void);

/* A measurement of memcpy of `size` bytes between two private buffers of
 * at least `size` bytes, single thread on PE 0. */
struct bench_memcpy_arg {
    void *dst;
    const void *src;
    size_t size;
};
struct bench_meas bench_memcpy(struct bench_memcpy_arg *arg);

/* The same bytes read from a forked child's private memory with
 * process_vm_readv (cross-memory attach), on PE 0. */
struct bench_meas bench_cma_read(struct bench_memcpy_arg *arg);

/* Measure memcpy and cross-memory attach of 4 MiB once (PE 0; the others
 * wait), print them and put them in the JSON file: the ceiling of any one
 * copy of a private buffer on this host.  Collective. */
void bench_copy_ceiling(void);

/* ---- small collectives over the harness's control block ----------------- */

void bench_barrier(void);
/* Every PE returns PE 0's v. */
uint64_t bench_bcast_u64(uint64_t v);
/* Every PE returns the sum of every PE's v. */
uint64_t bench_sum_u64(uint64_t v);

/* ---- sizes -------------------------------------------------------------- */

/* Powers of two from --min-size (rounded up) to --max-size, every
 * --size-step'th power (multiplied by 2, 4, 8 or 16). */
size_t bench_size_first(void);
size_t bench_size_next(size_t size); /* 0 after the last */
/* "1", "4K", "2M" */
const char *bench_size_str(size_t size, char buf[24]);

/* Deterministic byte pattern for data verification. */
static inline uint8_t bench_pattern(uint64_t seed, size_t i)
{
    uint64_t x = seed * 0x9E3779B97F4A7C15u + (i >> 3);
    x ^= x >> 29;
    x *= 0xBF58476D1CE4E5B9u;
    x ^= x >> 32;
    return (uint8_t)(x >> (8 * (i & 7)));
}
void bench_fill(void *buf, size_t n, uint64_t seed);
/* Number of bytes of buf[0..n) that differ from bench_fill(seed). */
uint64_t bench_check(const void *buf, size_t n, uint64_t seed);
/* A destination of n bytes is followed by BENCH_GUARD bytes set to
 * BENCH_GUARD_BYTE that no transfer may touch: bench_check() of buf[0..n)
 * plus the guard bytes that changed. */
#define BENCH_GUARD      64
#define BENCH_GUARD_BYTE 0xEE
uint64_t bench_check_guarded(const void *buf, size_t n, uint64_t seed);
/* Collective: PE `pe` checks its guarded buf as above; every PE gets that
 * count. */
uint64_t bench_check_on(int pe, const void *buf, size_t n, uint64_t seed);

/* ---- output (PE 0 only; no-ops elsewhere) --------------------------------- */

enum bench_kind {
    BENCH_LAT,  /* ns per op; ratio = measured / baseline */
    BENCH_BW,   /* MB/s from the row's size; ratio = measured / baseline */
    BENCH_RATE, /* operations/s; ratio = measured / baseline */
};

struct bench_table {
    const char *test;  /* JSON key, "put_latency" */
    const char *title; /* printed above the table */
    enum bench_kind kind;
    const char *row_name;  /* first column heading: "Size" or "Op" */
    const char *base_name; /* baseline column heading, NULL if none */
    /* Rows re-present samples of another table (get bandwidth from the get
     * latency loop): their #wrong is shown but not counted again. */
    bool derived;
};

void bench_table_begin(const struct bench_table *t);
/* bench_table_begin() for collectives (kind BENCH_LAT, size = nccl-tests'
 * size): the rows until the next begin also show algbw = size / time and
 * busbw = algbw * bus_factor, in GB/s (bench_bus_factor() gives the factor). */
void bench_table_begin_coll(const struct bench_table *t, double bus_factor);

/* nccl-tests' bus bandwidth factors for n ranks. */
enum bench_coll_kind {
    BENCH_COLL_ALLREDUCE,  /* 2(n-1)/n */
    BENCH_COLL_GATHERLIKE, /* (n-1)/n: all_gather, reduce_scatter, all_to_all */
    BENCH_COLL_ROOTED,     /* 1: broadcast, reduce */
};
double bench_bus_factor(enum bench_coll_kind k, int n);
/* label NULL: the row is named by its size.  base may be NULL.  For BW the
 * size is the bytes moved per operation. */
void bench_table_row(const struct bench_table *t, const char *label, size_t size,
                     const struct bench_stat *s, const struct bench_stat *base, uint64_t wrong);
/* Extra per-row statistics for distributions that are not per-sample (the
 * barrier's per-round times). */
void bench_table_row_values(const struct bench_table *t, const char *label, size_t size,
                            uint64_t iters, size_t nvalues, double median_ns, double min_ns,
                            double max_ns, const struct bench_stat *base, double ratio,
                            uint64_t wrong);
void bench_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* A target: `measured` compared with `target` by cmp ("<", "<=", ">=", ">").
 * Printed in the targets section by bench_finish(). */
void bench_target(const char *name, double measured, const char *unit, const char *cmp,
                  double target, const char *detail);

#endif /* BENCH_HARNESS_H */
