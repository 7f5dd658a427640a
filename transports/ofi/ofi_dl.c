/* ofi_dl.c - libfabric loaded on first use: see ofi_fabric.h for why. */
#include <dlfcn.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>

#include "ofi_fabric.h"

#define OFI_DL_SONAME "libfabric.so.1"

/* name, return type, parameters, arguments */
#define OFI_DL_FUNCS(X)                                                                            \
    X(fi_getinfo, int,                                                                             \
      (uint32_t version, const char *node, const char *service, uint64_t flags,                    \
       const struct fi_info *hints, struct fi_info **info),                                        \
      (version, node, service, flags, hints, info))                                                \
    X(fi_freeinfo, void, (struct fi_info * info), (info))                                          \
    X(fi_dupinfo, struct fi_info *, (const struct fi_info *info), (info))                          \
    X(fi_fabric, int, (struct fi_fabric_attr * attr, struct fid_fabric * *fabric, void *context),  \
      (attr, fabric, context))                                                                     \
    X(fi_strerror, const char *, (int errnum), (errnum))                                           \
    X(fi_version, uint32_t, (void), ())

static struct {
#define OFI_DL_PTR(name, ret, params, args) ret(*name) params;
    OFI_DL_FUNCS(OFI_DL_PTR)
#undef OFI_DL_PTR
} fn;

static pthread_once_t once = PTHREAD_ONCE_INIT;
static char load_error[256];

/* Signals whose disposition belongs to the program: provider libraries'
 * constructors (libinfinipath) take them over when libfabric is loaded. */
static const int kept_signals[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGSEGV,
                                   SIGBUS,  SIGILL, SIGFPE, SIGABRT, SIGPIPE};
#define NKEPT (sizeof(kept_signals) / sizeof(kept_signals[0]))

static void load(void)
{
    struct sigaction before[NKEPT];
    for (size_t k = 0; k < NKEPT; k++)
        sigaction(kept_signals[k], NULL, &before[k]);
    void *h = dlopen(OFI_DL_SONAME, RTLD_NOW | RTLD_LOCAL);
    for (size_t k = 0; k < NKEPT; k++)
        sigaction(kept_signals[k], &before[k], NULL);
    if (!h) {
        snprintf(load_error, sizeof(load_error), "cannot load %s: %s", OFI_DL_SONAME, dlerror());
        return;
    }
#define OFI_DL_SYM(name, ret, params, args)                                                        \
    if (!(*(void **)&fn.name = dlsym(h, #name))) {                                                 \
        snprintf(load_error, sizeof(load_error), "%s has no %s", OFI_DL_SONAME, #name);            \
        return;                                                                                    \
    }
    OFI_DL_FUNCS(OFI_DL_SYM)
#undef OFI_DL_SYM
    /* the handle stays open: providers keep threads and state in it */
}

int ofi_dl_load(char *why, size_t len)
{
    pthread_once(&once, load);
    if (!load_error[0])
        return 0;
    snprintf(why, len, "%s", load_error);
    return -1;
}

/* The wrappers are only reached after ofi_dl_load() succeeded. */
#define OFI_DL_WRAP(name, ret, params, args)                                                       \
    ret sym_ofi_##name params                                                                      \
    {                                                                                              \
        return fn.name args;                                                                       \
    }
OFI_DL_FUNCS(OFI_DL_WRAP)
#undef OFI_DL_WRAP
