/*
 * team.h - teams: membership, numbering, their mailbox area and state.
 *
 * The mailbox region of every heap is laid out identically:
 *
 *   p2p area     point-to-point links between every pair of PEs
 *   world area   the world team's collective links
 *   team slots   SYMHEAP_TEAM_SLOTS equal areas for split teams
 *
 * A split team takes a slot that is free on every PE of the parent (agreed
 * with an allreduce-AND of each PE's free-slot bitmap over the parent), so
 * two teams that share a PE never share a slot, while disjoint teams may
 * reuse one.  Members free the slot when they destroy the team.
 */
#ifndef SYM_COLL_TEAM_H
#define SYM_COLL_TEAM_H

#include <stdbool.h>
#include <stdint.h>

#include "coll/chan.h"
#include "symheap.h"

#define SYM_TEAM_MAGIC     0x5445414du /* "TEAM" */
#define SYM_TEAM_DEAD      0x44454144u /* destroyed */
#define SYM_TEAM_MAX_SLOTS 64
/* Destroyed teams whose records are kept, so their stale handles are still
 * recognised ("was destroyed"); beyond this the oldest record is reused for
 * the next new team, which keeps memory flat however many teams are made. */
#define SYM_TEAM_QUARANTINE 256

struct sym_team {
    uint32_t magic;
    int slot; /* -1: world */
    int id;   /* for names: 0 world, else a job-unique number */
    char name[24];
    int size;
    int rank;          /* mine */
    int *pe_of;        /* [size] team number -> global PE */
    int *rank_of;      /* [npes] global PE -> team number or -1 */
    double timeout_s;  /* 0: SYMHEAP_TIMEOUT */
    uint64_t coll_seq; /* collectives started on this team */
    struct sym_chan chan;
    /* A failed collective breaks the team: later calls fail at once. */
    sym_status_t broken;
    char broken_msg[512];
    /* Buffers kept between calls (sym_team_scratch). */
    void *scratch[2];
    size_t scratch_size[2];
};

/* World team set-up at init / teardown at finalize. */
sym_status_t sym_teams_init(void);
void sym_teams_fini(void);

/* Validate a handle for `op`: a live team of which this PE is a member. */
sym_status_t sym_team_check(const char *op, sym_team_t team);

/* The private all-PE "team" whose channel carries point-to-point messages
 * (its own area and link counters, never in the registry). */
struct sym_team *sym_p2p_team(void);

/* Free messages queued by point-to-point receives (p2p.c). */
void sym_p2p_fini(void);

/* A buffer of at least `bytes`, owned by the team and kept between calls:
 * large buffers malloc'ed per call come back as fresh pages, and faulting
 * them in dominated 32-64 MiB reductions (bench/RESULTS_coll.md).  Slot 0
 * is for the public wrappers, slot 1 for the algorithms; a slot's buffer is
 * valid until the next call for that slot on this team (calls on one team
 * never overlap).  NULL if out of memory. */
void *sym_team_scratch(struct sym_team *team, int slot, size_t bytes);

/* Record that a collective on `team` failed: the team is broken. */
void sym_team_break(struct sym_team *team, sym_status_t status, const char *msg);

#endif /* SYM_COLL_TEAM_H */
