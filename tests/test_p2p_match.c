/*
 * test_p2p_match.c - point-to-point matching: receives from any PE with any
 * tag and their status, fairness between senders, per-sender order,
 * probe / iprobe, per-call and world-team timeouts, a lost PE under an
 * any-source receive, and concurrent calls from two threads.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

static uint8_t pattern(int from, int to, size_t i, int tag)
{
    return (uint8_t)(from * 37 + to * 11 + (int)i * 7 + tag * 3 + (int)(i >> 9));
}

/* Sizes of the messages each PE sends every other: empty, tiny, odd,
 * several chunks, larger than the point-to-point area of a 1 MiB mailbox. */
static const size_t sizes[] = {0, 1, 13, 3001, 300007};
#define NSIZES ((int)(sizeof(sizes) / sizeof(sizes[0])))
#define NTAGS  2

static void fill(uint8_t *b, size_t len, int from, int to, int tag)
{
    for (size_t i = 0; i < len; i++)
        b[i] = pattern(from, to, i, tag);
}

/* Every PE sends every other NSIZES messages on each of NTAGS tags, then
 * receives them all with SYM_ANY_PE and SYM_ANY_TAG: each status names a
 * real sender, its tag and size; per (sender, tag) the messages come in the
 * order sent; the data is the sender's. */
static void any_source_body(int me, int n, void *arg)
{
    (void)arg;
    if (n == 1) {
        uint8_t b;
        PE_FAILS_WITH(sym_recv_opts(&b, 1, SYM_ANY_PE, SYM_ANY_TAG, NULL, NULL),
                      SYM_ERR_INVALID_ARG);
        PE_ASSERT(strstr(sym_last_error(), "one PE"), "message: %s", sym_last_error());
        return;
    }
    const size_t max = sizes[NSIZES - 1];
    uint8_t *out = malloc(max), *in = malloc(max + 1);
    PE_ASSERT(out && in, "malloc failed");
    for (int k = 0; k < NSIZES; k++)
        for (int d = 1; d < n; d++) {
            int to = (me + d) % n;
            for (int tag = 0; tag < NTAGS; tag++) {
                fill(out, sizes[k], me, to, tag * 100 + k);
                PE_OK(sym_send(out, sizes[k], to, tag * 100 + k));
            }
        }
    int next[HARNESS_MAX_PES][NTAGS]; /* per sender and tag: the index of the next message */
    memset(next, 0, sizeof(next));
    for (int m = 0; m < (n - 1) * NSIZES * NTAGS; m++) {
        sym_msg_status_t st = {-7, -7, 7};
        memset(in, 0xa5, max + 1);
        PE_OK(sym_recv_opts(in, max + 1, SYM_ANY_PE, SYM_ANY_TAG, NULL, &st));
        PE_ASSERT(st.source >= 0 && st.source < n && st.source != me, "status source %d",
                  st.source);
        int tag = st.tag / 100, k = st.tag % 100;
        PE_ASSERT(st.tag >= 0 && tag < NTAGS && k < NSIZES, "status tag %d", st.tag);
        PE_ASSERT(k == next[st.source][tag], "from PE %d tag %d: message %d came before %d",
                  st.source, st.tag, k, next[st.source][tag]);
        next[st.source][tag]++;
        PE_ASSERT(st.nbytes == sizes[k], "from PE %d tag %d: %zu bytes, sent %zu", st.source,
                  st.tag, st.nbytes, sizes[k]);
        for (size_t i = 0; i < st.nbytes; i++)
            PE_ASSERT(in[i] == pattern(st.source, me, i, st.tag),
                      "from PE %d tag %d: byte %zu wrong", st.source, st.tag, i);
        PE_ASSERT(in[st.nbytes] == 0xa5, "the receive wrote past the message");
    }
    for (int s = 0; s < n; s++)
        for (int tag = 0; tag < NTAGS; tag++)
            PE_ASSERT(s == me || next[s][tag] == NSIZES, "PE %d tag %d: %d messages", s, tag,
                      next[s][tag]);
    /* a specific source with any tag, and any source with a specific tag
     * (after everyone took the messages above with any tag) */
    PE_OK(sym_barrier_all());
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    int32_t v = me;
    PE_OK(sym_send(&v, sizeof(v), right, 5));
    PE_OK(sym_send(&v, sizeof(v), right, 6));
    sym_msg_status_t st;
    PE_OK(sym_recv_opts(&v, sizeof(v), SYM_ANY_PE, 6, NULL, &st));
    PE_ASSERT(st.source == left && st.tag == 6 && v == left, "any source, tag 6: %d %d %d",
              st.source, st.tag, v);
    PE_OK(sym_recv_opts(&v, sizeof(v), left, SYM_ANY_TAG, NULL, &st));
    PE_ASSERT(st.source == left && st.tag == 5 && v == left, "PE %d, any tag: %d %d %d", left,
              st.source, st.tag, v);
    PE_OK(sym_barrier_all());
    free(in);
    free(out);
}

ParameterizedTestParameters(p2p_match, any_source)
{
    static int counts[] = {1, 2, 3, 5, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, p2p_match, any_source)
{
    static const char *const env[] = {"SYMHEAP_MAILBOX_SIZE=1M", NULL};
    run_pes_env(*npes, env, any_source_body, NULL);
}

/* Every other PE sends PE 0 M messages with one tag; once all have
 * arrived, PE 0's any-source receives take them in turns: every n - 1
 * consecutive receives come from n - 1 different senders. */
#define FAIR_M 6
static void fairness_body(int me, int n, void *arg)
{
    (void)arg;
    uint64_t *sent = sym_calloc(1, sizeof(uint64_t));
    PE_ASSERT(sent, "sym_calloc: %s", sym_last_error());
    PE_OK(sym_barrier_all());
    if (me != 0) {
        for (int32_t k = 0; k < FAIR_M; k++)
            PE_OK(sym_send(&k, sizeof(k), 0, 3));
        PE_OK(sym_atomic_add64(sent, 1, 0));
    } else {
        /* probing for a tag nobody sends parks every arrived message in
         * the receiver's queues, which frees the senders' mailbox slots */
        int found = 1, done = 0;
        double t0 = harness_now();
        while (!done) {
            PE_OK(sym_iprobe(SYM_ANY_PE, 999, &found, NULL));
            PE_ASSERT(!found, "iprobe found a message with tag 999");
            PE_OK(sym_test_uint64(sent, SYM_CMP_EQ, (uint64_t)n - 1, &done));
            PE_ASSERT(harness_now() - t0 < harness_seconds(30), "senders did not finish");
        }
        int from[HARNESS_MAX_PES * FAIR_M], count[HARNESS_MAX_PES] = {0};
        const int total = (n - 1) * FAIR_M;
        for (int m = 0; m < total; m++) {
            int32_t v = -1;
            sym_msg_status_t st;
            PE_OK(sym_recv_opts(&v, sizeof(v), SYM_ANY_PE, 3, NULL, &st));
            PE_ASSERT(v == count[st.source], "from PE %d: message %d arrived as %d", st.source,
                      count[st.source], v);
            count[st.source]++;
            from[m] = st.source;
        }
        for (int m = 0; m + n - 1 <= total; m++) {
            bool seen[HARNESS_MAX_PES] = {false};
            for (int j = m; j < m + n - 1; j++) {
                PE_ASSERT(!seen[from[j]], "receives %d..%d took two messages from PE %d", m,
                          m + n - 2, from[j]);
                seen[from[j]] = true;
            }
        }
    }
    PE_OK(sym_barrier_all());
    sym_free(sent);
}

ParameterizedTestParameters(p2p_match, fairness)
{
    static int counts[] = {2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, p2p_match, fairness)
{
    run_pes(*npes, fairness_body, NULL);
}

/* probe and iprobe describe the message without taking it; a too-small
 * receive is SYM_ERR_TRUNCATED with the size needed and writes nothing. */
static void probe_body(int me, int n, void *arg)
{
    (void)arg;
    if (n == 1) {
        int found = 7;
        PE_FAILS_WITH(sym_iprobe(SYM_ANY_PE, 0, &found, NULL), SYM_ERR_INVALID_ARG);
        return;
    }
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    int found = 7;
    sym_msg_status_t st = {-7, -7, 7};
    PE_OK(sym_iprobe(left, 11, &found, &st));
    PE_ASSERT(found == 0 && st.source == -7, "iprobe found a message never sent");
    PE_OK(sym_barrier_all());
    uint8_t big[777];
    fill(big, sizeof(big), me, right, 11);
    PE_OK(sym_send(big, sizeof(big), right, 11));
    PE_OK(sym_probe(SYM_ANY_PE, SYM_ANY_TAG, NULL, &st));
    PE_ASSERT(st.source == left && st.tag == 11 && st.nbytes == sizeof(big),
              "probe: source %d tag %d bytes %zu", st.source, st.tag, st.nbytes);
    found = 0;
    PE_OK(sym_iprobe(left, SYM_ANY_TAG, &found, &st));
    PE_ASSERT(found == 1 && st.nbytes == sizeof(big), "iprobe: found %d bytes %zu", found,
              st.nbytes);
    uint8_t small[10];
    memset(small, 0xee, sizeof(small));
    st.nbytes = 0;
    PE_FAILS_WITH(sym_recv_opts(small, sizeof(small), SYM_ANY_PE, SYM_ANY_TAG, NULL, &st),
                  SYM_ERR_TRUNCATED);
    PE_ASSERT(st.nbytes == sizeof(big) && st.source == left && st.tag == 11,
              "truncated: %zu bytes from %d tag %d", st.nbytes, st.source, st.tag);
    for (size_t i = 0; i < sizeof(small); i++)
        PE_ASSERT(small[i] == 0xee, "a truncated receive wrote byte %zu", i);
    uint8_t in[777];
    PE_OK(sym_recv_opts(in, sizeof(in), st.source, st.tag, NULL, &st));
    for (size_t i = 0; i < sizeof(in); i++)
        PE_ASSERT(in[i] == pattern(left, me, i, 11), "byte %zu wrong", i);
    PE_OK(sym_iprobe(SYM_ANY_PE, SYM_ANY_TAG, &found, NULL));
    PE_ASSERT(found == 0, "the received message is still there");
    /* bad arguments */
    sym_p2p_opts_t bad = {-1.0};
    PE_FAILS_WITH(sym_send_opts(big, 1, right, 0, &bad), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_send_opts(big, 1, SYM_ANY_PE, 0, NULL), SYM_ERR_INVALID_PE);
    PE_FAILS_WITH(sym_probe(me, 0, NULL, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_iprobe(left, -3, &found, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_iprobe(left, 0, NULL, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_probe(n, 0, NULL, NULL), SYM_ERR_INVALID_PE);
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(p2p_match, probe)
{
    static int counts[] = {1, 2, 3, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, p2p_match, probe)
{
    run_pes(*npes, probe_body, NULL);
}

/* Deadlines: a per-call timeout, and the world team's timeout for the
 * shorthands, both far below SYMHEAP_TIMEOUT (60 s here). */
static void timeout_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    uint64_t *done = sym_calloc(1, sizeof(uint64_t));
    PE_ASSERT(done, "sym_calloc: %s", sym_last_error());
    if (me == 0) {
        uint8_t b;
        sym_p2p_opts_t o = {0.3};
        double t0 = harness_now();
        PE_FAILS_WITH(sym_recv_opts(&b, 1, SYM_ANY_PE, 42, &o, NULL), SYM_ERR_TIMEOUT);
        double dt = harness_now() - t0;
        PE_ASSERT(dt >= 0.29 && dt < harness_seconds(3), "per-call timeout after %.2f s", dt);
        PE_ASSERT(strstr(sym_last_error(), "any PE") && strstr(sym_last_error(), "tag 42"),
                  "message: %s", sym_last_error());
        t0 = harness_now();
        PE_FAILS_WITH(sym_probe(1, SYM_ANY_TAG, &o, NULL), SYM_ERR_TIMEOUT);
        PE_ASSERT(harness_now() - t0 < harness_seconds(3), "probe timeout after %.2f s",
                  harness_now() - t0);
        PE_OK(sym_team_set_timeout(sym_team_world(), 0.5));
        t0 = harness_now();
        PE_FAILS_WITH(sym_recv(&b, 1, 1, 7, NULL), SYM_ERR_TIMEOUT);
        dt = harness_now() - t0;
        PE_ASSERT(dt >= 0.49 && dt < harness_seconds(3), "world-team timeout after %.2f s", dt);
        PE_ASSERT(strstr(sym_last_error(), "PE 1") && strstr(sym_last_error(), "tag 7"),
                  "message: %s", sym_last_error());
        PE_OK(sym_p64(done, 1, 1));
    } else {
        int ok = 0;
        while (!ok) {
            PE_OK(sym_test_uint64(done, SYM_CMP_EQ, 1, &ok));
            sched_yield();
        }
    }
}

Test(p2p_match, timeouts)
{
    const char *const env[] = {"SYMHEAP_TIMEOUT=60", NULL};
    run_pes_env(2, env, timeout_body, NULL);
}

/* PE 1 sends PE 0 a message and dies; PE 2 sent one too.  PE 0's
 * any-source receives still take both messages that arrived, then report
 * the loss, naming PE 1. */
static void lost_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    PE_OK(sym_init());
    int32_t v = me;
    if (me == 2) {
        PE_OK(sym_send(&v, sizeof(v), 0, 5));
        PE_OK(sym_send(&v, sizeof(v), 1, 1)); /* PE 1 may go on */
        PE_FAILS_WITH(sym_recv(&v, sizeof(v), 0, 9, NULL), SYM_ERR_PEER_LOST);
    } else if (me == 1) {
        PE_OK(sym_recv(&v, sizeof(v), 2, 1, NULL));
        v = me;
        PE_OK(sym_send(&v, sizeof(v), 0, 4));
        raise(SIGKILL);
    } else {
        sym_p2p_opts_t o = {0.2};
        sym_status_t st;
        double t0 = harness_now();
        while ((st = sym_probe(SYM_ANY_PE, 99, &o, NULL)) == SYM_ERR_TIMEOUT)
            PE_ASSERT(harness_now() - t0 < harness_seconds(20), "PE 1's death went unseen");
        PE_ASSERT(st == SYM_ERR_PEER_LOST, "probe returned %s: %s", sym_status_name(st),
                  sym_last_error());
        bool got[3] = {false};
        for (int i = 0; i < 2; i++) {
            sym_msg_status_t ms;
            PE_OK(sym_recv_opts(&v, sizeof(v), SYM_ANY_PE, SYM_ANY_TAG, NULL, &ms));
            PE_ASSERT(ms.source == v && ms.tag == 3 + v, "message %d from %d tag %d", v, ms.source,
                      ms.tag);
            got[v] = true;
        }
        PE_ASSERT(got[1] && got[2], "not both messages delivered");
        PE_FAILS_WITH(sym_recv_opts(&v, sizeof(v), SYM_ANY_PE, SYM_ANY_TAG, NULL, NULL),
                      SYM_ERR_PEER_LOST);
        PE_ASSERT(strstr(sym_last_error(), "PE 1"), "message: %s", sym_last_error());
    }
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
    _exit(0);
}

Test(p2p_match, lost_sender_any_source)
{
    harness_skip_if_launcher_ends_job_on_kill();
    struct pe_job job = {.npes = 3, .body = lost_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.term_signal[1], SIGKILL, "PE 1 ended with code %d", out.exit_code[1]);
    cr_assert_eq(out.exit_code[0], 0, "PE 0 failed (code %d)", out.exit_code[0]);
    cr_assert_eq(out.exit_code[2], 0, "PE 2 failed (code %d)", out.exit_code[2]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}

/* A second thread's point-to-point call while the first waits in one is
 * refused with SYM_ERR_INVALID_ARG, and leaves the first call intact. */
struct recv_thread {
    sym_status_t st;
    int32_t v;
};

static void *recv_thread_main(void *arg)
{
    struct recv_thread *rt = arg;
    /* refused itself while the main thread is inside an iprobe: again */
    while ((rt->st = sym_recv(&rt->v, sizeof(rt->v), 1, 8, NULL)) == SYM_ERR_INVALID_ARG)
        sched_yield();
    return NULL;
}

static void threads_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    int provided = -1;
    PE_OK(sym_init_thread(SYM_THREAD_MULTIPLE, &provided));
    uint64_t *flag = sym_calloc(1, sizeof(uint64_t));
    PE_ASSERT(flag, "sym_calloc: %s", sym_last_error());
    if (me == 0) {
        struct recv_thread rt = {SYM_OK, -1};
        pthread_t th;
        PE_ASSERT(pthread_create(&th, NULL, recv_thread_main, &rt) == 0, "pthread_create");
        sym_status_t st = SYM_OK;
        double t0 = harness_now();
        int found;
        while ((st = sym_iprobe(1, 8, &found, NULL)) == SYM_OK) {
            sched_yield();
            PE_ASSERT(harness_now() - t0 < harness_seconds(20), "no call was ever refused");
        }
        PE_ASSERT(st == SYM_ERR_INVALID_ARG && strstr(sym_last_error(), "another thread"),
                  "returned %s: %s", sym_status_name(st), sym_last_error());
        PE_OK(sym_p64(flag, 1, 1)); /* PE 1 may send now */
        pthread_join(th, NULL);
        PE_ASSERT(rt.st == SYM_OK && rt.v == 1234, "the waiting receive got %s, %d",
                  sym_status_name(rt.st), rt.v);
    } else {
        PE_OK(sym_wait_until_uint64(flag, SYM_CMP_EQ, 1));
        int32_t v = 1234;
        PE_OK(sym_send(&v, sizeof(v), 0, 8));
    }
    PE_OK(sym_barrier_all());
    sym_free(flag);
    PE_OK(sym_finalize());
}

Test(p2p_match, two_threads)
{
    struct pe_job job = {.npes = 2, .body = threads_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
