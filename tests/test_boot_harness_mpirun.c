/*
 * test_boot_harness_mpirun.c - the test harness's mpirun launcher
 * (SYMHEAP_TEST_LAUNCHER=mpirun): its PEs are PMIx clients of one mpirun
 * job, a failing PE is named with its own status, a hung job ends whole at
 * its timeout, and bootstrap errors name the PE and the step.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "boot_jobs.h"
#include "bootstrap/bootstrap.h"
#include "harness.h"
#include "core/internal.h"

#ifdef SYM_HAVE_PMIX
#include <pmix.h>
#endif

/* Each PE of a harness job started through mpirun must be that rank's
 * PMIx client: joined by the pmix bootstrap, as the rank mpirun gave it,
 * all in one namespace (one mpirun job). */
static void pmix_identity_body(int me, int npes, void *arg)
{
    (void)arg;
    const char *boot = sym_core_boot() ? sym_core_boot()->ops->name : "none";
    PE_ASSERT(!strcmp(boot, "pmix"), "joined through the %s bootstrap, not pmix", boot);
    const char *rank = getenv("PMIX_RANK"), *size = getenv("OMPI_COMM_WORLD_SIZE");
    const char *ns = getenv("PMIX_NAMESPACE");
    PE_ASSERT(rank && atoi(rank) == me, "PMIX_RANK=%s, PE %d", rank ? rank : "(unset)", me);
    PE_ASSERT(size && atoi(size) == npes, "OMPI_COMM_WORLD_SIZE=%s, %d PEs",
              size ? size : "(unset)", npes);
    PE_ASSERT(ns && strlen(ns) < 256, "PMIX_NAMESPACE=%s", ns ? ns : "(unset)");
    char *mine = sym_malloc(256), theirs[256];
    PE_ASSERT(mine, "sym_malloc: %s", sym_last_error());
    snprintf(mine, 256, "%s", ns);
    PE_OK(sym_barrier_all());
    PE_OK(sym_get(theirs, mine, 256, (me + 1) % npes));
    PE_ASSERT(!strcmp(theirs, ns), "PE %d is in namespace %s, PE %d in %s", me, ns, (me + 1) % npes,
              theirs);
    PE_OK(sym_barrier_all());
    sym_free(mine);
}

Test(harness_mpirun, pes_are_pmix_clients_of_mpirun)
{
    if (!bjob_have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    struct pe_job job = {.npes = 3, .body = pmix_identity_body};
    struct pe_outcome out;
    harness_mpirun_job_run(&job, &out);
    assert_job_ok(&out);
    cr_assert_eq(out.job_exit_code, 0, "mpirun exited %d", out.job_exit_code);
}

/* Nothing of the last mpirun job is left: its directory (socket, Open MPI
 * session), and no process carrying it in its arguments (proxies). */
static void assert_mpirun_job_gone(void)
{
    const char *dir = harness_mpirun_last_dir();
    cr_assert(dir[0], "no mpirun job ran");
    struct stat st;
    cr_assert(stat(dir, &st) != 0, "%s outlived the job", dir);
    DIR *d = opendir("/proc");
    cr_assert(d);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        char path[300], args[4096];
        snprintf(path, sizeof(path), "/proc/%s/cmdline", de->d_name);
        int fd = open(path, O_RDONLY);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, args, sizeof(args) - 1);
        close(fd);
        for (ssize_t i = 0; i < n - 1; i++)
            if (args[i] == '\0')
                args[i] = ' ';
        args[n > 0 ? n : 0] = '\0';
        cr_assert(!strstr(args, dir), "process %s (%s) outlived the job", de->d_name, args);
    }
    closedir(d);
}

static void exit3_on_pe1_body(int me, int npes, void *arg)
{
    (void)npes;
    (void)arg;
    if (me == 1) {
        fflush(NULL);
        _exit(3);
    }
}

/* A failing PE is reported as that PE, with its own status. */
Test(harness_mpirun, failing_pe_named)
{
    if (!bjob_have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    struct pe_job job = {.npes = 3, .body = exit3_on_pe1_body, .job_timeout_s = 60};
    struct pe_outcome out;
    harness_mpirun_job_run(&job, &out);
    cr_assert(!out.timed_out, "the job timed out");
    cr_assert_eq(out.exit_code[1], 3, "PE 1 exited %d, expected 3", out.exit_code[1]);
    cr_assert_eq(out.term_signal[1], 0);
    cr_assert_neq(out.job_exit_code, 0, "mpirun exited 0 with PE 1 failed");
    cr_assert_eq(out.leftover_objects, 0);
    assert_mpirun_job_gone();
}

static void pe1_hangs_body(int me, int npes, void *arg)
{
    (void)npes;
    (void)arg;
    if (me == 1)
        for (;;)
            pause();
}

/* A hung job: the PEs, mpirun and its proxies all end at the timeout. */
Test(harness_mpirun, timeout_ends_everything)
{
    if (!bjob_have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    struct pe_job job = {.npes = 2, .body = pe1_hangs_body, .job_timeout_s = 4};
    struct pe_outcome out;
    harness_mpirun_job_run(&job, &out);
    cr_assert(out.timed_out, "a PE that never ends did not time the job out");
    cr_assert_eq(out.term_signal[1], SIGKILL, "PE 1 ended with exit %d", out.exit_code[1]);
    cr_assert(out.seconds < harness_seconds(4) + 15, "the job took %.1f s", out.seconds);
    cr_assert_eq(out.leftover_objects, 0);
    assert_mpirun_job_gone();
}

/* Bootstrap errors name the PE and the step.  PE 1 is a PMIx client that
 * never fences (under mpirun every rank must call PMIx_Init once one has),
 * so PE 0's first fence (the job key) times out through PMIx; PE 1 stays
 * until PE 0 says it checked the error (a pipe, bounded below the job's
 * limit, so a PE 0 that hangs is named). */
static void pmix_error_body(int me, int npes, void *arg)
{
    (void)npes;
    int *fds = arg;
    if (me == 1) {
#ifdef SYM_HAVE_PMIX
        pmix_proc_t self;
        pmix_status_t rc = PMIx_Init(&self, NULL, 0);
        PE_ASSERT(rc == PMIX_SUCCESS, "PMIx_Init: %s", PMIx_Error_string(rc));
        struct pollfd p = {.fd = fds[0], .events = POLLIN};
        char c;
        PE_ASSERT(poll(&p, 1, 30000) == 1 && read(fds[0], &c, 1) == 1,
                  "PE 0 did not get its error within 30 s");
        PMIx_Finalize(NULL, 0);
#endif
        return;
    }
    sym_status_t st = sym_init();
    const char *msg = sym_last_error();
    PE_ASSERT(st == SYM_ERR_TIMEOUT, "sym_init returned %s: %s", sym_status_name(st), msg);
    PE_ASSERT(strstr(msg, "sym_init (pmix bootstrap, PE 0, job key): PMIx_Fence_nb failed: "),
              "the error does not name PE 0 and the step: %s", msg);
    PE_ASSERT(write(fds[1], "x", 1) == 1, "write: %s", strerror(errno));
}

Test(harness_mpirun, bootstrap_error_names_pe_and_step)
{
    if (!bjob_have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
#ifndef SYM_HAVE_PMIX
    cr_skip_test("SKIPPED: symheap built without PMIx");
#endif
    int fds[2];
    cr_assert(pipe(fds) == 0);
    const char *env[] = {harness_timeout_env(2), NULL};
    struct pe_job job = {.npes = 2,
                         .body = pmix_error_body,
                         .arg = fds,
                         .raw = true,
                         .env = env,
                         .job_timeout_s = 60};
    struct pe_outcome out;
    harness_mpirun_job_run(&job, &out);
    close(fds[0]);
    close(fds[1]);
    assert_job_ok(&out);
}
