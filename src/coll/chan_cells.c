/* chan_cells.c - the cell queue (chan.h): whole small messages, one cell
 * each, credited by one running count per link. */
#include <inttypes.h>

#include "coll/chan_private.h"

/* Messages beyond the inline format take the cells only in a crowded job
 * (more PEs than cores, decided alike on every PE).  Where every PE has a
 * core, receivers take messages as they come, so the run-ahead of a deep
 * queue buys little, while its 64 cells per link touch more cache lines
 * than the slots: at 2 PEs messages of 128 to 256 bytes took 1.2-1.5x as
 * long in cells as in slots.  Inline messages cost no more in a cell. */
uint32_t sym_chan_cells_hold(const struct sym_chan *ch)
{
    if (!ch->ncells)
        return 0;
    return ch->cell_bytes > INLINE_MAX && !sym_coll_crowded() ? INLINE_MAX : ch->cell_bytes;
}

/* One more than the largest message call c may send in a cell (0: none):
 * a message of at most 28 bytes goes inline, whose fingerprint must pack;
 * a larger one has the ordinary header, which holds any. */
static uint64_t cell_bound(const struct sym_coll *c)
{
    const uint32_t hold = sym_chan_cells_hold(&c->team->chan);
    if (!hold || c->fp.kind == SYM_COLL_P2P)
        return 0;
    if (hold <= INLINE_MAX && !fp_packs(&c->fp))
        return 0;
    return (uint64_t)hold + 1;
}

void sym_chan_use_cells(struct sym_coll *c, size_t largest)
{
    const uint64_t below = cell_bound(c);
    c->cells_below = largest < below ? below : 0;
    c->cells_per_link = false;
}

void sym_chan_use_cells_per_link(struct sym_coll *c)
{
    c->cells_below = cell_bound(c);
    c->cells_per_link = true;
}

sym_status_t sym_chan_cell_send(struct sym_coll *c, int dst, const void *data, size_t len,
                                uint64_t msg_bytes)
{
    struct sym_chan *ch = &c->team->chan;
    if (__builtin_expect(len != msg_bytes || len > ch->cell_bytes, 0))
        return sym_error(SYM_ERR_INTERNAL,
                         "%s: a chunk of %zu bytes (message %" PRIu64 ") does not fit a cell of %u",
                         c->name, len, msg_bytes, (unsigned)ch->cell_bytes);
    const uint64_t n = ch->csent[dst];
    const int pe = ch->pe_of[dst];
    const uint64_t cell = cell_at(ch, c->team->rank, n),
                   data_off = cell_data_at(ch, c->team->rank, n);
    prefetch_for_write(pe, cell, data_off, len);
    if (n >= (uint64_t)ch->ncells) {
        /* credit: member dst consumed this cell's previous message; the
         * count last read often covers it, and then the line (which the
         * receiver writes at every release) is not read at all */
        const uint64_t need = n - (uint64_t)ch->ncells + 1, credit = ccredit_line(ch, dst);
        if (ch->cseen[dst] < need) {
            sym_status_t st = chan_wait(c, credit, need, dst, "free a mailbox slot", cell);
            if (st != SYM_OK)
                return st;
            ch->cseen[dst] = sym_flag_load(credit);
        }
    }
    sym_status_t st =
        chunk_put(c, pe, cell, data_off, (n >> ch->cellshift) + 1, data, len, msg_bytes);
    if (st == SYM_OK)
        ch->csent[dst] = n + 1;
    return st;
}

sym_status_t sym_chan_cell_arrived(struct sym_coll *c, int src, uint64_t expect,
                                   const struct sym_chunk_hdr **hdr_p, const uint8_t **payload_p)
{
    struct sym_chan *ch = &c->team->chan;
    const uint64_t n = ch->crecvd[src], cell = cell_at(ch, src, n);
    sym_status_t st = chan_wait_data(c, cell + offsetof(struct inline_line, full),
                                     (n >> ch->cellshift) + 1, src, true, expect);
    if (st != SYM_OK)
        return st;
    const struct sym_chunk_hdr *hdr = (const void *)(sym_rt.base + cell);
    /* the release will write the sender's credit line */
    const uint8_t *f = sym_direct(ch->pe_of[src], ccredit_line(ch, c->team->rank));
    if (f)
        PREFETCH_W(f);
    const uint32_t tag = ((const struct inline_line *)hdr)->tag;
    *hdr_p = hdr;
    *payload_p = NULL;
    if ((tag & ~0xffu) == INLINE_TAG)
        return SYM_OK;
    if (__builtin_expect(tag != 0 || hdr->len != hdr->msg_bytes || hdr->len > ch->cell_bytes ||
                             ch->cell_bytes <= INLINE_MAX,
                         0))
        return sym_chan_bad_format(c, src, tag, "a cell", "cell queue",
                                   "not a whole message that fits the cell");
    const uint8_t *payload = sym_rt.base + cell_data_at(ch, src, n);
    for (uint64_t o = 0; o < hdr->len; o += SYM_LINE)
        __builtin_prefetch(payload + o);
    *payload_p = payload;
    return SYM_OK;
}

sym_status_t sym_chan_cell_release(struct sym_coll *c, int src)
{
    struct sym_chan *ch = &c->team->chan;
    const uint64_t n = ch->crecvd[src];
    ch->crecvd[src] = n + 1;
    return chan_transport(
        c, sym_flag_set_dl(ch->pe_of[src], ccredit_line(ch, c->team->rank), n + 1, &c->dl));
}

sym_status_t sym_chan_cell_flush(struct sym_coll *c, int dst)
{
    struct sym_chan *ch = &c->team->chan;
    const uint64_t sent = ch->csent[dst];
    if (!sent)
        return SYM_OK;
    return chan_wait(c, ccredit_line(ch, dst), sent, dst, "consume what this PE sent",
                     cell_at(ch, c->team->rank, sent - 1));
}

/* The size of the message whose header line is `line` (either format). */
static uint64_t line_bytes(const struct sym_chunk_hdr *line)
{
    const uint32_t tag = ((const struct inline_line *)line)->tag;
    return (tag & ~0xffu) == INLINE_TAG ? tag & 0xffu : line->msg_bytes;
}

bool sym_chan_stray(const struct sym_coll *c, int src, bool on_cells, bool stuck, struct sym_fp *fp,
                    uint64_t *bytes_p)
{
    const struct sym_chan *ch = &c->team->chan;
    if (!ch->ncells || c->fp.kind == SYM_COLL_P2P)
        return false;
    uint64_t line;
    if (on_cells) {
        const uint64_t n = ch->recvd[src], slot = k_slot(ch, n);
        if (sym_flag_load(full_off(ch, src, slot)) < k_use(ch, n) + 1)
            return false;
        line = slot_off(ch, src, slot);
    } else {
        const uint64_t n = ch->crecvd[src];
        line = cell_at(ch, src, n);
        if (sym_flag_load(line + offsetof(struct inline_line, full)) < (n >> ch->cellshift) + 1)
            return false;
    }
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    const struct sym_chunk_hdr *hdr = (const void *)(sym_rt.base + line);
    line_fp(hdr, fp);
    *bytes_p = line_bytes(hdr);
    /* A call whose links carry one message each may send a link's empty
     * strict-check message over the cells while that link's data took the
     * slots: the same call on the other path is a stray only when this
     * PE's wait for its data is stuck (the member sent it nothing here). */
    return fp->seq < c->fp.seq || (fp->seq == c->fp.seq && (!c->cells_per_link || stuck));
}
