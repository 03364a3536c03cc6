/* autocast.c — torch._C's autocast functions (torch.autocast / torch.amp read and set them,
 * torch.utils.checkpoint records them to replay the forward). The state and the casting live in
 * the door's autocast stage, dispatch/autocast.c; here are the Python spellings with upstream's
 * argument errors and deprecation warnings. */
#include "python/common.h"

#include "dispatch/autocast.h"

#include <string.h>

#define DEV_CUDA 1
#define DEV_IPU 2
#define DEV_XLA 12

/* devices with an autocast dispatch key upstream (torch._C._autocast_supported_devices order) */
static const int keyed[] = {0, 1, 18, 11, 3, 2, 17, 12, 19, 15};
static const char *const keyed_names[] = {"cpu", "cuda", "mtia", "maia", "xpu", "ipu", "hpu", "xla",
                                          "privateuseone", "mps"};
static bool has_key(int dev) {
    for (size_t i = 0; i < sizeof keyed / sizeof *keyed; i++)
        if (keyed[i] == dev) return true;
    return false;
}

/* device_type argument: a str naming a device ("cuda:0" too) */
static int dev_arg(const char *fn, PyObject *d, int pos, bool need_key) {
    if (!PyUnicode_Check(d)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'device_type' (position %d) must be str, not %s", fn, pos,
                     tn_py_type_name(d));
        return -1;
    }
    int t;
    if (tn_py_device_type_parse(d, &t) < 0) return -1;
    if (need_key && !has_key(t)) {
        PyErr_SetString(PyExc_RuntimeError, "unknown device type for autocast in get_autocast_dispatch_key_from_device_type");
        return -1;
    }
    return t;
}
static int bool_arg(const char *fn, PyObject *v, int pos) {
    if (!PyBool_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'enabled' (position %d) must be bool, not %s", fn, pos,
                     tn_py_type_name(v));
        return -1;
    }
    return v == Py_True;
}
static int dtype_arg(const char *fn, PyObject *v, int pos, tn_dtype *out) {
    if (!tn_py_is_dtype(v)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'dtype' (position %d) must be torch.dtype, not %s", fn, pos,
                     tn_py_type_name(v));
        return -1;
    }
    return tn_py_to_dtype(v, out);
}
static PyObject *dtype_out(int dev) {
    tn_dtype d = tn_autocast_dtype(dev);
    if (d == TN_DTYPE_UNDEFINED) {
        PyErr_SetString(PyExc_RuntimeError, "unsupported scalarType");
        return NULL;
    }
    return tn_py_from_dtype(d);
}

/* is_autocast_enabled() (CUDA) / is_autocast_enabled(device_type) */
static PyObject *is_enabled(PyObject *m, PyObject *args) {
    PyObject *d = NULL;
    if (!PyArg_ParseTuple(args, "|O:is_autocast_enabled", &d)) return NULL;
    int k = d ? dev_arg("is_autocast_enabled", d, 1, true) : DEV_CUDA;
    return k < 0 ? NULL : PyBool_FromLong(tn_autocast_enabled(k));
}
/* set_autocast_enabled(enabled) (CUDA) / set_autocast_enabled(device_type, enabled) */
static PyObject *set_enabled(PyObject *m, PyObject *args) {
    PyObject *a, *b = NULL;
    if (!PyArg_ParseTuple(args, "O|O:set_autocast_enabled", &a, &b)) return NULL;
    int on = bool_arg("set_autocast_enabled", b ? b : a, b ? 2 : 1);
    int k = on < 0 ? -1 : b ? dev_arg("set_autocast_enabled", a, 1, true) : DEV_CUDA;
    if (k < 0) return NULL;
    tn_autocast_set_enabled(k, on);
    Py_RETURN_NONE;
}
static PyObject *get_dtype(PyObject *m, PyObject *d) {
    int k = dev_arg("get_autocast_dtype", d, 1, false);
    return k < 0 ? NULL : dtype_out(k);
}
static PyObject *set_dtype(PyObject *m, PyObject *args) {
    PyObject *d, *dt;
    if (!PyArg_ParseTuple(args, "OO:set_autocast_dtype", &d, &dt)) return NULL;
    int k = dev_arg("set_autocast_dtype", d, 1, false);
    tn_dtype t;
    if (k < 0 || dtype_arg("set_autocast_dtype", dt, 2, &t) < 0) return NULL;
    tn_autocast_set_dtype(k, t);
    Py_RETURN_NONE;
}
static PyObject *cache_enabled(PyObject *m, PyObject *u) { return PyBool_FromLong(tn_autocast_cache_enabled()); }
static PyObject *set_cache_enabled(PyObject *m, PyObject *v) {
    int on = bool_arg("set_autocast_cache_enabled", v, 1);
    if (on < 0) return NULL;
    tn_autocast_set_cache_enabled(on);
    Py_RETURN_NONE;
}
static PyObject *inc_nesting(PyObject *m, PyObject *u) { return PyLong_FromLong(tn_autocast_nesting_add(1)); }
static PyObject *dec_nesting(PyObject *m, PyObject *u) { return PyLong_FromLong(tn_autocast_nesting_add(-1)); }
static PyObject *clear_cache(PyObject *m, PyObject *u) {
    tn_autocast_clear_cache();
    Py_RETURN_NONE;
}
static PyObject *available(PyObject *m, PyObject *d) {
    int k = dev_arg("_is_autocast_available", d, 1, false);
    return k < 0 ? NULL : PyBool_FromLong(has_key(k));
}
static PyObject *any_enabled(PyObject *m, PyObject *u) {
    for (size_t i = 0; i < sizeof keyed / sizeof *keyed; i++)
        if (tn_autocast_enabled(keyed[i])) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}
static PyObject *supported_devices(PyObject *m, PyObject *u) {
    size_t n = sizeof keyed_names / sizeof *keyed_names;
    PyObject *l = PyList_New((Py_ssize_t)n);
    for (size_t i = 0; l && i < n; i++) PyList_SetItem(l, (Py_ssize_t)i, PyUnicode_FromString(keyed_names[i]));
    return l;
}

/* The deprecated per-device spellings: upstream's DeprecationWarning, then the device's state. */
static int deprecated(const char *old, const char *use) {
    char msg[200];
    snprintf(msg, sizeof msg, "torch.%s is deprecated. Please use torch.%s instead.", old, use);
    return PyErr_WarnEx(PyExc_DeprecationWarning, msg, 1);
}
#define DEPRECATED_DEV(tag, DEV, name)                                                                          \
    static PyObject *is_##tag(PyObject *m, PyObject *u) {                                                       \
        if (deprecated("is_autocast_" #tag "_enabled()", "is_autocast_enabled('" name "')") < 0) return NULL;   \
        return PyBool_FromLong(tn_autocast_enabled(DEV));                                                       \
    }                                                                                                           \
    static PyObject *set_##tag(PyObject *m, PyObject *v) {                                                      \
        int on = bool_arg("set_autocast_" #tag "_enabled", v, 1);                                               \
        if (on < 0 || deprecated("set_autocast_" #tag "_enabled(enabled)", "set_autocast_enabled('" name "', enabled)") < 0) \
            return NULL;                                                                                        \
        tn_autocast_set_enabled(DEV, on);                                                                       \
        Py_RETURN_NONE;                                                                                         \
    }
#define DEPRECATED_DTYPE(tag, DEV, name)                                                                        \
    static PyObject *get_##tag##_dtype(PyObject *m, PyObject *u) {                                              \
        if (deprecated("get_autocast_" #tag "_dtype()", "get_autocast_dtype('" name "')") < 0) return NULL;     \
        return dtype_out(DEV);                                                                                  \
    }                                                                                                           \
    static PyObject *set_##tag##_dtype(PyObject *m, PyObject *v) {                                              \
        tn_dtype t;                                                                                             \
        if (dtype_arg("set_autocast_" #tag "_dtype", v, 1, &t) < 0 ||                                          \
            deprecated("set_autocast_" #tag "_dtype(dtype)", "set_autocast_dtype('" name "', dtype)") < 0)      \
            return NULL;                                                                                        \
        tn_autocast_set_dtype(DEV, t);                                                                          \
        Py_RETURN_NONE;                                                                                         \
    }
DEPRECATED_DEV(cpu, TN_AC_CPU, "cpu")
DEPRECATED_DEV(ipu, DEV_IPU, "ipu")
DEPRECATED_DEV(xla, DEV_XLA, "xla")
DEPRECATED_DTYPE(cpu, TN_AC_CPU, "cpu")
DEPRECATED_DTYPE(gpu, DEV_CUDA, "cuda")
DEPRECATED_DTYPE(ipu, DEV_IPU, "ipu")
DEPRECATED_DTYPE(xla, DEV_XLA, "xla")

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
    {"_is_any_autocast_enabled", any_enabled, METH_NOARGS, NULL},
    {"_autocast_supported_devices", supported_devices, METH_NOARGS, NULL},
    {"is_autocast_cpu_enabled", is_cpu, METH_NOARGS, NULL},
    {"set_autocast_cpu_enabled", set_cpu, METH_O, NULL},
    {"is_autocast_ipu_enabled", is_ipu, METH_NOARGS, NULL},
    {"set_autocast_ipu_enabled", set_ipu, METH_O, NULL},
    {"is_autocast_xla_enabled", is_xla, METH_NOARGS, NULL},
    {"set_autocast_xla_enabled", set_xla, METH_O, NULL},
    {"get_autocast_cpu_dtype", get_cpu_dtype, METH_NOARGS, NULL},
    {"set_autocast_cpu_dtype", set_cpu_dtype, METH_O, NULL},
    {"get_autocast_gpu_dtype", get_gpu_dtype, METH_NOARGS, NULL},
    {"set_autocast_gpu_dtype", set_gpu_dtype, METH_O, NULL},
    {"get_autocast_ipu_dtype", get_ipu_dtype, METH_NOARGS, NULL},
    {"set_autocast_ipu_dtype", set_ipu_dtype, METH_O, NULL},
    {"get_autocast_xla_dtype", get_xla_dtype, METH_NOARGS, NULL},
    {"set_autocast_xla_dtype", set_xla_dtype, METH_O, NULL},
    {NULL},
};

/* torch._C._DisableAutocast(): a context manager; from __enter__ to __exit__ autocast is off on
 * every device (upstream's guard excludes every autocast dispatch key, then restores them). */
typedef struct {
    PyObject_HEAD
    bool saved[TN_AC_NDEV];
    int depth;
} disable_obj;
static PyObject *disable_enter(PyObject *self, PyObject *u) {
    disable_obj *o = (disable_obj *)self;
    if (o->depth++ == 0)
        for (int d = 0; d < TN_AC_NDEV; d++) {
            o->saved[d] = tn_autocast_enabled(d);
            tn_autocast_set_enabled(d, false);
        }
    Py_RETURN_NONE;
}
static PyObject *disable_exit(PyObject *self, PyObject *args) {
    disable_obj *o = (disable_obj *)self;
    if (o->depth > 0 && --o->depth == 0)
        for (int d = 0; d < TN_AC_NDEV; d++) tn_autocast_set_enabled(d, o->saved[d]);
    Py_RETURN_NONE;
}
static PyMethodDef disable_methods[] = {
    {"__enter__", disable_enter, METH_NOARGS, NULL}, {"__exit__", disable_exit, METH_VARARGS, NULL}, {NULL}};
static PyType_Slot disable_slots[] = {{Py_tp_new, PyType_GenericNew}, {Py_tp_methods, disable_methods}, {0, NULL}};
static PyType_Spec disable_spec = {"torch._C._DisableAutocast", sizeof(disable_obj), 0, Py_TPFLAGS_DEFAULT, disable_slots};

int tn_autocast_init(PyObject *m) {
    PyObject *t = PyType_FromSpec(&disable_spec);
    if (!t || PyModule_AddObject(m, "_DisableAutocast", t) < 0) { Py_XDECREF(t); return -1; }
    return PyModule_AddFunctions(m, methods);
}
