/*
 * test_security.c - the shared-memory segments of a job against other users
 * and other jobs, and the sweep of dead jobs' objects.
 *
 * - Segments have no names (test_shm_fds.c: nothing to squat or watch);
 *   a PE maps a peer's heap only from a sealed memfd owned by its own uid,
 *   of the job's heap size, with a heap header of this layout version
 *   naming that PE and this job: one job cannot attach to another's heap.
 * - A process pointed at something that is not its job's control segment
 *   refuses to join.
 * - The stale sweep (symheap-info --cleanup, symrun at start) removes this
 *   user's objects whose owner is dead, as symheap versions that named
 *   their segments left them, and nothing else: not a live job's,
 *   not another user's, not names it cannot read.
 *
 * Acting as another user needs root (setresuid in a forked child); this
 * suite runs as root in CI.  Without root those checks are reported as
 * skipped, not passed.
 */
#include <criterion/criterion.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bootstrap/bootstrap.h"
#include "harness.h"
#include "base/heap_layout.h"
#include "launch/job.h"
#include "launch/launcher.h"
#include "launch/owner.h"
#include "shm/shm.h"

#define OTHER_UID 65534 /* nobody */

/* Run fn(arg) in a child that has become OTHER_UID; its return value is the
 * child's exit status (-1 if the child could not change user). */
static int as_other_user(int (*fn)(void *), void *arg)
{
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        if (setresgid(OTHER_UID, OTHER_UID, OTHER_UID) != 0 ||
            setresuid(OTHER_UID, OTHER_UID, OTHER_UID) != 0)
            _exit(255);
        _exit(fn(arg));
    }
    int st;
    if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st) || WEXITSTATUS(st) == 255)
        return -1;
    return WEXITSTATUS(st);
}

static bool shm_exists(const char *name)
{
    char path[PATH_MAX];
    struct stat st;
    snprintf(path, sizeof(path), "/dev/shm%s", name);
    return stat(path, &st) == 0;
}

/* The program next to symrun (both are in the build's top directory). */
static void tool_path(const char *tool, char *buf, size_t len)
{
    const char *symrun = getenv("SYMRUN");
    if (!symrun)
        cr_assert_fail("SYMRUN is not set: run this test through meson test");
    char copy[PATH_MAX];
    snprintf(copy, sizeof(copy), "%s", symrun);
    snprintf(buf, len, "%s/%s", dirname(copy), tool);
}

static void ring_check(int me, int npes)
{
    uint64_t *box = sym_calloc(8, sizeof(uint64_t));
    PE_ASSERT(box, "sym_calloc: %s", sym_last_error());
    uint64_t v[8];
    for (int i = 0; i < 8; i++)
        v[i] = (uint64_t)me * 100 + (uint64_t)i;
    PE_OK(sym_put(box, v, sizeof(v), (me + 1) % npes));
    PE_OK(sym_barrier_all());
    int left = (me + npes - 1) % npes;
    for (int i = 0; i < 8; i++)
        PE_ASSERT(box[i] == (uint64_t)left * 100 + (uint64_t)i, "word %d from PE %d wrong", i,
                  left);
    PE_OK(sym_barrier_all());
    sym_free(box);
}

/* ---- mapping a peer's heap: only the real thing ----------------------------- */

enum peer_variant {
    PV_GOOD,      /* control: accepted */
    PV_OTHER_UID, /* created by another user */
    PV_UNSEALED,  /* a memfd whose size is not sealed */
    PV_NOT_MEMFD, /* a plain file */
    PV_SIZE,      /* a different size */
    PV_NO_HEADER, /* zero-filled */
    PV_VERSION,   /* another layout version */
    PV_WRONG_PE,  /* header names PE 0 */
    PV_OTHER_JOB, /* header names another job key */
    PV_COUNT
};

static const char *const pv_names[PV_COUNT] = {
    "good",      "other uid",      "unsealed", "not a memfd", "size",
    "no header", "layout version", "wrong PE", "other job",
};

static const char *const pv_needles[PV_COUNT] = {
    "",
    "another owner",
    "its size is not sealed",
    "its size is not sealed",
    "another size",
    "no symheap heap header",
    "another heap layout version",
    "another PE",
    "another job",
};

struct peer_obj {
    size_t len;
    int variant;
    char key[SYM_JOB_KEY_LEN + 1];
    int sock; /* PV_OTHER_UID: where the other user sends its descriptor */
};

/* A peer's heap segment of the given variant, or -1. */
static int make_peer_segment(const struct peer_obj *o)
{
    int fd;
    if (o->variant == PV_NOT_MEMFD)
        fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    else
        fd = memfd_create("peer", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    size_t len = o->variant == PV_SIZE ? o->len + 4096 : o->len;
    if (fd < 0 || ftruncate(fd, (off_t)len) != 0)
        return -1;
    if (o->variant != PV_UNSEALED && o->variant != PV_NOT_MEMFD &&
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW) != 0)
        return -1;
    if (o->variant != PV_NO_HEADER) {
        struct sym_heap_ctrl hc;
        memset(&hc, 0, sizeof(hc));
        hc.magic = SYM_HEAP_MAGIC;
        hc.layout_version = o->variant == PV_VERSION ? 99 : SYM_HEAP_LAYOUT_VERSION;
        hc.pe = o->variant == PV_WRONG_PE ? 0 : 1;
        hc.npes = 2;
        hc.heap_total = o->len;
        memcpy(hc.job_key, o->key, sizeof(o->key));
        if (o->variant == PV_OTHER_JOB)
            hc.job_key[0] = hc.job_key[0] == 'a' ? 'b' : 'a';
        if (pwrite(fd, &hc, sizeof(hc), 0) != (ssize_t)sizeof(hc))
            return -1;
    }
    return fd;
}

/* As the other user: make the segment and send it over o->sock. */
static int send_peer_segment(void *arg)
{
    const struct peer_obj *o = arg;
    int fd = make_peer_segment(o);
    if (fd < 0)
        return 1;
    char byte = 0;
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr h = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
    struct cmsghdr *cm = CMSG_FIRSTHDR(&h);
    cm->cmsg_level = SOL_SOCKET;
    cm->cmsg_type = SCM_RIGHTS;
    cm->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(cm), &fd, sizeof(int));
    return sendmsg(o->sock, &h, 0) == 1 ? 0 : 2;
}

static int recv_fd(int sock)
{
    char byte;
    struct iovec iov = {&byte, 1};
    union {
        char buf[CMSG_SPACE(sizeof(int))];
        struct cmsghdr align;
    } u;
    struct msghdr h = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = u.buf, .msg_controllen = sizeof(u.buf)};
    if (recvmsg(sock, &h, MSG_CMSG_CLOEXEC) != 1 || !CMSG_FIRSTHDR(&h))
        return -1;
    int fd;
    memcpy(&fd, CMSG_DATA(CMSG_FIRSTHDR(&h)), sizeof(int));
    return fd;
}

/* A PE maps a peer's heap only from a sealed memfd of its own uid, of the
 * job's heap size, whose header names that PE of this job: whatever else a
 * descriptor brings is refused, naming what was wrong. */
Test(security, peer_heap_verified_before_use)
{
    const size_t len = 1u << 20;
    int tried = 0;
    for (int v = 0; v < PV_COUNT; v++) {
        if (v == PV_OTHER_UID && getuid() != 0)
            continue;
        char key[SYM_JOB_KEY_LEN + 1];
        cr_assert(sym_boot_random_key(key) == 0);
        /* PE 0 of 2 whose own heap does not matter here: only the peer's is mapped */
        const struct sym_memory mem = {.heap_len = len, .heap_fd = -1, .data_fd = -1};
        struct sym_transport *tp = NULL;
        cr_assert(shm_transport_new(0, 2, &mem, &tp) == SYM_OK, "shm_transport_new: %s",
                  sym_last_error());
        struct peer_obj o = {.len = len, .variant = v, .sock = -1};
        memcpy(o.key, key, sizeof(o.key));
        int fd = -1;
        if (v == PV_OTHER_UID) {
            int sv[2];
            cr_assert(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) == 0);
            o.sock = sv[1];
            int rc = as_other_user(send_peer_segment, &o);
            cr_assert(rc == 0, "the other user could not make a segment (%d)", rc);
            fd = recv_fd(sv[0]);
            close(sv[0]);
            close(sv[1]);
        } else {
            fd = make_peer_segment(&o);
        }
        cr_assert(fd >= 0, "%s: could not make the peer segment: %s", pv_names[v], strerror(errno));
        sym_status_t st = shm_transport_attach(tp, key, 1, fd);
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", sym_last_error());
        close(fd);
        void *mapped = tp->ops->ptr(tp, 1, 0);
        tp->ops->fini(tp);
        tried++;
        if (v == PV_GOOD) {
            cr_expect(st == SYM_OK && mapped != NULL, "a good peer heap was refused: %s", msg);
            continue;
        }
        cr_expect(st == SYM_ERR_BOOTSTRAP && mapped == NULL, "%s: mapped (%s)", pv_names[v],
                  sym_status_name(st));
        cr_expect(strstr(msg, pv_needles[v]) != NULL, "%s: message '%s' does not say '%s'",
                  pv_names[v], msg, pv_needles[v]);
    }
    cr_log_info("%d peer segments tried", tried);
    if (getuid() != 0)
        cr_skip_test("needs root for the other-uid case (the rest passed)");
}

/* ---- joining through something that is not the job's control segment ------- */

static void foreign_ctrl_body(int me, int npes, void *arg)
{
    (void)arg;
    const char *real = getenv(SYM_ENV_SYMRUN_FD);
    PE_ASSERT(real, "no control segment");
    char saved[32];
    snprintf(saved, sizeof(saved), "%s", real);
    size_t len = sym_job_ctrl_size((uint32_t)npes);
    int fds[3];
    fds[0] = memfd_create("zeros", MFD_CLOEXEC); /* right size, no header */
    PE_ASSERT(fds[0] >= 0 && ftruncate(fds[0], (off_t)len) == 0, "memfd");
    fds[1] = memfd_create("short", MFD_CLOEXEC); /* wrong size */
    PE_ASSERT(fds[1] >= 0 && ftruncate(fds[1], 64) == 0, "memfd");
    /* a copy of the real header with another owner string: not this job */
    fds[2] = memfd_create("copy", MFD_CLOEXEC);
    PE_ASSERT(fds[2] >= 0 && ftruncate(fds[2], (off_t)len) == 0, "memfd");
    void *src = mmap(NULL, len, PROT_READ, MAP_SHARED, atoi(saved), 0);
    PE_ASSERT(src != MAP_FAILED, "mmap");
    struct sym_job_ctrl *copy = malloc(len);
    memcpy(copy, src, len);
    munmap(src, len);
    snprintf(copy->owner, sizeof(copy->owner), "garbage");
    PE_ASSERT(pwrite(fds[2], copy, len, 0) == (ssize_t)len, "pwrite");
    free(copy);
    char num[32];
    const int bad_fds[] = {fds[0], fds[1], fds[2], 999, 1};
    for (size_t i = 0; i < sizeof(bad_fds) / sizeof(bad_fds[0]); i++) {
        snprintf(num, sizeof(num), "%d", bad_fds[i]);
        setenv(SYM_ENV_SYMRUN_FD, num, 1);
        sym_status_t st = sym_init();
        PE_ASSERT(st == SYM_ERR_BOOTSTRAP, "sym_init with %s=%s (case %zu) returned %s: %s",
                  SYM_ENV_SYMRUN_FD, num, i, sym_status_name(st), sym_last_error());
        PE_ASSERT(!sym_initialized(), "initialized through a foreign segment");
    }
    for (int i = 0; i < 3; i++)
        close(fds[i]);
    setenv(SYM_ENV_SYMRUN_FD, saved, 1);
    PE_OK(sym_init());
    ring_check(me, npes);
    PE_OK(sym_finalize());
}

Test(security, foreign_control_segment_refused)
{
    harness_require_symrun(
        "the PEs predict heap names from the key in symrun's job control segment");
    struct pe_job job = {.npes = 2, .body = foreign_ctrl_body, .raw = true, .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ---- the stale sweep ------------------------------------------------------ */

/* Give this test's process (Criterion runs each test in its own) a /dev/shm
 * of its own: a private mount namespace with a fresh tmpfs there.  Its
 * sweeps then see only the objects it made: they cannot race with symrun's
 * sweep in other tests, nor remove what other tests left behind, which
 * CI's final leftover count must still see.  Needs root; false (the
 * shared /dev/shm) otherwise. */
static bool private_dev_shm(void)
{
    if (geteuid() != 0 || unshare(CLONE_NEWNS) != 0) {
        cr_log_warn("no private /dev/shm (needs root): sweeping the shared one");
        return false;
    }
    cr_assert(mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == 0,
              "making the mounts private: %s", strerror(errno));
    cr_assert(mount("symheap-test", "/dev/shm", "tmpfs", 0, "mode=1777,size=64k") == 0,
              "mounting a tmpfs on /dev/shm: %s", strerror(errno));
    return true;
}

/* Run `cmd`, return its output in out (asserting it exits 0). */
static void run_tool(const char *cmd, char *out, size_t len)
{
    FILE *p = popen(cmd, "r");
    cr_assert(p, "popen %s", cmd);
    size_t got = fread(out, 1, len - 1, p);
    out[got] = '\0';
    cr_assert(pclose(p) == 0, "%s failed:\n%s", cmd, out);
}

struct sweep_obj {
    char name[200];
    bool stale;    /* the sweep must remove it */
    bool as_other; /* created by OTHER_UID */
};

static int create_plain(void *arg)
{
    const char *name = arg;
    int fd = shm_open(name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return 1;
    close(fd);
    return 0;
}

/* A process that has exited: its pid and start time. */
static void dead_owner(char tag[SYM_OWNER_LEN])
{
    int p[2];
    cr_assert(pipe(p) == 0);
    pid_t pid = fork();
    if (pid == 0) {
        char c;
        close(p[1]);
        (void)read(p[0], &c, 1);
        _exit(0);
    }
    close(p[0]);
    sym_owner_tag(pid, tag);
    close(p[1]);
    int st;
    waitpid(pid, &st, 0);
    cr_assert(kill(pid, 0) != 0 && errno == ESRCH);
}

static int make_sweep_set(struct sweep_obj *o)
{
    char key[SYM_JOB_KEY_LEN + 1], dead[SYM_OWNER_LEN], live[SYM_OWNER_LEN];
    cr_assert(sym_boot_random_key(key) == 0);
    dead_owner(dead);
    sym_owner_tag(getpid(), live);
    pid_t mypid;
    unsigned long long mystart;
    cr_assert(sym_owner_parse(live, strlen(live), &mypid, &mystart) == 0 && mystart != 0);
    unsigned uid = (unsigned)getuid();
    int n = 0;
#define OBJ(stale_, other_, ...)                                                                   \
    do {                                                                                           \
        snprintf(o[n].name, sizeof(o[n].name), __VA_ARGS__);                                       \
        o[n].stale = (stale_);                                                                     \
        o[n].as_other = (other_);                                                                  \
        n++;                                                                                       \
    } while (0)
    OBJ(true, false, SYM_SHM_NAME_FMT, uid, key, dead, "0");
    OBJ(true, false, SYM_SHM_NAME_FMT, uid, key, dead, "ctrl");
    char recycled[SYM_OWNER_LEN];
    snprintf(recycled, sizeof(recycled), "%ld.%llu", (long)mypid, mystart + 1);
    OBJ(true, false, SYM_SHM_NAME_FMT, uid, key, recycled, "1");
    char dead_nostart[SYM_OWNER_LEN];
    snprintf(dead_nostart, sizeof(dead_nostart), "%.*s.0", (int)strcspn(dead, "."), dead);
    OBJ(true, false, SYM_SHM_NAME_FMT, uid, key, dead_nostart, "2");
    OBJ(false, false, SYM_SHM_NAME_FMT, uid, key, live, "0");
    char live_nostart[SYM_OWNER_LEN];
    snprintf(live_nostart, sizeof(live_nostart), "%ld.0", (long)mypid);
    OBJ(false, false, SYM_SHM_NAME_FMT, uid, key, live_nostart, "3");
    OBJ(false, false, "/" SYM_SHM_PREFIX "%u-%s-0", uid, key);        /* unreadable (old) name */
    OBJ(false, false, "/" SYM_SHM_PREFIX "%u-%s-%s", uid, key, dead); /* no <what> */
    if (getuid() == 0) {
        OBJ(false, true, SYM_SHM_NAME_FMT, (unsigned)OTHER_UID, key, dead, "0");
        /* names this user, but belongs to the other one */
        OBJ(false, true, SYM_SHM_NAME_FMT, uid, key, dead, "5");
    }
#undef OBJ
    for (int i = 0; i < n; i++) {
        int rc = o[i].as_other ? as_other_user(create_plain, o[i].name) : create_plain(o[i].name);
        cr_assert(rc == 0, "could not create %s", o[i].name);
    }
    return n;
}

static void check_swept(const struct sweep_obj *o, int n, const char *how)
{
    for (int i = 0; i < n; i++) {
        if (o[i].stale)
            cr_expect(!shm_exists(o[i].name), "%s left the stale %s", how, o[i].name);
        else
            cr_expect(shm_exists(o[i].name), "%s removed %s, which is not stale", how, o[i].name);
    }
}

static void remove_all(const struct sweep_obj *o, int n)
{
    for (int i = 0; i < n; i++)
        shm_unlink(o[i].name);
}

Test(security, stale_sweep)
{
    struct sweep_obj o[16];
    char tool[PATH_MAX + 64], cmd[PATH_MAX + 128];
    tool_path("symheap-info", tool, sizeof(tool));
    private_dev_shm();

    /* the tool: --dry-run names exactly the stale ones, --cleanup removes them */
    int n = make_sweep_set(o);
    snprintf(cmd, sizeof(cmd), "%s --cleanup --dry-run", tool);
    char out[16384];
    run_tool(cmd, out, sizeof(out));
    for (int i = 0; i < n; i++) {
        char line[sizeof(o[i].name) + 16];
        snprintf(line, sizeof(line), "/dev/shm%.199s ", o[i].name);
        bool listed = strstr(out, line) != NULL;
        /* a symrun starting meanwhile (another test) may sweep a stale one
         * first; nothing may ever take a live one */
        if (o[i].stale)
            cr_expect(listed || !shm_exists(o[i].name), "--dry-run does not list %s", o[i].name);
        else
            cr_expect(!listed && shm_exists(o[i].name), "--dry-run %s %s",
                      listed ? "lists" : "removed", o[i].name);
    }
    int kept = 0;
    for (int i = 0; i < n; i++)
        kept += o[i].stale && shm_exists(o[i].name);
    cr_log_info("--dry-run left %d stale objects in place", kept);
    snprintf(cmd, sizeof(cmd), "%s --cleanup >/dev/null", tool);
    cr_assert(system(cmd) == 0, "%s failed", cmd);
    check_swept(o, n, "symheap-info --cleanup");
    remove_all(o, n);

    /* the library call symrun makes at start */
    n = make_sweep_set(o);
    int stale = 0;
    for (int i = 0; i < n; i++)
        stale += o[i].stale;
    int removed = sym_launch_sweep_stale(false, NULL);
    cr_expect(removed >= 0, "the sweep failed");
    check_swept(o, n, "sym_launch_sweep_stale");
    remove_all(o, n);
    cr_log_info("%d objects per round, %d stale, the sweep removed %d", n, stale, removed);
    if (getuid() != 0)
        cr_skip_test("needs root for the other-user objects (the rest passed)");
}

/* ---- libfabric shm-provider regions of dead processes --------------------- */

/* An exited child's pid. */
static pid_t dead_pid(void)
{
    pid_t pid = fork();
    if (pid == 0)
        _exit(0);
    cr_assert(pid > 0, "fork: %s", strerror(errno));
    int st;
    cr_assert(waitpid(pid, &st, 0) == pid);
    cr_assert(kill(pid, 0) != 0 && errno == ESRCH);
    return pid;
}

struct region {
    char name[64];
    bool stale;    /* --cleanup must remove it */
    bool as_other; /* created by OTHER_UID */
};

/* symheap-info --cleanup removes this user's regions "<pid>:<n>:<n>" whose
 * pid is gone (a PE killed outside symrun leaves them) and nothing else: not
 * a live pid's, not another user's, not other names; --dry-run lists the
 * stale ones and removes nothing.  Fake regions, in a /dev/shm of this
 * test's own when it is root (private_dev_shm). */
Test(security, provider_region_sweep)
{
    char tool[PATH_MAX + 64], cmd[PATH_MAX + 128], out[16384];
    tool_path("symheap-info", tool, sizeof(tool));
    bool private = private_dev_shm();
    long dead = (long)dead_pid(), other_dead = (long)dead_pid(), me = (long)getpid();
    unsigned uid = (unsigned)getuid();
    struct region r[8];
    int n = 0;
#define REGION(stale_, other_, ...)                                                                \
    do {                                                                                           \
        snprintf(r[n].name, sizeof(r[n].name), __VA_ARGS__);                                       \
        r[n].stale = (stale_);                                                                     \
        r[n].as_other = (other_);                                                                  \
        n++;                                                                                       \
    } while (0)
    REGION(true, false, "/%ld:%u:7001", dead, uid);
    REGION(false, false, "/%ld:%u:7001", me, uid);    /* live pid */
    REGION(false, false, "/%ld:%u", dead, uid);       /* not <pid>:<n>:<n> */
    REGION(false, false, "/%ld:%u:7001x", dead, uid); /* not <pid>:<n>:<n> */
    if (getuid() == 0)
        REGION(false, true, "/%ld:%u:7001", other_dead, (unsigned)OTHER_UID);
#undef REGION
    for (int i = 0; i < n; i++) {
        int rc = r[i].as_other ? as_other_user(create_plain, r[i].name) : create_plain(r[i].name);
        cr_assert(rc == 0, "could not create %s", r[i].name);
    }

    snprintf(cmd, sizeof(cmd), "%s --cleanup --dry-run", tool);
    run_tool(cmd, out, sizeof(out));
    for (int i = 0; i < n; i++) {
        char line[sizeof(r[i].name) + 32];
        snprintf(line, sizeof(line), "stale: /dev/shm%.63s ", r[i].name);
        bool listed = strstr(out, line) != NULL;
        /* on the shared /dev/shm another user of the tool may be quicker */
        if (r[i].stale)
            cr_expect(listed && (shm_exists(r[i].name) || !private), "--dry-run %s %s:\n%s",
                      listed ? "removed" : "does not list", r[i].name, out);
        else
            cr_expect(!listed && shm_exists(r[i].name), "--dry-run %s %s:\n%s",
                      listed ? "lists" : "removed", r[i].name, out);
    }

    snprintf(cmd, sizeof(cmd), "%s --cleanup", tool);
    run_tool(cmd, out, sizeof(out));
    for (int i = 0; i < n; i++) {
        char line[sizeof(r[i].name) + 32];
        snprintf(line, sizeof(line), "removed /dev/shm%.63s ", r[i].name);
        if (r[i].stale)
            cr_expect(!shm_exists(r[i].name) && (strstr(out, line) || !private),
                      "--cleanup left or did not name %s:\n%s", r[i].name, out);
        else
            cr_expect(shm_exists(r[i].name) && !strstr(out, line), "--cleanup removed %s:\n%s",
                      r[i].name, out);
    }
    for (int i = 0; i < n; i++) /* root's unlink reaches the other user's too */
        shm_unlink(r[i].name);
    if (getuid() != 0)
        cr_skip_test("needs root for the other user's region (the rest passed)");
}
