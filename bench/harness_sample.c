/*
 * harness_sample.c - calibrated, interleaved sampling (harness.h): how many
 * iterations make one sample, warm-up, the samples of several bodies taken
 * A B A B ..., their median / min / max, and parking the PEs a sample
 * leaves out.
 */
#include "harness_private.h"

#include <limits.h>
#include <linux/futex.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

enum bench_phase bench_phase;

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
            harness_die("parked for 600 s waiting for PE 0 (want gate %u)", gen);
        struct timespec ts = {0, 50000};
        nanosleep(&ts, NULL);
    }
    if (v != gen)
        harness_die("parked: PE 0 released gate %u, expected %u", v, gen);
}

static void release_from(uint32_t gen, int first)
{
    for (int pe = first; pe < bench_state.npes; pe++)
        MPI_Send(&gen, 1, MPI_UINT32_T, pe, RT_TAG_GATE, MPI_COMM_WORLD);
}
#else
static void park(uint32_t gen)
{
    const uint64_t give_up = bench_now_ns() + 600ull * 1000000000u;
    for (;;) {
        uint32_t v;
        if (bench_state.gate)
            v = __atomic_load_n(bench_state.gate, __ATOMIC_ACQUIRE);
#if defined(BENCH_RT_SHMEM)
        else
            v = (uint32_t)shmem_int_atomic_fetch((int *)(void *)&bench_state.ctl->gate, 0);
#else
        else
            BENCH_OK(sym_atomic_fetch32(&v, &bench_state.ctl->gate, 0));
#endif
        if ((int32_t)(v - gen) >= 0)
            return;
        if (bench_now_ns() > give_up)
            harness_die("parked for 600 s waiting for PE 0 (gate %u, want %u)", v, gen);
        struct timespec ts = {0, 100000000};
#ifdef BENCH_RT_SYM
        if (bench_state.gate) {
            futex(bench_state.gate, FUTEX_WAIT, v, &ts);
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
        if (bench_state.npes <=
            sysconf(_SC_NPROCESSORS_ONLN)) { /* bench_state.nproc is PE 0's only */
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
    __atomic_store_n(&bench_state.ctl->gate, gen, __ATOMIC_RELEASE);
#ifdef BENCH_RT_SYM
    futex(&bench_state.ctl->gate, FUTEX_WAKE, INT_MAX, NULL);
#endif
}
#endif

/* PE 0: the largest elapsed time of PEs 0 .. parts-1 (e is PE 0's own);
 * elsewhere: hands e to PE 0 and returns it. */
static uint64_t gather_max(uint64_t e, int parts)
{
#if defined(BENCH_RT_MPI)
    if (bench_state.me != 0) {
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
    if (bench_state.me != 0) {
        harness_rt_set64(&bench_state.ctl->elapsed[bench_state.me], e, 0);
        harness_rt_add64(&bench_state.ctl->done, 1, 0);
        return e;
    }
    bench_state.done_expected += (uint64_t)parts - 1;
#if defined(BENCH_RT_SHMEM)
    shmem_long_wait_until(RT_L(&bench_state.ctl->done), SHMEM_CMP_GE,
                          (long)bench_state.done_expected);
#else
    BENCH_OK(sym_wait_until_uint64(&bench_state.ctl->done, SYM_CMP_GE, bench_state.done_expected));
#endif
    for (int pe = 1; pe < parts; pe++) {
        uint64_t o = __atomic_load_n(&bench_state.ctl->elapsed[pe], __ATOMIC_ACQUIRE);
        if (o > e)
            e = o;
    }
    return e;
#endif
}

/* ---- sampling ------------------------------------------------------------- */

static int participants(const struct bench_meas *m)
{
    return m->participants <= 0 || m->participants > bench_state.npes ? bench_state.npes
                                                                      : m->participants;
}

/* One collective run of m's body; returns the elapsed ns that count (PE 0). */
static uint64_t run_once(struct bench_meas *m, uint64_t iters)
{
    const int parts = participants(m);
    const bool parking = parts < bench_state.npes;
    const uint32_t gen = parking ? ++bench_state.gate_gen : 0;
    bench_barrier();
    uint64_t e = 0;
    if (bench_state.me >= parts) {
#if defined(BENCH_RT_SHMEM)
        if (m->target_progress) {
            /* Own gate, set by PE 0's release below. */
            shmem_int_wait_until((int *)(void *)&bench_state.ctl->gate, SHMEM_CMP_GE, (int)gen);
            return 0;
        }
#endif
        park(gen);
        return 0;
    }
    e = m->body(m->arg, iters);
    if (m->timing == BENCH_TIME_MAX && parts > 1)
        e = gather_max(e, parts);
    if (parking && bench_state.me == 0) {
#if defined(BENCH_RT_SHMEM)
        if (m->target_progress) {
            for (int pe = parts; pe < bench_state.npes; pe++)
                shmem_int_atomic_set((int *)(void *)&bench_state.ctl->gate, (int)gen, pe);
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
        if (bench_state.me == 0) {
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
