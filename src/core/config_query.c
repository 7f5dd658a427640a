/*
 * config_query.c - sym_config_uint(): the value in force of a numeric
 * SYMHEAP_* setting, so that layers above the public API (the shmem.h
 * facade's one-copy threshold, its debug log) follow the same variables,
 * parsed once by sym_init, as the library itself.
 */
#include <string.h>

#include "core/internal.h"

#define CFGQ_SIZE(field) return (*value_p = (uint64_t)sym_rt.cfg.field, SYM_OK);
#define CFGQ_UINT(field) return (*value_p = (uint64_t)sym_rt.cfg.field, SYM_OK);
#define CFGQ_BOOL(field) return (*value_p = sym_rt.cfg.field ? 1u : 0u, SYM_OK);
#define CFGQ_NOT_(what)                                                                            \
    return sym_error(SYM_ERR_INVALID_ARG, "%s: %s is %s, not a whole number", op, name, what);
#define CFGQ_SECONDS(field) CFGQ_NOT_("a number of seconds")
#define CFGQ_CHOICE(field)  CFGQ_NOT_("a choice of words")
#define CFGQ_STRING(field)  CFGQ_NOT_("text")
#define CFGQ_SECRET(field)  CFGQ_NOT_("a secret")
#define CFGQ_FAULT(field)   CFGQ_NOT_("a fault-injection spec")

SYM_API sym_status_t sym_config_uint(const char *name, uint64_t *value_p)
{
    const char *op = "sym_config_uint";
    sym_status_t st = sym_check_init(op);
    if (st != SYM_OK)
        return st;
    if (!name || !value_p)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %s is NULL", op, name ? "value_p" : "name");
#define CFGQ_(field, var, type, dflt, help)                                                        \
    if (strcmp(name, var) == 0) {                                                                  \
        CFGQ_##type(field)                                                                         \
    }
    SYM_CONFIG_TABLE(CFGQ_)
#undef CFGQ_
    return sym_error(SYM_ERR_INVALID_ARG, "%s: no setting is named \"%s\" (see symheap-info)", op,
                     name);
}
