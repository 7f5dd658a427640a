/* config_cases.c - the variables of every table and their malformed
 * values, for the configuration tests. */
#include <stdlib.h>

#include "config_cases.h"
#include "core/internal.h"

/* Every variable of every table (the job's, then each transport class's),
 * in table order: names and defaults. */
#define MAXVARS 128
const char *table_names[MAXVARS];
const char *table_defaults[MAXVARS];
size_t nvars;

static void add_table(const struct sym_cfg_table *t)
{
    for (size_t i = 0; i < t->nvars && nvars < MAXVARS; i++) {
        table_names[nvars] = t->vars[i].name;
        table_defaults[nvars++] = t->vars[i].dflt;
    }
}

/* Filled before any test runs (the runner's workers fork after). */
__attribute__((constructor)) static void collect_tables(void)
{
    add_table(&sym_config_job_table);
    for (size_t k = 0; k < sym_transport_nclasses; k++)
        if (sym_transport_classes[k]->settings)
            add_table(sym_transport_classes[k]->settings);
}

const struct env_case bad_env[] = {
    {"SYMHEAP_HEAP_SIZE", "abc", SYM_ERR_CONFIG, "2M"},
    {"SYMHEAP_HEAP_SIZE", "0", SYM_ERR_CONFIG, "2M"},
    {"SYMHEAP_TIMEOUT", "-3", SYM_ERR_CONFIG, "30"},
    {"SYMHEAP_TIMEOUT", "0", SYM_ERR_CONFIG, "30"},
    {"SYMHEAP_TIMEOUT", "xyz", SYM_ERR_CONFIG, "30"},
    {"SYMHEAP_INIT_TIMEOUT", "1.5", SYM_ERR_CONFIG, "30"},
    {"SYMHEAP_INIT_TIMEOUT", "86401", SYM_ERR_CONFIG, "30"},
    {"SYMHEAP_TIMEOUT", "86400.5", SYM_ERR_CONFIG, "30"},
    {"SYMHEAP_DEBUG", "maybe", SYM_ERR_CONFIG, "0"},
    {"SYMHEAP_QUIET", "hush", SYM_ERR_CONFIG, "1"},
    {"SYMHEAP_MAILBOX_SIZE", "1Q", SYM_ERR_CONFIG, "256K"},
    {"SYMHEAP_HEAP_PREALLOC", "2", SYM_ERR_CONFIG, "1"},
    {"SYMHEAP_COLL_CHECK", "paranoid", SYM_ERR_CONFIG, "off"},
    {"SYMHEAP_TRANSPORT", "carrier-pigeon", SYM_ERR_CONFIG, "shm"},
    {"SYMHEAP_SHM_MAP", "sometimes", SYM_ERR_CONFIG, "lazy"},
    {"SYMHEAP_WAIT_SPIN", "-5", SYM_ERR_CONFIG, "100"},
    {"SYMHEAP_WAIT_YIELD_US", "1e3", SYM_ERR_CONFIG, "1000"},
#ifndef SYM_HAVE_OFI /* with libfabric it works: test_ofi */
    {"SYMHEAP_TRANSPORT", "ofi", SYM_ERR_UNAVAILABLE, "auto"},
#endif
    {"SYMHEAP_TEAM_AREA_SIZE", "1K", SYM_ERR_CONFIG, "64K"},
    {"SYMHEAP_TEAM_AREA_SIZE", "1G", SYM_ERR_CONFIG, "64K"},
    {"SYMHEAP_TEAM_REGION_SIZE", "lots", SYM_ERR_CONFIG, "128M"},
    {"SYMHEAP_STAGING_SIZE", "a lot", SYM_ERR_CONFIG, "1M"},
    {"SYMHEAP_CMA", "sometimes", SYM_ERR_CONFIG, "off"},
    {"SYMHEAP_COLL_TUNING", "allreduce.pair=fastest", SYM_ERR_CONFIG,
     "allreduce.pair=naive:4K,ring"},
    {"SYMHEAP_COLL_TUNING", "allreduce.pair=direct", SYM_ERR_CONFIG, "direct.cma_min=1M"},
    {"SYMHEAP_COLL_TUNING", "gather.sometimes=naive", SYM_ERR_CONFIG, "gather.crowded=tree"},
    {"SYMHEAP_CHUNK_SIZE", "10", SYM_ERR_CONFIG, "64K"},
    {"SYMHEAP_CHUNK_SIZE", "lots", SYM_ERR_CONFIG, "64K"},
    {"SYMHEAP_BARRIER_ALGORITHM", "ring", SYM_ERR_CONFIG, "rd"},
    {"SYMHEAP_BROADCAST_ALGORITHM", "rd", SYM_ERR_CONFIG, "tree"},
    {"SYMHEAP_REDUCE_ALGORITHM", "pairwise", SYM_ERR_CONFIG, "ring"},
    {"SYMHEAP_ALLREDUCE_ALGORITHM", "fastest", SYM_ERR_CONFIG, "rd"},
    {"SYMHEAP_REDUCE_SCATTER_ALGORITHM", "tree", SYM_ERR_CONFIG, "ring"},
    {"SYMHEAP_ALL_GATHER_ALGORITHM", "pairwise", SYM_ERR_CONFIG, "ring"},
    {"SYMHEAP_ALL_TO_ALL_ALGORITHM", "ring", SYM_ERR_CONFIG, "pairwise"},
    {"SYMHEAP_GATHER_ALGORITHM", "ring", SYM_ERR_CONFIG, "tree"},
    {"SYMHEAP_SCATTER_ALGORITHM", "RING", SYM_ERR_CONFIG, "naive"},
    {"SYMHEAP_GLOBALS", "share", SYM_ERR_CONFIG, "remap"},
    {"SYMHEAP_FAULT", "explode:pe=0:op=put:count=1", SYM_ERR_CONFIG, "none"},
    {"SYMHEAP_FAULT", "kill:pe=0:op=teleport:count=1", SYM_ERR_CONFIG, "kill:pe=0:op=recv:count=9"},
    {"SYMHEAP_FAULT", "kill:pe=0:op=put:count=0", SYM_ERR_CONFIG, "stall:pe=0:op=scatter:count=1"},
    {"SYMHEAP_FAULT", "kill:pe=0:op=put", SYM_ERR_CONFIG, ""},
    {"SYMHEAP_FAULT", "kill:pe=-1:op=put:count=1", SYM_ERR_CONFIG, ""},
    {"SYMHEAP_FAULT", "kill:pe=0:op=put:count=1:seconds=5", SYM_ERR_CONFIG, ""},
    {"SYMHEAP_FAULT", "stall:pe=0:op=put:count=1:seconds=0", SYM_ERR_CONFIG, ""},
    {"SYMHEAP_BOOTSTRAP", "mpi", SYM_ERR_CONFIG, "auto"},
    {"SYMHEAP_RANK", "first", SYM_ERR_CONFIG, "0"},
    {"SYMHEAP_SIZE", "-2", SYM_ERR_CONFIG, "0"},
    {"SYMHEAP_ROOT_ADDR", "no-port-here", SYM_ERR_CONFIG, ""},
#ifdef SYM_HAVE_OFI /* the ofi transport's own table: only where it is built */
    {"SYMHEAP_OFI_EAGER_CONNECT", "sometimes", SYM_ERR_CONFIG, "0"},
    {"SYMHEAP_WAIT_POLL_US", "50us", SYM_ERR_CONFIG, "50"},
    {"SYMHEAP_OFI_PROVIDER", "a-provider-name-far-longer-than-sixty-three-characters-is-garbage",
     SYM_ERR_CONFIG, "tcp;ofi_rxm"},
    {"SYMHEAP_OFI_MR_FORCE", "local,virtual", SYM_ERR_CONFIG, "local,prov_key"},
    {"SYMHEAP_OFI_EAGAIN_EVERY", "often", SYM_ERR_CONFIG, "0"},
    {"SYMHEAP_OFI_IGNORE_ORDER", "unordered", SYM_ERR_CONFIG, "0"},
#endif
    /* checked whatever the bootstrap; the message never shows the secret */
    {"SYMHEAP_JOB_SECRET", "0123456789abcdef", SYM_ERR_CONFIG, "0123456789abcdef0123456789abcdef"},
    {"SYMHEAP_JOB_SECRET_FILE", "/nonexistent/secret", SYM_ERR_CONFIG, ""},
};
const size_t nbad = sizeof(bad_env) / sizeof(bad_env[0]);

void clear_symheap_env(void)
{
    for (size_t v = 0; v < NVARS; v++)
        unsetenv(table_names[v]);
}
