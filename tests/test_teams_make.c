/*
 * test_teams_make.c - making teams and their numbering: the world team, strided
 * splits, 2-D grids, explicit lists and teams nested in teams, each checked
 * query by query (members, translation between teams) and by collectives.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "team_check.h"

/* ------------------------------------------------------------------------ */
/* The world team                                                            */
/* ------------------------------------------------------------------------ */

static void world_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t w = sym_team_world();
    PE_ASSERT(w != SYM_TEAM_INVALID, "no world team");
    PE_ASSERT(!strcmp(sym_team_name(w), "world"), "world is named \"%s\"", sym_team_name(w));
    PE_ASSERT(sym_team_my_pe(w) == me && sym_team_n_pes(w) == n, "world numbering: %d of %d",
              sym_team_my_pe(w), sym_team_n_pes(w));
    int all[MAXN] = {0};
    for (int i = 0; i < n; i++)
        all[i] = i;
    /* expect_team insists on a non-"world" name; check the rest directly */
    int got[MAXN];
    PE_OK(sym_team_members(w, got));
    PE_ASSERT(!memcmp(got, all, (size_t)n * sizeof(int)), "world members wrong");
    for (int i = -1; i <= n; i++) {
        int want = i >= 0 && i < n ? i : -1;
        PE_ASSERT(sym_team_global_to_local(w, i) == want &&
                      sym_team_local_to_global(w, i) == want &&
                      sym_team_translate_pe(w, i, w) == want,
                  "world numbering of %d wrong", i);
    }
    PE_FAILS_WITH(sym_team_members(w, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_destroy(w), SYM_ERR_INVALID_ARG);
    PE_ASSERT(sym_team_n_pes(w) == n, "the world was destroyed after all");
    expect_team_works(w, all, n, "world");
}

ParameterizedTestParameters(teams, world)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, world)
{
    run_pes(*npes, world_body, NULL);
}

/* No teams before init or after finalize. */
static void uninitialized_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    for (int round = 0; round < 2; round++) {
        PE_ASSERT(sym_team_world() == SYM_TEAM_INVALID, "a world team while uninitialized");
        PE_ASSERT(sym_team_my_pe(SYM_TEAM_INVALID) == -1 && sym_team_n_pes(SYM_TEAM_INVALID) == -1,
                  "queries on no team");
        PE_ASSERT(!strcmp(sym_team_name(SYM_TEAM_INVALID), "invalid"), "name of no team");
        sym_team_t t;
        PE_FAILS_WITH(sym_team_split_strided(SYM_TEAM_INVALID, 0, 1, 1, &t),
                      SYM_ERR_NOT_INITIALIZED);
        if (round == 0) {
            PE_OK(sym_init());
            sym_team_t w = sym_team_world();
            PE_ASSERT(w != SYM_TEAM_INVALID, "no world team after init");
            PE_OK(sym_finalize());
            PE_ASSERT(sym_team_n_pes(w) == -1, "the world team outlived finalize");
        }
    }
}

Test(teams, uninitialized)
{
    struct pe_job job = {.npes = 2, .body = uninitialized_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ------------------------------------------------------------------------ */
/* split_strided                                                             */
/* ------------------------------------------------------------------------ */

static void strided_case(int start, int stride, int size)
{
    char what[96];
    snprintf(what, sizeof(what), "split_strided(start %d, stride %d, size %d) of %d PEs", start,
             stride, size, sym_n_pes());
    sym_team_t t = (sym_team_t)1; /* must be overwritten, also for non-members */
    PE_OK(sym_team_split_strided(sym_team_world(), start, stride, size, &t));
    int members[MAXN];
    for (int i = 0; i < size; i++)
        members[i] = start + i * stride;
    expect_team(t, members, size, what);
    expect_team_works(t, members, size, what);
    if (t != SYM_TEAM_INVALID)
        PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
}

static void strided_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    strided_case(0, 1, n);           /* everyone */
    strided_case(n - 1, -1, n);      /* everyone, reversed */
    strided_case(0, 2, (n + 1) / 2); /* evens */
    if (n >= 2)
        strided_case(1, 2, n / 2);        /* odds */
    strided_case(n - 1, -2, (n + 1) / 2); /* from the top, every other */
    if (n >= 4)
        strided_case(1, 3, (n - 2) / 3 + 1);
    for (int k = 0; k < n; k++) {
        strided_case(k, 0, 1);  /* size 1 with stride 0 */
        strided_case(k, -5, 1); /* size 1 ignores the stride */
    }
}

ParameterizedTestParameters(teams, split_strided)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, split_strided)
{
    run_pes(*npes, strided_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* split_2d                                                                  */
/* ------------------------------------------------------------------------ */

static void grid_case(sym_team_t parent, int xrange)
{
    const int n = sym_team_n_pes(parent), r = sym_team_my_pe(parent);
    char what[96];
    snprintf(what, sizeof(what), "split_2d(xrange %d) of %d PEs", xrange, n);
    sym_team_t x = SYM_TEAM_INVALID, y = SYM_TEAM_INVALID;
    if (n % xrange != 0) {
        /* a short last row is refused unless asked for */
        sym_status_t st = sym_team_split_2d(parent, xrange, &x, &y);
        PE_ASSERT(st == SYM_ERR_INVALID_ARG && x == SYM_TEAM_INVALID && y == SYM_TEAM_INVALID,
                  "%s: a short last row gave %s: %s", what, sym_status_name(st), sym_last_error());
        PE_OK(sym_team_split_2d_ragged(parent, xrange, &x, &y));
    } else {
        PE_OK(sym_team_split_2d(parent, xrange, &x, &y));
    }
    const int xr = xrange < n ? xrange : n;
    int row[MAXN] = {0}, col[MAXN] = {0}, nrow = 0, ncol = 0;
    /* my row: parent members y*xr .. ; the last row may be short */
    for (int p = (r / xr) * xr; p < n && p < (r / xr + 1) * xr; p++)
        row[nrow++] = sym_team_local_to_global(parent, p);
    for (int p = r % xr; p < n; p += xr)
        col[ncol++] = sym_team_local_to_global(parent, p);
    expect_team(x, row, nrow, what);
    expect_team(y, col, ncol, what);
    PE_ASSERT(sym_team_my_pe(x) == r % xr && sym_team_my_pe(y) == r / xr,
              "%s: member (%d, %d) of the grid, expected (%d, %d)", what, sym_team_my_pe(x),
              sym_team_my_pe(y), r % xr, r / xr);
    /* rows run their collectives at the same time, then columns */
    expect_team_works(x, row, nrow, what);
    expect_team_works(y, col, ncol, what);
    PE_OK(sym_team_destroy(x));
    PE_OK(sym_team_destroy(y));
    PE_OK(sym_barrier(parent, NULL));
}

static void grid_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    const int xs[] = {1, 2, 3, n, n + 1};
    for (size_t i = 0; i < sizeof(xs) / sizeof(xs[0]); i++)
        grid_case(sym_team_world(), xs[i]);
    /* a grid of a team that is not the world: every PE but the first */
    if (n >= 3) {
        sym_team_t sub;
        PE_OK(sym_team_split_strided(sym_team_world(), 1, 1, n - 1, &sub));
        if (sub != SYM_TEAM_INVALID) {
            grid_case(sub, 2);
            PE_OK(sym_team_destroy(sub));
        }
        PE_OK(sym_barrier_all());
    }
}

ParameterizedTestParameters(teams, split_2d)
{
    static int counts[] = {1, 2, 3, 4, 5, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, split_2d)
{
    run_pes(*npes, grid_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* sym_team_create, translation, nesting                                      */
/* ------------------------------------------------------------------------ */

static sym_team_t create_case(const int *list, int k, const char *what)
{
    sym_team_t t = (sym_team_t)1;
    PE_OK(sym_team_create(sym_team_world(), list, k, &t));
    expect_team(t, list, k, what);
    expect_team_works(t, list, k, what);
    return t;
}

static void create_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    int list[MAXN] = {0};
    for (int i = 0; i < n; i++)
        list[i] = n - 1 - i;
    sym_team_t rev = create_case(list, n, "reversed world");
    /* every third PE from 1, and the first PE last */
    int k = 0;
    for (int p = 1; p < n; p += 3)
        list[k++] = p;
    list[k++] = 0;
    sym_team_t odd = create_case(list, k, "mixed list");
    /* translation between two split teams, against the lists */
    for (int i = 0; i < k; i++) {
        int want = odd == SYM_TEAM_INVALID ? -1 : n - 1 - list[i];
        int got = sym_team_translate_pe(odd, i, rev);
        PE_ASSERT(got == want, "translate(mixed %d -> reversed) = %d, expected %d", i, got, want);
    }
    for (int i = 0; i < n; i++) {
        int want = -1;
        for (int j = 0; j < k; j++)
            if (list[j] == n - 1 - i)
                want = j;
        PE_ASSERT(sym_team_translate_pe(rev, i, odd) == (odd ? want : -1),
                  "translate(reversed %d -> mixed) = %d, expected %d", i,
                  sym_team_translate_pe(rev, i, odd), want);
    }
    PE_ASSERT(sym_team_translate_pe(SYM_TEAM_INVALID, 0, rev) == -1 &&
                  sym_team_translate_pe(rev, 0, SYM_TEAM_INVALID) == -1,
              "translate with no team is not -1");
    if (odd)
        PE_OK(sym_team_destroy(odd));
    PE_OK(sym_team_destroy(rev));
    for (int p = 0; p < n; p++) {
        int one = p;
        sym_team_t t = create_case(&one, 1, "single PE");
        if (t)
            PE_OK(sym_team_destroy(t));
    }
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(teams, create)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, create)
{
    run_pes(*npes, create_body, NULL);
}

/* Split of a split of a split: numbering is always relative to the parent. */
static void nested_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    sym_team_t rev, evens = SYM_TEAM_INVALID, pair = SYM_TEAM_INVALID;
    PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -1, n, &rev));
    int revl[MAXN] = {0};
    for (int i = 0; i < n; i++)
        revl[i] = n - 1 - i;
    expect_team(rev, revl, n, "reversed");
    /* every other member of the reversed team: globals n-1, n-3, ... */
    const int ne = (n + 1) / 2;
    PE_OK(sym_team_split_strided(rev, 0, 2, ne, &evens));
    int evl[MAXN] = {0};
    for (int i = 0; i < ne; i++)
        evl[i] = n - 1 - 2 * i;
    expect_team(evens, evl, ne, "every other of reversed");
    expect_team_works(evens, evl, ne, "every other of reversed");
    if (evens != SYM_TEAM_INVALID) {
        /* the last two of those, listed backwards */
        int two = ne >= 2 ? 2 : 1, lst[2] = {ne - 1, ne - 2}, gl[2];
        PE_OK(sym_team_create(evens, lst, two, &pair));
        for (int i = 0; i < two; i++)
            gl[i] = evl[lst[i]];
        expect_team(pair, gl, two, "pair inside every other");
        expect_team_works(pair, gl, two, "pair inside every other");
        for (int i = 0; pair && i < two; i++) {
            PE_ASSERT(sym_team_translate_pe(pair, i, evens) == lst[i], "translate to parent");
            PE_ASSERT(sym_team_translate_pe(pair, i, rev) == n - 1 - gl[i],
                      "translate to grandparent");
        }
        if (pair)
            PE_OK(sym_team_destroy(pair));
        PE_OK(sym_team_destroy(evens));
    }
    PE_OK(sym_team_destroy(rev));
}

ParameterizedTestParameters(teams, nested)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, nested)
{
    run_pes(*npes, nested_body, NULL);
}
