/*
 * test_heap_default.c - the heap's default size: with SYMHEAP_HEAP_SIZE
 * unset every PE gets the same size, at most 256 MiB and at least 1 MiB;
 * a job whose mailboxes alone cannot fit in half of the free /dev/shm
 * fails in sym_init on every PE with one message naming the sizes; the
 * user heap's memory is reserved as it is handed out.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

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

/* A heap larger than /dev/shm can back: init succeeds (only the control
 * block and the mailboxes are reserved then), an allocation /dev/shm cannot
 * back fails with SYM_ERR_NO_MEMORY on every PE, naming it, instead of a
 * SIGBUS at its first touch, and a small one is reserved and usable. */
static void reserved_as_handed_out_body(int me, int n, void *arg)
{
    (void)arg;
    struct statvfs v;
    PE_ASSERT(statvfs("/dev/shm", &v) == 0, "statvfs /dev/shm: %s", strerror(errno));
    const unsigned long long room = (unsigned long long)v.f_bavail * v.f_frsize;
    char size[64];
    snprintf(size, sizeof(size), "SYMHEAP_HEAP_SIZE=%lluM", (room >> 20) * 2 + 1024);
    putenv(size);
    unsetenv("SYMHEAP_HEAP_PREALLOC");
    PE_OK(sym_init());
    void *big = sym_malloc((size_t)room + ((size_t)1 << 30));
    PE_ASSERT(!big, "%llu bytes more than /dev/shm holds were handed out", room + (1ull << 30));
    PE_ASSERT(strstr(sym_last_error(), "cannot reserve") && strstr(sym_last_error(), "sym_malloc"),
              "message: %s", sym_last_error());
    int64_t *small = sym_malloc((size_t)1 << 20);
    PE_ASSERT(small, "1 MiB: %s", sym_last_error());
    int64_t mine = 100 + me;
    PE_OK(sym_put(&small[me], &mine, sizeof(mine), (me + 1) % n));
    PE_OK(sym_barrier_all());
    int from = (me + n - 1) % n;
    PE_ASSERT(small[from] == 100 + from, "got %lld from PE %d", (long long)small[from], from);
    sym_free(small);
    PE_OK(sym_finalize());
}

Test(heap_default, reserved_as_handed_out)
{
    struct pe_job job = {.npes = 2, .body = reserved_as_handed_out_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
