/*
 * bad_input.h - the bad-input table of test_bad_input: what a row's call can
 * reach (struct ctx), a row, and the macro that turns a list of rows into
 * their calls and a table.  The rows themselves are in test_bad_input_*.c;
 * test_bad_input.c runs them.
 */
#ifndef SYM_TEST_BAD_INPUT_H
#define SYM_TEST_BAD_INPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "harness.h"

#define PAGE 4096
/* a status no function returns: "the query gave its documented failure
 * value" (NULL, -1, 0, "invalid") */
#define FAILED_VALUE    ((sym_status_t)-1000)
#define SUCCEEDED_VALUE ((sym_status_t)-1001)

/* What a row's call can reach. */
struct ctx {
    int me, npes, right;
    uint8_t *sym;      /* symmetric: [guard page][target page][guard page] */
    uint8_t *tgt;      /* sym + PAGE: the symmetric target */
    uint8_t *loc;      /* local: [guard page][target page][guard page] */
    uint8_t *ltgt;     /* loc + PAGE */
    uint8_t *heap_end; /* one past the user heap */
    sym_team_t world, dead;
    size_t counts[HARNESS_MAX_PES];
    size_t huge_counts[HARNESS_MAX_PES];
    int members_dup[2], members_out[2];
    sym_request_t req;
    sym_team_t tout[2]; /* team outputs: SYM_TEAM_INVALID after any failure */
};

enum family { F_NONE, F_RMA, F_AMO, F_WAIT, F_MEM, F_TEAM, F_COLL, F_NB, F_P2P };

struct bad_row {
    const char *fn;   /* the function (named in the message when msg) */
    const char *what; /* the bad input */
    sym_status_t expect;
    bool msg;        /* a message naming fn is promised */
    enum family fam; /* valid call to make afterwards */
    sym_status_t (*call)(struct ctx *c);
};

static inline sym_status_t is_null(const void *p)
{
    return p == NULL ? FAILED_VALUE : SUCCEEDED_VALUE;
}

static inline sym_status_t is_neg(int v)
{
    return v == -1 ? FAILED_VALUE : SUCCEEDED_VALUE;
}

static inline sym_status_t is_zero(long v)
{
    return v == 0 ? FAILED_VALUE : SUCCEEDED_VALUE;
}

static inline sym_status_t is_str(const char *s, const char *want)
{
    return s && !strcmp(s, want) ? FAILED_VALUE : SUCCEEDED_VALUE;
}

/* Rows in order, one table per family of the API. */
struct bad_table {
    const struct bad_row *rows;
    size_t n;
};

extern const struct bad_table bad_rows_one_sided, bad_rows_teams_coll;

/* ROWS(ROW) lists rows as ROW(id, fn, what, expect, msg, family,
 * expression); BAD_TABLE(name, ROWS) defines call_<id>(c) returning the
 * expression for each row, and the table `name` of the rows in order. */
#define BAD_CALL_(id, fn, what, expect, msg, fam, expr)                                            \
    static sym_status_t call_##id(struct ctx *c)                                                   \
    {                                                                                              \
        (void)c;                                                                                   \
        return (expr);                                                                             \
    }
#define BAD_ENTRY_(id, fn, what, expect, msg, fam, expr) {fn, what, expect, msg, fam, call_##id},
#define BAD_TABLE(name, ROWS)                                                                      \
    ROWS(BAD_CALL_)                                                                                \
    static const struct bad_row name##_[] = {ROWS(BAD_ENTRY_)};                                    \
    const struct bad_table name = {name##_, sizeof(name##_) / sizeof(name##_[0])}

#endif
