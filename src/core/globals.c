/*
 * globals.c - the main executable's global and static variables (.data
 * and .bss) are symmetric objects, as OpenSHMEM requires: the second
 * symmetric region, owned by the runtime like the heap (memory.c).
 *
 * Offsets: the segment follows the heap in the (PE, offset) space every
 * transport speaks: byte i of the segment is offset heap_total + i.  The
 * segment's link-time layout is the same in every PE running the same
 * executable; only its load address differs (PIE, ASLR), so the offset of a
 * variable is the same everywhere.
 *
 * The segment is made shared with zero copy: at sym_init its current
 * contents are copied into a memfd which is then mapped MAP_FIXED |
 * MAP_SHARED over the segment itself, so the program keeps using its
 * variables at their usual addresses.  Every heap mapping is followed by
 * room for its owner's segment (memory.c): this PE maps its own memfd there,
 * an alias of the segment, and a transport that maps peers' heaps maps
 * their memfds there too (the shm transport), so `peer_base[pe] + off`
 * stays the one direct path for heap and globals alike.  The memfd follows
 * the heap's rules (base/segment.h): no name anywhere (nothing another user
 * could squat to push a PE onto the fallback below), its size sealed,
 * reached by the local peers as the heap's is (reopened on first use, or
 * handed over as a descriptor with the heap's).
 *
 * The copy happens before the bootstrap starts any thread (the tcp
 * bootstrap's helper thread, PMIx's progress thread), since a store made by
 * another thread between the copy and the remap would be lost.  Where that
 * cannot be done (no memory for the memfd then) the copy happens after the
 * bootstrap, before the exchange.
 *
 * After sym_finalize the variables stay where they are, in the memfd that
 * no other process maps any more (each peer unmaps it at its own
 * finalize): private in effect, values kept, nothing copied.  A child
 * forked by a PE gets a private anonymous copy (atfork handler).

 * A segment that could not be remapped (no room for the memfd, mmap
 * refused), or every segment with SYMHEAP_GLOBALS=cma, stays private
 * memory: the shm transport then reaches it by cross-memory attach
 * (transports/shm/shm_globals.c), and over libfabric it is registered as
 * it is.
 *
 * Limits: only the main executable's segment (not shared libraries'); the
 * remap copies the segment, so no other thread of the program may write
 * globals while sym_init runs (threads of a library started before, such
 * as an MPI library's PMIx thread, are the program's).
 *
 * Fork: the child's private copy is taken by its atfork handler, after the
 * fork, not at it.  Until then the segment is still shared with the
 * parent, so the parent's fork() returns only once the child has its copy
 * (atfork_parent).  Another thread of the parent can still store in that
 * window, and that shows in the child's copy (and a store by a child-side
 * fork handler registered before sym_init reaches the parent).  For a
 * program that is at most a later value of a variable another thread was
 * changing anyway.  A sanitizer runtime linked into the executable keeps
 * its own state in this segment: before the parent waited, the forking
 * thread's own allocations right after fork() made the child's copy newer
 * than its heap (ASan SEGV in Quarantine::Drain, 2 of 2 runs of
 * globals::fork_with_threads_after_init); with the wait it passed 5 of 6
 * runs, the sixth hung in the child, which clang 14's ASan allows in any
 * program that forks while a thread runs (it holds no allocator lock across
 * fork; LLVM 18 added that).  So that test stays skipped under sanitizers.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include "base/error.h"
#include "base/segment.h"
#include "core/globals.h"

#define PAGE 4096u

/* The segment: process-wide, like the segment itself.  Offsets from the
 * heap's length on in the (pe, offset) space are bytes [0, len) of the
 * segment; its load address differs per PE (PIE and ASLR), its length and
 * link-time address are the same on every PE running the same executable
 * (the runtime checks it at init). */
struct globals {
    uint8_t *addr;      /* NULL when there is none (or SYMHEAP_GLOBALS=off) */
    size_t len;         /* page multiple */
    size_t anon_off;    /* from here on .bss: not file-backed */
    uint64_t link_addr; /* link-time address, for the same-executable check */
    bool remapped;      /* mine lives in a memfd */
    bool fd_open;       /* ... whose descriptor is fd, until the peers have it */
    int fd;
    bool prealloc; /* SYMHEAP_HEAP_PREALLOC */
    unsigned mode; /* SYMHEAP_GLOBALS: enum sym_cfg_globals */
    int me;        /* for messages */
};

static struct globals globals;

struct probe {
    uintptr_t lo, hi, bias;
    uintptr_t anon; /* pages from here on are not file-backed (.bss) */
};

/* The segment's state that outlives sym_finalize: after
 * finalize the variables stay in the memfd, now mapped by this process
 * alone, so finalize copies nothing. */
static struct {
    uint8_t *addr;
    size_t len;
    bool shared; /* a memfd is mapped over the segment */
} seg;

static uintptr_t page_down(uintptr_t x)
{
    return x & ~(uintptr_t)(PAGE - 1);
}

static uintptr_t page_up(uintptr_t x)
{
    return page_down(x + PAGE - 1);
}

/* The first object dl_iterate_phdr reports is the main program.  Its last
 * writable PT_LOAD holds .data and .bss; the pages the dynamic linker made
 * read-only after relocation (PT_GNU_RELRO) are left out. */
static int probe_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    struct probe *p = arg;
    const ElfW(Phdr) *w = NULL;
    uintptr_t relro_end = 0;
    for (int i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_W) && ph->p_memsz)
            w = ph;
        else if (ph->p_type == PT_GNU_RELRO)
            relro_end = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
    }
    if (w) {
        uintptr_t lo = page_down(info->dlpi_addr + w->p_vaddr);
        uintptr_t hi = page_up(info->dlpi_addr + w->p_vaddr + w->p_memsz);
        if (relro_end > lo && page_down(relro_end) > lo)
            lo = page_down(relro_end);
        if (lo < hi) {
            p->lo = lo;
            p->hi = hi;
            p->bias = info->dlpi_addr;
            p->anon = page_up(info->dlpi_addr + w->p_vaddr + w->p_filesz);
        }
    }
    return 1;
}

void sym_globals_probe(unsigned mode, bool prealloc)
{
    struct globals *g = &globals;
    g->addr = NULL;
    g->len = 0;
    g->mode = mode;
    g->prealloc = prealloc;
    if (mode == SYM_CFG_GLOBALS_OFF)
        return;
    struct probe p = {0, 0, 0, 0};
    dl_iterate_phdr(probe_cb, &p);
    if (p.hi > p.lo) {
        g->addr = (uint8_t *)p.lo;
        g->len = p.hi - p.lo;
        g->link_addr = p.lo - p.bias;
        g->anon_off = p.anon > p.lo ? (p.anon < p.hi ? p.anon - p.lo : g->len) : 0;
    }
}

/* mmap straight to the kernel (base/segment.h says why). */
static void *raw_mmap_private(size_t len)
{
    return (void *)syscall(SYS_mmap, NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
                           -1, (off_t)0);
}

/* Copy the segment without memcpy and without sanitizer instrumentation.
 * Under ThreadSanitizer the runtime's own state lives in the segment and an
 * intercepted copy updates it while it is being copied (those updates would
 * then be lost); under AddressSanitizer the redzones between globals must be
 * read too.  The empty asm keeps the compiler from turning the loop back
 * into a memcpy call. */
#define SYM_NO_SANITIZE __attribute__((no_sanitize("address", "thread", "undefined")))
/* No instrumentation at all: ThreadSanitizer also records every function
 * entry and exit in a trace whose bookkeeping lives in the segment, and a
 * record that switches the trace's part inside the copy window was lost by
 * the remap (a NULL dereference in the runtime at the next switch).  Clang
 * drops those records with this attribute, and only in a function that is
 * not inlined (inlined into an instrumented caller, the code is
 * instrumented there).  It does not stop clang 14's AddressSanitizer,
 * hence no_sanitize as well.  GCC has no equivalent. */
#if defined(__clang__) && defined(__has_attribute)
#if __has_attribute(disable_sanitizer_instrumentation)
#define SYM_NO_INSTRUMENT                                                                          \
    __attribute__((no_sanitize("address", "thread", "undefined"),                                  \
                   disable_sanitizer_instrumentation, noinline))
#endif
#endif
#ifndef SYM_NO_INSTRUMENT
#define SYM_NO_INSTRUMENT SYM_NO_SANITIZE
#endif

/* len is a multiple of the page size, so of 64. */
SYM_NO_INSTRUMENT static void raw_copy(uint8_t *dst, const uint8_t *src, size_t len)
{
    uint64_t *d = (uint64_t *)dst;
    const uint64_t *s = (const uint64_t *)src;
    for (size_t i = 0; i < len / 8; i += 8) {
        uint64_t w0 = s[i], w1 = s[i + 1], w2 = s[i + 2], w3 = s[i + 3];
        uint64_t w4 = s[i + 4], w5 = s[i + 5], w6 = s[i + 6], w7 = s[i + 7];
        d[i] = w0, d[i + 1] = w1, d[i + 2] = w2, d[i + 3] = w3;
        d[i + 4] = w4, d[i + 5] = w5, d[i + 6] = w6, d[i + 7] = w7;
        __asm__ volatile("" ::: "memory");
    }
}

SYM_NO_INSTRUMENT static bool page_is_zero(const uint8_t *p)
{
    const uint64_t *w = (const uint64_t *)p;
    uint64_t any = 0;
    for (size_t i = 0; i < PAGE / 8; i++)
        any |= w[i];
    return any == 0;
}

/* The copy window: from the copy of [addr, addr + len) into tmp (pages
 * not marked in skip and not all zero) to the mmap of fd over it, a store
 * to a global by another thread would be lost.  sym_globals_prepare runs
 * this before the bootstrap starts threads of symheap's own (the tcp
 * bootstrap's helper, PMIx's progress thread); other threads of the program
 * must not write globals during sym_init (documented).  This thread must not
 * store either, and a statically linked sanitizer runtime keeps its state in
 * the segment: so no instrumented code and no intercepted call in between
 * (mmap by system call, not through the runtime's interceptor). */
SYM_NO_INSTRUMENT static void *copy_and_map(uint8_t *addr, size_t len, uint8_t *tmp,
                                            const uint8_t *skip, int fd)
{
    for (size_t o = 0; o < len; o += PAGE)
        if (!(skip && skip[o / PAGE]) && !page_is_zero(addr + o))
            raw_copy(tmp + o, addr + o, PAGE);
    return (void *)syscall(SYS_mmap, addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                           (off_t)0);
}

/* privatize's copy window, as copy_and_map's. */
SYM_NO_INSTRUMENT static void *copy_and_remap(uint8_t *tmp, uint8_t *addr, size_t len)
{
    raw_copy(tmp, addr, len);
    return (void *)syscall(SYS_mremap, tmp, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, addr);
}

/* Turn [addr, addr + len) back into private anonymous memory holding the
 * same bytes.  mremap replaces the shared pages in one step. */
static int privatize(uint8_t *addr, size_t len)
{
    uint8_t *tmp = raw_mmap_private(len);
    if (tmp == MAP_FAILED)
        return -1;
    if (copy_and_remap(tmp, addr, len) == MAP_FAILED) {
        int err = errno;
        syscall(SYS_munmap, tmp, len);
        errno = err;
        return -1;
    }
    return 0;
}

/* A child forked by a PE must not share its parent's variables: a child
 * that cannot get a private copy would silently write into the parent's and
 * its peers' variables (and see theirs), so it ends at once, saying why.
 * Only async-signal-safe calls here: the parent may have other threads. */
/* Until the child has its private copy, the parent's stores to its
 * variables land in the child's copy too: so the parent's fork() returns
 * only once the child says it has its copy (or has died, or 10 s passed).
 * Without that, the forking thread's own stores right after fork (and a
 * sanitizer runtime's, which keeps its state in the segment) would race
 * with the child's copy.  Other threads of the parent still run meanwhile
 * (see "Fork" above).  The pipe's ends live in the segment: each side reads
 * them before writing anything there. */
static int fork_pipe[2] = {-1, -1};
/* Two threads forking at once would share fork_pipe. */
static pthread_mutex_t fork_lock = PTHREAD_MUTEX_INITIALIZER;

static void atfork_prepare(void)
{
    pthread_mutex_lock(&fork_lock);
    if (!seg.shared || pipe2(fork_pipe, O_CLOEXEC) != 0)
        fork_pipe[0] = fork_pipe[1] = -1;
}

static void atfork_parent(void)
{
    int rd = fork_pipe[0], wr = fork_pipe[1];
    if (rd < 0) {
        pthread_mutex_unlock(&fork_lock);
        return;
    }
    close(wr); /* the child's end alone is left: EOF if it dies first */
    struct pollfd p = {.fd = rd, .events = POLLIN};
    char c;
    while (poll(&p, 1, 10000) < 0 && errno == EINTR)
        ;
    if (p.revents)
        (void)!read(rd, &c, 1);
    close(rd);
    fork_pipe[0] = fork_pipe[1] = -1;
    pthread_mutex_unlock(&fork_lock);
}

/* Tell the parent the child's copy is taken (or that there is none). */
static void fork_release_parent(int rd, int wr)
{
    pthread_mutex_init(&fork_lock, NULL); /* held by the forking thread */
    if (rd < 0)
        return;
    close(rd);
    (void)!write(wr, "", 1);
    close(wr);
}

static void atfork_child(void)
{
    const int rd = fork_pipe[0], wr = fork_pipe[1];
    if (!seg.shared) {
        fork_release_parent(rd, wr);
        return;
    }
    if (privatize(seg.addr, seg.len) == 0) {
        seg.shared = false;
        globals.remapped = false;
        fork_pipe[0] = fork_pipe[1] = -1; /* the child's own copy now */
        fork_release_parent(rd, wr);
        return;
    }
    int err = errno;
    char msg[256];
    const char *name = strerrorname_np(err);
    int n = snprintf(msg, sizeof(msg),
                     "symheap: a process forked by PE %d cannot get a private copy of its "
                     "%zu bytes of global and static variables (%s): it would share them "
                     "with the PE's job, so it exits with status 127\n",
                     globals.me, seg.len, name ? name : "unknown error");
    if (n > 0)
        (void)!write(STDERR_FILENO, msg, (size_t)n < sizeof(msg) ? (size_t)n : sizeof(msg) - 1);
    _exit(127);
}

/* Pages of the .bss part never touched (neither present nor swapped out,
 * says /proc/self/pagemap) read as zeros: mark them so the copy skips them
 * without faulting each one in (page faults are what a large .bss, e.g. a
 * sanitizer runtime's, costs).  NULL when pagemap is unavailable. */
static uint8_t *untouched_pages(const struct globals *g)
{
    size_t npages = g->len / PAGE, first = g->anon_off / PAGE;
    if (first >= npages)
        return NULL;
    int fd = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    uint64_t *ent = malloc((npages - first) * sizeof(*ent));
    uint8_t *skip = calloc(npages, 1);
    off_t at = (off_t)(((uintptr_t)g->addr / PAGE + first) * sizeof(*ent));
    size_t want = (npages - first) * sizeof(*ent);
    if (!ent || !skip || pread(fd, ent, want, at) != (ssize_t)want) {
        free(skip);
        skip = NULL;
    } else {
        for (size_t i = 0; i < npages - first; i++)
            skip[first + i] = !(ent[i] >> 62); /* bit 63 present, bit 62 swapped */
    }
    free(ent);
    close(fd);
    return skip;
}

static void register_atfork(void)
{
    pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
}

/* Copy the segment into a new memfd and map it over the segment.  0, or
 * -1 with *what_p and the errno value in *err_p; on failure the segment is
 * untouched. */
static int map_over(const char **what_p, int *err_p)
{
    struct globals *g = &globals;
    int fd = sym_segment_create("symheap-globals", g->len, g->prealloc ? g->len : 0, err_p);
    if (fd < 0) {
        *what_p = "back them in shared memory";
        return -1;
    }
    uint8_t *tmp = mmap(NULL, g->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (tmp == MAP_FAILED) {
        *what_p = "map a memfd";
        *err_p = errno;
        close(fd);
        return -1;
    }
    /* Zero pages need no copy: the memfd reads as zeros already.  Only
     * while the segment is still the program's private memory do pages not
     * present read as zeros: once an earlier sym_init mapped it shared, a
     * page not faulted in since holds the memfd's data. */
    uint8_t *skip = seg.shared ? NULL : untouched_pages(g);
    void *p = copy_and_map(g->addr, g->len, tmp, skip, fd);
    int err = errno;
    free(skip);
    munmap(tmp, g->len);
    if (p == MAP_FAILED) { /* MAP_FIXED failing leaves the old mapping in place */
        *what_p = "map them over themselves";
        *err_p = err;
        close(fd);
        return -1;
    }
    g->fd = fd;
    g->fd_open = true;
    g->remapped = true;
    seg.addr = g->addr;
    seg.len = g->len;
    seg.shared = true;
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    pthread_once(&once, register_atfork);
    return 0;
}

void sym_globals_prepare(void)
{
    struct globals *g = &globals;
    if (!g->len || g->mode == SYM_CFG_GLOBALS_CMA)
        return;
    const char *what;
    int err;
    if (map_over(&what, &err) != 0)
        sym_debug("global variables: cannot %s before the bootstrap: %s; trying again after it",
                  what, strerror(err));
}

sym_status_t sym_globals_share(int me)
{
    struct globals *g = &globals;
    g->me = me;
    if (!g->len || g->mode == SYM_CFG_GLOBALS_CMA || g->remapped)
        return SYM_OK;
    const char *what;
    int err;
    if (map_over(&what, &err) != 0) {
        sym_status_t st =
            sym_error(err == ENOSPC || err == ENOMEM ? SYM_ERR_NO_MEMORY : SYM_ERR_SYSTEM,
                      "sym_init: cannot %s PE %d's %zu bytes of global variables: %s", what, g->me,
                      g->len, strerror(err));
        if (g->mode == SYM_CFG_GLOBALS_REMAP)
            return st; /* forced: the recorded error is the answer */
        sym_debug("global variables: %s; peers reach them by cross-memory attach",
                  sym_last_error());
    }
    return SYM_OK;
}

void sym_globals_describe(struct sym_globals_view *v)
{
    const struct globals *g = &globals;
    v->addr = g->addr;
    v->len = g->len;
    v->link_addr = g->link_addr;
    v->fd = g->remapped && g->fd_open ? g->fd : -1;
}

sym_status_t sym_globals_alias(uint8_t *at)
{
    struct globals *g = &globals;
    const char *bad = sym_segment_check(g->fd, g->len);
    if (bad || sym_segment_map_fixed(at, g->len, g->fd) == MAP_FAILED)
        return sym_error(bad ? SYM_ERR_SYSTEM : SYM_ERR_NO_MEMORY,
                         "sym_init: mmap of PE %d's global variables: %s", g->me,
                         bad ? bad : strerror(errno));
    return SYM_OK;
}

void sym_globals_close_fd(void)
{
    struct globals *g = &globals;
    if (g->fd_open)
        close(g->fd);
    g->fd_open = false;
}

void sym_globals_fini(void)
{
    /* The alias and the peers' mappings go with the heap reservations; the
     * memfd has no name, so once the peers have unmapped it (at their
     * finalize) only this process maps it: the variables stay where they
     * are, with their values, at no cost.  A later sym_init copies them
     * into a new memfd; a fork makes the child's private (atfork_child). */
    sym_globals_close_fd();
    memset(&globals, 0, sizeof(globals));
}
