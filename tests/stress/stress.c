/*
 * stress.c - seeded random stress of every operation, checked against
 * locally computed references (see stress.h for the replay scheme): the
 * driver, which draws each step's operation family and runs its step
 * (stress_<family>.c), and the summary of what ran.
 */
#include "stress_private.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <symheap.h>

enum skind { S_RMA, S_AMO, S_WAIT, S_COLL, S_ICOLL, S_P2P, S_TEAM, S_ALLOC };

static enum skind pick_kind(struct rng *r)
{
    static const int weights[] = {[S_RMA] = 18,   [S_AMO] = 10, [S_WAIT] = 7, [S_COLL] = 35,
                                  [S_ICOLL] = 12, [S_P2P] = 9,  [S_TEAM] = 5, [S_ALLOC] = 4};
    int total = 0;
    for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++)
        total += weights[i];
    int x = (int)rbelow(r, (uint64_t)total);
    for (size_t i = 0; i < sizeof(weights) / sizeof(weights[0]); i++) {
        if (x < weights[i])
            return (enum skind)i;
        x -= weights[i];
    }
    return S_COLL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void summary(double secs)
{
    uint64_t tot[CNT_N + 1];
    uint64_t mine[CNT_N + 1];
    memcpy(mine, stress_state.count, sizeof(stress_state.count));
    mine[CNT_N] = stress_state.wrong;
    CALL(sym_reduce(sym_team_world(), tot, mine, CNT_N + 1, SYM_UINT64, SYM_OP_SUM, 0, NULL));
    if (stress_state.me != 0)
        return;
    uint64_t all = 0;
    for (int i = 0; i < CNT_N; i++)
        all += tot[i];
    fprintf(stderr, "stress: seed %" PRIu64 ", %d PEs, steps %" PRIu64 "..%" PRIu64 ", %.1f s\n",
            stress_state.o.seed, stress_state.n, stress_state.o.start_step, stress_state.step,
            secs);
    for (int i = 0; i < CNT_N; i++)
        if (tot[i])
            fprintf(stderr, "  %-26s %12" PRIu64 "\n", counter_names[i], tot[i]);
    fprintf(stderr, "stress: %" PRIu64 " operations executed (all PEs), %" PRIu64 " wrong\n", all,
            tot[CNT_N]);
    fflush(stderr);
}

int stress_run(const struct stress_opts *o)
{
    memset(&stress_state, 0, sizeof(stress_state));
    stress_state.o = *o;
    if (stress_state.o.max_bytes < 1024)
        stress_state.o.max_bytes = 1024;
    stress_state.me = sym_my_pe();
    stress_state.n = sym_n_pes();
    if (stress_state.n > MAXPE) {
        fprintf(stderr, "stress: at most %d PEs (got %d)\n", MAXPE, stress_state.n);
        return 1;
    }
    areas_init();
    stress_state.ent[0] = (struct entry){.live = true, .ngroups = 1, .team = sym_team_world()};
    stress_state.ent[0].g[0].n = stress_state.n;
    for (int i = 0; i < stress_state.n; i++)
        stress_state.ent[0].g[0].pe[i] = i;
    snprintf(stress_state.ent[0].desc, sizeof(stress_state.ent[0].desc), "world");
    entry_locate(&stress_state.ent[0]);
    CALL(sym_barrier_all());

    const double t0 = now_s();
    for (stress_state.step = 0;; stress_state.step++) {
        if (stress_state.o.steps && stress_state.step >= stress_state.o.steps)
            break;
        if (stress_state.o.minutes > 0 && stress_state.step >= stress_state.o.start_step &&
            stress_state.step % 8 == 0) {
            /* PE 0's clock decides for everyone */
            uint8_t stop = now_s() - t0 >= stress_state.o.minutes * 60;
            CALL(sym_broadcast(sym_team_world(), &stop, 1, SYM_UINT8, 0, NULL));
            if (stop)
                break;
        }
        stress_state.dry = stress_state.step < stress_state.o.start_step;
        struct rng r = rng_for(stress_state.step, 0, K_STEP);
        enum skind k = pick_kind(&r);
        if (stress_state.dry && k != S_TEAM && k != S_ALLOC)
            continue;
        switch (k) {
        case S_RMA:
            step_rma(&r);
            break;
        case S_AMO:
            step_amo(&r);
            break;
        case S_WAIT:
            step_wait(&r);
            break;
        case S_COLL:
            step_coll(&r, false);
            break;
        case S_ICOLL:
            step_coll(&r, true);
            break;
        case S_P2P:
            step_p2p(&r);
            break;
        case S_TEAM:
            step_team(&r);
            break;
        case S_ALLOC:
            step_alloc(&r);
            break;
        }
    }
    set_what("cleanup after the last step");
    for (int i = MAX_ENTRIES - 1; i > 0; i--)
        if (stress_state.ent[i].live && stress_state.ent[i].team != SYM_TEAM_INVALID) {
            CALL(sym_team_destroy(stress_state.ent[i].team));
            stress_state.count[CNT_TEAM_DESTROY]++;
        }
    for (int i = 0; i < MAX_OBJS; i++)
        if (stress_state.obj[i].live) {
            obj_check(&stress_state.obj[i], stress_state.obj[i].size,
                      "a live symmetric object at the end");
            sym_free(stress_state.obj[i].p);
            stress_state.count[CNT_FREE]++;
        }
    areas_fini();
    summary(now_s() - t0);
    return stress_state.wrong ? 1 : 0;
}
