/* autocast.c — torch._C's autocast state (torch.autocast / torch.amp reads and restores it, and
 * torch.utils.checkpoint records it to replay the forward). torchnative has no autocast casting,
 * so the state is kept (per thread, per device type, as upstream's) but turning autocast on
 * refuses by name instead of silently computing in full precision. */
#include "python/common.h"

#include <string.h>

enum { DEV_CPU, DEV_CUDA, DEV_OTHER, NDEV };
static _Thread_local bool enabled[NDEV];
static _Thread_local int dtype_set[NDEV];      /* 0: upstream's default; else tn_dtype + 1 */
static _Thread_local int cache_off;           /* is_autocast_cache_enabled() is True by default */
static _Thread_local int nesting;

static int dev_of(PyObject *d) {
    const char *s = PyUnicode_Check(d) ? PyUnicode_AsUTF8AndSize(d, NULL) : NULL;
    if (!s) {
        if (!PyErr_Occurred()) PyErr_Format(PyExc_TypeError, "expected a device type string, got %s", tn_py_type_name(d));
        return -1;
    }
    return !strcmp(s, "cpu") ? DEV_CPU : !strcmp(s, "cuda") ? DEV_CUDA : DEV_OTHER;
}

/* is_autocast_enabled() (CUDA, deprecated) / is_autocast_enabled(device_type) */
static PyObject *is_enabled(PyObject *m, PyObject *args) {
    PyObject *d = NULL;
    if (!PyArg_ParseTuple(args, "|O:is_autocast_enabled", &d)) return NULL;
    int k = d ? dev_of(d) : DEV_CUDA;
    return k < 0 ? NULL : PyBool_FromLong(enabled[k]);
}
/* set_autocast_enabled(enabled) / set_autocast_enabled(device_type, enabled) */
static PyObject *set_enabled(PyObject *m, PyObject *args) {
    PyObject *a, *b = NULL;
    if (!PyArg_ParseTuple(args, "O|O:set_autocast_enabled", &a, &b)) return NULL;
    int k = b ? dev_of(a) : DEV_CUDA;
    int on = PyObject_IsTrue(b ? b : a);
    if (k < 0 || on < 0) return NULL;
    if (on) return tn_not_implemented("autocast (torch.autocast / torch.amp with enabled=True)");
    enabled[k] = false;
    Py_RETURN_NONE;
}
static PyObject *get_dtype(PyObject *m, PyObject *d) {
    int k = dev_of(d);
    if (k < 0) return NULL;
    if (dtype_set[k]) return tn_py_from_dtype((tn_dtype)(dtype_set[k] - 1));
    return tn_py_from_dtype(k == DEV_CPU ? TN_DTYPE_BF16 : TN_DTYPE_F16);   /* upstream's defaults */
}
static PyObject *set_dtype(PyObject *m, PyObject *args) {
    PyObject *d, *dt;
    if (!PyArg_ParseTuple(args, "OO:set_autocast_dtype", &d, &dt)) return NULL;
    int k = dev_of(d);
    if (k < 0) return NULL;
    tn_dtype t;
    if (tn_py_to_dtype(dt, &t) < 0) return NULL;
    dtype_set[k] = (int)t + 1;
    Py_RETURN_NONE;
}
static PyObject *cache_enabled(PyObject *m, PyObject *u) { return PyBool_FromLong(!cache_off); }
static PyObject *set_cache_enabled(PyObject *m, PyObject *v) {
    int on = PyObject_IsTrue(v);
    if (on < 0) return NULL;
    cache_off = !on;
    Py_RETURN_NONE;
}
static PyObject *inc_nesting(PyObject *m, PyObject *u) { return PyLong_FromLong(++nesting); }
static PyObject *dec_nesting(PyObject *m, PyObject *u) { return PyLong_FromLong(--nesting); }
static PyObject *clear_cache(PyObject *m, PyObject *u) { Py_RETURN_NONE; }   /* nothing is ever cached */
static PyObject *available(PyObject *m, PyObject *d) {
    int k = dev_of(d);
    return k < 0 ? NULL : PyBool_FromLong(k == DEV_CPU);
}

static PyMethodDef methods[] = {
    {"is_autocast_enabled", is_enabled, METH_VARARGS, NULL},
    {"set_autocast_enabled", set_enabled, METH_VARARGS, NULL},
    {"get_autocast_dtype", get_dtype, METH_O, NULL},
    {"set_autocast_dtype", set_dtype, METH_VARARGS, NULL},
    {"is_autocast_cache_enabled", cache_enabled, METH_NOARGS, NULL},
    {"set_autocast_cache_enabled", set_cache_enabled, METH_O, NULL},
    {"autocast_increment_nesting", inc_nesting, METH_NOARGS, NULL},
    {"autocast_decrement_nesting", dec_nesting, METH_NOARGS, NULL},
    {"clear_autocast_cache", clear_cache, METH_NOARGS, NULL},
    {"_is_autocast_available", available, METH_O, NULL},
    {NULL},
};

int tn_autocast_init(PyObject *m) { return PyModule_AddFunctions(m, methods); }
