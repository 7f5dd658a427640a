/*
 * stress_common.c - the stress program's state, counters, keyed random
 * numbers, failure and wrong-result reports, and symmetric work areas.
 */
#include "stress_private.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

const char *const stress_env[] = {
    "SYMHEAP_HEAP_SIZE=24M",      "SYMHEAP_MAILBOX_SIZE=64K", /* team areas of 16 KiB: small
                                                                 chunks */
    "SYMHEAP_TEAM_AREA_SIZE=16K", "SYMHEAP_TIMEOUT=60",       NULL,
};

void stress_opts_default(struct stress_opts *o)
{
    memset(o, 0, sizeof(*o));
    o->seed = 1;
    o->steps = 1000;
    o->max_bytes = 160 * 1024;
    o->max_wrong_reports = 10;
}

const char *const counter_names[CNT_N] = {
#define C_NAME_(e, name) name,
    COUNTERS(C_NAME_)
#undef C_NAME_
};

/* The stress program's state on this PE (stress_private.h). */
struct stress_state stress_state;

uint64_t mix64(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t key3(uint64_t a, uint64_t b, uint64_t c)
{
    return mix64(stress_state.o.seed ^ mix64(a ^ mix64(b ^ mix64(c))));
}

uint64_t rnext(struct rng *r)
{
    r->s += UINT64_C(0x9e3779b97f4a7c15);
    return mix64(r->s);
}

uint64_t rbelow(struct rng *r, uint64_t n)
{
    return n ? rnext(r) % n : 0;
}

bool rchance(struct rng *r, unsigned percent)
{
    return rbelow(r, 100) < percent;
}

struct rng rng_for(uint64_t step, uint64_t pe, uint64_t salt)
{
    return (struct rng){key3(step, pe, salt)};
}

void fill_bytes(void *buf, size_t n, uint64_t key)
{
    uint8_t *b = buf;
    for (size_t i = 0; i < n; i += 8) {
        uint64_t v = mix64(key + i / 8);
        memcpy(b + i, &v, n - i < 8 ? n - i : 8);
    }
}

/* Byte i of fill_bytes(key) without generating the rest. */
uint8_t byte_at(uint64_t key, size_t i)
{
    return (uint8_t)(mix64(key + i / 8) >> (8 * (i % 8)));
}

/* Sizes: 0, 1, primes, small, up to `max`, and near `max` (which is more
 * than the mailbox). */
size_t pick_count(struct rng *r, size_t max)
{
    static const size_t primes[] = {2, 3, 5, 7, 11, 13, 31, 61, 127, 251, 509, 1021, 4093};
    size_t c;
    switch (rbelow(r, 20)) {
    case 0:
        c = 0;
        break;
    case 1:
        c = 1;
        break;
    case 2:
    case 3:
    case 4:
        c = primes[rbelow(r, sizeof(primes) / sizeof(primes[0]))];
        break;
    case 5:
        c = max;
        break;
    case 6:
        c = max - rbelow(r, max / 8 + 1);
        break;
    case 7:
    case 8:
        c = rbelow(r, max + 1);
        break;
    default:
        c = rbelow(r, (max < 600 ? max : 600) + 1);
        break;
    }
    return c > max ? max : c;
}

void replay_hint(FILE *f)
{
    fprintf(f,
            "  replay: symheap-stress --pes %d --seed %" PRIu64 " --start-step %" PRIu64
            " --steps %" PRIu64 " --max-bytes %zu\n",
            stress_state.n, stress_state.o.seed, stress_state.step, stress_state.step + 1,
            stress_state.o.max_bytes);
}

void set_what(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(stress_state.what, sizeof(stress_state.what), fmt, ap);
    va_end(ap);
    if (stress_state.o.verbose >= 2 ||
        (stress_state.o.verbose == 1 && stress_state.me == 0 && !stress_state.dry))
        fprintf(stderr, "stress: PE %d step %" PRIu64 ": %s\n", stress_state.me, stress_state.step,
                stress_state.what);
}

void die(const char *call, sym_status_t st)
{
    fprintf(stderr,
            "stress: PE %d: FAILED at seed %" PRIu64 " step %" PRIu64 " (%s): %s "
            "returned %s: %s\n",
            stress_state.me, stress_state.o.seed, stress_state.step, stress_state.what, call,
            sym_status_name(st), sym_last_error());
    replay_hint(stderr);
    fflush(NULL);
    _exit(2);
}

void wrong(const char *fmt, ...)
{
    stress_state.wrong++;
    if (stress_state.wrong > (uint64_t)stress_state.o.max_wrong_reports)
        return;
    char msg[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    fprintf(stderr, "stress: PE %d: WRONG at seed %" PRIu64 " step %" PRIu64 " (%s): %s\n",
            stress_state.me, stress_state.o.seed, stress_state.step, stress_state.what, msg);
    replay_hint(stderr);
    fflush(stderr);
}

/* Compare got with want; one wrong result per differing buffer. */
bool check_buf(const void *got, const void *want, size_t bytes, size_t elsize, const char *name)
{
    if (bytes == 0 || memcmp(got, want, bytes) == 0)
        return true;
    const uint8_t *g = got, *w = want;
    size_t first = 0, nbad = 0;
    for (size_t i = 0; i < bytes; i++)
        if (g[i] != w[i] && nbad++ == 0)
            first = i;
    size_t e = first / elsize * elsize, len = elsize < 8 ? elsize : 8;
    char gh[20] = "", wh[20] = "";
    for (size_t i = 0; i < len && e + i < bytes; i++) {
        snprintf(gh + 2 * i, 3, "%02x", g[e + i]);
        snprintf(wh + 2 * i, 3, "%02x", w[e + i]);
    }
    wrong("%s: %zu of %zu bytes differ; first at byte %zu (element %zu): got %s, expected %s", name,
          nbad, bytes, first, first / elsize, gh, wh);
    return false;
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "stress: PE %d: out of memory (%zu bytes)\n", stress_state.me, n);
        _exit(3);
    }
    return p;
}

void *sym_alloc_or_die(size_t bytes, const char *what)
{
    void *p = sym_calloc(1, bytes);
    if (!p) {
        fprintf(stderr, "stress: PE %d: cannot allocate %zu bytes for %s: %s\n", stress_state.me,
                bytes, what, sym_last_error());
        _exit(2);
    }
    return p;
}

void areas_init(void)
{
    stress_state.rma_bytes = stress_state.o.max_bytes + 2 * MARGIN;
    stress_state.rma = sym_alloc_or_die(stress_state.rma_bytes, "the RMA region");
    stress_state.sig = sym_alloc_or_die(MAXPE * 8, "signal words");
    stress_state.sig_add = sym_alloc_or_die(MAXPE * 8, "signal words");
    stress_state.iv_i32 = sym_alloc_or_die(MAXPE * 4, "wait words");
    stress_state.iv_i64 = sym_alloc_or_die(MAXPE * 8, "wait words");
    stress_state.iv_u32 = sym_alloc_or_die(MAXPE * 4, "wait words");
    stress_state.iv_u64 = sym_alloc_or_die(MAXPE * 8, "wait words");
    stress_state.amo32 = sym_alloc_or_die(2 * MAXPE * 4, "atomic words");
    stress_state.amo64 = sym_alloc_or_die(2 * MAXPE * 8, "atomic words");
}

void areas_fini(void)
{
    sym_free(stress_state.amo64);
    sym_free(stress_state.amo32);
    sym_free(stress_state.iv_u64);
    sym_free(stress_state.iv_u32);
    sym_free(stress_state.iv_i64);
    sym_free(stress_state.iv_i32);
    sym_free(stress_state.sig_add);
    sym_free(stress_state.sig);
    sym_free(stress_state.rma);
}

/* One of the ways of synchronising all PEs after RMA. */
void sync_world(struct rng *r)
{
    switch (rbelow(r, 4)) {
    case 0:
        CALL(sym_barrier_all());
        stress_state.count[CNT_BARRIER_ALL]++;
        break;
    case 1:
        CALL(sym_quiet());
        CALL(sym_sync_all());
        stress_state.count[CNT_QUIET]++;
        stress_state.count[CNT_SYNC_ALL]++;
        break;
    default: {
        static const sym_algorithm_t algos[] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE,
                                                SYM_ALGO_RD};
        sym_coll_opts_t opts = {.algorithm = algos[rbelow(r, 4)]};
        CALL(sym_quiet());
        CALL(sym_barrier(sym_team_world(), &opts));
        stress_state.count[CNT_QUIET]++;
        stress_state.count[CNT_BARRIER]++;
        break;
    }
    }
}
