/*
 * pysym_module.c - the symheap._symheap extension module: joining and
 * leaving the job, symmetric memory, and the argument conversions the other
 * parts share.  The Python package (symheap/__init__.py) wraps it.
 */
#include <stdint.h>
#include <string.h>

#include "pysym.h"

#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#include <numpy/arrayobject.h>

/* symheap._errors.from_status(status, message) -> exception instance, set
 * by the package when it is imported; until then errors are RuntimeError. */
static PyObject *error_factory;

PyObject *pysym_raise(sym_status_t st)
{
    const char *msg = sym_last_error();
    if (!msg || !msg[0])
        msg = sym_strerror(st);
    if (!error_factory) {
        PyErr_Format(PyExc_RuntimeError, "%s: %s", sym_status_name(st), msg);
        return NULL;
    }
    PyObject *exc = PyObject_CallFunction(error_factory, "is", (int)st, msg);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}

int pysym_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what)
{
    int flags = PyBUF_C_CONTIGUOUS | PyBUF_FORMAT | (writable ? PyBUF_WRITABLE : 0);
    if (PyObject_GetBuffer(obj, view, flags) == 0)
        return 0;
    PyErr_Clear();
    PyErr_Format(PyExc_TypeError,
                 "symheap: %s must be a C-contiguous%s array (numpy.ascontiguousarray makes one), "
                 "got %.100s",
                 what, writable ? ", writable" : "", Py_TYPE(obj)->tp_name);
    return -1;
}

int pysym_dtype(const Py_buffer *view, sym_datatype_t *dt_p, int *is_bool_p)
{
    const char *f = view->format ? view->format : "B";
    if (*f == '@' || *f == '=' || *f == '<')
        f++;
    *is_bool_p = 0;
    sym_datatype_t dt = 0;
    if (f[0] && !f[1]) {
        switch (f[0]) {
        case 'b':
            dt = SYM_INT8;
            break;
        case 'h':
            dt = SYM_INT16;
            break;
        case 'i':
            dt = SYM_INT32;
            break;
        case 'l':
        case 'q':
            dt = view->itemsize == 8 ? SYM_INT64 : SYM_INT32;
            break;
        case 'B':
            dt = SYM_UINT8;
            break;
        case '?':
            dt = SYM_UINT8, *is_bool_p = 1;
            break;
        case 'H':
            dt = SYM_UINT16;
            break;
        case 'I':
            dt = SYM_UINT32;
            break;
        case 'L':
        case 'Q':
            dt = view->itemsize == 8 ? SYM_UINT64 : SYM_UINT32;
            break;
        case 'f':
            dt = SYM_FLOAT;
            break;
        case 'd':
            dt = SYM_DOUBLE;
            break;
        case 'e':
            dt = SYM_FLOAT16;
            break;
        default:
            break;
        }
    }
    if (!dt || (size_t)view->itemsize != sym_datatype_size(dt)) {
        PyErr_Format(PyExc_TypeError,
                     "symheap: no symheap datatype for array format '%s' (itemsize %zd): "
                     "int8..int64, uint8..uint64, float16/32/64 and bool are supported",
                     view->format ? view->format : "B", view->itemsize);
        return -1;
    }
    *dt_p = dt;
    return 0;
}

int pysym_array(PyObject *obj, struct pysym_buf *b, int writable, const char *what)
{
    b->has_view = 0;
    if (PyArray_Check(obj)) {
        PyArrayObject *a = (PyArrayObject *)obj;
        PyArray_Descr *d = PyArray_DESCR(a);
        int fl = PyArray_FLAGS(a);
        if (!(fl & NPY_ARRAY_C_CONTIGUOUS) || (writable && !(fl & NPY_ARRAY_WRITEABLE)) ||
            d->byteorder == '>') {
            PyErr_Format(PyExc_TypeError,
                         "symheap: %s must be a C-contiguous%s array in native byte order "
                         "(numpy.ascontiguousarray makes one)",
                         what, writable ? ", writable" : "");
            return -1;
        }
        sym_datatype_t dt = 0;
        b->is_bool = 0;
        switch (d->type_num) {
        case NPY_INT8:
            dt = SYM_INT8;
            break;
        case NPY_INT16:
            dt = SYM_INT16;
            break;
        case NPY_INT32:
            dt = SYM_INT32;
            break;
        case NPY_INT64:
            dt = SYM_INT64;
            break;
        case NPY_UINT8:
            dt = SYM_UINT8;
            break;
        case NPY_BOOL:
            dt = SYM_UINT8, b->is_bool = 1;
            break;
        case NPY_UINT16:
            dt = SYM_UINT16;
            break;
        case NPY_UINT32:
            dt = SYM_UINT32;
            break;
        case NPY_UINT64:
            dt = SYM_UINT64;
            break;
        case NPY_FLOAT32:
            dt = SYM_FLOAT;
            break;
        case NPY_FLOAT64:
            dt = SYM_DOUBLE;
            break;
        case NPY_FLOAT16:
            dt = SYM_FLOAT16;
            break;
        default:
            break;
        }
        /* long long on LP64 is another type number of the same size */
        if (!dt && d->type_num == NPY_LONGLONG)
            dt = SYM_INT64;
        if (!dt && d->type_num == NPY_ULONGLONG)
            dt = SYM_UINT64;
        if (!dt) {
            PyErr_Format(PyExc_TypeError,
                         "symheap: %s: no symheap datatype for numpy dtype %c: int8..int64, "
                         "uint8..uint64, float16/32/64 and bool are supported",
                         what, d->type);
            return -1;
        }
        b->dt = dt;
        b->buf = PyArray_DATA(a);
        b->itemsize = (Py_ssize_t)PyArray_ITEMSIZE(a);
        b->len = (Py_ssize_t)PyArray_NBYTES(a);
        return 0;
    }
    if (pysym_buffer(obj, &b->view, writable, what) < 0)
        return -1;
    b->has_view = 1;
    b->buf = b->view.buf;
    b->len = b->view.len;
    b->itemsize = b->view.itemsize;
    if (pysym_dtype(&b->view, &b->dt, &b->is_bool) < 0) {
        PyBuffer_Release(&b->view);
        b->has_view = 0;
        return -1;
    }
    return 0;
}

void pysym_array_release(struct pysym_buf *b)
{
    if (b->has_view)
        PyBuffer_Release(&b->view);
    b->has_view = 0;
}

int pysym_parse(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                const char *const *kwlist, int nslots, int required, const char *fname,
                PyObject **slots)
{
    if (nargs > nslots) {
        PyErr_Format(PyExc_TypeError, "%s() takes at most %d arguments (%zd given)", fname, nslots,
                     nargs);
        return -1;
    }
    for (int i = 0; i < nslots; i++)
        slots[i] = i < nargs ? args[i] : NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        const char *name = PyUnicode_AsUTF8(PyTuple_GET_ITEM(kwnames, k));
        int i = 0;
        while (name && i < nslots && strcmp(name, kwlist[i]))
            i++;
        if (!name || i == nslots || slots[i]) {
            PyErr_Format(PyExc_TypeError, "%s() got %s keyword argument '%s'", fname,
                         i == nslots ? "an unexpected" : "a repeated", name ? name : "?");
            return -1;
        }
        slots[i] = args[nargs + k];
    }
    for (int i = 0; i < required; i++) {
        if (!slots[i]) {
            PyErr_Format(PyExc_TypeError, "%s() missing required argument '%s'", fname, kwlist[i]);
            return -1;
        }
    }
    return 0;
}

/* The library's names of its reduction ops (sym_op_name, from SYM_OP_SUM)
 * and algorithms (sym_algorithm_name, from SYM_ALGO_AUTO): each list ends
 * at the first value the library names as it names an invalid one. */
typedef const char *(*name_fn)(long v);

static const char *op_name(long v)
{
    return sym_op_name((sym_op_t)v);
}

static const char *algo_name(long v)
{
    return sym_algorithm_name((sym_algorithm_t)v);
}

#define NAMES_MAX 64 /* a bound on each list, should the library name every value */

static long names_end(name_fn name_of, long first)
{
    const char *invalid = name_of(-1);
    long v = first;
    while (v < first + NAMES_MAX && strcmp(name_of(v), invalid) != 0)
        v++;
    return v;
}

/* The value an int or a name stands for; -1 if none. */
static long name_value(PyObject *obj, name_fn name_of, long first)
{
    long end = names_end(name_of, first);
    if (PyLong_Check(obj)) {
        long v = PyLong_AsLong(obj);
        return v >= first && v < end ? v : -1;
    }
    const char *s = PyUnicode_Check(obj) ? PyUnicode_AsUTF8(obj) : NULL;
    for (long v = first; s && v < end; v++)
        if (!strcmp(s, name_of(v)))
            return v;
    return -1;
}

/* Raise ValueError "symheap: <what> must be <lead>'a', 'b', ...<tail>". */
static int name_error(const char *what, const char *lead, name_fn name_of, long first, int upper,
                      const char *tail)
{
    char list[512] = "";
    size_t used = 0;
    for (long v = first, end = names_end(name_of, first); v < end && used < sizeof(list); v++) {
        char word[64];
        snprintf(word, sizeof(word), "%s", name_of(v));
        for (char *c = word; upper && *c; c++)
            *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 'a' + 'A' : *c);
        used += (size_t)snprintf(list + used, sizeof(list) - used, "%s%s%s%s",
                                 v > first ? ", " : "", upper ? "" : "'", word, upper ? "" : "'");
    }
    PyErr_Format(PyExc_ValueError, "symheap: %s must be %s%s%s", what, lead, list, tail);
    return -1;
}

int pysym_op(PyObject *obj, int is_bool, sym_op_t *op_p)
{
    long v = obj ? name_value(obj, op_name, SYM_OP_SUM) : SYM_OP_SUM;
    if (v < 0)
        return name_error("op", "one of symheap.", op_name, SYM_OP_SUM, 1,
                          " (or their lower-case names)");
    sym_op_t op = (sym_op_t)v;
    if (is_bool) {
        if (op == SYM_OP_SUM || op == SYM_OP_MAX)
            op = SYM_OP_BOR;
        else if (op == SYM_OP_PROD || op == SYM_OP_MIN)
            op = SYM_OP_BAND;
        else if (op == SYM_OP_AVG) {
            PyErr_SetString(PyExc_ValueError, "symheap: op avg is not defined for bool data");
            return -1;
        }
    }
    *op_p = op;
    return 0;
}

int pysym_algorithm(PyObject *obj, sym_algorithm_t *algo_p)
{
    long v = !obj || obj == Py_None ? SYM_ALGO_AUTO : name_value(obj, algo_name, SYM_ALGO_AUTO);
    if (v < 0)
        return name_error("algorithm", "None or one of ", algo_name, SYM_ALGO_AUTO, 0, "");
    *algo_p = (sym_algorithm_t)v;
    return 0;
}

/* {name: value} of a name list, for the module's OPS and ALGORITHMS. */
static PyObject *names_dict(name_fn name_of, long first)
{
    PyObject *d = PyDict_New();
    for (long v = first, end = names_end(name_of, first); d && v < end; v++) {
        PyObject *value = PyLong_FromLong(v);
        if (!value || PyDict_SetItemString(d, name_of(v), value) < 0) {
            Py_XDECREF(value);
            Py_CLEAR(d);
            break;
        }
        Py_DECREF(value);
    }
    return d;
}

int pysym_team(PyObject *obj, sym_team_t *team_p)
{
    if (!obj || obj == Py_None) {
        *team_p = sym_team_world();
        return 0;
    }
    PyObject *h =
        PyLong_Check(obj) ? (Py_INCREF(obj), obj) : PyObject_GetAttrString(obj, "_handle");
    if (!h || !PyLong_Check(h)) {
        Py_XDECREF(h);
        PyErr_Clear();
        PyErr_Format(PyExc_TypeError, "symheap: team must be None or a symheap.Team, got %.100s",
                     Py_TYPE(obj)->tp_name);
        return -1;
    }
    *team_p = (sym_team_t)(uintptr_t)PyLong_AsUnsignedLongLong(h);
    Py_DECREF(h);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject *py_set_error_factory(PyObject *self, PyObject *fn)
{
    (void)self;
    Py_XINCREF(fn);
    Py_XSETREF(error_factory, fn);
    Py_RETURN_NONE;
}

static PyObject *py_init(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = sym_init_thread(SYM_THREAD_MULTIPLE, NULL);
    Py_END_ALLOW_THREADS
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

static PyObject *py_finalize(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = sym_finalize();
    Py_END_ALLOW_THREADS
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

static PyObject *py_initialized(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyBool_FromLong(sym_initialized());
}

static PyObject *py_my_pe(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyLong_FromLong(sym_my_pe());
}

static PyObject *py_n_pes(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return PyLong_FromLong(sym_n_pes());
}

/* _malloc(nbytes) -> writable memoryview over new symmetric memory (zeroed).
 * Collective.  The memory lives until _free(address) or finalize: freeing
 * is collective too, so it never happens behind the program's back from a
 * garbage collector whose timing differs between PEs. */
static PyObject *py_malloc(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_ssize_t n = PyLong_AsSsize_t(arg);
    if (n < 0)
        return PyErr_Occurred() ? NULL : PyErr_Format(PyExc_ValueError, "symheap: negative size");
    void *p;
    Py_BEGIN_ALLOW_THREADS
    p = sym_calloc(1, n ? (size_t)n : 1);
    Py_END_ALLOW_THREADS
    if (!p)
        return pysym_raise(SYM_ERR_NO_MEMORY);
    return PyMemoryView_FromMemory(p, n, PyBUF_WRITE);
}

static PyObject *py_free(PyObject *self, PyObject *arg)
{
    (void)self;
    void *p = PyLong_AsVoidPtr(arg);
    if (PyErr_Occurred())
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    sym_free(p);
    Py_END_ALLOW_THREADS
    Py_RETURN_NONE;
}

/* _address(array) -> the address of a buffer's first byte (to name a
 * symmetric object to _free and in messages). */
static PyObject *py_address(PyObject *self, PyObject *arg)
{
    (void)self;
    Py_buffer v;
    if (PyObject_GetBuffer(arg, &v, PyBUF_SIMPLE | PyBUF_C_CONTIGUOUS) < 0)
        return NULL;
    PyObject *r = PyLong_FromVoidPtr(v.buf);
    PyBuffer_Release(&v);
    return r;
}

static PyObject *py_status_name(PyObject *self, PyObject *arg)
{
    (void)self;
    long st = PyLong_AsLong(arg);
    if (st == -1 && PyErr_Occurred())
        return NULL;
    return PyUnicode_FromString(sym_status_name((sym_status_t)st));
}

static PyMethodDef module_methods[] = {
    {"_set_error_factory", py_set_error_factory, METH_O, NULL},
    {"init", py_init, METH_NOARGS, "Join the job (sym_init, thread level multiple)."},
    {"finalize", py_finalize, METH_NOARGS, "Leave the job (sym_finalize); collective."},
    {"initialized", py_initialized, METH_NOARGS, "True between init() and finalize()."},
    {"my_pe", py_my_pe, METH_NOARGS, "This PE's number (-1 before init())."},
    {"n_pes", py_n_pes, METH_NOARGS, "The number of PEs (-1 before init())."},
    {"_malloc", py_malloc, METH_O, NULL},
    {"_free", py_free, METH_O, NULL},
    {"_address", py_address, METH_O, NULL},
    {"status_name", py_status_name, METH_O, "The name of a status code."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef module_def = {
    PyModuleDef_HEAD_INIT,
    "symheap._symheap",
    "The C layer of the symheap package.",
    -1,
    module_methods,
    NULL,
    NULL,
    NULL,
    NULL,
};

PyMODINIT_FUNC PyInit__symheap(void)
{
    import_array();
    PyObject *m = PyModule_Create(&module_def);
    if (!m)
        return NULL;
    if (PyModule_AddFunctions(m, pysym_rma_methods) < 0 ||
        PyModule_AddFunctions(m, pysym_coll_methods) < 0 ||
        PyModule_AddFunctions(m, pysym_team_methods) < 0 || pysym_coll_add(m) < 0 ||
        PyModule_AddObject(m, "OPS", names_dict(op_name, SYM_OP_SUM)) < 0 ||
        PyModule_AddObject(m, "ALGORITHMS", names_dict(algo_name, SYM_ALGO_AUTO)) < 0) {
        Py_DECREF(m);
        return NULL;
    }
#define PYSYM_STATUS_CONST_(name, value, text) PyModule_AddIntConstant(m, #name, value);
    SYM_STATUS_LIST(PYSYM_STATUS_CONST_)
#undef PYSYM_STATUS_CONST_
    return m;
}
