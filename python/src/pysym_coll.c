/*
 * pysym_coll.c - the collectives of symheap._symheap on any C-contiguous
 * array (symmetric or not), with the team, algorithm and timeout of each
 * call.  Element counts come from the arrays: the checks here name the
 * argument whose size does not fit before any PE enters the collective.
 */
#include <stdlib.h>
#include <time.h>

#include "pysym.h"

enum coll_kind {
    C_BROADCAST,
    C_REDUCE,
    C_ALLREDUCE,
    C_REDUCE_SCATTER,
    C_ALL_GATHER,
    C_ALL_TO_ALL,
    C_GATHER,
    C_SCATTER,
};

struct coll_args {
    struct pysym_buf dst, src;
    int have_dst, have_src;
    sym_team_t team;
    sym_datatype_t dt;
    sym_op_t op;
    int root;
    sym_coll_opts_t opts;
    int n;
};

static void release(struct coll_args *a)
{
    if (a->have_dst)
        pysym_array_release(&a->dst);
    if (a->have_src)
        pysym_array_release(&a->src);
}

static int setup(struct coll_args *a, PyObject *team, PyObject *algo, double timeout)
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
    return 0;
}

/* Acquire dst (writable) and src, either may be None when `optional`; their
 * datatypes must agree; *is_bool_p tells bool data. */
static int buffers(struct coll_args *a, PyObject *dst, PyObject *src, int dst_optional,
                   int src_optional, const char *name, int *is_bool_p)
{
    sym_datatype_t ddt = 0, sdt = 0;
    int dbool = 0, sbool = 0;
    if (dst && dst != Py_None) {
        if (pysym_array(dst, &a->dst, 1, "dst") < 0)
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
    *is_bool_p = dbool || sbool;
    return 0;
}

static size_t elems(const struct pysym_buf *v)
{
    return (size_t)(v->len / v->itemsize);
}

static PyObject *finish(struct coll_args *a, sym_status_t st)
{
    release(a);
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

static PyObject *size_error(struct coll_args *a, const char *fmt, size_t x, size_t y)
{
    PyErr_Format(PyExc_ValueError, fmt, x, y);
    release(a);
    return NULL;
}

/* The element-wise collectives share one parser: (dst, src[, op][, root],
 * team, algorithm, timeout) by kind. */
static PyObject *coll(enum coll_kind kind, PyObject *const *args, Py_ssize_t nargs,
                      PyObject *kwnames)
{
    static const char *const kw_bcast[] = {"buf", "root", "team", "algorithm", "timeout"};
    static const char *const kw_reduce[] = {"dst",  "src",       "op",     "root",
                                            "team", "algorithm", "timeout"};
    static const char *const kw_red[] = {"dst", "src", "op", "team", "algorithm", "timeout"};
    static const char *const kw_move[] = {"dst", "src", "team", "algorithm", "timeout"};
    static const char *const kw_rooted[] = {"dst", "src", "root", "team", "algorithm", "timeout"};
    static const char *const names[] = {"broadcast",  "reduce",     "allreduce", "reduce_scatter",
                                        "all_gather", "all_to_all", "gather",    "scatter"};
    struct coll_args a = {0};
    PyObject *sl[7], *dst = NULL, *src = NULL, *op = NULL, *rootobj = NULL, *team, *algo, *tmo;
    double timeout = 0;
    int ok, is_bool = 0;
    switch (kind) {
    case C_BROADCAST:
        ok = pysym_parse(args, nargs, kwnames, kw_bcast, 5, 1, names[kind], sl) == 0;
        dst = sl[0], rootobj = sl[1], team = sl[2], algo = sl[3], tmo = sl[4];
        break;
    case C_REDUCE:
        ok = pysym_parse(args, nargs, kwnames, kw_reduce, 7, 2, names[kind], sl) == 0;
        dst = sl[0], src = sl[1], op = sl[2], rootobj = sl[3], team = sl[4], algo = sl[5];
        tmo = sl[6];
        break;
    case C_ALLREDUCE:
    case C_REDUCE_SCATTER:
        ok = pysym_parse(args, nargs, kwnames, kw_red, 6, 2, names[kind], sl) == 0;
        dst = sl[0], src = sl[1], op = sl[2], team = sl[3], algo = sl[4], tmo = sl[5];
        break;
    case C_GATHER:
    case C_SCATTER:
        ok = pysym_parse(args, nargs, kwnames, kw_rooted, 6, 2, names[kind], sl) == 0;
        dst = sl[0], src = sl[1], rootobj = sl[2], team = sl[3], algo = sl[4], tmo = sl[5];
        break;
    default:
        ok = pysym_parse(args, nargs, kwnames, kw_move, 5, 2, names[kind], sl) == 0;
        dst = sl[0], src = sl[1], team = sl[2], algo = sl[3], tmo = sl[4];
        break;
    }
    if (!ok)
        return NULL;
    if (rootobj && rootobj != Py_None) {
        a.root = (int)PyLong_AsLong(rootobj);
        if (a.root == -1 && PyErr_Occurred())
            return NULL;
    }
    if (tmo && tmo != Py_None) {
        timeout = PyFloat_AsDouble(tmo);
        if (timeout == -1 && PyErr_Occurred())
            return NULL;
    }
    if (!ok || setup(&a, team, algo, timeout) < 0)
        return NULL;
    int me = sym_team_my_pe(a.team), n = a.n;
    int at_root = me == a.root;
    sym_status_t st = SYM_OK;
    if (buffers(&a, dst, src,
                kind == C_BROADCAST || ((kind == C_REDUCE || kind == C_GATHER) && !at_root),
                kind == C_BROADCAST || (kind == C_SCATTER && !at_root), names[kind],
                &is_bool) < 0) {
        release(&a);
        return NULL;
    }
    if (op || kind == C_REDUCE || kind == C_ALLREDUCE || kind == C_REDUCE_SCATTER) {
        if (pysym_op(op, is_bool, &a.op) < 0) {
            release(&a);
            return NULL;
        }
    }
    void *d = a.have_dst ? a.dst.buf : NULL;
    const void *s = a.have_src ? a.src.buf : NULL;
    size_t dn = a.have_dst ? elems(&a.dst) : 0, sn = a.have_src ? elems(&a.src) : 0;
    size_t un = (size_t)n;
    /* the element counts each collective needs, checked before any PE
     * enters it */
    const char *misfit = NULL;
    size_t x = dn, y = sn;
    switch (kind) {
    case C_BROADCAST:
        break;
    case C_REDUCE:
    case C_ALLREDUCE:
        if ((d || kind == C_ALLREDUCE) && dn != sn)
            misfit = "symheap: %s: dst has %zu elements, src %zu";
        break;
    case C_REDUCE_SCATTER:
    case C_SCATTER:
        if ((s || kind == C_REDUCE_SCATTER) && sn != dn * un)
            misfit = "symheap: %s: src has %zu elements, not team size x dst's (%zu)", x = sn,
            y = dn * un;
        break;
    case C_ALL_GATHER:
    case C_GATHER:
        if ((d || kind == C_ALL_GATHER) && dn != sn * un)
            misfit = "symheap: %s: dst has %zu elements, not team size x src's (%zu)", y = sn * un;
        break;
    case C_ALL_TO_ALL:
        if (dn != sn || sn % un)
            misfit = "symheap: %s: dst (%zu elements) and src (%zu) must be equal multiples of "
                     "the team size";
        break;
    }
    if (misfit) {
        PyErr_Format(PyExc_ValueError, misfit, names[kind], x, y);
        release(&a);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    switch (kind) {
    case C_BROADCAST:
        st = sym_broadcast(a.team, d, dn, a.dt, a.root, &a.opts);
        break;
    case C_REDUCE:
        st = sym_reduce(a.team, d, s, sn, a.dt, a.op, a.root, &a.opts);
        break;
    case C_ALLREDUCE:
        st = sym_allreduce(a.team, d, s, sn, a.dt, a.op, &a.opts);
        break;
    case C_REDUCE_SCATTER:
        st = sym_reduce_scatter(a.team, d, s, dn, a.dt, a.op, &a.opts);
        break;
    case C_ALL_GATHER:
        st = sym_all_gather(a.team, d, s, sn, a.dt, &a.opts);
        break;
    case C_ALL_TO_ALL:
        st = sym_all_to_all(a.team, d, s, sn / un, a.dt, &a.opts);
        break;
    case C_GATHER:
        st = sym_gather(a.team, d, s, sn, a.dt, a.root, &a.opts);
        break;
    case C_SCATTER:
        st = sym_scatter(a.team, d, s, dn, a.dt, a.root, &a.opts);
        break;
    }
    Py_END_ALLOW_THREADS
    return finish(&a, st);
}

#define PYSYM_COLL_(name, kind)                                                                    \
    static PyObject *py_##name(PyObject *self, PyObject *const *args, Py_ssize_t nargs,            \
                               PyObject *kwnames)                                                  \
    {                                                                                              \
        (void)self;                                                                                \
        return coll(kind, args, nargs, kwnames);                                                   \
    }
PYSYM_COLL_(broadcast, C_BROADCAST)
PYSYM_COLL_(reduce, C_REDUCE)
PYSYM_COLL_(allreduce, C_ALLREDUCE)
PYSYM_COLL_(reduce_scatter, C_REDUCE_SCATTER)
PYSYM_COLL_(all_gather, C_ALL_GATHER)
PYSYM_COLL_(all_to_all, C_ALL_TO_ALL)
PYSYM_COLL_(gather, C_GATHER)
PYSYM_COLL_(scatter, C_SCATTER)
#undef PYSYM_COLL_

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

/* all_gatherv(dst, src, counts, team, algorithm, timeout) */
static PyObject *py_all_gatherv(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwl[] = {"dst", "src", "counts", "team", "algorithm", "timeout", NULL};
    struct coll_args a = {0};
    PyObject *dst, *src, *cobj, *team = NULL, *algo = NULL;
    double timeout = 0;
    int is_bool;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOO|OOd:all_gatherv", kwl, &dst, &src, &cobj, &team,
                                     &algo, &timeout) ||
        setup(&a, team, algo, timeout) < 0)
        return NULL;
    if (buffers(&a, dst, src, 0, 0, "all_gatherv", &is_bool) < 0) {
        release(&a);
        return NULL;
    }
    size_t sum, *c = counts_of(cobj, a.n, &sum, "counts");
    if (!c) {
        release(&a);
        return NULL;
    }
    int me = sym_team_my_pe(a.team);
    sym_status_t st;
    if (elems(&a.dst) != sum || elems(&a.src) != c[me]) {
        size_t mine = c[me];
        free(c);
        return size_error(&a,
                          "symheap: all_gatherv: dst needs the sum of counts (%zu), src "
                          "this member's count (%zu)",
                          sum, mine);
    }
    Py_BEGIN_ALLOW_THREADS
    st = sym_all_gatherv(a.team, a.dst.buf, a.src.buf, c, a.dt, &a.opts);
    Py_END_ALLOW_THREADS
    free(c);
    return finish(&a, st);
}

/* all_to_allv(dst, recv_counts, src, send_counts, team, algorithm, timeout) */
static PyObject *py_all_to_allv(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwl[] = {"dst",  "recv_counts", "src",     "send_counts",
                          "team", "algorithm",   "timeout", NULL};
    struct coll_args a = {0};
    PyObject *dst, *src, *robj, *sobj, *team = NULL, *algo = NULL;
    double timeout = 0;
    int is_bool;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "OOOO|OOd:all_to_allv", kwl, &dst, &robj, &src,
                                     &sobj, &team, &algo, &timeout) ||
        setup(&a, team, algo, timeout) < 0)
        return NULL;
    if (buffers(&a, dst, src, 0, 0, "all_to_allv", &is_bool) < 0) {
        release(&a);
        return NULL;
    }
    size_t rsum, ssum, *rc = counts_of(robj, a.n, &rsum, "recv_counts"), *sc = NULL;
    if (rc)
        sc = counts_of(sobj, a.n, &ssum, "send_counts");
    if (!sc) {
        free(rc);
        release(&a);
        return NULL;
    }
    sym_status_t st;
    if (elems(&a.dst) < rsum || elems(&a.src) < ssum) {
        free(rc), free(sc);
        return size_error(&a,
                          "symheap: all_to_allv: dst needs sum(recv_counts) = %zu "
                          "elements, src sum(send_counts) = %zu",
                          rsum, ssum);
    }
    Py_BEGIN_ALLOW_THREADS
    st = sym_all_to_allv(a.team, a.src.buf, sc, a.dst.buf, rc, a.dt, &a.opts);
    Py_END_ALLOW_THREADS
    free(rc), free(sc);
    return finish(&a, st);
}

/* barrier(team=None, algorithm=None, timeout=0) */
static PyObject *py_barrier(PyObject *self, PyObject *args, PyObject *kw)
{
    (void)self;
    static char *kwl[] = {"team", "algorithm", "timeout", NULL};
    struct coll_args a = {0};
    PyObject *team = NULL, *algo = NULL;
    double timeout = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OOd:barrier", kwl, &team, &algo, &timeout) ||
        setup(&a, team, algo, timeout) < 0)
        return NULL;
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = sym_barrier(a.team, &a.opts);
    Py_END_ALLOW_THREADS
    return finish(&a, st);
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
    struct coll_args a = {0};
    int is_bool;
    if (setup(&a, NULL, NULL, 0) < 0 || buffers(&a, dst, src, 0, 0, "loop", &is_bool) < 0) {
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

#define KW_ (PyCFunction)(void (*)(void))
PyMethodDef pysym_coll_methods[] = {
    {"barrier", KW_ py_barrier, METH_VARARGS | METH_KEYWORDS,
     "barrier(team=None, algorithm=None, timeout=0)"},
    {"barrier_all", py_barrier_all, METH_NOARGS, "Complete puts, then wait for every PE."},
    {"broadcast", KW_ py_broadcast, METH_FASTCALL | METH_KEYWORDS,
     "broadcast(buf, root=0, team=None, algorithm=None, timeout=0)"},
    {"reduce", KW_ py_reduce, METH_FASTCALL | METH_KEYWORDS,
     "reduce(dst, src, op='sum', root=0, team=None, algorithm=None, timeout=0); dst may be "
     "None off the root"},
    {"allreduce", KW_ py_allreduce, METH_FASTCALL | METH_KEYWORDS,
     "allreduce(dst, src, op='sum', team=None, algorithm=None, timeout=0)"},
    {"reduce_scatter", KW_ py_reduce_scatter, METH_FASTCALL | METH_KEYWORDS,
     "reduce_scatter(dst, src, op='sum', team=None, algorithm=None, timeout=0)"},
    {"all_gather", KW_ py_all_gather, METH_FASTCALL | METH_KEYWORDS,
     "all_gather(dst, src, team=None, algorithm=None, timeout=0)"},
    {"all_gatherv", KW_ py_all_gatherv, METH_VARARGS | METH_KEYWORDS,
     "all_gatherv(dst, src, counts, team=None, algorithm=None, timeout=0)"},
    {"all_to_all", KW_ py_all_to_all, METH_FASTCALL | METH_KEYWORDS,
     "all_to_all(dst, src, team=None, algorithm=None, timeout=0)"},
    {"all_to_allv", KW_ py_all_to_allv, METH_VARARGS | METH_KEYWORDS,
     "all_to_allv(dst, recv_counts, src, send_counts, team=None, algorithm=None, timeout=0)"},
    {"gather", KW_ py_gather, METH_FASTCALL | METH_KEYWORDS,
     "gather(dst, src, root=0, team=None, algorithm=None, timeout=0); dst may be None off "
     "the root"},
    {"scatter", KW_ py_scatter, METH_FASTCALL | METH_KEYWORDS,
     "scatter(dst, src, root=0, team=None, algorithm=None, timeout=0); src may be None off "
     "the root"},
    {"_native_allreduce_loop", py_native_loop, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};
