/*
 * coll.c - OpenSHMEM team collectives mapped onto symheap's collectives:
 * barrier/sync, broadcast, collect, fcollect, alltoall(s) (typed and mem)
 * and the and/or/xor/max/min/sum/prod reductions.  Types the native
 * reductions lack (long double, complex) are gathered and reduced here in
 * team order, so every PE gets the same bits.  OpenSHMEM's dest and source
 * are symmetric, and the calls say so (sym_coll_opts_t.symmetric): from the
 * sizes where the native automatic choice then takes the direct algorithm,
 * members copy straight out of each other's heaps.
 */
#include <stdlib.h>
#include <string.h>

#include "shmem_internal.h"

/* dest and source are symmetric by OpenSHMEM's rules */
static const sym_coll_opts_t symmetric = {.symmetric = 1};

SYMSHMEM_WEAK_(shmem_barrier_all)
void pshmem_barrier_all(void)
{
    symshmem_check("shmem_barrier_all", sym_barrier_all());
}
SYMSHMEM_WEAK_(shmem_sync_all)
void pshmem_sync_all(void)
{
    symshmem_check("shmem_sync_all", sym_sync_all());
}

SYMSHMEM_WEAK_(shmem_team_sync)
int pshmem_team_sync(shmem_team_t team)
{
    return sym_barrier(symshmem_native_team(team), NULL) == SYM_OK ? 0 : -1;
}

static int status_of(sym_status_t st)
{
    return st == SYM_OK ? 0 : -1;
}

static int bytes_of(size_t nelems, size_t esz, size_t *nbytes_p)
{
    if (esz && nelems > SIZE_MAX / esz)
        return -1;
    *nbytes_p = nelems * esz;
    return 0;
}

static int coll_broadcast(shmem_team_t team, void *dest, const void *source, size_t nelems,
                          size_t esz, int root)
{
    size_t nbytes;
    sym_team_t t = symshmem_native_team(team);
    if (bytes_of(nelems, esz, &nbytes) || t == SYM_TEAM_INVALID)
        return -1;
    /* The native broadcast works in place, and only reads the root's
     * buffer: the root offers source itself, so the members copy it once
     * (a copy into dest first would be one more, and would leave them
     * pulling lines the root has just written), and the root fills its own
     * dest once they are done with source. */
    const bool is_root = sym_team_my_pe(t) == root;
    void *buf = is_root ? (void *)(uintptr_t)source : dest;
    int rc = status_of(sym_broadcast(t, buf, nbytes, SYM_UINT8, root, &symmetric));
    if (rc == 0 && is_root && dest != source && nbytes)
        memmove(dest, source, nbytes);
    return rc;
}

static int coll_fcollect(shmem_team_t team, void *dest, const void *source, size_t nelems,
                         size_t esz)
{
    size_t nbytes;
    if (bytes_of(nelems, esz, &nbytes))
        return -1;
    return status_of(
        sym_all_gather(symshmem_native_team(team), dest, source, nbytes, SYM_UINT8, &symmetric));
}

static int coll_collect(shmem_team_t team, void *dest, const void *source, size_t nelems,
                        size_t esz)
{
    sym_team_t t = symshmem_native_team(team);
    int n = sym_team_n_pes(t);
    size_t nbytes;
    if (n < 1 || bytes_of(nelems, esz, &nbytes))
        return -1;
    uint64_t mine = nbytes, *all = malloc((size_t)n * sizeof *all);
    size_t *counts = malloc((size_t)n * sizeof *counts);
    int rc = -1;
    if (all && counts && sym_all_gather(t, all, &mine, 1, SYM_UINT64, NULL) == SYM_OK) {
        for (int i = 0; i < n; i++)
            counts[i] = (size_t)all[i];
        rc = status_of(sym_all_gatherv(t, dest, source, counts, SYM_UINT8, &symmetric));
    }
    free(all);
    free(counts);
    return rc;
}

static int coll_alltoall(shmem_team_t team, void *dest, const void *source, size_t nelems,
                         size_t esz)
{
    size_t nbytes;
    if (bytes_of(nelems, esz, &nbytes))
        return -1;
    return status_of(
        sym_all_to_all(symshmem_native_team(team), dest, source, nbytes, SYM_UINT8, &symmetric));
}

/* Strided all-to-all: element k of the block for member j is
 * source[(j * nelems + k) * sst]; the block from member i lands at
 * dest[(i * nelems + k) * dst].  Packed, exchanged, unpacked. */
static int coll_alltoalls(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                          ptrdiff_t sst, size_t nelems, size_t esz)
{
    sym_team_t t = symshmem_native_team(team);
    int n = sym_team_n_pes(t);
    size_t total;
    if (n < 1 || dst < 1 || sst < 1 || bytes_of((size_t)n * nelems, esz, &total))
        return -1;
    unsigned char *in = malloc(total ? total : 1), *out = malloc(total ? total : 1);
    int rc = -1;
    if (in && out) {
        const unsigned char *s = source;
        unsigned char *d = dest;
        for (size_t e = 0; e < (size_t)n * nelems; e++)
            memcpy(in + e * esz, s + e * (size_t)sst * esz, esz);
        rc = status_of(sym_all_to_all(t, out, in, nelems * esz, SYM_UINT8, NULL));
        if (rc == 0)
            for (size_t e = 0; e < (size_t)n * nelems; e++)
                memcpy(d + e * (size_t)dst * esz, out + e * esz, esz);
    }
    free(in);
    free(out);
    return rc;
}

SYMSHMEM_WEAK_(shmem_broadcastmem)
int pshmem_broadcastmem(shmem_team_t team, void *dest, const void *source, size_t nelems,
                        int PE_root)
{
    return coll_broadcast(team, dest, source, nelems, 1, PE_root);
}
SYMSHMEM_WEAK_(shmem_collectmem)
int pshmem_collectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return coll_collect(team, dest, source, nelems, 1);
}
SYMSHMEM_WEAK_(shmem_fcollectmem)
int pshmem_fcollectmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return coll_fcollect(team, dest, source, nelems, 1);
}
SYMSHMEM_WEAK_(shmem_alltoallmem)
int pshmem_alltoallmem(shmem_team_t team, void *dest, const void *source, size_t nelems)
{
    return coll_alltoall(team, dest, source, nelems, 1);
}
SYMSHMEM_WEAK_(shmem_alltoallsmem)
int pshmem_alltoallsmem(shmem_team_t team, void *dest, const void *source, ptrdiff_t dst,
                        ptrdiff_t sst, size_t nelems)
{
    return coll_alltoalls(team, dest, source, dst, sst, nelems, 1);
}

/* Reduce in place: acc[i] = acc[i] op in[i]. */
typedef void (*local_reduce_fn)(void *acc, const void *in, size_t n, sym_op_t op);

/* Reduction over the team: natively when symheap has the datatype, else
 * gather every member's source and combine in team order. */
static int coll_reduce(shmem_team_t team, void *dest, const void *source, size_t n, size_t esz,
                       sym_datatype_t dt, sym_op_t op, local_reduce_fn local)
{
    sym_team_t t = symshmem_native_team(team);
    if (t == SYM_TEAM_INVALID)
        return -1;
    if (dt)
        return status_of(sym_allreduce(t, dest, source, n, dt, op, &symmetric));
    int npes = sym_team_n_pes(t);
    size_t nbytes, total;
    if (bytes_of(n, esz, &nbytes) || bytes_of((size_t)npes, nbytes, &total))
        return -1;
    unsigned char *all = malloc(total ? total : 1);
    if (!all)
        return -1;
    int rc = status_of(sym_all_gather(t, all, source, nbytes, SYM_UINT8, NULL));
    if (rc == 0) {
        for (int i = 1; i < npes; i++)
            local(all, all + (size_t)i * nbytes, n, op);
        if (nbytes)
            memcpy(dest, all, nbytes);
    }
    free(all);
    return rc;
}

/* The native datatype of an integer type by size and signedness; of a
 * float by size; 0 (none) for long double and complex. */
#define DT_INT_(T)                                                                                 \
    ((T)-1 < (T)1 ? (sizeof(T) == 1   ? SYM_INT8                                                   \
                     : sizeof(T) == 2 ? SYM_INT16                                                  \
                     : sizeof(T) == 4 ? SYM_INT32                                                  \
                                      : SYM_INT64)                                                 \
                  : (sizeof(T) == 1   ? SYM_UINT8                                                  \
                     : sizeof(T) == 2 ? SYM_UINT16                                                 \
                     : sizeof(T) == 4 ? SYM_UINT32                                                 \
                                      : SYM_UINT64))
#define DT_I(T) DT_INT_(T)
#define DT_U(T) DT_INT_(T)
#define DT_F(T) (sizeof(T) == 4 ? SYM_FLOAT : SYM_DOUBLE)
#define DT_L(T) ((sym_datatype_t)0)
#define DT_C(T) ((sym_datatype_t)0)

/* clang-format off */
#define COLL_DEF_(a, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)          \
    SYMSHMEM_IF_(RMA)(                                                                        \
    SYMSHMEM_WEAK_(shmem_##N##_broadcast) int pshmem_##N##_broadcast(shmem_team_t team, T *dest, const T *source, size_t nelems,     \
                              int PE_root)                                                    \
    {                                                                                         \
        return coll_broadcast(team, dest, source, nelems, sizeof(T), PE_root);                \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_collect) int pshmem_##N##_collect(shmem_team_t team, T *dest, const T *source, size_t nelems)       \
    {                                                                                         \
        return coll_collect(team, dest, source, nelems, sizeof(T));                           \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_fcollect) int pshmem_##N##_fcollect(shmem_team_t team, T *dest, const T *source, size_t nelems)      \
    {                                                                                         \
        return coll_fcollect(team, dest, source, nelems, sizeof(T));                          \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_alltoall) int pshmem_##N##_alltoall(shmem_team_t team, T *dest, const T *source, size_t nelems)      \
    {                                                                                         \
        return coll_alltoall(team, dest, source, nelems, sizeof(T));                          \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_alltoalls) int pshmem_##N##_alltoalls(shmem_team_t team, T *dest, const T *source, ptrdiff_t dst,     \
                              ptrdiff_t sst, size_t nelems)                                   \
    {                                                                                         \
        return coll_alltoalls(team, dest, source, dst, sst, nelems, sizeof(T));               \
    })                                                                                        \
    SYMSHMEM_IF_(RSUM)(                                                                       \
    __attribute__((unused)) static void N##_sumprod(void *acc, const void *in, size_t n,     \
                                                    sym_op_t op)                              \
    {                                                                                         \
        T *a = acc;                                                                           \
        const T *b = in;                                                                      \
        for (size_t i = 0; i < n; i++)                                                        \
            a[i] = op == SYM_OP_SUM ? (T)(a[i] + b[i]) : (T)(a[i] * b[i]);                    \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_sum_reduce) int pshmem_##N##_sum_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)   \
    {                                                                                         \
        return coll_reduce(team, dest, source, nreduce, sizeof(T), DT_##K(T), SYM_OP_SUM,     \
                           N##_sumprod);                                                      \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_prod_reduce) int pshmem_##N##_prod_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)  \
    {                                                                                         \
        return coll_reduce(team, dest, source, nreduce, sizeof(T), DT_##K(T), SYM_OP_PROD,    \
                           N##_sumprod);                                                      \
    })                                                                                        \
    SYMSHMEM_IF_(RMM)(                                                                        \
    __attribute__((unused)) static void N##_minmax(void *acc, const void *in, size_t n,      \
                                                   sym_op_t op)                               \
    {                                                                                         \
        T *a = acc;                                                                           \
        const T *b = in;                                                                      \
        for (size_t i = 0; i < n; i++)                                                        \
            if (op == SYM_OP_MAX ? b[i] > a[i] : b[i] < a[i])                                 \
                a[i] = b[i];                                                                  \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_max_reduce) int pshmem_##N##_max_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)   \
    {                                                                                         \
        return coll_reduce(team, dest, source, nreduce, sizeof(T), DT_##K(T), SYM_OP_MAX,     \
                           N##_minmax);                                                       \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_min_reduce) int pshmem_##N##_min_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)   \
    {                                                                                         \
        return coll_reduce(team, dest, source, nreduce, sizeof(T), DT_##K(T), SYM_OP_MIN,     \
                           N##_minmax);                                                       \
    })                                                                                        \
    SYMSHMEM_IF_(RBIT)(                                                                       \
    SYMSHMEM_WEAK_(shmem_##N##_and_reduce) int pshmem_##N##_and_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)   \
    {                                                                                         \
        return coll_reduce(team, dest, source, nreduce, sizeof(T), DT_##K(T), SYM_OP_BAND,    \
                           NULL);                                                             \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_or_reduce) int pshmem_##N##_or_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)    \
    {                                                                                         \
        return coll_reduce(team, dest, source, nreduce, sizeof(T), DT_##K(T), SYM_OP_BOR,     \
                           NULL);                                                             \
    }                                                                                         \
    SYMSHMEM_WEAK_(shmem_##N##_xor_reduce) int pshmem_##N##_xor_reduce(shmem_team_t team, T *dest, const T *source, size_t nreduce)   \
    {                                                                                         \
        return coll_reduce(team, dest, source, nreduce, sizeof(T), DT_##K(T), SYM_OP_BXOR,    \
                           NULL);                                                             \
    })
/* clang-format on */
SYMSHMEM_TYPES_(COLL_DEF_, _)
