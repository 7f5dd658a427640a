/*
 * stress_rma.c - RMA steps: puts, gets, strided and signalling forms, with
 * the target range and its margins checked.
 */
#include "stress_private.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

enum rma_kind {
    R_PUT,
    R_PUT_NBI,
    R_IPUT,
    R_P,
    R_PUT_SIG,
    R_PUT_SIG_NBI,
    R_GET,
    R_GET_NBI,
    R_IGET,
    R_G,
    R_NKIND
};

static const char *const rma_names[] = {
    "put", "put_nbi", "iput", "p", "put_signal", "put_signal_nbi", "get", "get_nbi", "iget", "g"};

struct strided {
    size_t es, nelems;
    ptrdiff_t dst_stride, src_stride;
};

/* A strided pattern whose remote span fits in `room` bytes. */
static struct strided pick_strided(struct rng *r, size_t room)
{
    static const size_t sizes[] = {1, 2, 4, 8, 16};
    struct strided s;
    s.es = sizes[rbelow(r, 5)];
    s.dst_stride = (ptrdiff_t)(1 + rbelow(r, 4));
    s.src_stride = (ptrdiff_t)(1 + rbelow(r, 4));
    size_t max = room / (s.es * (size_t)s.dst_stride);
    s.nelems = pick_count(r, max);
    return s;
}

/* Fill the expected image of a region of `bytes` bytes: filler keyed
 * `fill`, with the strided data of the writer (data keyed `data`) laid at
 * byte `off`. */
static void expect_strided(uint8_t *img, size_t off, const struct strided *s, uint64_t data,
                           ptrdiff_t remote_stride, ptrdiff_t local_stride)
{
    for (size_t i = 0; i < s->nelems; i++)
        for (size_t b = 0; b < s->es; b++)
            img[off + i * (size_t)remote_stride * s->es + b] =
                byte_at(data, i * (size_t)local_stride * s->es + b);
}

void step_rma(struct rng *r)
{
    const int me = stress_state.me, n = stress_state.n;
    enum rma_kind kind = (enum rma_kind)rbelow(r, R_NKIND);
    int shift = (int)rbelow(r, (uint64_t)n);
    int tgt = (me + shift) % n, src_pe = (me - shift + n) % n;
    size_t room = stress_state.o.max_bytes;
    size_t sz = pick_count(r, room);
    size_t off = MARGIN + rbelow(r, room - sz + 1);
    struct strided st = pick_strided(r, room);
    size_t soff =
        MARGIN +
        rbelow(r,
               room - (st.nelems ? ((st.nelems - 1) * (size_t)st.dst_stride + 1) * st.es : 0) + 1);
    soff = soff / st.es * st.es;
    int nsingle = 1 + (int)rbelow(r, 8), width = 8 << rbelow(r, 4);
    size_t poff = (MARGIN + rbelow(r, room - 64)) / 8 * 8;
    bool sig_add = rchance(r, 50);
    uint64_t sig_val = sig_add ? 1 + rbelow(r, 1000) : stress_state.step + 1;
    set_what("rma %s shift %d size %zu off %zu strided(es %zu n %zu dst %td src %td @%zu) "
             "single(%d x %d bits)",
             rma_names[kind], shift, sz, off, st.es, st.nelems, st.dst_stride, st.src_stride, soff,
             nsingle, width);

    const uint64_t my_data = key3(stress_state.step, (uint64_t)me, K_DATA);
    const uint64_t peer_data_w =
        key3(stress_state.step, (uint64_t)src_pe, K_DATA);                       /* who writes me */
    const uint64_t peer_data_r = key3(stress_state.step, (uint64_t)tgt, K_DATA); /* whom I read */
    const uint64_t my_fill = key3(stress_state.step, (uint64_t)me, K_FILL);
    /* expected images: the region, or a local buffer with strides up to 4 */
    uint8_t *img = xmalloc(4 * stress_state.rma_bytes + MARGIN);
    const bool is_put = kind <= R_PUT_SIG_NBI;
    uint64_t sig_before = 0;

    if (is_put) {
        fill_bytes(stress_state.rma, stress_state.rma_bytes, my_fill);
        if (kind == R_PUT_SIG || kind == R_PUT_SIG_NBI)
            CALL(sym_signal_fetch(&stress_state.sig_add[src_pe], &sig_before));
    } else {
        fill_bytes(stress_state.rma, stress_state.rma_bytes, my_data);
    }
    sync_world(r);

    uint8_t *local = NULL;
    size_t local_bytes = 0;
    switch (kind) {
    case R_PUT:
    case R_PUT_NBI:
    case R_PUT_SIG:
    case R_PUT_SIG_NBI:
        local = xmalloc(sz);
        fill_bytes(local, sz, my_data);
        if (kind == R_PUT) {
            CALL(sym_put(stress_state.rma + off, local, sz, tgt));
            stress_state.count[CNT_PUT]++;
        } else if (kind == R_PUT_NBI) {
            CALL(sym_put_nbi(stress_state.rma + off, local, sz, tgt));
            CALL(sym_quiet());
            stress_state.count[CNT_PUT_NBI]++;
            stress_state.count[CNT_QUIET]++;
        } else {
            uint64_t *sw = sig_add ? &stress_state.sig_add[me] : &stress_state.sig[me];
            sym_signal_op_t op = sig_add ? SYM_SIGNAL_ADD : SYM_SIGNAL_SET;
            if (kind == R_PUT_SIG) {
                CALL(sym_put_signal(stress_state.rma + off, local, sz, sw, sig_val, op, tgt));
                stress_state.count[CNT_PUT_SIGNAL]++;
            } else {
                CALL(sym_put_signal_nbi(stress_state.rma + off, local, sz, sw, sig_val, op, tgt));
                stress_state.count[CNT_PUT_SIGNAL_NBI]++;
            }
        }
        break;
    case R_IPUT:
        local_bytes = st.nelems ? ((st.nelems - 1) * (size_t)st.src_stride + 1) * st.es : 0;
        local = xmalloc(local_bytes);
        fill_bytes(local, local_bytes, my_data);
        CALL(sym_iput(stress_state.rma + soff, local, st.dst_stride, st.src_stride, st.es,
                      st.nelems, tgt));
        stress_state.count[CNT_IPUT]++;
        break;
    case R_P:
        for (int i = 0; i < nsingle; i++) {
            uint8_t v[8];
            for (int b = 0; b < 8; b++)
                v[b] = byte_at(my_data, (size_t)i * 8 + (size_t)b);
            uint8_t *d = stress_state.rma + poff + (size_t)i * 8;
            uint16_t v16;
            uint32_t v32;
            uint64_t v64;
            memcpy(&v16, v, 2);
            memcpy(&v32, v, 4);
            memcpy(&v64, v, 8);
            switch (width) {
            case 8:
                CALL(sym_p8(d, v[0], tgt));
                break;
            case 16:
                CALL(sym_p16((uint16_t *)(void *)d, v16, tgt));
                break;
            case 32:
                CALL(sym_p32((uint32_t *)(void *)d, v32, tgt));
                break;
            default:
                CALL(sym_p64((uint64_t *)(void *)d, v64, tgt));
                break;
            }
            stress_state.count[CNT_P]++;
        }
        break;
    case R_GET:
    case R_GET_NBI: {
        local_bytes = sz + 2 * MARGIN;
        local = xmalloc(local_bytes);
        uint64_t lfill = key3(stress_state.step, (uint64_t)me, K_FILL + 100);
        fill_bytes(local, local_bytes, lfill);
        if (kind == R_GET) {
            CALL(sym_get(local + MARGIN, stress_state.rma + off, sz, tgt));
            stress_state.count[CNT_GET]++;
        } else {
            CALL(sym_get_nbi(local + MARGIN, stress_state.rma + off, sz, tgt));
            CALL(sym_quiet());
            stress_state.count[CNT_GET_NBI]++;
            stress_state.count[CNT_QUIET]++;
        }
        fill_bytes(img, local_bytes, lfill);
        for (size_t i = 0; i < sz; i++)
            img[MARGIN + i] = byte_at(peer_data_r, off + i);
        check_buf(local, img, local_bytes, 1, "get destination");
        break;
    }
    case R_IGET: {
        /* here dst_stride is the remote (source) stride, src_stride the local one */
        local_bytes =
            (st.nelems ? ((st.nelems - 1) * (size_t)st.src_stride + 1) * st.es : 0) + MARGIN;
        local = xmalloc(local_bytes);
        uint64_t lfill = key3(stress_state.step, (uint64_t)me, K_FILL + 100);
        fill_bytes(local, local_bytes, lfill);
        CALL(sym_iget(local, stress_state.rma + soff, st.src_stride, st.dst_stride, st.es,
                      st.nelems, tgt));
        stress_state.count[CNT_IGET]++;
        fill_bytes(img, local_bytes, lfill);
        for (size_t i = 0; i < st.nelems; i++)
            for (size_t b = 0; b < st.es; b++)
                img[i * (size_t)st.src_stride * st.es + b] =
                    byte_at(peer_data_r, soff + i * (size_t)st.dst_stride * st.es + b);
        check_buf(local, img, local_bytes, st.es, "iget destination");
        break;
    }
    case R_G:
        for (int i = 0; i < nsingle; i++) {
            const uint8_t *s = stress_state.rma + poff + (size_t)i * 8;
            uint64_t got = 0, want = 0;
            switch (width) {
            case 8: {
                uint8_t v;
                CALL(sym_g8(&v, s, tgt));
                got = v;
                break;
            }
            case 16: {
                uint16_t v;
                CALL(sym_g16(&v, (const uint16_t *)(const void *)s, tgt));
                got = v;
                break;
            }
            case 32: {
                uint32_t v;
                CALL(sym_g32(&v, (const uint32_t *)(const void *)s, tgt));
                got = v;
                break;
            }
            default:
                CALL(sym_g64(&got, (const uint64_t *)(const void *)s, tgt));
                break;
            }
            stress_state.count[CNT_G]++;
            for (int b = 0; b < width / 8; b++)
                want |= (uint64_t)byte_at(peer_data_r, poff + (size_t)i * 8 + (size_t)b) << (8 * b);
            if (got != want)
                wrong("g%d #%d from PE %d: got 0x%" PRIx64 ", expected 0x%" PRIx64, width, i, tgt,
                      got, want);
        }
        break;
    default:
        break;
    }

    if (is_put) {
        if (kind == R_PUT_SIG || kind == R_PUT_SIG_NBI) {
            uint64_t *sw = sig_add ? &stress_state.sig_add[src_pe] : &stress_state.sig[src_pe];
            /* the writer of this PE drew the same signal value */
            uint64_t want = sig_add ? sig_before + sig_val : sig_val, seen = 0;
            sym_cmp_t cmp = rchance(r, 50) ? SYM_CMP_EQ : SYM_CMP_GE;
            CALL(sym_signal_wait_until(sw, cmp, want, &seen));
            stress_state.count[CNT_SIGNAL_WAIT]++;
            if (seen != want)
                wrong("signal from PE %d: wait returned %" PRIu64 ", expected %" PRIu64, src_pe,
                      seen, want);
            if (kind == R_PUT_SIG_NBI) {
                CALL(sym_quiet()); /* before our own source buffer is freed */
                stress_state.count[CNT_QUIET]++;
            }
        } else {
            sync_world(r);
        }
        fill_bytes(img, stress_state.rma_bytes, my_fill);
        if (kind == R_PUT || kind == R_PUT_NBI || kind == R_PUT_SIG || kind == R_PUT_SIG_NBI) {
            for (size_t i = 0; i < sz; i++)
                img[off + i] = byte_at(peer_data_w, i);
        } else if (kind == R_IPUT) {
            expect_strided(img, soff, &st, peer_data_w, st.dst_stride, st.src_stride);
        } else {
            for (int i = 0; i < nsingle; i++)
                for (int b = 0; b < width / 8; b++)
                    img[poff + (size_t)i * 8 + (size_t)b] =
                        byte_at(peer_data_w, (size_t)i * 8 + (size_t)b);
        }
        check_buf(stress_state.rma, img, stress_state.rma_bytes, kind == R_IPUT ? st.es : 1,
                  "put target region");
    }
    sync_world(r);
    free(local);
    free(img);
}
