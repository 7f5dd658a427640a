/* test_config_tools.c - what the SYMHEAP_* table shows a user: every
 * default symheap-info prints is a value sym_init accepts, its columns line
 * up whatever the length of a name, and an unknown SYMHEAP_* variable is
 * found with the setting it was meant to be. */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "core/internal.h"

#define NAME_(field, name, type, dflt, help) name,
static const char *const names[] = {SYM_CONFIG_TABLE(NAME_)};
#undef NAME_
#define DFLT_(field, name, type, dflt, help) dflt,
static const char *const defaults[] = {SYM_CONFIG_TABLE(DFLT_)};
#undef DFLT_
#define NVARS (sizeof(names) / sizeof(names[0]))

static void clear_symheap_env(void)
{
    for (size_t v = 0; v < NVARS; v++)
        unsetenv(names[v]);
}

/* A default a user copies from symheap-info (or the README) into the
 * environment must work there too. */
Test(config_tools, every_default_is_a_valid_value)
{
    struct sym_config cfg;
    for (size_t v = 0; v < NVARS; v++) {
        clear_symheap_env();
        setenv(names[v], defaults[v], 1);
        sym_status_t st = sym_config_load(&cfg);
        cr_expect(st == SYM_OK, "%s='%s' (its default) is refused: %s", names[v], defaults[v],
                  sym_last_error());
    }
    clear_symheap_env();
}

/* symheap-info's table: the type, default and value columns start at the
 * same place on every line, the longest name included. */
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
    int columns[3] = {-1, -1, -1}, lines = 0;
    size_t longest = 0;
    while (fgets(line, sizeof(line), p)) {
        if (strncmp(line, "SYMHEAP_", 8) != 0 && strncmp(line, "variable ", 9) != 0)
            continue;
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
    cr_assert(lines == (int)NVARS + 1, "%d table lines, expected %zu", lines, NVARS + 1);
    cr_assert(longest > 24, "no name longer than 24 characters to check with");
}

/* The closest setting to a misspelt or shortened name; none for a name
 * like no setting, and names of the test suite are not settings' typos. */
Test(config_tools, unknown_variables)
{
    static const struct {
        const char *name, *closest;
    } cases[] = {
        {"SYMHEAP_TIMOUT", "SYMHEAP_TIMEOUT"},
        {"SYMHEAP_HEAPSIZE", "SYMHEAP_HEAP_SIZE"},
        {"SYMHEAP_ALLREDUCE_ALGO", "SYMHEAP_ALLREDUCE_ALGORITHM"},
        {"SYMHEAP_TRANSPROT", "SYMHEAP_TRANSPORT"},
        {"SYMHEAP_XYZZY", NULL},
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = sym_config_closest(cases[i].name, strlen(cases[i].name));
        cr_expect(got == cases[i].closest ||
                      (got && cases[i].closest && !strcmp(got, cases[i].closest)),
                  "%s: closest %s, expected %s", cases[i].name, got ? got : "none",
                  cases[i].closest ? cases[i].closest : "none");
    }
    clear_symheap_env();
    int before = sym_config_each_unknown(NULL, NULL);
    setenv("SYMHEAP_TIMOUT", "5", 1);
    setenv("SYMHEAP_TEST_SOMETHING", "1", 1); /* the test suite's own */
    setenv("SYMHEAP_TIMEOUT", "5", 1);
    cr_expect(sym_config_each_unknown(NULL, NULL) == before + 1, "%d unknown, expected %d",
              sym_config_each_unknown(NULL, NULL), before + 1);
    unsetenv("SYMHEAP_TIMOUT");
    unsetenv("SYMHEAP_TEST_SOMETHING");
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
