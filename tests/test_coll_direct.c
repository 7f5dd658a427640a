/*
 * test_coll_direct.c - the direct algorithm on every path an offer takes,
 * and where it cannot run.
 *
 * The collective matrix (every collective, count 0, 1, odd, prime and
 * larger than the mailbox, in place and not, every root, on the world, a
 * strided and a created team of every size 1..8) runs again with only the
 * direct algorithm, once per place a member's data can lie:
 *   heap    buffers in the symmetric heap: read through the mapping;
 *   cma     private buffers read by cross-memory attach (SYMHEAP_CMA=on),
 *           and every all_to_allv block however small;
 *   staged  private buffers copied once into a staging area of 16 KiB, so
 *           anything above 8 KiB goes through it in rounds (and split teams,
 *           which have no staging area, fall back to the automatic choice).
 * Every result is checked against a reference computed locally.  Then: a
 * kernel that refuses process_vm_readv (a seccomp filter, as in a
 * container) before sym_init and after it, the root's buffers overlapping
 * other members' blocks, members that choose different
 * algorithms, a member killed in a direct call, and disjoint teams at once.
 */
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "coll_check.h"
#include "core/cma.h"

/* ------------------------------------------------------------------------ */
/* The matrix, direct only, on each path                                     */
/* ------------------------------------------------------------------------ */

#define ARENA ((size_t)12 << 20)

static const team_fn matrices[] = {
    broadcast_matrix,   reduce_matrix, allreduce_matrix, reduce_scatter_matrix, all_gather_matrix,
    all_gatherv_matrix, gather_matrix, scatter_matrix,   all_to_all_matrix,     all_to_allv_matrix,
};

struct path {
    const char *name;
    bool heap;
    const char *const *env;
};

static const char *const heap_env[] = {"SYMHEAP_MAILBOX_SIZE=128K", "SYMHEAP_TEAM_AREA_SIZE=64K",
                                       "SYMHEAP_HEAP_SIZE=64M", NULL};
/* every all_to_allv block read directly, the small ones too */
static const char *const cma_env[] = {"SYMHEAP_MAILBOX_SIZE=128K", "SYMHEAP_TEAM_AREA_SIZE=64K",
                                      "SYMHEAP_CMA=on", "SYMHEAP_COLL_TUNING=direct.pair_min=1",
                                      NULL};
static const char *const staged_env[] = {"SYMHEAP_MAILBOX_SIZE=128K", "SYMHEAP_TEAM_AREA_SIZE=64K",
                                         "SYMHEAP_STAGING_SIZE=16K", "SYMHEAP_CMA=off", NULL};

static const struct path paths[] = {
    {"heap", true, heap_env},
    {"cma", false, cma_env},
    {"staged", false, staged_env},
};

static void matrix_body(int me, int n, void *arg)
{
    const struct path *p = arg;
    matrix_only = SYM_ALGO_DIRECT;
    void *arena = NULL;
    if (p->heap) {
        arena = sym_malloc(ARENA);
        PE_ASSERT(arena, "sym_malloc(%zu): %s", ARENA, sym_last_error());
        gb_use_arena(arena, ARENA);
    }
    for (size_t i = 0; i < NELEMS(matrices); i++) {
        const struct team_job job = {matrices[i]};
        team_job_body(me, n, (void *)&job);
    }
    if (arena) {
        gb_use_arena(NULL, 0);
        sym_free(arena);
    }
}

struct path_case {
    int path;
    int npes;
};

ParameterizedTestParameters(coll_direct, paths)
{
    static struct path_case cases[3 * 4];
    static const int pes[] = {2, 3, 5, 8};
    int k = 0;
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < 4; i++)
            cases[k++] = (struct path_case){p, pes[i]};
    return cr_make_param_array(struct path_case, cases, (size_t)k);
}

ParameterizedTest(struct path_case *pc, coll_direct, paths, .timeout = HARNESS_CR_TIMEOUT(600))
{
    const struct path *p = &paths[pc->path];
    cr_log_info("path %s, %d PEs", p->name, pc->npes);
    run_pes_env(pc->npes, p->env, matrix_body, (void *)p);
}

/* ------------------------------------------------------------------------ */
/* The root's buffers overlapping another member's block                     */
/* ------------------------------------------------------------------------ */

static uint32_t elem(int member, size_t i, int salt)
{
    return (uint32_t)member * 0x9e3779b1u ^ (uint32_t)i * 2654435761u ^ (uint32_t)salt;
}

/* At the root, gather's src and scatter's dst lie inside the n-block buffer
 * at every block, its own and the others': other members read the root's
 * src while it writes, so the direct path must order its own block as the
 * mailbox paths do (gather's first, scatter's last). */
static void rooted_overlap_body(int me, int n, void *arg)
{
    const struct path *p = arg;
    static const size_t counts[] = {1, 7, 5003}; /* 5003: above the 16 KiB staging area */
    const size_t most = counts[NELEMS(counts) - 1] * (size_t)n;
    uint32_t *all = p->heap ? sym_malloc(most * 4) : malloc(most * 4);
    uint32_t *mine = p->heap ? sym_malloc(counts[NELEMS(counts) - 1] * 4) : malloc(most * 4);
    PE_ASSERT(all && mine, "buffers: %s", sym_last_error());
    const sym_coll_opts_t o = {.algorithm = SYM_ALGO_DIRECT};
    int salt = 0;
    for (size_t ci = 0; ci < NELEMS(counts); ci++) {
        const size_t count = counts[ci];
        for (int root = 0; root < n; root++)
            for (int at = 0; at < n; at++, salt++) {
                /* gather: the root's contribution sits in block `at` */
                uint32_t *src = me == root ? all + (size_t)at * count : mine;
                for (size_t i = 0; i < count; i++)
                    src[i] = elem(me, i, salt);
                PE_OK(sym_gather(sym_team_world(), all, src, count, SYM_UINT32, root, &o));
                if (me == root)
                    for (int m = 0; m < n; m++)
                        for (size_t i = 0; i < count; i++)
                            PE_ASSERT(all[(size_t)m * count + i] == elem(m, i, salt),
                                      "gather count %zu root %d src at block %d: member %d "
                                      "element %zu is %08x, expected %08x",
                                      count, root, at, m, i, all[(size_t)m * count + i],
                                      elem(m, i, salt));
                /* scatter: the root's dst sits in block `at` */
                if (me == root)
                    for (int m = 0; m < n; m++)
                        for (size_t i = 0; i < count; i++)
                            all[(size_t)m * count + i] = elem(m, i, salt + 1000);
                uint32_t *dst = me == root ? all + (size_t)at * count : mine;
                PE_OK(sym_scatter(sym_team_world(), dst, all, count, SYM_UINT32, root, &o));
                for (size_t i = 0; i < count; i++)
                    PE_ASSERT(dst[i] == elem(me, i, salt + 1000),
                              "scatter count %zu root %d dst at block %d: element %zu is %08x, "
                              "expected %08x",
                              count, root, at, i, dst[i], elem(me, i, salt + 1000));
            }
    }
    if (p->heap) {
        sym_free(all);
        sym_free(mine);
    } else {
        free(all);
        free(mine);
    }
}

ParameterizedTestParameters(coll_direct, rooted_overlap)
{
    static struct path_case cases[3 * 2];
    static const int pes[] = {2, 3};
    int k = 0;
    for (int p = 0; p < 3; p++)
        for (int i = 0; i < 2; i++)
            cases[k++] = (struct path_case){p, pes[i]};
    return cr_make_param_array(struct path_case, cases, (size_t)k);
}

ParameterizedTest(struct path_case *pc, coll_direct, rooted_overlap)
{
    const struct path *p = &paths[pc->path];
    cr_log_info("path %s, %d PEs", p->name, pc->npes);
    run_pes_env(pc->npes, p->env, rooted_overlap_body, (void *)p);
}

/* ------------------------------------------------------------------------ */
/* A kernel that refuses cross-memory attach                                 */
/* ------------------------------------------------------------------------ */

/* process_vm_readv answers EPERM from now on, in this process and its
 * children, as under a container's seccomp profile. */
static void deny_cross_memory_attach(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_process_vm_readv, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = {.len = (unsigned short)NELEMS(f), .filter = f};
    PE_ASSERT(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == 0, "no_new_privs: %s", strerror(errno));
    PE_ASSERT(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) == 0, "seccomp: %s",
              strerror(errno));
}

/* An allreduce of `count` int32 on `team` with the direct algorithm,
 * checked; returns its status (the data is checked only on success). */
static sym_status_t direct_allreduce(sym_team_t team, size_t count, int salt)
{
    const int n = sym_team_n_pes(team), me = sym_team_my_pe(team);
    int32_t *src = xmalloc(count * sizeof(int32_t)), *dst = xmalloc(count * sizeof(int32_t));
    for (size_t i = 0; i < count; i++)
        src[i] = (int32_t)(i * 7 + (size_t)me * 1000 + (size_t)salt);
    const sym_coll_opts_t o = {.algorithm = SYM_ALGO_DIRECT, .timeout_s = 0};
    sym_status_t st = sym_allreduce(team, dst, src, count, SYM_INT32, SYM_OP_SUM, &o);
    for (size_t i = 0; st == SYM_OK && i < count; i++) {
        int64_t want = 0;
        for (int r = 0; r < n; r++)
            want += (int64_t)(i * 7 + (size_t)r * 1000 + (size_t)salt);
        PE_ASSERT(dst[i] == (int32_t)want, "element %zu: %d, want %d", i, dst[i], (int32_t)want);
    }
    free(src);
    free(dst);
    return st;
}

/* Refused before sym_init: the probe finds it, every member agrees not to
 * use it, the world stages and split teams fall back, silently. */
static void refused_at_init_body(int me, int n, void *arg)
{
    (void)arg;
    deny_cross_memory_attach();
    PE_OK(sym_init());
    PE_ASSERT(!sym_cma_verdict(me), "PE %d says cross-memory attach works", me);
    for (size_t count = 1; count <= 300001; count = count * 37 + 3)
        PE_OK(direct_allreduce(sym_team_world(), count, (int)count));
    sym_team_t half;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n > 1 ? n - 1 : 1, &half));
    if (half != SYM_TEAM_INVALID) {
        PE_OK(direct_allreduce(half, 70001, 5));
        PE_OK(sym_team_destroy(half));
    }
    PE_OK(sym_finalize());
}

ParameterizedTestParameters(coll_direct, refused_at_init)
{
    static int pes[] = {2, 3, 4};
    return cr_make_param_array(int, pes, 3);
}

ParameterizedTest(int *npes, coll_direct, refused_at_init)
{
    static const char *const env[] = {"SYMHEAP_CMA=on", NULL};
    struct pe_job job = {.npes = *npes, .body = refused_at_init_body, .raw = true, .env = env};
    struct pe_outcome out;
    if (!harness_pes_listed(*npes))
        cr_skip_test("SYMHEAP_TEST_PES leaves out %d PEs", *npes);
    pe_job_run(&job, &out);
    assert_job_ok(&out);
}

/* Refused after sym_init, on one PE only, while every member reads the
 * others by cross-memory attach: that PE's reads fail with an error naming
 * the cause, and every member returns an error instead of waiting. */
static void refused_later_body(int me, int n, void *arg)
{
    (void)arg;
    PE_OK(direct_allreduce(sym_team_world(), 4099, 1));
    PE_OK(sym_barrier_all());
    if (me == n - 1)
        deny_cross_memory_attach();
    PE_OK(sym_team_set_timeout(sym_team_world(), 20.0));
    sym_status_t st = direct_allreduce(sym_team_world(), 100003, 2);
    PE_ASSERT(st != SYM_OK, "PE %d: the allreduce succeeded", me);
    if (me == n - 1)
        PE_ASSERT(st == SYM_ERR_UNAVAILABLE && strstr(sym_last_error(), "cross-memory"),
                  "PE %d: %s: %s", me, sym_status_name(st), sym_last_error());
    else
        PE_ASSERT(st == SYM_ERR_UNAVAILABLE || st == SYM_ERR_TIMEOUT, "PE %d: %s: %s", me,
                  sym_status_name(st), sym_last_error());
}

ParameterizedTestParameters(coll_direct, refused_later)
{
    static int pes[] = {2, 3};
    return cr_make_param_array(int, pes, 2);
}

ParameterizedTest(int *npes, coll_direct, refused_later)
{
    static const char *const env[] = {"SYMHEAP_CMA=on", NULL};
    run_pes_env(*npes, env, refused_later_body, NULL);
}

/* ------------------------------------------------------------------------ */
/* Members that disagree, members that die, teams side by side              */
/* ------------------------------------------------------------------------ */

/* Member 0 chooses direct, the others another algorithm: a mismatch on
 * every member that waits for data, and nobody takes data of the other. */
static void disagree_body(int me, int n, void *arg)
{
    const sym_algorithm_t other = *(const sym_algorithm_t *)arg;
    sym_team_t t = SYM_TEAM_INVALID;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, n, &t));
    PE_OK(sym_team_set_timeout(t, 10.0));
    enum { COUNT = 20000 };
    int32_t *buf = xmalloc(COUNT * sizeof(int32_t));
    for (int i = 0; i < COUNT; i++)
        buf[i] = me == 0 ? i : -1;
    const sym_coll_opts_t o = {.algorithm = me == 0 ? SYM_ALGO_DIRECT : other, .timeout_s = 0};
    sym_status_t st = sym_broadcast(t, buf, COUNT, SYM_INT32, 0, &o);
    if (me != 0) {
        PE_ASSERT(st == SYM_ERR_MISMATCH, "PE %d: %s: %s", me, sym_status_name(st),
                  sym_last_error());
        for (int i = 0; i < COUNT; i++)
            PE_ASSERT(buf[i] == -1 || buf[i] == i, "PE %d: element %d is %d", me, i, buf[i]);
    }
    st = sym_team_sync(t);
    PE_ASSERT(st == SYM_ERR_MISMATCH, "PE %d: team sync: %s: %s", me, sym_status_name(st),
              sym_last_error());
    pe_ignore(sym_team_destroy(t));
    free(buf);
    PE_OK(sym_barrier_all());
}

ParameterizedTestParameters(coll_direct, algorithms_disagree)
{
    static sym_algorithm_t others[] = {SYM_ALGO_NAIVE, SYM_ALGO_TREE};
    return cr_make_param_array(sym_algorithm_t, others, 2);
}

ParameterizedTest(sym_algorithm_t *other, coll_direct, algorithms_disagree)
{
    run_pes(3, disagree_body, other);
}

/* A member killed at its second direct allreduce: every survivor reports
 * it lost (no hang, no crash), whether the data would have been staged or
 * read by cross-memory attach. */
static void killed_body(int me, int n, void *arg)
{
    (void)n;
    (void)arg;
    PE_OK(sym_team_set_timeout(sym_team_world(), 30.0));
    PE_OK(direct_allreduce(sym_team_world(), 50000, 3));
    sym_status_t st = direct_allreduce(sym_team_world(), 50000, 4);
    PE_ASSERT(me != 1, "the killed PE returned");
    PE_ASSERT(st == SYM_ERR_PEER_LOST, "PE %d: %s: %s", me, sym_status_name(st), sym_last_error());
    PE_ASSERT(strstr(sym_last_error(), "PE 1"), "PE %d does not name PE 1: %s", me,
              sym_last_error());
    _exit(0);
}

ParameterizedTestParameters(coll_direct, member_killed)
{
    static int cma[] = {0, 1};
    return cr_make_param_array(int, cma, 2);
}

ParameterizedTest(int *cma, coll_direct, member_killed)
{
    const char *const env[] = {"SYMHEAP_FAULT=kill:pe=1:op=allreduce:count=2",
                               *cma ? "SYMHEAP_CMA=on" : "SYMHEAP_CMA=off", NULL};
    struct pe_job job = {.npes = 3, .body = killed_body, .env = env};
    struct pe_outcome out;
    pe_job_run(&job, &out);
    cr_assert(!out.timed_out, "the job hung");
    cr_assert(out.term_signal[1] == 9, "PE 1 was not killed (exit %d)", out.exit_code[1]);
    cr_assert(out.exit_code[0] == 0 && out.exit_code[2] == 0, "a survivor failed (%d, %d)",
              out.exit_code[0], out.exit_code[2]);
    cr_assert(out.leftover_objects == 0, "the job left %d objects", out.leftover_objects);
}

/* Two disjoint teams, each running direct collectives at the same time with
 * its own data: neither sees the other's. */
static void disjoint_body(int me, int n, void *arg)
{
    (void)arg;
    sym_team_t mine = SYM_TEAM_INVALID, other = SYM_TEAM_INVALID;
    const int half = n / 2;
    PE_OK(sym_team_split_strided(sym_team_world(), 0, 1, half, me < half ? &mine : &other));
    PE_OK(sym_team_split_strided(sym_team_world(), half, 1, n - half, me < half ? &other : &mine));
    PE_ASSERT(mine != SYM_TEAM_INVALID && other == SYM_TEAM_INVALID, "PE %d: teams", me);
    for (int k = 0; k < 6; k++)
        PE_OK(direct_allreduce(mine, 20000 + (size_t)k * 999, k + (me < half ? 0 : 100)));
    PE_OK(sym_team_destroy(mine));
}

Test(coll_direct, disjoint_teams)
{
    static const char *const env[] = {"SYMHEAP_CMA=on", NULL};
    run_pes_env(4, env, disjoint_body, NULL);
}
