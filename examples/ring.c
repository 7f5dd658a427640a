/*
 * ring.c - the symheap demo job.
 *
 * Every PE puts a block of data into its right neighbour's heap, gets a block
 * back from its left neighbour, counts arrivals on PE 0 with an atomic
 * increment, passes a token around the ring with put-with-signal, and checks
 * everything against what it can compute locally.  Run: symrun -n 4 ./ring
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include <symheap.h>

#define N 4096

#define CHECK(call)                                                                                \
    do {                                                                                           \
        sym_status_t st_ = (call);                                                                 \
        if (st_ != SYM_OK) {                                                                       \
            fprintf(stderr, "PE %d: %s failed: %s\n", sym_my_pe(), #call, sym_last_error());       \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

static uint64_t pattern(int pe, size_t i)
{
    return ((uint64_t)pe << 32) ^ (i * 2654435761u);
}

int main(void)
{
    CHECK(sym_init());
    int me = sym_my_pe(), n = sym_n_pes();
    int right = (me + 1) % n, left = (me - 1 + n) % n;

    uint64_t *inbox = sym_malloc(N * sizeof(uint64_t));
    uint64_t *outbox = sym_malloc(N * sizeof(uint64_t));
    uint64_t *counter = sym_calloc(1, sizeof(uint64_t));
    uint64_t *token = sym_calloc(1, sizeof(uint64_t));
    uint64_t *signal = sym_calloc(1, sizeof(uint64_t));
    if (!inbox || !outbox || !counter || !token || !signal) {
        fprintf(stderr, "PE %d: sym_malloc failed: %s\n", me, sym_last_error());
        return 1;
    }
    for (size_t i = 0; i < N; i++)
        outbox[i] = pattern(me, i);
    CHECK(sym_barrier_all());

    /* 1. put my block into my right neighbour's inbox */
    CHECK(sym_put(inbox, outbox, N * sizeof(uint64_t), right));
    CHECK(sym_barrier_all());
    size_t wrong = 0;
    for (size_t i = 0; i < N; i++)
        wrong += inbox[i] != pattern(left, i);

    /* 2. get my left neighbour's outbox directly */
    uint64_t *local = malloc(N * sizeof(uint64_t));
    CHECK(sym_get(local, outbox, N * sizeof(uint64_t), left));
    for (size_t i = 0; i < N; i++)
        wrong += local[i] != pattern(left, i);
    free(local);

    /* 3. everyone increments PE 0's counter */
    uint64_t ticket;
    CHECK(sym_atomic_fetch_inc64(counter, &ticket, 0));
    CHECK(sym_barrier_all());
    uint64_t total;
    CHECK(sym_atomic_fetch64(&total, counter, 0));
    wrong += total != (uint64_t)n || ticket >= (uint64_t)n;

    /* 4. a token travels once around the ring, each PE adding its number */
    if (me == 0) {
        uint64_t t = 0;
        CHECK(sym_put_signal(token, &t, sizeof(t), signal, 1, SYM_SIGNAL_SET, right));
    }
    CHECK(sym_signal_wait_until(signal, SYM_CMP_GE, 1, NULL));
    uint64_t t = *token + (uint64_t)me;
    if (me != 0)
        CHECK(sym_put_signal(token, &t, sizeof(t), signal, 1, SYM_SIGNAL_SET, right));
    uint64_t expect_token = (uint64_t)n * (n - 1) / 2;
    if (me == 0)
        wrong += t != expect_token; /* PE 0 received the sum of 1..n-1, added 0 */
    CHECK(sym_barrier_all());

    /* gather every PE's verdict on PE 0 */
    uint64_t *verdicts = sym_calloc(1, sizeof(uint64_t));
    CHECK(sym_atomic_add64(verdicts, wrong, 0));
    CHECK(sym_barrier_all());
    int rc = 0;
    if (me == 0) {
        printf("symheap ring demo: %d PEs, %zu bytes put and got per PE, %" PRIu64
               " atomic increments, token sum %" PRIu64 " (expected %" PRIu64 ")\n",
               n, N * sizeof(uint64_t), total, t, expect_token);
        printf("%s: %" PRIu64 " wrong values\n", *verdicts ? "FAILED" : "OK", *verdicts);
        rc = *verdicts ? 1 : 0;
    }
    sym_free(verdicts);
    sym_free(signal);
    sym_free(token);
    sym_free(counter);
    sym_free(outbox);
    sym_free(inbox);
    CHECK(sym_finalize());
    return rc;
}
