/*
 * transport.h - the one ops table every transport implements, and the
 * ordered list of transport classes.
 *
 * Everything above this line speaks (PE, heap offset); a transport turns that
 * into stores into a mapped heap (shm) or RDMA operations (ofi).  The runtime
 * picks a transport per peer and calls it through this table; callers never
 * know which transport they use.  Arguments are validated once at the API;
 * transports trust them.
 *
 * Transports are plug-ins tried per peer in the order of
 * sym_transport_classes (transports/classes.c: shm, then ofi); the first
 * class that can reach a peer wins.  The runtime names none of them: it
 * reads this list, and what it must know about an instance is declared in
 * its capability flags.  A transport never reads the runtime's state: what
 * it needs arrives at creation (struct sym_transport_config: the job, this
 * PE's memory, its own settings), and docs/transports.md shows how to add
 * one.
 *
 * The runtime owns this PE's memory (struct sym_memory): the heap mapping
 * and the global variables, its second region.  A transport maps it for
 * its peers (shm hands the memfds to the local ones) or registers it (ofi).
 * Peers that a SYM_TP_CAP_DIRECT transport maps into this process get a
 * direct base pointer from its `ptr` op, asked for on the peer's first use
 * (so the transport may map it only then) and kept by the runtime, which
 * the API uses for an inline load/store path without an indirect call.
 *
 * Threads: every op but fini may be called by several threads of the PE at
 * once (SYM_THREAD_MULTIPLE).  shm's only mutable state is a peer's
 * mapping, made once on its first use under a lock and read atomically; a
 * transport with more (ofi: endpoint, counters, completion queues, pending
 * counts for quiet) needs a domain opened with FI_THREAD_SAFE or its own
 * lock around them, and quiet must cover the operations issued by the
 * calling thread at least.  Classes' functions are called by sym_init (and
 * symheap-info) only.
 */
#ifndef SYM_TRANSPORT_H
#define SYM_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "symheap.h"

struct sym_boot;
struct sym_cfg_table;
struct sym_deadline;
struct sym_transport;

/* What a transport instance can do; the layers above decide from these,
 * never from a transport's name. */
enum sym_transport_cap {
    /* `ptr` gives load/store pointers into the peers it reaches: the
     * caller may copy and use CPU atomics there itself. */
    SYM_TP_CAP_DIRECT = 1u << 0,
    /* Its atomics are CPU atomics on the target word, atomic with respect
     * to the inline ones of the direct path.  Once a transport without it
     * is in use, words may be updated by its provider, so every atomic
     * goes through that transport (fi_atomic(3): CPU and NIC atomics on one
     * word are not atomic with respect to each other). */
    SYM_TP_CAP_CPU_ATOMICS = 1u << 1,
    /* Operations complete only while the target calls `progress` (manual
     * progress): every wait must drive it. */
    SYM_TP_CAP_NEEDS_PROGRESS = 1u << 2,
    /* Its `sleep` wakes as soon as a peer's operation arrives: a waiter
     * reached by nothing else may sleep at once. */
    SYM_TP_CAP_WAKES = 1u << 3,
    /* Its peers reopen this PE's memfds (struct sym_memory's heap_fd and
     * data_fd) when they first use this PE, long after init: the runtime
     * keeps them open for the job instead of closing them once the
     * transports are connected. */
    SYM_TP_CAP_KEEPS_FDS = 1u << 4,
};

/* A symmetric region beyond the heap (the global variables): bytes
 * [addr, addr + len) locally, offsets [off, off + len) in (PE, offset)
 * space.  len 0: none. */
struct sym_region {
    uint8_t *addr;
    size_t len;
    uint64_t off;
};

/* Atomic operations a transport must provide on 32- and 64-bit words. */
typedef enum sym_amo_op {
    SYM_AMO_FETCH,
    SYM_AMO_SET,
    SYM_AMO_SWAP,
    SYM_AMO_CSWAP,
    SYM_AMO_ADD,
    SYM_AMO_FETCH_ADD,
    SYM_AMO_AND,
    SYM_AMO_OR,
    SYM_AMO_XOR,
    SYM_AMO_FETCH_AND,
    SYM_AMO_FETCH_OR,
    SYM_AMO_FETCH_XOR,
} sym_amo_op_t;

struct sym_transport_ops {
    size_t size; /* sizeof(struct sym_transport_ops), for compatibility checks */
    const char *name;

    /* The operations that may block (for completion, for room in a full
     * queue, for a provider that keeps answering "try again") take the
     * caller's deadline `dl`: every wait of theirs shares it, and ends
     * with its timeout message (base/deadline.h).  A transport that never
     * waits ignores it. */
    sym_status_t (*put)(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                        size_t nbytes, struct sym_deadline *dl);
    sym_status_t (*get)(struct sym_transport *tp, int pe, void *dst, uint64_t off, size_t nbytes,
                        struct sym_deadline *dl);
    sym_status_t (*put_nbi)(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                            size_t nbytes, struct sym_deadline *dl);
    sym_status_t (*get_nbi)(struct sym_transport *tp, int pe, void *dst, uint64_t off,
                            size_t nbytes, struct sym_deadline *dl);
    /* Data at `off`, then the 64-bit signal word at `sig_off` updated with
     * `op`; the signal is never visible before the data. */
    sym_status_t (*put_signal)(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                               size_t nbytes, uint64_t sig_off, uint64_t signal, sym_signal_op_t op,
                               struct sym_deadline *dl);
    /* Atomic on a `width`-byte (4 or 8) word.  `operand` and `compare` are
     * zero-extended; the fetched value, when the op fetches, goes to *fetched_p. */
    sym_status_t (*atomic)(struct sym_transport *tp, int pe, uint64_t off, sym_amo_op_t op,
                           size_t width, uint64_t operand, uint64_t compare, uint64_t *fetched_p,
                           struct sym_deadline *dl);
    sym_status_t (*quiet)(struct sym_transport *tp, struct sym_deadline *dl);
    sym_status_t (*fence)(struct sym_transport *tp, struct sym_deadline *dl);
    /* SYM_TP_CAP_DIRECT only (else NULL): direct pointer to (pe, off), or
     * NULL if the peer is not mapped.  For off < direct_end it is
     * ptr(pe, 0) + off, which the runtime's inline path relies on.  A
     * transport may map a peer here, on its first use (the runtime asks for
     * a peer's pointer only then): it then never returns NULL for a peer it
     * reaches, and a peer it can no longer map gets a stand-in (see
     * stand_in). */
    void *(*ptr)(struct sym_transport *tp, int pe, uint64_t off);
    /* Optional (NULL: never): whether what ptr gives for `pe` is a private
     * stand-in, not the peer's memory (the peer ended before this PE first
     * used it): it reads as zeros, and writes go nowhere. */
    bool (*stand_in)(struct sym_transport *tp, int pe);
    /* Optional (NULL: none): a peer whose process runs but that this
     * transport could not reach on its first use, or -1; `how` gets the
     * words that follow "PE n" in a message.  Read by the job health check,
     * which reports such a peer lost: cheap when there is none; any
     * thread. */
    int (*unreachable)(struct sym_transport *tp, char *how, size_t len);
    /* Drive progress for providers that need the target to make calls. */
    sym_status_t (*progress)(struct sym_transport *tp);
    /* Optional (NULL: the caller sleeps): block for up to `ns` nanoseconds
     * or until the transport has incoming work, then drive progress.  Lets
     * a sleeping waiter with manual-progress providers serve its peers. */
    sym_status_t (*sleep)(struct sym_transport *tp, long ns);
    /* Release everything; the transport is unusable afterwards. */
    void (*fini)(struct sym_transport *tp);
};

/* Base of every transport instance; transports embed it first. */
struct sym_transport {
    const struct sym_transport_ops *ops;
    unsigned caps;       /* enum sym_transport_cap, set at creation */
    uint64_t direct_end; /* SYM_TP_CAP_DIRECT: see the ptr op */
};

/* This PE's symmetric memory, made and owned by the runtime before any
 * transport exists, the same on every PE but for the addresses: the heap,
 * then the global variables from offset heap_len on.  Every heap mapping
 * (this PE's, and a peer's that a transport maps) is followed by room for
 * data.len bytes, where that PE's global variables get mapped.  Threads:
 * written by sym_init before the transports are created and by sym_finalize
 * after they are released; read-only in between. */
struct sym_memory {
    uint8_t *heap; /* my heap mapping */
    size_t heap_len;
    /* The sealed memfd behind the heap (base/segment.h), for a transport
     * that hands it to the peers on this host: open during creation, and
     * for the job when a transport in use has SYM_TP_CAP_KEEPS_FDS (its
     * peers reopen it) or the heap's memory is reserved as it is handed
     * out (SYMHEAP_HEAP_PREALLOC). */
    int heap_fd;
    struct sym_region data; /* my global variables (off == heap_len); len 0: none */
    /* The memfd the variables live in, or -1: they stay private memory
     * (SYMHEAP_GLOBALS=cma, or it could not be made), reachable only by
     * cross-memory attach on this host.  Open during creation, and for the
     * job under SYM_TP_CAP_KEEPS_FDS. */
    int data_fd;
    /* My own variables are also mapped at heap + heap_len (from data_fd),
     * so heap + off reaches heap and variables alike. */
    bool data_aliased;
};

/* Everything a transport gets from above, at creation: the job, the
 * memory to expose and its own settings. */
struct sym_transport_config {
    int me;
    int npes;
    struct sym_boot *boot;
    const bool *same_host; /* [npes] on this PE's host (host identities) */
    const int *peer_pid;   /* [npes] */
    const bool *reach;     /* [npes] the peers this instance is to reach */
    const struct sym_memory *memory;
    int thread_level; /* sym_thread_level_t: the locking needed */
    /* The wait loop's yield phase (SYMHEAP_WAIT_YIELD_US), for a transport
     * that sleeps in its own waits. */
    unsigned long wait_yield_us;
    /* The class's own settings, loaded from its table (the class's
     * `settings`), or NULL when it has none. */
    const void *settings;
    /* sym_init's deadline: bounds every wait of creation (a transport's
     * own, such as ofi's connections; the bootstrap's have their own). */
    struct sym_deadline *deadline;
    /* Hook: from now on the wait loop drives tp's progress and the runtime
     * owns tp (releases it, also when creation fails later).  A transport
     * calls it before a collective step of its creation whose waits need
     * its progress (ofi's connections at init). */
    void (*serve)(struct sym_transport *tp);
};

/* A transport class: one entry of the ordered list. */
struct sym_transport_class {
    const char *name;    /* SYMHEAP_TRANSPORT's word for it */
    const char *summary; /* one line for symheap-info: what it reaches, over what */
    /* Its own SYMHEAP_* variables (base/config.h), loaded by sym_init for
     * `create` and shown by symheap-info under its name; NULL: none. */
    const struct sym_cfg_table *settings;
    /* Whether an instance could reach `pe`, decided from what every PE
     * exchanged, so that all PEs decide alike. */
    bool (*can_reach)(const struct sym_transport_config *cfg, int pe);
    /* Optional: what an instance sets up before the peers meet, so that a
     * peer already waiting in sym_init can use it (shm listens on its
     * socket).  *tp_p gets an instance that is not connected yet; create
     * receives it in *tp_p, or it is released unused when the class
     * reaches no PE.  cfg's reach, same_host and peer_pid are NULL here. */
    sym_status_t (*prepare)(const struct sym_transport_config *cfg, struct sym_transport **tp_p);
    /* Collective over every PE that uses the class: an instance reaching
     * the peers marked in cfg->reach (*tp_p in: prepare's instance, or
     * NULL). */
    sym_status_t (*create)(const struct sym_transport_config *cfg, struct sym_transport **tp_p);
    /* Optional, for sym_transport_available and sym_transport_providers:
     * the providers it can run on, comma-separated into buf (cut to len as
     * snprintf does), returning the whole list's length; *default_p: it
     * would pick one of them by itself.  -1 with `why` filled when it
     * cannot tell (its library cannot be loaded).  NULL: it needs none. */
    int (*providers)(char *buf, size_t len, bool *default_p, char *why, size_t why_len);
    /* Optional: what symheap-info prints about it beyond its summary. */
    void (*describe)(FILE *out);
};

/* The classes of this build, in the order they are tried per peer
 * (transports/classes.c). */
extern const struct sym_transport_class *const sym_transport_classes[];
extern const size_t sym_transport_nclasses;
#define SYM_TRANSPORTS_MAX 4 /* classes at most: the runtime's arrays */
/* Every transport's settings table, of the classes above and of those
 * this build leaves out (transports/classes.c): a variable of a transport
 * not built in is still a symheap variable, which sym_init does not warn
 * of as unknown. */
extern const struct sym_cfg_table *const sym_transport_settings[];
extern const size_t sym_transport_nsettings;

/* An ops table is usable if it is at least as large as this header's. */
static inline bool sym_transport_ops_fit(const struct sym_transport_ops *ops)
{
    return ops && ops->size >= sizeof(struct sym_transport_ops);
}

#endif /* SYM_TRANSPORT_H */
