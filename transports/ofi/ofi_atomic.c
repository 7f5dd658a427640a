/* ofi_atomic.c - atomics and signal words through fi_atomic,
 * fi_fetch_atomic and fi_compare_atomic. */
#include <string.h>

#include "ofi_private.h"

enum ofi_amo_kind { OFI_AMO_PLAIN, OFI_AMO_FETCH, OFI_AMO_COMPARE };

struct ofi_amo_map {
    enum fi_op op;
    enum ofi_amo_kind kind;
    const char *name;
};

static const struct ofi_amo_map amo_map[] = {
    [SYM_AMO_FETCH] = {FI_ATOMIC_READ, OFI_AMO_FETCH, "FI_ATOMIC_READ"},
    [SYM_AMO_SET] = {FI_ATOMIC_WRITE, OFI_AMO_PLAIN, "FI_ATOMIC_WRITE"},
    [SYM_AMO_SWAP] = {FI_ATOMIC_WRITE, OFI_AMO_FETCH, "FI_ATOMIC_WRITE"},
    [SYM_AMO_CSWAP] = {FI_CSWAP, OFI_AMO_COMPARE, "FI_CSWAP"},
    [SYM_AMO_ADD] = {FI_SUM, OFI_AMO_PLAIN, "FI_SUM"},
    [SYM_AMO_FETCH_ADD] = {FI_SUM, OFI_AMO_FETCH, "FI_SUM"},
    [SYM_AMO_AND] = {FI_BAND, OFI_AMO_PLAIN, "FI_BAND"},
    [SYM_AMO_OR] = {FI_BOR, OFI_AMO_PLAIN, "FI_BOR"},
    [SYM_AMO_XOR] = {FI_BXOR, OFI_AMO_PLAIN, "FI_BXOR"},
    [SYM_AMO_FETCH_AND] = {FI_BAND, OFI_AMO_FETCH, "FI_BAND"},
    [SYM_AMO_FETCH_OR] = {FI_BOR, OFI_AMO_FETCH, "FI_BOR"},
    [SYM_AMO_FETCH_XOR] = {FI_BXOR, OFI_AMO_FETCH, "FI_BXOR"},
};

static const char *const kind_name[] = {"", "fetching ", "compare "};

sym_status_t ofi_atomics_check(struct fid_domain *domain, const char *prov, bool record,
                               char *missing, size_t len)
{
    static const struct {
        enum fi_datatype dt;
        const char *name;
    } types[] = {{FI_UINT32, "FI_UINT32"}, {FI_UINT64, "FI_UINT64"}};
    static const uint64_t kind_flag[] = {0, FI_FETCH_ATOMIC, FI_COMPARE_ATOMIC};
    for (size_t k = 0; k < sizeof(types) / sizeof(types[0]); k++)
        for (size_t a = 0; a < sizeof(amo_map) / sizeof(amo_map[0]); a++) {
            struct fi_atomic_attr attr;
            memset(&attr, 0, sizeof(attr));
            int rc = fi_query_atomic(domain, types[k].dt, amo_map[a].op, &attr,
                                     kind_flag[amo_map[a].kind]);
            if (rc == 0 && attr.count >= 1)
                continue;
            char what[96];
            snprintf(what, sizeof(what), "%s(%s, %s)", kind_name[amo_map[a].kind], amo_map[a].name,
                     types[k].name);
            if (missing)
                snprintf(missing, len, "%s", what);
            if (!record)
                return SYM_ERR_UNAVAILABLE;
            return sym_error(SYM_ERR_UNAVAILABLE,
                             "sym_init: libfabric provider %s cannot execute the %satomic "
                             "%s on %s, which symheap needs (choose another provider with "
                             "SYMHEAP_OFI_PROVIDER)",
                             prov, kind_name[amo_map[a].kind], amo_map[a].name, types[k].name);
        }
    return SYM_OK;
}

static inline void *scratch(struct ofi_transport *t, unsigned slot)
{
    return t->bounce + OFI_BOUNCE_BYTES + 8u * slot;
}

sym_status_t ofi_atomic(struct sym_transport *tp, int pe, uint64_t off, sym_amo_op_t op,
                        size_t width, uint64_t operand, uint64_t compare, uint64_t *fetched_p,
                        struct sym_deadline *dl)
{
    struct ofi_transport *t = ofi_of(tp);
    const struct ofi_amo_map *m = &amo_map[op];
    const enum fi_datatype dt = width == 4 ? FI_UINT32 : FI_UINT64;
    uint32_t v32 = (uint32_t)operand, c32 = (uint32_t)compare;
    struct ofi_ctx *ctx;
    uint64_t raddr = 0, key = 0;
    sym_status_t st = ofi_target(t, dl, pe, off, width, &raddr, &key);
    if (st != SYM_OK)
        return st;
    if ((st = ofi_order(t, OFI_KIND_ATOMIC, pe, off, width, dl)) != SYM_OK)
        return st;
    if (m->kind == OFI_AMO_PLAIN) {
        if ((st = ofi_next_ctx(t, dl, pe, &ctx)) != SYM_OK)
            return st;
        const void *buf = width == 4 ? (const void *)&v32 : (const void *)&operand;
        /* On this PE's own word it completes before returning: the PE's
         * next plain load of it (sym_signal_fetch, a wait) must see it, and
         * no provider orders that load after the operation. */
        const bool own = pe == t->me;
        if (!own && t->inject_ok && t->inject_size >= width) {
            OFI_POST(t, dl, pe, "fi_inject_atomic",
                     fi_inject_atomic(t->ep, buf, 1, t->addr[pe], raddr, key, dt, m->op));
            ofi_mark_dirty(t, pe);
        } else {
            /* The fetching form: its completion carries the old value, so
             * it cannot be counted before the target applied it (tcp;ofi_rxm
             * counts a small non-fetching atomic when it is sent). */
            uint8_t *slot = ofi_slot(t, ctx);
            memcpy(slot, buf, width);
            OFI_POST(t, dl, pe, "fi_fetch_atomic",
                     fi_fetch_atomic(t->ep, slot, 1, t->bounce_desc, slot + 8, t->bounce_desc,
                                     t->addr[pe], raddr, key, dt, m->op, ctx));
        }
        ofi_issued(t);
        return own ? ofi_drain(t, dl) : SYM_OK;
    }
    /* Registered operands (FI_MR_LOCAL), kept until the drain below. */
    void *opnd = scratch(t, 0), *cmp = scratch(t, 1), *res = scratch(t, 2);
    if (width == 4) {
        memcpy(opnd, &v32, 4);
        memcpy(cmp, &c32, 4);
    } else {
        memcpy(opnd, &operand, 8);
        memcpy(cmp, &compare, 8);
    }
    void *d = t->bounce_desc;
    if ((st = ofi_next_ctx(t, dl, pe, &ctx)) != SYM_OK)
        return st;
    switch (m->kind) {
    case OFI_AMO_PLAIN: /* handled above */
        break;
    case OFI_AMO_FETCH:
        OFI_POST(
            t, dl, pe, "fi_fetch_atomic",
            fi_fetch_atomic(t->ep, opnd, 1, d, res, d, t->addr[pe], raddr, key, dt, m->op, ctx));
        break;
    case OFI_AMO_COMPARE:
        OFI_POST(t, dl, pe, "fi_compare_atomic",
                 fi_compare_atomic(t->ep, opnd, 1, d, cmp, d, res, d, t->addr[pe], raddr, key, dt,
                                   m->op, ctx));
        break;
    }
    ofi_issued(t);
    if ((st = ofi_drain(t, dl)) != SYM_OK)
        return st;
    if (fetched_p) {
        if (width == 4) {
            uint32_t r;
            memcpy(&r, res, 4);
            *fetched_p = r;
        } else {
            memcpy(fetched_p, res, 8);
        }
    }
    return SYM_OK;
}

sym_status_t ofi_signal(struct ofi_transport *t, int pe, uint64_t sig_off, uint64_t value,
                        sym_signal_op_t op, bool fenced, struct sym_deadline *dl)
{
    const enum fi_op fop = op == SYM_SIGNAL_ADD ? FI_SUM : FI_ATOMIC_WRITE;
    struct ofi_ctx *ctx;
    uint64_t raddr = 0, key = 0;
    sym_status_t st = ofi_target(t, dl, pe, sig_off, 8, &raddr, &key);
    if (st != SYM_OK)
        return st;
    if (!fenced && (st = ofi_order(t, OFI_KIND_ATOMIC, pe, sig_off, 8, dl)) != SYM_OK)
        return st;
    if (fenced) { /* FI_FENCE orders it after the data; what follows it is ordered as usual */
        ofi_amo_range(t, pe, sig_off, 8);
        t->last_kind[pe] = OFI_KIND_ATOMIC;
        t->last_seq[pe] = t->issued + 1;
    }
    if ((st = ofi_next_ctx(t, dl, pe, &ctx)) != SYM_OK)
        return st;
    const bool inject = t->inject_ok && t->inject_size >= 8;
    uint64_t *opnd = ofi_slot(t, ctx);
    *opnd = value;
    if (!fenced && inject) {
        OFI_POST(t, dl, pe, "fi_inject_atomic",
                 fi_inject_atomic(t->ep, &value, 1, t->addr[pe], raddr, key, FI_UINT64, fop));
        ofi_mark_dirty(t, pe);
    } else if (!fenced) { /* fetching, as in ofi_atomic */
        OFI_POST(t, dl, pe, "fi_fetch_atomic",
                 fi_fetch_atomic(t->ep, opnd, 1, t->bounce_desc, opnd + 1, t->bounce_desc,
                                 t->addr[pe], raddr, key, FI_UINT64, fop, ctx));
    } else {
        struct fi_ioc ioc = {.addr = opnd, .count = 1};
        void *desc = t->bounce_desc;
        struct fi_rma_ioc rioc = {.addr = raddr, .count = 1, .key = key};
        struct fi_msg_atomic msg = {.msg_iov = &ioc,
                                    .desc = &desc,
                                    .iov_count = 1,
                                    .addr = t->addr[pe],
                                    .rma_iov = &rioc,
                                    .rma_iov_count = 1,
                                    .datatype = FI_UINT64,
                                    .op = fop,
                                    .context = ctx};
        OFI_POST(t, dl, pe, "fi_atomicmsg",
                 fi_atomicmsg(t->ep, &msg, FI_FENCE | FI_DELIVERY_COMPLETE));
        t->fenced_signals++;
    }
    ofi_issued(t);
    return SYM_OK;
}
