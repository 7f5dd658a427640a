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

sym_status_t shm_heap_reserve(struct sym_transport *tp, uint64_t off, uint64_t len)
{
    struct shm_transport *t = (struct shm_transport *)tp;
    int rc = t->fd < 0                 ? EBADF
             : off + len > t->heap_len ? EINVAL
             : !room_for((size_t)len)  ? ENOSPC
                                       : posix_fallocate(t->fd, (off_t)off, (off_t)len);
    if (rc == 0)
        return SYM_OK;
    return sym_error(rc == ENOSPC || rc == ENOMEM || rc == EFBIG ? SYM_ERR_NO_MEMORY
                                                                 : SYM_ERR_SYSTEM,
                     "cannot reserve %llu bytes of PE %d's heap (offset %llu) in shared memory: "
                     "%s",
                     (unsigned long long)len, t->me, (unsigned long long)off, strerror(rc));
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
    pthread_mutex_init(&t->map_lock, NULL);

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
    pthread_mutex_destroy(&t->map_lock);
    free(pb);
    free(t);
    return st;
}

/* What is wrong with the header of a heap mapped for PE pe, or NULL. */
static const char *header_wrong(const struct shm_transport *t, const char *key, int pe,
                                const struct sym_heap_ctrl *hc)
{
    if (hc->magic != SYM_HEAP_MAGIC)
        return "no symheap heap header";
    if (hc->layout_version != SYM_HEAP_LAYOUT_VERSION)
        return "another heap layout version";
    if (hc->pe != pe || hc->npes != t->npes)
        return "the header names another PE or job size";
    if (hc->heap_total != t->heap_len)
        return "the header gives another heap size";
    if (strncmp(hc->job_key, key, sizeof(hc->job_key)) != 0)
        return "the header names another job";
    return NULL;
}

uint8_t *shm_heap_map(struct shm_transport *t, const char *key, int pe, int fd,
                      struct shm_refusal *why_p)
{
    *why_p = (struct shm_refusal){0};
    why_p->segment = fd < 0 ? "no descriptor" : shm_segment_check(fd, t->heap_len);
    if (why_p->segment)
        return NULL;
    void *p = map_aligned(fd, t->heap_len, t->data_len, SYM_HEAP_BASE_ALIGN);
    if (p == MAP_FAILED) {
        why_p->map_errno = errno;
        return NULL;
    }
    /* Its owner wrote the control block before anyone could get the
     * descriptor: anything else is not a heap of this job. */
    const struct sym_heap_ctrl *hc = p;
    why_p->header = header_wrong(t, key, pe, hc);
    if (why_p->header) {
        why_p->version = hc->layout_version;
        munmap(p, t->heap_len + t->data_len);
        return NULL;
    }
    return p;
}

sym_status_t shm_refusal_error(const struct shm_transport *t, int pe, const struct shm_refusal *why)
{
    if (why->segment)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: PE %d's heap is not a segment of this job (%s; expected a "
                         "sealed memfd of uid %u, %zu bytes): refusing to map it",
                         pe, why->segment, (unsigned)getuid(), t->heap_len);
    if (why->header)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: PE %d's heap is not a heap of this job (%s, "
                         "layout version %u, expected %u): refusing to use it",
                         pe, why->header, (unsigned)why->version, SYM_HEAP_LAYOUT_VERSION);
    return sym_error(SYM_ERR_NO_MEMORY, "sym_init: mmap of PE %d's heap: %s", pe,
                     strerror(why->map_errno));
}

sym_status_t shm_transport_attach(struct sym_transport *tp, const char *key, int pe, int fd)
{
    struct shm_transport *t = (struct shm_transport *)tp;
    struct shm_refusal why;
    uint8_t *p = shm_heap_map(t, key, pe, fd, &why);
    if (!p)
        return shm_refusal_error(t, pe, &why);
    t->peer_base[pe] = p;
    return SYM_OK;
}

void shm_transport_release(struct shm_transport *t)
{
    if (t->fd >= 0)
        close(t->fd);
    shm_fdx_close(t);
    for (int pe = 0; pe < t->npes; pe++)
        if (t->peer_base[pe] && t->peer_base[pe] != t->stand_in)
            munmap(t->peer_base[pe], t->heap_len + t->data_len);
    shm_lazy_release(t);
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

/* Lazy, when SYMHEAP_SHM_MAP allows it and every PE of this host said it
 * can be reached that way; alike on every PE of the host (the same cards).
 * Forced lazy where a PE cannot: an error naming it. */
static sym_status_t choose_lazy(const struct sym_transport_config *cfg,
                                const struct shm_card *cards, bool *lazy_p)
{
    *lazy_p = false;
    if (strcmp(cfg->shm_map, "eager") == 0)
        return SYM_OK;
    for (int pe = 0; pe < cfg->npes; pe++) {
        if (!cfg->reach[pe] || cards[pe].lazy_ok)
            continue;
        if (strcmp(cfg->shm_map, "lazy") == 0)
            return sym_error(SYM_ERR_UNAVAILABLE,
                             "sym_init: SYMHEAP_SHM_MAP=lazy, but PE %d on this host cannot "
                             "let its peers reopen its heap through /proc (not dumpable, /proc "
                             "missing, or SYMHEAP_SHM_MAP=eager there)",
                             pe);
        return SYM_OK;
    }
    *lazy_p = true;
    return SYM_OK;
}

/* Connects the instance made with the heap (*tp_p).  One allgather tells
 * every PE the others' cards.  Lazy (shm_lazy.c): nothing more now; a
 * peer's heap and globals are mapped when first used.  Eager: my segments
 * go to the local peers in cfg->reach and theirs are mapped as they come
 * (heap, then global variables); no descriptor outlives this, the mappings
 * keep the memory, which goes when its last mapping does.  My own heap's
 * descriptor stays open either way (peers reopen it; shm_heap_reserve). */
static sym_status_t shm_class_create(const struct sym_transport_config *cfg,
                                     struct sym_transport **tp_p)
{
    struct shm_transport *t = (struct shm_transport *)*tp_p;
    if (!t)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_init: the shm transport has no heap");
    int gfd = -1;
    sym_status_t st = shm_globals_share(cfg, &gfd);
    struct shm_card *cards = calloc((size_t)cfg->npes, sizeof(*cards));
    if (st == SYM_OK && !cards)
        st = sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", cfg->npes);
    if (st == SYM_OK) {
        struct shm_card mine = {.pid = (int32_t)getpid(),
                                .listening = t->listen_fd >= 0,
                                .heap_fd = t->fd,
                                .lazy_ok =
                                    strcmp(cfg->shm_map, "eager") != 0 && shm_lazy_possible(t)};
        memcpy(mine.sock_name, t->sock_name, sizeof(mine.sock_name));
        shm_globals_card(&mine.globals);
        st = cfg->boot->ops->allgather(cfg->boot, &mine, sizeof(mine), cards);
    }
    for (int pe = 0; st == SYM_OK && pe < cfg->npes; pe++)
        cards[pe].sock_name[SHM_FDX_NAME_LEN - 1] = '\0';
    if (st == SYM_OK)
        st = shm_globals_cards(cfg, cards);
    bool lazy = false;
    if (st == SYM_OK)
        st = choose_lazy(cfg, cards, &lazy);
    if (st == SYM_OK && lazy) {
        st = shm_lazy_setup(t, cfg, cards);
        shm_fdx_close(t);
        if (st == SYM_OK)
            st = shm_lazy_probe(t, cfg->reach);
    } else if (st == SYM_OK) {
        const int mine[SHM_FDX_MAX] = {t->fd, gfd};
        struct take_ctx ctx = {t, cfg->boot->key};
        st = shm_fdx_exchange(t, cfg, cards, mine, gfd >= 0 ? 2 : 1, take_peer, &ctx);
    }
    free(cards);
    if (st == SYM_OK)
        st = shm_globals_finish(cfg, t->peer_base, lazy, &t->base.direct_end);
    if (st == SYM_OK)
        sym_debug("shm transport: peers' heaps mapped %s",
                  lazy ? "on first use (reopened through /proc)" : "at init (descriptors passed)");
    return st;
}

const struct sym_transport_class shm_transport_class = {
    .name = "shm",
    .can_reach = shm_can_reach,
    .create = shm_class_create,
};
