/*
 * coll_check.c - the collective tests' inputs, references, guarded buffers,
 * teams and matrix helpers (coll_check.h).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "coll_check.h"
#include "ref_fold.h"

const char *const matrix_env[] = {
    "SYMHEAP_MAILBOX_SIZE=128K",
    "SYMHEAP_TEAM_AREA_SIZE=64K",
    NULL,
};

/* ------------------------------------------------------------------------ */
/* Datatypes, values and references                                          */
/* ------------------------------------------------------------------------ */

const sym_datatype_t all_dts[] = {
    SYM_INT8,   SYM_INT16,  SYM_INT32, SYM_INT64,  SYM_UINT8,   SYM_UINT16,
    SYM_UINT32, SYM_UINT64, SYM_FLOAT, SYM_DOUBLE, SYM_FLOAT16, SYM_BFLOAT16,
};

_Static_assert(sizeof all_dts / sizeof all_dts[0] == NDTS, "NDTS counts all_dts");

const sym_op_t all_ops[] = {
    SYM_OP_SUM, SYM_OP_PROD, SYM_OP_MIN, SYM_OP_MAX,
    SYM_OP_AVG, SYM_OP_BAND, SYM_OP_BOR, SYM_OP_BXOR,
};

size_t dt_size(sym_datatype_t dt)
{
    switch (dt) {
    case SYM_INT8:
    case SYM_UINT8:
        return 1;
    case SYM_INT16:
    case SYM_UINT16:
    case SYM_FLOAT16:
    case SYM_BFLOAT16:
        return 2;
    case SYM_INT32:
    case SYM_UINT32:
    case SYM_FLOAT:
        return 4;
    case SYM_INT64:
    case SYM_UINT64:
    case SYM_DOUBLE:
        return 8;
    }
    return 0;
}

bool dt_is_float(sym_datatype_t dt)
{
    return dt == SYM_FLOAT || dt == SYM_DOUBLE || dt == SYM_FLOAT16 || dt == SYM_BFLOAT16;
}

bool dt_is_signed(sym_datatype_t dt)
{
    return dt == SYM_INT8 || dt == SYM_INT16 || dt == SYM_INT32 || dt == SYM_INT64;
}

bool op_valid(sym_datatype_t dt, sym_op_t op)
{
    return !(dt_is_float(dt) && op >= SYM_OP_BAND);
}

uint64_t mix64(uint64_t x)
{
    x ^= x >> 30;
    x *= UINT64_C(0xbf58476d1ce4e5b9);
    x ^= x >> 27;
    x *= UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 31);
}

uint64_t hkey(uint64_t a, uint64_t b, uint64_t c)
{
    return mix64(a * UINT64_C(0x9E3779B97F4A7C15) +
                 mix64(b * UINT64_C(0xC2B2AE3D27D4EB4F) + mix64(c + UINT64_C(0x165667B19E3779F9))));
}

double small_float_value(uint16_t bits, int mant, int emin)
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

uint16_t small_float_bits(double x, int mant, int emin, int emax)
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

double f16_value(uint16_t b)
{
    return small_float_value(b, 10, -14);
}

uint16_t f16_bits(double x)
{
    return small_float_bits(x, 10, -14, 15);
}

double bf16_value(uint16_t b)
{
    return small_float_value(b, 7, -126);
}

uint16_t bf16_bits(double x)
{
    return small_float_bits(x, 7, -126, 127);
}

uint64_t int_ext(sym_datatype_t dt, uint64_t raw)
{
    switch (dt) {
    case SYM_INT8:
        return (uint64_t)(int64_t)(int8_t)(uint8_t)raw;
    case SYM_INT16:
        return (uint64_t)(int64_t)(int16_t)(uint16_t)raw;
    case SYM_INT32:
        return (uint64_t)(int64_t)(int32_t)(uint32_t)raw;
    case SYM_UINT8:
        return (uint8_t)raw;
    case SYM_UINT16:
        return (uint16_t)raw;
    case SYM_UINT32:
        return (uint32_t)raw;
    default:
        return raw;
    }
}

void int_store(sym_datatype_t dt, void *buf, size_t i, uint64_t v)
{
    switch (dt_size(dt)) {
    case 1:
        ((uint8_t *)buf)[i] = (uint8_t)v;
        break;
    case 2:
        ((uint16_t *)buf)[i] = (uint16_t)v;
        break;
    case 4:
        ((uint32_t *)buf)[i] = (uint32_t)v;
        break;
    default:
        ((uint64_t *)buf)[i] = v;
        break;
    }
}

void flt_store(sym_datatype_t dt, void *buf, size_t i, double v)
{
    switch (dt) {
    case SYM_FLOAT:
        ((float *)buf)[i] = (float)v;
        break;
    case SYM_DOUBLE:
        ((double *)buf)[i] = v;
        break;
    case SYM_FLOAT16:
        ((uint16_t *)buf)[i] = f16_bits(v);
        break;
    default:
        ((uint16_t *)buf)[i] = bf16_bits(v);
        break;
    }
}

double flt_load(sym_datatype_t dt, const void *buf, size_t i)
{
    switch (dt) {
    case SYM_FLOAT:
        return ((const float *)buf)[i];
    case SYM_DOUBLE:
        return ((const double *)buf)[i];
    case SYM_FLOAT16:
        return f16_value(((const uint16_t *)buf)[i]);
    default:
        return bf16_value(((const uint16_t *)buf)[i]);
    }
}

uint64_t red_int(const struct red *r, int rank, size_t idx)
{
    uint64_t h = hkey(r->salt, (uint64_t)rank, idx);
    switch (r->op) {
    case SYM_OP_PROD: {
        static const uint64_t f[3] = {1, 2, UINT64_MAX};
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

double red_flt(const struct red *r, int rank, size_t idx)
{
    uint64_t h = hkey(r->salt, (uint64_t)rank, idx);
    switch (r->op) {
    case SYM_OP_PROD: {
        static const double f[3] = {1, 2, -1};
        return f[h % 3];
    }
    case SYM_OP_SUM:
    case SYM_OP_AVG:
        return (double)(int)(h % 17) - 8;
    default:
        return (double)(int)(h % 201) - 100;
    }
}

void red_fill(const struct red *r, void *buf, int rank, size_t first, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        if (dt_is_float(r->dt))
            flt_store(r->dt, buf, k, red_flt(r, rank, first + k));
        else
            int_store(r->dt, buf, k, red_int(r, rank, first + k));
    }
}

void red_ref(const struct red *r, void *out, int nranks, size_t first, size_t n)
{
    const sym_datatype_t dt = r->dt;
    for (size_t k = 0; k < n; k++) {
        const size_t idx = first + k;
        if (dt_is_float(dt)) {
            double acc = red_flt(r, 0, idx);
            for (int rank = 1; rank < nranks; rank++)
                acc = ref_fold_float(r->op, acc, red_flt(r, rank, idx));
            if (r->op == SYM_OP_AVG)
                acc /= nranks;
            flt_store(dt, out, k, acc);
            continue;
        }
        const bool sgn = dt_is_signed(dt);
        uint64_t acc = int_ext(dt, red_int(r, 0, idx));
        for (int rank = 1; rank < nranks; rank++)
            acc = ref_fold_int(r->op, sgn, acc, int_ext(dt, red_int(r, rank, idx)));
        if (r->op == SYM_OP_AVG) /* documented: 64-bit sum, truncated */
            acc = sgn ? (uint64_t)((int64_t)acc / nranks) : acc / (uint64_t)nranks;
        int_store(dt, out, k, acc);
    }
}

void pat_fill(void *buf, size_t bytes, uint64_t key)
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

sym_algorithm_t matrix_only = SYM_ALGO_AUTO;

static struct {
    uint8_t *base;
    size_t size, used;
    int live;
} arena;

void gb_use_arena(void *base, size_t bytes)
{
    PE_ASSERT(!arena.live, "%d buffers still live in the old arena", arena.live);
    arena.base = base;
    arena.size = bytes;
    arena.used = 0;
}

void gb_alloc(struct gbuf *b, size_t bytes, int fill)
{
    if (arena.base) {
        const size_t need = (bytes + 2 * GUARD + 63) / 64 * 64;
        PE_ASSERT(need <= arena.size - arena.used, "the arena of %zu bytes cannot hold %zu more",
                  arena.size, need);
        b->raw = arena.base + arena.used;
        arena.used += need;
        arena.live++;
    } else {
        b->raw = malloc(bytes + 2 * GUARD);
    }
    PE_ASSERT(b->raw, "malloc(%zu) failed", bytes + 2 * GUARD);
    memset(b->raw, GUARD_BYTE, bytes + 2 * GUARD);
    b->p = b->raw + GUARD;
    b->bytes = bytes;
    memset(b->p, fill, bytes);
}

void gb_free(struct gbuf *b)
{
    if (arena.base && b->raw >= arena.base && b->raw < arena.base + arena.size) {
        if (--arena.live == 0)
            arena.used = 0;
    } else {
        free(b->raw);
    }
    b->raw = b->p = NULL;
}

void *xmalloc(size_t bytes)
{
    void *p = malloc(bytes ? bytes : 1);
    PE_ASSERT(p, "malloc(%zu) failed", bytes);
    return p;
}

void *xdup(const void *src, size_t bytes)
{
    void *p = xmalloc(bytes);
    if (bytes)
        memcpy(p, src, bytes);
    return p;
}

void gb_check_at(const char *file, int line, const struct gbuf *b, const char *d)
{
    for (size_t i = 0; i < GUARD; i++)
        if (b->raw[i] != GUARD_BYTE || b->p[b->bytes + i] != GUARD_BYTE)
            pe_fail(file, line, "guard bytes",
                    "[%s] a write landed %s the buffer (guard byte "
                    "%zu)",
                    d, b->raw[i] != GUARD_BYTE ? "before" : "after", i);
}

void gb_finish_at(const char *file, int line, struct gbuf *a, struct gbuf *b, void *ref1,
                  void *ref2, const char *d)
{
    gb_check_at(file, line, a, d);
    gb_check_at(file, line, b, d);
    free(ref1);
    free(ref2);
    gb_free(a);
    gb_free(b);
}

void expect_kept_outside_at(const char *file, int line, const uint8_t *buf, const uint8_t *orig,
                            size_t total, size_t off, size_t len, const char *d)
{
    expect_same_at(file, line, buf, orig, off, 1, d);
    expect_same_at(file, line, buf + off + len, orig + off + len, total - off - len, 1, d);
}

void expect_same_at(const char *file, int line, const void *got, const void *want, size_t bytes,
                    size_t es, const char *d)
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
    pe_fail(file, line, "bit-exact result", "[%s] element %zu of %zu is 0x%s, expected 0x%s", d, e,
            bytes / es, gs, ws);
}

void expect_fill_at(const char *file, int line, const void *buf, int fill, size_t bytes,
                    const char *d)
{
    const uint8_t *p = buf;
    for (size_t i = 0; i < bytes; i++)
        if (p[i] != (uint8_t)fill)
            pe_fail(file, line, "untouched buffer",
                    "[%s] byte %zu of a buffer the call must "
                    "not write changed to 0x%02x",
                    d, i, p[i]);
}

/* ------------------------------------------------------------------------ */
/* Teams of a job                                                            */
/* ------------------------------------------------------------------------ */

const char *const mode_names[] = {"out of place", "in place", "overlapping", "own block in place"};

uint64_t next_salt(struct tctx *t)
{
    return hkey((uint64_t)t->tag, ++t->calls, 0x5eed);
}

void describe(char *d, size_t len, const char *coll, const struct tctx *t, sym_algorithm_t a,
              sym_datatype_t dt, sym_op_t op, size_t count, int root, enum mode m)
{
    snprintf(d, len, "%s/%s on %s (%d PEs, member %d): %s%s%s, count %zu, root %d, %s", coll,
             sym_algorithm_name(a), sym_team_name(t->team), t->n, t->me, sym_datatype_name(dt),
             op ? " " : "", op ? sym_op_name(op) : "", count, root, mode_names[m]);
}

int count_list(int n, size_t out[6])
{
    const size_t all[6] = {0, 1, (size_t)n - 1, (size_t)n + 1, 13, LARGE};
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

sym_datatype_t matrix_dt(int i, size_t count)
{
    static const sym_datatype_t rot[3] = {SYM_INT32, SYM_DOUBLE, SYM_FLOAT16};
    return count == LARGE ? SYM_INT32 : rot[i % 3];
}

void for_each_team(team_fn fn)
{
    const int n = sym_n_pes();
    uint64_t *scratch = sym_calloc(SCRATCH_WORDS, sizeof(uint64_t));
    PE_ASSERT(scratch, "sym_calloc: %s", sym_last_error());
    sym_team_t teams[3] = {sym_team_world(), SYM_TEAM_INVALID, SYM_TEAM_INVALID};
    PE_OK(sym_team_split_strided(sym_team_world(), n - 1, -2, (n + 1) / 2, &teams[1]));
    int list[HARNESS_MAX_PES], nl = n > 1 ? n - 1 : 1;
    for (int i = 0; i < nl; i++)
        list[i] = nl - 1 - i;
    PE_OK(sym_team_create(sym_team_world(), list, nl, &teams[2]));
    for (int k = 0; k < 3; k++) {
        memset(scratch, 0, SCRATCH_WORDS * sizeof(uint64_t));
        PE_OK(sym_barrier_all());
        if (teams[k] != SYM_TEAM_INVALID) {
            struct tctx t = {.team = teams[k],
                             .n = sym_team_n_pes(teams[k]),
                             .me = sym_team_my_pe(teams[k]),
                             .tag = k,
                             .scratch = scratch};
            PE_ASSERT(t.n >= 1 && t.me >= 0 && t.me < t.n, "team %d: size %d, member %d", k, t.n,
                      t.me);
            fn(&t);
        }
        PE_OK(sym_barrier_all());
    }
    for (int k = 1; k < 3; k++)
        if (teams[k] != SYM_TEAM_INVALID)
            PE_OK(sym_team_destroy(teams[k]));
    sym_free(scratch);
}

void team_job_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    for_each_team(((const struct team_job *)arg)->fn);
}
_Static_assert(sizeof all_ops / sizeof all_ops[0] == NOPS, "NOPS counts all_ops");

struct tctx world_ctx(int tag)
{
    struct tctx t = {.team = sym_team_world(), .n = sym_n_pes(), .me = sym_my_pe(), .tag = tag};
    return t;
}

/* Every root for small counts; the large count at the first and last. */
bool root_wanted(const struct tctx *t, size_t count, int root)
{
    return count != LARGE || root == 0 || root == t->n - 1;
}

size_t uniform_count(int from, int to, size_t c)
{
    (void)from;
    (void)to;
    return c;
}

/* Uneven, including empty blocks and a block to oneself. */
size_t ragged_count(int from, int to, size_t c)
{
    return (from + 2 * to) % 3 == 0 ? 0 : c + (size_t)((from * 3 + to) % 4);
}

/* SYMHEAP_TEST_QUICK (the sanitizer stage of .ci/test) keeps the matrix to
 * 2, 5 and 8 PEs: with the strided and reversed teams every job also runs
 * on, team sizes 1..8 are still covered, in a third of the time. */
struct criterion_test_params matrix_pe_counts(void)
{
    static int all[] = COLL_PE_COUNTS;
    static int quick[] = {2, 5, 8};
    if (getenv("SYMHEAP_TEST_QUICK"))
        return cr_make_param_array(int, quick, sizeof(quick) / sizeof(quick[0]));
    return cr_make_param_array(int, all, sizeof(all) / sizeof(all[0]));
}
