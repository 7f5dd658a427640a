/*
 * test_teams_reuse.c - teams over time: collectives on disjoint teams at the same
 * time, many teams made and destroyed in turn (area reuse), and running
 * out of room in the team region.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "team_check.h"

/* ------------------------------------------------------------------------ */
/* Disjoint teams at the same time                                           */
/* ------------------------------------------------------------------------ */

/* Each team runs many allreduces of varying sizes and algorithms with
 * values tied to the team, the call and the element; with no barrier
 * between the teams, any cross-talk shows as a wrong sum or a mismatch. */
static void hammer(sym_team_t t, int tag, int calls)
{
    if (t == SYM_TEAM_INVALID)
        return;
    const int n = sym_team_n_pes(t), r = sym_team_my_pe(t);
    static int64_t src[20000], dst[20000];
    const sym_algorithm_t algos[] = {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_RD, SYM_ALGO_TREE};
    for (int c = 0; c < calls; c++) {
        const size_t count = c % 25 == 24 ? 20000 : (size_t)(1 + c % 37);
        for (size_t i = 0; i < count; i++)
            src[i] = (int64_t)tag * 1000000 + c * 1000 + (int64_t)i + r;
        sym_coll_opts_t o = {.algorithm = algos[c % 4], .timeout_s = 0};
        PE_OK(sym_allreduce(t, dst, src, count, SYM_INT64, SYM_OP_SUM, &o));
        for (size_t i = 0; i < count; i++) {
            int64_t want =
                ((int64_t)tag * 1000000 + c * 1000 + (int64_t)i) * n + (int64_t)n * (n - 1) / 2;
            PE_ASSERT(dst[i] == want, "team %d call %d element %zu: %lld, expected %lld", tag, c, i,
                      (long long)dst[i], (long long)want);
        }
    }
}

static void disjoint_body(int me, int n, void *arg)
{
    (void)arg;
    const int half = n / 2;
    sym_team_t lo, hi;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, half, &lo));
    PE_OK(sym_team_split_strided(sym_team_world(), half, 1, n - half, &hi));
    PE_ASSERT((lo != SYM_TEAM_INVALID) == (me < half) && (hi != SYM_TEAM_INVALID) == (me >= half),
              "halves wrong");
    hammer(lo, 1, 200);
    hammer(hi, 2, 200);
    if (lo)
        PE_OK(sym_team_destroy(lo));
    if (hi)
        PE_OK(sym_team_destroy(hi));
    PE_OK(sym_barrier_all());
    /* rows of a grid share one mailbox area (they are disjoint): the same
     * exercise through the same offsets on different PEs */
    sym_team_t row, col;
    PE_OK(sym_team_split_2d_ragged(sym_team_world(), 2, &row, &col));
    hammer(row, 3 + me / 2, 150);
    PE_OK(sym_barrier_all());
    hammer(col, 10 + me % 2, 100);
    PE_OK(sym_team_destroy(row));
    PE_OK(sym_team_destroy(col));
}

ParameterizedTestParameters(teams, disjoint_concurrent)
{
    static int counts[] = {2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, disjoint_concurrent)
{
    run_pes(*npes, disjoint_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* Slots: reuse, exhaustion                                                  */
/* ------------------------------------------------------------------------ */

static void recreate_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    static sym_team_t old[200];
    int all[MAXN] = {0};
    for (int i = 0; i < n; i++)
        all[i] = n - 1 - i;
    for (int c = 0; c < 200; c++) {
        sym_team_t t, u = SYM_TEAM_INVALID;
        switch (c % 3) {
        case 0:
            PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -1, n, &t));
            break;
        case 1:
            PE_OK(sym_team_create(sym_team_world(), all, n, &t));
            break;
        default:
            PE_OK(sym_team_split_2d(sym_team_world(), n, &t, &u));
            break;
        }
        PE_ASSERT(t != SYM_TEAM_INVALID, "cycle %d: no team", c);
        if (c % 10 == 0)
            expect_team_works(t, c % 3 == 2 ? (int[MAXN]){0, 1, 2, 3, 4, 5, 6, 7} : all, n,
                              "recreated");
        PE_OK(sym_team_destroy(t));
        if (u)
            PE_OK(sym_team_destroy(u));
        old[c] = t;
    }
    /* every handle ever destroyed stays dead, even though its area was
     * reused many times */
    for (int c = 0; c < 200; c++)
        PE_ASSERT(sym_team_n_pes(old[c]) == -1, "destroyed handle %d answers", c);
}

ParameterizedTestParameters(teams, recreate_200)
{
    static int counts[] = {1, 2, 3, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, recreate_200)
{
    run_pes(*npes, recreate_body, NULL);
}

static void exhaust_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t a, b, c = (sym_team_t)1, x = (sym_team_t)1, y = (sym_team_t)1;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &a));
    PE_OK(sym_team_create(sym_team_world(), (int[]){0}, 1, &b));
    /* b holds the second area only on PE 0, but a split is agreed over the
     * parent: the area is in use somewhere, so the world cannot have it */
    sym_status_t st = sym_team_split_strided(sym_team_world(), 0, 1, n, &c);
    PE_ASSERT(st == SYM_ERR_NO_MEMORY, "a third team returned %s: %s", sym_status_name(st),
              sym_last_error());
    PE_ASSERT(c == SYM_TEAM_INVALID, "the failed split left a handle");
    PE_ASSERT(strstr(sym_last_error(), "SYMHEAP_TEAM_REGION_SIZE") != NULL,
              "the message does not say what to raise: %s", sym_last_error());
    PE_FAILS_WITH(sym_team_split_2d(sym_team_world(), 1, &x, &y), SYM_ERR_NO_MEMORY);
    PE_ASSERT(x == SYM_TEAM_INVALID && y == SYM_TEAM_INVALID, "failed split_2d left handles");
    /* the job goes on: the world and the existing teams work */
    int all[MAXN] = {0};
    for (int i = 0; i < n; i++)
        all[i] = i;
    expect_team_works(sym_team_world(), all, n, "world after exhaustion");
    expect_team_works(a, all, n, "first team after exhaustion");
    expect_team_works(b, (int[]){0}, 1, "second team after exhaustion");
    /* an area freed is an area for the next team */
    PE_OK(sym_team_destroy(a));
    PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -1, n, &c));
    for (int i = 0; i < n; i++)
        all[i] = n - 1 - i;
    expect_team_works(c, all, n, "team in the freed area");
    PE_OK(sym_team_destroy(c));
    if (b)
        PE_OK(sym_team_destroy(b));
    /* disjoint teams may share an area: two halves take one area each, and
     * inside each half the other half's area is still free */
    if (n >= 2) {
        const int h = n / 2;
        sym_team_t lo, hi, inner;
        PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, h, &lo));
        PE_OK(sym_team_split_strided(sym_team_world(), h, 1, n - h, &hi));
        sym_team_t mine = me < h ? lo : hi;
        PE_OK(sym_team_split_strided(mine, 0, 1, sym_team_n_pes(mine), &inner));
        int ml[MAXN], k = 0;
        for (int p = me < h ? 0 : h; p < (me < h ? h : n); p++)
            ml[k++] = p;
        expect_team(inner, ml, k, "team inside a half");
        expect_team_works(inner, ml, k, "team inside a half");
        PE_OK(sym_team_destroy(inner));
        PE_OK(sym_team_destroy(mine));
    }
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(teams, slot_exhaustion)
{
    static int counts[] = {1, 2, 3, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, slot_exhaustion)
{
    /* room for two team areas */
    static const char *const env[] = {"SYMHEAP_TEAM_REGION_SIZE=128K", "SYMHEAP_TEAM_AREA_SIZE=64K",
                                      NULL};
    run_pes_env(*npes, env, exhaust_body, NULL);
}
