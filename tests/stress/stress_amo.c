/*
 * stress_amo.c - atomic steps: every 32- and 64-bit atomic, private and
 * contended words, checked against a sequential model.
 */
#include "amo_ops.h"
#include "stress_private.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

static const char *const amo_names[] = {
    "fetch",     "set", "swap", "compare_swap", "add",       "fetch_add", "inc",
    "fetch_inc", "and", "or",   "xor",          "fetch_and", "fetch_or",  "fetch_xor"};

/* Apply one op to the model word; returns the value a fetching op yields. */
static uint64_t amo_model(enum amo_id op, uint64_t *w, uint64_t v, uint64_t cond, uint64_t mask)
{
    uint64_t old = *w;
    switch (op) {
    case A_FETCH:
        break;
    case A_SET:
    case A_SWAP:
        *w = v;
        break;
    case A_CSWAP:
        if (old == cond)
            *w = v;
        break;
    case A_ADD:
    case A_FADD:
        *w = old + v;
        break;
    case A_INC:
    case A_FINC:
        *w = old + 1;
        break;
    case A_AND:
    case A_FAND:
        *w = old & v;
        break;
    case A_OR:
    case A_FOR:
        *w = old | v;
        break;
    case A_XOR:
    case A_FXOR:
        *w = old ^ v;
        break;
    default:
        break;
    }
    *w &= mask;
    return old;
}

static bool amo_fetches(enum amo_id op)
{
    return op == A_FETCH || op == A_SWAP || op == A_CSWAP || op == A_FADD || op == A_FINC ||
           op == A_FAND || op == A_FOR || op == A_FXOR;
}

#define AMO_DO_(bits, op, dest, v, cond, old_p, pe)                                                \
    switch (op) {                                                                                  \
    case A_FETCH:                                                                                  \
        st = sym_atomic_fetch##bits(old_p, dest, pe);                                              \
        break;                                                                                     \
    case A_SET:                                                                                    \
        st = sym_atomic_set##bits(dest, v, pe);                                                    \
        break;                                                                                     \
    case A_SWAP:                                                                                   \
        st = sym_atomic_swap##bits(dest, v, old_p, pe);                                            \
        break;                                                                                     \
    case A_CSWAP:                                                                                  \
        st = sym_atomic_compare_swap##bits(dest, cond, v, old_p, pe);                              \
        break;                                                                                     \
    case A_ADD:                                                                                    \
        st = sym_atomic_add##bits(dest, v, pe);                                                    \
        break;                                                                                     \
    case A_FADD:                                                                                   \
        st = sym_atomic_fetch_add##bits(dest, v, old_p, pe);                                       \
        break;                                                                                     \
    case A_INC:                                                                                    \
        st = sym_atomic_inc##bits(dest, pe);                                                       \
        break;                                                                                     \
    case A_FINC:                                                                                   \
        st = sym_atomic_fetch_inc##bits(dest, old_p, pe);                                          \
        break;                                                                                     \
    case A_AND:                                                                                    \
        st = sym_atomic_and##bits(dest, v, pe);                                                    \
        break;                                                                                     \
    case A_OR:                                                                                     \
        st = sym_atomic_or##bits(dest, v, pe);                                                     \
        break;                                                                                     \
    case A_XOR:                                                                                    \
        st = sym_atomic_xor##bits(dest, v, pe);                                                    \
        break;                                                                                     \
    case A_FAND:                                                                                   \
        st = sym_atomic_fetch_and##bits(dest, v, old_p, pe);                                       \
        break;                                                                                     \
    case A_FOR:                                                                                    \
        st = sym_atomic_fetch_or##bits(dest, v, old_p, pe);                                        \
        break;                                                                                     \
    case A_FXOR:                                                                                   \
        st = sym_atomic_fetch_xor##bits(dest, v, old_p, pe);                                       \
        break;                                                                                     \
    default:                                                                                       \
        st = SYM_ERR_INTERNAL;                                                                     \
        break;                                                                                     \
    }

/* Execute op on word `idx` of the 32- or 64-bit array at `pe`. */
static uint64_t amo_do(int bits, enum amo_id op, size_t idx, uint64_t v, uint64_t cond, int pe)
{
    sym_status_t st;
    if (bits == 32) {
        uint32_t old = 0;
        AMO_DO_(32, op, &stress_state.amo32[idx], (uint32_t)v, (uint32_t)cond, &old, pe);
        if (st != SYM_OK)
            die(amo_names[op], st);
        stress_state.count[CNT_AMO32]++;
        return old;
    }
    uint64_t old = 0;
    AMO_DO_(64, op, &stress_state.amo64[idx], v, cond, &old, pe);
    if (st != SYM_OK)
        die(amo_names[op], st);
    stress_state.count[CNT_AMO64]++;
    return old;
}

/* The op sequence PE p runs on its private word: drawn from (step, p). */
struct amo_seq {
    int k;
    enum amo_id op[16];
    uint64_t v[16], cond[16];
    bool cond_hits[16];
};

static void amo_seq_for(int p, struct amo_seq *q)
{
    struct rng r = rng_for(stress_state.step, (uint64_t)p, K_OPS);
    q->k = 1 + (int)rbelow(&r, 16);
    for (int i = 0; i < q->k; i++) {
        q->op[i] = (enum amo_id)rbelow(&r, A_COUNT);
        q->v[i] = rnext(&r);
        q->cond[i] = rnext(&r);
        q->cond_hits[i] = rchance(&r, 50); /* then cond is the current value */
    }
}

void step_amo(struct rng *r)
{
    const int me = stress_state.me, n = stress_state.n;
    const int bits = rchance(r, 50) ? 32 : 64;
    const uint64_t mask = bits == 32 ? UINT32_MAX : UINT64_MAX;
    const bool contended = rchance(r, 35);
    const int shift = (int)rbelow(r, (uint64_t)n);
    const int ctgt = (int)rbelow(r, (uint64_t)n);
    set_what("atomics %d-bit %s shift %d target %d", bits, contended ? "contended" : "private",
             shift, ctgt);

    /* every word of this PE starts from a value known to all */
    for (int q = 0; q < 2 * MAXPE; q++) {
        uint64_t init = key3(stress_state.step, (uint64_t)q, K_INIT) & mask;
        if (contended && q == MAXPE + 1)
            init = 0; /* the fetch_or word */
        if (bits == 32)
            CALL(sym_atomic_set32(&stress_state.amo32[q], (uint32_t)init, me));
        else
            CALL(sym_atomic_set64(&stress_state.amo64[q], init, me));
    }
    sync_world(r);

    if (!contended) {
        int tgt = (me + shift) % n;
        struct amo_seq q;
        amo_seq_for(me, &q);
        uint64_t model = key3(stress_state.step, (uint64_t)me, K_INIT) & mask;
        for (int i = 0; i < q.k; i++) {
            uint64_t cond = q.cond_hits[i] ? model : q.cond[i] & mask;
            uint64_t want = amo_model(q.op[i], &model, q.v[i] & mask, cond, mask);
            uint64_t got = amo_do(bits, q.op[i], (size_t)me, q.v[i] & mask, cond, tgt);
            if (amo_fetches(q.op[i]) && got != want)
                wrong("%s%d #%d on PE %d: fetched 0x%" PRIx64 ", expected 0x%" PRIx64,
                      amo_names[q.op[i]], bits, i, tgt, got, want);
        }
        sync_world(r);
        /* check the words other PEs worked on here */
        for (int p = 0; p < n; p++) {
            if ((p + shift) % n != me)
                continue;
            amo_seq_for(p, &q);
            uint64_t m = key3(stress_state.step, (uint64_t)p, K_INIT) & mask;
            for (int i = 0; i < q.k; i++)
                amo_model(q.op[i], &m, q.v[i] & mask, q.cond_hits[i] ? m : q.cond[i] & mask, mask);
            uint64_t got = bits == 32 ? stress_state.amo32[p] : stress_state.amo64[p];
            if (got != m)
                wrong("word of PE %d after %d atomics: 0x%" PRIx64 ", expected 0x%" PRIx64, p, q.k,
                      got, m);
        }
    } else {
        /* everyone adds to word MAXPE and sets its bit in word MAXPE+1 at ctgt */
        struct rng mine = rng_for(stress_state.step, (uint64_t)me, K_OPS);
        const uint64_t init = key3(stress_state.step, MAXPE, K_INIT) & mask;
        int k = 1 + (int)rbelow(r, 24);
        uint64_t total = 0, last = 0;
        bool have_last = false;
        for (int p = 0; p < n; p++) {
            struct rng pr = rng_for(stress_state.step, (uint64_t)p, K_OPS);
            for (int i = 0; i < k; i++) {
                (void)rbelow(&pr, 4);
                total += 1 + rbelow(&pr, 1000);
            }
        }
        for (int i = 0; i < k; i++) {
            int how = (int)rbelow(&mine, 4);
            uint64_t v = 1 + rbelow(&mine, 1000), old;
            switch (how) {
            case 0:
                amo_do(bits, A_ADD, MAXPE, v, 0, ctgt);
                break;
            case 1:
                old = amo_do(bits, A_FADD, MAXPE, v, 0, ctgt);
                if (((old - init) & mask) > total - v || (have_last && ((old - last) & mask) == 0))
                    wrong("contended fetch_add%d #%d fetched 0x%" PRIx64 " (start 0x%" PRIx64
                          ", total %" PRIu64 ")",
                          bits, i, old, init, total);
                last = old;
                have_last = true;
                break;
            case 2: /* v increments, one fetch_inc each */
                for (uint64_t j = 0; j < v; j++) {
                    if (j == 0 || j + 1 == v) {
                        old = amo_do(bits, A_FINC, MAXPE, 0, 0, ctgt);
                        if (((old - init) & mask) >= total)
                            wrong("contended fetch_inc%d fetched 0x%" PRIx64, bits, old);
                    } else if (j < 4) {
                        amo_do(bits, A_INC, MAXPE, 0, 0, ctgt);
                    } else { /* the rest in one add */
                        amo_do(bits, A_ADD, MAXPE, v - 1 - j, 0, ctgt);
                        j = v - 2;
                    }
                }
                break;
            default: /* compare-and-swap loop */
                old = amo_do(bits, A_FETCH, MAXPE, 0, 0, ctgt);
                for (int tries = 0;; tries++) {
                    uint64_t seen = amo_do(bits, A_CSWAP, MAXPE, (old + v) & mask, old, ctgt);
                    if (seen == old)
                        break;
                    old = seen;
                    if (tries > 1000000) {
                        wrong("compare_swap%d loop made no progress in 1e6 tries", bits);
                        break;
                    }
                }
                break;
            }
        }
        uint64_t bit = UINT64_C(1) << me;
        uint64_t old = amo_do(bits, A_FOR, MAXPE + 1, bit, 0, ctgt);
        if (old & bit)
            wrong("fetch_or%d: own bit %d already set in 0x%" PRIx64, bits, me, old);
        sync_world(r);
        if (me == ctgt) {
            uint64_t sum = bits == 32 ? stress_state.amo32[MAXPE] : stress_state.amo64[MAXPE];
            uint64_t ors =
                bits == 32 ? stress_state.amo32[MAXPE + 1] : stress_state.amo64[MAXPE + 1];
            uint64_t all = n == 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
            if (sum != ((init + total) & mask))
                wrong("contended sum%d: 0x%" PRIx64 ", expected 0x%" PRIx64, bits, sum,
                      (init + total) & mask);
            if (ors != all)
                wrong("contended or%d: 0x%" PRIx64 ", expected 0x%" PRIx64, bits, ors, all);
        }
    }
    sync_world(r);
}
