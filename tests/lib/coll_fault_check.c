/*
 * coll_fault_check.c - the checks of coll_fault_check.h.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "coll_fault_check.h"

void sleep_s(double s)
{
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    nanosleep(&ts, NULL);
}

void contains_at(const char *file, int line, const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        pe_fail(file, line, "strstr", "message \"%s\" does not mention \"%s\"", haystack, needle);
}

/* A survivor's view of a killed PE: call #calls of `op` returned PEER_LOST
 * with a message naming the victim and the call. */
void lost_at(const char *file, int line, sym_status_t st, const char *op, int calls, int victim)
{
    if (st != SYM_ERR_PEER_LOST)
        pe_fail(file, line, "st == SYM_ERR_PEER_LOST", "%s #%d returned %s: %s", op, calls,
                sym_status_name(st), sym_last_error());
    char want[32];
    snprintf(want, sizeof(want), "PE %d", victim);
    contains_at(file, line, sym_last_error(), want);
    contains_at(file, line, sym_last_error(), op);
}

/* A team of every PE that is not the world, so breaking it is harmless. */
sym_team_t whole_split(void)
{
    sym_team_t t;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, sym_n_pes(), &t));
    PE_ASSERT(t != SYM_TEAM_INVALID, "every PE is a member");
    return t;
}

/* The world still works: an allreduce with a checked result. */
void world_still_works(void)
{
    const int n = sym_n_pes(), me = sym_my_pe();
    int64_t v[3] = {me, 2 * me, 1}, out[3];
    PE_OK(sym_allreduce(sym_team_world(), out, v, 3, SYM_INT64, SYM_OP_SUM, NULL));
    const int64_t s = (int64_t)n * (n - 1) / 2;
    PE_ASSERT(out[0] == s && out[1] == 2 * s && out[2] == n, "world allreduce wrong");
}
