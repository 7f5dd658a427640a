/*
 * onecopy.h - one-copy paths of the OpenSHMEM team collectives
 * (onecopy.c).  Not installed.
 *
 * Each returns 0 (done), -1 (failed: the error is recorded, the same on
 * every member), or SYMSHMEM_ONECOPY_DECLINED when the call is to take the
 * mailbox path instead (too small, one member, dest not the same symmetric
 * object everywhere): then every member declines alike and nothing was
 * written.  Thread safety: as the native collectives (calls on one team
 * serialised).
 */
#ifndef SYMSHMEM_ONECOPY_H
#define SYMSHMEM_ONECOPY_H

#include <stddef.h>

#include "shmem_internal.h"

#define SYMSHMEM_ONECOPY_DECLINED 1

int symshmem_onecopy_broadcast(sym_team_t t, void *dest, const void *source, size_t nelems,
                               size_t esz, int root);
int symshmem_onecopy_fcollect(sym_team_t t, void *dest, const void *source, size_t nelems,
                              size_t esz);
/* collect always exchanges the counts first (the mailbox path needs them
 * too), so it declines only for a team of one; below the threshold it runs
 * the mailbox all_gatherv itself. */
int symshmem_onecopy_collect(sym_team_t t, void *dest, const void *source, size_t nelems,
                             size_t esz);
int symshmem_onecopy_alltoall(sym_team_t t, void *dest, const void *source, size_t nelems,
                              size_t esz);
int symshmem_onecopy_alltoalls(sym_team_t t, void *dest, const void *source, ptrdiff_t dst,
                               ptrdiff_t sst, size_t nelems, size_t esz);

#endif /* SYMSHMEM_ONECOPY_H */
