/*
 * test_security.c - the shared-memory objects of a job against other users
 * and other jobs, and the sweep of dead jobs' objects.
 *
 * - Heap objects are created O_EXCL with mode 0600 under names carrying a
 *   128-bit random job key; another user can neither open, remove nor
 *   replace them, and a name squatted in advance makes sym_init fail rather
 *   than use the squatter's object.
 * - A PE maps a peer's object only if it is owned by its own uid, has mode
 *   0600, the job's heap size and a heap header of this layout version
 *   naming that PE and this job: one job cannot attach to another's heap.
 * - A process pointed at something that is not its job's control segment
 *   refuses to join.
 * - The stale sweep (symheap-info --cleanup, symrun at start) removes this
 *   user's objects whose owner is dead, and nothing else: not a live job's,
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

/* Inside a PE: the job key and owner, straight from the control segment. */
static void job_identity(char key[SYM_JOB_KEY_LEN + 1], char owner[SYM_OWNER_LEN])
{
    const char *fds = getenv(SYM_ENV_SYMRUN_FD);
    PE_ASSERT(fds, "not started by the launcher");
    int fd = atoi(fds);
    const struct sym_job_ctrl *c = mmap(NULL, sizeof(*c), PROT_READ, MAP_SHARED, fd, 0);
    PE_ASSERT(c != MAP_FAILED, "mmap of the control segment: %s", strerror(errno));
    memcpy(key, c->key, SYM_JOB_KEY_LEN + 1);
    memcpy(owner, c->owner, SYM_OWNER_LEN);
    munmap((void *)c, sizeof(*c));
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

/* ---- another user against a live job's heap ------------------------------ */

static int try_open_as_other(void *arg)
{
    const char *name = arg;
    int bad = 0;
    errno = 0;
    if (shm_open(name, O_RDONLY, 0) >= 0 || errno != EACCES)
        bad |= 1;
    errno = 0;
    if (shm_open(name, O_RDWR, 0) >= 0 || errno != EACCES)
        bad |= 2;
    errno = 0;
    if (shm_open(name, O_RDWR | O_CREAT | O_TRUNC, 0666) >= 0)
        bad |= 4;
    errno = 0;
    if (shm_unlink(name) == 0)
        bad |= 8;
    return bad;
}

static void private_objects_body(int me, int npes, void *arg)
{
    (void)arg;
    if (me == 1) {
        /* PE 0 sits in sym_init, waiting for us: its heap object exists */
        char key[SYM_JOB_KEY_LEN + 1], owner[SYM_OWNER_LEN], name[160];
        job_identity(key, owner);
        PE_ASSERT(strlen(key) == SYM_JOB_KEY_LEN &&
                      strspn(key, "0123456789abcdef") == SYM_JOB_KEY_LEN,
                  "job key '%s' is not %d hex digits", key, SYM_JOB_KEY_LEN);
        shm_object_name(name, sizeof(name), key, owner, 0);
        double t0 = harness_now();
        while (!shm_exists(name)) {
            PE_ASSERT(harness_now() - t0 < 20, "PE 0's heap %s never appeared", name);
            struct timespec ts = {0, 1000000};
            nanosleep(&ts, NULL);
        }
        char path[PATH_MAX];
        snprintf(path, sizeof(path), "/dev/shm%s", name);
        struct stat st;
        PE_ASSERT(stat(path, &st) == 0, "stat %s: %s", path, strerror(errno));
        PE_ASSERT((st.st_mode & 07777) == 0600, "%s has mode %04o", name,
                  (unsigned)(st.st_mode & 07777));
        PE_ASSERT(st.st_uid == getuid(), "%s is owned by uid %u", name, (unsigned)st.st_uid);
        char ctrl[160];
        snprintf(ctrl, sizeof(ctrl), SYM_SHM_NAME_FMT, (unsigned)getuid(), key, owner, "ctrl");
        PE_ASSERT(!shm_exists(ctrl), "the control segment %s is still named", ctrl);
        if (getuid() == 0) {
            int bad = as_other_user(try_open_as_other, name);
            PE_ASSERT(bad == 0,
                      "uid %d could do something to %s (mask %d: 1 read, 2 write, "
                      "4 create/truncate, 8 unlink)",
                      OTHER_UID, name, bad);
            PE_ASSERT(shm_exists(name), "%s is gone after the other user's attempts", name);
        }
        /* a live job's objects survive the sweep, in-process and by the tool */
        PE_ASSERT(sym_launch_sweep_stale(false, NULL) >= 0, "sweep failed");
        PE_ASSERT(shm_exists(name), "the sweep removed the live job's %s", name);
        /* The tool, in --dry-run: here on the shared /dev/shm a real
         * --cleanup would also take libfabric regions that other tests left
         * (which CI's final count must see); it removes through the very
         * sym_launch_sweep_stale(false) called above. */
        char tool[PATH_MAX + 64], cmd[PATH_MAX + 128], out[16384];
        tool_path("symheap-info", tool, sizeof(tool));
        snprintf(cmd, sizeof(cmd), "%s --cleanup --dry-run", tool);
        FILE *p = popen(cmd, "r");
        PE_ASSERT(p, "popen %s", cmd);
        size_t got = fread(out, 1, sizeof(out) - 1, p);
        out[got] = '\0';
        PE_ASSERT(pclose(p) == 0, "%s failed:\n%s", cmd, out);
        PE_ASSERT(!strstr(out, name + 1), "%s lists the live job's %s:\n%s", cmd, name, out);
        PE_ASSERT(shm_exists(name), "%s removed the live job's %s", cmd, name);
    }
    PE_OK(sym_init());
    ring_check(me, npes);
    PE_OK(sym_finalize());
}

Test(security, heap_objects_private_and_survive_sweep)
{
    harness_require_symrun(
        "the PEs predict heap names from the key in symrun's job control segment");
    if (getuid() != 0)
        cr_log_warn("not root: the other-user checks are skipped");
    struct pe_job job = {.npes = 2, .body = private_objects_body, .raw = true, .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
    if (getuid() != 0)
        cr_skip_test("needs root to act as another user (the rest passed)");
}

/* ---- a squatted name ----------------------------------------------------- */

struct squat {
    char name[160];
    size_t size;
};

static int squat_create(void *arg)
{
    const struct squat *s = arg;
    int fd = shm_open(s->name, O_CREAT | O_EXCL | O_RDWR, 0666);
    if (fd < 0)
        return 1;
    fchmod(fd, 0666);
    if (ftruncate(fd, (off_t)s->size) != 0)
        return 2;
    uint8_t junk[4096];
    memset(junk, 0xA5, sizeof(junk));
    if (write(fd, junk, sizeof(junk)) != (ssize_t)sizeof(junk))
        return 3;
    close(fd);
    return 0;
}

static int squat_remove(void *arg)
{
    const struct squat *s = arg;
    return shm_unlink(s->name) == 0 ? 0 : 1;
}

static void squatted_body(int me, int npes, void *arg)
{
    (void)arg;
    if (me == 1) {
        struct squat s;
        char key[SYM_JOB_KEY_LEN + 1], owner[SYM_OWNER_LEN];
        job_identity(key, owner);
        shm_object_name(s.name, sizeof(s.name), key, owner, 1);
        s.size = 16u << 20;
        bool other = getuid() == 0;
        PE_ASSERT((other ? as_other_user(squat_create, &s) : squat_create(&s)) == 0,
                  "could not squat %s", s.name);
        sym_status_t st = sym_init();
        PE_ASSERT(st == SYM_ERR_SYSTEM, "sym_init with its name squatted returned %s: %s",
                  sym_status_name(st), sym_last_error());
        PE_ASSERT(strstr(sym_last_error(), "File exists") && strstr(sym_last_error(), s.name),
                  "message '%s' does not say the name exists", sym_last_error());
        /* the squatter's object was not used or changed */
        int fd = shm_open(s.name, O_RDONLY, 0);
        PE_ASSERT(fd >= 0, "the squatted object is gone: %s", strerror(errno));
        uint8_t b[4096];
        PE_ASSERT(read(fd, b, sizeof(b)) == (ssize_t)sizeof(b), "read");
        close(fd);
        for (size_t i = 0; i < sizeof(b); i++)
            PE_ASSERT(b[i] == 0xA5, "byte %zu of the squatted object was changed", i);
        PE_ASSERT((other ? as_other_user(squat_remove, &s) : squat_remove(&s)) == 0,
                  "could not remove the squat");
        /* with the name free, a retry joins the job PE 0 is waiting in */
    }
    PE_OK(sym_init());
    ring_check(me, npes);
    PE_OK(sym_finalize());
}

Test(security, squatted_heap_name_refused)
{
    harness_require_symrun(
        "the PEs predict heap names from the key in symrun's job control segment");
    struct pe_job job = {.npes = 2, .body = squatted_body, .raw = true, .job_timeout_s = 60};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* ---- mapping a peer's heap: only the real thing ----------------------------- */

static sym_status_t fake_barrier(struct sym_boot *b, const char *step)
{
    (void)b;
    (void)step;
    return SYM_OK;
}

static const struct sym_boot_ops fake_ops = {.name = "fake", .barrier = fake_barrier};

enum peer_variant {
    PV_GOOD,      /* control: accepted */
    PV_OTHER_UID, /* created by another user */
    PV_MODE,      /* mode 0644 */
    PV_SIZE,      /* a different size */
    PV_NO_HEADER, /* zero-filled */
    PV_VERSION,   /* another layout version */
    PV_WRONG_PE,  /* header names PE 0 */
    PV_OTHER_JOB, /* header names another job key */
    PV_ABSENT,    /* only another job's object exists */
    PV_COUNT
};

static const char *const pv_names[PV_COUNT] = {
    "good",           "other uid", "mode 0644", "size",   "no header",
    "layout version", "wrong PE",  "other job", "absent",
};

static const char *const pv_needles[PV_COUNT] = {
    "",
    "wrong owner, mode or size",
    "wrong owner, mode or size",
    "wrong owner, mode or size",
    "no symheap heap header",
    "another heap layout version",
    "another PE",
    "another job",
    "cannot open",
};

struct peer_obj {
    char name[160];
    size_t len;
    int variant;
    char key[SYM_JOB_KEY_LEN + 1];
};

static int make_peer_object(void *arg)
{
    const struct peer_obj *o = arg;
    int fd = shm_open(o->name, O_CREAT | O_EXCL | O_RDWR, 0600);
    if (fd < 0)
        return 1;
    if (o->variant == PV_MODE || o->variant == PV_OTHER_UID)
        fchmod(fd, o->variant == PV_MODE ? 0644 : 0666);
    size_t len = o->variant == PV_SIZE ? o->len + 4096 : o->len;
    if (ftruncate(fd, (off_t)len) != 0)
        return 2;
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
            return 3;
    }
    close(fd);
    return 0;
}

Test(security, peer_heap_verified_before_use)
{
    const size_t len = 1u << 20;
    int tried = 0;
    for (int v = 0; v < PV_COUNT; v++) {
        if (v == PV_OTHER_UID && getuid() != 0)
            continue;
        struct sym_boot boot = {.ops = &fake_ops, .rank = 0, .size = 2};
        cr_assert(sym_boot_random_key(boot.key) == 0);
        sym_owner_tag(getpid(), boot.owner);
        struct sym_transport *tp = NULL;
        uint8_t *base = NULL;
        cr_assert(shm_transport_create(boot.key, boot.owner, 0, 2, len, 0, false, &tp, &base) ==
                      SYM_OK,
                  "shm_transport_create: %s", sym_last_error());
        struct peer_obj o = {.len = len, .variant = v};
        memcpy(o.key, boot.key, sizeof(o.key));
        if (v == PV_ABSENT) {
            /* the same PE of another job (another key): not reachable */
            char other[SYM_JOB_KEY_LEN + 1];
            cr_assert(sym_boot_random_key(other) == 0);
            shm_object_name(o.name, sizeof(o.name), other, boot.owner, 1);
        } else {
            shm_object_name(o.name, sizeof(o.name), boot.key, boot.owner, 1);
        }
        int rc = v == PV_OTHER_UID ? as_other_user(make_peer_object, &o) : make_peer_object(&o);
        cr_assert(rc == 0, "%s: could not create the peer object (%d)", pv_names[v], rc);
        uint8_t *peer_base[2] = {NULL, NULL};
        sym_status_t st = shm_transport_connect(tp, &boot, NULL, NULL, peer_base);
        char msg[512];
        snprintf(msg, sizeof(msg), "%s", sym_last_error());
        shm_unlink(o.name);
        tp->ops->fini(tp);
        tried++;
        if (v == PV_GOOD) {
            cr_expect(st == SYM_OK && peer_base[1] != NULL, "a good peer heap was refused: %s",
                      msg);
            continue;
        }
        cr_expect(st != SYM_OK && peer_base[1] == NULL, "%s: mapped (%s)", pv_names[v],
                  sym_status_name(st));
        cr_expect(strstr(msg, pv_needles[v]) != NULL, "%s: message '%s' does not say '%s'",
                  pv_names[v], msg, pv_needles[v]);
    }
    cr_log_info("%d peer objects tried", tried);
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
