/* config.c - tables of SYMHEAP_* variables (config.h), each parsed once; the
 * job table (config_table.h). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/addr.h"
#include "base/config.h"
#include "base/error.h"
#include "base/secret.h"

/* Exact integer arithmetic (no detour through double, so every byte count up
 * to 2^64-1 is representable); a fraction is allowed only where the suffix
 * makes the result whole ("1.5K" = 1536, "1.3" is rejected). */
int sym_config_parse_size(const char *text, size_t *bytes_p)
{
    if (!text)
        return -1;
    const char *p = text;
    while (isspace((unsigned char)*p))
        p++;
    uint64_t whole = 0, frac = 0, frac_scale = 1;
    int digits = 0;
    for (; isdigit((unsigned char)*p); p++, digits++)
        if (__builtin_mul_overflow(whole, 10, &whole) ||
            __builtin_add_overflow(whole, (uint64_t)(*p - '0'), &whole))
            return -1;
    if (*p == '.') {
        for (p++; isdigit((unsigned char)*p); p++, digits++) {
            if (frac_scale >= UINT64_C(1000000000000)) /* 12 decimals are plenty */
                return -1;
            frac = frac * 10 + (uint64_t)(*p - '0');
            frac_scale *= 10;
        }
    }
    if (digits == 0)
        return -1;
    uint64_t mult = 1;
    switch (toupper((unsigned char)*p)) {
    case 'K':
        mult = UINT64_C(1) << 10;
        p++;
        break;
    case 'M':
        mult = UINT64_C(1) << 20;
        p++;
        break;
    case 'G':
        mult = UINT64_C(1) << 30;
        p++;
        break;
    case 'T':
        mult = UINT64_C(1) << 40;
        p++;
        break;
    default:
        break;
    }
    if (mult > 1 && (*p == 'B' || *p == 'b'))
        p++; /* "64KB", "1MB" */
    else if (mult > 1 && *p == 'i' && (p[1] == 'B' || p[1] == 'b'))
        p += 2; /* "64KiB" */
    while (isspace((unsigned char)*p))
        p++;
    if (*p)
        return -1;
    uint64_t bytes, frac_bytes;
    if (__builtin_mul_overflow(whole, mult, &bytes))
        return -1;
    /* frac < frac_scale <= 10^12 and mult <= 2^40: the product fits in 128
     * bits only, so divide first where possible */
    unsigned __int128 f = (unsigned __int128)frac * mult;
    if (f % frac_scale != 0)
        return -1;
    frac_bytes = (uint64_t)(f / frac_scale);
    if (__builtin_add_overflow(bytes, frac_bytes, &bytes) || bytes > SIZE_MAX)
        return -1;
    *bytes_p = (size_t)bytes;
    return 0;
}

/* Positive and finite: the range (config_table.h) bounds it further. */
static int parse_seconds(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || end == text || *end || !(v > 0) || !isfinite(v))
        return -1;
    *out = v;
    return 0;
}

static int parse_bool(const char *text, bool *out)
{
    static const char *const yes[] = {"1", "yes", "true", "on", "y"};
    static const char *const no[] = {"0", "no", "false", "off", "n", ""};
    for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
        if (!strcasecmp(text, yes[i]))
            return *out = true, 0;
    for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
        if (!strcasecmp(text, no[i]))
            return *out = false, 0;
    return -1;
}

static int parse_uint(const char *text, unsigned long *out)
{
    if (!isdigit((unsigned char)*text))
        return -1;
    char *end;
    errno = 0;
    unsigned long v = strtoul(text, &end, 10);
    if (errno || *end)
        return -1;
    *out = v;
    return 0;
}

/* The index of `text` among the "{a|b|c}" words of the help text, or -1. */
static int choice_index(const char *help, const char *text)
{
    const char *open = strchr(help, '{');
    const char *close = open ? strchr(open, '}') : NULL;
    size_t n = strlen(text);
    int k = 0;
    for (const char *w = open ? open + 1 : NULL; w && w < close; k++) {
        const char *e = w;
        while (e < close && *e != '|')
            e++;
        if ((size_t)(e - w) == n && !strncmp(w, text, n))
            return k;
        w = e + 1;
    }
    return -1;
}

static int parse_choice(const char *text, const char *help, sym_cfg_choice_t *out)
{
    int k = choice_index(help, text);
    size_t n = strlen(text);
    if (k < 0 || n >= sizeof(out->s))
        return -1;
    out->v = (unsigned)k;
    memcpy(out->s, text, n + 1);
    return 0;
}

static int parse_string(const char *text, sym_cfg_string_t *out)
{
    size_t n = strlen(text);
    if (n >= sizeof(out->s))
        return -1;
    memcpy(out->s, text, n + 1);
    return 0;
}

/* What each type expects, for the message of a malformed value. */
static const char *const expect[] = {
    [SYM_CFG_SIZE] = "a size such as 4096, 64K, 256M or 2G",
    [SYM_CFG_SECONDS] = "a positive number of seconds",
    [SYM_CFG_BOOL] = "one of 1/0, yes/no, true/false, on/off",
    [SYM_CFG_UINT] = "a non-negative integer",
    [SYM_CFG_CHOICE] = "one of the words in ",
    [SYM_CFG_FAULT] =
        "kill|stall:pe=P:op=OP:count=N[:seconds=S] with OP one of put, get, atomic, wait, "
        "barrier, send, recv, broadcast, reduce, allreduce, reduce_scatter, all_gather, "
        "all_gatherv, all_to_all, all_to_allv, gather, scatter, team_split, broadcast_v "
        "and N >= 1",
    [SYM_CFG_STRING] = "text",
    [SYM_CFG_SECRET] = "text of at most 255 bytes",
};

static int parse_value(const struct sym_cfg_var *v, const char *text, void *field)
{
    switch (v->type) {
    case SYM_CFG_SIZE:
        return sym_config_parse_size(text, field);
    case SYM_CFG_SECONDS:
        return parse_seconds(text, field);
    case SYM_CFG_BOOL:
        return parse_bool(text, field);
    case SYM_CFG_UINT:
        return parse_uint(text, field);
    case SYM_CFG_CHOICE:
        return parse_choice(text, v->help, field);
    case SYM_CFG_FAULT:
        return sym_fault_parse(text, field);
    case SYM_CFG_STRING:
    case SYM_CFG_SECRET:
        return parse_string(text, field);
    }
    return -1;
}

static void format_size(char *b, size_t n, unsigned long long v)
{
    static const char suffix[] = "KMGT";
    int s = -1;
    while (v && v % 1024 == 0 && s < 3) {
        v /= 1024;
        s++;
    }
    if (s >= 0)
        snprintf(b, n, "%llu%c", v, suffix[s]);
    else
        snprintf(b, n, "%llu", v);
}

/* The range of variable v (its min and max columns) in words, into buf
 * (len bytes): "" when it has none. */
static void range_text(const struct sym_cfg_var *v, char *buf, size_t len)
{
    char lo[32], hi[32];
    buf[0] = '\0';
    if (v->type == SYM_CFG_STRING) {
        snprintf(buf, len, " of at most %llu bytes",
                 v->max ? v->max : (unsigned long long)sizeof(sym_cfg_string_t) - 1);
        return;
    }
    if (v->type != SYM_CFG_SIZE && v->type != SYM_CFG_UINT && v->type != SYM_CFG_SECONDS)
        return;
    if (v->type == SYM_CFG_SIZE) {
        format_size(lo, sizeof(lo), v->min);
        format_size(hi, sizeof(hi), v->max);
    } else {
        snprintf(lo, sizeof(lo), "%llu", v->min);
        snprintf(hi, sizeof(hi), "%llu", v->max);
    }
    if (v->min && v->max)
        snprintf(buf, len, ", %s .. %s", lo, hi);
    else if (v->min)
        snprintf(buf, len, ", at least %s", lo);
    else if (v->max)
        snprintf(buf, len, ", at most %s", hi);
}

/* Whether a loaded value lies in its variable's range. */
static bool in_range(const struct sym_cfg_var *v, const void *field)
{
    unsigned long long x;
    switch (v->type) {
    case SYM_CFG_SIZE:
        x = *(const size_t *)field;
        break;
    case SYM_CFG_UINT:
        x = *(const unsigned long *)field;
        break;
    case SYM_CFG_SECONDS:
        return !v->max || *(const double *)field <= (double)v->max;
    case SYM_CFG_STRING:
        return !v->max || strlen(((const sym_cfg_string_t *)field)->s) <= v->max;
    default:
        return true;
    }
    return x >= v->min && (!v->max || x <= v->max);
}

/* A number whose default is "auto": 0 until sym_init decides, and "auto"
 * in the environment means the same as unset (config_table.h). */
static bool number_auto(const struct sym_cfg_var *v)
{
    return !strcmp(v->dflt, "auto") &&
           (v->type == SYM_CFG_SIZE || v->type == SYM_CFG_SECONDS || v->type == SYM_CFG_UINT);
}

sym_status_t sym_config_load_table(const struct sym_cfg_table *t, void *values)
{
    uint8_t *c = calloc(1, t->size);
    if (!c)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the %s settings", t->name);
    sym_status_t st = SYM_OK;
    for (size_t i = 0; i < t->nvars && st == SYM_OK; i++) {
        const struct sym_cfg_var *v = &t->vars[i];
        const char *env = getenv(v->name);
        const bool secret = v->type == SYM_CFG_SECRET;
        void *field = c + v->off;
        char range[96];
        range_text(v, range, sizeof(range));
        if (number_auto(v)) {
            if (env && !strcasecmp(env, "auto"))
                env = NULL;
        } else if (parse_value(v, v->dflt, field) != 0) {
            st = sym_error(SYM_ERR_INTERNAL, "sym_init: bad default for %s", v->name);
        }
        if (st != SYM_OK)
            break;
        if (env && (parse_value(v, env, field) != 0 || !in_range(v, field)))
            st = sym_error(SYM_ERR_CONFIG,
                           "sym_init: environment variable %s='%s' is not valid: expected %s%s%s",
                           v->name, secret ? "(not shown)" : env, expect[v->type],
                           v->type == SYM_CFG_CHOICE ? strchr(v->help, '{') : "", range);
        *(bool *)(c + v->set_off) = env != NULL;
    }
    if (st == SYM_OK && t->check)
        st = t->check(c);
    if (st == SYM_OK)
        memcpy(values, c, t->size);
    sym_secret_wipe(c, t->size);
    free(c);
    return st;
}

/* The job table's checks between variables and of formats. */
static sym_status_t job_check(const void *values)
{
    const struct sym_config *c = values;
    if (c->team_area_size > c->team_region_size)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_TEAM_AREA_SIZE='%s' is not "
                         "valid: expected 4K .. SYMHEAP_TEAM_REGION_SIZE (%zu)",
                         getenv("SYMHEAP_TEAM_AREA_SIZE"), c->team_region_size);
    /* A job secret given is checked whatever the bootstrap (only the tcp
     * rendezvous uses it): a malformed one, or a file others can read, is
     * an error where it is set, not a surprise on another launcher. */
    if (c->job_secret.s[0] || c->job_secret_file.s[0]) {
        struct sym_secret secret;
        sym_status_t st = sym_secret_load(c->job_secret.s, c->job_secret_file.s, false, &secret);
        sym_secret_wipe(&secret, sizeof(secret));
        if (st != SYM_OK)
            return st;
    }
    char host[256], port[16];
    if (c->root_addr.s[0] &&
        sym_addr_parse(c->root_addr.s, host, sizeof(host), port, sizeof(port)) != 0)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_ROOT_ADDR='%s' is not valid: "
                         "expected host:port or [IPv6 address]:port with a port 1..65535",
                         c->root_addr.s);
    return SYM_OK;
}

#define SYM_CFG_STRUCT_ struct sym_config
static const struct sym_cfg_var job_vars[] = {SYM_CONFIG_TABLE(SYM_CFG_VAR_)};
#undef SYM_CFG_STRUCT_

const struct sym_cfg_table sym_config_job_table = {
    .name = "job",
    .vars = job_vars,
    .nvars = sizeof(job_vars) / sizeof(job_vars[0]),
    .size = sizeof(struct sym_config),
    .check = job_check,
};

sym_status_t sym_config_load(struct sym_config *cfg)
{
    return sym_config_load_table(&sym_config_job_table, cfg);
}

static const struct sym_cfg_var *find(const struct sym_cfg_table *t, const char *name)
{
    for (size_t i = 0; i < t->nvars; i++)
        if (!strcmp(t->vars[i].name, name))
            return &t->vars[i];
    return NULL;
}

int sym_config_table_uint(const struct sym_cfg_table *t, const void *values, const char *name,
                          uint64_t *value_p, const char **kind_p)
{
    static const char *const kind[] = {
        [SYM_CFG_SECONDS] = "a number of seconds",
        [SYM_CFG_CHOICE] = "a choice of words",
        [SYM_CFG_FAULT] = "a fault-injection spec",
        [SYM_CFG_STRING] = "text",
        [SYM_CFG_SECRET] = "a secret",
    };
    const struct sym_cfg_var *v = find(t, name);
    if (!v)
        return 0;
    const void *field = (const uint8_t *)values + v->off;
    switch (v->type) {
    case SYM_CFG_SIZE:
        *value_p = *(const size_t *)field;
        return 1;
    case SYM_CFG_UINT:
        *value_p = *(const unsigned long *)field;
        return 1;
    case SYM_CFG_BOOL:
        *value_p = *(const bool *)field ? 1u : 0u;
        return 1;
    default:
        *kind_p = kind[v->type];
        return -1;
    }
}

int sym_config_choice_index(const struct sym_cfg_table *t, const char *name, const char *word)
{
    const struct sym_cfg_var *v = find(t, name);
    return v && v->type == SYM_CFG_CHOICE ? choice_index(v->help, word) : -1;
}

static const char *const type_name[] = {
    [SYM_CFG_SIZE] = "SIZE",     [SYM_CFG_SECONDS] = "SECONDS", [SYM_CFG_BOOL] = "BOOL",
    [SYM_CFG_UINT] = "UINT",     [SYM_CFG_CHOICE] = "CHOICE",   [SYM_CFG_FAULT] = "FAULT",
    [SYM_CFG_STRING] = "STRING", [SYM_CFG_SECRET] = "SECRET",
};

/* A value as symheap-info shows it in a column: shortened, never an error. */
static void format_value(char *b, size_t n, const struct sym_cfg_var *v, const void *field)
{
    switch (v->type) {
    case SYM_CFG_SIZE:
        format_size(b, n, *(const size_t *)field);
        break;
    case SYM_CFG_SECONDS:
        snprintf(b, n, "%g", *(const double *)field);
        break;
    case SYM_CFG_BOOL:
        snprintf(b, n, "%d", *(const bool *)field ? 1 : 0);
        break;
    case SYM_CFG_UINT:
        snprintf(b, n, "%lu", *(const unsigned long *)field);
        break;
    case SYM_CFG_CHOICE:
        snprintf(b, n, "%s", ((const sym_cfg_choice_t *)field)->s);
        break;
    case SYM_CFG_FAULT:
        sym_fault_format(b, n, field);
        break;
    case SYM_CFG_STRING: {
        const char *s = ((const sym_cfg_string_t *)field)->s;
        /* an empty column would shift the others */
        snprintf(b, n, "%.*s", s[0] ? (int)(n - 1) : 1, s[0] ? s : "-");
        break;
    }
    case SYM_CFG_SECRET: /* a secret is never shown */
        snprintf(b, n, "%s", ((const sym_cfg_string_t *)field)->s[0] ? "(set)" : "-");
        break;
    }
}

/* The value column of variable v: "auto" for a number sym_init decides. */
static void value_text(char *b, size_t n, const struct sym_cfg_var *v, const void *values)
{
    if (number_auto(v) && !*(const bool *)((const uint8_t *)values + v->set_off))
        snprintf(b, n, "auto");
    else
        format_value(b, n, v, (const uint8_t *)values + v->off);
}

static int widest(int w, const char *text)
{
    return (int)strlen(text) > w ? (int)strlen(text) : w;
}

void sym_config_print_table(FILE *out, const struct sym_cfg_table *t, const void *values)
{
    /* Columns as wide as their longest entry, so no name or value shifts
     * the ones after it. */
    int wname = (int)strlen("variable"), wtype = (int)strlen("type");
    int wdflt = (int)strlen("default"), wvalue = (int)strlen("value");
    for (size_t i = 0; i < t->nvars; i++) {
        const struct sym_cfg_var *v = &t->vars[i];
        char value[64];
        value_text(value, sizeof(value), v, values);
        wname = widest(wname, v->name);
        wtype = widest(wtype, type_name[v->type]);
        wdflt = widest(wdflt, v->dflt);
        wvalue = widest(wvalue, value);
    }
    fprintf(out, "%-*s %-*s %-*s %-*s %s\n", wname, "variable", wtype, "type", wdflt, "default",
            wvalue, "value", "meaning");
    for (size_t i = 0; i < t->nvars; i++) {
        const struct sym_cfg_var *v = &t->vars[i];
        char value[64];
        value_text(value, sizeof(value), v, values);
        fprintf(out, "%-*s %-*s %-*s %-*s %s%s\n", wname, v->name, wtype, type_name[v->type], wdflt,
                *v->dflt ? v->dflt : "-", wvalue, value, v->help,
                *(const bool *)((const uint8_t *)values + v->set_off) ? " [set]" : "");
    }
}

/* A true value of one variable, read on its own. */
static bool env_true(const char *name)
{
    bool on = false;
    const char *env = getenv(name);
    return env && parse_bool(env, &on) == 0 && on;
}

bool sym_config_quiet(void)
{
    return env_true("SYMHEAP_QUIET") && !env_true("SYMHEAP_DEBUG");
}

void sym_config_print(FILE *out, const struct sym_config *cfg)
{
    sym_config_print_table(out, &sym_config_job_table, cfg);
}
