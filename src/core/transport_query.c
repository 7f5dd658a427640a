/*
 * transport_query.c - which transports and libfabric providers this build
 * can run over on this machine, asked at run time (symheap-info prints the
 * same with the details).
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"
#ifdef SYM_HAVE_OFI
#include "ofi/ofi.h"
#endif

/* The provider list into buf (len bytes), its whole length into *needed_p
 * and whether a default provider exists; SYM_ERR_UNAVAILABLE (recorded,
 * naming `op`) when there is no libfabric to ask. */
static sym_status_t provider_list(const char *op, char *buf, size_t len, size_t *needed_p,
                                  bool *default_p)
{
#ifdef SYM_HAVE_OFI
    char why[256] = "";
    int n = ofi_provider_list(buf, len, default_p, why, sizeof(why));
    if (n < 0)
        return sym_error(SYM_ERR_UNAVAILABLE, "%s: libfabric: %s", op, why);
    *needed_p = (size_t)n + 1;
    return SYM_OK;
#else
    (void)buf;
    (void)len;
    *needed_p = 0;
    *default_p = false;
    return sym_error(SYM_ERR_UNAVAILABLE, "%s: libfabric (ofi) is not built into this symheap", op);
#endif
}

/* The whole list, malloc'ed into *list_p (the caller frees it), with its
 * size including the NUL. */
static sym_status_t provider_list_alloc(const char *op, char **list_p, size_t *needed_p,
                                        bool *default_p)
{
    size_t len = 256;
    for (int tries = 0; tries < 4; tries++) {
        char *buf = malloc(len);
        if (!buf)
            return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", op, len);
        sym_status_t st = provider_list(op, buf, len, needed_p, default_p);
        if (st == SYM_OK && *needed_p <= len) {
            *list_p = buf;
            return SYM_OK;
        }
        free(buf);
        if (st != SYM_OK)
            return st;
        len = *needed_p; /* longer than the buffer: again with room for it */
    }
    return sym_error(SYM_ERR_INTERNAL, "%s: libfabric's provider list kept growing", op);
}

SYM_API int sym_transport_available(const char *name)
{
    if (!name)
        return 0;
    if (!strcmp(name, "shm"))
        return 1;
    const char *prov = !strncmp(name, "ofi:", 4) ? name + 4 : name;
    char *list;
    size_t needed;
    bool dflt;
    if (!*prov || provider_list_alloc("sym_transport_available", &list, &needed, &dflt) != SYM_OK)
        return 0;
    int found = !strcmp(name, "ofi") && dflt;
    const size_t plen = strlen(prov);
    for (const char *p = list; *p && !found && strcmp(name, "ofi");) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        found = n == plen && !strncmp(p, prov, n);
        p += n + (end != NULL);
    }
    free(list);
    return found;
}

SYM_API sym_status_t sym_transport_providers(char *buf, size_t len, size_t *needed_p)
{
    static const char op[] = "sym_transport_providers";
    if (!needed_p || (!buf && len))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: NULL %s", op, needed_p ? "buf" : "needed_p");
    char *list;
    size_t needed;
    bool dflt;
    sym_status_t st = provider_list_alloc(op, &list, &needed, &dflt);
    if (st != SYM_OK)
        return st;
    *needed_p = needed;
    if (needed > len)
        st = sym_error(SYM_ERR_TRUNCATED, "%s: the list needs %zu bytes, the buffer has %zu", op,
                       needed, len);
    else
        memcpy(buf, list, needed);
    free(list);
    return st;
}
