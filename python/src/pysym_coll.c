/*
 * pysym_coll.c - the collectives of symheap._symheap on any C-contiguous
 * array (symmetric or not), with the team, algorithm and timeout of each
 * call.  One Python function per row of the library's list of collectives
 * (src/coll/coll_list.h) that has a non-blocking variant, as request.c
 * makes the sym_i* wrappers: the row's argument shape gives the Python
 * signature and the call.  Element counts come from the arrays: the checks
 * here name the argument whose size does not fit before any PE enters the
 * collective.
 */
#include <stdlib.h>
#include <time.h>

#include "pysym.h"

#include "coll_list.h"

/* A row's argument shape (coll_list.h), as far as Python sees it. */
enum shape {
    SH_BARRIER,
    SH_BROADCAST,
    SH_ROOTED_REDUCTION,
    SH_REDUCTION,
    SH_MOVE,
    SH_ROOTED_MOVE,
    SH_GATHERV,
    SH_ALL_TO_ALLV,
    SH_BROADCAST_V,
    SH_COUNT
};

/* How a collective's element count follows from its arrays' sizes, n
 * being the team's size: SAME (dst and src alike, the count), DST_BLOCKS
 * (dst n times src; the count is src's), SRC_BLOCKS (src n times dst; the
 * count is dst's), BLOCKS (dst and src alike, n blocks of the count). */
enum layout { SAME, DST_BLOCKS, SRC_BLOCKS, BLOCKS };

/* Where a shape leaves the layout open, each collective names its own: a
 * row added to coll_list.h with one of these shapes needs a line here. */
#define PYSYM_LAYOUT_allreduce      SAME
#define PYSYM_LAYOUT_reduce_scatter SRC_BLOCKS
#define PYSYM_LAYOUT_all_gather     DST_BLOCKS
#define PYSYM_LAYOUT_all_to_all     BLOCKS
#define PYSYM_LAYOUT_gather         DST_BLOCKS
#define PYSYM_LAYOUT_scatter        SRC_BLOCKS

typedef void (*any_fn)(void);

struct coll {
    const char *name;
    enum shape shape;
    enum layout layout;
    any_fn fn; /* sym_<name>, called as its shape's type */
};

#define PYSYM_ENTRY(name, SHAPE, layout)   {#name, SH_##SHAPE, layout, (any_fn)sym_##name},
#define PYSYM_SHAPE_BARRIER(name)          PYSYM_ENTRY(name, BARRIER, SAME)
#define PYSYM_SHAPE_BROADCAST(name)        PYSYM_ENTRY(name, BROADCAST, SAME)
#define PYSYM_SHAPE_ROOTED_REDUCTION(name) PYSYM_ENTRY(name, ROOTED_REDUCTION, SAME)
#define PYSYM_SHAPE_REDUCTION(name)        PYSYM_ENTRY(name, REDUCTION, PYSYM_LAYOUT_##name)
#define PYSYM_SHAPE_MOVE(name)             PYSYM_ENTRY(name, MOVE, PYSYM_LAYOUT_##name)
#define PYSYM_SHAPE_ROOTED_MOVE(name)      PYSYM_ENTRY(name, ROOTED_MOVE, PYSYM_LAYOUT_##name)
#define PYSYM_SHAPE_GATHERV(name)          PYSYM_ENTRY(name, GATHERV, SAME)
#define PYSYM_SHAPE_ALL_TO_ALLV(name)      PYSYM_ENTRY(name, ALL_TO_ALLV, SAME)
#define PYSYM_SHAPE_BROADCAST_V(name)      PYSYM_ENTRY(name, BROADCAST_V, SAME)
#define PYSYM_SHAPE_NONE(name)

/* The columns of a coll_list.h row used here, by name: a column added to
 * the list changes this line only. */
#define PYSYM_ROW_(KIND, name, env, algos, shape, ...) PYSYM_SHAPE_##shape(name)
static const struct coll colls[] = {SYM_COLL_LIST(PYSYM_ROW_)};
#undef PYSYM_ROW_
#define N_COLLS (sizeof(colls) / sizeof(colls[0]))

/* What an argument of a Python signature is. */
enum role {
    R_DST,
    R_SRC,
    R_OP,
    R_ROOT,
    R_COUNTS,
    R_RECV_COUNTS,
    R_SEND_COUNTS,
    R_COUNT,
    R_TEAM,
    R_ALGO,
    R_TIMEOUT,
    R_END
};

struct signature {
    const char *kw[8];
    enum role role[8]; /* up to R_END */
    int required;
    const char *doc; /* the arguments, for the docstring */
};

static const struct signature sigs[SH_COUNT] = {
    [SH_BARRIER] = {{"team", "algorithm", "timeout"},
                    {R_TEAM, R_ALGO, R_TIMEOUT, R_END},
                    0,
                    "(team=None, algorithm=None, timeout=0)"},
    [SH_BROADCAST] = {{"buf", "root", "team", "algorithm", "timeout"},
                      {R_DST, R_ROOT, R_TEAM, R_ALGO, R_TIMEOUT, R_END},
                      1,
                      "(buf, root=0, team=None, algorithm=None, timeout=0)"},
    [SH_ROOTED_REDUCTION] = {{"dst", "src", "op", "root", "team", "algorithm", "timeout"},
                             {R_DST, R_SRC, R_OP, R_ROOT, R_TEAM, R_ALGO, R_TIMEOUT, R_END},
                             2,
                             "(dst, src, op='sum', root=0, team=None, algorithm=None, "
                             "timeout=0); dst may be None off the root"},
    [SH_REDUCTION] = {{"dst", "src", "op", "team", "algorithm", "timeout"},
                      {R_DST, R_SRC, R_OP, R_TEAM, R_ALGO, R_TIMEOUT, R_END},
                      2,
                      "(dst, src, op='sum', team=None, algorithm=None, timeout=0)"},
    [SH_MOVE] = {{"dst", "src", "team", "algorithm", "timeout"},
                 {R_DST, R_SRC, R_TEAM, R_ALGO, R_TIMEOUT, R_END},
                 2,
                 "(dst, src, team=None, algorithm=None, timeout=0)"},
    [SH_ROOTED_MOVE] = {{"dst", "src", "root", "team", "algorithm", "timeout"},
                        {R_DST, R_SRC, R_ROOT, R_TEAM, R_ALGO, R_TIMEOUT, R_END},
                        2,
                        "(dst, src, root=0, team=None, algorithm=None, timeout=0); the root's "
                        "n-block array may be None off the root"},
    [SH_GATHERV] = {{"dst", "src", "counts", "team", "algorithm", "timeout"},
                    {R_DST, R_SRC, R_COUNTS, R_TEAM, R_ALGO, R_TIMEOUT, R_END},
                    3,
                    "(dst, src, counts, team=None, algorithm=None, timeout=0)"},
    [SH_ALL_TO_ALLV] = {{"dst", "recv_counts", "src", "send_counts", "team", "algorithm",
                         "timeout"},
                        {R_DST, R_RECV_COUNTS, R_SRC, R_SEND_COUNTS, R_TEAM, R_ALGO, R_TIMEOUT,
                         R_END},
                        4,
                        "(dst, recv_counts, src, send_counts, team=None, algorithm=None, "
                        "timeout=0)"},
    [SH_BROADCAST_V] = {{"buf", "count", "root", "team", "algorithm", "timeout"},
                        {R_DST, R_COUNT, R_ROOT, R_TEAM, R_ALGO, R_TIMEOUT, R_END},
                        1,
                        "(buf, count=None, root=0, team=None, algorithm=None, timeout=0) -> "
                        "elements received; the root sends its first `count` elements (all "
                        "of buf by default)"},
};

/* One call's arguments, by role. */
struct call {
    const struct coll *c;
    PyObject *arg[R_END];
    struct pysym_buf dst, src;
    int have_dst, have_src, is_bool;
    sym_team_t team;
    sym_datatype_t dt;
    sym_op_t op;
    int root, n, me;
    sym_coll_opts_t opts;
    size_t *counts, *counts2;
};

static void release(struct call *a)
{
    if (a->have_dst)
        pysym_array_release(&a->dst);
    if (a->have_src)
        pysym_array_release(&a->src);
    free(a->counts);
    free(a->counts2);
}

static size_t elems(const struct pysym_buf *v)
{
    return (size_t)(v->len / v->itemsize);
}

static int setup(struct call *a, PyObject *team, PyObject *algo, double timeout)
{
    if (pysym_team(team, &a->team) < 0 || pysym_algorithm(algo, &a->opts.algorithm) < 0)
        return -1;
    if (timeout < 0) {
        PyErr_SetString(PyExc_ValueError, "symheap: timeout must be >= 0 seconds (0: the team's)");
        return -1;
    }
    a->opts.timeout_s = timeout;
    a->n = sym_team_n_pes(a->team);
    if (a->n <= 0) {
        pysym_raise(sym_set_error(SYM_ERR_INVALID_ARG,
                                  "symheap: team %s is not a valid team "
                                  "(destroyed, or not initialised)",
                                  sym_team_name(a->team)));
        return -1;
    }
    a->me = sym_team_my_pe(a->team);
    return 0;
}

/* Acquire dst (writable) and src, either may be None when `optional`; their
 * datatypes must agree. */
static int buffers(struct call *a, int dst_optional, int src_optional)
{
    PyObject *dst = a->arg[R_DST], *src = a->arg[R_SRC];
    const char *name = a->c->name;
    sym_datatype_t ddt = 0, sdt = 0;
    int dbool = 0, sbool = 0;
    if (dst && dst != Py_None) {
        if (pysym_array(dst, &a->dst, 1, a->c->shape == SH_BROADCAST ? "buf" : "dst") < 0)
            return -1;
        a->have_dst = 1;
        ddt = a->dst.dt, dbool = a->dst.is_bool;
    } else if (!dst_optional) {
        PyErr_Format(PyExc_TypeError, "symheap: %s: dst is required here", name);
        return -1;
    }
    if (src && src != Py_None) {
        if (pysym_array(src, &a->src, 0, "src") < 0)
            return -1;
        a->have_src = 1;
        sdt = a->src.dt, sbool = a->src.is_bool;
    } else if (!src_optional) {
        PyErr_Format(PyExc_TypeError, "symheap: %s: src is required here", name);
        return -1;
    }
    if (ddt && sdt && (ddt != sdt || dbool != sbool)) {
        PyErr_Format(PyExc_TypeError, "symheap: %s: dst (%s%s) and src (%s%s) differ in datatype",
                     name, dbool ? "bool/" : "", sym_datatype_name(ddt), sbool ? "bool/" : "",
                     sym_datatype_name(sdt));
        return -1;
    }
    a->dt = ddt ? ddt : sdt;
    a->is_bool = dbool || sbool;
    return 0;
}

/* A list of n non-negative counts, malloc'd, summing to *sum_p. */
static size_t *counts_of(PyObject *obj, int n, size_t *sum_p, const char *what)
{
    PyObject *seq = PySequence_Fast(obj, "symheap: counts must be a sequence of ints");
    if (!seq)
        return NULL;
    if (PySequence_Fast_GET_SIZE(seq) != n) {
        PyErr_Format(PyExc_ValueError, "symheap: %s has %zd entries, the team %d members", what,
                     PySequence_Fast_GET_SIZE(seq), n);
        Py_DECREF(seq);
        return NULL;
    }
    size_t *c = calloc((size_t)n + 1, sizeof(*c)), sum = 0;
    for (int i = 0; c && i < n; i++) {
        Py_ssize_t v = PyLong_AsSsize_t(PySequence_Fast_GET_ITEM(seq, i));
        if (v < 0) {
            if (!PyErr_Occurred())
                PyErr_Format(PyExc_ValueError, "symheap: %s[%d] is negative", what, i);
            free(c);
            Py_DECREF(seq);
            return NULL;
        }
        c[i] = (size_t)v, sum += (size_t)v;
    }
    Py_DECREF(seq);
    if (!c)
        PyErr_NoMemory();
    *sum_p = sum;
    return c;
}

/* The element count of an element-wise collective from its arrays (by its
 * layout), or -1 with a ValueError naming the misfit. */
static int element_count(struct call *a, size_t *count_p)
{
    size_t dn = a->have_dst ? elems(&a->dst) : 0, sn = a->have_src ? elems(&a->src) : 0;
    size_t n = (size_t)a->n, x = dn, y = sn;
    const char *misfit = NULL;
    if (a->c->shape == SH_BROADCAST) {
        *count_p = dn;
        return 0;
    }
    switch (a->c->layout) {
    case SAME:
        if (a->have_dst && dn != sn)
            misfit = "symheap: %s: dst has %zu elements, src %zu";
        *count_p = sn;
        break;
    case DST_BLOCKS:
        if (a->have_dst && dn != sn * n)
            misfit = "symheap: %s: dst has %zu elements, not team size x src's (%zu)", y = sn * n;
        *count_p = sn;
        break;
    case SRC_BLOCKS:
        if (a->have_src && sn != dn * n)
            misfit = "symheap: %s: src has %zu elements, not team size x dst's (%zu)", x = sn,
            y = dn * n;
        *count_p = dn;
        break;
    case BLOCKS:
        if (dn != sn || sn % n)
            misfit = "symheap: %s: dst (%zu elements) and src (%zu) must be equal multiples of "
                     "the team size";
        *count_p = sn / n;
        break;
    }
    if (misfit) {
        PyErr_Format(PyExc_ValueError, misfit, a->c->name, x, y);
        return -1;
    }
    return 0;
}

/* The v-variants' counts: checked against the arrays. */
static int v_counts(struct call *a)
{
    size_t sum, sum2 = 0;
    const char *name = a->c->name;
    if (a->c->shape == SH_GATHERV) {
        if (!(a->counts = counts_of(a->arg[R_COUNTS], a->n, &sum, "counts")))
            return -1;
        if (elems(&a->dst) != sum || elems(&a->src) != a->counts[a->me]) {
            PyErr_Format(PyExc_ValueError,
                         "symheap: %s: dst needs the sum of counts (%zu), src this member's "
                         "count (%zu)",
                         name, sum, a->counts[a->me]);
            return -1;
        }
        return 0;
    }
    if (!(a->counts = counts_of(a->arg[R_RECV_COUNTS], a->n, &sum, "recv_counts")) ||
        !(a->counts2 = counts_of(a->arg[R_SEND_COUNTS], a->n, &sum2, "send_counts")))
        return -1;
    if (elems(&a->dst) < sum || elems(&a->src) < sum2) {
        PyErr_Format(PyExc_ValueError,
                     "symheap: %s: dst needs sum(recv_counts) = %zu elements, src "
                     "sum(send_counts) = %zu",
                     name, sum, sum2);
        return -1;
    }
    return 0;
}

/* The call of each shape, as request.c runs them. */
typedef sym_status_t (*barrier_fn)(sym_team_t, const sym_coll_opts_t *);
typedef sym_status_t (*broadcast_fn)(sym_team_t, void *, size_t, sym_datatype_t, int,
                                     const sym_coll_opts_t *);
typedef sym_status_t (*rooted_reduction_fn)(sym_team_t, void *, const void *, size_t,
                                            sym_datatype_t, sym_op_t, int, const sym_coll_opts_t *);
typedef sym_status_t (*reduction_fn)(sym_team_t, void *, const void *, size_t, sym_datatype_t,
                                     sym_op_t, const sym_coll_opts_t *);
typedef sym_status_t (*move_fn)(sym_team_t, void *, const void *, size_t, sym_datatype_t,
                                const sym_coll_opts_t *);
typedef sym_status_t (*rooted_move_fn)(sym_team_t, void *, const void *, size_t, sym_datatype_t,
                                       int, const sym_coll_opts_t *);
typedef sym_status_t (*gatherv_fn)(sym_team_t, void *, const void *, const size_t *, sym_datatype_t,
                                   const sym_coll_opts_t *);
typedef sym_status_t (*all_to_allv_fn)(sym_team_t, const void *, const size_t *, void *,
                                       const size_t *, sym_datatype_t, const sym_coll_opts_t *);
typedef sym_status_t (*broadcast_v_fn)(sym_team_t, void *, size_t, size_t *, int,
                                       const sym_coll_opts_t *);

static sym_status_t invoke(struct call *a, size_t count, size_t *nbytes)
{
    void *d = a->have_dst ? a->dst.buf : NULL;
    const void *s = a->have_src ? a->src.buf : NULL;
    const sym_coll_opts_t *o = &a->opts;
    any_fn f = a->c->fn;
    switch (a->c->shape) {
    case SH_BARRIER:
        return ((barrier_fn)f)(a->team, o);
    case SH_BROADCAST:
        return ((broadcast_fn)f)(a->team, d, count, a->dt, a->root, o);
    case SH_ROOTED_REDUCTION:
        return ((rooted_reduction_fn)f)(a->team, d, s, count, a->dt, a->op, a->root, o);
    case SH_REDUCTION:
        return ((reduction_fn)f)(a->team, d, s, count, a->dt, a->op, o);
    case SH_MOVE:
        return ((move_fn)f)(a->team, d, s, count, a->dt, o);
    case SH_ROOTED_MOVE:
        return ((rooted_move_fn)f)(a->team, d, s, count, a->dt, a->root, o);
    case SH_GATHERV:
        return ((gatherv_fn)f)(a->team, d, s, a->counts, a->dt, o);
    case SH_ALL_TO_ALLV:
        return ((all_to_allv_fn)f)(a->team, s, a->counts2, d, a->counts, a->dt, o);
    case SH_BROADCAST_V:
        return ((broadcast_v_fn)f)(a->team, d, a->have_dst ? (size_t)a->dst.len : 0, nbytes,
                                   a->root, o);
    case SH_COUNT:
        break;
    }
    return SYM_ERR_INTERNAL;
}

/* An int argument (NULL or None: `dflt`); -1 with an exception set. */
static int int_arg(PyObject *obj, long dflt, long *v_p)
{
    *v_p = dflt;
    if (obj && obj != Py_None) {
        *v_p = PyLong_AsLong(obj);
        if (*v_p == -1 && PyErr_Occurred())
            return -1;
    }
    return 0;
}

/* broadcast_v: the root's byte count (its `count` elements, or all of buf). */
static int broadcast_v_bytes(struct call *a, size_t *nbytes_p)
{
    long count;
    size_t all = a->have_dst ? elems(&a->dst) : 0;
    if (int_arg(a->arg[R_COUNT], (long)all, &count) < 0)
        return -1;
    if (count < 0 || (size_t)count > all) {
        PyErr_Format(PyExc_ValueError, "symheap: %s: count %ld is outside buf's %zu elements",
                     a->c->name, count, all);
        return -1;
    }
    *nbytes_p = (size_t)count * (a->have_dst ? (size_t)a->dst.itemsize : 1);
    return 0;
}

/* Check a call's arguments (before any PE enters), run it without the
 * GIL, return None (or broadcast_v's element count) or raise. */
static PyObject *run(struct call *a)
{
    const struct coll *c = a->c;
    enum shape sh = c->shape;
    long root;
    double timeout = 0;
    if (int_arg(a->arg[R_ROOT], 0, &root) < 0)
        return NULL;
    a->root = (int)root;
    if (a->arg[R_TIMEOUT] && a->arg[R_TIMEOUT] != Py_None) {
        timeout = PyFloat_AsDouble(a->arg[R_TIMEOUT]);
        if (timeout == -1 && PyErr_Occurred())
            return NULL;
    }
    if (setup(a, a->arg[R_TEAM], a->arg[R_ALGO], timeout) < 0)
        return NULL;
    /* off the root, the root's whole array of a rooted collective may be
     * None: the reduction's or gather's dst, the scatter's src */
    int off_root = (sh == SH_ROOTED_REDUCTION || sh == SH_ROOTED_MOVE) && a->me != a->root;
    int src_whole = c->layout == SRC_BLOCKS;
    int no_src = sh == SH_BARRIER || sh == SH_BROADCAST || sh == SH_BROADCAST_V;
    if (sh != SH_BARRIER &&
        buffers(a, off_root && !src_whole, no_src || (off_root && src_whole)) < 0)
        return NULL;
    if ((sh == SH_ROOTED_REDUCTION || sh == SH_REDUCTION) &&
        pysym_op(a->arg[R_OP], a->is_bool, &a->op) < 0)
        return NULL;
    size_t count = 0, nbytes = 0;
    if (sh == SH_GATHERV || sh == SH_ALL_TO_ALLV) {
        if (v_counts(a) < 0)
            return NULL;
    } else if (sh == SH_BROADCAST_V) {
        if (a->me == a->root && broadcast_v_bytes(a, &nbytes) < 0)
            return NULL;
    } else if (sh != SH_BARRIER && element_count(a, &count) < 0) {
        return NULL;
    }
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = invoke(a, count, &nbytes);
    Py_END_ALLOW_THREADS
    if (st != SYM_OK)
        return pysym_raise(st);
    if (sh == SH_BROADCAST_V) {
        size_t size = a->have_dst ? (size_t)a->dst.itemsize : 1;
        if (nbytes % size)
            return PyErr_Format(PyExc_ValueError,
                                "symheap: %s: received %zu bytes, not a whole number of %zu-byte "
                                "elements (the root's array has another datatype)",
                                c->name, nbytes, size);
        return PyLong_FromSize_t(nbytes / size);
    }
    Py_RETURN_NONE;
}

/* Every collective's Python function: `self` is its index in colls. */
static PyObject *py_coll(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    struct call a = {.c = &colls[PyLong_AsSize_t(self)]};
    const struct signature *sg = &sigs[a.c->shape];
    PyObject *slots[8];
    int nslots = 0;
    while (sg->role[nslots] != R_END)
        nslots++;
    if (pysym_parse(args, nargs, kwnames, sg->kw, nslots, sg->required, a.c->name, slots) < 0)
        return NULL;
    for (int i = 0; i < nslots; i++)
        a.arg[sg->role[i]] = slots[i];
    PyObject *r = run(&a);
    release(&a);
    return r;
}

int pysym_coll_add(PyObject *m)
{
    static PyMethodDef defs[N_COLLS];
    static char docs[N_COLLS][320];
    PyObject *modname = PyModule_GetNameObject(m);
    PyObject *names = PyTuple_New((Py_ssize_t)N_COLLS);
    if (!modname || !names || PyModule_AddObject(m, "COLLECTIVES", names) < 0) {
        Py_XDECREF(modname);
        Py_XDECREF(names);
        return -1;
    }
    for (size_t i = 0; i < N_COLLS; i++) {
        PyObject *name = PyUnicode_FromString(colls[i].name);
        if (!name) {
            Py_DECREF(modname);
            return -1;
        }
        PyTuple_SET_ITEM(names, (Py_ssize_t)i, name);
        snprintf(docs[i], sizeof(docs[i]), "%s%s", colls[i].name, sigs[colls[i].shape].doc);
        defs[i] = (PyMethodDef){colls[i].name, (PyCFunction)(void (*)(void))py_coll,
                                METH_FASTCALL | METH_KEYWORDS, docs[i]};
        PyObject *index = PyLong_FromSize_t(i);
        PyObject *f = index ? PyCFunction_NewEx(&defs[i], index, modname) : NULL;
        Py_XDECREF(index);
        if (!f || PyModule_AddObject(m, colls[i].name, f) < 0) {
            Py_XDECREF(f);
            Py_DECREF(modname);
            return -1;
        }
    }
    Py_DECREF(modname);
    return 0;
}

static PyObject *py_barrier_all(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = sym_barrier_all();
    Py_END_ALLOW_THREADS
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

/* _native_allreduce_loop(dst, src, iters) -> seconds per call: the same
 * allreduce (sum, world team) as allreduce(dst, src) issued from C, to
 * measure what the Python layer adds per call. */
static PyObject *py_native_loop(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *dst, *src;
    long iters;
    if (!PyArg_ParseTuple(args, "OOl", &dst, &src, &iters))
        return NULL;
    static const struct coll loop = {"loop", SH_REDUCTION, SAME, NULL};
    struct call a = {.c = &loop, .arg = {[R_DST] = dst, [R_SRC] = src}};
    if (setup(&a, NULL, NULL, 0) < 0 || buffers(&a, 0, 0) < 0) {
        release(&a);
        return NULL;
    }
    sym_status_t st = SYM_OK;
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (long i = 0; i < iters && st == SYM_OK; i++)
        st = sym_allreduce(a.team, a.dst.buf, a.src.buf, elems(&a.src), a.dt, SYM_OP_SUM, NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    release(&a);
    if (st != SYM_OK)
        return pysym_raise(st);
    double sec = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    return PyFloat_FromDouble(sec / (double)(iters > 0 ? iters : 1));
}

PyMethodDef pysym_coll_methods[] = {
    {"barrier_all", py_barrier_all, METH_NOARGS, "Complete puts, then wait for every PE."},
    {"_native_allreduce_loop", py_native_loop, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
