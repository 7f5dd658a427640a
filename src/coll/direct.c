/* direct.c - the direct algorithm's protocol (direct.h): team state,
 * offers, announcements, rounds and the counters that order them. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/chan_private.h"
#include "coll/direct.h"
#include "coll/tuning.h"
#include "base/health.h"
#include "core/cma.h"

/* An announcement: what the owner offers and what this reader takes of it,
 * two lines, written by the owner with put-with-signal (flag last). */
struct dann {
    struct sym_fp fp;
    uint64_t where; /* HEAP: offset in the owner's heap; CMA: address; STAGED: staging offset */
    uint64_t bytes; /* of the whole offer */
    uint32_t kind;  /* enum sym_dloc */
    uint32_t pad0;
    /* second line */
    uint64_t roff, rlen; /* the range this reader takes */
    uint32_t base, rounds;
    uint64_t win;
    uint64_t pad1[3];
    uint64_t flag; /* seq * 4 + phase */
};
_Static_assert(sizeof(struct dann) == 2 * SYM_LINE, "an announcement is two lines");
_Static_assert(offsetof(struct dann, roff) == SYM_LINE, "its second line starts with the range");

#define UNITS_BITS 20
#define UNITS_MASK ((UINT64_C(1) << UNITS_BITS) - 1)

static inline uint64_t units_word(uint64_t seq, uint64_t units)
{
    return seq << UNITS_BITS | units;
}

/* ---- the lines: announcements [n][2 phases] (2 lines each), rounds [n],
 * done [n] ---- */

uint64_t sym_direct_lines_bytes(int n)
{
    return (uint64_t)n * 6 * SYM_LINE;
}

static inline uint64_t ann_off(const struct sym_dteam *dt, int owner, int phase)
{
    return dt->lines_off + ((uint64_t)owner * 2 + (uint64_t)(phase - 1)) * 2 * SYM_LINE;
}

static inline uint64_t rnd_off(const struct sym_dteam *dt, int n, int owner)
{
    return dt->lines_off + ((uint64_t)n * 4 + (uint64_t)owner) * SYM_LINE;
}

static inline uint64_t done_off(const struct sym_dteam *dt, int n, int reader)
{
    return dt->lines_off + ((uint64_t)n * 5 + (uint64_t)reader) * SYM_LINE;
}

sym_status_t sym_direct_team_init(struct sym_dteam *dt, int n, uint64_t lines_off,
                                  uint64_t stage_off, uint64_t stage_size)
{
    memset(dt, 0, sizeof(*dt));
    dt->usable = -1;
    dt->lines_off = lines_off;
    dt->stage_off = stage_off;
    dt->stage_size = stage_size / SYM_LINE * SYM_LINE;
    dt->owed = calloc((size_t)n, sizeof(uint64_t));
    dt->picks = calloc((size_t)n * 2, sizeof(bool));
    dt->views = calloc((size_t)n * 2, sizeof(struct sym_dview));
    dt->dsts = calloc((size_t)n, sizeof(uint8_t *));
    dt->roff = calloc((size_t)n * 2, sizeof(size_t));
    if (!dt->owed || !dt->picks || !dt->views || !dt->dsts || !dt->roff) {
        sym_direct_team_fini(dt);
        return sym_error(SYM_ERR_NO_MEMORY, "out of memory for a team of %d", n);
    }
    dt->views2 = dt->views + n;
    dt->rlen = dt->roff + n;
    return SYM_OK;
}

void sym_direct_team_fini(struct sym_dteam *dt)
{
    free(dt->owed);
    free(dt->scratch);
    free(dt->picks);
    free(dt->views);
    free(dt->dsts);
    free(dt->roff);
    memset(dt, 0, sizeof(*dt));
}

void sym_direct_team_clear(struct sym_team *team)
{
    struct sym_dteam *dt = &team->direct;
    if (dt->lines_off)
        memset(sym_rt.base + dt->lines_off, 0, (size_t)sym_direct_lines_bytes(team->size));
    memset(dt->owed, 0, (size_t)team->size * sizeof(uint64_t));
}

bool sym_direct_usable(struct sym_team *team, const char **why)
{
    struct sym_dteam *dt = &team->direct;
    static const char *const reasons[] = {
        NULL,
        "not every member's heap is mapped here (members on other hosts, or "
        "SYMHEAP_TRANSPORT=ofi)",
        "the team's mailbox area has no room for the direct lines",
        "members' private buffers cannot be reached: cross-memory attach is off or refused "
        "(SYMHEAP_CMA), and only the world team has a staging area (SYMHEAP_STAGING_SIZE)",
    };
    int reason = 0;
    if (dt->usable < 0) {
        /* without mapping them: a member is mapped on its first read */
        for (int r = 0; r < team->size && !reason; r++)
            if (!sym_pe_direct(team->pe_of[r]))
                reason = 1;
        if (!reason && !dt->lines_off)
            reason = 2;
        bool cma = sym_rt.cfg.cma.v != SYM_CFG_CMA_OFF;
        for (int r = 0; r < team->size && cma && !reason; r++)
            cma = sym_cma_verdict(team->pe_of[r]);
        dt->cma = !reason && cma;
        if (!reason && !dt->cma && !dt->stage_size)
            reason = 3;
        dt->usable = reason == 0;
        if (!dt->usable)
            dt->cma = false;
        if (!dt->scratch && dt->usable && !(dt->scratch = malloc(3 * SYM_DPIECE)))
            dt->usable = -1; /* out of memory: decided again next time */
    }
    if (dt->usable == 1)
        return true;
    if (why) {
        /* decided earlier: say it again */
        for (int r = 0; r < team->size && !reason; r++)
            if (!sym_pe_direct(team->pe_of[r]))
                reason = 1;
        if (!reason)
            reason = !dt->lines_off ? 2 : 3;
        *why = dt->usable < 0 ? "out of memory" : reasons[reason];
    }
    return false;
}

bool sym_direct_prefers_cma(const struct sym_coll *c, size_t bytes)
{
    (void)c;
    if (sym_rt.cfg.cma.v == SYM_CFG_CMA_ON)
        return true;
    return bytes >= sym_tuning.cma_min;
}

/* ---- one call ---- */

void sym_dcall_begin(struct sym_dcall *d, struct sym_coll *c)
{
    memset(d, 0, sizeof(*d));
    d->c = c;
    d->dt = &c->team->direct;
    if (!c->published)
        sym_chan_publish_call(c);
}

static inline bool reads(struct sym_dreaders rd, int r, int me)
{
    return r != me && (rd.which ? rd.which[r] : rd.all || rd.one == r);
}

/* Wait until member r has taken everything below `word` of this PE's
 * offers (capped by what it owes). */
static sym_status_t wait_done(struct sym_dcall *d, int r, uint64_t word, const char *what)
{
    struct sym_coll *c = d->c;
    const uint64_t owed = d->dt->owed[r];
    if (word > owed)
        word = owed;
    if (!word)
        return SYM_OK;
    return chan_wait(c, done_off(d->dt, c->team->size, r), word, r, what, 0);
}

/* Where this PE's round r of offer o lies in its staging area: the area is
 * a ring of SYM_DSLOTS slots of `win` bytes, round r in slot r % SYM_DSLOTS. */
static inline uint64_t stage_pos(const struct sym_doffer *o, uint32_t r)
{
    return (uint64_t)(r % SYM_DSLOTS) * o->win;
}

/* The geometry every member computes alike from an offer's size: rounds of
 * a staging slot's size, so that readers start on the first while the owner
 * stages the next; one round for a team without a staging area. */
static void geometry(const struct sym_dteam *dt, uint64_t bytes, uint64_t *win, uint32_t *rounds)
{
    const uint64_t slot = dt->stage_size / SYM_DSLOTS / SYM_LINE * SYM_LINE;
    if (!slot || bytes <= slot) {
        *win = bytes;
        *rounds = 1;
        return;
    }
    *win = slot;
    *rounds = (uint32_t)((bytes + slot - 1) / slot);
}

static sym_status_t publish_round(struct sym_dcall *d, int phase, uint32_t r)
{
    struct sym_coll *c = d->c;
    const struct sym_doffer *o = &d->mine[phase - 1];
    const int n = c->team->size, me = c->team->rank;
    const uint64_t word = units_word(c->fp.seq, o->base + r + 1);
    for (int q = 0; q < n; q++) {
        if (!reads(d->readers[phase - 1], q, me))
            continue;
        sym_status_t st = chan_transport(
            c, sym_flag_set_dl(c->team->pe_of[q], rnd_off(d->dt, n, me), word, &c->dl));
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

/* The unit every reader must be past before round r of offer o may take
 * its slot: the first SYM_DSLOTS rounds of an offer come after every
 * earlier unit; round r shares its slot with round r - SYM_DSLOTS. */
static inline uint64_t slot_past(const struct sym_doffer *o, uint32_t r)
{
    return r < SYM_DSLOTS ? o->base : o->base + r - SYM_DSLOTS + 1;
}

/* Whether round r's slot is free now, without waiting. */
static bool slot_free(struct sym_dcall *d, int phase, uint32_t r)
{
    const struct sym_coll *c = d->c;
    const int n = c->team->size, me = c->team->rank;
    const uint64_t want = units_word(c->fp.seq, slot_past(&d->mine[phase - 1], r));
    for (int q = 0; q < n; q++) {
        const uint64_t w = want < d->dt->owed[q] ? want : d->dt->owed[q];
        if (q != me && w && sym_flag_load(done_off(d->dt, n, q)) < w)
            return false;
    }
    return true;
}

/* Copy offer-local round r of phase `phase` into the staging area, after
 * every reader is past what lay there. */
static sym_status_t stage_round(struct sym_dcall *d, int phase, uint32_t r)
{
    struct sym_coll *c = d->c;
    struct sym_doffer *o = &d->mine[phase - 1];
    const int n = c->team->size, me = c->team->rank;
    for (int q = 0; q < n; q++) {
        if (q == me)
            continue;
        sym_status_t st = wait_done(d, q, units_word(c->fp.seq, slot_past(o, r)),
                                    "take the staged data of an earlier round");
        if (st != SYM_OK)
            return st;
    }
    const uint64_t lo = (uint64_t)r * o->win;
    const uint64_t hi = lo + o->win < o->bytes ? lo + o->win : o->bytes;
    uint8_t *area = sym_rt.base + o->stage + stage_pos(o, r);
    /* [lo, hi) without [skip_lo, skip_hi) */
    if (lo < hi && o->skip_lo > lo)
        memcpy(area, o->buf + lo, (size_t)((o->skip_lo < hi ? o->skip_lo : hi) - lo));
    if (lo < hi && o->skip_hi < hi) {
        const uint64_t from = o->skip_hi > lo ? o->skip_hi : lo;
        memcpy(area + (from - lo), o->buf + from, (size_t)(hi - from));
    }
    o->staged = (int)r + 1;
    return SYM_OK;
}

sym_status_t sym_dcall_offer(struct sym_dcall *d, int phase, const void *buf, size_t bytes,
                             size_t skip_lo, size_t skip_hi, struct sym_dreaders readers,
                             const size_t *roff, const size_t *rlen)
{
    struct sym_coll *c = d->c;
    struct sym_dteam *dt = d->dt;
    struct sym_doffer *o = &d->mine[phase - 1];
    const int n = c->team->size, me = c->team->rank;
    d->phase = phase;
    d->readers[phase - 1] = readers;
    *o = (struct sym_doffer){.buf = buf, .bytes = bytes, .skip_lo = skip_lo, .skip_hi = skip_hi};
    if (o->skip_hi <= o->skip_lo)
        o->skip_lo = o->skip_hi = bytes;
    o->base = phase == 2 ? d->mine[0].base + d->mine[0].rounds : 0;
    geometry(dt, bytes, &o->win, &o->rounds);
    /* Where the offer lies: in the heap, readers take it mapped; private
     * memory by cross-memory attach where every member can, unless copying
     * it into the staging area once is measured to be faster. */
    uint64_t where = 0;
    const uintptr_t a = (uintptr_t)buf, ulo = (uintptr_t)sym_rt.base + sym_rt.layout.user_off;
    if (!bytes) {
        o->kind = SYM_DLOC_HEAP;
    } else if (a >= ulo && a - ulo <= sym_rt.layout.user_size &&
               bytes <= sym_rt.layout.user_size - (a - ulo)) {
        o->kind = SYM_DLOC_HEAP;
        where = (uint64_t)(a - (uintptr_t)sym_rt.base);
    } else if (dt->cma && (!dt->stage_size || sym_direct_prefers_cma(c, bytes))) {
        o->kind = SYM_DLOC_CMA;
        where = (uint64_t)a;
    } else {
        o->kind = SYM_DLOC_STAGED;
        o->stage = dt->stage_off;
        where = dt->stage_off;
    }
    /* The announcement lines and the staging area are free once every
     * reader took what this PE offered before. */
    sym_status_t st = SYM_OK;
    if (o->kind == SYM_DLOC_STAGED)
        st = stage_round(d, phase, 0);
    struct dann ann = {
        .fp = c->fp,
        .where = where,
        .bytes = bytes,
        .kind = o->kind,
        .base = o->base,
        .rounds = o->rounds,
        .win = o->win,
    };
    const uint64_t flag = c->fp.seq * 4 + (uint64_t)phase;
    const uint64_t owes = units_word(c->fp.seq, o->base + o->rounds);
    for (int q = 0; q < n && st == SYM_OK; q++) {
        if (!reads(readers, q, me))
            continue;
        if ((st = wait_done(d, q, dt->owed[q], "take what this PE offered before")) != SYM_OK)
            break;
        ann.roff = roff ? roff[q] : 0;
        ann.rlen = rlen ? rlen[q] : bytes;
        st = chan_transport(
            c, sym_put_signal_off_dl(c->team->pe_of[q], ann_off(dt, me, phase), &ann,
                                     offsetof(struct dann, flag),
                                     ann_off(dt, me, phase) + offsetof(struct dann, flag), flag,
                                     SYM_SIGNAL_SET, &c->dl));
        dt->owed[q] = owes;
    }
    return st;
}

/* Member `owner` announced an offer and ended before this PE first mapped
 * its heap: the offer is gone.  The job health check names the loss when
 * it has word of it (the launcher reaps the process a moment later, or the
 * transport found it unreachable); until then this says so itself. */
static sym_status_t owner_lost(struct sym_coll *c, int owner)
{
    const int pe = c->team->pe_of[owner];
    char what[128];
    snprintf(what, sizeof(what), "member %d (PE %d)'s offer", owner, pe);
    sym_status_t st = sym_job_check(c->name, what);
    if (st != SYM_OK)
        return st;
    return sym_error(SYM_ERR_PEER_LOST,
                     "%s #%" PRIu64 " on %s: member %d (PE %d) offered its data and ended before "
                     "this PE could map its heap to read it",
                     c->name, c->fp.seq, c->team->name, owner, pe);
}

sym_status_t sym_dcall_view(struct sym_dcall *d, int phase, int owner, struct sym_dview *v)
{
    struct sym_coll *c = d->c;
    struct sym_dteam *dt = d->dt;
    const uint64_t at = ann_off(dt, owner, phase);
    memset(v, 0, sizeof(*v));
    v->owner = owner;
    sym_status_t st = chan_wait(c, at + offsetof(struct dann, flag),
                                c->fp.seq * 4 + (uint64_t)phase, owner, "offer its data", 0);
    if (st != SYM_OK)
        return st;
    __atomic_thread_fence(__ATOMIC_ACQUIRE);
    struct dann ann;
    memcpy(&ann, sym_rt.base + at, sizeof(ann));
    if (memcmp(&ann.fp, &c->fp, sizeof(c->fp)) != 0)
        return sym_chan_chunk_mismatch(c, owner, &ann.fp, ann.rlen, 0);
    uint64_t win;
    uint32_t rounds;
    geometry(dt, ann.bytes, &win, &rounds);
    const int pe = c->team->pe_of[owner];
    const bool range_ok = ann.roff <= ann.bytes && ann.rlen <= ann.bytes - ann.roff;
    if (!range_ok || ann.win != win || ann.rounds != rounds || ann.kind < SYM_DLOC_HEAP ||
        ann.kind > SYM_DLOC_STAGED || (ann.kind == SYM_DLOC_CMA && !dt->cma))
        return sym_chan_bad_format(c, owner, ann.kind, "an offer", "direct lines",
                                   "not an offer this PE can read");
    v->kind = (uint8_t)ann.kind;
    v->bytes = ann.bytes;
    v->roff = ann.roff;
    v->rlen = ann.rlen;
    v->base = ann.base;
    v->rounds = ann.rounds;
    v->win = ann.win;
    if (v->kind == SYM_DLOC_CMA) {
        v->va = ann.where;
        v->ready = v->base + v->rounds;
    } else {
        v->ptr = sym_direct(pe, ann.where);
        /* Its first use here found the owner gone (or refused to this PE):
         * what stands in for its heap reads as zeros, not as its data. */
        if (sym_pe_stand_in(pe))
            return owner_lost(c, owner);
        v->ready = v->kind == SYM_DLOC_STAGED ? v->base + 1 : v->base + v->rounds;
    }
    return SYM_OK;
}

sym_status_t sym_dcall_view_all(struct sym_dcall *d, int phase, struct sym_dview *views)
{
    const struct sym_team *t = d->c->team;
    sym_status_t st = SYM_OK;
    for (int i = 0; i < t->size && st == SYM_OK; i++) {
        if (i == t->rank) {
            memset(&views[i], 0, sizeof(views[i]));
            views[i].owner = -1;
        } else {
            st = sym_dcall_view(d, phase, i, &views[i]);
        }
    }
    return st;
}

sym_status_t sym_dcall_stage(struct sym_dcall *d, uint32_t r)
{
    const int phase = d->phase;
    if (!phase)
        return SYM_OK;
    struct sym_doffer *o = &d->mine[phase - 1];
    if (o->kind != SYM_DLOC_STAGED)
        return SYM_OK;
    sym_status_t st = SYM_OK;
    /* round r must be there (waiting for its slot if need be); later ones
     * go too while their slots are free, so that readers which need them
     * do not wait for this PE's own reading of the rounds before */
    for (uint32_t q = (uint32_t)o->staged; q < o->rounds && st == SYM_OK; q++) {
        if (q > r && !slot_free(d, phase, q))
            break;
        st = stage_round(d, phase, q);
        if (st == SYM_OK)
            st = publish_round(d, phase, q);
    }
    return st;
}

void sym_dview_window(const struct sym_dview *v, uint32_t r, uint64_t *lo, uint64_t *hi)
{
    uint64_t a = (uint64_t)r * v->win, b = a + v->win;
    if (r + 1 >= v->rounds)
        b = v->bytes;
    if (a < v->roff)
        a = v->roff;
    if (b > v->roff + v->rlen)
        b = v->roff + v->rlen;
    *lo = a;
    *hi = b > a ? b : a;
}

sym_status_t sym_dcall_ready(struct sym_dcall *d, struct sym_dview *v, uint32_t r)
{
    if (v->base + r < v->ready)
        return SYM_OK;
    struct sym_coll *c = d->c;
    const uint64_t off = rnd_off(d->dt, c->team->size, v->owner);
    sym_status_t st =
        chan_wait(c, off, units_word(c->fp.seq, v->base + r + 1), v->owner, "stage its data", 0);
    if (st != SYM_OK)
        return st;
    v->ready = (uint32_t)(sym_flag_load(off) & UNITS_MASK);
    return SYM_OK;
}

sym_status_t sym_dcall_done(struct sym_dcall *d, struct sym_dview *v, uint32_t r)
{
    if (v->owner < 0 || v->done)
        return SYM_OK;
    struct sym_coll *c = d->c;
    if (r >= v->rounds) {
        r = v->rounds;
        v->done = true;
    }
    __atomic_thread_fence(__ATOMIC_ACQ_REL); /* every read of it before the word */
    return chan_transport(c, sym_flag_set_dl(c->team->pe_of[v->owner],
                                             done_off(d->dt, c->team->size, c->team->rank),
                                             units_word(c->fp.seq, v->base + r), &c->dl));
}

sym_status_t sym_dcall_end(struct sym_dcall *d)
{
    struct sym_coll *c = d->c;
    const int n = c->team->size, me = c->team->rank;
    sym_status_t st = SYM_OK;
    for (int p = 1; p <= 2 && st == SYM_OK; p++) {
        struct sym_doffer *o = &d->mine[p - 1];
        if (!o->rounds)
            continue;
        /* the rest of a staged offer (a root that only sends) */
        d->phase = p;
        for (uint32_t r = (uint32_t)o->staged;
             o->kind == SYM_DLOC_STAGED && r < o->rounds && st == SYM_OK; r++)
            st = sym_dcall_stage(d, r);
        if (o->kind == SYM_DLOC_STAGED)
            continue; /* eager: the staging area is waited for when reused */
        /* the readers take this PE's own memory: wait for them */
        for (int q = 0; q < n && st == SYM_OK; q++)
            if (reads(d->readers[p - 1], q, me))
                st = wait_done(d, q, units_word(c->fp.seq, o->base + o->rounds),
                               "take the data this PE offered");
    }
    return st;
}

sym_status_t sym_direct_flush(struct sym_coll *c)
{
    struct sym_team *t = c->team;
    struct sym_dteam *dt = &t->direct;
    if (!dt->lines_off || !dt->owed)
        return SYM_OK;
    struct sym_dcall d;
    sym_dcall_begin(&d, c);
    for (int q = 0; q < t->size; q++) {
        if (q == t->rank || !dt->owed[q])
            continue;
        sym_status_t st = wait_done(&d, q, dt->owed[q], "take the data this PE offered");
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}
