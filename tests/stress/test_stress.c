/*
 * test_stress.c - bounded runs of the seeded stress program (stress.h):
 * a few seeds at 2, 3, 5 and 8 PEs (oversubscribed on this host), every
 * result checked against its reference.  A failure prints the seed and the
 * step, and the command that replays it.  SYMHEAP_TEST_QUICK (the sanitizer
 * stage) runs fewer steps.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>

#include "../harness.h"
#include "stress.h"

struct stress_case {
    int npes;
    uint64_t seed;
    uint64_t steps;
};

static void body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    int rc = stress_run(arg);
    PE_ASSERT(rc == 0, "wrong results (see the WRONG lines above)");
}

ParameterizedTestParameters(stress, bounded)
{
    static struct stress_case cases[] = {
        { 2, 101, 600 }, { 2, 102, 600 }, { 3, 201, 500 }, { 3, 202, 500 },
        { 5, 301, 300 }, { 5, 302, 300 }, { 8, 401, 200 }, { 8, 402, 200 },
    };
    return cr_make_param_array(struct stress_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct stress_case *c, stress, bounded, .timeout = 600)
{
    struct stress_opts o;
    stress_opts_default(&o);
    o.seed = c->seed;
    o.steps = c->steps;
    const char *quick = getenv("SYMHEAP_TEST_QUICK");
    if (quick && *quick && *quick != '0')
        o.steps /= 3;
    struct pe_job job = { .npes = c->npes, .body = body, .arg = &o, .env = stress_env,
                          .job_timeout_s = 500 };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
