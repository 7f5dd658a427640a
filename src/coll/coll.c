/* coll.c - the call context shared by every collective. */
#include <inttypes.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/request.h"

const char *sym_coll_kind_name(uint32_t kind)
{
    static const char *const names[SYM_COLL_KIND_COUNT] = {
        [SYM_COLL_BARRIER] = "barrier",
        [SYM_COLL_BROADCAST] = "broadcast",
        [SYM_COLL_REDUCE] = "reduce",
        [SYM_COLL_ALLREDUCE] = "allreduce",
        [SYM_COLL_REDUCE_SCATTER] = "reduce_scatter",
        [SYM_COLL_ALL_GATHER] = "all_gather",
        [SYM_COLL_ALL_GATHERV] = "all_gatherv",
        [SYM_COLL_ALL_TO_ALL] = "all_to_all",
        [SYM_COLL_ALL_TO_ALLV] = "all_to_allv",
        [SYM_COLL_GATHER] = "gather",
        [SYM_COLL_SCATTER] = "scatter",
        [SYM_COLL_TEAM_SPLIT] = "team split",
    };
    return kind < SYM_COLL_KIND_COUNT && names[kind] ? names[kind] : "unknown collective";
}

SYM_API const char *sym_algorithm_name(sym_algorithm_t algo)
{
    static const char *const names[] = { "auto", "naive", "ring", "tree", "rd", "pairwise" };
    return (unsigned)algo < sizeof(names) / sizeof(names[0]) ? names[algo] : "invalid-algorithm";
}

static bool kind_reduces(enum sym_coll_kind kind)
{
    return kind == SYM_COLL_REDUCE || kind == SYM_COLL_ALLREDUCE ||
           kind == SYM_COLL_REDUCE_SCATTER;
}

static bool kind_rooted(enum sym_coll_kind kind)
{
    return kind == SYM_COLL_BROADCAST || kind == SYM_COLL_REDUCE || kind == SYM_COLL_GATHER ||
           kind == SYM_COLL_SCATTER;
}

sym_status_t sym_coll_begin(struct sym_coll *c, const char *name, sym_team_t team,
                            enum sym_coll_kind kind, sym_datatype_t dt, sym_op_t op,
                            size_t count, int root, const sym_coll_opts_t *opts)
{
    sym_status_t st = sym_team_check(name, team);
    if (st != SYM_OK)
        return st;
    /* earlier non-blocking calls on the team go first, as on every member */
    if ((st = sym_requests_drain_team(team)) != SYM_OK)
        return st;
    if (!team->broken && sym_flag_load(team->chan.poison_off)) {
        /* a member found an error in an earlier call that completed here */
        struct sym_coll probe = { .team = team, .name = name };
        probe.fp.seq = team->coll_seq;
        sym_status_t why = sym_chan_poisoned(&probe);
        sym_team_break(team, why, sym_last_error());
    }
    if (team->broken)
        return sym_error(team->broken, "%s on %s: the team is broken by an earlier error (%s); "
                         "destroy it", name, team->name, team->broken_msg);
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
        size_t blocks = kind == SYM_COLL_REDUCE_SCATTER || kind == SYM_COLL_ALL_GATHER ||
                                kind == SYM_COLL_ALL_TO_ALL || kind == SYM_COLL_GATHER ||
                                kind == SYM_COLL_SCATTER
                            ? (size_t)team->size
                            : 1;
        size_t bytes;
        if (__builtin_mul_overflow(count, sym_datatype_size(dt), &bytes) ||
            __builtin_mul_overflow(bytes, blocks, &bytes) || bytes > (size_t)PTRDIFF_MAX)
            return sym_error(SYM_ERR_INVALID_ARG, "%s on %s: %zu elements of %s%s overflow the "
                             "address space", name, team->name, count, sym_datatype_name(dt),
                             blocks > 1 ? " per member" : "");
    }
    if (kind_rooted(kind) && (root < 0 || root >= team->size))
        return sym_error(SYM_ERR_INVALID_ARG, "%s on %s: root %d is not a member (the team has "
                         "%d PEs)", name, team->name, root, team->size);
    if (opts && (opts->timeout_s < 0 || opts->timeout_s != opts->timeout_s))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: timeout %g s is negative", name,
                         opts->timeout_s);
    if (opts && ((unsigned)opts->algorithm > SYM_ALGO_PAIRWISE))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: %d is not a sym_algorithm_t", name,
                         (int)opts->algorithm);
    memset(c, 0, sizeof(*c));
    c->team = team;
    c->name = name;
    c->fp.seq = ++team->coll_seq;
    c->fp.kind = kind;
    c->fp.dtype = (uint32_t)dt;
    c->fp.op = (uint32_t)op;
    c->fp.count = count;
    c->fp.root = kind_rooted(kind) ? root : -1;
    c->timeout_s = opts && opts->timeout_s > 0 ? opts->timeout_s : team->timeout_s;
    sym_fault_point_coll(kind, name);
    return SYM_OK;
}

static const char *env_choice(enum sym_coll_kind kind)
{
    const struct sym_config *cfg = &sym_rt.cfg;
    switch (kind) {
    case SYM_COLL_BARRIER: return cfg->barrier_algorithm.s;
    case SYM_COLL_BROADCAST: return cfg->broadcast_algorithm.s;
    case SYM_COLL_REDUCE: return cfg->reduce_algorithm.s;
    case SYM_COLL_ALLREDUCE: return cfg->allreduce_algorithm.s;
    case SYM_COLL_REDUCE_SCATTER: return cfg->reduce_scatter_algorithm.s;
    case SYM_COLL_ALL_GATHER:
    case SYM_COLL_ALL_GATHERV: return cfg->all_gather_algorithm.s;
    case SYM_COLL_ALL_TO_ALL:
    case SYM_COLL_ALL_TO_ALLV: return cfg->all_to_all_algorithm.s;
    case SYM_COLL_GATHER: return cfg->gather_algorithm.s;
    case SYM_COLL_SCATTER: return cfg->scatter_algorithm.s;
    default: return "auto";
    }
}

sym_status_t sym_coll_select(struct sym_coll *c, const sym_coll_opts_t *opts, unsigned supported,
                             sym_algorithm_t automatic)
{
    sym_algorithm_t algo = opts ? opts->algorithm : SYM_ALGO_AUTO;
    const char *source = "per call";
    if (algo == SYM_ALGO_AUTO) {
        const char *env = env_choice(c->fp.kind);
        source = "environment";
        /* the usual "auto" skips the name loop: small calls are latency-bound */
        for (int a = strcmp(env, "auto") ? SYM_ALGO_NAIVE : SYM_ALGO_PAIRWISE + 1;
             a <= SYM_ALGO_PAIRWISE; a++)
            if (!strcmp(env, sym_algorithm_name((sym_algorithm_t)a)))
                algo = (sym_algorithm_t)a;
        /* one variable serves a pair (all_to_all/all_to_allv): a choice
         * only one of them has leaves the other automatic */
        if (!(supported & (1u << algo)))
            algo = SYM_ALGO_AUTO;
    }
    if (algo == SYM_ALGO_AUTO) {
        algo = automatic;
        source = "automatic";
    }
    if (!(supported & (1u << algo))) {
        char list[96] = "";
        size_t used = 0;
        for (int a = SYM_ALGO_NAIVE; a <= SYM_ALGO_PAIRWISE && used < sizeof(list); a++)
            if (supported & (1u << a))
                used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s",
                                         used ? ", " : "", sym_algorithm_name((sym_algorithm_t)a));
        /* undo the sequence number: the call never started */
        c->team->coll_seq--;
        return sym_error(SYM_ERR_INVALID_ARG, "%s: algorithm '%s' (%s) is not available for %s "
                         "(choose one of: %s)", c->name, sym_algorithm_name(algo), source,
                         sym_coll_kind_name(c->fp.kind), list);
    }
    c->fp.algo = (uint32_t)algo;
    if (sym_rt.cfg.debug)
        sym_debug("%s #%" PRIu64 " on %s: count %" PRIu64 " %s, algorithm %s (%s)", c->name,
                  c->fp.seq, c->team->name, c->fp.count,
                  sym_datatype_name((sym_datatype_t)c->fp.dtype), sym_algorithm_name(algo),
                  source);
    return SYM_OK;
}

sym_status_t sym_coll_end(struct sym_coll *c, sym_status_t st)
{
    if (st == SYM_OK)
        return st;
    /* An error from below the collective names only the transport call
     * that failed (over ofi: "sym_put_signal: PE 3 was killed ..." from a
     * completion wait): say which collective call it broke. */
    if (!strstr(sym_last_error(), c->name)) {
        char below[768];
        snprintf(below, sizeof(below), "%s", sym_last_error());
        sym_error(st, "%s #%" PRIu64 " on %s: %s", c->name, c->fp.seq, c->team->name, below);
    }
    if (st != SYM_ERR_INVALID_ARG)
        sym_team_break(c->team, st, sym_last_error());
    return st;
}
