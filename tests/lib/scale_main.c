/*
 * scale_main.c - one job of many PEs on one host through every collective
 * once: `symrun -n N scale_main`.  Each collective's result is checked
 * against a locally computed reference; then a split team, a 2-D mesh and
 * sym_team_split_shared run an allreduce each.  PE 0 prints the job's
 * figures: init time (the slowest PE's), the heap layout, the memory
 * resident in a PE's own heap after init and with the teams made, and how
 * long the collectives and the teams took.
 * Exits 0 ("scale: N PEs ok"), or names the failed check and exits 1.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <time.h>

#include <symheap.h>

#include "plain_check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* Resident bytes of this PE's own heap mapping (/proc/self/smaps): the
 * memory its mailboxes and team areas really use (the user heap is
 * reserved in /dev/shm but untouched here). */
static double heap_rss(void *base)
{
    FILE *f = fopen("/proc/self/smaps", "r");
    if (!f)
        return 0;
    char line[512];
    bool inside = false;
    double rss = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2 && strchr(line, '-') < strchr(line, ' ')) {
            inside = (uintptr_t)base >= lo && (uintptr_t)base < hi;
            continue;
        }
        unsigned long kb;
        if (inside && sscanf(line, "Rss: %lu kB", &kb) == 1) {
            rss = (double)kb * 1024.0;
            break;
        }
    }
    fclose(f);
    return rss;
}

static int64_t val(int pe, size_t i)
{
    return (int64_t)pe * 1000 + (int64_t)i;
}

/* Every collective once on team t (n members, I am r). */
static void every_collective(sym_team_t t)
{
    const int n = sym_team_n_pes(t), r = sym_team_my_pe(t);
    const size_t k = 3; /* elements per block */
    int64_t *src = calloc((size_t)n * k, sizeof(int64_t));
    int64_t *dst = calloc((size_t)n * k, sizeof(int64_t));
    size_t *counts = calloc((size_t)n, sizeof(size_t));
    PE_ASSERT(src && dst && counts, "out of memory");
    PE_OK(sym_barrier(t, NULL));
    /* broadcast from the last member */
    for (size_t i = 0; i < k; i++)
        dst[i] = r == n - 1 ? val(n - 1, i) : -1;
    PE_OK(sym_broadcast(t, dst, k, SYM_INT64, n - 1, NULL));
    for (size_t i = 0; i < k; i++)
        PE_ASSERT(dst[i] == val(n - 1, i), "broadcast[%zu] = %lld", i, (long long)dst[i]);
    /* reduce to 0, allreduce */
    for (size_t i = 0; i < k; i++)
        src[i] = val(r, i);
    const int64_t sum0 = (int64_t)n * (n - 1) / 2 * 1000;
    PE_OK(sym_reduce(t, dst, src, k, SYM_INT64, SYM_OP_SUM, 0, NULL));
    for (size_t i = 0; r == 0 && i < k; i++)
        PE_ASSERT(dst[i] == sum0 + (int64_t)i * n, "reduce[%zu] = %lld", i, (long long)dst[i]);
    PE_OK(sym_allreduce(t, dst, src, k, SYM_INT64, SYM_OP_SUM, NULL));
    for (size_t i = 0; i < k; i++)
        PE_ASSERT(dst[i] == sum0 + (int64_t)i * n, "allreduce[%zu] = %lld", i, (long long)dst[i]);
    /* reduce_scatter: block b of every member holds val(member, b) */
    for (int b = 0; b < n; b++)
        for (size_t i = 0; i < k; i++)
            src[(size_t)b * k + i] = val(r, (size_t)b * k + i);
    PE_OK(sym_reduce_scatter(t, dst, src, k, SYM_INT64, SYM_OP_SUM, NULL));
    for (size_t i = 0; i < k; i++)
        PE_ASSERT(dst[i] == sum0 + (int64_t)((size_t)r * k + i) * n, "reduce_scatter[%zu] = %lld",
                  i, (long long)dst[i]);
    /* all_gather, gather, all_to_all, scatter */
    for (size_t i = 0; i < k; i++)
        src[i] = val(r, i);
    PE_OK(sym_all_gather(t, dst, src, k, SYM_INT64, NULL));
    for (int b = 0; b < n; b++)
        for (size_t i = 0; i < k; i++)
            PE_ASSERT(dst[(size_t)b * k + i] == val(b, i), "all_gather block %d", b);
    memset(dst, 0, (size_t)n * k * sizeof(int64_t));
    PE_OK(sym_gather(t, dst, src, k, SYM_INT64, 0, NULL));
    for (int b = 0; r == 0 && b < n; b++)
        for (size_t i = 0; i < k; i++)
            PE_ASSERT(dst[(size_t)b * k + i] == val(b, i), "gather block %d", b);
    for (int b = 0; b < n; b++)
        for (size_t i = 0; i < k; i++)
            src[(size_t)b * k + i] = val(r, (size_t)b * 10 + i);
    PE_OK(sym_all_to_all(t, dst, src, k, SYM_INT64, NULL));
    for (int b = 0; b < n; b++)
        for (size_t i = 0; i < k; i++)
            PE_ASSERT(dst[(size_t)b * k + i] == val(b, (size_t)r * 10 + i), "all_to_all block %d",
                      b);
    PE_OK(sym_scatter(t, dst, src, k, SYM_INT64, 0, NULL));
    for (size_t i = 0; i < k; i++)
        PE_ASSERT(dst[i] == val(0, (size_t)r * 10 + i), "scatter[%zu]", i);
    /* the uneven ones: member b contributes b % 3 elements */
    size_t total = 0;
    for (int b = 0; b < n; b++)
        total += (counts[b] = (size_t)(b % 3));
    int64_t *packed = calloc(total + 1, sizeof(int64_t));
    PE_ASSERT(packed, "out of memory");
    for (size_t i = 0; i < counts[r]; i++)
        src[i] = val(r, i);
    PE_OK(sym_all_gatherv(t, packed, src, counts, SYM_INT64, NULL));
    for (int b = 0, at = 0; b < n; b++)
        for (size_t i = 0; i < counts[b]; i++, at++)
            PE_ASSERT(packed[at] == val(b, i), "all_gatherv block %d", b);
    /* all_to_allv: one element to every member, as all_to_all */
    for (int b = 0; b < n; b++) {
        counts[b] = 1;
        src[b] = val(r, (size_t)b);
    }
    PE_OK(sym_all_to_allv(t, src, counts, dst, counts, SYM_INT64, NULL));
    for (int b = 0; b < n; b++)
        PE_ASSERT(dst[b] == val(b, (size_t)r), "all_to_allv from %d", b);
    free(packed);
    free(src);
    free(dst);
    free(counts);
}

int main(void)
{
    double t0 = now_s();
    PE_OK(sym_init());
    double init_s = now_s() - t0, slowest = 0;
    const int me = sym_my_pe(), n = sym_n_pes();
    size_t heap = 0, largest = 0;
    PE_OK(sym_heap_free(&heap, &largest));
    PE_OK(sym_allreduce(sym_team_world(), &slowest, &init_s, 1, SYM_DOUBLE, SYM_OP_MAX, NULL));
    PE_OK(sym_barrier_all());
    void *mark = sym_malloc(64);
    PE_ASSERT(mark, "sym_malloc: %s", sym_last_error());
    double rss = heap_rss(mark), after_init = 0, with_teams = 0;
    PE_OK(sym_allreduce(sym_team_world(), &after_init, &rss, 1, SYM_DOUBLE, SYM_OP_MAX, NULL));
    double t1 = now_s();
    every_collective(sym_team_world());
    const double coll_s = now_s() - t1;
    t1 = now_s();
    /* a split team of every PE, a 2-D mesh (rows of 4 where they fit) and
     * the shared-memory split: one collective each */
    sym_team_t all, mesh[2], shared;
    PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -1, n, &all));
    const int cols = n % 4 == 0 ? 4 : 1;
    PE_OK(sym_team_split_mesh(sym_team_world(), 2, (int[]){n / cols, cols}, mesh));
    PE_OK(sym_team_split_shared(sym_team_world(), &shared));
    PE_OK(sym_barrier_all());
    rss = heap_rss(mark);
    PE_OK(sym_allreduce(sym_team_world(), &with_teams, &rss, 1, SYM_DOUBLE, SYM_OP_MAX, NULL));
    int64_t one = 1, sum = 0;
    sym_team_t teams[4] = {all, mesh[0], mesh[1], shared};
    for (int i = 0; i < 4; i++) {
        PE_OK(sym_allreduce(teams[i], &sum, &one, 1, SYM_INT64, SYM_OP_SUM, NULL));
        PE_ASSERT(sum == sym_team_n_pes(teams[i]), "team %d: sum %lld", i, (long long)sum);
    }
    for (int i = 0; i < 4; i++)
        PE_OK(sym_team_destroy(teams[i]));
    const double teams_s = now_s() - t1;
    sym_free(mark);
    uint64_t mailbox = 0, area = 0;
    PE_OK(sym_config_uint("SYMHEAP_MAILBOX_SIZE", &mailbox));
    PE_OK(sym_config_uint("SYMHEAP_TEAM_AREA_SIZE", &area));
    if (me == 0)
        printf("scale: %d PEs: init %.2f s (slowest PE), heap %.2f MiB + mailboxes %.2f MiB "
               "per PE; resident in a PE's own heap (most of any PE): %.3f MiB after init, "
               "%.3f MiB with 4 teams (SYMHEAP_TEAM_AREA_SIZE %.0f KiB); PE 0: every "
               "collective once %.2f s, 4 teams made, used and destroyed %.2f s\n",
               n, slowest, (double)heap / 1048576.0, (double)mailbox / 1048576.0,
               after_init / 1048576.0, with_teams / 1048576.0, (double)area / 1024.0, coll_s,
               teams_s);
    PE_OK(sym_finalize());
    if (me == 0)
        printf("scale: %d PEs ok\n", n);
    return 0;
}
