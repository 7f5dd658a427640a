/*
 * test_symrun_cli.c - the symrun command line: usage errors (exit 2, one
 * message naming the problem, no PE started), --help and --version, and a
 * program that cannot be executed.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "symrun_run.h"

struct usage_case {
    const char *args[8];
    const char *message;
};

static const struct usage_case usage_cases[] = {
    {{NULL}, "missing -n N, the number of PEs to start"},
    {{"-n", "0", "@PE", "ring", NULL}, "-n needs a positive number, got '0'"},
    {{"-n", "abc", "@PE", "ring", NULL}, "-n needs a positive number, got 'abc'"},
    {{"-n", "-3", "@PE", "ring", NULL}, "-n needs a positive number, got '-3'"},
    {{"-n", "2x", "@PE", "ring", NULL}, "-n needs a positive number, got '2x'"},
    {{"-n", "5000", "@PE", "ring", NULL}, "-n must be at most 4096, got '5000'"},
    {{"-np", "99999999999999999999", "@PE", "ring", NULL}, "-np must be at most 4096"},
    {{"-n", "2", NULL}, "missing program to run"},
    {{"-n", "2", "--", NULL}, "missing program to run"},
    {{"@PE", "ring", NULL}, "missing -n N"},
    {{"--bogus", "-n", "2", "@PE", "ring", NULL}, "unknown option '--bogus'"},
    {{"-n", "2", "-x", "@PE", "ring", NULL}, "unknown option '-x'"},
    {{"-n", NULL}, "-n needs a value"},
    {{"-n", "2", "--timeout", "soon", "@PE", "ring", NULL},
     "--timeout needs a number of seconds from 0 to 1e9, got 'soon'"},
    {{"-n", "2", "--grace=-1", "@PE", "ring", NULL},
     "--grace needs a number of seconds from 0 to 1e9, got '-1'"},
    {{"-n", "2", "--transport", "carrier", "@PE", "ring", NULL},
     "--transport must be ofi, shm or auto, got 'carrier'"},
    {{"-n", "2", "--transport", NULL}, "--transport needs a value"},
};
#define N_USAGE_CASES ((int)(sizeof(usage_cases) / sizeof(usage_cases[0])))

ParameterizedTestParameters(symrun, usage_error)
{
    static int idx[N_USAGE_CASES];
    for (int i = 0; i < N_USAGE_CASES; i++)
        idx[i] = i;
    return cr_make_param_array(int, idx, N_USAGE_CASES);
}

/* Exit 2, one message naming the problem and pointing at --help, and no PE
 * started (nothing on stdout: PE 0 would have printed the key). */
ParameterizedTest(int *which, symrun, usage_error)
{
    const struct usage_case *c = &usage_cases[*which];
    struct run r;
    run_start(&r, c->args, NULL);
    run_finish(&r);
    assert_exit(&r, 2);
    cr_assert_str_empty(OUT(&r), "case %d printed on stdout:\n%s", *which, OUT(&r));
    assert_contains("stderr", ERR(&r), c->message);
    cr_assert(strncmp(ERR(&r), "symrun: ", 8) == 0, "message without the program name: %s",
              ERR(&r));
    assert_contains("stderr", ERR(&r), "Try 'symrun --help'");
    run_free(&r);
}

static void check_help(const char *opt)
{
    const char *args[] = {opt, NULL};
    struct run r;
    run_start(&r, args, NULL);
    run_finish(&r);
    assert_exit(&r, 0);
    cr_assert_str_empty(ERR(&r), "%s wrote on stderr:\n%s", opt, ERR(&r));
    cr_assert(strncmp(OUT(&r), "Usage: symrun -n N", 18) == 0, "%s printed:\n%s", opt, OUT(&r));
    static const char *const mentions[] = {"-np",     "--npes",    "--tag-output", "--timeout",
                                           "--grace", "--version", "124",          NULL};
    for (int i = 0; mentions[i]; i++)
        assert_contains("the usage text", OUT(&r), mentions[i]);
    run_free(&r);
}

Test(symrun, help)
{
    check_help("--help");
    check_help("-h");
}

/* --help wins over the rest of the command line, even broken parts after it. */
Test(symrun, help_stops_parsing)
{
    const char *args[] = {"--help", "-n", "0", NULL};
    struct run r;
    run_start(&r, args, NULL);
    run_finish(&r);
    assert_exit(&r, 0);
    cr_assert(strncmp(OUT(&r), "Usage: symrun", 13) == 0, "stdout:\n%s", OUT(&r));
    run_free(&r);
}

/* The command reports the version of the library it belongs to. */
Test(symrun, version)
{
    const char *args[] = {"--version", NULL};
    struct run r;
    run_start(&r, args, NULL);
    run_finish(&r);
    assert_exit(&r, 0);
    char want[64];
    snprintf(want, sizeof(want), "symrun (symheap) %d.%d.%d\n", SYMHEAP_VERSION_MAJOR,
             SYMHEAP_VERSION_MINOR, SYMHEAP_VERSION_PATCH);
    cr_assert_str_eq(OUT(&r), want);
    cr_assert_str_empty(ERR(&r));
    run_free(&r);
}

/* A program that cannot be executed: one message (not one per PE) and the
 * shell's 127. */
Test(symrun, program_not_found)
{
    const char *args[] = {"-n", "3", "/nonexistent/symrun-test-program", NULL};
    struct run r;
    run_start(&r, args, NULL);
    run_finish(&r);
    assert_exit(&r, 127);
    cr_assert_eq(count_occurrences(ERR(&r), "cannot execute '/nonexistent/symrun-test-program'"), 1,
                 "stderr:\n%s", ERR(&r));
    cr_assert_str_empty(OUT(&r));
    run_free(&r);
}
