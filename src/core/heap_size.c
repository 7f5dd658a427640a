/*
 * heap_size.c - how big every PE's heap is, decided alike on every PE
 * before any heap exists, from the cards every PE gathered.
 *
 * Each PE measures the free space of its host's /dev/shm (where heaps
 * live); from the gathered cards every PE sees the same figures: per host,
 * the smallest free space any of its PEs saw and the number of PEs on it.
 * Unset, SYMHEAP_HEAP_SIZE is the largest whole number of MiB (at most
 * SYM_HEAP_SIZE_DEFAULT) that lets every PE of the most crowded host fit,
 * mailboxes included, in half of that host's free space; the other half
 * stays for split teams' mailboxes (taken on demand) and everything else on
 * the host.  A default below 1 MiB is refused here with the sizes, on every
 * PE alike, instead of failing on some PEs while others wait for them.  A
 * size that is set is used as it is.  Hosts are grouped by sorting the
 * cards' host digests: n log n for n PEs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "core/heap_size.h"
#include "base/error.h"
#include "base/heap_layout.h"

static uint64_t shm_free(void)
{
    struct statvfs v;
    if (statvfs("/dev/shm", &v) != 0)
        return UINT64_MAX;
    return (uint64_t)v.f_bavail * (uint64_t)v.f_frsize;
}

void sym_pe_card_make(const struct sym_config *cfg, struct sym_pe_card *mine)
{
    *mine = (struct sym_pe_card){
        .pid = (int32_t)getpid(),
        .heap_size_set = cfg->set.heap_size,
        .shm_free = shm_free(),
        .heap_size = cfg->heap_size,
        .mailbox_size = cfg->mailbox_size,
        .staging_size = cfg->staging_size,
        .team_region_size = cfg->team_region_size,
    };
    sym_host_digest(mine->host);
}

static void mib(char *buf, size_t len, uint64_t bytes)
{
    if (bytes >= (UINT64_C(1) << 30))
        snprintf(buf, len, "%.1f GiB", (double)bytes / (double)(UINT64_C(1) << 30));
    else
        snprintf(buf, len, "%.1f MiB", (double)bytes / (double)(UINT64_C(1) << 20));
}

static sym_status_t same_layout(int me, int npes, const struct sym_pe_card *cards)
{
    const struct sym_pe_card *m = &cards[me];
    for (int pe = 0; pe < npes; pe++) {
        const struct sym_pe_card *c = &cards[pe];
        if (c->heap_size_set == m->heap_size_set && c->mailbox_size == m->mailbox_size &&
            c->staging_size == m->staging_size && c->team_region_size == m->team_region_size &&
            (!m->heap_size_set || c->heap_size == m->heap_size))
            continue;
        char h[32], mh[32];
        snprintf(h, sizeof(h), c->heap_size_set ? "%llu" : "unset",
                 (unsigned long long)c->heap_size);
        snprintf(mh, sizeof(mh), m->heap_size_set ? "%llu" : "unset",
                 (unsigned long long)m->heap_size);
        return sym_error(
            SYM_ERR_BOOTSTRAP,
            "sym_init: PE %d's heap does not match this PE's layout "
            "(SYMHEAP_HEAP_SIZE %s vs %s, SYMHEAP_MAILBOX_SIZE %llu vs %llu, "
            "SYMHEAP_STAGING_SIZE %llu vs %llu, SYMHEAP_TEAM_REGION_SIZE %llu vs "
            "%llu): every PE must run the same symheap with the same "
            "SYMHEAP_HEAP_SIZE, SYMHEAP_MAILBOX_SIZE, SYMHEAP_STAGING_SIZE and "
            "SYMHEAP_TEAM_REGION_SIZE",
            pe, h, mh, (unsigned long long)c->mailbox_size, (unsigned long long)m->mailbox_size,
            (unsigned long long)c->staging_size, (unsigned long long)m->staging_size,
            (unsigned long long)c->team_region_size, (unsigned long long)m->team_region_size);
    }
    return SYM_OK;
}

static int by_host(const void *a, const void *b)
{
    const struct sym_pe_card *x = *(const struct sym_pe_card *const *)a;
    const struct sym_pe_card *y = *(const struct sym_pe_card *const *)b;
    return memcmp(x->host, y->host, sizeof(x->host));
}

/* The most crowded host: the least free space per PE (*share_p, from
 * *free_p bytes for *local_p PEs); *share_p UINT64_MAX when none measured. */
static int crowded_host(int npes, const struct sym_pe_card *cards, uint64_t *free_p,
                        uint64_t *share_p, int *local_p)
{
    const struct sym_pe_card **sorted = malloc((size_t)npes * sizeof(*sorted));
    if (!sorted)
        return -1;
    for (int pe = 0; pe < npes; pe++)
        sorted[pe] = &cards[pe];
    qsort(sorted, (size_t)npes, sizeof(*sorted), by_host);
    *free_p = *share_p = UINT64_MAX;
    *local_p = 1;
    for (int i = 0; i < npes;) {
        uint64_t host_free = UINT64_MAX;
        int j = i;
        for (; j < npes && by_host(&sorted[i], &sorted[j]) == 0; j++)
            if (sorted[j]->shm_free < host_free)
                host_free = sorted[j]->shm_free;
        const int local = j - i;
        if (host_free != UINT64_MAX && host_free / (uint64_t)local < *share_p) {
            *share_p = host_free / (uint64_t)local;
            *free_p = host_free;
            *local_p = local;
        }
        i = j;
    }
    free(sorted);
    return 0;
}

sym_status_t sym_heap_size_choose(int me, int npes, const struct sym_pe_card *cards,
                                  const struct sym_config *cfg, size_t *heap_size_p)
{
    sym_status_t st = same_layout(me, npes, cards);
    if (st != SYM_OK)
        return st;
    if (cfg->set.heap_size) {
        *heap_size_p = cfg->heap_size;
        return SYM_OK;
    }
    uint64_t worst_free, worst_share;
    int worst_local;
    if (crowded_host(npes, cards, &worst_free, &worst_share, &worst_local) != 0)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for %d PEs", npes);
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
