/*
 * test_symrun_failures.c - symrun jobs whose PEs fail: the exit status of
 * PEs that exit with an error, are killed, hang or outlive the grace
 * period; --timeout; SIGTERM/SIGINT sent to symrun reaching every PE.  No
 * process of the job is left in any case.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "symrun_run.h"

ParameterizedTestParameters(symrun, pe_exit_status)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

/* One PE exits 3 without finalizing: symrun exits 3 and names it; the
 * others learn of it in their barrier and end by themselves. */
ParameterizedTest(int *npes, symrun, pe_exit_status)
{
    int victim = *npes / 2;
    char n[16], v[16];
    snprintf(n, sizeof(n), "%d", *npes);
    snprintf(v, sizeof(v), "%d", victim);
    const char *args[] = {"--grace", "20", "-n", n, "@PE", "exit", v, "3", NULL};
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 3);
    char want[64];
    snprintf(want, sizeof(want), "symrun: PE %d (pid ", victim);
    assert_contains("stderr", ERR(&r), want);
    assert_contains("stderr", ERR(&r), ") exited with status 3");
    assert_survivors_saw_loss(&r, *npes, victim);
    cr_assert(elapsed(&r) < QUICK_S, "the job took %.2f s", elapsed(&r));
    run_free(&r);
}

ParameterizedTestParameters(symrun, pe_killed)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

/* One PE is SIGKILLed: symrun exits 128 + 9 and says so; the survivors,
 * waiting in a barrier, get SYM_ERR_PEER_LOST and exit on their own long
 * before the grace period would have them killed. */
ParameterizedTest(int *npes, symrun, pe_killed)
{
    int victim = *npes - 1;
    char n[16], v[16];
    snprintf(n, sizeof(n), "%d", *npes);
    snprintf(v, sizeof(v), "%d", victim);
    const char *args[] = {"--grace", "20", "-n", n, "@PE", "die", v, NULL};
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 137);
    char want[96];
    snprintf(want, sizeof(want), "symrun: PE %d (pid ", victim);
    assert_contains("stderr", ERR(&r), want);
    assert_contains("stderr", ERR(&r), ") killed by signal 9");
    cr_assert(strstr(ERR(&r), "grace period") == NULL, "survivors were killed:\n%s",
              tail_of(ERR(&r)));
    assert_survivors_saw_loss(&r, *npes, victim);
    cr_assert(elapsed(&r) < QUICK_S, "the job took %.2f s (grace period 20 s)", elapsed(&r));
    run_free(&r);
}

ParameterizedTestParameters(symrun, grace_period)
{
    static int counts[] = {2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

/* After a death, survivors that never notice it (they wait outside the
 * library) are killed once the grace period is over, and the job still
 * reports the first failure. */
ParameterizedTest(int *npes, symrun, grace_period)
{
    int victim = 0;
    char n[16];
    snprintf(n, sizeof(n), "%d", *npes);
    const char *args[] = {"--grace", "1", "-n", n, "@PE", "die-hang", "0", NULL};
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 137);
    char want[96];
    snprintf(want, sizeof(want), "symrun: PE %d (pid ", victim);
    assert_contains("stderr", ERR(&r), want);
    snprintf(want, sizeof(want), "killing %d PE(s) still running after the grace period",
             *npes - 1);
    assert_contains("stderr", ERR(&r), want);
    struct pid_list pids = pids_of(&r);
    cr_assert_eq(pids.n, *npes - 1, "%d survivors printed their pid\nstdout:\n%s", pids.n,
                 tail_of(OUT(&r)));
    assert_pids_gone(&pids);
    cr_assert(elapsed(&r) >= 1.0 && elapsed(&r) < 1.0 + QUICK_S,
              "the job took %.2f s with a 1 s grace period", elapsed(&r));
    run_free(&r);
}

/* A PE that hangs after the others finished: --timeout ends the job with
 * 124 shortly after the limit and the PE is gone, whether it dies of the
 * SIGTERM ("hang") or ignores it and must be killed ("hang-hard"). */
struct hang_case {
    const char *mode;
    int npes;
};

static const struct hang_case hang_cases[] = {
    {"hang", 1},
    {"hang", 3},
    {"hang-hard", 1},
    {"hang-hard", 4},
};

ParameterizedTestParameters(symrun, timeout)
{
    static int idx[] = {0, 1, 2, 3};
    return cr_make_param_array(int, idx, sizeof(idx) / sizeof(idx[0]));
}

ParameterizedTest(int *which, symrun, timeout)
{
    const struct hang_case *c = &hang_cases[*which];
    char n[16], v[16];
    snprintf(n, sizeof(n), "%d", c->npes);
    snprintf(v, sizeof(v), "%d", c->npes - 1);
    /* the limit leaves the PEs time to start: scaled for slow builds */
    char limit[32], want[64];
    snprintf(limit, sizeof(limit), "%g", harness_seconds(2.0));
    snprintf(want, sizeof(want), "symrun: job timed out after %s s", limit);
    const char *args[] = {"--timeout", limit, "-n", n, "@PE", c->mode, v, NULL};
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 124);
    assert_contains("stderr", ERR(&r), want);
    struct pid_list pids = pids_of(&r);
    cr_assert_eq(pids.n, 1, "%d PEs printed a pid\nstdout:\n%s", pids.n, tail_of(OUT(&r)));
    assert_pids_gone(&pids);
    cr_assert(elapsed(&r) >= harness_seconds(2.0) && elapsed(&r) < harness_seconds(2.0) + QUICK_S,
              "the job took %.2f s with --timeout %s", elapsed(&r), limit);
    run_free(&r);
}

/* SIGTERM or SIGINT sent to symrun reaches every PE; symrun exits 128 +
 * the signal, promptly, and no PE is left.  PEs that ignore the signal
 * ("hard") are killed once the grace period (1 s) is over. */
struct signal_case {
    int sig;
    int npes;
    bool hard;
};

static const struct signal_case signal_cases[] = {
    {SIGTERM, 1, false}, {SIGTERM, 4, false}, {SIGTERM, 8, false},
    {SIGINT, 3, false},  {SIGTERM, 3, true},  {SIGINT, 2, true},
};

ParameterizedTestParameters(symrun, forwards_signal)
{
    static int idx[] = {0, 1, 2, 3, 4, 5};
    return cr_make_param_array(int, idx, sizeof(idx) / sizeof(idx[0]));
}

ParameterizedTest(int *which, symrun, forwards_signal)
{
    const struct signal_case *c = &signal_cases[*which];
    char n[16];
    snprintf(n, sizeof(n), "%d", c->npes);
    /* Without forwarding, only the grace period would end the others. */
    const char *args[] = {"--grace", c->hard ? "1" : "20",
                          "-n",      n,
                          "@PE",     c->hard ? "wait-signal-hard" : "wait-signal",
                          NULL};
    struct run r;
    run_start(&r, args, NULL);
    /* Every PE is initialised and waiting once it printed its pid. */
    enum pump_end end = run_pump(&r, all_pids_printed, &c->npes);
    if (end != PUMP_UNTIL) {
        run_kill(&r);
        cr_assert_fail("the PEs did not all start (%d)\nstdout:\n%s\nstderr:\n%s", (int)end,
                       tail_of(OUT(&r) ? OUT(&r) : ""), tail_of(ERR(&r) ? ERR(&r) : ""));
    }
    double sent = harness_now();
    kill(r.pid, c->sig);
    run_finish(&r);
    assert_exit(&r, 128 + c->sig);
    struct pid_list pids = pids_of(&r);
    cr_assert_eq(pids.n, c->npes, "%d pid lines from %d PEs\nstdout:\n%s\nstderr:\n%s", pids.n,
                 c->npes, tail_of(OUT(&r) ? OUT(&r) : ""), tail_of(ERR(&r) ? ERR(&r) : ""));
    assert_pids_gone(&pids);
    double took = r.exited_at - sent;
    if (c->hard)
        cr_assert(took >= 1.0 && took < 1.0 + QUICK_S,
                  "symrun took %.2f s to end after signal %d (grace period 1 s)", took, c->sig);
    else
        cr_assert(took < harness_seconds(3.0), "symrun took %.2f s to end after signal %d", took,
                  c->sig);
    run_free(&r);
}

/* A program that checks nothing (the README's first program as newcomers
 * write it), run with a malformed variable: every PE's failed sym_init is
 * on stderr, naming the variable, not only symrun's exit status of the
 * later failed finalize; SYMHEAP_QUIET=1 keeps it quiet. */
Test(symrun, ignored_init_error_is_printed)
{
    const char *args[] = {"-n", "2", "@PE", "ignore-errors", NULL};
    static const char *const bad[] = {"SYMHEAP_HEAP_SIZE=12Q", NULL};
    const char *says = "sym_init failed: environment variable SYMHEAP_HEAP_SIZE='12Q' is not valid";
    struct run r;
    run_start(&r, args, bad);
    run_finish(&r);
    assert_exit(&r, 256 + SYM_ERR_NOT_INITIALIZED); /* sym_finalize's status */
    cr_assert_eq(count_occurrences(ERR(&r), says), 2, "stderr:\n%s", ERR(&r));
    run_free(&r);

    static const char *const quiet[] = {"SYMHEAP_HEAP_SIZE=12Q", "SYMHEAP_QUIET=1", NULL};
    run_start(&r, args, quiet);
    run_finish(&r);
    assert_exit(&r, 256 + SYM_ERR_NOT_INITIALIZED);
    cr_assert(!strstr(ERR(&r), "SYMHEAP_HEAP_SIZE"), "SYMHEAP_QUIET=1, yet:\n%s", ERR(&r));
    run_free(&r);
}

/* A misspelt variable is warned of once per job (by PE 0), with the name
 * it was meant to be; SYMHEAP_QUIET=1 keeps it quiet. */
Test(symrun, misspelt_variable_warned_once)
{
    const char *args[] = {"-n", "3", "@PE", "ring", NULL};
    static const char *const typo[] = {"SYMHEAP_TIMOUT=5", NULL};
    struct run r;
    run_job(&r, args, typo);
    assert_exit(&r, 0);
    cr_assert_eq(count_occurrences(ERR(&r), "SYMHEAP_TIMOUT is not a symheap variable, did you "
                                            "mean SYMHEAP_TIMEOUT?"),
                 1, "stderr:\n%s", ERR(&r));
    run_free(&r);

    static const char *const quiet[] = {"SYMHEAP_TIMOUT=5", "SYMHEAP_QUIET=1", NULL};
    run_job(&r, args, quiet);
    assert_exit(&r, 0);
    cr_assert(!strstr(ERR(&r), "SYMHEAP_TIMOUT"), "SYMHEAP_QUIET=1, yet:\n%s", ERR(&r));
    run_free(&r);
}

/* A transport's own variables are symheap's (whether or not this symheap
 * has the transport): sym_init warns of none of them, only of a misspelt
 * one, with the transport's name it was meant to be. */
Test(symrun, transport_variables_are_known)
{
    const char *args[] = {"-n", "2", "@PE", "ring", NULL};
    static const char *const env[] = {
        "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm", "SYMHEAP_OFI_EAGER_CONNECT=0",
        "SYMHEAP_WAIT_POLL_US=50",          "SYMHEAP_OFI_IGNORE_ORDER=0",
        "SYMHEAP_OFI_PROVDER=tcp",          NULL};
    struct run r;
    run_job(&r, args, env);
    assert_exit(&r, 0);
    cr_assert_eq(count_occurrences(ERR(&r), "is not a symheap variable"), 1, "stderr:\n%s",
                 ERR(&r));
    cr_assert_eq(count_occurrences(ERR(&r), "SYMHEAP_OFI_PROVDER is not a symheap variable, did "
                                            "you mean SYMHEAP_OFI_PROVIDER?"),
                 1, "stderr:\n%s", ERR(&r));
    run_free(&r);
}

/* A PE that ends badly after an error its program never read: symrun
 * prints that error; once the program read it (sym_last_error), not. */
Test(symrun, unread_error_is_printed)
{
    for (int read = 0; read < 2; read++) {
        const char *args[] = {"--grace",        "20", "-n", "2", "@PE", "unread", "1",
                              read ? "1" : "0", NULL};
        struct run r;
        run_job(&r, args, NULL);
        assert_exit(&r, 3);
        const char *says = "symrun: PE 1's first symheap error, which it never read: "
                           "SYM_ERR_INVALID_PE: sym_put: PE 99";
        if (read) {
            cr_assert(!strstr(ERR(&r), says), "printed although read:\n%s", ERR(&r));
            assert_contains("stderr", ERR(&r), "pe 1 read: sym_put: PE 99");
        } else {
            cr_assert_eq(count_occurrences(ERR(&r), says), 1, "stderr:\n%s", ERR(&r));
        }
        assert_survivors_saw_loss(&r, 2, 1);
        run_free(&r);
    }
}
