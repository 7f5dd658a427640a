/* progress.c - driving the transports that need the target to make calls. */
#include "core/internal.h"

bool sym_transports_need_progress(void)
{
    return sym_rt.ofi != NULL;
}

void sym_transports_progress(void)
{
    if (sym_rt.ofi)
        sym_rt.ofi->ops->progress(sym_rt.ofi);
}

bool sym_transports_sleep(long ns)
{
    if (!sym_rt.ofi || !sym_rt.ofi->ops->sleep)
        return false;
    sym_rt.ofi->ops->sleep(sym_rt.ofi, ns);
    return true;
}
