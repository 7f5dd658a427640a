/*
 * bench_ofi_raw.c - the raw-libfabric baseline for the ofi transport: what
 * fi_write and a memory-polling ping-pong get on a provider without symheap
 * in between, in the style of fabtests' fi_rma_bw and fi_rdm_pingpong.
 * Two processes (a fork), addresses exchanged over a socketpair, one RDM
 * endpoint each with the same hints symheap uses.
 *
 *   build/bench/bench_ofi_raw [provider] [max-size]     (default tcp;ofi_rxm, 1M)
 *
 * Prints, per size: write latency (fi_write + counter wait, one in flight,
 * what a blocking sym_put + sym_quiet costs), write bandwidth with 64 writes
 * in flight, and the one-way latency of an 8-byte write ping-pong where each
 * side polls its own memory while driving progress (sym_p64 +
 * sym_wait_until).  Every transfer is verified at the end of each size.
 */
#include <inttypes.h>
#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define WINDOW 64
#define FLAG_OFF 0        /* ping-pong word */
#define DONE_OFF 64       /* bandwidth phase: target stops polling */
#define DATA_OFF 4096

#define CHECK(call)                                                                   \
    do {                                                                              \
        int rc_ = (int)(call);                                                        \
        if (rc_) {                                                                    \
            fprintf(stderr, "bench_ofi_raw: %s failed: %s\n", #call, fi_strerror(-rc_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

struct peer_card {
    uint64_t base, key;
    size_t addrlen;
    uint8_t addr[256];
};

static struct fid_ep *ep;
static struct fid_cq *cq;
static struct fid_cntr *cntr;
static fi_addr_t peer;
static uint64_t rbase, rkey, issued;
static uint8_t *buf;
static void *desc;
static size_t inject_size;

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void progress(void)
{
    struct fi_cq_entry e[4];
    if (fi_cq_read(cq, e, 4) == -FI_EAVAIL) {
        struct fi_cq_err_entry err = { 0 };
        fi_cq_readerr(cq, &err, 0);
        fprintf(stderr, "bench_ofi_raw: completion error %s\n", fi_strerror(err.err));
        exit(1);
    }
}

static void wait_all(void)
{
    while (fi_cntr_read(cntr) < issued)
        progress();
}

static void write_to_peer(const void *src, size_t len, uint64_t off)
{
    ssize_t rc;
    while ((rc = len <= inject_size
                     ? fi_inject_write(ep, src, len, peer, rbase + off, rkey)
                     : fi_write(ep, src, len, desc, peer, rbase + off, rkey, NULL)) == -FI_EAGAIN)
        progress();
    CHECK(rc);
    issued++;
}

static void poll_word(volatile uint64_t *w, uint64_t v)
{
    while (*w < v)
        progress();
}

static void run(int rank, int sock, const char *prov, size_t max)
{
    struct fi_info *hints = fi_allocinfo(), *info = NULL;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_RMA | FI_ATOMIC;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode = FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED |
                                  FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    hints->fabric_attr->prov_name = strdup(prov);
    CHECK(fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info));
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
    CHECK(fi_domain(fabric, info, &domain, NULL));
    struct fi_av_attr av_attr = { .type = FI_AV_TABLE, .count = 2 };
    CHECK(fi_av_open(domain, &av_attr, &av, NULL));
    struct fi_cq_attr cq_attr = { .format = FI_CQ_FORMAT_CONTEXT, .size = 128 };
    CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));
    struct fi_cntr_attr cntr_attr = { .events = FI_CNTR_EVENTS_COMP };
    CHECK(fi_cntr_open(domain, &cntr_attr, &cntr, NULL));
    CHECK(fi_endpoint(domain, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CHECK(fi_ep_bind(ep, &cntr->fid, FI_WRITE | FI_READ));
    CHECK(fi_enable(ep));
    inject_size = info->tx_attr->inject_size;
    size_t len = DATA_OFF + 2 * max;
    if (posix_memalign((void **)&buf, 4096, len))
        exit(1);
    memset(buf, 0, len);
    struct fid_mr *mr;
    CHECK(fi_mr_reg(domain, buf, len, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0,
                    1, 0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        CHECK(fi_mr_bind(mr, &ep->fid, 0));
        CHECK(fi_mr_enable(mr));
    }
    desc = fi_mr_desc(mr);
    struct peer_card mine = { 0 }, theirs;
    mine.addrlen = sizeof(mine.addr);
    CHECK(fi_getname(&ep->fid, mine.addr, &mine.addrlen));
    mine.key = fi_mr_key(mr);
    mine.base = (info->domain_attr->mr_mode & FI_MR_VIRT_ADDR) ? (uint64_t)(uintptr_t)buf : 0;
    if (write(sock, &mine, sizeof(mine)) != sizeof(mine) ||
        read(sock, &theirs, sizeof(theirs)) != sizeof(theirs))
        exit(1);
    rbase = theirs.base;
    rkey = theirs.key;
    if (fi_av_insert(av, theirs.addr, 1, &peer, 0, NULL) != 1)
        exit(1);

    volatile uint64_t *flag = (volatile uint64_t *)(buf + FLAG_OFF);
    volatile uint64_t *done = (volatile uint64_t *)(buf + DONE_OFF);
    uint8_t *src = buf + DATA_OFF + max, *dst = buf + DATA_OFF;
    uint64_t seq = 0, phase = 0;
    if (rank == 0)
        printf("# bench_ofi_raw: provider %s, inject %zu B, %d writes in flight for bandwidth\n"
               "# %10s %14s %14s %12s %8s\n",
               info->fabric_attr->prov_name, inject_size, WINDOW, "size", "write_lat_ns",
               "bw_MB/s", "pingpong_ns", "#wrong");
    /* Ping-pong: 8-byte writes of a sequence number, each side polling. */
    const int pp_iters = 2000;
    for (int i = 0; i < 200; i++) { /* warm-up, connection set-up */
        if (rank == 0) {
            seq++;
            write_to_peer(&seq, 8, FLAG_OFF);
            poll_word(flag, seq);
        } else {
            poll_word(flag, ++seq);
            write_to_peer(&seq, 8, FLAG_OFF);
        }
    }
    uint64_t t0 = now_ns();
    for (int i = 0; i < pp_iters; i++) {
        if (rank == 0) {
            seq++;
            write_to_peer(&seq, 8, FLAG_OFF);
            poll_word(flag, seq);
        } else {
            poll_word(flag, ++seq);
            write_to_peer(&seq, 8, FLAG_OFF);
        }
    }
    double pp = (double)(now_ns() - t0) / pp_iters / 2;
    wait_all();
    for (size_t size = 8; size <= max; size *= 4) {
        phase++;
        if (rank == 1) { /* target: drive progress until the initiator says done */
            poll_word(done, phase);
            continue;
        }
        for (size_t k = 0; k < size; k++)
            src[k] = (uint8_t)(k * 7 + size + phase);
        int lat_iters = size >= 65536 ? 200 : 1000;
        t0 = now_ns();
        for (int i = 0; i < lat_iters; i++) {
            write_to_peer(src, size, DATA_OFF);
            wait_all();
        }
        double lat = (double)(now_ns() - t0) / lat_iters;
        int bw_rounds = size >= 65536 ? 10 : 50;
        t0 = now_ns();
        for (int r = 0; r < bw_rounds; r++) {
            for (int w = 0; w < WINDOW; w++)
                write_to_peer(src, size, DATA_OFF);
            wait_all();
        }
        double secs = (double)(now_ns() - t0) / 1e9;
        double bw = (double)size * WINDOW * bw_rounds / secs / 1e6;
        /* Verify: read the target's copy back. */
        while (fi_read(ep, dst, size, desc, peer, rbase + DATA_OFF, rkey, NULL) == -FI_EAGAIN)
            progress();
        issued++;
        wait_all();
        uint64_t wrong = 0;
        for (size_t k = 0; k < size; k++)
            wrong += dst[k] != src[k];
        write_to_peer(&phase, 8, DONE_OFF);
        wait_all();
        printf("  %10zu %14.0f %14.1f %12.0f %8" PRIu64 "\n", size, lat, bw, pp, wrong);
        fflush(stdout);
    }
    /* Keep progressing until the peer is done with us. */
    char c = 0;
    if (write(sock, &c, 1) != 1 || read(sock, &c, 1) != 1)
        exit(1);
    fi_close(&mr->fid);
    fi_close(&ep->fid);
    fi_close(&av->fid);
    fi_close(&cq->fid);
    fi_close(&cntr->fid);
    fi_close(&domain->fid);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    free(buf);
}

int main(int argc, char **argv)
{
    const char *prov = argc > 1 ? argv[1] : "tcp;ofi_rxm";
    size_t max = argc > 2 ? strtoull(argv[2], NULL, 0) : 1u << 20;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv))
        return 1;
    pid_t child = fork();
    if (child < 0)
        return 1;
    if (child == 0) {
        close(sv[0]);
        run(1, sv[1], prov, max);
        _exit(0);
    }
    close(sv[1]);
    run(0, sv[0], prov, max);
    int ws = 0;
    waitpid(child, &ws, 0);
    return WIFEXITED(ws) && WEXITSTATUS(ws) == 0 ? 0 : 1;
}
