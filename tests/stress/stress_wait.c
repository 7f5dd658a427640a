/*
 * stress_wait.c - wait steps: every PE writes one word at a target, which
 * waits for them all (every type, comparison and form).
 */
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

enum wtype { W_I32, W_I64, W_U32, W_U64, W_NTYPES };

static int wait_satisfied(enum wtype t, int p, sym_cmp_t cmp, int64_t sv, uint64_t uv)
{
    int64_t s = 0;
    uint64_t u = 0;
    bool sgn = t == W_I32 || t == W_I64;
    switch (t) {
    case W_I32:
        s = __atomic_load_n(&stress_state.iv_i32[p], __ATOMIC_ACQUIRE);
        break;
    case W_I64:
        s = __atomic_load_n(&stress_state.iv_i64[p], __ATOMIC_ACQUIRE);
        break;
    case W_U32:
        u = __atomic_load_n(&stress_state.iv_u32[p], __ATOMIC_ACQUIRE);
        break;
    default:
        u = __atomic_load_n(&stress_state.iv_u64[p], __ATOMIC_ACQUIRE);
        break;
    }
    switch (cmp) {
    case SYM_CMP_EQ:
        return sgn ? s == sv : u == uv;
    case SYM_CMP_GE:
        return sgn ? s >= sv : u >= uv;
    case SYM_CMP_GT:
        return sgn ? s > sv : u > uv;
    case SYM_CMP_LE:
        return sgn ? s <= sv : u <= uv;
    case SYM_CMP_LT:
        return sgn ? s < sv : u < uv;
    default:
        return 0;
    }
}

#define WAIT_CALL_(name, T, arr, val, form)                                                        \
    switch (form) {                                                                                \
    case 0:                                                                                        \
        st = sym_wait_until_all_##name(arr, nw, status, cmp, (T)val);                              \
        break;                                                                                     \
    case 1:                                                                                        \
        st = sym_wait_until_any_##name(arr, nw, status, cmp, (T)val, &idx);                        \
        break;                                                                                     \
    case 2:                                                                                        \
        st = sym_wait_until_some_##name(arr, nw, status, cmp, (T)val, idxs, &cnt);                 \
        break;                                                                                     \
    case 3:                                                                                        \
        st = sym_test_all_##name(arr, nw, status, cmp, (T)val, &sat);                              \
        break;                                                                                     \
    case 4:                                                                                        \
        st = sym_test_any_##name(arr, nw, status, cmp, (T)val, &idx);                              \
        break;                                                                                     \
    case 5:                                                                                        \
        st = sym_test_some_##name(arr, nw, status, cmp, (T)val, idxs, &cnt);                       \
        break;                                                                                     \
    case 6:                                                                                        \
        st = sym_wait_until_##name(&arr[i1], cmp, (T)val);                                         \
        break;                                                                                     \
    default:                                                                                       \
        st = sym_test_##name(&arr[i1], cmp, (T)val, &sat);                                         \
        break;                                                                                     \
    }

void step_wait(struct rng *r)
{
    const int me = stress_state.me, n = stress_state.n;
    const int tgt = (int)rbelow(r, (uint64_t)n);
    enum wtype t = (enum wtype)rbelow(r, W_NTYPES);
    const bool sgn = t == W_I32 || t == W_I64, down = sgn && rchance(r, 50);
    const int64_t sv = down ? -(int64_t)(stress_state.step + 1) : (int64_t)(stress_state.step + 1);
    const uint64_t uv = stress_state.step + 1;
    static const sym_cmp_t ups[] = {SYM_CMP_EQ, SYM_CMP_GE, SYM_CMP_GT};
    static const sym_cmp_t downs[] = {SYM_CMP_EQ, SYM_CMP_LE, SYM_CMP_LT};
    sym_cmp_t cmp = down ? downs[rbelow(r, 3)] : ups[rbelow(r, 3)];
    int64_t csv = cmp == SYM_CMP_GT ? sv - 1 : cmp == SYM_CMP_LT ? sv + 1 : sv;
    uint64_t cuv = cmp == SYM_CMP_GT ? uv - 1 : uv;
    int form = (int)rbelow(r, 8);
    int how = (int)rbelow(&(struct rng){key3(stress_state.step, (uint64_t)me, K_OPS)}, 3);
    static const char *const tnames[] = {"int32", "int64", "uint32", "uint64"};
    set_what("wait_until %s target %d form %d cmp %d value %" PRId64, tnames[t], tgt, form,
             (int)cmp, sv);

    /* write: atomic set, single-element put, or (uint64) put-with-signal */
    switch (t) {
    case W_I32:
        if (how == 0)
            CALL(sym_atomic_set32((uint32_t *)(void *)&stress_state.iv_i32[me], (uint32_t)sv, tgt));
        else
            CALL(sym_p32((uint32_t *)(void *)&stress_state.iv_i32[me], (uint32_t)sv, tgt));
        break;
    case W_I64:
        if (how == 0)
            CALL(sym_atomic_set64((uint64_t *)(void *)&stress_state.iv_i64[me], (uint64_t)sv, tgt));
        else
            CALL(sym_p64((uint64_t *)(void *)&stress_state.iv_i64[me], (uint64_t)sv, tgt));
        break;
    case W_U32:
        if (how == 0)
            CALL(sym_atomic_set32(&stress_state.iv_u32[me], (uint32_t)uv, tgt));
        else
            CALL(sym_p32(&stress_state.iv_u32[me], (uint32_t)uv, tgt));
        break;
    default:
        if (how == 0)
            CALL(sym_atomic_set64(&stress_state.iv_u64[me], uv, tgt));
        else if (how == 1)
            CALL(sym_p64(&stress_state.iv_u64[me], uv, tgt));
        else {
            CALL(sym_put_signal(stress_state.rma, stress_state.rma, 0, &stress_state.iv_u64[me], uv,
                                SYM_SIGNAL_SET, tgt));
            stress_state.count[CNT_PUT_SIGNAL]++;
        }
        break;
    }
    if (how == 2 && t == W_U64) {
    } else if (how == 0) {
        stress_state.count[t == W_I32 || t == W_U32 ? CNT_AMO32 : CNT_AMO64]++;
    } else {
        stress_state.count[CNT_P]++;
    }

    /* exclude some words (their writes still happen) */
    int status[MAXPE] = {0};
    for (int p = 0; p < n; p++)
        status[p] = rchance(r, 15);
    int excluded[MAXPE];
    memcpy(excluded, status, sizeof(excluded));
    if (me == tgt) {
        struct rng mine = rng_for(stress_state.step, (uint64_t)me, K_ORDER);
        size_t nw = (size_t)n;
        size_t idx = 0, idxs[MAXPE], cnt = 0;
        int sat = 0;
        sym_status_t st;
        bool done = false;
        int i1 = 0;
        for (long iter = 0; !done; iter++) {
            idx = SIZE_MAX;
            cnt = 0;
            sat = 0;
            if (form >= 6) { /* one word at a time, in order */
                while (i1 < n && status[i1])
                    i1++;
                if (i1 == n)
                    break;
            }
            switch (t) {
            case W_I32:
                WAIT_CALL_(int32, int32_t, stress_state.iv_i32, csv, form);
                break;
            case W_I64:
                WAIT_CALL_(int64, int64_t, stress_state.iv_i64, csv, form);
                break;
            case W_U32:
                WAIT_CALL_(uint32, uint32_t, stress_state.iv_u32, cuv, form);
                break;
            default:
                if (form == 6 && rchance(&mine, 50)) {
                    uint64_t seen = 0;
                    st = sym_signal_wait_until(&stress_state.iv_u64[i1], cmp, cuv, &seen);
                    stress_state.count[CNT_SIGNAL_WAIT]++;
                    if (st == SYM_OK && seen != uv)
                        wrong("signal_wait_until returned %" PRIu64 ", expected %" PRIu64, seen,
                              uv);
                    i1++;
                    continue;
                } else {
                    WAIT_CALL_(uint64, uint64_t, stress_state.iv_u64, cuv, form);
                }
                break;
            }
            if (st != SYM_OK)
                die("wait/test", st);
            if (form < 3 || form == 6)
                stress_state.count[CNT_WAIT_UNTIL]++;
            switch (form) {
            case 0:
                done = true;
                break;
            case 3:
                done = sat;
                break;
            case 1:
            case 4:
                if (idx == SIZE_MAX) {
                    bool left = false;
                    for (int p = 0; p < n; p++)
                        left |= !status[p];
                    if (form == 1 && left)
                        wrong("wait_until_any returned SIZE_MAX with words still included");
                    done = form == 1 || !left; /* test_any: none satisfied yet */
                    break;
                }
                if (!wait_satisfied(t, (int)idx, cmp, csv, cuv))
                    wrong("wait_until_any/test_any returned index %zu, which does not "
                          "satisfy the condition",
                          idx);
                status[idx] = 1;
                break;
            case 2:
            case 5:
                if (form == 2 && cnt == 0) {
                    done = true; /* nothing left included */
                    break;
                }
                for (size_t j = 0; j < cnt; j++) {
                    if (idxs[j] >= nw || status[idxs[j]])
                        wrong("wait_until_some/test_some returned index %zu (excluded or out "
                              "of range)",
                              idxs[j]);
                    else if (!wait_satisfied(t, (int)idxs[j], cmp, csv, cuv))
                        wrong("wait_until_some/test_some returned index %zu, which does not "
                              "satisfy the condition",
                              idxs[j]);
                    else
                        status[idxs[j]] = 1;
                }
                if (form == 5) {
                    bool left = false;
                    for (int p = 0; p < n; p++)
                        left |= !status[p];
                    done = !left;
                }
                break;
            case 6:
                i1++;
                break;
            default:
                if (sat)
                    i1++;
                break;
            }
            if (form >= 3 && form != 6 && (done || sat || idx != SIZE_MAX || cnt))
                stress_state.count[CNT_TEST]++; /* polls that found something */
            if (iter > 100000000L) {
                wrong("test loop never satisfied");
                break;
            }
        }
        /* every word waited for now holds what its writer wrote */
        for (int p = 0; p < n; p++)
            if (!excluded[p] && !wait_satisfied(t, p, SYM_CMP_EQ, sv, uv))
                wrong("wait word of PE %d does not hold the value it wrote after the waits", p);
    }
    sync_world(r);
}
