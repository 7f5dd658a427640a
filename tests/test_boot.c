/*
 * test_boot.c - jobs that symrun does not start: PEs started by hand with
 * the TCP rendezvous (SYMHEAP_RANK, SYMHEAP_SIZE, SYMHEAP_ROOT_ADDR), and
 * by mpirun and by Slurm's srun (a private one-node Slurm, boot_slurm.c) through
 * PMIx.  Each PE runs the self-checking program boot_pe
 * ($BOOT_PE) with its own output file; the test checks every PE's exit
 * status and what it printed.
 *
 * Covered: put/get/atomics/barrier/allreduce at 1..5 PEs; a PE that never
 * shows up (and a missing root): every PE reports it, naming it, within
 * the timeout; a killed PE (and a killed root): the survivors get
 * SYM_ERR_PEER_LOST naming it; a busy or foreign root address, a malformed
 * one, and inconsistent SYMHEAP_SIZE/SYMHEAP_RANK: clear errors.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dirent.h>
#include <poll.h>
#include <sys/stat.h>

#include "boot_jobs.h"
#include "boot_slurm.h"
#include "bootstrap/bootstrap.h"
#include "harness.h"
#include "core/internal.h"

#ifdef SYM_HAVE_PMIX
#include <pmix.h>
#endif

static void root_env(char *buf, size_t len, const char *host, int port)
{
    snprintf(buf, len, "SYMHEAP_ROOT_ADDR=%s:%d", host, port);
}

/* ---- data over the rendezvous ------------------------------------------ */

ParameterizedTestParameters(boot_tcp, check)
{
    static int counts[] = { 1, 2, 3, 5 };
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, boot_tcp, check)
{
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, *npes);
    for (int r = 0; r < *npes; r++)
        bjob_start_tcp(&job, r, NULL, (const char *[]){ addr, NULL },
                       (const char *[]){ "check", NULL });
    bjob_wait(&job, 60);
    for (int r = 0; r < *npes; r++) {
        bjob_assert_exit(&job, r, 0);
        char want[64];
        snprintf(want, sizeof(want), "pe %d of %d ok", r, *npes);
        bjob_assert_output(&job, r, want);
    }
    bjob_fini(&job);
}

/* The same check with every peer reached through libfabric, on both
 * providers CI has (the rendezvous launches the suite's ofi path too):
 * put/get ring, atomics from every PE, allreduce, global variables. */
struct ofi_check {
    int npes;
    char provider[40]; /* inline: the runner passes parameters by value to re-executed workers */
};

ParameterizedTestParameters(boot_tcp, check_ofi)
{
    static struct ofi_check cases[] = { { 2, "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm" },
                                        { 3, "SYMHEAP_OFI_PROVIDER=shm" } };
    return cr_make_param_array(struct ofi_check, cases, sizeof(cases) / sizeof(cases[0]));
}

ParameterizedTest(struct ofi_check *c, boot_tcp, check_ofi)
{
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, c->npes);
    for (int r = 0; r < c->npes; r++)
        bjob_start_tcp(&job, r, NULL,
                       (const char *[]){ addr, "SYMHEAP_TRANSPORT=ofi", c->provider, NULL },
                       (const char *[]){ "check", NULL });
    bjob_wait(&job, 120);
    for (int r = 0; r < c->npes; r++) {
        bjob_assert_exit(&job, r, 0);
        char want[64]; /* only my own heap is mapped: every peer went through ofi */
        snprintf(want, sizeof(want), "pe %d of %d ok shm:%d ", r, c->npes, r);
        bjob_assert_output(&job, r, want);
    }
    bjob_fini(&job);
}

/* ---- PEs that never show up -------------------------------------------- */

Test(boot_tcp, pe_never_connects)
{
    char addr[64];
    int port = bjob_free_port();
    root_env(addr, sizeof(addr), "127.0.0.1", port);
    struct bjob job;
    bjob_init(&job, 4);
    for (int r = 0; r < 4; r++)
        if (r != 2)
            bjob_start_tcp(&job, r, NULL, (const char *[]){ addr, "SYMHEAP_TIMEOUT=2", NULL },
                           (const char *[]){ "init-fails", "SYM_ERR_TIMEOUT", NULL });
    bjob_wait(&job, 30);
    char want[128];
    snprintf(want, sizeof(want), "PE 2 never connected to 127.0.0.1:%d within 2 s", port);
    for (int r = 0; r < 4; r++)
        if (r != 2) {
            bjob_assert_exit(&job, r, 0);
            bjob_assert_output(&job, r, want);
        }
    bjob_fini(&job);
}

Test(boot_tcp, root_never_listens)
{
    char addr[64];
    int port = bjob_free_port();
    root_env(addr, sizeof(addr), "127.0.0.1", port);
    struct bjob job;
    bjob_init(&job, 3);
    for (int r = 1; r < 3; r++)
        bjob_start_tcp(&job, r, NULL, (const char *[]){ addr, "SYMHEAP_TIMEOUT=1", NULL },
                       (const char *[]){ "init-fails", "SYM_ERR_TIMEOUT", NULL });
    bjob_wait(&job, 30);
    for (int r = 1; r < 3; r++) {
        char want[160];
        snprintf(want, sizeof(want),
                 "PE %d never connected to the root (PE 0) at 127.0.0.1:%d within 1 s", r,
                 port);
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r, want);
    }
    bjob_fini(&job);
}

/* ---- PEs that die ------------------------------------------------------ */

ParameterizedTestParameters(boot_tcp, killed)
{
    /* victim: a non-root PE, then the root itself */
    static int victims[] = { 2, 0 };
    return cr_make_param_array(int, victims, sizeof(victims) / sizeof(victims[0]));
}

ParameterizedTest(int *victim, boot_tcp, killed)
{
    char addr[64], arg[16];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    snprintf(arg, sizeof(arg), "%d", *victim);
    struct bjob job;
    bjob_init(&job, 4);
    for (int r = 0; r < 4; r++)
        bjob_start_tcp(&job, r, NULL, (const char *[]){ addr, NULL },
                       (const char *[]){ "die", arg, NULL });
    bjob_wait(&job, 60);
    char want[32];
    snprintf(want, sizeof(want), "lost: sym_barrier_all: PE %d ", *victim);
    for (int r = 0; r < 4; r++) {
        if (r == *victim) {
            bjob_assert_signal(&job, r, SIGKILL);
            continue;
        }
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r, want);
    }
    bjob_fini(&job);
}

/* The PEs in this job are all on one host, where shm's own process probe
 * could notice the death too; the loss must come from the bootstrap
 * connections: with the shm probe out of the picture (PEs are then
 * "remote" to each other only through ofi) that is covered by the
 * network-namespace tests.  Here: the message says where it came from. */
Test(boot_tcp, loss_relayed_by_root)
{
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, 3);
    for (int r = 0; r < 3; r++)
        bjob_start_tcp(&job, r, NULL, (const char *[]){ addr, NULL },
                       (const char *[]){ "die", "1", NULL });
    bjob_wait(&job, 60);
    bjob_assert_signal(&job, 1, SIGKILL);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_exit(&job, 2, 0);
    bjob_assert_output(&job, 0, "PE 1 lost its bootstrap connection without finalizing");
    bjob_assert_output(&job, 2, "PE 1 lost its bootstrap connection without finalizing");
    bjob_assert_output(&job, 2, "reported by the root, PE 0");
    bjob_fini(&job);
}

/* ---- bad addresses and inconsistent settings ---------------------------- */

Test(boot_tcp, busy_root_address)
{
    /* Another program already listens on the root address: PE 0 says so;
     * PE 1, which reaches that program instead, hears no symheap answer. */
    int lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t len = sizeof(a);
    cr_assert(lfd >= 0 && bind(lfd, (void *)&a, sizeof(a)) == 0 && listen(lfd, 8) == 0 &&
              getsockname(lfd, (void *)&a, &len) == 0);
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", ntohs(a.sin_port));
    struct bjob job;
    bjob_init(&job, 2);
    bjob_start_tcp(&job, 0, NULL, (const char *[]){ addr, "SYMHEAP_TIMEOUT=1", NULL },
                   (const char *[]){ "init-fails", "SYM_ERR_BOOTSTRAP", NULL });
    bjob_start_tcp(&job, 1, NULL, (const char *[]){ addr, "SYMHEAP_TIMEOUT=1", NULL },
                   (const char *[]){ "init-fails", "SYM_ERR_TIMEOUT", NULL });
    bjob_wait(&job, 30);
    close(lfd);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_output(&job, 0, "PE 0 cannot listen on 127.0.0.1:");
    bjob_assert_output(&job, 0, "Address already in use");
    bjob_assert_exit(&job, 1, 0);
    bjob_assert_output(&job, 1, "the root (PE 0) at 127.0.0.1:");
    bjob_assert_output(&job, 1, "is SYMHEAP_ROOT_ADDR the address PE 0 listens on?");
    bjob_fini(&job);
}

/* SYMHEAP_INIT_TIMEOUT, not SYMHEAP_TIMEOUT, bounds meeting the root. */
Test(boot_tcp, init_timeout_bounds_init)
{
    char addr[64];
    int port = bjob_free_port();
    root_env(addr, sizeof(addr), "127.0.0.1", port);
    struct bjob job;
    bjob_init(&job, 2);
    bjob_start_tcp(&job, 1, NULL,
                   (const char *[]){ addr, "SYMHEAP_TIMEOUT=600", "SYMHEAP_INIT_TIMEOUT=1", NULL },
                   (const char *[]){ "init-fails", "SYM_ERR_TIMEOUT", NULL });
    bjob_wait(&job, 30);
    char want[160];
    snprintf(want, sizeof(want),
             "PE 1 never connected to the root (PE 0) at 127.0.0.1:%d within 1 s", port);
    bjob_assert_exit(&job, 1, 0);
    bjob_assert_output(&job, 1, want);
    bjob_fini(&job);
}

Test(boot_tcp, root_address_not_local)
{
    /* 192.0.2.1 is TEST-NET-1: never an address of this host */
    struct bjob job;
    bjob_init(&job, 1);
    bjob_start_tcp(&job, 0, NULL,
                   (const char *[]){ "SYMHEAP_ROOT_ADDR=192.0.2.1:5000", "SYMHEAP_SIZE=2",
                                     "SYMHEAP_TIMEOUT=1", NULL },
                   (const char *[]){ "init-fails", "SYM_ERR_BOOTSTRAP", NULL });
    bjob_wait(&job, 30);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_output(&job, 0, "PE 0 cannot listen on 192.0.2.1:5000");
    bjob_assert_output(&job, 0, "not an address of this host");
    bjob_fini(&job);
}

Test(boot_tcp, bad_settings)
{
    struct {
        const char *env[4];
        const char *status;
        const char *says;
    } cases[] = {
        { { "SYMHEAP_ROOT_ADDR=localhost", NULL }, "SYM_ERR_CONFIG",
          "SYMHEAP_ROOT_ADDR='localhost' is not valid" },
        { { "SYMHEAP_ROOT_ADDR=127.0.0.1:70000", NULL }, "SYM_ERR_CONFIG",
          "port 1..65535" },
        { { "SYMHEAP_ROOT_ADDR=127.0.0.1:5000", "SYMHEAP_SIZE=0", NULL }, "SYM_ERR_CONFIG",
          "needs SYMHEAP_SIZE" },
        { { "SYMHEAP_ROOT_ADDR=127.0.0.1:5000", "SYMHEAP_SIZE=2", "SYMHEAP_RANK=2", NULL },
          "SYM_ERR_CONFIG", "needs SYMHEAP_RANK, this PE's number 0..1; got '2'" },
        { { "SYMHEAP_BOOTSTRAP=tcp", "SYMHEAP_SIZE=2", NULL }, "SYM_ERR_CONFIG",
          "needs SYMHEAP_ROOT_ADDR" },
        { { "SYMHEAP_BOOTSTRAP=mpi", NULL }, "SYM_ERR_CONFIG",
          "{auto|pmix|symrun|tcp|singleton}" },
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct bjob job;
        bjob_init(&job, 1);
        /* SYMHEAP_RANK stays unset unless the case sets it */
        bjob_start(&job, 0, NULL, cases[i].env,
                   (const char *[]){ "init-fails", cases[i].status, NULL });
        bjob_wait(&job, 30);
        bjob_assert_exit(&job, 0, 0);
        bjob_assert_output(&job, 0, cases[i].says);
        bjob_fini(&job);
    }
}

Test(boot_tcp, inconsistent_job)
{
    /* PE 1 thinks the job has 3 PEs, PE 2 claims PE 1's number: the root
     * names both mistakes, and every PE fails with the root's words. */
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, 2);
    bjob_start(&job, 0, NULL,
               (const char *[]){ addr, "SYMHEAP_RANK=0", "SYMHEAP_SIZE=2", "SYMHEAP_TIMEOUT=5",
                                 NULL },
               (const char *[]){ "init-fails", "SYM_ERR_BOOTSTRAP", NULL });
    bjob_start(&job, 1, NULL,
               (const char *[]){ addr, "SYMHEAP_RANK=1", "SYMHEAP_SIZE=3", "SYMHEAP_TIMEOUT=5",
                                 NULL },
               (const char *[]){ "init-fails", "SYM_ERR_BOOTSTRAP", NULL });
    bjob_wait(&job, 30);
    for (int r = 0; r < 2; r++) {
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r,
                           "PE 1 was started with SYMHEAP_SIZE=3, the root with SYMHEAP_SIZE=2");
    }
    bjob_fini(&job);
}

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
    const char *argv[] = { "mpirun", "--allow-run-as-root", "--oversubscribe", "--mca",
                           "oob_tcp_if_include", "lo", "-np", n, pe, mode, arg, NULL };
    bjob_start_argv(job, 0, argv, env);
}

static bool have_mpirun(void)
{
    return system("command -v mpirun >/dev/null 2>&1") == 0;
}

ParameterizedTestParameters(boot_pmix, mpirun)
{
    /* 0: 3 PEs over shm; 1: 2 PEs with every peer through ofi (default
     * provider, tcp;ofi_rxm here); 2: 3 PEs through libfabric's shm provider */
    static int which[] = { 0, 1, 2 };
    return cr_make_param_array(int, which, 3);
}

ParameterizedTest(int *which, boot_pmix, mpirun)
{
    if (!have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    int np = *which == 1 ? 2 : 3;
    /* mpirun passes the environment it was started with to the PEs */
    const char *env[] = { *which ? "SYMHEAP_TRANSPORT=ofi" : "SYMHEAP_TRANSPORT=auto",
                          *which == 2 ? "SYMHEAP_OFI_PROVIDER=shm" : NULL, NULL };
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
    if (!have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    const char *env[] = { "SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
                          "SYMHEAP_TIMEOUT=20", "SYMHEAP_HEAP_SIZE=64M", NULL };
    const char *modes[] = { "boot-barrier-progress", "finalize-puts" };
    const char *says[] = { "progressed", "finalized after puts" };
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
    if (!have_mpirun())
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
        { 2, "SYMHEAP_TRANSPORT=auto", NULL },
        { 3, "SYMHEAP_TRANSPORT=auto", NULL },
        { 2, "SYMHEAP_TRANSPORT=ofi", NULL },
        { 3, "SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=shm" },
    };
    for (size_t k = 0; k < sizeof(runs) / sizeof(runs[0]); k++) {
        char n[16];
        snprintf(n, sizeof(n), "%d", runs[k].np);
        const char *argv[] = { "srun", "--mpi=pmix", "-O", "-n", n, pe, "check", NULL };
        const char *env[] = { slurm.conf_env, runs[k].transport, runs[k].provider, NULL };
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
                     ofi ? own : runs[k].np == 2 ? "0,1 " : "0,1,2 ");
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
    const char *argv[] = { "srun", "--mpi=pmix", "-O", "-n", "3", getenv("BOOT_PE"), "die", "2",
                           NULL };
    const char *env[] = { slurm.conf_env, NULL };
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
    fprintf(f, "0,2 %s init-fails SYM_ERR_TIMEOUT\n"
               "1 /bin/sh -c 'i=0; while [ ! -e %s ] && [ $i -lt 1200 ]; do sleep 0.05; "
               "i=$((i+1)); done'\n", getenv("BOOT_PE"), go);
    cr_assert(fclose(f) == 0);
    const char *argv[] = { "srun", "--mpi=pmix", "-O", "-n", "3", "--multi-prog", conf, NULL };
    const char *env[] = { slurm.conf_env, "SYMHEAP_TIMEOUT=2", NULL };
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
        struct timespec ms20 = { 0, 20000000 };
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
    bjob_start(&job, 0, NULL, (const char *[]){ "SYMHEAP_BOOTSTRAP=pmix", NULL },
               (const char *[]){ "init-fails", "SYM_ERR_BOOTSTRAP", NULL });
    bjob_start(&job, 1, NULL,
               (const char *[]){ "PMIX_NAMESPACE=not-a-job", "PMIX_RANK=1", NULL },
               (const char *[]){ "init-fails", "SYM_ERR_BOOTSTRAP", NULL });
    bjob_wait(&job, 60);
    /* the PE as far as it is known (PMIx never told it), and the step */
    const char *where[] = { "sym_init (pmix bootstrap, PE ? (PMIX_RANK is unset), PMIx_Init): "
                            "PMIx_Init failed",
                            "sym_init (pmix bootstrap, PE 1 (by PMIX_RANK), PMIx_Init): "
                            "PMIx_Init failed" };
    for (int r = 0; r < 2; r++) {
        bjob_assert_exit(&job, r, 0);
        bjob_assert_output(&job, r, where[r]);
        bjob_assert_output(&job, r, "is the program started by mpirun");
    }
    bjob_fini(&job);
}

Test(boot_tcp, duplicate_rank)
{
    /* two processes claim PE 1 (PE 2 is never started): the root says so
     * and every process fails with its words, long before the timeout */
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    struct bjob job;
    bjob_init(&job, 3);
    for (int slot = 0; slot < 3; slot++) {
        char rank[32];
        snprintf(rank, sizeof(rank), "SYMHEAP_RANK=%d", slot ? 1 : 0);
        bjob_start(&job, slot, NULL,
                   (const char *[]){ addr, rank, "SYMHEAP_SIZE=3", "SYMHEAP_TIMEOUT=60", NULL },
                   (const char *[]){ "init-fails", "SYM_ERR_BOOTSTRAP", NULL });
    }
    bjob_wait(&job, 50);
    for (int slot = 0; slot < 3; slot++) {
        bjob_assert_exit(&job, slot, 0);
        bjob_assert_output(&job, slot, "two PEs were started with SYMHEAP_RANK=1");
    }
    bjob_fini(&job);
}

/* ---- strangers at the root address ------------------------------------- */

/* Connect to 127.0.0.1:port, retrying until `deadline_s` (the root may not
 * listen yet).  Blocking socket, or -1. */
static int stranger_connect(int port, double deadline_s)
{
    for (int tries = 0; tries < (int)(deadline_s * 20); tries++) {
        int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                 .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
        if (fd >= 0 && connect(fd, (void *)&a, sizeof(a)) == 0)
            return fd;
        if (fd >= 0)
            close(fd);
        struct timespec ts = { 0, 50000000 };
        nanosleep(&ts, NULL);
    }
    return -1;
}

/* Send `len` junk bytes after `hdr` (8 bytes, or NULL); true if the root
 * took them all, false once it refused the connection. */
static bool stranger_send(int fd, const uint32_t *hdr, size_t len)
{
    struct timeval tv = { 30, 0 }; /* never wait forever on a stuck root */
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
    if (hdr && send(fd, hdr, 8, MSG_NOSIGNAL) != 8)
        return false;
    static char junk[65536];
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (char)(i * 131 + 7);
    while (len) {
        ssize_t n = send(fd, junk, len < sizeof(junk) ? len : sizeof(junk), MSG_NOSIGNAL);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return false;
        len -= (size_t)n;
    }
    return true;
}

/* True when the root closes the connection within 30 s. */
static bool stranger_closed(int fd)
{
    struct timeval tv = { 30, 0 };
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    char buf[256];
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof(buf), 0);
        if (n == 0 || (n < 0 && errno != EINTR))
            return n == 0 || errno == ECONNRESET;
    }
}

Test(boot_tcp, strangers_at_root)
{
    /* Before the PEs 1 and 2 start, a stranger connects to the root again
     * and again: an oversized "hello" of 16 MiB, junk, a header announcing
     * 4 GiB, then more connections that say nothing than the root keeps
     * pending.  Each is closed, the root says why, and the job then starts
     * and passes its checks. */
    int port = bjob_free_port();
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", port);
    const char *env[] = { addr, "SYMHEAP_TIMEOUT=60", NULL };
    struct bjob job;
    bjob_init(&job, 3);
    bjob_start_tcp(&job, 0, NULL, env, (const char *[]){ "check", NULL });

    int fd = stranger_connect(port, 30);
    cr_assert(fd >= 0, "the root never listened on port %d", port);
    uint32_t big_hello[2] = { htonl(1), htonl(16u << 20) };
    bool took = stranger_send(fd, big_hello, 16u << 20);
    close(fd);
    cr_expect(!took, "the root read a 16 MiB 'hello' from a connection that never said hello");

    fd = stranger_connect(port, 5);
    cr_assert(fd >= 0, "the root stopped accepting");
    stranger_send(fd, NULL, 65536);
    cr_expect(stranger_closed(fd), "the root kept a connection that sent junk");
    close(fd);

    fd = stranger_connect(port, 5);
    cr_assert(fd >= 0, "the root stopped accepting");
    uint32_t huge[2] = { htonl(4), htonl(0xffffffffu) };
    stranger_send(fd, huge, 0);
    cr_expect(stranger_closed(fd), "the root kept a connection announcing 4 GiB");
    close(fd);

    enum { IDLE = 70 };
    int idle[IDLE];
    for (int i = 0; i < IDLE; i++) {
        idle[i] = stranger_connect(port, 5);
        cr_assert(idle[i] >= 0, "the root stopped accepting after %d silent connections", i);
    }
    cr_expect(stranger_closed(idle[0]), "the root kept more silent connections than it should");

    for (int r = 1; r < 3; r++)
        bjob_start_tcp(&job, r, NULL, env, (const char *[]){ "check", NULL });
    bjob_wait(&job, 90);
    for (int i = 0; i < IDLE; i++)
        close(idle[i]);
    for (int r = 0; r < 3; r++) {
        bjob_assert_exit(&job, r, 0);
        char want[64];
        snprintf(want, sizeof(want), "pe %d of 3 ok", r);
        bjob_assert_output(&job, r, want);
    }
    bjob_assert_output(&job, 0, "closed a connection from 127.0.0.1");
    bjob_assert_output(&job, 0, "its first message is not a symheap hello");
    bjob_assert_output(&job, 0, "too many connections without a hello");
    bjob_fini(&job);
}

/* ---- SYMHEAP_TRANSPORT=shm with a peer on another host ------------------ */

/* PE 1 runs with a /dev/shm of its own (a private mount namespace: a
 * container's view), so it is on another "host" for the shm transport
 * (src/bootstrap/host_id.c) while the rendezvous still goes over
 * 127.0.0.1.  SYMHEAP_TRANSPORT=shm cannot reach it: sym_init fails with
 * SYM_ERR_UNAVAILABLE naming the peer instead of falling back to ofi.  PE 1
 * fails alike, unless PE 0's exit overtook the exchange (then it reports
 * PE 0 lost).  Needs root for the mount; skipped otherwise. */
Test(boot_tcp, transport_shm_refuses_other_host)
{
    if (geteuid() != 0 || system("unshare -m true >/dev/null 2>&1") != 0)
        cr_skip_test("SKIPPED: needs root and unshare(1) for a private /dev/shm");
    char addr[64];
    root_env(addr, sizeof(addr), "127.0.0.1", bjob_free_port());
    const char *env[] = { addr, "SYMHEAP_TRANSPORT=shm", "SYMHEAP_TIMEOUT=30", NULL };
    const char *private_shm[] = { "unshare", "-m", "sh", "-c",
                                  "mount -t tmpfs -o mode=1777 symheap-test /dev/shm && "
                                  "exec \"$0\" \"$@\"",
                                  NULL };
    struct bjob job;
    bjob_init(&job, 2);
    bjob_start_tcp(&job, 0, NULL, env,
                   (const char *[]){ "init-fails", "SYM_ERR_UNAVAILABLE", NULL });
    bjob_start_tcp(&job, 1, private_shm, env,
                   (const char *[]){ "init-fails", "SYM_ERR_UNAVAILABLE|SYM_ERR_PEER_LOST", NULL });
    bjob_wait(&job, 60);
    for (int r = 0; r < 2; r++)
        bjob_assert_exit(&job, r, 0);
    bjob_assert_output(&job, 0, "PE 1 runs on another host, which SYMHEAP_TRANSPORT=shm cannot "
                                "reach");
    bjob_fini(&job);
}

/* ---- the harness's mpirun launcher (SYMHEAP_TEST_LAUNCHER=mpirun) -------- */

/* Each PE of a harness job started through mpirun must be that rank's
 * PMIx client: joined by the pmix bootstrap, as the rank mpirun gave it,
 * all in one namespace (one mpirun job). */
static void pmix_identity_body(int me, int npes, void *arg)
{
    (void)arg;
    const char *boot = sym_rt.boot ? sym_rt.boot->ops->name : "none";
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
    PE_ASSERT(!strcmp(theirs, ns), "PE %d is in namespace %s, PE %d in %s", me, ns,
              (me + 1) % npes, theirs);
    PE_OK(sym_barrier_all());
    sym_free(mine);
}

Test(harness_mpirun, pes_are_pmix_clients_of_mpirun)
{
    if (!have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    struct pe_job job = { .npes = 3, .body = pmix_identity_body };
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
    if (!have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    struct pe_job job = { .npes = 3, .body = exit3_on_pe1_body, .job_timeout_s = 60 };
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
    if (!have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
    struct pe_job job = { .npes = 2, .body = pe1_hangs_body, .job_timeout_s = 4 };
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
        struct pollfd p = { .fd = fds[0], .events = POLLIN };
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
    if (!have_mpirun())
        cr_skip_test("SKIPPED: mpirun (openmpi-bin) is not installed");
#ifndef SYM_HAVE_PMIX
    cr_skip_test("SKIPPED: symheap built without PMIx");
#endif
    int fds[2];
    cr_assert(pipe(fds) == 0);
    const char *env[] = { harness_timeout_env(2), NULL };
    struct pe_job job = { .npes = 2, .body = pmix_error_body, .arg = fds, .raw = true,
                          .env = env, .job_timeout_s = 60 };
    struct pe_outcome out;
    harness_mpirun_job_run(&job, &out);
    close(fds[0]);
    close(fds[1]);
    assert_job_ok(&out);
}
