/*
 * test_boot_pmix.c - jobs started by a launcher through PMIx: Open MPI's
 * mpirun and Slurm's srun (a private one-node Slurm, boot_slurm.c), each PE
 * running the self-checking program boot_pe ($BOOT_PE); and a PE that
 * asks for PMIx with no launcher behind it.
 *
 * Covered: the checks over shm and ofi; the bootstrap's barrier driving
 * libfabric progress; a killed PE (the launcher ends the job, no survivor
 * fails its checks); PMIx errors naming the PE and the step.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "boot_jobs.h"
#include "boot_slurm.h"

/* A launcher's job where one PE was killed: no survivor may have failed
 * its own checks on the way (boot_pe prints "boot_pe: PE" when it does). */
static void assert_survivors_passed(struct bjob *job)
{
    static char copy[8192];
    char *out = bjob_output(job, 0);
    snprintf(copy, sizeof(copy), "%s", out ? out : "");
    free(out);
    cr_assert(!strstr(copy, "boot_pe: PE"), "a survivor failed its checks:\n%s", copy);
}

/* ---- mpirun through PMIx ------------------------------------------------ */

/* Open MPI's mpirun as root, PEs oversubscribing the two cores, its
 * out-of-band traffic on loopback. */
static void start_mpirun(struct bjob *job, int np, const char *const *env, const char *mode,
                         const char *arg)
{
    char n[16];
    snprintf(n, sizeof(n), "%d", np);
    const char *pe = getenv("BOOT_PE");
    cr_assert(pe, "BOOT_PE is not set (run the test through meson)");
    const char *argv[] = {"mpirun",
                          "--allow-run-as-root",
                          "--oversubscribe",
                          "--mca",
                          "oob_tcp_if_include",
                          "lo",
                          "-np",
                          n,
                          pe,
                          mode,
                          arg,
                          NULL};
    bjob_start_argv(job, 0, argv, env);
}

ParameterizedTestParameters(boot_pmix, mpirun)
{
    /* 0: 3 PEs over shm; 1: 2 PEs with every peer through ofi (default
     * provider, tcp;ofi_rxm here); 2: 3 PEs through libfabric's shm provider */
    static int which[] = {0, 1, 2};
    return cr_make_param_array(int, which, 3);
}

ParameterizedTest(int *which, boot_pmix, mpirun)
{
    if (!bjob_have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    int np = *which == 1 ? 2 : 3;
    /* mpirun passes the environment it was started with to the PEs */
    const char *env[] = {*which ? "SYMHEAP_TRANSPORT=ofi" : "SYMHEAP_TRANSPORT=auto",
                         *which == 2 ? "SYMHEAP_OFI_PROVIDER=shm" : NULL, NULL};
    struct bjob job;
    bjob_init(&job, 1);
    start_mpirun(&job, np, env, "check", NULL);
    bjob_wait(&job, 120);
    bjob_assert_exit(&job, 0, 0);
    for (int r = 0; r < np; r++) {
        char want[64];
        char own[8];
        snprintf(own, sizeof(own), "%d ", r);
        snprintf(want, sizeof(want), "pe %d of %d ok shm:%s", r, np, *which ? own : "0,1,2 ");
        bjob_assert_output(&job, 0, want);
    }
    bjob_fini(&job);
}

/* Over tcp;ofi_rxm (manual progress) a PE's transfers may need a peer's
 * endpoint to complete while that peer already waits in the bootstrap's
 * barrier, as at sym_finalize (quiet, then the bootstrap barrier): that
 * wait must drive libfabric progress.  boot-barrier-progress makes it
 * certain (8 MiB into PE 0 while PE 0 waits); finalize-puts is the real
 * finalize after puts (where who gets there first varies). */
Test(boot_pmix, mpirun_barrier_drives_progress)
{
    if (!bjob_have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    const char *env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
                         "SYMHEAP_TIMEOUT=20", "SYMHEAP_HEAP_SIZE=64M", NULL};
    const char *modes[] = {"boot-barrier-progress", "finalize-puts"};
    const char *says[] = {"progressed", "finalized after puts"};
    for (int run = 0; run < 2; run++) {
        struct bjob job;
        bjob_init(&job, 1);
        start_mpirun(&job, 3, env, modes[run], NULL);
        bjob_wait(&job, 120);
        bjob_assert_exit(&job, 0, 0);
        for (int r = 0; r < 3; r++) {
            char want[64];
            snprintf(want, sizeof(want), "pe %d of 3 %s", r, says[run]);
            bjob_assert_output(&job, 0, want);
        }
        bjob_fini(&job);
    }
}

/* mpirun's own answer to a killed PE is to end the job (Open MPI 4.1 sends
 * no PMIx termination event): the job ends, with mpirun naming the PE,
 * and no survivor reports anything but the loss (a survivor that saw it
 * in time prints "lost: ... PE 2"; mpirun may end it first). */
Test(boot_pmix, mpirun_pe_killed)
{
    if (!bjob_have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    struct bjob job;
    bjob_init(&job, 1);
    start_mpirun(&job, 3, NULL, "die", "2");
    bjob_wait(&job, 120);
    int ws = job.p[0].status;
    cr_assert(!WIFEXITED(ws) || WEXITSTATUS(ws) != 0, "mpirun exited 0 after a PE was killed");
    bjob_assert_output(&job, 0, "rank 2");
    assert_survivors_passed(&job);
    bjob_fini(&job);
}

/* ---- srun --mpi=pmix ---------------------------------------------------- */

/* The same program, unchanged, launched by Slurm's srun through its PMIx
 * plugin on a private one-node Slurm (boot_slurm.c): over shm and over
 * ofi (default provider, and libfabric's shm), at 2 and 3 PEs on the two
 * cores (srun -O: more tasks than the node's CPUs). */
/* Start the private Slurm, or skip the test saying what is missing. */
static void start_slurm(struct bslurm *slurm)
{
    const char *missing = bslurm_missing();
    if (missing)
        cr_skip_test("SKIPPED: %s", missing);
    cr_assert(getenv("BOOT_PE"), "BOOT_PE is not set (run the test through meson)");
    char why[2048];
    cr_assert(bslurm_start(slurm, 20, why, sizeof(why)), "%s", why);
    char plugins[64] = "";
    char cmd[256];
    snprintf(cmd, sizeof(cmd), "%s srun --mpi=list 2>&1 | grep -c -w pmix", slurm->conf_env);
    FILE *p = popen(cmd, "r");
    if (p) {
        if (!fgets(plugins, sizeof(plugins), p))
            plugins[0] = '\0';
        pclose(p);
    }
    if (atoi(plugins) == 0) {
        bslurm_stop(slurm);
        cr_skip_test("SKIPPED: srun --mpi=list names no pmix plugin (mpi_pmix.so, in "
                     "slurm-wlm-basic-plugins)");
    }
}

Test(boot_pmix, srun)
{
    struct bslurm slurm;
    start_slurm(&slurm);
    const char *pe = getenv("BOOT_PE");
    static const struct {
        int np;
        const char *transport, *provider;
    } runs[] = {
        {2, "SYMHEAP_TRANSPORT=auto", NULL},
        {3, "SYMHEAP_TRANSPORT=auto", NULL},
        {2, "SYMHEAP_TRANSPORT=ofi", NULL},
        {3, "SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=shm"},
    };
    for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
        char n[16];
        snprintf(n, sizeof(n), "%d", runs[k].np);
        const char *argv[] = {"srun", "--mpi=pmix", "-O", "-n", n, pe, "check", NULL};
        const char *env[] = {slurm.conf_env, runs[k].transport, runs[k].provider, NULL};
        struct bjob job;
        bjob_init(&job, 1);
        bjob_start_argv(&job, 0, argv, env);
        bjob_wait(&job, 60);
        bjob_assert_exit(&job, 0, 0);
        bool ofi = strstr(runs[k].transport, "ofi") != NULL;
        for (int r = 0; r < runs[k].np; r++) {
            char want[64], own[16];
            snprintf(own, sizeof(own), "%d ", r);
            snprintf(want, sizeof(want), "pe %d of %d ok shm:%s", r, runs[k].np,
                     ofi               ? own
                     : runs[k].np == 2 ? "0,1 "
                                       : "0,1,2 ");
            bjob_assert_output(&job, 0, want);
        }
        bjob_fini(&job);
    }
    bslurm_stop(&slurm);
}

/* A PE killed under srun: Slurm ends the step and names the task (its
 * PMIx plugin's error handler sees the abort); no survivor reports
 * anything but the loss (one that saw it in time prints "lost: ... PE 2";
 * over shm they do, before Slurm ends them). */
Test(boot_pmix, srun_pe_killed)
{
    struct bslurm slurm;
    start_slurm(&slurm);
    const char *argv[] = {"srun", "--mpi=pmix", "-O", "-n", "3", getenv("BOOT_PE"),
                          "die",  "2",          NULL};
    const char *env[] = {slurm.conf_env, NULL};
    struct bjob job;
    bjob_init(&job, 1);
    bjob_start_argv(&job, 0, argv, env);
    bjob_wait(&job, 60);
    int ws = job.p[0].status;
    cr_assert(!WIFEXITED(ws) || WEXITSTATUS(ws) != 0, "srun exited 0 after a PE was killed");
    bjob_assert_output(&job, 0, "task 2: Killed");
    assert_survivors_passed(&job);
    bjob_fini(&job);
    bslurm_stop(&slurm);
}

/* A PMIx error of an srun-launched PE names that PE and the step: PEs 0
 * and 2 fence for the job key while PE 1 (a shell, no PMIx client) stays
 * until both have reported their timeout, then leaves (the file "go"). */
Test(boot_pmix, srun_bootstrap_error_names_pe)
{
    struct bslurm slurm;
    start_slurm(&slurm);
    char conf[160], go[160];
    snprintf(conf, sizeof(conf), "%s/multi-prog.conf", slurm.dir);
    snprintf(go, sizeof(go), "%s/go", slurm.dir);
    FILE *f = fopen(conf, "w");
    cr_assert(f, "%s: %s", conf, strerror(errno));
    /* PE 1 waits at most 60 s */
    fprintf(f,
            "0,2 %s init-fails SYM_ERR_TIMEOUT\n"
            "1 /bin/sh -c 'i=0; while [ ! -e %s ] && [ $i -lt 1200 ]; do sleep 0.05; "
            "i=$((i+1)); done'\n",
            getenv("BOOT_PE"), go);
    cr_assert(fclose(f) == 0);
    const char *argv[] = {"srun", "--mpi=pmix", "-O", "-n", "3", "--multi-prog", conf, NULL};
    const char *env[] = {slurm.conf_env, "SYMHEAP_TIMEOUT=2", NULL};
    struct bjob job;
    bjob_init(&job, 1);
    bjob_start_argv(&job, 0, argv, env);
    static const char *want[] = {
        "init failed: SYM_ERR_TIMEOUT: sym_init (pmix bootstrap, PE 0, job key): "
        "PMIx_Fence_nb failed: ",
        "init failed: SYM_ERR_TIMEOUT: sym_init (pmix bootstrap, PE 2, job key): "
        "PMIx_Fence_nb failed: ",
    };
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (bool both = false; !both;) {
        char *out = bjob_output(&job, 0);
        both = out && strstr(out, want[0]) && strstr(out, want[1]);
        free(out);
        clock_gettime(CLOCK_MONOTONIC, &t);
        if (!both && t.tv_sec - t0.tv_sec > 30)
            break; /* bjob_assert_output below says what is missing */
        struct timespec ms20 = {0, 20000000};
        if (!both)
            nanosleep(&ms20, NULL);
    }
    int fd = open(go, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
    if (fd >= 0)
        close(fd);
    bjob_wait(&job, 60);
    bjob_assert_output(&job, 0, want[0]);
    bjob_assert_output(&job, 0, want[1]);
    bjob_assert_exit(&job, 0, 0);
    bjob_fini(&job);
    bslurm_stop(&slurm);
}

Test(boot_pmix, no_launcher)
{
    struct bjob job;
    bjob_init(&job, 2);
    bjob_start(&job, 0, NULL, (const char *[]){"SYMHEAP_BOOTSTRAP=pmix", NULL},
               (const char *[]){"init-fails", "SYM_ERR_BOOTSTRAP", NULL});
    bjob_start(&job, 1, NULL, (const char *[]){"PMIX_NAMESPACE=not-a-job", "PMIX_RANK=1", NULL},
               (const char *[]){"init-fails", "SYM_ERR_BOOTSTRAP", NULL});
    bjob_wait(&job, 60);
    /* the PE as far as it is known (PMIx never told it), and the step */
    const char *where[] = {"sym_init (pmix bootstrap, PE ? (PMIX_RANK is unset), PMIx_Init): "
                           "PMIx_Init failed",
                           "sym_init (pmix bootstrap, PE 1 (by PMIX_RANK), PMIx_Init): "
                           "PMIx_Init failed"};
    for (int r = 0; r < 2; r++) {
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r, where[r]);
        bjob_assert_output(&job, r, "is the program started by mpirun");
    }
    bjob_fini(&job);
}
