/*
 * runtime.c - the runtime's life cycle: settings, joining the job, this
 * PE's memory, meeting the peers, the transports, and all of it released
 * in reverse order.  sym_init and sym_finalize (src/api/init.c) call these
 * steps in order and run the other layers' between them.
 */
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/health.h"
#include "bootstrap/bootstrap.h"
#include "core/cma.h"
#include "core/globals.h"
#include "core/heap_size.h"
#include "core/internal.h"
#include "core/memory.h"

static int cores_available(void)
{
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0)
        return CPU_COUNT(&set);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
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

/* A lost PE as the bootstrap knows it, else a PE that runs but that a
 * transport could not reach on its first use (the transports' word). */
static int boot_lost_pe(void *arg, char *how, size_t len)
{
    struct sym_boot *boot = arg;
    int pe = boot->ops->lost_pe ? boot->ops->lost_pe(boot, how, len) : -1;
    return pe >= 0 ? pe : sym_transports_unreachable(how, len);
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
    if (sym_rt.boot) {
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

void sym_core_set_state(int state)
{
    if (sym_rt.base)
        __atomic_store_n(&((struct sym_heap_ctrl *)sym_rt.base)->state, (uint32_t)state,
                         __ATOMIC_RELEASE);
    if (sym_rt.boot)
        sym_rt.boot->ops->set_state(sym_rt.boot, state);
}

/* Each class's own settings, loaded next to the job's. */
static sym_status_t load_transport_settings(void)
{
    for (size_t k = 0; k < sym_transport_nclasses; k++) {
        const struct sym_cfg_table *t = sym_transport_classes[k]->settings;
        if (!t)
            continue;
        if (!(sym_rt.tp_settings[k] = calloc(1, t->size)))
            return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the %s settings",
                             t->name);
        sym_status_t st = sym_config_load_table(t, sym_rt.tp_settings[k]);
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

/* SYMHEAP_TRANSPORT: auto, or the name of a class of this build, which
 * becomes its index here, once. */
static sym_status_t transport_choice(void)
{
    sym_rt.transport_only = -1;
    if (sym_rt.cfg.transport.v == SYM_CFG_TRANSPORT_AUTO)
        return SYM_OK;
    for (size_t k = 0; k < sym_transport_nclasses; k++)
        if (!strcmp(sym_transport_classes[k]->name, sym_rt.cfg.transport.s)) {
            sym_rt.transport_only = (int)k;
            return SYM_OK;
        }
    return sym_error(SYM_ERR_UNAVAILABLE,
                     "sym_init: SYMHEAP_TRANSPORT=%s, but this symheap has no %s transport (not "
                     "built in)",
                     sym_rt.cfg.transport.s, sym_rt.cfg.transport.s);
}

sym_status_t sym_core_configure(int thread_level)
{
    sym_rt.thread_level = thread_level;
    sym_status_t st = sym_config_load(&sym_rt.cfg);
    sym_log_set_debug(sym_rt.cfg.debug);
    if (st == SYM_OK)
        st = load_transport_settings();
    if (st != SYM_OK)
        return st;
    tune_waits();
    if ((st = transport_choice()) != SYM_OK)
        return st;
    /* Globals first: their copy must not race with the bootstrap's threads. */
    sym_globals_probe(sym_rt.cfg.globals.v, sym_rt.cfg.heap_prealloc);
    sym_globals_prepare();
    return SYM_OK;
}

void sym_core_join(struct sym_boot *boot)
{
    sym_rt.boot = boot;
    sym_rt.me = boot->rank;
    sym_rt.npes = boot->size;
    sym_rt.job = boot->job;
    sym_log_set_pe(sym_rt.me);
    show_health();
}

/* Offsets of global variables mean the same on every PE only if every PE
 * runs the same executable. */
static sym_status_t same_executable(const struct sym_pe_card *cards)
{
    const struct sym_pe_card *mine = &cards[sym_rt.me];
    for (int pe = 0; pe < sym_rt.npes; pe++)
        if (cards[pe].globals_len != mine->globals_len ||
            cards[pe].globals_link != mine->globals_link)
            return sym_error(SYM_ERR_BOOTSTRAP,
                             "sym_init: PE %d's global and static variables (%llu bytes linked at "
                             "0x%llx) differ from PE %d's (%llu bytes at 0x%llx): every PE must "
                             "run the same executable with the same SYMHEAP_GLOBALS",
                             pe, (unsigned long long)cards[pe].globals_len,
                             (unsigned long long)cards[pe].globals_link, sym_rt.me,
                             (unsigned long long)mine->globals_len,
                             (unsigned long long)mine->globals_link);
    return SYM_OK;
}

/* Lay out and create this PE's heap and its control block, which peers
 * check before use.  With SYMHEAP_HEAP_PREALLOC the memory of what precedes
 * the user heap (control block, sync area, mailboxes, staging area) is
 * reserved now, the user heap's as sym_malloc hands it out (heap.c). */
static sym_status_t open_memory(size_t heap_size)
{
    const struct sym_config *c = &sym_rt.cfg;
    if (sym_heap_layout_compute(heap_size, c->mailbox_size, c->staging_size, c->team_region_size,
                                &sym_rt.layout) != 0)
        return sym_error(SYM_ERR_CONFIG, "sym_init: SYMHEAP_HEAP_SIZE=%zu is too large", heap_size);
    sym_rt.heap_total = sym_rt.layout.total;
    sym_status_t st =
        sym_memory_open(sym_rt.me, sym_rt.heap_total, c->heap_prealloc ? sym_rt.layout.user_off : 0,
                        &sym_rt.memory);
    if (st != SYM_OK)
        return st;
    sym_rt.base = sym_rt.memory.heap;
    struct sym_heap_ctrl *hc = (void *)sym_rt.base;
    hc->magic = SYM_HEAP_MAGIC;
    hc->layout_version = SYM_HEAP_LAYOUT_VERSION;
    hc->pe = sym_rt.me;
    hc->npes = sym_rt.npes;
    hc->pid = (int32_t)getpid();
    hc->heap_total = sym_rt.heap_total;
    hc->user_off = sym_rt.layout.user_off;
    hc->user_size = sym_rt.layout.user_size;
    memcpy(hc->job_key, sym_rt.boot->key, sizeof(sym_rt.boot->key));
    sym_core_set_state(SYM_PE_STARTING);
    return SYM_OK;
}

/* This PE's memory, then what each transport sets up before the peers
 * meet (shm listens on its socket), so that a peer already waiting for the
 * cards below finds it. */
static sym_status_t make_heap(size_t heap_size)
{
    sym_status_t st = open_memory(heap_size);
    return st == SYM_OK ? sym_transports_prepare() : st;
}

/* One exchange of cards: every PE's pid and host (which PEs share this
 * host), the settings its heap's layout follows and its global variables,
 * checked and turned into a heap size alike on every PE.  A heap size that
 * is set needs no agreement: the heap is made before the cards meet,
 * without waiting for the slowest PE to start. */
static sym_status_t meet_peers(size_t *heap_size_p, int *nlocal_p)
{
    struct sym_boot *boot = sym_rt.boot;
    struct sym_pe_card *cards = calloc((size_t)sym_rt.npes, sizeof(*cards));
    if (!cards)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", sym_rt.npes);
    struct sym_pe_card mine;
    sym_pe_card_make(&sym_rt.cfg, &mine);
    struct sym_globals_view g;
    sym_globals_describe(&g);
    mine.globals_len = g.len;
    mine.globals_link = g.link_addr;
    sym_cma_prepare(&mine.cma);
    sym_status_t st = SYM_OK;
    if (sym_rt.cfg.set.heap_size)
        st = make_heap(sym_rt.cfg.heap_size);
    if (st == SYM_OK)
        st = boot->ops->allgather(boot, &mine, sizeof(mine), cards);
    if (st == SYM_OK)
        st = sym_heap_size_choose(sym_rt.me, sym_rt.npes, cards, &sym_rt.cfg, heap_size_p);
    int nlocal = 0;
    for (int pe = 0; st == SYM_OK && pe < sym_rt.npes; pe++) {
        sym_rt.peer_pid[pe] = cards[pe].pid;
        sym_rt.peer_local[pe] = !memcmp(cards[pe].host, mine.host, sizeof(mine.host));
        nlocal += sym_rt.peer_local[pe];
    }
    if (st == SYM_OK)
        st = same_executable(cards);
    /* every peer drew its probe word before the exchange above */
    if (st == SYM_OK)
        sym_cma_probe(cards);
    free(cards);
    *nlocal_p = nlocal;
    return st;
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

sym_status_t sym_core_open(struct sym_deadline *init, struct sym_steps *steps)
{
    struct sym_boot *boot = sym_rt.boot;
    const size_t n = (size_t)sym_rt.npes;
    sym_rt.peer_base = calloc(n, sizeof(*sym_rt.peer_base));
    sym_rt.peer_tp = calloc(n, sizeof(*sym_rt.peer_tp));
    sym_rt.peer_pid = calloc(n, sizeof(*sym_rt.peer_pid));
    sym_rt.peer_local = calloc(n, sizeof(*sym_rt.peer_local));
    if (!sym_rt.peer_base || !sym_rt.peer_tp || !sym_rt.peer_pid || !sym_rt.peer_local)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", sym_rt.npes);
    show_health();
    /* Under a launcher of this host every PE is local: then the first
     * exchange already knows whether PEs outnumber cores. */
    sym_rt.oversubscribed = sym_rt.job && sym_rt.npes > cores_available();
    tune_waits();
    size_t heap_size = 0;
    int nlocal = 0;
    sym_status_t st = meet_peers(&heap_size, &nlocal);
    if (st != SYM_OK)
        return st;
    sym_steps_done(steps, "cards");
    /* From here on init's own waits know whether PEs outnumber cores. */
    sym_rt.oversubscribed = nlocal > cores_available();
    tune_waits();
    if (!sym_rt.base && (st = make_heap(heap_size)) != SYM_OK)
        return st;
    sym_cma_publish();
    sym_steps_done(steps, "heap");
    st = sym_transports_open(boot, sym_rt.peer_local, init);
    /* The transports have the descriptors now: only those still needed
     * stay open (peers that reopen them, reservations of the heap). */
    const bool keep = st == SYM_OK && sym_transports_keep_fds();
    sym_memory_seal(&sym_rt.memory, keep || sym_rt.cfg.heap_prealloc, keep);
    sym_steps_done(steps, "transports");
    /* Every PE has its transports connected before any returns: a PE that
     * returns and exits at once must not fail a peer still connecting. */
    if (st == SYM_OK)
        st = boot->ops->barrier(boot, "sym_init");
    if (st != SYM_OK)
        return st;
    sym_steps_done(steps, "barrier");
    if (sym_alloc_init(&sym_rt.alloc, sym_rt.layout.user_off, sym_rt.layout.user_size) != 0)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the allocator");
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

void sym_core_ready(void)
{
    sym_core_set_state(SYM_PE_RUNNING);
    sym_rt.initialized = true;
    sym_finalized = false;
}

void sym_core_leave(void)
{
    sym_rt.initialized = false;
}

sym_status_t sym_core_drain(const char *op)
{
    if (!sym_transports_need_progress())
        return SYM_OK;
    sym_status_t st = sym_quiet_internal();
    if (st == SYM_OK)
        st = sym_rt.boot->ops->barrier(sym_rt.boot, op);
    return st;
}

void sym_core_close(bool finalized)
{
    sym_transports_close();
    sym_memory_close(&sym_rt.memory);
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
    for (size_t k = 0; k < SYM_TRANSPORTS_MAX; k++)
        free(sym_rt.tp_settings[k]);
    struct sym_config cfg = sym_rt.cfg; /* keep debug logging for late messages */
    memset(&sym_rt, 0, sizeof(sym_rt));
    sym_rt.cfg = cfg;
    sym_rt.me = -1;
    sym_rt.npes = -1;
    sym_log_set_pe(-1);
    show_health();
    tune_waits();
    if (finalized)
        sym_finalized = true;
}
