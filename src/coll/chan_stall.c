/* chan_stall.c - when the channel has to wait: the call line each PE
 * publishes, the wait with its stall checks (a late member or a mismatch)
 * and timeout message, and the team's poison word. */
#include <inttypes.h>
#include <stdio.h>

#include "coll/chan_private.h"
#include "coll/coll_check.h"

/* ---- the call line: each PE's current fingerprint, for stall checks ----
 * Written locally once per call (fingerprint, then its sequence number with
 * release); read remotely only when a wait is stuck, and by sym_team_sync. */
_Static_assert(sizeof(struct sym_call_line) == SYM_LINE, "the call line is one cache line");

void sym_chan_publish_call(struct sym_coll *c)
{
    struct sym_call_line *cl = (void *)(sym_rt.base + c->team->chan.call_off);
    __atomic_store_n(&cl->seq, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    cl->fp = c->fp;
    cl->site = c->site;
    __atomic_store_n(&cl->seq, c->fp.seq, __ATOMIC_RELEASE);
    c->published = true;
}

void sym_chan_publish_final(struct sym_team *team)
{
    struct sym_call_line *cl = (void *)(sym_rt.base + team->chan.call_off);
    __atomic_store_n(&cl->seq, 0, __ATOMIC_RELAXED);
    __atomic_thread_fence(__ATOMIC_RELEASE);
    memset(&cl->fp, 0, sizeof(cl->fp));
    cl->fp.seq = SYM_FP_FINAL;
    __atomic_store_n(&cl->seq, SYM_FP_FINAL, __ATOMIC_RELEASE);
}

void sym_chan_publish_done(struct sym_coll *c)
{
    struct sym_call_line *cl = (void *)(sym_rt.base + c->team->chan.call_off);
    __atomic_store_n(&cl->done, c->fp.seq, __ATOMIC_RELEASE);
}

/* A deadline of its own for what a stuck call does to look at its members
 * or tell them it failed (a read of a call line or held slot, a poison
 * put): the call's own may have passed by then, and over a provider with
 * manual progress such a transfer waits for its target; the call's timeout
 * still bounds it. */
static struct sym_deadline report_deadline(const struct sym_coll *c)
{
    return sym_deadline_in(c->name, c->timeout_s);
}

/* The reads of one line share a deadline (report_deadline): its sequence
 * number before and after the fingerprint must agree (the writer zeroes it
 * while it writes). */
bool sym_chan_read_call(const struct sym_coll *c, int pe, struct sym_call_line *out)
{
    const struct sym_chan *ch = &c->team->chan;
    struct sym_deadline dl = report_deadline(c);
    uint64_t before, after;
    if (sym_get_off_dl(pe, &before, ch->call_off, sizeof(before), &dl) != SYM_OK || before == 0)
        return false;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    const size_t body = offsetof(struct sym_call_line, done) - offsetof(struct sym_call_line, fp);
    if (sym_get_off_dl(pe, &out->fp, ch->call_off + offsetof(struct sym_call_line, fp), body,
                       &dl) != SYM_OK)
        return false;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    if (sym_get_off_dl(pe, &after, ch->call_off, sizeof(after), &dl) != SYM_OK)
        return false;
    out->seq = before;
    out->done = 0;
    return before == after && out->fp.seq == before;
}

/* ---- waiting on a flag of the channel, or the team's poison word ---- */

static bool chan_ready(void *arg)
{
    const struct chan_wait *w = arg;
    return sym_flag_load(w->flag_off) >= w->target ||
           sym_flag_load(w->c->team->chan.poison_off) != 0;
}

/* Names the PE waited for and, since with trees and rings that PE is often
 * stuck itself, every member that has not even started this call. */
static void chan_describe(void *arg, char *buf, size_t len)
{
    const struct chan_wait *w = arg;
    struct sym_team *t = w->c->team;
    size_t used = (size_t)snprintf(
        buf, len, "PE %d (member %d of %s) to %s for %s #%" PRIu64 " on %s", t->pe_of[w->peer],
        w->peer, t->name, w->what, w->c->name + 4, w->c->fp.seq, t->name);
    struct sym_chunk_hdr line;
    struct sym_deadline held_dl = report_deadline(w->c);
    bool got_held =
        w->held && used < len &&
        sym_get_off_dl(t->pe_of[w->peer], &line, w->held, sizeof(line), &held_dl) == SYM_OK;
    if (got_held) {
        char text[160];
        struct sym_fp held;
        line_fp(&line, &held);
        sym_fp_text(&held, text, sizeof(text));
        used += (size_t)snprintf(buf + used, len - used,
                                 " (the slot still holds this PE's "
                                 "chunk of %s, never consumed)",
                                 text);
    }
    const char *sep = "; PEs that have not started this call: PE";
    for (int r = 0; r < t->size && used < len; r++) {
        struct sym_call_line theirs = {0};
        bool started = r == t->rank || (sym_chan_read_call(w->c, t->pe_of[r], &theirs) &&
                                        theirs.seq >= w->c->fp.seq);
        if (started)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s %d", sep, t->pe_of[r]);
        sep = ", PE";
    }
}

static sym_status_t report_mismatch(struct sym_coll *c, int pe, const struct sym_call_line *cl,
                                    bool moved_on)
{
    char mine[160], other[160], sites[300], msg[800];
    sym_fp_text(&c->fp, mine, sizeof(mine));
    sym_fp_text(&cl->fp, other, sizeof(other));
    sym_coll_sites_text(c, pe, cl->site, sites, sizeof(sites));
    snprintf(msg, sizeof(msg), "mismatched collectives on %s: this PE called %s, PE %d %s %s%s",
             c->team->name, mine, pe, moved_on ? "has moved on to" : "called", other, sites);
    sym_chan_poison(c, SYM_ERR_MISMATCH, msg);
    return sym_error(SYM_ERR_MISMATCH, "%s: %s", c->name, msg);
}

/* Members' published calls tell whether a stuck wait is a late peer (an
 * earlier sequence number) or a mismatch: any member in this same call
 * number with another fingerprint, or the awaited PE already past this call
 * without having done what this PE waits for.  Catches mismatches no chunk
 * reveals: two broadcast roots that only send, two reduce roots that only
 * receive, or calls whose algorithms share no link. */
static sym_status_t chan_stalled(void *arg)
{
    const struct chan_wait *w = arg;
    struct sym_coll *c = w->c;
    const struct sym_team *t = c->team;
    for (int r = 0; r < t->size; r++) {
        struct sym_call_line theirs;
        bool got = r != t->rank && sym_chan_read_call(c, t->pe_of[r], &theirs);
        if (!got || theirs.seq < c->fp.seq)
            continue; /* being rewritten, or not in this call yet */
        if (theirs.seq == c->fp.seq) {
            if (memcmp(&theirs.fp, &c->fp, sizeof(c->fp)) != 0)
                return report_mismatch(c, t->pe_of[r], &theirs, false);
            continue;
        }
        if (r != w->peer)
            continue; /* others may well have finished this call */
        /* The awaited PE did everything this PE waits for before it published
         * its next call: look at the flag again after the call line. */
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (!chan_ready((void *)w))
            return report_mismatch(c, t->pe_of[r], &theirs, true);
    }
    /* Waiting for data on one path of the link while the other holds this
     * call's message from that member: it sent it there (a size on the
     * other side of the cells' bound).  Everything the member sent before
     * it would be here by now: look at the flag again after that line. */
    struct sym_fp fp;
    uint64_t bytes;
    if (w->data && sym_chan_stray(c, w->peer, w->data == 2, true, &fp, &bytes)) {
        __atomic_thread_fence(__ATOMIC_ACQUIRE);
        if (!chan_ready((void *)w))
            return sym_chan_chunk_mismatch(c, w->peer, &fp, bytes, w->expect);
    }
    return SYM_OK;
}

sym_status_t sym_chan_wait_slow(const struct chan_wait *w)
{
    struct sym_waiter waiter = {chan_ready, chan_describe, (void *)w, chan_stalled};
    sym_status_t st = sym_wait_for(&w->c->dl, &waiter);
    if (st != SYM_OK)
        return st;
    if (sym_flag_load(w->flag_off) >= w->target)
        return SYM_OK;
    return sym_chan_poisoned(w->c);
}

sym_status_t sym_chan_chunk_mismatch(struct sym_coll *c, int src, const struct sym_fp *fp,
                                     uint64_t bytes, uint64_t expect)
{
    const int pe = c->team->pe_of[src];
    char msg[800];
    if (!memcmp(fp, &c->fp, sizeof(*fp))) {
        /* the same call, another size (all_to_allv counts) */
        snprintf(msg, sizeof(msg),
                 "PE %d sent %" PRIu64 " bytes where PE %d expected %" PRIu64 " from it", pe, bytes,
                 sym_rt.me, expect);
        sym_chan_poison(c, SYM_ERR_MISMATCH, msg);
        return sym_error(SYM_ERR_MISMATCH, "%s #%" PRIu64 " on %s: %s", c->name, c->fp.seq,
                         c->team->name, msg);
    }
    char mine[160], theirs[160], sites[300] = "";
    sym_fp_text(&c->fp, mine, sizeof(mine));
    sym_fp_text(fp, theirs, sizeof(theirs));
    if (c->site) {
        struct sym_call_line cl;
        const bool got = sym_chan_read_call(c, pe, &cl) && cl.seq == fp->seq;
        sym_coll_sites_text(c, pe, got ? cl.site : 0, sites, sizeof(sites));
    }
    snprintf(msg, sizeof(msg), "mismatched collectives on %s: this PE called %s, PE %d called %s%s",
             c->team->name, mine, pe, theirs, sites);
    sym_chan_poison(c, SYM_ERR_MISMATCH, msg);
    return sym_error(SYM_ERR_MISMATCH, "%s: %s", c->name, msg);
}

/* ---- poison ---- */

void sym_chan_poison(struct sym_coll *c, sym_status_t status, const char *msg)
{
    struct sym_team *t = c->team;
    struct sym_chan *ch = &t->chan;
    char text[POISON_MSG_BYTES] = {0};
    memcpy(text, msg, strnlen(msg, sizeof(text) - 1)); /* cut long messages */
    uint64_t word = sym_poison_word(t->rank, status);
    /* This PE holds its report too: a wait that found the mismatch and
     * then got its data after all returns success, and this PE must not be
     * the one member left waiting for the others' calls to finish (they
     * failed, and tell no one: they did not find it).  A report another
     * member made first is kept. */
    uint64_t *own = (uint64_t *)(sym_rt.base + ch->poison_off);
    if (!__atomic_load_n(own, __ATOMIC_ACQUIRE)) {
        memcpy(sym_rt.base + ch->msg_off, text, sizeof(text));
        __atomic_store_n(own, word, __ATOMIC_RELEASE);
    }
    for (int r = 0; r < t->size; r++) {
        if (r == t->rank)
            continue;
        struct sym_deadline dl = report_deadline(c);
        sym_put_signal_off_dl(t->pe_of[r], ch->msg_off, text, sizeof(text), ch->poison_off, word,
                              SYM_SIGNAL_SET, &dl);
    }
}

sym_status_t sym_chan_poisoned(struct sym_coll *c)
{
    struct sym_chan *ch = &c->team->chan;
    uint64_t word = sym_flag_load(ch->poison_off);
    if (!word)
        return SYM_OK;
    int by;
    sym_status_t st = sym_poison_decode(word, c->team->size, &by);
    const char *text = (const char *)(sym_rt.base + ch->msg_off);
    return sym_error(st, "%s #%" PRIu64 " on %s: member %d (PE %d) reported: %.*s", c->name,
                     c->fp.seq, c->team->name, by, by >= 0 ? c->team->pe_of[by] : -1,
                     (int)POISON_MSG_BYTES, text);
}

/* ---- errors of the transport, and in what a member wrote ---- */

sym_status_t sym_chan_transport_failed(struct sym_coll *c, sym_status_t st)
{
    if (c->fp.kind == SYM_COLL_P2P)
        return st;
    const char *msg = sym_last_error();
    const size_t n = strlen(c->name);
    if (!strncmp(msg, c->name, n) && !strncmp(msg + n, ": ", 2))
        msg += n + 2;
    char below[768];
    snprintf(below, sizeof(below), "%s", msg);
    return sym_error(st, "%s #%" PRIu64 " on %s: %s", c->name, c->fp.seq, c->team->name, below);
}

sym_status_t sym_chan_bad_format(struct sym_coll *c, int src, uint32_t tag, const char *what,
                                 const char *where, const char *why)
{
    char msg[300];
    snprintf(msg, sizeof(msg),
             "PE %d wrote %s with format word 0x%08x into this PE's %s on %s "
             "(%s)",
             c->team->chan.pe_of[src], what, (unsigned)tag, where, c->team->name, why);
    sym_chan_poison(c, SYM_ERR_INTERNAL, msg);
    return sym_error(SYM_ERR_INTERNAL, "%s: %s", c->name, msg);
}
