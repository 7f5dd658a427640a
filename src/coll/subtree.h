/*
 * subtree.h - the binomial tree of gather and scatter.
 *
 * Ranks are taken relative to the root (v = 0).  Member v owns the subtree
 * v .. v + span - 1, whose blocks are contiguous in relative order: its own
 * block, then the range of child v + 1, of child v + 2, v + 4, ... (child
 * v + mask's range sits at offset mask * bytes).  Gather streams ranges up
 * the tree, scatter down it, chunk by chunk.
 */
#ifndef SYM_COLL_SUBTREE_H
#define SYM_COLL_SUBTREE_H

#include <stdbool.h>
#include <stddef.h>

#include "coll/coll.h"

struct subtree {
    struct sym_coll *c;
    int n, v, root;
    int low; /* children are v + mask for mask < low */
    size_t bytes;
};

static inline int real_rank(const struct subtree *t, int v)
{
    return (v + t->root) % t->n;
}

static inline bool has_child(const struct subtree *t, int mask)
{
    return mask < t->low && t->v + mask < t->n;
}

/* Bytes of the range of child v + mask. */
static inline size_t child_bytes(const struct subtree *t, int mask)
{
    const int span = t->n - t->v - mask < mask ? t->n - t->v - mask : mask;
    return (size_t)span * t->bytes;
}

#endif /* SYM_COLL_SUBTREE_H */
