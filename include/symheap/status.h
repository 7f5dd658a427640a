/*
 * symheap/status.h - the status codes every call returns, their names, and
 * the calling thread's error messages; also SYM_API, the export mark of every
 * public function, which is why every other part includes this one.
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_STATUS_H
#define SYMHEAP_STATUS_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SYM_API __attribute__((visibility("default")))
#else
#define SYM_API
#endif

/* Every function that returns a sym_status_t carries SYM_NODISCARD: GCC
 * and Clang warn (-Wunused-result, on by default) when a caller drops the
 * status, since a failure the program never looks at tells nobody
 * anything.  A program that checks errors some other way (sym_last_error()
 * after a sequence of calls) defines SYM_NO_WARN_UNUSED_RESULT before it
 * includes <symheap.h>.  (GCC does not take a cast to void as using the
 * result: test it, or pass it to a function.) */
#if defined(__GNUC__) && !defined(SYM_NO_WARN_UNUSED_RESULT)
#define SYM_NODISCARD __attribute__((warn_unused_result))
#else
#define SYM_NODISCARD
#endif

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */
/* ------------------------------------------------------------------------ */

/* X(name, value, description): the one list the enum, sym_strerror() and
 * sym_status_name() are generated from. */
#define SYM_STATUS_LIST(X)                                                                         \
    X(SYM_OK, 0, "success")                                                                        \
    X(SYM_ERR_INVALID_ARG, -1, "invalid argument")                                                 \
    X(SYM_ERR_INVALID_PE, -2, "PE number out of range")                                            \
    X(SYM_ERR_NOT_SYMMETRIC, -3, "address is not inside the symmetric heap")                       \
    X(SYM_ERR_NO_MEMORY, -4, "not enough symmetric memory")                                        \
    X(SYM_ERR_TIMEOUT, -5, "timed out")                                                            \
    X(SYM_ERR_PEER_LOST, -6, "a peer PE died or exited without finalizing")                        \
    X(SYM_ERR_NOT_INITIALIZED, -7, "symheap is not initialized")                                   \
    X(SYM_ERR_ALREADY_INITIALIZED, -8, "symheap is already initialized")                           \
    X(SYM_ERR_CONFIG, -9, "invalid configuration (environment variable)")                          \
    X(SYM_ERR_SYSTEM, -10, "operating system call failed")                                         \
    X(SYM_ERR_ABORTED, -11, "the job was aborted")                                                 \
    X(SYM_ERR_BOOTSTRAP, -12, "job bootstrap failed")                                              \
    X(SYM_ERR_MISMATCH, -13, "PEs made mismatched collective calls")                               \
    X(SYM_ERR_TRUNCATED, -14, "message larger than the receive buffer")                            \
    X(SYM_ERR_UNAVAILABLE, -15, "feature or transport not available")                              \
    X(SYM_ERR_TRANSPORT, -16, "transport error")                                                   \
    X(SYM_ERR_INTERNAL, -17, "internal error (a bug in symheap)")

typedef enum sym_status {
#define SYM_STATUS_ENUM_(name, value, text) name = value,
    SYM_STATUS_LIST(SYM_STATUS_ENUM_)
#undef SYM_STATUS_ENUM_
} sym_status_t;

/* Static description of a status code ("timed out").  Unknown codes give
 * "unknown status".  Thread-safe. */
SYM_API const char *sym_strerror(sym_status_t status);

/* The enumerator's name as a string ("SYM_ERR_TIMEOUT").  Thread-safe. */
SYM_API const char *sym_status_name(sym_status_t status);

/* Detail message of the calling thread's most recent failed call, e.g.
 * "sym_put: PE 9 out of range (job has 4 PEs)".  Empty string if no call has
 * failed on this thread.  The buffer is thread-local and is overwritten by the
 * next failure on the same thread.  Thread-safe. */
SYM_API const char *sym_last_error(void);

/* The status of the calling thread's most recent failed call, the failure
 * sym_last_error() describes; SYM_OK if no call has failed on this thread.
 * It is how a caller learns the status of a call that returns none: a NULL
 * from sym_malloc, sym_calloc, sym_align or sym_realloc says SYM_ERR_NO_MEMORY,
 * SYM_ERR_MISMATCH, SYM_ERR_PEER_LOST..., and a failed sym_free records its
 * status here.  Overwritten, with the message, by the thread's next failure.
 * Thread-safe (the status is the calling thread's). */
SYM_API sym_status_t sym_last_status(void);

#if defined(__GNUC__)
#define SYM_PRINTF_(fmt, args) __attribute__((format(printf, fmt, args)))
#else
#define SYM_PRINTF_(fmt, args)
#endif

/* Record a failure of a layer built on symheap (the shmem.h facade, a
 * language binding) as the calling thread's detail message, formatted from
 * the printf format `fmt`: sym_last_error() then reports it as it reports
 * the library's own failures (messages longer than 1023 bytes are cut).
 * Returns `status`, so a caller can write
 * `return sym_set_error(SYM_ERR_MISMATCH, "my_bcast: ...", ...);`.
 * Works before sym_init() too.
 * Errors: SYM_ERR_INVALID_ARG (status is SYM_OK or no SYM_ERR_* code, or
 * fmt is NULL): that error is recorded instead.  Thread-safe (the message
 * is the calling thread's). */
SYM_API SYM_NODISCARD sym_status_t sym_set_error(sym_status_t status, const char *fmt, ...)
    SYM_PRINTF_(2, 3);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_STATUS_H */
