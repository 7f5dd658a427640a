/*
 * symheap/amo.h - atomics on 32- and 64-bit symmetric integers.
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_AMO_H
#define SYMHEAP_AMO_H

#include <stdint.h>
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

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
#define SYM_AMO_DECLARE_(bits)                                                                     \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_fetch##bits(uint##bits##_t *old_p,               \
                                                              const uint##bits##_t *dest, int pe); \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_set##bits(uint##bits##_t *dest,                  \
                                                            uint##bits##_t value, int pe);         \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_swap##bits(                                      \
        uint##bits##_t *dest, uint##bits##_t value, uint##bits##_t *old_p, int pe);                \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_compare_swap##bits(                              \
        uint##bits##_t *dest, uint##bits##_t cond, uint##bits##_t value, uint##bits##_t *old_p,    \
        int pe);                                                                                   \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_add##bits(uint##bits##_t *dest,                  \
                                                            uint##bits##_t value, int pe);         \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_fetch_add##bits(                                 \
        uint##bits##_t *dest, uint##bits##_t value, uint##bits##_t *old_p, int pe);                \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_inc##bits(uint##bits##_t *dest, int pe);         \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_fetch_inc##bits(uint##bits##_t *dest,            \
                                                                  uint##bits##_t *old_p, int pe);  \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_and##bits(uint##bits##_t *dest,                  \
                                                            uint##bits##_t value, int pe);         \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_or##bits(uint##bits##_t *dest,                   \
                                                           uint##bits##_t value, int pe);          \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_xor##bits(uint##bits##_t *dest,                  \
                                                            uint##bits##_t value, int pe);         \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_fetch_and##bits(                                 \
        uint##bits##_t *dest, uint##bits##_t value, uint##bits##_t *old_p, int pe);                \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_fetch_or##bits(                                  \
        uint##bits##_t *dest, uint##bits##_t value, uint##bits##_t *old_p, int pe);                \
    SYM_API SYM_NODISCARD sym_status_t sym_atomic_fetch_xor##bits(                                 \
        uint##bits##_t *dest, uint##bits##_t value, uint##bits##_t *old_p, int pe);
SYM_AMO_DECLARE_(32)
SYM_AMO_DECLARE_(64)
#undef SYM_AMO_DECLARE_

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_AMO_H */
