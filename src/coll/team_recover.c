/*
 * team_recover.c - sym_team_recover(): a broken team starts a new epoch.
 *
 * After a failed collective the members' channels disagree: chunks sent
 * and never received, link counts out of step, a poison word, sequence
 * numbers apart.  Recovery does not use the channel.  Two dissemination
 * barriers run on the team's recovery lines (the first SYM_TEAM_REC_BYTES
 * of its area, which nothing else writes): after the first, every member
 * is inside sym_team_recover, so nobody writes into any member's channel
 * any more; each member then clears its own channel (flags, poison, call
 * line) and restarts its link counts and sequence numbers at zero; after
 * the second, every member's channel is clear, and the team is used again
 * from the same state as when it was made.  The recovery lines' counters
 * only grow (two barriers per recovery), so they need no reset.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/request.h"
#include "coll/direct.h"
#include "coll/team.h"
#include "core/internal.h"

struct rec_wait {
    struct sym_team *team;
    uint64_t line_off, epoch;
    int from; /* the member that signals this round's line */
    const char *phase;
};

static bool rec_ready(void *arg)
{
    const struct rec_wait *w = arg;
    return sym_flag_load(w->line_off) >= w->epoch;
}

/* Names the round's partner and, since it may be waiting itself, every
 * member that has not entered this phase: member q has once its round-0
 * signal is in member q + 1's line 0. */
static void rec_describe(void *arg, char *buf, size_t len)
{
    const struct rec_wait *w = arg;
    const struct sym_team *t = w->team;
    size_t used =
        (size_t)snprintf(buf, len, "PE %d (member %d of %s) to %s (recovery epoch %" PRIu64 ")",
                         t->pe_of[w->from], w->from, t->name, w->phase, t->rec_epoch + 1);
    const char *sep = "; PEs that have not entered it: PE";
    for (int q = 0; q < t->size && used < len; q++) {
        uint64_t v = 0;
        struct sym_deadline dl = sym_deadline_in("sym_team_recover", t->timeout_s);
        if (q == t->rank ||
            sym_get_off_dl(t->pe_of[(q + 1) % t->size], &v, t->area_off, sizeof(v), &dl) !=
                SYM_OK ||
            v >= w->epoch)
            continue;
        used += (size_t)snprintf(buf + used, len - used, "%s %d", sep, t->pe_of[q]);
        sep = ", PE";
    }
}

static sym_status_t rec_barrier(struct sym_team *t, uint64_t epoch, const char *phase,
                                struct sym_deadline *dl)
{
    const int n = t->size;
    for (int k = 0, d = 1; d < n; k++, d <<= 1) {
        const uint64_t line = t->area_off + (uint64_t)k * SYM_LINE;
        sym_status_t st = sym_flag_set_dl(t->pe_of[(t->rank + d) % n], line, epoch, dl);
        if (st != SYM_OK)
            return st;
        struct rec_wait w = {t, line, epoch, (t->rank - d % n + n) % n, phase};
        struct sym_waiter waiter = {rec_ready, rec_describe, &w, NULL};
        if ((st = sym_wait_for(dl, &waiter)) != SYM_OK)
            return st;
    }
    return SYM_OK;
}

SYM_API sym_status_t sym_team_recover(sym_team_t team)
{
    const char *op = "sym_team_recover";
    sym_status_t st = sym_team_check(op, team);
    if (st != SYM_OK)
        return st;
    /* pending non-blocking calls on the team end first (with the team's
     * error if it is broken); their outcome is the requests' own */
    (void)sym_requests_drain_team(team);
    char before[512];
    snprintf(before, sizeof(before), "%s", team->broken ? team->broken_msg : "");
    struct sym_deadline dl = sym_deadline_in(op, team->timeout_s);
    const uint64_t e = team->rec_epoch;
    st = rec_barrier(team, 2 * e + 1, "enter sym_team_recover", &dl);
    if (st == SYM_OK) {
        sym_chan_restart(&team->chan);
        sym_direct_team_clear(team);
        team->coll_seq = 0;
        st = rec_barrier(team, 2 * e + 2, "finish sym_team_recover", &dl);
    }
    if (st != SYM_OK) {
        char below[768];
        snprintf(below, sizeof(below), "%s", sym_last_error());
        st =
            sym_error(st, "%s on %s: %s; the team stays broken: destroy it", op, team->name, below);
        /* the members that did arrive, and one that never came, learn it
         * at their next call on the team (or destroy) instead of waiting */
        struct sym_coll probe = {.team = team, .name = op, .timeout_s = team->timeout_s};
        sym_chan_poison(&probe, st, sym_last_error());
        team->broken = SYM_OK;
        sym_team_break(team, st, sym_last_error());
        return st;
    }
    team->rec_epoch = e + 1;
    team->broken = SYM_OK;
    team->broken_msg[0] = '\0';
    if (sym_rt.cfg.debug)
        sym_debug("%s: %s starts recovery epoch %" PRIu64 "%s%s", op, team->name, e + 1,
                  before[0] ? " after: " : "", before);
    return SYM_OK;
}
