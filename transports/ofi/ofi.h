/*
 * ofi.h - the libfabric transport: one FI_EP_RDM endpoint per PE, the whole
 * heap registered once, RMA and atomics addressed by (PE, heap offset).
 *
 * Peers are reached through one address vector filled from the bootstrap's
 * allgather (address, key and heap base of every PE).  Completion is counted
 * (one counter for every operation), errors are read from the completion
 * queue with the provider's text.  Providers with manual data progress
 * (tcp;ofi_rxm, shm) need the target to call into libfabric: the runtime's
 * wait loop calls the `progress` op.
 *
 * Second in the ordered list (ofi_transport_class): it reaches every PE, so
 * it takes the peers no earlier class reached.
 */
#ifndef SYM_OFI_H
#define SYM_OFI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "transport.h"

struct sym_boot;

extern const struct sym_transport_class ofi_transport_class;

/* Open the provider named by the settings' SYMHEAP_OFI_PROVIDER ("auto":
 * the default choice), register cfg's heap and global variables and exchange
 * addresses with every PE through cfg->boot (collective).  Errors: SYM_ERR_UNAVAILABLE (no fitting
 * provider, a needed atomic missing), SYM_ERR_TRANSPORT (a libfabric call
 * failed), SYM_ERR_NO_MEMORY, bootstrap errors. */
sym_status_t ofi_transport_create(const struct sym_transport_config *cfg,
                                  struct sym_transport **tp_p);

/* Connect to every peer marked in via_ofi[npes] now (SYMHEAP_OFI_EAGER_CONNECT),
 * instead of on the first operation to it, then a bootstrap barrier that
 * serves the peers' connections meanwhile.  Collective: every PE with an
 * ofi transport calls it, once the wait loop drives the transport's
 * progress (struct sym_transport_config's serve hook).  Errors: SYM_ERR_TRANSPORT naming the
 * peer, SYM_ERR_TIMEOUT (init deadline), bootstrap errors. */
sym_status_t ofi_transport_connect(struct sym_transport *tp, struct sym_boot *boot,
                                   struct sym_deadline *init, const bool *via_ofi);

/* Name of the provider an ofi transport runs on. */
const char *ofi_transport_provider(const struct sym_transport *tp);

/* How an ofi transport registered memory, for tests of the mr_mode paths:
 * the mr_mode it runs with (the provider's plus SYMHEAP_OFI_MR_FORCE's),
 * the forced bits, whether the regions were bound to the endpoint, how many
 * transfers went through the registered bounce buffer, and the heap key
 * this PE uses for `pe` next to the key it asked for its own heap, and the
 * remote address this PE uses for byte 0 of `pe`'s heap and global
 * variables (their addresses in `pe` under FI_MR_VIRT_ADDR, else 0) next to
 * this PE's own addresses of them. */
struct ofi_mr_state {
    uint64_t mr_mode;
    uint64_t forced;
    bool bound;
    uint64_t staged;
    uint64_t key_of_pe;
    uint64_t asked_key;
    uint64_t heap_addr;
    uint64_t base_of_pe;
    uint64_t data_addr;
    uint64_t data_base_of_pe;
};
void ofi_transport_mr_state(const struct sym_transport *tp, int pe, struct ofi_mr_state *s);

/* Print every RDM provider libfabric offers with RMA and atomics, whether
 * symheap can use it (and why not), and which one is the default. */
void ofi_providers_print(FILE *out);

/* The same providers' names, each once, comma-separated into buf
 * (NUL-terminated, cut to len as snprintf does); returns the length of the
 * whole list, and *default_p says whether symheap would pick one of them
 * by default.  -1 with `why` filled when libfabric cannot be loaded or
 * queried. */
int ofi_provider_list(char *buf, size_t len, bool *default_p, char *why, size_t why_len);

#endif /* SYM_OFI_H */
