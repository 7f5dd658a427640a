/* bootstrap.c - pick the bootstrap this process was started with. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "base/error.h"
#include "bootstrap.h"

int sym_boot_random_key(char *key)
{
    unsigned char raw[SYM_JOB_KEY_LEN / 2];
    size_t got = 0;
    while (got < sizeof(raw)) {
        ssize_t n = getrandom(raw + got, sizeof(raw) - got, 0);
        if (n < 0)
            return -1;
        got += (size_t)n;
    }
    for (size_t i = 0; i < sizeof(raw); i++)
        snprintf(key + 2 * i, 3, "%02x", raw[i]);
    return 0;
}

/* SYMHEAP_BOOTSTRAP=auto: the most specific sign first.  symrun marks its
 * PEs explicitly; SYMHEAP_ROOT_ADDR is only set on purpose; PMIX_NAMESPACE
 * is set by every PMIx launcher (mpirun, prterun, srun --mpi=pmix) and
 * inherited by whatever they start, so it comes last. */
sym_status_t sym_boot_open(const struct sym_boot_settings *set, struct sym_boot **boot_p)
{
    const unsigned mode = set->mode;
    const bool any = mode == SYM_CFG_BOOTSTRAP_AUTO;
    sym_status_t st;
    if (mode == SYM_CFG_BOOTSTRAP_SYMRUN || (any && set->symrun_fd_set))
        st = sym_boot_symrun_open(set, boot_p);
    else if (mode == SYM_CFG_BOOTSTRAP_TCP || (any && set->root_addr[0]))
        st = sym_boot_tcp_open(set, boot_p);
    else if (mode == SYM_CFG_BOOTSTRAP_PMIX || (any && getenv("PMIX_NAMESPACE")))
        st = sym_boot_pmix_open(set, boot_p);
    else
        st = sym_boot_singleton_open(boot_p);
    /* A bootstrap without a launcher that takes the PEs down with it: each
     * PE owns its own objects (peers learn the owner at the allgather). */
    if (st == SYM_OK && (*boot_p)->owner[0] == '\0')
        sym_owner_tag(getpid(), (*boot_p)->owner);
    return st;
}
