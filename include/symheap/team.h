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
 * until it is recovered (sym_team_recover) or destroyed.  A member that gives
 * up (a timeout) or finds a mismatch tells every member, so the team breaks
 * on all of them: a PE that arrives late, after the others gave up, gets
 * their error instead of succeeding alone.
 *
 * Memory.  There is no fixed number of teams.  Each split team takes an area
 * of every member's heap, from the team region at the heap's end
 * (SYMHEAP_TEAM_REGION_SIZE, default 128 MiB of address space; its memory
 * is used only by the areas teams hold, taken when a team is made and given
 * back when it is destroyed).  A team of n members takes, in each member's
 * heap, SYMHEAP_TEAM_AREA_SIZE bytes (default 64 KiB) whatever n is, and
 * more only when n members do not fit in it: then about 384 bytes per
 * member plus 4 KiB, rounded up to 16 KiB.  So up to about 160 members the
 * cost per member is constant (for every algorithm, ring, tree and naive
 * alike); larger teams get smaller mailbox chunks instead of more memory.
 * With the defaults, 2048 teams that all contain one PE fit at once, and
 * teams that share no PE may reuse the same offsets.  A split whose PEs
 * find no common free range fails with SYM_ERR_NO_MEMORY saying how much is
 * in use; the parent stays usable.  sym_team_split_shared, _2d and _mesh
 * cost one area per team a PE belongs to (the teams along one axis share
 * offsets), not one per group.
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
 * (a PE outside the parent, size < 1), SYM_ERR_NO_MEMORY (no room for the
 * team's area in the team region on some PE of the parent: the message
 * says how much is in use; destroy teams or raise
 * SYMHEAP_TEAM_REGION_SIZE; or /dev/shm is full), plus the errors of a
 * collective on the parent. */
SYM_API SYM_NODISCARD sym_status_t sym_team_split_strided(sym_team_t parent, int start, int stride,
                                                          int size, sym_team_t *new_team_p);

/* View the parent as a 2-D grid of rows of `xrange` PEs and make the row
 * (x-axis) and column (y-axis) team of this PE; the parent's size must be
 * a multiple of xrange.  Collective over the parent (every PE passes the
 * same xrange: else SYM_ERR_MISMATCH naming both, the parent stays
 * usable).  Errors: SYM_ERR_INVALID_ARG (xrange < 1, NULL
 * handle, a short last row: the message names xrange and the parent's
 * size), SYM_ERR_NO_MEMORY (no room in the team region), plus the errors
 * of a collective on the parent.  Thread safety: as the other team calls
 * (serialised on the parent). */
SYM_API SYM_NODISCARD sym_status_t sym_team_split_2d(sym_team_t parent, int xrange,
                                                     sym_team_t *xaxis_p, sym_team_t *yaxis_p);

/* sym_team_split_2d, but the last row may be short (OpenSHMEM's
 * shmem_team_split_2d): its PEs get a shorter x-axis team, and the columns
 * past it are one PE shorter.  An xrange above the parent's size is taken
 * as the size.  Errors and thread safety as sym_team_split_2d. */
SYM_API SYM_NODISCARD sym_status_t sym_team_split_2d_ragged(sym_team_t parent, int xrange,
                                                            sym_team_t *xaxis_p,
                                                            sym_team_t *yaxis_p);

/* Most dimensions of sym_team_split_mesh. */
#define SYM_MESH_MAX_DIMS 8

/* View the parent as an N-D mesh of the given shape and make, for each
 * dimension d, the team of this PE along d: teams_out[d] holds the shape[d]
 * PEs whose coordinates equal this PE's except in dimension d, numbered by
 * their coordinate in d.  Layout: row-major, last dimension fastest, as
 * torch's DeviceMesh: the parent's PE r has coordinates c with
 * r = ((c[0] * shape[1] + c[1]) * shape[2] + c[2]) ...; so shape {R, C}
 * makes teams_out[0] the column and teams_out[1] the row of PE r (row
 * r / C, column r % C).  Collective over the parent; every PE passes the
 * same shape (checked: different shapes are SYM_ERR_MISMATCH on every PE
 * naming both, and the parent stays usable).  Costs one team area per
 * dimension in each PE's heap.  Errors: SYM_ERR_INVALID_ARG (NULL shape or
 * teams_out, ndims outside 1..SYM_MESH_MAX_DIMS, a dimension < 1, a shape
 * whose product is not the parent's size: the message names both),
 * SYM_ERR_NO_MEMORY (no room in the team region), plus the errors of a
 * collective on the parent; on any failure every teams_out[d] is
 * SYM_TEAM_INVALID.  Thread safety: as the other team calls. */
SYM_API SYM_NODISCARD sym_status_t sym_team_split_mesh(sym_team_t parent, int ndims,
                                                       const int *shape, sym_team_t *teams_out);

/* Make a team from an explicit list of parent PE numbers (new local number i
 * = members[i]); every parent PE passes the same list (checked: different
 * lists are SYM_ERR_MISMATCH on every PE, the message naming this PE's
 * list and another PE's, and the parent stays usable).  Collective over the
 * parent; non-members get SYM_TEAM_INVALID. */
SYM_API SYM_NODISCARD sym_status_t sym_team_create(sym_team_t parent, const int *members,
                                                   int nmembers, sym_team_t *new_team_p);

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
SYM_API SYM_NODISCARD sym_status_t sym_team_split_shared(sym_team_t parent, sym_team_t *new_team_p);

/* Fill global_pes[0 .. n-1] with the global PE number of each member. */
SYM_API SYM_NODISCARD sym_status_t sym_team_members(sym_team_t team, int *global_pes);

/* Global PE number -> this team's number (-1 if not a member), and back
 * (-1 if out of range). */
SYM_API int sym_team_global_to_local(sym_team_t team, int global_pe);
SYM_API int sym_team_local_to_global(sym_team_t team, int local_pe);

/* Number of PE `src_pe` of `src_team` in `dest_team`, or -1. */
SYM_API int sym_team_translate_pe(sym_team_t src_team, int src_pe, sym_team_t dest_team);

/* Default deadline of collectives on this team: seconds > 0, at most
 * SYM_TIMEOUT_MAX (one day).  The world team's also bounds point-to-point
 * calls given no timeout of their own.  Errors: SYM_ERR_INVALID_ARG (not a
 * finite number, not positive, too long), SYM_ERR_NOT_INITIALIZED.  Thread
 * safety: serialised with the team's collectives. */
SYM_API SYM_NODISCARD sym_status_t sym_team_set_timeout(sym_team_t team, double seconds);

/* SYMHEAP_TIMEOUT's default: a team's timeout until sym_team_set_timeout. */
#define SYM_DEFAULT_TIMEOUT_S 60.0

/* The timeout in force on `team` into *seconds_p: what sym_team_set_timeout
 * set (a split team starts with its parent's), else SYMHEAP_TIMEOUT
 * (default SYM_DEFAULT_TIMEOUT_S).  Errors: SYM_ERR_INVALID_ARG (bad or
 * destroyed team, NULL seconds_p), SYM_ERR_NOT_INITIALIZED.  Thread safety:
 * as the other team queries (sym_team_n_pes). */
SYM_API SYM_NODISCARD sym_status_t sym_team_get_timeout(sym_team_t team, double *seconds_p);

/* Release a team and give its area back.  Collective over its members (a
 * barrier on the team first, so no member still uses it, then a wait until
 * every member took what this PE sent on it).  The world team cannot be
 * destroyed.  A broken team is destroyed at once, without the barrier and
 * without waiting for any member (the others were told of the error that
 * broke it).  Returns the error of a collective on the team that failed on
 * another member after this PE returned from it (SYM_ERR_MISMATCH naming
 * the calls), if any. */
SYM_API SYM_NODISCARD sym_status_t sym_team_destroy(sym_team_t team);

/* Start a new epoch on a team, broken or not: every member's mailboxes are
 * drained and cleared, link counts and sequence numbers restart, and the
 * team is no longer broken.  Collective over the team: every member calls
 * it once it has returned from its own calls on the team (after the error
 * they all saw: a broken team breaks on every member), and it returns when
 * all have.  Works on the world team and on split teams alike.  A member
 * that never calls (dead, or stuck elsewhere) makes it fail after the
 * team's timeout with SYM_ERR_TIMEOUT (or SYM_ERR_PEER_LOST) naming that
 * PE; the team then stays broken (destroy it; the world team stays broken
 * for the rest of the job).  Pending non-blocking calls on the team are
 * finished first (with the team's error).  Thread safety: as collectives
 * on the team. */
SYM_API SYM_NODISCARD sym_status_t sym_team_recover(sym_team_t team);

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
SYM_API SYM_NODISCARD sym_status_t sym_team_sync(sym_team_t team);

#ifdef __cplusplus
}
#endif

#endif /* SYMHEAP_TEAM_H */
