/*
 * test_coll_faults_args.c - invalid arguments to collectives: SYM_ERR_INVALID_ARG,
 * and the team is neither broken nor out of step afterwards.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <math.h>

#include "coll_fault_check.h"

/* ------------------------------------------------------------------------ */
/* invalid arguments: SYM_ERR_INVALID_ARG, and the team is not broken        */
/* ------------------------------------------------------------------------ */

/* Every bad call is made by PE 0 alone: a bad call must neither break the
 * team nor use up a sequence number, or the valid calls after it would
 * fail or mismatch. */
#define BAD(call)                                                                                  \
    do {                                                                                           \
        sym_status_t st_ = (call);                                                                 \
        if (st_ != SYM_ERR_INVALID_ARG)                                                            \
            pe_fail(__FILE__, __LINE__, #call,                                                     \
                    "on %s returned %s, expected "                                                 \
                    "SYM_ERR_INVALID_ARG: %s",                                                     \
                    sym_team_name(t), sym_status_name(st_), sym_last_error());                     \
    } while (0)

static void bad_calls(sym_team_t t)
{
    const int n = sym_team_n_pes(t);
    int32_t a[64] = {0}, b[64] = {0};
    float f[64] = {0}, g[64] = {0};
    size_t cnt[64];
    for (int i = 0; i < 64; i++)
        cnt[i] = 1;
    const sym_datatype_t bad_dt[] = {(sym_datatype_t)0, (sym_datatype_t)13, (sym_datatype_t)-1};
    const sym_op_t bad_op[] = {(sym_op_t)0, (sym_op_t)9, (sym_op_t)-3};
    const int bad_root[] = {-1, n, n + 7};
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
        BAD(sym_all_to_allv(t, a, cnt, b, cnt, bad_dt[i], NULL));
        BAD(sym_gather(t, b, a, 1, bad_dt[i], 0, NULL));
        BAD(sym_scatter(t, b, a, 1, bad_dt[i], 0, NULL));
        /* invalid ops */
        BAD(sym_reduce(t, b, a, 4, SYM_INT32, bad_op[i], 0, NULL));
        BAD(sym_allreduce(t, b, a, 4, SYM_INT32, bad_op[i], NULL));
        BAD(sym_reduce_scatter(t, b, a, 1, SYM_INT32, bad_op[i], NULL));
    }
    /* bitwise ops on every floating type */
    const sym_datatype_t fl[] = {SYM_FLOAT, SYM_DOUBLE, SYM_FLOAT16, SYM_BFLOAT16};
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
    BAD(sym_all_to_allv(t, a, cnt, NULL, cnt, SYM_INT32, NULL));
    BAD(sym_all_to_allv(t, NULL, cnt, b, cnt, SYM_INT32, NULL));
    BAD(sym_all_to_allv(t, a, cnt, b, NULL, SYM_INT32, NULL));
    BAD(sym_all_to_allv(t, a, NULL, b, cnt, SYM_INT32, NULL));
    BAD(sym_gather(t, b, NULL, 1, SYM_INT32, 0, NULL));
    BAD(sym_gather(t, NULL, a, 1, SYM_INT32, sym_team_my_pe(t), NULL));
    BAD(sym_scatter(t, NULL, a, 1, SYM_INT32, 0, NULL));
    BAD(sym_scatter(t, b, NULL, 1, SYM_INT32, sym_team_my_pe(t), NULL));
    /* invalid options */
    sym_coll_opts_t neg = {.algorithm = SYM_ALGO_AUTO, .timeout_s = -1.0},
                    nan_t = {.algorithm = SYM_ALGO_AUTO, .timeout_s = NAN};
    sym_coll_opts_t badalg = {.algorithm = (sym_algorithm_t)42, .timeout_s = 0};
    BAD(sym_allreduce(t, b, a, 4, SYM_INT32, SYM_OP_SUM, &neg));
    BAD(sym_barrier(t, &nan_t));
    BAD(sym_broadcast(t, a, 4, SYM_INT32, 0, &badalg));
}

static void invalid_args_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t split = whole_split();
    sym_team_t teams[2] = {sym_team_world(), split};
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
    int32_t a[4] = {0}, b[4];
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
    static int counts[] = {1, 2, 3, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, coll_faults, invalid_args)
{
    run_pes(*npes, invalid_args_body, NULL);
}
