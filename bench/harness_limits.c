/*
 * harness_limits.c - the physical limits every benchmark reports next to its
 * figures: a raw cache-line ping-pong between two processes, a yielding
 * hand-off on one CPU, memcpy, and the fastest one copy between two
 * processes' private memory (cross-memory attach).
 */
#include "harness_private.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <unistd.h>

static inline void spin_pause(unsigned long *polls)
{
    /* A pause between polls makes the hand-off faster, not slower: a
     * reader hammering the line delays the writer's ownership request
     * (measured here: 62-83 ns one-way with pause, 74-119 ns without, in
     * the same minute).  The rare yield only matters if the scheduler put
     * both sides on one core, where spinning would burn whole time slices. */
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ volatile("yield" ::: "memory");
#endif
    if (++*polls % (1u << 10) == 0) /* ~45 us of pauses here */
        sched_yield();
}

#define RAW_STOP UINT64_MAX

/* Fork a child that dies with its parent (PR_SET_PDEATHSIG, checked
 * against a parent already gone): its pid in the parent, 0 in the child. */
static pid_t fork_tied(const char *what)
{
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        harness_die("%s: fork: %s", what, strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
    }
    return pid;
}

static uint64_t raw_pingpong_body(void *arg, uint64_t iters)
{
    (void)arg;
    uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        harness_die("raw ping-pong: mmap: %s", strerror(errno));
    /* 256 bytes apart: separate lines and outside the adjacent-line
     * prefetcher's 128-byte pair. */
    uint64_t *ping = (uint64_t *)page, *pong = (uint64_t *)(page + 256);
    *ping = 0;
    *pong = 0;
    pid_t pid = fork_tied("raw ping-pong");
    if (pid == 0) {
        uint64_t last = 0; /* ping's initial value */
        unsigned long polls = 0;
        __atomic_store_n(pong, 1, __ATOMIC_RELEASE); /* ready */
        for (;;) {
            uint64_t v = __atomic_load_n(ping, __ATOMIC_ACQUIRE);
            if (v == last) {
                spin_pause(&polls);
                continue;
            }
            if (v == RAW_STOP)
                _exit(0);
            __atomic_store_n(pong, v, __ATOMIC_RELEASE);
            last = v;
        }
    }
    unsigned long polls = 0;
    while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != 1)
        spin_pause(&polls);
    uint64_t seq = 1;
    /* Warm-up: both sides running, lines in their steady states. */
    for (int i = 0; i < 256; i++) {
        __atomic_store_n(ping, ++seq, __ATOMIC_RELEASE);
        while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != seq)
            spin_pause(&polls);
    }
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        __atomic_store_n(ping, ++seq, __ATOMIC_RELEASE);
        while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != seq)
            spin_pause(&polls);
    }
    uint64_t t1 = bench_now_ns();
    __atomic_store_n(ping, RAW_STOP, __ATOMIC_RELEASE);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    munmap(page, 4096);
    return t1 - t0;
}

struct bench_meas bench_raw_pingpong(void)
{
    return (struct bench_meas){.name = "raw_pingpong",
                               .body = raw_pingpong_body,
                               .participants = 1,
                               .timing = BENCH_TIME_ROOT,
                               .ops_per_iter = 2};
}

/* Two processes pinned to PE 0's current CPU hand a flag back and forth,
 * each waiting with sched_yield(): one-way = one switch from a waiting
 * process to the other, the unit every synchronisation costs when there
 * are more processes than cores. */
static uint64_t yield_handoff_body(void *arg, uint64_t iters)
{
    (void)arg;
    cpu_set_t saved, one;
    if (sched_getaffinity(0, sizeof(saved), &saved) != 0)
        harness_die("hand-off: sched_getaffinity: %s", strerror(errno));
    int cpu = sched_getcpu();
    CPU_ZERO(&one);
    CPU_SET(cpu < 0 ? 0 : cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0)
        harness_die("hand-off: sched_setaffinity: %s", strerror(errno));
    uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        harness_die("hand-off: mmap: %s", strerror(errno));
    uint64_t *ping = (uint64_t *)page, *pong = (uint64_t *)(page + 256);
    *ping = 0;
    *pong = 0;
    pid_t pid = fork_tied("hand-off");
    if (pid == 0) {
        uint64_t last = 0;
        __atomic_store_n(pong, 1, __ATOMIC_RELEASE);
        for (;;) {
            uint64_t v = __atomic_load_n(ping, __ATOMIC_ACQUIRE);
            if (v == last) {
                sched_yield();
                continue;
            }
            if (v == RAW_STOP)
                _exit(0);
            __atomic_store_n(pong, v, __ATOMIC_RELEASE);
            last = v;
        }
    }
    while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != 1)
        sched_yield();
    uint64_t seq = 1;
    for (int i = 0; i < 64; i++) {
        __atomic_store_n(ping, ++seq, __ATOMIC_RELEASE);
        while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != seq)
            sched_yield();
    }
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        __atomic_store_n(ping, ++seq, __ATOMIC_RELEASE);
        while (__atomic_load_n(pong, __ATOMIC_ACQUIRE) != seq)
            sched_yield();
    }
    uint64_t t1 = bench_now_ns();
    __atomic_store_n(ping, RAW_STOP, __ATOMIC_RELEASE);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    munmap(page, 4096);
    sched_setaffinity(0, sizeof(saved), &saved);
    return t1 - t0;
}

struct bench_meas bench_yield_handoff(void)
{
    return (struct bench_meas){.name = "yield_handoff",
                               .body = yield_handoff_body,
                               .participants = 1,
                               .timing = BENCH_TIME_ROOT,
                               .ops_per_iter = 2};
}

const struct bench_stat *bench_raw_before(void)
{
    return &bench_state.raw_before;
}

static uint64_t memcpy_body(void *arg, uint64_t iters)
{
    struct bench_memcpy_arg *a = arg;
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        memcpy(a->dst, a->src, a->size);
        bench_clobber(a->dst);
    }
    return bench_now_ns() - t0;
}

struct bench_meas bench_memcpy(struct bench_memcpy_arg *arg)
{
    return (struct bench_meas){.name = "memcpy",
                               .body = memcpy_body,
                               .arg = arg,
                               .participants = 1,
                               .timing = BENCH_TIME_ROOT,
                               .ops_per_iter = 1};
}

/* PE 0 reads a forked child's private buffer with process_vm_readv: what
 * MPI's shared-memory path (and symheap's, for private buffers) moves a
 * large message with, one copy.  The child is PE 0's, so Yama's default
 * scope allows it. */
static uint64_t cma_body(void *arg, uint64_t iters)
{
    struct bench_memcpy_arg *a = arg;
    int go[2], ready[2];
    if (pipe(go) != 0 || pipe(ready) != 0)
        harness_die("cross-memory attach: pipe: %s", strerror(errno));
    pid_t pid = fork_tied("cross-memory attach");
    if (pid == 0) {
        close(go[1]);
        /* its own pages, as a peer's buffer would be (pages still shared
         * copy-on-write with the parent cost the kernel more per read) */
        memset((void *)(uintptr_t)a->src, 0xa5, a->size);
        char c = 1;
        if (write(ready[1], &c, 1) != 1)
            _exit(1);
        /* wait for the parent to close its end */
        while (read(go[0], &c, 1) < 0 && errno == EINTR)
            ;
        _exit(0);
    }
    close(go[0]);
    close(ready[1]);
    char c;
    ssize_t got;
    while ((got = read(ready[0], &c, 1)) < 0 && errno == EINTR)
        ;
    close(ready[0]);
    if (got != 1)
        harness_die("cross-memory attach: the child did not start");
    struct iovec local = {a->dst, a->size}, remote = {(void *)(uintptr_t)a->src, a->size};
    /* warm-up: the first reads of a fresh child cost several times the
     * steady state (2 GB/s, then 12, here) */
    for (int i = 0; i < 4; i++)
        if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)a->size)
            harness_die("cross-memory attach: process_vm_readv: %s", strerror(errno));
    uint64_t t0 = bench_now_ns();
    for (uint64_t i = 0; i < iters; i++) {
        if (process_vm_readv(pid, &local, 1, &remote, 1, 0) != (ssize_t)a->size)
            harness_die("cross-memory attach: process_vm_readv: %s", strerror(errno));
        bench_clobber(a->dst);
    }
    uint64_t t1 = bench_now_ns();
    close(go[1]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return t1 - t0;
}

struct bench_meas bench_cma_read(struct bench_memcpy_arg *arg)
{
    return (struct bench_meas){.name = "cma_read",
                               .body = cma_body,
                               .arg = arg,
                               .participants = 1,
                               .timing = BENCH_TIME_ROOT,
                               .ops_per_iter = 1};
}

void bench_copy_ceiling(void)
{
    const size_t size = (size_t)4 << 20;
    uint8_t *src = malloc(size), *dst = malloc(size);
    if (!src || !dst)
        harness_die("copy ceiling: out of memory for 2 x %zu bytes", size);
    memset(src, 0x5a, size);
    memset(dst, 0, size);
    struct bench_memcpy_arg a = {dst, src, size};
    struct bench_meas m[2] = {bench_memcpy(&a), bench_cma_read(&a)};
    bench_measure(m, 2);
    if (bench_state.me == 0 && m[0].stat.median > 0 && m[1].stat.median > 0) {
        bench_state.ceiling_memcpy_gbs = (double)size / m[0].stat.median;
        bench_state.ceiling_cma_gbs = (double)size / m[1].stat.median;
        bench_note("one copy of a private 4 MiB buffer: memcpy %.1f GB/s, cross-memory attach "
                   "(process_vm_readv from another process) %.1f GB/s",
                   bench_state.ceiling_memcpy_gbs, bench_state.ceiling_cma_gbs);
    }
    free(src);
    free(dst);
}
