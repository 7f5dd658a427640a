/*
 * stress_data.c - typed input data every PE can regenerate, and the
 * reference reductions results are checked against.
 *
 * Data that reductions combine is chosen so every order of combination
 * gives the same bits: integers wrap (associative), floating-point inputs
 * are small integers (sums exact) or +-2^k (products exact) and never -0,
 * so the reference is exact whatever algorithm the library picks.
 */
#include "ref_fold.h"
#include "stress_private.h"

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

const sym_datatype_t all_dts[] = {
    SYM_INT8,   SYM_INT16,  SYM_INT32, SYM_INT64,  SYM_UINT8,   SYM_UINT16,
    SYM_UINT32, SYM_UINT64, SYM_FLOAT, SYM_DOUBLE, SYM_FLOAT16, SYM_BFLOAT16,
};
_Static_assert(sizeof all_dts / sizeof all_dts[0] == N_DTS, "N_DTS counts all_dts");

bool dt_is_float(sym_datatype_t dt)
{
    return dt == SYM_FLOAT || dt == SYM_DOUBLE || dt == SYM_FLOAT16 || dt == SYM_BFLOAT16;
}

bool dt_is_signed(sym_datatype_t dt)
{
    return dt == SYM_INT8 || dt == SYM_INT16 || dt == SYM_INT32 || dt == SYM_INT64;
}

/* Round a float to binary16 / bfloat16, to nearest even, computed by
 * scaling (independent of the library's bit manipulation). */
uint16_t ref_round_small(float f, int mant_bits, int emin, int emax, int bias)
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

uint16_t ref_f2h(float f)
{
    return ref_round_small(f, 10, -14, 15, 15);
}

uint16_t ref_f2bf(float f)
{
    return ref_round_small(f, 7, -126, 127, 127);
}

double ref_small_to_d(uint16_t b, int mant_bits, int bias)
{
    unsigned e = (b & 0x7fffu) >> mant_bits, m = b & ((1u << mant_bits) - 1);
    double v = e ? ldexp((double)((1u << mant_bits) + m), (int)e - bias - mant_bits)
                 : ldexp((double)m, 1 - bias - mant_bits);
    return (b & 0x8000u) ? -v : v;
}

/* Element i of the input keyed `key`: random bits for data movement (op 0)
 * and integer reductions; exactly combinable values for float reductions. */
void gen_one(void *dst, sym_datatype_t dt, sym_op_t op, uint64_t key, size_t i)
{
    uint64_t r = mix64(key ^ (i * UINT64_C(0xd1b54a32d192ed03)));
    size_t es = sym_datatype_size(dt);
    if (op == 0 || !dt_is_float(dt)) {
        memcpy(dst, &r, es);
        return;
    }
    static const double prods[] = {1, 2, -1, -2, 0.5, -0.5};
    double v = op == SYM_OP_PROD ? prods[r % 6] : (double)((int)((r >> 8) % 33) - 16);
    switch (dt) {
    case SYM_FLOAT: {
        float f = (float)v;
        memcpy(dst, &f, 4);
        break;
    }
    case SYM_DOUBLE:
        memcpy(dst, &v, 8);
        break;
    case SYM_FLOAT16: {
        uint16_t h = ref_f2h((float)v);
        memcpy(dst, &h, 2);
        break;
    }
    case SYM_BFLOAT16: {
        uint16_t h = ref_f2bf((float)v);
        memcpy(dst, &h, 2);
        break;
    }
    default:
        break;
    }
}

void gen_elems(void *buf, size_t count, sym_datatype_t dt, sym_op_t op, uint64_t key, size_t first)
{
    size_t es = sym_datatype_size(dt);
    for (size_t i = 0; i < count; i++)
        gen_one((uint8_t *)buf + i * es, dt, op, key, first + i);
}

uint64_t load_u(const void *p, size_t es, bool sgn)
{
    switch (es) {
    case 1: {
        uint8_t v;
        memcpy(&v, p, 1);
        return sgn ? (uint64_t)(int64_t)(int8_t)v : v;
    }
    case 2: {
        uint16_t v;
        memcpy(&v, p, 2);
        return sgn ? (uint64_t)(int64_t)(int16_t)v : v;
    }
    case 4: {
        uint32_t v;
        memcpy(&v, p, 4);
        return sgn ? (uint64_t)(int64_t)(int32_t)v : v;
    }
    default: {
        uint64_t v;
        memcpy(&v, p, 8);
        return v;
    }
    }
}

double load_d(const void *p, sym_datatype_t dt)
{
    switch (dt) {
    case SYM_FLOAT: {
        float f;
        memcpy(&f, p, 4);
        return f;
    }
    case SYM_DOUBLE: {
        double d;
        memcpy(&d, p, 8);
        return d;
    }
    case SYM_FLOAT16: {
        uint16_t h;
        memcpy(&h, p, 2);
        return ref_small_to_d(h, 10, 15);
    }
    default: {
        uint16_t h;
        memcpy(&h, p, 2);
        return ref_small_to_d(h, 7, 127);
    }
    }
}

/* out[j] = op over members m of input(keys[m]) element first + j. */
void ref_reduce(void *out, sym_datatype_t dt, sym_op_t op, int nm, const uint64_t *keys,
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
                acc = m == 0 ? v : ref_fold_int(op, sgn, acc, v);
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
            acc = m == 0 ? v : ref_fold_float(op, acc, v);
        }
        /* float averages divide in float, as the library promises to do */
        float f = op == SYM_OP_AVG ? (float)acc / (float)nm : (float)acc;
        switch (dt) {
        case SYM_FLOAT:
            memcpy(o, &f, 4);
            break;
        case SYM_DOUBLE: {
            double d = op == SYM_OP_AVG ? acc / (double)nm : acc;
            memcpy(o, &d, 8);
            break;
        }
        case SYM_FLOAT16: {
            uint16_t h = ref_f2h(f);
            memcpy(o, &h, 2);
            break;
        }
        default: {
            uint16_t h = ref_f2bf(f);
            memcpy(o, &h, 2);
            break;
        }
        }
    }
}
