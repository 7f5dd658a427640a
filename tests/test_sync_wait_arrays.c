/* test_sync_wait_arrays.c - sym_wait_until_{all,any,some}_T and
 * sym_test_{all,any,some}_T with and without status masks, on arrays that
 * the other PEs fill, at 1..8 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "harness.h"
#include "sync_check.h"

static int pe_counts[] = HARNESS_PE_COUNTS;
#define NCOUNTS (sizeof(pe_counts) / sizeof(pe_counts[0]))

/* ------------------------------------------------------------------------ */
/* wait_until_all/any/some and test_all/any/some with status masks           */
/* ------------------------------------------------------------------------ */

/* Every other PE writes its share of an array on PE 0 (PE 0 itself at 1 PE);
 * elements with i % 4 == 3 are excluded by the status mask.  For each type a
 * comparison and a satisfying value with the type's own signedness: */
#define ARR_CMP_int32  SYM_CMP_LT /* written values are negative */
#define ARR_CMP_int64  SYM_CMP_LE
#define ARR_CMP_uint32 SYM_CMP_GT /* written values have the top bit set */
#define ARR_CMP_uint64 SYM_CMP_GE
#define ARR_MAXN       (4 * HARNESS_MAX_PES)

static bool arr_excluded(size_t i)
{
    return i % 4 == 3;
}

static size_t sort_indices(size_t *v, size_t n)
{
    for (size_t i = 1; i < n; i++)
        for (size_t j = i; j > 0 && v[j - 1] > v[j]; j--) {
            size_t t = v[j];
            v[j] = v[j - 1];
            v[j - 1] = t;
        }
    return n;
}

#define ARRAY_FNS(name, T, bits, signed_)                                                          \
    static T arr_sat_##name(size_t i)                                                              \
    {                                                                                              \
        return signed_ ? (T)(-(int64_t)i - 1)                                                      \
                       : (T)(((uint##bits##_t)1 << (bits - 1)) + (uint##bits##_t)i);               \
    }                                                                                              \
    static T arr_thresh_##name(void)                                                               \
    {                                                                                              \
        return signed_ ? (T)(ARR_CMP_##name == SYM_CMP_LT ? 0 : -1)                                \
                       : (T)(ARR_CMP_##name == SYM_CMP_GT ? ((uint##bits##_t)1 << (bits - 1)) - 1  \
                                                          : ((uint##bits##_t)1 << (bits - 1)));    \
    }                                                                                              \
    /* Writers store element i; for uint64 through put_signal with a payload. */                   \
    static void arr_write_##name(T *a, uint64_t *payload, size_t i, int how)                       \
    {                                                                                              \
        T v = arr_sat_##name(i);                                                                   \
        if (bits == 64 && !signed_) {                                                              \
            uint64_t d = 0xDA7A000000000000u | i;                                                  \
            PE_OK(sym_put_signal(&payload[i], &d, 8, (uint64_t *)&a[i], (uint64_t)v,               \
                                 SYM_SIGNAL_SET, 0));                                              \
        } else if (how) {                                                                          \
            PE_OK(sym_atomic_set##bits((uint##bits##_t *)&a[i], (uint##bits##_t)v, 0));            \
        } else {                                                                                   \
            PE_OK(sym_p##bits((uint##bits##_t *)&a[i], (uint##bits##_t)v, 0));                     \
        }                                                                                          \
    }                                                                                              \
    static void arr_check_##name(T *a, uint64_t *payload, size_t i)                                \
    {                                                                                              \
        T got = __atomic_load_n(&a[i], __ATOMIC_ACQUIRE);                                          \
        PE_ASSERT(got == arr_sat_##name(i), #name " element %zu is %lld, expected %lld", i,        \
                  (long long)got, (long long)arr_sat_##name(i));                                   \
        if (bits == 64 && !signed_)                                                                \
            PE_ASSERT(payload[i] == (0xDA7A000000000000u | i),                                     \
                      "put_signal payload of "                                                     \
                      "element %zu not visible with its signal",                                   \
                      i);                                                                          \
    }                                                                                              \
    static void arrays_##name(int me, int n, T *a, uint64_t *payload)                              \
    {                                                                                              \
        const sym_cmp_t cmp = ARR_CMP_##name;                                                      \
        const T th = arr_thresh_##name();                                                          \
        const int nw = n > 1 ? n - 1 : 1;                                                          \
        const int my_w = n > 1 ? me - 1 : 0; /* -1: PE 0 only receives */                          \
        const size_t M = 4 * (size_t)nw;                                                           \
        int mask[ARR_MAXN], none[ARR_MAXN];                                                        \
        size_t idx[ARR_MAXN], cnt = 99, at = 99;                                                   \
        int sat = -1;                                                                              \
        size_t n_in = 0;                                                                           \
        for (size_t i = 0; i < M; i++) {                                                           \
            mask[i] = arr_excluded(i) ? 1 : 0;                                                     \
            none[i] = 1 + (int)i; /* any non-zero value excludes */                                \
            n_in += !arr_excluded(i);                                                              \
        }                                                                                          \
        T zero;                                                                                    \
        memset(&zero, 0, sizeof(zero)); /* not a constant: no always-true warning */               \
        PE_ASSERT(!REF_CMP(zero, cmp, th) && REF_CMP(arr_sat_##name(M), cmp, th), "table error");  \
        /* phase 1: all, excluded elements never satisfied */                                      \
        if (me == 0) {                                                                             \
            memset(a, 0, M * sizeof(T));                                                           \
            PE_OK(sym_test_all_##name(a, M, mask, cmp, th, &sat));                                 \
            PE_ASSERT(sat == 0, "test_all on a fresh array gave %d", sat);                         \
            PE_OK(sym_test_any_##name(a, M, mask, cmp, th, &at));                                  \
            PE_ASSERT(at == SIZE_MAX, "test_any on a fresh array gave %zu", at);                   \
            PE_OK(sym_test_some_##name(a, M, mask, cmp, th, idx, &cnt));                           \
            PE_ASSERT(cnt == 0, "test_some on a fresh array gave %zu", cnt);                       \
            /* nothing included: every form returns at once */                                     \
            PE_OK(sym_wait_until_all_##name(a, M, none, cmp, th));                                 \
            PE_OK(sym_wait_until_any_##name(a, M, none, cmp, th, &at));                            \
            PE_ASSERT(at == SIZE_MAX, "wait_until_any with all excluded gave %zu", at);            \
            PE_OK(sym_wait_until_some_##name(a, M, none, cmp, th, idx, &cnt));                     \
            PE_ASSERT(cnt == 0, "wait_until_some with all excluded gave %zu", cnt);                \
            PE_OK(sym_test_all_##name(a, M, none, cmp, th, &sat));                                 \
            PE_ASSERT(sat == 1, "test_all with all excluded gave %d", sat);                        \
            at = 99;                                                                               \
            PE_OK(sym_test_any_##name(a, M, none, cmp, th, &at));                                  \
            PE_ASSERT(at == SIZE_MAX, "test_any with all excluded gave %zu", at);                  \
            cnt = 99;                                                                              \
            PE_OK(sym_test_some_##name(a, M, none, cmp, th, idx, &cnt));                           \
            PE_ASSERT(cnt == 0, "test_some with all excluded gave %zu", cnt);                      \
            PE_OK(sym_wait_until_all_##name(a, 0, NULL, cmp, th));                                 \
            PE_OK(sym_wait_until_any_##name(a, 0, NULL, cmp, th, &at));                            \
            PE_ASSERT(at == SIZE_MAX, "wait_until_any of 0 elements gave %zu", at);                \
            PE_OK(sym_wait_until_some_##name(a, 0, NULL, cmp, th, idx, &cnt));                     \
            PE_ASSERT(cnt == 0, "wait_until_some of 0 elements gave %zu", cnt);                    \
        }                                                                                          \
        PE_OK(sym_barrier_all());                                                                  \
        if (my_w >= 0)                                                                             \
            for (size_t i = (size_t)my_w; i < M; i += (size_t)nw)                                  \
                if (!arr_excluded(i))                                                              \
                    arr_write_##name(a, payload, i, (int)(i / (size_t)nw) % 2);                    \
        if (me == 0) {                                                                             \
            PE_OK(sym_wait_until_all_##name(a, M, mask, cmp, th));                                 \
            for (size_t i = 0; i < M; i++) {                                                       \
                if (arr_excluded(i))                                                               \
                    PE_ASSERT(a[i] == 0, "excluded element %zu was written", i);                   \
                else                                                                               \
                    arr_check_##name(a, payload, i);                                               \
            }                                                                                      \
            PE_OK(sym_test_all_##name(a, M, mask, cmp, th, &sat));                                 \
            PE_ASSERT(sat == 1, "test_all after wait_until_all gave %d", sat);                     \
            PE_OK(sym_test_all_##name(a, M, NULL, cmp, th, &sat));                                 \
            PE_ASSERT(sat == 0, "test_all without a mask counted the unwritten elements");         \
            PE_OK(sym_test_some_##name(a, M, mask, cmp, th, idx, &cnt));                           \
            PE_ASSERT(cnt == n_in, "test_some found %zu of %zu", cnt, n_in);                       \
            sort_indices(idx, cnt);                                                                \
            for (size_t i = 0, j = 0; i < M; i++)                                                  \
                if (!arr_excluded(i)) {                                                            \
                    PE_ASSERT(idx[j] == i, "test_some index %zu is %zu, expected %zu", j, idx[j],  \
                              i);                                                                  \
                    j++;                                                                           \
                }                                                                                  \
            PE_OK(sym_test_any_##name(a, M, mask, cmp, th, &at));                                  \
            PE_ASSERT(at < M && !arr_excluded(at), "test_any gave %zu", at);                       \
        }                                                                                          \
        PE_OK(sym_barrier_all());                                                                  \
                                                                                                   \
        /* phase 2: any/some, excluded elements already satisfied */                               \
        const size_t k = M - 2; /* included */                                                     \
        if (me == 0) {                                                                             \
            for (size_t i = 0; i < M; i++)                                                         \
                a[i] = arr_excluded(i) ? arr_sat_##name(i) : 0;                                    \
            PE_OK(sym_test_any_##name(a, M, mask, cmp, th, &at));                                  \
            PE_ASSERT(at == SIZE_MAX, "test_any picked excluded element %zu", at);                 \
            PE_OK(sym_test_some_##name(a, M, mask, cmp, th, idx, &cnt));                           \
            PE_ASSERT(cnt == 0, "test_some counted %zu excluded elements", cnt);                   \
            PE_OK(sym_test_any_##name(a, M, NULL, cmp, th, &at));                                  \
            PE_ASSERT(at < M && arr_excluded(at), "test_any without a mask gave %zu", at);         \
            PE_OK(sym_test_all_##name(a, M, mask, cmp, th, &sat));                                 \
            PE_ASSERT(sat == 0, "test_all gave %d with nothing included satisfied", sat);          \
        }                                                                                          \
        PE_OK(sym_barrier_all());                                                                  \
        if (my_w == (int)(k % (size_t)nw)) {                                                       \
            pause_us(1000);                                                                        \
            arr_write_##name(a, payload, k, 1);                                                    \
        }                                                                                          \
        if (me == 0) {                                                                             \
            PE_OK(sym_wait_until_any_##name(a, M, mask, cmp, th, &at));                            \
            PE_ASSERT(at == k, "wait_until_any gave %zu; only %zu is satisfied", at, k);           \
            arr_check_##name(a, payload, k);                                                       \
            PE_OK(sym_wait_until_some_##name(a, M, mask, cmp, th, idx, &cnt));                     \
            PE_ASSERT(cnt == 1 && idx[0] == k,                                                     \
                      "wait_until_some gave %zu indices (first "                                   \
                      "%zu); only %zu is satisfied",                                               \
                      cnt, idx[0], k);                                                             \
        }                                                                                          \
        PE_OK(sym_barrier_all());                                                                  \
        if (my_w >= 0)                                                                             \
            for (size_t i = (size_t)my_w; i < M; i += (size_t)nw)                                  \
                if (!arr_excluded(i) && i != k)                                                    \
                    arr_write_##name(a, payload, i, 0);                                            \
        if (me == 0) {                                                                             \
            /* consume arrivals the way a server would: mask out what was seen */                  \
            int seen[ARR_MAXN];                                                                    \
            memcpy(seen, mask, sizeof(seen));                                                      \
            size_t got = 0;                                                                        \
            while (got < n_in) {                                                                   \
                PE_OK(sym_wait_until_some_##name(a, M, seen, cmp, th, idx, &cnt));                 \
                PE_ASSERT(cnt >= 1 && cnt <= n_in - got,                                           \
                          "wait_until_some gave %zu with "                                         \
                          "%zu pending",                                                           \
                          cnt, n_in - got);                                                        \
                for (size_t j = 0; j < cnt; j++) {                                                 \
                    PE_ASSERT(idx[j] < M && !seen[idx[j]],                                         \
                              "wait_until_some gave index %zu "                                    \
                              "that is excluded or already seen",                                  \
                              idx[j]);                                                             \
                    arr_check_##name(a, payload, idx[j]);                                          \
                    seen[idx[j]] = 1;                                                              \
                }                                                                                  \
                got += cnt;                                                                        \
            }                                                                                      \
            PE_OK(sym_wait_until_some_##name(a, M, seen, cmp, th, idx, &cnt));                     \
            PE_ASSERT(cnt == 0, "wait_until_some with everything seen gave %zu", cnt);             \
        }                                                                                          \
        PE_OK(sym_barrier_all());                                                                  \
                                                                                                   \
        /* phase 3: no mask, every element written */                                              \
        if (me == 0)                                                                               \
            memset(a, 0, M * sizeof(T));                                                           \
        PE_OK(sym_barrier_all());                                                                  \
        if (my_w >= 0)                                                                             \
            for (size_t i = (size_t)my_w; i < M; i += (size_t)nw)                                  \
                arr_write_##name(a, payload, i, (int)i % 2);                                       \
        if (me == 0) {                                                                             \
            PE_OK(sym_wait_until_all_##name(a, M, NULL, cmp, th));                                 \
            for (size_t i = 0; i < M; i++)                                                         \
                arr_check_##name(a, payload, i);                                                   \
            PE_OK(sym_test_all_##name(a, M, NULL, cmp, th, &sat));                                 \
            PE_ASSERT(sat == 1, "test_all without a mask gave %d", sat);                           \
            for (int blocking = 0; blocking <= 1; blocking++) {                                    \
                cnt = 0;                                                                           \
                if (blocking)                                                                      \
                    PE_OK(sym_wait_until_some_##name(a, M, NULL, cmp, th, idx, &cnt));             \
                else                                                                               \
                    PE_OK(sym_test_some_##name(a, M, NULL, cmp, th, idx, &cnt));                   \
                PE_ASSERT(cnt == M, "%s_some without a mask found %zu of %zu",                     \
                          blocking ? "wait_until" : "test", cnt, M);                               \
                sort_indices(idx, cnt);                                                            \
                for (size_t i = 0; i < M; i++)                                                     \
                    PE_ASSERT(idx[i] == i, "some: index %zu is %zu", i, idx[i]);                   \
            }                                                                                      \
        }                                                                                          \
        PE_OK(sym_barrier_all());                                                                  \
    }

ARRAY_FNS(int32, int32_t, 32, 1)
ARRAY_FNS(int64, int64_t, 64, 1)
ARRAY_FNS(uint32, uint32_t, 32, 0)
ARRAY_FNS(uint64, uint64_t, 64, 0)

static void arrays_body(int me, int n, void *arg)
{
    (void)arg;
    void *a = sym_calloc(ARR_MAXN, 8);
    uint64_t *payload = sym_calloc(ARR_MAXN, 8);
    PE_ASSERT(a && payload, "sym_calloc: %s", sym_last_error());
    arrays_int32(me, n, a, payload);
    arrays_int64(me, n, a, payload);
    arrays_uint32(me, n, a, payload);
    arrays_uint64(me, n, a, payload);
    sym_free(payload);
    sym_free(a);
}

ParameterizedTestParameters(sync, wait_all_any_some)
{
    return cr_make_param_array(int, pe_counts, NCOUNTS);
}

ParameterizedTest(int *npes, sync, wait_all_any_some)
{
    run_pes(*npes, arrays_body, NULL);
}
