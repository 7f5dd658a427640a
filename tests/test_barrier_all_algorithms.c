/* test_barrier_all_algorithms.c - SYMHEAP_BARRIER_ALGORITHM chooses the
 * world barrier's algorithm too (naive: the central counter, rd:
 * dissemination; tree, which it lacks, leaves it automatic): each, at job
 * sizes where the automatic choice would be the other one, keeps every PE
 * in until all arrived, through sym_barrier_all, sym_sync_all and the
 * barriers of sym_malloc and sym_free, which share its epoch. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <stdlib.h>

#include "harness.h"

struct algo_param {
    char algo[8];
    int npes;
};

static int rounds(void)
{
    return getenv("SYMHEAP_TEST_QUICK") ? 60 : 240;
}

/* Round r: every PE adds 1 to round r's counter on PE 0, then passes one of
 * the world barriers; leaving it requires all n increments.  Every 20th
 * round a collective allocation and free run their own world barriers. */
static void body(int me, int n, void *arg)
{
    const struct algo_param *p = arg;
    const int nrounds = rounds();
    uint64_t *per_round = sym_calloc((size_t)nrounds + 1, sizeof(uint64_t));
    PE_ASSERT(per_round, "sym_calloc: %s", sym_last_error());
    for (int r = 1; r <= nrounds; r++) {
        PE_OK(sym_atomic_add64(&per_round[r], 1, 0));
        if (r % 2)
            PE_OK(sym_barrier_all());
        else
            PE_OK(sym_sync_all());
        uint64_t c;
        PE_OK(sym_atomic_fetch64(&c, &per_round[r], 0));
        PE_ASSERT(c == (uint64_t)n, "%s, round %d: left the barrier with %llu of %d PEs arrived",
                  p->algo, r, (unsigned long long)c, n);
        if (r % 20 == 0) {
            void *x = sym_malloc(64);
            PE_ASSERT(x, "sym_malloc: %s", sym_last_error());
            sym_free(x);
        }
    }
    (void)me;
    PE_OK(sym_barrier_all());
    sym_free(per_round);
}

static struct algo_param params[15];

ParameterizedTestParameters(barrier_all_algorithms, forced)
{
    static const char *const algos[] = {"naive", "rd", "tree"};
    static const int sizes[] = {1, 2, 3, 4, 8};
    size_t k = 0;
    for (size_t a = 0; a < 3; a++)
        for (size_t s = 0; s < 5; s++) {
            snprintf(params[k].algo, sizeof(params[k].algo), "%s", algos[a]);
            params[k++].npes = sizes[s];
        }
    return cr_make_param_array(struct algo_param, params, k);
}

ParameterizedTest(struct algo_param *p, barrier_all_algorithms, forced)
{
    char var[64];
    snprintf(var, sizeof(var), "SYMHEAP_BARRIER_ALGORITHM=%s", p->algo);
    const char *const env[] = {var, NULL};
    run_pes_env(p->npes, env, body, p);
}
