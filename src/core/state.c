/* state.c - the runtime state of this PE, and the slow paths of the
 * argument checks that read it. */
#include <stdio.h>

#include "core/internal.h"

struct sym_runtime sym_rt = {.me = -1, .npes = -1};
bool sym_finalized;

sym_status_t sym_check_init_slow(const char *op)
{
    return sym_error(SYM_ERR_NOT_INITIALIZED, "%s: called %s", op,
                     sym_finalized ? "after sym_finalize()" : "before sym_init()");
}

sym_status_t sym_check_pe_slow(const char *op, int pe)
{
    if (!sym_rt.initialized)
        return sym_check_init_slow(op);
    return sym_error(SYM_ERR_INVALID_PE, "%s: PE %d out of range (the job has %d PEs: 0..%d)", op,
                     pe, sym_rt.npes, sym_rt.npes - 1);
}

sym_status_t sym_check_range_slow(const char *op, const char *argname, const void *addr,
                                  size_t nbytes, int pe)
{
    if (!sym_rt.initialized)
        return sym_check_init_slow(op);
    uintptr_t a = (uintptr_t)addr;
    uintptr_t lo = (uintptr_t)sym_rt.base + sym_rt.layout.user_off;
    uintptr_t hi = lo + sym_rt.layout.user_size;
    char target[32] = "";
    if (pe >= 0)
        snprintf(target, sizeof(target), " (target PE %d)", pe);
    if (a >= lo && a < hi)
        return sym_error(SYM_ERR_NOT_SYMMETRIC,
                         "%s: %s range of %zu bytes at %p runs past the end of the symmetric "
                         "heap by %zu bytes%s",
                         op, argname, nbytes, addr, nbytes - (size_t)(hi - a), target);
    const struct sym_region *g = &sym_rt.globals;
    uintptr_t glo = (uintptr_t)g->addr, ghi = glo + g->len;
    if (g->len && a >= glo && a < ghi)
        return sym_error(SYM_ERR_NOT_SYMMETRIC,
                         "%s: %s range of %zu bytes at %p runs past the end of the global "
                         "variables by %zu bytes%s",
                         op, argname, nbytes, addr, nbytes - (size_t)(ghi - a), target);
    return sym_error(SYM_ERR_NOT_SYMMETRIC,
                     "%s: %s %p is not a symmetric address (the heap is [%p, %p), global "
                     "variables [%p, %p))%s",
                     op, argname, addr, (void *)lo, (void *)hi, (void *)glo, (void *)ghi, target);
}
