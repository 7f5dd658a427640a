/*
 * symheap.h - one-sided, SHMEM-style communication over a symmetric heap.
 *
 * Every process of a job (a "PE", processing element) maps a symmetric heap:
 * a region laid out identically on every PE, so one address returned by
 * sym_malloc() names the same object on every PE.  Remote memory is written
 * and read with one-sided puts, gets and atomics; completion and ordering are
 * controlled with sym_quiet() and sym_fence(); PEs synchronise with waits on
 * symmetric words, signals and barriers.
 *
 * Conventions used by every function below:
 * - Status: functions returning sym_status_t return SYM_OK (0) on success and
 *   a negative SYM_ERR_* code on failure.  sym_strerror() names the code;
 *   sym_last_error() returns a per-thread detail message naming the operation,
 *   the PE(s) and the sizes involved.  No function aborts the process.
 * - Addresses: "symmetric" arguments (dest of a put, src of a get, atomic and
 *   wait targets) must lie inside the user part of the symmetric heap, i.e.
 *   inside an object returned by sym_malloc() and friends; otherwise the call
 *   fails with SYM_ERR_NOT_SYMMETRIC and nothing is transferred.  Local
 *   buffers (src of a put, dest of a get) may be any readable/writable memory.
 * - PEs are numbered 0 .. sym_n_pes()-1; any other number is SYM_ERR_INVALID_PE.
 * - Before sym_init() (and after sym_finalize()) every function fails with
 *   SYM_ERR_NOT_INITIALIZED (pointer-returning functions return NULL, int
 *   queries return -1).
 * - Waits never block forever: each has a deadline of SYMHEAP_TIMEOUT seconds
 *   (default 60) after which it returns SYM_ERR_TIMEOUT, and a PE that dies is
 *   reported to the PEs waiting for it as SYM_ERR_PEER_LOST within about a
 *   second.
 * - Thread safety: the library is initialised once per process.  Unless a
 *   function says otherwise, calls from several threads of one PE must be
 *   serialised by the caller (OpenSHMEM's SHMEM_THREAD_SERIALIZED level).
 *   sym_strerror() and sym_last_error() are always thread-safe.
 */
#ifndef SYMHEAP_H
#define SYMHEAP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SYM_API __attribute__((visibility("default")))
#else
#define SYM_API
#endif

#define SYMHEAP_VERSION_MAJOR 0
#define SYMHEAP_VERSION_MINOR 1
#define SYMHEAP_VERSION_PATCH 0

/* ------------------------------------------------------------------------ */
/* Status codes                                                              */
/* ------------------------------------------------------------------------ */

/* X(name, value, description): the one list the enum, sym_strerror() and
 * sym_status_name() are generated from. */
#define SYM_STATUS_LIST(X)                                                     \
    X(SYM_OK, 0, "success")                                                    \
    X(SYM_ERR_INVALID_ARG, -1, "invalid argument")                             \
    X(SYM_ERR_INVALID_PE, -2, "PE number out of range")                        \
    X(SYM_ERR_NOT_SYMMETRIC, -3, "address is not inside the symmetric heap")   \
    X(SYM_ERR_NO_MEMORY, -4, "not enough symmetric memory")                    \
    X(SYM_ERR_TIMEOUT, -5, "timed out")                                        \
    X(SYM_ERR_PEER_LOST, -6, "a peer PE died or exited without finalizing")    \
    X(SYM_ERR_NOT_INITIALIZED, -7, "symheap is not initialized")               \
    X(SYM_ERR_ALREADY_INITIALIZED, -8, "symheap is already initialized")       \
    X(SYM_ERR_CONFIG, -9, "invalid configuration (environment variable)")      \
    X(SYM_ERR_SYSTEM, -10, "operating system call failed")                     \
    X(SYM_ERR_ABORTED, -11, "the job was aborted")                             \
    X(SYM_ERR_BOOTSTRAP, -12, "job bootstrap failed")                          \
    X(SYM_ERR_MISMATCH, -13, "PEs made mismatched collective calls")           \
    X(SYM_ERR_TRUNCATED, -14, "message larger than the receive buffer")        \
    X(SYM_ERR_UNAVAILABLE, -15, "feature or transport not available")          \
    X(SYM_ERR_TRANSPORT, -16, "transport error")                               \
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

/* ------------------------------------------------------------------------ */
/* Runtime                                                                   */
/* ------------------------------------------------------------------------ */

/* Initialise the library: read the SYMHEAP_* environment (see
 * `symheap-info`), join the job (started by `symrun`, or alone as PE 0 of 1),
 * create this PE's symmetric heap and map every peer's.  Collective over all
 * PEs of the job.
 * Errors: SYM_ERR_ALREADY_INITIALIZED, SYM_ERR_CONFIG (a malformed variable;
 * the message names it and its value), SYM_ERR_NO_MEMORY (heap cannot be
 * backed), SYM_ERR_BOOTSTRAP, SYM_ERR_PEER_LOST, SYM_ERR_TIMEOUT,
 * SYM_ERR_SYSTEM.  On failure nothing stays allocated and init may be retried.
 * Thread safety: call from one thread, before any other symheap call. */
SYM_API sym_status_t sym_init(void);

/* Complete all outstanding operations, synchronise with all PEs (an implicit
 * barrier) and release every resource of the library.  Collective.  Even
 * when the barrier fails (a peer died, a timeout), local resources are
 * released and the error is returned; the library is then uninitialised.
 * Errors: SYM_ERR_NOT_INITIALIZED, SYM_ERR_PEER_LOST, SYM_ERR_TIMEOUT. */
SYM_API sym_status_t sym_finalize(void);

/* 1 between a successful sym_init() and sym_finalize(), else 0. */
SYM_API int sym_initialized(void);

/* This PE's number, or -1 when not initialised. */
SYM_API int sym_my_pe(void);

/* Number of PEs in the job, or -1 when not initialised. */
SYM_API int sym_n_pes(void);

/* Raise the job-wide abort word (peers' waits then fail with
 * SYM_ERR_ABORTED; `symrun` ends the job) and exit this process with
 * `status`.  Never returns.  Thread-safe. */
SYM_API void sym_global_exit(int status) __attribute__((noreturn));

/* ------------------------------------------------------------------------ */
/* Symmetric memory                                                          */
/* ------------------------------------------------------------------------ */

/* Allocate `size` bytes of symmetric memory, aligned to 64 bytes.  Collective:
 * every PE must make the same sequence of allocation calls with the same
 * arguments; every PE then gets the same offset (verified when SYMHEAP_DEBUG
 * is set).  Includes a barrier, so the object exists on every PE on return.
 * Returns NULL for size 0 (not an error) and on failure, with the reason in
 * sym_last_error(): SYM_ERR_NO_MEMORY names the requested and free bytes;
 * a failed call changes nothing.  Thread safety: serialised. */
SYM_API void *sym_malloc(size_t size);

/* Like sym_malloc(count * size) with the memory zeroed on every PE.  An
 * overflowing product fails with SYM_ERR_INVALID_ARG. */
SYM_API void *sym_calloc(size_t count, size_t size);

/* Like sym_malloc() with the given alignment: a power of two up to 2 MiB
 * (every heap is mapped 2 MiB-aligned); else SYM_ERR_INVALID_ARG. */
SYM_API void *sym_align(size_t alignment, size_t size);

/* Resize a symmetric object, keeping min(old, new) bytes of its contents on
 * every PE.  ptr NULL behaves like sym_malloc(size); size 0 frees ptr and
 * returns NULL.  On failure returns NULL and the old object is untouched.
 * Collective with an implicit barrier. */
SYM_API void *sym_realloc(void *ptr, size_t size);

/* Release a symmetric object.  Collective; a barrier precedes the release so
 * no PE can still be accessing it.  NULL is ignored.  A pointer that is not
 * the start of a live object is reported in sym_last_error() (the heap is not
 * changed). */
SYM_API void sym_free(void *ptr);

/* Bytes still available to sym_malloc() (sum of free blocks) and the largest
 * single block; either output may be NULL. */
SYM_API sym_status_t sym_heap_free(size_t *free_bytes_p, size_t *largest_p);

/* Direct load/store pointer to the object at symmetric address `addr` on PE
 * `pe`, when that PE's heap is mapped into this process (same host, shm
 * transport); NULL otherwise or on bad arguments.  Thread-safe. */
SYM_API void *sym_ptr(const void *addr, int pe);

/* 1 if `addr` is a symmetric address that PE `pe` can be reached at, else 0. */
SYM_API int sym_addr_accessible(const void *addr, int pe);

/* 1 if PE `pe` is reachable by this PE (always, for a live job), else 0. */
SYM_API int sym_pe_accessible(int pe);

/* ------------------------------------------------------------------------ */
/* One-sided RMA                                                             */
/* ------------------------------------------------------------------------ */

/* Copy nbytes from local `src` to symmetric `dest` on PE `pe`.  Blocking:
 * on return `src` may be reused; remote completion (visibility at the target)
 * is guaranteed only after sym_quiet() (on shared memory it is immediate).
 * nbytes 0 is a no-op (arguments still checked).
 * Errors: SYM_ERR_INVALID_PE, SYM_ERR_NOT_SYMMETRIC (dest range not wholly
 * inside the heap), SYM_ERR_INVALID_ARG (NULL src with nbytes > 0). */
SYM_API sym_status_t sym_put(void *dest, const void *src, size_t nbytes, int pe);

/* Copy nbytes from symmetric `src` on PE `pe` into local `dest`.  Blocking:
 * the data has arrived on return.  Errors as sym_put(). */
SYM_API sym_status_t sym_get(void *dest, const void *src, size_t nbytes, int pe);

/* Non-blocking put: returns at once; `src` must not be modified and the
 * transfer is not complete until sym_quiet().  Errors as sym_put(). */
SYM_API sym_status_t sym_put_nbi(void *dest, const void *src, size_t nbytes, int pe);

/* Non-blocking get: `dest` is valid only after sym_quiet(). */
SYM_API sym_status_t sym_get_nbi(void *dest, const void *src, size_t nbytes, int pe);

/* Strided put: element i (of `elem_size` bytes, 1, 2, 4, 8 or 16) goes from
 * src[i * src_stride] to dest[i * dst_stride] on PE `pe`; strides are in
 * elements and must be >= 1.  Errors as sym_put(), plus SYM_ERR_INVALID_ARG
 * for a bad element size or stride. */
SYM_API sym_status_t sym_iput(void *dest, const void *src, ptrdiff_t dst_stride,
                              ptrdiff_t src_stride, size_t elem_size,
                              size_t nelems, int pe);

/* Strided get, the mirror of sym_iput(). */
SYM_API sym_status_t sym_iget(void *dest, const void *src, ptrdiff_t dst_stride,
                              ptrdiff_t src_stride, size_t elem_size,
                              size_t nelems, int pe);

/* Single-element put/get of a naturally aligned 8/16/32/64-bit value.  The
 * element is written/read as one atomic access (never torn).  A misaligned
 * address is SYM_ERR_INVALID_ARG. */
SYM_API sym_status_t sym_p8(uint8_t *dest, uint8_t value, int pe);
SYM_API sym_status_t sym_p16(uint16_t *dest, uint16_t value, int pe);
SYM_API sym_status_t sym_p32(uint32_t *dest, uint32_t value, int pe);
SYM_API sym_status_t sym_p64(uint64_t *dest, uint64_t value, int pe);
SYM_API sym_status_t sym_g8(uint8_t *value_p, const uint8_t *src, int pe);
SYM_API sym_status_t sym_g16(uint16_t *value_p, const uint16_t *src, int pe);
SYM_API sym_status_t sym_g32(uint32_t *value_p, const uint32_t *src, int pe);
SYM_API sym_status_t sym_g64(uint64_t *value_p, const uint64_t *src, int pe);

/* Wait until every put, get and non-blocking operation issued by this PE is
 * complete and visible at its target.  Errors: SYM_ERR_NOT_INITIALIZED,
 * SYM_ERR_TRANSPORT. */
SYM_API sym_status_t sym_quiet(void);

/* Order this PE's puts, AMOs and signals to each single target PE: those
 * issued before the fence are visible at that PE before any issued after it.
 * Does not wait for completion. */
SYM_API sym_status_t sym_fence(void);

/* ------------------------------------------------------------------------ */
/* Atomics on 32- and 64-bit symmetric integers                              */
/* ------------------------------------------------------------------------ */
/*
 * `dest` is a naturally aligned symmetric word on PE `pe` (misaligned:
 * SYM_ERR_INVALID_ARG).  All are lock-free and atomic with respect to every
 * other symheap atomic on the same word from any PE.  Arithmetic wraps
 * modulo 2^32 / 2^64, so the unsigned functions serve signed integers too.
 * The fetching forms store the value the word held before the operation in
 * *old_p (which must not be NULL).  Each atomic is complete on return.
 *
 *   fetch         *old_p = *dest
 *   set           *dest = value
 *   swap          *old_p = *dest; *dest = value
 *   compare_swap  *old_p = *dest; if (*old_p == cond) *dest = value
 *   add / fetch_add, inc / fetch_inc
 *   and, or, xor / fetch_and, fetch_or, fetch_xor
 */
#define SYM_AMO_DECLARE_(bits)                                                               \
    SYM_API sym_status_t sym_atomic_fetch##bits(uint##bits##_t *old_p,                       \
                                                const uint##bits##_t *dest, int pe);         \
    SYM_API sym_status_t sym_atomic_set##bits(uint##bits##_t *dest, uint##bits##_t value,    \
                                              int pe);                                       \
    SYM_API sym_status_t sym_atomic_swap##bits(uint##bits##_t *dest, uint##bits##_t value,   \
                                               uint##bits##_t *old_p, int pe);               \
    SYM_API sym_status_t sym_atomic_compare_swap##bits(uint##bits##_t *dest,                 \
                                                       uint##bits##_t cond,                  \
                                                       uint##bits##_t value,                 \
                                                       uint##bits##_t *old_p, int pe);       \
    SYM_API sym_status_t sym_atomic_add##bits(uint##bits##_t *dest, uint##bits##_t value,    \
                                              int pe);                                       \
    SYM_API sym_status_t sym_atomic_fetch_add##bits(uint##bits##_t *dest,                    \
                                                    uint##bits##_t value,                    \
                                                    uint##bits##_t *old_p, int pe);          \
    SYM_API sym_status_t sym_atomic_inc##bits(uint##bits##_t *dest, int pe);                 \
    SYM_API sym_status_t sym_atomic_fetch_inc##bits(uint##bits##_t *dest,                    \
                                                    uint##bits##_t *old_p, int pe);          \
    SYM_API sym_status_t sym_atomic_and##bits(uint##bits##_t *dest, uint##bits##_t value,    \
                                              int pe);                                       \
    SYM_API sym_status_t sym_atomic_or##bits(uint##bits##_t *dest, uint##bits##_t value,     \
                                             int pe);                                        \
    SYM_API sym_status_t sym_atomic_xor##bits(uint##bits##_t *dest, uint##bits##_t value,    \
                                              int pe);                                       \
    SYM_API sym_status_t sym_atomic_fetch_and##bits(uint##bits##_t *dest,                    \
                                                    uint##bits##_t value,                    \
                                                    uint##bits##_t *old_p, int pe);          \
    SYM_API sym_status_t sym_atomic_fetch_or##bits(uint##bits##_t *dest,                     \
                                                   uint##bits##_t value,                     \
                                                   uint##bits##_t *old_p, int pe);           \
    SYM_API sym_status_t sym_atomic_fetch_xor##bits(uint##bits##_t *dest,                    \
                                                    uint##bits##_t value,                    \
                                                    uint##bits##_t *old_p, int pe);
SYM_AMO_DECLARE_(32)
SYM_AMO_DECLARE_(64)
#undef SYM_AMO_DECLARE_

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
SYM_API sym_status_t sym_put_signal(void *dest, const void *src, size_t nbytes,
                                    uint64_t *sig_addr, uint64_t signal,
                                    sym_signal_op_t op, int pe);

/* Non-blocking put-with-signal: `src` may be reused only after sym_quiet(). */
SYM_API sym_status_t sym_put_signal_nbi(void *dest, const void *src, size_t nbytes,
                                        uint64_t *sig_addr, uint64_t signal,
                                        sym_signal_op_t op, int pe);

/* Atomically read this PE's local signal word. */
SYM_API sym_status_t sym_signal_fetch(const uint64_t *sig_addr, uint64_t *value_p);

/* Wait until this PE's local signal word satisfies `cmp value`; store the
 * value that satisfied it in *value_p (may be NULL).  Errors:
 * SYM_ERR_TIMEOUT (message names the address and the awaited condition),
 * SYM_ERR_PEER_LOST, SYM_ERR_ABORTED, SYM_ERR_NOT_SYMMETRIC,
 * SYM_ERR_INVALID_ARG (bad cmp or alignment). */
SYM_API sym_status_t sym_signal_wait_until(uint64_t *sig_addr, sym_cmp_t cmp,
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
#define SYM_WAIT_DECLARE_(name, T)                                                           \
    SYM_API sym_status_t sym_wait_until_##name(T *ivar, sym_cmp_t cmp, T value);             \
    SYM_API sym_status_t sym_test_##name(T *ivar, sym_cmp_t cmp, T value, int *satisfied_p); \
    SYM_API sym_status_t sym_wait_until_all_##name(T *ivars, size_t nelems,                  \
                                                   const int *status, sym_cmp_t cmp,         \
                                                   T value);                                 \
    SYM_API sym_status_t sym_wait_until_any_##name(T *ivars, size_t nelems,                  \
                                                   const int *status, sym_cmp_t cmp,         \
                                                   T value, size_t *index_p);                \
    SYM_API sym_status_t sym_wait_until_some_##name(T *ivars, size_t nelems,                 \
                                                    const int *status, sym_cmp_t cmp,        \
                                                    T value, size_t *indices,                \
                                                    size_t *count_p);                        \
    SYM_API sym_status_t sym_test_all_##name(T *ivars, size_t nelems, const int *status,     \
                                             sym_cmp_t cmp, T value, int *satisfied_p);      \
    SYM_API sym_status_t sym_test_any_##name(T *ivars, size_t nelems, const int *status,     \
                                             sym_cmp_t cmp, T value, size_t *index_p);       \
    SYM_API sym_status_t sym_test_some_##name(T *ivars, size_t nelems, const int *status,    \
                                              sym_cmp_t cmp, T value, size_t *indices,       \
                                              size_t *count_p);
SYM_WAIT_DECLARE_(int32, int32_t)
SYM_WAIT_DECLARE_(int64, int64_t)
SYM_WAIT_DECLARE_(uint32, uint32_t)
SYM_WAIT_DECLARE_(uint64, uint64_t)
#undef SYM_WAIT_DECLARE_

/* ------------------------------------------------------------------------ */
/* Barriers                                                                  */
/* ------------------------------------------------------------------------ */

/* Complete all of this PE's outstanding operations (as sym_quiet()), then
 * wait until every PE has entered the barrier.  Collective over all PEs.
 * Errors: SYM_ERR_TIMEOUT (names the PE not arrived), SYM_ERR_PEER_LOST
 * (names the dead PE), SYM_ERR_ABORTED. */
SYM_API sym_status_t sym_barrier_all(void);

/* Wait until every PE has entered; unlike sym_barrier_all() it does not
 * complete outstanding non-blocking operations first.  Errors as
 * sym_barrier_all(). */
SYM_API sym_status_t sym_sync_all(void);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_H */
