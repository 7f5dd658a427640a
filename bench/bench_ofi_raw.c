/*
 * bench_ofi_raw.c - the raw-libfabric baseline for the ofi transport: what
 * libfabric itself gets on a provider without symheap in between, in the
 * style of fabtests' fi_rma_bw and fi_rdm_pingpong.  Two processes (a
 * fork), addresses exchanged over a socketpair, one RDM endpoint each with
 * the hints symheap uses (FI_DELIVERY_COMPLETE writes).
 *
 *   build/bench/bench_ofi_raw [provider] [max-size]     (default tcp;ofi_rxm, 1M)
 *
 * The twin of bench_ofi_sym.c (same sizes, counts, output columns): per
 * size (1 B, x4, up to max-size) process 0 times
 *   put_lat   fi_write + counter wait, one at a time
 *   get_lat   fi_read + counter wait
 *   bw_block  one fi_write in flight (wait for each)
 *   bw_win    64 fi_writes in flight, one counter wait per window
 * and once an 8-byte fi_fetch_atomic FI_SUM (fetch-add).  Writes are never
 * injected: an injected write's completion means "sent", and symheap's
 * quiet must mean "landed".  Process 1 meanwhile polls a word of its own
 * memory, calling fi_cq_read between polls (the provider needs it for
 * manual progress), until process 0 writes it.  Every size is verified.
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

#define WINDOW      64
#define DONE_OFF    0  /* phase word: the target polls it */
#define COUNTER_OFF 64 /* fetch-add target */
#define OPERAND_OFF 128
#define OLD_OFF     192
#define DATA_OFF    4096

#define CHECK(call)                                                                                \
    do {                                                                                           \
        int rc_ = (int)(call);                                                                     \
        if (rc_) {                                                                                 \
            fprintf(stderr, "bench_ofi_raw: %s failed: %s\n", #call, fi_strerror(-rc_));           \
            exit(1);                                                                               \
        }                                                                                          \
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
        struct fi_cq_err_entry err = {0};
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
    while ((rc = fi_write(ep, src, len, desc, peer, rbase + off, rkey, NULL)) == -FI_EAGAIN)
        progress();
    CHECK(rc);
    issued++;
}

static void read_from_peer(void *dst, size_t len, uint64_t off)
{
    ssize_t rc;
    while ((rc = fi_read(ep, dst, len, desc, peer, rbase + off, rkey, NULL)) == -FI_EAGAIN)
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
    hints->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    hints->fabric_attr->prov_name = strdup(prov);
    CHECK(fi_getinfo(FI_VERSION(1, 9), NULL, NULL, 0, hints, &info));
    struct fid_fabric *fabric;
    struct fid_domain *domain;
    struct fid_av *av;
    CHECK(fi_fabric(info->fabric_attr, &fabric, NULL));
    CHECK(fi_domain(fabric, info, &domain, NULL));
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE, .count = 2};
    CHECK(fi_av_open(domain, &av_attr, &av, NULL));
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT, .size = 128};
    CHECK(fi_cq_open(domain, &cq_attr, &cq, NULL));
    struct fi_cntr_attr cntr_attr = {.events = FI_CNTR_EVENTS_COMP};
    CHECK(fi_cntr_open(domain, &cntr_attr, &cntr, NULL));
    CHECK(fi_endpoint(domain, info, &ep, NULL));
    CHECK(fi_ep_bind(ep, &av->fid, 0));
    CHECK(fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV | FI_SELECTIVE_COMPLETION));
    CHECK(fi_ep_bind(ep, &cntr->fid, FI_WRITE | FI_READ));
    CHECK(fi_enable(ep));
    size_t len = DATA_OFF + 3 * max;
    if (posix_memalign((void **)&buf, 4096, len))
        exit(1);
    memset(buf, 0, len);
    struct fid_mr *mr;
    CHECK(fi_mr_reg(domain, buf, len, FI_READ | FI_WRITE | FI_REMOTE_READ | FI_REMOTE_WRITE, 0, 1,
                    0, &mr, NULL));
    if (info->domain_attr->mr_mode & FI_MR_ENDPOINT) {
        CHECK(fi_mr_bind(mr, &ep->fid, 0));
        CHECK(fi_mr_enable(mr));
    }
    desc = fi_mr_desc(mr);
    struct peer_card mine = {0}, theirs;
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

    volatile uint64_t *done = (volatile uint64_t *)(buf + DONE_OFF);
    uint64_t *counter = (uint64_t *)(buf + COUNTER_OFF);
    uint64_t *operand = (uint64_t *)(buf + OPERAND_OFF), *old = (uint64_t *)(buf + OLD_OFF);
    uint8_t *src = buf + DATA_OFF + 2 * max, *back = buf + DATA_OFF + max; /* target: DATA_OFF */
    uint64_t phase = 0, wrong_total = 0;
    if (rank == 0)
        printf("# bench_ofi_raw: provider %s, %d writes in flight for bw_win\n"
               "# %10s %12s %12s %12s %12s %8s\n",
               info->fabric_attr->prov_name, WINDOW, "size", "put_lat_ns", "get_lat_ns",
               "bw_block_MB/s", "bw_win_MB/s", "#wrong");
    /* fetch-add: 8 bytes on process 1's counter, each old value checked. */
    phase++;
    if (rank == 1) {
        poll_word(done, phase);
    } else {
        const int iters = 1000;
        uint64_t wrong = 0, t_start = 0;
        *operand = 1;
        for (int i = 0; i < 100 + iters; i++) {
            if (i == 100)
                t_start = now_ns();
            while (fi_fetch_atomic(ep, operand, 1, desc, old, desc, peer, rbase + COUNTER_OFF, rkey,
                                   FI_UINT64, FI_SUM, NULL) == -FI_EAGAIN)
                progress();
            issued++;
            wait_all();
            wrong += *old != (uint64_t)i;
        }
        double lat = (double)(now_ns() - t_start) / iters;
        read_from_peer(back, 8, COUNTER_OFF);
        wait_all();
        memcpy(counter, back, 8);
        wrong += *counter != (uint64_t)(100 + iters);
        wrong_total += wrong;
        printf("  fadd %12.0f %8" PRIu64 "\n", lat, wrong);
        write_to_peer(&phase, 8, DONE_OFF);
        wait_all();
    }
    for (size_t size = 1; size <= max; size *= 4) {
        phase++;
        if (rank == 1) { /* target: drive progress until the initiator says done */
            poll_word(done, phase);
            continue;
        }
        for (size_t k = 0; k < size; k++)
            src[k] = (uint8_t)(k * 7 + size + phase);
        memset(back, 0, size);
        for (int i = 0; i < 20; i++) { /* warm-up */
            write_to_peer(src, size, DATA_OFF);
            wait_all();
        }
        int lat_iters = size >= 65536 ? 100 : 500;
        uint64_t t0 = now_ns();
        for (int i = 0; i < lat_iters; i++) {
            write_to_peer(src, size, DATA_OFF);
            wait_all();
        }
        double put_lat = (double)(now_ns() - t0) / lat_iters;
        int rounds = size >= 65536 ? 5 : 20;
        t0 = now_ns();
        for (int i = 0; i < rounds * WINDOW; i++) {
            write_to_peer(src, size, DATA_OFF);
            wait_all();
        }
        double bw_block = (double)size * WINDOW * rounds / ((double)(now_ns() - t0) / 1e9) / 1e6;
        t0 = now_ns();
        for (int r = 0; r < rounds; r++) {
            for (int w = 0; w < WINDOW; w++)
                write_to_peer(src, size, DATA_OFF);
            wait_all();
        }
        double bw_win = (double)size * WINDOW * rounds / ((double)(now_ns() - t0) / 1e9) / 1e6;
        t0 = now_ns();
        for (int i = 0; i < lat_iters; i++) {
            read_from_peer(back, size, DATA_OFF);
            wait_all();
        }
        double get_lat = (double)(now_ns() - t0) / lat_iters;
        uint64_t wrong = 0;
        for (size_t k = 0; k < size; k++)
            wrong += back[k] != src[k];
        wrong_total += wrong;
        write_to_peer(&phase, 8, DONE_OFF);
        wait_all();
        printf("  %10zu %12.0f %12.0f %12.1f %12.1f %8" PRIu64 "\n", size, put_lat, get_lat,
               bw_block, bw_win, wrong);
        fflush(stdout);
    }
    if (wrong_total)
        exit(2);
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
