/* heap_size.h - what every PE tells the others at init, and the heap
 * size every PE of the job uses (heap_size.c). */
#ifndef SYM_CORE_HEAP_SIZE_H
#define SYM_CORE_HEAP_SIZE_H

#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "bootstrap/bootstrap.h"
#include "core/cma.h"

/* A PE's card: one allgather at init tells every PE every card. */
struct sym_pe_card {
    int32_t pid;
    uint32_t heap_size_set;            /* SYMHEAP_HEAP_SIZE is set */
    uint8_t host[SYM_HOST_DIGEST_LEN]; /* sym_host_digest(): equal means shm can reach the PE */
    uint64_t shm_free;                 /* free bytes of /dev/shm there; UINT64_MAX: unknown */
    /* The settings the heap's layout follows (SYMHEAP_HEAP_SIZE,
     * SYMHEAP_MAILBOX_SIZE, SYMHEAP_STAGING_SIZE, SYMHEAP_TEAM_REGION_SIZE):
     * equal on every PE. */
    uint64_t heap_size, mailbox_size, staging_size, team_region_size;
    /* Its global variables (core/globals.h): equal executables agree on
     * their length and link-time address. */
    uint64_t globals_len, globals_link;
    /* Its cross-memory attach probe word and user namespace (core/cma.h). */
    struct sym_cma_card cma;
};

/* This PE's card (its global variables' and probe word's fields are the
 * caller's). */
void sym_pe_card_make(const struct sym_config *cfg, struct sym_pe_card *mine);

/* From every PE's card (`cards`, npes of them, this PE's `me`): check that
 * every PE lays its heap out alike, then choose the user heap size,
 * SYMHEAP_HEAP_SIZE if set, else the default rule of
 * include/symheap/init.h; the same on every PE.  Errors: SYM_ERR_BOOTSTRAP
 * naming a PE whose settings differ, SYM_ERR_NO_MEMORY naming the PEs per
 * host and the sizes. */
sym_status_t sym_heap_size_choose(int me, int npes, const struct sym_pe_card *cards,
                                  const struct sym_config *cfg, size_t *heap_size_p);

#endif /* SYM_CORE_HEAP_SIZE_H */
