/*
 * config_query.c - sym_config_uint(): the value in force of a numeric
 * SYMHEAP_* setting, the job's or a transport's, so that layers above the
 * public API (the shmem.h facade's debug log) follow the same variables,
 * parsed once by sym_init, as the library itself.
 */
#include "core/internal.h"

SYM_API sym_status_t sym_config_uint(const char *name, uint64_t *value_p)
{
    const char *op = "sym_config_uint";
    sym_status_t st = sym_check_init(op);
    if (st != SYM_OK)
        return st;
    if (!name || !value_p)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %s is NULL", op, name ? "value_p" : "name");
    const char *kind = "";
    int r = sym_config_table_uint(&sym_config_job_table, &sym_rt.cfg, name, value_p, &kind);
    for (size_t k = 0; r == 0 && k < sym_transport_nclasses; k++)
        if (sym_transport_classes[k]->settings && sym_rt.tp_settings[k])
            r = sym_config_table_uint(sym_transport_classes[k]->settings, sym_rt.tp_settings[k],
                                      name, value_p, &kind);
    if (r > 0)
        return SYM_OK;
    if (r < 0)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %s is %s, not a whole number", op, name, kind);
    return sym_error(SYM_ERR_INVALID_ARG, "%s: no setting is named \"%s\" (see symheap-info)", op,
                     name);
}
