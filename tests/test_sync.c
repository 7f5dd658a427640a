/* test_sync.c - put-with-signal ordering, signal waits, the typed
 * wait_until/test family with status masks, argument errors and timeouts,
 * at 1..8 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <sched.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "core/internal.h" /* sym_rt: the heap's reserved regions, for error cases */

static const char *cmp_text(sym_cmp_t c)
{
    switch (c) {
    case SYM_CMP_EQ: return "==";
    case SYM_CMP_NE: return "!=";
    case SYM_CMP_GT: return ">";
    case SYM_CMP_GE: return ">=";
    case SYM_CMP_LT: return "<";
    case SYM_CMP_LE: return "<=";
    }
    return "?";
}

#define REF_CMP(a, c, b)                                                        \
    ((c) == SYM_CMP_EQ ? (a) == (b) : (c) == SYM_CMP_NE ? (a) != (b)            \
     : (c) == SYM_CMP_GT ? (a) > (b) : (c) == SYM_CMP_GE ? (a) >= (b)           \
     : (c) == SYM_CMP_LT ? (a) < (b) : (a) <= (b))

static const sym_cmp_t all_cmps[] = { SYM_CMP_EQ, SYM_CMP_NE, SYM_CMP_GT,
                                      SYM_CMP_GE, SYM_CMP_LT, SYM_CMP_LE };
#define NCMPS 6

/* Sleep to make a waiter block for real before its condition comes true;
 * no result depends on it. */
static void pause_us(long us)
{
    struct timespec ts = { 0, us * 1000 };
    nanosleep(&ts, NULL);
}

static int pe_counts[] = HARNESS_PE_COUNTS;
#define NCOUNTS (sizeof(pe_counts) / sizeof(pe_counts[0]))

/* ------------------------------------------------------------------------ */
/* put_signal: the signal is never visible before the data                   */
/* ------------------------------------------------------------------------ */

struct ps_param {
    int npes;
    sym_signal_op_t op;
    bool nbi;
};

static struct ps_param ps_params[NCOUNTS * 4];

#define PS_SMALL_ROUNDS 2000
#define PS_SMALL 4096
#define PS_LARGE_ROUNDS 24
#define PS_LARGE ((1u << 20) + 3)

static uint8_t ps_byte(int pe, uint64_t round, size_t i)
{
    return (uint8_t)(i * 7 + round * 13 + (uint64_t)pe * 101 + (i >> 9));
}

/* Each PE streams rounds to its right neighbour through two alternating
 * buffers; the receiver acknowledges each round so that a buffer is
 * rewritten only after it was checked.  A signal that overtook its data
 * shows up as a stale or partial block. */
static void put_signal_body(int me, int n, void *arg)
{
    const struct ps_param *p = arg;
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    const size_t cap = PS_LARGE + 8;
    uint8_t *buf = sym_malloc(2 * cap);
    uint64_t *sig = sym_calloc(2, 64); /* [0] data signal, [8] acks from the right */
    uint8_t *src[2] = { malloc(cap), malloc(cap) };
    uint8_t *want = malloc(cap);
    PE_ASSERT(buf && sig && src[0] && src[1] && want, "allocation failed: %s",
              sym_last_error());
    uint64_t *ack = &sig[8];
    const char *opname = p->op == SYM_SIGNAL_SET ? "SET" : "ADD";
    /* SYMHEAP_TEST_QUICK (sanitizer and ofi stages): a tenth of the small rounds. */
    const uint64_t small_rounds = getenv("SYMHEAP_TEST_QUICK") ? PS_SMALL_ROUNDS / 10
                                                               : PS_SMALL_ROUNDS;
    const uint64_t total = small_rounds + PS_LARGE_ROUNDS;

    for (uint64_t r = 1; r <= total; r++) {
        const bool large = r > small_rounds;
        const size_t len = large ? PS_LARGE : PS_SMALL;
        const size_t shift = large ? (size_t)(r % 3) : 0; /* unaligned destinations too */
        uint8_t *slot = buf + (r % 2) * cap + shift;

        /* send round r: its buffer was last used by round r - 2 */
        if (r > 2)
            PE_OK(sym_wait_until_uint64(ack, SYM_CMP_GE, r - 2));
        if (p->nbi)
            PE_OK(sym_quiet()); /* src[r % 2] is still owned by round r - 2 */
        uint8_t *s = src[r % 2];
        for (size_t i = 0; i < len; i++)
            s[i] = ps_byte(me, r, i);
        uint64_t value = p->op == SYM_SIGNAL_SET ? r : 1;
        if (p->nbi)
            PE_OK(sym_put_signal_nbi(slot, s, len, &sig[0], value, p->op, right));
        else
            PE_OK(sym_put_signal(slot, s, len, &sig[0], value, p->op, right));

        /* receive round r from the left: the sender is at most one round
         * ahead, so the signal holds r or r + 1 */
        uint64_t seen = 0;
        switch (r % 3) {
        case 0:
            PE_OK(sym_signal_wait_until(&sig[0], SYM_CMP_GE, r, &seen));
            break;
        case 1:
            PE_OK(sym_wait_until_uint64(&sig[0], SYM_CMP_GE, r));
            PE_OK(sym_signal_fetch(&sig[0], &seen));
            break;
        default:
            for (int ok = 0; !ok;) {
                PE_OK(sym_test_uint64(&sig[0], SYM_CMP_GE, r, &ok));
                if (!ok)
                    sched_yield();
            }
            PE_OK(sym_signal_fetch(&sig[0], &seen));
            break;
        }
        PE_ASSERT(seen == r || seen == r + 1, "put_signal %s%s round %llu: signal is %llu",
                  opname, p->nbi ? "_nbi" : "", (unsigned long long)r,
                  (unsigned long long)seen);
        for (size_t i = 0; i < len; i++)
            want[i] = ps_byte(left, r, i);
        if (memcmp(slot, want, len) != 0) {
            size_t bad = 0;
            while (slot[bad] == want[bad])
                bad++;
            PE_ASSERT(false, "put_signal %s%s round %llu (%zu bytes): signal %llu seen but "
                      "byte %zu is 0x%02x, expected 0x%02x (data arrived after the signal)",
                      opname, p->nbi ? "_nbi" : "", (unsigned long long)r, len,
                      (unsigned long long)seen, bad, slot[bad], want[bad]);
        }
        PE_OK(sym_atomic_set64(ack, r, left));
    }
    PE_OK(sym_quiet());
    PE_OK(sym_barrier_all());
    free(want);
    free(src[0]);
    free(src[1]);
    sym_free(sig);
    sym_free(buf);
}

ParameterizedTestParameters(sync, put_signal_data_before_signal)
{
    size_t k = 0;
    for (size_t i = 0; i < NCOUNTS; i++)
        for (int op = SYM_SIGNAL_SET; op <= SYM_SIGNAL_ADD; op++)
            for (int nbi = 0; nbi <= 1; nbi++)
                ps_params[k++] = (struct ps_param){ pe_counts[i], (sym_signal_op_t)op, nbi };
    return cr_make_param_array(struct ps_param, ps_params, k);
}

ParameterizedTest(struct ps_param *p, sync, put_signal_data_before_signal)
{
    run_pes(p->npes, put_signal_body, p);
}

/* ------------------------------------------------------------------------ */
/* signal_wait_until: every comparison and the value returned                */
/* ------------------------------------------------------------------------ */

struct sig_step {
    sym_signal_op_t op;
    sym_cmp_t cmp;
    uint64_t value;
    uint64_t init;
    int nseq;
    uint64_t seq[4]; /* only the last one satisfies the condition */
};

static const struct sig_step sig_steps[] = {
    { SYM_SIGNAL_SET, SYM_CMP_EQ, 7, 0, 3, { 3, 5, 7 } },
    { SYM_SIGNAL_SET, SYM_CMP_NE, 4, 4, 3, { 4, 4, 9 } },
    { SYM_SIGNAL_SET, SYM_CMP_GT, 100, 0, 3, { 50, 100, 101 } },
    { SYM_SIGNAL_SET, SYM_CMP_GE, 100, 0, 2, { 99, 100 } },
    { SYM_SIGNAL_SET, SYM_CMP_LT, 10, 1000, 3, { 500, 10, 9 } },
    { SYM_SIGNAL_SET, SYM_CMP_LE, 10, 1000, 2, { 11, 10 } },
    /* unsigned: a signed comparison would never be satisfied */
    { SYM_SIGNAL_SET, SYM_CMP_GT, 5, 0, 2, { 3, UINT64_MAX - 1 } },
    { SYM_SIGNAL_SET, SYM_CMP_LT, UINT64_C(1) << 63, UINT64_MAX, 2, { UINT64_C(1) << 63, 5 } },
    { SYM_SIGNAL_ADD, SYM_CMP_GE, 30, 0, 3, { 10, 10, 10 } },
    { SYM_SIGNAL_ADD, SYM_CMP_EQ, 3, 0, 3, { 1, 1, 1 } },
    { SYM_SIGNAL_ADD, SYM_CMP_NE, 5, 5, 3, { 0, 0, 3 } },
    { SYM_SIGNAL_ADD, SYM_CMP_EQ, 1, UINT64_MAX - 1, 3, { 1, 1, 1 } }, /* wraps to 1 */
};
#define NSIG_STEPS (sizeof(sig_steps) / sizeof(sig_steps[0]))

static uint64_t sig_after(const struct sig_step *s, int upto)
{
    uint64_t v = s->init;
    for (int i = 0; i < upto; i++)
        v = s->op == SYM_SIGNAL_SET ? s->seq[i] : v + s->seq[i];
    return v;
}

/* PE 0 waits while PE n-1 (itself at 1 PE) moves its signal word through
 * values that do not satisfy the condition to one that does; the wait must
 * return exactly that value, with the payload of the same put visible. */
static void signal_wait_body(int me, int n, void *arg)
{
    (void)arg;
    uint64_t *sig = sym_calloc(1, 64);
    uint64_t *data = sym_calloc(1, 64);
    PE_ASSERT(sig && data, "sym_calloc: %s", sym_last_error());
    const int waiter = 0, sender = n - 1;
    for (size_t k = 0; k < NSIG_STEPS; k++) {
        const struct sig_step *s = &sig_steps[k];
        if (me == waiter) {
            PE_OK(sym_atomic_set64(sig, s->init, me));
            uint64_t v = 0;
            PE_OK(sym_signal_fetch(sig, &v));
            PE_ASSERT(v == s->init, "sym_signal_fetch returned %llu after setting %llu",
                      (unsigned long long)v, (unsigned long long)s->init);
        }
        PE_OK(sym_barrier_all());
        if (me == sender) {
            for (int i = 0; i < s->nseq; i++) {
                if (i == s->nseq - 1 && k % 2)
                    pause_us(2000);
                uint64_t payload = k * 100 + (uint64_t)i;
                PE_OK(sym_put_signal(&data[0], &payload, sizeof(payload), sig, s->seq[i], s->op,
                                     waiter));
            }
        }
        if (me == waiter) {
            const uint64_t want = sig_after(s, s->nseq);
            for (int i = 0; i < s->nseq; i++)
                PE_ASSERT(!REF_CMP(sig_after(s, i), s->cmp, s->value), "step table error");
            uint64_t got = 0x5EED;
            PE_OK(sym_signal_wait_until(sig, s->cmp, s->value, &got));
            PE_ASSERT(got == want, "step %zu: sym_signal_wait_until(%s %llu) returned %llu, "
                      "expected %llu", k, cmp_text(s->cmp), (unsigned long long)s->value,
                      (unsigned long long)got, (unsigned long long)want);
            uint64_t payload;
            memcpy(&payload, &data[0], sizeof(payload));
            PE_ASSERT(payload == k * 100 + (uint64_t)(s->nseq - 1), "step %zu: the payload of "
                      "the satisfying put is %llu, expected %llu", k,
                      (unsigned long long)payload,
                      (unsigned long long)(k * 100 + (uint64_t)(s->nseq - 1)));
            uint64_t v = 0;
            PE_OK(sym_signal_fetch(sig, &v));
            PE_ASSERT(v == want, "step %zu: sym_signal_fetch returned %llu, expected %llu", k,
                      (unsigned long long)v, (unsigned long long)want);
            /* an already satisfied wait returns at once, NULL value_p allowed */
            PE_OK(sym_signal_wait_until(sig, s->cmp, s->value, NULL));
        }
        PE_OK(sym_barrier_all());
    }
    sym_free(data);
    sym_free(sig);
}

ParameterizedTestParameters(sync, signal_wait_until_cmps)
{
    return cr_make_param_array(int, pe_counts, NCOUNTS);
}

ParameterizedTest(int *npes, sync, signal_wait_until_cmps)
{
    run_pes(*npes, signal_wait_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* sym_wait_until_T / sym_test_T: comparisons follow the type's signedness   */
/* ------------------------------------------------------------------------ */

struct wait_step {
    sym_cmp_t cmp;
    int64_t value, init; /* converted to the type under test */
    int nseq;
    int64_t seq[3];      /* only the last one satisfies the condition */
};

/* Steps for the signed types, and for the unsigned ones where negative
 * numbers stand for the top of the range. */
static const struct wait_step signed_steps[] = {
    { SYM_CMP_EQ, -7, 0, 3, { -6, 7, -7 } },
    { SYM_CMP_NE, -1, -1, 2, { -1, 0 } },
    { SYM_CMP_GT, -5, -100, 3, { -6, -5, -4 } },
    { SYM_CMP_GE, -5, -100, 2, { -6, -5 } },
    { SYM_CMP_LT, 0, 5, 3, { 3, 0, -1 } },  /* unsigned would never be < 0 */
    { SYM_CMP_LE, -10, 0, 2, { -9, -10 } },
};
static const struct wait_step unsigned_steps[] = {
    { SYM_CMP_EQ, -7, 0, 3, { -6, 7, -7 } },
    { SYM_CMP_NE, 3, 3, 2, { 3, -3 } },
    { SYM_CMP_GT, 5, 0, 3, { 4, 5, -1 } },  /* signed would never be > 5 */
    { SYM_CMP_GE, -2, 7, 2, { -3, -2 } },
    { SYM_CMP_LT, 5, -1, 3, { -100, 5, 4 } }, /* signed: -1 < 5 at once */
    { SYM_CMP_LE, 5, -1, 2, { 6, 5 } },
};
#define NWAIT_STEPS 6

/* The word of every type lives at the start of a 64-byte line. */
#define TYPED_FNS(name, T, bits)                                                            \
    static void set_word_##name(T *w, T v, int pe, int how)                                  \
    {                                                                                       \
        if (how)                                                                            \
            PE_OK(sym_atomic_set##bits((uint##bits##_t *)w, (uint##bits##_t)v, pe));        \
        else                                                                                \
            PE_OK(sym_p##bits((uint##bits##_t *)w, (uint##bits##_t)v, pe));                 \
    }                                                                                       \
    /* Every comparison of every pair of edge values against the C reference. */           \
    static void test_table_##name(T *w)                                                     \
    {                                                                                       \
        const T vals[] = { (T)((uint##bits##_t)1 << (bits - 1)), (T)-5, (T)-1, 0, 1, 5,    \
                           (T)(((uint##bits##_t)1 << (bits - 1)) - 1) };                    \
        const size_t nv = sizeof(vals) / sizeof(vals[0]);                                   \
        for (size_t a = 0; a < nv; a++) {                                                   \
            *w = vals[a];                                                                   \
            for (size_t b = 0; b < nv; b++)                                                 \
                for (int c = 0; c < NCMPS; c++) {                                           \
                    sym_cmp_t cmp = all_cmps[c];                                            \
                    int want = REF_CMP(vals[a], cmp, vals[b]), sat = -1;                    \
                    PE_OK(sym_test_##name(w, cmp, vals[b], &sat));                          \
                    PE_ASSERT(sat == want, "sym_test_" #name "(%lld %s %lld) gave %d, "      \
                              "expected %d", (long long)vals[a], cmp_text(cmp),             \
                              (long long)vals[b], sat, want);                               \
                    if (want)                                                               \
                        PE_OK(sym_wait_until_##name(w, cmp, vals[b]));                      \
                }                                                                           \
        }                                                                                   \
    }                                                                                       \
    /* PE 0 blocks while PE n-1 moves its word to the one satisfying value. */              \
    static void wait_steps_##name(int me, int n, T *w, const struct wait_step *steps)       \
    {                                                                                       \
        const int waiter = 0, writer = n - 1;                                               \
        for (int k = 0; k < NWAIT_STEPS; k++) {                                             \
            const struct wait_step *s = &steps[k];                                          \
            if (me == waiter)                                                               \
                *w = (T)s->init;                                                            \
            PE_OK(sym_barrier_all());                                                       \
            if (me == writer)                                                               \
                for (int i = 0; i < s->nseq; i++) {                                         \
                    if (i == s->nseq - 1 && k % 2)                                          \
                        pause_us(2000);                                                     \
                    set_word_##name(w, (T)s->seq[i], waiter, i % 2);                        \
                }                                                                           \
            if (me == waiter) {                                                             \
                T want = (T)s->seq[s->nseq - 1];                                            \
                PE_ASSERT(REF_CMP(want, s->cmp, (T)s->value) &&                             \
                          !REF_CMP((T)s->init, s->cmp, (T)s->value), "step table error");   \
                PE_OK(sym_wait_until_##name(w, s->cmp, (T)s->value));                       \
                T got = __atomic_load_n(w, __ATOMIC_ACQUIRE);                               \
                PE_ASSERT(got == want, "sym_wait_until_" #name "(%s %lld) returned while "    \
                          "the word held %lld; only %lld satisfies it", cmp_text(s->cmp),   \
                          (long long)(T)s->value, (long long)got, (long long)want);         \
                int sat = -1;                                                               \
                PE_OK(sym_test_##name(w, s->cmp, (T)s->value, &sat));                       \
                PE_ASSERT(sat == 1, "sym_test_" #name " after the wait gave %d", sat);       \
            }                                                                               \
            PE_OK(sym_barrier_all());                                                       \
        }                                                                                   \
    }

TYPED_FNS(int32, int32_t, 32)
TYPED_FNS(int64, int64_t, 64)
TYPED_FNS(uint32, uint32_t, 32)
TYPED_FNS(uint64, uint64_t, 64)

static void wait_until_body(int me, int n, void *arg)
{
    (void)arg;
    uint8_t *line = sym_calloc(4, 64);
    PE_ASSERT(line, "sym_calloc: %s", sym_last_error());
    int32_t *wi32 = (int32_t *)line;
    int64_t *wi64 = (int64_t *)(line + 64);
    uint32_t *wu32 = (uint32_t *)(line + 128);
    uint64_t *wu64 = (uint64_t *)(line + 192);

    /* the headline case: -1 > 0 is false for int, true for uint */
    int sat = -1;
    *wi32 = -1;
    PE_OK(sym_test_int32(wi32, SYM_CMP_GT, 0, &sat));
    PE_ASSERT(sat == 0, "int32: -1 > 0 tested %d", sat);
    *wu32 = (uint32_t)-1;
    PE_OK(sym_test_uint32(wu32, SYM_CMP_GT, 0, &sat));
    PE_ASSERT(sat == 1, "uint32: 0xffffffff > 0 tested %d", sat);
    *wi64 = -1;
    PE_OK(sym_test_int64(wi64, SYM_CMP_GT, 0, &sat));
    PE_ASSERT(sat == 0, "int64: -1 > 0 tested %d", sat);
    *wu64 = (uint64_t)-1;
    PE_OK(sym_test_uint64(wu64, SYM_CMP_GT, 0, &sat));
    PE_ASSERT(sat == 1, "uint64: 2^64-1 > 0 tested %d", sat);

    test_table_int32(wi32);
    test_table_int64(wi64);
    test_table_uint32(wu32);
    test_table_uint64(wu64);
    PE_OK(sym_barrier_all());

    wait_steps_int32(me, n, wi32, signed_steps);
    wait_steps_int64(me, n, wi64, signed_steps);
    wait_steps_uint32(me, n, wu32, unsigned_steps);
    wait_steps_uint64(me, n, wu64, unsigned_steps);
    sym_free(line);
}

ParameterizedTestParameters(sync, wait_until_and_test)
{
    return cr_make_param_array(int, pe_counts, NCOUNTS);
}

ParameterizedTest(int *npes, sync, wait_until_and_test)
{
    run_pes(*npes, wait_until_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* wait_until_all/any/some and test_all/any/some with status masks           */
/* ------------------------------------------------------------------------ */

/* Every other PE writes its share of an array on PE 0 (PE 0 itself at 1 PE);
 * elements with i % 4 == 3 are excluded by the status mask.  For each type a
 * comparison and a satisfying value with the type's own signedness: */
#define ARR_CMP_int32 SYM_CMP_LT   /* written values are negative */
#define ARR_CMP_int64 SYM_CMP_LE
#define ARR_CMP_uint32 SYM_CMP_GT  /* written values have the top bit set */
#define ARR_CMP_uint64 SYM_CMP_GE
#define ARR_MAXN (4 * HARNESS_MAX_PES)

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

#define ARRAY_FNS(name, T, bits, signed_)                                                      \
    static T arr_sat_##name(size_t i)                                                        \
    {                                                                                        \
        return signed_ ? (T)(-(int64_t)i - 1)                                                \
                       : (T)(((uint##bits##_t)1 << (bits - 1)) + (uint##bits##_t)i);         \
    }                                                                                        \
    static T arr_thresh_##name(void)                                                         \
    {                                                                                        \
        return signed_ ? (T)(ARR_CMP_##name == SYM_CMP_LT ? 0 : -1)                          \
                       : (T)(ARR_CMP_##name == SYM_CMP_GT                                   \
                                 ? ((uint##bits##_t)1 << (bits - 1)) - 1                     \
                                 : ((uint##bits##_t)1 << (bits - 1)));                       \
    }                                                                                        \
    /* Writers store element i; for uint64 through put_signal with a payload. */            \
    static void arr_write_##name(T *a, uint64_t *payload, size_t i, int how)                 \
    {                                                                                        \
        T v = arr_sat_##name(i);                                                             \
        if (bits == 64 && !signed_) {                                                        \
            uint64_t d = 0xDA7A000000000000u | i;                                            \
            PE_OK(sym_put_signal(&payload[i], &d, 8, (uint64_t *)&a[i], (uint64_t)v,         \
                                 SYM_SIGNAL_SET, 0));                                        \
        } else if (how) {                                                                    \
            PE_OK(sym_atomic_set##bits((uint##bits##_t *)&a[i], (uint##bits##_t)v, 0));      \
        } else {                                                                             \
            PE_OK(sym_p##bits((uint##bits##_t *)&a[i], (uint##bits##_t)v, 0));               \
        }                                                                                    \
    }                                                                                        \
    static void arr_check_##name(T *a, uint64_t *payload, size_t i)                          \
    {                                                                                        \
        T got = __atomic_load_n(&a[i], __ATOMIC_ACQUIRE);                                    \
        PE_ASSERT(got == arr_sat_##name(i), #name " element %zu is %lld, expected %lld", i,   \
                  (long long)got, (long long)arr_sat_##name(i));                             \
        if (bits == 64 && !signed_)                                                          \
            PE_ASSERT(payload[i] == (0xDA7A000000000000u | i), "put_signal payload of "     \
                      "element %zu not visible with its signal", i);                         \
    }                                                                                        \
    static void arrays_##name(int me, int n, T *a, uint64_t *payload)                        \
    {                                                                                        \
        const sym_cmp_t cmp = ARR_CMP_##name;                                                \
        const T th = arr_thresh_##name();                                                    \
        const int nw = n > 1 ? n - 1 : 1;                                                    \
        const int my_w = n > 1 ? me - 1 : 0; /* -1: PE 0 only receives */                   \
        const size_t M = 4 * (size_t)nw;                                                     \
        int mask[ARR_MAXN], none[ARR_MAXN];                                                  \
        size_t idx[ARR_MAXN], cnt = 99, at = 99;                                             \
        int sat = -1;                                                                        \
        size_t n_in = 0;                                                                     \
        for (size_t i = 0; i < M; i++) {                                                     \
            mask[i] = arr_excluded(i) ? 1 : 0;                                               \
            none[i] = 1 + (int)i; /* any non-zero value excludes */                          \
            n_in += !arr_excluded(i);                                                        \
        }                                                                                    \
        T zero;                                                                              \
        memset(&zero, 0, sizeof(zero)); /* not a constant: no always-true warning */         \
        PE_ASSERT(!REF_CMP(zero, cmp, th) && REF_CMP(arr_sat_##name(M), cmp, th),            \
                  "table error");                                                            \
        /* phase 1: all, excluded elements never satisfied */                               \
        if (me == 0) {                                                                       \
            memset(a, 0, M * sizeof(T));                                                     \
            PE_OK(sym_test_all_##name(a, M, mask, cmp, th, &sat));                           \
            PE_ASSERT(sat == 0, "test_all on a fresh array gave %d", sat);                    \
            PE_OK(sym_test_any_##name(a, M, mask, cmp, th, &at));                            \
            PE_ASSERT(at == SIZE_MAX, "test_any on a fresh array gave %zu", at);              \
            PE_OK(sym_test_some_##name(a, M, mask, cmp, th, idx, &cnt));                     \
            PE_ASSERT(cnt == 0, "test_some on a fresh array gave %zu", cnt);                  \
            /* nothing included: every form returns at once */                              \
            PE_OK(sym_wait_until_all_##name(a, M, none, cmp, th));                           \
            PE_OK(sym_wait_until_any_##name(a, M, none, cmp, th, &at));                      \
            PE_ASSERT(at == SIZE_MAX, "wait_until_any with all excluded gave %zu", at);       \
            PE_OK(sym_wait_until_some_##name(a, M, none, cmp, th, idx, &cnt));               \
            PE_ASSERT(cnt == 0, "wait_until_some with all excluded gave %zu", cnt);           \
            PE_OK(sym_test_all_##name(a, M, none, cmp, th, &sat));                           \
            PE_ASSERT(sat == 1, "test_all with all excluded gave %d", sat);                   \
            at = 99;                                                                         \
            PE_OK(sym_test_any_##name(a, M, none, cmp, th, &at));                            \
            PE_ASSERT(at == SIZE_MAX, "test_any with all excluded gave %zu", at);             \
            cnt = 99;                                                                        \
            PE_OK(sym_test_some_##name(a, M, none, cmp, th, idx, &cnt));                     \
            PE_ASSERT(cnt == 0, "test_some with all excluded gave %zu", cnt);                 \
            PE_OK(sym_wait_until_all_##name(a, 0, NULL, cmp, th));                           \
            PE_OK(sym_wait_until_any_##name(a, 0, NULL, cmp, th, &at));                      \
            PE_ASSERT(at == SIZE_MAX, "wait_until_any of 0 elements gave %zu", at);           \
            PE_OK(sym_wait_until_some_##name(a, 0, NULL, cmp, th, idx, &cnt));               \
            PE_ASSERT(cnt == 0, "wait_until_some of 0 elements gave %zu", cnt);               \
        }                                                                                    \
        PE_OK(sym_barrier_all());                                                            \
        if (my_w >= 0)                                                                       \
            for (size_t i = (size_t)my_w; i < M; i += (size_t)nw)                            \
                if (!arr_excluded(i))                                                        \
                    arr_write_##name(a, payload, i, (int)(i / (size_t)nw) % 2);              \
        if (me == 0) {                                                                       \
            PE_OK(sym_wait_until_all_##name(a, M, mask, cmp, th));                           \
            for (size_t i = 0; i < M; i++) {                                                 \
                if (arr_excluded(i))                                                         \
                    PE_ASSERT(a[i] == 0, "excluded element %zu was written", i);              \
                else                                                                         \
                    arr_check_##name(a, payload, i);                                         \
            }                                                                                \
            PE_OK(sym_test_all_##name(a, M, mask, cmp, th, &sat));                           \
            PE_ASSERT(sat == 1, "test_all after wait_until_all gave %d", sat);                \
            PE_OK(sym_test_all_##name(a, M, NULL, cmp, th, &sat));                           \
            PE_ASSERT(sat == 0, "test_all without a mask counted the unwritten elements");    \
            PE_OK(sym_test_some_##name(a, M, mask, cmp, th, idx, &cnt));                     \
            PE_ASSERT(cnt == n_in, "test_some found %zu of %zu", cnt, n_in);                  \
            sort_indices(idx, cnt);                                                          \
            for (size_t i = 0, j = 0; i < M; i++)                                            \
                if (!arr_excluded(i)) {                                                      \
                    PE_ASSERT(idx[j] == i, "test_some index %zu is %zu, expected %zu", j,    \
                              idx[j], i);                                                    \
                    j++;                                                                     \
                }                                                                            \
            PE_OK(sym_test_any_##name(a, M, mask, cmp, th, &at));                            \
            PE_ASSERT(at < M && !arr_excluded(at), "test_any gave %zu", at);                  \
        }                                                                                    \
        PE_OK(sym_barrier_all());                                                            \
                                                                                             \
        /* phase 2: any/some, excluded elements already satisfied */                        \
        const size_t k = M - 2; /* included */                                               \
        if (me == 0) {                                                                       \
            for (size_t i = 0; i < M; i++)                                                   \
                a[i] = arr_excluded(i) ? arr_sat_##name(i) : 0;                              \
            PE_OK(sym_test_any_##name(a, M, mask, cmp, th, &at));                            \
            PE_ASSERT(at == SIZE_MAX, "test_any picked excluded element %zu", at);            \
            PE_OK(sym_test_some_##name(a, M, mask, cmp, th, idx, &cnt));                     \
            PE_ASSERT(cnt == 0, "test_some counted %zu excluded elements", cnt);              \
            PE_OK(sym_test_any_##name(a, M, NULL, cmp, th, &at));                            \
            PE_ASSERT(at < M && arr_excluded(at), "test_any without a mask gave %zu", at);    \
            PE_OK(sym_test_all_##name(a, M, mask, cmp, th, &sat));                           \
            PE_ASSERT(sat == 0, "test_all gave %d with nothing included satisfied", sat);     \
        }                                                                                    \
        PE_OK(sym_barrier_all());                                                            \
        if (my_w == (int)(k % (size_t)nw)) {                                                 \
            pause_us(1000);                                                                  \
            arr_write_##name(a, payload, k, 1);                                              \
        }                                                                                    \
        if (me == 0) {                                                                       \
            PE_OK(sym_wait_until_any_##name(a, M, mask, cmp, th, &at));                      \
            PE_ASSERT(at == k, "wait_until_any gave %zu; only %zu is satisfied", at, k);      \
            arr_check_##name(a, payload, k);                                                 \
            PE_OK(sym_wait_until_some_##name(a, M, mask, cmp, th, idx, &cnt));               \
            PE_ASSERT(cnt == 1 && idx[0] == k, "wait_until_some gave %zu indices (first "     \
                      "%zu); only %zu is satisfied", cnt, idx[0], k);                        \
        }                                                                                    \
        PE_OK(sym_barrier_all());                                                            \
        if (my_w >= 0)                                                                       \
            for (size_t i = (size_t)my_w; i < M; i += (size_t)nw)                            \
                if (!arr_excluded(i) && i != k)                                              \
                    arr_write_##name(a, payload, i, 0);                                      \
        if (me == 0) {                                                                       \
            /* consume arrivals the way a server would: mask out what was seen */           \
            int seen[ARR_MAXN];                                                              \
            memcpy(seen, mask, sizeof(seen));                                                \
            size_t got = 0;                                                                  \
            while (got < n_in) {                                                             \
                PE_OK(sym_wait_until_some_##name(a, M, seen, cmp, th, idx, &cnt));           \
                PE_ASSERT(cnt >= 1 && cnt <= n_in - got, "wait_until_some gave %zu with "     \
                          "%zu pending", cnt, n_in - got);                                   \
                for (size_t j = 0; j < cnt; j++) {                                           \
                    PE_ASSERT(idx[j] < M && !seen[idx[j]], "wait_until_some gave index %zu " \
                              "that is excluded or already seen", idx[j]);                   \
                    arr_check_##name(a, payload, idx[j]);                                    \
                    seen[idx[j]] = 1;                                                        \
                }                                                                            \
                got += cnt;                                                                  \
            }                                                                                \
            PE_OK(sym_wait_until_some_##name(a, M, seen, cmp, th, idx, &cnt));               \
            PE_ASSERT(cnt == 0, "wait_until_some with everything seen gave %zu", cnt);        \
        }                                                                                    \
        PE_OK(sym_barrier_all());                                                            \
                                                                                             \
        /* phase 3: no mask, every element written */                                       \
        if (me == 0)                                                                         \
            memset(a, 0, M * sizeof(T));                                                     \
        PE_OK(sym_barrier_all());                                                            \
        if (my_w >= 0)                                                                       \
            for (size_t i = (size_t)my_w; i < M; i += (size_t)nw)                            \
                arr_write_##name(a, payload, i, (int)i % 2);                                 \
        if (me == 0) {                                                                       \
            PE_OK(sym_wait_until_all_##name(a, M, NULL, cmp, th));                           \
            for (size_t i = 0; i < M; i++)                                                   \
                arr_check_##name(a, payload, i);                                             \
            PE_OK(sym_test_all_##name(a, M, NULL, cmp, th, &sat));                           \
            PE_ASSERT(sat == 1, "test_all without a mask gave %d", sat);                      \
            for (int blocking = 0; blocking <= 1; blocking++) {                              \
                cnt = 0;                                                                     \
                if (blocking)                                                                \
                    PE_OK(sym_wait_until_some_##name(a, M, NULL, cmp, th, idx, &cnt));       \
                else                                                                         \
                    PE_OK(sym_test_some_##name(a, M, NULL, cmp, th, idx, &cnt));             \
                PE_ASSERT(cnt == M, "%s_some without a mask found %zu of %zu",               \
                          blocking ? "wait_until" : "test", cnt, M);                         \
                sort_indices(idx, cnt);                                                      \
                for (size_t i = 0; i < M; i++)                                               \
                    PE_ASSERT(idx[i] == i, "some: index %zu is %zu", i, idx[i]);             \
            }                                                                                \
        }                                                                                    \
        PE_OK(sym_barrier_all());                                                            \
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

/* ------------------------------------------------------------------------ */
/* Argument errors                                                           */
/* ------------------------------------------------------------------------ */

#define EXPECT(call, want, why)                                                           \
    do {                                                                                  \
        sym_status_t st_ = (call);                                                        \
        PE_ASSERT(st_ == (want), "%s (%s) returned %s, expected %s: %s", #call, why,        \
                  sym_status_name(st_), sym_status_name(want), sym_last_error());         \
    } while (0)

/* Every form of one type with the given ivar and cmp must fail with `want`. */
#define ALL_FORMS_FAIL(name, T, ivar, cmp, want, why)                                      \
    do {                                                                                  \
        int sat_;                                                                         \
        size_t at_, cnt_, idx_[4];                                                        \
        EXPECT(sym_wait_until_##name((T *)(ivar), (cmp), (T)1), want, why);               \
        EXPECT(sym_test_##name((T *)(ivar), (cmp), (T)1, &sat_), want, why);              \
        EXPECT(sym_wait_until_all_##name((T *)(ivar), 2, NULL, (cmp), (T)1), want, why);  \
        EXPECT(sym_wait_until_any_##name((T *)(ivar), 2, NULL, (cmp), (T)1, &at_), want,  \
               why);                                                                      \
        EXPECT(sym_wait_until_some_##name((T *)(ivar), 2, NULL, (cmp), (T)1, idx_, &cnt_), \
               want, why);                                                                \
        EXPECT(sym_test_all_##name((T *)(ivar), 2, NULL, (cmp), (T)1, &sat_), want, why); \
        EXPECT(sym_test_any_##name((T *)(ivar), 2, NULL, (cmp), (T)1, &at_), want, why);  \
        EXPECT(sym_test_some_##name((T *)(ivar), 2, NULL, (cmp), (T)1, idx_, &cnt_),      \
               want, why);                                                                \
    } while (0)

#define NULL_OUTPUTS_FAIL(name, T, ivar)                                                   \
    do {                                                                                  \
        size_t at_, idx_[4];                                                              \
        const char *w_ = "a NULL output";                                                  \
        EXPECT(sym_test_##name((T *)(ivar), SYM_CMP_EQ, 0, NULL), SYM_ERR_INVALID_ARG, w_);\
        EXPECT(sym_test_all_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL),            \
               SYM_ERR_INVALID_ARG, w_);                                                  \
        EXPECT(sym_test_any_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL),            \
               SYM_ERR_INVALID_ARG, w_);                                                  \
        EXPECT(sym_wait_until_any_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL),      \
               SYM_ERR_INVALID_ARG, w_);                                                  \
        EXPECT(sym_test_some_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, idx_, NULL),     \
               SYM_ERR_INVALID_ARG, w_);                                                  \
        EXPECT(sym_test_some_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL, &at_),     \
               SYM_ERR_INVALID_ARG, w_);                                                  \
        EXPECT(sym_wait_until_some_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, idx_,      \
                                          NULL), SYM_ERR_INVALID_ARG, w_);                \
        EXPECT(sym_wait_until_some_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL,      \
                                          &at_), SYM_ERR_INVALID_ARG, w_);                \
    } while (0)

#define TYPE_ERRORS(name, T, sym, stackbuf)                                                \
    do {                                                                                  \
        static const int bad_cmps_[] = { 0, 7, -1, 1000 };                                \
        for (size_t b_ = 0; b_ < 4; b_++)                                                 \
            ALL_FORMS_FAIL(name, T, (sym), (sym_cmp_t)bad_cmps_[b_], SYM_ERR_INVALID_ARG, \
                           "an invalid sym_cmp_t");                                       \
        ALL_FORMS_FAIL(name, T, (stackbuf), SYM_CMP_EQ, SYM_ERR_NOT_SYMMETRIC,            \
                       "a stack ivar");                                                   \
        for (size_t o_ = 1; o_ < sizeof(T); o_++)                                         \
            ALL_FORMS_FAIL(name, T, (uint8_t *)(sym) + o_, SYM_CMP_EQ, SYM_ERR_INVALID_ARG, \
                           "a misaligned ivar");                                          \
        NULL_OUTPUTS_FAIL(name, T, (sym));                                                \
    } while (0)

static void errors_body(int me, int n, void *arg)
{
    (void)arg;
    const int right = (me + 1) % n;
    uint64_t *w = sym_calloc(8, 8);
    uint8_t *dest = sym_malloc(64);
    PE_ASSERT(w && dest, "sym_malloc: %s", sym_last_error());
    memset(dest, 0xAB, 64);
    uint64_t stackbuf[4] = { 0 };
    uint64_t *heapbuf = calloc(4, 8);
    PE_ASSERT(heapbuf, "calloc");
    uint64_t v;

    TYPE_ERRORS(int32, int32_t, w, stackbuf);
    TYPE_ERRORS(int64, int64_t, w, stackbuf);
    TYPE_ERRORS(uint32, uint32_t, w, stackbuf);
    TYPE_ERRORS(uint64, uint64_t, w, heapbuf);
    /* inside the heap mapping but outside its user part, and a peer's copy */
    uint8_t *sync_area = sym_rt.base + SYM_SYNC_OFF;
    uint8_t *mailbox = sym_rt.base + sym_rt.layout.mailbox_off;
    ALL_FORMS_FAIL(uint64, uint64_t, sync_area, SYM_CMP_EQ, SYM_ERR_NOT_SYMMETRIC,
                   "the sync area");
    ALL_FORMS_FAIL(int32, int32_t, mailbox, SYM_CMP_EQ, SYM_ERR_NOT_SYMMETRIC, "the mailbox");
    EXPECT(sym_signal_wait_until((uint64_t *)sync_area, SYM_CMP_EQ, 0, &v),
           SYM_ERR_NOT_SYMMETRIC, "the sync area");
    const char *tp = getenv("SYMHEAP_TRANSPORT");
    if (right != me && !(tp && strcmp(tp, "ofi") == 0)) { /* ofi maps no peer */
        uint64_t *peer = sym_ptr(w, right);
        PE_ASSERT(peer, "sym_ptr of a peer's word is NULL on shared memory");
        ALL_FORMS_FAIL(uint64, uint64_t, peer, SYM_CMP_EQ, SYM_ERR_NOT_SYMMETRIC,
                       "a sym_ptr() pointer");
        EXPECT(sym_signal_fetch(peer, &v), SYM_ERR_NOT_SYMMETRIC, "a sym_ptr() pointer");
    }

    /* signal word */
    EXPECT(sym_signal_wait_until(w, (sym_cmp_t)0, 0, &v), SYM_ERR_INVALID_ARG, "cmp 0");
    EXPECT(sym_signal_wait_until(w, (sym_cmp_t)7, 0, &v), SYM_ERR_INVALID_ARG, "cmp 7");
    EXPECT(sym_signal_wait_until(stackbuf, SYM_CMP_EQ, 0, &v), SYM_ERR_NOT_SYMMETRIC,
           "a stack signal");
    EXPECT(sym_signal_wait_until(heapbuf, SYM_CMP_EQ, 0, &v), SYM_ERR_NOT_SYMMETRIC,
           "a malloc signal");
    EXPECT(sym_signal_wait_until((uint64_t *)((uint8_t *)w + 4), SYM_CMP_EQ, 0, &v),
           SYM_ERR_INVALID_ARG, "a misaligned signal");
    EXPECT(sym_signal_fetch(stackbuf, &v), SYM_ERR_NOT_SYMMETRIC, "a stack signal");
    EXPECT(sym_signal_fetch((uint64_t *)((uint8_t *)w + 4), &v), SYM_ERR_INVALID_ARG,
           "a misaligned signal");
    EXPECT(sym_signal_fetch(w, NULL), SYM_ERR_INVALID_ARG, "a NULL value_p");

    /* put_signal, blocking and not: nothing may reach the target */
    const uint8_t src[16] = { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16 };
    for (int nbi = 0; nbi <= 1; nbi++) {
        sym_status_t (*ps)(void *, const void *, size_t, uint64_t *, uint64_t,
                           sym_signal_op_t, int) = nbi ? sym_put_signal_nbi : sym_put_signal;
        const char *why = nbi ? "put_signal_nbi" : "put_signal";
        EXPECT(ps(dest, src, 16, &w[4], 1, (sym_signal_op_t)0, right), SYM_ERR_INVALID_ARG,
               why);
        EXPECT(ps(dest, src, 16, &w[4], 1, (sym_signal_op_t)3, right), SYM_ERR_INVALID_ARG,
               why);
        EXPECT(ps(dest, src, 16, &w[4], 1, SYM_SIGNAL_SET, -1), SYM_ERR_INVALID_PE, why);
        EXPECT(ps(dest, src, 16, &w[4], 1, SYM_SIGNAL_SET, n), SYM_ERR_INVALID_PE, why);
        EXPECT(ps(dest, src, 16, stackbuf, 1, SYM_SIGNAL_SET, right), SYM_ERR_NOT_SYMMETRIC,
               why);
        EXPECT(ps(stackbuf, src, 16, &w[4], 1, SYM_SIGNAL_SET, right), SYM_ERR_NOT_SYMMETRIC,
               why);
        EXPECT(ps(dest, src, 16, (uint64_t *)((uint8_t *)&w[4] + 2), 1, SYM_SIGNAL_ADD, right),
               SYM_ERR_INVALID_ARG, why);
        EXPECT(ps(dest, NULL, 16, &w[4], 1, SYM_SIGNAL_SET, right), SYM_ERR_INVALID_ARG, why);
    }
    PE_OK(sym_quiet());
    PE_OK(sym_barrier_all());
    for (int i = 0; i < 64; i++)
        PE_ASSERT(dest[i] == 0xAB, "a failed put_signal wrote byte %d of the destination", i);
    for (int i = 0; i < 8; i++)
        PE_ASSERT(w[i] == 0, "a failed put_signal changed signal word %d", i);
    PE_OK(sym_barrier_all());
    free(heapbuf);
    sym_free(dest);
    sym_free(w);
}

ParameterizedTestParameters(sync, errors)
{
    static int counts[] = { 1, 2 };
    return cr_make_param_array(int, counts, 2);
}

ParameterizedTest(int *npes, sync, errors)
{
    run_pes(*npes, errors_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* Timeouts                                                                  */
/* ------------------------------------------------------------------------ */

/* An unsatisfiable wait must give up after SYMHEAP_TIMEOUT (1 s here) and
 * say what it waited for: the address, the comparison and the value. */
static void expect_timeout(sym_status_t st, double t0, const void *addr, const char *cmp,
                           const char *value, const char *what)
{
    double dt = harness_now() - t0;
    PE_ASSERT(st == SYM_ERR_TIMEOUT, "%s returned %s, expected SYM_ERR_TIMEOUT (%s)", what,
              sym_status_name(st), sym_last_error());
    PE_ASSERT(dt >= harness_seconds(0.9) && dt <= harness_seconds(3.0),
              "%s timed out after %.2f s with %s", what, dt, harness_timeout_env(1));
    const char *msg = sym_last_error();
    char ptr[32];
    snprintf(ptr, sizeof(ptr), "%p", addr);
    PE_ASSERT(strstr(msg, ptr) && strstr(msg, cmp) && strstr(msg, value),
              "%s: the message \"%s\" should name the address %s and the condition %s %s",
              what, msg, ptr, cmp, value);
}

static void timeout_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    uint64_t *w = sym_calloc(8, 8);
    PE_ASSERT(w, "sym_calloc: %s", sym_last_error());
    w[0] = 7;
    double t0 = harness_now();
    uint64_t v = 0;
    sym_status_t st = sym_signal_wait_until(&w[0], SYM_CMP_GE, 424242, &v);
    expect_timeout(st, t0, &w[0], ">=", "424242", "sym_signal_wait_until");
    PE_ASSERT(strstr(sym_last_error(), "sym_signal_wait_until"), "message does not name the "
              "call: %s", sym_last_error());

    int32_t *i32 = (int32_t *)&w[1];
    *i32 = 3;
    t0 = harness_now();
    st = sym_wait_until_int32(i32, SYM_CMP_LT, -77);
    expect_timeout(st, t0, i32, "<", "-77", "sym_wait_until_int32");

    int64_t *arr = (int64_t *)&w[2];
    arr[0] = arr[1] = arr[2] = 1000;
    int mask[3] = { 0, 1, 0 };
    arr[1] = 0; /* the excluded element would satisfy */
    t0 = harness_now();
    st = sym_wait_until_any_int64(arr, 3, mask, SYM_CMP_LE, 999, &(size_t){ 0 });
    expect_timeout(st, t0, arr, "<=", "999", "sym_wait_until_any_int64");
    PE_OK(sym_barrier_all());
    sym_free(w);
}

ParameterizedTestParameters(sync, wait_timeout)
{
    static int counts[] = { 1, 2 };
    return cr_make_param_array(int, counts, 2);
}

ParameterizedTest(int *npes, sync, wait_timeout)
{
    /* init (libfabric's setup under load) keeps its own, longer deadline */
    const char *const env[] = { harness_timeout_env(1), "SYMHEAP_INIT_TIMEOUT=120", NULL };
    run_pes_env(*npes, env, timeout_body, NULL);
}
