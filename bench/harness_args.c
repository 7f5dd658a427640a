/*
 * harness_args.c - the command line every benchmark shares (harness.h,
 * struct bench_opts).
 */
#include "harness_private.h"

#include <errno.h>
#include <getopt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

struct bench_opts bench_opt;

static int parse_size(const char *text, size_t *out)
{
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text)
        return -1;
    unsigned shift = 0;
    if (*end == 'k' || *end == 'K')
        shift = 10;
    else if (*end == 'm' || *end == 'M')
        shift = 20;
    else if (*end == 'g' || *end == 'G')
        shift = 30;
    if (shift)
        end++;
    if (*end == 'i' && shift)
        end++;
    if (*end == 'B' || *end == 'b')
        end++;
    if (*end || v > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)v << shift;
    return 0;
}

static void usage(FILE *to, const struct bench_info *info)
{
    fprintf(to,
            "Usage: symrun -n NPES %s [options]\n"
            "%s\n\n"
            "  -n, --iters N       iterations per sample (default: calibrated so one\n"
            "                      sample takes --sample-ms)\n"
            "  -r, --repeats N     samples per figure, interleaved with its baseline\n"
            "                      (default %d, at most %d); median/min/max over them\n"
            "      --min-size S    smallest size of the sweep (K/M suffixes)\n"
            "      --max-size S    largest size of the sweep\n"
            "      --size-step K   multiply the size by K (2, 4, 8, 16, 64; default 2)\n"
            "      --sample-ms MS  calibration target per sample (default 3)\n"
            "      --json FILE     also write every figure as JSON to FILE\n"
            "  -h, --help          show this help\n",
            info->name, info->about, info->default_repeats ? info->default_repeats : 7,
            BENCH_MAX_REPEATS);
    if (info->default_max_size)
        fprintf(to, "Default sizes: %zu .. %zu bytes.\n", info->default_min_size,
                info->default_max_size);
}

/* 0: go on; otherwise exit status + 1 (so 1 means exit 0). */
int harness_parse_args(int argc, char **argv, const struct bench_info *info)
{
    static const struct option longopts[] = {
        {"iters", required_argument, NULL, 'n'},
        {"repeats", required_argument, NULL, 'r'},
        {"min-size", required_argument, NULL, 1},
        {"max-size", required_argument, NULL, 2},
        {"sample-ms", required_argument, NULL, 3},
        {"json", required_argument, NULL, 4},
        {"size-step", required_argument, NULL, 5},
        {"help", no_argument, NULL, 'h'},
        {NULL, 0, NULL, 0},
    };
    bench_opt = (struct bench_opts){.iters = 0,
                                    .repeats = info->default_repeats ? info->default_repeats : 7,
                                    .min_size = info->default_min_size,
                                    .max_size = info->default_max_size,
                                    .sample_ms = 3,
                                    .json = NULL,
                                    .size_step = 2};
    const bool loud = bench_state.me == 0;
    opterr = 0;
    int c;
    char *end;
    while ((c = getopt_long(argc, argv, ":n:r:h", longopts, NULL)) != -1) {
        switch (c) {
        case 'n': {
            errno = 0;
            unsigned long long v = strtoull(optarg, &end, 10);
            if (errno || *end || end == optarg || v == 0) {
                if (loud)
                    fprintf(stderr, "%s: --iters needs a positive integer, got '%s'\n", info->name,
                            optarg);
                return 3;
            }
            bench_opt.iters = v;
            break;
        }
        case 'r': {
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || v < 1 || v > BENCH_MAX_REPEATS) {
                if (loud)
                    fprintf(stderr, "%s: --repeats needs 1..%d, got '%s'\n", info->name,
                            BENCH_MAX_REPEATS, optarg);
                return 3;
            }
            bench_opt.repeats = (int)v;
            break;
        }
        case 1:
        case 2:
            if (parse_size(optarg, c == 1 ? &bench_opt.min_size : &bench_opt.max_size) != 0) {
                if (loud)
                    fprintf(stderr, "%s: bad size '%s'\n", info->name, optarg);
                return 3;
            }
            break;
        case 3:
            bench_opt.sample_ms = strtod(optarg, &end);
            if (*end || end == optarg || !(bench_opt.sample_ms > 0) ||
                bench_opt.sample_ms > 10000) {
                if (loud)
                    fprintf(stderr, "%s: --sample-ms needs a number of ms in (0, 10000]\n",
                            info->name);
                return 3;
            }
            break;
        case 4:
            bench_opt.json = optarg;
            break;
        case 5: {
            long v = strtol(optarg, &end, 10);
            if (*end || end == optarg || (v != 2 && v != 4 && v != 8 && v != 16 && v != 64)) {
                if (loud)
                    fprintf(stderr, "%s: --size-step needs 2, 4, 8, 16 or 64, got '%s'\n",
                            info->name, optarg);
                return 3;
            }
            bench_opt.size_step = (unsigned)v;
            break;
        }
        case 'h':
            if (loud)
                usage(stdout, info);
            return 1;
        case ':':
            if (loud)
                fprintf(stderr, "%s: option '%s' needs a value\n", info->name, argv[optind - 1]);
            return 3;
        default:
            if (loud)
                fprintf(stderr, "%s: unknown option '%s'\n", info->name, argv[optind - 1]);
            return 3;
        }
    }
    if (optind < argc) {
        if (loud)
            fprintf(stderr, "%s: unexpected argument '%s'\n", info->name, argv[optind]);
        return 3;
    }
    if (info->default_max_size) {
        if (bench_opt.min_size < 1 || bench_opt.min_size > bench_opt.max_size ||
            bench_opt.max_size > info->default_max_size) {
            if (loud)
                fprintf(stderr, "%s: need 1 <= --min-size <= --max-size <= %zu\n", info->name,
                        info->default_max_size);
            return 3;
        }
    }
    return 0;
}
