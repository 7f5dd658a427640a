/*
 * symheap/heap.h - symmetric memory: allocation, the heap's free space, direct
 * pointers to peers' objects and symmetric offsets.
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_HEAP_H
#define SYMHEAP_HEAP_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Symmetric memory                                                          */
/* ------------------------------------------------------------------------ */

/* Allocate `size` bytes of symmetric memory, aligned to 64 bytes.  Collective:
 * every PE must make the same sequence of allocation calls with the same
 * arguments; every PE then gets the same offset.  Includes a barrier, so the
 * object exists on every PE on return.
 *
 * Divergence is never silent.  Every collective allocation call (sym_malloc,
 * sym_calloc, sym_align, sym_realloc, sym_free), sym_barrier_all,
 * sym_sync_all and sym_finalize carry a fingerprint of the call in their
 * barrier: its kind, the size (and alignment, or the old object), and the
 * resulting (or freed) heap offset; a call that failed on one PE (a bad
 * pointer, an impossible alignment, no room) still takes part, saying it
 * failed.  When the fingerprints of a barrier differ, every PE fails the
 * call with SYM_ERR_MISMATCH, whose message names a PE and its call on each
 * side, and the heap is ROLLED BACK: no PE allocates, moves or frees
 * anything in that call, so every heap stays as it was and the next calls
 * pair up again.  When the barrier itself fails (a lost peer, an abort, a
 * timeout), the call's own change is undone on this PE and the heap is
 * UNUSABLE for collective allocation: the world barrier stays broken, so
 * every later allocation call, sym_barrier_all and sym_finalize fail at
 * once with the first error.
 *
 * With SYMHEAP_HEAP_PREALLOC on (the default) the shared memory behind the
 * object is reserved when the object is first handed out, so a job holds
 * only the memory it allocated, and a /dev/shm that cannot back it is
 * SYM_ERR_NO_MEMORY from this call, on every PE, rather than a SIGBUS at
 * a later touch.
 *
 * Returns NULL for size 0 (not an error, no synchronisation) and on failure,
 * with the reason in sym_last_error(): SYM_ERR_NO_MEMORY names the requested
 * and free bytes (or the shared memory that could not be reserved); a
 * failed call changes nothing.  Thread safety: serialised. */
SYM_API void *sym_malloc(size_t size);

/* Like sym_malloc(count * size) with the memory zeroed on every PE.  An
 * overflowing product fails with SYM_ERR_INVALID_ARG. */
SYM_API void *sym_calloc(size_t count, size_t size);

/* Like sym_malloc() with the given alignment: any power of two that fits
 * in the symmetric heap (each PE maps its heap aligned to the smallest
 * power of two not below the heap's size); else SYM_ERR_INVALID_ARG.  An
 * alignment that fits but leaves no room for `size` is SYM_ERR_NO_MEMORY. */
SYM_API void *sym_align(size_t alignment, size_t size);

/* Resize a symmetric object, keeping min(old, new) bytes of its contents on
 * every PE.  ptr NULL behaves like sym_malloc(size); size 0 frees ptr and
 * returns NULL.  On failure returns NULL and the old object is untouched,
 * also when the PEs' calls differ (SYM_ERR_MISMATCH, see sym_malloc).
 * Collective with an implicit barrier. */
SYM_API void *sym_realloc(void *ptr, size_t size);

/* Release a symmetric object.  Collective; a barrier precedes the release so
 * no PE can still be accessing it.  NULL is ignored (no synchronisation).  A
 * pointer that is not the start of a live object is reported in
 * sym_last_error() and still synchronises, so every PE's call fails with
 * SYM_ERR_MISMATCH in sym_last_error() and no PE releases anything (see
 * sym_malloc). */
SYM_API void sym_free(void *ptr);

/* Bytes still available to sym_malloc() (sum of free blocks) and the largest
 * single block; either output may be NULL. */
SYM_API SYM_NODISCARD sym_status_t sym_heap_free(size_t *free_bytes_p, size_t *largest_p);

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
SYM_API SYM_NODISCARD sym_status_t sym_addr_to_offset(const void *addr, size_t nbytes,
                                                      uint64_t *off_p);
SYM_API SYM_NODISCARD sym_status_t sym_offset_to_addr(uint64_t off, size_t nbytes, void **addr_p);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_HEAP_H */
