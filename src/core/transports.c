/*
 * transports.c - the choice, per peer, of the first transport class that
 * can reach it (sym_transport_classes, in their order).
 *
 * SYMHEAP_TRANSPORT=<name> restricts the list to that class (forcing ofi
 * on one host is how the ofi path is tested); this PE itself is reached by
 * the first class that can reach it either way, since its own memory needs
 * no network.  Every PE decides alike, from the host identities all of
 * them exchanged, so every PE joins the collective creation of the same
 * classes.
 *
 * Nothing here names a transport or branches on which one it is: what the
 * layers above do differently (inline copies, where atomics go, whom the
 * wait loop drives, whether a waiter may sleep at once) follows from the
 * capability flags, and every transport gets the same memory
 * (struct sym_memory) and its own settings.
 */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "core/internal.h"

/* The config's serve hook: the wait loop drives tp from now on, and
 * sym_transports_close releases it. */
static void serve(struct sym_transport *tp)
{
    for (int i = 0; i < sym_rt.ntp; i++)
        if (sym_rt.tp[i] == tp)
            return;
    sym_rt.tp[sym_rt.ntp++] = tp;
    if (tp->caps & SYM_TP_CAP_NEEDS_PROGRESS)
        sym_rt.progress_tp[sym_rt.nprogress++] = tp;
    if (!sym_rt.sleep_tp && tp->ops->sleep)
        sym_rt.sleep_tp = tp;
}

/* SYMHEAP_TRANSPORT: auto (every class), or the one class it names. */
static bool class_allowed(size_t k)
{
    return sym_rt.transport_only < 0 || (size_t)sym_rt.transport_only == k;
}

static sym_status_t unreachable(int pe)
{
    bool other_class = false;
    for (size_t k = 0; k < sym_transport_nclasses; k++)
        other_class |= !class_allowed(k);
    if (other_class)
        return sym_error(SYM_ERR_UNAVAILABLE,
                         "sym_init: PE %d runs on another host, which SYMHEAP_TRANSPORT=%s "
                         "cannot reach",
                         pe, sym_rt.cfg.transport.s);
    return sym_error(SYM_ERR_UNAVAILABLE,
                     "sym_init: PE %d runs on another host and this symheap has no "
                     "transport between hosts (built without libfabric)",
                     pe);
}

/* What every class gets at creation but the peers' facts (reach,
 * same_host, peer_pid: NULL until the peers met). */
static struct sym_transport_config job_config(void)
{
    return (struct sym_transport_config){
        .me = sym_rt.me,
        .npes = sym_rt.npes,
        .boot = sym_rt.boot,
        .memory = &sym_rt.memory,
        .thread_level = sym_rt.thread_level,
        .wait_yield_us = sym_rt.cfg.wait_yield_us,
        .serve = serve,
    };
}

sym_status_t sym_transports_prepare(void)
{
    struct sym_transport_config cfg = job_config();
    for (size_t k = 0; k < sym_transport_nclasses; k++) {
        const struct sym_transport_class *c = sym_transport_classes[k];
        cfg.settings = sym_rt.tp_settings[k];
        sym_status_t st = c->prepare ? c->prepare(&cfg, &sym_rt.prepared[k]) : SYM_OK;
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

/* Create class k's instance for the peers in reach (collective), from the
 * one its prepare step made if any. */
static sym_status_t create(size_t k, struct sym_transport_config *cfg, struct sym_transport **tp_p)
{
    const struct sym_transport_class *c = sym_transport_classes[k];
    cfg->settings = sym_rt.tp_settings[k];
    *tp_p = sym_rt.prepared[k];
    sym_rt.prepared[k] = NULL;
    sym_status_t st = c->create(cfg, tp_p);
    if (*tp_p && st == SYM_OK && !sym_transport_ops_fit((*tp_p)->ops))
        st = sym_error(SYM_ERR_SYSTEM, "sym_init: the %s transport's ops table is too small",
                       c->name);
    if (*tp_p)
        serve(*tp_p);
    return st;
}

/* Whether a waiter may sleep at once: one transport that wakes a sleeper
 * reaches every peer.  Over libfabric with a wait fd, a peer's operation
 * itself wakes a sleeping waiter (and must be served by it), so yielding
 * first would only keep the waiter runnable, taking the CPU from the PEs
 * it waits for.  Not when some peer is mapped: its stores wake nobody. */
static bool sleeps_at_once(void)
{
    for (int i = 0; i < sym_rt.ntp; i++) {
        struct sym_transport *tp = sym_rt.tp[i];
        if (!(tp->caps & SYM_TP_CAP_WAKES))
            continue;
        bool all = true;
        for (int pe = 0; pe < sym_rt.npes && all; pe++)
            all = pe == sym_rt.me || sym_rt.peer_tp[pe] == tp;
        if (all)
            return true;
    }
    return false;
}

/* Mark in reach[] the peers class c takes: those no earlier class reached
 * that it can reach, if SYMHEAP_TRANSPORT allows it, and this PE itself if
 * nothing reaches it yet.  Returns how many. */
static int mark_reach(size_t k, const struct sym_transport_config *cfg, bool *reach)
{
    const struct sym_transport_class *c = sym_transport_classes[k];
    const bool allowed = class_allowed(k);
    int n = 0;
    for (int pe = 0; pe < sym_rt.npes; pe++) {
        reach[pe] = !sym_rt.peer_tp[pe] && (allowed || pe == sym_rt.me) && c->can_reach(cfg, pe);
        n += reach[pe];
    }
    return n;
}

sym_status_t sym_transports_open(struct sym_boot *boot, const bool *same_host,
                                 struct sym_deadline *dl)
{
    const int npes = sym_rt.npes;
    bool *reach = calloc((size_t)npes, sizeof(*reach));
    if (!reach)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", npes);
    struct sym_transport_config cfg = job_config();
    cfg.boot = boot;
    cfg.same_host = same_host;
    cfg.peer_pid = sym_rt.peer_pid;
    cfg.reach = reach;
    cfg.deadline = dl;
    sym_rt.direct_end = UINT64_MAX;
    sym_status_t st = SYM_OK;
    for (size_t k = 0; k < sym_transport_nclasses && st == SYM_OK; k++) {
        const struct sym_transport_class *c = sym_transport_classes[k];
        int n = mark_reach(k, &cfg, reach);
        if (n == 0) {
            if (sym_rt.prepared[k])
                sym_rt.prepared[k]->ops->fini(sym_rt.prepared[k]);
            sym_rt.prepared[k] = NULL;
            continue;
        }
        struct sym_transport *tp = NULL;
        if ((st = create(k, &cfg, &tp)) != SYM_OK)
            break;
        for (int pe = 0; pe < npes; pe++)
            if (reach[pe])
                sym_rt.peer_tp[pe] = tp;
        if (tp->caps & SYM_TP_CAP_DIRECT) { /* the inline path */
            /* Peers' pointers are asked for on their first use (sym_direct):
             * a transport may map a peer only then. */
            if (reach[sym_rt.me])
                sym_rt.peer_base[sym_rt.me] = tp->ops->ptr(tp, sym_rt.me, 0);
            if (tp->direct_end < sym_rt.direct_end)
                sym_rt.direct_end = tp->direct_end;
        }
        sym_debug("%s transport for %d PE(s)%s", c->name, n,
                  class_allowed(k) ? "" : " (this one: SYMHEAP_TRANSPORT leaves it out)");
    }
    free(reach);
    for (int pe = 0; st == SYM_OK && pe < npes; pe++)
        if (!sym_rt.peer_tp[pe])
            st = unreachable(pe);
    if (st != SYM_OK)
        return st;
    /* Once any word may be updated by a provider's atomic, every atomic goes
     * through that provider, local ones included: CPU and NIC atomics on one
     * word are not atomic with respect to each other (fi_atomic(3)), and a
     * lock's ticket counter is bumped from both hosts.  The same on every
     * PE: all of them have such a transport, or none. */
    for (int i = 0; i < sym_rt.ntp && !sym_rt.amo_tp; i++)
        if (!(sym_rt.tp[i]->caps & SYM_TP_CAP_CPU_ATOMICS))
            sym_rt.amo_tp = sym_rt.tp[i];
    if (sym_rt.amo_tp)
        sym_debug("atomics and adding signals to every PE, this one included, go through the "
                  "%s transport",
                  sym_rt.amo_tp->ops->name);
    sym_rt.wait_sleeps_at_once = sleeps_at_once();
    return SYM_OK;
}

void sym_transports_close(void)
{
    /* Newest first: one may have registered memory an older one maps. */
    for (int i = sym_rt.ntp - 1; i >= 0; i--)
        sym_rt.tp[i]->ops->fini(sym_rt.tp[i]);
    sym_rt.ntp = 0;
    for (size_t k = 0; k < SYM_TRANSPORTS_MAX; k++)
        if (sym_rt.prepared[k])
            sym_rt.prepared[k]->ops->fini(sym_rt.prepared[k]);
    memset(sym_rt.prepared, 0, sizeof(sym_rt.prepared));
}

void *sym_direct_slow(int pe, uint64_t off)
{
    struct sym_transport *tp = sym_rt.peer_tp[pe];
    if (!tp || !(tp->caps & SYM_TP_CAP_DIRECT))
        return NULL;
    uint8_t *b = tp->ops->ptr(tp, pe, 0);
    if (!b)
        return NULL;
    __atomic_store_n(&sym_rt.peer_base[pe], b, __ATOMIC_RELEASE);
    return off < sym_rt.direct_end ? b + off : NULL;
}

bool sym_pe_direct(int pe)
{
    const struct sym_transport *tp = sym_rt.peer_tp ? sym_rt.peer_tp[pe] : NULL;
    return tp && (tp->caps & SYM_TP_CAP_DIRECT);
}

bool sym_pe_stand_in(int pe)
{
    struct sym_transport *tp = sym_rt.peer_tp ? sym_rt.peer_tp[pe] : NULL;
    return tp && tp->ops->stand_in && tp->ops->stand_in(tp, pe);
}

bool sym_transports_keep_fds(void)
{
    for (int i = 0; i < sym_rt.ntp; i++)
        if (sym_rt.tp[i]->caps & SYM_TP_CAP_KEEPS_FDS)
            return true;
    return false;
}

int sym_transports_unreachable(char *how, size_t len)
{
    for (int i = 0; i < sym_rt.ntp; i++) {
        struct sym_transport *tp = sym_rt.tp[i];
        int pe = tp->ops->unreachable ? tp->ops->unreachable(tp, how, len) : -1;
        if (pe >= 0)
            return pe;
    }
    return -1;
}

sym_status_t sym_sym_offset_slow(const char *op, const char *argname, const void *addr,
                                 size_t nbytes, int pe, uint64_t *off_p)
{
    const struct sym_region *g = &sym_rt.memory.data;
    uintptr_t a = (uintptr_t)addr, lo = (uintptr_t)g->addr;
    if (sym_rt.initialized && g->len && a >= lo && a - lo < g->len && nbytes <= g->len - (a - lo)) {
        *off_p = g->off + (a - lo);
        return SYM_OK;
    }
    return sym_check_range_slow(op, argname, addr, nbytes, pe);
}
