/*
 * error.h - recording an error for sym_last_error(), and debug logging.
 * Base layer: knows nothing above it.
 */
#ifndef SYM_BASE_ERROR_H
#define SYM_BASE_ERROR_H

#include <stdbool.h>

#include "symheap.h"

/* Record a failure for sym_last_error() and return `status`, so callers can
 * write `return sym_error(SYM_ERR_X, "sym_put: ...", ...)`.  The first
 * function that detects an error records it; callers pass it through. */
sym_status_t sym_error(sym_status_t status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* For the static analysis stage (.ci/test): the analyser sees one file at a
 * time and cannot know that sym_error() returns `status`. */
#if defined(SYM_STATIC_ANALYSIS) && !defined(SYM_ERROR_C)
#define sym_error(status, ...)                                                                     \
    __extension__({                                                                                \
        sym_error((status), __VA_ARGS__);                                                          \
        (status);                                                                                  \
    })
#endif

/* The calling thread's detail message, as sym_last_error() returns it,
 * for the library's own use (passing a message on, quoting it in a
 * larger one): only the program's sym_last_error() counts as the program
 * having read its error (sym_health_error_read), so inside the library
 * the public name means this function. */
const char *sym_error_text(void);
#ifndef SYM_ERROR_C
#define sym_last_error() sym_error_text()
#endif

/* Debug log line to stderr, prefixed with the PE, when SYMHEAP_DEBUG is set. */
void sym_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Who is logging, set by init: this PE's number for the prefix of every
 * line (-1 before the job is joined and after finalize), and whether
 * sym_debug() prints and sym_error() echoes each error (SYMHEAP_DEBUG). */
void sym_log_set_pe(int pe);
void sym_log_set_debug(bool on);

#endif /* SYM_BASE_ERROR_H */
