/*
 * shm.h - the POSIX shared-memory transport.
 *
 * Each PE's heap is one shared-memory object,
 * "/symheap-<uid>-<job key>-<owner>-<pe>" (launch/job.h),
 * created O_EXCL with mode 0600; every PE on the host maps every local peer's
 * object, checks its owner and size, and each PE unlinks its own object once
 * all have mapped it, so nothing remains in /dev/shm even if PEs are killed
 * later.  A put is a memcpy into the peer's mapping; atomics are CPU atomics
 * on it.
 *
 * The transport also owns this PE's heap mapping (made before the peers
 * meet, so every other transport can register it) and the main
 * executable's global variables, its second region (shm_globals.c).
 */
#ifndef SYM_SHM_H
#define SYM_SHM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "transport.h"

struct sym_boot;

/* Create and map this PE's heap object of `heap_len` bytes (zero-filled;
 * the memory of its first `prealloc_len` bytes is reserved now, so
 * exhaustion is reported here; 0: none).  Every heap mapping (mine and peers') is followed by
 * `data_len` reserved bytes where the owner's global variables get mapped (shm_globals.c).  The
 * instance is connected by shm_transport_class's create (*tp_p in: this instance) or
 * shm_transport_connect. Errors: SYM_ERR_NO_MEMORY, SYM_ERR_SYSTEM. */
sym_status_t shm_transport_create(const char *key, const char *owner, int me, int npes,
                                  size_t heap_len, size_t data_len, size_t prealloc_len,
                                  struct sym_transport **tp_p, uint8_t **base_p);

/* Map the heap of every peer with local[pe] set (all PEs if local is NULL)
 * once they exist, then unlink this PE's object.  owners[pe] is the owner in
 * PE pe's object name (NULL: boot->owner for all).  Collective over the
 * boot.  Fills peer_base[pe] for mapped peers (NULL for others; mine
 * included). */
sym_status_t shm_transport_connect(struct sym_transport *tp, struct sym_boot *boot,
                                   const bool *local, const char *const *owners,
                                   uint8_t **peer_base);

/* First in the ordered list: peers on this host (same host identity). */
extern const struct sym_transport_class shm_transport_class;

/* ---- global variables (shm_globals.c) ------------------------------------ */

/* Find this PE's segment (before the heap is mapped: room for peers'
 * segments is reserved after each heap mapping).  `mode`: SYMHEAP_GLOBALS
 * (off, cma, remap, auto); `prealloc`: reserve the memory at once. */
void shm_globals_probe(const char *mode, bool prealloc);
/* After shm_globals_probe, before the bootstrap starts any thread: move my
 * segment into an unnamed shared-memory object (named at connect).  On
 * failure nothing changes and connect tries the late way. */
void shm_globals_prepare(void);
/* Where the segment is: locally, and in (pe, offset) space once connected. */
void shm_globals_region(struct sym_region *r);
/* Give my variables back as private memory with their current values. */
void shm_globals_fini(void);

/* Name of PE `pe`'s heap object for job `key` owned by `owner` (see
 * launch/owner.h; buf of at least 160 bytes). */
void shm_object_name(char *buf, size_t len, const char *key, const char *owner, int pe);

#endif /* SYM_SHM_H */
