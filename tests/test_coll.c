/*
 * test_coll.c - every collective x algorithm x count x team, checked bit for
 * bit against a reference each PE computes locally; every datatype x op;
 * float16/bfloat16 accumulation in float; repeatable bits with inexact
 * floating-point data; the torch.distributed reference cases; algorithm
 * selection per call and through the environment.
 *
 * Inputs are chosen so a reference exists independently of the reduction
 * order: integers wrap modulo 2^bits (any order gives the same bits), float
 * sums are of small integers (exact in every type), products of {1, 2, -1},
 * and averages are the correctly rounded quotient of an exact sum (the
 * library divides in float or double and may then round to 16 bits; the
 * double-rounding theorem (p' >= 2p + 2) makes that equal to rounding the
 * exact quotient once, which is what the reference does).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

/* Elements of the "larger than the mailbox" count: 280 KB of int32 against
 * a 256 KiB mailbox, so every algorithm stages it in many chunks. */
#define LARGE 70001
#define GUARD 64
#define GUARD_BYTE 0xA5
#define SENTINEL 0x5A

/* Two team slots of 64 KiB each, the same as the world's area: split teams
 * chunk large data like the world does, without making 8-PE teams crawl
 * through tiny slots. */
static const char *const matrix_env[] = {
    "SYMHEAP_MAILBOX_SIZE=256K",
    "SYMHEAP_TEAM_SLOTS=2",
    NULL,
};

/* Job sizes: with the three teams of each job (world, a strided team and a
 * created sub-team) every team size 1..8 occurs. */
#define COLL_PE_COUNTS {1, 2, 3, 4, 5, 6, 8}

/* ------------------------------------------------------------------------ */
/* Datatypes, values and references                                          */
/* ------------------------------------------------------------------------ */

static const sym_datatype_t all_dts[] = {
    SYM_INT8,  SYM_INT16,  SYM_INT32, SYM_INT64,  SYM_UINT8,   SYM_UINT16,
    SYM_UINT32, SYM_UINT64, SYM_FLOAT, SYM_DOUBLE, SYM_FLOAT16, SYM_BFLOAT16,
};
#define NDTS (sizeof(all_dts) / sizeof(all_dts[0]))

static const sym_op_t all_ops[] = {
    SYM_OP_SUM, SYM_OP_PROD, SYM_OP_MIN, SYM_OP_MAX,
    SYM_OP_AVG, SYM_OP_BAND, SYM_OP_BOR, SYM_OP_BXOR,
};
#define NOPS (sizeof(all_ops) / sizeof(all_ops[0]))

static size_t dt_size(sym_datatype_t dt)
{
    switch (dt) {
    case SYM_INT8: case SYM_UINT8: return 1;
    case SYM_INT16: case SYM_UINT16: case SYM_FLOAT16: case SYM_BFLOAT16: return 2;
    case SYM_INT32: case SYM_UINT32: case SYM_FLOAT: return 4;
    case SYM_INT64: case SYM_UINT64: case SYM_DOUBLE: return 8;
    }
    return 0;
}

static bool dt_is_float(sym_datatype_t dt)
{
    return dt == SYM_FLOAT || dt == SYM_DOUBLE || dt == SYM_FLOAT16 || dt == SYM_BFLOAT16;
}

static bool dt_is_signed(sym_datatype_t dt)
{
    return dt == SYM_INT8 || dt == SYM_INT16 || dt == SYM_INT32 || dt == SYM_INT64;
}

static bool op_valid(sym_datatype_t dt, sym_op_t op)
{
    return !(dt_is_float(dt) && op >= SYM_OP_BAND);
}

static uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

static uint64_t hkey(uint64_t a, uint64_t b, uint64_t c)
{
    return mix64(a * UINT64_C(0x9E3779B97F4A7C15) +
                 mix64(b * UINT64_C(0xC2B2AE3D27D4EB4F) + mix64(c + UINT64_C(0x165667B19E3779F9))));
}

/* 16-bit floats, written for the reference from their definition:
 * `mant` stored mantissa bits, `emin` the smallest normal exponent. */
static double small_float_value(uint16_t bits, int mant, int emin)
{
    unsigned ebits = 15u - (unsigned)mant;
    unsigned ex = (bits >> mant) & ((1u << ebits) - 1), m = bits & ((1u << mant) - 1);
    double v;
    if (ex == (1u << ebits) - 1)
        v = m ? NAN : INFINITY;
    else if (ex == 0)
        v = ldexp((double)m, emin - mant);
    else
        v = ldexp((double)(m + (1u << mant)), (int)ex + emin - 1 - mant);
    return (bits & 0x8000u) ? -v : v;
}

/* Round x to the nearest representable value, ties to even (nearbyint in
 * the default rounding mode). */
static uint16_t small_float_bits(double x, int mant, int emin, int emax)
{
    uint16_t sign = signbit(x) ? 0x8000u : 0;
    unsigned ebits = 15u - (unsigned)mant, inf = ((1u << ebits) - 1) << mant;
    double a = fabs(x);
    if (isnan(a))
        return (uint16_t)(sign | inf | (1u << (mant - 1)));
    if (a == 0)
        return sign;
    if (isinf(a))
        return (uint16_t)(sign | inf);
    int e = ilogb(a);
    if (e < emin)
        e = emin; /* subnormal: the quantum stays 2^(emin - mant) */
    double q = nearbyint(ldexp(a, mant - e));
    if (q >= ldexp(1.0, mant + 1)) { /* rounded up to the next binade */
        q /= 2;
        e++;
    }
    if (e > emax)
        return (uint16_t)(sign | inf);
    uint32_t qi = (uint32_t)q;
    if (qi < (1u << mant))
        return (uint16_t)(sign | qi);
    return (uint16_t)(sign | ((unsigned)(e - emin + 1) << mant) | (qi - (1u << mant)));
}

static double f16_value(uint16_t b) { return small_float_value(b, 10, -14); }
static uint16_t f16_bits(double x) { return small_float_bits(x, 10, -14, 15); }
static double bf16_value(uint16_t b) { return small_float_value(b, 7, -126); }
static uint16_t bf16_bits(double x) { return small_float_bits(x, 7, -126, 127); }

/* An integer of type dt held in 64 bits: truncated, then sign- or
 * zero-extended. */
static uint64_t int_ext(sym_datatype_t dt, uint64_t raw)
{
    switch (dt) {
    case SYM_INT8: return (uint64_t)(int64_t)(int8_t)(uint8_t)raw;
    case SYM_INT16: return (uint64_t)(int64_t)(int16_t)(uint16_t)raw;
    case SYM_INT32: return (uint64_t)(int64_t)(int32_t)(uint32_t)raw;
    case SYM_UINT8: return (uint8_t)raw;
    case SYM_UINT16: return (uint16_t)raw;
    case SYM_UINT32: return (uint32_t)raw;
    default: return raw;
    }
}

static void int_store(sym_datatype_t dt, void *buf, size_t i, uint64_t v)
{
    switch (dt_size(dt)) {
    case 1: ((uint8_t *)buf)[i] = (uint8_t)v; break;
    case 2: ((uint16_t *)buf)[i] = (uint16_t)v; break;
    case 4: ((uint32_t *)buf)[i] = (uint32_t)v; break;
    default: ((uint64_t *)buf)[i] = v; break;
    }
}

static void flt_store(sym_datatype_t dt, void *buf, size_t i, double v)
{
    switch (dt) {
    case SYM_FLOAT: ((float *)buf)[i] = (float)v; break;
    case SYM_DOUBLE: ((double *)buf)[i] = v; break;
    case SYM_FLOAT16: ((uint16_t *)buf)[i] = f16_bits(v); break;
    default: ((uint16_t *)buf)[i] = bf16_bits(v); break;
    }
}

static double flt_load(sym_datatype_t dt, const void *buf, size_t i)
{
    switch (dt) {
    case SYM_FLOAT: return ((const float *)buf)[i];
    case SYM_DOUBLE: return ((const double *)buf)[i];
    case SYM_FLOAT16: return f16_value(((const uint16_t *)buf)[i]);
    default: return bf16_value(((const uint16_t *)buf)[i]);
    }
}

/* A reduction's inputs: element idx of team member `rank`. */
struct red {
    sym_datatype_t dt;
    sym_op_t op;
    uint64_t salt;
};

static uint64_t red_int(const struct red *r, int rank, size_t idx)
{
    uint64_t h = hkey(r->salt, (uint64_t)rank, idx);
    switch (r->op) {
    case SYM_OP_PROD: {
        static const uint64_t f[3] = { 1, 2, UINT64_MAX };
        return f[h % 3];
    }
    case SYM_OP_AVG:
        /* 64-bit types: leave headroom so 8 PEs' sum cannot wrap */
        if (dt_size(r->dt) == 8)
            return dt_is_signed(r->dt) ? (uint64_t)((int64_t)(h >> 5) - ((int64_t)1 << 58))
                                       : h >> 4;
        return h;
    default:
        return h;
    }
}

static double red_flt(const struct red *r, int rank, size_t idx)
{
    uint64_t h = hkey(r->salt, (uint64_t)rank, idx);
    switch (r->op) {
    case SYM_OP_PROD: {
        static const double f[3] = { 1, 2, -1 };
        return f[h % 3];
    }
    case SYM_OP_SUM:
    case SYM_OP_AVG:
        return (double)(int)(h % 17) - 8;
    default:
        return (double)(int)(h % 201) - 100;
    }
}

static void red_fill(const struct red *r, void *buf, int rank, size_t first, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (dt_is_float(r->dt))
            flt_store(r->dt, buf, k, red_flt(r, rank, first + k));
        else
            int_store(r->dt, buf, k, red_int(r, rank, first + k));
    }
}

/* out[k] = the reduction over ranks 0..nranks-1 of element first + k. */
static void red_ref(const struct red *r, void *out, int nranks, size_t first, size_t n)
{
    const sym_datatype_t dt = r->dt;
    for (size_t k = 0; k < n; k++) {
        const size_t idx = first + k;
        if (dt_is_float(dt)) {
            double acc = red_flt(r, 0, idx);
            for (int rank = 1; rank < nranks; rank++) {
                double v = red_flt(r, rank, idx);
                switch (r->op) {
                case SYM_OP_PROD: acc *= v; break;
                case SYM_OP_MIN: acc = v < acc ? v : acc; break;
                case SYM_OP_MAX: acc = v > acc ? v : acc; break;
                default: acc += v; break;
                }
            }
            if (r->op == SYM_OP_AVG)
                acc /= nranks;
            flt_store(dt, out, k, acc);
            continue;
        }
        const bool sgn = dt_is_signed(dt);
        uint64_t acc = int_ext(dt, red_int(r, 0, idx));
        for (int rank = 1; rank < nranks; rank++) {
            uint64_t x = int_ext(dt, red_int(r, rank, idx));
            switch (r->op) {
            case SYM_OP_PROD: acc *= x; break;
            case SYM_OP_MIN:
                if (sgn ? (int64_t)x < (int64_t)acc : x < acc)
                    acc = x;
                break;
            case SYM_OP_MAX:
                if (sgn ? (int64_t)x > (int64_t)acc : x > acc)
                    acc = x;
                break;
            case SYM_OP_BAND: acc &= x; break;
            case SYM_OP_BOR: acc |= x; break;
            case SYM_OP_BXOR: acc ^= x; break;
            default: acc += x; break; /* SUM, AVG: wraps like the library */
            }
        }
        if (r->op == SYM_OP_AVG) /* documented: 64-bit sum, truncated */
            acc = sgn ? (uint64_t)((int64_t)acc / nranks) : acc / (uint64_t)nranks;
        int_store(dt, out, k, acc);
    }
}

/* Data of the collectives that only move bytes: block `key` is a byte
 * pattern no other block of the same call shares. */
static void pat_fill(void *buf, size_t bytes, uint64_t key)
{
    uint8_t *p = buf;
    for (size_t i = 0; i < bytes; i += 8) {
        uint64_t w = mix64(key + i);
        memcpy(p + i, &w, bytes - i < 8 ? bytes - i : 8);
    }
}

/* ------------------------------------------------------------------------ */
/* Buffers and checks                                                        */
/* ------------------------------------------------------------------------ */

struct gbuf {
    uint8_t *raw;
    uint8_t *p;
    size_t bytes;
};

static void gb_alloc(struct gbuf *b, size_t bytes, int fill)
{
    b->raw = malloc(bytes + 2 * GUARD);
    PE_ASSERT(b->raw, "malloc(%zu) failed", bytes + 2 * GUARD);
    memset(b->raw, GUARD_BYTE, bytes + 2 * GUARD);
    b->p = b->raw + GUARD;
    b->bytes = bytes;
    memset(b->p, fill, bytes);
}

static void gb_free(struct gbuf *b)
{
    free(b->raw);
    b->raw = b->p = NULL;
}

static void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    PE_ASSERT(p, "malloc(%zu) failed", bytes);
    return p;
}

static void *xdup(const void *src, size_t bytes)
{
    void *p = xmalloc(bytes);
    if (bytes)
        memcpy(p, src, bytes);
    return p;
}

static void gb_check_at(const char *file, int line, const struct gbuf *b, const char *d)
{
    for (size_t i = 0; i < GUARD; i++)
        if (b->raw[i] != GUARD_BYTE || b->p[b->bytes + i] != GUARD_BYTE)
            pe_fail(file, line, "guard bytes", "[%s] a write landed %s the buffer (guard byte "
                    "%zu)", d, b->raw[i] != GUARD_BYTE ? "before" : "after", i);
}
#define GB_CHECK(b, d) gb_check_at(__FILE__, __LINE__, (b), (d))

static void expect_same_at(const char *file, int line, const void *got, const void *want,
                           size_t bytes, size_t es, const char *d)
{
    if (!bytes || !memcmp(got, want, bytes))
        return;
    const uint8_t *g = got, *w = want;
    size_t i = 0;
    while (g[i] == w[i])
        i++;
    size_t e = i / es;
    char gs[40] = "", ws[40] = "";
    for (size_t b = 0; b < es && b < 8; b++) {
        snprintf(gs + 2 * b, sizeof(gs) - 2 * b, "%02x", g[e * es + es - 1 - b]);
        snprintf(ws + 2 * b, sizeof(ws) - 2 * b, "%02x", w[e * es + es - 1 - b]);
    }
    pe_fail(file, line, "bit-exact result", "[%s] element %zu of %zu is 0x%s, expected 0x%s",
            d, e, bytes / es, gs, ws);
}
#define EXPECT_SAME(got, want, bytes, es, d) \
    expect_same_at(__FILE__, __LINE__, (got), (want), (bytes), (es), (d))

static void expect_fill_at(const char *file, int line, const void *buf, int fill, size_t bytes,
                           const char *d)
{
    const uint8_t *p = buf;
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != (uint8_t)fill)
            pe_fail(file, line, "untouched buffer", "[%s] byte %zu of a buffer the call must "
                    "not write changed to 0x%02x", d, i, p[i]);
}
#define EXPECT_UNTOUCHED(buf, bytes, d) \
    expect_fill_at(__FILE__, __LINE__, (buf), SENTINEL, (bytes), (d))

#define CALL_OK(call, d)                                                                   \
    do {                                                                                   \
        sym_status_t st_ = (call);                                                         \
        if (st_ != SYM_OK)                                                                 \
            pe_fail(__FILE__, __LINE__, #call, "[%s] returned %s: %s", (d),                \
                    sym_status_name(st_), sym_last_error());                               \
    } while (0)

/* ------------------------------------------------------------------------ */
/* Teams of a job                                                            */
/* ------------------------------------------------------------------------ */

struct tctx {
    sym_team_t team;
    int n, me;
    int tag;          /* which team of the job: salts differ per team */
    uint64_t calls;   /* salts differ per call */
    uint64_t *scratch; /* symmetric, zeroed before the team's phase */
};

#define SCRATCH_WORDS 512

enum mode { OUT, IN, OVERLAP, OWN };
static const char *const mode_names[] = { "out of place", "in place", "overlapping",
                                          "own block in place" };

static uint64_t next_salt(struct tctx *t)
{
    return hkey((uint64_t)t->tag, ++t->calls, 0x5eed);
}

static void describe(char *d, size_t len, const char *coll, const struct tctx *t,
                     sym_algorithm_t a, sym_datatype_t dt, sym_op_t op, size_t count, int root,
                     enum mode m)
{
    snprintf(d, len, "%s/%s on %s (%d PEs, member %d): %s%s%s, count %zu, root %d, %s", coll,
             sym_algorithm_name(a), sym_team_name(t->team), t->n, t->me, sym_datatype_name(dt),
             op ? " " : "", op ? sym_op_name(op) : "", count, root, mode_names[m]);
}

/* {0, 1, n-1, n+1, 13, LARGE} without repeats. */
static int count_list(int n, size_t out[6])
{
    const size_t all[6] = { 0, 1, (size_t)n - 1, (size_t)n + 1, 13, LARGE };
    int k = 0;
    for (int i = 0; i < 6; i++) {
        bool dup = false;
        for (int j = 0; j < k; j++)
            dup |= out[j] == all[i];
        if (!dup)
            out[k++] = all[i];
    }
    return k;
}

/* The datatype of the matrix for the i-th count: the integer path, the
 * plain floating path and the float16-in-float accumulation path in turn;
 * the large count stays int32 to keep the job short. */
static sym_datatype_t matrix_dt(int i, size_t count)
{
    static const sym_datatype_t rot[3] = { SYM_INT32, SYM_DOUBLE, SYM_FLOAT16 };
    return count == LARGE ? SYM_INT32 : rot[i % 3];
}

typedef void (*team_fn)(struct tctx *t);

/* Run fn on the world, on a strided team (every other PE from the last,
 * stride -2: team order reverses global order) and on a team created from
 * the list N-2, ..., 0; one team at a time, separated by world barriers. */
static void for_each_team(team_fn fn)
{
    const int n = sym_n_pes();
    uint64_t *scratch = sym_calloc(SCRATCH_WORDS, sizeof(uint64_t));
    PE_ASSERT(scratch, "sym_calloc: %s", sym_last_error());
    sym_team_t teams[3] = { sym_team_world(), SYM_TEAM_INVALID, SYM_TEAM_INVALID };
    PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -2, (n + 1) / 2, &teams[1]));
    int list[HARNESS_MAX_PES], nl = n > 1 ? n - 1 : 1;
    for (int i = 0; i < nl; i++)
        list[i] = nl - 1 - i;
    PE_OK(sym_team_create(sym_team_world(), list, nl, &teams[2]));
    for (int k = 0; k < 3; k++) {
        memset(scratch, 0, SCRATCH_WORDS * sizeof(uint64_t));
        PE_OK(sym_barrier_all());
        if (teams[k] != SYM_TEAM_INVALID) {
            struct tctx t = { .team = teams[k], .n = sym_team_n_pes(teams[k]),
                              .me = sym_team_my_pe(teams[k]), .tag = k, .scratch = scratch };
            PE_ASSERT(t.n >= 1 && t.me >= 0 && t.me < t.n, "team %d: size %d, member %d", k,
                      t.n, t.me);
            fn(&t);
        }
        PE_OK(sym_barrier_all());
    }
    for (int k = 1; k < 3; k++)
        if (teams[k] != SYM_TEAM_INVALID)
            PE_OK(sym_team_destroy(teams[k]));
    sym_free(scratch);
}

struct team_job {
    team_fn fn;
};

static void team_job_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    for_each_team(((const struct team_job *)arg)->fn);
}

/* ------------------------------------------------------------------------ */
/* One call of each collective, checked                                      */
/* ------------------------------------------------------------------------ */

static void check_barrier(struct tctx *t, sym_algorithm_t a, int round)
{
    char d[256];
    describe(d, sizeof(d), "barrier", t, a, SYM_INT32, 0, 0, -1, OUT);
    PE_ASSERT(round < SCRATCH_WORDS, "too many barrier rounds");
    /* every member counts itself in at every member before entering; a
     * member released before the last one entered sees a short count */
    if (t->me == round % t->n && round % 2) {
        struct timespec ts = { 0, 2000000 }; /* arrive late on purpose */
        nanosleep(&ts, NULL);
    }
    for (int r = 0; r < t->n; r++)
        CALL_OK(sym_atomic_add64(&t->scratch[round], 1, sym_team_local_to_global(t->team, r)), d);
    sym_coll_opts_t o = { a, 0, 0 };
    CALL_OK(sym_barrier(t->team, &o), d);
    uint64_t seen = 0;
    CALL_OK(sym_atomic_fetch64(&seen, &t->scratch[round], sym_my_pe()), d);
    PE_ASSERT(seen == (uint64_t)t->n, "[%s] round %d: released after only %llu of %d members "
              "arrived", d, round, (unsigned long long)seen, t->n);
}

static void check_broadcast(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, size_t count,
                            int root)
{
    char d[256];
    describe(d, sizeof(d), "broadcast", t, a, dt, 0, count, root, IN);
    const size_t es = dt_size(dt), bytes = count * es;
    const uint64_t key = next_salt(t);
    uint8_t *want = xmalloc(bytes);
    pat_fill(want, bytes, key);
    struct gbuf b;
    gb_alloc(&b, bytes, SENTINEL);
    if (t->me == root)
        memcpy(b.p, want, bytes);
    sym_coll_opts_t o = { a, 0, 0 };
    CALL_OK(sym_broadcast(t->team, b.p, count, dt, root, &o), d);
    EXPECT_SAME(b.p, want, bytes, es, d);
    GB_CHECK(&b, d);
    gb_free(&b);
    free(want);
}

/* Reduce and allreduce share the set-up: mode OUT (separate dst), IN
 * (dst == src) or OVERLAP (dst one element after src). */
static void check_reduction(struct tctx *t, bool rooted, sym_algorithm_t a, sym_datatype_t dt,
                            sym_op_t op, size_t count, int root, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), rooted ? "reduce" : "allreduce", t, a, dt, op, count, root, m);
    const size_t es = dt_size(dt), bytes = count * es;
    const struct red r = { dt, op, next_salt(t) };
    const bool gets = !rooted || t->me == root;
    struct gbuf s, o_dst;
    gb_alloc(&s, bytes + es, SENTINEL);
    gb_alloc(&o_dst, bytes, SENTINEL);
    red_fill(&r, s.p, t->me, 0, count);
    uint8_t *orig = xdup(s.p, bytes + es);
    uint8_t *dst = m == OUT ? o_dst.p : m == IN ? s.p : s.p + es;
    /* dst is ignored away from the root: sometimes NULL there */
    if (!gets && m == OUT && (root + (int)count) % 2)
        dst = NULL;
    sym_coll_opts_t o = { a, 0, 0 };
    if (rooted)
        CALL_OK(sym_reduce(t->team, dst, s.p, count, dt, op, root, &o), d);
    else
        CALL_OK(sym_allreduce(t->team, dst, s.p, count, dt, op, &o), d);
    if (gets) {
        uint8_t *want = xmalloc(bytes);
        red_ref(&r, want, t->n, 0, count);
        EXPECT_SAME(dst, want, bytes, es, d);
        free(want);
    } else {
        EXPECT_UNTOUCHED(o_dst.p, bytes, d);
    }
    if (m == OUT || !gets) /* src is const: unchanged unless it is the destination */
        EXPECT_SAME(s.p, orig, bytes + es, 1, d);
    GB_CHECK(&s, d);
    GB_CHECK(&o_dst, d);
    free(orig);
    gb_free(&s);
    gb_free(&o_dst);
}

/* Modes: OUT, IN (dst == src, the first block), OWN (dst is this
 * member's own block of src) and OVERLAP (dst straddles the middle of src,
 * aligned to no block). */
static void check_reduce_scatter(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt,
                                 sym_op_t op, size_t count, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), "reduce_scatter", t, a, dt, op, count, -1, m);
    const size_t es = dt_size(dt), blk = count * es, total = blk * (size_t)t->n;
    const struct red r = { dt, op, next_salt(t) };
    struct gbuf s, o_dst;
    gb_alloc(&s, total, SENTINEL);
    gb_alloc(&o_dst, blk, SENTINEL);
    red_fill(&r, s.p, t->me, 0, count * (size_t)t->n);
    uint8_t *orig = xdup(s.p, total);
    uint8_t *dst = m == OUT   ? o_dst.p
                   : m == IN  ? s.p
                   : m == OWN ? s.p + (size_t)t->me * blk
                              : s.p + (total - blk) / 2 / es * es;
    sym_coll_opts_t o = { a, 0, 0 };
    CALL_OK(sym_reduce_scatter(t->team, dst, s.p, count, dt, op, &o), d);
    uint8_t *want = xmalloc(blk);
    red_ref(&r, want, t->n, (size_t)t->me * count, count);
    EXPECT_SAME(dst, want, blk, es, d);
    /* the rest of src is input only */
    size_t d0 = m == OUT ? total : (size_t)(dst - s.p);
    EXPECT_SAME(s.p, orig, d0, 1, d);
    if (m != OUT)
        EXPECT_SAME(s.p + d0 + blk, orig + d0 + blk, total - d0 - blk, 1, d);
    GB_CHECK(&s, d);
    GB_CHECK(&o_dst, d);
    free(want);
    free(orig);
    gb_free(&s);
    gb_free(&o_dst);
}

/* all_gather and all_gatherv: counts[r] elements from member r, packed.
 * Modes: OUT, OWN (src is this member's place in dst), IN (src == dst),
 * OVERLAP (src in the middle of dst, aligned to no block). */
static void check_gatherv_all(struct tctx *t, bool v, sym_algorithm_t a, sym_datatype_t dt,
                              const size_t *counts, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), v ? "all_gatherv" : "all_gather", t, a, dt, 0, counts[t->me], -1, m);
    const size_t es = dt_size(dt);
    const uint64_t salt = next_salt(t);
    size_t displ[HARNESS_MAX_PES], total = 0;
    for (int r = 0; r < t->n; r++) {
        displ[r] = total;
        total += counts[r] * es;
    }
    const size_t mine = counts[t->me] * es;
    uint8_t *want = xmalloc(total);
    for (int r = 0; r < t->n; r++)
        pat_fill(want + displ[r], counts[r] * es, hkey(salt, (uint64_t)r, 1));
    struct gbuf dbuf, s;
    gb_alloc(&dbuf, total, SENTINEL);
    gb_alloc(&s, mine, SENTINEL);
    uint8_t *src = m == OUT   ? s.p
                   : m == OWN ? dbuf.p + displ[t->me]
                   : m == IN  ? dbuf.p
                              : dbuf.p + (total - mine) / 2 / es * es;
    memcpy(src, want + displ[t->me], mine);
    sym_coll_opts_t o = { a, 0, 0 };
    if (v)
        CALL_OK(sym_all_gatherv(t->team, dbuf.p, src, counts, dt, &o), d);
    else
        CALL_OK(sym_all_gather(t->team, dbuf.p, src, counts[0], dt, &o), d);
    EXPECT_SAME(dbuf.p, want, total, es, d);
    if (m == OUT)
        EXPECT_SAME(s.p, want + displ[t->me], mine, es, d);
    GB_CHECK(&dbuf, d);
    GB_CHECK(&s, d);
    free(want);
    gb_free(&dbuf);
    gb_free(&s);
}

/* all_to_all and all_to_allv: sc(i, j) elements go from member i to j.
 * Modes: OUT, IN (one buffer for both) and OVERLAP (dst starts in the
 * middle of src). */
static void check_alltoall(struct tctx *t, bool v, sym_algorithm_t a, sym_datatype_t dt,
                           size_t (*sc)(int from, int to, size_t c), size_t c, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), v ? "all_to_allv" : "all_to_all", t, a, dt, 0, c, -1, m);
    const int n = t->n, me = t->me;
    const size_t es = dt_size(dt);
    const uint64_t salt = next_salt(t);
    size_t scount[HARNESS_MAX_PES], rcount[HARNESS_MAX_PES];
    size_t sdis[HARNESS_MAX_PES], rdis[HARNESS_MAX_PES], stot = 0, rtot = 0;
    for (int j = 0; j < n; j++) {
        scount[j] = sc(me, j, c);
        rcount[j] = sc(j, me, c);
        sdis[j] = stot;
        rdis[j] = rtot;
        stot += scount[j] * es;
        rtot += rcount[j] * es;
    }
    const size_t off = m == OVERLAP ? stot / 2 / es * es : 0;
    const size_t big = stot > off + rtot ? stot : off + rtot;
    struct gbuf s, dbuf;
    gb_alloc(&s, big, SENTINEL);
    gb_alloc(&dbuf, rtot, SENTINEL);
    for (int j = 0; j < n; j++)
        pat_fill(s.p + sdis[j], scount[j] * es, hkey(salt, (uint64_t)me, (uint64_t)j));
    uint8_t *orig = xdup(s.p, big);
    uint8_t *want = xmalloc(rtot);
    for (int i = 0; i < n; i++)
        pat_fill(want + rdis[i], rcount[i] * es, hkey(salt, (uint64_t)i, (uint64_t)me));
    uint8_t *dst = m == OUT ? dbuf.p : s.p + off;
    sym_coll_opts_t o = { a, 0, 0 };
    if (v)
        CALL_OK(sym_all_to_allv(t->team, dst, rcount, s.p, scount, dt, &o), d);
    else
        CALL_OK(sym_all_to_all(t->team, dst, s.p, c, dt, &o), d);
    EXPECT_SAME(dst, want, rtot, es, d);
    /* in place, what lies outside the received data is not the call's */
    if (m == OUT) {
        EXPECT_SAME(s.p, orig, stot, es, d);
    } else {
        EXPECT_SAME(s.p, orig, off, 1, d);
        EXPECT_SAME(s.p + off + rtot, orig + off + rtot, big - off - rtot, 1, d);
    }
    GB_CHECK(&s, d);
    GB_CHECK(&dbuf, d);
    free(orig);
    free(want);
    gb_free(&s);
    gb_free(&dbuf);
}

/* gather: modes OUT and OWN (the root's src is its own block of dst);
 * away from the root dst is a sentinel buffer that must stay untouched. */
static void check_gather(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, size_t count,
                         int root, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), "gather", t, a, dt, 0, count, root, m);
    const size_t es = dt_size(dt), blk = count * es, total = blk * (size_t)t->n;
    const uint64_t salt = next_salt(t);
    uint8_t *want = xmalloc(total);
    for (int r = 0; r < t->n; r++)
        pat_fill(want + (size_t)r * blk, blk, hkey(salt, (uint64_t)r, 2));
    struct gbuf dbuf, s;
    gb_alloc(&dbuf, total, SENTINEL);
    gb_alloc(&s, blk, SENTINEL);
    const bool is_root = t->me == root;
    uint8_t *src = m == OWN && is_root ? dbuf.p + (size_t)root * blk : s.p;
    memcpy(src, want + (size_t)t->me * blk, blk);
    sym_coll_opts_t o = { a, 0, 0 };
    CALL_OK(sym_gather(t->team, dbuf.p, src, count, dt, root, &o), d);
    if (is_root)
        EXPECT_SAME(dbuf.p, want, total, es, d);
    else
        EXPECT_UNTOUCHED(dbuf.p, total, d);
    if (src == s.p)
        EXPECT_SAME(s.p, want + (size_t)t->me * blk, blk, es, d);
    GB_CHECK(&dbuf, d);
    GB_CHECK(&s, d);
    free(want);
    gb_free(&dbuf);
    gb_free(&s);
}

/* scatter: modes OUT and OWN (the root's dst is its own block of src). */
static void check_scatter(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, size_t count,
                          int root, enum mode m)
{
    char d[256];
    describe(d, sizeof(d), "scatter", t, a, dt, 0, count, root, m);
    const size_t es = dt_size(dt), blk = count * es, total = blk * (size_t)t->n;
    const uint64_t salt = next_salt(t);
    const bool is_root = t->me == root;
    struct gbuf s, dbuf;
    gb_alloc(&s, total, SENTINEL);
    gb_alloc(&dbuf, blk, SENTINEL);
    if (is_root)
        for (int j = 0; j < t->n; j++)
            pat_fill(s.p + (size_t)j * blk, blk, hkey(salt, (uint64_t)root, (uint64_t)j));
    uint8_t *orig = xdup(s.p, total);
    uint8_t *want = xmalloc(blk);
    pat_fill(want, blk, hkey(salt, (uint64_t)root, (uint64_t)t->me));
    uint8_t *dst = m == OWN && is_root ? s.p + (size_t)root * blk : dbuf.p;
    sym_coll_opts_t o = { a, 0, 0 };
    CALL_OK(sym_scatter(t->team, dst, s.p, count, dt, root, &o), d);
    EXPECT_SAME(dst, want, blk, es, d);
    /* the root's own block already holds its result: src stays as it was */
    EXPECT_SAME(s.p, orig, total, 1, d);
    GB_CHECK(&s, d);
    GB_CHECK(&dbuf, d);
    free(orig);
    free(want);
    gb_free(&s);
    gb_free(&dbuf);
}

/* ------------------------------------------------------------------------ */
/* The matrix: each collective x algorithm x count x team                    */
/* ------------------------------------------------------------------------ */

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const sym_algorithm_t barrier_algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE,
                                                 SYM_ALGO_RD };
static const sym_algorithm_t broadcast_algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                                   SYM_ALGO_TREE };
static const sym_algorithm_t reduce_algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                                SYM_ALGO_TREE };
static const sym_algorithm_t allreduce_algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                                   SYM_ALGO_TREE, SYM_ALGO_RD };
static const sym_algorithm_t reduce_scatter_algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE,
                                                        SYM_ALGO_RING };
static const sym_algorithm_t all_gather_algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                                    SYM_ALGO_RD };
static const sym_algorithm_t all_gatherv_algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE,
                                                     SYM_ALGO_RING, SYM_ALGO_RD };
static const sym_algorithm_t all_to_all_algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE,
                                                    SYM_ALGO_PAIRWISE };
static const sym_algorithm_t gather_algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE };

/* Every root for small counts; the large count at the first and last. */
static bool root_wanted(const struct tctx *t, size_t count, int root)
{
    return count != LARGE || root == 0 || root == t->n - 1;
}

static void barrier_matrix(struct tctx *t)
{
    int round = 0;
    for (size_t a = 0; a < NELEMS(barrier_algos); a++)
        for (int k = 0; k < 2 * t->n + 2; k++)
            check_barrier(t, barrier_algos[a], round++);
}

static void broadcast_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(broadcast_algos); a++) {
        for (int c = 0; c < nc; c++)
            for (int root = 0; root < t->n; root++)
                if (root_wanted(t, counts[c], root))
                    check_broadcast(t, broadcast_algos[a], matrix_dt(c + root, counts[c]),
                                    counts[c], root);
        sym_coll_opts_t o = { broadcast_algos[a], 0, 0 };
        CALL_OK(sym_broadcast(t->team, NULL, 0, SYM_INT32, t->n - 1, &o), "count 0, NULL");
    }
}

static void reduce_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(reduce_algos); a++) {
        for (int c = 0; c < nc; c++)
            for (int root = 0; root < t->n; root++) {
                if (!root_wanted(t, counts[c], root))
                    continue;
                for (enum mode m = OUT; m <= OVERLAP; m++)
                    check_reduction(t, true, reduce_algos[a], matrix_dt(c + root + m, counts[c]),
                                    SYM_OP_SUM, counts[c], root, m);
            }
        sym_coll_opts_t o = { reduce_algos[a], 0, 0 };
        CALL_OK(sym_reduce(t->team, NULL, NULL, 0, SYM_INT32, SYM_OP_SUM, 0, &o),
                "count 0, NULL");
    }
}

static void allreduce_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(allreduce_algos); a++) {
        for (int c = 0; c < nc; c++)
            for (enum mode m = OUT; m <= OVERLAP; m++)
                check_reduction(t, false, allreduce_algos[a], matrix_dt(c + m, counts[c]),
                                SYM_OP_SUM, counts[c], -1, m);
        sym_coll_opts_t o = { allreduce_algos[a], 0, 0 };
        CALL_OK(sym_allreduce(t->team, NULL, NULL, 0, SYM_DOUBLE, SYM_OP_MAX, &o),
                "count 0, NULL");
    }
}

static void reduce_scatter_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(reduce_scatter_algos); a++) {
        for (int c = 0; c < nc; c++) {
            /* n blocks of LARGE would be n times the work of the others */
            size_t count = counts[c] == LARGE ? LARGE / (size_t)t->n + 1 : counts[c];
            for (enum mode m = OUT; m <= OWN; m++)
                check_reduce_scatter(t, reduce_scatter_algos[a], matrix_dt(c + m, counts[c]),
                                     SYM_OP_SUM, count, m);
        }
        sym_coll_opts_t o = { reduce_scatter_algos[a], 0, 0 };
        CALL_OK(sym_reduce_scatter(t->team, NULL, NULL, 0, SYM_INT16, SYM_OP_BXOR, &o),
                "count 0, NULL");
    }
}

static void all_gather_matrix(struct tctx *t)
{
    size_t counts[6], per[HARNESS_MAX_PES];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(all_gather_algos); a++) {
        for (int c = 0; c < nc; c++) {
            for (int r = 0; r < t->n; r++)
                per[r] = counts[c];
            for (enum mode m = OUT; m <= OWN; m++)
                check_gatherv_all(t, false, all_gather_algos[a], matrix_dt(c + m, counts[c]),
                                  per, m);
        }
        sym_coll_opts_t o = { all_gather_algos[a], 0, 0 };
        CALL_OK(sym_all_gather(t->team, NULL, NULL, 0, SYM_UINT8, &o), "count 0, NULL");
    }
}

static void all_gatherv_matrix(struct tctx *t)
{
    size_t counts[6], per[HARNESS_MAX_PES];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(all_gatherv_algos); a++) {
        for (int c = 0; c < nc; c++)
            for (int ragged = 0; ragged < 2; ragged++) {
                /* ragged: every third member sends nothing, the others differ */
                for (int r = 0; r < t->n; r++)
                    per[r] = !ragged ? counts[c] : r % 3 == 1 ? 0 : counts[c] + (size_t)r;
                for (enum mode m = OUT; m <= OWN; m += m == OUT ? 2 : 1)
                    check_gatherv_all(t, true, all_gatherv_algos[a],
                                      matrix_dt(c + ragged + m, counts[c]), per, m);
            }
        sym_coll_opts_t o = { all_gatherv_algos[a], 0, 0 };
        size_t zero[HARNESS_MAX_PES] = { 0 };
        CALL_OK(sym_all_gatherv(t->team, NULL, NULL, zero, SYM_FLOAT, &o), "counts 0, NULL");
    }
}

static size_t uniform_count(int from, int to, size_t c)
{
    (void)from;
    (void)to;
    return c;
}

/* Uneven, including empty blocks and a block to oneself. */
static size_t ragged_count(int from, int to, size_t c)
{
    return (from + 2 * to) % 3 == 0 ? 0 : c + (size_t)((from * 3 + to) % 4);
}

static void all_to_all_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(all_to_all_algos); a++) {
        for (int c = 0; c < nc; c++) {
            size_t count = counts[c] == LARGE ? LARGE / (size_t)t->n + 1 : counts[c];
            for (enum mode m = OUT; m <= OVERLAP; m++)
                check_alltoall(t, false, all_to_all_algos[a], matrix_dt(c + m, counts[c]),
                               uniform_count, count, m);
        }
        sym_coll_opts_t o = { all_to_all_algos[a], 0, 0 };
        CALL_OK(sym_all_to_all(t->team, NULL, NULL, 0, SYM_INT64, &o), "count 0, NULL");
    }
}

static void all_to_allv_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(all_to_all_algos); a++) {
        for (int c = 0; c < nc; c++) {
            size_t count = counts[c] == LARGE ? LARGE / (size_t)t->n + 1 : counts[c];
            for (int ragged = 0; ragged < 2; ragged++)
                for (enum mode m = OUT; m <= OVERLAP; m++)
                    check_alltoall(t, true, all_to_all_algos[a],
                                   matrix_dt(c + ragged + m, counts[c]),
                                   ragged ? ragged_count : uniform_count, count, m);
        }
        sym_coll_opts_t o = { all_to_all_algos[a], 0, 0 };
        size_t zero[HARNESS_MAX_PES] = { 0 };
        CALL_OK(sym_all_to_allv(t->team, NULL, zero, NULL, zero, SYM_BFLOAT16, &o),
                "counts 0, NULL");
    }
}

static void gather_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(gather_algos); a++) {
        for (int c = 0; c < nc; c++)
            for (int root = 0; root < t->n; root++)
                if (root_wanted(t, counts[c], root))
                    for (enum mode m = OUT; m <= OWN; m += 3)
                        check_gather(t, gather_algos[a], matrix_dt(c + root + m, counts[c]),
                                     counts[c], root, m);
        sym_coll_opts_t o = { gather_algos[a], 0, 0 };
        CALL_OK(sym_gather(t->team, NULL, NULL, 0, SYM_INT8, 0, &o), "count 0, NULL");
    }
}

static void scatter_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(gather_algos); a++) {
        for (int c = 0; c < nc; c++)
            for (int root = 0; root < t->n; root++)
                if (root_wanted(t, counts[c], root))
                    for (enum mode m = OUT; m <= OWN; m += 3)
                        check_scatter(t, gather_algos[a], matrix_dt(c + root + m, counts[c]),
                                      counts[c], root, m);
        sym_coll_opts_t o = { gather_algos[a], 0, 0 };
        CALL_OK(sym_scatter(t->team, NULL, NULL, 0, SYM_UINT32, t->n - 1, &o),
                "count 0, NULL");
    }
}

/* SYMHEAP_TEST_QUICK (the sanitizer stage of .ci/test) keeps the matrix to
 * 2, 5 and 8 PEs: with the strided and reversed teams every job also runs
 * on, team sizes 1..8 are still covered, in a third of the time. */
static struct criterion_test_params matrix_pe_counts(void)
{
    static int all[] = COLL_PE_COUNTS;
    static int quick[] = { 2, 5, 8 };
    if (getenv("SYMHEAP_TEST_QUICK"))
        return cr_make_param_array(int, quick, sizeof(quick) / sizeof(quick[0]));
    return cr_make_param_array(int, all, sizeof(all) / sizeof(all[0]));
}

#define MATRIX_TEST(coll)                                                               \
    ParameterizedTestParameters(coll_##coll, matrix)                                   \
    {                                                                                  \
        return matrix_pe_counts();                                                     \
    }                                                                                  \
    ParameterizedTest(int *npes, coll_##coll, matrix)                                  \
    {                                                                                  \
        static const struct team_job job = { coll##_matrix };                          \
        run_pes_env(*npes, matrix_env, team_job_body, (void *)&job);                   \
    }

MATRIX_TEST(barrier)
MATRIX_TEST(broadcast)
MATRIX_TEST(reduce)
MATRIX_TEST(allreduce)
MATRIX_TEST(reduce_scatter)
MATRIX_TEST(all_gather)
MATRIX_TEST(all_gatherv)
MATRIX_TEST(all_to_all)
MATRIX_TEST(all_to_allv)
MATRIX_TEST(gather)
MATRIX_TEST(scatter)

/* ------------------------------------------------------------------------ */
/* Every datatype x op, on the world team                                    */
/* ------------------------------------------------------------------------ */

#define TYPES_PE_COUNTS {1, 2, 3, 5, 8}

static struct tctx world_ctx(int tag)
{
    struct tctx t = { .team = sym_team_world(), .n = sym_n_pes(), .me = sym_my_pe(),
                      .tag = tag };
    return t;
}

/* Each (datatype, op) once with every algorithm, each at its own count. */
static void types_allreduce_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    struct tctx t = world_ctx(10);
    static const struct {
        sym_algorithm_t a;
        size_t count;
    } runs[] = { { SYM_ALGO_TREE, 1 }, { SYM_ALGO_NAIVE, 5 }, { SYM_ALGO_RD, 13 },
                 { SYM_ALGO_RING, 1031 }, { SYM_ALGO_AUTO, 17 } };
    for (size_t d = 0; d < NDTS; d++)
        for (size_t o = 0; o < NOPS; o++) {
            if (!op_valid(all_dts[d], all_ops[o]))
                continue;
            for (size_t k = 0; k < NELEMS(runs); k++)
                check_reduction(&t, false, runs[k].a, all_dts[d], all_ops[o], runs[k].count, -1,
                                (enum mode)((d + o + k) % 3));
        }
}

static void types_reduce_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    struct tctx t = world_ctx(11);
    for (size_t d = 0; d < NDTS; d++)
        for (size_t o = 0; o < NOPS; o++) {
            if (!op_valid(all_dts[d], all_ops[o]))
                continue;
            for (size_t k = 0; k < 3; k++)
                check_reduction(&t, true, reduce_algos[1 + k], all_dts[d], all_ops[o], 7 + 100 * k,
                                (int)((d + o + k) % (size_t)n), (enum mode)((d + k) % 3));
        }
}

static void types_reduce_scatter_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    struct tctx t = world_ctx(12);
    for (size_t d = 0; d < NDTS; d++)
        for (size_t o = 0; o < NOPS; o++) {
            if (!op_valid(all_dts[d], all_ops[o]))
                continue;
            for (size_t k = 0; k < 2; k++)
                check_reduce_scatter(&t, reduce_scatter_algos[1 + k], all_dts[d], all_ops[o],
                                     3 + 200 * k, k ? OWN : OUT);
        }
}

/* The collectives that move data: every element size and type. */
static void types_movers_body(int me, int n, void *arg)
{
    (void)me;
    (void)arg;
    struct tctx t = world_ctx(13);
    size_t per[HARNESS_MAX_PES];
    for (size_t d = 0; d < NDTS; d++) {
        const sym_datatype_t dt = all_dts[d];
        const sym_algorithm_t a = d % 2 ? SYM_ALGO_NAIVE : SYM_ALGO_AUTO;
        check_broadcast(&t, SYM_ALGO_TREE, dt, 13, (int)(d % (size_t)n));
        for (int r = 0; r < n; r++)
            per[r] = 13;
        check_gatherv_all(&t, false, SYM_ALGO_RING, dt, per, OUT);
        for (int r = 0; r < n; r++)
            per[r] = (size_t)(r + 1) * 3;
        check_gatherv_all(&t, true, a, dt, per, OWN);
        check_alltoall(&t, false, a, dt, uniform_count, 13, OUT);
        check_alltoall(&t, true, SYM_ALGO_PAIRWISE, dt, ragged_count, 13, IN);
        check_gather(&t, SYM_ALGO_TREE, dt, 13, n - 1, OUT);
        check_scatter(&t, SYM_ALGO_TREE, dt, 13, 0, OWN);
    }
}

#define TYPES_TEST(name)                                                                \
    ParameterizedTestParameters(coll_types, name)                                      \
    {                                                                                  \
        static int counts[] = TYPES_PE_COUNTS;                                         \
        return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));   \
    }                                                                                  \
    ParameterizedTest(int *npes, coll_types, name)                                     \
    {                                                                                  \
        run_pes_env(*npes, matrix_env, types_##name##_body, NULL);                     \
    }

TYPES_TEST(allreduce)
TYPES_TEST(reduce)
TYPES_TEST(reduce_scatter)
TYPES_TEST(movers)

/* float16 and bfloat16 accumulate in float and round once: member 0 adds
 * 1024 (256 for bfloat16) and every other member half a unit in the last
 * place of that.  Rounding after each addition would stick at 1024 (a tie
 * to even every time); one rounding of the float sum does not. */
static void half_accumulation_body(int me, int n, void *arg)
{
    (void)arg;
    for (int b = 0; b < 2; b++) {
        const sym_datatype_t dt = b ? SYM_BFLOAT16 : SYM_FLOAT16;
        const double big = b ? 256 : 1024, ulp_half = b ? 1 : 0.5;
        enum { CNT = 9 };
        uint16_t src[CNT], dst[CNT], rs_src[CNT * HARNESS_MAX_PES];
        for (int i = 0; i < CNT; i++)
            flt_store(dt, src, (size_t)i, me == 0 ? big : ulp_half);
        for (int i = 0; i < CNT * n; i++)
            flt_store(dt, rs_src, (size_t)i, me == 0 ? big : ulp_half);
        uint16_t want = (uint16_t)(b ? bf16_bits(big + ulp_half * (n - 1))
                                     : f16_bits(big + ulp_half * (n - 1)));
        for (size_t a = 0; a < NELEMS(allreduce_algos); a++) {
            sym_coll_opts_t o = { allreduce_algos[a], 0, 0 };
            PE_OK(sym_allreduce(sym_team_world(), dst, src, CNT, dt, SYM_OP_SUM, &o));
            for (int i = 0; i < CNT; i++)
                PE_ASSERT(dst[i] == want, "%s allreduce/%s over %d PEs: element %d is 0x%04x, "
                          "expected 0x%04x (one rounding of the float sum)", sym_datatype_name(dt),
                          sym_algorithm_name(o.algorithm), n, i, dst[i], want);
        }
        for (size_t a = 0; a < NELEMS(reduce_algos); a++) {
            sym_coll_opts_t o = { reduce_algos[a], 0, 0 };
            memset(dst, 0, sizeof(dst));
            PE_OK(sym_reduce(sym_team_world(), dst, src, CNT, dt, SYM_OP_SUM, n - 1, &o));
            for (int i = 0; me == n - 1 && i < CNT; i++)
                PE_ASSERT(dst[i] == want, "%s reduce/%s: element %d is 0x%04x, expected 0x%04x",
                          sym_datatype_name(dt), sym_algorithm_name(o.algorithm), i, dst[i],
                          want);
        }
        for (size_t a = 0; a < NELEMS(reduce_scatter_algos); a++) {
            sym_coll_opts_t o = { reduce_scatter_algos[a], 0, 0 };
            PE_OK(sym_reduce_scatter(sym_team_world(), dst, rs_src, CNT, dt, SYM_OP_SUM, &o));
            for (int i = 0; i < CNT; i++)
                PE_ASSERT(dst[i] == want, "%s reduce_scatter/%s: element %d is 0x%04x, "
                          "expected 0x%04x", sym_datatype_name(dt),
                          sym_algorithm_name(o.algorithm), i, dst[i], want);
        }
    }
}

ParameterizedTestParameters(coll_types, half_accumulates_in_float)
{
    static int counts[] = { 2, 3, 4, 8 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_types, half_accumulates_in_float)
{
    run_pes(*npes, half_accumulation_body, NULL);
}

/* The reference converters themselves, so a wrong reference cannot make
 * a wrong library pass. */
Test(coll_types, reference_converters)
{
    cr_assert_eq(f16_bits(1.0), 0x3c00);
    cr_assert_eq(f16_bits(-2.0), 0xc000);
    cr_assert_eq(f16_bits(65504.0), 0x7bff);
    cr_assert_eq(f16_bits(65520.0), 0x7c00);          /* rounds to infinity */
    cr_assert_eq(f16_bits(ldexp(1.0, -24)), 0x0001);  /* smallest subnormal */
    cr_assert_eq(f16_bits(ldexp(1.0, -25)), 0x0000);  /* tie to even: 0 */
    cr_assert_eq(f16_bits(1024.5), 0x6400);           /* tie to even: 1024 */
    cr_assert_eq(f16_bits(1025.5), 0x6402);           /* tie to even: 1026 */
    cr_assert_eq(f16_bits(ldexp(1023.0, -24) + ldexp(1.0, -25)), 0x0400); /* to normal */
    cr_assert_eq(bf16_bits(1.0), 0x3f80);
    cr_assert_eq(bf16_bits(257.0), 0x4380);           /* tie to even: 256 */
    cr_assert_eq(bf16_bits(259.0), 0x4382);           /* tie to even: 260 */
    for (unsigned b = 0; b < 0x10000u; b++) {
        if ((b & 0x7c00u) == 0x7c00u && (b & 0x3ffu))
            continue; /* nan payloads */
        cr_assert_eq(f16_bits(f16_value((uint16_t)b)), b, "f16 round trip of 0x%04x", b);
    }
    for (unsigned b = 0; b < 0x10000u; b++) {
        if ((b & 0x7f80u) == 0x7f80u && (b & 0x7fu))
            continue;
        cr_assert_eq(bf16_bits(bf16_value((uint16_t)b)), b, "bf16 round trip of 0x%04x", b);
        float f;
        uint32_t fb = (uint32_t)b << 16;
        memcpy(&f, &fb, sizeof(f));
        cr_assert_eq(bf16_value((uint16_t)b), (double)f, "bf16 value of 0x%04x", b);
    }
}

/* ------------------------------------------------------------------------ */
/* Inexact floating-point data: same bits on every PE and every run          */
/* ------------------------------------------------------------------------ */

/* Values of widely different magnitudes, so the order of additions shows
 * in the low bits. */
static double wild(uint64_t salt, int rank, size_t i)
{
    uint64_t h = hkey(salt, (uint64_t)rank, i);
    double m = (double)(h >> 11) * ldexp(1.0, -53) * 2 - 1;
    return ldexp(m, (int)(h % 41) - 20);
}

static uint64_t fnv(const void *p, size_t bytes)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (size_t i = 0; i < bytes; i++)
        h = (h ^ ((const uint8_t *)p)[i]) * UINT64_C(1099511628211);
    return h;
}

/* Every member has the same hash of its result. */
static void all_same(uint64_t *slots, uint64_t h, const char *what)
{
    const int n = sym_n_pes(), me = sym_my_pe();
    for (int pe = 0; pe < n; pe++)
        PE_OK(sym_p64(&slots[me], h, pe));
    PE_OK(sym_barrier_all());
    for (int pe = 0; pe < n; pe++)
        PE_ASSERT(slots[pe] == h, "%s: PE %d's result differs from this PE's", what, pe);
    PE_OK(sym_barrier_all());
}

static void determinism_body(int me, int n, void *arg)
{
    (void)arg;
    uint64_t *slots = sym_calloc((size_t)n, sizeof(uint64_t));
    PE_ASSERT(slots, "sym_calloc: %s", sym_last_error());
    enum { CNT = 3001 };
    const sym_datatype_t dts[2] = { SYM_FLOAT, SYM_DOUBLE };
    double *ref = xmalloc(CNT * (size_t)n * sizeof(double));
    double *bound = xmalloc(CNT * (size_t)n * sizeof(double));
    for (int k = 0; k < 2; k++) {
        const sym_datatype_t dt = dts[k];
        const size_t es = dt_size(dt), tot = CNT * (size_t)n;
        uint8_t *src = xmalloc(tot * es), *r1 = xmalloc(tot * es), *r2 = xmalloc(tot * es);
        for (size_t i = 0; i < tot; i++) {
            flt_store(dt, src, i, wild((uint64_t)k, me, i));
            ref[i] = bound[i] = 0;
            for (int r = 0; r < n; r++) {
                uint8_t one[8]; /* the value as the datatype holds it */
                flt_store(dt, one, 0, wild((uint64_t)k, r, i));
                ref[i] += flt_load(dt, one, 0);
                bound[i] += fabs(flt_load(dt, one, 0));
            }
        }
        const double eps = dt == SYM_FLOAT ? ldexp(1.0, -23) : ldexp(1.0, -52);
        char what[128];
        for (size_t a = 1; a < NELEMS(allreduce_algos); a++) {
            sym_coll_opts_t o = { allreduce_algos[a], 0, 0 };
            snprintf(what, sizeof(what), "allreduce/%s %s", sym_algorithm_name(o.algorithm),
                     sym_datatype_name(dt));
            PE_OK(sym_allreduce(sym_team_world(), r1, src, CNT, dt, SYM_OP_SUM, &o));
            PE_OK(sym_allreduce(sym_team_world(), r2, src, CNT, dt, SYM_OP_SUM, &o));
            PE_ASSERT(!memcmp(r1, r2, CNT * es), "%s: two runs gave different bits", what);
            for (size_t i = 0; i < CNT; i++)
                PE_ASSERT(fabs(flt_load(dt, r1, i) - ref[i]) <= n * eps * bound[i],
                          "%s: element %zu is %.17g, expected about %.17g", what, i,
                          flt_load(dt, r1, i), ref[i]);
            all_same(slots, fnv(r1, CNT * es), what);
        }
        for (size_t a = 1; a < NELEMS(reduce_algos); a++) {
            sym_coll_opts_t o = { reduce_algos[a], 0, 0 };
            snprintf(what, sizeof(what), "reduce/%s %s", sym_algorithm_name(o.algorithm),
                     sym_datatype_name(dt));
            PE_OK(sym_reduce(sym_team_world(), r1, src, CNT, dt, SYM_OP_SUM, 0, &o));
            PE_OK(sym_reduce(sym_team_world(), r2, src, CNT, dt, SYM_OP_SUM, 0, &o));
            for (size_t i = 0; me == 0 && i < CNT; i++)
                PE_ASSERT(fabs(flt_load(dt, r1, i) - ref[i]) <= n * eps * bound[i],
                          "%s: element %zu is %.17g, expected about %.17g", what, i,
                          flt_load(dt, r1, i), ref[i]);
            PE_ASSERT(me != 0 || !memcmp(r1, r2, CNT * es), "%s: two runs gave different bits",
                      what);
        }
        for (size_t a = 1; a < NELEMS(reduce_scatter_algos); a++) {
            sym_coll_opts_t o = { reduce_scatter_algos[a], 0, 0 };
            snprintf(what, sizeof(what), "reduce_scatter/%s %s", sym_algorithm_name(o.algorithm),
                     sym_datatype_name(dt));
            PE_OK(sym_reduce_scatter(sym_team_world(), r1, src, CNT, dt, SYM_OP_SUM, &o));
            PE_OK(sym_reduce_scatter(sym_team_world(), r2, src, CNT, dt, SYM_OP_SUM, &o));
            PE_ASSERT(!memcmp(r1, r2, CNT * es), "%s: two runs gave different bits", what);
            for (size_t i = 0; i < CNT; i++) {
                size_t g = (size_t)me * CNT + i;
                PE_ASSERT(fabs(flt_load(dt, r1, i) - ref[g]) <= n * eps * bound[g],
                          "%s: element %zu is %.17g, expected about %.17g", what, i,
                          flt_load(dt, r1, i), ref[g]);
            }
        }
        free(src);
        free(r1);
        free(r2);
    }
    free(ref);
    free(bound);
    sym_free(slots);
}

ParameterizedTestParameters(coll_determinism, inexact_floats)
{
    static int counts[] = { 2, 3, 5, 8 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_determinism, inexact_floats)
{
    run_pes(*npes, determinism_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* torch.distributed reference cases, 2 PEs, every algorithm                 */
/* ------------------------------------------------------------------------ */

static void torch_allreduce_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    const float in[2][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 } };
    const float sum[4] = { 6, 8, 10, 12 }, mean[4] = { 3, 4, 5, 6 };
    for (size_t a = 0; a < NELEMS(allreduce_algos); a++) {
        sym_coll_opts_t o = { allreduce_algos[a], 0, 0 };
        float out[4] = { 0 };
        PE_OK(sym_allreduce(sym_team_world(), out, in[me], 4, SYM_FLOAT, SYM_OP_SUM, &o));
        PE_ASSERT(!memcmp(out, sum, sizeof(sum)), "allreduce/%s sum: [%g %g %g %g]",
                  sym_algorithm_name(o.algorithm), out[0], out[1], out[2], out[3]);
        float buf[4];
        memcpy(buf, in[me], sizeof(buf));
        PE_OK(sym_allreduce(sym_team_world(), buf, buf, 4, SYM_FLOAT, SYM_OP_AVG, &o));
        PE_ASSERT(!memcmp(buf, mean, sizeof(mean)), "allreduce/%s mean: [%g %g %g %g]",
                  sym_algorithm_name(o.algorithm), buf[0], buf[1], buf[2], buf[3]);
    }
}

static void torch_broadcast_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    const float in[2][4] = { { 1, 2, 3, 4 }, { 5, 6, 7, 8 } };
    for (size_t a = 0; a < NELEMS(broadcast_algos); a++) {
        sym_coll_opts_t o = { broadcast_algos[a], 0, 0 };
        float buf[4];
        memcpy(buf, in[me], sizeof(buf));
        PE_OK(sym_broadcast(sym_team_world(), buf, 4, SYM_FLOAT, 0, &o));
        PE_ASSERT(!memcmp(buf, in[0], sizeof(buf)), "broadcast/%s: [%g %g %g %g]",
                  sym_algorithm_name(o.algorithm), buf[0], buf[1], buf[2], buf[3]);
    }
}

static void torch_all_gather_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    const int64_t in[2][2] = { { 0, 10 }, { 1, 11 } }, want[4] = { 0, 10, 1, 11 };
    for (size_t a = 0; a < NELEMS(all_gather_algos); a++) {
        sym_coll_opts_t o = { all_gather_algos[a], 0, 0 };
        int64_t out[4] = { -1, -1, -1, -1 };
        PE_OK(sym_all_gather(sym_team_world(), out, in[me], 2, SYM_INT64, &o));
        PE_ASSERT(!memcmp(out, want, sizeof(want)), "all_gather/%s: [%lld %lld %lld %lld]",
                  sym_algorithm_name(o.algorithm), (long long)out[0], (long long)out[1],
                  (long long)out[2], (long long)out[3]);
    }
}

static void torch_all_to_all_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    const int64_t in[2][4] = { { 10, 20, 30, 40 }, { 50, 60, 70, 80 } };
    const int64_t want[2][4] = { { 10, 20, 50, 60 }, { 30, 40, 70, 80 } };
    for (size_t a = 0; a < NELEMS(all_to_all_algos); a++) {
        sym_coll_opts_t o = { all_to_all_algos[a], 0, 0 };
        int64_t out[4] = { -1, -1, -1, -1 };
        PE_OK(sym_all_to_all(sym_team_world(), out, in[me], 2, SYM_INT64, &o));
        PE_ASSERT(!memcmp(out, want[me], sizeof(out)), "all_to_all/%s: [%lld %lld %lld %lld]",
                  sym_algorithm_name(o.algorithm), (long long)out[0], (long long)out[1],
                  (long long)out[2], (long long)out[3]);
    }
}

static void torch_all_to_allv_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    /* PE 0 sends [10] to itself and [20 21 22] to PE 1; PE 1 sends [30 31]
     * to PE 0 and [40 41] to itself */
    const int64_t in[2][5] = { { 10, 20, 21, 22 }, { 30, 31, 40, 41 } };
    const size_t scount[2][2] = { { 1, 3 }, { 2, 2 } }, rcount[2][2] = { { 1, 2 }, { 3, 2 } };
    const int64_t want[2][5] = { { 10, 30, 31 }, { 20, 21, 22, 40, 41 } };
    const size_t nout[2] = { 3, 5 };
    for (size_t a = 0; a < NELEMS(all_to_all_algos); a++) {
        sym_coll_opts_t o = { all_to_all_algos[a], 0, 0 };
        int64_t out[6] = { -1, -1, -1, -1, -1, -1 };
        PE_OK(sym_all_to_allv(sym_team_world(), out, rcount[me], in[me], scount[me], SYM_INT64,
                              &o));
        PE_ASSERT(!memcmp(out, want[me], nout[me] * sizeof(int64_t)) && out[nout[me]] == -1,
                  "all_to_allv/%s: [%lld %lld %lld %lld %lld %lld]",
                  sym_algorithm_name(o.algorithm), (long long)out[0], (long long)out[1],
                  (long long)out[2], (long long)out[3], (long long)out[4], (long long)out[5]);
    }
}

Test(coll_torch, allreduce_sum_and_mean) { run_pes(2, torch_allreduce_body, NULL); }
Test(coll_torch, broadcast) { run_pes(2, torch_broadcast_body, NULL); }
Test(coll_torch, all_gather) { run_pes(2, torch_all_gather_body, NULL); }
Test(coll_torch, all_to_all) { run_pes(2, torch_all_to_all_body, NULL); }
Test(coll_torch, all_to_allv) { run_pes(2, torch_all_to_allv_body, NULL); }

/* ------------------------------------------------------------------------ */
/* Algorithm selection                                                       */
/* ------------------------------------------------------------------------ */

enum kind {
    K_BARRIER, K_BROADCAST, K_REDUCE, K_ALLREDUCE, K_REDUCE_SCATTER, K_ALL_GATHER,
    K_ALL_GATHERV, K_ALL_TO_ALL, K_ALL_TO_ALLV, K_GATHER, K_SCATTER, K_COUNT
};

static const struct kind_info {
    const char *name;       /* as in the library's messages */
    unsigned algos;         /* bit (1 << algorithm) for each documented one */
    const char *env;        /* the variable that selects it */
    sym_algorithm_t env_pick, call_pick;
} kinds[K_COUNT] = {
    [K_BARRIER] = { "barrier", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_TREE | 1u << SYM_ALGO_RD,
                    "SYMHEAP_BARRIER_ALGORITHM=tree", SYM_ALGO_TREE, SYM_ALGO_NAIVE },
    [K_BROADCAST] = { "broadcast", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_RING | 1u << SYM_ALGO_TREE,
                      "SYMHEAP_BROADCAST_ALGORITHM=ring", SYM_ALGO_RING, SYM_ALGO_TREE },
    [K_REDUCE] = { "reduce", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_RING | 1u << SYM_ALGO_TREE,
                   "SYMHEAP_REDUCE_ALGORITHM=ring", SYM_ALGO_RING, SYM_ALGO_NAIVE },
    [K_ALLREDUCE] = { "allreduce", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_RING |
                      1u << SYM_ALGO_TREE | 1u << SYM_ALGO_RD,
                      "SYMHEAP_ALLREDUCE_ALGORITHM=ring", SYM_ALGO_RING, SYM_ALGO_TREE },
    [K_REDUCE_SCATTER] = { "reduce_scatter", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_RING,
                           "SYMHEAP_REDUCE_SCATTER_ALGORITHM=ring", SYM_ALGO_RING,
                           SYM_ALGO_NAIVE },
    [K_ALL_GATHER] = { "all_gather", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_RING |
                       1u << SYM_ALGO_RD, "SYMHEAP_ALL_GATHER_ALGORITHM=rd", SYM_ALGO_RD,
                       SYM_ALGO_RING },
    [K_ALL_GATHERV] = { "all_gatherv", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_RING |
                        1u << SYM_ALGO_RD, "SYMHEAP_ALL_GATHER_ALGORITHM=ring", SYM_ALGO_RING,
                        SYM_ALGO_RD },
    [K_ALL_TO_ALL] = { "all_to_all", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_PAIRWISE,
                       "SYMHEAP_ALL_TO_ALL_ALGORITHM=pairwise", SYM_ALGO_PAIRWISE,
                       SYM_ALGO_NAIVE },
    [K_ALL_TO_ALLV] = { "all_to_allv", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_PAIRWISE,
                        "SYMHEAP_ALL_TO_ALL_ALGORITHM=naive", SYM_ALGO_NAIVE,
                        SYM_ALGO_PAIRWISE },
    [K_GATHER] = { "gather", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_TREE,
                   "SYMHEAP_GATHER_ALGORITHM=tree", SYM_ALGO_TREE, SYM_ALGO_NAIVE },
    [K_SCATTER] = { "scatter", 1u << SYM_ALGO_NAIVE | 1u << SYM_ALGO_TREE,
                    "SYMHEAP_SCATTER_ALGORITHM=naive", SYM_ALGO_NAIVE, SYM_ALGO_TREE },
};

/* A small valid call of collective k on the world (2 elements per block,
 * int32), checked for the right data. */
static sym_status_t call_kind(enum kind k, const sym_coll_opts_t *o)
{
    const sym_team_t w = sym_team_world();
    const int n = sym_n_pes(), me = sym_my_pe();
    int32_t src[2 * HARNESS_MAX_PES], dst[2 * HARNESS_MAX_PES];
    size_t cnt[HARNESS_MAX_PES];
    for (int i = 0; i < 2 * n; i++) {
        src[i] = 1000 * me + i;
        dst[i] = -1;
    }
    for (int i = 0; i < n; i++)
        cnt[i] = 2;
    sym_status_t st = SYM_ERR_INTERNAL;
    bool ok = true;
    switch (k) {
    case K_BARRIER: st = sym_barrier(w, o); break;
    case K_BROADCAST:
        st = sym_broadcast(w, src, 2, SYM_INT32, 0, o);
        ok = src[1] == 1;
        break;
    case K_REDUCE:
        st = sym_reduce(w, dst, src, 2, SYM_INT32, SYM_OP_MAX, 0, o);
        ok = me != 0 || dst[1] == 1000 * (n - 1) + 1;
        break;
    case K_ALLREDUCE:
        st = sym_allreduce(w, dst, src, 2, SYM_INT32, SYM_OP_MAX, o);
        ok = dst[1] == 1000 * (n - 1) + 1;
        break;
    case K_REDUCE_SCATTER:
        st = sym_reduce_scatter(w, dst, src, 2, SYM_INT32, SYM_OP_MAX, o);
        ok = dst[1] == 1000 * (n - 1) + 2 * me + 1;
        break;
    case K_ALL_GATHER:
        st = sym_all_gather(w, dst, src, 2, SYM_INT32, o);
        ok = dst[2 * n - 1] == 1000 * (n - 1) + 1;
        break;
    case K_ALL_GATHERV:
        st = sym_all_gatherv(w, dst, src, cnt, SYM_INT32, o);
        ok = dst[2 * n - 1] == 1000 * (n - 1) + 1;
        break;
    case K_ALL_TO_ALL:
        st = sym_all_to_all(w, dst, src, 2, SYM_INT32, o);
        ok = dst[2 * n - 1] == 1000 * (n - 1) + 2 * me + 1;
        break;
    case K_ALL_TO_ALLV:
        st = sym_all_to_allv(w, dst, cnt, src, cnt, SYM_INT32, o);
        ok = dst[2 * n - 1] == 1000 * (n - 1) + 2 * me + 1;
        break;
    case K_GATHER:
        st = sym_gather(w, dst, src, 2, SYM_INT32, n - 1, o);
        ok = me != n - 1 || dst[2 * n - 1] == 1000 * (n - 1) + 1;
        break;
    case K_SCATTER:
        st = sym_scatter(w, dst, src, 2, SYM_INT32, n - 1, o);
        ok = dst[1] == 1000 * (n - 1) + 2 * me + 1;
        break;
    default: break;
    }
    if (st == SYM_OK)
        PE_ASSERT(ok, "%s returned the wrong data", kinds[k].name);
    return st;
}

/* Run `call` with fd 2 going to a file and return what was logged. */
static char *capture_stderr(enum kind k, const sym_coll_opts_t *o, sym_status_t *st)
{
    char path[64];
    snprintf(path, sizeof(path), "/tmp/symheap-test-log-%d", (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    PE_ASSERT(fd >= 0, "cannot create %s", path);
    unlink(path);
    fflush(stderr);
    int saved = dup(2);
    PE_ASSERT(saved >= 0 && dup2(fd, 2) == 2, "cannot redirect stderr");
    *st = call_kind(k, o);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t len = lseek(fd, 0, SEEK_END);
    char *text = xmalloc((size_t)len + 1);
    PE_ASSERT(pread(fd, text, (size_t)len, 0) == len, "cannot read the log");
    text[len] = '\0';
    close(fd);
    return text;
}

static void expect_logged(const char *log, const char *coll, sym_algorithm_t a,
                          const char *source)
{
    char want[96];
    snprintf(want, sizeof(want), "algorithm %s (%s)", sym_algorithm_name(a), source);
    PE_ASSERT(strstr(log, want) != NULL, "sym_%s: the debug log does not say \"%s\":\n%s", coll,
              want, log);
}

/* The environment picks the algorithm when the call says AUTO (or passes
 * no options); a per-call choice overrides it. */
static void env_selection_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    const enum kind k = *(const enum kind *)arg;
    const struct kind_info *ki = &kinds[k];
    sym_status_t st;
    char *log = capture_stderr(k, NULL, &st);
    PE_ASSERT(st == SYM_OK, "sym_%s (no options) returned %s: %s", ki->name,
              sym_status_name(st), sym_last_error());
    expect_logged(log, ki->name, ki->env_pick, "environment");
    free(log);
    sym_coll_opts_t o = { SYM_ALGO_AUTO, 0, 0 };
    log = capture_stderr(k, &o, &st);
    PE_ASSERT(st == SYM_OK, "sym_%s (AUTO) returned %s", ki->name, sym_status_name(st));
    expect_logged(log, ki->name, ki->env_pick, "environment");
    free(log);
    o.algorithm = ki->call_pick;
    log = capture_stderr(k, &o, &st);
    PE_ASSERT(st == SYM_OK, "sym_%s (%s) returned %s", ki->name,
              sym_algorithm_name(ki->call_pick), sym_status_name(st));
    expect_logged(log, ki->name, ki->call_pick, "per call");
    free(log);
}

/* Without the variable, AUTO is the library's own choice. */
static void auto_selection_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    const enum kind k = *(const enum kind *)arg;
    sym_status_t st;
    char *log = capture_stderr(k, NULL, &st);
    PE_ASSERT(st == SYM_OK, "sym_%s returned %s: %s", kinds[k].name, sym_status_name(st),
              sym_last_error());
    PE_ASSERT(strstr(log, "(automatic)") != NULL, "sym_%s: no automatic choice logged:\n%s",
              kinds[k].name, log);
    free(log);
}

/* Every algorithm the collective does not document is SYM_ERR_INVALID_ARG,
 * on PE 0 only: the others never make these calls, so a failed call must
 * not use up a sequence number either (the next call would mismatch). */
static void invalid_algorithm_body(int me, int n, void *arg)
{
    (void)n;
    const enum kind k = *(const enum kind *)arg;
    const struct kind_info *ki = &kinds[k];
    if (me == 0) {
        for (int a = SYM_ALGO_NAIVE; a <= SYM_ALGO_PAIRWISE + 2; a++) {
            if (ki->algos & (1u << a))
                continue;
            sym_coll_opts_t o = { (sym_algorithm_t)a, 0, 0 };
            sym_status_t st = call_kind(k, &o);
            PE_ASSERT(st == SYM_ERR_INVALID_ARG, "sym_%s with algorithm %d (%s) returned %s: %s",
                      ki->name, a, sym_algorithm_name((sym_algorithm_t)a), sym_status_name(st),
                      sym_last_error());
        }
        sym_coll_opts_t o = { (sym_algorithm_t)-1, 0, 0 };
        PE_FAILS_WITH(call_kind(k, &o), SYM_ERR_INVALID_ARG);
        o = (sym_coll_opts_t){ SYM_ALGO_AUTO, -1.0, 0 };
        PE_FAILS_WITH(call_kind(k, &o), SYM_ERR_INVALID_ARG);
        o.timeout_s = NAN;
        PE_FAILS_WITH(call_kind(k, &o), SYM_ERR_INVALID_ARG);
    }
    for (int a = SYM_ALGO_AUTO; a <= SYM_ALGO_PAIRWISE; a++) {
        if (a != SYM_ALGO_AUTO && !(ki->algos & (1u << a)))
            continue;
        sym_coll_opts_t o = { (sym_algorithm_t)a, 0, 0 };
        PE_OK(call_kind(k, &o));
    }
}

static struct criterion_test_params kind_params(void)
{
    static enum kind ks[K_COUNT];
    for (int k = 0; k < K_COUNT; k++)
        ks[k] = (enum kind)k;
    return cr_make_param_array(enum kind, ks, K_COUNT);
}

ParameterizedTestParameters(coll_select, environment) { return kind_params(); }

ParameterizedTest(enum kind *k, coll_select, environment)
{
    const char *env[] = { "SYMHEAP_DEBUG=1", kinds[*k].env, NULL };
    run_pes_env(3, env, env_selection_body, k);
}

ParameterizedTestParameters(coll_select, automatic) { return kind_params(); }

ParameterizedTest(enum kind *k, coll_select, automatic)
{
    static const char *const env[] = { "SYMHEAP_DEBUG=1", NULL };
    run_pes_env(2, env, auto_selection_body, k);
}

ParameterizedTestParameters(coll_select, invalid_algorithm) { return kind_params(); }

ParameterizedTest(enum kind *k, coll_select, invalid_algorithm)
{
    run_pes(3, invalid_algorithm_body, k);
}

/* An algorithm the variable does not list fails init, naming it. */
static void bad_env_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    PE_FAILS_WITH(sym_init(), SYM_ERR_CONFIG);
    PE_ASSERT(strstr(sym_last_error(), "SYMHEAP_ALLREDUCE_ALGORITHM") != NULL,
              "message does not name the variable: %s", sym_last_error());
}

Test(coll_select, unlisted_algorithm_in_environment)
{
    static const char *const env[] = { "SYMHEAP_ALLREDUCE_ALGORITHM=pairwise", NULL };
    struct pe_job job = { .npes = 1, .body = bad_env_body, .raw = true, .env = env };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ------------------------------------------------------------------------ */
/* Chunk boundaries                                                          */
/* ------------------------------------------------------------------------ */

/* With 1 KiB chunks, 256 int32 fill one chunk exactly; the counts sit on,
 * just under and just over whole messages of 1 and 3 chunks, and (for the
 * algorithms that split the vector into n blocks) of blocks of n chunks. */
static const char *const chunk_env[] = { "SYMHEAP_CHUNK_SIZE=1K", NULL };

static const sym_algorithm_t *kind_algos(enum kind k, size_t *na)
{
    switch (k) {
    case K_BARRIER: *na = NELEMS(barrier_algos); return barrier_algos;
    case K_BROADCAST: *na = NELEMS(broadcast_algos); return broadcast_algos;
    case K_REDUCE: *na = NELEMS(reduce_algos); return reduce_algos;
    case K_ALLREDUCE: *na = NELEMS(allreduce_algos); return allreduce_algos;
    case K_REDUCE_SCATTER: *na = NELEMS(reduce_scatter_algos); return reduce_scatter_algos;
    case K_ALL_GATHER: *na = NELEMS(all_gather_algos); return all_gather_algos;
    case K_ALL_GATHERV: *na = NELEMS(all_gatherv_algos); return all_gatherv_algos;
    case K_ALL_TO_ALL:
    case K_ALL_TO_ALLV: *na = NELEMS(all_to_all_algos); return all_to_all_algos;
    default: *na = NELEMS(gather_algos); return gather_algos;
    }
}

static void chunk_body(int me, int n, void *arg)
{
    (void)me;
    const enum kind k = *(const enum kind *)arg;
    struct tctx t = world_ctx(20);
    t.scratch = sym_calloc(SCRATCH_WORDS, sizeof(uint64_t));
    PE_ASSERT(t.scratch, "sym_calloc: %s", sym_last_error());
    size_t na, per[HARNESS_MAX_PES];
    const sym_algorithm_t *algos = kind_algos(k, &na);
    const size_t base[] = { 256, 768, 256 * (size_t)n };
    for (size_t a = 0; a < na; a++)
        for (size_t b = 0; b < NELEMS(base); b++)
            for (size_t count = base[b] - 1; count <= base[b] + 1; count++) {
                const sym_algorithm_t al = algos[a];
                const int root = (int)(count % (size_t)n);
                const enum mode m = count % 2 ? OUT : IN;
                switch (k) {
                case K_BARRIER:
                    check_barrier(&t, al, (int)(a * 9 + b * 3 + count - base[b] + 1));
                    break;
                case K_BROADCAST:
                    check_broadcast(&t, al, SYM_INT32, count, root);
                    break;
                case K_REDUCE:
                    check_reduction(&t, true, al, SYM_INT32, SYM_OP_SUM, count, root, m);
                    break;
                case K_ALLREDUCE:
                    check_reduction(&t, false, al, SYM_INT32, SYM_OP_SUM, count, -1, m);
                    break;
                case K_REDUCE_SCATTER:
                    check_reduce_scatter(&t, al, SYM_INT32, SYM_OP_BXOR, count, m);
                    break;
                case K_ALL_GATHER:
                case K_ALL_GATHERV:
                    for (int r = 0; r < n; r++)
                        per[r] = k == K_ALL_GATHER || r % 2 ? count : count + 1;
                    check_gatherv_all(&t, k == K_ALL_GATHERV, al, SYM_INT32, per,
                                      m == IN ? OWN : OUT);
                    break;
                case K_ALL_TO_ALL:
                    check_alltoall(&t, false, al, SYM_INT32, uniform_count, count, m);
                    break;
                case K_ALL_TO_ALLV:
                    check_alltoall(&t, true, al, SYM_INT32, ragged_count, count, m);
                    break;
                case K_GATHER:
                    check_gather(&t, al, SYM_INT32, count, root, m == IN ? OWN : OUT);
                    break;
                default:
                    check_scatter(&t, al, SYM_INT32, count, root, m == IN ? OWN : OUT);
                    break;
                }
            }
    sym_free(t.scratch);
}

ParameterizedTestParameters(coll_chunks, boundaries) { return kind_params(); }

ParameterizedTest(enum kind *k, coll_chunks, boundaries)
{
    for (int n = 2; n <= 4; n++)
        if (harness_pes_listed(n)) /* SYMHEAP_TEST_PES (.ci/test's ofi stages) */
            run_pes_env(n, chunk_env, chunk_body, k);
}

/* ------------------------------------------------------------------------ */
/* Run-ahead: broadcast and reduce senders return without waiting for their */
/* receivers, so back-to-back calls overlap in the mailbox slots.            */
/* ------------------------------------------------------------------------ */

/* 1 KiB chunks: the large calls below take 5 chunks, more than the slots of
 * a link, so a sender both runs ahead and waits for credits in one loop. */
static const char *const runahead_env[] = { "SYMHEAP_CHUNK_SIZE=1K", "SYMHEAP_COLL_RUNAHEAD=1",
                                            NULL };
/* the same, run-ahead asked for per call (2 slots per link, not up to 8) */
static const char *const runahead_call_env[] = { "SYMHEAP_CHUNK_SIZE=1K", NULL };

struct ra_param {
    int npes;
    bool per_call; /* sym_coll_opts_t.runahead, else SYMHEAP_COLL_RUNAHEAD=1 */
};

#define RA_CALLS 90
#define RA_LARGE 1200 /* uint32: 4800 bytes */

static uint32_t ra_val(int call, int pe, size_t e)
{
    return (uint32_t)call * 2654435761u ^ (uint32_t)(pe + 1) * 40503u ^ (uint32_t)e * 97u;
}

/* Rotating roots, algorithms and sizes (small and multi-chunk interleaved),
 * distinct data in every call and no barrier between calls: a chunk taken
 * from the wrong call or a slot overwritten before it was consumed shows
 * as wrong data. */
static void runahead_body(int me, int n, void *arg)
{
    const struct ra_param *p = arg;
    static const sym_algorithm_t algos[] = { SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                             SYM_ALGO_TREE };
    uint32_t *buf = malloc(RA_LARGE * 4), *src = malloc(RA_LARGE * 4);
    uint32_t *dst = malloc(RA_LARGE * 4);
    PE_ASSERT(buf && src && dst, "malloc failed");
    sym_team_t teams[2] = { sym_team_world(), SYM_TEAM_INVALID };
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &teams[1]));
    for (int call = 0; call < RA_CALLS; call++) {
        sym_team_t t = teams[call / 3 % 2];
        const int root = (call / 2 + call / 7) % n;
        const size_t count = call % 3 == 2 ? RA_LARGE - (size_t)call : 1 + (size_t)call % 5;
        sym_coll_opts_t o = { algos[call / 2 % 4], 0,
                              p->per_call ? SYM_RUNAHEAD_ON : SYM_RUNAHEAD_DEFAULT };
        if (call % 2 == 0) {
            for (size_t e = 0; e < RA_LARGE; e++)
                buf[e] = me == root && e < count ? ra_val(call, root, e) : 0x5a5a5a5au;
            PE_OK(sym_broadcast(t, buf, count, SYM_UINT32, root, &o));
            for (size_t e = 0; e < RA_LARGE; e++) {
                uint32_t want = e < count ? ra_val(call, root, e) : 0x5a5a5a5au;
                PE_ASSERT(buf[e] == want, "broadcast call %d (root %d, %zu elements, %s): "
                          "element %zu is %08x, expected %08x", call, root, count,
                          sym_algorithm_name(o.algorithm), e, buf[e], want);
            }
        } else {
            for (size_t e = 0; e < RA_LARGE; e++) {
                src[e] = ra_val(call, me, e);
                dst[e] = 0x5a5a5a5au;
            }
            PE_OK(sym_reduce(t, dst, src, count, SYM_UINT32, SYM_OP_SUM, root, &o));
            for (size_t e = 0; e < RA_LARGE; e++) {
                uint32_t want = 0x5a5a5a5au;
                if (me == root && e < count) {
                    want = 0;
                    for (int r = 0; r < n; r++)
                        want += ra_val(call, r, e);
                }
                PE_ASSERT(dst[e] == want, "reduce call %d (root %d, %zu elements, %s): "
                          "element %zu is %08x, expected %08x", call, root, count,
                          sym_algorithm_name(o.algorithm), e, dst[e], want);
            }
        }
    }
    /* the team goes while the last calls' senders may still be ahead; the
     * world's last call is left to sym_finalize */
    PE_OK(sym_team_destroy(teams[1]));
    for (size_t e = 0; e < 3; e++)
        buf[e] = me == n - 1 ? ra_val(RA_CALLS, me, e) : 0;
    PE_OK(sym_broadcast(sym_team_world(), buf, 3, SYM_UINT32, n - 1, NULL));
    for (size_t e = 0; e < 3; e++)
        PE_ASSERT(buf[e] == ra_val(RA_CALLS, n - 1, e), "last broadcast: element %zu", e);
    free(buf);
    free(src);
    free(dst);
}

ParameterizedTestParameters(coll_runahead, back_to_back)
{
    static struct ra_param ps[] = { { 2, false }, { 3, false }, { 4, false }, { 5, false },
                                    { 2, true },  { 4, true } };
    return cr_make_param_array(struct ra_param, ps, sizeof(ps) / sizeof(ps[0]));
}

ParameterizedTest(struct ra_param *p, coll_runahead, back_to_back)
{
    run_pes_env(p->npes, p->per_call ? runahead_call_env : runahead_env, runahead_body, p);
}

/* Tiny broadcasts and reduces (one line each) with SYMHEAP_COLL_RUNAHEAD=1
 * go over the tiny ring, which a run-ahead sender fills far ahead of its
 * receivers.  Long stretches with one root put well over a ring's worth of
 * consecutive chunks on the same links, so every line is reused while
 * receivers lag (credits), mixed with calls of the ordinary slots (ring,
 * and a message too big to go inline) on the same links; on the world team
 * and on a split team, at 1..8 PEs, with every value checked. */
#define TW_CALLS 420
#define TW_AHEAD 48
#define TW_LAG_CALLS 400

static void tiny_wrap_body(int me, int n, void *arg)
{
    (void)arg;
    static const sym_algorithm_t algos[] = { SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_AUTO };
    sym_team_t teams[2] = { sym_team_world(), SYM_TEAM_INVALID };
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &teams[1]));
    uint64_t buf[8], src[8], dst[8];
    for (int call = 0; call < TW_CALLS; call++) {
        sym_team_t t = teams[call / 210];
        const int root = (call / 70) % n;
        const bool big = call % 37 == 36; /* 64 bytes: ordinary slots */
        const size_t count = big ? 8 : 1 + (size_t)call % 3;
        sym_coll_opts_t o = { call % 53 == 52 ? SYM_ALGO_RING : algos[call / 140], 0,
                              SYM_RUNAHEAD_DEFAULT };
        if (call % 2 == 0) {
            for (size_t e = 0; e < 8; e++)
                buf[e] = me == root && e < count ? ra_val(call, root, e) : 0x5a5a5a5au;
            PE_OK(sym_broadcast(t, buf, count, SYM_UINT64, root, &o));
            for (size_t e = 0; e < 8; e++) {
                uint64_t want = e < count ? ra_val(call, root, e) : 0x5a5a5a5au;
                PE_ASSERT(buf[e] == want, "broadcast call %d (root %d, %zu elements, %s): "
                          "element %zu is %" PRIx64 ", expected %" PRIx64, call, root, count,
                          sym_algorithm_name(o.algorithm), e, buf[e], want);
            }
        } else {
            for (size_t e = 0; e < 8; e++) {
                src[e] = ra_val(call, me, e);
                dst[e] = 0x5a5a5a5au;
            }
            PE_OK(sym_reduce(t, dst, src, count, SYM_UINT64, SYM_OP_BXOR, root, &o));
            for (size_t e = 0; e < 8; e++) {
                uint64_t want = 0x5a5a5a5au;
                if (me == root && e < count) {
                    want = 0;
                    for (int r = 0; r < n; r++)
                        want ^= ra_val(call, r, e);
                }
                PE_ASSERT(dst[e] == want, "reduce call %d (root %d, %zu elements, %s): "
                          "element %zu is %" PRIx64 ", expected %" PRIx64, call, root, count,
                          sym_algorithm_name(o.algorithm), e, dst[e], want);
            }
        }
    }
    PE_OK(sym_team_destroy(teams[1]));
    /* Receivers held back: the root makes TW_AHEAD tiny broadcasts before
     * any receiver enters one (the world's tiny ring holds 64 per link), then
     * keeps going while they catch up, so it reuses lines they may not have
     * read yet unless it waits for their credits: without those waits a
     * receiver reads a later call's line (a mismatch) or its data. */
    uint64_t *go = sym_malloc(sizeof(uint64_t));
    PE_ASSERT(go, "sym_malloc: %s", sym_last_error());
    *go = 0;
    PE_OK(sym_barrier_all());
    for (int call = 0; call < TW_LAG_CALLS; call++) {
        if (me != 0 && call == 0)
            PE_OK(sym_signal_wait_until(go, SYM_CMP_GE, 1, NULL));
        buf[0] = me == 0 ? ra_val(call, 0, 0) : 0;
        PE_OK(sym_broadcast(sym_team_world(), buf, 1, SYM_UINT64, 0, NULL));
        PE_ASSERT(buf[0] == ra_val(call, 0, 0), "held-back broadcast %d: %" PRIx64, call, buf[0]);
        if (me == 0 && call == TW_AHEAD - 1)
            for (int r = 1; r < n; r++)
                PE_OK(sym_atomic_set64(go, 1, r));
    }
    PE_OK(sym_barrier_all());
    sym_free(go);
}

ParameterizedTestParameters(coll_runahead, tiny_ring_wraps)
{
    static int counts[] = { 1, 2, 3, 4, 5, 8 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_runahead, tiny_ring_wraps)
{
    /* the default mailbox: 64 tiny slots per link on the world up to 8 PEs,
     * 16..32 on a split team */
    static const char *const env[] = { "SYMHEAP_COLL_RUNAHEAD=1", "SYMHEAP_MAILBOX_SIZE=4M",
                                        "SYMHEAP_HEAP_SIZE=32M", NULL };
    run_pes_env(*npes, env, tiny_wrap_body, NULL);
}

/* A sender that ran ahead destroys the team at once, then every PE makes a
 * new team, which takes the same mailbox slot: the old team's data must all
 * have arrived, and no late credit of the old team may land in the new
 * team's flags. */
static void destroy_body(int me, int n, void *arg)
{
    (void)arg;
    uint32_t buf[RA_LARGE];
    for (int round = 0; round < 6; round++) {
        sym_team_t t;
        PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &t));
        const int root = round % n;
        const size_t count = round % 2 ? RA_LARGE : 2;
        for (size_t e = 0; e < count; e++)
            buf[e] = me == root ? ra_val(round, root, e) : 0;
        PE_OK(sym_broadcast(t, buf, count, SYM_UINT32, root, NULL));
        PE_OK(sym_team_destroy(t));
        for (size_t e = 0; e < count; e++)
            PE_ASSERT(buf[e] == ra_val(round, root, e), "round %d: element %zu is %08x", round,
                      e, buf[e]);
    }
}

ParameterizedTestParameters(coll_runahead, team_destroy)
{
    static int counts[] = { 2, 3 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_runahead, team_destroy)
{
    static const char *const env[] = { "SYMHEAP_CHUNK_SIZE=1K", "SYMHEAP_TEAM_SLOTS=1",
                                        "SYMHEAP_COLL_RUNAHEAD=1", NULL };
    run_pes_env(*npes, env, destroy_body, NULL);
}
