/*
 * test_checkers.c - regressions for what the checkers found: fuzzers
 * (fuzz/), gcc -fanalyzer and the sanitizer stages of .ci/test.
 */
#include <criterion/criterion.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/wire.h"
#include "harness.h"

/* ---- poison words (fuzz_wire) ---- */

Test(wire, poison_word_round_trip)
{
    int member = -2;
    cr_assert_eq(sym_poison_decode(sym_poison_word(2, SYM_ERR_MISMATCH), 4, &member),
                 SYM_ERR_MISMATCH);
    cr_assert_eq(member, 2);
    cr_assert_eq(sym_poison_decode(sym_poison_word(0, SYM_ERR_INTERNAL), 1, &member),
                 SYM_ERR_INTERNAL);
    cr_assert_eq(member, 0);
}

/* 0x80000000 in the low half overflowed an int negation (UBSan), and a
 * status that is no error let a waiter carry on as if served. */
Test(wire, poison_word_nobody_wrote)
{
    static const uint64_t words[] = {
        UINT64_C(0x0000000180000000), /* -INT_MIN */
        UINT64_C(0x0000000100000000), /* SYM_OK */
        UINT64_C(0x0000000000000c03), /* no such status, no member */
        UINT64_C(0x80000000ffffffff), /* member 2^31 - 1: int overflow in "- 1" */
        UINT64_C(0xffffffff00000001), /* -1 + 1 as the member */
    };
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        int member = -2;
        sym_status_t st = sym_poison_decode(words[i], 8, &member);
        cr_assert(st < SYM_OK && strcmp(sym_status_name(st), "SYM_ERR_UNKNOWN") != 0,
                  "word %#llx decoded to status %d", (unsigned long long)words[i], (int)st);
        cr_assert(member >= -1 && member < 8, "word %#llx decoded to member %d",
                  (unsigned long long)words[i], member);
    }
    int member;
    cr_assert_eq(sym_poison_decode(UINT64_C(0x0000000180000000), 8, &member), SYM_ERR_INTERNAL);
    cr_assert_eq(member, 0);
    cr_assert_eq(sym_poison_decode(UINT64_C(0x0000000900000001), 8, &member), SYM_ERR_INVALID_ARG);
    cr_assert_eq(member, -1, "member 8 of a team of 8");
}

/* ---- point-to-point chunk headers ---- */

static struct sym_chunk_hdr p2p_hdr(int tag, uint64_t bytes, uint32_t len)
{
    struct sym_chunk_hdr h = {
        .fp = {.kind = SYM_COLL_P2P, .count = bytes, .root = tag}, .msg_bytes = bytes, .len = len};
    return h;
}

Test(wire, p2p_chunks_a_sender_writes)
{
    struct sym_chunk_hdr h = p2p_hdr(3, 600, 256);
    cr_assert_null(sym_p2p_chunk_check(&h, 256, NULL));
    struct sym_p2p_partial part = {600, 256, 3};
    cr_assert_null(sym_p2p_chunk_check(&h, 256, &part));
    part.have = 512;
    h.len = 88;
    cr_assert_null(sym_p2p_chunk_check(&h, 256, &part));
    h = p2p_hdr(0, 0, 0);
    cr_assert_null(sym_p2p_chunk_check(&h, 256, NULL), "empty message");
}

Test(wire, p2p_chunks_refused)
{
    struct sym_p2p_partial part = {600, 512, 3};
    struct {
        struct sym_chunk_hdr h;
        const struct sym_p2p_partial *part;
    } cases[] = {
        {p2p_hdr(3, 600, 257), NULL},  /* longer than a slot */
        {p2p_hdr(3, 100, 101), NULL},  /* longer than the message */
        {p2p_hdr(3, 600, 100), NULL},  /* short first chunk of a long message */
        {p2p_hdr(-1, 10, 10), NULL},   /* negative tag */
        {p2p_hdr(3, 600, 256), &part}, /* would end past the message */
        {p2p_hdr(4, 600, 88), &part},  /* another tag mid-message */
        {p2p_hdr(3, 601, 88), &part},  /* another size mid-message */
    };
    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
        cr_assert_not_null(sym_p2p_chunk_check(&cases[i].h, 256, cases[i].part), "case %zu", i);
    struct sym_chunk_hdr h = p2p_hdr(3, 10, 10);
    h.fp.kind = SYM_COLL_ALLREDUCE;
    cr_assert_not_null(sym_p2p_chunk_check(&h, 256, NULL), "a collective's chunk");
    h = p2p_hdr(3, 10, 10);
    h.fp.count = 11;
    cr_assert_not_null(sym_p2p_chunk_check(&h, 256, NULL), "count and size disagree");
}

/* A malformed header in a real mailbox: PE 0 forges one into PE 1's slot
 * for messages from PE 0 (what a corrupted or foreign writer could do);
 * PE 1's receive fails naming PE 0 instead of copying 1 MiB into 16 bytes. */
static void forged_header_body(int me, int npes, void *arg)
{
    (void)npes, (void)arg;
    const struct sym_chan *ch = &sym_p2p_team()->chan;
    if (me == 0) {
        struct sym_chunk_hdr h = p2p_hdr(5, 16, 16);
        h.len = 1u << 20;
        const uint64_t link = 0; /* from member 0, slot 0 */
        struct sym_deadline dl = sym_deadline_default("forged_header");
        PE_OK(sym_put_off_dl(1, ch->slot_off + link * ch->slot_stride, &h, sizeof(h), &dl));
        /* the slot's full flag is the last word of its header line */
        PE_OK(sym_flag_set_dl(
            1, ch->slot_off + link * ch->slot_stride + offsetof(struct sym_chunk_hdr, full), 1,
            &dl));
    } else {
        char buf[16];
        size_t got = 0;
        PE_FAILS_WITH(sym_recv(buf, sizeof(buf), 0, 5, &got), SYM_ERR_INTERNAL);
        PE_ASSERT(strstr(sym_last_error(), "malformed message from PE 0"), "message: %s",
                  sym_last_error());
    }
    PE_OK(sym_barrier_all());
}

Test(p2p_checks, forged_header_is_refused)
{
    run_pes(2, forged_header_body, NULL);
}

/* ---- non-blocking collectives (gcc -fanalyzer: leak with req_p NULL) ---- */

static void null_request_body(int me, int npes, void *arg)
{
    (void)me, (void)arg;
    size_t counts[8] = {1, 1, 1, 1, 1, 1, 1, 1};
    int src[8] = {0}, dst[8];
    PE_FAILS_WITH(
        sym_iall_to_allv(sym_team_world(), src, counts, dst, counts, SYM_INT32, NULL, NULL),
        SYM_ERR_INVALID_ARG);
    PE_FAILS_WITH(sym_iall_gatherv(sym_team_world(), dst, src, counts, SYM_INT32, NULL, NULL),
                  SYM_ERR_INVALID_ARG);
    PE_ASSERT(npes <= 8, "counts hold 8 members");
}

Test(nonblocking_checks, null_request_pointer)
{
    run_pes(2, null_request_body, NULL);
}
