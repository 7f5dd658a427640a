/*
 * team_mesh.c - teams along the axes of a grid of the parent's PEs:
 * sym_team_split_mesh (N dimensions, row-major), sym_team_split_2d (two,
 * full rows) and sym_team_split_2d_ragged (two, the last row may be
 * short, as OpenSHMEM's shmem_team_split_2d).
 *
 * The teams along one axis are disjoint, so each axis is one family of
 * sym_team_make: one area offset serves all of them, and a split costs one
 * area per dimension in each member's heap, whatever the grid's size.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/team.h"
#include "core/internal.h"

/* FNV-1a over the words that define a grid, so every parent PE checks
 * that the others passed the same. */
static uint64_t hash_ints(uint64_t h, const int *v, int n)
{
    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)v[i];
        h *= UINT64_C(1099511628211);
    }
    return h ^ (uint64_t)n;
}

static void describe_shape(char *buf, size_t len, const int *shape, int ndims)
{
    size_t used = (size_t)snprintf(buf, len, "shape [");
    for (int d = 0; d < ndims && used < len; d++)
        used += (size_t)snprintf(buf + used, len - used, "%s%d", d ? ", " : "", shape[d]);
    if (used < len)
        snprintf(buf + used, len - used, "]");
}

SYM_API sym_status_t sym_team_split_mesh(sym_team_t parent, int ndims, const int *shape,
                                         sym_team_t *teams_out)
{
    const char *op = "sym_team_split_mesh";
    if (teams_out && ndims > 0 && ndims <= SYM_MESH_MAX_DIMS)
        for (int d = 0; d < ndims; d++)
            teams_out[d] = SYM_TEAM_INVALID;
    sym_status_t st = sym_team_check(op, parent);
    if (st != SYM_OK)
        return st;
    if (!teams_out || !shape)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %s is NULL", op, !shape ? "shape" : "teams_out");
    if (ndims < 1 || ndims > SYM_MESH_MAX_DIMS)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %d dimensions (must be 1..%d)", op, ndims,
                         SYM_MESH_MAX_DIMS);
    long long product = 1;
    for (int d = 0; d < ndims; d++) {
        if (shape[d] < 1)
            return sym_error(SYM_ERR_INVALID_ARG,
                             "%s: dimension %d of the shape is %d (must be "
                             ">= 1)",
                             op, d, shape[d]);
        /* past the largest int the exact figure does not matter */
        product = product > INT32_MAX ? product : product * shape[d];
    }
    char desc[96];
    describe_shape(desc, sizeof(desc), shape, ndims);
    if (product != parent->size)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s: %s holds %s%lld PEs, but %s has %d: the product of the shape "
                         "must be the parent's size",
                         op, desc, product > INT32_MAX ? "more than " : "", product, parent->name,
                         parent->size);
    /* row-major, last dimension fastest: my coordinates and the stride of
     * each dimension in parent ranks */
    int coord[SYM_MESH_MAX_DIMS], stride[SYM_MESH_MAX_DIMS];
    for (int d = ndims - 1, s = 1, r = parent->rank; d >= 0; d--) {
        stride[d] = s;
        coord[d] = r % shape[d];
        r /= shape[d];
        s *= shape[d];
    }
    size_t total = 0;
    for (int d = 0; d < ndims; d++)
        total += (size_t)shape[d];
    int *lists = malloc(total * sizeof(int));
    if (!lists)
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", op);
    int *mine[SYM_MESH_MAX_DIMS];
    int counts[SYM_MESH_MAX_DIMS];
    size_t used = 0;
    for (int d = 0; d < ndims; d++) {
        /* along dimension d: my rank with coordinate d running 0 .. shape[d]-1 */
        const int base = parent->rank - coord[d] * stride[d];
        mine[d] = lists + used;
        counts[d] = shape[d];
        for (int i = 0; i < shape[d]; i++)
            mine[d][i] = base + i * stride[d];
        used += (size_t)shape[d];
    }
    st = sym_team_make(op, parent, ndims, mine, counts, counts,
                       hash_ints(UINT64_C(0x6d657368), shape, ndims), desc, teams_out);
    free(lists);
    return st;
}

/* Rows of xrange PEs (the x axis) and columns (the y axis); with `ragged`
 * the last row may be short, else it must be full. */
static sym_status_t split_2d(const char *op, sym_team_t parent, int xrange, bool ragged,
                             sym_team_t *xaxis_p, sym_team_t *yaxis_p)
{
    if (xaxis_p)
        *xaxis_p = SYM_TEAM_INVALID;
    if (yaxis_p)
        *yaxis_p = SYM_TEAM_INVALID;
    sym_status_t st = sym_team_check(op, parent);
    if (st != SYM_OK)
        return st;
    if (!xaxis_p || !yaxis_p)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: NULL output handle", op);
    if (xrange < 1)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: xrange %d must be >= 1", op, xrange);
    const int n = parent->size;
    if (!ragged && n % xrange != 0)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s: rows of xrange %d do not divide the %d PEs of %s (the last row "
                         "would have %d); sym_team_split_2d_ragged accepts a short last row",
                         op, xrange, n, parent->name, n % xrange);
    if (xrange > n)
        xrange = n;
    const int x = parent->rank % xrange, y = parent->rank / xrange;
    const int nrows = (n + xrange - 1) / xrange;
    int *row = malloc((size_t)xrange * sizeof(int));
    int *col = malloc((size_t)nrows * sizeof(int));
    if (!row || !col) {
        free(row);
        free(col);
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", op);
    }
    int nrow = 0, ncol = 0;
    for (int r = y * xrange; r < n && r < (y + 1) * xrange; r++)
        row[nrow++] = r;
    for (int r = x; r < n; r += xrange)
        col[ncol++] = r;
    int *mine[2] = {row, col};
    int counts[2] = {nrow, ncol};
    int largest[2] = {xrange, nrows};
    char desc[96];
    snprintf(desc, sizeof(desc), "xrange %d", xrange);
    sym_team_t out[2];
    st = sym_team_make(op, parent, 2, mine, counts, largest,
                       hash_ints(UINT64_C(0x2d00000000) ^ (uint64_t)ragged, &xrange, 1), desc, out);
    free(row);
    free(col);
    if (st == SYM_OK) {
        *xaxis_p = out[0];
        *yaxis_p = out[1];
    }
    return st;
}

SYM_API sym_status_t sym_team_split_2d(sym_team_t parent, int xrange, sym_team_t *xaxis_p,
                                       sym_team_t *yaxis_p)
{
    return split_2d("sym_team_split_2d", parent, xrange, false, xaxis_p, yaxis_p);
}

SYM_API sym_status_t sym_team_split_2d_ragged(sym_team_t parent, int xrange, sym_team_t *xaxis_p,
                                              sym_team_t *yaxis_p)
{
    return split_2d("sym_team_split_2d_ragged", parent, xrange, true, xaxis_p, yaxis_p);
}
