/*
 * stress_team.c - team steps: split, create and destroy teams, keeping the
 * handles every PE holds consistent.
 */
#include "stress_private.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

void entry_locate(struct entry *e)
{
    e->my_group = -1;
    for (int g = 0; g < e->ngroups; g++)
        for (int i = 0; i < e->g[g].n; i++)
            if (e->g[g].pe[i] == stress_state.me)
                e->my_group = g;
}

static void check_handle(const struct entry *e)
{
    if (e->my_group < 0) {
        if (e->team != SYM_TEAM_INVALID)
            wrong("%s: a non-member got a team handle", e->desc);
        return;
    }
    const struct group *g = &e->g[e->my_group];
    if (e->team == SYM_TEAM_INVALID) {
        wrong("%s: a member got SYM_TEAM_INVALID", e->desc);
        return;
    }
    int got[MAXPE], mine = -1;
    for (int i = 0; i < g->n; i++)
        if (g->pe[i] == stress_state.me)
            mine = i;
    if (sym_team_n_pes(e->team) != g->n || sym_team_my_pe(e->team) != mine)
        wrong("%s: team has %d PEs, I am %d; expected %d and %d", e->desc, sym_team_n_pes(e->team),
              sym_team_my_pe(e->team), g->n, mine);
    CALL(sym_team_members(e->team, got));
    for (int i = 0; i < g->n; i++)
        if (got[i] != g->pe[i])
            wrong("%s: member %d is PE %d, expected %d", e->desc, i, got[i], g->pe[i]);
}

int live_entries(void)
{
    int k = 0;
    for (int i = 0; i < MAX_ENTRIES; i++)
        k += stress_state.ent[i].live;
    return k;
}

static struct entry *free_entry(const struct entry * not )
{
    for (int i = 1; i < MAX_ENTRIES; i++)
        if (!stress_state.ent[i].live && &stress_state.ent[i] != not )
            return &stress_state.ent[i];
    return NULL;
}

void step_team(struct rng *r)
{
    int nlive = live_entries();
    bool create = nlive == 1 || (nlive + 2 <= MAX_ENTRIES && rchance(r, 55));
    if (!create) {
        int k = 1 + (int)rbelow(r, (uint64_t)(nlive - 1)), i = 0;
        for (i = 1; i < MAX_ENTRIES; i++)
            if (stress_state.ent[i].live && --k == 0)
                break;
        struct entry *e = &stress_state.ent[i];
        set_what("team destroy of %s", e->desc);
        if (e->team != SYM_TEAM_INVALID) {
            CALL(sym_team_destroy(e->team));
            stress_state.count[CNT_TEAM_DESTROY]++;
            if (sym_team_n_pes(e->team) != -1)
                wrong("%s: a destroyed handle still reports %d PEs", e->desc,
                      sym_team_n_pes(e->team));
        }
        memset(e, 0, sizeof(*e));
        return;
    }
    /* parent: any live entry; a split of a set of teams splits each of them
     * with the same arguments (valid for the smallest), concurrently */
    int k0 = (int)rbelow(r, (uint64_t)nlive), pi = 0;
    for (pi = 0; pi < MAX_ENTRIES; pi++)
        if (stress_state.ent[pi].live && k0-- == 0)
            break;
    struct entry *par = &stress_state.ent[pi];
    int m = MAXPE;
    for (int g = 0; g < par->ngroups; g++)
        m = par->g[g].n < m ? par->g[g].n : m;
    char pdesc[sizeof(par->desc)];
    memcpy(pdesc, par->desc, sizeof(pdesc));
    int how = (int)rbelow(r, 3);
    struct entry *a = free_entry(NULL);
    memset(a, 0, sizeof(*a));
    a->live = true;
    if (how == 0) {
        int size = 1 + (int)rbelow(r, (uint64_t)m);
        int stride = size == 1 ? (int)rbelow(r, 5) - 2
                               : 1 + (int)rbelow(r, (uint64_t)((m - 1) / (size - 1)));
        int start;
        if (size > 1 && rchance(r, 40)) {
            stride = -stride;
            start = (size - 1) * -stride + (int)rbelow(r, (uint64_t)(m - (size - 1) * -stride));
        } else {
            int span = size > 1 ? (size - 1) * stride : 0;
            start = (int)rbelow(r, (uint64_t)(m - span));
        }
        a->ngroups = par->ngroups;
        for (int g = 0; g < par->ngroups; g++) {
            a->g[g].n = size;
            for (int i = 0; i < size; i++)
                a->g[g].pe[i] = par->g[g].pe[start + i * stride];
        }
        snprintf(a->desc, sizeof(a->desc), "split_strided(%.40s, %d, %d, %d)", pdesc, start, stride,
                 size);
        entry_locate(a);
        set_what("team %s", a->desc);
        if (par->my_group >= 0) {
            CALL(sym_team_split_strided(par->team, start, stride, size, &a->team));
            stress_state.count[CNT_SPLIT_STRIDED]++;
        }
    } else if (how == 1) {
        int x = 1 + (int)rbelow(r, (uint64_t)m);
        struct entry *b = free_entry(a);
        memset(b, 0, sizeof(*b));
        b->live = true;
        for (int g = 0; g < par->ngroups; g++) {
            const struct group *pg = &par->g[g];
            const int pm = pg->n, rows = (pm + x - 1) / x;
            for (int y = 0; y < rows; y++) {
                struct group *row = &a->g[a->ngroups++];
                for (int i = y * x; i < pm && i < (y + 1) * x; i++)
                    row->pe[row->n++] = pg->pe[i];
            }
            for (int c = 0; c < x; c++) {
                struct group *col = &b->g[b->ngroups++];
                for (int i = c; i < pm; i += x)
                    col->pe[col->n++] = pg->pe[i];
            }
        }
        snprintf(a->desc, sizeof(a->desc), "split_2d_ragged(%.40s, %d).x", pdesc, x);
        snprintf(b->desc, sizeof(b->desc), "split_2d_ragged(%.40s, %d).y", pdesc, x);
        entry_locate(a);
        entry_locate(b);
        set_what("team split_2d_ragged(%s, %d)", pdesc, x);
        if (par->my_group >= 0) {
            CALL(sym_team_split_2d_ragged(par->team, x, &a->team, &b->team));
            stress_state.count[CNT_SPLIT_2D]++;
        }
        check_handle(b);
    } else {
        int k = 1 + (int)rbelow(r, (uint64_t)m);
        int perm[MAXPE];
        for (int i = 0; i < m; i++)
            perm[i] = i;
        for (int i = m - 1; i > 0; i--) {
            int j = (int)rbelow(r, (uint64_t)i + 1), t = perm[i];
            perm[i] = perm[j];
            perm[j] = t;
        }
        a->ngroups = par->ngroups;
        for (int g = 0; g < par->ngroups; g++) {
            a->g[g].n = k;
            for (int i = 0; i < k; i++)
                a->g[g].pe[i] = par->g[g].pe[perm[i]];
        }
        int len = snprintf(a->desc, sizeof(a->desc), "create(");
        for (int i = 0; i < k && len < (int)sizeof(a->desc) - 8; i++)
            len += snprintf(a->desc + len, sizeof(a->desc) - (size_t)len, "%s%d", i ? "," : "",
                            perm[i]);
        snprintf(a->desc + len, sizeof(a->desc) - (size_t)len, ")");
        entry_locate(a);
        set_what("team %s of %s", a->desc, pdesc);
        if (par->my_group >= 0) {
            CALL(sym_team_create(par->team, perm, k, &a->team));
            stress_state.count[CNT_TEAM_CREATE]++;
        }
    }
    check_handle(a);
}
