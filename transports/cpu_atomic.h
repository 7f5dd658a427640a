/*
 * cpu_atomic.h - atomics on a word of a mapped heap, as CPU instructions.
 * Shared by the runtime's inline path for mapped peers (src/core/amo.c) and
 * a transport that declares SYM_TP_CAP_CPU_ATOMICS (shm), so both execute
 * the same instructions: that is what makes them atomic with respect to
 * each other.  Part of the transport interface, like transport.h.
 */
#ifndef SYM_CPU_ATOMIC_H
#define SYM_CPU_ATOMIC_H

#include <stdbool.h>
#include <stdint.h>

#include "transport.h"

#define SYM_CPU_AMO_CASES_(T, p, op, operand, compare)                                             \
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

static inline uint64_t sym_cpu_amo32(void *p, sym_amo_op_t op, uint64_t operand, uint64_t compare)
{
    SYM_CPU_AMO_CASES_(uint32_t, p, op, operand, compare)
}

static inline uint64_t sym_cpu_amo64(void *p, sym_amo_op_t op, uint64_t operand, uint64_t compare)
{
    SYM_CPU_AMO_CASES_(uint64_t, p, op, operand, compare)
}

/* Atomic `op` on the `width`-byte word at p; returns the previous value
 * (0 for SET). */
static inline uint64_t sym_cpu_amo(void *p, sym_amo_op_t op, size_t width, uint64_t operand,
                                   uint64_t compare)
{
    return width == 4 ? sym_cpu_amo32(p, op, operand, compare)
                      : sym_cpu_amo64(p, op, operand, compare);
}

#endif /* SYM_CPU_ATOMIC_H */
