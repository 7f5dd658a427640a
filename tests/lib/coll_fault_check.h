/*
 * coll_fault_check.h - what the tests of failing collectives
 * (test_coll_faults_*.c, one test binary) share: checks of an error
 * message, of a survivor's view of a killed PE, a team to break safely and
 * a check that the world still works.
 */
#ifndef TESTS_COLL_FAULT_CHECK_H
#define TESTS_COLL_FAULT_CHECK_H

#include "harness.h"

#define SENTINEL 0x5A

void sleep_s(double s);

/* Fail the PE unless `haystack` contains `needle`. */
void contains_at(const char *file, int line, const char *haystack, const char *needle);
#define CONTAINS(h, n) contains_at(__FILE__, __LINE__, (h), (n))

/* A survivor's view of a killed PE: call #calls of `op` returned PEER_LOST
 * with a message naming the victim and the call. */
void lost_at(const char *file, int line, sym_status_t st, const char *op, int calls, int victim);
#define EXPECT_LOST(st, op, calls, victim)                                                         \
    lost_at(__FILE__, __LINE__, (st), (op), (calls), (victim))

/* A team of every PE that is not the world, so breaking it is harmless. */
sym_team_t whole_split(void);

/* The world still works: an allreduce with a checked result. */
void world_still_works(void);

#endif /* TESTS_COLL_FAULT_CHECK_H */
