/*
 * config_table.h - every SYMHEAP_* environment variable, in one list.
 *
 * X(field, NAME, type, default, help).  The list generates struct
 * sym_config, the parser (config.c) and the `symheap-info` table, so a
 * variable exists exactly when it is listed here.  Types:
 *   SIZE     bytes, with an optional K, M, G or T suffix (powers of 1024)
 *   SECONDS  a positive decimal number of seconds, at most SYM_TIMEOUT_MAX (a day)
 *   BOOL     1/0, yes/no, true/false, on/off
 *   UINT     a non-negative decimal integer
 *   CHOICE   one of the words listed in the help text's {a|b|c}
 *   FAULT    a fault-injection spec (src/fault.h), "none" (or empty) for none
 *   STRING   free text of up to 255 bytes (empty when unset)
 *   SECRET   like STRING, but never shown (symheap-info prints "(set)")
 * A SIZE, SECONDS or UINT whose default is "auto" is 0 until sym_init
 * decides; "auto" in the environment is then the same as unset.
 */
#ifndef SYM_CONFIG_TABLE_H
#define SYM_CONFIG_TABLE_H

#define SYM_CONFIG_TABLE(X)                                                                        \
    X(heap_size, "SYMHEAP_HEAP_SIZE", SIZE, "auto",                                                \
      "Bytes of symmetric memory sym_malloc() can hand out on each PE; auto: 256M, or "            \
      "less so that every PE of the host fits in half of the free /dev/shm space")                 \
    X(timeout, "SYMHEAP_TIMEOUT", SECONDS, "60",                                                   \
      "Deadline of every blocking wait (barrier, wait_until, bootstrap), in seconds; at most "     \
      "86400 (one day)")                                                                           \
    X(init_timeout, "SYMHEAP_INIT_TIMEOUT", UINT, "0",                                             \
      "Deadline of sym_init's steps (bootstrap exchange, libfabric setup) and of the "             \
      "bootstrap's own exchanges, in whole seconds, at most 86400; 0: SYMHEAP_TIMEOUT")            \
    X(debug, "SYMHEAP_DEBUG", BOOL, "0", "Log decisions and errors to stderr")                     \
    X(quiet, "SYMHEAP_QUIET", BOOL, "0",                                                           \
      "Do not print a failed sym_init's error, nor warn of unknown SYMHEAP_* variables, on "       \
      "stderr (sym_last_error() still tells; SYMHEAP_DEBUG=1 prints them anyway)")                 \
    X(mailbox_size, "SYMHEAP_MAILBOX_SIZE", SIZE, "4M",                                            \
      "Bytes reserved in each heap for collective and point-to-point mailboxes")                   \
    X(heap_prealloc, "SYMHEAP_HEAP_PREALLOC", BOOL, "1",                                           \
      "Reserve the heap's memory at init (posix_fallocate) so exhaustion of shared memory "        \
      "is an init error instead of a SIGBUS later")                                                \
    X(transport, "SYMHEAP_TRANSPORT", CHOICE, "auto",                                              \
      "Transport for peers {auto|shm|ofi}: auto = shm on this host")                               \
    X(wait_spin, "SYMHEAP_WAIT_SPIN", UINT, "2000",                                                \
      "Busy-poll iterations before a wait starts yielding the CPU (0 when there are "              \
      "more PEs on this host than cores)")                                                         \
    X(wait_yield_us, "SYMHEAP_WAIT_YIELD_US", UINT, "2000",                                        \
      "Microseconds a wait yields the CPU before it starts sleeping with backoff")                 \
    X(wait_poll_us, "SYMHEAP_WAIT_POLL_US", UINT, "50",                                            \
      "Longest sleep, in microseconds, of a wait over a libfabric provider that cannot "           \
      "wake a sleeping PE for operations peers make on it (no wait fd, as libfabric's "            \
      "shm provider, or one found silent while running): the most an idle waiter "                 \
      "delays serving them")                                                                       \
    X(staging_size, "SYMHEAP_STAGING_SIZE", SIZE, "4M",                                            \
      "Bytes of each heap where a PE copies, once, collective data its peers on this host "        \
      "cannot read where it lies (private memory without cross-memory attach), for the "           \
      "world team's direct algorithm; 0: none (direct then needs symmetric buffers or "            \
      "cross-memory attach)")                                                                      \
    X(cma, "SYMHEAP_CMA", CHOICE, "auto",                                                          \
      "Cross-memory attach (process_vm_readv) for collectives' private buffers {auto|on|off}: "    \
      "auto = where probed to work and where it beats copying once into the staging area "         \
      "(SYMHEAP_COLL_TUNING's cma_min), on = wherever probed to work, off = never")                \
    X(chunk_size, "SYMHEAP_CHUNK_SIZE", SIZE, "256K",                                              \
      "Largest piece a collective moves through a mailbox slot at a time")                         \
    X(barrier_algorithm, "SYMHEAP_BARRIER_ALGORITHM", CHOICE, "auto",                              \
      "Barrier algorithm {auto|naive|tree|rd} of sym_barrier, and of the world barrier "           \
      "(sym_barrier_all, sym_sync_all): naive = a central counter, rd = dissemination, "           \
      "tree leaves the world barrier automatic (central when PEs outnumber cores)")                \
    X(broadcast_algorithm, "SYMHEAP_BROADCAST_ALGORITHM", CHOICE, "auto",                          \
      "Broadcast algorithm {auto|naive|ring|tree|direct}")                                         \
    X(reduce_algorithm, "SYMHEAP_REDUCE_ALGORITHM", CHOICE, "auto",                                \
      "Reduce algorithm {auto|naive|ring|tree|direct}")                                            \
    X(allreduce_algorithm, "SYMHEAP_ALLREDUCE_ALGORITHM", CHOICE, "auto",                          \
      "Allreduce algorithm {auto|naive|ring|tree|rd|direct}")                                      \
    X(reduce_scatter_algorithm, "SYMHEAP_REDUCE_SCATTER_ALGORITHM", CHOICE, "auto",                \
      "Reduce-scatter algorithm {auto|naive|ring|direct}")                                         \
    X(all_gather_algorithm, "SYMHEAP_ALL_GATHER_ALGORITHM", CHOICE, "auto",                        \
      "All-gather and all-gatherv algorithm {auto|naive|ring|rd|direct}")                          \
    X(all_to_all_algorithm, "SYMHEAP_ALL_TO_ALL_ALGORITHM", CHOICE, "auto",                        \
      "All-to-all and all-to-allv algorithm {auto|naive|pairwise|direct}")                         \
    X(gather_algorithm, "SYMHEAP_GATHER_ALGORITHM", CHOICE, "auto",                                \
      "Gather algorithm {auto|naive|tree|direct}")                                                 \
    X(scatter_algorithm, "SYMHEAP_SCATTER_ALGORITHM", CHOICE, "auto",                              \
      "Scatter algorithm {auto|naive|tree|direct}")                                                \
    X(globals, "SYMHEAP_GLOBALS", CHOICE, "auto",                                                  \
      "How peers on this host reach global and static variables {auto|remap|cma|off}: "            \
      "remap = share the data segment (auto falls back to cross-memory attach)")                   \
    X(fault, "SYMHEAP_FAULT", FAULT, "none",                                                       \
      "Fault injection for tests: kill|stall:pe=P:op=OP:count=N[:seconds=S] makes PE P "           \
      "SIGKILL itself or sleep S s (default 2*timeout+1) at its N-th call of OP "                  \
      "(put get atomic wait barrier send recv or a collective: broadcast reduce "                  \
      "allreduce reduce_scatter all_gather all_gatherv all_to_all all_to_allv gather "             \
      "scatter team_split broadcast_v); none: off")                                                \
    X(bootstrap, "SYMHEAP_BOOTSTRAP", CHOICE, "auto",                                              \
      "How PEs find each other {auto|pmix|symrun|tcp|singleton}: auto = symrun when "              \
      "started by symrun, tcp when SYMHEAP_ROOT_ADDR is set, pmix when PMIX_NAMESPACE "            \
      "is set, else singleton")                                                                    \
    X(rank, "SYMHEAP_RANK", UINT, "0",                                                             \
      "tcp bootstrap: this PE's number, 0..SYMHEAP_SIZE-1 (required)")                             \
    X(size, "SYMHEAP_SIZE", UINT, "0", "tcp bootstrap: number of PEs in the job (required)")       \
    X(root_addr, "SYMHEAP_ROOT_ADDR", STRING, "",                                                  \
      "tcp bootstrap: host:port PE 0 listens on (only there) and every PE connects "               \
      "to; [v6addr]:port for IPv6")                                                                \
    X(ofi_provider, "SYMHEAP_OFI_PROVIDER", STRING, "auto",                                        \
      "libfabric provider of the ofi transport, e.g. tcp;ofi_rxm or shm (auto: the "               \
      "first fitting one, RDMA hardware first, else tcp;ofi_rxm)")                                 \
    X(symrun_fd, "SYMHEAP_SYMRUN_FD", UINT, "0",                                                   \
      "Set by symrun for the PEs it starts, not by users: descriptor of the job's "                \
      "control segment (its presence selects the symrun bootstrap)")                               \
    X(symrun_pe, "SYMHEAP_SYMRUN_PE", UINT, "0",                                                   \
      "Set by symrun for the PEs it starts, not by users: this PE's number")                       \
    X(symrun_npes, "SYMHEAP_SYMRUN_NPES", UINT, "0",                                               \
      "Set by symrun for the PEs it starts, not by users: the number of PEs")                      \
    X(ofi_eager_connect, "SYMHEAP_OFI_EAGER_CONNECT", BOOL, "0",                                   \
      "ofi transport: connect to every peer reached through libfabric inside sym_init "            \
      "(0: on the first operation to it, as the provider does by itself)")                         \
    X(ofi_mr_force, "SYMHEAP_OFI_MR_FORCE", STRING, "none",                                        \
      "Tests only: run the ofi transport as if the provider required these mr_mode "               \
      "bits, a comma-separated list of local, prov_key, endpoint, allocated, all (the "            \
      "four), virt_addr (only on a provider that offers FI_MR_VIRT_ADDR, as shm; "                 \
      "elsewhere an init error) (none: only what the provider asks for)")                          \
    X(ofi_eagain_every, "SYMHEAP_OFI_EAGAIN_EVERY", UINT, "0",                                     \
      "Tests only: every N-th attempt of the ofi transport to post an operation "                  \
      "answers -FI_EAGAIN without reaching the provider, which the transport retries "             \
      "(1: every one, so operations time out); 0: off")                                            \
    X(ofi_ignore_order, "SYMHEAP_OFI_IGNORE_ORDER", BOOL, "0",                                     \
      "Tests only: run the ofi transport as if the provider did not order writes and "             \
      "reads to a PE (put-with-signal then fences its signal with FI_FENCE where the "             \
      "provider offers it, as sockets does, else waits for the data first)")                       \
    X(job_secret, "SYMHEAP_JOB_SECRET", SECRET, "",                                                \
      "tcp bootstrap: the job's secret, the same on every PE: 32 to 128 hex digits "               \
      "(e.g. from openssl rand -hex 32); every connection proves it knows it; "                    \
      "insecure-none turns authentication off (trusted networks only)")                            \
    X(job_secret_file, "SYMHEAP_JOB_SECRET_FILE", STRING, "",                                      \
      "tcp bootstrap: a file holding the job's secret in hex, owned by this user with "            \
      "mode 0600 or stricter (instead of SYMHEAP_JOB_SECRET)")                                     \
    X(team_area_size, "SYMHEAP_TEAM_AREA_SIZE", SIZE, "64K",                                       \
      "Bytes of each member's heap a split team's mailboxes take (more for a team too "            \
      "large for it: 384 bytes per member and 4K)")                                                \
    X(team_region_size, "SYMHEAP_TEAM_REGION_SIZE", SIZE, "128M",                                  \
      "Bytes of each heap split teams' mailboxes are taken from, on demand (memory is used "       \
      "only by the teams that exist)")                                                             \
    X(coll_tuning, "SYMHEAP_COLL_TUNING", STRING, "",                                              \
      "Overrides of the collectives' automatic choices, the same on every PE: "                    \
      "'kind.regime=algo:upto,...,algo;...' (regime pair, crowded or spread; e.g. "                \
      "allreduce.pair=naive:4K,direct,ring) and direct.cma_min=SIZE, "                             \
      "direct.one_shot_max=SIZE, direct.pair_min=SIZE; symheap-info prints the table in force")    \
    X(coll_check, "SYMHEAP_COLL_CHECK", CHOICE, "off",                                             \
      "Collective checking {off|strict}: strict ends every collective with a check that all "      \
      "members made the same call (every member of a mismatched call fails in it) and adds "       \
      "the caller's call site to the fingerprint (a skipped call with the same arguments "         \
      "is a mismatch naming both call sites); the same on every PE")

/* Names in the SYMHEAP_ namespace that are not the library's settings but
 * belong to the programs around it (the test suite, CI, the fuzzers, the
 * Python tests): sym_init does not warn of them as unknown.  X(prefix):
 * every name that starts with it. */
#define SYM_CONFIG_NOT_SETTINGS(X)                                                                 \
    X("SYMHEAP_TEST_")                                                                             \
    X("SYMHEAP_CI_")                                                                               \
    X("SYMHEAP_FUZZ_")                                                                             \
    X("SYMHEAP_BUILD")                                                                             \
    X("SYMHEAP_INFO")

#endif /* SYM_CONFIG_TABLE_H */
