/*
 * test_teams_recover.c - sym_team_recover and broken teams: after a
 * mismatch, a timeout and a late PE, on the world team and on a split
 * team, every member sees the team broken (the late PE too, instead of
 * succeeding alone), sym_team_recover on every member starts a new epoch
 * in which collectives give right results again, and destroying a broken
 * team returns at once instead of waiting out the team's timeout.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "team_check.h"

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* The team for a case: the world, or a split team of every PE in reverse
 * order (another numbering than the world's). */
static sym_team_t case_team(int split, int n)
{
    if (!split)
        return sym_team_world();
    sym_team_t t;
    PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -1, n, &t));
    return t;
}

/* After recovery: a few collectives of several sizes give right results,
 * and the team is not broken. */
static void expect_recovered(sym_team_t t, const char *what)
{
    const int n = sym_team_n_pes(t);
    int members[MAXN];
    PE_OK(sym_team_members(t, members));
    expect_team_works(t, members, n, what);
    static int64_t src[5000], dst[5000];
    for (size_t count = 1; count <= 5000; count *= 70) {
        for (size_t i = 0; i < count; i++)
            src[i] = (int64_t)i * 3 + sym_team_my_pe(t);
        PE_OK(sym_allreduce(t, dst, src, count, SYM_INT64, SYM_OP_SUM, NULL));
        for (size_t i = 0; i < count; i++)
            PE_ASSERT(dst[i] == (int64_t)i * 3 * n + (int64_t)n * (n - 1) / 2,
                      "%s: element %zu of %zu is %lld", what, i, count, (long long)dst[i]);
    }
}

static void finish(sym_team_t t, int split)
{
    if (split) {
        double t0 = now_s();
        PE_OK(sym_team_destroy(t));
        PE_ASSERT(now_s() - t0 < 10, "destroy took %.1f s", now_s() - t0);
    }
    PE_OK(sym_barrier_all());
}

/* PE 0 calls an allreduce, the others a broadcast: a mismatch on all. */
static void mismatch_body(int me, int n, void *arg)
{
    const int split = *(const int *)arg;
    sym_team_t t = case_team(split, n);
    PE_OK(sym_team_set_timeout(t, 20));
    int64_t v = 1, w = 0;
    sym_status_t st = me == 0 ? sym_allreduce(t, &w, &v, 1, SYM_INT64, SYM_OP_SUM, NULL)
                              : sym_broadcast(t, &v, 1, SYM_INT64, 0, NULL);
    /* members that took no part in the mismatch (a broadcast leaf served by
     * another member) may return SYM_OK from it ... */
    PE_ASSERT(st == SYM_ERR_MISMATCH || (st == SYM_OK && me != 0),
              "the mismatched call returned %s: %s", sym_status_name(st), sym_last_error());
    /* ... but the team is broken on every member until recovered */
    PE_FAILS_WITH(sym_barrier(t, NULL), SYM_ERR_MISMATCH);
    PE_OK(sym_team_recover(t));
    expect_recovered(t, "after a mismatch");
    /* twice in a row, and on a healthy team */
    PE_OK(sym_team_recover(t));
    expect_recovered(t, "after a second recovery");
    finish(t, split);
}

/* The last PE does not call; the others time out.  It learns of it at its
 * next call on the team. */
static void timeout_body(int me, int n, void *arg)
{
    const int split = *(const int *)arg;
    sym_team_t t = case_team(split, n);
    PE_OK(sym_team_set_timeout(t, 0.5));
    int64_t v = me, w = 0;
    if (me != n - 1) {
        sym_status_t st = sym_allreduce(t, &w, &v, 1, SYM_INT64, SYM_OP_SUM, NULL);
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "returned %s: %s", sym_status_name(st), sym_last_error());
    }
    PE_OK(sym_barrier_all());
    sym_status_t st = sym_barrier(t, NULL);
    PE_ASSERT(st == SYM_ERR_TIMEOUT, "a call after the timeout returned %s: %s",
              sym_status_name(st), sym_last_error());
    /* the recovery has all the time it needs */
    PE_OK(sym_team_set_timeout(t, 30));
    PE_OK(sym_team_recover(t));
    expect_recovered(t, "after a timeout");
    finish(t, split);
}

/* The last PE arrives after the others gave up: it must not succeed alone,
 * and every member's team is broken, so each destroy returns at once. */
static void late_body(int me, int n, void *arg)
{
    const int split = *(const int *)arg;
    sym_team_t t = case_team(split, n);
    PE_OK(sym_team_set_timeout(t, 0.5));
    int64_t v = me, w = 0;
    if (me == n - 1) {
        /* the others time out after 0.5 s and say so before returning:
         * wait until every one of them has (the world barrier below) */
        PE_OK(sym_barrier_all());
    }
    sym_status_t st = sym_allreduce(t, &w, &v, 1, SYM_INT64, SYM_OP_SUM, NULL);
    if (me != n - 1)
        PE_OK(sym_barrier_all());
    PE_ASSERT(st == SYM_ERR_TIMEOUT, "PE %d: the allreduce returned %s (%s)", me,
              sym_status_name(st), sym_last_error());
    if (me == n - 1)
        PE_ASSERT(strstr(sym_last_error(), "reported") || strstr(sym_last_error(), "broken"),
                  "the late PE is not told its peers gave up: %s", sym_last_error());
    PE_OK(sym_barrier_all());
    if (split) {
        /* a long timeout again: destroying the broken team must not wait it out */
        PE_OK(sym_team_set_timeout(t, 60));
        double t0 = now_s();
        st = sym_team_destroy(t);
        PE_ASSERT(now_s() - t0 < 5, "destroy of a broken team took %.1f s", now_s() - t0);
        PE_ASSERT(st != SYM_OK || true, "destroy");
        PE_OK(sym_barrier_all());
        /* a new team in the freed area works */
        t = case_team(split, n);
    } else {
        PE_OK(sym_team_set_timeout(t, 30));
        PE_OK(sym_team_recover(t));
    }
    expect_recovered(t, "after a late PE");
    finish(t, split);
}

/* The late PE again, and the team recovered instead of destroyed. */
static void late_recover_body(int me, int n, void *arg)
{
    const int split = *(const int *)arg;
    sym_team_t t = case_team(split, n);
    PE_OK(sym_team_set_timeout(t, 0.5));
    int64_t v = me, w = 0;
    if (me == n - 1)
        PE_OK(sym_barrier_all());
    sym_status_t st = sym_allreduce(t, &w, &v, 1, SYM_INT64, SYM_OP_SUM, NULL);
    if (me != n - 1)
        PE_OK(sym_barrier_all());
    PE_ASSERT(st != SYM_OK, "PE %d: the allreduce succeeded alone", me);
    PE_OK(sym_team_set_timeout(t, 30));
    PE_OK(sym_team_recover(t));
    expect_recovered(t, "after a late PE, recovered");
    finish(t, split);
}

/* A member that never calls sym_team_recover: the others' recovery fails
 * within the team's timeout naming it, and the team stays broken. */
static void recover_alone_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t t = case_team(1, n);
    PE_OK(sym_team_set_timeout(t, 0.5));
    if (me != n - 1) {
        sym_status_t st = sym_team_recover(t);
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "recover without PE %d returned %s: %s", n - 1,
                  sym_status_name(st), sym_last_error());
        char want[32];
        snprintf(want, sizeof(want), "PE %d", n - 1);
        PE_ASSERT(strstr(sym_last_error(), want), "message: %s", sym_last_error());
        PE_FAILS_WITH(sym_barrier(t, NULL), SYM_ERR_TIMEOUT);
    }
    PE_OK(sym_barrier_all());
    double t0 = now_s();
    PE_OK(sym_team_set_timeout(t, 60));
    pe_ignore(sym_team_destroy(t));
    PE_ASSERT(now_s() - t0 < 5, "destroy took %.1f s", now_s() - t0);
    PE_OK(sym_barrier_all());
}

static int world_case = 0, split_case = 1;

ParameterizedTestParameters(teams_recover, sizes)
{
    static int counts[] = {2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, teams_recover, sizes, .timeout = HARNESS_CR_TIMEOUT(300))
{
    run_pes(*npes, mismatch_body, &world_case);
    run_pes(*npes, mismatch_body, &split_case);
    run_pes(*npes, timeout_body, &world_case);
    run_pes(*npes, timeout_body, &split_case);
    run_pes(*npes, late_body, &world_case);
    run_pes(*npes, late_body, &split_case);
    run_pes(*npes, late_recover_body, &split_case);
    run_pes(*npes, recover_alone_body, NULL);
}

/* One PE: recovery of a healthy team is a no-op. */
static void single_body(int me, int n, void *arg)
{
    (void)me, (void)arg;
    PE_OK(sym_team_recover(sym_team_world()));
    sym_team_t t = case_team(1, n);
    PE_OK(sym_team_recover(t));
    expect_recovered(t, "one PE");
    PE_OK(sym_team_destroy(t));
    PE_FAILS_WITH(sym_team_recover(t), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_recover(SYM_TEAM_INVALID), SYM_ERR_INVALID_ARG);
}

Test(teams_recover, one_pe)
{
    run_pes(1, single_body, NULL);
}
