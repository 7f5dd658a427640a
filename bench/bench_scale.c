/*
 * bench_scale.c - what a job costs as it grows: start-up time and memory per
 * PE after sym_init, and per member of a team running a ring allreduce.
 *
 *   symrun -n N bench_scale [--t0 UNIX_SECONDS] [--team] [--count C] [--touch]
 *
 * Every PE measures itself; PE 0 prints one line of key=value figures, the
 * median and the largest over the PEs (bench/scale_report.py runs it over
 * PE counts, bootstraps and repeats, and makes the tables):
 *   init_med, init_max   seconds inside sym_init
 *   launch_span          seconds from the first PE's main() to the last's
 *   ready                seconds from --t0 (the launcher's start) until the
 *                        last PE returned from sym_init (with --t0 only)
 *   barrier_med/max      seconds of the first sym_barrier_all
 *   rss, anon, shmem     KiB resident after init and that barrier (VmRSS,
 *                        RssAnon, RssShmem: private memory, and shared pages
 *                        this PE touched: its own heap's, its peers', the
 *                        launcher's segment)
 *   heap_reserved        KiB of shared memory backing this PE's own heap
 *                        (its memfd's blocks: control block, mailboxes,
 *                        and what was handed out), whoever touched it
 *   mailbox_cfg          KiB of SYMHEAP_MAILBOX_SIZE
 * With --team, a team of every PE (a split of the world) runs C-element
 * float ring allreduces, checked against the exact sum; per member:
 *   team_reserved        KiB added to the member's heap reservation
 *   team_shmem, team_anon  KiB added to RssShmem and RssAnon
 *   team_split_shmem     KiB added to RssShmem by the split alone
 * The team is made after the first figures are taken, so they are the
 * team's alone.  With --touch, every PE then puts 8 bytes to every other
 * PE, twice, in an order that starts at its right neighbour:
 *   touch_first_us       microseconds of a put to a peer not used before
 *                        (its heap mapped now, where the shm transport maps
 *                        on first use), averaged over the peers
 *   touch_again_us       the same for the second round
 *   touch_pte            KiB of page tables (VmPTE) the first round added
 * Exits 0, or 1 naming what failed.
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

enum fig {
    F_MAIN,  /* CLOCK_REALTIME at main() */
    F_READY, /* CLOCK_REALTIME after sym_init */
    F_INIT,
    F_BARRIER,
    F_RSS,
    F_ANON,
    F_SHMEM,
    F_RESERVED,
    F_TEAM_RESERVED,
    F_TEAM_SHMEM,
    F_TEAM_ANON,
    F_TEAM_SPLIT_SHMEM,
    F_TOUCH_FIRST,
    F_TOUCH_AGAIN,
    F_TOUCH_PTE,
    F_COUNT
};

static double wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static _Noreturn void die(const char *what)
{
    fprintf(stderr, "bench_scale: PE %d: %s: %s\n", sym_my_pe(), what, sym_last_error());
    exit(1);
}

/* KiB of one /proc/self/status field ("VmRSS:" ...), or -1. */
static double status_kib(const char *field)
{
    FILE *f = fopen("/proc/self/status", "r");
    if (!f)
        return -1;
    char line[256];
    double v = -1;
    size_t n = strlen(field);
    while (fgets(line, sizeof(line), f))
        if (strncmp(line, field, n) == 0 && line[n] == ':') {
            v = strtod(line + n + 1, NULL);
            break;
        }
    fclose(f);
    return v;
}

/* KiB of shared memory backing this PE's heap: the blocks of the memfd
 * symheap names "symheap-heap" (found among this process's descriptors). */
static double heap_reserved_kib(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    double kib = -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char path[300], target[256];
        snprintf(path, sizeof(path), "/proc/self/fd/%s", e->d_name);
        ssize_t n = readlink(path, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        struct stat st;
        if (strstr(target, "memfd:symheap-heap") && stat(path, &st) == 0) {
            kib = (double)st.st_blocks * 512.0 / 1024.0;
            break;
        }
    }
    closedir(d);
    return kib;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Median and largest of figure f over the n PEs (all: n rows of F_COUNT). */
static void spread(const double *all, int n, enum fig f, double *med_p, double *max_p)
{
    double *v = malloc((size_t)n * sizeof(*v));
    if (!v)
        die("out of memory");
    for (int i = 0; i < n; i++)
        v[i] = all[(size_t)i * F_COUNT + f];
    qsort(v, (size_t)n, sizeof(*v), by_value);
    *med_p = n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
    *max_p = v[n - 1];
    free(v);
}

static double smallest(const double *all, int n, enum fig f)
{
    double lo = all[f];
    for (int i = 1; i < n; i++)
        if (all[(size_t)i * F_COUNT + f] < lo)
            lo = all[(size_t)i * F_COUNT + f];
    return lo;
}

/* A team of every PE running `reps` ring allreduces of `count` floats:
 * member r contributes r + i at element i, so the sum is exact in float
 * for the sizes used here.  Fills the team's figures (deltas). */
static void team_run(double *mine, size_t count)
{
    const double reserved = heap_reserved_kib(), shmem = status_kib("RssShmem"),
                 anon = status_kib("RssAnon");
    const int n = sym_n_pes(), me = sym_my_pe();
    float *src = malloc(count * sizeof(float)), *dst = malloc(count * sizeof(float));
    if (!src || !dst)
        die("out of memory");
    sym_team_t team;
    if (sym_team_split_strided(sym_team_world(), 0, 1, n, &team) != SYM_OK)
        die("sym_team_split_strided");
    mine[F_TEAM_SPLIT_SHMEM] = status_kib("RssShmem") - shmem;
    const sym_coll_opts_t ring = {.algorithm = SYM_ALGO_RING};
    for (int rep = 0; rep < 3; rep++) {
        for (size_t i = 0; i < count; i++)
            src[i] = (float)(me + (int)(i % 1000) + rep);
        if (sym_allreduce(team, dst, src, count, SYM_FLOAT, SYM_OP_SUM, &ring) != SYM_OK)
            die("ring allreduce on the team");
        for (size_t i = 0; i < count; i++) {
            double want = (double)n * (double)(n - 1) / 2 + (double)n * (double)(i % 1000 + rep);
            if ((double)dst[i] != want) {
                fprintf(stderr, "bench_scale: PE %d: allreduce[%zu] = %g, expected %g\n", me, i,
                        (double)dst[i], want);
                exit(1);
            }
        }
    }
    if (sym_barrier_all() != SYM_OK)
        die("sym_barrier_all after the team's allreduces");
    mine[F_TEAM_RESERVED] = heap_reserved_kib() - reserved;
    mine[F_TEAM_SHMEM] = status_kib("RssShmem") - shmem;
    mine[F_TEAM_ANON] = status_kib("RssAnon") - anon;
    if (sym_team_destroy(team) != SYM_OK)
        die("sym_team_destroy");
    free(src);
    free(dst);
}

/* Every peer touched twice with a put (the first may map it). */
static void touch_all(double *mine)
{
    const int n = sym_n_pes(), me = sym_my_pe();
    int64_t *slots = sym_calloc((size_t)n, sizeof(*slots));
    if (!slots)
        die("sym_calloc");
    const double pte = status_kib("VmPTE");
    for (int round = 0; round < 2; round++) {
        double t = wall_s();
        for (int k = 1; k < n; k++) {
            int64_t v = me;
            if (sym_put(&slots[me], &v, sizeof(v), (me + k) % n) != SYM_OK)
                die("sym_put");
        }
        double us = n > 1 ? (wall_s() - t) * 1e6 / (n - 1) : 0;
        mine[round ? F_TOUCH_AGAIN : F_TOUCH_FIRST] = us;
        if (!round)
            mine[F_TOUCH_PTE] = status_kib("VmPTE") - pte;
    }
    if (sym_barrier_all() != SYM_OK)
        die("sym_barrier_all after the puts");
    for (int pe = 0; pe < n; pe++)
        if (pe != me && slots[pe] != pe) {
            fprintf(stderr, "bench_scale: PE %d: slot %d holds %lld\n", me, pe,
                    (long long)slots[pe]);
            exit(1);
        }
    sym_free(slots);
}

static void usage(void)
{
    fprintf(stderr, "usage: symrun -n N bench_scale [--t0 UNIX_SECONDS] [--team] [--count C] "
                    "[--touch]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    double mine[F_COUNT] = {0};
    mine[F_MAIN] = wall_s();
    double t0 = 0;
    bool team = false, touch = false;
    size_t count = 65536;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--t0") && i + 1 < argc)
            t0 = strtod(argv[++i], NULL);
        else if (!strcmp(argv[i], "--team"))
            team = true;
        else if (!strcmp(argv[i], "--touch"))
            touch = true;
        else if (!strcmp(argv[i], "--count") && i + 1 < argc)
            count = strtoul(argv[++i], NULL, 10);
        else
            usage();
    }
    if (sym_init() != SYM_OK)
        die("sym_init");
    mine[F_READY] = wall_s();
    mine[F_INIT] = mine[F_READY] - mine[F_MAIN];
    double t = wall_s();
    if (sym_barrier_all() != SYM_OK)
        die("sym_barrier_all");
    mine[F_BARRIER] = wall_s() - t;
    mine[F_RSS] = status_kib("VmRSS");
    mine[F_ANON] = status_kib("RssAnon");
    mine[F_SHMEM] = status_kib("RssShmem");
    mine[F_RESERVED] = heap_reserved_kib();
    if (team && count)
        team_run(mine, count);
    if (touch)
        touch_all(mine);
    const int n = sym_n_pes();
    double *all = malloc((size_t)n * F_COUNT * sizeof(double));
    if (!all)
        die("out of memory");
    if (sym_all_gather(sym_team_world(), all, mine, F_COUNT, SYM_DOUBLE, NULL) != SYM_OK)
        die("sym_all_gather of the figures");
    uint64_t mailbox = 0;
    if (sym_config_uint("SYMHEAP_MAILBOX_SIZE", &mailbox) != SYM_OK)
        die("sym_config_uint");
    if (sym_my_pe() == 0) {
        double med, max, lo = smallest(all, n, F_MAIN), dummy;
        printf("scale npes=%d", n);
        spread(all, n, F_INIT, &med, &max);
        printf(" init_med=%.3f init_max=%.3f", med, max);
        spread(all, n, F_MAIN, &dummy, &max);
        printf(" launch_span=%.3f", max - lo);
        if (t0 > 0) {
            spread(all, n, F_READY, &dummy, &max);
            printf(" ready=%.3f", max - t0);
        }
        spread(all, n, F_BARRIER, &med, &max);
        printf(" barrier_med=%.4f barrier_max=%.4f", med, max);
        static const struct {
            enum fig f;
            const char *name;
        } kib[] = {{F_RSS, "rss"},
                   {F_ANON, "anon"},
                   {F_SHMEM, "shmem"},
                   {F_RESERVED, "heap_reserved"},
                   {F_TEAM_RESERVED, "team_reserved"},
                   {F_TEAM_SHMEM, "team_shmem"},
                   {F_TEAM_ANON, "team_anon"},
                   {F_TEAM_SPLIT_SHMEM, "team_split_shmem"}};
        for (size_t k = 0; k < sizeof(kib) / sizeof(kib[0]); k++) {
            if (!team && kib[k].f >= F_TEAM_RESERVED)
                continue;
            spread(all, n, kib[k].f, &med, &max);
            printf(" %s_med=%.0f %s_max=%.0f", kib[k].name, med, kib[k].name, max);
        }
        if (touch) {
            spread(all, n, F_TOUCH_FIRST, &med, &max);
            printf(" touch_first_us_med=%.1f touch_first_us_max=%.1f", med, max);
            spread(all, n, F_TOUCH_AGAIN, &med, &max);
            printf(" touch_again_us_med=%.2f", med);
            spread(all, n, F_TOUCH_PTE, &med, &max);
            printf(" touch_pte_med=%.0f touch_pte_max=%.0f", med, max);
        }
        printf(" mailbox_cfg=%.0f", (double)mailbox / 1024.0);
        if (team)
            printf(" team_members=%d team_count=%zu", n, count);
        printf("\n");
    }
    free(all);
    if (sym_finalize() != SYM_OK)
        die("sym_finalize");
    return 0;
}
