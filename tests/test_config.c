/* test_config.c - the SYMHEAP_* environment: the size parser, sym_init's
 * handling of malformed and valid values (each in a PE of its own, so the
 * environment is set only there), retry after a failed init, and choices
 * loaded as enums (symheap-info: test_config_info.c). */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config_cases.h"
#include "core/internal.h"
#include "harness.h"
#include "shm/shm_settings.h"

#define MiB ((size_t)1 << 20)

/* ---- sym_config_parse_size ------------------------------------------------ */

Test(config, parse_size_valid)
{
    static const struct {
        const char *text;
        size_t bytes;
    } ok[] = {
        {"0", 0},
        {"4096", 4096},
        {"64K", 65536},
        {"64k", 65536},
        {"1M", MiB},
        {"2G", (size_t)2 << 30},
        {"1T", (size_t)1 << 40},
        {"1.5K", 1536},
        {"64KB", 65536},
        {"64KiB", 65536},
        {" 8M ", 8 * MiB},
        {"1.5M", 3 * MiB / 2},
        {"16383T", (size_t)16383 << 40},
    };
    for (size_t i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
        size_t v = 12345;
        int rc = sym_config_parse_size(ok[i].text, &v);
        cr_expect(rc == 0, "'%s' rejected", ok[i].text);
        cr_expect(rc != 0 || v == ok[i].bytes, "'%s' parsed as %zu, expected %zu", ok[i].text, v,
                  ok[i].bytes);
    }
}

Test(config, parse_size_invalid)
{
    static const char *const bad[] = {
        "",    "abc", "-1",  "12Q", "1.3", "K", "99999999999999999999T", "16777216T", "64KBB",
        "nan", "inf", "1iB", "   ", "1M2", "+",
    };
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        size_t v = 12345;
        int rc = sym_config_parse_size(bad[i], &v);
        cr_expect(rc == -1, "'%s' accepted as %zu", bad[i], v);
        cr_expect(v == 12345, "'%s' rejected but the output was changed to %zu", bad[i], v);
    }
    size_t v = 1;
    cr_expect(sym_config_parse_size(NULL, &v) == -1, "NULL accepted");
}

/* ---- malformed values make sym_init fail --------------------------------- */

/* The launcher's own variables: the launcher sets them last, over a job's
 * environment, so their malformed values are tried inside a PE
 * (launcher_env_malformed below). */
static const struct env_case bad_launcher_env[] = {
    {"SYMHEAP_SYMRUN_FD", "three", SYM_ERR_CONFIG, NULL},
    {"SYMHEAP_SYMRUN_PE", "-1", SYM_ERR_CONFIG, NULL},
    {"SYMHEAP_SYMRUN_NPES", "4x", SYM_ERR_CONFIG, NULL},
};
#define NBAD_LAUNCHER (sizeof(bad_launcher_env) / sizeof(bad_launcher_env[0]))

/* A variable added to the table must get a malformed case here too. */
Test(config, every_variable_has_a_malformed_case)
{
    for (size_t v = 0; v < NVARS; v++) {
        bool found = false;
        for (size_t i = 0; i < NBAD_LAUNCHER; i++)
            found |= !strcmp(bad_launcher_env[i].var, table_names[v]);
        for (size_t i = 0; i < NBAD; i++)
            found |= !strcmp(bad_env[i].var, table_names[v]) && bad_env[i].expect == SYM_ERR_CONFIG;
        cr_expect(found, "%s has no malformed-value case", table_names[v]);
    }
}

/* Raw PE: the environment holds the bad value; init must fail cleanly,
 * keep failing while the value is bad, and succeed once it is fixed. */
static void bad_env_body(int me, int npes, void *arg)
{
    const struct env_case *c = arg;
    (void)me;
    (void)npes;
    const char *now = getenv(c->var);
    PE_ASSERT(now && !strcmp(now, c->value), "%s is '%s' in the PE, expected '%s'", c->var,
              now ? now : "(unset)", c->value);
    for (int attempt = 0; attempt < 2; attempt++) {
        sym_status_t st = sym_init();
        PE_ASSERT(st == c->expect,
                  "sym_init with %s='%s' (attempt %d) returned %s (%s), "
                  "expected %s",
                  c->var, c->value, attempt, sym_status_name(st), sym_last_error(),
                  sym_status_name(c->expect));
        const char *msg = sym_last_error();
        bool secret = !strcmp(c->var, "SYMHEAP_JOB_SECRET");
        PE_ASSERT(strstr(msg, c->var) && (strstr(msg, c->value) != NULL) != secret,
                  "message '%s' does not name %s, or %s '%s'", msg, c->var,
                  secret ? "shows the secret" : "its value", c->value);
        PE_ASSERT(!sym_initialized() && sym_my_pe() == -1 && sym_n_pes() == -1,
                  "the library looks initialised after a failed sym_init");
        PE_ASSERT(sym_malloc(64) == NULL, "sym_malloc works after a failed sym_init");
    }
    /* retry in the same process */
    PE_ASSERT(setenv(c->var, c->good, 1) == 0, "setenv");
    PE_OK(sym_init());
    PE_ASSERT(sym_initialized() && sym_my_pe() == 0 && sym_n_pes() == 1,
              "after the retry: initialized %d, PE %d of %d", sym_initialized(), sym_my_pe(),
              sym_n_pes());
    uint64_t *w = sym_malloc(sizeof(*w));
    PE_ASSERT(w, "sym_malloc after the retry: %s", sym_last_error());
    uint64_t v = 0x1234567890abcdefull, back = 0;
    PE_OK(sym_put(w, &v, sizeof(v), 0));
    PE_OK(sym_get(&back, w, sizeof(back), 0));
    PE_ASSERT(back == v, "put/get after the retry: 0x%llx", (unsigned long long)back);
    sym_free(w);
    PE_OK(sym_finalize());

    /* unsetting the variable gives the default, which must work too
     * (except for the heap size, whose 256M default is too costly here) */
    if (strcmp(c->var, "SYMHEAP_HEAP_SIZE") != 0) {
        PE_ASSERT(unsetenv(c->var) == 0, "unsetenv");
        PE_OK(sym_init());
        PE_OK(sym_finalize());
    }
}

ParameterizedTestParameters(config, malformed_env_fails_init)
{
    static int idx[128];
    const size_t n = NBAD < 128 ? NBAD : 128;
    for (size_t i = 0; i < n; i++)
        idx[i] = (int)i;
    return cr_make_param_array(int, idx, n);
}

ParameterizedTest(int *i, config, malformed_env_fails_init)
{
    const struct env_case *c = &bad_env[*i];
    static const char *const tcp_launcher_vars[] = {"SYMHEAP_BOOTSTRAP", "SYMHEAP_RANK",
                                                    "SYMHEAP_SIZE", "SYMHEAP_ROOT_ADDR"};
    for (size_t k = 0; k < sizeof(tcp_launcher_vars) / sizeof(tcp_launcher_vars[0]); k++)
        if (!strcmp(c->var, tcp_launcher_vars[k]))
            harness_require_symrun("that launcher sets this variable itself, over the job's");
    char entry[128];
    snprintf(entry, sizeof(entry), "%s=%s", c->var, c->value);
    const char *env[] = {entry, NULL};
    struct pe_job job = {.npes = 1,
                         .body = bad_env_body,
                         .arg = (void *)c,
                         .raw = true,
                         .env = env,
                         .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* Raw PE: each launcher variable malformed, then consistent-looking but
 * wrong (PE >= NPES, unset), then restored: sym_init fails naming it each
 * time and works at the end. */
static void launcher_env_body(int me, int npes, void *arg)
{
    (void)me;
    (void)arg;
    char saved[NBAD_LAUNCHER][32];
    for (size_t i = 0; i < NBAD_LAUNCHER; i++) {
        const char *v = getenv(bad_launcher_env[i].var);
        PE_ASSERT(v, "%s is not set in a PE", bad_launcher_env[i].var);
        snprintf(saved[i], sizeof(saved[i]), "%s", v);
    }
    for (size_t i = 0; i < NBAD_LAUNCHER; i++) {
        const struct env_case *c = &bad_launcher_env[i];
        PE_ASSERT(setenv(c->var, c->value, 1) == 0, "setenv");
        sym_status_t st = sym_init();
        PE_ASSERT(st == c->expect, "sym_init with %s='%s' returned %s (%s)", c->var, c->value,
                  sym_status_name(st), sym_last_error());
        PE_ASSERT(strstr(sym_last_error(), c->var) && strstr(sym_last_error(), c->value),
                  "message '%s' does not name %s and '%s'", sym_last_error(), c->var, c->value);
        PE_ASSERT(!sym_initialized(), "initialized with %s='%s'", c->var, c->value);
        PE_ASSERT(setenv(c->var, saved[i], 1) == 0, "setenv");
    }
    char big[32];
    snprintf(big, sizeof(big), "%d", npes);
    PE_ASSERT(setenv("SYMHEAP_SYMRUN_PE", big, 1) == 0, "setenv");
    PE_FAILS_WITH(sym_init(), SYM_ERR_BOOTSTRAP);
    PE_ASSERT(strstr(sym_last_error(), "SYMHEAP_SYMRUN_PE=") && strstr(sym_last_error(), big),
              "message '%s' does not name the PE number", sym_last_error());
    PE_ASSERT(setenv("SYMHEAP_SYMRUN_PE", saved[1], 1) == 0, "setenv");
    PE_ASSERT(unsetenv("SYMHEAP_SYMRUN_NPES") == 0, "unsetenv");
    PE_ASSERT(setenv("SYMHEAP_BOOTSTRAP", "symrun", 1) == 0, "setenv");
    PE_FAILS_WITH(sym_init(), SYM_ERR_BOOTSTRAP);
    PE_ASSERT(strstr(sym_last_error(), "SYMHEAP_SYMRUN_NPES=(unset)"),
              "message '%s' does not say SYMHEAP_SYMRUN_NPES is unset", sym_last_error());
    PE_ASSERT(setenv("SYMHEAP_SYMRUN_NPES", saved[2], 1) == 0, "setenv");
    PE_OK(sym_init());
    PE_ASSERT(sym_n_pes() == npes, "%d PEs", sym_n_pes());
    PE_OK(sym_finalize());
}

Test(config, launcher_env_malformed)
{
    harness_require_symrun("these are symrun's variables");
    struct pe_job job = {.npes = 2, .body = launcher_env_body, .raw = true, .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* A fault for a PE the job does not have is only known to be wrong at
 * sym_init (symheap-info accepts it). */
Test(config, fault_names_pe_outside_job)
{
    static const struct env_case c = {"SYMHEAP_FAULT", "kill:pe=1:op=put:count=1", SYM_ERR_CONFIG,
                                      "kill:pe=0:op=get:count=99"};
    const char *env[] = {"SYMHEAP_FAULT=kill:pe=1:op=put:count=1", NULL};
    struct pe_job job = {.npes = 1,
                         .body = bad_env_body,
                         .arg = (void *)&c,
                         .raw = true,
                         .env = env,
                         .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* SYMHEAP_FAULT's parser: every op name, both actions, round trip. */
Test(config, fault_spec_parser)
{
    static const char *const ops[] = {
        "put",         "get",        "atomic",      "wait",      "barrier",        "send",
        "recv",        "broadcast",  "reduce",      "allreduce", "reduce_scatter", "all_gather",
        "all_gatherv", "all_to_all", "all_to_allv", "gather",    "scatter",        "team_split"};
    for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
        for (int a = 0; a < 2; a++) {
            char text[96], back[96];
            snprintf(text, sizeof(text), "%s:pe=%zu:op=%s:count=%zu%s", a ? "stall" : "kill", i,
                     ops[i], i + 1, a ? ":seconds=7" : "");
            struct sym_fault_spec s;
            cr_assert(sym_fault_parse(text, &s) == 0, "'%s' rejected", text);
            cr_expect(s.action == (a ? SYM_FAULT_STALL : SYM_FAULT_KILL) && s.pe == (int)i &&
                          s.count == i + 1 && s.stall_s == (a ? 7 : 0),
                      "'%s' parsed wrong", text);
            sym_fault_format(back, sizeof(back), &s);
            cr_expect_str_eq(back, text);
        }
    }
    struct sym_fault_spec s;
    cr_expect(sym_fault_parse("", &s) == 0 && s.action == SYM_FAULT_NONE, "empty is off");
    cr_expect(sym_fault_parse("none", &s) == 0 && s.action == SYM_FAULT_NONE, "none is off");
    static const char *const bad[] = {"kill",
                                      "kill:",
                                      "kill:pe=0",
                                      "kill:pe=0:op=put:count=",
                                      "kill:pe=0:op=put:count=1:",
                                      "kill:op=put:pe=0:count=1",
                                      "kill:pe=0:op=put:count=1x",
                                      "kill:pe=0:op=putt:count=1",
                                      "kill:pe=99999999999999999999:op=put:count=1",
                                      "KILL:pe=0:op=put:count=1",
                                      " kill:pe=0:op=put:count=1"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        cr_expect(sym_fault_parse(bad[i], &s) == -1, "'%s' accepted", bad[i]);
}

/* ---- valid values take effect ------------------------------------------- */

struct heap_case {
    const char *text;
    size_t bytes;
};

static const struct heap_case heap_cases[] = {
    {"SYMHEAP_HEAP_SIZE=3M", 3 * MiB},
    {"SYMHEAP_HEAP_SIZE=1.5M", 3 * MiB / 2},
    {"SYMHEAP_HEAP_SIZE=512KiB", 512 * 1024},
    {"SYMHEAP_HEAP_SIZE=1048576", MiB},
};

static void heap_size_body(int me, int npes, void *arg)
{
    const struct heap_case *c = arg;
    size_t f, l;
    PE_OK(sym_heap_free(&f, &l));
    PE_ASSERT(f == c->bytes && l == c->bytes, "%s: %zu bytes free (largest %zu), expected %zu",
              c->text, f, l, c->bytes);
    PE_ASSERT(sym_malloc(c->bytes + 64) == NULL, "%s: a larger allocation succeeded", c->text);
    PE_ASSERT(sym_malloc(4 * MiB) == NULL, "%s: a 4M allocation succeeded", c->text);
    uint8_t *all = sym_malloc(c->bytes);
    PE_ASSERT(all, "%s: the whole heap cannot be allocated: %s", c->text, sym_last_error());
    /* the last byte is really there, on the neighbour too */
    uint8_t b = (uint8_t)(0x40 + me);
    PE_OK(sym_put(all + c->bytes - 1, &b, 1, (me + 1) % npes));
    PE_OK(sym_barrier_all());
    PE_ASSERT(all[c->bytes - 1] == (uint8_t)(0x40 + (me + npes - 1) % npes),
              "%s: last heap byte wrong", c->text);
    sym_free(all);
}

ParameterizedTestParameters(config, heap_size_takes_effect)
{
    static int idx[] = {0, 1, 2, 3};
    _Static_assert(sizeof(idx) / sizeof(idx[0]) == sizeof(heap_cases) / sizeof(heap_cases[0]),
                   "one index per case");
    return cr_make_param_array(int, idx, sizeof(idx) / sizeof(idx[0]));
}

ParameterizedTest(int *i, config, heap_size_takes_effect)
{
    const char *env[] = {heap_cases[*i].text, NULL};
    run_pes_env(1, env, heap_size_body, (void *)&heap_cases[*i]);
    run_pes_env(2, env, heap_size_body, (void *)&heap_cases[*i]);
}

/* Every other variable set to a non-default value is what the runtime uses. */
static void parsed_values_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    const struct sym_config *c = sym_core_config();
    PE_ASSERT(c->heap_size == 3 * MiB, "heap_size %zu", c->heap_size);
    PE_ASSERT(c->timeout == 12.5, "timeout %g", c->timeout);
    PE_ASSERT(!c->debug, "debug on");
    PE_ASSERT(c->mailbox_size == 256 * 1024, "mailbox_size %zu", c->mailbox_size);
    PE_ASSERT(sym_core_layout()->mailbox_size == 256 * 1024, "layout mailbox %llu",
              (unsigned long long)sym_core_layout()->mailbox_size);
    PE_ASSERT(!c->heap_prealloc, "heap_prealloc on");
    PE_ASSERT(!strcmp(c->transport.s, "shm"), "transport '%s'", c->transport.s);
    PE_ASSERT(c->wait_spin == 100, "wait_spin %lu", c->wait_spin);
    PE_ASSERT(c->wait_yield_us == 1000, "wait_yield_us %lu", c->wait_yield_us);
    PE_OK(sym_barrier_all());
}

Test(config, valid_values_are_used)
{
    static const char *const env[] = {
        "SYMHEAP_HEAP_SIZE=3M",      "SYMHEAP_TIMEOUT=12.5",       "SYMHEAP_DEBUG=off",
        "SYMHEAP_MAILBOX_SIZE=256K", "SYMHEAP_HEAP_PREALLOC=no",   "SYMHEAP_TRANSPORT=shm",
        "SYMHEAP_WAIT_SPIN=100",     "SYMHEAP_WAIT_YIELD_US=1000", NULL,
    };
    run_pes_env(2, env, parsed_values_body, NULL);
}

/* SYMHEAP_TIMEOUT bounds a wait that can never be satisfied. */
static void timeout_body(int me, int npes, void *arg)
{
    (void)me;
    (void)npes;
    (void)arg;
    uint64_t *w = sym_calloc(1, sizeof(*w));
    PE_ASSERT(w, "sym_calloc: %s", sym_last_error());
    double t0 = harness_now();
    PE_FAILS_WITH(sym_wait_until_uint64(w, SYM_CMP_EQ, 1), SYM_ERR_TIMEOUT);
    double dt = harness_now() - t0;
    PE_ASSERT(dt >= 0.4 && dt < 10, "SYMHEAP_TIMEOUT=0.5 but the wait gave up after %.3f s", dt);
    sym_free(w);
}

Test(config, timeout_takes_effect)
{
    static const char *const env[] = {"SYMHEAP_TIMEOUT=0.5", NULL};
    run_pes_env(1, env, timeout_body, NULL);
}

/* SYMHEAP_DEBUG=1 logs failures to stderr; with 0 nothing is printed. */
static void debug_body(int me, int npes, void *arg)
{
    bool on = *(bool *)arg;
    (void)me;
    char path[] = "/tmp/symheap-test-config-XXXXXX";
    int fd = mkstemp(path);
    PE_ASSERT(fd >= 0, "mkstemp");
    unlink(path);
    fflush(stderr);
    int saved = dup(2);
    PE_ASSERT(saved >= 0 && dup2(fd, 2) == 2, "redirecting stderr");
    uint8_t x = 0;
    sym_status_t st = sym_put(&x, &x, 1, npes + 3);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    PE_ASSERT(st == SYM_ERR_INVALID_PE, "sym_put to PE %d returned %s", npes + 3,
              sym_status_name(st));
    char buf[4096] = "";
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    close(fd);
    PE_ASSERT(n >= 0, "reading the captured stderr");
    buf[n] = '\0';
    if (on)
        PE_ASSERT(strstr(buf, "sym_put") && strstr(buf, "SYM_ERR_INVALID_PE"),
                  "SYMHEAP_DEBUG=1 printed no error line: '%s'", buf);
    else
        PE_ASSERT(n == 0, "SYMHEAP_DEBUG=0 printed '%s'", buf);
}

Test(config, debug_takes_effect)
{
    static const char *const on_env[] = {"SYMHEAP_DEBUG=1", NULL};
    static const char *const off_env[] = {"SYMHEAP_DEBUG=0", NULL};
    bool on = true, off = false;
    run_pes_env(1, on_env, debug_body, &on);
    run_pes_env(1, off_env, debug_body, &off);
}

/* sym_config_load straight from this test process's own environment: the
 * other spellings each type accepts. */

Test(config, accepted_spellings)
{
    struct sym_config cfg;
    clear_symheap_env();
    cr_assert(sym_config_load(&cfg) == SYM_OK, "defaults rejected: %s", sym_last_error());
    cr_expect(cfg.heap_size == 0 && cfg.timeout == 60 && !cfg.debug &&
                  cfg.mailbox_size == 4 * MiB && cfg.heap_prealloc &&
                  !strcmp(cfg.transport.s, "auto") && cfg.wait_spin == 2000 &&
                  cfg.wait_yield_us == 2000,
              "defaults differ from the table");

    static const struct {
        const char *value;
        bool expect;
    } bools[] = {{"1", true},      {"yes", true},  {"true", true},  {"on", true},
                 {"YES", true},    {"On", true},   {"0", false},    {"no", false},
                 {"false", false}, {"off", false}, {"FALSE", false}};
    for (size_t i = 0; i < sizeof(bools) / sizeof(bools[0]); i++) {
        setenv("SYMHEAP_DEBUG", bools[i].value, 1);
        sym_status_t st = sym_config_load(&cfg);
        cr_expect(st == SYM_OK && cfg.debug == bools[i].expect, "SYMHEAP_DEBUG='%s': %s, %d",
                  bools[i].value, sym_status_name(st), cfg.debug);
    }
    clear_symheap_env();
    static const struct {
        const char *value;
        double expect;
    } secs[] = {{"0.25", 0.25}, {"60", 60}, {"3600", 3600}};
    for (size_t i = 0; i < sizeof(secs) / sizeof(secs[0]); i++) {
        setenv("SYMHEAP_TIMEOUT", secs[i].value, 1);
        sym_status_t st = sym_config_load(&cfg);
        cr_expect(st == SYM_OK && cfg.timeout == secs[i].expect, "SYMHEAP_TIMEOUT='%s': %s, %g",
                  secs[i].value, sym_status_name(st), cfg.timeout);
    }
    static const char *const bad_secs[] = {"inf", "nan", "-0", "1s", ""};
    for (size_t i = 0; i < sizeof(bad_secs) / sizeof(bad_secs[0]); i++) {
        setenv("SYMHEAP_TIMEOUT", bad_secs[i], 1);
        cr_expect(sym_config_load(&cfg) == SYM_ERR_CONFIG, "SYMHEAP_TIMEOUT='%s' accepted",
                  bad_secs[i]);
    }
    clear_symheap_env();
    static const char *const choices[] = {"auto", "shm", "ofi"};
    for (size_t i = 0; i < 3; i++) {
        setenv("SYMHEAP_TRANSPORT", choices[i], 1);
        sym_status_t st = sym_config_load(&cfg);
        cr_expect(st == SYM_OK && !strcmp(cfg.transport.s, choices[i]),
                  "SYMHEAP_TRANSPORT='%s': %s", choices[i], sym_status_name(st));
    }
    static const char *const bad_choices[] = {"", "sh", "shmm", "auto|shm", "{auto"};
    for (size_t i = 0; i < sizeof(bad_choices) / sizeof(bad_choices[0]); i++) {
        setenv("SYMHEAP_TRANSPORT", bad_choices[i], 1);
        cr_expect(sym_config_load(&cfg) == SYM_ERR_CONFIG, "SYMHEAP_TRANSPORT='%s' accepted",
                  bad_choices[i]);
    }
    clear_symheap_env();
    setenv("SYMHEAP_WAIT_SPIN", "0", 1);
    cr_expect(sym_config_load(&cfg) == SYM_OK && cfg.wait_spin == 0, "SYMHEAP_WAIT_SPIN=0");
    static const char *const bad_uints[] = {
        "", "+5", " 5", "5x", "0x10", "1.0", "99999999999999999999999"};
    for (size_t i = 0; i < sizeof(bad_uints) / sizeof(bad_uints[0]); i++) {
        setenv("SYMHEAP_WAIT_SPIN", bad_uints[i], 1);
        cr_expect(sym_config_load(&cfg) == SYM_ERR_CONFIG, "SYMHEAP_WAIT_SPIN='%s' accepted",
                  bad_uints[i]);
    }
    clear_symheap_env();
}

/* A CHOICE loads as the index of its word, which the enums of config.h
 * name: each enum constant must be its word's index. */
Test(config, choice_enums_match_words)
{
    static const struct {
        const char *var, *word;
        int value;
    } c[] = {
        {"SYMHEAP_TRANSPORT", "auto", SYM_CFG_TRANSPORT_AUTO},
        {"SYMHEAP_GLOBALS", "auto", SYM_CFG_GLOBALS_AUTO},
        {"SYMHEAP_GLOBALS", "remap", SYM_CFG_GLOBALS_REMAP},
        {"SYMHEAP_GLOBALS", "cma", SYM_CFG_GLOBALS_CMA},
        {"SYMHEAP_GLOBALS", "off", SYM_CFG_GLOBALS_OFF},
        {"SYMHEAP_BOOTSTRAP", "auto", SYM_CFG_BOOTSTRAP_AUTO},
        {"SYMHEAP_BOOTSTRAP", "pmix", SYM_CFG_BOOTSTRAP_PMIX},
        {"SYMHEAP_BOOTSTRAP", "symrun", SYM_CFG_BOOTSTRAP_SYMRUN},
        {"SYMHEAP_BOOTSTRAP", "tcp", SYM_CFG_BOOTSTRAP_TCP},
        {"SYMHEAP_BOOTSTRAP", "singleton", SYM_CFG_BOOTSTRAP_SINGLETON},
        {"SYMHEAP_COLL_CHECK", "off", SYM_CFG_COLL_CHECK_OFF},
        {"SYMHEAP_COLL_CHECK", "strict", SYM_CFG_COLL_CHECK_STRICT},
    };
    for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
        int k = sym_config_choice_index(&sym_config_job_table, c[i].var, c[i].word);
        cr_expect(k == c[i].value, "%s=%s loads as %d, its enum constant is %d", c[i].var,
                  c[i].word, k, c[i].value);
    }
    /* a transport's own table: the shm transport's */
    static const struct {
        const char *word;
        int value;
    } map[] = {{"auto", SHM_MAP_AUTO}, {"lazy", SHM_MAP_LAZY}, {"eager", SHM_MAP_EAGER}};
    for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++) {
        int k = sym_config_choice_index(&shm_settings_table, "SYMHEAP_SHM_MAP", map[i].word);
        cr_expect(k == map[i].value, "SYMHEAP_SHM_MAP=%s loads as %d, its enum constant is %d",
                  map[i].word, k, map[i].value);
    }
    /* and the value loaded is that index, the word kept beside it */
    struct sym_config cfg;
    clear_symheap_env();
    setenv("SYMHEAP_GLOBALS", "cma", 1);
    cr_assert(sym_config_load(&cfg) == SYM_OK, "%s", sym_last_error());
    cr_expect(cfg.globals.v == SYM_CFG_GLOBALS_CMA && !strcmp(cfg.globals.s, "cma"),
              "SYMHEAP_GLOBALS=cma loaded as %u '%s'", cfg.globals.v, cfg.globals.s);
    clear_symheap_env();
}
