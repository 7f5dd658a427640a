/*
 * bench_shmem_p2p.c - OpenSHMEM point-to-point benchmarks written against
 * shmem.h only (OpenSHMEM 1.4 calls, so any implementation builds them:
 * symheap's facade through meson, Open MPI's OSHMEM through `oshcc`):
 *
 *   rma       put / get latency (putmem + quiet; blocking getmem) and their
 *             nbi forms (putmem_nbi / getmem_nbi + quiet), 1 B .. 4 MiB;
 *             bandwidth and message rate (back-to-back puts / nbi gets, one
 *             quiet per sample), PE 0 -> PE 1, next to memcpy of the size;
 *   amo       latency (PE 0 -> PE 1, non-fetching ops followed by quiet) and
 *             aggregate rate (every PE -> its right neighbour, one quiet per
 *             sample) of every atomic on long/ulong (64 bit) and int/uint
 *             (32 bit);
 *   pingpong  putmem payload + fence + long_atomic_set flag, answered after
 *             shmem_long_wait_until, one-way, next to the raw cache-line
 *             ping-pong of two plain processes sampled interleaved;
 *
 * each on the symmetric heap (shmem_malloc) and on global variables (which
 * OpenSHMEM makes symmetric too; --where heap|global|both).
 *
 *   oshrun -np 2 bench_shmem_p2p [--part rma,amo,pingpong] [--where heap]
 *          [--json FILE] [--min-size 1] [--max-size 4M] [--size-step 4] ...
 */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define GUARD      64 /* bytes after each destination that must stay untouched */
#define GUARD_BYTE 0xEE
#define MAX_SIZES  64
#define GMAX       (4u << 20) /* largest global-variable buffer */
#define PP_MAX     (64u << 10)

/* Open MPI before 4.1.5 smashes the stack in 32-bit compare-and-swap. */
#if defined(OSHMEM_MAJOR_VERSION) && defined(OSHMEM_RELEASE_VERSION) &&                            \
    (OSHMEM_MAJOR_VERSION * 10000 + OSHMEM_MINOR_VERSION * 100 + OSHMEM_RELEASE_VERSION) < 40105
#define SKIP_INT_CSWAP 1
#else
#define SKIP_INT_CSWAP 0
#endif

/* Global (data-segment) symmetric objects. */
static uint8_t g_put_dst[GMAX + GUARD];
static uint8_t g_bw_dst[GMAX + GUARD];
static uint8_t g_get_src[GMAX + GUARD];
static uint8_t g_pp_buf[PP_MAX];
static long g_pp_flag;
static long g_amo_word;
static int g_amo_word32;

struct loc {
    const char *name; /* "heap" or "global" */
    uint8_t *put_dst, *bw_dst, *get_src, *pp_buf;
    long *pp_flag;
    long *word;
    int *word32;
};

static struct {
    bool rma, amo, pingpong;
    bool heap, global;
    const char *global_part; /* --global-part: parts run on globals (NULL: as --part) */
} cfg = {true, true, true, true, true, NULL};

/* ---- rma ------------------------------------------------------------------ */

struct rma {
    uint8_t *put_dst, *bw_dst, *get_src; /* symmetric */
    uint8_t *src, *get_dst;              /* local to PE 0 */
    size_t size;
    int target;
};

static uint64_t put_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        shmem_putmem(a->put_dst, a->src, a->size, a->target);
        shmem_quiet();
    }
    return bench_now_ns() - t0;
}

static uint64_t put_nbi_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        shmem_putmem_nbi(a->put_dst, a->src, a->size, a->target);
        shmem_quiet();
    }
    return bench_now_ns() - t0;
}

static uint64_t get_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        shmem_getmem(a->get_dst, a->get_src, a->size, a->target);
    uint64_t t1 = bench_now_ns();
    bench_clobber(a->get_dst);
    return t1 - t0;
}

static uint64_t get_nbi_lat_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        shmem_getmem_nbi(a->get_dst, a->get_src, a->size, a->target);
        shmem_quiet();
    }
    uint64_t t1 = bench_now_ns();
    bench_clobber(a->get_dst);
    return t1 - t0;
}

static uint64_t put_bw_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        shmem_putmem(a->bw_dst, a->src, a->size, a->target);
    shmem_quiet();
    return bench_now_ns() - t0;
}

static uint64_t put_nbi_bw_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        shmem_putmem_nbi(a->bw_dst, a->src, a->size, a->target);
    shmem_quiet();
    return bench_now_ns() - t0;
}

static uint64_t get_nbi_bw_body(void *arg, uint64_t iters)
{
    struct rma *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++)
        shmem_getmem_nbi(a->get_dst, a->get_src, a->size, a->target);
    shmem_quiet();
    uint64_t t1 = bench_now_ns();
    bench_clobber(a->get_dst);
    return t1 - t0;
}

static void *xmalloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n) != 0)
        bench_die("out of memory (%zu bytes)", n);
    memset(p, 0, n); /* fault the pages in before anything is timed */
    return p;
}

static uint64_t guard_wrong(const uint8_t *p)
{
    uint64_t w = 0;
    for (size_t i = 0; i < GUARD; i++)
        w += p[i] != GUARD_BYTE;
    return w;
}

enum { R_MEMCPY, R_PUT, R_PUT_NBI, R_GET, R_GET_NBI, R_PUT_BW, R_PUT_NBI_BW, R_GET_NBI_BW, R_N };

struct rma_row {
    size_t size;
    struct bench_stat st[R_N];
    uint64_t wrong_put, wrong_bw, wrong_get;
};

static void run_rma(const struct loc *L, size_t max)
{
    const int me = bench_me(), npes = bench_npes();
    struct rma a = {.put_dst = L->put_dst,
                    .bw_dst = L->bw_dst,
                    .get_src = L->get_src,
                    .target = npes > 1 ? 1 : 0};
    a.src = xmalloc(max);
    a.get_dst = xmalloc(max + GUARD);
    uint8_t *mc_dst = xmalloc(max + 4096);
    struct bench_memcpy_arg mc = {.dst = mc_dst + ((uintptr_t)a.put_dst & 4095),
                                  .src = xmalloc(max)};
    bench_fill((void *)mc.src, max, 7);

    /* First touches of a peer's pages (lazy mappings, registration caches)
     * are paid here, once, and reported. */
    bench_barrier();
    if (me == 0) {
        uint64_t t0 = bench_now_ns();
        shmem_putmem(a.bw_dst, a.src, max, a.target);
        shmem_quiet();
        uint64_t t1 = bench_now_ns();
        shmem_putmem(a.bw_dst, a.src, max, a.target);
        shmem_quiet();
        uint64_t t2 = bench_now_ns();
        shmem_putmem(a.put_dst, a.src, max, a.target);
        shmem_getmem(a.get_dst, a.get_src, max, a.target);
        shmem_quiet();
        char sz[24];
        bench_note("%s: first put of %s to PE %d: %.1f us; second: %.1f us", L->name,
                   bench_size_str(max, sz), a.target, (double)(t1 - t0) / 1e3,
                   (double)(t2 - t1) / 1e3);
    }
    bench_barrier();

    static struct rma_row rows[MAX_SIZES];
    int nrows = 0;
    for (size_t size = bench_size_first(); size && nrows < MAX_SIZES;
         size = bench_size_next(size)) {
        struct rma_row *r = &rows[nrows++];
        r->size = a.size = mc.size = size;
        const uint64_t seed = (uint64_t)size * 4 + (L->name[0] == 'g');
        if (me == 0) {
            bench_fill(a.src, size, seed + 1);
            memset(a.get_dst, GUARD_BYTE, size + GUARD);
        }
        if (me == a.target) {
            memset(a.put_dst, GUARD_BYTE, size + GUARD);
            memset(a.bw_dst, GUARD_BYTE, size + GUARD);
            bench_fill(a.get_src, size, seed + 3);
            memset(a.get_src + size, GUARD_BYTE, GUARD);
        }
        bench_barrier();
        struct bench_meas m[R_N] = {
            [R_MEMCPY] = bench_memcpy(&mc),
            [R_PUT] = {.name = "put",
                       .body = put_lat_body,
                       .arg = &a,
                       .participants = 1,
                       .target_progress = true},
            [R_PUT_NBI] = {.name = "put_nbi",
                           .body = put_nbi_lat_body,
                           .arg = &a,
                           .participants = 1,
                           .target_progress = true},
            [R_GET] = {.name = "get",
                       .body = get_lat_body,
                       .arg = &a,
                       .participants = 1,
                       .target_progress = true},
            [R_GET_NBI] = {.name = "get_nbi",
                           .body = get_nbi_lat_body,
                           .arg = &a,
                           .participants = 1,
                           .target_progress = true},
            [R_PUT_BW] = {.name = "put_bw",
                          .body = put_bw_body,
                          .arg = &a,
                          .participants = 1,
                          .target_progress = true},
            [R_PUT_NBI_BW] = {.name = "put_nbi_bw",
                              .body = put_nbi_bw_body,
                              .arg = &a,
                              .participants = 1,
                              .target_progress = true},
            [R_GET_NBI_BW] = {.name = "get_nbi_bw",
                              .body = get_nbi_bw_body,
                              .arg = &a,
                              .participants = 1,
                              .target_progress = true},
        };
        bench_measure(m, R_N);
        for (int k = 0; k < R_N; k++)
            r->st[k] = m[k].stat;
        bench_barrier();
        uint64_t wp = 0, wb = 0, wg = 0;
        if (me == a.target) {
            wp = bench_check(a.put_dst, size, seed + 1) + guard_wrong(a.put_dst + size);
            wb = bench_check(a.bw_dst, size, seed + 1) + guard_wrong(a.bw_dst + size);
        }
        if (me == 0)
            wg = bench_check(a.get_dst, size, seed + 3) + guard_wrong(a.get_dst + size);
        r->wrong_put = bench_sum_u64(wp);
        r->wrong_bw = bench_sum_u64(wb);
        r->wrong_get = bench_sum_u64(wg);
    }

    static const struct {
        int k;
        const char *test, *title;
        enum bench_kind kind;
        int wrong; /* 0 put, 1 bw, 2 get */
        bool derived;
    } tabs[] = {
        {R_PUT, "put_latency", "putmem + quiet, ns per iteration", BENCH_LAT, 0, false},
        {R_PUT_NBI, "put_nbi_latency", "putmem_nbi + quiet, ns per iteration", BENCH_LAT, 0, false},
        {R_GET, "get_latency", "blocking getmem, ns per call", BENCH_LAT, 2, false},
        {R_GET_NBI, "get_nbi_latency", "getmem_nbi + quiet, ns per iteration", BENCH_LAT, 2, false},
        {R_PUT_BW, "put_bandwidth", "back-to-back putmem, one quiet per sample", BENCH_BW, 1,
         false},
        {R_PUT_NBI_BW, "put_nbi_bandwidth", "back-to-back putmem_nbi, one quiet per sample",
         BENCH_BW, 1, false},
        {R_GET, "get_bandwidth", "blocking getmem back to back (the get latency samples)", BENCH_BW,
         2, true},
        {R_GET_NBI_BW, "get_nbi_bandwidth", "back-to-back getmem_nbi, one quiet per sample",
         BENCH_BW, 2, false},
        {R_PUT_BW, "put_message_rate", "back-to-back putmem (the put bandwidth samples)",
         BENCH_RATE, 1, true},
        {R_PUT_NBI_BW, "put_nbi_message_rate",
         "back-to-back putmem_nbi (the put_nbi bandwidth "
         "samples)",
         BENCH_RATE, 1, true},
        {R_GET, "get_message_rate", "blocking getmem (the get latency samples)", BENCH_RATE, 2,
         true},
        {R_GET_NBI_BW, "get_nbi_message_rate",
         "back-to-back getmem_nbi (the get_nbi bandwidth "
         "samples)",
         BENCH_RATE, 2, true},
    };
    for (size_t t = 0; t < sizeof(tabs) / sizeof(tabs[0]); t++) {
        char test[64], title[256];
        snprintf(test, sizeof(test), "%s_%s", L->name, tabs[t].test);
        snprintf(title, sizeof(title), "%s, %s, PE 0 -> PE %d; baseline memcpy of the size", test,
                 tabs[t].title, a.target);
        const char *base = tabs[t].kind == BENCH_LAT  ? "memcpy(ns)"
                           : tabs[t].kind == BENCH_BW ? "memcpy(MB/s)"
                                                      : "memcpy(Mop/s)";
        struct bench_table tab = {test, title, tabs[t].kind, "Size", base, tabs[t].derived};
        bench_table_begin(&tab);
        for (int i = 0; i < nrows; i++) {
            uint64_t w = tabs[t].wrong == 0   ? rows[i].wrong_put
                         : tabs[t].wrong == 1 ? rows[i].wrong_bw
                                              : rows[i].wrong_get;
            bench_table_row(&tab, NULL, rows[i].size, &rows[i].st[tabs[t].k], &rows[i].st[R_MEMCPY],
                            w);
        }
    }
    free(a.src);
    free(a.get_dst);
    free(mc_dst);
    free((void *)mc.src);
}

/* ---- amo ------------------------------------------------------------------ */

struct amo {
    void *word; /* symmetric */
    int target;
    bool quiet_each; /* latency: non-fetching ops are followed by quiet */
    uint64_t model;  /* the issuer's model of the target's word */
    uint64_t seq;
    uint64_t wrong;
};

/* The issuer is the only PE that changes its target's word, so it can model
 * the word exactly: every fetched value must equal the model before the op,
 * and the word must equal the model at the end. */
#define AMO_FETCHING(ID, T, CALL, NEXT)                                                            \
    static uint64_t ID##_body(void *arg, uint64_t iters)                                           \
    {                                                                                              \
        struct amo *a = arg;                                                                       \
        T *w = a->word;                                                                            \
        const int pe = a->target;                                                                  \
        T m = (T)a->model;                                                                         \
        uint64_t seq = a->seq, wrong = 0;                                                          \
        const uint64_t t0 = bench_now_ns();                                                        \
        for (uint64_t i = 0; i < iters; i++) {                                                     \
            const T v = (T)(++seq * 0x9E3779B97F4A7C15u);                                          \
            (void)v;                                                                               \
            const T r = CALL;                                                                      \
            wrong += r != m;                                                                       \
            m = NEXT;                                                                              \
        }                                                                                          \
        const uint64_t t1 = bench_now_ns();                                                        \
        a->model = (uint64_t)m;                                                                    \
        a->seq = seq;                                                                              \
        a->wrong += wrong;                                                                         \
        return t1 - t0;                                                                            \
    }

#define AMO_PLAIN(ID, T, CALL, NEXT)                                                               \
    static uint64_t ID##_body(void *arg, uint64_t iters)                                           \
    {                                                                                              \
        struct amo *a = arg;                                                                       \
        T *w = a->word;                                                                            \
        const int pe = a->target;                                                                  \
        const bool quiet_each = a->quiet_each;                                                     \
        T m = (T)a->model;                                                                         \
        uint64_t seq = a->seq;                                                                     \
        const uint64_t t0 = bench_now_ns();                                                        \
        for (uint64_t i = 0; i < iters; i++) {                                                     \
            const T v = (T)(++seq * 0x9E3779B97F4A7C15u);                                          \
            (void)v;                                                                               \
            CALL;                                                                                  \
            if (quiet_each)                                                                        \
                shmem_quiet();                                                                     \
            m = NEXT;                                                                              \
        }                                                                                          \
        if (!quiet_each)                                                                           \
            shmem_quiet();                                                                         \
        const uint64_t t1 = bench_now_ns();                                                        \
        a->model = (uint64_t)m;                                                                    \
        a->seq = seq;                                                                              \
        return t1 - t0;                                                                            \
    }

typedef unsigned long ulong_t;
typedef unsigned int uint_t;
/* Sums wrap as unsigned so the model never overflows a signed type. */
#define ADD_L(m, v) ((long)((ulong_t)(m) + (ulong_t)(v)))
#define ADD_I(m, v) ((int)((uint_t)(m) + (uint_t)(v)))

AMO_FETCHING(fetch64, long, shmem_long_atomic_fetch(w, pe), m)
AMO_PLAIN(set64, long, shmem_long_atomic_set(w, v, pe), v)
AMO_FETCHING(swap64, long, shmem_long_atomic_swap(w, v, pe), v)
AMO_FETCHING(cswap64, long, shmem_long_atomic_compare_swap(w, m, v, pe), v)
AMO_PLAIN(add64, long, shmem_long_atomic_add(w, v, pe), ADD_L(m, v))
AMO_FETCHING(fadd64, long, shmem_long_atomic_fetch_add(w, v, pe), ADD_L(m, v))
AMO_PLAIN(inc64, long, shmem_long_atomic_inc(w, pe), ADD_L(m, 1))
AMO_FETCHING(finc64, long, shmem_long_atomic_fetch_inc(w, pe), ADD_L(m, 1))
AMO_PLAIN(and64, ulong_t, shmem_ulong_atomic_and(w, v | (1ul << (seq % 64)), pe),
          m &(v | (1ul << (seq % 64))))
AMO_PLAIN(or64, ulong_t, shmem_ulong_atomic_or(w, v, pe), m | v)
AMO_PLAIN(xor64, ulong_t, shmem_ulong_atomic_xor(w, v, pe), m ^ v)
AMO_FETCHING(fand64, ulong_t, shmem_ulong_atomic_fetch_and(w, v | (1ul << (seq % 64)), pe),
             m &(v | (1ul << (seq % 64))))
AMO_FETCHING(for64, ulong_t, shmem_ulong_atomic_fetch_or(w, v, pe), m | v)
AMO_FETCHING(fxor64, ulong_t, shmem_ulong_atomic_fetch_xor(w, v, pe), m ^ v)

AMO_FETCHING(fetch32, int, shmem_int_atomic_fetch(w, pe), m)
AMO_PLAIN(set32, int, shmem_int_atomic_set(w, v, pe), v)
AMO_FETCHING(swap32, int, shmem_int_atomic_swap(w, v, pe), v)
#if !SKIP_INT_CSWAP
AMO_FETCHING(cswap32, int, shmem_int_atomic_compare_swap(w, m, v, pe), v)
#endif
AMO_PLAIN(add32, int, shmem_int_atomic_add(w, v, pe), ADD_I(m, v))
AMO_FETCHING(fadd32, int, shmem_int_atomic_fetch_add(w, v, pe), ADD_I(m, v))
AMO_PLAIN(inc32, int, shmem_int_atomic_inc(w, pe), ADD_I(m, 1))
AMO_FETCHING(finc32, int, shmem_int_atomic_fetch_inc(w, pe), ADD_I(m, 1))
AMO_PLAIN(and32, uint_t, shmem_uint_atomic_and(w, v | (1u << (seq % 32)), pe),
          m &(v | (1u << (seq % 32))))
AMO_PLAIN(or32, uint_t, shmem_uint_atomic_or(w, v, pe), m | v)
AMO_PLAIN(xor32, uint_t, shmem_uint_atomic_xor(w, v, pe), m ^ v)
AMO_FETCHING(fand32, uint_t, shmem_uint_atomic_fetch_and(w, v | (1u << (seq % 32)), pe),
             m &(v | (1u << (seq % 32))))
AMO_FETCHING(for32, uint_t, shmem_uint_atomic_fetch_or(w, v, pe), m | v)
AMO_FETCHING(fxor32, uint_t, shmem_uint_atomic_fetch_xor(w, v, pe), m ^ v)

struct amo_op {
    const char *name;
    bench_body_fn body; /* NULL: skipped */
    bool wide;          /* 64 bit */
};

static const struct amo_op amo_ops[] = {
    {"fetch64", fetch64_body, true},   {"set64", set64_body, true},
    {"swap64", swap64_body, true},     {"compare_swap64", cswap64_body, true},
    {"add64", add64_body, true},       {"fetch_add64", fadd64_body, true},
    {"inc64", inc64_body, true},       {"fetch_inc64", finc64_body, true},
    {"and64", and64_body, true},       {"or64", or64_body, true},
    {"xor64", xor64_body, true},       {"fetch_and64", fand64_body, true},
    {"fetch_or64", for64_body, true},  {"fetch_xor64", fxor64_body, true},
    {"fetch32", fetch32_body, false},  {"set32", set32_body, false},
    {"swap32", swap32_body, false},
#if SKIP_INT_CSWAP
    {"compare_swap32", NULL, false},
#else
    {"compare_swap32", cswap32_body, false},
#endif
    {"add32", add32_body, false},      {"fetch_add32", fadd32_body, false},
    {"inc32", inc32_body, false},      {"fetch_inc32", finc32_body, false},
    {"and32", and32_body, false},      {"or32", or32_body, false},
    {"xor32", xor32_body, false},      {"fetch_and32", fand32_body, false},
    {"fetch_or32", for32_body, false}, {"fetch_xor32", fxor32_body, false},
};
#define N_AMO (sizeof(amo_ops) / sizeof(amo_ops[0]))

#define AMO_INIT 0x0123456789ABCDEFull

/* Every PE's word to the initial value (the issuers' models start there). */
static void amo_reset(const struct loc *L, struct amo *a, bool wide)
{
    bench_barrier();
    if (wide)
        *L->word = (long)AMO_INIT;
    else
        *L->word32 = (int)(uint32_t)AMO_INIT;
    a->model = wide ? AMO_INIT : (uint64_t)(uint32_t)AMO_INIT;
    a->wrong = 0;
    bench_barrier();
}

/* The issuer reads the target's final word and compares it with its model;
 * returns the job's wrong count. */
static uint64_t amo_verify(struct amo *a, bool issuer, bool wide)
{
    bench_barrier();
    uint64_t w = 0;
    if (issuer) {
        if (wide)
            w = (uint64_t)shmem_long_atomic_fetch(a->word, a->target) != a->model;
        else
            w = (uint32_t)shmem_int_atomic_fetch(a->word, a->target) != (uint32_t)a->model;
        w += a->wrong;
    }
    return bench_sum_u64(w);
}

static void run_amo(const struct loc *L)
{
    const int me = bench_me(), npes = bench_npes();
    static struct bench_stat lat[N_AMO], rate[N_AMO];
    static uint64_t wlat[N_AMO], wrate[N_AMO];
    for (size_t k = 0; k < N_AMO; k++) {
        const struct amo_op *op = &amo_ops[k];
        if (!op->body)
            continue;
        void *word = op->wide ? (void *)L->word : (void *)L->word32;
        /* latency: PE 0 -> PE 1, others parked */
        struct amo a = {.word = word, .target = npes > 1 ? 1 : 0, .quiet_each = true};
        amo_reset(L, &a, op->wide);
        struct bench_meas m = {.name = op->name,
                               .body = op->body,
                               .arg = &a,
                               .participants = 1,
                               .target_progress = true};
        bench_measure(&m, 1);
        lat[k] = m.stat;
        wlat[k] = amo_verify(&a, me == 0, op->wide);
        /* rate: every PE -> its right neighbour, all at once */
        struct amo r = {.word = word, .target = (me + 1) % npes, .quiet_each = false};
        amo_reset(L, &r, op->wide);
        struct bench_meas mr = {.name = op->name,
                                .body = op->body,
                                .arg = &r,
                                .timing = BENCH_TIME_MAX,
                                .ops_per_iter = npes};
        bench_measure(&mr, 1);
        rate[k] = mr.stat;
        wrate[k] = amo_verify(&r, true, op->wide);
    }
    char test[64], title[256];
    snprintf(test, sizeof(test), "%s_amo_latency", L->name);
    snprintf(title, sizeof(title),
             "%s: atomic latency PE 0 -> PE %d, ns per op (non-fetching ops + quiet)", test,
             npes > 1 ? 1 : 0);
    struct bench_table tl = {test, title, BENCH_LAT, "Op", NULL, false};
    bench_table_begin(&tl);
    for (size_t k = 0; k < N_AMO; k++)
        if (amo_ops[k].body)
            bench_table_row(&tl, amo_ops[k].name, amo_ops[k].wide ? 8 : 4, &lat[k], NULL, wlat[k]);
    char test2[64], title2[256];
    snprintf(test2, sizeof(test2), "%s_amo_rate", L->name);
    snprintf(title2, sizeof(title2),
             "%s: aggregate atomic rate, all %d PEs -> right neighbour, one quiet per sample",
             test2, npes);
    struct bench_table tr = {test2, title2, BENCH_RATE, "Op", NULL, false};
    bench_table_begin(&tr);
    for (size_t k = 0; k < N_AMO; k++)
        if (amo_ops[k].body)
            bench_table_row(&tr, amo_ops[k].name, amo_ops[k].wide ? 8 : 4, &rate[k], NULL,
                            wrate[k]);
    if (SKIP_INT_CSWAP && strcmp(L->name, "heap") == 0)
        bench_note("skipped: compare_swap32 (shmem_int_atomic_compare_swap smashes the stack "
                   "in Open MPI < 4.1.5; this baseline is %s)",
                   bench_impl());
}

/* ---- ping-pong ---------------------------------------------------------------- */

struct pp {
    uint8_t *buf; /* symmetric payload */
    long *flag;   /* symmetric */
    uint8_t *src; /* local */
    size_t size;  /* payload bytes, 0: flag only */
    int me;
    uint64_t seq; /* advances identically on PE 0 and PE 1 */
    uint64_t wrong;
};

static inline void stamp(uint8_t *b, size_t n, uint64_t seq)
{
    memcpy(b, &seq, 8);
    memcpy(b + n - 8, &seq, 8);
}

static inline uint64_t stamp_wrong(const uint8_t *b, size_t n, uint64_t seq)
{
    uint64_t x, y;
    memcpy(&x, b, 8);
    memcpy(&y, b + n - 8, 8);
    return (x != seq) + (y != seq);
}

/* One side's turn: payload, fence (ordering payload before flag), flag, quiet. */
static inline void pp_send(struct pp *p, uint64_t seq, int peer)
{
    if (p->size) {
        stamp(p->src, p->size, seq);
        shmem_putmem(p->buf, p->src, p->size, peer);
        shmem_fence();
    }
    shmem_long_atomic_set(p->flag, (long)seq, peer);
    shmem_quiet();
}

static inline uint64_t pp_recv(struct pp *p, uint64_t seq)
{
    shmem_long_wait_until(p->flag, SHMEM_CMP_GE, (long)seq);
    uint64_t w = (uint64_t)__atomic_load_n(p->flag, __ATOMIC_ACQUIRE) != seq;
    if (p->size)
        w += stamp_wrong(p->buf, p->size, seq);
    return w;
}

static uint64_t pp_body(void *arg, uint64_t iters)
{
    struct pp *p = arg;
    uint64_t seq = p->seq, wrong = 0;
    const int peer = 1 - p->me;
    uint64_t t0 = bench_now_ns();
    if (p->me == 0) {
        for (uint64_t i = 0; i < iters; i++) {
            pp_send(p, ++seq, peer);
            wrong += pp_recv(p, seq);
        }
    } else {
        for (uint64_t i = 0; i < iters; i++) {
            wrong += pp_recv(p, ++seq);
            pp_send(p, seq, peer);
        }
    }
    uint64_t t1 = bench_now_ns();
    p->seq = seq;
    p->wrong += wrong;
    return t1 - t0;
}

static void run_pingpong(const struct loc *L)
{
    const int me = bench_me();
    if (bench_npes() < 2) {
        bench_note("%s ping-pong needs 2 PEs: skipped", L->name);
        return;
    }
    struct pp p = {.buf = L->pp_buf, .flag = L->pp_flag, .me = me};
    p.src = xmalloc(PP_MAX);
    *p.flag = 0;
    bench_barrier();
    static size_t sizes[MAX_SIZES];
    static struct bench_stat st[MAX_SIZES], raw[MAX_SIZES];
    static uint64_t wrong[MAX_SIZES];
    int n = 0;
    /* 0 = the flag alone (8 B), then payloads 8 B .. min(--max-size, 64 KiB) in
     * steps of 8 (or of --size-step when that is larger, as in a quick run). */
    const size_t pp_max = bench_opt.max_size < PP_MAX ? bench_opt.max_size : PP_MAX;
    const size_t pp_step = bench_opt.size_step > 8 ? bench_opt.size_step : 8;
    for (size_t size = 0; size <= pp_max && n < MAX_SIZES; size = size ? size * pp_step : 8) {
        p.size = size;
        p.wrong = 0;
        struct bench_meas m[2] = {
            bench_raw_pingpong(),
            {.name = "pingpong",
             .body = pp_body,
             .arg = &p,
             .participants = 2,
             .timing = BENCH_TIME_ROOT,
             .ops_per_iter = 2},
        };
        bench_measure(m, 2);
        raw[n] = m[0].stat;
        st[n] = m[1].stat;
        sizes[n] = size;
        wrong[n] = bench_sum_u64(me < 2 ? p.wrong : 0);
        n++;
    }
    char test[64], title[256];
    snprintf(test, sizeof(test), "%s_pingpong", L->name);
    snprintf(title, sizeof(title),
             "%s: one-way latency, putmem payload + fence + long_atomic_set flag + quiet, "
             "answered after long_wait_until; Size 0 = flag only; baseline raw cache-line "
             "ping-pong",
             test);
    struct bench_table t = {test, title, BENCH_LAT, "Size", "raw(ns)", false};
    bench_table_begin(&t);
    for (int i = 0; i < n; i++)
        bench_table_row(&t, NULL, sizes[i], &st[i], &raw[i], wrong[i]);
    free(p.src);
}

/* ---- main --------------------------------------------------------------------- */

static bool has(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return true;
    return false;
}

static int strip_own_args(int argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--global-part") == 0) {
            if (!v) {
                fprintf(stderr, "bench_shmem_p2p: option '%s' needs a value\n", a);
                exit(2);
            }
            cfg.global_part = v;
            i++;
        } else if (strcmp(a, "--part") == 0 || strcmp(a, "--where") == 0) {
            if (!v) {
                fprintf(stderr, "bench_shmem_p2p: option '%s' needs a value\n", a);
                exit(2);
            }
            if (a[2] == 'p') {
                cfg.rma = has(v, "rma") || has(v, "all");
                cfg.amo = has(v, "amo") || has(v, "all");
                cfg.pingpong = has(v, "pingpong") || has(v, "all");
                if (!cfg.rma && !cfg.amo && !cfg.pingpong) {
                    fprintf(stderr, "bench_shmem_p2p: --part takes rma,amo,pingpong or all\n");
                    exit(2);
                }
            } else {
                cfg.heap = has(v, "heap") || has(v, "both");
                cfg.global = has(v, "global") || has(v, "both");
                if (!cfg.heap && !cfg.global) {
                    fprintf(stderr, "bench_shmem_p2p: --where takes heap, global or both\n");
                    exit(2);
                }
            }
            i++;
        } else {
            if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
                printf("bench_shmem_p2p options besides the harness's (below):\n"
                       "  --part LIST   rma,amo,pingpong or all (default all)\n"
                       "  --where W     heap, global or both (default both)\n"
                       "  --global-part LIST  of those parts, the ones also run on global\n"
                       "                variables (default: all of --part)\n\n");
            argv[out++] = argv[i];
        }
    }
    argv[out] = NULL;
    return out;
}

int main(int argc, char **argv)
{
    static const struct bench_info info = {
        .name = "bench_shmem_p2p",
        .about = "OpenSHMEM put/get (blocking and nbi) latency, bandwidth and message rate, "
                 "atomics latency and rate, put + wait_until ping-pong; heap and globals",
        .default_min_size = 1,
        .default_max_size = GMAX,
    };
    argc = strip_own_args(argc, argv);
    bench_init(argc, argv, &info);
    const size_t max = bench_opt.max_size;
    struct loc heap = {.name = "heap"}, global = {.name = "global"};
    heap.put_dst = shmem_malloc(max + GUARD);
    heap.bw_dst = shmem_malloc(max + GUARD);
    heap.get_src = shmem_malloc(max + GUARD);
    heap.pp_buf = shmem_malloc(PP_MAX);
    heap.pp_flag = shmem_malloc(sizeof(long));
    heap.word = shmem_malloc(sizeof(long));
    heap.word32 = shmem_malloc(sizeof(int));
    if (!heap.put_dst || !heap.bw_dst || !heap.get_src || !heap.pp_buf || !heap.pp_flag ||
        !heap.word || !heap.word32)
        bench_die("shmem_malloc of %zu-byte buffers failed (symmetric heap too small?)",
                  max + GUARD);
    memset(heap.put_dst, 0, max + GUARD);
    memset(heap.bw_dst, 0, max + GUARD);
    memset(heap.get_src, 0, max + GUARD);
    memset(heap.pp_buf, 0, PP_MAX);
    global.put_dst = g_put_dst;
    global.bw_dst = g_bw_dst;
    global.get_src = g_get_src;
    global.pp_buf = g_pp_buf;
    global.pp_flag = &g_pp_flag;
    global.word = &g_amo_word;
    global.word32 = &g_amo_word32;
    bench_barrier();
    if (cfg.global) {
        /* An implementation that keeps only its heap symmetric says so here
         * (symheap's facade does, for now). */
        const int peer = bench_npes() > 1 ? 1 : 0;
        uint64_t ok = bench_bcast_u64(shmem_addr_accessible(g_put_dst, peer) &&
                                      shmem_addr_accessible(&g_amo_word, peer));
        if (!ok) {
            bench_note("global variables: skipped, shmem_addr_accessible() says %s cannot "
                       "reach a global variable of PE %d",
                       bench_impl(), peer);
            cfg.global = false;
        }
    }

    const struct loc *locs[2];
    int nlocs = 0;
    if (cfg.heap)
        locs[nlocs++] = &heap;
    if (cfg.global)
        locs[nlocs++] = &global;
    for (int l = 0; l < nlocs; l++) {
        /* A quick run may keep globals to the parts its targets need. */
        const char *gp = locs[l] == &global ? cfg.global_part : NULL;
        if (cfg.rma && (!gp || has(gp, "rma") || has(gp, "all")))
            run_rma(locs[l], max);
        if (cfg.amo && (!gp || has(gp, "amo") || has(gp, "all")))
            run_amo(locs[l]);
        if (cfg.pingpong && (!gp || has(gp, "pingpong") || has(gp, "all")))
            run_pingpong(locs[l]);
    }
    if (cfg.global && cfg.global_part)
        bench_note("global variables: only the parts '%s' of '%s%s%s'", cfg.global_part,
                   cfg.rma ? "rma " : "", cfg.amo ? "amo " : "", cfg.pingpong ? "pingpong" : "");
    bench_barrier();
    shmem_free(heap.put_dst);
    shmem_free(heap.bw_dst);
    shmem_free(heap.get_src);
    shmem_free(heap.pp_buf);
    shmem_free(heap.pp_flag);
    shmem_free(heap.word);
    shmem_free(heap.word32);
    return bench_finish();
}
