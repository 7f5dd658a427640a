/* test_diverge.c - PEs that make different collective allocation, barrier
 * or finalize calls: every PE fails the call with SYM_ERR_MISMATCH naming
 * both calls, no heap changes, and later puts land where they should.
 * Also the fault semantics around it: a PE that exits after a failed
 * sym_finalize is a loss its peers learn of at once, and survivors of a
 * killed PE name that PE, not a survivor that exited after its own error. */
#include <criterion/criterion.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"

#define MARK "(no error recorded by the call)"

static void mark_error(void)
{
    pe_ignore(sym_set_error(SYM_ERR_INTERNAL, MARK));
}

/* The detail message names the PEs' different calls, each by its words. */
static void expect_mismatch(const char *what, const char *a, const char *b)
{
    const char *e = sym_last_error();
    PE_ASSERT(strstr(e, "different collective calls") && strstr(e, a) && strstr(e, b),
              "%s: expected a mismatch naming '%s' and '%s', got '%s'", what, a, b, e);
}

static void heap_now(size_t *f, size_t *l)
{
    PE_OK(sym_heap_free(f, l));
}

static void expect_heap(size_t f0, size_t l0, const char *after)
{
    size_t f, l;
    heap_now(&f, &l);
    PE_ASSERT(f == f0 && l == l0,
              "after %s the heap has %zu bytes free (largest %zu), not %zu (%zu)", after, f, l, f0,
              l0);
}

/* Two fresh objects; every PE puts into the second one of the next PE: the
 * value must arrive there and nowhere else, which fails if the PEs' heaps
 * placed the objects at different offsets. */
static void expect_puts_land(int me, int npes, const char *after)
{
    uint64_t *a = sym_calloc(32, sizeof(uint64_t));
    uint64_t *b = sym_calloc(8, sizeof(uint64_t));
    PE_ASSERT(a && b, "after %s: sym_calloc: %s", after, sym_last_error());
    const uint64_t v = 0x5157000 + (uint64_t)me;
    PE_OK(sym_put(&b[3], &v, sizeof(v), (me + 1) % npes));
    PE_OK(sym_barrier_all());
    const uint64_t want = 0x5157000 + (uint64_t)((me - 1 + npes) % npes);
    PE_ASSERT(b[3] == want, "after %s: the put from the previous PE holds %#llx, expected %#llx",
              after, (unsigned long long)b[3], (unsigned long long)want);
    for (int i = 0; i < 32; i++)
        PE_ASSERT(a[i] == 0, "after %s: a put landed in another object (word %d = %#llx)", after, i,
                  (unsigned long long)a[i]);
    PE_OK(sym_barrier_all());
    sym_free(b);
    sym_free(a);
}

static void run_2_to_4(pe_body_fn body)
{
    static const char *const env[] = {"SYMHEAP_TIMEOUT=20", NULL};
    for (int n = 2; n <= 4; n++)
        if (harness_pes_listed(n))
            run_pes_env(n, env, body, NULL);
}

/* ---- allocation calls that differ ---------------------------------------- */

static void malloc_sizes_body(int me, int npes, void *arg)
{
    (void)arg;
    size_t f0, l0;
    heap_now(&f0, &l0);
    const size_t size = me == npes - 1 ? 128 : 64;
    void *p = sym_malloc(size);
    PE_ASSERT(p == NULL, "sym_malloc(%zu) returned memory while another PE asked for another size",
              size);
    expect_mismatch("sym_malloc", "sym_malloc(64 bytes)", "sym_malloc(128 bytes)");
    expect_heap(f0, l0, "the mismatched sym_malloc");
    expect_puts_land(me, npes, "the mismatched sym_malloc");
    expect_heap(f0, l0, "the objects were freed");
}

Test(diverge, malloc_sizes, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_2_to_4(malloc_sizes_body);
}

/* sym_free of a pointer that is not an object, on one PE: it still
 * synchronises, so the others' sym_free fails too and keeps the object,
 * and the next sym_barrier_all pairs with the next one. */
static void free_fails_body(int me, int npes, void *arg)
{
    (void)arg;
    size_t f0, l0;
    heap_now(&f0, &l0);
    uint64_t *p = sym_calloc(8, sizeof(uint64_t));
    PE_ASSERT(p, "sym_calloc: %s", sym_last_error());
    mark_error();
    sym_free(me == 0 ? p + 1 : p);
    expect_mismatch("sym_free", "a failed sym_free", "sym_free(heap offset");
    PE_OK(sym_barrier_all());
    /* the object is still live on every PE, at the same offset */
    const uint64_t v = 77 + (uint64_t)me;
    PE_OK(sym_put(&p[5], &v, sizeof(v), (me + 1) % npes));
    PE_OK(sym_barrier_all());
    PE_ASSERT(p[5] == 77 + (uint64_t)((me - 1 + npes) % npes), "p[5] = %llu",
              (unsigned long long)p[5]);
    PE_OK(sym_barrier_all());
    sym_free(p);
    expect_heap(f0, l0, "freeing the object on every PE");
    expect_puts_land(me, npes, "the mismatched sym_free");
}

Test(diverge, free_fails_on_one_pe, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_2_to_4(free_fails_body);
}

/* One PE frees, the others allocate: neither happens anywhere. */
static void free_vs_malloc_body(int me, int npes, void *arg)
{
    (void)arg;
    size_t f0, l0;
    heap_now(&f0, &l0);
    void *p = sym_malloc(256);
    PE_ASSERT(p, "sym_malloc: %s", sym_last_error());
    mark_error();
    if (me == npes - 1) {
        sym_free(p);
    } else {
        void *q = sym_malloc(64);
        PE_ASSERT(q == NULL, "sym_malloc returned memory while a PE freed");
    }
    expect_mismatch("sym_free against sym_malloc", "sym_malloc(64 bytes)", "sym_free(heap offset");
    sym_free(p);
    expect_heap(f0, l0, "freeing the object on every PE");
    expect_puts_land(me, npes, "sym_free against sym_malloc");
}

Test(diverge, free_vs_malloc, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_2_to_4(free_vs_malloc_body);
}

/* Different new sizes: the object stays where it was, contents kept. */
static void realloc_sizes_body(int me, int npes, void *arg)
{
    (void)arg;
    uint8_t *p = sym_malloc(100);
    PE_ASSERT(p, "sym_malloc: %s", sym_last_error());
    for (int i = 0; i < 100; i++)
        p[i] = (uint8_t)(i * 7 + me);
    size_t f0, l0;
    heap_now(&f0, &l0);
    const size_t size = me == 0 ? 1000 : 3000;
    uint8_t *q = sym_realloc(p, size);
    PE_ASSERT(q == NULL, "sym_realloc(%zu) returned memory while another PE asked for another size",
              size);
    expect_mismatch("sym_realloc", "1000 bytes", "3000 bytes");
    expect_heap(f0, l0, "the mismatched sym_realloc");
    for (int i = 0; i < 100; i++)
        PE_ASSERT(p[i] == (uint8_t)(i * 7 + me), "byte %d of the object changed", i);
    /* the same call on every PE still works and keeps the contents */
    q = sym_realloc(p, 3000);
    PE_ASSERT(q, "sym_realloc: %s", sym_last_error());
    for (int i = 0; i < 100; i++)
        PE_ASSERT(q[i] == (uint8_t)(i * 7 + me), "byte %d lost by sym_realloc", i);
    sym_free(q);
    expect_puts_land(me, npes, "the mismatched sym_realloc");
}

Test(diverge, realloc_sizes, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_2_to_4(realloc_sizes_body);
}

/* Different alignments, then a bad alignment on one PE only: that PE's
 * local failure fails the others' call too. */
static void align_body(int me, int npes, void *arg)
{
    (void)arg;
    size_t f0, l0;
    heap_now(&f0, &l0);
    void *p = sym_align(me == 0 ? 128 : 4096, 64);
    PE_ASSERT(p == NULL, "sym_align returned memory while the alignments differ");
    expect_mismatch("sym_align", "alignment 128", "alignment 4096");
    p = sym_align(me == npes - 1 ? 3 : 256, 64);
    PE_ASSERT(p == NULL, "sym_align returned memory while one PE's call failed");
    expect_mismatch("sym_align", "a failed sym_align", "alignment 256");
    expect_heap(f0, l0, "the mismatched sym_align calls");
    expect_puts_land(me, npes, "the mismatched sym_align calls");
}

Test(diverge, align, .timeout = HARNESS_CR_TIMEOUT(120))
{
    run_2_to_4(align_body);
}

/* ---- finalize against a barrier ------------------------------------------ */

/* PE 0 finalizes while the others enter sym_barrier_all: both sides fail
 * with SYM_ERR_MISMATCH; PE 0 then exits after its failed finalize, which
 * is a loss the others learn of at once in their own sym_finalize. */
static void finalize_vs_barrier_body(int me, int npes, void *arg)
{
    (void)arg;
    (void)npes;
    PE_OK(sym_init());
    if (me == 0) {
        PE_FAILS_WITH(sym_finalize(), SYM_ERR_MISMATCH);
        expect_mismatch("sym_finalize", "called sym_finalize", "called sym_barrier_all");
        return;
    }
    PE_FAILS_WITH(sym_barrier_all(), SYM_ERR_MISMATCH);
    expect_mismatch("sym_barrier_all", "called sym_finalize", "called sym_barrier_all");
    const double t0 = harness_now();
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
    const double took = harness_now() - t0;
    PE_ASSERT(strstr(sym_last_error(), "PE 0 "), "the loss names another PE: %s", sym_last_error());
    PE_ASSERT(took < harness_seconds(5), "PE 0's exit was reported after %.1f s (timeout 60 s)",
              took);
}

Test(diverge, finalize_vs_barrier, .timeout = HARNESS_CR_TIMEOUT(120))
{
    harness_require_symrun("a PE's exit status and its life cycle come from symrun's segment");
    static const char *const env[] = {"SYMHEAP_TIMEOUT=60", NULL};
    for (int n = 2; n <= 4; n++) {
        if (!harness_pes_listed(n))
            continue;
        struct pe_job job = {.npes = n, .body = finalize_vs_barrier_body, .raw = true, .env = env};
        struct pe_outcome out;
        pe_job_run(&job, &out);
        assert_job_ok(&out);
    }
}

/* The same against a barrier on the world team (its mailboxes, not the
 * world barrier): the finalizing PE's call line says what it does, so the
 * others find the mismatch there and tell it. */
static void finalize_vs_team_barrier_body(int me, int npes, void *arg)
{
    (void)arg;
    (void)npes;
    PE_OK(sym_init());
    const double t0 = harness_now();
    if (me == 0) {
        PE_FAILS_WITH(sym_finalize(), SYM_ERR_MISMATCH);
        PE_ASSERT(strstr(sym_last_error(), "sym_finalize") && strstr(sym_last_error(), "barrier"),
                  "message: %s", sym_last_error());
    } else {
        /* or, when a transport kept it from seeing the others' report until
         * PE 0 left: the loss of PE 0 after its mismatch */
        sym_status_t st = sym_barrier(sym_team_world(), NULL);
        PE_ASSERT((st == SYM_ERR_MISMATCH && strstr(sym_last_error(), "sym_finalize")) ||
                      (st == SYM_ERR_PEER_LOST &&
                       strstr(sym_last_error(), "returned it SYM_ERR_MISMATCH")),
                  "sym_barrier against a finalize: %s: %s", sym_status_name(st), sym_last_error());
    }
    const double took = harness_now() - t0;
    PE_ASSERT(took < harness_seconds(10), "the mismatch took %.1f s (timeout 60 s)", took);
    if (me != 0) /* meets PE 0's finalize, or finds it gone: either way it ends */
        pe_ignore(sym_finalize());
}

Test(diverge, finalize_vs_team_barrier, .timeout = HARNESS_CR_TIMEOUT(120))
{
    harness_require_symrun("a PE's exit status and its life cycle come from symrun's segment");
    static const char *const env[] = {"SYMHEAP_TIMEOUT=60", NULL};
    for (int n = 2; n <= 3; n++) {
        if (!harness_pes_listed(n))
            continue;
        struct pe_job job = {
            .npes = n, .body = finalize_vs_team_barrier_body, .raw = true, .env = env};
        struct pe_outcome out;
        pe_job_run(&job, &out);
        assert_job_ok(&out);
    }
}

/* The same against a barrier on a split team: the finalizing PE's call
 * line on that team says what it does.  PE 0 finalizes while PEs 1..n-1,
 * a team of their own with PE 0 in it (all PEs, stride 1) or without it
 * (stride 1 from PE 1, where PE 0 is no member), enter its barrier. */
static void finalize_vs_split_barrier_body(int me, int npes, void *arg)
{
    const bool with_pe0 = *(const bool *)arg;
    PE_OK(sym_init());
    sym_team_t team = SYM_TEAM_INVALID;
    PE_OK(sym_team_split_strided(sym_team_world(), with_pe0 ? 0 : 1, 1, with_pe0 ? npes : npes - 1,
                                 &team));
    PE_OK(sym_barrier(sym_team_world(), NULL));
    const double t0 = harness_now();
    if (me == 0) {
        sym_status_t st = sym_finalize();
        if (with_pe0) {
            PE_ASSERT(st == SYM_ERR_MISMATCH && strstr(sym_last_error(), "sym_finalize") &&
                          strstr(sym_last_error(), "barrier"),
                      "sym_finalize against a split team's barrier: %s: %s", sym_status_name(st),
                      sym_last_error());
        } else { /* not a member: its finalize waits for theirs */
            PE_OK(st);
        }
    } else {
        sym_status_t st = sym_barrier(team, NULL);
        if (with_pe0)
            PE_ASSERT((st == SYM_ERR_MISMATCH && strstr(sym_last_error(), "sym_finalize")) ||
                          (st == SYM_ERR_PEER_LOST &&
                           strstr(sym_last_error(), "returned it SYM_ERR_MISMATCH")),
                      "sym_barrier on a split team against a finalize: %s: %s", sym_status_name(st),
                      sym_last_error());
        else /* PE 0 is no member: the team's barrier completes */
            PE_OK(st);
    }
    const double took = harness_now() - t0;
    PE_ASSERT(took < harness_seconds(10), "the call took %.1f s (timeout 60 s)", took);
    if (me != 0 && with_pe0) /* meets PE 0's finalize, or finds it gone */
        pe_ignore(sym_finalize());
    else if (me != 0)
        PE_OK(sym_finalize());
}

Test(diverge, finalize_vs_split_team_barrier, .timeout = HARNESS_CR_TIMEOUT(120))
{
    harness_require_symrun("a PE's exit status and its life cycle come from symrun's segment");
    static const char *const env[] = {"SYMHEAP_TIMEOUT=60", NULL};
    static const bool with[] = {true, false};
    for (int n = 2; n <= 4; n++) {
        for (int w = 0; w < 2; w++) {
            if (!harness_pes_listed(n) || (!with[w] && n < 3))
                continue;
            struct pe_job job = {.npes = n,
                                 .body = finalize_vs_split_barrier_body,
                                 .arg = (void *)&with[w],
                                 .raw = true,
                                 .env = env};
            struct pe_outcome out;
            pe_job_run(&job, &out);
            assert_job_ok(&out);
        }
    }
}

/* A failed finalize, then an exit: PE 0's sym_finalize times out while PE 1 is busy;
 * PE 0 exits; PE 1's next call, with a long timeout of its own, must fail
 * with SYM_ERR_PEER_LOST at once instead of waiting that timeout out. */
static void failed_finalize_exit_body(int me, int npes, void *arg)
{
    (void)arg;
    (void)npes;
    PE_OK(sym_init());
    if (me == 0) {
        PE_FAILS_WITH(sym_finalize(), SYM_ERR_TIMEOUT);
        return;
    }
    /* busy elsewhere until PE 0's finalize has given up and it exited */
    usleep((useconds_t)(harness_seconds(2.5) * 1e6));
    const sym_coll_opts_t opts = {.timeout_s = 60};
    const double t0 = harness_now();
    PE_FAILS_WITH(sym_barrier(sym_team_world(), &opts), SYM_ERR_PEER_LOST);
    const double took = harness_now() - t0;
    PE_ASSERT(strstr(sym_last_error(), "PE 0 "), "the loss names another PE: %s", sym_last_error());
    PE_ASSERT(took < harness_seconds(2), "PE 0's exit was reported after %.1f s", took);
    pe_ignore(sym_finalize());
}

Test(diverge, failed_finalize_exit_is_lost, .timeout = HARNESS_CR_TIMEOUT(120))
{
    harness_require_symrun("a PE's exit status and its life cycle come from symrun's segment");
    if (!harness_pes_listed(2))
        cr_skip_test("SYMHEAP_TEST_PES does not list 2");
    char timeout[64];
    snprintf(timeout, sizeof(timeout), "SYMHEAP_TIMEOUT=%g", harness_seconds(1));
    const char *const env[] = {timeout, NULL};
    struct pe_job job = {.npes = 2, .body = failed_finalize_exit_body, .raw = true, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ---- the PE that died first is named ------------------------------------- */

/* The words that say how the killed PE ended: what the harness's launcher
 * reports, or the TCP rendezvous's when a job joins through it. */
struct killed_case {
    const char *launcher; /* NULL: the harness's */
    const char *words;    /* NULL: harness_killed_words() */
    const char *const *env;
};

/* One PE is killed between allreduces; every survivor must name it, then
 * exits at once without finalizing, as a program does after an error:
 * those exits must not be taken for the cause by the slower survivors. */
static void killed_named_body(int me, int npes, void *arg)
{
    const struct killed_case *kc = arg;
    const int victim = (npes * 5 / 8 + 1) % npes;
    uint64_t src = 1, dst = 0;
    sym_status_t st = SYM_OK;
    for (int i = 0; st == SYM_OK; i++) {
        if (me == victim && i == 3)
            raise(SIGKILL);
        st = sym_allreduce(sym_team_world(), &dst, &src, 1, SYM_UINT64, SYM_OP_SUM, NULL);
        PE_ASSERT(st != SYM_OK || dst == (uint64_t)npes, "allreduce gave %llu",
                  (unsigned long long)dst);
        PE_ASSERT(i < 100000, "PE %d was never reported lost", victim);
    }
    char want[32];
    snprintf(want, sizeof(want), "PE %d ", victim);
    const char *words = kc->words ? kc->words : harness_killed_words();
    PE_ASSERT(st == SYM_ERR_PEER_LOST && strstr(sym_last_error(), want) &&
                  strstr(sym_last_error(), words),
              "expected SYM_ERR_PEER_LOST naming PE %d (%s), got %s: %s", victim, words,
              sym_status_name(st), sym_last_error());
    _exit(0);
}

static void killed_named_jobs(const struct killed_case *kc, int max_pes)
{
    const bool quick = getenv("SYMHEAP_TEST_QUICK") != NULL;
    for (int n = 3; n <= max_pes; n++) {
        if (!harness_pes_listed(n) || (quick && n % 2 == 0 && n != 8))
            continue;
        struct pe_job job = {.npes = n,
                             .body = killed_named_body,
                             .arg = (void *)kc,
                             .launcher = kc->launcher,
                             .env = kc->env};
        struct pe_outcome out;
        pe_job_run(&job, &out);
        const int victim = (n * 5 / 8 + 1) % n;
        for (int pe = 0; pe < n; pe++) {
            if (pe == victim)
                cr_expect(out.term_signal[pe] == SIGKILL, "%d PEs: the victim, PE %d, ended %d", n,
                          pe, out.exit_code[pe]);
            else
                cr_expect(out.exit_code[pe] == 0, "%d PEs: survivor PE %d failed (exit %d)", n, pe,
                          out.exit_code[pe]);
        }
        cr_expect(out.leftover_objects == 0, "%d PEs: %d objects left in /dev/shm", n,
                  out.leftover_objects);
    }
}

Test(diverge, killed_pe_is_named, .timeout = HARNESS_CR_TIMEOUT(300))
{
    harness_require_symrun("the order of deaths comes from symrun's segment");
    static const struct killed_case kc = {0};
    killed_named_jobs(&kc, 8);
}

/* Joining through the TCP rendezvous there is no supervisor that saw the
 * deaths in order: a PE's error names the PE it found lost, in its heap and
 * to the root, and that is what the others follow.  Over symheap's shm
 * transport local peers also find the victim by its process. */
Test(diverge, killed_pe_is_named_tcp, .timeout = HARNESS_CR_TIMEOUT(300))
{
    harness_require_symrun("this case starts its own TCP rendezvous");
    static const struct killed_case kc = {.launcher = "tcp", .words = "without finalizing"};
    killed_named_jobs(&kc, 8);
}

/* Over libfabric no heap is mapped here and no process probed: only the
 * root's relays tell, and a survivor's exit (its connection's end) may
 * reach the root before the victim's. */
Test(diverge, killed_pe_is_named_tcp_ofi, .timeout = HARNESS_CR_TIMEOUT(300))
{
    harness_require_symrun("this case starts its own TCP rendezvous");
    if (!sym_transport_available("tcp;ofi_rxm"))
        cr_skip_test("libfabric's tcp;ofi_rxm provider is not available here");
    static const char *const env[] = {"SYMHEAP_TRANSPORT=ofi", "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
                                      NULL};
    static const struct killed_case kc = {
        .launcher = "tcp", .words = "lost its bootstrap connection without finalizing", .env = env};
    killed_named_jobs(&kc, 5);
}
