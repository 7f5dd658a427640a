/*
 * heap_size.c - how big every PE's heap is, decided alike on every PE
 * before any heap exists.
 *
 * Each PE measures the free space of its host's /dev/shm (where heaps
 * live) and the measures are gathered, so every PE sees the same figures:
 * per host, the smallest free space any of its PEs saw and the number of
 * PEs on it.  Unset, SYMHEAP_HEAP_SIZE is the largest whole number of MiB
 * (at most SYM_HEAP_SIZE_DEFAULT) that lets every PE of the most crowded
 * host fit, mailboxes included, in half of that host's free space; the
 * other half stays for split teams' mailboxes (taken on demand) and
 * everything else on the host.  A default below 1 MiB is refused here with
 * the sizes, on every PE alike, instead of failing on some PEs while
 * others wait for them.  A size that is set is used as it is.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "core/heap_size.h"
#include "base/error.h"
#include "base/heap_layout.h"
#include "bootstrap/bootstrap.h"

struct shm_card {
    uint64_t free_bytes; /* UINT64_MAX: not measured */
    char host[192];
};

static uint64_t shm_free(void)
{
    struct statvfs v;
    if (statvfs("/dev/shm", &v) != 0)
        return UINT64_MAX;
    return (uint64_t)v.f_bavail * (uint64_t)v.f_frsize;
}

static void mib(char *buf, size_t len, uint64_t bytes)
{
    if (bytes >= (UINT64_C(1) << 30))
        snprintf(buf, len, "%.1f GiB", (double)bytes / (double)(UINT64_C(1) << 30));
    else
        snprintf(buf, len, "%.1f MiB", (double)bytes / (double)(UINT64_C(1) << 20));
}

sym_status_t sym_heap_size_choose(struct sym_boot *boot, const struct sym_config *cfg,
                                  size_t *heap_size_p)
{
    /* A size that is set needs no agreement: heaps are made as soon as each
     * PE gets here (a PE that cannot back its heap says so, naming the
     * size), without waiting for the slowest PE to start. */
    if (cfg->set.heap_size) {
        *heap_size_p = cfg->heap_size;
        return SYM_OK;
    }
    const int n = boot->size;
    struct shm_card mine = {.free_bytes = shm_free()};
    sym_host_identity(mine.host, sizeof(mine.host));
    struct shm_card *all = calloc((size_t)n, sizeof(*all));
    if (!all)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", n);
    sym_status_t st = boot->ops->allgather(boot, &mine, sizeof(mine), all);
    if (st != SYM_OK) {
        free(all);
        return st;
    }
    /* The most crowded host: the least free space per PE. */
    uint64_t worst_free = UINT64_MAX, worst_share = UINT64_MAX;
    int worst_local = 1;
    for (int pe = 0; pe < n; pe++) {
        uint64_t host_free = UINT64_MAX;
        int local = 0;
        for (int q = 0; q < n; q++)
            if (!strncmp(all[q].host, all[pe].host, sizeof(all[pe].host))) {
                local++;
                if (all[q].free_bytes < host_free)
                    host_free = all[q].free_bytes;
            }
        if (host_free != UINT64_MAX && host_free / (uint64_t)local < worst_share) {
            worst_share = host_free / (uint64_t)local;
            worst_free = host_free;
            worst_local = local;
        }
    }
    free(all);
    struct sym_heap_layout l;
    if (sym_heap_layout_compute(0, cfg->mailbox_size, cfg->staging_size, 0, &l) != 0)
        return sym_error(SYM_ERR_CONFIG, "sym_init: SYMHEAP_MAILBOX_SIZE=%zu is too large",
                         cfg->mailbox_size);
    const uint64_t fixed = l.user_off; /* control block, sync area, mailboxes */
    char fbuf[32], sbuf[32], tbuf[32];
    uint64_t size = SYM_HEAP_SIZE_DEFAULT;
    if (worst_share != UINT64_MAX) {
        const uint64_t half = worst_share / 2;
        const uint64_t fit = half > fixed ? (half - fixed) >> 20 << 20 : 0;
        if (fit < size)
            size = fit;
    }
    if (size < (UINT64_C(1) << 20)) {
        mib(fbuf, sizeof(fbuf), worst_free);
        mib(sbuf, sizeof(sbuf), worst_share / 2);
        mib(tbuf, sizeof(tbuf), fixed);
        return sym_error(SYM_ERR_NO_MEMORY,
                         "sym_init: /dev/shm has %s free for %d PEs on one host: half of "
                         "it is %s per PE, less than the %s of mailboxes and control "
                         "block plus 1 MiB of heap each (free /dev/shm, run fewer PEs per "
                         "host, or lower SYMHEAP_MAILBOX_SIZE)",
                         fbuf, worst_local, sbuf, tbuf);
    }
    *heap_size_p = (size_t)size;
    return SYM_OK;
}
