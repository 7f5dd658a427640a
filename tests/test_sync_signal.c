/* test_sync_signal.c - put-with-signal ordering (the signal is never visible
 * before its data) and sym_signal_wait_until with every comparison, at 1..8
 * PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <sched.h>
#include <string.h>

#include "harness.h"
#include "sync_check.h"

static int pe_counts[] = HARNESS_PE_COUNTS;
#define NCOUNTS (sizeof(pe_counts) / sizeof(pe_counts[0]))

/* ------------------------------------------------------------------------ */
/* put_signal: the signal is never visible before the data                   */
/* ------------------------------------------------------------------------ */

struct ps_param {
    int npes;
    sym_signal_op_t op;
    bool nbi;
};

static struct ps_param ps_params[NCOUNTS * 4];

#define PS_SMALL_ROUNDS 2000
#define PS_SMALL        4096
#define PS_LARGE_ROUNDS 24
#define PS_LARGE        ((1u << 20) + 3)

static uint8_t ps_byte(int pe, uint64_t round, size_t i)
{
    return (uint8_t)(i * 7 + round * 13 + (uint64_t)pe * 101 + (i >> 9));
}

/* Each PE streams rounds to its right neighbour through two alternating
 * buffers; the receiver acknowledges each round so that a buffer is
 * rewritten only after it was checked.  A signal that overtook its data
 * shows up as a stale or partial block. */
static void put_signal_body(int me, int n, void *arg)
{
    const struct ps_param *p = arg;
    const int right = (me + 1) % n, left = (me - 1 + n) % n;
    const size_t cap = PS_LARGE + 8;
    uint8_t *buf = sym_malloc(2 * cap);
    uint64_t *sig = sym_calloc(2, 64); /* [0] data signal, [8] acks from the right */
    uint8_t *src[2] = {malloc(cap), malloc(cap)};
    uint8_t *want = malloc(cap);
    PE_ASSERT(buf && sig && src[0] && src[1] && want, "allocation failed: %s", sym_last_error());
    uint64_t *ack = &sig[8];
    const char *opname = p->op == SYM_SIGNAL_SET ? "SET" : "ADD";
    /* SYMHEAP_TEST_QUICK (sanitizer and ofi stages): a tenth of the small rounds. */
    const uint64_t small_rounds =
        getenv("SYMHEAP_TEST_QUICK") ? PS_SMALL_ROUNDS / 10 : PS_SMALL_ROUNDS;
    const uint64_t total = small_rounds + PS_LARGE_ROUNDS;

    for (uint64_t r = 1; r <= total; r++) {
        const bool large = r > small_rounds;
        const size_t len = large ? PS_LARGE : PS_SMALL;
        const size_t shift = large ? (size_t)(r % 3) : 0; /* unaligned destinations too */
        uint8_t *slot = buf + (r % 2) * cap + shift;

        /* send round r: its buffer was last used by round r - 2 */
        if (r > 2)
            PE_OK(sym_wait_until_uint64(ack, SYM_CMP_GE, r - 2));
        if (p->nbi)
            PE_OK(sym_quiet()); /* src[r % 2] is still owned by round r - 2 */
        uint8_t *s = src[r % 2];
        for (size_t i = 0; i < len; i++)
            s[i] = ps_byte(me, r, i);
        uint64_t value = p->op == SYM_SIGNAL_SET ? r : 1;
        if (p->nbi)
            PE_OK(sym_put_signal_nbi(slot, s, len, &sig[0], value, p->op, right));
        else
            PE_OK(sym_put_signal(slot, s, len, &sig[0], value, p->op, right));

        /* receive round r from the left: the sender is at most one round
         * ahead, so the signal holds r or r + 1 */
        uint64_t seen = 0;
        switch (r % 3) {
        case 0:
            PE_OK(sym_signal_wait_until(&sig[0], SYM_CMP_GE, r, &seen));
            break;
        case 1:
            PE_OK(sym_wait_until_uint64(&sig[0], SYM_CMP_GE, r));
            PE_OK(sym_signal_fetch(&sig[0], &seen));
            break;
        default:
            for (int ok = 0; !ok;) {
                PE_OK(sym_test_uint64(&sig[0], SYM_CMP_GE, r, &ok));
                if (!ok)
                    sched_yield();
            }
            PE_OK(sym_signal_fetch(&sig[0], &seen));
            break;
        }
        PE_ASSERT(seen == r || seen == r + 1, "put_signal %s%s round %llu: signal is %llu", opname,
                  p->nbi ? "_nbi" : "", (unsigned long long)r, (unsigned long long)seen);
        for (size_t i = 0; i < len; i++)
            want[i] = ps_byte(left, r, i);
        if (memcmp(slot, want, len) != 0) {
            size_t bad = 0;
            while (slot[bad] == want[bad])
                bad++;
            PE_ASSERT(false,
                      "put_signal %s%s round %llu (%zu bytes): signal %llu seen but "
                      "byte %zu is 0x%02x, expected 0x%02x (data arrived after the signal)",
                      opname, p->nbi ? "_nbi" : "", (unsigned long long)r, len,
                      (unsigned long long)seen, bad, slot[bad], want[bad]);
        }
        PE_OK(sym_atomic_set64(ack, r, left));
    }
    PE_OK(sym_quiet());
    PE_OK(sym_barrier_all());
    free(want);
    free(src[0]);
    free(src[1]);
    sym_free(sig);
    sym_free(buf);
}

ParameterizedTestParameters(sync, put_signal_data_before_signal)
{
    size_t k = 0;
    for (size_t i = 0; i < NCOUNTS; i++)
        for (int op = SYM_SIGNAL_SET; op <= SYM_SIGNAL_ADD; op++)
            for (int nbi = 0; nbi <= 1; nbi++)
                ps_params[k++] = (struct ps_param){pe_counts[i], (sym_signal_op_t)op, nbi};
    return cr_make_param_array(struct ps_param, ps_params, k);
}

ParameterizedTest(struct ps_param *p, sync, put_signal_data_before_signal)
{
    run_pes(p->npes, put_signal_body, p);
}

/* ------------------------------------------------------------------------ */
/* signal_wait_until: every comparison and the value returned                */
/* ------------------------------------------------------------------------ */

struct sig_step {
    sym_signal_op_t op;
    sym_cmp_t cmp;
    uint64_t value;
    uint64_t init;
    int nseq;
    uint64_t seq[4]; /* only the last one satisfies the condition */
};

static const struct sig_step sig_steps[] = {
    {SYM_SIGNAL_SET, SYM_CMP_EQ, 7, 0, 3, {3, 5, 7}},
    {SYM_SIGNAL_SET, SYM_CMP_NE, 4, 4, 3, {4, 4, 9}},
    {SYM_SIGNAL_SET, SYM_CMP_GT, 100, 0, 3, {50, 100, 101}},
    {SYM_SIGNAL_SET, SYM_CMP_GE, 100, 0, 2, {99, 100}},
    {SYM_SIGNAL_SET, SYM_CMP_LT, 10, 1000, 3, {500, 10, 9}},
    {SYM_SIGNAL_SET, SYM_CMP_LE, 10, 1000, 2, {11, 10}},
    /* unsigned: a signed comparison would never be satisfied */
    {SYM_SIGNAL_SET, SYM_CMP_GT, 5, 0, 2, {3, UINT64_MAX - 1}},
    {SYM_SIGNAL_SET, SYM_CMP_LT, UINT64_C(1) << 63, UINT64_MAX, 2, {UINT64_C(1) << 63, 5}},
    {SYM_SIGNAL_ADD, SYM_CMP_GE, 30, 0, 3, {10, 10, 10}},
    {SYM_SIGNAL_ADD, SYM_CMP_EQ, 3, 0, 3, {1, 1, 1}},
    {SYM_SIGNAL_ADD, SYM_CMP_NE, 5, 5, 3, {0, 0, 3}},
    {SYM_SIGNAL_ADD, SYM_CMP_EQ, 1, UINT64_MAX - 1, 3, {1, 1, 1}}, /* wraps to 1 */
};
#define NSIG_STEPS (sizeof(sig_steps) / sizeof(sig_steps[0]))

static uint64_t sig_after(const struct sig_step *s, int upto)
{
    uint64_t v = s->init;
    for (int i = 0; i < upto; i++)
        v = s->op == SYM_SIGNAL_SET ? s->seq[i] : v + s->seq[i];
    return v;
}

/* PE 0 waits while PE n-1 (itself at 1 PE) moves its signal word through
 * values that do not satisfy the condition to one that does; the wait must
 * return exactly that value, with the payload of the same put visible. */
static void signal_wait_body(int me, int n, void *arg)
{
    (void)arg;
    uint64_t *sig = sym_calloc(1, 64);
    uint64_t *data = sym_calloc(1, 64);
    PE_ASSERT(sig && data, "sym_calloc: %s", sym_last_error());
    const int waiter = 0, sender = n - 1;
    for (size_t k = 0; k < NSIG_STEPS; k++) {
        const struct sig_step *s = &sig_steps[k];
        if (me == waiter) {
            PE_OK(sym_atomic_set64(sig, s->init, me));
            uint64_t v = 0;
            PE_OK(sym_signal_fetch(sig, &v));
            PE_ASSERT(v == s->init, "sym_signal_fetch returned %llu after setting %llu",
                      (unsigned long long)v, (unsigned long long)s->init);
        }
        PE_OK(sym_barrier_all());
        if (me == sender) {
            for (int i = 0; i < s->nseq; i++) {
                if (i == s->nseq - 1 && k % 2)
                    pause_us(2000);
                uint64_t payload = k * 100 + (uint64_t)i;
                PE_OK(sym_put_signal(&data[0], &payload, sizeof(payload), sig, s->seq[i], s->op,
                                     waiter));
            }
        }
        if (me == waiter) {
            const uint64_t want = sig_after(s, s->nseq);
            for (int i = 0; i < s->nseq; i++)
                PE_ASSERT(!REF_CMP(sig_after(s, i), s->cmp, s->value), "step table error");
            uint64_t got = 0x5EED;
            PE_OK(sym_signal_wait_until(sig, s->cmp, s->value, &got));
            PE_ASSERT(got == want,
                      "step %zu: sym_signal_wait_until(%s %llu) returned %llu, "
                      "expected %llu",
                      k, cmp_text(s->cmp), (unsigned long long)s->value, (unsigned long long)got,
                      (unsigned long long)want);
            uint64_t payload;
            memcpy(&payload, &data[0], sizeof(payload));
            PE_ASSERT(payload == k * 100 + (uint64_t)(s->nseq - 1),
                      "step %zu: the payload of "
                      "the satisfying put is %llu, expected %llu",
                      k, (unsigned long long)payload,
                      (unsigned long long)(k * 100 + (uint64_t)(s->nseq - 1)));
            uint64_t v = 0;
            PE_OK(sym_signal_fetch(sig, &v));
            PE_ASSERT(v == want, "step %zu: sym_signal_fetch returned %llu, expected %llu", k,
                      (unsigned long long)v, (unsigned long long)want);
            /* an already satisfied wait returns at once, NULL value_p allowed */
            PE_OK(sym_signal_wait_until(sig, s->cmp, s->value, NULL));
        }
        PE_OK(sym_barrier_all());
    }
    sym_free(data);
    sym_free(sig);
}

ParameterizedTestParameters(sync, signal_wait_until_cmps)
{
    return cr_make_param_array(int, pe_counts, NCOUNTS);
}

ParameterizedTest(int *npes, sync, signal_wait_until_cmps)
{
    run_pes(*npes, signal_wait_body, NULL);
}
