/* test_p2p.c - tagged send/recv/sendrecv over mailboxes, and non-blocking
 * collectives, at 2..8 PEs against locally computed references. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <sched.h>
#include <string.h>

#include "harness.h"

static uint8_t pattern(int from, int to, size_t i, int tag)
{
    return (uint8_t)(from * 37 + to * 11 + (int)i * 7 + tag + (int)(i >> 9));
}

/* Sizes: empty, tiny, a few chunks, and larger than the whole mailbox
 * (SYMHEAP_MAILBOX_SIZE=1M gives 256 KiB of point-to-point area). */
static const size_t sizes[] = {0, 1, 100, 70000, 1000003};
#define NSIZES (sizeof(sizes) / sizeof(sizes[0]))

/* Every PE sends to its right neighbour and receives from its left with
 * sendrecv (no deadlock whatever the size), then the same with plain
 * send/recv in an order that needs the receiver's queue. */
static void ring_body(int me, int n, void *arg)
{
    (void)arg;
    if (n == 1)
        return;
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    uint8_t *out = malloc(sizes[NSIZES - 1]), *in = malloc(sizes[NSIZES - 1] + 1);
    for (size_t s = 0; s < NSIZES; s++) {
        const size_t len = sizes[s];
        for (size_t i = 0; i < len; i++)
            out[i] = pattern(me, right, i, (int)s);
        memset(in, 0xff, len + 1);
        size_t got = 12345;
        PE_OK(sym_sendrecv(out, len, right, (int)s, in, len + 1, left, (int)s, &got));
        PE_ASSERT(got == len, "sendrecv of %zu bytes reported %zu", len, got);
        for (size_t i = 0; i < len; i++)
            PE_ASSERT(in[i] == pattern(left, me, i, (int)s), "sendrecv %zu: byte %zu wrong", len,
                      i);
        PE_ASSERT(in[len] == 0xff, "sendrecv wrote past the message");
    }
    /* three messages each way before any receive, received in reverse tag
     * order: the receiver queues what it is not asking for yet */
    for (int tag = 0; tag < 3; tag++) {
        for (size_t i = 0; i < 70000; i++)
            out[i] = pattern(me, right, i, tag);
        PE_OK(sym_send(out, 70000, right, 100 + tag));
    }
    for (int tag = 2; tag >= 0; tag--) {
        size_t got = 0;
        PE_OK(sym_recv(in, 70000, left, 100 + tag, &got));
        PE_ASSERT(got == 70000, "got %zu bytes", got);
        for (size_t i = 0; i < 70000; i++)
            PE_ASSERT(in[i] == pattern(left, me, i, tag), "queued message tag %d byte %zu wrong",
                      tag, i);
    }
    PE_OK(sym_barrier_all());
    free(in);
    free(out);
}

ParameterizedTestParameters(p2p, ring)
{
    static int counts[] = {2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, p2p, ring)
{
    static const char *const env[] = {"SYMHEAP_MAILBOX_SIZE=1M", NULL};
    run_pes_env(*npes, env, ring_body, NULL);
}

/* torch.distributed-style cases at 2 PEs: sendrecv swaps two buffers; a
 * receive into a buffer pre-filled with -1 leaves no -1; messages between
 * a pair arrive in order. */
static void pair_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    const int other = 1 - me;
    int32_t mine[4], theirs[4];
    for (int i = 0; i < 4; i++) {
        mine[i] = me * 10 + i;
        theirs[i] = -1;
    }
    size_t got;
    PE_OK(sym_sendrecv(mine, sizeof(mine), other, 0, theirs, sizeof(theirs), other, 0, &got));
    for (int i = 0; i < 4; i++)
        PE_ASSERT(theirs[i] == other * 10 + i && theirs[i] != -1, "swap element %d is %d", i,
                  theirs[i]);
    /* ordering: 50 numbered messages with one tag arrive in order */
    for (int32_t k = 0; k < 50; k++)
        PE_OK(sym_send(&k, sizeof(k), other, 7));
    for (int32_t k = 0; k < 50; k++) {
        int32_t v = -1;
        PE_OK(sym_recv(&v, sizeof(v), other, SYM_ANY_TAG, &got));
        PE_ASSERT(v == k && got == sizeof(v), "message %d arrived as %d", k, v);
    }
    /* truncation: nothing written, size reported, message kept for a retry */
    uint8_t big[100], small[10];
    memset(big, me + 1, sizeof(big));
    PE_OK(sym_send(big, sizeof(big), other, 9));
    memset(small, 0xee, sizeof(small));
    PE_FAILS_WITH(sym_recv(small, sizeof(small), other, 9, &got), SYM_ERR_TRUNCATED);
    PE_ASSERT(got == sizeof(big), "truncation reported %zu bytes needed", got);
    for (size_t i = 0; i < sizeof(small); i++)
        PE_ASSERT(small[i] == 0xee, "a truncated receive wrote byte %zu", i);
    uint8_t again[100];
    PE_OK(sym_recv(again, sizeof(again), other, 9, &got));
    PE_ASSERT(got == sizeof(again) && again[0] == other + 1 && again[99] == other + 1,
              "the kept message was not delivered on retry");
    /* bad peers */
    PE_FAILS_WITH(sym_send(big, 1, me, 0), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "self rank") != NULL, "message: %s", sym_last_error());
    PE_FAILS_WITH(sym_recv(big, 1, me, 0, &got), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_send(big, 1, 2, 0), SYM_ERR_INVALID_PE);
    PE_FAILS_WITH(sym_send(big, 1, -1, 0), SYM_ERR_INVALID_PE);
    PE_FAILS_WITH(sym_send(big, 1, other, -5), SYM_ERR_INVALID_ARG);
    PE_OK(sym_barrier_all());
}

Test(p2p, pair_semantics)
{
    run_pes(2, pair_body, NULL);
}

/* A receive nobody answers times out naming the peer and the tag. */
static void recv_timeout_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    uint64_t *done = sym_calloc(1, sizeof(uint64_t));
    PE_ASSERT(done, "sym_calloc: %s", sym_last_error());
    if (me == 0) {
        uint8_t b;
        PE_FAILS_WITH(sym_recv(&b, 1, 1, 42, NULL), SYM_ERR_TIMEOUT);
        PE_ASSERT(strstr(sym_last_error(), "PE 1") && strstr(sym_last_error(), "tag 42"),
                  "message: %s", sym_last_error());
        PE_OK(sym_p64(done, 1, 1));
    } else {
        /* every blocking wait would time out too (SYMHEAP_TIMEOUT=1): poll */
        int ok = 0;
        while (!ok) {
            PE_OK(sym_test_uint64(done, SYM_CMP_EQ, 1, &ok));
            sched_yield();
        }
    }
}

Test(p2p, recv_timeout)
{
    /* init (libfabric's setup under load) keeps its own, longer deadline */
    const char *const env[] = {harness_timeout_env(1), "SYMHEAP_INIT_TIMEOUT=120", NULL};
    run_pes_env(2, env, recv_timeout_body, NULL);
}

/* Non-blocking collectives: several in flight on the world and on two
 * disjoint halves, completed in different orders by different PEs; the
 * results equal the references. */
static void nonblocking_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t world = sym_team_world(), half = SYM_TEAM_INVALID, other = SYM_TEAM_INVALID;
    PE_OK(sym_team_split_strided(world, 0, 2, (n + 1) / 2, &half));
    if (n > 1)
        PE_OK(sym_team_split_strided(world, 1, 2, n / 2, &other));
    sym_team_t mine = half ? half : other;
    const int hn = sym_team_n_pes(mine), hme = sym_team_my_pe(mine);
    enum { COUNT = 30011 };
    double *a = malloc(COUNT * sizeof(double)), *b = malloc(COUNT * sizeof(double));
    int64_t *g = malloc((size_t)hn * 3 * sizeof(int64_t));
    for (int round = 0; round < 6; round++) {
        for (int i = 0; i < COUNT; i++)
            a[i] = me + i + round;
        int64_t v[3] = {hme, round, -hme};
        sym_request_t r1, r2, r3;
        PE_OK(sym_iallreduce(world, b, a, COUNT, SYM_DOUBLE, SYM_OP_SUM, NULL, &r1));
        PE_OK(sym_iall_gather(mine, g, v, 3, SYM_INT64, NULL, &r2));
        PE_OK(sym_ibarrier(mine, NULL, &r3));
        PE_ASSERT(!strcmp(sym_request_op(r1), "allreduce") &&
                      !strcmp(sym_request_op(r2), "all_gather"),
                  "request names %s, %s", sym_request_op(r1), sym_request_op(r2));
        if ((me + round) % 2) { /* complete in another order on some PEs */
            PE_OK(sym_wait(&r3));
            PE_OK(sym_wait(&r2));
            int done = 0;
            while (!done)
                PE_OK(sym_test(&r1, &done));
        } else {
            PE_OK(sym_wait(&r1));
            PE_OK(sym_wait(&r2));
            PE_OK(sym_wait(&r3));
        }
        PE_ASSERT(r1 == SYM_REQUEST_NULL && r2 == SYM_REQUEST_NULL, "requests not cleared");
        for (int i = 0; i < COUNT; i++)
            PE_ASSERT(b[i] == (double)n * (n - 1) / 2 + (double)(i + round) * n,
                      "round %d: allreduce element %d is %g", round, i, b[i]);
        for (int r = 0; r < hn; r++)
            PE_ASSERT(g[3 * r] == r && g[3 * r + 1] == round && g[3 * r + 2] == -r,
                      "round %d: all_gather block %d wrong", round, r);
    }
    /* argument errors surface at completion; a freed request is refused */
    sym_request_t bad;
    PE_OK(sym_iallreduce(world, b, a, COUNT, (sym_datatype_t)99, SYM_OP_SUM, NULL, &bad));
    PE_FAILS_WITH(sym_wait(&bad), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_wait(&bad), SYM_ERR_INVALID_ARG);
    PE_OK(sym_team_destroy(mine));
    free(g);
    free(b);
    free(a);
}

ParameterizedTestParameters(nonblocking, overlapping_teams)
{
    static int counts[] = {2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, nonblocking, overlapping_teams)
{
    run_pes(*npes, nonblocking_body, NULL);
}
