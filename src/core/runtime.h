/*
 * runtime.h - the runtime state of this PE (struct sym_runtime, state.c)
 * and the inline fast paths that read it.  Private to src/core: the layers
 * above use the accessors of core/internal.h (sym_core_me(), ...) or
 * receive what they need as arguments.  src/coll still reads sym_rt
 * directly until its conversion to those accessors; no other layer may.
 *
 * Threads: sym_init and sym_finalize write the state (one thread, with no
 * other call of the library running); in between it is read-only but for
 * the world barrier's fields (barrier.c: the world barrier is one call at
 * a time, as its specification requires) and the allocator (alloc.c,
 * heap.c: collective calls, one at a time).
 */
#ifndef SYM_CORE_RUNTIME_H
#define SYM_CORE_RUNTIME_H

#if !defined(SYM_LAYER_CORE) && !defined(SYM_LAYER_COLL)
#error "core/runtime.h is private to src/core: use the accessors of core/internal.h"
#endif

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "base/error.h"
#include "base/heap_layout.h"
#include "core/alloc.h"
#include "symheap.h"
#include "transport.h"

struct sym_boot;
struct sym_job_ctrl;

struct sym_runtime {
    bool initialized;
    int me;
    int npes;
    struct sym_config cfg;
    /* Each transport class's own settings (its `settings` table), loaded
     * with cfg; NULL for a class without. */
    void *tp_settings[SYM_TRANSPORTS_MAX];
    /* SYMHEAP_TRANSPORT as loaded: the index of the one class it allows in
     * sym_transport_classes, or -1 (auto: every class). */
    int transport_only;

    uint8_t *base;     /* my heap mapping (memory.heap) */
    size_t heap_total; /* bytes of every heap mapping */
    struct sym_heap_layout layout;
    /* My heap and global variables (memory.c), which the transports map
     * or register; memory.data is the second region, offsets from
     * heap_total on. */
    struct sym_memory memory;

    /* [npes] direct mapping of each heap, or NULL: not reached that way, or
     * not mapped yet (sym_direct asks for it on first use); read and set
     * atomically */
    uint8_t **peer_base;
    struct sym_transport **peer_tp; /* [npes] transport reaching each PE */
    /* Instances the classes set up before the peers met (their prepare
     * step), until sym_transports_open connects or releases them. */
    struct sym_transport *prepared[SYM_TRANSPORTS_MAX];
    /* The transports in use (transports.c), in the order of their classes. */
    struct sym_transport *tp[SYM_TRANSPORTS_MAX];
    int ntp;
    struct sym_transport *progress_tp[SYM_TRANSPORTS_MAX]; /* SYM_TP_CAP_NEEDS_PROGRESS */
    int nprogress;
    struct sym_transport *sleep_tp; /* the first with a sleep op, or NULL */
    /* Every atomic goes through this transport (sym_amo_tp): one in use
     * without SYM_TP_CAP_CPU_ATOMICS; NULL: each peer's own. */
    struct sym_transport *amo_tp;
    bool *peer_local; /* [npes] runs on this host */

    struct sym_boot *boot;
    struct sym_job_ctrl *job; /* launcher's control segment, or NULL */
    int *peer_pid;            /* [npes] for liveness checks */
    bool oversubscribed;      /* more local PEs than cores: never busy-spin */
    bool wait_sleeps_at_once; /* every peer's operation wakes a sleeping waiter */
    bool central_barrier;     /* same on every PE: see barrier.c */

    uint64_t barrier_epoch;
    sym_status_t barrier_broken; /* first failed world barrier: sticky */
    char barrier_broken_msg[256];
    struct sym_alloc alloc;
    uint64_t alloc_seq;     /* collective allocation calls so far */
    uint64_t heap_reserved; /* SYMHEAP_HEAP_PREALLOC: user heap reserved below this offset */
    uint64_t direct_end;    /* peer_base[pe] + off is valid for off < this */
    int thread_level;       /* sym_thread_level_t in force */
};

extern struct sym_runtime sym_rt;
/* sym_finalize has run (and sym_init not since): for messages. */
extern bool sym_finalized;

sym_status_t sym_check_init_slow(const char *op);

/* Common argument checks of the public API; each records the error. */
static inline sym_status_t sym_check_init(const char *op)
{
    if (__builtin_expect(!sym_rt.initialized, 0))
        return sym_check_init_slow(op);
    return SYM_OK;
}

sym_status_t sym_check_pe_slow(const char *op, int pe);

static inline sym_status_t sym_check_pe(const char *op, int pe)
{
    if (__builtin_expect(!sym_rt.initialized || (unsigned)pe >= (unsigned)sym_rt.npes, 0))
        return sym_check_pe_slow(op, pe);
    return SYM_OK;
}

sym_status_t sym_check_range_slow(const char *op, const char *argname, const void *addr,
                                  size_t nbytes, int pe);

/* Outside the heap: a global or static variable (transports.c), or the error. */
sym_status_t sym_sym_offset_slow(const char *op, const char *argname, const void *addr,
                                 size_t nbytes, int pe, uint64_t *off_p);

/* Translate a symmetric address to its offset, checking that the whole
 * range [addr, addr + nbytes) lies in the user heap or in the global
 * variables (offsets from heap_total on). */
static inline sym_status_t sym_sym_offset(const char *op, const char *argname, const void *addr,
                                          size_t nbytes, int pe, uint64_t *off_p)
{
    uintptr_t a = (uintptr_t)addr;
    uintptr_t lo = (uintptr_t)sym_rt.base + sym_rt.layout.user_off;
    size_t len = sym_rt.layout.user_size;
    if (__builtin_expect(a < lo || a - lo >= len || nbytes > len - (a - lo), 0))
        return sym_sym_offset_slow(op, argname, addr, nbytes, pe, off_p);
    *off_p = (uint64_t)(a - (uintptr_t)sym_rt.base);
    return SYM_OK;
}

void *sym_direct_slow(int pe, uint64_t off);

/* Direct pointer into PE `pe`'s heap or globals at `off`, or NULL when
 * its transport gives none (a peer on another host, an offset past
 * direct_end).  A peer that a direct transport reaches always gets a
 * valid pointer: the transport may map its heap here only on its first
 * use, which sym_direct_slow asks for through the `ptr` op. */
static inline void *sym_direct(int pe, uint64_t off)
{
    uint8_t *b = __atomic_load_n(&sym_rt.peer_base[pe], __ATOMIC_ACQUIRE);
    if (__builtin_expect(!b, 0))
        return sym_direct_slow(pe, off);
    return off < sym_rt.direct_end ? b + off : NULL;
}

/* Direct pointer for an atomic on (pe, off), or NULL when the atomic must
 * go through sym_amo_tp(pe): once a transport without CPU-coherent atomics
 * is in use, words of every PE may be updated by its provider, and CPU
 * atomics and provider atomics on one word are not atomic with respect to
 * each other on every provider. */
static inline void *sym_direct_amo(int pe, uint64_t off)
{
    return sym_rt.amo_tp ? NULL : sym_direct(pe, off);
}

/* The transport for atomics (and adding signals) on PE pe: that transport
 * for every PE once it is in use (see sym_direct_amo), else the peer's. */
static inline struct sym_transport *sym_amo_tp(int pe)
{
    return sym_rt.amo_tp ? sym_rt.amo_tp : sym_rt.peer_tp[pe];
}

/* A 64-bit flag at offset `off` of my heap, with acquire ordering. */
static inline uint64_t sym_flag_load(uint64_t off)
{
    return __atomic_load_n((uint64_t *)(sym_rt.base + off), __ATOMIC_ACQUIRE);
}

#endif /* SYM_CORE_RUNTIME_H */
