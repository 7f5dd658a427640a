/*
 * wait.h - the one wait loop, progress and the job health check.
 */
#ifndef SYM_BASE_WAIT_H
#define SYM_BASE_WAIT_H

#include <stdbool.h>
#include <stddef.h>

#include "symheap.h"

/* What a wait waits for.  ready() is polled; describe() is called only to
 * build an error message ("PE 3 to enter barrier #12 (round 1)");
 * awaited_pe, if >= 0, is the PE whose action is awaited, so its death can
 * be reported as the cause. */
struct sym_waiter {
    bool (*ready)(void *arg);
    void (*describe)(void *arg, char *buf, size_t len);
    void *arg;
    /* Optional: called every ~10 ms while the wait is stuck; a status other
     * than SYM_OK (recorded) ends the wait with it.  Collectives use it to
     * compare fingerprints with the PE they wait for. */
    sym_status_t (*stalled)(void *arg);
};

/* The one wait loop: spin, yield, sleep with backoff; drives transport
 * progress; checks the abort word and peer liveness; gives up after
 * `timeout_s` (<= 0: SYMHEAP_TIMEOUT).  Errors: SYM_ERR_TIMEOUT,
 * SYM_ERR_PEER_LOST, SYM_ERR_ABORTED, each message starting with `op`. */
sym_status_t sym_wait_for(const char *op, const struct sym_waiter *w, double timeout_s);

/* How many transport operations this thread is inside (the ofi ops table
 * counts them under its lock).  A wait inside one (a drain for delivery, a
 * full context ring) must neither run non-blocking collectives nor yield
 * their coroutine: the first would re-enter the transport in the middle of
 * an operation (its staging buffer, its ordering state), the second would
 * return to the caller still owning the transport's lock, so another
 * thread's put would block until this one calls symheap again. */
extern _Thread_local unsigned sym_transport_depth;

/* Deadline in seconds of this thread's waits given no timeout (<= 0), such
 * as a transport operation's wait for its target; 0: SYMHEAP_TIMEOUT.  A
 * collective sets it around its transport calls, so that a target that
 * makes no library calls (manual progress) is reported within the team's
 * timeout.  sym_wait_timeout() is the deadline in effect. */
extern _Thread_local double sym_op_timeout_s;
double sym_wait_timeout(void);

/* Drive transport progress once (manual-progress providers): for polling
 * calls that do not wait, such as the test routines. */
void sym_progress(void);

/* Check the job's health once: SYM_OK, or the error (recorded) that a wait
 * would report now (a dead peer, an abort). */
sym_status_t sym_job_check(const char *op, const char *waiting_for);

#endif /* SYM_BASE_WAIT_H */
