/*
 * fuzz_config.c - libFuzzer target for sym_config_load_table(), the parser
 * of the whole SYMHEAP_* environment: the job's table (config_table.h),
 * then each transport's.
 *
 * The input is a list of values separated by newlines (or NULs), given to
 * the variables of those tables in table order; variables without a value
 * are unset.  Loading each table must either succeed (and the table must
 * then print) or fail with SYM_ERR_CONFIG and a message naming a variable.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The tables, the job's first. */
static const struct sym_cfg_table *table(size_t i)
{
    if (i == 0)
        return &sym_config_job_table;
    for (size_t k = 0; k < sym_transport_nclasses; k++)
        if (sym_transport_classes[k]->settings && --i == 0)
            return sym_transport_classes[k]->settings;
    return NULL;
}

/* Load and print table t; aborts on anything but success or a
 * configuration error naming a variable. */
static void load(const struct sym_cfg_table *t)
{
    void *values = calloc(1, t->size);
    if (!values)
        return;
    sym_status_t st = sym_config_load_table(t, values);
    if (st == SYM_OK) {
        char out[8192];
        FILE *f = fmemopen(out, sizeof(out), "w");
        if (f) {
            sym_config_print_table(f, t, values);
            fclose(f);
        }
    } else if (st != SYM_ERR_CONFIG || !strstr(sym_last_error(), "SYMHEAP_")) {
        abort(); /* a bad value is a configuration error naming its variable */
    }
    free(values);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *copy = malloc(size + 1);
    if (!copy)
        return 0;
    memcpy(copy, data, size);
    copy[size] = '\0';
    char *p = copy, *end = copy + size;
    for (size_t i = 0; table(i); i++) {
        const struct sym_cfg_table *t = table(i);
        for (size_t v = 0; v < t->nvars; v++) {
            if (p > end) {
                unsetenv(t->vars[v].name);
                continue;
            }
            char *q = p;
            while (q < end && *q != '\n' && *q != '\0')
                q++;
            *q = '\0';
            setenv(t->vars[v].name, p, 1);
            p = q + 1;
        }
    }
    for (size_t i = 0; table(i); i++)
        load(table(i));
    free(copy);
    return 0;
}
