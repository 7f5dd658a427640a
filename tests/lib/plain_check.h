/*
 * plain_check.h - checks for test programs that run under symrun without
 * Criterion (threads_main.c, scale_main.c): a failed check prints the PE,
 * the place and the reason to stderr and exits 1.
 */
#ifndef TESTS_PLAIN_CHECK_H
#define TESTS_PLAIN_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#include <symheap.h>

#define PE_ASSERT(cond, ...)                                                                       \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "PE %d: %s:%d: check `%s` failed: ", sym_my_pe(), __FILE__, __LINE__,  \
                    #cond);                                                                        \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

#define PE_OK(call)                                                                                \
    do {                                                                                           \
        sym_status_t st_ = (call);                                                                 \
        PE_ASSERT(st_ == SYM_OK, "%s returned %s: %s", #call, sym_status_name(st_),                \
                  sym_last_error());                                                               \
    } while (0)

#endif /* TESTS_PLAIN_CHECK_H */
