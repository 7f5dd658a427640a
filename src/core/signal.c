/* signal.c - put-with-signal and signal words. */
#include <inttypes.h>
#include <string.h>

#include "core/internal.h"
#include "core/sym_cmp.h"

static sym_status_t put_signal(const char *op_name, void *dest, const void *src, size_t nbytes,
                               uint64_t *sig_addr, uint64_t signal, sym_signal_op_t op, int pe,
                               bool nbi)
{
    sym_fault_point(SYM_FAULT_OP_PUT);
    uint64_t off = 0, sig_off = 0;
    sym_status_t st = sym_check_pe(op_name, pe);
    if (st != SYM_OK)
        return st;
    if (!src && nbytes)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: local buffer is NULL for %zu bytes", op_name,
                         nbytes);
    if (op != SYM_SIGNAL_SET && op != SYM_SIGNAL_ADD)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s: signal op %d is neither SYM_SIGNAL_SET nor "
                         "SYM_SIGNAL_ADD",
                         op_name, (int)op);
    if ((st = sym_sym_offset(op_name, "dest", dest, nbytes, pe, &off)) != SYM_OK ||
        (st = sym_sym_offset(op_name, "sig_addr", sig_addr, 8, pe, &sig_off)) != SYM_OK)
        return st;
    if (sig_off % 8)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: sig_addr %p is not 8-byte aligned", op_name,
                         (void *)sig_addr);
    (void)nbi; /* transports order the signal after the data in both forms */
    struct sym_deadline dl = sym_deadline_default("sym_put_signal");
    return sym_put_signal_off_dl(pe, off, src, nbytes, sig_off, signal, op, &dl);
}

SYM_API sym_status_t sym_put_signal(void *dest, const void *src, size_t nbytes, uint64_t *sig_addr,
                                    uint64_t signal, sym_signal_op_t op, int pe)
{
    return put_signal("sym_put_signal", dest, src, nbytes, sig_addr, signal, op, pe, false);
}

SYM_API sym_status_t sym_put_signal_nbi(void *dest, const void *src, size_t nbytes,
                                        uint64_t *sig_addr, uint64_t signal, sym_signal_op_t op,
                                        int pe)
{
    return put_signal("sym_put_signal_nbi", dest, src, nbytes, sig_addr, signal, op, pe, true);
}

static sym_status_t check_local_word(const char *op, const void *addr, size_t width,
                                     uint64_t *off_p)
{
    sym_status_t st = sym_check_init(op);
    if (st != SYM_OK)
        return st;
    if ((st = sym_sym_offset(op, "address", addr, width, -1, off_p)) != SYM_OK)
        return st;
    if (*off_p % width)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: address %p is not %zu-byte aligned", op, addr,
                         width);
    return SYM_OK;
}

SYM_API sym_status_t sym_signal_fetch(const uint64_t *sig_addr, uint64_t *value_p)
{
    uint64_t off = 0;
    sym_status_t st = check_local_word("sym_signal_fetch", sig_addr, 8, &off);
    if (st != SYM_OK)
        return st;
    if (!value_p)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_signal_fetch: value_p is NULL");
    if (sym_transports_need_progress()) /* callers poll with it: serve and hear the peers */
        sym_progress();
    *value_p = __atomic_load_n(sig_addr, __ATOMIC_ACQUIRE);
    return SYM_OK;
}

struct signal_wait {
    uint64_t *sig;
    sym_cmp_t cmp;
    uint64_t value;
    uint64_t seen;
};

static bool signal_ready(void *arg)
{
    struct signal_wait *w = arg;
    w->seen = __atomic_load_n(w->sig, __ATOMIC_ACQUIRE);
    return sym_cmp_u64(w->seen, w->cmp, w->value);
}

static void signal_describe(void *arg, char *buf, size_t len)
{
    struct signal_wait *w = arg;
    snprintf(buf, len, "signal at %p to become %s %" PRIu64 " (it is %" PRIu64 ")", (void *)w->sig,
             sym_cmp_text(w->cmp), w->value, w->seen);
}

SYM_API sym_status_t sym_signal_wait_until(uint64_t *sig_addr, sym_cmp_t cmp, uint64_t value,
                                           uint64_t *value_p)
{
    sym_fault_point(SYM_FAULT_OP_WAIT);
    uint64_t off = 0;
    sym_status_t st = check_local_word("sym_signal_wait_until", sig_addr, 8, &off);
    if (st != SYM_OK)
        return st;
    if (!sym_cmp_valid(cmp))
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_signal_wait_until: comparison %d is not a "
                         "sym_cmp_t",
                         (int)cmp);
    struct signal_wait w = {sig_addr, cmp, value, 0};
    struct sym_waiter waiter = {signal_ready, signal_describe, &w, NULL};
    struct sym_deadline dl = sym_deadline_default("sym_signal_wait_until");
    st = sym_wait_for(&dl, &waiter);
    if (st == SYM_OK && value_p)
        *value_p = w.seen;
    return st;
}
