/*
 * test_coll_broadcast_v.c - sym_broadcast_v and sym_ibroadcast_v: receivers
 * learn the length; a member whose buffer is too small gets
 * SYM_ERR_TRUNCATED with nothing written while the others succeed and the
 * team stays usable; every algorithm, roots, sizes 0 .. larger than the
 * mailbox, 1..8 PEs, on the world and on a split team.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

static uint8_t pattern(size_t i, size_t len, int root)
{
    return (uint8_t)(i * 13 + len * 7 + (size_t)root * 29 + (i >> 8));
}

#define GUARD 0xa5
#define EXTRA 16

/* One call on `t`: every member but `short_member` has room; that one has
 * one byte too few (-1: nobody).  Checks data, lengths and guards. */
static void one_call(sym_team_t t, size_t len, int root, int short_member, sym_algorithm_t algo,
                     bool nonblocking, uint8_t *buf)
{
    const int me = sym_team_my_pe(t);
    sym_coll_opts_t o = {.algorithm = algo, .timeout_s = 0};
    size_t cap = me == short_member ? len - 1 : len + 3, n = 12345;
    memset(buf, GUARD, len + EXTRA);
    if (me == root) {
        for (size_t i = 0; i < len; i++)
            buf[i] = pattern(i, len, root);
        n = len;
        cap = 0; /* not used at the root */
    }
    sym_status_t st;
    if (nonblocking) {
        sym_request_t r;
        PE_OK(sym_ibroadcast_v(t, buf, cap, &n, root, &o, &r));
        st = sym_wait(&r);
    } else {
        st = sym_broadcast_v(t, buf, cap, &n, root, &o);
    }
    if (me == short_member) {
        PE_ASSERT(st == SYM_ERR_TRUNCATED, "%zu bytes into %zu: %s (%s)", len, cap,
                  sym_status_name(st), sym_last_error());
        PE_ASSERT(strstr(sym_last_error(), "nothing was written"), "message: %s", sym_last_error());
        PE_ASSERT(n == len, "truncated: length %zu reported, %zu sent", n, len);
        for (size_t i = 0; i < len + EXTRA; i++)
            PE_ASSERT(buf[i] == GUARD, "truncated receive wrote byte %zu of %zu", i, len);
        return;
    }
    PE_ASSERT(st == SYM_OK, "broadcast_v of %zu bytes from %d (%s): %s", len, root,
              sym_algorithm_name(algo), sym_last_error());
    PE_ASSERT(n == len, "length %zu reported, %zu sent", n, len);
    for (size_t i = 0; i < len; i++)
        PE_ASSERT(buf[i] == pattern(i, len, root), "%zu bytes from %d (%s): byte %zu wrong", len,
                  root, sym_algorithm_name(algo), i);
    for (size_t i = len; i < len + EXTRA; i++)
        PE_ASSERT(buf[i] == GUARD, "byte %zu past the %zu-byte message written", i, len);
}

static const size_t sizes[] = {0, 1, 13, 4099, 70001, 300007};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

static void run_on(sym_team_t t, uint8_t *buf)
{
    const int n = sym_team_n_pes(t);
    static const sym_algorithm_t algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING,
                                            SYM_ALGO_TREE};
    const bool quick = getenv("SYMHEAP_TEST_QUICK") != NULL;
    for (size_t a = 0; a < 4; a++)
        for (size_t s = 0; s < NSIZES; s++) {
            if (quick && a > 0 && sizes[s] > 70001)
                continue;
            const int root = (int)(s + a) % n;
            one_call(t, sizes[s], root, -1, algos[a], s % 2 == 1, buf);
            if (n > 1 && sizes[s] > 0) {
                /* the member after the root is short; in a ring or a tree
                 * it forwards to others, who still get everything */
                one_call(t, sizes[s], root, (root + 1) % n, algos[a], s % 2 == 0, buf);
            }
        }
    /* the team is not broken by truncation: ordinary calls go on */
    int32_t v = sym_team_my_pe(t) == 0 ? 77 : -1;
    PE_OK(sym_broadcast(t, &v, 1, SYM_INT32, 0, NULL));
    PE_ASSERT(v == 77, "broadcast after truncation gave %d", v);
    /* argument errors on every member alike: nobody waits */
    size_t len = 1;
    PE_FAILS_WITH(sym_broadcast_v(t, buf, 4, NULL, 0, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_broadcast_v(t, buf, 4, &len, n, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_broadcast_v(t, NULL, 4, &len, 0, NULL), SYM_ERR_INVALID_ARG);
}

static void broadcast_v_body(int me, int n, void *arg)
{
    (void)arg;
    uint8_t *buf = malloc(sizes[NSIZES - 1] + EXTRA);
    PE_ASSERT(buf, "malloc failed");
    run_on(sym_team_world(), buf);
    if (n >= 3) { /* the odd members, numbered apart from the world */
        sym_team_t odd = SYM_TEAM_INVALID;
        PE_OK(sym_team_split_strided(sym_team_world(), 1, 2, n / 2, &odd));
        if (me % 2)
            run_on(odd, buf);
        if (odd)
            PE_OK(sym_team_destroy(odd));
    }
    PE_OK(sym_barrier_all());
    free(buf);
}

ParameterizedTestParameters(coll_broadcast_v, sizes_roots_algorithms)
{
    static int counts[] = {1, 2, 3, 4, 5, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_broadcast_v, sizes_roots_algorithms)
{
    static const char *const env[] = {"SYMHEAP_MAILBOX_SIZE=1M", NULL};
    run_pes_env(*npes, env, broadcast_v_body, NULL);
}
