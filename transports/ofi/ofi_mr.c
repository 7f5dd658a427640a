/* ofi_mr.c - registering the heap, the global variables and the bounce
 * buffer, whatever the provider's mr_mode asks for. */
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "ofi_private.h"

/* Register [buf, buf + len); with FI_MR_ENDPOINT the region is bound to the
 * endpoint and enabled.  Without FI_MR_PROV_KEY the key is ours to choose. */
static sym_status_t reg(struct ofi_transport *t, void *buf, size_t len, uint64_t access,
                        uint64_t want_key, struct fid_mr **mr_p, void **desc_p)
{
    struct fid_mr *mr = NULL;
    int rc = fi_mr_reg(t->domain, buf, len, access, 0, want_key, 0, &mr, NULL);
    if (rc)
        return ofi_call_failed(t, "sym_init", -1, "fi_mr_reg", rc);
    if (t->mr_mode & FI_MR_ENDPOINT) {
        if ((rc = fi_mr_bind(mr, &t->ep->fid, 0)) != 0 || (rc = fi_mr_enable(mr)) != 0) {
            /* Forced on a provider that does not need the binding: tcp;ofi_rxm
             * and shm answer -FI_ENOSYS (libfabric 1.17), the region works
             * unbound.  A provider that asked for the bit gets the error. */
            bool required = (t->mr_mode & ~t->mr_forced & FI_MR_ENDPOINT) != 0;
            if (required || rc != -FI_ENOSYS) {
                fi_close(&mr->fid);
                return ofi_call_failed(t, "sym_init", -1, "fi_mr_bind/fi_mr_enable", rc);
            }
            sym_debug("ofi: SYMHEAP_OFI_MR_FORCE=endpoint: %s does not bind regions to "
                      "endpoints (%s); left unbound",
                      t->prov_name, fi_strerror(-rc));
            t->mr_bound = false;
        }
    }
    *mr_p = mr;
    *desc_p = fi_mr_desc(mr);
    return SYM_OK;
}

sym_status_t ofi_mr_force_parse(const char *text, uint64_t *bits_p)
{
    /* in the order of sym_config_mr_force_words' words */
    static const uint64_t word_bits[] = {
        0,
        FI_MR_LOCAL,
        FI_MR_PROV_KEY,
        FI_MR_ENDPOINT,
        FI_MR_ALLOCATED,
        FI_MR_LOCAL | FI_MR_PROV_KEY | FI_MR_ENDPOINT | FI_MR_ALLOCATED,
        FI_MR_VIRT_ADDR,
    };
    unsigned words;
    if (sym_config_mr_force_words(text ? text : "", &words) != 0)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_init: SYMHEAP_OFI_MR_FORCE=%s: unknown word",
                         text);
    uint64_t bits = 0;
    for (unsigned k = 0; k < sizeof(word_bits) / sizeof(word_bits[0]); k++)
        if (words & (1u << k))
            bits |= word_bits[k];
    *bits_p = bits;
    return SYM_OK;
}

/* The key we ask for region `region` (1 heap, 2 bounce, 3 globals).  With
 * FI_MR_PROV_KEY forced, a different key on every PE, as providers that
 * choose keys give: a PE that used its own key for a peer's region fails. */
static uint64_t asked_key(const struct ofi_transport *t, unsigned region)
{
    if (t->mr_forced & FI_MR_PROV_KEY)
        return ((uint64_t)(t->me + 1) << 8) | region;
    return region;
}

void ofi_transport_mr_state(const struct sym_transport *tp, int pe, struct ofi_mr_state *s)
{
    const struct ofi_transport *t = (const struct ofi_transport *)tp;
    s->mr_mode = t->mr_mode;
    s->forced = t->mr_forced;
    s->bound = t->mr_bound;
    s->staged = t->staged;
    s->key_of_pe = (unsigned)pe < (unsigned)t->npes ? t->rkey[pe] : 0;
    s->asked_key = asked_key(t, 1);
    s->heap_addr = (uint64_t)(uintptr_t)t->heap;
    s->base_of_pe = (unsigned)pe < (unsigned)t->npes ? t->rbase[pe] : 0;
    s->data_addr = (uint64_t)(uintptr_t)t->data;
    s->data_base_of_pe = (unsigned)pe < (unsigned)t->npes ? t->dbase[pe] : 0;
}

sym_status_t ofi_register(struct ofi_transport *t)
{
    t->mr_bound = (t->mr_mode & FI_MR_ENDPOINT) != 0; /* reg() clears it if refused */
    sym_status_t st =
        reg(t, t->heap, t->heap_len, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
            asked_key(t, 1), &t->heap_mr, &t->heap_desc);
    if (st != SYM_OK)
        return st;
    /* Connected before the transport (runtime.c): the segment is already
     * the shared object it stays until sym_finalize. */
    if (t->data_len) {
        st = reg(t, t->data, t->data_len, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
                 asked_key(t, 3), &t->data_mr, &t->data_desc);
        if (st != SYM_OK)
            return st;
    }
    /* Page-aligned: FI_MR_ALLOCATED providers pin whole pages. */
    if (posix_memalign((void **)&t->bounce, 4096, OFI_REG_BYTES) != 0)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the ofi bounce buffer");
    memset(t->bounce, 0, OFI_REG_BYTES);
    return reg(t, t->bounce, OFI_REG_BYTES, FI_READ | FI_WRITE, asked_key(t, 2), &t->bounce_mr,
               &t->bounce_desc);
}

/* The descriptor field of the registered region holding [p, p + n), or
 * NULL when no region of ours holds it. */
static void *const *region_desc(const struct ofi_transport *t, const void *p, size_t n)
{
    const uint8_t *b = p;
    if (b >= t->heap && b < t->heap + t->heap_len && n <= (size_t)(t->heap + t->heap_len - b))
        return &t->heap_desc;
    if (t->data_len && b >= t->data && b < t->data + t->data_len &&
        n <= (size_t)(t->data + t->data_len - b))
        return &t->data_desc;
    if (b >= t->bounce && b < t->bounce + OFI_REG_BYTES)
        return &t->bounce_desc;
    return NULL;
}

bool ofi_is_ours(const struct ofi_transport *t, const void *p, size_t n)
{
    return region_desc(t, p, n) != NULL;
}

void *ofi_local_desc(struct ofi_transport *t, const void *p, size_t n, bool *staged_p)
{
    void *const *d = region_desc(t, p, n);
    *staged_p = false;
    if (d)
        return *d;
    *staged_p = t->mr_local;
    t->staged += t->mr_local;
    return NULL;
}

sym_status_t ofi_out_of_range(struct ofi_transport *t, const char *op, int pe, uint64_t off,
                              size_t n)
{
    if ((unsigned)pe >= (unsigned)t->npes)
        return sym_error(SYM_ERR_INVALID_ARG,
                         "%s: PE %d is not one of the %d PEs reached "
                         "through libfabric",
                         op, pe, t->npes);
    return sym_error(SYM_ERR_INVALID_ARG,
                     "%s: %zu bytes at offset %llu of PE %d lie outside its symmetric heap "
                     "(%zu bytes) and its global variables (%zu bytes from offset %zu)",
                     op, n, (unsigned long long)off, pe, t->heap_len, t->data_len, t->heap_len);
}
