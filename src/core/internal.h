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
#include "core/barrier.h"
#include "base/heap_layout.h"
#include "symheap.h"
#include "transport.h"

struct sym_boot;
struct sym_job_ctrl;

/* Classes in the ordered transport list (transports.c): shm, ofi. */
#define SYM_TRANSPORTS_MAX 2

/* ---- runtime state (state.c) -------------------------------------------- */

struct sym_runtime {
    bool initialized;
    int me;
    int npes;
    struct sym_config cfg;

    uint8_t *base;     /* my heap mapping */
    size_t heap_total; /* bytes of every heap mapping */
    struct sym_heap_layout layout;

    /* [npes] direct mapping of each heap, or NULL: not reached that way, or
     * not mapped yet (sym_direct maps it on first use); read and set
     * atomically */
    uint8_t **peer_base;
    struct sym_transport **peer_tp; /* [npes] transport reaching each PE */
    /* The transports in use (transports.c), in the order of their classes;
     * the first owns my heap mapping and the global variables. */
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
    /* World barrier lines (epoch after fingerprints: a put-with-signal with
     * data) sent through a transport, for tests that count its ops. */
    uint64_t barrier_lines_sent;
    struct sym_alloc alloc;
    uint64_t alloc_seq;     /* collective allocation calls so far */
    uint64_t heap_reserved; /* SYMHEAP_HEAP_PREALLOC: user heap reserved below this offset */
    /* .data/.bss, the second symmetric region (offsets from heap_total
     * on), as the transport owning it describes it */
    struct sym_region globals;
    uint64_t direct_end; /* peer_base[pe] + off is valid for off < this */
    int thread_level;    /* sym_thread_level_t in force */
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
 * direct_end).  A peer on this host that the shm transport reaches always
 * gets a valid pointer: its heap is mapped here on its first use
 * (sym_direct_slow). */
static inline void *sym_direct(int pe, uint64_t off)
{
    uint8_t *b = __atomic_load_n(&sym_rt.peer_base[pe], __ATOMIC_ACQUIRE);
    if (__builtin_expect(!b, 0))
        return sym_direct_slow(pe, off);
    return off < sym_rt.direct_end ? b + off : NULL;
}

/* Whether PE pe's memory is reached by loads and stores (mapped, or to be
 * mapped on first use), without mapping it. */
bool sym_pe_direct(int pe);

/* Whether sym_direct(pe, ..) points into a private stand-in: PE pe ended
 * before this PE first used it, so its memory reads as zeros instead of
 * what it wrote.  A reader that needs what the peer wrote (not a flag that
 * only grows, whose zero means "not yet") takes the peer as lost. */
bool sym_pe_stand_in(int pe);

/* ---- the transports in use (transports.c) ------------------------------- */

/* Before the bootstrap starts any thread: find the global variables and
 * move them into shared memory (the shm transport's second region). */
void sym_transports_prepare(void);
/* Create this PE's heap mapping (sym_rt.base, heap_total bytes), owned by
 * the first transport; with SYMHEAP_HEAP_PREALLOC the memory of what
 * precedes the user heap (control block, sync area, mailboxes) is
 * reserved now, the user heap's as it is handed out (heap.c). */
sym_status_t sym_transports_heap_open(void);
/* Reserve the memory of [off, off + len) of this PE's heap (its owner's
 * shm_heap_reserve).  Errors: SYM_ERR_NO_MEMORY, SYM_ERR_SYSTEM. */
sym_status_t sym_transports_heap_reserve(uint64_t off, uint64_t len);
/* Collective: choose per peer the first class in order that can reach it
 * (SYMHEAP_TRANSPORT restricts the list), create the transports, fill
 * peer_base, peer_tp and what derives from the transports' capabilities.
 * same_host[pe]: PE pe runs on this host; dl: sym_init's deadline, for
 * the transports' own waits. */
sym_status_t sym_transports_open(struct sym_boot *boot, const bool *same_host,
                                 struct sym_deadline *dl);
/* Release every transport (the heap's owner last) and the globals. */
void sym_transports_close(void);
/* The transport in use named `name`, or NULL (tests, tools). */
struct sym_transport *sym_transport_named(const char *name);
/* A PE on this host that is running but whose heap could not be mapped
 * on its first use, or -1, with the words that follow "PE n" in `how`. */
int sym_transports_unreachable(char *how, size_t len);

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

/* ---- internal one-sided helpers (rma.c, barrier.c) ----------------------
 * Each takes the deadline of the calling operation, for the transport's
 * own waits (a collective passes its call's, so a transport that waits for
 * a member is bounded by the collective's timeout). */

/* Atomically store a 64-bit flag at heap offset `off` on `pe`, with
 * release ordering relative to this PE's earlier puts. */
sym_status_t sym_flag_set_dl(int pe, uint64_t off, uint64_t value, struct sym_deadline *dl);

static inline uint64_t sym_flag_load(uint64_t off)
{
    return __atomic_load_n((uint64_t *)(sym_rt.base + off), __ATOMIC_ACQUIRE);
}

/* Offset-addressed transfers for the library's own use (mailboxes): no
 * argument checks, inline path for mapped peers. */
sym_status_t sym_put_off_dl(int pe, uint64_t off, const void *src, size_t nbytes,
                            struct sym_deadline *dl);
sym_status_t sym_get_off_dl(int pe, void *dst, uint64_t off, size_t nbytes,
                            struct sym_deadline *dl);
sym_status_t sym_put_signal_off_dl(int pe, uint64_t off, const void *src, size_t nbytes,
                                   uint64_t sig_off, uint64_t signal, sym_signal_op_t op,
                                   struct sym_deadline *dl);

/* Transports with manual progress (progress.c): whether any in use needs
 * the target to make calls, driving each once, and blocking up to `ns` in
 * one that can wake a sleeper (false: none can; the caller sleeps). */
bool sym_transports_need_progress(void);
void sym_transports_progress(void);
bool sym_transports_sleep(long ns);

/* Transport-level quiet over every transport in use; _internal with
 * SYMHEAP_TIMEOUT (sym_quiet, sym_finalize). */
sym_status_t sym_quiet_dl(struct sym_deadline *dl);
sym_status_t sym_quiet_internal(void);

#endif /* SYM_INTERNAL_H */
