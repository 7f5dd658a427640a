/*
 * config_table.h - every SYMHEAP_* environment variable, in one list.
 *
 * X(field, NAME, type, default, help).  The list generates struct
 * sym_config, the parser (config.c) and the `symheap-info` table, so a
 * variable exists exactly when it is listed here.  Types:
 *   SIZE     bytes, with an optional K, M, G or T suffix (powers of 1024)
 *   SECONDS  a positive decimal number of seconds
 *   BOOL     1/0, yes/no, true/false, on/off
 *   UINT     a non-negative decimal integer
 *   CHOICE   one of the words listed in the help text's {a|b|c}
 */
#ifndef SYM_CONFIG_TABLE_H
#define SYM_CONFIG_TABLE_H

#define SYM_CONFIG_TABLE(X)                                                             \
    X(heap_size, "SYMHEAP_HEAP_SIZE", SIZE, "256M",                                     \
      "Bytes of symmetric memory sym_malloc() can hand out on each PE")                 \
    X(timeout, "SYMHEAP_TIMEOUT", SECONDS, "60",                                        \
      "Deadline of every blocking wait (barrier, wait_until, bootstrap), in seconds")   \
    X(debug, "SYMHEAP_DEBUG", BOOL, "0",                                                \
      "Log decisions to stderr and verify that collective allocations agree on all PEs") \
    X(mailbox_size, "SYMHEAP_MAILBOX_SIZE", SIZE, "4M",                                 \
      "Bytes reserved in each heap for collective and point-to-point mailboxes")        \
    X(heap_prealloc, "SYMHEAP_HEAP_PREALLOC", BOOL, "1",                                \
      "Reserve the heap's memory at init (posix_fallocate) so exhaustion of /dev/shm "  \
      "is an init error instead of a SIGBUS later")                                     \
    X(transport, "SYMHEAP_TRANSPORT", CHOICE, "auto",                                   \
      "Transport for peers {auto|shm|ofi}: auto = shm on this host")                    \
    X(wait_spin, "SYMHEAP_WAIT_SPIN", UINT, "2000",                                     \
      "Busy-poll iterations before a wait starts yielding the CPU (0 when there are "   \
      "more PEs on this host than cores)")                                              \
    X(wait_yield_us, "SYMHEAP_WAIT_YIELD_US", UINT, "2000",                             \
      "Microseconds a wait yields the CPU before it starts sleeping with backoff")

#endif /* SYM_CONFIG_TABLE_H */
