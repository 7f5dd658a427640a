/*
 * test_ofi_intruder.c - a stranger with a plain libfabric client against a
 * job over tcp;ofi_rxm (lib/ofi_victim.c, lib/ofi_intruder.c): with the
 * real key its reads and writes work, with the fixed keys of old versions
 * or random guesses every read and write of the heap and of the global
 * variables fails, and the PE's memory stays as it was.
 */
#include <criterion/criterion.h>
#include <stdio.h>
#include <stdlib.h>

#include "boot_jobs.h"

Test(ofi_intruder, guessed_keys_refused)
{
    const char *victim = getenv("OFI_VICTIM"), *intruder = getenv("OFI_INTRUDER");
    cr_assert(victim && intruder, "OFI_VICTIM and OFI_INTRUDER are set by meson");
    char addr[64];
    snprintf(addr, sizeof(addr), "SYMHEAP_ROOT_ADDR=127.0.0.1:%d", bjob_free_port());
    struct bjob job;
    bjob_init(&job, 2);
    for (int r = 0; r < 2; r++) {
        char rank[32];
        snprintf(rank, sizeof(rank), "SYMHEAP_RANK=%d", r);
        const char *env[] = {addr,
                             rank,
                             "SYMHEAP_SIZE=2",
                             "SYMHEAP_TIMEOUT=150",
                             "SYMHEAP_TRANSPORT=ofi",
                             "SYMHEAP_OFI_PROVIDER=tcp;ofi_rxm",
                             "FI_OFI_RXM_MSG_TX_SIZE=32",
                             "FI_OFI_RXM_MSG_RX_SIZE=32",
                             NULL};
        bjob_start_argv(&job, r, (const char *[]){victim, intruder, NULL}, env);
    }
    bjob_wait(&job, 200);
    bjob_assert_exit(&job, 0, 0);
    bjob_assert_exit(&job, 1, 0);
    bjob_assert_output(&job, 0, "got the target's bytes"); /* the control */
    bjob_assert_output(&job, 0, "read key 0x1: ");
    bjob_assert_output(&job, 0, "0 attempt(s) succeeded");
    bjob_assert_output(&job, 0, "pe 0 kept the intruder out");
    bjob_fini(&job);
}
