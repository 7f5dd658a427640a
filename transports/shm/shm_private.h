/* shm_private.h - the shm transport's instance, shared by its files. */
#ifndef SYM_SHM_PRIVATE_H
#define SYM_SHM_PRIVATE_H

#include <stdbool.h>

#include "shm.h"

struct shm_transport {
    struct sym_transport base;
    int me;
    int npes;
    size_t heap_len;
    size_t data_len;     /* reserved after each heap mapping: globals.c */
    uint8_t **peer_base; /* [npes], mine included once connected */
    char name[160];      /* my object's name */
    bool unlinked;
};

extern const struct sym_transport_ops shm_ops;

void shm_transport_release(struct shm_transport *t);

#endif /* SYM_SHM_PRIVATE_H */
