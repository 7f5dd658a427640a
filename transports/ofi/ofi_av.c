/* ofi_av.c - exchanging address, keys and region bases (heap and global
 * variables) with every PE through the bootstrap, and filling the address
 * vector. */
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
#include "internal.h"
#include "ofi_private.h"

/* One PE's card in the allgather: fits SYM_JOB_BLOB_MAX. */
struct ofi_card {
    uint64_t base;
    uint64_t key;
    uint64_t data_base; /* global variables, as base and key */
    uint64_t data_key;
    uint32_t addrlen;
    uint32_t pad;
    uint8_t addr[SYM_JOB_BLOB_MAX - 40];
};

sym_status_t ofi_exchange(struct ofi_transport *t, struct sym_boot *boot)
{
    _Static_assert(sizeof(struct ofi_card) == SYM_JOB_BLOB_MAX, "card must fill one blob");
    struct ofi_card mine;
    memset(&mine, 0, sizeof(mine));
    size_t len = sizeof(mine.addr);
    int rc = fi_getname(&t->ep->fid, mine.addr, &len);
    if (rc)
        return ofi_call_failed(t, "sym_init", -1, "fi_getname", rc);
    mine.addrlen = (uint32_t)len;
    mine.key = fi_mr_key(t->heap_mr);
    if (t->data_mr) {
        mine.data_key = fi_mr_key(t->data_mr);
        if (mine.data_key == FI_KEY_NOTAVAIL)
            mine.key = FI_KEY_NOTAVAIL;
        mine.data_base = (t->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)t->data : 0;
    }
    if (mine.key == FI_KEY_NOTAVAIL)
        return sym_error(SYM_ERR_UNAVAILABLE, "sym_init: libfabric provider %s uses memory "
                         "keys wider than 64 bits (FI_MR_RAW), which symheap does not support",
                         t->prov_name);
    mine.base = (t->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)t->heap : 0;

    struct ofi_card *all = calloc((size_t)t->npes, sizeof(*all));
    if (!all)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d ofi addresses",
                         t->npes);
    sym_status_t st = boot->ops->allgather(boot, &mine, sizeof(mine), all);
    for (int pe = 0; st == SYM_OK && pe < t->npes; pe++) {
        t->rkey[pe] = all[pe].key;
        t->rbase[pe] = all[pe].base;
        t->dkey[pe] = all[pe].data_key;
        t->dbase[pe] = all[pe].data_base;
        if (all[pe].addrlen == 0 || all[pe].addrlen > sizeof(all[pe].addr)) {
            st = sym_error(SYM_ERR_BOOTSTRAP, "sym_init: PE %d sent an ofi address of %u bytes "
                           "(does it run the same provider, %s?)", pe, all[pe].addrlen,
                           t->prov_name);
            break;
        }
        rc = fi_av_insert(t->av, all[pe].addr, 1, &t->addr[pe], 0, NULL);
        if (rc != 1)
            st = ofi_call_failed(t, "sym_init", pe, "fi_av_insert", rc < 0 ? rc : -FI_EINVAL);
    }
    free(all);
    return st;
}

/* Connection-oriented providers (tcp;ofi_rxm, verbs;ofi_rxm) connect to a
 * peer on the first operation to it.  Left to the application, that set-up
 * happens at any time, under load, with the peer maybe busy elsewhere, and
 * both ends of a pair may connect at once (rxm logged "Connection refused"
 * during such lazy set-ups in the network-namespace test).  Here every pair
 * connects once, from the lower-numbered PE, while every PE is inside
 * sym_init: an 8-byte read of the peer's heap (nothing is modified), then a
 * bootstrap barrier, whose wait drives this transport's progress (every
 * bootstrap waits through sym_wait_for), so each PE serves the reads aimed
 * at it until all of them completed.  Bounded by the init deadline.
 * Off by default (SYMHEAP_OFI_EAGER_CONNECT): n(n-1)/2 connections at init
 * is what a job of few PEs wants, not one of thousands; the barrier is
 * taken either way, so PEs that disagree on the setting still meet. */
sym_status_t ofi_transport_connect(struct sym_transport *tp, struct sym_boot *boot,
                                   const bool *via_ofi)
{
    struct ofi_transport *t = ofi_of(tp);
    const char *op = "sym_init (ofi connections)";
    int posted = 0;
    for (int pe = t->me + 1; sym_rt.cfg.ofi_eager_connect && pe < t->npes; pe++) {
        if (!via_ofi[pe])
            continue;
        struct ofi_ctx *ctx;
        sym_status_t st = ofi_next_ctx(t, op, pe, &ctx);
        if (st != SYM_OK)
            return st;
        OFI_POST(t, op, pe, "fi_read",
                 fi_read(t->ep, t->bounce + OFI_BOUNCE_BYTES + 40, 8, t->bounce_desc, t->addr[pe],
                         t->rbase[pe], t->rkey[pe], ctx));
        ofi_issued(t);
        t->last_kind[pe] = OFI_KIND_READ;
        t->last_seq[pe] = t->issued;
        posted++;
    }
    sym_status_t st = posted ? ofi_drain(t, op) : SYM_OK;
    if (st != SYM_OK)
        return st;
    sym_debug("ofi: connected to %d peer(s) at init", posted);
    /* Every PE, also one with nothing to connect, serves the others' reads
     * until all are done. */
    return boot->ops->barrier(boot, op);
}
