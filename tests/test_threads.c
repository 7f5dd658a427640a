/* test_threads.c - SYM_THREAD_MULTIPLE: several threads of every PE put,
 * get, run atomics, signal and wait at once; every byte and every counter
 * is checked against its exact expected value.  At 2 and 4 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "harness.h"
#include "threads_workload.h"

/* The harness calls sym_init(); this job asks for the level itself. */
static void multiple_body(int me, int n, void *arg)
{
    int provided = -1;
    PE_ASSERT(sym_thread_level() == -1, "thread level before init");
    PE_FAILS_WITH(sym_init_thread(4, &provided), SYM_ERR_INVALID_ARG);
    PE_OK(sym_init_thread(SYM_THREAD_MULTIPLE, &provided));
    PE_ASSERT(provided == SYM_THREAD_MULTIPLE, "provided %d", provided);
    threads_body(me, n, arg);
    PE_OK(sym_finalize());
    PE_ASSERT(sym_thread_level() == -1, "thread level after finalize");
}

ParameterizedTestParameters(threads, multiple)
{
    static int counts[] = { 2, 4 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, threads, multiple, .timeout = 300)
{
    struct pe_job job = { .npes = *npes, .body = multiple_body, .raw = true,
                          .job_timeout_s = 240 };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
