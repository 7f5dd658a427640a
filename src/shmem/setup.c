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

/* A whole-number setting of every build, so the query cannot fail once
 * sym_init succeeded. */
static void settings_load(void)
{
    uint64_t v = 0;
    symshmem_settings.debug = sym_config_uint("SYMHEAP_DEBUG", &v) == SYM_OK && v;
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
        symshmem_ignore(sym_finalize());
        symshmem_ignore(sym_set_error(st, "%s", msg));
    }
    return st;
}

SYMSHMEM_WEAK_(shmem_init)
void pshmem_init(void)
{
    sym_status_t st = shmem_init_common();
    if (st != SYM_OK) {
        fprintf(stderr, "shmem: shmem_init failed: %s\n", sym_last_error());
        exit(1);
    }
}

SYMSHMEM_WEAK_(shmem_init_thread)
int pshmem_init_thread(int requested, int *provided)
{
    if (requested < SHMEM_THREAD_SINGLE || requested > SHMEM_THREAD_MULTIPLE)
        return -1;
    if (shmem_init_common() != SYM_OK)
        return -1;
    if (provided)
        *provided = SHMEM_THREAD_MULTIPLE;
    return 0;
}

SYMSHMEM_WEAK_(shmem_query_thread)
void pshmem_query_thread(int *provided)
{
    if (provided)
        *provided = SHMEM_THREAD_MULTIPLE;
}

SYMSHMEM_WEAK_(shmem_finalize)
void pshmem_finalize(void)
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

SYMSHMEM_WEAK_(shmem_global_exit)
void pshmem_global_exit(int status)
{
    fflush(stdout);
    sym_global_exit(status);
}

SYMSHMEM_WEAK_(shmem_my_pe)
int pshmem_my_pe(void)
{
    return sym_my_pe();
}
SYMSHMEM_WEAK_(shmem_n_pes)
int pshmem_n_pes(void)
{
    return sym_n_pes();
}
SYMSHMEM_WEAK_(shmem_pe_accessible)
int pshmem_pe_accessible(int pe)
{
    symshmem_poll(); /* called in polling loops */
    return sym_pe_accessible(pe);
}
SYMSHMEM_WEAK_(shmem_addr_accessible)
int pshmem_addr_accessible(const void *addr, int pe)
{
    symshmem_poll(); /* called in polling loops */
    return sym_addr_accessible(addr, pe);
}
SYMSHMEM_WEAK_(shmem_ptr)
void *pshmem_ptr(const void *dest, int pe)
{
    symshmem_poll(); /* called in polling loops */
    return sym_ptr(dest, pe);
}

SYMSHMEM_WEAK_(shmem_info_get_version)
void pshmem_info_get_version(int *major, int *minor)
{
    if (major)
        *major = SHMEM_MAJOR_VERSION;
    if (minor)
        *minor = SHMEM_MINOR_VERSION;
}

SYMSHMEM_WEAK_(shmem_info_get_name)
void pshmem_info_get_name(char *name)
{
    if (name)
        snprintf(name, SHMEM_MAX_NAME_LEN, "%s", SHMEM_VENDOR_STRING);
}

SYMSHMEM_WEAK_(shmem_pcontrol)
void pshmem_pcontrol(const int level, ...)
{
    (void)level;
}

/* Deprecated setup and cache routines: caches are coherent here. */
SYMSHMEM_WEAK_(start_pes)
void pstart_pes(int npes)
{
    (void)npes;
    shmem_init();
}
SYMSHMEM_WEAK_(_my_pe)
int p_my_pe(void)
{
    return sym_my_pe();
}
SYMSHMEM_WEAK_(_num_pes)
int p_num_pes(void)
{
    return sym_n_pes();
}
SYMSHMEM_WEAK_(shmem_set_cache_inv)
void pshmem_set_cache_inv(void)
{
}
SYMSHMEM_WEAK_(shmem_set_cache_line_inv)
void pshmem_set_cache_line_inv(void *dest)
{
    (void)dest;
}
SYMSHMEM_WEAK_(shmem_clear_cache_inv)
void pshmem_clear_cache_inv(void)
{
}
SYMSHMEM_WEAK_(shmem_clear_cache_line_inv)
void pshmem_clear_cache_line_inv(void *dest)
{
    (void)dest;
}
SYMSHMEM_WEAK_(shmem_udcflush)
void pshmem_udcflush(void)
{
}
SYMSHMEM_WEAK_(shmem_udcflush_line)
void pshmem_udcflush_line(void *dest)
{
    (void)dest;
}

/* ---- memory ------------------------------------------------------------ */

SYMSHMEM_WEAK_(shmem_malloc)
void *pshmem_malloc(size_t size)
{
    return sym_malloc(size);
}
SYMSHMEM_WEAK_(shmem_malloc_with_hints)
void *pshmem_malloc_with_hints(size_t size, long hints)
{
    (void)hints;
    return sym_malloc(size);
}
SYMSHMEM_WEAK_(shmem_calloc)
void *pshmem_calloc(size_t count, size_t size)
{
    return sym_calloc(count, size);
}
SYMSHMEM_WEAK_(shmem_align)
void *pshmem_align(size_t alignment, size_t size)
{
    return sym_align(alignment, size);
}
SYMSHMEM_WEAK_(shmem_realloc)
void *pshmem_realloc(void *ptr, size_t size)
{
    return sym_realloc(ptr, size);
}
SYMSHMEM_WEAK_(shmem_free)
void pshmem_free(void *ptr)
{
    sym_free(ptr);
}
SYMSHMEM_WEAK_(shmalloc)
void *pshmalloc(size_t size)
{
    return sym_malloc(size);
}
SYMSHMEM_WEAK_(shmemalign)
void *pshmemalign(size_t alignment, size_t size)
{
    return sym_align(alignment, size);
}
SYMSHMEM_WEAK_(shrealloc)
void *pshrealloc(void *ptr, size_t size)
{
    return sym_realloc(ptr, size);
}
SYMSHMEM_WEAK_(shfree)
void pshfree(void *ptr)
{
    sym_free(ptr);
}
