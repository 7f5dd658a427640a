/* ofi_private.h - the ofi transport's instance, shared by its files. */
#ifndef SYM_OFI_PRIVATE_H
#define SYM_OFI_PRIVATE_H

#include <pthread.h>

#include "base/config.h"
#include "base/error.h"
#include "base/wait.h"
#include "ofi_fabric.h"

#include "ofi.h"
#include "ofi_settings.h"

#define OFI_API_VERSION FI_VERSION(1, 9)
/* Operation contexts in flight before the ring wraps and we drain. */
#define OFI_CTX_RING 1024
/* Registered staging memory for FI_MR_LOCAL providers and atomic operands. */
#define OFI_BOUNCE_BYTES  (256u * 1024u)
#define OFI_SCRATCH_BYTES 64u
/* Per operation context, a registered copy of a small source or operand,
 * so the caller's buffer is free at once without FI_INJECT. */
#define OFI_SLOT_BYTES 64u
#define OFI_SLOTS_OFF  (OFI_BOUNCE_BYTES + OFI_SCRATCH_BYTES)
#define OFI_REG_BYTES  (OFI_SLOTS_OFF + OFI_CTX_RING * OFI_SLOT_BYTES)

/* What an operation context remembers, to name the PE in an error. */
struct ofi_ctx {
    struct fi_context2 fi; /* first: the provider's part (FI_CONTEXT modes) */
    int pe;
    const char *what;
};

struct ofi_transport {
    struct sym_transport base;
    int me;
    int npes;
    struct fi_info *info;
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_cq *cq;
    struct fid_cntr *cntr;
    struct fid_ep *ep;

    uint8_t *heap;
    size_t heap_len;
    struct fid_mr *heap_mr;
    void *heap_desc;
    uint8_t *bounce; /* OFI_BOUNCE_BYTES of staging, scratch words, slots */
    struct fid_mr *bounce_mr;
    void *bounce_desc;
    /* The main executable's global variables (struct sym_region): the
     * second region, at offsets [heap_len, heap_len + data_len). */
    uint8_t *data;
    size_t data_len;
    struct fid_mr *data_mr;
    void *data_desc;

    fi_addr_t *addr; /* [npes] */
    uint64_t *rkey;  /* [npes] key of each PE's heap */
    uint64_t *rbase; /* [npes] remote address of offset 0 (0 without FI_MR_VIRT_ADDR) */
    uint64_t *dkey;  /* [npes] key of each PE's global variables */
    uint64_t *dbase; /* [npes] remote address of their byte 0, as rbase */
    uint8_t *dirty;  /* [npes] injected to since the last flush (other writes and
                      * atomics are delivery-complete: landed when counted) */
    int *dirty_list;
    int ndirty;

    uint64_t mr_mode;
    uint64_t mr_forced;      /* bits SYMHEAP_OFI_MR_FORCE added (tests) */
    uint64_t asked_heap_key; /* the random key asked for the heap (0: the provider's) */
    bool mr_bound;           /* FI_MR_ENDPOINT: the regions are bound and enabled */
    uint64_t staged;         /* transfers that went through the bounce buffer */
    size_t inject_size;
    size_t max_msg;
    bool mr_local;    /* local buffers need descriptors */
    bool waw_ordered; /* writes and atomics to a PE land in issue order */
    bool raw_ordered; /* a read returns after earlier writes to that PE landed */
    bool has_fence;   /* FI_FENCE usable */
    /* FI_INJECT completes when the data left, so a quiet must prove it
     * landed: only where a read is ordered after writes (ofi_flush). */
    bool inject_ok;
    bool manual_progress;
    int wait_fd; /* the CQ's wait object, or -1 */
    /* Operations peers made on this PE (FI_RMA_EVENT), or NULL. */
    struct fid_cntr *rcntr;
    uint64_t rcntr_seen; /* its value at the last look (ofi_lock.c) */
    /* Sleeps on wait_fd that ended by their timeout, after which rcntr
     * showed a peer's operation served (silent), and those the fd ended
     * (loud).  Silent ones mean the fd does not fire for peers'
     * operations, which the provider applies inside this PE's progress
     * call: such sleeps are then capped (ofi_lock.c, sleep_). */
    uint64_t sleeps_silent_served;
    uint64_t sleeps_loud_served;
    bool fd_deaf;

    uint8_t *last_kind; /* [npes] OFI_KIND_* of the last operation to each PE */
    uint64_t *last_seq; /* [npes] its number (issued after it was posted) */
    /* [npes] offsets [amo_lo, amo_hi) covering the atomics to each PE that
     * may still be in flight (the last numbered amo_seq): see ofi_order. */
    uint64_t *amo_lo, *amo_hi, *amo_seq;
    uint64_t drained; /* every operation up to this number has completed */
    uint64_t issued;  /* operations counted by cntr */
    uint64_t errors_seen;
    sym_status_t failed; /* first transport error, sticky */
    char failed_msg[320];
    uint64_t failed_grace_end; /* ofi_progress.c, failure(): 0 until the first report */
    /* A drain ended before every issued operation completed (a lost peer,
     * a timeout, a failed operation): the next operation first waits for
     * them, since late completions still land in the bounce buffer, the
     * scratch words and the slots it would reuse.  ofi_progress.c. */
    bool unsettled;
    /* Operations into memory that is not ours stayed in flight past
     * OFI_SETTLE_NS after such a drain: no libfabric call is made on this
     * transport again and its resources are not released (see ofi_settle). */
    bool abandoned;
    /* SYMHEAP_OFI_EAGAIN_EVERY (ofi_fake_again): N, post attempts so far,
     * and how many of them answered -FI_EAGAIN */
    unsigned long eagain_every;
    unsigned long post_attempts;
    uint64_t fake_again;
    /* signals posted with FI_FENCE (ofi_signal), for the tests */
    uint64_t fenced_signals;
    /* Settings from struct sym_transport_config that outlive creation. */
    unsigned long wait_yield_us;
    unsigned long wait_poll_us;
    bool eager_connect;
    const bool *same_host; /* [npes], during creation only */
    const char *mr_force;  /* SYMHEAP_OFI_MR_FORCE, during creation only */
    /* SYM_THREAD_MULTIPLE: every operation under `lock` (ofi_lock.c);
     * below it no lock is taken, as libfabric's ofi_genlock chooses its
     * lock kind from the threading model at run time. */
    bool locked;
    pthread_mutex_t lock;
    struct ofi_ctx ctx[OFI_CTX_RING];
    char prov_name[64];
};

extern const struct sym_transport_ops ofi_ops; /* ofi_lock.c */

static inline struct ofi_transport *ofi_of(struct sym_transport *tp)
{
    return (struct ofi_transport *)tp;
}

/* ---- ofi_info.c: provider choice ----------------------------------------- */

/* Hints asking for what symheap needs (caller frees with fi_freeinfo). */
struct fi_info *ofi_hints(void);
/* Why symheap never picks this provider by default, or NULL if it may. */
const char *ofi_default_excluded(const char *prov_name);
/* Choose from `list`: the one named `want`, else the default preference. */
struct fi_info *ofi_choose(struct fi_info *list, const char *want);

/* ---- ofi_mr.c, ofi_av.c: set-up steps of ofi_init.c --------------------- */

/* Parse SYMHEAP_OFI_MR_FORCE into FI_MR_* bits; SYM_ERR_INVALID_ARG on an
 * unknown word. */
sym_status_t ofi_mr_force_parse(const char *text, uint64_t *bits_p);
/* Register the heap, the global variables and the bounce buffer. */
sym_status_t ofi_register(struct ofi_transport *t);
/* Allgather (address, key, base) and fill the address vector. */
sym_status_t ofi_exchange(struct ofi_transport *t, struct sym_boot *boot);

/* Wait until every operation issued so far completed (no flush). */
sym_status_t ofi_drain(struct ofi_transport *t, struct sym_deadline *dl);

/* The error of ofi_target. */
sym_status_t ofi_out_of_range(struct ofi_transport *t, const char *op, int pe, uint64_t off,
                              size_t n);
/* Where (pe, off .. off + n) lives remotely: the heap region below
 * heap_len, the global variables' region above.  A range that fits in
 * neither never reaches the provider: SYM_ERR_INVALID_ARG. */
static inline sym_status_t ofi_target(struct ofi_transport *t, struct sym_deadline *dl, int pe,
                                      uint64_t off, size_t n, uint64_t *raddr_p, uint64_t *key_p)
{
    if (__builtin_expect(t->unsettled, 0)) { /* see ofi_transport.unsettled */
        sym_status_t st = ofi_drain(t, dl);
        if (st != SYM_OK)
            return st;
    }
    if ((unsigned)pe >= (unsigned)t->npes)
        return ofi_out_of_range(t, dl->op, pe, off, n);
    if (off < t->heap_len && n <= t->heap_len - off) {
        *raddr_p = t->rbase[pe] + off;
        *key_p = t->rkey[pe];
        return SYM_OK;
    }
    if (off >= t->heap_len && off - t->heap_len < t->data_len &&
        n <= t->data_len - (off - t->heap_len)) {
        *raddr_p = t->dbase[pe] + (off - t->heap_len);
        *key_p = t->dkey[pe];
        return SYM_OK;
    }
    return ofi_out_of_range(t, dl->op, pe, off, n);
}

/* ---- ofi_atomic.c ------------------------------------------------------ */

/* SYM_OK if the domain executes every (op, datatype) symheap uses, else
 * SYM_ERR_UNAVAILABLE naming the first missing one (recorded if `record`);
 * `missing` (optional) receives its name. */
sym_status_t ofi_atomics_check(struct fid_domain *domain, const char *prov, bool record,
                               char *missing, size_t len);
sym_status_t ofi_atomic(struct sym_transport *tp, int pe, uint64_t off, sym_amo_op_t op,
                        size_t width, uint64_t operand, uint64_t compare, uint64_t *fetched_p,
                        struct sym_deadline *dl);
/* Non-fetching 64-bit set/add of a signal word, ordered after earlier writes. */
sym_status_t ofi_signal(struct ofi_transport *t, int pe, uint64_t sig_off, uint64_t value,
                        sym_signal_op_t op, bool fenced, struct sym_deadline *dl);

/* ---- ofi_progress.c ---------------------------------------------------- */

sym_status_t ofi_progress(struct sym_transport *tp);
/* Next operation context for an op on `pe`; drains everything when the
 * ring wraps so a context is never reused while its op is in flight. */
sym_status_t ofi_next_ctx(struct ofi_transport *t, struct sym_deadline *dl, int pe,
                          struct ofi_ctx **ctx_p);
/* The registered slot belonging to an operation context. */
static inline void *ofi_slot(struct ofi_transport *t, const struct ofi_ctx *c)
{
    return t->bounce + OFI_SLOTS_OFF + (size_t)(c - t->ctx) * OFI_SLOT_BYTES;
}
/* Writes, atomics and reads take different paths in some providers
 * (tcp;ofi_rxm: RMA on the TCP stream, atomics as messages), so where the
 * provider does not promise ordering, switching kinds towards one PE waits
 * until what is in flight completed: a put and a later atomic to one word
 * land in program order.  Per target PE: a put to one PE after an atomic
 * to another (a collective's data after its acknowledgement) costs no
 * round trip; nor, on one PE, does a put after atomics to other words
 * (ofi_order). */
enum { OFI_KIND_WRITE = 1, OFI_KIND_ATOMIC, OFI_KIND_READ };
/* Note an atomic on (pe, off .. off + n) about to be posted. */
static inline void ofi_amo_range(struct ofi_transport *t, int pe, uint64_t off, size_t n)
{
    if (t->amo_seq[pe] <= t->drained) { /* none in flight: a new range */
        t->amo_lo[pe] = off;
        t->amo_hi[pe] = off + n;
    } else {
        if (off < t->amo_lo[pe])
            t->amo_lo[pe] = off;
        if (off + n > t->amo_hi[pe])
            t->amo_hi[pe] = off + n;
    }
    t->amo_seq[pe] = t->issued + 1;
}
/* After a drain that failed with a caller's buffer in flight: drive
 * progress (no health check) until every issued operation completed or
 * failed, for at most OFI_SETTLE_NS; else abandon the transport. */
void ofi_settle(struct ofi_transport *t);
/* Everything issued has completed (reads the counters, no waiting). */
bool ofi_all_done(struct ofi_transport *t);
/* `off`, `n`: the symheap offsets the operation touches on pe (heap and
 * global variables never share one).  A write after an atomic to other
 * words of that PE does not wait for the atomic: nothing but a fence or a
 * quiet orders them (sym_fence), both of which drain, and the library's
 * own protocols (a mailbox slot's data after the release of another
 * slot's credit) read such a write only after a signal that is ordered
 * after it.  Saves a round trip per collective message over tcp;ofi_rxm.
 * A write to a word an atomic in flight may still update waits for it. */
static inline sym_status_t ofi_order(struct ofi_transport *t, int kind, int pe, uint64_t off,
                                     size_t n, struct sym_deadline *dl)
{
    if (t->waw_ordered && t->raw_ordered)
        return SYM_OK;
    bool wait = t->last_kind[pe] != kind && t->last_seq[pe] > t->drained;
    if (kind == OFI_KIND_WRITE && t->last_kind[pe] == OFI_KIND_ATOMIC)
        wait = false; /* decided by the range below */
    if (kind == OFI_KIND_WRITE && t->amo_seq[pe] > t->drained && off < t->amo_hi[pe] &&
        off + n > t->amo_lo[pe])
        wait = true;
    if (wait && !ofi_all_done(t)) {
        sym_status_t st = ofi_drain(t, dl);
        if (st != SYM_OK)
            return st;
    }
    if (kind == OFI_KIND_ATOMIC)
        ofi_amo_range(t, pe, off, n);
    t->last_kind[pe] = (uint8_t)kind;
    t->last_seq[pe] = t->issued + 1; /* the operation about to be posted */
    return SYM_OK;
}
/* Count an issued operation. */
static inline void ofi_issued(struct ofi_transport *t)
{
    t->issued++;
}
static inline void ofi_mark_dirty(struct ofi_transport *t, int pe)
{
    if (!t->dirty[pe]) {
        t->dirty[pe] = 1;
        t->dirty_list[t->ndirty++] = pe;
    }
}
/* Retry state for -FI_EAGAIN: drive progress, wait for a retry to be due
 * through the one wait loop, give up at the operation's deadline. */
struct ofi_retry {
    unsigned long tries;
    unsigned long polls;
    uint64_t seen; /* the completion counter before the wait */
};
sym_status_t ofi_again(struct ofi_transport *t, struct sym_deadline *dl, int pe,
                       struct ofi_retry *r);
/* Make every write issued so far to any PE visible at its target, and wait
 * for everything in flight. */
sym_status_t ofi_flush(struct ofi_transport *t, struct sym_deadline *dl);
/* Record a failed libfabric call as SYM_ERR_TRANSPORT. */
sym_status_t ofi_call_failed(struct ofi_transport *t, const char *op, int pe, const char *call,
                             ssize_t rc);

/* SYMHEAP_OFI_EAGAIN_EVERY=N (tests): every N-th post attempt answers
 * -FI_EAGAIN without reaching the provider, as a busy one would; 0 (the
 * default) never, at the cost of one predicted branch per post. */
static inline bool ofi_fake_again(struct ofi_transport *t)
{
    if (__builtin_expect(t->eagain_every == 0, 1))
        return false;
    if (++t->post_attempts % t->eagain_every)
        return false;
    t->fake_again++;
    return true;
}

/* Post `call` (an expression yielding ssize_t), retrying on -FI_EAGAIN. */
#define OFI_POST(t, dl, pe, callname, call)                                                        \
    do {                                                                                           \
        struct ofi_retry r_ = {0, 0, 0};                                                           \
        for (;;) {                                                                                 \
            ssize_t rc_ = ofi_fake_again(t) ? -FI_EAGAIN : (call);                                 \
            if (rc_ == 0)                                                                          \
                break;                                                                             \
            if (rc_ != -FI_EAGAIN)                                                                 \
                return ofi_call_failed((t), (dl)->op, (pe), (callname), rc_);                      \
            sym_status_t st_ = ofi_again((t), (dl), (pe), &r_);                                    \
            if (st_ != SYM_OK)                                                                     \
                return st_;                                                                        \
        }                                                                                          \
    } while (0)

/* ---- ofi_rma.c ----------------------------------------------------------- */

/* [p, p + n) lies in memory registered by this transport (heap, global
 * variables, bounce buffer): it outlives any operation. */
bool ofi_is_ours(const struct ofi_transport *t, const void *p, size_t n);
/* Descriptor for a local buffer, or NULL when none is needed; *staged_p is
 * set when the buffer is unregistered and must go through the bounce buffer. */
void *ofi_local_desc(struct ofi_transport *t, const void *p, size_t n, bool *staged_p);
/* The operations themselves, without the lock (ofi_lock.c takes it). */
sym_status_t ofi_put(struct sym_transport *tp, int pe, uint64_t off, const void *src, size_t n,
                     struct sym_deadline *dl);
sym_status_t ofi_put_nbi(struct sym_transport *tp, int pe, uint64_t off, const void *src, size_t n,
                         struct sym_deadline *dl);
sym_status_t ofi_get(struct sym_transport *tp, int pe, void *dst, uint64_t off, size_t n,
                     struct sym_deadline *dl);
sym_status_t ofi_get_nbi(struct sym_transport *tp, int pe, void *dst, uint64_t off, size_t n,
                         struct sym_deadline *dl);
sym_status_t ofi_put_signal(struct sym_transport *tp, int pe, uint64_t off, const void *src,
                            size_t n, uint64_t sig_off, uint64_t signal, sym_signal_op_t op,
                            struct sym_deadline *dl);
sym_status_t ofi_quiet(struct sym_transport *tp, struct sym_deadline *dl);
sym_status_t ofi_fence(struct sym_transport *tp, struct sym_deadline *dl);

/* ofi_init.c */
void ofi_fini(struct sym_transport *tp);

#endif /* SYM_OFI_PRIVATE_H */
