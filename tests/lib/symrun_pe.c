/*
 * symrun_pe.c - the PE program test_symrun_*.c start under the real symrun.
 *
 *   symrun_pe MODE [ARGS]
 *
 * PE 0 first prints "key <job key>" (read from the launcher's control
 * segment), so the test can look for the job's objects in /dev/shm.  The
 * modes (VICTIM is a PE number):
 *   ring                put/get ring exchange, barrier, "pe X of N ok"
 *   ring-tagged         ring, plus several lines, stderr and an unterminated
 *                       last line, for --tag-output
 *   heapfree            "pe X free F largest L" from sym_heap_free
 *   exit VICTIM CODE    VICTIM exits CODE after init without finalizing
 *   die VICTIM          VICTIM raises SIGKILL after init
 *                       (in both, the others wait in a barrier, expect
 *                       SYM_ERR_PEER_LOST naming VICTIM, and exit 0)
 *   die-hang VICTIM     VICTIM raises SIGKILL after init; the others print
 *                       "pid P" and pause() outside the library
 *   hang VICTIM         every PE finalizes; then VICTIM prints "pid P" and
 *                       pause()s
 *   hang-hard VICTIM    hang, with SIGTERM ignored
 *   wait-signal         every PE prints "pid P" after init and pause()s
 *   wait-signal-hard    wait-signal, with SIGTERM and SIGINT ignored
 *   init-hang VICTIM    every PE prints "pid P"; VICTIM then pause()s before
 *                       sym_init, the others enter sym_init (and wait there
 *                       for VICTIM, their heaps made)
 *   leak-then-die VICTIM  before sym_init, VICTIM creates the heap object
 *                       "/symheap-<uid>-<key>-99" and raises SIGKILL; the
 *                       others expect sym_init to fail with PEER_LOST
 *   ignore-errors       a program that checks nothing, as a newcomer writes
 *                       it: sym_init, a ring put, a barrier, and sym_finalize's
 *                       status as the exit status
 *   unread VICTIM READ  VICTIM puts to PE 99 (SYM_ERR_INVALID_PE), reads
 *                       sym_last_error() if READ is 1, and exits 3 without
 *                       finalizing; the others expect the loss
 *
 * Anything unexpected is reported on stderr and exits BROKEN, a status no
 * mode asks for, so the test can tell "the PE checked and failed" from the
 * outcome it provoked.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <symheap.h>

#include "launch/job.h"

#define BROKEN     10
#define RING_WORDS 1000

static int my_pe = -1;
static int job_npes = -1;

__attribute__((noreturn, format(printf, 1, 2))) static void broken(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "symrun_pe: PE %d: ", my_pe);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fflush(NULL);
    _exit(BROKEN);
}

static long env_long(const char *name)
{
    const char *s = getenv(name);
    char *end;
    if (s == NULL || *s == '\0')
        broken("%s is not set: not started by symrun?", name);
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < 0)
        broken("%s='%s' is not a number", name, s);
    return v;
}

/* Straight from the control segment, not through the library: the key must
 * be known even in modes that never initialise it. */
static void read_job_key(char key[SYM_JOB_KEY_LEN + 1])
{
    int fd = (int)env_long(SYM_ENV_SYMRUN_FD);
    struct stat st;
    if (fstat(fd, &st) != 0 || (size_t)st.st_size < sizeof(struct sym_job_ctrl))
        broken("%s=%d is not the control segment", SYM_ENV_SYMRUN_FD, fd);
    const struct sym_job_ctrl *ctrl = mmap(NULL, sizeof(*ctrl), PROT_READ, MAP_SHARED, fd, 0);
    if (ctrl == MAP_FAILED)
        broken("mmap of the control segment: %s", strerror(errno));
    if (ctrl->magic != SYM_JOB_MAGIC || strnlen(ctrl->key, sizeof(ctrl->key)) != SYM_JOB_KEY_LEN)
        broken("the control segment has a bad header");
    memcpy(key, ctrl->key, SYM_JOB_KEY_LEN + 1);
    munmap((void *)ctrl, sizeof(*ctrl));
}

static void say(FILE *to, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(FILE *to, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vfprintf(to, fmt, ap);
    va_end(ap);
    /* Flushed at once: some PEs die by a signal right after. */
    fflush(to);
}

static void init_or_die(void)
{
    sym_status_t st = sym_init();
    if (st != SYM_OK)
        broken("sym_init: %s: %s", sym_status_name(st), sym_last_error());
    if (sym_my_pe() != my_pe || sym_n_pes() != job_npes)
        broken("the library says PE %d of %d, the launcher said PE %d of %d", sym_my_pe(),
               sym_n_pes(), my_pe, job_npes);
}

static void finalize_or_die(void)
{
    sym_status_t st = sym_finalize();
    if (st != SYM_OK)
        broken("sym_finalize: %s: %s", sym_status_name(st), sym_last_error());
}

static void check(sym_status_t st, const char *what)
{
    if (st != SYM_OK)
        broken("%s: %s: %s", what, sym_status_name(st), sym_last_error());
}

static uint64_t word_of(int pe, int i)
{
    return (uint64_t)pe * 1000003u + (uint64_t)i * 7919u + 1;
}

static void ring_exchange(void)
{
    int me = sym_my_pe(), n = sym_n_pes();
    int right = (me + 1) % n, left = (me - 1 + n) % n;
    uint64_t *inbox = sym_calloc(RING_WORDS, sizeof(uint64_t));
    uint64_t *mine = sym_malloc(RING_WORDS * sizeof(uint64_t));
    uint64_t got[RING_WORDS];
    if (inbox == NULL || mine == NULL)
        broken("symmetric allocation: %s", sym_last_error());
    for (int i = 0; i < RING_WORDS; i++)
        mine[i] = word_of(me, i);
    check(sym_put(inbox, mine, sizeof(got), right), "sym_put to the right neighbour");
    check(sym_barrier_all(), "sym_barrier_all after the puts");
    check(sym_get(got, mine, sizeof(got), right), "sym_get from the right neighbour");
    for (int i = 0; i < RING_WORDS; i++) {
        if (inbox[i] != word_of(left, i))
            broken("word %d put by PE %d is %llu, expected %llu", i, left,
                   (unsigned long long)inbox[i], (unsigned long long)word_of(left, i));
        if (got[i] != word_of(right, i))
            broken("word %d got from PE %d is %llu, expected %llu", i, right,
                   (unsigned long long)got[i], (unsigned long long)word_of(right, i));
    }
    /* Nobody frees (or finalizes) while a neighbour may still be reading. */
    check(sym_barrier_all(), "sym_barrier_all after the gets");
    sym_free(mine);
    sym_free(inbox);
}

static void mode_ring(bool tagged)
{
    init_or_die();
    ring_exchange();
    int me = sym_my_pe(), n = sym_n_pes();
    say(stdout, "pe %d of %d ok\n", me, n);
    if (tagged) {
        /* Two lines in one write, then stderr, then a last line with no
         * newline that the launcher must still relay (tagged) at EOF. */
        say(stdout, "pe %d line a\npe %d line b\n", me, me);
        say(stderr, "pe %d err\n", me);
        say(stdout, "pe %d tail", me);
    }
    finalize_or_die();
}

static void mode_heapfree(void)
{
    init_or_die();
    size_t free_bytes = 0, largest = 0;
    check(sym_heap_free(&free_bytes, &largest), "sym_heap_free");
    say(stdout, "pe %d free %zu largest %zu\n", my_pe, free_bytes, largest);
    finalize_or_die();
}

/* The survivors' side of exit/die: wait in a barrier for a PE that will
 * never come and expect to hear why. */
static void expect_peer_lost(int victim, const char *how)
{
    sym_status_t st = sym_barrier_all();
    if (st != SYM_ERR_PEER_LOST)
        broken("sym_barrier_all returned %s, expected SYM_ERR_PEER_LOST: %s", sym_status_name(st),
               sym_last_error());
    char want[32];
    snprintf(want, sizeof(want), "PE %d ", victim);
    if (strstr(sym_last_error(), want) == NULL || strstr(sym_last_error(), how) == NULL)
        broken("the loss message \"%s\" does not name \"%s\" and \"%s\"", sym_last_error(), want,
               how);
    say(stdout, "pe %d lost PE %d\n", my_pe, victim);
    st = sym_finalize();
    if (st != SYM_ERR_PEER_LOST)
        broken("sym_finalize returned %s after the loss, expected SYM_ERR_PEER_LOST",
               sym_status_name(st));
}

static void pause_forever(void)
{
    for (;;)
        pause();
}

static void say_pid(void)
{
    say(stdout, "pid %ld\n", (long)getpid());
}

static void leak_then_die(const char *key)
{
    char name[128];
    snprintf(name, sizeof(name), "/" SYM_SHM_PREFIX "%u-%s-99", (unsigned)getuid(), key);
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        broken("shm_open(%s): %s", name, strerror(errno));
    if (ftruncate(fd, 4096) != 0)
        broken("ftruncate(%s): %s", name, strerror(errno));
    raise(SIGKILL);
}

static int arg_int(int argc, char **argv, int i)
{
    if (i >= argc)
        broken("mode %s needs %d argument(s)", argv[1], i - 1);
    char *end;
    long v = strtol(argv[i], &end, 10);
    if (*end != '\0' || v < 0 || v > INT_MAX)
        broken("argument '%s' is not a number", argv[i]);
    return (int)v;
}

int main(int argc, char **argv)
{
    if (argc < 2)
        broken("usage: symrun_pe MODE [ARGS]");
    const char *mode = argv[1];
    my_pe = (int)env_long(SYM_ENV_SYMRUN_PE);
    job_npes = (int)env_long(SYM_ENV_SYMRUN_NPES);
    char key[SYM_JOB_KEY_LEN + 1];
    read_job_key(key);
    if (my_pe == 0)
        say(stdout, "key %s\n", key);

    if (strcmp(mode, "ring") == 0 || strcmp(mode, "ring-tagged") == 0) {
        mode_ring(strcmp(mode, "ring-tagged") == 0);
    } else if (strcmp(mode, "heapfree") == 0) {
        mode_heapfree();
    } else if (strcmp(mode, "exit") == 0 || strcmp(mode, "die") == 0) {
        int victim = arg_int(argc, argv, 2);
        bool die = strcmp(mode, "die") == 0;
        int code = die ? 0 : arg_int(argc, argv, 3);
        init_or_die();
        if (my_pe == victim) {
            if (die)
                raise(SIGKILL);
            fflush(NULL);
            _exit(code);
        }
        char how[64];
        if (die)
            snprintf(how, sizeof(how), "killed by signal %d", SIGKILL);
        else
            snprintf(how, sizeof(how), "exited with status %d", code);
        expect_peer_lost(victim, how);
    } else if (strcmp(mode, "die-hang") == 0) {
        int victim = arg_int(argc, argv, 2);
        init_or_die();
        if (my_pe == victim)
            raise(SIGKILL);
        say_pid();
        pause_forever();
    } else if (strcmp(mode, "hang") == 0 || strcmp(mode, "hang-hard") == 0) {
        int victim = arg_int(argc, argv, 2);
        init_or_die();
        finalize_or_die();
        if (my_pe == victim) {
            if (strcmp(mode, "hang-hard") == 0)
                signal(SIGTERM, SIG_IGN);
            say_pid();
            pause_forever();
        }
    } else if (strcmp(mode, "wait-signal") == 0 || strcmp(mode, "wait-signal-hard") == 0) {
        init_or_die();
        check(sym_barrier_all(), "sym_barrier_all");
        if (strcmp(mode, "wait-signal-hard") == 0) {
            signal(SIGTERM, SIG_IGN);
            signal(SIGINT, SIG_IGN);
        }
        say_pid();
        pause_forever();
    } else if (strcmp(mode, "init-hang") == 0) {
        int victim = arg_int(argc, argv, 2);
        say_pid();
        if (my_pe == victim)
            pause_forever();
        sym_status_t st = sym_init();
        broken("sym_init returned %s while PE %d never started: %s", sym_status_name(st), victim,
               sym_last_error());
    } else if (strcmp(mode, "leak-then-die") == 0) {
        int victim = arg_int(argc, argv, 2);
        if (my_pe == victim)
            leak_then_die(key);
        sym_status_t st = sym_init();
        if (st != SYM_ERR_PEER_LOST)
            broken("sym_init returned %s with PE %d dead, expected SYM_ERR_PEER_LOST: %s",
                   sym_status_name(st), victim, sym_last_error());
        say(stdout, "pe %d lost PE %d\n", my_pe, victim);
    } else if (strcmp(mode, "ignore-errors") == 0) {
        /* every status dropped, as the attribute lets a program do once it
         * stores them: only the library's own messages can tell */
        sym_status_t st = sym_init();
        long *box = sym_malloc(sizeof(long)), v = sym_my_pe();
        st = sym_put(box, &v, sizeof(v), (sym_my_pe() + 1) % sym_n_pes());
        st = sym_barrier_all();
        (void)st;
        sym_free(box);
        return sym_finalize();
    } else if (strcmp(mode, "unread") == 0) {
        int victim = arg_int(argc, argv, 2), read = arg_int(argc, argv, 3);
        init_or_die();
        if (my_pe == victim) {
            long v = 1;
            if (sym_put(&v, &v, sizeof(v), 99) != SYM_ERR_INVALID_PE)
                broken("sym_put to PE 99 did not fail with SYM_ERR_INVALID_PE");
            if (read)
                say(stderr, "pe %d read: %s\n", my_pe, sym_last_error());
            fflush(NULL);
            _exit(3);
        }
        expect_peer_lost(victim, "exited with status 3");
    } else {
        broken("unknown mode '%s'", mode);
    }
    return 0;
}
