/*
 * request.h - non-blocking collectives.
 *
 * An i-variant packs its arguments into a request and runs the blocking
 * collective later as a coroutine on its own stack.  Whenever that code
 * would wait, sym_wait() yields back instead, so any library call that
 * waits (sym_wait/sym_test on a request, a blocking collective, a barrier)
 * resumes every pending request in turn: progress without a helper thread.
 * Requests on one team run one at a time in issue order, which is the
 * order every member issues them in; a blocking collective on a team first
 * completes the team's pending requests.
 */
#ifndef SYM_COLL_REQUEST_H
#define SYM_COLL_REQUEST_H

#include <stdbool.h>

#include "symheap.h"

struct sym_team;

/* Inside a request's coroutine: yield to the caller of the progress
 * engine.  Returns false (and does nothing) on the main stack. */
bool sym_request_yield(void);

/* Resume every runnable request once; cheap when none is pending. */
void sym_requests_progress(void);

/* The request whose coroutine this thread is running, NULL on the main
 * stack. */
const void *sym_request_current(void);

/* Number of requests not yet finished. */
extern int sym_requests_pending;

/* Before a blocking collective on `team` starts: finish the team's pending
 * requests (not from inside a request's own coroutine). */
sym_status_t sym_requests_drain_team(struct sym_team *team);

/* At finalize: run every pending request to its end (their own deadlines
 * bound this); the first failure is returned. */
sym_status_t sym_requests_finish_all(const char *op);

/* Free every request (finished or not). */
void sym_requests_fini(void);

#endif /* SYM_COLL_REQUEST_H */
