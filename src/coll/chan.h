/*
 * chan.h - the mailbox channel every collective is built on.
 *
 * A team's mailbox area gives each PE, for every team member it can receive
 * from (a *link*), K slots of C payload bytes.  A slot's *full* flag lives
 * with the receiver, in the slot's header line (so the receiver that sees
 * it already holds the header: one cross-core miss fewer per chunk), its
 * *free* flag with the sender on a cache line of its own; both are 64-bit
 * counters that only grow.  Both sides count the
 * chunks that went over each link, so the n-th chunk from A to B uses slot
 * n % K for the (n / K)-th time:
 *
 *   send: wait free >= n / K (the slot's previous use was consumed: credit),
 *         put header + data into the receiver's slot, then put-with-signal
 *         full = n / K + 1 (the flag is never visible before the data);
 *   recv: wait full >= n / K + 1, check the header's fingerprint against
 *         this PE's own call, consume in place (copy or reduce straight out
 *         of the slot), then signal free = n / K + 1 back to the sender.
 *
 * A tiny chunk that is a whole collective message (up to 28 bytes) is
 * sent inline, packed with a lossless short fingerprint into the header
 * line itself, so the flag and the data arrive in one line (chan_private.h).
 *
 * K >= 2 lets the next chunk travel while one is being consumed; nothing
 * ever needs a barrier or a reset.  A PE that sees a fingerprint different
 * from its own poisons the team on every member, so every PE involved
 * reports SYM_ERR_MISMATCH instead of waiting or mixing data.
 *
 * Small messages take the link's other path, its cell queue
 * (chan_cells.c): per link up to 64 cells of one to five lines, each a
 * whole message of up to 256 bytes (inline in the flag's line up to 28,
 * else a header in that line and the payload in the cell's payload lines;
 * those only in a crowded job: sym_chan_cells_hold), credited by one
 * running count per link instead of a flag per slot.  A sender is
 * then as many calls ahead of a receiver that is not running (more PEs
 * than cores) as the link has cells, instead of K.  A call chooses the
 * path of each message from what sender and receiver both know (its
 * fingerprint, and for calls whose links carry one message each, that
 * message's size): sym_chan_use_cells.
 */
#ifndef SYM_COLL_CHAN_H
#define SYM_COLL_CHAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/deadline.h"
#include "symheap.h"

struct sym_team;

/* What identifies one collective call; carried by every chunk. */
struct sym_fp {
    uint64_t seq;  /* the team's collective sequence number */
    uint32_t kind; /* enum sym_coll_kind */
    uint32_t dtype;
    uint32_t op;
    uint32_t algo;
    uint64_t count;
    int32_t root;
    uint32_t layout; /* hash of per-member counts (all_gatherv), else 0 */
};

struct sym_chunk_hdr {
    struct sym_fp fp;
    uint64_t msg_bytes; /* size of the whole message this chunk belongs to */
    uint32_t len;       /* payload bytes in this chunk */
    uint32_t pad;       /* 0; a chunk sent inline (chan_private.h) has its format tag here */
    uint64_t full;      /* the slot's full flag: signalled after the rest */
};

struct sym_chan {
    uint64_t area_off;
    uint64_t area_size;
    int n;           /* links: one per team member */
    int k;           /* slots per link: a power of two, 2 .. 8 */
    unsigned kshift; /* log2(k) */
    uint64_t kmask;  /* k - 1 */
    size_t chunk;    /* payload bytes per slot */
    uint64_t poison_off, call_off, msg_off, free_off, slot_off, slot_stride;
    uint64_t *sent;  /* [n] chunks sent to each member */
    uint64_t *recvd; /* [n] chunks received from each member */
    const int *pe_of;
    /* The cell queue (ncells == 0 in an area too small for it, and on the
     * point-to-point links): per link, ncells cells (a line, and a payload
     * area apart from the lines, so that inline messages use adjacent
     * lines) for whole messages of at most cell_bytes, credited by one running
     * count per link, so a sender can be ncells calls ahead of a receiver
     * that is not running (more PEs than cores) instead of k. */
    int ncells;             /* 16, 32 or 64 */
    unsigned cellshift;     /* log2(ncells) */
    uint64_t cellmask;      /* ncells - 1 */
    uint32_t cell_bytes;    /* payload bound: 28 (inline only) or 64..256 */
    uint64_t ccredit_off;   /* [n] lines: how many of this PE's cells member r consumed */
    uint64_t cell_off;      /* [n][ncells] cells' first lines (flag, header or inline data) */
    uint64_t cell_data_off; /* [n][ncells] cells' payloads of cell_bytes (none if inline only) */
    uint64_t *csent;        /* [n] cells sent to each member */
    uint64_t *crecvd;       /* [n] cells received from each member */
    uint64_t *cseen;        /* [n] the credit last read from each member */
    uint8_t *cheld;         /* [n] the chunk last received from member r came in a cell */
};

/* One collective call in progress. */
struct sym_coll {
    struct sym_team *team;
    const char *name; /* "sym_allreduce" */
    struct sym_fp fp;
    const char *algo_source; /* how fp.algo was chosen, for the debug log */
    double timeout_s;        /* the call's, else the team's; 0: SYMHEAP_TIMEOUT */
    /* The call's deadline, timeout_s from its first wait that blocks: every
     * wait of the call and every transport call it makes (a put that waits
     * for its completion over manual progress) share it, so a member that
     * is late or gone is reported within the timeout, however many steps
     * the call has. */
    struct sym_deadline dl;
    bool published; /* fingerprint written to this PE's call line */
    /* Messages of fewer bytes than cells_below travel in cells (0: none);
     * cells_per_link: each link carries one message of the call (besides
     * the strict check's empty ones), so a link's message may take the
     * cells while another's takes the slots (sym_chan_use_cells). */
    uint64_t cells_below;
    bool cells_per_link;
    /* SYMHEAP_COLL_CHECK=strict: the caller's return address (set by
     * sym_coll_prepare), then at sym_coll_start its call-site word
     * (coll_check.h), hashed into fp.layout; 0 otherwise. */
    const void *caller;
    uint64_t site;
};

/* What each PE publishes about its calls on a team, one line in the
 * team's area (chan_stall.c writes it, stall checks and sym_team_sync read
 * it): the current call's fingerprint and call site, and the number of the
 * last call this PE finished without error. */
struct sym_call_line {
    uint64_t seq; /* == fp.seq once fp is complete (0 while it is written) */
    struct sym_fp fp;
    uint64_t site; /* call-site word under SYMHEAP_COLL_CHECK=strict, else 0 */
    uint64_t done; /* last call number this PE finished with SYM_OK */
};

/* Lay out a channel for n members in [area_off, area_off + area_size),
 * with a cell queue if `cells` and the area leaves room for one (chan.c
 * says how cells and slots share it).  Errors: SYM_ERR_NO_MEMORY if the
 * area cannot hold one minimal slot per link (the message names `what`
 * and the bytes needed). */
sym_status_t sym_chan_init(struct sym_chan *ch, uint64_t area_off, uint64_t area_size, int n,
                           const int *pe_of, size_t max_chunk, bool cells, const char *what);
void sym_chan_fini(struct sym_chan *ch);

/* Zero this PE's copy of the area (flags) before anyone uses it. */
void sym_chan_clear_local(struct sym_chan *ch);

/* sym_chan_clear_local, and every link's counts back to zero
 * (sym_team_recover, once no member writes into the channel). */
void sym_chan_restart(struct sym_chan *ch);

/* The largest message the channel's cells take in this job (0: it has
 * none): their payload, or 28 bytes (inline messages only) in a job whose
 * PEs each have a core (chan_cells.c says why). */
uint32_t sym_chan_cells_hold(const struct sym_chan *ch);

/* Route every message of call c through the cells if the channel has
 * them and `largest`, the largest message any link carries in the call
 * (a bound that follows from the fingerprint and the team: sender and
 * receiver must choose alike), fits a cell.  A mismatched pair that
 * chooses differently is found by the stray check (chan.c) or the stall
 * check, as any call that shares no link. */
void sym_chan_use_cells(struct sym_coll *c, size_t largest);

/* For calls whose every link carries one message (gather, scatter,
 * all_to_all(v)): each message that fits a cell takes the cells, each
 * larger one the slots, by the size both ends pass (sym_chan_send's
 * msg_bytes, sym_chan_recv_msg's expect).  Ends that disagree on a size
 * across the bound are found by a receive stuck on one path while the
 * other holds the call's message. */
void sym_chan_use_cells_per_link(struct sym_coll *c);

/* Send one chunk of len <= chunk bytes of a message of msg_bytes to member
 * `dst`. */
sym_status_t sym_chan_send(struct sym_coll *c, int dst, const void *data, size_t len,
                           uint64_t msg_bytes);

/* Wait for the next chunk from member `src` of a message of `expect`
 * bytes (it chooses the path, as msg_bytes does at the sender; the
 * message's own size is returned in *msg_bytes_p); *data_p points into
 * this PE's own slot or cell and stays valid until sym_chan_release(c,
 * src). */
sym_status_t sym_chan_recv_msg(struct sym_coll *c, int src, uint64_t expect, const void **data_p,
                               size_t *len_p, uint64_t *msg_bytes_p);

/* sym_chan_recv_msg for an empty message, or any message of a call whose
 * messages all take one path (sym_chan_use_cells). */
static inline sym_status_t sym_chan_recv(struct sym_coll *c, int src, const void **data_p,
                                         size_t *len_p, uint64_t *msg_bytes_p)
{
    return sym_chan_recv_msg(c, src, 0, data_p, len_p, msg_bytes_p);
}

/* The chunk from `src` has been consumed: give the slot back. */
sym_status_t sym_chan_release(struct sym_coll *c, int src);

/* Wait until member `dst` has consumed every chunk this PE sent it (slots
 * and cells). */
sym_status_t sym_chan_flush(struct sym_coll *c, int dst);

/* Report an error found by this PE to every member, so PEs waiting on the
 * team stop with the same error; `msg` is the text they will report. */
void sym_chan_poison(struct sym_coll *c, sym_status_t status, const char *msg);

/* If some member poisoned the team: its status (message recorded), else OK. */
sym_status_t sym_chan_poisoned(struct sym_coll *c);

/* Read member `pe`'s call line consistently (false while it is being
 * rewritten or cannot be read). */
bool sym_chan_read_call(const struct sym_coll *c, int pe, struct sym_call_line *out);

/* Record in this PE's call line that call c finished with SYM_OK. */
void sym_chan_publish_done(struct sym_coll *c);

/* This PE makes no more collective calls on the team (sym_finalize): its
 * call line says so, for the stall checks of members waiting for it. */
void sym_chan_publish_final(struct sym_team *team);

/* sym_finalize on `team` (team_sync.c): before the world barrier, say that
 * this PE makes no more calls on it and wait until its members took what
 * this PE sent (a member that finalizes without taking it is a mismatch,
 * reported to all); after the barrier, the error any member reported.
 * SYM_OK for a broken team: its error was reported when it broke. */
sym_status_t sym_team_final_flush(struct sym_team *team, const char *op);
sym_status_t sym_team_final_state(struct sym_team *team, const char *op);

/* Non-blocking views for point-to-point, which matches messages itself:
 * the next chunk from `src` if it has arrived (header first, payload right
 * after it; no fingerprint check), else NULL; and whether a chunk to `dst`
 * would be sent without waiting for a credit. */
const struct sym_chunk_hdr *sym_chan_peek(const struct sym_chan *ch, int src);
bool sym_chan_can_send(const struct sym_chan *ch, int dst);

#endif /* SYM_COLL_CHAN_H */
