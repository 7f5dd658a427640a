/*
 * test_teams.c - team construction and numbering (world, strided, 2-D,
 * explicit lists, nested), translation between teams, collectives on
 * disjoint teams at the same time, slot reuse and exhaustion, destroyed
 * handles, invalid arguments and per-team timeouts.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "harness.h"

#define MAXN HARNESS_MAX_PES

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL);
}

/* Check every query of `t` against the global PE list it should have
 * (members[i] = global number of member i), or that this PE is not a
 * member (t must then be SYM_TEAM_INVALID). */
static void expect_team(sym_team_t t, const int *members, int size, const char *what)
{
    const int me = sym_my_pe(), npes = sym_n_pes();
    int mine = -1;
    for (int i = 0; i < size; i++)
        if (members[i] == me)
            mine = i;
    if (mine < 0) {
        PE_ASSERT(t == SYM_TEAM_INVALID, "%s: a non-member got a team handle", what);
        return;
    }
    PE_ASSERT(t != SYM_TEAM_INVALID, "%s: a member got SYM_TEAM_INVALID", what);
    PE_ASSERT(sym_team_n_pes(t) == size, "%s: %d PEs, expected %d", what, sym_team_n_pes(t),
              size);
    PE_ASSERT(sym_team_my_pe(t) == mine, "%s: member %d, expected %d", what, sym_team_my_pe(t),
              mine);
    const char *name = sym_team_name(t);
    PE_ASSERT(strcmp(name, "invalid") && strcmp(name, "world"), "%s: named \"%s\"", what, name);
    int got[MAXN];
    for (int i = 0; i < MAXN; i++)
        got[i] = -7;
    PE_OK(sym_team_members(t, got));
    for (int i = 0; i < size; i++)
        PE_ASSERT(got[i] == members[i], "%s: members()[%d] = %d, expected %d", what, i, got[i],
                  members[i]);
    PE_ASSERT(size == MAXN || got[size] == -7, "%s: members() wrote past the team size", what);
    for (int i = 0; i < size; i++) {
        PE_ASSERT(sym_team_local_to_global(t, i) == members[i], "%s: local_to_global(%d) = %d",
                  what, i, sym_team_local_to_global(t, i));
        PE_ASSERT(sym_team_translate_pe(t, i, sym_team_world()) == members[i],
                  "%s: translate(%d -> world) = %d", what, i,
                  sym_team_translate_pe(t, i, sym_team_world()));
    }
    for (int g = -1; g <= npes; g++) {
        int want = -1;
        for (int i = 0; i < size; i++)
            if (members[i] == g)
                want = i;
        PE_ASSERT(sym_team_global_to_local(t, g) == want, "%s: global_to_local(%d) = %d, "
                  "expected %d", what, g, sym_team_global_to_local(t, g), want);
        if (g >= 0 && g < npes)
            PE_ASSERT(sym_team_translate_pe(sym_team_world(), g, t) == want,
                      "%s: translate(world %d -> team) = %d", what, g,
                      sym_team_translate_pe(sym_team_world(), g, t));
    }
    PE_ASSERT(sym_team_local_to_global(t, -1) == -1 && sym_team_local_to_global(t, size) == -1,
              "%s: local_to_global out of range is not -1", what);
    PE_ASSERT(sym_team_translate_pe(t, size, sym_team_world()) == -1,
              "%s: translate of a member out of range is not -1", what);
}

/* The team really connects its members, in its own numbering: an
 * allreduce of the global numbers and a broadcast from the last member. */
static void expect_team_works(sym_team_t t, const int *members, int size, const char *what)
{
    if (t == SYM_TEAM_INVALID)
        return;
    int64_t sum = 0, mine[2] = { sym_my_pe(), 1 }, out[2];
    for (int i = 0; i < size; i++)
        sum += members[i];
    PE_OK(sym_allreduce(t, out, mine, 2, SYM_INT64, SYM_OP_SUM, NULL));
    PE_ASSERT(out[0] == sum && out[1] == size, "%s: allreduce gave %lld/%lld, expected "
              "%lld/%d", what, (long long)out[0], (long long)out[1], (long long)sum, size);
    int32_t b = sym_team_my_pe(t) == size - 1 ? 1000 + sym_my_pe() : -1;
    PE_OK(sym_broadcast(t, &b, 1, SYM_INT32, size - 1, NULL));
    PE_ASSERT(b == 1000 + members[size - 1], "%s: broadcast from the last member gave %d", what,
              b);
}

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
    int all[MAXN] = { 0 };
    for (int i = 0; i < n; i++)
        all[i] = i;
    /* expect_team insists on a non-"world" name; check the rest directly */
    int got[MAXN];
    PE_OK(sym_team_members(w, got));
    PE_ASSERT(!memcmp(got, all, (size_t)n * sizeof(int)), "world members wrong");
    for (int i = -1; i <= n; i++) {
        int want = i >= 0 && i < n ? i : -1;
        PE_ASSERT(sym_team_global_to_local(w, i) == want && sym_team_local_to_global(w, i) == want
                  && sym_team_translate_pe(w, i, w) == want,
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
    struct pe_job job = { .npes = 2, .body = uninitialized_body, .raw = true };
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
    strided_case(0, 1, n);                  /* everyone */
    strided_case(n - 1, -1, n);             /* everyone, reversed */
    strided_case(0, 2, (n + 1) / 2);        /* evens */
    if (n >= 2)
        strided_case(1, 2, n / 2);          /* odds */
    strided_case(n - 1, -2, (n + 1) / 2);   /* from the top, every other */
    if (n >= 4)
        strided_case(1, 3, (n - 2) / 3 + 1);
    for (int k = 0; k < n; k++) {
        strided_case(k, 0, 1);              /* size 1 with stride 0 */
        strided_case(k, -5, 1);             /* size 1 ignores the stride */
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
    PE_OK(sym_team_split_2d(parent, xrange, &x, &y));
    const int xr = xrange < n ? xrange : n;
    int row[MAXN] = { 0 }, col[MAXN] = { 0 }, nrow = 0, ncol = 0;
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
    const int xs[] = { 1, 2, 3, n, n + 1 };
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
    static int counts[] = { 1, 2, 3, 4, 5, 8 };
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
    int list[MAXN] = { 0 };
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
        PE_ASSERT(got == want, "translate(mixed %d -> reversed) = %d, expected %d", i, got,
                  want);
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
    int revl[MAXN] = { 0 };
    for (int i = 0; i < n; i++)
        revl[i] = n - 1 - i;
    expect_team(rev, revl, n, "reversed");
    /* every other member of the reversed team: globals n-1, n-3, ... */
    const int ne = (n + 1) / 2;
    PE_OK(sym_team_split_strided(rev, 0, 2, ne, &evens));
    int evl[MAXN] = { 0 };
    for (int i = 0; i < ne; i++)
        evl[i] = n - 1 - 2 * i;
    expect_team(evens, evl, ne, "every other of reversed");
    expect_team_works(evens, evl, ne, "every other of reversed");
    if (evens != SYM_TEAM_INVALID) {
        /* the last two of those, listed backwards */
        int two = ne >= 2 ? 2 : 1, lst[2] = { ne - 1, ne - 2 }, gl[2];
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
    const sym_algorithm_t algos[] = { SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_RD,
                                      SYM_ALGO_TREE };
    for (int c = 0; c < calls; c++) {
        const size_t count = c % 25 == 24 ? 20000 : (size_t)(1 + c % 37);
        for (size_t i = 0; i < count; i++)
            src[i] = (int64_t)tag * 1000000 + c * 1000 + (int64_t)i + r;
        sym_coll_opts_t o = { algos[c % 4], 0, 0 };
        PE_OK(sym_allreduce(t, dst, src, count, SYM_INT64, SYM_OP_SUM, &o));
        for (size_t i = 0; i < count; i++) {
            int64_t want = ((int64_t)tag * 1000000 + c * 1000 + (int64_t)i) * n +
                           (int64_t)n * (n - 1) / 2;
            PE_ASSERT(dst[i] == want, "team %d call %d element %zu: %lld, expected %lld", tag, c,
                      i, (long long)dst[i], (long long)want);
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
    /* rows of a grid share one mailbox slot (they are disjoint): the same
     * exercise through the same offsets on different PEs */
    sym_team_t row, col;
    PE_OK(sym_team_split_2d(sym_team_world(), 2, &row, &col));
    hammer(row, 3 + me / 2, 150);
    PE_OK(sym_barrier_all());
    hammer(col, 10 + me % 2, 100);
    PE_OK(sym_team_destroy(row));
    PE_OK(sym_team_destroy(col));
}

ParameterizedTestParameters(teams, disjoint_concurrent)
{
    static int counts[] = { 2, 3, 4, 8 };
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
    int all[MAXN] = { 0 };
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
            expect_team_works(t, c % 3 == 2 ? (int[MAXN]){ 0, 1, 2, 3, 4, 5, 6, 7 } : all, n,
                              "recreated");
        PE_OK(sym_team_destroy(t));
        if (u)
            PE_OK(sym_team_destroy(u));
        old[c] = t;
    }
    /* every handle ever destroyed stays dead, even though its slot was
     * reused many times */
    for (int c = 0; c < 200; c++)
        PE_ASSERT(sym_team_n_pes(old[c]) == -1, "destroyed handle %d answers", c);
}

ParameterizedTestParameters(teams, recreate_200)
{
    static int counts[] = { 1, 2, 3, 8 };
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
    PE_OK(sym_team_create(sym_team_world(), (int[]){ 0 }, 1, &b));
    /* b holds the second slot only on PE 0, but a split is agreed over the
     * parent: the slot is in use somewhere, so the world cannot have it */
    sym_status_t st = sym_team_split_strided(sym_team_world(), 0, 1, n, &c);
    PE_ASSERT(st == SYM_ERR_NO_MEMORY, "a third team returned %s: %s", sym_status_name(st),
              sym_last_error());
    PE_ASSERT(c == SYM_TEAM_INVALID, "the failed split left a handle");
    PE_ASSERT(strstr(sym_last_error(), "SYMHEAP_TEAM_SLOTS") != NULL,
              "the message does not say what to raise: %s", sym_last_error());
    PE_FAILS_WITH(sym_team_split_2d(sym_team_world(), 1, &x, &y), SYM_ERR_NO_MEMORY);
    PE_ASSERT(x == SYM_TEAM_INVALID && y == SYM_TEAM_INVALID, "failed split_2d left handles");
    /* the job goes on: the world and the existing teams work */
    int all[MAXN] = { 0 };
    for (int i = 0; i < n; i++)
        all[i] = i;
    expect_team_works(sym_team_world(), all, n, "world after exhaustion");
    expect_team_works(a, all, n, "first team after exhaustion");
    expect_team_works(b, (int[]){ 0 }, 1, "second team after exhaustion");
    /* a slot freed is a slot for the next team */
    PE_OK(sym_team_destroy(a));
    PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -1, n, &c));
    for (int i = 0; i < n; i++)
        all[i] = n - 1 - i;
    expect_team_works(c, all, n, "team in the freed slot");
    PE_OK(sym_team_destroy(c));
    if (b)
        PE_OK(sym_team_destroy(b));
    /* disjoint teams may share a slot: two halves take one slot each, and
     * inside each half the other half's slot is still free */
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
    static int counts[] = { 1, 2, 3, 4 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, slot_exhaustion)
{
    static const char *const env[] = { "SYMHEAP_TEAM_SLOTS=2", NULL };
    run_pes_env(*npes, env, exhaust_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* Destroyed handles, invalid arguments                                      */
/* ------------------------------------------------------------------------ */

static void expect_dead(sym_team_t t, const char *what)
{
    int buf[MAXN];
    int32_t v[2] = { 1, 2 }, out[2];
    sym_team_t child = (sym_team_t)1, c2 = (sym_team_t)1;
    PE_ASSERT(sym_team_my_pe(t) == -1 && sym_team_n_pes(t) == -1, "%s: queries answer", what);
    PE_ASSERT(!strcmp(sym_team_name(t), "invalid"), "%s: named \"%s\"", what, sym_team_name(t));
    PE_ASSERT(sym_team_global_to_local(t, 0) == -1 && sym_team_local_to_global(t, 0) == -1 &&
              sym_team_translate_pe(t, 0, sym_team_world()) == -1 &&
              sym_team_translate_pe(sym_team_world(), 0, t) == -1,
              "%s: numbering answers", what);
    PE_FAILS_WITH(sym_team_members(t, buf), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_set_timeout(t, 1.0), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_destroy(t), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_strided(t, 0, 1, 1, &child), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_2d(t, 1, &child, &c2), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_create(t, (int[]){ 0 }, 1, &child), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_barrier(t, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_allreduce(t, out, v, 2, SYM_INT32, SYM_OP_SUM, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_broadcast(t, v, 2, SYM_INT32, 0, NULL), SYM_ERR_INVALID_ARG);
}

static void destroyed_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    sym_team_t t;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &t));
    PE_OK(sym_team_destroy(t));
    expect_dead(t, "destroyed team");
    PE_FAILS_WITH(sym_allreduce(t, NULL, NULL, 0, SYM_INT32, SYM_OP_SUM, NULL),
                  SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "destroyed") != NULL, "message: %s", sym_last_error());
    expect_dead(SYM_TEAM_INVALID, "SYM_TEAM_INVALID");
    /* a destroyed team's slot is reused; the old handle stays dead */
    sym_team_t u;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &u));
    expect_dead(t, "destroyed team after its slot was reused");
    int all[MAXN] = { 0 };
    for (int i = 0; i < n; i++)
        all[i] = i;
    expect_team_works(u, all, n, "team in the reused slot");
    PE_OK(sym_team_destroy(u));
}

ParameterizedTestParameters(teams, destroyed_handles)
{
    static int counts[] = { 1, 2, 3 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, destroyed_handles)
{
    run_pes(*npes, destroyed_body, NULL);
}

/* Bad arguments fail locally on the PE that passes them: PE 0 alone makes
 * every bad call, then everyone makes a good one, which would mismatch if
 * a bad call had used up a sequence number or broken the parent. */
static void bad_split_calls(int n)
{
    const sym_team_t w = sym_team_world();
    sym_team_t t = (sym_team_t)1, u = (sym_team_t)1;
    const int bad[][3] = {
        { 0, 1, 0 },      { 0, 1, -1 },     { -1, 1, 1 },  { n, 1, 1 },
        { 0, 0, 2 },      { 0, 1, n + 1 },  { 1, -2, 2 },  { n - 1, 1, 2 },
        { 0, 2, n },      { 0, INT32_MAX, 2 },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        if (bad[i][0] == 0 && bad[i][1] == 2 && bad[i][2] == n && n == 1)
            continue; /* one PE: {0, 2, 1} is valid */
        t = (sym_team_t)1;
        sym_status_t st = sym_team_split_strided(w, bad[i][0], bad[i][1], bad[i][2], &t);
        PE_ASSERT(st == SYM_ERR_INVALID_ARG, "split_strided(%d, %d, %d) of %d PEs returned %s",
                  bad[i][0], bad[i][1], bad[i][2], n, sym_status_name(st));
        PE_ASSERT(t == SYM_TEAM_INVALID, "split_strided(%d, %d, %d) left a handle", bad[i][0],
                  bad[i][1], bad[i][2]);
    }
    PE_FAILS_WITH(sym_team_split_strided(w, 0, 1, 1, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_2d(w, 0, &t, &u), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_2d(w, -3, &t, &u), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_2d(w, 1, NULL, &u), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_2d(w, 1, &t, NULL), SYM_ERR_INVALID_ARG);
    int rep[2] = { 0, 0 }, out_of[2] = { 0, n }, neg[1] = { -1 };
    PE_FAILS_WITH(sym_team_create(w, rep, 2, &t), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_create(w, out_of, 2, &t), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_create(w, neg, 1, &t), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_create(w, rep, 0, &t), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_create(w, NULL, 1, &t), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_create(w, rep, 1, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_create(w, rep, n + 1, &t), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_set_timeout(w, 0), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_set_timeout(w, -1), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_set_timeout(w, NAN), SYM_ERR_INVALID_ARG);
}

static void invalid_body(int me, int n, void *arg)
{
    (void)arg;
    if (me == 0)
        bad_split_calls(n);
    sym_team_t t;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &t));
    int all[MAXN] = { 0 };
    for (int i = 0; i < n; i++)
        all[i] = i;
    expect_team(t, all, n, "split after bad calls");
    expect_team_works(t, all, n, "split after bad calls");
    PE_OK(sym_team_destroy(t));
    /* everyone passes the same bad arguments: everyone fails alike */
    bad_split_calls(n);
    expect_team_works(sym_team_world(), all, n, "world after bad calls");
}

ParameterizedTestParameters(teams, invalid_args)
{
    static int counts[] = { 1, 2, 3, 4 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, invalid_args)
{
    run_pes(*npes, invalid_body, NULL);
}

/* The parent's members pass different lists: checked, so every member of
 * the parent fails with SYM_ERR_MISMATCH instead of building two teams. */
static void different_lists_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t parent, t = (sym_team_t)1;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &parent));
    PE_OK(sym_team_set_timeout(parent, 5.0));
    int a[2] = { 0, 1 }, b[2] = { 1, 0 };
    sym_status_t st = sym_team_create(parent, me == 0 ? a : b, 2, &t);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "returned %s: %s", sym_status_name(st), sym_last_error());
    PE_ASSERT(t == SYM_TEAM_INVALID, "a handle after the mismatch");
    (void)sym_team_destroy(parent);
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(teams, create_with_different_lists)
{
    static int counts[] = { 2, 3 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, create_with_different_lists)
{
    run_pes(*npes, different_lists_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* Timeouts                                                                  */
/* ------------------------------------------------------------------------ */

/* A team's timeout bounds its collectives: with 0.5 s, a member that comes
 * late makes the others fail well before it arrives, not after
 * SYMHEAP_TIMEOUT.  The late member comes once every other PE has given up
 * (each marks its slot of a shared page), or after 6 s (scaled) if one
 * never does: their wait cannot have ended by its arrival either way, and
 * a team timeout that does not work makes them wait past 4.5 s (scaled)
 * and fail; a fixed 6 s nap cost 6 s per case, 24 s under TSan.  Not within 0.5 s plus a little: over libfabric with
 * manual progress, the report's reads of the late member's call line and
 * the poisoning of the team wait for it too, each bounded by the team's
 * timeout.  The others call the barrier only once the late member has
 * stopped making library calls, so over manual progress its first message
 * to that member cannot complete: a transport call of the barrier not
 * bounded by the team's timeout shows as a wait until the late member
 * comes.  Another team with the default keeps waiting. */
struct late_shared {
    int gave_up[MAXN];
    int late_idle; /* the late member makes no library calls from now on */
};

static bool all_gave_up(struct late_shared *sh, int late)
{
    for (int i = 0; i < late; i++)
        if (!__atomic_load_n(&sh->gave_up[i], __ATOMIC_ACQUIRE))
            return false;
    return true;
}

static void timeout_body(int me, int n, void *arg)
{
    struct late_shared *sh = arg;
    sym_team_t t, patient;
    uint64_t *poll_word = sym_calloc(1, 8);
    PE_ASSERT(poll_word != NULL, "sym_calloc: %s", sym_last_error());
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &t));
    PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -1, n, &patient));
    PE_OK(sym_team_set_timeout(t, 0.5));
    PE_OK(sym_team_set_timeout(t, 0.5)); /* setting it again is fine */
    const int late = n - 1;
    if (me == late) {
        const double until = harness_now() + harness_seconds(6.0);
        __atomic_store_n(&sh->late_idle, 1, __ATOMIC_RELEASE);
        while (!all_gave_up(sh, late) && harness_now() < until)
            sleep_s(0.01); /* deliberately late */
    } else {
        /* Only once the late member has stopped making library calls: over
         * a provider with manual progress the first message to it then
         * cannot complete, so every transport call of the barrier has to be
         * bounded by the team's timeout (the inline ping's put_signal was
         * not, and waited for the late member's arrival: 6.5 s). */
        /* Meanwhile this PE keeps serving its peers (sym_signal_fetch
         * drives progress): over manual progress the late member's own
         * last calls before its nap may need it. */
        const double idle_by = harness_now() + harness_seconds(10.0);
        while (!__atomic_load_n(&sh->late_idle, __ATOMIC_ACQUIRE)) {
            PE_ASSERT(harness_now() < idle_by, "the late PE %d never got to its nap", late);
            uint64_t ignored;
            PE_OK(sym_signal_fetch(poll_word, &ignored));
            sleep_s(0.001);
        }
        double t0 = harness_now();
        sym_status_t st = sym_barrier(t, NULL);
        double dt = harness_now() - t0;
        __atomic_store_n(&sh->gave_up[me], 1, __ATOMIC_RELEASE);
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "returned %s: %s", sym_status_name(st),
                  sym_last_error());
        PE_ASSERT(dt >= 0.45 && dt < harness_seconds(4.5), "timed out after %.2f s (team timeout 0.5 s): %s", dt,
                  sym_last_error());
        PE_ASSERT(strstr(sym_last_error(), "0.5 s") != NULL, "message: %s", sym_last_error());
    }
    /* the patient team waits out the late member */
    int all[MAXN] = { 0 };
    for (int i = 0; i < n; i++)
        all[i] = n - 1 - i;
    expect_team_works(patient, all, n, "team with the default timeout");
    /* the late member's view of t is intact but its peers left: destroying
     * returns whatever it finds, without hanging */
    (void)sym_team_destroy(t);
    PE_OK(sym_team_destroy(patient));
    sym_free(poll_word);
}

ParameterizedTestParameters(teams, set_timeout)
{
    static int counts[] = { 2, 3 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, set_timeout)
{
    struct late_shared *sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE,
                                  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(sh != MAP_FAILED, "mmap");
    memset(sh, 0, sizeof(*sh));
    run_pes(*npes, timeout_body, sh);
    munmap(sh, sizeof(*sh));
}
