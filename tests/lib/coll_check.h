/*
 * coll_check.h - what the collective tests (test_coll_*.c, one test
 * binary) share: reproducible inputs and their references, guarded
 * buffers, the teams every matrix job runs on, one checked call of each
 * collective, and the matrix of each collective x algorithm x count x team.
 *
 * Inputs are chosen so a reference exists independently of the reduction
 * order: integers wrap modulo 2^bits (any order gives the same bits), float
 * sums are of small integers (exact in every type), products of {1, 2, -1},
 * and averages are the correctly rounded quotient of an exact sum (the
 * library divides in float or double and may then round to 16 bits; the
 * double-rounding theorem (p' >= 2p + 2) makes that equal to rounding the
 * exact quotient once, which is what the reference does).
 */
#ifndef TESTS_COLL_CHECK_H
#define TESTS_COLL_CHECK_H

#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "harness.h"

/* Elements of the "larger than the mailbox" count: 280 KB of int32 against
 * a 256 KiB mailbox, so every algorithm stages it in many chunks. */
#define LARGE      70001
#define GUARD      64
#define GUARD_BYTE 0xA5
#define SENTINEL   0x5A

/* Team areas of 64 KiB, the same as the world's area: split teams
 * chunk large data like the world does, without making 8-PE teams crawl
 * through tiny slots. */
extern const char *const matrix_env[];

/* Job sizes: with the three teams of each job (world, a strided team and a
 * created sub-team) every team size 1..8 occurs. */
#define COLL_PE_COUNTS                                                                             \
    {                                                                                              \
        1, 2, 3, 4, 5, 6, 8                                                                        \
    }

#define NDTS 12
extern const sym_datatype_t all_dts[NDTS];
#define NOPS 8
extern const sym_op_t all_ops[NOPS];

/* A reduction's inputs: element idx of team member `rank`. */
struct red {
    sym_datatype_t dt;
    sym_op_t op;
    uint64_t salt;
};

struct gbuf {
    uint8_t *raw;
    uint8_t *p;
    size_t bytes;
};

#define GB_CHECK(b, d) gb_check_at(__FILE__, __LINE__, (b), (d))

#define GB_FINISH(a, b, ref1, ref2, d)                                                             \
    gb_finish_at(__FILE__, __LINE__, (a), (b), (ref1), (ref2), (d))

#define EXPECT_KEPT_OUTSIDE(buf, orig, total, off, len, d)                                         \
    expect_kept_outside_at(__FILE__, __LINE__, (buf), (orig), (total), (off), (len), (d))

#define EXPECT_SAME(got, want, bytes, es, d)                                                       \
    expect_same_at(__FILE__, __LINE__, (got), (want), (bytes), (es), (d))

#define EXPECT_UNTOUCHED(buf, bytes, d)                                                            \
    expect_fill_at(__FILE__, __LINE__, (buf), SENTINEL, (bytes), (d))

#define CALL_OK(call, d)                                                                           \
    do {                                                                                           \
        sym_status_t st_ = (call);                                                                 \
        if (st_ != SYM_OK)                                                                         \
            pe_fail(__FILE__, __LINE__, #call, "[%s] returned %s: %s", (d), sym_status_name(st_),  \
                    sym_last_error());                                                             \
    } while (0)

struct tctx {
    sym_team_t team;
    int n, me;
    int tag;           /* which team of the job: salts differ per team */
    uint64_t calls;    /* salts differ per call */
    uint64_t *scratch; /* symmetric, zeroed before the team's phase */
};

#define SCRATCH_WORDS 512

enum mode { OUT, IN, OVERLAP, OWN };

extern const char *const mode_names[];

typedef void (*team_fn)(struct tctx *t);

struct team_job {
    team_fn fn;
};

/* Datatypes, values and references */

size_t dt_size(sym_datatype_t dt);

bool dt_is_float(sym_datatype_t dt);

bool dt_is_signed(sym_datatype_t dt);

bool op_valid(sym_datatype_t dt, sym_op_t op);

uint64_t mix64(uint64_t x);

uint64_t hkey(uint64_t a, uint64_t b, uint64_t c);

/* 16-bit floats, written for the reference from their definition:
 * `mant` stored mantissa bits, `emin` the smallest normal exponent. */
double small_float_value(uint16_t bits, int mant, int emin);

/* Round x to the nearest representable value, ties to even (nearbyint in
 * the default rounding mode). */
uint16_t small_float_bits(double x, int mant, int emin, int emax);

double f16_value(uint16_t b);

uint16_t f16_bits(double x);

double bf16_value(uint16_t b);

uint16_t bf16_bits(double x);

/* An integer of type dt held in 64 bits: truncated, then sign- or
 * zero-extended. */
uint64_t int_ext(sym_datatype_t dt, uint64_t raw);

void int_store(sym_datatype_t dt, void *buf, size_t i, uint64_t v);

void flt_store(sym_datatype_t dt, void *buf, size_t i, double v);

double flt_load(sym_datatype_t dt, const void *buf, size_t i);

uint64_t red_int(const struct red *r, int rank, size_t idx);

double red_flt(const struct red *r, int rank, size_t idx);

void red_fill(const struct red *r, void *buf, int rank, size_t first, size_t n);

/* out[k] = the reduction over ranks 0..nranks-1 of element first + k. */
void red_ref(const struct red *r, void *out, int nranks, size_t first, size_t n);

/* Data of the collectives that only move bytes: block `key` is a byte
 * pattern no other block of the same call shares. */
void pat_fill(void *buf, size_t bytes, uint64_t key);

void gb_alloc(struct gbuf *b, size_t bytes, int fill);

/* From here on gb_alloc carves buffers out of [arena, arena + bytes) (a
 * region of this PE's symmetric heap, so the direct algorithm reads them
 * mapped), until called with NULL.  Buffers are handed out in order and the
 * arena starts over once every one of them is freed. */
void gb_use_arena(void *arena, size_t bytes);

void gb_free(struct gbuf *b);

void *xmalloc(size_t bytes);

void *xdup(const void *src, size_t bytes);

void gb_check_at(const char *file, int line, const struct gbuf *b, const char *d);

/* The end of a check on two guarded buffers: both guards intact, then the
 * buffers and the check's two reference copies (NULL: none) freed. */
void gb_finish_at(const char *file, int line, struct gbuf *a, struct gbuf *b, void *ref1,
                  void *ref2, const char *d);

/* An input buffer written only in [off, off + len), the output window of an
 * in-place call: everything else still holds orig. */
void expect_kept_outside_at(const char *file, int line, const uint8_t *buf, const uint8_t *orig,
                            size_t total, size_t off, size_t len, const char *d);

void expect_same_at(const char *file, int line, const void *got, const void *want, size_t bytes,
                    size_t es, const char *d);

void expect_fill_at(const char *file, int line, const void *buf, int fill, size_t bytes,
                    const char *d);

/* Teams of a job */

uint64_t next_salt(struct tctx *t);

void describe(char *d, size_t len, const char *coll, const struct tctx *t, sym_algorithm_t a,
              sym_datatype_t dt, sym_op_t op, size_t count, int root, enum mode m);

/* {0, 1, n-1, n+1, 13, LARGE} without repeats. */
int count_list(int n, size_t out[6]);

/* The datatype of the matrix for the i-th count: the integer path, the
 * plain floating path and the float16-in-float accumulation path in turn;
 * the large count stays int32 to keep the job short. */
sym_datatype_t matrix_dt(int i, size_t count);

/* Run fn on the world, on a strided team (every other PE from the last,
 * stride -2: team order reverses global order) and on a team created from
 * the list N-2, ..., 0; one team at a time, separated by world barriers. */
void for_each_team(team_fn fn);

void team_job_body(int me, int n, void *arg);

/* The world team as a struct tctx (no scratch words). */
struct tctx world_ctx(int tag);

/* One call of each collective, checked (test_coll_<family>.c) */

void check_barrier(struct tctx *t, sym_algorithm_t a, int round);

void check_broadcast(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, size_t count, int root);

/* Reduce and allreduce share the set-up: mode OUT (separate dst), IN
 * (dst == src) or OVERLAP (dst one element after src). */
void check_reduction(struct tctx *t, bool rooted, sym_algorithm_t a, sym_datatype_t dt, sym_op_t op,
                     size_t count, int root, enum mode m);

/* Modes: OUT, IN (dst == src, the first block), OWN (dst is this
 * member's own block of src) and OVERLAP (dst straddles the middle of src,
 * aligned to no block). */
void check_reduce_scatter(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, sym_op_t op,
                          size_t count, enum mode m);

/* all_gather and all_gatherv: counts[r] elements from member r, packed.
 * Modes: OUT, OWN (src is this member's place in dst), IN (src == dst),
 * OVERLAP (src in the middle of dst, aligned to no block). */
void check_gatherv_all(struct tctx *t, bool v, sym_algorithm_t a, sym_datatype_t dt,
                       const size_t *counts, enum mode m);

/* all_to_all and all_to_allv: sc(i, j) elements go from member i to j.
 * Modes: OUT, IN (one buffer for both) and OVERLAP (dst starts in the
 * middle of src). */
void check_alltoall(struct tctx *t, bool v, sym_algorithm_t a, sym_datatype_t dt,
                    size_t (*sc)(int from, int to, size_t c), size_t c, enum mode m);

/* gather: modes OUT and OWN (the root's src is its own block of dst);
 * away from the root dst is a sentinel buffer that must stay untouched. */
void check_gather(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, size_t count, int root,
                  enum mode m);

/* scatter: modes OUT and OWN (the root's dst is its own block of src). */
void check_scatter(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, size_t count, int root,
                   enum mode m);

/* The matrix: each collective x algorithm x count x team */

#define NELEMS(a) (sizeof(a) / sizeof((a)[0]))

static const sym_algorithm_t barrier_algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE,
                                                SYM_ALGO_RD};
static const sym_algorithm_t broadcast_algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                                  SYM_ALGO_TREE, SYM_ALGO_DIRECT};
static const sym_algorithm_t reduce_algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                               SYM_ALGO_TREE, SYM_ALGO_DIRECT};
static const sym_algorithm_t allreduce_algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                                  SYM_ALGO_TREE, SYM_ALGO_RD,    SYM_ALGO_DIRECT};
static const sym_algorithm_t reduce_scatter_algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                                       SYM_ALGO_DIRECT};
static const sym_algorithm_t all_gather_algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                                   SYM_ALGO_RD, SYM_ALGO_DIRECT};
static const sym_algorithm_t all_gatherv_algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                                    SYM_ALGO_RD, SYM_ALGO_DIRECT};
static const sym_algorithm_t all_to_all_algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE,
                                                   SYM_ALGO_DIRECT};
static const sym_algorithm_t gather_algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE,
                                               SYM_ALGO_DIRECT};

/* Only this algorithm's part of each matrix runs (SYM_ALGO_AUTO: all of
 * it): the direct algorithm's paths run the matrix again, direct only. */
extern sym_algorithm_t matrix_only;
static inline bool matrix_wants(sym_algorithm_t a)
{
    return matrix_only == SYM_ALGO_AUTO || a == matrix_only;
}

/* The matrix of each collective (test_coll_<family>.c). */
void barrier_matrix(struct tctx *t);
void broadcast_matrix(struct tctx *t);
void reduce_matrix(struct tctx *t);
void allreduce_matrix(struct tctx *t);
void reduce_scatter_matrix(struct tctx *t);
void all_gather_matrix(struct tctx *t);
void all_gatherv_matrix(struct tctx *t);
void all_to_all_matrix(struct tctx *t);
void all_to_allv_matrix(struct tctx *t);
void gather_matrix(struct tctx *t);
void scatter_matrix(struct tctx *t);

/* Every root for small counts; the large count at the first and last. */
bool root_wanted(const struct tctx *t, size_t count, int root);

size_t uniform_count(int from, int to, size_t c);

/* Uneven, including empty blocks and a block to oneself. */
size_t ragged_count(int from, int to, size_t c);

/* SYMHEAP_TEST_QUICK (the sanitizer stage of .ci/test) keeps the matrix to
 * 2, 5 and 8 PEs: with the strided and reversed teams every job also runs
 * on, team sizes 1..8 are still covered, in a third of the time. */
struct criterion_test_params matrix_pe_counts(void);

#define MATRIX_TEST(coll)                                                                          \
    ParameterizedTestParameters(coll_##coll, matrix)                                               \
    {                                                                                              \
        return matrix_pe_counts();                                                                 \
    }                                                                                              \
    ParameterizedTest(int *npes, coll_##coll, matrix)                                              \
    {                                                                                              \
        static const struct team_job job = {coll##_matrix};                                        \
        run_pes_env(*npes, matrix_env, team_job_body, (void *)&job);                               \
    }

#endif /* TESTS_COLL_CHECK_H */
