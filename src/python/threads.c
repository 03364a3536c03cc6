/* threads.c — torch.get_num_threads / set_num_threads / get_num_interop_threads /
 * set_num_interop_threads / init_num_threads over the pool in core/parallel.c.
 *
 * Upstream's are plain CPython functions (module "torch", so argument-count errors read
 * "torch.set_num_threads() takes exactly one argument (0 given)"); the setters accept a Python int
 * or numpy integer, never bool, and report bad values with upstream's wording, measured on
 * torch 2.13.0: RuntimeError "<f> expects an int, but got <type>", ValueError "Overflow when
 * unpacking long[ long]" outside int, RuntimeError "<f> expects a positive integer" for < 1, and
 * set_num_interop_threads succeeds once. */
#include "python/common.h"
#include "core/parallel.h"

#include <limits.h>
#include <string.h>

/* the type's name as upstream's tp_name spells it: builtins and Python classes bare, extension
 * types (static, or heap without an instance dict) "module.name" */
static void type_name(PyObject *o, char *buf, size_t size) {
    PyTypeObject *tp = Py_TYPE(o);
    PyObject *name = PyType_GetName(tp);
    PyObject *mod = PyObject_GetAttrString((PyObject *)tp, "__module__");
    const char *n = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    const char *m = mod && PyUnicode_Check(mod) ? PyUnicode_AsUTF8AndSize(mod, NULL) : NULL;
    int qualify = m && strcmp(m, "builtins") != 0;
    if (qualify && (PyType_GetFlags(tp) & Py_TPFLAGS_HEAPTYPE)) {
        PyObject *off = PyObject_GetAttrString((PyObject *)tp, "__dictoffset__");
        qualify = off && PyLong_Check(off) && PyLong_AsLong(off) == 0;
        Py_XDECREF(off);
    }
    PyErr_Clear();
    if (qualify && n) snprintf(buf, size, "%s.%s", m, n);
    else snprintf(buf, size, "%s", n ? n : "object");
    Py_XDECREF(name);
    Py_XDECREF(mod);
}

static int is_numpy_integer(PyObject *o) {
    PyObject *np = PyDict_GetItemString(PyImport_GetModuleDict(), "numpy");   /* borrowed */
    if (!np) return 0;
    PyObject *integer = PyObject_GetAttrString(np, "integer");
    int r = integer && PyType_Check(integer) ? PyObject_IsInstance(o, integer) : 0;
    Py_XDECREF(integer);
    if (r < 0) PyErr_Clear();
    return r > 0;
}

/* a positive thread count from `o` for function `fname`; -1 with the exception set */
static int thread_count(PyObject *o, const char *fname) {
    PyObject *v = NULL;
    if (PyLong_Check(o) && !PyBool_Check(o)) v = Py_NewRef(o);
    else if (is_numpy_integer(o) && !(v = PyNumber_Index(o))) return -1;
    if (!v) {
        char tn[160];
        type_name(o, tn, sizeof tn);
        PyErr_Format(PyExc_RuntimeError, "%s expects an int, but got %s", fname, tn);
        return -1;
    }
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    Py_DECREF(v);
    if (x == -1 && PyErr_Occurred()) return -1;
    if (overflow) {
        PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
        return -1;
    }
    if (x < INT_MIN || x > INT_MAX) {
        PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long");
        return -1;
    }
    if (x <= 0) {
        PyErr_Format(PyExc_RuntimeError, "%s expects a positive integer", fname);
        return -1;
    }
    return (int)x;
}

static PyObject *th_get_num_threads(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(tn_get_num_threads());
}

static PyObject *th_set_num_threads(PyObject *self, PyObject *arg) {
    int n = thread_count(arg, "set_num_threads");
    if (n < 0) return NULL;
    tn_set_num_threads(n);
    Py_RETURN_NONE;
}

static PyObject *th_get_num_interop_threads(PyObject *self, PyObject *unused) {
    return PyLong_FromLong(tn_get_num_interop_threads());
}

static PyObject *th_set_num_interop_threads(PyObject *self, PyObject *arg) {
    int n = thread_count(arg, "set_num_interop_threads");
    if (n < 0) return NULL;
    if (tn_set_num_interop_threads(n) < 0) {
        PyErr_SetString(PyExc_RuntimeError, "Error: cannot set number of interop threads after parallel work "
                                            "has started or set_num_interop_threads called");
        return NULL;
    }
    Py_RETURN_NONE;
}

/* upstream sizes its pools here (per thread); ours decides lazily */
static PyObject *th_init_num_threads(PyObject *self, PyObject *unused) { Py_RETURN_NONE; }

static PyMethodDef th_methods[] = {
    {"get_num_threads", th_get_num_threads, METH_NOARGS, NULL},
    {"set_num_threads", th_set_num_threads, METH_O, NULL},
    {"get_num_interop_threads", th_get_num_interop_threads, METH_NOARGS, NULL},
    {"set_num_interop_threads", th_set_num_interop_threads, METH_O, NULL},
    {"init_num_threads", th_init_num_threads, METH_NOARGS, NULL},
    {NULL},
};

int tn_threads_init(PyObject *m) {
    PyObject *modname = PyUnicode_FromString("torch");
    if (!modname) return -1;
    int rc = 0;
    for (PyMethodDef *f = th_methods; rc == 0 && f->ml_name; f++) {
        PyObject *fn = PyCFunction_NewEx(f, m, modname);   /* __self__ is torch._C, as upstream's */
        rc = fn ? PyModule_AddObjectRef(m, f->ml_name, fn) : -1;
        Py_XDECREF(fn);
    }
    Py_DECREF(modname);
    return rc;
}
