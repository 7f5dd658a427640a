/*
 * alloc.h - the deterministic symmetric allocator.
 *
 * Pure bookkeeping over a range of offsets: no memory is touched and the
 * metadata lives in private memory, so a user writing past an object cannot
 * corrupt the allocator.  The same sequence of calls yields the same offsets
 * on every PE, which is what makes the heap symmetric.  First fit over a
 * sorted block list; freed neighbours coalesce, so churn does not leak.
 */
#ifndef SYM_ALLOC_H
#define SYM_ALLOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SYM_ALLOC_MIN_ALIGN 64u

struct sym_alloc_block {
    uint64_t off;
    uint64_t size;
    bool used;
};

struct sym_alloc {
    struct sym_alloc_block *blocks; /* sorted by offset, covering the range */
    size_t nblocks;
    size_t cap;
    uint64_t base;
    uint64_t size;
};

int sym_alloc_init(struct sym_alloc *a, uint64_t base, uint64_t size);
void sym_alloc_fini(struct sym_alloc *a);

/* Allocate `size` (> 0) bytes at an offset aligned to `align` (a power of
 * two, raised to SYM_ALLOC_MIN_ALIGN).  0 on success, -1 if no block fits
 * (nothing changed), -2 if bookkeeping memory ran out (nothing changed). */
int sym_alloc_alloc(struct sym_alloc *a, uint64_t size, uint64_t align, uint64_t *off_p);

/* Free the block starting at `off`.  0, or -1 if `off` is not the start of a
 * used block (nothing changed). */
int sym_alloc_free(struct sym_alloc *a, uint64_t off);

/* Size of the used block at `off` (0 if none). */
uint64_t sym_alloc_size_of(const struct sym_alloc *a, uint64_t off);

/* Try to resize the used block at `off` in place (shrink, or grow into a free
 * successor).  0 on success, -1 if it cannot (nothing changed). */
int sym_alloc_resize_in_place(struct sym_alloc *a, uint64_t off, uint64_t new_size);

/* Sum of free bytes and the largest free block. */
void sym_alloc_stats(const struct sym_alloc *a, uint64_t *free_p, uint64_t *largest_p);

#endif /* SYM_ALLOC_H */
