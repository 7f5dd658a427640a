/* symheap-info - print the configuration table, the values in force and what
 * this build of symheap can do. */
#include <stdio.h>
#include <string.h>

#include <stdlib.h>

#include "base/config.h"
#include "base/error.h"
#include "base/heap_layout.h"
#include "coll/tuning.h"
#include "launch/launcher.h"
#include "transport.h"

static void usage(FILE *out)
{
    fprintf(out, "Usage: symheap-info [--cleanup [--dry-run]] [--version] [-h|--help]\n"
                 "Prints symheap's version, every SYMHEAP_* environment variable with its\n"
                 "default and the value in force (the job's, then each transport's; and\n"
                 "any SYMHEAP_* variable of the environment that symheap does not know),\n"
                 "the heap layout, the collectives' automatic choices and the transports.\n"
                 "--cleanup removes from /dev/shm this user's objects of dead jobs of older\n"
                 "symheap versions (this one names nothing there; never\n"
                 "another user's, never a running job's) and this user's libfabric\n"
                 "shm-provider regions (<pid>:<n>:<n>, 16 MiB each) whose pid is gone, which\n"
                 "a PE killed outside symrun (mpirun, TCP rendezvous) leaves behind; never a\n"
                 "live pid's (processes in another pid namespace sharing /dev/shm look dead\n"
                 "to it).  It names each; with --dry-run it only names them.\n");
}

/* Load one transport's table into a new *values_p; nonzero (said on
 * stderr) when a value is malformed. */
static int load_settings(const struct sym_cfg_table *t, void **values_p)
{
    void *values = calloc(1, t->size);
    sym_status_t st = values ? sym_config_load_table(t, values) : SYM_ERR_NO_MEMORY;
    if (st != SYM_OK) {
        fprintf(stderr, "symheap-info: %s\n", values ? sym_last_error() : "out of memory");
        free(values);
        return 1;
    }
    *values_p = values;
    return 0;
}

/* Unknown SYMHEAP_* variables, each with the variable closest to it. */
static void list_unknown(const char *name, size_t len, const char *closest, void *arg)
{
    (void)arg;
    printf("  %.*s%s%s%s\n", (int)len, name, closest ? " (did you mean " : "",
           closest ? closest : "", closest ? "?)" : "");
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--version")) {
        printf("symheap-info (symheap) %s\n", SYM_VERSION_STRING);
        return 0;
    }
    if (argc > 1 && !strcmp(argv[1], "--cleanup") &&
        (argc == 2 || (argc == 3 && !strcmp(argv[2], "--dry-run")))) {
        bool dry = argc == 3;
        int n = sym_launch_sweep_stale(dry, stdout);
        int r = n < 0 ? -1 : sym_launch_sweep_provider_regions(dry, stdout);
        if (n < 0 || r < 0) {
            fprintf(stderr, "symheap-info: cannot read /dev/shm\n");
            return 1;
        }
        printf("%s %d stale object(s), %d libfabric shm region(s) of dead processes\n",
               dry ? "found" : "removed", n, r);
        return 0;
    }
    if (argc > 1) {
        bool help = !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help");
        usage(help ? stdout : stderr);
        return help ? 0 : 2;
    }
    printf("symheap %s\n\n", sym_version(NULL, NULL, NULL));
    struct sym_config cfg;
    sym_status_t st = sym_config_load(&cfg);
    if (st != SYM_OK) {
        fprintf(stderr, "symheap-info: %s\n", sym_last_error());
        return 1;
    }
    /* Every transport's table and the collectives' tuning too: a malformed
     * value fails before anything prints. */
    void *tp_values[SYM_TRANSPORTS_MAX] = {NULL};
    for (size_t k = 0; k < sym_transport_nclasses; k++)
        if (sym_transport_classes[k]->settings &&
            load_settings(sym_transport_classes[k]->settings, &tp_values[k]) != 0) {
            while (k--)
                free(tp_values[k]);
            return 1;
        }
    if (sym_tuning_init(cfg.coll_tuning.s) != SYM_OK) {
        fprintf(stderr, "symheap-info: %s\n", sym_last_error());
        for (size_t k = 0; k < sym_transport_nclasses; k++)
            free(tp_values[k]);
        return 1;
    }
    printf("Environment variables of the job:\n");
    sym_config_print(stdout, &cfg);
    const struct sym_cfg_others others = {sym_transport_settings, sym_transport_nsettings};
    if (sym_config_each_unknown(others, NULL, NULL) > 0) {
        printf("\nSYMHEAP_* variables of the environment that symheap does not know "
               "(ignored):\n");
        sym_config_each_unknown(others, list_unknown, NULL);
    }

    struct sym_heap_layout l;
    if (sym_heap_layout_compute(cfg.heap_size ? cfg.heap_size : SYM_HEAP_SIZE_DEFAULT,
                                cfg.mailbox_size, cfg.staging_size, cfg.team_region_size,
                                &l) == 0) {
        printf("\nHeap layout per PE (bytes%s):\n",
               cfg.set.heap_size ? ""
                                 : "; SYMHEAP_HEAP_SIZE auto: 256M for a PE alone, "
                                   "sym_init may take less to fit /dev/shm");
        printf("  control block + sync area  %llu\n", (unsigned long long)l.mailbox_off);
        printf("  mailbox region             %llu at offset %llu\n",
               (unsigned long long)l.mailbox_size, (unsigned long long)l.mailbox_off);
        printf("  staging area               %llu at offset %llu\n",
               (unsigned long long)l.staging_size, (unsigned long long)l.staging_off);
        printf("  user heap                  %llu at offset %llu\n",
               (unsigned long long)l.user_size, (unsigned long long)l.user_off);
        printf("  team region (on demand)    %llu at offset %llu\n",
               (unsigned long long)l.teams_size, (unsigned long long)l.teams_off);
        printf("  total mapping              %llu\n", (unsigned long long)l.total);
    }
    printf("\nCollectives' automatic choices (SYMHEAP_COLL_TUNING; docs/collectives.md):\n");
    sym_tuning_print(stdout);

    printf("\nTransports, tried per peer in this order (SYMHEAP_TRANSPORT=<name>: that one):\n");
    for (size_t k = 0; k < sym_transport_nclasses; k++) {
        const struct sym_transport_class *c = sym_transport_classes[k];
        printf("  %-5s %s\n", c->name, c->summary);
        if (c->describe)
            c->describe(stdout);
    }
    for (size_t k = 0; k < sym_transport_nclasses; k++) {
        const struct sym_transport_class *c = sym_transport_classes[k];
        if (!c->settings)
            continue;
        printf("\nSettings of the %s transport:\n", c->name);
        sym_config_print_table(stdout, c->settings, tp_values[k]);
        free(tp_values[k]);
    }
    printf("\nBootstraps: symrun (launcher control segment), tcp (SYMHEAP_ROOT_ADDR "
           "rendezvous, authenticated with SYMHEAP_JOB_SECRET), %s, singleton\n",
#ifdef SYM_HAVE_PMIX
           "pmix (mpirun, prterun, srun --mpi=pmix)"
#else
           "pmix: not built into this symheap"
#endif
    );
    return 0;
}
