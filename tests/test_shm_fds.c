/*
 * test_shm_fds.c - a job's shared memory has no name: nothing of it
 * appears in /dev/shm, nobody else can open, squat or watch for it, the
 * descriptors go only to the job's own PEs, and nothing is left behind,
 * not even when a PE is killed.
 *
 * - nothing_named: at 1..4 PEs, /dev/shm is watched (inotify) while a job
 *   runs heap puts, puts into global variables and atomics on a global
 *   variable (globals stay mapped directly: sym_ptr reaches them); no entry
 *   of the job appears, and after sym_finalize a PE holds no segment
 *   descriptor, no exchange socket and no mapping of a peer's heap.
 * - strangers_refused: while PE 0 waits in sym_init, a process of the same
 *   uid that is not a PE of the job, and (as root) a process of another
 *   uid, connect to PE 0's exchange socket: they get no descriptor, the
 *   other uid cannot open PE 0's descriptors through /proc either, and the
 *   job runs correctly.  As root another uid also watches /dev/shm during
 *   the job and tries to open every symheap name it sees: nothing to open.
 * - killed_pe_leaves_nothing: a PE killed after init; the survivors, after
 *   sym_finalize, hold nothing of the job, and /dev/shm never saw it.
 * - many_peers_few_descriptors: 16 PEs, each allowed only 40 descriptors
 *   more than it had: segments are mapped as they arrive.
 *
 * Acting as another user needs root (setresuid in a forked child); CI runs
 * as root.  Without root those parts are reported as skipped.
 */
#include <criterion/criterion.h>
#include <criterion/parameterized.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "launch/job.h"

#define OTHER_UID 65534 /* nobody */

int64_t g_counter;
int64_t g_ring[8];

/* Filled by the PEs (a shared page the forked PEs inherit). */
struct pids {
    int n;
    int pid[HARNESS_MAX_PES];
};

static struct pids *pids_page(void)
{
    struct pids *p =
        mmap(NULL, sizeof(*p), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    cr_assert(p != MAP_FAILED, "mmap: %s", strerror(errno));
    memset(p, 0, sizeof(*p));
    return p;
}

/* ---- /dev/shm watched while the job runs -------------------------------- */

static int watch_dev_shm(void)
{
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    cr_assert(fd >= 0, "inotify_init1: %s", strerror(errno));
    cr_assert(inotify_add_watch(fd, "/dev/shm", IN_CREATE | IN_MOVED_TO) >= 0,
              "inotify_add_watch /dev/shm: %s", strerror(errno));
    return fd;
}

/* Whether `name` carries `pid` as a whole number (old names carried the
 * owner's pid: "symheap-<uid>-<key>-<pid>.<start>-<what>"; libfabric's
 * "<pid>:<n>:<n>"). */
static bool names_pid(const char *name, int pid)
{
    char num[16];
    int len = snprintf(num, sizeof(num), "%d", pid);
    for (const char *p = strstr(name, num); p; p = strstr(p + 1, num)) {
        bool start = p == name || p[-1] == '-';
        char after = p[len];
        if (start && (after == '.' || after == ':' || after == '-' || after == '\0'))
            return true;
    }
    return false;
}

/* Entries created in /dev/shm since watch_dev_shm that belong to the job
 * (named "symheap-..." and carrying one of its pids: the test process is
 * its launcher); the names go into `names`. */
static int job_entries(int wfd, const struct pids *p, char *names, size_t cap)
{
    int count = 0;
    size_t used = 0;
    names[0] = '\0';
    char buf[8192] __attribute__((aligned(__alignof__(struct inotify_event))));
    ssize_t n;
    while ((n = read(wfd, buf, sizeof(buf))) > 0) {
        for (char *at = buf; at < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)at;
            at += sizeof(*e) + e->len;
            if (!e->len || strncmp(e->name, "symheap-", 8) != 0)
                continue;
            bool ours = names_pid(e->name, getpid());
            for (int i = 0; i < p->n && !ours; i++)
                ours = names_pid(e->name, p->pid[i]);
            if (!ours)
                continue;
            count++;
            if (used < cap)
                used += (size_t)snprintf(names + used, cap - used, " %s", e->name);
        }
    }
    close(wfd);
    return count;
}

/* ---- inside a PE: what it holds ------------------------------------------ */

/* Inodes of the listening sockets named "@symheap-fdx-..." (all users). */
static int fdx_inodes(unsigned long *ino, int cap)
{
    FILE *f = fopen("/proc/net/unix", "r");
    if (!f)
        return 0;
    char line[512];
    int n = 0;
    while (fgets(line, sizeof(line), f) && n < cap) {
        unsigned long inode;
        char path[256] = "";
        if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %255s", &inode, path) >= 1 &&
            strstr(path, "@symheap-fdx-") == path)
            ino[n++] = inode;
    }
    fclose(f);
    return n;
}

/* Descriptors of process `pid` that are segments of the library (memfds
 * "symheap-heap", "symheap-globals") or exchange sockets. */
static int held_by(pid_t pid)
{
    unsigned long ino[256];
    int nino = fdx_inodes(ino, 256);
    char dir[64];
    snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)pid);
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        char link[PATH_MAX], target[PATH_MAX];
        snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        unsigned long i;
        if (strstr(target, "memfd:symheap-heap") || strstr(target, "memfd:symheap-globals"))
            count++;
        else if (sscanf(target, "socket:[%lu]", &i) == 1)
            for (int k = 0; k < nino; k++)
                count += ino[k] == i;
    }
    closedir(d);
    return count;
}

/* Mappings of heaps (mine or peers'): none once finalized. */
static int heap_mappings(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    if (!f)
        return -1;
    char line[512];
    int count = 0;
    while (fgets(line, sizeof(line), f))
        count += strstr(line, "memfd:symheap-heap") != NULL;
    fclose(f);
    return count;
}

static bool over_shm(void)
{
    const char *t = getenv("SYMHEAP_TRANSPORT");
    return !t || strcmp(t, "ofi") != 0;
}

static bool globals_shared(void)
{
    const char *g = getenv("SYMHEAP_GLOBALS");
    return !g || (strcmp(g, "cma") != 0 && strcmp(g, "off") != 0);
}

/* Heap ring, globals ring, an atomic on PE 0's global from every PE. */
static void exercise(int me, int npes)
{
    uint64_t *box = sym_calloc(8, sizeof(uint64_t));
    PE_ASSERT(box, "sym_calloc: %s", sym_last_error());
    int right = (me + 1) % npes, left = (me + npes - 1) % npes;
    uint64_t v[8];
    int64_t w[8];
    for (int i = 0; i < 8; i++) {
        v[i] = (uint64_t)me * 100 + (uint64_t)i;
        w[i] = -(int64_t)v[i];
    }
    PE_OK(sym_put(box, v, sizeof(v), right));
    if (globals_shared()) {
        PE_OK(sym_put(g_ring, w, sizeof(w), right));
        PE_OK(sym_atomic_add64((uint64_t *)&g_counter, (uint64_t)me + 1, 0));
        if (over_shm())
            for (int pe = 0; pe < npes; pe++)
                PE_ASSERT(sym_ptr(&g_counter, pe) != NULL,
                          "PE %d's global variables are not mapped directly", pe);
    }
    PE_OK(sym_barrier_all());
    for (int i = 0; i < 8; i++) {
        PE_ASSERT(box[i] == (uint64_t)left * 100 + (uint64_t)i, "heap word %d from PE %d wrong", i,
                  left);
        PE_ASSERT(!globals_shared() || g_ring[i] == -(int64_t)box[i],
                  "global word %d from PE %d wrong", i, left);
    }
    if (me == 0 && globals_shared())
        PE_ASSERT(g_counter == (int64_t)npes * (npes + 1) / 2, "g_counter = %lld",
                  (long long)g_counter);
    PE_OK(sym_barrier_all());
    sym_free(box);
}

static void check_nothing_held(void)
{
    int held = held_by(getpid()), maps = heap_mappings();
    PE_ASSERT(held == 0, "%d segment descriptor(s) or exchange socket(s) held after finalize",
              held);
    PE_ASSERT(maps == 0, "%d heap mapping(s) left after finalize", maps);
}

/* ---- nothing named ------------------------------------------------------- */

static void nothing_named_body(int me, int npes, void *arg)
{
    struct pids *p = arg;
    p->pid[me] = getpid();
    PE_OK(sym_init());
    PE_ASSERT(heap_mappings() >= 1, "no heap mapping while initialised?");
    exercise(me, npes);
    PE_OK(sym_finalize());
    check_nothing_held();
}

ParameterizedTestParameters(shm_fds, nothing_named)
{
    static int counts[] = {1, 2, 3, 4};
    return cr_make_param_array(int, counts, sizeof(counts) / sizeof(counts[0]));
}

ParameterizedTest(int *npes, shm_fds, nothing_named)
{
    if (!harness_pes_listed(*npes))
        cr_skip_test("SYMHEAP_TEST_PES leaves out %d PEs", *npes);
    struct pids *p = pids_page();
    p->n = *npes;
    int wfd = watch_dev_shm();
    struct pe_job job = {.npes = *npes, .body = nothing_named_body, .arg = p, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    char names[1024];
    int seen = job_entries(wfd, p, names, sizeof(names));
    munmap(p, sizeof(*p));
    assert_job_ok(&out);
    cr_assert(seen == 0, "%d entries of the job appeared in /dev/shm:%s", seen, names);
}

/* ---- many peers, few descriptors ------------------------------------------ */

static int open_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return -1;
    int n = 0;
    while (readdir(d))
        n++;
    closedir(d);
    return n - 3; /* ".", ".." and the directory's own */
}

/* A PE maps each peer's segments as they arrive and keeps a bounded number
 * of connections open: with 15 peers it gets by with 40 descriptors more
 * than it had (holding every peer's two segments until the end would need
 * over 60). */
static void few_fds_body(int me, int npes, void *arg)
{
    (void)arg;
    struct rlimit rl;
    PE_ASSERT(getrlimit(RLIMIT_NOFILE, &rl) == 0, "getrlimit: %s", strerror(errno));
    rl.rlim_cur = (rlim_t)open_fds() + 40;
    PE_ASSERT(setrlimit(RLIMIT_NOFILE, &rl) == 0, "setrlimit: %s", strerror(errno));
    PE_OK(sym_init());
    exercise(me, npes);
    PE_OK(sym_finalize());
}

Test(shm_fds, many_peers_few_descriptors)
{
    if (!harness_pes_listed(16))
        cr_skip_test("SYMHEAP_TEST_PES leaves out 16 PEs");
    struct pe_job job = {.npes = 16, .body = few_fds_body, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ---- strangers at the exchange socket ------------------------------------ */

/* The abstract name PE `pid` listens on for the exchange, once it does. */
static bool listener_of(pid_t pid, char *name, size_t cap)
{
    unsigned long mine[64];
    int nmine = 0;
    char dir[64];
    snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)pid);
    DIR *d = opendir(dir);
    if (!d)
        return false;
    for (struct dirent *e; nmine < 64 && (e = readdir(d));) {
        char link[PATH_MAX], target[128];
        snprintf(link, sizeof(link), "%s/%s", dir, e->d_name);
        ssize_t n = readlink(link, target, sizeof(target) - 1);
        if (n > 0 && (target[n] = '\0', sscanf(target, "socket:[%lu]", &mine[nmine]) == 1))
            nmine++;
    }
    closedir(d);
    FILE *f = fopen("/proc/net/unix", "r");
    if (!f)
        return false;
    char line[512];
    bool found = false;
    while (!found && fgets(line, sizeof(line), f)) {
        unsigned long inode;
        char path[256] = "";
        if (sscanf(line, "%*s %*s %*s %*s %*s %*s %lu %255s", &inode, path) != 2 ||
            strstr(path, "@symheap-fdx-") != path)
            continue;
        for (int k = 0; k < nmine && !found; k++)
            if (mine[k] == inode) {
                snprintf(name, cap, "%.100s", path + 1);
                found = true;
            }
    }
    fclose(f);
    return found;
}

struct stranger {
    char name[128]; /* abstract socket name */
    pid_t victim;   /* PE 0 */
    int ready;      /* write end: one byte once connected */
    bool other_uid;
};

/* Exit status: 0 refused without a descriptor; 1 got a descriptor; 2 (other
 * uid) could open one of the victim's descriptors through /proc; 3 could not
 * connect; 4 never closed; 5 got data; 255 could not change user. */
static int stranger_main(const struct stranger *s)
{
    if (s->other_uid) {
        if (setresgid(OTHER_UID, OTHER_UID, OTHER_UID) != 0 ||
            setresuid(OTHER_UID, OTHER_UID, OTHER_UID) != 0)
            return 255;
        for (int fd = 0; fd < 64; fd++) {
            char path[64];
            snprintf(path, sizeof(path), "/proc/%ld/fd/%d", (long)s->victim, fd);
            int got = open(path, O_RDWR | O_CLOEXEC);
            if (got >= 0)
                return 2;
        }
    }
    int c = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    struct sockaddr_un a = {.sun_family = AF_UNIX};
    size_t n = strlen(s->name);
    memcpy(a.sun_path + 1, s->name, n);
    if (c < 0 || connect(c, (struct sockaddr *)&a,
                         (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + n)) != 0)
        return 3;
    (void)!write(s->ready, "c", 1);
    struct pollfd pf = {.fd = c, .events = POLLIN};
    if (poll(&pf, 1, 30000) <= 0)
        return 4;
    char buf[64];
    struct iovec iov = {buf, sizeof(buf)};
    union {
        char b[CMSG_SPACE(sizeof(int) * 8)];
        struct cmsghdr align;
    } u;
    struct msghdr h = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.b, .msg_controllen = sizeof(u.b)};
    ssize_t got = recvmsg(c, &h, 0);
    if (got < 0) /* closed, before it was accepted (no local peers to serve) or after */
        return errno == ECONNRESET || errno == ENOTCONN ? 0 : 5;
    if (h.msg_controllen > 0 && CMSG_FIRSTHDR(&h))
        return 1;
    return got == 0 ? 0 : 5;
}

static pid_t start_stranger(struct stranger *s)
{
    int pfd[2];
    PE_ASSERT(pipe2(pfd, O_CLOEXEC) == 0, "pipe2: %s", strerror(errno));
    s->ready = pfd[1];
    fflush(NULL);
    pid_t pid = fork();
    PE_ASSERT(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        close(pfd[0]);
        _exit(stranger_main(s));
    }
    close(pfd[1]);
    /* Only once it is queued at PE 0's socket may this PE join: the
     * exchange (and the socket) ends as soon as both PEs are in it. */
    struct pollfd pf = {.fd = pfd[0], .events = POLLIN};
    PE_ASSERT(poll(&pf, 1, 20000) == 1, "the stranger never connected");
    close(pfd[0]);
    return pid;
}

static int stranger_end(pid_t pid)
{
    int st;
    while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
        ;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void strangers_body(int me, int npes, void *arg)
{
    struct pids *p = arg;
    p->pid[me] = getpid();
    if (me == 1) {
        /* PE 0 waits in sym_init for this PE, its socket listening. */
        const char *fds = getenv(SYM_ENV_SYMRUN_FD);
        PE_ASSERT(fds, "not started by the launcher");
        const struct sym_job_ctrl *c =
            mmap(NULL, sym_job_ctrl_size((uint32_t)npes), PROT_READ, MAP_SHARED, atoi(fds), 0);
        PE_ASSERT(c != MAP_FAILED, "mmap of the control segment: %s", strerror(errno));
        struct stranger s = {.victim = __atomic_load_n(&c->pe[0].pid, __ATOMIC_ACQUIRE)};
        double t0 = harness_now();
        while (!listener_of(s.victim, s.name, sizeof(s.name))) {
            PE_ASSERT(harness_now() - t0 < harness_seconds(20), "PE 0 never listened");
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        pid_t same = start_stranger(&s);
        pid_t other = -1;
        if (getuid() == 0) {
            s.other_uid = true;
            other = start_stranger(&s);
        }
        PE_OK(sym_init());
        exercise(me, npes);
        PE_OK(sym_finalize());
        int rc = stranger_end(same);
        PE_ASSERT(rc == 0, "a stranger of the same uid ended with %d (1: it got a descriptor)", rc);
        if (other > 0) {
            rc = stranger_end(other);
            PE_ASSERT(rc == 0,
                      "a stranger of uid %d ended with %d (1: it got a descriptor; 2: it "
                      "opened one through /proc)",
                      OTHER_UID, rc);
        }
        munmap((void *)c, sym_job_ctrl_size((uint32_t)npes));
        return;
    }
    PE_OK(sym_init());
    exercise(me, npes);
    PE_OK(sym_finalize());
}

/* Another uid watching /dev/shm: it tries to open every symheap name it
 * sees appear until `stop` closes; exit status: how many it could open. */
static int watcher_main(int stop, int ready)
{
    if (setresgid(OTHER_UID, OTHER_UID, OTHER_UID) != 0 ||
        setresuid(OTHER_UID, OTHER_UID, OTHER_UID) != 0)
        return 255;
    int in = inotify_init1(IN_CLOEXEC);
    if (in < 0 || inotify_add_watch(in, "/dev/shm", IN_CREATE | IN_MOVED_TO) < 0)
        return 254;
    (void)!write(ready, "w", 1);
    int opened = 0;
    struct pollfd pf[2] = {{.fd = stop, .events = POLLIN}, {.fd = in, .events = POLLIN}};
    while (poll(pf, 2, -1) > 0 && !pf[0].revents) {
        char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
        ssize_t n = read(in, buf, sizeof(buf));
        for (char *at = buf; n > 0 && at < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)at;
            at += sizeof(*e) + e->len;
            if (e->len && strncmp(e->name, "symheap-", 8) == 0) {
                char path[PATH_MAX];
                snprintf(path, sizeof(path), "/dev/shm/%s", e->name);
                int fd = open(path, O_RDWR | O_CLOEXEC);
                if (fd >= 0) {
                    opened++;
                    close(fd);
                }
            }
        }
    }
    return opened > 250 ? 250 : opened;
}

Test(shm_fds, strangers_refused)
{
    harness_require_symrun("PE 1 finds PE 0's pid in symrun's job control segment");
    bool root = getuid() == 0;
    int stop[2], ready[2];
    pid_t watcher = -1;
    if (root) {
        cr_assert(pipe2(stop, O_CLOEXEC) == 0 && pipe2(ready, O_CLOEXEC) == 0);
        fflush(NULL);
        watcher = fork();
        cr_assert(watcher >= 0, "fork: %s", strerror(errno));
        if (watcher == 0) {
            close(stop[1]);
            close(ready[0]);
            _exit(watcher_main(stop[0], ready[1]));
        }
        close(stop[0]);
        close(ready[1]);
        char b;
        cr_assert(read(ready[0], &b, 1) == 1, "the watcher of uid %d did not start", OTHER_UID);
        close(ready[0]);
    }
    struct pids *p = pids_page();
    p->n = 2;
    int wfd = watch_dev_shm();
    struct pe_job job = {
        .npes = 2, .body = strangers_body, .arg = p, .raw = true, .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    char names[1024];
    int seen = job_entries(wfd, p, names, sizeof(names));
    munmap(p, sizeof(*p));
    int opened = 0;
    if (root) {
        close(stop[1]);
        opened = stranger_end(watcher);
    }
    assert_job_ok(&out);
    cr_assert(seen == 0, "%d entries of the job appeared in /dev/shm:%s", seen, names);
    if (!root)
        cr_skip_test("not root: the checks as another uid were skipped (the rest passed)");
    cr_assert(opened == 0, "the watcher of uid %d opened %d symheap object(s) (255: no setuid)",
              OTHER_UID, opened);
}

/* ---- a killed PE ----------------------------------------------------------- */

static void killed_body(int me, int npes, void *arg)
{
    struct pids *p = arg;
    p->pid[me] = getpid();
    PE_OK(sym_init());
    exercise(me, npes);
    int victim = npes - 1;
    if (me == victim)
        raise(SIGKILL);
    PE_FAILS_WITH(sym_barrier_all(), SYM_ERR_PEER_LOST);
    PE_FAILS_WITH(sym_finalize(), SYM_ERR_PEER_LOST);
    check_nothing_held();
}

Test(shm_fds, killed_pe_leaves_nothing)
{
    if (!strcmp(harness_launcher(), "mpirun"))
        cr_skip_test("mpirun ends every rank once one is killed: no survivor to look at");
    struct pids *p = pids_page();
    p->n = 3;
    int wfd = watch_dev_shm();
    struct pe_job job = {.npes = 3, .body = killed_body, .arg = p, .raw = true};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    char names[1024];
    int seen = job_entries(wfd, p, names, sizeof(names));
    munmap(p, sizeof(*p));
    cr_assert_eq(out.term_signal[2], SIGKILL, "the victim ended with code %d", out.exit_code[2]);
    for (int pe = 0; pe < 2; pe++)
        cr_assert_eq(out.exit_code[pe], 0, "survivor PE %d failed (code %d)", pe,
                     out.exit_code[pe]);
    cr_assert_eq(out.leftover_objects, 0, "%d objects left in /dev/shm", out.leftover_objects);
    cr_assert(seen == 0, "%d entries of the job appeared in /dev/shm:%s", seen, names);
}
