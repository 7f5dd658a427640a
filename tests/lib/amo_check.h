/*
 * amo_check.h - what the atomic tests (test_amo_*.c, test_ofi.c) share: one
 * entry point for every atomic of symheap.h at either width, the calls'
 * names, a checker for a chain of atomics against a local reference, and
 * the test parameters (PE count x width).
 */
#ifndef SYM_TEST_AMO_CHECK_H
#define SYM_TEST_AMO_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <symheap.h>

#include "amo_ops.h"

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

/* One step of an atomic chain: the call, its operand and, for compare_swap,
 * how far the compared value lies from the word's value (0: the swap
 * happens). */
struct amo_step {
    enum amo_id id;
    uint64_t value;
    uint64_t cond_off;
};

/* What the word holds after step `s` when it held `ref` before. */
uint64_t amo_step_result(const struct amo_step *s, uint64_t ref);

/* Runs `steps` in order on the `bits`-wide word `w` of PE `pe`, checking
 * every fetched value against a local reference; returns the reference
 * after the last step. */
uint64_t run_amo_chain(int bits, void *w, const struct amo_step *steps, size_t n, int pe);

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
