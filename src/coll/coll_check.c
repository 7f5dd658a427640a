/* coll_check.c - SYMHEAP_COLL_CHECK=strict: call sites and the end-of-call
 * check (coll_check.h). */
#include <dlfcn.h>
#include <inttypes.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "coll/coll.h"
#include "coll/coll_check.h"

bool sym_coll_strict;
_Thread_local const void *sym_coll_caller_tls;
_Thread_local bool sym_coll_caller_pinned;

const void *sym_coll_take_caller(void)
{
    const void *ra = sym_coll_caller_tls;
    sym_coll_caller_tls = NULL;
    sym_coll_caller_pinned = false;
    return sym_coll_strict ? ra : NULL;
}

void sym_coll_pin_caller(const void *ra)
{
    sym_coll_caller_tls = ra;
    sym_coll_caller_pinned = ra != NULL;
}

static uint32_t fnv32(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (uint8_t)*s) * 16777619u;
    return h;
}

uint64_t sym_coll_site_word(const void *ra)
{
    Dl_info di;
    if (!ra || !dladdr(ra, &di) || !di.dli_fname || !di.dli_fbase)
        return (uint64_t)(uintptr_t)ra;
    const uintptr_t off = (uintptr_t)ra - (uintptr_t)di.dli_fbase;
    return (uint64_t)fnv32(di.dli_fname) << 32 | (uint32_t)off;
}

uint32_t sym_coll_site_hash(uint64_t word)
{
    uint64_t x = word * UINT64_C(0x9e3779b97f4a7c15);
    return (uint32_t)(x >> 32) ^ (uint32_t)x;
}

struct find_object {
    uint32_t hash;
    uintptr_t base;
    const char *name;
};

/* dl_iterate_phdr names the main program "", dladdr by its path: ask
 * dladdr about an address inside each object, as sym_coll_site_word did. */
static int find_object(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct find_object *f = arg;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        if (info->dlpi_phdr[i].p_type != PT_LOAD)
            continue;
        Dl_info di;
        const void *p = (const void *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
        if (!dladdr(p, &di) || !di.dli_fname || fnv32(di.dli_fname) != f->hash)
            return 0;
        f->base = (uintptr_t)di.dli_fbase;
        f->name = di.dli_fname;
        return 1;
    }
    return 0;
}

void sym_coll_site_text(uint64_t word, char *buf, size_t len)
{
    struct find_object f = {.hash = (uint32_t)(word >> 32)};
    if (!word || !dl_iterate_phdr(find_object, &f)) {
        snprintf(buf, len, "call site %016" PRIx64, word);
        return;
    }
    const uint32_t off = (uint32_t)word;
    const char *slash = strrchr(f.name, '/');
    int used = snprintf(buf, len, "%s+0x%" PRIx32, slash ? slash + 1 : f.name, off);
    Dl_info di;
    if (used > 0 && (size_t)used < len && dladdr((const void *)(f.base + off), &di) &&
        di.dli_sname && di.dli_saddr)
        snprintf(buf + used, len - (size_t)used, " (%s+0x%zx)", di.dli_sname,
                 (size_t)(f.base + off - (uintptr_t)di.dli_saddr));
}

void sym_coll_sites_text(const struct sym_coll *c, int pe, uint64_t theirs, char *buf, size_t len)
{
    if (!len)
        return;
    buf[0] = '\0';
    if (!c->site)
        return;
    char mine[128], other[128] = "an unknown call site";
    sym_coll_site_text(c->site, mine, sizeof(mine));
    if (theirs)
        sym_coll_site_text(theirs, other, sizeof(other));
    snprintf(buf, len, "; call sites: this PE at %s, PE %d at %s", mine, pe, other);
}

sym_status_t sym_coll_check_end(struct sym_coll *c)
{
    const int n = c->team->size, me = c->team->rank;
    if (n == 1)
        return SYM_OK;
    /* Empty messages carry the fingerprint: by now every chunk of the call
     * on each link has been taken, so the next is the neighbour's check. */
    sym_status_t st = sym_chan_send(c, (me + 1) % n, NULL, 0, 0);
    for (int dist = 0; st == SYM_OK && dist < n; dist = dist ? dist << 1 : 1) {
        const void *data;
        const int src = (me - (dist ? dist : 1) + n) % n;
        st = sym_chan_recv(c, src, &data, NULL, NULL);
        if (st == SYM_OK)
            st = sym_chan_release(c, src);
        const int next = dist ? dist << 1 : 1;
        if (st == SYM_OK && next < n)
            st = sym_chan_send(c, (me + next) % n, NULL, 0, 0);
    }
    return st;
}
