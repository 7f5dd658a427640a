/*
 * stress_private.h - what the files of the stress program share: its
 * state on this PE, the counters, the keyed random numbers, reporting,
 * typed data with reference reductions, the symmetric work areas, and one
 * step function per operation family (stress_<family>.c).
 */
#ifndef SYM_STRESS_PRIVATE_H
#define SYM_STRESS_PRIVATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <symheap.h>

#include "stress.h"

/* Descriptions are cut to their buffers on purpose (nested team names). */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wformat-truncation"
#endif

#define MAXPE       16
#define MARGIN      64 /* bytes around every RMA target range checked untouched */
#define MAX_ENTRIES 6  /* live team entries, world included */
#define MAX_OBJS    6  /* live objects of the allocation steps */
#define MAX_BATCH   3  /* non-blocking collectives in flight at once */

/* clang-format off */
#define COUNTERS(X)                                                                      \
    X(PUT, "put") X(PUT_NBI, "put_nbi") X(IPUT, "iput") X(P, "p8/16/32/64")              \
    X(PUT_SIGNAL, "put_signal") X(PUT_SIGNAL_NBI, "put_signal_nbi")                      \
    X(GET, "get") X(GET_NBI, "get_nbi") X(IGET, "iget") X(G, "g8/16/32/64")               \
    X(QUIET, "quiet") X(AMO32, "atomic (32-bit)") X(AMO64, "atomic (64-bit)")            \
    X(SIGNAL_WAIT, "signal_wait_until") X(WAIT_UNTIL, "wait_until (all forms)")          \
    X(TEST, "test (successful polls)") X(BARRIER_ALL, "barrier_all") X(SYNC_ALL, "sync_all")    \
    X(BARRIER, "barrier") X(BROADCAST, "broadcast") X(REDUCE, "reduce")                  \
    X(ALLREDUCE, "allreduce") X(REDUCE_SCATTER, "reduce_scatter")                        \
    X(ALL_GATHER, "all_gather") X(ALL_GATHERV, "all_gatherv") X(ALL_TO_ALL, "all_to_all") \
    X(ALL_TO_ALLV, "all_to_allv") X(GATHER, "gather") X(SCATTER, "scatter")              \
    X(IBARRIER, "ibarrier") X(IBROADCAST, "ibroadcast") X(IREDUCE, "ireduce")            \
    X(IALLREDUCE, "iallreduce") X(IREDUCE_SCATTER, "ireduce_scatter")                    \
    X(IALL_GATHER, "iall_gather") X(IALL_GATHERV, "iall_gatherv")                        \
    X(IALL_TO_ALL, "iall_to_all") X(IALL_TO_ALLV, "iall_to_allv") X(IGATHER, "igather")  \
    X(ISCATTER, "iscatter") X(REQ_WAIT, "request wait") X(REQ_TEST, "request test (completions)")      \
    X(SEND, "send") X(RECV, "recv") X(SENDRECV, "sendrecv") X(TRUNCATED, "recv truncated") \
    X(SPLIT_STRIDED, "team_split_strided") X(SPLIT_2D, "team_split_2d")                  \
    X(TEAM_CREATE, "team_create") X(TEAM_DESTROY, "team_destroy")                        \
    X(MALLOC, "malloc/calloc/align") X(REALLOC, "realloc") X(FREE, "free")
/* clang-format on */

enum counter {
#define C_ENUM_(e, name) CNT_##e,
    COUNTERS(C_ENUM_)
#undef C_ENUM_
        CNT_N
};

struct group {
    int n;
    int pe[MAXPE]; /* global PE of each member, in team order */
};

/* A set of teams made by one split: disjoint groups, each a team; a PE
 * holds the handle of its own group (or none). */
struct entry {
    bool live;
    int ngroups;
    struct group g[MAXPE];
    int my_group; /* -1: this PE is in none */
    sym_team_t team;
    char desc[128];
};

struct obj {
    bool live;
    void *p;
    size_t size, align;
    uint64_t key; /* content: pattern (key, pe) on every PE */
};

struct stress_state {
    struct stress_opts o;
    int me, n;
    uint64_t step;
    bool dry; /* replaying the structure of steps before start_step */
    char what[320];
    uint64_t count[CNT_N];
    uint64_t wrong;
    size_t rma_bytes; /* per-PE RMA region (max_bytes + margins) */
    uint8_t *rma;
    uint64_t *sig;     /* [MAXPE] signal words, written by PE p at index p */
    uint64_t *sig_add; /* [MAXPE] signal words for SYM_SIGNAL_ADD */
    int32_t *iv_i32;   /* [MAXPE] wait_until targets per type */
    int64_t *iv_i64;
    uint32_t *iv_u32;
    uint64_t *iv_u64;
    uint32_t *amo32; /* [MAXPE] private words, [MAXPE] contended */
    uint64_t *amo64;
    struct entry ent[MAX_ENTRIES];
    struct obj obj[MAX_OBJS];
};

extern struct stress_state stress_state;

struct rng {
    uint64_t s;
};

/* Salts of the keys, so different uses of one (step, pe) never share data. */
enum { K_STEP = 1, K_DATA, K_FILL, K_OPS, K_INIT, K_SIZES, K_ORDER, K_OBJ };

#define CALL(expr)                                                                                 \
    do {                                                                                           \
        sym_status_t st_ = (expr);                                                                 \
        if (st_ != SYM_OK)                                                                         \
            die(#expr, st_);                                                                       \
    } while (0)

extern const char *const counter_names[CNT_N];

#define N_DTS 12
extern const sym_datatype_t all_dts[N_DTS];

uint64_t mix64(uint64_t z);

uint64_t key3(uint64_t a, uint64_t b, uint64_t c);

uint64_t rnext(struct rng *r);

uint64_t rbelow(struct rng *r, uint64_t n);

bool rchance(struct rng *r, unsigned percent);

struct rng rng_for(uint64_t step, uint64_t pe, uint64_t salt);

void fill_bytes(void *buf, size_t n, uint64_t key);

/* Byte i of fill_bytes(key) without generating the rest. */
uint8_t byte_at(uint64_t key, size_t i);

/* Sizes: 0, 1, primes, small, up to `max`, and near `max` (which is more
 * than the mailbox). */
size_t pick_count(struct rng *r, size_t max);

void replay_hint(FILE *f);

void set_what(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void die(const char *call, sym_status_t st) __attribute__((noreturn));

void wrong(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Compare got with want; one wrong result per differing buffer. */
bool check_buf(const void *got, const void *want, size_t bytes, size_t elsize, const char *name);

void *xmalloc(size_t n);

void *sym_alloc_or_die(size_t bytes, const char *what);

void areas_init(void);

void areas_fini(void);

/* One of the ways of synchronising all PEs after RMA. */
void sync_world(struct rng *r);

bool dt_is_float(sym_datatype_t dt);

bool dt_is_signed(sym_datatype_t dt);

/* Round a float to binary16 / bfloat16, to nearest even, computed by
 * scaling (independent of the library's bit manipulation). */
uint16_t ref_round_small(float f, int mant_bits, int emin, int emax, int bias);

uint16_t ref_f2h(float f);

uint16_t ref_f2bf(float f);

double ref_small_to_d(uint16_t b, int mant_bits, int bias);

/* Element i of the input keyed `key`: random bits for data movement (op 0)
 * and integer reductions; exactly combinable values for float reductions. */
void gen_one(void *dst, sym_datatype_t dt, sym_op_t op, uint64_t key, size_t i);

void gen_elems(void *buf, size_t count, sym_datatype_t dt, sym_op_t op, uint64_t key, size_t first);

uint64_t load_u(const void *p, size_t es, bool sgn);

double load_d(const void *p, sym_datatype_t dt);

/* out[j] = op over members m of input(keys[m]) element first + j. */
void ref_reduce(void *out, sym_datatype_t dt, sym_op_t op, int nm, const uint64_t *keys,
                size_t first, size_t count);

void step_rma(struct rng *r);

void step_amo(struct rng *r);

void step_wait(struct rng *r);

void entry_locate(struct entry *e);

int live_entries(void);

void step_team(struct rng *r);

void step_coll(struct rng *r, bool nb);

void step_p2p(struct rng *r);

void obj_check(const struct obj *o, size_t bytes, const char *what);

void step_alloc(struct rng *r);

#endif /* SYM_STRESS_PRIVATE_H */
