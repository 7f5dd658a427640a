/* test_amo_errors.c - argument errors of every atomic at both widths
 * (misaligned, NULL old_p, bad PEs, local and reserved addresses, sym_ptr()
 * pointers): the documented status, a message naming the call, and nothing
 * written, at 1..3 PEs. */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <limits.h>
#include <string.h>

#include "amo_check.h"
#include "harness.h"
#include "core/internal.h" /* sym_core_layout: the heap's reserved regions */

/* The failure must carry the expected code and a message naming the call. */
static void expect_error(int bits, enum amo_id id, void *dest, uint64_t *old_p, int pe,
                         sym_status_t want, const char *why)
{
    char name[48];
    snprintf(name, sizeof(name), "sym_atomic_%s%d", amo_name[id], bits);
    sym_status_t st = amo(bits, id, dest, 0x77, 0, old_p, pe);
    PE_ASSERT(st == want, "%s with %s returned %s, expected %s (%s)", name, why,
              sym_status_name(st), sym_status_name(want), sym_last_error());
    PE_ASSERT(strstr(sym_last_error(), name),
              "%s with %s: message \"%s\" does not name the "
              "call",
              name, why, sym_last_error());
}

static void errors_body(int me, int n, void *arg)
{
    (void)arg;
    uint8_t *buf = sym_malloc(64);
    PE_ASSERT(buf, "sym_malloc: %s", sym_last_error());
    memset(buf, 0xAB, 64);
    PE_OK(sym_barrier_all());
    const int right = (me + 1) % n;
    uint64_t stack_word[2] = {0xABABABABABABABABu, 0xABABABABABABABABu};
    uint64_t *heap_word = malloc(16);
    PE_ASSERT(heap_word, "malloc");
    memset(heap_word, 0xAB, 16);

    for (int bits = 32; bits <= 64; bits += 32) {
        for (int i = 0; i < A_COUNT; i++) {
            enum amo_id id = (enum amo_id)i;
            uint64_t old = 0, *o = amo_fetches(id) ? &old : NULL;
            /* misaligned: every offset inside the word, on this PE and the next */
            for (int off = 1; off < bits / 8; off++) {
                expect_error(bits, id, buf + 8 + off, o, me, SYM_ERR_INVALID_ARG,
                             "a misaligned dest");
                expect_error(bits, id, buf + 8 + off, o, right, SYM_ERR_INVALID_ARG,
                             "a misaligned dest on another PE");
            }
            if (amo_fetches(id)) {
                expect_error(bits, id, buf + 16, NULL, me, SYM_ERR_INVALID_ARG, "a NULL old_p");
                expect_error(bits, id, buf + 16, NULL, right, SYM_ERR_INVALID_ARG,
                             "a NULL old_p on another PE");
            }
            static const int bad_pes[] = {-1, INT_MIN, 0x7fffffff};
            for (size_t b = 0; b < sizeof(bad_pes) / sizeof(bad_pes[0]); b++)
                expect_error(bits, id, buf + 24, o, bad_pes[b], SYM_ERR_INVALID_PE,
                             "a negative or huge PE");
            expect_error(bits, id, buf + 24, o, n, SYM_ERR_INVALID_PE, "PE == n_pes");
            expect_error(bits, id, buf + 24, o, n + 3, SYM_ERR_INVALID_PE, "PE > n_pes");
            expect_error(bits, id, stack_word, o, me, SYM_ERR_NOT_SYMMETRIC, "a stack dest");
            expect_error(bits, id, stack_word, o, right, SYM_ERR_NOT_SYMMETRIC,
                         "a stack dest on another PE");
            expect_error(bits, id, heap_word, o, me, SYM_ERR_NOT_SYMMETRIC, "a malloc dest");
            /* global variables are symmetric: test_globals */
            /* inside the heap mapping but outside its user part */
            uint8_t *base = sym_core_base();
            expect_error(bits, id, base, o, right, SYM_ERR_NOT_SYMMETRIC,
                         "the heap's control block");
            expect_error(bits, id, base + SYM_SYNC_OFF, o, right, SYM_ERR_NOT_SYMMETRIC,
                         "the heap's sync area");
            expect_error(bits, id, base + sym_core_layout()->mailbox_off, o, right,
                         SYM_ERR_NOT_SYMMETRIC, "the heap's mailbox region");
            expect_error(bits, id,
                         base + sym_core_layout()->user_off + sym_core_layout()->user_size, o,
                         right, SYM_ERR_NOT_SYMMETRIC, "the end of the user heap");
            /* a local pointer to a peer's copy (from sym_ptr) is not a
             * symmetric address */
            if (right != me)
                expect_error(bits, id, sym_ptr(buf + 24, right), o, right, SYM_ERR_NOT_SYMMETRIC,
                             "a sym_ptr() pointer");
        }
    }
    /* a failed call changes nothing, here or on the neighbour */
    PE_OK(sym_barrier_all());
    for (int i = 0; i < 64; i++)
        PE_ASSERT(buf[i] == 0xAB, "a failed atomic modified symmetric byte %d (now 0x%02x)", i,
                  buf[i]);
    for (int i = 0; i < 2; i++)
        PE_ASSERT(stack_word[i] == 0xABABABABABABABABu && heap_word[i] == 0xABABABABABABABABu,
                  "a failed atomic modified non-symmetric memory");
    free(heap_word);
    PE_OK(sym_barrier_all());
    sym_free(buf);
}

ParameterizedTestParameters(amo, errors)
{
    static int counts[] = {1, 2, 3};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, amo, errors)
{
    run_pes(*npes, errors_body, NULL);
}
