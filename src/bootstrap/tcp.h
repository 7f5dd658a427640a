/*
 * tcp.h - the parts of the tcp bootstrap (boot_tcp.c says how it works):
 * its wire format, the state a PE keeps, and what each file offers the
 * others.  Private to src/bootstrap/tcp_*.c and boot_tcp.c.
 */
#ifndef SYM_BOOTSTRAP_TCP_H
#define SYM_BOOTSTRAP_TCP_H

#include <arpa/inet.h>
#include <netdb.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

#include "base/secret.h"
#include "bootstrap.h"

#define TCP_MAGIC   0x53594d42u /* "SYMB" */
#define TCP_VERSION 2u
/* Largest message accepted: an allgather result of 4096 PEs x 4 KiB. */
#define TCP_MSG_MAX  (16u << 20)
#define TCP_BLOB_MAX (64u << 10)
/* The handshake (boot_tcp.c): fresh nonces from both sides, a job id the
 * root draws, and HMAC-SHA256 proofs. */
#define TCP_NONCE_LEN     32u
#define TCP_JOBID_LEN     16u
#define TCP_HELLO_LEN     (16u + TCP_NONCE_LEN)
#define TCP_CHALLENGE_LEN (TCP_JOBID_LEN + TCP_NONCE_LEN + SYM_MAC_LEN)
#define TCP_PROOF_LEN     SYM_MAC_LEN
/* Seconds a connection has from its accept to its proof (at most the
 * timeout): a real PE needs two messages and a few microseconds of
 * hashing; anything slower only holds a socket. */
#define TCP_HANDSHAKE_S 10.0
/* Accepted connections that have not said hello yet: beyond this many plus
 * the job size the oldest is dropped (real PEs say hello right after
 * connecting, so even a whole job connecting at once fits). */
#define TCP_PENDING_MAX 64
/* Bytes read from one connection per wake-up of the helper thread, which
 * holds the lock meanwhile; poll reports the rest. */
#define TCP_READ_BUDGET (1u << 20)
/* Dropped stray connections reported on stderr (then only counted). */
#define TCP_STRAY_LOG_MAX 10
/* Extra time a non-root PE gives the root to report a failure it detected
 * itself (it names the culprit; the non-root PE could only say "no answer"):
 * the timeout again, at most 10 s. */
#define TCP_ROOT_MARGIN_S(t) ((t) < 10.0 ? (t) : 10.0)

/* Seconds a loss known only as a consequence (the PE had been returned a
 * job-level error) waits before it is reported: the loss that caused it
 * happened first, but may reach the root later by another connection. */
#define TCP_CAUSE_GRACE_S 0.5

enum tcp_msg {
    MSG_HELLO = 1,      /* PE -> root: magic, version, rank, size */
    MSG_WELCOME = 2,    /* root -> PE: the job key */
    MSG_ERROR = 3,      /* root -> PE: status, text; the job cannot go on */
    MSG_GATHER = 4,     /* PE -> root: step, blob */
    MSG_GATHER_ALL = 5, /* root -> PE: step, every blob in rank order */
    MSG_LOST = 6,       /* root -> PE: a PE was lost */
    MSG_BYE = 7,        /* either way: the sender finalized; its EOF is no loss */
    MSG_CHALLENGE = 8,  /* root -> PE: job id, root nonce, the root's proof */
    MSG_PROOF = 9,      /* PE -> root: the PE's proof */
    MSG_FAILED = 10,    /* either way: the sender was returned a job-level error
                           (status, 1 + the PE it named lost or 0) */
    MSG_ABORT = 11,     /* either way: 1 + the PE that ended the job
                           (sym_global_exit), its status */
};

struct conn {
    int fd; /* -1 until connected; kept until fini, so the number is never
               reused under a sender (open says whether it still works) */
    bool open;
    int rank;      /* -1 until the hello (root side) */
    bool bye;      /* a BYE arrived: EOF is an orderly exit */
    bool failed;   /* root: a FAILED arrived, so its EOF is a consequence */
    bool reported; /* root: its loss was relayed to every PE */
    uint8_t *in;   /* partial input */
    size_t in_len, in_cap;
    double since;  /* root: when it was accepted */
    char peer[64]; /* root: the address it came from, for messages */
    /* root, until admitted: the hello's claims and both nonces */
    bool hello; /* a hello arrived and was challenged: a proof is due */
    uint32_t claim_rank, claim_size;
    uint8_t nonce_pe[TCP_NONCE_LEN], nonce_root[TCP_NONCE_LEN];
};

/* A message the helper thread sends once it has released the lock. */
struct out_msg {
    struct out_msg *next;
    int fd;
    bool owns_fd; /* shut down and close fd once sent (a refused connection) */
    uint32_t type;
    size_t len;
    uint8_t data[];
};

struct slot {
    uint32_t step; /* the allgather step this blob belongs to (0: none yet) */
    uint32_t len;
    uint8_t *data;
};

struct tcp_boot {
    struct sym_boot base;
    char addr_text[256]; /* SYMHEAP_ROOT_ADDR as given */
    double timeout;
    const char *timeout_name; /* what set timeout, for messages */

    pthread_t thread;
    bool thread_started;
    int wake[2];               /* pipe: tells the helper thread to stop */
    pthread_mutex_t send_lock; /* whole messages never interleave */
    pthread_mutex_t lock;      /* everything below */

    int listen_fd;        /* root, until everyone connected */
    struct conn *conns;   /* root: [size] by rank (0 unused); PE: [1], the root */
    struct conn *pending; /* root: accepted, no hello yet */
    int npending, pending_cap;
    int connected; /* root: PEs that said hello */

    uint32_t step;      /* allgather steps done by this PE */
    struct slot *slots; /* root: [size] */
    uint8_t *result;    /* PE: last GATHER_ALL payload (after the step word) */
    size_t result_len;
    uint32_t result_step;

    struct out_msg *out_head, *out_tail; /* helper: to send without the lock */
    int strays;                          /* root: stray connections dropped so far */

    uint8_t job_id[TCP_JOBID_LEN]; /* root: drawn at start; PE: from the challenge */
    uint8_t nonce[TCP_NONCE_LEN];  /* PE: the nonce of its hello */
    bool root_proven;              /* PE: the root proved it knows the secret */
    int auth_failures;             /* root: connections that claimed a PE but never proved it */
    char auth_last[160];           /* root: the last of them, for the timeout message */

    bool welcomed;         /* PE: the key arrived */
    int lost;              /* the lost PE to name (tcp_mark_lost) or -1 */
    bool lost_consequence; /* it was returned a job-level error first */
    double lost_at;        /* tcp_now() when it was recorded */
    bool root_failed;      /* PE: the root sent FAILED */
    uint32_t abort_by;     /* 0, or 1 + the PE that ended the job */
    int32_t abort_status;
    char lost_how[160];
    sym_status_t fatal; /* SYM_OK, or the failure the job cannot survive */
    char fatal_msg[512];
};

static inline double tcp_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static inline uint32_t tcp_get32(const uint8_t *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return ntohl(v);
}

/* ---- tcp_wire.c: messages ------------------------------------------------ */

/* Parse and resolve SYMHEAP_ROOT_ADDR (res_p NULL: only the error of a
 * malformed one). */
sym_status_t tcp_resolve(const char *text, struct addrinfo **res_p);
/* One message from up to two payload pieces.  0 or -1 (errno). */
int tcp_send(struct tcp_boot *tb, int fd, uint32_t type, const void *a, size_t alen, const void *b,
             size_t blen);
/* Queue a message for the helper thread to send once it released the lock
 * (lock held); with owns_fd the queue closes fd after sending. */
void tcp_queue(struct tcp_boot *tb, int fd, bool owns_fd, uint32_t type, const void *a, size_t alen,
               const void *b, size_t blen);
/* Helper thread, lock not held: send (or, !send, drop) what was queued. */
void tcp_flush_queue(struct tcp_boot *tb, bool send);
/* The proof of one side of the handshake (label "root" or "pe") over the
 * claimed rank and size, the job id and both nonces. */
void tcp_handshake_mac(const struct tcp_boot *tb, const char *label, uint32_t rank, uint32_t size,
                       const uint8_t *job_id, const uint8_t *nonce_pe, const uint8_t *nonce_root,
                       uint8_t mac[SYM_MAC_LEN]);
/* The handshake deadline of a connection, in seconds after its accept. */
double tcp_handshake_s(const struct tcp_boot *tb);
/* Record a lost PE (lock held): the first that was not a consequence of
 * an earlier failure (it had not been returned a job-level error), else
 * the first. */
void tcp_mark_lost(struct tcp_boot *tb, int pe, bool consequence, const char *how);
/* Root: record PE pe lost and relay it to every other PE, once (lock held). */
void tcp_root_report_lost(struct tcp_boot *tb, int pe, const char *how);
void tcp_set_fatal(struct tcp_boot *tb, sym_status_t st, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Close a connection, reporting a PE that left without BYE (lock held). */
void tcp_conn_closed(struct tcp_boot *tb, struct conn *c);
/* Read and handle what arrived on c (lock held); false: drop it. */
bool tcp_conn_read(struct tcp_boot *tb, struct conn *c);

/* ---- tcp_root.c: PE 0 ---------------------------------------------------- */

sym_status_t tcp_root_listen(struct tcp_boot *tb);
void tcp_root_accept(struct tcp_boot *tb);
/* A message from PE c->rank, or the hello of a pending connection (lock
 * held); false: drop the connection. */
bool tcp_root_handle(struct tcp_boot *tb, struct conn *c, uint32_t type, const uint8_t *p,
                     uint32_t len);
void tcp_root_fail_all(struct tcp_boot *tb, sym_status_t st, const char *text);
void tcp_stray_log(struct tcp_boot *tb, const struct conn *c, const char *why);
void tcp_auth_failed(struct tcp_boot *tb, struct conn *c, const char *why);
void tcp_drop_pending(struct tcp_boot *tb, int i, const char *why);

/* ---- tcp_pe.c: the other PEs --------------------------------------------- */

sym_status_t tcp_pe_connect(struct tcp_boot *tb);
/* A message from the root (lock held); false: drop the connection. */
bool tcp_pe_handle(struct tcp_boot *tb, uint32_t type, const uint8_t *p, uint32_t len);
/* The root sent something malformed (lock held); returns false. */
bool tcp_root_garbage(struct tcp_boot *tb, const char *what);

/* ---- tcp_helper.c: the helper thread and waits on its state -------------- */

enum wait_kind { WAIT_CONNECT, WAIT_WELCOME, WAIT_ALLGATHER };

struct tcp_wait {
    struct tcp_boot *tb;
    enum wait_kind kind;
    uint32_t step;
};

void *tcp_helper_main(void *arg);
/* Wait for w; the error, if any, names the step. */
sym_status_t tcp_wait_for(struct tcp_wait *w, const char *op, double timeout);
/* The PEs w still waits for, e.g. "3, 5" (lock held). */
void tcp_list_missing(struct tcp_boot *tb, const struct tcp_wait *w, char *buf, size_t len);

#endif /* SYM_BOOTSTRAP_TCP_H */
