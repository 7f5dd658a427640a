/*
 * harness_tcp.h - SYMHEAP_TEST_LAUNCHER=tcp: the harness's PEs join their
 * job through the TCP rendezvous (SYMHEAP_BOOTSTRAP=tcp, SYMHEAP_RANK,
 * SYMHEAP_SIZE, SYMHEAP_ROOT_ADDR), as PEs started by hand do, while the
 * launcher (src/launch) still forks and supervises them.
 */
#ifndef SYM_TEST_HARNESS_TCP_H
#define SYM_TEST_HARNESS_TCP_H

#include <stddef.h>

/* "127.0.0.1:<port>" for one job's rendezvous, in `buf`; the port is free
 * when chosen.  cr_assert_fail if no free port can be found. */
const char *harness_tcp_root_addr(char *buf, size_t len);

#endif /* SYM_TEST_HARNESS_TCP_H */
