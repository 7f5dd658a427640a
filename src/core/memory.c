/*
 * memory.c - this PE's symmetric memory: the heap mapping and the global
 * variables, made before the peers meet so that every transport can map
 * or register them (struct sym_memory), released after the last transport.
 */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/error.h"
#include "base/heap_layout.h"
#include "base/segment.h"
#include "core/globals.h"
#include "core/memory.h"

sym_status_t sym_memory_open(int me, size_t heap_len, size_t prealloc_len, struct sym_memory *m)
{
    *m = (struct sym_memory){.heap_fd = -1, .data_fd = -1};
    sym_status_t st = sym_globals_share(me);
    if (st != SYM_OK)
        return st;
    struct sym_globals_view g;
    sym_globals_describe(&g);
    int err = 0;
    /* The part past prealloc_len (the team region) gets its memory when it
     * is used; the rest is reserved now if asked. */
    int fd = sym_segment_create("symheap-heap", heap_len, prealloc_len, &err);
    if (fd < 0)
        return sym_error(err == ENOSPC || err == ENOMEM || err == EFBIG ? SYM_ERR_NO_MEMORY
                                                                        : SYM_ERR_SYSTEM,
                         "sym_init: cannot reserve a %zu-byte heap for PE %d in shared memory: %s "
                         "(lower SYMHEAP_HEAP_SIZE?)",
                         prealloc_len ? prealloc_len : heap_len, me, strerror(err));
    void *base = sym_segment_map(fd, heap_len, g.len, sym_heap_own_align(heap_len));
    if (base == MAP_FAILED) {
        st = sym_error(SYM_ERR_NO_MEMORY, "sym_init: mmap of a %zu-byte heap: %s", heap_len,
                       strerror(errno));
        close(fd);
        return st;
    }
    m->heap = base;
    m->heap_len = heap_len;
    m->heap_fd = fd;
    m->data = (struct sym_region){g.addr, g.len, heap_len};
    m->data_fd = g.fd;
    /* my own alias after my heap, so heap + off reaches the variables too */
    if (g.fd >= 0 && (st = sym_globals_alias(m->heap + heap_len)) == SYM_OK)
        m->data_aliased = true;
    return st;
}

/* Descriptors are open only while the heap is mapped (a zeroed *m has none). */
void sym_memory_seal(struct sym_memory *m, bool keep_heap, bool keep_data)
{
    if (!m->heap)
        return;
    if (m->heap_fd >= 0 && !keep_heap) {
        close(m->heap_fd);
        m->heap_fd = -1;
    }
    if (m->data_fd >= 0 && !keep_data) {
        sym_globals_close_fd();
        m->data_fd = -1;
    }
}

sym_status_t sym_memory_reserve(const struct sym_memory *m, uint64_t off, uint64_t len)
{
    int rc = m->heap_fd < 0            ? EBADF
             : off + len > m->heap_len ? EINVAL
                                       : sym_segment_reserve(m->heap_fd, (size_t)off, (size_t)len);
    if (rc == 0)
        return SYM_OK;
    return sym_error(rc == ENOSPC || rc == ENOMEM || rc == EFBIG ? SYM_ERR_NO_MEMORY
                                                                 : SYM_ERR_SYSTEM,
                     "cannot reserve %llu bytes of the heap (offset %llu) in shared memory: %s",
                     (unsigned long long)len, (unsigned long long)off, strerror(rc));
}

void sym_memory_close(struct sym_memory *m)
{
    sym_memory_seal(m, false, false);
    if (m->heap)
        munmap(m->heap, m->heap_len + m->data.len);
    sym_globals_fini();
    memset(m, 0, sizeof(*m));
    m->heap_fd = m->data_fd = -1;
}
