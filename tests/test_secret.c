/*
 * test_secret.c - the job secret a user supplies for the tcp rendezvous
 * (base/secret.h): SYMHEAP_JOB_SECRET as hex, SYMHEAP_JOB_SECRET_FILE only
 * when it is a regular file of ours that nobody else can read or write,
 * the error without either (saying how to set one), the opt-out and its
 * warning, and the MAC the handshake is built on.  Errors never echo the
 * secret.  Owner checks act as another user: they need root (CI runs as
 * root) and are skipped otherwise.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/secret.h"
#include "symheap.h"

#define GOOD_HEX "00112233445566778899aabbccddeeff0123456789abcdef"

static char dir[64];

static void make_dir(void)
{
    snprintf(dir, sizeof(dir), "/tmp/symheap-secret-XXXXXX");
    cr_assert(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
}

static void remove_dir(void)
{
    char cmd[128];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
    cr_expect(system(cmd) == 0);
}

/* dir/name holding `text`, with `mode`. */
static const char *secret_file(const char *name, const char *text, mode_t mode)
{
    static char path[160];
    snprintf(path, sizeof(path), "%s/%s", dir, name);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    cr_assert(fd >= 0, "open %s: %s", path, strerror(errno));
    cr_assert(write(fd, text, strlen(text)) == (ssize_t)strlen(text));
    close(fd);
    cr_assert(chmod(path, mode) == 0);
    return path;
}

/* sym_secret_load fails with SYM_ERR_CONFIG, its message holding `want`
 * and never the secret's hex. */
static void load_fails(const char *value, const char *file, const char *want)
{
    struct sym_secret s;
    sym_status_t st = sym_secret_load(value, file, true, &s);
    cr_assert_eq(st, SYM_ERR_CONFIG, "value '%s' file '%s': status %d", value ? value : "",
                 file ? file : "", st);
    cr_expect(strstr(sym_last_error(), want) != NULL, "message lacks \"%s\": %s", want,
              sym_last_error());
    cr_expect(strstr(sym_last_error(), "00112233445566") == NULL, "the secret was echoed: %s",
              sym_last_error());
}

Test(secret, hex_value)
{
    struct sym_secret s;
    cr_assert_eq(sym_secret_load(GOOD_HEX, "", true, &s), SYM_OK, "%s", sym_last_error());
    cr_expect_eq(s.len, 24);
    cr_expect(!s.insecure);
    cr_expect_eq(s.bytes[0], 0x00);
    cr_expect_eq(s.bytes[1], 0x11);
    cr_expect_eq(s.bytes[23], 0xef);
    /* upper case and a trailing newline (echo > file) are fine */
    cr_assert_eq(sym_secret_load("  00112233445566778899AABBCCDDEEFF\n", NULL, true, &s), SYM_OK);
    cr_expect_eq(s.len, 16);
    cr_expect_eq(s.bytes[10], 0xaa);
}

Test(secret, bad_values)
{
    load_fails("0011223344556677", NULL, "has 16 hex digits, expected an even number from 32");
    load_fails("00112233445566778899aabbccddeef", NULL, "has 31 hex digits");
    load_fails("00112233445566778899aabbccddeefg", NULL, "character 32 is not 0-9 or a-f");
    load_fails(GOOD_HEX GOOD_HEX GOOD_HEX, NULL, "has 144 hex digits");
    /* neither: says how to make one */
    load_fails("", "", "needs a job secret");
    load_fails(NULL, NULL, "SYMHEAP_JOB_SECRET=$(openssl rand -hex 32)");
    load_fails(GOOD_HEX, "/nonexistent", "both SYMHEAP_JOB_SECRET and SYMHEAP_JOB_SECRET_FILE");
}

Test(secret, file_checks, .init = make_dir, .fini = remove_dir)
{
    struct sym_secret s;
    const char *ok = secret_file("ok", GOOD_HEX "\n", 0600);
    cr_assert_eq(sym_secret_load(NULL, ok, true, &s), SYM_OK, "%s", sym_last_error());
    cr_expect_eq(s.len, 24);
    cr_assert_eq(sym_secret_load("", secret_file("ro", GOOD_HEX, 0400), true, &s), SYM_OK);

    load_fails(NULL, secret_file("group", GOOD_HEX, 0640), "has mode 0640");
    load_fails(NULL, secret_file("world", GOOD_HEX, 0604), "has mode 0604");
    load_fails(NULL, secret_file("short", "abcdef", 0600), "has 6 hex digits");
    char missing[128];
    snprintf(missing, sizeof(missing), "%s/missing", dir);
    load_fails(NULL, missing, "cannot be opened: No such file or directory");
    load_fails(NULL, dir, "is not a regular file");
    char link[128];
    snprintf(link, sizeof(link), "%s/link", dir);
    cr_assert(symlink(ok, link) == 0);
    load_fails(NULL, link, "a symbolic link is not accepted");
}

Test(secret, file_of_another_user, .init = make_dir, .fini = remove_dir)
{
    if (geteuid() != 0)
        cr_skip_test("needs root to give the file to another user");
    const char *path = secret_file("theirs", GOOD_HEX, 0600);
    cr_assert(chown(path, 65534, 65534) == 0, "chown: %s", strerror(errno));
    load_fails(NULL, path, "belongs to uid 65534, not to this user");
}

Test(secret, opt_out_warns)
{
    fflush(stderr);
    char path[] = "/tmp/symheap-secret-err-XXXXXX";
    int fd = mkstemp(path);
    cr_assert(fd >= 0);
    unlink(path);
    int saved = dup(2);
    dup2(fd, 2);
    struct sym_secret s;
    sym_status_t st = sym_secret_load(SYM_SECRET_NONE, NULL, true, &s);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    cr_assert_eq(st, SYM_OK);
    cr_expect(s.insecure);
    char buf[512] = "";
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);
    close(fd);
    buf[n > 0 ? n : 0] = '\0';
    cr_expect(strstr(buf, "warning: SYMHEAP_JOB_SECRET=insecure-none: bootstrap connections are "
                          "not authenticated") != NULL,
              "no warning: '%s'", buf);
}

Test(secret, mac)
{
    struct sym_secret a, b;
    cr_assert_eq(sym_secret_from_hex(GOOD_HEX, "a", &a), SYM_OK);
    cr_assert_eq(sym_secret_generate(&b), SYM_OK);
    cr_expect_eq(b.len, SYM_SECRET_DRAWN);
    const void *parts[] = {"abc", "def"};
    const size_t lens[] = {3, 3};
    const void *joined[] = {"abcdef"};
    const size_t jlen[] = {6};
    uint8_t m1[SYM_MAC_LEN], m2[SYM_MAC_LEN], m3[SYM_MAC_LEN];
    sym_secret_mac(&a, 2, parts, lens, m1);
    sym_secret_mac(&a, 1, joined, jlen, m2);
    sym_secret_mac(&b, 2, parts, lens, m3);
    cr_expect(sym_mac_equal(m1, m2), "the MAC is over the concatenation");
    cr_expect(!sym_mac_equal(m1, m3), "two secrets gave one MAC");
    m2[31] ^= 1;
    cr_expect(!sym_mac_equal(m1, m2));
    /* HMAC-SHA256 of "abcdef" under the key 00 11 .. ef, as OpenSSL's CLI
     * computes it: the MAC is the standard one. */
    uint8_t want[SYM_MAC_LEN];
    FILE *p = popen("printf abcdef | openssl dgst -sha256 -mac HMAC -macopt hexkey:" GOOD_HEX
                    " -r 2>/dev/null",
                    "r");
    char hex[128] = "";
    if (p == NULL || fscanf(p, "%64s", hex) != 1 || strlen(hex) != 64) {
        if (p)
            pclose(p);
        return; /* no openssl command: the comparison above still holds */
    }
    pclose(p);
    for (int i = 0; i < SYM_MAC_LEN; i++) {
        unsigned v;
        sscanf(hex + 2 * i, "%2x", &v);
        want[i] = (uint8_t)v;
    }
    sym_secret_mac(&a, 1, joined, jlen, m2);
    cr_expect(sym_mac_equal(m2, want), "HMAC differs from openssl's %s", hex);
}
