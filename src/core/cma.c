/* cma.c - cross-memory attach between the PEs of one host (cma.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "core/cma.h"
#include "core/heap_size.h"
#include "core/internal.h"

static struct sym_heap_ctrl *ctrl_of(int pe)
{
    return sym_direct(pe, 0);
}

/* Yama's ptrace_scope, or -1 without Yama. */
static int yama_scope(void)
{
    FILE *f = fopen("/proc/sys/kernel/yama/ptrace_scope", "r");
    int scope = -1;
    if (f) {
        if (fscanf(f, "%d", &scope) != 1)
            scope = -1;
        fclose(f);
    }
    return scope;
}

/* This PE's probe word, in its private memory: not a secret, any word
 * other than 0 works, as long as a stale or foreign one cannot match by
 * chance.  And the probe's verdict, until the control block exists. */
static uint64_t probe_word;
static bool verdict;

void sym_cma_prepare(struct sym_cma_card *mine)
{
    verdict = false;
    *mine = (struct sym_cma_card){0};
    if (sym_rt.cfg.cma.v == SYM_CFG_CMA_OFF)
        return;
    uint64_t token = 0;
    if (getrandom(&token, sizeof(token), 0) != (ssize_t)sizeof(token) || token == 0)
        token = ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&token ^ 1;
    __atomic_store_n(&probe_word, token, __ATOMIC_RELEASE);
    mine->va = (uint64_t)(uintptr_t)&probe_word;
    mine->token = token;
    struct stat ns;
    if (stat("/proc/self/ns/user", &ns) == 0) {
        mine->ns_dev = (uint64_t)ns.st_dev;
        mine->ns_ino = (uint64_t)ns.st_ino;
    }
    /* Scope 1 lets only ancestors attach unless the tracee names who may;
     * PR_SET_PTRACER_ANY admits every process of this user (which scope 0
     * admits anyway).  Scopes 2 and 3 admit no peer: the probe says so. */
    if (yama_scope() == 1)
        prctl(PR_SET_PTRACER, PR_SET_PTRACER_ANY, 0, 0, 0);
}

/* The same user namespace, as both cards say (cross-memory attach across
 * namespaces is refused, or worse, reaches another process of the same
 * number). */
static bool same_userns(const struct sym_cma_card *mine, const struct sym_cma_card *theirs)
{
    return mine->ns_ino && mine->ns_dev == theirs->ns_dev && mine->ns_ino == theirs->ns_ino;
}

/* Read the peer's probe word out of its own address space and compare it
 * with the one on its card. */
static bool try_peer(int pe, const struct sym_cma_card *mine, const struct sym_cma_card *card,
                     const char **why)
{
    const int pid = sym_rt.peer_pid[pe];
    if (!same_userns(mine, card)) {
        *why = "it runs in another user namespace (or /proc is not readable)";
        return false;
    }
    uint64_t got = 0;
    struct iovec l = {&got, sizeof(got)}, r = {(void *)(uintptr_t)card->va, sizeof(got)};
    ssize_t k = process_vm_readv(pid, &l, 1, &r, 1, 0);
    if (k != (ssize_t)sizeof(got)) {
        *why = k < 0 && errno == EPERM    ? "process_vm_readv: permission denied (ptrace rules, "
                                            "a seccomp filter or a container)"
               : k < 0 && errno == ENOSYS ? "process_vm_readv is not available"
                                          : "process_vm_readv failed";
        return false;
    }
    if (got != card->token || card->token == 0) {
        *why = "the word read differs from the one on its card";
        return false;
    }
    return true;
}

void sym_cma_probe(const struct sym_pe_card *cards)
{
    verdict = false;
    if (sym_rt.cfg.cma.v == SYM_CFG_CMA_OFF) {
        sym_debug("cross-memory attach: off (SYMHEAP_CMA=off)");
        return;
    }
    for (int pe = 0; pe < sym_rt.npes; pe++) {
        const char *why = NULL;
        if (pe == sym_rt.me || !sym_rt.peer_local[pe])
            continue;
        if (!try_peer(pe, &cards[sym_rt.me].cma, &cards[pe].cma, &why)) {
            sym_debug("cross-memory attach: not used: PE %d (pid %d): %s", pe, sym_rt.peer_pid[pe],
                      why);
            return;
        }
    }
    verdict = true;
}

void sym_cma_publish(void)
{
    struct sym_heap_ctrl *hc = (void *)sym_rt.base;
    __atomic_store_n(&hc->cma_ok, verdict ? 1u : 0u, __ATOMIC_RELEASE);
}

bool sym_cma_verdict(int pe)
{
    const struct sym_heap_ctrl *hc = ctrl_of(pe);
    return hc && __atomic_load_n(&hc->cma_ok, __ATOMIC_ACQUIRE) == 1;
}

sym_status_t sym_cma_read(const char *op, int pe, void *dst, uint64_t va, size_t len)
{
    size_t done = 0;
    while (done < len) {
        struct iovec l = {(uint8_t *)dst + done, len - done};
        struct iovec r = {(void *)(uintptr_t)(va + done), len - done};
        ssize_t k = process_vm_readv(sym_rt.peer_pid[pe], &l, 1, &r, 1, 0);
        if (k > 0) {
            done += (size_t)k;
            continue;
        }
        const int err = k < 0 ? errno : EIO;
        if (err == EINTR)
            continue;
        if (err == ESRCH) {
            /* the process is gone: let the health check name the cause */
            sym_status_t st = sym_job_check(op, "a cross-memory read");
            if (st != SYM_OK)
                return st;
            return sym_error(SYM_ERR_PEER_LOST,
                             "%s: PE %d (pid %d) is no longer running (a cross-memory read of "
                             "its memory found no such process)",
                             op, pe, sym_rt.peer_pid[pe]);
        }
        return sym_error(err == EPERM ? SYM_ERR_UNAVAILABLE : SYM_ERR_TRANSPORT,
                         "%s: cross-memory read of %zu bytes at 0x%llx of PE %d (pid %d): %s%s", op,
                         len - done, (unsigned long long)(va + done), pe, sym_rt.peer_pid[pe],
                         strerror(err),
                         err == EPERM ? " (ptrace rules or a seccomp filter changed after "
                                        "sym_init; SYMHEAP_CMA=off avoids cross-memory attach)"
                                      : "");
    }
    return SYM_OK;
}
