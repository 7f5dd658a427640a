/*
 * test_config_query.c - sym_config_uint(): the values sym_init read from
 * the environment (sizes with suffixes, switches, counts) and the defaults
 * of unset variables, and the settings it cannot give; sym_set_error():
 * a message recorded by a layer above reaches sym_last_error(), bad
 * statuses are refused.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "harness.h"

static void values_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    uint64_t v = 7;
    PE_OK(sym_config_uint("SYMHEAP_STAGING_SIZE", &v));
    PE_ASSERT(v == 96 * 1024, "SYMHEAP_STAGING_SIZE=96K gives %llu", (unsigned long long)v);
    PE_OK(sym_config_uint("SYMHEAP_DEBUG", &v));
    PE_ASSERT(v == 1, "SYMHEAP_DEBUG=yes gives %llu", (unsigned long long)v);
    PE_OK(sym_config_uint("SYMHEAP_TEAM_AREA_SIZE", &v));
    PE_ASSERT(v == 32 * 1024, "SYMHEAP_TEAM_AREA_SIZE=32K gives %llu", (unsigned long long)v);
    PE_OK(sym_config_uint("SYMHEAP_CHUNK_SIZE", &v)); /* unset: its default */
    PE_ASSERT(v == 256 * 1024, "SYMHEAP_CHUNK_SIZE default gives %llu", (unsigned long long)v);
}

Test(config_query, values, .timeout = HARNESS_CR_TIMEOUT(120))
{
    static const char *const env[] = {"SYMHEAP_STAGING_SIZE=96K", "SYMHEAP_DEBUG=yes",
                                      "SYMHEAP_TEAM_AREA_SIZE=32K", NULL};
    run_pes_env(1, env, values_body, NULL);
}

static void refused_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    uint64_t v = 7;
    PE_FAILS_WITH(sym_config_uint("SYMHEAP_TIMEOUT", &v), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "seconds"), "%s", sym_last_error());
    PE_FAILS_WITH(sym_config_uint("SYMHEAP_TRANSPORT", &v), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_config_uint("SYMHEAP_ROOT_ADDR", &v), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_config_uint("SYMHEAP_NO_SUCH", &v), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "no setting is named \"SYMHEAP_NO_SUCH\""), "%s",
              sym_last_error());
    PE_FAILS_WITH(sym_config_uint("symheap_debug", &v), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_config_uint(NULL, &v), SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_config_uint("SYMHEAP_DEBUG", NULL), SYM_ERR_INVALID_ARG);
    PE_ASSERT(v == 7, "a failed query wrote its output");
}

Test(config_query, refused, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_pes(1, refused_body, NULL);
}

static void raw_body(int me, int npes, void *arg)
{
    (void)me, (void)npes, (void)arg;
    uint64_t v = 7;
    PE_FAILS_WITH(sym_config_uint("SYMHEAP_DEBUG", &v), SYM_ERR_NOT_INITIALIZED);
    /* sym_set_error needs no initialisation */
    PE_FAILS_WITH(sym_set_error(SYM_ERR_MISMATCH, "layer: call %d of %s", 3, "x"),
                  SYM_ERR_MISMATCH);
    PE_ASSERT(strcmp(sym_last_error(), "layer: call 3 of x") == 0, "%s", sym_last_error());
}

Test(config_query, not_initialized, .timeout = HARNESS_CR_TIMEOUT(120))
{
    struct pe_job job = {.npes = 1, .body = raw_body, .raw = true, .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

static void set_error_body(int me, int npes, void *arg)
{
    (void)npes, (void)arg;
    PE_FAILS_WITH(sym_set_error(SYM_ERR_TIMEOUT, "my_layer on PE %d: %s", me, "too slow"),
                  SYM_ERR_TIMEOUT);
    char want[64];
    snprintf(want, sizeof want, "my_layer on PE %d: too slow", me);
    PE_ASSERT(strcmp(sym_last_error(), want) == 0, "%s", sym_last_error());
    /* long messages are cut, not overflowed */
    char big[3000];
    memset(big, 'x', sizeof big - 1);
    big[sizeof big - 1] = 0;
    PE_FAILS_WITH(sym_set_error(SYM_ERR_INTERNAL, "%s", big), SYM_ERR_INTERNAL);
    PE_ASSERT(strlen(sym_last_error()) == 1023, "message of %zu bytes", strlen(sym_last_error()));
    PE_FAILS_WITH(sym_set_error(SYM_OK, "fine"), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "0 is not an error status"), "%s", sym_last_error());
    PE_FAILS_WITH(sym_set_error((sym_status_t)-99, "odd"), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "-99 is not an error status"), "%s", sym_last_error());
    PE_FAILS_WITH(sym_set_error(SYM_ERR_TIMEOUT, NULL), SYM_ERR_INVALID_ARG);
    PE_ASSERT(strstr(sym_last_error(), "format is NULL"), "%s", sym_last_error());
}

Test(config_query, set_error, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_pes(2, set_error_body, NULL);
}
