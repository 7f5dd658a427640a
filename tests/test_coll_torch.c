/*
 * test_coll_torch.c - the torch.distributed reference cases, 2 PEs, every
 * algorithm.
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
/* torch.distributed reference cases, 2 PEs, every algorithm                 */
/* ------------------------------------------------------------------------ */

static void torch_allreduce_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    const float in[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
    const float sum[4] = {6, 8, 10, 12}, mean[4] = {3, 4, 5, 6};
    for (size_t a = 0; a < NELEMS(allreduce_algos); a++) {
        sym_coll_opts_t o = {.algorithm = allreduce_algos[a], .timeout_s = 0};
        float out[4] = {0};
        PE_OK(sym_allreduce(sym_team_world(), out, in[me], 4, SYM_FLOAT, SYM_OP_SUM, &o));
        PE_ASSERT(!memcmp(out, sum, sizeof(sum)), "allreduce/%s sum: [%g %g %g %g]",
                  sym_algorithm_name(o.algorithm), out[0], out[1], out[2], out[3]);
        float buf[4];
        memcpy(buf, in[me], sizeof(buf));
        PE_OK(sym_allreduce(sym_team_world(), buf, buf, 4, SYM_FLOAT, SYM_OP_AVG, &o));
        PE_ASSERT(!memcmp(buf, mean, sizeof(mean)), "allreduce/%s mean: [%g %g %g %g]",
                  sym_algorithm_name(o.algorithm), buf[0], buf[1], buf[2], buf[3]);
    }
}

static void torch_broadcast_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    const float in[2][4] = {{1, 2, 3, 4}, {5, 6, 7, 8}};
    for (size_t a = 0; a < NELEMS(broadcast_algos); a++) {
        sym_coll_opts_t o = {.algorithm = broadcast_algos[a], .timeout_s = 0};
        float buf[4];
        memcpy(buf, in[me], sizeof(buf));
        PE_OK(sym_broadcast(sym_team_world(), buf, 4, SYM_FLOAT, 0, &o));
        PE_ASSERT(!memcmp(buf, in[0], sizeof(buf)), "broadcast/%s: [%g %g %g %g]",
                  sym_algorithm_name(o.algorithm), buf[0], buf[1], buf[2], buf[3]);
    }
}

static void torch_all_gather_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    const int64_t in[2][2] = {{0, 10}, {1, 11}}, want[4] = {0, 10, 1, 11};
    for (size_t a = 0; a < NELEMS(all_gather_algos); a++) {
        sym_coll_opts_t o = {.algorithm = all_gather_algos[a], .timeout_s = 0};
        int64_t out[4] = {-1, -1, -1, -1};
        PE_OK(sym_all_gather(sym_team_world(), out, in[me], 2, SYM_INT64, &o));
        PE_ASSERT(!memcmp(out, want, sizeof(want)), "all_gather/%s: [%lld %lld %lld %lld]",
                  sym_algorithm_name(o.algorithm), (long long)out[0], (long long)out[1],
                  (long long)out[2], (long long)out[3]);
    }
}

static void torch_all_to_all_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    const int64_t in[2][4] = {{10, 20, 30, 40}, {50, 60, 70, 80}};
    const int64_t want[2][4] = {{10, 20, 50, 60}, {30, 40, 70, 80}};
    for (size_t a = 0; a < NELEMS(all_to_all_algos); a++) {
        sym_coll_opts_t o = {.algorithm = all_to_all_algos[a], .timeout_s = 0};
        int64_t out[4] = {-1, -1, -1, -1};
        PE_OK(sym_all_to_all(sym_team_world(), out, in[me], 2, SYM_INT64, &o));
        PE_ASSERT(!memcmp(out, want[me], sizeof(out)), "all_to_all/%s: [%lld %lld %lld %lld]",
                  sym_algorithm_name(o.algorithm), (long long)out[0], (long long)out[1],
                  (long long)out[2], (long long)out[3]);
    }
}

static void torch_all_to_allv_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    /* PE 0 sends [10] to itself and [20 21 22] to PE 1; PE 1 sends [30 31]
     * to PE 0 and [40 41] to itself */
    const int64_t in[2][5] = {{10, 20, 21, 22}, {30, 31, 40, 41}};
    const size_t scount[2][2] = {{1, 3}, {2, 2}}, rcount[2][2] = {{1, 2}, {3, 2}};
    const int64_t want[2][5] = {{10, 30, 31}, {20, 21, 22, 40, 41}};
    const size_t nout[2] = {3, 5};
    for (size_t a = 0; a < NELEMS(all_to_all_algos); a++) {
        sym_coll_opts_t o = {.algorithm = all_to_all_algos[a], .timeout_s = 0};
        int64_t out[6] = {-1, -1, -1, -1, -1, -1};
        PE_OK(
            sym_all_to_allv(sym_team_world(), in[me], scount[me], out, rcount[me], SYM_INT64, &o));
        PE_ASSERT(!memcmp(out, want[me], nout[me] * sizeof(int64_t)) && out[nout[me]] == -1,
                  "all_to_allv/%s: [%lld %lld %lld %lld %lld %lld]",
                  sym_algorithm_name(o.algorithm), (long long)out[0], (long long)out[1],
                  (long long)out[2], (long long)out[3], (long long)out[4], (long long)out[5]);
    }
}

Test(coll_torch, allreduce_sum_and_mean)
{
    run_pes(2, torch_allreduce_body, NULL);
}
Test(coll_torch, broadcast)
{
    run_pes(2, torch_broadcast_body, NULL);
}
Test(coll_torch, all_gather)
{
    run_pes(2, torch_all_gather_body, NULL);
}
Test(coll_torch, all_to_all)
{
    run_pes(2, torch_all_to_all_body, NULL);
}
Test(coll_torch, all_to_allv)
{
    run_pes(2, torch_all_to_allv_body, NULL);
}
