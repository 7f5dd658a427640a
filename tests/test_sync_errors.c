/* test_sync_errors.c - argument errors of the signal and wait calls (bad
 * comparisons, misaligned, local and reserved words, NULL outputs; a failed
 * put_signal writes nothing) and waits that time out naming what they
 * waited for. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "harness.h"
#include "core/internal.h" /* sym_core_layout: the heap's reserved regions, for error cases */

/* ------------------------------------------------------------------------ */
/* Argument errors                                                           */
/* ------------------------------------------------------------------------ */

#define EXPECT(call, want, why)                                                                    \
    do {                                                                                           \
        sym_status_t st_ = (call);                                                                 \
        PE_ASSERT(st_ == (want), "%s (%s) returned %s, expected %s: %s", #call, why,               \
                  sym_status_name(st_), sym_status_name(want), sym_last_error());                  \
    } while (0)

/* Every form of one type with the given ivar and cmp must fail with `want`. */
#define ALL_FORMS_FAIL(name, T, ivar, cmp, want, why)                                              \
    do {                                                                                           \
        int sat_;                                                                                  \
        size_t at_, cnt_, idx_[4];                                                                 \
        EXPECT(sym_wait_until_##name((T *)(ivar), (cmp), (T)1), want, why);                        \
        EXPECT(sym_test_##name((T *)(ivar), (cmp), (T)1, &sat_), want, why);                       \
        EXPECT(sym_wait_until_all_##name((T *)(ivar), 2, NULL, (cmp), (T)1), want, why);           \
        EXPECT(sym_wait_until_any_##name((T *)(ivar), 2, NULL, (cmp), (T)1, &at_), want, why);     \
        EXPECT(sym_wait_until_some_##name((T *)(ivar), 2, NULL, (cmp), (T)1, idx_, &cnt_), want,   \
               why);                                                                               \
        EXPECT(sym_test_all_##name((T *)(ivar), 2, NULL, (cmp), (T)1, &sat_), want, why);          \
        EXPECT(sym_test_any_##name((T *)(ivar), 2, NULL, (cmp), (T)1, &at_), want, why);           \
        EXPECT(sym_test_some_##name((T *)(ivar), 2, NULL, (cmp), (T)1, idx_, &cnt_), want, why);   \
    } while (0)

#define NULL_OUTPUTS_FAIL(name, T, ivar)                                                           \
    do {                                                                                           \
        size_t at_, idx_[4];                                                                       \
        const char *w_ = "a NULL output";                                                          \
        EXPECT(sym_test_##name((T *)(ivar), SYM_CMP_EQ, 0, NULL), SYM_ERR_INVALID_ARG, w_);        \
        EXPECT(sym_test_all_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL),                     \
               SYM_ERR_INVALID_ARG, w_);                                                           \
        EXPECT(sym_test_any_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL),                     \
               SYM_ERR_INVALID_ARG, w_);                                                           \
        EXPECT(sym_wait_until_any_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL),               \
               SYM_ERR_INVALID_ARG, w_);                                                           \
        EXPECT(sym_test_some_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, idx_, NULL),              \
               SYM_ERR_INVALID_ARG, w_);                                                           \
        EXPECT(sym_test_some_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL, &at_),              \
               SYM_ERR_INVALID_ARG, w_);                                                           \
        EXPECT(sym_wait_until_some_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, idx_, NULL),        \
               SYM_ERR_INVALID_ARG, w_);                                                           \
        EXPECT(sym_wait_until_some_##name((T *)(ivar), 2, NULL, SYM_CMP_EQ, 0, NULL, &at_),        \
               SYM_ERR_INVALID_ARG, w_);                                                           \
    } while (0)

#define TYPE_ERRORS(name, T, sym, stackbuf)                                                        \
    do {                                                                                           \
        static const int bad_cmps_[] = {0, 7, -1, 1000};                                           \
        for (size_t b_ = 0; b_ < 4; b_++)                                                          \
            ALL_FORMS_FAIL(name, T, (sym), (sym_cmp_t)bad_cmps_[b_], SYM_ERR_INVALID_ARG,          \
                           "an invalid sym_cmp_t");                                                \
        ALL_FORMS_FAIL(name, T, (stackbuf), SYM_CMP_EQ, SYM_ERR_NOT_SYMMETRIC, "a stack ivar");    \
        for (size_t o_ = 1; o_ < sizeof(T); o_++)                                                  \
            ALL_FORMS_FAIL(name, T, (uint8_t *)(sym) + o_, SYM_CMP_EQ, SYM_ERR_INVALID_ARG,        \
                           "a misaligned ivar");                                                   \
        NULL_OUTPUTS_FAIL(name, T, (sym));                                                         \
    } while (0)

static void errors_body(int me, int n, void *arg)
{
    (void)arg;
    const int right = (me + 1) % n;
    uint64_t *w = sym_calloc(8, 8);
    uint8_t *dest = sym_malloc(64);
    PE_ASSERT(w && dest, "sym_malloc: %s", sym_last_error());
    memset(dest, 0xAB, 64);
    uint64_t stackbuf[4] = {0};
    uint64_t *heapbuf = calloc(4, 8);
    PE_ASSERT(heapbuf, "calloc");
    uint64_t v;

    TYPE_ERRORS(int32, int32_t, w, stackbuf);
    TYPE_ERRORS(int64, int64_t, w, stackbuf);
    TYPE_ERRORS(uint32, uint32_t, w, stackbuf);
    TYPE_ERRORS(uint64, uint64_t, w, heapbuf);
    /* inside the heap mapping but outside its user part, and a peer's copy */
    uint8_t *sync_area = sym_core_base() + SYM_SYNC_OFF;
    uint8_t *mailbox = sym_core_base() + sym_core_layout()->mailbox_off;
    ALL_FORMS_FAIL(uint64, uint64_t, sync_area, SYM_CMP_EQ, SYM_ERR_NOT_SYMMETRIC, "the sync area");
    ALL_FORMS_FAIL(int32, int32_t, mailbox, SYM_CMP_EQ, SYM_ERR_NOT_SYMMETRIC, "the mailbox");
    EXPECT(sym_signal_wait_until((uint64_t *)sync_area, SYM_CMP_EQ, 0, &v), SYM_ERR_NOT_SYMMETRIC,
           "the sync area");
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
    const uint8_t src[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
    for (int nbi = 0; nbi <= 1; nbi++) {
        sym_status_t (*ps)(void *, const void *, size_t, uint64_t *, uint64_t, sym_signal_op_t,
                           int) = nbi ? sym_put_signal_nbi : sym_put_signal;
        const char *why = nbi ? "put_signal_nbi" : "put_signal";
        EXPECT(ps(dest, src, 16, &w[4], 1, (sym_signal_op_t)0, right), SYM_ERR_INVALID_ARG, why);
        EXPECT(ps(dest, src, 16, &w[4], 1, (sym_signal_op_t)3, right), SYM_ERR_INVALID_ARG, why);
        EXPECT(ps(dest, src, 16, &w[4], 1, SYM_SIGNAL_SET, -1), SYM_ERR_INVALID_PE, why);
        EXPECT(ps(dest, src, 16, &w[4], 1, SYM_SIGNAL_SET, n), SYM_ERR_INVALID_PE, why);
        EXPECT(ps(dest, src, 16, stackbuf, 1, SYM_SIGNAL_SET, right), SYM_ERR_NOT_SYMMETRIC, why);
        EXPECT(ps(stackbuf, src, 16, &w[4], 1, SYM_SIGNAL_SET, right), SYM_ERR_NOT_SYMMETRIC, why);
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
    static int counts[] = {1, 2};
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
              "%s: the message \"%s\" should name the address %s and the condition %s %s", what,
              msg, ptr, cmp, value);
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
    PE_ASSERT(strstr(sym_last_error(), "sym_signal_wait_until"),
              "message does not name the "
              "call: %s",
              sym_last_error());

    int32_t *i32 = (int32_t *)&w[1];
    *i32 = 3;
    t0 = harness_now();
    st = sym_wait_until_int32(i32, SYM_CMP_LT, -77);
    expect_timeout(st, t0, i32, "<", "-77", "sym_wait_until_int32");

    int64_t *arr = (int64_t *)&w[2];
    arr[0] = arr[1] = arr[2] = 1000;
    int mask[3] = {0, 1, 0};
    arr[1] = 0; /* the excluded element would satisfy */
    t0 = harness_now();
    st = sym_wait_until_any_int64(arr, 3, mask, SYM_CMP_LE, 999, &(size_t){0});
    expect_timeout(st, t0, arr, "<=", "999", "sym_wait_until_any_int64");
    PE_OK(sym_barrier_all());
    sym_free(w);
}

ParameterizedTestParameters(sync, wait_timeout)
{
    static int counts[] = {1, 2};
    return cr_make_param_array(int, counts, 2);
}

ParameterizedTest(int *npes, sync, wait_timeout)
{
    /* init (libfabric's setup under load) keeps its own, longer deadline */
    const char *const env[] = {harness_timeout_env(1), "SYMHEAP_INIT_TIMEOUT=120", NULL};
    run_pes_env(*npes, env, timeout_body, NULL);
}
