/*
 * rma.c - OpenSHMEM RMA: typed, sized and mem puts and gets, strided,
 * non-blocking and with signal, each with its context form, generated from
 * the type table in shmem.h.
 */
#include <string.h>

#include "shmem_internal.h"

static size_t nbytes_of(const char *routine, size_t nelems, size_t esz)
{
    if (nelems > SIZE_MAX / esz)
        symshmem_failf(routine, "%zu elements of %zu bytes overflow size_t", nelems, esz);
    return nelems * esz;
}

static void rma_put(shmem_ctx_t ctx, const char *routine, void *dest, const void *src,
                    size_t nelems, size_t esz, int pe)
{
    if (nelems == 0) /* no-op, whatever the addresses (NULL included) */
        return;
    pe = symshmem_ctx_pe(ctx, pe, routine);
    if (pe < 0)
        return;
    symshmem_check(routine, sym_put(dest, src, nbytes_of(routine, nelems, esz), pe));
}

static void rma_get(shmem_ctx_t ctx, const char *routine, void *dest, const void *src,
                    size_t nelems, size_t esz, int pe)
{
    if (nelems == 0) /* no-op, whatever the addresses (NULL included) */
        return;
    pe = symshmem_ctx_pe(ctx, pe, routine);
    if (pe < 0)
        return;
    symshmem_check(routine, sym_get(dest, src, nbytes_of(routine, nelems, esz), pe));
}

static void rma_put_nbi(shmem_ctx_t ctx, const char *routine, void *dest, const void *src,
                        size_t nelems, size_t esz, int pe)
{
    if (nelems == 0) /* no-op, whatever the addresses (NULL included) */
        return;
    pe = symshmem_ctx_pe(ctx, pe, routine);
    if (pe < 0)
        return;
    symshmem_check(routine, sym_put_nbi(dest, src, nbytes_of(routine, nelems, esz), pe));
}

static void rma_get_nbi(shmem_ctx_t ctx, const char *routine, void *dest, const void *src,
                        size_t nelems, size_t esz, int pe)
{
    if (nelems == 0) /* no-op, whatever the addresses (NULL included) */
        return;
    pe = symshmem_ctx_pe(ctx, pe, routine);
    if (pe < 0)
        return;
    symshmem_check(routine, sym_get_nbi(dest, src, nbytes_of(routine, nelems, esz), pe));
}

static void rma_iput(shmem_ctx_t ctx, const char *routine, void *dest, const void *src,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esz, int pe)
{
    if (nelems == 0) /* no-op, whatever the addresses (NULL included) */
        return;
    pe = symshmem_ctx_pe(ctx, pe, routine);
    if (pe < 0)
        return;
    symshmem_check(routine, sym_iput(dest, src, dst, sst, esz, nelems, pe));
}

static void rma_iget(shmem_ctx_t ctx, const char *routine, void *dest, const void *src,
                     ptrdiff_t dst, ptrdiff_t sst, size_t nelems, size_t esz, int pe)
{
    if (nelems == 0) /* no-op, whatever the addresses (NULL included) */
        return;
    pe = symshmem_ctx_pe(ctx, pe, routine);
    if (pe < 0)
        return;
    symshmem_check(routine, sym_iget(dest, src, dst, sst, esz, nelems, pe));
}

static void rma_put_signal(shmem_ctx_t ctx, const char *routine, void *dest, const void *src,
                           size_t nelems, size_t esz, uint64_t *sig_addr, uint64_t signal,
                           int sig_op, int pe, bool nbi)
{
    pe = symshmem_ctx_pe(ctx, pe, routine);
    if (pe < 0)
        return;
    size_t nbytes = nbytes_of(routine, nelems, esz);
    if (nbytes == 0) /* no data, whatever dest is (NULL included): the signal still goes */
        dest = sig_addr;
    sym_status_t st =
        nbi ? sym_put_signal_nbi(dest, src, nbytes, sig_addr, signal, (sym_signal_op_t)sig_op, pe)
            : sym_put_signal(dest, src, nbytes, sig_addr, signal, (sym_signal_op_t)sig_op, pe);
    symshmem_check(routine, st);
}

/* Typed routines of every standard RMA type. */
#define RMA_DEF_(a, T, N, K, G, GB, RMA, AMO, AMOX, BIT, P2P, RBIT, RMM, RSUM, OLD)                \
    SYMSHMEM_IF_(RMA)                                                                              \
    (SYMSHMEM_DEF_CTX_(void, N##_put,                                                              \
                       (rma_put(ctx, routine, dest, source, nelems, sizeof(T), pe);), T *dest,     \
                       const T *source, size_t nelems, int pe)                                     \
         SYMSHMEM_DEF_CTX_(void, N##_p, (rma_put(ctx, routine, dest, &value, 1, sizeof(T), pe);),  \
                           T *dest, T value, int pe)                                               \
             SYMSHMEM_DEF_CTX_(                                                                    \
                 void, N##_iput,                                                                   \
                 (rma_iput(ctx, routine, dest, source, dst, sst, nelems, sizeof(T), pe);),         \
                 T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)    \
                 SYMSHMEM_DEF_CTX_(                                                                \
                     void, N##_get, (rma_get(ctx, routine, dest, source, nelems, sizeof(T), pe);), \
                     T *dest, const T *source, size_t nelems,                                      \
                     int pe) SYMSHMEM_DEF_CTX_(T, N##_g,                                           \
                                               (T value = 0; rma_get(ctx, routine, &value, source, \
                                                                     1, sizeof(T), pe);            \
                                                return value;),                                    \
                                               const T *source, int pe)                            \
                     SYMSHMEM_DEF_CTX_(                                                            \
                         void, N##_iget,                                                           \
                         (rma_iget(ctx, routine, dest, source, dst, sst, nelems, sizeof(T), pe);), \
                         T *dest, const T *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems,    \
                         int pe) SYMSHMEM_DEF_CTX_(void, N##_put_nbi,                              \
                                                   (rma_put_nbi(ctx, routine, dest, source,        \
                                                                nelems, sizeof(T), pe);),          \
                                                   T *dest, const T *source, size_t nelems,        \
                                                   int pe)                                         \
                         SYMSHMEM_DEF_CTX_(                                                        \
                             void, N##_get_nbi,                                                    \
                             (rma_get_nbi(ctx, routine, dest, source, nelems, sizeof(T), pe);),    \
                             T *dest, const T *source, size_t nelems, int pe)                      \
                             SYMSHMEM_DEF_CTX_(                                                    \
                                 void, N##_put_signal,                                             \
                                 (rma_put_signal(ctx, routine, dest, source, nelems, sizeof(T),    \
                                                 sig_addr, signal, sig_op, pe, false);),           \
                                 T *dest, const T *source, size_t nelems, uint64_t *sig_addr,      \
                                 uint64_t signal, int sig_op, int pe)                              \
                                 SYMSHMEM_DEF_CTX_(void, N##_put_signal_nbi,                       \
                                                   (rma_put_signal(ctx, routine, dest, source,     \
                                                                   nelems, sizeof(T), sig_addr,    \
                                                                   signal, sig_op, pe, true);),    \
                                                   T *dest, const T *source, size_t nelems,        \
                                                   uint64_t *sig_addr, uint64_t signal,            \
                                                   int sig_op, int pe))
SYMSHMEM_TYPES_(RMA_DEF_, _)

/* Sized routines (elements of BYTES bytes). */
#define SIZED_DEF_(a, BITS, BYTES)                                                                 \
    SYMSHMEM_DEF_CTX_(void, put##BITS, (rma_put(ctx, routine, dest, source, nelems, BYTES, pe);),  \
                      void *dest, const void *source, size_t nelems, int pe)                       \
    SYMSHMEM_DEF_CTX_(void, get##BITS, (rma_get(ctx, routine, dest, source, nelems, BYTES, pe);),  \
                      void *dest, const void *source, size_t nelems, int pe)                       \
    SYMSHMEM_DEF_CTX_(                                                                             \
        void, iput##BITS, (rma_iput(ctx, routine, dest, source, dst, sst, nelems, BYTES, pe);),    \
        void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)       \
    SYMSHMEM_DEF_CTX_(                                                                             \
        void, iget##BITS, (rma_iget(ctx, routine, dest, source, dst, sst, nelems, BYTES, pe);),    \
        void *dest, const void *source, ptrdiff_t dst, ptrdiff_t sst, size_t nelems, int pe)       \
    SYMSHMEM_DEF_CTX_(void, put##BITS##_nbi,                                                       \
                      (rma_put_nbi(ctx, routine, dest, source, nelems, BYTES, pe);), void *dest,   \
                      const void *source, size_t nelems, int pe)                                   \
    SYMSHMEM_DEF_CTX_(void, get##BITS##_nbi,                                                       \
                      (rma_get_nbi(ctx, routine, dest, source, nelems, BYTES, pe);), void *dest,   \
                      const void *source, size_t nelems, int pe)                                   \
    SYMSHMEM_DEF_CTX_(void, put##BITS##_signal,                                                    \
                      (rma_put_signal(ctx, routine, dest, source, nelems, BYTES, sig_addr, signal, \
                                      sig_op, pe, false);),                                        \
                      void *dest, const void *source, size_t nelems, uint64_t *sig_addr,           \
                      uint64_t signal, int sig_op, int pe)                                         \
    SYMSHMEM_DEF_CTX_(void, put##BITS##_signal_nbi,                                                \
                      (rma_put_signal(ctx, routine, dest, source, nelems, BYTES, sig_addr, signal, \
                                      sig_op, pe, true);),                                         \
                      void *dest, const void *source, size_t nelems, uint64_t *sig_addr,           \
                      uint64_t signal, int sig_op, int pe)
SYMSHMEM_SIZES_(SIZED_DEF_, _)

SYMSHMEM_DEF_CTX_(void, putmem, (rma_put(ctx, routine, dest, source, nelems, 1, pe);), void *dest,
                  const void *source, size_t nelems, int pe)
SYMSHMEM_DEF_CTX_(void, getmem, (rma_get(ctx, routine, dest, source, nelems, 1, pe);), void *dest,
                  const void *source, size_t nelems, int pe)
SYMSHMEM_DEF_CTX_(void, putmem_nbi, (rma_put_nbi(ctx, routine, dest, source, nelems, 1, pe);),
                  void *dest, const void *source, size_t nelems, int pe)
SYMSHMEM_DEF_CTX_(void, getmem_nbi, (rma_get_nbi(ctx, routine, dest, source, nelems, 1, pe);),
                  void *dest, const void *source, size_t nelems, int pe)
SYMSHMEM_DEF_CTX_(void, putmem_signal,
                  (rma_put_signal(ctx, routine, dest, source, nelems, 1, sig_addr, signal, sig_op,
                                  pe, false);),
                  void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                  uint64_t signal, int sig_op, int pe)
SYMSHMEM_DEF_CTX_(void, putmem_signal_nbi,
                  (rma_put_signal(ctx, routine, dest, source, nelems, 1, sig_addr, signal, sig_op,
                                  pe, true);),
                  void *dest, const void *source, size_t nelems, uint64_t *sig_addr,
                  uint64_t signal, int sig_op, int pe)
