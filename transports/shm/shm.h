/*
 * shm.h - the shared-memory transport.
 *
 * Each PE's heap is a memfd (no name anywhere: nothing in /dev/shm to
 * open, squat or leak), its size sealed.  A PE maps a local peer's heap
 * when it first uses it, reopening the peer's memfd through /proc
 * (shm_lazy.c says how and why that is safe); where the kernel does not
 * allow that, the PEs on one host hand each other the descriptors at init
 * over unix sockets whose peers the kernel vouches for (SO_PEERCRED;
 * shm_fdx.c), and every PE maps every local peer's heap then.  Either way
 * a mapping is checked (seals, owner, size and header) before use, and the
 * memory lives exactly as long as some process of the job maps it or holds
 * its descriptor.  A put is a memcpy into the peer's mapping; atomics are
 * CPU atomics on it.
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

/* Create and map this PE's heap, a memfd of `heap_len` bytes (zero-filled;
 * the memory of its first `prealloc_len` bytes is reserved now, so
 * exhaustion is reported here; 0: none; the rest as it is handed out,
 * shm_heap_reserve), and listen for the local peers
 * that will ask for it.  Every heap mapping (mine and peers') is followed by
 * `data_len` reserved bytes where the owner's global variables get mapped
 * (shm_globals.c).  The instance is connected by shm_transport_class's
 * create (*tp_p in: this instance).  Errors: SYM_ERR_NO_MEMORY,
 * SYM_ERR_SYSTEM. */
sym_status_t shm_transport_create(int me, int npes, size_t heap_len, size_t data_len,
                                  size_t prealloc_len, struct sym_transport **tp_p,
                                  uint8_t **base_p);

/* Reserve the memory of bytes [off, off + len) of this PE's heap now, so
 * that exhaustion of shared memory is this error, not a SIGBUS when the
 * bytes are first touched.  Errors: SYM_ERR_NO_MEMORY (not that much room
 * in /dev/shm), SYM_ERR_SYSTEM. */
sym_status_t shm_heap_reserve(struct sym_transport *tp, uint64_t off, uint64_t len);

/* Map PE `pe`'s heap from its descriptor `fd` (not taken over), refusing
 * one that is not a sealed memfd of this uid and of this job's heap size,
 * or whose header does not name PE `pe` of this job size and job `key`.
 * Errors: SYM_ERR_BOOTSTRAP (naming what was wrong), SYM_ERR_NO_MEMORY. */
sym_status_t shm_transport_attach(struct sym_transport *tp, const char *key, int pe, int fd);

/* A peer on this host whose process runs but whose heap could not be
 * mapped on first use (shm_lazy.c) for another reason than its descriptor
 * being closed (sym_finalize closes it), or -1; `how` gets the words that follow
 * "PE n" in a message.  Cheap when there is none; thread-safe. */
int shm_transport_unreachable(struct sym_transport *tp, char *how, size_t len);

/* Whether what this PE reaches of PE pe is the private stand-in of a peer
 * that could not be mapped (it ended before this PE first used it): its
 * memory reads as zeros, not as what the peer last wrote.  Thread-safe. */
bool shm_transport_stand_in(struct sym_transport *tp, int pe);

/* First in the ordered list: peers on this host (same host identity). */
extern const struct sym_transport_class shm_transport_class;

/* ---- global variables (shm_globals.c) ------------------------------------ */

/* Find this PE's segment (before the heap is mapped: room for peers'
 * segments is reserved after each heap mapping).  `mode`: SYMHEAP_GLOBALS
 * (off, cma, remap, auto); `prealloc`: reserve the memory at once. */
void shm_globals_probe(const char *mode, bool prealloc);
/* After shm_globals_probe, before the bootstrap starts any thread: move my
 * segment into a memfd.  On failure nothing changes and connect tries the
 * late way. */
void shm_globals_prepare(void);
/* Where the segment is: locally, and in (pe, offset) space once connected. */
void shm_globals_region(struct sym_region *r);
/* Give my variables back as private memory with their current values. */
void shm_globals_fini(void);

#endif /* SYM_SHM_H */
