/* test_diverge_messages.c - timeouts that would never end are rejected
 * (SYMHEAP_TIMEOUT, SYMHEAP_INIT_TIMEOUT, per team, per call, per wait),
 * and error messages say what happened: after sym_finalize, short
 * timeouts, control characters from peers, the mailbox size asked for, a
 * broken world team, team member lists that differ. */
#include <criterion/criterion.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "harness.h"

static void expect_text(const char *what, const char *want)
{
    PE_ASSERT(strstr(sym_last_error(), want), "%s: '%s' not in '%s'", what, want, sym_last_error());
}

static void expect_no_text(const char *what, const char *unwanted)
{
    PE_ASSERT(!strstr(sym_last_error(), unwanted), "%s: '%s' in '%s'", what, unwanted,
              sym_last_error());
}

static int never_ready(void *arg)
{
    (void)arg;
    return 0;
}

/* ---- timeouts ------------------------------------------------------------- */

static void timeouts_api_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    sym_team_t w = sym_team_world();
    const double bad[] = {INFINITY, -INFINITY, NAN, 1e300, 1e26, 4294967296.0, SYM_TIMEOUT_MAX * 2};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        const double t = bad[i];
        const char *why = isfinite(t) ? "exceeds" : "not a finite number";
        PE_FAILS_WITH(sym_team_set_timeout(w, t), SYM_ERR_INVALID_ARG);
        expect_text("sym_team_set_timeout", why);
        const sym_coll_opts_t opts = {.timeout_s = t};
        uint64_t v = 1, r = 0;
        PE_FAILS_WITH(sym_allreduce(w, &r, &v, 1, SYM_UINT64, SYM_OP_SUM, &opts),
                      SYM_ERR_INVALID_ARG);
        expect_text("sym_allreduce timeout_s", why);
        PE_FAILS_WITH(sym_barrier(w, &opts), SYM_ERR_INVALID_ARG);
        expect_text("sym_barrier timeout_s", why);
        PE_FAILS_WITH(sym_wait_cond(NULL, never_ready, NULL, NULL, t), SYM_ERR_INVALID_ARG);
        expect_text("sym_wait_cond", why);
    }
    PE_FAILS_WITH(sym_team_set_timeout(w, NAN), SYM_ERR_INVALID_ARG);
    expect_no_text("a NaN timeout", "negative");
    PE_FAILS_WITH(sym_team_set_timeout(w, 0), SYM_ERR_INVALID_ARG);
    /* the longest allowed is allowed */
    PE_OK(sym_team_set_timeout(w, SYM_TIMEOUT_MAX));
    const sym_coll_opts_t longest = {.timeout_s = SYM_TIMEOUT_MAX};
    PE_OK(sym_barrier(w, &longest));
    PE_OK(sym_team_set_timeout(w, harness_seconds(60)));
}

Test(diverge_timeouts, api_rejects_non_finite_and_huge, .timeout = HARNESS_CR_TIMEOUT(60))
{
    for (int n = 1; n <= 2; n++)
        if (harness_pes_listed(n))
            run_pes(n, timeouts_api_body, NULL);
}

/* sym_config_load in this process, as sym_init runs it. */
static sym_status_t load_with(const char *name, const char *value, struct sym_config *c)
{
    setenv(name, value, 1);
    sym_status_t st = sym_config_load(c);
    unsetenv(name);
    return st;
}

Test(diverge_timeouts, env_rejects_non_finite_and_huge)
{
    static const char *const bad[] = {"1e26", "4294967296", "inf", "nan", "86401", "1e300", "-1"};
    struct sym_config c;
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        sym_status_t st = load_with("SYMHEAP_TIMEOUT", bad[i], &c);
        cr_expect(st == SYM_ERR_CONFIG, "SYMHEAP_TIMEOUT=%s: %s", bad[i], sym_status_name(st));
        cr_expect(strstr(sym_last_error(), "at most 86400"), "SYMHEAP_TIMEOUT=%s: %s", bad[i],
                  sym_last_error());
    }
    cr_expect(load_with("SYMHEAP_TIMEOUT", "86400", &c) == SYM_OK, "%s", sym_last_error());
    cr_expect(c.timeout == 86400, "%g", c.timeout);
    sym_status_t st = load_with("SYMHEAP_INIT_TIMEOUT", "4294967296", &c);
    cr_expect(st == SYM_ERR_CONFIG && strstr(sym_last_error(), "at most 86400"), "%s: %s",
              sym_status_name(st), sym_last_error());
    cr_expect(load_with("SYMHEAP_INIT_TIMEOUT", "86400", &c) == SYM_OK, "%s", sym_last_error());
}

/* ---- messages ------------------------------------------------------------- */

static void after_finalize_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    PE_FAILS_WITH(sym_barrier_all(), SYM_ERR_NOT_INITIALIZED);
    expect_text("before sym_init", "called before sym_init()");
    PE_OK(sym_init());
    PE_OK(sym_finalize());
    uint64_t w = 0;
    PE_FAILS_WITH(sym_barrier_all(), SYM_ERR_NOT_INITIALIZED);
    expect_text("sym_barrier_all after finalize", "called after sym_finalize()");
    PE_FAILS_WITH(sym_put(&w, &w, 8, 0), SYM_ERR_NOT_INITIALIZED);
    expect_text("sym_put after finalize", "called after sym_finalize()");
    PE_ASSERT(sym_malloc(64) == NULL, "sym_malloc after finalize returned memory");
    expect_text("sym_malloc after finalize", "called after sym_finalize()");
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_NOT_INITIALIZED);
    expect_no_text("sym_finalize after finalize", "before sym_init");
}

Test(diverge_messages, after_finalize, .timeout = HARNESS_CR_TIMEOUT(60))
{
    struct pe_job job = {.npes = 1, .body = after_finalize_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

static void short_timeout_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    PE_FAILS_WITH(sym_wait_cond("short wait", never_ready, NULL, NULL, 0.02), SYM_ERR_TIMEOUT);
    expect_text("a 20 ms timeout", "after 0.020 s");
}

Test(diverge_messages, short_timeout_digits, .timeout = HARNESS_CR_TIMEOUT(60))
{
    run_pes(1, short_timeout_body, NULL);
}

Test(diverge_messages, control_characters_replaced)
{
    pe_ignore(sym_set_error(SYM_ERR_BOOTSTRAP, "hello from \x1b[31mrank 9\x1b[0m\r\n\a\x7f!"));
    const char *e = sym_last_error();
    for (const char *c = e; *c; c++)
        cr_assert((unsigned char)*c >= 0x20 && *c != 0x7f, "control byte %#x in '%s'",
                  (unsigned char)*c, e);
    cr_expect(strstr(e, "?[31mrank 9?[0m") && strstr(e, "!"), "%s", e);
}

static void mailbox_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    PE_FAILS_WITH(sym_init(), SYM_ERR_NO_MEMORY);
    expect_text("SYMHEAP_MAILBOX_SIZE=2K", "SYMHEAP_MAILBOX_SIZE=2048");
    expect_text("SYMHEAP_MAILBOX_SIZE=2K", "4096-byte mailbox region");
    expect_no_text("SYMHEAP_MAILBOX_SIZE=2K", "a mailbox of 1024 bytes");
}

Test(diverge_messages, mailbox_size_asked, .timeout = HARNESS_CR_TIMEOUT(60))
{
    static const char *const env[] = {"SYMHEAP_MAILBOX_SIZE=2K", NULL};
    struct pe_job job = {.npes = 2, .body = mailbox_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* A mismatch breaks the world team; what follows says how to go on
 * (sym_team_recover: the world team cannot be destroyed). */
static void world_broken_body(int me, int npes, void *arg)
{
    (void)npes;
    (void)arg;
    PE_OK(sym_init());
    uint64_t v[2] = {1, 2}, r[2];
    sym_team_t w = sym_team_world();
    sym_status_t st = sym_allreduce(w, r, v, me == 0 ? 1 : 2, SYM_UINT64, SYM_OP_SUM, NULL);
    PE_ASSERT(st != SYM_OK, "a mismatched allreduce succeeded");
    PE_ASSERT(sym_allreduce(w, r, v, 1, SYM_UINT64, SYM_OP_SUM, NULL) != SYM_OK,
              "an allreduce on the broken world team succeeded");
    expect_text("the broken world team", "broken");
    expect_no_text("the broken world team", "destroy it");
    expect_text("the broken world team", "sym_team_recover()");
    pe_ignore(sym_finalize());
}

Test(diverge_messages, world_team_broken, .timeout = HARNESS_CR_TIMEOUT(60))
{
    char timeout[64];
    snprintf(timeout, sizeof(timeout), "SYMHEAP_TIMEOUT=%g", harness_seconds(5));
    const char *const env[] = {timeout, NULL};
    struct pe_job job = {.npes = 2, .body = world_broken_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* Different member lists: the mismatch names both PEs' lists, not a hash
 * as a count. */
static void team_create_body(int me, int npes, void *arg)
{
    (void)npes;
    (void)arg;
    PE_OK(sym_init());
    static const int one[] = {0}, two[] = {0, 1};
    sym_team_t t = SYM_TEAM_INVALID;
    sym_status_t st = sym_team_create(sym_team_world(), me == 0 ? one : two, me == 0 ? 1 : 2, &t);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "sym_team_create with different lists: %s: %s",
              sym_status_name(st), sym_last_error());
    expect_text("sym_team_create", me == 0 ? "this PE (PE 0) passed 1 members {0}"
                                           : "this PE (PE 1) passed 2 members {0, 1}");
    expect_text("sym_team_create",
                me == 0 ? "PE 1 passed 2 members {0, 1}" : "PE 0 passed 1 members {0}");
    expect_no_text("sym_team_create", "count ");
    pe_ignore(sym_finalize());
}

Test(diverge_messages, team_create_mismatch, .timeout = HARNESS_CR_TIMEOUT(60))
{
    char timeout[64];
    snprintf(timeout, sizeof(timeout), "SYMHEAP_TIMEOUT=%g", harness_seconds(5));
    const char *const env[] = {timeout, NULL};
    struct pe_job job = {.npes = 2, .body = team_create_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
