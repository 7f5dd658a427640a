/* ofi_mr.c - registering the heap, the global variables and the bounce
 * buffer, whatever the provider's mr_mode asks for. */
#include <stdlib.h>
#include <string.h>

#include "internal.h"
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
            fi_close(&mr->fid);
            return ofi_call_failed(t, "sym_init", -1, "fi_mr_bind/fi_mr_enable", rc);
        }
    }
    *mr_p = mr;
    *desc_p = fi_mr_desc(mr);
    return SYM_OK;
}

sym_status_t ofi_register(struct ofi_transport *t)
{
    sym_status_t st = reg(t, t->heap, t->heap_len,
                          FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE, 1, &t->heap_mr,
                          &t->heap_desc);
    if (st != SYM_OK)
        return st;
    /* Connected before the transport (runtime.c): the segment is already
     * the shared object it stays until sym_finalize. */
    if (t->data_len) {
        st = reg(t, t->data, t->data_len, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
                 3, &t->data_mr, &t->data_desc);
        if (st != SYM_OK)
            return st;
    }
    /* Page-aligned: FI_MR_ALLOCATED providers pin whole pages. */
    if (posix_memalign((void **)&t->bounce, 4096, OFI_REG_BYTES) != 0)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the ofi bounce buffer");
    memset(t->bounce, 0, OFI_REG_BYTES);
    return reg(t, t->bounce, OFI_REG_BYTES, FI_READ | FI_WRITE, 2,
               &t->bounce_mr, &t->bounce_desc);
}

void *ofi_local_desc(struct ofi_transport *t, const void *p, size_t n, bool *staged_p)
{
    const uint8_t *b = p;
    *staged_p = false;
    if (b >= t->heap && b < t->heap + t->heap_len && n <= (size_t)(t->heap + t->heap_len - b))
        return t->heap_desc;
    if (t->data_len && b >= t->data && b < t->data + t->data_len &&
        n <= (size_t)(t->data + t->data_len - b))
        return t->data_desc;
    if (b >= t->bounce && b < t->bounce + OFI_REG_BYTES)
        return t->bounce_desc;
    *staged_p = t->mr_local;
    return NULL;
}

sym_status_t ofi_out_of_range(struct ofi_transport *t, const char *op, int pe, uint64_t off,
                              size_t n)
{
    if ((unsigned)pe >= (unsigned)t->npes)
        return sym_error(SYM_ERR_INVALID_ARG, "%s: PE %d is not one of the %d PEs reached "
                         "through libfabric", op, pe, t->npes);
    return sym_error(SYM_ERR_INVALID_ARG,
                     "%s: %zu bytes at offset %llu of PE %d lie outside its symmetric heap "
                     "(%zu bytes) and its global variables (%zu bytes from offset %zu)",
                     op, n, (unsigned long long)off, pe, t->heap_len, t->data_len, t->heap_len);
}
