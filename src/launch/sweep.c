/*
 * sweep.c - remove the shared-memory objects of dead jobs.
 *
 * A job's objects are unlinked as soon as they are no longer needed (the
 * control segment at once, heaps once every PE has mapped them) and the
 * launcher removes whatever a dying PE left.  Only a launcher killed itself
 * (SIGKILL, OOM killer) while PEs were starting can leave objects behind:
 * its PEs die with it and nobody is left to unlink them.  Their names say
 * whose they are ("<uid>", and the owner "<pid>.<start>", see owner.h), so a
 * later sweep can remove exactly those of this user whose owner is gone.
 *
 * libfabric's shm provider keeps one region per endpoint in /dev/shm as
 * "<pid>:<n>:<n>" (16 MiB) and unlinks it only when the endpoint closes.
 * symrun removes those of its own dead PEs; PEs started by mpirun or the
 * TCP rendezvous have nobody to do it, so symheap-info --cleanup removes
 * this user's regions named after a pid that no longer exists.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "job.h"
#include "launcher.h"
#include "owner.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

int sym_launch_parse_object_name(const char *name, unsigned *uid_p, pid_t *owner_pid_p,
                                 unsigned long long *owner_start_p)
{
    size_t plen = strlen(SYM_SHM_PREFIX);
    if (strncmp(name, SYM_SHM_PREFIX, plen) != 0)
        return -1;
    const char *p = name + plen;
    size_t n = strspn(p, "0123456789");
    if (n == 0 || n > 10 || p[n] != '-')
        return -1;
    unsigned long uid = strtoul(p, NULL, 10);
    if (uid > UINT_MAX)
        return -1;
    p += n + 1;
    if (strspn(p, "0123456789abcdef") != SYM_JOB_KEY_LEN || p[SYM_JOB_KEY_LEN] != '-')
        return -1;
    p += SYM_JOB_KEY_LEN + 1;
    const char *dash = strchr(p, '-');
    if (!dash || dash[1] == '\0' || strchr(dash + 1, '/'))
        return -1;
    if (sym_owner_parse(p, (size_t)(dash - p), owner_pid_p, owner_start_p) != 0)
        return -1;
    *uid_p = (unsigned)uid;
    return 0;
}

int sym_launch_shm_scan(sym_launch_pick_fn pick, void *arg, bool remove,
                        sym_launch_counted_fn counted)
{
    DIR *dir = opendir("/dev/shm");
    if (dir == NULL)
        return errno == ENOENT ? 0 : -1;
    const uid_t uid = getuid();
    int count = 0;
    struct dirent *de;
    while ((de = readdir(dir)) != NULL) {
        if (!pick(de->d_name, arg))
            continue;
        /* The name can lie (anyone may create objects in /dev/shm): only
         * regular files this user really owns are touched. */
        struct stat st;
        if (fstatat(dirfd(dir), de->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 ||
            !S_ISREG(st.st_mode) || st.st_uid != uid)
            continue;
        if (remove) {
            char name[NAME_MAX + 2];
            snprintf(name, sizeof name, "/%s", de->d_name);
            if (shm_unlink(name) != 0)
                continue;
        }
        if (counted != NULL)
            counted(de->d_name, arg);
        count++;
    }
    closedir(dir);
    return count;
}

struct sweep_log {
    FILE *log;
    const char *verb; /* "removed" or "stale:" */
};

/* this user's symheap objects whose owner is gone */
static bool stale_object(const char *name, void *arg)
{
    (void)arg;
    unsigned name_uid;
    pid_t pid;
    unsigned long long start;
    return sym_launch_parse_object_name(name, &name_uid, &pid, &start) == 0 &&
           name_uid == (unsigned)getuid() && sym_owner_dead(pid, start);
}

static void log_stale_object(const char *name, void *arg)
{
    const struct sweep_log *l = arg;
    unsigned name_uid;
    pid_t pid = 0;
    unsigned long long start;
    if (l->log != NULL && sym_launch_parse_object_name(name, &name_uid, &pid, &start) == 0)
        fprintf(l->log, "%s /dev/shm/%s (owner pid %ld is gone)\n", l->verb, name, (long)pid);
}

int sym_launch_sweep_stale(bool dry_run, FILE *log)
{
    struct sweep_log l = {log, dry_run ? "stale:" : "removed"};
    return sym_launch_shm_scan(stale_object, &l, !dry_run, log_stale_object);
}

int sym_launch_parse_region_name(const char *name, pid_t *pid_p)
{
    /* exactly <pid>:<digits>:<digits>, pid without a leading zero */
    const char *p = name;
    if (*p < '1' || *p > '9')
        return -1;
    size_t n = strspn(p, "0123456789");
    if (n > 10 || p[n] != ':')
        return -1;
    unsigned long long pid = strtoull(p, NULL, 10);
    if (pid > 0x3fffffff)
        return -1;
    for (int field = 0; field < 2; field++) {
        p += n + 1;
        n = strspn(p, "0123456789");
        if (n == 0 || n > 10 || p[n] != (field == 0 ? ':' : '\0'))
            return -1;
    }
    *pid_p = (pid_t)pid;
    return 0;
}

/* a libfabric shm region whose pid certainly does not exist: EPERM
 * (another user's process) and zombies count as alive.  No start time is
 * recorded in these names, so a region whose pid was reused stays. */
static bool stale_region(const char *name, void *arg)
{
    (void)arg;
    pid_t pid;
    return sym_launch_parse_region_name(name, &pid) == 0 && kill(pid, 0) != 0 && errno == ESRCH;
}

static void log_stale_region(const char *name, void *arg)
{
    const struct sweep_log *l = arg;
    pid_t pid = 0;
    if (l->log != NULL && sym_launch_parse_region_name(name, &pid) == 0)
        fprintf(l->log, "%s /dev/shm/%s (libfabric shm region, pid %ld is gone)\n", l->verb, name,
                (long)pid);
}

int sym_launch_sweep_provider_regions(bool dry_run, FILE *log)
{
    struct sweep_log l = {log, dry_run ? "stale:" : "removed"};
    return sym_launch_shm_scan(stale_region, &l, !dry_run, log_stale_region);
}
