/* ofi_av.c - exchanging address, keys and region bases (heap and global
 * variables) with every PE through the bootstrap, and filling the address
 * vector. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "bootstrap/bootstrap.h"
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

/* The text of a loopback address (127.0.0.0/8, ::1) in a provider address
 * of sockaddr format, which no other host can reach; NULL for any other. */
static const char *loopback_text(const struct ofi_transport *t, const uint8_t *addr, size_t len,
                                 char *buf, size_t buflen)
{
    const uint32_t fmt = t->info->addr_format;
    sa_family_t family;
    if ((fmt != FI_SOCKADDR && fmt != FI_SOCKADDR_IN && fmt != FI_SOCKADDR_IN6) ||
        len < sizeof(struct sockaddr_in))
        return NULL;
    memcpy(&family, addr + offsetof(struct sockaddr, sa_family), sizeof(family));
    if (family == AF_INET) {
        struct sockaddr_in a;
        memcpy(&a, addr, sizeof(a));
        if (ntohl(a.sin_addr.s_addr) >> 24 != 127)
            return NULL;
        return inet_ntop(AF_INET, &a.sin_addr, buf, (socklen_t)buflen);
    }
    if (family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
        struct sockaddr_in6 a;
        memcpy(&a, addr, sizeof(a));
        if (!IN6_IS_ADDR_LOOPBACK(&a.sin6_addr))
            return NULL;
        return inet_ntop(AF_INET6, &a.sin6_addr, buf, (socklen_t)buflen);
    }
    return NULL;
}

/* A provider that finds no running network interface falls back to the
 * loopback address without a word: libfabric 1.17's tcp provider lists
 * only interfaces the kernel marks running (IFF_RUNNING), which a link
 * just brought up may not be yet (the kernel sets it a moment later, up
 * to about a second: a PE started at once saw eth0 UP and LOWER_UP but
 * not RUNNING), and appends lo to the list whatever FI_TCP_IFACE says.  A peer on another host then
 * fails its first connection to this PE, and this PE every connection
 * it opens from that address, with a bare -FI_EINVAL from connect()
 * ("EINVAL across the veth link").  Every PE sees every
 * address, so all of them refuse such a job alike, naming the PE. */
static sym_status_t check_reachable(struct ofi_transport *t, const struct ofi_card *all)
{
    /* a PE on another host than mine, if any (the same answer on every PE:
     * the job spans hosts or it does not) */
    int remote = -1;
    for (int pe = 0; t->same_host && pe < t->npes && remote < 0; pe++)
        if (!t->same_host[pe])
            remote = pe;
    for (int a = 0; a < t->npes && remote >= 0; a++) {
        char text[INET6_ADDRSTRLEN];
        if (!loopback_text(t, all[a].addr, all[a].addrlen, text, sizeof(text)))
            continue;
        /* PE a's host is not mine, or PE `remote`'s is not PE a's */
        const int b = t->same_host[a] ? remote : t->me;
        return sym_error(SYM_ERR_UNAVAILABLE,
                         "sym_init: PE %d's libfabric address on provider %s is the loopback "
                         "address %s, which PE %d on another host cannot reach: the provider "
                         "found no running network interface on PE %d's host (not up yet? "
                         "FI_TCP_IFACE names the one to use)",
                         a, t->prov_name, text, b, a);
    }
    return SYM_OK;
}

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
        return sym_error(SYM_ERR_UNAVAILABLE,
                         "sym_init: libfabric provider %s uses memory "
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
            st = sym_error(SYM_ERR_BOOTSTRAP,
                           "sym_init: PE %d sent an ofi address of %u bytes "
                           "(does it run the same provider, %s?)",
                           pe, all[pe].addrlen, t->prov_name);
            break;
        }
        rc = fi_av_insert(t->av, all[pe].addr, 1, &t->addr[pe], 0, NULL);
        if (rc != 1)
            st = ofi_call_failed(t, "sym_init", pe, "fi_av_insert", rc < 0 ? rc : -FI_EINVAL);
    }
    if (st == SYM_OK)
        st = check_reachable(t, all);
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
                                   struct sym_deadline *init, const bool *via_ofi)
{
    struct ofi_transport *t = ofi_of(tp);
    /* sym_init's deadline, under this step's name */
    struct sym_deadline conn = *init;
    conn.op = "sym_init (ofi connections)";
    struct sym_deadline *dl = &conn;
    int posted = 0;
    for (int pe = t->me + 1; t->eager_connect && pe < t->npes; pe++) {
        if (!via_ofi[pe])
            continue;
        struct ofi_ctx *ctx;
        sym_status_t st = ofi_next_ctx(t, dl, pe, &ctx);
        if (st != SYM_OK)
            return st;
        OFI_POST(t, dl, pe, "fi_read",
                 fi_read(t->ep, t->bounce + OFI_BOUNCE_BYTES + 40, 8, t->bounce_desc, t->addr[pe],
                         t->rbase[pe], t->rkey[pe], ctx));
        ofi_issued(t);
        t->last_kind[pe] = OFI_KIND_READ;
        t->last_seq[pe] = t->issued;
        posted++;
    }
    sym_status_t st = posted ? ofi_drain(t, dl) : SYM_OK;
    if (st != SYM_OK)
        return st;
    sym_debug("ofi: connected to %d peer(s) at init", posted);
    /* Every PE, also one with nothing to connect, serves the others' reads
     * until all are done. */
    return boot->ops->barrier(boot, "sym_init (ofi connections)");
}
