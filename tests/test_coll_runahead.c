/*
 * test_coll_runahead.c - run-ahead: broadcast and reduce senders return
 * without waiting for their receivers, back to back, around the ring's
 * wrap and across a team's destruction (also under the strict check).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll_check.h"

/* ------------------------------------------------------------------------ */
/* Run-ahead: broadcast and reduce senders return without waiting for their */
/* receivers, so back-to-back calls overlap in the mailbox slots.            */
/* ------------------------------------------------------------------------ */

/* 1 KiB chunks: the large calls below take 5 chunks, more than the slots of
 * a link, so a sender both runs ahead and waits for credits in one loop. */
static const char *const runahead_env[] = {"SYMHEAP_CHUNK_SIZE=1K", NULL};
/* the same with the strict end-of-call check (no run-ahead past a call) */
static const char *const strict_env[] = {"SYMHEAP_CHUNK_SIZE=1K", "SYMHEAP_COLL_CHECK=strict",
                                         NULL};

struct ra_param {
    int npes;
    bool strict; /* SYMHEAP_COLL_CHECK=strict */
};

#define RA_CALLS 90
#define RA_LARGE 1200 /* uint32: 4800 bytes */

static uint32_t ra_val(int call, int pe, size_t e)
{
    return (uint32_t)call * 2654435761u ^ (uint32_t)(pe + 1) * 40503u ^ (uint32_t)e * 97u;
}

/* Rotating roots, algorithms and sizes (small and multi-chunk interleaved),
 * distinct data in every call and no barrier between calls: a chunk taken
 * from the wrong call or a slot overwritten before it was consumed shows
 * as wrong data. */
static void runahead_body(int me, int n, void *arg)
{
    (void)arg;
    static const sym_algorithm_t algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                            SYM_ALGO_TREE};
    uint32_t *buf = malloc(RA_LARGE * 4), *src = malloc(RA_LARGE * 4);
    uint32_t *dst = malloc(RA_LARGE * 4);
    PE_ASSERT(buf && src && dst, "malloc failed");
    sym_team_t teams[2] = {sym_team_world(), SYM_TEAM_INVALID};
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &teams[1]));
    for (int call = 0; call < RA_CALLS; call++) {
        sym_team_t t = teams[call / 3 % 2];
        const int root = (call / 2 + call / 7) % n;
        const size_t count = call % 3 == 2 ? RA_LARGE - (size_t)call : 1 + (size_t)call % 5;
        sym_coll_opts_t o = {.algorithm = algos[call / 2 % 4], .timeout_s = 0};
        if (call % 2 == 0) {
            for (size_t e = 0; e < RA_LARGE; e++)
                buf[e] = me == root && e < count ? ra_val(call, root, e) : 0x5a5a5a5au;
            PE_OK(sym_broadcast(t, buf, count, SYM_UINT32, root, &o));
            for (size_t e = 0; e < RA_LARGE; e++) {
                uint32_t want = e < count ? ra_val(call, root, e) : 0x5a5a5a5au;
                PE_ASSERT(buf[e] == want,
                          "broadcast call %d (root %d, %zu elements, %s): "
                          "element %zu is %08x, expected %08x",
                          call, root, count, sym_algorithm_name(o.algorithm), e, buf[e], want);
            }
        } else {
            for (size_t e = 0; e < RA_LARGE; e++) {
                src[e] = ra_val(call, me, e);
                dst[e] = 0x5a5a5a5au;
            }
            PE_OK(sym_reduce(t, dst, src, count, SYM_UINT32, SYM_OP_SUM, root, &o));
            for (size_t e = 0; e < RA_LARGE; e++) {
                uint32_t want = 0x5a5a5a5au;
                if (me == root && e < count) {
                    want = 0;
                    for (int r = 0; r < n; r++)
                        want += ra_val(call, r, e);
                }
                PE_ASSERT(dst[e] == want,
                          "reduce call %d (root %d, %zu elements, %s): "
                          "element %zu is %08x, expected %08x",
                          call, root, count, sym_algorithm_name(o.algorithm), e, dst[e], want);
            }
        }
    }
    /* the team goes while the last calls' senders may still be ahead; the
     * world's last call is left to sym_finalize */
    PE_OK(sym_team_destroy(teams[1]));
    for (size_t e = 0; e < 3; e++)
        buf[e] = me == n - 1 ? ra_val(RA_CALLS, me, e) : 0;
    PE_OK(sym_broadcast(sym_team_world(), buf, 3, SYM_UINT32, n - 1, NULL));
    for (size_t e = 0; e < 3; e++)
        PE_ASSERT(buf[e] == ra_val(RA_CALLS, n - 1, e), "last broadcast: element %zu", e);
    free(buf);
    free(src);
    free(dst);
}

ParameterizedTestParameters(coll_runahead, back_to_back)
{
    static struct ra_param ps[] = {{2, false}, {3, false}, {4, false},
                                   {5, false}, {2, true},  {4, true}};
    return cr_make_param_array(struct ra_param, ps, sizeof(ps) / sizeof(ps[0]));
}

ParameterizedTest(struct ra_param *p, coll_runahead, back_to_back)
{
    run_pes_env(p->npes, p->strict ? strict_env : runahead_env, runahead_body, p);
}

/* Tiny broadcasts and reduces (one line each) go over the tiny ring, which a run-ahead sender fills
 * far ahead of its receivers.  Long stretches with one root put well over a ring's worth of
 * consecutive chunks on the same links, so every line is reused while
 * receivers lag (credits), mixed with calls of the ordinary slots (ring,
 * and a message too big to go inline) on the same links; on the world team
 * and on a split team, at 1..8 PEs, with every value checked. */
#define TW_CALLS     420
#define TW_AHEAD     48
#define TW_LAG_CALLS 400

static void tiny_wrap_body(int me, int n, void *arg)
{
    (void)arg;
    static const sym_algorithm_t algos[] = {SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_AUTO};
    sym_team_t teams[2] = {sym_team_world(), SYM_TEAM_INVALID};
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &teams[1]));
    uint64_t buf[8], src[8], dst[8];
    for (int call = 0; call < TW_CALLS; call++) {
        sym_team_t t = teams[call / 210];
        const int root = (call / 70) % n;
        const bool big = call % 37 == 36; /* 64 bytes: ordinary slots */
        const size_t count = big ? 8 : 1 + (size_t)call % 3;
        sym_coll_opts_t o = {.algorithm = call % 53 == 52 ? SYM_ALGO_RING : algos[call / 140],
                             .timeout_s = 0};
        if (call % 2 == 0) {
            for (size_t e = 0; e < 8; e++)
                buf[e] = me == root && e < count ? ra_val(call, root, e) : 0x5a5a5a5au;
            PE_OK(sym_broadcast(t, buf, count, SYM_UINT64, root, &o));
            for (size_t e = 0; e < 8; e++) {
                uint64_t want = e < count ? ra_val(call, root, e) : 0x5a5a5a5au;
                PE_ASSERT(buf[e] == want,
                          "broadcast call %d (root %d, %zu elements, %s): "
                          "element %zu is %" PRIx64 ", expected %" PRIx64,
                          call, root, count, sym_algorithm_name(o.algorithm), e, buf[e], want);
            }
        } else {
            for (size_t e = 0; e < 8; e++) {
                src[e] = ra_val(call, me, e);
                dst[e] = 0x5a5a5a5au;
            }
            PE_OK(sym_reduce(t, dst, src, count, SYM_UINT64, SYM_OP_BXOR, root, &o));
            for (size_t e = 0; e < 8; e++) {
                uint64_t want = 0x5a5a5a5au;
                if (me == root && e < count) {
                    want = 0;
                    for (int r = 0; r < n; r++)
                        want ^= ra_val(call, r, e);
                }
                PE_ASSERT(dst[e] == want,
                          "reduce call %d (root %d, %zu elements, %s): "
                          "element %zu is %" PRIx64 ", expected %" PRIx64,
                          call, root, count, sym_algorithm_name(o.algorithm), e, dst[e], want);
            }
        }
    }
    PE_OK(sym_team_destroy(teams[1]));
    /* Receivers held back: the root makes TW_AHEAD tiny broadcasts before
     * any receiver enters one (the world's tiny ring holds 64 per link), then
     * keeps going while they catch up, so it reuses lines they may not have
     * read yet unless it waits for their credits: without those waits a
     * receiver reads a later call's line (a mismatch) or its data. */
    uint64_t *go = sym_malloc(sizeof(uint64_t));
    PE_ASSERT(go, "sym_malloc: %s", sym_last_error());
    *go = 0;
    PE_OK(sym_barrier_all());
    for (int call = 0; call < TW_LAG_CALLS; call++) {
        if (me != 0 && call == 0)
            PE_OK(sym_signal_wait_until(go, SYM_CMP_GE, 1, NULL));
        buf[0] = me == 0 ? ra_val(call, 0, 0) : 0;
        PE_OK(sym_broadcast(sym_team_world(), buf, 1, SYM_UINT64, 0, NULL));
        PE_ASSERT(buf[0] == ra_val(call, 0, 0), "held-back broadcast %d: %" PRIx64, call, buf[0]);
        if (me == 0 && call == TW_AHEAD - 1)
            for (int r = 1; r < n; r++)
                PE_OK(sym_atomic_set64(go, 1, r));
    }
    PE_OK(sym_barrier_all());
    sym_free(go);
}

ParameterizedTestParameters(coll_runahead, tiny_ring_wraps)
{
    static int counts[] = {1, 2, 3, 4, 5, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_runahead, tiny_ring_wraps)
{
    /* the default mailbox: 64 tiny slots per link on the world up to 8 PEs,
     * 16..32 on a split team */
    static const char *const env[] = {"SYMHEAP_MAILBOX_SIZE=4M", "SYMHEAP_TEAM_AREA_SIZE=128K",
                                      "SYMHEAP_HEAP_SIZE=32M", NULL};
    run_pes_env(*npes, env, tiny_wrap_body, NULL);
}

/* A sender that ran ahead destroys the team at once, then every PE makes a
 * new team, which takes the same mailbox area: the old team's data must all
 * have arrived, and no late credit of the old team may land in the new
 * team's flags. */
static void destroy_body(int me, int n, void *arg)
{
    (void)arg;
    uint32_t buf[RA_LARGE];
    for (int round = 0; round < 6; round++) {
        sym_team_t t;
        PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &t));
        const int root = round % n;
        const size_t count = round % 2 ? RA_LARGE : 2;
        for (size_t e = 0; e < count; e++)
            buf[e] = me == root ? ra_val(round, root, e) : 0;
        PE_OK(sym_broadcast(t, buf, count, SYM_UINT32, root, NULL));
        PE_OK(sym_team_destroy(t));
        for (size_t e = 0; e < count; e++)
            PE_ASSERT(buf[e] == ra_val(round, root, e), "round %d: element %zu is %08x", round, e,
                      buf[e]);
    }
}

ParameterizedTestParameters(coll_runahead, team_destroy)
{
    static int counts[] = {2, 3};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_runahead, team_destroy)
{
    static const char *const env[] = {"SYMHEAP_CHUNK_SIZE=1K", "SYMHEAP_TEAM_AREA_SIZE=2M", NULL};
    run_pes_env(*npes, env, destroy_body, NULL);
}
