/*
 * pysym.h - shared helpers of the symheap Python extension module
 * (symheap._symheap): converting Python arguments (buffers, datatypes, ops,
 * algorithms, teams) to the C API's and raising symheap.Error subclasses.
 */
#ifndef PYSYM_H
#define PYSYM_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <symheap.h>

/* Raise the symheap.Error subclass of `st` carrying .status and the calling
 * thread's sym_last_error() message; returns NULL for `return
 * pysym_raise(st);`. */
PyObject *pysym_raise(sym_status_t st);

/* An array argument: numpy arrays are read through numpy's C API (a few
 * field loads), anything else through the buffer protocol. */
struct pysym_buf {
    void *buf;
    Py_ssize_t len, itemsize;
    sym_datatype_t dt; /* 0 until pysym_array() found one */
    int is_bool;
    int has_view;
    Py_buffer view;
};

/* Fill *b from `obj`: C-contiguous (writable if asked), with its datatype.
 * `what` names the argument in the TypeError.  0 or -1 with an exception
 * set (nothing to release then). */
int pysym_array(PyObject *obj, struct pysym_buf *b, int writable, const char *what);
void pysym_array_release(struct pysym_buf *b);

/* Fastcall argument parsing: slots[i] receives the i-th positional or the
 * keyword kwlist[i] (borrowed; NULL when absent); the first `required` must
 * be there.  0 or -1 with a TypeError naming `fname`. */
int pysym_parse(PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames,
                const char *const *kwlist, int nslots, int required, const char *fname,
                PyObject **slots);

/* Acquire a C-contiguous buffer of `obj` (writable if asked) into *view.
 * `what` names the argument in the TypeError.  0 on success, -1 with an
 * exception set. */
int pysym_buffer(PyObject *obj, Py_buffer *view, int writable, const char *what);

/* The datatype of a buffer from its struct format (numpy: b h i l q B H I L
 * Q f d e ?); bool ('?') is carried as uint8 and *is_bool set.  -1 with a
 * TypeError for other formats. */
int pysym_dtype(const Py_buffer *view, sym_datatype_t *dt_p, int *is_bool_p);

/* A reduce op from NULL (sum), an int (symheap.SUM ...) or a name
 * (sym_op_name's: "sum", "prod", ...); bool data maps sum/max/bor to bor,
 * prod/min/band to band (logical or/and, as numpy's any/all). */
int pysym_op(PyObject *obj, int is_bool, sym_op_t *op_p);

/* An algorithm from None, an int or a name (sym_algorithm_name's: "auto",
 * "naive", "ring", ...). */
int pysym_algorithm(PyObject *obj, sym_algorithm_t *algo_p);

/* A team from None (the world), a symheap.Team (its _handle) or an int
 * handle. */
int pysym_team(PyObject *obj, sym_team_t *team_p);

/* The method tables of the module's parts. */
extern PyMethodDef pysym_rma_methods[];
extern PyMethodDef pysym_coll_methods[];
extern PyMethodDef pysym_team_methods[];

/* Add to module m one function per collective of the library's list
 * (pysym_coll.c) and COLLECTIVES, the tuple of their names; 0 or -1 with
 * an exception set. */
int pysym_coll_add(PyObject *m);

#endif /* PYSYM_H */
