/* shm_heap.c - verify and map the peers' heap segments, handed over at
 * init or reopened on first use; the class. */
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
 * peer's heap is checked before use (shm_heap_map). */
#include "base/heap_layout.h"
#include "shm_private.h"
#include "shm_settings.h"

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
    pthread_mutex_init(&t->map_lock, NULL);
    pb[me] = m->heap;                  /* the runtime's: never unmapped here */
    *tp_p = (struct sym_transport *)t; /* base is the first member */
    return SYM_OK;
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
    why_p->segment = fd < 0 ? "no descriptor" : sym_segment_check(fd, t->heap_len);
    if (why_p->segment)
        return NULL;
    void *p = sym_segment_map(fd, t->heap_len, t->data_len, SYM_HEAP_BASE_ALIGN);
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

sym_status_t shm_transport_attach(struct sym_transport *tp, const char *key, int pe, int fd)
{
    struct shm_transport *t = (struct shm_transport *)tp;
    struct shm_refusal why;
    uint8_t *p = shm_heap_map(t, key, pe, fd, &why);
    if (p) {
        t->peer_base[pe] = p;
        return SYM_OK;
    }
    if (why.segment)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: PE %d's heap is not a segment of this job (%s; expected a "
                         "sealed memfd of uid %u, %zu bytes): refusing to map it",
                         pe, why.segment, (unsigned)getuid(), t->heap_len);
    if (why.header)
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: PE %d's heap is not a heap of this job (%s, "
                         "layout version %u, expected %u): refusing to use it",
                         pe, why.header, (unsigned)why.version, SYM_HEAP_LAYOUT_VERSION);
    return sym_error(SYM_ERR_NO_MEMORY, "sym_init: mmap of PE %d's heap: %s", pe,
                     strerror(why.map_errno));
}

void shm_transport_release(struct shm_transport *t)
{
    shm_fdx_close(t);
    for (int pe = 0; pe < t->npes; pe++)
        if (t->peer_base[pe] && pe != t->me && t->peer_base[pe] != t->stand_in)
            munmap(t->peer_base[pe], t->heap_len + t->data_len);
    shm_lazy_release(t);
    shm_globals_release(t);
    pthread_mutex_destroy(&t->map_lock);
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

/* SYMHEAP_SHM_MAP as loaded (auto without settings). */
static unsigned map_mode(const struct sym_transport_config *cfg)
{
    const struct shm_settings *s = cfg->settings;
    return s ? s->map.v : SHM_MAP_AUTO;
}

/* Lazy, when SYMHEAP_SHM_MAP allows it and every PE of this host said it
 * can be reached that way; alike on every PE of the host (the same cards).
 * Forced lazy where a PE cannot: an error naming it. */
static sym_status_t choose_lazy(const struct sym_transport_config *cfg,
                                const struct shm_card *cards, bool *lazy_p)
{
    *lazy_p = false;
    if (map_mode(cfg) == SHM_MAP_EAGER)
        return SYM_OK;
    for (int pe = 0; pe < cfg->npes; pe++) {
        if (!cfg->reach[pe] || cards[pe].lazy_ok)
            continue;
        if (map_mode(cfg) == SHM_MAP_LAZY)
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

/* My card and everyone's (one allgather). */
static sym_status_t gather_cards(struct shm_transport *t, const struct sym_transport_config *cfg,
                                 struct shm_card *cards)
{
    const struct sym_memory *m = cfg->memory;
    struct shm_card mine = {.pid = (int32_t)getpid(),
                            .listening = t->listen_fd >= 0,
                            .heap_fd = m->heap_fd,
                            .lazy_ok =
                                map_mode(cfg) != SHM_MAP_EAGER && shm_lazy_possible(t, m->heap_fd)};
    memcpy(mine.sock_name, t->sock_name, sizeof(mine.sock_name));
    shm_globals_card(m, &mine.globals);
    sym_status_t st = cfg->boot->ops->allgather(cfg->boot, &mine, sizeof(mine), cards);
    for (int pe = 0; st == SYM_OK && pe < cfg->npes; pe++)
        cards[pe].sock_name[SHM_FDX_NAME_LEN - 1] = '\0';
    return st;
}

/* Connects the instance prepared before the peers met (*tp_p).  One
 * allgather tells every PE the others' cards.  Lazy (shm_lazy.c): nothing
 * more now; a peer's heap and globals are mapped when first used, and the
 * runtime keeps my memfds open for the job (SYM_TP_CAP_KEEPS_FDS).  Eager:
 * my segments go to the local peers in cfg->reach and theirs are mapped as
 * they come (heap, then global variables); the mappings keep the memory,
 * which goes when its last mapping does. */
static sym_status_t shm_class_create(const struct sym_transport_config *cfg,
                                     struct sym_transport **tp_p)
{
    const struct sym_memory *m = cfg->memory;
    sym_status_t st = *tp_p ? SYM_OK : shm_class_prepare(cfg, tp_p);
    if (st != SYM_OK)
        return st;
    struct shm_transport *t = (struct shm_transport *)*tp_p;
    struct shm_card *cards = calloc((size_t)cfg->npes, sizeof(*cards));
    if (!cards)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", cfg->npes);
    st = gather_cards(t, cfg, cards);
    if (st == SYM_OK)
        st = shm_globals_cards(t, cfg, cards);
    bool lazy = false;
    if (st == SYM_OK)
        st = choose_lazy(cfg, cards, &lazy);
    if (st == SYM_OK && lazy) {
        st = shm_lazy_setup(t, cfg, cards);
        shm_fdx_close(t);
        t->base.caps |= SYM_TP_CAP_KEEPS_FDS;
        if (st == SYM_OK)
            st = shm_lazy_probe(t, cfg->reach);
    } else if (st == SYM_OK) {
        const int mine[SHM_FDX_MAX] = {m->heap_fd, m->data_fd};
        struct take_ctx ctx = {t, cfg->boot->key};
        st = shm_fdx_exchange(t, cfg, cards, mine, m->data_fd >= 0 ? 2 : 1, take_peer, &ctx);
    }
    free(cards);
    if (st == SYM_OK) {
        t->base.direct_end = shm_globals_direct_end(t, cfg);
        sym_debug("shm transport: peers' heaps mapped %s",
                  lazy ? "on first use (reopened through /proc)" : "at init (descriptors passed)");
    }
    return st;
}

const struct sym_transport_class shm_transport_class = {
    .name = "shm",
    .summary = "shared memory (memfd + mmap, mapped on first use or handed over as descriptors), "
               "PEs on this host",
    .settings = &shm_settings_table,
    .can_reach = shm_can_reach,
    .prepare = shm_class_prepare,
    .create = shm_class_create,
};
