/* version.c - sym_version(): the library's own version, fixed when it was
 * built (symheap/version.h, from meson.build). */
#include "symheap.h"

SYM_API const char *sym_version(int *major_p, int *minor_p, int *patch_p)
{
    if (major_p)
        *major_p = SYM_VERSION_MAJOR;
    if (minor_p)
        *minor_p = SYM_VERSION_MINOR;
    if (patch_p)
        *patch_p = SYM_VERSION_PATCH;
    return SYM_VERSION_STRING;
}
