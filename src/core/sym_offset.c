/*
 * sym_offset.c - symmetric offsets: the number that names the same bytes
 * of a symmetric object on every PE, while the object's address may differ
 * between PEs (global variables move with PIE and ASLR).  Layers above the
 * public API use it to tell whether PEs passed the same object and to
 * reach a peer's object from the offset it published.  Offsets of the user
 * heap come first, those of the global variables from heap_total on (see
 * struct sym_globals).
 */
#include "core/internal.h"

SYM_API sym_status_t sym_addr_to_offset(const void *addr, size_t nbytes, uint64_t *off_p)
{
    const char *op = "sym_addr_to_offset";
    sym_status_t st = sym_check_init(op);
    if (st != SYM_OK)
        return st;
    if (!off_p)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: off_p is NULL", op);
    return sym_sym_offset(op, "addr", addr, nbytes, sym_rt.me, off_p);
}

SYM_API sym_status_t sym_offset_to_addr(uint64_t off, size_t nbytes, void **addr_p)
{
    const char *op = "sym_offset_to_addr";
    sym_status_t st = sym_check_init(op);
    if (st != SYM_OK)
        return st;
    if (!addr_p)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: addr_p is NULL", op);
    const uint64_t ulo = sym_rt.layout.user_off, ulen = sym_rt.layout.user_size;
    if (off >= ulo && off - ulo < ulen && nbytes <= ulen - (off - ulo)) {
        *addr_p = sym_rt.base + off;
        return SYM_OK;
    }
    const struct sym_region *g = &sym_rt.memory.data;
    if (g->addr && g->len && off >= g->off && off - g->off < g->len &&
        nbytes <= g->len - (off - g->off)) {
        *addr_p = g->addr + (off - g->off);
        return SYM_OK;
    }
    return sym_error(SYM_ERR_NOT_SYMMETRIC,
                     "%s: offset %llu (+%zu bytes) is outside the user heap (offsets %llu.."
                     "%llu) and the global variables (%zu bytes from %llu)",
                     op, (unsigned long long)off, nbytes, (unsigned long long)ulo,
                     (unsigned long long)(ulo + ulen), g->addr ? g->len : (size_t)0,
                     (unsigned long long)g->off);
}
