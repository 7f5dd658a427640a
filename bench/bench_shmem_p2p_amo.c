/*
 * bench_shmem_p2p_amo.c - the amo part of bench_shmem_p2p: latency (PE 0 ->
 * PE 1, non-fetching ops followed by quiet) and aggregate rate (every PE ->
 * its right neighbour, one quiet per sample) of every atomic on long/ulong
 * (64 bit) and int/uint (32 bit), each checked against a model of the word.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "bench_shmem_p2p.h"

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

void run_amo(const struct loc *L)
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
