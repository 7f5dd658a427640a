/*
 * shm_globals.c - the peers' global and static variables: the runtime's
 * second region (src/core/globals.c) as the shm transport reaches it.
 *
 * A PE whose variables live in a memfd hands it over with its heap's
 * (shm_fdx.c); every local peer maps it right after its mapping of that
 * PE's heap (room the mapping reserves), so `peer_base[pe] + off` stays the
 * one direct path for heap and globals alike.
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
#include "bootstrap/bootstrap.h"
#include "shm_private.h"

/* What every PE tells the others about its segment. */
struct globals_card {
    uint64_t addr;  /* load address in that PE */
    int32_t shared; /* its memfd exists and may be mapped */
    int32_t pad;
};

sym_status_t shm_globals_cards(struct shm_transport *t, const struct sym_transport_config *cfg)
{
    struct shm_globals *g = &t->g;
    struct sym_boot *boot = cfg->boot;
    const struct sym_memory *m = cfg->memory;
    int npes = cfg->npes;
    g->len = m->data.len;
    g->off = m->heap_len;
    g->peer_pid = cfg->peer_pid;
    g->peer_addr = calloc((size_t)npes, sizeof(*g->peer_addr));
    g->peer_mapped = calloc((size_t)npes * 2, sizeof(*g->peer_mapped));
    g->peer_shared = g->peer_mapped ? g->peer_mapped + npes : NULL;
    struct globals_card *cards = calloc((size_t)npes, sizeof(*cards));
    if (!g->peer_addr || !g->peer_mapped || !cards) {
        free(cards);
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", npes);
    }
    if (g->len && m->data_fd < 0) /* CMA needs ptrace rights under Yama */
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
    struct globals_card mine = {(uint64_t)(uintptr_t)m->data.addr, m->data_fd >= 0, 0};
    sym_status_t st = boot->ops->allgather(boot, &mine, sizeof(mine), cards);
    for (int pe = 0; st == SYM_OK && pe < npes; pe++) {
        g->peer_addr[pe] = cards[pe].addr;
        g->peer_shared[pe] = cards[pe].shared != 0;
    }
    free(cards);
    if (st == SYM_OK)
        g->peer_mapped[t->me] = g->len && m->data_aliased;
    return st;
}

sym_status_t shm_globals_attach(struct shm_transport *t, int pe, int fd)
{
    struct shm_globals *g = &t->g;
    if (!g->len || !g->peer_shared[pe])
        return SYM_OK; /* reached by cross-memory attach */
    const char *bad = fd < 0 ? "no descriptor" : sym_segment_check(fd, g->len);
    if (bad)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: PE %d's global variables are not a segment of this job (%s; "
                         "expected a sealed memfd of uid %u, %zu bytes): refusing to map them",
                         pe, bad, (unsigned)getuid(), g->len);
    if (sym_segment_map_fixed(t->peer_base[pe] + g->off, g->len, fd) == MAP_FAILED)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: mmap of PE %d's global variables: %s", pe,
                         strerror(errno));
    g->peer_mapped[pe] = true;
    return SYM_OK;
}

uint64_t shm_globals_direct_end(const struct shm_transport *t,
                                const struct sym_transport_config *cfg)
{
    const struct shm_globals *g = &t->g;
    bool all_mapped = true;
    for (int pe = 0; g->len && pe < cfg->npes; pe++)
        if (cfg->reach[pe] && !g->peer_mapped[pe])
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
    free(t->g.peer_mapped);
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
