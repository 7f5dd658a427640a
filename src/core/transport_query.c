/*
 * transport_query.c - which transports and providers (libfabric's) this
 * build can run over on this machine, asked at run time of the transport
 * classes (symheap-info prints the same with the details).
 */
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

/* The first class that lists providers, or NULL. */
static const struct sym_transport_class *provider_class(void)
{
    for (size_t k = 0; k < sym_transport_nclasses; k++)
        if (sym_transport_classes[k]->providers)
            return sym_transport_classes[k];
    return NULL;
}

/* Class c's provider list into buf (len bytes), its whole length into
 * *needed_p and whether a default provider exists; SYM_ERR_UNAVAILABLE
 * (recorded, naming `op`) when there is none to ask. */
static sym_status_t provider_list(const struct sym_transport_class *c, const char *op, char *buf,
                                  size_t len, size_t *needed_p, bool *default_p)
{
    if (!c) {
        *needed_p = 0;
        *default_p = false;
        return sym_error(SYM_ERR_UNAVAILABLE,
                         "%s: no transport of this symheap runs over providers (libfabric, ofi, "
                         "is not built in)",
                         op);
    }
    char why[256] = "";
    int n = c->providers(buf, len, default_p, why, sizeof(why));
    if (n < 0)
        return sym_error(SYM_ERR_UNAVAILABLE, "%s: %s: %s", op, c->name, why);
    *needed_p = (size_t)n + 1;
    return SYM_OK;
}

/* The whole list, malloc'ed into *list_p (the caller frees it), with its
 * size including the NUL. */
static sym_status_t provider_list_alloc(const struct sym_transport_class *c, const char *op,
                                        char **list_p, size_t *needed_p, bool *default_p)
{
    size_t len = 256;
    for (int tries = 0; tries < 4; tries++) {
        char *buf = malloc(len);
        if (!buf)
            return sym_error(SYM_ERR_NO_MEMORY, "%s: out of memory for %zu bytes", op, len);
        sym_status_t st = provider_list(c, op, buf, len, needed_p, default_p);
        if (st == SYM_OK && *needed_p <= len) {
            *list_p = buf;
            return SYM_OK;
        }
        free(buf);
        if (st != SYM_OK)
            return st;
        len = *needed_p; /* longer than the buffer: again with room for it */
    }
    return sym_error(SYM_ERR_INTERNAL, "%s: the %s provider list kept growing", op, c->name);
}

/* Whether class c offers `prov` (NULL: c itself, through the provider it
 * would pick by default). */
static int class_offers(const struct sym_transport_class *c, const char *prov)
{
    if (!c->providers)
        return prov == NULL;
    char *list;
    size_t needed;
    bool dflt;
    if ((prov && !*prov) ||
        provider_list_alloc(c, "sym_transport_available", &list, &needed, &dflt) != SYM_OK)
        return 0;
    int found = !prov && dflt;
    const size_t plen = prov ? strlen(prov) : 0;
    for (const char *p = list; *p && !found && prov;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        found = n == plen && !strncmp(p, prov, n);
        p += n + (end != NULL);
    }
    free(list);
    return found;
}

/* "<class>", "<class>:<provider>", or a provider of any class. */
SYM_API int sym_transport_available(const char *name)
{
    if (!name)
        return 0;
    for (size_t k = 0; k < sym_transport_nclasses; k++) {
        const struct sym_transport_class *c = sym_transport_classes[k];
        size_t n = strlen(c->name);
        if (!strcmp(name, c->name))
            return class_offers(c, NULL);
        if (!strncmp(name, c->name, n) && name[n] == ':')
            return c->providers ? class_offers(c, name + n + 1) : 0;
    }
    for (size_t k = 0; k < sym_transport_nclasses; k++)
        if (sym_transport_classes[k]->providers && class_offers(sym_transport_classes[k], name))
            return 1;
    return 0;
}

SYM_API sym_status_t sym_transport_providers(char *buf, size_t len, size_t *needed_p)
{
    static const char op[] = "sym_transport_providers";
    if (!needed_p || (!buf && len))
        return sym_error(SYM_ERR_INVALID_ARG, "%s: NULL %s", op, needed_p ? "buf" : "needed_p");
    char *list;
    size_t needed;
    bool dflt;
    sym_status_t st = provider_list_alloc(provider_class(), op, &list, &needed, &dflt);
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
