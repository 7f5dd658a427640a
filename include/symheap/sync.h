/*
 * symheap/sync.h - point-to-point synchronisation: put-with-signal, signal waits,
 * typed waits and tests on this PE's own words, and waits on a caller's
 * condition.
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_SYNC_H
#define SYMHEAP_SYNC_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Point-to-point synchronisation: signals and waits                         */
/* ------------------------------------------------------------------------ */

typedef enum sym_cmp {
    SYM_CMP_EQ = 1,
    SYM_CMP_NE,
    SYM_CMP_GT,
    SYM_CMP_GE,
    SYM_CMP_LT,
    SYM_CMP_LE,
} sym_cmp_t;

typedef enum sym_signal_op {
    SYM_SIGNAL_SET = 1, /* signal word = value */
    SYM_SIGNAL_ADD,     /* signal word += value (atomically) */
} sym_signal_op_t;

/* Put nbytes to `dest` on PE `pe`, then update the 64-bit symmetric signal
 * word `sig_addr` on the same PE with `op` and `signal`.  The signal update
 * is never visible before all of the data: a PE that sees the signal change
 * (sym_signal_wait_until, sym_wait_until_u64) may read the data.  Blocking
 * with respect to `src`.  Errors as sym_put(); sig_addr must be 8-byte
 * aligned and symmetric; a bad op is SYM_ERR_INVALID_ARG. */
SYM_API SYM_NODISCARD sym_status_t sym_put_signal(void *dest, const void *src, size_t nbytes,
                                                  uint64_t *sig_addr, uint64_t signal,
                                                  sym_signal_op_t op, int pe);

/* Non-blocking put-with-signal: `src` may be reused only after sym_quiet(). */
SYM_API SYM_NODISCARD sym_status_t sym_put_signal_nbi(void *dest, const void *src, size_t nbytes,
                                                      uint64_t *sig_addr, uint64_t signal,
                                                      sym_signal_op_t op, int pe);

/* Atomically read this PE's local signal word. */
SYM_API SYM_NODISCARD sym_status_t sym_signal_fetch(const uint64_t *sig_addr, uint64_t *value_p);

/* Wait until this PE's local signal word satisfies `cmp value`; store the
 * value that satisfied it in *value_p (may be NULL).  Errors:
 * SYM_ERR_TIMEOUT (message names the address and the awaited condition),
 * SYM_ERR_PEER_LOST, SYM_ERR_ABORTED, SYM_ERR_NOT_SYMMETRIC,
 * SYM_ERR_INVALID_ARG (bad cmp or alignment). */
SYM_API SYM_NODISCARD sym_status_t sym_signal_wait_until(uint64_t *sig_addr, sym_cmp_t cmp,
                                                         uint64_t value, uint64_t *value_p);

/*
 * Waits and tests on this PE's own symmetric words, typed for int32, int64,
 * uint32 and uint64 (the comparison follows the type's signedness):
 *
 *   sym_wait_until_T(ivar, cmp, value)
 *       block until *ivar `cmp` value.
 *   sym_test_T(ivar, cmp, value, &satisfied)
 *       *satisfied = 1 if *ivar `cmp` value now, else 0; never blocks.
 *   sym_wait_until_all_T(ivars, nelems, status, cmp, value)
 *       block until every ivars[i] with status == NULL or status[i] == 0
 *       satisfies the condition (nelems 0, or all excluded: returns at once).
 *   sym_wait_until_any_T(ivars, nelems, status, cmp, value, &index)
 *       block until some included ivars[i] satisfies it; *index = that i,
 *       or SIZE_MAX when nothing is included.
 *   sym_wait_until_some_T(ivars, nelems, status, cmp, value, indices, &count)
 *       block until at least one included ivars[i] satisfies it; write every
 *       satisfying index to `indices` (room for nelems) and their number to
 *       *count (0 when nothing is included).
 *   sym_test_all_T / sym_test_any_T / sym_test_some_T: the same without
 *       blocking; _all sets *satisfied, _any sets *index (SIZE_MAX if none),
 *       _some sets *count (possibly 0).
 *
 * The ivars must be naturally aligned symmetric addresses.  Errors of the
 * blocking forms: SYM_ERR_TIMEOUT naming the address and condition,
 * SYM_ERR_PEER_LOST, SYM_ERR_ABORTED; of all: SYM_ERR_NOT_SYMMETRIC,
 * SYM_ERR_INVALID_ARG (bad cmp, NULL output, misalignment).
 */
#define SYM_WAIT_DECLARE_(name, T)                                                                 \
    SYM_API SYM_NODISCARD sym_status_t sym_wait_until_##name(T *ivar, sym_cmp_t cmp, T value);     \
    SYM_API SYM_NODISCARD sym_status_t sym_test_##name(T *ivar, sym_cmp_t cmp, T value,            \
                                                       int *satisfied_p);                          \
    SYM_API SYM_NODISCARD sym_status_t sym_wait_until_all_##name(                                  \
        T *ivars, size_t nelems, const int *status, sym_cmp_t cmp, T value);                       \
    SYM_API SYM_NODISCARD sym_status_t sym_wait_until_any_##name(                                  \
        T *ivars, size_t nelems, const int *status, sym_cmp_t cmp, T value, size_t *index_p);      \
    SYM_API SYM_NODISCARD sym_status_t sym_wait_until_some_##name(                                 \
        T *ivars, size_t nelems, const int *status, sym_cmp_t cmp, T value, size_t *indices,       \
        size_t *count_p);                                                                          \
    SYM_API SYM_NODISCARD sym_status_t sym_test_all_##name(                                        \
        T *ivars, size_t nelems, const int *status, sym_cmp_t cmp, T value, int *satisfied_p);     \
    SYM_API SYM_NODISCARD sym_status_t sym_test_any_##name(                                        \
        T *ivars, size_t nelems, const int *status, sym_cmp_t cmp, T value, size_t *index_p);      \
    SYM_API SYM_NODISCARD sym_status_t sym_test_some_##name(                                       \
        T *ivars, size_t nelems, const int *status, sym_cmp_t cmp, T value, size_t *indices,       \
        size_t *count_p);
SYM_WAIT_DECLARE_(int32, int32_t)
SYM_WAIT_DECLARE_(int64, int64_t)
SYM_WAIT_DECLARE_(uint32, uint32_t)
SYM_WAIT_DECLARE_(uint64, uint64_t)
#undef SYM_WAIT_DECLARE_

/* Block until ready(arg) returns nonzero: a condition the caller states
 * over this PE's own memory, for what the typed waits above cannot say
 * (several words at once, other types, a lock's ticket).  ready() is
 * polled, first at once, then inside the library's wait loop, which drives
 * transport progress and sleeps with backoff between polls, so it must be
 * cheap and must not block; it reads the words with atomic loads (peers
 * write them meanwhile), and is called only by the calling thread.
 * describe(arg, buf, len), if not NULL, is called only to build the
 * message of a failed wait ("...waiting for <what describe wrote>"); the
 * message starts with `label` (NULL: "sym_wait_cond").  timeout_s > 0 is
 * this wait's deadline in seconds, 0 the default (SYMHEAP_TIMEOUT).
 * Errors: SYM_ERR_TIMEOUT, SYM_ERR_PEER_LOST (a PE of the job died),
 * SYM_ERR_ABORTED, SYM_ERR_INVALID_ARG (ready is NULL, timeout_s negative,
 * NaN, infinite or above SYM_TIMEOUT_MAX), SYM_ERR_NOT_INITIALIZED.  Thread-safe: several threads
 * may wait at once, each on its own condition. */
SYM_API SYM_NODISCARD sym_status_t sym_wait_cond(const char *label, int (*ready)(void *arg),
                                                 void *arg,
                                                 void (*describe)(void *arg, char *buf, size_t len),
                                                 double timeout_s);

/* One progress pass of every transport that needs this PE to make calls
 * before its peers' operations on it complete (libfabric providers with
 * manual data progress, tcp;ofi_rxm among them); returns at once when no
 * open transport needs it, or before sym_init.  The blocking waits do this
 * between polls, and so do sym_test_* and sym_signal_fetch; a layer that
 * polls this PE's memory by its own means calls it in its loop.  Never
 * blocks, no errors (a transport failure is reported by the next operation
 * that depends on it).  Thread-safe. */
SYM_API void sym_make_progress(void);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_SYNC_H */
