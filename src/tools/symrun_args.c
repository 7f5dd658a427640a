/* symrun_args.c - symrun's command line (symrun_args.h). */
#include "tools/symrun_args.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch/job.h"
#include "symheap/version.h"

static void usage(FILE *to)
{
    fprintf(to,
            "Usage: symrun -n N [options] [--] program [args...]\n"
            "\n"
            "Start N processing elements (PEs) of a symheap job on this host, each\n"
            "running program with args, and supervise them until all have exited.\n"
            "A program name without a '/' is looked up in PATH, then in the current\n"
            "directory (as mpirun does).\n"
            "\n"
            "Options:\n"
            "  -n, -np, --npes N  number of PEs to start (1..%d); also -nN, -npN, --npes=N\n"
            "  --tag-output       prefix every output line with \"[pe] \"\n"
            "  --timeout S        end the job after S seconds (default 0: no limit)\n"
            "  --grace S          once a PE has failed, kill the remaining PEs after\n"
            "                     S seconds (default 5; 0: at once)\n"
            "  --transport T      how PEs reach each other: ofi (libfabric, even on\n"
            "                     this host), shm or auto; sets SYMHEAP_TRANSPORT\n"
            "  -h, --help         show this help and exit\n"
            "  --version          show the version and exit\n"
            "\n"
            "Exit status: 0 if every PE succeeded, else the first failing PE's status\n"
            "(128+N if it was killed by signal N), 124 if the job timed out, %d for a\n"
            "usage error, %d if the job could not be started.\n",
            SYM_JOB_MAX_PES, EXIT_USAGE, EXIT_LAUNCH_FAILED);
}

__attribute__((format(printf, 1, 2))) static int usage_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("symrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputs("\nTry 'symrun --help' for more information.\n", stderr);
    va_end(ap);
    return EXIT_USAGE;
}

/* Option names in messages without any "=value" they were given with. */
static int opt_len(const char *opt)
{
    return (int)strcspn(opt, "=");
}

static int parse_npes(const char *opt, const char *text, int *out)
{
    char *end = (char *)text;
    errno = 0;
    long v = text[0] >= '0' && text[0] <= '9' ? strtol(text, &end, 10) : 0;
    if (v < 1 || *end != '\0')
        return usage_error("%.*s needs a positive number, got '%s'", opt_len(opt), opt, text);
    if (errno == ERANGE || v > SYM_JOB_MAX_PES)
        return usage_error("%.*s must be at most %d, got '%s'", opt_len(opt), opt, SYM_JOB_MAX_PES,
                           text);
    *out = (int)v;
    return 0;
}

static int parse_seconds(const char *opt, const char *text, double *out)
{
    char *end = (char *)text;
    double v = text[0] >= '0' && text[0] <= '9' ? strtod(text, &end) : -1;
    /* The upper bound also turns away "inf" spelled as digits (1e999). */
    if (!(v >= 0 && v <= 1e9) || *end != '\0')
        return usage_error("%.*s needs a number of seconds from 0 to 1e9, got '%s'", opt_len(opt),
                           opt, text);
    *out = v;
    return 0;
}

/* Matches `arg` against an option taking a value, given as "NAME VALUE",
 * when `long_form` also "NAME=VALUE", else also "NAMEdigits" ("-n4", as
 * mpirun takes it).  Returns 1 and sets *value (NULL if the value is
 * missing) on a match, 0 otherwise. */
static int option_value(int argc, char **argv, int *i, const char *name, bool long_form,
                        const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);

    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '\0') {
        *value = *i + 1 < argc ? argv[++*i] : NULL;
        return 1;
    }
    if (long_form && arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (!long_form && arg[len] >= '0' && arg[len] <= '9') {
        *value = arg + len;
        return 1;
    }
    return 0;
}

int symrun_parse_args(int argc, char **argv, struct cli *cli)
{
    int i = 1;

    for (; i < argc && argv[i][0] == '-'; i++) {
        const char *arg = argv[i];
        const char *value;
        int rc = 0;

        if (strcmp(arg, "--") == 0) {
            i++;
            break;
        } else if (strcmp(arg, "-h") == 0 || strcmp(arg, "--help") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(arg, "--version") == 0) {
            printf("symrun (symheap) %s\n", SYM_VERSION_STRING);
            return 0;
        } else if (strcmp(arg, "--tag-output") == 0) {
            cli->tag_output = true;
            continue;
        } else if (option_value(argc, argv, &i, "-n", false, &value) ||
                   option_value(argc, argv, &i, "-np", false, &value) ||
                   option_value(argc, argv, &i, "--npes", true, &value)) {
            /* the option's name alone in messages, also for "-n4x" */
            const char *name = arg[1] == '-' ? "--npes" : arg[2] == 'p' ? "-np" : "-n";
            rc = value ? parse_npes(name, value, &cli->npes) : usage_error("%s needs a value", arg);
        } else if (option_value(argc, argv, &i, "--timeout", true, &value)) {
            rc = value ? parse_seconds(arg, value, &cli->timeout_s)
                       : usage_error("%s needs a value", arg);
        } else if (option_value(argc, argv, &i, "--transport", true, &value)) {
            if (!value)
                rc = usage_error("%s needs a value", arg);
            else if (strcmp(value, "ofi") && strcmp(value, "shm") && strcmp(value, "auto"))
                rc = usage_error("%.*s must be ofi, shm or auto, got '%s'", opt_len(arg), arg,
                                 value);
            else
                cli->transport = value;
        } else if (option_value(argc, argv, &i, "--grace", true, &value)) {
            rc = value ? parse_seconds(arg, value, &cli->grace_s)
                       : usage_error("%s needs a value", arg);
        } else {
            rc = usage_error("unknown option '%s'", arg);
        }
        if (rc != 0)
            return rc;
    }
    if (cli->npes == 0)
        return usage_error("missing -n N, the number of PEs to start");
    if (i >= argc)
        return usage_error("missing program to run");
    cli->argv = argv + i;
    return -1;
}
