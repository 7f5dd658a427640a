/*
 * harness_machine.c - what the header and the JSON say about the machine:
 * CPU, kernel, date, clock source and its cost, load average.
 */
#include "harness_private.h"

#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

void harness_read_first_line(const char *path, char *buf, size_t len)
{
    buf[0] = 0;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    if (fgets(buf, (int)len, f))
        buf[strcspn(buf, "\n")] = 0;
    fclose(f);
}

void harness_machine_info(void)
{
    bench_state.nproc = sysconf(_SC_NPROCESSORS_ONLN);
    snprintf(bench_state.cpu, sizeof(bench_state.cpu), "unknown");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (f) {
        char line[512];
        while (fgets(line, sizeof(line), f)) {
            if (strncmp(line, "model name", 10) == 0) {
                char *p = strchr(line, ':');
                if (p) {
                    p++;
                    while (*p == ' ' || *p == '\t')
                        p++;
                    p[strcspn(p, "\n")] = 0;
                    snprintf(bench_state.cpu, sizeof(bench_state.cpu), "%s", p);
                }
                break;
            }
        }
        fclose(f);
    }
    struct utsname u;
    if (uname(&u) == 0)
        snprintf(bench_state.kernel, sizeof(bench_state.kernel), "%s %s %s", u.sysname, u.release,
                 u.machine);
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(bench_state.date, sizeof(bench_state.date), "%Y-%m-%dT%H:%M:%SZ", &tm);
    harness_read_first_line("/sys/devices/system/clocksource/clocksource0/current_clocksource",
                            bench_state.clocksource, sizeof(bench_state.clocksource));
    harness_read_first_line("/proc/loadavg", bench_state.load_start,
                            sizeof(bench_state.load_start));
    uint64_t t0 = bench_now_ns();
    for (int i = 0; i < 10000; i++)
        (void)bench_now_ns();
    bench_state.clock_read_ns = (double)(bench_now_ns() - t0) / 10000;
}
