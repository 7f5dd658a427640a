/*
 * active.c - the deprecated active-set collectives (PE_start,
 * logPE_stride, PE_size, pSync): barrier, sync, broadcast, collect,
 * fcollect, alltoall(s) and the *_to_all reductions.
 *
 * Only the members of an active set call these, so no native team can be
 * made for them (that is collective over a parent).  They are built from
 * puts, atomics and waits on the caller's pSync instead:
 *   pSync[0]  arrival counter at the set's first PE
 *   pSync[1]  release flag at every other member
 *   pSync[2]  collect: running offset handed from member to member
 * and every word is back at SHMEM_SYNC_VALUE when a call returns, as the
 * specification requires for reusing pSync.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_internal.h"

struct aset {
    int start, stride, size, idx;
};

static struct aset aset_of(const char *routine, int start, int log_stride, int size)
{
    int me = sym_my_pe(), n = sym_n_pes();
    if (log_stride < 0 || log_stride > 30 || size < 1 || start < 0)
        symshmem_failf(routine, "invalid active set (PE_start %d, logPE_stride %d, PE_size %d)",
                       start, log_stride, size);
    struct aset a = {start, 1 << log_stride, size, -1};
    if ((long)start + (long)(size - 1) * a.stride >= n)
        symshmem_failf(routine,
                       "active set (PE_start %d, stride %d, PE_size %d) exceeds the %d PEs", start,
                       a.stride, size, n);
    if (me >= start && (me - start) % a.stride == 0 && (me - start) / a.stride < size)
        a.idx = (me - start) / a.stride;
    else
        symshmem_failf(routine,
                       "PE %d is not in the active set (PE_start %d, stride %d, PE_size %d)", me,
                       start, a.stride, size);
    return a;
}

static int aset_pe(const struct aset *a, int i)
{
    return a->start + i * a->stride;
}

struct psync_wait {
    long *word;
    long value;
    bool equal; /* wait for == value, else != value */
};

static bool psync_ready(void *arg)
{
    struct psync_wait *w = arg;
    long x = __atomic_load_n(w->word, __ATOMIC_ACQUIRE);
    return w->equal ? x == w->value : x != w->value;
}

static void psync_describe(void *arg, char *buf, size_t len)
{
    struct psync_wait *w = arg;
    snprintf(buf, len, "pSync word %p to become %s %ld (now %ld)", (void *)w->word,
             w->equal ? "==" : "!=", w->value, __atomic_load_n(w->word, __ATOMIC_ACQUIRE));
}

static long psync_wait(const char *routine, long *word, long value, bool equal)
{
    struct psync_wait w = {word, value, equal};
    symshmem_check(routine, symshmem_wait(routine, psync_ready, &w, psync_describe));
    return __atomic_load_n(word, __ATOMIC_ACQUIRE);
}

sym_status_t symshmem_active_barrier(const char *routine, int start, int log_stride, int size,
                                     long *psync, bool quiet)
{
    struct aset a = aset_of(routine, start, log_stride, size);
    if (quiet)
        symshmem_check(routine, sym_quiet());
    if (size == 1)
        return SYM_OK;
    uint64_t *p = (uint64_t *)psync;
    if (a.idx != 0) {
        symshmem_check(routine, sym_atomic_add64(&p[0], 1, a.start));
        psync_wait(routine, &psync[1], SHMEM_SYNC_VALUE, false);
        __atomic_store_n(&psync[1], SHMEM_SYNC_VALUE, __ATOMIC_RELEASE);
    } else {
        psync_wait(routine, &psync[0], SHMEM_SYNC_VALUE + size - 1, true);
        /* Reset before releasing anyone: no PE can arrive again before. */
        __atomic_store_n(&psync[0], SHMEM_SYNC_VALUE, __ATOMIC_RELEASE);
        for (int i = 1; i < size; i++)
            symshmem_check(routine, sym_atomic_set64(&p[1], SHMEM_SYNC_VALUE + 1, aset_pe(&a, i)));
    }
    return SYM_OK;
}

SYMSHMEM_WEAK_(shmem_barrier)
void pshmem_barrier(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    symshmem_active_barrier("shmem_barrier", PE_start, logPE_stride, PE_size, pSync, true);
}

SYMSHMEM_WEAK_(shmem_sync)
void pshmem_sync(int PE_start, int logPE_stride, int PE_size, long *pSync)
{
    symshmem_active_barrier("shmem_sync", PE_start, logPE_stride, PE_size, pSync, false);
}

/* Every collective: enter together (targets are free), move data, complete
 * it, leave together (data visible everywhere). */
#define ENTER_() symshmem_active_barrier(routine, start, log_stride, size, psync, true)
#define LEAVE_() symshmem_active_barrier(routine, start, log_stride, size, psync, true)

static void active_broadcast(const char *routine, void *dest, const void *source, size_t nbytes,
                             int root, int start, int log_stride, int size, long *psync)
{
    struct aset a = aset_of(routine, start, log_stride, size);
    if (root < 0 || root >= size)
        symshmem_failf(routine, "PE_root %d outside the active set of %d PEs", root, size);
    ENTER_();
    if (a.idx == root && nbytes) /* zero bytes: a no-op, dest may be NULL */
        for (int i = 0; i < size; i++)
            if (i != root)
                symshmem_check(routine, sym_put(dest, source, nbytes, aset_pe(&a, i)));
    LEAVE_();
}

static void active_fcollect(const char *routine, void *dest, const void *source, size_t nbytes,
                            int start, int log_stride, int size, long *psync)
{
    struct aset a = aset_of(routine, start, log_stride, size);
    ENTER_();
    for (int i = 0; i < size && nbytes; i++)
        symshmem_check(routine, sym_put((char *)dest + (size_t)a.idx * nbytes, source, nbytes,
                                        aset_pe(&a, i)));
    LEAVE_();
}

static void active_collect(const char *routine, void *dest, const void *source, size_t nelems,
                           size_t esz, int start, int log_stride, int size, long *psync)
{
    struct aset a = aset_of(routine, start, log_stride, size);
    ENTER_();
    /* My offset (in elements) is the sum of the earlier members' counts,
     * handed down the set as offset + 1 (so it differs from SYNC_VALUE). */
    long off = 0;
    if (a.idx > 0) {
        off = psync_wait(routine, &psync[2], SHMEM_SYNC_VALUE, false) - 1;
        __atomic_store_n(&psync[2], SHMEM_SYNC_VALUE, __ATOMIC_RELEASE);
    }
    if (a.idx + 1 < size)
        symshmem_check(routine,
                       sym_atomic_set64((uint64_t *)&psync[2], (uint64_t)(off + (long)nelems + 1),
                                        aset_pe(&a, a.idx + 1)));
    for (int i = 0; i < size && nelems; i++)
        symshmem_check(routine, sym_put((char *)dest + (size_t)off * esz, source, nelems * esz,
                                        aset_pe(&a, i)));
    LEAVE_();
}

static void active_alltoalls(const char *routine, void *dest, const void *source, ptrdiff_t dst,
                             ptrdiff_t sst, size_t nelems, size_t esz, int start, int log_stride,
                             int size, long *psync)
{
    struct aset a = aset_of(routine, start, log_stride, size);
    ENTER_();
    for (int j = 0; j < size && nelems; j++) {
        char *d = (char *)dest + (size_t)a.idx * nelems * (size_t)dst * esz;
        const char *s = (const char *)source + (size_t)j * nelems * (size_t)sst * esz;
        symshmem_check(routine, sym_iput(d, s, dst, sst, esz, nelems, aset_pe(&a, j)));
    }
    LEAVE_();
}

#define ACTIVE_DEF_(BITS)                                                                          \
    SYMSHMEM_WEAK_(shmem_broadcast##BITS)                                                          \
    void pshmem_broadcast##BITS(void *dest, const void *source, size_t nelems, int PE_root,        \
                                int PE_start, int logPE_stride, int PE_size, long *pSync)          \
    {                                                                                              \
        active_broadcast("shmem_broadcast" #BITS, dest, source, nelems *(BITS / 8), PE_root,       \
                         PE_start, logPE_stride, PE_size, pSync);                                  \
    }                                                                                              \
    SYMSHMEM_WEAK_(shmem_collect##BITS)                                                            \
    void pshmem_collect##BITS(void *dest, const void *source, size_t nelems, int PE_start,         \
                              int logPE_stride, int PE_size, long *pSync)                          \
    {                                                                                              \
        active_collect("shmem_collect" #BITS, dest, source, nelems, BITS / 8, PE_start,            \
                       logPE_stride, PE_size, pSync);                                              \
    }                                                                                              \
    SYMSHMEM_WEAK_(shmem_fcollect##BITS)                                                           \
    void pshmem_fcollect##BITS(void *dest, const void *source, size_t nelems, int PE_start,        \
                               int logPE_stride, int PE_size, long *pSync)                         \
    {                                                                                              \
        active_fcollect("shmem_fcollect" #BITS, dest, source, nelems *(BITS / 8), PE_start,        \
                        logPE_stride, PE_size, pSync);                                             \
    }                                                                                              \
    SYMSHMEM_WEAK_(shmem_alltoall##BITS)                                                           \
    void pshmem_alltoall##BITS(void *dest, const void *source, size_t nelems, int PE_start,        \
                               int logPE_stride, int PE_size, long *pSync)                         \
    {                                                                                              \
        active_alltoalls("shmem_alltoall" #BITS, dest, source, 1, 1, nelems, BITS / 8, PE_start,   \
                         logPE_stride, PE_size, pSync);                                            \
    }                                                                                              \
    SYMSHMEM_WEAK_(shmem_alltoalls##BITS)                                                          \
    void pshmem_alltoalls##BITS(void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst,      \
                                size_t nelems, int PE_start, int logPE_stride, int PE_size,        \
                                long *pSync)                                                       \
    {                                                                                              \
        active_alltoalls("shmem_alltoalls" #BITS, dest, source, dst, sst, nelems, BITS / 8,        \
                         PE_start, logPE_stride, PE_size, pSync);                                  \
    }
ACTIVE_DEF_(32)
ACTIVE_DEF_(64)

/* Reductions: every member reads every member's source in set order and
 * combines locally (same order everywhere: same bits); a barrier keeps the
 * sources intact until all have read, then dest (which may be source) is
 * written. */
typedef void (*combine_fn)(void *acc, const void *in, size_t n, int op);
enum { OP_AND, OP_OR, OP_XOR, OP_MAX, OP_MIN, OP_SUM, OP_PROD };

static void active_reduce(const char *routine, void *dest, const void *source, int nreduce,
                          size_t esz, int op, combine_fn combine, int start, int log_stride,
                          int size, long *psync)
{
    struct aset a = aset_of(routine, start, log_stride, size);
    if (nreduce < 0)
        symshmem_failf(routine, "negative nreduce %d", nreduce);
    size_t nbytes = (size_t)nreduce * esz;
    char *acc = malloc(nbytes ? nbytes : 1), *in = malloc(nbytes ? nbytes : 1);
    if (!acc || !in)
        symshmem_failf(routine, "no memory for %zu bytes", nbytes);
    ENTER_();
    for (int i = 0; i < size && nbytes; i++) {
        char *buf = i == 0 ? acc : in;
        if (aset_pe(&a, i) == sym_my_pe())
            memcpy(buf, source, nbytes);
        else
            symshmem_check(routine, sym_get(buf, source, nbytes, aset_pe(&a, i)));
        if (i > 0)
            combine(acc, in, (size_t)nreduce, op);
    }
    LEAVE_();
    if (nbytes)
        memcpy(dest, acc, nbytes);
    free(acc);
    free(in);
}

#define TO_ALL_(T, N, op, OPC, kind)                                                               \
    SYMSHMEM_WEAK_(shmem_##N##_##op##_to_all)                                                      \
    void pshmem_##N##_##op##_to_all(T *dest, const T *source, int nreduce, int PE_start,           \
                                    int logPE_stride, int PE_size, T *pWrk, long *pSync)           \
    {                                                                                              \
        (void)pWrk;                                                                                \
        active_reduce("shmem_" #N "_" #op "_to_all", dest, source, nreduce, sizeof(T), OPC,        \
                      N##_##kind, PE_start, logPE_stride, PE_size, pSync);                         \
    }

#define ACTIVE_RED_DEF_(a, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)         \
    SYMSHMEM_IF_(OLD)                                                                              \
    (static void N##_arith(void *acc, const void *in, size_t n, int op) {                          \
        T *x = acc;                                                                                \
        const T *y = in;                                                                           \
        for (size_t i = 0; i < n; i++)                                                             \
            x[i] = op == OP_SUM ? (T)(x[i] + y[i]) : (T)(x[i] * y[i]);                             \
    } TO_ALL_(T, N, sum, OP_SUM, arith) TO_ALL_(T, N, prod, OP_PROD, arith))                       \
        SYMSHMEM_IF_(SYMSHMEM_AND_(OLD, RMM))(                                                     \
            static void N##_cmp(void *acc, const void *in, size_t n, int op) {                     \
                T *x = acc;                                                                        \
                const T *y = in;                                                                   \
                for (size_t i = 0; i < n; i++)                                                     \
                    if (op == OP_MAX ? y[i] > x[i] : y[i] < x[i])                                  \
                        x[i] = y[i];                                                               \
            } TO_ALL_(T, N, max, OP_MAX, cmp) TO_ALL_(T, N, min, OP_MIN, cmp))                     \
            SYMSHMEM_IF_(SYMSHMEM_AND_(OLD, SYMSHMEM_ISSINT_##K))(                                 \
                static void N##_bit(void *acc, const void *in, size_t n, int op) {                 \
                    T *x = acc;                                                                    \
                    const T *y = in;                                                               \
                    for (size_t i = 0; i < n; i++)                                                 \
                        x[i] = op == OP_AND  ? (T)(x[i] & y[i])                                    \
                               : op == OP_OR ? (T)(x[i] | y[i])                                    \
                                             : (T)(x[i] ^ y[i]);                                   \
                } TO_ALL_(T, N, and, OP_AND, bit) TO_ALL_(T, N, or, OP_OR, bit)                    \
                    TO_ALL_(T, N, xor, OP_XOR, bit))
SYMSHMEM_TYPES_(ACTIVE_RED_DEF_, _)
