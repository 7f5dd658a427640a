/*
 * job.h - the job control segment shared by a launcher (symrun, the test
 * harness) and the PEs it starts.
 *
 * The launcher creates one memfd (no name at any moment, so it can neither
 * leak nor be watched for, opened or squatted by another user), its size
 * sealed, and hands the descriptor to every PE it forks through
 * SYMHEAP_SYMRUN_FD.  The segment carries what the launcher and the PEs must
 * both see: the random job key (every heap header carries it), a bootstrap
 * area for exchanging small blobs, each
 * PE's life-cycle state as the launcher observes it (so peers learn of a death
 * as soon as the launcher reaps the process), and the job abort word.
 */
#ifndef SYM_LAUNCH_JOB_H
#define SYM_LAUNCH_JOB_H

#include <limits.h>
#include <linux/futex.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "owner.h"

#define SYM_JOB_MAGIC      UINT64_C(0x53594d4a4f425631) /* "SYMJOBV1" */
#define SYM_JOB_VERSION    5u
#define SYM_JOB_KEY_LEN    32 /* hex characters */
#define SYM_JOB_BLOB_MAX   1024
#define SYM_JOB_SECRET_LEN 32 /* bytes */
#define SYM_JOB_MAX_PES    4096
#define SYM_JOB_ERROR_MAX  512 /* bytes of a PE's unread error message */

/* Environment the launcher passes to each PE. */
#define SYM_ENV_SYMRUN_FD   "SYMHEAP_SYMRUN_FD"
#define SYM_ENV_SYMRUN_PE   "SYMHEAP_SYMRUN_PE"
#define SYM_ENV_SYMRUN_NPES "SYMHEAP_SYMRUN_NPES"

/* What error_msg of a PE's slot holds. */
enum sym_job_error_state {
    SYM_JOB_ERROR_NONE = 0,   /* nothing */
    SYM_JOB_ERROR_UNREAD = 1, /* an error the program has not read (sym_last_error) */
    SYM_JOB_ERROR_READ = 2,   /* one it read, or that the library printed itself */
    SYM_JOB_ERROR_WRITING = 3 /* being written (by the PE) */
};

/* Life cycle of a PE, as written by the PE (STARTING..FINALIZED) and by the
 * launcher (EXITED, DEAD).  Only grows. */
enum sym_job_pe_state {
    SYM_PE_NONE = 0,      /* forked, library not yet initialised */
    SYM_PE_STARTING = 1,  /* inside sym_init */
    SYM_PE_RUNNING = 2,   /* sym_init succeeded */
    SYM_PE_FINALIZED = 3, /* sym_finalize done: its exit is not a loss */
    SYM_PE_EXITED = 4,    /* reaped after finalizing (or never initialised) */
    SYM_PE_DEAD = 5,      /* died or exited without finalizing */
};

/* One cache line (plus the blob) per PE, so PEs never share a line. */
struct sym_job_pe {
    uint32_t state;      /* enum sym_job_pe_state, accessed atomically */
    int32_t pid;         /* set by the launcher before the PE runs */
    int32_t wait_status; /* waitpid() status, valid once EXITED/DEAD */
    uint32_t pad0;
    uint64_t boot_arrivals; /* bootstrap barrier: number of barriers entered */
    /* The first job-level error the library returned to this PE (a lost
     * peer, an abort, a timeout, a mismatch; 0: none), written by the PE:
     * its death after one is a consequence, not the cause, of a failure. */
    int32_t lib_error;
    /* 1 + how many PEs the launcher had reaped before this one, written
     * with the state when it reaps the PE: survivors name the first. */
    uint32_t death_order;
    /* enum sym_job_error_state of error_msg, accessed atomically */
    uint32_t error_state;
    uint8_t pad1[28];
    /* Bootstrap allgathers alternate between two blobs, so a PE may write
     * the next one while its peers still read the last. */
    uint32_t blob_len[2];
    uint8_t pad2[56];
    uint8_t blob[2][SYM_JOB_BLOB_MAX];
    /* The first library error the program has not read (any status, its
     * name and detail message), written by the PE: the launcher prints it
     * when the PE ends badly, since the program may never have. */
    char error_msg[SYM_JOB_ERROR_MAX];
};

struct sym_job_ctrl {
    uint64_t magic;
    uint32_t version;
    uint32_t npes;
    char key[SYM_JOB_KEY_LEN + 1];
    char owner[SYM_OWNER_LEN]; /* the launcher, "<pid>.<start>" (owner.h) */
    /* The job secret (random, drawn by the launcher): this segment reaches
     * only the PEs, as an inherited descriptor, so it is how they learn it. */
    uint8_t secret[SYM_JOB_SECRET_LEN];
    uint8_t
        pad0[64 - ((8 + 4 + 4 + SYM_JOB_KEY_LEN + 1 + SYM_OWNER_LEN + SYM_JOB_SECRET_LEN) % 64)];
    /* Job abort word: 0, or 1 + the PE (or launcher: npes) that raised it. */
    uint32_t abort_by;
    int32_t abort_status;
    uint8_t pad1[56];
    /* Bootstrap barriers entered by all PEs together: barrier k is complete
     * when it reaches k * npes (each PE enters them in the same order).  Its
     * low 32 bits are a futex word (sym_job_boot_word): a PE waiting for a
     * barrier sleeps on it, and the PE that completes a barrier, and the
     * launcher when it reaps a PE, wake every sleeper. */
    uint64_t boot_entered;
    uint8_t pad2[56];
    struct sym_job_pe pe[];
};

/* The futex word of the bootstrap barriers: boot_entered's low half. */
static inline uint32_t *sym_job_boot_word(struct sym_job_ctrl *job)
{
    uint32_t *w = (uint32_t *)&job->boot_entered;
    return __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? w : w + 1;
}

/* Wake every PE sleeping in a bootstrap barrier (they re-check). */
static inline void sym_job_boot_wake(struct sym_job_ctrl *job)
{
    syscall(SYS_futex, sym_job_boot_word(job), FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

static inline size_t sym_job_ctrl_size(uint32_t npes)
{
    return sizeof(struct sym_job_ctrl) + (size_t)npes * sizeof(struct sym_job_pe);
}

/* Names of the POSIX shared-memory objects older symheap versions created
 * (this one creates none: its segments are memfds):
 * "/symheap-<uid>-<job key>-<owner>-<what>", where the owner is
 * "<pid>.<start>" (owner.h) and <what> is a PE number, "data<pe>" or
 * "ctrl".  A sweep (symrun at start, `symheap-info --cleanup`) still removes
 * such leftovers of this user whose owner is dead. */
#define SYM_SHM_PREFIX   "symheap-"
#define SYM_SHM_NAME_FMT "/" SYM_SHM_PREFIX "%u-%s-%s-%s"

#endif /* SYM_LAUNCH_JOB_H */
