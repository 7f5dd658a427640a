/*
 * coll_list.h - every collective, in one list, with its tuning.
 *
 *   X(KIND, name, ENV, ALGOS, SHAPE, ROOTED, REDUCES, BLOCKS, PAIR, CROWDED, SPREAD)
 *
 *   KIND    its enum sym_coll_kind value, SYM_COLL_<KIND> (coll.h)
 *   name    what fingerprints, messages and SYMHEAP_FAULT's op= call it; the
 *           public calls are sym_<name> and, with a SHAPE, sym_i<name>
 *   ENV     SYM_ENV(field): the struct sym_config field of the
 *           SYMHEAP_<..>_ALGORITHM variable that chooses its algorithm
 *           (config_table.h), parsed once at init (coll.c); SYM_NO_ENV: none
 *   ALGOS   its algorithm list (below), or SYM_NO_ALGOS
 *   SHAPE   the argument list of its non-blocking variant sym_i<name>, which
 *           request.c defines as SYM_REQ_DEFINE_<SHAPE>; NONE: no variant
 *   ROOTED  1 if it has a root
 *   REDUCES 1 if it combines with an op
 *   BLOCKS  ONE if a member's buffer holds `count` elements, PER_MEMBER if it
 *           holds one block of `count` per member (SYM_BLOCKS_<BLOCKS>: 1, or
 *           0 for the team's size); its size is count * element * blocks,
 *           nccl-tests' "size" (all_gatherv: the total; all_to_allv: 0, as
 *           only the counts, different on every member, give its size)
 *   PAIR, CROWDED, SPREAD
 *           the automatic choice (tuning.c) in teams of 2, in teams of more
 *           on a host whose PEs outnumber its CPUs (every hop may wait for a
 *           context switch), and otherwise: a ladder "algo:upto,algo:upto,
 *           algo", the first step whose size bound holds wins, and a step of
 *           the direct algorithm is skipped where it cannot run.  SYMHEAP_COLL_
 *           TUNING overrides any of them, documented in docs/collectives.md.
 *           The values come from bench/compare runs (bench/RESULTS.md).
 *
 * From it: the kind enum and names (coll.h, coll.c), each kind's supported
 * algorithms, properties and environment choice (coll.c), its automatic
 * choice (tuning.c), the SYMHEAP_FAULT op names (coll.c registers them with
 * base/fault.c) and the sym_i* wrappers and their dispatch (request.c).
 * Consumers name the columns they use and take the rest as `...` (the
 * ladders are the last three, which SYM_BROADCAST_LADDERS fills at once).
 *
 * An algorithm list is A(family, ALGO, algo) per algorithm: the function
 * sym_<family>_<algo> (defined in the collective's file), of the family's
 * signature sym_<family>_fn (algorithms.h), at index SYM_ALGO_<ALGO> of the
 * family's table.  Kinds of one family (all_gather and all_gatherv,
 * all_to_all and all_to_allv, broadcast and broadcast_v) share one list
 * and one variable.
 *
 * barrier_all is the world barrier (sym_barrier_all, sym_sync_all, and the
 * barriers of sym_malloc/sym_free/sym_finalize): its algorithms are the
 * sync-area protocols of src/core/barrier.c, which core runs and chooses
 * for itself; this list hands it the SYMHEAP_BARRIER_ALGORITHM choice at
 * init (coll.c).  team_split has no choice to make.
 */
#ifndef SYM_COLL_LIST_H
#define SYM_COLL_LIST_H

/* clang-format off */
#define SYM_BROADCAST_LADDERS                                                                  \
    "naive:256K,ring", "naive:256,tree:64K,naive:1M,direct,ring", "tree:64K,direct,ring"
#define SYM_COLL_LIST(X)                                                                      \
    /* KIND, name, ENV, ALGOS, SHAPE,                                                          \
     *   ROOTED, REDUCES, BLOCKS, PAIR, CROWDED, SPREAD */                                     \
    X(BARRIER, barrier, SYM_ENV(barrier_algorithm), SYM_BARRIER_ALGOS, BARRIER,               \
      0, 0, ONE, "rd", "rd", "rd")                                                            \
    X(BROADCAST, broadcast, SYM_ENV(broadcast_algorithm), SYM_BROADCAST_ALGOS, BROADCAST,     \
      1, 0, ONE, SYM_BROADCAST_LADDERS)                                                       \
    X(REDUCE, reduce, SYM_ENV(reduce_algorithm), SYM_REDUCE_ALGOS, ROOTED_REDUCTION,          \
      1, 1, ONE, "naive", "naive", "tree:64K,direct,ring")                                    \
    X(ALLREDUCE, allreduce, SYM_ENV(allreduce_algorithm), SYM_ALLREDUCE_ALGOS, REDUCTION,     \
      0, 1, ONE, "naive:16K,rd:256K,ring", "naive:8K,rd:16K,direct:2M,ring",                  \
      "rd:8K,direct,ring")                                                                    \
    X(REDUCE_SCATTER, reduce_scatter, SYM_ENV(reduce_scatter_algorithm),                      \
      SYM_REDUCE_SCATTER_ALGOS, REDUCTION,                                                    \
      0, 1, PER_MEMBER, "naive:8K,ring", "naive:256K,direct:2M,ring",                         \
      "naive:64K,direct,ring")                                                                \
    X(ALL_GATHER, all_gather, SYM_ENV(all_gather_algorithm), SYM_ALL_GATHERV_ALGOS, MOVE,     \
      0, 0, PER_MEMBER, "naive:64K,ring", "naive:64K,direct,naive",                           \
      "rd:64K,direct,ring")                                                                   \
    X(ALL_GATHERV, all_gatherv, SYM_ENV(all_gather_algorithm), SYM_ALL_GATHERV_ALGOS, GATHERV,\
      0, 0, ONE, "naive:64K,ring", "naive:64K,direct,naive", "rd:64K,direct,ring")            \
    X(ALL_TO_ALL, all_to_all, SYM_ENV(all_to_all_algorithm), SYM_ALL_TO_ALLV_ALGOS, MOVE,     \
      0, 0, PER_MEMBER, "naive:256K,pairwise", "naive:64K,direct,naive",                      \
      "naive:64K,direct,pairwise")                                                            \
    X(ALL_TO_ALLV, all_to_allv, SYM_ENV(all_to_all_algorithm), SYM_ALL_TO_ALLV_ALGOS,         \
      ALL_TO_ALLV, 0, 0, ONE, "pairwise", "direct,pairwise", "direct,pairwise")               \
    X(GATHER, gather, SYM_ENV(gather_algorithm), SYM_GATHER_ALGOS, ROOTED_MOVE,               \
      1, 0, PER_MEMBER, "naive", "naive:2M,direct,naive", "tree:16K,direct,naive")            \
    X(SCATTER, scatter, SYM_ENV(scatter_algorithm), SYM_SCATTER_ALGOS, ROOTED_MOVE,           \
      1, 0, PER_MEMBER, "naive", "naive:2M,direct,naive", "tree:16K,direct,naive")            \
    X(TEAM_SPLIT, team_split, SYM_NO_ENV, SYM_NO_ALGOS, NONE, 0, 0, ONE, "", "", "")          \
    X(BARRIER_ALL, barrier_all, SYM_ENV(barrier_algorithm), SYM_BARRIER_ALL_ALGOS, NONE,      \
      0, 0, ONE, "", "", "")                                                                  \
    X(BROADCAST_V, broadcast_v, SYM_ENV(broadcast_algorithm), SYM_BROADCAST_ALGOS,            \
      BROADCAST_V, 1, 0, ONE, SYM_BROADCAST_LADDERS)
/* clang-format on */

/* BLOCKS, as SYM_BLOCKS_##blocks: 1, or 0 for as many as the team has members */
#define SYM_BLOCKS_ONE        1
#define SYM_BLOCKS_PER_MEMBER 0

/* naive: everyone reports to member 0, which releases everyone; tree:
 * binomial fan-in and fan-out; rd: dissemination (team_barrier.c) */
#define SYM_BARRIER_ALGOS(A) A(barrier, NAIVE, naive) A(barrier, TREE, tree) A(barrier, RD, rd)
#define SYM_BROADCAST_ALGOS(A)                                                                     \
    A(broadcast, NAIVE, naive)                                                                     \
    A(broadcast, RING, ring) A(broadcast, TREE, tree) A(broadcast, DIRECT, direct)
#define SYM_REDUCE_ALGOS(A)                                                                        \
    A(reduce, NAIVE, naive) A(reduce, RING, ring) A(reduce, TREE, tree) A(reduce, DIRECT, direct)
#define SYM_ALLREDUCE_ALGOS(A)                                                                     \
    A(allreduce, NAIVE, naive)                                                                     \
    A(allreduce, RING, ring)                                                                       \
    A(allreduce, TREE, tree) A(allreduce, RD, rd) A(allreduce, DIRECT, direct)
#define SYM_REDUCE_SCATTER_ALGOS(A)                                                                \
    A(reduce_scatter, NAIVE, naive) A(reduce_scatter, RING, ring) A(reduce_scatter, DIRECT, direct)
#define SYM_ALL_GATHERV_ALGOS(A)                                                                   \
    A(all_gatherv, NAIVE, naive)                                                                   \
    A(all_gatherv, RING, ring) A(all_gatherv, RD, rd) A(all_gatherv, DIRECT, direct)
#define SYM_ALL_TO_ALLV_ALGOS(A)                                                                   \
    A(all_to_allv, NAIVE, naive) A(all_to_allv, PAIRWISE, pairwise) A(all_to_allv, DIRECT, direct)
#define SYM_GATHER_ALGOS(A) A(gather, NAIVE, naive) A(gather, TREE, tree) A(gather, DIRECT, direct)
#define SYM_SCATTER_ALGOS(A)                                                                       \
    A(scatter, NAIVE, naive) A(scatter, TREE, tree) A(scatter, DIRECT, direct)
/* naive: a central arrival counter on PE 0 released by the last arrival;
 * rd: dissemination over the sync area's round flags (core/barrier.c) */
#define SYM_BARRIER_ALL_ALGOS(A) A(barrier_all, NAIVE, naive) A(barrier_all, RD, rd)
#define SYM_NO_ALGOS(A)

/* ALGOS(SYM_ALGO_ENTRY) is the body of a family's table. */
#define SYM_ALGO_ENTRY(family, ALGO, algo) [SYM_ALGO_##ALGO] = sym_##family##_##algo,
/* ALGOS(SYM_ALGO_BIT) 0u is the mask (1 << algorithm) of a list. */
#define SYM_ALGO_BIT(family, ALGO, algo) (1u << SYM_ALGO_##ALGO) |

#endif /* SYM_COLL_LIST_H */
