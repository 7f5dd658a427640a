/* shm_private.h - the shm transport's instance, shared by its files. */
#ifndef SYM_SHM_PRIVATE_H
#define SYM_SHM_PRIVATE_H

#include <stdbool.h>

#include "shm.h"

/* shm_fdx.c: descriptors per PE (heap, global variables), socket names. */
#define SHM_FDX_MAX      2
#define SHM_FDX_NAME_LEN 48

/* The peers' global variables (shm_globals.c): offsets from `off` on are
 * bytes [0, len) of a PE's segment, mapped after its heap mapping or, where
 * that PE could not share them, reached by cross-memory attach at its
 * address. */
struct shm_globals {
    size_t len;
    uint64_t off;        /* == the heap's length */
    uint64_t *peer_addr; /* [npes] each PE's segment address */
    bool *peer_mapped;   /* [npes] mapped after that PE's heap mapping */
    bool *peer_shared;   /* [npes] that PE's segment is a memfd (it said so) */
    const int *peer_pid; /* [npes] the runtime's, for cross-memory attach */
};

struct shm_transport {
    struct sym_transport base;
    int me;
    int npes;
    size_t heap_len;
    size_t data_len;     /* reserved after each heap mapping: shm_globals.c */
    uint8_t **peer_base; /* [npes], mine (the runtime's) included */
    int listen_fd;       /* shm_fdx.c: my socket for the exchange, or -1 */
    char sock_name[SHM_FDX_NAME_LEN];
    struct shm_globals g;
};

extern const struct sym_transport_ops shm_ops;

void shm_transport_release(struct shm_transport *t);

/* ---- shm_fdx.c: handing segments to the local peers --------------------- */

/* Listen on a fresh abstract unix socket (before the peers learn its
 * name).  Errors: SYM_ERR_SYSTEM. */
sym_status_t shm_fdx_listen(struct shm_transport *t);
/* What to do with a peer's descriptors as they arrive (closed after). */
typedef sym_status_t (*shm_fdx_take_fn)(void *arg, int pe, const int *fds, int nfd);
/* Collective over cfg->boot: give my `nmine` descriptors (heap first) to
 * every peer in cfg->reach and hand theirs to `take` as they come (so a
 * PE holds few descriptors at a time, however many peers it has).  Closes
 * the socket.  Errors: SYM_ERR_TIMEOUT, SYM_ERR_PEER_LOST (cfg->deadline),
 * SYM_ERR_BOOTSTRAP, and take's. */
sym_status_t shm_fdx_exchange(struct shm_transport *t, const struct sym_transport_config *cfg,
                              const int *mine, int nmine, shm_fdx_take_fn take, void *arg);
void shm_fdx_close(struct shm_transport *t);

/* ---- shm_globals.c: the peers' global variables ------------------------- */

/* Collective: learn every PE's segment address and whether it shares it. */
sym_status_t shm_globals_cards(struct shm_transport *t, const struct sym_transport_config *cfg);
/* Map PE pe's segment from its memfd `fd` (not taken over; -1: none) right
 * after its heap mapping, if it shares one. */
sym_status_t shm_globals_attach(struct shm_transport *t, int pe, int fd);
/* After the exchange: the end of what peer_base[pe] + off reaches in every
 * peer in cfg->reach (the globals included when all of them are mapped). */
uint64_t shm_globals_direct_end(const struct shm_transport *t,
                                const struct sym_transport_config *cfg);
/* Cross-memory attach for PEs whose segment is not mapped. */
sym_status_t shm_globals_cma(const struct shm_transport *t, const char *op, int pe, uint64_t off,
                             void *buf, size_t n, bool write);
sym_status_t shm_globals_no_atomics(const char *op, int pe);
void shm_globals_release(struct shm_transport *t);

#endif /* SYM_SHM_PRIVATE_H */
