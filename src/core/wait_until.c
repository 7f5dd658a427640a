/*
 * wait_until.c - sym_wait_until_* and sym_test_* on this PE's symmetric
 * words, for int32, int64, uint32 and uint64, generated from one template.
 */
#include <inttypes.h>
#include <stdio.h>

#include "core/internal.h"
#include "core/sym_cmp.h"

/* Validation shared by every form: init, cmp, alignment, the whole array
 * inside the heap. */
static sym_status_t check_words(const char *op, const void *ivars, size_t nelems, size_t width,
                                sym_cmp_t cmp)
{
    sym_status_t st = sym_check_init(op);
    if (st != SYM_OK)
        return st;
    if (!sym_cmp_valid(cmp))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: comparison %d is not a sym_cmp_t", op, (int)cmp);
    size_t bytes;
    if (__builtin_mul_overflow(nelems, width, &bytes))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %zu elements overflow", op, nelems);
    uint64_t off = 0;
    if (nelems == 0)
        return SYM_OK;
    if ((st = sym_sym_offset(op, "ivars", ivars, bytes, -1, &off)) != SYM_OK)
        return st;
    if (off % width)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: address %p is not %zu-byte aligned", op, ivars,
                         width);
    return SYM_OK;
}

/* Which elements a wait over an array looks at. */
static inline bool included(const int *status, size_t i)
{
    return !status || status[i] == 0;
}

#define SYM_WAIT_DEFINE_(name, T, cmpname, FMT)                                                    \
    struct wait_##name {                                                                           \
        T *ivars;                                                                                  \
        size_t nelems;                                                                             \
        const int *status;                                                                         \
        sym_cmp_t cmp;                                                                             \
        T value;                                                                                   \
        size_t found; /* _any: the index; _some: how many */                                       \
        size_t *indices;                                                                           \
        int mode; /* 0 all, 1 any, 2 some */                                                       \
    };                                                                                             \
    static inline bool hit_##name(struct wait_##name *w, size_t i)                                 \
    {                                                                                              \
        return sym_cmp_##cmpname(__atomic_load_n(&w->ivars[i], __ATOMIC_ACQUIRE), w->cmp,          \
                                 w->value);                                                        \
    }                                                                                              \
    static bool ready_##name(void *arg)                                                            \
    {                                                                                              \
        struct wait_##name *w = arg;                                                               \
        size_t count = 0;                                                                          \
        for (size_t i = 0; i < w->nelems; i++) {                                                   \
            if (!included(w->status, i))                                                           \
                continue;                                                                          \
            bool h = hit_##name(w, i);                                                             \
            if (w->mode == 0 && !h)                                                                \
                return false;                                                                      \
            if (w->mode == 1 && h) {                                                               \
                w->found = i;                                                                      \
                return true;                                                                       \
            }                                                                                      \
            if (w->mode == 2 && h)                                                                 \
                w->indices[count++] = i;                                                           \
        }                                                                                          \
        w->found = count;                                                                          \
        return w->mode == 0 || count > 0;                                                          \
    }                                                                                              \
    static void describe_##name(void *arg, char *buf, size_t len)                                  \
    {                                                                                              \
        struct wait_##name *w = arg;                                                               \
        static const char *const what[] = {"every one of", "any of", "some of"};                   \
        if (w->nelems == 1)                                                                        \
            snprintf(buf, len, "%s at %p to become %s %" FMT " (it is %" FMT ")", #name,           \
                     (void *)w->ivars, sym_cmp_text(w->cmp), w->value,                             \
                     __atomic_load_n(w->ivars, __ATOMIC_ACQUIRE));                                 \
        else                                                                                       \
            snprintf(buf, len, "%s %zu %s words at %p to become %s %" FMT, what[w->mode],          \
                     w->nelems, #name, (void *)w->ivars, sym_cmp_text(w->cmp), w->value);          \
    }                                                                                              \
    /* Block (or just test once) over the included elements. */                                    \
    static sym_status_t run_##name(const char *op, struct wait_##name *w, bool block,              \
                                   bool *done_p)                                                   \
    {                                                                                              \
        if (block)                                                                                 \
            sym_fault_point(SYM_FAULT_OP_WAIT);                                                    \
        sym_status_t st = check_words(op, w->ivars, w->nelems, sizeof(T), w->cmp);                 \
        if (st != SYM_OK)                                                                          \
            return st;                                                                             \
        size_t n_in = 0;                                                                           \
        for (size_t i = 0; i < w->nelems; i++)                                                     \
            n_in += included(w->status, i);                                                        \
        if (n_in == 0) { /* nothing to wait for */                                                 \
            w->found = w->mode == 1 ? SIZE_MAX : 0;                                                \
            *done_p = true;                                                                        \
            return SYM_OK;                                                                         \
        }                                                                                          \
        if (!block) { /* a polling loop must still serve and hear its peers */                     \
            *done_p = ready_##name(w);                                                             \
            if (!*done_p && sym_transports_need_progress()) {                                      \
                sym_progress();                                                                    \
                *done_p = ready_##name(w);                                                         \
            }                                                                                      \
            return SYM_OK;                                                                         \
        }                                                                                          \
        struct sym_waiter waiter = {ready_##name, describe_##name, w, NULL};                       \
        *done_p = true;                                                                            \
        struct sym_deadline dl = sym_deadline_default(op);                                         \
        return sym_wait_for(&dl, &waiter);                                                         \
    }                                                                                              \
    SYM_API sym_status_t sym_wait_until_##name(T *ivar, sym_cmp_t cmp, T value)                    \
    {                                                                                              \
        struct wait_##name w = {ivar, 1, NULL, cmp, value, 0, NULL, 0};                            \
        bool done;                                                                                 \
        return run_##name("sym_wait_until_" #name, &w, true, &done);                               \
    }                                                                                              \
    SYM_API sym_status_t sym_test_##name(T *ivar, sym_cmp_t cmp, T value, int *satisfied_p)        \
    {                                                                                              \
        struct wait_##name w = {ivar, 1, NULL, cmp, value, 0, NULL, 0};                            \
        bool done = false;                                                                         \
        if (!satisfied_p)                                                                          \
            return sym_error(SYM_ERR_INVALID_ARG, "sym_test_" #name ": satisfied_p is NULL");      \
        sym_status_t st = run_##name("sym_test_" #name, &w, false, &done);                         \
        if (st == SYM_OK)                                                                          \
            *satisfied_p = done;                                                                   \
        return st;                                                                                 \
    }                                                                                              \
    SYM_API sym_status_t sym_wait_until_all_##name(T *ivars, size_t nelems, const int *status,     \
                                                   sym_cmp_t cmp, T value)                         \
    {                                                                                              \
        struct wait_##name w = {ivars, nelems, status, cmp, value, 0, NULL, 0};                    \
        bool done;                                                                                 \
        return run_##name("sym_wait_until_all_" #name, &w, true, &done);                           \
    }                                                                                              \
    SYM_API sym_status_t sym_test_all_##name(T *ivars, size_t nelems, const int *status,           \
                                             sym_cmp_t cmp, T value, int *satisfied_p)             \
    {                                                                                              \
        struct wait_##name w = {ivars, nelems, status, cmp, value, 0, NULL, 0};                    \
        bool done = false;                                                                         \
        if (!satisfied_p)                                                                          \
            return sym_error(SYM_ERR_INVALID_ARG, "sym_test_all_" #name ": satisfied_p is "        \
                                                  "NULL");                                         \
        sym_status_t st = run_##name("sym_test_all_" #name, &w, false, &done);                     \
        if (st == SYM_OK)                                                                          \
            *satisfied_p = done;                                                                   \
        return st;                                                                                 \
    }                                                                                              \
    SYM_API sym_status_t sym_wait_until_any_##name(T *ivars, size_t nelems, const int *status,     \
                                                   sym_cmp_t cmp, T value, size_t *index_p)        \
    {                                                                                              \
        struct wait_##name w = {ivars, nelems, status, cmp, value, 0, NULL, 1};                    \
        bool done;                                                                                 \
        if (!index_p)                                                                              \
            return sym_error(SYM_ERR_INVALID_ARG, "sym_wait_until_any_" #name ": index_p is "      \
                                                  "NULL");                                         \
        sym_status_t st = run_##name("sym_wait_until_any_" #name, &w, true, &done);                \
        if (st == SYM_OK)                                                                          \
            *index_p = w.found;                                                                    \
        return st;                                                                                 \
    }                                                                                              \
    SYM_API sym_status_t sym_test_any_##name(T *ivars, size_t nelems, const int *status,           \
                                             sym_cmp_t cmp, T value, size_t *index_p)              \
    {                                                                                              \
        struct wait_##name w = {ivars, nelems, status, cmp, value, 0, NULL, 1};                    \
        bool done = false;                                                                         \
        if (!index_p)                                                                              \
            return sym_error(SYM_ERR_INVALID_ARG, "sym_test_any_" #name ": index_p is NULL");      \
        sym_status_t st = run_##name("sym_test_any_" #name, &w, false, &done);                     \
        if (st == SYM_OK)                                                                          \
            *index_p = done ? w.found : SIZE_MAX;                                                  \
        return st;                                                                                 \
    }                                                                                              \
    SYM_API sym_status_t sym_wait_until_some_##name(T *ivars, size_t nelems, const int *status,    \
                                                    sym_cmp_t cmp, T value, size_t *indices,       \
                                                    size_t *count_p)                               \
    {                                                                                              \
        struct wait_##name w = {ivars, nelems, status, cmp, value, 0, indices, 2};                 \
        bool done;                                                                                 \
        if (!count_p || (!indices && nelems))                                                      \
            return sym_error(SYM_ERR_INVALID_ARG, "sym_wait_until_some_" #name ": indices or "     \
                                                  "count_p is NULL");                              \
        sym_status_t st = run_##name("sym_wait_until_some_" #name, &w, true, &done);               \
        if (st == SYM_OK)                                                                          \
            *count_p = w.found;                                                                    \
        return st;                                                                                 \
    }                                                                                              \
    SYM_API sym_status_t sym_test_some_##name(T *ivars, size_t nelems, const int *status,          \
                                              sym_cmp_t cmp, T value, size_t *indices,             \
                                              size_t *count_p)                                     \
    {                                                                                              \
        struct wait_##name w = {ivars, nelems, status, cmp, value, 0, indices, 2};                 \
        bool done = false;                                                                         \
        if (!count_p || (!indices && nelems))                                                      \
            return sym_error(SYM_ERR_INVALID_ARG, "sym_test_some_" #name ": indices or "           \
                                                  "count_p is NULL");                              \
        sym_status_t st = run_##name("sym_test_some_" #name, &w, false, &done);                    \
        if (st == SYM_OK)                                                                          \
            *count_p = done ? w.found : 0;                                                         \
        return st;                                                                                 \
    }

SYM_WAIT_DEFINE_(int32, int32_t, i32, PRId32)
SYM_WAIT_DEFINE_(int64, int64_t, i64, PRId64)
SYM_WAIT_DEFINE_(uint32, uint32_t, u32, PRIu32)
SYM_WAIT_DEFINE_(uint64, uint64_t, u64, PRIu64)
