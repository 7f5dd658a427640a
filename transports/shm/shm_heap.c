/* shm_heap.c - create, hand over, verify and map the heap segments. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "base/error.h"
#include "bootstrap/bootstrap.h"
/* The control block's identity fields and the mapping alignment: every
 * peer's heap is checked before use (shm_transport_attach). */
#include "base/heap_layout.h"
#include "shm_private.h"

#define SEALS_SIZE (F_SEAL_SHRINK | F_SEAL_GROW)

/* A memfd lives in the kernel's internal tmpfs, which has no size limit of
 * its own: reserving more than the host's shared memory (/dev/shm's free
 * room, the budget an administrator set for it) would bring the OOM killer
 * instead of an error. */
static bool room_for(size_t len)
{
    struct statvfs v;
    if (statvfs("/dev/shm", &v) != 0)
        return true; /* no budget to go by: the reservation itself decides */
    return (unsigned long long)v.f_bavail * v.f_frsize >= len;
}

int shm_segment_create(const char *what, size_t len, size_t prealloc_len, int *err_p)
{
    int fd = memfd_create(what, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        *err_p = errno;
        return -1;
    }
    if (prealloc_len > len)
        prealloc_len = len;
    int rc = ftruncate(fd, (off_t)len) ? errno : 0;
    if (rc == 0 && prealloc_len)
        rc = !room_for(prealloc_len) ? ENOSPC : posix_fallocate(fd, 0, (off_t)prealloc_len);
    if (rc == 0 && fcntl(fd, F_ADD_SEALS, SEALS_SIZE | F_SEAL_SEAL) != 0)
        rc = errno;
    if (rc != 0) {
        close(fd);
        *err_p = rc;
        return -1;
    }
    return fd;
}

const char *shm_segment_check(int fd, size_t len)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return "not a regular file";
    if (st.st_uid != getuid())
        return "another owner";
    if ((size_t)st.st_size != len)
        return "another size";
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & SEALS_SIZE) != SEALS_SIZE)
        return "its size is not sealed";
    return NULL;
}

/* mmap `fd` at an address aligned to `align` (a power of two): reserve a
 * larger range, place the mapping at its aligned start, return the slack
 * but the `extra` bytes after the mapping, kept reserved (inaccessible) for
 * the owner's global variables. */
static void *map_aligned(int fd, size_t len, size_t extra, size_t align)
{
    size_t span = len + extra + align;
    uint8_t *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return MAP_FAILED;
    uintptr_t a = ((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1);
    void *p = mmap((void *)a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        munmap(r, span);
        return MAP_FAILED;
    }
    if ((uint8_t *)a > r)
        munmap(r, (size_t)((uint8_t *)a - r));
    size_t tail = (size_t)(r + span - ((uint8_t *)a + len + extra));
    if (tail)
        munmap((uint8_t *)a + len + extra, tail);
    return p;
}

sym_status_t shm_transport_create(int me, int npes, size_t heap_len, size_t data_len,
                                  size_t prealloc_len, struct sym_transport **tp_p,
                                  uint8_t **base_p)
{
    struct shm_transport *t = calloc(1, sizeof(*t));
    uint8_t **pb = calloc((size_t)npes, sizeof(*pb));
    if (!t || !pb) {
        free(t);
        free(pb);
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the shm transport");
    }
    t->base.ops = &shm_ops;
    t->base.caps = SYM_TP_CAP_DIRECT | SYM_TP_CAP_CPU_ATOMICS;
    t->base.direct_end = heap_len;
    t->me = me;
    t->npes = npes;
    t->heap_len = heap_len;
    t->data_len = data_len;
    t->peer_base = pb;
    t->listen_fd = -1;

    sym_status_t st;
    int err = 0;
    /* The part past prealloc_len (the team region) gets its memory when it
     * is used; the rest is reserved now if asked. */
    t->fd = shm_segment_create("symheap-heap", heap_len, prealloc_len, &err);
    if (t->fd < 0) {
        st = sym_error(err == ENOSPC || err == ENOMEM || err == EFBIG ? SYM_ERR_NO_MEMORY
                                                                      : SYM_ERR_SYSTEM,
                       "sym_init: cannot reserve a %zu-byte heap for PE %d in shared memory: %s "
                       "(lower SYMHEAP_HEAP_SIZE?)",
                       prealloc_len ? prealloc_len : heap_len, me, strerror(err));
        goto fail_free;
    }
    void *base = map_aligned(t->fd, heap_len, data_len, sym_heap_own_align(heap_len));
    if (base == MAP_FAILED) {
        st = sym_error(SYM_ERR_NO_MEMORY, "sym_init: mmap of a %zu-byte heap: %s", heap_len,
                       strerror(errno));
        goto fail_close;
    }
    pb[me] = base;
    if ((st = shm_fdx_listen(t)) != SYM_OK) {
        munmap(base, heap_len + data_len);
        goto fail_close;
    }
    *tp_p = &t->base;
    *base_p = base;
    return SYM_OK;

fail_close:
    close(t->fd);
fail_free:
    free(pb);
    free(t);
    return st;
}

sym_status_t shm_transport_attach(struct sym_transport *tp, const char *key, int pe, int fd)
{
    struct shm_transport *t = (struct shm_transport *)tp;
    const char *bad = fd < 0 ? "no descriptor" : shm_segment_check(fd, t->heap_len);
    if (bad)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: PE %d's heap is not a segment of this job (%s; expected a "
                         "sealed memfd of uid %u, %zu bytes): refusing to map it",
                         pe, bad, (unsigned)getuid(), t->heap_len);
    void *p = map_aligned(fd, t->heap_len, t->data_len, SYM_HEAP_BASE_ALIGN);
    if (p == MAP_FAILED)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: mmap of PE %d's heap: %s", pe,
                         strerror(errno));
    /* Its owner wrote the control block before it handed the descriptor
     * over: anything else is not a heap of this job. */
    const struct sym_heap_ctrl *hc = p;
    const char *why = NULL;
    if (hc->magic != SYM_HEAP_MAGIC)
        why = "no symheap heap header";
    else if (hc->layout_version != SYM_HEAP_LAYOUT_VERSION)
        why = "another heap layout version";
    else if (hc->pe != pe || hc->npes != t->npes)
        why = "the header names another PE or job size";
    else if (hc->heap_total != t->heap_len)
        why = "the header gives another heap size";
    else if (strncmp(hc->job_key, key, sizeof(hc->job_key)) != 0)
        why = "the header names another job";
    if (why) {
        sym_status_t st2 =
            sym_error(SYM_ERR_BOOTSTRAP,
                      "sym_init: PE %d's heap is not a heap of this job (%s, "
                      "layout version %u, expected %u): refusing to use it",
                      pe, why, (unsigned)hc->layout_version, SYM_HEAP_LAYOUT_VERSION);
        munmap(p, t->heap_len + t->data_len);
        return st2;
    }
    t->peer_base[pe] = p;
    return SYM_OK;
}

void shm_transport_release(struct shm_transport *t)
{
    if (t->fd >= 0)
        close(t->fd);
    shm_fdx_close(t);
    for (int pe = 0; pe < t->npes; pe++)
        if (t->peer_base[pe])
            munmap(t->peer_base[pe], t->heap_len + t->data_len);
    free(t->peer_base);
    free(t);
}

static bool shm_can_reach(const struct sym_transport_config *cfg, int pe)
{
    return cfg->same_host[pe];
}

struct take_ctx {
    struct shm_transport *t;
    const char *key;
};

/* A peer's descriptors, as they arrive: map its heap, then its globals. */
static sym_status_t take_peer(void *arg, int pe, const int *fds, int nfd)
{
    struct take_ctx *c = arg;
    sym_status_t st = shm_transport_attach(&c->t->base, c->key, pe, fds[0]);
    if (st == SYM_OK)
        st = shm_globals_attach(pe, nfd > 1 ? fds[1] : -1, c->t->peer_base[pe]);
    return st;
}

/* Connects the instance made with the heap (*tp_p): my segments go to the
 * local peers in cfg->reach and theirs are mapped as they come (heap, then
 * global variables); no descriptor outlives this, the mappings keep the
 * memory, which goes when its last mapping does. */
static sym_status_t shm_class_create(const struct sym_transport_config *cfg,
                                     struct sym_transport **tp_p)
{
    struct shm_transport *t = (struct shm_transport *)*tp_p;
    if (!t)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_init: the shm transport has no heap");
    int gfd = -1;
    sym_status_t st = shm_globals_share(cfg, &gfd);
    if (st == SYM_OK)
        st = shm_globals_cards(cfg);
    if (st == SYM_OK) {
        const int mine[SHM_FDX_MAX] = {t->fd, gfd};
        struct take_ctx ctx = {t, cfg->boot->key};
        st = shm_fdx_exchange(t, cfg, mine, gfd >= 0 ? 2 : 1, take_peer, &ctx);
    }
    close(t->fd);
    t->fd = -1;
    if (st == SYM_OK)
        st = shm_globals_finish(cfg, t->peer_base, &t->base.direct_end);
    return st;
}

const struct sym_transport_class shm_transport_class = {
    .name = "shm",
    .can_reach = shm_can_reach,
    .create = shm_class_create,
};
