/*
 * symheap/rma.h - one-sided puts and gets (contiguous, non-blocking, strided,
 * single-element), completion with sym_quiet() and ordering with sym_fence().
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_RMA_H
#define SYMHEAP_RMA_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* One-sided RMA                                                             */
/* ------------------------------------------------------------------------ */

/* Copy nbytes from local `src` to symmetric `dest` on PE `pe`.  Blocking:
 * on return `src` may be reused; remote completion (visibility at the target)
 * is guaranteed only after sym_quiet() (on shared memory it is immediate).
 * nbytes 0 is a no-op (arguments still checked).
 * Errors: SYM_ERR_INVALID_PE, SYM_ERR_NOT_SYMMETRIC (dest range not wholly
 * inside the heap), SYM_ERR_INVALID_ARG (NULL src with nbytes > 0). */
SYM_API SYM_NODISCARD sym_status_t sym_put(void *dest, const void *src, size_t nbytes, int pe);

/* Copy nbytes from symmetric `src` on PE `pe` into local `dest`.  Blocking:
 * the data has arrived on return.  Errors as sym_put().  After an error
 * (a lost peer, a timeout) `dest` holds unspecified bytes, but nothing is
 * written into it after the call returned: over libfabric a read still in
 * flight is completed first, for at most 2 s, else the transport is
 * abandoned (every later operation on it fails with SYM_ERR_TRANSPORT). */
SYM_API SYM_NODISCARD sym_status_t sym_get(void *dest, const void *src, size_t nbytes, int pe);

/* Non-blocking put: returns at once; `src` must not be modified and the
 * transfer is not complete until sym_quiet().  Errors as sym_put(). */
SYM_API SYM_NODISCARD sym_status_t sym_put_nbi(void *dest, const void *src, size_t nbytes, int pe);

/* Non-blocking get: `dest` is valid only after sym_quiet().  If that
 * sym_quiet() fails, `dest` may still be written until sym_finalize(). */
SYM_API SYM_NODISCARD sym_status_t sym_get_nbi(void *dest, const void *src, size_t nbytes, int pe);

/* Strided put: element i (of `elem_size` bytes, 1, 2, 4, 8 or 16) goes from
 * src[i * src_stride] to dest[i * dst_stride] on PE `pe`; strides are in
 * elements and must be >= 1.  Errors as sym_put(), plus SYM_ERR_INVALID_ARG
 * for a bad element size or stride. */
SYM_API SYM_NODISCARD sym_status_t sym_iput(void *dest, const void *src, ptrdiff_t dst_stride,
                                            ptrdiff_t src_stride, size_t elem_size, size_t nelems,
                                            int pe);

/* Strided get, the mirror of sym_iput(). */
SYM_API SYM_NODISCARD sym_status_t sym_iget(void *dest, const void *src, ptrdiff_t dst_stride,
                                            ptrdiff_t src_stride, size_t elem_size, size_t nelems,
                                            int pe);

/* Single-element put/get of a naturally aligned 8/16/32/64-bit value.  The
 * element is written/read as one atomic access (never torn).  A misaligned
 * address is SYM_ERR_INVALID_ARG. */
SYM_API SYM_NODISCARD sym_status_t sym_p8(uint8_t *dest, uint8_t value, int pe);
SYM_API SYM_NODISCARD sym_status_t sym_p16(uint16_t *dest, uint16_t value, int pe);
SYM_API SYM_NODISCARD sym_status_t sym_p32(uint32_t *dest, uint32_t value, int pe);
SYM_API SYM_NODISCARD sym_status_t sym_p64(uint64_t *dest, uint64_t value, int pe);
SYM_API SYM_NODISCARD sym_status_t sym_g8(uint8_t *value_p, const uint8_t *src, int pe);
SYM_API SYM_NODISCARD sym_status_t sym_g16(uint16_t *value_p, const uint16_t *src, int pe);
SYM_API SYM_NODISCARD sym_status_t sym_g32(uint32_t *value_p, const uint32_t *src, int pe);
SYM_API SYM_NODISCARD sym_status_t sym_g64(uint64_t *value_p, const uint64_t *src, int pe);

/* Wait until every put, get, non-fetching atomic, signal and non-blocking
 * operation issued by this PE is complete and visible at its target.  Errors:
 * SYM_ERR_NOT_INITIALIZED, SYM_ERR_TRANSPORT. */
SYM_API SYM_NODISCARD sym_status_t sym_quiet(void);

/* Order this PE's puts, AMOs and signals to each single target PE: those
 * issued before the fence are visible at that PE before any issued after it.
 * Does not wait for completion. */
SYM_API SYM_NODISCARD sym_status_t sym_fence(void);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_RMA_H */
