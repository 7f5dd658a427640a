/*
 * harness_private.h - the state the files of the benchmark harness share
 * (harness.c, harness_*.c); programs use harness.h only.
 */
#ifndef BENCH_HARNESS_PRIVATE_H
#define BENCH_HARNESS_PRIVATE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "harness.h"

/* The harness's symmetric control block.  Each word has its own cache line
 * so the gate that parked PEs sleep on is not disturbed by the counters. */
struct bench_ctl {
    uint32_t gate;
    uint8_t pad0[60];
    uint64_t done;
    uint8_t pad1[56];
    uint64_t bcast;
    uint8_t pad2[56];
    uint64_t sum;
    uint8_t pad3[56];
    uint64_t elapsed[]; /* [npes] */
};

#define MAX_TARGETS 32

struct target {
    char *name, *unit, *detail;
    const char *cmp;
    double measured, target;
    bool met;
};

struct bench_state {
    const struct bench_info *info;
    int me, npes;
    bool rt_up;        /* the runtime is initialised: bench_die aborts the job */
    char rt_impl[160]; /* bench_impl() */
    struct bench_ctl *ctl;
    uint32_t *gate;         /* ctl->gate as mapped from PE 0's heap */
    uint32_t gate_gen;      /* parked-section count, identical on every PE */
    uint64_t done_expected; /* PE 0: completions it has waited for */
    struct bench_stat raw_before, raw_after;
    double ceiling_memcpy_gbs, ceiling_cma_gbs; /* bench_copy_ceiling; 0: not measured */
    double clock_read_ns;
    char cpu[128], kernel[256], date[64], clocksource[64];
    char load_start[64], load_end[64]; /* /proc/loadavg: other work on the host */
    long nproc;
    FILE *jrows; /* JSON result objects, comma separated */
    char *jrows_buf;
    size_t jrows_len;
    FILE *jnotes;
    char *jnotes_buf;
    size_t jnotes_len;
    struct target targets[MAX_TARGETS];
    int ntargets;
    uint64_t wrong_total;
};

extern struct bench_state bench_state;

#if defined(BENCH_RT_SHMEM)
/* uint64_t is unsigned long on the LP64 targets OpenSHMEM 1.4 runs on; the
 * typed AMOs of 1.4 have long but no uint64. */
_Static_assert(sizeof(long) == 8, "the shmem harness needs a 64-bit long");
#define RT_L(p) ((long *)(void *)(p))
#endif

/* harness_runtime.c */
void harness_die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
#ifndef BENCH_RT_MPI
void harness_rt_set64(uint64_t *w, uint64_t v, int pe);
void harness_rt_add64(uint64_t *w, uint64_t v, int pe);
#endif
int harness_rt_finalize(void);

/* harness_args.c: 0 to go on; otherwise the exit status + 1 (1: exit 0). */
int harness_parse_args(int argc, char **argv, const struct bench_info *info);

/* harness_machine.c */
void harness_read_first_line(const char *path, char *buf, size_t len);
void harness_machine_info(void);

/* harness_json.c */
void harness_json_str(FILE *f, const char *s);
void harness_json_num(FILE *f, double v);
void harness_json_stat(FILE *f, const struct bench_stat *s);
void harness_write_json(void);

#endif /* BENCH_HARNESS_PRIVATE_H */
