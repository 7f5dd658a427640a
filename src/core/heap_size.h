/* heap_size.h - the heap size every PE of the job uses (heap_size.c). */
#ifndef SYM_CORE_HEAP_SIZE_H
#define SYM_CORE_HEAP_SIZE_H

#include <stddef.h>

#include "base/config.h"
#include "bootstrap/bootstrap.h"

/* The user heap size for this job, alike on every PE: SYMHEAP_HEAP_SIZE
 * if set, else the default rule of include/symheap/init.h, which is
 * collective over the job (one bootstrap allgather).  Errors:
 * SYM_ERR_NO_MEMORY naming the PEs per host and the sizes, the
 * bootstrap's errors. */
sym_status_t sym_heap_size_choose(struct sym_boot *boot, const struct sym_config *cfg,
                                  size_t *heap_size_p);

#endif /* SYM_CORE_HEAP_SIZE_H */
