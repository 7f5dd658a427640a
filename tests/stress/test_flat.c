/*
 * test_flat.c - resources stay flat: after 10,000 (quick: 1,000) team create/destroy
 * cycles and as many symmetric alloc/free cycles of mixed sizes, every PE has
 * exactly the heap free bytes (and largest block), open file descriptors,
 * memory mappings and malloc'ed bytes it had before.
 *
 * A short warm-up runs first so buffers that are meant to be kept between
 * calls (per-team scratch, the mailbox's first use) exist in both snapshots.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

#define CYCLES 10000
/* SYMHEAP_TEST_QUICK (the sanitizer stages): a tenth.  1000 cycles still
 * create 1000-2000 teams, many times the team region's default room and the quarantine
 * of 256 ids, and 1000 alloc/free/realloc rounds: a per-cycle leak shows
 * 1000 times over.  Under ASan the full counts took 54 s of test time
 * (teams 40 s, alloc 14 s), under TSan test_flat took 88 s. */
static int cycles(void)
{
    return getenv("SYMHEAP_TEST_QUICK") ? CYCLES / 10 : CYCLES;
}
#define WARMUP   600
#define MAX_LIVE 8

struct snap {
    size_t heap_free, heap_largest, malloc_inuse;
    int fds, maps_file, maps_anon;
};

static int count_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    PE_ASSERT(d, "cannot open /proc/self/fd");
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        if (e->d_name[0] != '.')
            n++;
    closedir(d);
    return n - 1; /* the directory's own descriptor */
}

/* Mappings of a file (the heaps are memfds, "/memfd:symheap-heap") and anonymous ones. */
static void count_maps(int *file_p, int *anon_p)
{
    FILE *f = fopen("/proc/self/maps", "r");
    PE_ASSERT(f, "cannot open /proc/self/maps");
    char line[4096];
    *file_p = *anon_p = 0;
    while (fgets(line, sizeof(line), f)) {
        const char *path = strchr(line, '/');
        if (path)
            ++*file_p;
        else
            ++*anon_p;
    }
    fclose(f);
}

static void take(struct snap *s)
{
    PE_OK(sym_heap_free(&s->heap_free, &s->heap_largest));
    s->fds = count_fds();
    count_maps(&s->maps_file, &s->maps_anon);
    s->malloc_inuse = mallinfo2().uordblks;
}

static void compare(const struct snap *a, const struct snap *b, const char *what)
{
    PE_ASSERT(a->heap_free == b->heap_free && a->heap_largest == b->heap_largest,
              "after %d %s cycles: heap free %zu bytes (largest %zu), before %zu (largest %zu)",
              cycles(), what, b->heap_free, b->heap_largest, a->heap_free, a->heap_largest);
    PE_ASSERT(a->fds == b->fds, "after %d %s cycles: %d open descriptors, before %d", cycles(),
              what, b->fds, a->fds);
    PE_ASSERT(a->maps_file == b->maps_file, "after %d %s cycles: %d file mappings, before %d",
              cycles(), what, b->maps_file, a->maps_file);
    /* ASan's allocator maps fresh memory while its quarantine holds freed
     * blocks, so anonymous mappings are only comparable without it */
    PE_ASSERT(UNDER_ASAN || a->maps_anon == b->maps_anon,
              "after %d %s cycles: %d anonymous mappings, before %d", cycles(), what, b->maps_anon,
              a->maps_anon);
    PE_ASSERT(a->malloc_inuse == b->malloc_inuse,
              "after %d %s cycles: %zu bytes malloc'ed, before %zu (%+lld)", cycles(), what,
              b->malloc_inuse, a->malloc_inuse,
              (long long)b->malloc_inuse - (long long)a->malloc_inuse);
    /* the figures behind "flat": what the cycles left behind */
    if (sym_my_pe() == 0)
        fprintf(stderr,
                "flat: %d %s cycles at %d PEs, PE 0 before = after: heap free %zu "
                "bytes (largest %zu), %d descriptors, %d file and %d anonymous mappings, "
                "%zu bytes malloc'ed\n",
                cycles(), what, sym_n_pes(), a->heap_free, a->heap_largest, a->fds, a->maps_file,
                a->maps_anon, a->malloc_inuse);
}

static uint64_t next(uint64_t *s)
{
    *s += UINT64_C(0x9e3779b97f4a7c15);
    uint64_t z = *s;
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* One create/destroy cycle; every 50th also runs a collective on the team. */
static void team_cycle(int i, int npes)
{
    sym_team_t a = SYM_TEAM_INVALID, b = SYM_TEAM_INVALID;
    switch (i % 3) {
    case 0: {
        int size = 1 + i % npes;
        PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, size, &a));
        break;
    }
    case 1:
        PE_OK(sym_team_split_2d_ragged(sym_team_world(), 1 + i % npes, &a, &b));
        break;
    default: {
        int members[HARNESS_MAX_PES];
        for (int k = 0; k < npes; k++)
            members[k] = (k + i) % npes;
        PE_OK(sym_team_create(sym_team_world(), members, npes, &a));
        break;
    }
    }
    if (i % 50 == 0 && a != SYM_TEAM_INVALID) {
        double in[64], out[64];
        for (int k = 0; k < 64; k++)
            in[k] = k;
        PE_OK(sym_allreduce(a, out, in, 64, SYM_DOUBLE, SYM_OP_SUM, NULL));
        PE_ASSERT(out[63] == 63.0 * sym_team_n_pes(a), "allreduce on a cycled team: %g", out[63]);
    }
    if (a != SYM_TEAM_INVALID)
        PE_OK(sym_team_destroy(a));
    if (b != SYM_TEAM_INVALID)
        PE_OK(sym_team_destroy(b));
}

static void teams_body(int me, int npes, void *arg)
{
    (void)me;
    (void)arg;
    for (int i = 0; i < WARMUP; i++)
        team_cycle(i, npes);
    PE_OK(sym_barrier_all());
    struct snap before, after;
    take(&before);
    for (int i = 0; i < cycles(); i++)
        team_cycle(i, npes);
    PE_OK(sym_barrier_all());
    take(&after);
    compare(&before, &after, "team create/destroy");
}

/* Up to MAX_LIVE objects of mixed sizes (64 B .. 1 MiB), allocated,
 * reallocated and freed in a random order the same on every PE. */
static void alloc_cycles(int n, uint64_t seed)
{
    void *live[MAX_LIVE] = {0};
    size_t sizes[MAX_LIVE] = {0};
    uint64_t s = seed;
    for (int i = 0; i < n; i++) {
        int k = (int)(next(&s) % MAX_LIVE);
        uint64_t r = next(&s);
        size_t size = r % 4 == 0 ? 1 + next(&s) % (1 << 20) : 1 + next(&s) % 4096;
        if (!live[k]) {
            switch (r % 3) {
            case 0:
                live[k] = sym_malloc(size);
                break;
            case 1:
                live[k] = sym_calloc(1, size);
                break;
            default:
                live[k] = sym_align((size_t)64 << (r % 10), size);
                break;
            }
            PE_ASSERT(live[k], "allocation of %zu bytes failed: %s", size, sym_last_error());
            sizes[k] = size;
            memset(live[k], 0x5a, size);
        } else if (r % 5 == 0) {
            void *p = sym_realloc(live[k], size);
            PE_ASSERT(p, "realloc to %zu bytes failed: %s", size, sym_last_error());
            size_t kept = size < sizes[k] ? size : sizes[k];
            PE_ASSERT(((unsigned char *)p)[0] == 0x5a && ((unsigned char *)p)[kept - 1] == 0x5a,
                      "realloc %zu -> %zu lost the contents", sizes[k], size);
            memset(p, 0x5a, size);
            live[k] = p;
            sizes[k] = size;
        } else {
            sym_free(live[k]);
            live[k] = NULL;
        }
    }
    for (int k = 0; k < MAX_LIVE; k++)
        sym_free(live[k]);
}

static void alloc_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    alloc_cycles(200, 7);
    PE_OK(sym_barrier_all());
    struct snap before, after;
    take(&before);
    alloc_cycles(cycles(), 8);
    PE_OK(sym_barrier_all());
    take(&after);
    compare(&before, &after, "alloc/free");
}

static const char *const flat_env[] = {
    "SYMHEAP_HEAP_SIZE=64M",
    NULL,
};

ParameterizedTestParameters(flat, teams)
{
    static int npes[] = {2, 3, 4};
    return cr_make_param_array(int, npes, sizeof(npes) / sizeof(npes[0]));
}

ParameterizedTest(int *npes, flat, teams, .timeout = HARNESS_CR_TIMEOUT(300))
{
    struct pe_job job = {.npes = *npes, .body = teams_body, .env = flat_env, .job_timeout_s = 280};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

ParameterizedTestParameters(flat, alloc)
{
    static int npes[] = {2, 3, 4};
    return cr_make_param_array(int, npes, sizeof(npes) / sizeof(npes[0]));
}

ParameterizedTest(int *npes, flat, alloc, .timeout = HARNESS_CR_TIMEOUT(300))
{
    struct pe_job job = {.npes = *npes, .body = alloc_body, .env = flat_env, .job_timeout_s = 280};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
