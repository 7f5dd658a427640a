/*
 * team_area.c - the team region: split teams' mailbox areas, taken on
 * demand when a team is made and given back when it is destroyed.
 *
 * The region (SYMHEAP_TEAM_REGION_SIZE, at the end of every heap) is cut
 * into blocks of SYM_TEAM_BLOCK bytes; each PE keeps a bitmap of the blocks
 * its own teams use.  A split ORs the bitmaps of the parent's PEs (an
 * allreduce inside the split's collective), so every parent PE sees the
 * same map and picks the same first-fit range: two teams that share a PE
 * never share a block, while disjoint teams may.  Nothing is reserved at
 * init: the owner backs a range with memory when its team takes it
 * (MADV_POPULATE_WRITE, so a full /dev/shm is SYM_ERR_NO_MEMORY at the
 * split instead of a SIGBUS later).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/team.h"
#include "core/internal.h"

static struct {
    uint64_t off, size;
    uint64_t nblocks;
    size_t nwords;
    uint64_t *used;   /* [nwords] bit b: block b is used by a team of this PE */
    uint64_t *agreed; /* the parent's map during a split */
} region;

sym_status_t sym_team_areas_init(uint64_t off, uint64_t size)
{
    region.off = off;
    region.size = size;
    region.nblocks = size / SYM_TEAM_BLOCK;
    region.nwords = (size_t)((region.nblocks + 63) / 64);
    region.used = calloc(region.nwords ? region.nwords : 1, sizeof(uint64_t));
    region.agreed = calloc(region.nwords ? region.nwords : 1, sizeof(uint64_t));
    if (!region.used || !region.agreed) {
        sym_team_areas_fini();
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the team region's map");
    }
    /* blocks past the region's end are never free */
    for (uint64_t b = region.nblocks; b < (uint64_t)region.nwords * 64; b++)
        region.used[b / 64] |= UINT64_C(1) << (b % 64);
    return SYM_OK;
}

void sym_team_areas_fini(void)
{
    free(region.used);
    free(region.agreed);
    memset(&region, 0, sizeof(region));
}

uint64_t sym_team_area_bytes(int n)
{
    uint64_t bytes = sym_round_up(sym_rt.cfg.team_area_size, SYM_TEAM_BLOCK);
    for (;; bytes += SYM_TEAM_BLOCK) {
        struct sym_chan probe;
        /* a failed probe records an error nobody reports: the next size is tried */
        sym_status_t st =
            sym_chan_init(&probe, 0, bytes, n, NULL, sym_rt.cfg.chunk_size, true, "team area");
        if (st == SYM_OK) {
            sym_chan_fini(&probe);
            return bytes;
        }
    }
}

static void mark(uint64_t *map, uint64_t first, uint64_t count, bool set)
{
    for (uint64_t b = first; b < first + count; b++) {
        if (set)
            map[b / 64] |= UINT64_C(1) << (b % 64);
        else
            map[b / 64] &= ~(UINT64_C(1) << (b % 64));
    }
}

static bool range_free(const uint64_t *map, uint64_t first, uint64_t count)
{
    for (uint64_t b = first; b < first + count; b++)
        if (map[b / 64] & (UINT64_C(1) << (b % 64)))
            return false;
    return true;
}

sym_status_t sym_team_areas_agree(struct sym_coll *c, int nfam, const uint64_t bytes[],
                                  uint64_t offs[], uint64_t *extra, size_t nextra)
{
    const size_t words = region.nwords + nextra;
    uint64_t *mine = malloc(words * sizeof(uint64_t));
    uint64_t *all = malloc(words * sizeof(uint64_t));
    if (!mine || !all) {
        free(mine);
        free(all);
        return sym_error(SYM_ERR_NO_MEMORY, "%s on %s: out of memory", c->name, c->team->name);
    }
    memcpy(mine, region.used, region.nwords * sizeof(uint64_t));
    if (nextra)
        memcpy(mine + region.nwords, extra, nextra * sizeof(uint64_t));
    sym_status_t st = sym_allreduce_rd(c, all, mine, words, SYM_UINT64, SYM_OP_BOR);
    if (st == SYM_OK) {
        memcpy(region.agreed, all, region.nwords * sizeof(uint64_t));
        if (nextra)
            memcpy(extra, all + region.nwords, nextra * sizeof(uint64_t));
    }
    free(mine);
    free(all);
    if (st != SYM_OK)
        return st;
    uint64_t taken = 0;
    for (int i = 0; i < nfam; i++) {
        const uint64_t count = bytes[i] / SYM_TEAM_BLOCK;
        uint64_t first = 0;
        while (first + count <= region.nblocks && !range_free(region.agreed, first, count))
            first++;
        if (first + count > region.nblocks) {
            uint64_t used = 0;
            for (uint64_t b = 0; b < region.nblocks; b++)
                used += (region.agreed[b / 64] >> (b % 64)) & 1;
            return sym_error(SYM_ERR_NO_MEMORY,
                             "%s on %s: no room for a team mailbox of %" PRIu64 " bytes: %" PRIu64
                             " of the team region's %" PRIu64
                             " bytes are used on some PE of the parent (destroy teams or raise "
                             "SYMHEAP_TEAM_REGION_SIZE)",
                             c->name, c->team->name, bytes[i], (used - taken) * SYM_TEAM_BLOCK,
                             region.size);
        }
        mark(region.agreed, first, count, true);
        taken += count;
        offs[i] = region.off + first * SYM_TEAM_BLOCK;
    }
    return SYM_OK;
}

sym_status_t sym_team_area_take(const char *op, uint64_t off, uint64_t bytes)
{
    mark(region.used, (off - region.off) / SYM_TEAM_BLOCK, bytes / SYM_TEAM_BLOCK, true);
#ifdef MADV_POPULATE_WRITE
    if (madvise(sym_rt.base + off, (size_t)bytes, MADV_POPULATE_WRITE) != 0 && errno != EINVAL) {
        int e = errno;
        sym_team_area_release(off, bytes);
        return sym_error(SYM_ERR_NO_MEMORY,
                         "%s: cannot back a team mailbox of %" PRIu64 " bytes in /dev/shm: %s", op,
                         bytes, strerror(e));
    }
#else
    (void)op;
#endif
    return SYM_OK;
}

void sym_team_area_release(uint64_t off, uint64_t bytes)
{
    mark(region.used, (off - region.off) / SYM_TEAM_BLOCK, bytes / SYM_TEAM_BLOCK, false);
}

uint64_t sym_team_areas_used(void)
{
    uint64_t used = 0;
    for (uint64_t b = 0; b < region.nblocks; b++)
        used += (region.used[b / 64] >> (b % 64)) & 1;
    return used * SYM_TEAM_BLOCK;
}
