/* test_ofi_again.c - the ofi transport's retry on -FI_EAGAIN, which neither
 * provider here answers when asked to (their queues are deep enough for
 * what the tests post): SYMHEAP_OFI_EAGAIN_EVERY=N makes every N-th post
 * attempt answer it before reaching the provider.  Over tcp;ofi_rxm and
 * libfabric's shm, puts (injected, through slots, through the bounce
 * buffer, from the heap), non-blocking puts and gets, blocking gets, every
 * kind of atomic and put-with-signal must still deliver exactly the data
 * of a local reference, and each PE must have seen answers of the hook;
 * with N = 1 every attempt fails, and an operation must end with
 * SYM_ERR_TIMEOUT naming the provider once SYMHEAP_TIMEOUT has passed. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "harness.h"
#include "core/internal.h"
#include "transport_of.h"
#include "ofi/ofi_private.h"

static const char *const providers[] = {"tcp;ofi_rxm", "shm"};

struct again_param {
    int provider; /* index into providers */
    int every;    /* SYMHEAP_OFI_EAGAIN_EVERY */
};

static struct again_param params[] = {{0, 2}, {0, 5}, {1, 2}, {1, 5}};

ParameterizedTestParameters(ofi_again, retried_ops_deliver)
{
    return cr_make_param_array(struct again_param, params, sizeof(params) / sizeof(params[0]));
}

static uint8_t pattern(size_t i, int from, size_t tag)
{
    return (uint8_t)(i * 131u + (unsigned)from * 17u + tag * 7u + 3u);
}

/* On both sides of the 64-byte inject size and slots and of the 256 KiB
 * bounce buffer. */
static const size_t sizes[] = {1, 8, 64, 65, 4096, 256 * 1024 + 1, 300 * 1024 + 3};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))
#define MAXSZ  (300 * 1024 + 3)

static void rma_part(int me, int npes)
{
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    uint8_t *dst = sym_malloc(MAXSZ), *hsrc = sym_malloc(MAXSZ);
    uint8_t *src = malloc(MAXSZ), *back = malloc(MAXSZ);
    PE_ASSERT(dst && hsrc && src && back, "allocation failed: %s", sym_last_error());
    for (size_t k = 0; k < NSIZES; k++)
        for (int variant = 0; variant < 3; variant++) {
            /* 0: blocking from malloc, 1: nbi from malloc, 2: from the heap */
            const size_t n = sizes[k], tag = k * 3 + (size_t)variant;
            uint8_t *s = variant == 2 ? hsrc : src;
            for (size_t i = 0; i < n; i++)
                s[i] = pattern(i, me, tag);
            memset(dst, 0xEE, MAXSZ);
            PE_OK(sym_barrier_all());
            if (variant == 1) {
                PE_OK(sym_put_nbi(dst, s, n, next));
                PE_OK(sym_quiet());
            } else {
                PE_OK(sym_put(dst, s, n, next));
            }
            PE_OK(sym_barrier_all());
            for (size_t i = 0; i < n; i++)
                PE_ASSERT(dst[i] == pattern(i, prev, tag),
                          "put variant %d of %zu bytes from "
                          "PE %d: byte %zu is 0x%02x",
                          variant, n, prev, i, dst[i]);
            for (size_t i = n; i < MAXSZ; i += 997)
                PE_ASSERT(dst[i] == 0xEE, "put of %zu bytes wrote byte %zu", n, i);
            memset(back, 0xCC, n);
            if (variant == 1) {
                PE_OK(sym_get_nbi(back, dst, n, next));
                PE_OK(sym_quiet());
            } else {
                PE_OK(sym_get(back, dst, n, next));
            }
            PE_ASSERT(memcmp(back, s, n) == 0,
                      "get variant %d of %zu bytes from PE %d "
                      "differs from what I put there",
                      variant, n, next);
            PE_OK(sym_barrier_all());
        }
    free(src);
    free(back);
    sym_free(hsrc);
    sym_free(dst);
}

/* Every PE applies the same sequence to the next PE's words and checks
 * each fetched value against its own model of the target. */
static void amo_part(int me, int npes)
{
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    uint64_t *w64 = sym_malloc(8);
    uint32_t *w32 = sym_malloc(4);
    PE_ASSERT(w64 && w32, "sym_malloc: %s", sym_last_error());
    *w64 = 0;
    *w32 = 0;
    PE_OK(sym_barrier_all());
    uint64_t ref = 0, old = 0;
    uint32_t ref32 = 0, old32 = 0;
    for (uint64_t k = 1; k <= 40; k++) {
        const uint64_t v = k * 0x9E3779B97F4A7C15ull ^ (uint64_t)me;
        switch (k % 5) {
        case 0:
            PE_OK(sym_atomic_add64(w64, v, next));
            ref += v;
            break;
        case 1:
            PE_OK(sym_atomic_fetch_add64(w64, v, &old, next));
            PE_ASSERT(old == ref, "fetch_add64 #%llu: 0x%llx, expected 0x%llx",
                      (unsigned long long)k, (unsigned long long)old, (unsigned long long)ref);
            ref += v;
            break;
        case 2:
            PE_OK(sym_atomic_compare_swap64(w64, ref, v, &old, next));
            PE_ASSERT(old == ref, "compare_swap64 #%llu", (unsigned long long)k);
            ref = v;
            break;
        case 3:
            PE_OK(sym_atomic_fetch_xor64(w64, v, &old, next));
            PE_ASSERT(old == ref, "fetch_xor64 #%llu", (unsigned long long)k);
            ref ^= v;
            break;
        default:
            PE_OK(sym_atomic_fetch_add32(w32, (uint32_t)v, &old32, next));
            PE_ASSERT(old32 == ref32, "fetch_add32 #%llu", (unsigned long long)k);
            ref32 += (uint32_t)v;
            break;
        }
    }
    PE_OK(sym_atomic_fetch64(&old, w64, next));
    PE_ASSERT(old == ref, "fetch64: 0x%llx, expected 0x%llx", (unsigned long long)old,
              (unsigned long long)ref);
    PE_OK(sym_barrier_all());
    /* the previous PE's sequence, replayed */
    uint64_t mine = 0;
    uint32_t mine32 = 0;
    for (uint64_t k = 1; k <= 40; k++) {
        const uint64_t v = k * 0x9E3779B97F4A7C15ull ^ (uint64_t)prev;
        switch (k % 5) {
        case 0:
        case 1:
            mine += v;
            break;
        case 2:
            mine = v;
            break;
        case 3:
            mine ^= v;
            break;
        default:
            mine32 += (uint32_t)v;
            break;
        }
    }
    PE_ASSERT(*w64 == mine && *w32 == mine32, "my words are 0x%llx 0x%x, expected 0x%llx 0x%x",
              (unsigned long long)*w64, *w32, (unsigned long long)mine, mine32);
    PE_OK(sym_barrier_all());
    sym_free(w32);
    sym_free(w64);
}

/* put-with-signal, small and over the bounce buffer: the data is complete
 * when the signal is seen. */
static void signal_part(int me, int npes)
{
    const int next = (me + 1) % npes, prev = (me + npes - 1) % npes;
    const size_t n = 260 * 1024 + 9;
    uint8_t *dst = sym_malloc(n);
    uint64_t *sig = sym_malloc(8);
    uint8_t *src = malloc(n);
    PE_ASSERT(dst && sig && src, "allocation failed: %s", sym_last_error());
    *sig = 0;
    PE_OK(sym_barrier_all());
    for (uint64_t round = 1; round <= 6; round++) {
        const size_t len = round % 2 ? 40 : n;
        for (size_t i = 0; i < len; i++)
            src[i] = pattern(i, me, (size_t)round + 100);
        PE_OK(sym_put_signal(dst, src, len, sig, round, round % 3 ? SYM_SIGNAL_SET : SYM_SIGNAL_ADD,
                             next));
        uint64_t seen = 0;
        /* SET writes round; ADD (round 3, 6) adds it to round - 1 */
        const uint64_t want = round % 3 ? round : round - 1 + round;
        PE_OK(sym_signal_wait_until(sig, SYM_CMP_EQ, want, &seen));
        for (size_t i = 0; i < len; i++)
            PE_ASSERT(dst[i] == pattern(i, prev, (size_t)round + 100),
                      "round %llu: signal "
                      "seen before byte %zu of %zu landed",
                      (unsigned long long)round, i, len);
        PE_OK(sym_barrier_all());
    }
    free(src);
    sym_free(sig);
    sym_free(dst);
}

static void retried_body(int me, int npes, void *arg)
{
    const struct again_param *p = arg;
    PE_ASSERT(test_transport("ofi") != NULL, "no ofi transport although SYMHEAP_TRANSPORT=ofi");
    struct ofi_transport *t = ofi_of(test_transport("ofi"));
    PE_ASSERT(t->eagain_every == (unsigned long)p->every,
              "SYMHEAP_OFI_EAGAIN_EVERY=%d read as "
              "%lu",
              p->every, t->eagain_every);
    rma_part(me, npes);
    amo_part(me, npes);
    signal_part(me, npes);
    /* every N-th attempt answered; each answer costs one more attempt */
    const uint64_t faked = t->fake_again;
    PE_ASSERT(faked >= 20 && faked == t->post_attempts / (unsigned long)p->every,
              "%llu fake -FI_EAGAIN answers in %lu attempts (every %d)", (unsigned long long)faked,
              t->post_attempts, p->every);
}

ParameterizedTest(struct again_param *p, ofi_again, retried_ops_deliver, .timeout = 300)
{
    char prov[96], every[64];
    snprintf(prov, sizeof(prov), "SYMHEAP_OFI_PROVIDER=%s", providers[p->provider]);
    snprintf(every, sizeof(every), "SYMHEAP_OFI_EAGAIN_EVERY=%d", p->every);
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", prov, every, "SYMHEAP_TIMEOUT=120", NULL};
    run_pes_env(2, env, retried_body, p);
}

/* ---- every attempt answers -FI_EAGAIN --------------------------------- */

#define SHORT_TIMEOUT 2.0

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* A global variable: symmetric without sym_malloc, whose barrier would
 * already meet the hook. */
static uint64_t g_target;

/* Raw PE: init posts nothing through libfabric (no eager connections);
 * the first put to a peer then never gets past the hook. */
static void stuck_body(int me, int npes, void *arg)
{
    const char *prov = arg;
    PE_OK(sym_init());
    uint64_t *x = &g_target;
    uint64_t v = 42;
    const double limit = harness_seconds(SHORT_TIMEOUT);
    const double t0 = now_s();
    sym_status_t st = sym_put(x, &v, sizeof(v), (me + 1) % npes);
    const double took = now_s() - t0;
    PE_ASSERT(st == SYM_ERR_TIMEOUT, "sym_put returned %s (%s), expected SYM_ERR_TIMEOUT",
              sym_status_name(st), sym_last_error());
    const char *msg = sym_last_error();
    PE_ASSERT(strstr(msg, "sym_put") && strstr(msg, prov) && strstr(msg, "-FI_EAGAIN") &&
                  strstr(msg, "SYMHEAP_OFI_EAGAIN_EVERY") &&
                  strstr(msg, harness_timeout_text(SHORT_TIMEOUT)),
              "message does not name the call, the provider %s, the answer and the timeout "
              "(%s): %s",
              prov, harness_timeout_text(SHORT_TIMEOUT), msg);
    PE_ASSERT(took >= limit && took < limit + harness_seconds(5),
              "sym_put gave up after %.2f s, the timeout is %.1f s", took, limit);
    struct ofi_transport *t = ofi_of(test_transport("ofi"));
    PE_ASSERT(t->fake_again == t->post_attempts && t->fake_again > 1,
              "%llu of %lu attempts answered", (unsigned long long)t->fake_again, t->post_attempts);
    /* finalize's barrier goes through the same hook: it fails too, and
     * leaves the library uninitialised */
    pe_ignore(sym_finalize());
}

struct stuck_param {
    int provider;
};

ParameterizedTestParameters(ofi_again, every_attempt_times_out)
{
    static struct stuck_param sp[] = {{0}, {1}};
    return cr_make_param_array(struct stuck_param, sp, 2);
}

ParameterizedTest(struct stuck_param *p, ofi_again, every_attempt_times_out, .timeout = 120)
{
    char prov[96];
    snprintf(prov, sizeof(prov), "SYMHEAP_OFI_PROVIDER=%s", providers[p->provider]);
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", prov, "SYMHEAP_OFI_EAGAIN_EVERY=1",
                         harness_timeout_env(SHORT_TIMEOUT), NULL};
    struct pe_job job = {.npes = 2,
                         .body = stuck_body,
                         .arg = (void *)providers[p->provider],
                         .raw = true,
                         .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
