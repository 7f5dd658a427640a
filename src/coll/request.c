/* request.c - non-blocking collectives as coroutines (request.h). */
#include <inttypes.h>
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <ucontext.h>

#include "coll/coll.h"
#include "coll/coll_check.h"
#include "coll/request.h"

/* AddressSanitizer must be told about stack switches, or it reports false
 * errors on the coroutine stacks. */
#if defined(__SANITIZE_ADDRESS__)
#define SYM_ASAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SYM_ASAN_FIBERS 1
#endif
#endif
#ifdef SYM_ASAN_FIBERS
#include <sanitizer/common_interface_defs.h>
#endif

/* ThreadSanitizer keeps a shadow call stack and a clock per thread: each
 * coroutine is a fiber of its own, entered and left through
 * __tsan_switch_to_fiber right before every swapcontext.  Switches keep
 * their default synchronisation: a coroutine and its caller are one thread,
 * so everything one did before a switch happens before what the other does
 * after it. */
#if defined(__SANITIZE_THREAD__)
#define SYM_TSAN_FIBERS 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define SYM_TSAN_FIBERS 1
#endif
#endif
#ifdef SYM_TSAN_FIBERS
#include <sanitizer/tsan_interface.h>
#endif

#define REQUEST_MAGIC 0x52455153u /* "REQS" */
#define STACK_BYTES   ((size_t)256 << 10)

enum req_state { REQ_QUEUED, REQ_RUNNING, REQ_DONE };

struct sym_request {
    uint32_t magic;
    enum sym_coll_kind kind;
    const char *op;
    sym_team_t team;
    const void *caller; /* SYMHEAP_COLL_CHECK=strict: who called sym_i<op> */
    sym_coll_opts_t opts;
    bool has_opts;
    void *dst;
    const void *src;
    size_t count;
    sym_datatype_t dt;
    sym_op_t rop;
    int root;
    size_t *counts, *counts2; /* copies of the v-variants' arrays */
    size_t *nbytes_p;         /* broadcast_v's length, the caller's */
    enum req_state state;
    sym_status_t status;
    char msg[1024];
    ucontext_t ctx, ret;
    void *stack;
    void *fake_stack;
    pthread_t owner;   /* the thread that progresses it: see below */
    void *tsan_fiber;  /* this coroutine's TSan context */
    void *tsan_caller; /* the context that resumed it */
    struct sym_request *next;
};

/* Threads (SYM_THREAD_MULTIPLE): the list is guarded by req_lock; a request
 * is resumed only by its owner, the thread that issued it or last called
 * sym_wait/sym_test on it, so a coroutine never moves between threads and
 * a thread waiting for something else (sym_wait_until, a signal) never runs
 * another thread's collective.  `current` is per thread: the request whose
 * coroutine this thread is running.  Progress takes the lock with trylock:
 * a thread that finds it taken simply polls again later. */
int sym_requests_pending; /* atomic */
static pthread_mutex_t req_lock = PTHREAD_MUTEX_INITIALIZER;
static struct sym_request *head; /* issue order */
static _Thread_local struct sym_request *current;

const void *sym_request_current(void)
{
    return current;
}

static inline int pending_count(void)
{
    return __atomic_load_n(&sym_requests_pending, __ATOMIC_ACQUIRE);
}
#ifdef SYM_ASAN_FIBERS
static const void *main_stack_bottom;
static size_t main_stack_size;
#endif

/* The blocking call a request runs, per argument shape (coll_list.h). */
#define SYM_REQ_RUN_BARRIER(name)   sym_##name(r->team, o)
#define SYM_REQ_RUN_BROADCAST(name) sym_##name(r->team, r->dst, r->count, r->dt, r->root, o)
#define SYM_REQ_RUN_ROOTED_REDUCTION(name)                                                         \
    sym_##name(r->team, r->dst, r->src, r->count, r->dt, r->rop, r->root, o)
#define SYM_REQ_RUN_REDUCTION(name) sym_##name(r->team, r->dst, r->src, r->count, r->dt, r->rop, o)
#define SYM_REQ_RUN_MOVE(name)      sym_##name(r->team, r->dst, r->src, r->count, r->dt, o)
#define SYM_REQ_RUN_ROOTED_MOVE(name)                                                              \
    sym_##name(r->team, r->dst, r->src, r->count, r->dt, r->root, o)
#define SYM_REQ_RUN_BROADCAST_V(name) sym_##name(r->team, r->dst, r->count, r->nbytes_p, r->root, o)
#define SYM_REQ_RUN_GATHERV(name)     sym_##name(r->team, r->dst, r->src, r->counts, r->dt, o)
#define SYM_REQ_RUN_ALL_TO_ALLV(name)                                                              \
    sym_##name(r->team, r->src, r->counts, r->dst, r->counts2, r->dt, o)

static sym_status_t run_blocking(struct sym_request *r)
{
    const sym_coll_opts_t *o = r->has_opts ? &r->opts : NULL;
    switch (r->kind) {
#define SYM_REQ_RUN_NONE(name) SYM_ERR_INTERNAL
#define RUN_(KIND, name, env, algos, shape, ...)                                                   \
    case SYM_COLL_##KIND:                                                                          \
        return SYM_REQ_RUN_##shape(name);
        SYM_COLL_LIST(RUN_)
#undef RUN_
    default:
        break;
    }
    return SYM_ERR_INTERNAL;
}

static void coroutine_entry(void)
{
    struct sym_request *r = current;
#ifdef SYM_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(NULL, &main_stack_bottom, &main_stack_size);
#endif
    sym_coll_pin_caller(r->caller);
    r->status = run_blocking(r);
    sym_coll_pin_caller(NULL);
    if (r->status != SYM_OK)
        snprintf(r->msg, sizeof(r->msg), "%s", sym_last_error());
    r->state = REQ_DONE;
#ifdef SYM_ASAN_FIBERS
    __sanitizer_start_switch_fiber(NULL, main_stack_bottom, main_stack_size);
#endif
#ifdef SYM_TSAN_FIBERS
    /* Returning would run this function's exit hook after the switch, on
     * the caller's shadow stack: jump to the caller instead. */
    __tsan_switch_to_fiber(r->tsan_caller, 0);
    setcontext(&r->ret);
#endif
    /* returning resumes r->ret through uc_link */
}

bool sym_request_yield(void)
{
    struct sym_request *r = current;
    if (!r)
        return false;
#ifdef SYM_ASAN_FIBERS
    __sanitizer_start_switch_fiber(&r->fake_stack, main_stack_bottom, main_stack_size);
#endif
#ifdef SYM_TSAN_FIBERS
    __tsan_switch_to_fiber(r->tsan_caller, 0);
#endif
    swapcontext(&r->ctx, &r->ret);
#ifdef SYM_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(r->fake_stack, &main_stack_bottom, &main_stack_size);
#endif
    return true;
}

static void release_stack(struct sym_request *r)
{
    if (r->stack)
        munmap(r->stack, STACK_BYTES);
    r->stack = NULL;
#ifdef SYM_TSAN_FIBERS
    if (r->tsan_fiber)
        __tsan_destroy_fiber(r->tsan_fiber);
    r->tsan_fiber = NULL;
#endif
}

static sym_status_t start(struct sym_request *r)
{
    r->stack = mmap(NULL, STACK_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (r->stack == MAP_FAILED) {
        r->stack = NULL;
        return SYM_ERR_NO_MEMORY;
    }
    /* a guard page below the stack turns an overflow into a crash, not
     * silent corruption of the heap */
    if (mprotect(r->stack, 4096, PROT_NONE) != 0) {
        munmap(r->stack, STACK_BYTES);
        r->stack = NULL;
        return SYM_ERR_NO_MEMORY;
    }
    getcontext(&r->ctx);
    r->ctx.uc_stack.ss_sp = r->stack;
    r->ctx.uc_stack.ss_size = STACK_BYTES;
    r->ctx.uc_link = &r->ret;
    makecontext(&r->ctx, coroutine_entry, 0);
#ifdef SYM_TSAN_FIBERS
    r->tsan_fiber = __tsan_create_fiber(0);
    __tsan_set_fiber_name(r->tsan_fiber, r->op);
#endif
    r->state = REQ_RUNNING;
    return SYM_OK;
}

static void resume(struct sym_request *r)
{
    current = r;
#ifdef SYM_ASAN_FIBERS
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, r->stack, STACK_BYTES);
#endif
#ifdef SYM_TSAN_FIBERS
    r->tsan_caller = __tsan_get_current_fiber();
    __tsan_switch_to_fiber(r->tsan_fiber, 0);
#endif
    swapcontext(&r->ret, &r->ctx);
#ifdef SYM_ASAN_FIBERS
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    current = NULL;
    if (r->state == REQ_DONE) {
        release_stack(r);
        __atomic_fetch_sub(&sym_requests_pending, 1, __ATOMIC_ACQ_REL);
    }
}

/* A request may run once every earlier request on its team finished. */
static bool runnable(const struct sym_request *r)
{
    for (const struct sym_request *p = head; p && p != r; p = p->next)
        if (p->team == r->team && p->state != REQ_DONE)
            return false;
    return true;
}

void sym_requests_progress(void)
{
    if (!pending_count() || current)
        return;
    if (pthread_mutex_trylock(&req_lock) != 0)
        return;
    pthread_t self = pthread_self();
    for (struct sym_request *r = head; r; r = r->next) {
        if (r->state == REQ_DONE || !pthread_equal(r->owner, self) || !runnable(r))
            continue;
        if (r->state == REQ_QUEUED && start(r) != SYM_OK) {
            r->status =
                sym_error(SYM_ERR_NO_MEMORY, "%s: no memory for the request's stack", r->op);
            snprintf(r->msg, sizeof(r->msg), "%s", sym_last_error());
            r->state = REQ_DONE;
            __atomic_fetch_sub(&sym_requests_pending, 1, __ATOMIC_ACQ_REL);
            continue;
        }
        resume(r);
    }
    pthread_mutex_unlock(&req_lock);
}

struct team_wait {
    struct sym_team *team;
};

static bool team_idle(void *arg)
{
    struct team_wait *w = arg;
    bool idle = true;
    pthread_mutex_lock(&req_lock);
    for (const struct sym_request *p = head; p && idle; p = p->next)
        if (p->team == w->team && p->state != REQ_DONE)
            idle = false;
    pthread_mutex_unlock(&req_lock);
    return idle;
}

static void team_describe(void *arg, char *buf, size_t len)
{
    struct team_wait *w = arg;
    snprintf(buf, len, "the pending non-blocking collectives on %s to finish", w->team->name);
}

sym_status_t sym_requests_drain_team(struct sym_team *team)
{
    if (!pending_count() || current)
        return SYM_OK;
    struct team_wait w = {team};
    struct sym_waiter waiter = {team_idle, team_describe, &w, NULL};
    /* each request's own waits carry the deadlines: this one is only the
     * longest any of them may have */
    struct sym_deadline dl = sym_deadline_in("collective", SYM_TIMEOUT_MAX);
    return sym_wait_for(&dl, &waiter);
}

static bool none_pending(void *arg)
{
    (void)arg;
    return pending_count() == 0;
}

static void pending_describe(void *arg, char *buf, size_t len)
{
    (void)arg;
    snprintf(buf, len, "%d pending non-blocking collectives to finish", pending_count());
}

sym_status_t sym_requests_finish_all(const char *op)
{
    if (!pending_count())
        return SYM_OK;
    struct sym_waiter waiter = {none_pending, pending_describe, NULL, NULL};
    /* each request's waits have theirs: this is only the longest of them */
    struct sym_deadline dl = sym_deadline_in(op, SYM_TIMEOUT_MAX);
    return sym_wait_for(&dl, &waiter);
}

static void unlink_request(struct sym_request *r)
{
    pthread_mutex_lock(&req_lock);
    for (struct sym_request **p = &head; *p; p = &(*p)->next)
        if (*p == r) {
            *p = r->next;
            break;
        }
    pthread_mutex_unlock(&req_lock);
}

static void request_free(struct sym_request *r)
{
    release_stack(r);
    free(r->counts);
    free(r->counts2);
    r->magic = 0;
    free(r);
}

void sym_requests_fini(void)
{
    while (head) {
        struct sym_request *r = head;
        head = r->next;
        request_free(r);
    }
    sym_requests_pending = 0;
    current = NULL;
}

static sym_status_t check_request(const char *op, sym_request_t *req_p)
{
    sym_status_t st = sym_check_init(op);
    if (st != SYM_OK)
        return st;
    if (!req_p || !*req_p)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: NULL request", op);
    bool found = false;
    pthread_mutex_lock(&req_lock);
    for (struct sym_request *r = head; r && !found; r = r->next)
        if (r == *req_p && r->magic == REQUEST_MAGIC) {
            r->owner = pthread_self(); /* who waits for it progresses it */
            found = true;
        }
    pthread_mutex_unlock(&req_lock);
    if (found)
        return SYM_OK;
    return sym_error(SYM_ERR_INVALID_ARG, "%s: %p is not a pending request (already completed?)",
                     op, (void *)*req_p);
}

/* Hand the finished request's result to the caller and free it. */
static sym_status_t complete(sym_request_t *req_p)
{
    struct sym_request *r = *req_p;
    sym_status_t st = r->status;
    if (st != SYM_OK)
        sym_error(st, "%s", r->msg);
    unlink_request(r);
    request_free(r);
    *req_p = SYM_REQUEST_NULL;
    return st;
}

static bool request_done(void *arg)
{
    return ((struct sym_request *)arg)->state == REQ_DONE;
}

static void request_describe(void *arg, char *buf, size_t len)
{
    struct sym_request *r = arg;
    snprintf(buf, len, "non-blocking %s on %s", r->op, r->team->name);
}

SYM_API sym_status_t sym_wait(sym_request_t *req_p)
{
    sym_status_t st = check_request("sym_wait", req_p);
    if (st != SYM_OK)
        return st;
    if (current)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_wait: called from inside a request");
    sym_requests_progress();
    struct sym_waiter waiter = {request_done, request_describe, *req_p, NULL};
    /* the request's waits have theirs: this is only the longest of them */
    struct sym_deadline dl = sym_deadline_in("sym_wait", SYM_TIMEOUT_MAX);
    if ((st = sym_wait_for(&dl, &waiter)) != SYM_OK)
        return st;
    return complete(req_p);
}

SYM_API sym_status_t sym_test(sym_request_t *req_p, int *done_p)
{
    sym_status_t st = check_request("sym_test", req_p);
    if (st != SYM_OK)
        return st;
    if (!done_p)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_test: done_p is NULL");
    sym_requests_progress();
    *done_p = (*req_p)->state == REQ_DONE;
    if (*done_p)
        return complete(req_p);
    /* Callers poll sym_test in a loop; on an oversubscribed host that loop
     * must not keep the core the peers need to make this request progress
     * (the coroutine's own waits only hand control back here). */
    if (sym_rt.oversubscribed)
        sched_yield();
    return SYM_OK;
}

SYM_API const char *sym_request_op(sym_request_t req)
{
    const char *op = "invalid";
    pthread_mutex_lock(&req_lock);
    for (struct sym_request *r = head; r; r = r->next)
        if (r == req && r->magic == REQUEST_MAGIC)
            op = r->op;
    pthread_mutex_unlock(&req_lock);
    return op;
}

/* Common part of every i-variant: check the team now (so a bad handle is
 * reported at once), queue the request and try to start it. */
static sym_status_t issue(const char *api, struct sym_request *proto, sym_request_t *req_p)
{
    if (!req_p) {
        free(proto->counts);
        free(proto->counts2);
        return sym_error(SYM_ERR_INVALID_ARG, "%s: req_p is NULL", api);
    }
    *req_p = SYM_REQUEST_NULL;
    sym_status_t st = sym_team_check(api, proto->team);
    if (st != SYM_OK) {
        free(proto->counts);
        free(proto->counts2);
        return st;
    }
    struct sym_request *r = malloc(sizeof(*r));
    if (!r) {
        free(proto->counts);
        free(proto->counts2);
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory for a request", api);
    }
    *r = *proto;
    r->magic = REQUEST_MAGIC;
    r->state = REQ_QUEUED;
    r->owner = pthread_self();
    r->next = NULL;
    pthread_mutex_lock(&req_lock);
    struct sym_request **tail = &head;
    while (*tail)
        tail = &(*tail)->next;
    *tail = r;
    __atomic_fetch_add(&sym_requests_pending, 1, __ATOMIC_ACQ_REL);
    pthread_mutex_unlock(&req_lock);
    *req_p = r;
    sym_requests_progress(); /* start now: often it completes or gets far */
    return SYM_OK;
}

static size_t *copy_counts(sym_team_t team, const size_t *counts)
{
    int n = sym_team_n_pes(team);
    if (n <= 0 || !counts)
        return NULL;
    size_t *c = malloc((size_t)n * sizeof(size_t));
    if (c)
        memcpy(c, counts, (size_t)n * sizeof(size_t));
    return c;
}

/* The i-variants, one per argument shape: each packs its arguments into a
 * request for run_blocking.  sym_ibarrier, sym_ibroadcast, sym_ireduce,
 * sym_iallreduce, ... are defined by SYM_COLL_LIST at the end. */
#define SYM_REQ_PROTO(KIND, name)                                                                  \
    struct sym_request p = {.kind = SYM_COLL_##KIND,                                               \
                            .op = #name,                                                           \
                            .team = team,                                                          \
                            .caller = sym_coll_strict ? __builtin_return_address(0) : NULL,        \
                            .has_opts = opts != NULL};                                             \
    if (opts)                                                                                      \
        p.opts = *opts;

#define SYM_REQ_DEFINE_BARRIER(KIND, name)                                                         \
    SYM_API sym_status_t sym_i##name(sym_team_t team, const sym_coll_opts_t *opts,                 \
                                     sym_request_t *req_p)                                         \
    {                                                                                              \
        SYM_REQ_PROTO(KIND, name)                                                                  \
        return issue("sym_i" #name, &p, req_p);                                                    \
    }

#define SYM_REQ_DEFINE_BROADCAST(KIND, name)                                                       \
    SYM_API sym_status_t sym_i##name(sym_team_t team, void *buf, size_t count, sym_datatype_t dt,  \
                                     int root, const sym_coll_opts_t *opts, sym_request_t *req_p)  \
    {                                                                                              \
        SYM_REQ_PROTO(KIND, name)                                                                  \
        p.dst = buf, p.count = count, p.dt = dt, p.root = root;                                    \
        return issue("sym_i" #name, &p, req_p);                                                    \
    }

#define SYM_REQ_DEFINE_ROOTED_REDUCTION(KIND, name)                                                \
    SYM_API sym_status_t sym_i##name(sym_team_t team, void *dst, const void *src, size_t count,    \
                                     sym_datatype_t dt, sym_op_t op, int root,                     \
                                     const sym_coll_opts_t *opts, sym_request_t *req_p)            \
    {                                                                                              \
        SYM_REQ_PROTO(KIND, name)                                                                  \
        p.dst = dst, p.src = src, p.count = count, p.dt = dt, p.rop = op, p.root = root;           \
        return issue("sym_i" #name, &p, req_p);                                                    \
    }

#define SYM_REQ_DEFINE_REDUCTION(KIND, name)                                                       \
    SYM_API sym_status_t sym_i##name(sym_team_t team, void *dst, const void *src, size_t count,    \
                                     sym_datatype_t dt, sym_op_t op, const sym_coll_opts_t *opts,  \
                                     sym_request_t *req_p)                                         \
    {                                                                                              \
        SYM_REQ_PROTO(KIND, name)                                                                  \
        p.dst = dst, p.src = src, p.count = count, p.dt = dt, p.rop = op;                          \
        return issue("sym_i" #name, &p, req_p);                                                    \
    }

#define SYM_REQ_DEFINE_MOVE(KIND, name)                                                            \
    SYM_API sym_status_t sym_i##name(sym_team_t team, void *dst, const void *src, size_t count,    \
                                     sym_datatype_t dt, const sym_coll_opts_t *opts,               \
                                     sym_request_t *req_p)                                         \
    {                                                                                              \
        SYM_REQ_PROTO(KIND, name)                                                                  \
        p.dst = dst, p.src = src, p.count = count, p.dt = dt;                                      \
        return issue("sym_i" #name, &p, req_p);                                                    \
    }

#define SYM_REQ_DEFINE_ROOTED_MOVE(KIND, name)                                                     \
    SYM_API sym_status_t sym_i##name(sym_team_t team, void *dst, const void *src, size_t count,    \
                                     sym_datatype_t dt, int root, const sym_coll_opts_t *opts,     \
                                     sym_request_t *req_p)                                         \
    {                                                                                              \
        SYM_REQ_PROTO(KIND, name)                                                                  \
        p.dst = dst, p.src = src, p.count = count, p.dt = dt, p.root = root;                       \
        return issue("sym_i" #name, &p, req_p);                                                    \
    }

/* The v-variants keep copies of the count arrays: the caller may reuse
 * its own before the request runs. */
#define SYM_REQ_DEFINE_GATHERV(KIND, name)                                                         \
    SYM_API sym_status_t sym_i##name(sym_team_t team, void *dst, const void *src,                  \
                                     const size_t *counts, sym_datatype_t dt,                      \
                                     const sym_coll_opts_t *opts, sym_request_t *req_p)            \
    {                                                                                              \
        SYM_REQ_PROTO(KIND, name)                                                                  \
        p.dst = dst, p.src = src, p.dt = dt, p.counts = copy_counts(team, counts);                 \
        return issue("sym_i" #name, &p, req_p);                                                    \
    }

#define SYM_REQ_DEFINE_ALL_TO_ALLV(KIND, name)                                                     \
    SYM_API sym_status_t sym_i##name(sym_team_t team, const void *src, const size_t *send_counts,  \
                                     void *dst, const size_t *recv_counts, sym_datatype_t dt,      \
                                     const sym_coll_opts_t *opts, sym_request_t *req_p)            \
    {                                                                                              \
        SYM_REQ_PROTO(KIND, name)                                                                  \
        p.dst = dst, p.src = src, p.dt = dt;                                                       \
        p.counts = copy_counts(team, send_counts);                                                 \
        p.counts2 = copy_counts(team, recv_counts);                                                \
        return issue("sym_i" #name, &p, req_p);                                                    \
    }

/* *nbytes_p is the caller's: read (root) and written (others) when the
 * request runs. */
#define SYM_REQ_DEFINE_BROADCAST_V(KIND, name)                                                     \
    SYM_API sym_status_t sym_i##name(sym_team_t team, void *buf, size_t capacity,                  \
                                     size_t *nbytes_p, int root, const sym_coll_opts_t *opts,      \
                                     sym_request_t *req_p)                                         \
    {                                                                                              \
        SYM_REQ_PROTO(KIND, name)                                                                  \
        p.dst = buf, p.count = capacity, p.nbytes_p = nbytes_p, p.root = root;                     \
        return issue("sym_i" #name, &p, req_p);                                                    \
    }

#define SYM_REQ_DEFINE_NONE(KIND, name)

#define DEFINE_(KIND, name, env, algos, shape, ...) SYM_REQ_DEFINE_##shape(KIND, name)
SYM_COLL_LIST(DEFINE_)
#undef DEFINE_
