/*
 * alloc_check.h - what the test_alloc_*.c files share: the size the
 * allocator gives a request (rounded up to its 64-byte granule).
 */
#ifndef SYM_TEST_ALLOC_CHECK_H
#define SYM_TEST_ALLOC_CHECK_H

#include <stdint.h>

static inline uint64_t round64(uint64_t s)
{
    return (s + 63) / 64 * 64;
}

#endif
