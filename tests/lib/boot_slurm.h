/*
 * boot_slurm.h - a private one-node Slurm for the srun tests: slurmctld and
 * slurmd (as root) with a slurm.conf generated in a temp dir, auth/none,
 * no accounting, state, spool and logs in that dir, ports chosen free.
 *
 * The daemons are children of a guardian process (own session, child
 * subreaper) that also adopts every slurmstepd and PE they start: when the
 * test process ends, however it ends, the guardian's pipe closes and it
 * kills every process below it and removes the temp dir.
 */
#ifndef SYM_TEST_BOOT_SLURM_H
#define SYM_TEST_BOOT_SLURM_H

#include <stdbool.h>
#include <stddef.h>

struct bslurm {
    char dir[64];       /* the temp dir */
    char conf_env[128]; /* "SLURM_CONF=<dir>/slurm.conf", for srun's environment */
};

/* Why Slurm cannot be used here (a missing program or plugin, not root),
 * or NULL when it can. */
const char *bslurm_missing(void);

/* Start the daemons and wait (at most deadline_s) until the node is idle;
 * false with `why` filled (the daemons' log tails) when it did not come up. */
bool bslurm_start(struct bslurm *s, double deadline_s, char *why, size_t len);

/* Stop the daemons and every process they started, remove the temp dir;
 * returns once all are gone. */
void bslurm_stop(struct bslurm *s);

#endif
