/* config_cases.h - what the configuration tests share (test_config.c,
 * test_config_info.c): every variable of every table, and a malformed
 * value of each. */
#ifndef TEST_CONFIG_CASES_H
#define TEST_CONFIG_CASES_H

#include <stddef.h>

#include "symheap.h"

/* Every variable of every table (the job's, then each transport class's),
 * in table order: names and defaults (filled before any test runs). */
extern const char *table_names[];
extern const char *table_defaults[];
extern size_t nvars;
#define NVARS nvars

struct env_case {
    const char *var;
    const char *value;
    sym_status_t expect;
    const char *good; /* a valid value for the retry */
};

/* A malformed value (or, where noted, an unavailable one) of every
 * variable the environment of a job may set. */
extern const struct env_case bad_env[];
extern const size_t nbad;
#define NBAD nbad

/* Unset every SYMHEAP_* variable of the tables in this process. */
void clear_symheap_env(void);

#endif /* TEST_CONFIG_CASES_H */
