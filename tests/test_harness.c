/*
 * test_harness.c - the harness runs PEs the way SYMHEAP_TEST_LAUNCHER says,
 * and keeps its guarantees under every launcher: the PEs really joined the
 * job that way, a failing PE is named, a hung job is killed at its timeout
 * and the objects a PE leaves in /dev/shm are counted, then removed.
 *
 * Suite `launcher` runs under whatever launcher is in effect (CI runs it
 * under each); suite `launcher_tcp` forces the TCP rendezvous, so the
 * default run covers that launcher too.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "harness.h"
#include "core/internal.h"

/* Every job here has 3 PEs: PE 0, the rendezvous root, serves two others. */
#define NPES 3

/* The jobs run through pe_job_run honour SYMHEAP_TEST_PES as run_pes does. */
static void skip_unless_listed(void)
{
    if (!harness_pes_listed(NPES))
        cr_skip_test("SYMHEAP_TEST_PES=%s leaves jobs of %d PEs out", getenv("SYMHEAP_TEST_PES"),
                     NPES);
}

static void assert_env(const char *name, bool set)
{
    const char *v = getenv(name);
    PE_ASSERT((v != NULL) == set, "%s is %s%s%s", name, v ? "set to '" : "unset", v ? v : "",
              v ? "'" : "");
}

/* A PE checks that it joined through the bootstrap `arg` names, and that
 * the environment holds that launcher's variables and not the other's. */
static void in_effect_body(int me, int npes, void *arg)
{
    (void)me;
    const char *want = arg;
    const char *name = sym_core_boot()->ops->name;
    PE_ASSERT(!strcmp(name, want), "joined through the %s bootstrap, not %s", name, want);
    const bool tcp = !strcmp(want, "tcp");
    assert_env("SYMHEAP_ROOT_ADDR", tcp);
    assert_env("SYMHEAP_RANK", tcp);
    assert_env("SYMHEAP_SIZE", tcp);
    assert_env("SYMHEAP_SYMRUN_FD", !tcp);
    assert_env("SYMHEAP_SYMRUN_PE", !tcp);
    assert_env("SYMHEAP_SYMRUN_NPES", !tcp);
    PE_ASSERT(!tcp || !strcmp(getenv("SYMHEAP_BOOTSTRAP"), "tcp"), "SYMHEAP_BOOTSTRAP=%s",
              getenv("SYMHEAP_BOOTSTRAP"));
    /* symrun's segment is reachable from no PE of a rendezvous job */
    PE_ASSERT(tcp == (sym_core_job() == NULL), "the job control segment is %smapped",
              sym_core_job() ? "" : "not ");
    PE_ASSERT(npes == NPES, "%d PEs", npes);
    PE_OK(sym_barrier_all());
}

Test(launcher, in_effect, .timeout = HARNESS_CR_TIMEOUT(60))
{
    run_pes(NPES, in_effect_body, (void *)harness_launcher());
}

/* The launcher's own variables win over the job's: a job cannot make its
 * PEs join symrun's segment (or another rendezvous) by accident. */
Test(launcher_tcp, in_effect, .timeout = HARNESS_CR_TIMEOUT(60))
{
    const char *const env[] = {"SYMHEAP_BOOTSTRAP=symrun", "SYMHEAP_SYMRUN_FD=99",
                               "SYMHEAP_ROOT_ADDR=127.0.0.1:9", NULL};
    skip_unless_listed();
    struct pe_job job = {
        .npes = NPES, .body = in_effect_body, .arg = "tcp", .env = env, .launcher = "tcp"};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* PE 1 leaves an object named as the library names its own (job key,
 * owner), as a PE killed inside sym_init would: under symrun the launcher
 * owns the job's objects, under the rendezvous each PE owns its own and
 * PE 0 drew the key, so the count must follow the names, not the launcher's
 * key. */
static void leak_body(int me, int npes, void *arg)
{
    (void)npes;
    (void)arg;
    if (me != 1)
        return;
    char name[256];
    snprintf(name, sizeof(name), SYM_SHM_NAME_FMT, (unsigned)getuid(), sym_core_boot()->key,
             sym_core_boot()->owner, "leak");
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    PE_ASSERT(fd >= 0, "shm_open %s: %s", name, strerror(errno));
    close(fd);
}

static void leftover_counted(const char *launcher)
{
    skip_unless_listed();
    struct pe_job job = {.npes = NPES, .body = leak_body, .launcher = launcher};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    for (int i = 0; i < NPES; i++)
        cr_assert_eq(out.exit_code[i], 0, "PE %d ended with %d", i, out.exit_code[i]);
    cr_assert_eq(out.leftover_objects, 1, "%d objects of the job counted, 1 left by PE 1",
                 out.leftover_objects);
    /* and swept: nothing of this user named "...-leak" is left */
    char prefix[64];
    snprintf(prefix, sizeof(prefix), SYM_SHM_PREFIX "%u-", (unsigned)getuid());
    int again = 0;
    DIR *dir = opendir("/dev/shm");
    cr_assert(dir, "opendir /dev/shm: %s", strerror(errno));
    for (struct dirent *de; (de = readdir(dir)) != NULL;) {
        size_t n = strlen(de->d_name);
        if (n > 5 && !strcmp(de->d_name + n - 5, "-leak") &&
            !strncmp(de->d_name, prefix, strlen(prefix)))
            again++;
    }
    closedir(dir);
    cr_assert_eq(again, 0, "%d leaked objects still in /dev/shm after the job", again);
}

Test(launcher, leftover_counted, .timeout = HARNESS_CR_TIMEOUT(60))
{
    leftover_counted(harness_launcher());
}

Test(launcher_tcp, leftover_counted, .timeout = HARNESS_CR_TIMEOUT(60))
{
    leftover_counted("tcp");
}

/* PE 2 fails after a barrier: the harness must report the failure under
 * the PE number the PE had in the job (its rank), and the others must
 * learn it from the rendezvous (no PE of this job sees the launcher's
 * segment) and name it.
 * Each survivor records what its barrier said in memory shared with the
 * test process and leaves only once both have: a survivor that left
 * first would be the death the other one reports. */
struct fail_report {
    int done;      /* survivors that recorded their result */
    int status[2]; /* sym_status_t of the barrier after the failure */
    char message[2][256];
};

static void one_fails_body(int me, int npes, void *arg)
{
    struct fail_report *r = arg;
    PE_OK(sym_barrier_all());
    if (me == npes - 1)
        PE_ASSERT(false, "PE %d fails on purpose", me);
    r->status[me] = sym_barrier_all();
    snprintf(r->message[me], sizeof(r->message[me]), "%s", sym_last_error());
    __atomic_fetch_add(&r->done, 1, __ATOMIC_RELEASE);
    const double deadline = harness_now() + harness_seconds(20);
    while (__atomic_load_n(&r->done, __ATOMIC_ACQUIRE) < npes - 1) {
        PE_ASSERT(harness_now() < deadline, "the other survivor never reported");
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    _exit(0);
}

Test(launcher_tcp, failing_pe_named, .timeout = HARNESS_CR_TIMEOUT(60))
{
    skip_unless_listed();
    struct fail_report *r =
        mmap(NULL, sizeof(*r), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(r != MAP_FAILED, "mmap: %s", strerror(errno));
    struct pe_job job = {.npes = NPES, .body = one_fails_body, .arg = r, .launcher = "tcp"};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert(!out.timed_out, "the job timed out");
    cr_assert_eq(out.exit_code[2], 1, "PE 2 ended with %d, not its failure (1)", out.exit_code[2]);
    for (int i = 0; i < 2; i++) {
        cr_assert_eq(out.exit_code[i], 0, "PE %d ended with %d (see above)", i, out.exit_code[i]);
        cr_assert(r->status[i] == SYM_ERR_PEER_LOST && strstr(r->message[i], "PE 2 "),
                  "PE %d's barrier after PE 2 failed returned %s: %s", i,
                  sym_status_name(r->status[i]), r->message[i]);
    }
    cr_assert_eq(out.leftover_objects, 0, "%d objects left", out.leftover_objects);
    munmap(r, sizeof(*r));
}

/* Every PE hangs outside the library: only the job timeout ends it. */
static void hang_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    for (;;)
        pause();
}

Test(launcher_tcp, hang_killed_at_job_timeout, .timeout = HARNESS_CR_TIMEOUT(60))
{
    const double limit = 2;
    skip_unless_listed();
    struct pe_job job = {
        .npes = NPES, .body = hang_body, .job_timeout_s = limit, .launcher = "tcp"};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert(out.timed_out, "the job did not time out");
    for (int i = 0; i < NPES; i++)
        cr_assert_eq(out.term_signal[i], SIGTERM, "PE %d ended with %d, not SIGTERM", i,
                     out.exit_code[i]);
    /* the launcher sends SIGTERM at the limit, SIGKILL 1 s later */
    cr_assert(out.seconds >= harness_seconds(limit) && out.seconds < harness_seconds(limit + 3),
              "the job ended after %.2f s, limit %.1f s", out.seconds, harness_seconds(limit));
    cr_assert_eq(out.leftover_objects, 0, "%d objects left", out.leftover_objects);
}
