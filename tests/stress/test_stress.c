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

#include "harness.h"
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
        {2, 101, 600}, {2, 102, 600}, {3, 201, 500}, {3, 202, 500},
        {5, 301, 300}, {5, 302, 300}, {8, 401, 200}, {8, 402, 200},
    };
    return cr_make_param_array(struct stress_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct stress_case *c, stress, bounded, .timeout = HARNESS_CR_TIMEOUT(600))
{
    struct stress_opts o;
    stress_opts_default(&o);
    o.seed = c->seed;
    o.steps = c->steps;
    const char *quick = getenv("SYMHEAP_TEST_QUICK");
    if (quick && *quick && *quick != '0')
        o.steps /= 3;
    struct pe_job job = {
        .npes = c->npes, .body = body, .arg = &o, .env = stress_env, .job_timeout_s = 500};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* Found by the stress soak under UBSan: products of 16-bit integers were
 * computed in (promoted) int and overflowed, and a ring reduce of 0
 * elements did arithmetic on a NULL buffer at non-roots.  The results were
 * right on gcc by luck; the sanitizer stage (halt_on_error) fails on both. */
static void narrow_prod_body(int me, int npes, void *arg)
{
    (void)arg;
    static const sym_algorithm_t algos[] = {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE,
                                            SYM_ALGO_RD};
    for (size_t a = 0; a < sizeof(algos) / sizeof(algos[0]); a++) {
        sym_coll_opts_t o = {.algorithm = algos[a]};
        uint16_t us[5], ud[5];
        int16_t ss[5], sd[5];
        for (int i = 0; i < 5; i++) {
            us[i] = (uint16_t)(60000u + (unsigned)(me * 5 + i));
            ss[i] = (int16_t)(-30000 + me * 5 + i);
        }
        PE_OK(sym_allreduce(sym_team_world(), ud, us, 5, SYM_UINT16, SYM_OP_PROD, &o));
        PE_OK(sym_allreduce(sym_team_world(), sd, ss, 5, SYM_INT16, SYM_OP_PROD, &o));
        for (int i = 0; i < 5; i++) {
            uint64_t up = 1, sp = 1;
            for (int p = 0; p < npes; p++) {
                up *= 60000u + (unsigned)(p * 5 + i);
                sp *= (uint64_t)(int64_t)(-30000 + p * 5 + i);
            }
            PE_ASSERT(ud[i] == (uint16_t)up && sd[i] == (int16_t)(uint16_t)sp,
                      "%s prod element %d: %u and %d, expected %u and %d",
                      sym_algorithm_name(algos[a]), i, ud[i], sd[i], (uint16_t)up,
                      (int16_t)(uint16_t)sp);
        }
        if (algos[a] != SYM_ALGO_RD) {
            int x = 0;
            PE_OK(sym_reduce(sym_team_world(), me == 0 ? &x : NULL, &x, 0, SYM_INT32, SYM_OP_SUM, 0,
                             &o));
        }
    }
}

Test(stress, narrow_products_and_empty_reduce)
{
    run_pes(3, narrow_prod_body, NULL);
}
