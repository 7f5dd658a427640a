/*
 * bench_amo.c - latency of every atomic operation, 64- and 32-bit, PE 0 ->
 * PE 1 (to itself on 1 PE), each against the same __atomic builtin on a
 * local word; then the aggregate rate of all PEs hammering one word on PE 0
 * against the same number of plain processes doing the same with builtins.
 *
 *   symrun -n 2 build/bench/bench_amo [--json FILE] ...
 */
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define SC      __ATOMIC_SEQ_CST
#define LCG_MUL UINT64_C(6364136223846793005)
#define LCG_ADD UINT64_C(1442695040888963407)
#define ADDEND  UINT64_C(0x9E3779B97F4A7C15)
#define INITIAL UINT64_C(0x5555AAAA33CC0FF0)

struct amo {
    uint64_t *w64; /* symmetric, on the target PE */
    uint32_t *w32;
    uint64_t *n64; /* private: the native baseline's words */
    uint32_t *n32;
    int target;
    uint64_t cur;   /* PE 0's model of the word's value */
    uint64_t wrong; /* fetched values that differ from the model */
};

/*
 * One body per (operation, width, library or native).  Per iteration: x is
 * the operand, `old` the fetched value; the model predicts both, since PE 0
 * is the only writer while it measures.
 *   X      operand expression (may use cur and i)
 *   CALL   the operation, storing the fetched value in old if it fetches
 *   CHECK  1 if the fetched value is wrong
 *   NEXT   the word's value afterwards
 */
#define AMO_BODY(fname, B, WORD, X, CALL, CHECK, NEXT)                                             \
    static uint64_t fname(void *arg, uint64_t iters)                                               \
    {                                                                                              \
        struct amo *a = arg;                                                                       \
        uint##B##_t *w = a->WORD;                                                                  \
        const int pe = a->target;                                                                  \
        uint##B##_t cur = (uint##B##_t)a->cur;                                                     \
        uint64_t wrong = 0;                                                                        \
        (void)pe;                                                                                  \
        uint64_t t0 = bench_now_ns();                                                              \
        for (uint64_t i = 0; i < iters; i++) {                                                     \
            uint##B##_t x = (uint##B##_t)(X), old = 0;                                             \
            (void)x;                                                                               \
            CALL;                                                                                  \
            wrong += (CHECK);                                                                      \
            cur = (uint##B##_t)(NEXT);                                                             \
            (void)old;                                                                             \
        }                                                                                          \
        uint64_t t1 = bench_now_ns();                                                              \
        a->cur = cur;                                                                              \
        a->wrong += wrong;                                                                         \
        return t1 - t0;                                                                            \
    }

/* An operation in both forms. */
#define AMO_OP(name, B, X, LIB, NAT, CHECK, NEXT)                                                  \
    AMO_BODY(lib_##name##B, B, w##B, X, BENCH_OK(LIB), CHECK, NEXT)                                \
    AMO_BODY(nat_##name##B, B, n##B, X, NAT, CHECK, NEXT)

#define RANDOM_X (cur * LCG_MUL + LCG_ADD)
#define BIT_X(B) ((uint##B##_t)1 << (i & (B - 1)))

#define AMO_OPS(B)                                                                                 \
    AMO_OP(fetch, B, 0, sym_atomic_fetch##B(&old, w, pe), old = __atomic_load_n(w, SC),            \
           old != cur, cur)                                                                        \
    AMO_OP(set, B, RANDOM_X, sym_atomic_set##B(w, x, pe), __atomic_store_n(w, x, SC), 0, x)        \
    AMO_OP(swap, B, RANDOM_X, sym_atomic_swap##B(w, x, &old, pe),                                  \
           old = __atomic_exchange_n(w, x, SC), old != cur, x)                                     \
    AMO_OP(compare_swap, B, RANDOM_X, sym_atomic_compare_swap##B(w, cur, x, &old, pe),             \
           (old = cur, __atomic_compare_exchange_n(w, &old, x, 0, SC, SC)), old != cur, x)         \
    AMO_OP(add, B, ADDEND, sym_atomic_add##B(w, x, pe), (void)__atomic_fetch_add(w, x, SC), 0,     \
           cur + x)                                                                                \
    AMO_OP(fetch_add, B, ADDEND, sym_atomic_fetch_add##B(w, x, &old, pe),                          \
           old = __atomic_fetch_add(w, x, SC), old != cur, cur + x)                                \
    AMO_OP(inc, B, 1, sym_atomic_inc##B(w, pe), (void)__atomic_fetch_add(w, 1, SC), 0, cur + 1)    \
    AMO_OP(fetch_inc, B, 1, sym_atomic_fetch_inc##B(w, &old, pe),                                  \
           old = __atomic_fetch_add(w, 1, SC), old != cur, cur + 1)                                \
    AMO_OP(and, B, ~BIT_X(B), sym_atomic_and##B(w, x, pe), (void)__atomic_fetch_and(w, x, SC), 0,  \
           (cur & x))                                                                              \
    AMO_OP(or, B, BIT_X(B), sym_atomic_or##B(w, x, pe), (void)__atomic_fetch_or(w, x, SC), 0,      \
           cur | x)                                                                                \
    AMO_OP(xor, B, RANDOM_X, sym_atomic_xor##B(w, x, pe), (void)__atomic_fetch_xor(w, x, SC), 0,   \
           cur ^ x)                                                                                \
    AMO_OP(fetch_and, B, ~BIT_X(B), sym_atomic_fetch_and##B(w, x, &old, pe),                       \
           old = __atomic_fetch_and(w, x, SC), old != cur, cur & x)                                \
    AMO_OP(fetch_or, B, BIT_X(B), sym_atomic_fetch_or##B(w, x, &old, pe),                          \
           old = __atomic_fetch_or(w, x, SC), old != cur, cur | x)                                 \
    AMO_OP(fetch_xor, B, RANDOM_X, sym_atomic_fetch_xor##B(w, x, &old, pe),                        \
           old = __atomic_fetch_xor(w, x, SC), old != cur, cur ^ x)

AMO_OPS(64)
AMO_OPS(32)

struct op {
    const char *name;
    int bits;
    bench_body_fn lib, nat;
};

/* clang-format off */
#define OP_ROW(name, B) { #name #B, B, lib_##name##B, nat_##name##B }
/* clang-format on */
#define OP_ROWS(B)                                                                                 \
    OP_ROW(fetch, B), OP_ROW(set, B), OP_ROW(swap, B), OP_ROW(compare_swap, B), OP_ROW(add, B),    \
        OP_ROW(fetch_add, B), OP_ROW(inc, B), OP_ROW(fetch_inc, B), OP_ROW(and, B), OP_ROW(or, B), \
        OP_ROW(xor, B), OP_ROW(fetch_and, B), OP_ROW(fetch_or, B), OP_ROW(fetch_xor, B)

static const struct op ops[] = {OP_ROWS(64), OP_ROWS(32)};
#define NOPS (sizeof(ops) / sizeof(ops[0]))

/* ---- every PE on PE 0's word ------------------------------------------- */

struct hammer {
    uint64_t *word; /* symmetric; PE 0's is the target */
    bool fetching;
    uint64_t count; /* operations this PE has issued */
    uint64_t wrong; /* fetched values that went backwards */
    uint64_t last;
};

static uint64_t hammer_body(void *arg, uint64_t iters)
{
    struct hammer *h = arg;
    uint64_t last = h->last, wrong = 0;
    uint64_t t0 = bench_now_ns();
    if (h->fetching) {
        for (uint64_t i = 0; i < iters; i++) {
            uint64_t old;
            BENCH_OK(sym_atomic_fetch_add64(h->word, 1, &old, 0));
            /* Everyone only adds, so each PE must see the word grow. */
            wrong += old < last;
            last = old + 1;
        }
    } else {
        for (uint64_t i = 0; i < iters; i++)
            BENCH_OK(sym_atomic_add64(h->word, 1, 0));
    }
    uint64_t t1 = bench_now_ns();
    h->last = last;
    h->count += iters;
    h->wrong += wrong;
    return t1 - t0;
}

/* The baseline: npes plain processes (PE 0 and forked children) doing the
 * same builtin on one word of a shared page, each timing itself after a
 * common start flag; the slowest counts, as for the PEs. */
struct native_hammer {
    int nprocs;
    bool fetching;
    uint64_t wrong;
};

struct nh_page {
    uint64_t word;
    uint8_t pad0[56];
    uint32_t ready;
    uint32_t go;
    uint8_t pad1[56];
    uint64_t elapsed[64];
    uint64_t wrong[64];
};

static uint64_t nh_loop(struct nh_page *pg, bool fetching, uint64_t iters, uint64_t *wrong_p)
{
    uint64_t last = 0, wrong = 0;
    uint64_t t0 = bench_now_ns();
    if (fetching) {
        for (uint64_t i = 0; i < iters; i++) {
            uint64_t old = __atomic_fetch_add(&pg->word, 1, SC);
            wrong += old < last;
            last = old + 1;
        }
    } else {
        for (uint64_t i = 0; i < iters; i++)
            (void)__atomic_fetch_add(&pg->word, 1, SC);
    }
    *wrong_p = wrong;
    return bench_now_ns() - t0;
}

static uint64_t native_hammer_body(void *arg, uint64_t iters)
{
    struct native_hammer *nh = arg;
    int n = nh->nprocs > 64 ? 64 : nh->nprocs;
    struct nh_page *pg =
        mmap(NULL, sizeof(*pg), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (pg == MAP_FAILED) {
        fprintf(stderr, "bench_amo: mmap: %s\n", strerror(errno));
        sym_global_exit(1);
    }
    memset(pg, 0, sizeof(*pg));
    pid_t parent = getpid(), kids[64];
    fflush(NULL);
    for (int k = 1; k < n; k++) {
        kids[k] = fork();
        if (kids[k] < 0) {
            fprintf(stderr, "bench_amo: fork: %s\n", strerror(errno));
            sym_global_exit(1);
        }
        if (kids[k] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            if (getppid() != parent)
                _exit(1);
            __atomic_fetch_add(&pg->ready, 1, SC);
            while (!__atomic_load_n(&pg->go, __ATOMIC_ACQUIRE))
                sched_yield();
            pg->elapsed[k] = nh_loop(pg, nh->fetching, iters, &pg->wrong[k]);
            _exit(0);
        }
    }
    while (__atomic_load_n(&pg->ready, __ATOMIC_ACQUIRE) != (uint32_t)(n - 1))
        sched_yield();
    __atomic_store_n(&pg->go, 1, __ATOMIC_RELEASE);
    uint64_t e = nh_loop(pg, nh->fetching, iters, &pg->wrong[0]);
    for (int k = 1; k < n; k++) {
        int status;
        while (waitpid(kids[k], &status, 0) < 0 && errno == EINTR)
            ;
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
            nh->wrong++;
        if (pg->elapsed[k] > e)
            e = pg->elapsed[k];
    }
    for (int k = 0; k < n; k++)
        nh->wrong += pg->wrong[k];
    nh->wrong += pg->word != (uint64_t)n * iters;
    munmap(pg, sizeof(*pg));
    return e;
}

int main(int argc, char **argv)
{
    static const struct bench_info info = {
        .name = "bench_amo",
        .about = "atomic operation latency PE 0 -> PE 1, and all PEs hammering PE 0's word",
    };
    bench_init(argc, argv, &info);
    const int me = bench_me(), npes = bench_npes();
    struct amo a = {.target = npes > 1 ? 1 : 0};
    /* Separate lines for the 64- and 32-bit words. */
    a.w64 = sym_calloc(1, 128);
    a.w32 = a.w64 ? (uint32_t *)(a.w64 + 8) : NULL;
    uint64_t *hword = sym_calloc(1, 64);
    if (!a.w64 || !hword)
        bench_fail("sym_calloc of the words", SYM_ERR_NO_MEMORY);
    void *nat = NULL;
    if (posix_memalign(&nat, 128, 128) != 0)
        bench_fail("posix_memalign", SYM_ERR_NO_MEMORY);
    a.n64 = nat;
    a.n32 = (uint32_t *)(a.n64 + 8);

    bench_note("target PE %d%s: the word lives in the target's heap and only PE 0 touches "
               "it while measuring; baseline = the same __atomic builtin (seq_cst) on a "
               "private word of PE 0",
               a.target, a.target == 0 ? " (1 PE: to itself)" : "");

    static const struct bench_table t_lat = {
        "amo_latency", "atomic latency, ns per operation; ratio = library / native builtin",
        BENCH_LAT,     "Op",
        "native(ns)",  false};
    struct bench_stat lat[NOPS], base[NOPS];
    uint64_t wrong[NOPS];
    for (size_t k = 0; k < NOPS; k++) {
        const struct op *o = &ops[k];
        const uint64_t v0 = o->bits == 64 ? INITIAL : (uint32_t)INITIAL;
        if (me == a.target) {
            __atomic_store_n(a.w64, INITIAL, SC);
            __atomic_store_n(a.w32, (uint32_t)INITIAL, SC);
        }
        a.cur = v0;
        a.wrong = 0;
        __atomic_store_n(a.n64, INITIAL, SC);
        __atomic_store_n(a.n32, (uint32_t)INITIAL, SC);
        bench_barrier();

        /* The native body keeps its own model: run it on a copy. */
        struct amo an = a;
        struct bench_meas m[2] = {
            {.name = "native", .body = o->nat, .arg = &an, .participants = 1},
            {.name = o->name, .body = o->lib, .arg = &a, .participants = 1},
        };
        bench_measure(m, 2);
        base[k] = m[0].stat;
        lat[k] = m[1].stat;

        /* The final value must be what PE 0's model says. */
        uint64_t expect = bench_bcast_u64(a.cur);
        uint64_t w = 0;
        if (me == a.target) {
            uint64_t v = o->bits == 64 ? __atomic_load_n(a.w64, SC) : __atomic_load_n(a.w32, SC);
            w += v != expect;
        }
        if (me == 0) {
            w += a.wrong + an.wrong;
            uint64_t nv = o->bits == 64 ? __atomic_load_n(a.n64, SC) : __atomic_load_n(a.n32, SC);
            w += nv != an.cur;
        }
        wrong[k] = bench_sum_u64(w);
    }
    bench_table_begin(&t_lat);
    for (size_t k = 0; k < NOPS; k++)
        bench_table_row(&t_lat, ops[k].name, (size_t)ops[k].bits / 8, &lat[k], &base[k], wrong[k]);

    /* Every PE on PE 0's word. */
    char title[200];
    snprintf(title, sizeof(title),
             "aggregate rate, all %d PE%s on PE 0's word (Mop/s over all PEs); baseline: %d "
             "plain process%s with the builtin on a shared page",
             npes, npes == 1 ? "" : "s", npes, npes == 1 ? "" : "es");
    const struct bench_table t_rate = {"amo_hammer_rate", title, BENCH_RATE, "Op",
                                       "native(Mop/s)",   false};
    struct bench_stat hs[2], hb[2];
    uint64_t hwrong[2];
    for (int f = 0; f < 2; f++) {
        struct hammer h = {.word = hword, .fetching = f == 0};
        struct native_hammer nh = {.nprocs = npes, .fetching = f == 0};
        if (me == 0)
            __atomic_store_n(hword, 0, SC);
        bench_barrier();
        struct bench_meas m[2] = {
            {.name = "native",
             .body = native_hammer_body,
             .arg = &nh,
             .participants = 1,
             .ops_per_iter = npes},
            {.name = "hammer",
             .body = hammer_body,
             .arg = &h,
             .participants = 0,
             .timing = BENCH_TIME_MAX,
             .ops_per_iter = npes},
        };
        bench_measure(m, 2);
        hb[f] = m[0].stat;
        hs[f] = m[1].stat;
        uint64_t total = bench_sum_u64(h.count);
        bench_barrier();
        uint64_t w = h.wrong;
        if (me == 0)
            w += nh.wrong + (__atomic_load_n(hword, SC) != total);
        hwrong[f] = bench_sum_u64(w);
    }
    bench_table_begin(&t_rate);
    bench_table_row(&t_rate, "fetch_add64", 8, &hs[0], &hb[0], hwrong[0]);
    bench_table_row(&t_rate, "add64", 8, &hs[1], &hb[1], hwrong[1]);

    for (size_t k = 0; k < NOPS; k++) {
        if (strcmp(ops[k].name, "fetch_add64") != 0)
            continue;
        char detail[200];
        snprintf(detail, sizeof(detail),
                 "sym_atomic_fetch_add64 PE 0 -> PE %d, median of %d samples, min %.1f ns; "
                 "native lock xadd %.1f ns in the same run",
                 a.target, lat[k].n, lat[k].min, base[k].median);
        bench_target("fetch-add latency", lat[k].median, "ns", "<", 20, detail);
    }
    return bench_finish();
}
