/*
 * team_check.h - what the team tests (test_teams_*.c, one test binary)
 * share: checks that a team handle has exactly the expected members and
 * numbering, and that a team really connects them.
 */
#ifndef TESTS_TEAM_CHECK_H
#define TESTS_TEAM_CHECK_H

#include "harness.h"

#define MAXN HARNESS_MAX_PES

/* Check every query of `t` against the global PE list it should have
 * (members[i] = global number of member i), or that this PE is not a
 * member (t must then be SYM_TEAM_INVALID). */
void expect_team(sym_team_t t, const int *members, int size, const char *what);

/* The team really connects its members, in its own numbering: an
 * allreduce of the global numbers and a broadcast from the last member. */
void expect_team_works(sym_team_t t, const int *members, int size, const char *what);

#endif /* TESTS_TEAM_CHECK_H */
