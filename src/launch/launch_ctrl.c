/*
 * launch_ctrl.c - the job control segment (job.h) as the launcher creates
 * it: a random key, a memfd whose descriptor every PE inherits, and the job
 * abort word the launcher raises.  The memfd has no name at any moment, so
 * no other user can watch for it, open it or create it first; it holds the
 * job key and owner, which only the job's processes ever see.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "launch_job.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

static int make_key(char key[SYM_JOB_KEY_LEN + 1])
{
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[SYM_JOB_KEY_LEN / 2];
    size_t got = 0;

    while (got < sizeof raw) {
        ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof raw; i++) {
        key[2 * i] = hex[raw[i] >> 4];
        key[2 * i + 1] = hex[raw[i] & 15];
    }
    key[SYM_JOB_KEY_LEN] = '\0';
    return 0;
}

/* The job secret, straight from the kernel's generator (the launcher
 * links no cryptography library; getrandom is what it would use). */
static int draw_secret(uint8_t secret[SYM_JOB_SECRET_LEN])
{
    size_t got = 0;
    while (got < SYM_JOB_SECRET_LEN) {
        ssize_t n = getrandom(secret + got, SYM_JOB_SECRET_LEN - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        got += (size_t)n;
    }
    return 0;
}

/* PEs find the segment by descriptor number, so it must survive exec and
 * must not sit on 0-2, where a PE's stdio (or our output pipes) go. */
static int make_inheritable(int fd)
{
    if (fd < 3) {
        int moved = fcntl(fd, F_DUPFD, 3);
        int err = errno;
        close(fd);
        errno = err;
        return moved;
    }
    int flags = fcntl(fd, F_GETFD);
    if (flags < 0 || fcntl(fd, F_SETFD, flags & ~FD_CLOEXEC) < 0) {
        int err = errno;
        close(fd);
        errno = err;
        return -1;
    }
    return fd;
}

static int ctrl_open(struct job *job)
{
    /* The job lives as long as this process does (the PEs die with it:
     * PR_SET_PDEATHSIG), so it is the job's owner. */
    sym_owner_tag(job->self, job->owner);
    if (make_key(job->key) != 0) {
        launch_error("cannot draw a random job key: %s", strerror(errno));
        return -1;
    }
    int fd = memfd_create("symheap-job", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0)
        launch_error("cannot create the job control segment (memfd): %s", strerror(errno));
    return fd;
}

int launch_ctrl_create(struct job *job)
{
    int fd = ctrl_open(job);
    if (fd < 0)
        return -1;

    size_t size = sym_job_ctrl_size((uint32_t)job->npes);
    int err = 0;
    if (ftruncate(fd, (off_t)size) != 0)
        err = errno;
    /* Reserve the pages now: a tmpfs that cannot back them would otherwise
     * kill a PE with SIGBUS later. */
    if (err == 0)
        err = posix_fallocate(fd, 0, (off_t)size);
    /* No PE can shrink it under the others (a SIGBUS in every PE). */
    if (err == 0 && fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) != 0)
        err = errno;
    if (err != 0) {
        launch_error("cannot size the job control segment (%zu bytes): %s", size, strerror(err));
        close(fd);
        return -1;
    }
    void *map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED) {
        launch_error("cannot map the job control segment: %s", strerror(errno));
        close(fd);
        return -1;
    }
    fd = make_inheritable(fd);
    if (fd < 0) {
        launch_error("cannot pass the job control segment to PEs: %s", strerror(errno));
        munmap(map, size);
        return -1;
    }

    struct sym_job_ctrl *ctrl = map;
    ctrl->magic = SYM_JOB_MAGIC;
    ctrl->version = SYM_JOB_VERSION;
    ctrl->npes = (uint32_t)job->npes;
    memcpy(ctrl->key, job->key, sizeof ctrl->key);
    memcpy(ctrl->owner, job->owner, sizeof ctrl->owner);
    if (draw_secret(ctrl->secret) != 0) {
        launch_error("cannot draw a random job secret: %s", strerror(errno));
        munmap(map, size);
        close(fd);
        return -1;
    }
    memcpy(job->secret, ctrl->secret, sizeof job->secret);
    job->ctrl = ctrl;
    job->ctrl_size = size;
    job->ctrl_fd = fd;
    return 0;
}

void launch_ctrl_destroy(struct job *job)
{
    if (job->ctrl != NULL)
        munmap(job->ctrl, job->ctrl_size);
    if (job->ctrl_fd >= 0)
        close(job->ctrl_fd);
    job->ctrl = NULL;
    job->ctrl_fd = -1;
}

/* Publishing the status before the abort word lets a PE that sees the word
 * read the status.  A PE raising the word in the same instant may have its
 * status overwritten; the word itself still names whoever won. */
void launch_raise_abort(struct job *job, int status)
{
    uint32_t expected = 0;

    if (__atomic_load_n(&job->ctrl->abort_by, __ATOMIC_ACQUIRE) != 0)
        return;
    __atomic_store_n(&job->ctrl->abort_status, status, __ATOMIC_RELAXED);
    if (__atomic_compare_exchange_n(&job->ctrl->abort_by, &expected, (uint32_t)job->npes + 1, false,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
        job->aborted = true;
}
