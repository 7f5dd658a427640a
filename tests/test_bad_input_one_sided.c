/*
 * test_bad_input_one_sided.c - the bad-input rows of the runtime, status
 * strings, symmetric memory, RMA, atomics, signals and waits (the table
 * test_bad_input.c runs; see there).
 */
#include <limits.h>
#include <stdint.h>

#include "bad_input.h"
#include "core/internal.h"

#define T32      ((uint32_t *)c->tgt)
#define T64      ((uint64_t *)c->tgt)
#define ODD      (c->tgt + 1)
#define OUTSIDE  (c->loc + PAGE)   /* local memory: not symmetric */
#define PAST_END (c->heap_end - 8) /* 8 bytes before the heap's end */

/* Every wait and test form for one type: bad cmp, misalignment, local and
 * NULL words, NULL outputs, arrays running past the heap. */
#define WAIT_ROWS(ROW, name, T)                                                                    \
    ROW(w_##name##_cmp, "sym_wait_until_" #name, "cmp 0", SYM_ERR_INVALID_ARG, true, F_WAIT,       \
        sym_wait_until_##name((T *)c->tgt, (sym_cmp_t)0, 0))                                       \
    ROW(w_##name##_odd, "sym_wait_until_" #name, "misaligned", SYM_ERR_INVALID_ARG, true, F_WAIT,  \
        sym_wait_until_##name((T *)ODD, SYM_CMP_EQ, 0))                                            \
    ROW(w_##name##_local, "sym_wait_until_" #name, "local word", SYM_ERR_NOT_SYMMETRIC, true,      \
        F_WAIT, sym_wait_until_##name((T *)OUTSIDE, SYM_CMP_EQ, 0))                                \
    ROW(t_##name##_null, "sym_test_" #name, "NULL output", SYM_ERR_INVALID_ARG, true, F_WAIT,      \
        sym_test_##name((T *)c->tgt, SYM_CMP_EQ, 0, NULL))                                         \
    ROW(t_##name##_cmp, "sym_test_" #name, "cmp 99", SYM_ERR_INVALID_ARG, true, F_WAIT,            \
        sym_test_##name((T *)c->tgt, (sym_cmp_t)99, 0, (int *)c->ltgt))                            \
    ROW(wall_##name##_ovf, "sym_wait_until_all_" #name, "nelems SIZE_MAX", SYM_ERR_INVALID_ARG,    \
        true, F_WAIT, sym_wait_until_all_##name((T *)c->tgt, SIZE_MAX, NULL, SYM_CMP_EQ, 0))       \
    ROW(wall_##name##_past, "sym_wait_until_all_" #name, "array past the heap end",                \
        SYM_ERR_NOT_SYMMETRIC, true, F_WAIT,                                                       \
        sym_wait_until_all_##name((T *)PAST_END, 4, NULL, SYM_CMP_EQ, 0))                          \
    ROW(wany_##name##_null, "sym_wait_until_any_" #name, "NULL index output", SYM_ERR_INVALID_ARG, \
        true, F_WAIT, sym_wait_until_any_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, NULL))        \
    ROW(wany_##name##_cmp, "sym_wait_until_any_" #name, "cmp -1", SYM_ERR_INVALID_ARG, true,       \
        F_WAIT,                                                                                    \
        sym_wait_until_any_##name((T *)c->tgt, 2, NULL, (sym_cmp_t)-1, 0, (size_t *)c->ltgt))      \
    ROW(wsome_##name##_null, "sym_wait_until_some_" #name, "NULL indices", SYM_ERR_INVALID_ARG,    \
        true, F_WAIT,                                                                              \
        sym_wait_until_some_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, NULL, (size_t *)c->ltgt))  \
    ROW(wsome_##name##_local, "sym_wait_until_some_" #name, "local array", SYM_ERR_NOT_SYMMETRIC,  \
        true, F_WAIT,                                                                              \
        sym_wait_until_some_##name((T *)OUTSIDE, 2, NULL, SYM_CMP_EQ, 0, (size_t *)c->ltgt,        \
                                   (size_t *)c->ltgt + 4))                                         \
    ROW(tall_##name##_null, "sym_test_all_" #name, "NULL output", SYM_ERR_INVALID_ARG, true,       \
        F_WAIT, sym_test_all_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, NULL))                    \
    ROW(tall_##name##_odd, "sym_test_all_" #name, "misaligned", SYM_ERR_INVALID_ARG, true, F_WAIT, \
        sym_test_all_##name((T *)(c->tgt + 2), 2, NULL, SYM_CMP_EQ, 0, (int *)c->ltgt))            \
    ROW(tany_##name##_null, "sym_test_any_" #name, "NULL output", SYM_ERR_INVALID_ARG, true,       \
        F_WAIT, sym_test_any_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, NULL))                    \
    ROW(tany_##name##_ovf, "sym_test_any_" #name, "nelems SIZE_MAX/2", SYM_ERR_INVALID_ARG, true,  \
        F_WAIT,                                                                                    \
        sym_test_any_##name((T *)c->tgt, SIZE_MAX / 2, NULL, SYM_CMP_EQ, 0, (size_t *)c->ltgt))    \
    ROW(tsome_##name##_null, "sym_test_some_" #name, "NULL count", SYM_ERR_INVALID_ARG, true,      \
        F_WAIT,                                                                                    \
        sym_test_some_##name((T *)c->tgt, 2, NULL, SYM_CMP_EQ, 0, (size_t *)c->ltgt, NULL))        \
    ROW(tsome_##name##_cmp, "sym_test_some_" #name, "cmp 0", SYM_ERR_INVALID_ARG, true, F_WAIT,    \
        sym_test_some_##name((T *)c->tgt, 2, NULL, (sym_cmp_t)0, 0, (size_t *)c->ltgt,             \
                             (size_t *)c->ltgt + 4))

/* ROW(id, fn, what, expect, msg, family, expression) */
#define ONE_SIDED_ROWS(ROW)                                                                        \
    /* ---- runtime and status strings ---- */                                                     \
    ROW(init_twice, "sym_init", "already initialized", SYM_ERR_ALREADY_INITIALIZED, true, F_NONE,  \
        sym_init())                                                                                \
    ROW(strerror_bad, "sym_strerror", "code 12345", FAILED_VALUE, false, F_NONE,                   \
        is_str(sym_strerror((sym_status_t)12345), "unknown status"))                               \
    ROW(strerror_min, "sym_strerror", "code INT_MIN", FAILED_VALUE, false, F_NONE,                 \
        is_str(sym_strerror((sym_status_t)INT_MIN), "unknown status"))                             \
    ROW(status_name_bad, "sym_status_name", "code -999", FAILED_VALUE, false, F_NONE,              \
        is_zero(strncmp(sym_status_name((sym_status_t)-999), "SYM_", 4) != 0))                     \
    /* ---- symmetric memory ---- */                                                               \
    ROW(malloc_sizemax, "sym_malloc", "SIZE_MAX bytes", FAILED_VALUE, true, F_MEM,                 \
        is_null(sym_malloc(SIZE_MAX)))                                                             \
    ROW(malloc_heap, "sym_malloc", "more than the heap", FAILED_VALUE, true, F_MEM,                \
        is_null(sym_malloc(sym_core_layout()->user_size + 1)))                                     \
    ROW(malloc_near_max, "sym_malloc", "SIZE_MAX - 63 (rounding overflows)", FAILED_VALUE, true,   \
        F_MEM, is_null(sym_malloc(SIZE_MAX - 63)))                                                 \
    ROW(calloc_overflow, "sym_calloc", "count x size overflows", FAILED_VALUE, true, F_MEM,        \
        is_null(sym_calloc(SIZE_MAX / 2, 3)))                                                      \
    ROW(calloc_heap, "sym_calloc", "more than the heap", FAILED_VALUE, true, F_MEM,                \
        is_null(sym_calloc(sym_core_layout()->user_size, 2)))                                      \
    ROW(align_zero, "sym_align", "alignment 0", FAILED_VALUE, true, F_MEM,                         \
        is_null(sym_align(0, 64)))                                                                 \
    ROW(align_npot, "sym_align", "alignment 48", FAILED_VALUE, true, F_MEM,                        \
        is_null(sym_align(48, 64)))                                                                \
    ROW(align_huge, "sym_align", "alignment 2^60", FAILED_VALUE, true, F_MEM,                      \
        is_null(sym_align((size_t)1 << 60, 64)))                                                   \
    ROW(align_sizemax, "sym_align", "SIZE_MAX bytes", FAILED_VALUE, true, F_MEM,                   \
        is_null(sym_align(4096, SIZE_MAX)))                                                        \
    ROW(realloc_sizemax, "sym_realloc", "SIZE_MAX bytes", FAILED_VALUE, true, F_MEM,               \
        is_null(sym_realloc(c->tgt - PAGE, SIZE_MAX)))                                             \
    ROW(realloc_notobj, "sym_realloc", "not an object's start", FAILED_VALUE, true, F_MEM,         \
        is_null(sym_realloc(c->tgt, 128)))                                                         \
    ROW(realloc_local, "sym_realloc", "local memory", FAILED_VALUE, true, F_MEM,                   \
        is_null(sym_realloc(OUTSIDE, 128)))                                                        \
    ROW(free_local, "sym_free", "local memory", FAILED_VALUE, true, F_MEM,                         \
        (sym_free(OUTSIDE), FAILED_VALUE))                                                         \
    ROW(free_interior, "sym_free", "inside an object, not its start", FAILED_VALUE, true, F_MEM,   \
        (sym_free(c->tgt), FAILED_VALUE))                                                          \
    ROW(free_past, "sym_free", "past the heap end", FAILED_VALUE, true, F_MEM,                     \
        (sym_free(c->heap_end + 64), FAILED_VALUE))                                                \
    ROW(heap_free_ok_nulls, "sym_heap_free", "both outputs NULL (allowed)", SYM_OK, false, F_MEM,  \
        sym_heap_free(NULL, NULL))                                                                 \
    ROW(ptr_local, "sym_ptr", "local address", FAILED_VALUE, false, F_RMA,                         \
        is_null(sym_ptr(OUTSIDE, 0)))                                                              \
    ROW(ptr_pe_neg, "sym_ptr", "PE -1", FAILED_VALUE, false, F_RMA, is_null(sym_ptr(c->tgt, -1)))  \
    ROW(ptr_pe_n, "sym_ptr", "PE npes", FAILED_VALUE, false, F_RMA,                                \
        is_null(sym_ptr(c->tgt, c->npes)))                                                         \
    ROW(ptr_null, "sym_ptr", "NULL", FAILED_VALUE, false, F_RMA, is_null(sym_ptr(NULL, 0)))        \
    ROW(acc_addr_local, "sym_addr_accessible", "local address", FAILED_VALUE, false, F_RMA,        \
        is_zero(sym_addr_accessible(OUTSIDE, 0)))                                                  \
    ROW(acc_addr_pe, "sym_addr_accessible", "PE INT_MIN", FAILED_VALUE, false, F_RMA,              \
        is_zero(sym_addr_accessible(c->tgt, INT_MIN)))                                             \
    ROW(acc_pe_neg, "sym_pe_accessible", "PE -1", FAILED_VALUE, false, F_RMA,                      \
        is_zero(sym_pe_accessible(-1)))                                                            \
    ROW(acc_pe_n, "sym_pe_accessible", "PE npes", FAILED_VALUE, false, F_RMA,                      \
        is_zero(sym_pe_accessible(c->npes)))                                                       \
    /* ---- RMA ---- */                                                                            \
    ROW(put_null_src, "sym_put", "NULL src", SYM_ERR_INVALID_ARG, true, F_RMA,                     \
        sym_put(c->tgt, NULL, 8, c->right))                                                        \
    ROW(put_null_dest, "sym_put", "NULL dest", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,                 \
        sym_put(NULL, c->ltgt, 8, c->right))                                                       \
    ROW(put_local_dest, "sym_put", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,               \
        sym_put(OUTSIDE, c->ltgt, 8, c->right))                                                    \
    ROW(put_sizemax, "sym_put", "SIZE_MAX bytes", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,              \
        sym_put(c->tgt, c->ltgt, SIZE_MAX, c->right))                                              \
    ROW(put_past_end, "sym_put", "16 bytes 8 before the heap end", SYM_ERR_NOT_SYMMETRIC, true,    \
        F_RMA, sym_put(PAST_END, c->ltgt, 16, c->right))                                           \
    ROW(put_heap_size, "sym_put", "the heap's size from the target", SYM_ERR_NOT_SYMMETRIC, true,  \
        F_RMA, sym_put(c->tgt, c->ltgt, sym_core_layout()->user_size, c->right))                   \
    ROW(put_pe_neg, "sym_put", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                           \
        sym_put(c->tgt, c->ltgt, 8, -1))                                                           \
    ROW(put_pe_n, "sym_put", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,                           \
        sym_put(c->tgt, c->ltgt, 8, c->npes))                                                      \
    ROW(put_pe_min, "sym_put", "PE INT_MIN", SYM_ERR_INVALID_PE, true, F_RMA,                      \
        sym_put(c->tgt, c->ltgt, 8, INT_MIN))                                                      \
    ROW(get_null_dest, "sym_get", "NULL dest", SYM_ERR_INVALID_ARG, true, F_RMA,                   \
        sym_get(NULL, c->tgt, 8, c->right))                                                        \
    ROW(get_local_src, "sym_get", "local src", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,                 \
        sym_get(c->ltgt, OUTSIDE, 8, c->right))                                                    \
    ROW(get_sizemax, "sym_get", "SIZE_MAX bytes", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,              \
        sym_get(c->ltgt, c->tgt, SIZE_MAX, c->right))                                              \
    ROW(get_past_end, "sym_get", "past the heap end", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,          \
        sym_get(c->ltgt, PAST_END, 9, c->right))                                                   \
    ROW(get_pe_n, "sym_get", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,                           \
        sym_get(c->ltgt, c->tgt, 8, c->npes))                                                      \
    ROW(put_nbi_null, "sym_put_nbi", "NULL src", SYM_ERR_INVALID_ARG, true, F_RMA,                 \
        sym_put_nbi(c->tgt, NULL, 8, c->right))                                                    \
    ROW(put_nbi_sizemax, "sym_put_nbi", "SIZE_MAX bytes", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,      \
        sym_put_nbi(c->tgt, c->ltgt, SIZE_MAX, c->right))                                          \
    ROW(put_nbi_pe, "sym_put_nbi", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                       \
        sym_put_nbi(c->tgt, c->ltgt, 8, -1))                                                       \
    ROW(get_nbi_null, "sym_get_nbi", "NULL dest", SYM_ERR_INVALID_ARG, true, F_RMA,                \
        sym_get_nbi(NULL, c->tgt, 8, c->right))                                                    \
    ROW(get_nbi_local, "sym_get_nbi", "local src", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,             \
        sym_get_nbi(c->ltgt, OUTSIDE, 8, c->right))                                                \
    ROW(get_nbi_pe, "sym_get_nbi", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,                     \
        sym_get_nbi(c->ltgt, c->tgt, 8, c->npes))                                                  \
    ROW(iput_stride0, "sym_iput", "dest stride 0", SYM_ERR_INVALID_ARG, true, F_RMA,               \
        sym_iput(c->tgt, c->ltgt, 0, 1, 8, 4, c->right))                                           \
    ROW(iput_stride_neg, "sym_iput", "src stride -1", SYM_ERR_INVALID_ARG, true, F_RMA,            \
        sym_iput(c->tgt, c->ltgt, 1, -1, 8, 4, c->right))                                          \
    ROW(iput_elem3, "sym_iput", "element size 3", SYM_ERR_INVALID_ARG, true, F_RMA,                \
        sym_iput(c->tgt, c->ltgt, 1, 1, 3, 4, c->right))                                           \
    ROW(iput_elem0, "sym_iput", "element size 0", SYM_ERR_INVALID_ARG, true, F_RMA,                \
        sym_iput(c->tgt, c->ltgt, 1, 1, 0, 4, c->right))                                           \
    ROW(iput_span, "sym_iput", "stride x count overflows", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,     \
        sym_iput(c->tgt, c->ltgt, PTRDIFF_MAX, 1, 8, 3, c->right))                                 \
    ROW(iput_past, "sym_iput", "last element past the heap end", SYM_ERR_NOT_SYMMETRIC, true,      \
        F_RMA, sym_iput(PAST_END, c->ltgt, 2, 1, 8, 2, c->right))                                  \
    ROW(iput_null, "sym_iput", "NULL src", SYM_ERR_INVALID_ARG, true, F_RMA,                       \
        sym_iput(c->tgt, NULL, 1, 1, 8, 2, c->right))                                              \
    ROW(iput_pe, "sym_iput", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                             \
        sym_iput(c->tgt, c->ltgt, 1, 1, 8, 2, -1))                                                 \
    ROW(iget_stride0, "sym_iget", "src stride 0", SYM_ERR_INVALID_ARG, true, F_RMA,                \
        sym_iget(c->ltgt, c->tgt, 1, 0, 8, 4, c->right))                                           \
    ROW(iget_stride_min, "sym_iget", "stride PTRDIFF_MIN", SYM_ERR_INVALID_ARG, true, F_RMA,       \
        sym_iget(c->ltgt, c->tgt, PTRDIFF_MIN, 1, 8, 4, c->right))                                 \
    ROW(iget_elem32, "sym_iget", "element size 32", SYM_ERR_INVALID_ARG, true, F_RMA,              \
        sym_iget(c->ltgt, c->tgt, 1, 1, 32, 4, c->right))                                          \
    ROW(iget_span, "sym_iget", "count SIZE_MAX", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,               \
        sym_iget(c->ltgt, c->tgt, 1, 1, 8, SIZE_MAX, c->right))                                    \
    ROW(iget_null, "sym_iget", "NULL dest", SYM_ERR_INVALID_ARG, true, F_RMA,                      \
        sym_iget(NULL, c->tgt, 1, 1, 8, 2, c->right))                                              \
    ROW(iget_pe, "sym_iget", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,                           \
        sym_iget(c->ltgt, c->tgt, 1, 1, 8, 2, c->npes))                                            \
    ROW(p8_local, "sym_p8", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,                      \
        sym_p8(OUTSIDE, 1, c->right))                                                              \
    ROW(p8_pe, "sym_p8", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA, sym_p8(c->tgt, 1, -1))          \
    ROW(p16_odd, "sym_p16", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                        \
        sym_p16((uint16_t *)ODD, 1, c->right))                                                     \
    ROW(p32_odd, "sym_p32", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                        \
        sym_p32((uint32_t *)(c->tgt + 2), 1, c->right))                                            \
    ROW(p64_odd, "sym_p64", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                        \
        sym_p64((uint64_t *)(c->tgt + 4), 1, c->right))                                            \
    ROW(p64_past, "sym_p64", "last word + 4 of the heap", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,      \
        sym_p64((uint64_t *)(c->heap_end - 4), 1, c->right))                                       \
    ROW(p64_pe, "sym_p64", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA, sym_p64(T64, 1, c->npes))   \
    ROW(g8_null, "sym_g8", "NULL output", SYM_ERR_INVALID_ARG, true, F_RMA,                        \
        sym_g8(NULL, c->tgt, c->right))                                                            \
    ROW(g16_odd, "sym_g16", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                        \
        sym_g16((uint16_t *)c->ltgt, (uint16_t *)ODD, c->right))                                   \
    ROW(g32_local, "sym_g32", "local src", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,                     \
        sym_g32((uint32_t *)c->ltgt, (uint32_t *)OUTSIDE, c->right))                               \
    ROW(g64_odd, "sym_g64", "misaligned", SYM_ERR_INVALID_ARG, true, F_RMA,                        \
        sym_g64((uint64_t *)c->ltgt, (uint64_t *)(c->tgt + 4), c->right))                          \
    ROW(g64_pe, "sym_g64", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                               \
        sym_g64((uint64_t *)c->ltgt, T64, -1))                                                     \
    /* ---- atomics ---- */                                                                        \
    ROW(afetch32_null, "sym_atomic_fetch32", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,      \
        sym_atomic_fetch32(NULL, T32, c->right))                                                   \
    ROW(afetch64_odd, "sym_atomic_fetch64", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,        \
        sym_atomic_fetch64((uint64_t *)c->ltgt, (uint64_t *)(c->tgt + 4), c->right))               \
    ROW(aset32_pe, "sym_atomic_set32", "PE -1", SYM_ERR_INVALID_PE, true, F_AMO,                   \
        sym_atomic_set32(T32, 1, -1))                                                              \
    ROW(aset64_local, "sym_atomic_set64", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_AMO,        \
        sym_atomic_set64((uint64_t *)OUTSIDE, 1, c->right))                                        \
    ROW(aswap32_null, "sym_atomic_swap32", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,        \
        sym_atomic_swap32(T32, 1, NULL, c->right))                                                 \
    ROW(aswap64_odd, "sym_atomic_swap64", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,          \
        sym_atomic_swap64((uint64_t *)ODD, 1, (uint64_t *)c->ltgt, c->right))                      \
    ROW(acswap32_odd, "sym_atomic_compare_swap32", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO, \
        sym_atomic_compare_swap32((uint32_t *)(c->tgt + 2), 0, 1, (uint32_t *)c->ltgt, c->right))  \
    ROW(acswap64_null, "sym_atomic_compare_swap64", "NULL output", SYM_ERR_INVALID_ARG, true,      \
        F_AMO, sym_atomic_compare_swap64(T64, 0, 1, NULL, c->right))                               \
    ROW(aadd32_past, "sym_atomic_add32", "past the heap end", SYM_ERR_NOT_SYMMETRIC, true, F_AMO,  \
        sym_atomic_add32((uint32_t *)(c->heap_end - 2), 1, c->right))                              \
    ROW(aadd64_pe, "sym_atomic_add64", "PE npes", SYM_ERR_INVALID_PE, true, F_AMO,                 \
        sym_atomic_add64(T64, 1, c->npes))                                                         \
    ROW(afadd32_null, "sym_atomic_fetch_add32", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,   \
        sym_atomic_fetch_add32(T32, 1, NULL, c->right))                                            \
    ROW(afadd64_local, "sym_atomic_fetch_add64", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_AMO, \
        sym_atomic_fetch_add64((uint64_t *)OUTSIDE, 1, (uint64_t *)c->ltgt, c->right))             \
    ROW(ainc32_odd, "sym_atomic_inc32", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,            \
        sym_atomic_inc32((uint32_t *)ODD, c->right))                                               \
    ROW(ainc64_pe, "sym_atomic_inc64", "PE INT_MAX", SYM_ERR_INVALID_PE, true, F_AMO,              \
        sym_atomic_inc64(T64, INT_MAX))                                                            \
    ROW(afinc32_null, "sym_atomic_fetch_inc32", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,   \
        sym_atomic_fetch_inc32(T32, NULL, c->right))                                               \
    ROW(afinc64_null, "sym_atomic_fetch_inc64", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,   \
        sym_atomic_fetch_inc64(T64, NULL, c->right))                                               \
    ROW(aand32_pe, "sym_atomic_and32", "PE -1", SYM_ERR_INVALID_PE, true, F_AMO,                   \
        sym_atomic_and32(T32, 1, -1))                                                              \
    ROW(aand64_odd, "sym_atomic_and64", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,            \
        sym_atomic_and64((uint64_t *)(c->tgt + 12), 1, c->right))                                  \
    ROW(aor32_local, "sym_atomic_or32", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_AMO,          \
        sym_atomic_or32((uint32_t *)OUTSIDE, 1, c->right))                                         \
    ROW(aor64_pe, "sym_atomic_or64", "PE npes", SYM_ERR_INVALID_PE, true, F_AMO,                   \
        sym_atomic_or64(T64, 1, c->npes))                                                          \
    ROW(axor32_odd, "sym_atomic_xor32", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,            \
        sym_atomic_xor32((uint32_t *)(c->tgt + 1), 1, c->right))                                   \
    ROW(axor64_null_dest, "sym_atomic_xor64", "NULL dest", SYM_ERR_NOT_SYMMETRIC, true, F_AMO,     \
        sym_atomic_xor64(NULL, 1, c->right))                                                       \
    ROW(afand32_null, "sym_atomic_fetch_and32", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,   \
        sym_atomic_fetch_and32(T32, 1, NULL, c->right))                                            \
    ROW(afand64_pe, "sym_atomic_fetch_and64", "PE -1", SYM_ERR_INVALID_PE, true, F_AMO,            \
        sym_atomic_fetch_and64(T64, 1, (uint64_t *)c->ltgt, -1))                                   \
    ROW(afor32_odd, "sym_atomic_fetch_or32", "misaligned", SYM_ERR_INVALID_ARG, true, F_AMO,       \
        sym_atomic_fetch_or32((uint32_t *)ODD, 1, (uint32_t *)c->ltgt, c->right))                  \
    ROW(afor64_null, "sym_atomic_fetch_or64", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,     \
        sym_atomic_fetch_or64(T64, 1, NULL, c->right))                                             \
    ROW(afxor32_local, "sym_atomic_fetch_xor32", "local dest", SYM_ERR_NOT_SYMMETRIC, true, F_AMO, \
        sym_atomic_fetch_xor32((uint32_t *)OUTSIDE, 1, (uint32_t *)c->ltgt, c->right))             \
    ROW(afxor64_null, "sym_atomic_fetch_xor64", "NULL output", SYM_ERR_INVALID_ARG, true, F_AMO,   \
        sym_atomic_fetch_xor64(T64, 1, NULL, c->right))                                            \
    /* ---- signals and waits ---- */                                                              \
    ROW(psig_op, "sym_put_signal", "signal op 0", SYM_ERR_INVALID_ARG, true, F_RMA,                \
        sym_put_signal(c->tgt + 64, c->ltgt, 8, T64, 1, (sym_signal_op_t)0, c->right))             \
    ROW(psig_op_big, "sym_put_signal", "signal op 99", SYM_ERR_INVALID_ARG, true, F_RMA,           \
        sym_put_signal(c->tgt + 64, c->ltgt, 8, T64, 1, (sym_signal_op_t)99, c->right))            \
    ROW(psig_odd, "sym_put_signal", "misaligned signal", SYM_ERR_INVALID_ARG, true, F_RMA,         \
        sym_put_signal(c->tgt + 64, c->ltgt, 8, (uint64_t *)ODD, 1, SYM_SIGNAL_SET, c->right))     \
    ROW(psig_local_sig, "sym_put_signal", "local signal word", SYM_ERR_NOT_SYMMETRIC, true, F_RMA, \
        sym_put_signal(c->tgt + 64, c->ltgt, 8, (uint64_t *)OUTSIDE, 1, SYM_SIGNAL_SET, c->right)) \
    ROW(psig_null_src, "sym_put_signal", "NULL src", SYM_ERR_INVALID_ARG, true, F_RMA,             \
        sym_put_signal(c->tgt + 64, NULL, 8, T64, 1, SYM_SIGNAL_SET, c->right))                    \
    ROW(psig_sizemax, "sym_put_signal", "SIZE_MAX bytes", SYM_ERR_NOT_SYMMETRIC, true, F_RMA,      \
        sym_put_signal(c->tgt + 64, c->ltgt, SIZE_MAX, T64, 1, SYM_SIGNAL_SET, c->right))          \
    ROW(psig_pe, "sym_put_signal", "PE -1", SYM_ERR_INVALID_PE, true, F_RMA,                       \
        sym_put_signal(c->tgt + 64, c->ltgt, 8, T64, 1, SYM_SIGNAL_SET, -1))                       \
    ROW(psignbi_op, "sym_put_signal_nbi", "signal op -1", SYM_ERR_INVALID_ARG, true, F_RMA,        \
        sym_put_signal_nbi(c->tgt + 64, c->ltgt, 8, T64, 1, (sym_signal_op_t)-1, c->right))        \
    ROW(psignbi_pe, "sym_put_signal_nbi", "PE npes", SYM_ERR_INVALID_PE, true, F_RMA,              \
        sym_put_signal_nbi(c->tgt + 64, c->ltgt, 8, T64, 1, SYM_SIGNAL_ADD, c->npes))              \
    ROW(sfetch_null, "sym_signal_fetch", "NULL output", SYM_ERR_INVALID_ARG, true, F_WAIT,         \
        sym_signal_fetch(T64, NULL))                                                               \
    ROW(sfetch_local, "sym_signal_fetch", "local word", SYM_ERR_NOT_SYMMETRIC, true, F_WAIT,       \
        sym_signal_fetch((uint64_t *)OUTSIDE, (uint64_t *)c->ltgt))                                \
    ROW(sfetch_odd, "sym_signal_fetch", "misaligned", SYM_ERR_INVALID_ARG, true, F_WAIT,           \
        sym_signal_fetch((uint64_t *)ODD, (uint64_t *)c->ltgt))                                    \
    ROW(swait_cmp, "sym_signal_wait_until", "cmp 0", SYM_ERR_INVALID_ARG, true, F_WAIT,            \
        sym_signal_wait_until(T64, (sym_cmp_t)0, 1, NULL))                                         \
    ROW(swait_cmp_big, "sym_signal_wait_until", "cmp 7", SYM_ERR_INVALID_ARG, true, F_WAIT,        \
        sym_signal_wait_until(T64, (sym_cmp_t)7, 1, NULL))                                         \
    ROW(swait_local, "sym_signal_wait_until", "local word", SYM_ERR_NOT_SYMMETRIC, true, F_WAIT,   \
        sym_signal_wait_until((uint64_t *)OUTSIDE, SYM_CMP_EQ, 1, NULL))                           \
    ROW(swait_null, "sym_signal_wait_until", "NULL word", SYM_ERR_NOT_SYMMETRIC, true, F_WAIT,     \
        sym_signal_wait_until(NULL, SYM_CMP_EQ, 1, NULL))                                          \
    WAIT_ROWS(ROW, int32, int32_t)                                                                 \
    WAIT_ROWS(ROW, int64, int64_t)                                                                 \
    WAIT_ROWS(ROW, uint32, uint32_t)                                                               \
    WAIT_ROWS(ROW, uint64, uint64_t)

BAD_TABLE(bad_rows_one_sided, ONE_SIDED_ROWS);
