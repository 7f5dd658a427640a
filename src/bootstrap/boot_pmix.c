/*
 * boot_pmix.c - join a job started by a PMIx launcher: Open MPI's mpirun,
 * PRRTE's prterun, Slurm's srun --mpi=pmix.
 *
 * Rank and size come from PMIx (PMIX_RANK of this process, PMIX_JOB_SIZE of
 * the namespace), each PE's host name from PMIX_HOSTNAME; blobs are
 * exchanged by Put/Commit/Fence(collect)/Get under a key per step; the job
 * key is made by rank 0 and published the same way.  Every fence carries
 * PMIX_TIMEOUT = SYMHEAP_TIMEOUT, so a PE that never arrives ends in an
 * error naming the step instead of a hang.
 *
 * Liveness: PMIx notifies registered handlers when a process of the job
 * terminates (PMIX_EVENT_PROC_TERMINATED, PMIX_ERR_PROC_TERM_WO_SYNC, and
 * the older PMIX_ERR_PROC_ABORTED); such a PE is reported as lost unless it
 * finalized.  Launchers differ in what they report: Open MPI 4.1's mpirun
 * reports nothing and instead tears the whole job down when a process dies,
 * which ends the survivors by signal.  Peers on this host are watched by
 * the runtime's own process probe either way.
 */
#include "base/error.h"
#include "base/wait.h"
#include "bootstrap.h"

#ifndef SYM_HAVE_PMIX

sym_status_t sym_boot_pmix_open(const struct sym_boot_settings *set, struct sym_boot **boot_p)
{
    (void)set;
    (void)boot_p;
    return sym_error(SYM_ERR_UNAVAILABLE,
                     "sym_init: started by a PMIx launcher (PMIX_NAMESPACE is set) or with "
                     "SYMHEAP_BOOTSTRAP=pmix, but this symheap was built without PMIx "
                     "(meson -Dpmix=enabled needs libpmix-dev); set SYMHEAP_BOOTSTRAP=singleton "
                     "to run this process alone");
}

#else

#include <math.h>
#include <pmix.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PMIX_KEY_JOBKEY "symheap.jobkey"
#define PMIX_KEY_SECRET "symheap.secret"

struct pmix_boot {
    struct sym_boot base;
    pmix_proc_t me;
    uint32_t step;
    int timeout_s;
    const char *timeout_name; /* what set timeout_s, for messages */
    bool debug;
    bool handler;
    size_t handler_ref;
    pthread_mutex_t lock;
    int lost;
    char lost_how[160];
};

/* Handlers run on PMIx's progress thread: only the lock and a copy. */
static struct pmix_boot *live_boot;
static pthread_mutex_t live_lock = PTHREAD_MUTEX_INITIALIZER;

static void on_proc_event(size_t ref, pmix_status_t status, const pmix_proc_t *source,
                          pmix_info_t info[], size_t ninfo, pmix_info_t *results, size_t nresults,
                          pmix_event_notification_cbfunc_fn_t cbfunc, void *cbdata)
{
    (void)ref;
    (void)info;
    (void)ninfo;
    (void)results;
    (void)nresults;
    pthread_mutex_lock(&live_lock);
    struct pmix_boot *pb = live_boot;
    if (pb && source && source->rank < (pmix_rank_t)pb->base.size && source->rank != pb->me.rank &&
        PMIX_CHECK_NSPACE(source->nspace, pb->me.nspace)) {
        pthread_mutex_lock(&pb->lock);
        if (pb->lost < 0) {
            pb->lost = (int)source->rank;
            snprintf(pb->lost_how, sizeof(pb->lost_how),
                     "terminated without finalizing (PMIx event: %s)", PMIx_Error_string(status));
        }
        pthread_mutex_unlock(&pb->lock);
    }
    pthread_mutex_unlock(&live_lock);
    if (cbfunc)
        cbfunc(PMIX_EVENT_ACTION_COMPLETE, NULL, 0, NULL, NULL, cbdata);
}

/* Where an error happened: the call, this PE (the rank PMIx gave it) and
 * the step, e.g. "sym_init (pmix bootstrap, PE 2, job key)" or
 * "sym_finalize (pmix bootstrap, PE 2)". */
static const char *where(const struct pmix_boot *pb, const char *step, char *buf, size_t len)
{
    if (strncmp(step, "sym_", 4) == 0)
        snprintf(buf, len, "%s (pmix bootstrap, PE %u)", step, (unsigned)pb->me.rank);
    else
        snprintf(buf, len, "sym_init (pmix bootstrap, PE %u, %s)", (unsigned)pb->me.rank, step);
    return buf;
}

static sym_status_t pmix_failed(const struct pmix_boot *pb, const char *step, const char *call,
                                pmix_status_t rc)
{
    char at[160];
    return sym_error(
        rc == PMIX_ERR_TIMEOUT ? SYM_ERR_TIMEOUT : SYM_ERR_BOOTSTRAP, "%s: %s failed: %s%s",
        where(pb, step, at, sizeof(at)), call, PMIx_Error_string(rc),
        rc == PMIX_ERR_TIMEOUT ? " (a PE never got there within SYMHEAP_TIMEOUT?)" : "");
}

/* One fence in flight.  PMIx calls fence_done on its progress thread, maybe
 * after the caller gave up waiting (timeout, lost PE): the state is shared,
 * and whichever of the two lets go last frees it. */
struct fence_op {
    pmix_info_t info[2]; /* must stay valid until the callback */
    int done;            /* atomic: the callback ran */
    pmix_status_t status;
    int refs; /* atomic: caller + callback */
    const char *step;
};

static void fence_release(struct fence_op *f)
{
    if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) != 0)
        return;
    PMIX_INFO_DESTRUCT(&f->info[0]);
    PMIX_INFO_DESTRUCT(&f->info[1]);
    free(f);
}

static void fence_done(pmix_status_t status, void *cbdata)
{
    struct fence_op *f = cbdata;
    f->status = status;
    __atomic_store_n(&f->done, 1, __ATOMIC_RELEASE);
    fence_release(f);
}

static bool fence_ready(void *arg)
{
    return __atomic_load_n(&((struct fence_op *)arg)->done, __ATOMIC_ACQUIRE) != 0;
}

static void fence_describe(void *arg, char *buf, size_t len)
{
    snprintf(buf, len, "every PE to reach the PMIx fence of %s", ((struct fence_op *)arg)->step);
}

/* Fence over the whole namespace, collecting what was put, bounded by
 * SYMHEAP_TIMEOUT.  Non-blocking plus sym_wait_for, not PMIx_Fence: the
 * waiting PE must keep driving transport progress (at sym_finalize a peer's
 * last libfabric operations may need this PE's endpoint to complete before
 * that peer can reach the fence), and watch for lost PEs. */
static sym_status_t fence(struct pmix_boot *pb, const char *step, bool collect)
{
    pmix_proc_t all;
    PMIX_LOAD_PROCID(&all, pb->me.nspace, PMIX_RANK_WILDCARD);
    struct fence_op *f = calloc(1, sizeof(*f));
    char op[160];
    where(pb, step, op, sizeof(op));
    if (!f)
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", op);
    bool yes = true;
    PMIX_INFO_LOAD(&f->info[0], PMIX_TIMEOUT, &pb->timeout_s, PMIX_INT);
    PMIX_INFO_LOAD(&f->info[1], PMIX_COLLECT_DATA, &yes, PMIX_BOOL);
    f->refs = 2;
    f->step = step;
    pmix_status_t rc = PMIx_Fence_nb(&all, 1, f->info, collect ? 2 : 1, fence_done, f);
    if (rc != PMIX_SUCCESS) { /* the callback will not run */
        f->refs = 1;
        fence_release(f);
        /* done at once (a job of one PE, say) */
        return rc == PMIX_OPERATION_SUCCEEDED ? SYM_OK : pmix_failed(pb, step, "PMIx_Fence_nb", rc);
    }
    /* PMIx's own timeout should answer first: it knows more. */
    struct sym_waiter w = {fence_ready, fence_describe, f, NULL};
    struct sym_deadline dl = sym_deadline_named(op, pb->timeout_s + 5.0, pb->timeout_name);
    sym_status_t st = sym_wait_for(&dl, &w);
    if (st == SYM_OK && f->status != PMIX_SUCCESS)
        st = pmix_failed(pb, step, "PMIx_Fence_nb", f->status);
    fence_release(f);
    return st;
}

static sym_status_t put_commit(const struct pmix_boot *pb, const char *step, const char *key,
                               pmix_value_t *v)
{
    pmix_status_t rc = PMIx_Put(PMIX_GLOBAL, key, v);
    if (rc != PMIX_SUCCESS)
        return pmix_failed(pb, step, "PMIx_Put", rc);
    if ((rc = PMIx_Commit()) != PMIX_SUCCESS)
        return pmix_failed(pb, step, "PMIx_Commit", rc);
    return SYM_OK;
}

static sym_status_t get_value(struct pmix_boot *pb, const char *step, int rank, const char *key,
                              pmix_value_t **v_p)
{
    pmix_proc_t p;
    PMIX_LOAD_PROCID(&p, pb->me.nspace, (pmix_rank_t)rank);
    pmix_status_t rc = PMIx_Get(&p, key, NULL, 0, v_p);
    char at[160];
    if (rc != PMIX_SUCCESS)
        return sym_error(SYM_ERR_BOOTSTRAP, "%s: PMIx_Get of %s from PE %d failed: %s",
                         where(pb, step, at, sizeof(at)), key, rank, PMIx_Error_string(rc));
    return SYM_OK;
}

static sym_status_t pmix_allgather(struct sym_boot *b, const void *mine, size_t len, void *all)
{
    struct pmix_boot *pb = (struct pmix_boot *)b;
    const char *step = "allgather";
    char key[64];
    snprintf(key, sizeof(key), "symheap.ag.%u", ++pb->step);
    pmix_value_t v;
    PMIX_VALUE_CONSTRUCT(&v);
    v.type = PMIX_BYTE_OBJECT;
    v.data.bo.bytes = (char *)mine;
    v.data.bo.size = len;
    const uint64_t t0 = sym_now_ns();
    sym_status_t st = put_commit(pb, step, key, &v);
    if (st == SYM_OK)
        st = fence(pb, step, true);
    const uint64_t t1 = sym_now_ns();
    for (int r = 0; st == SYM_OK && r < b->size; r++) {
        pmix_value_t *got = NULL;
        if ((st = get_value(pb, step, r, key, &got)) != SYM_OK)
            break;
        char at[160];
        if (got->type != PMIX_BYTE_OBJECT || got->data.bo.size != len)
            st = sym_error(SYM_ERR_BOOTSTRAP,
                           "%s: PE %d published %zu bytes, expected %zu (PEs run different "
                           "symheap versions?)",
                           where(pb, step, at, sizeof(at)), r,
                           got->type == PMIX_BYTE_OBJECT ? got->data.bo.size : 0, len);
        else if (len)
            memcpy((char *)all + (size_t)r * len, got->data.bo.bytes, len);
        PMIX_VALUE_RELEASE(got);
    }
    /* What an exchange costs as the job grows: the fence, and a get per PE. */
    if (st == SYM_OK && pb->debug)
        sym_debug("pmix allgather %u: %zu bytes per PE, fence %.4f s, %d gets %.4f s", pb->step,
                  len, (double)(t1 - t0) * 1e-9, b->size, (double)(sym_now_ns() - t1) * 1e-9);
    return st;
}

static sym_status_t pmix_barrier(struct sym_boot *b, const char *step)
{
    return fence((struct pmix_boot *)b, step, false);
}

static void pmix_set_state(struct sym_boot *b, int state)
{
    (void)b;
    (void)state;
}

static int pmix_lost_pe(struct sym_boot *b, char *how, size_t len)
{
    struct pmix_boot *pb = (struct pmix_boot *)b;
    pthread_mutex_lock(&pb->lock);
    int lost = pb->lost;
    if (lost >= 0 && how && len)
        snprintf(how, len, "%s", pb->lost_how);
    pthread_mutex_unlock(&pb->lock);
    return lost;
}

static void pmix_fini(struct sym_boot *b)
{
    struct pmix_boot *pb = (struct pmix_boot *)b;
    if (pb->handler)
        PMIx_Deregister_event_handler(pb->handler_ref, NULL, NULL);
    pthread_mutex_lock(&live_lock);
    if (live_boot == pb)
        live_boot = NULL;
    pthread_mutex_unlock(&live_lock);
    PMIx_Finalize(NULL, 0);
    pthread_mutex_destroy(&pb->lock);
    sym_secret_wipe(&b->secret, sizeof(b->secret));
    free(pb);
}

static const struct sym_boot_ops pmix_ops = {
    .name = "pmix",
    .allgather = pmix_allgather,
    .barrier = pmix_barrier,
    .set_state = pmix_set_state,
    .fini = pmix_fini,
    .lost_pe = pmix_lost_pe,
};

static sym_status_t join(struct pmix_boot *pb)
{
    pmix_proc_t wild;
    PMIX_LOAD_PROCID(&wild, pb->me.nspace, PMIX_RANK_WILDCARD);
    pmix_value_t *v = NULL;
    pmix_status_t rc = PMIx_Get(&wild, PMIX_JOB_SIZE, NULL, 0, &v);
    if (rc != PMIX_SUCCESS)
        return pmix_failed(pb, "job size", "PMIx_Get(PMIX_JOB_SIZE)", rc);
    uint32_t size = 0;
    if (v->type == PMIX_UINT32)
        size = v->data.uint32;
    PMIX_VALUE_RELEASE(v);
    if (size < 1 || size > SYM_JOB_MAX_PES || pb->me.rank >= size)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init (pmix bootstrap, PE %u, job size): PMIx says rank %u of %u "
                         "PEs (symheap supports 1..%d)",
                         (unsigned)pb->me.rank, (unsigned)pb->me.rank, size, SYM_JOB_MAX_PES);
    pb->base.rank = (int)pb->me.rank;
    pb->base.size = (int)size;

    /* Liveness, where the launcher reports terminations. */
    pmix_status_t codes[] = {PMIX_EVENT_PROC_TERMINATED, PMIX_ERR_PROC_TERM_WO_SYNC,
                             PMIX_ERR_PROC_ABORTED};
    pthread_mutex_lock(&live_lock);
    live_boot = pb;
    pthread_mutex_unlock(&live_lock);
    rc = PMIx_Register_event_handler(codes, sizeof(codes) / sizeof(codes[0]), NULL, 0,
                                     on_proc_event, NULL, NULL);
    if (rc >= 0) {
        pb->handler = true;
        pb->handler_ref = (size_t)rc;
    } else {
        sym_debug("pmix: no termination events (%s): liveness of remote PEs is the "
                  "launcher's",
                  PMIx_Error_string(rc));
    }

    /* The job key and the job secret: made by rank 0, read by everyone
     * after a fence.  The PMIx exchange is a trusted channel for the
     * secret: every client's connection to its PMIx server was
     * authenticated by the launcher that started it (PMIx's psec checks
     * the peer's credentials), the data is scoped to this namespace, and
     * the servers that hold it run as this user and started these
     * processes anyway.  Between hosts it travels on the launcher's own
     * channels, which see everything a job does. */
    const char *step = "job key";
    char at[160];
    if (pb->base.rank == 0) {
        if (sym_boot_random_key(pb->base.key) != 0)
            return sym_error(SYM_ERR_SYSTEM, "%s: getrandom failed",
                             where(pb, step, at, sizeof(at)));
        sym_status_t st = sym_secret_generate(&pb->base.secret);
        if (st != SYM_OK)
            return st;
        pmix_value_t kv;
        PMIX_VALUE_CONSTRUCT(&kv);
        kv.type = PMIX_STRING;
        kv.data.string = pb->base.key;
        st = put_commit(pb, step, PMIX_KEY_JOBKEY, &kv);
        if (st != SYM_OK)
            return st;
        char hex[2 * SYM_SECRET_MAX + 1];
        sym_secret_to_hex(&pb->base.secret, hex);
        kv.data.string = hex;
        st = put_commit(pb, step, PMIX_KEY_SECRET, &kv);
        sym_secret_wipe(hex, sizeof(hex));
        if (st != SYM_OK)
            return st;
    }
    sym_status_t st = fence(pb, step, true);
    if (st != SYM_OK)
        return st;
    if (pb->base.rank != 0) {
        if ((st = get_value(pb, step, 0, PMIX_KEY_JOBKEY, &v)) != SYM_OK)
            return st;
        bool ok =
            v->type == PMIX_STRING && v->data.string && strlen(v->data.string) == SYM_JOB_KEY_LEN;
        if (ok)
            memcpy(pb->base.key, v->data.string, SYM_JOB_KEY_LEN + 1);
        PMIX_VALUE_RELEASE(v);
        if (!ok)
            return sym_error(SYM_ERR_BOOTSTRAP, "%s: PE 0 published a malformed job key",
                             where(pb, step, at, sizeof(at)));
        if ((st = get_value(pb, step, 0, PMIX_KEY_SECRET, &v)) != SYM_OK)
            return st;
        ok = v->type == PMIX_STRING && v->data.string;
        if (ok)
            st = sym_secret_from_hex(v->data.string, "the job secret PE 0 published",
                                     &pb->base.secret);
        if (ok && v->data.string)
            sym_secret_wipe(v->data.string, strlen(v->data.string));
        PMIX_VALUE_RELEASE(v);
        if (!ok)
            return sym_error(SYM_ERR_BOOTSTRAP, "%s: PE 0 published a malformed job secret",
                             where(pb, step, at, sizeof(at)));
        if (st != SYM_OK)
            return st;
    }
    if (pb->debug) {
        pmix_proc_t p;
        PMIX_LOAD_PROCID(&p, pb->me.nspace, pb->me.rank);
        if (PMIx_Get(&p, PMIX_HOSTNAME, NULL, 0, &v) == PMIX_SUCCESS) {
            sym_debug("pmix: PE %d of %d in namespace %s on host %s", pb->base.rank, pb->base.size,
                      pb->me.nspace, v->type == PMIX_STRING ? v->data.string : "?");
            PMIX_VALUE_RELEASE(v);
        }
    }
    return SYM_OK;
}

sym_status_t sym_boot_pmix_open(const struct sym_boot_settings *set, struct sym_boot **boot_p)
{
    struct pmix_boot *pb = calloc(1, sizeof(*pb));
    if (!pb)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the bootstrap");
    pb->base.ops = &pmix_ops;
    pb->lost = -1;
    pb->debug = set->debug;
    double t = ceil(set->timeout);
    pb->timeout_s = t > 1e6 ? 1000000 : t < 1 ? 1 : (int)t;
    pb->timeout_name = set->timeout_name;
    pthread_mutex_init(&pb->lock, NULL);
    pmix_status_t rc = PMIx_Init(&pb->me, NULL, 0);
    if (rc != PMIX_SUCCESS) {
        pthread_mutex_destroy(&pb->lock);
        free(pb);
        /* PMIx has not told this PE its rank: say what the launcher set */
        const char *ns = getenv("PMIX_NAMESPACE"), *rank = getenv("PMIX_RANK");
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init (pmix bootstrap, PE %s %s, PMIx_Init): PMIx_Init failed: %s "
                         "(%s%s; is the program started by mpirun, prterun or srun "
                         "--mpi=pmix?)",
                         rank ? rank : "?", rank ? "(by PMIX_RANK)" : "(PMIX_RANK is unset)",
                         PMIx_Error_string(rc), ns ? "PMIX_NAMESPACE=" : "PMIX_NAMESPACE is ",
                         ns ? ns : "unset");
    }
    sym_status_t st = join(pb);
    if (st != SYM_OK) {
        pmix_fini(&pb->base);
        return st;
    }
    *boot_p = &pb->base;
    return SYM_OK;
}

#endif /* SYM_HAVE_PMIX */
