/*
 * shmem_errors.c - error behaviour.  Without an argument: routines that
 * return a status report bad arguments with non-zero and the job goes on.
 * With an argument, PE 0 makes one fatal mistake in a routine without a
 * return value; expect_fail.sh checks that the job ends with a failure
 * status and that the message names the routine:
 *   badpe    shmem_long_put to PE n_pes
 *   badaddr  shmem_int_get from a stack address
 *   timeout  every PE waits (shmem_long_wait_until) on a word nobody sets:
 *            the first to reach SYMHEAP_TIMEOUT ends the job
 *   deadctx  shmem_ctx_long_p on a context whose team was destroyed
 */
#include "check.h"

int main(int argc, char **argv)
{
    shmem_init();
    int me = shmem_my_pe(), npes = shmem_n_pes();
    long *sym = shmem_calloc(4, sizeof(long));
    /* status-returning routines */
    shmem_team_t t = SHMEM_TEAM_WORLD;
    CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, npes, 1, 1, NULL, 0, &t) != 0);
    CHECK(t == SHMEM_TEAM_INVALID);
    CHECK(shmem_team_split_2d(SHMEM_TEAM_INVALID, 1, NULL, 0, &t, NULL, 0, &t) != 0);
    CHECK(shmem_init_thread(42, NULL) != 0);
    CHECK(shmem_ctx_get_team(SHMEM_CTX_INVALID, &t) != 0 && t == SHMEM_TEAM_INVALID);
    CHECK(shmem_long_broadcast(SHMEM_TEAM_INVALID, sym, sym, 1, 0) != 0);
    CHECK(shmem_team_get_config(SHMEM_TEAM_WORLD, SHMEM_TEAM_NUM_CONTEXTS, NULL) != 0);
    shmem_barrier_all(); /* the job is still fine */
    if (argc > 1 && strcmp(argv[1], "timeout") == 0) {
        shmem_long_wait_until(&sym[1], SHMEM_CMP_EQ, 42);
        fprintf(stderr, "PE %d: the wait did not time out\n", me);
        return 3;
    }
    /* every PE makes the team (collective); PE 0 makes the mistake */
    shmem_ctx_t dead = SHMEM_CTX_INVALID;
    if (argc > 1 && strcmp(argv[1], "deadctx") == 0) {
        shmem_team_t t2 = SHMEM_TEAM_INVALID;
        CHECK(shmem_team_split_strided(SHMEM_TEAM_WORLD, 0, 1, npes, NULL, 0, &t2) == 0);
        CHECK(shmem_team_create_ctx(t2, 0, &dead) == 0);
        shmem_team_destroy(t2);
    }
    if (argc > 1 && me == 0) {
        long stack[4] = {0};
        int istack[4] = {0};
        if (strcmp(argv[1], "badpe") == 0)
            shmem_long_put(sym, stack, 1, npes);
        else if (strcmp(argv[1], "badaddr") == 0)
            shmem_int_get(istack, istack + 1, 1, 0);
        else if (strcmp(argv[1], "deadctx") == 0)
            shmem_ctx_long_p(dead, sym, 1, 0);
        fprintf(stderr, "PE 0: the mistake '%s' was not reported\n", argv[1]);
        return 3; /* not via global_exit: a distinct status */
    }
    shmem_barrier_all();
    shmem_free(sym);
    if (me == 0)
        printf("shmem_errors: %d PEs ok\n", npes);
    shmem_finalize();
    return 0;
}
