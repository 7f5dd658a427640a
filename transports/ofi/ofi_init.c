/* ofi_init.c - opening the provider and the transport's life cycle. */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "ofi_private.h"

const char *ofi_transport_provider(const struct sym_transport *tp)
{
    return ((const struct ofi_transport *)tp)->prov_name;
}

static void ofi_release(struct ofi_transport *t)
{
    if (t->heap_mr)
        fi_close(&t->heap_mr->fid);
    if (t->bounce_mr)
        fi_close(&t->bounce_mr->fid);
    if (t->data_mr)
        fi_close(&t->data_mr->fid);
    if (t->locked)
        pthread_mutex_destroy(&t->lock);
    if (t->ep)
        fi_close(&t->ep->fid);
    if (t->av)
        fi_close(&t->av->fid);
    if (t->cq)
        fi_close(&t->cq->fid);
    if (t->cntr)
        fi_close(&t->cntr->fid);
    if (t->rcntr)
        fi_close(&t->rcntr->fid);
    if (t->domain)
        fi_close(&t->domain->fid);
    if (t->fabric)
        fi_close(&t->fabric->fid);
    if (t->info)
        fi_freeinfo(t->info);
    free(t->bounce);
    free(t->addr);
    free(t->rkey);
    free(t->rbase);
    free(t->dkey);
    free(t->dbase);
    free(t->dirty);
    free(t->dirty_list);
    free(t->last_kind);
    free(t->last_seq);
    free(t->amo_lo);
    free(t->amo_hi);
    free(t->amo_seq);
    free(t);
}

void ofi_fini(struct sym_transport *tp)
{
    struct ofi_transport *t = ofi_of(tp);
    /* Operations into memory that is not ours may still be in flight (see
     * ofi_settle): closing the endpoint would progress them, freeing the
     * buffers would let them land in freed memory.  Left for the exit. */
    if (t->abandoned) {
        sym_debug("ofi: transport abandoned after a failed wait: endpoint and buffers not "
                  "released");
        return;
    }
    ofi_release(t);
}

/* Names of the fitting providers, for the error when the wanted one is not. */
static void list_names(struct fi_info *list, char *buf, size_t len)
{
    size_t used = 0;
    buf[0] = '\0';
    for (struct fi_info *i = list; i && used < len; i = i->next) {
        if (strstr(buf, i->fabric_attr->prov_name))
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "",
                                 i->fabric_attr->prov_name);
    }
    if (!used)
        snprintf(buf, len, "none");
}

/* The chosen provider's entry again, asked with ordering (and, with
 * `events`, FI_RMA_EVENT) in the hints; NULL when it does not offer them. */
static struct fi_info *requery(const struct fi_info *pick, bool events)
{
    struct fi_info *ordered = NULL, *oh = ofi_hints();
    if (!oh)
        return NULL;
    oh->tx_attr->msg_order = FI_ORDER_RAW | FI_ORDER_WAW;
    oh->rx_attr->msg_order = FI_ORDER_RAW | FI_ORDER_WAW;
    if (events)
        oh->caps |= FI_RMA_EVENT;
    /* pick's own names, lent for the query and taken back before
     * fi_freeinfo (which would free them with the hints) */
    oh->fabric_attr->prov_name = pick->fabric_attr->prov_name;
    oh->domain_attr->name = pick->domain_attr->name;
    if (fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, oh, &ordered) != 0)
        ordered = NULL;
    oh->fabric_attr->prov_name = NULL;
    oh->domain_attr->name = NULL;
    fi_freeinfo(oh);
    return ordered;
}

static sym_status_t pick_provider(struct ofi_transport *t, const char *want)
{
    struct fi_info *hints = ofi_hints(), *list = NULL;
    if (!hints)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for libfabric hints");
    int rc = fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list);
    fi_freeinfo(hints);
    if (rc != 0 && rc != -FI_ENODATA)
        return ofi_call_failed(t, "sym_init", -1, "fi_getinfo", rc);
    struct fi_info *pick = ofi_choose(list, want);
    if (!pick) {
        char names[256];
        list_names(list, names, sizeof(names));
        fi_freeinfo(list);
        if (want && *want && strcmp(want, "auto") != 0)
            return sym_error(SYM_ERR_UNAVAILABLE,
                             "sym_init: SYMHEAP_OFI_PROVIDER=%s: libfabric offers no such RDM "
                             "provider with RMA and atomics (found: %s)",
                             want, names);
        return sym_error(SYM_ERR_UNAVAILABLE,
                         "sym_init: no usable libfabric provider with RDM endpoints, RMA and "
                         "atomics (found: %s)",
                         names);
    }
    /* Providers report ordering only when asked for it; asking up front
     * would drop those that lack it, so ask again for the one chosen.
     * FI_RMA_EVENT likewise, where offered: a counter of the operations
     * peers made on this PE tells a sleeping waiter that it served one
     * (ofi_lock.c, sleep_). */
    struct fi_info *ordered = requery(pick, true);
    if (!ordered)
        ordered = requery(pick, false);
    /* A provider may list FI_MR_VIRT_ADDR on one entry and not on another
     * (libfabric 1.17's shm drops it from the entry that answers the
     * ordering query), and honours it when the domain is opened with it.
     * Forcing it where no entry lists it is not a test of anything: tcp;
     * ofi_rxm then broke. */
    const uint64_t offered =
        pick->domain_attr->mr_mode | (ordered ? ordered->domain_attr->mr_mode : 0);
    t->info = fi_dupinfo(ordered ? ordered : pick);
    fi_freeinfo(ordered);
    fi_freeinfo(list);
    if (!t->info)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for libfabric info");
    snprintf(t->prov_name, sizeof(t->prov_name), "%s", t->info->fabric_attr->prov_name);
    if ((t->mr_forced & FI_MR_VIRT_ADDR) && !(offered & FI_MR_VIRT_ADDR))
        return sym_error(SYM_ERR_UNAVAILABLE,
                         "sym_init: SYMHEAP_OFI_MR_FORCE=%s: libfabric provider %s does not "
                         "offer FI_MR_VIRT_ADDR (mr_mode 0x%llx), so virt_addr cannot be forced "
                         "on it (libfabric's shm offers it)",
                         t->mr_force, t->prov_name, (unsigned long long)offered);
    return SYM_OK;
}

static sym_status_t open_objects(struct ofi_transport *t)
{
    struct fi_info *i = t->info;
    int rc;
    if ((rc = fi_fabric(i->fabric_attr, &t->fabric, NULL)) != 0)
        return ofi_call_failed(t, "sym_init", -1, "fi_fabric", rc);
    if ((rc = fi_domain(t->fabric, i, &t->domain, NULL)) != 0)
        return ofi_call_failed(t, "sym_init", -1, "fi_domain", rc);
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = (size_t)t->npes};
    if ((rc = fi_av_open(t->domain, &av_attr, &t->av, NULL)) != 0)
        return ofi_call_failed(t, "sym_init", -1, "fi_av_open", rc);
    /* A file descriptor to sleep on, where the provider has one: a sleeping
     * waiter then wakes when a peer's operation arrives and serves it. */
    struct fi_cq_attr cq_attr = {
        .format = FI_CQ_FORMAT_CONTEXT, .size = 128, .wait_obj = FI_WAIT_FD};
    t->wait_fd = -1;
    if (fi_cq_open(t->domain, &cq_attr, &t->cq, NULL) == 0) {
        if (fi_control(&t->cq->fid, FI_GETWAIT, &t->wait_fd) != 0)
            t->wait_fd = -1;
    } else {
        cq_attr.wait_obj = FI_WAIT_NONE;
        if ((rc = fi_cq_open(t->domain, &cq_attr, &t->cq, NULL)) != 0)
            return ofi_call_failed(t, "sym_init", -1, "fi_cq_open", rc);
    }
    struct fi_cntr_attr cntr_attr = {.events = FI_CNTR_EVENTS_COMP};
    if ((rc = fi_cntr_open(t->domain, &cntr_attr, &t->cntr, NULL)) != 0)
        return ofi_call_failed(t, "sym_init", -1, "fi_cntr_open", rc);
    /* Operations peers made on this PE, counted where the provider can
     * (FI_RMA_EVENT): see ofi_lock.c, sleep_. */
    if (i->caps & FI_RMA_EVENT) {
        struct fi_cntr_attr rattr = {.events = FI_CNTR_EVENTS_COMP};
        if (fi_cntr_open(t->domain, &rattr, &t->rcntr, NULL) != 0)
            t->rcntr = NULL;
    }
    if ((rc = fi_endpoint(t->domain, i, &t->ep, NULL)) != 0)
        return ofi_call_failed(t, "sym_init", -1, "fi_endpoint", rc);
    if (t->rcntr && fi_ep_bind(t->ep, &t->rcntr->fid, FI_REMOTE_WRITE | FI_REMOTE_READ) != 0) {
        fi_close(&t->rcntr->fid);
        t->rcntr = NULL;
    }
    /* Successes are counted, not queued; failures always reach the CQ. */
    if ((rc = fi_ep_bind(t->ep, &t->av->fid, 0)) != 0 ||
        (rc = fi_ep_bind(t->ep, &t->cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION)) !=
            0 ||
        (rc = fi_ep_bind(t->ep, &t->cntr->fid, FI_WRITE | FI_READ)) != 0)
        return ofi_call_failed(t, "sym_init", -1, "fi_ep_bind", rc);
    if ((rc = fi_enable(t->ep)) != 0)
        return ofi_call_failed(t, "sym_init", -1, "fi_enable", rc);
    return SYM_OK;
}

static void read_attributes(struct ofi_transport *t, bool ignore_order)
{
    struct fi_info *i = t->info;
    /* Forced bits go to the provider too (fi_domain reads them): libfabric's
     * shm then chooses keys itself under FI_MR_PROV_KEY. */
    i->domain_attr->mr_mode |= t->mr_forced;
    t->mr_mode = i->domain_attr->mr_mode;
    t->mr_local = (t->mr_mode & FI_MR_LOCAL) != 0 || (i->mode & FI_LOCAL_MR) != 0;
    t->inject_size = i->tx_attr->inject_size;
    t->max_msg = i->ep_attr->max_msg_size ? i->ep_attr->max_msg_size : SIZE_MAX;
    /* Ordering is a property of the path: what the initiator issues in
     * order and the target applies in order (libfabric's shm provider lists
     * it on the receive side only). */
    uint64_t order = i->tx_attr->msg_order | i->rx_attr->msg_order;
    /* The orders cover data only up to max_order_*_size (fi_endpoint(3));
     * flush and put_signal rely on them for writes of any size we issue. */
    const size_t largest = t->max_msg;
    t->waw_ordered = (order & FI_ORDER_WAW) && i->ep_attr->max_order_waw_size >= largest;
    t->raw_ordered = (order & FI_ORDER_RAW) && i->ep_attr->max_order_raw_size >= largest;
    /* SYMHEAP_OFI_IGNORE_ORDER: the paths of unordered providers (fenced
     * signals, waits between kinds) on one that orders, for the tests */
    if (ignore_order)
        t->waw_ordered = t->raw_ordered = false;
    t->has_fence = (i->caps & FI_FENCE) != 0;
    t->inject_ok = t->raw_ordered;
    t->manual_progress = i->domain_attr->data_progress == FI_PROGRESS_MANUAL;
}

sym_status_t ofi_transport_create(const struct sym_transport_config *cfg,
                                  struct sym_transport **tp_p)
{
    struct sym_boot *boot = cfg->boot;
    char why[256];
    if (ofi_dl_load(why, sizeof(why)) != 0)
        return sym_error(SYM_ERR_UNAVAILABLE, "sym_init: the ofi transport needs libfabric: %s",
                         why);
    struct ofi_transport *t = calloc(1, sizeof(*t));
    if (!t)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the ofi transport");
    t->base.ops = &ofi_ops;
    t->base.caps = SYM_TP_CAP_NEEDS_PROGRESS;
    t->me = cfg->me;
    t->npes = cfg->npes;
    const struct sym_memory *m = cfg->memory;
    const struct ofi_settings *set = cfg->settings;
    t->heap = m->heap;
    t->heap_len = m->heap_len;
    /* Offsets from heap_len on are the global variables (struct sym_region). */
    if (m->data.addr && m->data.len && m->data.off == m->heap_len) {
        t->data = m->data.addr;
        t->data_len = m->data.len;
    }
    t->wait_yield_us = cfg->wait_yield_us;
    t->wait_poll_us = set->wait_poll_us;
    t->eager_connect = set->eager_connect;
    t->same_host = cfg->same_host;
    t->mr_force = set->mr_force.s;
    if (cfg->thread_level >= SYM_THREAD_MULTIPLE) {
        pthread_mutexattr_t a;
        pthread_mutexattr_init(&a);
        pthread_mutexattr_settype(&a, PTHREAD_MUTEX_RECURSIVE);
        t->locked = pthread_mutex_init(&t->lock, &a) == 0;
        pthread_mutexattr_destroy(&a);
        if (!t->locked) {
            free(t);
            return sym_error(SYM_ERR_SYSTEM, "sym_init: cannot create the ofi transport's lock");
        }
    }
    size_t n = (size_t)t->npes;
    t->addr = calloc(n, sizeof(*t->addr));
    t->rkey = calloc(n, sizeof(*t->rkey));
    t->rbase = calloc(n, sizeof(*t->rbase));
    t->dkey = calloc(n, sizeof(*t->dkey));
    t->dbase = calloc(n, sizeof(*t->dbase));
    t->dirty = calloc(n, 1);
    t->dirty_list = calloc(n, sizeof(*t->dirty_list));
    t->last_kind = calloc(n, sizeof(*t->last_kind));
    t->last_seq = calloc(n, sizeof(*t->last_seq));
    t->amo_lo = calloc(n, sizeof(*t->amo_lo));
    t->amo_hi = calloc(n, sizeof(*t->amo_hi));
    t->amo_seq = calloc(n, sizeof(*t->amo_seq));
    sym_status_t st = SYM_OK;
    if (!t->addr || !t->rkey || !t->rbase || !t->dkey || !t->dbase || !t->dirty || !t->dirty_list ||
        !t->last_kind || !t->last_seq || !t->amo_lo || !t->amo_hi || !t->amo_seq)
        st = sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d ofi peers", t->npes);
    t->eagain_every = set->eagain_every;
    if (st == SYM_OK)
        st = ofi_mr_force_parse(set->mr_force.s, &t->mr_forced);
    if (st == SYM_OK)
        st = pick_provider(t, set->provider.s);
    if (st == SYM_OK) {
        read_attributes(t, set->ignore_order);
        st = open_objects(t);
    }
    if (st == SYM_OK)
        st = ofi_atomics_check(t->domain, t->prov_name, true, NULL, 0);
    if (st == SYM_OK)
        st = ofi_register(t);
    if (st == SYM_OK)
        st = ofi_exchange(t, boot);
    t->same_host = NULL;
    t->mr_force = NULL;
    if (st != SYM_OK) {
        ofi_release(t);
        return st;
    }
    if (t->wait_fd >= 0)
        t->base.caps |= SYM_TP_CAP_WAKES;
    sym_debug(
        "ofi: provider %s, domain %s, mr_mode 0x%llx (forced 0x%llx), inject %zu B, %s progress, "
        "writes %sordered, reads %sordered after writes, fence %s, wait fd %d, "
        "operations on this PE %scounted",
        t->prov_name, t->info->domain_attr->name, (unsigned long long)t->mr_mode,
        (unsigned long long)t->mr_forced, t->inject_size, t->manual_progress ? "manual" : "auto",
        t->waw_ordered ? "" : "not ", t->raw_ordered ? "" : "not ", t->has_fence ? "yes" : "no",
        t->wait_fd, t->rcntr ? "" : "not ");
    *tp_p = &t->base;
    return SYM_OK;
}

static bool ofi_can_reach(const struct sym_transport_config *cfg, int pe)
{
    (void)cfg;
    (void)pe;
    return true;
}

/* Open, then connect to the peers in cfg->reach now (ofi_transport_connect)
 * while every PE is here; the connections' barrier needs this transport's
 * progress, so it is served from then on. */
static sym_status_t ofi_class_create(const struct sym_transport_config *cfg,
                                     struct sym_transport **tp_p)
{
    struct sym_transport *tp = NULL;
    sym_status_t st = ofi_transport_create(cfg, &tp);
    if (st != SYM_OK)
        return st;
    sym_debug("ofi transport on provider %s", ofi_transport_provider(tp));
    *tp_p = tp;
    cfg->serve(tp);
    if (cfg->npes <= 1)
        return SYM_OK;
    bool *via = calloc((size_t)cfg->npes, sizeof(*via));
    if (!via)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory");
    for (int pe = 0; pe < cfg->npes; pe++)
        via[pe] = pe != cfg->me && cfg->reach[pe];
    st = ofi_transport_connect(tp, cfg->boot, cfg->deadline, via);
    free(via);
    return st;
}

const struct sym_transport_class ofi_transport_class = {
    .name = "ofi",
    .summary = "libfabric RDM endpoints (peers on other hosts; SYMHEAP_TRANSPORT=ofi: every peer)",
    .settings = &ofi_settings_table,
    .can_reach = ofi_can_reach,
    .create = ofi_class_create,
    .providers = ofi_provider_list,
    .describe = ofi_providers_print,
};
