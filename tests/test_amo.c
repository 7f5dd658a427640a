/* test_amo.c - the 32- and 64-bit atomics of symheap.h: exact results against
 * a local reference, linearizability under contention (every fetched value is
 * explained by one sequential order), locks built from compare_swap and
 * fetch_inc, wraparound, signed use, and argument errors, at 1..8 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <limits.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "core/internal.h" /* sym_rt: the heap's reserved regions, for error cases */

/* ------------------------------------------------------------------------ */
/* One entry point for every atomic at either width                          */
/* ------------------------------------------------------------------------ */

enum amo_id {
    A_FETCH, A_SET, A_SWAP, A_CSWAP, A_ADD, A_FADD, A_INC, A_FINC,
    A_AND, A_OR, A_XOR, A_FAND, A_FOR, A_FXOR, A_COUNT
};

static const char *const amo_name[A_COUNT] = {
    "fetch", "set", "swap", "compare_swap", "add", "fetch_add", "inc", "fetch_inc",
    "and", "or", "xor", "fetch_and", "fetch_or", "fetch_xor",
};

static bool amo_fetches(enum amo_id id)
{
    switch (id) {
    case A_FETCH: case A_SWAP: case A_CSWAP: case A_FADD: case A_FINC:
    case A_FAND: case A_FOR: case A_FXOR:
        return true;
    default:
        return false;
    }
}

#define GUARD32 0xC0FFEE11u

/* The 32-bit output sits in front of a guard word so that an implementation
 * storing 64 bits through a 32-bit old_p is caught (Open MPI 4.1.4 had that
 * bug in its 32-bit cswap). */
static sym_status_t amo32(enum amo_id id, void *dest, uint64_t value, uint64_t cond,
                          uint64_t *old_p, int pe)
{
    struct { uint32_t old, guard; } out = { 0x5EEDF00Du, GUARD32 };
    uint32_t *o = old_p ? &out.old : NULL;
    uint32_t *d = dest, v = (uint32_t)value, c = (uint32_t)cond;
    sym_status_t st = SYM_ERR_INTERNAL;
    switch (id) {
    case A_FETCH: st = sym_atomic_fetch32(o, d, pe); break;
    case A_SET: st = sym_atomic_set32(d, v, pe); break;
    case A_SWAP: st = sym_atomic_swap32(d, v, o, pe); break;
    case A_CSWAP: st = sym_atomic_compare_swap32(d, c, v, o, pe); break;
    case A_ADD: st = sym_atomic_add32(d, v, pe); break;
    case A_FADD: st = sym_atomic_fetch_add32(d, v, o, pe); break;
    case A_INC: st = sym_atomic_inc32(d, pe); break;
    case A_FINC: st = sym_atomic_fetch_inc32(d, o, pe); break;
    case A_AND: st = sym_atomic_and32(d, v, pe); break;
    case A_OR: st = sym_atomic_or32(d, v, pe); break;
    case A_XOR: st = sym_atomic_xor32(d, v, pe); break;
    case A_FAND: st = sym_atomic_fetch_and32(d, v, o, pe); break;
    case A_FOR: st = sym_atomic_fetch_or32(d, v, o, pe); break;
    case A_FXOR: st = sym_atomic_fetch_xor32(d, v, o, pe); break;
    case A_COUNT: break;
    }
    PE_ASSERT(out.guard == GUARD32, "sym_atomic_%s32 wrote past its 32-bit output "
              "(guard is now 0x%08x)", amo_name[id], out.guard);
    if (old_p && st == SYM_OK)
        *old_p = out.old;
    return st;
}

static sym_status_t amo64(enum amo_id id, void *dest, uint64_t value, uint64_t cond,
                          uint64_t *old_p, int pe)
{
    uint64_t out = 0x5EEDF00D5EEDF00Du;
    uint64_t *o = old_p ? &out : NULL;
    uint64_t *d = dest;
    sym_status_t st = SYM_ERR_INTERNAL;
    switch (id) {
    case A_FETCH: st = sym_atomic_fetch64(o, d, pe); break;
    case A_SET: st = sym_atomic_set64(d, value, pe); break;
    case A_SWAP: st = sym_atomic_swap64(d, value, o, pe); break;
    case A_CSWAP: st = sym_atomic_compare_swap64(d, cond, value, o, pe); break;
    case A_ADD: st = sym_atomic_add64(d, value, pe); break;
    case A_FADD: st = sym_atomic_fetch_add64(d, value, o, pe); break;
    case A_INC: st = sym_atomic_inc64(d, pe); break;
    case A_FINC: st = sym_atomic_fetch_inc64(d, o, pe); break;
    case A_AND: st = sym_atomic_and64(d, value, pe); break;
    case A_OR: st = sym_atomic_or64(d, value, pe); break;
    case A_XOR: st = sym_atomic_xor64(d, value, pe); break;
    case A_FAND: st = sym_atomic_fetch_and64(d, value, o, pe); break;
    case A_FOR: st = sym_atomic_fetch_or64(d, value, o, pe); break;
    case A_FXOR: st = sym_atomic_fetch_xor64(d, value, o, pe); break;
    case A_COUNT: break;
    }
    if (old_p && st == SYM_OK)
        *old_p = out;
    return st;
}

static sym_status_t amo(int bits, enum amo_id id, void *dest, uint64_t value, uint64_t cond,
                        uint64_t *old_p, int pe)
{
    return bits == 32 ? amo32(id, dest, value, cond, old_p, pe)
                      : amo64(id, dest, value, cond, old_p, pe);
}

/* A call that must succeed; returns the fetched value (0 for non-fetching
 * ops).  Reports the caller's line. */
static uint64_t amo_ok_at(int line, int bits, enum amo_id id, void *dest, uint64_t value,
                          uint64_t cond, int pe)
{
    uint64_t old = 0;
    sym_status_t st = amo(bits, id, dest, value, cond, amo_fetches(id) ? &old : NULL, pe);
    if (st != SYM_OK)
        pe_fail(__FILE__, line, "AMO_OK", "sym_atomic_%s%d on PE %d returned %s: %s",
                amo_name[id], bits, pe, sym_status_name(st), sym_last_error());
    return old;
}

#define AMO_OK(bits, id, dest, value, cond, pe) \
    amo_ok_at(__LINE__, (bits), (id), (dest), (value), (cond), (pe))

static uint64_t width_mask(int bits)
{
    return bits == 32 ? UINT32_MAX : UINT64_MAX;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

/* What `id` leaves in a word holding `cur` (the local reference). */
static uint64_t amo_apply(enum amo_id id, uint64_t cur, uint64_t v, uint64_t c, uint64_t mask)
{
    v &= mask;
    switch (id) {
    case A_FETCH: return cur;
    case A_SET: case A_SWAP: return v;
    case A_CSWAP: return cur == (c & mask) ? v : cur;
    case A_ADD: case A_FADD: return (cur + v) & mask;
    case A_INC: case A_FINC: return (cur + 1) & mask;
    case A_AND: case A_FAND: return cur & v;
    case A_OR: case A_FOR: return cur | v;
    case A_XOR: case A_FXOR: return cur ^ v;
    case A_COUNT: break;
    }
    return cur;
}

struct amo_param {
    int npes;
    int bits;
};

static struct amo_param amo_params[10];

static size_t make_amo_params(void)
{
    static const int counts[] = HARNESS_PE_COUNTS;
    size_t k = 0;
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        for (int b = 32; b <= 64; b += 32)
            amo_params[k++] = (struct amo_param){ counts[i], b };
    return k;
}

/* ------------------------------------------------------------------------ */
/* Exact results: every op against a local reference                         */
/* ------------------------------------------------------------------------ */

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
                PE_ASSERT(old == ref[t], "iteration %d: sym_atomic_%s%d on PE %d fetched "
                          "0x%llx, expected 0x%llx", iter, amo_name[id], bits, t,
                          (unsigned long long)old, (unsigned long long)ref[t]);
            ref[t] = amo_apply(id, ref[t], v, c, mask);
            if (iter % 7 == 0) {
                uint64_t now = AMO_OK(bits, A_FETCH, mine, 0, 0, t);
                PE_ASSERT(now == ref[t], "iteration %d: after sym_atomic_%s%d the word on PE "
                          "%d is 0x%llx, expected 0x%llx", iter, amo_name[id], bits, t,
                          (unsigned long long)now, (unsigned long long)ref[t]);
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

/* ------------------------------------------------------------------------ */
/* Linearizability of fetching ops under contention                          */
/* ------------------------------------------------------------------------ */

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
    "fetch_inc", "fetch_add", "fetch_add(negative)", "fetch_add(wrap)", "swap",
    "compare_swap increment", "fetch_or", "fetch_and", "fetch_xor",
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
    case C_FINC: case C_CAS_INC: return 1;
    case C_FADD: case C_FADD_WRAP: return (uint64_t)((pe * 7919 + j * 31) % 251) + 1;
    case C_FADD_NEG: return (uint64_t)-(int64_t)((pe * 13 + j) % 5 + 1) & mask;
    case C_SWAP: return swap_value((uint64_t)pe * CHAIN_K + (uint64_t)j + 1, bits);
    case C_FOR: case C_FXOR: return UINT64_C(1) << (j * n + pe);
    case C_FAND: return ~(UINT64_C(1) << (j * n + pe)) & mask;
    case C_KINDS: break;
    }
    return 0;
}

static uint64_t chain_apply(enum chain_kind k, uint64_t cur, uint64_t opnd, uint64_t mask)
{
    switch (k) {
    case C_FINC: case C_CAS_INC: case C_FADD: case C_FADD_NEG: case C_FADD_WRAP:
        return (cur + opnd) & mask;
    case C_SWAP: return opnd;
    case C_FOR: return cur | opnd;
    case C_FAND: return cur & opnd;
    case C_FXOR: return cur ^ opnd;
    case C_KINDS: break;
    }
    return cur;
}

static uint64_t chain_start(enum chain_kind k, int n, int bits)
{
    const uint64_t mask = width_mask(bits);
    switch (k) {
    case C_FADD_NEG: return 10;
    case C_FADD_WRAP: {
        uint64_t total = 0;
        for (int pe = 0; pe < n; pe++)
            for (int j = 0; j < chain_ops(k, n, bits); j++)
                total += chain_operand(k, pe, j, n, bits);
        return mask - total / 2; /* the word crosses 2^bits halfway */
    }
    case C_SWAP: return swap_value(0, bits);
    case C_FAND: return mask;
    case C_FXOR: return 0x5A5A5A5A5A5A5A5Au & mask;
    default: return 0;
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
            r[(size_t)pe * K + j] = (struct chain_rec){ olds[(size_t)pe * K + j], pe, j };
    qsort(r, total, sizeof(*r), rec_cmp);
    for (size_t i = 1; i < total; i++)
        PE_ASSERT(r[i].old != r[i - 1].old, "%s%d on PE %d: PE %d op %d and PE %d op %d both "
                  "fetched 0x%llx (not atomic)", chain_name[k], bits, target, r[i - 1].pe,
                  r[i - 1].j, r[i].pe, r[i].j, (unsigned long long)r[i].old);
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
        PE_ASSERT(lo < total && r[lo].old == cur, "%s%d on PE %d: after %zu ops the word "
                  "held 0x%llx but no op fetched that value (lost or duplicated update)",
                  chain_name[k], bits, target, step, (unsigned long long)cur);
        PE_ASSERT(!used[lo], "%s%d on PE %d: value 0x%llx reached twice", chain_name[k], bits,
                  target, (unsigned long long)cur);
        used[lo] = true;
        PE_ASSERT(r[lo].j > last_j[r[lo].pe], "%s%d on PE %d: PE %d's op %d is ordered after "
                  "its op %d", chain_name[k], bits, target, r[lo].pe, last_j[r[lo].pe],
                  r[lo].j);
        last_j[r[lo].pe] = r[lo].j;
        cur = chain_apply(k, cur, chain_operand(k, r[lo].pe, r[lo].j, n, bits), mask);
    }
    PE_ASSERT(cur == final, "%s%d on PE %d: the ops lead to 0x%llx but the word holds 0x%llx",
              chain_name[k], bits, target, (unsigned long long)cur,
              (unsigned long long)final);
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
                           : getenv("SYMHEAP_TEST_QUICK") ? 10 : 100;
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
                                [C_FINC] = A_FINC, [C_FADD] = A_FADD, [C_FADD_NEG] = A_FADD,
                                [C_FADD_WRAP] = A_FADD, [C_SWAP] = A_SWAP,
                                [C_FOR] = A_FOR, [C_FAND] = A_FAND, [C_FXOR] = A_FXOR,
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
                        PE_ASSERT(final == want, "%s%d (%s): final word on PE %d is 0x%llx, "
                                  "expected 0x%llx", chain_name[k], bits,
                                  all ? "all targets" : "one target", me,
                                  (unsigned long long)final, (unsigned long long)want);
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

/* ------------------------------------------------------------------------ */
/* Non-fetching ops under contention: exact final values                     */
/* ------------------------------------------------------------------------ */

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
#define FOR_TARGETS(t) for (int s_ = 0, t = t0 + me % (n - t0); s_ < n - t0;                 \
                            s_++, t = t0 + (me + s_) % (n - t0))
#define CHECK_FINAL(what, want)                                                           \
        do {                                                                              \
            PE_OK(sym_barrier_all());                                                     \
            if (target) {                                                                 \
                uint64_t got_ = AMO_OK(bits, A_FETCH, word, 0, 0, me);                    \
                PE_ASSERT(got_ == ((want) & mask), "%s%d (%s): word on PE %d is 0x%llx, "  \
                          "expected 0x%llx", what, bits, mode, me,                         \
                          (unsigned long long)got_, (unsigned long long)((want) & mask));  \
            }                                                                             \
            PE_OK(sym_barrier_all());                                                     \
        } while (0)
#define RESET(v)                                                                          \
        do {                                                                              \
            if (target)                                                                   \
                AMO_OK(bits, A_SET, word, (v), 0, me);                                    \
            PE_OK(sym_barrier_all());                                                     \
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
            FOR_TARGETS(t) AMO_OK(bits, A_ADD, word, (uint64_t)(me * 977 + j * 13) % 100003u,
                                  0, t);
        CHECK_FINAL("add", sum);

        /* signed use: adding (uint)-1 counts down through zero */
        RESET(0);
        for (int j = 0; j < nf_k; j++)
            FOR_TARGETS(t) AMO_OK(bits, A_ADD, word, mask, 0, t);
        PE_OK(sym_barrier_all());
        if (target) {
            uint64_t got = AMO_OK(bits, A_FETCH, word, 0, 0, me);
            int64_t sgot = bits == 32 ? (int64_t)(int32_t)(uint32_t)got : (int64_t)got;
            PE_ASSERT(sgot == -(int64_t)n * nf_k, "add of -1 (%s): PE %d's word is %lld as "
                      "a signed %d-bit integer, expected %lld", mode, me, (long long)sgot, bits,
                      -(long long)n * nf_k);
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
            FOR_TARGETS(t) {
                AMO_OK(bits, A_SET, word, set_value(me, j, bits), 0, t);
                uint64_t v = AMO_OK(bits, A_FETCH, word, 0, 0, t);
                PE_ASSERT(set_value_ok(v, bits) && v != 0, "set/fetch (%s): fetched 0x%llx "
                          "from PE %d, which no PE stored", mode, (unsigned long long)v, t);
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

/* ------------------------------------------------------------------------ */
/* Locks: compare_swap spinlock and fetch_inc ticket lock                    */
/* ------------------------------------------------------------------------ */

#define LOCK_ITERS 150

/* Inside a critical section: claim the holder word, which must be free; a
 * second PE inside at the same time finds it taken. */
static void enter_cs(int bits, uint64_t *holder, int me, int pe)
{
    uint64_t was = AMO_OK(bits, A_SWAP, holder, (uint64_t)me + 1, 0, pe);
    PE_ASSERT(was == 0, "PE %d entered the critical section while PE %llu was inside", me,
              (unsigned long long)was - 1);
}

static void leave_cs(int bits, uint64_t *holder, int me, int pe)
{
    uint64_t was = AMO_OK(bits, A_SWAP, holder, 0, 0, pe);
    PE_ASSERT(was == (uint64_t)me + 1, "PE %d left the critical section but the holder word "
              "said %llu", me, (unsigned long long)was);
}

/* Non-atomic read-modify-write of a counter: loses updates unless the lock
 * excludes. */
static void bump_counter(uint64_t *counter, int pe)
{
    uint64_t c;
    PE_OK(sym_g64(&c, counter, pe));
    PE_OK(sym_p64(counter, c + 1, pe));
    PE_OK(sym_quiet());
}

static void spinlock_body(int me, int n, void *arg)
{
    const struct amo_param *p = arg;
    const int bits = p->bits;
    uint64_t *lock = sym_calloc(8, 8); /* [0] lock, [1] holder, [2] counter */
    PE_ASSERT(lock, "sym_calloc: %s", sym_last_error());
    const int lpe = 0, cpe = n - 1; /* lock on one PE, the data on another */
    for (int i = 0; i < LOCK_ITERS; i++) {
        for (;;) {
            uint64_t old = AMO_OK(bits, A_CSWAP, &lock[0], (uint64_t)me + 1, 0, lpe);
            if (old == 0)
                break;
            PE_ASSERT(old >= 1 && old <= (uint64_t)n && old != (uint64_t)me + 1,
                      "compare_swap on the lock returned %llu", (unsigned long long)old);
            sched_yield(); /* let the holder run when PEs outnumber cores */
        }
        enter_cs(bits, &lock[1], me, cpe);
        bump_counter(&lock[2], cpe);
        leave_cs(bits, &lock[1], me, cpe);
        /* a release whose condition fails would leave the lock held */
        uint64_t old = AMO_OK(bits, A_CSWAP, &lock[0], 0, (uint64_t)me + 1, lpe);
        PE_ASSERT(old == (uint64_t)me + 1, "releasing the lock: it held %llu, expected %d",
                  (unsigned long long)old, me + 1);
        /* a failing compare_swap must leave the word alone */
        old = AMO_OK(bits, A_CSWAP, &lock[3], 99, 12345, me);
        PE_ASSERT(old == (uint64_t)i, "compare_swap with a wrong condition returned %llu, "
                  "expected %d", (unsigned long long)old, i);
        AMO_OK(bits, A_INC, &lock[3], 0, 0, me);
    }
    PE_OK(sym_barrier_all());
    if (me == cpe) {
        PE_ASSERT(lock[2] == (uint64_t)n * LOCK_ITERS, "counter is %llu after %d locked "
                  "increments", (unsigned long long)lock[2], n * LOCK_ITERS);
        PE_ASSERT(AMO_OK(bits, A_FETCH, &lock[1], 0, 0, me) == 0, "holder word not cleared");
    }
    if (me == lpe)
        PE_ASSERT(AMO_OK(bits, A_FETCH, &lock[0], 0, 0, me) == 0, "lock still held at the end");
    PE_OK(sym_barrier_all());
    sym_free(lock);
}

ParameterizedTestParameters(amo, cswap_spinlock)
{
    size_t k = make_amo_params();
    return cr_make_param_array(struct amo_param, amo_params, k);
}

ParameterizedTest(struct amo_param *p, amo, cswap_spinlock)
{
    run_pes(p->npes, spinlock_body, p);
}

/* Ticket lock: tickets start just below 2^bits, so the 32-bit form wraps
 * halfway.  Each holder logs its PE in the slot of its ticket on PE 0; the
 * log must hold every PE exactly LOCK_ITERS times and the serving counter
 * must never pass a waiting PE's ticket. */
static void ticket_body(int me, int n, void *arg)
{
    const struct amo_param *p = arg;
    const int bits = p->bits;
    const uint64_t mask = width_mask(bits);
    const uint64_t total = (uint64_t)n * LOCK_ITERS;
    const uint64_t start = (mask - total / 2) & mask;
    uint64_t *w = sym_calloc(8, 8); /* [0] next ticket, [1] now serving, [2] holder */
    uint32_t *log = sym_calloc(total, sizeof(uint32_t));
    PE_ASSERT(w && log, "sym_calloc: %s", sym_last_error());
    if (me == 0) {
        AMO_OK(bits, A_SET, &w[0], start, 0, 0);
        AMO_OK(bits, A_SET, &w[1], start, 0, 0);
    }
    PE_OK(sym_barrier_all());
    uint64_t prev = 0;
    for (int i = 0; i < LOCK_ITERS; i++) {
        uint64_t t = AMO_OK(bits, A_FINC, &w[0], 0, 0, 0);
        uint64_t rel = (t - start) & mask;
        PE_ASSERT(rel < total, "ticket 0x%llx is outside the %llu issued",
                  (unsigned long long)t, (unsigned long long)total);
        PE_ASSERT(i == 0 || rel > prev, "PE %d's tickets went from %llu to %llu", me,
                  (unsigned long long)prev, (unsigned long long)rel);
        prev = rel;
        for (;;) {
            uint64_t s = AMO_OK(bits, A_FETCH, &w[1], 0, 0, 0);
            uint64_t srel = (s - start) & mask;
            if (srel == rel)
                break;
            PE_ASSERT(srel < rel, "now-serving %llu passed my ticket %llu",
                      (unsigned long long)srel, (unsigned long long)rel);
            sched_yield(); /* let the holder run when PEs outnumber cores */
        }
        enter_cs(bits, &w[2], me, 0);
        PE_OK(sym_p32(&log[rel], (uint32_t)me + 1, 0));
        PE_OK(sym_quiet());
        leave_cs(bits, &w[2], me, 0);
        uint64_t s = AMO_OK(bits, A_FADD, &w[1], 1, 0, 0);
        PE_ASSERT(s == t, "now-serving was 0x%llx when ticket 0x%llx released",
                  (unsigned long long)s, (unsigned long long)t);
    }
    PE_OK(sym_barrier_all());
    if (me == 0) {
        uint64_t end = (start + total) & mask;
        PE_ASSERT(AMO_OK(bits, A_FETCH, &w[0], 0, 0, 0) == end, "next ticket is not start + %llu",
                  (unsigned long long)total);
        PE_ASSERT(AMO_OK(bits, A_FETCH, &w[1], 0, 0, 0) == end, "now-serving is not start + %llu",
                  (unsigned long long)total);
        int seen[HARNESS_MAX_PES] = { 0 };
        for (uint64_t i = 0; i < total; i++) {
            PE_ASSERT(log[i] >= 1 && log[i] <= (uint32_t)n, "ticket %llu was never served "
                      "(log holds %u)", (unsigned long long)i, log[i]);
            seen[log[i] - 1]++;
        }
        for (int pe = 0; pe < n; pe++)
            PE_ASSERT(seen[pe] == LOCK_ITERS, "PE %d held the lock %d times, expected %d", pe,
                      seen[pe], LOCK_ITERS);
    }
    PE_OK(sym_barrier_all());
    sym_free(log);
    sym_free(w);
}

ParameterizedTestParameters(amo, fetch_inc_ticket_lock)
{
    size_t k = make_amo_params();
    return cr_make_param_array(struct amo_param, amo_params, k);
}

ParameterizedTest(struct amo_param *p, amo, fetch_inc_ticket_lock)
{
    run_pes(p->npes, ticket_body, p);
}

/* ------------------------------------------------------------------------ */
/* Argument errors                                                           */
/* ------------------------------------------------------------------------ */

/* The failure must carry the expected code and a message naming the call. */
static void expect_error(int bits, enum amo_id id, void *dest, uint64_t *old_p, int pe,
                         sym_status_t want, const char *why)
{
    char name[48];
    snprintf(name, sizeof(name), "sym_atomic_%s%d", amo_name[id], bits);
    sym_status_t st = amo(bits, id, dest, 0x77, 0, old_p, pe);
    PE_ASSERT(st == want, "%s with %s returned %s, expected %s (%s)", name, why,
              sym_status_name(st), sym_status_name(want), sym_last_error());
    PE_ASSERT(strstr(sym_last_error(), name), "%s with %s: message \"%s\" does not name the "
              "call", name, why, sym_last_error());
}

static void errors_body(int me, int n, void *arg)
{
    (void)arg;
    uint8_t *buf = sym_malloc(64);
    PE_ASSERT(buf, "sym_malloc: %s", sym_last_error());
    memset(buf, 0xAB, 64);
    PE_OK(sym_barrier_all());
    const int right = (me + 1) % n;
    uint64_t stack_word[2] = { 0xABABABABABABABABu, 0xABABABABABABABABu };
    uint64_t *heap_word = malloc(16);
    PE_ASSERT(heap_word, "malloc");
    memset(heap_word, 0xAB, 16);

    for (int bits = 32; bits <= 64; bits += 32) {
        for (int i = 0; i < A_COUNT; i++) {
            enum amo_id id = (enum amo_id)i;
            uint64_t old = 0, *o = amo_fetches(id) ? &old : NULL;
            /* misaligned: every offset inside the word, on this PE and the next */
            for (int off = 1; off < bits / 8; off++) {
                expect_error(bits, id, buf + 8 + off, o, me, SYM_ERR_INVALID_ARG,
                             "a misaligned dest");
                expect_error(bits, id, buf + 8 + off, o, right, SYM_ERR_INVALID_ARG,
                             "a misaligned dest on another PE");
            }
            if (amo_fetches(id)) {
                expect_error(bits, id, buf + 16, NULL, me, SYM_ERR_INVALID_ARG,
                             "a NULL old_p");
                expect_error(bits, id, buf + 16, NULL, right, SYM_ERR_INVALID_ARG,
                             "a NULL old_p on another PE");
            }
            static const int bad_pes[] = { -1, INT_MIN, 0x7fffffff };
            for (size_t b = 0; b < sizeof(bad_pes) / sizeof(bad_pes[0]); b++)
                expect_error(bits, id, buf + 24, o, bad_pes[b], SYM_ERR_INVALID_PE,
                             "a negative or huge PE");
            expect_error(bits, id, buf + 24, o, n, SYM_ERR_INVALID_PE, "PE == n_pes");
            expect_error(bits, id, buf + 24, o, n + 3, SYM_ERR_INVALID_PE, "PE > n_pes");
            expect_error(bits, id, stack_word, o, me, SYM_ERR_NOT_SYMMETRIC, "a stack dest");
            expect_error(bits, id, stack_word, o, right, SYM_ERR_NOT_SYMMETRIC,
                         "a stack dest on another PE");
            expect_error(bits, id, heap_word, o, me, SYM_ERR_NOT_SYMMETRIC, "a malloc dest");
            /* global variables are symmetric: test_globals */
            /* inside the heap mapping but outside its user part */
            uint8_t *base = sym_rt.base;
            expect_error(bits, id, base, o, right, SYM_ERR_NOT_SYMMETRIC,
                         "the heap's control block");
            expect_error(bits, id, base + SYM_SYNC_OFF, o, right, SYM_ERR_NOT_SYMMETRIC,
                         "the heap's sync area");
            expect_error(bits, id, base + sym_rt.layout.mailbox_off, o, right,
                         SYM_ERR_NOT_SYMMETRIC, "the heap's mailbox region");
            expect_error(bits, id, base + sym_rt.layout.user_off + sym_rt.layout.user_size, o,
                         right, SYM_ERR_NOT_SYMMETRIC, "the end of the user heap");
            /* a local pointer to a peer's copy (from sym_ptr) is not a
             * symmetric address */
            if (right != me)
                expect_error(bits, id, sym_ptr(buf + 24, right), o, right,
                             SYM_ERR_NOT_SYMMETRIC, "a sym_ptr() pointer");
        }
    }
    /* a failed call changes nothing, here or on the neighbour */
    PE_OK(sym_barrier_all());
    for (int i = 0; i < 64; i++)
        PE_ASSERT(buf[i] == 0xAB, "a failed atomic modified symmetric byte %d (now 0x%02x)", i,
                  buf[i]);
    for (int i = 0; i < 2; i++)
        PE_ASSERT(stack_word[i] == 0xABABABABABABABABu && heap_word[i] == 0xABABABABABABABABu,
                  "a failed atomic modified non-symmetric memory");
    free(heap_word);
    PE_OK(sym_barrier_all());
    sym_free(buf);
}

ParameterizedTestParameters(amo, errors)
{
    static int counts[] = { 1, 2, 3 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, amo, errors)
{
    run_pes(*npes, errors_body, NULL);
}
