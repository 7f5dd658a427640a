/*
 * setup.c - OpenSHMEM setup, exit, query and memory management.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_internal.h"

struct symshmem_settings symshmem_settings;

void symshmem_debug(const char *fmt, ...)
{
    if (!symshmem_settings.debug)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, "[symheap pe %d] %s\n", sym_my_pe(), line);
}

/* Both are whole-number settings of every build, so the queries cannot
 * fail once sym_init succeeded. */
static void settings_load(void)
{
    uint64_t v = 0;
    symshmem_settings.debug = sym_config_uint("SYMHEAP_DEBUG", &v) == SYM_OK && v;
    v = 16384;
    sym_config_uint("SYMHEAP_SHMEM_ONECOPY_MIN", &v);
    symshmem_settings.onecopy_min = (size_t)v;
}

void symshmem_fail(const char *routine, sym_status_t status)
{
    fprintf(stderr, "shmem: PE %d: %s failed: %s (%s)\n", sym_my_pe(), routine,
            sym_last_error()[0] ? sym_last_error() : sym_strerror(status), sym_status_name(status));
    fflush(stderr);
    sym_global_exit(1);
}

void symshmem_failf(const char *routine, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    fprintf(stderr, "shmem: PE %d: %s failed: %s\n", sym_my_pe(), routine, msg);
    fflush(stderr);
    sym_global_exit(1);
}

/* Joins the job and sets up the predefined teams; a second call while
 * initialised changes nothing. */
static sym_status_t shmem_init_common(void)
{
    if (sym_initialized())
        return SYM_OK;
    /* The facade provides SHMEM_THREAD_MULTIPLE whatever the program asks
     * for (shmem_query_thread says so), so it initialises the library at
     * that level: the transports then lock what several threads share. */
    sym_status_t st = sym_init_thread(SYM_THREAD_MULTIPLE, NULL);
    if (st != SYM_OK)
        return st;
    settings_load();
    st = symshmem_teams_init();
    if (st != SYM_OK) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", sym_last_error());
        sym_finalize();
        sym_set_error(st, "%s", msg);
    }
    return st;
}

void shmem_init(void)
{
    sym_status_t st = shmem_init_common();
    if (st != SYM_OK) {
        fprintf(stderr, "shmem: shmem_init failed: %s\n", sym_last_error());
        exit(1);
    }
}

int shmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        return -1;
    if (shmem_init_common() != SYM_OK)
        return -1;
    if (provided)
        *provided = SHMEM_THREAD_MULTIPLE;
    return 0;
}

void shmem_query_thread(int *provided)
{
    if (provided)
        *provided = SHMEM_THREAD_MULTIPLE;
}

void shmem_finalize(void)
{
    if (!sym_initialized())
        return;
    symshmem_teams_fini();
    sym_status_t st = sym_finalize();
    if (st != SYM_OK) {
        /* The library is already released: report and exit this PE only. */
        fprintf(stderr, "shmem: shmem_finalize: %s\n", sym_last_error());
        exit(1);
    }
}

void shmem_global_exit(int status)
{
    fflush(stdout);
    sym_global_exit(status);
}

int shmem_my_pe(void)
{
    return sym_my_pe();
}
int shmem_n_pes(void)
{
    return sym_n_pes();
}
int shmem_pe_accessible(int pe)
{
    return sym_pe_accessible(pe);
}
int shmem_addr_accessible(const void *addr, int pe)
{
    return sym_addr_accessible(addr, pe);
}
void *shmem_ptr(const void *dest, int pe)
{
    return sym_ptr(dest, pe);
}

void shmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

void shmem_info_get_name(char *name)
{
    if (name)
        snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

void shmem_pcontrol(const int level, ...)
{
    (void)level;
}

/* Deprecated setup and cache routines: caches are coherent here. */
void start_pes(int npes)
{
    (void)npes;
    shmem_init();
}
int _my_pe(void)
{
    return sym_my_pe();
}
int _num_pes(void)
{
    return sym_n_pes();
}
void shmem_set_cache_inv(void)
{
}
void shmem_set_cache_line_inv(void *dest)
{
    (void)dest;
}
void shmem_clear_cache_inv(void)
{
}
void shmem_clear_cache_line_inv(void *dest)
{
    (void)dest;
}
void shmem_udcflush(void)
{
}
void shmem_udcflush_line(void *dest)
{
    (void)dest;
}

/* ---- memory ------------------------------------------------------------ */

void *shmem_malloc(size_t size)
{
    return sym_malloc(size);
}
void *shmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints;
    return sym_malloc(size);
}
void *shmem_calloc(size_t count, size_t size)
{
    return sym_calloc(count, size);
}
void *shmem_align(size_t alignment, size_t size)
{
    return sym_align(alignment, size);
}
void *shmem_realloc(void *ptr, size_t size)
{
    return sym_realloc(ptr, size);
}
void shmem_free(void *ptr)
{
    sym_free(ptr);
}
void *shmalloc(size_t size)
{
    return sym_malloc(size);
}
void *shmemalign(size_t alignment, size_t size)
{
    return sym_align(alignment, size);
}
void *shrealloc(void *ptr, size_t size)
{
    return sym_realloc(ptr, size);
}
void shfree(void *ptr)
{
    sym_free(ptr);
}
