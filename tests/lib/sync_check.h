/*
 * sync_check.h - what the test_sync_*.c files share: the C reference of
 * every sym_cmp_t, its text for messages, and a short pause.
 */
#ifndef SYM_TEST_SYNC_CHECK_H
#define SYM_TEST_SYNC_CHECK_H

#include <time.h>

#include <symheap.h>

static inline const char *cmp_text(sym_cmp_t c)
{
    switch (c) {
    case SYM_CMP_EQ:
        return "==";
    case SYM_CMP_NE:
        return "!=";
    case SYM_CMP_GT:
        return ">";
    case SYM_CMP_GE:
        return ">=";
    case SYM_CMP_LT:
        return "<";
    case SYM_CMP_LE:
        return "<=";
    }
    return "?";
}

#define REF_CMP(a, c, b)                                                                           \
    ((c) == SYM_CMP_EQ   ? (a) == (b)                                                              \
     : (c) == SYM_CMP_NE ? (a) != (b)                                                              \
     : (c) == SYM_CMP_GT ? (a) > (b)                                                               \
     : (c) == SYM_CMP_GE ? (a) >= (b)                                                              \
     : (c) == SYM_CMP_LT ? (a) < (b)                                                               \
                         : (a) <= (b))

/* Sleep to make a waiter block for real before its condition comes true;
 * no result depends on it. */
static inline void pause_us(long us)
{
    struct timespec ts = {0, us * 1000};
    nanosleep(&ts, NULL);
}

#endif
