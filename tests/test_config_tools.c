/* test_config_tools.c - what the SYMHEAP_* tables show a user: every
 * default symheap-info prints is a value sym_init accepts, the columns of
 * each table line up whatever the length of a name, and an unknown
 * SYMHEAP_* variable is found with the variable it was meant to be, a
 * transport's included. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_cases.h"
#include "harness.h"
#include "core/internal.h"

/* The tables beyond the job's: every transport's. */
static struct sym_cfg_others transports_known(void)
{
    return (struct sym_cfg_others){sym_transport_settings, sym_transport_nsettings};
}

/* A default a user copies from symheap-info (or the README) into the
 * environment must work there too, in its own table. */
static void defaults_load(const struct sym_cfg_table *t)
{
    void *values = calloc(1, t->size);
    cr_assert(values, "calloc");
    for (size_t v = 0; v < t->nvars; v++) {
        clear_symheap_env();
        setenv(t->vars[v].name, t->vars[v].dflt, 1);
        sym_status_t st = sym_config_load_table(t, values);
        cr_expect(st == SYM_OK, "%s='%s' (its default) is refused: %s", t->vars[v].name,
                  t->vars[v].dflt, sym_last_error());
    }
    free(values);
    clear_symheap_env();
}

Test(config_tools, every_default_is_a_valid_value)
{
    defaults_load(&sym_config_job_table);
    for (size_t k = 0; k < sym_transport_nsettings; k++)
        defaults_load(sym_transport_settings[k]);
}

/* symheap-info's tables (the job's, then each transport's): the type,
 * default and value columns start at the same place on every line of a
 * table, the longest name included. */
Test(config_tools, symheap_info_columns_line_up)
{
    const char *symrun = getenv("SYMRUN");
    cr_assert(symrun && strrchr(symrun, '/'), "SYMRUN is not set to symrun's path");
    char cmd[4096];
    snprintf(cmd, sizeof(cmd), "env -u SYMHEAP_HEAP_SIZE '%.*s/symheap-info'",
             (int)(strrchr(symrun, '/') - symrun), symrun);
    FILE *p = popen(cmd, "r");
    cr_assert(p, "popen %s", cmd);
    char line[4096];
    int columns[3] = {-1, -1, -1}, lines = 0, tables = 0;
    size_t longest = 0;
    while (fgets(line, sizeof(line), p)) {
        if (strncmp(line, "SYMHEAP_", 8) != 0 && strncmp(line, "variable ", 9) != 0)
            continue;
        if (!strncmp(line, "variable ", 9)) { /* a table starts */
            tables++;
            columns[0] = columns[1] = columns[2] = -1;
        }
        lines++;
        longest = strcspn(line, " ") > longest ? strcspn(line, " ") : longest;
        /* the start of the 2nd, 3rd and 4th words */
        int at = 0;
        for (int c = 0; c < 3; c++) {
            at += (int)strcspn(line + at, " ");
            at += (int)strspn(line + at, " ");
            if (columns[c] < 0)
                columns[c] = at;
            cr_expect(at == columns[c], "column %d starts at %d, not %d, in:\n%s", c + 2, at,
                      columns[c], line);
        }
    }
    cr_assert(pclose(p) == 0, "symheap-info failed");
    size_t ntables = 1;
    for (size_t k = 0; k < sym_transport_nclasses; k++)
        ntables += sym_transport_classes[k]->settings != NULL;
    cr_assert(tables == (int)ntables, "%d tables, expected %zu", tables, ntables);
    cr_assert(lines == (int)(NVARS + ntables), "%d table lines, expected %zu", lines,
              NVARS + ntables);
    cr_assert(longest > 24, "no name longer than 24 characters to check with");
}

/* The closest variable to a misspelt or shortened name, a transport's
 * too; none for a name like no variable; names of the test suite are not
 * variables' typos, and a transport's variables are known, built into
 * this symheap or not. */
Test(config_tools, unknown_variables)
{
    static const struct {
        const char *name, *closest;
    } cases[] = {
        {"SYMHEAP_TIMOUT", "SYMHEAP_TIMEOUT"},
        {"SYMHEAP_HEAPSIZE", "SYMHEAP_HEAP_SIZE"},
        {"SYMHEAP_ALLREDUCE_ALGO", "SYMHEAP_ALLREDUCE_ALGORITHM"},
        {"SYMHEAP_TRANSPROT", "SYMHEAP_TRANSPORT"},
        {"SYMHEAP_OFI_PROVDER", "SYMHEAP_OFI_PROVIDER"},
        {"SYMHEAP_WAIT_POLL", "SYMHEAP_WAIT_POLL_US"},
        {"SYMHEAP_XYZZY", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got =
            sym_config_closest(transports_known(), cases[i].name, strlen(cases[i].name));
        cr_expect(got == cases[i].closest ||
                      (got && cases[i].closest && !strcmp(got, cases[i].closest)),
                  "%s: closest %s, expected %s", cases[i].name, got ? got : "none",
                  cases[i].closest ? cases[i].closest : "none");
    }
    clear_symheap_env();
    const struct sym_cfg_others others = transports_known();
    int before = sym_config_each_unknown(others, NULL, NULL);
    setenv("SYMHEAP_TIMOUT", "5", 1);
    setenv("SYMHEAP_TEST_SOMETHING", "1", 1); /* the test suite's own */
    setenv("SYMHEAP_TIMEOUT", "5", 1);
    cr_expect(sym_config_each_unknown(others, NULL, NULL) == before + 1, "%d unknown, expected %d",
              sym_config_each_unknown(others, NULL, NULL), before + 1);
    /* every transport's variables: none is unknown (without the
     * transports' tables, each would be) */
    size_t ntp = 0;
    for (size_t k = 0; k < sym_transport_nsettings; k++)
        for (size_t v = 0; v < sym_transport_settings[k]->nvars; v++, ntp++)
            setenv(sym_transport_settings[k]->vars[v].name, sym_transport_settings[k]->vars[v].dflt,
                   1);
    cr_assert(ntp >= 6, "only %zu variables of transports to check with", ntp);
    cr_expect(sym_config_each_unknown(others, NULL, NULL) == before + 1,
              "%d unknown with every transport's variable set, expected %d",
              sym_config_each_unknown(others, NULL, NULL), before + 1);
    const struct sym_cfg_others none = {NULL, 0};
    cr_expect(sym_config_each_unknown(none, NULL, NULL) == before + 1 + (int)ntp,
              "%d unknown to the job's table alone, expected %d",
              sym_config_each_unknown(none, NULL, NULL), before + 1 + (int)ntp);
    unsetenv("SYMHEAP_TIMOUT");
    unsetenv("SYMHEAP_TEST_SOMETHING");
    for (size_t k = 0; k < sym_transport_nsettings; k++)
        for (size_t v = 0; v < sym_transport_settings[k]->nvars; v++)
            unsetenv(sym_transport_settings[k]->vars[v].name);
    clear_symheap_env();
}

/* The library's version is the one of its headers, both from meson.build. */
Test(config_tools, version)
{
    int major = -1, minor = -1, patch = -1;
    const char *v = sym_version(&major, &minor, &patch);
    cr_assert_str_eq(v, SYM_VERSION_STRING);
    cr_expect(major == SYM_VERSION_MAJOR && minor == SYM_VERSION_MINOR &&
                  patch == SYM_VERSION_PATCH,
              "sym_version gives %d.%d.%d, the headers %d.%d.%d", major, minor, patch,
              SYM_VERSION_MAJOR, SYM_VERSION_MINOR, SYM_VERSION_PATCH);
    char text[32];
    snprintf(text, sizeof(text), "%d.%d.%d", major, minor, patch);
    cr_expect_str_eq(text, v);
    cr_expect(sym_version(NULL, NULL, NULL) == v, "NULL outputs change the answer");
}
