/*
 * shm_globals.c - the peers' global and static variables: the runtime's
 * second region (src/core/globals.c) as the shm transport reaches it.
 *
 * A PE whose variables live in a memfd lets its peers have it as they
 * have its heap's: reopened on first use (shm_lazy.c) or handed over with
 * the heap's descriptor at init (shm_fdx.c); every local peer maps it right
 * after its mapping of that PE's heap (room the mapping reserves), so
 * `peer_base[pe] + off` stays the one direct path for heap and globals
 * alike.
 *
 * Fallback, cross-memory attach (process_vm_readv/writev): for a PE whose
 * segment could not be shared (no room for the memfd, mmap refused), or for
 * every PE with SYMHEAP_GLOBALS=cma.  Puts and gets then cost a system
 * call; atomics and signals on such a PE's globals are not available (the
 * kernel's copy is not atomic) and fail with SYM_ERR_UNAVAILABLE.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/error.h"
#include "base/segment.h"
#include "shm_private.h"

void shm_globals_card(const struct sym_memory *m, struct shm_globals_card *mine)
{
    *mine = (struct shm_globals_card){(uint64_t)(uintptr_t)m->data.addr, m->data_fd >= 0,
                                      m->data_fd >= 0 ? m->data_fd : -1};
}

sym_status_t shm_globals_cards(struct shm_transport *t, const struct sym_transport_config *cfg,
                               const struct shm_card *cards)
{
    struct shm_globals *g = &t->g;
    const struct sym_memory *m = cfg->memory;
    int npes = cfg->npes;
    g->len = m->data.len;
    g->off = m->heap_len;
    g->peer_pid = cfg->peer_pid;
    g->peer_addr = calloc((size_t)npes, sizeof(*g->peer_addr));
    g->peer_shared = calloc((size_t)npes, sizeof(*g->peer_shared));
    if (!g->peer_addr || !g->peer_shared)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", npes);
    if (g->len && m->data_fd < 0) /* CMA needs ptrace rights under Yama */
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    for (int pe = 0; pe < npes; pe++) {
        g->peer_addr[pe] = cards[pe].globals.addr;
        g->peer_shared[pe] = cards[pe].globals.shared != 0;
    }
    g->peer_shared[t->me] = g->len && m->data_aliased;
    return SYM_OK;
}

/* Map a segment from `fd` at `at`: NULL, or what was wrong ("mmap": the
 * mapping failed, errno set). */
static const char *map_at(const struct shm_globals *g, int fd, uint8_t *at)
{
    const char *bad = fd < 0 ? "no descriptor" : sym_segment_check(fd, g->len);
    if (bad)
        return bad;
    return sym_segment_map_fixed(at, g->len, fd) == MAP_FAILED ? "mmap" : NULL;
}

sym_status_t shm_globals_attach(struct shm_transport *t, int pe, int fd)
{
    struct shm_globals *g = &t->g;
    if (!g->len || !g->peer_shared[pe])
        return SYM_OK; /* reached by cross-memory attach */
    const char *bad = map_at(g, fd, t->peer_base[pe] + g->off);
    if (bad && strcmp(bad, "mmap") == 0)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: mmap of PE %d's global variables: %s", pe,
                         strerror(errno));
    if (bad)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: PE %d's global variables are not a segment of this job (%s; "
                         "expected a sealed memfd of uid %u, %zu bytes): refusing to map them",
                         pe, bad, (unsigned)getuid(), g->len);
    return SYM_OK;
}

int shm_globals_map_peer(struct shm_transport *t, int pe, int fd, uint8_t *heap)
{
    const struct shm_globals *g = &t->g;
    if (!g->len || !g->peer_shared[pe])
        return 0;
    const char *bad = map_at(g, fd, heap + g->off);
    if (bad && strcmp(bad, "mmap") != 0)
        errno = EBADF;
    return bad ? -1 : 0;
}

uint64_t shm_globals_direct_end(const struct shm_transport *t,
                                const struct sym_transport_config *cfg)
{
    const struct shm_globals *g = &t->g;
    /* Every peer's shared segment is mapped (eagerly: a failure failed
     * init) or will be, on first use. */
    bool all_mapped = true;
    for (int pe = 0; g->len && pe < cfg->npes; pe++)
        if (cfg->reach[pe] && !g->peer_shared[pe])
            all_mapped = false;
    sym_debug("global variables: %zu bytes at %p (offsets %llu..), %s", g->len,
              (void *)cfg->memory->data.addr, (unsigned long long)g->off,
              !g->len      ? "none"
              : all_mapped ? "shared (remapped)"
                           : "cross-memory attach for some PEs");
    return t->heap_len + (all_mapped ? g->len : 0);
}

void shm_globals_release(struct shm_transport *t)
{
    /* The peers' mappings go with their heap reservations. */
    free(t->g.peer_addr);
    free(t->g.peer_shared);
    memset(&t->g, 0, sizeof(t->g));
}

/* Cross-memory attach: copy between buf and PE `pe`'s segment at `off`. */
sym_status_t shm_globals_cma(const struct shm_transport *t, const char *op, int pe, uint64_t off,
                             void *buf, size_t n, bool write)
{
    const struct shm_globals *g = &t->g;
    uint8_t *remote = (uint8_t *)(uintptr_t)g->peer_addr[pe] + (off - g->off);
    size_t done = 0;
    while (done < n) {
        struct iovec l = {(uint8_t *)buf + done, n - done};
        struct iovec r = {remote + done, n - done};
        ssize_t k = write ? process_vm_writev(g->peer_pid[pe], &l, 1, &r, 1, 0)
                          : process_vm_readv(g->peer_pid[pe], &l, 1, &r, 1, 0);
        if (k <= 0)
            return sym_error(k < 0 && errno == EPERM ? SYM_ERR_UNAVAILABLE : SYM_ERR_TRANSPORT,
                             "%s: cross-memory %s of %zu bytes of PE %d's global variables "
                             "(pid %d, %p): %s%s",
                             op, write ? "write" : "read", n, pe, g->peer_pid[pe],
                             (void *)(remote + done), k < 0 ? strerror(errno) : "no progress",
                             k < 0 && errno == EPERM ? " (ptrace restrictions: see "
                                                       "kernel.yama.ptrace_scope)"
                                                     : "");
        done += (size_t)k;
    }
    if (write)
        __atomic_thread_fence(__ATOMIC_SEQ_CST); /* before any later signal store */
    return SYM_OK;
}

sym_status_t shm_globals_no_atomics(const char *op, int pe)
{
    return sym_error(SYM_ERR_UNAVAILABLE,
                     "%s: PE %d's global variables are reached by cross-memory attach "
                     "(its data segment could not be shared, or SYMHEAP_GLOBALS=cma): atomics "
                     "and signals on them are not available; use the symmetric heap",
                     op, pe);
}
