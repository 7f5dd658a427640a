/*
 * splitmix.h - the tests' seeded generator (splitmix64): the same seed gives
 * the same sequence on every PE and in every run.
 */
#ifndef SYM_TEST_SPLITMIX_H
#define SYM_TEST_SPLITMIX_H

#include <stdint.h>

static inline uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

#endif
