/* progress.c - driving the transports that need the target to make calls. */
#include "core/internal.h"

bool sym_transports_need_progress(void)
{
    return sym_rt.nprogress > 0;
}

void sym_transports_progress(void)
{
    for (int i = 0; i < sym_rt.nprogress; i++)
        sym_rt.progress_tp[i]->ops->progress(sym_rt.progress_tp[i]);
}

bool sym_transports_sleep(long ns)
{
    struct sym_transport *tp = sym_rt.sleep_tp;
    if (!tp)
        return false;
    tp->ops->sleep(tp, ns);
    return true;
}

SYM_API void sym_make_progress(void)
{
    if (sym_transports_need_progress())
        sym_progress();
}
