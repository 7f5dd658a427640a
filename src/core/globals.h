/*
 * globals.h - the main executable's global and static variables, the second
 * symmetric region (globals.c): found, moved into a memfd and given back by
 * the runtime, which hands them to the transports with the heap
 * (struct sym_memory, memory.c).
 *
 * Threads: called by sym_init and sym_finalize only; the atfork handler
 * serialises forks.
 */
#ifndef SYM_CORE_GLOBALS_H
#define SYM_CORE_GLOBALS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/config.h"
#include "symheap.h"

/* Find this PE's segment (before the heap is mapped: room for it is
 * reserved after every heap mapping).  `mode`: SYMHEAP_GLOBALS (enum
 * sym_cfg_globals); `prealloc`: reserve the memfd's memory at once. */
void sym_globals_probe(unsigned mode, bool prealloc);
/* After sym_globals_probe, before the bootstrap starts any thread: move my
 * segment into a memfd.  On failure nothing changes and sym_globals_share
 * tries again. */
void sym_globals_prepare(void);
/* After the bootstrap: move my segment into a memfd if sym_globals_prepare
 * could not.  Fails (recorded) only with SYMHEAP_GLOBALS=remap; otherwise
 * the segment stays private memory (peers reach it by cross-memory attach). */
sym_status_t sym_globals_share(int me);

/* The segment as the runtime describes it to the transports. */
struct sym_globals_view {
    uint8_t *addr;      /* NULL: none */
    size_t len;         /* the same on every PE of the job */
    uint64_t link_addr; /* link-time address: equal in equal executables */
    int fd;             /* its memfd while open, or -1 (not shared) */
};
void sym_globals_describe(struct sym_globals_view *v);
/* Map my segment's memfd at `at` (the room after my heap mapping), an
 * alias of the variables.  Only while the memfd is open.  Errors:
 * SYM_ERR_NO_MEMORY, SYM_ERR_SYSTEM. */
sym_status_t sym_globals_alias(uint8_t *at);
/* Every transport has the memfd (or mapped it): close my descriptor. */
void sym_globals_close_fd(void);
/* Give my variables back as private memory with their current values. */
void sym_globals_fini(void);

#endif /* SYM_CORE_GLOBALS_H */
