/* transport_of.h - the transport instance a test inspects: the one in use,
 * of the given class, reaching some PE (core's sym_core_transport). */
#ifndef TEST_TRANSPORT_OF_H
#define TEST_TRANSPORT_OF_H

#include <string.h>

#include "core/internal.h"

/* The transport named `name` that reaches some PE of the job, or NULL. */
static inline struct sym_transport *test_transport(const char *name)
{
    for (int pe = 0; pe < sym_core_npes(); pe++) {
        struct sym_transport *tp = sym_core_transport(pe);
        if (tp && strcmp(tp->ops->name, name) == 0)
            return tp;
    }
    return NULL;
}

#endif /* TEST_TRANSPORT_OF_H */
