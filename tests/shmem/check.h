/*
 * check.h - assertions for the self-checking OpenSHMEM test programs: a
 * failed check prints the PE, the place and the values, then ends the job
 * with shmem_global_exit(1) so symrun reports the failure.
 */
#ifndef SHMEM_TEST_CHECK_H
#define SHMEM_TEST_CHECK_H

#include <shmem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECKF(cond, ...)                                                                          \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "PE %d: %s:%d: check failed: %s: ", shmem_my_pe(), __FILE__, __LINE__, \
                    #cond);                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            fflush(stderr);                                                                        \
            shmem_global_exit(1);                                                                  \
        }                                                                                          \
    } while (0)
#define CHECK(cond) CHECKF(cond, "%s", "")

/* The test's own list of the standard RMA types (independent of the
 * header's table): X(TYPE, TYPENAME). */
/* clang-format off */
#define TEST_RMA_TYPES(X)                                                                    \
    X(float, float) X(double, double) X(long double, longdouble) X(char, char)               \
    X(signed char, schar) X(short, short) X(int, int) X(long, long)                          \
    X(long long, longlong) X(unsigned char, uchar) X(unsigned short, ushort)                 \
    X(unsigned int, uint) X(unsigned long, ulong) X(unsigned long long, ulonglong)           \
    X(int8_t, int8) X(int16_t, int16) X(int32_t, int32) X(int64_t, int64)                    \
    X(uint8_t, uint8) X(uint16_t, uint16) X(uint32_t, uint32) X(uint64_t, uint64)            \
    X(size_t, size) X(ptrdiff_t, ptrdiff)
/* clang-format on */

/* A value every PE can compute: element i written by PE pe (small enough
 * to be exact in every type, distinct per (pe, i) within 0..127). */
#define TVAL(T, pe, i, salt) ((T)((((pe)*13 + (i)*7 + (salt)) % 120) + 1))

#endif
