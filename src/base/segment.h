/*
 * segment.h - shared-memory segments: sealed memfds, mapped at aligned
 * addresses.  This PE's heap and global variables are such segments (made
 * by the runtime, src/core/memory.c, src/core/globals.c); the shm
 * transport maps its local peers' from the descriptors they hand over.
 *
 * Every segment is a memfd: no name anywhere (nothing in /dev/shm to open,
 * squat or leak), its size sealed (no process can shrink it under a peer's
 * mapping, which would SIGBUS the peer), its memory gone with its last
 * mapping.  Thread-safe: no state.
 */
#ifndef SYM_BASE_SEGMENT_H
#define SYM_BASE_SEGMENT_H

#include <stddef.h>

/* A memfd of `len` bytes named `what` (for /proc/<pid>/fd and maps only),
 * the memory of its first `prealloc_len` bytes reserved now (so exhaustion
 * is reported here, not as a SIGBUS later; refused with ENOSPC when the
 * host's shared memory has not that much room), its size sealed.  -1 with
 * the errno value in *err_p. */
int sym_segment_create(const char *what, size_t len, size_t prealloc_len, int *err_p);

/* Reserve the memory of bytes [off, off + len) of segment `fd` now
 * (posix_fallocate), so that exhaustion is this error, not a SIGBUS when
 * the bytes are first touched: 0, or the errno value (ENOSPC when the
 * host's shared memory has not that much room). */
int sym_segment_reserve(int fd, size_t off, size_t len);

/* Why `fd` is not a segment of `len` bytes a process of this uid made and
 * sealed, or NULL when it is. */
const char *sym_segment_check(int fd, size_t len);

/* mmap `fd` (len bytes, shared, read-write) at an address aligned to
 * `align` (a power of two), followed by `extra` bytes kept reserved
 * (inaccessible) for sym_segment_map_fixed; MAP_FAILED with errno on
 * failure.  Unmap len + extra bytes. */
void *sym_segment_map(int fd, size_t len, size_t extra, size_t align);

/* mmap `fd` (len bytes, shared, read-write) over [addr, addr + len) with
 * MAP_FIXED, straight to the kernel (a sanitizer's interceptor would treat
 * the range as fresh memory and reset its bookkeeping for it); MAP_FAILED
 * with errno on failure. */
void *sym_segment_map_fixed(void *addr, size_t len, int fd);

#endif /* SYM_BASE_SEGMENT_H */
