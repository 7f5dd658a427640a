/* error.c - status names, descriptions and the per-thread detail message. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#define SYM_ERROR_C /* defines sym_error itself */
#include "core/internal.h"

/* Large enough for a timeout message listing missing PEs. */
static _Thread_local char last_error[1024];

SYM_API const char *sym_strerror(sym_status_t status)
{
    switch (status) {
#define SYM_STATUS_TEXT_(name, value, text) \
    case name:                              \
        return text;
        SYM_STATUS_LIST(SYM_STATUS_TEXT_)
#undef SYM_STATUS_TEXT_
    }
    return "unknown status";
}

SYM_API const char *sym_status_name(sym_status_t status)
{
    switch (status) {
#define SYM_STATUS_NAME_(name, value, text) \
    case name:                              \
        return #name;
        SYM_STATUS_LIST(SYM_STATUS_NAME_)
#undef SYM_STATUS_NAME_
    }
    return "SYM_ERR_UNKNOWN";
}

SYM_API const char *sym_last_error(void)
{
    return last_error;
}

sym_status_t sym_error(sym_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    if (sym_rt.cfg.debug)
        fprintf(stderr, "[symheap pe %d] error %s: %s\n", sym_rt.me, sym_status_name(status),
                last_error);
    return status;
}

void sym_debug(const char *fmt, ...)
{
    if (!sym_rt.cfg.debug)
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[symheap pe %d] %s\n", sym_rt.me, line);
}
