/* secret.c - the job secret, HMAC-SHA256 and random bytes over OpenSSL's
 * libcrypto (secret.h). */
#include "secret.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"

/* How a user sets a secret, for every error that lacks one. */
#define HOW_TO_SET                                                                                 \
    "give every PE the same secret of at least 128 random bits: "                                  \
    "SYMHEAP_JOB_SECRET=$(openssl rand -hex 32), or SYMHEAP_JOB_SECRET_FILE=<file with that "      \
    "hex, mode 0600>; on a network where every host is trusted, "                                  \
    "SYMHEAP_JOB_SECRET=" SYM_SECRET_NONE " turns authentication off"

int sym_random_bytes(void *buf, size_t len)
{
    uint8_t *p = buf;
    while (len) {
        ssize_t n = getrandom(p, len, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

sym_status_t sym_secret_generate(struct sym_secret *s)
{
    memset(s, 0, sizeof(*s));
    if (sym_random_bytes(s->bytes, SYM_SECRET_DRAWN) != 0)
        return sym_error(SYM_ERR_SYSTEM, "sym_init: getrandom failed for the job secret: %s",
                         strerror(errno));
    s->len = SYM_SECRET_DRAWN;
    return SYM_OK;
}

static int hex_digit(int c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    c = tolower(c);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

sym_status_t sym_secret_from_hex(const char *text, const char *what, struct sym_secret *s)
{
    memset(s, 0, sizeof(*s));
    while (isspace((unsigned char)*text))
        text++;
    size_t n = strlen(text);
    while (n && isspace((unsigned char)text[n - 1]))
        n--;
    size_t bad = n;
    for (size_t i = 0; i < n && bad == n; i++)
        if (hex_digit((unsigned char)text[i]) < 0)
            bad = i;
    /* The text is never echoed: a near-miss of a secret is still secret. */
    if (bad < n)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: %s is not hexadecimal (character %zu is not 0-9 or a-f); %s",
                         what, bad + 1, HOW_TO_SET);
    if (n % 2 || n < 2 * SYM_SECRET_MIN || n > 2 * SYM_SECRET_MAX)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: %s has %zu hex digits, expected an even number from %d to %d "
                         "(%d to %d bits); %s",
                         what, n, 2 * SYM_SECRET_MIN, 2 * SYM_SECRET_MAX, 8 * SYM_SECRET_MIN,
                         8 * SYM_SECRET_MAX, HOW_TO_SET);
    for (size_t i = 0; i < n / 2; i++)
        s->bytes[i] = (uint8_t)(hex_digit((unsigned char)text[2 * i]) << 4 |
                                hex_digit((unsigned char)text[2 * i + 1]));
    s->len = (uint32_t)(n / 2);
    return SYM_OK;
}

/* The secret file: a regular file of ours that nobody else can read or
 * change (a secret others can read is no secret; one they can write is
 * theirs). */
static sym_status_t load_file(const char *path, struct sym_secret *s)
{
    const char *what = "SYMHEAP_JOB_SECRET_FILE";
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0)
        return sym_error(SYM_ERR_CONFIG, "sym_init: %s='%s' cannot be opened: %s%s; %s", what, path,
                         strerror(errno),
                         errno == ELOOP ? " (a symbolic link is not accepted)" : "", HOW_TO_SET);
    struct stat st;
    sym_status_t rc = SYM_OK;
    if (fstat(fd, &st) != 0)
        rc = sym_error(SYM_ERR_CONFIG, "sym_init: %s='%s': fstat: %s", what, path, strerror(errno));
    else if (!S_ISREG(st.st_mode))
        rc = sym_error(SYM_ERR_CONFIG, "sym_init: %s='%s' is not a regular file; %s", what, path,
                       HOW_TO_SET);
    else if (st.st_uid != geteuid())
        rc = sym_error(SYM_ERR_CONFIG,
                       "sym_init: %s='%s' belongs to uid %u, not to this user (uid %u): "
                       "another user could have written it; %s",
                       what, path, (unsigned)st.st_uid, (unsigned)geteuid(), HOW_TO_SET);
    else if (st.st_mode & 077)
        rc = sym_error(SYM_ERR_CONFIG,
                       "sym_init: %s='%s' has mode %04o: group or others can reach it; make it "
                       "0600 or stricter (chmod 600 '%s')",
                       what, path, (unsigned)(st.st_mode & 07777), path);
    char text[2 * SYM_SECRET_MAX + 64];
    ssize_t n = 0;
    if (rc == SYM_OK) {
        n = read(fd, text, sizeof(text) - 1);
        if (n < 0)
            rc = sym_error(SYM_ERR_CONFIG, "sym_init: %s='%s': read: %s", what, path,
                           strerror(errno));
    }
    close(fd);
    if (rc != SYM_OK)
        return rc;
    text[n] = '\0';
    char label[300];
    snprintf(label, sizeof(label), "the secret in %s='%s'", what, path);
    rc = sym_secret_from_hex(text, label, s);
    sym_secret_wipe(text, sizeof(text));
    return rc;
}

sym_status_t sym_secret_load(const char *value, const char *file, bool warn, struct sym_secret *s)
{
    memset(s, 0, sizeof(*s));
    bool have_value = value && value[0], have_file = file && file[0];
    if (have_value && have_file)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: both SYMHEAP_JOB_SECRET and SYMHEAP_JOB_SECRET_FILE are set; "
                         "set one of them");
    if (have_file)
        return load_file(file, s);
    if (!have_value)
        return sym_error(SYM_ERR_CONFIG,
                         "sym_init: the tcp bootstrap needs a job secret, so that only this "
                         "job's PEs can join it; %s",
                         HOW_TO_SET);
    if (strcmp(value, SYM_SECRET_NONE) == 0) {
        s->insecure = true;
        s->len = SYM_SECRET_MIN; /* zeros: the protocol runs, proving nothing */
        if (warn)
            fprintf(stderr,
                    "symheap: warning: SYMHEAP_JOB_SECRET=%s: bootstrap connections are not "
                    "authenticated; anyone who can reach the root address can join this job and "
                    "read or write its memory\n",
                    SYM_SECRET_NONE);
        return SYM_OK;
    }
    return sym_secret_from_hex(value, "SYMHEAP_JOB_SECRET", s);
}

void sym_secret_mac(const struct sym_secret *s, size_t n, const void *const *parts,
                    const size_t *lens, uint8_t mac[SYM_MAC_LEN])
{
    static const uint8_t zeros[SYM_SECRET_MIN];
    const void *key = s->insecure ? zeros : s->bytes;
    int keylen = s->insecure ? (int)sizeof(zeros) : (int)s->len;
    size_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += lens[i];
    uint8_t buf[512];
    size_t at = 0;
    for (size_t i = 0; i < n && total <= sizeof(buf); i++) {
        memcpy(buf + at, parts[i], lens[i]);
        at += lens[i];
    }
    unsigned int out = SYM_MAC_LEN;
    /* Callers MAC a few fixed-size fields: never more than the buffer. */
    if (total > sizeof(buf) || !HMAC(EVP_sha256(), key, keylen, buf, at, mac, &out) ||
        out != SYM_MAC_LEN) {
        /* a MAC nobody can match rather than one anybody can */
        sym_random_bytes(mac, SYM_MAC_LEN);
    }
    sym_secret_wipe(buf, at);
}

bool sym_mac_equal(const uint8_t a[SYM_MAC_LEN], const uint8_t b[SYM_MAC_LEN])
{
    return CRYPTO_memcmp(a, b, SYM_MAC_LEN) == 0;
}

void sym_secret_wipe(void *p, size_t len)
{
    OPENSSL_cleanse(p, len);
}

void sym_secret_to_hex(const struct sym_secret *s, char *buf)
{
    for (uint32_t i = 0; i < s->len; i++)
        snprintf(buf + 2 * i, 3, "%02x", s->bytes[i]);
    buf[2 * s->len] = '\0';
}
