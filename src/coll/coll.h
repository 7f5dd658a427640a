/*
 * coll.h - what every collective shares: kinds, datatypes and reduction
 * kernels, the call context (validation, fingerprint, algorithm choice,
 * error handling) and message helpers over the channel.
 *
 * One file per collective (allreduce.c, broadcast.c, ...) holds its
 * algorithms, each a function of the same signature, in a table indexed by
 * sym_algorithm_t and generated from its row of coll_list.h;
 * sym_coll_select() picks the entry.  A call is checked
 * (sym_coll_prepare), its algorithm chosen and its buffers found before it
 * is numbered (sym_coll_start): every member numbers the same calls.
 */
#ifndef SYM_COLL_H
#define SYM_COLL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/chan.h"
#include "coll/coll_list.h"
#include "coll/team.h"
#include "core/internal.h"

/* SYM_COLL_BARRIER = 1, ...: one per row of coll_list.h (0 is no call). */
enum sym_coll_kind {
    SYM_COLL_NO_KIND = 0,
#define SYM_COLL_KIND_(KIND, name, env, algos, shape, ...) SYM_COLL_##KIND,
    SYM_COLL_LIST(SYM_COLL_KIND_)
#undef SYM_COLL_KIND_
        SYM_COLL_KIND_COUNT
};

const char *sym_coll_kind_name(uint32_t kind);

/* The last value of sym_algorithm_t. */
#define SYM_ALGO_LAST SYM_ALGO_DIRECT

/* ---- datatypes and reductions (reduce_ops.c) ---- */

bool sym_datatype_valid(sym_datatype_t dt);
bool sym_datatype_is_float(sym_datatype_t dt);

/* The type a reduction accumulates in: float for float16/bfloat16, 64-bit
 * for integer averages (no overflow before the division), else dt. */
sym_datatype_t sym_acc_type(sym_datatype_t dt, sym_op_t op);

/* inout[i] = inout[i] op in[i] for n elements of acc type `dt`.  AVG
 * reduces as SUM; sym_reduce_finish divides. */
void sym_reduce_apply(sym_datatype_t dt, sym_op_t op, void *inout, const void *in, size_t n);

/* dst[i] = a[i] op b[i] (dst may alias a or b). */
void sym_reduce_apply3(sym_datatype_t dt, sym_op_t op, void *dst, const void *a, const void *b,
                       size_t n);

/* Convert n elements between a datatype and its accumulation type
 * (identity copies when they are the same; float16/bfloat16 round to
 * nearest even; integer AVG divides by npes first when op is AVG). */
void sym_to_acc(sym_datatype_t dt, sym_datatype_t acc, void *dst, const void *src, size_t n);
void sym_from_acc(sym_datatype_t dt, sym_datatype_t acc, sym_op_t op, int npes, void *dst,
                  const void *src, size_t n);

/* True when this job's PEs outnumber the host's CPUs (one host): every
 * dependent hop may then wait for a context switch, so automatic choices
 * prefer the fewest sequential steps over bandwidth-optimal schedules
 * (bench_coll at 4 and 8 PEs on 2 cores: the crowded ladders of
 * coll_list.h).  Decided alike on every
 * PE (sym_rt.central_barrier), as the fingerprint's algorithm must be. */
static inline bool sym_coll_crowded(void)
{
    return sym_rt.central_barrier;
}

/* ---- the call context ---- */

/* Check a call (the team, that it is not broken, datatype, op, count,
 * root, options) and fill its context and fingerprint without numbering
 * it: a call that fails before sym_coll_start never happened, on any PE.
 * Earlier non-blocking calls on the team finish first.  Returns SYM_OK or
 * the recorded error. */
sym_status_t sym_coll_prepare(struct sym_coll *c, const char *name, sym_team_t team,
                              enum sym_coll_kind kind, sym_datatype_t dt, sym_op_t op, size_t count,
                              int root, const sym_coll_opts_t *opts);

/* The algorithm to run: the per-call option, else SYMHEAP_<KIND>_ALGORITHM
 * (parsed at init), else the automatic choice for a call of `size` bytes
 * (tuning.h: the kind's ladder for the team's regime), among the kind's
 * algorithms (coll_list.h).  An unsupported explicit choice is
 * SYM_ERR_INVALID_ARG; the direct algorithm where it cannot run falls back
 * to the automatic choice.  Stores the choice in the fingerprint. */
sym_status_t sym_coll_select(struct sym_coll *c, const sym_coll_opts_t *opts, uint64_t size);

/* Number a prepared (and selected) call: from here on it is the team's
 * next collective, and every way out goes through sym_coll_end. */
void sym_coll_start(struct sym_coll *c);

/* sym_coll_prepare and sym_coll_start, for calls whose algorithm the
 * caller sets itself (the barriers and the split inside team.c). */
sym_status_t sym_coll_begin(struct sym_coll *c, const char *name, sym_team_t team,
                            enum sym_coll_kind kind, sym_datatype_t dt, sym_op_t op, size_t count,
                            int root, const sym_coll_opts_t *opts);

/* At init (sym_teams_init): parse every SYMHEAP_<KIND>_ALGORITHM once and
 * hand the world barrier its algorithm (core/barrier.c). */
sym_status_t sym_coll_config_init(const struct sym_config *cfg);

/* The world barrier's algorithm table and choice (team_barrier.c). */
void sym_barrier_all_choose(sym_algorithm_t env_choice);

/* Finish a call: on failure the team is broken (and the error is kept). */
sym_status_t sym_coll_end(struct sym_coll *c, sym_status_t st);

/* ---- messages over the channel (coll_msg.c) ---- */

/* Chunks needed for a message of `bytes` (at least one, so even an empty
 * message carries the fingerprint). */
static inline size_t sym_msg_chunks(const struct sym_coll *c, size_t bytes)
{
    size_t ck = c->team->chan.chunk;
    return bytes ? (bytes + ck - 1) / ck : 1;
}

/* Byte range of chunk i of a message of `bytes`. */
static inline size_t sym_msg_chunk_len(const struct sym_coll *c, size_t bytes, size_t i)
{
    size_t ck = c->team->chan.chunk, off = i * ck;
    return off >= bytes ? 0 : (bytes - off < ck ? bytes - off : ck);
}

/* Whole-message send and receive-by-copy (blocking, chunked). */
sym_status_t sym_msg_send(struct sym_coll *c, int dst, const void *buf, size_t bytes);
sym_status_t sym_msg_recv(struct sym_coll *c, int src, void *buf, size_t bytes);

/* Receive chunk i of a message of `bytes` from src and reduce it into
 * acc (acc type elements of size esize). */
sym_status_t sym_msg_recv_reduce_chunk(struct sym_coll *c, int src, void *acc, size_t bytes,
                                       size_t i, sym_datatype_t dt, sym_op_t op, size_t esize);

/* Receive chunk i of a message of `bytes` from src and store a op chunk
 * into dst (both offset by i*chunk; dst may be a, never the chunk). */
sym_status_t sym_msg_recv_reduce3_chunk(struct sym_coll *c, int src, void *dst, const void *a,
                                        size_t bytes, size_t i, sym_datatype_t dt, sym_op_t op,
                                        size_t esize);

/* Receive chunk i of a message of `bytes` from src into buf + i*chunk. */
sym_status_t sym_msg_recv_chunk(struct sym_coll *c, int src, void *buf, size_t bytes, size_t i);

/* Chunk i of the rank-order reduction x_0 op x_1 op ... op x_{n-1} into
 * dst (a `bytes`-byte vector): this PE's term is `own` (this chunk only),
 * every other member's arrives from it.  Every PE running it computes the
 * same expression, so the naive algorithms agree bit for bit.  `own` may be
 * dst's chunk i itself (in place) on members 0 and 1 only: the others
 * write dst before they read their own term. */
sym_status_t sym_msg_reduce_chunk_in_order(struct sym_coll *c, void *dst, const void *own,
                                           size_t bytes, size_t i, sym_datatype_t dt, sym_op_t op);

/* Send chunk i of a message of `bytes` starting at buf. */
sym_status_t sym_msg_send_chunk(struct sym_coll *c, int dst, const void *buf, size_t bytes,
                                size_t i);

/* True if [a, a+na) and [b, b+nb) overlap. */
static inline bool sym_overlaps(const void *a, size_t na, const void *b, size_t nb)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return na && nb && x < y + nb && y < x + na;
}

#endif /* SYM_COLL_H */
