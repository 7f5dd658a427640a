/* test_rma.c - put/get (blocking, nbi, strided, single element), quiet and
 * fence ordering, at 1..8 PEs, against locally computed references. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "harness.h"

static const size_t sizes[] = { 0, 1, 7, 8, 4095, 4096, (1u << 20) + 1 };
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static uint8_t byte_of(int pe, size_t i)
{
    return (uint8_t)(pe * 131 + i * 7 + (i >> 8));
}

/* Each PE puts a block to its right neighbour and gets one from its left,
 * for every size, checking every byte and the guard bytes around it. */
static void put_get_body(int me, int n, void *arg)
{
    bool nbi = *(bool *)arg;
    size_t max = sizes[NSIZES - 1];
    uint8_t *sym = sym_malloc(max + 64);
    uint8_t *src = sym_malloc(max);
    PE_ASSERT(sym && src, "sym_malloc: %s", sym_last_error());
    uint8_t *local = malloc(max + 64);
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    for (size_t s = 0; s < NSIZES; s++) {
        size_t len = sizes[s];
        memset(sym, 0xEE, max + 64);
        for (size_t i = 0; i < max; i++)
            src[i] = byte_of(me, i + s);
        PE_OK(sym_barrier_all());
        if (nbi) {
            PE_OK(sym_put_nbi(sym + 32, src, len, right));
            PE_OK(sym_quiet());
        } else {
            PE_OK(sym_put(sym + 32, src, len, right));
        }
        PE_OK(sym_barrier_all());
        for (size_t i = 0; i < 32; i++)
            PE_ASSERT(sym[i] == 0xEE && sym[32 + len + i] == 0xEE,
                      "put of %zu bytes wrote outside its range at guard byte %zu", len, i);
        for (size_t i = 0; i < len; i++)
            PE_ASSERT(sym[32 + i] == byte_of(left, i + s), "put of %zu bytes: byte %zu is %u, "
                      "expected %u", len, i, sym[32 + i], byte_of(left, i + s));
        memset(local, 0xEE, max + 64);
        if (nbi) {
            PE_OK(sym_get_nbi(local + 32, src, len, left));
            PE_OK(sym_quiet());
        } else {
            PE_OK(sym_get(local + 32, src, len, left));
        }
        for (size_t i = 0; i < len; i++)
            PE_ASSERT(local[32 + i] == byte_of(left, i + s), "get of %zu bytes: byte %zu wrong",
                      len, i);
        PE_ASSERT(local[31] == 0xEE && local[32 + len] == 0xEE, "get wrote outside its range");
        PE_OK(sym_barrier_all());
    }
    free(local);
    sym_free(src);
    sym_free(sym);
}

ParameterizedTestParameters(rma, put_get)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, rma, put_get)
{
    bool nbi = false;
    run_pes(*npes, put_get_body, &nbi);
}

ParameterizedTestParameters(rma, put_get_nbi)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, rma, put_get_nbi)
{
    bool nbi = true;
    run_pes(*npes, put_get_body, &nbi);
}
