/*
 * deadline.h - how long a blocking call may wait, passed down its path.
 *
 * The call that may block (sym_barrier_all, sym_quiet, a transport's put
 * that waits for a full queue, an init step) makes one deadline and hands
 * it to everything below it that waits: every wait of the call shares it,
 * so a call that waits several times still gives up once its timeout has
 * passed, and the timeout message names the call.  Base layer: knows
 * nothing above it.
 *
 * A deadline is anchored lazily: making one reads no clock (a put to a
 * mapped peer is a memcpy and must stay one), and the first wait that
 * actually blocks (sym_wait_for past its spins) fixes the absolute end.
 */
#ifndef SYM_BASE_DEADLINE_H
#define SYM_BASE_DEADLINE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symheap.h"

struct sym_deadline {
    /* What is awaited: the call the timeout message starts with
     * ("sym_barrier_all: timed out after 2.0 s waiting for ..."). */
    const char *op;
    /* Seconds from the first blocking wait; <= 0: the default
     * (sym_wait_timeout(): SYMHEAP_TIMEOUT); once anchored, what applies. */
    double timeout_s;
    /* CLOCK_MONOTONIC nanoseconds of the end; 0 until anchored. */
    uint64_t at_ns;
    /* What set the timeout, for the message: a variable or an option
     * ("SYMHEAP_INIT_TIMEOUT"); NULL: SYMHEAP_TIMEOUT for the default, else
     * the call or its team. */
    const char *source;
};

/* A deadline `timeout_s` seconds from the first wait that blocks (<= 0:
 * SYMHEAP_TIMEOUT). */
static inline struct sym_deadline sym_deadline_in(const char *op, double timeout_s)
{
    struct sym_deadline dl = {op, timeout_s, 0, NULL};
    return dl;
}

/* The same, with the name of what set timeout_s for the message. */
static inline struct sym_deadline sym_deadline_named(const char *op, double timeout_s,
                                                     const char *source)
{
    struct sym_deadline dl = {op, timeout_s, 0, source};
    return dl;
}

/* The default deadline: SYMHEAP_TIMEOUT from the first wait that blocks. */
static inline struct sym_deadline sym_deadline_default(const char *op)
{
    return sym_deadline_in(op, 0);
}

/* Fix the end of `dl` if no wait has yet (reads the clock then); returns
 * it.  Only slow paths call this. */
uint64_t sym_deadline_anchor(struct sym_deadline *dl);

/* Whether `dl` has passed (anchoring it first). */
bool sym_deadline_passed(struct sym_deadline *dl);

/* Record and return the timeout of `dl`: "<op>: timed out after <s> s
 * (<what set it>) waiting for <what>". */
sym_status_t sym_deadline_timeout(const struct sym_deadline *dl, const char *what);

/* Check a timeout given by the caller: SYM_OK, or SYM_ERR_INVALID_ARG
 * (recorded, starting with `op`) when it is not a finite number, is
 * negative (or 0 unless zero_ok: 0 then means "the default") or exceeds
 * SYM_TIMEOUT_MAX. */
sym_status_t sym_timeout_check(const char *op, double seconds, bool zero_ok);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t sym_now_ns(void);

/* When each step of a long call ended, for SYMHEAP_DEBUG's account of
 * where its time went (sym_init's: one line per PE).  Owned by the call. */
#define SYM_STEPS_MAX 8
struct sym_steps {
    uint64_t start;
    int n;
    const char *step[SYM_STEPS_MAX];
    uint64_t end[SYM_STEPS_MAX];
};
/* Start counting now. */
void sym_steps_start(struct sym_steps *s);
/* Step `step` (a constant string) ends now; beyond SYM_STEPS_MAX, ignored. */
void sym_steps_done(struct sym_steps *s, const char *step);
/* Under SYMHEAP_DEBUG: "<what> steps (s): a 0.0012, b 0.0340; total 0.0352". */
void sym_steps_log(const struct sym_steps *s, const char *what);

#endif /* SYM_BASE_DEADLINE_H */
