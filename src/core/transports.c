/*
 * transports.c - the ordered list of transport classes and the choice, per
 * peer, of the first one that can reach it.
 *
 * shm comes first: it owns this PE's heap mapping and the global variables
 * and reaches the peers on this host with loads and stores; ofi takes
 * whoever is left.  SYMHEAP_TRANSPORT=shm or =ofi restricts the list to one
 * class (forcing ofi on one host is how the ofi path is tested); the heap's
 * owner is connected either way, reaching at least this PE itself.  Every
 * PE decides alike, from the host identities all of them exchanged, so
 * every PE joins the collective creation of the same classes.
 *
 * Nothing here branches on a transport's name: what the layers above do
 * differently (inline copies, where atomics go, whom the wait loop drives,
 * whether a waiter may sleep at once) follows from the capability flags.
 */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "core/internal.h"
#include "shm/shm.h"
#ifdef SYM_HAVE_OFI
#include "ofi/ofi.h"
#endif

static const struct sym_transport_class *const classes[] = {
    &shm_transport_class,
#ifdef SYM_HAVE_OFI
    &ofi_transport_class,
#endif
};
#define NCLASSES (sizeof(classes) / sizeof(classes[0]))
_Static_assert(NCLASSES <= SYM_TRANSPORTS_MAX, "raise SYM_TRANSPORTS_MAX");

/* The heap's owner, made before the peers meet (sym_transports_heap_open). */
static struct sym_transport *heap_tp;

void sym_transports_prepare(void)
{
    shm_globals_probe(sym_rt.cfg.globals.s, sym_rt.cfg.heap_prealloc);
    shm_globals_prepare();
}

sym_status_t sym_transports_heap_open(void)
{
    struct sym_region g;
    shm_globals_region(&g);
    sym_status_t st = shm_transport_create(sym_rt.me, sym_rt.npes, sym_rt.heap_total, g.len,
                                           sym_rt.cfg.heap_prealloc ? sym_rt.layout.user_off : 0,
                                           &heap_tp, &sym_rt.base);
    if (st == SYM_OK && !sym_transport_ops_fit(heap_tp->ops)) {
        heap_tp->ops->fini(heap_tp);
        heap_tp = NULL;
        return sym_error(SYM_ERR_SYSTEM, "sym_init: the shm transport's ops table is too small");
    }
    return st;
}

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

static bool class_allowed(const struct sym_transport_class *c)
{
    const char *want = sym_rt.cfg.transport.s;
    return strcmp(want, "auto") == 0 || strcmp(want, c->name) == 0;
}

static sym_status_t unreachable(int pe)
{
    bool other_class = false;
    for (size_t k = 0; k < NCLASSES; k++)
        other_class |= !class_allowed(classes[k]);
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

/* Create class c's instance for the peers in reach (collective). */
static sym_status_t create(const struct sym_transport_class *c, struct sym_transport_config *cfg,
                           struct sym_transport **tp_p)
{
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

sym_status_t sym_transports_open(struct sym_boot *boot, const bool *same_host,
                                 struct sym_deadline *dl)
{
    const int npes = sym_rt.npes;
    bool *reach = calloc((size_t)npes, sizeof(*reach));
    if (!reach)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", npes);
    struct sym_transport_config cfg = {
        .me = sym_rt.me,
        .npes = npes,
        .boot = boot,
        .same_host = same_host,
        .peer_pid = sym_rt.peer_pid,
        .reach = reach,
        .heap = sym_rt.base,
        .heap_len = sym_rt.heap_total,
        .thread_level = sym_rt.thread_level,
        .heap_prealloc = sym_rt.cfg.heap_prealloc,
        .globals_mode = sym_rt.cfg.globals.s,
        .shm_map = sym_rt.cfg.shm_map.s,
        .ofi_provider = sym_rt.cfg.ofi_provider.s,
        .ofi_mr_force = sym_rt.cfg.ofi_mr_force.s,
        .ofi_ignore_order = sym_rt.cfg.ofi_ignore_order,
        .ofi_eager_connect = sym_rt.cfg.ofi_eager_connect,
        .ofi_eagain_every = sym_rt.cfg.ofi_eagain_every,
        .wait_yield_us = sym_rt.cfg.wait_yield_us,
        .wait_poll_us = sym_rt.cfg.wait_poll_us,
        .deadline = dl,
        .serve = serve,
    };
    sym_status_t st = SYM_OK;
    for (size_t k = 0; k < NCLASSES && st == SYM_OK; k++) {
        const struct sym_transport_class *c = classes[k];
        const bool allowed = class_allowed(c);
        const bool owns_heap = c == &shm_transport_class;
        bool any = false;
        for (int pe = 0; pe < npes; pe++) {
            reach[pe] = allowed && !sym_rt.peer_tp[pe] && c->can_reach(&cfg, pe);
            any |= reach[pe];
        }
        if (!owns_heap && !any)
            continue;
        if (owns_heap) /* connected always: this PE's own memory, the globals */
            reach[sym_rt.me] = true;
        struct sym_transport *tp = owns_heap ? heap_tp : NULL;
        if ((st = create(c, &cfg, &tp)) != SYM_OK)
            break;
        for (int pe = 0; allowed && pe < npes; pe++)
            if (reach[pe])
                sym_rt.peer_tp[pe] = tp;
        if (owns_heap) { /* the direct path and the second region */
            /* Peers' mappings are taken on their first use (sym_direct). */
            sym_rt.peer_base[sym_rt.me] = tp->ops->ptr(tp, sym_rt.me, 0);
            sym_rt.direct_end = tp->direct_end;
            shm_globals_region(&sym_rt.globals);
            cfg.data = sym_rt.globals;
        }
        if (c != &shm_transport_class)
            sym_debug("%s transport for %s", c->name,
                      allowed && strcmp(sym_rt.cfg.transport.s, "auto") != 0
                          ? "every peer (SYMHEAP_TRANSPORT)"
                          : "peers no earlier transport reaches");
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
    /* Newest first: a transport that registered the heap is released before
     * the heap's owner unmaps it. */
    for (int i = sym_rt.ntp - 1; i >= 0; i--)
        if (sym_rt.tp[i] != heap_tp)
            sym_rt.tp[i]->ops->fini(sym_rt.tp[i]);
    shm_globals_fini();
    if (heap_tp)
        heap_tp->ops->fini(heap_tp);
    heap_tp = NULL;
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
    const struct sym_transport *tp = sym_rt.peer_tp[pe];
    return tp && (tp->caps & SYM_TP_CAP_DIRECT);
}

sym_status_t sym_transports_heap_reserve(uint64_t off, uint64_t len)
{
    return shm_heap_reserve(heap_tp, off, len);
}

bool sym_pe_stand_in(int pe)
{
    return heap_tp && sym_rt.peer_tp[pe] == heap_tp && shm_transport_stand_in(heap_tp, pe);
}

int sym_transports_unreachable(char *how, size_t len)
{
    return heap_tp ? shm_transport_unreachable(heap_tp, how, len) : -1;
}

struct sym_transport *sym_transport_named(const char *name)
{
    for (int i = 0; i < sym_rt.ntp; i++)
        if (strcmp(sym_rt.tp[i]->ops->name, name) == 0)
            return sym_rt.tp[i];
    return NULL;
}

sym_status_t sym_sym_offset_slow(const char *op, const char *argname, const void *addr,
                                 size_t nbytes, int pe, uint64_t *off_p)
{
    const struct sym_region *g = &sym_rt.globals;
    uintptr_t a = (uintptr_t)addr, lo = (uintptr_t)g->addr;
    if (sym_rt.initialized && g->len && a >= lo && a - lo < g->len && nbytes <= g->len - (a - lo)) {
        *off_p = g->off + (a - lo);
        return SYM_OK;
    }
    return sym_check_range_slow(op, argname, addr, nbytes, pe);
}
