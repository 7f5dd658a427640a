/* test_ofi.c - what is particular to the libfabric transport, forced for
 * every peer on one host (SYMHEAP_TRANSPORT=ofi) over two providers that
 * differ where it matters: tcp;ofi_rxm (scalable keys, 64-byte inject, no
 * ordering) and libfabric's shm (4 KiB inject, ordered).  Provider choice
 * and its errors, transfers on both sides of the inject size and of the
 * bounce buffer from registered and unregistered memory, every atomic at
 * both widths against a local reference, put-with-signal ordering, and a
 * provider's error entry turned into SYM_ERR_TRANSPORT with its text. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "amo_check.h"
#include "harness.h"
#include "core/internal.h"
#include "ofi/ofi.h"
#include "ofi/ofi_private.h"

static const char *const providers[] = { "tcp;ofi_rxm", "shm" };

struct ofi_param {
    int provider; /* index into providers */
    int npes;
};

static void param_env(const struct ofi_param *p, char *prov_var, size_t len,
                      const char *env[4])
{
    snprintf(prov_var, len, "SYMHEAP_OFI_PROVIDER=%s", providers[p->provider]);
    env[0] = "SYMHEAP_TRANSPORT=ofi";
    env[1] = prov_var;
    env[2] = "SYMHEAP_TIMEOUT=120";
    env[3] = NULL;
}

static void run_ofi(const struct ofi_param *p, pe_body_fn body)
{
    char var[96];
    const char *env[4];
    param_env(p, var, sizeof(var), env);
    run_pes_env(p->npes, env, body, (void *)p);
}

static struct ofi_param params2[] = { { 0, 2 }, { 1, 2 } };
static struct ofi_param params3[] = { { 0, 3 }, { 1, 3 } };

/* ---- provider choice ------------------------------------------------------ */

static void chosen_body(int me, int npes, void *arg)
{
    const struct ofi_param *p = arg;
    PE_ASSERT(sym_transport_named("ofi") != NULL, "no ofi transport although SYMHEAP_TRANSPORT=ofi");
    const char *prov = ofi_transport_provider(sym_transport_named("ofi"));
    PE_ASSERT(strcmp(prov, providers[p->provider]) == 0, "provider %s, asked for %s", prov,
              providers[p->provider]);
    /* Forced ofi maps no peer: only my own heap has a direct pointer. */
    uint64_t *x = sym_malloc(8);
    PE_ASSERT(x, "sym_malloc: %s", sym_last_error());
    for (int pe = 0; pe < npes; pe++)
        PE_ASSERT((sym_ptr(x, pe) != NULL) == (pe == me), "sym_ptr(x, %d) = %p", pe,
                  sym_ptr(x, pe));
    sym_free(x);
}

ParameterizedTestParameters(ofi, provider_chosen)
{
    return cr_make_param_array(struct ofi_param, params2, 2);
}

ParameterizedTest(struct ofi_param *p, ofi, provider_chosen)
{
    run_ofi(p, chosen_body);
}

static void missing_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    PE_FAILS_WITH(sym_init(), SYM_ERR_UNAVAILABLE);
    const char *msg = sym_last_error();
    PE_ASSERT(strstr(msg, "SYMHEAP_OFI_PROVIDER=no-such-provider") &&
                  strstr(msg, "tcp;ofi_rxm"),
              "message does not name the variable and what exists: %s", msg);
}

Test(ofi, missing_provider_is_a_clear_init_error)
{
    const char *env[] = { "SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=no-such-provider",
                          NULL };
    struct pe_job job = { .npes = 2, .body = missing_body, .raw = true, .env = env };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* A provider that lacks an atomic symheap needs is refused at init, naming
 * the atomic: libfabric 1.17's net provider answers fi_query_atomic for no
 * fetching FI_ATOMIC_READ on FI_UINT32 (symheap-info: "lacks ..."). */
static void lacking_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    PE_FAILS_WITH(sym_init(), SYM_ERR_UNAVAILABLE);
    const char *msg = sym_last_error();
    PE_ASSERT(strstr(msg, "libfabric provider net cannot execute the fetching atomic "
                          "FI_ATOMIC_READ on FI_UINT32") &&
                  strstr(msg, "SYMHEAP_OFI_PROVIDER"),
              "message does not name the provider, the missing atomic and the way out: %s",
              msg);
}

Test(ofi, missing_atomic_is_a_clear_init_error)
{
    const char *env[] = { "SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=net", NULL };
    struct pe_job job = { .npes = 2, .body = lacking_body, .raw = true, .env = env };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ---- transfers around the inject size and the bounce buffer --------------- */

static uint8_t pattern(size_t i, int from, size_t size)
{
    return (uint8_t)(i * 131u + (unsigned)from * 17u + size * 7u + 1u);
}

static const size_t sizes[] = { 1, 7, 8, 63, 64, 65, 4095, 4096, 4097, 65536 + 3,
                                256 * 1024, 256 * 1024 + 1, 3 * 1024 * 1024 + 5 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSZ (3 * 1024 * 1024 + 5)

/* Every PE writes to the next one, from the heap and from malloc'd memory,
 * blocking and non-blocking, and reads back from the previous one. */
static void sizes_body(int me, int npes, void *arg)
{
    (void)arg;
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    uint8_t *dst = sym_malloc(MAXSZ + 64);
    uint8_t *hsrc = sym_malloc(MAXSZ);
    uint8_t *lsrc = malloc(MAXSZ), *back = malloc(MAXSZ + 64);
    PE_ASSERT(dst && hsrc && lsrc && back, "allocation failed: %s", sym_last_error());
    for (size_t k = 0; k < NSIZES; k++)
        for (int variant = 0; variant < 4; variant++) {
            const size_t n = sizes[k];
            const bool heap_src = variant & 1, nbi = variant & 2;
            uint8_t *src = heap_src ? hsrc : lsrc;
            for (size_t i = 0; i < n; i++)
                src[i] = pattern(i, me, n + (size_t)variant);
            memset(dst, 0xEE, n + 64);
            PE_OK(sym_barrier_all());
            if (nbi) {
                PE_OK(sym_put_nbi(dst, src, n, next));
                PE_OK(sym_quiet());
            } else {
                PE_OK(sym_put(dst, src, n, next));
            }
            memset(src, 0, n); /* the transport must not read src after return */
            PE_OK(sym_barrier_all());
            for (size_t i = 0; i < n; i++)
                PE_ASSERT(dst[i] == pattern(i, prev, n + (size_t)variant),
                          "%s%s put of %zu bytes from PE %d: byte %zu is 0x%02x",
                          nbi ? "nbi " : "", heap_src ? "heap" : "malloc", n, prev, i, dst[i]);
            for (size_t i = n; i < n + 64; i++)
                PE_ASSERT(dst[i] == 0xEE, "put of %zu bytes wrote past its end at %zu", n, i);
            /* Read the previous PE's destination: it holds what I wrote. */
            uint8_t *into = heap_src ? hsrc : back;
            memset(into, 0, n);
            if (nbi) {
                PE_OK(sym_get_nbi(into, dst, n, next));
                PE_OK(sym_quiet());
            } else {
                PE_OK(sym_get(into, dst, n, next));
            }
            for (size_t i = 0; i < n; i++)
                PE_ASSERT(into[i] == pattern(i, me, n + (size_t)variant),
                          "%sget of %zu bytes into %s memory: byte %zu is 0x%02x",
                          nbi ? "nbi " : "", n, heap_src ? "heap" : "malloc", i, into[i]);
            PE_OK(sym_barrier_all()); /* before the next PE clears its dst again */
        }
    PE_OK(sym_barrier_all());
    free(lsrc);
    free(back);
    sym_free(hsrc);
    sym_free(dst);
}

ParameterizedTestParameters(ofi, transfer_sizes)
{
    return cr_make_param_array(struct ofi_param, params2, 2);
}

ParameterizedTest(struct ofi_param *p, ofi, transfer_sizes, .timeout = HARNESS_CR_TIMEOUT(300))
{
    run_ofi(p, sizes_body);
}

/* ---- every atomic at both widths ------------------------------------------ */

/* PE me works on a word of PE next alone, so the reference is sequential. */
static void atomics_body(int me, int npes, void *arg)
{
    (void)arg;
    const int next = (me + 1) % npes;
    uint64_t *w64 = sym_calloc(1, 8);
    uint32_t *w32 = sym_calloc(2, 4);
    PE_ASSERT(w64 && w32, "sym_calloc: %s", sym_last_error());
    const uint64_t seed64 = 0x8000000100000003ull ^ (uint64_t)me << 40;
    const uint32_t seed32 = 0x80000003u ^ (uint32_t)me << 20;
    const struct amo_step chain64[] = {
        {A_SET, seed64, 0},
        {A_FETCH, 0, 0},
        {A_ADD, 0xFFFFFFFFull, 0},
        {A_FADD, 5, 0},
        {A_INC, 0, 0},
        {A_FINC, 0, 0},
        {A_AND, 0xF0F0F0F0F0F0F0F0ull, 0},
        {A_OR, 0x0101010101010101ull, 0},
        {A_XOR, 0xFFFF0000FFFF0000ull, 0},
        {A_FAND, 0x7FFFFFFFFFFFFFF7ull, 0},
        {A_FOR, 0x8000000000000008ull, 0},
        {A_FXOR, 0x00000000FFFFFFFFull, 0},
        {A_SWAP, 0x123456789ABCDEF0ull, 0},
        {A_CSWAP, 7, 1}, /* fails */
        {A_CSWAP, 0xFEDCBA9876543210ull, 0},
    };
    const struct amo_step chain32[] = {
        {A_SET, seed32, 0},
        {A_FADD, 0xFFFFFFFFu, 0}, /* wraps */
        {A_ADD, 2, 0},
        {A_INC, 0, 0},
        {A_FINC, 0, 0},
        {A_AND, 0xF0F0F0F0u, 0},
        {A_OR, 0x01010101u, 0},
        {A_XOR, 0xFFFF0000u, 0},
        {A_FAND, 0x7FFFFFF7u, 0},
        {A_FOR, 0x80000008u, 0},
        {A_FXOR, 0x0000FFFFu, 0},
        {A_SWAP, 0x9ABCDEF0u, 0},
        {A_CSWAP, 7, 1}, /* fails */
        {A_CSWAP, 0x87654321u, 0},
        {A_FETCH, 0, 0},
    };
    PE_OK(sym_barrier_all());

    const uint64_t ref = run_amo_chain(64, w64, chain64, sizeof chain64 / sizeof chain64[0], next);
    /* 32 bits, next to a guard word that must stay untouched. */
    PE_OK(sym_atomic_set32(&w32[1], 0xA5A5A5A5u, next));
    run_amo_chain(32, w32, chain32, sizeof chain32 / sizeof chain32[0], next);

    PE_OK(sym_barrier_all());
    /* My words were worked on by the previous PE: check them locally. */
    const int prev = (me + npes - 1) % npes;
    (void)prev;
    uint64_t expect64 = 0xFEDCBA9876543210ull;
    PE_ASSERT(*w64 == expect64, "my 64-bit word is %llx", (unsigned long long)*w64);
    PE_ASSERT(w32[0] == 0x87654321u && w32[1] == 0xA5A5A5A5u, "my 32-bit words are %x %x",
              w32[0], w32[1]);
    PE_ASSERT(ref == expect64, "reference drifted");
    PE_OK(sym_barrier_all());
    sym_free(w32);
    sym_free(w64);
}

ParameterizedTestParameters(ofi, every_atomic)
{
    return cr_make_param_array(struct ofi_param, params3, 2);
}

ParameterizedTest(struct ofi_param *p, ofi, every_atomic)
{
    run_ofi(p, atomics_body);
}

/* ---- put-with-signal: the data is there when the signal is -------------- */

#define SIG_ROUNDS 40

static void signal_body(int me, int npes, void *arg)
{
    (void)arg;
    (void)npes;
    const size_t max = 300 * 1024;
    uint8_t *buf = sym_malloc(max);
    uint64_t *sig = sym_calloc(1, 8);
    uint8_t *src = malloc(max);
    PE_ASSERT(buf && sig && src, "allocation failed");
    PE_OK(sym_barrier_all());
    for (uint64_t r = 1; r <= SIG_ROUNDS; r++) {
        size_t n = (size_t)(r * r * r * 7 % max) + 1;
        if (me == 0) {
            for (size_t i = 0; i < n; i++)
                src[i] = pattern(i, (int)r, n);
            /* The signal reaches 10 * r either way: set, or add 10. */
            PE_OK(sym_put_signal(buf, src, n, sig, r % 2 ? 10 * r : 10,
                                 r % 2 ? SYM_SIGNAL_SET : SYM_SIGNAL_ADD, 1));
            /* Wait for the ack before the next round overwrites buf. */
            PE_OK(sym_signal_wait_until(sig, SYM_CMP_GE, r, NULL));
        } else if (me == 1) {
            uint64_t want = 10 * r;
            uint64_t seen = 0;
            PE_OK(sym_signal_wait_until(sig, SYM_CMP_GE, want, &seen));
            PE_ASSERT(seen == want, "round %llu: signal %llu, expected %llu",
                      (unsigned long long)r, (unsigned long long)seen,
                      (unsigned long long)want);
            for (size_t i = 0; i < n; i++)
                PE_ASSERT(buf[i] == pattern(i, (int)r, n),
                          "round %llu: byte %zu of %zu not there when the signal was",
                          (unsigned long long)r, i, n);
            PE_OK(sym_atomic_set64(sig, r, 0));
        }
    }
    PE_OK(sym_barrier_all());
    free(src);
    sym_free(sig);
    sym_free(buf);
}

ParameterizedTestParameters(ofi, put_signal_data_first)
{
    return cr_make_param_array(struct ofi_param, params2, 2);
}

ParameterizedTest(struct ofi_param *p, ofi, put_signal_data_first, .timeout = HARNESS_CR_TIMEOUT(300))
{
    run_ofi(p, signal_body);
}

/* ---- the FI_FENCE branch of put-with-signal --------------------------------- */

/* Neither CI provider offers FI_FENCE; libfabric's sockets does, but also
 * orders writes, so put-with-signal never needs the fence there.
 * SYMHEAP_OFI_IGNORE_ORDER makes the transport treat it as unordered: every
 * signal after data is then posted with FI_FENCE (counted), and must still
 * be seen only after its data. */
static void fenced_body(int me, int npes, void *arg)
{
    struct ofi_transport *t = ofi_of(sym_transport_named("ofi"));
    PE_ASSERT(strcmp(t->prov_name, "sockets") == 0 && t->has_fence && !t->waw_ordered,
              "provider %s, fence %d, writes ordered %d: not the fenced path's set-up",
              t->prov_name, t->has_fence, t->waw_ordered);
    signal_body(me, npes, arg);
    /* PE 0 sent SIG_ROUNDS put-with-signals, each with data */
    PE_ASSERT(t->fenced_signals == (me == 0 ? SIG_ROUNDS : 0u),
              "%llu signals went out with FI_FENCE, expected %u",
              (unsigned long long)t->fenced_signals, me == 0 ? SIG_ROUNDS : 0u);
}

Test(ofi, fenced_signal_over_sockets, .timeout = HARNESS_CR_TIMEOUT(120))
{
    const char *env[] = { "SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=sockets",
                          "SYMHEAP_OFI_IGNORE_ORDER=1", "SYMHEAP_TIMEOUT=60", NULL };
    run_pes_env(2, env, fenced_body, NULL);
}

/* ---- a non-fetching atomic on this PE's own word ------------------------ */

/* Over a provider that orders reads after writes (sockets) a small
 * non-fetching atomic is injected: it may still be in flight when the call
 * returns.  On another PE's word sym_quiet completes it, as in OpenSHMEM;
 * on this PE's own word the next plain load (sym_signal_fetch, a wait) must
 * already see it, and no provider orders that load after the operation. */
#define OWN_ROUNDS 200

static void own_word_body(int me, int npes, void *arg)
{
    (void)arg;
    (void)npes;
    struct ofi_transport *t = ofi_of(sym_transport_named("ofi"));
    PE_ASSERT(t->inject_ok, "provider %s does not inject atomics: not the set-up this tests",
              t->prov_name);
    uint64_t *w = sym_calloc(1, 8);
    uint32_t *h = sym_calloc(1, 8);
    PE_ASSERT(w && h, "allocation failed");
    uint64_t expect = 0;
    uint32_t expect32 = 0;
    for (uint64_t r = 1; r <= OWN_ROUNDS; r++) {
        const uint64_t v = r * 0x9e3779b97f4a7c15ull;
        uint64_t seen = 0;
        if (r % 3 == 0) {
            PE_OK(sym_atomic_add64(w, v, me));
            expect += v;
        } else if (r % 3 == 1) {
            PE_OK(sym_atomic_set64(w, v, me));
            expect = v;
        } else {
            PE_OK(sym_atomic_xor64(w, v, me));
            expect ^= v;
        }
        PE_OK(sym_signal_fetch(w, &seen));
        PE_ASSERT(seen == expect, "round %llu: own word %#llx right after the atomic, expected "
                  "%#llx", (unsigned long long)r, (unsigned long long)seen,
                  (unsigned long long)expect);
        PE_OK(sym_atomic_add32(h, (uint32_t)r, me));
        expect32 += (uint32_t)r;
        PE_ASSERT(__atomic_load_n(h, __ATOMIC_ACQUIRE) == expect32,
                  "round %llu: own 32-bit word %u right after the add, expected %u",
                  (unsigned long long)r, *h, expect32);
    }
    PE_OK(sym_barrier_all());
    sym_free(h);
    sym_free(w);
}

Test(ofi, own_word_atomic_visible_on_return, .timeout = HARNESS_CR_TIMEOUT(120))
{
    const char *env[] = { "SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=sockets",
                          "SYMHEAP_TIMEOUT=60", NULL };
    run_pes_env(2, env, own_word_body, NULL);
}

/* ---- a put after a signal to the same word lands after it ---------------- */

/* The transport lets a put to a PE overtake that PE's atomics still in
 * flight when they touch other words (ofi_order), so a collective's data
 * does not wait for the credit it released just before; a put to the very
 * word of a signal in flight must still land after it.  Each round PE 0
 * sets PE 1's word by a signal and at once puts another value to it; what
 * PE 1 finds after PE 0's quiet must be the put's.  A put to a neighbouring
 * word is checked too (it may overtake, but both must land). */
#define ORDER_ROUNDS 300

static void order_body(int me, int npes, void *arg)
{
    (void)arg;
    (void)npes;
    uint64_t *words = sym_calloc(4, 8);
    uint64_t *data = sym_calloc(1, 8);
    PE_ASSERT(words && data, "allocation failed");
    PE_OK(sym_barrier_all());
    for (uint64_t r = 1; r <= ORDER_ROUNDS; r++) {
        if (me == 0) {
            uint64_t d = r, later = 10 * r + 1, next = 10 * r + 2;
            PE_OK(sym_put_signal(data, &d, 8, &words[1], 10 * r,
                                 r % 2 ? SYM_SIGNAL_SET : SYM_SIGNAL_ADD, 1));
            PE_OK(sym_put(&words[1], &later, 8, 1));
            PE_OK(sym_put(&words[2], &next, 8, 1));
            PE_OK(sym_quiet());
        }
        PE_OK(sym_barrier_all());
        if (me == 1) {
            PE_ASSERT(words[1] == 10 * r + 1,
                      "round %llu: word %llu after a signal then a put to it, expected the "
                      "put's %llu", (unsigned long long)r, (unsigned long long)words[1],
                      (unsigned long long)(10 * r + 1));
            PE_ASSERT(words[2] == 10 * r + 2 && *data == r,
                      "round %llu: neighbour %llu data %llu", (unsigned long long)r,
                      (unsigned long long)words[2], (unsigned long long)*data);
            words[1] = 0; /* the adding rounds start from 0 */
        }
        PE_OK(sym_barrier_all());
    }
    sym_free(data);
    sym_free(words);
}

ParameterizedTestParameters(ofi, put_after_signal_same_word)
{
    return cr_make_param_array(struct ofi_param, params2, 2);
}

ParameterizedTest(struct ofi_param *p, ofi, put_after_signal_same_word,
                  .timeout = HARNESS_CR_TIMEOUT(300))
{
    run_ofi(p, order_body);
}

/* ---- global and static variables: the second registered region ---------- */

#define G_N 5000 /* 40000 bytes: several pages, past inject size and slots */

static uint64_t g_arr[G_N];          /* .bss */
static uint64_t g_init[4] = { 3, 1, 4, 1 }; /* .data */
static uint32_t g_count32;
static uint64_t g_count64;
static uint64_t g_sigbuf[512];
static uint64_t g_sig;
static uint64_t g_src[G_N];           /* a local source that is a global */

static uint64_t gval(int pe, size_t i, unsigned round)
{
    return ((uint64_t)pe << 40) ^ ((uint64_t)round << 32) ^ (i * 2654435761u);
}

static void globals_body(int me, int npes, void *arg)
{
    (void)arg;
    const int right = (me + 1) % npes, left = (me - 1 + npes) % npes;
    PE_ASSERT(g_init[0] == 3 && g_init[2] == 4, "initialised global lost its value");
    /* Forced ofi: a peer's globals are not mapped, mine are. */
    PE_ASSERT(sym_ptr(g_arr, right) == NULL || right == me, "sym_ptr to PE %d's global", right);
    PE_ASSERT(sym_ptr(g_arr, me) != NULL, "sym_ptr to my own global is NULL");

    /* puts of several sizes (inject, slot, registered, staged) and gets */
    static const size_t counts[] = { 1, 7, 8, 9, 64, 1000, G_N };
    for (unsigned r = 0; r < sizeof(counts) / sizeof(counts[0]); r++) {
        size_t n = counts[r];
        uint64_t *src = malloc(G_N * 8);
        PE_ASSERT(src, "malloc");
        for (size_t i = 0; i < G_N; i++)
            src[i] = gval(me, i, r);
        memset(g_arr, 0, sizeof(g_arr));
        PE_OK(sym_barrier_all());
        size_t at = (G_N - n) / 2; /* not at the start of the segment */
        if (r % 2)
            PE_OK(sym_put(&g_arr[at], src, n * 8, right));
        else
            PE_OK(sym_put_nbi(&g_arr[at], src, n * 8, right));
        PE_OK(sym_quiet());
        PE_OK(sym_barrier_all());
        for (size_t i = 0; i < G_N; i++) {
            uint64_t want = i >= at && i < at + n ? gval(left, i - at, r) : 0;
            PE_ASSERT(g_arr[i] == want, "size %zu: g_arr[%zu] = %llx, expected %llx", n, i,
                      (unsigned long long)g_arr[i], (unsigned long long)want);
        }
        memset(src, 0, G_N * 8);
        if (r % 2)
            PE_OK(sym_get(src, &g_arr[at], n * 8, right));
        else {
            PE_OK(sym_get_nbi(src, &g_arr[at], n * 8, right));
            PE_OK(sym_quiet());
        }
        for (size_t i = 0; i < n; i++)
            PE_ASSERT(src[i] == gval(me, i, r), "size %zu: get [%zu] wrong", n, i);
        free(src);
        PE_OK(sym_barrier_all());
    }

    /* a global as the local source of a put into the heap, and as the
     * local destination of a get from a peer's heap */
    uint64_t *h = sym_calloc(G_N, 8);
    PE_ASSERT(h, "sym_calloc: %s", sym_last_error());
    for (size_t i = 0; i < G_N; i++)
        g_src[i] = gval(me, i, 99);
    PE_OK(sym_barrier_all());
    PE_OK(sym_put(h, g_src, sizeof(g_src), right));
    PE_OK(sym_barrier_all());
    for (size_t i = 0; i < G_N; i++)
        PE_ASSERT(h[i] == gval(left, i, 99), "put from a global: h[%zu] wrong", i);
    memset(g_src, 0, sizeof(g_src));
    PE_OK(sym_get(g_src, h, sizeof(g_src), right));
    for (size_t i = 0; i < G_N; i++)
        PE_ASSERT(g_src[i] == gval(me, i, 99), "get into a global: [%zu] wrong", i);
    PE_OK(sym_barrier_all());
    sym_free(h);

    /* atomics from every PE on every PE's globals: exact totals */
    g_count32 = 0;
    g_count64 = 0;
    PE_OK(sym_barrier_all());
    for (int pe = 0; pe < npes; pe++) {
        for (int k = 0; k <= me; k++) {
            PE_OK(sym_atomic_add64(&g_count64, (uint64_t)(pe + 1), pe));
            uint32_t old = 0;
            PE_OK(sym_atomic_fetch_add32(&g_count32, 3, &old, pe));
        }
    }
    PE_OK(sym_barrier_all());
    const uint64_t arrivals = (uint64_t)npes * (npes + 1) / 2;
    PE_ASSERT(g_count64 == arrivals * (uint64_t)(me + 1), "g_count64 = %llu, expected %llu",
              (unsigned long long)g_count64, (unsigned long long)(arrivals * (me + 1)));
    PE_ASSERT(g_count32 == 3 * arrivals, "g_count32 = %u, expected %llu", g_count32,
              (unsigned long long)(3 * arrivals));
    uint64_t seen = 0;
    PE_OK(sym_atomic_fetch64(&seen, &g_count64, right));
    PE_ASSERT(seen == arrivals * (uint64_t)(right + 1), "fetch64 of PE %d: %llu", right,
              (unsigned long long)seen);
    /* compare-and-swap on PE 0: exactly one winner */
    PE_OK(sym_barrier_all());
    uint64_t prev = 0;
    PE_OK(sym_atomic_compare_swap64(&g_count64, arrivals, 1000 + (uint64_t)me, &prev, 0));
    PE_OK(sym_barrier_all());
    uint64_t after = 0;
    PE_OK(sym_atomic_fetch64(&after, &g_count64, 0));
    PE_ASSERT(after >= 1000 && after < 1000 + (uint64_t)npes, "cswap winner %llu",
              (unsigned long long)after);
    PE_ASSERT((prev == arrivals) == (after == 1000 + (uint64_t)me), "cswap result inconsistent");
    uint64_t sw = 0;
    PE_OK(sym_barrier_all());
    PE_OK(sym_atomic_swap64(&g_init[1], 50 + (uint64_t)me, &sw, right));
    PE_OK(sym_barrier_all());
    PE_ASSERT(sw == 1 && g_init[1] == 50 + (uint64_t)left, "swap: old %llu, now %llu",
              (unsigned long long)sw, (unsigned long long)g_init[1]);

    /* put-with-signal: data and signal in globals, the data there first */
    g_sig = 0;
    PE_OK(sym_barrier_all());
    for (unsigned round = 1; round <= 6; round++) {
        size_t n = round % 2 ? 512 : 3; /* registered and slot-sized data */
        uint64_t msg[512];
        for (size_t i = 0; i < n; i++)
            msg[i] = gval(me, i, round);
        PE_OK(sym_put_signal(g_sigbuf, msg, n * 8, &g_sig, 1, SYM_SIGNAL_ADD, right));
        PE_OK(sym_signal_wait_until(&g_sig, SYM_CMP_GE, round, NULL));
        for (size_t i = 0; i < n; i++)
            PE_ASSERT(g_sigbuf[i] == gval(left, i, round), "round %u: g_sigbuf[%zu] wrong",
                      round, i);
        PE_OK(sym_barrier_all()); /* read before the next round overwrites */
    }
    PE_ASSERT(g_sig == 6, "g_sig = %llu", (unsigned long long)g_sig);
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(ofi, globals_rma_amo_signal)
{
    static struct ofi_param params[] = { { 0, 2 }, { 1, 2 }, { 0, 3 }, { 1, 3 } };
    return cr_make_param_array(struct ofi_param, params, 4);
}

ParameterizedTest(struct ofi_param *p, ofi, globals_rma_amo_signal, .timeout = HARNESS_CR_TIMEOUT(300))
{
    run_ofi(p, globals_body);
}

/* The transport itself refuses ranges outside the heap and the globals
 * (the API checks addresses first; this is the last line before the
 * provider), naming the range. */
static void bounds_body(int me, int npes, void *arg)
{
    (void)arg;
    struct sym_transport *tp = sym_transport_named("ofi");
    PE_ASSERT(tp != NULL, "no ofi transport");
    const int right = (me + 1) % npes;
    const uint64_t end = sym_rt.heap_total + sym_rt.globals.len;
    uint64_t word = 0;
    struct sym_deadline dl = sym_deadline_default("bounds");
    PE_ASSERT(sym_rt.globals.len > 0, "no global variables registered");
    /* the last word of the globals is in range: the check is not too strict */
    PE_OK(tp->ops->get(tp, right, &word, end - 8, 8, &dl));
    PE_FAILS_WITH(tp->ops->put(tp, right, end - 4, &word, 8, &dl), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "outside") != NULL, "message: %s", sym_last_error());
    PE_FAILS_WITH(tp->ops->get(tp, right, &word, end, 8, &dl), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(tp->ops->put_nbi(tp, right, UINT64_MAX - 3, &word, 8, &dl), SYM_ERR_INVALID_ARG);
    /* straddling the heap's end and the globals' start: neither region */
    PE_FAILS_WITH(tp->ops->get_nbi(tp, right, &word, sym_rt.heap_total - 4, 8, &dl),
                  SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(tp->ops->atomic(tp, right, end, SYM_AMO_ADD, 8, 1, 0, NULL, &dl),
                  SYM_ERR_INVALID_ARG);
    /* a bad signal word: nothing is written, not even the data */
    PE_FAILS_WITH(tp->ops->put_signal(tp, right, sym_rt.heap_total, &word, 8, end, 1,
                                      SYM_SIGNAL_SET, &dl),
                  SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(tp->ops->put(tp, npes, 0, &word, 8, &dl), SYM_ERR_INVALID_ARG);
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(ofi, out_of_range_refused)
{
    return cr_make_param_array(struct ofi_param, params2, 2);
}

ParameterizedTest(struct ofi_param *p, ofi, out_of_range_refused)
{
    run_ofi(p, bounds_body);
}

/* A blocking get that fails (here: times out on a target that makes no
 * progress) must not write its destination later, when the target finally
 * serves the read: the destination may be a stack frame that is gone by
 * then.  (Seen over tcp;ofi_rxm: a barrier's 8-byte get of a live PE's
 * counter, abandoned when another PE died, landed on a return address in
 * sym_finalize.)  PE 1 stays outside the library until PE 0's get has
 * failed (tcp;ofi_rxm serves reads only inside the target's libfabric
 * calls), then both meet in a barrier and PE 0's next operation, which
 * first completes everything in flight, shows the late read went nowhere.
 * PE 0 issues its get only once PE 1 has left the barrier before (its
 * idle file): while PE 1 was still inside, it served the read (CI, under
 * ASan: the get returned SYM_OK).  Meanwhile PE 0 keeps driving progress,
 * which PE 1's way out of that barrier may need. */
static char late_read_flag[128];
static char late_idle_flag[140];

static void late_read_body(int me, int npes, void *arg)
{
    (void)npes;
    (void)arg;
    struct sym_transport *tp = sym_transport_named("ofi");
    PE_ASSERT(tp != NULL, "no ofi transport");
    uint64_t *word = sym_malloc(8);
    PE_ASSERT(word != NULL, "sym_malloc: %s", sym_last_error());
    const uint64_t off = (uint64_t)((uint8_t *)word - (uint8_t *)sym_rt.base);
    const uint64_t remote = 0x1122334455667788u, sentinel = 0x5a5a5a5a5a5a5a5au;
    *word = remote;
    PE_OK(sym_barrier_all());
    if (me == 1) {
        /* no symheap call until PE 0 says its get has failed */
        FILE *idle = fopen(late_idle_flag, "w");
        PE_ASSERT(idle != NULL, "cannot create %s", late_idle_flag);
        fclose(idle);
        const double deadline = harness_now() + harness_seconds(60);
        while (access(late_read_flag, F_OK) != 0) {
            struct timespec ts = { 0, 1000000 };
            nanosleep(&ts, NULL);
            PE_ASSERT(harness_now() < deadline, "PE 0 never reported its get's timeout");
        }
        PE_OK(sym_barrier_all());
    } else {
        uint64_t *dst = malloc(8); /* not registered: read straight in before the fix */
        PE_ASSERT(dst != NULL, "malloc");
        *dst = sentinel;
        const double idle_by = harness_now() + harness_seconds(60);
        while (access(late_idle_flag, F_OK) != 0) {
            uint64_t ignored;
            PE_OK(sym_signal_fetch(word, &ignored)); /* drives progress */
            PE_ASSERT(harness_now() < idle_by, "PE 1 never left the barrier");
            struct timespec ts = { 0, 1000000 };
            nanosleep(&ts, NULL);
        }
        struct sym_deadline soon = sym_deadline_in("sym_get", 1.0);
        PE_FAILS_WITH(tp->ops->get(tp, 1, dst, off, 8, &soon), SYM_ERR_TIMEOUT);
        PE_ASSERT(*dst == sentinel, "the failed get wrote its destination: %#" PRIx64, *dst);
        FILE *f = fopen(late_read_flag, "w");
        PE_ASSERT(f != NULL, "cannot create %s", late_read_flag);
        fclose(f);
        PE_OK(sym_barrier_all());
        uint64_t again = 0;
        struct sym_deadline dl = sym_deadline_default("sym_get");
        PE_OK(tp->ops->get(tp, 1, &again, off, 8, &dl));
        PE_ASSERT(again == remote, "the second get read %#" PRIx64, again);
        PE_ASSERT(*dst == sentinel, "the failed get's read landed after it returned: %#" PRIx64,
                  *dst);
        free(dst);
        unlink(late_read_flag);
        unlink(late_idle_flag);
    }
    PE_OK(sym_barrier_all());
    sym_free(word);
}

Test(ofi, failed_get_never_lands_later, .timeout = HARNESS_CR_TIMEOUT(120))
{
    snprintf(late_read_flag, sizeof(late_read_flag), "/tmp/symheap-test-late-read-%d",
             (int)getpid());
    snprintf(late_idle_flag, sizeof(late_idle_flag), "%s-idle", late_read_flag);
    unlink(late_read_flag);
    unlink(late_idle_flag);
    struct ofi_param p = { 0, 2 }; /* tcp;ofi_rxm: reads need the target's progress */
    run_ofi(&p, late_read_body);
    unlink(late_read_flag);
    unlink(late_idle_flag);
}

/* A provider's error reaches the caller as SYM_ERR_TRANSPORT with the
 * provider's own words: PE 0 uses a wrong key for PE 1's heap (as a stale
 * or corrupted key exchange would), so PE 1's provider refuses the write
 * and PE 0's completion queue gets an error entry.  The message names the
 * operation, the target PE, the provider and the provider's text
 * (fi_cq_strerror, in parentheses).  PE 1 stays alive, so the error is not
 * mistaken for a lost peer.  Over tcp;ofi_rxm: libfabric 1.17's shm
 * provider does not fail such a write, it answers -FI_EAGAIN until the
 * operation's deadline (SYM_ERR_TIMEOUT "kept answering -FI_EAGAIN"). */
static char provider_error_flag[128];

static void provider_error_body(int me, int npes, void *arg)
{
    (void)npes;
    (void)arg;
    PE_OK(sym_init());
    struct ofi_transport *t = ofi_of(sym_transport_named("ofi"));
    uint64_t *word = sym_calloc(1, 8);
    PE_ASSERT(word != NULL, "sym_calloc: %s", sym_last_error());
    PE_OK(sym_barrier_all());
    if (me == 1) {
        /* serve PE 0's write (manual progress) until it has its error */
        const double deadline = harness_now() + harness_seconds(60);
        while (access(provider_error_flag, F_OK) != 0) {
            PE_OK(sym_transport_named("ofi")->ops->progress(sym_transport_named("ofi")));
            struct timespec ts = { 0, 1000000 };
            nanosleep(&ts, NULL);
            PE_ASSERT(harness_now() < deadline, "PE 0 never reported its failed put");
        }
        PE_ASSERT(*word == 0, "a put with a wrong key wrote PE 1's heap: %#" PRIx64, *word);
    } else {
        t->rkey[1] ^= 0x5a5a5a5a00000000u; /* no provider hands out such a key */
        const uint64_t v = 0x0123456789abcdefu;
        /* a small blocking put returns once posted: its quiet fails */
        sym_status_t st = sym_put(word, &v, 8, 1);
        PE_ASSERT(st == SYM_OK || st == SYM_ERR_TRANSPORT, "sym_put returned %s: %s",
                  sym_status_name(st), sym_last_error());
        if (st == SYM_OK)
            PE_FAILS_WITH(sym_quiet(), SYM_ERR_TRANSPORT);
        const char *msg = sym_last_error();
        const char *want = "libfabric sym_put to PE 1 failed on provider tcp;ofi_rxm: ";
        PE_ASSERT(strstr(msg, want) && strchr(strstr(msg, want), '('),
                  "the error does not name the operation, the PE, the provider and its "
                  "text: %s",
                  msg);
        /* sticky: the next operation reports it at once */
        PE_FAILS_WITH(sym_quiet(), SYM_ERR_TRANSPORT);
        FILE *f = fopen(provider_error_flag, "w");
        PE_ASSERT(f != NULL, "cannot create %s", provider_error_flag);
        fclose(f);
    }
    /* PE 0's transport stays failed, so its finalize barrier fails and it
     * leaves; PE 1's then waits for it until its (short) timeout. */
    sym_status_t st = sym_finalize();
    PE_ASSERT(me == 0 ? st == SYM_ERR_TRANSPORT
                      : st == SYM_ERR_TIMEOUT || st == SYM_ERR_PEER_LOST || st == SYM_OK,
              "sym_finalize returned %s: %s", sym_status_name(st), sym_last_error());
}

Test(ofi, provider_error_is_a_transport_error, .timeout = HARNESS_CR_TIMEOUT(120))
{
    snprintf(provider_error_flag, sizeof(provider_error_flag),
             "/tmp/symheap-test-provider-error-%d", (int)getpid());
    unlink(provider_error_flag);
    const char *env[] = { "SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
                          "SYMHEAP_INIT_TIMEOUT=60", harness_timeout_env(5), NULL };
    struct pe_job job = { .npes = 2, .body = provider_error_body, .raw = true, .env = env };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    unlink(provider_error_flag);
    assert_job_ok(&out);
}
