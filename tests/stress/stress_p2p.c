/*
 * stress_p2p.c - point-to-point steps: send, recv and sendrecv, including
 * truncated receives.
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

static void p2p_check(const uint8_t *buf, size_t got, size_t want_bytes, uint64_t key,
                      const char *what)
{
    if (got != want_bytes) {
        wrong("%s: received %zu bytes, expected %zu", what, got, want_bytes);
        return;
    }
    uint8_t *w = xmalloc(want_bytes);
    fill_bytes(w, want_bytes, key);
    check_buf(buf, w, want_bytes, 1, what);
    free(w);
}

void step_p2p(struct rng *r)
{
    const int me = stress_state.me, n = stress_state.n;
    if (n < 2) {
        set_what("p2p skipped (1 PE)");
        return;
    }
    size_t max = stress_state.o.max_bytes;
    if (rchance(r, 40)) {
        int shift = 1 + (int)rbelow(r, (uint64_t)n - 1);
        int to = (me + shift) % n, from = (me - shift + n) % n;
        size_t sz[MAXPE];
        int tags[MAXPE];
        for (int p = 0; p < n; p++) {
            sz[p] = pick_count(r, max);
            tags[p] = (int)rbelow(r, 1000);
        }
        bool any = rchance(r, 30);
        set_what("sendrecv ring shift %d%s", shift, any ? " (any tag)" : "");
        uint8_t *sb = xmalloc(sz[me]), *rb = xmalloc(sz[from] + 16);
        fill_bytes(sb, sz[me], key3(stress_state.step, (uint64_t)me, K_DATA));
        size_t got = SIZE_MAX;
        CALL(sym_sendrecv(sb, sz[me], to, tags[me], rb, sz[from] + 16, from,
                          any ? SYM_ANY_TAG : tags[from], &got));
        stress_state.count[CNT_SENDRECV]++;
        p2p_check(rb, got, sz[from], key3(stress_state.step, (uint64_t)from, K_DATA),
                  "sendrecv message");
        free(sb);
        free(rb);
        CALL(sym_barrier_all());
        stress_state.count[CNT_BARRIER_ALL]++;
        return;
    }
    /* pairs: A sends k messages to B, B receives them in some order, then back */
    int perm[MAXPE];
    for (int i = 0; i < n; i++)
        perm[i] = i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)rbelow(r, (uint64_t)i + 1), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    int k = 1 + (int)rbelow(r, 4);
    size_t sz[2][4];
    int tags[2][4], rorder[2][4];
    bool in_order[2], trunc[2][4];
    for (int d = 0; d < 2; d++) {
        for (int i = 0; i < k; i++) {
            sz[d][i] = rchance(r, 70) ? pick_count(r, 2048) : pick_count(r, max);
            tags[d][i] = i * 7 + (int)rbelow(r, 7); /* distinct */
            rorder[d][i] = i;
            trunc[d][i] = rchance(r, 15);
        }
        in_order[d] = rchance(r, 40);
        if (!in_order[d])
            for (int i = k - 1; i > 0; i--) {
                int j = (int)rbelow(r, (uint64_t)i + 1), t = rorder[d][i];
                rorder[d][i] = rorder[d][j];
                rorder[d][j] = t;
            }
    }
    set_what("p2p pairs, %d messages each way", k);
    int pos = -1;
    for (int i = 0; i < n; i++)
        if (perm[i] == me)
            pos = i;
    if (pos / 2 * 2 + 1 < n) {
        bool first = pos % 2 == 0;
        int peer = perm[first ? pos + 1 : pos - 1];
        for (int phase = 0; phase < 2; phase++) {
            bool sending = (phase == 0) == first;
            int d = phase; /* direction 0: first -> second */
            if (sending) {
                for (int i = 0; i < k; i++) {
                    uint8_t *b = xmalloc(sz[d][i]);
                    fill_bytes(b, sz[d][i],
                               key3(stress_state.step, (uint64_t)(me * 8 + i), K_DATA));
                    CALL(sym_send(b, sz[d][i], peer, tags[d][i]));
                    stress_state.count[CNT_SEND]++;
                    free(b);
                }
            } else {
                for (int j = 0; j < k; j++) {
                    int i = rorder[d][j];
                    int tag = in_order[d] && (j % 2) ? SYM_ANY_TAG : tags[d][i];
                    uint8_t *b = xmalloc(sz[d][i] + 8);
                    size_t got = SIZE_MAX;
                    if (trunc[d][i] && sz[d][i] > 0) {
                        sym_status_t st = sym_recv(b, sz[d][i] - 1, peer, tag, &got);
                        stress_state.count[CNT_TRUNCATED]++;
                        if (st != SYM_ERR_TRUNCATED || got != sz[d][i])
                            wrong("recv of %zu bytes into %zu: %s, size %zu (expected "
                                  "SYM_ERR_TRUNCATED and the size)",
                                  sz[d][i], sz[d][i] - 1, sym_status_name(st), got);
                    }
                    CALL(sym_recv(b, sz[d][i] + 8, peer, tag, &got));
                    stress_state.count[CNT_RECV]++;
                    char what[64];
                    snprintf(what, sizeof(what), "message %d (tag %d) from PE %d", i, tags[d][i],
                             peer);
                    p2p_check(b, got, sz[d][i],
                              key3(stress_state.step, (uint64_t)(peer * 8 + i), K_DATA), what);
                    free(b);
                }
            }
        }
    }
    CALL(sym_barrier_all());
    stress_state.count[CNT_BARRIER_ALL]++;
}
