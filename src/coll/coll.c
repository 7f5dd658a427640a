/* coll.c - the call context shared by every collective. */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_check.h"
#include "coll/direct.h"
#include "coll/tuning.h"
#include "coll/request.h"
#include "coll/wire.h"

static const char *const kind_names[SYM_COLL_KIND_COUNT] = {
#define KIND_NAME_(KIND, name, env, algos, shape, ...) [SYM_COLL_##KIND] = #name,
    SYM_COLL_LIST(KIND_NAME_)
#undef KIND_NAME_
};

/* Bit (1 << algorithm) for every algorithm a kind has. */
static const unsigned kind_algos[SYM_COLL_KIND_COUNT] = {
#define KIND_ALGOS_(KIND, name, env, algos, shape, ...) [SYM_COLL_##KIND] = algos(SYM_ALGO_BIT) 0u,
    SYM_COLL_LIST(KIND_ALGOS_)
#undef KIND_ALGOS_
};

/* SYMHEAP_<KIND>_ALGORITHM, parsed at init: SYM_ALGO_AUTO when unset or
 * when it names an algorithm this kind lacks (one variable serves a pair,
 * all_to_all/all_to_allv: a choice only one of them has leaves the other
 * automatic). */
static sym_algorithm_t env_algo[SYM_COLL_KIND_COUNT];

const char *sym_coll_kind_name(uint32_t kind)
{
    return kind < SYM_COLL_KIND_COUNT && kind_names[kind] ? kind_names[kind] : "unknown collective";
}

/* SYMHEAP_FAULT's op= names the collectives by their kind names; the
 * barriers count as the fault parser's own "barrier". */
_Static_assert(SYM_FAULT_OP_LAYER_BASE + SYM_COLL_KIND_COUNT <= SYM_FAULT_OP_MAX,
               "every collective has a fault op");
static int fault_op(enum sym_coll_kind kind)
{
    if (kind == SYM_COLL_BARRIER || kind == SYM_COLL_BARRIER_ALL)
        return SYM_FAULT_OP_BARRIER;
    return SYM_FAULT_OP_LAYER_BASE + (int)kind;
}

/* The fault parser (base layer) learns these names from here, before main:
 * SYMHEAP_FAULT is parsed by sym_init's first step, and by tools and tests
 * that never initialise anything. */
__attribute__((constructor)) static void register_fault_ops(void)
{
    const char *names[SYM_COLL_KIND_COUNT] = {NULL};
    for (int k = 1; k < SYM_COLL_KIND_COUNT; k++)
        if (fault_op((enum sym_coll_kind)k) != SYM_FAULT_OP_BARRIER)
            names[k] = kind_names[k];
    sym_fault_register_ops(SYM_FAULT_OP_LAYER_BASE, names, SYM_COLL_KIND_COUNT);
}

/* config.c has already checked the word against the variable's
 * {auto|...} list: a word that is no algorithm is a table error.  NULL:
 * the kind has no variable. */
static sym_status_t env_parse(enum sym_coll_kind kind, const sym_cfg_choice_t *choice)
{
    const char *word = choice ? choice->s : "auto";
    for (int a = SYM_ALGO_AUTO; a <= SYM_ALGO_LAST; a++)
        if (!strcmp(word, sym_algorithm_name((sym_algorithm_t)a))) {
            env_algo[kind] = kind_algos[kind] & (1u << a) ? (sym_algorithm_t)a : SYM_ALGO_AUTO;
            return SYM_OK;
        }
    return sym_error(SYM_ERR_INTERNAL,
                     "sym_init: the algorithm variable of %s holds '%s', "
                     "which is not an algorithm",
                     sym_coll_kind_name(kind), word);
}

sym_status_t sym_coll_config_init(const struct sym_config *cfg)
{
    sym_status_t st = SYM_OK;
#define SYM_ENV(field) &cfg->field
#define SYM_NO_ENV     NULL
#define KIND_ENV_(KIND, name, env, algos, shape, ...)                                              \
    if (st == SYM_OK)                                                                              \
        st = env_parse(SYM_COLL_##KIND, env);
    SYM_COLL_LIST(KIND_ENV_)
#undef KIND_ENV_
#undef SYM_NO_ENV
#undef SYM_ENV
    sym_coll_strict = !strcmp(cfg->coll_check.s, "strict");
    if (st == SYM_OK)
        st = sym_tuning_init(cfg->coll_tuning.s);
    if (st == SYM_OK)
        sym_barrier_all_choose(env_algo[SYM_COLL_BARRIER_ALL]);
    return st;
}

SYM_API const char *sym_algorithm_name(sym_algorithm_t algo)
{
    static const char *const names[] = {"auto", "naive",    "ring",  "tree",
                                        "rd",   "pairwise", "direct"};
    return (unsigned)algo < sizeof(names) / sizeof(names[0]) ? names[algo] : "invalid-algorithm";
}

/* What each kind is (coll_list.h's ROOTED, REDUCES, BLOCKS). */
static const struct {
    bool rooted, reduces;
    int blocks; /* SYM_BLOCKS_*: 1, or 0 for one per member */
} kind_is[SYM_COLL_KIND_COUNT] = {
#define KIND_IS_(KIND, name, env, algos, shape, rooted, reduces, blocks, ...)                      \
    [SYM_COLL_##KIND] = {rooted, reduces, SYM_BLOCKS_##blocks},
    SYM_COLL_LIST(KIND_IS_)
#undef KIND_IS_
};

static bool kind_reduces(enum sym_coll_kind kind)
{
    return kind_is[kind].reduces;
}

static bool kind_rooted(enum sym_coll_kind kind)
{
    return kind_is[kind].rooted;
}

sym_status_t sym_coll_prepare(struct sym_coll *c, const char *name, sym_team_t team,
                              enum sym_coll_kind kind, sym_datatype_t dt, sym_op_t op, size_t count,
                              int root, const sym_coll_opts_t *opts)
{
    /* taken before earlier requests run: their calls note their own */
    const void *caller = sym_coll_take_caller();
    sym_status_t st = sym_team_check(name, team);
    if (st != SYM_OK)
        return st;
    /* earlier non-blocking calls on the team go first, as on every member */
    if ((st = sym_requests_drain_team(team)) != SYM_OK)
        return st;
    if (!team->broken && sym_flag_load(team->chan.poison_off)) {
        /* a member found an error in an earlier call that completed here */
        struct sym_coll probe = {.team = team, .name = name};
        probe.fp.seq = team->coll_seq;
        sym_status_t why = sym_chan_poisoned(&probe);
        sym_team_break(team, why, sym_last_error());
    }
    if (team->broken)
        return sym_error(team->broken, "%s on %s: the team is broken by an earlier error (%s); %s",
                         name, team->name, team->broken_msg,
                         team == sym_team_world()
                             ? "every member may call sym_team_recover() to go on"
                             : "every member may call sym_team_recover() to go on, or destroy it");
    if (kind != SYM_COLL_BARRIER && kind != SYM_COLL_TEAM_SPLIT && !sym_datatype_valid(dt))
        return sym_error(SYM_ERR_INVALID_ARG, "%s on %s: %d is not a sym_datatype_t", name,
                         team->name, (int)dt);
    if (kind_reduces(kind)) {
        if (op < SYM_OP_SUM || op > SYM_OP_BXOR)
            return sym_error(SYM_ERR_INVALID_ARG, "%s on %s: %d is not a sym_op_t", name,
                             team->name, (int)op);
        if (op >= SYM_OP_BAND && sym_datatype_is_float(dt))
            return sym_error(SYM_ERR_INVALID_ARG, "%s on %s: bitwise op %s on floating type %s",
                             name, team->name, sym_op_name(op), sym_datatype_name(dt));
    } else {
        op = 0;
    }
    if (kind != SYM_COLL_BARRIER && kind != SYM_COLL_TEAM_SPLIT) {
        /* Sizes are computed in bytes everywhere below: a count whose
         * bytes (times the team's blocks) wrap around would move a wrong,
         * small amount, or run off the caller's buffers. */
        size_t blocks = kind_is[kind].blocks ? (size_t)kind_is[kind].blocks : (size_t)team->size;
        size_t bytes;
        if (__builtin_mul_overflow(count, sym_datatype_size(dt), &bytes) ||
            __builtin_mul_overflow(bytes, blocks, &bytes) || bytes > (size_t)PTRDIFF_MAX)
            return sym_error(SYM_ERR_INVALID_ARG,
                             "%s on %s: %zu elements of %s%s overflow the "
                             "address space",
                             name, team->name, count, sym_datatype_name(dt),
                             blocks > 1 ? " per member" : "");
    }
    if (kind_rooted(kind) && (root < 0 || root >= team->size))
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s on %s: root %d is not a member (the team has "
                         "%d PEs)",
                         name, team->name, root, team->size);
    if (opts && sym_timeout_check(name, opts->timeout_s, true) != SYM_OK)
        return SYM_ERR_INVALID_ARG;
    if (opts && ((unsigned)opts->algorithm > SYM_ALGO_LAST))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %d is not a sym_algorithm_t", name,
                         (int)opts->algorithm);
    memset(c, 0, sizeof(*c));
    c->team = team;
    c->name = name;
    c->fp.kind = kind;
    c->fp.dtype = (uint32_t)dt;
    c->fp.op = (uint32_t)op;
    c->fp.count = count;
    c->fp.root = kind_rooted(kind) ? root : -1;
    c->timeout_s = opts && opts->timeout_s > 0 ? opts->timeout_s : team->timeout_s;
    /* the message names what set the limit */
    c->dl = sym_deadline_named(name, c->timeout_s,
                               opts && opts->timeout_s > 0 ? "sym_coll_opts_t.timeout_s"
                               : team->timeout_s > 0       ? "sym_team_set_timeout"
                                                           : NULL);
    c->caller = caller;
    return SYM_OK;
}

void sym_coll_start(struct sym_coll *c)
{
    c->fp.seq = ++c->team->coll_seq;
    if (__builtin_expect(c->caller != NULL, 0)) {
        /* strict: a skipped call whose arguments equal the next one's */
        c->site = sym_coll_site_word(c->caller);
        c->fp.layout ^= sym_coll_site_hash(c->site);
    }
    /* teams run barriers inside split and destroy: only the user's count */
    const int op = fault_op((enum sym_coll_kind)c->fp.kind);
    if (__builtin_expect(sym_fault_op == op, 0) &&
        (op != SYM_FAULT_OP_BARRIER || !strcmp(c->name, "sym_barrier")))
        sym_fault_hit();
    if (sym_rt.cfg.debug && c->algo_source)
        sym_debug("%s #%" PRIu64 " on %s: count %" PRIu64 " %s, algorithm %s (%s)", c->name,
                  c->fp.seq, c->team->name, c->fp.count,
                  sym_datatype_name((sym_datatype_t)c->fp.dtype),
                  sym_algorithm_name((sym_algorithm_t)c->fp.algo), c->algo_source);
}

sym_status_t sym_coll_begin(struct sym_coll *c, const char *name, sym_team_t team,
                            enum sym_coll_kind kind, sym_datatype_t dt, sym_op_t op, size_t count,
                            int root, const sym_coll_opts_t *opts)
{
    sym_status_t st = sym_coll_prepare(c, name, team, kind, dt, op, count, root, opts);
    if (st == SYM_OK) {
        c->caller = NULL; /* the library's own calls (team split, destroy) */
        sym_coll_start(c);
    }
    return st;
}

sym_status_t sym_coll_select(struct sym_coll *c, const sym_coll_opts_t *opts, uint64_t size)
{
    const unsigned supported = kind_algos[c->fp.kind];
    const sym_algorithm_t automatic =
        sym_coll_auto(c->fp.kind, c->team, size, opts && opts->symmetric);
    sym_algorithm_t algo = opts ? opts->algorithm : SYM_ALGO_AUTO;
    const char *source = "per call";
    if (algo == SYM_ALGO_AUTO) {
        algo = env_algo[c->fp.kind];
        source = "environment";
    }
    if (algo == SYM_ALGO_AUTO) {
        algo = automatic;
        source = "automatic";
    }
    if (!(supported & (1u << algo))) {
        char list[96] = "";
        size_t used = 0;
        for (int a = SYM_ALGO_NAIVE; a <= SYM_ALGO_LAST && used < sizeof(list); a++)
            if (supported & (1u << a))
                used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s", used ? ", " : "",
                                         sym_algorithm_name((sym_algorithm_t)a));
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s: algorithm '%s' (%s) is not available for %s "
                         "(choose one of: %s)",
                         c->name, sym_algorithm_name(algo), source, sym_coll_kind_name(c->fp.kind),
                         list);
    }
    const char *why = NULL;
    if (algo == SYM_ALGO_DIRECT && !sym_direct_usable(c->team, &why)) {
        /* the same verdict on every member: all fall back alike */
        if (sym_rt.cfg.debug)
            sym_debug("%s on %s: direct is not usable (%s): %s instead", c->name, c->team->name,
                      why, sym_algorithm_name(automatic));
        algo = automatic;
        source = "automatic, direct not usable here";
    }
    c->fp.algo = (uint32_t)algo;
    c->algo_source = source;
    return SYM_OK;
}

sym_status_t sym_coll_end(struct sym_coll *c, sym_status_t st)
{
    if (st == SYM_OK && __builtin_expect(c->caller != NULL, 0))
        st = sym_coll_check_end(c);
    /* A member found an error after this PE's part of an earlier call (or
     * of this one) was done, or gave up on the team while this PE was in
     * the call (it timed out waiting for this late PE): report it now, so
     * the team is broken on every member and a late PE does not succeed
     * alone. */
    if (st == SYM_OK && c->fp.kind != SYM_COLL_P2P &&
        __builtin_expect(sym_flag_load(c->team->chan.poison_off) != 0, 0))
        st = sym_chan_poisoned(c);
    if (st == SYM_OK) {
        sym_chan_publish_done(c);
        return st;
    }
    /* An error from below that does not name the call (the channel names
     * it, its transport errors included): say which collective call it
     * broke. */
    if (!strstr(sym_last_error(), c->name)) {
        char below[768];
        snprintf(below, sizeof(below), "%s", sym_last_error());
        sym_error(st, "%s #%" PRIu64 " on %s: %s", c->name, c->fp.seq, c->team->name, below);
    }
    if (st == SYM_ERR_TIMEOUT && c->fp.kind != SYM_COLL_P2P &&
        !sym_flag_load(c->team->chan.poison_off))
        /* tell the members this PE gave up, a late one included */
        sym_chan_poison(c, st, sym_last_error());
    if (st != SYM_ERR_INVALID_ARG)
        sym_team_break(c->team, st, sym_last_error());
    return st;
}
