/*
 * amo.c - OpenSHMEM atomics for the standard, extended and bitwise AMO
 * types, their context, non-blocking fetching and deprecated forms, mapped
 * onto symheap's 32- and 64-bit atomics by the type's size.
 */
#include <string.h>

#include "shmem_internal.h"

enum amo_op { FETCH, SET, SWAP, CSWAP, ADD, FADD, AND, FAND, OR, FOR, XOR, FXOR };

/* Apply `op` to the 4- or 8-byte word at dest on PE pe; returns the old
 * value (fetching forms) in the low bits. */
static uint64_t amo(shmem_ctx_t ctx, const char *routine, enum amo_op op, void *dest, size_t esz,
                    uint64_t value, uint64_t cond, int pe)
{
    pe = symshmem_ctx_pe(ctx, pe, routine);
    if (pe < 0) /* SHMEM_CTX_INVALID: a no-op, fetching 0 */
        return 0;
    sym_status_t st = SYM_ERR_INVALID_ARG;
    if (esz == 4) {
        uint32_t *d = dest, v = (uint32_t)value, old = 0;
        switch (op) {
        case FETCH:
            st = sym_atomic_fetch32(&old, d, pe);
            break;
        case SET:
            st = sym_atomic_set32(d, v, pe);
            break;
        case SWAP:
            st = sym_atomic_swap32(d, v, &old, pe);
            break;
        case CSWAP:
            st = sym_atomic_compare_swap32(d, (uint32_t)cond, v, &old, pe);
            break;
        case ADD:
            st = sym_atomic_add32(d, v, pe);
            break;
        case FADD:
            st = sym_atomic_fetch_add32(d, v, &old, pe);
            break;
        case AND:
            st = sym_atomic_and32(d, v, pe);
            break;
        case FAND:
            st = sym_atomic_fetch_and32(d, v, &old, pe);
            break;
        case OR:
            st = sym_atomic_or32(d, v, pe);
            break;
        case FOR:
            st = sym_atomic_fetch_or32(d, v, &old, pe);
            break;
        case XOR:
            st = sym_atomic_xor32(d, v, pe);
            break;
        case FXOR:
            st = sym_atomic_fetch_xor32(d, v, &old, pe);
            break;
        }
        symshmem_check(routine, st);
        return old;
    }
    uint64_t *d = dest, v = value, old = 0;
    switch (op) {
    case FETCH:
        st = sym_atomic_fetch64(&old, d, pe);
        break;
    case SET:
        st = sym_atomic_set64(d, v, pe);
        break;
    case SWAP:
        st = sym_atomic_swap64(d, v, &old, pe);
        break;
    case CSWAP:
        st = sym_atomic_compare_swap64(d, cond, v, &old, pe);
        break;
    case ADD:
        st = sym_atomic_add64(d, v, pe);
        break;
    case FADD:
        st = sym_atomic_fetch_add64(d, v, &old, pe);
        break;
    case AND:
        st = sym_atomic_and64(d, v, pe);
        break;
    case FAND:
        st = sym_atomic_fetch_and64(d, v, &old, pe);
        break;
    case OR:
        st = sym_atomic_or64(d, v, pe);
        break;
    case FOR:
        st = sym_atomic_fetch_or64(d, v, &old, pe);
        break;
    case XOR:
        st = sym_atomic_xor64(d, v, pe);
        break;
    case FXOR:
        st = sym_atomic_fetch_xor64(d, v, &old, pe);
        break;
    }
    symshmem_check(routine, st);
    return old;
}

/* A value's bits, and back (4- or 8-byte types, floats included). */
static inline uint64_t bits_of(const void *value, size_t esz)
{
    if (esz == 4) {
        uint32_t u;
        memcpy(&u, value, 4);
        return u;
    }
    uint64_t u;
    memcpy(&u, value, 8);
    return u;
}

static inline void from_bits(void *value, uint64_t bits, size_t esz)
{
    if (esz == 4) {
        uint32_t u = (uint32_t)bits;
        memcpy(value, &u, 4);
    } else {
        memcpy(value, &bits, 8);
    }
}

/* The body of a fetching AMO returning T, and of its _nbi form storing it
 * in *fetch (complete on return, which the _nbi contract allows). */
#define AMO_RET_(T, op, dest, value, cond)                                                         \
    (T v_ = (value), c_ = (cond), r_;                                                              \
     from_bits(&r_,                                                                                \
               amo(ctx, routine, op, (void *)(dest), sizeof(T), bits_of(&v_, sizeof(T)),           \
                   bits_of(&c_, sizeof(T)), pe),                                                   \
               sizeof(T));                                                                         \
     return r_;)
#define AMO_NBI_(T, op, dest, value, cond)                                                         \
    (T v_ = (value), c_ = (cond);                                                                  \
     uint64_t old_ = amo(ctx, routine, op, (void *)(dest), sizeof(T), bits_of(&v_, sizeof(T)),     \
                         bits_of(&c_, sizeof(T)), pe);                                             \
     if (ctx != SHMEM_CTX_INVALID) from_bits(fetch, old_, sizeof(T));)
#define AMO_VOID_(T, op, dest, value)                                                              \
    (T v_ = (value); amo(ctx, routine, op, dest, sizeof(T), bits_of(&v_, sizeof(T)), 0, pe);)

/* Deprecated names: the default context under the old routine name. */
#define AMO_OLD_(ret, name, body, ...)                                                             \
    SYMSHMEM_WEAK_(shmem_##name) ret pshmem_##name(__VA_ARGS__)                                    \
    {                                                                                              \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                       \
        const char *routine = "shmem_" #name;                                                      \
        SYMSHMEM_UNPAREN_ body                                                                     \
    }

#define AMO_DEF_(a, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)                \
    SYMSHMEM_IF_(AMOX)                                                                             \
    (SYMSHMEM_DEF_CTX_(T, N##_atomic_fetch, AMO_RET_(T, FETCH, source, 0, 0), const T *source,     \
                       int pe) SYMSHMEM_DEF_CTX_(void, N##_atomic_set,                             \
                                                 AMO_VOID_(T, SET, dest, value), T *dest, T value, \
                                                 int pe)                                           \
         SYMSHMEM_DEF_CTX_(T, N##_atomic_swap, AMO_RET_(T, SWAP, dest, value, 0), T * dest,        \
                           T value, int pe) SYMSHMEM_DEF_CTX_(void, N##_atomic_fetch_nbi,          \
                                                              AMO_NBI_(T, FETCH, source, 0, 0),    \
                                                              T *fetch, const T *source, int pe)   \
             SYMSHMEM_DEF_CTX_(void, N##_atomic_swap_nbi, AMO_NBI_(T, SWAP, dest, value, 0),       \
                               T *fetch, T *dest, T value, int pe)                                 \
                 AMO_OLD_(T, N##_fetch, AMO_RET_(T, FETCH, source, 0, 0), const T *source, int pe) \
                     AMO_OLD_(void, N##_set, AMO_VOID_(T, SET, dest, value), T *dest, T value,     \
                              int pe) AMO_OLD_(T, N##_swap, AMO_RET_(T, SWAP, dest, value, 0),     \
                                               T * dest, T value, int pe))                         \
        SYMSHMEM_IF_(AMO)(                                                                         \
            SYMSHMEM_DEF_CTX_(T, N##_atomic_compare_swap, AMO_RET_(T, CSWAP, dest, value, cond),   \
                              T * dest, T cond, T value, int pe)                                   \
                SYMSHMEM_DEF_CTX_(T, N##_atomic_fetch_inc, AMO_RET_(T, FADD, dest, 1, 0),          \
                                  T * dest, int pe) SYMSHMEM_DEF_CTX_(void, N##_atomic_inc,        \
                                                                      AMO_VOID_(T, ADD, dest, 1),  \
                                                                      T *dest, int pe)             \
                    SYMSHMEM_DEF_CTX_(T, N##_atomic_fetch_add, AMO_RET_(T, FADD, dest, value, 0),  \
                                      T * dest, T value, int pe)                                   \
                        SYMSHMEM_DEF_CTX_(void, N##_atomic_add, AMO_VOID_(T, ADD, dest, value),    \
                                          T *dest, T value, int pe)                                \
                            SYMSHMEM_DEF_CTX_(void, N##_atomic_compare_swap_nbi,                   \
                                              AMO_NBI_(T, CSWAP, dest, value, cond), T *fetch,     \
                                              T *dest, T cond, T value, int pe)                    \
                                SYMSHMEM_DEF_CTX_(                                                 \
                                    void, N##_atomic_fetch_inc_nbi, AMO_NBI_(T, FADD, dest, 1, 0), \
                                    T *fetch, T *dest,                                             \
                                    int pe) SYMSHMEM_DEF_CTX_(void, N##_atomic_fetch_add_nbi,      \
                                                              AMO_NBI_(T, FADD, dest, value, 0),   \
                                                              T *fetch, T *dest, T value, int pe)  \
                                    AMO_OLD_(T, N##_cswap, AMO_RET_(T, CSWAP, dest, value, cond),  \
                                             T * dest, T cond, T value, int pe)                    \
                                        AMO_OLD_(T, N##_finc, AMO_RET_(T, FADD, dest, 1, 0),       \
                                                 T * dest, int pe)                                 \
                                            AMO_OLD_(void, N##_inc, AMO_VOID_(T, ADD, dest, 1),    \
                                                     T *dest, int pe)                              \
                                                AMO_OLD_(T, N##_fadd,                              \
                                                         AMO_RET_(T, FADD, dest, value, 0),        \
                                                         T * dest, T value, int pe)                \
                                                    AMO_OLD_(void, N##_add,                        \
                                                             AMO_VOID_(T, ADD, dest, value),       \
                                                             T *dest, T value, int pe))            \
            SYMSHMEM_IF_(BIT)(                                                                     \
                SYMSHMEM_DEF_CTX_(T, N##_atomic_fetch_and, AMO_RET_(T, FAND, dest, value, 0),      \
                                  T * dest, T value,                                               \
                                  int pe) SYMSHMEM_DEF_CTX_(void, N##_atomic_and,                  \
                                                            AMO_VOID_(T, AND, dest, value),        \
                                                            T *dest, T value, int pe)              \
                    SYMSHMEM_DEF_CTX_(T, N##_atomic_fetch_or, AMO_RET_(T, FOR, dest, value, 0),    \
                                      T * dest, T value, int pe)                                   \
                        SYMSHMEM_DEF_CTX_(void, N##_atomic_or, AMO_VOID_(T, OR, dest, value),      \
                                          T *dest, T value, int pe)                                \
                            SYMSHMEM_DEF_CTX_(T, N##_atomic_fetch_xor,                             \
                                              AMO_RET_(T, FXOR, dest, value, 0), T * dest,         \
                                              T value, int pe)                                     \
                                SYMSHMEM_DEF_CTX_(void, N##_atomic_xor,                            \
                                                  AMO_VOID_(T, XOR, dest, value), T *dest,         \
                                                  T value, int pe)                                 \
                                    SYMSHMEM_DEF_CTX_(void, N##_atomic_fetch_and_nbi,              \
                                                      AMO_NBI_(T, FAND, dest, value, 0), T *fetch, \
                                                      T *dest, T value, int pe)                    \
                                        SYMSHMEM_DEF_CTX_(void, N##_atomic_fetch_or_nbi,           \
                                                          AMO_NBI_(T, FOR, dest, value, 0),        \
                                                          T *fetch, T *dest, T value, int pe)      \
                                            SYMSHMEM_DEF_CTX_(void, N##_atomic_fetch_xor_nbi,      \
                                                              AMO_NBI_(T, FXOR, dest, value, 0),   \
                                                              T *fetch, T *dest, T value, int pe))
SYMSHMEM_TYPES_(AMO_DEF_, _)
