/* amo_check.c - one entry point for every atomic at either width (see
 * amo_check.h). */
#include "amo_check.h"

#include <inttypes.h>

#include "harness.h"

const char *const amo_name[A_COUNT] = {
    "fetch",     "set", "swap", "compare_swap", "add",       "fetch_add", "inc",
    "fetch_inc", "and", "or",   "xor",          "fetch_and", "fetch_or",  "fetch_xor",
};

bool amo_fetches(enum amo_id id)
{
    switch (id) {
    case A_FETCH:
    case A_SWAP:
    case A_CSWAP:
    case A_FADD:
    case A_FINC:
    case A_FAND:
    case A_FOR:
    case A_FXOR:
        return true;
    default:
        return false;
    }
}

#define GUARD32 0xC0FFEE11u

/* The 32-bit output sits in front of a guard word so that an implementation
 * storing 64 bits through a 32-bit old_p is caught (Open MPI 4.1.4 had that
 * bug in its 32-bit cswap). */
static sym_status_t amo32(enum amo_id id, void *dest, uint64_t value, uint64_t cond,
                          uint64_t *old_p, int pe)
{
    struct {
        uint32_t old, guard;
    } out = {0x5EEDF00Du, GUARD32};
    uint32_t *o = old_p ? &out.old : NULL;
    uint32_t *d = dest, v = (uint32_t)value, c = (uint32_t)cond;
    sym_status_t st = SYM_ERR_INTERNAL;
    switch (id) {
    case A_FETCH:
        st = sym_atomic_fetch32(o, d, pe);
        break;
    case A_SET:
        st = sym_atomic_set32(d, v, pe);
        break;
    case A_SWAP:
        st = sym_atomic_swap32(d, v, o, pe);
        break;
    case A_CSWAP:
        st = sym_atomic_compare_swap32(d, c, v, o, pe);
        break;
    case A_ADD:
        st = sym_atomic_add32(d, v, pe);
        break;
    case A_FADD:
        st = sym_atomic_fetch_add32(d, v, o, pe);
        break;
    case A_INC:
        st = sym_atomic_inc32(d, pe);
        break;
    case A_FINC:
        st = sym_atomic_fetch_inc32(d, o, pe);
        break;
    case A_AND:
        st = sym_atomic_and32(d, v, pe);
        break;
    case A_OR:
        st = sym_atomic_or32(d, v, pe);
        break;
    case A_XOR:
        st = sym_atomic_xor32(d, v, pe);
        break;
    case A_FAND:
        st = sym_atomic_fetch_and32(d, v, o, pe);
        break;
    case A_FOR:
        st = sym_atomic_fetch_or32(d, v, o, pe);
        break;
    case A_FXOR:
        st = sym_atomic_fetch_xor32(d, v, o, pe);
        break;
    case A_COUNT:
        break;
    }
    PE_ASSERT(out.guard == GUARD32,
              "sym_atomic_%s32 wrote past its 32-bit output "
              "(guard is now 0x%08x)",
              amo_name[id], out.guard);
    if (old_p && st == SYM_OK)
        *old_p = out.old;
    return st;
}

static sym_status_t amo64(enum amo_id id, void *dest, uint64_t value, uint64_t cond,
                          uint64_t *old_p, int pe)
{
    uint64_t out = 0x5EEDF00D5EEDF00Du;
    uint64_t *o = old_p ? &out : NULL;
    uint64_t *d = dest;
    sym_status_t st = SYM_ERR_INTERNAL;
    switch (id) {
    case A_FETCH:
        st = sym_atomic_fetch64(o, d, pe);
        break;
    case A_SET:
        st = sym_atomic_set64(d, value, pe);
        break;
    case A_SWAP:
        st = sym_atomic_swap64(d, value, o, pe);
        break;
    case A_CSWAP:
        st = sym_atomic_compare_swap64(d, cond, value, o, pe);
        break;
    case A_ADD:
        st = sym_atomic_add64(d, value, pe);
        break;
    case A_FADD:
        st = sym_atomic_fetch_add64(d, value, o, pe);
        break;
    case A_INC:
        st = sym_atomic_inc64(d, pe);
        break;
    case A_FINC:
        st = sym_atomic_fetch_inc64(d, o, pe);
        break;
    case A_AND:
        st = sym_atomic_and64(d, value, pe);
        break;
    case A_OR:
        st = sym_atomic_or64(d, value, pe);
        break;
    case A_XOR:
        st = sym_atomic_xor64(d, value, pe);
        break;
    case A_FAND:
        st = sym_atomic_fetch_and64(d, value, o, pe);
        break;
    case A_FOR:
        st = sym_atomic_fetch_or64(d, value, o, pe);
        break;
    case A_FXOR:
        st = sym_atomic_fetch_xor64(d, value, o, pe);
        break;
    case A_COUNT:
        break;
    }
    if (old_p && st == SYM_OK)
        *old_p = out;
    return st;
}

sym_status_t amo(int bits, enum amo_id id, void *dest, uint64_t value, uint64_t cond,
                 uint64_t *old_p, int pe)
{
    return bits == 32 ? amo32(id, dest, value, cond, old_p, pe)
                      : amo64(id, dest, value, cond, old_p, pe);
}

uint64_t amo_ok_at(const char *file, int line, int bits, enum amo_id id, void *dest, uint64_t value,
                   uint64_t cond, int pe)
{
    uint64_t old = 0;
    sym_status_t st = amo(bits, id, dest, value, cond, amo_fetches(id) ? &old : NULL, pe);
    if (st != SYM_OK)
        pe_fail(file, line, "AMO_OK", "sym_atomic_%s%d on PE %d returned %s: %s", amo_name[id],
                bits, pe, sym_status_name(st), sym_last_error());
    return old;
}

uint64_t amo_step_result(const struct amo_step *s, uint64_t ref)
{
    switch (s->id) {
    case A_SET:
    case A_SWAP:
        return s->value;
    case A_CSWAP:
        return s->cond_off == 0 ? s->value : ref;
    case A_ADD:
    case A_FADD:
        return ref + s->value;
    case A_INC:
    case A_FINC:
        return ref + 1;
    case A_AND:
    case A_FAND:
        return ref & s->value;
    case A_OR:
    case A_FOR:
        return ref | s->value;
    case A_XOR:
    case A_FXOR:
        return ref ^ s->value;
    default: /* A_FETCH */
        return ref;
    }
}

uint64_t run_amo_chain(int bits, void *w, const struct amo_step *steps, size_t n, int pe)
{
    const uint64_t mask = width_mask(bits);
    uint64_t ref = 0;
    for (size_t i = 0; i < n; i++) {
        const struct amo_step *s = &steps[i];
        const uint64_t old = AMO_OK(bits, s->id, w, s->value, (ref + s->cond_off) & mask, pe);
        if (amo_fetches(s->id))
            PE_ASSERT(old == ref,
                      "step %zu, sym_atomic_%s%d fetched %" PRIx64 ", expected %" PRIx64, i,
                      amo_name[s->id], bits, old, ref);
        ref = amo_step_result(s, ref) & mask;
    }
    return ref;
}

struct amo_param amo_params[10];

size_t make_amo_params(void)
{
    static const int counts[] = HARNESS_PE_COUNTS;
    size_t k = 0;
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        for (int b = 32; b <= 64; b += 32)
            amo_params[k++] = (struct amo_param){counts[i], b};
    return k;
}
