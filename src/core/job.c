/* job.c - the job queries of the public API and sym_global_exit, over the
 * runtime state. */
#include <stdlib.h>

#include "base/health.h"
#include "bootstrap/bootstrap.h"
#include "core/internal.h"
#include "launch/job.h"

SYM_API int sym_thread_level(void)
{
    return sym_rt.initialized ? sym_rt.thread_level : -1;
}

SYM_API int sym_initialized(void)
{
    return sym_rt.initialized ? 1 : 0;
}

SYM_API int sym_my_pe(void)
{
    return sym_rt.initialized ? sym_rt.me : -1;
}

SYM_API int sym_n_pes(void)
{
    return sym_rt.initialized ? sym_rt.npes : -1;
}

SYM_API void sym_global_exit(int status)
{
    /* The job ends with the status of the first PE that ended it: a PE
     * that calls this after another did (say, because its wait failed with
     * SYM_ERR_ABORTED) exits with that status and leaves the abort word as
     * it is, so every PE, and the launcher, report the one status asked
     * for, whichever PE noticed first. */
    int32_t raised = 0;
    uint32_t raised_by = sym_health_abort_by(&raised);
    if (raised_by && raised_by <= (uint32_t)(sym_rt.npes > 0 ? sym_rt.npes : 0))
        exit(raised); /* a PE's, not the launcher's */
    uint32_t by = (uint32_t)(sym_rt.me >= 0 ? sym_rt.me : 0) + 1;
    if (sym_rt.job) {
        sym_rt.job->abort_status = status;
        __atomic_store_n(&sym_rt.job->abort_by, by, __ATOMIC_RELEASE);
    }
    /* Every PE whose heap is reached here, mapped now if it was not yet. */
    for (int pe = 0; sym_rt.peer_base && sym_rt.peer_tp && pe < sym_rt.npes; pe++) {
        struct sym_heap_ctrl *hc = sym_rt.peer_tp[pe] ? sym_direct(pe, 0) : NULL;
        if (!hc)
            continue;
        hc->abort_status = status;
        __atomic_store_n(&hc->abort_by, by, __ATOMIC_RELEASE);
    }
    /* PEs whose heaps are not mapped here, without a launcher's segment
     * (the TCP rendezvous, other hosts): the bootstrap tells them. */
    if (sym_rt.boot && sym_rt.boot->ops->raise_abort)
        sym_rt.boot->ops->raise_abort(sym_rt.boot, status);
    exit(status);
}
