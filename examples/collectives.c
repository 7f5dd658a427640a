/*
 * collectives.c - collectives on teams: an allreduce over every PE, a
 * broadcast within the team of even-numbered PEs with a chosen algorithm
 * and timeout, and a non-blocking allreduce overlapped with local work.
 * Each result is checked against the value computed locally.
 *
 *   symcc collectives.c -o collectives && symrun -n 4 ./collectives
 */
#include <stdio.h>
#include <string.h>

#include <symheap.h>

#define N 1000

/* Print the failed call with the library's detail message, and fail. */
#define CHECK(call)                                                                                \
    do {                                                                                           \
        sym_status_t st_ = (call);                                                                 \
        if (st_ != SYM_OK) {                                                                       \
            fprintf(stderr, "PE %d: %s: %s\n", sym_my_pe(), #call, sym_last_error());              \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

int main(void)
{
    CHECK(sym_init());
    int me = sym_my_pe(), n = sym_n_pes();

    /* 1. Sum a vector over every PE.  Buffers may be any local memory. */
    float grad[N], sum[N];
    for (int i = 0; i < N; i++)
        grad[i] = (float)(me + i);
    CHECK(sym_allreduce(sym_team_world(), sum, grad, N, SYM_FLOAT, SYM_OP_SUM, NULL));
    for (int i = 0; i < N; i++) {
        float want = (float)(n * (n - 1) / 2 + n * i); /* sum over PEs of (pe + i) */
        if (sum[i] != want) {
            fprintf(stderr, "PE %d: sum[%d] = %g, expected %g\n", me, i, sum[i], want);
            return 1;
        }
    }

    /* 2. A team of the even PEs: 0, 2, 4, ...  Non-members get
     * SYM_TEAM_INVALID.  Its broadcast uses the ring algorithm and gives
     * up after 5 seconds instead of SYMHEAP_TIMEOUT. */
    sym_team_t evens;
    CHECK(sym_team_split_strided(sym_team_world(), 0, 2, (n + 1) / 2, &evens));
    if (evens != SYM_TEAM_INVALID) {
        unsigned char buf[4096];
        if (sym_team_my_pe(evens) == 0)
            memset(buf, 42, sizeof(buf));
        sym_coll_opts_t ring = {.algorithm = SYM_ALGO_RING, .timeout_s = 5};
        CHECK(sym_broadcast(evens, buf, sizeof(buf), SYM_UINT8, 0, &ring));
        for (size_t i = 0; i < sizeof(buf); i++)
            if (buf[i] != 42) {
                fprintf(stderr, "PE %d: broadcast byte %zu is %d\n", me, i, buf[i]);
                return 1;
            }
        CHECK(sym_team_destroy(evens));
    }

    /* 3. Start an allreduce, compute meanwhile, then wait for it. */
    long mine = me + 1, total = 0;
    sym_request_t req;
    CHECK(sym_iallreduce(sym_team_world(), &total, &mine, 1, SYM_INT64, SYM_OP_SUM, NULL, &req));
    long local = 0;
    for (int i = 0; i < 1000; i++) /* work that does not touch `total` */
        local += i;
    CHECK(sym_wait(&req));
    if (total != (long)n * (n + 1) / 2 || local != 499500) {
        fprintf(stderr, "PE %d: total %ld, expected %ld\n", me, total, (long)n * (n + 1) / 2);
        return 1;
    }

    if (me == 0)
        printf("collectives on %d PEs: allreduce, broadcast on %d even PEs, iallreduce: ok\n", n,
               (n + 1) / 2);
    CHECK(sym_finalize());
    return 0;
}
