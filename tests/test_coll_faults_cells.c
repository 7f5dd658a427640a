/*
 * test_coll_faults_cells.c - mismatched calls and lost PEs on the cells
 * (src/coll/chan_cells.c), on teams whose cells hold 256 bytes (in a crowded
 * job; inline messages of up to 28 bytes otherwise: blocks follow the bound).
 *
 * Every collective (gather, scatter and all_to_all(v), whose links choose
 * their path each, under both their algorithms) with one member passing
 * another count inside the cells' bound, or across it (that member's
 * messages take the slots while the others' take the cells), another
 * root, or another collective; an
 * all_to_allv whose sender and receiver disagree on one block, inside and
 * across the bound either way; a skipped call with identical arguments
 * under the strict check.  Every PE reports SYM_ERR_MISMATCH, in the call
 * or (having only sent) at its next call on the team or sym_team_sync,
 * and no buffer ever holds data of another call.  Then a PE killed while
 * senders are ahead of it in the cells: an error on every survivor.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "coll/coll.h" /* the team's channel: the size its cells take */
#include "coll_fault_check.h"

#define MAXC  64 /* int32 elements: a block of 256 bytes, the cells' largest */
#define MAXE  (9 * MAXC)
#define UNSET 0x5a5a5a5a

/* Elements of a block that fills the largest message the team's cells take
 * in this job (64 in a crowded one, else 7: inline messages only). */
static int blk;

static void set_blk(sym_team_t t)
{
    blk = (int)sym_chan_cells_hold(&t->chan) / 4;
    PE_ASSERT(blk == (sym_coll_crowded() ? MAXC : 7), "the cells take %d bytes (crowded: %d)",
              4 * blk, (int)sym_coll_crowded());
}

static const char *const cells_env[] = {"SYMHEAP_MAILBOX_SIZE=4M", "SYMHEAP_TEAM_AREA_SIZE=1M",
                                        "SYMHEAP_HEAP_SIZE=32M", NULL};
static const char *const strict_env[] = {"SYMHEAP_MAILBOX_SIZE=4M", "SYMHEAP_TEAM_AREA_SIZE=1M",
                                         "SYMHEAP_HEAP_SIZE=32M", "SYMHEAP_COLL_CHECK=strict",
                                         NULL};

enum kind { BCAST, RED, ALLRED, RSCAT, AGATH, A2A, GATH, SCAT, A2AV, NKINDS };

static const char *const kind_names[NKINDS] = {"broadcast",      "reduce",     "allreduce",
                                               "reduce_scatter", "all_gather", "all_to_all",
                                               "gather",         "scatter",    "all_to_allv"};

enum how {
    WITHIN, /* member 0 passes blk - 4: both sides in the cells */
    ABOVE,  /* member 0 passes blk + 1: its side in the slots */
    BELOW,  /* (all_to_allv) member 0 sends blk, member 1 expects blk + 2 */
    ROOT,   /* member 0 names root 0, the others root n - 1 */
    OTHER,  /* member 0 calls a broadcast of blk elements from root n - 1 */
};

struct cm_param {
    int npes;
    int kind;
    int how;
    sym_algorithm_t algo; /* both of gather, scatter and all_to_all(v); else auto */
};

static int32_t val(int pe, int i)
{
    return 1000 * (pe + 1) + i;
}

/* Elements member `from` sends member `to` in an all_to_allv: blk, except
 * member 0's block for member 1 (as member 0 sees it: own = true) or as
 * member 1 expects it (own = false). */
static size_t a2av_count(const struct cm_param *p, int from, int to, bool senders_view)
{
    if (from != 0 || to != 1)
        return blk;
    if (p->how == WITHIN)
        return senders_view ? blk - 4 : blk;
    if (p->how == ABOVE)
        return senders_view ? blk + 2 : blk;
    return senders_view ? blk : blk + 2;
}

static sym_status_t call(const struct cm_param *p, sym_team_t t, int me, int n, int32_t *dst,
                         const int32_t *src)
{
    const bool odd = me == 0;
    const size_t count = odd && p->how == WITHIN ? blk - 4 : odd && p->how == ABOVE ? blk + 1 : blk;
    const int root = odd && p->how == ROOT ? 0 : n - 1;
    if (odd && p->how == OTHER)
        return sym_broadcast(t, dst, blk, SYM_INT32, n - 1, NULL);
    const sym_coll_opts_t o = {.algorithm = p->algo, .timeout_s = 0};
    size_t sc[8], rc[8];
    switch (p->kind) {
    case BCAST:
        return sym_broadcast(t, me == root ? (int32_t *)src : dst, count, SYM_INT32, root, &o);
    case RED:
        return sym_reduce(t, dst, src, count, SYM_INT32, SYM_OP_SUM, root, &o);
    case ALLRED:
        return sym_allreduce(t, dst, src, count, SYM_INT32, SYM_OP_SUM, &o);
    case RSCAT:
        return sym_reduce_scatter(t, dst, src, count, SYM_INT32, SYM_OP_SUM, &o);
    case AGATH:
        return sym_all_gather(t, dst, src, count, SYM_INT32, &o);
    case A2A:
        return sym_all_to_all(t, dst, src, count, SYM_INT32, &o);
    case GATH:
        return sym_gather(t, dst, src, count, SYM_INT32, root, &o);
    case SCAT:
        return sym_scatter(t, dst, src, count, SYM_INT32, root, &o);
    default:
        for (int r = 0; r < n; r++) {
            sc[r] = a2av_count(p, me, r, true);
            rc[r] = a2av_count(p, r, me, false);
        }
        return sym_all_to_allv(t, src, sc, dst, rc, SYM_INT32, &o);
    }
}

/* Could dst[i] hold v after a call in which this PE took only data of
 * its own call?  src[j] of member r is val(r, j); reductions' sums are not
 * decoded. */
static bool own_call(const struct cm_param *p, int me, int n, int i, int32_t v)
{
    const int root = me == 0 && p->how == ROOT ? 0 : n - 1;
    const int c = me == 0 && p->how == WITHIN  ? blk - 4
                  : me == 0 && p->how == ABOVE ? blk + 1
                                               : blk;
    if (v == UNSET)
        return true;
    if (me == 0 && p->how == OTHER)
        return i < blk && v == val(n - 1, i);
    switch (p->kind) {
    case BCAST:
        return i < c && v == val(root, i);
    case SCAT:
        return i < c && v == val(root, me * c + i);
    case GATH:
    case AGATH:
        return v == val(i / c, i % c);
    case A2A:
        return v == val(i / c, me * c + i % c);
    case A2AV: {
        size_t at = 0; /* block r of dst, and where member r sent it from */
        for (int r = 0; r < n; r++) {
            const size_t len = a2av_count(p, r, me, false);
            if ((size_t)i < at + len) {
                size_t from = 0;
                for (int j = 0; j < me; j++)
                    from += a2av_count(p, r, j, true);
                return (size_t)i - at < a2av_count(p, r, me, true) &&
                       v == val(r, (int)(from + (size_t)i - at));
            }
            at += len;
        }
        return false;
    }
    default:
        return true;
    }
}

static void mismatch_body(int me, int n, void *arg)
{
    const struct cm_param *p = arg;
    sym_team_t t = whole_split();
    set_blk(t);
    PE_OK(sym_team_set_timeout(t, 5.0));
    static int32_t src[MAXE], dst[MAXE];
    for (int i = 0; i < MAXE; i++) {
        src[i] = val(me, i);
        dst[i] = UNSET;
    }
    const double t0 = harness_now();
    sym_status_t st = call(p, t, me, n, dst, src);
    const char *what = kind_names[p->kind];
    PE_ASSERT(st == SYM_OK || st == SYM_ERR_MISMATCH, "%s/%s, how %d, member %d of %d: %s: %s",
              what, sym_algorithm_name(p->algo), p->how, me, n, sym_status_name(st),
              sym_last_error());
    PE_ASSERT(harness_now() - t0 < harness_seconds(3.0), "%s: the call took %.2f s", what,
              harness_now() - t0);
    if (st == SYM_ERR_MISMATCH)
        PE_ASSERT(strstr(sym_last_error(), "mismatched collectives") ||
                      strstr(sym_last_error(), "expected"),
                  "%s: the message names no mismatch: %s", what, sym_last_error());
    for (int i = 0; i < MAXE; i++)
        PE_ASSERT(own_call(p, me, n, i, dst[i]),
                  "%s, how %d, member %d of %d (%s): dst[%d] = %d, from no call of this PE's", what,
                  p->how, me, n, sym_status_name(st), i, dst[i]);
    /* nothing of a block whose size its ends disagree on is written */
    for (size_t i = 0; p->kind == A2AV && me == 1 && i < a2av_count(p, 0, 1, false); i++)
        PE_ASSERT(dst[i] == UNSET,
                  "all_to_allv, how %d: element %zu of the block from member 0 "
                  "holds %d",
                  p->how, i, dst[i]);
    /* a PE that returned SYM_OK only sent, or took only its own call's
     * data: it learns of the mismatch from sym_team_sync or its next call */
    if (st == SYM_OK && (me + p->kind) % 2)
        st = sym_team_sync(t);
    if (st == SYM_OK)
        st = sym_barrier(t, NULL);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "%s, how %d, member %d of %d, after the call: %s: %s", what,
              p->how, me, n, sym_status_name(st), sym_last_error());
    PE_FAILS_WITH(sym_barrier(t, NULL), SYM_ERR_MISMATCH);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

static struct cm_param cm_params[NKINDS * 5 * 2];

/* Across the bound at 3 PEs, the rest at 5 (trees with a subtree of two
 * blocks, whose links take the slots while the leaves' take the cells);
 * the collectives whose links choose their path each under both their
 * algorithms.  Its own suite: the forced-algorithm stages of .ci/test
 * would only repeat these. */
ParameterizedTestParameters(coll_cells_faults, mismatch)
{
    int k = 0;
    for (int kind = 0; kind < NKINDS; kind++)
        for (int how = WITHIN; how <= OTHER; how++)
            for (int a = 0; a < 2; a++) {
                const bool rooted = kind == BCAST || kind == RED || kind == GATH || kind == SCAT;
                const bool per_link = kind == GATH || kind == SCAT || kind == A2A || kind == A2AV;
                if ((how == BELOW && kind != A2AV) || (how == ROOT && !rooted) ||
                    (how == OTHER && kind != GATH && kind != ALLRED) || (a && !per_link))
                    continue;
                const sym_algorithm_t algo = !per_link                     ? SYM_ALGO_AUTO
                                             : !a                          ? SYM_ALGO_NAIVE
                                             : kind == A2A || kind == A2AV ? SYM_ALGO_PAIRWISE
                                                                           : SYM_ALGO_TREE;
                cm_params[k++] =
                    (struct cm_param){how == ABOVE || how == BELOW ? 3 : 5, kind, how, algo};
            }
    return cr_make_param_array(struct cm_param, cm_params, (size_t)k);
}

ParameterizedTest(struct cm_param *p, coll_cells_faults, mismatch)
{
    run_pes_env(p->npes, cells_env, mismatch_body, p);
}

/* Strict checking: member `skipper` skips site_a, so its site_b call pairs
 * with the others' site_a call, with the same arguments: a gather of
 * blocks as large as the cells take (its links choose their path each) and
 * a broadcast one element smaller.  Every PE fails in the call it is in,
 * naming two call sites. */
__attribute__((noinline)) static sym_status_t site_a(sym_team_t t, int kind, int32_t *dst,
                                                     const int32_t *src)
{
    return kind ? sym_broadcast(t, dst, (size_t)blk - 1, SYM_INT32, 0, NULL)
                : sym_gather(t, dst, src, blk, SYM_INT32, 0, NULL);
}

static volatile int site_b_calls; /* so the two bodies differ and are never folded into one */

__attribute__((noinline)) static sym_status_t site_b(sym_team_t t, int kind, int32_t *dst,
                                                     const int32_t *src)
{
    site_b_calls++;
    return kind ? sym_broadcast(t, dst, (size_t)blk - 1, SYM_INT32, 0, NULL)
                : sym_gather(t, dst, src, blk, SYM_INT32, 0, NULL);
}

static void skipped_body(int me, int n, void *arg)
{
    const int kind = *(const int *)arg;
    sym_team_t t = whole_split();
    set_blk(t);
    PE_OK(sym_team_set_timeout(t, 5.0));
    static int32_t src[MAXC], dst[8 * MAXC];
    for (int i = 0; i < 8 * blk; i++)
        dst[i] = kind && me == 0 && i < blk - 1 ? val(0, i) : UNSET;
    for (int i = 0; i < blk; i++)
        src[i] = val(me, i);
    const int skipper = n - 1;
    sym_status_t st = me == skipper ? site_b(t, kind, dst, src) : site_a(t, kind, dst, src);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "member %d: %s: %s", me, sym_status_name(st),
              sym_last_error());
    CONTAINS(sym_last_error(), "call sites: this PE at ");
    if (me != 0 && me != skipper && kind)
        for (int i = 0; i < blk - 1; i++)
            PE_ASSERT(dst[i] == UNSET || dst[i] == val(0, i), "member %d: element %d holds %d", me,
                      i, dst[i]);
    if (me == skipper && kind)
        for (int i = 0; i < blk - 1; i++)
            PE_ASSERT(dst[i] == UNSET, "the skipper's element %d holds %d", i, dst[i]);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_cells_faults, strict_skipped_call)
{
    static int kinds[] = {0, 1};
    return cr_make_param_array(int, kinds, 2);
}

ParameterizedTest(int *kind, coll_cells_faults, strict_skipped_call)
{
    run_pes_env(4, strict_env, skipped_body, kind);
}

/* ------------------------------------------------------------------------ */
/* A PE killed while senders are ahead of it in the cells                    */
/* ------------------------------------------------------------------------ */

/* Case 0: the root broadcasts as much as a cell takes at a time, ahead of
 * every receiver; the last PE takes 3 calls and dies.  Case 1: the members
 * gather such blocks at root 0, ahead of it; the root takes 3 calls and
 * dies.  Every survivor's calls fail with PEER_LOST naming the victim
 * (a sender when it needs a cell the victim never gave back, at the
 * latest), and so does its sym_finalize, within seconds. */
static void lost_body(int me, int n, void *arg)
{
    const int kind = *(const int *)arg;
    PE_OK(sym_init());
    set_blk(sym_team_world());
    const int victim = kind ? 0 : n - 1;
    static int32_t buf[MAXC], all[8 * MAXC];
    PE_OK(sym_barrier_all());
    const double t0 = harness_now();
    sym_status_t st = SYM_OK;
    int calls = 0;
    while (st == SYM_OK && calls < 1000 && harness_now() - t0 < 20) {
        if (me == victim && calls == 3)
            raise(SIGKILL);
        for (int i = 0; i < blk; i++)
            buf[i] = kind || me == 0 ? val(me, calls + i) : UNSET;
        st = kind ? sym_gather(sym_team_world(), all, buf, blk, SYM_INT32, 0, NULL)
                  : sym_broadcast(sym_team_world(), buf, blk, SYM_INT32, 0, NULL);
        calls++;
        PE_ASSERT(st != SYM_OK || kind || buf[blk - 1] == val(0, calls - 1 + blk - 1),
                  "broadcast %d: wrong data", calls);
    }
    EXPECT_LOST(st, kind ? "sym_gather" : "sym_broadcast", calls, victim);
    st = sym_finalize();
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "sym_finalize returned %s: %s", sym_status_name(st),
              sym_last_error());
    PE_ASSERT(harness_now() - t0 < harness_seconds(10.0), "the loss took %.1f s to report",
              harness_now() - t0);
    _exit(0);
}

ParameterizedTestParameters(coll_cells_faults, peer_lost)
{
    static int kinds[] = {0, 1};
    return cr_make_param_array(int, kinds, 2);
}

ParameterizedTest(int *kind, coll_cells_faults, peer_lost)
{
    harness_skip_if_launcher_ends_job_on_kill();
    struct pe_job job = {.npes = 4, .body = lost_body, .arg = kind, .raw = true, .env = cells_env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    const int victim = *kind ? 0 : 3;
    cr_assert_eq(out.term_signal[victim], SIGKILL, "the victim ended with code %d",
                 out.exit_code[victim]);
    for (int pe = 0; pe < 4; pe++)
        cr_assert(pe == victim || out.exit_code[pe] == 0, "survivor PE %d failed (code %d)", pe,
                  out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}
