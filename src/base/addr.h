/*
 * addr.h - parsing "host:port" network addresses given in the environment.
 * Base layer: knows nothing above it.
 */
#ifndef SYM_BASE_ADDR_H
#define SYM_BASE_ADDR_H

#include <stddef.h>

/* Split "host:port" or "[v6]:port" (port 1..65535) into host and port, each
 * NUL-terminated in buffers of hlen and plen bytes; 0 on success, -1 if
 * malformed or too long.  Exposed for tests and fuzzing. */
int sym_addr_parse(const char *text, char *host, size_t hlen, char *port, size_t plen);

#endif /* SYM_BASE_ADDR_H */
