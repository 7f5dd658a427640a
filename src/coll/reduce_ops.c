/* reduce_ops.c - datatypes, reduction kernels and float16/bfloat16. */
#include <math.h>
#include <string.h>

#include "coll/coll.h"

/* The kernels below stream whole chunks; vectorised they keep up with
 * memcpy, scalar they take 2-4x longer (measured with bench_coll).  GCC
 * vectorises them only from -O3 (at -O2 its cost model refuses the
 * run-time aliasing check dst/a/b need), and the default build is -O2, so
 * ask for it here; clang vectorises them at -O2 already.  Element-wise
 * arithmetic, no reassociation: the bits are the same either way. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC optimize("tree-vectorize", "vect-cost-model=dynamic")
#endif

#define SYM_DATATYPES(X)                                                                           \
    X(SYM_INT8, int8_t, uint8_t, "int8", 0)                                                        \
    X(SYM_INT16, int16_t, uint16_t, "int16", 0)                                                    \
    X(SYM_INT32, int32_t, uint32_t, "int32", 0)                                                    \
    X(SYM_INT64, int64_t, uint64_t, "int64", 0)                                                    \
    X(SYM_UINT8, uint8_t, uint8_t, "uint8", 0)                                                     \
    X(SYM_UINT16, uint16_t, uint16_t, "uint16", 0)                                                 \
    X(SYM_UINT32, uint32_t, uint32_t, "uint32", 0)                                                 \
    X(SYM_UINT64, uint64_t, uint64_t, "uint64", 0)                                                 \
    X(SYM_FLOAT, float, float, "float", 1)                                                         \
    X(SYM_DOUBLE, double, double, "double", 1)                                                     \
    X(SYM_FLOAT16, uint16_t, uint16_t, "float16", 1)                                               \
    X(SYM_BFLOAT16, uint16_t, uint16_t, "bfloat16", 1)

SYM_API size_t sym_datatype_size(sym_datatype_t dt)
{
    switch (dt) {
#define SIZE_(e, T, U, name, fl)                                                                   \
    case e:                                                                                        \
        return sizeof(T);
        SYM_DATATYPES(SIZE_)
#undef SIZE_
    }
    return 0;
}

SYM_API const char *sym_datatype_name(sym_datatype_t dt)
{
    switch (dt) {
#define NAME_(e, T, U, name, fl)                                                                   \
    case e:                                                                                        \
        return name;
        SYM_DATATYPES(NAME_)
#undef NAME_
    }
    return "invalid-datatype";
}

bool sym_datatype_valid(sym_datatype_t dt)
{
    return sym_datatype_size(dt) != 0;
}

bool sym_datatype_is_float(sym_datatype_t dt)
{
    switch (dt) {
#define FL_(e, T, U, name, fl)                                                                     \
    case e:                                                                                        \
        return fl;
        SYM_DATATYPES(FL_)
#undef FL_
    }
    return false;
}

SYM_API const char *sym_op_name(sym_op_t op)
{
    static const char *const names[] = {"none", "sum",  "prod", "min", "max",
                                        "avg",  "band", "bor",  "bxor"};
    return (unsigned)op < sizeof(names) / sizeof(names[0]) ? names[op] : "invalid-op";
}

sym_datatype_t sym_acc_type(sym_datatype_t dt, sym_op_t op)
{
    if (dt == SYM_FLOAT16 || dt == SYM_BFLOAT16)
        return SYM_FLOAT;
    if (op == SYM_OP_AVG && !sym_datatype_is_float(dt)) {
        switch (dt) {
        case SYM_INT8:
        case SYM_INT16:
        case SYM_INT32:
        case SYM_INT64:
            return SYM_INT64;
        default:
            return SYM_UINT64;
        }
    }
    return dt;
}

/* ---- float16 / bfloat16 <-> float, round to nearest even ---- */

static float half_to_float(uint16_t h)
{
    uint32_t sign = (uint32_t)(h & 0x8000u) << 16, exp = (h >> 10) & 0x1fu, man = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1f) {
        bits = sign | 0x7f800000u | (man << 13); /* inf / nan */
    } else if (exp == 0) {
        if (man == 0) {
            bits = sign;
        } else { /* subnormal: normalise */
            int e = -1;
            do {
                man <<= 1;
                e++;
            } while (!(man & 0x400u));
            bits = sign | ((uint32_t)(127 - 15 - e) << 23) | ((man & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((exp + 112) << 23) | (man << 13);
    }
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static uint16_t float_to_half(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
    uint32_t absx = x & 0x7fffffffu;
    if (absx > 0x7f800000u) /* nan: the payload's top bits, made quiet */
        return sign | 0x7e00u | (uint16_t)((absx >> 13) & 0x3ffu);
    if (absx == 0x7f800000u)
        return sign | 0x7c00u;
    if (absx >= 0x477ff000u) /* rounds to >= 65520: overflow to inf */
        return sign | 0x7c00u;
    if (absx < 0x38800000u) {   /* below the smallest normal half: subnormal or 0 */
        if (absx < 0x33000000u) /* < 2^-25 rounds to 0 */
            return sign;
        uint32_t man = (absx & 0x7fffffu) | 0x800000u;
        int shift = 126 - (int)(absx >> 23); /* 14..24 */
        uint32_t half = man >> shift, rem = man & ((1u << shift) - 1), mid = 1u << (shift - 1);
        if (rem > mid || (rem == mid && (half & 1u)))
            half++;
        return sign | (uint16_t)half;
    }
    uint32_t half = ((absx >> 13) - (112u << 10));
    uint32_t rem = absx & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (half & 1u)))
        half++;
    return sign | (uint16_t)half;
}

static float bf16_to_float(uint16_t b)
{
    uint32_t bits = (uint32_t)b << 16;
    float f;
    memcpy(&f, &bits, sizeof(f));
    return f;
}

static uint16_t float_to_bf16(float f)
{
    uint32_t x;
    memcpy(&x, &f, sizeof(x));
    if ((x & 0x7fffffffu) > 0x7f800000u)
        return (uint16_t)((x >> 16) | 0x40u); /* quiet nan */
    uint32_t lsb = (x >> 16) & 1u;
    x += 0x7fffu + lsb;
    return (uint16_t)(x >> 16);
}

SYM_API uint16_t sym_f16_from_float(float value)
{
    return float_to_half(value);
}

SYM_API float sym_float_from_f16(uint16_t bits)
{
    return half_to_float(bits);
}

SYM_API uint16_t sym_bf16_from_float(float value)
{
    return float_to_bf16(value);
}

SYM_API float sym_float_from_bf16(uint16_t bits)
{
    return bf16_to_float(bits);
}

/* ---- kernels ---- */

/* Integer arithmetic goes through the unsigned type so overflow wraps
 * (defined) the same way on every PE. */
#define INT_KERNEL_(T, U, op, dst, a, b, n)                                                        \
    do {                                                                                           \
        T *d_ = (T *)(dst);                                                                        \
        const T *a_ = (const T *)(a), *b_ = (const T *)(b);                                        \
        switch (op) {                                                                              \
        case SYM_OP_SUM:                                                                           \
        case SYM_OP_AVG:                                                                           \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = (T)((U)a_[i] + (U)b_[i]);                                                  \
            break;                                                                                 \
        case SYM_OP_PROD: /* in uintmax_t: 16-bit U would promote to int */                        \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = (T)(U)((uintmax_t)(U)a_[i] * (U)b_[i]);                                    \
            break;                                                                                 \
        case SYM_OP_MIN:                                                                           \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = a_[i] < b_[i] ? a_[i] : b_[i];                                             \
            break;                                                                                 \
        case SYM_OP_MAX:                                                                           \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = a_[i] > b_[i] ? a_[i] : b_[i];                                             \
            break;                                                                                 \
        case SYM_OP_BAND:                                                                          \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = (T)((U)a_[i] & (U)b_[i]);                                                  \
            break;                                                                                 \
        case SYM_OP_BOR:                                                                           \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = (T)((U)a_[i] | (U)b_[i]);                                                  \
            break;                                                                                 \
        case SYM_OP_BXOR:                                                                          \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = (T)((U)a_[i] ^ (U)b_[i]);                                                  \
            break;                                                                                 \
        }                                                                                          \
    } while (0)

#define FLOAT_KERNEL_(T, op, dst, a, b, n)                                                         \
    do {                                                                                           \
        T *d_ = (T *)(dst);                                                                        \
        const T *a_ = (const T *)(a), *b_ = (const T *)(b);                                        \
        switch (op) {                                                                              \
        case SYM_OP_SUM:                                                                           \
        case SYM_OP_AVG:                                                                           \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = a_[i] + b_[i];                                                             \
            break;                                                                                 \
        case SYM_OP_PROD:                                                                          \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = a_[i] * b_[i];                                                             \
            break;                                                                                 \
        case SYM_OP_MIN:                                                                           \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = b_[i] < a_[i] ? b_[i] : a_[i];                                             \
            break;                                                                                 \
        case SYM_OP_MAX:                                                                           \
            for (size_t i = 0; i < (n); i++)                                                       \
                d_[i] = b_[i] > a_[i] ? b_[i] : a_[i];                                             \
            break;                                                                                 \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    } while (0)

void sym_reduce_apply3(sym_datatype_t dt, sym_op_t op, void *dst, const void *a, const void *b,
                       size_t n)
{
    switch (dt) {
    case SYM_INT8:
        INT_KERNEL_(int8_t, uint8_t, op, dst, a, b, n);
        break;
    case SYM_INT16:
        INT_KERNEL_(int16_t, uint16_t, op, dst, a, b, n);
        break;
    case SYM_INT32:
        INT_KERNEL_(int32_t, uint32_t, op, dst, a, b, n);
        break;
    case SYM_INT64:
        INT_KERNEL_(int64_t, uint64_t, op, dst, a, b, n);
        break;
    case SYM_UINT8:
        INT_KERNEL_(uint8_t, uint8_t, op, dst, a, b, n);
        break;
    case SYM_UINT16:
        INT_KERNEL_(uint16_t, uint16_t, op, dst, a, b, n);
        break;
    case SYM_UINT32:
        INT_KERNEL_(uint32_t, uint32_t, op, dst, a, b, n);
        break;
    case SYM_UINT64:
        INT_KERNEL_(uint64_t, uint64_t, op, dst, a, b, n);
        break;
    case SYM_FLOAT:
        FLOAT_KERNEL_(float, op, dst, a, b, n);
        break;
    case SYM_DOUBLE:
        FLOAT_KERNEL_(double, op, dst, a, b, n);
        break;
    default:
        break; /* float16/bfloat16 are reduced in their float acc type */
    }
}

void sym_reduce_apply(sym_datatype_t dt, sym_op_t op, void *inout, const void *in, size_t n)
{
    sym_reduce_apply3(dt, op, inout, inout, in, n);
}

void sym_to_acc(sym_datatype_t dt, sym_datatype_t acc, void *dst, const void *src, size_t n)
{
    if (dt == acc) {
        if (dst != src && n)
            memmove(dst, src, n * sym_datatype_size(dt));
        return;
    }
    float *f = dst;
    int64_t *i64 = dst;
    uint64_t *u64 = dst;
    const uint16_t *h = src;
    switch (dt) {
    case SYM_FLOAT16:
        for (size_t i = 0; i < n; i++)
            f[i] = half_to_float(h[i]);
        break;
    case SYM_BFLOAT16:
        for (size_t i = 0; i < n; i++)
            f[i] = bf16_to_float(h[i]);
        break;
    case SYM_INT8:
        for (size_t i = 0; i < n; i++)
            i64[i] = ((const int8_t *)src)[i];
        break;
    case SYM_INT16:
        for (size_t i = 0; i < n; i++)
            i64[i] = ((const int16_t *)src)[i];
        break;
    case SYM_INT32:
        for (size_t i = 0; i < n; i++)
            i64[i] = ((const int32_t *)src)[i];
        break;
    case SYM_UINT8:
        for (size_t i = 0; i < n; i++)
            u64[i] = ((const uint8_t *)src)[i];
        break;
    case SYM_UINT16:
        for (size_t i = 0; i < n; i++)
            u64[i] = ((const uint16_t *)src)[i];
        break;
    case SYM_UINT32:
        for (size_t i = 0; i < n; i++)
            u64[i] = ((const uint32_t *)src)[i];
        break;
    default:
        break;
    }
}

void sym_from_acc(sym_datatype_t dt, sym_datatype_t acc, sym_op_t op, int npes, void *dst,
                  const void *src, size_t n)
{
    const float *f = src;
    const int64_t *i64 = src;
    const uint64_t *u64 = src;
    uint16_t *h = dst;
    const bool avg = op == SYM_OP_AVG;
    switch (dt) {
    case SYM_FLOAT16:
        for (size_t i = 0; i < n; i++)
            h[i] = float_to_half(avg ? f[i] / (float)npes : f[i]);
        return;
    case SYM_BFLOAT16:
        for (size_t i = 0; i < n; i++)
            h[i] = float_to_bf16(avg ? f[i] / (float)npes : f[i]);
        return;
    case SYM_FLOAT:
        if (dst != src && n)
            memmove(dst, src, n * sizeof(float));
        if (avg)
            for (size_t i = 0; i < n; i++)
                ((float *)dst)[i] /= (float)npes;
        return;
    case SYM_DOUBLE:
        if (dst != src && n)
            memmove(dst, src, n * sizeof(double));
        if (avg)
            for (size_t i = 0; i < n; i++)
                ((double *)dst)[i] /= (double)npes;
        return;
    default:
        break;
    }
    if (dt == acc && !avg) {
        if (dst != src && n)
            memmove(dst, src, n * sym_datatype_size(dt));
        return;
    }
#define NARROW_(T, from)                                                                           \
    for (size_t i = 0; i < n; i++)                                                                 \
        ((T *)dst)[i] = (T)(avg ? from[i] / (npes) : from[i]);
    switch (dt) {
    case SYM_INT8:
        NARROW_(int8_t, i64);
        break;
    case SYM_INT16:
        NARROW_(int16_t, i64);
        break;
    case SYM_INT32:
        NARROW_(int32_t, i64);
        break;
    case SYM_INT64:
        NARROW_(int64_t, i64);
        break;
    case SYM_UINT8:
        NARROW_(uint8_t, u64);
        break;
    case SYM_UINT16:
        NARROW_(uint16_t, u64);
        break;
    case SYM_UINT32:
        NARROW_(uint32_t, u64);
        break;
    case SYM_UINT64:
        NARROW_(uint64_t, u64);
        break;
    default:
        break;
    }
#undef NARROW_
}
