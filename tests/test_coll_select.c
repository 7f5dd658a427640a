/*
 * test_coll_select.c - algorithm selection (per call, automatic, through the
 * environment) and chunk boundaries of every collective and algorithm.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "coll_check.h"

/* ------------------------------------------------------------------------ */
/* Algorithm selection                                                       */
/* ------------------------------------------------------------------------ */

enum kind {
    K_BARRIER,
    K_BROADCAST,
    K_REDUCE,
    K_ALLREDUCE,
    K_REDUCE_SCATTER,
    K_ALL_GATHER,
    K_ALL_GATHERV,
    K_ALL_TO_ALL,
    K_ALL_TO_ALLV,
    K_GATHER,
    K_SCATTER,
    K_COUNT
};

/* The bit of an algorithm in a kind's set. */
#define BIT(algo) (1u << SYM_ALGO_##algo)

static const struct kind_info {
    const char *name; /* as in the library's messages */
    unsigned algos;   /* bit (1 << algorithm) for each documented one */
    const char *env;  /* the variable that selects it */
    sym_algorithm_t env_pick, call_pick;
} kinds[K_COUNT] = {
    [K_BARRIER] = {"barrier", BIT(NAIVE) | BIT(TREE) | BIT(RD), "SYMHEAP_BARRIER_ALGORITHM=tree",
                   SYM_ALGO_TREE, SYM_ALGO_NAIVE},
    [K_BROADCAST] = {"broadcast", BIT(NAIVE) | BIT(RING) | BIT(TREE) | BIT(DIRECT),
                     "SYMHEAP_BROADCAST_ALGORITHM=ring", SYM_ALGO_RING, SYM_ALGO_TREE},
    [K_REDUCE] = {"reduce", BIT(NAIVE) | BIT(RING) | BIT(TREE) | BIT(DIRECT),
                  "SYMHEAP_REDUCE_ALGORITHM=ring", SYM_ALGO_RING, SYM_ALGO_NAIVE},
    [K_ALLREDUCE] = {"allreduce", BIT(NAIVE) | BIT(RING) | BIT(TREE) | BIT(RD) | BIT(DIRECT),
                     "SYMHEAP_ALLREDUCE_ALGORITHM=ring", SYM_ALGO_RING, SYM_ALGO_TREE},
    [K_REDUCE_SCATTER] = {"reduce_scatter", BIT(NAIVE) | BIT(RING) | BIT(DIRECT),
                          "SYMHEAP_REDUCE_SCATTER_ALGORITHM=ring", SYM_ALGO_RING, SYM_ALGO_NAIVE},
    [K_ALL_GATHER] = {"all_gather", BIT(NAIVE) | BIT(RING) | BIT(RD) | BIT(DIRECT),
                      "SYMHEAP_ALL_GATHER_ALGORITHM=rd", SYM_ALGO_RD, SYM_ALGO_RING},
    [K_ALL_GATHERV] = {"all_gatherv", BIT(NAIVE) | BIT(RING) | BIT(RD) | BIT(DIRECT),
                       "SYMHEAP_ALL_GATHER_ALGORITHM=ring", SYM_ALGO_RING, SYM_ALGO_RD},
    [K_ALL_TO_ALL] = {"all_to_all", BIT(NAIVE) | BIT(PAIRWISE) | BIT(DIRECT),
                      "SYMHEAP_ALL_TO_ALL_ALGORITHM=pairwise", SYM_ALGO_PAIRWISE, SYM_ALGO_NAIVE},
    [K_ALL_TO_ALLV] = {"all_to_allv", BIT(NAIVE) | BIT(PAIRWISE) | BIT(DIRECT),
                       "SYMHEAP_ALL_TO_ALL_ALGORITHM=naive", SYM_ALGO_NAIVE, SYM_ALGO_PAIRWISE},
    [K_GATHER] = {"gather", BIT(NAIVE) | BIT(TREE) | BIT(DIRECT), "SYMHEAP_GATHER_ALGORITHM=tree",
                  SYM_ALGO_TREE, SYM_ALGO_NAIVE},
    [K_SCATTER] = {"scatter", BIT(NAIVE) | BIT(TREE) | BIT(DIRECT),
                   "SYMHEAP_SCATTER_ALGORITHM=naive", SYM_ALGO_NAIVE, SYM_ALGO_TREE},
};

/* A small valid call of collective k on the world (2 elements per block,
 * int32), checked for the right data. */
static sym_status_t call_kind(enum kind k, const sym_coll_opts_t *o)
{
    const sym_team_t w = sym_team_world();
    const int n = sym_n_pes(), me = sym_my_pe();
    int32_t src[2 * HARNESS_MAX_PES], dst[2 * HARNESS_MAX_PES];
    size_t cnt[HARNESS_MAX_PES];
    for (int i = 0; i < 2 * n; i++) {
        src[i] = 1000 * me + i;
        dst[i] = -1;
    }
    for (int i = 0; i < n; i++)
        cnt[i] = 2;
    sym_status_t st = SYM_ERR_INTERNAL;
    bool ok = true;
    switch (k) {
    case K_BARRIER:
        st = sym_barrier(w, o);
        break;
    case K_BROADCAST:
        st = sym_broadcast(w, src, 2, SYM_INT32, 0, o);
        ok = src[1] == 1;
        break;
    case K_REDUCE:
        st = sym_reduce(w, dst, src, 2, SYM_INT32, SYM_OP_MAX, 0, o);
        ok = me != 0 || dst[1] == 1000 * (n - 1) + 1;
        break;
    case K_ALLREDUCE:
        st = sym_allreduce(w, dst, src, 2, SYM_INT32, SYM_OP_MAX, o);
        ok = dst[1] == 1000 * (n - 1) + 1;
        break;
    case K_REDUCE_SCATTER:
        st = sym_reduce_scatter(w, dst, src, 2, SYM_INT32, SYM_OP_MAX, o);
        ok = dst[1] == 1000 * (n - 1) + 2 * me + 1;
        break;
    case K_ALL_GATHER:
        st = sym_all_gather(w, dst, src, 2, SYM_INT32, o);
        ok = dst[2 * n - 1] == 1000 * (n - 1) + 1;
        break;
    case K_ALL_GATHERV:
        st = sym_all_gatherv(w, dst, src, cnt, SYM_INT32, o);
        ok = dst[2 * n - 1] == 1000 * (n - 1) + 1;
        break;
    case K_ALL_TO_ALL:
        st = sym_all_to_all(w, dst, src, 2, SYM_INT32, o);
        ok = dst[2 * n - 1] == 1000 * (n - 1) + 2 * me + 1;
        break;
    case K_ALL_TO_ALLV:
        st = sym_all_to_allv(w, src, cnt, dst, cnt, SYM_INT32, o);
        ok = dst[2 * n - 1] == 1000 * (n - 1) + 2 * me + 1;
        break;
    case K_GATHER:
        st = sym_gather(w, dst, src, 2, SYM_INT32, n - 1, o);
        ok = me != n - 1 || dst[2 * n - 1] == 1000 * (n - 1) + 1;
        break;
    case K_SCATTER:
        st = sym_scatter(w, dst, src, 2, SYM_INT32, n - 1, o);
        ok = dst[1] == 1000 * (n - 1) + 2 * me + 1;
        break;
    default:
        break;
    }
    if (st == SYM_OK)
        PE_ASSERT(ok, "%s returned the wrong data", kinds[k].name);
    return st;
}

struct kind_call {
    enum kind k;
    const sym_coll_opts_t *o;
};

static sym_status_t run_kind_call(void *arg)
{
    const struct kind_call *kc = arg;
    return call_kind(kc->k, kc->o);
}

static char *capture_call(sym_status_t (*fn)(void *), void *arg, sym_status_t *st);

/* Run collective k with fd 2 going to a file and return what was logged. */
static char *capture_stderr(enum kind k, const sym_coll_opts_t *o, sym_status_t *st)
{
    struct kind_call kc = {k, o};
    return capture_call(run_kind_call, &kc, st);
}

/* Run fn(arg) with fd 2 going to a file and return what was logged. */
static char *capture_call(sym_status_t (*fn)(void *), void *arg, sym_status_t *st)
{
    char path[64];
    snprintf(path, sizeof(path), "/tmp/symheap-test-log-%d", (int)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    PE_ASSERT(fd >= 0, "cannot create %s", path);
    unlink(path);
    fflush(stderr);
    int saved = dup(2);
    PE_ASSERT(saved >= 0 && dup2(fd, 2) == 2, "cannot redirect stderr");
    *st = fn(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    off_t len = lseek(fd, 0, SEEK_END);
    char *text = xmalloc((size_t)len + 1);
    PE_ASSERT(pread(fd, text, (size_t)len, 0) == len, "cannot read the log");
    text[len] = '\0';
    close(fd);
    return text;
}

static void expect_logged(const char *log, const char *coll, sym_algorithm_t a, const char *source)
{
    char want[96];
    snprintf(want, sizeof(want), "algorithm %s (%s)", sym_algorithm_name(a), source);
    PE_ASSERT(strstr(log, want) != NULL, "sym_%s: the debug log does not say \"%s\":\n%s", coll,
              want, log);
}

/* The environment picks the algorithm when the call says AUTO (or passes
 * no options); a per-call choice overrides it. */
static void env_selection_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    const enum kind k = *(const enum kind *)arg;
    const struct kind_info *ki = &kinds[k];
    sym_status_t st;
    char *log = capture_stderr(k, NULL, &st);
    PE_ASSERT(st == SYM_OK, "sym_%s (no options) returned %s: %s", ki->name, sym_status_name(st),
              sym_last_error());
    expect_logged(log, ki->name, ki->env_pick, "environment");
    free(log);
    sym_coll_opts_t o = {.algorithm = SYM_ALGO_AUTO, .timeout_s = 0};
    log = capture_stderr(k, &o, &st);
    PE_ASSERT(st == SYM_OK, "sym_%s (AUTO) returned %s", ki->name, sym_status_name(st));
    expect_logged(log, ki->name, ki->env_pick, "environment");
    free(log);
    o.algorithm = ki->call_pick;
    log = capture_stderr(k, &o, &st);
    PE_ASSERT(st == SYM_OK, "sym_%s (%s) returned %s", ki->name, sym_algorithm_name(ki->call_pick),
              sym_status_name(st));
    expect_logged(log, ki->name, ki->call_pick, "per call");
    free(log);
}

/* Without the variable, AUTO is the library's own choice. */
static void auto_selection_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    const enum kind k = *(const enum kind *)arg;
    sym_status_t st;
    char *log = capture_stderr(k, NULL, &st);
    PE_ASSERT(st == SYM_OK, "sym_%s returned %s: %s", kinds[k].name, sym_status_name(st),
              sym_last_error());
    PE_ASSERT(strstr(log, "(automatic)") != NULL, "sym_%s: no automatic choice logged:\n%s",
              kinds[k].name, log);
    free(log);
}

/* Every algorithm the collective does not document is SYM_ERR_INVALID_ARG,
 * on PE 0 only: the others never make these calls, so a failed call must
 * not use up a sequence number either (the next call would mismatch). */
static void invalid_algorithm_body(int me, int n, void *arg)
{
    (void)n;
    const enum kind k = *(const enum kind *)arg;
    const struct kind_info *ki = &kinds[k];
    if (me == 0) {
        for (int a = SYM_ALGO_NAIVE; a <= SYM_ALGO_DIRECT + 2; a++) {
            if (ki->algos & (1u << a))
                continue;
            sym_coll_opts_t o = {.algorithm = (sym_algorithm_t)a, .timeout_s = 0};
            sym_status_t st = call_kind(k, &o);
            PE_ASSERT(st == SYM_ERR_INVALID_ARG, "sym_%s with algorithm %d (%s) returned %s: %s",
                      ki->name, a, sym_algorithm_name((sym_algorithm_t)a), sym_status_name(st),
                      sym_last_error());
        }
        sym_coll_opts_t o = {.algorithm = (sym_algorithm_t)-1, .timeout_s = 0};
        PE_FAILS_WITH(call_kind(k, &o), SYM_ERR_INVALID_ARG);
        o = (sym_coll_opts_t){.algorithm = SYM_ALGO_AUTO, .timeout_s = -1.0};
        PE_FAILS_WITH(call_kind(k, &o), SYM_ERR_INVALID_ARG);
        o.timeout_s = NAN;
        PE_FAILS_WITH(call_kind(k, &o), SYM_ERR_INVALID_ARG);
    }
    for (int a = SYM_ALGO_AUTO; a <= SYM_ALGO_DIRECT; a++) {
        if (a != SYM_ALGO_AUTO && !(ki->algos & (1u << a)))
            continue;
        sym_coll_opts_t o = {.algorithm = (sym_algorithm_t)a, .timeout_s = 0};
        PE_OK(call_kind(k, &o));
    }
}

static struct criterion_test_params kind_params(void)
{
    static enum kind ks[K_COUNT];
    for (int k = 0; k < K_COUNT; k++)
        ks[k] = (enum kind)k;
    return cr_make_param_array(enum kind, ks, K_COUNT);
}

ParameterizedTestParameters(coll_select, environment)
{
    return kind_params();
}

ParameterizedTest(enum kind *k, coll_select, environment)
{
    const char *env[] = {"SYMHEAP_DEBUG=1", kinds[*k].env, NULL};
    run_pes_env(3, env, env_selection_body, k);
}

ParameterizedTestParameters(coll_select, automatic)
{
    return kind_params();
}

ParameterizedTest(enum kind *k, coll_select, automatic)
{
    static const char *const env[] = {"SYMHEAP_DEBUG=1", NULL};
    run_pes_env(2, env, auto_selection_body, k);
}

/* The caller's word that the buffers are symmetric: from
 * direct.symmetric_min (4K by default) on, the automatic choice of a pair
 * is direct, which no pair ladder names; below it, or without the word, the
 * ladder decides.  The word is a hint: private buffers given with it come
 * out right too. */
struct sym_call {
    size_t count; /* floats */
    int symmetric;
    bool heap;
};

static sym_status_t symmetric_allreduce(void *arg)
{
    const struct sym_call *sc = arg;
    const int me = sym_my_pe(), n = sym_n_pes();
    const size_t bytes = sc->count * sizeof(float);
    float *src = sc->heap ? sym_malloc(bytes) : malloc(bytes);
    float *dst = sc->heap ? sym_malloc(bytes) : malloc(bytes);
    PE_ASSERT(src && dst, "buffers of %zu bytes: %s", bytes, sym_last_error());
    for (size_t i = 0; i < sc->count; i++)
        src[i] = (float)(me * 1000 + (int)(i % 977));
    const sym_coll_opts_t o = {.symmetric = sc->symmetric};
    sym_status_t st =
        sym_allreduce(sym_team_world(), dst, src, sc->count, SYM_FLOAT, SYM_OP_SUM, &o);
    for (size_t i = 0; st == SYM_OK && i < sc->count; i++) {
        const float want = (float)(1000 * n * (n - 1) / 2 + n * (int)(i % 977));
        PE_ASSERT(dst[i] == want, "element %zu is %g, expected %g", i, dst[i], want);
    }
    if (sc->heap) {
        sym_free(dst);
        sym_free(src);
    } else {
        free(dst);
        free(src);
    }
    return st;
}

static void symmetric_word_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    static const struct {
        struct sym_call call;
        bool direct;
    } cases[] = {
        {{2048, 1, true}, true},   /* 8 KiB, symmetric: direct */
        {{2048, 0, true}, false},  /* the same buffers without the word */
        {{256, 1, true}, false},   /* 1 KiB: below direct.symmetric_min */
        {{2048, 1, false}, true},  /* the word, private buffers: still right */
        {{30001, 1, false}, true}, /* past direct.one_shot_max: two shots */
    };
    for (size_t i = 0; i < NELEMS(cases); i++) {
        struct sym_call c = cases[i].call;
        sym_status_t st;
        char *log = capture_call(symmetric_allreduce, &c, &st);
        PE_ASSERT(st == SYM_OK, "case %zu: sym_allreduce returned %s: %s", i, sym_status_name(st),
                  sym_last_error());
        const bool direct = strstr(log, "algorithm direct (automatic)") != NULL;
        PE_ASSERT(direct == cases[i].direct,
                  "case %zu (%zu floats, symmetric %d, %s buffers): direct %s, expected %s:\n%s", i,
                  c.count, c.symmetric, c.heap ? "heap" : "private", direct ? "chosen" : "not",
                  cases[i].direct ? "chosen" : "not", log);
        free(log);
    }
}

Test(coll_select, symmetric_word)
{
    static const char *const env[] = {"SYMHEAP_DEBUG=1", "SYMHEAP_HEAP_SIZE=16M", NULL};
    run_pes_env(2, env, symmetric_word_body, NULL);
}

/* With direct.symmetric_min=never the word changes nothing. */
static void symmetric_never_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    struct sym_call c = {65536, 1, true};
    sym_status_t st;
    char *log = capture_call(symmetric_allreduce, &c, &st);
    PE_ASSERT(st == SYM_OK, "sym_allreduce returned %s: %s", sym_status_name(st), sym_last_error());
    PE_ASSERT(!strstr(log, "algorithm direct (automatic)"),
              "direct chosen with direct.symmetric_min=never:\n%s", log);
    free(log);
}

Test(coll_select, symmetric_word_never)
{
    static const char *const env[] = {"SYMHEAP_DEBUG=1", "SYMHEAP_HEAP_SIZE=16M",
                                      "SYMHEAP_COLL_TUNING=direct.symmetric_min=never", NULL};
    run_pes_env(2, env, symmetric_never_body, NULL);
}

ParameterizedTestParameters(coll_select, invalid_algorithm)
{
    return kind_params();
}

ParameterizedTest(enum kind *k, coll_select, invalid_algorithm)
{
    run_pes(3, invalid_algorithm_body, k);
}

/* An algorithm the variable does not list fails init, naming it. */
static void bad_env_body(int me, int n, void *arg)
{
    (void)me;
    (void)n;
    (void)arg;
    PE_FAILS_WITH(sym_init(), SYM_ERR_CONFIG);
    PE_ASSERT(strstr(sym_last_error(), "SYMHEAP_ALLREDUCE_ALGORITHM") != NULL,
              "message does not name the variable: %s", sym_last_error());
}

Test(coll_select, unlisted_algorithm_in_environment)
{
    static const char *const env[] = {"SYMHEAP_ALLREDUCE_ALGORITHM=pairwise", NULL};
    struct pe_job job = {.npes = 1, .body = bad_env_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ------------------------------------------------------------------------ */
/* Chunk boundaries                                                          */
/* ------------------------------------------------------------------------ */

/* With 1 KiB chunks, 256 int32 fill one chunk exactly; the counts sit on,
 * just under and just over whole messages of 1 and 3 chunks, and (for the
 * algorithms that split the vector into n blocks) of blocks of n chunks. */
static const char *const chunk_env[] = {"SYMHEAP_CHUNK_SIZE=1K", NULL};

static const sym_algorithm_t *kind_algos(enum kind k, size_t *na)
{
    switch (k) {
    case K_BARRIER:
        *na = NELEMS(barrier_algos);
        return barrier_algos;
    case K_BROADCAST:
        *na = NELEMS(broadcast_algos);
        return broadcast_algos;
    case K_REDUCE:
        *na = NELEMS(reduce_algos);
        return reduce_algos;
    case K_ALLREDUCE:
        *na = NELEMS(allreduce_algos);
        return allreduce_algos;
    case K_REDUCE_SCATTER:
        *na = NELEMS(reduce_scatter_algos);
        return reduce_scatter_algos;
    case K_ALL_GATHER:
        *na = NELEMS(all_gather_algos);
        return all_gather_algos;
    case K_ALL_GATHERV:
        *na = NELEMS(all_gatherv_algos);
        return all_gatherv_algos;
    case K_ALL_TO_ALL:
    case K_ALL_TO_ALLV:
        *na = NELEMS(all_to_all_algos);
        return all_to_all_algos;
    default:
        *na = NELEMS(gather_algos);
        return gather_algos;
    }
}

static void chunk_body(int me, int n, void *arg)
{
    (void)me;
    const enum kind k = *(const enum kind *)arg;
    struct tctx t = world_ctx(20);
    t.scratch = sym_calloc(SCRATCH_WORDS, sizeof(uint64_t));
    PE_ASSERT(t.scratch, "sym_calloc: %s", sym_last_error());
    size_t na, per[HARNESS_MAX_PES];
    const sym_algorithm_t *algos = kind_algos(k, &na);
    const size_t base[] = {256, 768, 256 * (size_t)n};
    for (size_t a = 0; a < na; a++)
        for (size_t b = 0; b < NELEMS(base); b++)
            for (size_t count = base[b] - 1; count <= base[b] + 1; count++) {
                const sym_algorithm_t al = algos[a];
                const int root = (int)(count % (size_t)n);
                const enum mode m = count % 2 ? OUT : IN;
                switch (k) {
                case K_BARRIER:
                    check_barrier(&t, al, (int)(a * 9 + b * 3 + count - base[b] + 1));
                    break;
                case K_BROADCAST:
                    check_broadcast(&t, al, SYM_INT32, count, root);
                    break;
                case K_REDUCE:
                    check_reduction(&t, true, al, SYM_INT32, SYM_OP_SUM, count, root, m);
                    break;
                case K_ALLREDUCE:
                    check_reduction(&t, false, al, SYM_INT32, SYM_OP_SUM, count, -1, m);
                    break;
                case K_REDUCE_SCATTER:
                    check_reduce_scatter(&t, al, SYM_INT32, SYM_OP_BXOR, count, m);
                    break;
                case K_ALL_GATHER:
                case K_ALL_GATHERV:
                    for (int r = 0; r < n; r++)
                        per[r] = k == K_ALL_GATHER || r % 2 ? count : count + 1;
                    check_gatherv_all(&t, k == K_ALL_GATHERV, al, SYM_INT32, per,
                                      m == IN ? OWN : OUT);
                    break;
                case K_ALL_TO_ALL:
                    check_alltoall(&t, false, al, SYM_INT32, uniform_count, count, m);
                    break;
                case K_ALL_TO_ALLV:
                    check_alltoall(&t, true, al, SYM_INT32, ragged_count, count, m);
                    break;
                case K_GATHER:
                    check_gather(&t, al, SYM_INT32, count, root, m == IN ? OWN : OUT);
                    break;
                default:
                    check_scatter(&t, al, SYM_INT32, count, root, m == IN ? OWN : OUT);
                    break;
                }
            }
    sym_free(t.scratch);
}

ParameterizedTestParameters(coll_chunks, boundaries)
{
    return kind_params();
}

ParameterizedTest(enum kind *k, coll_chunks, boundaries)
{
    for (int n = 2; n <= 4; n++)
        if (harness_pes_listed(n)) /* SYMHEAP_TEST_PES (.ci/test's ofi stages) */
            run_pes_env(n, chunk_env, chunk_body, k);
}
