/*
 * test_faults.c - dying and missing PEs: the survivors get a clear error
 * quickly, name the culprit, and the job leaves nothing in /dev/shm.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static void sleep_ms(int ms)
{
    struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };
    nanosleep(&ts, NULL);
}

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        pe_fail(__FILE__, __LINE__, "strstr", "message \"%s\" does not mention \"%s\"",
                haystack, needle);
}

/* The last PE is SIGKILLed while every other PE waits in a barrier for it;
 * the survivors must report SYM_ERR_PEER_LOST naming it well within 2 s. */
static void killed_in_barrier_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    PE_OK(sym_barrier_all());
    int victim = n - 1;
    if (me == victim) {
        sleep_ms(100); /* let the others get into the barrier first */
        raise(SIGKILL);
    }
    double t0 = harness_now();
    sym_status_t st = sym_barrier_all();
    double dt = harness_now() - t0;
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "barrier returned %s: %s", sym_status_name(st),
              sym_last_error());
    char want[32];
    snprintf(want, sizeof(want), "PE %d", victim);
    assert_contains(sym_last_error(), want);
    assert_contains(sym_last_error(), "signal 9");
    PE_ASSERT(dt < 2.0, "the loss was reported after %.2f s", dt);
    /* finalize still releases everything and reports the loss */
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
    PE_ASSERT(!sym_initialized(), "still initialized after a failed finalize");
}

ParameterizedTestParameters(faults, killed_in_barrier)
{
    static int counts[] = { 2, 3, 4, 8 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, faults, killed_in_barrier)
{
    struct pe_job job = { .npes = *npes, .body = killed_in_barrier_body, .raw = true };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    int victim = *npes - 1;
    cr_assert_eq(out.term_signal[victim], SIGKILL, "the victim ended with code %d",
                 out.exit_code[victim]);
    for (int pe = 0; pe < victim; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                     out.exit_code[pe]);
    cr_assert_eq(out.job_exit_code, 128 + SIGKILL, "job exit code %d", out.job_exit_code);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}

/* The last PE stays alive but never enters the barrier: everyone else times
 * out (SYMHEAP_TIMEOUT=1) and the message names the PE that never arrived. */
static void never_arrives_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    int victim = n - 1;
    uint64_t *never = sym_calloc(1, sizeof(uint64_t));
    uint64_t *done = sym_calloc(1, sizeof(uint64_t));
    PE_ASSERT(never && done, "sym_calloc: %s", sym_last_error());
    if (me == victim) {
        /* wait for something nobody sends: times out too */
        PE_FAILS_WITH(sym_wait_until_uint64(done, SYM_CMP_EQ, 42), SYM_ERR_TIMEOUT);
        assert_contains(sym_last_error(), "== 42");
    } else {
        double t0 = harness_now();
        sym_status_t st = sym_barrier_all();
        double dt = harness_now() - t0;
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "barrier returned %s: %s", sym_status_name(st),
                  sym_last_error());
        char want[64];
        snprintf(want, sizeof(want), "never entered it: %d", victim);
        assert_contains(sym_last_error(), "sym_barrier_all");
        assert_contains(sym_last_error(), "timed out after 1.0 s");
        assert_contains(sym_last_error(), want);
        PE_ASSERT(dt >= 0.9 && dt < 5.0, "timed out after %.2f s (timeout 1 s)", dt);
    }
    /* The job is out of step now; a PE that left early would turn the
     * others' timeouts into losses: count out first. */
    PE_OK(sym_atomic_inc64(done, 0));
    if (me == 0) {
        PE_OK(sym_wait_until_uint64(done, SYM_CMP_GE, (uint64_t)n));
        for (int pe = 1; pe < n; pe++)
            PE_OK(sym_p64(never, 1, pe)); /* release */
    } else {
        PE_OK(sym_wait_until_uint64(never, SYM_CMP_EQ, 1));
    }
    /* PE 0 releases the others one by one: a released PE that exited
     * unfinalized would be a loss to those not yet released, so finalize
     * first.  Its barrier fails at once where the timeout is sticky; the
     * victim's first barrier finds the arrivals the others left in the
     * barrier they gave up on, and passes. */
    if (me == victim)
        PE_OK(sym_finalize());
    else
        PE_FAILS_WITH(sym_finalize(), SYM_ERR_TIMEOUT);
    _exit(0);
}

ParameterizedTestParameters(faults, never_arrives)
{
    static int counts[] = { 2, 3, 4, 8 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, faults, never_arrives)
{
    static const char *const env[] = { "SYMHEAP_TIMEOUT=1", NULL };
    struct pe_job job = { .npes = *npes, .body = never_arrives_body, .raw = true, .env = env };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    for (int pe = 0; pe < *npes; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "PE %d failed (code %d)", pe, out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}

/* A PE calls sym_global_exit(7): the others' waits fail with SYM_ERR_ABORTED
 * naming it, and the job's exit code is 7. */
static void global_exit_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    PE_OK(sym_barrier_all());
    if (me == n - 1) {
        sleep_ms(50);
        sym_global_exit(7);
    }
    sym_status_t st = sym_barrier_all();
    PE_ASSERT(st == SYM_ERR_ABORTED, "barrier returned %s: %s", sym_status_name(st),
              sym_last_error());
    char want[48];
    snprintf(want, sizeof(want), "PE %d aborted the job with status 7", n - 1);
    assert_contains(sym_last_error(), want);
    _exit(0);
}

Test(faults, global_exit)
{
    struct pe_job job = { .npes = 3, .body = global_exit_body, .raw = true };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.exit_code[2], 7, "the exiting PE ended with %d", out.exit_code[2]);
    cr_assert_eq(out.exit_code[0], 0, "PE 0 failed (code %d)", out.exit_code[0]);
    cr_assert_eq(out.exit_code[1], 0, "PE 1 failed (code %d)", out.exit_code[1]);
    cr_assert_eq(out.job_exit_code, 7);
    cr_assert_eq(out.leftover_objects, 0);
}

/* A PE that returns from main without sym_finalize is lost too. */
static void exit_without_finalize_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    if (me == n - 1)
        _exit(0);
    sym_status_t st = sym_barrier_all();
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "barrier returned %s: %s", sym_status_name(st),
              sym_last_error());
    assert_contains(sym_last_error(), "without finalizing");
    _exit(0);
}

Test(faults, exit_without_finalize)
{
    struct pe_job job = { .npes = 2, .body = exit_without_finalize_body, .raw = true };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.exit_code[0], 0, "PE 0 failed (code %d)", out.exit_code[0]);
    cr_assert_eq(out.leftover_objects, 0);
}

/* A PE dies before sym_init: the others' init fails with SYM_ERR_PEER_LOST
 * instead of waiting for the timeout. */
static void dies_before_init_body(int me, int n, void *arg)
{
    (void)arg;
    if (me == n - 1)
        raise(SIGKILL);
    double t0 = harness_now();
    sym_status_t st = sym_init();
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "sym_init returned %s: %s", sym_status_name(st),
              sym_last_error());
    PE_ASSERT(harness_now() - t0 < 2.0, "init took %.2f s to notice", harness_now() - t0);
    PE_ASSERT(!sym_initialized(), "initialized after a failed init");
    _exit(0);
}

Test(faults, dies_before_init)
{
    struct pe_job job = { .npes = 4, .body = dies_before_init_body, .raw = true };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    for (int pe = 0; pe < 3; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "PE %d failed (code %d)", pe, out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}
