/*
 * test_coll_faults_lost.c - collectives with a member missing: one that never
 * arrives (timeout), a broadcast root that never comes, a member killed in
 * the middle of a large ring allreduce, and a broken world team that must
 * not stop sym_finalize.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <unistd.h>

#include "coll_fault_check.h"

/* ------------------------------------------------------------------------ */
/* a member never arrives                                                    */
/* ------------------------------------------------------------------------ */

struct timeout_case {
    int npes;
    bool per_call; /* opts.timeout_s instead of the team's timeout */
    sym_algorithm_t algo;
};

static void timeout_body(int me, int n, void *arg)
{
    const struct timeout_case *tc = arg;
    const int victim = n - 1;
    sym_team_t t = whole_split();
    if (!tc->per_call)
        PE_OK(sym_team_set_timeout(t, 1.0));
    sym_coll_opts_t o = {.algorithm = tc->algo, .timeout_s = tc->per_call ? 1.0 : 0};
    int32_t src[16], dst[16];
    for (int i = 0; i < 16; i++)
        src[i] = me + i;
    /* a good call first: the failing one is #2 on the team */
    PE_OK(sym_allreduce(t, dst, src, 16, SYM_INT32, SYM_OP_SUM, &o));
    if (me != victim) {
        double t0 = harness_now();
        sym_status_t st = sym_allreduce(t, dst, src, 16, SYM_INT32, SYM_OP_SUM, &o);
        double dt = harness_now() - t0;
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "allreduce without PE %d returned %s: %s", victim,
                  sym_status_name(st), sym_last_error());
        PE_ASSERT(dt >= 0.9 && dt < harness_seconds(3.0), "timed out after %.2f s (timeout 1 s)",
                  dt);
        char msg[1024], want[32];
        snprintf(msg, sizeof(msg), "%s", sym_last_error());
        CONTAINS(msg, "sym_allreduce");
        CONTAINS(msg, "#2");
        CONTAINS(msg, sym_team_name(t));
        snprintf(want, sizeof(want), "PE %d", victim);
        CONTAINS(msg, want);
        /* broken: the next collective fails at once with the same error */
        t0 = harness_now();
        int32_t b = 7;
        st = sym_broadcast(t, &b, 1, SYM_INT32, 0, NULL);
        dt = harness_now() - t0;
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "broadcast on the broken team returned %s: %s",
                  sym_status_name(st), sym_last_error());
        PE_ASSERT(dt < harness_seconds(0.5), "the broken team's next call took %.2f s", dt);
        CONTAINS(sym_last_error(), "sym_broadcast");
        CONTAINS(sym_last_error(), "broken");
        CONTAINS(sym_last_error(), want);
        PE_FAILS_WITH(sym_barrier(t, NULL), SYM_ERR_TIMEOUT);
        PE_OK(sym_team_destroy(t));
        PE_ASSERT(sym_team_n_pes(t) == -1, "destroyed team still answers");
        PE_OK(sym_barrier_all());
    } else {
        /* arrive only after everyone else gave up and destroyed the team */
        PE_OK(sym_barrier_all());
        /* this member's view of the team is not broken, but its peers are
         * gone: destroying must return (whatever it reports), not hang */
        double t0 = harness_now();
        sym_status_t st = sym_team_destroy(t);
        PE_ASSERT(harness_now() - t0 < harness_seconds(35), "destroy took %.2f s",
                  harness_now() - t0);
        (void)st;
        PE_ASSERT(sym_team_n_pes(t) == -1, "destroyed team still answers");
    }
    world_still_works();
}

ParameterizedTestParameters(coll_faults, timeout)
{
    static struct timeout_case cases[] = {
        {2, false, SYM_ALGO_AUTO}, {3, false, SYM_ALGO_NAIVE}, {4, false, SYM_ALGO_NAIVE},
        {2, true, SYM_ALGO_NAIVE}, {3, true, SYM_ALGO_AUTO},   {4, true, SYM_ALGO_RING},
        {4, false, SYM_ALGO_TREE}, {3, false, SYM_ALGO_RD},
    };
    return cr_make_param_array(struct timeout_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct timeout_case *tc, coll_faults, timeout)
{
    run_pes(tc->npes, timeout_body, tc);
}

/* The root of a broadcast never arrives: every receiver names it. */
static void missing_root_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t t = whole_split();
    PE_OK(sym_team_set_timeout(t, 1.0));
    const int root = 0;
    if (me != root) {
        int32_t buf[4] = {0};
        double t0 = harness_now();
        sym_status_t st = sym_broadcast(t, buf, 4, SYM_INT32, root, NULL);
        double dt = harness_now() - t0;
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "returned %s: %s", sym_status_name(st), sym_last_error());
        PE_ASSERT(dt >= 0.9 && dt < harness_seconds(3.0), "timed out after %.2f s", dt);
        CONTAINS(sym_last_error(), "sym_broadcast");
        CONTAINS(sym_last_error(), "#1");
        CONTAINS(sym_last_error(), "PE 0");
        PE_OK(sym_team_destroy(t));
        PE_OK(sym_barrier_all());
    } else {
        PE_OK(sym_barrier_all());
        pe_ignore(sym_team_destroy(t));
    }
    (void)n;
    world_still_works();
}

ParameterizedTestParameters(coll_faults, missing_root)
{
    static int counts[] = {2, 3, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, missing_root)
{
    run_pes(*npes, missing_root_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* a member is killed inside a large ring allreduce                          */
/* ------------------------------------------------------------------------ */

#define KILL_AFTER_S 0.3

static void *killer(void *arg)
{
    (void)arg;
    sleep_s(KILL_AFTER_S);
    raise(SIGKILL);
    return NULL;
}

static void killed_in_allreduce_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    const size_t count = (size_t)1 << 21; /* 16 MB of doubles: each call takes a while */
    double *src = malloc(count * sizeof(double)), *dst = malloc(count * sizeof(double));
    PE_ASSERT(src && dst, "malloc failed");
    for (size_t i = 0; i < count; i++)
        src[i] = (double)(me + (int)(i % 7));
    const int victim = n - 1;
    sym_coll_opts_t o = {.algorithm = SYM_ALGO_RING, .timeout_s = 0};
    PE_OK(sym_barrier_all());
    double t0 = harness_now();
    if (me == victim) {
        pthread_t th;
        PE_ASSERT(pthread_create(&th, NULL, killer, NULL) == 0, "pthread_create failed");
    }
    sym_status_t st = SYM_OK;
    int calls = 0;
    while (st == SYM_OK && calls < 1000 && harness_now() - t0 < 20) {
        st = sym_allreduce(sym_team_world(), dst, src, count, SYM_DOUBLE, SYM_OP_SUM, &o);
        calls++;
    }
    double dt = harness_now() - t0;
    PE_ASSERT(me != victim, "the victim outlived its killer");
    EXPECT_LOST(st, "sym_allreduce", calls, victim);
    CONTAINS(sym_last_error(), harness_killed_words());
    PE_ASSERT(dt < KILL_AFTER_S + harness_seconds(2.0),
              "the loss was reported %.2f s after the start (the "
              "victim died after %.1f s)",
              dt, KILL_AFTER_S);
    /* finalize marks this PE as done, so survivors still waiting are not
     * misled into blaming it instead of the victim */
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
    free(src);
    free(dst);
    _exit(0);
}

ParameterizedTestParameters(coll_faults, killed_in_ring_allreduce)
{
    static int counts[] = {2, 3, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, killed_in_ring_allreduce)
{
    harness_skip_if_launcher_ends_job_on_kill();
    struct pe_job job = {.npes = *npes, .body = killed_in_allreduce_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    const int victim = *npes - 1;
    cr_assert_eq(out.term_signal[victim], SIGKILL, "the victim ended with code %d",
                 out.exit_code[victim]);
    for (int pe = 0; pe < victim; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                     out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}

/* ------------------------------------------------------------------------ */
/* a broken world team does not stop sym_finalize                            */
/* ------------------------------------------------------------------------ */

static void world_mismatch_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    PE_OK(sym_init());
    PE_OK(sym_team_set_timeout(sym_team_world(), 5.0));
    int32_t src[4] = {me, me, me, me}, dst[4];
    /* a mismatch every algorithm sees (data flows either way): the subject
     * here is finalize, detection itself is the mismatch test's */
    sym_status_t st =
        sym_allreduce(sym_team_world(), dst, src, me == 0 ? 3 : 4, SYM_INT32, SYM_OP_SUM, NULL);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "returned %s: %s", sym_status_name(st), sym_last_error());
    PE_FAILS_WITH(sym_barrier(sym_team_world(), NULL), SYM_ERR_MISMATCH);
    double t0 = harness_now();
    st = sym_finalize();
    double dt = harness_now() - t0;
    PE_ASSERT(st == SYM_OK, "finalize after a world mismatch returned %s: %s", sym_status_name(st),
              sym_last_error());
    PE_ASSERT(dt < harness_seconds(3.0), "finalize took %.2f s", dt);
    PE_ASSERT(!sym_initialized(), "still initialized");
}

ParameterizedTestParameters(coll_faults, world_mismatch_then_finalize)
{
    static int counts[] = {2, 3};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, world_mismatch_then_finalize)
{
    struct pe_job job = {.npes = *npes, .body = world_mismatch_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* One PE skips an allreduce on the world and finalizes: the others'
 * allreduce finds that it has moved on to sym_finalize (a mismatch), or
 * times out first; either way finalize still meets, and the skipper's
 * finalize reports the others' error on the world team. */
static void world_timeout_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    int32_t src[4] = {me, me, me, me}, dst[4];
    if (me != n - 1) {
        sym_coll_opts_t o = {.algorithm = SYM_ALGO_AUTO, .timeout_s = 1.0};
        sym_status_t st = sym_allreduce(sym_team_world(), dst, src, 4, SYM_INT32, SYM_OP_SUM, &o);
        PE_ASSERT(st == SYM_ERR_TIMEOUT ||
                      (st == SYM_ERR_MISMATCH && strstr(sym_last_error(), "sym_finalize")),
                  "allreduce returned %s: %s", sym_status_name(st), sym_last_error());
    }
    double t0 = harness_now();
    sym_status_t st = sym_finalize();
    PE_ASSERT(st == SYM_OK || (me == n - 1 && st == SYM_ERR_MISMATCH), "finalize returned %s: %s",
              sym_status_name(st), sym_last_error());
    PE_ASSERT(harness_now() - t0 < harness_seconds(5.0), "finalize took %.2f s",
              harness_now() - t0);
}

Test(coll_faults, world_timeout_then_finalize)
{
    struct pe_job job = {.npes = 3, .body = world_timeout_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
