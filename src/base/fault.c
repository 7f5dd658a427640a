/* fault.c - SYMHEAP_FAULT: kill or stall one PE at its N-th call of an op. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/fault.h"

int sym_fault_op = -1;

static struct {
    struct sym_fault_spec spec;
    unsigned long calls;
    double stall_s;
    int me;
} armed;

/* Indexed by op: the base operations here, the rest registered by the
 * layers that own them (sym_fault_register_ops). */
static const char *op_names[SYM_FAULT_OP_MAX] = {
    [SYM_FAULT_OP_PUT] = "put",         [SYM_FAULT_OP_GET] = "get",
    [SYM_FAULT_OP_ATOMIC] = "atomic",   [SYM_FAULT_OP_WAIT] = "wait",
    [SYM_FAULT_OP_BARRIER] = "barrier", [SYM_FAULT_OP_SEND] = "send",
    [SYM_FAULT_OP_RECV] = "recv",
};
#define N_OPS ((int)(sizeof(op_names) / sizeof(op_names[0])))

void sym_fault_register_ops(int first, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (names[i] && first + i >= SYM_FAULT_OP_LAYER_BASE && first + i < N_OPS)
            op_names[first + i] = names[i];
}

/* "key=digits" at *p (up to ':' or the end); advances *p past it. */
static int parse_field(const char **p, const char *key, const char **value, size_t *vlen)
{
    size_t klen = strlen(key);
    if (strncmp(*p, key, klen) != 0 || (*p)[klen] != '=')
        return -1;
    *value = *p + klen + 1;
    *vlen = strcspn(*value, ":");
    *p = *value + *vlen;
    return 0;
}

static int parse_ulong(const char *s, size_t n, unsigned long max, unsigned long *out)
{
    if (n == 0 || n > 19)
        return -1;
    unsigned long v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (unsigned long)(s[i] - '0');
    }
    if (v > max)
        return -1;
    *out = v;
    return 0;
}

int sym_fault_parse(const char *text, struct sym_fault_spec *spec)
{
    struct sym_fault_spec s = {.action = SYM_FAULT_NONE, .pe = -1, .op = -1};
    if (text[0] == '\0' || !strcmp(text, "none")) {
        *spec = s;
        return 0;
    }
    const char *p = text;
    if (!strncmp(p, "kill:", 5)) {
        s.action = SYM_FAULT_KILL;
        p += 5;
    } else if (!strncmp(p, "stall:", 6)) {
        s.action = SYM_FAULT_STALL;
        p += 6;
    } else {
        return -1;
    }
    const char *v;
    size_t n;
    unsigned long num;
    if (parse_field(&p, "pe", &v, &n) || parse_ulong(v, n, 1u << 20, &num) || *p++ != ':')
        return -1;
    s.pe = (int)num;
    if (parse_field(&p, "op", &v, &n) || *p++ != ':')
        return -1;
    for (int i = 0; i < N_OPS; i++)
        if (op_names[i] && strlen(op_names[i]) == n && !strncmp(op_names[i], v, n))
            s.op = i;
    if (s.op < 0)
        return -1;
    if (parse_field(&p, "count", &v, &n) || parse_ulong(v, n, 1ul << 40, &num) || num == 0)
        return -1;
    s.count = num;
    if (*p == ':' && s.action == SYM_FAULT_STALL) {
        p++;
        if (parse_field(&p, "seconds", &v, &n) || parse_ulong(v, n, 86400, &num) || num == 0)
            return -1;
        s.stall_s = (double)num;
    }
    if (*p != '\0')
        return -1;
    *spec = s;
    return 0;
}

void sym_fault_format(char *buf, size_t len, const struct sym_fault_spec *spec)
{
    if (spec->action == SYM_FAULT_NONE) {
        snprintf(buf, len, "%s", "none");
        return;
    }
    int used = snprintf(buf, len, "%s:pe=%d:op=%s:count=%lu",
                        spec->action == SYM_FAULT_KILL ? "kill" : "stall", spec->pe,
                        op_names[spec->op], spec->count);
    if (spec->stall_s > 0 && used > 0 && (size_t)used < len)
        snprintf(buf + used, len - (size_t)used, ":seconds=%g", spec->stall_s);
}

sym_status_t sym_fault_arm(const struct sym_fault_spec *spec, int me, int npes, double timeout_s)
{
    sym_fault_disarm();
    if (spec->action == SYM_FAULT_NONE)
        return SYM_OK;
    if (spec->pe >= npes) {
        char text[128];
        sym_fault_format(text, sizeof(text), spec);
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: environment variable SYMHEAP_FAULT='%s' names PE %d, but "
                         "the job has %d PEs (0..%d)",
                         text, spec->pe, npes, npes - 1);
    }
    if (spec->pe != me)
        return SYM_OK;
    armed.spec = *spec;
    armed.me = me;
    armed.stall_s = spec->stall_s > 0 ? spec->stall_s : 2 * timeout_s + 1;
    sym_fault_op = spec->op;
    return SYM_OK;
}

void sym_fault_disarm(void)
{
    sym_fault_op = -1;
    memset(&armed, 0, sizeof(armed));
}

void sym_fault_hit(void)
{
    if (++armed.calls < armed.spec.count)
        return;
    sym_fault_op = -1; /* once */
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (armed.spec.action == SYM_FAULT_KILL) {
        fprintf(stderr, "symheap: SYMHEAP_FAULT: PE %d kills itself at %s #%lu (t=%ld.%06ld)\n",
                armed.me, op_names[armed.spec.op], armed.calls, (long)now.tv_sec,
                now.tv_nsec / 1000);
        fflush(stderr);
        raise(SIGKILL);
        _exit(137); /* not reached */
    }
    fprintf(stderr, "symheap: SYMHEAP_FAULT: PE %d stalls for %g s at %s #%lu\n", armed.me,
            armed.stall_s, op_names[armed.spec.op], armed.calls);
    fflush(stderr);
    double s = armed.stall_s;
    struct timespec ts = {(time_t)s, (long)((s - (double)(time_t)s) * 1e9)};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}
