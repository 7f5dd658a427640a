/*
 * owner.h - who owns a job's shared-memory objects, so that a later sweep
 * can tell the objects of a dead job from those of a live one.
 *
 * Every object name carries its owner, "<pid>.<start>": the process whose
 * life the job's life is tied to (the launcher under symrun, which takes
 * its PEs down with it through PR_SET_PDEATHSIG; the process itself when
 * it runs alone) and that process's start time in clock ticks after boot
 * (/proc/<pid>/stat, field 22), so a recycled pid is not mistaken for it.
 * The owner is dead when no process has the pid, or the one that has it
 * started at another time.
 */
#ifndef SYM_LAUNCH_OWNER_H
#define SYM_LAUNCH_OWNER_H

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#define SYM_OWNER_LEN 48

/* Start time of process `pid` (clock ticks after boot), 0 on success. */
static inline int sym_proc_start_time(pid_t pid, unsigned long long *start_p)
{
    char path[64], buf[1024];
    snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* The command name (field 2) may hold spaces and parentheses: fields
     * are counted from the last ')'. */
    char *p = strrchr(buf, ')');
    if (!p)
        return -1;
    p++;
    for (int field = 3; field < 22; field++) {
        p = strchr(p + 1, ' ');
        if (!p)
            return -1;
    }
    char *end;
    errno = 0;
    unsigned long long v = strtoull(p + 1, &end, 10);
    if (errno || end == p + 1)
        return -1;
    *start_p = v;
    return 0;
}

/* "<pid>.<start>" of process `pid` (start 0 if /proc cannot tell). */
static inline void sym_owner_tag(pid_t pid, char tag[SYM_OWNER_LEN])
{
    unsigned long long start = 0;
    if (sym_proc_start_time(pid, &start) != 0)
        start = 0;
    snprintf(tag, SYM_OWNER_LEN, "%ld.%llu", (long)pid, start);
}

/* Parse "<pid>.<start>" from the first `len` characters of `text`. */
static inline int sym_owner_parse(const char *text, size_t len, pid_t *pid_p,
                                  unsigned long long *start_p)
{
    char tmp[SYM_OWNER_LEN];
    if (len == 0 || len >= sizeof(tmp))
        return -1;
    memcpy(tmp, text, len);
    tmp[len] = '\0';
    if (strspn(tmp, "0123456789.") != len)
        return -1;
    char *dot = strchr(tmp, '.'), *end;
    if (!dot || dot == tmp || dot[1] == '\0' || strchr(dot + 1, '.'))
        return -1;
    errno = 0;
    long pid = strtol(tmp, &end, 10);
    if (errno || end != dot || pid <= 0 || pid > 0x3fffffff)
        return -1;
    unsigned long long start = strtoull(dot + 1, &end, 10);
    if (errno || *end)
        return -1;
    *pid_p = (pid_t)pid;
    *start_p = start;
    return 0;
}

/* Whether the owner named by (pid, start) is certainly gone.  Anything
 * uncertain (e.g. /proc hiding other users' processes) counts as alive. */
static inline bool sym_owner_dead(pid_t pid, unsigned long long start)
{
    if (kill(pid, 0) != 0 && errno == ESRCH)
        return true;
    unsigned long long now;
    if (start == 0) /* recorded without /proc: the pid is all we know */
        return false;
    if (sym_proc_start_time(pid, &now) != 0)
        return kill(pid, 0) != 0 && errno == ESRCH; /* it may have exited meanwhile */
    return now != start;
}

#endif /* SYM_LAUNCH_OWNER_H */
