/*
 * test_bad_input_teams_coll.c - the bad-input rows of teams, datatypes and
 * names, collectives, non-blocking collectives and requests, and
 * point-to-point messages (the table test_bad_input.c runs; see there).
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>

#include "bad_input.h"

static const sym_coll_opts_t opts_neg = {.algorithm = SYM_ALGO_AUTO, .timeout_s = -1.0};
static const sym_coll_opts_t opts_nan = {.algorithm = SYM_ALGO_AUTO, .timeout_s = NAN};
static const sym_coll_opts_t opts_algo = {.algorithm = (sym_algorithm_t)99, .timeout_s = 0};
static const sym_coll_opts_t opts_pairwise = {.algorithm = SYM_ALGO_PAIRWISE, .timeout_s = 0};

#define BAD_DT ((sym_datatype_t)99)
#define BAD_OP ((sym_op_t)99)
#define DST32  ((int32_t *)c->ltgt)
#define SRC32  ((const int32_t *)c->tgt)

/* A non-blocking collective with a bad argument: refused at once, or
 * issued and its error reported by sym_wait (as documented); either way the
 * documented status. */
#define NB_ROW(ROW, id, fn, what, expr)                                                            \
    ROW(id, fn, what, SYM_ERR_INVALID_ARG, true, F_NB, nb_outcome(c, (expr)))

static sym_status_t nb_outcome(struct ctx *c, sym_status_t st)
{
    if (st != SYM_OK)
        return st;
    return sym_wait(&c->req);
}

/* ROW(id, fn, what, expect, msg, family, expression) */
#define TEAMS_COLL_ROWS(ROW)                                                                       \
    /* ---- teams ---- */                                                                          \
    ROW(tmy_null, "sym_team_my_pe", "SYM_TEAM_INVALID", FAILED_VALUE, false, F_TEAM,               \
        is_neg(sym_team_my_pe(SYM_TEAM_INVALID)))                                                  \
    ROW(tmy_dead, "sym_team_my_pe", "destroyed team", FAILED_VALUE, false, F_TEAM,                 \
        is_neg(sym_team_my_pe(c->dead)))                                                           \
    ROW(tmy_garbage, "sym_team_my_pe", "a pointer that is not a team", FAILED_VALUE, false,        \
        F_TEAM, is_neg(sym_team_my_pe((sym_team_t)c->ltgt)))                                       \
    ROW(tn_dead, "sym_team_n_pes", "destroyed team", FAILED_VALUE, false, F_TEAM,                  \
        is_neg(sym_team_n_pes(c->dead)))                                                           \
    ROW(tname_null, "sym_team_name", "SYM_TEAM_INVALID", FAILED_VALUE, false, F_TEAM,              \
        is_str(sym_team_name(SYM_TEAM_INVALID), "invalid"))                                        \
    ROW(tname_dead, "sym_team_name", "destroyed team", FAILED_VALUE, false, F_TEAM,                \
        is_str(sym_team_name(c->dead), "invalid"))                                                 \
    ROW(tsplit_null_out, "sym_team_split_strided", "NULL output", SYM_ERR_INVALID_ARG, true,       \
        F_TEAM, sym_team_split_strided(c->world, 0, 1, 1, NULL))                                   \
    ROW(tsplit_dead, "sym_team_split_strided", "destroyed parent", SYM_ERR_INVALID_ARG, true,      \
        F_TEAM, sym_team_split_strided(c->dead, 0, 1, 1, &c->tout[0]))                             \
    ROW(tsplit_start, "sym_team_split_strided", "start -1", SYM_ERR_INVALID_ARG, true, F_TEAM,     \
        sym_team_split_strided(c->world, -1, 1, 1, &c->tout[0]))                                   \
    ROW(tsplit_size0, "sym_team_split_strided", "size 0", SYM_ERR_INVALID_ARG, true, F_TEAM,       \
        sym_team_split_strided(c->world, 0, 1, 0, &c->tout[0]))                                    \
    ROW(tsplit_size_big, "sym_team_split_strided", "size npes + 1", SYM_ERR_INVALID_ARG, true,     \
        F_TEAM, sym_team_split_strided(c->world, 0, 1, c->npes + 1, &c->tout[0]))                  \
    ROW(tsplit_stride0, "sym_team_split_strided", "stride 0 with size 2", SYM_ERR_INVALID_ARG,     \
        true, F_TEAM, sym_team_split_strided(c->world, 0, 0, 2, &c->tout[0]))                      \
    ROW(tsplit_stride_ovf, "sym_team_split_strided", "stride INT_MAX", SYM_ERR_INVALID_ARG, true,  \
        F_TEAM, sym_team_split_strided(c->world, 0, INT_MAX, 2, &c->tout[0]))                      \
    ROW(tsplit_neg_ovf, "sym_team_split_strided", "start 0 stride -1 size 2", SYM_ERR_INVALID_ARG, \
        true, F_TEAM, sym_team_split_strided(c->world, 0, -1, 2, &c->tout[0]))                     \
    ROW(t2d_xrange, "sym_team_split_2d", "xrange 0", SYM_ERR_INVALID_ARG, true, F_TEAM,            \
        sym_team_split_2d(c->world, 0, &c->tout[0], &c->tout[1]))                                  \
    ROW(t2d_xrange_neg, "sym_team_split_2d", "xrange -3", SYM_ERR_INVALID_ARG, true, F_TEAM,       \
        sym_team_split_2d(c->world, -3, &c->tout[0], &c->tout[1]))                                 \
    ROW(t2d_null, "sym_team_split_2d", "NULL output", SYM_ERR_INVALID_ARG, true, F_TEAM,           \
        sym_team_split_2d(c->world, 1, NULL, &c->tout[0]))                                         \
    ROW(t2d_dead, "sym_team_split_2d", "destroyed parent", SYM_ERR_INVALID_ARG, true, F_TEAM,      \
        sym_team_split_2d(c->dead, 1, &c->tout[0], &c->tout[1]))                                   \
    ROW(tcreate_null, "sym_team_create", "NULL members", SYM_ERR_INVALID_ARG, true, F_TEAM,        \
        sym_team_create(c->world, NULL, 1, &c->tout[0]))                                           \
    ROW(tcreate_zero, "sym_team_create", "0 members", SYM_ERR_INVALID_ARG, true, F_TEAM,           \
        sym_team_create(c->world, c->members_dup, 0, &c->tout[0]))                                 \
    ROW(tcreate_neg, "sym_team_create", "-1 members", SYM_ERR_INVALID_ARG, true, F_TEAM,           \
        sym_team_create(c->world, c->members_dup, -1, &c->tout[0]))                                \
    ROW(tcreate_dup, "sym_team_create", "a member twice", SYM_ERR_INVALID_ARG, true, F_TEAM,       \
        sym_team_create(c->world, c->members_dup, 2, &c->tout[0]))                                 \
    ROW(tcreate_out, "sym_team_create", "member npes", SYM_ERR_INVALID_ARG, true, F_TEAM,          \
        sym_team_create(c->world, c->members_out, 2, &c->tout[0]))                                 \
    ROW(tcreate_out_null, "sym_team_create", "NULL output", SYM_ERR_INVALID_ARG, true, F_TEAM,     \
        sym_team_create(c->world, c->members_out, 1, NULL))                                        \
    ROW(tcreate_dead, "sym_team_create", "destroyed parent", SYM_ERR_INVALID_ARG, true, F_TEAM,    \
        sym_team_create(c->dead, c->members_out, 1, &c->tout[0]))                                  \
    ROW(tmembers_null, "sym_team_members", "NULL output", SYM_ERR_INVALID_ARG, true, F_TEAM,       \
        sym_team_members(c->world, NULL))                                                          \
    ROW(tmembers_dead, "sym_team_members", "destroyed team", SYM_ERR_INVALID_ARG, true, F_TEAM,    \
        sym_team_members(c->dead, (int *)c->ltgt))                                                 \
    ROW(tg2l_neg, "sym_team_global_to_local", "PE -1", FAILED_VALUE, false, F_TEAM,                \
        is_neg(sym_team_global_to_local(c->world, -1)))                                            \
    ROW(tg2l_n, "sym_team_global_to_local", "PE npes", FAILED_VALUE, false, F_TEAM,                \
        is_neg(sym_team_global_to_local(c->world, c->npes)))                                       \
    ROW(tg2l_dead, "sym_team_global_to_local", "destroyed team", FAILED_VALUE, false, F_TEAM,      \
        is_neg(sym_team_global_to_local(c->dead, 0)))                                              \
    ROW(tl2g_neg, "sym_team_local_to_global", "PE INT_MIN", FAILED_VALUE, false, F_TEAM,           \
        is_neg(sym_team_local_to_global(c->world, INT_MIN)))                                       \
    ROW(tl2g_null, "sym_team_local_to_global", "SYM_TEAM_INVALID", FAILED_VALUE, false, F_TEAM,    \
        is_neg(sym_team_local_to_global(SYM_TEAM_INVALID, 0)))                                     \
    ROW(ttr_src, "sym_team_translate_pe", "PE npes", FAILED_VALUE, false, F_TEAM,                  \
        is_neg(sym_team_translate_pe(c->world, c->npes, c->world)))                                \
    ROW(ttr_dead, "sym_team_translate_pe", "destroyed destination", FAILED_VALUE, false, F_TEAM,   \
        is_neg(sym_team_translate_pe(c->world, 0, c->dead)))                                       \
    ROW(tto_zero, "sym_team_set_timeout", "0 s", SYM_ERR_INVALID_ARG, true, F_TEAM,                \
        sym_team_set_timeout(c->world, 0))                                                         \
    ROW(tto_neg, "sym_team_set_timeout", "-1 s", SYM_ERR_INVALID_ARG, true, F_TEAM,                \
        sym_team_set_timeout(c->world, -1))                                                        \
    ROW(tto_nan, "sym_team_set_timeout", "NaN", SYM_ERR_INVALID_ARG, true, F_TEAM,                 \
        sym_team_set_timeout(c->world, NAN))                                                       \
    ROW(tto_dead, "sym_team_set_timeout", "destroyed team", SYM_ERR_INVALID_ARG, true, F_TEAM,     \
        sym_team_set_timeout(c->dead, 1))                                                          \
    ROW(tdestroy_world, "sym_team_destroy", "the world team", SYM_ERR_INVALID_ARG, true, F_TEAM,   \
        sym_team_destroy(c->world))                                                                \
    ROW(tdestroy_null, "sym_team_destroy", "SYM_TEAM_INVALID", SYM_ERR_INVALID_ARG, true, F_TEAM,  \
        sym_team_destroy(SYM_TEAM_INVALID))                                                        \
    ROW(tdestroy_dead, "sym_team_destroy", "destroyed twice", SYM_ERR_INVALID_ARG, true, F_TEAM,   \
        sym_team_destroy(c->dead))                                                                 \
    /* ---- datatypes and names ---- */                                                            \
    ROW(dtsize_0, "sym_datatype_size", "datatype 0", FAILED_VALUE, false, F_NONE,                  \
        is_zero((long)sym_datatype_size((sym_datatype_t)0)))                                       \
    ROW(dtsize_big, "sym_datatype_size", "datatype 99", FAILED_VALUE, false, F_NONE,               \
        is_zero((long)sym_datatype_size(BAD_DT)))                                                  \
    ROW(dtsize_neg, "sym_datatype_size", "datatype -1", FAILED_VALUE, false, F_NONE,               \
        is_zero((long)sym_datatype_size((sym_datatype_t)-1)))                                      \
    ROW(dtname_bad, "sym_datatype_name", "datatype 99", FAILED_VALUE, false, F_NONE,               \
        is_zero(strstr(sym_datatype_name(BAD_DT), "invalid") == NULL))                             \
    ROW(opname_bad, "sym_op_name", "op 99", FAILED_VALUE, false, F_NONE,                           \
        is_zero(strstr(sym_op_name(BAD_OP), "invalid") == NULL))                                   \
    ROW(opname_neg, "sym_op_name", "op -5", FAILED_VALUE, false, F_NONE,                           \
        is_zero(strstr(sym_op_name((sym_op_t)-5), "invalid") == NULL))                             \
    ROW(algname_bad, "sym_algorithm_name", "algorithm 99", FAILED_VALUE, false, F_NONE,            \
        is_zero(strstr(sym_algorithm_name((sym_algorithm_t)99), "invalid") == NULL))               \
    /* ---- collectives ---- */                                                                    \
    ROW(bar_null, "sym_barrier", "SYM_TEAM_INVALID", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_barrier(SYM_TEAM_INVALID, NULL))                                                       \
    ROW(bar_dead, "sym_barrier", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,              \
        sym_barrier(c->dead, NULL))                                                                \
    ROW(bar_opts_neg, "sym_barrier", "timeout -1", SYM_ERR_INVALID_ARG, true, F_COLL,              \
        sym_barrier(c->world, &opts_neg))                                                          \
    ROW(bar_opts_algo, "sym_barrier", "algorithm 99", SYM_ERR_INVALID_ARG, true, F_COLL,           \
        sym_barrier(c->world, &opts_algo))                                                         \
    ROW(bar_opts_pw, "sym_barrier", "algorithm pairwise", SYM_ERR_INVALID_ARG, true, F_COLL,       \
        sym_barrier(c->world, &opts_pairwise))                                                     \
    ROW(bc_dead, "sym_broadcast", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,             \
        sym_broadcast(c->dead, c->ltgt, 4, SYM_INT32, 0, NULL))                                    \
    ROW(bc_null, "sym_broadcast", "NULL buffer", SYM_ERR_INVALID_ARG, true, F_COLL,                \
        sym_broadcast(c->world, NULL, 4, SYM_INT32, 0, NULL))                                      \
    ROW(bc_dt, "sym_broadcast", "datatype 99", SYM_ERR_INVALID_ARG, true, F_COLL,                  \
        sym_broadcast(c->world, c->ltgt, 4, BAD_DT, 0, NULL))                                      \
    ROW(bc_dt0, "sym_broadcast", "datatype 0", SYM_ERR_INVALID_ARG, true, F_COLL,                  \
        sym_broadcast(c->world, c->ltgt, 4, (sym_datatype_t)0, 0, NULL))                           \
    ROW(bc_root_neg, "sym_broadcast", "root -1", SYM_ERR_INVALID_ARG, true, F_COLL,                \
        sym_broadcast(c->world, c->ltgt, 4, SYM_INT32, -1, NULL))                                  \
    ROW(bc_root_n, "sym_broadcast", "root npes", SYM_ERR_INVALID_ARG, true, F_COLL,                \
        sym_broadcast(c->world, c->ltgt, 4, SYM_INT32, c->npes, NULL))                             \
    ROW(bc_count, "sym_broadcast", "count SIZE_MAX", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_broadcast(c->world, c->ltgt, SIZE_MAX, SYM_INT32, 0, NULL))                            \
    ROW(bc_count_half, "sym_broadcast", "count SIZE_MAX/4 of int64", SYM_ERR_INVALID_ARG, true,    \
        F_COLL, sym_broadcast(c->world, c->ltgt, SIZE_MAX / 4, SYM_INT64, 0, NULL))                \
    ROW(bc_opts_nan, "sym_broadcast", "timeout NaN", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_broadcast(c->world, c->ltgt, 4, SYM_INT32, 0, &opts_nan))                              \
    ROW(bc_opts_pw, "sym_broadcast", "algorithm pairwise", SYM_ERR_INVALID_ARG, true, F_COLL,      \
        sym_broadcast(c->world, c->ltgt, 4, SYM_INT32, 0, &opts_pairwise))                         \
    ROW(red_op, "sym_reduce", "op 99", SYM_ERR_INVALID_ARG, true, F_COLL,                          \
        sym_reduce(c->world, DST32, SRC32, 4, SYM_INT32, BAD_OP, 0, NULL))                         \
    ROW(red_op0, "sym_reduce", "op 0", SYM_ERR_INVALID_ARG, true, F_COLL,                          \
        sym_reduce(c->world, DST32, SRC32, 4, SYM_INT32, (sym_op_t)0, 0, NULL))                    \
    ROW(red_bitfloat, "sym_reduce", "bxor on float", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_reduce(c->world, DST32, SRC32, 4, SYM_FLOAT, SYM_OP_BXOR, 0, NULL))                    \
    ROW(red_root, "sym_reduce", "root npes", SYM_ERR_INVALID_ARG, true, F_COLL,                    \
        sym_reduce(c->world, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, c->npes, NULL))               \
    ROW(red_null_src, "sym_reduce", "NULL src", SYM_ERR_INVALID_ARG, true, F_COLL,                 \
        sym_reduce(c->world, DST32, NULL, 4, SYM_INT32, SYM_OP_SUM, 0, NULL))                      \
    ROW(red_count, "sym_reduce", "count SIZE_MAX", SYM_ERR_INVALID_ARG, true, F_COLL,              \
        sym_reduce(c->world, DST32, SRC32, SIZE_MAX, SYM_INT32, SYM_OP_SUM, 0, NULL))              \
    ROW(red_dead, "sym_reduce", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,               \
        sym_reduce(c->dead, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, 0, NULL))                      \
    ROW(ar_null, "sym_allreduce", "SYM_TEAM_INVALID", SYM_ERR_INVALID_ARG, true, F_COLL,           \
        sym_allreduce(SYM_TEAM_INVALID, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))             \
    ROW(ar_dead, "sym_allreduce", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,             \
        sym_allreduce(c->dead, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))                      \
    ROW(ar_garbage_team, "sym_allreduce", "a pointer that is not a team", SYM_ERR_INVALID_ARG,     \
        true, F_COLL,                                                                              \
        sym_allreduce((sym_team_t)c->ltgt, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))          \
    ROW(ar_dt, "sym_allreduce", "datatype -1", SYM_ERR_INVALID_ARG, true, F_COLL,                  \
        sym_allreduce(c->world, DST32, SRC32, 4, (sym_datatype_t)-1, SYM_OP_SUM, NULL))            \
    ROW(ar_op, "sym_allreduce", "op INT_MAX", SYM_ERR_INVALID_ARG, true, F_COLL,                   \
        sym_allreduce(c->world, DST32, SRC32, 4, SYM_INT32, (sym_op_t)INT_MAX, NULL))              \
    ROW(ar_bitdouble, "sym_allreduce", "band on double", SYM_ERR_INVALID_ARG, true, F_COLL,        \
        sym_allreduce(c->world, DST32, SRC32, 2, SYM_DOUBLE, SYM_OP_BAND, NULL))                   \
    ROW(ar_bitf16, "sym_allreduce", "bor on float16", SYM_ERR_INVALID_ARG, true, F_COLL,           \
        sym_allreduce(c->world, DST32, SRC32, 2, SYM_FLOAT16, SYM_OP_BOR, NULL))                   \
    ROW(ar_null_dst, "sym_allreduce", "NULL dst", SYM_ERR_INVALID_ARG, true, F_COLL,               \
        sym_allreduce(c->world, NULL, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))                      \
    ROW(ar_count, "sym_allreduce", "count SIZE_MAX", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_allreduce(c->world, DST32, SRC32, SIZE_MAX, SYM_INT32, SYM_OP_SUM, NULL))              \
    ROW(ar_count_q, "sym_allreduce", "count SIZE_MAX/8 of double", SYM_ERR_INVALID_ARG, true,      \
        F_COLL, sym_allreduce(c->world, DST32, SRC32, SIZE_MAX / 8, SYM_DOUBLE, SYM_OP_SUM, NULL)) \
    ROW(ar_opts, "sym_allreduce", "algorithm pairwise", SYM_ERR_INVALID_ARG, true, F_COLL,         \
        sym_allreduce(c->world, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, &opts_pairwise))           \
    ROW(rs_op, "sym_reduce_scatter", "op 0", SYM_ERR_INVALID_ARG, true, F_COLL,                    \
        sym_reduce_scatter(c->world, DST32, SRC32, 4, SYM_INT32, (sym_op_t)0, NULL))               \
    ROW(rs_null, "sym_reduce_scatter", "NULL src", SYM_ERR_INVALID_ARG, true, F_COLL,              \
        sym_reduce_scatter(c->world, DST32, NULL, 4, SYM_INT32, SYM_OP_SUM, NULL))                 \
    ROW(rs_count, "sym_reduce_scatter", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL,  \
        sym_reduce_scatter(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, SYM_OP_SUM, NULL))     \
    ROW(rs_dead, "sym_reduce_scatter", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,        \
        sym_reduce_scatter(c->dead, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL))                 \
    ROW(ag_dt, "sym_all_gather", "datatype 13", SYM_ERR_INVALID_ARG, true, F_COLL,                 \
        sym_all_gather(c->world, DST32, SRC32, 4, (sym_datatype_t)13, NULL))                       \
    ROW(ag_null, "sym_all_gather", "NULL dst", SYM_ERR_INVALID_ARG, true, F_COLL,                  \
        sym_all_gather(c->world, NULL, SRC32, 4, SYM_INT32, NULL))                                 \
    ROW(ag_count, "sym_all_gather", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL,      \
        sym_all_gather(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, NULL))                     \
    ROW(ag_algo, "sym_all_gather", "algorithm tree", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_all_gather(c->world, DST32, SRC32, 4, SYM_INT32,                                       \
                       &(const sym_coll_opts_t){.algorithm = SYM_ALGO_TREE}))                      \
    ROW(agv_null_counts, "sym_all_gatherv", "NULL counts", SYM_ERR_INVALID_ARG, true, F_COLL,      \
        sym_all_gatherv(c->world, DST32, SRC32, NULL, SYM_INT32, NULL))                            \
    ROW(agv_huge, "sym_all_gatherv", "counts summing past SIZE_MAX", SYM_ERR_INVALID_ARG, true,    \
        F_COLL, sym_all_gatherv(c->world, DST32, SRC32, c->huge_counts, SYM_INT32, NULL))          \
    ROW(agv_dt, "sym_all_gatherv", "datatype 0", SYM_ERR_INVALID_ARG, true, F_COLL,                \
        sym_all_gatherv(c->world, DST32, SRC32, c->counts, (sym_datatype_t)0, NULL))               \
    ROW(agv_null_dst, "sym_all_gatherv", "NULL dst", SYM_ERR_INVALID_ARG, true, F_COLL,            \
        sym_all_gatherv(c->world, NULL, SRC32, c->counts, SYM_INT32, NULL))                        \
    ROW(a2a_null, "sym_all_to_all", "NULL src", SYM_ERR_INVALID_ARG, true, F_COLL,                 \
        sym_all_to_all(c->world, DST32, NULL, 4, SYM_INT32, NULL))                                 \
    ROW(a2a_count, "sym_all_to_all", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL,     \
        sym_all_to_all(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, NULL))                     \
    ROW(a2a_dead, "sym_all_to_all", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,           \
        sym_all_to_all(c->dead, DST32, SRC32, 4, SYM_INT32, NULL))                                 \
    ROW(a2a_algo, "sym_all_to_all", "algorithm ring", SYM_ERR_INVALID_ARG, true, F_COLL,           \
        sym_all_to_all(c->world, DST32, SRC32, 4, SYM_INT32,                                       \
                       &(const sym_coll_opts_t){.algorithm = SYM_ALGO_RING}))                      \
    ROW(a2av_null_rc, "sym_all_to_allv", "NULL recv counts", SYM_ERR_INVALID_ARG, true, F_COLL,    \
        sym_all_to_allv(c->world, SRC32, c->counts, DST32, NULL, SYM_INT32, NULL))                 \
    ROW(a2av_null_sc, "sym_all_to_allv", "NULL send counts", SYM_ERR_INVALID_ARG, true, F_COLL,    \
        sym_all_to_allv(c->world, SRC32, NULL, DST32, c->counts, SYM_INT32, NULL))                 \
    ROW(a2av_huge, "sym_all_to_allv", "counts summing past SIZE_MAX", SYM_ERR_INVALID_ARG, true,   \
        F_COLL,                                                                                    \
        sym_all_to_allv(c->world, SRC32, c->huge_counts, DST32, c->huge_counts, SYM_INT32, NULL))  \
    ROW(a2av_dt, "sym_all_to_allv", "datatype 99", SYM_ERR_INVALID_ARG, true, F_COLL,              \
        sym_all_to_allv(c->world, SRC32, c->counts, DST32, c->counts, BAD_DT, NULL))               \
    ROW(ga_root, "sym_gather", "root -1", SYM_ERR_INVALID_ARG, true, F_COLL,                       \
        sym_gather(c->world, DST32, SRC32, 4, SYM_INT32, -1, NULL))                                \
    ROW(ga_null, "sym_gather", "NULL src", SYM_ERR_INVALID_ARG, true, F_COLL,                      \
        sym_gather(c->world, DST32, NULL, 4, SYM_INT32, 0, NULL))                                  \
    ROW(ga_count, "sym_gather", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL,          \
        sym_gather(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, 0, NULL))                      \
    ROW(ga_dt, "sym_gather", "datatype 99", SYM_ERR_INVALID_ARG, true, F_COLL,                     \
        sym_gather(c->world, DST32, SRC32, 4, BAD_DT, 0, NULL))                                    \
    ROW(sc_root, "sym_scatter", "root npes", SYM_ERR_INVALID_ARG, true, F_COLL,                    \
        sym_scatter(c->world, DST32, SRC32, 4, SYM_INT32, c->npes, NULL))                          \
    ROW(sc_null, "sym_scatter", "NULL dst", SYM_ERR_INVALID_ARG, true, F_COLL,                     \
        sym_scatter(c->world, NULL, SRC32, 4, SYM_INT32, 0, NULL))                                 \
    ROW(sc_count, "sym_scatter", "n x count overflows", SYM_ERR_INVALID_ARG, true, F_COLL,         \
        sym_scatter(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, 0, NULL))                     \
    ROW(sc_dead, "sym_scatter", "destroyed team", SYM_ERR_INVALID_ARG, true, F_COLL,               \
        sym_scatter(c->dead, DST32, SRC32, 4, SYM_INT32, 0, NULL))                                 \
    /* ---- non-blocking collectives and requests ---- */                                          \
    ROW(wait_null, "sym_wait", "NULL request pointer", SYM_ERR_INVALID_ARG, true, F_NB,            \
        sym_wait(NULL))                                                                            \
    ROW(wait_nullreq, "sym_wait", "SYM_REQUEST_NULL", SYM_ERR_INVALID_ARG, true, F_NB,             \
        sym_wait(&(sym_request_t){SYM_REQUEST_NULL}))                                              \
    ROW(wait_garbage, "sym_wait", "a pointer that is not a request", SYM_ERR_INVALID_ARG, true,    \
        F_NB, sym_wait(&(sym_request_t){(sym_request_t)c->ltgt}))                                  \
    ROW(test_null, "sym_test", "NULL request pointer", SYM_ERR_INVALID_ARG, true, F_NB,            \
        sym_test(NULL, (int *)c->ltgt))                                                            \
    ROW(test_garbage, "sym_test", "a pointer that is not a request", SYM_ERR_INVALID_ARG, true,    \
        F_NB, sym_test(&(sym_request_t){(sym_request_t)c->ltgt}, (int *)c->ltgt))                  \
    ROW(reqop_null, "sym_request_op", "SYM_REQUEST_NULL", FAILED_VALUE, false, F_NB,               \
        is_str(sym_request_op(SYM_REQUEST_NULL), "invalid"))                                       \
    ROW(reqop_garbage, "sym_request_op", "not a request", FAILED_VALUE, false, F_NB,               \
        is_str(sym_request_op((sym_request_t)c->ltgt), "invalid"))                                 \
    ROW(ibar_null_req, "sym_ibarrier", "NULL req_p", SYM_ERR_INVALID_ARG, true, F_NB,              \
        sym_ibarrier(c->world, NULL, NULL))                                                        \
    ROW(ibar_dead, "sym_ibarrier", "destroyed team", SYM_ERR_INVALID_ARG, true, F_NB,              \
        sym_ibarrier(c->dead, NULL, &c->req))                                                      \
    NB_ROW(ROW, ibc_root, "sym_ibroadcast", "root npes",                                           \
           sym_ibroadcast(c->world, c->ltgt, 4, SYM_INT32, c->npes, NULL, &c->req))                \
    NB_ROW(ROW, ired_op, "sym_ireduce", "op 99",                                                   \
           sym_ireduce(c->world, DST32, SRC32, 4, SYM_INT32, BAD_OP, 0, NULL, &c->req))            \
    NB_ROW(ROW, iar_dt, "sym_iallreduce", "datatype 99",                                           \
           sym_iallreduce(c->world, DST32, SRC32, 4, BAD_DT, SYM_OP_SUM, NULL, &c->req))           \
    NB_ROW(ROW, iar_count, "sym_iallreduce", "count SIZE_MAX",                                     \
           sym_iallreduce(c->world, DST32, SRC32, SIZE_MAX, SYM_INT32, SYM_OP_SUM, NULL, &c->req)) \
    NB_ROW(ROW, irs_null, "sym_ireduce_scatter", "NULL src",                                       \
           sym_ireduce_scatter(c->world, DST32, NULL, 4, SYM_INT32, SYM_OP_SUM, NULL, &c->req))    \
    NB_ROW(ROW, iag_null, "sym_iall_gather", "NULL dst",                                           \
           sym_iall_gather(c->world, NULL, SRC32, 4, SYM_INT32, NULL, &c->req))                    \
    NB_ROW(ROW, iagv_null, "sym_iall_gatherv", "NULL counts",                                      \
           sym_iall_gatherv(c->world, DST32, SRC32, NULL, SYM_INT32, NULL, &c->req))               \
    NB_ROW(ROW, ia2a_count, "sym_iall_to_all", "n x count overflows",                              \
           sym_iall_to_all(c->world, DST32, SRC32, SIZE_MAX / 4, SYM_INT32, NULL, &c->req))        \
    NB_ROW(ROW, ia2av_null, "sym_iall_to_allv", "NULL send counts",                                \
           sym_iall_to_allv(c->world, SRC32, NULL, DST32, c->counts, SYM_INT32, NULL, &c->req))    \
    NB_ROW(ROW, iga_root, "sym_igather", "root -1",                                                \
           sym_igather(c->world, DST32, SRC32, 4, SYM_INT32, -1, NULL, &c->req))                   \
    NB_ROW(ROW, isc_opts, "sym_iscatter", "timeout -1",                                            \
           sym_iscatter(c->world, DST32, SRC32, 4, SYM_INT32, 0, &opts_neg, &c->req))              \
    ROW(iar_dead, "sym_iallreduce", "destroyed team", SYM_ERR_INVALID_ARG, true, F_NB,             \
        sym_iallreduce(c->dead, DST32, SRC32, 4, SYM_INT32, SYM_OP_SUM, NULL, &c->req))            \
    ROW(iga_null_req, "sym_igather", "NULL req_p", SYM_ERR_INVALID_ARG, true, F_NB,                \
        sym_igather(c->world, DST32, SRC32, 4, SYM_INT32, 0, NULL, NULL))                          \
    /* ---- point-to-point ---- */                                                                 \
    ROW(send_self, "sym_send", "to itself", SYM_ERR_INVALID_ARG, true, F_P2P,                      \
        sym_send(c->ltgt, 8, c->me, 0))                                                            \
    ROW(send_pe, "sym_send", "PE npes", SYM_ERR_INVALID_PE, true, F_P2P,                           \
        sym_send(c->ltgt, 8, c->npes, 0))                                                          \
    ROW(send_pe_neg, "sym_send", "PE -1", SYM_ERR_INVALID_PE, true, F_P2P,                         \
        sym_send(c->ltgt, 8, -1, 0))                                                               \
    ROW(send_null, "sym_send", "NULL buffer", SYM_ERR_INVALID_ARG, true, F_P2P,                    \
        sym_send(NULL, 8, c->right == c->me ? c->npes : c->right, 0))                              \
    ROW(send_tag, "sym_send", "tag -1", SYM_ERR_INVALID_ARG, true, F_P2P,                          \
        sym_send(c->ltgt, 8, c->right == c->me ? c->npes : c->right, -1))                          \
    ROW(recv_self, "sym_recv", "from itself", SYM_ERR_INVALID_ARG, true, F_P2P,                    \
        sym_recv(c->ltgt, 8, c->me, 0, NULL))                                                      \
    ROW(recv_pe, "sym_recv", "PE INT_MIN", SYM_ERR_INVALID_PE, true, F_P2P,                        \
        sym_recv(c->ltgt, 8, INT_MIN, 0, NULL))                                                    \
    ROW(recv_null, "sym_recv", "NULL buffer", SYM_ERR_INVALID_ARG, true, F_P2P,                    \
        sym_recv(NULL, 8, c->right == c->me ? c->npes : c->right, 0, NULL))                        \
    ROW(recv_tag, "sym_recv", "tag -2", SYM_ERR_INVALID_ARG, true, F_P2P,                          \
        sym_recv(c->ltgt, 8, c->right == c->me ? c->npes : c->right, -2, NULL))                    \
    ROW(sr_pe, "sym_sendrecv", "destination npes", SYM_ERR_INVALID_PE, true, F_P2P,                \
        sym_sendrecv(c->ltgt, 8, c->npes, 0, c->ltgt + 64, 8, 0, 0, NULL))                         \
    ROW(sr_self, "sym_sendrecv", "source itself", SYM_ERR_INVALID_ARG, true, F_P2P,                \
        sym_sendrecv(c->ltgt, 8, c->right, 0, c->ltgt + 64, 8, c->me, 0, NULL))                    \
    ROW(sr_null, "sym_sendrecv", "NULL receive buffer", SYM_ERR_INVALID_ARG, true, F_P2P,          \
        sym_sendrecv(c->ltgt, 8, c->right, 0, NULL, 8, c->right, 0, NULL))                         \
    ROW(sr_tag, "sym_sendrecv", "send tag -7", SYM_ERR_INVALID_ARG, true, F_P2P,                   \
        sym_sendrecv(c->ltgt, 8, c->right, -7, c->ltgt + 64, 8, c->right, 0, NULL))                \
    ROW(sr_overlap, "sym_sendrecv", "overlapping send and receive buffers", SYM_ERR_INVALID_ARG,   \
        true, F_P2P, sym_sendrecv(c->ltgt, 64, c->right, 0, c->ltgt + 32, 64, c->right, 0, NULL))

BAD_TABLE(bad_rows_teams_coll, TEAMS_COLL_ROWS);
