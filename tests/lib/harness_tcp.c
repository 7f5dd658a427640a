/* harness_tcp.c - the rendezvous address of a harness job (harness_tcp.h). */
#include "harness_tcp.h"

#include <arpa/inet.h>
#include <criterion/criterion.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>

/* Ports below the kernel's ephemeral range are never handed to a connecting
 * socket, and a job over tcp;ofi_rxm opens many connections: a port the
 * kernel picked (bind to port 0, as tests/lib/boot_jobs.c does for its few
 * jobs) could be taken by one of them between our probe and PE 0's bind,
 * failing the job.  So the port is drawn at random below that range, where
 * only explicit binds land, and probed; two jobs drawing the same one in
 * the few milliseconds before PE 0 listens is the remaining risk. */
#define PORT_FLOOR 16384
#define PROBES     64

static unsigned ephemeral_low(void)
{
    unsigned lo = 32768, hi = 60999;
    FILE *f = fopen("/proc/sys/net/ipv4/ip_local_port_range", "r");
    if (f != NULL) {
        if (fscanf(f, "%u %u", &lo, &hi) != 2)
            lo = 32768;
        fclose(f);
    }
    return lo;
}

/* Whether `port` on 127.0.0.1 can be bound now.  Without SO_REUSEADDR, so
 * a port with connections lingering in TIME_WAIT counts as taken too. */
static bool port_free(unsigned port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return false;
    struct sockaddr_in a = {.sin_family = AF_INET,
                            .sin_port = htons((uint16_t)port),
                            .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    bool ok = bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0;
    close(fd);
    return ok;
}

/* The kernel's choice, for a host whose ephemeral range leaves no room
 * below it. */
static unsigned kernel_port(void)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t len = sizeof(a);
    cr_assert(fd >= 0 && bind(fd, (struct sockaddr *)&a, sizeof(a)) == 0 &&
                  getsockname(fd, (struct sockaddr *)&a, &len) == 0,
              "SYMHEAP_TEST_LAUNCHER=tcp: cannot find a free port: %s", strerror(errno));
    close(fd);
    return ntohs(a.sin_port);
}

const char *harness_tcp_root_addr(char *buf, size_t len)
{
    unsigned lo = ephemeral_low();
    unsigned port = 0;
    if (lo > PORT_FLOOR + 1024) {
        for (int i = 0; i < PROBES && port == 0; i++) {
            uint32_t r;
            cr_assert(getrandom(&r, sizeof(r), 0) == sizeof(r), "getrandom: %s", strerror(errno));
            unsigned p = PORT_FLOOR + r % (lo - PORT_FLOOR);
            if (port_free(p))
                port = p;
        }
        cr_assert(port != 0,
                  "SYMHEAP_TEST_LAUNCHER=tcp: %d random ports in %u..%u were all "
                  "taken",
                  PROBES, PORT_FLOOR, lo - 1);
    } else {
        port = kernel_port();
    }
    snprintf(buf, len, "127.0.0.1:%u", port);
    return buf;
}
