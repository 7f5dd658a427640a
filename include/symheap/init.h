/*
 * symheap/init.h - joining and leaving the job (sym_init, sym_finalize), thread
 * levels, this PE's number and the job's size, and the settings in force.
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_INIT_H
#define SYMHEAP_INIT_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Runtime                                                                   */
/* ------------------------------------------------------------------------ */

/* Initialise the library: read the SYMHEAP_* environment (see
 * `symheap-info`), join the job (started by `symrun`, by a PMIx launcher
 * such as mpirun or srun, by hand through the TCP rendezvous at
 * SYMHEAP_ROOT_ADDR, or alone as PE 0 of 1: SYMHEAP_BOOTSTRAP), create this
 * PE's symmetric heap and map every peer's on this host, and make the
 * executable's global and static variables symmetric (PEs running different
 * executables fail with SYM_ERR_BOOTSTRAP).  Collective over all PEs of the
 * job.
 * Errors: SYM_ERR_ALREADY_INITIALIZED, SYM_ERR_CONFIG (a malformed variable;
 * the message names it and its value), SYM_ERR_NO_MEMORY (heap cannot be
 * backed), SYM_ERR_BOOTSTRAP (the message names the step: PMIx missing, root
 * address busy, inconsistent SYMHEAP_SIZE...), SYM_ERR_PEER_LOST,
 * SYM_ERR_TIMEOUT (a PE never showed up: the message names it),
 * SYM_ERR_UNAVAILABLE (PMIx launcher but no PMIx support built in),
 * SYM_ERR_SYSTEM.  On failure nothing stays allocated and init may be retried.
 * Heap size: SYMHEAP_HEAP_SIZE if set; unset, 256 MiB, or less so that the
 * heaps of all PEs on the most crowded host (their mailboxes included) fit
 * in half of that host's free /dev/shm space (a whole number of MiB, at
 * least 1 MiB), the other half staying for split teams' mailboxes and the
 * rest of the host.  A job that cannot fit fails here, on every PE alike,
 * with SYM_ERR_NO_MEMORY naming the PEs per host and the sizes.  A set
 * SYMHEAP_HEAP_SIZE is used as it is.  With SYMHEAP_HEAP_PREALLOC on, a PE
 * that cannot back its control block, mailboxes and staging area fails
 * here with SYM_ERR_NO_MEMORY naming the size; the heap itself is backed
 * as sym_malloc hands it out.
 * Thread safety: call from one thread, before any other symheap call. */
SYM_API SYM_NODISCARD sym_status_t sym_init(void);

/* The version of the symheap library the program runs with,
 * "MAJOR.MINOR.PATCH", which may be newer than the headers it was compiled
 * with (SYM_VERSION_STRING); *major_p, *minor_p and *patch_p (each may be
 * NULL) receive its numbers.  No sym_init() needed; never fails.
 * Thread-safe. */
SYM_API const char *sym_version(int *major_p, int *minor_p, int *patch_p);

/* Thread levels, as OpenSHMEM's SHMEM_THREAD_*: increasing values, each
 * allowing more than the previous one. */
typedef enum sym_thread_level {
    SYM_THREAD_SINGLE = 0,     /* one thread in the process */
    SYM_THREAD_FUNNELED = 1,   /* only the thread that called sym_init */
    SYM_THREAD_SERIALIZED = 2, /* any thread, never two at once */
    SYM_THREAD_MULTIPLE = 3,   /* any threads at once (see "Thread safety") */
} sym_thread_level_t;

/* sym_init() for a program that announces how it uses threads.  The library
 * supports every level up to SYM_THREAD_MULTIPLE, so *provided_p (if not
 * NULL) receives `requested`; sym_thread_level() reports it afterwards.
 * Errors: SYM_ERR_INVALID_ARG (requested is not a sym_thread_level_t),
 * then those of sym_init().  Thread safety: as sym_init(). */
SYM_API SYM_NODISCARD sym_status_t sym_init_thread(int requested, int *provided_p);

/* The level of the current initialisation: what sym_init_thread() provided,
 * SYM_THREAD_SINGLE after sym_init(); -1 when not initialised.
 * Thread-safe. */
SYM_API int sym_thread_level(void);

/* Complete all outstanding operations, synchronise with all PEs (an implicit
 * barrier) and release every resource of the library.  Collective.  Even
 * when the barrier fails (a peer died, a timeout), local resources are
 * released and the error is returned; the library is then uninitialised.
 * The barrier carries a fingerprint (see sym_malloc): a peer that meets it
 * in sym_barrier_all, sym_sync_all or a collective allocation makes both
 * calls fail with SYM_ERR_MISMATCH.  Only a successful finalize is an
 * orderly end: a PE that exits after a failed one is a lost PE to its
 * peers, which learn of it within about a second (SYM_ERR_PEER_LOST), as
 * of any PE that exits without finalizing.
 * Errors: SYM_ERR_NOT_INITIALIZED ("called after sym_finalize()" once it
 * ran), SYM_ERR_PEER_LOST, SYM_ERR_TIMEOUT, SYM_ERR_MISMATCH, SYM_ERR_ABORTED. */
SYM_API SYM_NODISCARD sym_status_t sym_finalize(void);

/* 1 between a successful sym_init() and sym_finalize(), else 0. */
SYM_API int sym_initialized(void);

/* This PE's number, or -1 when not initialised. */
SYM_API int sym_my_pe(void);

/* Number of PEs in the job, or -1 when not initialised. */
SYM_API int sym_n_pes(void);

/* Raise the job-wide abort word (peers' waits then fail with
 * SYM_ERR_ABORTED; `symrun` ends the job) and exit this process with
 * `status`.  The word reaches every PE: through symrun's segment, the
 * heaps mapped on this host, and, for PEs that joined through the TCP
 * rendezvous, PE 0's relay (sent before this PE exits).  When a PE of the job already raised it,
 * exit with that PE's status instead and leave the word alone: a PE that ends the job because
 * another PE ended it (its wait failed with SYM_ERR_ABORTED) reports the
 * status asked for, so every PE and the launcher agree.  Never returns.
 * Thread-safe. */
SYM_API void sym_global_exit(int status) __attribute__((noreturn));

/* The value in force of the SYMHEAP_* setting `name` (the list and each
 * value: `symheap-info`), as sym_init() read it from the environment:
 * sizes in bytes, counts, and switches as 0 or 1.
 * Errors: SYM_ERR_INVALID_ARG (NULL argument, no setting of that name, or
 * one that is not a whole number: seconds, words, text; the message says
 * which), SYM_ERR_NOT_INITIALIZED.  Thread-safe. */
SYM_API SYM_NODISCARD sym_status_t sym_config_uint(const char *name, uint64_t *value_p);

/* Whether this build can run over `name` on this machine, asked now (no
 * sym_init() needed):
 *   "shm"       symheap's shared-memory transport (PEs on one host): 1;
 *   "ofi"       libfabric: 1 if it is built in, loads, and offers a
 *               provider symheap picks by default (SYMHEAP_OFI_PROVIDER
 *               unset);
 *   a provider  a libfabric provider name exactly as SYMHEAP_OFI_PROVIDER
 *               takes it ("tcp;ofi_rxm", "verbs;ofi_rxm", ...), optionally
 *               prefixed "ofi:" ("ofi:shm" is libfabric's shm provider):
 *               1 if libfabric offers it with the RDM endpoints, RMA and
 *               atomics symheap needs (symheap-info says which of those
 *               symheap leaves out of its automatic choice, and why).
 * Anything else, NULL, or no libfabric: 0.  Thread-safe. */
SYM_API int sym_transport_available(const char *name);

/* The libfabric providers sym_transport_available() accepts, each once, in
 * libfabric's order, comma-separated and NUL-terminated into buf (len
 * bytes); *needed_p gets the bytes the list takes with its NUL.  No
 * sym_init() needed.  Errors: SYM_ERR_TRUNCATED (len < *needed_p: nothing
 * written; call again with a buffer that large; buf may be NULL with len
 * 0 to ask the size), SYM_ERR_UNAVAILABLE (libfabric not built in, or it
 * cannot be loaded or queried: the message says which),
 * SYM_ERR_INVALID_ARG (NULL needed_p, NULL buf with len > 0).
 * Thread-safe. */
SYM_API SYM_NODISCARD sym_status_t sym_transport_providers(char *buf, size_t len, size_t *needed_p);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_INIT_H */
