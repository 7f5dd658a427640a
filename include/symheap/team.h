/*
 * symheap/team.h - teams: ordered subsets of the job's PEs with their own
 * numbering, mailboxes and sequence of collective calls.
 *
 * Part of the public API: programs include <symheap.h>, which includes
 * every part and states the conventions all of them follow (status codes,
 * symmetric addresses, initialisation, deadlines, thread safety).
 */
#ifndef SYMHEAP_TEAM_H
#define SYMHEAP_TEAM_H

#include "status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------------ */
/* Teams                                                                     */
/* ------------------------------------------------------------------------ */
/*
 * A team is an ordered subset of the job's PEs with its own numbering
 * (0 .. n-1, "local" PE numbers), its own mailbox space and its own sequence
 * of collective calls, so collectives on disjoint teams run concurrently
 * without interfering.  Handles stay valid until sym_team_destroy(); using a
 * destroyed handle is SYM_ERR_INVALID_ARG ("team ... was destroyed"), never a
 * crash.  (The records of the 256 most recently destroyed teams are kept for
 * this; an older one is reused for a new team, so memory stays flat however
 * many teams are made, and a handle kept that long past its destruction may
 * name the new team.)  A team whose collective failed (timeout, mismatch, lost PE) is
 * broken: every later collective on it fails at once with the original error
 * until it is destroyed.
 */
typedef struct sym_team *sym_team_t;
#define SYM_TEAM_INVALID ((sym_team_t)0)

/* The team of all PEs (local numbers = global numbers); SYM_TEAM_INVALID
 * before sym_init(). */
SYM_API sym_team_t sym_team_world(void);

/* This PE's number in `team`, its size; -1 for an invalid or destroyed team. */
SYM_API int sym_team_my_pe(sym_team_t team);
SYM_API int sym_team_n_pes(sym_team_t team);

/* Printable name ("world", "team 3"); "invalid" for a bad handle. */
SYM_API const char *sym_team_name(sym_team_t team);

/* Make a team of the parent's PEs start, start + stride, ... (size PEs, in
 * parent numbering; stride may be negative but not 0 unless size is 1).
 * Collective over every PE of the parent.  Members get the new handle in
 * *new_team_p, non-members SYM_TEAM_INVALID (as does every failure, here and
 * in sym_team_split_2d and sym_team_create).  Errors: SYM_ERR_INVALID_ARG
 * (a PE outside the parent, size < 1), SYM_ERR_NO_MEMORY (no free team
 * mailbox: the message says how many are in use; raise
 * SYMHEAP_MAILBOX_SIZE/SYMHEAP_TEAM_SLOTS or destroy teams), plus the errors
 * of a collective on the parent. */
SYM_API sym_status_t sym_team_split_strided(sym_team_t parent, int start, int stride, int size,
                                            sym_team_t *new_team_p);

/* View the parent as a 2-D grid of rows of `xrange` PEs (the last row may be
 * short) and make the row (x-axis) and column (y-axis) team of this PE.
 * Collective over the parent. */
SYM_API sym_status_t sym_team_split_2d(sym_team_t parent, int xrange, sym_team_t *xaxis_p,
                                       sym_team_t *yaxis_p);

/* Make a team from an explicit list of parent PE numbers (new local number i
 * = members[i]); every parent PE passes the same list (checked).  Collective
 * over the parent; non-members get SYM_TEAM_INVALID. */
SYM_API sym_status_t sym_team_create(sym_team_t parent, const int *members, int nmembers,
                                     sym_team_t *new_team_p);

/* Make the team of the parent's PEs that share memory with this PE: those
 * on its host whose heaps it maps (sym_ptr() gives a pointer to their
 * objects), in parent order; OpenSHMEM's SHMEM_TEAM_SHARED when the parent
 * is the world.  A PE reached only through libfabric (another host, or
 * SYMHEAP_TRANSPORT=ofi) is in a group of its own.  Collective over the
 * parent; every member gets the team of its group (each PE is in exactly
 * one).  Errors: SYM_ERR_INVALID_ARG (bad parent, NULL new_team_p), those
 * of sym_team_create(), plus the errors of a collective on the parent;
 * *new_team_p is SYM_TEAM_INVALID after any failure.  Thread safety: as
 * the other team calls (serialised on the parent). */
SYM_API sym_status_t sym_team_split_shared(sym_team_t parent, sym_team_t *new_team_p);

/* Fill global_pes[0 .. n-1] with the global PE number of each member. */
SYM_API sym_status_t sym_team_members(sym_team_t team, int *global_pes);

/* Global PE number -> this team's number (-1 if not a member), and back
 * (-1 if out of range). */
SYM_API int sym_team_global_to_local(sym_team_t team, int global_pe);
SYM_API int sym_team_local_to_global(sym_team_t team, int local_pe);

/* Number of PE `src_pe` of `src_team` in `dest_team`, or -1. */
SYM_API int sym_team_translate_pe(sym_team_t src_team, int src_pe, sym_team_t dest_team);

/* Default deadline of collectives on this team (seconds > 0). */
SYM_API sym_status_t sym_team_set_timeout(sym_team_t team, double seconds);

/* Release a team.  Collective over its members (a barrier on the team
 * first, so no member still uses it, then a wait until every member took
 * what this PE sent on it).  The world team cannot be destroyed.  A broken
 * team can be destroyed (without the barrier).  Returns the error of a
 * collective on the team that failed on another member after this PE
 * returned from it (SYM_ERR_MISMATCH naming the calls), if any. */
SYM_API sym_status_t sym_team_destroy(sym_team_t team);

/* Wait until everything this PE sent on the team has been consumed by its
 * receivers and every member has finished every collective this PE has made
 * on the team, then return the team's state: SYM_OK, or the error that
 * broke it.  A collective returns once this PE's data is in its receivers'
 * mailbox slots (symheap/coll.h), so a PE that only sent in a mismatched
 * call may have returned SYM_OK from it; this call reports that mismatch
 * (SYM_ERR_MISMATCH naming both calls).  Not collective: the other members
 * need not call it, only finish their calls.  Non-blocking collectives
 * pending on the team run first.  Deadline: the team's timeout
 * (sym_team_set_timeout, else SYMHEAP_TIMEOUT).  Errors: SYM_ERR_INVALID_ARG
 * (bad or destroyed team), SYM_ERR_MISMATCH, SYM_ERR_TIMEOUT (names the
 * members not finished), SYM_ERR_PEER_LOST, SYM_ERR_ABORTED, and the team's
 * earlier error once it is broken.  Thread safety: as a collective on the
 * team (serialised with the team's other calls). */
SYM_API sym_status_t sym_team_sync(sym_team_t team);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_TEAM_H */
