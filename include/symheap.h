/*
 * symheap.h - one-sided, SHMEM-style communication over a symmetric heap.
 *
 * Every process of a job (a "PE", processing element) maps a symmetric heap:
 * a region laid out identically on every PE, so an object sym_malloc()
 * returns sits at the same offset of every PE's heap (its address differs
 * from PE to PE): a PE names a peer's copy by its own local address, which
 * the library translates.  Remote memory is written
 * and read with one-sided puts, gets and atomics; completion and ordering are
 * controlled with sym_quiet() and sym_fence(); PEs synchronise with waits on
 * symmetric words, signals and barriers.
 *
 * Conventions used by every function below:
 * - Status: functions returning sym_status_t return SYM_OK (0) on success and
 *   a negative SYM_ERR_* code on failure.  sym_strerror() names the code;
 *   sym_last_error() returns a per-thread detail message naming the operation,
 *   the PE(s) and the sizes involved.  No function aborts the process.
 * - Addresses: "symmetric" arguments (dest of a put, src of a get, atomic and
 *   wait targets) must lie inside the user part of the symmetric heap, i.e.
 *   inside an object returned by sym_malloc() and friends, or be a global or
 *   static variable of the main executable (its .data and .bss, e.g.
 *   `static long dest[N]`: the same variable on every PE, whatever address
 *   PIE and ASLR gave it); otherwise the call fails with
 *   SYM_ERR_NOT_SYMMETRIC and nothing is transferred.  Local buffers (src of
 *   a put, dest of a get) may be any readable/writable memory.  On one host
 *   the variables are shared memory from sym_init() to sym_finalize() (after
 *   which no other PE reaches them; they keep their values); SYMHEAP_GLOBALS
 *   selects how
 *   peers reach them (see `symheap-info`).  PEs reached through libfabric
 *   (other hosts, or SYMHEAP_TRANSPORT=ofi) reach them as a second
 *   registered memory region: puts, gets, atomics and signals alike, but
 *   sym_ptr() gives no pointer.  Variables of shared libraries
 *   are not symmetric.
 * - PEs are numbered 0 .. sym_n_pes()-1; any other number is SYM_ERR_INVALID_PE.
 * - Before sym_init() (and after sym_finalize()) every function fails with
 *   SYM_ERR_NOT_INITIALIZED (pointer-returning functions return NULL, int
 *   queries return -1).
 * - Waits never block forever: each has a deadline of SYMHEAP_TIMEOUT seconds
 *   (default 60, at most SYM_TIMEOUT_MAX: one day; a timeout that is not a
 *   finite number is rejected everywhere) after which it returns
 *   SYM_ERR_TIMEOUT, and a PE that dies is
 *   reported to the PEs waiting for it as SYM_ERR_PEER_LOST within about a
 *   second.  The PE it names is the first that died of its own cause: not
 *   a survivor that exited after the library returned it an error (a lost
 *   peer, an abort, a timeout, a mismatch), while the launcher (symrun)
 *   knows of another.
 * - Thread safety (OpenSHMEM's SHMEM_THREAD_MULTIPLE, see sym_init_thread()):
 *   several threads of one PE may call the one-sided functions at once: puts,
 *   gets, single-element and strided transfers, atomics, put-with-signal,
 *   signal fetch/wait, wait_until/test, quiet, fence, sym_ptr and the
 *   queries.  quiet and fence order and complete the calling thread's
 *   operations.
 *   Blocking collectives (sym_barrier, sym_broadcast, sym_broadcast_v,
 *   sym_reduce, sym_allreduce, sym_reduce_scatter, sym_all_gather(v),
 *   sym_all_to_all(v), sym_gather, sym_scatter) on one team from several
 *   threads run one at a time: the library holds a per-team lock for each
 *   call, and another thread's call on that team waits for it (within its
 *   own timeout); calls on different teams run at the same time.  Every
 *   member must still make the same calls on a team in the same order, so
 *   threads that share a team should race only with calls alike in every
 *   argument the fingerprint checks, or order their calls themselves:
 *   otherwise members may pair different calls and report
 *   SYM_ERR_MISMATCH.  The caller's to serialise: sym_init and sym_finalize
 *   (no other thread may use symheap or write global variables while they
 *   run), allocation, team creation and destruction (with every other call
 *   on the parent and on the team), and the non-blocking collectives of a
 *   team (issued from one thread at a time; they run in issue order).  A
 *   PE's point-to-point calls run one at a time: a call made while another
 *   thread is inside one fails with SYM_ERR_INVALID_ARG.  A non-blocking
 *   collective request makes progress in the thread that issued it, or
 *   that last called sym_wait()/sym_test() on it.  sym_strerror() and
 *   sym_last_error() are always thread-safe.
 *
 * The declarations live in one header per topic under symheap/, in the
 * order below; each is self-contained, but programs include this header.
 */
#ifndef SYMHEAP_H
#define SYMHEAP_H

/* The longest timeout any call or setting accepts, in seconds (one day):
 * SYMHEAP_TIMEOUT, SYMHEAP_INIT_TIMEOUT, sym_team_set_timeout(),
 * sym_coll_opts_t.timeout_s and sym_wait_cond() reject larger values, and
 * values that are not finite numbers (infinity, NaN), with
 * SYM_ERR_CONFIG or SYM_ERR_INVALID_ARG, so every wait ends. */
#define SYM_TIMEOUT_MAX 86400.0

#include "symheap/version.h"
#include "symheap/status.h"
#include "symheap/init.h"
#include "symheap/heap.h"
#include "symheap/rma.h"
#include "symheap/amo.h"
#include "symheap/sync.h"
#include "symheap/team.h"
#include "symheap/coll.h"
#include "symheap/request.h"
#include "symheap/p2p.h"

#endif /* SYMHEAP_H */
