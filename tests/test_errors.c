/* test_errors.c - bad input on every public function family: calls before
 * sym_init and after sym_finalize, double init, PEs out of range, addresses
 * outside the symmetric heap (nothing may be written), NULL buffers, bad
 * element sizes, strides, alignments, signal ops and comparisons; status
 * strings; the per-thread error message; and that the job still works after
 * all of it. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <limits.h>
#include <pthread.h>
#include <semaphore.h>
#include <string.h>

#include "harness.h"
#include "core/internal.h"

/* Error jobs use a short wait deadline: a wait that wrongly accepts a bad
 * argument then fails in seconds instead of hanging the file. */
static const char *const err_env[] = {"SYMHEAP_TIMEOUT=5", NULL};

/* ---- expectation shared by the family runners ----------------------------- */

static sym_status_t g_expect;
static char g_needle[2][64];

static void expect_status(sym_status_t st, const char *needle0, const char *needle1)
{
    g_expect = st;
    snprintf(g_needle[0], sizeof(g_needle[0]), "%s", needle0 ? needle0 : "");
    snprintf(g_needle[1], sizeof(g_needle[1]), "%s", needle1 ? needle1 : "");
}

/* The call must return g_expect; a failure's message must name the
 * operation and the needles. */
static void check_call(sym_status_t st, const char *op, const char *expr, int line)
{
    if (st != g_expect)
        pe_fail(__FILE__, line, expr, "returned %s, expected %s (%s)", sym_status_name(st),
                sym_status_name(g_expect), sym_last_error());
    if (st == SYM_OK)
        return;
    const char *msg = sym_last_error();
    if (!strstr(msg, op))
        pe_fail(__FILE__, line, expr, "message '%s' does not name %s", msg, op);
    for (int i = 0; i < 2; i++)
        if (g_needle[i][0] && !strstr(msg, g_needle[i]))
            pe_fail(__FILE__, line, expr, "message '%s' does not mention '%s'", msg, g_needle[i]);
}

#define EXPECT(call, op) check_call((call), (op), #call, __LINE__)

/* Local buffers: the source pattern and a guarded destination. */
enum { LOCAL_LEN = 8192 };
static uint8_t src_buf[LOCAL_LEN];
static uint8_t dst_buf[LOCAL_LEN];

static void reset_local(void)
{
    memset(src_buf, 0xEE, sizeof(src_buf));
    memset(dst_buf, 0x77, sizeof(dst_buf));
}

static void check_local_untouched(const char *what)
{
    for (size_t i = 0; i < LOCAL_LEN; i++)
        PE_ASSERT(dst_buf[i] == 0x77, "%s wrote local byte %zu after failing", what, i);
}

/* put, get, nbi, iput, iget of nbytes at `sym` on `pe`. */
static void all_rma(void *sym, size_t nbytes, int pe)
{
    reset_local();
    EXPECT(sym_put(sym, src_buf, nbytes, pe), "sym_put");
    EXPECT(sym_get(dst_buf, sym, nbytes, pe), "sym_get");
    EXPECT(sym_put_nbi(sym, src_buf, nbytes, pe), "sym_put_nbi");
    EXPECT(sym_get_nbi(dst_buf, sym, nbytes, pe), "sym_get_nbi");
    EXPECT(sym_iput(sym, src_buf, 1, 1, 1, nbytes, pe), "sym_iput");
    EXPECT(sym_iget(dst_buf, sym, 1, 1, 1, nbytes, pe), "sym_iget");
    if (g_expect != SYM_OK)
        check_local_untouched("a get");
}

static void all_pg(void *sym, int pe)
{
    uint8_t v8 = 0x77;
    uint16_t v16 = 0x7777;
    uint32_t v32 = 0x77777777u;
    uint64_t v64 = 0x7777777777777777ull;
    EXPECT(sym_p8(sym, 0xEE, pe), "sym_p8");
    EXPECT(sym_p16(sym, 0xEEEE, pe), "sym_p16");
    EXPECT(sym_p32(sym, 0xEEEEEEEEu, pe), "sym_p32");
    EXPECT(sym_p64(sym, 0xEEEEEEEEEEEEEEEEull, pe), "sym_p64");
    EXPECT(sym_g8(&v8, sym, pe), "sym_g8");
    EXPECT(sym_g16(&v16, sym, pe), "sym_g16");
    EXPECT(sym_g32(&v32, sym, pe), "sym_g32");
    EXPECT(sym_g64(&v64, sym, pe), "sym_g64");
    if (g_expect != SYM_OK)
        PE_ASSERT(v8 == 0x77 && v16 == 0x7777 && v32 == 0x77777777u && v64 == 0x7777777777777777ull,
                  "a failed sym_g wrote its output");
}

#define AMO_ALL_(bits, dest, pe)                                                                   \
    do {                                                                                           \
        uint##bits##_t old = 0;                                                                    \
        uint##bits##_t *d_ = (uint##bits##_t *)(dest);                                             \
        EXPECT(sym_atomic_fetch##bits(&old, d_, pe), "sym_atomic_fetch" #bits);                    \
        EXPECT(sym_atomic_set##bits(d_, 1, pe), "sym_atomic_set" #bits);                           \
        EXPECT(sym_atomic_swap##bits(d_, 1, &old, pe), "sym_atomic_swap" #bits);                   \
        EXPECT(sym_atomic_compare_swap##bits(d_, 0, 1, &old, pe),                                  \
               "sym_atomic_compare_swap" #bits);                                                   \
        EXPECT(sym_atomic_add##bits(d_, 1, pe), "sym_atomic_add" #bits);                           \
        EXPECT(sym_atomic_fetch_add##bits(d_, 1, &old, pe), "sym_atomic_fetch_add" #bits);         \
        EXPECT(sym_atomic_inc##bits(d_, pe), "sym_atomic_inc" #bits);                              \
        EXPECT(sym_atomic_fetch_inc##bits(d_, &old, pe), "sym_atomic_fetch_inc" #bits);            \
        EXPECT(sym_atomic_and##bits(d_, 1, pe), "sym_atomic_and" #bits);                           \
        EXPECT(sym_atomic_or##bits(d_, 1, pe), "sym_atomic_or" #bits);                             \
        EXPECT(sym_atomic_xor##bits(d_, 1, pe), "sym_atomic_xor" #bits);                           \
        EXPECT(sym_atomic_fetch_and##bits(d_, 1, &old, pe), "sym_atomic_fetch_and" #bits);         \
        EXPECT(sym_atomic_fetch_or##bits(d_, 1, &old, pe), "sym_atomic_fetch_or" #bits);           \
        EXPECT(sym_atomic_fetch_xor##bits(d_, 1, &old, pe), "sym_atomic_fetch_xor" #bits);         \
    } while (0)

static void all_amo(void *sym, int pe)
{
    AMO_ALL_(32, sym, pe);
    AMO_ALL_(64, sym, pe);
}

static void all_signal(void *dest, void *sig, size_t nbytes, int pe)
{
    reset_local();
    EXPECT(sym_put_signal(dest, src_buf, nbytes, sig, 1, SYM_SIGNAL_SET, pe), "sym_put_signal");
    EXPECT(sym_put_signal_nbi(dest, src_buf, nbytes, sig, 1, SYM_SIGNAL_ADD, pe),
           "sym_put_signal_nbi");
}

/* Every wait and test on this PE's word(s) at `addr`, for one type. */
#define LOCAL_ALL_(name, T, addr, cmp)                                                             \
    do {                                                                                           \
        T *w_ = (T *)(addr);                                                                       \
        int sat = 0;                                                                               \
        size_t idx = 0, cnt = 0, indices[2];                                                       \
        EXPECT(sym_wait_until_##name(w_, cmp, 12345), "sym_wait_until_" #name);                    \
        EXPECT(sym_test_##name(w_, cmp, 12345, &sat), "sym_test_" #name);                          \
        EXPECT(sym_wait_until_all_##name(w_, 2, NULL, cmp, 12345), "sym_wait_until_all_" #name);   \
        EXPECT(sym_wait_until_any_##name(w_, 2, NULL, cmp, 12345, &idx),                           \
               "sym_wait_until_any_" #name);                                                       \
        EXPECT(sym_wait_until_some_##name(w_, 2, NULL, cmp, 12345, indices, &cnt),                 \
               "sym_wait_until_some_" #name);                                                      \
        EXPECT(sym_test_all_##name(w_, 2, NULL, cmp, 12345, &sat), "sym_test_all_" #name);         \
        EXPECT(sym_test_any_##name(w_, 2, NULL, cmp, 12345, &idx), "sym_test_any_" #name);         \
        EXPECT(sym_test_some_##name(w_, 2, NULL, cmp, 12345, indices, &cnt),                       \
               "sym_test_some_" #name);                                                            \
    } while (0)

/* sym_signal_fetch takes no comparison, so it is left out when the
 * comparison is what is being rejected. */
static void all_local(void *addr, sym_cmp_t cmp)
{
    uint64_t v = 0;
    if (g_expect != SYM_ERR_INVALID_ARG)
        EXPECT(sym_signal_fetch(addr, &v), "sym_signal_fetch");
    EXPECT(sym_signal_wait_until(addr, cmp, 12345, &v), "sym_signal_wait_until");
    LOCAL_ALL_(int32, int32_t, addr, cmp);
    LOCAL_ALL_(int64, int64_t, addr, cmp);
    LOCAL_ALL_(uint32, uint32_t, addr, cmp);
    LOCAL_ALL_(uint64, uint64_t, addr, cmp);
}

/* After the errors the job must still work: a ring of puts and gets with
 * checked data, and barriers. */
static void final_round(int me, int npes)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint64_t *box = sym_calloc(64, sizeof(uint64_t));
    PE_ASSERT(box, "sym_calloc in the final round: %s", sym_last_error());
    uint64_t mine[64], got[64];
    for (int i = 0; i < 64; i++)
        mine[i] = ((uint64_t)me << 32) | (uint64_t)i * 2654435761u;
    PE_OK(sym_put(box, mine, sizeof(mine), right));
    PE_OK(sym_barrier_all());
    for (int i = 0; i < 64; i++)
        PE_ASSERT(box[i] == (((uint64_t)left << 32) | (uint64_t)i * 2654435761u),
                  "final round: word %d from PE %d wrong", i, left);
    PE_OK(sym_get(got, box, sizeof(got), right));
    for (int i = 0; i < 64; i++)
        PE_ASSERT(got[i] == (((uint64_t)me << 32) | (uint64_t)i * 2654435761u),
                  "final round: get of word %d from PE %d wrong", i, right);
    PE_OK(sym_sync_all());
    PE_OK(sym_barrier_all());
    sym_free(box);
}

static int pe_counts_12[] = {1, 2};

/* ---- before sym_init and after sym_finalize --------------------------------- */

static void check_not_initialized(const char *phase)
{
    uint64_t word[4] = {0};
    size_t f = 0;
    expect_status(SYM_ERR_NOT_INITIALIZED, NULL, NULL);
    all_rma(word, 8, 0);
    all_pg(word, 0);
    all_amo(word, 0);
    all_signal(word, &word[2], 8, 0);
    all_local(word, SYM_CMP_EQ);
    EXPECT(sym_barrier_all(), "sym_barrier_all");
    EXPECT(sym_sync_all(), "sym_sync_all");
    EXPECT(sym_quiet(), "sym_quiet");
    EXPECT(sym_fence(), "sym_fence");
    EXPECT(sym_heap_free(&f, &f), "sym_heap_free");
    EXPECT(sym_finalize(), "sym_finalize");
    PE_ASSERT(sym_malloc(64) == NULL, "%s: sym_malloc returned memory", phase);
    PE_ASSERT(sym_calloc(1, 64) == NULL, "%s: sym_calloc returned memory", phase);
    PE_ASSERT(sym_align(4096, 64) == NULL, "%s: sym_align returned memory", phase);
    PE_ASSERT(sym_realloc(NULL, 64) == NULL, "%s: sym_realloc returned memory", phase);
    PE_ASSERT(sym_realloc(word, 64) == NULL, "%s: sym_realloc returned memory", phase);
    sym_free(word); /* harmless */
    sym_free(NULL);
    PE_ASSERT(sym_my_pe() == -1 && sym_n_pes() == -1, "%s: sym_my_pe %d, sym_n_pes %d", phase,
              sym_my_pe(), sym_n_pes());
    PE_ASSERT(!sym_initialized(), "%s: sym_initialized() is 1", phase);
    PE_ASSERT(sym_ptr(word, 0) == NULL, "%s: sym_ptr returned a pointer", phase);
    PE_ASSERT(!sym_addr_accessible(word, 0) && !sym_pe_accessible(0), "%s: something is accessible",
              phase);
}

static void not_initialized_body(int me, int npes, void *arg)
{
    (void)arg;
    check_not_initialized("before sym_init");
    PE_OK(sym_init());
    PE_ASSERT(sym_my_pe() == me && sym_n_pes() == npes, "PE %d of %d after init", sym_my_pe(),
              sym_n_pes());
    final_round(me, npes);
    PE_OK(sym_finalize());
    check_not_initialized("after sym_finalize");
}

ParameterizedTestParameters(errors, not_initialized)
{
    return cr_make_param_array(int, pe_counts_12, 2);
}

ParameterizedTest(int *npes, errors, not_initialized)
{
    struct pe_job job = {.npes = *npes,
                         .body = not_initialized_body,
                         .raw = true,
                         .env = err_env,
                         .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ---- sym_init twice ------------------------------------------------------ */

static void init_twice_body(int me, int npes, void *arg)
{
    (void)arg;
    expect_status(SYM_ERR_ALREADY_INITIALIZED, NULL, NULL);
    EXPECT(sym_init(), "sym_init");
    EXPECT(sym_init(), "sym_init");
    PE_ASSERT(sym_initialized() && sym_my_pe() == me && sym_n_pes() == npes,
              "state changed by the second sym_init");
    final_round(me, npes);
}

ParameterizedTestParameters(errors, init_twice)
{
    return cr_make_param_array(int, pe_counts_12, 2);
}

ParameterizedTest(int *npes, errors, init_twice)
{
    run_pes_env(*npes, err_env, init_twice_body, NULL);
}

/* ---- PE out of range ------------------------------------------------------- */

static void invalid_pe_body(int me, int npes, void *arg)
{
    (void)arg;
    uint8_t *obj = sym_calloc(1, 256);
    uint64_t *sig = sym_calloc(1, sizeof(uint64_t));
    PE_ASSERT(obj && sig, "sym_calloc: %s", sym_last_error());
    const int bad[] = {-1, npes, npes + 1, INT_MAX, INT_MIN};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char pe_text[32], size_text[32];
        snprintf(pe_text, sizeof(pe_text), "PE %d", bad[i]);
        snprintf(size_text, sizeof(size_text), "%d PE", npes);
        expect_status(SYM_ERR_INVALID_PE, pe_text, size_text);
        all_rma(obj, 64, bad[i]);
        all_pg(obj, bad[i]);
        all_amo(obj, bad[i]);
        all_signal(obj, sig, 64, bad[i]);
        PE_ASSERT(sym_ptr(obj, bad[i]) == NULL, "sym_ptr to PE %d", bad[i]);
        PE_ASSERT(!sym_addr_accessible(obj, bad[i]) && !sym_pe_accessible(bad[i]),
                  "PE %d reported accessible", bad[i]);
    }
    PE_OK(sym_barrier_all());
    for (size_t i = 0; i < 256; i++)
        PE_ASSERT(obj[i] == 0, "byte %zu of my object was written", i);
    PE_ASSERT(*sig == 0, "my signal word was written");
    sym_free(sig);
    sym_free(obj);
    final_round(me, npes);
}

ParameterizedTestParameters(errors, invalid_pe)
{
    return cr_make_param_array(int, pe_counts_12, 2);
}

ParameterizedTest(int *npes, errors, invalid_pe)
{
    run_pes_env(*npes, err_env, invalid_pe_body, NULL);
}

/* ---- addresses outside the symmetric heap ---------------------------------- */

static void fill_guard(uint8_t *p, size_t n)
{
    memset(p, 0x5A, n);
}

static void check_guard(const uint8_t *p, size_t n, const char *what)
{
    for (size_t i = 0; i < n; i++)
        PE_ASSERT(p[i] == 0x5A, "%s: byte %zu was written (0x%02x)", what, i, p[i]);
}

static void not_symmetric_body(int me, int npes, void *arg)
{
    (void)arg;
    int right = (me + 1) % npes;
    uint8_t *lo = sym_core_base() + sym_core_layout()->user_off;
    uint8_t *hi = lo + sym_core_layout()->user_size;

    /* the last object ends exactly at the end of the heap */
    size_t largest;
    PE_OK(sym_heap_free(NULL, &largest));
    uint8_t *filler = sym_malloc(largest - 4096);
    uint8_t *last = sym_malloc(4096);
    uint64_t *sig = (uint64_t *)last; /* a valid signal word inside `last` */
    PE_ASSERT(filler && last, "sym_malloc: %s", sym_last_error());
    PE_ASSERT(filler == lo && last + 4096 == hi, "heap [%p, %p), filler %p, last %p", (void *)lo,
              (void *)hi, (void *)filler, (void *)last);
    fill_guard(last, 4096);
    fill_guard(filler + largest - 4096 - 4096, 4096);
    fill_guard(filler, 4096);
    PE_OK(sym_barrier_all());

    _Alignas(64) uint8_t on_stack[256];
    uint8_t *on_malloc = aligned_alloc(64, 256);
    PE_ASSERT(on_malloc, "aligned_alloc");
    struct {
        void *addr;
        const char *what;
    } outside[] = {
        {on_stack, "a stack address"},
        {on_malloc, "a malloc address"},
        {NULL, "NULL"},
        {lo - 64, "64 bytes before the heap"},
        {hi, "the end of the heap"},
        {hi + 4096, "beyond the heap"},
    };
    expect_status(SYM_ERR_NOT_SYMMETRIC, NULL, NULL);
    for (size_t i = 0; i < sizeof(outside) / sizeof(outside[0]); i++) {
        void *a = outside[i].addr;
        all_rma(a, 64, right);
        all_pg(a, right);
        all_amo(a, right);
        all_signal(a, sig, 64, right);  /* bad dest, good signal */
        all_signal(last, a, 64, right); /* good dest, bad signal */
        all_local(a, SYM_CMP_EQ);
        /* the heap's end is checked in ptr_outside_heap */
        PE_ASSERT(a == hi || (sym_ptr(a, right) == NULL && !sym_addr_accessible(a, right)),
                  "%s is accessible", outside[i].what);
    }
    /* one byte before the heap: byte-granular calls only, so that alignment
     * cannot be the error reported */
    all_rma(lo - 1, 1, right);
    all_rma(lo - 1, 64, right);

    /* ranges that start inside and run past the end: none of the in-range
     * part may be written */
    const struct {
        uint8_t *addr;
        size_t nbytes;
    } crossing[] = {
        {last, 4097},     {last + 4000, 200},         {last + 4095, 2},
        {last, SIZE_MAX}, {last + 64, SIZE_MAX - 32}, {filler, largest + 1},
    };
    for (size_t i = 0; i < sizeof(crossing) / sizeof(crossing[0]); i++) {
        char size_text[32];
        snprintf(size_text, sizeof(size_text), "%zu", crossing[i].nbytes);
        expect_status(SYM_ERR_NOT_SYMMETRIC, size_text, NULL);
        reset_local();
        EXPECT(sym_put(crossing[i].addr, src_buf, crossing[i].nbytes, right), "sym_put");
        EXPECT(sym_get(dst_buf, crossing[i].addr, crossing[i].nbytes, right), "sym_get");
        EXPECT(sym_put_nbi(crossing[i].addr, src_buf, crossing[i].nbytes, right), "sym_put_nbi");
        EXPECT(sym_get_nbi(dst_buf, crossing[i].addr, crossing[i].nbytes, right), "sym_get_nbi");
        EXPECT(sym_put_signal(crossing[i].addr, src_buf, crossing[i].nbytes, sig, 1, SYM_SIGNAL_SET,
                              right),
               "sym_put_signal");
        check_local_untouched("a get crossing the heap end");
    }
    /* strided: 300 elements at stride 2 span 4792 bytes from `last` */
    expect_status(SYM_ERR_NOT_SYMMETRIC, NULL, NULL);
    EXPECT(sym_iput(last, src_buf, 2, 1, 8, 300, right), "sym_iput");
    EXPECT(sym_iget(dst_buf, last, 1, 2, 8, 300, right), "sym_iget");
    EXPECT(sym_iput(last, src_buf, PTRDIFF_MAX, 1, 16, 3, right), "sym_iput");
    EXPECT(sym_iget(dst_buf, last, 1, PTRDIFF_MAX, 16, 3, right), "sym_iget");
    check_local_untouched("a strided get crossing the heap end");
    /* the last in-range element is fine: the bound is exact */
    PE_ASSERT(sym_iput(last, src_buf, 1, 1, 8, 512, right) == SYM_OK,
              "a strided put ending exactly at the heap end failed: %s", sym_last_error());
    fill_guard(src_buf, sizeof(src_buf));
    PE_OK(sym_put(last, src_buf, 4096, right)); /* restores the guard on the neighbour */
    PE_OK(sym_barrier_all());
    check_guard(last, 4096, "the last object after failed operations");
    check_guard(filler + largest - 8192, 4096, "the end of the filler");
    check_guard(filler, 4096, "the start of the filler");
    PE_OK(sym_barrier_all());

    free(on_malloc);
    sym_free(last);
    sym_free(filler);
    final_round(me, npes);
}

/* sym_ptr and sym_addr_accessible on addresses around the heap: only
 * addresses inside it name something on a peer. */
static void ptr_outside_body(int me, int npes, void *arg)
{
    (void)arg;
    uint8_t *lo = sym_core_base() + sym_core_layout()->user_off;
    uint8_t *hi = lo + sym_core_layout()->user_size;
    for (int pe = 0; pe < npes; pe++) {
        PE_ASSERT(sym_ptr(lo, pe) != NULL && sym_addr_accessible(lo, pe),
                  "the heap start is not accessible on PE %d", pe);
        PE_ASSERT(sym_ptr(hi - 1, pe) != NULL && sym_addr_accessible(hi - 1, pe),
                  "the heap's last byte is not accessible on PE %d", pe);
        PE_ASSERT(sym_ptr(lo - 1, pe) == NULL && !sym_addr_accessible(lo - 1, pe),
                  "the byte before the heap is accessible on PE %d", pe);
        PE_ASSERT(sym_ptr(hi, pe) == NULL,
                  "sym_ptr(heap end, %d) returned %p: one past the heap is not an object", pe,
                  sym_ptr(hi, pe));
        PE_ASSERT(!sym_addr_accessible(hi, pe),
                  "sym_addr_accessible(heap end, %d) is 1: one past the heap is not symmetric", pe);
    }
    final_round(me, npes);
}

ParameterizedTestParameters(errors, ptr_outside_heap)
{
    return cr_make_param_array(int, pe_counts_12, 2);
}

ParameterizedTest(int *npes, errors, ptr_outside_heap)
{
    run_pes_env(*npes, err_env, ptr_outside_body, NULL);
}

ParameterizedTestParameters(errors, not_symmetric)
{
    return cr_make_param_array(int, pe_counts_12, 2);
}

ParameterizedTest(int *npes, errors, not_symmetric)
{
    run_pes_env(*npes, err_env, not_symmetric_body, NULL);
}

/* ---- invalid arguments ---------------------------------------------------- */

static void invalid_args_body(int me, int npes, void *arg)
{
    (void)arg;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint8_t *obj = sym_malloc(1024);
    uint64_t *sig = sym_calloc(2, sizeof(uint64_t));
    PE_ASSERT(obj && sig, "sym_malloc: %s", sym_last_error());
    fill_guard(obj, 1024);
    PE_OK(sym_barrier_all());

    /* NULL local buffers with bytes to move */
    expect_status(SYM_ERR_INVALID_ARG, NULL, NULL);
    EXPECT(sym_put(obj, NULL, 16, right), "sym_put");
    EXPECT(sym_get(NULL, obj, 16, right), "sym_get");
    EXPECT(sym_put_nbi(obj, NULL, 16, right), "sym_put_nbi");
    EXPECT(sym_get_nbi(NULL, obj, 16, right), "sym_get_nbi");
    EXPECT(sym_iput(obj, NULL, 1, 1, 8, 2, right), "sym_iput");
    EXPECT(sym_iget(NULL, obj, 1, 1, 8, 2, right), "sym_iget");
    EXPECT(sym_put_signal(obj, NULL, 16, sig, 1, SYM_SIGNAL_SET, right), "sym_put_signal");
    EXPECT(sym_put_signal_nbi(obj, NULL, 16, sig, 1, SYM_SIGNAL_SET, right), "sym_put_signal_nbi");
    EXPECT(sym_g8(NULL, obj, right), "sym_g8");
    EXPECT(sym_g64(NULL, (uint64_t *)obj, right), "sym_g64");
    EXPECT(sym_atomic_fetch32(NULL, (uint32_t *)obj, right), "sym_atomic_fetch32");
    EXPECT(sym_atomic_swap64((uint64_t *)obj, 1, NULL, right), "sym_atomic_swap64");
    EXPECT(sym_atomic_compare_swap32((uint32_t *)obj, 0x5A5A5A5Au, 1, NULL, right),
           "sym_atomic_compare_swap32");
    EXPECT(sym_atomic_fetch_add64((uint64_t *)obj, 1, NULL, right), "sym_atomic_fetch_add64");
    EXPECT(sym_atomic_fetch_inc32((uint32_t *)obj, NULL, right), "sym_atomic_fetch_inc32");
    EXPECT(sym_atomic_fetch_xor64((uint64_t *)obj, 1, NULL, right), "sym_atomic_fetch_xor64");
    EXPECT(sym_signal_fetch(sig, NULL), "sym_signal_fetch");
    EXPECT(sym_test_uint64(sig, SYM_CMP_EQ, 0, NULL), "sym_test_uint64");
    EXPECT(sym_test_all_uint64(sig, 1, NULL, SYM_CMP_EQ, 0, NULL), "sym_test_all_uint64");
    EXPECT(sym_test_any_uint64(sig, 1, NULL, SYM_CMP_EQ, 0, NULL), "sym_test_any_uint64");
    size_t count;
    EXPECT(sym_test_some_uint64(sig, 1, NULL, SYM_CMP_EQ, 0, NULL, &count), "sym_test_some_uint64");
    EXPECT(sym_wait_until_any_uint64(sig, 1, NULL, SYM_CMP_EQ, 0, NULL),
           "sym_wait_until_any_uint64");
    EXPECT(sym_wait_until_some_uint64(sig, 1, NULL, SYM_CMP_EQ, 0, NULL, NULL),
           "sym_wait_until_some_uint64");

    /* zero bytes with valid arguments: fine, and nothing moves */
    expect_status(SYM_OK, NULL, NULL);
    reset_local();
    EXPECT(sym_put(obj, src_buf, 0, right), "sym_put");
    EXPECT(sym_get(dst_buf, obj, 0, right), "sym_get");
    EXPECT(sym_put_nbi(obj, src_buf, 0, right), "sym_put_nbi");
    EXPECT(sym_get_nbi(dst_buf, obj, 0, right), "sym_get_nbi");
    EXPECT(sym_put(obj, NULL, 0, right), "sym_put");
    EXPECT(sym_get(NULL, obj, 0, right), "sym_get");
    EXPECT(sym_iput(obj, src_buf, 1, 1, 8, 0, right), "sym_iput");
    EXPECT(sym_iget(dst_buf, obj, 1, 1, 8, 0, right), "sym_iget");
    EXPECT(sym_quiet(), "sym_quiet");
    /* a zero-byte put with signal still delivers the signal */
    EXPECT(sym_put_signal(obj, src_buf, 0, sig, 100u + (uint64_t)me, SYM_SIGNAL_SET, right),
           "sym_put_signal");
    EXPECT(sym_put_signal_nbi(obj, NULL, 0, &sig[1], 5, SYM_SIGNAL_ADD, right),
           "sym_put_signal_nbi");
    EXPECT(sym_quiet(), "sym_quiet");
    check_local_untouched("a zero-byte get");

    /* element sizes and strides */
    expect_status(SYM_ERR_INVALID_ARG, NULL, NULL);
    static const size_t bad_elem[] = {0, 3, 5, 6, 7, 12, 32};
    for (size_t i = 0; i < sizeof(bad_elem) / sizeof(bad_elem[0]); i++) {
        char t[32];
        snprintf(t, sizeof(t), "%zu", bad_elem[i]);
        expect_status(SYM_ERR_INVALID_ARG, t, NULL);
        EXPECT(sym_iput(obj, src_buf, 1, 1, bad_elem[i], 4, right), "sym_iput");
        EXPECT(sym_iget(dst_buf, obj, 1, 1, bad_elem[i], 4, right), "sym_iget");
    }
    expect_status(SYM_ERR_INVALID_ARG, NULL, NULL);
    static const ptrdiff_t strides[][2] = {{0, 1}, {1, 0}, {-1, 1}, {1, -1}, {PTRDIFF_MIN, 1}};
    for (size_t i = 0; i < sizeof(strides) / sizeof(strides[0]); i++) {
        EXPECT(sym_iput(obj, src_buf, strides[i][0], strides[i][1], 4, 4, right), "sym_iput");
        EXPECT(sym_iget(dst_buf, obj, strides[i][1], strides[i][0], 4, 4, right), "sym_iget");
    }
    check_local_untouched("a rejected sym_iget");

    /* misaligned single elements and atomics */
    uint16_t v16 = 0x7777;
    uint32_t v32 = 0x77777777u;
    uint64_t v64 = 0x7777777777777777ull;
    EXPECT(sym_p16((uint16_t *)(obj + 1), 1, right), "sym_p16");
    EXPECT(sym_p32((uint32_t *)(obj + 2), 1, right), "sym_p32");
    EXPECT(sym_p64((uint64_t *)(obj + 4), 1, right), "sym_p64");
    EXPECT(sym_g16(&v16, (uint16_t *)(obj + 1), right), "sym_g16");
    EXPECT(sym_g32(&v32, (uint32_t *)(obj + 2), right), "sym_g32");
    EXPECT(sym_g64(&v64, (uint64_t *)(obj + 4), right), "sym_g64");
    PE_ASSERT(v16 == 0x7777 && v32 == 0x77777777u && v64 == 0x7777777777777777ull,
              "a misaligned get wrote its output");
    AMO_ALL_(32, obj + 2, right);
    AMO_ALL_(64, obj + 4, right);
    AMO_ALL_(64, obj + 12, right);

    /* signal ops and signal alignment */
    static const int bad_ops[] = {0, 3, 99, -1};
    for (size_t i = 0; i < sizeof(bad_ops) / sizeof(bad_ops[0]); i++) {
        EXPECT(sym_put_signal(obj, src_buf, 64, sig, 1, (sym_signal_op_t)bad_ops[i], right),
               "sym_put_signal");
        EXPECT(sym_put_signal_nbi(obj, src_buf, 64, sig, 1, (sym_signal_op_t)bad_ops[i], right),
               "sym_put_signal_nbi");
    }
    EXPECT(sym_put_signal(obj, src_buf, 64, (uint64_t *)(obj + 4), 1, SYM_SIGNAL_SET, right),
           "sym_put_signal");
    EXPECT(sym_put_signal_nbi(obj, src_buf, 64, (uint64_t *)(obj + 1), 1, SYM_SIGNAL_ADD, right),
           "sym_put_signal_nbi");

    /* comparisons and alignment of waited words: rejected at once */
    static const int bad_cmp[] = {0, 7, -1, 1000};
    for (size_t i = 0; i < sizeof(bad_cmp) / sizeof(bad_cmp[0]); i++)
        all_local(obj, (sym_cmp_t)bad_cmp[i]);
    EXPECT(sym_signal_fetch((uint64_t *)(obj + 4), &v64), "sym_signal_fetch");
    EXPECT(sym_signal_wait_until((uint64_t *)(obj + 4), SYM_CMP_EQ, 0, NULL),
           "sym_signal_wait_until");
    EXPECT(sym_wait_until_uint64((uint64_t *)(obj + 4), SYM_CMP_NE, 0), "sym_wait_until_uint64");
    EXPECT(sym_wait_until_int32((int32_t *)(obj + 2), SYM_CMP_NE, 0), "sym_wait_until_int32");
    int sat;
    EXPECT(sym_test_uint32((uint32_t *)(obj + 1), SYM_CMP_NE, 0, &sat), "sym_test_uint32");
    EXPECT(sym_test_all_int64((int64_t *)(obj + 8 + 4), 2, NULL, SYM_CMP_NE, 0, &sat),
           "sym_test_all_int64");

    /* nothing above wrote anything; only the two zero-byte signals landed */
    PE_OK(sym_barrier_all());
    check_guard(obj, 1024, "my object after rejected operations");
    PE_ASSERT(sig[0] == 100u + (uint64_t)left && sig[1] == 5,
              "zero-byte put_signal: words are %llu and %llu, expected %llu and 5",
              (unsigned long long)sig[0], (unsigned long long)sig[1],
              (unsigned long long)(100u + (uint64_t)left));
    PE_OK(sym_barrier_all());
    sym_free(sig);
    sym_free(obj);
    final_round(me, npes);
}

ParameterizedTestParameters(errors, invalid_args)
{
    return cr_make_param_array(int, pe_counts_12, 2);
}

ParameterizedTest(int *npes, errors, invalid_args)
{
    run_pes_env(*npes, err_env, invalid_args_body, NULL);
}

/* ---- status strings ------------------------------------------------------- */

Test(errors, status_strings)
{
    static const struct {
        sym_status_t code;
        const char *name;
    } codes[] = {
#define CODE_(name, value, text) {name, #name},
        SYM_STATUS_LIST(CODE_)
#undef CODE_
    };
    size_t n = sizeof(codes) / sizeof(codes[0]);
    cr_assert(n >= 18, "only %zu status codes", n);
    for (size_t i = 0; i < n; i++) {
        const char *s = sym_strerror(codes[i].code);
        cr_assert(s && *s, "sym_strerror(%s) is empty", codes[i].name);
        cr_expect(!strcmp(sym_status_name(codes[i].code), codes[i].name),
                  "sym_status_name(%d) is '%s', expected '%s'", (int)codes[i].code,
                  sym_status_name(codes[i].code), codes[i].name);
        for (size_t j = 0; j < i; j++) {
            cr_expect(strcmp(s, sym_strerror(codes[j].code)) != 0,
                      "%s and %s share the description '%s'", codes[i].name, codes[j].name, s);
            cr_expect(codes[i].code != codes[j].code, "%s and %s share a value", codes[i].name,
                      codes[j].name);
        }
    }
    static const int unknown[] = {1, 5, -18, -100, INT_MIN, INT_MAX};
    for (size_t i = 0; i < sizeof(unknown) / sizeof(unknown[0]); i++) {
        const char *s = sym_strerror((sym_status_t)unknown[i]);
        const char *nm = sym_status_name((sym_status_t)unknown[i]);
        cr_expect(s && *s, "sym_strerror(%d) gives no string", unknown[i]);
        cr_expect(nm && *nm, "sym_status_name(%d) gives no string", unknown[i]);
        for (size_t j = 0; s && nm && j < n; j++) {
            cr_expect(strcmp(s, sym_strerror(codes[j].code)) != 0,
                      "unknown code %d is described as %s", unknown[i], codes[j].name);
            cr_expect(strcmp(nm, codes[j].name) != 0, "unknown code %d is named %s", unknown[i],
                      codes[j].name);
        }
    }
}

/* ---- sym_last_error is per thread ------------------------------------------ */

struct thread_ctx {
    sem_t go_thread, go_main;
    char seen_initial[64];
    sym_status_t initial_status;
    bool ok;
    char why[256];
};

static void *error_thread(void *arg)
{
    struct thread_ctx *c = arg;
    snprintf(c->seen_initial, sizeof(c->seen_initial), "%s", sym_last_error());
    c->initial_status = sym_last_status();
    uint8_t x = 0;
    sem_wait(&c->go_thread);
    /* main has recorded its own error by now; ours must still be empty */
    if (sym_last_error()[0] != '\0') {
        snprintf(c->why, sizeof(c->why), "thread sees main's message '%s'", sym_last_error());
        sem_post(&c->go_main);
        return NULL;
    }
    sym_status_t st = sym_get(&x, &x, 1, 2000);
    if (st != SYM_ERR_INVALID_PE || !strstr(sym_last_error(), "2000") ||
        sym_last_status() != SYM_ERR_INVALID_PE) {
        snprintf(c->why, sizeof(c->why), "thread's own error: %s '%s'", sym_status_name(st),
                 sym_last_error());
        sem_post(&c->go_main);
        return NULL;
    }
    sem_post(&c->go_main);
    sem_wait(&c->go_thread);
    /* main has recorded another error meanwhile */
    if (!strstr(sym_last_error(), "sym_get") || strstr(sym_last_error(), "3000"))
        snprintf(c->why, sizeof(c->why), "thread's message became '%s'", sym_last_error());
    else
        c->ok = true;
    sem_post(&c->go_main);
    return NULL;
}

static void per_thread_body(int me, int npes, void *arg)
{
    (void)arg;
    struct thread_ctx c = {.ok = false};
    PE_ASSERT(sem_init(&c.go_thread, 0, 0) == 0 && sem_init(&c.go_main, 0, 0) == 0, "sem_init");
    pthread_t t;
    PE_ASSERT(pthread_create(&t, NULL, error_thread, &c) == 0, "pthread_create");
    uint8_t x = 0;
    PE_FAILS_WITH(sym_put(&x, &x, 1, 1000), SYM_ERR_INVALID_PE);
    PE_ASSERT(strstr(sym_last_error(), "1000"), "main's message '%s'", sym_last_error());
    sem_post(&c.go_thread);
    sem_wait(&c.go_main);
    PE_ASSERT(c.why[0] == '\0', "%s", c.why);
    PE_ASSERT(strstr(sym_last_error(), "sym_put") && !strstr(sym_last_error(), "2000"),
              "the thread's error changed main's message to '%s'", sym_last_error());
    PE_FAILS_WITH(sym_put(&x, &x, 1, 3000), SYM_ERR_INVALID_PE);
    sem_post(&c.go_thread);
    sem_wait(&c.go_main);
    PE_ASSERT(pthread_join(t, NULL) == 0, "pthread_join");
    PE_ASSERT(c.ok, "%s", c.why);
    PE_ASSERT(c.seen_initial[0] == '\0', "a new thread starts with message '%s'", c.seen_initial);
    PE_ASSERT(c.initial_status == SYM_OK, "a new thread starts with status %s",
              sym_status_name(c.initial_status));
    PE_ASSERT(strstr(sym_last_error(), "3000"), "main's message '%s'", sym_last_error());
    /* sym_last_status: the status of a call that returns none */
    PE_ASSERT(sym_last_status() == SYM_ERR_INVALID_PE, "after a bad PE: %s",
              sym_status_name(sym_last_status()));
    size_t free_bytes = 0;
    PE_OK(sym_heap_free(&free_bytes, NULL));
    PE_ASSERT(sym_malloc(free_bytes + 1) == NULL, "sym_malloc(%zu) past the free space succeeded",
              free_bytes + 1);
    PE_ASSERT(sym_last_status() == SYM_ERR_NO_MEMORY, "sym_malloc past the free space: %s '%s'",
              sym_status_name(sym_last_status()), sym_last_error());
    uint8_t *obj = sym_malloc(64);
    PE_ASSERT(obj, "sym_malloc(64): %s", sym_last_error());
    PE_ASSERT(sym_last_status() == SYM_ERR_NO_MEMORY, "a successful call changed the status to %s",
              sym_status_name(sym_last_status()));
    sym_free(obj + 1); /* not the start of an object: fails on every PE */
    PE_ASSERT(sym_last_status() == SYM_ERR_INVALID_ARG, "sym_free of a bad pointer: %s '%s'",
              sym_status_name(sym_last_status()), sym_last_error());
    sym_free(obj);
    sem_destroy(&c.go_thread);
    sem_destroy(&c.go_main);
    final_round(me, npes);
}

ParameterizedTestParameters(errors, last_error_is_per_thread)
{
    return cr_make_param_array(int, pe_counts_12, 2);
}

ParameterizedTest(int *npes, errors, last_error_is_per_thread)
{
    run_pes_env(*npes, err_env, per_thread_body, NULL);
}
