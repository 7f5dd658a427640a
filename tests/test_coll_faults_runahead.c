/*
 * test_coll_faults_runahead.c - broadcast and reduce senders that ran ahead of their
 * receivers: a mismatch, an unconsumed slot, a receiver that dies, or a
 * mismatch found only at the last call are still reported, naming the call.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <stdbool.h>
#include <string.h>
#include <unistd.h>

#include "coll_fault_check.h"

/* ------------------------------------------------------------------------ */
/* broadcast / reduce senders that ran ahead of their receivers              */
/* ------------------------------------------------------------------------ */

/* A matched broadcast (the root returns at once), then a mismatched call
 * right after it: the first call's data must arrive whole, nothing of the
 * second reach any buffer, and every PE report the mismatch (the root at
 * the latest at its next call on the team).  Case 0: the root passes
 * another count; case 1: the root broadcasts again while the others enter
 * a barrier; case 2: the non-roots of a reduce ran ahead, then the root
 * broadcasts while they reduce again. */
struct ahead_param {
    int npes;
    int kind;
};

/* Senders always run ahead: the defaults. */
static const sym_coll_opts_t ahead = {.algorithm = SYM_ALGO_AUTO, .timeout_s = 0};

static void mismatch_after_ahead_body(int me, int n, void *arg)
{
    const struct ahead_param *p = arg;
    sym_team_t t = whole_split();
    PE_OK(sym_team_set_timeout(t, 5.0));
    const int root = n - 1;
    int32_t first[8], second[8], src[8], sent;
    memset(&sent, SENTINEL, sizeof(sent));
    for (int i = 0; i < 8; i++) {
        first[i] = me == root ? 100 + i : sent;
        second[i] = me == root ? 200 + i : sent;
        src[i] = 10 * me + i;
    }
    /* A member still before the first call when the others already found
     * the mismatch of the second finds the team poisoned and fails the first
     * call too (the team breaks on every member at once); its buffer is then
     * untouched. */
    sym_status_t st;
    if (p->kind == 2) {
        st = sym_reduce(t, first, src, 8, SYM_INT32, SYM_OP_SUM, root, &ahead);
        if (me == root && st == SYM_OK)
            for (int i = 0; i < 8; i++)
                PE_ASSERT(first[i] == 10 * n * (n - 1) / 2 + n * i, "reduce element %d: %d", i,
                          first[i]);
    } else {
        st = sym_broadcast(t, first, 8, SYM_INT32, root, &ahead);
        for (int i = 0; i < 8; i++)
            PE_ASSERT(first[i] == 100 + i || (st != SYM_OK && first[i] == sent),
                      "first broadcast (%s), element %d: %d", sym_status_name(st), i, first[i]);
    }
    PE_ASSERT(st == SYM_OK || st == SYM_ERR_MISMATCH, "first call, member %d: %s: %s", me,
              sym_status_name(st), sym_last_error());
    bool sender = false;
    switch (st == SYM_OK ? p->kind : -1) {
    case -1:
        break;
    case 0:
        st = sym_broadcast(t, second, me == root ? 8 : 7, SYM_INT32, root, &ahead);
        sender = me == root;
        break;
    case 1:
        if (me == root) {
            st = sym_broadcast(t, second, 8, SYM_INT32, root, &ahead);
            sender = true;
        } else {
            st = sym_barrier(t, NULL);
        }
        break;
    default:
        if (me == root) {
            st = sym_broadcast(t, second, 8, SYM_INT32, root, &ahead);
            sender = true;
        } else {
            st = sym_reduce(t, second, src, 8, SYM_INT32, SYM_OP_SUM, root, &ahead);
            sender = true;
        }
        break;
    }
    if (st == SYM_OK) {
        PE_ASSERT(sender, "member %d received in a mismatched call and returned SYM_OK", me);
        st = sym_barrier(t, NULL);
    }
    PE_ASSERT(st == SYM_ERR_MISMATCH, "case %d, member %d of %d: %s: %s", p->kind, me, n,
              sym_status_name(st), sym_last_error());
    CONTAINS(sym_last_error(), "mismatched collectives");
    for (int i = 0; i < 8; i++)
        PE_ASSERT(second[i] == (me == root ? 200 + i : sent),
                  "case %d: element %d of the mismatched call's buffer holds %d", p->kind, i,
                  second[i]);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_faults, mismatch_after_run_ahead)
{
    static struct ahead_param ps[6];
    for (int i = 0; i < 6; i++)
        ps[i] = (struct ahead_param){2 + i / 3, i % 3};
    return cr_make_param_array(struct ahead_param, ps, 6);
}

ParameterizedTest(struct ahead_param *p, coll_faults, mismatch_after_run_ahead)
{
    run_pes(p->npes, mismatch_after_ahead_body, p);
}

/* The receivers never take what the root sent: the root runs ahead until
 * a broadcast needs the first one's slot again, and that call's timeout
 * names the first call (the one whose data was never consumed), not only
 * the call it is in. */
static void unconsumed_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    sym_team_t t = whole_split();
    int32_t buf[4] = {1, 2, 3, 4};
    if (me == 0) {
        sym_coll_opts_t o = {.algorithm = SYM_ALGO_NAIVE, .timeout_s = 1.0};
        sym_status_t st = SYM_OK;
        int calls = 0;
        while (st == SYM_OK && calls < 1000) {
            st = sym_broadcast(t, buf, calls ? 2 : 4, SYM_INT32, 0, &o);
            calls++;
        }
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "broadcast %d: %s: %s", calls, sym_status_name(st),
                  sym_last_error());
        PE_ASSERT(calls > 2, "the root did not run ahead (blocked at call %d)", calls);
        CONTAINS(sym_last_error(), "free a mailbox slot");
        CONTAINS(sym_last_error(), "broadcast #1 (int32, none, count 4");
        CONTAINS(sym_last_error(), "never consumed");
        PE_OK(sym_team_destroy(t)); /* broken: no barrier on it */
    }
    /* the others leave the team alone (destroying it would wait for PE 0) */
    PE_OK(sym_barrier_all());
}

Test(coll_faults, unconsumed_slot_names_its_call)
{
    run_pes(2, unconsumed_body, NULL);
}

/* A receiver dies while the root is ahead of it.  Case 0: it took the first
 * broadcast, then died: the root's later call that needs its slot again
 * reports PEER_LOST naming it.  Case 1: it died before taking anything and
 * the root's only broadcast returned at once: sym_finalize reports it.
 * Over libfabric the root's write into the dead PE's slot itself may fail
 * (tcp;ofi_rxm: "Transport endpoint is not connected"), and then that
 * broadcast reports the loss, naming the victim, and sym_finalize again;
 * over shm the write lands in the dead PE's mapped heap and succeeds. */
struct dies_param {
    int npes;
    int consumes;
};

static void receiver_dies_body(int me, int n, void *arg)
{
    const struct dies_param *p = arg;
    PE_OK(sym_init());
    const int victim = n - 1;
    int32_t buf[4];
    PE_OK(sym_barrier_all());
    double t0 = harness_now();
    sym_status_t st = SYM_OK;
    int calls = 0;
    if (me == victim) {
        if (p->consumes) {
            PE_OK(sym_broadcast(sym_team_world(), buf, 4, SYM_INT32, 0, &ahead));
            PE_ASSERT(buf[0] == 7 && buf[3] == 10, "the victim's broadcast data is wrong");
        }
        raise(SIGKILL);
    }
    if (me == 0) {
        do {
            for (int i = 0; i < 4; i++)
                buf[i] = 7 + i;
            st = sym_broadcast(sym_team_world(), buf, 4, SYM_INT32, 0, &ahead);
            calls++;
        } while (st == SYM_OK && p->consumes && calls < 1000 && harness_now() - t0 < 20);
        const char *tp = getenv("SYMHEAP_TRANSPORT");
        const bool via_ofi = tp && !strcmp(tp, "ofi");
        if (!p->consumes && (st != SYM_ERR_PEER_LOST || !via_ofi))
            PE_OK(st);
        else if (!p->consumes)
            EXPECT_LOST(st, "sym_broadcast", calls, victim);
    } else {
        /* bystanders take broadcasts until the root stops sending */
        do {
            st = sym_broadcast(sym_team_world(), buf, 4, SYM_INT32, 0, &ahead);
            calls++;
            PE_ASSERT(st != SYM_OK || (buf[0] == 7 && buf[3] == 10), "bystander: wrong data");
        } while (st == SYM_OK && p->consumes && calls < 1000);
    }
    if (me == 0 && p->consumes) {
        EXPECT_LOST(st, "sym_broadcast", calls, victim);
        PE_ASSERT(calls >= 2, "the root did not run ahead (failed at call %d)", calls);
    }
    st = sym_finalize();
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "sym_finalize returned %s: %s", sym_status_name(st),
              sym_last_error());
    PE_ASSERT(harness_now() - t0 < harness_seconds(10.0), "the loss took %.1f s to report",
              harness_now() - t0);
    _exit(0);
}

ParameterizedTestParameters(coll_faults, receiver_dies_while_root_ahead)
{
    static struct dies_param ps[] = {{2, 1}, {2, 0}, {3, 1}, {3, 0}};
    return cr_make_param_array(struct dies_param, ps, sizeof(ps) / sizeof(ps[0]));
}

ParameterizedTest(struct dies_param *p, coll_faults, receiver_dies_while_root_ahead)
{
    harness_skip_if_launcher_ends_job_on_kill();
    struct pe_job job = {.npes = p->npes, .body = receiver_dies_body, .arg = p, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    const int victim = p->npes - 1;
    cr_assert_eq(out.term_signal[victim], SIGKILL, "the victim ended with code %d",
                 out.exit_code[victim]);
    for (int pe = 0; pe < victim; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                     out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}

/* The root's last broadcast runs ahead and the receiver finds it
 * mismatched: the root returned SYM_OK from it, so the team's end must
 * report it.  Case 0: a split team, reported by sym_team_destroy.  Case 1:
 * the world team, reported by sym_finalize. */
static void last_call_mismatch_body(int me, int n, void *arg)
{
    const int *at_finalize = arg;
    (void)n;
    PE_OK(sym_init());
    sym_team_t t = sym_team_world();
    if (!*at_finalize)
        PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &t));
    int32_t buf[4] = {1, 2, 3, 4};
    sym_status_t st = sym_broadcast(t, buf, me == 0 ? 4 : 3, SYM_INT32, 0, &ahead);
    if (me == 0) {
        PE_ASSERT(st == SYM_OK || st == SYM_ERR_MISMATCH, "root: %s: %s", sym_status_name(st),
                  sym_last_error());
    } else {
        PE_ASSERT(st == SYM_ERR_MISMATCH, "receiver: %s: %s", sym_status_name(st),
                  sym_last_error());
        CONTAINS(sym_last_error(), "count 3");
        CONTAINS(sym_last_error(), "count 4");
    }
    if (!*at_finalize) {
        sym_status_t d = sym_team_destroy(t);
        if (me == 0 && st == SYM_OK) {
            PE_ASSERT(d == SYM_ERR_MISMATCH, "root's destroy: %s: %s", sym_status_name(d),
                      sym_last_error());
            CONTAINS(sym_last_error(), "count 3");
        }
        PE_OK(sym_barrier_all());
    }
    sym_status_t f = sym_finalize();
    if (me == 0 && st == SYM_OK && *at_finalize) {
        PE_ASSERT(f == SYM_ERR_MISMATCH, "root's finalize: %s: %s", sym_status_name(f),
                  sym_last_error());
        CONTAINS(sym_last_error(), "mismatched collectives");
        CONTAINS(sym_last_error(), "count 3");
    } else if (me == 0 || !*at_finalize) {
        PE_ASSERT(f == SYM_OK, "finalize: %s: %s", sym_status_name(f), sym_last_error());
    }
    _exit(0);
}

ParameterizedTestParameters(coll_faults, last_call_mismatch_after_run_ahead)
{
    static int cases[] = {0, 1};
    return cr_make_param_array(int, cases, 2);
}

ParameterizedTest(int *at_finalize, coll_faults, last_call_mismatch_after_run_ahead)
{
    struct pe_job job = {
        .npes = 2, .body = last_call_mismatch_body, .arg = at_finalize, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
