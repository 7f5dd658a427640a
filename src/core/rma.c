/* rma.c - puts, gets, strided and single-element transfers, quiet, fence. */
#include <string.h>

#include "core/internal.h"

/* Validate (dest or src symmetric range, local buffer, PE) once, here. */
static inline sym_status_t check_rma(const char *op, const char *symname, const void *sym,
                                     const void *local, size_t nbytes, int pe, uint64_t *off_p)
{
    sym_status_t st = sym_check_pe(op, pe);
    if (__builtin_expect(st != SYM_OK, 0))
        return st;
    if (__builtin_expect(!local && nbytes, 0))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: local buffer is NULL for %zu bytes", op, nbytes);
    return sym_sym_offset(op, symname, sym, nbytes, pe, off_p);
}

enum rma_kind { RMA_PUT, RMA_GET, RMA_PUT_NBI, RMA_GET_NBI };

/* The one body of put, get and their non-blocking forms: check once, copy
 * inline into or out of a mapped peer, else one call into the peer's
 * transport.  `kind` is a constant at every call, so each public function
 * compiles to its own straight path. */
static inline __attribute__((always_inline)) sym_status_t
rma(enum rma_kind kind, const char *op, void *dest, const void *src, size_t nbytes, int pe)
{
    const bool put = kind == RMA_PUT || kind == RMA_PUT_NBI;
    sym_fault_point(put ? SYM_FAULT_OP_PUT : SYM_FAULT_OP_GET);
    uint64_t off = 0;
    sym_status_t st = put ? check_rma(op, "dest", dest, src, nbytes, pe, &off)
                          : check_rma(op, "src", src, dest, nbytes, pe, &off);
    if (__builtin_expect(st != SYM_OK, 0))
        return st;
    uint8_t *p = sym_direct(pe, off);
    if (__builtin_expect(p != NULL, 1)) {
        if (nbytes) /* the local buffer may be NULL for 0 bytes */
            memcpy(put ? p : dest, put ? src : p, nbytes);
        return SYM_OK;
    }
    /* Only here, off the inline path: a deadline costs no clock read until
     * the transport has to wait. */
    struct sym_deadline dl = sym_deadline_default(op);
    struct sym_transport *tp = sym_rt.peer_tp[pe];
    switch (kind) {
    case RMA_PUT:
        return tp->ops->put(tp, pe, off, src, nbytes, &dl);
    case RMA_GET:
        return tp->ops->get(tp, pe, dest, off, nbytes, &dl);
    case RMA_PUT_NBI:
        return tp->ops->put_nbi(tp, pe, off, src, nbytes, &dl);
    case RMA_GET_NBI:
        return tp->ops->get_nbi(tp, pe, dest, off, nbytes, &dl);
    }
    return SYM_ERR_INVALID_ARG;
}

SYM_API sym_status_t sym_put(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma(RMA_PUT, "sym_put", dest, src, nbytes, pe);
}

SYM_API sym_status_t sym_get(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma(RMA_GET, "sym_get", dest, src, nbytes, pe);
}

SYM_API sym_status_t sym_put_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma(RMA_PUT_NBI, "sym_put_nbi", dest, src, nbytes, pe);
}

SYM_API sym_status_t sym_get_nbi(void *dest, const void *src, size_t nbytes, int pe)
{
    return rma(RMA_GET_NBI, "sym_get_nbi", dest, src, nbytes, pe);
}

/* Element copy for the strided forms; sizes are checked by the caller. */
static inline void copy_elem(void *d, const void *s, size_t size)
{
    switch (size) {
    case 1:
        memcpy(d, s, 1);
        break;
    case 2:
        memcpy(d, s, 2);
        break;
    case 4:
        memcpy(d, s, 4);
        break;
    case 8:
        memcpy(d, s, 8);
        break;
    default:
        memcpy(d, s, 16);
        break;
    }
}

/* Checks shared by iput/iget: element size, strides, and the symmetric
 * range spanned by the strided side. */
static sym_status_t check_strided(const char *op, const char *symname, const void *sym,
                                  ptrdiff_t sym_stride, const void *local, ptrdiff_t local_stride,
                                  size_t elem, size_t nelems, int pe, uint64_t *off_p)
{
    sym_status_t st = sym_check_pe(op, pe);
    if (st != SYM_OK)
        return st;
    if (elem != 1 && elem != 2 && elem != 4 && elem != 8 && elem != 16)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: element size %zu (must be 1, 2, 4, 8 or 16)", op,
                         elem);
    if (sym_stride < 1 || local_stride < 1)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: strides must be >= 1 (got %td and %td)", op,
                         sym_stride, local_stride);
    if (nelems == 0)
        return sym_sym_offset(op, symname, sym, 0, pe, off_p);
    if (!local)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: local buffer is NULL", op);
    /* Span of the symmetric side: (nelems - 1) * stride + 1 elements. */
    size_t n1 = nelems - 1, s = (size_t)sym_stride, span;
    if (__builtin_mul_overflow(n1, s, &span) || __builtin_add_overflow(span, 1, &span) ||
        __builtin_mul_overflow(span, elem, &span))
        return sym_error(SYM_ERR_NOT_SYMMETRIC, "%s: %zu elements at stride %td overflow", op,
                         nelems, sym_stride);
    return sym_sym_offset(op, symname, sym, span, pe, off_p);
}

SYM_API sym_status_t sym_iput(void *dest, const void *src, ptrdiff_t dst_stride,
                              ptrdiff_t src_stride, size_t elem_size, size_t nelems, int pe)
{
    sym_fault_point(SYM_FAULT_OP_PUT);
    uint64_t off = 0;
    sym_status_t st = check_strided("sym_iput", "dest", dest, dst_stride, src, src_stride,
                                    elem_size, nelems, pe, &off);
    if (st != SYM_OK)
        return st;
    const uint8_t *s = src;
    uint8_t *d = sym_direct(pe, off);
    struct sym_deadline dl = sym_deadline_default("sym_iput");
    for (size_t i = 0; i < nelems; i++) {
        const void *from = s + i * (size_t)src_stride * elem_size;
        uint64_t o = off + i * (size_t)dst_stride * elem_size;
        if (d)
            copy_elem(d + (o - off), from, elem_size);
        else if ((st = sym_rt.peer_tp[pe]->ops->put_nbi(sym_rt.peer_tp[pe], pe, o, from, elem_size,
                                                        &dl)) != SYM_OK)
            return st;
    }
    return SYM_OK;
}

SYM_API sym_status_t sym_iget(void *dest, const void *src, ptrdiff_t dst_stride,
                              ptrdiff_t src_stride, size_t elem_size, size_t nelems, int pe)
{
    sym_fault_point(SYM_FAULT_OP_GET);
    uint64_t off = 0;
    sym_status_t st = check_strided("sym_iget", "src", src, src_stride, dest, dst_stride, elem_size,
                                    nelems, pe, &off);
    if (st != SYM_OK)
        return st;
    uint8_t *d = dest;
    const uint8_t *s = sym_direct(pe, off);
    struct sym_deadline dl = sym_deadline_default("sym_iget");
    for (size_t i = 0; i < nelems; i++) {
        void *to = d + i * (size_t)dst_stride * elem_size;
        uint64_t o = off + i * (size_t)src_stride * elem_size;
        if (s)
            copy_elem(to, s + (o - off), elem_size);
        else if ((st = sym_rt.peer_tp[pe]->ops->get_nbi(sym_rt.peer_tp[pe], pe, to, o, elem_size,
                                                        &dl)) != SYM_OK)
            return st;
    }
    if (!s)
        return sym_rt.peer_tp[pe]->ops->quiet(sym_rt.peer_tp[pe], &dl);
    return SYM_OK;
}

/* Single-element put/get: one atomic access so a concurrent reader never
 * sees a torn value. */
#define SYM_PG_DEFINE_(bits)                                                                       \
    SYM_API sym_status_t sym_p##bits(uint##bits##_t *dest, uint##bits##_t value, int pe)           \
    {                                                                                              \
        sym_fault_point(SYM_FAULT_OP_PUT);                                                         \
        uint64_t off = 0;                                                                          \
        sym_status_t st = check_rma("sym_p" #bits, "dest", dest, &value, sizeof(value), pe, &off); \
        if (__builtin_expect(st != SYM_OK, 0))                                                     \
            return st;                                                                             \
        if (__builtin_expect(off % sizeof(value) != 0, 0))                                         \
            return sym_error(SYM_ERR_INVALID_ARG,                                                  \
                             "sym_p" #bits ": dest %p is not %zu-byte "                            \
                             "aligned",                                                            \
                             (void *)dest, sizeof(value));                                         \
        uint##bits##_t *d = sym_direct(pe, off);                                                   \
        if (__builtin_expect(d != NULL, 1)) {                                                      \
            __atomic_store_n(d, value, __ATOMIC_RELAXED);                                          \
            return SYM_OK;                                                                         \
        }                                                                                          \
        struct sym_deadline dl = sym_deadline_default("sym_p" #bits);                              \
        return sym_rt.peer_tp[pe]->ops->put(sym_rt.peer_tp[pe], pe, off, &value, sizeof(value),    \
                                            &dl);                                                  \
    }                                                                                              \
    SYM_API sym_status_t sym_g##bits(uint##bits##_t *value_p, const uint##bits##_t *src, int pe)   \
    {                                                                                              \
        sym_fault_point(SYM_FAULT_OP_GET);                                                         \
        uint64_t off = 0;                                                                          \
        sym_status_t st =                                                                          \
            check_rma("sym_g" #bits, "src", src, value_p, sizeof(*value_p), pe, &off);             \
        if (__builtin_expect(st != SYM_OK, 0))                                                     \
            return st;                                                                             \
        if (__builtin_expect(off % sizeof(*value_p) != 0, 0))                                      \
            return sym_error(SYM_ERR_INVALID_ARG,                                                  \
                             "sym_g" #bits ": src %p is not %zu-byte "                             \
                             "aligned",                                                            \
                             (const void *)src, sizeof(*value_p));                                 \
        const uint##bits##_t *s = sym_direct(pe, off);                                             \
        if (__builtin_expect(s != NULL, 1)) {                                                      \
            *value_p = __atomic_load_n(s, __ATOMIC_RELAXED);                                       \
            return SYM_OK;                                                                         \
        }                                                                                          \
        struct sym_deadline dl = sym_deadline_default("sym_g" #bits);                              \
        return sym_rt.peer_tp[pe]->ops->get(sym_rt.peer_tp[pe], pe, value_p, off,                  \
                                            sizeof(*value_p), &dl);                                \
    }
SYM_PG_DEFINE_(8)
SYM_PG_DEFINE_(16)
SYM_PG_DEFINE_(32)
SYM_PG_DEFINE_(64)
#undef SYM_PG_DEFINE_

sym_status_t sym_put_off_dl(int pe, uint64_t off, const void *src, size_t nbytes,
                            struct sym_deadline *dl)
{
    void *d = sym_direct(pe, off);
    if (d) {
        if (nbytes)
            memcpy(d, src, nbytes);
        return SYM_OK;
    }
    return sym_rt.peer_tp[pe]->ops->put(sym_rt.peer_tp[pe], pe, off, src, nbytes, dl);
}

sym_status_t sym_get_off_dl(int pe, void *dst, uint64_t off, size_t nbytes, struct sym_deadline *dl)
{
    const void *s = sym_direct(pe, off);
    if (s) {
        memcpy(dst, s, nbytes);
        return SYM_OK;
    }
    return sym_rt.peer_tp[pe]->ops->get(sym_rt.peer_tp[pe], pe, dst, off, nbytes, dl);
}

sym_status_t sym_put_signal_off_dl(int pe, uint64_t off, const void *src, size_t nbytes,
                                   uint64_t sig_off, uint64_t signal, sym_signal_op_t op,
                                   struct sym_deadline *dl)
{
    uint8_t *b = sym_direct(pe, 0);
    if (b && off < sym_rt.direct_end && sig_off < sym_rt.direct_end &&
        (op == SYM_SIGNAL_SET || !sym_rt.amo_tp)) {
        if (nbytes) /* src may be NULL for a bare signal */
            memcpy(b + off, src, nbytes);
        uint64_t *sig = (uint64_t *)(b + sig_off);
        if (op == SYM_SIGNAL_ADD)
            __atomic_fetch_add(sig, signal, __ATOMIC_RELEASE);
        else
            __atomic_store_n(sig, signal, __ATOMIC_RELEASE);
        return SYM_OK;
    }
    /* An adding signal is an atomic: through sym_amo_tp. */
    struct sym_transport *tp = op == SYM_SIGNAL_ADD ? sym_amo_tp(pe) : sym_rt.peer_tp[pe];
    return tp->ops->put_signal(tp, pe, off, src, nbytes, sig_off, signal, op, dl);
}

sym_status_t sym_quiet_dl(struct sym_deadline *dl)
{
    sym_status_t st = SYM_OK;
    for (int i = 0; i < sym_rt.ntp && st == SYM_OK; i++)
        st = sym_rt.tp[i]->ops->quiet(sym_rt.tp[i], dl);
    return st;
}

sym_status_t sym_quiet_internal(void)
{
    struct sym_deadline dl = sym_deadline_default("sym_quiet");
    return sym_quiet_dl(&dl);
}

SYM_API sym_status_t sym_quiet(void)
{
    sym_status_t st = sym_check_init("sym_quiet");
    if (st != SYM_OK)
        return st;
    return sym_quiet_internal();
}

SYM_API sym_status_t sym_fence(void)
{
    sym_status_t st = sym_check_init("sym_fence");
    if (st != SYM_OK)
        return st;
    struct sym_deadline dl = sym_deadline_default("sym_fence");
    for (int i = 0; i < sym_rt.ntp && st == SYM_OK; i++)
        st = sym_rt.tp[i]->ops->fence(sym_rt.tp[i], &dl);
    return st;
}

SYM_API void *sym_ptr(const void *addr, int pe)
{
    uint64_t off = 0;
    if (!sym_rt.initialized || (unsigned)pe >= (unsigned)sym_rt.npes)
        return NULL;
    if (sym_sym_offset("sym_ptr", "addr", addr, 0, pe, &off) != SYM_OK)
        return NULL;
    return sym_direct(pe, off);
}

SYM_API int sym_addr_accessible(const void *addr, int pe)
{
    uint64_t off = 0;
    if (!sym_rt.initialized || (unsigned)pe >= (unsigned)sym_rt.npes)
        return 0;
    return sym_sym_offset("sym_addr_accessible", "addr", addr, 0, pe, &off) == SYM_OK;
}

SYM_API int sym_pe_accessible(int pe)
{
    return sym_rt.initialized && (unsigned)pe < (unsigned)sym_rt.npes;
}
