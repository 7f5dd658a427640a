/*
 * test_teams_many.c - teams without a fixed count and N-D meshes: 1024
 * split teams alive at once (the 17th through the 1024th included), each
 * kind of split, collectives on some of them while all exist, then all
 * destroyed; sym_team_split_mesh over every shape of the job, checked
 * against locally computed members, its errors, and a mesh that fits a
 * team region of two areas (the teams along one axis share offsets).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "team_check.h"

#define NTEAMS 1024

/* ------------------------------------------------------------------------ */
/* 1024 teams at once                                                        */
/* ------------------------------------------------------------------------ */

/* Team t's members (parent = world numbers): varied kinds so the region's
 * agreement sees teams that do and do not contain each PE. */
static int team_members(int t, int n, int *m)
{
    switch (t % 4) {
    case 0: /* everyone */
        for (int i = 0; i < n; i++)
            m[i] = i;
        return n;
    case 1: /* everyone, reversed */
        for (int i = 0; i < n; i++)
            m[i] = n - 1 - i;
        return n;
    case 2: /* one PE, rotating */
        m[0] = t % n;
        return 1;
    default: { /* every other PE from a rotating start */
        int k = 0;
        for (int i = t % 2; i < n; i += 2)
            m[k++] = i;
        if (k == 0)
            m[k++] = 0;
        return k;
    }
    }
}

static void many_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t *teams = calloc(NTEAMS, sizeof(*teams));
    PE_ASSERT(teams, "out of memory");
    int m[MAXN];
    for (int t = 0; t < NTEAMS; t++) {
        int k = team_members(t, n, m);
        if (t % 4 == 0)
            PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &teams[t]));
        else if (t % 4 == 1)
            PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -1, n, &teams[t]));
        else
            PE_OK(sym_team_create(sym_team_world(), m, k, &teams[t]));
        /* a collective on the 17th (the first past the old fixed count),
         * then on some of the rest while all earlier teams still exist */
        if (t == 16 || t % 97 == 0 || t == NTEAMS - 1) {
            char what[64];
            snprintf(what, sizeof(what), "team %d of %d", t + 1, NTEAMS);
            expect_team(teams[t], m, k, what);
            expect_team_works(teams[t], m, k, what);
        }
    }
    /* every team still works after all exist: the old ones too */
    for (int t = 0; t < NTEAMS; t += 255) {
        int k = team_members(t, n, m);
        expect_team_works(teams[t], m, k, "an early team after 1024 splits");
    }
    for (int t = NTEAMS - 1; t >= 0; t--)
        if (teams[t])
            PE_OK(sym_team_destroy(teams[t]));
    /* the space came back: as many again */
    for (int t = 0; t < 64; t++) {
        PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &teams[t]));
    }
    for (int t = 0; t < 64; t++)
        PE_OK(sym_team_destroy(teams[t]));
    free(teams);
    (void)me;
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(teams_many, teams_1024)
{
    static int counts[] = {1, 2, 3, 4, 5, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams_many, teams_1024, .timeout = HARNESS_CR_TIMEOUT(300))
{
    /* the default team region and area: the claim is about the defaults */
    run_pes(*npes, many_body, NULL);
}

/* Running out: a region of two areas holds two teams, the third split
 * fails alike everywhere naming the variable, and the parent goes on. */
static void region_full_body(int me, int n, void *arg)
{
    (void)me, (void)arg;
    sym_team_t a, b, c = (sym_team_t)1;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &a));
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &b));
    sym_status_t st = sym_team_split_strided(sym_team_world(), 0, 1, n, &c);
    PE_ASSERT(st == SYM_ERR_NO_MEMORY && c == SYM_TEAM_INVALID, "a third team: %s: %s",
              sym_status_name(st), sym_last_error());
    PE_ASSERT(strstr(sym_last_error(), "SYMHEAP_TEAM_REGION_SIZE"), "message: %s",
              sym_last_error());
    int all[MAXN];
    for (int i = 0; i < n; i++)
        all[i] = i;
    expect_team_works(sym_team_world(), all, n, "world after a full region");
    PE_OK(sym_team_destroy(a));
    PE_OK(sym_team_destroy(b));
}

Test(teams_many, region_full, .timeout = HARNESS_CR_TIMEOUT(120))
{
    static const char *const env[] = {"SYMHEAP_TEAM_REGION_SIZE=128K", NULL};
    run_pes_env(3, env, region_full_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* N-D meshes                                                                */
/* ------------------------------------------------------------------------ */

/* Split the parent by `shape` and check each team against the row-major
 * layout, then that each works. */
static void mesh_case(sym_team_t parent, int ndims, const int *shape)
{
    const int n = sym_team_n_pes(parent), r = sym_team_my_pe(parent);
    char what[96];
    int used = snprintf(what, sizeof(what), "mesh [");
    for (int d = 0; d < ndims; d++)
        used += snprintf(what + used, sizeof(what) - (size_t)used, "%s%d", d ? "," : "", shape[d]);
    snprintf(what + used, sizeof(what) - (size_t)used, "] of %d PEs", n);
    sym_team_t out[SYM_MESH_MAX_DIMS];
    PE_OK(sym_team_split_mesh(parent, ndims, shape, out));
    int coord[SYM_MESH_MAX_DIMS], stride[SYM_MESH_MAX_DIMS];
    for (int d = ndims - 1, s = 1, x = r; d >= 0; d--) {
        stride[d] = s;
        coord[d] = x % shape[d];
        x /= shape[d];
        s *= shape[d];
    }
    for (int d = 0; d < ndims; d++) {
        int m[MAXN];
        for (int i = 0; i < shape[d]; i++)
            m[i] = sym_team_local_to_global(parent, r + (i - coord[d]) * stride[d]);
        expect_team(out[d], m, shape[d], what);
        PE_ASSERT(sym_team_my_pe(out[d]) == coord[d], "%s: dimension %d: I am %d, expected %d",
                  what, d, sym_team_my_pe(out[d]), coord[d]);
        expect_team_works(out[d], m, shape[d], what);
    }
    for (int d = 0; d < ndims; d++)
        PE_OK(sym_team_destroy(out[d]));
}

static void mesh_body(int me, int n, void *arg)
{
    (void)me, (void)arg;
    sym_team_t w = sym_team_world();
    mesh_case(w, 1, (int[]){n});
    mesh_case(w, 2, (int[]){1, n});
    mesh_case(w, 2, (int[]){n, 1});
    for (int a = 2; a < n; a++)
        if (n % a == 0) {
            mesh_case(w, 2, (int[]){a, n / a});
            for (int b = 2; b < n / a; b++)
                if ((n / a) % b == 0)
                    mesh_case(w, 3, (int[]){a, b, n / a / b});
        }
    /* a mesh of a team that is not the world */
    if (n >= 3) {
        sym_team_t sub;
        PE_OK(sym_team_split_strided(w, n - 1, -1, n - 1, &sub));
        if (sub != SYM_TEAM_INVALID) {
            mesh_case(sub, 2, (int[]){1, n - 1});
            if ((n - 1) % 2 == 0)
                mesh_case(sub, 3, (int[]){2, 1, (n - 1) / 2});
            PE_OK(sym_team_destroy(sub));
        }
        PE_OK(sym_barrier_all());
    }
}

ParameterizedTestParameters(teams_many, mesh_shapes)
{
    static int counts[] = {1, 2, 3, 4, 6, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams_many, mesh_shapes, .timeout = HARNESS_CR_TIMEOUT(200))
{
    run_pes(*npes, mesh_body, NULL);
}

static void mesh_errors_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t w = sym_team_world();
    sym_team_t out[SYM_MESH_MAX_DIMS] = {(sym_team_t)1, (sym_team_t)1, (sym_team_t)1};
    /* a product that is not the parent's size names both */
    PE_FAILS_WITH(sym_team_split_mesh(w, 2, (int[]){2, n + 1}, out), SYM_ERR_INVALID_ARG);
    char want[64];
    snprintf(want, sizeof(want), "%d PEs", 2 * (n + 1));
    PE_ASSERT(strstr(sym_last_error(), want) && strstr(sym_last_error(), "shape [2, "),
              "the message does not name the shape's size: %s", sym_last_error());
    snprintf(want, sizeof(want), "has %d", n);
    PE_ASSERT(strstr(sym_last_error(), want), "the message does not name the parent's size: %s",
              sym_last_error());
    PE_ASSERT(out[0] == SYM_TEAM_INVALID && out[1] == SYM_TEAM_INVALID, "handles after an error");
    PE_FAILS_WITH(sym_team_split_mesh(w, 1, (int[]){n + 1}, out), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_mesh(w, 2, (int[]){0, n}, out), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_mesh(w, 0, (int[]){n}, out), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(
        sym_team_split_mesh(w, SYM_MESH_MAX_DIMS + 1, (int[9]){n, 1, 1, 1, 1, 1, 1, 1, 1}, out),
        SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_mesh(w, 1, NULL, out), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_split_mesh(w, 1, (int[]){n}, NULL), SYM_ERR_INVALID_ARG);
    /* a short last row is an error unless asked for */
    if (n >= 3 && n % 2) {
        sym_team_t x = (sym_team_t)1, y = (sym_team_t)1;
        PE_FAILS_WITH(sym_team_split_2d(w, 2, &x, &y), SYM_ERR_INVALID_ARG);
        PE_ASSERT(x == SYM_TEAM_INVALID && y == SYM_TEAM_INVALID, "handles after a short row");
        PE_ASSERT(strstr(sym_last_error(), "xrange 2") && strstr(sym_last_error(), "ragged"),
                  "message: %s", sym_last_error());
        PE_OK(sym_team_split_2d_ragged(w, 2, &x, &y));
        PE_ASSERT(sym_team_n_pes(x) == (me == n - 1 ? 1 : 2), "ragged row of %d",
                  sym_team_n_pes(x));
        PE_OK(sym_team_destroy(x));
        PE_OK(sym_team_destroy(y));
    }
    /* different shapes on different PEs: a mismatch naming both, on every
     * PE, and the parent goes on */
    if (n >= 2 && n % 2 == 0) {
        const int *shape = me == 0 ? (int[]){1, n} : (int[]){n, 1};
        PE_FAILS_WITH(sym_team_split_mesh(w, 2, shape, out), SYM_ERR_MISMATCH);
        PE_ASSERT(strstr(sym_last_error(), "different arguments"), "message: %s", sym_last_error());
        int all[MAXN];
        for (int i = 0; i < n; i++)
            all[i] = i;
        expect_team_works(w, all, n, "world after different shapes");
    }
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(teams_many, mesh_errors)
{
    static int counts[] = {1, 2, 3, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams_many, mesh_errors, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_pes(*npes, mesh_errors_body, NULL);
}

/* A 2-D mesh of 8 PEs in a region of two areas: the four column teams
 * share one area offset and the two row teams another. */
static void mesh_compact_body(int me, int n, void *arg)
{
    (void)me, (void)arg;
    mesh_case(sym_team_world(), 2, (int[]){2, n / 2});
    sym_team_t shared;
    PE_OK(sym_team_split_shared(sym_team_world(), &shared));
    PE_OK(sym_team_destroy(shared));
}

Test(teams_many, mesh_costs_one_area_per_dimension, .timeout = HARNESS_CR_TIMEOUT(120))
{
    static const char *const env[] = {"SYMHEAP_TEAM_REGION_SIZE=128K", NULL};
    run_pes_env(8, env, mesh_compact_body, NULL);
}

#ifdef SYM_HAVE_OFI
/* Every PE reached through libfabric is a group of its own: split_shared
 * makes one team per PE, and all of them share one area offset, so a
 * region of one area is enough however many groups there are. */
static void shared_groups_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t shared;
    PE_OK(sym_team_split_shared(sym_team_world(), &shared));
    expect_team(shared, (int[]){me}, 1, "a group of one");
    expect_team_works(shared, (int[]){me}, 1, "a group of one");
    /* the one area is taken on every PE: a second team does not fit */
    sym_team_t t = (sym_team_t)1;
    PE_FAILS_WITH(sym_team_split_strided(sym_team_world(), 0, 1, n, &t), SYM_ERR_NO_MEMORY);
    PE_OK(sym_team_destroy(shared));
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &t));
    PE_OK(sym_team_destroy(t));
}

Test(teams_many, shared_groups_share_one_area, .timeout = HARNESS_CR_TIMEOUT(120))
{
    static const char *const env[] = {
        "SYMHEAP_TRANSPORT=ofi",        "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
        "FI_OFI_RXM_MSG_TX_SIZE=32",    "FI_OFI_RXM_MSG_RX_SIZE=32",
        "SYMHEAP_TEAM_REGION_SIZE=64K", NULL};
    run_pes_env(4, env, shared_groups_body, NULL);
}
#endif
