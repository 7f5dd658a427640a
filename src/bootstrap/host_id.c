/*
 * host_id.c - which PEs share a host, in the sense that matters here.
 *
 * Two PEs may use the shm transport when they can map each other's heap
 * objects, and must use a network transport when the network is the only
 * thing they share.  The host name alone answers neither: every network
 * namespace and many containers of one machine report the same name, and two
 * machines can be given the same name by mistake.  The identity therefore
 * joins four things:
 *   - the host name (readable in messages),
 *   - the kernel's boot id (distinct for every machine and every boot, so
 *     equal host names on two machines never look local),
 *   - the network namespace (PEs in different namespaces are different
 *     "hosts": that is how one machine tests the multi-host paths, and how
 *     separately networked containers behave; the shm transport hands its
 *     segments over abstract unix sockets, which are per namespace),
 *   - the device of /dev/shm (containers with private /dev/shm mounts share
 *     a kernel but cannot see each other's heap objects).
 * Whatever cannot be read is left out; equality of what remains is still
 * never a false "remote", only possibly a false "local" on exotic systems,
 * where SYMHEAP_TRANSPORT=ofi forces the network path.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bootstrap.h"

static void read_line(const char *path, char *buf, size_t len)
{
    buf[0] = '\0';
    FILE *f = fopen(path, "re");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = '\0';
    fclose(f);
}

void sym_host_identity(char *buf, size_t len)
{
    char host[256] = "";
    if (gethostname(host, sizeof(host) - 1) != 0)
        host[0] = '\0';
    char boot_id[64];
    read_line("/proc/sys/kernel/random/boot_id", boot_id, sizeof(boot_id));
    char netns[64] = "";
    ssize_t n = readlink("/proc/self/ns/net", netns, sizeof(netns) - 1);
    netns[n > 0 ? n : 0] = '\0';
    unsigned long long shm_dev = 0;
    struct stat st;
    if (stat("/dev/shm", &st) == 0)
        shm_dev = (unsigned long long)st.st_dev;
    snprintf(buf, len, "%s/%s/%s/shm:%llx", host, boot_id, netns, shm_dev);
}

/* Not a secret, only locality: two 64-bit FNV-1a hashes (different offsets
 * and multipliers), each finished by a 64-bit mix.  Equal identities give
 * equal digests; different ones collide only by a 2^-128 accident.  (A
 * cryptographic digest would load OpenSSL's providers into every PE: a
 * millisecond and a few hundred KiB each.) */
void sym_host_digest(uint8_t out[SYM_HOST_DIGEST_LEN])
{
    char id[512];
    sym_host_identity(id, sizeof(id));
    static const uint64_t mul[2] = {UINT64_C(0x100000001b3), UINT64_C(0x9e3779b97f4a7c15)};
    uint64_t h[2] = {UINT64_C(0xcbf29ce484222325), UINT64_C(0x84222325cbf29ce4)};
    for (size_t i = 0; id[i]; i++)
        for (int k = 0; k < 2; k++)
            h[k] = (h[k] ^ (uint8_t)id[i]) * mul[k];
    for (int k = 0; k < 2; k++) {
        h[k] ^= h[k] >> 33;
        h[k] *= UINT64_C(0xff51afd7ed558ccd);
        h[k] ^= h[k] >> 33;
        h[k] *= UINT64_C(0xc4ceb9fe1a85ec53);
        h[k] ^= h[k] >> 33;
    }
    memcpy(out, h, SYM_HOST_DIGEST_LEN);
}
