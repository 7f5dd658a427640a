/*
 * test_sym_offset.c - sym_addr_to_offset() / sym_offset_to_addr(): the same
 * object has the same offset on every PE (heap objects and global
 * variables), offsets come back as this PE's addresses, a peer's object is
 * read through the address of the offset it published; addresses and
 * offsets outside the symmetric regions, ranges running past them, NULL
 * outputs and calls before sym_init fail clearly.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "harness.h"

static uint64_t gvar[32]; /* a symmetric global variable */

static void same_everywhere(const char *what, uint64_t off, int npes)
{
    uint64_t all[HARNESS_MAX_PES];
    PE_OK(sym_all_gather(sym_team_world(), all, &off, 1, SYM_UINT64, NULL));
    for (int pe = 0; pe < npes; pe++)
        PE_ASSERT(all[pe] == off, "%s: offset %llu on PE %d, %llu here", what,
                  (unsigned long long)all[pe], pe, (unsigned long long)off);
}

static void round_trip_body(int me, int npes, void *arg)
{
    (void)arg;
    uint64_t *a = sym_malloc(4096), *b = sym_malloc(64);
    PE_ASSERT(a && b, "sym_malloc: %s", sym_last_error());
    uint64_t off_a = 0, off_b = 0, off_g = 0, off_a7 = 0;
    PE_OK(sym_addr_to_offset(a, 4096, &off_a));
    PE_OK(sym_addr_to_offset(b, 64, &off_b));
    PE_OK(sym_addr_to_offset(&a[7], 8, &off_a7));
    PE_OK(sym_addr_to_offset(gvar, sizeof gvar, &off_g));
    PE_ASSERT(off_a7 == off_a + 56, "inner offset %llu, object at %llu", (unsigned long long)off_a7,
              (unsigned long long)off_a);
    PE_ASSERT(off_a != off_b && off_g != off_a, "distinct objects share an offset");
    same_everywhere("heap object", off_a, npes);
    same_everywhere("global variable", off_g, npes);
    void *p = NULL;
    PE_OK(sym_offset_to_addr(off_a, 4096, &p));
    PE_ASSERT(p == a, "offset of a comes back as %p, not %p", p, (void *)a);
    PE_OK(sym_offset_to_addr(off_a7, 8, &p));
    PE_ASSERT(p == &a[7], "inner offset comes back as %p, not %p", p, (void *)&a[7]);
    PE_OK(sym_offset_to_addr(off_g, sizeof gvar, &p));
    PE_ASSERT(p == gvar, "offset of gvar comes back as %p, not %p", p, (void *)gvar);

    /* Each PE publishes the offset of its own choice of object (a or the
     * global), the next PE reads it through the address of that offset. */
    for (int i = 0; i < 32; i++) {
        a[i] = (uint64_t)me * 1000 + (uint64_t)i;
        gvar[i] = (uint64_t)me * 1000 + 500 + (uint64_t)i;
    }
    uint64_t pub = me % 2 ? off_g : off_a, offs[HARNESS_MAX_PES];
    PE_OK(sym_all_gather(sym_team_world(), offs, &pub, 1, SYM_UINT64, NULL));
    int from = (me + 1) % npes;
    uint64_t got[32];
    PE_OK(sym_offset_to_addr(offs[from], sizeof got, &p));
    PE_OK(sym_get(got, p, sizeof got, from));
    for (int i = 0; i < 32; i++) {
        uint64_t want = (uint64_t)from * 1000 + (from % 2 ? 500u : 0u) + (uint64_t)i;
        PE_ASSERT(got[i] == want, "word %d of PE %d: %llu, expected %llu", i, from,
                  (unsigned long long)got[i], (unsigned long long)want);
    }
    PE_OK(sym_barrier_all());
    sym_free(b);
    sym_free(a);
}

Test(sym_offset, round_trip, .timeout = HARNESS_CR_TIMEOUT(300))
{
    for (int n = 1; n <= 4; n++)
        if (harness_pes_listed(n))
            run_pes(n, round_trip_body, NULL);
}

static void bad_args_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    uint64_t *a = sym_malloc(128);
    PE_ASSERT(a, "sym_malloc: %s", sym_last_error());
    uint64_t off = 12345, stack[4];
    void *p = &off;
    PE_FAILS_WITH(sym_addr_to_offset(stack, sizeof stack, &off), SYM_ERR_NOT_SYMMETRIC);
    PE_FAILS_WITH(sym_addr_to_offset(NULL, 8, &off), SYM_ERR_NOT_SYMMETRIC);
    PE_ASSERT(off == 12345, "a failed call wrote its output");
    PE_FAILS_WITH(sym_addr_to_offset(a, 8, NULL), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "off_p is NULL"), "%s", sym_last_error());
    /* a range running past the end of the user heap */
    PE_FAILS_WITH(sym_addr_to_offset(a, (size_t)1 << 60, &off), SYM_ERR_NOT_SYMMETRIC);

    PE_OK(sym_addr_to_offset(a, 128, &off));
    PE_FAILS_WITH(sym_offset_to_addr(off, 8, NULL), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_offset_to_addr(0, 8, &p), SYM_ERR_NOT_SYMMETRIC); /* control block */
    PE_ASSERT(strstr(sym_last_error(), "outside the user heap"), "%s", sym_last_error());
    PE_FAILS_WITH(sym_offset_to_addr(UINT64_MAX, 1, &p), SYM_ERR_NOT_SYMMETRIC);
    PE_FAILS_WITH(sym_offset_to_addr(off, (size_t)1 << 60, &p), SYM_ERR_NOT_SYMMETRIC);
    uint64_t goff = 0;
    PE_OK(sym_addr_to_offset(gvar, sizeof gvar, &goff));
    PE_FAILS_WITH(sym_offset_to_addr(goff, (size_t)1 << 60, &p), SYM_ERR_NOT_SYMMETRIC);
    PE_ASSERT(p == &off, "a failed call wrote its output");
    sym_free(a);
}

Test(sym_offset, bad_arguments, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_pes(1, bad_args_body, NULL);
}

static void not_initialized_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    uint64_t off;
    void *p;
    PE_FAILS_WITH(sym_addr_to_offset(gvar, 8, &off), SYM_ERR_NOT_INITIALIZED);
    PE_FAILS_WITH(sym_offset_to_addr(4096, 8, &p), SYM_ERR_NOT_INITIALIZED);
}

Test(sym_offset, not_initialized, .timeout = HARNESS_CR_TIMEOUT(120))
{
    struct pe_job job = {.npes = 1, .body = not_initialized_body, .raw = true, .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
