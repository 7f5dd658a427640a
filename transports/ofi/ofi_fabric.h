/*
 * ofi_fabric.h - libfabric's headers, with its few exported functions
 * renamed to wrappers that call into a libfabric loaded on first use
 * (ofi_dl.c).
 *
 * Why not link libfabric: loading it pulls in provider libraries such as
 * libinfinipath, whose constructor installs handlers for SIGTERM, SIGINT,
 * SIGSEGV, SIGBUS, SIGILL and SIGABRT that print a backtrace and exit(1).
 * Every program linked with symheap would then exit 1 (flushing stdio from
 * a signal handler) instead of dying by the signal, even one that never
 * uses libfabric.  Loading it only when the ofi transport is opened keeps
 * shm-only jobs untouched.  Everything else libfabric offers is inline in
 * its headers and reaches the provider through the objects' ops tables.
 */
#ifndef SYM_OFI_FABRIC_H
#define SYM_OFI_FABRIC_H

#include <stddef.h>

#define fi_getinfo  sym_ofi_fi_getinfo
#define fi_freeinfo sym_ofi_fi_freeinfo
#define fi_dupinfo  sym_ofi_fi_dupinfo
#define fi_fabric   sym_ofi_fi_fabric
#define fi_strerror sym_ofi_fi_strerror
#define fi_version  sym_ofi_fi_version

#include <rdma/fabric.h>
#include <rdma/fi_atomic.h>
#include <rdma/fi_cm.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_endpoint.h>
#include <rdma/fi_errno.h>
#include <rdma/fi_rma.h>

/* Load libfabric.so.1 and resolve its functions, once per process
 * (thread-safe).  0 on success; else -1 with the reason in `why`. */
int ofi_dl_load(char *why, size_t len);

#endif /* SYM_OFI_FABRIC_H */
