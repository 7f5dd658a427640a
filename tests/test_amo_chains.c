/* test_amo_chains.c - linearizability of the fetching atomics under
 * contention: every PE hammers one word (or every PE's word at once), and
 * the fetched values must be explained by one sequential order, across
 * wraparound and signed use, at 1..8 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>

#include "amo_check.h"
#include "harness.h"

enum chain_kind {
    C_FINC,      /* fetch_inc */
    C_FADD,      /* fetch_add of varying positive amounts */
    C_FADD_NEG,  /* fetch_add of (uint)-k, crossing zero into negative values */
    C_FADD_WRAP, /* fetch_add crossing 2^bits */
    C_SWAP,      /* swap of unique values: the values seen form a permutation */
    C_CAS_INC,   /* increment with a compare_swap retry loop */
    C_FOR,       /* fetch_or of one new bit per op */
    C_FAND,      /* fetch_and clearing one bit per op */
    C_FXOR,      /* fetch_xor toggling one bit per op */
    C_KINDS
};

static const char *const chain_name[C_KINDS] = {
    "fetch_inc",       "fetch_add", "fetch_add(negative)",
    "fetch_add(wrap)", "swap",      "compare_swap increment",
    "fetch_or",        "fetch_and", "fetch_xor",
};

#define CHAIN_K 2000 /* ops per PE per target for the arithmetic kinds */

static bool chain_bitwise(enum chain_kind k)
{
    return k == C_FOR || k == C_FAND || k == C_FXOR;
}

static int chain_ops(enum chain_kind k, int n, int bits)
{
    /* bitwise kinds give every op its own bit, so PEs share the word's bits */
    /* SYMHEAP_TEST_QUICK (the sanitizer and ofi stages): a tenth. */
    return chain_bitwise(k) ? bits / n : getenv("SYMHEAP_TEST_QUICK") ? CHAIN_K / 10 : CHAIN_K;
}

/* Unique per (pe, j) with bits in both halves, so a value truncated to 32
 * bits or with halves swapped is noticed. */
static uint64_t swap_value(uint64_t idx, int bits)
{
    return bits == 32 ? (idx ^ 0xA5000000u) : (idx ^ 0xA5A5000000000000u) | (idx << 32);
}

static uint64_t chain_operand(enum chain_kind k, int pe, int j, int n, int bits)
{
    const uint64_t mask = width_mask(bits);
    switch (k) {
    case C_FINC:
    case C_CAS_INC:
        return 1;
    case C_FADD:
    case C_FADD_WRAP:
        return (uint64_t)((pe * 7919 + j * 31) % 251) + 1;
    case C_FADD_NEG:
        return (uint64_t) - (int64_t)((pe * 13 + j) % 5 + 1) & mask;
    case C_SWAP:
        return swap_value((uint64_t)pe * CHAIN_K + (uint64_t)j + 1, bits);
    case C_FOR:
    case C_FXOR:
        return UINT64_C(1) << (j * n + pe);
    case C_FAND:
        return ~(UINT64_C(1) << (j * n + pe)) & mask;
    case C_KINDS:
        break;
    }
    return 0;
}

static uint64_t chain_apply(enum chain_kind k, uint64_t cur, uint64_t opnd, uint64_t mask)
{
    switch (k) {
    case C_FINC:
    case C_CAS_INC:
    case C_FADD:
    case C_FADD_NEG:
    case C_FADD_WRAP:
        return (cur + opnd) & mask;
    case C_SWAP:
        return opnd;
    case C_FOR:
        return cur | opnd;
    case C_FAND:
        return cur & opnd;
    case C_FXOR:
        return cur ^ opnd;
    case C_KINDS:
        break;
    }
    return cur;
}

static uint64_t chain_start(enum chain_kind k, int n, int bits)
{
    const uint64_t mask = width_mask(bits);
    switch (k) {
    case C_FADD_NEG:
        return 10;
    case C_FADD_WRAP: {
        uint64_t total = 0;
        for (int pe = 0; pe < n; pe++)
            for (int j = 0; j < chain_ops(k, n, bits); j++)
                total += chain_operand(k, pe, j, n, bits);
        return mask - total / 2; /* the word crosses 2^bits halfway */
    }
    case C_SWAP:
        return swap_value(0, bits);
    case C_FAND:
        return mask;
    case C_FXOR:
        return 0x5A5A5A5A5A5A5A5Au & mask;
    default:
        return 0;
    }
}

struct chain_rec {
    uint64_t old;
    int pe, j;
};

static int rec_cmp(const void *a, const void *b)
{
    uint64_t x = ((const struct chain_rec *)a)->old, y = ((const struct chain_rec *)b)->old;
    return x < y ? -1 : x > y;
}

/* The fetched values of all n*K ops on one word must be explained by one
 * sequential order that starts at `start`, applies every op exactly once,
 * keeps each PE's ops in program order and ends at `final`.  When the
 * operands make every intermediate value distinct, that order is found by
 * following "the op that saw the current value". */
static void chain_verify(enum chain_kind k, int n, int bits, int K, const uint64_t *olds,
                         uint64_t start, uint64_t final, int target)
{
    const uint64_t mask = width_mask(bits);
    size_t total = (size_t)n * (size_t)K;
    struct chain_rec *r = malloc(total * sizeof(*r));
    bool *used = calloc(total, 1);
    PE_ASSERT(r && used, "out of memory");
    for (int pe = 0; pe < n; pe++)
        for (int j = 0; j < K; j++)
            r[(size_t)pe * K + j] = (struct chain_rec){olds[(size_t)pe * K + j], pe, j};
    qsort(r, total, sizeof(*r), rec_cmp);
    for (size_t i = 1; i < total; i++)
        PE_ASSERT(r[i].old != r[i - 1].old,
                  "%s%d on PE %d: PE %d op %d and PE %d op %d both "
                  "fetched 0x%llx (not atomic)",
                  chain_name[k], bits, target, r[i - 1].pe, r[i - 1].j, r[i].pe, r[i].j,
                  (unsigned long long)r[i].old);
    int last_j[HARNESS_MAX_PES];
    for (int pe = 0; pe < n; pe++)
        last_j[pe] = -1;
    uint64_t cur = start;
    for (size_t step = 0; step < total; step++) {
        size_t lo = 0, hi = total;
        while (lo < hi) {
            size_t mid = (lo + hi) / 2;
            if (r[mid].old < cur)
                lo = mid + 1;
            else
                hi = mid;
        }
        PE_ASSERT(lo < total && r[lo].old == cur,
                  "%s%d on PE %d: after %zu ops the word "
                  "held 0x%llx but no op fetched that value (lost or duplicated update)",
                  chain_name[k], bits, target, step, (unsigned long long)cur);
        PE_ASSERT(!used[lo], "%s%d on PE %d: value 0x%llx reached twice", chain_name[k], bits,
                  target, (unsigned long long)cur);
        used[lo] = true;
        PE_ASSERT(r[lo].j > last_j[r[lo].pe],
                  "%s%d on PE %d: PE %d's op %d is ordered after "
                  "its op %d",
                  chain_name[k], bits, target, r[lo].pe, last_j[r[lo].pe], r[lo].j);
        last_j[r[lo].pe] = r[lo].j;
        cur = chain_apply(k, cur, chain_operand(k, r[lo].pe, r[lo].j, n, bits), mask);
    }
    PE_ASSERT(cur == final, "%s%d on PE %d: the ops lead to 0x%llx but the word holds 0x%llx",
              chain_name[k], bits, target, (unsigned long long)cur, (unsigned long long) final);
    free(used);
    free(r);
}

/* The final value an order-independent kind must reach, computed locally. */
static bool chain_expected_final(enum chain_kind k, int n, int bits, int K, uint64_t *final_p)
{
    if (k == C_SWAP)
        return false;
    uint64_t cur = chain_start(k, n, bits);
    for (int pe = 0; pe < n; pe++)
        for (int j = 0; j < K; j++)
            cur = chain_apply(k, cur, chain_operand(k, pe, j, n, bits), width_mask(bits));
    *final_p = cur;
    return true;
}

/* Every PE runs K ops of one kind on one word of one target (PE n-1) or, in
 * the all-targets mode, on every PE's word, interleaved so that every word
 * is contended at once.  The fetched values are then put into a symmetric
 * array on each target, which checks its word's chain. */
static void chain_body(int me, int n, void *arg)
{
    const struct amo_param *p = arg;
    const int bits = p->bits;
    const uint64_t mask = width_mask(bits);
    uint64_t *word = sym_calloc(1, 8);
    uint64_t *olds = sym_malloc((size_t)n * CHAIN_K * sizeof(uint64_t));
    uint64_t *local = malloc((size_t)n * CHAIN_K * sizeof(uint64_t));
    PE_ASSERT(word && olds && local, "allocation failed: %s", sym_last_error());

    for (int k = 0; k < C_KINDS; k++) {
        const int K = chain_ops((enum chain_kind)k, n, bits);
        /* SYMHEAP_TEST_QUICK: a tenth of the bitwise kinds' rounds too; they
         * were most of a quick run (3 barriers a round): over tcp;ofi_rxm
         * at 2 PEs the test took 90 s of the ofi stage (load 30). */
        const int rounds = !chain_bitwise((enum chain_kind)k) ? 1
                           : getenv("SYMHEAP_TEST_QUICK")     ? 10
                                                              : 100;
        const uint64_t start = chain_start((enum chain_kind)k, n, bits);
        for (int all = 0; all <= 1; all++) {
            for (int round = 0; round < rounds; round++) {
                const int t0 = all ? 0 : n - 1;
                const bool target = me >= t0;
                if (target)
                    AMO_OK(bits, A_SET, word, start, 0, me);
                PE_OK(sym_barrier_all());
                for (int j = 0; j < K; j++) {
                    /* start at a different target on each PE so all words are
                     * hit at the same time */
                    for (int s = 0; s < n - t0; s++) {
                        int t = t0 + (me + s) % (n - t0);
                        uint64_t opnd = chain_operand((enum chain_kind)k, me, j, n, bits);
                        uint64_t old;
                        if (k == C_CAS_INC) {
                            uint64_t guess = AMO_OK(bits, A_FETCH, word, 0, 0, t);
                            for (;;) {
                                old = AMO_OK(bits, A_CSWAP, word, (guess + 1) & mask, guess, t);
                                if (old == guess)
                                    break;
                                guess = old;
                            }
                        } else {
                            static const enum amo_id ids[C_KINDS] = {
                                [C_FINC] = A_FINC,      [C_FADD] = A_FADD, [C_FADD_NEG] = A_FADD,
                                [C_FADD_WRAP] = A_FADD, [C_SWAP] = A_SWAP, [C_FOR] = A_FOR,
                                [C_FAND] = A_FAND,      [C_FXOR] = A_FXOR,
                            };
                            old = AMO_OK(bits, ids[k], word, opnd, 0, t);
                        }
                        local[(size_t)t * CHAIN_K + j] = old;
                    }
                }
                for (int t = t0; t < n; t++)
                    PE_OK(sym_put(olds + (size_t)me * K, local + (size_t)t * CHAIN_K,
                                  (size_t)K * sizeof(uint64_t), t));
                PE_OK(sym_barrier_all());
                if (target) {
                    uint64_t final = AMO_OK(bits, A_FETCH, word, 0, 0, me), want;
                    if (chain_expected_final((enum chain_kind)k, n, bits, K, &want))
                        PE_ASSERT(final == want,
                                  "%s%d (%s): final word on PE %d is 0x%llx, "
                                  "expected 0x%llx",
                                  chain_name[k], bits, all ? "all targets" : "one target", me,
                                  (unsigned long long) final, (unsigned long long)want);
                    chain_verify((enum chain_kind)k, n, bits, K, olds, start, final, me);
                }
                PE_OK(sym_barrier_all());
            }
        }
    }
    free(local);
    sym_free(olds);
    sym_free(word);
}

ParameterizedTestParameters(amo, contention_chains)
{
    size_t k = make_amo_params();
    return cr_make_param_array(struct amo_param, amo_params, k);
}

ParameterizedTest(struct amo_param *p, amo, contention_chains)
{
    run_pes(p->npes, chain_body, p);
}
