/*
 * fault.h - fault injection: SYMHEAP_FAULT makes one PE kill itself (SIGKILL)
 * or stall (sleep past the timeout) at its N-th call of one operation, so
 * tests can prove that the survivors report the loss and the job cleans up.
 *
 *   SYMHEAP_FAULT=ACTION:pe=P:op=OP:count=N[:seconds=S]
 *     ACTION  kill | stall
 *     P       the PE that misbehaves (0 .. npes-1, checked at sym_init)
 *     OP      put | get | atomic | wait | barrier | send | recv |
 *             broadcast | reduce | allreduce | reduce_scatter | all_gather |
 *             all_gatherv | all_to_all | all_to_allv | gather | scatter |
 *             team_split | broadcast_v
 *     N       1-based: the N-th call of OP on that PE (after sym_init)
 *     S       stall only: how long to sleep (default 2 * SYMHEAP_TIMEOUT + 1)
 *
 * Unset (or "none") it is inert: every fault point is one load and one
 * compare against a value that never matches, a predictable branch.
 */
#ifndef SYM_FAULT_H
#define SYM_FAULT_H

#include <stdbool.h>
#include <stddef.h>

#include "symheap.h"

enum sym_fault_action { SYM_FAULT_NONE = 0, SYM_FAULT_KILL, SYM_FAULT_STALL };

/* What is counted: the operations named here, and from SYM_FAULT_OP_LAYER_BASE
 * on those a higher layer names with sym_fault_register_ops (the collectives). */
enum sym_fault_op {
    SYM_FAULT_OP_PUT = 0, /* put, put_nbi, iput, p8..p64, put_signal(_nbi) */
    SYM_FAULT_OP_GET,     /* get, get_nbi, iget, g8..g64 */
    SYM_FAULT_OP_ATOMIC,  /* every sym_atomic_* */
    SYM_FAULT_OP_WAIT,    /* the blocking waits: wait_until*, signal_wait_until */
    SYM_FAULT_OP_BARRIER, /* sym_barrier_all, sym_sync_all, sym_barrier */
    SYM_FAULT_OP_SEND,
    SYM_FAULT_OP_RECV,       /* sym_recv; sym_sendrecv counts as send and recv */
    SYM_FAULT_OP_LAYER_BASE, /* the first op a higher layer registers */
    SYM_FAULT_OP_MAX = 64
};

struct sym_fault_spec {
    int action; /* enum sym_fault_action */
    int pe;
    int op; /* enum sym_fault_op, or a registered op */
    unsigned long count;
    double stall_s; /* 0: 2 * SYMHEAP_TIMEOUT + 1 */
};

/* The op armed on this PE, or -1.  Read on every fault point. */
extern int sym_fault_op;

/* Parse a SYMHEAP_FAULT value ("" = none).  0 on success, -1 on garbage. */
int sym_fault_parse(const char *text, struct sym_fault_spec *spec);

/* Printable form of a spec ("none" for none), for symheap-info. */
void sym_fault_format(char *buf, size_t len, const struct sym_fault_spec *spec);

/* Arm the spec on this PE if it names it.  SYM_ERR_CONFIG if it names a
 * PE outside the job. */
sym_status_t sym_fault_arm(const struct sym_fault_spec *spec, int me, int npes, double timeout_s);
void sym_fault_disarm(void);

/* Ops [first, first + n) are called names[0..n-1] (NULL: no name) from now
 * on, for the parser and the messages.  Called before main by the layer that
 * owns them, so every parse sees them. */
void sym_fault_register_ops(int first, const char *const *names, int n);

/* The armed op was called: count it, and act at the N-th call. */
void sym_fault_hit(void);

static inline void sym_fault_point(int op)
{
    if (__builtin_expect(sym_fault_op == op, 0))
        sym_fault_hit();
}

#endif /* SYM_FAULT_H */
