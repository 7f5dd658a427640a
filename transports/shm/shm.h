/*
 * shm.h - the shared-memory transport.
 *
 * Each PE's heap is a memfd (no name anywhere: nothing in /dev/shm to
 * open, squat or leak), its size sealed, made by the runtime
 * (struct sym_memory).  A PE maps a local peer's heap when it first uses
 * it, reopening the peer's memfd through /proc (shm_lazy.c says how and why
 * that is safe); where the kernel does not allow that, the PEs on one host
 * hand each other the descriptors at init over unix sockets whose peers
 * the kernel vouches for (SO_PEERCRED; shm_fdx.c), and every PE maps every
 * local peer's heap then.  Either way a mapping is checked (seals, owner,
 * size and header) before use, and the memory lives exactly as long as
 * some process of the job maps it or holds its descriptor.  A put is a
 * memcpy into the peer's mapping; atomics are CPU atomics on it.  The
 * peers' global variables come the same way (shm_globals.c), or by
 * cross-memory attach where a PE could not share them.
 */
#ifndef SYM_SHM_H
#define SYM_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport.h"

/* First in the ordered list: peers on this host (same host identity). */
extern const struct sym_transport_class shm_transport_class;

/* An instance of PE me of npes over `m` (which must outlive it) that maps
 * no peer yet; the class's create connects it.  Errors: SYM_ERR_NO_MEMORY. */
sym_status_t shm_transport_new(int me, int npes, const struct sym_memory *m,
                               struct sym_transport **tp_p);

/* Map PE `pe`'s heap from its descriptor `fd` (not taken over), refusing
 * one that is not a sealed memfd of this uid and of this job's heap size,
 * or whose header does not name PE `pe` of this job size and job `key`.
 * Errors: SYM_ERR_BOOTSTRAP (naming what was wrong), SYM_ERR_NO_MEMORY. */
sym_status_t shm_transport_attach(struct sym_transport *tp, const char *key, int pe, int fd);

#endif /* SYM_SHM_H */
