/* finalize_check.c - sym_finalize against a collective on the world team
 * (finalize_check.h). */
#include "coll/finalize_check.h"

#include <string.h>

#include "coll/chan_private.h"

/* Whether the world team was poisoned before this finalize began: an old
 * error is not this finalize's mismatch.  Finalize runs on one thread. */
static bool poisoned_before;

void sym_finalize_publish(void)
{
    struct sym_team *w = sym_team_world();
    if (!w)
        return;
    poisoned_before = sym_flag_load(w->chan.poison_off) != 0;
    struct sym_coll c = {.team = w, .name = "sym_finalize"};
    c.fp.seq = w->coll_seq + 1;
    c.fp.kind = SYM_COLL_BARRIER_ALL;
    c.fp.root = SYM_FP_ROOT_FINALIZE;
    sym_chan_publish_call(&c);
}

/* Whether the member's report names this finalize: a poison of an earlier
 * call (a run-ahead broadcast's receiver, say) is reported by
 * sym_chan_runahead_report in its own words. */
static bool names_finalize(const struct sym_team *w)
{
    char text[POISON_MSG_BYTES + 1];
    memcpy(text, sym_rt.base + w->chan.msg_off, POISON_MSG_BYTES);
    text[POISON_MSG_BYTES] = '\0';
    /* the call line of sym_finalize, or the mark of sym_team_final_flush */
    return strstr(text, FINALIZE_TEXT) != NULL || strstr(text, FINAL_FLUSH_TEXT) != NULL;
}

sym_status_t sym_finalize_stalled(void *arg)
{
    (void)arg;
    struct sym_team *w = sym_team_world();
    if (!w || poisoned_before || !sym_flag_load(w->chan.poison_off) || !names_finalize(w))
        return SYM_OK;
    struct sym_coll probe = {.team = w, .name = "sym_finalize"};
    probe.fp.seq = w->coll_seq + 1;
    return sym_chan_poisoned(&probe);
}
