/* memory.h - this PE's symmetric memory (memory.c), private to src/core. */
#ifndef SYM_CORE_MEMORY_H
#define SYM_CORE_MEMORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symheap.h"
#include "transport.h"

/* Create this PE's heap, a memfd of `heap_len` bytes (zero-filled; the
 * memory of its first `prealloc_len` bytes reserved now, so exhaustion is
 * reported here; 0: none), mapped at an address aligned to its size and
 * followed by room for the global variables, which are mapped there too
 * when they live in a memfd (core/globals.h).  Errors: SYM_ERR_NO_MEMORY,
 * SYM_ERR_SYSTEM, the global variables' (SYMHEAP_GLOBALS=remap). */
sym_status_t sym_memory_open(int me, size_t heap_len, size_t prealloc_len, struct sym_memory *m);
/* The transports have the descriptors (or mapped them): close those no
 * one needs any more.  The heap's stays open when `keep_heap` (its peers
 * reopen it, or sym_memory_reserve will need it), the variables' when
 * `keep_data` (its peers reopen it). */
void sym_memory_seal(struct sym_memory *m, bool keep_heap, bool keep_data);
/* Reserve the memory of bytes [off, off + len) of my heap now, so that
 * exhaustion of shared memory is this error (recorded) rather than a
 * SIGBUS at the bytes' first touch.  Needs the heap's descriptor (kept by
 * sym_memory_seal).  Errors: SYM_ERR_NO_MEMORY (not that much room in
 * /dev/shm), SYM_ERR_SYSTEM. */
sym_status_t sym_memory_reserve(const struct sym_memory *m, uint64_t off, uint64_t len);
/* Unmap the heap and give the global variables back; *m is zeroed. */
void sym_memory_close(struct sym_memory *m);

#endif /* SYM_CORE_MEMORY_H */
