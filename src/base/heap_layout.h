/*
 * heap_layout.h - where things live inside every PE's symmetric heap.
 *
 *   offset 0        control block (one page): who owns this heap, liveness,
 *                   the abort word, debug records
 *   SYNC_OFF        sync area: one 64-byte line per flag (barrier rounds, ...)
 *   mailbox_off     mailbox region (collectives, point-to-point), page aligned
 *   staging_off     the world team's staging area: a PE copies data that its
 *                   peers cannot reach where it lies into it once, and they
 *                   read it from there (coll/direct.c), page aligned
 *   user_off        user heap: sym_malloc() and friends, page aligned
 *   teams_off       team region: split teams' mailbox areas, taken on demand
 *                   (never reserved at init: its pages are backed when a
 *                   team takes them), page aligned
 *
 * Every PE computes the same layout from the same configuration, so offsets
 * name the same place in every heap; a peer checks the owner's control block
 * (magic, version, sizes) before using a heap it mapped.  It is a format
 * every layer reads (the shm transport checks a peer's header, the health
 * check reads the abort and state words), so it lives in the base layer.
 */
#ifndef SYM_HEAP_LAYOUT_H
#define SYM_HEAP_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#define SYM_HEAP_MAGIC          UINT64_C(0x53594d4845415031) /* "SYMHEAP1" */
#define SYM_HEAP_LAYOUT_VERSION 5u
#define SYM_PAGE                4096u
/* Every heap is mapped at an address aligned to this, so an offset aligned
 * to any power of two up to it is an address aligned to it (sym_align). */
#define SYM_HEAP_BASE_ALIGN ((size_t)2 << 20)

/* A PE maps its own heap of `heap_len` bytes at an address aligned to the
 * smallest power of two >= heap_len (at least SYM_HEAP_BASE_ALIGN): only
 * address space is reserved for the slack.  So on every PE an offset
 * aligned to any power of two that fits in the heap is an address aligned
 * to it, and sym_align takes such alignments beyond 2 MiB.  Peers' heaps are
 * mapped at SYM_HEAP_BASE_ALIGN: nothing needs their addresses aligned. */
static inline size_t sym_heap_own_align(size_t heap_len)
{
    size_t a = SYM_HEAP_BASE_ALIGN;
    while (a < heap_len && a <= SIZE_MAX / 2)
        a *= 2;
    return a;
}
#define SYM_LINE 64u
/* The user heap when SYMHEAP_HEAP_SIZE is unset and /dev/shm has room. */
#define SYM_HEAP_SIZE_DEFAULT ((uint64_t)256 << 20)

/* Sync area lines. */
#define SYM_SYNC_OFF            ((uint64_t)SYM_PAGE)
#define SYM_SYNC_LINES          128u
#define SYM_SYNC_BARRIER_LINE   0u /* 32 lines: dissemination rounds 0..31 */
#define SYM_SYNC_BARRIER_ROUNDS 32u
#define SYM_SYNC_ARRIVALS_LINE  32u /* central barrier: arrivals (PE 0's counts) */
#define SYM_SYNC_RELEASE_LINE   33u /* central barrier: release epoch (odd: + 1) */
/* The world barrier's lines of odd epochs: a round's line carries the
 * calls' fingerprints besides the epoch, and a PE can be one barrier ahead
 * of the reader of a line, never two (barrier.c). */
#define SYM_SYNC_BARRIER_ODD_LINE 64u /* 32 lines: rounds 0..31 of odd epochs */
#define SYM_SYNC_LINE_OFF(line)   (SYM_SYNC_OFF + (uint64_t)(line)*SYM_LINE)

/* Control block at offset 0 of every heap. */
struct sym_heap_ctrl {
    uint64_t magic;
    uint32_t layout_version;
    int32_t pe;
    int32_t npes;
    int32_t pid;
    uint64_t heap_total;
    uint64_t user_off;
    uint64_t user_size;
    uint8_t pad0[SYM_LINE - 48];
    uint32_t state; /* enum sym_job_pe_state, written by the owner */
    /* The first job-level error the library returned to the owner (0:
     * none): a PE that dies after one is not the cause of the failure. */
    int32_t lib_error;
    /* 1 + the PE that an error returned to the owner named lost (0: none):
     * a peer that finds the owner dead names that PE instead. */
    int32_t lib_blame;
    uint8_t pad1[SYM_LINE - 12];
    uint32_t abort_by; /* 0, or 1 + the PE that raised the job abort */
    int32_t abort_status;
    uint8_t pad2[SYM_LINE - 8];
    /* The fingerprint of the owner's call in its last world barrier of
     * each epoch parity (barrier.c), read by peers to name the calls when
     * they differ and by the central barrier's last arrival. */
    uint64_t barrier_print[2][3];
    uint8_t pad3[SYM_LINE - 48];
    /* Last barrier epoch the owner entered, so a timed-out barrier can name
     * every PE that never arrived, not only the one it waited on. */
    uint64_t barrier_entered;
    uint8_t pad4[SYM_LINE - 8];
    /* The job this heap belongs to (its key, NUL-padded): a peer maps a
     * heap only if it names the peer's own job. */
    char job_key[40];
    uint8_t pad5[SYM_LINE - 40];
    /* Cross-memory attach (core/cma.c): whether the owner could read every
     * peer of its host with process_vm_readv (written before sym_init's
     * last barrier). */
    uint32_t cma_ok;
    uint8_t pad6[SYM_LINE - 4];
};

struct sym_heap_layout {
    uint64_t mailbox_off;
    uint64_t mailbox_size;
    uint64_t staging_off;
    uint64_t staging_size;
    uint64_t user_off;
    uint64_t user_size;
    uint64_t teams_off;
    uint64_t teams_size;
    uint64_t total;
};

static inline uint64_t sym_round_up(uint64_t x, uint64_t a)
{
    return (x + a - 1) / a * a;
}

/* Compute the layout for the given user heap, mailbox, staging and team
 * region sizes; returns -1 if the total would overflow. */
static inline int sym_heap_layout_compute(uint64_t user_size, uint64_t mailbox_size,
                                          uint64_t staging_size, uint64_t teams_size,
                                          struct sym_heap_layout *l)
{
    const uint64_t limit = UINT64_C(1) << 46; /* 64 TiB: far beyond any machine */
    if (user_size > limit || mailbox_size > limit || staging_size > limit || teams_size > limit)
        return -1;
    l->mailbox_off = SYM_SYNC_OFF + (uint64_t)SYM_SYNC_LINES * SYM_LINE;
    l->mailbox_off = sym_round_up(l->mailbox_off, SYM_PAGE);
    l->mailbox_size = sym_round_up(mailbox_size, SYM_PAGE);
    l->staging_off = l->mailbox_off + l->mailbox_size;
    l->staging_size = sym_round_up(staging_size, SYM_PAGE);
    l->user_off = l->staging_off + l->staging_size;
    l->user_size = sym_round_up(user_size, SYM_PAGE);
    l->teams_off = l->user_off + l->user_size;
    l->teams_size = sym_round_up(teams_size, SYM_PAGE);
    l->total = l->teams_off + l->teams_size;
    return 0;
}

#endif /* SYM_HEAP_LAYOUT_H */
