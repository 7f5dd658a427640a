/* ofi_mr.c - registering the heap, the global variables and the bounce
 * buffer, whatever the provider's mr_mode asks for. */
#include <stdlib.h>
#include <string.h>

#include "base/config.h"
#include "base/secret.h"
#include "ofi_private.h"

/* Draws of a fresh key for one region when the provider says the one
 * asked for is taken (-FI_ENOKEY): with 64 random bits a second clash is
 * already something else going wrong. */
#define KEY_DRAWS 8

/* Whether the provider requires choosing keys itself (FI_MR_PROV_KEY of its
 * own, not forced by the tests): then the key asked for is ignored.  A
 * forced bit is not enough to skip ours: tcp;ofi_rxm still uses the key
 * asked for, shm then chooses one. */
static bool provider_keys(const struct ofi_transport *t)
{
    return (t->mr_mode & ~t->mr_forced & FI_MR_PROV_KEY) != 0;
}

/* A key nobody can guess: random, fitting the provider's mr_key_size, never
 * 0.  A fixed key (as 1 for every heap) would let anyone who reaches the
 * endpoint read and write it: the key is the only check a provider makes. */
static sym_status_t random_key(struct ofi_transport *t, uint64_t *key_p)
{
    size_t bytes = t->info->domain_attr->mr_key_size;
    uint64_t mask = bytes == 0 || bytes >= 8 ? UINT64_MAX : (UINT64_C(1) << (8 * bytes)) - 1;
    uint64_t k = 0;
    while (k == 0) {
        if (sym_random_bytes(&k, sizeof(k)) != 0)
            return sym_error(SYM_ERR_SYSTEM, "sym_init: getrandom failed for a memory key");
        k &= mask;
    }
    *key_p = k;
    return SYM_OK;
}

/* Register [buf, buf + len); with FI_MR_ENDPOINT the region is bound to the
 * endpoint and enabled.  The key is random where the provider lets us
 * choose it, the provider's otherwise; either way peers learn it only
 * through the bootstrap, whose connections are authenticated. */
static sym_status_t reg(struct ofi_transport *t, void *buf, size_t len, uint64_t access,
                        uint64_t *asked_p, struct fid_mr **mr_p, void **desc_p)
{
    struct fid_mr *mr = NULL;
    int rc = -FI_ENOKEY;
    uint64_t key = 0;
    for (int draw = 0; draw < KEY_DRAWS && rc == -FI_ENOKEY; draw++) {
        if (!provider_keys(t)) {
            sym_status_t st = random_key(t, &key);
            if (st != SYM_OK)
                return st;
        }
        rc = fi_mr_reg(t->domain, buf, len, access, 0, key, 0, &mr, NULL);
    }
    if (rc)
        return ofi_call_failed(t, "sym_init", -1, "fi_mr_reg", rc);
    *asked_p = key;
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
    /* in the order of ofi_mr_force_words' words */
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
    if (ofi_mr_force_words(text ? text : "", &words) != 0)
        return sym_error(SYM_ERR_INVALID_ARG, "sym_init: SYMHEAP_OFI_MR_FORCE=%s: unknown word",
                         text);
    uint64_t bits = 0;
    for (unsigned k = 0; k < sizeof(word_bits) / sizeof(word_bits[0]); k++)
        if (words & (1u << k))
            bits |= word_bits[k];
    *bits_p = bits;
    return SYM_OK;
}

void ofi_transport_mr_state(const struct sym_transport *tp, int pe, struct ofi_mr_state *s)
{
    const struct ofi_transport *t = (const struct ofi_transport *)tp;
    s->mr_mode = t->mr_mode;
    s->forced = t->mr_forced;
    s->bound = t->mr_bound;
    s->staged = t->staged;
    s->key_of_pe = (unsigned)pe < (unsigned)t->npes ? t->rkey[pe] : 0;
    s->asked_key = t->asked_heap_key;
    s->heap_addr = (uint64_t)(uintptr_t)t->heap;
    s->base_of_pe = (unsigned)pe < (unsigned)t->npes ? t->rbase[pe] : 0;
    s->data_addr = (uint64_t)(uintptr_t)t->data;
    s->data_base_of_pe = (unsigned)pe < (unsigned)t->npes ? t->dbase[pe] : 0;
}

sym_status_t ofi_register(struct ofi_transport *t)
{
    t->mr_bound = (t->mr_mode & FI_MR_ENDPOINT) != 0; /* reg() clears it if refused */
    uint64_t asked;
    sym_status_t st =
        reg(t, t->heap, t->heap_len, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
            &t->asked_heap_key, &t->heap_mr, &t->heap_desc);
    if (st != SYM_OK)
        return st;
    /* Connected before the transport (runtime.c): the segment is already
     * the shared object it stays until sym_finalize. */
    if (t->data_len) {
        st = reg(t, t->data, t->data_len, FI_REMOTE_READ | FI_REMOTE_WRITE | FI_READ | FI_WRITE,
                 &asked, &t->data_mr, &t->data_desc);
        if (st != SYM_OK)
            return st;
    }
    /* Page-aligned: FI_MR_ALLOCATED providers pin whole pages. */
    if (posix_memalign((void **)&t->bounce, 4096, OFI_REG_BYTES) != 0)
        return sym_error(SYM_ERR_NO_MEMORY, "sym_init: out of memory for the ofi bounce buffer");
    memset(t->bounce, 0, OFI_REG_BYTES);
    /* Local access only, yet a key like the others: no region of ours
     * carries a guessable one. */
    return reg(t, t->bounce, OFI_REG_BYTES, FI_READ | FI_WRITE, &asked, &t->bounce_mr,
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
