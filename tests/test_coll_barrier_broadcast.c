/*
 * test_coll_barrier_broadcast.c - barrier and broadcast: one checked call each, and their
 * matrix (every algorithm x count x root x team).
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

void check_barrier(struct tctx *t, sym_algorithm_t a, int round)
{
    char d[256];
    describe(d, sizeof(d), "barrier", t, a, SYM_INT32, 0, 0, -1, OUT);
    PE_ASSERT(round < SCRATCH_WORDS, "too many barrier rounds");
    /* every member counts itself in at every member before entering; a
     * member released before the last one entered sees a short count */
    if (t->me == round % t->n && round % 2) {
        struct timespec ts = {0, 2000000}; /* arrive late on purpose */
        nanosleep(&ts, NULL);
    }
    for (int r = 0; r < t->n; r++)
        CALL_OK(sym_atomic_add64(&t->scratch[round], 1, sym_team_local_to_global(t->team, r)), d);
    sym_coll_opts_t o = {.algorithm = a, .timeout_s = 0};
    CALL_OK(sym_barrier(t->team, &o), d);
    uint64_t seen = 0;
    CALL_OK(sym_atomic_fetch64(&seen, &t->scratch[round], sym_my_pe()), d);
    PE_ASSERT(seen == (uint64_t)t->n,
              "[%s] round %d: released after only %llu of %d members "
              "arrived",
              d, round, (unsigned long long)seen, t->n);
}

void check_broadcast(struct tctx *t, sym_algorithm_t a, sym_datatype_t dt, size_t count, int root)
{
    char d[256];
    describe(d, sizeof(d), "broadcast", t, a, dt, 0, count, root, IN);
    const size_t es = dt_size(dt), bytes = count * es;
    const uint64_t key = next_salt(t);
    uint8_t *want = xmalloc(bytes);
    pat_fill(want, bytes, key);
    struct gbuf b;
    gb_alloc(&b, bytes, SENTINEL);
    if (t->me == root)
        memcpy(b.p, want, bytes);
    sym_coll_opts_t o = {.algorithm = a, .timeout_s = 0};
    CALL_OK(sym_broadcast(t->team, b.p, count, dt, root, &o), d);
    EXPECT_SAME(b.p, want, bytes, es, d);
    GB_CHECK(&b, d);
    gb_free(&b);
    free(want);
}

void barrier_matrix(struct tctx *t)
{
    int round = 0;
    for (size_t a = 0; a < NELEMS(barrier_algos); a++)
        for (int k = 0; k < 2 * t->n + 2 && matrix_wants(barrier_algos[a]); k++)
            check_barrier(t, barrier_algos[a], round++);
}

void broadcast_matrix(struct tctx *t)
{
    size_t counts[6];
    const int nc = count_list(t->n, counts);
    for (size_t a = 0; a < NELEMS(broadcast_algos); a++) {
        if (!matrix_wants(broadcast_algos[a]))
            continue;
        for (int c = 0; c < nc; c++)
            for (int root = 0; root < t->n; root++)
                if (root_wanted(t, counts[c], root))
                    check_broadcast(t, broadcast_algos[a], matrix_dt(c + root, counts[c]),
                                    counts[c], root);
        sym_coll_opts_t o = {.algorithm = broadcast_algos[a], .timeout_s = 0};
        CALL_OK(sym_broadcast(t->team, NULL, 0, SYM_INT32, t->n - 1, &o), "count 0, NULL");
    }
}

MATRIX_TEST(barrier)
MATRIX_TEST(broadcast)
