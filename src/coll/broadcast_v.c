/*
 * broadcast_v.c - sym_broadcast_v: a broadcast that carries its length.
 *
 * One collective call in two messages over the same links, both with the
 * call's fingerprint: the root's length (8 bytes), then, if it is not 0,
 * the data.  Every member learns the length from the first message, so all
 * choose the same algorithm for the second (by that size, unless the call
 * or SYMHEAP_BROADCAST_ALGORITHM chose one).  A member whose buffer is too
 * small still takes part, forwarding the data (ring, tree) from a scratch
 * buffer, and returns SYM_ERR_TRUNCATED without writing into its own: the
 * call is whole on every member, so its team stays usable and the members
 * whose buffers fit return SYM_OK.  No run-ahead: each sender waits until
 * its receivers took the data, as a default broadcast does.
 */
#include <inttypes.h>
#include <string.h>

#include "coll/algorithms.h"
#include "coll/tuning.h"

static const sym_broadcast_fn algorithms[] = {SYM_BROADCAST_ALGOS(SYM_ALGO_ENTRY)};

sym_status_t sym_broadcast_v_nolock(sym_team_t team, void *buf, size_t capacity, size_t *nbytes_p,
                                    int root, const sym_coll_opts_t *opts)
{
    static const char op[] = "sym_broadcast_v";
    if (!nbytes_p)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: nbytes_p is NULL", op);
    struct sym_coll c;
    sym_status_t st =
        sym_coll_prepare(&c, op, team, SYM_COLL_BROADCAST_V, SYM_UINT8, 0, 0, root, opts);
    if (st != SYM_OK)
        return st;
    const bool is_root = team->rank == root;
    const size_t mine = is_root ? *nbytes_p : capacity;
    if (mine && !buf)
        return sym_error(SYM_ERR_INVALID_ARG, "%s on %s: NULL buffer for %zu bytes", op, team->name,
                         mine);
    if (is_root && mine > (size_t)PTRDIFF_MAX)
        return sym_error(SYM_ERR_INVALID_ARG, "%s on %s: %zu bytes overflow the address space", op,
                         team->name, mine);
    /* the length is known to the root only: its message is chosen for as a
     * message of no size */
    st = sym_coll_select(&c, opts, 0);
    if (st != SYM_OK)
        return st;
    sym_coll_start(&c);
    if (team->size == 1)
        return SYM_OK;
    uint64_t len = is_root ? (uint64_t)mine : 0;
    st = algorithms[c.fp.algo](&c, &len, sizeof(len), root);
    if (st == SYM_OK && len > (uint64_t)PTRDIFF_MAX) /* no sender of this library writes it */
        st = sym_error(SYM_ERR_INTERNAL, "%s on %s: the root's length %" PRIu64 " is malformed", op,
                       team->name, len);
    if (st != SYM_OK)
        return sym_coll_end(&c, st);
    const size_t total = (size_t)len;
    const bool fits = is_root || total <= capacity;
    void *into = buf;
    if (!fits && !(into = sym_team_scratch(team, 0, total)))
        return sym_coll_end(&c, sym_error(SYM_ERR_NO_MEMORY,
                                          "%s on %s: out of memory forwarding a %zu-byte "
                                          "message this PE's buffer (%zu bytes) cannot hold",
                                          op, team->name, total, capacity));
    if (total) {
        bool chosen = strcmp(c.algo_source, "automatic") != 0;
        sym_algorithm_t algo = chosen ? (sym_algorithm_t)c.fp.algo
                                      : sym_coll_auto(SYM_COLL_BROADCAST_V, team, total, false);
        st = sym_coll_end(&c, algorithms[algo](&c, into, total, root));
        if (st != SYM_OK)
            return st;
    }
    if (is_root)
        return SYM_OK;
    *nbytes_p = total;
    if (!fits)
        return sym_error(SYM_ERR_TRUNCATED,
                         "%s #%" PRIu64 " on %s: the root's message has %zu bytes, this PE's "
                         "buffer %zu; nothing was written",
                         op, c.fp.seq, team->name, total, capacity);
    return SYM_OK;
}
