#!/usr/bin/env python3
"""Generate the OpenSHMEM 1.5 header check: a C program that references
every routine of the specification (so each must be declared by shmem.h
and exported by the library) and checks that each C11 generic selection
resolves for each standard type.

The name lists below are written from the specification's tables, not
from shmem.h, so the check is independent of the header's type table.
Usage: gen_header_check.py OUTPUT.c
"""
import sys

# Table: standard RMA types (TYPE, TYPENAME)
RMA = [("float", "float"), ("double", "double"), ("long double", "longdouble"),
       ("char", "char"), ("signed char", "schar"), ("short", "short"), ("int", "int"),
       ("long", "long"), ("long long", "longlong"), ("unsigned char", "uchar"),
       ("unsigned short", "ushort"), ("unsigned int", "uint"), ("unsigned long", "ulong"),
       ("unsigned long long", "ulonglong"), ("int8_t", "int8"), ("int16_t", "int16"),
       ("int32_t", "int32"), ("int64_t", "int64"), ("uint8_t", "uint8"),
       ("uint16_t", "uint16"), ("uint32_t", "uint32"), ("uint64_t", "uint64"),
       ("size_t", "size"), ("ptrdiff_t", "ptrdiff")]
# Standard AMO types, extended AMO types, bitwise AMO types
AMO = ["int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64",
       "uint32", "uint64", "size", "ptrdiff"]
AMOX = AMO + ["float", "double"]
BIT = ["uint", "ulong", "ulonglong", "int32", "int64", "uint32", "uint64"]
# Point-to-point synchronization types
P2P = ["int", "long", "longlong", "uint", "ulong", "ulonglong", "int32", "int64",
       "uint32", "uint64", "size", "ptrdiff"]
# Reduction types
RBIT = ["uchar", "ushort", "uint", "ulong", "ulonglong", "int8", "int16", "int32", "int64",
        "uint8", "uint16", "uint32", "uint64", "size"]
RMM = ["char", "schar", "short", "int", "long", "longlong", "ptrdiff", "uchar", "ushort",
       "uint", "ulong", "ulonglong", "int8", "int16", "int32", "int64", "uint8", "uint16",
       "uint32", "uint64", "size", "float", "double", "longdouble"]
RSUM = RMM + ["complexd", "complexf"]
# Deprecated active-set reductions
TOALL_BIT = ["short", "int", "long", "longlong"]
TOALL_MM = TOALL_BIT + ["float", "double", "longdouble"]
TOALL_SUM = TOALL_MM + ["complexd", "complexf"]
SIZES = ["8", "16", "32", "64", "128"]

names = []


def both(name):
    names.append("shmem_" + name)
    names.append("shmem_ctx_" + name)


names += ["shmem_init", "shmem_init_thread", "shmem_query_thread", "shmem_finalize",
          "shmem_global_exit", "shmem_my_pe", "shmem_n_pes", "shmem_pe_accessible",
          "shmem_addr_accessible", "shmem_ptr", "shmem_info_get_version",
          "shmem_info_get_name", "shmem_malloc", "shmem_free", "shmem_realloc",
          "shmem_align", "shmem_malloc_with_hints", "shmem_calloc", "shmem_team_my_pe",
          "shmem_team_n_pes", "shmem_team_get_config", "shmem_team_translate_pe",
          "shmem_team_split_strided", "shmem_team_split_2d", "shmem_team_destroy",
          "shmem_ctx_create", "shmem_team_create_ctx", "shmem_ctx_destroy",
          "shmem_ctx_get_team", "shmem_signal_fetch", "shmem_signal_wait_until",
          "shmem_barrier_all", "shmem_barrier", "shmem_sync_all", "shmem_sync",
          "shmem_team_sync", "shmem_broadcastmem", "shmem_collectmem", "shmem_fcollectmem",
          "shmem_alltoallmem", "shmem_alltoallsmem", "shmem_fence", "shmem_quiet",
          "shmem_ctx_fence", "shmem_ctx_quiet", "shmem_set_lock", "shmem_clear_lock",
          "shmem_test_lock", "shmem_pcontrol", "shmem_team_ptr",
          # deprecated
          "start_pes", "_my_pe", "_num_pes", "shmalloc", "shfree", "shrealloc",
          "shmemalign", "shmem_clear_cache_inv", "shmem_set_cache_inv",
          "shmem_clear_cache_line_inv", "shmem_set_cache_line_inv", "shmem_udcflush",
          "shmem_udcflush_line"]
for op in ["putmem", "getmem", "putmem_nbi", "getmem_nbi", "putmem_signal",
           "putmem_signal_nbi"]:
    both(op)
for s in SIZES:
    for op in ["put%s", "get%s", "iput%s", "iget%s", "put%s_nbi", "get%s_nbi",
               "put%s_signal", "put%s_signal_nbi"]:
        both(op % s)
for s in ["32", "64"]:
    for op in ["broadcast", "collect", "fcollect", "alltoall", "alltoalls"]:
        names.append("shmem_%s%s" % (op, s))
for _, n in RMA:
    for op in ["put", "p", "iput", "get", "g", "iget", "put_nbi", "get_nbi", "put_signal",
               "put_signal_nbi"]:
        both("%s_%s" % (n, op))
    for op in ["broadcast", "collect", "fcollect", "alltoall", "alltoalls"]:
        names.append("shmem_%s_%s" % (n, op))
for n in AMO:
    for op in ["atomic_compare_swap", "atomic_fetch_inc", "atomic_inc", "atomic_fetch_add",
               "atomic_add", "atomic_compare_swap_nbi", "atomic_fetch_inc_nbi",
               "atomic_fetch_add_nbi"]:
        both("%s_%s" % (n, op))
for n in ["int", "long", "longlong"]:
    for op in ["cswap", "finc", "inc", "fadd", "add"]:
        names.append("shmem_%s_%s" % (n, op))
for n in AMOX:
    for op in ["atomic_fetch", "atomic_set", "atomic_swap", "atomic_fetch_nbi",
               "atomic_swap_nbi"]:
        both("%s_%s" % (n, op))
for n in ["int", "long", "longlong", "float", "double"]:
    for op in ["fetch", "set", "swap"]:
        names.append("shmem_%s_%s" % (n, op))
for n in BIT:
    for op in ["and", "or", "xor"]:
        for form in ["atomic_fetch_%s", "atomic_%s", "atomic_fetch_%s_nbi"]:
            both("%s_%s" % (n, form % op))
for n in P2P:
    for op in ["wait_until", "wait_until_all", "wait_until_any", "wait_until_some",
               "wait_until_all_vector", "wait_until_any_vector", "wait_until_some_vector",
               "test", "test_all", "test_any", "test_some", "test_all_vector",
               "test_any_vector", "test_some_vector"]:
        names.append("shmem_%s_%s" % (n, op))
for n in ["short", "int", "long", "longlong"]:
    names.append("shmem_%s_wait" % n)
for n in RBIT:
    for op in ["and", "or", "xor"]:
        names.append("shmem_%s_%s_reduce" % (n, op))
for n in RMM:
    for op in ["max", "min"]:
        names.append("shmem_%s_%s_reduce" % (n, op))
for n in RSUM:
    for op in ["sum", "prod"]:
        names.append("shmem_%s_%s_reduce" % (n, op))
for n in TOALL_BIT:
    for op in ["and", "or", "xor"]:
        names.append("shmem_%s_%s_to_all" % (n, op))
for n in TOALL_MM:
    for op in ["max", "min"]:
        names.append("shmem_%s_%s_to_all" % (n, op))
for n in TOALL_SUM:
    for op in ["sum", "prod"]:
        names.append("shmem_%s_%s_to_all" % (n, op))

# The C types the generic selections list (distinct types only).
GEN_RMA = ["float", "double", "long double", "char", "signed char", "short", "int", "long",
           "long long", "unsigned char", "unsigned short", "unsigned int", "unsigned long",
           "unsigned long long"]
GEN_AMO = ["int", "long", "long long", "unsigned int", "unsigned long", "unsigned long long"]
GEN_AMOX = GEN_AMO + ["float", "double"]
GEN_BIT = ["unsigned int", "unsigned long", "unsigned long long", "int32_t", "int64_t"]
GEN_P2P = GEN_AMO
GEN_RBIT = ["unsigned char", "unsigned short", "unsigned int", "unsigned long",
            "unsigned long long", "int8_t", "int16_t", "int32_t", "int64_t"]
GEN_RMM = GEN_RMA
GEN_RSUM = GEN_RMA + ["double _Complex", "float _Complex"]

out = []
w = out.append
w("/* Generated by gen_header_check.py: do not edit. */")
w("#include <shmem.h>")
w("#include <pshmem.h>")
w("#include <stdio.h>")
w("#include <string.h>")
w("")
w("typedef void (*any_fn)(void);")
w("static const any_fn routines[] = {")
for n in names:
    w("    (any_fn)%s," % n)
w("};")
w("")
w("/* The profiling interface: every routine under its pshmem_ (deprecated")
w(" * names: p) name as well. */")
w("static const any_fn profiled[] = {")
for n in names:
    w("    (any_fn)p%s," % n)
w("};")
w("")
w("/* Value-returning generics: the call's type is the element type. */")
w("#define RET_IS(expr, T) _Static_assert(_Generic((expr), T: 1, default: 0), #expr \" is not \" #T)")
for i, t in enumerate(GEN_RMA):
    w("RET_IS(shmem_g((%s *)0, 0), %s);" % (t, t))
    w("RET_IS(shmem_g((const %s *)0, 0), %s);" % (t, t))
    w("RET_IS(shmem_g(SHMEM_CTX_DEFAULT, (%s *)0, 0), %s);" % (t, t))
for t in GEN_AMOX:
    w("RET_IS(shmem_atomic_fetch((const %s *)0, 0), %s);" % (t, t))
    w("RET_IS(shmem_atomic_swap(SHMEM_CTX_DEFAULT, (%s *)0, (%s)0, 0), %s);" % (t, t, t))
for t in GEN_AMO:
    w("RET_IS(shmem_atomic_fetch_add((%s *)0, (%s)1, 0), %s);" % (t, t, t))
    w("RET_IS(shmem_atomic_fetch_inc(SHMEM_CTX_DEFAULT, (%s *)0, 0), %s);" % (t, t))
    w("RET_IS(shmem_atomic_compare_swap((%s *)0, (%s)0, (%s)1, 0), %s);" % (t, t, t, t))
    w("RET_IS(shmem_test((%s *)0, SHMEM_CMP_EQ, (%s)0), int);" % (t, t))
    w("RET_IS(shmem_wait_until_any((%s *)0, 0, NULL, SHMEM_CMP_EQ, (%s)0), size_t);" % (t, t))
for t in GEN_BIT:
    w("RET_IS(shmem_atomic_fetch_xor((%s *)0, (%s)1, 0), %s);" % (t, t, t))
    w("RET_IS(shmem_atomic_fetch_and(SHMEM_CTX_DEFAULT, (%s *)0, (%s)1, 0), %s);" % (t, t, t))
for t in GEN_RBIT:
    w("RET_IS(shmem_xor_reduce(SHMEM_TEAM_WORLD, (%s *)0, (%s *)0, 0), int);" % (t, t))
for t in GEN_RSUM:
    w("RET_IS(shmem_sum_reduce(SHMEM_TEAM_WORLD, (%s *)0, (%s *)0, 0), int);" % (t, t))
w("")
w("static int failures;")
w("#define EXPECT(c) do { if (!(c)) { failures++; fprintf(stderr, \"PE %d: %s:%d: %s\\n\", shmem_my_pe(), __FILE__, __LINE__, #c); } } while (0)")
w("")
w("/* Void generics, run on this PE's own memory: a selection of a smaller")
w(" * type would move fewer bytes and fail the comparison. */")
for i, t in enumerate(GEN_RMA):
    w("static void rma_%d(void *buf)" % i)
    w("{")
    w("    %s *a = buf, *b = a + 4, *c = a + 8, l[4];" % t)
    w("    int me = shmem_my_pe();")
    w("    memset(buf, 0, 16 * sizeof(%s));" % t)
    w("    for (int k = 0; k < 4; k++) a[k] = (%s)(k + 1);" % t)
    w("    shmem_put(b, a, 4, me); shmem_quiet(); EXPECT(memcmp(a, b, sizeof l) == 0);")
    w("    memset(b, 0, sizeof l); shmem_put(SHMEM_CTX_DEFAULT, b, a, 4, me); shmem_quiet(); EXPECT(memcmp(a, b, sizeof l) == 0);")
    w("    memset(b, 0, sizeof l); shmem_put_nbi(b, a, 4, me); shmem_quiet(); EXPECT(memcmp(a, b, sizeof l) == 0);")
    w("    memset(l, 0, sizeof l); shmem_get(l, a, 4, me); EXPECT(memcmp(a, l, sizeof l) == 0);")
    w("    memset(l, 0, sizeof l); shmem_get_nbi(SHMEM_CTX_DEFAULT, l, a, 4, me); shmem_quiet(); EXPECT(memcmp(a, l, sizeof l) == 0);")
    w("    memset(b, 0, sizeof l); shmem_iput(b, a, 1, 1, 4, me); shmem_quiet(); EXPECT(memcmp(a, b, sizeof l) == 0);")
    w("    memset(l, 0, sizeof l); shmem_iget(l, a, 1, 1, 4, me); EXPECT(memcmp(a, l, sizeof l) == 0);")
    w("    shmem_p(c, a[3], me); shmem_quiet(); EXPECT(*c == a[3]);")
    w("    uint64_t *sig = (uint64_t *)((char *)buf + 512);")
    w("    memset(b, 0, sizeof l); shmem_put_signal(b, a, 4, sig, 1, SHMEM_SIGNAL_SET, me); shmem_quiet(); EXPECT(memcmp(a, b, sizeof l) == 0 && *sig == 1);")
    w("    memset(b, 0, sizeof l); shmem_put_signal_nbi(SHMEM_CTX_DEFAULT, b, a, 4, sig, 1, SHMEM_SIGNAL_ADD, me); shmem_quiet(); EXPECT(memcmp(a, b, sizeof l) == 0 && *sig == 2);")
    w("    shmem_barrier_all();")
    w("    EXPECT(shmem_broadcast(SHMEM_TEAM_WORLD, b, a, 4, 0) == 0);")
    w("    EXPECT(shmem_fcollect(SHMEM_TEAM_WORLD, c, a, 1) == 0);")
    w("    EXPECT(shmem_collect(SHMEM_TEAM_WORLD, c, a, 1) == 0);")
    w("    EXPECT(shmem_alltoall(SHMEM_TEAM_WORLD, c, a, 0) == 0);")
    w("    EXPECT(shmem_alltoalls(SHMEM_TEAM_WORLD, c, a, 1, 1, 0) == 0);")
    w("    EXPECT(shmem_max_reduce(SHMEM_TEAM_WORLD, c, a, 4) == 0 && memcmp(c, a, sizeof l) == 0);")
    w("    EXPECT(shmem_min_reduce(SHMEM_TEAM_WORLD, c, a, 4) == 0 && memcmp(c, a, sizeof l) == 0);")
    w("    EXPECT(shmem_prod_reduce(SHMEM_TEAM_WORLD, c, a, 0) == 0);")
    w("    shmem_barrier_all();")
    w("}")
for i, t in enumerate(GEN_AMO):
    w("static void amo_%d(void *buf)" % i)
    w("{")
    w("    %s *x = buf; int me = shmem_my_pe();" % t)
    w("    memset(x, 0, 8 * sizeof *x);")
    w("    shmem_atomic_add(x, (%s)2, me); shmem_atomic_inc(SHMEM_CTX_DEFAULT, x, me);" % t)
    w("    shmem_atomic_set(x + 1, (%s)5, me); shmem_add(x, (%s)1, me); shmem_inc(x, me);" % (t, t))
    w("    %s f; shmem_atomic_fetch_add_nbi(&f, x, (%s)0, me); shmem_atomic_fetch_inc_nbi(SHMEM_CTX_DEFAULT, &f, x + 2, me);" % (t, t))
    w("    shmem_atomic_compare_swap_nbi(&f, x + 3, (%s)0, (%s)1, me); shmem_quiet();" % (t, t))
    w("    EXPECT(x[0] == 5 && x[1] == 5 && x[2] == 1 && x[3] == 1);")
    w("    EXPECT(shmem_fadd(x, (%s)1, me) == 5 && shmem_finc(x, me) == 6 && shmem_cswap(x, (%s)7, (%s)0, me) == 7);" % (t, t, t))
    w("    EXPECT(shmem_fetch(x + 1, me) == 5); shmem_set(x + 1, (%s)6, me); EXPECT(shmem_swap(x + 1, (%s)0, me) == 6);" % (t, t))
    w("    shmem_wait_until(x, SHMEM_CMP_EQ, (%s)0); EXPECT(shmem_test(x, SHMEM_CMP_EQ, (%s)0));" % (t, t))
    w("    shmem_wait_until_all(x, 2, NULL, SHMEM_CMP_EQ, (%s)0); EXPECT(shmem_test_all(x, 2, NULL, SHMEM_CMP_EQ, (%s)0));" % (t, t))
    w("    size_t idx[4]; %s v[2] = {0, 0};" % t)
    w("    EXPECT(shmem_wait_until_some(x, 2, idx, NULL, SHMEM_CMP_EQ, (%s)0) == 2 && shmem_test_some(x, 2, idx, NULL, SHMEM_CMP_EQ, (%s)0) == 2);" % (t, t))
    w("    /* both words satisfied: either index (the scans rotate for fairness) */")
    w("    EXPECT(shmem_test_any(x, 2, NULL, SHMEM_CMP_EQ, (%s)0) < 2);" % t)
    w("    shmem_wait_until_all_vector(x, 2, NULL, SHMEM_CMP_EQ, v); EXPECT(shmem_wait_until_any_vector(x, 2, NULL, SHMEM_CMP_EQ, v) < 2);")
    w("    EXPECT(shmem_wait_until_some_vector(x, 2, idx, NULL, SHMEM_CMP_EQ, v) == 2 && shmem_test_all_vector(x, 2, NULL, SHMEM_CMP_EQ, v));")
    w("    EXPECT(shmem_test_any_vector(x, 2, NULL, SHMEM_CMP_EQ, v) < 2 && shmem_test_some_vector(x, 2, idx, NULL, SHMEM_CMP_EQ, v) == 2);")
    w("    shmem_wait(x + 2, (%s)0);" % t)
    w("    shmem_barrier_all();")
    w("    EXPECT(shmem_sum_reduce(SHMEM_TEAM_WORLD, x + 4, x + 2, 1) == 0 && x[4] == (%s)shmem_n_pes());" % t)
    w("    shmem_barrier_all();")
    w("}")
for i, t in enumerate(["float", "double"]):
    w("static void amox_%d(void *buf)" % i)
    w("{")
    w("    %s *x = buf; int me = shmem_my_pe();" % t)
    w("    shmem_atomic_set(x, (%s)1.5, me); EXPECT(shmem_atomic_fetch(x, me) == (%s)1.5);" % (t, t))
    w("    EXPECT(shmem_atomic_swap(x, (%s)2.5, me) == (%s)1.5);" % (t, t))
    w("    %s f = 0; shmem_atomic_swap_nbi(&f, x, (%s)3.5, me); shmem_atomic_fetch_nbi(SHMEM_CTX_DEFAULT, x + 1, x, me); shmem_quiet();" % (t, t))
    w("    EXPECT(f == (%s)2.5 && x[1] == (%s)3.5);" % (t, t))
    w("}")
for i, t in enumerate(GEN_BIT):
    w("static void bit_%d(void *buf)" % i)
    w("{")
    w("    %s *x = buf, f; int me = shmem_my_pe();" % t)
    w("    *x = 0; shmem_atomic_or(x, (%s)6, me); shmem_atomic_and(SHMEM_CTX_DEFAULT, x, (%s)3, me); shmem_atomic_xor(x, (%s)1, me);" % (t, t, t))
    w("    EXPECT(*x == 3 && shmem_atomic_fetch_or(x, (%s)8, me) == 3);" % t)
    w("    shmem_atomic_fetch_and_nbi(&f, x, (%s)8, me); shmem_atomic_fetch_or_nbi(&f, x, (%s)0, me); shmem_atomic_fetch_xor_nbi(&f, x, (%s)8, me); shmem_quiet();" % (t, t, t))
    w("    EXPECT(f == 8 && *x == 0);")
    w("    shmem_barrier_all();")
    w("    x[1] = (%s)5; EXPECT(shmem_and_reduce(SHMEM_TEAM_WORLD, x + 2, x + 1, 1) == 0 && x[2] == 5);" % t)
    w("    EXPECT(shmem_or_reduce(SHMEM_TEAM_WORLD, x + 2, x + 1, 1) == 0 && x[2] == 5);")
    w("    shmem_barrier_all();")
    w("}")
w("")
w("int main(void)")
w("{")
w("    shmem_init();")
w("    size_t n = sizeof routines / sizeof routines[0];")
w("    for (size_t i = 0; i < n; i++)")
w("        EXPECT(routines[i] != NULL && profiled[i] != NULL);")
w("    void *buf = shmem_calloc(64, 16);")
for i in range(len(GEN_RMA)):
    w("    rma_%d(buf);" % i)
for i in range(len(GEN_AMO)):
    w("    amo_%d(buf);" % i)
for i in range(2):
    w("    amox_%d(buf);" % i)
for i in range(len(GEN_BIT)):
    w("    bit_%d(buf);" % i)
w("    shmem_free(buf);")
w("    if (shmem_my_pe() == 0)")
w("        printf(\"header check: %zu routines linked, generics resolved, %d failures\\n\", n, failures);")
w("    shmem_finalize();")
w("    return failures != 0;")
w("}")
with open(sys.argv[1], "w") as f:
    f.write("\n".join(out) + "\n")
