/*
 * coll_serial.c - the public blocking collectives, serialised per team at
 * SYM_THREAD_MULTIPLE.
 *
 * A team's collectives share its channel counters, sequence number and
 * scratch buffers, so two calls on one team must never run at once.  At
 * SYM_THREAD_MULTIPLE each public blocking collective holds its team's
 * lock for the whole call: a second thread's call on the same team waits
 * (in the wait loop, with the call's timeout) until the first returns;
 * calls on different teams run side by side.  Below that level the
 * program already promises one call at a time, and nothing is taken.
 *
 * The lock belongs to a caller, not to an OS thread: a thread that holds
 * it may call in again (the facade's calls, a team call's barrier).  A
 * non-blocking collective's coroutine takes none: requests on a team are
 * already run one at a time, in issue order, by request.c.
 *
 * The locks live in a table of their own, keyed by the team handle: team
 * records are recycled, never freed, so a handle always names the same
 * entry, and a team's entry is free whenever no call on it runs.
 */
#include <pthread.h>
#include <stdlib.h>

#include "coll/algorithms.h"
#include "coll/coll_check.h"
#include "coll/coll_serial.h"
#include "coll/request.h"

struct team_lock {
    const struct sym_team *team;
    uintptr_t owner; /* 0: free, else the holding thread's token */
    unsigned depth;  /* nested calls of the holder */
};

static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;
static struct team_lock *table;
static size_t table_len, table_cap;

/* What identifies the calling thread: the address of a thread-local. */
static _Thread_local char thread_token;

void sym_team_locks_fini(void)
{
    pthread_mutex_lock(&table_lock);
    free(table);
    table = NULL;
    table_len = table_cap = 0;
    pthread_mutex_unlock(&table_lock);
}

/* The entry of `team`, made if new; NULL if out of memory.  Under
 * table_lock. */
static struct team_lock *entry_of(const struct sym_team *team)
{
    for (size_t i = 0; i < table_len; i++)
        if (table[i].team == team)
            return &table[i];
    if (table_len == table_cap) {
        size_t cap = table_cap ? table_cap * 2 : 16;
        struct team_lock *t = realloc(table, cap * sizeof(*t));
        if (!t)
            return NULL;
        table = t;
        table_cap = cap;
    }
    table[table_len] = (struct team_lock){team, 0, 0};
    return &table[table_len++];
}

struct hold {
    const struct sym_team *team; /* NULL: nothing taken */
    const char *op;
    bool oom;
};

/* Take the team's lock if free or already this thread's. */
static bool try_take(void *arg)
{
    struct hold *h = arg;
    const uintptr_t me = (uintptr_t)&thread_token;
    bool taken = false;
    pthread_mutex_lock(&table_lock);
    struct team_lock *e = entry_of(h->team);
    if (!e) {
        h->oom = true;
        taken = true; /* reported by the caller */
    } else if (e->owner == 0 || e->owner == me) {
        e->owner = me;
        e->depth++;
        taken = true;
    }
    pthread_mutex_unlock(&table_lock);
    return taken;
}

static void hold_describe(void *arg, char *buf, size_t len)
{
    const struct hold *h = arg;
    snprintf(buf, len,
             "another thread's collective on %s to return (collectives on one team run "
             "one at a time at SYM_THREAD_MULTIPLE)",
             h->team->name);
}

/* Before a call on `team`: wait for its lock when it takes one. */
static sym_status_t hold_take(struct hold *h, const char *op, sym_team_t team,
                              const sym_coll_opts_t *opts)
{
    *h = (struct hold){NULL, op, false};
    if (sym_rt.thread_level != SYM_THREAD_MULTIPLE || sym_request_current())
        return SYM_OK;
    double timeout = 0;
    if (sym_team_get_timeout(team, &timeout) != SYM_OK)
        return SYM_OK; /* the call itself reports the bad team */
    if (opts && opts->timeout_s > 0)
        timeout = opts->timeout_s;
    h->team = team;
    struct sym_deadline dl = sym_deadline_in(op, timeout);
    struct sym_waiter waiter = {try_take, hold_describe, h, NULL};
    sym_status_t st = sym_wait_for(&dl, &waiter);
    if (st == SYM_OK && h->oom)
        st = sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory for the lock of %s", op, team->name);
    if (st != SYM_OK)
        h->team = NULL; /* the lock was not taken */
    return st;
}

static sym_status_t hold_drop(struct hold *h, sym_status_t st)
{
    if (!h->team)
        return st;
    pthread_mutex_lock(&table_lock);
    struct team_lock *e = entry_of(h->team); /* exists: taken above */
    if (e && --e->depth == 0)
        e->owner = 0;
    pthread_mutex_unlock(&table_lock);
    return st;
}

/* The public entry point's caller is the call site strict checking hashes
 * (coll_check.h): pinned here, so the _nolock body keeps it. */
#define SERIALISED(op, team, opts, call)                                                           \
    do {                                                                                           \
        if (__builtin_expect(sym_coll_strict, 0) && !sym_coll_caller_pinned)                       \
            sym_coll_pin_caller(__builtin_return_address(0));                                      \
        struct hold h_;                                                                            \
        sym_status_t st_ = hold_take(&h_, op, team, opts);                                         \
        return st_ != SYM_OK ? st_ : hold_drop(&h_, call);                                         \
    } while (0)

SYM_API sym_status_t sym_barrier(sym_team_t team, const sym_coll_opts_t *opts)
{
    SERIALISED("sym_barrier", team, opts, sym_barrier_nolock(team, opts));
}

SYM_API sym_status_t sym_broadcast(sym_team_t team, void *buf, size_t count, sym_datatype_t dt,
                                   int root, const sym_coll_opts_t *opts)
{
    SERIALISED("sym_broadcast", team, opts, sym_broadcast_nolock(team, buf, count, dt, root, opts));
}

SYM_API sym_status_t sym_broadcast_v(sym_team_t team, void *buf, size_t capacity, size_t *nbytes_p,
                                     int root, const sym_coll_opts_t *opts)
{
    SERIALISED("sym_broadcast_v", team, opts,
               sym_broadcast_v_nolock(team, buf, capacity, nbytes_p, root, opts));
}

SYM_API sym_status_t sym_reduce(sym_team_t team, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, sym_op_t op, int root,
                                const sym_coll_opts_t *opts)
{
    SERIALISED("sym_reduce", team, opts,
               sym_reduce_nolock(team, dst, src, count, dt, op, root, opts));
}

SYM_API sym_status_t sym_allreduce(sym_team_t team, void *dst, const void *src, size_t count,
                                   sym_datatype_t dt, sym_op_t op, const sym_coll_opts_t *opts)
{
    SERIALISED("sym_allreduce", team, opts,
               sym_allreduce_nolock(team, dst, src, count, dt, op, opts));
}

SYM_API sym_status_t sym_reduce_scatter(sym_team_t team, void *dst, const void *src, size_t count,
                                        sym_datatype_t dt, sym_op_t op, const sym_coll_opts_t *opts)
{
    SERIALISED("sym_reduce_scatter", team, opts,
               sym_reduce_scatter_nolock(team, dst, src, count, dt, op, opts));
}

SYM_API sym_status_t sym_all_gather(sym_team_t team, void *dst, const void *src, size_t count,
                                    sym_datatype_t dt, const sym_coll_opts_t *opts)
{
    SERIALISED("sym_all_gather", team, opts,
               sym_all_gather_nolock(team, dst, src, count, dt, opts));
}

SYM_API sym_status_t sym_all_gatherv(sym_team_t team, void *dst, const void *src,
                                     const size_t *counts, sym_datatype_t dt,
                                     const sym_coll_opts_t *opts)
{
    SERIALISED("sym_all_gatherv", team, opts,
               sym_all_gatherv_nolock(team, dst, src, counts, dt, opts));
}

SYM_API sym_status_t sym_all_to_all(sym_team_t team, void *dst, const void *src, size_t count,
                                    sym_datatype_t dt, const sym_coll_opts_t *opts)
{
    SERIALISED("sym_all_to_all", team, opts,
               sym_all_to_all_nolock(team, dst, src, count, dt, opts));
}

SYM_API sym_status_t sym_all_to_allv(sym_team_t team, const void *src, const size_t *send_counts,
                                     void *dst, const size_t *recv_counts, sym_datatype_t dt,
                                     const sym_coll_opts_t *opts)
{
    SERIALISED("sym_all_to_allv", team, opts,
               sym_all_to_allv_nolock(team, src, send_counts, dst, recv_counts, dt, opts));
}

SYM_API sym_status_t sym_gather(sym_team_t team, void *dst, const void *src, size_t count,
                                sym_datatype_t dt, int root, const sym_coll_opts_t *opts)
{
    SERIALISED("sym_gather", team, opts, sym_gather_nolock(team, dst, src, count, dt, root, opts));
}

SYM_API sym_status_t sym_scatter(sym_team_t team, void *dst, const void *src, size_t count,
                                 sym_datatype_t dt, int root, const sym_coll_opts_t *opts)
{
    SERIALISED("sym_scatter", team, opts,
               sym_scatter_nolock(team, dst, src, count, dt, root, opts));
}
