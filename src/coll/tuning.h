/*
 * tuning.h - the automatic choice of algorithm: one table for every
 * collective (the ladders of coll_list.h) and the direct algorithm's
 * thresholds, each overridable by SYMHEAP_COLL_TUNING.
 *
 * A ladder is a list of steps "algo:upto" ending with an unbounded "algo":
 * a call takes the first step whose bound its size (coll_list.h's BLOCKS)
 * does not exceed, skipping steps of the direct algorithm where that cannot
 * run on the team.  Every member of a team sees the same size, team,
 * regime and table, so all choose alike, as the fingerprint requires.
 *
 * SYMHEAP_COLL_TUNING is a ';'-separated list of key=value: a kind's ladder
 * for a regime (`allreduce.pair=naive:4K,direct,ring`), or a threshold of
 * the direct algorithm (`direct.cma_min=1M`, `direct.one_shot_max=256K`).
 * It must be the same on every PE.
 */
#ifndef SYM_COLL_TUNING_H
#define SYM_COLL_TUNING_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/coll.h"

/* Where a team runs, as far as the choice goes. */
enum sym_regime {
    SYM_REGIME_PAIR,    /* a team of one or two */
    SYM_REGIME_CROWDED, /* more, on a host whose PEs outnumber its CPUs */
    SYM_REGIME_SPREAD,  /* more, otherwise */
    SYM_REGIME_COUNT
};

/* The direct algorithm's thresholds. */
struct sym_tuning {
    /* SYMHEAP_CMA=auto: a private buffer of at least this many bytes is read
     * by cross-memory attach rather than staged */
    uint64_t cma_min;
    /* allreduce: one shot while (n - 1) * the vector's bytes is at most
     * this (every member reads every other's vector), else two */
    uint64_t one_shot_max;
    /* all_to_allv: a block of at least this many bytes is read directly,
     * smaller ones go through the mailboxes */
    uint64_t pair_min;
    /* a call whose caller says every member's buffers are symmetric
     * (sym_coll_opts_t.symmetric) takes the direct algorithm from this size
     * on, where it reads them in place: in teams of two and spread teams,
     * and in crowded ones (where a reader may wait for its owner to be
     * scheduled) from the second */
    uint64_t symmetric_min;
    uint64_t symmetric_crowded_min;
};
extern struct sym_tuning sym_tuning;

/* At init: the table from coll_list.h, then `overrides` (SYMHEAP_COLL_TUNING;
 * empty: none).  Errors: SYM_ERR_CONFIG naming the entry that is wrong. */
sym_status_t sym_tuning_init(const char *overrides);

enum sym_regime sym_coll_regime(const struct sym_team *team);

/* The size a kind's ladders compare: count * element size * BLOCKS. */
uint64_t sym_coll_size(enum sym_coll_kind kind, const struct sym_team *team, uint64_t count,
                       size_t esize);

/* The automatic choice for a call of `kind` of `size` bytes on `team`;
 * `symmetric`: the caller's word that every member's buffers are in the
 * symmetric heap (sym_coll_opts_t.symmetric). */
sym_algorithm_t sym_coll_auto(enum sym_coll_kind kind, struct sym_team *team, uint64_t size,
                              bool symmetric);

/* The table in force, one line per kind and regime, then the thresholds
 * (symheap-info, SYMHEAP_DEBUG). */
void sym_tuning_print(FILE *out);

#endif /* SYM_COLL_TUNING_H */
