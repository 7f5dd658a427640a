/*
 * internal.h - what the core layer offers the layers above it (coll, api,
 * the tools, the tests): the runtime's life cycle, read-only accessors of
 * its state, the offset-addressed one-sided helpers and the transports'
 * progress.  Not installed.
 *
 * The runtime state itself (struct sym_runtime, core/runtime.h) is private
 * to src/core; src/coll still reads it directly until it is converted to
 * the accessors below, so this header includes it there.
 *
 * Threads: the life cycle (sym_core_configure .. sym_core_close) runs in
 * sym_init and sym_finalize only.  The accessors read state that does not
 * change between them: any thread may call them.
 */
#ifndef SYM_INTERNAL_H
#define SYM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/config.h"
#include "base/error.h"
#include "base/heap_layout.h"
#include "base/wait.h"
#include "core/alloc.h"
#include "core/barrier.h"
#include "symheap.h"
#include "transport.h"

#if defined(SYM_LAYER_CORE) || defined(SYM_LAYER_COLL)
#include "core/runtime.h"
#endif

struct sym_boot;
struct sym_job_ctrl;
struct sym_steps;

/* ---- the runtime's life cycle (runtime.c), in the order sym_init calls it
 * (src/api/init.c hands each step what the layers around it made). */

/* Load the job's settings and every transport class's own, tell the wait
 * loop, and prepare the global variables (before the bootstrap starts any
 * thread).  `thread_level`: the level sym_init_thread asked for.  Errors:
 * SYM_ERR_CONFIG naming the variable, SYM_ERR_UNAVAILABLE (SYMHEAP_TRANSPORT
 * names a transport this build lacks). */
sym_status_t sym_core_configure(int thread_level);
/* The bootstrap sym_init opened from the settings: this PE's number, the
 * job size and its control segment; the runtime owns `boot` from now on. */
void sym_core_join(struct sym_boot *boot);
/* Collective: meet the peers (one exchange of cards, which also checks that
 * every PE lays out its heap alike), choose the heap size, create this PE's
 * heap and global variables, open the transports (`init`: sym_init's
 * deadline, for their own waits), set up the allocator, and decide what
 * every PE decides alike (crowded host, world barrier algorithm); each
 * step's end is noted in `steps` (SYMHEAP_DEBUG's account of init).
 * Errors: the steps'. */
sym_status_t sym_core_open(struct sym_deadline *init, struct sym_steps *steps);
/* Everything is up: this PE runs (its state word says so). */
void sym_core_ready(void);
/* sym_finalize: from now on the library is not initialised. */
void sym_core_leave(void);
/* Collective, in sym_finalize once every PE has drained: transports with
 * manual progress complete the peers' last operations on this PE, so their
 * endpoints close only after a bootstrap barrier.  Errors: the quiet's and
 * the bootstrap's. */
sym_status_t sym_core_drain(const char *op);
/* This PE's life-cycle state word (SYM_PE_*: the launcher's and the heap
 * control block's) */
void sym_core_set_state(int state);
/* Release everything in reverse order (also after a failed sym_init); the
 * settings stay for late messages.  `finalized`: sym_finalize ends here. */
void sym_core_close(bool finalized);

/* ---- read-only accessors (state.c) ---------------------------------------- */

/* Whether sym_init completed (and sym_finalize has not run); its slow path
 * records SYM_ERR_NOT_INITIALIZED naming `op`. */
bool sym_core_initialized(void);
sym_status_t sym_core_check_init(const char *op);
/* Initialised and 0 <= pe < npes, else the error recorded naming `op`. */
sym_status_t sym_core_check_pe(const char *op, int pe);
int sym_core_me(void);   /* -1 when not initialised */
int sym_core_npes(void); /* -1 when not initialised */
int sym_core_thread_level(void);
const struct sym_config *sym_core_config(void);
/* The loaded settings of transport class `cls` (sym_transport_classes),
 * or NULL. */
const void *sym_core_transport_settings(const struct sym_transport_class *cls);
uint8_t *sym_core_base(void); /* my heap mapping */
const struct sym_heap_layout *sym_core_layout(void);
const struct sym_region *sym_core_globals(void); /* my global variables */
/* Direct mapping of PE pe's heap (then its global variables), or NULL;
 * valid for offsets below sym_core_direct_end(). */
uint8_t *sym_core_peer_base(int pe);
uint64_t sym_core_direct_end(void);
/* sym_core_peer_base(pe) + off when that is valid, else NULL. */
void *sym_core_direct(int pe, uint64_t off);
/* The transport reaching PE pe. */
struct sym_transport *sym_core_transport(int pe);
const int *sym_core_peer_pid(void); /* [npes] */
struct sym_boot *sym_core_boot(void);
struct sym_job_ctrl *sym_core_job(void); /* the launcher's control segment, or NULL */
bool sym_core_oversubscribed(void);      /* more PEs on this host than its cores */
/* The world barrier runs the central algorithm (the same on every PE). */
bool sym_core_central_barrier(void);
/* Whether PE pe's memory is reached by loads and stores (mapped, or to be
 * mapped on its first use), without mapping it. */
bool sym_pe_direct(int pe);
/* Whether sym_core_direct(pe, ..) points into a private stand-in: PE pe
 * ended before this PE first used it, so its memory reads as zeros instead
 * of what it wrote.  A reader that needs what the peer wrote (not a flag
 * that only grows, whose zero means "not yet") takes the peer as lost. */
bool sym_pe_stand_in(int pe);

/* ---- the transports in use (transports.c) ------------------------------- */

/* Before the peers meet, once this PE's memory exists: each class's
 * prepare step (shm listens on its socket).  Errors: the classes'. */
sym_status_t sym_transports_prepare(void);
/* Collective: choose per peer the first class in order that can reach it
 * (SYMHEAP_TRANSPORT restricts the list; this PE itself is reached by the
 * first class that can reach it, whatever the restriction), create the
 * transports over this PE's memory, fill peer_base, peer_tp and what
 * derives from the transports' capabilities.  same_host[pe]: PE pe runs on
 * this host; dl: sym_init's deadline, for the transports' own waits. */
sym_status_t sym_transports_open(struct sym_boot *boot, const bool *same_host,
                                 struct sym_deadline *dl);
/* Release every transport, newest first (and any prepared, unused). */
void sym_transports_close(void);
/* Whether a transport in use asks that this PE's memfds stay open for the
 * job (SYM_TP_CAP_KEEPS_FDS: its peers reopen them). */
bool sym_transports_keep_fds(void);
/* A peer that runs but that a transport in use could not reach on its
 * first use, or -1, with the words that follow "PE n" in `how`; cheap when
 * there is none.  Any thread. */
int sym_transports_unreachable(char *how, size_t len);

/* ---- internal one-sided helpers (rma.c, barrier.c) ----------------------
 * Each takes the deadline of the calling operation, for the transport's
 * own waits (a collective passes its call's, so a transport that waits for
 * a member is bounded by the collective's timeout). */

/* Atomically store a 64-bit flag at heap offset `off` on `pe`, with
 * release ordering relative to this PE's earlier puts. */
sym_status_t sym_flag_set_dl(int pe, uint64_t off, uint64_t value, struct sym_deadline *dl);

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
