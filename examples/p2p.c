/*
 * p2p.c - point-to-point messages: each PE sends a message to its right
 * neighbour and receives one from its left, then PE 0 gathers a line from
 * every PE in whatever order they arrive (SYM_ANY_PE).
 *
 *   symcc p2p.c -o p2p && symrun -n 4 ./p2p
 */
#include <stdio.h>
#include <string.h>

#include <symheap.h>

#define CHECK(call)                                                                                \
    do {                                                                                           \
        sym_status_t st_ = (call);                                                                 \
        if (st_ != SYM_OK) {                                                                       \
            fprintf(stderr, "PE %d: %s: %s\n", sym_my_pe(), #call, sym_last_error());              \
            return 1;                                                                              \
        }                                                                                          \
    } while (0)

enum { TAG_RING = 1, TAG_REPORT = 2 };

int main(void)
{
    CHECK(sym_init());
    int me = sym_my_pe(), n = sym_n_pes();
    int right = (me + 1) % n, left = (me + n - 1) % n;

    /* Send and receive at once: never deadlocks, whatever the sizes (a PE
     * alone has no one to exchange with: messages go to other PEs). */
    int out[256], in[256];
    for (int i = 0; i < 256; i++)
        out[i] = me * 1000 + i;
    size_t got = sizeof(in);
    if (n > 1)
        CHECK(
            sym_sendrecv(out, sizeof(out), right, TAG_RING, in, sizeof(in), left, TAG_RING, &got));
    else
        memcpy(in, out, sizeof(in));
    if (got != sizeof(in) || in[0] != left * 1000 || in[255] != left * 1000 + 255) {
        fprintf(stderr, "PE %d: wrong message from PE %d\n", me, left);
        return 1;
    }

    /* Every PE reports to PE 0, which takes the reports as they come. */
    char line[64];
    snprintf(line, sizeof(line), "PE %d received PE %d's message", me, left);
    if (me != 0) {
        CHECK(sym_send(line, strlen(line) + 1, 0, TAG_REPORT));
    } else {
        puts(line);
        for (int k = 1; k < n; k++) {
            sym_msg_status_t from;
            CHECK(sym_recv_opts(line, sizeof(line), SYM_ANY_PE, TAG_REPORT, NULL, &from));
            printf("%s (from PE %d, %zu bytes)\n", line, from.source, from.nbytes);
        }
    }
    CHECK(sym_finalize());
    return 0;
}
