/*
 * test_symrun_jobs.c - symrun jobs that succeed: a put/get ring at 1..8 PEs,
 * --transport, the other spellings of the options, --tag-output, and
 * SYMHEAP_* settings reaching every PE.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <stdio.h>
#include <string.h>

#include "symrun_run.h"

struct ring_lines {
    int npes;
    int seen[HARNESS_MAX_PES];
    int keys, other;
    char other_line[200];
};

static void collect_ring(const char *line, size_t len, void *arg)
{
    struct ring_lines *l = arg;
    int pe, n;
    if (is_key_line(line, len))
        l->keys++;
    else if (LINE_IS(line, len, "pe %d of %d ok%n", &pe, &n) && n == l->npes && pe >= 0 && pe < n)
        l->seen[pe]++;
    else if (l->other++ == 0)
        snprintf(l->other_line, sizeof(l->other_line), "%.*s", (int)len, line);
}

/* Exactly one "pe X of N ok" per PE, in any order, the key, nothing else. */
static void assert_ring_ok(const struct run *r, int npes)
{
    assert_exit(r, 0);
    struct ring_lines l = {.npes = npes};
    each_line(OUT(r), collect_ring, &l);
    cr_assert(l.other == 0, "unexpected line \"%s\"\nstdout:\n%s", l.other_line, tail_of(OUT(r)));
    cr_assert_eq(l.keys, 1, "%d key lines\nstdout:\n%s", l.keys, tail_of(OUT(r)));
    for (int pe = 0; pe < npes; pe++)
        cr_assert_eq(l.seen[pe], 1, "PE %d of %d reported %d times\nstdout:\n%s", pe, npes,
                     l.seen[pe], tail_of(OUT(r)));
    cr_assert_str_empty(ERR(r), "stderr:\n%s", ERR(r));
}

ParameterizedTestParameters(symrun, ring)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, symrun, ring)
{
    char n[16];
    snprintf(n, sizeof(n), "%d", *npes);
    const char *args[] = {"-n", n, "@PE", "ring", NULL};
    struct run r;
    run_job(&r, args, NULL);
    assert_ring_ok(&r, *npes);
    run_free(&r);
}

/* --transport sets SYMHEAP_TRANSPORT for the PEs: with ofi every peer goes
 * through libfabric (the debug log says so), with shm none does; the ring
 * checks the data either way. */
ParameterizedTestParameters(symrun, transport)
{
    static int which[] = {0, 1};
    return cr_make_param_array(int, which, 2);
}

ParameterizedTest(int *which, symrun, transport)
{
    const char *t = *which ? "--transport=shm" : "--transport=ofi";
    const char *args[] = {"-n", "2", t, "@PE", "ring", NULL};
    const char *env[] = {"SYMHEAP_DEBUG=1", NULL};
    struct run r;
    run_job(&r, args, env);
    assert_exit(&r, 0); /* stderr has the debug log: not assert_ring_ok */
    assert_contains("stdout", OUT(&r), "pe 0 of 2 ok");
    assert_contains("stdout", OUT(&r), "pe 1 of 2 ok");
    if (*which)
        cr_assert(!strstr(ERR(&r), "ofi transport on provider"), "--transport=shm used ofi:\n%s",
                  tail_of(ERR(&r)));
    else
        assert_contains("stderr", ERR(&r), "ofi transport on provider");
    run_free(&r);
}

/* The other spellings of the PE count (OpenSHMEM's -np among them), the
 * "--" separator, and limits that a quick job does not reach. */
struct spelling {
    const char *args[10];
    int npes;
};

static const struct spelling spellings[] = {
    {{"-np", "4", "@PE", "ring", NULL}, 4},
    {{"--npes", "3", "@PE", "ring", NULL}, 3},
    {{"--npes=2", "@PE", "ring", NULL}, 2},
    {{"-n", "2", "--", "@PE", "ring", NULL}, 2},
    {{"--timeout", "60", "--grace=1", "-np", "3", "@PE", "ring", NULL}, 3},
    {{"--timeout=0", "--grace", "0", "-n", "1", "@PE", "ring", NULL}, 1},
};
#define N_SPELLINGS ((int)(sizeof(spellings) / sizeof(spellings[0])))

ParameterizedTestParameters(symrun, spellings)
{
    static int idx[N_SPELLINGS];
    for (int i = 0; i < N_SPELLINGS; i++)
        idx[i] = i;
    return cr_make_param_array(int, idx, N_SPELLINGS);
}

ParameterizedTest(int *which, symrun, spellings)
{
    struct run r;
    run_job(&r, spellings[*which].args, NULL);
    assert_ring_ok(&r, spellings[*which].npes);
    run_free(&r);
}

/* --tag-output: every line of stdout and stderr, the unterminated last one
 * included, carries the prefix of the PE that wrote it, and one PE's lines
 * keep their order. */
struct tagged_lines {
    int npes;
    int next[HARNESS_MAX_PES]; /* stdout: how many of the PE's lines seen */
    int errs[HARNESS_MAX_PES];
    int keys;
    char bad[400];
};

static void collect_tagged_out(const char *line, size_t len, void *arg)
{
    struct tagged_lines *l = arg;
    int tag, pe, n, consumed = -1;
    char copy[256];
    snprintf(copy, sizeof(copy), "%.*s", (int)len, line);
    if (sscanf(copy, "[%d]%n", &tag, &consumed) < 1 || consumed < 0 || copy[consumed] != ' ' ||
        tag < 0 || tag >= l->npes) {
        if (!l->bad[0])
            snprintf(l->bad, sizeof(l->bad), "untagged line \"%s\"", copy);
        return;
    }
    const char *body = copy + consumed + 1;
    size_t blen = strlen(body);
    bool ok;
    if (is_key_line(body, blen)) {
        ok = tag == 0 && l->keys++ == 0;
    } else {
        /* The PE's lines in the order it wrote them. */
        static const char *const order[] = {"of", "line a", "line b", "tail"};
        int step = l->next[tag];
        ok = false;
        if (step == 0)
            ok = LINE_IS(body, blen, "pe %d of %d ok%n", &pe, &n) && pe == tag && n == l->npes;
        else if (step < 4) {
            char want[64];
            snprintf(want, sizeof(want), "pe %d %s", tag, order[step]);
            ok = strcmp(body, want) == 0;
        }
        l->next[tag]++;
    }
    if (!ok && !l->bad[0])
        snprintf(l->bad, sizeof(l->bad), "line \"%s\" is not what PE %d writes at that point", copy,
                 tag);
}

static void collect_tagged_err(const char *line, size_t len, void *arg)
{
    struct tagged_lines *l = arg;
    int tag, pe;
    if (LINE_IS(line, len, "[%d] pe %d err%n", &tag, &pe) && tag == pe && tag >= 0 && tag < l->npes)
        l->errs[tag]++;
    else if (!l->bad[0])
        snprintf(l->bad, sizeof(l->bad), "stderr line \"%.*s\"", (int)len, line);
}

ParameterizedTestParameters(symrun, tag_output)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, symrun, tag_output)
{
    char n[16];
    snprintf(n, sizeof(n), "%d", *npes);
    const char *args[] = {"--tag-output", "-n", n, "@PE", "ring-tagged", NULL};
    struct run r;
    run_job(&r, args, NULL);
    assert_exit(&r, 0);
    struct tagged_lines l = {.npes = *npes};
    each_line(OUT(&r), collect_tagged_out, &l);
    each_line(ERR(&r), collect_tagged_err, &l);
    cr_assert(!l.bad[0], "%s\nstdout:\n%s\nstderr:\n%s", l.bad, tail_of(OUT(&r)), tail_of(ERR(&r)));
    cr_assert_eq(l.keys, 1);
    for (int pe = 0; pe < *npes; pe++) {
        cr_assert_eq(l.next[pe], 4, "PE %d: %d stdout lines, expected 4\nstdout:\n%s", pe,
                     l.next[pe], tail_of(OUT(&r)));
        cr_assert_eq(l.errs[pe], 1, "PE %d: %d stderr lines\nstderr:\n%s", pe, l.errs[pe],
                     tail_of(ERR(&r)));
    }
    /* Tagging relays output through symrun: its stdout must still end with
     * a complete line although the PEs' did not. */
    cr_assert(OUT(&r)[strlen(OUT(&r)) - 1] == '\n', "stdout does not end with a newline");
    run_free(&r);
}

/* SYMHEAP_* settings in symrun's environment reach every PE: the heap size
 * shows in sym_heap_free (two sizes, so a default cannot pass for it). */
struct heap_lines {
    size_t want;
    int npes;
    int seen[HARNESS_MAX_PES];
    char bad[200];
};

static void collect_heap(const char *line, size_t len, void *arg)
{
    struct heap_lines *l = arg;
    int pe;
    size_t free_bytes, largest;
    if (is_key_line(line, len))
        return;
    if (LINE_IS(line, len, "pe %d free %zu largest %zu%n", &pe, &free_bytes, &largest) && pe >= 0 &&
        pe < l->npes && free_bytes == l->want && largest == l->want)
        l->seen[pe]++;
    else if (!l->bad[0])
        snprintf(l->bad, sizeof(l->bad), "\"%.*s\" (expected %zu free bytes)", (int)len, line,
                 l->want);
}

ParameterizedTestParameters(symrun, environment)
{
    static int mib[] = {3, 5};
    return cr_make_param_array(int, mib, 2);
}

ParameterizedTest(int *mib, symrun, environment)
{
    char setting[64];
    snprintf(setting, sizeof(setting), "SYMHEAP_HEAP_SIZE=%dM", *mib);
    const char *env[] = {setting, NULL};
    const char *args[] = {"-n", "3", "@PE", "heapfree", NULL};
    struct run r;
    run_job(&r, args, env);
    assert_exit(&r, 0);
    struct heap_lines l = {.want = (size_t)*mib << 20, .npes = 3};
    each_line(OUT(&r), collect_heap, &l);
    cr_assert(!l.bad[0], "%s\nstdout:\n%s\nstderr:\n%s", l.bad, tail_of(OUT(&r)), tail_of(ERR(&r)));
    for (int pe = 0; pe < 3; pe++)
        cr_assert_eq(l.seen[pe], 1, "PE %d reported %d times\nstdout:\n%s", pe, l.seen[pe],
                     tail_of(OUT(&r)));
    run_free(&r);
}
