/*
 * fuzz_wire.c - libFuzzer target for the decoding of what other PEs write
 * into this PE's mailboxes (src/coll/wire.c).
 *
 * Input: one byte choosing the channel's chunk size, then 64-byte chunk
 * headers.  The headers go through a model of a point-to-point link's
 * receiver: each one sym_p2p_chunk_check() accepts has its payload copied
 * into a buffer of exactly the message's size, so AddressSanitizer catches
 * any header the check lets through that would write past it.  Every
 * header's fingerprint is also turned into text, and its first eight bytes
 * decoded as a team poison word.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "coll/wire.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_MESSAGE ((uint64_t)1 << 20) /* larger ones are only tracked */

static uint8_t payload[64 * 1024]; /* what a slot would hold */

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1)
        return 0;
    const size_t chunk = 64 * (1 + (size_t)(data[0] % 16)); /* 64 .. 1024 */
    data++, size--;

    struct sym_p2p_partial part = {0, 0, 0};
    bool in_message = false;
    uint8_t *msg = NULL;
    for (; size >= sizeof(struct sym_chunk_hdr);
         data += sizeof(struct sym_chunk_hdr), size -= sizeof(struct sym_chunk_hdr)) {
        struct sym_chunk_hdr h;
        memcpy(&h, data, sizeof(h));

        char text[200];
        sym_fp_text(&h.fp, text, 1 + data[1] % sizeof(text));
        uint64_t word;
        memcpy(&word, data, sizeof(word));
        int team_size = 1 + data[2] % 64, member = -2;
        if (word) { /* zero means "not poisoned" and is never decoded */
            sym_status_t st = sym_poison_decode(word, team_size, &member);
            if (member < -1 || member >= team_size)
                abort(); /* the member must be usable as an index, or -1 */
            if (st >= SYM_OK || !strcmp(sym_status_name(st), "SYM_ERR_UNKNOWN"))
                abort(); /* a poisoned team reports a known error, never success */
        }

        if (sym_p2p_chunk_check(&h, chunk, in_message ? &part : NULL) != NULL)
            continue; /* refused: the receiver reports it and stops */
        if (h.len > chunk)
            abort();
        if (!in_message) {
            free(msg);
            msg = NULL;
            part = (struct sym_p2p_partial){h.msg_bytes, 0, h.fp.root};
            if (h.msg_bytes <= MAX_MESSAGE && !(msg = malloc(h.msg_bytes ? h.msg_bytes : 1)))
                return 0;
        }
        if (part.have + h.len > part.bytes)
            abort();
        if (msg && h.len)
            memcpy(msg + part.have, payload, h.len);
        part.have += h.len;
        in_message = part.have < part.bytes;
    }
    free(msg);
    return 0;
}
