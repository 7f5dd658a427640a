/*
 * harness.c - calibration, interleaved sampling, physical baselines and
 * OSU-style / JSON output for the symheap benchmarks.  See harness.h.
 */
#include "harness.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

struct bench_opts bench_opt;
enum bench_phase bench_phase;

/* The harness's symmetric control block.  Each word has its own cache line
 * so the gate that parked PEs sleep on is not disturbed by the counters. */
struct bench_ctl {
    uint32_t gate;
    uint8_t pad0[60];
    uint64_t done;
    uint8_t pad1[56];
    uint64_t bcast;
    uint8_t pad2[56];
    uint64_t sum;
    uint8_t pad3[56];
    uint64_t elapsed[]; /* [npes] */
};

#define MAX_TARGETS 32

struct target {
    char *name, *unit, *detail;
    const char *cmp;
    double measured, target;
    bool met;
};

static struct {
    const struct bench_info *info;
    int me, npes;
    struct bench_ctl *ctl;
    uint32_t *gate;         /* ctl->gate as mapped from PE 0's heap */
    uint32_t gate_gen;      /* parked-section count, identical on every PE */
    uint64_t done_expected; /* PE 0: completions it has waited for */
    struct bench_stat raw_before, raw_after;
    double clock_read_ns;
    char cpu[128], kernel[256], date[64], clocksource[64];
    char load_start[64], load_end[64]; /* /proc/loadavg: other work on the host */
    long nproc;
    FILE *jrows; /* JSON result objects, comma separated */
    char *jrows_buf;
    size_t jrows_len;
    FILE *jnotes;
    char *jnotes_buf;
    size_t jnotes_len;
    struct target targets[MAX_TARGETS];
    int ntargets;
    uint64_t wrong_total;
} H;

int bench_me(void)
{
    return H.me;
}

int bench_npes(void)
{
    return H.npes;
}

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the runtime underneath (see bench_rt.h) ------------------------------ */

static bool rt_up;
static char rt_impl[160];

const char *bench_impl(void)
{
    return rt_impl;
}

static void rt_global_exit(int status)
{
#if defined(BENCH_RT_SHMEM)
    shmem_global_exit(status);
#elif defined(BENCH_RT_MPI)
    MPI_Abort(MPI_COMM_WORLD, status);
#else
    sym_global_exit(status);
#endif
    exit(status);
}

#ifdef BENCH_RT_SYM
void bench_fail(const char *what, sym_status_t st)
{
    fprintf(stderr, "%s: PE %d: %s failed: %s: %s\n", H.info ? H.info->name : "bench", H.me, what,
            sym_status_name(st), sym_last_error());
    fflush(stderr);
    sym_global_exit(1);
    exit(1);
}
#endif

static void vdie(const char *fmt, va_list ap) __attribute__((noreturn));
static void vdie(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: PE %d: ", H.info ? H.info->name : "bench", H.me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    if (rt_up)
        rt_global_exit(1);
    exit(1);
}

void bench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdie(fmt, ap);
}

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdie(fmt, ap);
}

#if defined(BENCH_RT_SHMEM)
/* uint64_t is unsigned long on the LP64 targets OpenSHMEM 1.4 runs on; the
 * typed AMOs of 1.4 have long but no uint64. */
_Static_assert(sizeof(long) == 8, "the shmem harness needs a 64-bit long");
#define RT_L(p) ((long *)(void *)(p))
#endif

#ifndef BENCH_RT_MPI
static void rt_set64(uint64_t *w, uint64_t v, int pe)
{
#if defined(BENCH_RT_SHMEM)
    shmem_long_atomic_set(RT_L(w), (long)v, pe);
#else
    BENCH_OK(sym_atomic_set64(w, v, pe));
#endif
}

static void rt_add64(uint64_t *w, uint64_t v, int pe)
{
#if defined(BENCH_RT_SHMEM)
    shmem_long_atomic_add(RT_L(w), (long)v, pe);
#else
    BENCH_OK(sym_atomic_add64(w, v, pe));
#endif
}
#endif

static int rt_finalize(void)
{
    rt_up = false;
#if defined(BENCH_RT_SHMEM)
    shmem_finalize();
#elif defined(BENCH_RT_MPI)
    MPI_Finalize();
#else
    if (sym_finalize() != SYM_OK) {
        fprintf(stderr, "%s: PE %d: sym_finalize: %s\n", H.info ? H.info->name : "bench", H.me,
                sym_last_error());
        return 1;
    }
#endif
    return 0;
}

/* ---- small collectives ----------------------------------------------------- */

void bench_barrier(void)
{
#if defined(BENCH_RT_SHMEM)
    shmem_barrier_all();
#elif defined(BENCH_RT_MPI)
    MPI_Barrier(MPI_COMM_WORLD);
#else
    BENCH_OK(sym_barrier_all());
#endif
}

uint64_t bench_bcast_u64(uint64_t v)
{
#if defined(BENCH_RT_MPI)
    MPI_Bcast(&v, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    return v;
#else
    if (H.me == 0)
        for (int pe = 0; pe < H.npes; pe++)
            rt_set64(&H.ctl->bcast, v, pe);
    bench_barrier();
    uint64_t r = __atomic_load_n(&H.ctl->bcast, __ATOMIC_ACQUIRE);
    /* Nobody may overwrite the word before everyone has read it. */
    bench_barrier();
    return r;
#endif
}

uint64_t bench_sum_u64(uint64_t v)
{
#if defined(BENCH_RT_MPI)
    uint64_t total = 0;
    MPI_Allreduce(&v, &total, 1, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    return total;
#else
    if (v)
        rt_add64(&H.ctl->sum, v, 0);
    bench_barrier();
    uint64_t total = 0;
    if (H.me == 0)
        total = __atomic_exchange_n(&H.ctl->sum, 0, __ATOMIC_ACQ_REL);
    return bench_bcast_u64(total);
#endif
}

/* ---- parking PEs that do not take part in a sample -------------------------- */

#ifdef BENCH_RT_SYM
static long futex(uint32_t *addr, int op, uint32_t val, const struct timespec *ts)
{
    return syscall(SYS_futex, addr, op, val, ts, NULL, 0);
}
#endif

#if defined(BENCH_RT_MPI)
#define RT_TAG_GATE    7301
#define RT_TAG_ELAPSED 7302

/* MPI's blocking calls busy-poll, which would take a core from the
 * measurement: poll a receive with short sleeps instead. */
static void park(uint32_t gen)
{
    const uint64_t give_up = bench_now_ns() + 600ull * 1000000000u;
    uint32_t v = 0;
    MPI_Request rq;
    MPI_Irecv(&v, 1, MPI_UINT32_T, 0, RT_TAG_GATE, MPI_COMM_WORLD, &rq);
    for (;;) {
        int done = 0;
        MPI_Test(&rq, &done, MPI_STATUS_IGNORE);
        if (done)
            break;
        if (bench_now_ns() > give_up)
            die("parked for 600 s waiting for PE 0 (want gate %u)", gen);
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
    if (v != gen)
        die("parked: PE 0 released gate %u, expected %u", v, gen);
}

static void release_from(uint32_t gen, int first)
{
    for (int pe = first; pe < H.npes; pe++)
        MPI_Send(&gen, 1, MPI_UINT32_T, pe, RT_TAG_GATE, MPI_COMM_WORLD);
}
#else
static void park(uint32_t gen)
{
    const uint64_t give_up = bench_now_ns() + 600ull * 1000000000u;
    for (;;) {
        uint32_t v;
        if (H.gate)
            v = __atomic_load_n(H.gate, __ATOMIC_ACQUIRE);
#if defined(BENCH_RT_SHMEM)
        else
            v = (uint32_t)shmem_int_atomic_fetch((int *)(void *)&H.ctl->gate, 0);
#else
        else
            BENCH_OK(sym_atomic_fetch32(&v, &H.ctl->gate, 0));
#endif
        if ((int32_t)(v - gen) >= 0)
            return;
        if (bench_now_ns() > give_up)
            die("parked for 600 s waiting for PE 0 (gate %u, want %u)", v, gen);
        struct timespec ts = {0, 100000000};
#ifdef BENCH_RT_SYM
        if (H.gate) {
            futex(H.gate, FUTEX_WAIT, v, &ts);
            continue;
        }
#endif
        /* PE 0's gate is not mapped (symheap over libfabric): where a core
         * is free for each PE, poll without sleeping.  With manual data
         * progress (tcp;ofi_rxm, shm) a parked target serves the measured
         * PE's writes only inside libfabric calls, so a sleep here was
         * added to every put the sample timed (140 us instead of 27 us for
         * an 8-byte put + quiet over tcp;ofi_rxm); raw libfabric's target
         * polls too (bench_ofi_raw). */
        if (H.npes <= sysconf(_SC_NPROCESSORS_ONLN)) { /* H.nproc is PE 0's only */
            sched_yield();
            continue;
        }
        /* Another implementation's shmem_ptr may map PE 0's heap through a
         * different object, where a futex wake would not reach us: poll. */
        ts.tv_nsec = 50000;
        nanosleep(&ts, NULL);
    }
}

static void release_from(uint32_t gen, int first)
{
    (void)first;
    __atomic_store_n(&H.ctl->gate, gen, __ATOMIC_RELEASE);
#ifdef BENCH_RT_SYM
    futex(&H.ctl->gate, FUTEX_WAKE, INT_MAX, NULL);
#endif
}
#endif

/* PE 0: the largest elapsed time of PEs 0 .. parts-1 (e is PE 0's own);
 * elsewhere: hands e to PE 0 and returns it. */
static uint64_t gather_max(uint64_t e, int parts)
{
#if defined(BENCH_RT_MPI)
    if (H.me != 0) {
        MPI_Send(&e, 1, MPI_UINT64_T, 0, RT_TAG_ELAPSED, MPI_COMM_WORLD);
        return e;
    }
    for (int pe = 1; pe < parts; pe++) {
        uint64_t o = 0;
        MPI_Recv(&o, 1, MPI_UINT64_T, pe, RT_TAG_ELAPSED, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        if (o > e)
            e = o;
    }
    return e;
#else
    if (H.me != 0) {
        rt_set64(&H.ctl->elapsed[H.me], e, 0);
        rt_add64(&H.ctl->done, 1, 0);
        return e;
    }
    H.done_expected += (uint64_t)parts - 1;
#if defined(BENCH_RT_SHMEM)
    shmem_long_wait_until(RT_L(&H.ctl->done), SHMEM_CMP_GE, (long)H.done_expected);
#else
    BENCH_OK(sym_wait_until_uint64(&H.ctl->done, SYM_CMP_GE, H.done_expected));
#endif
    for (int pe = 1; pe < parts; pe++) {
        uint64_t o = __atomic_load_n(&H.ctl->elapsed[pe], __ATOMIC_ACQUIRE);
        if (o > e)
            e = o;
    }
    return e;
#endif
}

/* ---- sampling ------------------------------------------------------------- */

static int participants(const struct bench_meas *m)
{
    return m->participants <= 0 || m->participants > H.npes ? H.npes : m->participants;
}

/* One collective run of m's body; returns the elapsed ns that count (PE 0). */
static uint64_t run_once(struct bench_meas *m, uint64_t iters)
{
    const int parts = participants(m);
    const bool parking = parts < H.npes;
    const uint32_t gen = parking ? ++H.gate_gen : 0;
    bench_barrier();
    uint64_t e = 0;
    if (H.me >= parts) {
#if defined(BENCH_RT_SHMEM)
        if (m->target_progress) {
            /* Own gate, set by PE 0's release below. */
            shmem_int_wait_until((int *)(void *)&H.ctl->gate, SHMEM_CMP_GE, (int)gen);
            return 0;
        }
#endif
        park(gen);
        return 0;
    }
    e = m->body(m->arg, iters);
    if (m->timing == BENCH_TIME_MAX && parts > 1)
        e = gather_max(e, parts);
    if (parking && H.me == 0) {
#if defined(BENCH_RT_SHMEM)
        if (m->target_progress) {
            for (int pe = parts; pe < H.npes; pe++)
                shmem_int_atomic_set((int *)(void *)&H.ctl->gate, (int)gen, pe);
            shmem_quiet();
        }
#endif
        release_from(gen, parts);
    }
    return e;
}

#define CAL_DONE (UINT64_C(1) << 63)

static void calibrate(struct bench_meas *m)
{
    if (bench_opt.iters) {
        m->stat.iters = bench_opt.iters;
        return;
    }
    bench_phase = BENCH_PHASE_CALIBRATE;
    const double target = bench_opt.sample_ms * 1e6;
    uint64_t n = 1;
    bool confirming = false;
    uint64_t first_e = 0;
    for (;;) {
        uint64_t e = run_once(m, n);
        uint64_t decision = 0;
        if (H.me == 0) {
            /* A first run at a count may have paid page faults or a cold
             * cache, so a long run is repeated: if the repeat is much
             * faster, the first was not the steady state and growth goes
             * on from the repeat. */
            if (confirming && 2 * e >= first_e) {
                if (first_e < e)
                    e = first_e;
                double it = e ? (double)n * target / (double)e : (double)n;
                decision = CAL_DONE | (it < 1 ? 1 : (uint64_t)it);
            } else if (!confirming && ((double)e >= target / 8 || n >= (UINT64_C(1) << 40))) {
                first_e = e;
                decision = n;
            } else {
                /* Grow fast while far away, so calibration costs about one
                 * sample no matter how cheap the operation is. */
                double f = e ? target / 4 / (double)e : 16;
                if (f > 16)
                    f = 16;
                if (f < 2)
                    f = 2;
                decision = (uint64_t)((double)n * f);
            }
        }
        decision = bench_bcast_u64(decision);
        confirming = decision == n;
        if (decision & CAL_DONE) {
            m->stat.iters = decision & ~CAL_DONE;
            if (m->stat.iters < m->min_iters)
                m->stat.iters = m->min_iters;
            return;
        }
        n = decision;
    }
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void bench_summarize(double *v, size_t n, double *median, double *min, double *max)
{
    if (n == 0) {
        *median = *min = *max = NAN;
        return;
    }
    /* Insertion sort is fine for repeats; the barrier's per-round arrays
     * use qsort. */
    if (n > 64) {
        qsort(v, n, sizeof(*v), cmp_double);
    } else {
        for (size_t i = 1; i < n; i++) {
            double x = v[i];
            size_t j = i;
            for (; j > 0 && v[j - 1] > x; j--)
                v[j] = v[j - 1];
            v[j] = x;
        }
    }
    *min = v[0];
    *max = v[n - 1];
    *median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void summarize_stat(struct bench_stat *s)
{
    double tmp[BENCH_MAX_REPEATS];
    memcpy(tmp, s->ns, sizeof(double) * (size_t)s->n);
    bench_summarize(tmp, (size_t)s->n, &s->median, &s->min, &s->max);
}

void bench_measure(struct bench_meas *m, int count)
{
    for (int k = 0; k < count; k++)
        calibrate(&m[k]);
    bench_phase = BENCH_PHASE_WARMUP;
    for (int k = 0; k < count; k++)
        run_once(&m[k], m[k].stat.iters / 4 ? m[k].stat.iters / 4 : 1);
    bench_phase = BENCH_PHASE_SAMPLE;
    for (int k = 0; k < count; k++)
        m[k].stat.n = 0;
    for (int r = 0; r < bench_opt.repeats; r++) {
        for (int k = 0; k < count; k++) {
            uint64_t e = run_once(&m[k], m[k].stat.iters);
            double ops = m[k].ops_per_iter > 0 ? m[k].ops_per_iter : 1;
            m[k].stat.ns[m[k].stat.n++] = (double)e / ((double)m[k].stat.iters * ops);
        }
    }
    for (int k = 0; k < count; k++)
        summarize_stat(&m[k].stat);
}

double bench_paired_ratio(const struct bench_stat *a, const struct bench_stat *b)
{
    if (a->n != b->n || a->n == 0)
        return a->median / b->median;
    double r[BENCH_MAX_REPEATS], med, mn, mx;
    for (int i = 0; i < a->n; i++)
        r[i] = a->ns[i] / b->ns[i];
    bench_summarize(r, (size_t)a->n, &med, &mn, &mx);
    return med;
}

/* ---- physical limits -------------------------------------------------------- */

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
        die("raw ping-pong: mmap: %s", strerror(errno));
    /* 256 bytes apart: separate lines and outside the adjacent-line
     * prefetcher's 128-byte pair. */
    uint64_t *ping = (uint64_t *)page, *pong = (uint64_t *)(page + 256);
    *ping = 0;
    *pong = 0;
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("raw ping-pong: fork: %s", strerror(errno));
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
        die("hand-off: sched_getaffinity: %s", strerror(errno));
    int cpu = sched_getcpu();
    CPU_ZERO(&one);
    CPU_SET(cpu < 0 ? 0 : cpu, &one);
    if (sched_setaffinity(0, sizeof(one), &one) != 0)
        die("hand-off: sched_setaffinity: %s", strerror(errno));
    uint8_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (page == MAP_FAILED)
        die("hand-off: mmap: %s", strerror(errno));
    uint64_t *ping = (uint64_t *)page, *pong = (uint64_t *)(page + 256);
    *ping = 0;
    *pong = 0;
    pid_t parent = getpid();
    fflush(NULL);
    pid_t pid = fork();
    if (pid < 0)
        die("hand-off: fork: %s", strerror(errno));
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
    return &H.raw_before;
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

/* ---- sizes and patterns ------------------------------------------------------ */

size_t bench_size_first(void)
{
    size_t s = 1;
    while (s < bench_opt.min_size)
        s <<= 1;
    return s <= bench_opt.max_size ? s : 0;
}

size_t bench_size_next(size_t size)
{
    const size_t k = bench_opt.size_step > 1 ? bench_opt.size_step : 2;
    if (size > SIZE_MAX / k)
        return 0;
    size_t s = size * k;
    return s <= bench_opt.max_size ? s : 0;
}

const char *bench_size_str(size_t size, char buf[24])
{
    if (size >= (1u << 20) && size % (1u << 20) == 0)
        snprintf(buf, 24, "%zuM", size >> 20);
    else if (size >= 1024 && size % 1024 == 0)
        snprintf(buf, 24, "%zuK", size >> 10);
    else
        snprintf(buf, 24, "%zu", size);
    return buf;
}

void bench_fill(void *buf, size_t n, uint64_t seed)
{
    uint8_t *b = buf;
    for (size_t i = 0; i < n; i++)
        b[i] = bench_pattern(seed, i);
}

uint64_t bench_check(const void *buf, size_t n, uint64_t seed)
{
    const uint8_t *b = buf;
    uint64_t wrong = 0;
    for (size_t i = 0; i < n; i++)
        wrong += b[i] != bench_pattern(seed, i);
    return wrong;
}

/* ---- output ----------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            fprintf(f, "\\%c", c);
        else if (c < 0x20)
            fprintf(f, "\\u%04x", c);
        else
            fputc(c, f);
    }
    fputc('"', f);
}

static void json_num(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.6g", v);
    else
        fputs("null", f);
}

static void json_stat(FILE *f, const struct bench_stat *s)
{
    fprintf(f, "{\"iters\": %" PRIu64 ", \"samples\": %d, \"median\": ", s->iters, s->n);
    json_num(f, s->median);
    fputs(", \"min\": ", f);
    json_num(f, s->min);
    fputs(", \"max\": ", f);
    json_num(f, s->max);
    fputs(", \"per_sample\": [", f);
    for (int i = 0; i < s->n; i++) {
        if (i)
            fputs(", ", f);
        json_num(f, s->ns[i]);
    }
    fputs("]}", f);
}

void bench_note(const char *fmt, ...)
{
    if (H.me != 0)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    printf("# %s\n", line);
    if (H.jnotes) {
        if (ftell(H.jnotes) > 0)
            fputs(",\n    ", H.jnotes);
        json_str(H.jnotes, line);
        fflush(H.jnotes);
    }
}

static const char *kind_unit(enum bench_kind k)
{
    return k == BENCH_LAT ? "ns" : k == BENCH_BW ? "MB/s" : "Mop/s";
}

/* ns per operation -> the table's figure. */
static double figure(enum bench_kind k, size_t size, double ns)
{
    switch (k) {
    case BENCH_LAT:
        return ns;
    case BENCH_BW:
        return (double)size / ns * 1e3; /* bytes/ns = GB/s */
    case BENCH_RATE:
        return 1e3 / ns;
    }
    return ns;
}

static double cur_bus_factor; /* of the table being printed; 0: none */

double bench_bus_factor(enum bench_coll_kind k, int n)
{
    if (n < 2)
        return 1;
    switch (k) {
    case BENCH_COLL_ALLREDUCE:
        return 2.0 * (n - 1) / n;
    case BENCH_COLL_GATHERLIKE:
        return (double)(n - 1) / n;
    case BENCH_COLL_ROOTED:
        return 1;
    }
    return 1;
}

static void table_begin(const struct bench_table *t, double bus_factor)
{
    cur_bus_factor = bus_factor;
    if (H.me != 0)
        return;
    const char *u = kind_unit(t->kind);
    const char *lo = t->kind == BENCH_LAT ? "Min" : "Best";
    const char *hi = t->kind == BENCH_LAT ? "Max" : "Worst";
    char c1[32], c2[32], c3[32], c4[48];
    snprintf(c1, sizeof(c1), "Median(%s)", u);
    snprintf(c2, sizeof(c2), "%s(%s)", lo, u);
    snprintf(c3, sizeof(c3), "%s(%s)", hi, u);
    snprintf(c4, sizeof(c4), "%s", t->base_name ? t->base_name : "-");
    printf("\n# %s\n", t->title);
    printf("# %-14s %10s %14s %14s %14s %16s %8s %7s", t->row_name ? t->row_name : "Size",
           "Iters", c1, c2, c3, c4, "Ratio", "#wrong");
    if (bus_factor > 0)
        printf(" %11s %11s", "algbw(GB/s)", "busbw(GB/s)");
    printf("\n");
    fflush(stdout);
}

void bench_table_begin(const struct bench_table *t)
{
    table_begin(t, 0);
}

void bench_table_begin_coll(const struct bench_table *t, double bus_factor)
{
    table_begin(t, bus_factor);
}

static void row_out(const struct bench_table *t, const char *label, size_t size, uint64_t iters,
                    int nsamples, double med_ns, double min_ns, double max_ns,
                    const struct bench_stat *base, double ratio, uint64_t wrong,
                    const struct bench_stat *s)
{
    if (!t->derived)
        H.wrong_total += wrong;
    if (H.me != 0)
        return;
    char key[32];
    if (label)
        snprintf(key, sizeof(key), "%s", label);
    else
        snprintf(key, sizeof(key), "%zu", size);
    double med = figure(t->kind, size, med_ns);
    /* For rates the best figure comes from the fastest sample. */
    double lo = figure(t->kind, size, min_ns), hi = figure(t->kind, size, max_ns);
    double b = base ? figure(t->kind, size, base->median) : NAN;
    char bs[32] = "-", rs[32] = "-";
    const char *fmt = t->kind == BENCH_RATE ? "%.3f" : t->kind == BENCH_BW ? "%.1f" : "%.2f";
    if (base)
        snprintf(bs, sizeof(bs), fmt, b);
    if (isfinite(ratio))
        snprintf(rs, sizeof(rs), "%.3f", ratio);
    char f1[32], f2[32], f3[32];
    snprintf(f1, sizeof(f1), fmt, med);
    snprintf(f2, sizeof(f2), fmt, lo);
    snprintf(f3, sizeof(f3), fmt, hi);
    /* nccl-tests: algbw = size / time, busbw = algbw * the collective's
     * factor; bytes per ns = GB/s. */
    const double algbw = (double)size / med_ns, busbw = algbw * cur_bus_factor;
    printf("  %-14s %10" PRIu64 " %14s %14s %14s %16s %8s %7" PRIu64, key, iters, f1, f2, f3, bs,
           rs, wrong);
    if (cur_bus_factor > 0)
        printf(" %11.3f %11.3f", algbw, busbw);
    printf("\n");
    fflush(stdout);

    FILE *j = H.jrows;
    if (!j)
        return;
    if (ftell(j) > 0)
        fputs(",\n    ", j);
    fputs("{\"test\": ", j);
    json_str(j, t->test);
    fputs(", \"row\": ", j);
    json_str(j, key);
    fprintf(j, ", \"size\": %zu, \"unit\": ", size);
    json_str(j, kind_unit(t->kind));
    fprintf(j, ", \"iters\": %" PRIu64 ", \"samples\": %d, \"median\": ", iters, nsamples);
    json_num(j, med);
    fputs(t->kind == BENCH_LAT ? ", \"min\": " : ", \"best\": ", j);
    json_num(j, lo);
    fputs(t->kind == BENCH_LAT ? ", \"max\": " : ", \"worst\": ", j);
    json_num(j, hi);
    fputs(", \"ns_per_op\": {\"median\": ", j);
    json_num(j, med_ns);
    fputs(", \"min\": ", j);
    json_num(j, min_ns);
    fputs(", \"max\": ", j);
    json_num(j, max_ns);
    fputs("}", j);
    if (s) {
        fputs(", \"samples_ns\": ", j);
        json_stat(j, s);
    }
    fputs(", \"baseline\": ", j);
    if (base) {
        fputs("{\"name\": ", j);
        json_str(j, t->base_name);
        fputs(", \"median\": ", j);
        json_num(j, b);
        fputs(", \"ns\": ", j);
        json_stat(j, base);
        fputs("}", j);
    } else {
        fputs("null", j);
    }
    fputs(", \"ratio\": ", j);
    json_num(j, ratio);
    if (cur_bus_factor > 0) {
        fputs(", \"algbw_GBps\": ", j);
        json_num(j, algbw);
        fputs(", \"busbw_GBps\": ", j);
        json_num(j, busbw);
        fputs(", \"bus_factor\": ", j);
        json_num(j, cur_bus_factor);
    }
    fprintf(j, ", \"wrong\": %" PRIu64 "}", wrong);
    fflush(j);
}

void bench_table_row(const struct bench_table *t, const char *label, size_t size,
                     const struct bench_stat *s, const struct bench_stat *base, uint64_t wrong)
{
    double ratio = NAN;
    if (base)
        ratio = t->kind == BENCH_LAT ? bench_paired_ratio(s, base) : bench_paired_ratio(base, s);
    row_out(t, label, size, s->iters, s->n, s->median, s->min, s->max, base, ratio, wrong, s);
}

void bench_table_row_values(const struct bench_table *t, const char *label, size_t size,
                            uint64_t iters, size_t nvalues, double median_ns, double min_ns,
                            double max_ns, const struct bench_stat *base, double ratio,
                            uint64_t wrong)
{
    row_out(t, label, size, iters, (int)nvalues, median_ns, min_ns, max_ns, base, ratio, wrong,
            NULL);
}

void bench_target(const char *name, double measured, const char *unit, const char *cmp,
                  double target, const char *detail)
{
    if (H.me != 0 || H.ntargets == MAX_TARGETS)
        return;
    struct target *t = &H.targets[H.ntargets++];
    t->name = strdup(name);
    t->unit = strdup(unit ? unit : "");
    t->detail = strdup(detail ? detail : "");
    t->cmp = cmp;
    t->measured = measured;
    t->target = target;
    if (!isfinite(measured))
        t->met = false;
    else if (strcmp(cmp, "<") == 0)
        t->met = measured < target;
    else if (strcmp(cmp, "<=") == 0)
        t->met = measured <= target;
    else if (strcmp(cmp, ">=") == 0)
        t->met = measured >= target;
    else
        t->met = measured > target;
}

/* ---- init / finish ----------------------------------------------------------- */

static int parse_size(const char *text, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text)
        return -1;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift)
        end++;
    if (*end == 'i' && shift)
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)v << shift;
    return 0;
}

static void usage(FILE *to, const struct bench_info *info)
{
    fprintf(to,
            "Usage: symrun -n NPES %s [options]\n"
            "%s\n\n"
            "  -n, --iters N       iterations per sample (default: calibrated so one\n"
            "                      sample takes --sample-ms)\n"
            "  -r, --repeats N     samples per figure, interleaved with its baseline\n"
            "                      (default %d, at most %d); median/min/max over them\n"
            "      --min-size S    smallest size of the sweep (K/M suffixes)\n"
            "      --max-size S    largest size of the sweep\n"
            "      --size-step K   multiply the size by K (2, 4, 8, 16, 64; default 2)\n"
            "      --sample-ms MS  calibration target per sample (default 3)\n"
            "      --json FILE     also write every figure as JSON to FILE\n"
            "  -h, --help          show this help\n",
            info->name, info->about, info->default_repeats ? info->default_repeats : 7,
            BENCH_MAX_REPEATS);
    if (info->default_max_size)
        fprintf(to, "Default sizes: %zu .. %zu bytes.\n", info->default_min_size,
                info->default_max_size);
}

/* 0: go on; otherwise exit status + 1 (so 1 means exit 0). */
static int parse_args(int argc, char **argv, const struct bench_info *info)
{
    static const struct option longopts[] = {
        {"iters", required_argument, NULL, 'n'},   {"repeats", required_argument, NULL, 'r'},
        {"min-size", required_argument, NULL, 1},  {"max-size", required_argument, NULL, 2},
        {"sample-ms", required_argument, NULL, 3}, {"json", required_argument, NULL, 4},
        {"size-step", required_argument, NULL, 5}, {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bench_opt = (struct bench_opts){.iters = 0,
                                    .repeats = info->default_repeats ? info->default_repeats : 7,
                                    .min_size = info->default_min_size,
                                    .max_size = info->default_max_size,
                                    .sample_ms = 3,
                                    .json = NULL,
                                    .size_step = 2};
    const bool loud = H.me == 0;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, ":n:r:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': {
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (errno || *end || end == optarg || v == 0) {
                if (loud)
                    fprintf(stderr, "%s: --iters needs a positive integer, got '%s'\n", info->name,
                            optarg);
                return 3;
            }
            bench_opt.iters = v;
            break;
        }
        case 'r': {
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > BENCH_MAX_REPEATS) {
                if (loud)
                    fprintf(stderr, "%s: --repeats needs 1..%d, got '%s'\n", info->name,
                            BENCH_MAX_REPEATS, optarg);
                return 3;
            }
            bench_opt.repeats = (int)v;
            break;
        }
        case 1:
        case 2:
            if (parse_size(optarg, c == 1 ? &bench_opt.min_size : &bench_opt.max_size) != 0) {
                if (loud)
                    fprintf(stderr, "%s: bad size '%s'\n", info->name, optarg);
                return 3;
            }
            break;
        case 3:
            bench_opt.sample_ms = strtod(optarg, &end);
            if (*end || end == optarg || !(bench_opt.sample_ms > 0) ||
                bench_opt.sample_ms > 10000) {
                if (loud)
                    fprintf(stderr, "%s: --sample-ms needs a number of ms in (0, 10000]\n",
                            info->name);
                return 3;
            }
            break;
        case 4:
            bench_opt.json = optarg;
            break;
        case 5: {
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || (v != 2 && v != 4 && v != 8 && v != 16 && v != 64)) {
                if (loud)
                    fprintf(stderr, "%s: --size-step needs 2, 4, 8, 16 or 64, got '%s'\n",
                            info->name, optarg);
                return 3;
            }
            bench_opt.size_step = (unsigned)v;
            break;
        }
        case 'h':
            if (loud)
                usage(stdout, info);
            return 1;
        case ':':
            if (loud)
                fprintf(stderr, "%s: option '%s' needs a value\n", info->name, argv[optind - 1]);
            return 3;
        default:
            if (loud)
                fprintf(stderr, "%s: unknown option '%s'\n", info->name, argv[optind - 1]);
            return 3;
        }
    }
    if (optind < argc) {
        if (loud)
            fprintf(stderr, "%s: unexpected argument '%s'\n", info->name, argv[optind]);
        return 3;
    }
    if (info->default_max_size) {
        if (bench_opt.min_size < 1 || bench_opt.min_size > bench_opt.max_size ||
            bench_opt.max_size > info->default_max_size) {
            if (loud)
                fprintf(stderr, "%s: need 1 <= --min-size <= --max-size <= %zu\n", info->name,
                        info->default_max_size);
            return 3;
        }
    }
    return 0;
}

static void read_first_line(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

static void machine_info(void)
{
    H.nproc = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(H.cpu, sizeof(H.cpu), "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof(line), f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    p[strcspn(p, "\n")] = 0;
                    snprintf(H.cpu, sizeof(H.cpu), "%s", p);
                }
                break;
            }
        }
        fclose(f);
    }
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(H.kernel, sizeof(H.kernel), "%s %s %s", u.sysname, u.release, u.machine);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(H.date, sizeof(H.date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                    H.clocksource, sizeof(H.clocksource));
    read_first_line("/proc/loadavg", H.load_start, sizeof(H.load_start));
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < 10000; i++)
        (void)bench_now_ns();
    H.clock_read_ns = (double)(bench_now_ns() - t0) / 10000;
}

static void print_raw(const char *when, const struct bench_stat *s)
{
    bench_note("raw cache-line ping-pong %s (2 processes, one-way): median %.1f ns, min %.1f, "
               "max %.1f over %d samples of %" PRIu64 " round trips",
               when, s->median, s->min, s->max, s->n, s->iters);
}

void bench_init(int argc, char **argv, const struct bench_info *info)
{
    H.info = info;
    /* Line-buffered even into a pipe or file, so a killed run keeps its
     * rows. */
    setvbuf(stdout, NULL, _IOLBF, 0);
#if defined(BENCH_RT_SHMEM)
    shmem_init();
    H.me = shmem_my_pe();
    H.npes = shmem_n_pes();
#elif defined(BENCH_RT_MPI)
    if (MPI_Init(&argc, &argv) != MPI_SUCCESS)
        die("MPI_Init failed");
    MPI_Comm_rank(MPI_COMM_WORLD, &H.me);
    MPI_Comm_size(MPI_COMM_WORLD, &H.npes);
#else
    sym_status_t st = sym_init();
    if (st != SYM_OK)
        die("sym_init failed: %s", sym_last_error());
    H.me = sym_my_pe();
    H.npes = sym_n_pes();
#endif
    rt_up = true;
    bench_rt_impl(rt_impl, sizeof(rt_impl));
    int rc = parse_args(argc, argv, info);
    if (rc) {
        rt_finalize();
        exit(rc - 1);
    }
    const size_t ctl_size = sizeof(struct bench_ctl) + sizeof(uint64_t) * (size_t)H.npes;
#if defined(BENCH_RT_SHMEM)
    H.ctl = shmem_calloc(1, ctl_size);
    if (!H.ctl)
        die("shmem_calloc of the %zu-byte control block failed", ctl_size);
    H.gate = shmem_ptr(&H.ctl->gate, 0);
    shmem_barrier_all();
#elif defined(BENCH_RT_MPI)
    H.ctl = calloc(1, ctl_size);
    if (!H.ctl)
        die("calloc of the control block failed");
#else
    H.ctl = sym_calloc(1, ctl_size);
    if (!H.ctl)
        die("sym_calloc of the control block failed: %s", sym_last_error());
    H.gate = sym_ptr(&H.ctl->gate, 0);
#endif
    if (H.me == 0) {
        machine_info();
        H.jrows = open_memstream(&H.jrows_buf, &H.jrows_len);
        H.jnotes = open_memstream(&H.jnotes_buf, &H.jnotes_len);
        printf("# %s: %s\n", info->name, info->about);
        printf("# implementation: %s\n", rt_impl);
        printf("# %d PE%s, nproc %ld, CPU %s, %s, %s\n", H.npes, H.npes == 1 ? "" : "s", H.nproc,
               H.cpu, H.kernel, H.date);
        printf("# load average at start: %s\n", H.load_start);
        printf("# clock CLOCK_MONOTONIC (%s), %.1f ns per read; %d samples per figure, ",
               H.clocksource, H.clock_read_ns, bench_opt.repeats);
        if (bench_opt.iters)
            printf("%" PRIu64 " iterations per sample\n", bench_opt.iters);
        else
            printf("iterations calibrated to ~%.3g ms per sample\n", bench_opt.sample_ms);
        printf("# Ratio column: figure / baseline, baseline sampled interleaved with it "
               "(median of per-sample ratios)\n");
    }
    struct bench_meas raw = bench_raw_pingpong();
    bench_measure(&raw, 1);
    H.raw_before = raw.stat;
    print_raw("before", &H.raw_before);
}

static const char *fmt_val(double v, char *buf, size_t len)
{
    if (!isfinite(v))
        snprintf(buf, len, "n/a");
    else if (fabs(v) >= 1000)
        snprintf(buf, len, "%.0f", v);
    else if (fabs(v) >= 10)
        snprintf(buf, len, "%.1f", v);
    else
        snprintf(buf, len, "%.3f", v);
    return buf;
}

static void write_json(void)
{
    FILE *f = fopen(bench_opt.json, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s: %s\n", H.info->name, bench_opt.json, strerror(errno));
        return;
    }
    fclose(H.jrows);
    fclose(H.jnotes);
    H.jrows = H.jnotes = NULL;
    fputs("{\n  \"program\": ", f);
    json_str(f, H.info->name);
    fputs(",\n  \"about\": ", f);
    json_str(f, H.info->about);
    fputs(",\n  \"runtime\": \"" BENCH_RT_KIND "\",\n  \"implementation\": ", f);
    json_str(f, rt_impl);
#ifdef BENCH_RT_SYM
    fprintf(f, ",\n  \"symheap_version\": \"%d.%d.%d\"", SYMHEAP_VERSION_MAJOR,
            SYMHEAP_VERSION_MINOR, SYMHEAP_VERSION_PATCH);
#endif
    fprintf(f, ",\n  \"npes\": %d,\n", H.npes);
    fprintf(f, "  \"machine\": {\"nproc\": %ld, \"cpu\": ", H.nproc);
    json_str(f, H.cpu);
    fputs(", \"kernel\": ", f);
    json_str(f, H.kernel);
    fputs(", \"date\": ", f);
    json_str(f, H.date);
    fputs(", \"clocksource\": ", f);
    json_str(f, H.clocksource);
    fputs(", \"loadavg_start\": ", f);
    json_str(f, H.load_start);
    fputs(", \"loadavg_end\": ", f);
    json_str(f, H.load_end);
    fputs(", \"clock_read_ns\": ", f);
    json_num(f, H.clock_read_ns);
    fprintf(f, "},\n  \"options\": {\"iters\": %" PRIu64 ", \"repeats\": %d, \"sample_ms\": ",
            bench_opt.iters, bench_opt.repeats);
    json_num(f, bench_opt.sample_ms);
    fprintf(f, ", \"min_size\": %zu, \"max_size\": %zu},\n", bench_opt.min_size,
            bench_opt.max_size);
    fputs("  \"raw_pingpong_one_way_ns\": {\"before\": ", f);
    json_stat(f, &H.raw_before);
    fputs(", \"after\": ", f);
    json_stat(f, &H.raw_after);
    fputs("},\n  \"results\": [\n    ", f);
    if (H.jrows_buf)
        fputs(H.jrows_buf, f);
    fputs("\n  ],\n  \"targets\": [", f);
    for (int i = 0; i < H.ntargets; i++) {
        struct target *t = &H.targets[i];
        fputs(i ? ",\n    {\"name\": " : "\n    {\"name\": ", f);
        json_str(f, t->name);
        fputs(", \"measured\": ", f);
        json_num(f, t->measured);
        fputs(", \"unit\": ", f);
        json_str(f, t->unit);
        fputs(", \"cmp\": ", f);
        json_str(f, t->cmp);
        fputs(", \"target\": ", f);
        json_num(f, t->target);
        fputs(", \"ratio\": ", f);
        json_num(f, t->measured / t->target);
        fprintf(f, ", \"met\": %s, \"detail\": ", t->met ? "true" : "false");
        json_str(f, t->detail);
        fputs("}", f);
    }
    fputs("\n  ],\n  \"notes\": [\n    ", f);
    if (H.jnotes_buf)
        fputs(H.jnotes_buf, f);
    fprintf(f, "\n  ],\n  \"wrong_total\": %" PRIu64 "\n}\n", H.wrong_total);
    if (fclose(f) != 0)
        fprintf(stderr, "%s: writing %s failed\n", H.info->name, bench_opt.json);
}

int bench_finish(void)
{
    struct bench_meas raw = bench_raw_pingpong();
    bench_measure(&raw, 1);
    H.raw_after = raw.stat;
    if (H.me == 0)
        printf("\n");
    print_raw("before", &H.raw_before);
    print_raw("after ", &H.raw_after);
    if (H.me == 0) {
        read_first_line("/proc/loadavg", H.load_end, sizeof(H.load_end));
        bench_note("load average at end: %s", H.load_end);
        double a = H.raw_before.median, b = H.raw_after.median;
        if (a > 0 && b > 0 && (a / b > 1.5 || b / a > 1.5))
            bench_note("the cross-core latency regime changed during this run (%.0f -> %.0f "
                       "ns); ratios use baselines sampled next to each figure",
                       a, b);
        printf("\n# targets\n# %-52s %12s %12s %8s  %s\n", "Figure", "Measured", "Target", "Ratio",
               "Result");
        if (H.ntargets == 0)
            printf("  (none of the brief's targets applies to this program at %d PE%s)\n", H.npes,
                   H.npes == 1 ? "" : "s");
        for (int i = 0; i < H.ntargets; i++) {
            struct target *t = &H.targets[i];
            char m[32], g[32], ms[48], gs[48];
            fmt_val(t->measured, m, sizeof(m));
            fmt_val(t->target, g, sizeof(g));
            snprintf(ms, sizeof(ms), "%s %s", m, t->unit);
            snprintf(gs, sizeof(gs), "%s %s %s", t->cmp, g, t->unit);
            printf("  %-52s %12s %12s %8.3f  %s\n", t->name, ms, gs, t->measured / t->target,
                   t->met ? "met" : "MISSED");
            if (t->detail[0])
                printf("  %-52s   (%s)\n", "", t->detail);
        }
        printf("\n# data verification: %" PRIu64 " wrong value%s in total\n", H.wrong_total,
               H.wrong_total == 1 ? "" : "s");
        if (bench_opt.json)
            write_json();
    }
    uint64_t wrong = bench_bcast_u64(H.wrong_total);
#if defined(BENCH_RT_SHMEM)
    shmem_barrier_all();
    shmem_free(H.ctl);
#elif defined(BENCH_RT_MPI)
    free(H.ctl);
#else
    sym_free(H.ctl);
#endif
    if (rt_finalize() != 0)
        return 1;
    return wrong ? 1 : 0;
}
