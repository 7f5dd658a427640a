/*
 * test_shm_lazy.c - peers' heaps mapped on first use (SYMHEAP_SHM_MAP=lazy,
 * transports/shm/shm_lazy.c), and what happens when the peer is gone by
 * then: every survivor fails cleanly, with SYM_ERR_PEER_LOST naming it,
 * never a crash or a hang.
 *
 * - maps_what_it_touches: after sym_init a PE maps its own heap and the
 *   next PE's (mapped at init to check that the host allows it); a put to
 *   its left neighbour maps that one too, and the data arrives.
 * - killed_before_mapped: the last PE is SIGKILLed right after sym_init,
 *   before any peer touched it; once it is gone, every survivor puts to it,
 *   gets from it and takes its sym_ptr (valid, not NULL: the collectives
 *   rely on that), then its barrier reports the loss naming it.
 * - links_made_while_a_pe_dies: 8 PEs each put to every other PE, in an
 *   order starting at its right neighbour; PE 5 is killed at its first put
 *   (SYMHEAP_FAULT).  PE 4 maps PE 5 while it dies, the others once it is
 *   gone; every survivor gets SYM_ERR_PEER_LOST naming it from the barrier
 *   that follows, within seconds.
 * - arrived_then_died: in a central barrier (SYMHEAP_BARRIER_ALGORITHM=
 *   naive), PE 2 arrives and is killed; PE 0, which has not mapped it, is
 *   the last to arrive (once the loss is known), so it gathers the
 *   fingerprints and finds PE 2's heap gone: every survivor gets
 *   SYM_ERR_PEER_LOST naming PE 2, not a mismatch with an "unknown call"
 *   read from the stand-in.
 * - offered_then_gone: PE 1, the root of a broadcast with the direct
 *   algorithm, stages and announces its data (it returns at once: the
 *   staging area keeps it) and is killed; PEs 2 and 3, which never mapped
 *   it, then read the offer: its heap cannot be mapped any more, and they
 *   get SYM_ERR_PEER_LOST naming it, not the stand-in's zeros as data.
 *   PE 0, which mapped PE 1 at init, may still read the staged data; if it
 *   says it did, the data must be right.
 * - running_peer_not_mappable: PE 1 makes itself not dumpable and PE 2
 *   gives up CAP_SYS_PTRACE, so PE 2 may not reopen PE 1's heap although
 *   PE 1 runs; PE 2's put goes to a stand-in and its next wait reports
 *   PE 1 lost, saying why.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "harness.h"

/* The shm transport's lazy mapping, whatever the environment of the run
 * (the cross-memory attach probe at init maps no peer: core/cma.c). */
static const char *const lazy_env[] = {"SYMHEAP_SHM_MAP=lazy", "SYMHEAP_TRANSPORT=auto", NULL};

/* A page the PEs share with the test (forked after it is made). */
struct shared {
    int pid[HARNESS_MAX_PES];
    int flag;
};

static struct shared *shared_page(void)
{
    struct shared *s =
        mmap(NULL, sizeof(*s), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(s != MAP_FAILED, "mmap: %s", strerror(errno));
    memset(s, 0, sizeof(*s));
    return s;
}

/* How many heaps (this PE's and its peers') are mapped in this process. */
static int heaps_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    PE_ASSERT(f, "/proc/self/maps: %s", strerror(errno));
    char line[512];
    int n = 0;
    while (fgets(line, sizeof(line), f))
        n += strstr(line, "/memfd:symheap-heap") != NULL;
    fclose(f);
    return n;
}

static void sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* Wait until process pid is gone (reaped, or a zombie: its descriptors
 * closed either way). */
static void await_gone(int pid)
{
    double t0 = harness_now();
    for (;;) {
        char path[64], buf[256] = "";
        snprintf(path, sizeof(path), "/proc/%d/stat", pid);
        FILE *f = fopen(path, "r");
        if (!f)
            return;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *paren = strrchr(buf, ')');
        if (paren && (paren[2] == 'Z' || paren[2] == 'X'))
            return;
        PE_ASSERT(harness_now() - t0 < harness_seconds(20), "PE (pid %d) never died", pid);
        sleep_ms(2);
    }
}

static void expect_lost(sym_status_t st, int victim, const char *words)
{
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "returned %s: %s", sym_status_name(st), sym_last_error());
    char want[32];
    snprintf(want, sizeof(want), "PE %d", victim);
    PE_ASSERT(strstr(sym_last_error(), want), "'%s' does not name %s", sym_last_error(), want);
    PE_ASSERT(!words || strstr(sym_last_error(), words), "'%s' does not say '%s'", sym_last_error(),
              words);
}

/* Symmetric without an allocation, whose world barrier could map peers. */
static int64_t g_box;
static uint64_t g_word;

/* ---- maps_what_it_touches ---------------------------------------------- */

static void touches_body(int me, int n, void *arg)
{
    (void)arg;
    const int left = (me + n - 1) % n;
    /* before anything else touches a peer: mine and the next PE's */
    PE_ASSERT(heaps_mapped() == 2, "%d heaps mapped after sym_init", heaps_mapped());
    int64_t v = 1000 + me;
    PE_OK(sym_put(&g_box, &v, sizeof(v), left));
    PE_ASSERT(heaps_mapped() == 3, "%d heaps mapped after a put to PE %d", heaps_mapped(), left);
    PE_OK(sym_barrier_all());
    int64_t want = 1000 + (me + 1) % n;
    PE_ASSERT(g_box == want, "box %lld, expected %lld", (long long)g_box, (long long)want);
}

Test(shm_lazy, maps_what_it_touches)
{
    struct pe_job job = {.npes = 4, .body = touches_body, .env = lazy_env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ---- killed_before_mapped ---------------------------------------------- */

static void killed_before_mapped_body(int me, int n, void *arg)
{
    struct shared *s = arg;
    const int victim = n - 1;
    s->pid[me] = getpid();
    PE_OK(sym_init());
    if (me == victim)
        raise(SIGKILL);
    await_gone(__atomic_load_n(&s->pid[victim], __ATOMIC_ACQUIRE));
    /* PE n - 2 mapped the victim at init (its next PE); the others first
     * touch it now */
    int64_t v = me, got = -1;
    PE_OK(sym_put(&g_box, &v, sizeof(v), victim));
    PE_OK(sym_get(&got, &g_box, sizeof(got), victim));
    PE_ASSERT(sym_ptr(&g_box, victim) != NULL, "sym_ptr to the dead PE %d is NULL", victim);
    double t0 = harness_now();
    expect_lost(sym_barrier_all(), victim, harness_killed_words());
    PE_ASSERT(harness_now() - t0 < harness_seconds(5), "the loss took %.2f s", harness_now() - t0);
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
}

Test(shm_lazy, killed_before_mapped)
{
    harness_skip_if_launcher_ends_job_on_kill();
    struct shared *s = shared_page();
    struct pe_job job = {
        .npes = 4, .body = killed_before_mapped_body, .arg = s, .raw = true, .env = lazy_env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.term_signal[3], SIGKILL, "the victim ended with code %d", out.exit_code[3]);
    for (int pe = 0; pe < 3; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                     out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0);
    munmap(s, sizeof(*s));
}

/* ---- links_made_while_a_pe_dies ---------------------------------------- */

enum { DYING = 5 };

static void dies_body(int me, int n, void *arg)
{
    struct shared *s = arg;
    s->pid[me] = getpid();
    PE_OK(sym_init());
    int64_t *slots = sym_calloc((size_t)n, sizeof(*slots));
    PE_ASSERT(slots, "sym_calloc: %s", sym_last_error());
    /* PE 4 races PE 5's death (its first put goes to PE 5); the others
     * start once PE 5 is gone, so they map it after its death */
    if (me != DYING - 1 && me != DYING)
        await_gone(__atomic_load_n(&s->pid[DYING], __ATOMIC_ACQUIRE));
    for (int k = 1; k < n; k++) {
        int64_t v = 100 * me + k;
        sym_status_t st = sym_put(&slots[me], &v, sizeof(v), (me + k) % n);
        PE_ASSERT(st == SYM_OK, "put to PE %d: %s", (me + k) % n, sym_last_error());
    }
    double t0 = harness_now();
    expect_lost(sym_barrier_all(), DYING, NULL);
    PE_ASSERT(harness_now() - t0 < harness_seconds(5), "the loss took %.2f s", harness_now() - t0);
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
}

Test(shm_lazy, links_made_while_a_pe_dies)
{
    harness_skip_if_launcher_ends_job_on_kill();
    static const char *const env[] = {"SYMHEAP_SHM_MAP=lazy", "SYMHEAP_TRANSPORT=auto",
                                      "SYMHEAP_FAULT=kill:pe=5:op=put:count=1", NULL};
    struct shared *s = shared_page();
    struct pe_job job = {.npes = 8, .body = dies_body, .arg = s, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.term_signal[DYING], SIGKILL, "PE %d ended with code %d", DYING,
                 out.exit_code[DYING]);
    for (int pe = 0; pe < 8; pe++)
        if (pe != DYING)
            cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                         out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0);
    munmap(s, sizeof(*s));
}

/* ---- arrived_then_died -------------------------------------------------- */

/* The central barrier's arrival count, on PE 0 (core/barrier.c). */
static uint64_t arrivals_on_pe0(void)
{
    const uint64_t *c = sym_core_direct(0, SYM_SYNC_LINE_OFF(SYM_SYNC_ARRIVALS_LINE));
    PE_ASSERT(c, "PE 0's arrival counter is not mapped");
    return __atomic_load_n(c, __ATOMIC_ACQUIRE);
}

static void *enter_barrier(void *arg)
{
    (void)arg;
    pe_ignore(sym_barrier_all()); /* the process is killed while it waits */
    return NULL;
}

static void arrived_then_died_body(int me, int n, void *arg)
{
    struct shared *s = arg;
    s->pid[me] = getpid();
    int level = 0;
    PE_OK(sym_init_thread(SYM_THREAD_MULTIPLE, &level));
    /* PE 0 maps PE 1 at init (its next PE), PE 1 maps PE 2, PE 2 maps PE 0 */
    if (me == 2) {
        pthread_t t;
        PE_ASSERT(pthread_create(&t, NULL, enter_barrier, NULL) == 0, "pthread_create");
        double t0 = harness_now();
        while (arrivals_on_pe0() < 2) { /* PE 1 and this PE arrived */
            PE_ASSERT(harness_now() - t0 < harness_seconds(20), "never arrived");
            sleep_ms(1);
        }
        raise(SIGKILL);
    }
    if (me == 0) { /* the last to arrive, once PE 2 is gone */
        double t0 = harness_now();
        while (arrivals_on_pe0() < (uint64_t)n - 1) {
            PE_ASSERT(harness_now() - t0 < harness_seconds(20), "the others never arrived");
            sleep_ms(1);
        }
        await_gone(__atomic_load_n(&s->pid[2], __ATOMIC_ACQUIRE));
        /* until the job's health check knows it: then the barrier is one a
         * lost PE arrived in, not one whose loss is still unknown */
        expect_lost(sym_wait_until_uint64(&g_word, SYM_CMP_NE, 0), 2, NULL);
    }
    expect_lost(sym_barrier_all(), 2, NULL);
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
}

Test(shm_lazy, arrived_then_died)
{
    harness_skip_if_launcher_ends_job_on_kill();
    static const char *const env[] = {"SYMHEAP_SHM_MAP=lazy", "SYMHEAP_TRANSPORT=auto",
                                      "SYMHEAP_BARRIER_ALGORITHM=naive", NULL};
    struct shared *s = shared_page();
    struct pe_job job = {
        .npes = 3, .body = arrived_then_died_body, .arg = s, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.term_signal[2], SIGKILL, "PE 2 ended with code %d", out.exit_code[2]);
    for (int pe = 0; pe < 2; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                     out.exit_code[pe]);
    munmap(s, sizeof(*s));
}

/* ---- offered_then_gone -------------------------------------------------- */

enum { OFFERER = 1, OFFER_BYTES = 4096 };

static uint8_t offered(size_t i)
{
    return (uint8_t)(i * 7 + 1);
}

static void offered_then_gone_body(int me, int n, void *arg)
{
    struct shared *s = arg;
    s->pid[me] = getpid();
    PE_OK(sym_init());
    static uint8_t buf[OFFER_BYTES]; /* private memory: the root stages it */
    const sym_coll_opts_t direct = {.algorithm = SYM_ALGO_DIRECT};
    if (me == OFFERER) {
        for (size_t i = 0; i < sizeof(buf); i++)
            buf[i] = offered(i);
        PE_OK(sym_broadcast(sym_team_world(), buf, sizeof(buf), SYM_UINT8, OFFERER, &direct));
        raise(SIGKILL);
    }
    await_gone(__atomic_load_n(&s->pid[OFFERER], __ATOMIC_ACQUIRE));
    /* the PE before the offerer mapped it at init; the others never did */
    const bool mapped = me == (OFFERER + n - 1) % n;
    PE_ASSERT(mapped || heaps_mapped() == 2, "%d heaps mapped before the broadcast",
              heaps_mapped());
    memset(buf, 0xee, sizeof(buf));
    sym_status_t st =
        sym_broadcast(sym_team_world(), buf, sizeof(buf), SYM_UINT8, OFFERER, &direct);
    for (size_t i = 0; st == SYM_OK && i < sizeof(buf); i++)
        PE_ASSERT(buf[i] == offered(i), "byte %zu is %u, expected %u (%s)", i, buf[i], offered(i),
                  mapped ? "read from the mapping" : "a PE it never mapped");
    if (!mapped || st != SYM_OK)
        expect_lost(st, OFFERER, NULL);
    _exit(0);
}

Test(shm_lazy, offered_then_gone)
{
    harness_skip_if_launcher_ends_job_on_kill();
    static const char *const env[] = {"SYMHEAP_SHM_MAP=lazy", "SYMHEAP_TRANSPORT=auto",
                                      "SYMHEAP_CMA=off", NULL};
    struct shared *s = shared_page();
    struct pe_job job = {
        .npes = 4, .body = offered_then_gone_body, .arg = s, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert_eq(out.term_signal[OFFERER], SIGKILL, "PE %d ended with code %d", OFFERER,
                 out.exit_code[OFFERER]);
    for (int pe = 0; pe < 4; pe++)
        if (pe != OFFERER)
            cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                         out.exit_code[pe]);
    munmap(s, sizeof(*s));
}

/* ---- running_peer_not_mappable ----------------------------------------- */

/* Drop CAP_SYS_PTRACE from this process's effective capabilities, so
 * that, as any user without it, it may not read a process that is not
 * dumpable (through /proc either). */
static void drop_ptrace_capability(void)
{
    struct __user_cap_header_struct hdr = {_LINUX_CAPABILITY_VERSION_3, 0};
    struct __user_cap_data_struct data[2];
    PE_ASSERT(syscall(SYS_capget, &hdr, data) == 0, "capget: %s", strerror(errno));
    data[CAP_SYS_PTRACE / 32].effective &= ~(1u << (CAP_SYS_PTRACE % 32));
    PE_ASSERT(syscall(SYS_capset, &hdr, data) == 0, "capset: %s", strerror(errno));
}

static void not_mappable_body(int me, int n, void *arg)
{
    (void)n;
    struct shared *s = arg;
    PE_OK(sym_init());
    if (me == 1) { /* its memory is now its own: not even its peers may read it */
        PE_ASSERT(prctl(PR_SET_DUMPABLE, 0) == 0, "prctl: %s", strerror(errno));
        __atomic_store_n(&s->flag, 1, __ATOMIC_RELEASE);
    }
    if (me == 2) { /* its next PE is PE 0: it has not mapped PE 1 */
        drop_ptrace_capability();
        while (!__atomic_load_n(&s->flag, __ATOMIC_ACQUIRE))
            sleep_ms(1);
        uint64_t v = 7;
        PE_OK(sym_put(&g_word, &v, sizeof(v), 1));
        /* the TCP root relays the loss this PE tells it, in its own words */
        const bool own_words = strcmp(harness_launcher(), "symrun") == 0;
        expect_lost(sym_wait_until_uint64(&g_word, SYM_CMP_NE, 0), 1,
                    own_words ? "cannot be mapped" : NULL);
        _exit(0);
    }
    /* PEs 0 and 1 learn of PE 2's exit after its error: a loss, never a hang */
    PE_FAILS_WITH(sym_wait_until_uint64(&g_word, SYM_CMP_NE, 0), SYM_ERR_PEER_LOST);
    _exit(0);
}

Test(shm_lazy, running_peer_not_mappable)
{
    harness_skip_if_launcher_ends_job_on_kill();
    struct shared *s = shared_page();
    struct pe_job job = {
        .npes = 3, .body = not_mappable_body, .arg = s, .raw = true, .env = lazy_env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    for (int pe = 0; pe < 3; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "PE %d failed (code %d)", pe, out.exit_code[pe]);
    munmap(s, sizeof(*s));
}
