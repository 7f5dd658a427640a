/* amo.c - atomics on 32- and 64-bit symmetric words. */
#include "core/internal.h"
#include "cpu_atomic.h"

/* Check, translate, then run the op inline on a mapped peer or through the
 * peer's transport.  Returns the fetched value through *old_p if non-NULL. */
static inline sym_status_t amo(const char *op_name, void *dest, size_t width, sym_amo_op_t op,
                               uint64_t operand, uint64_t compare, uint64_t *old_p, int pe,
                               bool fetches)
{
    sym_fault_point(SYM_FAULT_OP_ATOMIC);
    uint64_t off = 0;
    sym_status_t st = sym_check_pe(op_name, pe);
    if (__builtin_expect(st != SYM_OK, 0))
        return st;
    if (__builtin_expect((st = sym_sym_offset(op_name, "dest", dest, width, pe, &off)) != SYM_OK,
                         0))
        return st;
    if (__builtin_expect(off % width != 0, 0))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: dest %p is not %zu-byte aligned", op_name, dest,
                         width);
    if (__builtin_expect(fetches && !old_p, 0))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: output pointer for the fetched value is NULL",
                         op_name);
    void *p = sym_direct_amo(pe, off);
    if (__builtin_expect(p != NULL, 1)) {
        uint64_t old = sym_cpu_amo(p, op, width, operand, compare);
        if (old_p)
            *old_p = old;
        return SYM_OK;
    }
    struct sym_deadline dl = sym_deadline_default(op_name);
    struct sym_transport *tp = sym_amo_tp(pe);
    return tp->ops->atomic(tp, pe, off, op, width, operand, compare, old_p, &dl);
}

#define SYM_AMO_DEFINE_(bits)                                                                      \
    SYM_API sym_status_t sym_atomic_fetch##bits(uint##bits##_t *old_p, const uint##bits##_t *dest, \
                                                int pe)                                            \
    {                                                                                              \
        uint64_t old;                                                                              \
        sym_status_t st = amo("sym_atomic_fetch" #bits, (void *)dest, bits / 8, SYM_AMO_FETCH, 0,  \
                              0, old_p ? &old : NULL, pe, true);                                   \
        if (st == SYM_OK)                                                                          \
            *old_p = (uint##bits##_t)old;                                                          \
        return st;                                                                                 \
    }                                                                                              \
    SYM_API sym_status_t sym_atomic_set##bits(uint##bits##_t *dest, uint##bits##_t value, int pe)  \
    {                                                                                              \
        return amo("sym_atomic_set" #bits, dest, bits / 8, SYM_AMO_SET, value, 0, NULL, pe,        \
                   false);                                                                         \
    }                                                                                              \
    SYM_API sym_status_t sym_atomic_compare_swap##bits(uint##bits##_t *dest, uint##bits##_t cond,  \
                                                       uint##bits##_t value,                       \
                                                       uint##bits##_t *old_p, int pe)              \
    {                                                                                              \
        uint64_t old;                                                                              \
        sym_status_t st = amo("sym_atomic_compare_swap" #bits, dest, bits / 8, SYM_AMO_CSWAP,      \
                              value, cond, old_p ? &old : NULL, pe, true);                         \
        if (st == SYM_OK)                                                                          \
            *old_p = (uint##bits##_t)old;                                                          \
        return st;                                                                                 \
    }                                                                                              \
    SYM_API sym_status_t sym_atomic_inc##bits(uint##bits##_t *dest, int pe)                        \
    {                                                                                              \
        return amo("sym_atomic_inc" #bits, dest, bits / 8, SYM_AMO_ADD, 1, 0, NULL, pe, false);    \
    }                                                                                              \
    SYM_API sym_status_t sym_atomic_fetch_inc##bits(uint##bits##_t *dest, uint##bits##_t *old_p,   \
                                                    int pe)                                        \
    {                                                                                              \
        uint64_t old;                                                                              \
        sym_status_t st = amo("sym_atomic_fetch_inc" #bits, dest, bits / 8, SYM_AMO_FETCH_ADD, 1,  \
                              0, old_p ? &old : NULL, pe, true);                                   \
        if (st == SYM_OK)                                                                          \
            *old_p = (uint##bits##_t)old;                                                          \
        return st;                                                                                 \
    }                                                                                              \
    SYM_AMO_BINARY_(bits, swap, SYM_AMO_SWAP)                                                      \
    SYM_AMO_BINARY_(bits, fetch_add, SYM_AMO_FETCH_ADD)                                            \
    SYM_AMO_BINARY_(bits, fetch_and, SYM_AMO_FETCH_AND)                                            \
    SYM_AMO_BINARY_(bits, fetch_or, SYM_AMO_FETCH_OR)                                              \
    SYM_AMO_BINARY_(bits, fetch_xor, SYM_AMO_FETCH_XOR)                                            \
    SYM_AMO_UPDATE_(bits, add, SYM_AMO_ADD)                                                        \
    SYM_AMO_UPDATE_(bits, and, SYM_AMO_AND)                                                        \
    SYM_AMO_UPDATE_(bits, or, SYM_AMO_OR)                                                          \
    SYM_AMO_UPDATE_(bits, xor, SYM_AMO_XOR)

/* value in, old value out */
#define SYM_AMO_BINARY_(bits, name, op)                                                            \
    SYM_API sym_status_t sym_atomic_##name##bits(uint##bits##_t *dest, uint##bits##_t value,       \
                                                 uint##bits##_t *old_p, int pe)                    \
    {                                                                                              \
        uint64_t old;                                                                              \
        sym_status_t st = amo("sym_atomic_" #name #bits, dest, bits / 8, op, value, 0,             \
                              old_p ? &old : NULL, pe, true);                                      \
        if (st == SYM_OK)                                                                          \
            *old_p = (uint##bits##_t)old;                                                          \
        return st;                                                                                 \
    }

/* value in, nothing out */
#define SYM_AMO_UPDATE_(bits, name, op)                                                            \
    SYM_API sym_status_t sym_atomic_##name##bits(uint##bits##_t *dest, uint##bits##_t value,       \
                                                 int pe)                                           \
    {                                                                                              \
        return amo("sym_atomic_" #name #bits, dest, bits / 8, op, value, 0, NULL, pe, false);      \
    }

SYM_AMO_DEFINE_(32)
SYM_AMO_DEFINE_(64)
