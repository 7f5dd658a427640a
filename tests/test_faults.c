/*
 * test_faults.c - dying and missing PEs: the survivors get a clear error
 * quickly, name the culprit, and the job leaves nothing in /dev/shm.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

static void assert_contains(const char *haystack, const char *needle)
{
    if (!strstr(haystack, needle))
        pe_fail(__FILE__, __LINE__, "strstr", "message \"%s\" does not mention \"%s\"", haystack,
                needle);
}

/* The last PE is SIGKILLed while every other PE waits in a barrier for it;
 * the survivors must report SYM_ERR_PEER_LOST naming it well within 2 s. */
static void killed_in_barrier_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    PE_OK(sym_barrier_all());
    int victim = n - 1;
    if (me == victim) {
        sleep_ms(100); /* let the others get into the barrier first */
        raise(SIGKILL);
    }
    double t0 = harness_now();
    sym_status_t st = sym_barrier_all();
    double dt = harness_now() - t0;
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "barrier returned %s: %s", sym_status_name(st),
              sym_last_error());
    char want[32];
    snprintf(want, sizeof(want), "PE %d", victim);
    assert_contains(sym_last_error(), want);
    assert_contains(sym_last_error(), harness_killed_words());
    PE_ASSERT(dt < harness_seconds(2.0), "the loss was reported after %.2f s", dt);
    /* finalize still releases everything and reports the loss */
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
    PE_ASSERT(!sym_initialized(), "still initialized after a failed finalize");
}

ParameterizedTestParameters(faults, killed_in_barrier)
{
    static int counts[] = {2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, faults, killed_in_barrier)
{
    struct pe_job job = {.npes = *npes, .body = killed_in_barrier_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    int victim = *npes - 1;
    cr_assert_eq(out.term_signal[victim], SIGKILL, "the victim ended with code %d",
                 out.exit_code[victim]);
    for (int pe = 0; pe < victim; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                     out.exit_code[pe]);
    cr_assert_eq(out.job_exit_code, 128 + SIGKILL, "job exit code %d", out.job_exit_code);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}

/* The last PE stays alive but never enters the barrier: everyone else times
 * out (SYMHEAP_TIMEOUT=1) and the message names the PE that never arrived. */
static void never_arrives_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    int victim = n - 1;
    uint64_t *never = sym_calloc(1, sizeof(uint64_t));
    uint64_t *done = sym_calloc(1, sizeof(uint64_t));
    PE_ASSERT(never && done, "sym_calloc: %s", sym_last_error());
    if (me == victim) {
        /* wait for something nobody sends: times out too */
        PE_FAILS_WITH(sym_wait_until_uint64(done, SYM_CMP_EQ, 42), SYM_ERR_TIMEOUT);
        assert_contains(sym_last_error(), "== 42");
    } else {
        double t0 = harness_now();
        sym_status_t st = sym_barrier_all();
        double dt = harness_now() - t0;
        PE_ASSERT(st == SYM_ERR_TIMEOUT, "barrier returned %s: %s", sym_status_name(st),
                  sym_last_error());
        char want[64];
        snprintf(want, sizeof(want), "never entered it: %d", victim);
        assert_contains(sym_last_error(), "sym_barrier_all");
        assert_contains(sym_last_error(), harness_timeout_text(1));
        assert_contains(sym_last_error(), "(SYMHEAP_TIMEOUT)"); /* what set the limit */
        assert_contains(sym_last_error(), want);
        PE_ASSERT(dt >= harness_seconds(0.9) && dt < harness_seconds(5.0),
                  "timed out after %.2f s (timeout %g s)", dt, harness_seconds(1));
    }
    /* The job is out of step now; a PE that left early would turn the
     * others' timeouts into losses: count out first. */
    PE_OK(sym_atomic_inc64(done, 0));
    if (me == 0) {
        PE_OK(sym_wait_until_uint64(done, SYM_CMP_GE, (uint64_t)n));
        for (int pe = 1; pe < n; pe++)
            PE_OK(sym_p64(never, 1, pe)); /* release */
    } else {
        PE_OK(sym_wait_until_uint64(never, SYM_CMP_EQ, 1));
    }
    /* PE 0 releases the others one by one: a released PE that exited
     * unfinalized would be a loss to those not yet released, so finalize
     * first.  Its barrier fails at once where the timeout is sticky; the
     * victim's first barrier finds the arrivals the others left in the
     * sym_barrier_all they gave up on: a finalize meeting a barrier, which
     * the calls' fingerprints catch. */
    if (me == victim)
        PE_FAILS_WITH(sym_finalize(), SYM_ERR_MISMATCH);
    else
        PE_FAILS_WITH(sym_finalize(), SYM_ERR_TIMEOUT);
    _exit(0);
}

ParameterizedTestParameters(faults, never_arrives)
{
    static int counts[] = {2, 3, 4, 8};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

/* Heaps mapped at init: the victim reads the fingerprints of PEs that
 * finalized before it ever used them.  Mapped on first use, a PE that
 * finalized first has closed its heap and left nothing to read, and the
 * victim reports those of them that exited as lost instead. */
ParameterizedTest(int *npes, faults, never_arrives)
{
    const char *const env[] = {harness_timeout_env(1), "SYMHEAP_SHM_MAP=eager", NULL};
    struct pe_job job = {.npes = *npes, .body = never_arrives_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    for (int pe = 0; pe < *npes; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "PE %d failed (code %d)", pe, out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}

/* A PE calls sym_global_exit(7): the others' waits fail with SYM_ERR_ABORTED
 * naming it, and the job's exit code is 7. */
static void global_exit_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    PE_OK(sym_barrier_all());
    if (me == n - 1) {
        sleep_ms(50);
        sym_global_exit(7);
    }
    sym_status_t st = sym_barrier_all();
    PE_ASSERT(st == SYM_ERR_ABORTED, "barrier returned %s: %s", sym_status_name(st),
              sym_last_error());
    char want[48];
    snprintf(want, sizeof(want), "PE %d aborted the job with status 7", n - 1);
    assert_contains(sym_last_error(), want);
    _exit(0);
}

Test(faults, global_exit)
{
    struct pe_job job = {.npes = 3, .body = global_exit_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.exit_code[2], 7, "the exiting PE ended with %d", out.exit_code[2]);
    cr_assert_eq(out.exit_code[0], 0, "PE 0 failed (code %d)", out.exit_code[0]);
    cr_assert_eq(out.exit_code[1], 0, "PE 1 failed (code %d)", out.exit_code[1]);
    cr_assert_eq(out.job_exit_code, 7);
    cr_assert_eq(out.leftover_objects, 0);
}

/* The PEs whose barrier failed because PE n-1 called sym_global_exit(7)
 * end the job themselves with sym_global_exit(1): they exit with 7, the
 * status asked for first, and the job ends with 7. */
static void global_exit_after_abort_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    PE_OK(sym_barrier_all());
    if (me == n - 1) {
        sleep_ms(50);
        sym_global_exit(7);
    }
    sym_status_t st = sym_barrier_all();
    PE_ASSERT(st == SYM_ERR_ABORTED, "barrier returned %s: %s", sym_status_name(st),
              sym_last_error());
    sym_global_exit(1);
}

Test(faults, global_exit_after_abort_keeps_first_status)
{
    struct pe_job job = {.npes = 3, .body = global_exit_after_abort_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    for (int pe = 0; pe < 3; pe++)
        cr_assert_eq(out.exit_code[pe], 7, "PE %d ended with %d", pe, out.exit_code[pe]);
    cr_assert_eq(out.job_exit_code, 7);
    cr_assert_eq(out.leftover_objects, 0);
}

/* A PE that returns from main without sym_finalize is lost too. */
static void exit_without_finalize_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(sym_init());
    if (me == n - 1)
        _exit(0);
    sym_status_t st = sym_barrier_all();
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "barrier returned %s: %s", sym_status_name(st),
              sym_last_error());
    assert_contains(sym_last_error(), "without finalizing");
    _exit(0);
}

Test(faults, exit_without_finalize)
{
    struct pe_job job = {.npes = 2, .body = exit_without_finalize_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.exit_code[0], 0, "PE 0 failed (code %d)", out.exit_code[0]);
    cr_assert_eq(out.leftover_objects, 0);
}

/* A PE dies before sym_init: the others' init fails with SYM_ERR_PEER_LOST
 * instead of waiting for the timeout. */
static void dies_before_init_body(int me, int n, void *arg)
{
    (void)arg;
    if (me == n - 1)
        raise(SIGKILL);
    double t0 = harness_now();
    sym_status_t st = sym_init();
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "sym_init returned %s: %s", sym_status_name(st),
              sym_last_error());
    PE_ASSERT(harness_now() - t0 < harness_seconds(2.0), "init took %.2f s to notice",
              harness_now() - t0);
    PE_ASSERT(!sym_initialized(), "initialized after a failed init");
    _exit(0);
}

Test(faults, dies_before_init)
{
    harness_require_symrun("a PE that dies before it connects to the rendezvous is known to "
                           "nobody but the launcher: its peers wait for the init timeout");
    struct pe_job job = {.npes = 4, .body = dies_before_init_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    for (int pe = 0; pe < 3; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "PE %d failed (code %d)", pe, out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
}

/* ------------------------------------------------------------------------ */
/* Injected faults (SYMHEAP_FAULT): a PE killed or stalled inside each op    */
/* ------------------------------------------------------------------------ */

#include <errno.h>
#include <sys/mman.h>

/* What the PEs tell the test process, in memory shared across the fork:
 * when the victim made its fatal call, when each survivor saw the error,
 * every PE's pid (to prove none is left behind). */
struct inject_shared {
    double t_fault;
    double t_err[HARNESS_MAX_PES];
    int pid[HARNESS_MAX_PES];
};

struct inject_case {
    /* arrays, not pointers: Criterion hands parameters to a new process */
    char action[8]; /* "kill" or "stall" */
    char op[16];    /* SYMHEAP_FAULT's op */
    int npes;
    int victim;
    struct inject_shared *shared; /* set by the test */
};

#define INJECT_COUNT 2 /* the victim's second call of the op is fatal */
#define INJECT_STEPS 3
#define INJECT_ELEMS 16

struct inject_bufs {
    int32_t src[HARNESS_MAX_PES * INJECT_ELEMS];
    int32_t dst[HARNESS_MAX_PES * INJECT_ELEMS];
    size_t counts[HARNESS_MAX_PES];
    uint64_t *sym; /* symmetric: 64 words */
};

/* One call of `op` with valid arguments (every PE makes the same calls, so
 * only the fault makes a difference). */
static sym_status_t inject_op(const char *op, int me, int n, int step, struct inject_bufs *b)
{
    const int right = (me + 1) % n, left = (me + n - 1) % n;
    const sym_team_t w = sym_team_world();
    const size_t k = INJECT_ELEMS;
    if (!strcmp(op, "put"))
        return sym_put(b->sym + 8, b->src, 64, right);
    if (!strcmp(op, "get"))
        return sym_get(b->dst, b->sym + 8, 64, right);
    if (!strcmp(op, "atomic"))
        return sym_atomic_add64(b->sym + 1, 1, right);
    if (!strcmp(op, "wait")) {
        sym_status_t st = sym_atomic_inc64(b->sym, right);
        return st != SYM_OK ? st : sym_wait_until_uint64(b->sym, SYM_CMP_GE, (uint64_t)step);
    }
    if (!strcmp(op, "barrier"))
        return sym_barrier_all();
    if (!strcmp(op, "send") || !strcmp(op, "recv")) {
        sym_status_t st = sym_send(b->src, 64, right, step);
        return st != SYM_OK ? st : sym_recv(b->dst, 64, left, step, NULL);
    }
    if (!strcmp(op, "broadcast"))
        return sym_broadcast(w, b->dst, k, SYM_INT32, 0, NULL);
    if (!strcmp(op, "reduce"))
        return sym_reduce(w, b->dst, b->src, k, SYM_INT32, SYM_OP_SUM, 0, NULL);
    if (!strcmp(op, "allreduce"))
        return sym_allreduce(w, b->dst, b->src, k, SYM_INT32, SYM_OP_SUM, NULL);
    if (!strcmp(op, "reduce_scatter"))
        return sym_reduce_scatter(w, b->dst, b->src, k, SYM_INT32, SYM_OP_SUM, NULL);
    if (!strcmp(op, "all_gather"))
        return sym_all_gather(w, b->dst, b->src, k, SYM_INT32, NULL);
    if (!strcmp(op, "all_gatherv"))
        return sym_all_gatherv(w, b->dst, b->src, b->counts, SYM_INT32, NULL);
    if (!strcmp(op, "all_to_all"))
        return sym_all_to_all(w, b->dst, b->src, k, SYM_INT32, NULL);
    if (!strcmp(op, "all_to_allv"))
        return sym_all_to_allv(w, b->src, b->counts, b->dst, b->counts, SYM_INT32, NULL);
    if (!strcmp(op, "gather"))
        return sym_gather(w, b->dst, b->src, k, SYM_INT32, 0, NULL);
    if (!strcmp(op, "scatter"))
        return sym_scatter(w, b->dst, b->src, k, SYM_INT32, 0, NULL);
    if (!strcmp(op, "team_split")) {
        sym_team_t t = SYM_TEAM_INVALID;
        sym_status_t st = sym_team_split_strided(w, 0, 1, n, &t);
        return st != SYM_OK ? st : sym_team_destroy(t);
    }
    pe_fail(__FILE__, __LINE__, "op", "unknown op '%s'", op);
}

static void inject_body(int me, int n, void *arg)
{
    const struct inject_case *c = arg;
    struct inject_shared *sh = c->shared;
    const bool is_kill = !strcmp(c->action, "kill");
    sh->pid[me] = (int)getpid();
    PE_OK(sym_init());
    struct inject_bufs *b = calloc(1, sizeof(*b));
    PE_ASSERT(b, "calloc");
    for (int i = 0; i < HARNESS_MAX_PES * INJECT_ELEMS; i++)
        b->src[i] = me * 1000 + i;
    for (int i = 0; i < n; i++)
        b->counts[i] = INJECT_ELEMS;
    b->sym = sym_calloc(64, sizeof(uint64_t));
    PE_ASSERT(b->sym, "sym_calloc: %s", sym_last_error());
    PE_OK(sym_barrier_all()); /* the barrier fault counts from here on */

    sym_status_t st = SYM_OK;
    for (int step = 1; step <= INJECT_STEPS && st == SYM_OK; step++) {
        /* the barrier above counts as the victim's first barrier; a
         * stalled victim goes on after waking, so only the fatal step is
         * timed */
        const int fatal_step = INJECT_COUNT - (strcmp(c->op, "barrier") ? 0 : 1);
        if (me == c->victim && (is_kill || step == fatal_step))
            sh->t_fault = harness_now();
        st = inject_op(c->op, me, n, step, b);
        if (st == SYM_OK && strcmp(c->op, "barrier") != 0)
            st = sym_barrier_all();
    }
    double t = harness_now();
    if (me == c->victim) {
        /* killed: never here; stalled: woke up to a job that gave up on it */
        PE_ASSERT(!is_kill, "the victim survived its fault");
        _exit(st != SYM_OK ? 3 : 4);
    }
    sh->t_err[me] = t;
    char want[32], never[48];
    snprintf(want, sizeof(want), "PE %d", c->victim);
    snprintf(never, sizeof(never), "never entered it: %d", c->victim);
    /* a stall: a timeout, or the loss of a survivor that timed out
     * first and exited (a failed finalize is no orderly end) */
    PE_ASSERT(st == (is_kill ? SYM_ERR_PEER_LOST : SYM_ERR_TIMEOUT) ||
                  (!is_kill && st == SYM_ERR_PEER_LOST &&
                   strstr(sym_last_error(), "after the library returned it SYM_ERR_TIMEOUT")),
              "%s of PE %d in %s: survivor got %s: %s", c->action, c->victim, c->op,
              sym_status_name(st), sym_last_error());
    /* a barrier that times out waits on a partner, and lists the PEs
     * that never arrived */
    if (!strstr(sym_last_error(), never))
        assert_contains(sym_last_error(), want);
    if (is_kill)
        assert_contains(sym_last_error(), harness_killed_words());
    pe_ignore(sym_finalize()); /* fails too; must still release everything */
    PE_ASSERT(!sym_initialized(), "still initialized after finalize");
    _exit(0);
}

static void inject_run(struct inject_case *c)
{
    const bool is_kill = !strcmp(c->action, "kill");
    struct inject_shared *sh =
        mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(sh != MAP_FAILED, "mmap");
    memset(sh, 0, sizeof(*sh));
    c->shared = sh;
    char fault[128];
    snprintf(fault, sizeof(fault), "SYMHEAP_FAULT=%s:pe=%d:op=%s:count=%d%s", c->action, c->victim,
             c->op, INJECT_COUNT, is_kill ? "" : ":seconds=");
    if (!is_kill) /* a stall outlasts the timeout */
        snprintf(fault + strlen(fault), sizeof(fault) - strlen(fault), "%g", harness_seconds(3));
    const char *env[] = {fault, harness_timeout_env(is_kill ? 30 : 1), NULL};
    struct pe_job job = {.npes = c->npes,
                         .body = inject_body,
                         .arg = c,
                         .raw = true,
                         .env = env,
                         .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);

    double worst = 0;
    for (int pe = 0; pe < c->npes; pe++) {
        if (pe == c->victim)
            continue;
        cr_expect_eq(out.exit_code[pe], 0, "%s in %s: survivor PE %d failed (code %d)", c->action,
                     c->op, pe, out.exit_code[pe]);
        double dt = sh->t_err[pe] - sh->t_fault;
        if (dt > worst)
            worst = dt;
        /* the bound: 2 s after a death (scaled in slow builds);
         * a stall ends at the 1 s timeout, 5 s allows for a loaded host */
        cr_expect(sh->t_fault > 0 && sh->t_err[pe] > 0 && dt < harness_seconds(is_kill ? 2.0 : 5.0),
                  "%s in %s: PE %d saw the error %.3f s after the fault", c->action, c->op, pe, dt);
        if (!is_kill)
            cr_expect(dt >= harness_seconds(0.9),
                      "stall in %s: PE %d gave up after %.3f s (timeout %g s)", c->op, pe, dt,
                      harness_seconds(1));
    }
    if (is_kill)
        cr_expect_eq(out.term_signal[c->victim], SIGKILL, "the victim ended with code %d",
                     out.exit_code[c->victim]);
    else
        cr_expect_eq(out.exit_code[c->victim], 3, "the stalled victim ended with code %d",
                     out.exit_code[c->victim]);
    cr_expect_neq(out.job_exit_code, 0, "the job exited 0 after a %s", c->action);
    cr_expect_eq(out.leftover_objects, 0, "%d objects of the job left in /dev/shm",
                 out.leftover_objects);
    for (int pe = 0; pe < c->npes; pe++)
        cr_expect(sh->pid[pe] > 0 && kill(sh->pid[pe], 0) != 0 && errno == ESRCH,
                  "PE %d (pid %d) is still there after the job", pe, sh->pid[pe]);
    fprintf(stderr,
            "fault %s:op=%s npes=%d victim=%d: survivors' error after %.1f ms "
            "(worst), job exit %d, %.2f s\n",
            c->action, c->op, c->npes, c->victim, worst * 1e3, out.job_exit_code, out.seconds);
    munmap(sh, sizeof(*sh));
}

ParameterizedTestParameters(faults, injected_kill)
{
    static struct inject_case cases[] = {
        {"kill", "put", 3, 2, NULL},        {"kill", "get", 3, 1, NULL},
        {"kill", "atomic", 3, 0, NULL},     {"kill", "wait", 3, 2, NULL},
        {"kill", "barrier", 3, 1, NULL},    {"kill", "send", 3, 2, NULL},
        {"kill", "recv", 3, 1, NULL},       {"kill", "broadcast", 3, 0, NULL},
        {"kill", "broadcast", 4, 3, NULL},  {"kill", "reduce", 3, 2, NULL},
        {"kill", "reduce", 3, 0, NULL},     {"kill", "allreduce", 4, 1, NULL},
        {"kill", "allreduce", 2, 1, NULL},  {"kill", "reduce_scatter", 3, 2, NULL},
        {"kill", "all_gather", 3, 1, NULL}, {"kill", "all_gatherv", 3, 2, NULL},
        {"kill", "all_to_all", 4, 2, NULL}, {"kill", "all_to_allv", 3, 0, NULL},
        {"kill", "gather", 3, 2, NULL},     {"kill", "gather", 3, 0, NULL},
        {"kill", "scatter", 3, 1, NULL},    {"kill", "scatter", 3, 0, NULL},
        {"kill", "team_split", 3, 2, NULL},
    };
    return cr_make_param_array(struct inject_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct inject_case *c, faults, injected_kill)
{
    inject_run(c);
}

ParameterizedTestParameters(faults, injected_stall)
{
    static struct inject_case cases[] = {
        {"stall", "barrier", 3, 2, NULL},
        {"stall", "allreduce", 3, 1, NULL},
        {"stall", "put", 2, 1, NULL},
    };
    return cr_make_param_array(struct inject_case, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct inject_case *c, faults, injected_stall)
{
    inject_run(c);
}

/* A PE that gets SIGTERM dies by it: nothing linked into the library (for
 * instance provider libraries libfabric pulls in, which install handlers
 * that exit(1)) may turn a signal death into an exit status. */
static void dies_by_sigterm_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    PE_OK(sym_init());
    if (me == 0)
        raise(SIGTERM);
    _exit(0);
}

Test(faults, sigterm_is_not_caught)
{
    struct pe_job job = {.npes = 2, .body = dies_by_sigterm_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.term_signal[0], SIGTERM, "PE 0 ended with exit code %d, signal %d",
                 out.exit_code[0], out.term_signal[0]);
}

/* The same with libfabric loaded (when this build has it): the signal
 * dispositions of the program survive loading it. */
Test(faults, sigterm_is_not_caught_over_ofi)
{
#ifndef SYM_HAVE_OFI
    cr_skip_test("SKIPPED: built without libfabric");
#endif
    static const char *const env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
                                      NULL};
    struct pe_job job = {.npes = 2, .body = dies_by_sigterm_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.term_signal[0], SIGTERM, "PE 0 ended with exit code %d, signal %d",
                 out.exit_code[0], out.term_signal[0]);
}

/* libfabric's shm provider keeps each endpoint's region in /dev/shm as
 * "<pid>:<n>:<n>" and unlinks it only when the endpoint closes: a PE killed
 * over that provider would leave it behind.  The launcher removes the
 * regions named after its dead PEs (src/launch/launcher.c). */
static int provider_regions_of(pid_t pid)
{
    char prefix[32];
    int plen = snprintf(prefix, sizeof prefix, "%ld:", (long)pid);
    DIR *dir = opendir("/dev/shm");
    if (dir == NULL)
        return -1;
    int count = 0;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL)
        if (strncmp(de->d_name, prefix, (size_t)plen) == 0)
            count++;
    closedir(dir);
    return count;
}

static void killed_over_shm_provider_body(int me, int n, void *arg)
{
    (void)n;
    PE_OK(sym_init());
    if (me == 0) {
        /* Say which pid to look for, and that its region existed. */
        FILE *f = fopen((const char *)arg, "w");
        if (f == NULL)
            _exit(3);
        fprintf(f, "%ld %d\n", (long)getpid(), provider_regions_of(getpid()));
        fclose(f);
        raise(SIGKILL);
    }
    pe_ignore(sym_barrier_all()); /* fails: PE 0 is gone */
    _exit(0);
}

Test(faults, killed_pe_leaves_no_provider_region)
{
#ifndef SYM_HAVE_OFI
    cr_skip_test("SKIPPED: built without libfabric");
#endif
    static const char *const env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=shm", NULL};
    char path[64];
    snprintf(path, sizeof path, "/tmp/symheap-faults-region-%ld", (long)getpid());
    unlink(path);
    struct pe_job job = {
        .npes = 2, .body = killed_over_shm_provider_body, .arg = path, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    long pid = 0;
    int before = -1;
    FILE *f = fopen(path, "r");
    cr_assert_not_null(f, "PE 0 did not report its pid (exit %d, signal %d)", out.exit_code[0],
                       out.term_signal[0]);
    int got = fscanf(f, "%ld %d", &pid, &before);
    fclose(f);
    unlink(path);
    cr_assert_eq(got, 2, "PE 0's report is malformed");
    cr_assert_eq(out.term_signal[0], SIGKILL, "PE 0 ended with exit code %d, signal %d",
                 out.exit_code[0], out.term_signal[0]);
    cr_assert_gt(before, 0, "PE 0 (pid %ld) had no libfabric shm region to leak", pid);
    int after = provider_regions_of((pid_t)pid);
    cr_assert_eq(after, 0, "%d libfabric shm region(s) /dev/shm/%ld:* outlived the killed PE",
                 after, pid);
}
