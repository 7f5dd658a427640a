/*
 * launch_relay.c - tagged output: relay each PE's stdout and stderr line
 * by line with a "[pe] " prefix, and let a vanished reader reach the PEs.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include "launch_job.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Close a stream's pipe and drop its held partial line. */
void launch_stream_release(struct stream *s)
{
    if (s->fd >= 0)
        close(s->fd);
    free(s->part);
    s->fd = -1;
    s->part = NULL;
    s->len = s->cap = 0;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
        } else if (w < 0 && errno == EINTR) {
            continue;
        } else if (w < 0 && errno == EAGAIN) {
            /* Our stdout was left non-blocking by someone: wait for room. */
            struct pollfd pf = {.fd = fd, .events = POLLOUT};
            poll(&pf, 1, 100);
        } else {
            return w < 0 ? errno : EIO;
        }
    }
    return 0;
}

static void sink_write(struct sink *o, const char *p, size_t n)
{
    if (o->failed)
        return;
    int err = write_all(o->fd, p, n);
    if (err != 0) {
        o->failed = true;
        o->reader_gone = err == EPIPE;
    }
}

static void sink_flush(struct sink *o)
{
    sink_write(o, o->buf, o->len);
    o->len = 0;
}

static void sink_put(struct sink *o, const char *p, size_t n)
{
    if (o->failed || n == 0)
        return;
    if (o->len + n > SINK_CAP) {
        sink_flush(o);
        if (n > SINK_CAP) {
            sink_write(o, p, n);
            return;
        }
    }
    memcpy(o->buf + o->len, p, n);
    o->len += n;
}

/* Emits "[pe] " + the held partial line + data + newline. */
static void emit_line(struct job *job, struct stream *s, const char *data, size_t n)
{
    struct sink *o = job->sink[s->dest];
    char prefix[24];
    int plen = snprintf(prefix, sizeof prefix, "[%d] ", s->pe);

    sink_put(o, prefix, (size_t)plen);
    sink_put(o, s->part, s->len);
    sink_put(o, data, n);
    sink_put(o, "\n", 1);
    s->len = 0;
}

static bool stream_reserve(struct stream *s, size_t need)
{
    if (need <= s->cap)
        return true;
    size_t cap = s->cap ? s->cap : 256;
    while (cap < need)
        cap *= 2;
    char *grown = realloc(s->part, cap);
    if (grown == NULL)
        return false;
    s->part = grown;
    s->cap = cap;
    return true;
}

/* Hold an incomplete line until its newline arrives. */
static void stream_hold(struct job *job, struct stream *s, const char *data, size_t n)
{
    while (s->len + n > TAG_LINE_MAX) {
        size_t take = TAG_LINE_MAX - s->len;
        emit_line(job, s, data, take);
        data += take;
        n -= take;
    }
    if (n == 0)
        return;
    if (!stream_reserve(s, s->len + n)) {
        emit_line(job, s, data, n);
        return;
    }
    memcpy(s->part + s->len, data, n);
    s->len += n;
}

static void stream_consume(struct job *job, struct stream *s, const char *data, size_t n)
{
    while (n > 0) {
        const char *nl = memchr(data, '\n', n);
        if (nl == NULL) {
            stream_hold(job, s, data, n);
            return;
        }
        size_t len = (size_t)(nl - data);
        emit_line(job, s, data, len);
        data += len + 1;
        n -= len + 1;
    }
}

void launch_stream_close(struct job *job, struct stream *s)
{
    if (s->fd < 0)
        return;
    if (s->len > 0) {
        emit_line(job, s, "", 0);
        sink_flush(job->sink[s->dest]);
    }
    launch_stream_release(s);
    job->open_streams--;
}

static void stream_service(struct job *job, struct stream *s)
{
    ssize_t n = read(s->fd, job->rdbuf, READ_CHUNK);
    if (n > 0) {
        stream_consume(job, s, job->rdbuf, (size_t)n);
        sink_flush(job->sink[s->dest]);
    } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
        launch_stream_close(job, s);
    }
}

/* When whoever reads our output has gone, close the PEs' pipes too: they
 * then get SIGPIPE just as if they wrote to that reader directly. */
static void propagate_broken_sinks(struct job *job)
{
    for (int k = 0; k < 2; k++) {
        struct sink *o = job->sink[k];
        if (!o->reader_gone || o->propagated)
            continue;
        o->propagated = true;
        for (int i = 0; i < job->npes; i++)
            launch_stream_close(job, &job->pe[i].io[k]);
    }
}

int launch_build_pollfds(struct job *job)
{
    int n = 0;
    if (!job->tag)
        return 0;
    for (int i = 0; i < job->npes; i++) {
        for (int k = 0; k < 2; k++) {
            struct stream *s = &job->pe[i].io[k];
            if (s->fd < 0)
                continue;
            job->pfd[n] = (struct pollfd){.fd = s->fd, .events = POLLIN};
            job->pfd_stream[n] = s;
            n++;
        }
    }
    return n;
}

void launch_service_streams(struct job *job, int nfds)
{
    if (nfds == 0 || poll(job->pfd, (nfds_t)nfds, 0) <= 0)
        return;
    for (int k = 0; k < nfds; k++) {
        if (job->pfd[k].revents != 0)
            stream_service(job, job->pfd_stream[k]);
    }
    propagate_broken_sinks(job);
}
