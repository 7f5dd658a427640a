/*
 * wait_cond.c - sym_wait_cond(): a wait for a condition the caller states
 * over this PE's own memory (several words, a scan of an array, a ticket),
 * run inside the one wait loop, so it has the library's deadline, drives
 * transport progress and notices dead peers and aborts like every other
 * wait.
 */
#include <math.h>
#include <stdio.h>

#include "core/internal.h"

struct cond {
    int (*ready)(void *arg);
    void (*describe)(void *arg, char *buf, size_t len);
    void *arg;
};

static bool cond_ready(void *arg)
{
    const struct cond *c = arg;
    return c->ready(c->arg) != 0;
}

static void cond_describe(void *arg, char *buf, size_t len)
{
    const struct cond *c = arg;
    if (c->describe)
        c->describe(c->arg, buf, len);
    else
        snprintf(buf, len, "a condition of the caller to hold");
}

SYM_API sym_status_t sym_wait_cond(const char *label, int (*ready)(void *arg), void *arg,
                                   void (*describe)(void *arg, char *buf, size_t len),
                                   double timeout_s)
{
    const char *op = label ? label : "sym_wait_cond";
    sym_status_t st = sym_check_init(op);
    if (st != SYM_OK)
        return st;
    if (!ready)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: the ready function is NULL", op);
    if ((st = sym_timeout_check(op, timeout_s, true)) != SYM_OK)
        return st;
    if (ready(arg))
        return SYM_OK;
    struct cond c = {.ready = ready, .describe = describe, .arg = arg};
    struct sym_waiter w = {.ready = cond_ready, .describe = cond_describe, .arg = &c};
    struct sym_deadline dl = sym_deadline_in(op, timeout_s);
    return sym_wait_for(&dl, &w);
}
