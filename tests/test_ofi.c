/* test_ofi.c - what is particular to the libfabric transport, forced for
 * every peer on one host (SYMHEAP_TRANSPORT=ofi) over two providers that
 * differ where it matters: tcp;ofi_rxm (scalable keys, 64-byte inject, no
 * ordering) and libfabric's shm (4 KiB inject, ordered).  Provider choice
 * and its errors, transfers on both sides of the inject size and of the
 * bounce buffer from registered and unregistered memory, every atomic at
 * both widths against a local reference, and put-with-signal ordering. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "internal.h"
#include "ofi/ofi.h"

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
    PE_ASSERT(sym_rt.ofi != NULL, "no ofi transport although SYMHEAP_TRANSPORT=ofi");
    const char *prov = ofi_transport_provider(sym_rt.ofi);
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

ParameterizedTest(struct ofi_param *p, ofi, transfer_sizes, .timeout = 300)
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
    uint64_t ref = 0, old = 0;
    uint32_t ref32 = 0, old32 = 0;
    PE_OK(sym_barrier_all());

    PE_OK(sym_atomic_set64(w64, seed64, next));
    ref = seed64;
    PE_OK(sym_atomic_fetch64(&old, w64, next));
    PE_ASSERT(old == ref, "fetch64 %llx != %llx", (unsigned long long)old,
              (unsigned long long)ref);
    PE_OK(sym_atomic_add64(w64, 0xFFFFFFFFull, next));
    ref += 0xFFFFFFFFull;
    PE_OK(sym_atomic_fetch_add64(w64, 5, &old, next));
    PE_ASSERT(old == ref, "fetch_add64 old %llx != %llx", (unsigned long long)old,
              (unsigned long long)ref);
    ref += 5;
    PE_OK(sym_atomic_inc64(w64, next));
    ref++;
    PE_OK(sym_atomic_fetch_inc64(w64, &old, next));
    PE_ASSERT(old == ref, "fetch_inc64");
    ref++;
    PE_OK(sym_atomic_and64(w64, 0xF0F0F0F0F0F0F0F0ull, next));
    ref &= 0xF0F0F0F0F0F0F0F0ull;
    PE_OK(sym_atomic_or64(w64, 0x0101010101010101ull, next));
    ref |= 0x0101010101010101ull;
    PE_OK(sym_atomic_xor64(w64, 0xFFFF0000FFFF0000ull, next));
    ref ^= 0xFFFF0000FFFF0000ull;
    PE_OK(sym_atomic_fetch_and64(w64, 0x7FFFFFFFFFFFFFF7ull, &old, next));
    PE_ASSERT(old == ref, "fetch_and64");
    ref &= 0x7FFFFFFFFFFFFFF7ull;
    PE_OK(sym_atomic_fetch_or64(w64, 0x8000000000000008ull, &old, next));
    PE_ASSERT(old == ref, "fetch_or64");
    ref |= 0x8000000000000008ull;
    PE_OK(sym_atomic_fetch_xor64(w64, 0x00000000FFFFFFFFull, &old, next));
    PE_ASSERT(old == ref, "fetch_xor64");
    ref ^= 0x00000000FFFFFFFFull;
    PE_OK(sym_atomic_swap64(w64, 0x123456789ABCDEF0ull, &old, next));
    PE_ASSERT(old == ref, "swap64");
    ref = 0x123456789ABCDEF0ull;
    PE_OK(sym_atomic_compare_swap64(w64, ref + 1, 7, &old, next)); /* fails */
    PE_ASSERT(old == ref, "failed compare_swap64 returned %llx", (unsigned long long)old);
    PE_OK(sym_atomic_compare_swap64(w64, ref, 0xFEDCBA9876543210ull, &old, next));
    PE_ASSERT(old == ref, "compare_swap64");
    ref = 0xFEDCBA9876543210ull;

    /* 32 bits, next to a guard word that must stay untouched. */
    PE_OK(sym_atomic_set32(&w32[1], 0xA5A5A5A5u, next));
    PE_OK(sym_atomic_set32(w32, seed32, next));
    ref32 = seed32;
    PE_OK(sym_atomic_fetch_add32(w32, 0xFFFFFFFFu, &old32, next)); /* wraps */
    PE_ASSERT(old32 == ref32, "fetch_add32");
    ref32 += 0xFFFFFFFFu;
    PE_OK(sym_atomic_add32(w32, 2, next));
    ref32 += 2;
    PE_OK(sym_atomic_inc32(w32, next));
    ref32++;
    PE_OK(sym_atomic_fetch_inc32(w32, &old32, next));
    PE_ASSERT(old32 == ref32, "fetch_inc32");
    ref32++;
    PE_OK(sym_atomic_and32(w32, 0xF0F0F0F0u, next));
    ref32 &= 0xF0F0F0F0u;
    PE_OK(sym_atomic_or32(w32, 0x01010101u, next));
    ref32 |= 0x01010101u;
    PE_OK(sym_atomic_xor32(w32, 0xFFFF0000u, next));
    ref32 ^= 0xFFFF0000u;
    PE_OK(sym_atomic_fetch_and32(w32, 0x7FFFFFF7u, &old32, next));
    PE_ASSERT(old32 == ref32, "fetch_and32");
    ref32 &= 0x7FFFFFF7u;
    PE_OK(sym_atomic_fetch_or32(w32, 0x80000008u, &old32, next));
    PE_ASSERT(old32 == ref32, "fetch_or32");
    ref32 |= 0x80000008u;
    PE_OK(sym_atomic_fetch_xor32(w32, 0x0000FFFFu, &old32, next));
    PE_ASSERT(old32 == ref32, "fetch_xor32");
    ref32 ^= 0x0000FFFFu;
    PE_OK(sym_atomic_swap32(w32, 0x9ABCDEF0u, &old32, next));
    PE_ASSERT(old32 == ref32, "swap32");
    ref32 = 0x9ABCDEF0u;
    PE_OK(sym_atomic_compare_swap32(w32, ref32 + 1, 7, &old32, next));
    PE_ASSERT(old32 == ref32, "failed compare_swap32");
    PE_OK(sym_atomic_compare_swap32(w32, ref32, 0x87654321u, &old32, next));
    PE_ASSERT(old32 == ref32, "compare_swap32");
    ref32 = 0x87654321u;
    PE_OK(sym_atomic_fetch32(&old32, w32, next));
    PE_ASSERT(old32 == ref32, "fetch32 %x != %x", old32, ref32);

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

ParameterizedTest(struct ofi_param *p, ofi, put_signal_data_first, .timeout = 300)
{
    run_ofi(p, signal_body);
}
