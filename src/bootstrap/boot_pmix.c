/* boot_pmix.c - placeholder until the PMIx bootstrap lands. */
#include "bootstrap.h"
#include "internal.h"

sym_status_t sym_boot_pmix_open(struct sym_boot **boot_p)
{
    (void)boot_p;
    return sym_error(SYM_ERR_UNAVAILABLE,
                     "sym_init: started by a PMIx launcher (PMIX_NAMESPACE is set) or with "
                     "SYMHEAP_BOOTSTRAP=pmix, but this symheap was built without PMIx; set "
                     "SYMHEAP_BOOTSTRAP=singleton to run this process alone");
}
