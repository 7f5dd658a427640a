/* boot_symrun.c - join a job started by symrun or the test harness through
 * the launcher's control segment (launch/job.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/error.h"
#include "base/wait.h"
#include "bootstrap.h"

struct symrun_boot {
    struct sym_boot base;
    size_t map_len;
    uint64_t barriers; /* bootstrap barriers entered so far */
    double timeout;    /* of each step, from the settings at open */
    const char *timeout_name;
};

/* One launcher variable for a message: its value, or "(unset)". */
static const char *launcher_var(char *buf, size_t len, bool set, unsigned long v)
{
    if (!set)
        return "(unset)";
    snprintf(buf, len, "%lu", v);
    return buf;
}

struct boot_wait {
    struct sym_job_ctrl *job;
    uint64_t target;
};

/* One word for every PE to poll, whatever the job's size. */
static bool boot_all_arrived(void *arg)
{
    struct boot_wait *w = arg;
    return __atomic_load_n(&w->job->boot_entered, __ATOMIC_ACQUIRE) >= w->target * w->job->npes;
}

/* Asleep until a PE completes a barrier or the launcher reaps one. */
static void boot_sleep(void *arg, long ns)
{
    struct boot_wait *w = arg;
    uint32_t *word = sym_job_boot_word(w->job);
    uint32_t seen = __atomic_load_n(word, __ATOMIC_ACQUIRE);
    if (boot_all_arrived(arg))
        return;
    struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
    syscall(SYS_futex, word, FUTEX_WAIT, seen, &ts, NULL, 0);
}

static void boot_describe(void *arg, char *buf, size_t len)
{
    struct boot_wait *w = arg;
    size_t used = (size_t)snprintf(
        buf, len, "PEs to reach bootstrap step %llu; missing:", (unsigned long long)w->target);
    for (uint32_t i = 0; i < w->job->npes && used < len; i++)
        if (__atomic_load_n(&w->job->pe[i].boot_arrivals, __ATOMIC_ACQUIRE) < w->target)
            used += (size_t)snprintf(buf + used, len - used, " %u", i);
}

static sym_status_t symrun_barrier(struct sym_boot *b, const char *step)
{
    struct symrun_boot *sb = (struct symrun_boot *)b;
    struct boot_wait w = {.job = b->job, .target = ++sb->barriers};
    __atomic_store_n(&b->job->pe[b->rank].boot_arrivals, w.target, __ATOMIC_RELEASE);
    const uint64_t before = __atomic_fetch_add(&b->job->boot_entered, 1, __ATOMIC_ACQ_REL);
    if (before + 1 == w.target * b->job->npes)
        sym_job_boot_wake(b->job);
    struct sym_waiter waiter = {boot_all_arrived, boot_describe, &w, NULL};
    struct sym_deadline dl = sym_deadline_named(step, sb->timeout, sb->timeout_name);
    return sym_wait_for_sleeping(&dl, &waiter, boot_sleep);
}

/* Write, one barrier, read.  The blob used is the parity of that barrier:
 * two allgathers on consecutive barriers use different blobs, and a later
 * one using the same blob comes after a barrier every PE entered only once
 * done reading, so writes never meet reads. */
static sym_status_t symrun_allgather(struct sym_boot *b, const void *mine, size_t len, void *all)
{
    struct symrun_boot *sb = (struct symrun_boot *)b;
    if (len > SYM_JOB_BLOB_MAX)
        return sym_error(SYM_ERR_INTERNAL,
                         "sym_init (symrun bootstrap allgather): a blob of %zu bytes is more "
                         "than the %d the launcher's control segment holds",
                         len, SYM_JOB_BLOB_MAX);
    const unsigned k = (unsigned)((sb->barriers + 1) & 1);
    struct sym_job_pe *slot = &b->job->pe[b->rank];
    memcpy(slot->blob[k], mine, len);
    slot->blob_len[k] = (uint32_t)len;
    sym_status_t st = symrun_barrier(b, "sym_init (bootstrap allgather)");
    if (st != SYM_OK)
        return st;
    for (int i = 0; i < b->size; i++) {
        if (b->job->pe[i].blob_len[k] != len)
            return sym_error(SYM_ERR_BOOTSTRAP,
                             "sym_init: PE %d published %u bootstrap bytes, expected %zu "
                             "(PEs run different symheap versions?)",
                             i, b->job->pe[i].blob_len[k], len);
        memcpy((char *)all + (size_t)i * len, b->job->pe[i].blob[k], len);
    }
    return SYM_OK;
}

static void symrun_set_state(struct sym_boot *b, int state)
{
    __atomic_store_n(&b->job->pe[b->rank].state, (uint32_t)state, __ATOMIC_RELEASE);
}

static void symrun_fini(struct sym_boot *b)
{
    struct symrun_boot *sb = (struct symrun_boot *)b;
    munmap(b->job, sb->map_len);
    sym_secret_wipe(&b->secret, sizeof(b->secret));
    free(sb);
}

static const struct sym_boot_ops symrun_ops = {
    .name = "symrun",
    .allgather = symrun_allgather,
    .barrier = symrun_barrier,
    .set_state = symrun_set_state,
    .fini = symrun_fini,
};

sym_status_t sym_boot_symrun_open(const struct sym_boot_settings *cfg, struct sym_boot **boot_p)
{
    /* Set by the launcher (config_table.h); parsed, not trusted. */
    if (!cfg->symrun_fd_set || !cfg->symrun_pe_set || !cfg->symrun_npes_set ||
        cfg->symrun_fd > INT_MAX || cfg->symrun_npes < 1 || cfg->symrun_npes > SYM_JOB_MAX_PES ||
        cfg->symrun_pe >= cfg->symrun_npes) {
        char a[24], b[24], c[24];
        return sym_error(
            SYM_ERR_BOOTSTRAP,
            "sym_init: inconsistent launcher environment %s=%s %s=%s %s=%s "
            "(symrun sets all three: PE 0..NPES-1 of 1..%d PEs)",
            SYM_ENV_SYMRUN_FD, launcher_var(a, sizeof(a), cfg->symrun_fd_set, cfg->symrun_fd),
            SYM_ENV_SYMRUN_PE, launcher_var(b, sizeof(b), cfg->symrun_pe_set, cfg->symrun_pe),
            SYM_ENV_SYMRUN_NPES, launcher_var(c, sizeof(c), cfg->symrun_npes_set, cfg->symrun_npes),
            SYM_JOB_MAX_PES);
    }
    long fd = (long)cfg->symrun_fd, pe = (long)cfg->symrun_pe, npes = (long)cfg->symrun_npes;
    size_t len = sym_job_ctrl_size((uint32_t)npes);
    struct stat st;
    int seals = fcntl((int)fd, F_GET_SEALS);
    if (fstat((int)fd, &st) != 0 || !S_ISREG(st.st_mode) || (size_t)st.st_size != len ||
        st.st_uid != getuid() || seals < 0 ||
        (seals & (F_SEAL_SHRINK | F_SEAL_GROW)) != (F_SEAL_SHRINK | F_SEAL_GROW))
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: %s=%ld is not this job's control segment "
                         "(closed, wrong size or owner, or not a sealed memfd); was the program "
                         "started by symrun?",
                         SYM_ENV_SYMRUN_FD, fd);
    void *map = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
    if (map == MAP_FAILED)
        return sym_error(SYM_ERR_SYSTEM, "sym_init: mmap of the job control segment: %s",
                         strerror(errno));
    struct sym_job_ctrl *job = map;
    pid_t owner_pid;
    unsigned long long owner_start;
    if (job->magic != SYM_JOB_MAGIC || job->version != SYM_JOB_VERSION ||
        job->npes != (uint32_t)npes || strnlen(job->key, sizeof(job->key)) != SYM_JOB_KEY_LEN ||
        sym_owner_parse(job->owner, strnlen(job->owner, sizeof(job->owner)), &owner_pid,
                        &owner_start) != 0) {
        munmap(map, len);
        return sym_error(SYM_ERR_BOOTSTRAP,
                         "sym_init: job control segment has a bad header (launcher and "
                         "library versions differ?)");
    }
    struct symrun_boot *sb = calloc(1, sizeof(*sb));
    if (!sb) {
        munmap(map, len);
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the bootstrap");
    }
    /* Programs the PE spawns must not inherit a handle to the job.  The
     * descriptor itself stays open so a failed sym_init() can be retried. */
    fcntl((int)fd, F_SETFD, FD_CLOEXEC);
    sb->base.ops = &symrun_ops;
    sb->timeout = cfg->timeout;
    sb->timeout_name = cfg->timeout_name;
    sb->base.rank = (int)pe;
    sb->base.size = (int)npes;
    memcpy(sb->base.key, job->key, sizeof(sb->base.key));
    memcpy(sb->base.owner, job->owner, sizeof(sb->base.owner));
    /* The segment came as a descriptor inherited from the launcher (no
     * other process of another user can open it), so its secret is the
     * job's.  Not the environment: a PE's environment is inherited by
     * everything it starts and shows in /proc/<pid>/environ. */
    memcpy(sb->base.secret.bytes, job->secret, SYM_JOB_SECRET_LEN);
    sb->base.secret.len = SYM_JOB_SECRET_LEN;
    sb->base.job = job;
    sb->map_len = len;
    sb->barriers = __atomic_load_n(&job->pe[pe].boot_arrivals, __ATOMIC_ACQUIRE);
    *boot_p = (struct sym_boot *)sb; /* base is the first member */
    return SYM_OK;
}
