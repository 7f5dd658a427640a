/*
 * harness_limits.c - the physical limits every benchmark reports next to its
 * figures: a raw cache-line ping-pong between two processes, a yielding
 * hand-off on one CPU, and memcpy.
 */
#include "harness_private.h"

#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
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
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        harness_die("raw ping-pong: fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
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
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        harness_die("hand-off: fork: %s", strerror(errno));
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(1);
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
