/*
 * pshmem.h - the OpenSHMEM profiling interface of symheap.
 *
 * Every routine of shmem.h is also defined as pshmem_NAME (deprecated names
 * without the prefix as pNAME: pstart_pes, p_my_pe, pshmalloc, ...), and
 * the library's shmem_NAME is a weak alias of it.  A tool defines its own
 * shmem_NAME (in the program, or in a library linked or preloaded before
 * symheap): the program's calls reach the tool's routine, which calls
 * pshmem_NAME to do the work.
 *
 * pshmem_NAME behaves exactly as shmem_NAME (see shmem.h for what each does,
 * its errors and its thread safety).  The C11 type-generic selections exist
 * for the shmem_ names only; pshmem_sync takes the team form or the
 * active-set form as shmem_sync does.
 */
#ifndef SYMHEAP_PSHMEM_H
#define SYMHEAP_PSHMEM_H

#include <shmem.h>

#ifdef __cplusplus
extern "C" {
#endif

#undef SYMSHMEM_FN_
#undef SYMSHMEM_FNX_
#define SYMSHMEM_FN_(name)  pshmem##name
#define SYMSHMEM_FNX_(name) p##name
#include "symheap/shmem_routines.h"

#ifndef __cplusplus
#define pshmem_sync(...)                                                                           \
    SYMSHMEM_SYNC_PICK_(__VA_ARGS__, pshmem_sync, pshmem_sync, pshmem_sync, pshmem_team_sync, 0)   \
    (__VA_ARGS__)
#endif

#ifdef __cplusplus
}
static inline int pshmem_sync(shmem_team_t _team)
{
    return pshmem_team_sync(_team);
}
#endif

#endif /* SYMHEAP_PSHMEM_H */
