/*
 * symrun_args.h - symrun's command line, parsed without side effects other
 * than messages, so it can be fuzzed (fuzz/fuzz_symrun_args.c).
 */
#ifndef SYMRUN_ARGS_H
#define SYMRUN_ARGS_H

#include <stdbool.h>

/* Distinct from usage errors (2) and from the statuses a shell gives to
 * programs that cannot be run (126, 127), like timeout(1) and env(1). */
#define EXIT_USAGE         2
#define EXIT_LAUNCH_FAILED 125

struct cli {
    int npes; /* 0: not given */
    bool tag_output;
    double timeout_s;
    double grace_s;        /* < 0: not given */
    const char *transport; /* NULL: not given */
    char **argv;           /* the program and its arguments */
};

/* Parse argv into *cli (which the caller initialises, grace_s = -1).
 * Returns -1 to go on and run cli->argv, else the exit status (0 after
 * --help or --version, which print to stdout; EXIT_USAGE after a message
 * on stderr).  On -1, cli->argv points into argv at the program. */
int symrun_parse_args(int argc, char **argv, struct cli *cli);

#endif /* SYMRUN_ARGS_H */
