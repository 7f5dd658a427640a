/*
 * set_error.c - sym_set_error(): a layer built on the public API (the
 * shmem.h facade, a language binding) records its own failures in the same
 * per-thread detail message as the library's, so sym_last_error() reports
 * both alike.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/error.h"

/* A SYM_ERR_* code of the list (not SYM_OK, not an unknown value). */
static bool is_error_status(sym_status_t status)
{
    switch (status) {
#define SYM_STATUS_IS_ERROR_(name, value, text)                                                    \
    case name:                                                                                     \
        return (value) != 0;
        SYM_STATUS_LIST(SYM_STATUS_IS_ERROR_)
#undef SYM_STATUS_IS_ERROR_
    }
    return false;
}

SYM_API sym_status_t sym_set_error(sym_status_t status, const char *fmt, ...)
{
    if (!fmt)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_set_error: the format is NULL");
    if (!is_error_status(status))
        return sym_error(SYM_ERR_INVALID_ARG,
                         "sym_set_error: %d is not an error status (a SYM_ERR_* code)",
                         (int)status);
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    return sym_error(status, "%s", msg);
}
