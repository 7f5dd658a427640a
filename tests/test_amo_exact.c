/* test_amo_exact.c - every 32- and 64-bit atomic of symheap.h driven through
 * random operations, each fetched value and final word checked against a
 * local reference, at 1..8 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "amo_check.h"
#include "harness.h"
#include "splitmix.h"

/* What `id` leaves in a word holding `cur` (the local reference). */
static uint64_t amo_apply(enum amo_id id, uint64_t cur, uint64_t v, uint64_t c, uint64_t mask)
{
    v &= mask;
    switch (id) {
    case A_FETCH:
        return cur;
    case A_SET:
    case A_SWAP:
        return v;
    case A_CSWAP:
        return cur == (c & mask) ? v : cur;
    case A_ADD:
    case A_FADD:
        return (cur + v) & mask;
    case A_INC:
    case A_FINC:
        return (cur + 1) & mask;
    case A_AND:
    case A_FAND:
        return cur & v;
    case A_OR:
    case A_FOR:
        return cur | v;
    case A_XOR:
    case A_FXOR:
        return cur ^ v;
    case A_COUNT:
        break;
    }
    return cur;
}

/* Each PE owns one word in a packed array on every PE and drives it through
 * random ops, checking every fetched value against its reference.  The
 * words are adjacent, so a 32-bit op that touched 64 bits would corrupt a
 * neighbour's word and fail the neighbour's next check. */
static void exact_body(int me, int n, void *arg)
{
    const struct amo_param *p = arg;
    const int bits = p->bits;
    const uint64_t mask = width_mask(bits);
    const size_t w = (size_t)bits / 8;
    uint8_t *words = sym_calloc((size_t)n, w);
    PE_ASSERT(words, "sym_calloc: %s", sym_last_error());
    uint64_t ref[HARNESS_MAX_PES];
    uint64_t rng = 0x1234u + (uint64_t)me * 1000003u + (uint64_t)bits;
    void *mine = words + (size_t)me * w;

    for (int t = 0; t < n; t++) {
        ref[t] = splitmix(&rng) & mask;
        AMO_OK(bits, A_SET, mine, ref[t], 0, t);
    }
    for (int iter = 0; iter < 400; iter++) {
        for (int t = 0; t < n; t++) {
            enum amo_id id = (enum amo_id)((iter + t) % A_COUNT);
            uint64_t r = splitmix(&rng);
            /* bitwise operands with few or many bits set, so words do not
             * saturate to all-ones or zero */
            uint64_t v = r;
            if (id == A_AND || id == A_FAND)
                v = r | splitmix(&rng);
            else if (id == A_OR || id == A_FOR)
                v = r & splitmix(&rng);
            /* compare_swap: half the time the expected value matches */
            uint64_t c = (r >> 7) & 1 ? ref[t] : ref[t] ^ (1u + (r & 0xF));
            uint64_t old = AMO_OK(bits, id, mine, v, c, t);
            if (amo_fetches(id))
                PE_ASSERT(old == ref[t],
                          "iteration %d: sym_atomic_%s%d on PE %d fetched "
                          "0x%llx, expected 0x%llx",
                          iter, amo_name[id], bits, t, (unsigned long long)old,
                          (unsigned long long)ref[t]);
            ref[t] = amo_apply(id, ref[t], v, c, mask);
            if (iter % 7 == 0) {
                uint64_t now = AMO_OK(bits, A_FETCH, mine, 0, 0, t);
                PE_ASSERT(now == ref[t],
                          "iteration %d: after sym_atomic_%s%d the word on PE "
                          "%d is 0x%llx, expected 0x%llx",
                          iter, amo_name[id], bits, t, (unsigned long long)now,
                          (unsigned long long)ref[t]);
            }
        }
    }
    PE_OK(sym_barrier_all());
    for (int t = 0; t < n; t++) {
        uint64_t now = AMO_OK(bits, A_FETCH, mine, 0, 0, t);
        PE_ASSERT(now == ref[t], "final word on PE %d is 0x%llx, expected 0x%llx", t,
                  (unsigned long long)now, (unsigned long long)ref[t]);
    }
    PE_OK(sym_barrier_all());
    sym_free(words);
}

ParameterizedTestParameters(amo, exact)
{
    size_t k = make_amo_params();
    return cr_make_param_array(struct amo_param, amo_params, k);
}

ParameterizedTest(struct amo_param *p, amo, exact)
{
    run_pes(p->npes, exact_body, p);
}
