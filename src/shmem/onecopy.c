/*
 * onecopy.c - one-copy paths of the OpenSHMEM team collectives broadcast,
 * fcollect, collect, alltoall and alltoalls.
 *
 * OpenSHMEM makes dest (and source) of these routines symmetric, so every
 * PE can write its contribution straight into the peers' dest (a memcpy
 * into the peer's mapping on shm, a put over ofi) instead of staging it
 * through the native collectives' mailboxes, which copies every byte
 * twice.  A call on this path is:
 *   1. entry: an all_gather of a small fingerprint per member (routine,
 *      element size, nelems, root, strides, dest and source offsets).  It
 *      completes only when every member has entered the call, so no peer
 *      still reads its dest from an earlier use when it is written, and
 *      every member then holds the same table: all decide alike whether the
 *      calls match (else SYM_ERR_MISMATCH on every PE, before any data is
 *      written) and whether dest is usable (same symmetric object on all
 *      PEs, else the mailbox path, which takes any local memory).
 *   2. data: puts (non-blocking, completed by a quiet) into the peers' dest;
 *      broadcast instead reads from the root's source when it is
 *      symmetric, so the members copy in parallel rather than the root
 *      alone.
 *   3. exit: quiet and a team barrier: when it returns, every put into my
 *      dest is complete and nobody reads my source any more.
 * The native all_gather and barrier bring their own deadlines, dead-peer
 * detection and fingerprints (call sequence number, kind, count), so a
 * member calling a mailbox-path routine meanwhile is a native mismatch.
 *
 * Small calls are latency-bound and keep the mailbox path (fewer
 * synchronisations): SYMHEAP_SHMEM_ONECOPY_MIN bytes of dest per PE at
 * 2 PEs, scaled by (n/2)^4 for a team of n (see big_enough).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onecopy.h"

enum oc_routine { OC_BROADCAST = 1, OC_FCOLLECT, OC_COLLECT, OC_ALLTOALL, OC_ALLTOALLS };

static const char *const oc_names[] = {
    "?", "shmem_broadcast", "shmem_fcollect", "shmem_collect", "shmem_alltoall", "shmem_alltoalls"};

/* Gathered as uint64 words: a count and datatype no facade call of another
 * routine uses, so a member on a mailbox path never matches it natively. */
#define OC_MAGIC 0x6f6e65636f707900ull /* "onecopy" */
enum { OC_DEST_SYM = 1, OC_SRC_SYM = 2 };
struct oc_fp {
    uint64_t magic; /* OC_MAGIC | routine */
    uint64_t esz;
    uint64_t nelems;  /* collect: this member's count */
    int64_t root;     /* broadcast; else -1 */
    int64_t dst, sst; /* alltoalls strides; else 1 */
    uint64_t flags;   /* OC_DEST_SYM, OC_SRC_SYM */
    uint64_t dest_off, src_off;
};
#define OC_FP_WORDS (sizeof(struct oc_fp) / sizeof(uint64_t))

struct oc_call {
    enum oc_routine routine;
    sym_team_t t;
    int n, me;
    void *dest;
    const void *source;
    size_t esz, nelems;
    int root;
    ptrdiff_t dst, sst;
    struct oc_fp *all; /* [n] after the gather */
    int *pes;          /* [n] global PE numbers */
};

/* The offset of [addr, addr + len) if it is one symmetric range, without
 * leaving an error behind when it is not (plain local memory is legal on
 * the mailbox path). */
static bool sym_range(const void *addr, size_t len, uint64_t *off_p)
{
    int me = sym_my_pe();
    if (!addr || !sym_addr_accessible(addr, me))
        return false;
    if (len && !sym_addr_accessible((const char *)addr + len - 1, me))
        return false;
    return sym_addr_to_offset(addr, len, off_p) == SYM_OK;
}

/* Bytes of dest a member's call spans (collect: unknown before the gather;
 * there the check runs afterwards with the total). */
static bool extent(const struct oc_call *c, size_t *len_p)
{
    size_t n = (size_t)c->n, e = c->esz, ne = c->nelems, len;
    switch (c->routine) {
    case OC_BROADCAST:
        return !__builtin_mul_overflow(ne, e, len_p);
    case OC_FCOLLECT:
    case OC_ALLTOALL:
        if (__builtin_mul_overflow(ne, e, &len) || __builtin_mul_overflow(len, n, len_p))
            return false;
        return true;
    case OC_ALLTOALLS:
        if (ne == 0 || c->dst < 1) {
            *len_p = 0;
            return c->dst >= 1;
        }
        /* the last element sits at ((n * ne - 1) * dst) */
        if (__builtin_mul_overflow(n, ne, &len) ||
            __builtin_mul_overflow(len - 1, (size_t)c->dst, &len) || len == SIZE_MAX ||
            __builtin_mul_overflow(len + 1, e, len_p))
            return false;
        return true;
    case OC_COLLECT:
        return !__builtin_mul_overflow(ne, e, len_p);
    }
    return false;
}

static bool source_extent(const struct oc_call *c, size_t *len_p)
{
    if (c->routine == OC_BROADCAST || c->routine == OC_FCOLLECT || c->routine == OC_COLLECT)
        return !__builtin_mul_overflow(c->nelems, c->esz, len_p);
    return false; /* alltoall(s) push from source: its symmetry is not needed */
}

static void describe(const struct oc_fp *f, char *buf, size_t len)
{
    unsigned r = (unsigned)(f->magic & 0xff);
    if ((f->magic & ~0xffull) != OC_MAGIC || r < OC_BROADCAST || r > OC_ALLTOALLS) {
        snprintf(buf, len, "no one-copy collective (word 0x%llx)", (unsigned long long)f->magic);
        return;
    }
    int k = snprintf(buf, len, "%s (element %llu bytes, nelems %llu", oc_names[r],
                     (unsigned long long)f->esz, (unsigned long long)f->nelems);
    if (k > 0 && (size_t)k < len && r == OC_BROADCAST)
        k += snprintf(buf + k, len - (size_t)k, ", root %lld", (long long)f->root);
    if (k > 0 && (size_t)k < len && r == OC_ALLTOALLS)
        k += snprintf(buf + k, len - (size_t)k, ", dst %lld, sst %lld", (long long)f->dst,
                      (long long)f->sst);
    if (k > 0 && (size_t)k < len)
        snprintf(buf + k, len - (size_t)k, ")");
}

/* Do two members' calls agree?  collect's counts may differ. */
static bool same_call(const struct oc_fp *a, const struct oc_fp *b)
{
    return a->magic == b->magic && a->esz == b->esz && a->root == b->root && a->dst == b->dst &&
           a->sst == b->sst && ((a->magic & 0xff) == OC_COLLECT || a->nelems == b->nelems);
}

/* Step 1.  SYM_OK with c->all filled, or the error (recorded) on every
 * member alike. */
static sym_status_t handshake(struct oc_call *c, size_t dest_len)
{
    struct oc_fp mine = {
        .magic = OC_MAGIC | (uint64_t)c->routine,
        .esz = c->esz,
        .nelems = c->nelems,
        .root = c->routine == OC_BROADCAST ? c->root : -1,
        .dst = c->routine == OC_ALLTOALLS ? c->dst : 1,
        .sst = c->routine == OC_ALLTOALLS ? c->sst : 1,
    };
    size_t src_len;
    if (sym_range(c->dest, dest_len, &mine.dest_off))
        mine.flags |= OC_DEST_SYM;
    if (source_extent(c, &src_len) && sym_range(c->source, src_len, &mine.src_off))
        mine.flags |= OC_SRC_SYM;
    sym_status_t st = sym_all_gather(c->t, c->all, &mine, OC_FP_WORDS, SYM_UINT64, NULL);
    if (st != SYM_OK)
        return st;
    for (int i = 0; i < c->n; i++) {
        if (!same_call(&c->all[0], &c->all[i])) {
            char a[160], b[160];
            describe(&c->all[0], a, sizeof a);
            describe(&c->all[i], b, sizeof b);
            return sym_set_error(SYM_ERR_MISMATCH,
                                 "%s on %s: mismatched calls: member 0 called %s, member %d "
                                 "called %s; no data was written",
                                 oc_names[c->routine], sym_team_name(c->t), a, i, b);
        }
    }
    return SYM_OK;
}

/* Is dest the same symmetric object everywhere (so a put at my offset
 * lands in each peer's dest)?  The same answer on every member. */
static bool dest_agreed(const struct oc_call *c)
{
    for (int i = 0; i < c->n; i++)
        if (!(c->all[i].flags & OC_DEST_SYM) || c->all[i].dest_off != c->all[0].dest_off)
            return false;
    return true;
}

/* Step 3: my puts complete, then everybody's. */
static sym_status_t finish(struct oc_call *c)
{
    sym_status_t st = sym_quiet();
    if (st == SYM_OK)
        st = sym_barrier(c->t, NULL);
    return st;
}

static sym_status_t put_to(struct oc_call *c, int j, size_t at, const void *src, size_t len)
{
    char *d = (char *)c->dest + at;
    if (j == c->me) {
        if (len && d != src)
            memmove(d, src, len);
        return SYM_OK;
    }
    return sym_put_nbi(d, src, len, c->pes[j]);
}

static sym_status_t run_broadcast(struct oc_call *c)
{
    size_t len = c->nelems * c->esz;
    const struct oc_fp *rf = &c->all[c->root];
    sym_status_t st = SYM_OK;
    if (rf->flags & OC_SRC_SYM) {
        /* Pull: every member copies from the root's source at once. */
        void *src = NULL;
        if (c->me != c->root && len) {
            st = sym_offset_to_addr(rf->src_off, len, &src);
            if (st == SYM_OK)
                st = sym_get(c->dest, src, len, c->pes[c->root]);
        }
        sym_status_t st2 = finish(c);
        if (st == SYM_OK)
            st = st2;
        /* The root's own copy last: source may overlap its dest, and the
         * barrier says nobody reads source any more. */
        if (st == SYM_OK && c->me == c->root)
            st = put_to(c, c->me, 0, c->source, len);
        return st;
    }
    if (c->me == c->root)
        for (int k = 1; k < c->n && st == SYM_OK; k++)
            st = put_to(c, (c->me + k) % c->n, 0, c->source, len);
    sym_status_t st2 = finish(c);
    if (st == SYM_OK)
        st = st2;
    if (st == SYM_OK && c->me == c->root)
        st = put_to(c, c->me, 0, c->source, len);
    return st;
}

/* fcollect, collect, alltoall, alltoalls: push my blocks, peers in turn
 * starting after me (spreads the writers over the targets), my own last
 * (source may overlap my dest). */
static sym_status_t run_push(struct oc_call *c, size_t my_at)
{
    size_t blk = c->nelems * c->esz;
    sym_status_t st = SYM_OK;
    for (int k = 1; k <= c->n && st == SYM_OK; k++) {
        int j = (c->me + k) % c->n;
        const char *s = c->source;
        switch (c->routine) {
        case OC_ALLTOALL:
            st = put_to(c, j, my_at, s + (size_t)j * blk, blk);
            break;
        case OC_ALLTOALLS: {
            const char *sj = s + (size_t)j * c->nelems * (size_t)c->sst * c->esz;
            if (c->nelems == 0)
                break;
            if (j == c->me) {
                char *d = (char *)c->dest + my_at;
                for (size_t e = 0; e < c->nelems; e++)
                    memmove(d + e * (size_t)c->dst * c->esz, sj + e * (size_t)c->sst * c->esz,
                            c->esz);
            } else {
                st = sym_iput((char *)c->dest + my_at, sj, c->dst, c->sst, c->esz, c->nelems,
                              c->pes[j]);
            }
            break;
        }
        default:
            st = put_to(c, j, my_at, s, blk);
            break;
        }
    }
    sym_status_t st2 = finish(c);
    return st == SYM_OK ? st2 : st;
}

static bool big_enough(int n, size_t dest_bytes);

static int oc_run(struct oc_call *c)
{
    c->n = sym_team_n_pes(c->t);
    c->me = sym_team_my_pe(c->t);
    c->all = calloc((size_t)c->n, sizeof *c->all);
    c->pes = malloc((size_t)c->n * sizeof *c->pes);
    int rc = -1;
    sym_status_t st;
    size_t dest_len = 0;
    if (!c->all || !c->pes) {
        symshmem_ignore(sym_set_error(SYM_ERR_NO_MEMORY, "%s: no memory for %d members",
                                      oc_names[c->routine], c->n));
        goto out;
    }
    if (sym_team_members(c->t, c->pes) != SYM_OK || !extent(c, &dest_len)) {
        /* Let the mailbox path report it (or handle it) the same way. */
        rc = SYMSHMEM_ONECOPY_DECLINED;
        goto out;
    }
    if ((st = handshake(c, dest_len)) != SYM_OK)
        goto out;
    size_t my_at = 0;
    if (c->routine == OC_COLLECT) {
        /* Every member's count is known now: my block's place, the total. */
        size_t total = 0;
        for (int i = 0; i < c->n; i++) {
            if (i == c->me)
                my_at = total;
            total += (size_t)c->all[i].nelems;
        }
        size_t *counts = malloc((size_t)c->n * sizeof *counts);
        bool big = big_enough(c->n, total * c->esz);
        uint64_t off;
        /* dest must hold the total: the same verdict everywhere, as the
         * offsets and heap layouts are the same. */
        bool ok = big && dest_agreed(c) && sym_range(c->dest, total * c->esz, &off);
        if (!ok) {
            if (!counts) {
                symshmem_ignore(sym_set_error(SYM_ERR_NO_MEMORY,
                                              "shmem_collect: no memory for %d counts", c->n));
                goto out;
            }
            for (int i = 0; i < c->n; i++)
                counts[i] = (size_t)c->all[i].nelems * c->esz;
            st = sym_all_gatherv(c->t, c->dest, c->source, counts, SYM_UINT8, NULL);
            free(counts);
            if (symshmem_settings.debug)
                symshmem_debug("shmem_collect on %s: %zu bytes in all: mailbox path",
                               sym_team_name(c->t), total * c->esz);
            rc = st == SYM_OK ? 0 : -1;
            free(c->all);
            free(c->pes);
            return rc;
        }
        free(counts);
        my_at *= c->esz;
    } else if (!dest_agreed(c)) {
        rc = SYMSHMEM_ONECOPY_DECLINED;
        goto out;
    } else if (c->routine == OC_BROADCAST) {
        rc = run_broadcast(c) == SYM_OK ? 0 : -1;
        goto out;
    } else if (c->routine == OC_ALLTOALLS) {
        my_at = (size_t)c->me * c->nelems * (size_t)c->dst * c->esz;
    } else {
        my_at = (size_t)c->me * c->nelems * c->esz;
    }
    rc = run_push(c, my_at) == SYM_OK ? 0 : -1;
out:
    if (symshmem_settings.debug)
        symshmem_debug("%s on %s: %zu x %zu bytes: %s", oc_names[c->routine], sym_team_name(c->t),
                       c->nelems, c->esz,
                       rc == SYMSHMEM_ONECOPY_DECLINED ? "mailbox path (dest not symmetric alike)"
                       : rc == 0                       ? "one-copy"
                                                       : "failed");
    free(c->all);
    free(c->pes);
    return rc;
}

/* Worth the extra synchronisation?  Decided from this member's arguments;
 * members that decide differently were called with different sizes, which
 * the native fingerprints report as a mismatch. */
static bool big_enough(int n, size_t dest_bytes)
{
    /* The handshake and the exit barrier cost scheduling rounds, which grow
     * fast once the team oversubscribes the cores: measured crossovers
     * (bench/RESULTS.md) 16 KiB of dest at 2 PEs, about 256 KiB at 4 on
     * 2 cores; so the threshold scales as (n/2)^4 (8 PEs: 4 MiB,
     * unmeasured). */
    size_t need = symshmem_settings.onecopy_min, q = (size_t)n;
    if (__builtin_mul_overflow(need, q * q, &need) || __builtin_mul_overflow(need, q * q, &need))
        return false;
    return dest_bytes >= need / 16;
}

static bool wanted(sym_team_t t, size_t dest_bytes)
{
    int n = sym_team_n_pes(t);
    return n > 1 && sym_initialized() && big_enough(n, dest_bytes);
}

/* fcollect, alltoall(s): worth it for n blocks of nelems elements each? */
static bool blocks_wanted(sym_team_t t, size_t nelems, size_t esz)
{
    size_t len;
    int n = sym_team_n_pes(t);
    return n >= 1 && !__builtin_mul_overflow(nelems, esz, &len) &&
           !__builtin_mul_overflow(len, (size_t)n, &len) && wanted(t, len);
}

int symshmem_onecopy_broadcast(sym_team_t t, void *dest, const void *source, size_t nelems,
                               size_t esz, int root)
{
    size_t len;
    int n = sym_team_n_pes(t);
    if (__builtin_mul_overflow(nelems, esz, &len) || !wanted(t, len) || root < 0 || root >= n)
        return SYMSHMEM_ONECOPY_DECLINED;
    struct oc_call c = {.routine = OC_BROADCAST,
                        .t = t,
                        .dest = dest,
                        .source = source,
                        .esz = esz,
                        .nelems = nelems,
                        .root = root,
                        .dst = 1,
                        .sst = 1};
    return oc_run(&c);
}

int symshmem_onecopy_fcollect(sym_team_t t, void *dest, const void *source, size_t nelems,
                              size_t esz)
{
    if (!blocks_wanted(t, nelems, esz))
        return SYMSHMEM_ONECOPY_DECLINED;
    struct oc_call c = {.routine = OC_FCOLLECT,
                        .t = t,
                        .dest = dest,
                        .source = source,
                        .esz = esz,
                        .nelems = nelems,
                        .dst = 1,
                        .sst = 1};
    return oc_run(&c);
}

int symshmem_onecopy_collect(sym_team_t t, void *dest, const void *source, size_t nelems,
                             size_t esz)
{
    if (sym_team_n_pes(t) < 2 || !sym_initialized())
        return SYMSHMEM_ONECOPY_DECLINED;
    struct oc_call c = {.routine = OC_COLLECT,
                        .t = t,
                        .dest = dest,
                        .source = source,
                        .esz = esz,
                        .nelems = nelems,
                        .dst = 1,
                        .sst = 1};
    return oc_run(&c);
}

int symshmem_onecopy_alltoall(sym_team_t t, void *dest, const void *source, size_t nelems,
                              size_t esz)
{
    if (!blocks_wanted(t, nelems, esz))
        return SYMSHMEM_ONECOPY_DECLINED;
    struct oc_call c = {.routine = OC_ALLTOALL,
                        .t = t,
                        .dest = dest,
                        .source = source,
                        .esz = esz,
                        .nelems = nelems,
                        .dst = 1,
                        .sst = 1};
    return oc_run(&c);
}

int symshmem_onecopy_alltoalls(sym_team_t t, void *dest, const void *source, ptrdiff_t dst,
                               ptrdiff_t sst, size_t nelems, size_t esz)
{
    if (dst < 1 || sst < 1 || !blocks_wanted(t, nelems, esz))
        return SYMSHMEM_ONECOPY_DECLINED;
    /* sym_iput moves elements of 1, 2, 4, 8 or 16 bytes */
    if (esz != 1 && esz != 2 && esz != 4 && esz != 8 && esz != 16)
        return SYMSHMEM_ONECOPY_DECLINED;
    struct oc_call c = {.routine = OC_ALLTOALLS,
                        .t = t,
                        .dest = dest,
                        .source = source,
                        .esz = esz,
                        .nelems = nelems,
                        .dst = dst,
                        .sst = sst};
    return oc_run(&c);
}
