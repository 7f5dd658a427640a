/*
 * test_coll_capacity.c - the destination rule of the gathering
 * collectives: dst sized from this member's own arguments (n * count, the
 * sum of counts or of recv_counts) is always enough.  Exact-size buffers
 * with guard bytes behind them at 1..8 PEs; members whose sizes disagree
 * get SYM_ERR_MISMATCH and nothing is written past the destination.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define GUARD_BYTES 64
#define GUARD       0x5a

/* A buffer of `elems` int32 followed by guard bytes. */
static int32_t *guarded(size_t elems)
{
    uint8_t *b = malloc(elems * sizeof(int32_t) + GUARD_BYTES);
    PE_ASSERT(b, "malloc failed");
    memset(b, GUARD, elems * sizeof(int32_t) + GUARD_BYTES);
    return (int32_t *)b;
}

static void check_guard(const int32_t *buf, size_t elems, const char *what)
{
    const uint8_t *g = (const uint8_t *)(buf + elems);
    for (size_t i = 0; i < GUARD_BYTES; i++)
        PE_ASSERT(g[i] == GUARD, "%s wrote %zu bytes past its %zu-element destination", what, i + 1,
                  elems);
}

static int32_t val(int from, int to, size_t i)
{
    return from * 100000 + to * 1000 + (int32_t)i;
}

static void exact_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t w = sym_team_world();
    const size_t count = 5;
    /* all_gather: n * count */
    int32_t src[64], *dst = guarded((size_t)n * count);
    for (size_t i = 0; i < count; i++)
        src[i] = val(me, 0, i);
    PE_OK(sym_all_gather(w, dst, src, count, SYM_INT32, NULL));
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < count; i++)
            PE_ASSERT(dst[(size_t)r * count + i] == val(r, 0, i), "all_gather block %d", r);
    check_guard(dst, (size_t)n * count, "all_gather");
    free(dst);
    /* all_gatherv: the sum of counts (member r sends r + 1) */
    size_t counts[HARNESS_MAX_PES], total = 0;
    for (int r = 0; r < n; r++)
        total += counts[r] = (size_t)r + 1;
    dst = guarded(total);
    for (size_t i = 0; i < counts[me]; i++)
        src[i] = val(me, 1, i);
    PE_OK(sym_all_gatherv(w, dst, src, counts, SYM_INT32, NULL));
    check_guard(dst, total, "all_gatherv");
    free(dst);
    /* all_to_all: n * count */
    int32_t *a2a_src = guarded((size_t)n * count);
    dst = guarded((size_t)n * count);
    for (int j = 0; j < n; j++)
        for (size_t i = 0; i < count; i++)
            a2a_src[(size_t)j * count + i] = val(me, j, i);
    PE_OK(sym_all_to_all(w, dst, a2a_src, count, SYM_INT32, NULL));
    for (int r = 0; r < n; r++)
        for (size_t i = 0; i < count; i++)
            PE_ASSERT(dst[(size_t)r * count + i] == val(r, me, i), "all_to_all block %d", r);
    check_guard(dst, (size_t)n * count, "all_to_all");
    free(dst);
    /* all_to_allv: the sum of recv_counts (i sends j: i + 2 * j + 1) */
    size_t sc[HARNESS_MAX_PES], rc[HARNESS_MAX_PES], rtotal = 0, stotal = 0;
    for (int j = 0; j < n; j++) {
        stotal += sc[j] = (size_t)(me + 2 * j + 1);
        rtotal += rc[j] = (size_t)(j + 2 * me + 1);
    }
    int32_t *vs = guarded(stotal);
    for (int j = 0, o = 0; j < n; o += (int)sc[j], j++)
        for (size_t i = 0; i < sc[j]; i++)
            vs[(size_t)o + i] = val(me, j, i);
    dst = guarded(rtotal);
    PE_OK(sym_all_to_allv(w, vs, sc, dst, rc, SYM_INT32, NULL));
    for (int r = 0, o = 0; r < n; o += (int)rc[r], r++)
        for (size_t i = 0; i < rc[r]; i++)
            PE_ASSERT(dst[(size_t)o + i] == val(r, me, i), "all_to_allv from %d element %zu", r, i);
    check_guard(dst, rtotal, "all_to_allv");
    free(dst);
    free(vs);
    free(a2a_src);
}

ParameterizedTestParameters(coll_capacity, exact_destinations)
{
    static int counts[] = {1, 2, 3, 5, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_capacity, exact_destinations)
{
    run_pes(*npes, exact_body, NULL);
}

/* PE 0 sends PE 1 more than PE 1 expects (all_to_allv), and the members
 * disagree on the counts (all_gatherv): both members get SYM_ERR_MISMATCH
 * (from the call, or a sender from sym_team_sync) and nothing lands past a
 * destination sized by its own arguments. */
static void disagree_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    sym_team_t t = SYM_TEAM_INVALID;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, 2, &t));
    PE_OK(sym_team_set_timeout(t, 5));
    size_t sc[2] = {3, me == 0 ? 3000 : 3}, rc[2] = {3, 3};
    int32_t *src = guarded(3003), *dst = guarded(6);
    for (size_t i = 0; i < 3003; i++)
        src[i] = (int32_t)i;
    sym_status_t st = sym_all_to_allv(t, src, sc, dst, rc, SYM_INT32, NULL);
    if (st == SYM_OK) /* a PE that only sent learns it from sym_team_sync (symheap/coll.h) */
        st = sym_team_sync(t);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "all_to_allv with a larger block: %s (%s)",
              sym_status_name(st), sym_last_error());
    check_guard(dst, 6, "mismatched all_to_allv");
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, 2, &t));
    PE_OK(sym_team_set_timeout(t, 5));
    size_t counts[2] = {me == 1 ? 4000 : 2, 2};
    free(dst);
    dst = guarded(counts[0] + counts[1]);
    st = sym_all_gatherv(t, dst, src, counts, SYM_INT32, NULL);
    if (st == SYM_OK)
        st = sym_team_sync(t);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "all_gatherv with other counts: %s (%s)", sym_status_name(st),
              sym_last_error());
    check_guard(dst, counts[0] + counts[1], "mismatched all_gatherv");
    PE_OK(sym_team_destroy(t));
    free(dst);
    free(src);
}

Test(coll_capacity, disagreeing_sizes)
{
    run_pes(2, disagree_body, NULL);
}
