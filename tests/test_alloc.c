/* test_alloc.c - the deterministic allocator (src/alloc.h) on its own, checked
 * against a granule-bitmap reference, and the collective allocation calls
 * (sym_malloc, sym_calloc, sym_align, sym_realloc, sym_free) at 1..8 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <string.h>

#include "core/alloc.h"
#include "harness.h"
#include "core/internal.h"

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint64_t round64(uint64_t s)
{
    return (s + 63) / 64 * 64;
}

/* ======================================================================== */
/* Part 1: the allocator alone                                               */
/* ======================================================================== */

/* The block list must tile [base, base + size) in order, with no empty block
 * and no two free neighbours (a missed coalesce would fragment forever). */
static void check_tiling(const struct sym_alloc *a)
{
    uint64_t at = a->base;
    for (size_t i = 0; i < a->nblocks; i++) {
        const struct sym_alloc_block *b = &a->blocks[i];
        cr_assert(b->off == at, "block %zu starts at %" PRIu64 ", expected %" PRIu64, i, b->off,
                  at);
        cr_assert(b->size > 0, "block %zu is empty", i);
        cr_assert(i == 0 || b->used || a->blocks[i - 1].used,
                  "blocks %zu and %zu are both free (not coalesced)", i - 1, i);
        at += b->size;
    }
    cr_assert(at == a->base + a->size, "blocks end at %" PRIu64 ", heap ends at %" PRIu64, at,
              a->base + a->size);
}

static void expect_stats(const struct sym_alloc *a, uint64_t free_bytes, uint64_t largest)
{
    uint64_t f = 1, l = 1;
    sym_alloc_stats(a, &f, &l);
    cr_assert(f == free_bytes && l == largest,
              "stats: free %" PRIu64 " largest %" PRIu64 ", expected %" PRIu64 " and %" PRIu64,
              f, l, free_bytes, largest);
}

static void expect_one_free_block(const struct sym_alloc *a)
{
    check_tiling(a);
    cr_assert(a->nblocks == 1 && !a->blocks[0].used,
              "%zu blocks after freeing everything, expected one free block", a->nblocks);
    expect_stats(a, a->size, a->size);
}

static uint64_t must_alloc(struct sym_alloc *a, uint64_t size, uint64_t align)
{
    uint64_t off = 0;
    int rc = sym_alloc_alloc(a, size, align, &off);
    cr_assert(rc == 0, "sym_alloc_alloc(%" PRIu64 ", align %" PRIu64 ") returned %d", size,
              align, rc);
    cr_assert(off >= a->base && off + round64(size) <= a->base + a->size,
              "offset %" PRIu64 " (+%" PRIu64 ") outside the heap", off, size);
    cr_assert(sym_alloc_size_of(a, off) == round64(size), "size_of %" PRIu64 " for %" PRIu64,
              sym_alloc_size_of(a, off), size);
    return off;
}

Test(alloc_unit, alignment)
{
    struct sym_alloc a;
    /* a base that is 64-aligned but not page-aligned, so large alignments
     * need padding that must stay usable */
    const uint64_t base = 4096 + 3 * 64;
    cr_assert(sym_alloc_init(&a, base, 1 << 20) == 0);
    static const uint64_t aligns[] = { 0, 1, 2, 8, 32, 64, 128, 256, 4096, 65536 };
    uint64_t used = 0;
    for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
        uint64_t eff = aligns[i] < 64 ? 64 : aligns[i];
        uint64_t off = must_alloc(&a, 100, aligns[i]);
        cr_assert(off % eff == 0, "align %" PRIu64 ": offset %" PRIu64 " not a multiple of %" PRIu64,
                  aligns[i], off, eff);
        used += 128;
        check_tiling(&a);
        uint64_t f;
        sym_alloc_stats(&a, &f, NULL);
        cr_assert(f == a.size - used, "free %" PRIu64 " after %" PRIu64 " used", f, used);
    }
    /* the padding skipped for the aligned objects stays free, and first fit
     * must reuse its first piece (64 bytes before the 128-aligned object)
     * before anything later */
    uint64_t hole = must_alloc(&a, 64, 64);
    uint64_t first_pad = base + 6 * 128; /* after the six 64-aligned objects */
    cr_assert(hole == first_pad, "64-byte object at %" PRIu64 ", expected the padding at %" PRIu64,
              hole, first_pad);
    sym_alloc_fini(&a);
}

Test(alloc_unit, first_fit)
{
    struct sym_alloc a;
    const uint64_t base = 1 << 16;
    cr_assert(sym_alloc_init(&a, base, 1 << 20) == 0);
    uint64_t big = must_alloc(&a, 4096, 0);
    uint64_t s1 = must_alloc(&a, 64, 0);
    uint64_t mid = must_alloc(&a, 128, 0);
    uint64_t s2 = must_alloc(&a, 64, 0);
    cr_assert(big == base && s1 == base + 4096 && mid == base + 4160 && s2 == base + 4288,
              "fresh heap did not allocate in address order");
    cr_assert(sym_alloc_free(&a, big) == 0 && sym_alloc_free(&a, mid) == 0);
    /* two holes: 4096 bytes first, exactly 128 later.  Best fit would pick the
     * later one; first fit must take the first. */
    uint64_t x = must_alloc(&a, 128, 0);
    cr_assert(x == base, "128 bytes went to %" PRIu64 ", first fit gives %" PRIu64, x, base);
    /* too large for what is left of the first hole (3968) -> the tail */
    uint64_t y = must_alloc(&a, 4000, 0);
    cr_assert(y == base + 4352, "4000 bytes at %" PRIu64 ", expected the tail", y);
    /* fits the rest of the first hole exactly */
    uint64_t z = must_alloc(&a, 3968, 0);
    cr_assert(z == base + 128, "3968 bytes at %" PRIu64 ", expected %" PRIu64, z, base + 128);
    uint64_t w = must_alloc(&a, 100, 0);
    cr_assert(w == mid, "next small object at %" PRIu64 ", expected the second hole %" PRIu64, w,
              mid);
    check_tiling(&a);
    sym_alloc_fini(&a);
}

Test(alloc_unit, splitting)
{
    struct sym_alloc a;
    const uint64_t base = 8192, size = 1 << 20;
    cr_assert(sym_alloc_init(&a, base, size) == 0);
    expect_one_free_block(&a);
    uint64_t off = must_alloc(&a, 100, 0);
    cr_assert(off == base);
    cr_assert(a.nblocks == 2 && a.blocks[0].used && a.blocks[0].size == 128 &&
              !a.blocks[1].used && a.blocks[1].off == base + 128 &&
              a.blocks[1].size == size - 128, "split did not leave [used 128][free rest]");
    expect_stats(&a, size - 128, size - 128);
    /* an exact fit consumes the free block without leaving an empty one */
    uint64_t rest = must_alloc(&a, size - 128, 0);
    cr_assert(rest == base + 128);
    cr_assert(a.nblocks == 2, "%zu blocks after an exact fit", a.nblocks);
    expect_stats(&a, 0, 0);
    uint64_t dummy;
    cr_assert(sym_alloc_alloc(&a, 1, 0, &dummy) == -1, "allocation from a full heap succeeded");
    check_tiling(&a);
    sym_alloc_fini(&a);
}

/* Next permutation in lexicographic order; false after the last. */
static bool next_perm(int *p, int n)
{
    int i = n - 2;
    while (i >= 0 && p[i] >= p[i + 1])
        i--;
    if (i < 0)
        return false;
    int j = n - 1;
    while (p[j] <= p[i])
        j--;
    int t = p[i];
    p[i] = p[j];
    p[j] = t;
    for (int l = i + 1, r = n - 1; l < r; l++, r--) {
        t = p[l];
        p[l] = p[r];
        p[r] = t;
    }
    return true;
}

/* Free six objects in each of the 720 orders: every order must coalesce back
 * to one free block, with the tiling intact after every single free.  Run
 * with a free tail after the objects and with objects filling the heap. */
static void coalesce_all_orders(bool exact_fill)
{
    static const uint64_t sizes[] = { 64, 128, 192, 4096, 64, 1024 };
    enum { N = 6 };
    uint64_t total = 0;
    for (int i = 0; i < N; i++)
        total += sizes[i];
    const uint64_t heap = exact_fill ? total : total + 8192;
    int perm[N] = { 0, 1, 2, 3, 4, 5 };
    int orders = 0;
    do {
        struct sym_alloc a;
        cr_assert(sym_alloc_init(&a, 4096, heap) == 0);
        uint64_t off[N];
        for (int i = 0; i < N; i++)
            off[i] = must_alloc(&a, sizes[i], 0);
        uint64_t freed = heap - total;
        for (int k = 0; k < N; k++) {
            cr_assert(sym_alloc_free(&a, off[perm[k]]) == 0, "free of object %d failed",
                      perm[k]);
            freed += sizes[perm[k]];
            check_tiling(&a);
            uint64_t f;
            sym_alloc_stats(&a, &f, NULL);
            cr_assert(f == freed, "order #%d step %d: %" PRIu64 " free, expected %" PRIu64,
                      orders, k, f, freed);
        }
        expect_one_free_block(&a);
        sym_alloc_fini(&a);
        orders++;
    } while (next_perm(perm, N));
    cr_assert(orders == 720);
}

Test(alloc_unit, coalesce_every_order_with_tail)
{
    coalesce_all_orders(false);
}

Test(alloc_unit, coalesce_every_order_exact_fill)
{
    coalesce_all_orders(true);
}

static struct sym_alloc_block *snapshot(const struct sym_alloc *a)
{
    struct sym_alloc_block *s = malloc(a->nblocks * sizeof(*s));
    cr_assert(s);
    memcpy(s, a->blocks, a->nblocks * sizeof(*s));
    return s;
}

static void expect_unchanged(const struct sym_alloc *a, const struct sym_alloc_block *snap,
                             size_t n, const char *what)
{
    cr_assert(a->nblocks == n, "%s changed the block count (%zu -> %zu)", what, n, a->nblocks);
    for (size_t i = 0; i < n; i++)
        cr_assert(a->blocks[i].off == snap[i].off && a->blocks[i].size == snap[i].size &&
                  a->blocks[i].used == snap[i].used, "%s changed block %zu", what, i);
}

Test(alloc_unit, exhaustion_changes_nothing)
{
    struct sym_alloc a;
    const uint64_t size = 64 * 1024;
    cr_assert(sym_alloc_init(&a, 4096, size) == 0);
    /* fragment: 16 objects of 4 KiB, free every other one -> 8 holes of
     * 4 KiB, 32 KiB free in total, largest 4 KiB */
    uint64_t off[16];
    for (int i = 0; i < 16; i++)
        off[i] = must_alloc(&a, 4096, 0);
    for (int i = 0; i < 16; i += 2)
        cr_assert(sym_alloc_free(&a, off[i]) == 0);
    expect_stats(&a, 32768, 4096);
    size_t n = a.nblocks;
    struct sym_alloc_block *snap = snapshot(&a);
    struct {
        uint64_t size, align;
        const char *what;
    } bad[] = {
        { 4097, 0, "more than the largest hole" },
        { 32768, 0, "all free bytes, but not contiguous" },
        { size + 1, 0, "more than the heap" },
        { UINT64_MAX, 0, "UINT64_MAX bytes" },
        { UINT64_MAX - 62, 0, "a size that overflows when rounded" },
        { 0, 0, "zero bytes" },
        { 4096, 8192, "a fitting size at an alignment no hole has" },
        { 64, UINT64_C(1) << 40, "an alignment beyond the heap" },
        { 64, UINT64_C(1) << 63, "alignment 2^63" },
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        uint64_t o = 0;
        int rc = sym_alloc_alloc(&a, bad[i].size, bad[i].align, &o);
        cr_assert(rc == -1, "%s: returned %d (offset %" PRIu64 "), expected -1", bad[i].what, rc,
                  o);
        expect_unchanged(&a, snap, n, bad[i].what);
    }
    /* bad frees change nothing either */
    cr_assert(sym_alloc_free(&a, off[0]) == -1, "double free accepted");
    cr_assert(sym_alloc_free(&a, off[1] + 64) == -1, "interior free accepted");
    cr_assert(sym_alloc_free(&a, 0) == -1, "free below the heap accepted");
    cr_assert(sym_alloc_free(&a, 4096 + size) == -1, "free at the heap end accepted");
    expect_unchanged(&a, snap, n, "a rejected free");
    cr_assert(sym_alloc_size_of(&a, off[0]) == 0 && sym_alloc_size_of(&a, off[1] + 64) == 0);
    /* a fitting request still works afterwards, in the first hole */
    cr_assert(must_alloc(&a, 4096, 0) == off[0]);
    free(snap);
    sym_alloc_fini(&a);
}

Test(alloc_unit, resize_in_place)
{
    struct sym_alloc a;
    const uint64_t base = 4096, size = 64 * 1024;
    cr_assert(sym_alloc_init(&a, base, size) == 0);
    uint64_t A = must_alloc(&a, 1024, 0);
    uint64_t B = must_alloc(&a, 1024, 0);
    cr_assert(A == base && B == base + 1024);

    /* shrink: the cut-off tail becomes a free block between A and B */
    cr_assert(sym_alloc_resize_in_place(&a, A, 100) == 0);
    cr_assert(sym_alloc_size_of(&a, A) == 128);
    check_tiling(&a);
    cr_assert(a.nblocks == 4 && !a.blocks[1].used && a.blocks[1].off == base + 128 &&
              a.blocks[1].size == 896, "shrink did not leave a 896-byte hole after A");
    expect_stats(&a, size - 2048 + 896, size - 2048);

    /* grow back into exactly that hole: the hole disappears */
    cr_assert(sym_alloc_resize_in_place(&a, A, 1024) == 0);
    cr_assert(sym_alloc_size_of(&a, A) == 1024 && a.nblocks == 3);
    check_tiling(&a);

    /* grow when the successor is used: refused, nothing changed */
    size_t n = a.nblocks;
    struct sym_alloc_block *snap = snapshot(&a);
    cr_assert(sym_alloc_resize_in_place(&a, A, 1025) == -1);
    expect_unchanged(&a, snap, n, "growing into a used block");
    cr_assert(sym_alloc_resize_in_place(&a, B, size) == -1);
    expect_unchanged(&a, snap, n, "growing beyond the heap");
    cr_assert(sym_alloc_resize_in_place(&a, B, 0) == -1);
    expect_unchanged(&a, snap, n, "resizing to 0");
    cr_assert(sym_alloc_resize_in_place(&a, B + 64, 64) == -1);
    expect_unchanged(&a, snap, n, "resizing an interior offset");
    cr_assert(sym_alloc_resize_in_place(&a, B + 1024, 64) == -1);
    expect_unchanged(&a, snap, n, "resizing a free block");
    /* same rounded size: a no-op that succeeds */
    cr_assert(sym_alloc_resize_in_place(&a, B, 1000) == 0);
    expect_unchanged(&a, snap, n, "resizing to the same rounded size");
    free(snap);

    /* grow into the free tail, then shrink: the tail coalesces again */
    cr_assert(sym_alloc_resize_in_place(&a, B, 8192) == 0);
    cr_assert(sym_alloc_size_of(&a, B) == 8192);
    expect_stats(&a, size - 1024 - 8192, size - 1024 - 8192);
    cr_assert(sym_alloc_resize_in_place(&a, B, 64) == 0);
    check_tiling(&a);
    cr_assert(a.nblocks == 3, "%zu blocks after shrinking B (tail not coalesced)", a.nblocks);
    expect_stats(&a, size - 1024 - 64, size - 1024 - 64);

    /* grow exactly to the heap end (the free successor vanishes) */
    cr_assert(sym_alloc_resize_in_place(&a, B, size - 1024) == 0);
    cr_assert(a.nblocks == 2);
    expect_stats(&a, 0, 0);
    check_tiling(&a);

    /* a free successor that is too small: refused */
    cr_assert(sym_alloc_resize_in_place(&a, B, 64) == 0);
    uint64_t C = must_alloc(&a, 1024, 0);
    cr_assert(C == B + 64, "C at %" PRIu64 ", expected right behind B", C);
    cr_assert(sym_alloc_free(&a, A) == 0);
    n = a.nblocks;
    snap = snapshot(&a);
    cr_assert(sym_alloc_resize_in_place(&a, B, 128) == -1, "B grew over C");
    expect_unchanged(&a, snap, n, "growing into a used neighbour");
    free(snap);

    cr_assert(sym_alloc_free(&a, B) == 0 && sym_alloc_free(&a, C) == 0);
    expect_one_free_block(&a);
    sym_alloc_fini(&a);
}

/* ---- random churn against a reference model ------------------------------ */

/* The reference: one owner slot per 64-byte granule.  Because the allocator
 * coalesces maximally, its first fit is the lowest aligned granule with
 * enough free granules after it, so the model predicts exact offsets. */
enum { CHURN_GRANULES = 8192, CHURN_OPS = 10000, CHURN_MAXLIVE = 512 };

struct model {
    uint64_t base;
    int owner[CHURN_GRANULES]; /* -1 free, else the object's slot */
    int run[CHURN_GRANULES + 1]; /* free granules starting here */
};

static void model_runs(struct model *m)
{
    m->run[CHURN_GRANULES] = 0;
    for (int g = CHURN_GRANULES - 1; g >= 0; g--)
        m->run[g] = m->owner[g] < 0 ? m->run[g + 1] + 1 : 0;
}

/* Predicted offset of a first-fit allocation, or UINT64_MAX. */
static uint64_t model_fit(struct model *m, uint64_t granules, uint64_t align)
{
    model_runs(m);
    if (align < 64)
        align = 64;
    uint64_t first = (m->base + align - 1) / align * align;
    for (uint64_t off = first; off < m->base + (uint64_t)CHURN_GRANULES * 64; off += align) {
        uint64_t g = (off - m->base) / 64;
        if ((uint64_t)m->run[g] >= granules)
            return off;
    }
    return UINT64_MAX;
}

static void model_mark(struct model *m, uint64_t off, uint64_t granules, int slot)
{
    uint64_t g0 = (off - m->base) / 64;
    for (uint64_t g = g0; g < g0 + granules; g++) {
        cr_assert(g < CHURN_GRANULES, "object runs past the heap");
        cr_assert(slot < 0 || m->owner[g] < 0, "granule %" PRIu64 " given to object %d while "
                  "object %d owns it", g, slot, m->owner[g]);
        m->owner[g] = slot;
    }
}

static void model_expect_stats(struct model *m, const struct sym_alloc *a, int op)
{
    model_runs(m);
    uint64_t free_g = 0, largest_g = 0;
    for (int g = 0; g < CHURN_GRANULES; g++) {
        free_g += m->owner[g] < 0;
        if ((uint64_t)m->run[g] > largest_g)
            largest_g = (uint64_t)m->run[g];
    }
    uint64_t f, l;
    sym_alloc_stats(a, &f, &l);
    cr_assert(f == free_g * 64 && l == largest_g * 64,
              "op %d: stats %" PRIu64 "/%" PRIu64 ", model %" PRIu64 "/%" PRIu64, op, f, l,
              free_g * 64, largest_g * 64);
}

Test(alloc_unit, random_churn_against_model)
{
    static struct model m;
    struct sym_alloc a;
    /* unaligned for large alignments, so padding is exercised */
    m.base = (UINT64_C(1) << 20) + 192;
    for (int g = 0; g < CHURN_GRANULES; g++)
        m.owner[g] = -1;
    cr_assert(sym_alloc_init(&a, m.base, (uint64_t)CHURN_GRANULES * 64) == 0);

    struct {
        uint64_t off, granules;
    } live[CHURN_MAXLIVE];
    int nlive = 0, allocs = 0, frees = 0, failures = 0, resizes = 0;
    uint64_t rng = 20240611;
    for (int op = 0; op < CHURN_OPS; op++) {
        uint64_t r = splitmix(&rng);
        int kind = (int)(r % 100);
        if (nlive > 0 && (kind < 40 || nlive == CHURN_MAXLIVE)) {
            int i = (int)((r >> 8) % (uint64_t)nlive);
            cr_assert(sym_alloc_free(&a, live[i].off) == 0, "op %d: free failed", op);
            model_mark(&m, live[i].off, live[i].granules, -1);
            live[i] = live[--nlive];
            frees++;
        } else if (nlive > 0 && kind < 50) {
            int i = (int)((r >> 8) % (uint64_t)nlive);
            uint64_t want = 1 + (r >> 20) % 8192;
            uint64_t g_new = round64(want) / 64, g_old = live[i].granules;
            uint64_t g_end = (live[i].off - m.base) / 64 + g_old;
            bool fits = true;
            model_runs(&m);
            if (g_new > g_old)
                fits = g_end < CHURN_GRANULES && (uint64_t)m.run[g_end] >= g_new - g_old;
            int rc = sym_alloc_resize_in_place(&a, live[i].off, want);
            cr_assert(rc == (fits ? 0 : -1), "op %d: resize %" PRIu64 " -> %" PRIu64
                      " granules returned %d, model says %s", op, g_old, g_new, rc,
                      fits ? "fits" : "does not fit");
            if (fits) {
                if (g_new < g_old)
                    model_mark(&m, live[i].off + g_new * 64, g_old - g_new, -1);
                else
                    model_mark(&m, live[i].off + g_old * 64, g_new - g_old, i);
                live[i].granules = g_new;
            }
            resizes++;
        } else {
            /* mostly small, some medium, a few large */
            uint64_t size = kind < 80 ? 1 + (r >> 16) % 512
                            : kind < 95 ? 1 + (r >> 16) % 16384 : 1 + (r >> 16) % 131072;
            uint64_t align = ((r >> 40) % 4 == 0) ? UINT64_C(1) << (7 + (r >> 44) % 10) : 0;
            uint64_t g = round64(size) / 64;
            uint64_t expect = model_fit(&m, g, align);
            uint64_t off = 0;
            int rc = sym_alloc_alloc(&a, size, align, &off);
            if (expect == UINT64_MAX) {
                cr_assert(rc == -1, "op %d: %" PRIu64 " bytes (align %" PRIu64 ") allocated at %"
                          PRIu64 " but the model has no room", op, size, align, off);
                failures++;
            } else {
                cr_assert(rc == 0 && off == expect, "op %d: %" PRIu64 " bytes (align %" PRIu64
                          "): rc %d offset %" PRIu64 ", first fit gives %" PRIu64, op, size,
                          align, rc, off, expect);
                cr_assert(off % (align < 64 ? 64 : align) == 0);
                cr_assert(sym_alloc_size_of(&a, off) == g * 64);
                live[nlive].off = off;
                live[nlive].granules = g;
                model_mark(&m, off, g, nlive);
                nlive++;
                allocs++;
            }
        }
        /* slots move when an object is removed; re-own its granules */
        for (int i = 0; i < nlive; i++) {
            uint64_t g0 = (live[i].off - m.base) / 64;
            for (uint64_t gg = g0; gg < g0 + live[i].granules; gg++)
                m.owner[gg] = i;
        }
        check_tiling(&a);
        model_expect_stats(&m, &a, op);
    }
    /* the churn must have exercised every path */
    cr_assert(allocs > 2000 && frees > 2000 && failures > 10 && resizes > 200,
              "churn too tame: %d allocs, %d frees, %d failures, %d resizes", allocs, frees,
              failures, resizes);
    while (nlive > 0) {
        cr_assert(sym_alloc_free(&a, live[nlive - 1].off) == 0);
        nlive--;
    }
    expect_one_free_block(&a);
    sym_alloc_fini(&a);
}

/* ======================================================================== */
/* Part 2: collective allocation on real PEs                                 */
/* ======================================================================== */

#define MiB ((size_t)1 << 20)

/* Heap offset of a symmetric pointer (0 for NULL): addresses may differ
 * between PEs, offsets must not. */
static uint64_t off_of(const void *p)
{
    return p ? (uint64_t)((const uint8_t *)p - sym_rt.base) : 0;
}

static void heap_stats(size_t *f, size_t *l)
{
    PE_OK(sym_heap_free(f, l));
}

static void expect_heap(size_t f0, size_t l0, const char *after)
{
    size_t f, l;
    heap_stats(&f, &l);
    PE_ASSERT(f == f0 && l == l0, "after %s the heap has %zu free (largest %zu), expected %zu "
              "(largest %zu)", after, f, l, f0, l0);
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
                          " on PE 0", what, i, rows[(size_t)pe * count + i], pe, rows[i]);
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
    uint8_t *obj[SEQ_SLOTS] = { 0 };
    size_t len[SEQ_SLOTS] = { 0 };
    unsigned tag[SEQ_SLOTS] = { 0 };
    uint64_t rng = 777; /* the same seed on every PE */
    int calls[5] = { 0 }; /* malloc, calloc, align, realloc, free */
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
            PE_ASSERT(!p || off_of(p) % align == 0, "%s: offset %" PRIu64 " not %zu-aligned",
                      what, off_of(p), align);
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
    static const char *const env[] = { "SYMHEAP_DEBUG=1", NULL };
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
        PE_ASSERT(strstr(sym_last_error(), "differ"), "message does not report the mismatch: "
                  "'%s'", sym_last_error());
    }
    PE_OK(sym_barrier_all());
}

Test(alloc, debug_detects_mismatch)
{
    static const char *const env[] = { "SYMHEAP_DEBUG=1", NULL };
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
    PE_ASSERT((void *)z == (void *)dirty, "calloc did not reuse the dirtied region (%p vs %p): "
              "the test would not test anything", (void *)z, (void *)dirty);
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
    PE_ASSERT(z[7] == 0xC0DE0000u + (uint32_t)left, "put after calloc lost: word is 0x%x",
              z[7]);

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
    PE_ASSERT((uintptr_t)a1m % MiB == 0, "sym_align(1 MiB) returned %p (heap offset %" PRIu64
              ")", (void *)a1m, off_of(a1m));
    remote_round(a4k, 100, me, npes, 10);
    remote_round(a1m, 1000, me, npes, 20);
    uint64_t offs[3] = { off_of(pad), off_of(a4k), off_of(a1m) };
    gather_and_compare(offs, 3, me, npes, "sym_align");

    /* freeing them gives back the padding too */
    sym_free(a1m);
    sym_free(a4k);
    sym_free(pad);
    expect_heap(f0, l0, "freeing the aligned objects");

    static const size_t bad[] = { 0, 3, 48, 100, 4096 + 64, (size_t)1 << 20 | 1 };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        PE_FAILS_WITH(sym_put(NULL, NULL, 0, npes), SYM_ERR_INVALID_PE);
        void *p = sym_align(bad[i], 256);
        PE_ASSERT(!p, "sym_align(%zu) succeeded", bad[i]);
        char num[32];
        snprintf(num, sizeof(num), "%zu", bad[i]);
        const char *msg = sym_last_error();
        PE_ASSERT(strstr(msg, "sym_align") && strstr(msg, num) && strstr(msg, "power of two"),
                  "sym_align(%zu): message '%s' is not the invalid-alignment error", bad[i],
                  msg);
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
    PE_ASSERT(strstr(msg, w) && strstr(msg, f), "%s: message '%s' does not name the requested "
              "(%s) and free (%s) bytes", call, msg, w, f);
}

static void exhaustion_body(int me, int npes, void *arg)
{
    (void)arg;
    size_t f0, l0;
    heap_stats(&f0, &l0);
    PE_ASSERT(f0 == 16 * MiB && l0 == f0, "fresh 16M heap reports %zu free, largest %zu", f0,
              l0);

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
    static const char *const env[] = { "SYMHEAP_HEAP_SIZE=16M", NULL };
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
    uint8_t *held[4] = { 0 };
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
    PE_ASSERT(strstr(sym_last_error(), "sym_free"), "sym_free of a stack address reported "
              "nothing: '%s'", sym_last_error());
    expect_heap(f0, l0, "sym_free of a stack address");

    PE_FAILS_WITH(sym_put(p, "x", 1, npes), SYM_ERR_INVALID_PE);
    PE_ASSERT(sym_realloc(p + 64, 2000) == NULL, "sym_realloc of an interior pointer succeeded");
    PE_ASSERT(strstr(sym_last_error(), "sym_realloc"), "sym_realloc of an interior pointer "
              "reported nothing: '%s'", sym_last_error());
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
