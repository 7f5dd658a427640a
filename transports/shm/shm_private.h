/* shm_private.h - the shm transport's instance, shared by its files. */
#ifndef SYM_SHM_PRIVATE_H
#define SYM_SHM_PRIVATE_H

#include <stdbool.h>

#include "shm.h"

#define SHM_PAGE 4096u

struct shm_transport {
    struct sym_transport base;
    int me;
    int npes;
    size_t heap_len;
    size_t data_len;     /* reserved after each heap mapping: shm_globals.c */
    uint8_t **peer_base; /* [npes], mine included once connected */
    char name[160];      /* my object's name */
    bool unlinked;
};

extern const struct sym_transport_ops shm_ops;

void shm_transport_release(struct shm_transport *t);

/* ---- shm_globals.c: the global variables, the second region ------------ */

/* Collective: share my segment, map the segment of every peer marked in
 * cfg->reach right after its heap mapping (peer_base[pe] + heap_len),
 * check that every PE has the same one.  *direct_end_p: the end of what
 * peer_base[pe] + off reaches in every mapped peer (the globals included
 * when all of them are mapped). */
sym_status_t shm_globals_connect(const struct sym_transport_config *cfg, uint8_t *const *peer_base,
                                 uint64_t *direct_end_p);
/* PE pe's segment is mapped after its heap mapping. */
bool shm_globals_mapped(int pe);
/* Cross-memory attach fallback for PEs whose segment is not mapped. */
sym_status_t shm_globals_cma(const char *op, int pe, uint64_t off, void *buf, size_t n, bool write);
sym_status_t shm_globals_no_atomics(const char *op, int pe);

#endif /* SYM_SHM_PRIVATE_H */
