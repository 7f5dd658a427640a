/* alloc.c - deterministic first-fit allocator over heap offsets (alloc.h). */
#include "core/alloc.h"

#include <stdlib.h>
#include <string.h>

int sym_alloc_init(struct sym_alloc *a, uint64_t base, uint64_t size)
{
    memset(a, 0, sizeof(*a));
    a->cap = 64;
    a->blocks = malloc(a->cap * sizeof(*a->blocks));
    if (!a->blocks)
        return -1;
    a->base = base;
    a->size = size;
    a->blocks[0] = (struct sym_alloc_block){.off = base, .size = size, .used = false};
    a->nblocks = size ? 1 : 0;
    return 0;
}

void sym_alloc_fini(struct sym_alloc *a)
{
    free(a->blocks);
    memset(a, 0, sizeof(*a));
}

/* Make room for `extra` more blocks, so later steps cannot fail half-way. */
static int reserve(struct sym_alloc *a, size_t extra)
{
    if (a->nblocks + extra <= a->cap)
        return 0;
    size_t cap = a->cap * 2;
    while (cap < a->nblocks + extra)
        cap *= 2;
    struct sym_alloc_block *b = realloc(a->blocks, cap * sizeof(*b));
    if (!b)
        return -1;
    a->blocks = b;
    a->cap = cap;
    return 0;
}

static void insert_at(struct sym_alloc *a, size_t i, struct sym_alloc_block blk)
{
    memmove(&a->blocks[i + 1], &a->blocks[i], (a->nblocks - i) * sizeof(blk));
    a->blocks[i] = blk;
    a->nblocks++;
}

static void remove_at(struct sym_alloc *a, size_t i)
{
    memmove(&a->blocks[i], &a->blocks[i + 1], (a->nblocks - i - 1) * sizeof(a->blocks[0]));
    a->nblocks--;
}

/* Index of the block starting exactly at `off`, or (size_t)-1. */
static size_t find(const struct sym_alloc *a, uint64_t off)
{
    size_t lo = 0, hi = a->nblocks;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (a->blocks[mid].off < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return (lo < a->nblocks && a->blocks[lo].off == off) ? lo : (size_t)-1;
}

static uint64_t round_size(uint64_t size)
{
    return (size + SYM_ALLOC_MIN_ALIGN - 1) / SYM_ALLOC_MIN_ALIGN * SYM_ALLOC_MIN_ALIGN;
}

int sym_alloc_alloc(struct sym_alloc *a, uint64_t size, uint64_t align, uint64_t *off_p)
{
    if (size == 0 || size > a->size)
        return -1;
    size = round_size(size);
    if (align < SYM_ALLOC_MIN_ALIGN)
        align = SYM_ALLOC_MIN_ALIGN;
    if (reserve(a, 2) != 0)
        return -2;
    for (size_t i = 0; i < a->nblocks; i++) {
        struct sym_alloc_block *b = &a->blocks[i];
        if (b->used)
            continue;
        uint64_t start = (b->off + align - 1) & ~(align - 1);
        uint64_t pad = start - b->off;
        if (pad > b->size || b->size - pad < size)
            continue;
        uint64_t tail = b->size - pad - size;
        struct sym_alloc_block used = {.off = start, .size = size, .used = true};
        if (pad) {
            b->size = pad;
            insert_at(a, ++i, used);
        } else {
            *b = used;
        }
        if (tail)
            insert_at(a, i + 1, (struct sym_alloc_block){start + size, tail, false});
        *off_p = start;
        return 0;
    }
    return -1;
}

/* Merge block i with its free neighbours; i must be free. */
static void coalesce(struct sym_alloc *a, size_t i)
{
    if (i + 1 < a->nblocks && !a->blocks[i + 1].used) {
        a->blocks[i].size += a->blocks[i + 1].size;
        remove_at(a, i + 1);
    }
    if (i > 0 && !a->blocks[i - 1].used) {
        a->blocks[i - 1].size += a->blocks[i].size;
        remove_at(a, i);
    }
}

int sym_alloc_free(struct sym_alloc *a, uint64_t off)
{
    size_t i = find(a, off);
    if (i == (size_t)-1 || !a->blocks[i].used)
        return -1;
    a->blocks[i].used = false;
    coalesce(a, i);
    return 0;
}

uint64_t sym_alloc_size_of(const struct sym_alloc *a, uint64_t off)
{
    size_t i = find(a, off);
    return (i != (size_t)-1 && a->blocks[i].used) ? a->blocks[i].size : 0;
}

int sym_alloc_resize_in_place(struct sym_alloc *a, uint64_t off, uint64_t new_size)
{
    size_t i = find(a, off);
    /* The size check comes first: rounding SIZE_MAX up wraps to 0, which
     * would "shrink" the object to nothing. */
    if (i == (size_t)-1 || !a->blocks[i].used || new_size == 0 || new_size > a->size)
        return -1;
    new_size = round_size(new_size);
    struct sym_alloc_block *b = &a->blocks[i];
    if (new_size == b->size)
        return 0;
    if (reserve(a, 1) != 0)
        return -1;
    b = &a->blocks[i];
    if (new_size < b->size) {
        uint64_t rest = b->size - new_size;
        b->size = new_size;
        insert_at(a, i + 1, (struct sym_alloc_block){off + new_size, rest, false});
        coalesce(a, i + 1);
        return 0;
    }
    uint64_t grow = new_size - b->size;
    if (i + 1 >= a->nblocks || a->blocks[i + 1].used || a->blocks[i + 1].size < grow)
        return -1;
    b->size = new_size;
    a->blocks[i + 1].off += grow;
    a->blocks[i + 1].size -= grow;
    if (a->blocks[i + 1].size == 0)
        remove_at(a, i + 1);
    return 0;
}

void sym_alloc_stats(const struct sym_alloc *a, uint64_t *free_p, uint64_t *largest_p)
{
    uint64_t total = 0, largest = 0;
    for (size_t i = 0; i < a->nblocks; i++) {
        if (a->blocks[i].used)
            continue;
        total += a->blocks[i].size;
        if (a->blocks[i].size > largest)
            largest = a->blocks[i].size;
    }
    if (free_p)
        *free_p = total;
    if (largest_p)
        *largest_p = largest;
}
