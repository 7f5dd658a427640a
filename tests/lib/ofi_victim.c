/*
 * ofi_victim.c - a PE of a job over the ofi transport (tcp;ofi_rxm) that
 * lets a stranger (ofi_intruder) at its memory while the job runs.
 *
 *   ofi_victim INTRUDER
 *
 * Every PE keeps a marker in a sym_malloc'ed buffer and in a global
 * variable.  PE 0 starts INTRUDER three times, against its own endpoint,
 * driving its transport's progress meanwhile (tcp;ofi_rxm moves data only
 * while the target calls into libfabric):
 *   1. with the real heap key: the attack must work (read the marker,
 *      overwrite it), or the refusals below would prove nothing;
 *   2. against the heap with guessed keys: 0, the fixed keys of old
 *      versions (1, 2, 3) and random ones: every attempt must fail;
 *   3. against the global variables, alike.
 * The markers must be intact afterwards.  Prints "pe 0 kept the intruder
 * out" (the others "pe N done"); exit status 0, or 10 with the reason.
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/internal.h"
#include "transport_of.h"
#include "ofi/ofi_private.h"
#include "symheap.h"

#define MARKER "victim-marker-0123456789"

char victim_global[64] = MARKER; /* .data: a symmetric global */

static _Noreturn void broken(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "ofi_victim: ");
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "\n");
    va_end(ap);
    exit(10);
}

#define OK(call)                                                                                   \
    do {                                                                                           \
        sym_status_t st_ = (call);                                                                 \
        if (st_ != SYM_OK)                                                                         \
            broken("%s: %s", #call, sym_last_error());                                             \
    } while (0)

static void hex(const void *p, size_t n, char *out)
{
    for (size_t i = 0; i < n; i++)
        sprintf(out + 2 * i, "%02x", ((const uint8_t *)p)[i]);
}

/* Run the intruder with these keys; its exit status (0: all refused). */
static int intrude(struct sym_transport *tp, const char *intruder, const char *name, uint64_t raddr,
                   const char *keys[], int nkeys)
{
    char raddr_s[32], expect[2 * sizeof(MARKER) + 1];
    snprintf(raddr_s, sizeof(raddr_s), "%#llx", (unsigned long long)raddr);
    hex(MARKER, strlen(MARKER), expect);
    const char *argv[16] = {intruder, name, raddr_s, expect};
    for (int i = 0; i < nkeys && i < 11; i++)
        argv[4 + i] = keys[i];
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        execv(intruder, (char *const *)argv);
        _exit(127);
    }
    if (pid < 0)
        broken("fork: %s", strerror(errno));
    int status;
    for (int i = 0; i < 120000; i++) { /* 2 minutes */
        if (waitpid(pid, &status, WNOHANG) == pid)
            return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
        tp->ops->progress(tp);
        nanosleep(&(struct timespec){0, 1000000}, NULL);
    }
    kill(pid, SIGKILL);
    broken("the intruder did not finish within 2 minutes");
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc != 2)
        broken("usage: ofi_victim INTRUDER");
    OK(sym_init());
    int me = sym_my_pe();
    char *buf = sym_malloc(64);
    if (!buf)
        broken("sym_malloc: %s", sym_last_error());
    memcpy(buf, MARKER, sizeof(MARKER));
    OK(sym_barrier_all());
    if (me == 0) {
        struct sym_transport *tp = test_transport("ofi");
        if (!tp)
            broken("no ofi transport (SYMHEAP_TRANSPORT=ofi?)");
        struct ofi_transport *t = (struct ofi_transport *)tp;
        uint8_t addr[256];
        size_t len = sizeof(addr);
        if (fi_getname(&t->ep->fid, addr, &len) != 0)
            broken("fi_getname failed");
        char name[2 * sizeof(addr) + 1];
        hex(addr, len, name);
        struct ofi_mr_state s;
        ofi_transport_mr_state(tp, 0, &s);
        uint64_t heap_raddr = s.base_of_pe + (uint64_t)((uint8_t *)buf - (uint8_t *)s.heap_addr);
        char real[32], r1[32], r2[32], r3[32];
        snprintf(real, sizeof(real), "%#llx", (unsigned long long)s.key_of_pe);
        uint64_t rnd[3];
        if (getrandom(rnd, sizeof(rnd), 0) != sizeof(rnd))
            broken("getrandom");
        snprintf(r1, sizeof(r1), "%#llx", (unsigned long long)rnd[0]);
        snprintf(r2, sizeof(r2), "%#llx", (unsigned long long)rnd[1]);
        snprintf(r3, sizeof(r3), "%#llx", (unsigned long long)(rnd[2] & 0xffff));

        printf("control: the real heap key\n");
        if (intrude(tp, argv[1], name, heap_raddr, (const char *[]){real}, 1) != 1 ||
            memcmp(buf, "INTRUDER", 8) != 0)
            broken("the intruder could not use the real key: the test proves nothing");
        memcpy(buf, MARKER, sizeof(MARKER));

        const char *guesses[] = {"0", "1", "2", "3", r1, r2, r3};
        printf("attack: the heap with guessed keys\n");
        int rc = intrude(tp, argv[1], name, heap_raddr, guesses, 7);
        if (rc != 0)
            broken("the intruder got into the heap (status %d)", rc);
        if (t->data_len) {
            uint64_t data_raddr =
                s.data_base_of_pe + (uint64_t)((uint8_t *)victim_global - (uint8_t *)s.data_addr);
            printf("attack: the global variables with guessed keys\n");
            rc = intrude(tp, argv[1], name, data_raddr, guesses, 7);
            if (rc != 0)
                broken("the intruder got into the global variables (status %d)", rc);
        }
        if (memcmp(buf, MARKER, sizeof(MARKER)) != 0 ||
            memcmp(victim_global, MARKER, sizeof(MARKER)) != 0)
            broken("a marker changed: '%.24s' '%.24s'", buf, victim_global);
        printf("pe 0 kept the intruder out\n");
    }
    OK(sym_barrier_all());
    sym_free(buf);
    OK(sym_finalize());
    if (me != 0)
        printf("pe %d done\n", me);
    return 0;
}
