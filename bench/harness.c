/*
 * harness.c - bench_init() and bench_finish(): bring the runtime up, parse
 * the command line, allocate the control block, print the header and the
 * raw ping-pong before and after, the targets, and write the JSON file.
 * The harness's other parts: sampling (harness_sample.c), physical limits
 * (harness_limits.c), sizes (harness_sizes.c), tables (harness_table.c),
 * JSON (harness_json.c), options (harness_args.c), machine information
 * (harness_machine.c) and the runtime underneath (harness_runtime.c).
 */
#include "harness_private.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void print_raw(const char *when, const struct bench_stat *s)
{
    bench_note("raw cache-line ping-pong %s (2 processes, one-way): median %.1f ns, min %.1f, "
               "max %.1f over %d samples of %" PRIu64 " round trips",
               when, s->median, s->min, s->max, s->n, s->iters);
}

void bench_init(int argc, char **argv, const struct bench_info *info)
{
    bench_state.info = info;
    /* Line-buffered even into a pipe or file, so a killed run keeps its
     * rows. */
    setvbuf(stdout, NULL, _IOLBF, 0);
#if defined(BENCH_RT_SHMEM)
    shmem_init();
    bench_state.me = shmem_my_pe();
    bench_state.npes = shmem_n_pes();
#elif defined(BENCH_RT_MPI)
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        harness_die("MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &bench_state.me);
    MPI_Comm_size(MPI_COMM_WORLD, &bench_state.npes);
#else
    sym_status_t st = sym_init();
    if (st != SYM_OK)
        harness_die("sym_init failed: %s", sym_last_error());
    bench_state.me = sym_my_pe();
    bench_state.npes = sym_n_pes();
#endif
    bench_state.rt_up = true;
    bench_rt_impl(bench_state.rt_impl, sizeof(bench_state.rt_impl));
    int rc = harness_parse_args(argc, argv, info);
    if (rc) {
        harness_rt_finalize();
        exit(rc - 1);
    }
    const size_t ctl_size = sizeof(struct bench_ctl) + sizeof(uint64_t) * (size_t)bench_state.npes;
#if defined(BENCH_RT_SHMEM)
    bench_state.ctl = shmem_calloc(1, ctl_size);
    if (!bench_state.ctl)
        harness_die("shmem_calloc of the %zu-byte control block failed", ctl_size);
    bench_state.gate = shmem_ptr(&bench_state.ctl->gate, 0);
    shmem_barrier_all();
#elif defined(BENCH_RT_MPI)
    bench_state.ctl = calloc(1, ctl_size);
    if (!bench_state.ctl)
        harness_die("calloc of the control block failed");
#else
    bench_state.ctl = sym_calloc(1, ctl_size);
    if (!bench_state.ctl)
        harness_die("sym_calloc of the control block failed: %s", sym_last_error());
    bench_state.gate = sym_ptr(&bench_state.ctl->gate, 0);
#endif
    if (bench_state.me == 0) {
        harness_machine_info();
        bench_state.jrows = open_memstream(&bench_state.jrows_buf, &bench_state.jrows_len);
        bench_state.jnotes = open_memstream(&bench_state.jnotes_buf, &bench_state.jnotes_len);
        printf("# %s: %s\n", info->name, info->about);
        printf("# implementation: %s\n", bench_state.rt_impl);
        printf("# %d PE%s, nproc %ld, CPU %s, %s, %s\n", bench_state.npes,
               bench_state.npes == 1 ? "" : "s", bench_state.nproc, bench_state.cpu,
               bench_state.kernel, bench_state.date);
        printf("# load average at start: %s\n", bench_state.load_start);
        printf("# clock CLOCK_MONOTONIC (%s), %.1f ns per read; %d samples per figure, ",
               bench_state.clocksource, bench_state.clock_read_ns, bench_opt.repeats);
        if (bench_opt.iters)
            printf("%" PRIu64 " iterations per sample\n", bench_opt.iters);
        else
            printf("iterations calibrated to ~%.3g ms per sample\n", bench_opt.sample_ms);
        printf("# Ratio column: figure / baseline, baseline sampled interleaved with it "
               "(median of per-sample ratios)\n");
    }
    struct bench_meas raw = bench_raw_pingpong();
    bench_measure(&raw, 1);
    bench_state.raw_before = raw.stat;
    print_raw("before", &bench_state.raw_before);
}

static const char *fmt_val(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "n/a");
    else if (fabs(v) >= 1000)
        snprintf(buf, len, "%.0f", v);
    else if (fabs(v) >= 10)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.3f", v);
    return buf;
}

int bench_finish(void)
{
    struct bench_meas raw = bench_raw_pingpong();
    bench_measure(&raw, 1);
    bench_state.raw_after = raw.stat;
    if (bench_state.me == 0)
        printf("\n");
    print_raw("before", &bench_state.raw_before);
    print_raw("after ", &bench_state.raw_after);
    if (bench_state.me == 0) {
        harness_read_first_line("/proc/loadavg", bench_state.load_end,
                                sizeof(bench_state.load_end));
        bench_note("load average at end: %s", bench_state.load_end);
        double a = bench_state.raw_before.median, b = bench_state.raw_after.median;
        if (a > 0 && b > 0 && (a / b > 1.5 || b / a > 1.5))
            bench_note("the cross-core latency regime changed during this run (%.0f -> %.0f "
                       "ns); ratios use baselines sampled next to each figure",
                       a, b);
        printf("\n# targets\n# %-52s %12s %12s %8s  %s\n", "Figure", "Measured", "Target", "Ratio",
               "Result");
        if (bench_state.ntargets == 0)
            printf("  (none of the brief's targets applies to this program at %d PE%s)\n",
                   bench_state.npes, bench_state.npes == 1 ? "" : "s");
        for (int i = 0; i < bench_state.ntargets; i++) {
            struct target *t = &bench_state.targets[i];
            char m[32], g[32], ms[48], gs[48];
            fmt_val(t->measured, m, sizeof(m));
            fmt_val(t->target, g, sizeof(g));
            snprintf(ms, sizeof(ms), "%s %s", m, t->unit);
            snprintf(gs, sizeof(gs), "%s %s %s", t->cmp, g, t->unit);
            printf("  %-52s %12s %12s %8.3f  %s\n", t->name, ms, gs, t->measured / t->target,
                   t->met ? "met" : "MISSED");
            if (t->detail[0])
                printf("  %-52s   (%s)\n", "", t->detail);
        }
        printf("\n# data verification: %" PRIu64 " wrong value%s in total\n",
               bench_state.wrong_total, bench_state.wrong_total == 1 ? "" : "s");
        if (bench_opt.json)
            harness_write_json();
    }
    uint64_t wrong = bench_bcast_u64(bench_state.wrong_total);
#if defined(BENCH_RT_SHMEM)
    shmem_barrier_all();
    shmem_free(bench_state.ctl);
#elif defined(BENCH_RT_MPI)
    free(bench_state.ctl);
#else
    sym_free(bench_state.ctl);
#endif
    if (harness_rt_finalize() != 0)
        return 1;
    return wrong ? 1 : 0;
}
