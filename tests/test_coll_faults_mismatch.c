/*
 * test_coll_faults_mismatch.c - members that disagree about the call (kind, count,
 * datatype, op, algorithm, root, counts of all_to_allv): every member
 * reports SYM_ERR_MISMATCH with both fingerprints, and no data of one call
 * reaches another.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "coll_fault_check.h"

/* ------------------------------------------------------------------------ */
/* members disagree about the call                                           */
/* ------------------------------------------------------------------------ */

enum mm_case {
    MM_KIND,     /* allreduce against broadcast */
    MM_COUNT,    /* allreduce, 5 against 6 elements */
    MM_DTYPE,    /* allreduce, int32 against float */
    MM_OP,       /* allreduce, sum against max */
    MM_ALGO,     /* allreduce, naive against ring */
    MM_ROOT,     /* broadcast, root 0 against root 1 */
    MM_REDROOT,  /* reduce, root 0 against root 1 */
    MM_BARRIER,  /* barrier against allreduce */
    MM_COUNT_BC, /* broadcast, 5 against 6 elements */
    MM_NCASES
};

struct mm_param {
    int npes;
    enum mm_case c;
};

/* What each side's fingerprint says, to look for both in the message. */
static const char *const mm_words[MM_NCASES][2] = {
    [MM_KIND] = {"allreduce #1", "broadcast #1"},
    [MM_COUNT] = {"count 5", "count 6"},
    [MM_DTYPE] = {"int32", "float"},
    [MM_OP] = {"sum", "max"},
    [MM_ALGO] = {"naive", "ring"},
    [MM_ROOT] = {"root 0", "root 1"},
    [MM_REDROOT] = {"root 0", "root 1"},
    [MM_BARRIER] = {"allreduce #1", "barrier #1"},
    [MM_COUNT_BC] = {"count 5", "count 6"},
};

/* PE p's element i: distinct bits per PE, so any combination of PEs'
 * terms shows which PEs it came from. */
static int32_t mm_ival(int pe, int i)
{
    return (int32_t)((uint32_t)(i + 1) << (8 * pe));
}

/* Could the PEs of one side (first .. last) have produced `bits` in a
 * failed call that reduces with op over dt?  Any non-empty subset of their
 * terms is possible; nothing of another side's PEs is. */
static bool mm_from_side(uint32_t bits, int first, int last, int i, sym_datatype_t dt, sym_op_t op)
{
    const int k = last - first + 1;
    for (unsigned set = 1; set < (1u << k); set++) {
        int32_t iacc = 0;
        float facc = 0;
        bool any = false;
        for (int j = 0; j < k; j++) {
            if (!(set & (1u << j)))
                continue;
            int32_t v = mm_ival(first + j, i);
            if (!any) {
                iacc = v;
                facc = (float)v;
            } else if (op == SYM_OP_MAX) {
                iacc = v > iacc ? v : iacc;
                facc = (float)v > facc ? (float)v : facc;
            } else {
                iacc += v;
                facc += (float)v;
            }
            any = true;
        }
        uint32_t b;
        if (dt == SYM_FLOAT)
            memcpy(&b, &facc, sizeof(b));
        else
            memcpy(&b, &iacc, sizeof(b));
        if (b == bits)
            return true;
    }
    return false;
}

static void mismatch_body(int me, int n, void *arg)
{
    const enum mm_case c = ((const struct mm_param *)arg)->c;
    sym_team_t t = whole_split();
    /* a library that misses the mismatch fails in 5 s, not 30 */
    PE_OK(sym_team_set_timeout(t, 5.0));
    const bool a = me == 0; /* side A: PE 0; side B: everyone else */
    const int first = a ? 0 : 1, last = a ? 0 : n - 1;
    enum { N = 8 };
    int32_t src[N];
    float srcf[N];
    unsigned char dst[N * 4]; /* read back through memcpy: int32 or float */
    for (int i = 0; i < N; i++) {
        src[i] = mm_ival(me, i);
        srcf[i] = (float)src[i];
    }
    memset(dst, SENTINEL, sizeof(dst));
    sym_coll_opts_t naive = {.algorithm = SYM_ALGO_NAIVE, .timeout_s = 0},
                    ring = {.algorithm = SYM_ALGO_RING, .timeout_s = 0};
    sym_status_t st = SYM_ERR_INTERNAL;
    /* what this PE's own call could legitimately leave in dst */
    enum { REDUCED, RECEIVED, OWN_DATA, NOTHING } expect = REDUCED;
    sym_datatype_t dt = SYM_INT32;
    sym_op_t op = SYM_OP_SUM;
    int root = 0;
    double t0 = harness_now();
    switch (c) {
    case MM_KIND:
        if (a) {
            st = sym_allreduce(t, dst, src, N, SYM_INT32, SYM_OP_SUM, NULL);
        } else {
            st = sym_broadcast(t, dst, N, SYM_INT32, 0, NULL);
            expect = RECEIVED;
        }
        break;
    case MM_COUNT:
        st = sym_allreduce(t, dst, src, a ? 5 : 6, SYM_INT32, SYM_OP_SUM, NULL);
        break;
    case MM_DTYPE:
        if (a) {
            st = sym_allreduce(t, dst, src, N, SYM_INT32, SYM_OP_SUM, NULL);
        } else {
            dt = SYM_FLOAT;
            st = sym_allreduce(t, dst, srcf, N, SYM_FLOAT, SYM_OP_SUM, NULL);
        }
        break;
    case MM_OP:
        op = a ? SYM_OP_SUM : SYM_OP_MAX;
        st = sym_allreduce(t, dst, src, N, SYM_INT32, op, NULL);
        break;
    case MM_ALGO:
        st = sym_allreduce(t, dst, src, N, SYM_INT32, SYM_OP_SUM, a ? &naive : &ring);
        break;
    case MM_ROOT:
    case MM_COUNT_BC:
        root = c == MM_ROOT && !a ? 1 : 0;
        if (me == root) {
            memcpy(dst, src, sizeof(src));
            expect = OWN_DATA;
        } else {
            expect = RECEIVED;
        }
        st = sym_broadcast(t, dst, c == MM_COUNT_BC && !a ? 6 : (c == MM_COUNT_BC ? 5 : N),
                           SYM_INT32, root, NULL);
        break;
    case MM_REDROOT:
        st = sym_reduce(t, dst, src, N, SYM_INT32, SYM_OP_SUM, a ? 0 : 1, NULL);
        break;
    case MM_BARRIER:
        if (a) {
            st = sym_allreduce(t, dst, src, N, SYM_INT32, SYM_OP_SUM, NULL);
        } else {
            st = sym_barrier(t, NULL);
            expect = NOTHING;
        }
        break;
    default:
        break;
    }
    double dt_s = harness_now() - t0;
    /* With two roots and a third PE, that PE may complete its part
     * consistently with one of them (its data path never touches the other
     * root) and learn of the mismatch only at its next call on the team,
     * which the check below (the team stays broken) requires. */
    const bool two_roots = (c == MM_ROOT || c == MM_REDROOT) && n >= 3;
    /* A broadcast root only sends: it returns once its data is in the
     * receivers' slots, and learns of the mismatch at its next call. */
    const bool sender_ok = me == root && (c == MM_ROOT || c == MM_COUNT_BC) && st == SYM_OK;
    const bool bystander_ok = (two_roots && !a && st == SYM_OK) || sender_ok;
    PE_ASSERT(st == SYM_ERR_MISMATCH || bystander_ok,
              "case %d: side %s returned %s after %.2f s: %s", (int)c, a ? "A" : "B",
              sym_status_name(st), dt_s, sym_last_error());
    PE_ASSERT(dt_s < harness_seconds(2.0), "the mismatch took %.2f s to report", dt_s);
    /* with two roots and a bystander, whichever PE spots the disagreement
     * first reports its own pair of calls to all */
    if (!two_roots && !sender_ok) {
        CONTAINS(sym_last_error(), mm_words[c][0]);
        CONTAINS(sym_last_error(), mm_words[c][1]);
    }
    /* no data of the other side's call reached this PE's buffer */
    uint32_t sent;
    memset(&sent, SENTINEL, sizeof(sent));
    for (int i = 0; i < N; i++) {
        uint32_t b;
        memcpy(&b, dst + 4 * i, sizeof(b));
        bool ok = b == sent;
        if (expect == OWN_DATA)
            ok = b == (uint32_t)src[i];
        else if (expect == RECEIVED)
            ok |= root >= first && root <= last && b == (uint32_t)mm_ival(root, i);
        else if (expect == REDUCED)
            ok |= mm_from_side(b, first, last, i, dt, op);
        PE_ASSERT(ok,
                  "case %d: dst element %d holds 0x%08x, which no PE of this PE's call "
                  "produced",
                  (int)c, i, b);
    }
    /* the team stays broken with the mismatch; it can still be destroyed */
    PE_FAILS_WITH(sym_barrier(t, NULL), SYM_ERR_MISMATCH);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_faults, mismatch)
{
    static struct mm_param ps[2 * MM_NCASES];
    for (int i = 0; i < 2 * MM_NCASES; i++)
        ps[i] = (struct mm_param){2 + i / MM_NCASES, (enum mm_case)(i % MM_NCASES)};
    return cr_make_param_array(struct mm_param, ps, 2 * MM_NCASES);
}

ParameterizedTest(struct mm_param *p, coll_faults, mismatch)
{
    run_pes(p->npes, mismatch_body, p);
}

/* Rooted collectives, every algorithm: the root alone passes a different
 * count.  A PE that only sends (the root of a broadcast or scatter, the
 * leaves of a reduce or gather) learns of the mismatch only from its
 * receivers: it may return SYM_OK and must then report the mismatch at its
 * next call on the team; a PE that receives reports it in the call.  Under
 * SYMHEAP_COLL_CHECK=strict every member reports it in the call. */
struct rooted_param {
    int npes;
    int kind; /* 0 broadcast, 1 reduce, 2 gather, 3 scatter */
    sym_algorithm_t algo;
    bool strict;
};

static void rooted_mismatch_body(int me, int n, void *arg)
{
    const struct rooted_param *p = arg;
    static const char *const names[] = {"broadcast", "reduce", "gather", "scatter"};
    sym_team_t t = whole_split();
    PE_OK(sym_team_set_timeout(t, 5.0));
    const int root = n - 1;
    const size_t count = me == root ? 4 : 3;
    int32_t src[64], dst[64], sent;
    memset(&sent, SENTINEL, sizeof(sent));
    for (int i = 0; i < 64; i++) {
        src[i] = 1000 * (me + 1) + i;
        dst[i] = sent;
    }
    sym_coll_opts_t o = {.algorithm = p->algo, .timeout_s = 0};
    sym_status_t st = SYM_ERR_INTERNAL;
    bool receives = false; /* dst only ever receives other PEs' data here */
    switch (p->kind) {
    case 0:
        if (me == root) {
            st = sym_broadcast(t, src, count, SYM_INT32, root, &o);
        } else {
            st = sym_broadcast(t, dst, count, SYM_INT32, root, &o);
            receives = true;
        }
        break;
    case 1:
        st = sym_reduce(t, dst, src, count, SYM_INT32, SYM_OP_SUM, root, &o);
        break;
    case 2:
        st = sym_gather(t, dst, src, count, SYM_INT32, root, &o);
        receives = me != root;
        break;
    default:
        st = sym_scatter(t, dst, src, count, SYM_INT32, root, &o);
        receives = me != root;
        break;
    }
    /* at 2 and 3 PEs every member exchanges data with the root directly */
    const bool only_sends = (p->kind == 0 || p->kind == 3) == (me == root);
    const bool first_ok = st == SYM_OK;
    PE_ASSERT(!first_ok || (!p->strict && only_sends),
              "%s/%s, member %d of %d received (or checked strictly) and returned SYM_OK",
              names[p->kind], sym_algorithm_name(p->algo), me, n);
    if (st == SYM_OK) {
        st = sym_barrier(t, NULL);
        PE_ASSERT(st == SYM_ERR_MISMATCH,
                  "%s/%s, member %d of %d: returned SYM_OK, and the "
                  "barrier after it %s: %s",
                  names[p->kind], sym_algorithm_name(p->algo), me, n, sym_status_name(st),
                  sym_last_error());
    }
    PE_ASSERT(st == SYM_ERR_MISMATCH, "%s/%s, member %d of %d: returned %s: %s", names[p->kind],
              sym_algorithm_name(p->algo), me, n, sym_status_name(st), sym_last_error());
    CONTAINS(sym_last_error(), "count 3");
    CONTAINS(sym_last_error(), "count 4");
    /* a scatter root copies its own block once its sends are done (it may
     * then still fail, when the poison reaches it before it returns) */
    const bool own_block = me == root && p->kind == 3;
    for (int i = 0; i < 64; i++)
        PE_ASSERT(dst[i] == sent || (!receives && dst[i] == src[i % 4]) ||
                      (own_block && i < 4 && dst[i] == src[root * 4 + i]),
                  "%s/%s: element %d of dst holds %d", names[p->kind], sym_algorithm_name(p->algo),
                  i, dst[i]);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_faults, rooted_mismatch)
{
    static const sym_algorithm_t algos[4][3] = {
        {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE},
        {SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE},
        {SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_AUTO},
        {SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_AUTO},
    };
    static struct rooted_param ps[2 * 4 * 3 + 2 * 2 * 3];
    int k = 0;
    for (int n = 2; n <= 3; n++)
        for (int kind = 0; kind < 4; kind++)
            for (int a = 0; a < 3; a++) {
                ps[k++] = (struct rooted_param){n, kind, algos[kind][a], false};
                if (kind <= 1) /* broadcast, reduce: also strictly checked */
                    ps[k++] = (struct rooted_param){n, kind, algos[kind][a], true};
            }
    return cr_make_param_array(struct rooted_param, ps, k);
}

ParameterizedTest(struct rooted_param *p, coll_faults, rooted_mismatch)
{
    static const char *const strict[] = {"SYMHEAP_COLL_CHECK=strict", NULL};
    static const char *const none[] = {NULL};
    run_pes_env(p->npes, p->strict ? strict : none, rooted_mismatch_body, p);
}

/* Tiny broadcasts and reduces take the tiny ring: a count that differs inside it (3 against 4
 * elements: the receiver compares the line's fingerprint), and one that sends the root's side over
 * the ordinary slots (40 elements, too big to go inline) while the others use the tiny ring, so the
 * two sides never share a slot and only the stall check (published calls) can find the mismatch.
 * Every PE reports it, in the call or, having run ahead, in the next one. */
struct ring_param {
    int npes;
    int kind; /* 0 broadcast, 1 reduce */
    sym_algorithm_t algo;
    size_t root_count;
};

static void ring_mismatch_body(int me, int n, void *arg)
{
    const struct ring_param *p = arg;
    sym_team_t t = whole_split();
    PE_OK(sym_team_set_timeout(t, 5.0));
    const int root = n - 1;
    const size_t count = me == root ? p->root_count : 3;
    int32_t src[64], dst[64], sent;
    memset(&sent, SENTINEL, sizeof(sent));
    for (int i = 0; i < 64; i++) {
        src[i] = 1000 * (me + 1) + i;
        dst[i] = sent;
    }
    sym_coll_opts_t o = {.algorithm = p->algo, .timeout_s = 0};
    sym_status_t st;
    if (p->kind == 0)
        st = sym_broadcast(t, me == root ? src : dst, count, SYM_INT32, root, &o);
    else
        st = sym_reduce(t, dst, src, count, SYM_INT32, SYM_OP_SUM, root, &o);
    if (st == SYM_OK) /* ran ahead: the next call on the team reports it */
        st = sym_barrier(t, NULL);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "%s/%s, member %d of %d (count %zu): returned %s: %s",
              p->kind ? "reduce" : "broadcast", sym_algorithm_name(p->algo), me, n, count,
              sym_status_name(st), sym_last_error());
    char want[32];
    snprintf(want, sizeof(want), "count %zu", p->root_count);
    CONTAINS(sym_last_error(), "mismatched collectives");
    if (p->root_count <= 7) { /* one ring: the line's fingerprint names both calls */
        CONTAINS(sym_last_error(), "count 3");
        CONTAINS(sym_last_error(), want);
    } else { /* the stall check may see a sender that ran ahead into its next call */
        PE_ASSERT(strstr(sym_last_error(), "count 3") || strstr(sym_last_error(), want),
                  "message names neither call: %s", sym_last_error());
    }
    for (int i = 0; i < 64; i++)
        PE_ASSERT(dst[i] == sent || (p->kind == 1 && me == root), "element %d of dst holds %d", i,
                  dst[i]);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_faults, tiny_ring_mismatch)
{
    static struct ring_param ps[2 * 2 * 3 * 2];
    static const sym_algorithm_t algos[] = {SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_AUTO};
    int k = 0;
    for (int n = 2; n <= 3; n++)
        for (int kind = 0; kind < 2; kind++)
            for (int a = 0; a < 3; a++) {
                ps[k++] = (struct ring_param){n, kind, algos[a], 4};
                ps[k++] = (struct ring_param){n, kind, algos[a], 40};
            }
    return cr_make_param_array(struct ring_param, ps, k);
}

ParameterizedTest(struct ring_param *p, coll_faults, tiny_ring_mismatch)
{
    run_pes(p->npes, ring_mismatch_body, p);
}

/* all_to_allv: what A sends to B must be what B expects from A.  Member 0
 * sends one element more to member 1 than member 1 expects: member 1
 * reports SYM_ERR_MISMATCH and nothing of that block is written; member 0,
 * which only sent the bad block, reports it in the call or from
 * sym_team_sync. */
static void alltoallv_counts_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t t = whole_split();
    PE_OK(sym_team_set_timeout(t, 5.0));
    size_t sc[8], rc[8];
    int64_t src[64], dst[64];
    for (int j = 0; j < n; j++) {
        sc[j] = 2 + (me == 0 && j == 1);
        rc[j] = 2;
    }
    for (int i = 0; i < 64; i++) {
        src[i] = 1000 * me + i;
        memset(&dst[i], SENTINEL, sizeof(dst[i]));
    }
    sym_status_t st = sym_all_to_allv(t, src, sc, dst, rc, SYM_INT64, NULL);
    if (me == 0 && st == SYM_OK)
        st = sym_team_sync(t);
    if (me == 0 || me == 1) {
        PE_ASSERT(st == SYM_ERR_MISMATCH, "returned %s: %s", sym_status_name(st), sym_last_error());
        int64_t s;
        memset(&s, SENTINEL, sizeof(s));
        if (me == 1)
            PE_ASSERT(dst[0] == s && dst[1] == s, "the bad block from member 0 was written");
    } else {
        /* the others may see the poison, or finish before it */
        PE_ASSERT(st == SYM_OK || st == SYM_ERR_MISMATCH, "returned %s: %s", sym_status_name(st),
                  sym_last_error());
    }
    pe_ignore(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_faults, all_to_allv_counts)
{
    static int counts[] = {2, 3};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, all_to_allv_counts)
{
    run_pes(*npes, alltoallv_counts_body, NULL);
}
