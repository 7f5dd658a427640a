/*
 * launch_run.c - sym_launch_run(): check the options, set up the job and
 * drive it through its steps (launch_job.h), then report its outcome.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "launch_job.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

double launch_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void launch_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("symrun: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* Options and result */

static int validate_opts(const struct sym_launch_opts *opts)
{
    if (opts == NULL) {
        launch_error("no launch options given");
        return -1;
    }
    if (opts->npes < 1 || opts->npes > SYM_JOB_MAX_PES) {
        launch_error("the number of PEs must be between 1 and %d, got %d", SYM_JOB_MAX_PES,
                     opts->npes);
        return -1;
    }
    if (opts->argv != NULL ? opts->argv[0] == NULL : opts->body == NULL) {
        launch_error("nothing to run: no program and no PE function given");
        return -1;
    }
    /* Written so that NaN fails too. */
    if (!(opts->job_timeout_s >= 0) || !(opts->grace_s >= 0)) {
        launch_error("the job timeout and grace period must be >= 0 seconds");
        return -1;
    }
    for (const char *const *e = opts->env; e != NULL && *e != NULL; e++) {
        const char *eq = strchr(*e, '=');
        if (eq == NULL || eq == *e) {
            launch_error("environment entry '%s' is not NAME=value", *e);
            return -1;
        }
    }
    /* Its syntax is the library's to check: a PE reports a bad one. */
    if (opts->tcp_root_addr != NULL && opts->tcp_root_addr[0] == '\0') {
        launch_error("the TCP rendezvous address is empty");
        return -1;
    }
    return 0;
}

static void result_reset(struct sym_launch_result *result, int npes)
{
    memset(result, 0, sizeof *result);
    result->npes = npes;
    result->first_failed_pe = -1;
}

/* Allocated before any PE starts, so that running out of memory can never
 * lose the outcome of a job that already ran. */
static int result_alloc(struct sym_launch_result *result, int npes)
{
    result->wait_status = calloc((size_t)npes, sizeof *result->wait_status);
    result->final_state = calloc((size_t)npes, sizeof *result->final_state);
    if (result->wait_status == NULL || result->final_state == NULL) {
        sym_launch_result_free(result);
        return -1;
    }
    return 0;
}

void sym_launch_result_free(struct sym_launch_result *result)
{
    if (result == NULL)
        return;
    free(result->wait_status);
    free(result->final_state);
    result->wait_status = NULL;
    result->final_state = NULL;
}

/* Job state */

static void job_free(struct job *job)
{
    if (job == NULL)
        return;
    if (job->pe != NULL) {
        for (int i = 0; i < job->npes; i++) {
            launch_stream_release(&job->pe[i].io[0]);
            launch_stream_release(&job->pe[i].io[1]);
        }
    }
    if (job->exec_error_claimed != NULL)
        munmap(job->exec_error_claimed, sizeof *job->exec_error_claimed);
    free(job->pe);
    free(job->pfd);
    free(job->pfd_stream);
    free(job->rdbuf);
    free(job->sink[0]);
    free(job->sink[1]);
    explicit_bzero(job->secret, sizeof job->secret);
    free(job);
}

static struct job *job_new(const struct sym_launch_opts *opts)
{
    struct job *job = calloc(1, sizeof *job);
    if (job == NULL)
        return NULL;
    job->opts = opts;
    job->npes = opts->npes;
    job->tag = opts->tag_output;
    job->grace_s = opts->grace_s > 0 ? opts->grace_s : DEFAULT_GRACE_S;
    job->self = getpid();
    job->ctrl_fd = -1;
    job->first_failed_pe = -1;

    job->pe = calloc((size_t)job->npes, sizeof *job->pe);
    if (job->pe == NULL)
        goto fail;
    for (int i = 0; i < job->npes; i++) {
        for (int k = 0; k < 2; k++) {
            job->pe[i].io[k].fd = -1;
            job->pe[i].io[k].pe = i;
            job->pe[i].io[k].dest = k;
        }
    }
    if (opts->argv != NULL) {
        void *word = mmap(NULL, sizeof *job->exec_error_claimed, PROT_READ | PROT_WRITE,
                          MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (word == MAP_FAILED)
            goto fail;
        job->exec_error_claimed = word;
    }
    if (job->tag) {
        job->pfd = calloc((size_t)job->npes * 2, sizeof *job->pfd);
        job->pfd_stream = calloc((size_t)job->npes * 2, sizeof *job->pfd_stream);
        job->rdbuf = malloc(READ_CHUNK);
        for (int k = 0; k < 2; k++) {
            job->sink[k] = calloc(1, sizeof *job->sink[k]);
            if (job->sink[k] != NULL)
                job->sink[k]->fd = k == OUT_STDOUT ? STDOUT_FILENO : STDERR_FILENO;
        }
        if (job->pfd == NULL || job->pfd_stream == NULL || job->rdbuf == NULL ||
            job->sink[0] == NULL || job->sink[1] == NULL)
            goto fail;
    }
    return job;
fail:
    job_free(job);
    return NULL;
}

int sym_launch_run(const struct sym_launch_opts *opts, struct sym_launch_result *result)
{
    if (result == NULL) {
        launch_error("no result structure given");
        return -1;
    }
    result_reset(result, opts != NULL ? opts->npes : 0);
    if (validate_opts(opts) != 0)
        return -1;

    struct job *job = job_new(opts);
    if (job == NULL || result_alloc(result, opts->npes) != 0) {
        launch_error("out of memory starting a job of %d PEs", opts->npes);
        job_free(job);
        return -1;
    }
    if (launch_ctrl_create(job) != 0) {
        sym_launch_result_free(result);
        job_free(job);
        return -1;
    }

    launch_signals_install(job);
    launch_nofile_raise(job);
    int rc = launch_spawn_all(job);
    if (rc == 0)
        launch_supervise(job);
    else
        launch_kill_and_reap_all(job);
    launch_process_state_restore(job);

    int left = launch_job_objects(job, false);
    if (!opts->keep_objects && left != 0)
        launch_job_objects(job, true);
    /* libfabric's objects, not the library's: keep_objects (a test looking
     * at what symheap itself unlinked) does not keep them. */
    launch_provider_regions_cleanup(job);
    if (rc == 0) {
        launch_fill_result(job, result);
        result->objects_left = left;
    } else {
        sym_launch_result_free(result);
    }
    launch_ctrl_destroy(job);
    job_free(job);
    return rc;
}
