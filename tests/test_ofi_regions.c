/* test_ofi_regions.c - the libfabric transport's second registered region
 * (global and static variables), ranges it refuses, a failed get that
 * never lands later, and a provider's error entry turned into
 * SYM_ERR_TRANSPORT with its text (see test_ofi.c for the provider
 * matrix). */
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
#include "transport_of.h"
#include "ofi/ofi.h"
#include "ofi/ofi_private.h"
#include "ofi_check.h"

static struct ofi_param params2[] = {{0, 2}, {1, 2}};

/* ---- global and static variables: the second registered region ---------- */

#define G_N 5000 /* 40000 bytes: several pages, past inject size and slots */

static uint64_t g_arr[G_N];               /* .bss */
static uint64_t g_init[4] = {3, 1, 4, 1}; /* .data */
static uint32_t g_count32;
static uint64_t g_count64;
static uint64_t g_sigbuf[512];
static uint64_t g_sig;
static uint64_t g_src[G_N]; /* a local source that is a global */

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
    static const size_t counts[] = {1, 7, 8, 9, 64, 1000, G_N};
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
            PE_ASSERT(g_sigbuf[i] == gval(left, i, round), "round %u: g_sigbuf[%zu] wrong", round,
                      i);
        PE_OK(sym_barrier_all()); /* read before the next round overwrites */
    }
    PE_ASSERT(g_sig == 6, "g_sig = %llu", (unsigned long long)g_sig);
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(ofi, globals_rma_amo_signal)
{
    static struct ofi_param params[] = {{0, 2}, {1, 2}, {0, 3}, {1, 3}};
    return cr_make_param_array(struct ofi_param, params, 4);
}

ParameterizedTest(struct ofi_param *p, ofi, globals_rma_amo_signal,
                  .timeout = HARNESS_CR_TIMEOUT(300))
{
    run_ofi(p, globals_body);
}

/* The transport itself refuses ranges outside the heap and the globals
 * (the API checks addresses first; this is the last line before the
 * provider), naming the range. */
static void bounds_body(int me, int npes, void *arg)
{
    (void)arg;
    struct sym_transport *tp = test_transport("ofi");
    PE_ASSERT(tp != NULL, "no ofi transport");
    const int right = (me + 1) % npes;
    const uint64_t end = sym_core_layout()->total + sym_core_globals()->len;
    uint64_t word = 0;
    struct sym_deadline dl = sym_deadline_default("bounds");
    PE_ASSERT(sym_core_globals()->len > 0, "no global variables registered");
    /* the last word of the globals is in range: the check is not too strict */
    PE_OK(tp->ops->get(tp, right, &word, end - 8, 8, &dl));
    PE_FAILS_WITH(tp->ops->put(tp, right, end - 4, &word, 8, &dl), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "outside") != NULL, "message: %s", sym_last_error());
    PE_FAILS_WITH(tp->ops->get(tp, right, &word, end, 8, &dl), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(tp->ops->put_nbi(tp, right, UINT64_MAX - 3, &word, 8, &dl), SYM_ERR_INVALID_ARG);
    /* straddling the heap's end and the globals' start: neither region */
    PE_FAILS_WITH(tp->ops->get_nbi(tp, right, &word, sym_core_layout()->total - 4, 8, &dl),
                  SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(tp->ops->atomic(tp, right, end, SYM_AMO_ADD, 8, 1, 0, NULL, &dl),
                  SYM_ERR_INVALID_ARG);
    /* a bad signal word: nothing is written, not even the data */
    PE_FAILS_WITH(tp->ops->put_signal(tp, right, sym_core_layout()->total, &word, 8, end, 1,
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
    struct sym_transport *tp = test_transport("ofi");
    PE_ASSERT(tp != NULL, "no ofi transport");
    uint64_t *word = sym_malloc(8);
    PE_ASSERT(word != NULL, "sym_malloc: %s", sym_last_error());
    const uint64_t off = (uint64_t)((uint8_t *)word - (uint8_t *)sym_core_base());
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
            struct timespec ts = {0, 1000000};
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
            struct timespec ts = {0, 1000000};
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
    struct ofi_param p = {0, 2}; /* tcp;ofi_rxm: reads need the target's progress */
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
    struct ofi_transport *t = ofi_of(test_transport("ofi"));
    uint64_t *word = sym_calloc(1, 8);
    PE_ASSERT(word != NULL, "sym_calloc: %s", sym_last_error());
    PE_OK(sym_barrier_all());
    if (me == 1) {
        /* serve PE 0's write (manual progress) until it has its error */
        const double deadline = harness_now() + harness_seconds(60);
        while (access(provider_error_flag, F_OK) != 0) {
            PE_OK(test_transport("ofi")->ops->progress(test_transport("ofi")));
            struct timespec ts = {0, 1000000};
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
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
                         "SYMHEAP_INIT_TIMEOUT=60", harness_timeout_env(5), NULL};
    struct pe_job job = {.npes = 2, .body = provider_error_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    unlink(provider_error_flag);
    assert_job_ok(&out);
}
