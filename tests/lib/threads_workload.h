/*
 * threads_workload.h - the SYM_THREAD_MULTIPLE workload shared by
 * test_threads.c (Criterion, through the harness) and threads_main.c (a plain
 * program under symrun, which ThreadSanitizer builds can run).  Several
 * threads of every PE put, get, run atomics (heap and global variables),
 * signal and wait at once; every word and every counter is checked against
 * its exact expected value.  The includer defines PE_ASSERT and PE_OK.
 */
#ifndef SYM_TEST_THREADS_WORKLOAD_H
#define SYM_TEST_THREADS_WORKLOAD_H

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <symheap.h>

#define NTHREADS 4
#define BLOCK    512 /* uint64 words each thread writes into each peer */
#define ROUNDS   40  /* signalled messages each thread sends its neighbour */
#define ADDS     300 /* atomic increments per thread per PE */

/* Atomic targets among the global variables too. */
static uint64_t g_hits;
static uint32_t g_hits32[NTHREADS];

struct shared {
    int me, n;
    uint64_t *blocks;  /* [n * NTHREADS * BLOCK]: block (pe, t) written by thread t of pe */
    uint64_t *counter; /* one word everybody increments */
    uint64_t *msg;     /* [NTHREADS * 8]: thread t's mailbox from the left neighbour */
    uint64_t *sig;     /* [NTHREADS]: round counters for the mailboxes */
    uint64_t *ack;     /* [NTHREADS]: rounds the right neighbour has consumed */
};

struct targ {
    struct shared *s;
    int t;
};

static uint64_t word(int pe, int t, size_t i, int dest)
{
    return ((uint64_t)pe << 48) ^ ((uint64_t)t << 40) ^ ((uint64_t)dest << 32) ^ (i * 2654435761u);
}

static void *thread_main(void *arg)
{
    struct targ *a = arg;
    struct shared *s = a->s;
    const int t = a->t, me = s->me, n = s->n;
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    PE_ASSERT(sym_thread_level() == SYM_THREAD_MULTIPLE, "thread level %d", sym_thread_level());

    /* disjoint blocks: a different transfer kind per thread */
    uint64_t src[BLOCK];
    for (int pe = 0; pe < n; pe++) {
        for (size_t i = 0; i < BLOCK; i++)
            src[i] = word(me, t, i, pe);
        uint64_t *dst = s->blocks + ((size_t)me * NTHREADS + (size_t)t) * BLOCK;
        switch (t % 4) {
        case 0:
            PE_OK(sym_put(dst, src, sizeof(src), pe));
            break;
        case 1:
            PE_OK(sym_put_nbi(dst, src, sizeof(src), pe));
            break;
        case 2:
            for (size_t i = 0; i < BLOCK; i++)
                PE_OK(sym_p64(dst + i, src[i], pe));
            break;
        default:
            PE_OK(sym_iput(dst, src, 2, 2, 8, BLOCK / 2, pe));
            PE_OK(sym_iput(dst + 1, src + 1, 2, 2, 8, BLOCK / 2, pe));
            break;
        }
    }
    PE_OK(sym_quiet());

    /* contended atomics, heap and globals, every PE */
    for (int k = 0; k < ADDS; k++) {
        int pe = (me + k) % n;
        PE_OK(sym_atomic_add64(s->counter, 1, pe));
        uint64_t old;
        PE_OK(sym_atomic_fetch_add64(&g_hits, 2, &old, pe));
        PE_OK(sym_atomic_inc32(&g_hits32[t], pe));
        if (k % 64 == 0)
            PE_OK(sym_fence());
    }
    PE_OK(sym_quiet());

    /* signalled messages to the same thread of the right neighbour, while
     * every thread waits on its own signal word at the same time */
    for (uint64_t r = 1; r <= ROUNDS; r++) {
        /* the right neighbour consumed round r - 1 before it is overwritten */
        PE_OK(sym_wait_until_uint64(&s->ack[t], SYM_CMP_GE, r - 1));
        uint64_t m[8];
        for (size_t i = 0; i < 8; i++)
            m[i] = word(me, t, i + r * 8, right);
        PE_OK(sym_put_signal(&s->msg[t * 8], m, sizeof(m), &s->sig[t], 1, SYM_SIGNAL_ADD, right));
        uint64_t seen = 0;
        PE_OK(sym_signal_wait_until(&s->sig[t], SYM_CMP_GE, r, &seen));
        PE_ASSERT(seen == r, "thread %d round %llu: signal %llu", t, (unsigned long long)r,
                  (unsigned long long)seen);
        for (size_t i = 0; i < 8; i++)
            PE_ASSERT(s->msg[t * 8 + i] == word(left, t, i + r * 8, me),
                      "thread %d round %llu: word %zu wrong", t, (unsigned long long)r, i);
        int ok = 0;
        PE_OK(sym_test_uint64(&s->sig[t], SYM_CMP_EQ, r, &ok));
        PE_ASSERT(ok, "sym_test disagrees with the wait");
        PE_OK(sym_atomic_add64(&s->ack[t], 1, left));
    }

    /* gets of other threads' finished blocks are not possible yet (no
     * barrier among threads of different PEs); read my own right back */
    uint64_t back[BLOCK];
    uint64_t *mine = s->blocks + ((size_t)me * NTHREADS + (size_t)t) * BLOCK;
    PE_OK(sym_get(back, mine, sizeof(back), right));
    for (size_t i = 0; i < BLOCK; i++)
        PE_ASSERT(back[i] == word(me, t, i, right), "thread %d: get back word %zu", t, i);
    /* a direct pointer exactly when the right neighbour's heap is mapped
     * (shm), none when it is reached through libfabric; the same answer
     * from every thread */
    bool forced_ofi = getenv("SYMHEAP_TRANSPORT") && !strcmp(getenv("SYMHEAP_TRANSPORT"), "ofi");
    PE_ASSERT((sym_ptr(mine, right) != NULL) == (!forced_ofi || right == me),
              "sym_ptr from a thread");
    return NULL;
}

static void threads_body(int me, int n, void *arg)
{
    (void)arg;
    struct shared s = {.me = me, .n = n};
    s.blocks = sym_calloc((size_t)n * NTHREADS * BLOCK, sizeof(uint64_t));
    s.counter = sym_calloc(1, sizeof(uint64_t));
    s.msg = sym_calloc(NTHREADS * 8, sizeof(uint64_t));
    s.sig = sym_calloc(NTHREADS, sizeof(uint64_t));
    s.ack = sym_calloc(NTHREADS, sizeof(uint64_t));
    PE_ASSERT(s.blocks && s.counter && s.msg && s.sig && s.ack, "sym_calloc: %s", sym_last_error());
    PE_OK(sym_barrier_all());

    pthread_t th[NTHREADS];
    struct targ a[NTHREADS];
    for (int t = 0; t < NTHREADS; t++) {
        a[t] = (struct targ){&s, t};
        PE_ASSERT(pthread_create(&th[t], NULL, thread_main, &a[t]) == 0, "pthread_create");
    }
    for (int t = 0; t < NTHREADS; t++)
        pthread_join(th[t], NULL);
    PE_OK(sym_barrier_all());

    for (int pe = 0; pe < n; pe++)
        for (int t = 0; t < NTHREADS; t++)
            for (size_t i = 0; i < BLOCK; i++) {
                uint64_t got = s.blocks[((size_t)pe * NTHREADS + (size_t)t) * BLOCK + i];
                PE_ASSERT(got == word(pe, t, i, me),
                          "block of PE %d thread %d word %zu: "
                          "%llx",
                          pe, t, i, (unsigned long long)got);
            }
    /* every thread of every PE added ADDS times round-robin over the PEs */
    uint64_t expect = 0;
    for (int pe = 0; pe < n; pe++)
        for (int k = 0; k < ADDS; k++)
            expect += (pe + k) % n == me;
    expect *= NTHREADS;
    PE_ASSERT(*s.counter == expect, "counter %llu, expected %llu", (unsigned long long)*s.counter,
              (unsigned long long)expect);
    PE_ASSERT(g_hits == 2 * expect, "g_hits %llu, expected %llu", (unsigned long long)g_hits,
              (unsigned long long)(2 * expect));
    for (int t = 0; t < NTHREADS; t++)
        PE_ASSERT(g_hits32[t] == expect / NTHREADS, "g_hits32[%d] = %u", t, g_hits32[t]);
    for (int t = 0; t < NTHREADS; t++)
        PE_ASSERT(s.sig[t] == ROUNDS && s.ack[t] == ROUNDS,
                  "thread %d: %llu signals, %llu "
                  "acks",
                  t, (unsigned long long)s.sig[t], (unsigned long long)s.ack[t]);
    PE_OK(sym_barrier_all());
    sym_free(s.ack);
    sym_free(s.sig);
    sym_free(s.msg);
    sym_free(s.counter);
    sym_free(s.blocks);
}

#endif /* SYM_TEST_THREADS_WORKLOAD_H */
