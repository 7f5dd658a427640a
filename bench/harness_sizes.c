/*
 * harness_sizes.c - the size sweep (--min-size .. --max-size by --size-step)
 * and the data pattern benchmarks fill and verify.
 */
#include "harness_private.h"

#include <stdio.h>

size_t bench_size_first(void)
{
    size_t s = 1;
    while (s < bench_opt.min_size)
        s <<= 1;
    return s <= bench_opt.max_size ? s : 0;
}

size_t bench_size_next(size_t size)
{
    const size_t k = bench_opt.size_step > 1 ? bench_opt.size_step : 2;
    if (size > SIZE_MAX / k)
        return 0;
    size_t s = size * k;
    return s <= bench_opt.max_size ? s : 0;
}

const char *bench_size_str(size_t size, char buf[24])
{
    if (size >= (1u << 20) && size % (1u << 20) == 0)
        snprintf(buf, 24, "%zuM", size >> 20);
    else if (size >= 1024 && size % 1024 == 0)
        snprintf(buf, 24, "%zuK", size >> 10);
    else
        snprintf(buf, 24, "%zu", size);
    return buf;
}

void bench_fill(void *buf, size_t n, uint64_t seed)
{
    uint8_t *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = bench_pattern(seed, i);
}

uint64_t bench_check(const void *buf, size_t n, uint64_t seed)
{
    const uint8_t *b = buf;
    uint64_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += b[i] != bench_pattern(seed, i);
    return wrong;
}

uint64_t bench_check_guarded(const void *buf, size_t n, uint64_t seed)
{
    const uint8_t *guard = (const uint8_t *)buf + n;
    uint64_t wrong = bench_check(buf, n, seed);
    for (size_t i = 0; i < BENCH_GUARD; i++)
        wrong += guard[i] != BENCH_GUARD_BYTE;
    return wrong;
}

uint64_t bench_check_on(int pe, const void *buf, size_t n, uint64_t seed)
{
    return bench_sum_u64(bench_me() == pe ? bench_check_guarded(buf, n, seed) : 0);
}
