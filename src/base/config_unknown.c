/*
 * config_unknown.c - SYMHEAP_* variables of the environment that no table
 * has: neither the job's (config_table.h) nor a transport's.  A misspelt
 * name (SYMHEAP_TIMOUT) would otherwise be ignored in silence; sym_init
 * warns of it once per job, with the known name closest to it, and
 * symheap-info lists it.
 */
#include <stdio.h>
#include <string.h>

#include "base/config.h"

extern char **environ;

#define PREFIX     "SYMHEAP_"
#define PREFIX_LEN (sizeof(PREFIX) - 1)

static const char *const not_settings[] = {
#define SYM_NOT_SETTING_(prefix) prefix,
    SYM_CONFIG_NOT_SETTINGS(SYM_NOT_SETTING_)
#undef SYM_NOT_SETTING_
};

#define LONGEST 64 /* names compared; longer ones get no suggestion */

/* Variable k of the job's table, then of each of `others`, or NULL past
 * the last. */
static const char *known(struct sym_cfg_others others, size_t k)
{
    if (k < sym_config_job_table.nvars)
        return sym_config_job_table.vars[k].name;
    k -= sym_config_job_table.nvars;
    for (size_t t = 0; t < others.n; t++) {
        if (k < others.tables[t]->nvars)
            return others.tables[t]->vars[k].name;
        k -= others.tables[t]->nvars;
    }
    return NULL;
}

/* Edit distance (insertions, deletions, substitutions) of a[0..la) and
 * b[0..lb), both at most LONGEST. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb)
{
    size_t row[LONGEST + 1];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (a[i - 1] != b[j - 1]);
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

const char *sym_config_closest(struct sym_cfg_others others, const char *name, size_t len)
{
    if (len <= PREFIX_LEN || len > LONGEST || strncmp(name, PREFIX, PREFIX_LEN) != 0)
        return NULL;
    const char *s = name + PREFIX_LEN;
    size_t ls = len - PREFIX_LEN, best_d = (size_t)-1;
    const char *best = NULL;
    const char *name_k;
    for (size_t k = 0; (name_k = known(others, k)) != NULL; k++) {
        const char *t = name_k + PREFIX_LEN;
        size_t lt = strlen(t);
        if (lt > LONGEST)
            continue;
        /* a name cut short (SYMHEAP_ALLREDUCE_ALGO) is as good as a typo */
        size_t d = ls >= 4 && ls < lt && !strncmp(s, t, ls) ? 1 : distance(s, ls, t, lt);
        if (d < best_d) {
            best_d = d;
            best = name_k;
        }
    }
    size_t bound = ls / 3 > 2 ? ls / 3 : 2;
    return best_d <= bound ? best : NULL;
}

static bool is_known(struct sym_cfg_others others, const char *name, size_t len)
{
    const char *name_k;
    for (size_t k = 0; (name_k = known(others, k)) != NULL; k++)
        if (strlen(name_k) == len && !strncmp(name_k, name, len))
            return true;
    for (size_t k = 0; k < sizeof(not_settings) / sizeof(not_settings[0]); k++)
        if (!strncmp(name, not_settings[k], strlen(not_settings[k])))
            return true;
    return false;
}

int sym_config_each_unknown(struct sym_cfg_others others,
                            void (*fn)(const char *name, size_t len, const char *closest,
                                       void *arg),
                            void *arg)
{
    int n = 0;
    for (char **e = environ; e && *e; e++) {
        const char *eq = strchr(*e, '=');
        size_t len = eq ? (size_t)(eq - *e) : strlen(*e);
        if (strncmp(*e, PREFIX, PREFIX_LEN) != 0 || is_known(others, *e, len))
            continue;
        n++;
        if (fn)
            fn(*e, len, sym_config_closest(others, *e, len), arg);
    }
    return n;
}

static void warn_one(const char *name, size_t len, const char *closest, void *arg)
{
    FILE *out = arg;
    fprintf(out,
            "symheap: warning: %.*s is not a symheap variable%s%s%s (symheap-info lists them; "
            "SYMHEAP_QUIET=1 hides this)\n",
            (int)len, name, closest ? ", did you mean " : "", closest ? closest : "",
            closest ? "?" : "");
}

int sym_config_warn_unknown(FILE *out, struct sym_cfg_others others)
{
    return sym_config_each_unknown(others, warn_one, out);
}
