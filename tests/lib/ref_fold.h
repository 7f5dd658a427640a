/*
 * ref_fold.h - one step of a locally computed reference reduction, for the
 * tests that check reductions (coll_check.c, the stress program): integers
 * in 64 bits (wrapping, with the type's signedness for min and max), floats
 * in double.  SYM_OP_AVG folds as a sum; the caller divides at the end.
 */
#ifndef SYM_TEST_REF_FOLD_H
#define SYM_TEST_REF_FOLD_H

#include <stdbool.h>
#include <stdint.h>

#include <symheap.h>

static inline uint64_t ref_fold_int(sym_op_t op, bool sgn, uint64_t acc, uint64_t v)
{
    switch (op) {
    case SYM_OP_PROD:
        return acc * v;
    case SYM_OP_MIN:
        return (sgn ? (int64_t)v < (int64_t)acc : v < acc) ? v : acc;
    case SYM_OP_MAX:
        return (sgn ? (int64_t)v > (int64_t)acc : v > acc) ? v : acc;
    case SYM_OP_BAND:
        return acc & v;
    case SYM_OP_BOR:
        return acc | v;
    case SYM_OP_BXOR:
        return acc ^ v;
    default: /* SUM, AVG */
        return acc + v;
    }
}

static inline double ref_fold_float(sym_op_t op, double acc, double v)
{
    switch (op) {
    case SYM_OP_PROD:
        return acc * v;
    case SYM_OP_MIN:
        return v < acc ? v : acc;
    case SYM_OP_MAX:
        return v > acc ? v : acc;
    default: /* SUM, AVG (the bitwise operations take no floats) */
        return acc + v;
    }
}

#endif /* SYM_TEST_REF_FOLD_H */
