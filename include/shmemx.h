/*
 * shmemx.h - OpenSHMEM extensions of symheap.  There are none yet; the
 * header exists because portable OpenSHMEM programs include it.
 */
#ifndef SYMHEAP_SHMEMX_H
#define SYMHEAP_SHMEMX_H

#include <shmem.h>

#endif /* SYMHEAP_SHMEMX_H */
