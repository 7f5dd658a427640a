/* shm_heap.c - create, map, verify and unlink the heap objects. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/error.h"
#include "bootstrap/bootstrap.h"
/* The control block's identity fields and the mapping alignment: every
 * peer's heap is checked before use (map_peer). */
#include "base/heap_layout.h"
#include "launch/job.h"
#include "shm_private.h"

void shm_object_name(char *buf, size_t len, const char *key, const char *owner, int pe)
{
    char what[16];
    snprintf(what, sizeof(what), "%d", pe);
    snprintf(buf, len, SYM_SHM_NAME_FMT, (unsigned)getuid(), key, owner, what);
}

/* mmap `fd` at an address aligned to SYM_HEAP_BASE_ALIGN: reserve a larger
 * range, place the mapping at its aligned start, return the slack but the
 * `extra` bytes after the mapping, kept reserved (inaccessible) for the
 * owner's global variables. */
static void *map_aligned(int fd, size_t len, size_t extra)
{
    size_t span = len + extra + SYM_HEAP_BASE_ALIGN;
    uint8_t *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return MAP_FAILED;
    uintptr_t a = ((uintptr_t)r + SYM_HEAP_BASE_ALIGN - 1) & ~(uintptr_t)(SYM_HEAP_BASE_ALIGN - 1);
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

sym_status_t shm_transport_create(const char *key, const char *owner, int me, int npes,
                                  size_t heap_len, size_t data_len, size_t prealloc_len,
                                  struct sym_transport **tp_p, uint8_t **base_p)
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
    shm_object_name(t->name, sizeof(t->name), key, owner, me);

    sym_status_t st;
    int fd = shm_open(t->name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0) {
        st = sym_error(SYM_ERR_SYSTEM, "sym_init: shm_open(%s) for PE %d's heap: %s", t->name, me,
                       strerror(errno));
        goto fail_free;
    }
    /* The part past prealloc_len (the team region) gets its memory when
     * it is used; the rest is reserved now if asked. */
    int rc = ftruncate(fd, (off_t)heap_len) ? errno : 0;
    if (rc == 0 && prealloc_len)
        rc = posix_fallocate(fd, 0, (off_t)(prealloc_len < heap_len ? prealloc_len : heap_len));
    if (rc != 0) {
        st = sym_error(rc == ENOSPC || rc == ENOMEM || rc == EFBIG ? SYM_ERR_NO_MEMORY
                                                                   : SYM_ERR_SYSTEM,
                       "sym_init: cannot reserve a %zu-byte heap for PE %d in /dev/shm: %s "
                       "(lower SYMHEAP_HEAP_SIZE?)",
                       prealloc_len ? prealloc_len : heap_len, me, strerror(rc));
        goto fail_unlink;
    }
    void *base = map_aligned(fd, heap_len, data_len);
    if (base == MAP_FAILED) {
        st = sym_error(SYM_ERR_NO_MEMORY, "sym_init: mmap of a %zu-byte heap: %s", heap_len,
                       strerror(errno));
        goto fail_unlink;
    }
    close(fd);
    pb[me] = base;
    *tp_p = &t->base;
    *base_p = base;
    return SYM_OK;

fail_unlink:
    close(fd);
    shm_unlink(t->name);
fail_free:
    free(pb);
    free(t);
    return st;
}

/* Map peer `pe`'s object, refusing one that is not ours or not the size
 * every heap of this job has. */
static sym_status_t map_peer(struct shm_transport *t, const struct sym_boot *boot,
                             const char *owner, int pe)
{
    char name[160];
    shm_object_name(name, sizeof(name), boot->key, owner, pe);
    int fd = shm_open(name, O_RDWR, 0);
    if (fd < 0)
        return sym_error(SYM_ERR_SYSTEM, "sym_init: cannot open PE %d's heap %s: %s", pe, name,
                         strerror(errno));
    struct stat st;
    if (fstat(fd, &st) != 0 || st.st_uid != getuid() || (size_t)st.st_size != t->heap_len ||
        (st.st_mode & 077) != 0) {
        close(fd);
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: PE %d's heap %s has the wrong owner, mode or size "
                         "(uid %u, mode %03o, %lld bytes; expected uid %u, mode 600, %zu "
                         "bytes): refusing to map it",
                         pe, name, (unsigned)st.st_uid, (unsigned)(st.st_mode & 0777),
                         (long long)st.st_size, (unsigned)getuid(), t->heap_len);
    }
    void *p = map_aligned(fd, t->heap_len, t->data_len);
    int err = errno;
    close(fd);
    if (p == MAP_FAILED)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: mmap of PE %d's heap: %s", pe,
                         strerror(err));
    /* Its owner wrote the control block before the bootstrap barrier that
     * preceded this: anything else is not a heap of this job. */
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
    else if (strncmp(hc->job_key, boot->key, sizeof(hc->job_key)) != 0)
        why = "the header names another job";
    if (why) {
        sym_status_t st2 =
            sym_error(SYM_ERR_BOOTSTRAP,
                      "sym_init: PE %d's heap %s is not a heap of this job (%s, "
                      "layout version %u, expected %u): refusing to use it",
                      pe, name, why, (unsigned)hc->layout_version, SYM_HEAP_LAYOUT_VERSION);
        munmap(p, t->heap_len);
        return st2;
    }
    t->peer_base[pe] = p;
    return SYM_OK;
}

sym_status_t shm_transport_connect(struct sym_transport *tp, struct sym_boot *boot,
                                   const bool *local, const char *const *owners,
                                   uint8_t **peer_base)
{
    struct shm_transport *t = (struct shm_transport *)tp;
    sym_status_t st = boot->ops->barrier(boot, "sym_init (waiting for peers' heaps)");
    for (int pe = 0; st == SYM_OK && pe < t->npes; pe++)
        if (pe != t->me && (!local || local[pe]))
            st = map_peer(t, boot, owners ? owners[pe] : boot->owner, pe);
    if (st == SYM_OK)
        st = boot->ops->barrier(boot, "sym_init (waiting for peers to map heaps)");
    /* Mapped by all (or failed): the name has served its purpose either way. */
    shm_unlink(t->name);
    t->unlinked = true;
    if (st != SYM_OK)
        return st;
    memcpy(peer_base, t->peer_base, (size_t)t->npes * sizeof(*peer_base));
    return SYM_OK;
}

void shm_transport_release(struct shm_transport *t)
{
    if (!t->unlinked)
        shm_unlink(t->name);
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

/* Connects the instance made with the heap (*tp_p): the heaps, then the
 * global variables of the peers in cfg->reach. */
static sym_status_t shm_class_create(const struct sym_transport_config *cfg,
                                     struct sym_transport **tp_p)
{
    struct shm_transport *t = (struct shm_transport *)*tp_p;
    if (!t)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_init: the shm transport has no heap");
    uint8_t **pb = calloc((size_t)t->npes, sizeof(*pb));
    if (!pb)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", t->npes);
    sym_status_t st = shm_transport_connect(&t->base, cfg->boot, cfg->reach, cfg->owners, pb);
    if (st == SYM_OK)
        st = shm_globals_connect(cfg, pb, &t->base.direct_end);
    free(pb);
    return st;
}

const struct sym_transport_class shm_transport_class = {
    .name = "shm",
    .can_reach = shm_can_reach,
    .create = shm_class_create,
};
