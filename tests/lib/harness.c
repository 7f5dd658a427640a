/* harness.c - run test bodies on real PEs through the launcher. */
#include "harness.h"

#include <criterion/criterion.h>
#include <stdarg.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>

#include "harness_tcp.h"
#include "launch/launcher.h"

/* Small heaps keep 8-PE jobs cheap; short timeouts make a hang fail fast. */
static const char *const default_env[] = {
    "SYMHEAP_HEAP_SIZE=16M",
    "SYMHEAP_MAILBOX_SIZE=1M",
    "SYMHEAP_TIMEOUT=30",
    NULL,
};

/* Sanitizer builds: a UBSan report ends the process, so a PE's report
 * fails its test even when UBSAN_OPTIONS is unset (it can still override
 * this; .ci/test adds a log_path).  Inert in other builds. */
__attribute__((visibility("default"), used)) const char *__ubsan_default_options(void);
const char *__ubsan_default_options(void)
{
    return "halt_on_error=1:print_stacktrace=1";
}

#ifndef HARNESS_BUILD_TIME_SCALE
#define HARNESS_BUILD_TIME_SCALE 1
#endif

double harness_time_scale(void)
{
    static double scale;
    if (scale == 0) {
        const char *s = getenv("SYMHEAP_TEST_TIME_SCALE");
        char *end = NULL;
        double v = s && *s ? strtod(s, &end) : 0;
        if (s && *s && (*end != '\0' || !(v >= 1 && v <= 1000))) {
            fprintf(stderr, "SYMHEAP_TEST_TIME_SCALE='%s' is not a number from 1 to 1000\n", s);
            abort();
        }
        scale = v >= 1 ? v : HARNESS_BUILD_TIME_SCALE;
    }
    return scale;
}

double harness_seconds(double s)
{
    return s * harness_time_scale();
}

static char *harness_slot(void)
{
    static char slots[16][64];
    static unsigned next;
    return slots[next++ % 16];
}

const char *harness_timeout_env(double s)
{
    char *b = harness_slot();
    snprintf(b, 64, "SYMHEAP_TIMEOUT=%g", harness_seconds(s));
    return b;
}

const char *harness_timeout_text(double s)
{
    char *b = harness_slot();
    const double t = harness_seconds(s);
    snprintf(b, 64, "timed out after %.*f s", t < 0.05 ? 3 : 1, t); /* as deadline.c prints it */
    return b;
}

double harness_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

const char *harness_launcher(void)
{
    static const char *chosen;
    if (!chosen) {
        const char *s = getenv("SYMHEAP_TEST_LAUNCHER");
        if (!s || !*s || !strcmp(s, "symrun")) {
            chosen = "symrun";
        } else if (!strcmp(s, "tcp")) {
            chosen = "tcp";
        } else if (!strcmp(s, "mpirun")) {
            chosen = "mpirun";
        } else {
            fprintf(stderr, "SYMHEAP_TEST_LAUNCHER='%s' is not one of symrun, tcp, mpirun\n", s);
            abort();
        }
    }
    return chosen;
}

void harness_require_symrun(const char *why)
{
    if (strcmp(harness_launcher(), "symrun") != 0)
        cr_skip_test("SYMHEAP_TEST_LAUNCHER=%s: %s", getenv("SYMHEAP_TEST_LAUNCHER"), why);
}

const char *harness_killed_words(void)
{
    return !strcmp(harness_launcher(), "tcp") ? "without finalizing" : "signal 9";
}

void pe_fail(const char *file, int line, const char *expr, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "PE %d: %s:%d: check `%s` failed: %s\n", sym_my_pe(), file, line, expr, msg);
    fflush(NULL);
    _exit(1);
}

int harness_pe_main(int pe, int npes, void *arg)
{
    const struct pe_job *job = arg;
    (void)npes;
    if (!job->raw) {
        sym_status_t st = sym_init();
        if (st != SYM_OK) {
            fprintf(stderr, "PE %d: sym_init failed: %s: %s\n", pe, sym_status_name(st),
                    sym_last_error());
            return 1;
        }
    }
    job->body(job->raw ? pe : sym_my_pe(), job->raw ? npes : sym_n_pes(), job->arg);
    if (!job->raw) {
        sym_status_t st = sym_finalize();
        if (st != SYM_OK) {
            fprintf(stderr, "PE %d: sym_finalize failed: %s: %s\n", pe, sym_status_name(st),
                    sym_last_error());
            return 1;
        }
    }
    return 0;
}

void harness_skip_if_launcher_ends_job_on_kill(void)
{
    if (!strcmp(harness_launcher(), "mpirun"))
        cr_skip_test("SYMHEAP_TEST_LAUNCHER=mpirun: mpirun ends the whole job when a PE is "
                     "killed (SIGTERM to the survivors), so their report of the loss cannot be "
                     "awaited");
}

size_t harness_job_env(const struct pe_job *job, const char *env[64])
{
    /* defaults first, the job's own entries after them so they win */
    size_t n = 0;
    /* the default library timeout scales with the test's time limits */
    for (size_t i = 0; default_env[i]; i++)
        env[n++] = strncmp(default_env[i], "SYMHEAP_TIMEOUT=", 16) == 0
                       ? harness_timeout_env(strtod(default_env[i] + 16, NULL))
                       : default_env[i];
    for (size_t i = 0; job->env && job->env[i] && n < 63; i++)
        env[n++] = job->env[i];
    env[n] = NULL;
    return n;
}

void pe_job_run(const struct pe_job *job, struct pe_outcome *out)
{
    memset(out, 0, sizeof(*out));
    out->npes = job->npes;
    if (job->npes < 1 || job->npes > HARNESS_MAX_PES)
        cr_assert_fail("pe_job_run: %d PEs is outside 1..%d", job->npes, HARNESS_MAX_PES);
    const char *launcher = job->launcher ? job->launcher : harness_launcher();
    if (!strcmp(launcher, "mpirun")) {
        harness_mpirun_job_run(job, out);
        return;
    }
    const char *env[64];
    harness_job_env(job, env);

    char root_addr[64];
    struct sym_launch_opts opts = {
        .npes = job->npes,
        .body = harness_pe_main,
        .body_arg = (void *)job,
        .job_timeout_s = harness_seconds(job->job_timeout_s > 0 ? job->job_timeout_s : 120),
        .grace_s = harness_seconds(job->grace_s > 0 ? job->grace_s : 5),
        .env = env,
        .quiet = false,
        .keep_objects = false, /* res.objects_left: what the library left, then swept */
        .tcp_root_addr =
            !strcmp(launcher, "tcp") ? harness_tcp_root_addr(root_addr, sizeof(root_addr)) : NULL,
    };
    struct sym_launch_result res;
    double t0 = harness_now();
    fflush(NULL); /* the children must not re-flush our buffers */
    if (sym_launch_run(&opts, &res) != 0)
        cr_assert_fail("pe_job_run: the launcher could not start %d PEs", job->npes);
    out->seconds = harness_now() - t0;
    out->job_exit_code = res.exit_code;
    out->timed_out = res.timed_out;
    for (int i = 0; i < job->npes; i++) {
        int ws = res.wait_status[i];
        if (WIFSIGNALED(ws)) {
            out->term_signal[i] = WTERMSIG(ws);
            out->exit_code[i] = 128 + WTERMSIG(ws);
        } else {
            out->exit_code[i] = WEXITSTATUS(ws);
        }
    }
    out->leftover_objects = res.objects_left;
    sym_launch_result_free(&res);
}

void assert_job_ok(const struct pe_outcome *out)
{
    char failed[512] = "";
    size_t used = 0;
    for (int i = 0; i < out->npes; i++)
        if (out->exit_code[i] != 0 && used < sizeof(failed))
            used += (size_t)snprintf(failed + used, sizeof(failed) - used, " PE %d (%s %d)", i,
                                     out->term_signal[i] ? "signal" : "exit",
                                     out->term_signal[i] ? out->term_signal[i] : out->exit_code[i]);
    cr_assert(!out->timed_out, "the %d-PE job timed out (see PE messages above)", out->npes);
    cr_assert(used == 0, "%d-PE job failed on:%s (see PE messages above)", out->npes, failed);
    cr_assert(out->leftover_objects == 0,
              "%d shared-memory objects of the job were left in "
              "/dev/shm",
              out->leftover_objects);
}

/* SYMHEAP_TEST_PES="2,3": run jobs of these sizes only, for stages that
 * repeat the suite on a slower transport (.ci/test's ofi stages).  Any
 * other size is reported as skipped, with the reason, never as passed. */
bool harness_pes_listed(int npes)
{
    const char *list = getenv("SYMHEAP_TEST_PES");
    if (!list || !*list)
        return true;
    for (const char *p = list; *p;) {
        char *end;
        long v = strtol(p, &end, 10);
        if (end == p)
            return false;
        if (v == npes)
            return true;
        if (*end && *end != ',')
            return false;
        p = *end ? end + 1 : end;
    }
    return false;
}

static void skip_unlisted_size(int npes)
{
    if (!harness_pes_listed(npes))
        cr_skip_test("SYMHEAP_TEST_PES=%s leaves jobs of %d PEs out", getenv("SYMHEAP_TEST_PES"),
                     npes);
}

void run_pes_env(int npes, const char *const *env, pe_body_fn body, void *arg)
{
    skip_unlisted_size(npes);
    struct pe_job job = {.npes = npes, .body = body, .arg = arg, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

void run_pes(int npes, pe_body_fn body, void *arg)
{
    run_pes_env(npes, NULL, body, arg);
}
