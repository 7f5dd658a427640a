/* sym_cmp.h - the six comparisons of sym_cmp_t, for every word type. */
#ifndef SYM_CMP_H
#define SYM_CMP_H

#include <stdbool.h>
#include <stdint.h>

#include "symheap.h"

static inline bool sym_cmp_valid(sym_cmp_t cmp)
{
    return cmp >= SYM_CMP_EQ && cmp <= SYM_CMP_LE;
}

static inline const char *sym_cmp_text(sym_cmp_t cmp)
{
    static const char *const text[] = {"?", "==", "!=", ">", ">=", "<", "<="};
    return sym_cmp_valid(cmp) ? text[cmp] : "?";
}

#define SYM_CMP_DEFINE_(name, T)                                                                   \
    static inline bool sym_cmp_##name(T a, sym_cmp_t cmp, T b)                                     \
    {                                                                                              \
        switch (cmp) {                                                                             \
        case SYM_CMP_EQ:                                                                           \
            return a == b;                                                                         \
        case SYM_CMP_NE:                                                                           \
            return a != b;                                                                         \
        case SYM_CMP_GT:                                                                           \
            return a > b;                                                                          \
        case SYM_CMP_GE:                                                                           \
            return a >= b;                                                                         \
        case SYM_CMP_LT:                                                                           \
            return a < b;                                                                          \
        case SYM_CMP_LE:                                                                           \
            return a <= b;                                                                         \
        }                                                                                          \
        return false;                                                                              \
    }
SYM_CMP_DEFINE_(i32, int32_t)
SYM_CMP_DEFINE_(i64, int64_t)
SYM_CMP_DEFINE_(u32, uint32_t)
SYM_CMP_DEFINE_(u64, uint64_t)
#undef SYM_CMP_DEFINE_

#endif /* SYM_CMP_H */
