/*
 * symheap-stress: run the seeded stress sequence (stress.h) on N PEs of
 * this host, through the real launcher.
 *
 *   symheap-stress [--pes N[,N...]] [--seed S] [--steps K | --minutes M]
 *                  [--start-step K] [--max-bytes B] [--verbose[=2]]
 *
 * With a list of PE counts (and/or --seeds S1,S2,...) every combination
 * runs in turn; --minutes is then the time of each run.  Exit status 0
 * only if every run finished with every result right.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <symheap.h>

#include "launch/launcher.h"
#include "stress.h"

static int pe_body(int pe, int npes, void *arg)
{
    (void)pe;
    (void)npes;
    sym_status_t st = sym_init();
    if (st != SYM_OK) {
        fprintf(stderr, "stress: sym_init failed: %s: %s\n", sym_status_name(st), sym_last_error());
        return 2;
    }
    int rc = stress_run(arg);
    st = sym_finalize();
    if (st != SYM_OK) {
        fprintf(stderr, "stress: sym_finalize failed: %s: %s\n", sym_status_name(st),
                sym_last_error());
        return 2;
    }
    return rc;
}

static void usage(void)
{
    fprintf(stderr, "usage: symheap-stress [--pes N[,N...]] [--seed S | --seeds S[,S...]]\n"
                    "                      [--steps K | --minutes M] [--start-step K]\n"
                    "                      [--max-bytes B] [--verbose[=2]]\n");
    exit(64);
}

static int parse_list(const char *s, uint64_t *out, int max)
{
    int n = 0;
    while (*s && n < max) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 0);
        if (end == s || errno)
            return -1;
        out[n++] = v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return n;
}

static uint64_t parse_u(const char *s)
{
    uint64_t v;
    if (parse_list(s, &v, 1) != 1)
        usage();
    return v;
}

int main(int argc, char **argv)
{
    struct stress_opts o;
    stress_opts_default(&o);
    uint64_t pes[16] = {4}, seeds[64] = {1};
    int npes_list = 1, nseeds = 1;
    bool steps_given = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--pes") && v) {
            if ((npes_list = parse_list(v, pes, 16)) < 1)
                usage();
            i++;
        } else if ((!strcmp(a, "--seed") || !strcmp(a, "--seeds")) && v) {
            if ((nseeds = parse_list(v, seeds, 64)) < 1)
                usage();
            i++;
        } else if (!strcmp(a, "--steps") && v) {
            o.steps = parse_u(v);
            steps_given = true;
            i++;
        } else if (!strcmp(a, "--minutes") && v) {
            o.minutes = strtod(v, NULL);
            if (o.minutes <= 0)
                usage();
            i++;
        } else if (!strcmp(a, "--start-step") && v) {
            o.start_step = parse_u(v);
            i++;
        } else if (!strcmp(a, "--max-bytes") && v) {
            o.max_bytes = (size_t)parse_u(v);
            i++;
        } else if (!strcmp(a, "--verbose")) {
            o.verbose = 1;
        } else if (!strcmp(a, "--verbose=2")) {
            o.verbose = 2;
        } else {
            usage();
        }
    }
    if (o.minutes > 0 && !steps_given)
        o.steps = 0;
    if (o.start_step && o.steps && o.start_step >= o.steps)
        o.steps = o.start_step + 1;

    /* the stress environment unless the caller set the variable */
    const char *env[16];
    int ne = 0;
    for (int i = 0; stress_env[i] && ne < 15; i++) {
        char name[64];
        size_t len = strcspn(stress_env[i], "=");
        snprintf(name, sizeof(name), "%.*s", (int)len, stress_env[i]);
        if (!getenv(name))
            env[ne++] = stress_env[i];
    }
    env[ne] = NULL;

    int failures = 0;
    for (int s = 0; s < nseeds; s++)
        for (int p = 0; p < npes_list; p++) {
            o.seed = seeds[s];
            struct sym_launch_opts lo = {
                .npes = (int)pes[p],
                .body = pe_body,
                .body_arg = &o,
                .job_timeout_s = o.minutes > 0 ? o.minutes * 60 + 600 : 0,
                .env = env,
            };
            struct sym_launch_result res;
            fflush(NULL);
            if (sym_launch_run(&lo, &res) != 0)
                return 2;
            if (res.exit_code != 0) {
                fprintf(stderr,
                        "stress: seed %" PRIu64 " on %d PEs FAILED (exit %d, first "
                        "failing PE %d)\n",
                        o.seed, (int)pes[p], res.exit_code, res.first_failed_pe);
                failures++;
            }
            sym_launch_result_free(&res);
        }
    if (failures)
        fprintf(stderr, "stress: %d run(s) failed\n", failures);
    return failures ? 1 : 0;
}
