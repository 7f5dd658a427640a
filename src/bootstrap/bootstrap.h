/*
 * bootstrap.h - who am I, how many are we, and exchanging small blobs.
 *
 * A bootstrap runs before any heap exists: it tells the runtime its rank and
 * the job size, gives the job a key shared by all PEs (heap object names
 * derive from it), and offers an allgather of small blobs and a barrier.
 * Implementations: symrun (the launcher's control segment), singleton.
 * Every wait inside goes through sym_wait_for(), so bootstrap steps time out
 * and notice dead PEs like everything else.
 */
#ifndef SYM_BOOTSTRAP_H
#define SYM_BOOTSTRAP_H

#include <stddef.h>

#include "launch/job.h"
#include "symheap.h"

struct sym_boot;

struct sym_boot_ops {
    const char *name;
    /* Every PE passes `len` bytes (len <= SYM_JOB_BLOB_MAX, the same on all
     * PEs); `all` receives size * len bytes, rank order. */
    sym_status_t (*allgather)(struct sym_boot *b, const void *mine, size_t len, void *all);
    sym_status_t (*barrier)(struct sym_boot *b, const char *step);
    /* Publish this PE's life-cycle state (enum sym_job_pe_state). */
    void (*set_state)(struct sym_boot *b, int state);
    void (*fini)(struct sym_boot *b);
};

struct sym_boot {
    const struct sym_boot_ops *ops;
    int rank;
    int size;
    char key[SYM_JOB_KEY_LEN + 1];
    char owner[SYM_OWNER_LEN]; /* whose death makes the job's objects stale */
    struct sym_job_ctrl *job; /* symrun: the launcher's control segment */
};

/* Detect how this process was started and join the job.  Errors:
 * SYM_ERR_BOOTSTRAP naming what was wrong (e.g. a bad SYMHEAP_SYMRUN_FD). */
sym_status_t sym_boot_open(struct sym_boot **boot_p);

sym_status_t sym_boot_symrun_open(struct sym_boot **boot_p);
sym_status_t sym_boot_singleton_open(struct sym_boot **boot_p);

/* Fill `key` with SYM_JOB_KEY_LEN random hex characters and a NUL. */
int sym_boot_random_key(char *key);

#endif /* SYM_BOOTSTRAP_H */
