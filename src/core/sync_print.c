/* sync_print.c - the world barrier's fingerprints: their order, and the
 * message naming the calls when PEs made different ones (barrier.h). */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>

#include "core/barrier.h"
#include "core/internal.h"

int sym_sync_print_cmp(const struct sym_sync_print *a, const struct sym_sync_print *b)
{
    for (int i = 0; i < 3; i++)
        if (a->w[i] != b->w[i])
            return a->w[i] < b->w[i] ? -1 : 1;
    return 0;
}

void sym_sync_agg_merge(struct sym_sync_agg *agg, const struct sym_sync_agg *in)
{
    if (sym_sync_print_cmp(&in->lo, &agg->lo) < 0)
        agg->lo = in->lo;
    if (sym_sync_print_cmp(&in->hi, &agg->hi) > 0)
        agg->hi = in->hi;
}

static const char *kind_name(unsigned kind)
{
    static const char *const names[] = {
        [SYM_SYNC_BARRIER] = "sym_barrier_all", [SYM_SYNC_FINALIZE] = "sym_finalize",
        [SYM_SYNC_MALLOC] = "sym_malloc",       [SYM_SYNC_CALLOC] = "sym_calloc",
        [SYM_SYNC_ALIGN] = "sym_align",         [SYM_SYNC_REALLOC] = "sym_realloc",
        [SYM_SYNC_FREE] = "sym_free",
    };
    return kind < sizeof(names) / sizeof(names[0]) && names[kind] ? names[kind] : "an unknown call";
}

/* "sym_malloc(64 bytes) -> heap offset 16384", "a failed sym_free", ... */
static void describe(const struct sym_sync_print *p, char *buf, size_t len)
{
    const unsigned kind = (unsigned)(p->w[0] >> 56);
    const bool failed = (p->w[0] >> 48) & 0xff;
    const unsigned long long off = p->w[0] & ((UINT64_C(1) << 48) - 1);
    const unsigned long long size = p->w[1], aux = p->w[2];
    const char *name = kind_name(kind), *f = failed ? "a failed " : "";
    switch (kind) {
    case SYM_SYNC_MALLOC:
    case SYM_SYNC_CALLOC:
        if (failed)
            snprintf(buf, len, "a failed %s(%llu bytes)", name, size);
        else
            snprintf(buf, len, "%s(%llu bytes) -> heap offset %llu", name, size, off);
        return;
    case SYM_SYNC_ALIGN:
        if (failed)
            snprintf(buf, len, "a failed %s(alignment %llu, %llu bytes)", name, aux, size);
        else
            snprintf(buf, len, "%s(alignment %llu, %llu bytes) -> heap offset %llu", name, aux,
                     size, off);
        return;
    case SYM_SYNC_REALLOC:
        if (failed)
            snprintf(buf, len, "a failed %s(heap offset %llu, %llu bytes)", name, aux, size);
        else
            snprintf(buf, len, "%s(heap offset %llu, %llu bytes) -> heap offset %llu", name, aux,
                     size, off);
        return;
    case SYM_SYNC_FREE:
        if (failed)
            snprintf(buf, len, "a failed %s (not a live object)", name);
        else
            snprintf(buf, len, "%s(heap offset %llu, %llu bytes)", name, off, size);
        return;
    default:
        snprintf(buf, len, "%s%s", f, name);
    }
}

/* The lowest PE whose published fingerprint for `epoch` is `p`, or -1. */
static int pe_with(const struct sym_sync_print *p, uint64_t epoch)
{
    const uint64_t off = offsetof(struct sym_heap_ctrl, barrier_print[epoch & 1]);
    for (int pe = 0; pe < sym_rt.npes; pe++) {
        struct sym_sync_print theirs;
        /* its own deadline: a peer that cannot answer is skipped */
        struct sym_deadline dl = sym_deadline_default("sym_get");
        if (sym_get_off_dl(pe, &theirs, off, sizeof(theirs), &dl) != SYM_OK)
            continue;
        if (sym_sync_print_cmp(&theirs, p) == 0)
            return pe;
    }
    return -1;
}

sym_status_t sym_sync_mismatch(const char *op, uint64_t epoch, const struct sym_sync_print *mine,
                               const struct sym_sync_agg *agg)
{
    char lo[128], hi[128], own[128];
    describe(&agg->lo, lo, sizeof(lo));
    describe(&agg->hi, hi, sizeof(hi));
    describe(mine, own, sizeof(own));
    /* A peer is at most one barrier ahead, which writes the other parity:
     * every PE's fingerprint of this epoch is still in place. */
    const int lo_pe = pe_with(&agg->lo, epoch), hi_pe = pe_with(&agg->hi, epoch);
    return sym_error(SYM_ERR_MISMATCH,
                     "%s: PEs made different collective calls in world barrier #%" PRIu64
                     ": PE %d called %s, PE %d called %s (this PE, %d: %s); every PE fails "
                     "this call and no PE's heap changed (every PE must make the same "
                     "allocation, barrier and finalize calls in the same order)",
                     op, epoch, lo_pe, lo, hi_pe, hi, sym_rt.me, own);
}
