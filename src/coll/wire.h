/*
 * wire.h - reading what other PEs wrote into this PE's mailboxes.
 *
 * Chunk headers, fingerprints and poison words are written by other
 * processes.  These functions turn them into decisions and text without
 * trusting any field, and touch nothing but their arguments, so they can be
 * fuzzed on their own (fuzz/fuzz_wire.c).
 */
#ifndef SYM_COLL_WIRE_H
#define SYM_COLL_WIRE_H

#include <stddef.h>
#include <stdint.h>

#include "coll/chan.h"
#include "symheap.h"

/* Fingerprint kind of point-to-point chunks (beyond every collective kind). */
#define SYM_COLL_P2P 100u

/* The call number a PE publishes once it makes no more calls on a team
 * (sym_finalize): later than every call. */
#define SYM_FP_FINAL UINT64_MAX

/* "allreduce #12 (int32, sum, count 5, root -1, ring)" into buf (always
 * NUL-terminated when len > 0), with ", hash h" before the root when
 * fp.layout is set (all_gatherv counts, strict mode's call site). */
void sym_fp_text(const struct sym_fp *fp, char *buf, size_t len);

/* The team poison word: which member reported, and the status it reports. */
uint64_t sym_poison_word(int member, sym_status_t status);

/* Decode a non-zero poison word of a team of `size` members: returns the
 * reported error (SYM_ERR_INTERNAL if the word holds none) and sets
 * *member_p to the reporting member, or -1 if it names no member. */
sym_status_t sym_poison_decode(uint64_t word, int size, int *member_p);

/* Where a point-to-point link is inside a message: `bytes` in total, `have`
 * of them received, sent with tag `tag`. */
struct sym_p2p_partial {
    uint64_t bytes;
    uint64_t have;
    int tag;
};

/* Check the header of the next chunk on a point-to-point link whose slots
 * carry `chunk` payload bytes: the first chunk of a message when `partial`
 * is NULL, else the next chunk of that message.  Returns NULL if the chunk
 * is what a sender of this library writes there (so its payload fits the
 * message), else a short description of what is wrong. */
const char *sym_p2p_chunk_check(const struct sym_chunk_hdr *h, size_t chunk,
                                const struct sym_p2p_partial *partial);

#endif /* SYM_COLL_WIRE_H */
