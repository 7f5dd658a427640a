/*
 * classes.c - the transport classes of this build, in the order they are
 * tried per peer: shm reaches the peers on this host with loads and
 * stores, ofi whoever is left.  A new transport adds its class here, and
 * its settings table if it has one (and its folder to
 * transports/meson.build); the runtime reads only these lists
 * (docs/transports.md).
 */
#include "transport.h"

#include "ofi/ofi_settings.h"
#include "shm/shm.h"
#include "shm/shm_settings.h"
#ifdef SYM_HAVE_OFI
#include "ofi/ofi.h"
#endif

const struct sym_transport_class *const sym_transport_classes[] = {
    &shm_transport_class,
#ifdef SYM_HAVE_OFI
    &ofi_transport_class,
#endif
};
const size_t sym_transport_nclasses =
    sizeof(sym_transport_classes) / sizeof(sym_transport_classes[0]);
_Static_assert(sizeof(sym_transport_classes) / sizeof(sym_transport_classes[0]) <=
                   SYM_TRANSPORTS_MAX,
               "raise SYM_TRANSPORTS_MAX");

/* Built in or not: ofi's table needs no libfabric. */
const struct sym_cfg_table *const sym_transport_settings[] = {
    &shm_settings_table,
    &ofi_settings_table,
};
const size_t sym_transport_nsettings =
    sizeof(sym_transport_settings) / sizeof(sym_transport_settings[0]);
