/*
 * heap.c - collective symmetric allocation: sym_malloc and friends.
 *
 * Each PE runs the same deterministic allocator (alloc.c) over the same
 * offsets, so equal call sequences give equal offsets everywhere; with
 * SYMHEAP_DEBUG every call compares its result with PE 0's.
 */
#include <stddef.h>
#include <string.h>

#include "core/internal.h"

static inline void *addr_of(uint64_t off)
{
    return sym_rt.base + off;
}

static sym_status_t no_memory(const char *op, size_t size)
{
    uint64_t free_bytes, largest;
    sym_alloc_stats(&sym_rt.alloc, &free_bytes, &largest);
    return sym_error(SYM_ERR_NO_MEMORY,
                     "%s: cannot allocate %zu bytes: %llu bytes free in the symmetric heap, "
                     "largest free block %llu (SYMHEAP_HEAP_SIZE=%zu)",
                     op, size, (unsigned long long)free_bytes, (unsigned long long)largest,
                     (size_t)sym_rt.layout.user_size);
}

/* SYMHEAP_DEBUG: every PE must have allocated the same block.  Called
 * after the allocation's barrier; ends with another barrier so PE 0's record
 * is not overwritten before everyone read it. */
static sym_status_t debug_verify(const char *op, uint64_t off, size_t size)
{
    struct sym_heap_ctrl *mine = (void *)sym_rt.base;
    /* PE 0's three record fields, read in one transfer */
    _Static_assert(offsetof(struct sym_heap_ctrl, dbg_alloc_off) ==
                           offsetof(struct sym_heap_ctrl, dbg_alloc_seq) + 8 &&
                       offsetof(struct sym_heap_ctrl, dbg_alloc_size) ==
                           offsetof(struct sym_heap_ctrl, dbg_alloc_seq) + 16,
                   "the allocation record is three consecutive words");
    uint64_t rec[3];
    struct sym_deadline dl = sym_deadline_default(op);
    sym_status_t st = sym_rt.peer_tp[0]->ops->get(
        sym_rt.peer_tp[0], 0, rec, offsetof(struct sym_heap_ctrl, dbg_alloc_seq), sizeof(rec), &dl);
    if (st != SYM_OK)
        return st;
    const struct {
        uint64_t dbg_alloc_seq, dbg_alloc_off, dbg_alloc_size;
    } root = {rec[0], rec[1], rec[2]};
    if (root.dbg_alloc_seq != mine->dbg_alloc_seq || root.dbg_alloc_off != off ||
        root.dbg_alloc_size != size)
        st = sym_error(
            SYM_ERR_MISMATCH,
            "%s: collective allocation #%llu differs between PEs: PE 0 got %llu "
            "bytes at heap offset %llu (call #%llu), PE %d got %zu bytes at %llu "
            "(every PE must make the same allocation calls)",
            op, (unsigned long long)mine->dbg_alloc_seq, (unsigned long long)root.dbg_alloc_size,
            (unsigned long long)root.dbg_alloc_off, (unsigned long long)root.dbg_alloc_seq,
            sym_rt.me, size, (unsigned long long)off);
    sym_status_t st2 = sym_barrier_internal(op);
    return st != SYM_OK ? st : st2;
}

static void debug_publish(uint64_t off, size_t size)
{
    struct sym_heap_ctrl *mine = (void *)sym_rt.base;
    mine->dbg_alloc_seq = sym_rt.alloc_seq;
    mine->dbg_alloc_off = off;
    mine->dbg_alloc_size = size;
}

/* Allocate, optionally zero, then synchronise so the object exists (and is
 * zeroed) on every PE before any PE can write into it. */
static void *collective_alloc(const char *op, size_t size, size_t align, bool zero)
{
    if (sym_check_init(op) != SYM_OK)
        return NULL;
    if (align == 0 || (align & (align - 1))) {
        sym_error(SYM_ERR_INVALID_ARG, "%s: alignment %zu is not a power of two", op, align);
        return NULL;
    }
    /* this PE's heap is mapped aligned to sym_heap_own_align(), as every
     * PE's is: an offset aligned to `align` is an address aligned to it */
    if (align > SYM_HEAP_BASE_ALIGN && ((uintptr_t)sym_rt.base & (align - 1)) != 0) {
        sym_error(SYM_ERR_INVALID_ARG,
                  "%s: alignment %zu is larger than the symmetric heap (%zu bytes) can align", op,
                  align, sym_heap_own_align(sym_rt.heap_total));
        return NULL;
    }
    if (size == 0)
        return NULL;
    sym_rt.alloc_seq++;
    uint64_t off = 0;
    int rc = sym_alloc_alloc(&sym_rt.alloc, size, align, &off);
    if (rc == -2) {
        sym_error(SYM_ERR_NO_MEMORY, "%s: out of private memory for allocator bookkeeping", op);
        off = 0;
    } else if (rc != 0) {
        no_memory(op, size);
        off = 0;
    }
    if (sym_rt.cfg.debug)
        debug_publish(off, off ? size : 0);
    if (!off && !sym_rt.cfg.debug)
        return NULL; /* every PE fails the same call the same way */
    if (off && zero)
        memset(addr_of(off), 0, size);
    sym_status_t st = sym_barrier_internal(op);
    if (st == SYM_OK && sym_rt.cfg.debug)
        st = debug_verify(op, off, off ? size : 0);
    if (st != SYM_OK || !off) {
        if (off)
            sym_alloc_free(&sym_rt.alloc, off);
        return NULL;
    }
    sym_debug("%s #%llu: %zu bytes at heap offset %llu", op, (unsigned long long)sym_rt.alloc_seq,
              size, (unsigned long long)off);
    return addr_of(off);
}

SYM_API void *sym_malloc(size_t size)
{
    return collective_alloc("sym_malloc", size, SYM_ALLOC_MIN_ALIGN, false);
}

SYM_API void *sym_calloc(size_t count, size_t size)
{
    size_t bytes;
    if (__builtin_mul_overflow(count, size, &bytes)) {
        sym_error(SYM_ERR_INVALID_ARG, "sym_calloc: %zu x %zu bytes overflows", count, size);
        return NULL;
    }
    return collective_alloc("sym_calloc", bytes, SYM_ALLOC_MIN_ALIGN, true);
}

SYM_API void *sym_align(size_t alignment, size_t size)
{
    return collective_alloc("sym_align", size, alignment, false);
}

/* Offset of a live object starting at ptr, or 0 with the error recorded. */
static uint64_t object_offset(const char *op, const void *ptr)
{
    uint64_t off = 0;
    if (sym_sym_offset(op, "ptr", ptr, 0, -1, &off) != SYM_OK)
        return 0;
    if (off >= sym_rt.heap_total) {
        sym_error(SYM_ERR_INVALID_ARG,
                  "%s: %p is a global or static variable, not an object "
                  "from sym_malloc()",
                  op, ptr);
        return 0;
    }
    if (sym_alloc_size_of(&sym_rt.alloc, off) == 0) {
        sym_error(SYM_ERR_INVALID_ARG,
                  "%s: %p is inside the symmetric heap but not the start of a live object "
                  "(already freed?)",
                  op, ptr);
        return 0;
    }
    return off;
}

SYM_API void sym_free(void *ptr)
{
    if (!ptr || sym_check_init("sym_free") != SYM_OK)
        return;
    uint64_t off = object_offset("sym_free", ptr);
    if (!off)
        return;
    /* Nobody may still be using the object when it is released. */
    if (sym_barrier_internal("sym_free") != SYM_OK)
        return;
    sym_alloc_free(&sym_rt.alloc, off);
}

SYM_API void *sym_realloc(void *ptr, size_t size)
{
    if (!ptr)
        return sym_malloc(size);
    if (sym_check_init("sym_realloc") != SYM_OK)
        return NULL;
    if (size == 0) {
        sym_free(ptr);
        return NULL;
    }
    uint64_t off = object_offset("sym_realloc", ptr);
    if (!off)
        return NULL;
    /* Puts into the old object must land before its contents move. */
    if (sym_barrier_internal("sym_realloc") != SYM_OK)
        return NULL;
    sym_rt.alloc_seq++;
    uint64_t old_size = sym_alloc_size_of(&sym_rt.alloc, off);
    uint64_t new_off = off;
    if (sym_alloc_resize_in_place(&sym_rt.alloc, off, size) != 0) {
        int rc = sym_alloc_alloc(&sym_rt.alloc, size, SYM_ALLOC_MIN_ALIGN, &new_off);
        if (rc != 0) {
            no_memory("sym_realloc", size);
            return NULL; /* old object untouched, on every PE alike */
        }
        memcpy(addr_of(new_off), addr_of(off), old_size < size ? old_size : size);
        sym_alloc_free(&sym_rt.alloc, off);
    }
    if (sym_rt.cfg.debug)
        debug_publish(new_off, size);
    sym_status_t st = sym_barrier_internal("sym_realloc");
    if (st == SYM_OK && sym_rt.cfg.debug)
        st = debug_verify("sym_realloc", new_off, size);
    return st == SYM_OK ? addr_of(new_off) : NULL;
}

SYM_API sym_status_t sym_heap_free(size_t *free_bytes_p, size_t *largest_p)
{
    sym_status_t st = sym_check_init("sym_heap_free");
    if (st != SYM_OK)
        return st;
    uint64_t f, l;
    sym_alloc_stats(&sym_rt.alloc, &f, &l);
    if (free_bytes_p)
        *free_bytes_p = (size_t)f;
    if (largest_p)
        *largest_p = (size_t)l;
    return SYM_OK;
}
