/*
 * team_shared.c - sym_team_split_shared(): the members of a team that
 * share memory with each other (one host, heaps mapped into each other's
 * address space), as OpenSHMEM's SHMEM_TEAM_SHARED.
 *
 * Each member names its group by its leader: the lowest parent member
 * whose heap it maps (itself if none).  The leaders are gathered over the
 * parent, so every member knows every group, and all groups become teams
 * in one split over the parent.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "coll/team.h"
#include "core/internal.h"

SYM_API sym_status_t sym_team_split_shared(sym_team_t parent, sym_team_t *new_team_p)
{
    const char *op = "sym_team_split_shared";
    if (new_team_p)
        *new_team_p = SYM_TEAM_INVALID;
    sym_status_t st = sym_team_check(op, parent);
    if (st != SYM_OK)
        return st;
    if (!new_team_p)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: new_team_p is NULL", op);
    const int n = parent->size, me = parent->rank;
    int32_t leader = me;
    for (int r = 0; r < n; r++)
        if (r == me || sym_pe_direct(parent->pe_of[r])) {
            leader = r;
            break;
        }
    int32_t *leaders = malloc((size_t)n * sizeof *leaders);
    int *members = malloc((size_t)n * sizeof *members);
    if (!leaders || !members) {
        st =
            sym_error(SYM_ERR_NO_MEMORY, "%s: no memory for %d members of %s", op, n, parent->name);
        goto out;
    }
    st = sym_all_gather(parent, leaders, &leader, 1, SYM_INT32, NULL);
    if (st != SYM_OK)
        goto out;
    /* One family of disjoint teams: every group in one split, sharing one
     * area offset, so the split costs each PE one area. */
    int k = 0, largest = 0;
    for (int r = 0; r < n; r++)
        if (leaders[r] == leader)
            members[k++] = r;
    for (int l = 0; l < n; l++) {
        int size = 0;
        for (int r = 0; r < n; r++)
            size += leaders[r] == l;
        if (size > largest)
            largest = size;
    }
    int *mine[1] = {members};
    int counts[1] = {k}, big[1] = {largest};
    /* the leaders were gathered: every PE holds the same groups */
    st = sym_team_make(op, parent, 1, mine, counts, big, 0, "its host's group", new_team_p);
out:
    free(leaders);
    free(members);
    return st;
}
