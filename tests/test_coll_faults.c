/*
 * test_coll_faults.c - collectives that go wrong: a member that never
 * arrives (timeout), members that disagree about the call (mismatch), a
 * member killed in the middle of a large ring allreduce, invalid arguments
 * (which must not break the team), and a broken world team that must not
 * stop sym_finalize.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

#define SENTINEL 0x5A

static void sleep_s(double s)
{
    struct timespec ts = { (time_t)s, (long)((s - (double)(time_t)s) * 1e9) };
    nanosleep(&ts, NULL);
}

static void contains_at(const char *file, int line, const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        pe_fail(file, line, "strstr", "message \"%s\" does not mention \"%s\"", haystack, needle);
}
#define CONTAINS(h, n) contains_at(__FILE__, __LINE__, (h), (n))

/* A survivor's view of a killed PE: call #calls of `op` returned PEER_LOST
 * with a message naming the victim and the call. */
static void lost_at(const char *file, int line, sym_status_t st, const char *op, int calls,
                    int victim)
{
    if (st != SYM_ERR_PEER_LOST)
        pe_fail(file, line, "st == SYM_ERR_PEER_LOST", "%s #%d returned %s: %s", op, calls,
                sym_status_name(st), sym_last_error());
    char want[32];
    snprintf(want, sizeof(want), "PE %d", victim);
    contains_at(file, line, sym_last_error(), want);
    contains_at(file, line, sym_last_error(), op);
}
#define EXPECT_LOST(st, op, calls, victim) lost_at(__FILE__, __LINE__, (st), (op), (calls), (victim))

/* A team of every PE that is not the world, so breaking it is harmless. */
static sym_team_t whole_split(void)
{
    sym_team_t t;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, sym_n_pes(), &t));
    PE_ASSERT(t != SYM_TEAM_INVALID, "every PE is a member");
    return t;
}

/* The world still works: an allreduce with a checked result. */
static void world_still_works(void)
{
    const int n = sym_n_pes(), me = sym_my_pe();
    int64_t v[3] = { me, 2 * me, 1 }, out[3];
    PE_OK(sym_allreduce(sym_team_world(), out, v, 3, SYM_INT64, SYM_OP_SUM, NULL));
    const int64_t s = (int64_t)n * (n - 1) / 2;
    PE_ASSERT(out[0] == s && out[1] == 2 * s && out[2] == n, "world allreduce wrong");
}

/* ------------------------------------------------------------------------ */
/* (a) a member never arrives                                                */
/* ------------------------------------------------------------------------ */

struct timeout_case {
    int npes;
    bool per_call;          /* opts.timeout_s instead of the team's timeout */
    sym_algorithm_t algo;
};

static void timeout_body(int me, int n, void *arg)
{
    const struct timeout_case *tc = arg;
    const int victim = n - 1;
    sym_team_t t = whole_split();
    if (!tc->per_call)
        PE_OK(sym_team_set_timeout(t, 1.0));
    sym_coll_opts_t o = { tc->algo, tc->per_call ? 1.0 : 0, 0 };
    int32_t src[16], dst[16];
    for (int i = 0; i < 16; i++)
        src[i] = me + i;
    /* a good call first: the failing one is #2 on the team */
    PE_OK(sym_allreduce(t, dst, src, 16, SYM_INT32, SYM_OP_SUM, &o));
    if (me != victim) {
        double t0 = harness_now();
        sym_status_t st = sym_allreduce(t, dst, src, 16, SYM_INT32, SYM_OP_SUM, &o);
        double dt = harness_now() - t0;
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "allreduce without PE %d returned %s: %s", victim,
                  sym_status_name(st), sym_last_error());
        PE_ASSERT(dt >= 0.9 && dt < harness_seconds(3.0), "timed out after %.2f s (timeout 1 s)", dt);
        char msg[1024], want[32];
        snprintf(msg, sizeof(msg), "%s", sym_last_error());
        CONTAINS(msg, "sym_allreduce");
        CONTAINS(msg, "#2");
        CONTAINS(msg, sym_team_name(t));
        snprintf(want, sizeof(want), "PE %d", victim);
        CONTAINS(msg, want);
        /* broken: the next collective fails at once with the same error */
        t0 = harness_now();
        int32_t b = 7;
        st = sym_broadcast(t, &b, 1, SYM_INT32, 0, NULL);
        dt = harness_now() - t0;
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "broadcast on the broken team returned %s: %s",
                  sym_status_name(st), sym_last_error());
        PE_ASSERT(dt < harness_seconds(0.5), "the broken team's next call took %.2f s", dt);
        CONTAINS(sym_last_error(), "sym_broadcast");
        CONTAINS(sym_last_error(), "broken");
        CONTAINS(sym_last_error(), want);
        PE_FAILS_WITH(sym_barrier(t, NULL), SYM_ERR_TIMEOUT);
        PE_OK(sym_team_destroy(t));
        PE_ASSERT(sym_team_n_pes(t) == -1, "destroyed team still answers");
        PE_OK(sym_barrier_all());
    } else {
        /* arrive only after everyone else gave up and destroyed the team */
        PE_OK(sym_barrier_all());
        /* this member's view of the team is not broken, but its peers are
         * gone: destroying must return (whatever it reports), not hang */
        double t0 = harness_now();
        sym_status_t st = sym_team_destroy(t);
        PE_ASSERT(harness_now() - t0 < harness_seconds(35), "destroy took %.2f s", harness_now() - t0);
        (void)st;
        PE_ASSERT(sym_team_n_pes(t) == -1, "destroyed team still answers");
    }
    world_still_works();
}

ParameterizedTestParameters(coll_faults, timeout)
{
    static struct timeout_case cases[] = {
        { 2, false, SYM_ALGO_AUTO },  { 3, false, SYM_ALGO_NAIVE }, { 4, false, SYM_ALGO_NAIVE },
        { 2, true, SYM_ALGO_NAIVE },  { 3, true, SYM_ALGO_AUTO },   { 4, true, SYM_ALGO_RING },
        { 4, false, SYM_ALGO_TREE },  { 3, false, SYM_ALGO_RD },
    };
    return cr_make_param_array(struct timeout_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct timeout_case *tc, coll_faults, timeout)
{
    run_pes(tc->npes, timeout_body, tc);
}

/* The root of a broadcast never arrives: every receiver names it. */
static void missing_root_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t t = whole_split();
    PE_OK(sym_team_set_timeout(t, 1.0));
    const int root = 0;
    if (me != root) {
        int32_t buf[4] = { 0 };
        double t0 = harness_now();
        sym_status_t st = sym_broadcast(t, buf, 4, SYM_INT32, root, NULL);
        double dt = harness_now() - t0;
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "returned %s: %s", sym_status_name(st),
                  sym_last_error());
        PE_ASSERT(dt >= 0.9 && dt < harness_seconds(3.0), "timed out after %.2f s", dt);
        CONTAINS(sym_last_error(), "sym_broadcast");
        CONTAINS(sym_last_error(), "#1");
        CONTAINS(sym_last_error(), "PE 0");
        PE_OK(sym_team_destroy(t));
        PE_OK(sym_barrier_all());
    } else {
        PE_OK(sym_barrier_all());
        (void)sym_team_destroy(t);
    }
    (void)n;
    world_still_works();
}

ParameterizedTestParameters(coll_faults, missing_root)
{
    static int counts[] = { 2, 3, 4 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, missing_root)
{
    run_pes(*npes, missing_root_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* (b) members disagree about the call                                       */
/* ------------------------------------------------------------------------ */

enum mm_case {
    MM_KIND,      /* allreduce against broadcast */
    MM_COUNT,     /* allreduce, 5 against 6 elements */
    MM_DTYPE,     /* allreduce, int32 against float */
    MM_OP,        /* allreduce, sum against max */
    MM_ALGO,      /* allreduce, naive against ring */
    MM_ROOT,      /* broadcast, root 0 against root 1 */
    MM_REDROOT,   /* reduce, root 0 against root 1 */
    MM_BARRIER,   /* barrier against allreduce */
    MM_COUNT_BC,  /* broadcast, 5 against 6 elements */
    MM_NCASES
};

struct mm_param {
    int npes;
    enum mm_case c;
};

/* What each side's fingerprint says, to look for both in the message. */
static const char *const mm_words[MM_NCASES][2] = {
    [MM_KIND] = { "allreduce #1", "broadcast #1" },
    [MM_COUNT] = { "count 5", "count 6" },
    [MM_DTYPE] = { "int32", "float" },
    [MM_OP] = { "sum", "max" },
    [MM_ALGO] = { "naive", "ring" },
    [MM_ROOT] = { "root 0", "root 1" },
    [MM_REDROOT] = { "root 0", "root 1" },
    [MM_BARRIER] = { "allreduce #1", "barrier #1" },
    [MM_COUNT_BC] = { "count 5", "count 6" },
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
static bool mm_from_side(uint32_t bits, int first, int last, int i, sym_datatype_t dt,
                         sym_op_t op)
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
    sym_coll_opts_t naive = { SYM_ALGO_NAIVE, 0, 0 }, ring = { SYM_ALGO_RING, 0, 0 };
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
    const bool bystander_ok = two_roots && !a && st == SYM_OK;
    PE_ASSERT(st == SYM_ERR_MISMATCH || bystander_ok,
              "case %d: side %s returned %s after %.2f s: %s", (int)c, a ? "A" : "B",
              sym_status_name(st), dt_s, sym_last_error());
    PE_ASSERT(dt_s < harness_seconds(2.0), "the mismatch took %.2f s to report", dt_s);
    /* with two roots and a bystander, whichever PE spots the disagreement
     * first reports its own pair of calls to all */
    if (!two_roots) {
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
        PE_ASSERT(ok, "case %d: dst element %d holds 0x%08x, which no PE of this PE's call "
                  "produced", (int)c, i, b);
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
        ps[i] = (struct mm_param){ 2 + i / MM_NCASES, (enum mm_case)(i % MM_NCASES) };
    return cr_make_param_array(struct mm_param, ps, 2 * MM_NCASES);
}

ParameterizedTest(struct mm_param *p, coll_faults, mismatch)
{
    run_pes(p->npes, mismatch_body, p);
}

/* Rooted collectives, every algorithm: the root alone passes a different
 * count.  A PE that only sends (the root of a broadcast or scatter, the
 * leaves of a reduce or gather) learns of the mismatch only from its
 * receivers, so this is where a missing final flush shows.  At 2 and 3 PEs
 * every member exchanges data with the root directly, so every member must
 * report the mismatch in the call.  With run-ahead (broadcast and reduce
 * only, sym_coll_opts_t.runahead) such a sender may return SYM_OK and must
 * then report the mismatch at its next call on the team. */
struct rooted_param {
    int npes;
    int kind; /* 0 broadcast, 1 reduce, 2 gather, 3 scatter */
    sym_algorithm_t algo;
    bool runahead;
};

static void rooted_mismatch_body(int me, int n, void *arg)
{
    const struct rooted_param *p = arg;
    static const char *const names[] = { "broadcast", "reduce", "gather", "scatter" };
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
    sym_coll_opts_t o = { p->algo, 0, p->runahead ? SYM_RUNAHEAD_ON : SYM_RUNAHEAD_DEFAULT };
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
    const bool runs_ahead = p->runahead && st == SYM_OK;
    if (runs_ahead) {
        st = sym_barrier(t, NULL);
        PE_ASSERT(st == SYM_ERR_MISMATCH, "%s/%s, member %d of %d: returned SYM_OK, and the "
                  "barrier after it %s: %s", names[p->kind], sym_algorithm_name(p->algo), me, n,
                  sym_status_name(st), sym_last_error());
    }
    PE_ASSERT(st == SYM_ERR_MISMATCH, "%s/%s, member %d of %d: returned %s: %s", names[p->kind],
              sym_algorithm_name(p->algo), me, n, sym_status_name(st), sym_last_error());
    CONTAINS(sym_last_error(), "count 3");
    CONTAINS(sym_last_error(), "count 4");
    for (int i = 0; i < 64; i++)
        PE_ASSERT(dst[i] == sent || (!receives && dst[i] == src[i % 4]),
                  "%s/%s: element %d of dst holds %d", names[p->kind],
                  sym_algorithm_name(p->algo), i, dst[i]);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_faults, rooted_mismatch)
{
    static const sym_algorithm_t algos[4][3] = {
        { SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE },
        { SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE },
        { SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_AUTO },
        { SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_AUTO },
    };
    static struct rooted_param ps[2 * 4 * 3 + 2 * 2 * 3];
    int k = 0;
    for (int n = 2; n <= 3; n++)
        for (int kind = 0; kind < 4; kind++)
            for (int a = 0; a < 3; a++) {
                ps[k++] = (struct rooted_param){ n, kind, algos[kind][a], false };
                if (kind <= 1) /* broadcast, reduce: also with run-ahead */
                    ps[k++] = (struct rooted_param){ n, kind, algos[kind][a], true };
            }
    return cr_make_param_array(struct rooted_param, ps, k);
}

ParameterizedTest(struct rooted_param *p, coll_faults, rooted_mismatch)
{
    run_pes(p->npes, rooted_mismatch_body, p);
}

/* The same with SYMHEAP_COLL_RUNAHEAD=1, where tiny broadcasts and reduces
 * take the tiny ring: a count that differs inside it (3 against 4 elements:
 * the receiver compares the line's fingerprint), and one that sends the
 * root's side over the ordinary slots (40 elements, too big to go inline)
 * while the others use the tiny ring, so the two sides never share a slot
 * and only the stall check (published calls) can find the mismatch.  Every
 * PE reports it, in the call or, having run ahead, in the next one. */
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
    sym_coll_opts_t o = { p->algo, 0, SYM_RUNAHEAD_DEFAULT };
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
        PE_ASSERT(dst[i] == sent || (p->kind == 1 && me == root),
                  "element %d of dst holds %d", i, dst[i]);
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_faults, tiny_ring_mismatch)
{
    static struct ring_param ps[2 * 2 * 3 * 2];
    static const sym_algorithm_t algos[] = { SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_AUTO };
    int k = 0;
    for (int n = 2; n <= 3; n++)
        for (int kind = 0; kind < 2; kind++)
            for (int a = 0; a < 3; a++) {
                ps[k++] = (struct ring_param){ n, kind, algos[a], 4 };
                ps[k++] = (struct ring_param){ n, kind, algos[a], 40 };
            }
    return cr_make_param_array(struct ring_param, ps, k);
}

ParameterizedTest(struct ring_param *p, coll_faults, tiny_ring_mismatch)
{
    static const char *const env[] = { "SYMHEAP_COLL_RUNAHEAD=1", NULL };
    run_pes_env(p->npes, env, ring_mismatch_body, p);
}

/* all_to_allv: what A sends to B must be what B expects from A.  Member 0
 * sends one element more to member 1 than member 1 expects: both sides of
 * that link report SYM_ERR_MISMATCH and nothing of that block is written. */
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
    sym_status_t st = sym_all_to_allv(t, dst, rc, src, sc, SYM_INT64, NULL);
    if (me == 0 || me == 1) {
        PE_ASSERT(st == SYM_ERR_MISMATCH, "returned %s: %s", sym_status_name(st),
                  sym_last_error());
        int64_t s;
        memset(&s, SENTINEL, sizeof(s));
        if (me == 1)
            PE_ASSERT(dst[0] == s && dst[1] == s, "the bad block from member 0 was written");
    } else {
        /* the others may see the poison, or finish before it */
        PE_ASSERT(st == SYM_OK || st == SYM_ERR_MISMATCH, "returned %s: %s",
                  sym_status_name(st), sym_last_error());
    }
    (void)sym_team_destroy(t);
    PE_OK(sym_barrier_all());
    world_still_works();
}

ParameterizedTestParameters(coll_faults, all_to_allv_counts)
{
    static int counts[] = { 2, 3 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, all_to_allv_counts)
{
    run_pes(*npes, alltoallv_counts_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* (c) a member is killed inside a large ring allreduce                      */
/* ------------------------------------------------------------------------ */

#define KILL_AFTER_S 0.3

static void *killer(void *arg)
{
    (void)arg;
    sleep_s(KILL_AFTER_S);
    raise(SIGKILL);
    return NULL;
}

static void killed_in_allreduce_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    const size_t count = (size_t)1 << 21; /* 16 MB of doubles: each call takes a while */
    double *src = malloc(count * sizeof(double)), *dst = malloc(count * sizeof(double));
    PE_ASSERT(src && dst, "malloc failed");
    for (size_t i = 0; i < count; i++)
        src[i] = (double)(me + (int)(i % 7));
    const int victim = n - 1;
    sym_coll_opts_t o = { SYM_ALGO_RING, 0, 0 };
    PE_OK(sym_barrier_all());
    double t0 = harness_now();
    if (me == victim) {
        pthread_t th;
        PE_ASSERT(pthread_create(&th, NULL, killer, NULL) == 0, "pthread_create failed");
    }
    sym_status_t st = SYM_OK;
    int calls = 0;
    while (st == SYM_OK && calls < 1000 && harness_now() - t0 < 20) {
        st = sym_allreduce(sym_team_world(), dst, src, count, SYM_DOUBLE, SYM_OP_SUM, &o);
        calls++;
    }
    double dt = harness_now() - t0;
    PE_ASSERT(me != victim, "the victim outlived its killer");
    EXPECT_LOST(st, "sym_allreduce", calls, victim);
    CONTAINS(sym_last_error(), harness_killed_words());
    PE_ASSERT(dt < KILL_AFTER_S + harness_seconds(2.0), "the loss was reported %.2f s after the start (the "
              "victim died after %.1f s)", dt, KILL_AFTER_S);
    /* finalize marks this PE as done, so survivors still waiting are not
     * misled into blaming it instead of the victim */
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
    free(src);
    free(dst);
    _exit(0);
}

ParameterizedTestParameters(coll_faults, killed_in_ring_allreduce)
{
    static int counts[] = { 2, 3, 4 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, killed_in_ring_allreduce)
{
    harness_skip_if_launcher_ends_job_on_kill();
    struct pe_job job = { .npes = *npes, .body = killed_in_allreduce_body, .raw = true };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    const int victim = *npes - 1;
    cr_assert_eq(out.term_signal[victim], SIGKILL, "the victim ended with code %d",
                 out.exit_code[victim]);
    for (int pe = 0; pe < victim; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                     out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}

/* ------------------------------------------------------------------------ */
/* (d) invalid arguments: SYM_ERR_INVALID_ARG, and the team is not broken    */
/* ------------------------------------------------------------------------ */

/* Every bad call is made by PE 0 alone: a bad call must neither break the
 * team nor use up a sequence number, or the valid calls after it would
 * fail or mismatch. */
#define BAD(call)                                                                        \
    do {                                                                                 \
        sym_status_t st_ = (call);                                                       \
        if (st_ != SYM_ERR_INVALID_ARG)                                                  \
            pe_fail(__FILE__, __LINE__, #call, "on %s returned %s, expected "            \
                    "SYM_ERR_INVALID_ARG: %s", sym_team_name(t), sym_status_name(st_),   \
                    sym_last_error());                                                   \
    } while (0)

static void bad_calls(sym_team_t t)
{
    const int n = sym_team_n_pes(t);
    int32_t a[64] = { 0 }, b[64] = { 0 };
    float f[64] = { 0 }, g[64] = { 0 };
    size_t cnt[64];
    for (int i = 0; i < 64; i++)
        cnt[i] = 1;
    const sym_datatype_t bad_dt[] = { (sym_datatype_t)0, (sym_datatype_t)13,
                                      (sym_datatype_t)-1 };
    const sym_op_t bad_op[] = { (sym_op_t)0, (sym_op_t)9, (sym_op_t)-3 };
    const int bad_root[] = { -1, n, n + 7 };
    for (int i = 0; i < 3; i++) {
        /* invalid roots */
        BAD(sym_broadcast(t, a, 4, SYM_INT32, bad_root[i], NULL));
        BAD(sym_reduce(t, b, a, 4, SYM_INT32, SYM_OP_SUM, bad_root[i], NULL));
        BAD(sym_gather(t, b, a, 1, SYM_INT32, bad_root[i], NULL));
        BAD(sym_scatter(t, b, a, 1, SYM_INT32, bad_root[i], NULL));
        /* invalid datatypes */
        BAD(sym_broadcast(t, a, 4, bad_dt[i], 0, NULL));
        BAD(sym_reduce(t, b, a, 4, bad_dt[i], SYM_OP_SUM, 0, NULL));
        BAD(sym_allreduce(t, b, a, 4, bad_dt[i], SYM_OP_SUM, NULL));
        BAD(sym_reduce_scatter(t, b, a, 1, bad_dt[i], SYM_OP_SUM, NULL));
        BAD(sym_all_gather(t, b, a, 1, bad_dt[i], NULL));
        BAD(sym_all_gatherv(t, b, a, cnt, bad_dt[i], NULL));
        BAD(sym_all_to_all(t, b, a, 1, bad_dt[i], NULL));
        BAD(sym_all_to_allv(t, b, cnt, a, cnt, bad_dt[i], NULL));
        BAD(sym_gather(t, b, a, 1, bad_dt[i], 0, NULL));
        BAD(sym_scatter(t, b, a, 1, bad_dt[i], 0, NULL));
        /* invalid ops */
        BAD(sym_reduce(t, b, a, 4, SYM_INT32, bad_op[i], 0, NULL));
        BAD(sym_allreduce(t, b, a, 4, SYM_INT32, bad_op[i], NULL));
        BAD(sym_reduce_scatter(t, b, a, 1, SYM_INT32, bad_op[i], NULL));
    }
    /* bitwise ops on every floating type */
    const sym_datatype_t fl[] = { SYM_FLOAT, SYM_DOUBLE, SYM_FLOAT16, SYM_BFLOAT16 };
    for (int i = 0; i < 4; i++)
        for (sym_op_t op = SYM_OP_BAND; op <= SYM_OP_BXOR; op++) {
            BAD(sym_allreduce(t, g, f, 4, fl[i], op, NULL));
            BAD(sym_reduce(t, g, f, 4, fl[i], op, 0, NULL));
            BAD(sym_reduce_scatter(t, g, f, 1, fl[i], op, NULL));
        }
    /* NULL buffers with a count */
    BAD(sym_broadcast(t, NULL, 4, SYM_INT32, 0, NULL));
    BAD(sym_allreduce(t, NULL, a, 4, SYM_INT32, SYM_OP_SUM, NULL));
    BAD(sym_allreduce(t, b, NULL, 4, SYM_INT32, SYM_OP_SUM, NULL));
    BAD(sym_reduce(t, b, NULL, 4, SYM_INT32, SYM_OP_SUM, 0, NULL));
    BAD(sym_reduce(t, NULL, a, 4, SYM_INT32, SYM_OP_SUM, sym_team_my_pe(t), NULL));
    BAD(sym_reduce_scatter(t, NULL, a, 1, SYM_INT32, SYM_OP_SUM, NULL));
    BAD(sym_reduce_scatter(t, b, NULL, 1, SYM_INT32, SYM_OP_SUM, NULL));
    BAD(sym_all_gather(t, NULL, a, 1, SYM_INT32, NULL));
    BAD(sym_all_gather(t, b, NULL, 1, SYM_INT32, NULL));
    BAD(sym_all_gatherv(t, NULL, a, cnt, SYM_INT32, NULL));
    BAD(sym_all_gatherv(t, b, NULL, cnt, SYM_INT32, NULL));
    BAD(sym_all_gatherv(t, b, a, NULL, SYM_INT32, NULL));
    BAD(sym_all_to_all(t, NULL, a, 1, SYM_INT32, NULL));
    BAD(sym_all_to_all(t, b, NULL, 1, SYM_INT32, NULL));
    BAD(sym_all_to_allv(t, NULL, cnt, a, cnt, SYM_INT32, NULL));
    BAD(sym_all_to_allv(t, b, cnt, NULL, cnt, SYM_INT32, NULL));
    BAD(sym_all_to_allv(t, b, NULL, a, cnt, SYM_INT32, NULL));
    BAD(sym_all_to_allv(t, b, cnt, a, NULL, SYM_INT32, NULL));
    BAD(sym_gather(t, b, NULL, 1, SYM_INT32, 0, NULL));
    BAD(sym_gather(t, NULL, a, 1, SYM_INT32, sym_team_my_pe(t), NULL));
    BAD(sym_scatter(t, NULL, a, 1, SYM_INT32, 0, NULL));
    BAD(sym_scatter(t, b, NULL, 1, SYM_INT32, sym_team_my_pe(t), NULL));
    /* invalid options */
    sym_coll_opts_t neg = { SYM_ALGO_AUTO, -1.0, 0 }, nan_t = { SYM_ALGO_AUTO, NAN, 0 };
    sym_coll_opts_t badalg = { (sym_algorithm_t)42, 0, 0 };
    BAD(sym_allreduce(t, b, a, 4, SYM_INT32, SYM_OP_SUM, &neg));
    BAD(sym_barrier(t, &nan_t));
    BAD(sym_broadcast(t, a, 4, SYM_INT32, 0, &badalg));
}

static void invalid_args_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t split = whole_split();
    sym_team_t teams[2] = { sym_team_world(), split };
    for (int k = 0; k < 2; k++) {
        sym_team_t t = teams[k];
        if (me == 0)
            bad_calls(t);
        /* the team works: one call of every collective, results checked */
        int32_t src[16], dst[16];
        for (int i = 0; i < 16; i++)
            src[i] = me + 1;
        PE_OK(sym_allreduce(t, dst, src, 16, SYM_INT32, SYM_OP_SUM, NULL));
        PE_ASSERT(dst[15] == n * (n + 1) / 2, "allreduce after bad calls: %d", dst[15]);
        PE_OK(sym_broadcast(t, src, 2, SYM_INT32, n - 1, NULL));
        PE_ASSERT(src[1] == n, "broadcast after bad calls: %d", src[1]);
        PE_OK(sym_barrier(t, NULL));
        PE_OK(sym_all_gather(t, dst, src, 1, SYM_INT32, NULL));
        PE_ASSERT(dst[n - 1] == n, "all_gather after bad calls");
    }
    PE_OK(sym_team_destroy(split));
    /* calls on no team or a destroyed one */
    sym_team_t t = split;
    int32_t a[4] = { 0 }, b[4];
    BAD(sym_allreduce(t, b, a, 4, SYM_INT32, SYM_OP_SUM, NULL));
    CONTAINS(sym_last_error(), "destroyed");
    BAD(sym_barrier(t, NULL));
    BAD(sym_broadcast(t, a, 4, SYM_INT32, 0, NULL));
    t = SYM_TEAM_INVALID;
    BAD(sym_allreduce(t, b, a, 4, SYM_INT32, SYM_OP_SUM, NULL));
    BAD(sym_barrier(t, NULL));
    BAD(sym_all_to_all(t, b, a, 1, SYM_INT32, NULL));
    world_still_works();
}

ParameterizedTestParameters(coll_faults, invalid_args)
{
    static int counts[] = { 1, 2, 3, 4 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, invalid_args)
{
    run_pes(*npes, invalid_args_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* (e) a broken world team does not stop sym_finalize                        */
/* ------------------------------------------------------------------------ */

static void world_mismatch_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    PE_OK(sym_init());
    PE_OK(sym_team_set_timeout(sym_team_world(), 5.0));
    int32_t src[4] = { me, me, me, me }, dst[4];
    /* a mismatch every algorithm sees (data flows either way): the subject
     * here is finalize, detection itself is the mismatch test's */
    sym_status_t st = sym_allreduce(sym_team_world(), dst, src, me == 0 ? 3 : 4, SYM_INT32,
                                    SYM_OP_SUM, NULL);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "returned %s: %s", sym_status_name(st), sym_last_error());
    PE_FAILS_WITH(sym_barrier(sym_team_world(), NULL), SYM_ERR_MISMATCH);
    double t0 = harness_now();
    st = sym_finalize();
    double dt = harness_now() - t0;
    PE_ASSERT(st == SYM_OK, "finalize after a world mismatch returned %s: %s",
              sym_status_name(st), sym_last_error());
    PE_ASSERT(dt < harness_seconds(3.0), "finalize took %.2f s", dt);
    PE_ASSERT(!sym_initialized(), "still initialized");
}

ParameterizedTestParameters(coll_faults, world_mismatch_then_finalize)
{
    static int counts[] = { 2, 3 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, world_mismatch_then_finalize)
{
    struct pe_job job = { .npes = *npes, .body = world_mismatch_body, .raw = true };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* The world times out (one PE skips an allreduce): finalize still meets. */
static void world_timeout_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    int32_t src[4] = { me, me, me, me }, dst[4];
    if (me != n - 1) {
        sym_coll_opts_t o = { SYM_ALGO_AUTO, 1.0, 0 };
        PE_FAILS_WITH(sym_allreduce(sym_team_world(), dst, src, 4, SYM_INT32, SYM_OP_SUM, &o),
                      SYM_ERR_TIMEOUT);
    }
    double t0 = harness_now();
    sym_status_t st = sym_finalize();
    PE_ASSERT(st == SYM_OK, "finalize returned %s: %s", sym_status_name(st), sym_last_error());
    PE_ASSERT(harness_now() - t0 < harness_seconds(5.0), "finalize took %.2f s", harness_now() - t0);
}

Test(coll_faults, world_timeout_then_finalize)
{
    struct pe_job job = { .npes = 3, .body = world_timeout_body, .raw = true };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ------------------------------------------------------------------------ */
/* (e) broadcast / reduce senders that ran ahead of their receivers          */
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

/* Run-ahead per call (SYMHEAP_COLL_RUNAHEAD stays at its default 0). */
static const sym_coll_opts_t ahead = { SYM_ALGO_AUTO, 0, SYM_RUNAHEAD_ON };

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
    PE_ASSERT(st == SYM_OK || st == SYM_ERR_MISMATCH,
              "first call, member %d: %s: %s", me, sym_status_name(st), sym_last_error());
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
        ps[i] = (struct ahead_param){ 2 + i / 3, i % 3 };
    return cr_make_param_array(struct ahead_param, ps, 6);
}

ParameterizedTest(struct ahead_param *p, coll_faults, mismatch_after_run_ahead)
{
    run_pes(p->npes, mismatch_after_ahead_body, p);
}

/* The receivers never take what the root sent: the root's third broadcast
 * needs the first one's slot again, and its timeout names that first call
 * (the one whose data was never consumed), not only the call it is in. */
static void unconsumed_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    sym_team_t t = whole_split();
    int32_t buf[4] = { 1, 2, 3, 4 };
    if (me == 0) {
        sym_coll_opts_t o = { SYM_ALGO_NAIVE, 1.0, SYM_RUNAHEAD_ON };
        PE_OK(sym_broadcast(t, buf, 4, SYM_INT32, 0, &o));
        PE_OK(sym_broadcast(t, buf, 2, SYM_INT32, 0, &o));
        sym_status_t st = sym_broadcast(t, buf, 3, SYM_INT32, 0, &o);
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "third broadcast: %s: %s", sym_status_name(st),
                  sym_last_error());
        CONTAINS(sym_last_error(), "broadcast #3");
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
    static struct dies_param ps[] = { { 2, 1 }, { 2, 0 }, { 3, 1 }, { 3, 0 } };
    return cr_make_param_array(struct dies_param, ps, sizeof(ps) / sizeof(ps[0]));
}

ParameterizedTest(struct dies_param *p, coll_faults, receiver_dies_while_root_ahead)
{
    harness_skip_if_launcher_ends_job_on_kill();
    struct pe_job job = { .npes = p->npes, .body = receiver_dies_body, .arg = p, .raw = true };
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
    int32_t buf[4] = { 1, 2, 3, 4 };
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
        CONTAINS(sym_last_error(), "run-ahead");
        CONTAINS(sym_last_error(), "count 3");
    } else if (me == 0 || !*at_finalize) {
        PE_ASSERT(f == SYM_OK, "finalize: %s: %s", sym_status_name(f), sym_last_error());
    }
    _exit(0);
}

ParameterizedTestParameters(coll_faults, last_call_mismatch_after_run_ahead)
{
    static int cases[] = { 0, 1 };
    return cr_make_param_array(int, cases, 2);
}

ParameterizedTest(int *at_finalize, coll_faults, last_call_mismatch_after_run_ahead)
{
    struct pe_job job = { .npes = 2, .body = last_call_mismatch_body, .arg = at_finalize,
                          .raw = true };
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
