/*
 * lock.c - OpenSHMEM distributed locks: a ticket lock (FIFO, so fair under
 * contention) on the symmetric long at PE 0.  Its two 32-bit halves are
 * "next ticket" (lower address) and "now serving"; both start at 0, the
 * value the specification requires a lock to be initialised with, and wrap
 * independently.
 */
#include <stdio.h>
#include <string.h>

#include "shmem_internal.h"

#define LOCK_PE 0

struct ticket_wait {
    uint32_t *serving;
    uint32_t ticket;
    uint32_t seen;
    sym_status_t st;
};

static bool ticket_ready(void *arg)
{
    struct ticket_wait *w = arg;
    w->st = sym_atomic_fetch32(&w->seen, w->serving, LOCK_PE);
    return w->st != SYM_OK || w->seen == w->ticket;
}

static void ticket_describe(void *arg, char *buf, size_t len)
{
    struct ticket_wait *w = arg;
    snprintf(buf, len, "lock %p on PE %d to serve ticket %u (serving %u)", (void *)w->serving,
             LOCK_PE, w->ticket, w->seen);
}

SYMSHMEM_WEAK_(shmem_set_lock)
void pshmem_set_lock(long *lock)
{
    uint32_t *half = (uint32_t *)lock;
    struct ticket_wait w = {.serving = &half[1]};
    symshmem_check("shmem_set_lock", sym_atomic_fetch_inc32(&half[0], &w.ticket, LOCK_PE));
    symshmem_check("shmem_set_lock",
                   symshmem_wait("shmem_set_lock", ticket_ready, &w, ticket_describe));
    symshmem_check("shmem_set_lock", w.st);
}

SYMSHMEM_WEAK_(shmem_clear_lock)
void pshmem_clear_lock(long *lock)
{
    uint32_t *half = (uint32_t *)lock;
    /* What was written under the lock is complete before the next holder
     * gets it. */
    symshmem_check("shmem_clear_lock", sym_quiet());
    symshmem_check("shmem_clear_lock", sym_atomic_inc32(&half[1], LOCK_PE));
}

SYMSHMEM_WEAK_(shmem_test_lock)
int pshmem_test_lock(long *lock)
{
    symshmem_poll(); /* called in polling loops */
    uint64_t now, want, old;
    uint32_t half[2];
    symshmem_check("shmem_test_lock", sym_atomic_fetch64(&now, (uint64_t *)lock, LOCK_PE));
    memcpy(half, &now, sizeof half);
    if (half[0] != half[1])
        return 1; /* held (or queued for) by someone else */
    half[0]++;
    memcpy(&want, half, sizeof want);
    symshmem_check("shmem_test_lock",
                   sym_atomic_compare_swap64((uint64_t *)lock, now, want, &old, LOCK_PE));
    return old == now ? 0 : 1;
}
