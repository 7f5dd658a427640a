/*
 * team_check.c - the checks of team_check.h.
 */
#include <string.h>

#include "team_check.h"

void expect_team(sym_team_t t, const int *members, int size, const char *what)
{
    const int me = sym_my_pe(), npes = sym_n_pes();
    int mine = -1;
    for (int i = 0; i < size; i++)
        if (members[i] == me)
            mine = i;
    if (mine < 0) {
        PE_ASSERT(t == SYM_TEAM_INVALID, "%s: a non-member got a team handle", what);
        return;
    }
    PE_ASSERT(t != SYM_TEAM_INVALID, "%s: a member got SYM_TEAM_INVALID", what);
    PE_ASSERT(sym_team_n_pes(t) == size, "%s: %d PEs, expected %d", what, sym_team_n_pes(t), size);
    PE_ASSERT(sym_team_my_pe(t) == mine, "%s: member %d, expected %d", what, sym_team_my_pe(t),
              mine);
    const char *name = sym_team_name(t);
    PE_ASSERT(strcmp(name, "invalid") && strcmp(name, "world"), "%s: named \"%s\"", what, name);
    int got[MAXN];
    for (int i = 0; i < MAXN; i++)
        got[i] = -7;
    PE_OK(sym_team_members(t, got));
    for (int i = 0; i < size; i++)
        PE_ASSERT(got[i] == members[i], "%s: members()[%d] = %d, expected %d", what, i, got[i],
                  members[i]);
    PE_ASSERT(size == MAXN || got[size] == -7, "%s: members() wrote past the team size", what);
    for (int i = 0; i < size; i++) {
        PE_ASSERT(sym_team_local_to_global(t, i) == members[i], "%s: local_to_global(%d) = %d",
                  what, i, sym_team_local_to_global(t, i));
        PE_ASSERT(sym_team_translate_pe(t, i, sym_team_world()) == members[i],
                  "%s: translate(%d -> world) = %d", what, i,
                  sym_team_translate_pe(t, i, sym_team_world()));
    }
    for (int g = -1; g <= npes; g++) {
        int want = -1;
        for (int i = 0; i < size; i++)
            if (members[i] == g)
                want = i;
        PE_ASSERT(sym_team_global_to_local(t, g) == want,
                  "%s: global_to_local(%d) = %d, "
                  "expected %d",
                  what, g, sym_team_global_to_local(t, g), want);
        if (g >= 0 && g < npes)
            PE_ASSERT(sym_team_translate_pe(sym_team_world(), g, t) == want,
                      "%s: translate(world %d -> team) = %d", what, g,
                      sym_team_translate_pe(sym_team_world(), g, t));
    }
    PE_ASSERT(sym_team_local_to_global(t, -1) == -1 && sym_team_local_to_global(t, size) == -1,
              "%s: local_to_global out of range is not -1", what);
    PE_ASSERT(sym_team_translate_pe(t, size, sym_team_world()) == -1,
              "%s: translate of a member out of range is not -1", what);
}

/* The team really connects its members, in its own numbering: an
 * allreduce of the global numbers and a broadcast from the last member. */
void expect_team_works(sym_team_t t, const int *members, int size, const char *what)
{
    if (t == SYM_TEAM_INVALID)
        return;
    int64_t sum = 0, mine[2] = {sym_my_pe(), 1}, out[2];
    for (int i = 0; i < size; i++)
        sum += members[i];
    PE_OK(sym_allreduce(t, out, mine, 2, SYM_INT64, SYM_OP_SUM, NULL));
    PE_ASSERT(out[0] == sum && out[1] == size,
              "%s: allreduce gave %lld/%lld, expected "
              "%lld/%d",
              what, (long long)out[0], (long long)out[1], (long long)sum, size);
    int32_t b = sym_team_my_pe(t) == size - 1 ? 1000 + sym_my_pe() : -1;
    PE_OK(sym_broadcast(t, &b, 1, SYM_INT32, size - 1, NULL));
    PE_ASSERT(b == 1000 + members[size - 1], "%s: broadcast from the last member gave %d", what, b);
}
