/*
 * symrun - start a symheap job of N PEs on this host.
 *
 *   symrun -n N [--tag-output] [--timeout S] [--grace S] [--transport T] [--]
 *          prog [args...]
 *
 * A prog without a '/' is found in PATH, else in the current directory.
 *
 * A thin command line over sym_launch_run() (launch/launcher.h): all the
 * supervision lives there, so the test harness exercises the same code.
 * Before starting, it removes this user's /dev/shm objects of dead jobs
 * that older symheap versions named there (sym_launch_sweep_stale; this
 * version's segments are memfds).
 * Options are parsed by hand because "-np" (the mpirun spelling) is not
 * something getopt can express.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "launch/job.h"
#include "launch/launcher.h"
#include "tools/symrun_args.h"

#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Whether `name` (no '/') is an executable file in a directory of PATH. */
static bool in_path(const char *name)
{
    const char *path = getenv("PATH");
    if (!path)
        path = "/usr/local/bin:/usr/bin:/bin";
    char file[PATH_MAX];
    for (const char *dir = path;; dir++) {
        size_t n = strcspn(dir, ":");
        /* an empty entry is the current directory, as for execvp */
        if (snprintf(file, sizeof(file), "%.*s/%s", n ? (int)n : 1, n ? dir : ".", name) <
                (int)sizeof(file) &&
            access(file, X_OK) == 0)
            return true;
        dir += n;
        if (!*dir)
            return false;
    }
}

/* A program named without a '/' runs from PATH as execvp finds it, else,
 * as mpirun does, from the current directory: "symrun -n 2 prog". */
static void find_program(char **argv, char *buf, size_t len)
{
    if (strchr(argv[0], '/') || in_path(argv[0]) || access(argv[0], X_OK) != 0)
        return;
    if (snprintf(buf, len, "./%s", argv[0]) < (int)len)
        argv[0] = buf;
}

int main(int argc, char **argv)
{
    struct cli cli = {.grace_s = -1};
    int rc = symrun_parse_args(argc, argv, &cli);
    if (rc >= 0)
        return rc;
    char program[PATH_MAX];
    find_program(cli.argv, program, sizeof(program));

    struct sym_launch_opts opts = {
        .npes = cli.npes,
        .argv = cli.argv,
        .job_timeout_s = cli.timeout_s,
        .tag_output = cli.tag_output,
    };
    /* The library reads 0 as "use the default", the command line as "at
     * once": hand it the shortest positive delay instead. */
    if (cli.grace_s >= 0)
        opts.grace_s = cli.grace_s > 0 ? cli.grace_s : 1e-9;
    char transport_env[64];
    const char *env[2] = {NULL, NULL};
    if (cli.transport) {
        snprintf(transport_env, sizeof(transport_env), "SYMHEAP_TRANSPORT=%s", cli.transport);
        env[0] = transport_env;
        opts.env = env;
    }

    /* Objects of jobs whose launcher was killed before its PEs could
     * unlink them: nobody else would ever remove them. */
    sym_launch_sweep_stale(false, NULL);

    struct sym_launch_result result;
    if (sym_launch_run(&opts, &result) != 0)
        return EXIT_LAUNCH_FAILED;
    rc = result.exit_code;
    sym_launch_result_free(&result);
    return rc;
}
