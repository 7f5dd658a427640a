/*
 * tsan_criterion.c - lets Criterion start under ThreadSanitizer.
 *
 * Linked into the test programs of -Db_sanitize=thread builds only.
 *
 * Criterion's sandbox library (BoxFort) maps its shared arena with
 * MAP_FIXED at 0x200000000000 + (rand_r() & 0x3fffff) * 16 MiB and gives up
 * after ten draws that hit mapped memory.  Under TSan almost all of that
 * range is shadow, metadata or reserved, and TSan refuses MAP_FIXED outside
 * application memory, so most runs die before the first test with "Could
 * not initialize inheritable arena".  The only application range inside
 * BoxFort's window is 0x550000000000..0x568000000000 (where PIE programs
 * load), so this rand_r keeps every draw's low 22 bits there.
 *
 * Nothing in symheap or its tests calls rand_r; Criterion only uses it for
 * this placement.  It is not a suppression: no report is hidden.
 */
#include <stdint.h>
#include <stdlib.h>

#define ARENA_SLOT_FIRST 0x350000u /* (0x550000000000 - 0x200000000000) >> 24 */
#define ARENA_SLOTS      0x17000u  /* up to 0x567000000000: room for the arena */

__attribute__((visibility("default"))) int rand_r(unsigned int *seed)
{
    /* xorshift32 keeps the draws distinct, so a slot that is taken (the
     * program's own image) is followed by a different one */
    uint32_t x = *seed ? *seed : 0x9e3779b9u;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    *seed = x;
    return (int)(((x >> 22) << 22 | (ARENA_SLOT_FIRST + x % ARENA_SLOTS)) & 0x7fffffffu);
}
