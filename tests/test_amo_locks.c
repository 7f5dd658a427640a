/* test_amo_locks.c - locks built from the atomics exclude each other: a
 * compare_swap spinlock and a fetch_inc ticket lock whose tickets wrap, at
 * 1..8 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <sched.h>

#include "amo_check.h"
#include "harness.h"

#define LOCK_ITERS 150

/* Inside a critical section: claim the holder word, which must be free; a
 * second PE inside at the same time finds it taken. */
static void enter_cs(int bits, uint64_t *holder, int me, int pe)
{
    uint64_t was = AMO_OK(bits, A_SWAP, holder, (uint64_t)me + 1, 0, pe);
    PE_ASSERT(was == 0, "PE %d entered the critical section while PE %llu was inside", me,
              (unsigned long long)was - 1);
}

static void leave_cs(int bits, uint64_t *holder, int me, int pe)
{
    uint64_t was = AMO_OK(bits, A_SWAP, holder, 0, 0, pe);
    PE_ASSERT(was == (uint64_t)me + 1,
              "PE %d left the critical section but the holder word "
              "said %llu",
              me, (unsigned long long)was);
}

/* Non-atomic read-modify-write of a counter: loses updates unless the lock
 * excludes. */
static void bump_counter(uint64_t *counter, int pe)
{
    uint64_t c;
    PE_OK(sym_g64(&c, counter, pe));
    PE_OK(sym_p64(counter, c + 1, pe));
    PE_OK(sym_quiet());
}

static void spinlock_body(int me, int n, void *arg)
{
    const struct amo_param *p = arg;
    const int bits = p->bits;
    uint64_t *lock = sym_calloc(8, 8); /* [0] lock, [1] holder, [2] counter */
    PE_ASSERT(lock, "sym_calloc: %s", sym_last_error());
    const int lpe = 0, cpe = n - 1; /* lock on one PE, the data on another */
    for (int i = 0; i < LOCK_ITERS; i++) {
        for (;;) {
            uint64_t old = AMO_OK(bits, A_CSWAP, &lock[0], (uint64_t)me + 1, 0, lpe);
            if (old == 0)
                break;
            PE_ASSERT(old >= 1 && old <= (uint64_t)n && old != (uint64_t)me + 1,
                      "compare_swap on the lock returned %llu", (unsigned long long)old);
            sched_yield(); /* let the holder run when PEs outnumber cores */
        }
        enter_cs(bits, &lock[1], me, cpe);
        bump_counter(&lock[2], cpe);
        leave_cs(bits, &lock[1], me, cpe);
        /* a release whose condition fails would leave the lock held */
        uint64_t old = AMO_OK(bits, A_CSWAP, &lock[0], 0, (uint64_t)me + 1, lpe);
        PE_ASSERT(old == (uint64_t)me + 1, "releasing the lock: it held %llu, expected %d",
                  (unsigned long long)old, me + 1);
        /* a failing compare_swap must leave the word alone */
        old = AMO_OK(bits, A_CSWAP, &lock[3], 99, 12345, me);
        PE_ASSERT(old == (uint64_t)i,
                  "compare_swap with a wrong condition returned %llu, "
                  "expected %d",
                  (unsigned long long)old, i);
        AMO_OK(bits, A_INC, &lock[3], 0, 0, me);
    }
    PE_OK(sym_barrier_all());
    if (me == cpe) {
        PE_ASSERT(lock[2] == (uint64_t)n * LOCK_ITERS,
                  "counter is %llu after %d locked "
                  "increments",
                  (unsigned long long)lock[2], n * LOCK_ITERS);
        PE_ASSERT(AMO_OK(bits, A_FETCH, &lock[1], 0, 0, me) == 0, "holder word not cleared");
    }
    if (me == lpe)
        PE_ASSERT(AMO_OK(bits, A_FETCH, &lock[0], 0, 0, me) == 0, "lock still held at the end");
    PE_OK(sym_barrier_all());
    sym_free(lock);
}

ParameterizedTestParameters(amo, cswap_spinlock)
{
    size_t k = make_amo_params();
    return cr_make_param_array(struct amo_param, amo_params, k);
}

ParameterizedTest(struct amo_param *p, amo, cswap_spinlock)
{
    run_pes(p->npes, spinlock_body, p);
}

/* Ticket lock: tickets start just below 2^bits, so the 32-bit form wraps
 * halfway.  Each holder logs its PE in the slot of its ticket on PE 0; the
 * log must hold every PE exactly LOCK_ITERS times and the serving counter
 * must never pass a waiting PE's ticket. */
static void ticket_body(int me, int n, void *arg)
{
    const struct amo_param *p = arg;
    const int bits = p->bits;
    const uint64_t mask = width_mask(bits);
    const uint64_t total = (uint64_t)n * LOCK_ITERS;
    const uint64_t start = (mask - total / 2) & mask;
    uint64_t *w = sym_calloc(8, 8); /* [0] next ticket, [1] now serving, [2] holder */
    uint32_t *log = sym_calloc(total, sizeof(uint32_t));
    PE_ASSERT(w && log, "sym_calloc: %s", sym_last_error());
    if (me == 0) {
        AMO_OK(bits, A_SET, &w[0], start, 0, 0);
        AMO_OK(bits, A_SET, &w[1], start, 0, 0);
    }
    PE_OK(sym_barrier_all());
    uint64_t prev = 0;
    for (int i = 0; i < LOCK_ITERS; i++) {
        uint64_t t = AMO_OK(bits, A_FINC, &w[0], 0, 0, 0);
        uint64_t rel = (t - start) & mask;
        PE_ASSERT(rel < total, "ticket 0x%llx is outside the %llu issued", (unsigned long long)t,
                  (unsigned long long)total);
        PE_ASSERT(i == 0 || rel > prev, "PE %d's tickets went from %llu to %llu", me,
                  (unsigned long long)prev, (unsigned long long)rel);
        prev = rel;
        for (;;) {
            uint64_t s = AMO_OK(bits, A_FETCH, &w[1], 0, 0, 0);
            uint64_t srel = (s - start) & mask;
            if (srel == rel)
                break;
            PE_ASSERT(srel < rel, "now-serving %llu passed my ticket %llu",
                      (unsigned long long)srel, (unsigned long long)rel);
            sched_yield(); /* let the holder run when PEs outnumber cores */
        }
        enter_cs(bits, &w[2], me, 0);
        PE_OK(sym_p32(&log[rel], (uint32_t)me + 1, 0));
        PE_OK(sym_quiet());
        leave_cs(bits, &w[2], me, 0);
        uint64_t s = AMO_OK(bits, A_FADD, &w[1], 1, 0, 0);
        PE_ASSERT(s == t, "now-serving was 0x%llx when ticket 0x%llx released",
                  (unsigned long long)s, (unsigned long long)t);
    }
    PE_OK(sym_barrier_all());
    if (me == 0) {
        uint64_t end = (start + total) & mask;
        PE_ASSERT(AMO_OK(bits, A_FETCH, &w[0], 0, 0, 0) == end, "next ticket is not start + %llu",
                  (unsigned long long)total);
        PE_ASSERT(AMO_OK(bits, A_FETCH, &w[1], 0, 0, 0) == end, "now-serving is not start + %llu",
                  (unsigned long long)total);
        int seen[HARNESS_MAX_PES] = {0};
        for (uint64_t i = 0; i < total; i++) {
            PE_ASSERT(log[i] >= 1 && log[i] <= (uint32_t)n,
                      "ticket %llu was never served "
                      "(log holds %u)",
                      (unsigned long long)i, log[i]);
            seen[log[i] - 1]++;
        }
        for (int pe = 0; pe < n; pe++)
            PE_ASSERT(seen[pe] == LOCK_ITERS, "PE %d held the lock %d times, expected %d", pe,
                      seen[pe], LOCK_ITERS);
    }
    PE_OK(sym_barrier_all());
    sym_free(log);
    sym_free(w);
}

ParameterizedTestParameters(amo, fetch_inc_ticket_lock)
{
    size_t k = make_amo_params();
    return cr_make_param_array(struct amo_param, amo_params, k);
}

ParameterizedTest(struct amo_param *p, amo, fetch_inc_ticket_lock)
{
    run_pes(p->npes, ticket_body, p);
}
