/*
 * harness_json.c - JSON output: the value writers every row uses and the
 * --json file bench_finish() writes.
 */
#include "harness_private.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

void harness_json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

void harness_json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

void harness_json_stat(FILE *f, const struct bench_stat *s)
{
    fprintf(f, "{\"iters\": %" PRIu64 ", \"samples\": %d, \"median\": ", s->iters, s->n);
    harness_json_num(f, s->median);
    fputs(", \"min\": ", f);
    harness_json_num(f, s->min);
    fputs(", \"max\": ", f);
    harness_json_num(f, s->max);
    fputs(", \"per_sample\": [", f);
    for (int i = 0; i < s->n; i++) {
        if (i)
            fputs(", ", f);
        harness_json_num(f, s->ns[i]);
    }
    fputs("]}", f);
}

void harness_write_json(void)
{
    FILE *f = fopen(bench_opt.json, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", bench_state.info->name, bench_opt.json,
                strerror(errno));
        return;
    }
    fclose(bench_state.jrows);
    fclose(bench_state.jnotes);
    bench_state.jrows = bench_state.jnotes = NULL;
    fputs("{\n  \"program\": ", f);
    harness_json_str(f, bench_state.info->name);
    fputs(",\n  \"about\": ", f);
    harness_json_str(f, bench_state.info->about);
    fputs(",\n  \"runtime\": \"" BENCH_RT_KIND "\",\n  \"implementation\": ", f);
    harness_json_str(f, bench_state.rt_impl);
#ifdef BENCH_RT_SYM
    fprintf(f, ",\n  \"symheap_version\": \"%d.%d.%d\"", SYMHEAP_VERSION_MAJOR,
            SYMHEAP_VERSION_MINOR, SYMHEAP_VERSION_PATCH);
#endif
    fprintf(f, ",\n  \"npes\": %d,\n", bench_state.npes);
    fprintf(f, "  \"machine\": {\"nproc\": %ld, \"cpu\": ", bench_state.nproc);
    harness_json_str(f, bench_state.cpu);
    fputs(", \"kernel\": ", f);
    harness_json_str(f, bench_state.kernel);
    fputs(", \"date\": ", f);
    harness_json_str(f, bench_state.date);
    fputs(", \"clocksource\": ", f);
    harness_json_str(f, bench_state.clocksource);
    fputs(", \"loadavg_start\": ", f);
    harness_json_str(f, bench_state.load_start);
    fputs(", \"loadavg_end\": ", f);
    harness_json_str(f, bench_state.load_end);
    fputs(", \"clock_read_ns\": ", f);
    harness_json_num(f, bench_state.clock_read_ns);
    fprintf(f, "},\n  \"options\": {\"iters\": %" PRIu64 ", \"repeats\": %d, \"sample_ms\": ",
            bench_opt.iters, bench_opt.repeats);
    harness_json_num(f, bench_opt.sample_ms);
    fprintf(f, ", \"min_size\": %zu, \"max_size\": %zu},\n", bench_opt.min_size,
            bench_opt.max_size);
    fputs("  \"raw_pingpong_one_way_ns\": {\"before\": ", f);
    harness_json_stat(f, &bench_state.raw_before);
    fputs(", \"after\": ", f);
    harness_json_stat(f, &bench_state.raw_after);
    if (bench_state.ceiling_memcpy_gbs > 0) {
        fputs("},\n  \"copy_ceiling_gbs\": {\"memcpy\": ", f);
        harness_json_num(f, bench_state.ceiling_memcpy_gbs);
        fputs(", \"cma\": ", f);
        harness_json_num(f, bench_state.ceiling_cma_gbs);
    }
    fputs("},\n  \"results\": [\n    ", f);
    if (bench_state.jrows_buf)
        fputs(bench_state.jrows_buf, f);
    fputs("\n  ],\n  \"targets\": [", f);
    for (int i = 0; i < bench_state.ntargets; i++) {
        struct target *t = &bench_state.targets[i];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        harness_json_str(f, t->name);
        fputs(", \"measured\": ", f);
        harness_json_num(f, t->measured);
        fputs(", \"unit\": ", f);
        harness_json_str(f, t->unit);
        fputs(", \"cmp\": ", f);
        harness_json_str(f, t->cmp);
        fputs(", \"target\": ", f);
        harness_json_num(f, t->target);
        fputs(", \"ratio\": ", f);
        harness_json_num(f, t->measured / t->target);
        fprintf(f, ", \"met\": %s, \"detail\": ", t->met ? "true" : "false");
        harness_json_str(f, t->detail);
        fputs("}", f);
    }
    fputs("\n  ],\n  \"notes\": [\n    ", f);
    if (bench_state.jnotes_buf)
        fputs(bench_state.jnotes_buf, f);
    fprintf(f, "\n  ],\n  \"wrong_total\": %" PRIu64 "\n}\n", bench_state.wrong_total);
    if (fclose(f) != 0)
        fprintf(stderr, "%s: writing %s failed\n", bench_state.info->name, bench_opt.json);
}
