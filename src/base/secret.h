/*
 * secret.h - the job secret and the cryptography built on it: random bytes
 * from the kernel's generator, HMAC-SHA256, and a comparison whose time does
 * not depend on where two MACs differ.  All of it is OpenSSL's libcrypto;
 * nothing here is hand-written cryptography.
 *
 * Every job has a secret of at least 128 random bits that only its PEs
 * know: symrun draws it and hands it over through the job's control
 * segment, PMIx jobs draw it on PE 0 and share it through the PMIx
 * exchange, and for the TCP rendezvous the user supplies it
 * (SYMHEAP_JOB_SECRET or SYMHEAP_JOB_SECRET_FILE).  Bootstrap connections
 * prove knowledge of it before any job data moves.
 */
#ifndef SYM_BASE_SECRET_H
#define SYM_BASE_SECRET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "symheap.h"

#define SYM_SECRET_MIN     16              /* bytes: 128 bits */
#define SYM_SECRET_MAX     64              /* bytes: HMAC-SHA256's block; longer keys add nothing */
#define SYM_SECRET_DRAWN   32              /* bytes a launcher draws */
#define SYM_MAC_LEN        32              /* HMAC-SHA256 */
#define SYM_SECRET_NONE    "insecure-none" /* SYMHEAP_JOB_SECRET opt-out */
#define SYM_SECRET_ENV     "SYMHEAP_JOB_SECRET"
#define SYM_SECRET_FILEENV "SYMHEAP_JOB_SECRET_FILE"

struct sym_secret {
    uint8_t bytes[SYM_SECRET_MAX];
    uint32_t len;  /* 0: no secret */
    bool insecure; /* the user opted out: MACs are keyed with zeros */
};

/* Fill buf with len bytes from the kernel's random generator (getrandom(2),
 * blocking until it is seeded).  0, or -1 with errno.  Thread-safe. */
int sym_random_bytes(void *buf, size_t len);

/* Draw a fresh secret of SYM_SECRET_DRAWN bytes.  Errors: SYM_ERR_SYSTEM
 * when the kernel gives no random bytes.  Thread-safe. */
sym_status_t sym_secret_generate(struct sym_secret *s);

/* A secret from its hex text (SYM_SECRET_MIN..SYM_SECRET_MAX bytes, an even
 * number of hex digits, surrounding white space ignored).  `what` names the
 * source in the error.  Errors: SYM_ERR_CONFIG naming what was wrong
 * (never echoing the text).  Thread-safe. */
sym_status_t sym_secret_from_hex(const char *text, const char *what, struct sym_secret *s);

/* The secret the user supplies for a job without a launcher (the TCP
 * rendezvous): `value` is SYMHEAP_JOB_SECRET (hex, or SYM_SECRET_NONE to
 * opt out on a trusted network, with a warning on stderr when `warn`), `file` is
 * SYMHEAP_JOB_SECRET_FILE (a regular file owned by this user, not readable
 * or writable by group or others, holding the hex secret); empty strings
 * are unset.  Errors: SYM_ERR_CONFIG when neither or both are set, the hex
 * is malformed or short, or the file is missing, not a regular file, not
 * ours or open to others, each saying how to set a proper secret.  Not
 * thread-safe (called once, inside sym_init). */
sym_status_t sym_secret_load(const char *value, const char *file, bool warn, struct sym_secret *s);

/* HMAC-SHA256 keyed with the secret (an opted-out secret: with zeros) over
 * the concatenation of n parts (ptr, len pairs in parts/lens).  Thread-safe. */
void sym_secret_mac(const struct sym_secret *s, size_t n, const void *const *parts,
                    const size_t *lens, uint8_t mac[SYM_MAC_LEN]);

/* Whether two MACs are equal, in a time that does not depend on where they
 * differ (CRYPTO_memcmp).  Thread-safe. */
bool sym_mac_equal(const uint8_t a[SYM_MAC_LEN], const uint8_t b[SYM_MAC_LEN]);

/* Overwrite a secret (or any buffer) so that it does not linger in freed
 * memory; the compiler cannot drop it (OPENSSL_cleanse).  Thread-safe. */
void sym_secret_wipe(void *p, size_t len);

/* Hex text of the secret (2 * len characters and a NUL; buf of at least
 * 2 * SYM_SECRET_MAX + 1 bytes), for a trusted exchange such as PMIx.
 * Thread-safe. */
void sym_secret_to_hex(const struct sym_secret *s, char *buf);

#endif /* SYM_BASE_SECRET_H */
