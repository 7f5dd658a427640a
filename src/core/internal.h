/*
 * internal.h - runtime state and the internal interfaces between the parts
 * of src/.  Not installed.
 */
#ifndef SYM_INTERNAL_H
#define SYM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/config.h"
#include "base/error.h"
#include "base/wait.h"
#include "core/alloc.h"
#include "core/heap_layout.h"
#include "symheap.h"
#include "transport.h"

struct sym_boot;
struct sym_job_ctrl;

/* Global and static variables of the main executable (globals.c).
 *
 * For transports: the segment is the second symmetric region.  In the
 * (pe, offset) space it follows the heap: offsets [off, off + len) with
 * off == heap_total are bytes [0, len) of the segment.  Locally it lives at
 * [addr, addr + len); PE p's copy at peer_addr[p] (differs per PE: PIE and
 * ASLR).  len is the same on every PE (checked at init).  The ofi transport
 * registers [addr, addr + len) as a second memory region and sends a put to
 * offset o >= off to that region at (o - off), plus peer_addr[p] when the
 * provider wants virtual addresses (FI_MR_VIRT_ADDR).  On shm the segment
 * of each peer is mapped at peer_base[p] + off, so the direct path needs no
 * special case; for PEs reached by cross-memory attach instead,
 * sym_rt.direct_end stops at heap_total and peer_mapped[p] is false. */
struct sym_globals {
    uint8_t *addr;        /* NULL when there is none (or SYMHEAP_GLOBALS=off) */
    size_t len;           /* page multiple */
    size_t anon_off;      /* from here on .bss: not file-backed */
    uint64_t link_addr;   /* link-time address, for the same-executable check */
    uint64_t off;         /* == heap_total once connected */
    uint64_t *peer_addr;  /* [npes] each PE's segment address */
    bool *peer_mapped;    /* [npes] mapped after that PE's heap mapping */
    bool remapped;        /* mine lives in a shared-memory object */
    bool unnamed;         /* ... not yet linked under its name (globals.c) */
    bool created, fd_open;
    int fd;
    char name[128];
};

/* ---- runtime state (state.c) -------------------------------------------- */

struct sym_runtime {
    bool initialized;
    int me;
    int npes;
    struct sym_config cfg;

    uint8_t *base;        /* my heap mapping */
    size_t heap_total;    /* bytes of every heap mapping */
    struct sym_heap_layout layout;

    uint8_t **peer_base;            /* [npes] direct mapping of each heap or NULL */
    struct sym_transport **peer_tp; /* [npes] transport reaching each PE */
    struct sym_transport *shm;
    struct sym_transport *ofi;      /* libfabric, when some peer is not mapped */
    bool amo_via_tp;                /* every atomic goes through ofi (sym_amo_tp) */
    bool *peer_local;               /* [npes] runs on this host */

    struct sym_boot *boot;
    struct sym_job_ctrl *job;       /* launcher's control segment, or NULL */
    int *peer_pid;                  /* [npes] for liveness checks */
    bool oversubscribed;            /* more local PEs than cores: never busy-spin */
    bool wait_sleeps_at_once;       /* every peer's operation wakes a sleeping waiter */
    bool central_barrier;           /* same on every PE: see barrier.c */

    uint64_t barrier_epoch;
    sym_status_t barrier_broken;    /* first failed world barrier: sticky */
    char barrier_broken_msg[256];
    struct sym_alloc alloc;
    uint64_t alloc_seq;             /* collective allocation calls so far */
    struct sym_globals globals;     /* .data/.bss: see struct sym_globals */
    uint64_t direct_end;            /* peer_base[pe] + off is valid for off < this */
    int thread_level;               /* sym_thread_level_t in force */
};

extern struct sym_runtime sym_rt;

/* Common argument checks of the public API; each records the error. */
static inline sym_status_t sym_check_init(const char *op)
{
    if (__builtin_expect(!sym_rt.initialized, 0))
        return sym_error(SYM_ERR_NOT_INITIALIZED, "%s: called before sym_init()", op);
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

/* Outside the heap: a global or static variable (globals.c), or the error. */
sym_status_t sym_sym_offset_slow(const char *op, const char *argname, const void *addr,
                                 size_t nbytes, int pe, uint64_t *off_p);

/* Translate a symmetric address to its offset, checking that the whole
 * range [addr, addr + nbytes) lies in the user heap or in the global
 * variables (offsets from heap_total on). */
static inline sym_status_t sym_sym_offset(const char *op, const char *argname,
                                          const void *addr, size_t nbytes, int pe,
                                          uint64_t *off_p)
{
    uintptr_t a = (uintptr_t)addr;
    uintptr_t lo = (uintptr_t)sym_rt.base + sym_rt.layout.user_off;
    size_t len = sym_rt.layout.user_size;
    if (__builtin_expect(a < lo || a - lo >= len || nbytes > len - (a - lo), 0))
        return sym_sym_offset_slow(op, argname, addr, nbytes, pe, off_p);
    *off_p = (uint64_t)(a - (uintptr_t)sym_rt.base);
    return SYM_OK;
}

/* Direct pointer into PE `pe`'s heap or globals at `off`, or NULL if not
 * mapped. */
static inline void *sym_direct(int pe, uint64_t off)
{
    uint8_t *b = sym_rt.peer_base[pe];
    return b && off < sym_rt.direct_end ? b + off : NULL;
}

/* ---- global and static variables (globals.c) ----------------------------- */

/* Find this PE's segment (before the heap is mapped: the shm transport
 * reserves room for peers' segments after each heap mapping). */
void sym_globals_probe(void);
/* After sym_globals_probe, before the bootstrap starts any thread: move my
 * segment into an unnamed shared-memory object (named at connect).  On
 * failure nothing changes and connect tries the late way. */
void sym_globals_prepare(void);
/* Collective: share my segment, map the local peers', check that every PE
 * has the same one.  After the heaps are connected. */
sym_status_t sym_globals_connect(struct sym_boot *boot, const bool *local,
                                 const char *const *owners);
/* Give my variables back as private memory with their current values. */
void sym_globals_fini(void);
/* Cross-memory attach fallback for PEs whose segment is not mapped. */
sym_status_t sym_globals_cma(const char *op, int pe, uint64_t off, void *buf, size_t n,
                             bool write);
sym_status_t sym_globals_no_atomics(const char *op, int pe);
/* Direct pointer for an atomic on (pe, off), or NULL when the atomic must
 * go through sym_amo_tp(pe): when libfabric is open, words of every PE may
 * be updated by the provider, and CPU atomics and provider atomics on one
 * word are not atomic with respect to each other on every provider. */
static inline void *sym_direct_amo(int pe, uint64_t off)
{
    return sym_rt.amo_via_tp ? NULL : sym_direct(pe, off);
}

/* The transport for atomics (and adding signals) on PE pe: libfabric for
 * every PE once it is open (see sym_direct_amo), else the peer's. */
static inline struct sym_transport *sym_amo_tp(int pe)
{
    return sym_rt.amo_via_tp ? sym_rt.ofi : sym_rt.peer_tp[pe];
}

/* ---- internal one-sided helpers (rma.c, barrier.c) ---------------------- */

/* Atomically store / add a 64-bit flag at heap offset `off` on `pe`, with
 * release ordering relative to this PE's earlier puts. */
sym_status_t sym_flag_set(int pe, uint64_t off, uint64_t value);
sym_status_t sym_flag_add(int pe, uint64_t off, uint64_t value);

/* Wait until my flag at `off` is >= value. */
sym_status_t sym_flag_wait_ge(const char *op, uint64_t off, uint64_t value, int from_pe,
                              const char *what, double timeout_s);

static inline uint64_t sym_flag_load(uint64_t off)
{
    return __atomic_load_n((uint64_t *)(sym_rt.base + off), __ATOMIC_ACQUIRE);
}

sym_status_t sym_barrier_internal(const char *op);

/* Offset-addressed transfers for the library's own use (mailboxes): no
 * argument checks, inline path for mapped peers. */
sym_status_t sym_put_off(int pe, uint64_t off, const void *src, size_t nbytes);
sym_status_t sym_get_off(int pe, void *dst, uint64_t off, size_t nbytes);
sym_status_t sym_put_signal_off(int pe, uint64_t off, const void *src, size_t nbytes,
                                uint64_t sig_off, uint64_t signal, sym_signal_op_t op);

/* Transports with manual progress (progress.c): whether any in use needs
 * the target to make calls, driving each once, and blocking up to `ns` in
 * one that can wake a sleeper (false: none can; the caller sleeps). */
bool sym_transports_need_progress(void);
void sym_transports_progress(void);
bool sym_transports_sleep(long ns);

/* Transport-level quiet over every transport in use. */
sym_status_t sym_quiet_internal(void);

#endif /* SYM_INTERNAL_H */
