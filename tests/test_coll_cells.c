/*
 * test_coll_cells.c - collectives whose messages travel in the cells of
 * each link's queue (src/coll/chan_cells.c).
 *
 * On teams whose cells hold 256 bytes (the world's default area, and
 * split teams given 1 MiB; the cells take that much in a crowded job,
 * inline messages of up to 28 bytes otherwise), every collective at the
 * sizes around the bound (0, 1, odd, prime, the bound and one element
 * more), in place and not, every datatype and op, every algorithm, checked
 * against the locally computed references that the mailbox path is
 * checked against (test_coll_*.c), with the team's channel showing that
 * the messages of at most the bound took the cells and the larger ones the
 * slots.  Then senders 64 calls ahead of receivers blocked in a signal
 * wait, the queues wrapping many times, and loops on disjoint teams at
 * once.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <inttypes.h>
#include <string.h>

#include "coll/coll.h" /* the team's channel: which path the messages took */
#include "coll_check.h"

#define CELL  256 /* payload bytes of a cell on these teams */
#define DEPTH 64  /* cells per link */

/* The largest message the team's cells take in this job. */
static size_t bound_of(sym_team_t team)
{
    return sym_chan_cells_hold(&team->chan);
}

/* The library's default mailbox (the harness's is smaller), and split
 * teams' areas roomy enough for cells of 256 bytes too. */
static const char *const cells_env[] = {"SYMHEAP_MAILBOX_SIZE=4M", "SYMHEAP_TEAM_AREA_SIZE=1M",
                                        "SYMHEAP_HEAP_SIZE=32M", NULL};

/* ------------------------------------------------------------------------ */
/* Which path the messages took                                              */
/* ------------------------------------------------------------------------ */

struct paths {
    uint64_t cells, slots; /* messages through each, both ways, over all links */
};

static struct paths paths_of(sym_team_t team)
{
    const struct sym_chan *ch = &team->chan;
    struct paths p = {0, 0};
    for (int r = 0; r < ch->n; r++) {
        p.cells += ch->csent[r] + ch->crecvd[r];
        p.slots += ch->sent[r] + ch->recvd[r];
    }
    return p;
}

/* A call whose messages were all at most `largest` bytes took the cells
 * alone if that fits one, else the slots alone.  The direct algorithm
 * moves no message (its data is read where it lies), except all_to_allv's
 * small blocks, which follow the rule. */
static void expect_path(const struct tctx *t, sym_algorithm_t a, struct paths before,
                        size_t largest, const char *what)
{
    if (t->n == 1 || (a == SYM_ALGO_DIRECT && strncmp(what, "all_to_all", 10) != 0))
        return;
    const struct paths now = paths_of(t->team);
    const bool cells = largest <= bound_of(t->team);
    PE_ASSERT(cells ? now.slots == before.slots && now.cells > before.cells
                    : now.cells == before.cells && now.slots > before.slots,
              "%s on %s, largest message %zu bytes: %" PRIu64 " messages in cells and %" PRIu64
              " in slots (%s expected)",
              what, sym_team_name(t->team), largest, now.cells - before.cells,
              now.slots - before.slots, cells ? "cells only" : "slots only");
}

static size_t acc_size(sym_datatype_t dt, sym_op_t op)
{
    if (dt == SYM_FLOAT16 || dt == SYM_BFLOAT16)
        return 4;
    return op == SYM_OP_AVG && !dt_is_float(dt) ? 8 : dt_size(dt);
}

/* Counts of `unit`-byte elements on team t: 0, 1, odd, prime, the bound
 * and one element more. */
#define NSIZES 6
static void sizes_of(const struct tctx *t, size_t unit, size_t out[NSIZES])
{
    const size_t bound = bound_of(t->team);
    const size_t all[NSIZES] = {0, 1, 9, 13, bound / unit, bound / unit + 1};
    memcpy(out, all, sizeof(all));
}

/* Every (datatype, op) a reduction takes. */
static int red_pairs(sym_datatype_t dts[NDTS * NOPS], sym_op_t ops[NDTS * NOPS])
{
    int k = 0;
    for (int d = 0; d < NDTS; d++)
        for (int o = 0; o < NOPS; o++)
            if (op_valid(all_dts[d], all_ops[o])) {
                dts[k] = all_dts[d];
                ops[k++] = all_ops[o];
            }
    return k;
}

/* ------------------------------------------------------------------------ */
/* Every collective around the bound                                         */
/* ------------------------------------------------------------------------ */

static void broadcast_cells(struct tctx *t)
{
    size_t sizes[NSIZES];
    for (int d = 0; d < NDTS; d++) {
        const sym_datatype_t dt = all_dts[d];
        sizes_of(t, dt_size(dt), sizes);
        for (int s = 0; s < NSIZES; s++) {
            const sym_algorithm_t a = broadcast_algos[(size_t)(d + s) % NELEMS(broadcast_algos)];
            const struct paths p = paths_of(t->team);
            check_broadcast(t, a, dt, sizes[s], (d + s) % t->n);
            expect_path(t, a, p, sizes[s] * dt_size(dt), "broadcast");
        }
    }
}

/* Reduce, allreduce and reduce_scatter: every (datatype, op) at two of the
 * sizes in turn, and every algorithm at every size. */
static void reduction_cells(struct tctx *t, int kind)
{
    static const sym_algorithm_t *const algos[3] = {reduce_algos, allreduce_algos,
                                                    reduce_scatter_algos};
    static const size_t nalgos[3] = {NELEMS(reduce_algos), NELEMS(allreduce_algos),
                                     NELEMS(reduce_scatter_algos)};
    static const char *const names[3] = {"reduce", "allreduce", "reduce_scatter"};
    sym_datatype_t dts[NDTS * NOPS];
    sym_op_t ops[NDTS * NOPS];
    const int np = red_pairs(dts, ops);
    size_t sizes[NSIZES];
    for (int i = 0; i < np + (int)nalgos[kind] * NSIZES; i++) {
        const bool by_pair = i < np;
        const int j = by_pair ? i : i - np, pair = by_pair ? i : j * 7 % np;
        const sym_datatype_t dt = dts[pair];
        const sym_op_t op = ops[pair];
        sizes_of(t, acc_size(dt, op), sizes);
        for (int rep = 0; rep < (by_pair ? 2 : 1); rep++) {
            const size_t count = sizes[by_pair ? (i + 3 * rep) % NSIZES : j % NSIZES];
            const sym_algorithm_t a =
                algos[kind][by_pair ? (size_t)(i + rep) % nalgos[kind] : (size_t)j / NSIZES];
            const enum mode m = kind == 2 ? (enum mode)((i + rep) % 4) : (enum mode)((i + rep) % 3);
            const struct paths p = paths_of(t->team);
            if (kind == 2)
                check_reduce_scatter(t, a, dt, op, count, m);
            else
                check_reduction(t, kind == 0, a, dt, op, count, (i + rep) % t->n, m);
            expect_path(t, a, p, count * acc_size(dt, op), names[kind]);
        }
    }
}

static void reduce_cells(struct tctx *t)
{
    reduction_cells(t, 0);
    reduction_cells(t, 1);
    reduction_cells(t, 2);
}

/* all_gather, all_gatherv (members' blocks on both sides of the bound:
 * the call's largest decides), gather and scatter. */
static void gather_cells(struct tctx *t)
{
    size_t sizes[NSIZES], per[HARNESS_MAX_PES];
    for (int d = 0; d < NDTS; d++) {
        const sym_datatype_t dt = all_dts[d];
        const size_t es = dt_size(dt);
        sizes_of(t, es, sizes);
        for (int s = 0; s < NSIZES; s++) {
            const size_t c = sizes[s];
            const int k = d + s, root = k % t->n;
            sym_algorithm_t a = all_gather_algos[(size_t)k % NELEMS(all_gather_algos)];
            for (int r = 0; r < t->n; r++)
                per[r] = c;
            struct paths p = paths_of(t->team);
            check_gatherv_all(t, false, a, dt, per, (enum mode)(k % 4));
            expect_path(t, a, p, c * es, "all_gather");
            size_t largest = 0;
            for (int r = 0; r < t->n; r++) {
                per[r] = c + (size_t)((r + k) % 2) - (c && (r + k) % 3 == 0);
                largest = per[r] * es > largest ? per[r] * es : largest;
            }
            p = paths_of(t->team);
            check_gatherv_all(t, true, a, dt, per, (enum mode)((k + 1) % 4));
            expect_path(t, a, p, largest, "all_gatherv");
            a = gather_algos[(size_t)k % NELEMS(gather_algos)];
            /* naive: every message is one block, so all take one path */
            p = paths_of(t->team);
            check_gather(t, a, dt, c, root, k % 2 ? OWN : OUT);
            if (a == SYM_ALGO_NAIVE)
                expect_path(t, a, p, c * es, "gather");
            p = paths_of(t->team);
            check_scatter(t, a, dt, c, root, k % 2 ? OUT : OWN);
            if (a == SYM_ALGO_NAIVE)
                expect_path(t, a, p, c * es, "scatter");
        }
    }
}

/* Blocks on both sides of the bound in one all_to_allv: links choose
 * their path each by their own block. */
static size_t straddle_count(int from, int to, size_t c)
{
    return c + (size_t)((from + to) % 2);
}

static void all_to_all_cells(struct tctx *t)
{
    size_t sizes[NSIZES];
    for (int d = 0; d < NDTS; d++) {
        const sym_datatype_t dt = all_dts[d];
        sizes_of(t, dt_size(dt), sizes);
        for (int s = 0; s < NSIZES; s++) {
            const int k = d + s;
            const sym_algorithm_t a = all_to_all_algos[(size_t)k % NELEMS(all_to_all_algos)];
            const struct paths p = paths_of(t->team);
            check_alltoall(t, false, a, dt, uniform_count, sizes[s], (enum mode)(k % 3));
            expect_path(t, a, p, sizes[s] * dt_size(dt), "all_to_all");
            check_alltoall(t, true, a, dt, k % 2 ? ragged_count : straddle_count,
                           s == NSIZES - 1 ? sizes[s] - 1 : sizes[s], (enum mode)((k + 1) % 3));
        }
    }
}

static void barrier_cells(struct tctx *t)
{
    for (size_t a = 0; a < NELEMS(barrier_algos); a++) {
        const struct paths p = paths_of(t->team);
        check_barrier(t, barrier_algos[a], (int)a);
        expect_path(t, barrier_algos[a], p, 0, "barrier");
    }
}

static void check_shape(struct tctx *t)
{
    const struct sym_chan *ch = &t->team->chan;
    PE_ASSERT(ch->ncells == DEPTH && ch->cell_bytes == CELL,
              "%s (%d members): %d cells of %u bytes per link, expected %d of %d",
              sym_team_name(t->team), t->n, ch->ncells, (unsigned)ch->cell_bytes, DEPTH, CELL);
    const size_t bound = bound_of(t->team);
    PE_ASSERT(bound == (sym_coll_crowded() ? CELL : 28),
              "%s: the cells take messages of up to %zu bytes (crowded: %d)",
              sym_team_name(t->team), bound, (int)sym_coll_crowded());
}

static void cells_matrix(struct tctx *t)
{
    check_shape(t);
    barrier_cells(t);
    broadcast_cells(t);
    reduce_cells(t);
    gather_cells(t);
    all_to_all_cells(t);
}

/* Team sizes 1..8 occur among the world, strided and created teams of
 * these jobs; SYMHEAP_TEST_QUICK keeps 3 and 8. */
ParameterizedTestParameters(coll_cells, bound)
{
    static int all[] = {2, 3, 6, 8}, quick[] = {3, 8};
    if (getenv("SYMHEAP_TEST_QUICK"))
        return cr_make_param_array(int, quick, NELEMS(quick));
    return cr_make_param_array(int, all, NELEMS(all));
}

ParameterizedTest(int *npes, coll_cells, bound, .timeout = HARNESS_CR_TIMEOUT(120))
{
    static const struct team_job job = {cells_matrix};
    run_pes_env(*npes, cells_env, team_job_body, (void *)&job);
}

/* ------------------------------------------------------------------------ */
/* Senders 64 calls ahead of receivers blocked elsewhere                     */
/* ------------------------------------------------------------------------ */

#define ROUNDS 9 /* DEPTH calls each: every queue wraps ROUNDS times */
#define WORDS  (CELL / 8)

static uint64_t ra_word(int kind, int call, int pe, size_t i)
{
    return hkey((uint64_t)kind << 32 | (uint64_t)call, (uint64_t)pe, i);
}

/* Message sizes in turn: as large as the world's cells take, one inline
 * word, and between. */
static size_t ra_words(int call)
{
    const size_t most = bound_of(sym_team_world()) / 8;
    const size_t w[3] = {most, 1, (most + 1) / 2};
    return w[call % 3];
}

enum ra_kind { RA_BROADCAST, RA_REDUCE, RA_GATHER, RA_SCATTER, RA_KINDS };

/* Who runs ahead: the root of a broadcast or scatter, the members of a
 * reduce or gather. */
static bool ra_sender(int kind, int me)
{
    return (kind == RA_BROADCAST || kind == RA_SCATTER) == (me == 0);
}

static void ra_call(int kind, sym_algorithm_t a, int call, int me, int n)
{
    const size_t words = ra_words(call);
    uint64_t buf[WORDS], all[8 * WORDS];
    sym_coll_opts_t o = {.algorithm = a, .timeout_s = 0};
    sym_team_t w = sym_team_world();
    switch (kind) {
    case RA_BROADCAST:
        for (size_t i = 0; i < words; i++)
            buf[i] = me == 0 ? ra_word(kind, call, 0, i) : 0;
        PE_OK(sym_broadcast(w, buf, words, SYM_UINT64, 0, &o));
        for (size_t i = 0; i < words; i++)
            PE_ASSERT(buf[i] == ra_word(kind, call, 0, i), "broadcast %d word %zu", call, i);
        break;
    case RA_REDUCE:
        for (size_t i = 0; i < words; i++)
            buf[i] = ra_word(kind, call, me, i);
        PE_OK(sym_reduce(w, all, buf, words, SYM_UINT64, SYM_OP_BXOR, 0, &o));
        for (size_t i = 0; me == 0 && i < words; i++) {
            uint64_t want = 0;
            for (int r = 0; r < n; r++)
                want ^= ra_word(kind, call, r, i);
            PE_ASSERT(all[i] == want, "reduce %d word %zu", call, i);
        }
        break;
    case RA_GATHER:
        for (size_t i = 0; i < words; i++)
            buf[i] = ra_word(kind, call, me, i);
        PE_OK(sym_gather(w, all, buf, words, SYM_UINT64, 0, &o));
        for (int r = 0; me == 0 && r < n; r++)
            for (size_t i = 0; i < words; i++)
                PE_ASSERT(all[(size_t)r * words + i] == ra_word(kind, call, r, i),
                          "gather %d block %d word %zu", call, r, i);
        break;
    default:
        for (int r = 0; me == 0 && r < n; r++)
            for (size_t i = 0; i < words; i++)
                all[(size_t)r * words + i] = ra_word(kind, call, r, i);
        PE_OK(sym_scatter(w, buf, all, words, SYM_UINT64, 0, &o));
        for (size_t i = 0; i < words; i++)
            PE_ASSERT(buf[i] == ra_word(kind, call, me, i), "scatter %d word %zu", call, i);
        break;
    }
}

/* Each round the receivers first wait in sym_signal_wait_until until the
 * senders have made DEPTH calls, which they can only do without any
 * receiver taking a message: every link's queue full, nothing waited for.
 * The receivers then take them all, checking every word, while the
 * senders go on into the next round. */
static void runahead_body(int me, int n, void *arg)
{
    (void)arg;
    struct tctx world = world_ctx(0);
    check_shape(&world);
    uint64_t *go = sym_calloc(RA_KINDS, sizeof(uint64_t));
    PE_ASSERT(go, "sym_calloc: %s", sym_last_error());
    PE_OK(sym_barrier_all());
    for (int kind = 0; kind < RA_KINDS; kind++) {
        /* naive always; the tree where no inner member's range outgrows a
         * cell (a reduce's messages never do) */
        const sym_algorithm_t a = kind == RA_REDUCE ? SYM_ALGO_TREE : SYM_ALGO_NAIVE;
        const bool sender = ra_sender(kind, me);
        const uint64_t senders = kind == RA_BROADCAST || kind == RA_SCATTER ? 1 : (uint64_t)n - 1;
        for (int round = 0; round < ROUNDS; round++) {
            if (!sender)
                PE_OK(sym_signal_wait_until(&go[kind], SYM_CMP_GE, senders * (uint64_t)(round + 1),
                                            NULL));
            for (int i = 0; i < DEPTH; i++)
                ra_call(kind, a, round * DEPTH + i, me, n);
            if (sender)
                for (int r = 0; r < n; r++)
                    if (!ra_sender(kind, r))
                        PE_OK(sym_atomic_add64(&go[kind], 1, r));
        }
        PE_OK(sym_barrier_all());
    }
    PE_OK(sym_team_sync(sym_team_world()));
    sym_free(go);
}

ParameterizedTestParameters(coll_cells, runahead)
{
    static int sizes[] = {2, 3, 8};
    return cr_make_param_array(int, sizes, NELEMS(sizes));
}

ParameterizedTest(int *npes, coll_cells, runahead)
{
    run_pes_env(*npes, cells_env, runahead_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* Disjoint teams at once                                                    */
/* ------------------------------------------------------------------------ */

/* The even and the odd PEs, each on its own team, loop over small calls
 * of every kind (cells of both formats) at the same time, each result
 * checked: nothing of one team reaches the other. */
static void disjoint_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    sym_team_t rows, t;
    PE_OK(sym_team_split_2d(sym_team_world(), 2, &rows, &t));
    const int tn = sym_team_n_pes(t), tme = sym_team_my_pe(t);
    const int calls = getenv("SYMHEAP_TEST_QUICK") ? 60 : 240;
    uint64_t src[8 * WORDS], dst[8 * WORDS];
    size_t counts[8];
    for (int c = 0; c < calls; c++) {
        const size_t words = ra_words(c);
        const uint64_t tag = (uint64_t)(me % 2) << 40;
        for (int r = 0; r < tn; r++)
            for (size_t i = 0; i < words; i++)
                src[(size_t)r * words + i] = tag ^ ra_word(c, tme, r, i);
        PE_OK(sym_all_to_all(t, dst, src, words, SYM_UINT64, NULL));
        for (int r = 0; r < tn; r++)
            for (size_t i = 0; i < words; i++)
                PE_ASSERT(dst[(size_t)r * words + i] == (tag ^ ra_word(c, r, tme, i)),
                          "all_to_all %d from member %d word %zu", c, r, i);
        for (int r = 0; r < tn; r++)
            counts[r] = words - (size_t)(r % 2);
        PE_OK(sym_all_gatherv(t, dst, src, counts, SYM_UINT64, NULL));
        for (int r = 0, at = 0; r < tn; at += (int)counts[r++])
            for (size_t i = 0; i < counts[r]; i++)
                PE_ASSERT(dst[(size_t)at + i] == (tag ^ ra_word(c, r, 0, i)),
                          "all_gatherv %d from member %d word %zu", c, r, i);
        PE_OK(sym_allreduce(t, dst, src, words, SYM_UINT64, SYM_OP_SUM, NULL));
        for (size_t i = 0; i < words; i++) {
            uint64_t want = 0;
            for (int r = 0; r < tn; r++)
                want += tag ^ ra_word(c, r, 0, i);
            PE_ASSERT(dst[i] == want, "allreduce %d word %zu", c, i);
        }
        if (c % 5 == 4) /* now and then the world, across both teams */
            ra_call(RA_GATHER, SYM_ALGO_AUTO, c, me, n);
    }
    PE_OK(sym_team_sync(t));
    PE_OK(sym_team_destroy(t));
    PE_OK(sym_team_destroy(rows));
}

ParameterizedTestParameters(coll_cells, disjoint_teams)
{
    static int sizes[] = {4, 8};
    return cr_make_param_array(int, sizes, NELEMS(sizes));
}

ParameterizedTest(int *npes, coll_cells, disjoint_teams)
{
    run_pes_env(*npes, cells_env, disjoint_body, NULL);
}
