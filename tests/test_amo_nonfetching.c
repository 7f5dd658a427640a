/* test_amo_nonfetching.c - the non-fetching atomics (inc, add, and, or,
 * xor, set) under contention reach exact final values: no lost update, no
 * torn word, at 1..8 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>

#include "amo_check.h"
#include "harness.h"
#include "splitmix.h"

#define NF_K 2001 /* odd, so each PE's xor pattern survives */
/* SYMHEAP_TEST_QUICK (the sanitizer and ofi stages): about a tenth, odd too.
 * Over tcp;ofi_rxm the full count made this test most of the ofi stage's
 * test_amo (its 4 cases at 2 and 3 PEs: 107 s of the 122 s its 18 cases
 * took, two at a time in 94 s wall, load 30); a tenth still interleaves
 * every PE's ops on each target. */
#define NF_K_QUICK 201

static uint64_t xor_pattern(int pe, int j, int bits)
{
    uint64_t s = (uint64_t)pe * 65537u + (uint64_t)j;
    return splitmix(&s) & width_mask(bits);
}

/* A value whose two halves agree, to recognise a torn read. */
static uint64_t set_value(int pe, int j, int bits)
{
    uint64_t x = (uint64_t)(pe * NF_K + j + 1);
    return bits == 32 ? ((x & 0xFFFF) | (x << 16)) & UINT32_MAX : (x | (x << 32));
}

static bool set_value_ok(uint64_t v, int bits)
{
    return bits == 32 ? (v & 0xFFFF) == (v >> 16) : (v & UINT32_MAX) == (v >> 32);
}

static void nonfetch_body(int me, int n, void *arg)
{
    const struct amo_param *p = arg;
    const int bits = p->bits;
    const uint64_t mask = width_mask(bits);
    const int nf_k = getenv("SYMHEAP_TEST_QUICK") ? NF_K_QUICK : NF_K;
    uint64_t *word = sym_calloc(1, 8);
    PE_ASSERT(word, "sym_calloc: %s", sym_last_error());
    const int B = bits / n;

    for (int all = 0; all <= 1; all++) {
        const int t0 = all ? 0 : n - 1;
        const bool target = me >= t0;
        const char *mode = all ? "all targets" : "one target";
#define FOR_TARGETS(t)                                                                             \
    for (int s_ = 0, t = t0 + me % (n - t0); s_ < n - t0; s_++, t = t0 + (me + s_) % (n - t0))
#define CHECK_FINAL(what, want)                                                                    \
    do {                                                                                           \
        PE_OK(sym_barrier_all());                                                                  \
        if (target) {                                                                              \
            uint64_t got_ = AMO_OK(bits, A_FETCH, word, 0, 0, me);                                 \
            PE_ASSERT(got_ == ((want)&mask),                                                       \
                      "%s%d (%s): word on PE %d is 0x%llx, "                                       \
                      "expected 0x%llx",                                                           \
                      what, bits, mode, me, (unsigned long long)got_,                              \
                      (unsigned long long)((want)&mask));                                          \
        }                                                                                          \
        PE_OK(sym_barrier_all());                                                                  \
    } while (0)
#define RESET(v)                                                                                   \
    do {                                                                                           \
        if (target)                                                                                \
            AMO_OK(bits, A_SET, word, (v), 0, me);                                                 \
        PE_OK(sym_barrier_all());                                                                  \
    } while (0)

        /* inc from just below 2^bits: wraps */
        uint64_t start = mask - (uint64_t)n * nf_k / 3;
        RESET(start);
        for (int j = 0; j < nf_k; j++)
            FOR_TARGETS(t) AMO_OK(bits, A_INC, word, 0, 0, t);
        CHECK_FINAL("inc", start + (uint64_t)n * nf_k);

        /* add of varying amounts */
        RESET(start);
        uint64_t sum = start;
        for (int pe = 0; pe < n; pe++)
            for (int j = 0; j < nf_k; j++)
                sum += (uint64_t)(pe * 977 + j * 13) % 100003u;
        for (int j = 0; j < nf_k; j++)
            FOR_TARGETS(t) AMO_OK(bits, A_ADD, word, (uint64_t)(me * 977 + j * 13) % 100003u, 0, t);
        CHECK_FINAL("add", sum);

        /* signed use: adding (uint)-1 counts down through zero */
        RESET(0);
        for (int j = 0; j < nf_k; j++)
            FOR_TARGETS(t) AMO_OK(bits, A_ADD, word, mask, 0, t);
        PE_OK(sym_barrier_all());
        if (target) {
            uint64_t got = AMO_OK(bits, A_FETCH, word, 0, 0, me);
            int64_t sgot = bits == 32 ? (int64_t)(int32_t)(uint32_t)got : (int64_t)got;
            PE_ASSERT(sgot == -(int64_t)n * nf_k,
                      "add of -1 (%s): PE %d's word is %lld as "
                      "a signed %d-bit integer, expected %lld",
                      mode, me, (long long)sgot, bits, -(long long)n * nf_k);
        }
        PE_OK(sym_barrier_all());
        for (int j = 0; j < nf_k; j++)
            FOR_TARGETS(t) AMO_OK(bits, A_ADD, word, 1, 0, t);
        CHECK_FINAL("add of -1 then +1", 0);

        /* or: PE i sets its own bits; and: PE i clears them */
        uint64_t union_bits = 0;
        for (int b = 0; b < B * n; b++)
            union_bits |= UINT64_C(1) << b;
        RESET(0);
        for (int j = 0; j < B; j++)
            FOR_TARGETS(t) AMO_OK(bits, A_OR, word, UINT64_C(1) << (j * n + me), 0, t);
        CHECK_FINAL("or", union_bits);
        RESET(mask);
        for (int j = 0; j < B; j++)
            FOR_TARGETS(t) AMO_OK(bits, A_AND, word, ~(UINT64_C(1) << (j * n + me)), 0, t);
        CHECK_FINAL("and", mask & ~union_bits);

        /* xor of overlapping patterns: a lost update flips the result */
        uint64_t x = 0x0123456789ABCDEFu;
        for (int pe = 0; pe < n; pe++)
            for (int j = 0; j < nf_k; j++)
                x ^= xor_pattern(pe, j, bits);
        RESET(0x0123456789ABCDEFu);
        for (int j = 0; j < nf_k; j++)
            FOR_TARGETS(t) AMO_OK(bits, A_XOR, word, xor_pattern(me, j, bits), 0, t);
        CHECK_FINAL("xor", x);

        /* set racing with fetch: no torn value, and the word ends with one
         * PE's last value */
        RESET(set_value(0, 0, bits));
        for (int j = 0; j < nf_k; j++) {
            FOR_TARGETS(t)
            {
                AMO_OK(bits, A_SET, word, set_value(me, j, bits), 0, t);
                uint64_t v = AMO_OK(bits, A_FETCH, word, 0, 0, t);
                PE_ASSERT(set_value_ok(v, bits) && v != 0,
                          "set/fetch (%s): fetched 0x%llx "
                          "from PE %d, which no PE stored",
                          mode, (unsigned long long)v, t);
            }
        }
        PE_OK(sym_barrier_all());
        if (target) {
            uint64_t v = AMO_OK(bits, A_FETCH, word, 0, 0, me);
            bool ok = false;
            for (int pe = 0; pe < n; pe++)
                ok |= v == set_value(pe, nf_k - 1, bits);
            PE_ASSERT(ok, "set (%s): PE %d's word ends as 0x%llx, not any PE's last value", mode,
                      me, (unsigned long long)v);
        }
        PE_OK(sym_barrier_all());
#undef FOR_TARGETS
#undef CHECK_FINAL
#undef RESET
    }
    sym_free(word);
}

ParameterizedTestParameters(amo, nonfetching_contention)
{
    size_t k = make_amo_params();
    return cr_make_param_array(struct amo_param, amo_params, k);
}

ParameterizedTest(struct amo_param *p, amo, nonfetching_contention)
{
    run_pes(p->npes, nonfetch_body, p);
}
