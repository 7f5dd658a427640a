/* ofi_settings.c - the ofi transport's SYMHEAP_* variables (ofi_settings.h's
 * OFI_SETTINGS_TABLE) and their checks. */
#include <string.h>

#include "base/error.h"
#include "ofi_settings.h"

int ofi_mr_force_words(const char *text, unsigned *words_p)
{
    static const char *const words[] = {"none",      "local", "prov_key", "endpoint",
                                        "allocated", "all",   "virt_addr"};
    const size_t nwords = sizeof(words) / sizeof(words[0]);
    unsigned set = 0;
    for (const char *w = text; *w;) {
        size_t n = strcspn(w, ","), k = 0;
        while (k < nwords && !(strlen(words[k]) == n && strncmp(words[k], w, n) == 0))
            k++;
        if (k == nwords) {
            *words_p = (unsigned)(w - text);
            return -1;
        }
        set |= 1u << k;
        w += n + (w[n] == ',');
    }
    *words_p = set;
    return 0;
}

/* Words only at load; ofi_mr_force_parse turns them into FI_MR_* bits. */
static sym_status_t ofi_settings_check(const void *values)
{
    const struct ofi_settings *s = values;
    unsigned at;
    if (ofi_mr_force_words(s->mr_force.s, &at) != 0)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_OFI_MR_FORCE='%s' is not "
                         "valid: unknown word \"%.*s\" (expected a comma-separated list of "
                         "none, local, prov_key, endpoint, allocated, all, virt_addr)",
                         s->mr_force.s, (int)strcspn(s->mr_force.s + at, ","), s->mr_force.s + at);
    return SYM_OK;
}

#define SYM_CFG_STRUCT_ struct ofi_settings
static const struct sym_cfg_var ofi_vars[] = {OFI_SETTINGS_TABLE(SYM_CFG_VAR_)};
#undef SYM_CFG_STRUCT_

const struct sym_cfg_table ofi_settings_table = {
    .name = "ofi",
    .vars = ofi_vars,
    .nvars = sizeof(ofi_vars) / sizeof(ofi_vars[0]),
    .size = sizeof(struct ofi_settings),
    .check = ofi_settings_check,
};
