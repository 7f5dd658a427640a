/*
 * fuzz_config.c - libFuzzer target for sym_config_load(), the parser of
 * the whole SYMHEAP_* environment.
 *
 * The input is a list of values separated by newlines (or NULs), given to
 * the variables of config_table.h in table order; variables without a
 * value are unset.  Loading must either succeed (and the table must then
 * print) or fail with SYM_ERR_CONFIG and a message naming a variable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char *const names[] = {
#define NAME_(field, name, type, dflt, help) name,
    SYM_CONFIG_TABLE(NAME_)
#undef NAME_
};
#define NVARS (sizeof(names) / sizeof(names[0]))

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    size_t v = 0;
    char *p = copy, *end = copy + size;
    for (; v < NVARS && p <= end; v++) {
        char *q = p;
        while (q < end && *q != '\n' && *q != '\0')
            q++;
        *q = '\0';
        setenv(names[v], p, 1);
        p = q + 1;
    }
    for (; v < NVARS; v++)
        unsetenv(names[v]);

    struct sym_config cfg;
    sym_status_t st = sym_config_load(&cfg);
    if (st == SYM_OK) {
        char out[8192];
        FILE *f = fmemopen(out, sizeof(out), "w");
        if (f) {
            sym_config_print(f, &cfg);
            fclose(f);
        }
    } else if (st != SYM_ERR_CONFIG || !strstr(sym_last_error(), "SYMHEAP_")) {
        abort(); /* a bad value is a configuration error naming its variable */
    }
    free(copy);
    return 0;
}
