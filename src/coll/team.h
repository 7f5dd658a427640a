/*
 * team.h - teams: membership, numbering, their mailbox area and state.
 *
 * The mailbox region of every heap is laid out identically:
 *
 *   p2p area     point-to-point links between every pair of PEs (half)
 *   world area   the world team's collective links (half)
 *
 * Split teams take their areas from the team region at the heap's end
 * (team_area.c): the parent's PEs agree on a range free on every one of
 * them, so two teams that share a PE never share a byte, while disjoint
 * teams may.  Members give the range back when they destroy the team.
 *
 * Every team's area starts with SYM_TEAM_REC_BYTES of recovery lines (the
 * dissemination barrier of sym_team_recover, outside the channel so that
 * clearing the channel never clears them); the channel follows.
 */
#ifndef SYM_COLL_TEAM_H
#define SYM_COLL_TEAM_H

#include <stdbool.h>
#include <stdint.h>

#include "coll/chan.h"
#include "symheap.h"

struct sym_dview;

#define SYM_TEAM_MAGIC 0x5445414du /* "TEAM" */
#define SYM_TEAM_DEAD  0x44454144u /* destroyed */
/* Granule of the team region: areas are whole blocks. */
#define SYM_TEAM_BLOCK ((uint64_t)16384)
/* Recovery lines at the start of every team's area: one per round of a
 * dissemination barrier (up to 2^32 members). */
#define SYM_TEAM_REC_ROUNDS 32u
#define SYM_TEAM_REC_BYTES  ((uint64_t)SYM_TEAM_REC_ROUNDS * 64u)
/* Destroyed teams whose records are kept, so their stale handles are still
 * recognised ("was destroyed"); beyond this the oldest record is reused for
 * the next new team, which keeps memory flat however many teams are made. */
#define SYM_TEAM_QUARANTINE 256

/* A team's state for the direct algorithm (coll/direct.h). */
struct sym_dteam {
    int8_t usable;      /* -1: not decided yet, else 0/1 (sym_direct_usable) */
    bool cma;           /* every member reads every other by cross-memory attach */
    uint64_t lines_off; /* 0: the area has no room for the direct lines */
    uint64_t stage_off; /* this PE's staging area, 0 bytes: none */
    uint64_t stage_size;
    uint64_t *owed;   /* [n] done value each reader owes this PE's offers so far */
    uint8_t *scratch; /* pieces: cross-memory reads, in-place combinations */
    /* a call's arrays, kept with the team (calls on one team never overlap):
     * views of both phases, destinations, ranges */
    struct sym_dview *views, *views2;
    uint8_t **dsts;
    size_t *roff, *rlen;
    bool *picks; /* [2n] per member: sent / received directly (all_to_allv) */
};

struct sym_team {
    uint32_t magic;
    uint64_t area_off;   /* the team's area (recovery lines, then the channel) */
    uint64_t area_bytes; /* 0: not from the team region (world, point-to-point) */
    uint64_t rec_epoch;  /* recoveries completed (sym_team_recover) */
    char name[24];
    int size;
    int rank;          /* mine */
    int *pe_of;        /* [size] team number -> global PE */
    int *rank_of;      /* [npes] global PE -> team number or -1 */
    double timeout_s;  /* 0: SYMHEAP_TIMEOUT */
    uint64_t coll_seq; /* collectives started on this team */
    struct sym_chan chan;
    struct sym_dteam direct;
    /* A failed collective breaks the team: later calls fail at once. */
    sym_status_t broken;
    char broken_msg[512];
    /* Poisoned before this PE's sym_finalize published itself here: an old
     * error is not that finalize's mismatch (finalize_check.c). */
    bool poisoned_before_finalize;
    /* Buffers kept between calls (sym_team_scratch). */
    void *scratch[2];
    size_t scratch_size[2];
};

/* World team set-up at init / teardown at finalize. */
sym_status_t sym_teams_init(void);
void sym_teams_fini(void);

/* Call fn on every live team of this PE (the world team first; not the
 * point-to-point channel). */
void sym_team_each(void (*fn)(struct sym_team *team, void *arg), void *arg);

/* Validate a handle for `op`: a live team of which this PE is a member. */
sym_status_t sym_team_check(const char *op, sym_team_t team);

/* The private all-PE "team" whose channel carries point-to-point messages
 * (its own area and link counters, never in the registry). */
struct sym_team *sym_p2p_team(void);

/* Free messages queued by point-to-point receives (p2p.c). */
void sym_p2p_fini(void);

/* A buffer of at least `bytes`, owned by the team and kept between calls:
 * large buffers malloc'ed per call come back as fresh pages, and faulting
 * them in dominated 32-64 MiB reductions (bench_coll).  Slot 0
 * is for the public wrappers, slot 1 for the algorithms; a slot's buffer is
 * valid until the next call for that slot on this team (calls on one team
 * never overlap).  NULL if out of memory. */
void *sym_team_scratch(struct sym_team *team, int slot, size_t bytes);

/* Record that a collective on `team` failed: the team is broken. */
void sym_team_break(struct sym_team *team, sym_status_t status, const char *msg);

/* The team region (team_area.c). */
sym_status_t sym_team_areas_init(uint64_t off, uint64_t size);
void sym_team_areas_fini(void);
/* Bytes of every member's heap a split team of n members takes (the rule
 * stated in include/symheap/team.h), recovery lines included. */
uint64_t sym_team_area_bytes(int n);
/* Inside the split's collective c on the parent: OR the parent PEs' maps
 * of used blocks, together with `extra` words (agreement checks of the
 * caller: ORed in place), and pick nfam ranges of bytes[i] free on every
 * one of them (offs[i]); the same on every parent PE.  Errors:
 * SYM_ERR_NO_MEMORY (no room: the message says how much is used), those of
 * the allreduce. */
sym_status_t sym_team_areas_agree(struct sym_coll *c, int nfam, const uint64_t bytes[],
                                  uint64_t offs[], uint64_t *extra, size_t nextra);
/* Mark [off, off + bytes) used by a team of this PE and back it with
 * memory (SYM_ERR_NO_MEMORY if /dev/shm is full); give it back. */
sym_status_t sym_team_area_take(const char *op, uint64_t off, uint64_t bytes);
void sym_team_area_release(uint64_t off, uint64_t bytes);
/* Bytes of the team region this PE's teams use. */
uint64_t sym_team_areas_used(void);

/* Make nfam teams in one collective over the parent (team.c): mine[f]
 * lists the parent ranks of this PE's team of family f (NULL: none),
 * counts[f] its size, largest[f] the size of the largest team any PE
 * makes in family f (the same on every PE).  Teams of one family are
 * disjoint and share one area offset; `hash` must be equal on every
 * parent PE (else SYM_ERR_MISMATCH on all, naming this PE's `desc` and
 * another PE's, the parent left intact). */
sym_status_t sym_team_make(const char *op, struct sym_team *parent, int nfam, int *const mine[],
                           const int counts[], const int largest[], uint64_t hash, const char *desc,
                           sym_team_t out[]);

#endif /* SYM_COLL_TEAM_H */
