/* test_alloc_unit.c - the deterministic allocator (src/core/alloc.h) on its
 * own: alignment, first fit, splitting, coalescing in every order, failed
 * calls that change nothing, resizing in place, and random churn checked
 * against a granule-bitmap reference. */
#include <criterion/criterion.h>
#include <inttypes.h>
#include <string.h>

#include "alloc_check.h"
#include "core/alloc.h"
#include "splitmix.h"

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
              "stats: free %" PRIu64 " largest %" PRIu64 ", expected %" PRIu64 " and %" PRIu64, f,
              l, free_bytes, largest);
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
    cr_assert(rc == 0, "sym_alloc_alloc(%" PRIu64 ", align %" PRIu64 ") returned %d", size, align,
              rc);
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
    static const uint64_t aligns[] = {0, 1, 2, 8, 32, 64, 128, 256, 4096, 65536};
    uint64_t used = 0;
    for (size_t i = 0; i < sizeof(aligns) / sizeof(aligns[0]); i++) {
        uint64_t eff = aligns[i] < 64 ? 64 : aligns[i];
        uint64_t off = must_alloc(&a, 100, aligns[i]);
        cr_assert(off % eff == 0,
                  "align %" PRIu64 ": offset %" PRIu64 " not a multiple of %" PRIu64, aligns[i],
                  off, eff);
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
    cr_assert(a.nblocks == 2 && a.blocks[0].used && a.blocks[0].size == 128 && !a.blocks[1].used &&
                  a.blocks[1].off == base + 128 && a.blocks[1].size == size - 128,
              "split did not leave [used 128][free rest]");
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
    static const uint64_t sizes[] = {64, 128, 192, 4096, 64, 1024};
    enum { N = 6 };
    uint64_t total = 0;
    for (int i = 0; i < N; i++)
        total += sizes[i];
    const uint64_t heap = exact_fill ? total : total + 8192;
    int perm[N] = {0, 1, 2, 3, 4, 5};
    int orders = 0;
    do {
        struct sym_alloc a;
        cr_assert(sym_alloc_init(&a, 4096, heap) == 0);
        uint64_t off[N];
        for (int i = 0; i < N; i++)
            off[i] = must_alloc(&a, sizes[i], 0);
        uint64_t freed = heap - total;
        for (int k = 0; k < N; k++) {
            cr_assert(sym_alloc_free(&a, off[perm[k]]) == 0, "free of object %d failed", perm[k]);
            freed += sizes[perm[k]];
            check_tiling(&a);
            uint64_t f;
            sym_alloc_stats(&a, &f, NULL);
            cr_assert(f == freed, "order #%d step %d: %" PRIu64 " free, expected %" PRIu64, orders,
                      k, f, freed);
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
                      a->blocks[i].used == snap[i].used,
                  "%s changed block %zu", what, i);
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
        {4097, 0, "more than the largest hole"},
        {32768, 0, "all free bytes, but not contiguous"},
        {size + 1, 0, "more than the heap"},
        {UINT64_MAX, 0, "UINT64_MAX bytes"},
        {UINT64_MAX - 62, 0, "a size that overflows when rounded"},
        {0, 0, "zero bytes"},
        {4096, 8192, "a fitting size at an alignment no hole has"},
        {64, UINT64_C(1) << 40, "an alignment beyond the heap"},
        {64, UINT64_C(1) << 63, "alignment 2^63"},
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
                  a.blocks[1].size == 896,
              "shrink did not leave a 896-byte hole after A");
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
    int owner[CHURN_GRANULES];   /* -1 free, else the object's slot */
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
        cr_assert(slot < 0 || m->owner[g] < 0,
                  "granule %" PRIu64 " given to object %d while "
                  "object %d owns it",
                  g, slot, m->owner[g]);
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
            cr_assert(rc == (fits ? 0 : -1),
                      "op %d: resize %" PRIu64 " -> %" PRIu64
                      " granules returned %d, model says %s",
                      op, g_old, g_new, rc, fits ? "fits" : "does not fit");
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
            uint64_t size = kind < 80   ? 1 + (r >> 16) % 512
                            : kind < 95 ? 1 + (r >> 16) % 16384
                                        : 1 + (r >> 16) % 131072;
            uint64_t align = ((r >> 40) % 4 == 0) ? UINT64_C(1) << (7 + (r >> 44) % 10) : 0;
            uint64_t g = round64(size) / 64;
            uint64_t expect = model_fit(&m, g, align);
            uint64_t off = 0;
            int rc = sym_alloc_alloc(&a, size, align, &off);
            if (expect == UINT64_MAX) {
                cr_assert(rc == -1,
                          "op %d: %" PRIu64 " bytes (align %" PRIu64 ") allocated at %" PRIu64
                          " but the model has no room",
                          op, size, align, off);
                failures++;
            } else {
                cr_assert(rc == 0 && off == expect,
                          "op %d: %" PRIu64 " bytes (align %" PRIu64 "): rc %d offset %" PRIu64
                          ", first fit gives %" PRIu64,
                          op, size, align, rc, off, expect);
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
