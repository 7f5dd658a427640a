/*
 * shmem_teams.c - teams and contexts: SHMEM_TEAM_WORLD and
 * SHMEM_TEAM_SHARED, my_pe/n_pes, get_config, translate_pe,
 * split_strided, split_2d (for several x ranges), destroy; ctx_create,
 * team_create_ctx, ctx_get_team, ctx_destroy; destroying a team destroys
 * its contexts (their handles then name no team); invalid arguments return
 * non-zero and the job goes on.
 */
#include "check.h"

static int me, npes;

static void check_world_shared(void)
{
    CHECK(shmem_team_my_pe(SHMEM_TEAM_WORLD) == me);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_WORLD) == npes);
    /* one host: every PE shares memory with every other */
    CHECK(shmem_team_n_pes(SHMEM_TEAM_SHARED) == npes);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_SHARED) == me);
    for (int p = 0; p < npes; p++) {
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_SHARED, p, SHMEM_TEAM_WORLD) == p);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, p, SHMEM_TEAM_SHARED) == p);
    }
    CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, npes, SHMEM_TEAM_SHARED) == -1);
    CHECK(shmem_team_my_pe(SHMEM_TEAM_INVALID) == -1);
    CHECK(shmem_team_n_pes(SHMEM_TEAM_INVALID) == -1);
    shmem_team_config_t cfg = {.num_contexts = 99};
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, &cfg) == 0);
    CHECK(cfg.num_contexts == 0);
    CHECK(shmem_team_get_config(SHMEM_TEAM_INVALID, SHMEM_TEAM_NUM_CONTEXTS, &cfg) != 0);
}

static void check_strided(int start, int stride, int size)
{
    shmem_team_config_t cfg = {.num_contexts = 3};
    shmem_team_t t;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, start, stride, size, &cfg,
                                   SHMEM_TEAM_NUM_CONTEXTS, &t) == 0);
    int idx = stride ? (me - start) / stride : 0;
    int member = stride ? (me - start) % stride == 0 && idx >= 0 && idx < size : me == start;
    CHECKF((t != SHMEM_TEAM_INVALID) == member, "split(%d, %d, %d) membership", start, stride,
           size);
    if (t != SHMEM_TEAM_INVALID) {
        CHECK(shmem_team_my_pe(t) == idx && shmem_team_n_pes(t) == size);
        shmem_team_config_t got;
        CHECK(shmem_team_get_config(t, SHMEM_TEAM_NUM_CONTEXTS, &got) == 0 &&
              got.num_contexts == 3);
        for (int k = 0; k < size; k++)
            CHECK(shmem_team_translate_pe(t, k, SHMEM_TEAM_WORLD) == start + k * stride);
        CHECK(shmem_team_translate_pe(SHMEM_TEAM_WORLD, me, t) == idx);
        /* the team works: a sum over it */
        int ref = 0;
        for (int k = 0; k < size; k++)
            ref += start + k * stride;
        int *s = shmem_malloc(sizeof(int)), *d = shmem_malloc(sizeof(int));
        *s = me;
        CHECK(shmem_int_sum_reduce(t, d, s, 1) == 0 && *d == ref);
        /* a context on the team numbers PEs in it */
        shmem_ctx_t ctx;
        CHECK(shmem_team_create_ctx(t, 0, &ctx) == 0 && ctx != SHMEM_CTX_INVALID);
        shmem_team_t back;
        CHECK(shmem_ctx_get_team(ctx, &back) == 0 && back == t);
        shmem_ctx_quiet(ctx);
        shmem_ctx_destroy(ctx);
        shmem_team_destroy(t);
        shmem_free(s);
        shmem_free(d);
    } else {
        int *s = shmem_malloc(sizeof(int)), *d = shmem_malloc(sizeof(int));
        shmem_free(s);
        shmem_free(d);
    }
}

static void check_2d(int xrange)
{
    shmem_team_t x, y;
    CHECK(shmem_team_split_2d(SHMEM_TEAM_WORLD, xrange, NULL, 0, &x, NULL, 0, &y) == 0);
    CHECK(x != SHMEM_TEAM_INVALID && y != SHMEM_TEAM_INVALID);
    int xr = xrange > npes ? npes : xrange;
    int col = me % xr, row = me / xr;
    int rows = (npes + xr - 1) / xr;
    int xsize = row == rows - 1 ? npes - row * xr : xr;
    int ysize = rows - (col >= npes - (rows - 1) * xr ? 1 : 0);
    CHECKF(shmem_team_my_pe(x) == col && shmem_team_n_pes(x) == xsize, "split_2d(%d) x: %d of %d",
           xrange, shmem_team_my_pe(x), shmem_team_n_pes(x));
    CHECKF(shmem_team_my_pe(y) == row && shmem_team_n_pes(y) == ysize, "split_2d(%d) y: %d of %d",
           xrange, shmem_team_my_pe(y), shmem_team_n_pes(y));
    CHECK(shmem_team_translate_pe(x, 0, SHMEM_TEAM_WORLD) == row * xr);
    CHECK(shmem_team_translate_pe(y, 0, SHMEM_TEAM_WORLD) == col);
    CHECK(shmem_team_sync(x) == 0 && shmem_team_sync(y) == 0);
    shmem_team_destroy(x);
    shmem_team_destroy(y);
}

int main(void)
{
    int provided = -1;
    CHECK(shmem_init_thread(SHMEM_THREAD_MULTIPLE, &provided) == 0);
    CHECK(provided == SHMEM_THREAD_MULTIPLE);
    me = shmem_my_pe();
    npes = shmem_n_pes();
    check_world_shared();
    check_strided(0, 1, npes);
    check_strided(0, 2, (npes + 1) / 2);
    check_strided(npes - 1, -1, npes);
    check_strided(npes / 2, 1, npes - npes / 2);
    check_strided(npes - 1, 0, 1);
    for (int xr = 1; xr <= npes + 1; xr++)
        check_2d(xr);

    /* contexts on the world */
    shmem_ctx_t c1, c2;
    CHECK(shmem_ctx_create(0, &c1) == 0 && shmem_ctx_create(SHMEM_CTX_SERIALIZED, &c2) == 0);
    shmem_team_t tw;
    CHECK(shmem_ctx_get_team(c1, &tw) == 0 && tw == SHMEM_TEAM_WORLD);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_DEFAULT, &tw) == 0 && tw == SHMEM_TEAM_WORLD);
    long *box = shmem_calloc(2, sizeof(long));
    shmem_ctx_long_p(c1, box, me, (me + 1) % npes);
    shmem_ctx_long_atomic_add(c2, box + 1, 1, 0);
    shmem_ctx_quiet(c1);
    shmem_ctx_fence(c2);
    shmem_ctx_destroy(c1);
    shmem_ctx_destroy(c2);
    shmem_barrier_all();
    CHECK(box[0] == (me + npes - 1) % npes);
    if (me == 0)
        CHECK(box[1] == npes);
    shmem_free(box);

    /* destroying a team destroys its contexts, shareable and private: their
     * operations are complete and they belong to no team any more, and
     * shmem_ctx_destroy still releases them (shmem_errors deadctx: using
     * one ends the job with a message) */
    shmem_team_t dup = SHMEM_TEAM_INVALID;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &dup) == 0 &&
          dup != SHMEM_TEAM_INVALID);
    shmem_ctx_t shared_ctx, private_ctx;
    CHECK(shmem_team_create_ctx(dup, 0, &shared_ctx) == 0);
    CHECK(shmem_team_create_ctx(dup, SHMEM_CTX_PRIVATE, &private_ctx) == 0);
    long *cell = shmem_calloc(1, sizeof(long));
    shmem_ctx_long_p(shared_ctx, cell, 100 + me, (me + 1) % npes);
    shmem_team_destroy(dup);
    shmem_team_t gone = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(shared_ctx, &gone) != 0 && gone == SHMEM_TEAM_INVALID);
    gone = SHMEM_TEAM_WORLD;
    CHECK(shmem_ctx_get_team(private_ctx, &gone) != 0 && gone == SHMEM_TEAM_INVALID);
    shmem_ctx_destroy(private_ctx);
    shmem_ctx_destroy(shared_ctx);
    shmem_barrier_all();
    CHECKF(*cell == 100 + (me + npes - 1) % npes, "cell %ld", *cell);
    shmem_free(cell);

    /* invalid arguments: non-zero status, the job continues */
    shmem_team_t bad = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes + 1, NULL, 0, &bad) != 0);
    CHECK(bad == SHMEM_TEAM_INVALID);
    shmem_ctx_t badctx = SHMEM_CTX_DEFAULT;
    CHECK(shmem_team_create_ctx(SHMEM_TEAM_INVALID, 0, &badctx) != 0);
    CHECK(badctx == SHMEM_CTX_INVALID);
    CHECK(shmem_team_sync(SHMEM_TEAM_INVALID) != 0);
    int x = 1, y = 0;
    CHECK(shmem_int_sum_reduce(SHMEM_TEAM_INVALID, &y, &x, 1) != 0);
    shmem_barrier_all();
    if (me == 0)
        printf("shmem_teams: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
