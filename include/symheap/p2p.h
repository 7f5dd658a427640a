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
 * the symmetric heap.  Any size is allowed, staged in chunks.  A message
 * that arrives before its receive is posted is queued by the receiver.
 * Tags are >= 0.
 *
 * Matching.  A receive (or probe) names a source PE or SYM_ANY_PE and a tag
 * or SYM_ANY_TAG.  Messages from one sender with one tag are received in
 * the order they were sent; a receive takes the oldest message of a sender
 * that matches it.  With SYM_ANY_PE the senders are looked at in turn,
 * starting after the sender of the previous any-source receive, so a
 * sender that keeps sending does not starve the others (every sender with
 * a message there is served within npes - 1 any-source receives).  A probe
 * reports the message that a receive with the probe's source and tag
 * arguments would take at that moment; a receive with the source and tag
 * the probe reported takes exactly that message.
 *
 * Deadline.  Each call has a timeout: sym_p2p_opts_t.timeout_s when > 0,
 * else the world team's (sym_team_set_timeout(sym_team_world(), ...),
 * whose default is SYMHEAP_TIMEOUT).  The call fails with SYM_ERR_TIMEOUT,
 * naming the peer and the tag, once it has waited that long without any of
 * its own data moving: a receive whose message never comes fails after
 * the timeout; a message of any size keeps going as long as its chunks
 * keep moving.
 *
 * Lost PEs.  A symheap job does not continue past a lost PE: from then on
 * every wait of every PE reports SYM_ERR_PEER_LOST naming it.  So a
 * receive or probe reports the loss only when it would have to wait: a
 * matching message that has already arrived (from any PE, the lost one
 * included, if it arrived whole) is still delivered.  With SYM_ANY_PE the
 * rule is the same: the call fails only when no sender's message that can
 * match it is there any more.
 *
 * Threads.  A PE's point-to-point calls share its queues: they are the
 * caller's to serialise.  A call made while another thread of the PE is
 * inside one fails at once with SYM_ERR_INVALID_ARG (nothing is sent or
 * received by it).
 *
 * Errors common to all: SYM_ERR_INVALID_PE (out of range),
 * SYM_ERR_INVALID_ARG (the PE itself: "self rank"; SYM_ANY_PE where a
 * destination is needed or in a job of one PE; NULL buffer with a size;
 * negative tag; negative or NaN timeout; a concurrent call from another
 * thread), SYM_ERR_TIMEOUT, SYM_ERR_PEER_LOST, SYM_ERR_ABORTED.
 */
#define SYM_ANY_TAG (-1)
#define SYM_ANY_PE  (-1)

/* What was received or found: `source` is the sender's global PE number,
 * `tag` the message's tag, `nbytes` its size. */
typedef struct sym_msg_status {
    int source;
    int tag;
    size_t nbytes;
} sym_msg_status_t;

/* Per-call options; NULL (or every field zero) for the defaults. */
typedef struct sym_p2p_opts {
    double timeout_s; /* > 0: this call's deadline; 0: the world team's timeout */
} sym_p2p_opts_t;

/* Send nbytes to PE `pe` with `tag`.  Returns when `buf` may be reused:
 * the data is in the receiver's mailbox or queue; if its mailbox is full
 * this waits for the receiver to make room (up to the timeout). */
SYM_API SYM_NODISCARD sym_status_t sym_send_opts(const void *buf, size_t nbytes, int pe, int tag,
                                                 const sym_p2p_opts_t *opts);

/* Receive the next matching message (from `pe` or SYM_ANY_PE, with `tag`
 * or SYM_ANY_TAG) into buf (capacity bytes).  On SYM_OK *status (may be
 * NULL) says who sent it, its tag and its size.  A message larger than
 * the buffer is SYM_ERR_TRUNCATED: nothing is written, *status names the
 * message with nbytes the size needed, and the message stays queued for a
 * larger buffer (a receive with that source and tag gets it). */
SYM_API SYM_NODISCARD sym_status_t sym_recv_opts(void *buf, size_t capacity, int pe, int tag,
                                                 const sym_p2p_opts_t *opts,
                                                 sym_msg_status_t *status);

/* Send to `dest` and receive from `source` (a PE or SYM_ANY_PE) at the
 * same time (they may be the same PE): never deadlocks, whatever the
 * sizes.  The two buffers must not overlap (SYM_ERR_INVALID_ARG).  The
 * receive side is as sym_recv_opts, status included. */
SYM_API SYM_NODISCARD sym_status_t sym_sendrecv_opts(const void *sendbuf, size_t sendbytes,
                                                     int dest, int sendtag, void *recvbuf,
                                                     size_t capacity, int source, int recvtag,
                                                     const sym_p2p_opts_t *opts,
                                                     sym_msg_status_t *status);

/* Wait until a message matching (pe or SYM_ANY_PE, tag or SYM_ANY_TAG)
 * is there and describe it in *status (may be NULL), without receiving
 * it: a message is there as soon as its first chunk arrived. */
SYM_API SYM_NODISCARD sym_status_t sym_probe(int pe, int tag, const sym_p2p_opts_t *opts,
                                             sym_msg_status_t *status);

/* As sym_probe, without waiting: *found_p is 1 (and *status filled) if a
 * matching message is there, else 0.  Drives progress once. */
SYM_API SYM_NODISCARD sym_status_t sym_iprobe(int pe, int tag, int *found_p,
                                              sym_msg_status_t *status);

/* Shorthands with default options: sym_send_opts(..., NULL), and
 * sym_recv_opts / sym_sendrecv_opts with NULL options whose status is
 * reduced to the size received (*received_p, may be NULL; on
 * SYM_ERR_TRUNCATED the size needed). */
SYM_API SYM_NODISCARD sym_status_t sym_send(const void *buf, size_t nbytes, int pe, int tag);
SYM_API SYM_NODISCARD sym_status_t sym_recv(void *buf, size_t capacity, int pe, int tag,
                                            size_t *received_p);
SYM_API SYM_NODISCARD sym_status_t sym_sendrecv(const void *sendbuf, size_t sendbytes, int dest,
                                                int sendtag, void *recvbuf, size_t capacity,
                                                int source, int recvtag, size_t *received_p);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_P2P_H */
