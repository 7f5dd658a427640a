/*
 * team_shared.c - sym_team_split_shared(): the members of a team that
 * share memory with each other (one host, heaps mapped into each other's
 * address space), as OpenSHMEM's SHMEM_TEAM_SHARED.
 *
 * Each member names its group by its leader: the lowest parent member
 * whose heap it maps (itself if none).  The leaders are gathered over the
 * parent, so every member knows every group, and each group becomes a team
 * made collectively over the parent, in the order of the leaders.
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
        if (r == me || sym_rt.peer_base[parent->pe_of[r]]) {
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
    bool one_group = true;
    for (int r = 0; r < n; r++)
        one_group = one_group && leaders[r] == leaders[0];
    if (one_group) {
        st = sym_team_split_strided(parent, 0, 1, n, new_team_p);
        goto out;
    }
    for (int l = 0; l < n && st == SYM_OK; l++) {
        int k = 0;
        for (int r = 0; r < n; r++)
            if (leaders[r] == l)
                members[k++] = r;
        if (k == 0)
            continue;
        sym_team_t t = SYM_TEAM_INVALID;
        st = sym_team_create(parent, members, k, &t);
        if (t != SYM_TEAM_INVALID)
            *new_team_p = t;
    }
    if (st != SYM_OK && *new_team_p != SYM_TEAM_INVALID) {
        /* A later group failed: release mine (its members all made it),
         * keeping the first error's message. */
        char msg[1024];
        snprintf(msg, sizeof msg, "%s", sym_last_error());
        sym_team_destroy(*new_team_p);
        *new_team_p = SYM_TEAM_INVALID;
        sym_error(st, "%s", msg);
    }
out:
    free(leaders);
    free(members);
    return st;
}
