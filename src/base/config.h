/*
 * config.h - the SYMHEAP_* settings as one struct, generated from
 * config_table.h, and their parser.  Base layer: knows nothing above it.
 */
#ifndef SYM_BASE_CONFIG_H
#define SYM_BASE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "base/config_table.h"
#include "base/fault.h"
#include "symheap.h"

typedef struct sym_cfg_choice {
    char s[16];
} sym_cfg_choice_t;

typedef struct sym_cfg_string {
    char s[256];
} sym_cfg_string_t;

struct sym_config {
#define SYM_CFG_FIELD_SIZE                            size_t
#define SYM_CFG_FIELD_SECONDS                         double
#define SYM_CFG_FIELD_BOOL                            bool
#define SYM_CFG_FIELD_UINT                            unsigned long
#define SYM_CFG_FIELD_CHOICE                          sym_cfg_choice_t
#define SYM_CFG_FIELD_FAULT                           struct sym_fault_spec
#define SYM_CFG_FIELD_STRING                          sym_cfg_string_t
#define SYM_CFG_FIELD_SECRET                          sym_cfg_string_t
#define SYM_CFG_FIELD_(field, name, type, dflt, help) SYM_CFG_FIELD_##type field;
    SYM_CONFIG_TABLE(SYM_CFG_FIELD_)
#undef SYM_CFG_FIELD_
    /* Which variables the environment set (the others hold their default). */
    struct {
#define SYM_CFG_SET_(field, name, type, dflt, help) bool field;
        SYM_CONFIG_TABLE(SYM_CFG_SET_)
#undef SYM_CFG_SET_
    } set;
};

/* Read every variable of the table from the environment (unset: default).
 * A malformed value fails with SYM_ERR_CONFIG naming the variable and value. */
sym_status_t sym_config_load(struct sym_config *cfg);
/* SYMHEAP_OFI_MR_FORCE's words: on success 0 and *words_p has bit k set for
 * word k of none, local, prov_key, endpoint, allocated, all, virt_addr; on an unknown
 * word -1 and *words_p is that word's offset in text. */
int sym_config_mr_force_words(const char *text, unsigned *words_p);

/* Parse "123", "64K", "1.5G"... into bytes.  0 on success, -1 on garbage or
 * overflow.  Exposed for tests and fuzzing. */
int sym_config_parse_size(const char *text, size_t *bytes_p);

/* Print the table (name, type, default, value in force, help) to `out`,
 * each column as wide as its longest entry. */
void sym_config_print(FILE *out, const struct sym_config *cfg);

/* Whether SYMHEAP_QUIET is set to a true value and SYMHEAP_DEBUG is not
 * (debugging shows everything), each read on its own, so that it holds
 * even when another variable is malformed. */
bool sym_config_quiet(void);

/* The variable of the table whose name is closest to name[0..len) (a
 * typo, a name cut short), or NULL when none is close. */
const char *sym_config_closest(const char *name, size_t len);

/* Call fn (if not NULL) for every SYMHEAP_* variable of the environment
 * that is neither a setting of the table nor a name of the programs
 * around the library (SYM_CONFIG_NOT_SETTINGS), with the closest setting
 * (or NULL); returns how many there are. */
int sym_config_each_unknown(void (*fn)(const char *name, size_t len, const char *closest,
                                       void *arg),
                            void *arg);

/* One warning line per such variable on `out`; returns how many. */
int sym_config_warn_unknown(FILE *out);

#endif /* SYM_BASE_CONFIG_H */
