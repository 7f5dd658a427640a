/*
 * harness_table.c - the tables benchmarks print (one row per size, with the
 * baseline, the ratio, #wrong and bus bandwidth), their JSON rows, notes
 * and the targets a program checks its figures against.
 */
#include "harness_private.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

void bench_note(const char *fmt, ...)
{
    if (bench_state.me != 0)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    printf("# %s\n", line);
    if (bench_state.jnotes) {
        if (ftell(bench_state.jnotes) > 0)
            fputs(",\n    ", bench_state.jnotes);
        harness_json_str(bench_state.jnotes, line);
        fflush(bench_state.jnotes);
    }
}

static const char *kind_unit(enum bench_kind k)
{
    return k == BENCH_LAT ? "ns" : k == BENCH_BW ? "MB/s" : "Mop/s";
}

/* ns per operation -> the table's figure. */
static double figure(enum bench_kind k, size_t size, double ns)
{
    switch (k) {
    case BENCH_LAT:
        return ns;
    case BENCH_BW:
        return (double)size / ns * 1e3; /* bytes/ns = GB/s */
    case BENCH_RATE:
        return 1e3 / ns;
    }
    return ns;
}

static double cur_bus_factor; /* of the table being printed; 0: none */

double bench_bus_factor(enum bench_coll_kind k, int n)
{
    if (n < 2)
        return 1;
    switch (k) {
    case BENCH_COLL_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case BENCH_COLL_GATHERLIKE:
        return (double)(n - 1) / n;
    case BENCH_COLL_ROOTED:
        return 1;
    }
    return 1;
}

static void table_begin(const struct bench_table *t, double bus_factor)
{
    cur_bus_factor = bus_factor;
    if (bench_state.me != 0)
        return;
    const char *u = kind_unit(t->kind);
    const char *lo = t->kind == BENCH_LAT ? "Min" : "Best";
    const char *hi = t->kind == BENCH_LAT ? "Max" : "Worst";
    char c1[32], c2[32], c3[32], c4[48];
    snprintf(c1, sizeof(c1), "Median(%s)", u);
    snprintf(c2, sizeof(c2), "%s(%s)", lo, u);
    snprintf(c3, sizeof(c3), "%s(%s)", hi, u);
    snprintf(c4, sizeof(c4), "%s", t->base_name ? t->base_name : "-");
    printf("\n# %s\n", t->title);
    printf("# %-14s %10s %14s %14s %14s %16s %8s %7s", t->row_name ? t->row_name : "Size", "Iters",
           c1, c2, c3, c4, "Ratio", "#wrong");
    if (bus_factor > 0)
        printf(" %11s %11s", "algbw(GB/s)", "busbw(GB/s)");
    printf("\n");
    fflush(stdout);
}

void bench_table_begin(const struct bench_table *t)
{
    table_begin(t, 0);
}

void bench_table_begin_coll(const struct bench_table *t, double bus_factor)
{
    table_begin(t, bus_factor);
}

static void row_out(const struct bench_table *t, const char *label, size_t size, uint64_t iters,
                    int nsamples, double med_ns, double min_ns, double max_ns,
                    const struct bench_stat *base, double ratio, uint64_t wrong,
                    const struct bench_stat *s)
{
    if (!t->derived)
        bench_state.wrong_total += wrong;
    if (bench_state.me != 0)
        return;
    char key[32];
    if (label)
        snprintf(key, sizeof(key), "%s", label);
    else
        snprintf(key, sizeof(key), "%zu", size);
    double med = figure(t->kind, size, med_ns);
    /* For rates the best figure comes from the fastest sample. */
    double lo = figure(t->kind, size, min_ns), hi = figure(t->kind, size, max_ns);
    double b = base ? figure(t->kind, size, base->median) : NAN;
    char bs[32] = "-", rs[32] = "-";
    const char *fmt = t->kind == BENCH_RATE ? "%.3f" : t->kind == BENCH_BW ? "%.1f" : "%.2f";
    if (base)
        snprintf(bs, sizeof(bs), fmt, b);
    if (isfinite(ratio))
        snprintf(rs, sizeof(rs), "%.3f", ratio);
    char f1[32], f2[32], f3[32];
    snprintf(f1, sizeof(f1), fmt, med);
    snprintf(f2, sizeof(f2), fmt, lo);
    snprintf(f3, sizeof(f3), fmt, hi);
    /* nccl-tests: algbw = size / time, busbw = algbw * the collective's
     * factor; bytes per ns = GB/s. */
    const double algbw = (double)size / med_ns, busbw = algbw * cur_bus_factor;
    printf("  %-14s %10" PRIu64 " %14s %14s %14s %16s %8s %7" PRIu64, key, iters, f1, f2, f3, bs,
           rs, wrong);
    if (cur_bus_factor > 0)
        printf(" %11.3f %11.3f", algbw, busbw);
    printf("\n");
    fflush(stdout);

    FILE *j = bench_state.jrows;
    if (!j)
        return;
    if (ftell(j) > 0)
        fputs(",\n    ", j);
    fputs("{\"test\": ", j);
    harness_json_str(j, t->test);
    fputs(", \"row\": ", j);
    harness_json_str(j, key);
    fprintf(j, ", \"size\": %zu, \"unit\": ", size);
    harness_json_str(j, kind_unit(t->kind));
    fprintf(j, ", \"iters\": %" PRIu64 ", \"samples\": %d, \"median\": ", iters, nsamples);
    harness_json_num(j, med);
    fputs(t->kind == BENCH_LAT ? ", \"min\": " : ", \"best\": ", j);
    harness_json_num(j, lo);
    fputs(t->kind == BENCH_LAT ? ", \"max\": " : ", \"worst\": ", j);
    harness_json_num(j, hi);
    fputs(", \"ns_per_op\": {\"median\": ", j);
    harness_json_num(j, med_ns);
    fputs(", \"min\": ", j);
    harness_json_num(j, min_ns);
    fputs(", \"max\": ", j);
    harness_json_num(j, max_ns);
    fputs("}", j);
    if (s) {
        fputs(", \"samples_ns\": ", j);
        harness_json_stat(j, s);
    }
    fputs(", \"baseline\": ", j);
    if (base) {
        fputs("{\"name\": ", j);
        harness_json_str(j, t->base_name);
        fputs(", \"median\": ", j);
        harness_json_num(j, b);
        fputs(", \"ns\": ", j);
        harness_json_stat(j, base);
        fputs("}", j);
    } else {
        fputs("null", j);
    }
    fputs(", \"ratio\": ", j);
    harness_json_num(j, ratio);
    if (cur_bus_factor > 0) {
        fputs(", \"algbw_GBps\": ", j);
        harness_json_num(j, algbw);
        fputs(", \"busbw_GBps\": ", j);
        harness_json_num(j, busbw);
        fputs(", \"bus_factor\": ", j);
        harness_json_num(j, cur_bus_factor);
    }
    fprintf(j, ", \"wrong\": %" PRIu64 "}", wrong);
    fflush(j);
}

void bench_table_row(const struct bench_table *t, const char *label, size_t size,
                     const struct bench_stat *s, const struct bench_stat *base, uint64_t wrong)
{
    double ratio = NAN;
    if (base)
        ratio = t->kind == BENCH_LAT ? bench_paired_ratio(s, base) : bench_paired_ratio(base, s);
    row_out(t, label, size, s->iters, s->n, s->median, s->min, s->max, base, ratio, wrong, s);
}

void bench_table_row_values(const struct bench_table *t, const char *label, size_t size,
                            uint64_t iters, size_t nvalues, double median_ns, double min_ns,
                            double max_ns, const struct bench_stat *base, double ratio,
                            uint64_t wrong)
{
    row_out(t, label, size, iters, (int)nvalues, median_ns, min_ns, max_ns, base, ratio, wrong,
            NULL);
}

void bench_target(const char *name, double measured, const char *unit, const char *cmp,
                  double target, const char *detail)
{
    if (bench_state.me != 0 || bench_state.ntargets == MAX_TARGETS)
        return;
    struct target *t = &bench_state.targets[bench_state.ntargets++];
    t->name = strdup(name);
    t->unit = strdup(unit ? unit : "");
    t->detail = strdup(detail ? detail : "");
    t->cmp = cmp;
    t->measured = measured;
    t->target = target;
    if (!isfinite(measured))
        t->met = false;
    else if (strcmp(cmp, "<") == 0)
        t->met = measured < target;
    else if (strcmp(cmp, "<=") == 0)
        t->met = measured <= target;
    else if (strcmp(cmp, ">=") == 0)
        t->met = measured >= target;
    else
        t->met = measured > target;
}
