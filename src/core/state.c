/* state.c - the runtime state of this PE, the slow paths of the argument
 * checks that read it, and its accessors for the layers above. */
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
    const struct sym_region *g = &sym_rt.memory.data;
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

/* ---- accessors (core/internal.h) ------------------------------------------- */

bool sym_core_initialized(void)
{
    return sym_rt.initialized;
}

sym_status_t sym_core_check_init(const char *op)
{
    return sym_check_init(op);
}

sym_status_t sym_core_check_pe(const char *op, int pe)
{
    return sym_check_pe(op, pe);
}

int sym_core_me(void)
{
    return sym_rt.me;
}

int sym_core_npes(void)
{
    return sym_rt.npes;
}

int sym_core_thread_level(void)
{
    return sym_rt.thread_level;
}

const struct sym_config *sym_core_config(void)
{
    return &sym_rt.cfg;
}

const void *sym_core_transport_settings(const struct sym_transport_class *cls)
{
    for (size_t k = 0; k < sym_transport_nclasses; k++)
        if (sym_transport_classes[k] == cls)
            return sym_rt.tp_settings[k];
    return NULL;
}

uint8_t *sym_core_base(void)
{
    return sym_rt.base;
}

const struct sym_heap_layout *sym_core_layout(void)
{
    return &sym_rt.layout;
}

const struct sym_region *sym_core_globals(void)
{
    return &sym_rt.memory.data;
}

uint8_t *sym_core_peer_base(int pe)
{
    return sym_rt.peer_base ? sym_rt.peer_base[pe] : NULL;
}

uint64_t sym_core_direct_end(void)
{
    return sym_rt.direct_end;
}

void *sym_core_direct(int pe, uint64_t off)
{
    return sym_rt.peer_base ? sym_direct(pe, off) : NULL;
}

struct sym_transport *sym_core_transport(int pe)
{
    return sym_rt.peer_tp ? sym_rt.peer_tp[pe] : NULL;
}

const int *sym_core_peer_pid(void)
{
    return sym_rt.peer_pid;
}

struct sym_boot *sym_core_boot(void)
{
    return sym_rt.boot;
}

struct sym_job_ctrl *sym_core_job(void)
{
    return sym_rt.job;
}

bool sym_core_oversubscribed(void)
{
    return sym_rt.oversubscribed;
}

bool sym_core_central_barrier(void)
{
    return sym_rt.central_barrier;
}
