/*
 * shm_atomic.h - atomics on a word of a mapped heap.  Shared by the shm
 * transport and the API's inline path for mapped peers, so both execute the
 * same instructions.
 */
#ifndef SYM_SHM_ATOMIC_H
#define SYM_SHM_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#include "transport.h"

#define SHM_AMO_CASES_(T, p, op, operand, compare)                                                 \
    switch (op) {                                                                                  \
    case SYM_AMO_FETCH:                                                                            \
        return __atomic_load_n((T *)(p), __ATOMIC_SEQ_CST);                                        \
    case SYM_AMO_SET:                                                                              \
        __atomic_store_n((T *)(p), (T)(operand), __ATOMIC_SEQ_CST);                                \
        return 0;                                                                                  \
    case SYM_AMO_SWAP:                                                                             \
        return __atomic_exchange_n((T *)(p), (T)(operand), __ATOMIC_SEQ_CST);                      \
    case SYM_AMO_CSWAP: {                                                                          \
        T expected = (T)(compare);                                                                 \
        __atomic_compare_exchange_n((T *)(p), &expected, (T)(operand), false, __ATOMIC_SEQ_CST,    \
                                    __ATOMIC_SEQ_CST);                                             \
        return expected;                                                                           \
    }                                                                                              \
    case SYM_AMO_ADD:                                                                              \
    case SYM_AMO_FETCH_ADD:                                                                        \
        return __atomic_fetch_add((T *)(p), (T)(operand), __ATOMIC_SEQ_CST);                       \
    case SYM_AMO_AND:                                                                              \
    case SYM_AMO_FETCH_AND:                                                                        \
        return __atomic_fetch_and((T *)(p), (T)(operand), __ATOMIC_SEQ_CST);                       \
    case SYM_AMO_OR:                                                                               \
    case SYM_AMO_FETCH_OR:                                                                         \
        return __atomic_fetch_or((T *)(p), (T)(operand), __ATOMIC_SEQ_CST);                        \
    case SYM_AMO_XOR:                                                                              \
    case SYM_AMO_FETCH_XOR:                                                                        \
        return __atomic_fetch_xor((T *)(p), (T)(operand), __ATOMIC_SEQ_CST);                       \
    }                                                                                              \
    return 0;

static inline uint64_t shm_amo32(void *p, sym_amo_op_t op, uint64_t operand, uint64_t compare)
{
    SHM_AMO_CASES_(uint32_t, p, op, operand, compare)
}

static inline uint64_t shm_amo64(void *p, sym_amo_op_t op, uint64_t operand, uint64_t compare)
{
    SHM_AMO_CASES_(uint64_t, p, op, operand, compare)
}

/* Atomic `op` on the `width`-byte word at p; returns the previous value
 * (0 for SET). */
static inline uint64_t shm_amo(void *p, sym_amo_op_t op, size_t width, uint64_t operand,
                               uint64_t compare)
{
    return width == 4 ? shm_amo32(p, op, operand, compare) : shm_amo64(p, op, operand, compare);
}

#endif /* SYM_SHM_ATOMIC_H */
