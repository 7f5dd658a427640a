/*
 * stress.c - seeded random stress of every operation, checked against
 * locally computed references (see stress.h for the replay scheme).
 *
 * Data that reductions combine is chosen so every order of combination
 * gives the same bits: integers wrap (associative), floating-point inputs
 * are small integers (sums exact) or +-2^k (products exact) and never -0,
 * so the reference is exact whatever algorithm the library picks.
 */
#include "stress.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

/* Descriptions are cut to their buffers on purpose (nested team names). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define MAXPE 16
#define MARGIN 64       /* bytes around every RMA target range checked untouched */
#define MAX_ENTRIES 6   /* live team entries, world included */
#define MAX_OBJS 6      /* live objects of the allocation steps */
#define MAX_BATCH 3     /* non-blocking collectives in flight at once */

const char *const stress_env[] = {
    "SYMHEAP_HEAP_SIZE=24M",
    "SYMHEAP_MAILBOX_SIZE=128K", /* team areas of 8 KiB: 64..256-byte chunks */
    "SYMHEAP_TEAM_SLOTS=8",
    "SYMHEAP_TIMEOUT=60",
    NULL,
};

void stress_opts_default(struct stress_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->seed = 1;
    o->steps = 1000;
    o->max_bytes = 160 * 1024;
    o->max_wrong_reports = 10;
}

/* ------------------------------------------------------------------------ */
/* Op counters                                                               */
/* ------------------------------------------------------------------------ */

#define COUNTERS(X)                                                                      \
    X(PUT, "put") X(PUT_NBI, "put_nbi") X(IPUT, "iput") X(P, "p8/16/32/64")              \
    X(PUT_SIGNAL, "put_signal") X(PUT_SIGNAL_NBI, "put_signal_nbi")                      \
    X(GET, "get") X(GET_NBI, "get_nbi") X(IGET, "iget") X(G, "g8/16/32/64")               \
    X(QUIET, "quiet") X(AMO32, "atomic (32-bit)") X(AMO64, "atomic (64-bit)")            \
    X(SIGNAL_WAIT, "signal_wait_until") X(WAIT_UNTIL, "wait_until (all forms)")          \
    X(TEST, "test (successful polls)") X(BARRIER_ALL, "barrier_all") X(SYNC_ALL, "sync_all")    \
    X(BARRIER, "barrier") X(BROADCAST, "broadcast") X(REDUCE, "reduce")                  \
    X(ALLREDUCE, "allreduce") X(REDUCE_SCATTER, "reduce_scatter")                        \
    X(ALL_GATHER, "all_gather") X(ALL_GATHERV, "all_gatherv") X(ALL_TO_ALL, "all_to_all") \
    X(ALL_TO_ALLV, "all_to_allv") X(GATHER, "gather") X(SCATTER, "scatter")              \
    X(IBARRIER, "ibarrier") X(IBROADCAST, "ibroadcast") X(IREDUCE, "ireduce")            \
    X(IALLREDUCE, "iallreduce") X(IREDUCE_SCATTER, "ireduce_scatter")                    \
    X(IALL_GATHER, "iall_gather") X(IALL_GATHERV, "iall_gatherv")                        \
    X(IALL_TO_ALL, "iall_to_all") X(IALL_TO_ALLV, "iall_to_allv") X(IGATHER, "igather")  \
    X(ISCATTER, "iscatter") X(REQ_WAIT, "request wait") X(REQ_TEST, "request test (completions)")      \
    X(SEND, "send") X(RECV, "recv") X(SENDRECV, "sendrecv") X(TRUNCATED, "recv truncated") \
    X(SPLIT_STRIDED, "team_split_strided") X(SPLIT_2D, "team_split_2d")                  \
    X(TEAM_CREATE, "team_create") X(TEAM_DESTROY, "team_destroy")                        \
    X(MALLOC, "malloc/calloc/align") X(REALLOC, "realloc") X(FREE, "free")

enum counter {
#define C_ENUM_(e, name) CNT_##e,
    COUNTERS(C_ENUM_)
#undef C_ENUM_
    CNT_N
};

static const char *const counter_names[CNT_N] = {
#define C_NAME_(e, name) name,
    COUNTERS(C_NAME_)
#undef C_NAME_
};

/* ------------------------------------------------------------------------ */
/* State                                                                     */
/* ------------------------------------------------------------------------ */

struct group {
    int n;
    int pe[MAXPE]; /* global PE of each member, in team order */
};

/* A set of teams made by one split: disjoint groups, each a team; a PE
 * holds the handle of its own group (or none). */
struct entry {
    bool live;
    int ngroups;
    struct group g[MAXPE];
    int my_group; /* -1: this PE is in none */
    sym_team_t team;
    char desc[128];
};

struct obj {
    bool live;
    void *p;
    size_t size, align;
    uint64_t key; /* content: pattern (key, pe) on every PE */
};

static struct {
    struct stress_opts o;
    int me, n;
    uint64_t step;
    bool dry; /* replaying the structure of steps before start_step */
    char what[320];
    uint64_t count[CNT_N];
    uint64_t wrong;
    size_t rma_bytes; /* per-PE RMA region (max_bytes + margins) */
    uint8_t *rma;
    uint64_t *sig;      /* [MAXPE] signal words, written by PE p at index p */
    uint64_t *sig_add;  /* [MAXPE] signal words for SYM_SIGNAL_ADD */
    int32_t *iv_i32;    /* [MAXPE] wait_until targets per type */
    int64_t *iv_i64;
    uint32_t *iv_u32;
    uint64_t *iv_u64;
    uint32_t *amo32;    /* [MAXPE] private words, [MAXPE] contended */
    uint64_t *amo64;
    struct entry ent[MAX_ENTRIES];
    struct obj obj[MAX_OBJS];
} S;

/* ------------------------------------------------------------------------ */
/* Random numbers: splitmix64, keyed by (seed, step, pe, salt)               */
/* ------------------------------------------------------------------------ */

static uint64_t mix64(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

static uint64_t key3(uint64_t a, uint64_t b, uint64_t c)
{
    return mix64(S.o.seed ^ mix64(a ^ mix64(b ^ mix64(c))));
}

struct rng {
    uint64_t s;
};

static uint64_t rnext(struct rng *r)
{
    r->s += UINT64_C(0x9e3779b97f4a7c15);
    return mix64(r->s);
}

static uint64_t rbelow(struct rng *r, uint64_t n)
{
    return n ? rnext(r) % n : 0;
}

static bool rchance(struct rng *r, unsigned percent)
{
    return rbelow(r, 100) < percent;
}

/* Salts of the keys, so different uses of one (step, pe) never share data. */
enum { K_STEP = 1, K_DATA, K_FILL, K_OPS, K_INIT, K_SIZES, K_ORDER, K_OBJ };

static struct rng rng_for(uint64_t step, uint64_t pe, uint64_t salt)
{
    return (struct rng){ key3(step, pe, salt) };
}

static void fill_bytes(void *buf, size_t n, uint64_t key)
{
    uint8_t *b = buf;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = mix64(key + i / 8);
        memcpy(b + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* Byte i of fill_bytes(key) without generating the rest. */
static uint8_t byte_at(uint64_t key, size_t i)
{
    return (uint8_t)(mix64(key + i / 8) >> (8 * (i % 8)));
}

/* Sizes: 0, 1, primes, small, up to `max`, and near `max` (which is more
 * than the mailbox). */
static size_t pick_count(struct rng *r, size_t max)
{
    static const size_t primes[] = { 2, 3, 5, 7, 11, 13, 31, 61, 127, 251, 509, 1021, 4093 };
    size_t c;
    switch (rbelow(r, 20)) {
    case 0: c = 0; break;
    case 1: c = 1; break;
    case 2: case 3: case 4: c = primes[rbelow(r, sizeof(primes) / sizeof(primes[0]))]; break;
    case 5: c = max; break;
    case 6: c = max - rbelow(r, max / 8 + 1); break;
    case 7: case 8: c = rbelow(r, max + 1); break;
    default: c = rbelow(r, (max < 600 ? max : 600) + 1); break;
    }
    return c > max ? max : c;
}

/* ------------------------------------------------------------------------ */
/* Reporting                                                                 */
/* ------------------------------------------------------------------------ */

static void replay_hint(FILE *f)
{
    fprintf(f, "  replay: symheap-stress --pes %d --seed %" PRIu64 " --start-step %" PRIu64
            " --steps %" PRIu64 " --max-bytes %zu\n",
            S.n, S.o.seed, S.step, S.step + 1, S.o.max_bytes);
}

static void set_what(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_what(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(S.what, sizeof(S.what), fmt, ap);
    va_end(ap);
    if (S.o.verbose >= 2 || (S.o.verbose == 1 && S.me == 0 && !S.dry))
        fprintf(stderr, "stress: PE %d step %" PRIu64 ": %s\n", S.me, S.step, S.what);
}

static void die(const char *call, sym_status_t st) __attribute__((noreturn));
static void die(const char *call, sym_status_t st)
{
    fprintf(stderr, "stress: PE %d: FAILED at seed %" PRIu64 " step %" PRIu64 " (%s): %s "
            "returned %s: %s\n", S.me, S.o.seed, S.step, S.what, call, sym_status_name(st),
            sym_last_error());
    replay_hint(stderr);
    fflush(NULL);
    _exit(2);
}

#define CALL(expr)                                      \
    do {                                                \
        sym_status_t st_ = (expr);                      \
        if (st_ != SYM_OK)                              \
            die(#expr, st_);                            \
    } while (0)

static void wrong(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void wrong(const char *fmt, ...)
{
    S.wrong++;
    if (S.wrong > (uint64_t)S.o.max_wrong_reports)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "stress: PE %d: WRONG at seed %" PRIu64 " step %" PRIu64 " (%s): %s\n", S.me,
            S.o.seed, S.step, S.what, msg);
    replay_hint(stderr);
    fflush(stderr);
}

/* Compare got with want; one wrong result per differing buffer. */
static bool check_buf(const void *got, const void *want, size_t bytes, size_t elsize,
                      const char *name)
{
    if (bytes == 0 || memcmp(got, want, bytes) == 0)
        return true;
    const uint8_t *g = got, *w = want;
    size_t first = 0, nbad = 0;
    for (size_t i = 0; i < bytes; i++)
        if (g[i] != w[i] && nbad++ == 0)
            first = i;
    size_t e = first / elsize * elsize, len = elsize < 8 ? elsize : 8;
    char gh[20] = "", wh[20] = "";
    for (size_t i = 0; i < len && e + i < bytes; i++) {
        snprintf(gh + 2 * i, 3, "%02x", g[e + i]);
        snprintf(wh + 2 * i, 3, "%02x", w[e + i]);
    }
    wrong("%s: %zu of %zu bytes differ; first at byte %zu (element %zu): got %s, expected %s",
          name, nbad, bytes, first, first / elsize, gh, wh);
    return false;
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "stress: PE %d: out of memory (%zu bytes)\n", S.me, n);
        _exit(3);
    }
    return p;
}

/* ------------------------------------------------------------------------ */
/* Typed data and reference reductions                                       */
/* ------------------------------------------------------------------------ */

static const sym_datatype_t all_dts[] = {
    SYM_INT8,   SYM_INT16, SYM_INT32,  SYM_INT64,   SYM_UINT8,   SYM_UINT16,
    SYM_UINT32, SYM_UINT64, SYM_FLOAT, SYM_DOUBLE, SYM_FLOAT16, SYM_BFLOAT16,
};
#define N_DTS (sizeof(all_dts) / sizeof(all_dts[0]))

static bool dt_is_float(sym_datatype_t dt)
{
    return dt == SYM_FLOAT || dt == SYM_DOUBLE || dt == SYM_FLOAT16 || dt == SYM_BFLOAT16;
}

static bool dt_is_signed(sym_datatype_t dt)
{
    return dt == SYM_INT8 || dt == SYM_INT16 || dt == SYM_INT32 || dt == SYM_INT64;
}

/* Round a float to binary16 / bfloat16, to nearest even, computed by
 * scaling (independent of the library's bit manipulation). */
static uint16_t ref_round_small(float f, int mant_bits, int emin, int emax, int bias)
{
    uint16_t sign = signbit(f) ? (uint16_t)(1u << 15) : 0;
    double a = fabs((double)f);
    if (a == 0)
        return sign;
    int e;
    frexp(a, &e);
    int E = e - 1 < emin ? emin : e - 1;
    double m = nearbyint(ldexp(a, mant_bits - E)); /* exact: a has 24 bits */
    double top = ldexp(1.0, mant_bits + 1);
    if (m >= top) {
        m /= 2;
        E++;
    }
    if (E > emax)
        return sign | (uint16_t)(((unsigned)(emax + bias + 1)) << mant_bits); /* inf */
    unsigned um = (unsigned)m, implicit = 1u << mant_bits;
    if (um < implicit) /* subnormal: exponent field 0 */
        return sign | (uint16_t)um;
    return sign | (uint16_t)(((unsigned)(E + bias) << mant_bits) | (um - implicit));
}

static uint16_t ref_f2h(float f) { return ref_round_small(f, 10, -14, 15, 15); }
static uint16_t ref_f2bf(float f) { return ref_round_small(f, 7, -126, 127, 127); }

static double ref_small_to_d(uint16_t b, int mant_bits, int bias)
{
    unsigned e = (b & 0x7fffu) >> mant_bits, m = b & ((1u << mant_bits) - 1);
    double v = e ? ldexp((double)((1u << mant_bits) + m), (int)e - bias - mant_bits)
                 : ldexp((double)m, 1 - bias - mant_bits);
    return (b & 0x8000u) ? -v : v;
}

/* Element i of the input keyed `key`: random bits for data movement (op 0)
 * and integer reductions; exactly combinable values for float reductions. */
static void gen_one(void *dst, sym_datatype_t dt, sym_op_t op, uint64_t key, size_t i)
{
    uint64_t r = mix64(key ^ (i * UINT64_C(0xd1b54a32d192ed03)));
    size_t es = sym_datatype_size(dt);
    if (op == 0 || !dt_is_float(dt)) {
        memcpy(dst, &r, es);
        return;
    }
    static const double prods[] = { 1, 2, -1, -2, 0.5, -0.5 };
    double v = op == SYM_OP_PROD ? prods[r % 6] : (double)((int)((r >> 8) % 33) - 16);
    switch (dt) {
    case SYM_FLOAT: { float f = (float)v; memcpy(dst, &f, 4); break; }
    case SYM_DOUBLE: memcpy(dst, &v, 8); break;
    case SYM_FLOAT16: { uint16_t h = ref_f2h((float)v); memcpy(dst, &h, 2); break; }
    case SYM_BFLOAT16: { uint16_t h = ref_f2bf((float)v); memcpy(dst, &h, 2); break; }
    default: break;
    }
}

static void gen_elems(void *buf, size_t count, sym_datatype_t dt, sym_op_t op, uint64_t key,
                      size_t first)
{
    size_t es = sym_datatype_size(dt);
    for (size_t i = 0; i < count; i++)
        gen_one((uint8_t *)buf + i * es, dt, op, key, first + i);
}

static uint64_t load_u(const void *p, size_t es, bool sgn)
{
    switch (es) {
    case 1: { uint8_t v; memcpy(&v, p, 1); return sgn ? (uint64_t)(int64_t)(int8_t)v : v; }
    case 2: { uint16_t v; memcpy(&v, p, 2); return sgn ? (uint64_t)(int64_t)(int16_t)v : v; }
    case 4: { uint32_t v; memcpy(&v, p, 4); return sgn ? (uint64_t)(int64_t)(int32_t)v : v; }
    default: { uint64_t v; memcpy(&v, p, 8); return v; }
    }
}

static double load_d(const void *p, sym_datatype_t dt)
{
    switch (dt) {
    case SYM_FLOAT: { float f; memcpy(&f, p, 4); return f; }
    case SYM_DOUBLE: { double d; memcpy(&d, p, 8); return d; }
    case SYM_FLOAT16: { uint16_t h; memcpy(&h, p, 2); return ref_small_to_d(h, 10, 15); }
    default: { uint16_t h; memcpy(&h, p, 2); return ref_small_to_d(h, 7, 127); }
    }
}

/* out[j] = op over members m of input(keys[m]) element first + j. */
static void ref_reduce(void *out, sym_datatype_t dt, sym_op_t op, int nm, const uint64_t *keys,
                       size_t first, size_t count)
{
    size_t es = sym_datatype_size(dt);
    uint8_t el[16];
    for (size_t j = 0; j < count; j++) {
        uint8_t *o = (uint8_t *)out + j * es;
        if (!dt_is_float(dt)) {
            bool sgn = dt_is_signed(dt);
            uint64_t acc = 0;
            for (int m = 0; m < nm; m++) {
                gen_one(el, dt, op, keys[m], first + j);
                uint64_t v = load_u(el, es, sgn);
                if (m == 0) {
                    acc = v;
                    continue;
                }
                switch (op) {
                case SYM_OP_SUM: case SYM_OP_AVG: acc += v; break;
                case SYM_OP_PROD: acc *= v; break;
                case SYM_OP_BAND: acc &= v; break;
                case SYM_OP_BOR: acc |= v; break;
                case SYM_OP_BXOR: acc ^= v; break;
                case SYM_OP_MIN:
                    if (sgn ? (int64_t)v < (int64_t)acc : v < acc)
                        acc = v;
                    break;
                case SYM_OP_MAX:
                    if (sgn ? (int64_t)v > (int64_t)acc : v > acc)
                        acc = v;
                    break;
                }
            }
            if (op == SYM_OP_AVG)
                acc = sgn ? (uint64_t)((int64_t)acc / (int64_t)nm) : acc / (uint64_t)nm;
            memcpy(o, &acc, es); /* little-endian truncation = wrap to the type */
            continue;
        }
        double acc = 0;
        for (int m = 0; m < nm; m++) {
            gen_one(el, dt, op, keys[m], first + j);
            double v = load_d(el, dt);
            if (m == 0) {
                acc = v;
                continue;
            }
            switch (op) {
            case SYM_OP_SUM: case SYM_OP_AVG: acc += v; break;
            case SYM_OP_PROD: acc *= v; break;
            case SYM_OP_MIN: acc = v < acc ? v : acc; break;
            case SYM_OP_MAX: acc = v > acc ? v : acc; break;
            default: break;
            }
        }
        /* float averages divide in float, as the library promises to do */
        float f = op == SYM_OP_AVG ? (float)acc / (float)nm : (float)acc;
        switch (dt) {
        case SYM_FLOAT: memcpy(o, &f, 4); break;
        case SYM_DOUBLE: {
            double d = op == SYM_OP_AVG ? acc / (double)nm : acc;
            memcpy(o, &d, 8);
            break;
        }
        case SYM_FLOAT16: { uint16_t h = ref_f2h(f); memcpy(o, &h, 2); break; }
        default: { uint16_t h = ref_f2bf(f); memcpy(o, &h, 2); break; }
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Symmetric work areas                                                      */
/* ------------------------------------------------------------------------ */

static void *sym_alloc_or_die(size_t bytes, const char *what)
{
    void *p = sym_calloc(1, bytes);
    if (!p) {
        fprintf(stderr, "stress: PE %d: cannot allocate %zu bytes for %s: %s\n", S.me, bytes,
                what, sym_last_error());
        _exit(2);
    }
    return p;
}

static void areas_init(void)
{
    S.rma_bytes = S.o.max_bytes + 2 * MARGIN;
    S.rma = sym_alloc_or_die(S.rma_bytes, "the RMA region");
    S.sig = sym_alloc_or_die(MAXPE * 8, "signal words");
    S.sig_add = sym_alloc_or_die(MAXPE * 8, "signal words");
    S.iv_i32 = sym_alloc_or_die(MAXPE * 4, "wait words");
    S.iv_i64 = sym_alloc_or_die(MAXPE * 8, "wait words");
    S.iv_u32 = sym_alloc_or_die(MAXPE * 4, "wait words");
    S.iv_u64 = sym_alloc_or_die(MAXPE * 8, "wait words");
    S.amo32 = sym_alloc_or_die(2 * MAXPE * 4, "atomic words");
    S.amo64 = sym_alloc_or_die(2 * MAXPE * 8, "atomic words");
}

static void areas_fini(void)
{
    sym_free(S.amo64);
    sym_free(S.amo32);
    sym_free(S.iv_u64);
    sym_free(S.iv_u32);
    sym_free(S.iv_i64);
    sym_free(S.iv_i32);
    sym_free(S.sig_add);
    sym_free(S.sig);
    sym_free(S.rma);
}

/* One of the ways of synchronising all PEs after RMA. */
static void sync_world(struct rng *r)
{
    switch (rbelow(r, 4)) {
    case 0:
        CALL(sym_barrier_all());
        S.count[CNT_BARRIER_ALL]++;
        break;
    case 1:
        CALL(sym_quiet());
        CALL(sym_sync_all());
        S.count[CNT_QUIET]++;
        S.count[CNT_SYNC_ALL]++;
        break;
    default: {
        static const sym_algorithm_t algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE,
                                                 SYM_ALGO_RD };
        sym_coll_opts_t opts = { .algorithm = algos[rbelow(r, 4)] };
        CALL(sym_quiet());
        CALL(sym_barrier(sym_team_world(), &opts));
        S.count[CNT_QUIET]++;
        S.count[CNT_BARRIER]++;
        break;
    }
    }
}

/* ------------------------------------------------------------------------ */
/* RMA steps                                                                 */
/* ------------------------------------------------------------------------ */

enum rma_kind { R_PUT, R_PUT_NBI, R_IPUT, R_P, R_PUT_SIG, R_PUT_SIG_NBI,
                R_GET, R_GET_NBI, R_IGET, R_G, R_NKIND };
static const char *const rma_names[] = { "put", "put_nbi", "iput", "p", "put_signal",
                                         "put_signal_nbi", "get", "get_nbi", "iget", "g" };

struct strided {
    size_t es, nelems;
    ptrdiff_t dst_stride, src_stride;
};

/* A strided pattern whose remote span fits in `room` bytes. */
static struct strided pick_strided(struct rng *r, size_t room)
{
    static const size_t sizes[] = { 1, 2, 4, 8, 16 };
    struct strided s;
    s.es = sizes[rbelow(r, 5)];
    s.dst_stride = (ptrdiff_t)(1 + rbelow(r, 4));
    s.src_stride = (ptrdiff_t)(1 + rbelow(r, 4));
    size_t max = room / (s.es * (size_t)s.dst_stride);
    s.nelems = pick_count(r, max);
    return s;
}

/* Fill the expected image of a region of `bytes` bytes: filler keyed
 * `fill`, with the strided data of the writer (data keyed `data`) laid at
 * byte `off`. */
static void expect_strided(uint8_t *img, size_t off, const struct strided *s, uint64_t data,
                           ptrdiff_t remote_stride, ptrdiff_t local_stride)
{
    for (size_t i = 0; i < s->nelems; i++)
        for (size_t b = 0; b < s->es; b++)
            img[off + i * (size_t)remote_stride * s->es + b] =
                byte_at(data, i * (size_t)local_stride * s->es + b);
}

static void step_rma(struct rng *r)
{
    const int me = S.me, n = S.n;
    enum rma_kind kind = (enum rma_kind)rbelow(r, R_NKIND);
    int shift = (int)rbelow(r, (uint64_t)n);
    int tgt = (me + shift) % n, src_pe = (me - shift + n) % n;
    size_t room = S.o.max_bytes;
    size_t sz = pick_count(r, room);
    size_t off = MARGIN + rbelow(r, room - sz + 1);
    struct strided st = pick_strided(r, room);
    size_t soff = MARGIN + rbelow(r, room - (st.nelems ? ((st.nelems - 1) * (size_t)st.dst_stride
                                                           + 1) * st.es : 0) + 1);
    soff = soff / st.es * st.es;
    int nsingle = 1 + (int)rbelow(r, 8), width = 8 << rbelow(r, 4);
    size_t poff = (MARGIN + rbelow(r, room - 64)) / 8 * 8;
    bool sig_add = rchance(r, 50);
    uint64_t sig_val = sig_add ? 1 + rbelow(r, 1000) : S.step + 1;
    set_what("rma %s shift %d size %zu off %zu strided(es %zu n %zu dst %td src %td @%zu) "
             "single(%d x %d bits)", rma_names[kind], shift, sz, off, st.es, st.nelems,
             st.dst_stride, st.src_stride, soff, nsingle, width);

    const uint64_t my_data = key3(S.step, (uint64_t)me, K_DATA);
    const uint64_t peer_data_w = key3(S.step, (uint64_t)src_pe, K_DATA); /* who writes me */
    const uint64_t peer_data_r = key3(S.step, (uint64_t)tgt, K_DATA);    /* whom I read */
    const uint64_t my_fill = key3(S.step, (uint64_t)me, K_FILL);
    /* expected images: the region, or a local buffer with strides up to 4 */
    uint8_t *img = xmalloc(4 * S.rma_bytes + MARGIN);
    const bool is_put = kind <= R_PUT_SIG_NBI;
    uint64_t sig_before = 0;

    if (is_put) {
        fill_bytes(S.rma, S.rma_bytes, my_fill);
        if (kind == R_PUT_SIG || kind == R_PUT_SIG_NBI)
            CALL(sym_signal_fetch(&S.sig_add[src_pe], &sig_before));
    } else {
        fill_bytes(S.rma, S.rma_bytes, my_data);
    }
    sync_world(r);

    uint8_t *local = NULL;
    size_t local_bytes = 0;
    switch (kind) {
    case R_PUT: case R_PUT_NBI: case R_PUT_SIG: case R_PUT_SIG_NBI:
        local = xmalloc(sz);
        fill_bytes(local, sz, my_data);
        if (kind == R_PUT) {
            CALL(sym_put(S.rma + off, local, sz, tgt));
            S.count[CNT_PUT]++;
        } else if (kind == R_PUT_NBI) {
            CALL(sym_put_nbi(S.rma + off, local, sz, tgt));
            CALL(sym_quiet());
            S.count[CNT_PUT_NBI]++;
            S.count[CNT_QUIET]++;
        } else {
            uint64_t *sw = sig_add ? &S.sig_add[me] : &S.sig[me];
            sym_signal_op_t op = sig_add ? SYM_SIGNAL_ADD : SYM_SIGNAL_SET;
            if (kind == R_PUT_SIG) {
                CALL(sym_put_signal(S.rma + off, local, sz, sw, sig_val, op, tgt));
                S.count[CNT_PUT_SIGNAL]++;
            } else {
                CALL(sym_put_signal_nbi(S.rma + off, local, sz, sw, sig_val, op, tgt));
                S.count[CNT_PUT_SIGNAL_NBI]++;
            }
        }
        break;
    case R_IPUT:
        local_bytes = st.nelems ? ((st.nelems - 1) * (size_t)st.src_stride + 1) * st.es : 0;
        local = xmalloc(local_bytes);
        fill_bytes(local, local_bytes, my_data);
        CALL(sym_iput(S.rma + soff, local, st.dst_stride, st.src_stride, st.es, st.nelems, tgt));
        S.count[CNT_IPUT]++;
        break;
    case R_P:
        for (int i = 0; i < nsingle; i++) {
            uint8_t v[8];
            for (int b = 0; b < 8; b++)
                v[b] = byte_at(my_data, (size_t)i * 8 + (size_t)b);
            uint8_t *d = S.rma + poff + (size_t)i * 8;
            uint16_t v16; uint32_t v32; uint64_t v64;
            memcpy(&v16, v, 2); memcpy(&v32, v, 4); memcpy(&v64, v, 8);
            switch (width) {
            case 8: CALL(sym_p8(d, v[0], tgt)); break;
            case 16: CALL(sym_p16((uint16_t *)(void *)d, v16, tgt)); break;
            case 32: CALL(sym_p32((uint32_t *)(void *)d, v32, tgt)); break;
            default: CALL(sym_p64((uint64_t *)(void *)d, v64, tgt)); break;
            }
            S.count[CNT_P]++;
        }
        break;
    case R_GET: case R_GET_NBI: {
        local_bytes = sz + 2 * MARGIN;
        local = xmalloc(local_bytes);
        uint64_t lfill = key3(S.step, (uint64_t)me, K_FILL + 100);
        fill_bytes(local, local_bytes, lfill);
        if (kind == R_GET) {
            CALL(sym_get(local + MARGIN, S.rma + off, sz, tgt));
            S.count[CNT_GET]++;
        } else {
            CALL(sym_get_nbi(local + MARGIN, S.rma + off, sz, tgt));
            CALL(sym_quiet());
            S.count[CNT_GET_NBI]++;
            S.count[CNT_QUIET]++;
        }
        fill_bytes(img, local_bytes, lfill);
        for (size_t i = 0; i < sz; i++)
            img[MARGIN + i] = byte_at(peer_data_r, off + i);
        check_buf(local, img, local_bytes, 1, "get destination");
        break;
    }
    case R_IGET: {
        /* here dst_stride is the remote (source) stride, src_stride the local one */
        local_bytes = (st.nelems ? ((st.nelems - 1) * (size_t)st.src_stride + 1) * st.es : 0) +
                      MARGIN;
        local = xmalloc(local_bytes);
        uint64_t lfill = key3(S.step, (uint64_t)me, K_FILL + 100);
        fill_bytes(local, local_bytes, lfill);
        CALL(sym_iget(local, S.rma + soff, st.src_stride, st.dst_stride, st.es, st.nelems, tgt));
        S.count[CNT_IGET]++;
        fill_bytes(img, local_bytes, lfill);
        for (size_t i = 0; i < st.nelems; i++)
            for (size_t b = 0; b < st.es; b++)
                img[i * (size_t)st.src_stride * st.es + b] =
                    byte_at(peer_data_r, soff + i * (size_t)st.dst_stride * st.es + b);
        check_buf(local, img, local_bytes, st.es, "iget destination");
        break;
    }
    case R_G:
        for (int i = 0; i < nsingle; i++) {
            const uint8_t *s = S.rma + poff + (size_t)i * 8;
            uint64_t got = 0, want = 0;
            switch (width) {
            case 8: { uint8_t v; CALL(sym_g8(&v, s, tgt)); got = v; break; }
            case 16: { uint16_t v; CALL(sym_g16(&v, (const uint16_t *)(const void *)s, tgt));
                       got = v; break; }
            case 32: { uint32_t v; CALL(sym_g32(&v, (const uint32_t *)(const void *)s, tgt));
                       got = v; break; }
            default: CALL(sym_g64(&got, (const uint64_t *)(const void *)s, tgt)); break;
            }
            S.count[CNT_G]++;
            for (int b = 0; b < width / 8; b++)
                want |= (uint64_t)byte_at(peer_data_r, poff + (size_t)i * 8 + (size_t)b)
                        << (8 * b);
            if (got != want)
                wrong("g%d #%d from PE %d: got 0x%" PRIx64 ", expected 0x%" PRIx64, width, i,
                      tgt, got, want);
        }
        break;
    default:
        break;
    }

    if (is_put) {
        if (kind == R_PUT_SIG || kind == R_PUT_SIG_NBI) {
            uint64_t *sw = sig_add ? &S.sig_add[src_pe] : &S.sig[src_pe];
            /* the writer of this PE drew the same signal value */
            uint64_t want = sig_add ? sig_before + sig_val : sig_val, seen = 0;
            sym_cmp_t cmp = rchance(r, 50) ? SYM_CMP_EQ : SYM_CMP_GE;
            CALL(sym_signal_wait_until(sw, cmp, want, &seen));
            S.count[CNT_SIGNAL_WAIT]++;
            if (seen != want)
                wrong("signal from PE %d: wait returned %" PRIu64 ", expected %" PRIu64,
                      src_pe, seen, want);
            if (kind == R_PUT_SIG_NBI) {
                CALL(sym_quiet()); /* before our own source buffer is freed */
                S.count[CNT_QUIET]++;
            }
        } else {
            sync_world(r);
        }
        fill_bytes(img, S.rma_bytes, my_fill);
        if (kind == R_PUT || kind == R_PUT_NBI || kind == R_PUT_SIG || kind == R_PUT_SIG_NBI) {
            for (size_t i = 0; i < sz; i++)
                img[off + i] = byte_at(peer_data_w, i);
        } else if (kind == R_IPUT) {
            expect_strided(img, soff, &st, peer_data_w, st.dst_stride, st.src_stride);
        } else {
            for (int i = 0; i < nsingle; i++)
                for (int b = 0; b < width / 8; b++)
                    img[poff + (size_t)i * 8 + (size_t)b] =
                        byte_at(peer_data_w, (size_t)i * 8 + (size_t)b);
        }
        check_buf(S.rma, img, S.rma_bytes, kind == R_IPUT ? st.es : 1, "put target region");
    }
    sync_world(r);
    free(local);
    free(img);
}

/* ------------------------------------------------------------------------ */
/* Atomics                                                                   */
/* ------------------------------------------------------------------------ */

enum amo_op { A_FETCH, A_SET, A_SWAP, A_CSWAP, A_ADD, A_FADD, A_INC, A_FINC,
              A_AND, A_OR, A_XOR, A_FAND, A_FOR, A_FXOR, A_NOPS };
static const char *const amo_names[] = { "fetch", "set", "swap", "compare_swap", "add",
                                         "fetch_add", "inc", "fetch_inc", "and", "or", "xor",
                                         "fetch_and", "fetch_or", "fetch_xor" };

/* Apply one op to the model word; returns the value a fetching op yields. */
static uint64_t amo_model(enum amo_op op, uint64_t *w, uint64_t v, uint64_t cond, uint64_t mask)
{
    uint64_t old = *w;
    switch (op) {
    case A_FETCH: break;
    case A_SET: case A_SWAP: *w = v; break;
    case A_CSWAP: if (old == cond) *w = v; break;
    case A_ADD: case A_FADD: *w = old + v; break;
    case A_INC: case A_FINC: *w = old + 1; break;
    case A_AND: case A_FAND: *w = old & v; break;
    case A_OR: case A_FOR: *w = old | v; break;
    case A_XOR: case A_FXOR: *w = old ^ v; break;
    default: break;
    }
    *w &= mask;
    return old;
}

static bool amo_fetches(enum amo_op op)
{
    return op == A_FETCH || op == A_SWAP || op == A_CSWAP || op == A_FADD || op == A_FINC ||
           op == A_FAND || op == A_FOR || op == A_FXOR;
}

#define AMO_DO_(bits, op, dest, v, cond, old_p, pe)                                        \
    switch (op) {                                                                         \
    case A_FETCH: st = sym_atomic_fetch##bits(old_p, dest, pe); break;                     \
    case A_SET: st = sym_atomic_set##bits(dest, v, pe); break;                             \
    case A_SWAP: st = sym_atomic_swap##bits(dest, v, old_p, pe); break;                    \
    case A_CSWAP: st = sym_atomic_compare_swap##bits(dest, cond, v, old_p, pe); break;     \
    case A_ADD: st = sym_atomic_add##bits(dest, v, pe); break;                             \
    case A_FADD: st = sym_atomic_fetch_add##bits(dest, v, old_p, pe); break;               \
    case A_INC: st = sym_atomic_inc##bits(dest, pe); break;                                \
    case A_FINC: st = sym_atomic_fetch_inc##bits(dest, old_p, pe); break;                  \
    case A_AND: st = sym_atomic_and##bits(dest, v, pe); break;                             \
    case A_OR: st = sym_atomic_or##bits(dest, v, pe); break;                               \
    case A_XOR: st = sym_atomic_xor##bits(dest, v, pe); break;                             \
    case A_FAND: st = sym_atomic_fetch_and##bits(dest, v, old_p, pe); break;               \
    case A_FOR: st = sym_atomic_fetch_or##bits(dest, v, old_p, pe); break;                 \
    case A_FXOR: st = sym_atomic_fetch_xor##bits(dest, v, old_p, pe); break;               \
    default: st = SYM_ERR_INTERNAL; break;                                                 \
    }

/* Execute op on word `idx` of the 32- or 64-bit array at `pe`. */
static uint64_t amo_do(int bits, enum amo_op op, size_t idx, uint64_t v, uint64_t cond, int pe)
{
    sym_status_t st;
    if (bits == 32) {
        uint32_t old = 0;
        AMO_DO_(32, op, &S.amo32[idx], (uint32_t)v, (uint32_t)cond, &old, pe);
        if (st != SYM_OK)
            die(amo_names[op], st);
        S.count[CNT_AMO32]++;
        return old;
    }
    uint64_t old = 0;
    AMO_DO_(64, op, &S.amo64[idx], v, cond, &old, pe);
    if (st != SYM_OK)
        die(amo_names[op], st);
    S.count[CNT_AMO64]++;
    return old;
}

/* The op sequence PE p runs on its private word: drawn from (step, p). */
struct amo_seq {
    int k;
    enum amo_op op[16];
    uint64_t v[16], cond[16];
    bool cond_hits[16];
};

static void amo_seq_for(int p, struct amo_seq *q)
{
    struct rng r = rng_for(S.step, (uint64_t)p, K_OPS);
    q->k = 1 + (int)rbelow(&r, 16);
    for (int i = 0; i < q->k; i++) {
        q->op[i] = (enum amo_op)rbelow(&r, A_NOPS);
        q->v[i] = rnext(&r);
        q->cond[i] = rnext(&r);
        q->cond_hits[i] = rchance(&r, 50); /* then cond is the current value */
    }
}

static void step_amo(struct rng *r)
{
    const int me = S.me, n = S.n;
    const int bits = rchance(r, 50) ? 32 : 64;
    const uint64_t mask = bits == 32 ? UINT32_MAX : UINT64_MAX;
    const bool contended = rchance(r, 35);
    const int shift = (int)rbelow(r, (uint64_t)n);
    const int ctgt = (int)rbelow(r, (uint64_t)n);
    set_what("atomics %d-bit %s shift %d target %d", bits, contended ? "contended" : "private",
             shift, ctgt);

    /* every word of this PE starts from a value known to all */
    for (int q = 0; q < 2 * MAXPE; q++) {
        uint64_t init = key3(S.step, (uint64_t)q, K_INIT) & mask;
        if (contended && q == MAXPE + 1)
            init = 0; /* the fetch_or word */
        if (bits == 32)
            CALL(sym_atomic_set32(&S.amo32[q], (uint32_t)init, me));
        else
            CALL(sym_atomic_set64(&S.amo64[q], init, me));
    }
    sync_world(r);

    if (!contended) {
        int tgt = (me + shift) % n;
        struct amo_seq q;
        amo_seq_for(me, &q);
        uint64_t model = key3(S.step, (uint64_t)me, K_INIT) & mask;
        for (int i = 0; i < q.k; i++) {
            uint64_t cond = q.cond_hits[i] ? model : q.cond[i] & mask;
            uint64_t want = amo_model(q.op[i], &model, q.v[i] & mask, cond, mask);
            uint64_t got = amo_do(bits, q.op[i], (size_t)me, q.v[i] & mask, cond, tgt);
            if (amo_fetches(q.op[i]) && got != want)
                wrong("%s%d #%d on PE %d: fetched 0x%" PRIx64 ", expected 0x%" PRIx64,
                      amo_names[q.op[i]], bits, i, tgt, got, want);
        }
        sync_world(r);
        /* check the words other PEs worked on here */
        for (int p = 0; p < n; p++) {
            if ((p + shift) % n != me)
                continue;
            amo_seq_for(p, &q);
            uint64_t m = key3(S.step, (uint64_t)p, K_INIT) & mask;
            for (int i = 0; i < q.k; i++)
                amo_model(q.op[i], &m, q.v[i] & mask, q.cond_hits[i] ? m : q.cond[i] & mask,
                          mask);
            uint64_t got = bits == 32 ? S.amo32[p] : S.amo64[p];
            if (got != m)
                wrong("word of PE %d after %d atomics: 0x%" PRIx64 ", expected 0x%" PRIx64, p,
                      q.k, got, m);
        }
    } else {
        /* everyone adds to word MAXPE and sets its bit in word MAXPE+1 at ctgt */
        struct rng mine = rng_for(S.step, (uint64_t)me, K_OPS);
        const uint64_t init = key3(S.step, MAXPE, K_INIT) & mask;
        int k = 1 + (int)rbelow(r, 24);
        uint64_t total = 0, last = 0;
        bool have_last = false;
        for (int p = 0; p < n; p++) {
            struct rng pr = rng_for(S.step, (uint64_t)p, K_OPS);
            for (int i = 0; i < k; i++) {
                (void)rbelow(&pr, 4);
                total += 1 + rbelow(&pr, 1000);
            }
        }
        for (int i = 0; i < k; i++) {
            int how = (int)rbelow(&mine, 4);
            uint64_t v = 1 + rbelow(&mine, 1000), old;
            switch (how) {
            case 0:
                amo_do(bits, A_ADD, MAXPE, v, 0, ctgt);
                break;
            case 1:
                old = amo_do(bits, A_FADD, MAXPE, v, 0, ctgt);
                if (((old - init) & mask) > total - v ||
                    (have_last && ((old - last) & mask) == 0))
                    wrong("contended fetch_add%d #%d fetched 0x%" PRIx64 " (start 0x%" PRIx64
                          ", total %" PRIu64 ")", bits, i, old, init, total);
                last = old;
                have_last = true;
                break;
            case 2: /* v increments, one fetch_inc each */
                for (uint64_t j = 0; j < v; j++) {
                    if (j == 0 || j + 1 == v) {
                        old = amo_do(bits, A_FINC, MAXPE, 0, 0, ctgt);
                        if (((old - init) & mask) >= total)
                            wrong("contended fetch_inc%d fetched 0x%" PRIx64, bits, old);
                    } else if (j < 4) {
                        amo_do(bits, A_INC, MAXPE, 0, 0, ctgt);
                    } else { /* the rest in one add */
                        amo_do(bits, A_ADD, MAXPE, v - 1 - j, 0, ctgt);
                        j = v - 2;
                    }
                }
                break;
            default: /* compare-and-swap loop */
                old = amo_do(bits, A_FETCH, MAXPE, 0, 0, ctgt);
                for (int tries = 0;; tries++) {
                    uint64_t seen = amo_do(bits, A_CSWAP, MAXPE, (old + v) & mask, old, ctgt);
                    if (seen == old)
                        break;
                    old = seen;
                    if (tries > 1000000) {
                        wrong("compare_swap%d loop made no progress in 1e6 tries", bits);
                        break;
                    }
                }
                break;
            }
        }
        uint64_t bit = UINT64_C(1) << me;
        uint64_t old = amo_do(bits, A_FOR, MAXPE + 1, bit, 0, ctgt);
        if (old & bit)
            wrong("fetch_or%d: own bit %d already set in 0x%" PRIx64, bits, me, old);
        sync_world(r);
        if (me == ctgt) {
            uint64_t sum = bits == 32 ? S.amo32[MAXPE] : S.amo64[MAXPE];
            uint64_t ors = bits == 32 ? S.amo32[MAXPE + 1] : S.amo64[MAXPE + 1];
            uint64_t all = n == 64 ? UINT64_MAX : (UINT64_C(1) << n) - 1;
            if (sum != ((init + total) & mask))
                wrong("contended sum%d: 0x%" PRIx64 ", expected 0x%" PRIx64, bits, sum,
                      (init + total) & mask);
            if (ors != all)
                wrong("contended or%d: 0x%" PRIx64 ", expected 0x%" PRIx64, bits, ors, all);
        }
    }
    sync_world(r);
}

/* ------------------------------------------------------------------------ */
/* Waits: every PE writes one word at a target, which waits for them all     */
/* ------------------------------------------------------------------------ */

enum wtype { W_I32, W_I64, W_U32, W_U64, W_NTYPES };

static int wait_satisfied(enum wtype t, int p, sym_cmp_t cmp, int64_t sv, uint64_t uv)
{
    int64_t s = 0;
    uint64_t u = 0;
    bool sgn = t == W_I32 || t == W_I64;
    switch (t) {
    case W_I32: s = __atomic_load_n(&S.iv_i32[p], __ATOMIC_ACQUIRE); break;
    case W_I64: s = __atomic_load_n(&S.iv_i64[p], __ATOMIC_ACQUIRE); break;
    case W_U32: u = __atomic_load_n(&S.iv_u32[p], __ATOMIC_ACQUIRE); break;
    default: u = __atomic_load_n(&S.iv_u64[p], __ATOMIC_ACQUIRE); break;
    }
    switch (cmp) {
    case SYM_CMP_EQ: return sgn ? s == sv : u == uv;
    case SYM_CMP_GE: return sgn ? s >= sv : u >= uv;
    case SYM_CMP_GT: return sgn ? s > sv : u > uv;
    case SYM_CMP_LE: return sgn ? s <= sv : u <= uv;
    case SYM_CMP_LT: return sgn ? s < sv : u < uv;
    default: return 0;
    }
}

#define WAIT_CALL_(name, T, arr, val, form)                                                  \
    switch (form) {                                                                         \
    case 0: st = sym_wait_until_all_##name(arr, nw, status, cmp, (T)val); break;            \
    case 1: st = sym_wait_until_any_##name(arr, nw, status, cmp, (T)val, &idx); break;      \
    case 2: st = sym_wait_until_some_##name(arr, nw, status, cmp, (T)val, idxs, &cnt); break; \
    case 3: st = sym_test_all_##name(arr, nw, status, cmp, (T)val, &sat); break;            \
    case 4: st = sym_test_any_##name(arr, nw, status, cmp, (T)val, &idx); break;            \
    case 5: st = sym_test_some_##name(arr, nw, status, cmp, (T)val, idxs, &cnt); break;     \
    case 6: st = sym_wait_until_##name(&arr[i1], cmp, (T)val); break;                      \
    default: st = sym_test_##name(&arr[i1], cmp, (T)val, &sat); break;                     \
    }

static void step_wait(struct rng *r)
{
    const int me = S.me, n = S.n;
    const int tgt = (int)rbelow(r, (uint64_t)n);
    enum wtype t = (enum wtype)rbelow(r, W_NTYPES);
    const bool sgn = t == W_I32 || t == W_I64, down = sgn && rchance(r, 50);
    const int64_t sv = down ? -(int64_t)(S.step + 1) : (int64_t)(S.step + 1);
    const uint64_t uv = S.step + 1;
    static const sym_cmp_t ups[] = { SYM_CMP_EQ, SYM_CMP_GE, SYM_CMP_GT };
    static const sym_cmp_t downs[] = { SYM_CMP_EQ, SYM_CMP_LE, SYM_CMP_LT };
    sym_cmp_t cmp = down ? downs[rbelow(r, 3)] : ups[rbelow(r, 3)];
    int64_t csv = cmp == SYM_CMP_GT ? sv - 1 : cmp == SYM_CMP_LT ? sv + 1 : sv;
    uint64_t cuv = cmp == SYM_CMP_GT ? uv - 1 : uv;
    int form = (int)rbelow(r, 8);
    int how = (int)rbelow(&(struct rng){ key3(S.step, (uint64_t)me, K_OPS) }, 3);
    static const char *const tnames[] = { "int32", "int64", "uint32", "uint64" };
    set_what("wait_until %s target %d form %d cmp %d value %" PRId64, tnames[t], tgt, form,
             (int)cmp, sv);

    /* write: atomic set, single-element put, or (uint64) put-with-signal */
    switch (t) {
    case W_I32:
        if (how == 0) CALL(sym_atomic_set32((uint32_t *)(void *)&S.iv_i32[me], (uint32_t)sv, tgt));
        else CALL(sym_p32((uint32_t *)(void *)&S.iv_i32[me], (uint32_t)sv, tgt));
        break;
    case W_I64:
        if (how == 0) CALL(sym_atomic_set64((uint64_t *)(void *)&S.iv_i64[me], (uint64_t)sv, tgt));
        else CALL(sym_p64((uint64_t *)(void *)&S.iv_i64[me], (uint64_t)sv, tgt));
        break;
    case W_U32:
        if (how == 0) CALL(sym_atomic_set32(&S.iv_u32[me], (uint32_t)uv, tgt));
        else CALL(sym_p32(&S.iv_u32[me], (uint32_t)uv, tgt));
        break;
    default:
        if (how == 0) CALL(sym_atomic_set64(&S.iv_u64[me], uv, tgt));
        else if (how == 1) CALL(sym_p64(&S.iv_u64[me], uv, tgt));
        else {
            CALL(sym_put_signal(S.rma, S.rma, 0, &S.iv_u64[me], uv, SYM_SIGNAL_SET, tgt));
            S.count[CNT_PUT_SIGNAL]++;
        }
        break;
    }
    if (how == 2 && t == W_U64) {
    } else if (how == 0) {
        S.count[t == W_I32 || t == W_U32 ? CNT_AMO32 : CNT_AMO64]++;
    } else {
        S.count[CNT_P]++;
    }

    /* exclude some words (their writes still happen) */
    int status[MAXPE] = { 0 };
    for (int p = 0; p < n; p++)
        status[p] = rchance(r, 15);
    int excluded[MAXPE];
    memcpy(excluded, status, sizeof(excluded));
    if (me == tgt) {
        struct rng mine = rng_for(S.step, (uint64_t)me, K_ORDER);
        size_t nw = (size_t)n;
        size_t idx = 0, idxs[MAXPE], cnt = 0;
        int sat = 0;
        sym_status_t st;
        bool done = false;
        int i1 = 0;
        for (long iter = 0; !done; iter++) {
            idx = SIZE_MAX;
            cnt = 0;
            sat = 0;
            if (form >= 6) { /* one word at a time, in order */
                while (i1 < n && status[i1])
                    i1++;
                if (i1 == n)
                    break;
            }
            switch (t) {
            case W_I32: WAIT_CALL_(int32, int32_t, S.iv_i32, csv, form); break;
            case W_I64: WAIT_CALL_(int64, int64_t, S.iv_i64, csv, form); break;
            case W_U32: WAIT_CALL_(uint32, uint32_t, S.iv_u32, cuv, form); break;
            default:
                if (form == 6 && rchance(&mine, 50)) {
                    uint64_t seen = 0;
                    st = sym_signal_wait_until(&S.iv_u64[i1], cmp, cuv, &seen);
                    S.count[CNT_SIGNAL_WAIT]++;
                    if (st == SYM_OK && seen != uv)
                        wrong("signal_wait_until returned %" PRIu64 ", expected %" PRIu64,
                              seen, uv);
                    i1++;
                    continue;
                } else {
                    WAIT_CALL_(uint64, uint64_t, S.iv_u64, cuv, form);
                }
                break;
            }
            if (st != SYM_OK)
                die("wait/test", st);
            if (form < 3 || form == 6)
                S.count[CNT_WAIT_UNTIL]++;
            switch (form) {
            case 0: done = true; break;
            case 3: done = sat; break;
            case 1: case 4:
                if (idx == SIZE_MAX) {
                    bool left = false;
                    for (int p = 0; p < n; p++)
                        left |= !status[p];
                    if (form == 1 && left)
                        wrong("wait_until_any returned SIZE_MAX with words still included");
                    done = form == 1 || !left; /* test_any: none satisfied yet */
                    break;
                }
                if (!wait_satisfied(t, (int)idx, cmp, csv, cuv))
                    wrong("wait_until_any/test_any returned index %zu, which does not "
                          "satisfy the condition", idx);
                status[idx] = 1;
                break;
            case 2: case 5:
                if (form == 2 && cnt == 0) {
                    done = true; /* nothing left included */
                    break;
                }
                for (size_t j = 0; j < cnt; j++) {
                    if (idxs[j] >= nw || status[idxs[j]])
                        wrong("wait_until_some/test_some returned index %zu (excluded or out "
                              "of range)", idxs[j]);
                    else if (!wait_satisfied(t, (int)idxs[j], cmp, csv, cuv))
                        wrong("wait_until_some/test_some returned index %zu, which does not "
                              "satisfy the condition", idxs[j]);
                    else
                        status[idxs[j]] = 1;
                }
                if (form == 5) {
                    bool left = false;
                    for (int p = 0; p < n; p++)
                        left |= !status[p];
                    done = !left;
                }
                break;
            case 6: i1++; break;
            default:
                if (sat)
                    i1++;
                break;
            }
            if (form >= 3 && form != 6 && (done || sat || idx != SIZE_MAX || cnt))
                S.count[CNT_TEST]++; /* polls that found something */
            if (iter > 100000000L) {
                wrong("test loop never satisfied");
                break;
            }
        }
        /* every word waited for now holds what its writer wrote */
        for (int p = 0; p < n; p++)
            if (!excluded[p] && !wait_satisfied(t, p, SYM_CMP_EQ, sv, uv))
                wrong("wait word of PE %d does not hold the value it wrote after the waits", p);
    }
    sync_world(r);
}

/* ------------------------------------------------------------------------ */
/* Teams                                                                     */
/* ------------------------------------------------------------------------ */

static void entry_locate(struct entry *e)
{
    e->my_group = -1;
    for (int g = 0; g < e->ngroups; g++)
        for (int i = 0; i < e->g[g].n; i++)
            if (e->g[g].pe[i] == S.me)
                e->my_group = g;
}

static void check_handle(const struct entry *e)
{
    if (e->my_group < 0) {
        if (e->team != SYM_TEAM_INVALID)
            wrong("%s: a non-member got a team handle", e->desc);
        return;
    }
    const struct group *g = &e->g[e->my_group];
    if (e->team == SYM_TEAM_INVALID) {
        wrong("%s: a member got SYM_TEAM_INVALID", e->desc);
        return;
    }
    int got[MAXPE], mine = -1;
    for (int i = 0; i < g->n; i++)
        if (g->pe[i] == S.me)
            mine = i;
    if (sym_team_n_pes(e->team) != g->n || sym_team_my_pe(e->team) != mine)
        wrong("%s: team has %d PEs, I am %d; expected %d and %d", e->desc,
              sym_team_n_pes(e->team), sym_team_my_pe(e->team), g->n, mine);
    CALL(sym_team_members(e->team, got));
    for (int i = 0; i < g->n; i++)
        if (got[i] != g->pe[i])
            wrong("%s: member %d is PE %d, expected %d", e->desc, i, got[i], g->pe[i]);
}

static int live_entries(void)
{
    int k = 0;
    for (int i = 0; i < MAX_ENTRIES; i++)
        k += S.ent[i].live;
    return k;
}

static struct entry *free_entry(const struct entry *not)
{
    for (int i = 1; i < MAX_ENTRIES; i++)
        if (!S.ent[i].live && &S.ent[i] != not)
            return &S.ent[i];
    return NULL;
}

static void step_team(struct rng *r)
{
    int nlive = live_entries();
    bool create = nlive == 1 || (nlive + 2 <= MAX_ENTRIES && rchance(r, 55));
    if (!create) {
        int k = 1 + (int)rbelow(r, (uint64_t)(nlive - 1)), i = 0;
        for (i = 1; i < MAX_ENTRIES; i++)
            if (S.ent[i].live && --k == 0)
                break;
        struct entry *e = &S.ent[i];
        set_what("team destroy of %s", e->desc);
        if (e->team != SYM_TEAM_INVALID) {
            CALL(sym_team_destroy(e->team));
            S.count[CNT_TEAM_DESTROY]++;
            if (sym_team_n_pes(e->team) != -1)
                wrong("%s: a destroyed handle still reports %d PEs", e->desc,
                      sym_team_n_pes(e->team));
        }
        memset(e, 0, sizeof(*e));
        return;
    }
    /* parent: any live entry; a split of a set of teams splits each of them
     * with the same arguments (valid for the smallest), concurrently */
    int k0 = (int)rbelow(r, (uint64_t)nlive), pi = 0;
    for (pi = 0; pi < MAX_ENTRIES; pi++)
        if (S.ent[pi].live && k0-- == 0)
            break;
    struct entry *par = &S.ent[pi];
    int m = MAXPE;
    for (int g = 0; g < par->ngroups; g++)
        m = par->g[g].n < m ? par->g[g].n : m;
    char pdesc[sizeof(par->desc)];
    memcpy(pdesc, par->desc, sizeof(pdesc));
    int how = (int)rbelow(r, 3);
    struct entry *a = free_entry(NULL);
    memset(a, 0, sizeof(*a));
    a->live = true;
    if (how == 0) {
        int size = 1 + (int)rbelow(r, (uint64_t)m);
        int stride = size == 1 ? (int)rbelow(r, 5) - 2 : 1 + (int)rbelow(r, (uint64_t)((m - 1) /
                                                                          (size - 1)));
        int start;
        if (size > 1 && rchance(r, 40)) {
            stride = -stride;
            start = (size - 1) * -stride + (int)rbelow(r, (uint64_t)(m - (size - 1) * -stride));
        } else {
            int span = size > 1 ? (size - 1) * stride : 0;
            start = (int)rbelow(r, (uint64_t)(m - span));
        }
        a->ngroups = par->ngroups;
        for (int g = 0; g < par->ngroups; g++) {
            a->g[g].n = size;
            for (int i = 0; i < size; i++)
                a->g[g].pe[i] = par->g[g].pe[start + i * stride];
        }
        snprintf(a->desc, sizeof(a->desc), "split_strided(%.40s, %d, %d, %d)", pdesc, start,
                 stride, size);
        entry_locate(a);
        set_what("team %s", a->desc);
        if (par->my_group >= 0) {
            CALL(sym_team_split_strided(par->team, start, stride, size, &a->team));
            S.count[CNT_SPLIT_STRIDED]++;
        }
    } else if (how == 1) {
        int x = 1 + (int)rbelow(r, (uint64_t)m);
        struct entry *b = free_entry(a);
        memset(b, 0, sizeof(*b));
        b->live = true;
        for (int g = 0; g < par->ngroups; g++) {
            const struct group *pg = &par->g[g];
            const int pm = pg->n, rows = (pm + x - 1) / x;
            for (int y = 0; y < rows; y++) {
                struct group *row = &a->g[a->ngroups++];
                for (int i = y * x; i < pm && i < (y + 1) * x; i++)
                    row->pe[row->n++] = pg->pe[i];
            }
            for (int c = 0; c < x; c++) {
                struct group *col = &b->g[b->ngroups++];
                for (int i = c; i < pm; i += x)
                    col->pe[col->n++] = pg->pe[i];
            }
        }
        snprintf(a->desc, sizeof(a->desc), "split_2d(%.40s, %d).x", pdesc, x);
        snprintf(b->desc, sizeof(b->desc), "split_2d(%.40s, %d).y", pdesc, x);
        entry_locate(a);
        entry_locate(b);
        set_what("team split_2d(%s, %d)", pdesc, x);
        if (par->my_group >= 0) {
            CALL(sym_team_split_2d(par->team, x, &a->team, &b->team));
            S.count[CNT_SPLIT_2D]++;
        }
        check_handle(b);
    } else {
        int k = 1 + (int)rbelow(r, (uint64_t)m);
        int perm[MAXPE];
        for (int i = 0; i < m; i++)
            perm[i] = i;
        for (int i = m - 1; i > 0; i--) {
            int j = (int)rbelow(r, (uint64_t)i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        a->ngroups = par->ngroups;
        for (int g = 0; g < par->ngroups; g++) {
            a->g[g].n = k;
            for (int i = 0; i < k; i++)
                a->g[g].pe[i] = par->g[g].pe[perm[i]];
        }
        int len = snprintf(a->desc, sizeof(a->desc), "create(");
        for (int i = 0; i < k && len < (int)sizeof(a->desc) - 8; i++)
            len += snprintf(a->desc + len, sizeof(a->desc) - (size_t)len, "%s%d", i ? "," : "",
                            perm[i]);
        snprintf(a->desc + len, sizeof(a->desc) - (size_t)len, ")");
        entry_locate(a);
        set_what("team %s of %s", a->desc, pdesc);
        if (par->my_group >= 0) {
            CALL(sym_team_create(par->team, perm, k, &a->team));
            S.count[CNT_TEAM_CREATE]++;
        }
    }
    check_handle(a);
}

/* ------------------------------------------------------------------------ */
/* Collectives                                                               */
/* ------------------------------------------------------------------------ */

enum ckind { C_BARRIER, C_BCAST, C_REDUCE, C_ALLREDUCE, C_RSCATTER, C_ALLGATHER, C_ALLGATHERV,
             C_ALLTOALL, C_ALLTOALLV, C_GATHER, C_SCATTER, C_NKIND };
static const char *const cnames[] = { "barrier", "broadcast", "reduce", "allreduce",
                                      "reduce_scatter", "all_gather", "all_gatherv",
                                      "all_to_all", "all_to_allv", "gather", "scatter" };

static const sym_algorithm_t calgos[C_NKIND][5] = {
    [C_BARRIER] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_RD },
    [C_BCAST] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE },
    [C_REDUCE] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE },
    [C_ALLREDUCE] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE, SYM_ALGO_RD },
    [C_RSCATTER] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING },
    [C_ALLGATHER] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_RD },
    [C_ALLGATHERV] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_RD },
    [C_ALLTOALL] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE },
    [C_ALLTOALLV] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE },
    [C_GATHER] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE },
    [C_SCATTER] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE },
};
static const int ncalgos[C_NKIND] = { 4, 4, 4, 5, 3, 4, 4, 3, 3, 3, 3 };

/* One collective call on one entry: the parameters every PE draws, and
 * this PE's buffers. */
struct ccall {
    enum ckind kind;
    struct entry *e;
    sym_datatype_t dt;
    sym_op_t op;
    size_t count;
    uint64_t rroot;     /* root = rroot % group size */
    bool inplace, inpos, null_dst, nb, use_test;
    sym_coll_opts_t opts;
    uint64_t rv[MAXPE * MAXPE]; /* raw draws for v-counts */
    size_t vmax;
    int salt;
    /* this PE's */
    const struct group *g;
    int rank, root;
    uint64_t keys[MAXPE];   /* input key of each member */
    size_t counts[MAXPE], scounts[MAXPE], rcounts[MAXPE];
    uint8_t *src, *dst;
    uint8_t *buf[2]; /* what to free */
    size_t src_bytes, dst_bytes;
    sym_request_t req;
};

static const sym_op_t int_ops[] = { SYM_OP_SUM, SYM_OP_PROD, SYM_OP_MIN, SYM_OP_MAX,
                                    SYM_OP_AVG, SYM_OP_BAND, SYM_OP_BOR, SYM_OP_BXOR };

static void ccall_draw(struct rng *r, struct ccall *c, struct entry *e, int salt, bool nb)
{
    memset(c, 0, sizeof(*c));
    c->e = e;
    c->salt = salt;
    c->nb = nb;
    c->kind = (enum ckind)rbelow(r, C_NKIND);
    c->dt = all_dts[rbelow(r, N_DTS)];
    c->op = int_ops[rbelow(r, dt_is_float(c->dt) ? 5 : 8)];
    c->opts.algorithm = calgos[c->kind][rbelow(r, (uint64_t)ncalgos[c->kind])];
    c->rroot = rnext(r);
    c->inplace = rchance(r, 20);
    c->inpos = rchance(r, 50);
    c->opts.timeout_s = rchance(r, 20) ? 45.0 : 0;
    c->null_dst = rchance(r, 50);
    c->use_test = rchance(r, 40);
    int gmax = 1;
    for (int g = 0; g < e->ngroups; g++)
        gmax = e->g[g].n > gmax ? e->g[g].n : gmax;
    size_t es = sym_datatype_size(c->dt);
    size_t per = S.o.max_bytes / es;
    bool blocks = c->kind == C_RSCATTER || c->kind == C_ALLGATHER || c->kind == C_ALLTOALL ||
                  c->kind == C_GATHER || c->kind == C_SCATTER;
    if (blocks || c->kind == C_ALLGATHERV || c->kind == C_ALLTOALLV)
        per /= (size_t)gmax;
    c->count = pick_count(r, per);
    /* v-counts: each at most per / gmax so every buffer stays within max_bytes */
    c->vmax = rchance(r, 50) ? per : (per < 64 ? per : 64);
    if (c->kind == C_ALLTOALLV)
        c->vmax = c->vmax / (size_t)gmax;
    for (int i = 0; i < MAXPE * MAXPE; i++)
        c->rv[i] = rnext(r);
}

static void ccall_desc(const struct ccall *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s on %s count %zu %s %s root%%%" PRIu64 " algo %s%s%s",
             c->nb ? "i" : "", cnames[c->kind], c->e->desc, c->count,
             sym_datatype_name(c->dt), sym_op_name(c->op), c->rroot % 1000,
             sym_algorithm_name(c->opts.algorithm),
             c->inplace ? (c->inpos ? " in-place (own block)" : " in-place") : "",
             c->nb ? (c->use_test ? " (test)" : " (wait)") : "");
}

/* Prepare this PE's buffers; false if this PE is not in the entry. */
static bool ccall_prepare(struct ccall *c)
{
    if (c->e->my_group < 0)
        return false;
    c->g = &c->e->g[c->e->my_group];
    const int m = c->g->n;
    for (int i = 0; i < m; i++) {
        if (c->g->pe[i] == S.me)
            c->rank = i;
        c->keys[i] = key3(S.step, (uint64_t)c->g->pe[i], K_DATA + 16 * (uint64_t)c->salt);
    }
    c->root = (int)(c->rroot % (uint64_t)m);
    const size_t es = sym_datatype_size(c->dt), n = c->count;
    const sym_op_t gop = (c->kind == C_REDUCE || c->kind == C_ALLREDUCE ||
                          c->kind == C_RSCATTER) ? c->op : 0;
    const uint64_t mykey = c->keys[c->rank];
    size_t sc = 0, dc = 0; /* element counts of src and dst */
    switch (c->kind) {
    case C_BARRIER: break;
    case C_BCAST: sc = dc = n; break;
    case C_REDUCE: case C_ALLREDUCE: sc = dc = n; break;
    case C_RSCATTER: sc = n * (size_t)m; dc = n; break;
    case C_ALLGATHER: sc = n; dc = n * (size_t)m; break;
    case C_ALLGATHERV:
        for (int i = 0; i < m; i++) {
            c->counts[i] = (size_t)(c->rv[i] % (c->vmax + 1));
            dc += c->counts[i];
        }
        sc = c->counts[c->rank];
        break;
    case C_ALLTOALL: sc = dc = n * (size_t)m; break;
    case C_ALLTOALLV:
        for (int j = 0; j < m; j++) {
            c->scounts[j] = (size_t)(c->rv[c->rank * MAXPE + j] % (c->vmax + 1));
            c->rcounts[j] = (size_t)(c->rv[j * MAXPE + c->rank] % (c->vmax + 1));
            sc += c->scounts[j];
            dc += c->rcounts[j];
        }
        break;
    case C_GATHER: sc = n; dc = n * (size_t)m; break;
    case C_SCATTER: sc = n * (size_t)m; dc = n; break;
    default: break;
    }
    c->src_bytes = sc * es;
    c->dst_bytes = dc * es;
    uint64_t fill = key3(S.step, (uint64_t)S.me, K_FILL + 16 * (uint64_t)c->salt);
    /* in place: one buffer big enough for both, the input at its start or
     * (inpos) where this PE's own block of the output goes */
    bool inplace = c->inplace && c->kind != C_BARRIER && c->kind != C_BCAST &&
                   c->kind != C_ALLTOALLV &&
                   !((c->kind == C_GATHER || c->kind == C_REDUCE) && c->rank != c->root);
    if (c->kind == C_SCATTER && c->rank != c->root)
        inplace = false;
    c->inplace = inplace;
    if (c->kind == C_BCAST) {
        c->src = c->dst = c->buf[0] = xmalloc(c->dst_bytes);
        if (c->rank == c->root)
            gen_elems(c->dst, n, c->dt, 0, mykey, 0);
        else
            fill_bytes(c->dst, c->dst_bytes, fill);
    } else if (inplace) {
        size_t b = c->src_bytes > c->dst_bytes ? c->src_bytes : c->dst_bytes;
        c->src = c->dst = c->buf[0] = xmalloc(b);
        fill_bytes(c->dst, b, fill);
        if (c->inpos) {
            size_t displ = 0;
            switch (c->kind) {
            case C_ALLGATHER: c->src += (size_t)c->rank * n * es; break;
            case C_ALLGATHERV:
                for (int i = 0; i < c->rank; i++)
                    displ += c->counts[i];
                c->src += displ * es;
                break;
            case C_GATHER: c->src += (size_t)c->root * n * es; break;
            case C_SCATTER: c->dst += (size_t)c->root * n * es; break;
            case C_RSCATTER: c->dst += (size_t)c->rank * n * es; break;
            default: c->inpos = false; break;
            }
        }
        gen_elems(c->src, sc, c->dt, gop, mykey, 0);
    } else {
        c->src = c->buf[0] = xmalloc(c->src_bytes);
        gen_elems(c->src, sc, c->dt, gop, mykey, 0);
        bool no_dst = c->null_dst && c->rank != c->root && c->kind == C_REDUCE;
        if (!no_dst) {
            c->dst = c->buf[1] = xmalloc(c->dst_bytes);
            fill_bytes(c->dst, c->dst_bytes, fill);
        }
    }
    return true;
}

static sym_status_t ccall_issue(struct ccall *c)
{
    sym_team_t t = c->e->team;
    const sym_coll_opts_t *o = &c->opts;
    void *d = c->dst;
    const void *s = c->src;
    size_t n = c->count;
    if (!c->nb) {
        switch (c->kind) {
        case C_BARRIER: S.count[CNT_BARRIER]++; return sym_barrier(t, o);
        case C_BCAST: S.count[CNT_BROADCAST]++; return sym_broadcast(t, d, n, c->dt, c->root, o);
        case C_REDUCE: S.count[CNT_REDUCE]++;
            return sym_reduce(t, d, s, n, c->dt, c->op, c->root, o);
        case C_ALLREDUCE: S.count[CNT_ALLREDUCE]++;
            return sym_allreduce(t, d, s, n, c->dt, c->op, o);
        case C_RSCATTER: S.count[CNT_REDUCE_SCATTER]++;
            return sym_reduce_scatter(t, d, s, n, c->dt, c->op, o);
        case C_ALLGATHER: S.count[CNT_ALL_GATHER]++;
            return sym_all_gather(t, d, s, n, c->dt, o);
        case C_ALLGATHERV: S.count[CNT_ALL_GATHERV]++;
            return sym_all_gatherv(t, d, s, c->counts, c->dt, o);
        case C_ALLTOALL: S.count[CNT_ALL_TO_ALL]++;
            return sym_all_to_all(t, d, s, n, c->dt, o);
        case C_ALLTOALLV: S.count[CNT_ALL_TO_ALLV]++;
            return sym_all_to_allv(t, d, c->rcounts, s, c->scounts, c->dt, o);
        case C_GATHER: S.count[CNT_GATHER]++;
            return sym_gather(t, d, s, n, c->dt, c->root, o);
        case C_SCATTER: S.count[CNT_SCATTER]++;
            return sym_scatter(t, d, s, n, c->dt, c->root, o);
        default: return SYM_ERR_INTERNAL;
        }
    }
    sym_request_t *q = &c->req;
    switch (c->kind) {
    case C_BARRIER: S.count[CNT_IBARRIER]++; return sym_ibarrier(t, o, q);
    case C_BCAST: S.count[CNT_IBROADCAST]++;
        return sym_ibroadcast(t, d, n, c->dt, c->root, o, q);
    case C_REDUCE: S.count[CNT_IREDUCE]++;
        return sym_ireduce(t, d, s, n, c->dt, c->op, c->root, o, q);
    case C_ALLREDUCE: S.count[CNT_IALLREDUCE]++;
        return sym_iallreduce(t, d, s, n, c->dt, c->op, o, q);
    case C_RSCATTER: S.count[CNT_IREDUCE_SCATTER]++;
        return sym_ireduce_scatter(t, d, s, n, c->dt, c->op, o, q);
    case C_ALLGATHER: S.count[CNT_IALL_GATHER]++;
        return sym_iall_gather(t, d, s, n, c->dt, o, q);
    case C_ALLGATHERV: S.count[CNT_IALL_GATHERV]++;
        return sym_iall_gatherv(t, d, s, c->counts, c->dt, o, q);
    case C_ALLTOALL: S.count[CNT_IALL_TO_ALL]++;
        return sym_iall_to_all(t, d, s, n, c->dt, o, q);
    case C_ALLTOALLV: S.count[CNT_IALL_TO_ALLV]++;
        return sym_iall_to_allv(t, d, c->rcounts, s, c->scounts, c->dt, o, q);
    case C_GATHER: S.count[CNT_IGATHER]++;
        return sym_igather(t, d, s, n, c->dt, c->root, o, q);
    case C_SCATTER: S.count[CNT_ISCATTER]++;
        return sym_iscatter(t, d, s, n, c->dt, c->root, o, q);
    default: return SYM_ERR_INTERNAL;
    }
}

static void ccall_complete(struct ccall *c)
{
    if (!c->nb)
        return;
    if (!c->use_test) {
        CALL(sym_wait(&c->req));
        S.count[CNT_REQ_WAIT]++;
    } else {
        int done = 0;
        while (!done)
            CALL(sym_test(&c->req, &done));
        S.count[CNT_REQ_TEST]++; /* requests completed by polling */
    }
    if (c->req != SYM_REQUEST_NULL)
        wrong("completed request handle was not reset to SYM_REQUEST_NULL");
}

static void ccall_verify(struct ccall *c)
{
    const int m = c->g->n, me = c->rank;
    const size_t es = sym_datatype_size(c->dt), n = c->count;
    uint8_t *want = xmalloc(c->dst_bytes > c->src_bytes ? c->dst_bytes : c->src_bytes);
    size_t check = c->dst_bytes; /* bytes of dst that are defined */
    uint64_t fill = key3(S.step, (uint64_t)S.me, K_FILL + 16 * (uint64_t)c->salt);
    if (c->dst && !c->inplace)
        fill_bytes(want, c->dst_bytes, fill);
    switch (c->kind) {
    case C_BARRIER: check = 0; break;
    case C_BCAST: gen_elems(want, n, c->dt, 0, c->keys[c->root], 0); break;
    case C_REDUCE:
        if (me == c->root)
            ref_reduce(want, c->dt, c->op, m, c->keys, 0, n);
        else if (!c->dst)
            check = 0;
        break;
    case C_ALLREDUCE: ref_reduce(want, c->dt, c->op, m, c->keys, 0, n); break;
    case C_RSCATTER: ref_reduce(want, c->dt, c->op, m, c->keys, (size_t)me * n, n); break;
    case C_ALLGATHER: case C_GATHER:
        if (c->kind == C_GATHER && me != c->root) {
            check = 0; /* a non-root's dst is not the call's to keep */
            break;
        }
        for (int i = 0; i < m; i++)
            gen_elems(want + (size_t)i * n * es, n, c->dt, 0, c->keys[i], 0);
        break;
    case C_ALLGATHERV: {
        size_t at = 0;
        for (int i = 0; i < m; i++) {
            gen_elems(want + at * es, c->counts[i], c->dt, 0, c->keys[i], 0);
            at += c->counts[i];
        }
        break;
    }
    case C_ALLTOALL:
        for (int i = 0; i < m; i++)
            gen_elems(want + (size_t)i * n * es, n, c->dt, 0, c->keys[i], (size_t)me * n);
        break;
    case C_ALLTOALLV: {
        size_t at = 0;
        for (int i = 0; i < m; i++) {
            size_t off = 0; /* where member i's block for me starts in its src */
            for (int j = 0; j < me; j++)
                off += (size_t)(c->rv[i * MAXPE + j] % (c->vmax + 1));
            gen_elems(want + at * es, c->rcounts[i], c->dt, 0, c->keys[i], off);
            at += c->rcounts[i];
        }
        break;
    }
    case C_SCATTER:
        gen_elems(want, n, c->dt, 0, c->keys[c->root], (size_t)me * n);
        break;
    default: break;
    }
    char name[64];
    snprintf(name, sizeof(name), "%s result (member %d of %d)", cnames[c->kind], me, m);
    if (check)
        check_buf(c->dst, want, check, es, name);
    /* inputs are never modified (unless in place) */
    if (!c->inplace && c->kind != C_BCAST && c->src_bytes) {
        const sym_op_t gop = (c->kind == C_REDUCE || c->kind == C_ALLREDUCE ||
                              c->kind == C_RSCATTER) ? c->op : 0;
        size_t sc = c->src_bytes / es;
        gen_elems(want, sc, c->dt, gop, c->keys[me], 0);
        snprintf(name, sizeof(name), "%s source (member %d of %d)", cnames[c->kind], me, m);
        check_buf(c->src, want, c->src_bytes, es, name);
    }
    free(want);
    free(c->buf[0]);
    free(c->buf[1]);
    c->src = c->dst = c->buf[0] = c->buf[1] = NULL;
}

static struct entry *pick_entry(struct rng *r)
{
    int k = (int)rbelow(r, (uint64_t)live_entries());
    for (int i = 0; i < MAX_ENTRIES; i++)
        if (S.ent[i].live && k-- == 0)
            return &S.ent[i];
    return &S.ent[0];
}

static void step_coll(struct rng *r, bool nb)
{
    int nc = nb ? 1 + (int)rbelow(r, MAX_BATCH) : 1;
    struct ccall c[MAX_BATCH];
    char desc[MAX_BATCH][160];
    for (int i = 0; i < nc; i++) {
        ccall_draw(r, &c[i], pick_entry(r), i, nb);
        ccall_desc(&c[i], desc[i], sizeof(desc[i]));
    }
    if (nc == 1)
        set_what("%s", desc[0]);
    else if (nc == 2)
        set_what("%s; %s", desc[0], desc[1]);
    else
        set_what("%s; %s; %s", desc[0], desc[1], desc[2]);
    bool in[MAX_BATCH];
    for (int i = 0; i < nc; i++) {
        in[i] = ccall_prepare(&c[i]);
        if (in[i]) {
            sym_status_t st = ccall_issue(&c[i]);
            if (st != SYM_OK)
                die(desc[i], st);
        }
    }
    /* a blocking collective on a team first completes its pending requests */
    bool mid_barrier = nb && rchance(r, 30);
    sym_coll_opts_t bo = { .algorithm = calgos[C_BARRIER][rbelow(r, 4)] };
    if (mid_barrier && c[0].e->my_group >= 0) {
        CALL(sym_barrier(c[0].e->team, &bo));
        S.count[CNT_BARRIER]++;
    }
    /* complete in an order of this PE's own */
    struct rng mine = rng_for(S.step, (uint64_t)S.me, K_ORDER);
    int order[MAX_BATCH] = { 0, 1, 2 };
    for (int i = nc - 1; i > 0; i--) {
        int j = (int)rbelow(&mine, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < nc; k++) {
        int i = order[k];
        if (in[i]) {
            ccall_complete(&c[i]);
            ccall_verify(&c[i]);
        }
    }
}

/* ------------------------------------------------------------------------ */
/* Point-to-point                                                            */
/* ------------------------------------------------------------------------ */

static void p2p_check(const uint8_t *buf, size_t got, size_t want_bytes, uint64_t key,
                      const char *what)
{
    if (got != want_bytes) {
        wrong("%s: received %zu bytes, expected %zu", what, got, want_bytes);
        return;
    }
    uint8_t *w = xmalloc(want_bytes);
    fill_bytes(w, want_bytes, key);
    check_buf(buf, w, want_bytes, 1, what);
    free(w);
}

static void step_p2p(struct rng *r)
{
    const int me = S.me, n = S.n;
    if (n < 2) {
        set_what("p2p skipped (1 PE)");
        return;
    }
    size_t max = S.o.max_bytes;
    if (rchance(r, 40)) {
        int shift = 1 + (int)rbelow(r, (uint64_t)n - 1);
        int to = (me + shift) % n, from = (me - shift + n) % n;
        size_t sz[MAXPE];
        int tags[MAXPE];
        for (int p = 0; p < n; p++) {
            sz[p] = pick_count(r, max);
            tags[p] = (int)rbelow(r, 1000);
        }
        bool any = rchance(r, 30);
        set_what("sendrecv ring shift %d%s", shift, any ? " (any tag)" : "");
        uint8_t *sb = xmalloc(sz[me]), *rb = xmalloc(sz[from] + 16);
        fill_bytes(sb, sz[me], key3(S.step, (uint64_t)me, K_DATA));
        size_t got = SIZE_MAX;
        CALL(sym_sendrecv(sb, sz[me], to, tags[me], rb, sz[from] + 16, from,
                          any ? SYM_ANY_TAG : tags[from], &got));
        S.count[CNT_SENDRECV]++;
        p2p_check(rb, got, sz[from], key3(S.step, (uint64_t)from, K_DATA), "sendrecv message");
        free(sb);
        free(rb);
        CALL(sym_barrier_all());
        S.count[CNT_BARRIER_ALL]++;
        return;
    }
    /* pairs: A sends k messages to B, B receives them in some order, then back */
    int perm[MAXPE];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rbelow(r, (uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int k = 1 + (int)rbelow(r, 4);
    size_t sz[2][4];
    int tags[2][4], rorder[2][4];
    bool in_order[2], trunc[2][4];
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < k; i++) {
            sz[d][i] = rchance(r, 70) ? pick_count(r, 2048) : pick_count(r, max);
            tags[d][i] = i * 7 + (int)rbelow(r, 7); /* distinct */
            rorder[d][i] = i;
            trunc[d][i] = rchance(r, 15);
        }
        in_order[d] = rchance(r, 40);
        if (!in_order[d])
            for (int i = k - 1; i > 0; i--) {
                int j = (int)rbelow(r, (uint64_t)i + 1), t = rorder[d][i];
                rorder[d][i] = rorder[d][j];
                rorder[d][j] = t;
            }
    }
    set_what("p2p pairs, %d messages each way", k);
    int pos = -1;
    for (int i = 0; i < n; i++)
        if (perm[i] == me)
            pos = i;
    if (pos / 2 * 2 + 1 < n) {
        bool first = pos % 2 == 0;
        int peer = perm[first ? pos + 1 : pos - 1];
        for (int phase = 0; phase < 2; phase++) {
            bool sending = (phase == 0) == first;
            int d = phase; /* direction 0: first -> second */
            if (sending) {
                for (int i = 0; i < k; i++) {
                    uint8_t *b = xmalloc(sz[d][i]);
                    fill_bytes(b, sz[d][i], key3(S.step, (uint64_t)(me * 8 + i), K_DATA));
                    CALL(sym_send(b, sz[d][i], peer, tags[d][i]));
                    S.count[CNT_SEND]++;
                    free(b);
                }
            } else {
                for (int j = 0; j < k; j++) {
                    int i = rorder[d][j];
                    int tag = in_order[d] && (j % 2) ? SYM_ANY_TAG : tags[d][i];
                    uint8_t *b = xmalloc(sz[d][i] + 8);
                    size_t got = SIZE_MAX;
                    if (trunc[d][i] && sz[d][i] > 0) {
                        sym_status_t st = sym_recv(b, sz[d][i] - 1, peer, tag, &got);
                        S.count[CNT_TRUNCATED]++;
                        if (st != SYM_ERR_TRUNCATED || got != sz[d][i])
                            wrong("recv of %zu bytes into %zu: %s, size %zu (expected "
                                  "SYM_ERR_TRUNCATED and the size)", sz[d][i], sz[d][i] - 1,
                                  sym_status_name(st), got);
                    }
                    CALL(sym_recv(b, sz[d][i] + 8, peer, tag, &got));
                    S.count[CNT_RECV]++;
                    char what[64];
                    snprintf(what, sizeof(what), "message %d (tag %d) from PE %d", i,
                             tags[d][i], peer);
                    p2p_check(b, got, sz[d][i], key3(S.step, (uint64_t)(peer * 8 + i), K_DATA),
                              what);
                    free(b);
                }
            }
        }
    }
    CALL(sym_barrier_all());
    S.count[CNT_BARRIER_ALL]++;
}

/* ------------------------------------------------------------------------ */
/* Symmetric allocation                                                      */
/* ------------------------------------------------------------------------ */

static void obj_fill(struct obj *o, size_t from)
{
    for (size_t i = from; i < o->size; i++)
        ((uint8_t *)o->p)[i] = byte_at(o->key, i);
}

static void obj_check(const struct obj *o, size_t bytes, const char *what)
{
    uint8_t *w = xmalloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        w[i] = byte_at(o->key, i);
    check_buf(o->p, w, bytes, 1, what);
    free(w);
}

static void step_alloc(struct rng *r)
{
    int k = (int)rbelow(r, MAX_OBJS);
    struct obj *o = &S.obj[k];
    size_t size = rchance(r, 70) ? 1 + rbelow(r, 4096) : 1 + rbelow(r, 512 * 1024);
    int how = (int)rbelow(r, 4);
    size_t align = (size_t)64 << rbelow(r, 8);
    /* each PE's copy gets its own content */
    uint64_t key = key3(S.step, (uint64_t)S.me, K_OBJ);
    for (int i = 0; i < MAX_OBJS; i++)
        if (S.obj[i].live)
            obj_check(&S.obj[i], S.obj[i].size, "a live symmetric object (overwritten?)");
    if (!o->live) {
        set_what("alloc #%d: %s %zu bytes (align %zu)", k,
                 how == 0 ? "calloc" : how == 1 ? "align" : "malloc", size, align);
        void *p = how == 0 ? sym_calloc(1, size) : how == 1 ? sym_align(align, size)
                                                              : sym_malloc(size);
        S.count[CNT_MALLOC]++;
        if (!p)
            die("sym_malloc/calloc/align", SYM_ERR_NO_MEMORY);
        if (how == 1 && (uintptr_t)p % align)
            wrong("sym_align(%zu) returned %p", align, p);
        if (how == 0)
            for (size_t i = 0; i < size; i++)
                if (((uint8_t *)p)[i]) {
                    wrong("sym_calloc memory not zero at byte %zu", i);
                    break;
                }
        *o = (struct obj){ .live = true, .p = p, .size = size, .align = align, .key = key };
        obj_fill(o, 0);
    } else if (how <= 1) {
        set_what("alloc #%d: realloc %zu -> %zu bytes", k, o->size, size);
        void *p = sym_realloc(o->p, size);
        S.count[CNT_REALLOC]++;
        if (!p)
            die("sym_realloc", SYM_ERR_NO_MEMORY);
        o->p = p;
        obj_check(o, size < o->size ? size : o->size, "realloc kept contents");
        o->size = size;
        o->key = key;
        obj_fill(o, 0);
    } else {
        set_what("alloc #%d: free %zu bytes", k, o->size);
        sym_free(o->p);
        S.count[CNT_FREE]++;
        memset(o, 0, sizeof(*o));
        return;
    }
    /* the object is symmetric: read the neighbour's copy */
    CALL(sym_barrier_all());
    int nb = (S.me + 1) % S.n;
    uint64_t nkey = key3(S.step, (uint64_t)nb, K_OBJ);
    size_t len = o->size < 256 ? o->size : 256, tail = o->size - len;
    uint8_t got[256];
    CALL(sym_get(got, (uint8_t *)o->p + tail, len, nb));
    S.count[CNT_GET]++;
    for (size_t i = 0; i < len; i++)
        if (got[i] != byte_at(nkey, tail + i)) {
            wrong("neighbour's copy of object #%d differs at byte %zu", k, tail + i);
            break;
        }
    CALL(sym_barrier_all());
    S.count[CNT_BARRIER_ALL] += 2;
}

/* ------------------------------------------------------------------------ */
/* Driver                                                                    */
/* ------------------------------------------------------------------------ */

enum skind { S_RMA, S_AMO, S_WAIT, S_COLL, S_ICOLL, S_P2P, S_TEAM, S_ALLOC };

static enum skind pick_kind(struct rng *r)
{
    static const int weights[] = { [S_RMA] = 18, [S_AMO] = 10, [S_WAIT] = 7, [S_COLL] = 35,
                                   [S_ICOLL] = 12, [S_P2P] = 9, [S_TEAM] = 5, [S_ALLOC] = 4 };
    int total = 0;
    for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++)
        total += weights[i];
    int x = (int)rbelow(r, (uint64_t)total);
    for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++) {
        if (x < weights[i])
            return (enum skind)i;
        x -= weights[i];
    }
    return S_COLL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void summary(double secs)
{
    uint64_t tot[CNT_N + 1];
    uint64_t mine[CNT_N + 1];
    memcpy(mine, S.count, sizeof(S.count));
    mine[CNT_N] = S.wrong;
    CALL(sym_reduce(sym_team_world(), tot, mine, CNT_N + 1, SYM_UINT64, SYM_OP_SUM, 0, NULL));
    if (S.me != 0)
        return;
    uint64_t all = 0;
    for (int i = 0; i < CNT_N; i++)
        all += tot[i];
    fprintf(stderr, "stress: seed %" PRIu64 ", %d PEs, steps %" PRIu64 "..%" PRIu64 ", %.1f s\n",
           S.o.seed, S.n, S.o.start_step, S.step, secs);
    for (int i = 0; i < CNT_N; i++)
        if (tot[i])
            fprintf(stderr, "  %-26s %12" PRIu64 "\n", counter_names[i], tot[i]);
    fprintf(stderr, "stress: %" PRIu64 " operations executed (all PEs), %" PRIu64 " wrong\n", all,
           tot[CNT_N]);
    fflush(stderr);
}

int stress_run(const struct stress_opts *o)
{
    memset(&S, 0, sizeof(S));
    S.o = *o;
    if (S.o.max_bytes < 1024)
        S.o.max_bytes = 1024;
    S.me = sym_my_pe();
    S.n = sym_n_pes();
    if (S.n > MAXPE) {
        fprintf(stderr, "stress: at most %d PEs (got %d)\n", MAXPE, S.n);
        return 1;
    }
    areas_init();
    S.ent[0] = (struct entry){ .live = true, .ngroups = 1, .team = sym_team_world() };
    S.ent[0].g[0].n = S.n;
    for (int i = 0; i < S.n; i++)
        S.ent[0].g[0].pe[i] = i;
    snprintf(S.ent[0].desc, sizeof(S.ent[0].desc), "world");
    entry_locate(&S.ent[0]);
    CALL(sym_barrier_all());

    const double t0 = now_s();
    for (S.step = 0;; S.step++) {
        if (S.o.steps && S.step >= S.o.steps)
            break;
        if (S.o.minutes > 0 && S.step >= S.o.start_step && S.step % 8 == 0) {
            /* PE 0's clock decides for everyone */
            uint8_t stop = now_s() - t0 >= S.o.minutes * 60;
            CALL(sym_broadcast(sym_team_world(), &stop, 1, SYM_UINT8, 0, NULL));
            if (stop)
                break;
        }
        S.dry = S.step < S.o.start_step;
        struct rng r = rng_for(S.step, 0, K_STEP);
        enum skind k = pick_kind(&r);
        if (S.dry && k != S_TEAM && k != S_ALLOC)
            continue;
        switch (k) {
        case S_RMA: step_rma(&r); break;
        case S_AMO: step_amo(&r); break;
        case S_WAIT: step_wait(&r); break;
        case S_COLL: step_coll(&r, false); break;
        case S_ICOLL: step_coll(&r, true); break;
        case S_P2P: step_p2p(&r); break;
        case S_TEAM: step_team(&r); break;
        case S_ALLOC: step_alloc(&r); break;
        }
    }
    set_what("cleanup after the last step");
    for (int i = MAX_ENTRIES - 1; i > 0; i--)
        if (S.ent[i].live && S.ent[i].team != SYM_TEAM_INVALID) {
            CALL(sym_team_destroy(S.ent[i].team));
            S.count[CNT_TEAM_DESTROY]++;
        }
    for (int i = 0; i < MAX_OBJS; i++)
        if (S.obj[i].live) {
            obj_check(&S.obj[i], S.obj[i].size, "a live symmetric object at the end");
            sym_free(S.obj[i].p);
            S.count[CNT_FREE]++;
        }
    areas_fini();
    summary(now_s() - t0);
    return S.wrong ? 1 : 0;
}
