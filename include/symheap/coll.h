/*
 * symheap/coll.h - barriers and the blocking collectives (broadcast, reductions,
 * gathers, all-to-all), their datatypes, ops, algorithms and options.
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_COLL_H
#define SYMHEAP_COLL_H

#include <stddef.h>
#include <stdint.h>
#include "status.h"
#include "team.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Barriers                                                                  */
/* ------------------------------------------------------------------------ */

/* Complete all of this PE's outstanding operations (as sym_quiet()), then
 * wait until every PE has entered the barrier.  Collective over all PEs.
 * Errors: SYM_ERR_TIMEOUT (names the PE not arrived), SYM_ERR_PEER_LOST
 * (names the dead PE), SYM_ERR_ABORTED, SYM_ERR_MISMATCH (on every PE, when
 * a PE met it in sym_finalize or a collective allocation call instead: the
 * world barrier carries each call's fingerprint, see sym_malloc). */
SYM_API SYM_NODISCARD sym_status_t sym_barrier_all(void);

/* Wait until every PE has entered; unlike sym_barrier_all() it does not
 * complete outstanding non-blocking operations first.  Errors as
 * sym_barrier_all(). */
SYM_API SYM_NODISCARD sym_status_t sym_sync_all(void);

/* ------------------------------------------------------------------------ */
/* Collectives                                                               */
/* ------------------------------------------------------------------------ */
/*
 * Every collective is called by every member of the team, with the same
 * arguments where the description says so (counts, datatype, op, root,
 * algorithm).  Buffers are ordinary local memory (they need not be
 * symmetric), may be the same (in place) or overlap, and any count is
 * allowed, including 0: data larger than the mailbox is staged through it
 * in pipelined chunks.  Reductions give bit-identical results on every PE
 * and the same bits on every run of the same algorithm.
 *
 * Completion.  A collective returns once this PE's part is done: its
 * output buffer is final and its input buffer may be reused.  A member
 * that only sends in a call (a broadcast root, a reduce or gather leaf, a
 * scatter root, ...) returns as soon as its data is in its receivers'
 * mailbox slots, without waiting for them to take it, so a loop of small
 * calls runs ahead of slow receivers, bounded by the mailbox slots of each
 * link (credits): a sender waits only for a slot it needs again.  The
 * direct algorithm (SYM_ALGO_DIRECT, members on one host) lets members read
 * each other's buffers where they lie: a member whose buffer is read in
 * place (in the symmetric heap, or by cross-memory attach) returns once
 * every reader took it; one whose data was copied into its staging area
 * returns as soon as it is copied.
 *
 * Mismatched calls.  Each call has a fingerprint (the team's call number,
 * kind, datatype, op, count, root, algorithm; with SYMHEAP_COLL_CHECK=strict
 * also the call site) that travels with every piece of its data.
 *   - No collective ever mixes data of two calls: a PE consumes only data
 *     whose fingerprint equals its own call's.
 *   - A PE that receives data of another call returns SYM_ERR_MISMATCH from
 *     that call, naming both calls, and before returning marks the team
 *     failed on every member.  Its output buffer holds nothing of the other
 *     call.
 *   - A PE that only sent in a mismatched call (a broadcast or scatter
 *     root, a reduce or gather leaf, a ring or tree member whose part ends
 *     with sends) may return SYM_OK from it.  It gets SYM_ERR_MISMATCH,
 *     naming the calls, from its next call on that team that starts after
 *     the mismatch was found (every call checks the team's state at its
 *     start and before it returns), at the latest from the call that needs
 *     a mailbox slot the failed receiver never gave back, and always from
 *     sym_team_sync(team), sym_team_destroy(team) or, for the world team,
 *     sym_finalize().
 *   - A PE that received only data of its own call may return SYM_OK too
 *     when the disagreement lies between other members (two PEs that both
 *     think they are the root, each serving some members consistently).
 *     Data a member sent that no call of its receiver takes is found by the
 *     receiver's next call on that link (whichever path it takes), or
 *     through the members' published fingerprints when a call stalls; this
 *     PE gets the error from its next call on the team after that, and
 *     always from sym_team_destroy(team) or sym_finalize(); sym_team_sync
 *     may return SYM_OK before the disagreeing members have found it.
 *   - A member that returns SYM_OK from a call has its output complete and
 *     correct for the members whose calls matched its own.
 * With SYMHEAP_COLL_CHECK=strict every call ends with a check that every
 * member made the same call, so every member of a mismatched call returns
 * SYM_ERR_MISMATCH from that call, and a PE that skipped a call whose
 * arguments equal the next one's is caught by the call sites (reported as
 * object+offset or symbol+offset of the caller).  Without it such a skip
 * is not detected: the PE's next call pairs with the others' skipped one.
 *
 * Errors common to all: SYM_ERR_INVALID_ARG (bad team, datatype, op, root,
 * NULL buffer with count > 0, a bitwise op on a floating type),
 * SYM_ERR_TIMEOUT (names the collective, its sequence number, the team and
 * the PEs not heard from), SYM_ERR_PEER_LOST, SYM_ERR_MISMATCH, and the
 * team's earlier error once it is broken.
 * Thread safety: at SYM_THREAD_MULTIPLE, calls on one team from several
 * threads run one at a time (a per-team lock; the rule is in symheap.h),
 * and calls on different teams run at the same time; below that level the
 * program makes one call at a time.
 */
typedef enum sym_datatype {
    SYM_INT8 = 1,
    SYM_INT16,
    SYM_INT32,
    SYM_INT64,
    SYM_UINT8,
    SYM_UINT16,
    SYM_UINT32,
    SYM_UINT64,
    SYM_FLOAT,
    SYM_DOUBLE,
    SYM_FLOAT16,  /* IEEE binary16, as uint16_t bits; reduced in float */
    SYM_BFLOAT16, /* bfloat16, as uint16_t bits; reduced in float */
} sym_datatype_t;

typedef enum sym_op {
    SYM_OP_SUM = 1,
    SYM_OP_PROD,
    SYM_OP_MIN,
    SYM_OP_MAX,
    SYM_OP_AVG,  /* sum / number of PEs; integers: sum in 64 bits, truncated */
    SYM_OP_BAND, /* bitwise ops: integer types only */
    SYM_OP_BOR,
    SYM_OP_BXOR,
} sym_op_t;

typedef enum sym_algorithm {
    SYM_ALGO_AUTO = 0, /* chosen by size and team size (SYMHEAP_DEBUG logs it) */
    SYM_ALGO_NAIVE,    /* every PE exchanges directly with every peer */
    SYM_ALGO_RING,     /* neighbour to neighbour, pipelined chunks */
    SYM_ALGO_TREE,     /* binomial tree */
    SYM_ALGO_RD,       /* recursive doubling (non-powers of two folded in) */
    SYM_ALGO_PAIRWISE, /* pairwise exchange (all_to_all) */
    SYM_ALGO_DIRECT,   /* members on one host read each other's buffers where they lie
                        * (shared memory, cross-memory attach, or a copy made once) */
} sym_algorithm_t;

/* Per-call options; pass NULL (or zero every field) for the defaults. */
typedef struct sym_coll_opts {
    sym_algorithm_t algorithm; /* AUTO: SYMHEAP_<COLL>_ALGORITHM, else automatic */
    double timeout_s; /* > 0: deadline of this call, at most SYM_TIMEOUT_MAX; 0: the team's;
                       * not a finite number: SYM_ERR_INVALID_ARG */
    int symmetric;    /* nonzero: the caller's word that every member's buffers of this call
                       * are in the symmetric heap (OpenSHMEM's rule), so the automatic choice
                       * may read them where they lie from a smaller size on (direct.symmetric_min
                       * of SYMHEAP_COLL_TUNING).  A hint: any buffer is still handled correctly.
                       * Like the other fields, the same on every member. */
} sym_coll_opts_t;

/* Bytes of one element of `dt` (0 for an invalid datatype). */
SYM_API size_t sym_datatype_size(sym_datatype_t dt);

/* Printable names: "int32", "sum", "ring". */
SYM_API const char *sym_datatype_name(sym_datatype_t dt);
SYM_API const char *sym_op_name(sym_op_t op);
SYM_API const char *sym_algorithm_name(sym_algorithm_t algo);

/* Return when every member has entered.  Algorithms: rd (dissemination,
 * the default), naive (everyone reports to member 0, which releases all),
 * tree (binomial fan-in and fan-out). */
SYM_API SYM_NODISCARD sym_status_t sym_barrier(sym_team_t team, const sym_coll_opts_t *opts);

/* Copy `count` elements of buf at `root` (team number) into buf on every
 * member.  Algorithms: naive, ring (pipelined chain), tree.  The root (and
 * with ring or tree a member whose part ends with sends) returns once its
 * data is in its receivers' mailbox slots (see "Completion" above). */
SYM_API SYM_NODISCARD sym_status_t sym_broadcast(sym_team_t team, void *buf, size_t count,
                                                 sym_datatype_t dt, int root,
                                                 const sym_coll_opts_t *opts);

/* A broadcast that carries its length, in bytes.  At `root`, *nbytes_p is
 * the length of the message in buf (capacity is not used there); every
 * other member passes a buffer of `capacity` bytes and learns the length
 * in *nbytes_p.  A member whose capacity is too small gets
 * SYM_ERR_TRUNCATED with the length needed in *nbytes_p and nothing
 * written into buf; the call still completes on every member (it forwards
 * the data others need from a buffer of its own), so the others return
 * SYM_OK and the team stays usable.  Algorithms as sym_broadcast (the
 * automatic choice made by the length, which every member learns first),
 * eager as they are.  The fingerprint carries no count: members
 * agree on the length by receiving it.  Errors: as every collective, a NULL
 * nbytes_p or a NULL buffer for a non-zero length or capacity being
 * SYM_ERR_INVALID_ARG on that PE only (the others cannot know and time
 * out); SYM_ERR_TRUNCATED; SYM_ERR_NO_MEMORY (a member whose buffer is too
 * small could not get one to forward from). */
SYM_API SYM_NODISCARD sym_status_t sym_broadcast_v(sym_team_t team, void *buf, size_t capacity,
                                                   size_t *nbytes_p, int root,
                                                   const sym_coll_opts_t *opts);

/* Combine `src` of every member element-wise with `op` into `dst` at `root`
 * (dst is ignored elsewhere and may be NULL there).  Algorithms: naive,
 * ring, tree.  A NULL dst at the root is SYM_ERR_INVALID_ARG there only:
 * the other members cannot know and time out.  Members that only send
 * return without waiting for the root, as in sym_broadcast. */
SYM_API SYM_NODISCARD sym_status_t sym_reduce(sym_team_t team, void *dst, const void *src,
                                              size_t count, sym_datatype_t dt, sym_op_t op,
                                              int root, const sym_coll_opts_t *opts);

/* Combine `src` of every member into `dst` on every member.  Algorithms:
 * naive, ring (reduce-scatter + all-gather), tree (reduce + broadcast),
 * rd. */
SYM_API SYM_NODISCARD sym_status_t sym_allreduce(sym_team_t team, void *dst, const void *src,
                                                 size_t count, sym_datatype_t dt, sym_op_t op,
                                                 const sym_coll_opts_t *opts);

/* src holds n blocks of `count` elements; member i gets in dst the combined
 * block i.  Algorithms: naive, ring. */
SYM_API SYM_NODISCARD sym_status_t sym_reduce_scatter(sym_team_t team, void *dst, const void *src,
                                                      size_t count, sym_datatype_t dt, sym_op_t op,
                                                      const sym_coll_opts_t *opts);

/* Destination sizes (all_gather, all_gatherv, all_to_all, all_to_allv,
 * and gather at the root): how many elements land in dst follows from this
 * member's own arguments alone: n * count, the sum of counts, the sum of
 * recv_counts.  A dst of that size is always enough; nothing another
 * member passes can make the call write more: members whose sizes
 * disagree (other counts in all_gatherv, a block larger than its receiver's
 * recv_counts says in all_to_allv, another count) get SYM_ERR_MISMATCH,
 * and no block of a size the receiver did not expect is written.  So
 * these calls take no separate capacity: size dst from the same numbers
 * you pass. */

/* dst (n * count elements) receives every member's `count`-element src in
 * team order.  Algorithms: naive, ring, rd. */
SYM_API SYM_NODISCARD sym_status_t sym_all_gather(sym_team_t team, void *dst, const void *src,
                                                  size_t count, sym_datatype_t dt,
                                                  const sym_coll_opts_t *opts);

/* Like sym_all_gather with counts[i] elements from member i (the same array
 * on every member, checked); dst receives them packed in team order.
 * Algorithms: naive, ring, rd. */
SYM_API SYM_NODISCARD sym_status_t sym_all_gatherv(sym_team_t team, void *dst, const void *src,
                                                   const size_t *counts, sym_datatype_t dt,
                                                   const sym_coll_opts_t *opts);

/* src holds n blocks of `count` elements, block j for member j; dst receives
 * block i from every member i, in team order.  Algorithms: naive, pairwise. */
SYM_API SYM_NODISCARD sym_status_t sym_all_to_all(sym_team_t team, void *dst, const void *src,
                                                  size_t count, sym_datatype_t dt,
                                                  const sym_coll_opts_t *opts);

/* Uneven all-to-all, send side first (MPI's and torch's order):
 * send_counts[j] elements of src (packed in team order) go to member j;
 * recv_counts[i] elements from member i land packed in dst.  What member A
 * sends to B must equal what B expects from A: otherwise both return
 * SYM_ERR_MISMATCH and nothing of that block is written.
 * Algorithms: naive, pairwise. */
SYM_API SYM_NODISCARD sym_status_t sym_all_to_allv(sym_team_t team, const void *src,
                                                   const size_t *send_counts, void *dst,
                                                   const size_t *recv_counts, sym_datatype_t dt,
                                                   const sym_coll_opts_t *opts);

/* Every member's `count` elements land in dst (n * count, team order) at
 * root.  Algorithms: naive, tree. */
SYM_API SYM_NODISCARD sym_status_t sym_gather(sym_team_t team, void *dst, const void *src,
                                              size_t count, sym_datatype_t dt, int root,
                                              const sym_coll_opts_t *opts);

/* Block i of root's src (n * count elements) lands in dst on member i.
 * Algorithms: naive, tree. */
SYM_API SYM_NODISCARD sym_status_t sym_scatter(sym_team_t team, void *dst, const void *src,
                                               size_t count, sym_datatype_t dt, int root,
                                               const sym_coll_opts_t *opts);

/* ------------------------------------------------------------------------ */
/* Helpers                                                                   */
/* ------------------------------------------------------------------------ */

/* The balanced partition the collectives split a vector by (the blocks of
 * the ring allreduce and ring reduce): `total` elements in `nparts` parts,
 * in order, part p holding total / nparts elements, one more for each of
 * the first total % nparts parts.  sym_block_count is part p's size (0 for
 * p outside 0..nparts-1); sym_block_start its first element, also for
 * p == nparts (the end: total).  Anything else, or nparts < 1, gives 0.
 * Pure functions: thread-safe, usable before sym_init(). */
SYM_API size_t sym_block_count(size_t total, int nparts, int part);
SYM_API size_t sym_block_start(size_t total, int nparts, int part);

/* SYM_FLOAT16 (IEEE binary16) and SYM_BFLOAT16 elements are uint16_t bits;
 * these convert them exactly as the reductions do.  From float: round to
 * nearest, ties to even; past the largest finite value: infinity (binary16
 * from 65520 on); below the smallest subnormal's half: signed zero;
 * subnormals kept.  To float: exact for every input.  Infinities keep
 * their sign; a NaN stays a NaN with its sign and the top bits of its
 * payload, made quiet.  Pure functions: thread-safe, usable before
 * sym_init(). */
SYM_API uint16_t sym_f16_from_float(float value);
SYM_API float sym_float_from_f16(uint16_t bits);
SYM_API uint16_t sym_bf16_from_float(float value);
SYM_API float sym_float_from_bf16(uint16_t bits);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_COLL_H */
