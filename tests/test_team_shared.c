/*
 * test_team_shared.c - sym_team_split_shared(): on one host over shared
 * memory the group is the whole parent (world, a reversed strided team),
 * numbered as the parent, its members reachable by sym_ptr and connected
 * (a reduction over the team); with SYMHEAP_TRANSPORT=ofi no heap is
 * mapped, so each PE is a team of its own; bad arguments.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "harness.h"

/* The split of `parent` must have the members `want` (global numbers, n of
 * them), in that order; sym_ptr reaches exactly them; a sum of the global
 * numbers over the new team gives theirs. */
static void check_split(sym_team_t parent, const int *want, int n, uint64_t *obj)
{
    const int me = sym_my_pe();
    sym_team_t t = (sym_team_t)&t; /* must be overwritten */
    PE_OK(sym_team_split_shared(parent, &t));
    PE_ASSERT(t != SYM_TEAM_INVALID, "a member got no team");
    PE_ASSERT(sym_team_n_pes(t) == n, "%d members, expected %d", sym_team_n_pes(t), n);
    int got[HARNESS_MAX_PES];
    PE_OK(sym_team_members(t, got));
    uint64_t sum_want = 0;
    for (int i = 0; i < n; i++) {
        PE_ASSERT(got[i] == want[i], "member %d is PE %d, expected %d", i, got[i], want[i]);
        if (want[i] == me)
            PE_ASSERT(sym_team_my_pe(t) == i, "my number %d, expected %d", sym_team_my_pe(t), i);
        PE_ASSERT(sym_ptr(obj, want[i]) != NULL, "no pointer to member PE %d", want[i]);
        sum_want += (uint64_t)want[i] + 1;
    }
    for (int pe = 0; pe < sym_n_pes(); pe++) {
        bool member = false;
        for (int i = 0; i < n; i++)
            member |= want[i] == pe;
        if (!member)
            PE_ASSERT(sym_ptr(obj, pe) == NULL, "PE %d is no member, yet mapped", pe);
    }
    uint64_t mine = (uint64_t)me + 1, sum = 0;
    PE_OK(sym_allreduce(t, &sum, &mine, 1, SYM_UINT64, SYM_OP_SUM, NULL));
    PE_ASSERT(sum == sum_want, "sum over the team %llu, expected %llu", (unsigned long long)sum,
              (unsigned long long)sum_want);
    PE_OK(sym_team_destroy(t));
}

static void one_host_body(int me, int npes, void *arg)
{
    (void)arg;
    uint64_t *obj = sym_malloc(64);
    PE_ASSERT(obj, "sym_malloc: %s", sym_last_error());
    int want[HARNESS_MAX_PES] = {0};
    for (int i = 0; i < npes; i++)
        want[i] = i;
    check_split(sym_team_world(), want, npes, obj);
    /* a reversed strided parent: the new team keeps the parent's order */
    sym_team_t rev = SYM_TEAM_INVALID;
    PE_OK(sym_team_split_strided(sym_team_world(), npes - 1, -1, npes, &rev));
    for (int i = 0; i < npes; i++)
        want[i] = npes - 1 - i;
    check_split(rev, want, npes, obj);
    PE_OK(sym_team_destroy(rev));
    (void)me;
    sym_free(obj);
}

Test(team_shared, one_host, .timeout = HARNESS_CR_TIMEOUT(300))
{
    for (int n = 1; n <= 4; n++)
        if (harness_pes_listed(n))
            run_pes(n, one_host_body, NULL);
}

#ifdef SYM_HAVE_OFI
static void ofi_body(int me, int npes, void *arg)
{
    (void)npes, (void)arg;
    uint64_t *obj = sym_malloc(64);
    PE_ASSERT(obj, "sym_malloc: %s", sym_last_error());
    int want[1] = {me};
    check_split(sym_team_world(), want, 1, obj);
    sym_free(obj);
}

Test(team_shared, ofi_each_alone, .timeout = HARNESS_CR_TIMEOUT(300))
{
    static const char *const env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
                                      NULL};
    for (int n = 2; n <= 3; n++)
        if (harness_pes_listed(n))
            run_pes_env(n, env, ofi_body, NULL);
}
#endif

static void bad_args_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    PE_FAILS_WITH(sym_team_split_shared(sym_team_world(), NULL), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "new_team_p is NULL"), "%s", sym_last_error());
    sym_team_t t = (sym_team_t)&t;
    PE_FAILS_WITH(sym_team_split_shared(SYM_TEAM_INVALID, &t), SYM_ERR_INVALID_ARG);
    PE_ASSERT(t == SYM_TEAM_INVALID, "a failed split left a handle behind");
    t = (sym_team_t)&t;
    PE_FAILS_WITH(sym_team_split_shared((sym_team_t)&me, &t), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "is not a team handle"), "%s", sym_last_error());
    PE_ASSERT(t == SYM_TEAM_INVALID, "a failed split left a handle behind");
}

Test(team_shared, bad_arguments, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_pes(1, bad_args_body, NULL);
}

static void not_initialized_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    sym_team_t t = (sym_team_t)&t;
    PE_FAILS_WITH(sym_team_split_shared(sym_team_world(), &t), SYM_ERR_NOT_INITIALIZED);
    PE_ASSERT(t == SYM_TEAM_INVALID, "a failed split left a handle behind");
}

Test(team_shared, not_initialized, .timeout = HARNESS_CR_TIMEOUT(120))
{
    struct pe_job job = {.npes = 1, .body = not_initialized_body, .raw = true, .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
