/*
 * stress_coll.c - collective steps: every collective and algorithm, blocking
 * or in flight several at once, on live teams, verified against references.
 */
#include "stress_private.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

enum ckind {
    C_BARRIER,
    C_BCAST,
    C_REDUCE,
    C_ALLREDUCE,
    C_RSCATTER,
    C_ALLGATHER,
    C_ALLGATHERV,
    C_ALLTOALL,
    C_ALLTOALLV,
    C_GATHER,
    C_SCATTER,
    C_NKIND
};

static const char *const cnames[] = {"barrier",        "broadcast",  "reduce",      "allreduce",
                                     "reduce_scatter", "all_gather", "all_gatherv", "all_to_all",
                                     "all_to_allv",    "gather",     "scatter"};

static const sym_algorithm_t calgos[C_NKIND][5] = {
    [C_BARRIER] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE, SYM_ALGO_RD},
    [C_BCAST] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE},
    [C_REDUCE] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE},
    [C_ALLREDUCE] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_TREE, SYM_ALGO_RD},
    [C_RSCATTER] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING},
    [C_ALLGATHER] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_RD},
    [C_ALLGATHERV] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_RING, SYM_ALGO_RD},
    [C_ALLTOALL] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE},
    [C_ALLTOALLV] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE},
    [C_GATHER] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE},
    [C_SCATTER] = {SYM_ALGO_AUTO, SYM_ALGO_NAIVE, SYM_ALGO_TREE},
};

static const int ncalgos[C_NKIND] = {4, 4, 4, 5, 3, 4, 4, 3, 3, 3, 3};

/* One collective call on one entry: the parameters every PE draws, and
 * this PE's buffers. */
struct ccall {
    enum ckind kind;
    struct entry *e;
    sym_datatype_t dt;
    sym_op_t op;
    size_t count;
    uint64_t rroot; /* root = rroot % group size */
    bool inplace, inpos, null_dst, nb, use_test;
    sym_coll_opts_t opts;
    uint64_t rv[MAXPE * MAXPE]; /* raw draws for v-counts */
    size_t vmax;
    int salt;
    /* this PE's */
    const struct group *g;
    int rank, root;
    uint64_t keys[MAXPE]; /* input key of each member */
    size_t counts[MAXPE], scounts[MAXPE], rcounts[MAXPE];
    uint8_t *src, *dst;
    uint8_t *buf[2]; /* what to free */
    size_t src_bytes, dst_bytes;
    sym_request_t req;
};

static const sym_op_t int_ops[] = {SYM_OP_SUM, SYM_OP_PROD, SYM_OP_MIN, SYM_OP_MAX,
                                   SYM_OP_AVG, SYM_OP_BAND, SYM_OP_BOR, SYM_OP_BXOR};

static void ccall_draw(struct rng *r, struct ccall *c, struct entry *e, int salt, bool nb)
{
    memset(c, 0, sizeof(*c));
    c->e = e;
    c->salt = salt;
    c->nb = nb;
    c->kind = (enum ckind)rbelow(r, C_NKIND);
    c->dt = all_dts[rbelow(r, N_DTS)];
    c->op = int_ops[rbelow(r, dt_is_float(c->dt) ? 5 : 8)];
    c->opts.algorithm = calgos[c->kind][rbelow(r, (uint64_t)ncalgos[c->kind])];
    c->rroot = rnext(r);
    c->inplace = rchance(r, 20);
    c->inpos = rchance(r, 50);
    c->opts.timeout_s = rchance(r, 20) ? 45.0 : 0;
    c->null_dst = rchance(r, 50);
    c->use_test = rchance(r, 40);
    int gmax = 1;
    for (int g = 0; g < e->ngroups; g++)
        gmax = e->g[g].n > gmax ? e->g[g].n : gmax;
    size_t es = sym_datatype_size(c->dt);
    size_t per = stress_state.o.max_bytes / es;
    bool blocks = c->kind == C_RSCATTER || c->kind == C_ALLGATHER || c->kind == C_ALLTOALL ||
                  c->kind == C_GATHER || c->kind == C_SCATTER;
    if (blocks || c->kind == C_ALLGATHERV || c->kind == C_ALLTOALLV)
        per /= (size_t)gmax;
    c->count = pick_count(r, per);
    /* v-counts: each at most per / gmax so every buffer stays within max_bytes */
    c->vmax = rchance(r, 50) ? per : (per < 64 ? per : 64);
    if (c->kind == C_ALLTOALLV)
        c->vmax = c->vmax / (size_t)gmax;
    for (int i = 0; i < MAXPE * MAXPE; i++)
        c->rv[i] = rnext(r);
}

static void ccall_desc(const struct ccall *c, char *buf, size_t len)
{
    snprintf(buf, len, "%s%s on %s count %zu %s %s root%%%" PRIu64 " algo %s%s%s", c->nb ? "i" : "",
             cnames[c->kind], c->e->desc, c->count, sym_datatype_name(c->dt), sym_op_name(c->op),
             c->rroot % 1000, sym_algorithm_name(c->opts.algorithm),
             c->inplace ? (c->inpos ? " in-place (own block)" : " in-place") : "",
             c->nb ? (c->use_test ? " (test)" : " (wait)") : "");
}

/* Prepare this PE's buffers; false if this PE is not in the entry. */
static bool ccall_prepare(struct ccall *c)
{
    if (c->e->my_group < 0)
        return false;
    c->g = &c->e->g[c->e->my_group];
    const int m = c->g->n;
    for (int i = 0; i < m; i++) {
        if (c->g->pe[i] == stress_state.me)
            c->rank = i;
        c->keys[i] =
            key3(stress_state.step, (uint64_t)c->g->pe[i], K_DATA + 16 * (uint64_t)c->salt);
    }
    c->root = (int)(c->rroot % (uint64_t)m);
    const size_t es = sym_datatype_size(c->dt), n = c->count;
    const sym_op_t gop =
        (c->kind == C_REDUCE || c->kind == C_ALLREDUCE || c->kind == C_RSCATTER) ? c->op : 0;
    const uint64_t mykey = c->keys[c->rank];
    size_t sc = 0, dc = 0; /* element counts of src and dst */
    switch (c->kind) {
    case C_BARRIER:
        break;
    case C_BCAST:
        sc = dc = n;
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        sc = dc = n;
        break;
    case C_RSCATTER:
        sc = n * (size_t)m;
        dc = n;
        break;
    case C_ALLGATHER:
        sc = n;
        dc = n * (size_t)m;
        break;
    case C_ALLGATHERV:
        for (int i = 0; i < m; i++) {
            c->counts[i] = (size_t)(c->rv[i] % (c->vmax + 1));
            dc += c->counts[i];
        }
        sc = c->counts[c->rank];
        break;
    case C_ALLTOALL:
        sc = dc = n * (size_t)m;
        break;
    case C_ALLTOALLV:
        for (int j = 0; j < m; j++) {
            c->scounts[j] = (size_t)(c->rv[c->rank * MAXPE + j] % (c->vmax + 1));
            c->rcounts[j] = (size_t)(c->rv[j * MAXPE + c->rank] % (c->vmax + 1));
            sc += c->scounts[j];
            dc += c->rcounts[j];
        }
        break;
    case C_GATHER:
        sc = n;
        dc = n * (size_t)m;
        break;
    case C_SCATTER:
        sc = n * (size_t)m;
        dc = n;
        break;
    default:
        break;
    }
    c->src_bytes = sc * es;
    c->dst_bytes = dc * es;
    uint64_t fill =
        key3(stress_state.step, (uint64_t)stress_state.me, K_FILL + 16 * (uint64_t)c->salt);
    /* in place: one buffer big enough for both, the input at its start or
     * (inpos) where this PE's own block of the output goes */
    bool inplace = c->inplace && c->kind != C_BARRIER && c->kind != C_BCAST &&
                   c->kind != C_ALLTOALLV &&
                   !((c->kind == C_GATHER || c->kind == C_REDUCE) && c->rank != c->root);
    if (c->kind == C_SCATTER && c->rank != c->root)
        inplace = false;
    c->inplace = inplace;
    if (c->kind == C_BCAST) {
        c->src = c->dst = c->buf[0] = xmalloc(c->dst_bytes);
        if (c->rank == c->root)
            gen_elems(c->dst, n, c->dt, 0, mykey, 0);
        else
            fill_bytes(c->dst, c->dst_bytes, fill);
    } else if (inplace) {
        size_t b = c->src_bytes > c->dst_bytes ? c->src_bytes : c->dst_bytes;
        c->src = c->dst = c->buf[0] = xmalloc(b);
        fill_bytes(c->dst, b, fill);
        if (c->inpos) {
            size_t displ = 0;
            switch (c->kind) {
            case C_ALLGATHER:
                c->src += (size_t)c->rank * n * es;
                break;
            case C_ALLGATHERV:
                for (int i = 0; i < c->rank; i++)
                    displ += c->counts[i];
                c->src += displ * es;
                break;
            case C_GATHER:
                c->src += (size_t)c->root * n * es;
                break;
            case C_SCATTER:
                c->dst += (size_t)c->root * n * es;
                break;
            case C_RSCATTER:
                c->dst += (size_t)c->rank * n * es;
                break;
            default:
                c->inpos = false;
                break;
            }
        }
        gen_elems(c->src, sc, c->dt, gop, mykey, 0);
    } else {
        c->src = c->buf[0] = xmalloc(c->src_bytes);
        gen_elems(c->src, sc, c->dt, gop, mykey, 0);
        bool no_dst = c->null_dst && c->rank != c->root && c->kind == C_REDUCE;
        if (!no_dst) {
            c->dst = c->buf[1] = xmalloc(c->dst_bytes);
            fill_bytes(c->dst, c->dst_bytes, fill);
        }
    }
    return true;
}

static sym_status_t ccall_issue(struct ccall *c)
{
    sym_team_t t = c->e->team;
    const sym_coll_opts_t *o = &c->opts;
    void *d = c->dst;
    const void *s = c->src;
    size_t n = c->count;
    if (!c->nb) {
        switch (c->kind) {
        case C_BARRIER:
            stress_state.count[CNT_BARRIER]++;
            return sym_barrier(t, o);
        case C_BCAST:
            stress_state.count[CNT_BROADCAST]++;
            return sym_broadcast(t, d, n, c->dt, c->root, o);
        case C_REDUCE:
            stress_state.count[CNT_REDUCE]++;
            return sym_reduce(t, d, s, n, c->dt, c->op, c->root, o);
        case C_ALLREDUCE:
            stress_state.count[CNT_ALLREDUCE]++;
            return sym_allreduce(t, d, s, n, c->dt, c->op, o);
        case C_RSCATTER:
            stress_state.count[CNT_REDUCE_SCATTER]++;
            return sym_reduce_scatter(t, d, s, n, c->dt, c->op, o);
        case C_ALLGATHER:
            stress_state.count[CNT_ALL_GATHER]++;
            return sym_all_gather(t, d, s, n, c->dt, o);
        case C_ALLGATHERV:
            stress_state.count[CNT_ALL_GATHERV]++;
            return sym_all_gatherv(t, d, s, c->counts, c->dt, o);
        case C_ALLTOALL:
            stress_state.count[CNT_ALL_TO_ALL]++;
            return sym_all_to_all(t, d, s, n, c->dt, o);
        case C_ALLTOALLV:
            stress_state.count[CNT_ALL_TO_ALLV]++;
            return sym_all_to_allv(t, s, c->scounts, d, c->rcounts, c->dt, o);
        case C_GATHER:
            stress_state.count[CNT_GATHER]++;
            return sym_gather(t, d, s, n, c->dt, c->root, o);
        case C_SCATTER:
            stress_state.count[CNT_SCATTER]++;
            return sym_scatter(t, d, s, n, c->dt, c->root, o);
        default:
            return SYM_ERR_INTERNAL;
        }
    }
    sym_request_t *q = &c->req;
    switch (c->kind) {
    case C_BARRIER:
        stress_state.count[CNT_IBARRIER]++;
        return sym_ibarrier(t, o, q);
    case C_BCAST:
        stress_state.count[CNT_IBROADCAST]++;
        return sym_ibroadcast(t, d, n, c->dt, c->root, o, q);
    case C_REDUCE:
        stress_state.count[CNT_IREDUCE]++;
        return sym_ireduce(t, d, s, n, c->dt, c->op, c->root, o, q);
    case C_ALLREDUCE:
        stress_state.count[CNT_IALLREDUCE]++;
        return sym_iallreduce(t, d, s, n, c->dt, c->op, o, q);
    case C_RSCATTER:
        stress_state.count[CNT_IREDUCE_SCATTER]++;
        return sym_ireduce_scatter(t, d, s, n, c->dt, c->op, o, q);
    case C_ALLGATHER:
        stress_state.count[CNT_IALL_GATHER]++;
        return sym_iall_gather(t, d, s, n, c->dt, o, q);
    case C_ALLGATHERV:
        stress_state.count[CNT_IALL_GATHERV]++;
        return sym_iall_gatherv(t, d, s, c->counts, c->dt, o, q);
    case C_ALLTOALL:
        stress_state.count[CNT_IALL_TO_ALL]++;
        return sym_iall_to_all(t, d, s, n, c->dt, o, q);
    case C_ALLTOALLV:
        stress_state.count[CNT_IALL_TO_ALLV]++;
        return sym_iall_to_allv(t, s, c->scounts, d, c->rcounts, c->dt, o, q);
    case C_GATHER:
        stress_state.count[CNT_IGATHER]++;
        return sym_igather(t, d, s, n, c->dt, c->root, o, q);
    case C_SCATTER:
        stress_state.count[CNT_ISCATTER]++;
        return sym_iscatter(t, d, s, n, c->dt, c->root, o, q);
    default:
        return SYM_ERR_INTERNAL;
    }
}

static void ccall_complete(struct ccall *c)
{
    if (!c->nb)
        return;
    if (!c->use_test) {
        CALL(sym_wait(&c->req));
        stress_state.count[CNT_REQ_WAIT]++;
    } else {
        int done = 0;
        while (!done)
            CALL(sym_test(&c->req, &done));
        stress_state.count[CNT_REQ_TEST]++; /* requests completed by polling */
    }
    if (c->req != SYM_REQUEST_NULL)
        wrong("completed request handle was not reset to SYM_REQUEST_NULL");
}

static void ccall_verify(struct ccall *c)
{
    const int m = c->g->n, me = c->rank;
    const size_t es = sym_datatype_size(c->dt), n = c->count;
    uint8_t *want = xmalloc(c->dst_bytes > c->src_bytes ? c->dst_bytes : c->src_bytes);
    size_t check = c->dst_bytes; /* bytes of dst that are defined */
    uint64_t fill =
        key3(stress_state.step, (uint64_t)stress_state.me, K_FILL + 16 * (uint64_t)c->salt);
    if (c->dst && !c->inplace)
        fill_bytes(want, c->dst_bytes, fill);
    switch (c->kind) {
    case C_BARRIER:
        check = 0;
        break;
    case C_BCAST:
        gen_elems(want, n, c->dt, 0, c->keys[c->root], 0);
        break;
    case C_REDUCE:
        if (me == c->root)
            ref_reduce(want, c->dt, c->op, m, c->keys, 0, n);
        else if (!c->dst)
            check = 0;
        break;
    case C_ALLREDUCE:
        ref_reduce(want, c->dt, c->op, m, c->keys, 0, n);
        break;
    case C_RSCATTER:
        ref_reduce(want, c->dt, c->op, m, c->keys, (size_t)me * n, n);
        break;
    case C_ALLGATHER:
    case C_GATHER:
        if (c->kind == C_GATHER && me != c->root) {
            check = 0; /* a non-root's dst is not the call's to keep */
            break;
        }
        for (int i = 0; i < m; i++)
            gen_elems(want + (size_t)i * n * es, n, c->dt, 0, c->keys[i], 0);
        break;
    case C_ALLGATHERV: {
        size_t at = 0;
        for (int i = 0; i < m; i++) {
            gen_elems(want + at * es, c->counts[i], c->dt, 0, c->keys[i], 0);
            at += c->counts[i];
        }
        break;
    }
    case C_ALLTOALL:
        for (int i = 0; i < m; i++)
            gen_elems(want + (size_t)i * n * es, n, c->dt, 0, c->keys[i], (size_t)me * n);
        break;
    case C_ALLTOALLV: {
        size_t at = 0;
        for (int i = 0; i < m; i++) {
            size_t off = 0; /* where member i's block for me starts in its src */
            for (int j = 0; j < me; j++)
                off += (size_t)(c->rv[i * MAXPE + j] % (c->vmax + 1));
            gen_elems(want + at * es, c->rcounts[i], c->dt, 0, c->keys[i], off);
            at += c->rcounts[i];
        }
        break;
    }
    case C_SCATTER:
        gen_elems(want, n, c->dt, 0, c->keys[c->root], (size_t)me * n);
        break;
    default:
        break;
    }
    char name[64];
    snprintf(name, sizeof(name), "%s result (member %d of %d)", cnames[c->kind], me, m);
    if (check)
        check_buf(c->dst, want, check, es, name);
    /* inputs are never modified (unless in place) */
    if (!c->inplace && c->kind != C_BCAST && c->src_bytes) {
        const sym_op_t gop =
            (c->kind == C_REDUCE || c->kind == C_ALLREDUCE || c->kind == C_RSCATTER) ? c->op : 0;
        size_t sc = c->src_bytes / es;
        gen_elems(want, sc, c->dt, gop, c->keys[me], 0);
        snprintf(name, sizeof(name), "%s source (member %d of %d)", cnames[c->kind], me, m);
        check_buf(c->src, want, c->src_bytes, es, name);
    }
    free(want);
    free(c->buf[0]);
    free(c->buf[1]);
    c->src = c->dst = c->buf[0] = c->buf[1] = NULL;
}

static struct entry *pick_entry(struct rng *r)
{
    int k = (int)rbelow(r, (uint64_t)live_entries());
    for (int i = 0; i < MAX_ENTRIES; i++)
        if (stress_state.ent[i].live && k-- == 0)
            return &stress_state.ent[i];
    return &stress_state.ent[0];
}

void step_coll(struct rng *r, bool nb)
{
    int nc = nb ? 1 + (int)rbelow(r, MAX_BATCH) : 1;
    struct ccall c[MAX_BATCH];
    char desc[MAX_BATCH][160];
    for (int i = 0; i < nc; i++) {
        ccall_draw(r, &c[i], pick_entry(r), i, nb);
        ccall_desc(&c[i], desc[i], sizeof(desc[i]));
    }
    if (nc == 1)
        set_what("%s", desc[0]);
    else if (nc == 2)
        set_what("%s; %s", desc[0], desc[1]);
    else
        set_what("%s; %s; %s", desc[0], desc[1], desc[2]);
    bool in[MAX_BATCH];
    for (int i = 0; i < nc; i++) {
        in[i] = ccall_prepare(&c[i]);
        if (in[i]) {
            sym_status_t st = ccall_issue(&c[i]);
            if (st != SYM_OK)
                die(desc[i], st);
        }
    }
    /* a blocking collective on a team first completes its pending requests */
    bool mid_barrier = nb && rchance(r, 30);
    sym_coll_opts_t bo = {.algorithm = calgos[C_BARRIER][rbelow(r, 4)]};
    if (mid_barrier && c[0].e->my_group >= 0) {
        CALL(sym_barrier(c[0].e->team, &bo));
        stress_state.count[CNT_BARRIER]++;
    }
    /* complete in an order of this PE's own */
    struct rng mine = rng_for(stress_state.step, (uint64_t)stress_state.me, K_ORDER);
    int order[MAX_BATCH] = {0, 1, 2};
    for (int i = nc - 1; i > 0; i--) {
        int j = (int)rbelow(&mine, (uint64_t)i + 1), t = order[i];
        order[i] = order[j];
        order[j] = t;
    }
    for (int k = 0; k < nc; k++) {
        int i = order[k];
        if (in[i]) {
            ccall_complete(&c[i]);
            ccall_verify(&c[i]);
        }
    }
}
