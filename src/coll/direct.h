/*
 * direct.h - the engine of the direct algorithm (SYM_ALGO_DIRECT): members
 * of a team on one host read each other's data where it lies, one copy
 * per byte and reader, with no mailbox in between.
 *
 * In a direct call each member *offers* a buffer (its input; in a second
 * phase, a result such as its reduced block) and reads the ranges it needs
 * of the others' offers.  An offer lies where the owner's buffer is:
 *
 *   HEAP    the buffer is in the owner's symmetric heap: readers copy or
 *           reduce straight out of their mapping of it (no copy at all
 *           before the reader's own);
 *   CMA     private memory, read with process_vm_readv (core/cma.h) when
 *           every member of the team can (one copy, by the kernel);
 *   STAGED  private memory copied once into the owner's staging area
 *           (SYMHEAP_STAGING_SIZE, world team), which readers read mapped:
 *           one copy in, one per reader out, instead of two per reader
 *           through the mailboxes.  The area is a ring of SYM_DSLOTS slots;
 *           an offer larger than a slot goes in rounds, readers copying
 *           one round while the owner stages the next.
 *
 * Each member chooses for its own offer; readers learn it from the offer's
 * announcement, so members never have to agree on where buffers are.
 *
 * Per member and team, the area's top holds: for every owner and phase, a
 * two-line announcement (the call's fingerprint, where the offer lies, the
 * range this reader takes) that the owner writes into each reader's heap
 * with put-with-signal; per owner, a line counting the staged rounds it
 * published (written by the owner into the reader's heap); per reader, a
 * line counting the units of this PE's offers that reader is done with
 * (written by the reader into the owner's heap).  Every word is waited on
 * where it lies, through the channel's wait (deadline, stall checks,
 * poison, lost PEs), and only grows: announcements carry
 * seq * 4 + phase, the counters seq << 20 | units.
 *
 * Units number an owner's rounds across the phases of a call (phase 2's
 * start where phase 1's end).  A HEAP or CMA offer is one unit whatever its
 * size; its owner returns only when every reader is done with it.  A STAGED
 * offer is as many units as it has rounds; its owner returns once its last
 * round is staged (eager, as a mailbox sender), and waits for the readers
 * before it overwrites the staging area, in the next round or call.
 *
 * Readers go through the rounds in order, every owner's round r before any
 * round r + 1, staging their own round r first: a wait only ever points to
 * a member's earlier round, so the call cannot deadlock.
 *
 * Reductions combine in rank order (x_0 op x_1 op ... op x_{n-1}), piece
 * by piece out of the owners' offers, so every algorithm that leaves a
 * block to one member gives the same bits everywhere.
 */
#ifndef SYM_COLL_DIRECT_H
#define SYM_COLL_DIRECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"

enum sym_dloc { SYM_DLOC_NONE = 0, SYM_DLOC_HEAP, SYM_DLOC_CMA, SYM_DLOC_STAGED };

/* What one offer of this PE is, for one phase of a call. */
struct sym_doffer {
    const uint8_t *buf;
    size_t bytes;
    size_t skip_lo, skip_hi; /* no reader takes [skip_lo, skip_hi): not staged */
    uint8_t kind;            /* enum sym_dloc */
    uint32_t base, rounds;   /* units base .. base + rounds - 1 */
    size_t win;              /* bytes per round */
    uint64_t stage;          /* STAGED: the staging area's offset in this heap */
    int staged;              /* rounds staged so far */
};

/* Another member's offer, as this PE reads it. */
struct sym_dview {
    int owner; /* team number; -1: nothing to read */
    uint8_t kind;
    const uint8_t *ptr;  /* HEAP: the offer's byte 0; STAGED: the staging area (mapped) */
    uint64_t va;         /* CMA: the offer's byte 0 in the owner's process */
    uint64_t bytes;      /* of the whole offer */
    uint64_t roff, rlen; /* the range this PE takes */
    uint32_t base, rounds;
    uint64_t win;
    uint32_t ready; /* units known published */
    bool done;      /* this PE marked every unit of the offer done */
};

/* Who reads an offer: every other member, or one. */
struct sym_dreaders {
    bool all;
    int one;           /* team number when !all */
    const bool *which; /* when not NULL: which[r] says whether member r reads */
};

/* One direct call in progress on this PE. */
struct sym_dcall {
    struct sym_coll *c;
    struct sym_dteam *dt;
    int phase; /* 1 or 2: the offer being made */
    struct sym_doffer mine[2];
    struct sym_dreaders readers[2];
};

/* ---- team state (direct.c) ---- */

/* Bytes of the direct lines for a team of n members. */
uint64_t sym_direct_lines_bytes(int n);
/* Set up / release / clear (this PE's copy) a team's direct state; lines_off
 * 0: no lines.  Errors: SYM_ERR_NO_MEMORY. */
sym_status_t sym_direct_team_init(struct sym_dteam *dt, int n, uint64_t lines_off,
                                  uint64_t stage_off, uint64_t stage_size);
void sym_direct_team_fini(struct sym_dteam *dt);
void sym_direct_team_clear(struct sym_team *team);

/* Whether the direct algorithm can run on `team`: every member's heap is
 * mapped here, the area has its lines, and every member can offer private
 * memory (cross-memory attach, or a staging area).  The same answer on
 * every member.  When false and `why` is not NULL, *why says why. */
bool sym_direct_usable(struct sym_team *team, const char **why);

/* Whether this PE reaches a private buffer of `bytes` by cross-memory attach
 * rather than copying it into the staging area (SYMHEAP_CMA, the tuning
 * table's cma_min). */
bool sym_direct_prefers_cma(const struct sym_coll *c, size_t bytes);

/* Wait until every reader is done with everything this PE offered on the
 * team (sym_team_sync, destroy, finalize). */
sym_status_t sym_direct_flush(struct sym_coll *c);

/* ---- one call (direct.c) ---- */

void sym_dcall_begin(struct sym_dcall *d, struct sym_coll *c);

/* Offer `bytes` at buf for phase `phase` (1 or 2; phase 2 after phase 1's
 * reads) to `readers`; reader r takes [roff[r], roff[r] + rlen[r]) (NULL:
 * the whole offer).  No reader takes [skip_lo, skip_hi).  Stages the first
 * round if the offer is STAGED, then announces it. */
sym_status_t sym_dcall_offer(struct sym_dcall *d, int phase, const void *buf, size_t bytes,
                             size_t skip_lo, size_t skip_hi, struct sym_dreaders readers,
                             const size_t *roff, const size_t *rlen);

/* Wait for member `owner`'s offer of `phase` and check its fingerprint
 * (a different call: SYM_ERR_MISMATCH, reported to every member). */
sym_status_t sym_dcall_view(struct sym_dcall *d, int phase, int owner, struct sym_dview *v);

/* views[i] for every member i but this PE (views[rank]: owner -1). */
sym_status_t sym_dcall_view_all(struct sym_dcall *d, int phase, struct sym_dview *views);

/* Stage this PE's round `r` of its current offer, if it has one, after its
 * readers are past the round that used the space before. */
sym_status_t sym_dcall_stage(struct sym_dcall *d, uint32_t r);

/* Rounds of a view, and the part [*lo, *hi) of the view's range that lies in
 * round r (empty when none). */
void sym_dview_window(const struct sym_dview *v, uint32_t r, uint64_t *lo, uint64_t *hi);

/* Make round r of view v readable here (STAGED: wait for the owner's
 * round).  */
sym_status_t sym_dcall_ready(struct sym_dcall *d, struct sym_dview *v, uint32_t r);

/* This PE is done with rounds < r of view v (r = v->rounds: all of it). */
sym_status_t sym_dcall_done(struct sym_dcall *d, struct sym_dview *v, uint32_t r);

/* Finish: stage what is left of this PE's offers, and for HEAP and CMA
 * offers wait until every reader is done with them. */
sym_status_t sym_dcall_end(struct sym_dcall *d);

/* ---- reading (direct_read.c) ---- */

/* Copy [off, off + len) of the view's offer (absolute offer bytes, inside
 * a round made ready) to dst. */
sym_status_t sym_dview_copy(struct sym_dcall *d, const struct sym_dview *v, uint64_t off, void *dst,
                            size_t len);

/* A pointer to [off, off + len) of the view's offer, readable until the
 * next call on the same d: the mapping itself (HEAP, STAGED), or a copy in
 * `bounce` (CMA; len at most the bounce's size). */
sym_status_t sym_dview_ptr(struct sym_dcall *d, const struct sym_dview *v, uint64_t off, size_t len,
                           uint8_t *bounce, const uint8_t **p);

/* Copy every view's range to dsts[i] (view i's first byte), round by round
 * (views with owner -1 are skipped); also stages this PE's own rounds. */
sym_status_t sym_direct_copy_all(struct sym_dcall *d, struct sym_dview *views, int nviews,
                                 uint8_t *const *dsts);

/* Reduce in rank order: views[i] is member i's term (views[rank] is this
 * PE's own, `own`, and has owner -1), every range the same length `bytes`;
 * the result goes to dst, round by round.  `own` may alias dst (pieces are
 * then combined aside). */
sym_status_t sym_direct_reduce_all(struct sym_dcall *d, struct sym_dview *views, int nviews,
                                   const uint8_t *own, uint8_t *dst, size_t bytes,
                                   sym_datatype_t dt, sym_op_t op);

/* Slots of the staging area's ring. */
#define SYM_DSLOTS 8u

/* Bytes of each piece a reduction works on (fits the caches). */
#define SYM_DPIECE ((size_t)32768)

#endif /* SYM_COLL_DIRECT_H */
