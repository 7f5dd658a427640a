/*
 * cma.h - cross-memory attach between the PEs of one host: one PE copies
 * straight out of another's private memory with process_vm_readv(2), one
 * copy where shared memory would take two (the collectives' direct
 * algorithm reads peers' private buffers this way, src/coll/direct.c).
 *
 * Whether it works is decided once, at sym_init, the way Open MPI's
 * smsc/cma decides: under Yama's ptrace_scope 1 each PE first allows any
 * process of its user to attach (PR_SET_PTRACER), then every PE checks that
 * each peer of its host is in its own user namespace and reads a random
 * word out of the peer's memory, comparing it with the word the peer put
 * on its card (core/heap_size.h, exchanged over the bootstrap), where the
 * card also says at which address the word lies and which user namespace
 * the peer runs in.  So the probe maps no peer's heap (the heaps stay
 * mapped on first use) and costs one system call per peer.  Each PE publishes the
 * verdict in its heap's control block; a team uses cross-memory attach
 * only when every member's verdict is yes, so members never disagree about
 * how a buffer is reached.  SYMHEAP_CMA=off skips all of it.
 */
#ifndef SYM_CORE_CMA_H
#define SYM_CORE_CMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symheap.h"

struct sym_pe_card;

/* What a PE's card says for the probe. */
struct sym_cma_card {
    uint64_t va;             /* where its probe word lies in its own memory */
    uint64_t token;          /* what the word holds; 0: no probe (SYMHEAP_CMA=off) */
    uint64_t ns_dev, ns_ino; /* its user namespace (/proc/self/ns/user); 0: unknown */
};

/* At sym_init, before the cards are exchanged: draw this PE's probe word
 * (in its private memory) and fill its card's part; under Yama
 * ptrace_scope 1 let processes of this user attach.  All 0 with
 * SYMHEAP_CMA=off. */
void sym_cma_prepare(struct sym_cma_card *mine);

/* At sym_init, once every PE's card is here (each drew its word before
 * the exchange): try every peer of this host, reading its word where its
 * card says and comparing the two.  Never fails: a refusal only means the
 * verdict is no (SYMHEAP_DEBUG says why). */
void sym_cma_probe(const struct sym_pe_card *cards);

/* Once this PE's heap exists and the probe ran: write the verdict into
 * its control block, before sym_init's last barrier. */
void sym_cma_publish(void);

/* PE `pe` (on this host) published that it reads every peer of the host by
 * cross-memory attach.  Thread safety: any thread, after sym_init. */
bool sym_cma_verdict(int pe);

/* Copy `len` bytes at address `va` of PE `pe`'s process into dst.
 * Errors (recorded, starting with `op`): SYM_ERR_PEER_LOST when the process
 * is gone, SYM_ERR_UNAVAILABLE when the kernel refuses (EPERM: ptrace
 * rules changed, a seccomp filter), SYM_ERR_TRANSPORT otherwise.
 * Thread safety: any thread. */
sym_status_t sym_cma_read(const char *op, int pe, void *dst, uint64_t va, size_t len);

#endif /* SYM_CORE_CMA_H */
