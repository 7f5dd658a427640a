/* init.c - sym_init / sym_finalize: bringing every layer up and down in
 * order, handing each what it needs (the runtime state lives in
 * core/state.c); and the job queries. */
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/heap_size.h"
#include "bootstrap/bootstrap.h"
#include "core/cma.h"
#include "core/internal.h"
#include "launch/job.h"
#include "coll/coll_serial.h"
#include "coll/finalize_check.h"
#include "coll/request.h"
#include "coll/team.h"

/* What every PE tells the others at init. */
struct pe_card {
    int32_t pid;
    char host[192]; /* sym_host_identity(): equal means shm can reach the PE */
};

static int cores_available(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

/* The wait loop (base) drives the transports through core and runs the
 * non-blocking collectives of coll: the hooks are registered once and stay
 * (with nothing open they find nothing to do). */
static void register_wait_hooks(void)
{
    static const struct sym_wait_progress_hooks progress = {
        .need_progress = sym_transports_need_progress,
        .progress = sym_transports_progress,
        .sleep = sym_transports_sleep,
    };
    static const struct sym_wait_request_hooks requests = {
        .run_pending = sym_requests_progress,
        .yield = sym_request_yield,
    };
    sym_wait_set_progress_hooks(&progress);
    sym_wait_set_request_hooks(&requests);
}

/* Tell the wait loop what the configuration and the job say, whenever
 * either changes. */
static void tune_waits(void)
{
    struct sym_wait_tuning t = {
        .timeout_s = sym_rt.cfg.timeout,
        .spin = sym_rt.cfg.wait_spin,
        .yield_us = sym_rt.cfg.wait_yield_us,
        .oversubscribed = sym_rt.oversubscribed,
        .sleep_at_once = sym_rt.wait_sleeps_at_once,
    };
    sym_wait_set_tuning(&t);
}

static int boot_lost_pe(void *arg, char *how, size_t len)
{
    struct sym_boot *boot = arg;
    return boot->ops->lost_pe(boot, how, len);
}

static void boot_tell_error(void *arg, sym_status_t status, int blamed)
{
    struct sym_boot *boot = arg;
    boot->ops->tell_error(boot, (int)status, blamed);
}

static uint32_t boot_aborted(void *arg, int32_t *status_p)
{
    struct sym_boot *boot = arg;
    return boot->ops->aborted(boot, status_p);
}

/* Show the job health check (base) what init has learnt so far: the job,
 * the peers' arrays once allocated (filled in as init goes on), and where
 * this PE's heap mapping will be kept. */
static void show_health(void)
{
    struct sym_health_view v = {
        .me = sym_rt.me,
        .npes = sym_rt.npes,
        .job = sym_rt.job,
        .my_ctrl = &sym_rt.base,
        .peer_ctrl = sym_rt.peer_base,
        .abort_by_off = offsetof(struct sym_heap_ctrl, abort_by),
        .abort_status_off = offsetof(struct sym_heap_ctrl, abort_status),
        .state_off = offsetof(struct sym_heap_ctrl, state),
        .lib_error_off = offsetof(struct sym_heap_ctrl, lib_error),
        .lib_blame_off = offsetof(struct sym_heap_ctrl, lib_blame),
        .peer_pid = sym_rt.peer_pid,
        .peer_local = sym_rt.peer_local,
    };
    if (sym_rt.boot && sym_rt.boot->ops->lost_pe) {
        v.lost_pe = boot_lost_pe;
        v.lost_pe_arg = sym_rt.boot;
    }
    if (sym_rt.boot && sym_rt.boot->ops->tell_error) {
        v.tell_error = boot_tell_error;
        v.tell_error_arg = sym_rt.boot;
    }
    if (sym_rt.boot && sym_rt.boot->ops->aborted) {
        v.aborted = boot_aborted;
        v.aborted_arg = sym_rt.boot;
    }
    sym_health_set(&v);
}

static void release_all(void)
{
    sym_fault_disarm();
    sym_requests_fini();
    sym_team_locks_fini();
    sym_teams_fini();
    sym_transports_close();
    if (sym_rt.boot) {
        /* The health check must not call into a bootstrap being freed. */
        struct sym_boot *boot = sym_rt.boot;
        sym_rt.boot = NULL;
        show_health();
        boot->ops->fini(boot);
    }
    sym_alloc_fini(&sym_rt.alloc);
    free(sym_rt.peer_base);
    free(sym_rt.peer_tp);
    free(sym_rt.peer_pid);
    free(sym_rt.peer_local);
    struct sym_config cfg = sym_rt.cfg; /* keep debug logging for late messages */
    memset(&sym_rt, 0, sizeof(sym_rt));
    sym_rt.cfg = cfg;
    sym_rt.me = -1;
    sym_rt.npes = -1;
    sym_log_set_pe(-1);
    show_health();
    tune_waits();
}

static void set_state(int state)
{
    if (sym_rt.base)
        __atomic_store_n(&((struct sym_heap_ctrl *)sym_rt.base)->state, (uint32_t)state,
                         __ATOMIC_RELEASE);
    if (sym_rt.boot)
        sym_rt.boot->ops->set_state(sym_rt.boot, state);
}

static sym_status_t verify_peer_heaps(void)
{
    for (int pe = 0; pe < sym_rt.npes; pe++) {
        const struct sym_heap_ctrl *hc = (const void *)sym_rt.peer_base[pe];
        if (!hc)
            continue;
        if (hc->magic != SYM_HEAP_MAGIC || hc->layout_version != SYM_HEAP_LAYOUT_VERSION ||
            hc->pe != pe || hc->npes != sym_rt.npes || hc->heap_total != sym_rt.heap_total ||
            hc->user_off != sym_rt.layout.user_off)
            return sym_error(SYM_ERR_BOOTSTRAP,
                             "sym_init: PE %d's heap does not match this PE's layout "
                             "(heap %llu vs %zu bytes, user offset %llu vs %llu): every PE "
                             "must run the same symheap with the same SYMHEAP_HEAP_SIZE and "
                             "SYMHEAP_MAILBOX_SIZE",
                             pe, (unsigned long long)hc->heap_total, sym_rt.heap_total,
                             (unsigned long long)hc->user_off,
                             (unsigned long long)sym_rt.layout.user_off);
    }
    return SYM_OK;
}

/* Meeting the peers and loading libfabric can take seconds on a loaded
 * host: a short operation timeout must not fail them, so init waits up to
 * SYMHEAP_INIT_TIMEOUT (0: SYMHEAP_TIMEOUT). */
static double init_timeout(void)
{
    return sym_rt.cfg.init_timeout ? (double)sym_rt.cfg.init_timeout : sym_rt.cfg.timeout;
}

static const char *init_timeout_name(void)
{
    return sym_rt.cfg.init_timeout ? "SYMHEAP_INIT_TIMEOUT" : "SYMHEAP_TIMEOUT";
}

/* What the bootstrap takes from the configuration: the init timeout, which
 * it keeps for its own later exchanges. */
static void boot_settings(struct sym_boot_settings *b)
{
    const struct sym_config *c = &sym_rt.cfg;
    *b = (struct sym_boot_settings){
        .timeout = init_timeout(),
        .timeout_name = init_timeout_name(),
        .debug = c->debug,
        .symrun_fd_set = c->set.symrun_fd,
        .symrun_pe_set = c->set.symrun_pe,
        .symrun_npes_set = c->set.symrun_npes,
        .symrun_fd = c->symrun_fd,
        .symrun_pe = c->symrun_pe,
        .symrun_npes = c->symrun_npes,
        .rank_set = c->set.rank,
        .rank = c->rank,
        .size = c->size,
    };
    snprintf(b->mode, sizeof(b->mode), "%s", c->bootstrap.s);
    snprintf(b->root_addr, sizeof(b->root_addr), "%s", c->root_addr.s);
    snprintf(b->job_secret, sizeof(b->job_secret), "%s", c->job_secret.s);
    snprintf(b->job_secret_file, sizeof(b->job_secret_file), "%s", c->job_secret_file.s);
}

static void describe_transports(char *buf, size_t len);

/* The level sym_init_thread asks for, in force while init_steps runs: the
 * transports choose their locking from it. */
static int requested_level = SYM_THREAD_SINGLE;

static sym_status_t init_steps(void)
{
    sym_status_t st = sym_config_load(&sym_rt.cfg);
    sym_log_set_debug(sym_rt.cfg.debug);
    if (st != SYM_OK)
        return st;
    tune_waits();
    /* Every wait of init below the bootstrap (the transports' own) shares
     * one deadline, which starts now. */
    struct sym_deadline init = sym_deadline_named("sym_init", init_timeout(), init_timeout_name());
    sym_deadline_anchor(&init);
#ifndef SYM_HAVE_OFI
    if (strcmp(sym_rt.cfg.transport.s, "ofi") == 0)
        return sym_error(SYM_ERR_UNAVAILABLE,
                         "sym_init: SYMHEAP_TRANSPORT=ofi, but this symheap has no libfabric "
                         "transport");
#endif
    /* Globals first: their copy must not race with the bootstrap's threads. */
    sym_transports_prepare();
    struct sym_boot_settings boot_set;
    boot_settings(&boot_set);
    st = sym_boot_open(&boot_set, &sym_rt.boot);
    sym_secret_wipe(&boot_set, sizeof(boot_set));
    if (st != SYM_OK)
        return st;
    struct sym_boot *boot = sym_rt.boot;
    sym_rt.me = boot->rank;
    sym_rt.npes = boot->size;
    sym_rt.job = boot->job;
    sym_log_set_pe(sym_rt.me);
    show_health();
    /* once per job: every PE normally has the same environment */
    if (sym_rt.me == 0 && !sym_config_quiet())
        sym_config_warn_unknown(stderr);
    if ((st = sym_fault_arm(&sym_rt.cfg.fault, sym_rt.me, sym_rt.npes, sym_rt.cfg.timeout)) !=
        SYM_OK)
        return st;
    boot->ops->set_state(boot, SYM_PE_STARTING);

    size_t heap_size;
    if ((st = sym_heap_size_choose(boot, &sym_rt.cfg, &heap_size)) != SYM_OK)
        return st;
    if (sym_heap_layout_compute(heap_size, sym_rt.cfg.mailbox_size, sym_rt.cfg.staging_size,
                                sym_rt.cfg.team_region_size, &sym_rt.layout) != 0)
        return sym_error(SYM_ERR_CONFIG, "sym_init: SYMHEAP_HEAP_SIZE=%zu is too large", heap_size);
    sym_rt.heap_total = sym_rt.layout.total;

    sym_rt.peer_base = calloc((size_t)sym_rt.npes, sizeof(*sym_rt.peer_base));
    sym_rt.peer_tp = calloc((size_t)sym_rt.npes, sizeof(*sym_rt.peer_tp));
    sym_rt.peer_pid = calloc((size_t)sym_rt.npes, sizeof(*sym_rt.peer_pid));
    struct pe_card *cards = calloc((size_t)sym_rt.npes, sizeof(*cards));
    bool *local = calloc((size_t)sym_rt.npes, sizeof(*local));
    sym_rt.peer_local = calloc((size_t)sym_rt.npes, sizeof(*sym_rt.peer_local));
    if (!sym_rt.peer_base || !sym_rt.peer_tp || !sym_rt.peer_pid || !cards || !local ||
        !sym_rt.peer_local) {
        free(cards);
        free(local);
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", sym_rt.npes);
    }
    show_health();

    st = sym_transports_heap_open();
    if (st == SYM_OK) {
        struct sym_heap_ctrl *hc = (void *)sym_rt.base;
        hc->magic = SYM_HEAP_MAGIC;
        hc->layout_version = SYM_HEAP_LAYOUT_VERSION;
        hc->pe = sym_rt.me;
        hc->npes = sym_rt.npes;
        hc->pid = (int32_t)getpid();
        hc->heap_total = sym_rt.heap_total;
        hc->user_off = sym_rt.layout.user_off;
        hc->user_size = sym_rt.layout.user_size;
        memcpy(hc->job_key, boot->key, sizeof(boot->key));
        sym_cma_prepare();
        set_state(SYM_PE_STARTING);

        struct pe_card mine = {.pid = (int32_t)getpid()};
        sym_host_identity(mine.host, sizeof(mine.host));
        st = boot->ops->allgather(boot, &mine, sizeof(mine), cards);
    }
    int nlocal = 0;
    for (int pe = 0; st == SYM_OK && pe < sym_rt.npes; pe++) {
        sym_rt.peer_pid[pe] = cards[pe].pid;
        local[pe] = strncmp(cards[pe].host, cards[sym_rt.me].host, sizeof(cards[pe].host)) == 0;
        nlocal += local[pe];
        sym_rt.peer_local[pe] = local[pe];
    }
    if (st == SYM_OK)
        st = sym_transports_open(boot, local, &init);
    free(cards);
    free(local);
    if (st == SYM_OK)
        st = verify_peer_heaps();
    /* every peer wrote its probe word before the exchange above */
    if (st == SYM_OK)
        sym_cma_probe();
    /* Every PE has its transports connected before any returns: a PE that
     * returns and exits at once must not fail a peer still connecting. */
    if (st == SYM_OK)
        st = boot->ops->barrier(boot, "sym_init");
    if (st != SYM_OK)
        return st;
    tune_waits();
    if (sym_alloc_init(&sym_rt.alloc, sym_rt.layout.user_off, sym_rt.layout.user_size) != 0)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the allocator");
    if ((st = sym_teams_init()) != SYM_OK)
        return st;
    sym_rt.oversubscribed = nlocal > cores_available();
    tune_waits();
    /* Decided from what every PE of the job sees alike (the job size and
     * the host's online CPUs, not this process's affinity): all PEs must
     * run the same barrier algorithm. */
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    sym_rt.central_barrier =
        sym_rt.npes > 2 && online > 0 && nlocal == sym_rt.npes && sym_rt.npes > online;
    char tps[128];
    describe_transports(tps, sizeof(tps));
    sym_debug("initialised: PE %d of %d, %s bootstrap%s, transports: %s; heap %zu bytes (user "
              "%llu at offset %llu), %d PEs on this host, %s waiting",
              sym_rt.me, sym_rt.npes, boot->ops->name,
              strcmp(boot->ops->name, "singleton") == 0
                  ? " (a job of one PE: started without symrun, mpirun, srun or "
                    "SYMHEAP_ROOT_ADDR)"
                  : "",
              tps, sym_rt.heap_total, (unsigned long long)sym_rt.layout.user_size,
              (unsigned long long)sym_rt.layout.user_off, nlocal,
              sym_rt.oversubscribed ? "oversubscribed (no spinning)" : "spin-then-yield");
    return SYM_OK;
}

/* "shm to 3 PEs, ofi to 4 PEs": which transport reaches how many PEs
 * (this one included), for the debug line of init. */
static void describe_transports(char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (int i = 0; i < sym_rt.ntp; i++) {
        int n = 0;
        for (int pe = 0; pe < sym_rt.npes; pe++)
            n += sym_rt.peer_tp[pe] == sym_rt.tp[i];
        if (n == 0 || used >= len)
            continue;
        int w = snprintf(buf + used, len - used, "%s%s to %d PE%s", used ? ", " : "",
                         sym_rt.tp[i]->ops->name, n, n == 1 ? "" : "s");
        used += w > 0 ? (size_t)w : 0;
    }
}

/* A failed sym_init is told on stderr, once per call, whatever the program
 * does with the status (SYMHEAP_QUIET=1: not), so a program that ignores
 * it still says why it failed. */
static void tell_init_failure(sym_status_t st)
{
    if (sym_config_quiet())
        return;
    char who[32] = "";
    if (sym_rt.me >= 0)
        snprintf(who, sizeof(who), "PE %d: ", sym_rt.me);
    const char *msg = sym_last_error();
    if (!strncmp(msg, "sym_init: ", 10))
        msg += 10;
    fprintf(stderr, "symheap: %ssym_init failed: %s [%s]\n", who, msg, sym_status_name(st));
    /* the message is out: symrun need not repeat it */
    sym_health_error_read();
}

SYM_API sym_status_t sym_init(void)
{
    const int level = requested_level;
    requested_level = SYM_THREAD_SINGLE;
    if (sym_rt.initialized)
        return sym_error(SYM_ERR_ALREADY_INITIALIZED, "sym_init: already initialized (PE %d)",
                         sym_rt.me);
    register_wait_hooks();
    sym_rt.thread_level = level;
    sym_status_t st = init_steps();
    tune_waits();
    if (st != SYM_OK) {
        tell_init_failure(st);
        release_all();
        return st;
    }
    set_state(SYM_PE_RUNNING);
    sym_rt.initialized = true;
    sym_finalized = false;
    return SYM_OK;
}

SYM_API sym_status_t sym_init_thread(int requested, int *provided_p)
{
    if (requested < SYM_THREAD_SINGLE || requested > SYM_THREAD_MULTIPLE)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_init_thread: requested thread level %d is not one of "
                         "SYM_THREAD_SINGLE (0) .. SYM_THREAD_MULTIPLE (3)",
                         requested);
    requested_level = requested;
    sym_status_t st = sym_init();
    if (st != SYM_OK)
        return st;
    sym_rt.thread_level = requested;
    if (provided_p)
        *provided_p = requested;
    return SYM_OK;
}

SYM_API int sym_thread_level(void)
{
    return sym_rt.initialized ? sym_rt.thread_level : -1;
}

SYM_API sym_status_t sym_finalize(void)
{
    sym_status_t st = sym_check_init("sym_finalize");
    if (st != SYM_OK)
        return st;
    st = sym_requests_finish_all("sym_finalize");
    /* Its fingerprint makes a peer in sym_barrier_all (or a collective
     * allocation) fail on both sides instead of pairing with it, and a peer
     * in a collective on the world team finds it there. */
    const struct sym_sync_print mine = sym_sync_print_make(SYM_SYNC_FINALIZE, false, 0, 0, 0);
    /* A collective this PE only sent in may have failed elsewhere after it
     * returned (symheap/coll.h): wait until the world team's members took
     * this PE's data.  A member that finalizes without taking it made no
     * such call: the wait reports the mismatch to every member, and after
     * the barrier every PE sees what any PE found.  The wait compares this
     * PE's last call with its members' call lines, so the finalize call
     * line is published after it. */
    if (st == SYM_OK)
        st = sym_team_final_flush(sym_team_world(), "sym_finalize");
    sym_finalize_publish();
    /* A member that met this finalize in a collective reports the mismatch
     * there and goes on to its own finalize (or exits): the barrier waits
     * for that, so that no PE leaves its peers a lost PE in their finalize,
     * and then the mismatch, the cause, is what this PE returns, whatever
     * the barrier ended with. */
    sym_status_t st2 = sym_barrier_agree("sym_finalize", &mine);
    sym_status_t mismatch = sym_finalize_stalled(NULL);
    if (mismatch != SYM_OK)
        st2 = mismatch;
    if (st == SYM_OK)
        st = st2;
    if (st == SYM_OK)
        st = sym_team_final_state(sym_team_world(), "sym_finalize");
    /* Peers with manual progress may still need my endpoint to complete
     * their last operations: close it only once everyone drained. */
    if (st == SYM_OK && sym_transports_need_progress()) {
        st = sym_quiet_internal();
        if (st == SYM_OK)
            st = sym_rt.boot->ops->barrier(sym_rt.boot, "sym_finalize");
    }
    /* Only a finalize that succeeded is an orderly end: after a failed one
     * the PE stays RUNNING in its peers' eyes, so its exit is a loss they
     * learn of at once, not a departure they wait out. */
    if (st == SYM_OK)
        set_state(SYM_PE_FINALIZED);
    sym_rt.initialized = false;
    release_all();
    sym_finalized = true;
    return st;
}

SYM_API int sym_initialized(void)
{
    return sym_rt.initialized ? 1 : 0;
}

SYM_API int sym_my_pe(void)
{
    return sym_rt.initialized ? sym_rt.me : -1;
}

SYM_API int sym_n_pes(void)
{
    return sym_rt.initialized ? sym_rt.npes : -1;
}

SYM_API void sym_global_exit(int status)
{
    /* The job ends with the status of the first PE that ended it: a PE
     * that calls this after another did (say, because its wait failed with
     * SYM_ERR_ABORTED) exits with that status and leaves the abort word as
     * it is, so every PE, and the launcher, report the one status asked
     * for, whichever PE noticed first. */
    int32_t raised = 0;
    uint32_t raised_by = sym_health_abort_by(&raised);
    if (raised_by && raised_by <= (uint32_t)(sym_rt.npes > 0 ? sym_rt.npes : 0))
        exit(raised); /* a PE's, not the launcher's */
    uint32_t by = (uint32_t)(sym_rt.me >= 0 ? sym_rt.me : 0) + 1;
    if (sym_rt.job) {
        sym_rt.job->abort_status = status;
        __atomic_store_n(&sym_rt.job->abort_by, by, __ATOMIC_RELEASE);
    }
    for (int pe = 0; sym_rt.peer_base && pe < sym_rt.npes; pe++) {
        struct sym_heap_ctrl *hc = (void *)sym_rt.peer_base[pe];
        if (!hc)
            continue;
        hc->abort_status = status;
        __atomic_store_n(&hc->abort_by, by, __ATOMIC_RELEASE);
    }
    /* PEs whose heaps are not mapped here, without a launcher's segment
     * (the TCP rendezvous, other hosts): the bootstrap tells them. */
    if (sym_rt.boot && sym_rt.boot->ops->raise_abort)
        sym_rt.boot->ops->raise_abort(sym_rt.boot, status);
    exit(status);
}
