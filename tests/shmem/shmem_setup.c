/*
 * shmem_setup.c - setup and query routines, version macros, and memory
 * management: malloc, calloc, align, realloc, malloc_with_hints, free and
 * the deprecated names; shmem_ptr gives load/store access on one host.
 */
#include <stdint.h>
#include <symheap.h>

#include "check.h"

static long g_data[16];
static int g_init = 42; /* .data as well as .bss */

int main(void)
{
    start_pes(0); /* deprecated spelling of shmem_init */
    int me = shmem_my_pe(), npes = shmem_n_pes();
    CHECK(me >= 0 && me < npes && _my_pe() == me && _num_pes() == npes);
    int provided = -1;
    shmem_query_thread(&provided);
    CHECK(provided == SHMEM_THREAD_MULTIPLE);
    /* ... and the library under the facade runs at that level (the
     * transports lock what several threads share). */
    CHECK(sym_thread_level() == SYM_THREAD_MULTIPLE);

    int major = 0, minor = 0;
    shmem_info_get_version(&major, &minor);
    CHECK(major == SHMEM_MAJOR_VERSION && minor == SHMEM_MINOR_VERSION);
    CHECK(major == 1 && minor == 5 && _SHMEM_MAJOR_VERSION == 1);
    char name[SHMEM_MAX_NAME_LEN];
    shmem_info_get_name(name);
    CHECK(strcmp(name, SHMEM_VENDOR_STRING) == 0 && strlen(name) < SHMEM_MAX_NAME_LEN);

    for (int p = 0; p < npes; p++)
        CHECK(shmem_pe_accessible(p) == 1);
    CHECK(shmem_pe_accessible(npes) == 0 && shmem_pe_accessible(-1) == 0);

    /* memory */
    long *a = shmem_malloc(100 * sizeof(long));
    int *z = shmem_calloc(1000, sizeof(int));
    double *al = shmem_align(4096, 3 * sizeof(double));
    char *h = shmem_malloc_with_hints(77, SHMEM_MALLOC_ATOMICS_REMOTE | SHMEM_MALLOC_SIGNAL_REMOTE);
    CHECK(a && z && al && h);
    CHECK((uintptr_t)al % 4096 == 0);
    for (int i = 0; i < 1000; i++)
        CHECK(z[i] == 0);
    for (int i = 0; i < 100; i++)
        a[i] = me * 1000 + i;
    long local = 0;
    for (int p = 0; p < npes; p++) {
        CHECK(shmem_addr_accessible(a, p) == 1 && shmem_addr_accessible(h + 76, p) == 1);
        CHECK(shmem_addr_accessible(&local, p) == 0);
    }
    shmem_barrier_all();
    /* realloc keeps the contents, everywhere */
    a = shmem_realloc(a, 5000 * sizeof(long));
    CHECK(a);
    for (int i = 0; i < 100; i++)
        CHECK(a[i] == me * 1000 + i);
    CHECK(shmem_long_g(&a[99], (me + 1) % npes) == ((me + 1) % npes) * 1000 + 99);
    /* shmem_ptr: a load/store pointer to each peer's copy (one host) */
    shmem_barrier_all();
    for (int p = 0; p < npes; p++) {
        long *pa = shmem_ptr(a, p);
        CHECKF(pa != NULL, "shmem_ptr to PE %d", p);
        CHECK(pa[5] == p * 1000 + 5);
    }
    CHECK(shmem_ptr(&local, 0) == NULL);
    /* globals: accessible, and mapped on one host */
    for (int p = 0; p < npes; p++) {
        CHECK(shmem_addr_accessible(g_data, p) == 1 && shmem_addr_accessible(&g_init, p) == 1);
        int *gp = shmem_ptr(&g_init, p);
        CHECKF(gp != NULL && *gp == 42, "shmem_ptr to a global on PE %d", p);
    }
    long *right = shmem_ptr(&a[200], (me + 1) % npes);
    *right = me;
    shmem_barrier_all();
    CHECK(a[200] == (me + npes - 1) % npes);
    /* deprecated names */
    long *old = shmalloc(64);
    old = shrealloc(old, 128);
    void *oa = shmemalign(256, 16);
    CHECK(old && oa && (uintptr_t)oa % 256 == 0);
    shfree(oa);
    shfree(old);
    shmem_set_cache_inv();
    shmem_clear_cache_inv();
    shmem_set_cache_line_inv(a);
    shmem_clear_cache_line_inv(a);
    shmem_udcflush();
    shmem_udcflush_line(a);
    CHECK(shmem_malloc(0) == NULL);
    shmem_free(NULL);
    shmem_free(h);
    shmem_free(al);
    shmem_free(z);
    shmem_free(a);
    shmem_barrier_all();
    if (me == 0)
        printf("shmem_setup: %d PEs ok\n", npes);
    shmem_finalize();
    shmem_finalize(); /* a second finalize is harmless */
    return 0;
}
