/*
 * algorithms.h - every collective algorithm, one signature per collective.
 *
 * Algorithms receive a started call (struct sym_coll, fingerprint filled)
 * and buffers the public wrapper has already normalised: reductions run in
 * the accumulation type, and src either equals dst or does not overlap it.
 * `<collective>_<algorithm>` names, one file per collective.
 */
#ifndef SYM_COLL_ALGORITHMS_H
#define SYM_COLL_ALGORITHMS_H

#include "coll/coll.h"
#include "coll/coll_check.h"
#include "core/barrier.h"

typedef sym_status_t (*sym_barrier_fn)(struct sym_coll *c);
sym_status_t sym_barrier_naive(struct sym_coll *c);
sym_status_t sym_barrier_tree(struct sym_coll *c);
sym_status_t sym_barrier_rd(struct sym_coll *c);

typedef sym_status_t (*sym_allreduce_fn)(struct sym_coll *c, void *dst, const void *src,
                                         size_t count, sym_datatype_t dt, sym_op_t op);
sym_status_t sym_allreduce_naive(struct sym_coll *c, void *dst, const void *src, size_t count,
                                 sym_datatype_t dt, sym_op_t op);
sym_status_t sym_allreduce_ring(struct sym_coll *c, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, sym_op_t op);
sym_status_t sym_allreduce_rd(struct sym_coll *c, void *dst, const void *src, size_t count,
                              sym_datatype_t dt, sym_op_t op);
sym_status_t sym_allreduce_tree(struct sym_coll *c, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, sym_op_t op);
sym_status_t sym_allreduce_direct(struct sym_coll *c, void *dst, const void *src, size_t count,
                                  sym_datatype_t dt, sym_op_t op);

/* buf is the source at root, the destination elsewhere. */
typedef sym_status_t (*sym_broadcast_fn)(struct sym_coll *c, void *buf, size_t bytes, int root);
sym_status_t sym_broadcast_naive(struct sym_coll *c, void *buf, size_t bytes, int root);
sym_status_t sym_broadcast_ring(struct sym_coll *c, void *buf, size_t bytes, int root);
sym_status_t sym_broadcast_tree(struct sym_coll *c, void *buf, size_t bytes, int root);
sym_status_t sym_broadcast_direct(struct sym_coll *c, void *buf, size_t bytes, int root);

/* dst is only written at root (and only used there). */
typedef sym_status_t (*sym_reduce_fn)(struct sym_coll *c, void *dst, const void *src, size_t count,
                                      sym_datatype_t dt, sym_op_t op, int root);
sym_status_t sym_reduce_naive(struct sym_coll *c, void *dst, const void *src, size_t count,
                              sym_datatype_t dt, sym_op_t op, int root);
sym_status_t sym_reduce_ring(struct sym_coll *c, void *dst, const void *src, size_t count,
                             sym_datatype_t dt, sym_op_t op, int root);
sym_status_t sym_reduce_tree(struct sym_coll *c, void *dst, const void *src, size_t count,
                             sym_datatype_t dt, sym_op_t op, int root);
sym_status_t sym_reduce_direct(struct sym_coll *c, void *dst, const void *src, size_t count,
                               sym_datatype_t dt, sym_op_t op, int root);

/* dst = this PE's combined block (count elements); src = n blocks. */
typedef sym_status_t (*sym_reduce_scatter_fn)(struct sym_coll *c, void *dst, const void *src,
                                              size_t count, sym_datatype_t dt, sym_op_t op);
sym_status_t sym_reduce_scatter_naive(struct sym_coll *c, void *dst, const void *src, size_t count,
                                      sym_datatype_t dt, sym_op_t op);
sym_status_t sym_reduce_scatter_ring(struct sym_coll *c, void *dst, const void *src, size_t count,
                                     sym_datatype_t dt, sym_op_t op);
sym_status_t sym_reduce_scatter_direct(struct sym_coll *c, void *dst, const void *src, size_t count,
                                       sym_datatype_t dt, sym_op_t op);

/* Gathers move bytes: bytes[i] from member i lands at dst + displ[i]. */
typedef sym_status_t (*sym_all_gatherv_fn)(struct sym_coll *c, void *dst, const void *src,
                                           const size_t *bytes, const size_t *displ);
sym_status_t sym_all_gatherv_naive(struct sym_coll *c, void *dst, const void *src,
                                   const size_t *bytes, const size_t *displ);
sym_status_t sym_all_gatherv_ring(struct sym_coll *c, void *dst, const void *src,
                                  const size_t *bytes, const size_t *displ);
sym_status_t sym_all_gatherv_rd(struct sym_coll *c, void *dst, const void *src, const size_t *bytes,
                                const size_t *displ);
sym_status_t sym_all_gatherv_direct(struct sym_coll *c, void *dst, const void *src,
                                    const size_t *bytes, const size_t *displ);

/* sbytes[j]/sdispl[j]: what goes to member j; rbytes[i]/rdispl[i]: what
 * comes from member i. */
typedef sym_status_t (*sym_all_to_allv_fn)(struct sym_coll *c, void *dst, const size_t *rbytes,
                                           const size_t *rdispl, const void *src,
                                           const size_t *sbytes, const size_t *sdispl);
sym_status_t sym_all_to_allv_naive(struct sym_coll *c, void *dst, const size_t *rbytes,
                                   const size_t *rdispl, const void *src, const size_t *sbytes,
                                   const size_t *sdispl);
sym_status_t sym_all_to_allv_pairwise(struct sym_coll *c, void *dst, const size_t *rbytes,
                                      const size_t *rdispl, const void *src, const size_t *sbytes,
                                      const size_t *sdispl);
sym_status_t sym_all_to_allv_direct(struct sym_coll *c, void *dst, const size_t *rbytes,
                                    const size_t *rdispl, const void *src, const size_t *sbytes,
                                    const size_t *sdispl);

/* bytes per member; dst (root, n * bytes) / src (root, n * bytes). */
typedef sym_status_t (*sym_gather_fn)(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                                      int root);
sym_status_t sym_gather_naive(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                              int root);
sym_status_t sym_gather_tree(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                             int root);
sym_status_t sym_gather_direct(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                               int root);
typedef sym_gather_fn sym_scatter_fn;
sym_status_t sym_scatter_naive(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                               int root);
sym_status_t sym_scatter_tree(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                              int root);
sym_status_t sym_scatter_direct(struct sym_coll *c, void *dst, const void *src, size_t bytes,
                                int root);

/* The entry of gather and scatter after their caller is pinned: checks,
 * choice from `table`, run (gather.c). */
sym_status_t sym_rooted_move(enum sym_coll_kind kind, const sym_gather_fn *table, sym_team_t team,
                             void *dst, const void *src, size_t count, sym_datatype_t dt, int root,
                             const sym_coll_opts_t *opts);

/* Wait until every member this PE sent to has consumed everything
 * (sym_team_sync, the strict end-of-call check). */
sym_status_t sym_coll_flush_all(struct sym_coll *c);

/* The blocking collectives themselves: the public sym_<name> of each
 * (coll_serial.c) takes the team's thread lock around them. */
sym_status_t sym_barrier_nolock(sym_team_t team, const sym_coll_opts_t *opts);
sym_status_t sym_broadcast_nolock(sym_team_t team, void *buf, size_t count, sym_datatype_t dt,
                                  int root, const sym_coll_opts_t *opts);
sym_status_t sym_broadcast_v_nolock(sym_team_t team, void *buf, size_t capacity, size_t *nbytes_p,
                                    int root, const sym_coll_opts_t *opts);
sym_status_t sym_reduce_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                               sym_datatype_t dt, sym_op_t op, int root,
                               const sym_coll_opts_t *opts);
sym_status_t sym_allreduce_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                  sym_datatype_t dt, sym_op_t op, const sym_coll_opts_t *opts);
sym_status_t sym_reduce_scatter_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                       sym_datatype_t dt, sym_op_t op, const sym_coll_opts_t *opts);
sym_status_t sym_all_gather_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                   sym_datatype_t dt, const sym_coll_opts_t *opts);
sym_status_t sym_all_gatherv_nolock(sym_team_t team, void *dst, const void *src,
                                    const size_t *counts, sym_datatype_t dt,
                                    const sym_coll_opts_t *opts);
sym_status_t sym_all_to_all_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                   sym_datatype_t dt, const sym_coll_opts_t *opts);
sym_status_t sym_all_to_allv_nolock(sym_team_t team, const void *src, const size_t *send_counts,
                                    void *dst, const size_t *recv_counts, sym_datatype_t dt,
                                    const sym_coll_opts_t *opts);
sym_status_t sym_gather_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                               sym_datatype_t dt, int root, const sym_coll_opts_t *opts);
sym_status_t sym_scatter_nolock(sym_team_t team, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, int root, const sym_coll_opts_t *opts);

#endif /* SYM_COLL_ALGORITHMS_H */
