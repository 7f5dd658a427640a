/*
 * amo_check.h - what the test_amo_*.c files share: one entry point for every
 * atomic of symheap.h at either width, the calls' names, and the test
 * parameters (PE count x width).
 */
#ifndef SYM_TEST_AMO_CHECK_H
#define SYM_TEST_AMO_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symheap.h>

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

/* The name in "sym_atomic_<name><bits>". */
extern const char *const amo_name[A_COUNT];

bool amo_fetches(enum amo_id id);

/* sym_atomic_<id><bits>(dest, ...) on `pe`; `value` and `cond` are cut to
 * the width, old_p (NULL: none) gets the fetched value on success. */
sym_status_t amo(int bits, enum amo_id id, void *dest, uint64_t value, uint64_t cond,
                 uint64_t *old_p, int pe);

/* A call that must succeed; returns the fetched value (0 for non-fetching
 * ops).  Reports the caller's file and line. */
uint64_t amo_ok_at(const char *file, int line, int bits, enum amo_id id, void *dest, uint64_t value,
                   uint64_t cond, int pe);

#define AMO_OK(bits, id, dest, value, cond, pe)                                                    \
    amo_ok_at(__FILE__, __LINE__, (bits), (id), (dest), (value), (cond), (pe))

static inline uint64_t width_mask(int bits)
{
    return bits == 32 ? UINT32_MAX : UINT64_MAX;
}

struct amo_param {
    int npes;
    int bits;
};

/* Every PE count of HARNESS_PE_COUNTS at 32 and 64 bits: fills amo_params
 * and returns how many. */
extern struct amo_param amo_params[10];
size_t make_amo_params(void);

#endif
