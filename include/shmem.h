/*
 * shmem.h - the OpenSHMEM 1.5 C API of symheap.
 *
 * A thin layer over the native API (symheap.h): an OpenSHMEM program
 * compiles against this header unchanged (`symcc prog.c`, or
 * `cc prog.c $(pkg-config --cflags --libs symheap)`) and runs under
 * `symrun -np N ./a.out`.
 *
 * Every typed routine family (shmem_TYPENAME_put, shmem_TYPENAME_atomic_add,
 * shmem_TYPENAME_sum_reduce, ...) is declared from the one type table
 * SYMSHMEM_TYPES_ below, and so are the C11 type-generic selections; the
 * library defines them from the same table.
 *
 * Errors: a routine that returns a status (shmem_init_thread, the team and
 * context constructors, the team collectives) returns non-zero and the job
 * continues, with the reason printed by nothing (see symheap's
 * sym_last_error()).  A routine without a return value that fails (a PE out
 * of range, an address outside the symmetric memory, a wait that timed out
 * after SYMHEAP_TIMEOUT seconds, a dead peer) prints the library's detail
 * message -- routine, PE, address, size -- to stderr and calls
 * shmem_global_exit(1), as the specification says.
 *
 * Thread safety: shmem_init_thread() provides SHMEM_THREAD_MULTIPLE.
 */
#ifndef SYMHEAP_SHMEM_H
#define SYMHEAP_SHMEM_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__)
#define SYMSHMEM_API      __attribute__((visibility("default")))
#define SYMSHMEM_NORETURN __attribute__((noreturn))
#else
#define SYMSHMEM_API
#define SYMSHMEM_NORETURN
#endif

/* ------------------------------------------------------------------------ */
/* Library constants                                                         */
/* ------------------------------------------------------------------------ */

#define SHMEM_MAJOR_VERSION        1
#define SHMEM_MINOR_VERSION        5
#define _SHMEM_MAJOR_VERSION       SHMEM_MAJOR_VERSION
#define _SHMEM_MINOR_VERSION       SHMEM_MINOR_VERSION
#define SHMEM_MAX_NAME_LEN         64
#define _SHMEM_MAX_NAME_LEN        SHMEM_MAX_NAME_LEN
#define SHMEM_VENDOR_STRING        "symheap"
#define _SHMEM_VENDOR_STRING       SHMEM_VENDOR_STRING
#define SHMEM_VENDOR_MAJOR_VERSION 0
#define SHMEM_VENDOR_MINOR_VERSION 1
#define SHMEM_VENDOR_PATCH_VERSION 0

#define SHMEM_THREAD_SINGLE     0
#define SHMEM_THREAD_FUNNELED   1
#define SHMEM_THREAD_SERIALIZED 2
#define SHMEM_THREAD_MULTIPLE   3

/* Comparison operators of the waits and tests (same values as sym_cmp_t). */
#define SHMEM_CMP_EQ  1
#define SHMEM_CMP_NE  2
#define SHMEM_CMP_GT  3
#define SHMEM_CMP_GE  4
#define SHMEM_CMP_LT  5
#define SHMEM_CMP_LE  6
#define _SHMEM_CMP_EQ SHMEM_CMP_EQ
#define _SHMEM_CMP_NE SHMEM_CMP_NE
#define _SHMEM_CMP_GT SHMEM_CMP_GT
#define _SHMEM_CMP_GE SHMEM_CMP_GE
#define _SHMEM_CMP_LT SHMEM_CMP_LT
#define _SHMEM_CMP_LE SHMEM_CMP_LE

/* Signal operators (same values as sym_signal_op_t). */
#define SHMEM_SIGNAL_SET 1
#define SHMEM_SIGNAL_ADD 2

/* Context options: accepted, and irrelevant to symheap's contexts. */
#define SHMEM_CTX_PRIVATE    (1L << 0)
#define SHMEM_CTX_SERIALIZED (1L << 1)
#define SHMEM_CTX_NOSTORE    (1L << 2)

/* shmem_malloc_with_hints() hints: accepted; every allocation serves both. */
#define SHMEM_MALLOC_ATOMICS_REMOTE (1L << 0)
#define SHMEM_MALLOC_SIGNAL_REMOTE  (1L << 1)

/* Team configuration. */
typedef struct {
    int num_contexts;
} shmem_team_config_t;
#define SHMEM_TEAM_NUM_CONTEXTS (1L << 0)

/* Work arrays of the deprecated active-set collectives.  Every pSync
 * element must hold SHMEM_SYNC_VALUE before first use; each call leaves it
 * so again. */
#define SHMEM_SYNC_VALUE               0L
#define SHMEM_SYNC_SIZE                4
#define SHMEM_BCAST_SYNC_SIZE          SHMEM_SYNC_SIZE
#define SHMEM_BARRIER_SYNC_SIZE        SHMEM_SYNC_SIZE
#define SHMEM_COLLECT_SYNC_SIZE        SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_SYNC_SIZE         SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALL_SYNC_SIZE       SHMEM_SYNC_SIZE
#define SHMEM_ALLTOALLS_SYNC_SIZE      SHMEM_SYNC_SIZE
#define SHMEM_REDUCE_MIN_WRKDATA_SIZE  1
#define _SHMEM_SYNC_VALUE              SHMEM_SYNC_VALUE
#define _SHMEM_BCAST_SYNC_SIZE         SHMEM_BCAST_SYNC_SIZE
#define _SHMEM_BARRIER_SYNC_SIZE       SHMEM_BARRIER_SYNC_SIZE
#define _SHMEM_COLLECT_SYNC_SIZE       SHMEM_COLLECT_SYNC_SIZE
#define _SHMEM_REDUCE_SYNC_SIZE        SHMEM_REDUCE_SYNC_SIZE
#define _SHMEM_REDUCE_MIN_WRKDATA_SIZE SHMEM_REDUCE_MIN_WRKDATA_SIZE

/* ------------------------------------------------------------------------ */
/* Handles                                                                   */
/* ------------------------------------------------------------------------ */

typedef struct symshmem_team *shmem_team_t;
typedef struct symshmem_ctx *shmem_ctx_t;

SYMSHMEM_API extern struct symshmem_team symshmem_team_world_;
SYMSHMEM_API extern struct symshmem_team symshmem_team_shared_;
SYMSHMEM_API extern struct symshmem_ctx symshmem_ctx_default_;

/* All PEs; the PEs of this host (sharing memory with this PE). */
#define SHMEM_TEAM_WORLD   ((shmem_team_t)&symshmem_team_world_)
#define SHMEM_TEAM_SHARED  ((shmem_team_t)&symshmem_team_shared_)
#define SHMEM_TEAM_INVALID ((shmem_team_t)0)
#define SHMEM_CTX_DEFAULT  ((shmem_ctx_t)&symshmem_ctx_default_)
#define SHMEM_CTX_INVALID  ((shmem_ctx_t)0)

/* ------------------------------------------------------------------------ */
/* The type table                                                            */
/* ------------------------------------------------------------------------ */
/*
 * X(arg, TYPE, TYPENAME, KIND, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)
 *   KIND  I signed integer, U unsigned integer, F float/double,
 *         L long double, C complex (how reductions map onto native types)
 *   G     a distinct C type: listed in the C11 generic selections
 *   GB    a fixed-width type the generic bitwise families list by name
 *   RMA   standard RMA type (RMA, broadcast/collect/alltoall)
 *   AMO   standard AMO type; AMOX extended AMO type; BIT bitwise AMO type
 *   P2P   point-to-point synchronization type
 *   RBIT  and/or/xor reductions; RMM min/max; RSUM sum/prod reductions
 *   OLD   has the deprecated active-set reductions (shmem_TYPE_OP_to_all)
 * `arg` is passed through to X unchanged.
 */
#define SYMSHMEM_TYPES_(X, a)                                                                      \
    X(a, float, float, F, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1)                                         \
    X(a, double, double, F, 1, 0, 1, 0, 1, 0, 0, 0, 1, 1, 1)                                       \
    X(a, long double, longdouble, L, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 1)                              \
    X(a, char, char, I, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0)                                           \
    X(a, signed char, schar, I, 1, 0, 1, 0, 0, 0, 0, 0, 1, 1, 0)                                   \
    X(a, short, short, I, 1, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1)                                         \
    X(a, int, int, I, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1)                                             \
    X(a, long, long, I, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1)                                           \
    X(a, long long, longlong, I, 1, 0, 1, 1, 1, 0, 1, 0, 1, 1, 1)                                  \
    X(a, unsigned char, uchar, U, 1, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0)                                 \
    X(a, unsigned short, ushort, U, 1, 0, 1, 0, 0, 0, 1, 1, 1, 1, 0)                               \
    X(a, unsigned int, uint, U, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0)                                   \
    X(a, unsigned long, ulong, U, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0)                                 \
    X(a, unsigned long long, ulonglong, U, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0)                        \
    X(a, int8_t, int8, I, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0)                                         \
    X(a, int16_t, int16, I, 0, 1, 1, 0, 0, 0, 0, 1, 1, 1, 0)                                       \
    X(a, int32_t, int32, I, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0)                                       \
    X(a, int64_t, int64, I, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0)                                       \
    X(a, uint8_t, uint8, U, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0)                                       \
    X(a, uint16_t, uint16, U, 0, 0, 1, 0, 0, 0, 0, 1, 1, 1, 0)                                     \
    X(a, uint32_t, uint32, U, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0)                                     \
    X(a, uint64_t, uint64, U, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0)                                     \
    X(a, size_t, size, U, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0)                                         \
    X(a, ptrdiff_t, ptrdiff, I, 0, 0, 1, 1, 1, 0, 1, 0, 1, 1, 0)                                   \
    X(a, double _Complex, complexd, C, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)                            \
    X(a, float _Complex, complexf, C, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1)

/* Sizes of the sized RMA routines: X(arg, BITS, BYTES). */
#define SYMSHMEM_SIZES_(X, a) X(a, 8, 1) X(a, 16, 2) X(a, 32, 4) X(a, 64, 8) X(a, 128, 16)

/* Preprocessor logic on the 0/1 columns. */
#define SYMSHMEM_IF_(c)  SYMSHMEM_IF2_(c)
#define SYMSHMEM_IF2_(c) SYMSHMEM_IF_##c
#define SYMSHMEM_IF_0(...)
#define SYMSHMEM_IF_1(...)   __VA_ARGS__
#define SYMSHMEM_AND_(a, b)  SYMSHMEM_AND2_(a, b)
#define SYMSHMEM_AND2_(a, b) SYMSHMEM_AND_##a##b
#define SYMSHMEM_AND_00      0
#define SYMSHMEM_AND_01      0
#define SYMSHMEM_AND_10      0
#define SYMSHMEM_AND_11      1
#define SYMSHMEM_OR_(a, b)   SYMSHMEM_OR2_(a, b)
#define SYMSHMEM_OR2_(a, b)  SYMSHMEM_OR_##a##b
#define SYMSHMEM_OR_00       0
#define SYMSHMEM_OR_01       1
#define SYMSHMEM_OR_10       1
#define SYMSHMEM_OR_11       1
/* SYMSHMEM_ISSINT_##KIND: 1 for a signed integer kind.  Always pasted
 * straight onto the KIND argument, never passed on first: a program's own
 * macro I (<complex.h>) or U must not be expanded in its place. */
#define SYMSHMEM_ISSINT_I 1
#define SYMSHMEM_ISSINT_U 0
#define SYMSHMEM_ISSINT_F 0
#define SYMSHMEM_ISSINT_L 0
#define SYMSHMEM_ISSINT_C 0

/* Every routine, named shmem_NAME (see symheap/shmem_routines.h). */
#define SYMSHMEM_FN_(name)  shmem##name
#define SYMSHMEM_FNX_(name) name
#include "symheap/shmem_routines.h"

/* ------------------------------------------------------------------------ */
/* C11 type-generic selections                                               */
/* ------------------------------------------------------------------------ */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L && !defined(__cplusplus)

/* Never defined: a call with an argument type no routine takes fails to
 * compile (or link) here. */
SYMSHMEM_API void symshmem_generic_no_such_type_(void);

#define SYMSHMEM_ARG1_(...)        SYMSHMEM_ARG1__(__VA_ARGS__, 0)
#define SYMSHMEM_ARG1__(a, ...)    a
#define SYMSHMEM_ARG2_(...)        SYMSHMEM_ARG2__(__VA_ARGS__, 0, 0)
#define SYMSHMEM_ARG2__(a, b, ...) b

/* One association `TYPE *: FN,` per selected type (FN: shmem_[ctx_]TYPENAME_op,
 * pasted whole by the selector that names it). */
#define SYMSHMEM_GA_(sel, T, fn)  SYMSHMEM_IF_(sel)(T * : fn, )
#define SYMSHMEM_GAK_(sel, T, fn) SYMSHMEM_IF_(sel)(T * : fn, const T * : fn, )

/* Selectors, one per family and association form. */
#define SYMSHMEM_G_RMA_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)          \
    SYMSHMEM_GA_(SYMSHMEM_AND_(RMA, G), T, shmem_##N##op)
#define SYMSHMEM_GC_RMA_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)         \
    SYMSHMEM_GA_(SYMSHMEM_AND_(RMA, G), T, shmem_ctx_##N##op)
#define SYMSHMEM_GK_RMA_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)         \
    SYMSHMEM_GAK_(SYMSHMEM_AND_(RMA, G), T, shmem_##N##op)
#define SYMSHMEM_GKC_RMA_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)        \
    SYMSHMEM_GAK_(SYMSHMEM_AND_(RMA, G), T, shmem_ctx_##N##op)
#define SYMSHMEM_G_AMO_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)          \
    SYMSHMEM_GA_(SYMSHMEM_AND_(AMO, G), T, shmem_##N##op)
#define SYMSHMEM_GC_AMO_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)         \
    SYMSHMEM_GA_(SYMSHMEM_AND_(AMO, G), T, shmem_ctx_##N##op)
#define SYMSHMEM_G_AMOX_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)         \
    SYMSHMEM_GA_(SYMSHMEM_AND_(AMOX, G), T, shmem_##N##op)
#define SYMSHMEM_GC_AMOX_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)        \
    SYMSHMEM_GA_(SYMSHMEM_AND_(AMOX, G), T, shmem_ctx_##N##op)
#define SYMSHMEM_GK_AMOX_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)        \
    SYMSHMEM_GAK_(SYMSHMEM_AND_(AMOX, G), T, shmem_##N##op)
#define SYMSHMEM_GKC_AMOX_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)       \
    SYMSHMEM_GAK_(SYMSHMEM_AND_(AMOX, G), T, shmem_ctx_##N##op)
#define SYMSHMEM_G_BIT_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)          \
    SYMSHMEM_GA_(SYMSHMEM_AND_(BIT, SYMSHMEM_OR_(G, GB)), T, shmem_##N##op)
#define SYMSHMEM_GC_BIT_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)         \
    SYMSHMEM_GA_(SYMSHMEM_AND_(BIT, SYMSHMEM_OR_(G, GB)), T, shmem_ctx_##N##op)
#define SYMSHMEM_G_P2P_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)          \
    SYMSHMEM_GA_(SYMSHMEM_AND_(P2P, G), T, shmem_##N##op)
#define SYMSHMEM_G_RBIT_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)         \
    SYMSHMEM_GA_(SYMSHMEM_AND_(RBIT, SYMSHMEM_OR_(G, GB)), T, shmem_##N##op)
#define SYMSHMEM_G_RMM_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)          \
    SYMSHMEM_GA_(SYMSHMEM_AND_(RMM, G), T, shmem_##N##op)
#define SYMSHMEM_G_RSUM_(op, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, O)         \
    SYMSHMEM_GA_(SYMSHMEM_AND_(RSUM, G), T, shmem_##N##op)

/* A generic over the argument `x` (no context form). */
#define SYMSHMEM_GEN_(x, sel, op)                                                                  \
    _Generic((x), SYMSHMEM_TYPES_(SYMSHMEM_##sel##_, _##op) default                                \
             : symshmem_generic_no_such_type_)
/* A generic whose optional first argument is a context: dispatch on the
 * first argument, or on the second when the first is a shmem_ctx_t. */
#define SYMSHMEM_GENCTX_(G, GC, fam, op, ...)                                                      \
    _Generic((SYMSHMEM_ARG1_(__VA_ARGS__)), shmem_ctx_t                                            \
             : _Generic((SYMSHMEM_ARG2_(__VA_ARGS__)),                                             \
                        SYMSHMEM_TYPES_(SYMSHMEM_##GC##_##fam##_, _##op) default                   \
                        : symshmem_generic_no_such_type_),                                         \
               default                                                                             \
             : _Generic((SYMSHMEM_ARG1_(__VA_ARGS__)),                                             \
                        SYMSHMEM_TYPES_(SYMSHMEM_##G##_##fam##_, _##op) default                    \
                        : symshmem_generic_no_such_type_))(__VA_ARGS__)

/* RMA */
#define shmem_put(...)            SYMSHMEM_GENCTX_(G, GC, RMA, put, __VA_ARGS__)
#define shmem_p(...)              SYMSHMEM_GENCTX_(G, GC, RMA, p, __VA_ARGS__)
#define shmem_iput(...)           SYMSHMEM_GENCTX_(G, GC, RMA, iput, __VA_ARGS__)
#define shmem_get(...)            SYMSHMEM_GENCTX_(G, GC, RMA, get, __VA_ARGS__)
#define shmem_g(...)              SYMSHMEM_GENCTX_(GK, GKC, RMA, g, __VA_ARGS__)
#define shmem_iget(...)           SYMSHMEM_GENCTX_(G, GC, RMA, iget, __VA_ARGS__)
#define shmem_put_nbi(...)        SYMSHMEM_GENCTX_(G, GC, RMA, put_nbi, __VA_ARGS__)
#define shmem_get_nbi(...)        SYMSHMEM_GENCTX_(G, GC, RMA, get_nbi, __VA_ARGS__)
#define shmem_put_signal(...)     SYMSHMEM_GENCTX_(G, GC, RMA, put_signal, __VA_ARGS__)
#define shmem_put_signal_nbi(...) SYMSHMEM_GENCTX_(G, GC, RMA, put_signal_nbi, __VA_ARGS__)

/* AMOs */
#define shmem_atomic_fetch(...)     SYMSHMEM_GENCTX_(GK, GKC, AMOX, atomic_fetch, __VA_ARGS__)
#define shmem_atomic_set(...)       SYMSHMEM_GENCTX_(G, GC, AMOX, atomic_set, __VA_ARGS__)
#define shmem_atomic_swap(...)      SYMSHMEM_GENCTX_(G, GC, AMOX, atomic_swap, __VA_ARGS__)
#define shmem_atomic_fetch_nbi(...) SYMSHMEM_GENCTX_(G, GC, AMOX, atomic_fetch_nbi, __VA_ARGS__)
#define shmem_atomic_swap_nbi(...)  SYMSHMEM_GENCTX_(G, GC, AMOX, atomic_swap_nbi, __VA_ARGS__)
#define shmem_atomic_compare_swap(...)                                                             \
    SYMSHMEM_GENCTX_(G, GC, AMO, atomic_compare_swap, __VA_ARGS__)
#define shmem_atomic_fetch_inc(...) SYMSHMEM_GENCTX_(G, GC, AMO, atomic_fetch_inc, __VA_ARGS__)
#define shmem_atomic_inc(...)       SYMSHMEM_GENCTX_(G, GC, AMO, atomic_inc, __VA_ARGS__)
#define shmem_atomic_fetch_add(...) SYMSHMEM_GENCTX_(G, GC, AMO, atomic_fetch_add, __VA_ARGS__)
#define shmem_atomic_add(...)       SYMSHMEM_GENCTX_(G, GC, AMO, atomic_add, __VA_ARGS__)
#define shmem_atomic_compare_swap_nbi(...)                                                         \
    SYMSHMEM_GENCTX_(G, GC, AMO, atomic_compare_swap_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_inc_nbi(...)                                                            \
    SYMSHMEM_GENCTX_(G, GC, AMO, atomic_fetch_inc_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_add_nbi(...)                                                            \
    SYMSHMEM_GENCTX_(G, GC, AMO, atomic_fetch_add_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_and(...) SYMSHMEM_GENCTX_(G, GC, BIT, atomic_fetch_and, __VA_ARGS__)
#define shmem_atomic_and(...)       SYMSHMEM_GENCTX_(G, GC, BIT, atomic_and, __VA_ARGS__)
#define shmem_atomic_fetch_or(...)  SYMSHMEM_GENCTX_(G, GC, BIT, atomic_fetch_or, __VA_ARGS__)
#define shmem_atomic_or(...)        SYMSHMEM_GENCTX_(G, GC, BIT, atomic_or, __VA_ARGS__)
#define shmem_atomic_fetch_xor(...) SYMSHMEM_GENCTX_(G, GC, BIT, atomic_fetch_xor, __VA_ARGS__)
#define shmem_atomic_xor(...)       SYMSHMEM_GENCTX_(G, GC, BIT, atomic_xor, __VA_ARGS__)
#define shmem_atomic_fetch_and_nbi(...)                                                            \
    SYMSHMEM_GENCTX_(G, GC, BIT, atomic_fetch_and_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_or_nbi(...)                                                             \
    SYMSHMEM_GENCTX_(G, GC, BIT, atomic_fetch_or_nbi, __VA_ARGS__)
#define shmem_atomic_fetch_xor_nbi(...)                                                            \
    SYMSHMEM_GENCTX_(G, GC, BIT, atomic_fetch_xor_nbi, __VA_ARGS__)
/* Deprecated AMO names. */
#define shmem_fetch(source, pe)            SYMSHMEM_GEN_(source, GK_AMOX, fetch)(source, pe)
#define shmem_set(dest, value, pe)         SYMSHMEM_GEN_(dest, G_AMOX, set)(dest, value, pe)
#define shmem_swap(dest, value, pe)        SYMSHMEM_GEN_(dest, G_AMOX, swap)(dest, value, pe)
#define shmem_cswap(dest, cond, value, pe) SYMSHMEM_GEN_(dest, G_AMO, cswap)(dest, cond, value, pe)
#define shmem_finc(dest, pe)               SYMSHMEM_GEN_(dest, G_AMO, finc)(dest, pe)
#define shmem_inc(dest, pe)                SYMSHMEM_GEN_(dest, G_AMO, inc)(dest, pe)
#define shmem_fadd(dest, value, pe)        SYMSHMEM_GEN_(dest, G_AMO, fadd)(dest, value, pe)
#define shmem_add(dest, value, pe)         SYMSHMEM_GEN_(dest, G_AMO, add)(dest, value, pe)

/* Collectives (dispatch on dest, the second argument). */
#define shmem_broadcast(team, dest, ...)                                                           \
    SYMSHMEM_GEN_(dest, G_RMA, broadcast)(team, dest, __VA_ARGS__)
#define shmem_collect(team, dest, ...) SYMSHMEM_GEN_(dest, G_RMA, collect)(team, dest, __VA_ARGS__)
#define shmem_fcollect(team, dest, ...)                                                            \
    SYMSHMEM_GEN_(dest, G_RMA, fcollect)(team, dest, __VA_ARGS__)
#define shmem_alltoall(team, dest, ...)                                                            \
    SYMSHMEM_GEN_(dest, G_RMA, alltoall)(team, dest, __VA_ARGS__)
#define shmem_alltoalls(team, dest, ...)                                                           \
    SYMSHMEM_GEN_(dest, G_RMA, alltoalls)(team, dest, __VA_ARGS__)
#define shmem_and_reduce(team, dest, ...)                                                          \
    SYMSHMEM_GEN_(dest, G_RBIT, and_reduce)(team, dest, __VA_ARGS__)
#define shmem_or_reduce(team, dest, ...)                                                           \
    SYMSHMEM_GEN_(dest, G_RBIT, or_reduce)(team, dest, __VA_ARGS__)
#define shmem_xor_reduce(team, dest, ...)                                                          \
    SYMSHMEM_GEN_(dest, G_RBIT, xor_reduce)(team, dest, __VA_ARGS__)
#define shmem_max_reduce(team, dest, ...)                                                          \
    SYMSHMEM_GEN_(dest, G_RMM, max_reduce)(team, dest, __VA_ARGS__)
#define shmem_min_reduce(team, dest, ...)                                                          \
    SYMSHMEM_GEN_(dest, G_RMM, min_reduce)(team, dest, __VA_ARGS__)
#define shmem_sum_reduce(team, dest, ...)                                                          \
    SYMSHMEM_GEN_(dest, G_RSUM, sum_reduce)(team, dest, __VA_ARGS__)
#define shmem_prod_reduce(team, dest, ...)                                                         \
    SYMSHMEM_GEN_(dest, G_RSUM, prod_reduce)(team, dest, __VA_ARGS__)

/* Point-to-point synchronization (dispatch on ivar/ivars). */
#define shmem_wait_until(ivar, ...) SYMSHMEM_GEN_(ivar, G_P2P, wait_until)(ivar, __VA_ARGS__)
#define shmem_wait(ivar, ...)       SYMSHMEM_GEN_(ivar, G_P2P, wait)(ivar, __VA_ARGS__)
#define shmem_wait_until_all(ivars, ...)                                                           \
    SYMSHMEM_GEN_(ivars, G_P2P, wait_until_all)(ivars, __VA_ARGS__)
#define shmem_wait_until_any(ivars, ...)                                                           \
    SYMSHMEM_GEN_(ivars, G_P2P, wait_until_any)(ivars, __VA_ARGS__)
#define shmem_wait_until_some(ivars, ...)                                                          \
    SYMSHMEM_GEN_(ivars, G_P2P, wait_until_some)(ivars, __VA_ARGS__)
#define shmem_wait_until_all_vector(ivars, ...)                                                    \
    SYMSHMEM_GEN_(ivars, G_P2P, wait_until_all_vector)(ivars, __VA_ARGS__)
#define shmem_wait_until_any_vector(ivars, ...)                                                    \
    SYMSHMEM_GEN_(ivars, G_P2P, wait_until_any_vector)(ivars, __VA_ARGS__)
#define shmem_wait_until_some_vector(ivars, ...)                                                   \
    SYMSHMEM_GEN_(ivars, G_P2P, wait_until_some_vector)(ivars, __VA_ARGS__)
#define shmem_test(ivar, ...)       SYMSHMEM_GEN_(ivar, G_P2P, test)(ivar, __VA_ARGS__)
#define shmem_test_all(ivars, ...)  SYMSHMEM_GEN_(ivars, G_P2P, test_all)(ivars, __VA_ARGS__)
#define shmem_test_any(ivars, ...)  SYMSHMEM_GEN_(ivars, G_P2P, test_any)(ivars, __VA_ARGS__)
#define shmem_test_some(ivars, ...) SYMSHMEM_GEN_(ivars, G_P2P, test_some)(ivars, __VA_ARGS__)
#define shmem_test_all_vector(ivars, ...)                                                          \
    SYMSHMEM_GEN_(ivars, G_P2P, test_all_vector)(ivars, __VA_ARGS__)
#define shmem_test_any_vector(ivars, ...)                                                          \
    SYMSHMEM_GEN_(ivars, G_P2P, test_any_vector)(ivars, __VA_ARGS__)
#define shmem_test_some_vector(ivars, ...)                                                         \
    SYMSHMEM_GEN_(ivars, G_P2P, test_some_vector)(ivars, __VA_ARGS__)

#endif /* C11 */

/* shmem_sync(team), the team form, next to the deprecated active-set
 * shmem_sync(PE_start, logPE_stride, PE_size, pSync): chosen by the number
 * of arguments (C) or by overloading (C++). */
#ifndef __cplusplus
#define SYMSHMEM_SYNC_PICK_(a1, a2, a3, a4, fn, ...) fn
#define shmem_sync(...)                                                                            \
    SYMSHMEM_SYNC_PICK_(__VA_ARGS__, shmem_sync, shmem_sync, shmem_sync, shmem_team_sync, 0)       \
    (__VA_ARGS__)
#endif

#ifdef __cplusplus
}
static inline int shmem_sync(shmem_team_t _team)
{
    return shmem_team_sync(_team);
}
#endif

#endif /* SYMHEAP_SHMEM_H */
