/* shm_private.h - the shm transport's instance, shared by its files. */
#ifndef SYM_SHM_PRIVATE_H
#define SYM_SHM_PRIVATE_H

#include <pthread.h>
#include <stdbool.h>

#include "shm.h"

/* shm_fdx.c: descriptors per PE (heap, global variables), socket names. */
#define SHM_FDX_MAX      2
#define SHM_FDX_NAME_LEN 48

/* What every PE tells the others about its global variables (on its card):
 * enough for either way of handing them over. */
struct shm_globals_card {
    uint64_t addr;  /* load address in that PE */
    int32_t shared; /* its memfd exists and may be mapped */
    int32_t fd;     /* that memfd's descriptor number in its owner, or -1 */
};

/* What every PE tells the others (one allgather, shm_heap.c). */
struct shm_card {
    char sock_name[SHM_FDX_NAME_LEN]; /* abstract socket name, without the NUL byte */
    int32_t pid;
    int32_t listening; /* 0: it has no local peers to serve (no socket) */
    int32_t heap_fd;   /* its heap's memfd number, open in the owner (lazy) */
    int32_t lazy_ok;   /* its peers may reopen its descriptors (shm_lazy.c) */
    struct shm_globals_card globals;
};

/* The peers' global variables (shm_globals.c): offsets from `off` on are
 * bytes [0, len) of a PE's segment, mapped after its heap mapping or, where
 * that PE could not share them, reached by cross-memory attach at its
 * address. */
struct shm_globals {
    size_t len;
    uint64_t off;        /* == the heap's length */
    uint64_t *peer_addr; /* [npes] each PE's segment address */
    /* [npes] that PE's segment is a memfd mapped after its heap mapping
     * (or, lazily, to be mapped there with it), not reached by cross-memory
     * attach; mine: my own alias is mapped */
    bool *peer_shared;
    const int *peer_pid; /* [npes] the runtime's, for cross-memory attach */
};

struct shm_transport {
    struct sym_transport base;
    int me;
    int npes;
    size_t heap_len;
    size_t data_len; /* reserved after each heap mapping: shm_globals.c */
    /* [npes], mine (the runtime's) included; in lazy mode a peer's entry
     * is set (atomically, under map_lock) when it is first used. */
    uint8_t **peer_base;
    int listen_fd; /* shm_fdx.c: my socket for the exchange, or -1 */
    char sock_name[SHM_FDX_NAME_LEN];
    struct shm_globals g;
    /* shm_lazy.c: peers mapped on first use */
    bool lazy;
    char key[40];       /* the job key every heap header must carry */
    int32_t *peer_pid;  /* [npes] */
    int32_t *peer_fd;   /* [npes] heap descriptor numbers in their owners, or -1 */
    int32_t *peer_gfd;  /* [npes] globals descriptor numbers, or -1 */
    int32_t *peer_fail; /* [npes] errno of a failed mapping (the stand-in serves it), 0 */
    int nfail;          /* entries of peer_fail set */
    uint8_t *stand_in;  /* mapped for peers that could not be: private, never shared */
    pthread_mutex_t map_lock;
};

extern const struct sym_transport_ops shm_ops;

void shm_transport_release(struct shm_transport *t);

/* Why a peer's heap was refused: the descriptor (segment), the mapping
 * (map_errno) or the header (with the version it named). */
struct shm_refusal {
    const char *segment;
    int map_errno;
    const char *header;
    uint32_t version;
};

/* Map PE pe's heap from descriptor fd (not taken over) and check it, as
 * shm_transport_attach does, without recording an error or publishing the
 * mapping: NULL with *why_p filled. */
uint8_t *shm_heap_map(struct shm_transport *t, const char *key, int pe, int fd,
                      struct shm_refusal *why_p);

/* ---- shm_lazy.c: peers' heaps mapped on first use ----------------------- */

/* Whether this PE's peers could reopen its heap's descriptor `heap_fd`
 * through /proc (every PE of the host must say yes for the lazy way). */
bool shm_lazy_possible(const struct shm_transport *t, int heap_fd);
/* Keep what mapping a peer later needs (the gathered cards). */
sym_status_t shm_lazy_setup(struct shm_transport *t, const struct sym_transport_config *cfg,
                            const struct shm_card *cards);
/* At init, once set up: map the next PE of this host now, so that a host
 * that refuses the reopening fails init, saying so, instead of a first
 * use.  Errors: SYM_ERR_UNAVAILABLE naming the PE and why. */
sym_status_t shm_lazy_probe(struct shm_transport *t, const bool *reach);
/* PE pe's heap mapping: mapped now if this is the first use (a peer that
 * cannot be mapped, because it died, gets a private stand-in, so the
 * pointer is always valid); NULL only for a PE the transport does not
 * reach. */
uint8_t *shm_lazy_base(struct shm_transport *t, int pe);
/* The ops stand_in and unreachable (transport.h). */
bool shm_lazy_stand_in(struct sym_transport *tp, int pe);
int shm_lazy_unreachable(struct sym_transport *tp, char *how, size_t len);
void shm_lazy_release(struct shm_transport *t);

static inline uint8_t *shm_peer(struct shm_transport *t, int pe)
{
    uint8_t *b = __atomic_load_n(&t->peer_base[pe], __ATOMIC_ACQUIRE);
    return b || !t->lazy ? b : shm_lazy_base(t, pe);
}

/* ---- shm_fdx.c: handing segments to the local peers --------------------- */

/* Listen on a fresh abstract unix socket (before the peers learn its
 * name).  Errors: SYM_ERR_SYSTEM. */
sym_status_t shm_fdx_listen(struct shm_transport *t);
/* What to do with a peer's descriptors as they arrive (closed after). */
typedef sym_status_t (*shm_fdx_take_fn)(void *arg, int pe, const int *fds, int nfd);
/* Collective over the PEs of this host (their `cards`, gathered): give my
 * `nmine` descriptors (heap first) to every peer in cfg->reach and hand
 * theirs to `take` as they come (so a PE holds few descriptors at a time,
 * however many peers it has).  Closes the socket.  Errors:
 * SYM_ERR_TIMEOUT, SYM_ERR_PEER_LOST (cfg->deadline), SYM_ERR_BOOTSTRAP,
 * and take's. */
sym_status_t shm_fdx_exchange(struct shm_transport *t, const struct sym_transport_config *cfg,
                              const struct shm_card *cards, const int *mine, int nmine,
                              shm_fdx_take_fn take, void *arg);
void shm_fdx_close(struct shm_transport *t);

/* ---- shm_globals.c: the peers' global variables ------------------------- */

/* What my card says of my segment. */
void shm_globals_card(const struct sym_memory *m, struct shm_globals_card *mine);
/* From every PE's card: learn every PE's segment address and whether it
 * shares it. */
sym_status_t shm_globals_cards(struct shm_transport *t, const struct sym_transport_config *cfg,
                               const struct shm_card *cards);
/* Map PE pe's segment from its memfd `fd` (not taken over; -1: none) right
 * after its heap mapping, if it shares one. */
sym_status_t shm_globals_attach(struct shm_transport *t, int pe, int fd);
/* The same on first use (shm_lazy.c), after the heap mapping `heap` that is
 * not published yet: 0, or -1 with errno, recording no error. */
int shm_globals_map_peer(struct shm_transport *t, int pe, int fd, uint8_t *heap);
/* After the exchange (or, lazy, the cards): the end of what peer_base[pe] +
 * off reaches in every peer in cfg->reach (the globals included when every
 * one of them shares its segment). */
uint64_t shm_globals_direct_end(const struct shm_transport *t,
                                const struct sym_transport_config *cfg);
/* Cross-memory attach for PEs whose segment is not shared. */
sym_status_t shm_globals_cma(const struct shm_transport *t, const char *op, int pe, uint64_t off,
                             void *buf, size_t n, bool write);
sym_status_t shm_globals_no_atomics(const char *op, int pe);
void shm_globals_release(struct shm_transport *t);

#endif /* SYM_SHM_PRIVATE_H */
