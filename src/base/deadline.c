/* deadline.c - anchoring a deadline and reporting that it passed. */
#include <time.h>

#include "base/deadline.h"
#include "base/error.h"
#include "base/wait.h"

uint64_t sym_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

uint64_t sym_deadline_anchor(struct sym_deadline *dl)
{
    if (dl->at_ns)
        return dl->at_ns;
    /* The default is resolved here, on the slow path: making a deadline
     * stays a few stores that read nothing. */
    if (dl->timeout_s <= 0)
        dl->timeout_s = sym_wait_timeout();
    if (dl->timeout_s > 1e9) /* ~31 years: keeps the nanosecond end in range */
        dl->timeout_s = 1e9;
    dl->at_ns = sym_now_ns() + (uint64_t)(dl->timeout_s * 1e9);
    if (!dl->at_ns) /* 0 means "not anchored" */
        dl->at_ns = 1;
    return dl->at_ns;
}

bool sym_deadline_passed(struct sym_deadline *dl)
{
    return sym_now_ns() >= sym_deadline_anchor(dl);
}

sym_status_t sym_deadline_timeout(const struct sym_deadline *dl, const char *what)
{
    return sym_error(SYM_ERR_TIMEOUT, "%s: timed out after %.1f s waiting for %s", dl->op,
                     dl->timeout_s, what);
}
