/*
 * bootstrap.h - who am I, how many are we, and exchanging small blobs.
 *
 * A bootstrap runs before any heap exists: it tells the runtime its rank and
 * the job size, gives the job a key shared by all PEs (heap object names
 * derive from it) and a secret only they know (base/secret.h), and offers an allgather of small
 * blobs and a barrier. Implementations: symrun (the launcher's control segment), tcp (a rendezvous
 * at SYMHEAP_ROOT_ADDR), pmix (mpirun, prterun, srun), singleton. Every wait inside goes through
 * sym_wait_for(), so bootstrap steps time out and notice dead PEs like everything else.
 */
#ifndef SYM_BOOTSTRAP_H
#define SYM_BOOTSTRAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "base/secret.h"
#include "launch/job.h"
#include "symheap.h"

/* What the bootstraps take from the configuration (SYMHEAP_*), handed over
 * by init when it opens one. */
struct sym_boot_settings {
    unsigned mode;  /* SYMHEAP_BOOTSTRAP: enum sym_cfg_bootstrap */
    double timeout; /* seconds each step may wait (SYMHEAP_TIMEOUT or SYMHEAP_INIT_TIMEOUT) */
    const char *timeout_name; /* which of the two set it, for timeout messages */
    bool debug;               /* SYMHEAP_DEBUG: log what the launcher says */
    /* symrun: set by the launcher, parsed but not trusted */
    bool symrun_fd_set, symrun_pe_set, symrun_npes_set;
    unsigned long symrun_fd, symrun_pe, symrun_npes;
    /* tcp: SYMHEAP_ROOT_ADDR (empty: unset), SYMHEAP_RANK, SYMHEAP_SIZE */
    char root_addr[256];
    bool rank_set;
    unsigned long rank, size;
    /* tcp: SYMHEAP_JOB_SECRET, SYMHEAP_JOB_SECRET_FILE (empty: unset) */
    char job_secret[256];
    char job_secret_file[256];
};

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
    /* Optional (NULL: the bootstrap cannot tell).  A PE this bootstrap
     * knows to be lost (died or unreachable before finalizing): the first
     * that had not been returned a job-level error, else the first; or
     * -1; when one is returned, `how` gets the words that follow "PE n" in
     * a message ("lost its bootstrap connection ...").  Cheap enough to be
     * called on every health check of a wait; thread-safe. */
    int (*lost_pe)(struct sym_boot *b, char *how, size_t len);
    /* Optional.  Tell the peers that the library returned this PE a
     * job-level error `status`, naming `blamed` lost (-1: none), so that
     * this PE's exit after it is not taken for the cause.  Best effort;
     * called without any bootstrap lock held, from any thread. */
    void (*tell_error)(struct sym_boot *b, int status, int blamed);
    /* Optional.  This PE ends the job with `status` (sym_global_exit):
     * tell every PE, before this one exits.  Any thread, no lock held. */
    void (*raise_abort)(struct sym_boot *b, int status);
    /* Optional.  0, or 1 + the PE that ended the job (through this
     * bootstrap), with its status in *status_p.  Cheap, thread-safe. */
    uint32_t (*aborted)(struct sym_boot *b, int32_t *status_p);
};

struct sym_boot {
    const struct sym_boot_ops *ops;
    int rank;
    int size;
    char key[SYM_JOB_KEY_LEN + 1];
    char owner[SYM_OWNER_LEN]; /* whose death makes the job's objects stale */
    struct sym_job_ctrl *job;  /* symrun: the launcher's control segment */
    /* Known only to the job's PEs (base/secret.h): made by symrun, by PE 0
     * under PMIx or for a singleton, given by the user for tcp. */
    struct sym_secret secret;
};

/* Detect how this process was started and join the job.  Errors:
 * SYM_ERR_BOOTSTRAP naming what was wrong (e.g. a bad SYMHEAP_SYMRUN_FD). */
sym_status_t sym_boot_open(const struct sym_boot_settings *set, struct sym_boot **boot_p);

sym_status_t sym_boot_symrun_open(const struct sym_boot_settings *set, struct sym_boot **boot_p);
sym_status_t sym_boot_singleton_open(struct sym_boot **boot_p);
sym_status_t sym_boot_tcp_open(const struct sym_boot_settings *set, struct sym_boot **boot_p);
/* SYM_ERR_UNAVAILABLE when symheap was built without PMIx. */
sym_status_t sym_boot_pmix_open(const struct sym_boot_settings *set, struct sym_boot **boot_p);

/* This host's identity for locality: PEs with equal strings can share
 * memory (shm transport); different strings mean different hosts even if
 * the host names agree (network namespaces, containers).  Always
 * NUL-terminated; at most len - 1 bytes. */
void sym_host_identity(char *buf, size_t len);

/* A digest of sym_host_identity(): equal digests, equal identities (a
 * fixed size to exchange, however long the identity). */
#define SYM_HOST_DIGEST_LEN 16
void sym_host_digest(uint8_t out[SYM_HOST_DIGEST_LEN]);

/* Fill `key` with SYM_JOB_KEY_LEN random hex characters and a NUL. */
int sym_boot_random_key(char *key);

#endif /* SYM_BOOTSTRAP_H */
