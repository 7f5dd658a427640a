/* ofi_info.c - which libfabric provider symheap runs on, and the listing
 * symheap-info prints. */
#include <string.h>

#include "ofi_private.h"

struct fi_info *ofi_hints(void)
{
    struct fi_info *h = fi_allocinfo();
    if (!h)
        return NULL;
    h->ep_attr->type = FI_EP_RDM;
    h->caps = FI_RMA | FI_ATOMIC;
    /* We hand every operation its own fi_context2, so either mode is fine. */
    h->mode = FI_CONTEXT | FI_CONTEXT2;
    /* Everything we know how to handle; the provider keeps what it needs. */
    h->domain_attr->mr_mode =
        FI_MR_LOCAL | FI_MR_VIRT_ADDR | FI_MR_ALLOCATED | FI_MR_PROV_KEY | FI_MR_ENDPOINT;
    h->tx_attr->op_flags = FI_DELIVERY_COMPLETE;
    return h;
}

const char *ofi_default_excluded(const char *prov)
{
    if (strstr(prov, "ofi_rxd"))
        return "crashes in its progress path in libfabric 1.17";
    if (strcmp(prov, "net") == 0 || strncmp(prov, "net;", 4) == 0)
        return "advertises atomics it does not execute";
    if (strcmp(prov, "sockets") == 0)
        return "its progress thread starves on few cores";
    if (strcmp(prov, "shm") == 0)
        return "reaches this host only (choose it with SYMHEAP_OFI_PROVIDER=shm)";
    return NULL;
}

/* RDMA hardware first, then TCP. */
static const char *const preferred[] = {"verbs;ofi_rxm", "efa", "cxi", "psm3", "tcp;ofi_rxm"};

struct fi_info *ofi_choose(struct fi_info *list, const char *want)
{
    if (want && *want && strcmp(want, "auto") != 0) {
        for (struct fi_info *i = list; i; i = i->next)
            if (strcmp(i->fabric_attr->prov_name, want) == 0)
                return i;
        return NULL;
    }
    for (size_t k = 0; k < sizeof(preferred) / sizeof(preferred[0]); k++)
        for (struct fi_info *i = list; i; i = i->next)
            if (strcmp(i->fabric_attr->prov_name, preferred[k]) == 0)
                return i;
    for (struct fi_info *i = list; i; i = i->next)
        if (!ofi_default_excluded(i->fabric_attr->prov_name))
            return i;
    return NULL;
}

static void print_mr_mode(FILE *out, uint64_t m)
{
    static const struct {
        uint64_t bit;
        const char *name;
    } bits[] = {{FI_MR_LOCAL, "LOCAL"},
                {FI_MR_VIRT_ADDR, "VIRT_ADDR"},
                {FI_MR_ALLOCATED, "ALLOCATED"},
                {FI_MR_PROV_KEY, "PROV_KEY"},
                {FI_MR_ENDPOINT, "ENDPOINT"}};
    const char *sep = "";
    for (size_t k = 0; k < sizeof(bits) / sizeof(bits[0]); k++)
        if (m & bits[k].bit) {
            fprintf(out, "%s%s", sep, bits[k].name);
            sep = "|";
        }
    if (!*sep)
        fprintf(out, "scalable");
}

/* Open just enough (fabric, domain) to ask fi_query_atomic. */
static void print_atomics(FILE *out, struct fi_info *i)
{
    struct fid_fabric *fabric = NULL;
    struct fid_domain *domain = NULL;
    char missing[96] = "";
    if (fi_fabric(i->fabric_attr, &fabric, NULL) == 0 && fi_domain(fabric, i, &domain, NULL) == 0) {
        if (ofi_atomics_check(domain, i->fabric_attr->prov_name, false, missing, sizeof(missing)) ==
            SYM_OK)
            fprintf(out, "all atomics");
        else
            fprintf(out, "lacks %s", missing);
    } else {
        fprintf(out, "cannot open");
    }
    if (domain)
        fi_close(&domain->fid);
    if (fabric)
        fi_close(&fabric->fid);
}

/* Whether `i` is the first entry of its provider in `list` (providers are
 * listed once, whatever domains they offer). */
static bool first_of_provider(const struct fi_info *list, const struct fi_info *i)
{
    for (const struct fi_info *j = list; j != i; j = j->next)
        if (strcmp(j->fabric_attr->prov_name, i->fabric_attr->prov_name) == 0)
            return false;
    return true;
}

void ofi_providers_print(FILE *out)
{
    char why[256];
    if (ofi_dl_load(why, sizeof(why)) != 0) {
        fprintf(out, "  libfabric: %s\n", why);
        return;
    }
    struct fi_info *hints = ofi_hints(), *list = NULL;
    int rc = hints ? fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list) : -FI_ENOMEM;
    fprintf(out, "  libfabric %u.%u, RDM providers with RMA and atomics:\n", FI_MAJOR(fi_version()),
            FI_MINOR(fi_version()));
    if (rc != 0) {
        fprintf(out, "    none (%s)\n", fi_strerror(-rc));
        fi_freeinfo(hints);
        return;
    }
    struct fi_info *dflt = ofi_choose(list, NULL);
    for (struct fi_info *i = list; i; i = i->next) {
        const char *prov = i->fabric_attr->prov_name;
        if (!first_of_provider(list, i))
            continue;
        fprintf(out, "    %-16s %-12s mr_mode ", prov, i->domain_attr->name);
        print_mr_mode(out, i->domain_attr->mr_mode);
        fprintf(out, ", inject %zu B, %s progress, ", i->tx_attr->inject_size,
                i->domain_attr->data_progress == FI_PROGRESS_MANUAL ? "manual" : "auto");
        print_atomics(out, i);
        const char *why = ofi_default_excluded(prov);
        if (i == dflt)
            fprintf(out, " [default]");
        else if (why)
            fprintf(out, " [not by default: %s]", why);
        fprintf(out, "\n");
    }
    fi_freeinfo(list);
    fi_freeinfo(hints);
}

int ofi_provider_list(char *buf, size_t len, bool *default_p, char *why, size_t why_len)
{
    *default_p = false;
    if (ofi_dl_load(why, why_len) != 0)
        return -1;
    struct fi_info *hints = ofi_hints(), *list = NULL;
    int rc = hints ? fi_getinfo(OFI_API_VERSION, NULL, NULL, 0, hints, &list) : -FI_ENOMEM;
    fi_freeinfo(hints);
    if (rc == -FI_ENODATA) /* no provider at all: an empty list */
        rc = 0;
    if (rc != 0) {
        snprintf(why, why_len, "fi_getinfo: %s", fi_strerror(-rc));
        return -1;
    }
    *default_p = ofi_choose(list, NULL) != NULL;
    size_t used = 0;
    if (len)
        buf[0] = '\0';
    for (struct fi_info *i = list; i; i = i->next) {
        const char *prov = i->fabric_attr->prov_name;
        if (!first_of_provider(list, i))
            continue;
        int n = snprintf(used < len ? buf + used : NULL, used < len ? len - used : 0, "%s%s",
                         used ? "," : "", prov);
        used += (size_t)n;
    }
    fi_freeinfo(list);
    return (int)used;
}
