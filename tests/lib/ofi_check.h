/* ofi_check.h - the provider matrix of the libfabric transport tests
 * (test_ofi*.c): every case runs with every peer forced through libfabric
 * (SYMHEAP_TRANSPORT=ofi) over each provider of `ofi_providers`. */
#ifndef TEST_OFI_CHECK_H
#define TEST_OFI_CHECK_H

#include <stdio.h>

#include "harness.h"

static const char *const ofi_providers[] = {"tcp;ofi_rxm", "shm"};

struct ofi_param {
    int provider; /* index into ofi_providers */
    int npes;
};

static inline void param_env(const struct ofi_param *p, char *prov_var, size_t len,
                             const char *env[4])
{
    snprintf(prov_var, len, "SYMHEAP_OFI_PROVIDER=%s", ofi_providers[p->provider]);
    env[0] = "SYMHEAP_TRANSPORT=ofi";
    env[1] = prov_var;
    env[2] = "SYMHEAP_TIMEOUT=120";
    env[3] = NULL;
}

static inline void run_ofi(const struct ofi_param *p, pe_body_fn body)
{
    char var[96];
    const char *env[4];
    param_env(p, var, sizeof(var), env);
    run_pes_env(p->npes, env, body, (void *)p);
}

#endif /* TEST_OFI_CHECK_H */
