/*
 * threads_main.c - the thread workload (threads_workload.h) as a plain
 * program: `symrun -n N threads_main [REPEATS]`.  No Criterion, so it also
 * runs in ThreadSanitizer builds (Criterion's runner does not start there).
 * Prints "PE x ok" and exits 0, or names the failed check and exits 1.
 */
#include <stdio.h>
#include <stdlib.h>

#include <symheap.h>

#include "plain_check.h"

#include "threads_workload.h"

int main(int argc, char **argv)
{
    int repeats = argc > 1 ? atoi(argv[1]) : 1;
    int provided = -1;
    PE_OK(sym_init_thread(SYM_THREAD_MULTIPLE, &provided));
    PE_ASSERT(provided == SYM_THREAD_MULTIPLE, "provided %d", provided);
    for (int r = 0; r < repeats; r++) {
        g_hits = 0; /* the workload counts from zero */
        memset(g_hits32, 0, sizeof(g_hits32));
        PE_OK(sym_barrier_all());
        threads_body(sym_my_pe(), sym_n_pes(), NULL);
    }
    int me = sym_my_pe();
    PE_OK(sym_finalize());
    printf("PE %d ok\n", me);
    return 0;
}
