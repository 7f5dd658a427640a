/*
 * stress.h - the seeded random stress program, run inside each PE.
 *
 * Every PE derives the same sequence of steps from the seed: step k draws
 * its operation (RMA, atomics, waits, signals, every collective blocking or
 * not, point-to-point, team create/destroy, symmetric allocation) and all
 * its parameters from a generator seeded with (seed, k), and every PE's
 * input data from (seed, k, pe).  So each PE can compute the reference of
 * every result it sees, and a failing step can be replayed on its own:
 * steps before --start-step run only their structural part (team and
 * allocation changes), which rebuilds the exact state step K started from.
 */
#ifndef SYM_STRESS_H
#define SYM_STRESS_H

#include <stddef.h>
#include <stdint.h>

struct stress_opts {
    uint64_t seed;
    uint64_t steps;        /* run steps [start_step, steps); 0: until `minutes` */
    uint64_t start_step;   /* replay from this step */
    double minutes;        /* > 0: stop after this long (checked every few steps) */
    size_t max_bytes;      /* largest buffer of one operation per PE */
    int verbose;           /* 1: one line per step on PE 0; 2: on every PE */
    int max_wrong_reports; /* wrong results printed in full before going quiet */
};

/* Defaults for the fields above (seed 1, 1000 steps, 160 KiB). */
void stress_opts_default(struct stress_opts *o);

/* Run the stress sequence on this PE.  sym_init() must have been called.
 * Returns 0 when every result was right (PE 0 prints the summary), 1 if a
 * result was wrong; a call that fails prints the seed, the step and the
 * operation, and exits the process with status 2. */
int stress_run(const struct stress_opts *o);

/* Environment a stress job wants (small mailbox, so big operations are
 * staged in many chunks; small team areas): "NAME=value" strings,
 * NULL-terminated. */
extern const char *const stress_env[];

#endif /* SYM_STRESS_H */
