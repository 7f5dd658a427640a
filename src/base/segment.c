/* segment.c - sealed memfd segments and their aligned mappings. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/segment.h"

#define SEALS_SIZE (F_SEAL_SHRINK | F_SEAL_GROW)

/* A memfd lives in the kernel's internal tmpfs, which has no size limit of
 * its own: reserving more than the host's shared memory (/dev/shm's free
 * room, the budget an administrator set for it) would bring the OOM killer
 * instead of an error. */
static bool room_for(size_t len)
{
    struct statvfs v;
    if (statvfs("/dev/shm", &v) != 0)
        return true; /* no budget to go by: the reservation itself decides */
    return (unsigned long long)v.f_bavail * v.f_frsize >= len;
}

int sym_segment_create(const char *what, size_t len, size_t prealloc_len, int *err_p)
{
    int fd = memfd_create(what, MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        *err_p = errno;
        return -1;
    }
    if (prealloc_len > len)
        prealloc_len = len;
    int rc = ftruncate(fd, (off_t)len) ? errno : 0;
    if (rc == 0 && prealloc_len)
        rc = sym_segment_reserve(fd, 0, prealloc_len);
    if (rc == 0 && fcntl(fd, F_ADD_SEALS, SEALS_SIZE | F_SEAL_SEAL) != 0)
        rc = errno;
    if (rc != 0) {
        close(fd);
        *err_p = rc;
        return -1;
    }
    return fd;
}

int sym_segment_reserve(int fd, size_t off, size_t len)
{
    return !room_for(len) ? ENOSPC : posix_fallocate(fd, (off_t)off, (off_t)len);
}

const char *sym_segment_check(int fd, size_t len)
{
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode))
        return "not a regular file";
    if (st.st_uid != getuid())
        return "another owner";
    if ((size_t)st.st_size != len)
        return "another size";
    int seals = fcntl(fd, F_GET_SEALS);
    if (seals < 0 || (seals & SEALS_SIZE) != SEALS_SIZE)
        return "its size is not sealed";
    return NULL;
}

/* Reserve a larger range, place the mapping at its aligned start, return
 * the slack but the `extra` bytes after the mapping. */
void *sym_segment_map(int fd, size_t len, size_t extra, size_t align)
{
    size_t span = len + extra + align;
    uint8_t *r = mmap(NULL, span, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (r == MAP_FAILED)
        return MAP_FAILED;
    uintptr_t a = ((uintptr_t)r + align - 1) & ~(uintptr_t)(align - 1);
    void *p = mmap((void *)a, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        int err = errno;
        munmap(r, span);
        errno = err;
        return MAP_FAILED;
    }
    if ((uint8_t *)a > r)
        munmap(r, (size_t)((uint8_t *)a - r));
    size_t tail = (size_t)(r + span - ((uint8_t *)a + len + extra));
    if (tail)
        munmap((uint8_t *)a + len + extra, tail);
    return p;
}

void *sym_segment_map_fixed(void *addr, size_t len, int fd)
{
    return (void *)syscall(SYS_mmap, addr, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd,
                           (off_t)0);
}
