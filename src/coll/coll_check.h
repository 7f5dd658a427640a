/*
 * coll_check.h - SYMHEAP_COLL_CHECK=strict: the caller's call site in the
 * fingerprint, and the synchronous end-of-call check.
 *
 * Without it a collective returns as soon as this PE's part is done, so a
 * PE that only sent may learn of a mismatch later (symheap/coll.h), and
 * two calls with identical arguments cannot be told apart.  Strict mode
 * ends every public collective with a check that every member made the
 * same call (so every member of a mismatched call fails in it), and hashes
 * the call site into the fingerprint: the return address of the public
 * entry point, made relative to the load base of its object, so it is the
 * same on every PE running the same binary, address randomisation
 * included.
 */
#ifndef SYM_COLL_CHECK_H
#define SYM_COLL_CHECK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "coll/chan.h"

/* SYMHEAP_COLL_CHECK=strict (set at init, the same on every PE). */
extern bool sym_coll_strict;

/* The caller of the public entry point this thread is in (strict only). */
extern _Thread_local const void *sym_coll_caller_tls;
extern _Thread_local bool sym_coll_caller_pinned;

static inline void sym_coll_note_caller(const void *ra)
{
    /* a non-blocking request runs its blocking call with the caller of
     * sym_i<collective> pinned (sym_coll_pin_caller) */
    if (!sym_coll_caller_pinned)
        sym_coll_caller_tls = ra;
    sym_coll_caller_pinned = false;
}

/* First statement of every public collective entry point. */
#define SYM_COLL_CALLER()                                                                          \
    do {                                                                                           \
        if (__builtin_expect(sym_coll_strict, 0))                                                  \
            sym_coll_note_caller(__builtin_return_address(0));                                     \
    } while (0)

/* The noted caller, taken (cleared) by sym_coll_prepare; NULL outside
 * strict mode or for calls from inside the library. */
const void *sym_coll_take_caller(void);

/* Make the next public entry point on this thread use `ra` as its caller
 * (a request's coroutine, for the sym_i<collective> call that made it). */
void sym_coll_pin_caller(const void *ra);

/* The call-site word of return address `ra`: a hash of the name of the
 * object that holds it (high 32 bits) and its offset from that object's
 * load base (low 32), equal on every PE of the same binary. */
uint64_t sym_coll_site_word(const void *ra);

/* 32 bits of the site word, for the fingerprint. */
uint32_t sym_coll_site_hash(uint64_t word);

/* "test_prog+0x1a2b (main+0x4f)": the object and offset, and the symbol
 * when the object exports one; resolved in this process, so a peer's
 * word names the same place. */
void sym_coll_site_text(uint64_t word, char *buf, size_t len);

/* "; call sites: this PE at X, PE p at Y" for a mismatch between this PE's
 * call c and a call of PE `pe` whose site word is `theirs` (0: unknown);
 * "" outside strict mode. */
void sym_coll_sites_text(const struct sym_coll *c, int pe, uint64_t theirs, char *buf, size_t len);

/* The end-of-call check: every member compares its fingerprint with its
 * left neighbour's (any difference shows at some member), then a
 * dissemination barrier, entered only after the comparison passed, so no
 * member returns before every member's check did. */
sym_status_t sym_coll_check_end(struct sym_coll *c);

#endif /* SYM_COLL_CHECK_H */
