/*
 * config.h - SYMHEAP_* settings as tables of typed variables, and their
 * parser.  The job's settings (config_table.h) are struct sym_config; each
 * transport's own are a table of the same form in its folder.  Base layer:
 * knows nothing above it.
 *
 * Threads: a table is loaded once (sym_init, symheap-info) into a struct
 * its owner keeps; loading and printing touch nothing else.
 */
#ifndef SYM_BASE_CONFIG_H
#define SYM_BASE_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "base/config_table.h"
#include "base/fault.h"
#include "symheap.h"

enum sym_cfg_type {
    SYM_CFG_SIZE,
    SYM_CFG_SECONDS,
    SYM_CFG_BOOL,
    SYM_CFG_UINT,
    SYM_CFG_CHOICE,
    SYM_CFG_FAULT,
    SYM_CFG_STRING,
    SYM_CFG_SECRET,
};

/* A CHOICE: the index of the word among the help text's {a|b|c} (compare
 * it with the enums below), and the word itself, for messages. */
typedef struct sym_cfg_choice {
    unsigned v;
    char s[16];
} sym_cfg_choice_t;

typedef struct sym_cfg_string {
    char s[256];
} sym_cfg_string_t;

/* One variable of a table. */
struct sym_cfg_var {
    const char *name; /* SYMHEAP_... */
    enum sym_cfg_type type;
    const char *dflt;
    unsigned long long min, max; /* config_table.h: the range a set value must lie in */
    const char *help;
    size_t off;     /* of the value in the table's struct */
    size_t set_off; /* of its bool "the environment set it" */
};

/* A table: its variables and the struct they load into. */
struct sym_cfg_table {
    const char *name; /* "job", or the transport's name */
    const struct sym_cfg_var *vars;
    size_t nvars;
    size_t size; /* of the struct */
    /* What the columns cannot say (relations between variables, formats),
     * run once every variable loaded; records the error.  NULL: none. */
    sym_status_t (*check)(const void *values);
};

/* The field types of a table's struct, and its X-macro helpers: a table
 * TABLE of X(field, NAME, type, default, min, max, help) entries gives
 *   struct s { SYM_CFG_FIELDS(TABLE) };
 *   #define SYM_CFG_STRUCT_ struct s
 *   static const struct sym_cfg_var vars[] = {TABLE(SYM_CFG_VAR_)};
 *   #undef SYM_CFG_STRUCT_ */
#define SYM_CFG_FIELD_SIZE                                      size_t
#define SYM_CFG_FIELD_SECONDS                                   double
#define SYM_CFG_FIELD_BOOL                                      bool
#define SYM_CFG_FIELD_UINT                                      unsigned long
#define SYM_CFG_FIELD_CHOICE                                    sym_cfg_choice_t
#define SYM_CFG_FIELD_FAULT                                     struct sym_fault_spec
#define SYM_CFG_FIELD_STRING                                    sym_cfg_string_t
#define SYM_CFG_FIELD_SECRET                                    sym_cfg_string_t
#define SYM_CFG_FIELD_(field, name, type, dflt, min, max, help) SYM_CFG_FIELD_##type field;
#define SYM_CFG_SET_(field, name, type, dflt, min, max, help)   bool field;
/* Which variables the environment set (the others hold their default). */
#define SYM_CFG_FIELDS(TABLE)                                                                      \
    TABLE(SYM_CFG_FIELD_)                                                                          \
    struct {                                                                                       \
        TABLE(SYM_CFG_SET_)                                                                        \
    } set;
#define SYM_CFG_VAR_(field, name, type, dflt, min, max, help)                                      \
    {name,                                                                                         \
     SYM_CFG_##type,                                                                               \
     dflt,                                                                                         \
     min,                                                                                          \
     max,                                                                                          \
     help,                                                                                         \
     offsetof(SYM_CFG_STRUCT_, field),                                                             \
     offsetof(SYM_CFG_STRUCT_, set.field)},

/* The job's settings (config_table.h). */
struct sym_config {
    SYM_CFG_FIELDS(SYM_CONFIG_TABLE)
};
extern const struct sym_cfg_table sym_config_job_table;

/* The CHOICE words as loaded, in the order of their help text's {a|b|c}
 * (test_config checks each against its word). */
enum sym_cfg_transport { SYM_CFG_TRANSPORT_AUTO }; /* else a transport: by its word */
enum sym_cfg_globals {
    SYM_CFG_GLOBALS_AUTO,
    SYM_CFG_GLOBALS_REMAP,
    SYM_CFG_GLOBALS_CMA,
    SYM_CFG_GLOBALS_OFF,
};
enum sym_cfg_bootstrap {
    SYM_CFG_BOOTSTRAP_AUTO,
    SYM_CFG_BOOTSTRAP_PMIX,
    SYM_CFG_BOOTSTRAP_SYMRUN,
    SYM_CFG_BOOTSTRAP_TCP,
    SYM_CFG_BOOTSTRAP_SINGLETON,
};
enum sym_cfg_cma { SYM_CFG_CMA_AUTO, SYM_CFG_CMA_ON, SYM_CFG_CMA_OFF };
enum sym_cfg_coll_check { SYM_CFG_COLL_CHECK_OFF, SYM_CFG_COLL_CHECK_STRICT };
/* The collectives' *_ALGORITHM words are sym_algorithm_t's names
 * (src/coll/coll_list.h), matched there. */

/* Read every variable of table t from the environment (unset: default)
 * into `values` (t->size bytes), then run t's check.  A malformed value,
 * one out of its range, or a failed check: SYM_ERR_CONFIG naming the
 * variable and value (`values` is left as it was). */
sym_status_t sym_config_load_table(const struct sym_cfg_table *t, void *values);
/* The job's table: sym_config_load_table(&sym_config_job_table, cfg). */
sym_status_t sym_config_load(struct sym_config *cfg);

/* The value in force of variable `name` of table t as a whole number into
 * *value_p: 1; 0: t has no such variable; -1: it has, but it is not a
 * whole number (*kind_p says what it is: "a number of seconds", ...). */
int sym_config_table_uint(const struct sym_cfg_table *t, const void *values, const char *name,
                          uint64_t *value_p, const char **kind_p);

/* The index of `word` among variable `name`'s CHOICE words, or -1 (no
 * such word, or no such CHOICE variable in t). */
int sym_config_choice_index(const struct sym_cfg_table *t, const char *name, const char *word);

/* Parse "123", "64K", "1.5G"... into bytes.  0 on success, -1 on garbage or
 * overflow.  Exposed for tests and fuzzing. */
int sym_config_parse_size(const char *text, size_t *bytes_p);

/* Print table t (name, type, default, value in force, help) to `out`,
 * each column as wide as its longest entry. */
void sym_config_print_table(FILE *out, const struct sym_cfg_table *t, const void *values);
void sym_config_print(FILE *out, const struct sym_config *cfg);

/* Whether SYMHEAP_QUIET is set to a true value and SYMHEAP_DEBUG is not
 * (debugging shows everything), each read on its own, so that it holds
 * even when another variable is malformed. */
bool sym_config_quiet(void);

/* The tables whose variables are symheap's besides the job's: every
 * transport's, built into this symheap or not (transport.h's
 * sym_transport_settings), for the checks of unknown variables below. */
struct sym_cfg_others {
    const struct sym_cfg_table *const *tables;
    size_t n;
};

/* The variable of the job's table or of `others` whose name is closest to
 * name[0..len) (a typo, a name cut short), or NULL when none is close. */
const char *sym_config_closest(struct sym_cfg_others others, const char *name, size_t len);

/* Call fn (if not NULL) for every SYMHEAP_* variable of the environment
 * that is neither a variable of the job's table or of `others` nor a name
 * of the programs around the library (SYM_CONFIG_NOT_SETTINGS), with the
 * closest variable (or NULL); returns how many there are. */
int sym_config_each_unknown(struct sym_cfg_others others,
                            void (*fn)(const char *name, size_t len, const char *closest,
                                       void *arg),
                            void *arg);

/* One warning line per such variable on `out`; returns how many. */
int sym_config_warn_unknown(FILE *out, struct sym_cfg_others others);

#endif /* SYM_BASE_CONFIG_H */
