/* init.c - sym_init / sym_finalize: bringing every layer up and down in
 * order, handing each what it needs.  The runtime state is core's
 * (src/core/runtime.c runs its steps); coll's teams, requests and checks
 * start after it and stop before it. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "base/fault.h"
#include "base/health.h"
#include "base/secret.h"
#include "bootstrap/bootstrap.h"
#include "core/internal.h"
#include "coll/coll_serial.h"
#include "coll/finalize_check.h"
#include "coll/request.h"
#include "coll/team.h"

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

/* Everything, the layers above core first; `finalized`: sym_finalize's end. */
static void release_all(bool finalized)
{
    sym_fault_disarm();
    sym_requests_fini();
    sym_team_locks_fini();
    sym_teams_fini();
    sym_core_close(finalized);
}

/* Meeting the peers and loading libfabric can take seconds on a loaded
 * host: a short operation timeout must not fail them, so init waits up to
 * SYMHEAP_INIT_TIMEOUT (0: SYMHEAP_TIMEOUT). */
static double init_timeout(const struct sym_config *c)
{
    return c->init_timeout ? (double)c->init_timeout : c->timeout;
}

static const char *init_timeout_name(const struct sym_config *c)
{
    return c->init_timeout ? "SYMHEAP_INIT_TIMEOUT" : "SYMHEAP_TIMEOUT";
}

/* What the bootstrap takes from the configuration: the init timeout, which
 * it keeps for its own later exchanges. */
static void boot_settings(const struct sym_config *c, struct sym_boot_settings *b)
{
    *b = (struct sym_boot_settings){
        .timeout = init_timeout(c),
        .timeout_name = init_timeout_name(c),
        .mode = c->bootstrap.v,
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
    snprintf(b->root_addr, sizeof(b->root_addr), "%s", c->root_addr.s);
    snprintf(b->job_secret, sizeof(b->job_secret), "%s", c->job_secret.s);
    snprintf(b->job_secret_file, sizeof(b->job_secret_file), "%s", c->job_secret_file.s);
}

/* The level sym_init_thread asks for, in force while init_steps runs: the
 * transports choose their locking from it. */
static int requested_level = SYM_THREAD_SINGLE;

static sym_status_t init_steps(int level)
{
    struct sym_steps steps;
    sym_steps_start(&steps);
    sym_status_t st = sym_core_configure(level);
    if (st != SYM_OK)
        return st;
    const struct sym_config *cfg = sym_core_config();
    /* Every wait of init below the bootstrap (the transports' own) shares
     * one deadline, which starts now. */
    struct sym_deadline init =
        sym_deadline_named("sym_init", init_timeout(cfg), init_timeout_name(cfg));
    sym_deadline_anchor(&init);
    struct sym_boot_settings boot_set;
    boot_settings(cfg, &boot_set);
    struct sym_boot *boot = NULL;
    st = sym_boot_open(&boot_set, &boot);
    sym_secret_wipe(&boot_set, sizeof(boot_set));
    if (st != SYM_OK)
        return st;
    sym_core_join(boot);
    /* once per job: every PE normally has the same environment */
    if (sym_core_me() == 0 && !sym_config_quiet())
        sym_config_warn_unknown(
            stderr, (struct sym_cfg_others){sym_transport_settings, sym_transport_nsettings});
    if ((st = sym_fault_arm(&cfg->fault, sym_core_me(), sym_core_npes(), cfg->timeout)) != SYM_OK)
        return st;
    boot->ops->set_state(boot, SYM_PE_STARTING);
    sym_steps_done(&steps, "bootstrap");
    if ((st = sym_core_open(&init, &steps)) != SYM_OK)
        return st;
    if ((st = sym_teams_init()) != SYM_OK)
        return st;
    sym_steps_done(&steps, "teams");
    sym_steps_log(&steps, "sym_init");
    return SYM_OK;
}

/* A failed sym_init is told on stderr, once per call, whatever the program
 * does with the status (SYMHEAP_QUIET=1: not), so a program that ignores
 * it still says why it failed. */
static void tell_init_failure(sym_status_t st)
{
    if (sym_config_quiet())
        return;
    char who[32] = "";
    if (sym_core_me() >= 0)
        snprintf(who, sizeof(who), "PE %d: ", sym_core_me());
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
    if (sym_core_initialized())
        return sym_error(SYM_ERR_ALREADY_INITIALIZED, "sym_init: already initialized (PE %d)",
                         sym_core_me());
    register_wait_hooks();
    sym_status_t st = init_steps(level);
    if (st != SYM_OK) {
        tell_init_failure(st);
        release_all(false);
        return st;
    }
    sym_core_ready();
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
    if (provided_p)
        *provided_p = requested;
    return SYM_OK;
}

SYM_API sym_status_t sym_finalize(void)
{
    sym_status_t st = sym_core_check_init("sym_finalize");
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
    if (st == SYM_OK)
        st = sym_core_drain("sym_finalize");
    /* Only a finalize that succeeded is an orderly end: after a failed one
     * the PE stays RUNNING in its peers' eyes, so its exit is a loss they
     * learn of at once, not a departure they wait out. */
    if (st == SYM_OK)
        sym_core_set_state(SYM_PE_FINALIZED);
    sym_core_leave();
    release_all(true);
    return st;
}
