/*
 * symheap/p2p.h - point-to-point tagged messages between two PEs (send, recv,
 * sendrecv) through mailboxes in the symmetric heap.
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_P2P_H
#define SYMHEAP_P2P_H

#include <stddef.h>
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Point-to-point messages                                                   */
/* ------------------------------------------------------------------------ */
/*
 * Tagged messages between two PEs (global PE numbers) through mailboxes in
 * the symmetric heap.  Messages from one PE to another arrive in the order
 * they were sent (per tag); any size is allowed, staged in chunks.  A
 * message that arrives before its receive is posted is queued by the
 * receiver.  Tags are >= 0; SYM_ANY_TAG matches any tag in sym_recv.
 * Errors common to all: SYM_ERR_INVALID_PE (out of range),
 * SYM_ERR_INVALID_ARG (the PE itself: "self rank"; NULL buffer with a size;
 * negative tag), SYM_ERR_TIMEOUT, SYM_ERR_PEER_LOST.
 */
#define SYM_ANY_TAG (-1)

/* Send nbytes to PE `pe`.  Returns when `buf` may be reused: the data is in
 * the receiver's mailbox or queue; if its mailbox is full this waits for the
 * receiver to make room (up to the timeout). */
SYM_API sym_status_t sym_send(const void *buf, size_t nbytes, int pe, int tag);

/* Receive the next message from PE `pe` with `tag` into buf (capacity
 * bytes) and store its size in *received_p (may be NULL).  A message larger
 * than the buffer is SYM_ERR_TRUNCATED: nothing is written, *received_p
 * gets the size needed, and the message stays queued for a larger buffer. */
SYM_API sym_status_t sym_recv(void *buf, size_t capacity, int pe, int tag, size_t *received_p);

/* Send to `dest` and receive from `source` at the same time (they may be
 * the same PE): never deadlocks, whatever the sizes.  The two buffers must
 * not overlap (SYM_ERR_INVALID_ARG). */
SYM_API sym_status_t sym_sendrecv(const void *sendbuf, size_t sendbytes, int dest, int sendtag,
                                  void *recvbuf, size_t capacity, int source, int recvtag,
                                  size_t *received_p);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_P2P_H */
