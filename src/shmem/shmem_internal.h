/*
 * shmem_internal.h - shared pieces of the OpenSHMEM facade (src/shmem/).
 * Not installed.
 */
#ifndef SYMSHMEM_INTERNAL_H
#define SYMSHMEM_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "pshmem.h"
#include "shmem.h"
#include "symheap.h"

struct symshmem_team {
    sym_team_t t; /* native team, SYM_TEAM_INVALID when unset */
    shmem_team_config_t config;
    bool predefined;           /* world/shared: never freed by the user */
    struct symshmem_ctx *ctxs; /* contexts made from this team (teams.c's lock) */
};

struct symshmem_ctx {
    shmem_team_t team; /* NULL once its team was destroyed */
    long options;
    bool live;
    /* In its team's list, or in the list of contexts whose team was
     * destroyed: those stay allocated so a later use is a clear error, not
     * a read of freed memory (teams.c). */
    struct symshmem_ctx *next, **prev_next;
};

/* Print "<routine>: <detail of the last native error>" with the PE and end
 * the job (OpenSHMEM's rule for routines that cannot return a status). */
void symshmem_fail(const char *routine, sym_status_t status) __attribute__((noreturn));

/* Same, with a message of the facade's own. */
void symshmem_failf(const char *routine, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 2, 3)));

/* A status the facade has no use for (a cleanup on a path that already
 * failed; recording an error, whose status the caller returns itself):
 * every sym_status_t call is warn_unused_result, and GCC does not take a
 * cast to void as a use. */
static inline void symshmem_ignore(sym_status_t status)
{
    (void)status;
}

static inline void symshmem_check(const char *routine, sym_status_t status)
{
    if (__builtin_expect(status != SYM_OK, 0))
        symshmem_fail(routine, status);
}

/* Global PE number of `pe` on `ctx` (PE numbers of a context created from a
 * team are that team's); -1 for SHMEM_CTX_INVALID, on which every operation
 * is a no-op (OpenSHMEM 1.5: a routine given SHMEM_CTX_INVALID does
 * nothing); ends the job on a destroyed or otherwise bad context. */
int symshmem_ctx_pe_slow(shmem_ctx_t ctx, int pe, const char *routine);

static inline int symshmem_ctx_pe(shmem_ctx_t ctx, int pe, const char *routine)
{
    if (__builtin_expect(ctx == SHMEM_CTX_DEFAULT, 1))
        return pe;
    return symshmem_ctx_pe_slow(ctx, pe, routine);
}

/* One progress pass of the transports that need this PE's calls to serve
 * its peers (libfabric providers with manual progress; nothing otherwise).
 * Every routine a program may call in a polling loop (the tests, the
 * signal fetch, shmem_test_lock, the accessibility, pointer and context
 * queries) makes one, as the blocking waits do between polls: a PE that
 * polls with them keeps serving its peers' operations on it. */
static inline void symshmem_poll(void)
{
    sym_make_progress();
}

/* Native team of a facade team, or SYM_TEAM_INVALID. */
static inline sym_team_t symshmem_native_team(shmem_team_t team)
{
    return team ? team->t : SYM_TEAM_INVALID;
}

/* SYMHEAP_* settings the facade follows, read once at shmem_init through
 * sym_config_uint() (setup.c). */
struct symshmem_settings {
    bool debug; /* SYMHEAP_DEBUG: log decisions to stderr */
};
extern struct symshmem_settings symshmem_settings;

/* A debug line to stderr, as the library's own (SYMHEAP_DEBUG). */
void symshmem_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Set up / release the predefined teams (called by shmem_init/finalize). */
sym_status_t symshmem_teams_init(void);
void symshmem_teams_fini(void);

/* Wait until `ready(arg)` holds, with symheap's deadline and job checks;
 * `what` describes the condition for the timeout message. */
sym_status_t symshmem_wait(const char *routine, bool (*ready)(void *arg), void *arg,
                           void (*describe)(void *arg, char *buf, size_t len));

/* Deprecated active-set barrier over PE_start + i * 2^logPE_stride. */
sym_status_t symshmem_active_barrier(const char *routine, int start, int log_stride, int size,
                                     long *psync, bool quiet);

/* The profiling interface (pshmem.h): every routine is defined as the
 * strong symbol pshmem_NAME, and shmem_NAME is a weak alias of it, so a
 * tool's own shmem_NAME takes the program's calls and reaches the library
 * through pshmem_NAME.  SYMSHMEM_WEAK_(shmem_NAME) precedes the definition
 * of pshmem_NAME (deprecated names: SYMSHMEM_WEAK_(start_pes) before
 * pstart_pes). */
#define SYMSHMEM_WEAK_(name)                                                                       \
    extern __typeof__(p##name) name __attribute__((weak, alias("p" #name)));

/* Define shmem_ctx_NAME(shmem_ctx_t ctx, params) and shmem_NAME(params)
 * (the default context) with the same body, which sees `ctx` and `routine`
 * (the routine's name).  The body is given in parentheses. */
#define SYMSHMEM_UNPAREN_(...) __VA_ARGS__
#define SYMSHMEM_DEF_CTX_(ret, name, body, ...)                                                    \
    SYMSHMEM_WEAK_(shmem_ctx_##name)                                                               \
    ret pshmem_ctx_##name(shmem_ctx_t ctx, __VA_ARGS__)                                            \
    {                                                                                              \
        const char *routine = "shmem_ctx_" #name;                                                  \
        SYMSHMEM_UNPAREN_ body                                                                     \
    }                                                                                              \
    SYMSHMEM_WEAK_(shmem_##name)                                                                   \
    ret pshmem_##name(__VA_ARGS__)                                                                 \
    {                                                                                              \
        shmem_ctx_t ctx = SHMEM_CTX_DEFAULT;                                                       \
        const char *routine = "shmem_" #name;                                                      \
        SYMSHMEM_UNPAREN_ body                                                                     \
    }

#endif /* SYMSHMEM_INTERNAL_H */
