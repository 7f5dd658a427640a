/*
 * harness_runtime.c - the runtime underneath the harness (symheap, OpenSHMEM
 * or MPI, see bench_rt.h): who this PE is, how the job is aborted, the
 * control block's remote words, and the small collectives the harness needs.
 */
#include "harness_private.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The harness's state, PE-local. */
struct bench_state bench_state;

int bench_me(void)
{
    return bench_state.me;
}

int bench_npes(void)
{
    return bench_state.npes;
}

uint64_t bench_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

const char *bench_impl(void)
{
    return bench_state.rt_impl;
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
    fprintf(stderr, "%s: PE %d: %s failed: %s: %s\n",
            bench_state.info ? bench_state.info->name : "bench", bench_state.me, what,
            sym_status_name(st), sym_last_error());
    fflush(stderr);
    sym_global_exit(1);
    exit(1);
}
#endif

static void vdie(const char *fmt, va_list ap) __attribute__((noreturn));
static void vdie(const char *fmt, va_list ap)
{
    fprintf(stderr, "%s: PE %d: ", bench_state.info ? bench_state.info->name : "bench",
            bench_state.me);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    fflush(stderr);
    if (bench_state.rt_up)
        rt_global_exit(1);
    exit(1);
}

void bench_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdie(fmt, ap);
}

void harness_die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vdie(fmt, ap);
}

#ifndef BENCH_RT_MPI
void harness_rt_set64(uint64_t *w, uint64_t v, int pe)
{
#if defined(BENCH_RT_SHMEM)
    shmem_long_atomic_set(RT_L(w), (long)v, pe);
#else
    BENCH_OK(sym_atomic_set64(w, v, pe));
#endif
}

void harness_rt_add64(uint64_t *w, uint64_t v, int pe)
{
#if defined(BENCH_RT_SHMEM)
    shmem_long_atomic_add(RT_L(w), (long)v, pe);
#else
    BENCH_OK(sym_atomic_add64(w, v, pe));
#endif
}
#endif

int harness_rt_finalize(void)
{
    bench_state.rt_up = false;
#if defined(BENCH_RT_SHMEM)
    shmem_finalize();
#elif defined(BENCH_RT_MPI)
    MPI_Finalize();
#else
    if (sym_finalize() != SYM_OK) {
        fprintf(stderr, "%s: PE %d: sym_finalize: %s\n",
                bench_state.info ? bench_state.info->name : "bench", bench_state.me,
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
    if (bench_state.me == 0)
        for (int pe = 0; pe < bench_state.npes; pe++)
            harness_rt_set64(&bench_state.ctl->bcast, v, pe);
    bench_barrier();
    uint64_t r = __atomic_load_n(&bench_state.ctl->bcast, __ATOMIC_ACQUIRE);
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
        harness_rt_add64(&bench_state.ctl->sum, v, 0);
    bench_barrier();
    uint64_t total = 0;
    if (bench_state.me == 0)
        total = __atomic_exchange_n(&bench_state.ctl->sum, 0, __ATOMIC_ACQ_REL);
    return bench_bcast_u64(total);
#endif
}
