/*
 * ofi_settings.h - the ofi transport's own SYMHEAP_* variables: its
 * settings table, free of libfabric, so that every build knows them
 * (transports/classes.c lists the table even where the transport is not
 * built, and sym_init does not warn of its variables as unknown).
 */
#ifndef SYM_OFI_SETTINGS_H
#define SYM_OFI_SETTINGS_H

#include "base/config.h"

/* The ofi transport's own SYMHEAP_* variables (base/config_table.h says
 * how a table reads), loaded by sym_init and handed to its create
 * (struct sym_transport_config's settings); symheap-info shows them under
 * "ofi". */
#define OFI_SETTINGS_TABLE(X)                                                                      \
    X(provider, "SYMHEAP_OFI_PROVIDER", STRING, "auto", 0, 63,                                     \
      "libfabric provider of the ofi transport, e.g. tcp;ofi_rxm or shm (auto: the "               \
      "first fitting one, RDMA hardware first, else tcp;ofi_rxm)")                                 \
    X(eager_connect, "SYMHEAP_OFI_EAGER_CONNECT", BOOL, "0", 0, 0,                                 \
      "ofi transport: connect to every peer reached through libfabric inside sym_init "            \
      "(0: on the first operation to it, as the provider does by itself)")                         \
    X(wait_poll_us, "SYMHEAP_WAIT_POLL_US", UINT, "50", 0, 0,                                      \
      "Longest sleep, in microseconds, of a wait over a libfabric provider that cannot "           \
      "wake a sleeping PE for operations peers make on it (no wait fd, as libfabric's "            \
      "shm provider, or one found silent while running): the most an idle waiter "                 \
      "delays serving them")                                                                       \
    X(mr_force, "SYMHEAP_OFI_MR_FORCE", STRING, "none", 0, 0,                                      \
      "Tests only: run the ofi transport as if the provider required these mr_mode "               \
      "bits, a comma-separated list of local, prov_key, endpoint, allocated, all (the "            \
      "four), virt_addr (only on a provider that offers FI_MR_VIRT_ADDR, as shm; "                 \
      "elsewhere an init error) (none: only what the provider asks for)")                          \
    X(eagain_every, "SYMHEAP_OFI_EAGAIN_EVERY", UINT, "0", 0, 0,                                   \
      "Tests only: every N-th attempt of the ofi transport to post an operation "                  \
      "answers -FI_EAGAIN without reaching the provider, which the transport retries "             \
      "(1: every one, so operations time out); 0: off")                                            \
    X(ignore_order, "SYMHEAP_OFI_IGNORE_ORDER", BOOL, "0", 0, 0,                                   \
      "Tests only: run the ofi transport as if the provider did not order writes and "             \
      "reads to a PE (put-with-signal then fences its signal with FI_FENCE where the "             \
      "provider offers it, as sockets does, else waits for the data first)")

struct ofi_settings {
    SYM_CFG_FIELDS(OFI_SETTINGS_TABLE)
};
extern const struct sym_cfg_table ofi_settings_table; /* ofi_settings.c */

/* SYMHEAP_OFI_MR_FORCE's words (ofi_settings.c): on success 0 and *words_p
 * has bit k set for word k of none, local, prov_key, endpoint, allocated,
 * all, virt_addr; on an unknown word -1 and *words_p is that word's offset
 * in text. */
int ofi_mr_force_words(const char *text, unsigned *words_p);

#endif /* SYM_OFI_SETTINGS_H */
