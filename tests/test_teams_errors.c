/*
 * test_teams_errors.c - teams used wrongly or failing: destroyed handles, invalid
 * arguments, PEs passing different member lists, and per-team timeouts.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "team_check.h"

static void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

/* ------------------------------------------------------------------------ */
/* Destroyed handles, invalid arguments                                      */
/* ------------------------------------------------------------------------ */

static void expect_dead(sym_team_t t, const char *what)
{
    int buf[MAXN];
    int32_t v[2] = {1, 2}, out[2];
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
    PE_FAILS_WITH(sym_team_create(t, (int[]){0}, 1, &child), SYM_ERR_INVALID_ARG);
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
    int all[MAXN] = {0};
    for (int i = 0; i < n; i++)
        all[i] = i;
    expect_team_works(u, all, n, "team in the reused slot");
    PE_OK(sym_team_destroy(u));
}

ParameterizedTestParameters(teams, destroyed_handles)
{
    static int counts[] = {1, 2, 3};
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
        {0, 1, 0},     {0, 1, -1}, {-1, 1, 1},    {n, 1, 1}, {0, 0, 2},
        {0, 1, n + 1}, {1, -2, 2}, {n - 1, 1, 2}, {0, 2, n}, {0, INT32_MAX, 2},
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
    int rep[2] = {0, 0}, out_of[2] = {0, n}, neg[1] = {-1};
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
    int all[MAXN] = {0};
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
    static int counts[] = {1, 2, 3, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, invalid_args)
{
    run_pes(*npes, invalid_body, NULL);
}

/* The parent's members pass different lists: checked, so every member of
 * the parent fails with SYM_ERR_MISMATCH naming both lists instead of
 * building two teams, and the parent (a split team, then the world) goes
 * on working: it can make teams, run collectives and be destroyed. */
static void different_lists_body(int me, int n, void *arg)
{
    (void)arg;
    int all[MAXN];
    for (int i = 0; i < n; i++)
        all[i] = i;
    sym_team_t parent, t = (sym_team_t)1;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &parent));
    PE_OK(sym_team_set_timeout(parent, 5.0));
    int a[2] = {0, 1}, b[2] = {1, 0};
    for (int round = 0; round < 2; round++) {
        sym_team_t p = round == 0 ? parent : sym_team_world();
        sym_status_t st = sym_team_create(p, me == 0 ? a : b, 2, &t);
        PE_ASSERT(st == SYM_ERR_MISMATCH, "returned %s: %s", sym_status_name(st), sym_last_error());
        PE_ASSERT(t == SYM_TEAM_INVALID, "a handle after the mismatch");
        const char *mine = me == 0 ? "2 members {0, 1}" : "2 members {1, 0}";
        const char *other = me == 0 ? "2 members {1, 0}" : "2 members {0, 1}";
        PE_ASSERT(strstr(sym_last_error(), mine) && strstr(sym_last_error(), other),
                  "the message does not name both lists: %s", sym_last_error());
        expect_team_works(p, all, n, "parent after different lists");
        PE_OK(sym_team_create(p, a, 2, &t));
        if (t)
            PE_OK(sym_team_destroy(t));
    }
    PE_OK(sym_team_destroy(parent));
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(teams, create_with_different_lists)
{
    static int counts[] = {2, 3};
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
 * and fail; a fixed 6 s nap cost 6 s per case, 24 s under TSan.  Not within 0.5 s plus a little:
 * over libfabric with manual progress, the report's reads of the late member's call line and the
 * poisoning of the team wait for it too, each bounded by the team's timeout.  The others call the
 * barrier only once the late member has stopped making library calls, so over manual progress its
 * first message to that member cannot complete: a transport call of the barrier not bounded by the
 * team's timeout shows as a wait until the late member comes.  Another team with the default keeps
 * waiting. */
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
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "returned %s: %s", sym_status_name(st), sym_last_error());
        PE_ASSERT(dt >= 0.45 && dt < harness_seconds(4.5),
                  "timed out after %.2f s (team timeout 0.5 s): %s", dt, sym_last_error());
        PE_ASSERT(strstr(sym_last_error(), "0.5 s") != NULL, "message: %s", sym_last_error());
    }
    /* the patient team waits out the late member */
    int all[MAXN] = {0};
    for (int i = 0; i < n; i++)
        all[i] = n - 1 - i;
    expect_team_works(patient, all, n, "team with the default timeout");
    /* the late member's view of t is intact but its peers left: destroying
     * returns whatever it finds, without hanging */
    pe_ignore(sym_team_destroy(t));
    PE_OK(sym_team_destroy(patient));
    sym_free(poll_word);
}

ParameterizedTestParameters(teams, set_timeout)
{
    static int counts[] = {2, 3};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams, set_timeout)
{
    struct late_shared *sh =
        mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(sh != MAP_FAILED, "mmap");
    memset(sh, 0, sizeof(*sh));
    run_pes(*npes, timeout_body, sh);
    munmap(sh, sizeof(*sh));
}
