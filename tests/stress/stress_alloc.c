/*
 * stress_alloc.c - symmetric allocation steps: malloc, calloc, aligned
 * allocation, realloc and free, with contents checked.
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

static void obj_fill(struct obj *o, size_t from)
{
    for (size_t i = from; i < o->size; i++)
        ((uint8_t *)o->p)[i] = byte_at(o->key, i);
}

void obj_check(const struct obj *o, size_t bytes, const char *what)
{
    uint8_t *w = xmalloc(bytes);
    for (size_t i = 0; i < bytes; i++)
        w[i] = byte_at(o->key, i);
    check_buf(o->p, w, bytes, 1, what);
    free(w);
}

void step_alloc(struct rng *r)
{
    int k = (int)rbelow(r, MAX_OBJS);
    struct obj *o = &stress_state.obj[k];
    size_t size = rchance(r, 70) ? 1 + rbelow(r, 4096) : 1 + rbelow(r, 512 * 1024);
    int how = (int)rbelow(r, 4);
    size_t align = (size_t)64 << rbelow(r, 8);
    /* each PE's copy gets its own content */
    uint64_t key = key3(stress_state.step, (uint64_t)stress_state.me, K_OBJ);
    for (int i = 0; i < MAX_OBJS; i++)
        if (stress_state.obj[i].live)
            obj_check(&stress_state.obj[i], stress_state.obj[i].size,
                      "a live symmetric object (overwritten?)");
    if (!o->live) {
        set_what("alloc #%d: %s %zu bytes (align %zu)", k,
                 how == 0   ? "calloc"
                 : how == 1 ? "align"
                            : "malloc",
                 size, align);
        void *p = how == 0   ? sym_calloc(1, size)
                  : how == 1 ? sym_align(align, size)
                             : sym_malloc(size);
        stress_state.count[CNT_MALLOC]++;
        if (!p)
            die("sym_malloc/calloc/align", SYM_ERR_NO_MEMORY);
        if (how == 1 && (uintptr_t)p % align)
            wrong("sym_align(%zu) returned %p", align, p);
        if (how == 0)
            for (size_t i = 0; i < size; i++)
                if (((uint8_t *)p)[i]) {
                    wrong("sym_calloc memory not zero at byte %zu", i);
                    break;
                }
        *o = (struct obj){.live = true, .p = p, .size = size, .align = align, .key = key};
        obj_fill(o, 0);
    } else if (how <= 1) {
        set_what("alloc #%d: realloc %zu -> %zu bytes", k, o->size, size);
        void *p = sym_realloc(o->p, size);
        stress_state.count[CNT_REALLOC]++;
        if (!p)
            die("sym_realloc", SYM_ERR_NO_MEMORY);
        o->p = p;
        obj_check(o, size < o->size ? size : o->size, "realloc kept contents");
        o->size = size;
        o->key = key;
        obj_fill(o, 0);
    } else {
        set_what("alloc #%d: free %zu bytes", k, o->size);
        sym_free(o->p);
        stress_state.count[CNT_FREE]++;
        memset(o, 0, sizeof(*o));
        return;
    }
    /* the object is symmetric: read the neighbour's copy */
    CALL(sym_barrier_all());
    int nb = (stress_state.me + 1) % stress_state.n;
    uint64_t nkey = key3(stress_state.step, (uint64_t)nb, K_OBJ);
    size_t len = o->size < 256 ? o->size : 256, tail = o->size - len;
    uint8_t got[256];
    CALL(sym_get(got, (uint8_t *)o->p + tail, len, nb));
    stress_state.count[CNT_GET]++;
    for (size_t i = 0; i < len; i++)
        if (got[i] != byte_at(nkey, tail + i)) {
            wrong("neighbour's copy of object #%d differs at byte %zu", k, tail + i);
            break;
        }
    CALL(sym_barrier_all());
    stress_state.count[CNT_BARRIER_ALL] += 2;
}
