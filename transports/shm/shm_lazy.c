/*
 * shm_lazy.c - peers' heaps mapped on first use.
 *
 * Handing every local peer's descriptors over at init (shm_fdx.c) costs
 * every PE a connection to, and a mapping of, every other PE of its host:
 * n^2 connections per host, most of them for peers the program never
 * touches.  Instead, when the kernel lets it, each PE keeps its heap's (and
 * its global variables') memfd open for the life of the job, publishes the
 * descriptor numbers with its pid in the one allgather of cards, and a peer
 * that first needs it reopens the same memfd through /proc/<pid>/fd/<n>:
 * a new open file of the same object, with no help from the owner (which
 * may be computing, outside any library call).  The mapping is checked as
 * a passed descriptor is (sealed memfd of this uid and size, a header naming
 * that PE, job size and job key, and the pid that published it).
 *
 * Who may reopen: the kernel allows /proc/<pid>/fd to a process that may
 * read the owner's memory anyway (same uid and the owner dumpable, or
 * CAP_SYS_PTRACE: ptrace's read access, which Yama's ptrace_scope does not
 * restrict), the same trust the descriptor exchange's SO_PEERCRED check
 * gives to a same-uid process.  Each PE checks at init that its own
 * descriptors can be reopened (dumpable, /proc mounted); the host maps
 * lazily only when every PE of it says so, else every PE of it exchanges
 * descriptors at init (SYMHEAP_SHM_MAP forces either way).  Then each PE
 * maps the next PE of its host at once (shm_lazy_probe): a kernel policy
 * that refuses the reopening between peers (a security module) fails
 * sym_init there, saying so, rather than a first use later.
 *
 * A peer that cannot be mapped when it is first needed, because it has
 * died (its descriptors closed with it), gets a private stand-in mapping:
 * the direct pointer stays valid (writes go nowhere, reads see zeros), and
 * the death is reported by the job health check, as any lost PE is (the
 * launcher's or the bootstrap's word).  So does a peer that finalized (its
 * descriptors closed) before this PE first used it.  A peer that runs and
 * is refused to this PE (a permission) is named by the transport's
 * unreachable op, which the health check reports as lost.
 *
 * The owner's memfds are the runtime's (struct sym_memory): the instance
 * says SYM_TP_CAP_KEEPS_FDS, so the runtime keeps them open for the job.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/error.h"
#include "base/heap_layout.h"
#include "base/segment.h"
#include "bootstrap/bootstrap.h"
#include "shm_private.h"

static int reopen(int pid, int fd)
{
    char path[64];
    snprintf(path, sizeof(path), "/proc/%d/fd/%d", pid, fd);
    return open(path, O_RDWR | O_CLOEXEC);
}

bool shm_lazy_possible(const struct shm_transport *t, int heap_fd)
{
    if (heap_fd < 0 || prctl(PR_GET_DUMPABLE) != 1)
        return false;
    int fd = reopen((int)getpid(), heap_fd);
    if (fd < 0)
        return false;
    bool same = sym_segment_check(fd, t->heap_len) == NULL;
    close(fd);
    return same;
}

sym_status_t shm_lazy_setup(struct shm_transport *t, const struct sym_transport_config *cfg,
                            const struct shm_card *cards)
{
    const int n = t->npes;
    int32_t *a = calloc((size_t)n * 4, sizeof(*a));
    void *stand_in = mmap(NULL, t->heap_len + t->data_len, PROT_READ | PROT_WRITE,
                          MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (!a || stand_in == MAP_FAILED) {
        free(a);
        if (stand_in != MAP_FAILED)
            munmap(stand_in, t->heap_len + t->data_len);
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs' mappings", n);
    }
    t->peer_pid = a;
    t->peer_fd = a + n;
    t->peer_gfd = a + 2 * n;
    t->peer_fail = a + 3 * n;
    for (int pe = 0; pe < n; pe++) {
        bool peer = cfg->reach[pe] && pe != t->me;
        t->peer_pid[pe] = cards[pe].pid;
        t->peer_fd[pe] = peer ? cards[pe].heap_fd : -1;
        t->peer_gfd[pe] = peer && cards[pe].globals.shared ? cards[pe].globals.fd : -1;
    }
    t->stand_in = stand_in;
    snprintf(t->key, sizeof(t->key), "%s", cfg->boot->key);
    t->lazy = true;
    return SYM_OK;
}

/* Reopen and map PE pe's heap, then its global variables after it; NULL
 * with *err_p (an errno value) when the heap cannot be had.  Records no
 * error: this runs inside whatever operation first touched the peer. */
static uint8_t *map_peer(struct shm_transport *t, int pe, int *err_p)
{
    int fd = reopen(t->peer_pid[pe], t->peer_fd[pe]);
    if (fd < 0) {
        *err_p = errno;
        return NULL;
    }
    struct shm_refusal why;
    uint8_t *p = shm_heap_map(t, t->key, pe, fd, &why);
    close(fd);
    if (!p) {
        sym_debug("shm: PE %d's heap refused: %s", pe,
                  why.segment  ? why.segment
                  : why.header ? why.header
                               : strerror(why.map_errno));
        *err_p = why.map_errno ? why.map_errno : EBADF;
        return NULL;
    }
    if (((const struct sym_heap_ctrl *)p)->pid != t->peer_pid[pe]) {
        munmap(p, t->heap_len + t->data_len);
        *err_p = ESRCH; /* another process of the job's PE: not the one that joined */
        return NULL;
    }
    if (t->peer_gfd[pe] < 0)
        return p;
    int gfd = reopen(t->peer_pid[pe], t->peer_gfd[pe]);
    /* Died between the two: the heap stays mapped (its memory is alive),
     * private memory takes the globals' place so the direct path stays
     * valid, and the loss is reported like any other. */
    if (gfd < 0 || shm_globals_map_peer(t, pe, gfd, p) != 0) {
        *err_p = gfd < 0 ? errno : EBADF;
        mmap(p + t->heap_len, t->data_len, PROT_READ | PROT_WRITE,
             MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED | MAP_NORESERVE, -1, 0);
    }
    if (gfd >= 0)
        close(gfd);
    return p;
}

uint8_t *shm_lazy_base(struct shm_transport *t, int pe)
{
    if ((unsigned)pe >= (unsigned)t->npes || t->peer_fd[pe] < 0)
        return NULL;
    pthread_mutex_lock(&t->map_lock);
    uint8_t *b = __atomic_load_n(&t->peer_base[pe], __ATOMIC_ACQUIRE);
    if (!b) {
        int err = 0;
        b = map_peer(t, pe, &err);
        if (err) {
            __atomic_store_n(&t->peer_fail[pe], err, __ATOMIC_RELEASE);
            __atomic_fetch_add(&t->nfail, 1, __ATOMIC_RELEASE);
        }
        if (!b) {
            sym_debug("shm: PE %d (pid %d) cannot be mapped (%s): a stand-in serves it", pe,
                      (int)t->peer_pid[pe], strerror(err));
            b = t->stand_in;
        }
        __atomic_store_n(&t->peer_base[pe], b, __ATOMIC_RELEASE);
    }
    pthread_mutex_unlock(&t->map_lock);
    return b;
}

/* A process that still runs (not a zombie: its descriptors are gone). */
static bool running(int pid);

sym_status_t shm_lazy_probe(struct shm_transport *t, const bool *reach)
{
    int next = -1;
    for (int k = 1; k < t->npes && next < 0; k++)
        if (reach[(t->me + k) % t->npes])
            next = (t->me + k) % t->npes;
    if (next < 0)
        return SYM_OK;
    int err = 0;
    uint8_t *b = map_peer(t, next, &err);
    if (b) {
        __atomic_store_n(&t->peer_base[next], b, __ATOMIC_RELEASE);
        return SYM_OK;
    }
    if (!running(t->peer_pid[next]))
        return SYM_OK; /* gone: the stand-in serves it, the health check reports it */
    return sym_error(SYM_ERR_UNAVAILABLE,
                     "sym_init: cannot reopen PE %d's heap through /proc/%d/fd/%d (%s): this "
                     "host does not let its PEs map each other on first use; set "
                     "SYMHEAP_SHM_MAP=eager to hand heaps over at init",
                     next, (int)t->peer_pid[next], (int)t->peer_fd[next], strerror(err));
}

static bool running(int pid)
{
    char path[64], buf[256];
    snprintf(path, sizeof(path), "/proc/%d/stat", pid);
    FILE *f = fopen(path, "re");
    if (!f)
        return false;
    size_t n = fread(buf, 1, sizeof(buf) - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *close_paren = strrchr(buf, ')');
    return close_paren && close_paren[1] == ' ' && close_paren[2] != 'Z' && close_paren[2] != 'X';
}

int shm_lazy_unreachable(struct sym_transport *tp, char *how, size_t len)
{
    struct shm_transport *t = (struct shm_transport *)tp;
    if (!t || !t->lazy || !__atomic_load_n(&t->nfail, __ATOMIC_ACQUIRE))
        return -1;
    for (int pe = 0; pe < t->npes; pe++) {
        int err = __atomic_load_n(&t->peer_fail[pe], __ATOMIC_ACQUIRE);
        /* ENOENT: it closed its descriptor, as sym_finalize does; a PE
         * that finalized is no loss */
        if (!err || err == ENOENT || !running(t->peer_pid[pe]))
            continue;
        if (how && len)
            snprintf(
                how, len,
                "is running but its heap cannot be mapped here (%s): set SYMHEAP_SHM_MAP=eager "
                "to hand heaps over at init",
                strerror(err));
        return pe;
    }
    return -1;
}

bool shm_lazy_stand_in(struct sym_transport *tp, int pe)
{
    struct shm_transport *t = (struct shm_transport *)tp;
    return t && t->lazy && t->stand_in &&
           __atomic_load_n(&t->peer_base[pe], __ATOMIC_ACQUIRE) == t->stand_in;
}

void shm_lazy_release(struct shm_transport *t)
{
    if (t->stand_in)
        munmap(t->stand_in, t->heap_len + t->data_len);
    free(t->peer_pid);
}
