/*
 * test_coll_mismatch_eager.c - the mismatch rule of eager collectives, for
 * every collective and every algorithm (forced per call): a PE that
 * receives data of another call returns SYM_ERR_MISMATCH from it, a PE
 * that only sent may return SYM_OK and then fails at its next call on the
 * team or at sym_team_sync, and no buffer ever holds data of another call.
 * Under SYMHEAP_COLL_CHECK=strict every PE fails in the call, and a skipped
 * call with identical arguments is caught naming both call sites.  Also: a
 * sender several calls ahead of a mismatch, sym_team_sync, sym_finalize
 * after a skipped call, and eager loops on disjoint teams at once.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "coll_fault_check.h"

enum kind { BCAST, RED, ALLRED, RSCAT, AGATH, AGATHV, A2A, A2AV, GATH, SCAT, NKINDS };

static const char *const kind_names[NKINDS] = {
    "broadcast",   "reduce",     "allreduce",   "reduce_scatter", "all_gather",
    "all_gatherv", "all_to_all", "all_to_allv", "gather",         "scatter"};

/* Every algorithm of every collective (SYM_ALGO_AUTO ends a row). */
static const sym_algorithm_t kind_algos[NKINDS][5] = {
    [BCAST] = {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE},
    [RED] = {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE},
    [ALLRED] = {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE, SYM_ALGO_RD},
    [RSCAT] = {SYM_ALGO_NAIVE, SYM_ALGO_RING},
    [AGATH] = {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_RD},
    [AGATHV] = {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_RD},
    [A2A] = {SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE},
    [A2AV] = {SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE},
    [GATH] = {SYM_ALGO_NAIVE, SYM_ALGO_TREE},
    [SCAT] = {SYM_ALGO_NAIVE, SYM_ALGO_TREE},
};

static bool rooted(int k)
{
    return k == BCAST || k == RED || k == GATH || k == SCAT;
}

/* How one PE (the odd one) disagrees with the others. */
enum how {
    ODD_COUNT_LEAF, /* a member that is not the root passes one element more */
    ODD_COUNT_ROOT, /* the root passes one element more */
    ODD_ROOT,       /* a member names another root (rooted collectives) */
};

struct mm_param {
    int npes;
    int kind;
    sym_algorithm_t algo;
    int how;
    bool strict;   /* SYMHEAP_COLL_CHECK=strict */
    bool use_sync; /* a PE that returned SYM_OK checks with sym_team_sync, else a barrier */
};

#define C     3  /* elements per block of the PEs that agree */
#define MAXB  64 /* elements of every buffer */
#define UNSET 0x5a5a5a5a

/* PE p's element i: every value tells which PE sent it and where from. */
static int32_t val(int pe, int i)
{
    return 1000 * (pe + 1) + i;
}

static sym_status_t call(const struct mm_param *p, sym_team_t t, int me, int n, int32_t *dst,
                         const int32_t *src, size_t count, int root)
{
    const sym_coll_opts_t o = {.algorithm = p->algo, .timeout_s = 0};
    size_t counts[8], sc[8], rc[8];
    for (int r = 0; r < n; r++)
        counts[r] = sc[r] = rc[r] = C;
    const int odd = p->how == ODD_COUNT_ROOT ? n - 1 : 0;
    if (count != C) { /* this PE is the odd one */
        if (p->kind == AGATHV)
            counts[odd] = count;
        for (int r = 0; r < n; r++)
            sc[r] = rc[r] = count;
    }
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
    case AGATHV:
        return sym_all_gatherv(t, dst, src, counts, SYM_INT32, &o);
    case A2A:
        return sym_all_to_all(t, dst, src, count, SYM_INT32, &o);
    case A2AV:
        return sym_all_to_allv(t, src, sc, dst, rc, SYM_INT32, &o);
    case GATH:
        return sym_gather(t, dst, src, count, SYM_INT32, root, &o);
    default:
        return sym_scatter(t, dst, src, count, SYM_INT32, root, &o);
    }
}

/* Could element i of dst hold `v` after a call in which only data of
 * this PE's own fingerprint was taken?  Data moves in blocks of `count`
 * elements from member r (values val(r, j)), or as sums of such
 * (reductions, not decoded here). */
static bool from_own_call(const struct mm_param *p, int me, int root, size_t count, int i,
                          int32_t v)
{
    const int b = (int)count;
    if (v == UNSET)
        return true;
    switch (p->kind) {
    case BCAST:
        return i < b && v == val(root, i);
    case SCAT: /* block `me` of the root's src */
        return i < b && v == val(root, me * b + i);
    case GATH:
    case AGATH:
        return v == val(i / b, i % b);
    case AGATHV: /* packed: some member's element of its block */
        return (v / 1000 >= 1 && v / 1000 <= 8 && v % 1000 <= C);
    case A2A:
    case A2AV: /* block me of member i / count's src */
        return v == val(i / b, me * b + i % b);
    default:
        return true;
    }
}

static void mismatch_body(int me, int n, void *arg)
{
    const struct mm_param *p = arg;
    sym_team_t t = whole_split();
    PE_OK(sym_team_set_timeout(t, 5.0));
    const int root = n - 1;
    const int odd = p->how == ODD_COUNT_ROOT ? n - 1 : 0;
    const size_t count = me == odd && p->how != ODD_ROOT ? C + 1 : C;
    const int my_root = me == odd && p->how == ODD_ROOT ? 0 : root;
    int32_t src[MAXB], dst[MAXB];
    for (int i = 0; i < MAXB; i++) {
        src[i] = val(me, i);
        dst[i] = UNSET;
    }
    const double t0 = harness_now();
    sym_status_t st = call(p, t, me, n, dst, src, count, my_root);
    const double took = harness_now() - t0;
    const char *what = kind_names[p->kind];
    const char *algo = sym_algorithm_name(p->algo);
    PE_ASSERT(st == SYM_OK || st == SYM_ERR_MISMATCH, "%s/%s member %d of %d: %s: %s", what, algo,
              me, n, sym_status_name(st), sym_last_error());
    PE_ASSERT(took < harness_seconds(3.0), "%s/%s: the call took %.2f s", what, algo, took);
    PE_ASSERT(st != SYM_OK || !p->strict, "%s/%s member %d of %d: SYM_OK under the strict check",
              what, algo, me, n);
    if (st == SYM_ERR_MISMATCH)
        PE_ASSERT(strstr(sym_last_error(), "mismatched collectives") ||
                      strstr(sym_last_error(), "expected"),
                  "%s/%s: the message names no mismatch: %s", what, algo, sym_last_error());
    /* no element of dst holds data of a call other than this PE's own */
    for (int i = 0; i < MAXB; i++) {
        const bool ok = from_own_call(p, me, my_root, count, i, dst[i]);
        PE_ASSERT(ok, "%s/%s member %d of %d (%s): dst[%d] = %d, from no call of this PE's kind",
                  what, algo, me, n, sym_status_name(st), i, dst[i]);
    }
    if (st == SYM_OK && p->kind == BCAST && me != my_root)
        for (int i = 0; i < C; i++)
            PE_ASSERT(dst[i] == val(my_root, i), "broadcast/%s: dst[%d] = %d", algo, i, dst[i]);
    /* A PE that returned SYM_OK learns of the mismatch later: from
     * sym_team_sync, or its next call on the team.  With two roots, a
     * member served consistently by one of them took only data of its own
     * call: its sync may pass before either root found the other, and its
     * next call fails. */
    if (st == SYM_OK && p->use_sync) {
        st = sym_team_sync(t);
        if (st == SYM_OK && p->how == ODD_ROOT && me != odd && me != root)
            st = sym_barrier(t, NULL);
    } else if (st == SYM_OK) {
        st = sym_barrier(t, NULL);
    }
    PE_ASSERT(st == SYM_ERR_MISMATCH, "%s/%s member %d of %d, after the call (%s): %s: %s", what,
              algo, me, n, p->use_sync ? "sym_team_sync" : "barrier", sym_status_name(st),
              sym_last_error());
    /* the team stays broken: sync and later calls give the error again */
    PE_FAILS_WITH(sym_team_sync(t), SYM_ERR_MISMATCH);
    PE_FAILS_WITH(sym_barrier(t, NULL), SYM_ERR_MISMATCH);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

/* Every (collective, algorithm, way to disagree); `strict` picks the
 * checked mode.  SYMHEAP_TEST_QUICK keeps one team size per mode. */
static struct mm_param *mm_params(bool strict, int *count_p)
{
    static const int sizes_normal[] = {3, 8}, sizes_strict[] = {4};
    const int *sizes = strict ? sizes_strict : sizes_normal;
    int nsizes = strict ? 1 : 2;
    if (getenv("SYMHEAP_TEST_QUICK") && !strict)
        sizes = &sizes_normal[1], nsizes = 1;
    static struct mm_param ps[2][2 * NKINDS * 4 * 3];
    struct mm_param *out = ps[strict];
    int k = 0;
    for (int s = 0; s < nsizes; s++)
        for (int kind = 0; kind < NKINDS; kind++)
            for (int a = 0; a < 5 && kind_algos[kind][a] != SYM_ALGO_AUTO; a++)
                for (int how = ODD_COUNT_LEAF; how <= ODD_ROOT; how++) {
                    if (how == ODD_ROOT && !rooted(kind))
                        continue;
                    if (how == ODD_COUNT_ROOT && !rooted(kind))
                        continue;
                    out[k] = (struct mm_param){sizes[s], kind,   kind_algos[kind][a],
                                               how,      strict, (k & 1) != 0};
                    k++;
                }
    *count_p = k;
    return out;
}

ParameterizedTestParameters(coll_mismatch_eager, rule)
{
    int k;
    struct mm_param *ps = mm_params(false, &k);
    return cr_make_param_array(struct mm_param, ps, (size_t)k);
}

ParameterizedTest(struct mm_param *p, coll_mismatch_eager, rule)
{
    run_pes(p->npes, mismatch_body, p);
}

ParameterizedTestParameters(coll_mismatch_eager, strict_rule)
{
    int k;
    struct mm_param *ps = mm_params(true, &k);
    return cr_make_param_array(struct mm_param, ps, (size_t)k);
}

ParameterizedTest(struct mm_param *p, coll_mismatch_eager, strict_rule)
{
    static const char *const env[] = {"SYMHEAP_COLL_CHECK=strict", NULL};
    run_pes_env(p->npes, env, mismatch_body, p);
}

/* ------------------------------------------------------------------------ */
/* A sender several calls ahead of a mismatch                               */
/* ------------------------------------------------------------------------ */

#define AHEAD_CALLS 6
#define AHEAD_BAD   3 /* the root passes another count in this call */

/* The root broadcasts AHEAD_CALLS times while the receivers are still
 * asleep, so its data of several calls waits in their slots, one of them
 * mismatched.  The receivers take the calls before it whole, fail in it
 * with nothing written, and every later call fails at once (the team is
 * broken) with its buffer untouched; the root, which never waited, hears of
 * it from sym_team_sync at the latest. */
static void ahead_body(int me, int n, void *arg)
{
    const sym_algorithm_t *algo = arg;
    sym_team_t t = whole_split();
    PE_OK(sym_team_set_timeout(t, 5.0));
    const sym_coll_opts_t o = {.algorithm = *algo, .timeout_s = 0};
    const int root = 0;
    int32_t buf[AHEAD_CALLS][8];
    for (int c = 0; c < AHEAD_CALLS; c++)
        for (int i = 0; i < 8; i++)
            buf[c][i] = me == root ? val(c, i) : UNSET;
    if (me != root)
        sleep_s(0.3);
    int failed_at = -1; /* a receiver fails at the bad call, or earlier if the
                         * poison of a faster member reaches it first */
    for (int c = 0; c < AHEAD_CALLS; c++) {
        const size_t count = me == root && c == AHEAD_BAD ? 5 : 4;
        sym_status_t st = sym_broadcast(t, buf[c], count, SYM_INT32, root, &o);
        if (st != SYM_OK && failed_at < 0) {
            failed_at = c;
            PE_ASSERT(st == SYM_ERR_MISMATCH, "call %d: %s: %s", c, sym_status_name(st),
                      sym_last_error());
            if (me != root) {
                CONTAINS(sym_last_error(), "count 4");
                CONTAINS(sym_last_error(), "count 5");
            }
        }
    }
    if (me == root) {
        /* it may hear of it while it still sends the bad call (a credit
         * wait, or a put over manual progress), never before */
        PE_ASSERT(failed_at < 0 || failed_at >= AHEAD_BAD, "the root failed at call %d", failed_at);
        if (failed_at < 0)
            PE_FAILS_WITH(sym_team_sync(t), SYM_ERR_MISMATCH);
    } else {
        PE_ASSERT(failed_at >= 0 && failed_at <= AHEAD_BAD, "member %d failed at call %d", me,
                  failed_at);
        for (int c = 0; c < AHEAD_CALLS; c++)
            for (int i = 0; i < 8; i++) {
                const bool whole = c < failed_at || (c < AHEAD_BAD && buf[c][0] != UNSET);
                PE_ASSERT(buf[c][i] == (whole && i < 4 ? val(c, i) : UNSET),
                          "member %d (failed at %d), call %d, element %d: %d", me, failed_at, c, i,
                          buf[c][i]);
            }
    }
    (void)n;
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_mismatch_eager, sender_ahead)
{
    static sym_algorithm_t algos[] = {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE};
    return cr_make_param_array(sym_algorithm_t, algos, 3);
}

ParameterizedTest(sym_algorithm_t *algo, coll_mismatch_eager, sender_ahead)
{
    run_pes(4, ahead_body, algo);
}

/* ------------------------------------------------------------------------ */
/* Strict mode: a skipped call with the same arguments                      */
/* ------------------------------------------------------------------------ */

/* Two call sites; noinline so each has a return address of its own. */
__attribute__((noinline)) static sym_status_t site_a(sym_team_t t, int32_t *buf)
{
    return sym_broadcast(t, buf, 4, SYM_INT32, 0, NULL);
}

__attribute__((noinline)) static sym_status_t site_b(sym_team_t t, int32_t *buf)
{
    return sym_broadcast(t, buf, 4, SYM_INT32, 0, NULL);
}

/* Member `skipper` skips site_a: its site_b call pairs with the others'
 * site_a call, with the same arguments.  Every PE fails in the call it is
 * in, with a message naming both call sites; nobody's buffer changes. */
static void skipped_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t t = whole_split();
    PE_OK(sym_team_set_timeout(t, 5.0));
    const int skipper = n - 1;
    int32_t a[4], b[4];
    for (int i = 0; i < 4; i++)
        a[i] = b[i] = me == 0 ? val(0, i) : UNSET;
    sym_status_t st = me == skipper ? site_b(t, b) : site_a(t, a);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "member %d: %s: %s", me, sym_status_name(st),
              sym_last_error());
    const char *msg = sym_last_error();
    CONTAINS(msg, "call sites: this PE at ");
    const char *mine = strstr(msg, "call sites: this PE at ") + strlen("call sites: this PE at ");
    const char *comma = strstr(mine, ", PE ");
    PE_ASSERT(comma, "no second call site in: %s", msg);
    const char *theirs = strstr(comma, " at ");
    PE_ASSERT(theirs, "no second call site in: %s", msg);
    theirs += 4;
    PE_ASSERT(strncmp(mine, theirs, (size_t)(comma - mine)) != 0,
              "both call sites are the same: %s", msg);
    PE_ASSERT(strstr(mine, "+0x") && strstr(theirs, "+0x"), "sites are not object+offset: %s", msg);
    /* the others took the root's data of their own call; the skipper
     * nothing */
    if (me != 0)
        for (int i = 0; i < 4; i++)
            PE_ASSERT(b[i] == UNSET && (a[i] == UNSET || (me != skipper && a[i] == val(0, i))),
                      "member %d: element %d holds %d / %d", me, i, a[i], b[i]);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_mismatch_eager, strict_skipped_call)
{
    static int sizes[] = {2, 3, 8};
    return cr_make_param_array(int, sizes, 3);
}

ParameterizedTest(int *npes, coll_mismatch_eager, strict_skipped_call)
{
    static const char *const env[] = {"SYMHEAP_COLL_CHECK=strict", NULL};
    run_pes_env(*npes, env, skipped_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* sym_team_sync, sym_finalize, disjoint teams                               */
/* ------------------------------------------------------------------------ */

/* Eager loops of small broadcasts and reduces on two disjoint teams at
 * once (even and odd PEs), every result checked, then sym_team_sync
 * succeeds on both: nothing of one team reaches the other. */
static void disjoint_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    sym_team_t rows, t; /* t: the even or the odd PEs */
    PE_OK(sym_team_split_2d(sym_team_world(), 2, &rows, &t));
    const int tn = sym_team_n_pes(t), tme = sym_team_my_pe(t);
    const int calls = getenv("SYMHEAP_TEST_QUICK") ? 100 : 400;
    for (int c = 0; c < calls; c++) {
        const int root = c % tn;
        int64_t v = tme == root ? 1000 * c + me % 2 : -1, sum = 0, mine = c + tme;
        PE_OK(sym_broadcast(t, &v, 1, SYM_INT64, root, NULL));
        PE_ASSERT(v == 1000 * c + me % 2, "call %d: broadcast gave %lld", c, (long long)v);
        PE_OK(sym_reduce(t, &sum, &mine, 1, SYM_INT64, SYM_OP_SUM, root, NULL));
        if (tme == root)
            PE_ASSERT(sum == (int64_t)tn * c + (int64_t)tn * (tn - 1) / 2,
                      "call %d: reduce gave %lld", c, (long long)sum);
    }
    PE_OK(sym_team_sync(t));
    PE_OK(sym_team_sync(sym_team_world()));
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_team_destroy(rows));
}

ParameterizedTestParameters(coll_mismatch_eager, disjoint_teams)
{
    static int sizes[] = {2, 4, 8};
    return cr_make_param_array(int, sizes, 3);
}

ParameterizedTest(int *npes, coll_mismatch_eager, disjoint_teams)
{
    run_pes(*npes, disjoint_body, NULL);
}

/* sym_team_sync on a bad handle, and on a team with no calls yet. */
static void sync_args_body(int me, int n, void *arg)
{
    (void)arg;
    (void)me;
    (void)n;
    PE_FAILS_WITH(sym_team_sync(SYM_TEAM_INVALID), SYM_ERR_INVALID_ARG);
    sym_team_t t = whole_split();
    PE_OK(sym_team_sync(t));
    PE_OK(sym_team_destroy(t));
    PE_FAILS_WITH(sym_team_sync(t), SYM_ERR_INVALID_ARG);
}

Test(coll_mismatch_eager, sync_arguments)
{
    run_pes(2, sync_args_body, NULL);
}

/* PE 1 never takes the broadcast PE 0 made on the world team and goes
 * straight to sym_finalize: PE 0's broadcast returned SYM_OK, so
 * sym_finalize reports the call nobody took, on both PEs. */
static void finalize_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    PE_OK(sym_init());
    int32_t buf[2] = {7, 8};
    if (me == 0)
        PE_OK(sym_broadcast(sym_team_world(), buf, 2, SYM_INT32, 0, NULL));
    sym_status_t st = sym_finalize();
    PE_ASSERT(st == SYM_ERR_MISMATCH, "finalize: %s: %s", sym_status_name(st), sym_last_error());
    CONTAINS(sym_last_error(), "broadcast #1");
    CONTAINS(sym_last_error(), "sym_finalize");
    CONTAINS(sym_last_error(), "mismatched collectives");
    _exit(0);
}

Test(coll_mismatch_eager, finalize_reports_untaken_call)
{
    struct pe_job job = {.npes = 2, .body = finalize_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
