/*
 * test_symrun_cli.c - the symrun command line: usage errors (exit 2, one
 * message naming the problem, no PE started), --help and --version, -n2,
 * a program of the current directory, and a program that cannot be
 * executed; --version, --help and --showme of the other tools.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

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

/* The number of PEs glued to the option, as mpirun takes it: -n2, -np2. */
Test(symrun, npes_glued)
{
    static const char *const forms[] = {"-n2", "-np2"};
    for (int f = 0; f < 2; f++) {
        const char *args[] = {forms[f], "@PE", "ring", NULL};
        struct run r;
        run_job(&r, args, NULL);
        assert_exit(&r, 0);
        assert_contains("stdout", OUT(&r), "pe 0 of 2 ok");
        assert_contains("stdout", OUT(&r), "pe 1 of 2 ok");
        run_free(&r);
    }
}

/* "symrun -n 2 prog" with prog in the current directory and not in PATH
 * runs it, as mpirun does (a shell would not). */
Test(symrun, program_in_current_directory)
{
    char dir[PATH_MAX];
    snprintf(dir, sizeof(dir), "%s", getenv("SYMRUN_PE") ? getenv("SYMRUN_PE") : "");
    char *slash = strrchr(dir, '/');
    cr_assert(slash, "SYMRUN_PE is not a path: '%s'", dir);
    *slash = '\0';
    cr_assert(chdir(dir) == 0, "chdir %s: %s", dir, strerror(errno));
    const char *args[] = {"-n", "2", slash + 1, "ring", NULL};
    static const char *const env[] = {"PATH=/usr/bin:/bin", NULL};
    struct run r;
    run_job(&r, args, env);
    assert_exit(&r, 0);
    assert_contains("stdout", OUT(&r), "pe 1 of 2 ok");
    run_free(&r);
}

/* ---- symcc and symheap-info, next to symrun in the build tree ------------ */

/* Runs "<tool next to symrun> <args>" through the shell, stderr into the
 * output; returns its exit status (-1: not an exit). */
static int run_tool(const char *tool, const char *args, char *out, size_t len)
{
    const char *symrun = getenv("SYMRUN");
    cr_assert(symrun && strrchr(symrun, '/'), "SYMRUN is not set to symrun's path");
    char cmd[PATH_MAX + 256];
    snprintf(cmd, sizeof(cmd), "'%.*s/%s' %s 2>&1", (int)(strrchr(symrun, '/') - symrun), symrun,
             tool, args);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "popen %s: %s", cmd, strerror(errno));
    size_t n = fread(out, 1, len - 1, p);
    out[n] = '\0';
    int ws = pclose(p);
    return WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
}

/* Every tool answers --version with its name and symheap's version on the
 * first line, and --help with its usage, both exit 0. */
Test(tools, version_and_help)
{
    static const char *const tools[] = {"symrun", "symcc", "symheap-info"};
    static char out[8192];
    for (int t = 0; t < 3; t++) {
        char want[96];
        snprintf(want, sizeof(want), "%s (symheap) %s\n", tools[t], SYM_VERSION_STRING);
        cr_expect(run_tool(tools[t], "--version", out, sizeof(out)) == 0, "%s --version: %s",
                  tools[t], out);
        cr_expect(strncmp(out, want, strlen(want)) == 0, "%s --version printed:\n%s", tools[t],
                  out);
        cr_expect(run_tool(tools[t], "--help", out, sizeof(out)) == 0, "%s --help: %s", tools[t],
                  out);
        cr_expect(strncmp(out, "Usage: ", 7) == 0, "%s --help printed:\n%s", tools[t], out);
    }
}

/* symcc --showme prints the command it would run, as mpicc does, and
 * --showme:compile / --showme:link the flags of each step. */
Test(tools, symcc_showme)
{
    static char out[8192];
    cr_assert(run_tool("symcc", "--showme -O2 prog.c", out, sizeof(out)) == 0, "%s", out);
    static const char *const all[] = {"-I", "-O2 ", "prog.c", "-lsymheap", "-Wl,-rpath,", NULL};
    for (int i = 0; all[i]; i++)
        cr_expect(strstr(out, all[i]), "--showme lacks '%s':\n%s", all[i], out);
    cr_assert(run_tool("symcc", "--showme -c prog.c", out, sizeof(out)) == 0, "%s", out);
    cr_expect(!strstr(out, "-lsymheap"), "--showme -c links:\n%s", out);
    cr_assert(run_tool("symcc", "--showme:compile", out, sizeof(out)) == 0, "%s", out);
    cr_expect(strstr(out, "-I") && !strstr(out, "-lsymheap"), "--showme:compile:\n%s", out);
    cr_assert(run_tool("symcc", "--showme:link", out, sizeof(out)) == 0, "%s", out);
    cr_expect(strstr(out, "-lsymheap") && strstr(out, "-Wl,-rpath,"), "--showme:link:\n%s", out);
    cr_expect(run_tool("symcc", "--showme:bogus", out, sizeof(out)) == 2, "%s", out);
}
