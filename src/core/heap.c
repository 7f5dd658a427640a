/*
 * heap.c - collective symmetric allocation: sym_malloc and friends.
 *
 * Each PE runs the same deterministic allocator (alloc.c) over the same
 * offsets, so equal call sequences give equal offsets everywhere.  Every
 * call synchronises with its fingerprint (kind, size, resulting offset;
 * core/barrier.h), so calls that differ between PEs fail on every PE and
 * leave every heap as it was, instead of diverging.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "core/internal.h"
#include "core/memory.h"

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

/* With SYMHEAP_HEAP_PREALLOC, the memory of a range is reserved when it is
 * first handed out, so a full /dev/shm fails that allocation (on every PE,
 * through the agreement below) instead of bringing a SIGBUS at its first
 * touch, and a job pays only for the heap it uses.  Everything below
 * heap_reserved is reserved already (first fit hands out the low end
 * first).  0, or -1 with the error recorded. */
static int reserve(const char *op, uint64_t off, uint64_t size)
{
    if (!sym_rt.cfg.heap_prealloc)
        return 0;
    uint64_t lo = sym_rt.heap_reserved > sym_rt.layout.user_off ? sym_rt.heap_reserved
                                                                : sym_rt.layout.user_off;
    uint64_t hi = sym_round_up(off + size, SYM_PAGE);
    if (hi <= lo)
        return 0;
    sym_status_t st = sym_memory_reserve(&sym_rt.memory, lo, hi - lo);
    if (st != SYM_OK) {
        char why[256];
        snprintf(why, sizeof(why), "%s", sym_last_error());
        sym_error(st, "%s: %zu bytes: %s (SYMHEAP_HEAP_SIZE=%zu)", op, (size_t)size, why,
                  (size_t)sym_rt.layout.user_size);
        return -1;
    }
    sym_rt.heap_reserved = hi;
    return 0;
}

/* Allocate, optionally zero, then synchronise with the call's
 * fingerprint: the object exists (and is zeroed) on every PE before any PE
 * can write into it, and PEs whose calls differ (sizes, kinds) or failed
 * on some PE (`bad`: an argument error already recorded) all return NULL
 * with the heap as it was.  Zeroing before the verdict is harmless: the
 * block was free on every PE, which agreed up to this call. */
static void *collective_alloc(const char *op, enum sym_sync_kind kind, size_t size, size_t align,
                              bool bad)
{
    if (sym_check_init(op) != SYM_OK)
        return NULL;
    if (!bad && (align == 0 || (align & (align - 1)))) {
        sym_error(SYM_ERR_INVALID_ARG, "%s: alignment %zu is not a power of two", op, align);
        bad = true;
    } else if (!bad && align > SYM_HEAP_BASE_ALIGN && ((uintptr_t)sym_rt.base & (align - 1)) != 0) {
        /* this PE's heap is mapped aligned to sym_heap_own_align(), as every
         * PE's is: an offset aligned to `align` is an address aligned to it */
        sym_error(SYM_ERR_INVALID_ARG,
                  "%s: alignment %zu is larger than the symmetric heap (%zu bytes) can align", op,
                  align, sym_heap_own_align(sym_rt.heap_total));
        bad = true;
    }
    if (size == 0 && !bad)
        return NULL;
    sym_rt.alloc_seq++;
    uint64_t off = 0;
    int rc = bad ? -3 : sym_alloc_alloc(&sym_rt.alloc, size, align, &off);
    if (rc == -2)
        sym_error(SYM_ERR_NO_MEMORY, "%s: out of private memory for allocator bookkeeping", op);
    else if (rc == -1)
        no_memory(op, size);
    if (rc == 0 && reserve(op, off, size) != 0) {
        sym_alloc_free(&sym_rt.alloc, off);
        rc = -4;
    }
    if (rc != 0)
        off = 0;
    if (off && kind == SYM_SYNC_CALLOC)
        memset(addr_of(off), 0, size);
    const struct sym_sync_print mine =
        sym_sync_print_make(kind, rc != 0, size, off, kind == SYM_SYNC_ALIGN ? align : 0);
    if (rc != 0) {
        /* Every PE fails alike, each with its own reason; on a mismatch
         * the mismatch is the reason. */
        char local[sizeof(sym_rt.barrier_broken_msg)];
        snprintf(local, sizeof(local), "%s", sym_last_error());
        sym_status_t st = sym_barrier_agree(op, &mine);
        if (st == SYM_OK)
            sym_error(rc == -3 ? SYM_ERR_INVALID_ARG : SYM_ERR_NO_MEMORY, "%s", local);
        return NULL;
    }
    if (sym_barrier_agree(op, &mine) != SYM_OK) {
        sym_alloc_free(&sym_rt.alloc, off);
        return NULL;
    }
    sym_debug("%s #%llu: %zu bytes at heap offset %llu", op, (unsigned long long)sym_rt.alloc_seq,
              size, (unsigned long long)off);
    return addr_of(off);
}

SYM_API void *sym_malloc(size_t size)
{
    return collective_alloc("sym_malloc", SYM_SYNC_MALLOC, size, SYM_ALLOC_MIN_ALIGN, false);
}

SYM_API void *sym_calloc(size_t count, size_t size)
{
    size_t bytes;
    bool bad = __builtin_mul_overflow(count, size, &bytes);
    if (bad) {
        bytes = SIZE_MAX;
        if (sym_rt.initialized)
            sym_error(SYM_ERR_INVALID_ARG, "sym_calloc: %zu x %zu bytes overflows", count, size);
    }
    return collective_alloc("sym_calloc", SYM_SYNC_CALLOC, bytes, SYM_ALLOC_MIN_ALIGN, bad);
}

SYM_API void *sym_align(size_t alignment, size_t size)
{
    return collective_alloc("sym_align", SYM_SYNC_ALIGN, size, alignment, false);
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

/* A call that failed on this PE still synchronises, with a fingerprint
 * saying so, so that its peers fail too instead of pairing their barrier
 * with this PE's next one; its own reason stays the message unless the
 * calls differed. */
static void sync_failed(const char *op, enum sym_sync_kind kind, size_t size, sym_status_t why)
{
    char local[sizeof(sym_rt.barrier_broken_msg)];
    snprintf(local, sizeof(local), "%s", sym_last_error());
    const struct sym_sync_print mine = sym_sync_print_make(kind, true, size, 0, 0);
    if (sym_barrier_agree(op, &mine) == SYM_OK)
        sym_error(why, "%s", local);
}

SYM_API void sym_free(void *ptr)
{
    if (!ptr || sym_check_init("sym_free") != SYM_OK)
        return;
    uint64_t off = object_offset("sym_free", ptr);
    if (!off) {
        sync_failed("sym_free", SYM_SYNC_FREE, 0, SYM_ERR_INVALID_ARG);
        return;
    }
    /* Nobody may still be using the object when it is released; and it is
     * released only where every PE releases the same one. */
    const struct sym_sync_print mine =
        sym_sync_print_make(SYM_SYNC_FREE, false, sym_alloc_size_of(&sym_rt.alloc, off), off, 0);
    if (sym_barrier_agree("sym_free", &mine) != SYM_OK)
        return;
    sym_alloc_free(&sym_rt.alloc, off);
}

/* Undo a planned resize (sym_realloc): exact, because the block list is
 * canonical (free neighbours always merged) and its room was reserved. */
static void realloc_undo(uint64_t off, uint64_t old_size, uint64_t new_off)
{
    if (new_off != off)
        sym_alloc_free(&sym_rt.alloc, new_off);
    else
        sym_alloc_resize_in_place(&sym_rt.alloc, off, old_size);
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
    if (!off) {
        sync_failed("sym_realloc", SYM_SYNC_REALLOC, size, SYM_ERR_INVALID_ARG);
        return NULL;
    }
    /* The new place is planned in the bookkeeping first and committed
     * (contents moved, old block released) only once every PE agreed. */
    sym_rt.alloc_seq++;
    uint64_t old_size = sym_alloc_size_of(&sym_rt.alloc, off);
    uint64_t new_off = off;
    if (sym_alloc_resize_in_place(&sym_rt.alloc, off, size) != 0 &&
        sym_alloc_alloc(&sym_rt.alloc, size, SYM_ALLOC_MIN_ALIGN, &new_off) != 0) {
        no_memory("sym_realloc", size);
        /* the old object stays, on every PE alike */
        sync_failed("sym_realloc", SYM_SYNC_REALLOC, size, SYM_ERR_NO_MEMORY);
        return NULL;
    }
    if (reserve("sym_realloc", new_off, size) != 0) {
        realloc_undo(off, old_size, new_off);
        sync_failed("sym_realloc", SYM_SYNC_REALLOC, size, SYM_ERR_NO_MEMORY);
        return NULL;
    }
    /* The barrier also lets puts into the old object land before its
     * contents move. */
    const struct sym_sync_print mine =
        sym_sync_print_make(SYM_SYNC_REALLOC, false, size, new_off, off);
    if (sym_barrier_agree("sym_realloc", &mine) != SYM_OK) {
        realloc_undo(off, old_size, new_off);
        return NULL;
    }
    if (new_off != off) {
        memcpy(addr_of(new_off), addr_of(off), old_size < size ? old_size : size);
        sym_alloc_free(&sym_rt.alloc, off);
    }
    /* No PE writes into the new object before every PE moved it. */
    return sym_barrier_agree("sym_realloc", &mine) == SYM_OK ? addr_of(new_off) : NULL;
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
