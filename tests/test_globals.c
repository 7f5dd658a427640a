/* test_globals.c - global and static variables (.data and .bss of the
 * executable) as targets of puts, gets, atomics, signals and waits through
 * the native API, at 1..8 PEs; finalize leaves them intact and nothing
 * mapped; SYMHEAP_GLOBALS=cma (cross-memory attach); a PE with a different
 * data segment is refused.  Built twice: as a PIE and as a non-PIE. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#define N 1000

/* .data (non-zero initialisers) and .bss, static and external linkage. */
static int64_t s_data[N] = {7, 11, 13};
static const int64_t s_data_init[3] = {7, 11, 13};
int64_t g_bss[N];
static uint8_t s_bytes[4099];
uint64_t g_counter;
static uint32_t s_counter32;
static uint64_t s_sig;
static uint64_t s_sigbuf[64];
int32_t g_flag;
static uint64_t s_strided[3 * 64];
static uint16_t s_small = 0x1234;
static int s_initialized_int = 424242;

static int64_t val(int pe, size_t i)
{
    return (int64_t)pe * 1000003 + (int64_t)i * 31 - 5;
}

static uint8_t byte_of(int pe, size_t i)
{
    return (uint8_t)(pe * 37 + i * 3 + (i >> 7));
}

static void globals_body(int me, int n, void *arg)
{
    (void)arg;
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    /* The remap preserved what .data held and stdio still works. */
    PE_ASSERT(s_initialized_int == 424242 && s_small == 0x1234,
              "initialised globals changed "
              "by sym_init: %d %x",
              s_initialized_int, s_small);
    PE_ASSERT(memcmp(s_data, s_data_init, sizeof(s_data_init)) == 0, "s_data lost its initialiser");
    fprintf(stderr, "%s", ""); /* stdio state lives in .data/.bss too */

    /* addressability */
    PE_ASSERT(sym_addr_accessible(&s_data[5], right) == 1, "static array not accessible");
    PE_ASSERT(sym_addr_accessible(&g_bss[N - 1], right) == 1, "global array not accessible");
    int64_t stack_var = 0;
    PE_ASSERT(sym_addr_accessible(&stack_var, right) == 0, "a stack variable is accessible");
    PE_FAILS_WITH(sym_put(&g_bss[N - 1], &stack_var, 4096 * 1024, right), SYM_ERR_NOT_SYMMETRIC);

    /* put (blocking and nbi) into the right neighbour, get from the left */
    int64_t buf[N];
    for (size_t i = 0; i < N; i++)
        buf[i] = val(me, i);
    PE_OK(sym_barrier_all());
    PE_OK(sym_put(g_bss, buf, sizeof(buf), right));
    PE_OK(sym_put_nbi(s_data, buf, sizeof(buf), right));
    PE_OK(sym_quiet());
    PE_OK(sym_barrier_all());
    for (size_t i = 0; i < N; i++) {
        PE_ASSERT(g_bss[i] == val(left, i), "g_bss[%zu] = %lld, expected %lld", i,
                  (long long)g_bss[i], (long long)val(left, i));
        PE_ASSERT(s_data[i] == val(left, i), "s_data[%zu] wrong", i);
    }
    int64_t got[N];
    PE_OK(sym_get(got, g_bss, sizeof(got), right)); /* right holds my values */
    for (size_t i = 0; i < N; i++)
        PE_ASSERT(got[i] == val(me, i), "get g_bss[%zu] = %lld", i, (long long)got[i]);
    memset(got, 0, sizeof(got));
    PE_OK(sym_get_nbi(got, s_data, sizeof(got), left));
    PE_OK(sym_quiet());
    int left2 = (left - 1 + n) % n;
    for (size_t i = 0; i < N; i++)
        PE_ASSERT(got[i] == val(left2, i), "get_nbi s_data[%zu] wrong", i);

    /* odd sizes, byte exact, guards untouched */
    memset(s_bytes, 0xEE, sizeof(s_bytes));
    uint8_t src[4097];
    for (size_t i = 0; i < sizeof(src); i++)
        src[i] = byte_of(me, i);
    PE_OK(sym_barrier_all());
    PE_OK(sym_put(s_bytes + 1, src, sizeof(src), right));
    PE_OK(sym_barrier_all());
    PE_ASSERT(s_bytes[0] == 0xEE && s_bytes[sizeof(s_bytes) - 1] == 0xEE, "guard bytes hit");
    for (size_t i = 0; i < sizeof(src); i++)
        PE_ASSERT(s_bytes[1 + i] == byte_of(left, i), "s_bytes[%zu] wrong", 1 + i);

    /* strided */
    uint64_t lsrc[64];
    for (size_t i = 0; i < 64; i++)
        lsrc[i] = (uint64_t)val(me, i);
    memset(s_strided, 0, sizeof(s_strided));
    PE_OK(sym_barrier_all());
    PE_OK(sym_iput(s_strided, lsrc, 3, 1, 8, 64, right));
    PE_OK(sym_barrier_all());
    for (size_t i = 0; i < 3 * 64; i++)
        PE_ASSERT(s_strided[i] == (i % 3 == 0 ? (uint64_t)val(left, i / 3) : 0),
                  "iput s_strided[%zu] wrong", i);
    uint64_t lgot[128] = {0};
    PE_OK(sym_iget(lgot, s_strided, 2, 3, 8, 64, right)); /* right's holds mine */
    for (size_t i = 0; i < 128; i++)
        PE_ASSERT(lgot[i] == (i % 2 == 0 ? (uint64_t)val(me, i / 2) : 0), "iget lgot[%zu]", i);

    /* single elements */
    PE_OK(sym_barrier_all());
    PE_OK(sym_p16(&s_small, (uint16_t)(0x100 + me), right));
    PE_OK(sym_barrier_all());
    PE_ASSERT(s_small == 0x100 + left, "s_small = %x", s_small);
    uint16_t g16 = 0;
    PE_OK(sym_g16(&g16, &s_small, left));
    PE_ASSERT(g16 == 0x100 + left2, "g16 = %x", g16);

    /* atomics from every PE on PE 0's words: exact totals */
    PE_OK(sym_barrier_all());
    for (int k = 0; k <= me; k++) {
        PE_OK(sym_atomic_add64(&g_counter, 1, 0));
        uint32_t old;
        PE_OK(sym_atomic_fetch_add32(&s_counter32, 2, &old, 0));
    }
    PE_OK(sym_barrier_all());
    uint64_t total = 0;
    PE_OK(sym_atomic_fetch64(&total, &g_counter, 0));
    PE_ASSERT(total == (uint64_t)n * (n + 1) / 2, "g_counter = %llu, expected %d",
              (unsigned long long)total, n * (n + 1) / 2);
    uint32_t t32 = 0;
    PE_OK(sym_atomic_fetch32(&t32, &s_counter32, 0));
    PE_ASSERT(t32 == (uint32_t)(n * (n + 1)), "s_counter32 = %u", t32);
    if (me == 0)
        PE_ASSERT(g_counter == total, "PE 0's own view differs");
    uint64_t prev = 0;
    PE_OK(sym_barrier_all());
    PE_OK(sym_atomic_compare_swap64(&g_counter, total, 1000 + (uint64_t)me, &prev, 0));
    PE_OK(sym_barrier_all());
    uint64_t after = 0;
    PE_OK(sym_atomic_fetch64(&after, &g_counter, 0));
    PE_ASSERT(after >= 1000 && after < 1000 + (uint64_t)n, "cswap winner %llu",
              (unsigned long long)after);
    PE_ASSERT((prev == total) == (after == 1000 + (uint64_t)me), "cswap result inconsistent");

    /* put-with-signal into a global, waited on with signal_wait_until */
    for (uint64_t round = 1; round <= 5; round++) {
        uint64_t msg[64];
        for (size_t i = 0; i < 64; i++)
            msg[i] = round * 1000 + (uint64_t)me * 64 + i;
        PE_OK(sym_put_signal(s_sigbuf, msg, sizeof(msg), &s_sig, 1, SYM_SIGNAL_ADD, right));
        uint64_t seen = 0;
        PE_OK(sym_signal_wait_until(&s_sig, SYM_CMP_GE, round, &seen));
        for (size_t i = 0; i < 64; i++)
            PE_ASSERT(s_sigbuf[i] == round * 1000 + (uint64_t)left * 64 + i,
                      "round %llu: s_sigbuf[%zu] wrong", (unsigned long long)round, i);
        PE_OK(sym_barrier_all()); /* nobody overwrites before it was read */
    }

    /* wait_until on a global flag set by the left neighbour with an atomic */
    PE_OK(sym_atomic_set32((uint32_t *)&g_flag, (uint32_t)(77 + me), right));
    PE_OK(sym_wait_until_int32(&g_flag, SYM_CMP_EQ, 77 + left));
    int ok = 0;
    PE_OK(sym_test_int32(&g_flag, SYM_CMP_EQ, 77 + left, &ok));
    PE_ASSERT(ok, "sym_test_int32 disagrees with the wait");

    /* direct pointers: a store through sym_ptr lands in the peer's variable;
     * a peer's globals are mapped exactly when its heap is (not over ofi) */
    int64_t *heap_probe = sym_malloc(sizeof(int64_t));
    PE_ASSERT(heap_probe != NULL, "sym_malloc: %s", sym_last_error());
    const bool mapped = sym_ptr(heap_probe, right) != NULL;
    sym_free(heap_probe);
    int64_t *peer = sym_ptr(&g_bss[3], right);
    PE_ASSERT((peer != NULL) == mapped, "sym_ptr(global, %d) is %p, PE %d's heap is %smapped",
              right, (void *)peer, right, mapped ? "" : "not ");
    PE_OK(sym_barrier_all());
    if (peer)
        *peer = -1 - me;
    else
        PE_OK(sym_p64((uint64_t *)&g_bss[3], (uint64_t)(-1 - me), right));
    PE_OK(sym_barrier_all());
    PE_ASSERT(g_bss[3] == -1 - left, "store through sym_ptr: %lld", (long long)g_bss[3]);
    PE_ASSERT(sym_ptr(&g_bss[3], me) != NULL, "sym_ptr to myself");
    PE_OK(sym_barrier_all());
}

/* A child forked by a PE gets its own copy of the variables, not the PE's
 * shared ones; freeing a global is refused. */
static void fork_body(int me, int n, void *arg)
{
    (void)arg;
    int right = (me + 1) % n;
    g_bss[0] = 100 + me;
    PE_OK(sym_barrier_all());
    fflush(NULL);
    pid_t pid = fork();
    PE_ASSERT(pid >= 0, "fork");
    if (pid == 0) {
        int ok = g_bss[0] == 100 + me;
        g_bss[0] = -7;
        s_initialized_int = -7;
        _exit(ok ? 0 : 3);
    }
    int ws = 0;
    PE_ASSERT(waitpid(pid, &ws, 0) == pid, "waitpid");
    PE_ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "the child saw wrong values (%d)", ws);
    PE_ASSERT(g_bss[0] == 100 + me && s_initialized_int == 424242,
              "the child's stores reached the parent: %lld %d", (long long)g_bss[0],
              s_initialized_int);
    /* the parent's variables are still shared with its peers */
    PE_OK(sym_barrier_all());
    PE_OK(sym_p64((uint64_t *)&g_bss[1], 55 + (uint64_t)me, right));
    PE_OK(sym_barrier_all());
    PE_ASSERT(g_bss[1] == 55 + (me - 1 + n) % n, "put after fork: %lld", (long long)g_bss[1]);
    sym_free(g_bss);
    PE_ASSERT(strstr(sym_last_error(), "global or static variable") != NULL,
              "sym_free of a "
              "global: %s",
              sym_last_error());
}

Test(globals, fork_child_is_private)
{
    run_pes(2, fork_body, NULL);
}

/* Fork after init while the PE runs a second thread, many times: the
 * child's runtime bookkeeping between fork and the atfork handler that
 * makes its variables private (libc's and, under ThreadSanitizer, the
 * statically linked runtime's own fork handlers, whose state lives in the
 * segment) must not break the parent, its peers or the child.  The parent
 * then starts threads, takes locks and puts into a peer's variables; the
 * children do the same in their private copy.  Under TSan this is the
 * check that the runtime's fork handling survives the shared segment
 * (.ci/test runs it with die_after_fork=0, see there). */
static pthread_mutex_t g_fork_lock = PTHREAD_MUTEX_INITIALIZER;
static long g_fork_counter;
static int g_fork_stop;

static void *fork_helper(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&g_fork_stop, __ATOMIC_ACQUIRE)) {
        pthread_mutex_lock(&g_fork_lock);
        g_fork_counter++;
        pthread_mutex_unlock(&g_fork_lock);
        sched_yield();
    }
    return NULL;
}

static void *fork_adder(void *arg)
{
    for (int i = 0; i < 100; i++) {
        pthread_mutex_lock(&g_fork_lock);
        g_fork_counter++;
        pthread_mutex_unlock(&g_fork_lock);
    }
    return arg;
}

static void fork_threads_body(int me, int n, void *arg)
{
    (void)arg;
    int right = (me + 1) % n;
    pthread_t helper;
    PE_ASSERT(pthread_create(&helper, NULL, fork_helper, NULL) == 0, "pthread_create");
    for (int round = 0; round < 10; round++) {
        g_bss[2] = 1000 * me + round;
        fflush(NULL);
        pid_t pid = fork();
        PE_ASSERT(pid >= 0, "fork");
        if (pid == 0) {
            /* the child: its own variables, its own threads */
            int ok = g_bss[2] == 1000 * me + round;
            g_bss[2] = -1;
            /* the parent's helper may have held the lock at the fork */
            pthread_mutex_init(&g_fork_lock, NULL);
            pthread_t t;
            ok = ok && pthread_create(&t, NULL, fork_adder, &g_fork_counter) == 0 &&
                 pthread_join(t, NULL) == 0;
            _exit(ok ? 0 : 3);
        }
        pthread_t t;
        PE_ASSERT(pthread_create(&t, NULL, fork_adder, NULL) == 0, "pthread_create after fork");
        PE_ASSERT(pthread_join(t, NULL) == 0, "pthread_join");
        int ws = 0;
        PE_ASSERT(waitpid(pid, &ws, 0) == pid, "waitpid");
        PE_ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 0, "round %d: child ended with %#x", round,
                  ws);
        PE_ASSERT(g_bss[2] == 1000 * me + round,
                  "round %d: the child's store reached the "
                  "parent: %lld",
                  round, (long long)g_bss[2]);
        /* the parent's variables are still the job's */
        PE_OK(sym_p64((uint64_t *)&g_bss[3], (uint64_t)(10 * me + round), right));
        PE_OK(sym_barrier_all());
        long want = 10 * ((me - 1 + n) % n) + round;
        PE_ASSERT(g_bss[3] == want, "round %d: put after fork: %lld, expected %ld", round,
                  (long long)g_bss[3], want);
        PE_OK(sym_barrier_all());
    }
    __atomic_store_n(&g_fork_stop, 1, __ATOMIC_RELEASE);
    PE_ASSERT(pthread_join(helper, NULL) == 0, "pthread_join");
}

#if defined(__SANITIZE_THREAD__) || defined(__SANITIZE_ADDRESS__)
#define UNDER_SANITIZER 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer) || __has_feature(address_sanitizer)
#define UNDER_SANITIZER 1
#endif
#endif

Test(globals, fork_with_threads_after_init)
{
#ifdef UNDER_SANITIZER
    /* Known limitation (src/globals.c, "Fork"): clang 14's sanitizer
     * runtimes are not fork-safe in a threaded process (ASan holds no
     * allocator lock across fork, LLVM 18 added it; TSan switches itself
     * off in such a child), and their state lives in the shared segment,
     * whose child copy is taken after the fork.  Since the parent waits for
     * that copy this case passed 5 of 6 ASan runs, the sixth hung in the
     * child; with SYMHEAP_GLOBALS=cma it hung once in ten.  So it is
     * reported skipped here, never passed; the gcc stages run it.
     * SYMHEAP_TEST_SAN_FORK=1 runs it anyway. */
    if (!getenv("SYMHEAP_TEST_SAN_FORK"))
        cr_skip_test("under a sanitizer a PE that forks while its threads run cannot keep the "
                     "runtime's state consistent in the child (known limitation, "
                     "src/globals.c; SYMHEAP_TEST_SAN_FORK=1 runs it anyway)");
#endif
    run_pes(3, fork_threads_body, NULL);
}

/* A child that cannot get its private copy (no address space left for it:
 * RLIMIT_AS at the parent's current size) must not run on sharing the
 * parent's variables: it exits at once with status 127, saying why. */
static void fork_nomem_body(int me, int n, void *arg)
{
    (void)arg;
    (void)n;
    g_bss[0] = 200 + me;
    PE_OK(sym_barrier_all());
    int pfd[2];
    PE_ASSERT(pipe(pfd) == 0, "pipe");
    fflush(NULL);
    int saved_err = dup(STDERR_FILENO);
    PE_ASSERT(saved_err >= 0 && dup2(pfd[1], STDERR_FILENO) == STDERR_FILENO, "dup2");
    struct rlimit old;
    PE_ASSERT(getrlimit(RLIMIT_AS, &old) == 0, "getrlimit");
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    PE_ASSERT(f && fscanf(f, "%lu", &pages) == 1, "statm");
    fclose(f);
    struct rlimit tight = {(rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE), old.rlim_max};
    PE_ASSERT(setrlimit(RLIMIT_AS, &tight) == 0, "setrlimit");
    pid_t pid = fork();
    if (pid == 0) {
        /* reached only if the library let the child go on */
        g_bss[0] = -9;
        _exit(0);
    }
    setrlimit(RLIMIT_AS, &old);
    dup2(saved_err, STDERR_FILENO);
    close(saved_err);
    close(pfd[1]);
    PE_ASSERT(pid > 0, "fork");
    char text[1024];
    size_t got = 0;
    ssize_t k;
    while (got < sizeof(text) - 1 && (k = read(pfd[0], text + got, sizeof(text) - 1 - got)) > 0)
        got += (size_t)k;
    text[got] = '\0';
    close(pfd[0]);
    int ws = 0;
    PE_ASSERT(waitpid(pid, &ws, 0) == pid, "waitpid");
    PE_ASSERT(WIFEXITED(ws) && WEXITSTATUS(ws) == 127,
              "a child without a private copy of the globals went on (status 0x%x); it said "
              "'%s'",
              ws, text);
    PE_ASSERT(strstr(text, "cannot get a private copy") && strstr(text, "ENOMEM"),
              "the child's message does not say why: '%s'", text);
    PE_ASSERT(g_bss[0] == 200 + me, "the child wrote into the parent's variables");
    PE_OK(sym_barrier_all());
}

Test(globals, fork_child_without_private_copy_exits)
{
    run_pes(2, fork_nomem_body, NULL);
}

ParameterizedTestParameters(globals, rma_amo_signal_wait)
{
    static int counts[] = HARNESS_PE_COUNTS;
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, globals, rma_amo_signal_wait)
{
    run_pes(*npes, globals_body, NULL);
}

/* Segments of the library (heaps, global variables: memfds named
 * "symheap-...") this process maps, but its own global variables: after
 * sym_finalize they stay in their memfd, which nobody else maps any more.
 * The launcher's control segment ("symheap-job") is the launcher's. */
static int shm_mappings(int me)
{
    (void)me;
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[512];
    const uintptr_t own = (uintptr_t)&g_bss[0];
    int count = 0;
    while (fgets(line, sizeof(line), f)) {
        unsigned long lo, hi;
        if (!strstr(line, "/memfd:symheap-") || strstr(line, "symheap-job") ||
            sscanf(line, "%lx-%lx", &lo, &hi) != 2)
            continue;
        count += !(own >= lo && own < hi);
    }
    fclose(f);
    return count;
}

/* Raw job: two init/finalize cycles; after each finalize the globals keep
 * the values peers wrote and stay writable, no peer's object is mapped any
 * more, and no object is left in /dev/shm (the harness checks). */
/* A .bss word in a 64 KiB window of its own (the kernel maps present
 * neighbours of a faulting page within such a window), written before the
 * first init and then not touched again until the second init is done:
 * after the first init the segment is a shared mapping whose untouched
 * pages are not present, yet hold data. */
#define FAR_WORDS (3 * 65536 / sizeof(uint64_t))
#define FAR_AT    (FAR_WORDS / 2)
static uint64_t s_far_page[FAR_WORDS]; /* the middle window is the array's alone */

static void finalize_body(int me, int n, void *arg)
{
    (void)arg;
    s_initialized_int = 1000 + me; /* before init: must survive the remap */
    s_far_page[FAR_AT] = 0xfa0000u + (uint64_t)me;
    for (int cycle = 0; cycle < 2; cycle++) {
        PE_OK(sym_init());
        PE_ASSERT(s_initialized_int == 1000 + me + cycle, "a pre-init value was lost");
        int right = (me + 1) % n, left = (me - 1 + n) % n;
        int64_t v[4] = {me, cycle, -me, 99};
        PE_OK(sym_put(&g_bss[10], v, sizeof(v), right));
        PE_OK(sym_atomic_add64(&g_counter, 1, 0));
        PE_OK(sym_barrier_all());
        PE_ASSERT(shm_mappings(me) > 0, "nothing mapped while initialised?");
        PE_OK(sym_finalize());
        PE_ASSERT(shm_mappings(me) == 0, "%d segment mappings remain after sym_finalize",
                  shm_mappings(me));
        PE_ASSERT(g_bss[10] == left && g_bss[11] == cycle && g_bss[12] == -left && g_bss[13] == 99,
                  "globals lost their values at sym_finalize");
        if (me == 0)
            PE_ASSERT(g_counter == (uint64_t)n * (cycle + 1), "g_counter = %llu after cycle %d",
                      (unsigned long long)g_counter, cycle);
        s_initialized_int++;
        g_bss[10] = 12345; /* still writable, and private now */
        PE_ASSERT(g_bss[10] == 12345, "write after finalize");
        PE_ASSERT(sym_addr_accessible(&g_bss[10], right) == 0, "accessible after finalize");
    }
    PE_ASSERT(s_far_page[FAR_AT] == 0xfa0000u + (uint64_t)me,
              "a global untouched across two init cycles reads %#llx",
              (unsigned long long)s_far_page[FAR_AT]);
}

ParameterizedTestParameters(globals, finalize_keeps_values)
{
    static int counts[] = {1, 2, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, globals, finalize_keeps_values)
{
    struct pe_job job = {.npes = *npes, .body = finalize_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* Cross-memory attach: data movement works, atomics and signals on peers'
 * globals say they are unavailable, sym_ptr gives no pointer. */
static void cma_body(int me, int n, void *arg)
{
    (void)arg;
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    int64_t buf[N];
    for (size_t i = 0; i < N; i++)
        buf[i] = val(me, i);
    PE_OK(sym_put(g_bss, buf, sizeof(buf), right));
    PE_OK(sym_barrier_all());
    for (size_t i = 0; i < N; i++)
        PE_ASSERT(g_bss[i] == val(left, i), "cma put: g_bss[%zu] wrong", i);
    int64_t got[N];
    PE_OK(sym_get(got, g_bss, sizeof(got), right));
    for (size_t i = 0; i < N; i++)
        PE_ASSERT(got[i] == val(me, i), "cma get: [%zu] wrong", i);
    PE_OK(sym_p16(&s_small, (uint16_t)me, right));
    uint64_t lsrc[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    PE_OK(sym_iput(s_strided, lsrc, 2, 1, 8, 8, right));
    PE_OK(sym_barrier_all());
    PE_ASSERT(s_small == (uint16_t)left, "cma p16");
    for (size_t i = 0; i < 8; i++)
        PE_ASSERT(s_strided[2 * i] == lsrc[i], "cma iput [%zu]", i);
    uint64_t lg[8] = {0};
    PE_OK(sym_iget(lg, s_strided, 1, 2, 8, 8, left));
    for (size_t i = 0; i < 8; i++)
        PE_ASSERT(lg[i] == lsrc[i], "cma iget [%zu]", i);
    /* Over ofi the provider reaches the unshared segment: atomics work. */
    uint64_t *heap_probe = sym_malloc(8);
    PE_ASSERT(heap_probe != NULL, "sym_malloc: %s", sym_last_error());
    const bool mapped = sym_ptr(heap_probe, right) != NULL;
    sym_free(heap_probe);
    if (n > 1 && !mapped) {
        g_counter = 0;
        PE_OK(sym_barrier_all());
        PE_OK(sym_atomic_add64(&g_counter, 5, right));
        PE_OK(sym_barrier_all());
        PE_ASSERT(g_counter == 5, "atomic add on an unshared global over ofi: %llu",
                  (unsigned long long)g_counter);
        PE_ASSERT(sym_ptr(g_bss, right) == NULL, "sym_ptr to an unmapped peer's global");
    }
    if (n > 1 && mapped) {
        PE_FAILS_WITH(sym_atomic_add64(&g_counter, 1, right), SYM_ERR_UNAVAILABLE);
        PE_ASSERT(strstr(sym_last_error(), "cross-memory") != NULL, "message: %s",
                  sym_last_error());
        PE_FAILS_WITH(sym_put_signal(s_sigbuf, buf, 8, &s_sig, 1, SYM_SIGNAL_SET, right),
                      SYM_ERR_UNAVAILABLE);
        PE_ASSERT(sym_ptr(g_bss, right) == NULL, "sym_ptr to a CMA peer's global");
    }
    /* heap targets and signals in the heap keep working */
    uint64_t *sig = sym_calloc(1, 8);
    PE_ASSERT(sig, "sym_calloc: %s", sym_last_error());
    PE_OK(sym_put_signal(&g_bss[0], buf, 8, sig, 1, SYM_SIGNAL_ADD, right));
    PE_OK(sym_signal_wait_until(sig, SYM_CMP_GE, 1, NULL));
    PE_ASSERT(g_bss[0] == val(left, 0), "cma data before a heap signal");
    PE_OK(sym_barrier_all());
    sym_free(sig);
}

ParameterizedTestParameters(globals, cma_fallback)
{
    static int counts[] = {1, 2, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, globals, cma_fallback)
{
    static const char *const env[] = {"SYMHEAP_GLOBALS=cma", NULL};
    run_pes_env(*npes, env, cma_body, NULL);
}

/* PE 0 declares no globals (SYMHEAP_GLOBALS=off), PE 1 does: the segments
 * differ, as with two different executables, and init says so on both. */
static void mismatch_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    setenv("SYMHEAP_GLOBALS", me == 0 ? "off" : "auto", 1);
    PE_FAILS_WITH(sym_init(), SYM_ERR_BOOTSTRAP);
    PE_ASSERT(strstr(sym_last_error(), "same executable") != NULL, "message: %s", sym_last_error());
}

Test(globals, different_segments_refused)
{
    struct pe_job job = {.npes = 2, .body = mismatch_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}
