/* bootstrap.c - pick the bootstrap this process was started with. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/random.h>
#include <unistd.h>

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

sym_status_t sym_boot_open(struct sym_boot **boot_p)
{
    sym_status_t st = getenv(SYM_ENV_SYMRUN_FD) ? sym_boot_symrun_open(boot_p)
                                                : sym_boot_singleton_open(boot_p);
    /* A bootstrap without a launcher that takes the PEs down with it: each
     * PE owns its own objects (peers learn the owner at the allgather). */
    if (st == SYM_OK && (*boot_p)->owner[0] == '\0')
        sym_owner_tag(getpid(), (*boot_p)->owner);
    return st;
}
