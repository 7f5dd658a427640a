/*
 * transport.h - the one ops table every transport implements.
 *
 * Everything above this line speaks (PE, heap offset); a transport turns that
 * into stores into a mapped heap (shm) or RDMA operations (ofi).  The runtime
 * picks a transport per peer and calls it through this table; callers never
 * know which transport they use.  Arguments are validated once at the API;
 * transports trust them.
 *
 * Peers whose heap is mapped into this process additionally get a direct
 * base pointer in the runtime (sym_rt.peer_base), which the API uses for an
 * inline load/store path without an indirect call.
 *
 * Offsets from heap_total on address the owner's global variables (struct
 * sym_globals in src/internal.h): a transport reaching remote PEs registers
 * that segment as a second region.
 *
 * Threads: every op but fini may be called by several threads of the PE at
 * once (SYM_THREAD_MULTIPLE).  shm keeps no mutable state in its ops; a
 * transport that does (ofi: endpoint, counters, completion queues, pending
 * counts for quiet) needs a domain opened with FI_THREAD_SAFE or its own
 * lock around them, and quiet must cover the operations issued by the
 * calling thread at least.
 */
#ifndef SYM_TRANSPORT_H
#define SYM_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>

#include "symheap.h"

struct sym_transport;

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

    sym_status_t (*put)(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                        size_t nbytes);
    sym_status_t (*get)(struct sym_transport *tp, int pe, void *dst, uint64_t off,
                        size_t nbytes);
    sym_status_t (*put_nbi)(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                            size_t nbytes);
    sym_status_t (*get_nbi)(struct sym_transport *tp, int pe, void *dst, uint64_t off,
                            size_t nbytes);
    /* Data at `off`, then the 64-bit signal word at `sig_off` updated with
     * `op`; the signal is never visible before the data. */
    sym_status_t (*put_signal)(struct sym_transport *tp, int pe, uint64_t off,
                               const void *src, size_t nbytes, uint64_t sig_off,
                               uint64_t signal, sym_signal_op_t op);
    /* Atomic on a `width`-byte (4 or 8) word.  `operand` and `compare` are
     * zero-extended; the fetched value, when the op fetches, goes to *fetched_p. */
    sym_status_t (*atomic)(struct sym_transport *tp, int pe, uint64_t off, sym_amo_op_t op,
                           size_t width, uint64_t operand, uint64_t compare,
                           uint64_t *fetched_p);
    sym_status_t (*quiet)(struct sym_transport *tp);
    sym_status_t (*fence)(struct sym_transport *tp);
    /* Direct pointer to (pe, off), or NULL if the peer is not mapped. */
    void *(*ptr)(struct sym_transport *tp, int pe, uint64_t off);
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
};

#endif /* SYM_TRANSPORT_H */
