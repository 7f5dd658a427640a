/*
 * fuzz_size.c - libFuzzer target for sym_config_parse_size(), the parser
 * of SYMHEAP_*_SIZE values ("4096", "64K", "1.5MiB").
 *
 * Beyond "no crash, no UB", every accepted text must mean what it says:
 * its value, printed in plain decimal, parses back to the same value, and
 * a text of digits only is the number strtoull reads.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/internal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char text[256];
    if (size >= sizeof(text))
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    size_t bytes = 0;
    if (sym_config_parse_size(text, &bytes) != 0)
        return 0;
    char again[32];
    snprintf(again, sizeof(again), "%zu", bytes);
    size_t back = 0;
    if (sym_config_parse_size(again, &back) != 0 || back != bytes)
        abort(); /* "%zu" of an accepted value must parse to itself */
    if (size > 0 && strspn(text, "0123456789") == size) {
        errno = 0;
        unsigned long long v = strtoull(text, NULL, 10);
        if (errno == 0 && v != bytes)
            abort(); /* plain digits: the number itself */
    }
    return 0;
}
