/* error.c - status names, descriptions and the per-thread detail message. */
#include <stdarg.h>
#include <stdio.h>
#include <unistd.h>

#define SYM_ERROR_C /* defines sym_error itself */
#include "base/error.h"
#include "base/health.h"

/* Large enough for a timeout message listing missing PEs. */
static _Thread_local char last_error[1024];
/* The status last_error describes. */
static _Thread_local sym_status_t last_status = SYM_OK;

/* Set by init and finalize; read by any thread (relaxed: a log prefix). */
static int log_pe = -1;
static bool log_debug;

void sym_log_set_pe(int pe)
{
    __atomic_store_n(&log_pe, pe, __ATOMIC_RELAXED);
}

void sym_log_set_debug(bool on)
{
    __atomic_store_n(&log_debug, on, __ATOMIC_RELAXED);
}

SYM_API const char *sym_strerror(sym_status_t status)
{
    switch (status) {
#define SYM_STATUS_TEXT_(name, value, text)                                                        \
    case name:                                                                                     \
        return text;
        SYM_STATUS_LIST(SYM_STATUS_TEXT_)
#undef SYM_STATUS_TEXT_
    }
    return "unknown status";
}

SYM_API const char *sym_status_name(sym_status_t status)
{
    switch (status) {
#define SYM_STATUS_NAME_(name, value, text)                                                        \
    case name:                                                                                     \
        return #name;
        SYM_STATUS_LIST(SYM_STATUS_NAME_)
#undef SYM_STATUS_NAME_
    }
    return "SYM_ERR_UNKNOWN";
}

SYM_API const char *sym_last_error(void)
{
    sym_health_error_read();
    return last_error;
}

const char *sym_error_text(void)
{
    return last_error;
}

SYM_API sym_status_t sym_last_status(void)
{
    return last_status;
}

sym_status_t sym_error(sym_status_t status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof(last_error), fmt, ap);
    va_end(ap);
    last_status = status;
    /* Messages quote bytes from peers and the network (bootstrap hellos,
     * names): no control character, an ANSI escape included, reaches a
     * terminal that prints sym_last_error(). */
    for (char *c = last_error; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f)
            *c = '?';
    sym_health_note_error(status);
    sym_health_note_message(status, last_error);
    if (__atomic_load_n(&log_debug, __ATOMIC_RELAXED))
        fprintf(stderr, "[symheap pe %d] error %s: %s\n",
                __atomic_load_n(&log_pe, __ATOMIC_RELAXED), sym_status_name(status), last_error);
    return status;
}

void sym_debug(const char *fmt, ...)
{
    if (!__atomic_load_n(&log_debug, __ATOMIC_RELAXED))
        return;
    char line[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof(line), fmt, ap);
    va_end(ap);
    fprintf(stderr, "[symheap pe %d] %s\n", __atomic_load_n(&log_pe, __ATOMIC_RELAXED), line);
}
