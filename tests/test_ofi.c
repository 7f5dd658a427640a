/* test_ofi.c - what is particular to the libfabric transport, forced for
 * every peer on one host (SYMHEAP_TRANSPORT=ofi) over two providers that
 * differ where it matters: tcp;ofi_rxm (scalable keys, 64-byte inject, no
 * ordering) and libfabric's shm (4 KiB inject, ordered).  Provider choice
 * and its errors, transfers on both sides of the inject size and of the
 * bounce buffer from registered and unregistered memory, every atomic at
 * both widths against a local reference, put-with-signal ordering
 * (global variables, refused ranges and error entries: test_ofi_regions.c). */
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
#include "ofi_check.h"
#include "core/internal.h"
#include "transport_of.h"
#include "ofi/ofi.h"
#include "ofi/ofi_private.h"

static struct ofi_param params2[] = {{0, 2}, {1, 2}};
static struct ofi_param params3[] = {{0, 3}, {1, 3}};

/* ---- provider choice ------------------------------------------------------ */

static void chosen_body(int me, int npes, void *arg)
{
    const struct ofi_param *p = arg;
    PE_ASSERT(test_transport("ofi") != NULL, "no ofi transport although SYMHEAP_TRANSPORT=ofi");
    const char *prov = ofi_transport_provider(test_transport("ofi"));
    PE_ASSERT(strcmp(prov, ofi_providers[p->provider]) == 0, "provider %s, asked for %s", prov,
              ofi_providers[p->provider]);
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
    PE_ASSERT(strstr(msg, "SYMHEAP_OFI_PROVIDER=no-such-provider") && strstr(msg, "tcp;ofi_rxm"),
              "message does not name the variable and what exists: %s", msg);
}

Test(ofi, missing_provider_is_a_clear_init_error)
{
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=no-such-provider", NULL};
    struct pe_job job = {.npes = 2, .body = missing_body, .raw = true, .env = env};
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
              "message does not name the provider, the missing atomic and the way out: %s", msg);
}

Test(ofi, missing_atomic_is_a_clear_init_error)
{
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=net", NULL};
    struct pe_job job = {.npes = 2, .body = lacking_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ---- transfers around the inject size and the bounce buffer --------------- */

static uint8_t pattern(size_t i, int from, size_t size)
{
    return (uint8_t)(i * 131u + (unsigned)from * 17u + size * 7u + 1u);
}

static const size_t sizes[] = {1,
                               7,
                               8,
                               63,
                               64,
                               65,
                               4095,
                               4096,
                               4097,
                               65536 + 3,
                               256 * 1024,
                               256 * 1024 + 1,
                               3 * 1024 * 1024 + 5};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSZ  (3 * 1024 * 1024 + 5)

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
                          "%s%s put of %zu bytes from PE %d: byte %zu is 0x%02x", nbi ? "nbi " : "",
                          heap_src ? "heap" : "malloc", n, prev, i, dst[i]);
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
    PE_ASSERT(w32[0] == 0x87654321u && w32[1] == 0xA5A5A5A5u, "my 32-bit words are %x %x", w32[0],
              w32[1]);
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

/* PE 0 puts SIG_ROUNDS messages of varying length into PE 1's buf, each
 * with a signal, and waits for PE 1's acknowledgement (an atomic). */
static void signal_rounds(int me, uint8_t *buf, uint64_t *sig, uint8_t *src, size_t max)
{
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
            PE_ASSERT(seen == want, "round %llu: signal %llu, expected %llu", (unsigned long long)r,
                      (unsigned long long)seen, (unsigned long long)want);
            for (size_t i = 0; i < n; i++)
                PE_ASSERT(buf[i] == pattern(i, (int)r, n),
                          "round %llu: byte %zu of %zu not there when the signal was",
                          (unsigned long long)r, i, n);
            PE_OK(sym_atomic_set64(sig, r, 0));
        }
    }
}

/* The rounds between two world barriers; `count_p`, if given, gets the
 * ofi transport's fenced signals of the rounds alone (no barrier line). */
static void signal_test(int me, uint64_t *count_p)
{
    const size_t max = 300 * 1024;
    uint8_t *buf = sym_malloc(max);
    uint64_t *sig = sym_calloc(1, 8);
    uint8_t *src = malloc(max);
    PE_ASSERT(buf && sig && src, "allocation failed");
    PE_OK(sym_barrier_all());
    const struct ofi_transport *t = count_p ? ofi_of(test_transport("ofi")) : NULL;
    const uint64_t before = t ? t->fenced_signals : 0;
    signal_rounds(me, buf, sig, src, max);
    if (t)
        *count_p = t->fenced_signals - before;
    PE_OK(sym_barrier_all());
    free(src);
    sym_free(sig);
    sym_free(buf);
}

static void signal_body(int me, int npes, void *arg)
{
    (void)arg;
    (void)npes;
    signal_test(me, NULL);
}

ParameterizedTestParameters(ofi, put_signal_data_first)
{
    return cr_make_param_array(struct ofi_param, params2, 2);
}

ParameterizedTest(struct ofi_param *p, ofi, put_signal_data_first,
                  .timeout = HARNESS_CR_TIMEOUT(300))
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
    struct ofi_transport *t = ofi_of(test_transport("ofi"));
    PE_ASSERT(strcmp(t->prov_name, "sockets") == 0 && t->has_fence && !t->waw_ordered,
              "provider %s, fence %d, writes ordered %d: not the fenced path's set-up",
              t->prov_name, t->has_fence, t->waw_ordered);
    (void)npes;
    (void)arg;
    uint64_t fenced = 0;
    signal_test(me, &fenced);
    /* PE 0 sent SIG_ROUNDS put-with-signals, each with data */
    const uint64_t want = me == 0 ? SIG_ROUNDS : 0u;
    PE_ASSERT(fenced == want, "%llu signals went out with FI_FENCE, expected %llu",
              (unsigned long long)fenced, (unsigned long long)want);
}

Test(ofi, fenced_signal_over_sockets, .timeout = HARNESS_CR_TIMEOUT(120))
{
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=sockets",
                         "SYMHEAP_OFI_IGNORE_ORDER=1", "SYMHEAP_TIMEOUT=60", NULL};
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
    struct ofi_transport *t = ofi_of(test_transport("ofi"));
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
        PE_ASSERT(seen == expect,
                  "round %llu: own word %#llx right after the atomic, expected "
                  "%#llx",
                  (unsigned long long)r, (unsigned long long)seen, (unsigned long long)expect);
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
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=sockets",
                         "SYMHEAP_TIMEOUT=60", NULL};
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
                      "put's %llu",
                      (unsigned long long)r, (unsigned long long)words[1],
                      (unsigned long long)(10 * r + 1));
            PE_ASSERT(words[2] == 10 * r + 2 && *data == r, "round %llu: neighbour %llu data %llu",
                      (unsigned long long)r, (unsigned long long)words[2],
                      (unsigned long long)*data);
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
