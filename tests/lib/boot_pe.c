/*
 * boot_pe.c - a self-checking PE program for jobs that are not started by
 * symrun: by hand through the TCP rendezvous (test_boot_tcp.c), by mpirun
 * through PMIx, inside network namespaces.
 *
 *   boot_pe check          put/get ring (small and 1 MiB), atomics from every
 *                          PE on every PE, contended counters, barriers, allreduce (u64 sum,
 *                          double max), puts, atomics and put-with-signal on
 *                          global variables; prints "pe X of N ok shm:<peers>
 *                          digest:<hash of the allreduce results>"
 *   boot_pe die VICTIM     after a barrier VICTIM raises SIGKILL; the others
 *                          must get SYM_ERR_PEER_LOST naming it from a
 *                          barrier, print "pe X lost: <message>" and exit 0
 *   boot_pe init-fails STATUS[|STATUS...]
 *                          sym_init must fail with STATUS (e.g.
 *                          SYM_ERR_TIMEOUT); prints "init failed: <message>"
 *   boot_pe finalize-puts  the put ring, then every PE puts 1 MiB into every
 *                          other PE (non-blocking) and finalizes at once:
 *                          finalize must complete them without stalling;
 *                          prints "pe X of N finalized after puts"
 *   boot_pe boot-barrier-progress
 *                          (SYMHEAP_TRANSPORT=ofi) every PE but 0 puts
 *                          8 MiB into PE 0 and completes it (transport
 *                          quiet) while PE 0 already waits in the
 *                          bootstrap's barrier, which must drive the
 *                          transport's progress meanwhile; PE 0 then checks
 *                          the data; prints "pe X of N progressed"
 *
 * Environment read by the program (not by symheap):
 *   BOOT_PE_GROUPS=g0,g1,...  the "host" of every PE; check verifies that
 *                             sym_ptr reaches exactly the peers of its own
 *                             group (shm) and not the others (ofi)
 *   BOOT_PE_NPES=N            check that the job has N PEs
 *   BOOT_PE_CONTEND_ROUNDS=N  rounds of check's contended ticket counter
 *                             (default 2000)
 *
 * Exit status: 0 when every check passed, BROKEN (10) otherwise, with the
 * reason on stderr.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

#include "bootstrap/bootstrap.h" /* boot-barrier-progress: the bootstrap itself */
#include "core/internal.h"
#include "transport_of.h"

#define BROKEN 10

static int me = -1, npes = -1;

__attribute__((noreturn, format(printf, 1, 2))) static void broken(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "boot_pe: PE %d: ", me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(NULL);
    _exit(BROKEN);
}

#define OK(call)                                                                                   \
    do {                                                                                           \
        sym_status_t st_ = (call);                                                                 \
        if (st_ != SYM_OK)                                                                         \
            broken("%s:%d: %s returned %s: %s", __FILE__, __LINE__, #call, sym_status_name(st_),   \
                   sym_last_error());                                                              \
    } while (0)

static void init_or_die(void)
{
    OK(sym_init());
    me = sym_my_pe();
    npes = sym_n_pes();
    const char *want = getenv("BOOT_PE_NPES");
    if (want && atoi(want) != npes)
        broken("the job has %d PEs, expected %s", npes, want);
}

/* Group of PE `pe` from BOOT_PE_GROUPS, or -1 when not given. */
static int group_of(int pe)
{
    const char *s = getenv("BOOT_PE_GROUPS");
    if (!s)
        return -1;
    for (int i = 0; i < pe && s; i++) {
        s = strchr(s, ',');
        if (s)
            s++;
    }
    if (!s || !*s)
        broken("BOOT_PE_GROUPS='%s' has no entry for PE %d", getenv("BOOT_PE_GROUPS"), pe);
    return atoi(s);
}

static uint64_t pattern(int pe, size_t i)
{
    return ((uint64_t)pe << 40) ^ (i * UINT64_C(0x9e3779b97f4a7c15));
}

static void check_ring(size_t words)
{
    uint64_t *buf = sym_malloc(words * sizeof(uint64_t));
    uint64_t *local = malloc(words * sizeof(uint64_t));
    if (!buf || !local)
        broken("allocating %zu words: %s", words, sym_last_error());
    memset(buf, 0, words * sizeof(uint64_t));
    for (size_t i = 0; i < words; i++)
        local[i] = pattern(me, i);
    OK(sym_barrier_all());
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    OK(sym_put(buf, local, words * sizeof(uint64_t), right));
    OK(sym_quiet());
    OK(sym_barrier_all());
    for (size_t i = 0; i < words; i++)
        if (buf[i] != pattern(left, i))
            broken("put ring of %zu words: word %zu from PE %d is %#llx, expected %#llx", words, i,
                   left, (unsigned long long)buf[i], (unsigned long long)pattern(left, i));
    /* get the right neighbour's buffer (it holds what I put there) */
    memset(local, 0, words * sizeof(uint64_t));
    OK(sym_get(local, buf, words * sizeof(uint64_t), right));
    for (size_t i = 0; i < words; i++)
        if (local[i] != pattern(me, i))
            broken("get of %zu words from PE %d: word %zu is %#llx, expected %#llx", words, right,
                   i, (unsigned long long)local[i], (unsigned long long)pattern(me, i));
    OK(sym_barrier_all());
    sym_free(buf);
    free(local);
}

static void check_atomics(void)
{
    uint64_t *ctr = sym_calloc((size_t)npes, sizeof(uint64_t));
    uint32_t *bits = sym_calloc(1, sizeof(uint32_t));
    uint64_t *owner = sym_calloc(1, sizeof(uint64_t));
    if (!ctr || !bits || !owner)
        broken("sym_calloc: %s", sym_last_error());
    OK(sym_barrier_all());
    /* every PE adds (me + 1) to slot `me` of every PE, 3 times, and sets its
     * bit in everyone's bit word; one compare-swap per target wins */
    for (int pe = 0; pe < npes; pe++) {
        for (int k = 0; k < 3; k++) {
            uint64_t old;
            OK(sym_atomic_fetch_add64(&ctr[me], (uint64_t)me + 1, &old, pe));
            if (old != (uint64_t)k * ((uint64_t)me + 1))
                broken("fetch_add on PE %d returned %llu, expected %llu", pe,
                       (unsigned long long)old, (unsigned long long)k * ((uint64_t)me + 1));
        }
        OK(sym_atomic_or32(bits, UINT32_C(1) << (me % 32), pe));
        uint64_t prev;
        OK(sym_atomic_compare_swap64(owner, 0, (uint64_t)me + 1, &prev, pe));
    }
    OK(sym_barrier_all());
    uint32_t want_bits = 0;
    for (int pe = 0; pe < npes; pe++) {
        want_bits |= UINT32_C(1) << (pe % 32);
        if (ctr[pe] != 3 * ((uint64_t)pe + 1))
            broken("counter of PE %d is %llu, expected %llu", pe, (unsigned long long)ctr[pe],
                   3 * ((unsigned long long)pe + 1));
    }
    if (*bits != want_bits)
        broken("bit word is %#x, expected %#x", *bits, want_bits);
    if (*owner < 1 || *owner > (uint64_t)npes)
        broken("compare-swap left %llu", (unsigned long long)*owner);
    /* remote fetch of a peer's counter agrees with what it sees */
    uint64_t v;
    int right = (me + 1) % npes;
    OK(sym_atomic_fetch64(&v, &ctr[right], right));
    if (v != 3 * ((uint64_t)right + 1))
        broken("atomic fetch of PE %d's counter gave %llu", right, (unsigned long long)v);
    OK(sym_barrier_all());
    sym_free(owner);
    sym_free(bits);
    sym_free(ctr);
}

/* Contention on one word from every PE at once, same-host peers and
 * peers on other hosts alike: a ticket counter as shmem_set_lock uses.
 * Every ticket a PE draws is larger than its previous one, and no
 * increment is lost, exactly.  Mixing CPU atomics (same host) with
 * provider atomics (other hosts) on one word loses increments. */
#define CONTEND_ROUNDS 2000
static void check_contention(void)
{
    uint64_t *ticket = sym_calloc(1, sizeof(uint64_t));
    if (!ticket)
        broken("sym_calloc: %s", sym_last_error());
    OK(sym_barrier_all());
    const char *env = getenv("BOOT_PE_CONTEND_ROUNDS");
    const int rounds = env && atoi(env) > 0 ? atoi(env) : CONTEND_ROUNDS;
    uint64_t last = 0;
    for (int k = 0; k < rounds; k++) {
        uint64_t t;
        OK(sym_atomic_fetch_inc64(ticket, &t, 0));
        if (k > 0 && t <= last)
            broken("ticket %llu drawn after %llu", (unsigned long long)t, (unsigned long long)last);
        last = t;
        OK(sym_atomic_inc64(ticket, npes - 1));
    }
    OK(sym_barrier_all());
    const uint64_t want = (uint64_t)npes * (uint64_t)rounds * (me == 0 && npes == 1 ? 2 : 1);
    if ((me == 0 || me == npes - 1) && *ticket != want)
        broken("contended counter on PE %d is %llu, expected %llu", me, (unsigned long long)*ticket,
               (unsigned long long)want);
    OK(sym_barrier_all());
    sym_free(ticket);
}

/* FNV-1a over the allreduce results, printed so that jobs over different
 * transports can be compared bit for bit. */
static uint64_t result_digest;

static void digest(const void *p, size_t n)
{
    const unsigned char *b = p;
    if (!result_digest)
        result_digest = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++)
        result_digest = (result_digest ^ b[i]) * UINT64_C(0x100000001b3);
}

static void check_allreduce(void)
{
    enum { N = 1000 };
    static uint64_t src[N], dst[N];
    static double dsrc[N], ddst[N];
    for (size_t i = 0; i < N; i++) {
        src[i] = pattern(me, i) >> 8;
        dsrc[i] = (double)me * 0.5 + (double)i;
    }
    OK(sym_allreduce(sym_team_world(), dst, src, N, SYM_UINT64, SYM_OP_SUM, NULL));
    OK(sym_allreduce(sym_team_world(), ddst, dsrc, N, SYM_DOUBLE, SYM_OP_MAX, NULL));
    for (size_t i = 0; i < N; i++) {
        uint64_t want = 0;
        for (int pe = 0; pe < npes; pe++)
            want += pattern(pe, i) >> 8;
        if (dst[i] != want)
            broken("allreduce sum: element %zu is %llu, expected %llu", i,
                   (unsigned long long)dst[i], (unsigned long long)want);
        double dwant = (double)(npes - 1) * 0.5 + (double)i;
        if (ddst[i] != dwant)
            broken("allreduce max: element %zu is %g, expected %g", i, ddst[i], dwant);
    }
    digest(dst, sizeof(dst));
    digest(ddst, sizeof(ddst));
}

/* Global variables across hosts: a put ring, every PE's atomics on every
 * PE's counter and a put-with-signal, all on static arrays (reached over
 * ofi on other hosts, over shm on this one). */
#define GLOB_N 700
static uint64_t glob_ring[GLOB_N], glob_sigbuf[64], glob_sig;
static uint64_t glob_ctr;

static uint64_t glob_val(int pe, size_t i)
{
    return ((uint64_t)pe << 48) ^ (i * 0x9E3779B97F4A7C15ull);
}

static void check_globals(void)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint64_t src[GLOB_N];
    for (size_t i = 0; i < GLOB_N; i++)
        src[i] = glob_val(me, i);
    OK(sym_barrier_all());
    OK(sym_put(glob_ring, src, sizeof(src), right));
    for (int pe = 0; pe < npes; pe++)
        OK(sym_atomic_add64(&glob_ctr, (uint64_t)me + 1, pe));
    OK(sym_put_signal(glob_sigbuf, src, sizeof(glob_sigbuf), &glob_sig, 1, SYM_SIGNAL_ADD, right));
    OK(sym_signal_wait_until(&glob_sig, SYM_CMP_GE, 1, NULL));
    for (size_t i = 0; i < 64; i++)
        if (glob_sigbuf[i] != glob_val(left, i))
            broken("global put-with-signal from PE %d: word %zu wrong", left, i);
    OK(sym_barrier_all());
    for (size_t i = 0; i < GLOB_N; i++)
        if (glob_ring[i] != glob_val(left, i))
            broken("global put from PE %d: word %zu wrong", left, i);
    if (glob_ctr != (uint64_t)npes * ((uint64_t)npes + 1) / 2)
        broken("global counter %llu, expected %llu", (unsigned long long)glob_ctr,
               (unsigned long long)npes * ((unsigned long long)npes + 1) / 2);
    uint64_t got[GLOB_N];
    OK(sym_get(got, glob_ring, sizeof(got), right)); /* right holds mine */
    for (size_t i = 0; i < GLOB_N; i++)
        if (got[i] != src[i])
            broken("global get from PE %d: word %zu wrong", right, i);
    OK(sym_barrier_all());
}

/* Which peers are reached through shared memory; checked against the
 * groups when BOOT_PE_GROUPS is set. */
static void check_locality(char *out, size_t len)
{
    uint64_t *probe = sym_malloc(sizeof(uint64_t));
    if (!probe)
        broken("sym_malloc: %s", sym_last_error());
    size_t used = 0;
    out[0] = '\0';
    for (int pe = 0; pe < npes; pe++) {
        bool direct = sym_ptr(probe, pe) != NULL;
        if (direct && used < len)
            used += (size_t)snprintf(out + used, len - used, "%s%d", used ? "," : "", pe);
        int g = group_of(pe);
        if (g >= 0 && direct != (g == group_of(me)))
            broken("PE %d (group %d) is %s, but this PE is in group %d", pe, g,
                   direct ? "reached through shared memory"
                          : "not reached through "
                            "shared memory",
                   group_of(me));
    }
    sym_free(probe);
}

/* BOOT_PE_TIMES=1: say how long each part took (on stderr). */
static void lap(const char *what)
{
    static struct timespec last;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (getenv("BOOT_PE_TIMES") && last.tv_sec)
        fprintf(stderr, "pe %d: %s %.3f s\n", me, what,
                (double)(now.tv_sec - last.tv_sec) + (double)(now.tv_nsec - last.tv_nsec) * 1e-9);
    last = now;
}

static int mode_check(void)
{
    lap("start");
    init_or_die();
    lap("init");
    check_ring(1000);
    lap("ring 8000 B");
    check_ring((size_t)1 << 17); /* 1 MiB */
    lap("ring 1 MiB");
    check_atomics();
    lap("atomics");
    check_contention();
    lap("contention");
    check_allreduce();
    lap("allreduce");
    check_globals();
    lap("globals");
    char shm[512];
    check_locality(shm, sizeof(shm));
    OK(sym_barrier_all());
    printf("pe %d of %d ok shm:%s digest:%016llx\n", me, npes, shm,
           (unsigned long long)result_digest);
    fflush(stdout);
    OK(sym_finalize());
    return 0;
}

static int mode_die(int victim)
{
    init_or_die();
    if (victim < 0 || victim >= npes)
        broken("victim %d is not a PE of the job", victim);
    OK(sym_barrier_all());
    if (me == victim) {
        struct timespec ts = {0, 200000000}; /* let the others get into the barrier */
        nanosleep(&ts, NULL);
        raise(SIGKILL);
    }
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    sym_status_t st = sym_barrier_all();
    clock_gettime(CLOCK_MONOTONIC, &t1);
    if (st != SYM_ERR_PEER_LOST)
        broken("barrier after PE %d died returned %s: %s", victim, sym_status_name(st),
               sym_last_error());
    char want[32];
    snprintf(want, sizeof(want), "PE %d ", victim);
    if (!strstr(sym_last_error(), want))
        broken("the error does not name PE %d: %s", victim, sym_last_error());
    printf("pe %d lost: %s\n", me, sym_last_error());
    /* for the record (tests do not judge speed): SYM_ERR_PEER_LOST rather
     * than SYM_ERR_TIMEOUT already shows it was not a timeout */
    printf("pe %d heard of the loss after %.2f s in the barrier\n", me,
           (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9);
    fflush(stdout);
    /* Finalize fails after a loss.  Over ofi a transfer that failed
     * because a peer died (or, survivors finalizing at different times,
     * because one already left) may be what it reports first. */
    st = sym_finalize();
    if (st != SYM_ERR_PEER_LOST && st != SYM_ERR_TRANSPORT)
        broken("finalize after the loss returned %s: %s", sym_status_name(st), sym_last_error());
    return 0;
}

static int mode_finalize_puts(void)
{
    init_or_die();
    check_ring(1000);
    const size_t bytes = (size_t)1 << 20;
    uint8_t *dst = sym_malloc(bytes * (size_t)npes);
    uint8_t *src = malloc(bytes);
    if (!dst || !src)
        broken("allocating %zu bytes: %s", bytes * (size_t)npes, sym_last_error());
    memset(src, 0x40 + me, bytes);
    OK(sym_barrier_all());
    for (int k = 1; k < npes; k++) /* each PE its own slot on every peer */
        OK(sym_put_nbi(dst + (size_t)me * bytes, src, bytes, (me + k) % npes));
    OK(sym_finalize());
    free(src);
    printf("pe %d of %d finalized after puts\n", me, npes);
    return 0;
}

static int mode_boot_barrier_progress(void)
{
    init_or_die();
    if (!test_transport("ofi"))
        broken("boot-barrier-progress needs SYMHEAP_TRANSPORT=ofi");
    const size_t bytes = (size_t)8 << 20; /* more than loopback's socket buffers */
    uint8_t *dst = sym_malloc(bytes * (size_t)npes);
    uint8_t *src = malloc(bytes);
    if (!dst || !src)
        broken("allocating %zu bytes: %s", bytes * (size_t)npes, sym_last_error());
    memset(dst, 0, bytes * (size_t)npes);
    for (size_t i = 0; i < bytes; i++)
        src[i] = (uint8_t)(me * 29 + i * 7 + (i >> 12));
    OK(sym_barrier_all());
    if (me != 0) {
        OK(sym_put_nbi(dst + (size_t)me * bytes, src, bytes, 0));
        /* completing it needs PE 0's endpoint, and PE 0 is in the barrier */
        struct sym_deadline dl = sym_deadline_default("sym_quiet");
        OK(test_transport("ofi")->ops->quiet(test_transport("ofi"), &dl));
    }
    OK(sym_core_boot()->ops->barrier(sym_core_boot(), "boot_pe (bootstrap barrier)"));
    for (int pe = 1; me == 0 && pe < npes; pe++)
        for (size_t i = 0; i < bytes; i++) {
            uint8_t want = (uint8_t)(pe * 29 + i * 7 + (i >> 12));
            if (dst[(size_t)pe * bytes + i] != want)
                broken("byte %zu from PE %d is %#x, expected %#x", i, pe,
                       dst[(size_t)pe * bytes + i], want);
        }
    OK(sym_barrier_all());
    sym_free(dst);
    free(src);
    OK(sym_finalize());
    printf("pe %d of %d progressed\n", me, npes);
    return 0;
}

static int mode_init_fails(const char *want)
{
    sym_status_t st = sym_init();
    printf("init failed: %s: %s\n", sym_status_name(st), st ? sym_last_error() : "");
    fflush(stdout);
    /* want: a status name, or several separated by '|' */
    const char *name = sym_status_name(st);
    const size_t len = strlen(name);
    for (const char *p = want; p; p = strchr(p, '|') ? strchr(p, '|') + 1 : NULL)
        if (strncmp(p, name, len) == 0 && (p[len] == '|' || p[len] == '\0'))
            return 0;
    broken("sym_init returned %s, expected %s", name, want);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && !strcmp(argv[1], "check"))
        return mode_check();
    if (argc == 3 && !strcmp(argv[1], "die"))
        return mode_die(atoi(argv[2]));
    if (argc == 2 && !strcmp(argv[1], "boot-barrier-progress"))
        return mode_boot_barrier_progress();
    if (argc == 2 && !strcmp(argv[1], "finalize-puts"))
        return mode_finalize_puts();
    if (argc == 3 && !strcmp(argv[1], "init-fails"))
        return mode_init_fails(argv[2]);
    fprintf(stderr, "usage: boot_pe check | die VICTIM | init-fails STATUS | finalize-puts | "
                    "boot-barrier-progress\n");
    return 2;
}
