/*
 * test_helpers.c - the public helpers and queries: the balanced partition,
 * float16 / bfloat16 conversions (exhaustively, against values computed
 * here from the formats' definitions), the timeout in force on a team, and
 * which transports and libfabric providers are available.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

/* ---- balanced partition ---- */

Test(helpers, block_partition)
{
    for (size_t total = 0; total <= 150; total++)
        for (int n = 1; n <= 17; n++) {
            size_t next = 0;
            for (int p = 0; p < n; p++) {
                size_t c = sym_block_count(total, n, p), s = sym_block_start(total, n, p);
                cr_assert_eq(s, next, "start of part %d of %zu in %d is %zu, not %zu", p, total, n,
                             s, next);
                size_t want = total / (size_t)n + ((size_t)p < total % (size_t)n ? 1 : 0);
                cr_assert_eq(c, want, "part %d of %zu in %d has %zu, not %zu", p, total, n, c,
                             want);
                next += c;
            }
            cr_assert_eq(next, total);
            cr_assert_eq(sym_block_start(total, n, n), total, "the end of %zu in %d", total, n);
            cr_assert_eq(sym_block_count(total, n, n), 0);
            cr_assert_eq(sym_block_count(total, n, -1), 0);
            cr_assert_eq(sym_block_start(total, n, n + 1), 0);
            cr_assert_eq(sym_block_start(total, n, -1), 0);
        }
    cr_assert_eq(sym_block_count(10, 0, 0), 0);
    cr_assert_eq(sym_block_start(10, -3, 0), 0);
    /* no overflow near SIZE_MAX */
    cr_assert_eq(sym_block_start(SIZE_MAX, 7, 7), SIZE_MAX);
    cr_assert_eq(sym_block_count(SIZE_MAX, 1, 0), SIZE_MAX);
}

/* ---- float16 and bfloat16 ---- */

/* The value of binary16 bits by the format's definition (not NaN). */
static double half_value(uint16_t h)
{
    int sign = h >> 15, e = (h >> 10) & 0x1f, m = h & 0x3ff;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? INFINITY : ldexp(1024 + m, e - 25);
    return sign ? -v : v;
}

static bool is_nan16(uint16_t h)
{
    return (h & 0x7c00) == 0x7c00 && (h & 0x3ff);
}

static uint32_t float_bits(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof(b));
    return b;
}

Test(helpers, f16_to_float_exhaustive)
{
    for (uint32_t i = 0; i < 65536; i++) {
        uint16_t h = (uint16_t)i;
        float f = sym_float_from_f16(h);
        if (is_nan16(h)) {
            cr_assert(isnan(f), "0x%04x is not a NaN as float", h);
            cr_assert_eq(float_bits(f) >> 31, (uint32_t)(h >> 15), "sign of NaN 0x%04x", h);
            cr_assert_eq((float_bits(f) >> 13) & 0x3ff, (uint32_t)(h & 0x3ff),
                         "payload of NaN 0x%04x", h);
            /* back: the same NaN, quiet */
            cr_assert_eq(sym_f16_from_float(f), h | 0x200, "round trip of NaN 0x%04x", h);
            continue;
        }
        cr_assert_eq((double)f, half_value(h), "0x%04x is %a, not %a", h, (double)f, half_value(h));
        cr_assert_eq(float_bits(f) >> 31, (uint32_t)(h >> 15), "sign of 0x%04x", h);
        cr_assert_eq(sym_f16_from_float(f), h, "round trip of 0x%04x gave 0x%04x", h,
                     sym_f16_from_float(f));
    }
}

Test(helpers, f16_rounding)
{
    /* between every pair of neighbouring finite halves (subnormals too):
     * the midpoint goes to the even one, anything off it to the nearer */
    for (uint16_t h = 0; h < 0x7bff; h++) {
        double lo = half_value(h), hi = half_value((uint16_t)(h + 1)), mid = (lo + hi) / 2;
        uint16_t even = (h & 1) ? (uint16_t)(h + 1) : h;
        for (int s = 0; s < 2; s++) {
            uint16_t sg = s ? 0x8000 : 0;
            double m = s ? -mid : mid;
            cr_assert_eq(sym_f16_from_float((float)m), even | sg, "midpoint %a after 0x%04x", m, h);
            cr_assert_eq(sym_f16_from_float(nextafterf((float)m, 0)), h | sg, "below %a", m);
            cr_assert_eq(sym_f16_from_float(nextafterf((float)m, s ? -INFINITY : INFINITY)),
                         (h + 1) | sg, "above %a", m);
        }
    }
    cr_assert_eq(sym_f16_from_float(65504.0f), 0x7bff);
    cr_assert_eq(sym_f16_from_float(nextafterf(65520.0f, 0)), 0x7bff);
    cr_assert_eq(sym_f16_from_float(65520.0f), 0x7c00, "65520 is past the largest half");
    cr_assert_eq(sym_f16_from_float(-1e10f), 0xfc00);
    cr_assert_eq(sym_f16_from_float(INFINITY), 0x7c00);
    cr_assert_eq(sym_f16_from_float(-INFINITY), 0xfc00);
    cr_assert_eq(sym_f16_from_float(ldexpf(1, -25)), 0x0000, "half the smallest subnormal: even");
    cr_assert_eq(sym_f16_from_float(nextafterf(ldexpf(1, -25), 1)), 0x0001);
    cr_assert_eq(sym_f16_from_float(-ldexpf(1, -26)), 0x8000, "negative zero");
    cr_assert_eq(sym_f16_from_float(1e-30f), 0x0000);
    cr_assert(is_nan16(sym_f16_from_float(NAN)), "NaN");
    cr_assert(is_nan16(sym_f16_from_float(-NAN)) && (sym_f16_from_float(-NAN) & 0x8000),
              "-NaN keeps its sign");
    uint32_t snan_bits = 0x7f800001u; /* payload only in bits a half drops */
    float snan;
    memcpy(&snan, &snan_bits, sizeof(snan));
    cr_assert(is_nan16(sym_f16_from_float(snan)), "a NaN whose payload a half cannot hold");
}

static bool is_nan_bf16(uint16_t b)
{
    return (b & 0x7f80) == 0x7f80 && (b & 0x7f);
}

Test(helpers, bf16_exhaustive)
{
    for (uint32_t i = 0; i < 65536; i++) {
        uint16_t b = (uint16_t)i;
        float f = sym_float_from_bf16(b);
        cr_assert_eq(float_bits(f), (uint32_t)b << 16, "0x%04x as float", b);
        uint16_t back = sym_bf16_from_float(f);
        if (is_nan_bf16(b))
            cr_assert_eq(back, b | 0x40, "round trip of NaN 0x%04x gave 0x%04x", b, back);
        else
            cr_assert_eq(back, b, "round trip of 0x%04x gave 0x%04x", b, back);
        if (is_nan_bf16(b) || (b & 0x7fff) >= 0x7f7f)
            continue;
        /* from float: the midpoint to the even neighbour, off it to the nearer */
        float mid;
        uint32_t mb = ((uint32_t)b << 16) | 0x8000u;
        memcpy(&mid, &mb, sizeof(mid));
        uint16_t even = (b & 1) ? (uint16_t)(b + 1) : b;
        cr_assert_eq(sym_bf16_from_float(mid), even, "midpoint after 0x%04x", b);
        mb -= 1;
        memcpy(&mid, &mb, sizeof(mid));
        cr_assert_eq(sym_bf16_from_float(mid), b, "below the midpoint after 0x%04x", b);
        mb += 2;
        memcpy(&mid, &mb, sizeof(mid));
        cr_assert_eq(sym_bf16_from_float(mid), (uint16_t)(b + 1), "above the midpoint, 0x%04x", b);
    }
    cr_assert_eq(sym_bf16_from_float(3.4e38f), 0x7f80, "rounds past the largest: infinity");
    cr_assert(is_nan_bf16(sym_bf16_from_float(NAN)), "NaN");
}

/* ---- the timeout in force ---- */

static void timeout_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    double s = -1;
    PE_FAILS_WITH(sym_team_get_timeout(sym_team_world(), &s), SYM_ERR_NOT_INITIALIZED);
    unsetenv("SYMHEAP_TIMEOUT");
    PE_OK(sym_init());
    sym_team_t world = sym_team_world();
    PE_OK(sym_team_get_timeout(world, &s));
    PE_ASSERT(s == SYM_DEFAULT_TIMEOUT_S, "default timeout %g, SYM_DEFAULT_TIMEOUT_S %g", s,
              SYM_DEFAULT_TIMEOUT_S);
    PE_OK(sym_team_set_timeout(world, 2.5));
    PE_OK(sym_team_get_timeout(world, &s));
    PE_ASSERT(s == 2.5, "world timeout %g after setting 2.5", s);
    sym_team_t half = SYM_TEAM_INVALID;
    PE_OK(sym_team_split_strided(world, 0, 1, n, &half));
    PE_OK(sym_team_get_timeout(half, &s));
    PE_ASSERT(s == 2.5, "a split team's timeout %g (its parent's is 2.5)", s);
    PE_OK(sym_team_set_timeout(half, 7));
    PE_OK(sym_team_get_timeout(half, &s));
    PE_ASSERT(s == 7, "split team timeout %g after setting 7", s);
    PE_FAILS_WITH(sym_team_get_timeout(half, NULL), SYM_ERR_INVALID_ARG);
    PE_OK(sym_team_destroy(half));
    PE_FAILS_WITH(sym_team_get_timeout(half, &s), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_team_get_timeout(SYM_TEAM_INVALID, &s), SYM_ERR_INVALID_ARG);
    PE_OK(sym_finalize());
}

Test(helpers, team_timeout)
{
    for (int n = 1; n <= 3; n++) {
        if (!harness_pes_listed(n))
            continue;
        struct pe_job job = {.npes = n, .body = timeout_body, .raw = true};
        struct pe_outcome out;
        pe_job_run(&job, &out);
        assert_job_ok(&out);
    }
}

/* ---- transports and providers ---- */

Test(helpers, transports)
{
    cr_assert_eq(sym_transport_available("shm"), 1);
    cr_assert_eq(sym_transport_available(NULL), 0);
    cr_assert_eq(sym_transport_available(""), 0);
    cr_assert_eq(sym_transport_available("ofi:"), 0);
    cr_assert_eq(sym_transport_available("no-such-provider"), 0);
    size_t needed = 0;
    sym_status_t st = sym_transport_providers(NULL, 0, &needed);
    if (st == SYM_ERR_UNAVAILABLE) { /* no libfabric: nothing else is available */
        cr_assert_eq(sym_transport_available("ofi"), 0);
        cr_assert_eq(sym_transport_available("tcp;ofi_rxm"), 0);
        return;
    }
    cr_assert_eq(st, SYM_ERR_TRUNCATED, "size query: %s", sym_last_error());
    cr_assert(needed >= 1);
    cr_assert_eq(sym_transport_providers(NULL, 4, &needed), SYM_ERR_INVALID_ARG);
    cr_assert_eq(sym_transport_providers(NULL, 0, NULL), SYM_ERR_INVALID_ARG);
    char *list = malloc(needed + 8);
    memset(list, '#', needed + 8);
    if (needed > 1)
        cr_assert_eq(sym_transport_providers(list, needed - 1, &needed), SYM_ERR_TRUNCATED);
    cr_assert_eq(list[0], '#', "a truncated answer wrote into the buffer");
    cr_assert_eq(sym_transport_providers(list, needed + 8, &needed), SYM_OK, "%s",
                 sym_last_error());
    cr_assert_eq(strlen(list) + 1, needed, "list \"%s\", needed %zu", list, needed);
    cr_assert_eq(list[needed], '#', "wrote past the list");
    /* every listed provider is available, with and without "ofi:" */
    char *save = NULL;
    int count = 0;
    bool tcp = false;
    for (char *p = strtok_r(list, ",", &save); p; p = strtok_r(NULL, ",", &save)) {
        char prefixed[128];
        snprintf(prefixed, sizeof(prefixed), "ofi:%s", p);
        cr_assert_eq(sym_transport_available(p), 1, "listed provider %s", p);
        cr_assert_eq(sym_transport_available(prefixed), 1, "listed provider %s", prefixed);
        tcp |= !strcmp(p, "tcp;ofi_rxm");
        count++;
    }
    /* the automatic choice prefers tcp;ofi_rxm (after RDMA hardware) */
    if (tcp)
        cr_assert_eq(sym_transport_available("ofi"), 1);
    cr_assert_eq(sym_transport_available("tcp;ofi_rxm;x"), 0);
    free(list);
    (void)count;
}
