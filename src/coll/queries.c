/*
 * queries.c - small public queries over what the collectives use: the
 * timeout in force on a team and the balanced partition of a vector.
 */
#include "coll/coll.h"
#include "coll/team.h"

SYM_API sym_status_t sym_team_get_timeout(sym_team_t team, double *seconds_p)
{
    sym_status_t st = sym_team_check("sym_team_get_timeout", team);
    if (st != SYM_OK)
        return st;
    if (!seconds_p)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_team_get_timeout: seconds_p is NULL");
    /* 0 on the team means "SYMHEAP_TIMEOUT", which the deadlines resolve */
    *seconds_p = team->timeout_s > 0 ? team->timeout_s : sym_wait_timeout();
    return SYM_OK;
}

SYM_API size_t sym_block_count(size_t total, int nparts, int part)
{
    if (nparts < 1 || part < 0 || part >= nparts)
        return 0;
    return total / (size_t)nparts + ((size_t)part < total % (size_t)nparts);
}

SYM_API size_t sym_block_start(size_t total, int nparts, int part)
{
    if (nparts < 1 || part < 0 || part > nparts)
        return 0;
    size_t q = total / (size_t)nparts, r = total % (size_t)nparts;
    return (size_t)part * q + ((size_t)part < r ? (size_t)part : r);
}
