/* test_threads.c - SYM_THREAD_MULTIPLE: several threads of every PE put,
 * get, run atomics, signal and wait at once; every byte and every counter
 * is checked against its exact expected value.  At 2 and 4 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>

#include "harness.h"
#include "threads_workload.h"

#include <stdatomic.h>

/* The harness calls sym_init(); this job asks for the level itself. */
static void multiple_body(int me, int n, void *arg)
{
    int provided = -1;
    PE_ASSERT(sym_thread_level() == -1, "thread level before init");
    PE_FAILS_WITH(sym_init_thread(4, &provided), SYM_ERR_INVALID_ARG);
    PE_OK(sym_init_thread(SYM_THREAD_MULTIPLE, &provided));
    PE_ASSERT(provided == SYM_THREAD_MULTIPLE, "provided %d", provided);
    threads_body(me, n, arg);
    PE_OK(sym_finalize());
    PE_ASSERT(sym_thread_level() == -1, "thread level after finalize");
}

ParameterizedTestParameters(threads, multiple)
{
    static int counts[] = {2, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, threads, multiple)
{
    struct pe_job job = {.npes = *npes, .body = multiple_body, .raw = true, .job_timeout_s = 240};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* A non-blocking collective whose coroutine has to wait inside a transport
 * operation (over ofi: a drain for delivery) must not return to the caller
 * still owning the transport: here the caller joins a second thread that
 * puts to the same peer before it completes the request.  Checks the
 * allreduce and every word the second thread put. */
#define NB_COUNT (48 * 1024)
#define NB_WORDS 4096

struct putter {
    uint64_t *dst;
    int peer, me;
    atomic_int status;
};

static void *putter_main(void *arg)
{
    struct putter *p = arg;
    uint64_t src[256];
    int st = SYM_OK;
    for (size_t base = 0; base < NB_WORDS && st == SYM_OK; base += 256) {
        for (size_t i = 0; i < 256; i++)
            src[i] = ((uint64_t)p->me << 32) | (base + i);
        st = sym_put(p->dst + base, src, sizeof(src), p->peer);
    }
    if (st == SYM_OK)
        st = sym_quiet();
    atomic_store(&p->status, st);
    return NULL;
}

static void nb_join_body(int me, int n, void *arg)
{
    (void)arg;
    int provided = -1;
    PE_OK(sym_init_thread(SYM_THREAD_MULTIPLE, &provided));
    double *src = malloc(NB_COUNT * sizeof(double));
    double *dst = malloc(NB_COUNT * sizeof(double));
    uint64_t *words = sym_calloc(NB_WORDS, sizeof(uint64_t));
    PE_ASSERT(src && dst && words, "allocation");
    for (size_t i = 0; i < NB_COUNT; i++)
        src[i] = (double)(me + 1) * (double)(i % 1000);
    PE_OK(sym_barrier_all());
    for (int round = 0; round < 3; round++) {
        sym_request_t req = SYM_REQUEST_NULL;
        PE_OK(sym_iallreduce(sym_team_world(), dst, src, NB_COUNT, SYM_DOUBLE, SYM_OP_SUM, NULL,
                             &req));
        struct putter p = {.dst = words, .peer = (me + 1) % n, .me = me};
        atomic_init(&p.status, -1);
        pthread_t th;
        PE_ASSERT(pthread_create(&th, NULL, putter_main, &p) == 0, "pthread_create");
        pthread_join(th, NULL);
        PE_ASSERT(atomic_load(&p.status) == SYM_OK, "putter thread: %s", sym_last_error());
        PE_OK(sym_wait(&req));
        const double scale = (double)n * (n + 1) / 2;
        for (size_t i = 0; i < NB_COUNT; i++)
            PE_ASSERT(dst[i] == scale * (double)(i % 1000), "round %d dst[%zu] = %g", round, i,
                      dst[i]);
        PE_OK(sym_barrier_all());
        const int left = (me - 1 + n) % n;
        for (size_t i = 0; i < NB_WORDS; i++)
            PE_ASSERT(words[i] == (((uint64_t)left << 32) | i), "round %d word %zu = %llx", round,
                      i, (unsigned long long)words[i]);
        PE_OK(sym_barrier_all());
    }
    sym_free(words);
    free(src);
    free(dst);
    PE_OK(sym_finalize());
}

ParameterizedTestParameters(threads, nb_collective_then_join)
{
    static int counts[] = {2, 3};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, threads, nb_collective_then_join)
{
    struct pe_job job = {.npes = *npes, .body = nb_join_body, .raw = true, .job_timeout_s = 120};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
