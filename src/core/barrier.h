/*
 * barrier.h - the world barrier, its algorithms (barrier.c) and the
 * fingerprint it carries (sync_print.c).
 *
 * Core runs the world barrier for itself (sym_malloc and friends,
 * sym_finalize) and for sym_barrier_all/sym_sync_all.  Every entry carries
 * the fingerprint of the call that entered it, so PEs in different calls
 * (one in sym_free, one in sym_barrier_all; two sym_malloc of different
 * sizes) find out on every PE, in the same barrier, instead of pairing
 * silently.  Its algorithms are listed with the collectives'
 * (coll/coll_list.h, barrier_all), and the coll layer hands down the one
 * SYMHEAP_BARRIER_ALGORITHM names, once at init; every PE must run the same
 * one, as they share the epoch.
 */
#ifndef SYM_CORE_BARRIER_H
#define SYM_CORE_BARRIER_H

#include <stdbool.h>
#include <stdint.h>

#include "base/deadline.h"
#include "symheap.h"

/* Which call entered the world barrier. */
enum sym_sync_kind {
    SYM_SYNC_BARRIER = 1, /* sym_barrier_all, sym_sync_all */
    SYM_SYNC_FINALIZE,
    SYM_SYNC_MALLOC,
    SYM_SYNC_CALLOC,
    SYM_SYNC_ALIGN,
    SYM_SYNC_REALLOC,
    SYM_SYNC_FREE,
};

/* A call's fingerprint, three words compared as one number (most
 * significant first): w[0] = kind << 56 | failed << 48 | the resulting (or
 * freed) heap offset, which is below 2^48 (heap_layout.h caps heaps at
 * 2^46 bytes); w[1] = the size asked for; w[2] = the alignment (sym_align)
 * or the old object's offset (sym_realloc).  A call that failed on this PE
 * before it synchronised says so, so its peers fail too. */
struct sym_sync_print {
    uint64_t w[3];
};

static inline struct sym_sync_print sym_sync_print_make(enum sym_sync_kind kind, bool failed,
                                                        uint64_t size, uint64_t off, uint64_t aux)
{
    struct sym_sync_print p = {
        {(uint64_t)kind << 56 | (uint64_t)failed << 48 | (off & ((UINT64_C(1) << 48) - 1)), size,
         aux}};
    return p;
}

/* What a barrier learnt: the smallest and the largest fingerprint of all
 * PEs' calls (equal when every PE made the same call).  Every PE of a
 * completed barrier learns the same pair. */
struct sym_sync_agg {
    struct sym_sync_print lo, hi;
};

int sym_sync_print_cmp(const struct sym_sync_print *a, const struct sym_sync_print *b);

/* Fold `in` into `agg` (idempotent: dissemination may count a PE twice). */
void sym_sync_agg_merge(struct sym_sync_agg *agg, const struct sym_sync_agg *in);

/* One world barrier, bounded by `dl`, whose op names the caller in errors;
 * `agg` comes in as this PE's fingerprint twice and leaves as the job's. */
typedef sym_status_t (*sym_barrier_all_fn)(struct sym_deadline *dl, struct sym_sync_agg *agg);

/* naive: every PE adds one to an arrival counter on PE 0, the last arrival
 * gathers the fingerprints and releases everyone; rd: dissemination over
 * the sync area's round lines, each carrying the fingerprints its sender
 * has seen so far. */
sym_status_t sym_barrier_all_naive(struct sym_deadline *dl, struct sym_sync_agg *agg);
sym_status_t sym_barrier_all_rd(struct sym_deadline *dl, struct sym_sync_agg *agg);

/* The algorithm every later world barrier runs; NULL: the automatic
 * choice (naive when the host is oversubscribed, else rd). */
void sym_barrier_all_use(sym_barrier_all_fn algo);

/* Quiet, then one world barrier carrying `mine`.  SYM_OK when every PE
 * made the same call; SYM_ERR_MISMATCH, on every PE alike, naming the
 * differing calls and their PEs; or the barrier's own error (timeout, lost
 * peer, abort), after which every later world barrier fails at once. */
sym_status_t sym_barrier_agree(const char *op, const struct sym_sync_print *mine);

/* The mismatch of a completed barrier of epoch `epoch` whose PEs' calls
 * differ (agg->lo != agg->hi), recorded: names a PE of each side, from the
 * fingerprints every PE published for that epoch (sync_print.c). */
sym_status_t sym_sync_mismatch(const char *op, uint64_t epoch, const struct sym_sync_print *mine,
                               const struct sym_sync_agg *agg);

#endif /* SYM_CORE_BARRIER_H */
