/* shm_private.h - the shm transport's instance, shared by its files. */
#ifndef SYM_SHM_PRIVATE_H
#define SYM_SHM_PRIVATE_H

#include <stdbool.h>

#include "shm.h"

#define SHM_PAGE 4096u

/* shm_fdx.c: descriptors per PE (heap, global variables), socket names. */
#define SHM_FDX_MAX      2
#define SHM_FDX_NAME_LEN 48

struct shm_transport {
    struct sym_transport base;
    int me;
    int npes;
    size_t heap_len;
    size_t data_len;     /* reserved after each heap mapping: shm_globals.c */
    uint8_t **peer_base; /* [npes], mine included once connected */
    int fd;              /* my heap's memfd, until the peers have it */
    int listen_fd;       /* shm_fdx.c: my socket for the exchange, or -1 */
    char sock_name[SHM_FDX_NAME_LEN];
};

extern const struct sym_transport_ops shm_ops;

void shm_transport_release(struct shm_transport *t);

/* A memfd of `len` bytes named `what` (for /proc/<pid>/fd and maps only),
 * its memory reserved with `prealloc`, its size sealed (no process can
 * shrink it under a peer's mapping, which would SIGBUS the peer).  -1 with
 * the errno value in *err_p. */
int shm_segment_create(const char *what, size_t len, size_t prealloc_len, int *err_p);
/* Why `fd` is not a segment of `len` bytes a peer of this uid made and
 * sealed, or NULL when it is. */
const char *shm_segment_check(int fd, size_t len);

/* ---- shm_fdx.c: handing segments to the local peers --------------------- */

/* Listen on a fresh abstract unix socket (when the heap is made, before the
 * peers meet).  Errors: SYM_ERR_SYSTEM. */
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

/* ---- shm_globals.c: the global variables, the second region ------------ */

/* Before the exchange: make my segment shared if shm_globals_prepare could
 * not; *fd_p: its memfd for the peers, or -1 (none, or reached by
 * cross-memory attach).  Errors only with SYMHEAP_GLOBALS=remap. */
sym_status_t shm_globals_share(const struct sym_transport_config *cfg, int *fd_p);
/* Collective, after shm_globals_share: learn every PE's segment and check
 * that every PE has the same one. */
sym_status_t shm_globals_cards(const struct sym_transport_config *cfg);
/* Map PE pe's segment from its memfd `fd` (not taken over; -1: none) right
 * after its heap mapping `heap`, if it has one to map. */
sym_status_t shm_globals_attach(int pe, int fd, uint8_t *heap);
/* After the exchange: my own alias, and *direct_end_p: the end of what
 * peer_base[pe] + off reaches in every peer in cfg->reach (the globals
 * included when all of them are mapped). */
sym_status_t shm_globals_finish(const struct sym_transport_config *cfg, uint8_t *const *peer_base,
                                uint64_t *direct_end_p);
/* PE pe's segment is mapped after its heap mapping. */
bool shm_globals_mapped(int pe);
/* Cross-memory attach fallback for PEs whose segment is not mapped. */
sym_status_t shm_globals_cma(const char *op, int pe, uint64_t off, void *buf, size_t n, bool write);
sym_status_t shm_globals_no_atomics(const char *op, int pe);

#endif /* SYM_SHM_PRIVATE_H */
