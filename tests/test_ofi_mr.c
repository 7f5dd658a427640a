/* test_ofi_mr.c - the ofi transport's mr_mode paths, run for real on
 * providers that need none of them: SYMHEAP_OFI_MR_FORCE makes the
 * transport behave as if tcp;ofi_rxm or libfabric's shm required
 * FI_MR_LOCAL (descriptors, unregistered memory staged through the
 * registered bounce buffer), FI_MR_PROV_KEY (keys differ on every PE, or
 * the provider chooses them), FI_MR_ENDPOINT (regions bound to the
 * endpoint where the provider implements it) and FI_MR_ALLOCATED, one at a
 * time and all together; over shm, which offers it, FI_MR_VIRT_ADDR (peers'
 * memory addressed by the virtual addresses they exchanged), alone and with
 * the rest.  Each job first checks that the mode took effect,
 * then moves data between unregistered stack and malloc memory and peers'
 * heaps, across the bounce buffer's size, runs every fetching atomic with
 * operands and results in unregistered memory, put-with-signal from
 * malloc'd memory, two collectives and puts, gets and an atomic on global
 * variables, all against local references. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/internal.h"
#include "transport_of.h"
#include "ofi/ofi_fabric.h"
#include "ofi/ofi.h"

static const char *const providers[] = {"tcp;ofi_rxm", "shm"};
/* virt_addr only over shm, the one provider here offering FI_MR_VIRT_ADDR
 * (its entry that answers the ordering query does not list it, so without
 * the word peers are addressed by offsets there too) */
static const char *const modes[] = {"local",
                                    "prov_key",
                                    "endpoint",
                                    "allocated",
                                    "all",
                                    "virt_addr",
                                    "local,virt_addr",
                                    "prov_key,virt_addr",
                                    "endpoint,virt_addr",
                                    "allocated,virt_addr",
                                    "all,virt_addr"};
#define NMODES_ANY 5 /* the first five run on both providers */
#define NMODES     (sizeof(modes) / sizeof(modes[0]))

struct mr_param {
    int provider; /* index into providers */
    int mode;     /* index into modes */
    int npes;
};

static uint64_t mode_bits(int mode)
{
    static const uint64_t bits[] = {FI_MR_LOCAL, FI_MR_PROV_KEY, FI_MR_ENDPOINT, FI_MR_ALLOCATED,
                                    FI_MR_LOCAL | FI_MR_PROV_KEY | FI_MR_ENDPOINT |
                                        FI_MR_ALLOCATED};
    if (mode < NMODES_ANY)
        return bits[mode];
    /* virt_addr alone, then with each of the above */
    return FI_MR_VIRT_ADDR | (mode == NMODES_ANY ? 0 : bits[mode - NMODES_ANY - 1]);
}

static void run_mr(const struct mr_param *p, pe_body_fn body)
{
    char prov[96], force[96];
    snprintf(prov, sizeof(prov), "SYMHEAP_OFI_PROVIDER=%s", providers[p->provider]);
    snprintf(force, sizeof(force), "SYMHEAP_OFI_MR_FORCE=%s", modes[p->mode]);
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", prov, force, "SYMHEAP_TIMEOUT=120", NULL};
    run_pes_env(p->npes, env, body, (void *)p);
}

/* Every provider and mode at 2 PEs, and everything forced at 3; over shm
 * also virt_addr alone and with each mode at 2 PEs, with everything at 3. */
#define NPARAMS (2 * NMODES_ANY + 2 + (NMODES - NMODES_ANY) + 1)
static struct mr_param params[NPARAMS];

ParameterizedTestParameters(ofi_mr, forced)
{
    int n = 0;
    for (int prov = 0; prov < 2; prov++) {
        for (int m = 0; m < NMODES_ANY; m++)
            params[n++] = (struct mr_param){prov, m, 2};
        params[n++] = (struct mr_param){prov, 4, 3};
    }
    for (int m = NMODES_ANY; m < (int)NMODES; m++)
        params[n++] = (struct mr_param){1, m, 2};
    params[n++] = (struct mr_param){1, (int)NMODES - 1, 3};
    return cr_make_param_array(struct mr_param, params, NPARAMS);
}

static uint8_t pattern(size_t i, int from, size_t size)
{
    return (uint8_t)(i * 167u + (unsigned)from * 29u + size * 3u + 5u);
}

/* Bounce buffer: 256 KiB (OFI_BOUNCE_BYTES); sizes on both sides of it and
 * of the 64-byte inject size and slots. */
static const size_t sizes[] = {1,
                               8,
                               63,
                               64,
                               65,
                               4096,
                               256 * 1024 - 1,
                               256 * 1024,
                               256 * 1024 + 1,
                               600 * 1024 + 3,
                               1024 * 1024 + 7};
#define NSIZES  (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSZ   (1024 * 1024 + 7)
#define STACKSZ 2048

/* The mode is the one asked for, and does what it says. */
static void check_mode(const struct mr_param *p, int me, int npes)
{
    PE_ASSERT(test_transport("ofi") != NULL, "no ofi transport although SYMHEAP_TRANSPORT=ofi");
    struct ofi_mr_state s;
    ofi_transport_mr_state(test_transport("ofi"), me, &s);
    const uint64_t want = mode_bits(p->mode);
    PE_ASSERT(s.forced == want && (s.mr_mode & want) == want,
              "%s: forced 0x%llx, mr_mode 0x%llx, expected the bits 0x%llx", modes[p->mode],
              (unsigned long long)s.forced, (unsigned long long)s.mr_mode,
              (unsigned long long)want);
    /* Under FI_MR_VIRT_ADDR every peer's heap and global variables are
     * addressed by the addresses that peer exchanged (mine: my own); else
     * by offsets from 0.  Forked PEs may map their heaps at one address,
     * so a peer's base is checked non-zero, mine equal to my mapping. */
    const bool virt = (s.mr_mode & FI_MR_VIRT_ADDR) != 0;
    PE_ASSERT(virt == ((want & FI_MR_VIRT_ADDR) != 0), "%s: mr_mode 0x%llx %s FI_MR_VIRT_ADDR",
              modes[p->mode], (unsigned long long)s.mr_mode, virt ? "has" : "lacks");
    for (int pe = 0; pe < npes; pe++) {
        struct ofi_mr_state q;
        ofi_transport_mr_state(test_transport("ofi"), pe, &q);
        if (!virt) {
            PE_ASSERT(q.base_of_pe == 0 && q.data_base_of_pe == 0,
                      "no FI_MR_VIRT_ADDR, yet "
                      "PE %d's heap is at 0x%llx, its globals at 0x%llx",
                      pe, (unsigned long long)q.base_of_pe, (unsigned long long)q.data_base_of_pe);
            continue;
        }
        PE_ASSERT(q.base_of_pe != 0 && (pe != me || q.base_of_pe == q.heap_addr),
                  "FI_MR_VIRT_ADDR: PE %d's heap base is 0x%llx (mine is at 0x%llx)", pe,
                  (unsigned long long)q.base_of_pe, (unsigned long long)q.heap_addr);
        PE_ASSERT(q.data_addr == 0 ||
                      (q.data_base_of_pe != 0 && (pe != me || q.data_base_of_pe == q.data_addr)),
                  "FI_MR_VIRT_ADDR: PE %d's globals base is 0x%llx (mine are at 0x%llx)", pe,
                  (unsigned long long)q.data_base_of_pe, (unsigned long long)q.data_addr);
    }
    if (!(want & FI_MR_PROV_KEY))
        return;
    /* The key of every peer's heap is the one that peer exchanged: on tcp
     * the random key each PE asked for (so different on every PE), on shm
     * one the provider chose instead of ours. */
    ofi_transport_mr_state(test_transport("ofi"), me, &s);
    const uint64_t asked = s.asked_key;
    if (p->provider == 0)
        PE_ASSERT(s.key_of_pe == asked, "my heap key is %llu, I asked for %llu",
                  (unsigned long long)s.key_of_pe, (unsigned long long)asked);
    else
        PE_ASSERT(s.key_of_pe != asked, "shm did not choose my key (%llu)",
                  (unsigned long long)s.key_of_pe);
    for (int pe = 0; pe < npes; pe++) {
        struct ofi_mr_state a, b;
        ofi_transport_mr_state(test_transport("ofi"), pe, &a);
        for (int other = pe + 1; other < npes && p->provider == 0; other++) {
            ofi_transport_mr_state(test_transport("ofi"), other, &b);
            PE_ASSERT(a.key_of_pe != b.key_of_pe, "PEs %d and %d share the heap key %llu", pe,
                      other, (unsigned long long)a.key_of_pe);
        }
    }
}

static uint64_t staged_now(int me)
{
    struct ofi_mr_state s;
    ofi_transport_mr_state(test_transport("ofi"), me, &s);
    return s.staged;
}

/* Puts from, and gets into, unregistered stack and malloc memory. */
static void rma_part(const struct mr_param *p, int me, int npes)
{
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    const bool local = mode_bits(p->mode) & FI_MR_LOCAL;
    uint8_t *dst = sym_malloc(MAXSZ + 64);
    uint8_t *src = malloc(MAXSZ), *back = malloc(MAXSZ + 64);
    PE_ASSERT(dst && src && back, "allocation failed: %s", sym_last_error());
    for (size_t k = 0; k < NSIZES; k++)
        for (int variant = 0; variant < 3; variant++) {
            const size_t n = sizes[k];
            /* 0: blocking from malloc, 1: nbi from malloc, 2: from the stack */
            if (variant == 2 && n > STACKSZ)
                continue;
            uint8_t stack_src[STACKSZ], stack_back[STACKSZ + 64];
            uint8_t *s = variant == 2 ? stack_src : src;
            uint8_t *b = variant == 2 ? stack_back : back;
            const size_t tag = n + (size_t)variant;
            for (size_t i = 0; i < n; i++)
                s[i] = pattern(i, me, tag);
            memset(dst, 0xEE, n + 64);
            PE_OK(sym_barrier_all());
            const uint64_t before = staged_now(me);
            if (variant == 1) {
                PE_OK(sym_put_nbi(dst, s, n, next));
                PE_OK(sym_quiet());
            } else {
                PE_OK(sym_put(dst, s, n, next));
            }
            const uint64_t staged = staged_now(me) - before;
            PE_ASSERT(local ? staged >= (n + 256 * 1024 - 1) / (256 * 1024) : staged == 0,
                      "put of %zu unregistered bytes went %llu times through the bounce "
                      "buffer (FI_MR_LOCAL %s)",
                      n, (unsigned long long)staged, local ? "forced" : "not forced");
            memset(s, 0, n); /* the transport must not read it after return */
            PE_OK(sym_barrier_all());
            for (size_t i = 0; i < n; i++)
                PE_ASSERT(dst[i] == pattern(i, prev, tag),
                          "%s put of %zu bytes from PE %d: "
                          "byte %zu is 0x%02x",
                          variant == 2 ? "stack" : "malloc", n, prev, i, dst[i]);
            for (size_t i = n; i < n + 64; i++)
                PE_ASSERT(dst[i] == 0xEE, "put of %zu bytes wrote past its end at %zu", n, i);
            /* read the next PE's copy (written by me) into unregistered memory */
            memset(b, 0xCC, n + 64);
            if (variant == 1) {
                PE_OK(sym_get_nbi(b, dst, n, next));
                PE_OK(sym_quiet());
            } else {
                PE_OK(sym_get(b, dst, n, next));
            }
            for (size_t i = 0; i < n; i++)
                PE_ASSERT(b[i] == pattern(i, me, tag),
                          "%s get of %zu bytes from PE %d: byte "
                          "%zu is 0x%02x",
                          variant == 2 ? "stack" : "malloc", n, next, i, b[i]);
            for (size_t i = n; i < n + 64; i++)
                PE_ASSERT(b[i] == 0xCC, "get of %zu bytes wrote past its end at %zu", n, i);
            PE_OK(sym_barrier_all());
        }
    free(src);
    free(back);
    sym_free(dst);
}

/* Fetching atomics: operands are values in my stack frame, results land
 * in unregistered stack variables; every PE works on the next PE's words. */
static void amo_part(int me, int npes)
{
    const int next = (me + 1) % npes;
    uint64_t *w64 = sym_malloc(8);
    uint32_t *w32 = sym_malloc(8);
    PE_ASSERT(w64 && w32, "sym_malloc: %s", sym_last_error());
    *w64 = 0;
    w32[0] = 0;
    w32[1] = 0xA5A5A5A5u;
    PE_OK(sym_barrier_all());
    volatile uint64_t operand = 0x0123456789ABCDEFull ^ (uint64_t)me;
    uint64_t ref = 0, old = 1;
    PE_OK(sym_atomic_fetch_add64(w64, operand, &old, next));
    PE_ASSERT(old == ref, "fetch_add64 old %llx", (unsigned long long)old);
    ref += operand;
    PE_OK(sym_atomic_add64(w64, operand, next));
    ref += operand;
    PE_OK(sym_atomic_fetch_xor64(w64, ~operand, &old, next));
    PE_ASSERT(old == ref, "fetch_xor64");
    ref ^= ~operand;
    PE_OK(sym_atomic_compare_swap64(w64, ref ^ 1, 5, &old, next));
    PE_ASSERT(old == ref, "failed compare_swap64");
    PE_OK(sym_atomic_compare_swap64(w64, ref, operand * 3, &old, next));
    PE_ASSERT(old == ref, "compare_swap64");
    ref = operand * 3;
    PE_OK(sym_atomic_swap64(w64, ref + 11, &old, next));
    PE_ASSERT(old == ref, "swap64");
    ref += 11;
    PE_OK(sym_atomic_fetch64(&old, w64, next));
    PE_ASSERT(old == ref, "fetch64 %llx != %llx", (unsigned long long)old, (unsigned long long)ref);

    uint32_t ref32 = 0, old32 = 1, op32 = 0x9E3779B9u + (uint32_t)me;
    PE_OK(sym_atomic_fetch_add32(w32, op32, &old32, next));
    PE_ASSERT(old32 == ref32, "fetch_add32");
    ref32 += op32;
    PE_OK(sym_atomic_fetch_or32(w32, 0x80000001u, &old32, next));
    PE_ASSERT(old32 == ref32, "fetch_or32");
    ref32 |= 0x80000001u;
    PE_OK(sym_atomic_compare_swap32(w32, ref32, 0x12345678u, &old32, next));
    PE_ASSERT(old32 == ref32, "compare_swap32");
    ref32 = 0x12345678u;
    PE_OK(sym_atomic_fetch32(&old32, w32, next));
    PE_ASSERT(old32 == ref32, "fetch32 %x != %x", old32, ref32);
    PE_OK(sym_barrier_all());
    const int prev = (me + npes - 1) % npes;
    const uint64_t pop = 0x0123456789ABCDEFull ^ (uint64_t)prev;
    PE_ASSERT(*w64 == pop * 3 + 11, "my 64-bit word is %llx", (unsigned long long)*w64);
    PE_ASSERT(w32[0] == 0x12345678u && w32[1] == 0xA5A5A5A5u, "my 32-bit words are %x %x", w32[0],
              w32[1]);
    PE_OK(sym_barrier_all());
    sym_free(w32);
    sym_free(w64);
}

/* put-with-signal of more than the bounce buffer from malloc'd memory: the
 * signal may only be seen once all the data landed. */
static void signal_part(int me, int npes)
{
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    const size_t n = 300 * 1024 + 5;
    uint8_t *dst = sym_malloc(n);
    uint64_t *sig = sym_malloc(8);
    uint8_t *src = malloc(n);
    PE_ASSERT(dst && sig && src, "allocation failed: %s", sym_last_error());
    *sig = 0;
    memset(dst, 0, n);
    PE_OK(sym_barrier_all());
    for (uint64_t round = 1; round <= 3; round++) {
        for (size_t i = 0; i < n; i++)
            src[i] = pattern(i, me, (size_t)round);
        PE_OK(sym_put_signal(dst, src, n, sig, round, SYM_SIGNAL_SET, next));
        memset(src, 0, n);
        uint64_t seen = 0;
        PE_OK(sym_signal_wait_until(sig, SYM_CMP_GE, round, &seen));
        for (size_t i = 0; i < n; i++)
            PE_ASSERT(dst[i] == pattern(i, prev, (size_t)round),
                      "round %llu: signal seen "
                      "before byte %zu of %zu landed (0x%02x)",
                      (unsigned long long)round, i, n, dst[i]);
        PE_OK(sym_barrier_all());
    }
    free(src);
    sym_free(sig);
    sym_free(dst);
}

/* Two collectives whose data moves between heaps through the transport. */
static void coll_part(int me, int npes)
{
    const size_t count = 40000; /* 320 KB of int64: more than the bounce buffer */
    int64_t *src = sym_malloc(count * 8), *dst = sym_malloc(count * 8);
    PE_ASSERT(src && dst, "sym_malloc: %s", sym_last_error());
    for (size_t i = 0; i < count; i++)
        src[i] = (int64_t)(i * 2654435761u) + me * 7 - 3;
    PE_OK(sym_allreduce(sym_team_world(), dst, src, count, SYM_INT64, SYM_OP_SUM, NULL));
    for (size_t i = 0; i < count; i++) {
        int64_t want = 0;
        for (int pe = 0; pe < npes; pe++)
            want += (int64_t)(i * 2654435761u) + pe * 7 - 3;
        PE_ASSERT(dst[i] == want, "allreduce element %zu: %lld, expected %lld", i,
                  (long long)dst[i], (long long)want);
    }
    for (size_t i = 0; i < count; i++)
        src[i] = me == npes - 1 ? (int64_t)(i ^ 0x5555) : -1;
    PE_OK(sym_broadcast(sym_team_world(), src, count, SYM_INT64, npes - 1, NULL));
    for (size_t i = 0; i < count; i++)
        PE_ASSERT(src[i] == (int64_t)(i ^ 0x5555), "broadcast element %zu: %lld", i,
                  (long long)src[i]);
    PE_OK(sym_barrier_all());
    sym_free(dst);
    sym_free(src);
}

/* Global variables, the second registered region (its own key and base). */
static uint64_t g_words[64];

static void globals_part(int me, int npes)
{
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    PE_ASSERT(sym_addr_accessible(g_words, next) == 1, "global variables not reachable");
    memset(g_words, 0, sizeof(g_words));
    PE_OK(sym_barrier_all());
    uint64_t src[63];
    for (size_t i = 0; i < 63; i++)
        src[i] = 0x9E3779B97F4A7C15ull * (i + 1) + (uint64_t)me;
    PE_OK(sym_put(g_words, src, sizeof(src), next));
    PE_OK(sym_atomic_add64(&g_words[63], (uint64_t)me + 100, next));
    PE_OK(sym_barrier_all());
    for (size_t i = 0; i < 63; i++)
        PE_ASSERT(g_words[i] == 0x9E3779B97F4A7C15ull * (i + 1) + (uint64_t)prev,
                  "global word %zu from PE %d is 0x%llx", i, prev, (unsigned long long)g_words[i]);
    PE_ASSERT(g_words[63] == (uint64_t)prev + 100, "global counter is %llu",
              (unsigned long long)g_words[63]);
    uint64_t back[63];
    PE_OK(sym_get(back, g_words, sizeof(back), next));
    PE_ASSERT(memcmp(back, src, sizeof(back)) == 0, "get of PE %d's global words", next);
    PE_OK(sym_barrier_all());
}

static void forced_body(int me, int npes, void *arg)
{
    const struct mr_param *p = arg;
    check_mode(p, me, npes);
    rma_part(p, me, npes);
    amo_part(me, npes);
    signal_part(me, npes);
    coll_part(me, npes);
    globals_part(me, npes);
}

ParameterizedTest(struct mr_param *p, ofi_mr, forced, .timeout = 300)
{
    run_mr(p, forced_body);
}

/* Without the variable, nothing is forced: the providers here need none
 * of these bits, so unregistered memory is never staged. */
static void unforced_body(int me, int npes, void *arg)
{
    (void)arg;
    struct ofi_mr_state s;
    ofi_transport_mr_state(test_transport("ofi"), me, &s);
    PE_ASSERT(s.forced == 0 && !(s.mr_mode & (FI_MR_LOCAL | FI_MR_PROV_KEY | FI_MR_ENDPOINT)),
              "forced 0x%llx, mr_mode 0x%llx without SYMHEAP_OFI_MR_FORCE",
              (unsigned long long)s.forced, (unsigned long long)s.mr_mode);
    uint8_t buf[100];
    memset(buf, me + 1, sizeof(buf));
    uint8_t *dst = sym_malloc(sizeof(buf));
    PE_ASSERT(dst, "sym_malloc: %s", sym_last_error());
    PE_OK(sym_put(dst, buf, sizeof(buf), (me + 1) % npes));
    PE_ASSERT(staged_now(me) == 0, "staged %llu transfers without FI_MR_LOCAL",
              (unsigned long long)staged_now(me));
    PE_OK(sym_barrier_all());
    sym_free(dst);
}

Test(ofi_mr, nothing_forced_by_default)
{
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm", NULL};
    run_pes_env(2, env, unforced_body, NULL);
}

static void bad_word_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    PE_FAILS_WITH(sym_init(), SYM_ERR_CONFIG);
    const char *msg = sym_last_error();
    PE_ASSERT(strstr(msg, "SYMHEAP_OFI_MR_FORCE='local,virt'") && strstr(msg, "\"virt\""),
              "message does not name the variable and the word: %s", msg);
}

Test(ofi_mr, unknown_word_is_a_clear_init_error)
{
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_MR_FORCE=local,virt", NULL};
    struct pe_job job = {.npes = 2, .body = bad_word_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* virt_addr on a provider that offers no FI_MR_VIRT_ADDR: an init error
 * naming the provider, not a job that breaks later. */
static void no_virt_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    PE_FAILS_WITH(sym_init(), SYM_ERR_UNAVAILABLE);
    const char *msg = sym_last_error();
    PE_ASSERT(strstr(msg, "SYMHEAP_OFI_MR_FORCE=virt_addr") && strstr(msg, "tcp;ofi_rxm") &&
                  strstr(msg, "FI_MR_VIRT_ADDR"),
              "message does not name the word, the provider and the mode: %s", msg);
}

Test(ofi_mr, virt_addr_where_not_offered_is_a_clear_init_error)
{
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
                         "SYMHEAP_OFI_MR_FORCE=virt_addr", NULL};
    struct pe_job job = {.npes = 2, .body = no_virt_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
