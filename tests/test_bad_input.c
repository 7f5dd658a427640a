/*
 * test_bad_input.c - one table of bad inputs over every public function of
 * symheap.h, run on real PEs.
 *
 * Each row is one call with one bad argument (NULL pointers, misalignment,
 * sizes overflowing the heap or size_t, PEs out of range, invalid or
 * destroyed teams, out-of-range enum values, bad strides, roots outside the
 * team, forbidden overlaps, bad requests).  For each row, on every PE:
 *   - the call returns the documented status (or the documented failure
 *     value of a pointer/int query) and, where the API promises one, a
 *     message naming the function;
 *   - nothing outside the library is written: guard bytes around every
 *     local and symmetric buffer the calls can reach stay intact, on this
 *     PE and on its peers (checked after a barrier);
 *   - the job carries on: a valid call of the same family right after it
 *     works and gives the right data.
 * Every PE runs the same rows in the same order, so collective rows are
 * rejected alike everywhere (argument errors never reach the wire).
 *
 * Functions without arguments that could be bad (sym_finalize,
 * sym_initialized, sym_my_pe, sym_n_pes, sym_last_error, sym_team_world,
 * sym_quiet, sym_fence, sym_barrier_all, sym_sync_all) can only be called
 * at the wrong time: test_errors.c calls them before sym_init and after
 * sym_finalize.  sym_global_exit accepts any status (test_faults.c).
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <string.h>

#include "bad_input.h"
#include "core/internal.h"

#define GUARD         0x5A
#define TEAM_SENTINEL ((sym_team_t)(uintptr_t)0x7e57)
#define REQ_SENTINEL  ((sym_request_t)(uintptr_t)0x7e58)

/* The rows, in the order every PE runs them. */
static const struct bad_table *const tables[] = {&bad_rows_one_sided, &bad_rows_teams_coll};

static size_t n_rows(void)
{
    size_t n = 0;
    for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
        n += tables[t]->n;
    return n;
}

static const struct bad_row *row_at(size_t i)
{
    size_t t = 0;
    while (i >= tables[t]->n)
        i -= tables[t++]->n;
    return &tables[t]->rows[i];
}

struct valid_state {
    uint64_t *ok; /* symmetric scratch for the valid calls: 64 words */
    uint64_t round;
};

static void check_guards(const struct ctx *c, const struct bad_row *r, size_t i)
{
    for (size_t k = 0; k < 3 * PAGE; k++) {
        if (c->sym[k] != GUARD)
            pe_fail(__FILE__, __LINE__, r->fn,
                    "row %zu (%s: %s) wrote symmetric byte %zu "
                    "(0x%02x)",
                    i, r->fn, r->what, k, c->sym[k]);
        if (c->loc[k] != GUARD)
            pe_fail(__FILE__, __LINE__, r->fn, "row %zu (%s: %s) wrote local byte %zu (0x%02x)", i,
                    r->fn, r->what, k, c->loc[k]);
    }
    for (size_t k = 0; k < 64; k++)
        if (c->heap_end[-1 - (ptrdiff_t)k] != GUARD)
            pe_fail(__FILE__, __LINE__, r->fn, "row %zu (%s: %s) wrote the heap's last bytes", i,
                    r->fn, r->what);
}

/* A valid call of the row's family, with checked data. */
static void valid_call(struct ctx *c, struct valid_state *v, enum family fam)
{
    const int me = c->me, n = c->npes, right = c->right, left = (me + n - 1) % n;
    const uint64_t round = ++v->round;
    switch (fam) {
    case F_NONE:
        return;
    case F_RMA: {
        uint64_t mine[4], got[4];
        for (int i = 0; i < 4; i++)
            mine[i] = round << 32 | (uint64_t)me << 8 | (uint64_t)i;
        PE_OK(sym_put(v->ok, mine, sizeof(mine), right));
        PE_OK(sym_barrier_all());
        for (int i = 0; i < 4; i++)
            PE_ASSERT(v->ok[i] == (round << 32 | (uint64_t)left << 8 | (uint64_t)i),
                      "valid put after a bad call: word %d wrong", i);
        PE_OK(sym_get(got, v->ok, sizeof(got), right));
        for (int i = 0; i < 4; i++)
            PE_ASSERT(got[i] == (round << 32 | (uint64_t)me << 8 | (uint64_t)i),
                      "valid get after a bad call: word %d wrong", i);
        break;
    }
    case F_AMO: {
        uint64_t old = 0;
        PE_OK(sym_atomic_fetch_add64(&v->ok[8], 1, &old, right));
        PE_OK(sym_barrier_all());
        uint64_t now;
        PE_OK(sym_atomic_fetch64(&now, &v->ok[8], me));
        PE_ASSERT(now == v->ok[9] + 1, "valid atomic after a bad call: %llu, expected %llu",
                  (unsigned long long)now, (unsigned long long)(v->ok[9] + 1));
        v->ok[9] = now;
        break;
    }
    case F_WAIT:
        PE_OK(sym_p64(&v->ok[16], round, right));
        PE_OK(sym_wait_until_uint64(&v->ok[16], SYM_CMP_GE, round));
        break;
    case F_MEM: {
        uint8_t *p = sym_calloc(1, 200);
        PE_ASSERT(p, "valid sym_calloc after a bad call: %s", sym_last_error());
        for (int i = 0; i < 200; i++)
            PE_ASSERT(p[i] == 0, "sym_calloc memory not zero");
        sym_free(p);
        break;
    }
    case F_TEAM: {
        sym_team_t t = SYM_TEAM_INVALID;
        PE_OK(sym_team_split_strided(c->world, 0, 1, n, &t));
        PE_ASSERT(sym_team_n_pes(t) == n && sym_team_my_pe(t) == me, "split team wrong");
        PE_OK(sym_team_destroy(t));
        break;
    }
    case F_COLL:
    case F_NB: {
        int64_t in[3] = {me + 1, (int64_t)round, -me}, out[3];
        if (fam == F_COLL) {
            PE_OK(sym_allreduce(c->world, out, in, 3, SYM_INT64, SYM_OP_SUM, NULL));
        } else {
            sym_request_t req;
            PE_OK(sym_iallreduce(c->world, out, in, 3, SYM_INT64, SYM_OP_SUM, NULL, &req));
            PE_OK(sym_wait(&req));
        }
        PE_ASSERT(out[0] == (int64_t)n * (n + 1) / 2 && out[1] == (int64_t)round * n &&
                      out[2] == -(int64_t)n * (n - 1) / 2,
                  "valid allreduce after a bad call wrong");
        break;
    }
    case F_P2P: {
        uint64_t s = round << 16 | (uint64_t)me, r = 0;
        size_t got = 0;
        PE_OK(sym_sendrecv(&s, sizeof(s), right, 3, &r, sizeof(r), left, 3, &got));
        PE_ASSERT(got == sizeof(r) && r == (round << 16 | (uint64_t)left),
                  "valid sendrecv after a bad call wrong");
        break;
    }
    }
}

static bool message_names(const char *msg, const char *fn)
{
    if (strstr(msg, fn))
        return true;
    /* a non-blocking call's argument error is the collective's own */
    if (!strncmp(fn, "sym_i", 5)) {
        char base[64];
        snprintf(base, sizeof(base), "sym_%s", fn + 5);
        return strstr(msg, base) != NULL;
    }
    return false;
}

static void bad_input_body(int me, int npes, void *arg)
{
    (void)arg;
    struct ctx c = {.me = me, .npes = npes, .right = (me + 1) % npes};
    c.sym = sym_malloc(3 * PAGE);
    struct valid_state v = {.ok = sym_calloc(64, sizeof(uint64_t))};
    PE_ASSERT(c.sym && v.ok, "sym_malloc: %s", sym_last_error());
    c.tgt = c.sym + PAGE;
    c.loc = malloc(3 * PAGE);
    PE_ASSERT(c.loc, "malloc");
    c.ltgt = c.loc + PAGE;
    memset(c.sym, GUARD, 3 * PAGE);
    memset(c.loc, GUARD, 3 * PAGE);
    c.heap_end = sym_core_base() + sym_core_layout()->user_off + sym_core_layout()->user_size;
    memset(c.heap_end - 64, GUARD, 64); /* free heap space: nobody else writes there */
    c.world = sym_team_world();
    PE_OK(sym_team_split_strided(c.world, 0, 1, npes, &c.dead));
    PE_OK(sym_team_destroy(c.dead));
    for (int i = 0; i < npes; i++) {
        c.counts[i] = 4;
        c.huge_counts[i] = SIZE_MAX / 2;
    }
    c.members_dup[0] = c.members_dup[1] = 0;
    c.members_out[0] = 0;
    c.members_out[1] = npes;
    PE_OK(sym_barrier_all());

    const size_t nrows = n_rows();
    for (size_t i = 0; i < nrows; i++) {
        const struct bad_row *r = row_at(i);
        sym_error(SYM_ERR_INTERNAL, "(no message recorded)");
        c.tout[0] = c.tout[1] = TEAM_SENTINEL;
        c.req = REQ_SENTINEL;
        sym_status_t st = r->call(&c);
        PE_ASSERT(c.req == REQ_SENTINEL || c.req == SYM_REQUEST_NULL,
                  "row %zu (%s: %s) left %p as the request", i, r->fn, r->what, (void *)c.req);
        for (int k = 0; k < 2; k++)
            PE_ASSERT(c.tout[k] == TEAM_SENTINEL || c.tout[k] == SYM_TEAM_INVALID,
                      "row %zu (%s: %s) left %p in a team output", i, r->fn, r->what,
                      (void *)c.tout[k]);
        const char *msg = sym_last_error();
        if (st != r->expect)
            pe_fail(__FILE__, __LINE__, r->fn, "row %zu (%s: %s) returned %s, expected %s (%s)", i,
                    r->fn, r->what,
                    st == FAILED_VALUE      ? "its failure value"
                    : st == SUCCEEDED_VALUE ? "a success value"
                                            : sym_status_name(st),
                    r->expect == FAILED_VALUE ? "its failure value" : sym_status_name(r->expect),
                    msg);
        if (r->msg && r->expect != SYM_OK && !message_names(msg, r->fn))
            pe_fail(__FILE__, __LINE__, r->fn, "row %zu (%s: %s): message '%s' does not name it", i,
                    r->fn, r->what, msg);
        PE_OK(sym_barrier_all()); /* peers' rows done: their writes, if any, landed */
        check_guards(&c, r, i);
        valid_call(&c, &v, r->fam);
    }
    PE_OK(sym_barrier_all());
    check_guards(&c, row_at(0), nrows);
    if (me == 0)
        fprintf(stderr, "bad input: %zu rows over the public API, each on %d PEs\n", nrows, npes);
    free(c.loc);
    sym_free(v.ok);
    sym_free(c.sym);
}

ParameterizedTestParameters(bad_input, every_function)
{
    static int counts[] = {2, 3};
    return cr_make_param_array(int, counts, 2);
}

ParameterizedTest(int *npes, bad_input, every_function)
{
    static const char *const env[] = {"SYMHEAP_TIMEOUT=10", NULL};
    run_pes_env(*npes, env, bad_input_body, NULL);
}
