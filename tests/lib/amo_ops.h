/*
 * amo_ops.h - the atomics of symheap.h, one enumerator each, in one list
 * for every test that drives them (amo_check.c, the stress program).
 */
#ifndef SYM_TEST_AMO_OPS_H
#define SYM_TEST_AMO_OPS_H

enum amo_id {
    A_FETCH,
    A_SET,
    A_SWAP,
    A_CSWAP,
    A_ADD,
    A_FADD,
    A_INC,
    A_FINC,
    A_AND,
    A_OR,
    A_XOR,
    A_FAND,
    A_FOR,
    A_FXOR,
    A_COUNT
};

#endif /* SYM_TEST_AMO_OPS_H */
