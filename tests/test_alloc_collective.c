/* test_alloc_collective.c - the collective allocation calls (sym_malloc,
 * sym_calloc, sym_align, sym_realloc, sym_free) at 1..8 PEs: the same heap
 * offsets on every PE, contents kept and zeroed as promised, exhaustion,
 * reuse without leaks, and the calls' edge cases. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <string.h>

#include "alloc_check.h"
#include "harness.h"
#include "core/internal.h"
#include "splitmix.h"

#define MiB ((size_t)1 << 20)

/* Heap offset of a symmetric pointer (0 for NULL): addresses may differ
 * between PEs, offsets must not. */
static uint64_t off_of(const void *p)
{
    return p ? (uint64_t)((const uint8_t *)p - sym_core_base()) : 0;
}

static void heap_stats(size_t *f, size_t *l)
{
    PE_OK(sym_heap_free(f, l));
}

static void expect_heap(size_t f0, size_t l0, const char *after)
{
    size_t f, l;
    heap_stats(&f, &l);
    PE_ASSERT(f == f0 && l == l0,
              "after %s the heap has %zu free (largest %zu), expected %zu "
              "(largest %zu)",
              after, f, l, f0, l0);
}

/* PE 0 collects every PE's row of `n` offsets and checks they match its own. */
static void gather_and_compare(const uint64_t *mine, size_t count, int me, int npes,
                               const char *what)
{
    uint64_t *rows = sym_calloc((size_t)npes * count, sizeof(uint64_t));
    PE_ASSERT(rows, "sym_calloc for the gather: %s", sym_last_error());
    PE_OK(sym_put(rows + (size_t)me * count, mine, count * sizeof(uint64_t), 0));
    PE_OK(sym_barrier_all());
    if (me == 0)
        for (int pe = 1; pe < npes; pe++)
            for (size_t i = 0; i < count; i++)
                PE_ASSERT(rows[(size_t)pe * count + i] == rows[i],
                          "%s: step %zu gave heap offset %" PRIu64 " on PE %d but %" PRIu64
                          " on PE 0",
                          what, i, rows[(size_t)pe * count + i], pe, rows[i]);
    PE_OK(sym_barrier_all());
    sym_free(rows);
}

static uint8_t tag_byte(unsigned tag, size_t i)
{
    return (uint8_t)(tag * 37u + i * 13u + (i >> 9));
}

static void fill_tag(uint8_t *p, size_t n, unsigned tag)
{
    for (size_t i = 0; i < n; i++)
        p[i] = tag_byte(tag, i);
}

static void check_tag(const uint8_t *p, size_t n, unsigned tag, const char *what)
{
    for (size_t i = 0; i < n; i++)
        PE_ASSERT(p[i] == tag_byte(tag, i), "%s: byte %zu is %u, expected %u", what, i, p[i],
                  tag_byte(tag, i));
}

/* The same pseudo-random sequence of every allocation call on every PE.
 * Each live object is filled with its own tag and checked before it is
 * resized or freed, so overlapping objects would show up as clobbered
 * bytes; offsets of every result are then compared across PEs. */
enum { SEQ_STEPS = 120, SEQ_SLOTS = 20 };

static void same_sequence_body(int me, int npes, void *arg)
{
    (void)arg;
    size_t f0, l0;
    heap_stats(&f0, &l0);
    uint64_t offs[SEQ_STEPS];
    uint8_t *obj[SEQ_SLOTS] = {0};
    size_t len[SEQ_SLOTS] = {0};
    unsigned tag[SEQ_SLOTS] = {0};
    uint64_t rng = 777; /* the same seed on every PE */
    int calls[5] = {0}; /* malloc, calloc, align, realloc, free */
    for (int step = 0; step < SEQ_STEPS; step++) {
        uint64_t r = splitmix(&rng);
        int slot = (int)(r % SEQ_SLOTS), kind = (int)((r >> 8) % 4);
        size_t size = 1 + (size_t)((r >> 16) % ((r >> 48) % 8 == 0 ? 300000 : 5000));
        uint8_t *p = NULL;
        char what[64];
        snprintf(what, sizeof(what), "step %d (slot %d)", step, slot);
        if (obj[slot]) {
            check_tag(obj[slot], len[slot], tag[slot], what);
            if (kind < 2) {
                sym_free(obj[slot]);
                obj[slot] = NULL;
                offs[step] = UINT64_MAX; /* marks a free in the record */
                calls[4]++;
                continue;
            }
            p = sym_realloc(obj[slot], size);
            PE_ASSERT(p, "%s: sym_realloc(%zu): %s", what, size, sym_last_error());
            check_tag(p, len[slot] < size ? len[slot] : size, tag[slot], what);
            calls[3]++;
        } else if (kind == 0) {
            p = sym_malloc(size);
            calls[0]++;
        } else if (kind == 1) {
            calls[1]++;
            p = sym_calloc(size, 1);
            for (size_t i = 0; p && i < size; i++)
                PE_ASSERT(p[i] == 0, "%s: sym_calloc byte %zu is %u", what, i, p[i]);
        } else {
            size_t align = (size_t)1 << (6 + (r >> 40) % 12);
            p = sym_align(align, size);
            calls[2]++;
            /* the offset, not the address: the address alignment is the
             * subject of alloc::align */
            PE_ASSERT(!p || off_of(p) % align == 0, "%s: offset %" PRIu64 " not %zu-aligned", what,
                      off_of(p), align);
        }
        PE_ASSERT(p, "%s: allocation of %zu bytes failed: %s", what, size, sym_last_error());
        PE_ASSERT((uintptr_t)p % 64 == 0, "%s: %p is not 64-byte aligned", what, (void *)p);
        obj[slot] = p;
        len[slot] = size;
        tag[slot] = (unsigned)step * 7u + (unsigned)me;
        fill_tag(p, size, tag[slot]);
        offs[step] = off_of(p);
    }
    for (int k = 0; k < 5; k++)
        PE_ASSERT(calls[k] >= 5, "the sequence made only %d calls of kind %d", calls[k], k);
    for (int s = 0; s < SEQ_SLOTS; s++)
        if (obj[s]) {
            check_tag(obj[s], len[s], tag[s], "final check");
            sym_free(obj[s]);
        }
    expect_heap(f0, l0, "freeing everything");
    gather_and_compare(offs, SEQ_STEPS, me, npes, "allocation sequence");
}

ParameterizedTestParameters(alloc, same_offsets_on_every_pe)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, alloc, same_offsets_on_every_pe)
{
    run_pes(*npes, same_sequence_body, NULL);
}

ParameterizedTestParameters(alloc, same_offsets_debug)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, alloc, same_offsets_debug)
{
    static const char *const env[] = {"SYMHEAP_DEBUG=1", NULL};
    run_pes_env(*npes, env, same_sequence_body, NULL);
}

/* With SYMHEAP_DEBUG the verification must actually run: PEs that ask for
 * different sizes are told so (only PE 0's own view matches itself). */
static void mismatch_body(int me, int npes, void *arg)
{
    (void)arg;
    (void)npes;
    void *p = sym_malloc(me == 0 ? 1000 : 2000);
    if (me != 0) {
        PE_ASSERT(!p, "mismatched collective allocation succeeded on PE %d", me);
        PE_ASSERT(strstr(sym_last_error(), "differ"),
                  "message does not report the mismatch: "
                  "'%s'",
                  sym_last_error());
    }
    PE_OK(sym_barrier_all());
}

Test(alloc, debug_detects_mismatch)
{
    static const char *const env[] = {"SYMHEAP_DEBUG=1", NULL};
    run_pes_env(2, env, mismatch_body, NULL);
}

/* sym_calloc must hand out zeroes even where a freed object left garbage,
 * and every PE's copy must be zero before any PE can put into it. */
static void calloc_body(int me, int npes, void *arg)
{
    (void)arg;
    const size_t N = 256 * 1024;
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    size_t f0, l0;
    heap_stats(&f0, &l0);

    uint8_t *dirty = sym_malloc(N);
    uint8_t *after = sym_malloc(64);
    PE_ASSERT(dirty && after, "sym_malloc: %s", sym_last_error());
    memset(dirty, 0xA5, N);
    uint8_t junk[4096];
    memset(junk, 0x5A, sizeof(junk));
    PE_OK(sym_barrier_all());
    PE_OK(sym_put(dirty + N - sizeof(junk), junk, sizeof(junk), right)); /* remote dirt too */
    PE_OK(sym_barrier_all());
    sym_free(dirty);

    /* smaller than the hole, so first fit puts it exactly where the dirt was */
    uint32_t *z = sym_calloc(N / 4 - 16, 4);
    PE_ASSERT(z, "sym_calloc: %s", sym_last_error());
    PE_ASSERT((void *)z == (void *)dirty,
              "calloc did not reuse the dirtied region (%p vs %p): "
              "the test would not test anything",
              (void *)z, (void *)dirty);
    /* word 7 is skipped: the left neighbour may already have put into it */
    for (size_t i = 0; i < N / 4 - 16; i++)
        PE_ASSERT(i == 7 || z[i] == 0, "sym_calloc word %zu is 0x%x", i, z[i]);
    /* the right neighbour's copy is zero already: calloc's barrier follows
     * the zeroing on every PE */
    uint8_t *peer = malloc(N);
    PE_ASSERT(peer, "malloc");
    PE_OK(sym_get(peer, z, N - 64, right));
    for (size_t i = 0; i < N - 64; i++)
        PE_ASSERT(peer[i] == 0, "PE %d's calloc byte %zu is %u after calloc returned", right, i,
                  peer[i]);
    /* a put right after calloc returns must survive (no late zeroing) */
    uint32_t word = 0xC0DE0000u + (uint32_t)me;
    PE_OK(sym_put(&z[7], &word, sizeof(word), right));
    PE_OK(sym_barrier_all());
    PE_ASSERT(z[7] == 0xC0DE0000u + (uint32_t)left, "put after calloc lost: word is 0x%x", z[7]);

    /* grow into dirt at the heap tail: a larger calloc covering the old
     * object and fresh space */
    sym_free(z);
    sym_free(after);
    uint8_t *big = sym_malloc(2 * N);
    PE_ASSERT(big, "sym_malloc: %s", sym_last_error());
    memset(big, 0xFF, 2 * N);
    PE_OK(sym_barrier_all());
    sym_free(big);
    uint64_t *z2 = sym_calloc(2 * N / 8, 8);
    PE_ASSERT((void *)z2 == (void *)big, "second calloc not at the dirtied spot");
    for (size_t i = 0; i < 2 * N / 8; i++)
        PE_ASSERT(z2[i] == 0, "sym_calloc word %zu is 0x%" PRIx64, i, z2[i]);
    sym_free(z2);
    free(peer);
    expect_heap(f0, l0, "the calloc test");
}

ParameterizedTestParameters(alloc, calloc_zeroes_dirty_memory)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, alloc, calloc_zeroes_dirty_memory)
{
    run_pes(*npes, calloc_body, NULL);
}

/* After a realloc, every PE puts a tagged block into its right neighbour's
 * new object; each PE then checks what its left neighbour wrote. */
static void remote_round(uint8_t *p, size_t size, int me, int npes, unsigned salt)
{
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint8_t *buf = malloc(size);
    PE_ASSERT(buf, "malloc");
    fill_tag(buf, size, salt + (unsigned)me);
    PE_OK(sym_barrier_all());
    PE_OK(sym_put(p, buf, size, right));
    PE_OK(sym_barrier_all());
    check_tag(p, size, salt + (unsigned)left, "remote put into the reallocated object");
    PE_OK(sym_barrier_all());
    free(buf);
}

static void realloc_body(int me, int npes, void *arg)
{
    (void)arg;
    size_t f0, l0, f, l;
    heap_stats(&f0, &l0);
    unsigned t0 = 100u + (unsigned)me;

    uint8_t *p = sym_malloc(1000);
    PE_ASSERT(p, "sym_malloc: %s", sym_last_error());
    fill_tag(p, 1000, t0);

    /* grow in place: nothing follows p */
    uint8_t *g = sym_realloc(p, 5000);
    PE_ASSERT(g == p, "growing the last object moved it (%p -> %p)", (void *)p, (void *)g);
    check_tag(g, 1000, t0, "grow in place");
    expect_heap(f0 - round64(5000), l0 - round64(5000), "growing in place");
    remote_round(g, 5000, me, npes, 1000);

    /* grow by move: a blocker sits right behind the object */
    fill_tag(g, 5000, t0);
    uint8_t *blocker = sym_malloc(64);
    PE_ASSERT(blocker == g + round64(5000), "blocker not adjacent");
    heap_stats(&f, &l);
    uint8_t *m = sym_realloc(g, 20000);
    PE_ASSERT(m && m != g, "growing a blocked object: %p (%s)", (void *)m, sym_last_error());
    check_tag(m, 5000, t0, "grow by move");
    expect_heap(f + round64(5000) - round64(20000), l - round64(20000), "growing by move");
    remote_round(m, 20000, me, npes, 2000);

    /* shrink keeps the prefix and returns the tail */
    fill_tag(m, 20000, t0 + 7);
    heap_stats(&f, &l);
    uint8_t *s = sym_realloc(m, 300);
    PE_ASSERT(s == m, "shrinking moved the object");
    check_tag(s, 300, t0 + 7, "shrink");
    size_t f2;
    heap_stats(&f2, NULL);
    PE_ASSERT(f2 == f + round64(20000) - round64(300), "shrink returned %zu bytes, expected %zu",
              f2 - f, (size_t)(round64(20000) - round64(300)));
    remote_round(s, 300, me, npes, 3000);

    /* realloc(NULL, n) allocates; realloc(p, 0) frees */
    uint8_t *n = sym_realloc(NULL, 128);
    PE_ASSERT(n, "sym_realloc(NULL, 128): %s", sym_last_error());
    remote_round(n, 128, me, npes, 4000);
    PE_ASSERT(sym_realloc(n, 0) == NULL, "sym_realloc(p, 0) returned non-NULL");

    /* a failed realloc leaves the object and its contents alone */
    fill_tag(s, 300, t0 + 9);
    heap_stats(&f, &l);
    PE_ASSERT(sym_realloc(s, f0 + 4096) == NULL, "realloc beyond the heap succeeded");
    expect_heap(f, l, "a failed realloc");
    check_tag(s, 300, t0 + 9, "after a failed realloc");
    remote_round(s, 300, me, npes, 5000);

    sym_free(s);
    sym_free(blocker);
    expect_heap(f0, l0, "the realloc test");
}

ParameterizedTestParameters(alloc, realloc_keeps_contents)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, alloc, realloc_keeps_contents)
{
    run_pes(*npes, realloc_body, NULL);
}

static void align_body(int me, int npes, void *arg)
{
    (void)arg;
    size_t f0, l0;
    heap_stats(&f0, &l0);
    /* misalign the next free offset first so alignment needs padding */
    uint8_t *pad = sym_malloc(64);
    uint8_t *a4k = sym_align(4096, 100);
    uint8_t *a1m = sym_align(MiB, 1000);
    PE_ASSERT(pad && a4k && a1m, "sym_align: %s", sym_last_error());
    PE_ASSERT((uintptr_t)a4k % 4096 == 0, "sym_align(4096) returned %p", (void *)a4k);
    PE_ASSERT((uintptr_t)a1m % MiB == 0, "sym_align(1 MiB) returned %p (heap offset %" PRIu64 ")",
              (void *)a1m, off_of(a1m));
    remote_round(a4k, 100, me, npes, 10);
    remote_round(a1m, 1000, me, npes, 20);
    uint64_t offs[3] = {off_of(pad), off_of(a4k), off_of(a1m)};
    gather_and_compare(offs, 3, me, npes, "sym_align");

    /* freeing them gives back the padding too */
    sym_free(a1m);
    sym_free(a4k);
    sym_free(pad);
    expect_heap(f0, l0, "freeing the aligned objects");

    static const size_t bad[] = {0, 3, 48, 100, 4096 + 64, (size_t)1 << 20 | 1};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        PE_FAILS_WITH(sym_put(NULL, NULL, 0, npes), SYM_ERR_INVALID_PE);
        void *p = sym_align(bad[i], 256);
        PE_ASSERT(!p, "sym_align(%zu) succeeded", bad[i]);
        char num[32];
        snprintf(num, sizeof(num), "%zu", bad[i]);
        const char *msg = sym_last_error();
        PE_ASSERT(strstr(msg, "sym_align") && strstr(msg, num) && strstr(msg, "power of two"),
                  "sym_align(%zu): message '%s' is not the invalid-alignment error", bad[i], msg);
        expect_heap(f0, l0, "a rejected sym_align");
    }
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(alloc, align)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, alloc, align)
{
    run_pes(*npes, align_body, NULL);
}

static void expect_no_memory_msg(size_t want, size_t free_bytes, const char *call)
{
    const char *msg = sym_last_error();
    char w[32], f[32];
    snprintf(w, sizeof(w), "%zu", want);
    snprintf(f, sizeof(f), "%zu", free_bytes);
    PE_ASSERT(strstr(msg, w) && strstr(msg, f),
              "%s: message '%s' does not name the requested "
              "(%s) and free (%s) bytes",
              call, msg, w, f);
}

static void exhaustion_body(int me, int npes, void *arg)
{
    (void)arg;
    size_t f0, l0;
    heap_stats(&f0, &l0);
    PE_ASSERT(f0 == 16 * MiB && l0 == f0, "fresh 16M heap reports %zu free, largest %zu", f0, l0);

    PE_ASSERT(sym_malloc(f0 + 1) == NULL, "sym_malloc beyond the heap succeeded");
    expect_no_memory_msg(f0 + 1, f0, "sym_malloc");
    expect_heap(f0, l0, "sym_malloc beyond the heap");
    PE_ASSERT(sym_malloc(SIZE_MAX) == NULL, "sym_malloc(SIZE_MAX) succeeded");
    expect_heap(f0, l0, "sym_malloc(SIZE_MAX)");
    PE_ASSERT(sym_calloc(f0 / 8 + 1, 8) == NULL, "sym_calloc beyond the heap succeeded");
    expect_no_memory_msg(f0 + 8, f0, "sym_calloc");
    PE_ASSERT(sym_align(4096, f0 * 2) == NULL, "sym_align beyond the heap succeeded");
    expect_no_memory_msg(f0 * 2, f0, "sym_align");
    expect_heap(f0, l0, "failed calloc/align");

    /* fragmented: enough bytes in total but no block large enough */
    uint8_t *half = sym_malloc(f0 / 2);
    uint8_t *wall = sym_malloc(4096);
    PE_ASSERT(half && wall, "sym_malloc: %s", sym_last_error());
    sym_free(half);
    size_t f1, l1;
    heap_stats(&f1, &l1);
    PE_ASSERT(f1 == f0 - 4096 && l1 == f0 / 2, "fragmented heap: %zu free, largest %zu", f1, l1);
    PE_ASSERT(sym_malloc(f0 / 2 + 64) == NULL, "allocation larger than every free block "
                                               "succeeded");
    expect_no_memory_msg(f0 / 2 + 64, f1, "sym_malloc (fragmented)");
    expect_heap(f1, l1, "a failed allocation in a fragmented heap");

    /* a normal allocation still works and is usable remotely */
    uint8_t *ok = sym_malloc(1000);
    PE_ASSERT(ok, "sym_malloc after exhaustion: %s", sym_last_error());
    remote_round(ok, 1000, me, npes, 77);
    /* and the largest block is still fully allocatable */
    sym_free(ok);
    uint8_t *all = sym_malloc(l1);
    PE_ASSERT(all, "allocating the largest free block (%zu): %s", l1, sym_last_error());
    sym_free(all);
    sym_free(wall);
    expect_heap(f0, l0, "the exhaustion test");
}

ParameterizedTestParameters(alloc, exhaustion)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, alloc, exhaustion)
{
    static const char *const env[] = {"SYMHEAP_HEAP_SIZE=16M", NULL};
    run_pes_env(*npes, env, exhaustion_body, NULL);
}

/* 10,000 allocate/free cycles with varying sizes and a few objects kept
 * alive across cycles must not leak a single byte. */
enum { REUSE_CYCLES = 10000 };

static void reuse_body(int me, int npes, void *arg)
{
    (void)arg;
    (void)npes;
    size_t f0, l0;
    heap_stats(&f0, &l0);
    uint8_t *held[4] = {0};
    uint64_t rng = 4242;
    for (int c = 0; c < REUSE_CYCLES; c++) {
        uint64_t r = splitmix(&rng);
        int slot = (int)(r % 4);
        if (held[slot]) {
            PE_ASSERT(held[slot][0] == (uint8_t)me, "cycle %d: held object clobbered", c);
            sym_free(held[slot]);
        }
        size_t size = 1 + (size_t)((r >> 8) % ((r >> 40) % 16 == 0 ? 2 * MiB : 8192));
        held[slot] = sym_malloc(size);
        PE_ASSERT(held[slot], "cycle %d: sym_malloc(%zu): %s", c, size, sym_last_error());
        held[slot][0] = (uint8_t)me;
    }
    for (int s = 0; s < 4; s++)
        sym_free(held[s]);
    expect_heap(f0, l0, "10,000 alloc/free cycles");
}

ParameterizedTestParameters(alloc, reuse_does_not_leak)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, alloc, reuse_does_not_leak)
{
    run_pes(*npes, reuse_body, NULL);
}

/* Edge cases of the calls themselves. */
static void edge_body(int me, int npes, void *arg)
{
    (void)arg;
    int right = (me + 1) % npes;
    uint8_t *p = sym_malloc(1000);
    PE_ASSERT(p, "sym_malloc: %s", sym_last_error());
    size_t f0, l0;
    heap_stats(&f0, &l0);

    /* a known message first, so each check below sees its own call's */
    PE_FAILS_WITH(sym_put(p, "x", 1, npes), SYM_ERR_INVALID_PE);
    char before[1024];
    snprintf(before, sizeof(before), "%s", sym_last_error());

    PE_ASSERT(sym_malloc(0) == NULL, "sym_malloc(0) returned non-NULL");
    PE_ASSERT(!strcmp(sym_last_error(), before), "sym_malloc(0) recorded an error: '%s'",
              sym_last_error());
    expect_heap(f0, l0, "sym_malloc(0)");

    sym_free(NULL);
    expect_heap(f0, l0, "sym_free(NULL)");
    PE_ASSERT(!strcmp(sym_last_error(), before), "sym_free(NULL) recorded an error");
    PE_OK(sym_barrier_all()); /* the PEs are still in step */

    sym_free(p + 64);
    PE_ASSERT(strcmp(sym_last_error(), before) && strstr(sym_last_error(), "sym_free"),
              "sym_free of an interior pointer reported nothing: '%s'", sym_last_error());
    expect_heap(f0, l0, "sym_free of an interior pointer");

    int on_stack;
    PE_FAILS_WITH(sym_put(p, "x", 1, npes), SYM_ERR_INVALID_PE);
    sym_free(&on_stack);
    PE_ASSERT(strstr(sym_last_error(), "sym_free"),
              "sym_free of a stack address reported "
              "nothing: '%s'",
              sym_last_error());
    expect_heap(f0, l0, "sym_free of a stack address");

    PE_FAILS_WITH(sym_put(p, "x", 1, npes), SYM_ERR_INVALID_PE);
    PE_ASSERT(sym_realloc(p + 64, 2000) == NULL, "sym_realloc of an interior pointer succeeded");
    PE_ASSERT(strstr(sym_last_error(), "sym_realloc"),
              "sym_realloc of an interior pointer "
              "reported nothing: '%s'",
              sym_last_error());
    expect_heap(f0, l0, "sym_realloc of an interior pointer");

    /* the object is intact and usable after all that */
    remote_round(p, 1000, me, npes, 55);

    PE_FAILS_WITH(sym_put(p, "x", 1, npes), SYM_ERR_INVALID_PE);
    PE_ASSERT(sym_calloc(SIZE_MAX / 2 + 1, 2) == NULL, "overflowing sym_calloc succeeded");
    PE_ASSERT(strstr(sym_last_error(), "sym_calloc"), "overflowing sym_calloc: '%s'",
              sym_last_error());
    PE_ASSERT(sym_calloc(SIZE_MAX, SIZE_MAX) == NULL, "overflowing sym_calloc succeeded");
    PE_ASSERT(sym_calloc((size_t)1 << 33, (size_t)1 << 31) == NULL,
              "overflowing sym_calloc succeeded");
    expect_heap(f0, l0, "overflowing sym_calloc");

    sym_free(p);
    expect_heap(f0 + round64(1000), l0 + round64(1000), "sym_free");
    size_t f1, l1;
    heap_stats(&f1, &l1);
    PE_FAILS_WITH(sym_put(p, "x", 1, npes), SYM_ERR_INVALID_PE);
    sym_free(p); /* double free */
    PE_ASSERT(strstr(sym_last_error(), "sym_free"), "double sym_free reported nothing: '%s'",
              sym_last_error());
    expect_heap(f1, l1, "a double sym_free");

    uint64_t *w = sym_calloc(1, sizeof(*w));
    PE_ASSERT(w, "sym_calloc after the errors: %s", sym_last_error());
    PE_OK(sym_atomic_add64(w, 1, right));
    PE_OK(sym_barrier_all());
    PE_ASSERT(*w == 1, "atomic after the errors: %" PRIu64, *w);
    sym_free(w);
}

ParameterizedTestParameters(alloc, edge_cases)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, alloc, edge_cases)
{
    run_pes(*npes, edge_body, NULL);
}
