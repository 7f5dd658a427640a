/*
 * test_wait_cond.c - sym_wait_cond(): a wait for a condition over several
 * words written by a peer, a condition true at once, its deadline and the
 * message naming what it waited for, and bad arguments.
 */
#include <criterion/criterion.h>
#include <math.h>
#include <string.h>

#include "harness.h"

struct two_words {
    uint64_t *w; /* w[0]: the go word, w[1]: the data word */
    uint64_t want;
    int polls;
};

static int two_words_ready(void *arg)
{
    struct two_words *t = arg;
    t->polls++;
    return __atomic_load_n(&t->w[0], __ATOMIC_ACQUIRE) == 42 &&
           __atomic_load_n(&t->w[1], __ATOMIC_ACQUIRE) == t->want;
}

static void two_words_describe(void *arg, char *buf, size_t len)
{
    struct two_words *t = arg;
    snprintf(buf, len, "go word 42 and data word %llu", (unsigned long long)t->want);
}

/* PE 0 writes the data word, fences, then the go word of every other PE;
 * each waits for both.  A wait that returned early would see a word not
 * yet written. */
static void two_words_body(int me, int npes, void *arg)
{
    (void)arg;
    uint64_t *w = sym_calloc(2, sizeof *w);
    PE_ASSERT(w, "sym_calloc: %s", sym_last_error());
    PE_OK(sym_barrier_all());
    if (me == 0) {
        for (int pe = 1; pe < npes; pe++) {
            PE_OK(sym_p64(&w[1], 7u * (uint64_t)pe, pe));
            PE_OK(sym_fence());
            PE_OK(sym_p64(&w[0], 42, pe));
        }
        PE_OK(sym_quiet());
    } else {
        struct two_words t = {.w = w, .want = 7u * (uint64_t)me};
        PE_OK(sym_wait_cond("two words", two_words_ready, &t, two_words_describe, 0));
        PE_ASSERT(t.polls >= 1, "ready() was never called");
        PE_ASSERT(w[0] == 42 && w[1] == 7u * (uint64_t)me, "after the wait: %llu %llu",
                  (unsigned long long)w[0], (unsigned long long)w[1]);
    }
    PE_OK(sym_barrier_all());
    sym_free(w);
}

Test(wait_cond, two_words_from_a_peer, .timeout = HARNESS_CR_TIMEOUT(120))
{
    for (int n = 2; n <= 3; n++)
        if (harness_pes_listed(n))
            run_pes(n, two_words_body, NULL);
}

static int count_true(void *arg)
{
    ++*(int *)arg;
    return 1;
}

static int never(void *arg)
{
    (void)arg;
    return 0;
}

static void never_describe(void *arg, char *buf, size_t len)
{
    (void)arg;
    snprintf(buf, len, "the word that never changes");
}

static void at_once_and_deadline_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    int calls = 0;
    PE_OK(sym_wait_cond(NULL, count_true, &calls, NULL, 0));
    PE_ASSERT(calls == 1, "a condition true at once was polled %d times", calls);

    double t0 = harness_now();
    PE_FAILS_WITH(sym_wait_cond("my_wait", never, NULL, never_describe, 0.3), SYM_ERR_TIMEOUT);
    double took = harness_now() - t0;
    PE_ASSERT(took >= 0.29 && took < harness_seconds(30), "timed out after %.2f s", took);
    const char *msg = sym_last_error();
    PE_ASSERT(strstr(msg, "my_wait") == msg && strstr(msg, "the word that never changes"),
              "timeout message: %s", msg);
    /* without describe(), and without a label */
    PE_FAILS_WITH(sym_wait_cond(NULL, never, NULL, NULL, 0.05), SYM_ERR_TIMEOUT);
    msg = sym_last_error();
    PE_ASSERT(strstr(msg, "sym_wait_cond") == msg && strstr(msg, "a condition"),
              "timeout message: %s", msg);
}

Test(wait_cond, at_once_and_deadline, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_pes(1, at_once_and_deadline_body, NULL);
}

static void bad_args_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    int calls = 0;
    PE_FAILS_WITH(sym_wait_cond("w", NULL, NULL, NULL, 0), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "w: the ready function is NULL"), "%s", sym_last_error());
    const double bad[] = {-1.0, NAN, INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        PE_FAILS_WITH(sym_wait_cond("w", count_true, &calls, NULL, bad[i]), SYM_ERR_INVALID_ARG);
        PE_ASSERT(strstr(sym_last_error(), "timeout"), "%s", sym_last_error());
    }
    PE_ASSERT(calls == 0, "ready() called %d times on bad arguments", calls);
}

Test(wait_cond, bad_arguments, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_pes(1, bad_args_body, NULL);
}

static void not_initialized_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    int calls = 0;
    PE_FAILS_WITH(sym_wait_cond(NULL, count_true, &calls, NULL, 0), SYM_ERR_NOT_INITIALIZED);
    PE_ASSERT(calls == 0, "ready() called before sym_init");
}

Test(wait_cond, not_initialized, .timeout = HARNESS_CR_TIMEOUT(120))
{
    struct pe_job job = {.npes = 1, .body = not_initialized_body, .raw = true, .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
