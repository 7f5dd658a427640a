/*
 * test_coll_threads.c - collectives from two threads of every PE at
 * SYM_THREAD_MULTIPLE: on one team they run one at a time (the results are
 * whole and exact), on two teams side by side.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define COUNT 20011 /* several chunks of a 1 MiB mailbox's team area */

struct worker {
    sym_team_t team;
    int me, n, calls;
    double value;    /* this PE's contribution */
    double expect;   /* the sum over the team */
    bool mixed;      /* other collectives between the allreduces */
    sym_status_t st; /* first failure */
    char msg[512];
};

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    double *src = malloc(COUNT * sizeof(double)), *dst = malloc(COUNT * sizeof(double));
    uint8_t small[3];
    for (int k = 0; k < w->calls && w->st == SYM_OK; k++) {
        for (int i = 0; i < COUNT; i++)
            src[i] = w->value + i;
        sym_status_t st = sym_allreduce(w->team, dst, src, COUNT, SYM_DOUBLE, SYM_OP_SUM, NULL);
        for (int i = 0; st == SYM_OK && i < COUNT; i++)
            if (dst[i] != w->expect + (double)i * w->n) {
                snprintf(w->msg, sizeof(w->msg), "call %d: element %d is %g, not %g", k, i, dst[i],
                         w->expect + (double)i * w->n);
                st = SYM_ERR_INTERNAL;
            }
        /* on a team of its own, other kinds too (on a shared team the two
         * threads' calls pair up in any order across the PEs: only calls
         * alike in every fingerprint field can) */
        size_t nb = 3;
        memset(small, w->me == 0 ? 7 : 0, sizeof(small));
        if (!w->mixed) {
            w->st = st;
            continue;
        }
        if (st == SYM_OK)
            st = sym_broadcast_v(w->team, small, sizeof(small), &nb, 0, NULL);
        if (st == SYM_OK && (nb != 3 || small[0] != 7 || small[2] != 7)) {
            snprintf(w->msg, sizeof(w->msg), "call %d: broadcast_v gave %zu bytes, %d", k, nb,
                     small[0]);
            st = SYM_ERR_INTERNAL;
        }
        if (st == SYM_OK)
            st = sym_barrier(w->team, NULL);
        if (st != SYM_OK && !w->msg[0])
            snprintf(w->msg, sizeof(w->msg), "call %d: %s", k, sym_last_error());
        w->st = st;
    }
    free(src);
    free(dst);
    return NULL;
}

/* arg: 0 both threads on the world team, 1 each on a team of its own */
static void threads_body(int me, int n, void *arg)
{
    const bool own_teams = *(const int *)arg;
    int provided = -1;
    PE_OK(sym_init_thread(SYM_THREAD_MULTIPLE, &provided));
    sym_team_t a = sym_team_world(), b = sym_team_world();
    if (own_teams) {
        PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &a));
        PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &b));
    }
    const int calls = getenv("SYMHEAP_TEST_QUICK") ? 12 : 40;
    /* on one team the threads' calls pair up in any order across PEs, so
     * both contribute the same; on their own teams they differ */
    struct worker w[2] = {
        {a, me, n, calls, me + 1.0, n * (n + 1) / 2.0, own_teams, SYM_OK, ""},
        {b, me, n, calls, own_teams ? 2.0 * me : me + 1.0,
         own_teams ? (double)n * (n - 1) : n * (n + 1) / 2.0, own_teams, SYM_OK, ""},
    };
    pthread_t th[2];
    for (int t = 0; t < 2; t++)
        PE_ASSERT(pthread_create(&th[t], NULL, worker_main, &w[t]) == 0, "pthread_create");
    for (int t = 0; t < 2; t++)
        pthread_join(th[t], NULL);
    for (int t = 0; t < 2; t++)
        PE_ASSERT(w[t].st == SYM_OK, "thread %d: %s: %s", t, sym_status_name(w[t].st), w[t].msg);
    if (own_teams) {
        PE_OK(sym_team_destroy(a));
        PE_OK(sym_team_destroy(b));
    }
    PE_OK(sym_finalize());
}

static void run(int npes, int own_teams)
{
    static const char *const env[] = {"SYMHEAP_MAILBOX_SIZE=1M", NULL};
    struct pe_job job = {
        .npes = npes, .body = threads_body, .arg = &own_teams, .env = env, .raw = true};
    if (!harness_pes_listed(npes))
        cr_skip_test("SYMHEAP_TEST_PES leaves out %d PEs", npes);
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

ParameterizedTestParameters(coll_threads, one_team_serialised)
{
    static int counts[] = {1, 2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_threads, one_team_serialised)
{
    run(*npes, 0);
}

ParameterizedTestParameters(coll_threads, two_teams_concurrent)
{
    static int counts[] = {2, 3, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_threads, two_teams_concurrent)
{
    run(*npes, 1);
}
