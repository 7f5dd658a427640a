/* team_sync.c - sym_team_sync: wait until what this PE sent on a team was
 * taken and every member finished the calls this PE made, then report the
 * team's state.  Collectives return once this PE's data is in its
 * receivers' slots (symheap/coll.h); this is where a PE that only sent
 * learns for certain how its calls ended. */
#include <inttypes.h>
#include <stdio.h>

#include "coll/algorithms.h"
#include "coll/request.h"

struct done_wait {
    struct sym_coll *c;
    int next; /* members before it have finished this PE's calls */
};

/* Member r's last call finished without error, read from its call line. */
static uint64_t member_done(const struct sym_coll *c, int r)
{
    const int pe = c->team->pe_of[r];
    const uint64_t off = c->team->chan.call_off + offsetof(struct sym_call_line, done);
    const uint64_t *p = sym_direct(pe, off);
    if (p)
        return __atomic_load_n(p, __ATOMIC_ACQUIRE);
    uint64_t v = 0;
    struct sym_deadline dl = sym_deadline_in(c->name, c->timeout_s);
    return sym_get_off_dl(pe, &v, off, sizeof(v), &dl) == SYM_OK ? v : 0;
}

static bool done_ready(void *arg)
{
    struct done_wait *w = arg;
    const struct sym_team *t = w->c->team;
    if (sym_flag_load(t->chan.poison_off))
        return true;
    while (w->next < t->size && (w->next == t->rank || member_done(w->c, w->next) >= w->c->fp.seq))
        w->next++;
    return w->next == t->size;
}

static void done_describe(void *arg, char *buf, size_t len)
{
    struct done_wait *w = arg;
    const struct sym_team *t = w->c->team;
    size_t used = (size_t)snprintf(
        buf, len, "every member of %s to finish its collectives up to #%" PRIu64 " (not yet: PE",
        t->name, w->c->fp.seq);
    for (int r = w->next; r < t->size && used < len; r++)
        if (r != t->rank && member_done(w->c, r) < w->c->fp.seq)
            used += (size_t)snprintf(buf + used, len - used, " %d", t->pe_of[r]);
    if (used < len)
        snprintf(buf + used, len - used, ")");
}

/* Finish the call context of a wait on `team` that takes no number: stall
 * checks compare members' calls with this PE's last one. */
static void last_call(struct sym_coll *c, struct sym_team *team)
{
    const struct sym_call_line *mine = (const void *)(sym_rt.base + team->chan.call_off);
    c->caller = NULL;
    c->published = true; /* nothing to publish: this wait sends nothing */
    if (__atomic_load_n(&mine->seq, __ATOMIC_ACQUIRE) == team->coll_seq && team->coll_seq) {
        c->fp = mine->fp;
        c->site = mine->site;
    } else {
        c->fp.seq = team->coll_seq;
    }
}

sym_status_t sym_team_final_flush(struct sym_team *team, const char *op)
{
    if (team->broken)
        return SYM_OK; /* its error was reported when it broke */
    struct sym_coll c = {.team = team, .name = op, .timeout_s = team->timeout_s};
    c.dl = sym_deadline_in(op, c.timeout_s);
    last_call(&c, team);
    /* even with no call made: members waiting for one see it never comes */
    sym_chan_publish_final(team);
    sym_status_t st = sym_coll_flush_all(&c);
    if (st == SYM_OK && sym_flag_load(team->chan.poison_off))
        st = sym_chan_poisoned(&c);
    if (st != SYM_OK)
        sym_team_break(team, st, sym_last_error());
    return st;
}

sym_status_t sym_team_final_state(struct sym_team *team, const char *op)
{
    if (team->broken || !sym_flag_load(team->chan.poison_off))
        return SYM_OK;
    struct sym_coll probe = {.team = team, .name = op};
    probe.fp.seq = team->coll_seq;
    sym_status_t why = sym_chan_poisoned(&probe);
    sym_team_break(team, why, sym_last_error());
    return sym_error(why, "%s: a collective on %s failed after this PE returned from it: %s", op,
                     team->name, team->broken_msg);
}

SYM_API sym_status_t sym_team_sync(sym_team_t team)
{
    const char *op = "sym_team_sync";
    struct sym_coll c;
    /* the checks of a collective (a broken team fails here with its error),
     * pending requests first; the call takes no number */
    sym_status_t st = sym_coll_prepare(&c, op, team, SYM_COLL_BARRIER, 0, 0, 0, -1, NULL);
    if (st != SYM_OK)
        return st;
    last_call(&c, team);
    if (!team->coll_seq)
        return SYM_OK;
    st = sym_coll_flush_all(&c);
    struct done_wait w = {&c, 0};
    if (st == SYM_OK && !done_ready(&w)) {
        struct sym_waiter waiter = {done_ready, done_describe, &w, NULL};
        st = sym_wait_for(&c.dl, &waiter);
    }
    if (st == SYM_OK && sym_flag_load(team->chan.poison_off))
        st = sym_chan_poisoned(&c);
    if (st != SYM_OK && st != SYM_ERR_INVALID_ARG)
        sym_team_break(team, st, sym_last_error());
    return st;
}
