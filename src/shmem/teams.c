/*
 * teams.c - OpenSHMEM teams, contexts and memory ordering.
 *
 * Contexts and teams: OpenSHMEM 1.5 says shmem_team_destroy destroys the
 * shareable contexts made from the team, and that using a private context
 * of a destroyed team is undefined.  Here both kinds are "orphaned" by the
 * destroy: marked dead and kept allocated (in a list, so never leaked), so
 * that a later shmem_ctx_* call on one ends the job with a message saying
 * what happened instead of reading freed memory; shmem_ctx_destroy frees an
 * orphan like any other context.
 */
#include <pthread.h>
#include <stdlib.h>

#include "shmem_internal.h"

struct symshmem_team symshmem_team_world_ = {.predefined = true};
struct symshmem_team symshmem_team_shared_ = {.predefined = true};
struct symshmem_ctx symshmem_ctx_default_ = {.team = &symshmem_team_world_, .live = true};

/* Context lists (struct symshmem_team.ctxs, orphans) change under this
 * lock: threads may create and destroy contexts and teams concurrently.
 * The communication path never takes it. */
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static struct symshmem_ctx *orphans; /* contexts whose team was destroyed */

static void ctx_link(struct symshmem_ctx **head, struct symshmem_ctx *c)
{
    c->next = *head;
    if (c->next)
        c->next->prev_next = &c->next;
    c->prev_next = head;
    *head = c;
}

static void ctx_unlink(struct symshmem_ctx *c)
{
    if (!c->prev_next)
        return;
    *c->prev_next = c->next;
    if (c->next)
        c->next->prev_next = c->prev_next;
    c->next = NULL;
    c->prev_next = NULL;
}

/* The team is going away: its contexts become orphans (ctx_lock held). */
static void orphan_contexts(struct symshmem_team *team)
{
    while (team->ctxs) {
        struct symshmem_ctx *c = team->ctxs;
        ctx_unlink(c);
        c->live = false;
        c->team = NULL;
        ctx_link(&orphans, c);
    }
}

sym_status_t symshmem_teams_init(void)
{
    symshmem_team_world_.t = sym_team_world();
    symshmem_team_world_.config.num_contexts = 0;
    symshmem_team_shared_.config.num_contexts = 0;
    symshmem_ctx_default_.team = &symshmem_team_world_;
    symshmem_ctx_default_.live = true;
    /* SHMEM_TEAM_SHARED: the PEs whose heaps this PE maps (shmem_ptr
     * gives pointers to their objects). */
    return sym_team_split_shared(symshmem_team_world_.t, &symshmem_team_shared_.t);
}

void symshmem_teams_fini(void)
{
    /* shmem_finalize destroys every team, so every context. */
    pthread_mutex_lock(&ctx_lock);
    orphan_contexts(&symshmem_team_world_);
    orphan_contexts(&symshmem_team_shared_);
    pthread_mutex_unlock(&ctx_lock);
    if (symshmem_team_shared_.t != SYM_TEAM_INVALID)
        symshmem_ignore(sym_team_destroy(symshmem_team_shared_.t));
    symshmem_team_shared_.t = SYM_TEAM_INVALID;
    symshmem_team_world_.t = SYM_TEAM_INVALID;
}

SYMSHMEM_WEAK_(shmem_team_my_pe)
int pshmem_team_my_pe(shmem_team_t team)
{
    return sym_team_my_pe(symshmem_native_team(team));
}
SYMSHMEM_WEAK_(shmem_team_n_pes)
int pshmem_team_n_pes(shmem_team_t team)
{
    return sym_team_n_pes(symshmem_native_team(team));
}

SYMSHMEM_WEAK_(shmem_team_get_config)
int pshmem_team_get_config(shmem_team_t team, long config_mask, shmem_team_config_t *config)
{
    symshmem_poll(); /* called in polling loops */
    if (!team || team->t == SYM_TEAM_INVALID || !config)
        return -1;
    if (config_mask & SHMEM_TEAM_NUM_CONTEXTS)
        config->num_contexts = team->config.num_contexts;
    return 0;
}

SYMSHMEM_WEAK_(shmem_team_translate_pe)
int pshmem_team_translate_pe(shmem_team_t src_team, int src_pe, shmem_team_t dest_team)
{
    if (!src_team || !dest_team)
        return -1;
    return sym_team_translate_pe(src_team->t, src_pe, dest_team->t);
}

SYMSHMEM_WEAK_(shmem_team_ptr)
void *pshmem_team_ptr(shmem_team_t team, const void *dest, int pe)
{
    symshmem_poll(); /* called in polling loops */
    if (!team || team->t == SYM_TEAM_INVALID)
        return NULL;
    const int world_pe = sym_team_translate_pe(team->t, pe, sym_team_world());
    return world_pe < 0 ? NULL : shmem_ptr(dest, world_pe);
}

/* Wrap a native team for the user; non-members get SHMEM_TEAM_INVALID. */
static int wrap_team(sym_team_t t, const shmem_team_config_t *config, long mask,
                     shmem_team_t *team_p)
{
    *team_p = SHMEM_TEAM_INVALID;
    if (t == SYM_TEAM_INVALID)
        return 0;
    struct symshmem_team *team = calloc(1, sizeof *team);
    if (!team) {
        symshmem_ignore(sym_team_destroy(t));
        return -1;
    }
    team->t = t;
    if (config && (mask & SHMEM_TEAM_NUM_CONTEXTS))
        team->config.num_contexts = config->num_contexts;
    *team_p = team;
    return 0;
}

SYMSHMEM_WEAK_(shmem_team_split_strided)
int pshmem_team_split_strided(shmem_team_t parent_team, int start, int stride, int size,
                              const shmem_team_config_t *config, long config_mask,
                              shmem_team_t *new_team)
{
    if (!new_team)
        return -1;
    *new_team = SHMEM_TEAM_INVALID;
    sym_team_t t = SYM_TEAM_INVALID;
    if (sym_team_split_strided(symshmem_native_team(parent_team), start, stride, size, &t) !=
        SYM_OK)
        return -1;
    return wrap_team(t, config, config_mask, new_team);
}

SYMSHMEM_WEAK_(shmem_team_split_2d)
int pshmem_team_split_2d(shmem_team_t parent_team, int xrange,
                         const shmem_team_config_t *xaxis_config, long xaxis_mask,
                         shmem_team_t *xaxis_team, const shmem_team_config_t *yaxis_config,
                         long yaxis_mask, shmem_team_t *yaxis_team)
{
    if (!xaxis_team || !yaxis_team)
        return -1;
    *xaxis_team = *yaxis_team = SHMEM_TEAM_INVALID;
    sym_team_t x = SYM_TEAM_INVALID, y = SYM_TEAM_INVALID;
    if (sym_team_split_2d_ragged(symshmem_native_team(parent_team), xrange, &x, &y) != SYM_OK)
        return -1;
    if (wrap_team(x, xaxis_config, xaxis_mask, xaxis_team) != 0) {
        symshmem_ignore(sym_team_destroy(y));
        return -1;
    }
    if (wrap_team(y, yaxis_config, yaxis_mask, yaxis_team) != 0)
        return -1;
    return 0;
}

SYMSHMEM_WEAK_(shmem_team_destroy)
void pshmem_team_destroy(shmem_team_t team)
{
    if (!team || team->predefined)
        return;
    pthread_mutex_lock(&ctx_lock);
    bool had_contexts = team->ctxs != NULL;
    orphan_contexts(team);
    pthread_mutex_unlock(&ctx_lock);
    /* Destroying a context completes its operations. */
    if (had_contexts)
        symshmem_check("shmem_team_destroy", sym_quiet());
    symshmem_check("shmem_team_destroy", sym_team_destroy(team->t));
    team->t = SYM_TEAM_INVALID;
    free(team);
}

/* ---- contexts ---------------------------------------------------------- */

SYMSHMEM_WEAK_(shmem_team_create_ctx)
int pshmem_team_create_ctx(shmem_team_t team, long options, shmem_ctx_t *ctx)
{
    if (!ctx)
        return -1;
    *ctx = SHMEM_CTX_INVALID;
    if (!team || team->t == SYM_TEAM_INVALID)
        return -1;
    struct symshmem_ctx *c = calloc(1, sizeof *c);
    if (!c)
        return -1;
    c->team = team;
    c->options = options;
    c->live = true;
    pthread_mutex_lock(&ctx_lock);
    ctx_link(&team->ctxs, c);
    pthread_mutex_unlock(&ctx_lock);
    *ctx = c;
    return 0;
}

SYMSHMEM_WEAK_(shmem_ctx_create)
int pshmem_ctx_create(long options, shmem_ctx_t *ctx)
{
    return shmem_team_create_ctx(SHMEM_TEAM_WORLD, options, ctx);
}

SYMSHMEM_WEAK_(shmem_ctx_destroy)
void pshmem_ctx_destroy(shmem_ctx_t ctx)
{
    if (!ctx || ctx == SHMEM_CTX_DEFAULT)
        return;
    /* Destroying a context completes its operations (an orphan's were
     * completed when its team was destroyed). */
    if (ctx->live)
        symshmem_check("shmem_ctx_destroy", sym_quiet());
    pthread_mutex_lock(&ctx_lock);
    ctx_unlink(ctx);
    pthread_mutex_unlock(&ctx_lock);
    ctx->live = false;
    free(ctx);
}

SYMSHMEM_WEAK_(shmem_ctx_get_team)
int pshmem_ctx_get_team(shmem_ctx_t ctx, shmem_team_t *team)
{
    symshmem_poll(); /* called in polling loops */
    if (!team)
        return -1;
    if (!ctx || !ctx->team) { /* invalid, or its team was destroyed */
        *team = SHMEM_TEAM_INVALID;
        return -1;
    }
    *team = ctx->team;
    return 0;
}

int symshmem_ctx_pe_slow(shmem_ctx_t ctx, int pe, const char *routine)
{
    if (ctx && !ctx->team)
        symshmem_failf(routine,
                       "context %p was destroyed with its team (shmem_team_destroy "
                       "destroys the contexts made from the team)",
                       (void *)ctx);
    if (ctx == SHMEM_CTX_INVALID)
        return -1; /* the caller does nothing */
    if (!ctx->live)
        symshmem_failf(routine, "invalid context %p", (void *)ctx);
    if (ctx->team == SHMEM_TEAM_WORLD)
        return pe;
    int global = sym_team_local_to_global(ctx->team->t, pe);
    if (global < 0)
        symshmem_failf(routine, "PE %d is not in the context's team (%d PEs)", pe,
                       sym_team_n_pes(ctx->team->t));
    return global;
}

/* ---- ordering ---------------------------------------------------------- */

SYMSHMEM_WEAK_(shmem_fence)
void pshmem_fence(void)
{
    symshmem_check("shmem_fence", sym_fence());
}
SYMSHMEM_WEAK_(shmem_quiet)
void pshmem_quiet(void)
{
    symshmem_check("shmem_quiet", sym_quiet());
}

SYMSHMEM_WEAK_(shmem_ctx_fence)
void pshmem_ctx_fence(shmem_ctx_t ctx)
{
    if (symshmem_ctx_pe(ctx, 0, "shmem_ctx_fence") < 0)
        return;
    symshmem_check("shmem_ctx_fence", sym_fence());
}

SYMSHMEM_WEAK_(shmem_ctx_quiet)
void pshmem_ctx_quiet(shmem_ctx_t ctx)
{
    if (symshmem_ctx_pe(ctx, 0, "shmem_ctx_quiet") < 0)
        return;
    symshmem_check("shmem_ctx_quiet", sym_quiet());
}
