/* config.c - the SYMHEAP_* environment, parsed once from config_table.h. */
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

static int parse_seconds(const char *text, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(text, &end);
    while (isspace((unsigned char)*end))
        end++;
    if (errno || end == text || *end || !(v > 0) || !(v <= SYM_TIMEOUT_MAX))
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

/* The allowed words are the "{a|b|c}" part of the help text. */
static int parse_choice(const char *text, const char *help, sym_cfg_choice_t *out)
{
    const char *open = strchr(help, '{');
    const char *close = open ? strchr(open, '}') : NULL;
    size_t n = strlen(text);
    for (const char *w = open ? open + 1 : NULL; w && w < close;) {
        const char *e = w;
        while (e < close && *e != '|')
            e++;
        if ((size_t)(e - w) == n && !strncmp(w, text, n) && n < sizeof(out->s)) {
            memcpy(out->s, text, n + 1);
            return 0;
        }
        w = e + 1;
    }
    return -1;
}

#define EXPECT_SIZE    "a size such as 4096, 64K, 256M or 2G"
#define EXPECT_SECONDS "a positive number of seconds, at most 86400 (one day)"
#define EXPECT_BOOL    "one of 1/0, yes/no, true/false, on/off"
#define EXPECT_UINT    "a non-negative integer"
#define EXPECT_CHOICE  "one of the words in "
#define EXPECT_FAULT                                                                               \
    "kill|stall:pe=P:op=OP:count=N[:seconds=S] with OP one of put, get, "                          \
    "atomic, wait, barrier, send, recv, broadcast, reduce, allreduce, reduce_scatter, "            \
    "all_gather, all_gatherv, all_to_all, all_to_allv, gather, scatter, team_split, broadcast_v "  \
    "and N >= 1"
#define EXPECT_STRING "at most 255 bytes"
#define EXPECT_SECRET "at most 255 bytes"

/* One parser per type with a common shape, so the table can call them. */
static int parse_one_SIZE(const char *t, size_t *f, const char *h)
{
    (void)h;
    return sym_config_parse_size(t, f);
}
static int parse_one_SECONDS(const char *t, double *f, const char *h)
{
    (void)h;
    return parse_seconds(t, f);
}
static int parse_one_BOOL(const char *t, bool *f, const char *h)
{
    (void)h;
    return parse_bool(t, f);
}
static int parse_one_UINT(const char *t, unsigned long *f, const char *h)
{
    (void)h;
    return parse_uint(t, f);
}
static int parse_one_CHOICE(const char *t, sym_cfg_choice_t *f, const char *h)
{
    return parse_choice(t, h, f);
}
static int parse_one_FAULT(const char *t, struct sym_fault_spec *f, const char *h)
{
    (void)h;
    return sym_fault_parse(t, f);
}
static int parse_one_STRING(const char *t, sym_cfg_string_t *f, const char *h)
{
    (void)h;
    size_t n = strlen(t);
    if (n >= sizeof(f->s))
        return -1;
    memcpy(f->s, t, n + 1);
    return 0;
}

static int parse_one_SECRET(const char *t, sym_cfg_string_t *f, const char *h)
{
    return parse_one_STRING(t, f, h);
}

int sym_config_mr_force_words(const char *text, unsigned *words_p)
{
    static const char *const words[] = {"none",      "local", "prov_key", "endpoint",
                                        "allocated", "all",   "virt_addr"};
    const size_t nwords = sizeof(words) / sizeof(words[0]);
    unsigned set = 0;
    for (const char *w = text; *w;) {
        size_t n = strcspn(w, ","), k = 0;
        while (k < nwords && !(strlen(words[k]) == n && strncmp(words[k], w, n) == 0))
            k++;
        if (k == nwords) {
            *words_p = (unsigned)(w - text);
            return -1;
        }
        set |= 1u << k;
        w += n + (w[n] == ',');
    }
    *words_p = set;
    return 0;
}

/* A number whose default is "auto": 0 until sym_init decides, and "auto"
 * in the environment means the same as unset (config_table.h). */
static bool number_auto(const char *type, const char *dflt)
{
    return !strcmp(dflt, "auto") &&
           (!strcmp(type, "SIZE") || !strcmp(type, "SECONDS") || !strcmp(type, "UINT"));
}

sym_status_t sym_config_load(struct sym_config *cfg)
{
    struct sym_config c;
    memset(&c, 0, sizeof(c));
#define LOAD_(field, name, type, dflt, help)                                                       \
    do {                                                                                           \
        const char *env = getenv(name);                                                            \
        if (number_auto(#type, dflt)) {                                                            \
            if (env && !strcasecmp(env, "auto"))                                                   \
                env = NULL;                                                                        \
        } else if (parse_one_##type(dflt, &c.field, help) != 0) {                                  \
            return sym_error(SYM_ERR_INTERNAL, "sym_init: bad default for %s", name);              \
        }                                                                                          \
        c.set.field = env != NULL;                                                                 \
        if (env && parse_one_##type(env, &c.field, help) != 0)                                     \
            return sym_error(SYM_ERR_CONFIG,                                                       \
                             "sym_init: environment variable %s='%s' is not valid: "               \
                             "expected %s%s",                                                      \
                             name, strcmp(#type, "SECRET") ? env : "(not shown)", EXPECT_##type,   \
                             !strcmp(#type, "CHOICE") ? strchr(help, '{') : "");                   \
    } while (0);
    SYM_CONFIG_TABLE(LOAD_)
#undef LOAD_
    /* ranges the types alone do not express */
    if (c.set.heap_size && c.heap_size == 0)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_HEAP_SIZE='%s' is not valid: "
                         "the heap must not be empty",
                         getenv("SYMHEAP_HEAP_SIZE"));
    if (c.init_timeout > SYM_TIMEOUT_MAX)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_INIT_TIMEOUT='%s' is not valid: "
                         "expected at most 86400 seconds (one day)",
                         getenv("SYMHEAP_INIT_TIMEOUT"));
    if (c.team_area_size < 4096 || c.team_area_size > c.team_region_size)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_TEAM_AREA_SIZE='%s' is not "
                         "valid: expected 4K .. SYMHEAP_TEAM_REGION_SIZE (%zu)",
                         getenv("SYMHEAP_TEAM_AREA_SIZE"), c.team_region_size);
    if (c.chunk_size < 64)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_CHUNK_SIZE='%s' is not valid: "
                         "expected at least 64 bytes",
                         getenv("SYMHEAP_CHUNK_SIZE"));
    /* STRING holds 255 bytes (a host name may be that long); provider
     * names are short */
    if (strlen(c.ofi_provider.s) > 63)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_OFI_PROVIDER='%s' is not valid: "
                         "expected a provider name of at most 63 characters",
                         c.ofi_provider.s);
    /* A job secret given is checked whatever the bootstrap (only the tcp
     * rendezvous uses it): a malformed one, or a file others can read, is
     * an error where it is set, not a surprise on another launcher. */
    if (c.job_secret.s[0] || c.job_secret_file.s[0]) {
        struct sym_secret secret;
        sym_status_t st = sym_secret_load(c.job_secret.s, c.job_secret_file.s, false, &secret);
        sym_secret_wipe(&secret, sizeof(secret));
        if (st != SYM_OK)
            return st;
    }
    /* Words only; the ofi transport turns them into FI_MR_* bits. */
    unsigned mr_words;
    if (sym_config_mr_force_words(c.ofi_mr_force.s, &mr_words) != 0)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_OFI_MR_FORCE='%s' is not "
                         "valid: unknown word \"%.*s\" (expected a comma-separated list of "
                         "none, local, prov_key, endpoint, allocated, all, virt_addr)",
                         c.ofi_mr_force.s, (int)strcspn(c.ofi_mr_force.s + mr_words, ","),
                         c.ofi_mr_force.s + mr_words);
    char host[256], port[16];
    if (c.root_addr.s[0] &&
        sym_addr_parse(c.root_addr.s, host, sizeof(host), port, sizeof(port)) != 0)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_ROOT_ADDR='%s' is not valid: "
                         "expected host:port or [IPv6 address]:port with a port 1..65535",
                         c.root_addr.s);
    *cfg = c;
    return SYM_OK;
}

static void format_SIZE(char *b, size_t n, size_t v)
{
    static const char suffix[] = "KMGT";
    int s = -1;
    while (v && v % 1024 == 0 && s < 3) {
        v /= 1024;
        s++;
    }
    if (s >= 0)
        snprintf(b, n, "%zu%c", v, suffix[s]);
    else
        snprintf(b, n, "%zu", v);
}
static void format_SECONDS(char *b, size_t n, double v)
{
    snprintf(b, n, "%g", v);
}
static void format_BOOL(char *b, size_t n, bool v)
{
    snprintf(b, n, "%d", v ? 1 : 0);
}
static void format_UINT(char *b, size_t n, unsigned long v)
{
    snprintf(b, n, "%lu", v);
}
static void format_CHOICE(char *b, size_t n, sym_cfg_choice_t v)
{
    snprintf(b, n, "%s", v.s);
}
static void format_FAULT(char *b, size_t n, struct sym_fault_spec v)
{
    sym_fault_format(b, n, &v);
}
static void format_STRING(char *b, size_t n, sym_cfg_string_t v)
{
    /* shown in a table column: shortened, never an error */
    if (!v.s[0]) {
        snprintf(b, n, "-"); /* an empty column would shift the others */
        return;
    }
    size_t len = strnlen(v.s, sizeof(v.s));
    if (len >= n)
        len = n - 1;
    memcpy(b, v.s, len);
    b[len] = '\0';
}

static void format_SECRET(char *b, size_t n, sym_cfg_string_t v)
{
    snprintf(b, n, "%s", v.s[0] ? "(set)" : "-"); /* a secret is never shown */
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

/* The value column of one variable: "auto" for a number sym_init decides. */
#define FORMAT_VALUE_(buf, cfg, field, type, dflt)                                                 \
    do {                                                                                           \
        if (number_auto(#type, dflt) && !(cfg)->set.field)                                         \
            snprintf(buf, sizeof(buf), "auto");                                                    \
        else                                                                                       \
            format_##type(buf, sizeof(buf), (cfg)->field);                                         \
    } while (0)

void sym_config_print(FILE *out, const struct sym_config *cfg)
{
    /* Columns as wide as their longest entry, so no name or value shifts
     * the ones after it. */
    int wname = (int)strlen("variable"), wtype = (int)strlen("type");
    int wdflt = (int)strlen("default"), wvalue = (int)strlen("value");
#define WIDTH_(field, name, type, dflt, help)                                                      \
    do {                                                                                           \
        char value[64];                                                                            \
        FORMAT_VALUE_(value, cfg, field, type, dflt);                                              \
        wname = (int)strlen(name) > wname ? (int)strlen(name) : wname;                             \
        wtype = (int)strlen(#type) > wtype ? (int)strlen(#type) : wtype;                           \
        wdflt = (int)strlen(dflt) > wdflt ? (int)strlen(dflt) : wdflt;                             \
        wvalue = (int)strlen(value) > wvalue ? (int)strlen(value) : wvalue;                        \
    } while (0);
    SYM_CONFIG_TABLE(WIDTH_)
#undef WIDTH_
    fprintf(out, "%-*s %-*s %-*s %-*s %s\n", wname, "variable", wtype, "type", wdflt, "default",
            wvalue, "value", "meaning");
#define PRINT_(field, name, type, dflt, help)                                                      \
    do {                                                                                           \
        char value[64];                                                                            \
        FORMAT_VALUE_(value, cfg, field, type, dflt);                                              \
        fprintf(out, "%-*s %-*s %-*s %-*s %s%s\n", wname, name, wtype, #type, wdflt,               \
                *dflt ? dflt : "-", wvalue, value, help, cfg->set.field ? " [set]" : "");          \
    } while (0);
    SYM_CONFIG_TABLE(PRINT_)
#undef PRINT_
}
