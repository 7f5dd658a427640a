/* team.c - team registry, mailbox partition, split / create / destroy. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "coll/algorithms.h"
#include "coll/coll.h"
#include "coll/direct.h"
#include "coll/team.h"

static struct {
    uint64_t p2p_off, p2p_size;
    uint64_t world_off, world_size;
    struct sym_team **all; /* every team ever made (destroyed ones stay, marked) */
    size_t nall, cap;
} teams;

static struct sym_team *world;
static struct sym_team p2p;

struct sym_team *sym_p2p_team(void)
{
    return &p2p;
}

static sym_status_t registry_add(struct sym_team *t)
{
    if (teams.nall == teams.cap) {
        size_t cap = teams.cap ? teams.cap * 2 : 16;
        struct sym_team **a = realloc(teams.all, cap * sizeof(*a));
        if (!a)
            return sym_error(SYM_ERR_NO_MEMORY, "team registry: out of memory");
        teams.all = a;
        teams.cap = cap;
    }
    teams.all[teams.nall++] = t;
    return SYM_OK;
}

/* The oldest destroyed team's record once SYM_TEAM_QUARANTINE of them are
 * kept, taken out of the registry for reuse; else NULL.  Reusing records
 * only for teams (instead of freeing them) keeps a very old stale handle
 * pointing at a team record, never at unrelated memory. */
static struct sym_team *registry_recycle(void)
{
    size_t dead = 0, oldest = 0;
    for (size_t i = 0; i < teams.nall; i++)
        if (teams.all[i]->magic == SYM_TEAM_DEAD && dead++ == 0)
            oldest = i;
    if (dead < SYM_TEAM_QUARANTINE)
        return NULL;
    struct sym_team *t = teams.all[oldest];
    memmove(&teams.all[oldest], &teams.all[oldest + 1],
            (teams.nall - oldest - 1) * sizeof(teams.all[0]));
    teams.nall--;
    memset(t, 0, sizeof(*t));
    return t;
}

void *sym_team_scratch(struct sym_team *team, int slot, size_t bytes)
{
    if (bytes <= team->scratch_size[slot])
        return team->scratch[slot];
    free(team->scratch[slot]);
    team->scratch[slot] = malloc(bytes);
    team->scratch_size[slot] = team->scratch[slot] ? bytes : 0;
    return team->scratch[slot];
}

static void team_free_arrays(struct sym_team *t)
{
    for (int i = 0; i < 2; i++) {
        free(t->scratch[i]);
        t->scratch[i] = NULL;
        t->scratch_size[i] = 0;
    }
    sym_chan_fini(&t->chan);
    sym_direct_team_fini(&t->direct);
    free(t->pe_of);
    free(t->rank_of);
    t->pe_of = t->rank_of = NULL;
}

/* The area past its recovery lines: the channel, then the direct
 * algorithm's lines at the top, when the channel still fits without them
 * (every member decides alike: same area, same team size). */
static sym_status_t area_init(struct sym_team *t, const char *op, uint64_t area_off,
                              uint64_t area_size, uint64_t stage_off, uint64_t stage_size)
{
    const uint64_t off = area_off + SYM_TEAM_REC_BYTES, size = area_size - SYM_TEAM_REC_BYTES;
    const uint64_t lines = sym_direct_lines_bytes(t->size);
    uint64_t lines_off = 0;
    sym_status_t st = SYM_ERR_NO_MEMORY;
    if (size > lines && sym_chan_init(&t->chan, off, size - lines, t->size, t->pe_of,
                                      sym_rt.cfg.chunk_size, true, op) == SYM_OK) {
        lines_off = off + size - lines;
        st = SYM_OK;
    }
    if (st != SYM_OK)
        st = sym_chan_init(&t->chan, off, size, t->size, t->pe_of, sym_rt.cfg.chunk_size, true, op);
    if (st == SYM_OK)
        st = sym_direct_team_init(&t->direct, t->size, lines_off, stage_off, stage_size);
    return st;
}

/* A team struct for the given members (global PE numbers, in team order),
 * in the area [area_off, area_off + area_size): recovery lines, then the
 * channel and the direct lines; the world team also has a staging area. */
static sym_status_t team_new(const char *op, const int *members, int n, uint64_t area_off,
                             uint64_t area_size, double timeout_s, const char *name,
                             struct sym_team **team_p)
{
    struct sym_team *t = registry_recycle();
    if (!t)
        t = calloc(1, sizeof(*t));
    if (!t)
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", op);
    t->pe_of = malloc((size_t)n * sizeof(int));
    t->rank_of = malloc((size_t)sym_rt.npes * sizeof(int));
    if (!t->pe_of || !t->rank_of) {
        team_free_arrays(t);
        free(t);
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", op);
    }
    for (int pe = 0; pe < sym_rt.npes; pe++)
        t->rank_of[pe] = -1;
    for (int r = 0; r < n; r++) {
        t->pe_of[r] = members[r];
        t->rank_of[members[r]] = r;
    }
    t->magic = SYM_TEAM_MAGIC;
    t->area_off = area_off;
    t->size = n;
    t->rank = t->rank_of[sym_rt.me];
    t->timeout_s = timeout_s;
    snprintf(t->name, sizeof(t->name), "%s", name);
    const bool is_world = !world && area_off == teams.world_off;
    sym_status_t st =
        area_init(t, op, area_off, area_size, is_world ? sym_rt.layout.staging_off : 0,
                  is_world ? sym_rt.layout.staging_size : 0);
    if (st == SYM_OK)
        st = registry_add(t);
    if (st != SYM_OK) {
        team_free_arrays(t);
        free(t);
        return st;
    }
    *team_p = t;
    return SYM_OK;
}

sym_status_t sym_teams_init(void)
{
    sym_status_t cst = sym_coll_config_init(&sym_rt.cfg);
    if (cst != SYM_OK)
        return cst;
    memset(&teams, 0, sizeof(teams));
    const struct sym_heap_layout *l = &sym_rt.layout;
    uint64_t half = l->mailbox_size / 2 / SYM_LINE * SYM_LINE;
    teams.p2p_off = l->mailbox_off;
    teams.p2p_size = half;
    teams.world_off = teams.p2p_off + half;
    teams.world_size = half;
    sym_status_t ast = sym_team_areas_init(l->teams_off, l->teams_size);
    if (ast != SYM_OK)
        return ast;

    int *members = malloc((size_t)sym_rt.npes * sizeof(int));
    if (!members)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the world team");
    for (int pe = 0; pe < sym_rt.npes; pe++)
        members[pe] = pe;
    /* the heap is zero-filled when created: the world's flags start clear */
    sym_status_t st = team_new("sym_init (world team)", members, sym_rt.npes, teams.world_off,
                               teams.world_size, 0, "world", &world);
    if (st == SYM_OK) {
        /* point-to-point shares the world's numbering but not its links */
        p2p = *world;
        memset(&p2p.direct, 0, sizeof(p2p.direct)); /* the world's, not p2p's */
        p2p.pe_of = world->pe_of;
        p2p.rank_of = world->rank_of;
        snprintf(p2p.name, sizeof(p2p.name), "point-to-point");
        st = sym_chan_init(&p2p.chan, teams.p2p_off, teams.p2p_size, sym_rt.npes, p2p.pe_of,
                           sym_rt.cfg.chunk_size, false, "sym_init (point-to-point mailboxes)");
    }
    free(members);
    return st;
}

void sym_teams_fini(void)
{
    sym_p2p_fini();
    sym_chan_fini(&p2p.chan);
    memset(&p2p, 0, sizeof(p2p));
    for (size_t i = 0; i < teams.nall; i++) {
        team_free_arrays(teams.all[i]);
        teams.all[i]->magic = 0;
        free(teams.all[i]);
    }
    free(teams.all);
    memset(&teams, 0, sizeof(teams));
    sym_team_areas_fini();
    world = NULL;
}

void sym_team_each(void (*fn)(struct sym_team *team, void *arg), void *arg)
{
    if (world)
        fn(world, arg);
    for (size_t i = 0; i < teams.nall; i++)
        if (teams.all[i] != world && teams.all[i]->magic == SYM_TEAM_MAGIC)
            fn(teams.all[i], arg);
}

sym_status_t sym_team_check(const char *op, sym_team_t team)
{
    sym_status_t st = sym_check_init(op);
    if (st != SYM_OK)
        return st;
    if (team == SYM_TEAM_INVALID)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s: the team is SYM_TEAM_INVALID (this PE is "
                         "not a member, or the split failed)",
                         op);
    for (size_t i = 0; i < teams.nall; i++) {
        if (teams.all[i] != team)
            continue;
        if (team->magic == SYM_TEAM_DEAD)
            return sym_error(SYM_ERR_INVALID_ARG, "%s: %s was destroyed", op, team->name);
        return SYM_OK;
    }
    return sym_error(SYM_ERR_INVALID_ARG, "%s: %p is not a team handle", op, (void *)team);
}

void sym_team_break(struct sym_team *team, sym_status_t status, const char *msg)
{
    if (team->broken)
        return;
    team->broken = status;
    snprintf(team->broken_msg, sizeof(team->broken_msg), "%s", msg);
}

SYM_API sym_team_t sym_team_world(void)
{
    return sym_rt.initialized ? world : SYM_TEAM_INVALID;
}

SYM_API int sym_team_my_pe(sym_team_t team)
{
    return sym_team_check("sym_team_my_pe", team) == SYM_OK ? team->rank : -1;
}

SYM_API int sym_team_n_pes(sym_team_t team)
{
    return sym_team_check("sym_team_n_pes", team) == SYM_OK ? team->size : -1;
}

SYM_API const char *sym_team_name(sym_team_t team)
{
    return sym_team_check("sym_team_name", team) == SYM_OK ? team->name : "invalid";
}

SYM_API sym_status_t sym_team_members(sym_team_t team, int *global_pes)
{
    sym_status_t st = sym_team_check("sym_team_members", team);
    if (st != SYM_OK)
        return st;
    if (!global_pes)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_team_members: global_pes is NULL");
    memcpy(global_pes, team->pe_of, (size_t)team->size * sizeof(int));
    return SYM_OK;
}

SYM_API int sym_team_global_to_local(sym_team_t team, int global_pe)
{
    if (sym_team_check("sym_team_global_to_local", team) != SYM_OK || global_pe < 0 ||
        global_pe >= sym_rt.npes)
        return -1;
    return team->rank_of[global_pe];
}

SYM_API int sym_team_local_to_global(sym_team_t team, int local_pe)
{
    if (sym_team_check("sym_team_local_to_global", team) != SYM_OK || local_pe < 0 ||
        local_pe >= team->size)
        return -1;
    return team->pe_of[local_pe];
}

SYM_API int sym_team_translate_pe(sym_team_t src_team, int src_pe, sym_team_t dest_team)
{
    int g = sym_team_local_to_global(src_team, src_pe);
    return g < 0 ? -1 : sym_team_global_to_local(dest_team, g);
}

SYM_API sym_status_t sym_team_set_timeout(sym_team_t team, double seconds)
{
    sym_status_t st = sym_team_check("sym_team_set_timeout", team);
    if (st != SYM_OK)
        return st;
    if ((st = sym_timeout_check("sym_team_set_timeout", seconds, false)) != SYM_OK)
        return st;
    team->timeout_s = seconds;
    return SYM_OK;
}

/* FNV-1a over a member list: PEs making different teams disagree. */
static uint64_t hash_members(const int *members, int n)
{
    uint64_t h = UINT64_C(1469598103934665603);
    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)members[i];
        h *= UINT64_C(1099511628211);
    }
    return h ^ (uint64_t)n;
}

/* The parent's PEs passed different arguments: gather each one's own
 * description and name the first PE whose differs from this one's.  The
 * parent stays usable (every step was a matching collective on it). */
static sym_status_t disagreement(const char *op, struct sym_team *parent, const char *desc)
{
    enum { LEN = 96 };
    char mine[LEN] = {0};
    snprintf(mine, sizeof(mine), "%s", desc);
    char *all = malloc((size_t)parent->size * LEN);
    if (!all)
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", op);
    sym_status_t st = sym_all_gather(parent, all, mine, LEN, SYM_UINT8, NULL);
    if (st != SYM_OK) {
        free(all);
        return st;
    }
    int other = -1;
    for (int r = 0; r < parent->size && other < 0; r++)
        if (strncmp(all + (size_t)r * LEN, mine, LEN) != 0)
            other = r;
    if (other < 0)
        st = sym_error(SYM_ERR_MISMATCH,
                       "%s on %s: the PEs passed different arguments (this PE, PE %d, passed "
                       "%s; another passed a list that differs beyond what fits here); no team "
                       "was made",
                       op, parent->name, parent->pe_of[parent->rank], mine);
    else
        st = sym_error(SYM_ERR_MISMATCH,
                       "%s on %s: the PEs passed different arguments: this PE (PE %d) passed "
                       "%s, PE %d passed %.*s; no team was made",
                       op, parent->name, parent->pe_of[parent->rank], mine, parent->pe_of[other],
                       LEN, all + (size_t)other * LEN);
    free(all);
    return st;
}

/* Undo the teams a failed split made on this PE. */
static void unmake(int nfam, sym_team_t out[], const bool taken[])
{
    for (int f = 0; f < nfam; f++)
        if (out[f]) {
            if (taken[f])
                sym_team_area_release(out[f]->area_off, out[f]->area_bytes);
            team_free_arrays(out[f]);
            out[f]->magic = SYM_TEAM_DEAD;
            out[f] = SYM_TEAM_INVALID;
        }
}

/*
 * The collective core of every split: one allreduce over the parent ORs
 * the used-block maps of the team region with the hash check, so every
 * parent PE picks the same ranges (or finds the same disagreement); this
 * PE makes its team(s), takes and clears their areas; and a second
 * allreduce (a barrier that also carries whether some PE could not back
 * its area) lets nobody send into an area before its owner cleared it.
 */
sym_status_t sym_team_make(const char *op, struct sym_team *parent, int nfam, int *const mine[],
                           const int counts[], const int largest[], uint64_t hash, const char *desc,
                           sym_team_t out[])
{
    enum { MAX_FAM = 16 };
    for (int f = 0; f < nfam; f++)
        out[f] = SYM_TEAM_INVALID;
    if (nfam < 1 || nfam > MAX_FAM)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %d teams per PE (1..%d)", op, nfam, MAX_FAM);
    uint64_t bytes[MAX_FAM], offs[MAX_FAM];
    bool taken[MAX_FAM] = {false};
    for (int f = 0; f < nfam; f++)
        bytes[f] = sym_team_area_bytes(largest[f] > 0 ? largest[f] : 1);
    struct sym_coll c;
    sym_status_t st =
        sym_coll_begin(&c, op, parent, SYM_COLL_TEAM_SPLIT, SYM_UINT64, 0, 1, -1, NULL);
    if (st != SYM_OK)
        return st;
    c.fp.count = 0;
    c.fp.root = nfam;
    c.fp.op = SYM_OP_BOR;
    /* O(log n) rounds: the naive exchange is n^2 messages, seconds at 256 PEs */
    c.fp.algo = SYM_ALGO_RD;
    uint64_t check[2] = {hash, ~hash};
    st = sym_team_areas_agree(&c, nfam, bytes, offs, check, 2);
    if ((st == SYM_OK || st == SYM_ERR_NO_MEMORY) && (check[0] != hash || check[1] != ~hash))
        return disagreement(op, parent, desc);
    if (st == SYM_ERR_NO_MEMORY)
        return st; /* the same on every parent PE: the parent is fine */
    if (st != SYM_OK)
        return sym_coll_end(&c, st);
    for (int f = 0; f < nfam && st == SYM_OK; f++) {
        if (!mine[f])
            continue;
        int *global = malloc((size_t)counts[f] * sizeof(int));
        if (!global) {
            st = sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", op);
            break;
        }
        for (int r = 0; r < counts[f]; r++)
            global[r] = parent->pe_of[mine[f][r]];
        char name[24];
        snprintf(name, sizeof(name), "team %" PRIu64 ".%" PRIu64,
                 (offs[f] - sym_rt.layout.teams_off) / SYM_TEAM_BLOCK, c.fp.seq);
        st = team_new(op, global, counts[f], offs[f], bytes[f], parent->timeout_s, name, &out[f]);
        free(global);
        if (st == SYM_OK && (st = sym_team_area_take(op, offs[f], bytes[f])) == SYM_OK) {
            taken[f] = true;
            out[f]->area_bytes = bytes[f];
            memset(sym_rt.base + offs[f], 0, SYM_TEAM_REC_BYTES);
            sym_chan_clear_local(&out[f]->chan);
            sym_direct_team_clear(out[f]);
        }
    }
    /* everyone's flags are clear before anyone may use the new teams */
    char why[512] = "";
    if (st != SYM_OK)
        snprintf(why, sizeof(why), "%s", sym_last_error());
    uint64_t failed = st != SYM_OK, any = 0;
    struct sym_coll b;
    sym_status_t st2 = sym_coll_begin(&b, op, parent, SYM_COLL_BARRIER, 0, 0, 0, -1, NULL);
    if (st2 == SYM_OK) {
        b.fp.algo = SYM_ALGO_RD;
        b.fp.op = SYM_OP_BOR;
        st2 = sym_coll_end(&b, sym_allreduce_rd(&b, &any, &failed, 1, SYM_UINT64, SYM_OP_BOR));
    }
    if (st2 != SYM_OK) {
        unmake(nfam, out, taken);
        return st2;
    }
    if (any) {
        unmake(nfam, out, taken);
        if (st != SYM_OK)
            return sym_error(st, "%s", why);
        return sym_error(SYM_ERR_NO_MEMORY,
                         "%s on %s: another PE of the parent could not make its team (out of "
                         "memory); no team was made",
                         op, parent->name);
    }
    return SYM_OK;
}

/* "what {a, b, c, ...}" of a member list, cut to fit `len`. */
static void describe_list(char *buf, size_t len, const char *what, const int *list, int n)
{
    size_t used = (size_t)snprintf(buf, len, "%d %s {", n, what);
    for (int i = 0; i < n && used < len; i++) {
        if (used + 16 > len) {
            snprintf(buf + used, len - used, "...");
            return;
        }
        used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? ", " : "", list[i]);
    }
    if (used < len)
        snprintf(buf + used, len - used, "}");
}

SYM_API sym_status_t sym_team_split_strided(sym_team_t parent, int start, int stride, int size,
                                            sym_team_t *new_team_p)
{
    const char *op = "sym_team_split_strided";
    /* Every failure leaves SYM_TEAM_INVALID behind, so no caller goes on
     * with a stale handle. */
    if (new_team_p)
        *new_team_p = SYM_TEAM_INVALID;
    sym_status_t st = sym_team_check(op, parent);
    if (st != SYM_OK)
        return st;
    if (!new_team_p)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: new_team_p is NULL", op);
    long last = (long)start + (long)stride * ((long)size - 1);
    if (size < 1 || size > parent->size || start < 0 || start >= parent->size || last < 0 ||
        last >= parent->size || (stride == 0 && size > 1))
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s: start %d, stride %d, size %d do not select "
                         "distinct PEs of %s (%d PEs)",
                         op, start, stride, size, parent->name, parent->size);
    int *members = malloc((size_t)size * sizeof(int));
    if (!members)
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", op);
    bool member = false;
    for (int i = 0; i < size; i++) {
        members[i] = start + i * stride;
        member |= members[i] == parent->rank;
    }
    int *mine[1] = {member ? members : NULL};
    int counts[1] = {size};
    char desc[96];
    snprintf(desc, sizeof(desc), "start %d, stride %d, size %d", start, stride, size);
    st = sym_team_make(op, parent, 1, mine, counts, counts, hash_members(members, size), desc,
                       new_team_p);
    free(members);
    return st;
}

SYM_API sym_status_t sym_team_create(sym_team_t parent, const int *members, int nmembers,
                                     sym_team_t *new_team_p)
{
    const char *op = "sym_team_create";
    if (new_team_p)
        *new_team_p = SYM_TEAM_INVALID;
    sym_status_t st = sym_team_check(op, parent);
    if (st != SYM_OK)
        return st;
    if (!new_team_p || (!members && nmembers > 0))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: NULL argument", op);
    if (nmembers < 1 || nmembers > parent->size)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %d members (must be 1..%d)", op, nmembers,
                         parent->size);
    bool member = false;
    char *seen = calloc((size_t)parent->size, 1);
    if (!seen)
        return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory", op);
    for (int i = 0; i < nmembers; i++) {
        int r = members[i];
        if (r < 0 || r >= parent->size || seen[r]) {
            free(seen);
            return sym_error(SYM_ERR_INVALID_ARG, "%s: member %d (%d) is %s", op, i, r,
                             r < 0 || r >= parent->size ? "not a PE of the parent" : "repeated");
        }
        seen[r] = 1;
        member |= r == parent->rank;
    }
    free(seen);
    int *mine[1] = {member ? (int *)members : NULL};
    int counts[1] = {nmembers};
    char desc[96];
    describe_list(desc, sizeof(desc), "members", members, nmembers);
    return sym_team_make(op, parent, 1, mine, counts, counts, hash_members(members, nmembers), desc,
                         new_team_p);
}

SYM_API sym_status_t sym_team_destroy(sym_team_t team)
{
    const char *op = "sym_team_destroy";
    sym_status_t st = sym_team_check(op, team);
    if (st != SYM_OK)
        return st;
    if (team == world)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: the world team cannot be destroyed", op);
    if (!team->broken) {
        struct sym_coll b;
        st = sym_coll_begin(&b, op, team, SYM_COLL_BARRIER, 0, 0, 0, -1, NULL);
        if (st == SYM_OK) {
            b.fp.algo = SYM_ALGO_RD;
            st = sym_barrier_rd(&b);
            /* wait until every member consumed what this PE sent, so no late
             * write lands in the area after a new team took it over */
            for (int r = 0; st == SYM_OK && r < team->size; r++)
                if (r != team->rank)
                    st = sym_chan_flush(&b, r);
            if (st == SYM_OK)
                st = sym_direct_flush(&b);
            st = sym_coll_end(&b, st);
        }
        /* A flush may find data a member never took (a call it did not
         * make): a second barrier, entered only after every member's
         * flush, brings that error to every member. */
        if (st == SYM_OK)
            st = sym_coll_begin(&b, op, team, SYM_COLL_BARRIER, 0, 0, 0, -1, NULL);
        if (st == SYM_OK) {
            b.fp.algo = SYM_ALGO_RD;
            st = sym_coll_end(&b, sym_barrier_rd(&b));
        }
    }
    if (team->area_bytes)
        sym_team_area_release(team->area_off, team->area_bytes);
    team_free_arrays(team);
    team->magic = SYM_TEAM_DEAD;
    return st;
}
