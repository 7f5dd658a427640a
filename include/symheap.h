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
 *   inside an object returned by sym_malloc() and friends, or be a global or
 *   static variable of the main executable (its .data and .bss, e.g.
 *   `static long dest[N]`: the same variable on every PE, whatever address
 *   PIE and ASLR gave it); otherwise the call fails with
 *   SYM_ERR_NOT_SYMMETRIC and nothing is transferred.  Local buffers (src of
 *   a put, dest of a get) may be any readable/writable memory.  On one host
 *   the variables are shared memory from sym_init() to sym_finalize() (after
 *   which no other PE reaches them; they keep their values); SYMHEAP_GLOBALS
 *   selects how
 *   peers reach them (see `symheap-info`).  PEs reached through libfabric
 *   (other hosts, or SYMHEAP_TRANSPORT=ofi) reach them as a second
 *   registered memory region: puts, gets, atomics and signals alike, but
 *   sym_ptr() gives no pointer.  Variables of shared libraries
 *   are not symmetric.
 * - PEs are numbered 0 .. sym_n_pes()-1; any other number is SYM_ERR_INVALID_PE.
 * - Before sym_init() (and after sym_finalize()) every function fails with
 *   SYM_ERR_NOT_INITIALIZED (pointer-returning functions return NULL, int
 *   queries return -1).
 * - Waits never block forever: each has a deadline of SYMHEAP_TIMEOUT seconds
 *   (default 60) after which it returns SYM_ERR_TIMEOUT, and a PE that dies is
 *   reported to the PEs waiting for it as SYM_ERR_PEER_LOST within about a
 *   second.
 * - Thread safety (OpenSHMEM's SHMEM_THREAD_MULTIPLE, see sym_init_thread()):
 *   several threads of one PE may call the one-sided functions at once: puts,
 *   gets, single-element and strided transfers, atomics, put-with-signal,
 *   signal fetch/wait, wait_until/test, quiet, fence, sym_ptr and the
 *   queries.  quiet and fence order and complete the calling thread's
 *   operations.  Collective calls are the caller's to serialise: sym_init,
 *   sym_finalize (no other thread may use symheap or write global variables
 *   while they run), allocation, and collectives, barriers, team calls and
 *   point-to-point send/recv on one team (different teams from different
 *   threads are fine).  A non-blocking collective request makes progress in
 *   the thread that issued it, or that last called sym_wait()/sym_test() on
 *   it.  sym_strerror() and sym_last_error() are always thread-safe.
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
SYM_API sym_status_t sym_set_error(sym_status_t status, const char *fmt, ...) SYM_PRINTF_(2, 3);

/* ------------------------------------------------------------------------ */
/* Runtime                                                                   */
/* ------------------------------------------------------------------------ */

/* Initialise the library: read the SYMHEAP_* environment (see
 * `symheap-info`), join the job (started by `symrun`, by a PMIx launcher
 * such as mpirun or srun, by hand through the TCP rendezvous at
 * SYMHEAP_ROOT_ADDR, or alone as PE 0 of 1: SYMHEAP_BOOTSTRAP), create this
 * PE's symmetric heap and map every peer's on this host, and make the
 * executable's global and static variables symmetric (PEs running different
 * executables fail with SYM_ERR_BOOTSTRAP).  Collective over all PEs of the
 * job.
 * Errors: SYM_ERR_ALREADY_INITIALIZED, SYM_ERR_CONFIG (a malformed variable;
 * the message names it and its value), SYM_ERR_NO_MEMORY (heap cannot be
 * backed), SYM_ERR_BOOTSTRAP (the message names the step: PMIx missing, root
 * address busy, inconsistent SYMHEAP_SIZE...), SYM_ERR_PEER_LOST,
 * SYM_ERR_TIMEOUT (a PE never showed up: the message names it),
 * SYM_ERR_UNAVAILABLE (PMIx launcher but no PMIx support built in),
 * SYM_ERR_SYSTEM.  On failure nothing stays allocated and init may be retried.
 * Thread safety: call from one thread, before any other symheap call. */
SYM_API sym_status_t sym_init(void);

/* Thread levels, as OpenSHMEM's SHMEM_THREAD_*: increasing values, each
 * allowing more than the previous one. */
typedef enum sym_thread_level {
    SYM_THREAD_SINGLE = 0,     /* one thread in the process */
    SYM_THREAD_FUNNELED = 1,   /* only the thread that called sym_init */
    SYM_THREAD_SERIALIZED = 2, /* any thread, never two at once */
    SYM_THREAD_MULTIPLE = 3,   /* any threads at once (see "Thread safety") */
} sym_thread_level_t;

/* sym_init() for a program that announces how it uses threads.  The library
 * supports every level up to SYM_THREAD_MULTIPLE, so *provided_p (if not
 * NULL) receives `requested`; sym_thread_level() reports it afterwards.
 * Errors: SYM_ERR_INVALID_ARG (requested is not a sym_thread_level_t),
 * then those of sym_init().  Thread safety: as sym_init(). */
SYM_API sym_status_t sym_init_thread(int requested, int *provided_p);

/* The level of the current initialisation: what sym_init_thread() provided,
 * SYM_THREAD_SINGLE after sym_init(); -1 when not initialised.
 * Thread-safe. */
SYM_API int sym_thread_level(void);

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

/* Symmetric offsets: the same object has the same offset on every PE,
 * while its address may differ between PEs (global variables move with
 * PIE and ASLR), so an offset is what PEs exchange to name an object or to
 * check that they were given the same one.
 * sym_addr_to_offset: *off_p = the offset of symmetric `addr`, whose whole
 * range [addr, addr + nbytes) must lie in one symmetric region.
 * sym_offset_to_addr: *addr_p = this PE's address of the bytes at `off`
 * (nbytes of them), e.g. to read a peer's object with sym_get().
 * Outputs are set only on success.  Errors: SYM_ERR_NOT_SYMMETRIC (outside
 * the user heap and the global variables), SYM_ERR_INVALID_ARG (NULL
 * output), SYM_ERR_NOT_INITIALIZED.  Thread-safe. */
SYM_API sym_status_t sym_addr_to_offset(const void *addr, size_t nbytes, uint64_t *off_p);
SYM_API sym_status_t sym_offset_to_addr(uint64_t off, size_t nbytes, void **addr_p);

/* The value in force of the SYMHEAP_* setting `name` (the list and each
 * value: `symheap-info`), as sym_init() read it from the environment:
 * sizes in bytes, counts, and switches as 0 or 1.
 * Errors: SYM_ERR_INVALID_ARG (NULL argument, no setting of that name, or
 * one that is not a whole number: seconds, words, text; the message says
 * which), SYM_ERR_NOT_INITIALIZED.  Thread-safe. */
SYM_API sym_status_t sym_config_uint(const char *name, uint64_t *value_p);

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
 * the data has arrived on return.  Errors as sym_put().  After an error
 * (a lost peer, a timeout) `dest` holds unspecified bytes, but nothing is
 * written into it after the call returned: over libfabric a read still in
 * flight is completed first, for at most 2 s, else the transport is
 * abandoned (every later operation on it fails with SYM_ERR_TRANSPORT). */
SYM_API sym_status_t sym_get(void *dest, const void *src, size_t nbytes, int pe);

/* Non-blocking put: returns at once; `src` must not be modified and the
 * transfer is not complete until sym_quiet().  Errors as sym_put(). */
SYM_API sym_status_t sym_put_nbi(void *dest, const void *src, size_t nbytes, int pe);

/* Non-blocking get: `dest` is valid only after sym_quiet().  If that
 * sym_quiet() fails, `dest` may still be written until sym_finalize(). */
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

/* Wait until every put, get, non-fetching atomic, signal and non-blocking
 * operation issued by this PE is complete and visible at its target.  Errors: SYM_ERR_NOT_INITIALIZED,
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
 * *old_p (which must not be NULL).  A fetching atomic (fetch, swap,
 * compare_swap, fetch_*) is complete on return.  A non-fetching one (set,
 * add, inc, and, or, xor) is complete on return on this PE's own word and
 * on a peer reached through shared memory; on a peer reached through
 * libfabric it may still be in flight, as OpenSHMEM's non-fetching atomics:
 * sym_quiet() (or a barrier) completes it, and sym_fence() orders it.
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
 * NaN or infinite), SYM_ERR_NOT_INITIALIZED.  Thread-safe: several threads
 * may wait at once, each on its own condition. */
SYM_API sym_status_t sym_wait_cond(const char *label, int (*ready)(void *arg), void *arg,
                                   void (*describe)(void *arg, char *buf, size_t len),
                                   double timeout_s);

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


/* ------------------------------------------------------------------------ */
/* Teams                                                                     */
/* ------------------------------------------------------------------------ */
/*
 * A team is an ordered subset of the job's PEs with its own numbering
 * (0 .. n-1, "local" PE numbers), its own mailbox space and its own sequence
 * of collective calls, so collectives on disjoint teams run concurrently
 * without interfering.  Handles stay valid until sym_team_destroy(); using a
 * destroyed handle is SYM_ERR_INVALID_ARG ("team ... was destroyed"), never a
 * crash.  (The records of the 256 most recently destroyed teams are kept for
 * this; an older one is reused for a new team, so memory stays flat however
 * many teams are made, and a handle kept that long past its destruction may
 * name the new team.)  A team whose collective failed (timeout, mismatch, lost PE) is
 * broken: every later collective on it fails at once with the original error
 * until it is destroyed.
 */
typedef struct sym_team *sym_team_t;
#define SYM_TEAM_INVALID ((sym_team_t)0)

/* The team of all PEs (local numbers = global numbers); SYM_TEAM_INVALID
 * before sym_init(). */
SYM_API sym_team_t sym_team_world(void);

/* This PE's number in `team`, its size; -1 for an invalid or destroyed team. */
SYM_API int sym_team_my_pe(sym_team_t team);
SYM_API int sym_team_n_pes(sym_team_t team);

/* Printable name ("world", "team 3"); "invalid" for a bad handle. */
SYM_API const char *sym_team_name(sym_team_t team);

/* Make a team of the parent's PEs start, start + stride, ... (size PEs, in
 * parent numbering; stride may be negative but not 0 unless size is 1).
 * Collective over every PE of the parent.  Members get the new handle in
 * *new_team_p, non-members SYM_TEAM_INVALID (as does every failure, here and
 * in sym_team_split_2d and sym_team_create).  Errors: SYM_ERR_INVALID_ARG
 * (a PE outside the parent, size < 1), SYM_ERR_NO_MEMORY (no free team
 * mailbox: the message says how many are in use; raise
 * SYMHEAP_MAILBOX_SIZE/SYMHEAP_TEAM_SLOTS or destroy teams), plus the errors
 * of a collective on the parent. */
SYM_API sym_status_t sym_team_split_strided(sym_team_t parent, int start, int stride, int size,
                                            sym_team_t *new_team_p);

/* View the parent as a 2-D grid of rows of `xrange` PEs (the last row may be
 * short) and make the row (x-axis) and column (y-axis) team of this PE.
 * Collective over the parent. */
SYM_API sym_status_t sym_team_split_2d(sym_team_t parent, int xrange, sym_team_t *xaxis_p,
                                       sym_team_t *yaxis_p);

/* Make a team from an explicit list of parent PE numbers (new local number i
 * = members[i]); every parent PE passes the same list (checked).  Collective
 * over the parent; non-members get SYM_TEAM_INVALID. */
SYM_API sym_status_t sym_team_create(sym_team_t parent, const int *members, int nmembers,
                                     sym_team_t *new_team_p);

/* Make the team of the parent's PEs that share memory with this PE: those
 * on its host whose heaps it maps (sym_ptr() gives a pointer to their
 * objects), in parent order; OpenSHMEM's SHMEM_TEAM_SHARED when the parent
 * is the world.  A PE reached only through libfabric (another host, or
 * SYMHEAP_TRANSPORT=ofi) is in a group of its own.  Collective over the
 * parent; every member gets the team of its group (each PE is in exactly
 * one).  Errors: SYM_ERR_INVALID_ARG (bad parent, NULL new_team_p), those
 * of sym_team_create(), plus the errors of a collective on the parent;
 * *new_team_p is SYM_TEAM_INVALID after any failure.  Thread safety: as
 * the other team calls (serialised on the parent). */
SYM_API sym_status_t sym_team_split_shared(sym_team_t parent, sym_team_t *new_team_p);

/* Fill global_pes[0 .. n-1] with the global PE number of each member. */
SYM_API sym_status_t sym_team_members(sym_team_t team, int *global_pes);

/* Global PE number -> this team's number (-1 if not a member), and back
 * (-1 if out of range). */
SYM_API int sym_team_global_to_local(sym_team_t team, int global_pe);
SYM_API int sym_team_local_to_global(sym_team_t team, int local_pe);

/* Number of PE `src_pe` of `src_team` in `dest_team`, or -1. */
SYM_API int sym_team_translate_pe(sym_team_t src_team, int src_pe, sym_team_t dest_team);

/* Default deadline of collectives on this team (seconds > 0). */
SYM_API sym_status_t sym_team_set_timeout(sym_team_t team, double seconds);

/* Release a team.  Collective over its members (a barrier on the team
 * first, so no member still uses it).  The world team cannot be destroyed.
 * A broken team can be destroyed (without the barrier). */
SYM_API sym_status_t sym_team_destroy(sym_team_t team);

/* ------------------------------------------------------------------------ */
/* Collectives                                                               */
/* ------------------------------------------------------------------------ */
/*
 * Every collective is called by every member of the team, with the same
 * arguments where the description says so (counts, datatype, op, root,
 * algorithm).  Each call publishes a fingerprint (sequence number, kind,
 * datatype, op, count, root, algorithm); PEs that disagree all return
 * SYM_ERR_MISMATCH with both fingerprints in the message, and no data of one
 * call is ever mixed into another.  Buffers are ordinary local memory (they
 * need not be symmetric), may be the same (in place) or overlap, and any
 * count is allowed, including 0: data larger than the mailbox is staged
 * through it in pipelined chunks.  Reductions give bit-identical results on
 * every PE and the same bits on every run of the same algorithm.
 *
 * Errors common to all: SYM_ERR_INVALID_ARG (bad team, datatype, op, root,
 * NULL buffer with count > 0, a bitwise op on a floating type),
 * SYM_ERR_TIMEOUT (names the collective, its sequence number, the team and
 * the PEs not heard from), SYM_ERR_PEER_LOST, SYM_ERR_MISMATCH, and the
 * team's earlier error once it is broken.
 * Thread safety: calls on one team must be serialised; different teams may
 * be used from different threads only with external serialisation.
 */
typedef enum sym_datatype {
    SYM_INT8 = 1,
    SYM_INT16,
    SYM_INT32,
    SYM_INT64,
    SYM_UINT8,
    SYM_UINT16,
    SYM_UINT32,
    SYM_UINT64,
    SYM_FLOAT,
    SYM_DOUBLE,
    SYM_FLOAT16,  /* IEEE binary16, as uint16_t bits; reduced in float */
    SYM_BFLOAT16, /* bfloat16, as uint16_t bits; reduced in float */
} sym_datatype_t;

typedef enum sym_op {
    SYM_OP_SUM = 1,
    SYM_OP_PROD,
    SYM_OP_MIN,
    SYM_OP_MAX,
    SYM_OP_AVG,  /* sum / number of PEs; integers: sum in 64 bits, truncated */
    SYM_OP_BAND, /* bitwise ops: integer types only */
    SYM_OP_BOR,
    SYM_OP_BXOR,
} sym_op_t;

typedef enum sym_algorithm {
    SYM_ALGO_AUTO = 0, /* chosen by size and team size (SYMHEAP_DEBUG logs it) */
    SYM_ALGO_NAIVE,    /* every PE exchanges directly with every peer */
    SYM_ALGO_RING,     /* neighbour to neighbour, pipelined chunks */
    SYM_ALGO_TREE,     /* binomial tree */
    SYM_ALGO_RD,       /* recursive doubling (non-powers of two folded in) */
    SYM_ALGO_PAIRWISE, /* pairwise exchange (all_to_all) */
} sym_algorithm_t;

/* Run-ahead of broadcast and reduce senders (sym_coll_opts_t.runahead). */
typedef enum sym_runahead {
    SYM_RUNAHEAD_DEFAULT = 0, /* SYMHEAP_COLL_RUNAHEAD (default 0: off) */
    SYM_RUNAHEAD_OFF,         /* wait until the receivers took the data */
    SYM_RUNAHEAD_ON,          /* return once the data is in their slots */
} sym_runahead_t;

/* Per-call options; pass NULL (or zero every field) for the defaults. */
typedef struct sym_coll_opts {
    sym_algorithm_t algorithm; /* AUTO: SYMHEAP_<COLL>_ALGORITHM, else automatic */
    double timeout_s;          /* > 0: deadline of this call; 0: the team's */
    /* sym_broadcast and sym_reduce only (other collectives ignore it).
     * OFF: a member that only sends (the broadcast root, a reduce leaf;
     * with ring or tree also members whose part ends with sends) waits
     * until its receivers consumed its data, so on a mismatched call every
     * member involved returns SYM_ERR_MISMATCH from that call.
     * ON: such a member returns as soon as its data is in the receivers'
     * mailbox slots (buf/src reusable), so a loop of small calls does not
     * pay a round trip per call.  Its cost is in error reporting: the
     * sender returns SYM_OK from a mismatched (or never received) call and
     * learns of it at its next call on the team, which fails with the
     * receiver's message naming the earlier call, or at sym_team_destroy /
     * sym_finalize; a credit wait that times out names the earlier call
     * whose data was never taken.  Each member may choose for itself. */
    sym_runahead_t runahead;
} sym_coll_opts_t;

/* Bytes of one element of `dt` (0 for an invalid datatype). */
SYM_API size_t sym_datatype_size(sym_datatype_t dt);

/* Printable names: "int32", "sum", "ring". */
SYM_API const char *sym_datatype_name(sym_datatype_t dt);
SYM_API const char *sym_op_name(sym_op_t op);
SYM_API const char *sym_algorithm_name(sym_algorithm_t algo);

/* Return when every member has entered.  Algorithms: rd (dissemination,
 * the default), naive (everyone reports to member 0, which releases all),
 * tree (binomial fan-in and fan-out). */
SYM_API sym_status_t sym_barrier(sym_team_t team, const sym_coll_opts_t *opts);

/* Copy `count` elements of buf at `root` (team number) into buf on every
 * member.  Algorithms: naive, ring (pipelined chain), tree.
 * With run-ahead (sym_coll_opts_t.runahead, SYMHEAP_COLL_RUNAHEAD) a
 * member that only sends returns once its data is in its receivers'
 * mailbox slots and buf may be reused: in a loop of calls it runs up to
 * the slots of a link (2..8 chunks) ahead per receiver, and it learns of a
 * mismatch at its next call on the team (or at sym_team_destroy /
 * sym_finalize).  Without it (the default) every member involved in a
 * mismatch returns SYM_ERR_MISMATCH from the mismatched call. */
SYM_API sym_status_t sym_broadcast(sym_team_t team, void *buf, size_t count, sym_datatype_t dt,
                                   int root, const sym_coll_opts_t *opts);

/* Combine `src` of every member element-wise with `op` into `dst` at `root`
 * (dst is ignored elsewhere and may be NULL there).  Algorithms: naive,
 * ring, tree.  A NULL dst at the root is SYM_ERR_INVALID_ARG there only:
 * the other members cannot know and time out.  With run-ahead, members
 * that only send return without waiting for the root, as in sym_broadcast. */
SYM_API sym_status_t sym_reduce(sym_team_t team, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, sym_op_t op, int root,
                                const sym_coll_opts_t *opts);

/* Combine `src` of every member into `dst` on every member.  Algorithms:
 * naive, ring (reduce-scatter + all-gather), tree (reduce + broadcast),
 * rd. */
SYM_API sym_status_t sym_allreduce(sym_team_t team, void *dst, const void *src, size_t count,
                                   sym_datatype_t dt, sym_op_t op, const sym_coll_opts_t *opts);

/* src holds n blocks of `count` elements; member i gets in dst the combined
 * block i.  Algorithms: naive, ring. */
SYM_API sym_status_t sym_reduce_scatter(sym_team_t team, void *dst, const void *src,
                                        size_t count, sym_datatype_t dt, sym_op_t op,
                                        const sym_coll_opts_t *opts);

/* dst (n * count elements) receives every member's `count`-element src in
 * team order.  Algorithms: naive, ring, rd. */
SYM_API sym_status_t sym_all_gather(sym_team_t team, void *dst, const void *src, size_t count,
                                    sym_datatype_t dt, const sym_coll_opts_t *opts);

/* Like sym_all_gather with counts[i] elements from member i (the same array
 * on every member, checked); dst receives them packed in team order.
 * Algorithms: naive, ring, rd. */
SYM_API sym_status_t sym_all_gatherv(sym_team_t team, void *dst, const void *src,
                                     const size_t *counts, sym_datatype_t dt,
                                     const sym_coll_opts_t *opts);

/* src holds n blocks of `count` elements, block j for member j; dst receives
 * block i from every member i, in team order.  Algorithms: naive, pairwise. */
SYM_API sym_status_t sym_all_to_all(sym_team_t team, void *dst, const void *src, size_t count,
                                    sym_datatype_t dt, const sym_coll_opts_t *opts);

/* Uneven all-to-all: send_counts[j] elements of src (packed in team order)
 * go to member j; recv_counts[i] elements from member i land packed in dst.
 * What member A sends to B must equal what B expects from A: otherwise both
 * return SYM_ERR_MISMATCH and nothing of that block is written.
 * Algorithms: naive, pairwise. */
SYM_API sym_status_t sym_all_to_allv(sym_team_t team, void *dst, const size_t *recv_counts,
                                     const void *src, const size_t *send_counts,
                                     sym_datatype_t dt, const sym_coll_opts_t *opts);

/* Every member's `count` elements land in dst (n * count, team order) at
 * root.  Algorithms: naive, tree. */
SYM_API sym_status_t sym_gather(sym_team_t team, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, int root, const sym_coll_opts_t *opts);

/* Block i of root's src (n * count elements) lands in dst on member i.
 * Algorithms: naive, tree. */
SYM_API sym_status_t sym_scatter(sym_team_t team, void *dst, const void *src, size_t count,
                                 sym_datatype_t dt, int root, const sym_coll_opts_t *opts);

/* ------------------------------------------------------------------------ */
/* Non-blocking collectives                                                  */
/* ------------------------------------------------------------------------ */
/*
 * sym_i<collective> starts the collective and returns a request at once;
 * sym_wait() or sym_test() completes it.  Results are those of the blocking
 * call with the same arguments.  Buffers (and the counts arrays, which are
 * copied) must stay valid and untouched until completion.  Progress is made
 * inside library calls that wait (sym_wait, sym_test, blocking collectives,
 * barriers): there is no helper thread.  Several requests may be in flight
 * on different teams; on one team they run in issue order, and a blocking
 * collective on a team first completes that team's pending requests.
 * Argument errors of the collective are reported by sym_wait/sym_test;
 * a bad team or a NULL req_p fails the call itself (SYM_ERR_INVALID_ARG),
 * and *req_p is SYM_REQUEST_NULL after any failure.
 */
typedef struct sym_request *sym_request_t;
#define SYM_REQUEST_NULL ((sym_request_t)0)

/* Complete the request, free it and set *req_p to SYM_REQUEST_NULL;
 * returns the collective's status (its message in sym_last_error()). */
SYM_API sym_status_t sym_wait(sym_request_t *req_p);

/* Make progress; *done_p = 1 and the request is completed as by sym_wait()
 * (status returned) if it has finished, else *done_p = 0 and SYM_OK. */
SYM_API sym_status_t sym_test(sym_request_t *req_p, int *done_p);

/* The collective's name ("allreduce"), or "invalid". */
SYM_API const char *sym_request_op(sym_request_t req);

SYM_API sym_status_t sym_ibarrier(sym_team_t team, const sym_coll_opts_t *opts,
                                  sym_request_t *req_p);
SYM_API sym_status_t sym_ibroadcast(sym_team_t team, void *buf, size_t count, sym_datatype_t dt,
                                    int root, const sym_coll_opts_t *opts, sym_request_t *req_p);
SYM_API sym_status_t sym_ireduce(sym_team_t team, void *dst, const void *src, size_t count,
                                 sym_datatype_t dt, sym_op_t op, int root,
                                 const sym_coll_opts_t *opts, sym_request_t *req_p);
SYM_API sym_status_t sym_iallreduce(sym_team_t team, void *dst, const void *src, size_t count,
                                    sym_datatype_t dt, sym_op_t op, const sym_coll_opts_t *opts,
                                    sym_request_t *req_p);
SYM_API sym_status_t sym_ireduce_scatter(sym_team_t team, void *dst, const void *src,
                                         size_t count, sym_datatype_t dt, sym_op_t op,
                                         const sym_coll_opts_t *opts, sym_request_t *req_p);
SYM_API sym_status_t sym_iall_gather(sym_team_t team, void *dst, const void *src, size_t count,
                                     sym_datatype_t dt, const sym_coll_opts_t *opts,
                                     sym_request_t *req_p);
SYM_API sym_status_t sym_iall_gatherv(sym_team_t team, void *dst, const void *src,
                                      const size_t *counts, sym_datatype_t dt,
                                      const sym_coll_opts_t *opts, sym_request_t *req_p);
SYM_API sym_status_t sym_iall_to_all(sym_team_t team, void *dst, const void *src, size_t count,
                                     sym_datatype_t dt, const sym_coll_opts_t *opts,
                                     sym_request_t *req_p);
SYM_API sym_status_t sym_iall_to_allv(sym_team_t team, void *dst, const size_t *recv_counts,
                                      const void *src, const size_t *send_counts,
                                      sym_datatype_t dt, const sym_coll_opts_t *opts,
                                      sym_request_t *req_p);
SYM_API sym_status_t sym_igather(sym_team_t team, void *dst, const void *src, size_t count,
                                 sym_datatype_t dt, int root, const sym_coll_opts_t *opts,
                                 sym_request_t *req_p);
SYM_API sym_status_t sym_iscatter(sym_team_t team, void *dst, const void *src, size_t count,
                                  sym_datatype_t dt, int root, const sym_coll_opts_t *opts,
                                  sym_request_t *req_p);

/* ------------------------------------------------------------------------ */
/* Point-to-point messages                                                   */
/* ------------------------------------------------------------------------ */
/*
 * Tagged messages between two PEs (global PE numbers) through mailboxes in
 * the symmetric heap.  Messages from one PE to another arrive in the order
 * they were sent (per tag); any size is allowed, staged in chunks.  A
 * message that arrives before its receive is posted is queued by the
 * receiver.  Tags are >= 0; SYM_ANY_TAG matches any tag in sym_recv.
 * Errors common to all: SYM_ERR_INVALID_PE (out of range),
 * SYM_ERR_INVALID_ARG (the PE itself: "self rank"; NULL buffer with a size;
 * negative tag), SYM_ERR_TIMEOUT, SYM_ERR_PEER_LOST.
 */
#define SYM_ANY_TAG (-1)

/* Send nbytes to PE `pe`.  Returns when `buf` may be reused: the data is in
 * the receiver's mailbox or queue; if its mailbox is full this waits for the
 * receiver to make room (up to the timeout). */
SYM_API sym_status_t sym_send(const void *buf, size_t nbytes, int pe, int tag);

/* Receive the next message from PE `pe` with `tag` into buf (capacity
 * bytes) and store its size in *received_p (may be NULL).  A message larger
 * than the buffer is SYM_ERR_TRUNCATED: nothing is written, *received_p
 * gets the size needed, and the message stays queued for a larger buffer. */
SYM_API sym_status_t sym_recv(void *buf, size_t capacity, int pe, int tag, size_t *received_p);

/* Send to `dest` and receive from `source` at the same time (they may be
 * the same PE): never deadlocks, whatever the sizes.  The two buffers must
 * not overlap (SYM_ERR_INVALID_ARG). */
SYM_API sym_status_t sym_sendrecv(const void *sendbuf, size_t sendbytes, int dest, int sendtag,
                                  void *recvbuf, size_t capacity, int source, int recvtag,
                                  size_t *received_p);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_H */
