/*
 * launch_cleanup.c - once every PE is reaped: find (and remove) what the
 * job's PEs left in /dev/shm, symheap's objects and libfabric's regions.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "launch_job.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* libfabric's shm provider names a process's region "<pid>:<n>:<n>" in
 * /dev/shm and unlinks it when the endpoint closes, so a PE killed over
 * SYMHEAP_TRANSPORT=ofi with that provider leaves 16 MiB behind that no
 * symheap name covers.  Once every PE is reaped, such objects of this
 * user named after one of the job's PE pids are theirs: removed. */
static bool is_region_of(const char *name, const struct job *job)
{
    pid_t pid;
    if (sym_launch_parse_region_name(name, &pid) != 0)
        return false;
    for (int i = 0; i < job->npes; i++)
        if (job->pe[i].pid > 0 && job->pe[i].pid == pid)
            return true;
    return false;
}

static bool region_of_job(const char *name, void *job)
{
    return is_region_of(name, job);
}

void launch_provider_regions_cleanup(const struct job *job)
{
    sym_launch_shm_scan(region_of_job, (void *)job, true, NULL);
}

static bool object_of_key(const char *name, void *prefix)
{
    return strncmp(name, prefix, strlen(prefix)) == 0;
}

/* Visits the /dev/shm objects of job `key` this user owns; unlinks them if
 * `remove`.  Returns how many it counted (removed), -1 on error. */
static int scan_job_objects(const char *key, bool remove)
{
    if (key == NULL || key[0] == '\0' || strchr(key, '/') != NULL)
        return -1;
    char prefix[128];
    int plen = snprintf(prefix, sizeof prefix, SYM_SHM_PREFIX "%u-%s-", (unsigned)getuid(), key);
    if (plen < 0 || (size_t)plen >= sizeof prefix)
        return -1;
    return sym_launch_shm_scan(object_of_key, prefix, remove, NULL);
}

/* A rendezvous PE owns the objects it creates: their names carry its own
 * "<pid>.<start>" (owner.h), and a job key PE 0 drew.  Those of this user
 * naming one of the job's PEs (pid and start time) are the job's. */
static bool object_of_pe(const char *name, void *arg)
{
    const struct job *job = arg;
    unsigned name_uid;
    pid_t pid;
    unsigned long long start;
    if (sym_launch_parse_object_name(name, &name_uid, &pid, &start) != 0 ||
        name_uid != (unsigned)getuid())
        return false;
    for (int i = 0; i < job->npes; i++)
        if (job->pe[i].pid == pid && job->pe[i].start == start)
            return true;
    return false;
}

static int scan_pe_objects(const struct job *job, bool remove)
{
    return sym_launch_shm_scan(object_of_pe, (void *)job, remove, NULL);
}

/* Every PE is gone.  This version's PEs name nothing in /dev/shm (their
 * segments are memfds), so an object of the job found here comes from a PE
 * linked against an older symheap that died before unlinking it: counted
 * (result.objects_left, which the tests hold at 0) and removed. */
int launch_job_objects(const struct job *job, bool remove)
{
    if (job->opts->tcp_root_addr != NULL)
        return scan_pe_objects(job, remove);
    return scan_job_objects(job->key, remove);
}
