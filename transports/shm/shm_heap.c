/* shm_heap.c - hand over, verify and map the peers' heap segments. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "base/error.h"
#include "base/segment.h"
#include "bootstrap/bootstrap.h"
/* The control block's identity fields and the mapping alignment: every
 * peer's heap is checked before use (shm_transport_attach). */
#include "base/heap_layout.h"
#include "shm_private.h"

sym_status_t shm_transport_new(int me, int npes, const struct sym_memory *m,
                               struct sym_transport **tp_p)
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
    t->base.direct_end = m->heap_len;
    t->me = me;
    t->npes = npes;
    t->heap_len = m->heap_len;
    t->data_len = m->data.len;
    t->peer_base = pb;
    t->listen_fd = -1;
    pb[me] = m->heap;                  /* the runtime's: never unmapped here */
    *tp_p = (struct sym_transport *)t; /* base is the first member */
    return SYM_OK;
}

sym_status_t shm_transport_attach(struct sym_transport *tp, const char *key, int pe, int fd)
{
    struct shm_transport *t = (struct shm_transport *)tp;
    const char *bad = fd < 0 ? "no descriptor" : sym_segment_check(fd, t->heap_len);
    if (bad)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: PE %d's heap is not a segment of this job (%s; expected a "
                         "sealed memfd of uid %u, %zu bytes): refusing to map it",
                         pe, bad, (unsigned)getuid(), t->heap_len);
    void *p = sym_segment_map(fd, t->heap_len, t->data_len, SYM_HEAP_BASE_ALIGN);
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
    shm_fdx_close(t);
    for (int pe = 0; pe < t->npes; pe++)
        if (t->peer_base[pe] && pe != t->me)
            munmap(t->peer_base[pe], t->heap_len + t->data_len);
    shm_globals_release(t);
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
        st = shm_globals_attach(c->t, pe, nfd > 1 ? fds[1] : -1);
    return st;
}

/* Before the peers meet: the socket, so that a local peer already waiting
 * in sym_init finds it listening (shm_fdx.c). */
static sym_status_t shm_class_prepare(const struct sym_transport_config *cfg,
                                      struct sym_transport **tp_p)
{
    sym_status_t st = shm_transport_new(cfg->me, cfg->npes, cfg->memory, tp_p);
    if (st == SYM_OK && (st = shm_fdx_listen((struct shm_transport *)*tp_p)) != SYM_OK) {
        shm_transport_release((struct shm_transport *)*tp_p);
        *tp_p = NULL;
    }
    return st;
}

/* My segments go to the local peers in cfg->reach and theirs are mapped as
 * they come (heap, then global variables); no descriptor outlives the
 * exchange, the mappings keep the memory, which goes when its last mapping
 * does. */
static sym_status_t shm_class_create(const struct sym_transport_config *cfg,
                                     struct sym_transport **tp_p)
{
    const struct sym_memory *m = cfg->memory;
    sym_status_t st = *tp_p ? SYM_OK : shm_class_prepare(cfg, tp_p);
    if (st != SYM_OK)
        return st;
    struct shm_transport *t = (struct shm_transport *)*tp_p;
    if ((st = shm_globals_cards(t, cfg)) == SYM_OK) {
        const int mine[SHM_FDX_MAX] = {m->heap_fd, m->data_fd};
        struct take_ctx ctx = {t, cfg->boot->key};
        st = shm_fdx_exchange(t, cfg, mine, m->data_fd >= 0 ? 2 : 1, take_peer, &ctx);
    }
    if (st == SYM_OK)
        t->base.direct_end = shm_globals_direct_end(t, cfg);
    return st;
}

const struct sym_transport_class shm_transport_class = {
    .name = "shm",
    .summary = "shared memory (memfd + mmap, handed over as descriptors), PEs on this host",
    .settings = NULL,
    .can_reach = shm_can_reach,
    .prepare = shm_class_prepare,
    .create = shm_class_create,
};
