/*
 * test_heap_default.c - the heap's default size: with SYMHEAP_HEAP_SIZE
 * unset every PE gets the same size, at most 256 MiB and at least 1 MiB;
 * a job whose mailboxes alone cannot fit in half of the free /dev/shm
 * fails in sym_init on every PE with one message naming the sizes.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static void default_body(int me, int n, void *arg)
{
    (void)me, (void)n, (void)arg;
    unsetenv("SYMHEAP_HEAP_SIZE");
    PE_OK(sym_init());
    size_t free_bytes = 0, largest = 0;
    PE_OK(sym_heap_free(&free_bytes, &largest));
    PE_ASSERT(free_bytes >= ((size_t)1 << 20) && free_bytes <= ((size_t)256 << 20),
              "default heap of %zu bytes", free_bytes);
    uint64_t mine = free_bytes, lo = 0, hi = 0;
    PE_OK(sym_allreduce(sym_team_world(), &lo, &mine, 1, SYM_UINT64, SYM_OP_MIN, NULL));
    PE_OK(sym_allreduce(sym_team_world(), &hi, &mine, 1, SYM_UINT64, SYM_OP_MAX, NULL));
    PE_ASSERT(lo == hi, "PEs got different default heaps: %llu .. %llu", (unsigned long long)lo,
              (unsigned long long)hi);
    void *p = sym_malloc(free_bytes / 2);
    PE_ASSERT(p, "half the default heap: %s", sym_last_error());
    sym_free(p);
    PE_OK(sym_finalize());
}

ParameterizedTestParameters(heap_default, fits)
{
    static int counts[] = {1, 3};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, heap_default, fits)
{
    struct pe_job job = {.npes = *npes, .body = default_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* Mailboxes of 16 TiB per PE: more than half of any /dev/shm. */
static void too_big_body(int me, int n, void *arg)
{
    (void)me, (void)arg;
    unsetenv("SYMHEAP_HEAP_SIZE");
    setenv("SYMHEAP_MAILBOX_SIZE", "16T", 1);
    sym_status_t st = sym_init();
    PE_ASSERT(st == SYM_ERR_NO_MEMORY, "sym_init returned %s: %s", sym_status_name(st),
              sym_last_error());
    char want[64];
    snprintf(want, sizeof(want), "for %d PEs on one host", n);
    PE_ASSERT(strstr(sym_last_error(), "/dev/shm has") && strstr(sym_last_error(), want) &&
                  strstr(sym_last_error(), "16384.0 GiB of mailboxes"),
              "message: %s", sym_last_error());
}

ParameterizedTestParameters(heap_default, job_too_large)
{
    static int counts[] = {1, 2};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, heap_default, job_too_large)
{
    struct pe_job job = {.npes = *npes, .body = too_big_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
