/*
 * barrier.h - the world barrier's algorithms (barrier.c).
 *
 * Core runs the world barrier for itself (sym_malloc, sym_free,
 * sym_finalize) and for sym_barrier_all/sym_sync_all.  Its algorithms are
 * listed with the collectives' (coll/coll_list.h, barrier_all), and the
 * coll layer hands down the one SYMHEAP_BARRIER_ALGORITHM names, once at
 * init; every PE must run the same one, as they share the epoch.
 */
#ifndef SYM_CORE_BARRIER_H
#define SYM_CORE_BARRIER_H

#include "base/deadline.h"
#include "symheap.h"

/* One world barrier, bounded by `dl`, whose op names the caller in errors. */
typedef sym_status_t (*sym_barrier_all_fn)(struct sym_deadline *dl);

/* naive: every PE adds one to an arrival counter on PE 0, the last arrival
 * releases everyone; rd: dissemination over the sync area's round flags. */
sym_status_t sym_barrier_all_naive(struct sym_deadline *dl);
sym_status_t sym_barrier_all_rd(struct sym_deadline *dl);

/* The algorithm every later world barrier runs; NULL: the automatic
 * choice (naive when the host is oversubscribed, else rd). */
void sym_barrier_all_use(sym_barrier_all_fn algo);

#endif /* SYM_CORE_BARRIER_H */
