/*
 * health.h - the job health check: has a peer died, has the job been
 * aborted?  Base layer: knows nothing above it; init hands it what it looks
 * at, as init learns it.
 *
 * The lost PE it names is the first to die of its own cause: under a
 * launcher, the earliest reaped PE that had not been returned a job-level
 * error (sym_health_note_error), else the earliest reaped; so a survivor
 * that exits after its own error is never blamed while the PE that was
 * killed is known.  Without a launcher there is no order of deaths, so a
 * PE records whom its error blamed (the lost PE it was told of), in its
 * heap and through the bootstrap, and a loss that is a consequence is
 * followed back to the PE it blamed.
 */
#ifndef SYM_BASE_HEALTH_H
#define SYM_BASE_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "launch/job.h"
#include "symheap.h"

/* What the health check looks at.  Pointers are borrowed: they must stay
 * valid until the next sym_health_set(); arrays are read as they are filled
 * in (a zero pid or a NULL heap is skipped). */
struct sym_health_view {
    int me;
    int npes;
    struct sym_job_ctrl *job; /* the launcher's control segment, or NULL */
    /* Heap control blocks (a heap mapping begins with one).  Where this
     * PE's is kept (NULL, or *my_ctrl NULL: not mapped yet), for its job
     * abort word: 0, or 1 + the PE that raised it, and that PE's status.
     * [npes] each PE's where mapped here (NULL entry: not mapped; NULL
     * array: no heaps yet), for its life-cycle state (enum
     * sym_job_pe_state).  The offsets of these 32-bit words in a block: */
    uint8_t *const *my_ctrl;
    uint8_t *const *peer_ctrl;
    size_t abort_by_off, abort_status_off, state_off;
    size_t lib_error_off;   /* the owner's first job-level error (int32_t) */
    size_t lib_blame_off;   /* 1 + the PE that error named lost, or 0 (int32_t) */
    const int *peer_pid;    /* [npes] process ids (0: unknown), or NULL */
    const bool *peer_local; /* [npes] runs on this host, or NULL */
    /* The bootstrap's report of a lost PE (-1: none): the first it knows
     * that was not returned a job-level error, else the first; with the
     * words that follow "PE n" in a message when `how` is not NULL.  NULL
     * when the bootstrap cannot tell.  Cheap and thread-safe. */
    int (*lost_pe)(void *arg, char *how, size_t len);
    void *lost_pe_arg;
    /* Optional: tell the bootstrap this PE's first job-level error and the
     * PE it named lost (-1: none), so that peers on other hosts do not take
     * this PE's later exit for the cause.  Called once, by the thread that
     * got the error, never with a bootstrap lock held. */
    void (*tell_error)(void *arg, sym_status_t status, int blamed);
    void *tell_error_arg;
    /* Optional: the bootstrap's word of a job abort (0, or 1 + the PE that
     * raised it, with its status), for PEs whose heaps are not mapped here
     * and no launcher's segment.  Cheap and thread-safe. */
    uint32_t (*aborted)(void *arg, int32_t *status_p);
    void *aborted_arg;
};

/* Replace what the check looks at (init and finalize; a zeroed view with me
 * and npes -1 looks at nothing). */
void sym_health_set(const struct sym_health_view *view);

/* Record, once, that the library returned a job-level error to this PE
 * (lost peer, abort, timeout, mismatch, transport, bootstrap): where the
 * launcher and the peers can see it, so that this PE's death after it is
 * not taken for the cause of the failure.  A SYM_ERR_PEER_LOST that this
 * thread's last sym_job_check() produced also records the PE it named.
 * Other statuses are ignored.  Called by sym_error(); cheap and
 * thread-safe. */
void sym_health_note_error(sym_status_t status);

/* Keep `msg`, the detail message of an error of any status, where the
 * launcher can print it if this PE ends badly without the program having
 * read it: the first one since the program last read one.  Called by
 * sym_error(); cheap and thread-safe. */
void sym_health_note_message(sym_status_t status, const char *msg);

/* The program read its error (sym_last_error()), or the library printed
 * it: the launcher need not.  Cheap and thread-safe. */
void sym_health_error_read(void);

/* The job abort, if raised: 0, or 1 + the PE that raised it (npes + 1:
 * the launcher), with its status in *status_p; read from this PE's heap,
 * the launcher's segment and the bootstrap.  Cheap and thread-safe. */
uint32_t sym_health_abort_by(int32_t *status_p);

/* Check the job's health once: SYM_OK, or the error (recorded) that a wait
 * would report now (a dead peer, an abort).  The message starts with `op`
 * and, when waiting_for is not NULL, ends "while waiting for <waiting_for>". */
sym_status_t sym_job_check(const char *op, const char *waiting_for);

#endif /* SYM_BASE_HEALTH_H */
