/* coll_msg.c - whole messages and single chunks over the channel. */
#include <string.h>

#include "coll/coll.h"

sym_status_t sym_msg_send_chunk(struct sym_coll *c, int dst, const void *buf, size_t bytes,
                                size_t i)
{
    size_t len = sym_msg_chunk_len(c, bytes, i);
    const uint8_t *p = len ? (const uint8_t *)buf + i * c->team->chan.chunk : NULL;
    return sym_chan_send(c, dst, p, len, bytes);
}

/* Receive chunk i of a `bytes`-byte message from src, checking that the
 * sender agrees on the message size (all_to_allv, all_gatherv counts). */
static sym_status_t recv_checked(struct sym_coll *c, int src, size_t bytes, size_t i,
                                 const void **data_p, size_t *len_p)
{
    uint64_t total;
    sym_status_t st = sym_chan_recv_msg(c, src, bytes, data_p, len_p, &total);
    if (st != SYM_OK)
        return st;
    if (total == bytes && *len_p == sym_msg_chunk_len(c, bytes, i))
        return SYM_OK;
    char msg[256];
    snprintf(msg, sizeof(msg), "PE %d sent %llu bytes where PE %d expected %zu from it",
             c->team->pe_of[src], (unsigned long long)total, sym_rt.me, bytes);
    sym_chan_poison(c, SYM_ERR_MISMATCH, msg);
    return sym_error(SYM_ERR_MISMATCH, "%s #%llu on %s: %s", c->name, (unsigned long long)c->fp.seq,
                     c->team->name, msg);
}

sym_status_t sym_msg_recv_chunk(struct sym_coll *c, int src, void *buf, size_t bytes, size_t i)
{
    const void *data;
    size_t len;
    sym_status_t st = recv_checked(c, src, bytes, i, &data, &len);
    if (st != SYM_OK)
        return st;
    if (len)
        memcpy((uint8_t *)buf + i * c->team->chan.chunk, data, len);
    return sym_chan_release(c, src);
}

sym_status_t sym_msg_recv_reduce_chunk(struct sym_coll *c, int src, void *acc, size_t bytes,
                                       size_t i, sym_datatype_t dt, sym_op_t op, size_t esize)
{
    const void *data;
    size_t len;
    sym_status_t st = recv_checked(c, src, bytes, i, &data, &len);
    if (st != SYM_OK)
        return st;
    if (len)
        sym_reduce_apply(dt, op, (uint8_t *)acc + i * c->team->chan.chunk, data, len / esize);
    return sym_chan_release(c, src);
}

sym_status_t sym_msg_send(struct sym_coll *c, int dst, const void *buf, size_t bytes)
{
    size_t n = sym_msg_chunks(c, bytes);
    for (size_t i = 0; i < n; i++) {
        sym_status_t st = sym_msg_send_chunk(c, dst, buf, bytes, i);
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

sym_status_t sym_msg_recv(struct sym_coll *c, int src, void *buf, size_t bytes)
{
    size_t n = sym_msg_chunks(c, bytes);
    for (size_t i = 0; i < n; i++) {
        sym_status_t st = sym_msg_recv_chunk(c, src, buf, bytes, i);
        if (st != SYM_OK)
            return st;
    }
    return SYM_OK;
}

sym_status_t sym_msg_recv_reduce3_chunk(struct sym_coll *c, int src, void *dst, const void *a,
                                        size_t bytes, size_t i, sym_datatype_t dt, sym_op_t op,
                                        size_t esize)
{
    const void *data;
    size_t len;
    sym_status_t st = recv_checked(c, src, bytes, i, &data, &len);
    if (st != SYM_OK)
        return st;
    if (len) {
        const size_t off = i * c->team->chan.chunk;
        sym_reduce_apply3(dt, op, (uint8_t *)dst + off, (const uint8_t *)a + off, data,
                          len / esize);
    }
    return sym_chan_release(c, src);
}

/* The first two terms are combined in one pass straight out of the
 * mailbox slots (x_0 op x_1 into dst), which saves copying the first term
 * into dst and reading it back: on shared memory the bytes moved are the
 * cost.  The expression, and so every bit, is the same as folding term by
 * term. */
sym_status_t sym_msg_reduce_chunk_in_order(struct sym_coll *c, void *dst, const void *own,
                                           size_t bytes, size_t i, sym_datatype_t dt, sym_op_t op)
{
    const int n = c->team->size, me = c->team->rank;
    const size_t es = sym_datatype_size(dt), len = sym_msg_chunk_len(c, bytes, i);
    uint8_t *d = len ? (uint8_t *)dst + i * c->team->chan.chunk : NULL;
    if (n == 1) {
        if (len && d != own)
            memmove(d, own, len);
        return SYM_OK;
    }
    const void *term[2];
    sym_status_t st = SYM_OK;
    for (int r = 0; r < 2 && st == SYM_OK; r++) {
        size_t got;
        if (r == me)
            term[r] = own;
        else
            st = recv_checked(c, r, bytes, i, &term[r], &got);
    }
    if (st != SYM_OK)
        return st;
    if (len)
        sym_reduce_apply3(dt, op, d, term[0], term[1], len / es);
    for (int r = 0; r < 2 && st == SYM_OK; r++)
        if (r != me)
            st = sym_chan_release(c, r);
    for (int r = 2; r < n && st == SYM_OK; r++) {
        if (r != me)
            st = sym_msg_recv_reduce_chunk(c, r, dst, bytes, i, dt, op, es);
        else if (len) /* my term combined with the ones before it */
            sym_reduce_apply(dt, op, d, own, len / es);
    }
    return st;
}
