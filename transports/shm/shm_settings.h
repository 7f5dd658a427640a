/*
 * shm_settings.h - the shm transport's own SYMHEAP_* variables: its
 * settings table (transports/classes.c lists it; symheap-info shows it
 * under "shm").
 */
#ifndef SYM_SHM_SETTINGS_H
#define SYM_SHM_SETTINGS_H

#include "base/config.h"

/* The shm transport's own SYMHEAP_* variables (base/config_table.h says
 * how a table reads), loaded by sym_init and handed to its create
 * (struct sym_transport_config's settings). */
#define SHM_SETTINGS_TABLE(X)                                                                      \
    X(map, "SYMHEAP_SHM_MAP", CHOICE, "auto", 0, 0,                                                \
      "When a PE maps the heaps of the PEs on its host {auto|lazy|eager}: lazy = on first use "    \
      "(reopened through /proc), eager = all at init (descriptors passed over sockets); auto "     \
      "= lazy where every PE of the host allows it")

struct shm_settings {
    SYM_CFG_FIELDS(SHM_SETTINGS_TABLE)
};
extern const struct sym_cfg_table shm_settings_table; /* shm_settings.c */

/* SYMHEAP_SHM_MAP's words as loaded, in the order of its help text. */
enum shm_map { SHM_MAP_AUTO, SHM_MAP_LAZY, SHM_MAP_EAGER };

#endif /* SYM_SHM_SETTINGS_H */
