/* tuning.c - the automatic choice of algorithm (tuning.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "coll/direct.h"
#include "coll/tuning.h"

#define MAX_STEPS 8
#define UNBOUNDED UINT64_MAX

struct step {
    sym_algorithm_t algo;
    uint64_t upto; /* largest size it takes */
};

struct ladder {
    int nsteps;
    struct step step[MAX_STEPS];
};

static const char *const regime_names[SYM_REGIME_COUNT] = {"pair", "crowded", "spread"};

static struct ladder ladders[SYM_COLL_KIND_COUNT][SYM_REGIME_COUNT];

/* From coll_list.h: the defaults, and what kinds are. */
static const char *const defaults[SYM_COLL_KIND_COUNT][SYM_REGIME_COUNT] = {
#define LADDERS_(KIND, name, env, algos, shape, rooted, reduces, blocks, ...)                      \
    [SYM_COLL_##KIND] = {__VA_ARGS__},
    SYM_COLL_LIST(LADDERS_)
#undef LADDERS_
};

static const int blocks_of[SYM_COLL_KIND_COUNT] = {
#define BLOCKS_(KIND, name, env, algos, shape, rooted, reduces, blocks, ...)                       \
    [SYM_COLL_##KIND] = SYM_BLOCKS_##blocks,
    SYM_COLL_LIST(BLOCKS_)
#undef BLOCKS_
};

static const unsigned algos_of[SYM_COLL_KIND_COUNT] = {
#define ALGOS_(KIND, name, env, algos, ...) [SYM_COLL_##KIND] = algos(SYM_ALGO_BIT) 0u,
    SYM_COLL_LIST(ALGOS_)
#undef ALGOS_
};

/* The defaults of the direct algorithm's thresholds, measured with
 * bench/compare (bench/RESULTS.md): cross-memory attach reads at a third of
 * memcpy's speed on that host, so staging once wins at every size there.
 * With symmetric buffers (bench_shmem_coll, every collective forced to
 * direct against the mailbox algorithms) direct wins from 4 KiB in a pair
 * (reduce-to-all and fcollect 0.2x to 0.4x at 4 to 64 KiB) and loses below
 * 16 KiB when crowded (1.2x to 5x at 4 PEs on 2 cores). */
#define CMA_MIN_DEFAULT               UINT64_MAX
#define ONE_SHOT_MAX_DEFAULT          ((uint64_t)65536)
#define PAIR_MIN_DEFAULT              ((uint64_t)8192)
#define SYMMETRIC_MIN_DEFAULT         ((uint64_t)4096)
#define SYMMETRIC_CROWDED_MIN_DEFAULT ((uint64_t)16384)
#define TUNING_DEFAULTS                                                                            \
    {                                                                                              \
        CMA_MIN_DEFAULT, ONE_SHOT_MAX_DEFAULT, PAIR_MIN_DEFAULT, SYMMETRIC_MIN_DEFAULT,            \
            SYMMETRIC_CROWDED_MIN_DEFAULT                                                          \
    }
struct sym_tuning sym_tuning = TUNING_DEFAULTS;

static const struct {
    const char *key;
    uint64_t *value;
} scalars[] = {
    {"direct.cma_min", &sym_tuning.cma_min},
    {"direct.one_shot_max", &sym_tuning.one_shot_max},
    {"direct.pair_min", &sym_tuning.pair_min},
    {"direct.symmetric_min", &sym_tuning.symmetric_min},
    {"direct.symmetric_crowded_min", &sym_tuning.symmetric_crowded_min},
};

/* "algo[:upto],..." into l; on an error, why (kind's name, the step). */
static sym_status_t parse_ladder(enum sym_coll_kind kind, const char *where, const char *text,
                                 struct ladder *l)
{
    memset(l, 0, sizeof(*l));
    const char *p = text;
    while (*p) {
        const char *end = strchr(p, ',');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        char word[64];
        if (len == 0 || len >= sizeof(word) || l->nsteps == MAX_STEPS)
            return sym_error(SYM_ERR_CONFIG,
                             "%s: '%s': a ladder is up to %d comma-separated steps algo[:upto]",
                             where, text, MAX_STEPS);
        memcpy(word, p, len);
        word[len] = '\0';
        char *colon = strchr(word, ':');
        struct step *s = &l->step[l->nsteps++];
        s->upto = UNBOUNDED;
        if (colon) {
            size_t bytes;
            *colon = '\0';
            if (sym_config_parse_size(colon + 1, &bytes) != 0)
                return sym_error(SYM_ERR_CONFIG, "%s: '%s': '%s' is not a size (e.g. 64K)", where,
                                 text, colon + 1);
            s->upto = bytes;
        }
        int a;
        for (a = SYM_ALGO_NAIVE; a <= SYM_ALGO_LAST; a++)
            if (!strcmp(word, sym_algorithm_name((sym_algorithm_t)a)))
                break;
        if (a > SYM_ALGO_LAST || !(algos_of[kind] & (1u << a)))
            return sym_error(SYM_ERR_CONFIG, "%s: '%s': %s has no algorithm '%s'", where, text,
                             sym_coll_kind_name(kind), word);
        s->algo = (sym_algorithm_t)a;
        p += len;
        if (*p == ',')
            p++;
    }
    if (l->nsteps && l->step[l->nsteps - 1].upto != UNBOUNDED)
        return sym_error(SYM_ERR_CONFIG, "%s: '%s': the last step must have no size bound", where,
                         text);
    /* a direct step may be skipped: an algorithm that runs everywhere must
     * take every size after it */
    bool any_everywhere = !l->nsteps;
    for (int i = 0; i < l->nsteps; i++)
        any_everywhere |= l->step[i].algo != SYM_ALGO_DIRECT && l->step[i].upto == UNBOUNDED;
    if (!any_everywhere)
        return sym_error(SYM_ERR_CONFIG,
                         "%s: '%s': a step other than direct must take the largest sizes "
                         "(direct cannot run on every team)",
                         where, text);
    return SYM_OK;
}

/* One "key=value" of SYMHEAP_COLL_TUNING. */
static sym_status_t apply(const char *entry)
{
    const char *eq = strchr(entry, '=');
    char key[64];
    if (!eq || (size_t)(eq - entry) >= sizeof(key))
        return sym_error(SYM_ERR_CONFIG, "SYMHEAP_COLL_TUNING: '%s' is not key=value", entry);
    memcpy(key, entry, (size_t)(eq - entry));
    key[eq - entry] = '\0';
    const char *value = eq + 1;
    for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
        size_t bytes;
        if (strcmp(key, scalars[i].key) != 0)
            continue;
        if (!strcmp(value, "never"))
            bytes = SIZE_MAX;
        else if (sym_config_parse_size(value, &bytes) != 0)
            return sym_error(SYM_ERR_CONFIG,
                             "SYMHEAP_COLL_TUNING: %s: '%s' is not a size (or never)", key, value);
        *scalars[i].value = bytes == SIZE_MAX ? UINT64_MAX : bytes;
        return SYM_OK;
    }
    char *dot = strchr(key, '.');
    if (dot) {
        *dot = '\0';
        for (int k = 1; k < SYM_COLL_KIND_COUNT; k++)
            for (int r = 0; r < SYM_REGIME_COUNT; r++)
                if (defaults[k][r][0] && !strcmp(key, sym_coll_kind_name((uint32_t)k)) &&
                    !strcmp(dot + 1, regime_names[r])) {
                    char where[320];
                    snprintf(where, sizeof(where), "SYMHEAP_COLL_TUNING: '%s'", entry);
                    return parse_ladder((enum sym_coll_kind)k, where, value, &ladders[k][r]);
                }
        *dot = '.';
    }
    return sym_error(SYM_ERR_CONFIG,
                     "SYMHEAP_COLL_TUNING: '%s': unknown key '%s' (a collective and a regime, as "
                     "allreduce.pair, allreduce.crowded, allreduce.spread; or direct.cma_min, "
                     "direct.one_shot_max, direct.pair_min, direct.symmetric_min, "
                     "direct.symmetric_crowded_min)",
                     entry, key);
}

sym_status_t sym_tuning_init(const char *overrides)
{
    sym_tuning = (struct sym_tuning)TUNING_DEFAULTS;
    for (int k = 1; k < SYM_COLL_KIND_COUNT; k++)
        for (int r = 0; r < SYM_REGIME_COUNT; r++) {
            sym_status_t st =
                parse_ladder((enum sym_coll_kind)k, "coll_list.h", defaults[k][r], &ladders[k][r]);
            if (st != SYM_OK)
                return st;
        }
    char copy[256];
    snprintf(copy, sizeof(copy), "%s", overrides ? overrides : "");
    char *save = NULL;
    for (char *e = strtok_r(copy, ";", &save); e; e = strtok_r(NULL, ";", &save)) {
        while (*e == ' ')
            e++;
        if (!*e)
            continue;
        sym_status_t st = apply(e);
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

enum sym_regime sym_coll_regime(const struct sym_team *team)
{
    if (team->size <= 2)
        return SYM_REGIME_PAIR;
    return sym_coll_crowded() ? SYM_REGIME_CROWDED : SYM_REGIME_SPREAD;
}

uint64_t sym_coll_size(enum sym_coll_kind kind, const struct sym_team *team, uint64_t count,
                       size_t esize)
{
    const uint64_t per = blocks_of[kind] == 0 ? (uint64_t)team->size : 1;
    return count * esize * per; /* sym_coll_prepare checked that it fits */
}

sym_algorithm_t sym_coll_auto(enum sym_coll_kind kind, struct sym_team *team, uint64_t size,
                              bool symmetric)
{
    const enum sym_regime regime = sym_coll_regime(team);
    if (symmetric && (algos_of[kind] & (1u << SYM_ALGO_DIRECT)) &&
        size >= (regime == SYM_REGIME_CROWDED ? sym_tuning.symmetric_crowded_min
                                              : sym_tuning.symmetric_min) &&
        sym_direct_usable(team, NULL))
        return SYM_ALGO_DIRECT;
    const struct ladder *l = &ladders[kind][regime];
    for (int i = 0; i < l->nsteps; i++) {
        const struct step *s = &l->step[i];
        if (size > s->upto)
            continue;
        if (s->algo == SYM_ALGO_DIRECT && !sym_direct_usable(team, NULL))
            continue;
        return s->algo;
    }
    return SYM_ALGO_NAIVE; /* an empty ladder: a kind with no choice */
}

/* 65536 as 64K: sizes as a user writes them. */
static void print_size(FILE *out, uint64_t v)
{
    static const char units[] = "KMGT";
    int u = -1;
    while (v && v % 1024 == 0 && u < 3) {
        v /= 1024;
        u++;
    }
    if (u < 0)
        fprintf(out, "%" PRIu64, v);
    else
        fprintf(out, "%" PRIu64 "%c", v, units[u]);
}

void sym_tuning_print(FILE *out)
{
    for (int k = 1; k < SYM_COLL_KIND_COUNT; k++)
        for (int r = 0; r < SYM_REGIME_COUNT; r++) {
            const struct ladder *l = &ladders[k][r];
            if (!l->nsteps)
                continue;
            fprintf(out, "  %s.%s=", sym_coll_kind_name((uint32_t)k), regime_names[r]);
            for (int i = 0; i < l->nsteps; i++) {
                fprintf(out, "%s%s", i ? "," : "", sym_algorithm_name(l->step[i].algo));
                if (l->step[i].upto != UNBOUNDED) {
                    fputc(':', out);
                    print_size(out, l->step[i].upto);
                }
            }
            fputc('\n', out);
        }
    for (size_t i = 0; i < sizeof(scalars) / sizeof(scalars[0]); i++) {
        if (*scalars[i].value == UINT64_MAX)
            fprintf(out, "  %s=never\n", scalars[i].key);
        else {
            fprintf(out, "  %s=", scalars[i].key);
            print_size(out, *scalars[i].value);
            fputc('\n', out);
        }
    }
}
