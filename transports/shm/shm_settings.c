/* shm_settings.c - the shm transport's SYMHEAP_* variables (shm_settings.h's
 * SHM_SETTINGS_TABLE). */
#include "shm_settings.h"

#define SYM_CFG_STRUCT_ struct shm_settings
static const struct sym_cfg_var shm_vars[] = {SHM_SETTINGS_TABLE(SYM_CFG_VAR_)};
#undef SYM_CFG_STRUCT_

const struct sym_cfg_table shm_settings_table = {
    .name = "shm",
    .vars = shm_vars,
    .nvars = sizeof(shm_vars) / sizeof(shm_vars[0]),
    .size = sizeof(struct shm_settings),
    .check = NULL,
};
