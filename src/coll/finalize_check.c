/* finalize_check.c - sym_finalize against a collective on one of this
 * PE's teams (finalize_check.h). */
#include "coll/finalize_check.h"

#include <string.h>

#include "coll/chan_private.h"

static void publish_on(struct sym_team *t, void *arg)
{
    (void)arg;
    t->poisoned_before_finalize = sym_flag_load(t->chan.poison_off) != 0;
    struct sym_coll c = {.team = t, .name = "sym_finalize"};
    c.fp.seq = t->coll_seq + 1;
    c.fp.kind = SYM_COLL_BARRIER_ALL;
    c.fp.root = SYM_FP_ROOT_FINALIZE;
    sym_chan_publish_call(&c);
}

void sym_finalize_publish(void)
{
    sym_team_each(publish_on, NULL);
}

/* Whether the member's report names this PE's finalize: "PE <me> called
 * sym_finalize ..." or "PE <me> has moved on to sym_finalize ...".  A
 * report of another PE's finalize concerns an earlier call of this PE (one
 * that already failed here, say, by its timeout, before the reporter found
 * the mismatch), and a poison of an earlier call in other words (a
 * run-ahead broadcast's receiver) is reported by sym_chan_runahead_report. */
static bool names_my_finalize(const struct sym_team *t)
{
    char text[POISON_MSG_BYTES + 1], called[48], moved[64];
    memcpy(text, sym_rt.base + t->chan.msg_off, POISON_MSG_BYTES);
    text[POISON_MSG_BYTES] = '\0';
    snprintf(called, sizeof(called), "PE %d called sym_finalize", sym_rt.me);
    snprintf(moved, sizeof(moved), "PE %d has moved on to sym_finalize", sym_rt.me);
    return strstr(text, called) != NULL || strstr(text, moved) != NULL;
}

struct stalled {
    sym_status_t st;
};

static void check_team(struct sym_team *t, void *arg)
{
    struct stalled *s = arg;
    if (s->st != SYM_OK || t->poisoned_before_finalize || !sym_flag_load(t->chan.poison_off) ||
        !names_my_finalize(t))
        return;
    struct sym_coll probe = {.team = t, .name = "sym_finalize"};
    probe.fp.seq = t->coll_seq + 1;
    s->st = sym_chan_poisoned(&probe);
}

sym_status_t sym_finalize_stalled(void *arg)
{
    (void)arg;
    struct stalled s = {SYM_OK};
    sym_team_each(check_team, &s);
    return s.st;
}
