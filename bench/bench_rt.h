/*
 * bench_rt.h - the few runtime services the benchmark harness needs, for
 * three runtimes, so one harness (harness*.c) serves every benchmark:
 *
 *   default          symheap's native API (symheap.h), built by meson;
 *   BENCH_RT_SHMEM   any OpenSHMEM >= 1.4 through shmem.h: symheap's facade
 *                    (meson) or another implementation's compiler wrapper
 *                    (`oshcc -DBENCH_RT_SHMEM ...`, see bench/compare);
 *   BENCH_RT_MPI     MPI (`mpicc -DBENCH_RT_MPI ...`), for the MPI twins.
 *
 * Only what 1.4 and 1.5 both have is used for shmem (typed AMOs on long and
 * int, shmem_long_wait_until, shmem_ptr), so Open MPI 4.1's OSHMEM builds it.
 * The control block (struct bench_ctl in harness_private.h) is symmetric for sym and
 * shmem; under MPI it is private and the collectives below are MPI calls.
 */
#ifndef BENCH_RT_H
#define BENCH_RT_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(BENCH_RT_SHMEM)
#include <shmem.h>
#elif defined(BENCH_RT_MPI)
#include <mpi.h>
#else
#define BENCH_RT_SYM 1
#include <symheap.h>
#endif

/* Name of the implementation measured, for headers and JSON: "symheap",
 * "openshmem:<vendor name>", "mpi:<library version>". */
static inline void bench_rt_impl(char *buf, size_t len)
{
#if defined(BENCH_RT_SHMEM)
    char name[SHMEM_MAX_NAME_LEN + 1] = "";
    int maj = 0, min = 0;
    shmem_info_get_name(name);
    shmem_info_get_version(&maj, &min);
    name[SHMEM_MAX_NAME_LEN] = 0;
    snprintf(buf, len, "openshmem %d.%d: %s", maj, min, name);
#elif defined(BENCH_RT_MPI)
    char v[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int n = 0;
    MPI_Get_library_version(v, &n);
    v[strcspn(v, ",\n")] = 0; /* first phrase only */
    snprintf(buf, len, "mpi: %s", v);
#else
    snprintf(buf, len, "symheap %d.%d.%d (native API)", SYMHEAP_VERSION_MAJOR,
             SYMHEAP_VERSION_MINOR, SYMHEAP_VERSION_PATCH);
#endif
}

/* Short tag used in file names and the compare report. */
#if defined(BENCH_RT_SHMEM)
#define BENCH_RT_KIND "shmem"
#elif defined(BENCH_RT_MPI)
#define BENCH_RT_KIND "mpi"
#else
#define BENCH_RT_KIND "sym"
#endif

#endif /* BENCH_RT_H */
