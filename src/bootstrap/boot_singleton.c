/* boot_singleton.c - a program started alone is PE 0 of 1. */
#include <stdlib.h>
#include <string.h>

#include "base/error.h"
#include "bootstrap.h"

static sym_status_t singleton_allgather(struct sym_boot *b, const void *mine, size_t len, void *all)
{
    (void)b;
    memcpy(all, mine, len);
    return SYM_OK;
}

static sym_status_t singleton_barrier(struct sym_boot *b, const char *step)
{
    (void)b;
    (void)step;
    return SYM_OK;
}

static void singleton_set_state(struct sym_boot *b, int state)
{
    (void)b;
    (void)state;
}

static void singleton_fini(struct sym_boot *b)
{
    sym_secret_wipe(&b->secret, sizeof(b->secret));
    free(b);
}

static const struct sym_boot_ops singleton_ops = {
    .name = "singleton",
    .allgather = singleton_allgather,
    .barrier = singleton_barrier,
    .set_state = singleton_set_state,
    .fini = singleton_fini,
};

sym_status_t sym_boot_singleton_open(struct sym_boot **boot_p)
{
    struct sym_boot *b = calloc(1, sizeof(*b));
    if (!b)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the bootstrap");
    b->ops = &singleton_ops;
    b->rank = 0;
    b->size = 1;
    if (sym_boot_random_key(b->key) != 0) {
        free(b);
        return sym_error(SYM_ERR_SYSTEM, "sym_init: getrandom failed for the job key");
    }
    sym_status_t st = sym_secret_generate(&b->secret);
    if (st != SYM_OK) {
        free(b);
        return st;
    }
    *boot_p = b;
    return SYM_OK;
}
