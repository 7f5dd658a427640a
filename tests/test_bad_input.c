/*
 * test_bad_input.c - one table of bad inputs over every public function of
 * symheap.h, run on real PEs.
 *
 * Each row is one call with one bad argument (NULL pointers, misalignment,
 * sizes overflowing the heap or size_t, PEs out of range, invalid or
 * destroyed teams, out-of-range enum values, bad strides, roots outside the
 * team, forbidden overlaps, bad requests).  For each row, on every PE:
 *   - the call returns the documented status (or the documented failure
 *     value of a pointer/int query) and, where the API promises one, a
 *     message naming the function;
 *   - nothing outside the library is written: guard bytes around every
 *     local and symmetric buffer the calls can reach stay intact, on this
 *     PE and on its peers (checked after a barrier);
 *   - the job carries on: a valid call of the same family right after it
 *     works and gives the right data.
 * Every PE runs the same rows in the same order, so collective rows are
 * rejected alike everywhere (argument errors never reach the wire).
 *
 * Functions without arguments that could be bad (sym_finalize,
 * sym_initialized, sym_my_pe, sym_n_pes, sym_last_error, sym_team_world,
 * sym_quiet, sym_fence, sym_barrier_all, sym_sync_all) can only be called
 * at the wrong time: test_errors.c calls them before sym_init and after
 * sym_finalize.  sym_global_exit accepts any status (test_faults.c).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"
#include "core/internal.h"

#define PAGE 4096
#define GUARD 0x5A
/* a status no function returns: "the query gave its documented failure
 * value" (NULL, -1, 0, "invalid") */
#define FAILED_VALUE ((sym_status_t)-1000)
#define SUCCEEDED_VALUE ((sym_status_t)-1001)
#define TEAM_SENTINEL ((sym_team_t)(uintptr_t)0x7e57)
#define REQ_SENTINEL ((sym_request_t)(uintptr_t)0x7e58)

/* What a row's call can reach. */
struct ctx {
    int me, npes, right;
    uint8_t *sym;   /* symmetric: [guard page][target page][guard page] */
    uint8_t *tgt;   /* sym + PAGE: the symmetric target */
    uint8_t *loc;   /* local: [guard page][target page][guard page] */
    uint8_t *ltgt;  /* loc + PAGE */
    uint8_t *heap_end; /* one past the user heap */
    sym_team_t world, dead;
    size_t counts[HARNESS_MAX_PES];
    size_t huge_counts[HARNESS_MAX_PES];
    int members_dup[2], members_out[2];
    sym_request_t req;
    sym_team_t tout[2]; /* team outputs: SYM_TEAM_INVALID after any failure */
};

enum family { F_NONE, F_RMA, F_AMO, F_WAIT, F_MEM, F_TEAM, F_COLL, F_NB, F_P2P };

struct bad_row {
    const char *fn;    /* the function (named in the message when msg) */
    const char *what;  /* the bad input */
    sym_status_t expect;
    bool msg;          /* a message naming fn is promised */
    enum family fam;   /* valid call to make afterwards */
    sym_status_t (*call)(struct ctx *c);
};

static sym_status_t is_null(const void *p) { return p == NULL ? FAILED_VALUE : SUCCEEDED_VALUE; }
static sym_status_t is_neg(int v) { return v == -1 ? FAILED_VALUE : SUCCEEDED_VALUE; }
static sym_status_t is_zero(long v) { return v == 0 ? FAILED_VALUE : SUCCEEDED_VALUE; }
static sym_status_t is_str(const char *s, const char *want)
{
    return s && !strcmp(s, want) ? FAILED_VALUE : SUCCEEDED_VALUE;
}

static const sym_coll_opts_t opts_neg = { SYM_ALGO_AUTO, -1.0, 0 };
static const sym_coll_opts_t opts_nan = { SYM_ALGO_AUTO, NAN, 0 };
static const sym_coll_opts_t opts_algo = { (sym_algorithm_t)99, 0, 0 };
static const sym_coll_opts_t opts_pairwise = { SYM_ALGO_PAIRWISE, 0, 0 };

#define C c->
#define T32 ((uint32_t *)c->tgt)
#define T64 ((uint64_t *)c->tgt)
#define ODD (c->tgt + 1)
#define OUTSIDE (c->loc + PAGE)          /* local memory: not symmetric */
#define PAST_END (c->heap_end - 8)       /* 8 bytes before the heap's end */
#define BAD_DT ((sym_datatype_t)99)
#define BAD_OP ((sym_op_t)99)
#define DST32 ((int32_t *)c->ltgt)
#define SRC32 ((const int32_t *)c->tgt)

/* ROW(id, fn, what, expect, msg, family, expression) */
#define BAD_ROWS(ROW)                                                                            \
    /* ---- runtime and status strings ---- */                                                   \
    ROW(init_twice, "sym_init", "already initialized", SYM_ERR_ALREADY_INITIALIZED, true, F_NONE,   \
        sym_init())                                                                              \
    ROW(strerror_bad, "sym_strerror", "code 12345", FAILED_VALUE, false, F_NONE,                 \
        is_str(sym_strerror((sym_status_t)12345), "unknown status"))                              \
    ROW(strerror_min, "sym_strerror", "code INT_MIN", FAILED_VALUE, false, F_NONE,               \
        is_str(sym_strerror((sym_status_t)INT_MIN), "unknown status"))                            \
    ROW(status_name_bad, "sym_status_name", "code -999", FAILED_VALUE, false, F_NONE,           \
        is_zero(strncmp(sym_status_name((sym_status_t)-999), "SYM_", 4) != 0))                    \
    /* ---- symmetric memory ---- */                                                             \
    ROW(malloc_sizemax, "sym_malloc", "SIZE_MAX bytes", FAILED_VALUE, true, F_MEM,               \
        is_null(sym_malloc(SIZE_MAX)))                                                           \
    ROW(malloc_heap, "sym_malloc", "more than the heap", FAILED_VALUE, true, F_MEM,              \
        is_null(sym_malloc(sym_rt.layout.user_size + 1)))                                        \
    ROW(malloc_near_max, "sym_malloc", "SIZE_MAX - 63 (rounding overflows)", FAILED_VALUE,     \
        true, F_MEM, is_null(sym_malloc(SIZE_MAX - 63)))                                         \
    ROW(calloc_overflow, "sym_calloc", "count x size overflows", FAILED_VALUE, true, F_MEM,      \
        is_null(sym_calloc(SIZE_MAX / 2, 3)))                                                    \
    ROW(calloc_heap, "sym_calloc", "more than the heap", FAILED_VALUE, true, F_MEM,              \
        is_null(sym_calloc(sym_rt.layout.user_size, 2)))                                         \
    ROW(align_zero, "sym_align", "alignment 0", FAILED_VALUE, true, F_MEM,                       \
        is_null(sym_align(0, 64)))                                                               \
    ROW(align_npot, "sym_align", "alignment 48", FAILED_VALUE, true, F_MEM,                      \
        is_null(sym_align(48, 64)))                                                              \
    ROW(align_huge, "sym_align", "alignment 4 MiB", FAILED_VALUE, true, F_MEM,                   \
        is_null(sym_align((size_t)4 << 20, 64)))                                                 \
    ROW(align_sizemax, "sym_align", "SIZE_MAX bytes", FAILED_VALUE, true, F_MEM,                 \
        is_null(sym_align(4096, SIZE_MAX)))                                                      \
    ROW(realloc_sizemax, "sym_realloc", "SIZE_MAX bytes", FAILED_VALUE, true, F_MEM,             \
        is_null(sym_realloc(c->tgt - PAGE, SIZE_MAX)))                                           \
    ROW(realloc_notobj, "sym_realloc", "not an object's start", FAILED_VALUE, true, F_MEM,       \
        is_null(sym_realloc(c->tgt, 128)))                                                       \
    ROW(realloc_local, "sym_realloc", "local memory", FAILED_VALUE, true, F_MEM,                 \
        is_null(sym_realloc(OUTSIDE, 128)))                                                      \
    ROW(free_local, "sym_free", "local memory", FAILED_VALUE, true, F_MEM,                       \
        (sym_free(OUTSIDE), FAILED_VALUE))                                                       \
    ROW(free_interior, "sym_free", "inside an object, not its start", FAILED_VALUE, true, F_MEM, \
        (sym_free(c->tgt), FAILED_VALUE))                                                        \
    ROW(free_past, "sym_free", "past the heap end", FAILED_VALUE, true, F_MEM,                   \
        (sym_free(c->heap_end + 64), FAILED_VALUE))                                              \
    ROW(heap_free_ok_nulls, "sym_heap_free", "both outputs NULL (allowed)", SYM_OK, false,       \
        F_MEM, sym_heap_free(NULL, NULL))                                                        \
    ROW(ptr_local, "sym_ptr", "local address", FAILED_VALUE, false, F_RMA,                       \
        is_null(sym_ptr(OUTSIDE, 0)))                                                            \
    ROW(ptr_pe_neg, "sym_ptr", "PE -1", FAILED_VALUE, false, F_RMA, is_null(sym_ptr(c->tgt, -1))) \
    ROW(ptr_pe_n, "sym_ptr", "PE npes", FAILED_VALUE, false, F_RMA,                              \
        is_null(sym_ptr(c->tgt, c->npes)))                                                       \
    ROW(ptr_null, "sym_ptr", "NULL", FAILED_VALUE, false, F_RMA, is_null(sym_ptr(NULL, 0)))      \
    ROW(acc_addr_local, "sym_addr_accessible", "local address", FAILED_VALUE, false, F_RMA,      \
        is_zero(sym_addr_accessible(OUTSIDE, 0)))                                                \
    ROW(acc_addr_pe, "sym_addr_accessible", "PE INT_MIN", FAILED_VALUE, false, F_RMA,            \
        is_zero(sym_addr_accessible(c->tgt, INT_MIN)))                                           \
    ROW(acc_pe_neg, "sym_pe_accessible", "PE -1", FAILED_VALUE, false, F_RMA,                    \
        is_zero(sym_pe_accessible(-1)))                                                          \
    ROW(acc_pe_n, "sym_pe_accessible", "PE npes", FAILED_VALUE, false, F_RMA,                    \
        is_zero(sym_pe_accessible(c->npes)))                                                     \
    /* ---- RMA ---- */                                                                          \
    ROW(put_null_src, "sym_put", "NULL src", SYM_ERR_INVALID_ARG, true, F_RMA,                   \
        sym_put(c->tgt, NULL, 8, c->right))                                                      \
    ROW(put_null_dest, "sym_put", "NULL dest", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,               \
        sym_put(NULL, c->ltgt, 8, c->right))                                                     \
    ROW(put_local_dest, "sym_put", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,             \
        sym_put(OUTSIDE, c->ltgt, 8, c->right))                                                  \
    ROW(put_sizemax, "sym_put", "SIZE_MAX bytes", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,            \
        sym_put(c->tgt, c->ltgt, SIZE_MAX, c->right))                                            \
    ROW(put_past_end, "sym_put", "16 bytes 8 before the heap end", SYM_ERR_NOT_SYMMETRIC, true,  \
        F_RMA, sym_put(PAST_END, c->ltgt, 16, c->right))                                         \
    ROW(put_heap_size, "sym_put", "the heap's size from the target", SYM_ERR_NOT_SYMMETRIC,     \
        true, F_RMA, sym_put(c->tgt, c->ltgt, sym_rt.layout.user_size, c->right))                \
    ROW(put_pe_neg, "sym_put", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                         \
        sym_put(c->tgt, c->ltgt, 8, -1))                                                         \
    ROW(put_pe_n, "sym_put", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,                         \
        sym_put(c->tgt, c->ltgt, 8, c->npes))                                                    \
    ROW(put_pe_min, "sym_put", "PE INT_MIN", SYM_ERR_INVALID_PE, true, F_RMA,                    \
        sym_put(c->tgt, c->ltgt, 8, INT_MIN))                                                    \
    ROW(get_null_dest, "sym_get", "NULL dest", SYM_ERR_INVALID_ARG, true, F_RMA,                 \
        sym_get(NULL, c->tgt, 8, c->right))                                                      \
    ROW(get_local_src, "sym_get", "local src", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,               \
        sym_get(c->ltgt, OUTSIDE, 8, c->right))                                                  \
    ROW(get_sizemax, "sym_get", "SIZE_MAX bytes", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,            \
        sym_get(c->ltgt, c->tgt, SIZE_MAX, c->right))                                            \
    ROW(get_past_end, "sym_get", "past the heap end", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,        \
        sym_get(c->ltgt, PAST_END, 9, c->right))                                                 \
    ROW(get_pe_n, "sym_get", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,                         \
        sym_get(c->ltgt, c->tgt, 8, c->npes))                                                    \
    ROW(put_nbi_null, "sym_put_nbi", "NULL src", SYM_ERR_INVALID_ARG, true, F_RMA,               \
        sym_put_nbi(c->tgt, NULL, 8, c->right))                                                  \
    ROW(put_nbi_sizemax, "sym_put_nbi", "SIZE_MAX bytes", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,    \
        sym_put_nbi(c->tgt, c->ltgt, SIZE_MAX, c->right))                                        \
    ROW(put_nbi_pe, "sym_put_nbi", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                     \
        sym_put_nbi(c->tgt, c->ltgt, 8, -1))                                                     \
    ROW(get_nbi_null, "sym_get_nbi", "NULL dest", SYM_ERR_INVALID_ARG, true, F_RMA,              \
        sym_get_nbi(NULL, c->tgt, 8, c->right))                                                  \
    ROW(get_nbi_local, "sym_get_nbi", "local src", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,           \
        sym_get_nbi(c->ltgt, OUTSIDE, 8, c->right))                                              \
    ROW(get_nbi_pe, "sym_get_nbi", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,                   \
        sym_get_nbi(c->ltgt, c->tgt, 8, c->npes))                                                \
    ROW(iput_stride0, "sym_iput", "dest stride 0", SYM_ERR_INVALID_ARG, true, F_RMA,             \
        sym_iput(c->tgt, c->ltgt, 0, 1, 8, 4, c->right))                                         \
    ROW(iput_stride_neg, "sym_iput", "src stride -1", SYM_ERR_INVALID_ARG, true, F_RMA,          \
        sym_iput(c->tgt, c->ltgt, 1, -1, 8, 4, c->right))                                        \
    ROW(iput_elem3, "sym_iput", "element size 3", SYM_ERR_INVALID_ARG, true, F_RMA,              \
        sym_iput(c->tgt, c->ltgt, 1, 1, 3, 4, c->right))                                         \
    ROW(iput_elem0, "sym_iput", "element size 0", SYM_ERR_INVALID_ARG, true, F_RMA,              \
        sym_iput(c->tgt, c->ltgt, 1, 1, 0, 4, c->right))                                         \
    ROW(iput_span, "sym_iput", "stride x count overflows", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,  \
        sym_iput(c->tgt, c->ltgt, PTRDIFF_MAX, 1, 8, 3, c->right))                               \
    ROW(iput_past, "sym_iput", "last element past the heap end", SYM_ERR_NOT_SYMMETRIC, true,    \
        F_RMA, sym_iput(PAST_END, c->ltgt, 2, 1, 8, 2, c->right))                                \
    ROW(iput_null, "sym_iput", "NULL src", SYM_ERR_INVALID_ARG, true, F_RMA,                     \
        sym_iput(c->tgt, NULL, 1, 1, 8, 2, c->right))                                            \
    ROW(iput_pe, "sym_iput", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                           \
        sym_iput(c->tgt, c->ltgt, 1, 1, 8, 2, -1))                                               \
    ROW(iget_stride0, "sym_iget", "src stride 0", SYM_ERR_INVALID_ARG, true, F_RMA,              \
        sym_iget(c->ltgt, c->tgt, 1, 0, 8, 4, c->right))                                         \
    ROW(iget_stride_min, "sym_iget", "stride PTRDIFF_MIN", SYM_ERR_INVALID_ARG, true, F_RMA,     \
        sym_iget(c->ltgt, c->tgt, PTRDIFF_MIN, 1, 8, 4, c->right))                               \
    ROW(iget_elem32, "sym_iget", "element size 32", SYM_ERR_INVALID_ARG, true, F_RMA,            \
        sym_iget(c->ltgt, c->tgt, 1, 1, 32, 4, c->right))                                        \
    ROW(iget_span, "sym_iget", "count SIZE_MAX", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,             \
        sym_iget(c->ltgt, c->tgt, 1, 1, 8, SIZE_MAX, c->right))                                  \
    ROW(iget_null, "sym_iget", "NULL dest", SYM_ERR_INVALID_ARG, true, F_RMA,                    \
        sym_iget(NULL, c->tgt, 1, 1, 8, 2, c->right))                                            \
    ROW(iget_pe, "sym_iget", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,                         \
        sym_iget(c->ltgt, c->tgt, 1, 1, 8, 2, c->npes))                                          \
    ROW(p8_local, "sym_p8", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,                    \
        sym_p8(OUTSIDE, 1, c->right))                                                            \
    ROW(p8_pe, "sym_p8", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA, sym_p8(c->tgt, 1, -1))        \
    ROW(p16_odd, "sym_p16", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                      \
        sym_p16((uint16_t *)ODD, 1, c->right))                                                   \
    ROW(p32_odd, "sym_p32", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                      \
        sym_p32((uint32_t *)(c->tgt + 2), 1, c->right))                                          \
    ROW(p64_odd, "sym_p64", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                      \
        sym_p64((uint64_t *)(c->tgt + 4), 1, c->right))                                          \
    ROW(p64_past, "sym_p64", "last word + 4 of the heap", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,    \
        sym_p64((uint64_t *)(c->heap_end - 4), 1, c->right))                                     \
    ROW(p64_pe, "sym_p64", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,                           \
        sym_p64(T64, 1, c->npes))                                                                \
    ROW(g8_null, "sym_g8", "NULL output", SYM_ERR_INVALID_ARG, true, F_RMA,                      \
        sym_g8(NULL, c->tgt, c->right))                                                          \
    ROW(g16_odd, "sym_g16", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                      \
        sym_g16((uint16_t *)c->ltgt, (uint16_t *)ODD, c->right))                                 \
    ROW(g32_local, "sym_g32", "local src", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,                   \
        sym_g32((uint32_t *)c->ltgt, (uint32_t *)OUTSIDE, c->right))                             \
    ROW(g64_odd, "sym_g64", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                      \
        sym_g64((uint64_t *)c->ltgt, (uint64_t *)(c->tgt + 4), c->right))                        \
    ROW(g64_pe, "sym_g64", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                             \
        sym_g64((uint64_t *)c->ltgt, T64, -1))                                                   \
    /* ---- atomics ---- */                                                                      \
    ROW(afetch32_null, "sym_atomic_fetch32", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,    \
        sym_atomic_fetch32(NULL, T32, c->right))                                                 \
    ROW(afetch64_odd, "sym_atomic_fetch64", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,      \
        sym_atomic_fetch64((uint64_t *)c->ltgt, (uint64_t *)(c->tgt + 4), c->right))             \
    ROW(aset32_pe, "sym_atomic_set32", "PE -1", SYM_ERR_INVALID_PE, true, F_AMO,                 \
        sym_atomic_set32(T32, 1, -1))                                                            \
    ROW(aset64_local, "sym_atomic_set64", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_AMO,      \
        sym_atomic_set64((uint64_t *)OUTSIDE, 1, c->right))                                      \
    ROW(aswap32_null, "sym_atomic_swap32", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,      \
        sym_atomic_swap32(T32, 1, NULL, c->right))                                               \
    ROW(aswap64_odd, "sym_atomic_swap64", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,        \
        sym_atomic_swap64((uint64_t *)ODD, 1, (uint64_t *)c->ltgt, c->right))                    \
    ROW(acswap32_odd, "sym_atomic_compare_swap32", "misaligned", SYM_ERR_INVALID_ARG, true,      \
        F_AMO, sym_atomic_compare_swap32((uint32_t *)(c->tgt + 2), 0, 1, (uint32_t *)c->ltgt,   \
                                         c->right))                                              \
    ROW(acswap64_null, "sym_atomic_compare_swap64", "NULL output", SYM_ERR_INVALID_ARG, true,   \
        F_AMO, sym_atomic_compare_swap64(T64, 0, 1, NULL, c->right))                             \
    ROW(aadd32_past, "sym_atomic_add32", "past the heap end", SYM_ERR_NOT_SYMMETRIC, true,      \
        F_AMO, sym_atomic_add32((uint32_t *)(c->heap_end - 2), 1, c->right))                     \
    ROW(aadd64_pe, "sym_atomic_add64", "PE npes", SYM_ERR_INVALID_PE, true, F_AMO,               \
        sym_atomic_add64(T64, 1, c->npes))                                                       \
    ROW(afadd32_null, "sym_atomic_fetch_add32", "NULL output", SYM_ERR_INVALID_ARG, true,       \
        F_AMO, sym_atomic_fetch_add32(T32, 1, NULL, c->right))                                   \
    ROW(afadd64_local, "sym_atomic_fetch_add64", "local dest", SYM_ERR_NOT_SYMMETRIC, true,     \
        F_AMO, sym_atomic_fetch_add64((uint64_t *)OUTSIDE, 1, (uint64_t *)c->ltgt, c->right))   \
    ROW(ainc32_odd, "sym_atomic_inc32", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,          \
        sym_atomic_inc32((uint32_t *)ODD, c->right))                                             \
    ROW(ainc64_pe, "sym_atomic_inc64", "PE INT_MAX", SYM_ERR_INVALID_PE, true, F_AMO,            \
        sym_atomic_inc64(T64, INT_MAX))                                                          \
    ROW(afinc32_null, "sym_atomic_fetch_inc32", "NULL output", SYM_ERR_INVALID_ARG, true,       \
        F_AMO, sym_atomic_fetch_inc32(T32, NULL, c->right))                                      \
    ROW(afinc64_null, "sym_atomic_fetch_inc64", "NULL output", SYM_ERR_INVALID_ARG, true,       \
        F_AMO, sym_atomic_fetch_inc64(T64, NULL, c->right))                                      \
    ROW(aand32_pe, "sym_atomic_and32", "PE -1", SYM_ERR_INVALID_PE, true, F_AMO,                 \
        sym_atomic_and32(T32, 1, -1))                                                            \
    ROW(aand64_odd, "sym_atomic_and64", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,          \
        sym_atomic_and64((uint64_t *)(c->tgt + 12), 1, c->right))                                \
    ROW(aor32_local, "sym_atomic_or32", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_AMO,        \
        sym_atomic_or32((uint32_t *)OUTSIDE, 1, c->right))                                       \
    ROW(aor64_pe, "sym_atomic_or64", "PE npes", SYM_ERR_INVALID_PE, true, F_AMO,                 \
        sym_atomic_or64(T64, 1, c->npes))                                                        \
    ROW(axor32_odd, "sym_atomic_xor32", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,          \
        sym_atomic_xor32((uint32_t *)(c->tgt + 1), 1, c->right))                                 \
    ROW(axor64_null_dest, "sym_atomic_xor64", "NULL dest", SYM_ERR_NOT_SYMMETRIC, true, F_AMO,   \
        sym_atomic_xor64(NULL, 1, c->right))                                                     \
    ROW(afand32_null, "sym_atomic_fetch_and32", "NULL output", SYM_ERR_INVALID_ARG, true,       \
        F_AMO, sym_atomic_fetch_and32(T32, 1, NULL, c->right))                                   \
    ROW(afand64_pe, "sym_atomic_fetch_and64", "PE -1", SYM_ERR_INVALID_PE, true, F_AMO,          \
        sym_atomic_fetch_and64(T64, 1, (uint64_t *)c->ltgt, -1))                                 \
    ROW(afor32_odd, "sym_atomic_fetch_or32", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,     \
        sym_atomic_fetch_or32((uint32_t *)ODD, 1, (uint32_t *)c->ltgt, c->right))                \
    ROW(afor64_null, "sym_atomic_fetch_or64", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,   \
        sym_atomic_fetch_or64(T64, 1, NULL, c->right))                                           \
    ROW(afxor32_local, "sym_atomic_fetch_xor32", "local dest", SYM_ERR_NOT_SYMMETRIC, true,     \
        F_AMO, sym_atomic_fetch_xor32((uint32_t *)OUTSIDE, 1, (uint32_t *)c->ltgt, c->right))   \
    ROW(afxor64_null, "sym_atomic_fetch_xor64", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO, \
        sym_atomic_fetch_xor64(T64, 1, NULL, c->right))                                          \
    /* ---- signals and waits ---- */                                                            \
    ROW(psig_op, "sym_put_signal", "signal op 0", SYM_ERR_INVALID_ARG, true, F_RMA,              \
        sym_put_signal(c->tgt + 64, c->ltgt, 8, T64, 1, (sym_signal_op_t)0, c->right))           \
    ROW(psig_op_big, "sym_put_signal", "signal op 99", SYM_ERR_INVALID_ARG, true, F_RMA,         \
        sym_put_signal(c->tgt + 64, c->ltgt, 8, T64, 1, (sym_signal_op_t)99, c->right))          \
    ROW(psig_odd, "sym_put_signal", "misaligned signal", SYM_ERR_INVALID_ARG, true, F_RMA,       \
        sym_put_signal(c->tgt + 64, c->ltgt, 8, (uint64_t *)ODD, 1, SYM_SIGNAL_SET, c->right))   \
    ROW(psig_local_sig, "sym_put_signal", "local signal word", SYM_ERR_NOT_SYMMETRIC, true,     \
        F_RMA, sym_put_signal(c->tgt + 64, c->ltgt, 8, (uint64_t *)OUTSIDE, 1, SYM_SIGNAL_SET,  \
                              c->right))                                                         \
    ROW(psig_null_src, "sym_put_signal", "NULL src", SYM_ERR_INVALID_ARG, true, F_RMA,           \
        sym_put_signal(c->tgt + 64, NULL, 8, T64, 1, SYM_SIGNAL_SET, c->right))                  \
    ROW(psig_sizemax, "sym_put_signal", "SIZE_MAX bytes", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,    \
        sym_put_signal(c->tgt + 64, c->ltgt, SIZE_MAX, T64, 1, SYM_SIGNAL_SET, c->right))        \
    ROW(psig_pe, "sym_put_signal", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                     \
        sym_put_signal(c->tgt + 64, c->ltgt, 8, T64, 1, SYM_SIGNAL_SET, -1))                     \
    ROW(psignbi_op, "sym_put_signal_nbi", "signal op -1", SYM_ERR_INVALID_ARG, true, F_RMA,      \
        sym_put_signal_nbi(c->tgt + 64, c->ltgt, 8, T64, 1, (sym_signal_op_t)-1, c->right))      \
    ROW(psignbi_pe, "sym_put_signal_nbi", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,            \
        sym_put_signal_nbi(c->tgt + 64, c->ltgt, 8, T64, 1, SYM_SIGNAL_ADD, c->npes))            \
    ROW(sfetch_null, "sym_signal_fetch", "NULL output", SYM_ERR_INVALID_ARG, true, F_WAIT,       \
        sym_signal_fetch(T64, NULL))                                                             \
    ROW(sfetch_local, "sym_signal_fetch", "local word", SYM_ERR_NOT_SYMMETRIC, true, F_WAIT,     \
        sym_signal_fetch((uint64_t *)OUTSIDE, (uint64_t *)c->ltgt))                              \
    ROW(sfetch_odd, "sym_signal_fetch", "misaligned", SYM_ERR_INVALID_ARG, true, F_WAIT,         \
        sym_signal_fetch((uint64_t *)ODD, (uint64_t *)c->ltgt))                                  \
    ROW(swait_cmp, "sym_signal_wait_until", "cmp 0", SYM_ERR_INVALID_ARG, true, F_WAIT,          \
        sym_signal_wait_until(T64, (sym_cmp_t)0, 1, NULL))                                       \
    ROW(swait_cmp_big, "sym_signal_wait_until", "cmp 7", SYM_ERR_INVALID_ARG, true, F_WAIT,      \
        sym_signal_wait_until(T64, (sym_cmp_t)7, 1, NULL))                                       \
    ROW(swait_local, "sym_signal_wait_until", "local word", SYM_ERR_NOT_SYMMETRIC, true, F_WAIT, \
        sym_signal_wait_until((uint64_t *)OUTSIDE, SYM_CMP_EQ, 1, NULL))                         \
    ROW(swait_null, "sym_signal_wait_until", "NULL word", SYM_ERR_NOT_SYMMETRIC, true, F_WAIT,   \
        sym_signal_wait_until(NULL, SYM_CMP_EQ, 1, NULL))                                        \
    WAIT_ROWS(ROW, int32, int32_t)                                                               \
    WAIT_ROWS(ROW, int64, int64_t)                                                               \
    WAIT_ROWS(ROW, uint32, uint32_t)                                                             \
    WAIT_ROWS(ROW, uint64, uint64_t)                                                             \
    /* ---- teams ---- */                                                                        \
    ROW(tmy_null, "sym_team_my_pe", "SYM_TEAM_INVALID", FAILED_VALUE, false, F_TEAM,             \
        is_neg(sym_team_my_pe(SYM_TEAM_INVALID)))                                                \
    ROW(tmy_dead, "sym_team_my_pe", "destroyed team", FAILED_VALUE, false, F_TEAM,               \
        is_neg(sym_team_my_pe(c->dead)))                                                         \
    ROW(tmy_garbage, "sym_team_my_pe", "a pointer that is not a team", FAILED_VALUE, false,     \
        F_TEAM, is_neg(sym_team_my_pe((sym_team_t)c->ltgt)))                                     \
    ROW(tn_dead, "sym_team_n_pes", "destroyed team", FAILED_VALUE, false, F_TEAM,                \
        is_neg(sym_team_n_pes(c->dead)))                                                         \
    ROW(tname_null, "sym_team_name", "SYM_TEAM_INVALID", FAILED_VALUE, false, F_TEAM,            \
        is_str(sym_team_name(SYM_TEAM_INVALID), "invalid"))                                      \
    ROW(tname_dead, "sym_team_name", "destroyed team", FAILED_VALUE, false, F_TEAM,              \
        is_str(sym_team_name(c->dead), "invalid"))                                               \
    ROW(tsplit_null_out, "sym_team_split_strided", "NULL output", SYM_ERR_INVALID_ARG, true,    \
        F_TEAM, sym_team_split_strided(c->world, 0, 1, 1, NULL))                                 \
    ROW(tsplit_dead, "sym_team_split_strided", "destroyed parent", SYM_ERR_INVALID_ARG, true,   \
        F_TEAM, sym_team_split_strided(c->dead, 0, 1, 1, &c->tout[0]))                 \
    ROW(tsplit_start, "sym_team_split_strided", "start -1", SYM_ERR_INVALID_ARG, true, F_TEAM,  \
        sym_team_split_strided(c->world, -1, 1, 1, &c->tout[0]))                       \
    ROW(tsplit_size0, "sym_team_split_strided", "size 0", SYM_ERR_INVALID_ARG, true, F_TEAM,    \
        sym_team_split_strided(c->world, 0, 1, 0, &c->tout[0]))                        \
    ROW(tsplit_size_big, "sym_team_split_strided", "size npes + 1", SYM_ERR_INVALID_ARG, true,  \
        F_TEAM, sym_team_split_strided(c->world, 0, 1, c->npes + 1, &c->tout[0]))      \
    ROW(tsplit_stride0, "sym_team_split_strided", "stride 0 with size 2", SYM_ERR_INVALID_ARG,  \
        true, F_TEAM, sym_team_split_strided(c->world, 0, 0, 2, &c->tout[0]))          \
    ROW(tsplit_stride_ovf, "sym_team_split_strided", "stride INT_MAX", SYM_ERR_INVALID_ARG,     \
        true, F_TEAM, sym_team_split_strided(c->world, 0, INT_MAX, 2, &c->tout[0]))    \
    ROW(tsplit_neg_ovf, "sym_team_split_strided", "start 0 stride -1 size 2",                  \
        SYM_ERR_INVALID_ARG, true, F_TEAM,                                                       \
        sym_team_split_strided(c->world, 0, -1, 2, &c->tout[0]))                       \
    ROW(t2d_xrange, "sym_team_split_2d", "xrange 0", SYM_ERR_INVALID_ARG, true, F_TEAM,          \
        sym_team_split_2d(c->world, 0, &c->tout[0], &c->tout[1]))        \
    ROW(t2d_xrange_neg, "sym_team_split_2d", "xrange -3", SYM_ERR_INVALID_ARG, true, F_TEAM,     \
        sym_team_split_2d(c->world, -3, &c->tout[0], &c->tout[1]))       \
    ROW(t2d_null, "sym_team_split_2d", "NULL output", SYM_ERR_INVALID_ARG, true, F_TEAM,         \
        sym_team_split_2d(c->world, 1, NULL, &c->tout[0]))                             \
    ROW(t2d_dead, "sym_team_split_2d", "destroyed parent", SYM_ERR_INVALID_ARG, true, F_TEAM,    \
        sym_team_split_2d(c->dead, 1, &c->tout[0], &c->tout[1]))         \
    ROW(tcreate_null, "sym_team_create", "NULL members", SYM_ERR_INVALID_ARG, true, F_TEAM,      \
        sym_team_create(c->world, NULL, 1, &c->tout[0]))                               \
    ROW(tcreate_zero, "sym_team_create", "0 members", SYM_ERR_INVALID_ARG, true, F_TEAM,         \
        sym_team_create(c->world, c->members_dup, 0, &c->tout[0]))                     \
    ROW(tcreate_neg, "sym_team_create", "-1 members", SYM_ERR_INVALID_ARG, true, F_TEAM,         \
        sym_team_create(c->world, c->members_dup, -1, &c->tout[0]))                    \
    ROW(tcreate_dup, "sym_team_create", "a member twice", SYM_ERR_INVALID_ARG, true, F_TEAM,     \
        sym_team_create(c->world, c->members_dup, 2, &c->tout[0]))                     \
    ROW(tcreate_out, "sym_team_create", "member npes", SYM_ERR_INVALID_ARG, true, F_TEAM,        \
        sym_team_create(c->world, c->members_out, 2, &c->tout[0]))                     \
    ROW(tcreate_out_null, "sym_team_create", "NULL output", SYM_ERR_INVALID_ARG, true, F_TEAM,   \
        sym_team_create(c->world, c->members_out, 1, NULL))                                      \
    ROW(tcreate_dead, "sym_team_create", "destroyed parent", SYM_ERR_INVALID_ARG, true, F_TEAM,  \
        sym_team_create(c->dead, c->members_out, 1, &c->tout[0]))                      \
    ROW(tmembers_null, "sym_team_members", "NULL output", SYM_ERR_INVALID_ARG, true, F_TEAM,     \
        sym_team_members(c->world, NULL))                                                        \
    ROW(tmembers_dead, "sym_team_members", "destroyed team", SYM_ERR_INVALID_ARG, true, F_TEAM,  \
        sym_team_members(c->dead, (int *)c->ltgt))                                               \
    ROW(tg2l_neg, "sym_team_global_to_local", "PE -1", FAILED_VALUE, false, F_TEAM,              \
        is_neg(sym_team_global_to_local(c->world, -1)))                                          \
    ROW(tg2l_n, "sym_team_global_to_local", "PE npes", FAILED_VALUE, false, F_TEAM,              \
        is_neg(sym_team_global_to_local(c->world, c->npes)))                                     \
    ROW(tg2l_dead, "sym_team_global_to_local", "destroyed team", FAILED_VALUE, false, F_TEAM,    \
        is_neg(sym_team_global_to_local(c->dead, 0)))                                            \
    ROW(tl2g_neg, "sym_team_local_to_global", "PE INT_MIN", FAILED_VALUE, false, F_TEAM,         \
        is_neg(sym_team_local_to_global(c->world, INT_MIN)))                                     \
    ROW(tl2g_null, "sym_team_local_to_global", "SYM_TEAM_INVALID", FAILED_VALUE, false, F_TEAM,  \
        is_neg(sym_team_local_to_global(SYM_TEAM_INVALID, 0)))                                   \
    ROW(ttr_src, "sym_team_translate_pe", "PE npes", FAILED_VALUE, false, F_TEAM,                \
        is_neg(sym_team_translate_pe(c->world, c->npes, c->world)))                              \
    ROW(ttr_dead, "sym_team_translate_pe", "destroyed destination", FAILED_VALUE, false, F_TEAM, \
        is_neg(sym_team_translate_pe(c->world, 0, c->dead)))                                     \
    ROW(tto_zero, "sym_team_set_timeout", "0 s", SYM_ERR_INVALID_ARG, true, F_TEAM,              \
        sym_team_set_timeout(c->world, 0))                                                       \
    ROW(tto_neg, "sym_team_set_timeout", "-1 s", SYM_ERR_INVALID_ARG, true, F_TEAM,              \
        sym_team_set_timeout(c->world, -1))                                                      \
    ROW(tto_nan, "sym_team_set_timeout", "NaN", SYM_ERR_INVALID_ARG, true, F_TEAM,               \
        sym_team_set_timeout(c->world, NAN))                                                     \
    ROW(tto_dead, "sym_team_set_timeout", "destroyed team", SYM_ERR_INVALID_ARG, true, F_TEAM,   \
        sym_team_set_timeout(c->dead, 1))                                                        \
    ROW(tdestroy_world, "sym_team_destroy", "the world team", SYM_ERR_INVALID_ARG, true, F_TEAM,  \
        sym_team_destroy(c->world))                                                              \
    ROW(tdestroy_null, "sym_team_destroy", "SYM_TEAM_INVALID", SYM_ERR_INVALID_ARG, true,        \
        F_TEAM, sym_team_destroy(SYM_TEAM_INVALID))                                              \
    ROW(tdestroy_dead, "sym_team_destroy", "destroyed twice", SYM_ERR_INVALID_ARG, true, F_TEAM, \
        sym_team_destroy(c->dead))                                                               \
    /* ---- datatypes and names ---- */                                                          \
    ROW(dtsize_0, "sym_datatype_size", "datatype 0", FAILED_VALUE, false, F_NONE,                \
        is_zero((long)sym_datatype_size((sym_datatype_t)0)))                                     \
    ROW(dtsize_big, "sym_datatype_size", "datatype 99", FAILED_VALUE, false, F_NONE,             \
        is_zero((long)sym_datatype_size(BAD_DT)))                                                \
    ROW(dtsize_neg, "sym_datatype_size", "datatype -1", FAILED_VALUE, false, F_NONE,             \
        is_zero((long)sym_datatype_size((sym_datatype_t)-1)))                                    \
    ROW(dtname_bad, "sym_datatype_name", "datatype 99", FAILED_VALUE, false, F_NONE,             \
        is_zero(strstr(sym_datatype_name(BAD_DT), "invalid") == NULL))                           \
    ROW(opname_bad, "sym_op_name", "op 99", FAILED_VALUE, false, F_NONE,                         \
        is_zero(strstr(sym_op_name(BAD_OP), "invalid") == NULL))                                 \
    ROW(opname_neg, "sym_op_name", "op -5", FAILED_VALUE, false, F_NONE,                         \
        is_zero(strstr(sym_op_name((sym_op_t)-5), "invalid") == NULL))                           \
    ROW(algname_bad, "sym_algorithm_name", "algorithm 99", FAILED_VALUE, false, F_NONE,          \
        is_zero(strstr(sym_algorithm_name((sym_algorithm_t)99), "invalid") == NULL))             \
    /* ---- collectives ---- */                                                                  \
    ROW(bar_null, "sym_barrier", "SYM_TEAM_INVALID", SYM_ERR_INVALID_ARG, true, F_COLL,          \
        sym_barrier(SYM_TEAM_INVALID, NULL))                                                     \
    ROW(bar_dead, "sym_barrier", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_barrier(c->dead, NULL))                                                              \
    ROW(bar_opts_neg, "sym_barrier", "timeout -1", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_barrier(c->world, &opts_neg))                                                        \
    ROW(bar_opts_algo, "sym_barrier", "algorithm 99", SYM_ERR_INVALID_ARG, true, F_COLL,         \
        sym_barrier(c->world, &opts_algo))                                                       \
    ROW(bar_opts_pw, "sym_barrier", "algorithm pairwise", SYM_ERR_INVALID_ARG, true, F_COLL,     \
        sym_barrier(c->world, &opts_pairwise))                                                   \
    ROW(bc_dead, "sym_broadcast", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,           \
        sym_broadcast(c->dead, c->ltgt, 4, SYM_INT32, 0, NULL))                                  \
    ROW(bc_null, "sym_broadcast", "NULL buffer", SYM_ERR_INVALID_ARG, true, F_COLL,              \
        sym_broadcast(c->world, NULL, 4, SYM_INT32, 0, NULL))                                    \
    ROW(bc_dt, "sym_broadcast", "datatype 99", SYM_ERR_INVALID_ARG, true, F_COLL,                \
        sym_broadcast(c->world, c->ltgt, 4, BAD_DT, 0, NULL))                                    \
    ROW(bc_dt0, "sym_broadcast", "datatype 0", SYM_ERR_INVALID_ARG, true, F_COLL,                \
        sym_broadcast(c->world, c->ltgt, 4, (sym_datatype_t)0, 0, NULL))                         \
    ROW(bc_root_neg, "sym_broadcast", "root -1", SYM_ERR_INVALID_ARG, true, F_COLL,              \
        sym_broadcast(c->world, c->ltgt, 4, SYM_INT32, -1, NULL))                                \
    ROW(bc_root_n, "sym_broadcast", "root npes", SYM_ERR_INVALID_ARG, true, F_COLL,              \
        sym_broadcast(c->world, c->ltgt, 4, SYM_INT32, c->npes, NULL))                           \
    ROW(bc_count, "sym_broadcast", "count SIZE_MAX", SYM_ERR_INVALID_ARG, true, F_COLL,          \
        sym_broadcast(c->world, c->ltgt, SIZE_MAX, SYM_INT32, 0, NULL))                          \
    ROW(bc_count_half, "sym_broadcast", "count SIZE_MAX/4 of int64", SYM_ERR_INVALID_ARG, true,  \
        F_COLL, sym_broadcast(c->world, c->ltgt, SIZE_MAX / 4, SYM_INT64, 0, NULL))              \
    ROW(bc_opts_nan, "sym_broadcast", "timeout NaN", SYM_ERR_INVALID_ARG, true, F_COLL,          \
        sym_broadcast(c->world, c->ltgt, 4, SYM_INT32, 0, &opts_nan))                            \
    ROW(bc_opts_pw, "sym_broadcast", "algorithm pairwise", SYM_ERR_INVALID_ARG, true, F_COLL,    \
        sym_broadcast(c->world, c->ltgt, 4, SYM_INT32, 0, &opts_pairwise))                       \
    ROW(red_op, "sym_reduce", "op 99", SYM_ERR_INVALID_ARG, true, F_COLL,                        \
        sym_reduce(c->world, DST32, SRC32, 4, SYM_INT32, BAD_OP, 0, NULL))                       \
    ROW(red_op0, "sym_reduce", "op 0", SYM_ERR_INVALID_ARG, true, F_COLL,                        \
        sym_reduce(c->world, DST32, SRC32, 4, SYM_INT32, (sym_op_t)0, 0, NULL))                  \
    ROW(red_bitfloat, "sym_reduce", "bxor on float", SYM_ERR_INVALID_ARG, true, F_COLL,          \
        sym_reduce(c->world, DST32, SRC32, 4, SYM_FLOAT, SYM_OP_BXOR, 0, NULL))                  \
    ROW(red_root, "sym_reduce", "root npes", SYM_ERR_INVALID_ARG, true, F_COLL,                  \
        sym_reduce(c->world, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, c->npes, NULL))             \
    ROW(red_null_src, "sym_reduce", "NULL src", SYM_ERR_INVALID_ARG, true, F_COLL,               \
        sym_reduce(c->world, DST32, NULL, 4, SYM_INT32, SYM_OP_SUM, 0, NULL))                    \
    ROW(red_count, "sym_reduce", "count SIZE_MAX", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_reduce(c->world, DST32, SRC32, SIZE_MAX, SYM_INT32, SYM_OP_SUM, 0, NULL))            \
    ROW(red_dead, "sym_reduce", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,             \
        sym_reduce(c->dead, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, 0, NULL))                    \
    ROW(ar_null, "sym_allreduce", "SYM_TEAM_INVALID", SYM_ERR_INVALID_ARG, true, F_COLL,         \
        sym_allreduce(SYM_TEAM_INVALID, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))           \
    ROW(ar_dead, "sym_allreduce", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,           \
        sym_allreduce(c->dead, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))                    \
    ROW(ar_garbage_team, "sym_allreduce", "a pointer that is not a team", SYM_ERR_INVALID_ARG,  \
        true, F_COLL,                                                                            \
        sym_allreduce((sym_team_t)c->ltgt, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))        \
    ROW(ar_dt, "sym_allreduce", "datatype -1", SYM_ERR_INVALID_ARG, true, F_COLL,                \
        sym_allreduce(c->world, DST32, SRC32, 4, (sym_datatype_t)-1, SYM_OP_SUM, NULL))          \
    ROW(ar_op, "sym_allreduce", "op INT_MAX", SYM_ERR_INVALID_ARG, true, F_COLL,                 \
        sym_allreduce(c->world, DST32, SRC32, 4, SYM_INT32, (sym_op_t)INT_MAX, NULL))            \
    ROW(ar_bitdouble, "sym_allreduce", "band on double", SYM_ERR_INVALID_ARG, true, F_COLL,      \
        sym_allreduce(c->world, DST32, SRC32, 2, SYM_DOUBLE, SYM_OP_BAND, NULL))                 \
    ROW(ar_bitf16, "sym_allreduce", "bor on float16", SYM_ERR_INVALID_ARG, true, F_COLL,         \
        sym_allreduce(c->world, DST32, SRC32, 2, SYM_FLOAT16, SYM_OP_BOR, NULL))                 \
    ROW(ar_null_dst, "sym_allreduce", "NULL dst", SYM_ERR_INVALID_ARG, true, F_COLL,             \
        sym_allreduce(c->world, NULL, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))                    \
    ROW(ar_count, "sym_allreduce", "count SIZE_MAX", SYM_ERR_INVALID_ARG, true, F_COLL,          \
        sym_allreduce(c->world, DST32, SRC32, SIZE_MAX, SYM_INT32, SYM_OP_SUM, NULL))            \
    ROW(ar_count_q, "sym_allreduce", "count SIZE_MAX/8 of double", SYM_ERR_INVALID_ARG, true,    \
        F_COLL, sym_allreduce(c->world, DST32, SRC32, SIZE_MAX / 8, SYM_DOUBLE, SYM_OP_SUM,     \
                              NULL))                                                             \
    ROW(ar_opts, "sym_allreduce", "algorithm pairwise", SYM_ERR_INVALID_ARG, true, F_COLL,       \
        sym_allreduce(c->world, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, &opts_pairwise))         \
    ROW(rs_op, "sym_reduce_scatter", "op 0", SYM_ERR_INVALID_ARG, true, F_COLL,                  \
        sym_reduce_scatter(c->world, DST32, SRC32, 4, SYM_INT32, (sym_op_t)0, NULL))             \
    ROW(rs_null, "sym_reduce_scatter", "NULL src", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_reduce_scatter(c->world, DST32, NULL, 4, SYM_INT32, SYM_OP_SUM, NULL))               \
    ROW(rs_count, "sym_reduce_scatter", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL, \
        sym_reduce_scatter(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, SYM_OP_SUM, NULL))   \
    ROW(rs_dead, "sym_reduce_scatter", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,      \
        sym_reduce_scatter(c->dead, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))               \
    ROW(ag_dt, "sym_all_gather", "datatype 13", SYM_ERR_INVALID_ARG, true, F_COLL,               \
        sym_all_gather(c->world, DST32, SRC32, 4, (sym_datatype_t)13, NULL))                     \
    ROW(ag_null, "sym_all_gather", "NULL dst", SYM_ERR_INVALID_ARG, true, F_COLL,                \
        sym_all_gather(c->world, NULL, SRC32, 4, SYM_INT32, NULL))                               \
    ROW(ag_count, "sym_all_gather", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL,    \
        sym_all_gather(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, NULL))                   \
    ROW(ag_algo, "sym_all_gather", "algorithm tree", SYM_ERR_INVALID_ARG, true, F_COLL,          \
        sym_all_gather(c->world, DST32, SRC32, 4, SYM_INT32,                                     \
                       &(const sym_coll_opts_t){ SYM_ALGO_TREE, 0, 0 }))                         \
    ROW(agv_null_counts, "sym_all_gatherv", "NULL counts", SYM_ERR_INVALID_ARG, true, F_COLL,    \
        sym_all_gatherv(c->world, DST32, SRC32, NULL, SYM_INT32, NULL))                          \
    ROW(agv_huge, "sym_all_gatherv", "counts summing past SIZE_MAX", SYM_ERR_INVALID_ARG, true,  \
        F_COLL, sym_all_gatherv(c->world, DST32, SRC32, c->huge_counts, SYM_INT32, NULL))        \
    ROW(agv_dt, "sym_all_gatherv", "datatype 0", SYM_ERR_INVALID_ARG, true, F_COLL,              \
        sym_all_gatherv(c->world, DST32, SRC32, c->counts, (sym_datatype_t)0, NULL))             \
    ROW(agv_null_dst, "sym_all_gatherv", "NULL dst", SYM_ERR_INVALID_ARG, true, F_COLL,          \
        sym_all_gatherv(c->world, NULL, SRC32, c->counts, SYM_INT32, NULL))                      \
    ROW(a2a_null, "sym_all_to_all", "NULL src", SYM_ERR_INVALID_ARG, true, F_COLL,               \
        sym_all_to_all(c->world, DST32, NULL, 4, SYM_INT32, NULL))                               \
    ROW(a2a_count, "sym_all_to_all", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL,   \
        sym_all_to_all(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, NULL))                   \
    ROW(a2a_dead, "sym_all_to_all", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,         \
        sym_all_to_all(c->dead, DST32, SRC32, 4, SYM_INT32, NULL))                               \
    ROW(a2a_algo, "sym_all_to_all", "algorithm ring", SYM_ERR_INVALID_ARG, true, F_COLL,         \
        sym_all_to_all(c->world, DST32, SRC32, 4, SYM_INT32,                                     \
                       &(const sym_coll_opts_t){ SYM_ALGO_RING, 0, 0 }))                         \
    ROW(a2av_null_rc, "sym_all_to_allv", "NULL recv counts", SYM_ERR_INVALID_ARG, true, F_COLL,  \
        sym_all_to_allv(c->world, DST32, NULL, SRC32, c->counts, SYM_INT32, NULL))               \
    ROW(a2av_null_sc, "sym_all_to_allv", "NULL send counts", SYM_ERR_INVALID_ARG, true, F_COLL,  \
        sym_all_to_allv(c->world, DST32, c->counts, SRC32, NULL, SYM_INT32, NULL))               \
    ROW(a2av_huge, "sym_all_to_allv", "counts summing past SIZE_MAX", SYM_ERR_INVALID_ARG, true, \
        F_COLL, sym_all_to_allv(c->world, DST32, c->huge_counts, SRC32, c->huge_counts,         \
                                SYM_INT32, NULL))                                                \
    ROW(a2av_dt, "sym_all_to_allv", "datatype 99", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_all_to_allv(c->world, DST32, c->counts, SRC32, c->counts, BAD_DT, NULL))             \
    ROW(ga_root, "sym_gather", "root -1", SYM_ERR_INVALID_ARG, true, F_COLL,                     \
        sym_gather(c->world, DST32, SRC32, 4, SYM_INT32, -1, NULL))                              \
    ROW(ga_null, "sym_gather", "NULL src", SYM_ERR_INVALID_ARG, true, F_COLL,                    \
        sym_gather(c->world, DST32, NULL, 4, SYM_INT32, 0, NULL))                                \
    ROW(ga_count, "sym_gather", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL,        \
        sym_gather(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, 0, NULL))                    \
    ROW(ga_dt, "sym_gather", "datatype 99", SYM_ERR_INVALID_ARG, true, F_COLL,                   \
        sym_gather(c->world, DST32, SRC32, 4, BAD_DT, 0, NULL))                                  \
    ROW(sc_root, "sym_scatter", "root npes", SYM_ERR_INVALID_ARG, true, F_COLL,                  \
        sym_scatter(c->world, DST32, SRC32, 4, SYM_INT32, c->npes, NULL))                        \
    ROW(sc_null, "sym_scatter", "NULL dst", SYM_ERR_INVALID_ARG, true, F_COLL,                   \
        sym_scatter(c->world, NULL, SRC32, 4, SYM_INT32, 0, NULL))                               \
    ROW(sc_count, "sym_scatter", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL,       \
        sym_scatter(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, 0, NULL))                   \
    ROW(sc_dead, "sym_scatter", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,             \
        sym_scatter(c->dead, DST32, SRC32, 4, SYM_INT32, 0, NULL))                               \
    /* ---- non-blocking collectives and requests ---- */                                        \
    ROW(wait_null, "sym_wait", "NULL request pointer", SYM_ERR_INVALID_ARG, true, F_NB,          \
        sym_wait(NULL))                                                                          \
    ROW(wait_nullreq, "sym_wait", "SYM_REQUEST_NULL", SYM_ERR_INVALID_ARG, true, F_NB,           \
        sym_wait(&(sym_request_t){ SYM_REQUEST_NULL }))                                          \
    ROW(wait_garbage, "sym_wait", "a pointer that is not a request", SYM_ERR_INVALID_ARG, true,  \
        F_NB, sym_wait(&(sym_request_t){ (sym_request_t)c->ltgt }))                              \
    ROW(test_null, "sym_test", "NULL request pointer", SYM_ERR_INVALID_ARG, true, F_NB,          \
        sym_test(NULL, (int *)c->ltgt))                                                          \
    ROW(test_garbage, "sym_test", "a pointer that is not a request", SYM_ERR_INVALID_ARG, true,  \
        F_NB, sym_test(&(sym_request_t){ (sym_request_t)c->ltgt }, (int *)c->ltgt))             \
    ROW(reqop_null, "sym_request_op", "SYM_REQUEST_NULL", FAILED_VALUE, false, F_NB,             \
        is_str(sym_request_op(SYM_REQUEST_NULL), "invalid"))                                     \
    ROW(reqop_garbage, "sym_request_op", "not a request", FAILED_VALUE, false, F_NB,             \
        is_str(sym_request_op((sym_request_t)c->ltgt), "invalid"))                               \
    ROW(ibar_null_req, "sym_ibarrier", "NULL req_p", SYM_ERR_INVALID_ARG, true, F_NB,            \
        sym_ibarrier(c->world, NULL, NULL))                                                      \
    ROW(ibar_dead, "sym_ibarrier", "destroyed team", SYM_ERR_INVALID_ARG, true, F_NB,            \
        sym_ibarrier(c->dead, NULL, &c->req))                                   \
    NB_ROW(ROW, ibc_root, "sym_ibroadcast", "root npes",                                         \
           sym_ibroadcast(c->world, c->ltgt, 4, SYM_INT32, c->npes, NULL, &c->req))                 \
    NB_ROW(ROW, ired_op, "sym_ireduce", "op 99",                                                 \
           sym_ireduce(c->world, DST32, SRC32, 4, SYM_INT32, BAD_OP, 0, NULL, &c->req))             \
    NB_ROW(ROW, iar_dt, "sym_iallreduce", "datatype 99",                                         \
           sym_iallreduce(c->world, DST32, SRC32, 4, BAD_DT, SYM_OP_SUM, NULL, &c->req))            \
    NB_ROW(ROW, iar_count, "sym_iallreduce", "count SIZE_MAX",                                   \
           sym_iallreduce(c->world, DST32, SRC32, SIZE_MAX, SYM_INT32, SYM_OP_SUM, NULL, &c->req))  \
    NB_ROW(ROW, irs_null, "sym_ireduce_scatter", "NULL src",                                     \
           sym_ireduce_scatter(c->world, DST32, NULL, 4, SYM_INT32, SYM_OP_SUM, NULL, &c->req))     \
    NB_ROW(ROW, iag_null, "sym_iall_gather", "NULL dst",                                         \
           sym_iall_gather(c->world, NULL, SRC32, 4, SYM_INT32, NULL, &c->req))                     \
    NB_ROW(ROW, iagv_null, "sym_iall_gatherv", "NULL counts",                                    \
           sym_iall_gatherv(c->world, DST32, SRC32, NULL, SYM_INT32, NULL, &c->req))                \
    NB_ROW(ROW, ia2a_count, "sym_iall_to_all", "n x count overflows",                            \
           sym_iall_to_all(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, NULL, &c->req))         \
    NB_ROW(ROW, ia2av_null, "sym_iall_to_allv", "NULL send counts",                              \
           sym_iall_to_allv(c->world, DST32, c->counts, SRC32, NULL, SYM_INT32, NULL, &c->req))     \
    NB_ROW(ROW, iga_root, "sym_igather", "root -1",                                              \
           sym_igather(c->world, DST32, SRC32, 4, SYM_INT32, -1, NULL, &c->req))                    \
    NB_ROW(ROW, isc_opts, "sym_iscatter", "timeout -1",                                          \
           sym_iscatter(c->world, DST32, SRC32, 4, SYM_INT32, 0, &opts_neg, &c->req))               \
    ROW(iar_dead, "sym_iallreduce", "destroyed team", SYM_ERR_INVALID_ARG, true, F_NB,           \
        sym_iallreduce(c->dead, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL, &c->req))                                                \
    ROW(iga_null_req, "sym_igather", "NULL req_p", SYM_ERR_INVALID_ARG, true, F_NB,              \
        sym_igather(c->world, DST32, SRC32, 4, SYM_INT32, 0, NULL, NULL))                        \
    /* ---- point-to-point ---- */                                                               \
    ROW(send_self, "sym_send", "to itself", SYM_ERR_INVALID_ARG, true, F_P2P,                    \
        sym_send(c->ltgt, 8, c->me, 0))                                                          \
    ROW(send_pe, "sym_send", "PE npes", SYM_ERR_INVALID_PE, true, F_P2P,                         \
        sym_send(c->ltgt, 8, c->npes, 0))                                                        \
    ROW(send_pe_neg, "sym_send", "PE -1", SYM_ERR_INVALID_PE, true, F_P2P,                       \
        sym_send(c->ltgt, 8, -1, 0))                                                             \
    ROW(send_null, "sym_send", "NULL buffer", SYM_ERR_INVALID_ARG, true, F_P2P,                  \
        sym_send(NULL, 8, c->right == c->me ? c->npes : c->right, 0))                            \
    ROW(send_tag, "sym_send", "tag -1", SYM_ERR_INVALID_ARG, true, F_P2P,                        \
        sym_send(c->ltgt, 8, c->right == c->me ? c->npes : c->right, -1))                        \
    ROW(recv_self, "sym_recv", "from itself", SYM_ERR_INVALID_ARG, true, F_P2P,                  \
        sym_recv(c->ltgt, 8, c->me, 0, NULL))                                                    \
    ROW(recv_pe, "sym_recv", "PE INT_MIN", SYM_ERR_INVALID_PE, true, F_P2P,                      \
        sym_recv(c->ltgt, 8, INT_MIN, 0, NULL))                                                  \
    ROW(recv_null, "sym_recv", "NULL buffer", SYM_ERR_INVALID_ARG, true, F_P2P,                  \
        sym_recv(NULL, 8, c->right == c->me ? c->npes : c->right, 0, NULL))                      \
    ROW(recv_tag, "sym_recv", "tag -2", SYM_ERR_INVALID_ARG, true, F_P2P,                        \
        sym_recv(c->ltgt, 8, c->right == c->me ? c->npes : c->right, -2, NULL))                  \
    ROW(sr_pe, "sym_sendrecv", "destination npes", SYM_ERR_INVALID_PE, true, F_P2P,              \
        sym_sendrecv(c->ltgt, 8, c->npes, 0, c->ltgt + 64, 8, 0, 0, NULL))                       \
    ROW(sr_self, "sym_sendrecv", "source itself", SYM_ERR_INVALID_ARG, true, F_P2P,              \
        sym_sendrecv(c->ltgt, 8, c->right, 0, c->ltgt + 64, 8, c->me, 0, NULL))                  \
    ROW(sr_null, "sym_sendrecv", "NULL receive buffer", SYM_ERR_INVALID_ARG, true, F_P2P,        \
        sym_sendrecv(c->ltgt, 8, c->right, 0, NULL, 8, c->right, 0, NULL))                       \
    ROW(sr_tag, "sym_sendrecv", "send tag -7", SYM_ERR_INVALID_ARG, true, F_P2P,                 \
        sym_sendrecv(c->ltgt, 8, c->right, -7, c->ltgt + 64, 8, c->right, 0, NULL))              \
    ROW(sr_overlap, "sym_sendrecv", "overlapping send and receive buffers",                     \
        SYM_ERR_INVALID_ARG, true, F_P2P,                                                        \
        sym_sendrecv(c->ltgt, 64, c->right, 0, c->ltgt + 32, 64, c->right, 0, NULL))

/* Every wait and test form for one type: bad cmp, misalignment, local and
 * NULL words, NULL outputs, arrays running past the heap. */
#define WAIT_ROWS(ROW, name, T)                                                                  \
    ROW(w_##name##_cmp, "sym_wait_until_" #name, "cmp 0", SYM_ERR_INVALID_ARG, true, F_WAIT,     \
        sym_wait_until_##name((T *)c->tgt, (sym_cmp_t)0, 0))                                     \
    ROW(w_##name##_odd, "sym_wait_until_" #name, "misaligned", SYM_ERR_INVALID_ARG, true,        \
        F_WAIT, sym_wait_until_##name((T *)ODD, SYM_CMP_EQ, 0))                                  \
    ROW(w_##name##_local, "sym_wait_until_" #name, "local word", SYM_ERR_NOT_SYMMETRIC, true,    \
        F_WAIT, sym_wait_until_##name((T *)OUTSIDE, SYM_CMP_EQ, 0))                              \
    ROW(t_##name##_null, "sym_test_" #name, "NULL output", SYM_ERR_INVALID_ARG, true, F_WAIT,    \
        sym_test_##name((T *)c->tgt, SYM_CMP_EQ, 0, NULL))                                       \
    ROW(t_##name##_cmp, "sym_test_" #name, "cmp 99", SYM_ERR_INVALID_ARG, true, F_WAIT,          \
        sym_test_##name((T *)c->tgt, (sym_cmp_t)99, 0, (int *)c->ltgt))                          \
    ROW(wall_##name##_ovf, "sym_wait_until_all_" #name, "nelems SIZE_MAX", SYM_ERR_INVALID_ARG, \
        true, F_WAIT, sym_wait_until_all_##name((T *)c->tgt, SIZE_MAX, NULL, SYM_CMP_EQ, 0))     \
    ROW(wall_##name##_past, "sym_wait_until_all_" #name, "array past the heap end",              \
        SYM_ERR_NOT_SYMMETRIC, true, F_WAIT,                                                     \
        sym_wait_until_all_##name((T *)PAST_END, 4, NULL, SYM_CMP_EQ, 0))                        \
    ROW(wany_##name##_null, "sym_wait_until_any_" #name, "NULL index output",                    \
        SYM_ERR_INVALID_ARG, true, F_WAIT,                                                       \
        sym_wait_until_any_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, NULL))                    \
    ROW(wany_##name##_cmp, "sym_wait_until_any_" #name, "cmp -1", SYM_ERR_INVALID_ARG, true,     \
        F_WAIT, sym_wait_until_any_##name((T *)c->tgt, 2, NULL, (sym_cmp_t)-1, 0,                \
                                          (size_t *)c->ltgt))                                    \
    ROW(wsome_##name##_null, "sym_wait_until_some_" #name, "NULL indices",                       \
        SYM_ERR_INVALID_ARG, true, F_WAIT,                                                       \
        sym_wait_until_some_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, NULL,                    \
                                   (size_t *)c->ltgt))                                           \
    ROW(wsome_##name##_local, "sym_wait_until_some_" #name, "local array",                       \
        SYM_ERR_NOT_SYMMETRIC, true, F_WAIT,                                                     \
        sym_wait_until_some_##name((T *)OUTSIDE, 2, NULL, SYM_CMP_EQ, 0, (size_t *)c->ltgt,      \
                                   (size_t *)c->ltgt + 4))                                       \
    ROW(tall_##name##_null, "sym_test_all_" #name, "NULL output", SYM_ERR_INVALID_ARG, true,     \
        F_WAIT, sym_test_all_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, NULL))                  \
    ROW(tall_##name##_odd, "sym_test_all_" #name, "misaligned", SYM_ERR_INVALID_ARG, true,       \
        F_WAIT, sym_test_all_##name((T *)(c->tgt + 2), 2, NULL, SYM_CMP_EQ, 0, (int *)c->ltgt))  \
    ROW(tany_##name##_null, "sym_test_any_" #name, "NULL output", SYM_ERR_INVALID_ARG, true,     \
        F_WAIT, sym_test_any_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, NULL))                  \
    ROW(tany_##name##_ovf, "sym_test_any_" #name, "nelems SIZE_MAX/2", SYM_ERR_INVALID_ARG,      \
        true, F_WAIT, sym_test_any_##name((T *)c->tgt, SIZE_MAX / 2, NULL, SYM_CMP_EQ, 0,        \
                                          (size_t *)c->ltgt))                                    \
    ROW(tsome_##name##_null, "sym_test_some_" #name, "NULL count", SYM_ERR_INVALID_ARG, true,    \
        F_WAIT, sym_test_some_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, (size_t *)c->ltgt,     \
                                     NULL))                                                      \
    ROW(tsome_##name##_cmp, "sym_test_some_" #name, "cmp 0", SYM_ERR_INVALID_ARG, true, F_WAIT,  \
        sym_test_some_##name((T *)c->tgt, 2, NULL, (sym_cmp_t)0, 0, (size_t *)c->ltgt,           \
                             (size_t *)c->ltgt + 4))

/* A non-blocking collective with a bad argument: refused at once, or
 * issued and its error reported by sym_wait (as documented); either way the
 * documented status. */
#define NB_ROW(ROW, id, fn, what, expr)                                                          \
    ROW(id, fn, what, SYM_ERR_INVALID_ARG, true, F_NB, nb_outcome(c, (expr)))

static sym_status_t nb_outcome(struct ctx *c, sym_status_t st)
{
    if (st != SYM_OK)
        return st;
    return sym_wait(&c->req);
}

#define DEFINE_CALL_(id, fn, what, expect, msg, fam, expr)                                       \
    static sym_status_t call_##id(struct ctx *c)                                                 \
    {                                                                                            \
        (void)c;                                                                                 \
        return (expr);                                                                           \
    }
BAD_ROWS(DEFINE_CALL_)
#undef DEFINE_CALL_

static const struct bad_row rows[] = {
#define ROW_ENTRY_(id, fn, what, expect, msg, fam, expr) { fn, what, expect, msg, fam, call_##id },
    BAD_ROWS(ROW_ENTRY_)
#undef ROW_ENTRY_
};
#define NROWS (sizeof(rows) / sizeof(rows[0]))

/* ---- the runner ----------------------------------------------------------- */

struct valid_state {
    uint64_t *ok;      /* symmetric scratch for the valid calls: 64 words */
    uint64_t round;
};

static void check_guards(const struct ctx *c, const struct bad_row *r, size_t i)
{
    for (size_t k = 0; k < 3 * PAGE; k++) {
        if (c->sym[k] != GUARD)
            pe_fail(__FILE__, __LINE__, r->fn, "row %zu (%s: %s) wrote symmetric byte %zu "
                    "(0x%02x)", i, r->fn, r->what, k, c->sym[k]);
        if (c->loc[k] != GUARD)
            pe_fail(__FILE__, __LINE__, r->fn, "row %zu (%s: %s) wrote local byte %zu (0x%02x)",
                    i, r->fn, r->what, k, c->loc[k]);
    }
    for (size_t k = 0; k < 64; k++)
        if (c->heap_end[-1 - (ptrdiff_t)k] != GUARD)
            pe_fail(__FILE__, __LINE__, r->fn, "row %zu (%s: %s) wrote the heap's last bytes",
                    i, r->fn, r->what);
}

/* A valid call of the row's family, with checked data. */
static void valid_call(struct ctx *c, struct valid_state *v, enum family fam)
{
    const int me = c->me, n = c->npes, right = c->right, left = (me + n - 1) % n;
    const uint64_t round = ++v->round;
    switch (fam) {
    case F_NONE:
        return;
    case F_RMA: {
        uint64_t mine[4], got[4];
        for (int i = 0; i < 4; i++)
            mine[i] = round << 32 | (uint64_t)me << 8 | (uint64_t)i;
        PE_OK(sym_put(v->ok, mine, sizeof(mine), right));
        PE_OK(sym_barrier_all());
        for (int i = 0; i < 4; i++)
            PE_ASSERT(v->ok[i] == (round << 32 | (uint64_t)left << 8 | (uint64_t)i),
                      "valid put after a bad call: word %d wrong", i);
        PE_OK(sym_get(got, v->ok, sizeof(got), right));
        for (int i = 0; i < 4; i++)
            PE_ASSERT(got[i] == (round << 32 | (uint64_t)me << 8 | (uint64_t)i),
                      "valid get after a bad call: word %d wrong", i);
        break;
    }
    case F_AMO: {
        uint64_t old = 0;
        PE_OK(sym_atomic_fetch_add64(&v->ok[8], 1, &old, right));
        PE_OK(sym_barrier_all());
        uint64_t now;
        PE_OK(sym_atomic_fetch64(&now, &v->ok[8], me));
        PE_ASSERT(now == v->ok[9] + 1, "valid atomic after a bad call: %llu, expected %llu",
                  (unsigned long long)now, (unsigned long long)(v->ok[9] + 1));
        v->ok[9] = now;
        break;
    }
    case F_WAIT:
        PE_OK(sym_p64(&v->ok[16], round, right));
        PE_OK(sym_wait_until_uint64(&v->ok[16], SYM_CMP_GE, round));
        break;
    case F_MEM: {
        uint8_t *p = sym_calloc(1, 200);
        PE_ASSERT(p, "valid sym_calloc after a bad call: %s", sym_last_error());
        for (int i = 0; i < 200; i++)
            PE_ASSERT(p[i] == 0, "sym_calloc memory not zero");
        sym_free(p);
        break;
    }
    case F_TEAM: {
        sym_team_t t = SYM_TEAM_INVALID;
        PE_OK(sym_team_split_strided(c->world, 0, 1, n, &t));
        PE_ASSERT(sym_team_n_pes(t) == n && sym_team_my_pe(t) == me, "split team wrong");
        PE_OK(sym_team_destroy(t));
        break;
    }
    case F_COLL:
    case F_NB: {
        int64_t in[3] = { me + 1, (int64_t)round, -me }, out[3];
        if (fam == F_COLL) {
            PE_OK(sym_allreduce(c->world, out, in, 3, SYM_INT64, SYM_OP_SUM, NULL));
        } else {
            sym_request_t req;
            PE_OK(sym_iallreduce(c->world, out, in, 3, SYM_INT64, SYM_OP_SUM, NULL, &req));
            PE_OK(sym_wait(&req));
        }
        PE_ASSERT(out[0] == (int64_t)n * (n + 1) / 2 && out[1] == (int64_t)round * n &&
                  out[2] == -(int64_t)n * (n - 1) / 2, "valid allreduce after a bad call wrong");
        break;
    }
    case F_P2P: {
        uint64_t s = round << 16 | (uint64_t)me, r = 0;
        size_t got = 0;
        PE_OK(sym_sendrecv(&s, sizeof(s), right, 3, &r, sizeof(r), left, 3, &got));
        PE_ASSERT(got == sizeof(r) && r == (round << 16 | (uint64_t)left),
                  "valid sendrecv after a bad call wrong");
        break;
    }
    }
}

static bool message_names(const char *msg, const char *fn)
{
    if (strstr(msg, fn))
        return true;
    /* a non-blocking call's argument error is the collective's own */
    if (!strncmp(fn, "sym_i", 5)) {
        char base[64];
        snprintf(base, sizeof(base), "sym_%s", fn + 5);
        return strstr(msg, base) != NULL;
    }
    return false;
}

static void bad_input_body(int me, int npes, void *arg)
{
    (void)arg;
    struct ctx c = { .me = me, .npes = npes, .right = (me + 1) % npes };
    c.sym = sym_malloc(3 * PAGE);
    struct valid_state v = { .ok = sym_calloc(64, sizeof(uint64_t)) };
    PE_ASSERT(c.sym && v.ok, "sym_malloc: %s", sym_last_error());
    c.tgt = c.sym + PAGE;
    c.loc = malloc(3 * PAGE);
    PE_ASSERT(c.loc, "malloc");
    c.ltgt = c.loc + PAGE;
    memset(c.sym, GUARD, 3 * PAGE);
    memset(c.loc, GUARD, 3 * PAGE);
    c.heap_end = sym_rt.base + sym_rt.layout.user_off + sym_rt.layout.user_size;
    memset(c.heap_end - 64, GUARD, 64); /* free heap space: nobody else writes there */
    c.world = sym_team_world();
    PE_OK(sym_team_split_strided(c.world, 0, 1, npes, &c.dead));
    PE_OK(sym_team_destroy(c.dead));
    for (int i = 0; i < npes; i++) {
        c.counts[i] = 4;
        c.huge_counts[i] = SIZE_MAX / 2;
    }
    c.members_dup[0] = c.members_dup[1] = 0;
    c.members_out[0] = 0;
    c.members_out[1] = npes;
    PE_OK(sym_barrier_all());

    for (size_t i = 0; i < NROWS; i++) {
        const struct bad_row *r = &rows[i];
        sym_error(SYM_ERR_INTERNAL, "(no message recorded)");
        c.tout[0] = c.tout[1] = TEAM_SENTINEL;
        c.req = REQ_SENTINEL;
        sym_status_t st = r->call(&c);
        PE_ASSERT(c.req == REQ_SENTINEL || c.req == SYM_REQUEST_NULL,
                  "row %zu (%s: %s) left %p as the request", i, r->fn, r->what, (void *)c.req);
        for (int k = 0; k < 2; k++)
            PE_ASSERT(c.tout[k] == TEAM_SENTINEL || c.tout[k] == SYM_TEAM_INVALID,
                      "row %zu (%s: %s) left %p in a team output", i, r->fn, r->what,
                      (void *)c.tout[k]);
        const char *msg = sym_last_error();
        if (st != r->expect)
            pe_fail(__FILE__, __LINE__, r->fn, "row %zu (%s: %s) returned %s, expected %s (%s)",
                    i, r->fn, r->what,
                    st == FAILED_VALUE ? "its failure value"
                    : st == SUCCEEDED_VALUE ? "a success value" : sym_status_name(st),
                    r->expect == FAILED_VALUE ? "its failure value" : sym_status_name(r->expect),
                    msg);
        if (r->msg && r->expect != SYM_OK && !message_names(msg, r->fn))
            pe_fail(__FILE__, __LINE__, r->fn, "row %zu (%s: %s): message '%s' does not name it",
                    i, r->fn, r->what, msg);
        PE_OK(sym_barrier_all()); /* peers' rows done: their writes, if any, landed */
        check_guards(&c, r, i);
        valid_call(&c, &v, r->fam);
    }
    PE_OK(sym_barrier_all());
    check_guards(&c, &rows[0], NROWS);
    if (me == 0)
        fprintf(stderr, "bad input: %zu rows over the public API, each on %d PEs\n", NROWS,
                npes);
    free(c.loc);
    sym_free(v.ok);
    sym_free(c.sym);
}

ParameterizedTestParameters(bad_input, every_function)
{
    static int counts[] = { 2, 3 };
    return cr_make_param_array(int, counts, 2);
}

ParameterizedTest(int *npes, bad_input, every_function)
{
    static const char *const env[] = { "SYMHEAP_TIMEOUT=10", NULL };
    run_pes_env(*npes, env, bad_input_body, NULL);
}
