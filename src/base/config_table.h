/*
 * config_table.h - the job's SYMHEAP_* environment variables, in one list.
 *
 * X(field, NAME, type, default, min, max, help).  The list generates struct
 * sym_config, its descriptor table (config.c: the parser, the defaults and
 * the `symheap-info` table follow from it), so a variable exists exactly
 * when it is listed here.  A transport's own settings are a table of the
 * same form in its folder (struct sym_transport_class's settings), shown
 * by symheap-info under the transport's name.  Types:
 *   SIZE     bytes, with an optional K, M, G or T suffix (powers of 1024)
 *   SECONDS  a positive decimal number of seconds
 *   BOOL     1/0, yes/no, true/false, on/off
 *   UINT     a non-negative decimal integer
 *   CHOICE   one of the words listed in the help text's {a|b|c}; loaded as
 *            the word's index (an enum of config.h names each one)
 *   FAULT    a fault-injection spec (src/base/fault.h), "none" (or empty) for none
 *   STRING   free text of up to 255 bytes (empty when unset)
 *   SECRET   like STRING, but never shown (symheap-info prints "(set)")
 * min, max: the range a value set in the environment must lie in (SIZE,
 * UINT, SECONDS; max 0: no upper bound), or the longest a STRING may be
 * (max).  A SIZE, SECONDS or UINT whose default is "auto" is 0 until
 * sym_init decides; "auto" in the environment is then the same as unset,
 * and the range bounds only a value set.  Checks between variables are the
 * table's check function (config.c).
 */
#ifndef SYM_CONFIG_TABLE_H
#define SYM_CONFIG_TABLE_H

#define SYM_CONFIG_TABLE(X)                                                                        \
    X(heap_size, "SYMHEAP_HEAP_SIZE", SIZE, "auto", 1, 0,                                          \
      "Bytes of symmetric memory sym_malloc() can hand out on each PE; auto: 256M, or "            \
      "less so that every PE of the host fits in half of the free /dev/shm space")                 \
    X(timeout, "SYMHEAP_TIMEOUT", SECONDS, "60", 0, 86400,                                         \
      "Deadline of every blocking wait (barrier, wait_until, bootstrap), in seconds; at most "     \
      "86400 (one day)")                                                                           \
    X(init_timeout, "SYMHEAP_INIT_TIMEOUT", UINT, "0", 0, 86400,                                   \
      "Deadline of sym_init's steps (bootstrap exchange, libfabric setup) and of the "             \
      "bootstrap's own exchanges, in whole seconds, at most 86400; 0: SYMHEAP_TIMEOUT")            \
    X(debug, "SYMHEAP_DEBUG", BOOL, "0", 0, 0, "Log decisions and errors to stderr")               \
    X(quiet, "SYMHEAP_QUIET", BOOL, "0", 0, 0,                                                     \
      "Do not print a failed sym_init's error, nor warn of unknown SYMHEAP_* variables, on "       \
      "stderr (sym_last_error() still tells; SYMHEAP_DEBUG=1 prints them anyway)")                 \
    X(mailbox_size, "SYMHEAP_MAILBOX_SIZE", SIZE, "4M", 0, 0,                                      \
      "Bytes reserved in each heap for collective and point-to-point mailboxes")                   \
    X(heap_prealloc, "SYMHEAP_HEAP_PREALLOC", BOOL, "1", 0, 0,                                     \
      "Reserve shared memory (posix_fallocate) for the mailboxes at init and for each part of "    \
      "the heap when sym_malloc first hands it out, so exhaustion is an error of that call "       \
      "instead of a SIGBUS later")                                                                 \
    X(transport, "SYMHEAP_TRANSPORT", CHOICE, "auto", 0, 0,                                        \
      "Transport for peers {auto|shm|ofi}: auto = shm on this host")                               \
    X(wait_spin, "SYMHEAP_WAIT_SPIN", UINT, "2000", 0, 0,                                          \
      "Busy-poll iterations before a wait starts yielding the CPU (0 when there are "              \
      "more PEs on this host than cores)")                                                         \
    X(wait_yield_us, "SYMHEAP_WAIT_YIELD_US", UINT, "2000", 0, 0,                                  \
      "Microseconds a wait yields the CPU before it starts sleeping with backoff")                 \
    X(staging_size, "SYMHEAP_STAGING_SIZE", SIZE, "4M", 0, 0,                                      \
      "Bytes of each heap where a PE copies, once, collective data its peers on this host "        \
      "cannot read where it lies (private memory without cross-memory attach), for the "           \
      "world team's direct algorithm; 0: none (direct then needs symmetric buffers or "            \
      "cross-memory attach)")                                                                      \
    X(cma, "SYMHEAP_CMA", CHOICE, "auto", 0, 0,                                                    \
      "Cross-memory attach (process_vm_readv) for collectives' private buffers {auto|on|off}: "    \
      "auto = where probed to work and where it beats copying once into the staging area "         \
      "(SYMHEAP_COLL_TUNING's cma_min), on = wherever probed to work, off = never")                \
    X(chunk_size, "SYMHEAP_CHUNK_SIZE", SIZE, "256K", 64, 0,                                       \
      "Largest piece a collective moves through a mailbox slot at a time")                         \
    X(barrier_algorithm, "SYMHEAP_BARRIER_ALGORITHM", CHOICE, "auto", 0, 0,                        \
      "Barrier algorithm {auto|naive|tree|rd} of sym_barrier, and of the world barrier "           \
      "(sym_barrier_all, sym_sync_all): naive = a central counter, rd = dissemination, "           \
      "tree leaves the world barrier automatic (central when PEs outnumber cores)")                \
    X(broadcast_algorithm, "SYMHEAP_BROADCAST_ALGORITHM", CHOICE, "auto", 0, 0,                    \
      "Broadcast algorithm {auto|naive|ring|tree|direct}")                                         \
    X(reduce_algorithm, "SYMHEAP_REDUCE_ALGORITHM", CHOICE, "auto", 0, 0,                          \
      "Reduce algorithm {auto|naive|ring|tree|direct}")                                            \
    X(allreduce_algorithm, "SYMHEAP_ALLREDUCE_ALGORITHM", CHOICE, "auto", 0, 0,                    \
      "Allreduce algorithm {auto|naive|ring|tree|rd|direct}")                                      \
    X(reduce_scatter_algorithm, "SYMHEAP_REDUCE_SCATTER_ALGORITHM", CHOICE, "auto", 0, 0,          \
      "Reduce-scatter algorithm {auto|naive|ring|direct}")                                         \
    X(all_gather_algorithm, "SYMHEAP_ALL_GATHER_ALGORITHM", CHOICE, "auto", 0, 0,                  \
      "All-gather and all-gatherv algorithm {auto|naive|ring|rd|direct}")                          \
    X(all_to_all_algorithm, "SYMHEAP_ALL_TO_ALL_ALGORITHM", CHOICE, "auto", 0, 0,                  \
      "All-to-all and all-to-allv algorithm {auto|naive|pairwise|direct}")                         \
    X(gather_algorithm, "SYMHEAP_GATHER_ALGORITHM", CHOICE, "auto", 0, 0,                          \
      "Gather algorithm {auto|naive|tree|direct}")                                                 \
    X(scatter_algorithm, "SYMHEAP_SCATTER_ALGORITHM", CHOICE, "auto", 0, 0,                        \
      "Scatter algorithm {auto|naive|tree|direct}")                                                \
    X(globals, "SYMHEAP_GLOBALS", CHOICE, "auto", 0, 0,                                            \
      "How peers on this host reach global and static variables {auto|remap|cma|off}: "            \
      "remap = share the data segment (auto falls back to cross-memory attach)")                   \
    X(fault, "SYMHEAP_FAULT", FAULT, "none", 0, 0,                                                 \
      "Fault injection for tests: kill|stall:pe=P:op=OP:count=N[:seconds=S] makes PE P "           \
      "SIGKILL itself or sleep S s (default 2*timeout+1) at its N-th call of OP "                  \
      "(put get atomic wait barrier send recv or a collective: broadcast reduce "                  \
      "allreduce reduce_scatter all_gather all_gatherv all_to_all all_to_allv gather "             \
      "scatter team_split broadcast_v); none: off")                                                \
    X(bootstrap, "SYMHEAP_BOOTSTRAP", CHOICE, "auto", 0, 0,                                        \
      "How PEs find each other {auto|pmix|symrun|tcp|singleton}: auto = symrun when "              \
      "started by symrun, tcp when SYMHEAP_ROOT_ADDR is set, pmix when PMIX_NAMESPACE "            \
      "is set, else singleton")                                                                    \
    X(rank, "SYMHEAP_RANK", UINT, "0", 0, 0,                                                       \
      "tcp bootstrap: this PE's number, 0..SYMHEAP_SIZE-1 (required)")                             \
    X(size, "SYMHEAP_SIZE", UINT, "0", 0, 0, "tcp bootstrap: number of PEs in the job (required)") \
    X(root_addr, "SYMHEAP_ROOT_ADDR", STRING, "", 0, 0,                                            \
      "tcp bootstrap: host:port PE 0 listens on (only there) and every PE connects "               \
      "to; [v6addr]:port for IPv6")                                                                \
    X(symrun_fd, "SYMHEAP_SYMRUN_FD", UINT, "0", 0, 0,                                             \
      "Set by symrun for the PEs it starts, not by users: descriptor of the job's "                \
      "control segment (its presence selects the symrun bootstrap)")                               \
    X(symrun_pe, "SYMHEAP_SYMRUN_PE", UINT, "0", 0, 0,                                             \
      "Set by symrun for the PEs it starts, not by users: this PE's number")                       \
    X(symrun_npes, "SYMHEAP_SYMRUN_NPES", UINT, "0", 0, 0,                                         \
      "Set by symrun for the PEs it starts, not by users: the number of PEs")                      \
    X(job_secret, "SYMHEAP_JOB_SECRET", SECRET, "", 0, 0,                                          \
      "tcp bootstrap: the job's secret, the same on every PE: 32 to 128 hex digits "               \
      "(e.g. from openssl rand -hex 32); every connection proves it knows it; "                    \
      "insecure-none turns authentication off (trusted networks only)")                            \
    X(job_secret_file, "SYMHEAP_JOB_SECRET_FILE", STRING, "", 0, 0,                                \
      "tcp bootstrap: a file holding the job's secret in hex, owned by this user with "            \
      "mode 0600 or stricter (instead of SYMHEAP_JOB_SECRET)")                                     \
    X(team_area_size, "SYMHEAP_TEAM_AREA_SIZE", SIZE, "64K", 4096, 0,                              \
      "Bytes of each member's heap a split team's mailboxes take (more for a team too "            \
      "large for it: 384 bytes per member and 4K)")                                                \
    X(team_region_size, "SYMHEAP_TEAM_REGION_SIZE", SIZE, "128M", 0, 0,                            \
      "Bytes of each heap split teams' mailboxes are taken from, on demand (memory is used "       \
      "only by the teams that exist)")                                                             \
    X(coll_tuning, "SYMHEAP_COLL_TUNING", STRING, "", 0, 0,                                        \
      "Overrides of the collectives' automatic choices, the same on every PE: "                    \
      "'kind.regime=algo:upto,...,algo;...' (regime pair, crowded or spread; e.g. "                \
      "allreduce.pair=naive:4K,direct,ring) and direct.cma_min=SIZE, "                             \
      "direct.one_shot_max=SIZE, direct.pair_min=SIZE, direct.symmetric_min=SIZE, "                \
      "direct.symmetric_crowded_min=SIZE; symheap-info prints the table in force")                 \
    X(coll_check, "SYMHEAP_COLL_CHECK", CHOICE, "off", 0, 0,                                       \
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
