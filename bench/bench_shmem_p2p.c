/*
 * bench_shmem_p2p.c - OpenSHMEM point-to-point benchmarks written against
 * shmem.h only (OpenSHMEM 1.4 calls, so any implementation builds them:
 * symheap's facade through meson, Open MPI's OSHMEM through `oshcc`):
 *
 *   rma       put / get latency (putmem + quiet; blocking getmem) and their
 *             nbi forms (putmem_nbi / getmem_nbi + quiet), 1 B .. 4 MiB;
 *             bandwidth and message rate (back-to-back puts / nbi gets, one
 *             quiet per sample), PE 0 -> PE 1, next to memcpy of the size;
 *   amo       latency (PE 0 -> PE 1, non-fetching ops followed by quiet) and
 *             aggregate rate (every PE -> its right neighbour, one quiet per
 *             sample) of every atomic on long/ulong (64 bit) and int/uint
 *             (32 bit);
 *   pingpong  putmem payload + fence + long_atomic_set flag, answered after
 *             shmem_long_wait_until, one-way, next to the raw cache-line
 *             ping-pong of two plain processes sampled interleaved;
 *
 * each on the symmetric heap (shmem_malloc) and on global variables (which
 * OpenSHMEM makes symmetric too; --where heap|global|both).
 *
 *   oshrun -np 2 bench_shmem_p2p [--part rma,amo,pingpong] [--where heap]
 *          [--json FILE] [--min-size 1] [--max-size 4M] [--size-step 4] ...
 *
 * This file: the options, the buffers of both places, and the order of the
 * parts; each part is bench_shmem_p2p_<part>.c.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_shmem_p2p.h"

/* Global (data-segment) symmetric objects. */
static uint8_t g_put_dst[GMAX + BENCH_GUARD];
static uint8_t g_bw_dst[GMAX + BENCH_GUARD];
static uint8_t g_get_src[GMAX + BENCH_GUARD];
static uint8_t g_pp_buf[PP_MAX];
static long g_pp_flag;
static long g_amo_word;
static int g_amo_word32;

static struct {
    bool rma, amo, pingpong;
    bool heap, global;
    const char *global_part; /* --global-part: parts run on globals (NULL: as --part) */
} cfg = {true, true, true, true, true, NULL};

void *xmalloc(size_t n)
{
    void *p = NULL;
    if (posix_memalign(&p, 4096, n) != 0)
        bench_die("out of memory (%zu bytes)", n);
    memset(p, 0, n); /* fault the pages in before anything is timed */
    return p;
}

static bool has(const char *list, const char *word)
{
    size_t n = strlen(word);
    for (const char *p = list; (p = strstr(p, word)); p += n)
        if ((p == list || p[-1] == ',') && (p[n] == 0 || p[n] == ','))
            return true;
    return false;
}

static int strip_own_args(int argc, char **argv)
{
    int out = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--global-part") == 0) {
            if (!v) {
                fprintf(stderr, "bench_shmem_p2p: option '%s' needs a value\n", a);
                exit(2);
            }
            cfg.global_part = v;
            i++;
        } else if (strcmp(a, "--part") == 0 || strcmp(a, "--where") == 0) {
            if (!v) {
                fprintf(stderr, "bench_shmem_p2p: option '%s' needs a value\n", a);
                exit(2);
            }
            if (a[2] == 'p') {
                cfg.rma = has(v, "rma") || has(v, "all");
                cfg.amo = has(v, "amo") || has(v, "all");
                cfg.pingpong = has(v, "pingpong") || has(v, "all");
                if (!cfg.rma && !cfg.amo && !cfg.pingpong) {
                    fprintf(stderr, "bench_shmem_p2p: --part takes rma,amo,pingpong or all\n");
                    exit(2);
                }
            } else {
                cfg.heap = has(v, "heap") || has(v, "both");
                cfg.global = has(v, "global") || has(v, "both");
                if (!cfg.heap && !cfg.global) {
                    fprintf(stderr, "bench_shmem_p2p: --where takes heap, global or both\n");
                    exit(2);
                }
            }
            i++;
        } else {
            if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0)
                printf("bench_shmem_p2p options besides the harness's (below):\n"
                       "  --part LIST   rma,amo,pingpong or all (default all)\n"
                       "  --where W     heap, global or both (default both)\n"
                       "  --global-part LIST  of those parts, the ones also run on global\n"
                       "                variables (default: all of --part)\n\n");
            argv[out++] = argv[i];
        }
    }
    argv[out] = NULL;
    return out;
}

int main(int argc, char **argv)
{
    static const struct bench_info info = {
        .name = "bench_shmem_p2p",
        .about = "OpenSHMEM put/get (blocking and nbi) latency, bandwidth and message rate, "
                 "atomics latency and rate, put + wait_until ping-pong; heap and globals",
        .default_min_size = 1,
        .default_max_size = GMAX,
    };
    argc = strip_own_args(argc, argv);
    bench_init(argc, argv, &info);
    const size_t max = bench_opt.max_size;
    struct loc heap = {.name = "heap"}, global = {.name = "global"};
    heap.put_dst = shmem_malloc(max + BENCH_GUARD);
    heap.bw_dst = shmem_malloc(max + BENCH_GUARD);
    heap.get_src = shmem_malloc(max + BENCH_GUARD);
    heap.pp_buf = shmem_malloc(PP_MAX);
    heap.pp_flag = shmem_malloc(sizeof(long));
    heap.word = shmem_malloc(sizeof(long));
    heap.word32 = shmem_malloc(sizeof(int));
    if (!heap.put_dst || !heap.bw_dst || !heap.get_src || !heap.pp_buf || !heap.pp_flag ||
        !heap.word || !heap.word32)
        bench_die("shmem_malloc of %zu-byte buffers failed (symmetric heap too small?)",
                  max + BENCH_GUARD);
    memset(heap.put_dst, 0, max + BENCH_GUARD);
    memset(heap.bw_dst, 0, max + BENCH_GUARD);
    memset(heap.get_src, 0, max + BENCH_GUARD);
    memset(heap.pp_buf, 0, PP_MAX);
    global.put_dst = g_put_dst;
    global.bw_dst = g_bw_dst;
    global.get_src = g_get_src;
    global.pp_buf = g_pp_buf;
    global.pp_flag = &g_pp_flag;
    global.word = &g_amo_word;
    global.word32 = &g_amo_word32;
    bench_barrier();
    if (cfg.global) {
        /* An implementation that keeps only its heap symmetric says so here
         * (symheap's facade does, for now). */
        const int peer = bench_npes() > 1 ? 1 : 0;
        uint64_t ok = bench_bcast_u64(shmem_addr_accessible(g_put_dst, peer) &&
                                      shmem_addr_accessible(&g_amo_word, peer));
        if (!ok) {
            bench_note("global variables: skipped, shmem_addr_accessible() says %s cannot "
                       "reach a global variable of PE %d",
                       bench_impl(), peer);
            cfg.global = false;
        }
    }

    const struct loc *locs[2];
    int nlocs = 0;
    if (cfg.heap)
        locs[nlocs++] = &heap;
    if (cfg.global)
        locs[nlocs++] = &global;
    for (int l = 0; l < nlocs; l++) {
        /* A quick run may keep globals to the parts its targets need. */
        const char *gp = locs[l] == &global ? cfg.global_part : NULL;
        if (cfg.rma && (!gp || has(gp, "rma") || has(gp, "all")))
            run_rma(locs[l], max);
        if (cfg.amo && (!gp || has(gp, "amo") || has(gp, "all")))
            run_amo(locs[l]);
        if (cfg.pingpong && (!gp || has(gp, "pingpong") || has(gp, "all")))
            run_pingpong(locs[l]);
    }
    if (cfg.global && cfg.global_part)
        bench_note("global variables: only the parts '%s' of '%s%s%s'", cfg.global_part,
                   cfg.rma ? "rma " : "", cfg.amo ? "amo " : "", cfg.pingpong ? "pingpong" : "");
    bench_barrier();
    shmem_free(heap.put_dst);
    shmem_free(heap.bw_dst);
    shmem_free(heap.get_src);
    shmem_free(heap.pp_buf);
    shmem_free(heap.pp_flag);
    shmem_free(heap.word);
    shmem_free(heap.word32);
    return bench_finish();
}
