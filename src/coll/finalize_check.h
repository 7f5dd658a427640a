/*
 * finalize_check.h - sym_finalize as seen by the members of this PE's teams
 * (finalize_check.c): a PE that meets another's finalize in a collective on
 * any team they share (sym_barrier on the world team or a split team, an
 * allreduce, ...) finds a mismatch, and so does the finalizing PE, instead
 * of both timing out.
 */
#ifndef SYM_COLL_FINALIZE_CHECK_H
#define SYM_COLL_FINALIZE_CHECK_H

#include "symheap.h"

/* The root of the fingerprint a finalizing PE publishes on its teams'
 * call lines (kind barrier_all): no collective has it. */
#define SYM_FP_ROOT_FINALIZE (-2)
/* How a fingerprint text names it (wire.c), then " (as call #n ...)". */
#define FINALIZE_TEXT "sym_finalize (as call #"
/* How sym_fp_text names a member past its last call (SYM_FP_FINAL). */
#define FINAL_FLUSH_TEXT "sym_finalize (no more collectives"

/* Publish, on the call line of every team of this PE, that it is in
 * sym_finalize (as its next call on the team), and remember whether each
 * team was poisoned already.  A member stuck in a collective on one of them
 * finds it at its next stall check, reports the mismatch and poisons the
 * team. */
void sym_finalize_publish(void);

/* After sym_finalize's world barrier: the error a member poisoned one of
 * this PE's teams with since sym_finalize_publish(), naming this finalize;
 * else SYM_OK. */
sym_status_t sym_finalize_stalled(void *arg);

#endif /* SYM_COLL_FINALIZE_CHECK_H */
