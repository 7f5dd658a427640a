/*
 * fuzz_symrun_args.c - libFuzzer target for symrun's command line
 * (src/tools/symrun_args.c).
 *
 * The input is split at NUL bytes into arguments after "symrun".  Parsing
 * must end in an exit status (0 or the usage error) or in a complete
 * command: 1..SYM_JOB_MAX_PES PEs, times in range, and the program inside
 * argv.  Run with -close_fd_mask=3: usage messages are expected.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "launch/job.h"
#include "tools/symrun_args.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_ARGS 32

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *argv[MAX_ARGS + 2] = {"symrun"};
    int argc = 1;
    for (char *p = copy; argc <= MAX_ARGS && p <= copy + size; p += strlen(p) + 1)
        argv[argc++] = p;
    argv[argc] = NULL;

    struct cli cli = {.grace_s = -1};
    int rc = symrun_parse_args(argc, argv, &cli);
    if (rc == -1) {
        if (cli.npes < 1 || cli.npes > SYM_JOB_MAX_PES)
            abort();
        if (!(cli.timeout_s >= 0 && cli.timeout_s <= 1e9))
            abort();
        if (cli.grace_s != -1 && !(cli.grace_s >= 0 && cli.grace_s <= 1e9))
            abort();
        if (cli.argv < argv + 1 || cli.argv >= argv + argc || !cli.argv[0])
            abort(); /* the program is one of the arguments */
    } else if (rc != 0 && rc != EXIT_USAGE) {
        abort();
    }
    free(copy);
    return 0;
}
