/*
 * pysym_team.c - teams in symheap._symheap: handles travel as ints (the
 * symheap.Team class of the package wraps them); SYM_TEAM_INVALID is 0,
 * which non-members of a new team receive.
 */
#include <stdint.h>
#include <stdlib.h>

#include "pysym.h"

static PyObject *handle(sym_team_t t)
{
    return PyLong_FromUnsignedLongLong((unsigned long long)(uintptr_t)t);
}

static PyObject *py_team_world(PyObject *self, PyObject *unused)
{
    (void)self, (void)unused;
    return handle(sym_team_world());
}

static PyObject *py_team_split_strided(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pobj;
    int start, stride, size;
    sym_team_t parent, t = SYM_TEAM_INVALID;
    if (!PyArg_ParseTuple(args, "Oiii:team_split_strided", &pobj, &start, &stride, &size) ||
        pysym_team(pobj, &parent) < 0)
        return NULL;
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = sym_team_split_strided(parent, start, stride, size, &t);
    Py_END_ALLOW_THREADS
    return st == SYM_OK ? handle(t) : pysym_raise(st);
}

static PyObject *py_team_split_2d(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pobj;
    int xrange, ragged = 0;
    sym_team_t parent, x = SYM_TEAM_INVALID, y = SYM_TEAM_INVALID;
    if (!PyArg_ParseTuple(args, "Oi|p:team_split_2d", &pobj, &xrange, &ragged) ||
        pysym_team(pobj, &parent) < 0)
        return NULL;
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = ragged ? sym_team_split_2d_ragged(parent, xrange, &x, &y)
                : sym_team_split_2d(parent, xrange, &x, &y);
    Py_END_ALLOW_THREADS
    if (st != SYM_OK)
        return pysym_raise(st);
    return Py_BuildValue("(NN)", handle(x), handle(y));
}

static PyObject *py_team_create(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *pobj, *mobj;
    sym_team_t parent, t = SYM_TEAM_INVALID;
    if (!PyArg_ParseTuple(args, "OO:team_create", &pobj, &mobj) || pysym_team(pobj, &parent) < 0)
        return NULL;
    PyObject *seq = PySequence_Fast(mobj, "symheap: members must be a sequence of PE numbers");
    if (!seq)
        return NULL;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    int *m = malloc(((size_t)n + 1) * sizeof(int));
    for (Py_ssize_t i = 0; m && i < n; i++) {
        long v = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        m[i] = (int)v;
        if (v == -1 && PyErr_Occurred())
            break;
    }
    Py_DECREF(seq);
    if (!m || PyErr_Occurred()) {
        free(m);
        return m ? NULL : PyErr_NoMemory();
    }
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = sym_team_create(parent, m, (int)n, &t);
    Py_END_ALLOW_THREADS
    free(m);
    return st == SYM_OK ? handle(t) : pysym_raise(st);
}

static PyObject *py_team_members(PyObject *self, PyObject *tobj)
{
    (void)self;
    sym_team_t t;
    if (pysym_team(tobj, &t) < 0)
        return NULL;
    int n = sym_team_n_pes(t);
    int *g = malloc(((size_t)(n > 0 ? n : 0) + 1) * sizeof(int));
    if (!g)
        return PyErr_NoMemory();
    sym_status_t st = n > 0 ? sym_team_members(t, g)
                            : sym_set_error(SYM_ERR_INVALID_ARG,
                                            "symheap: team_members: team "
                                            "%s is not valid",
                                            sym_team_name(t));
    PyObject *list = st == SYM_OK ? PyList_New(n) : NULL;
    for (int i = 0; list && i < n; i++)
        PyList_SET_ITEM(list, i, PyLong_FromLong(g[i]));
    free(g);
    return st == SYM_OK ? list : pysym_raise(st);
}

static PyObject *py_team_my_pe(PyObject *self, PyObject *tobj)
{
    (void)self;
    sym_team_t t;
    return pysym_team(tobj, &t) < 0 ? NULL : PyLong_FromLong(sym_team_my_pe(t));
}

static PyObject *py_team_n_pes(PyObject *self, PyObject *tobj)
{
    (void)self;
    sym_team_t t;
    return pysym_team(tobj, &t) < 0 ? NULL : PyLong_FromLong(sym_team_n_pes(t));
}

static PyObject *py_team_name(PyObject *self, PyObject *tobj)
{
    (void)self;
    sym_team_t t;
    return pysym_team(tobj, &t) < 0 ? NULL : PyUnicode_FromString(sym_team_name(t));
}

static PyObject *py_team_translate_pe(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *sobj, *dobj;
    int pe;
    sym_team_t s, d;
    if (!PyArg_ParseTuple(args, "OiO:team_translate_pe", &sobj, &pe, &dobj) ||
        pysym_team(sobj, &s) < 0 || pysym_team(dobj, &d) < 0)
        return NULL;
    return PyLong_FromLong(sym_team_translate_pe(s, pe, d));
}

static PyObject *py_team_set_timeout(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *tobj;
    double sec;
    sym_team_t t;
    if (!PyArg_ParseTuple(args, "Od:team_set_timeout", &tobj, &sec) || pysym_team(tobj, &t) < 0)
        return NULL;
    sym_status_t st = sym_team_set_timeout(t, sec);
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

static PyObject *py_team_destroy(PyObject *self, PyObject *tobj)
{
    (void)self;
    sym_team_t t;
    if (pysym_team(tobj, &t) < 0)
        return NULL;
    sym_status_t st;
    Py_BEGIN_ALLOW_THREADS
    st = sym_team_destroy(t);
    Py_END_ALLOW_THREADS
    if (st != SYM_OK)
        return pysym_raise(st);
    Py_RETURN_NONE;
}

PyMethodDef pysym_team_methods[] = {
    {"_team_world", py_team_world, METH_NOARGS, NULL},
    {"_team_split_strided", py_team_split_strided, METH_VARARGS, NULL},
    {"_team_split_2d", py_team_split_2d, METH_VARARGS, NULL},
    {"_team_create", py_team_create, METH_VARARGS, NULL},
    {"_team_members", py_team_members, METH_O, NULL},
    {"_team_my_pe", py_team_my_pe, METH_O, NULL},
    {"_team_n_pes", py_team_n_pes, METH_O, NULL},
    {"_team_name", py_team_name, METH_O, NULL},
    {"_team_translate_pe", py_team_translate_pe, METH_VARARGS, NULL},
    {"_team_set_timeout", py_team_set_timeout, METH_VARARGS, NULL},
    {"_team_destroy", py_team_destroy, METH_O, NULL},
    {NULL, NULL, 0, NULL},
};
