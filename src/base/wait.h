/*
 * wait.h - the one wait loop, and the hooks and tuning it gets from the
 * layers above.  Base layer: knows nothing above it.
 */
#ifndef SYM_BASE_WAIT_H
#define SYM_BASE_WAIT_H

#include <stdbool.h>
#include <stddef.h>

#include "base/deadline.h"
#include "base/health.h"
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
 * progress; checks the abort word and peer liveness; gives up at `dl`
 * (anchored by the first wait of it that gets past the spins; shared by
 * every wait of one call).  Errors: SYM_ERR_TIMEOUT, SYM_ERR_PEER_LOST,
 * SYM_ERR_ABORTED, each message starting with dl->op. */
sym_status_t sym_wait_for(struct sym_deadline *dl, const struct sym_waiter *w);

/* The same for a waiter that can sleep until it is woken: `sleep` blocks
 * for up to `ns` nanoseconds, or until whoever makes `ready` true (or ends
 * the job) wakes it, such as a futex on a shared word.  The loop then
 * neither spins nor yields: it sleeps at once and checks health and the
 * deadline between sleeps, so a wait among many more processes than cores
 * costs no CPU. */
sym_status_t sym_wait_for_sleeping(struct sym_deadline *dl, const struct sym_waiter *w,
                                   void (*sleep)(void *arg, long ns));

/* How many transport operations this thread is inside (the ofi ops table
 * counts them under its lock).  A wait inside one (a drain for delivery, a
 * full context ring) must neither run non-blocking collectives nor yield
 * their coroutine: the first would re-enter the transport in the middle of
 * an operation (its staging buffer, its ordering state), the second would
 * return to the caller still owning the transport's lock, so another
 * thread's put would block until this one calls symheap again. */
extern _Thread_local unsigned sym_transport_depth;

/* What a deadline that says "the default" (<= 0 seconds) resolves to when
 * anchored: SYMHEAP_TIMEOUT, in seconds.  A call with another timeout (a
 * collective with its team's) passes it down in its deadline. */
double sym_wait_timeout(void);

/* Drive transport progress once (manual-progress providers): for polling
 * calls that do not wait, such as the test routines. */
void sym_progress(void);

/* ---- set by init ---------------------------------------------------------
 * Hooks are plain function pointers, never NULL inside the loop (a NULL
 * member, or a NULL table, registers a no-op), so a spin costs no test. */

/* Transports that need the target to make calls (manual progress):
 * need_progress() says whether any in use does (asked every 16 spins),
 * progress() drives each once (every poll after the spins), and sleep(ns)
 * blocks up to ns in one that can wake a sleeping waiter (false: none can;
 * the loop sleeps itself). */
struct sym_wait_progress_hooks {
    bool (*need_progress)(void);
    void (*progress)(void);
    bool (*sleep)(long ns);
};
void sym_wait_set_progress_hooks(const struct sym_wait_progress_hooks *hooks);

/* Non-blocking collectives: run_pending() runs those this thread started
 * (between polls of a wait outside their coroutines), and yield() hands
 * control back to the caller when the thread is inside one's coroutine
 * (false: it is not; the wait then spins and sleeps as usual). */
struct sym_wait_request_hooks {
    void (*run_pending)(void);
    bool (*yield)(void);
};
void sym_wait_set_request_hooks(const struct sym_wait_request_hooks *hooks);

/* How waits wait.  Zero until init: waits without a deadline time out at
 * once. */
struct sym_wait_tuning {
    double timeout_s;       /* deadline of a wait given none (SYMHEAP_TIMEOUT) */
    unsigned long spin;     /* polls before the first yield (SYMHEAP_WAIT_SPIN) */
    unsigned long yield_us; /* then yield this long before sleeping (SYMHEAP_WAIT_YIELD_US) */
    bool oversubscribed;    /* more local PEs than cores: never spin */
    bool sleep_at_once;     /* every peer's operation wakes a sleeping waiter: no yielding */
};
void sym_wait_set_tuning(const struct sym_wait_tuning *tuning);

#endif /* SYM_BASE_WAIT_H */
