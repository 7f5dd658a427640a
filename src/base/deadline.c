/* deadline.c - anchoring a deadline and reporting that it passed. */
#include <math.h>
#include <stdio.h>
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
    if (!(dl->timeout_s > 0)) { /* NaN too: callers reject it, never wait for ever */
        dl->timeout_s = sym_wait_timeout();
        if (!dl->source)
            dl->source = "SYMHEAP_TIMEOUT";
    }
    if (!(dl->timeout_s <= SYM_TIMEOUT_MAX))
        dl->timeout_s = SYM_TIMEOUT_MAX;
    dl->at_ns = sym_now_ns() + (uint64_t)(dl->timeout_s * 1e9);
    if (!dl->at_ns) /* 0 means "not anchored" */
        dl->at_ns = 1;
    return dl->at_ns;
}

bool sym_deadline_passed(struct sym_deadline *dl)
{
    return sym_now_ns() >= sym_deadline_anchor(dl);
}

/* Short timeouts keep their digits: 0.020 s, not 0.0 s. */
sym_status_t sym_deadline_timeout(const struct sym_deadline *dl, const char *what)
{
    return sym_error(SYM_ERR_TIMEOUT, "%s: timed out after %.*f s (%s) waiting for %s", dl->op,
                     dl->timeout_s < 0.05 ? 3 : 1, dl->timeout_s,
                     dl->source ? dl->source : "the timeout given to the call or its team", what);
}

sym_status_t sym_timeout_check(const char *op, double seconds, bool zero_ok)
{
    if (!isfinite(seconds))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: timeout %g s is not a finite number", op,
                         seconds);
    if (seconds < 0 || (!zero_ok && seconds == 0))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: timeout %g s is %s", op, seconds,
                         seconds < 0 ? "negative" : "not positive");
    if (seconds > SYM_TIMEOUT_MAX)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s: timeout %g s exceeds the longest allowed, SYM_TIMEOUT_MAX = %.0f s "
                         "(one day)",
                         op, seconds, SYM_TIMEOUT_MAX);
    return SYM_OK;
}

void sym_steps_start(struct sym_steps *s)
{
    *s = (struct sym_steps){.start = sym_now_ns()};
}

void sym_steps_done(struct sym_steps *s, const char *step)
{
    if (s->n < SYM_STEPS_MAX) {
        s->step[s->n] = step;
        s->end[s->n++] = sym_now_ns();
    }
}

void sym_steps_log(const struct sym_steps *s, const char *what)
{
    char buf[320];
    size_t used = 0;
    uint64_t from = s->start;
    buf[0] = '\0';
    for (int i = 0; i < s->n && used < sizeof(buf); i++) {
        int w = snprintf(buf + used, sizeof(buf) - used, "%s%s %.4f", i ? ", " : "", s->step[i],
                         (double)(s->end[i] - from) * 1e-9);
        used += w > 0 ? (size_t)w : 0;
        from = s->end[i];
    }
    sym_debug("%s steps (s): %s; total %.4f", what, buf, (double)(from - s->start) * 1e-9);
}
