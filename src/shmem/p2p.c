/*
 * p2p.c - OpenSHMEM point-to-point synchronization: wait_until and test
 * with their _all/_any/_some and _vector forms for every p2p type, and the
 * signal routines.  Waits read this PE's own words (heap or global) with
 * atomic loads inside symheap's one wait loop, so they have its deadline,
 * drive transport progress and notice dead peers.
 */
#include <stdio.h>
#include <string.h>

#include "shmem_internal.h"

static const char *cmp_name(int cmp)
{
    static const char *const names[] = {"?", "==", "!=", ">", ">=", "<", "<="};
    return cmp >= SHMEM_CMP_EQ && cmp <= SHMEM_CMP_LE ? names[cmp] : "?";
}

static void check_cmp(const char *routine, int cmp)
{
    if (cmp < SHMEM_CMP_EQ || cmp > SHMEM_CMP_LE)
        symshmem_failf(routine, "invalid comparison operator %d", cmp);
}

struct wait_arg {
    bool (*ready)(void *arg);
    void *arg;
    const char *what;
    const void *addr;
    int cmp;
};

static int wait_ready(void *arg)
{
    struct wait_arg *w = arg;
    return w->ready(w->arg);
}

static void wait_describe(void *arg, char *buf, size_t len)
{
    struct wait_arg *w = arg;
    snprintf(buf, len, "%s at %p to satisfy %s", w->what, w->addr, cmp_name(w->cmp));
}

static void wait_for(const char *routine, bool (*ready)(void *), void *arg, const char *what,
                     const void *addr, int cmp)
{
    if (ready(arg))
        return;
    struct wait_arg w = {ready, arg, what, addr, cmp};
    symshmem_check(routine, sym_wait_cond(routine, wait_ready, &w, wait_describe, 0));
}

/* Fairness of _any and _some: a scan starts after the index this thread
 * returned last, so a word that stays satisfied cannot hide the others
 * (OpenSHMEM's example of shmem_test_any loops until every index came
 * back once). */
static _Thread_local size_t any_next;

static size_t any_start(size_t nelems)
{
    return nelems ? any_next % nelems : 0;
}

static size_t any_returned(size_t index)
{
    if (index != SIZE_MAX)
        any_next = index + 1;
    return index;
}

static size_t some_returned(const size_t *indices, size_t found)
{
    if (indices && found)
        any_next = indices[found - 1] + 1;
    return found;
}

/* One family per type: a scan over the included words fills `indices`
 * (may be NULL) and counts the satisfied ones. */
/* clang-format off */
#define P2P_DEF_(a, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)           \
    SYMSHMEM_IF_(P2P)(                                                                        \
    static bool N##_cmp(T x, int cmp, T v)                                                    \
    {                                                                                         \
        switch (cmp) {                                                                        \
        case SHMEM_CMP_EQ: return x == v;                                                     \
        case SHMEM_CMP_NE: return x != v;                                                     \
        case SHMEM_CMP_GT: return x > v;                                                      \
        case SHMEM_CMP_GE: return x >= v;                                                     \
        case SHMEM_CMP_LT: return x < v;                                                      \
        default: return x <= v;                                                               \
        }                                                                                     \
    }                                                                                         \
    struct N##_scan {                                                                         \
        T *ivars;                                                                             \
        size_t nelems;                                                                        \
        const int *status;                                                                    \
        int cmp;                                                                              \
        T value;                                                                              \
        const T *values;                                                                      \
        size_t *indices;                                                                      \
        size_t found, first, included;                                                        \
        size_t start; /* first index looked at (_any/_some: after the last returned) */      \
        enum { N##_ALL, N##_ANY } mode;                                                       \
        T seen; /* the value of the first satisfied word */                                   \
    };                                                                                        \
    static void N##_scan_run(struct N##_scan *s)                                              \
    {                                                                                         \
        s->found = s->included = 0;                                                           \
        s->first = SIZE_MAX;                                                                  \
        for (size_t k = 0; k < s->nelems; k++) {                                              \
            size_t i = s->start + k < s->nelems ? s->start + k : s->start + k - s->nelems;    \
            if (s->status && s->status[i])                                                    \
                continue;                                                                     \
            s->included++;                                                                    \
            T x = __atomic_load_n(&s->ivars[i], __ATOMIC_ACQUIRE);                            \
            if (!N##_cmp(x, s->cmp, s->values ? s->values[i] : s->value))                     \
                continue;                                                                     \
            if (s->first == SIZE_MAX) {                                                       \
                s->first = i;                                                                 \
                s->seen = x;                                                                  \
            }                                                                                 \
            if (s->indices)                                                                   \
                s->indices[s->found] = i;                                                     \
            s->found++;                                                                       \
        }                                                                                     \
    }                                                                                         \
    static bool N##_scan_ready(void *arg)                                                     \
    {                                                                                         \
        struct N##_scan *s = arg;                                                             \
        N##_scan_run(s);                                                                      \
        return s->mode == N##_ALL ? s->found == s->included                                   \
                                  : (s->found > 0 || s->included == 0);                       \
    }                                                                                         \
    static void N##_scan_wait(const char *routine, struct N##_scan *s)                        \
    {                                                                                         \
        check_cmp(routine, s->cmp);                                                           \
        wait_for(routine, N##_scan_ready, s, #T " words", s->ivars, s->cmp);                  \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_wait_until) void pshmem_##N##_wait_until(T *ivar, int cmp, T cmp_value)                                \
    {                                                                                         \
        struct N##_scan s = {.ivars = ivar, .nelems = 1, .status = NULL, .cmp = cmp, .value = cmp_value, .values = NULL, .indices = NULL, .mode = N##_ALL};    \
        N##_scan_wait("shmem_" #N "_wait_until", &s);                                         \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_wait) void pshmem_##N##_wait(T *ivar, T cmp_value)                                               \
    {                                                                                         \
        struct N##_scan s = {.ivars = ivar, .nelems = 1, .status = NULL, .cmp = SHMEM_CMP_NE, .value = cmp_value,     \
                             .values = NULL, .indices = NULL, .mode = N##_ALL};                                                        \
        N##_scan_wait("shmem_" #N "_wait", &s);                                               \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_wait_until_all) void pshmem_##N##_wait_until_all(T *ivars, size_t nelems, const int *status, int cmp,      \
                                    T cmp_value)                                              \
    {                                                                                         \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = cmp_value,      \
                             .values = NULL, .indices = NULL, .mode = N##_ALL};                                                        \
        N##_scan_wait("shmem_" #N "_wait_until_all", &s);                                     \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_wait_until_any) size_t pshmem_##N##_wait_until_any(T *ivars, size_t nelems, const int *status, int cmp,    \
                                      T cmp_value)                                            \
    {                                                                                         \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = cmp_value,      \
                             .values = NULL, .indices = NULL, .mode = N##_ANY, .start = any_start(nelems)};                                                        \
        N##_scan_wait("shmem_" #N "_wait_until_any", &s);                                     \
        return any_returned(s.first);                                                         \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_wait_until_some) size_t pshmem_##N##_wait_until_some(T *ivars, size_t nelems, size_t *indices,              \
                                       const int *status, int cmp, T cmp_value)               \
    {                                                                                         \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = cmp_value,   \
                             .values = NULL, .indices = indices, .mode = N##_ANY, .start = any_start(nelems)};                                                        \
        N##_scan_wait("shmem_" #N "_wait_until_some", &s);                                    \
        return some_returned(s.indices, s.found);                                             \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_wait_until_all_vector) void pshmem_##N##_wait_until_all_vector(T *ivars, size_t nelems, const int *status,        \
                                           int cmp, T *cmp_values)                            \
    {                                                                                         \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = 0,        \
                             .values = cmp_values, .indices = NULL, .mode = N##_ALL};                                                        \
        N##_scan_wait("shmem_" #N "_wait_until_all_vector", &s);                              \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_wait_until_any_vector) size_t pshmem_##N##_wait_until_any_vector(T *ivars, size_t nelems, const int *status,      \
                                             int cmp, T *cmp_values)                          \
    {                                                                                         \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = 0,        \
                             .values = cmp_values, .indices = NULL, .mode = N##_ANY, .start = any_start(nelems)};                                                        \
        N##_scan_wait("shmem_" #N "_wait_until_any_vector", &s);                              \
        return any_returned(s.first);                                                         \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_wait_until_some_vector) size_t pshmem_##N##_wait_until_some_vector(T *ivars, size_t nelems, size_t *indices,       \
                                              const int *status, int cmp, T *cmp_values)      \
    {                                                                                         \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = 0,     \
                             .values = cmp_values, .indices = indices, .mode = N##_ANY, .start = any_start(nelems)};                                                        \
        N##_scan_wait("shmem_" #N "_wait_until_some_vector", &s);                             \
        return some_returned(s.indices, s.found);                                             \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_test) int pshmem_##N##_test(T *ivar, int cmp, T cmp_value)                                       \
    {                                                                                         \
        symshmem_poll();                                                                      \
        check_cmp("shmem_" #N "_test", cmp);                                                  \
        return N##_cmp(__atomic_load_n(ivar, __ATOMIC_ACQUIRE), cmp, cmp_value);              \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_test_all) int pshmem_##N##_test_all(T *ivars, size_t nelems, const int *status, int cmp,             \
                             T cmp_value)                                                     \
    {                                                                                         \
        symshmem_poll();                                                                      \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = cmp_value,      \
                             .values = NULL, .indices = NULL, .mode = N##_ALL};                                                        \
        check_cmp("shmem_" #N "_test_all", cmp);                                              \
        return N##_scan_ready(&s);                                                            \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_test_any) size_t pshmem_##N##_test_any(T *ivars, size_t nelems, const int *status, int cmp,          \
                                T cmp_value)                                                  \
    {                                                                                         \
        symshmem_poll();                                                                      \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = cmp_value,      \
                             .values = NULL, .indices = NULL, .mode = N##_ANY, .start = any_start(nelems)};                                                        \
        check_cmp("shmem_" #N "_test_any", cmp);                                              \
        N##_scan_run(&s);                                                                     \
        return any_returned(s.first);                                                         \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_test_some) size_t pshmem_##N##_test_some(T *ivars, size_t nelems, size_t *indices, const int *status, \
                                 int cmp, T cmp_value)                                        \
    {                                                                                         \
        symshmem_poll();                                                                      \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = cmp_value,   \
                             .values = NULL, .indices = indices, .mode = N##_ANY, .start = any_start(nelems)};                                                        \
        check_cmp("shmem_" #N "_test_some", cmp);                                             \
        N##_scan_run(&s);                                                                     \
        return some_returned(s.indices, s.found);                                             \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_test_all_vector) int pshmem_##N##_test_all_vector(T *ivars, size_t nelems, const int *status, int cmp,      \
                                    T *cmp_values)                                            \
    {                                                                                         \
        symshmem_poll();                                                                      \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = 0,        \
                             .values = cmp_values, .indices = NULL, .mode = N##_ALL};                                                        \
        check_cmp("shmem_" #N "_test_all_vector", cmp);                                       \
        return N##_scan_ready(&s);                                                            \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_test_any_vector) size_t pshmem_##N##_test_any_vector(T *ivars, size_t nelems, const int *status, int cmp,   \
                                       T *cmp_values)                                         \
    {                                                                                         \
        symshmem_poll();                                                                      \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = 0,        \
                             .values = cmp_values, .indices = NULL, .mode = N##_ANY, .start = any_start(nelems)};                                                        \
        check_cmp("shmem_" #N "_test_any_vector", cmp);                                       \
        N##_scan_run(&s);                                                                     \
        return any_returned(s.first);                                                         \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_test_some_vector) size_t pshmem_##N##_test_some_vector(T *ivars, size_t nelems, size_t *indices,             \
                                        const int *status, int cmp, T *cmp_values)            \
    {                                                                                         \
        symshmem_poll();                                                                      \
        struct N##_scan s = {.ivars = ivars, .nelems = nelems, .status = status, .cmp = cmp, .value = 0,     \
                             .values = cmp_values, .indices = indices, .mode = N##_ANY, .start = any_start(nelems)};                                                        \
        check_cmp("shmem_" #N "_test_some_vector", cmp);                                      \
        N##_scan_run(&s);                                                                     \
        return some_returned(s.indices, s.found);                                             \
    })
/* clang-format on */
SYMSHMEM_TYPES_(P2P_DEF_, _)

/* ---- signals ----------------------------------------------------------- */

SYMSHMEM_WEAK_(shmem_signal_fetch)
uint64_t pshmem_signal_fetch(const uint64_t *sig_addr)
{
    symshmem_poll();
    return __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
}

SYMSHMEM_WEAK_(shmem_signal_wait_until)
uint64_t pshmem_signal_wait_until(uint64_t *sig_addr, int cmp, uint64_t cmp_value)
{
    struct uint64_scan s = {.ivars = sig_addr,
                            .nelems = 1,
                            .status = NULL,
                            .cmp = cmp,
                            .value = cmp_value,
                            .values = NULL,
                            .indices = NULL,
                            .mode = uint64_ALL};
    uint64_scan_wait("shmem_signal_wait_until", &s);
    if (s.first == SIZE_MAX) /* satisfied at the first look, before any scan */
        uint64_scan_run(&s);
    return s.seen;
}

struct cond_arg {
    bool (*ready)(void *arg);
    void *arg;
};

static int cond_ready(void *arg)
{
    const struct cond_arg *c = arg;
    return c->ready(c->arg);
}

sym_status_t symshmem_wait(const char *routine, bool (*ready)(void *arg), void *arg,
                           void (*describe)(void *arg, char *buf, size_t len))
{
    if (ready(arg))
        return SYM_OK;
    struct cond_arg c = {ready, arg};
    return sym_wait_cond(routine, cond_ready, &c, describe, 0);
}
