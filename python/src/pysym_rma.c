/*
 * pysym_rma.c - one-sided calls of symheap._symheap: put, get,
 * put-with-signal, waits and atomics on 64-bit words.  Destinations of
 * puts and sources of gets are symmetric arrays (symheap.zeros ...); the
 * library rejects others with SYM_ERR_NOT_SYMMETRIC.
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "pysym.h"

static int parse_cmp(PyObject *obj, sym_cmp_t *cmp_p)
{
    static const char *const names[] = {NULL, "eq", "ne", "gt", "ge", "lt", "le"};
    long v = -1;
    if (PyLong_Check(obj)) {
        v = PyLong_AsLong(obj);
    } else if (PyUnicode_Check(obj)) {
        const char *s = PyUnicode_AsUTF8(obj);
        for (long i = 1; s && i <= SYM_CMP_LE; i++)
            if (!strcmp(s, names[i]))
                v = i;
    }
    if (v < SYM_CMP_EQ || v > SYM_CMP_LE) {
        PyErr_SetString(PyExc_ValueError,
                        "symheap: cmp must be one of 'eq', 'ne', 'gt', 'ge', 'lt', 'le'");
        return -1;
    }
    *cmp_p = (sym_cmp_t)v;
    return 0;
}

/* put(dest, src, pe) copies all of src into the symmetric dest on PE pe;
 * get(dest, src, pe) fills all of the local dest from the symmetric src on
 * PE pe.  One body: they differ in which side sets the length and in the
 * call made. */
static PyObject *transfer(PyObject *args, bool put)
{
    const char *const name = put ? "put" : "get";
    PyObject *dobj, *sobj;
    int pe;
    if (!PyArg_ParseTuple(args, put ? "OOi:put" : "OOi:get", &dobj, &sobj, &pe))
        return NULL;
    char what[16];
    Py_buffer d, s;
    snprintf(what, sizeof(what), "%s: dest", name);
    if (pysym_buffer(dobj, &d, 1, what) < 0)
        return NULL;
    snprintf(what, sizeof(what), "%s: src", name);
    if (pysym_buffer(sobj, &s, 0, what) < 0) {
        PyBuffer_Release(&d);
        return NULL;
    }
    /* the whole of the side that sets the length must fit the other */
    const Py_buffer *whole = put ? &s : &d, *room = put ? &d : &s;
    sym_status_t st = SYM_OK;
    if (whole->len > room->len) {
        PyErr_Format(PyExc_ValueError, "symheap: %s: %s has %zd bytes, %s only %zd", name,
                     put ? "src" : "dest", whole->len, put ? "dest" : "src", room->len);
    } else {
        const size_t len = (size_t)whole->len;
        Py_BEGIN_ALLOW_THREADS
        st = put ? sym_put(d.buf, s.buf, len, pe) : sym_get(d.buf, s.buf, len, pe);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&d);
    PyBuffer_Release(&s);
    if (PyErr_Occurred())
        return NULL;
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

static PyObject *py_put(PyObject *self, PyObject *args)
{
    (void)self;
    return transfer(args, true);
}

static PyObject *py_get(PyObject *self, PyObject *args)
{
    (void)self;
    return transfer(args, false);
}

/* A one-element view of a 64-bit word: element `index` of a uint64/int64
 * array. */
static int word64(PyObject *obj, Py_ssize_t index, Py_buffer *v, uint64_t **word_p,
                  const char *what)
{
    if (pysym_buffer(obj, v, 1, what) < 0)
        return -1;
    if (v->itemsize != 8 || index < 0 || (index + 1) * 8 > v->len) {
        PyErr_Format(PyExc_ValueError,
                     "symheap: %s must be an int64 or uint64 array with element %zd "
                     "(itemsize %zd, %zd bytes)",
                     what, index, v->itemsize, v->len);
        PyBuffer_Release(v);
        return -1;
    }
    *word_p = (uint64_t *)v->buf + index;
    return 0;
}

/* put_signal(dest, src, sig, signal, sig_op, pe): put, then set (sig_op 1)
 * or add (2) `signal` to the symmetric 64-bit word sig[0] on pe. */
static PyObject *py_put_signal(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *dobj, *sobj, *gobj;
    unsigned long long signal;
    int sig_op, pe;
    if (!PyArg_ParseTuple(args, "OOOKii:put_signal", &dobj, &sobj, &gobj, &signal, &sig_op, &pe))
        return NULL;
    Py_buffer d, s, g;
    uint64_t *word;
    if (pysym_buffer(dobj, &d, 1, "put_signal: dest") < 0)
        return NULL;
    if (pysym_buffer(sobj, &s, 0, "put_signal: src") < 0) {
        PyBuffer_Release(&d);
        return NULL;
    }
    if (word64(gobj, 0, &g, &word, "put_signal: sig") < 0) {
        PyBuffer_Release(&d);
        PyBuffer_Release(&s);
        return NULL;
    }
    sym_status_t st = SYM_OK;
    if (s.len > d.len) {
        PyErr_Format(PyExc_ValueError, "symheap: put_signal: src has %zd bytes, dest only %zd",
                     s.len, d.len);
    } else {
        Py_BEGIN_ALLOW_THREADS
        st = sym_put_signal(d.buf, s.buf, (size_t)s.len, word, signal, (sym_signal_op_t)sig_op, pe);
        Py_END_ALLOW_THREADS
    }
    PyBuffer_Release(&d);
    PyBuffer_Release(&s);
    PyBuffer_Release(&g);
    if (PyErr_Occurred())
        return NULL;
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

/* wait_until(ivar, cmp, value, index=0): wait until the local symmetric
 * 64-bit word ivar[index] compares true with value (signed for int64
 * arrays); returns the word's value. */
static PyObject *py_wait_until(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *obj, *cobj, *vobj;
    Py_ssize_t index = 0;
    if (!PyArg_ParseTuple(args, "OOO|n:wait_until", &obj, &cobj, &vobj, &index))
        return NULL;
    sym_cmp_t cmp;
    if (parse_cmp(cobj, &cmp) < 0)
        return NULL;
    Py_buffer v;
    uint64_t *word;
    if (word64(obj, index, &v, &word, "wait_until: ivar") < 0)
        return NULL;
    int is_signed = v.format && strchr(v.format, 'l') != NULL;
    is_signed = is_signed || (v.format && strchr(v.format, 'q') != NULL);
    sym_status_t st;
    PyObject *ret = NULL;
    if (is_signed) {
        long long val = PyLong_AsLongLong(vobj);
        if (!PyErr_Occurred()) {
            Py_BEGIN_ALLOW_THREADS
            st = sym_wait_until_int64((int64_t *)word, cmp, (int64_t)val);
            Py_END_ALLOW_THREADS
            ret = st == SYM_OK ? PyLong_FromLongLong(*(volatile int64_t *)word) : pysym_raise(st);
        }
    } else {
        unsigned long long val = PyLong_AsUnsignedLongLong(vobj);
        if (!PyErr_Occurred()) {
            Py_BEGIN_ALLOW_THREADS
            st = sym_wait_until_uint64(word, cmp, (uint64_t)val);
            Py_END_ALLOW_THREADS
            ret = st == SYM_OK ? PyLong_FromUnsignedLongLong(*(volatile uint64_t *)word)
                               : pysym_raise(st);
        }
    }
    PyBuffer_Release(&v);
    return ret;
}

enum amo_kind {
    AMO_FETCH,
    AMO_SET,
    AMO_SWAP,
    AMO_CSWAP,
    AMO_ADD,
    AMO_FETCH_ADD,
    AMO_AND,
    AMO_OR,
    AMO_XOR,
    AMO_FETCH_AND,
    AMO_FETCH_OR,
    AMO_FETCH_XOR,
};

/* _amo(kind, array, index, value, cond, pe) -> old value (fetching kinds)
 * or None: one atomic on the 64-bit word array[index] of PE pe.  Values are
 * taken modulo 2**64; the old value comes back signed for int64 arrays. */
static PyObject *py_amo(PyObject *self, PyObject *args)
{
    (void)self;
    int kind, pe;
    PyObject *obj, *vobj, *cobj;
    Py_ssize_t index;
    if (!PyArg_ParseTuple(args, "iOnOOi:_amo", &kind, &obj, &index, &vobj, &cobj, &pe))
        return NULL;
    uint64_t value = PyLong_AsUnsignedLongLongMask(vobj);
    uint64_t cond = PyLong_AsUnsignedLongLongMask(cobj);
    if (PyErr_Occurred())
        return NULL;
    Py_buffer v;
    uint64_t *w, old = 0;
    if (word64(obj, index, &v, &w, "atomic target") < 0)
        return NULL;
    int is_signed = v.format && (strchr(v.format, 'l') || strchr(v.format, 'q'));
    PyBuffer_Release(&v);
    sym_status_t st;
    int fetching = 1;
    Py_BEGIN_ALLOW_THREADS
    switch (kind) {
    case AMO_FETCH:
        st = sym_atomic_fetch64(&old, w, pe);
        break;
    case AMO_SET:
        st = sym_atomic_set64(w, value, pe), fetching = 0;
        break;
    case AMO_SWAP:
        st = sym_atomic_swap64(w, value, &old, pe);
        break;
    case AMO_CSWAP:
        st = sym_atomic_compare_swap64(w, cond, value, &old, pe);
        break;
    case AMO_ADD:
        st = sym_atomic_add64(w, value, pe), fetching = 0;
        break;
    case AMO_FETCH_ADD:
        st = sym_atomic_fetch_add64(w, value, &old, pe);
        break;
    case AMO_AND:
        st = sym_atomic_and64(w, value, pe), fetching = 0;
        break;
    case AMO_OR:
        st = sym_atomic_or64(w, value, pe), fetching = 0;
        break;
    case AMO_XOR:
        st = sym_atomic_xor64(w, value, pe), fetching = 0;
        break;
    case AMO_FETCH_AND:
        st = sym_atomic_fetch_and64(w, value, &old, pe);
        break;
    case AMO_FETCH_OR:
        st = sym_atomic_fetch_or64(w, value, &old, pe);
        break;
    case AMO_FETCH_XOR:
        st = sym_atomic_fetch_xor64(w, value, &old, pe);
        break;
    default:
        st = sym_set_error(SYM_ERR_INVALID_ARG, "symheap: unknown atomic %d", kind);
        break;
    }
    Py_END_ALLOW_THREADS
    if (st != SYM_OK)
        return pysym_raise(st);
    if (!fetching)
        Py_RETURN_NONE;
    return is_signed ? PyLong_FromLongLong((long long)old) : PyLong_FromUnsignedLongLong(old);
}

static PyObject *py_quiet(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = sym_quiet();
    Py_END_ALLOW_THREADS
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

static PyObject *py_fence(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    sym_status_t st = sym_fence();
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

PyMethodDef pysym_rma_methods[] = {
    {"put", py_put, METH_VARARGS, "put(dest, src, pe): copy src into symmetric dest on pe."},
    {"get", py_get, METH_VARARGS, "get(dest, src, pe): copy symmetric src on pe into dest."},
    {"put_signal", py_put_signal, METH_VARARGS,
     "put_signal(dest, src, sig, signal, sig_op, pe): put, then set/add the signal word."},
    {"wait_until", py_wait_until, METH_VARARGS,
     "wait_until(ivar, cmp, value, index=0): wait on a local symmetric 64-bit word."},
    {"_amo", py_amo, METH_VARARGS, NULL},
    {"quiet", py_quiet, METH_NOARGS, "Complete this PE's outstanding puts and atomics."},
    {"fence", py_fence, METH_NOARGS, "Order this PE's puts to each target PE."},
    {NULL, NULL, 0, NULL},
};
