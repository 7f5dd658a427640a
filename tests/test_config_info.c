/* test_config_info.c - symheap-info: every variable of every table with
 * its default and the value in force, each transport's under its name,
 * malformed values refused, the providers found; and the README's table. */
#include <criterion/criterion.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "config_cases.h"
#include "core/internal.h"
#include "harness.h"

/* ---- symheap-info --------------------------------------------------------- */

static void info_path(char *out, size_t len)
{
    const char *env = getenv("SYMHEAP_INFO");
    if (env && *env) {
        snprintf(out, len, "%s", env);
    } else {
        char self[PATH_MAX];
        ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
        cr_assert(n > 0, "readlink /proc/self/exe");
        self[n] = '\0';
        snprintf(out, len, "%s/../symheap-info", dirname(self));
    }
    cr_assert(access(out, X_OK) == 0, "symheap-info not found at %s (set SYMHEAP_INFO)", out);
}

struct tool_run {
    int exit_code; /* -1 if it did not exit normally */
    char out[16384];
    char err[4096];
};

static void read_all(int fd, char *buf, size_t len)
{
    ssize_t n = pread(fd, buf, len - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
}

/* Run symheap-info with only the given SYMHEAP_* variables set.  Output goes
 * to files, not pipes, so a chatty tool cannot block on a full pipe. */
static void run_info(const char *const *env, struct tool_run *r)
{
    char path[PATH_MAX];
    info_path(path, sizeof(path));
    char opath[] = "/tmp/symheap-info-out-XXXXXX", epath[] = "/tmp/symheap-info-err-XXXXXX";
    int ofd = mkstemp(opath), efd = mkstemp(epath);
    cr_assert(ofd >= 0 && efd >= 0, "mkstemp");
    unlink(opath);
    unlink(epath);
    fflush(NULL);
    pid_t pid = fork();
    cr_assert(pid >= 0, "fork");
    if (pid == 0) {
        clear_symheap_env();
        for (size_t i = 0; env && env[i]; i++) {
            char name[64];
            const char *eq = strchr(env[i], '=');
            snprintf(name, sizeof(name), "%.*s", (int)(eq - env[i]), env[i]);
            setenv(name, eq + 1, 1);
        }
        dup2(ofd, 1);
        dup2(efd, 2);
        execl(path, "symheap-info", (char *)NULL);
        _exit(127);
    }
    int ws;
    cr_assert(waitpid(pid, &ws, 0) == pid, "waitpid");
    r->exit_code = WIFEXITED(ws) ? WEXITSTATUS(ws) : -1;
    read_all(ofd, r->out, sizeof(r->out));
    read_all(efd, r->err, sizeof(r->err));
}

/* The table line of `name`: name type default value ...; copies the value
 * column to `value` and returns the line (NULL if absent). */
static const char *info_line(const char *out, const char *name, char *value, size_t vlen,
                             char *dflt, size_t dlen, bool *set)
{
    size_t nl = strlen(name);
    for (const char *line = out; *line;) {
        const char *next = strchr(line, '\n');
        if (strncmp(line, name, nl) != 0 || line[nl] != ' ') {
            if (!next)
                break;
            line = next + 1;
            continue;
        }
        char type[32], d[64], v[64];
        if (sscanf(line + nl, "%31s %63s %63s", type, d, v) != 3)
            return NULL;
        /* symheap-info shows an empty string as "-" */
        snprintf(value, vlen, "%s", strcmp(v, "-") ? v : "");
        snprintf(dflt, dlen, "%s", strcmp(d, "-") ? d : "");
        size_t len = next ? (size_t)(next - line) : strlen(line);
        *set = len >= 5 && memcmp(line + len - 5, "[set]", 5) == 0;
        return line;
    }
    return NULL;
}

Test(config, symheap_info_lists_every_variable)
{
    static struct tool_run r;
    static const char *const env[] = {"SYMHEAP_HEAP_SIZE=3M", "SYMHEAP_WAIT_SPIN=77", NULL};
    run_info(env, &r);
    cr_assert(r.exit_code == 0, "symheap-info exited %d: %s", r.exit_code, r.err);
    for (size_t v = 0; v < NVARS; v++) {
        char value[64], dflt[64];
        bool set;
        const char *line =
            info_line(r.out, table_names[v], value, sizeof(value), dflt, sizeof(dflt), &set);
        cr_assert(line, "symheap-info does not list %s:\n%s", table_names[v], r.out);
        cr_expect(!strcmp(dflt, table_defaults[v]), "%s: default shown as '%s', table says '%s'",
                  table_names[v], dflt, table_defaults[v]);
        if (!strcmp(table_names[v], "SYMHEAP_HEAP_SIZE")) {
            cr_expect(!strcmp(value, "3M") && set, "SYMHEAP_HEAP_SIZE=3M shown as '%s'%s", value,
                      set ? "" : " without [set]");
        } else if (!strcmp(table_names[v], "SYMHEAP_WAIT_SPIN")) {
            cr_expect(!strcmp(value, "77") && set, "SYMHEAP_WAIT_SPIN=77 shown as '%s'%s", value,
                      set ? "" : " without [set]");
        } else {
            cr_expect(!strcmp(value, table_defaults[v]) && !set,
                      "unset %s shown as '%s'%s (default '%s')", table_names[v], value,
                      set ? " [set]" : "", table_defaults[v]);
        }
    }
}

/* Each transport's own variables come under its name, after the job's. */
Test(config, symheap_info_lists_settings_per_transport)
{
    static struct tool_run r;
    run_info(NULL, &r);
    cr_assert(r.exit_code == 0, "symheap-info exited %d: %s", r.exit_code, r.err);
    const char *job_end = strstr(r.out, "\nSettings of the ");
    for (size_t k = 0; k < sym_transport_nclasses; k++) {
        const struct sym_transport_class *c = sym_transport_classes[k];
        char head[96];
        snprintf(head, sizeof(head), "\nSettings of the %s transport:\n", c->name);
        const char *at = strstr(r.out, head);
        cr_expect(!c->settings == !at, "%s: %s", c->name,
                  c->settings ? "no section of its settings" : "a section but no settings");
        for (size_t i = 0; at && c->settings && i < c->settings->nvars; i++) {
            char line[96];
            snprintf(line, sizeof(line), "\n%s ", c->settings->vars[i].name);
            const char *v = strstr(r.out, line);
            cr_expect(v && v > at && (!job_end || v > job_end),
                      "%s is not listed under the %s transport:\n%s", c->settings->vars[i].name,
                      c->name, r.out);
        }
    }
    for (size_t i = 0; i < sym_config_job_table.nvars; i++) {
        char line[96];
        snprintf(line, sizeof(line), "\n%s ", sym_config_job_table.vars[i].name);
        const char *v = strstr(r.out, line);
        cr_expect(v && (!job_end || v < job_end), "%s is not listed with the job's variables",
                  sym_config_job_table.vars[i].name);
    }
}

Test(config, symheap_info_rejects_malformed_values)
{
    static struct tool_run r;
    for (size_t i = 0; i < NBAD; i++) {
        if (bad_env[i].expect != SYM_ERR_CONFIG)
            continue;
        char entry[128];
        snprintf(entry, sizeof(entry), "%s=%s", bad_env[i].var, bad_env[i].value);
        const char *env[] = {entry, NULL};
        run_info(env, &r);
        cr_expect(r.exit_code != 0, "symheap-info with %s exited 0", entry);
        bool secret = !strcmp(bad_env[i].var, "SYMHEAP_JOB_SECRET"); /* never shown */
        cr_expect(strstr(r.err, bad_env[i].var) &&
                      (strstr(r.err, bad_env[i].value) != NULL) != secret,
                  "symheap-info with %s: stderr '%s' does not name it (or shows the secret)", entry,
                  r.err);
    }
    /* a valid but unbuilt transport is a configuration the tool can show */
    static const char *const ofi[] = {"SYMHEAP_TRANSPORT=ofi", NULL};
    run_info(ofi, &r);
    cr_expect(r.exit_code == 0, "symheap-info with SYMHEAP_TRANSPORT=ofi exited %d: %s",
              r.exit_code, r.err);
}

#ifdef SYM_HAVE_OFI
/* symheap-info lists the libfabric providers found, with what symheap
 * needs of each, and marks the one auto picks: RDMA hardware first, else
 * tcp;ofi_rxm; never udp;ofi_rxd, net, sockets or shm by default. */
Test(config, symheap_info_lists_providers)
{
    static struct tool_run r;
    run_info(NULL, &r);
    cr_assert(r.exit_code == 0, "symheap-info exited %d: %s", r.exit_code, r.err);
    const char *list = strstr(r.out, "RDM providers with RMA and atomics:");
    cr_assert(list, "no provider listing in:\n%s", r.out);
    static const char *const rdma[] = {"verbs;ofi_rxm", "efa", "cxi", "psm3"};
    int defaults = 0;
    bool tcp = false, shm = false, rdma_found = false;
    char dflt[64] = "";
    for (const char *line = strchr(list, '\n'); line && line[1] == ' ';) {
        line++;
        const char *end = strchr(line, '\n');
        char text[512], prov[64];
        snprintf(text, sizeof(text), "%.*s", (int)(end ? end - line : (long)strlen(line)), line);
        cr_assert(sscanf(text, "%63s", prov) == 1, "unreadable line '%s'", text);
        cr_expect(strstr(text, "mr_mode ") && strstr(text, "inject ") &&
                      strstr(text, " progress, "),
                  "line without mr_mode, inject size or progress: '%s'", text);
        tcp |= strcmp(prov, "tcp;ofi_rxm") == 0 && strstr(text, "all atomics");
        shm |= strcmp(prov, "shm") == 0 && strstr(text, "VIRT_ADDR");
        for (size_t k = 0; k < sizeof(rdma) / sizeof(rdma[0]); k++)
            rdma_found |= strcmp(prov, rdma[k]) == 0;
        if (strstr(text, "[default]")) {
            defaults++;
            snprintf(dflt, sizeof(dflt), "%s", prov);
        }
        if (strstr(prov, "ofi_rxd") || !strcmp(prov, "net") || !strncmp(prov, "net;", 4) ||
            !strcmp(prov, "sockets") || !strcmp(prov, "shm"))
            cr_expect(strstr(text, "[not by default: "), "%s is not excluded with a reason: '%s'",
                      prov, text);
        line = end;
    }
    cr_expect(tcp, "tcp;ofi_rxm with all atomics not listed:\n%s", list);
    cr_expect(shm, "libfabric's shm provider (mr_mode VIRT_ADDR) not listed:\n%s", list);
    cr_expect(defaults == 1, "%d providers marked [default]:\n%s", defaults, list);
    if (!rdma_found)
        cr_expect(!strcmp(dflt, "tcp;ofi_rxm"), "default %s, expected tcp;ofi_rxm:\n%s", dflt,
                  list);
}
#endif

/* README.md's table of environment variables names every variable of the
 * one table (src/config_table.h), with its default.  The source tree is
 * the one meson configured this build from (meson-info). */
Test(config, readme_documents_every_variable)
{
    char self[PATH_MAX], path[PATH_MAX + 64];
    ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    cr_assert(n > 0, "readlink /proc/self/exe");
    self[n] = '\0';
    snprintf(path, sizeof(path), "%s/../meson-info/meson-info.json", dirname(self));
    static char buf[1 << 17];
    FILE *f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
    fclose(f);
    const char *src = strstr(buf, "\"source\": \"");
    cr_assert(src, "%s names no source directory", path);
    src += strlen("\"source\": \"");
    snprintf(path, sizeof(path), "%.*s/README.md", (int)strcspn(src, "\""), src);
    f = fopen(path, "r");
    cr_assert(f, "cannot open %s", path);
    buf[fread(buf, 1, sizeof(buf) - 1, f)] = '\0';
    fclose(f);
    for (size_t v = 0; v < NVARS; v++) {
        char row[96];
        snprintf(row, sizeof(row), "| `%s` | %s |", table_names[v],
                 *table_defaults[v] ? table_defaults[v] : "(empty)");
        /* the symrun trio shares one row */
        if (!strncmp(table_names[v], "SYMHEAP_SYMRUN_", 15)) {
            snprintf(row, sizeof(row), "`%s`", table_names[v]);
        }
        cr_expect(strstr(buf, row), "README.md has no row '%s' (src/config_table.h)", row);
    }
}
