/* runtime_flags.c — torch._C's global settings: the _set_X / _get_X pairs that store a value.
 *
 * torch.backends.* (cudnn, mkldnn, nnpack, cuda.matmul, ...), torch.use_deterministic_algorithms
 * and friends read and write these; upstream keeps them in at::globalContext(). Most only select
 * among backends we do not have, so here each is a stored value with upstream's default, checked
 * as upstream checks it (bools must be bool), returned unchanged. Nothing in our kernels reads
 * them yet. Registered only where no real implementation exists. */
#include "python/common.h"
#include "ops/common.h"

#include <string.h>

/* F_SDP: a scaled_dot_product_attention backend switch, _get_X_sdp_enabled / _set_sdp_use_X */
enum { F_BOOL, F_ANY, F_PRECISION, F_PAIR, F_SDP };
static const struct {
    const char *name;   /* X of _get_X / _set_X */
    int kind;
    int dflt;           /* F_BOOL: 0/1; F_ANY: 0 None; F_PAIR: (True, True) */
} flag_table[] = {
    {"backcompat_broadcast_warn", F_BOOL, 0}, {"backcompat_keepdim_warn", F_BOOL, 0},
    {"cpu_allow_fp16_reduced_precision_reduction", F_BOOL, 0}, {"cublas_allow_fp16_accumulation", F_BOOL, 0},
    {"cublas_allow_tf32", F_BOOL, 0}, {"cudnn_allow_tf32", F_BOOL, 1}, {"cudnn_benchmark", F_BOOL, 0},
    {"cudnn_deterministic", F_BOOL, 0}, {"cudnn_enabled", F_BOOL, 1},
    {"deterministic_fill_uninitialized_memory", F_BOOL, 1}, {"dtensor_allow_implicit_replication", F_BOOL, 0},
    {"graph_executor_optimize", F_BOOL, 1}, {"math_sdp_allow_fp16_bf16_reduction", F_BOOL, 0},
    {"miopen_immediate", F_BOOL, 0}, {"mkldnn_deterministic", F_BOOL, 0}, {"mkldnn_enabled", F_BOOL, 1},
    {"nnpack_enabled", F_BOOL, 1}, {"warnAlways", F_BOOL, 0},
    {"onednn_allow_tf32", F_ANY, 0}, {"sm_carveout_experimental", F_ANY, 0}, {"graph_exec_group", F_ANY, 0},
    {"cudnn_depthwise_kernel", F_ANY, 0}, {"sdp_priority_order", F_ANY, 0},
    {"float32_matmul_precision", F_PRECISION, 0},
    {"cublas_allow_fp16_reduced_precision_reduction", F_PAIR, 1},
    {"cublas_allow_bf16_reduced_precision_reduction", F_PAIR, 1},
    {"cudnn", F_SDP, 1}, {"flash", F_SDP, 1}, {"mem_efficient", F_SDP, 1}, {"math", F_SDP, 1},
    {"overrideable", F_SDP, 1}, {"fa3", F_SDP, 0},
};
#define N_FLAGS ((int)(sizeof flag_table / sizeof flag_table[0]))

static PyObject *values[N_FLAGS];
static PyObject *det_algorithms, *det_warn_only;

static long flag_index(PyObject *self) { return PyLong_AsLong(self); }

static PyObject *flag_get(PyObject *self, PyObject *unused) {
    long i = flag_index(self);
    if (i < 0 || i >= N_FLAGS) return NULL;
    return Py_NewRef(values[i]);
}

static PyObject *flag_set(PyObject *self, PyObject *args) {
    long i = flag_index(self);
    if (i < 0 || i >= N_FLAGS) return NULL;
    const char *name = flag_table[i].name;
    PyObject *v, *v2 = Py_True;
    if (flag_table[i].kind == F_PAIR) {
        if (!PyArg_ParseTuple(args, "O|O", &v, &v2)) return NULL;
    } else if (!PyArg_ParseTuple(args, "O", &v)) {
        return NULL;
    }
    switch (flag_table[i].kind) {
    case F_SDP:
        if (!PyBool_Check(v)) {   /* upstream's wordings, measured: three setters name math, cudnn's keeps a "%s" */
            bool as_math = !strcmp(name, "flash") || !strcmp(name, "mem_efficient");
            PyErr_Format(PyExc_RuntimeError, "set_sdp_use_%s expects a bool, but got %s%s", as_math ? "math" : name,
                         strcmp(name, "cudnn") ? "" : "%s", tn_py_type_name(v));
            return NULL;
        }
        if (!strcmp(name, "flash")) tn_sdp_flash_enabled = v == Py_True;
        if (!strcmp(name, "math")) tn_sdp_math_enabled = v == Py_True;
        break;
    case F_BOOL:
    case F_PAIR:
        if (!PyBool_Check(v) || !PyBool_Check(v2)) {
            PyErr_Format(PyExc_RuntimeError, "_set_%s expects a bool, but got %s", name,
                         tn_py_type_name(PyBool_Check(v) ? v2 : v));
            return NULL;
        }
        if (flag_table[i].kind == F_PAIR) {
            PyObject *t = PyTuple_Pack(2, v, v2);
            if (!t) return NULL;
            Py_XSETREF(values[i], t);
            Py_RETURN_NONE;
        }
        break;
    case F_PRECISION: {
        const char *s = PyUnicode_Check(v) ? PyUnicode_AsUTF8AndSize(v, NULL) : NULL;
        if (!s) {
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "_set_float32_matmul_precision(): expected str");
            return NULL;
        }
        if (strcmp(s, "highest") != 0 && strcmp(s, "high") != 0 && strcmp(s, "medium") != 0) {
            if (PyErr_WarnFormat(PyExc_UserWarning, 1,
                                 "%s is not one of 'highest', 'high', or 'medium'; the current"
                                 "setFloat32MatmulPrecision call has no effect.", s) < 0)
                return NULL;
            Py_RETURN_NONE;
        }
        break;
    }
    default:
        if (!strcmp(name, "sdp_priority_order")) {
            /* upstream's: ints overwrite the order's first entries. Past its five upstream writes beyond its
             * array (it corrupted the enabled flags, measured: docs/opinfo.md); ours ignores them */
            if (!PyList_Check(v) && !PyTuple_Check(v)) {
                PyErr_SetString(PyExc_RuntimeError, "Expected tuple or list");
                return NULL;
            }
            PyObject *seq = PySequence_List(v), *l = seq ? PySequence_List(values[i]) : NULL;
            if (!l) { Py_XDECREF(seq); return NULL; }
            for (Py_ssize_t k = 0; k < PyList_Size(seq); k++) {
                PyObject *e = PyList_GetItem(seq, k);
                if (!PyLong_Check(e) || PyBool_Check(e)) {
                    PyErr_Format(PyExc_RuntimeError, "expected int at position %zd, but got: %s", k, tn_py_type_name(e));
                    Py_DECREF(seq); Py_DECREF(l);
                    return NULL;
                }
                if (k < PyList_Size(l)) PyList_SetItem(l, k, Py_NewRef(e));
            }
            Py_DECREF(seq);
            Py_XSETREF(values[i], l);
            Py_RETURN_NONE;
        }
        break;
    }
    Py_XSETREF(values[i], Py_NewRef(v));
    Py_RETURN_NONE;
}

/* _set_deterministic_algorithms(mode, *, warn_only=False) and its two getters */
static PyObject *det_set(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kwlist[] = {"mode", "warn_only", NULL};
    PyObject *mode, *warn = Py_False;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O!|$O!:_set_deterministic_algorithms", kwlist, &PyBool_Type, &mode,
                                     &PyBool_Type, &warn))
        return NULL;
    Py_XSETREF(det_algorithms, Py_NewRef(mode));
    Py_XSETREF(det_warn_only, Py_NewRef(warn));
    Py_RETURN_NONE;
}
static PyObject *det_get(PyObject *self, PyObject *u) { return Py_NewRef(det_algorithms); }
static PyObject *det_get_warn(PyObject *self, PyObject *u) { return Py_NewRef(det_warn_only); }

/* torch.backends.*.fp32_precision (_get_fp32_precision_getter / _set_fp32_precision_setter):
 * a precision per (backend, op), as upstream's Context: backends generic (op "all" only), cuda,
 * mkldnn; ops all, conv, rnn, matmul; precisions ieee, tf32, bf16 (not on cuda), none. Reading
 * a "none" entry falls back to the backend's "all", then to generic's; cuDNN conv / rnn never
 * set read as the legacy torch.backends.cudnn.allow_tf32 (default on: tf32) after that (measured). */
static const char *const fp32_backends[] = {"generic", "cuda", "mkldnn"};
static const char *const fp32_ops[] = {"all", "conv", "rnn", "matmul"};
static const char *const fp32_precs[] = {"none", "ieee", "tf32", "bf16"};
static int fp32_table[3][4];   /* indices into fp32_precs; 0 = none */
static bool fp32_set_once[3][4];   /* cuDNN conv / rnn: their tf32 default holds until set */

static int fp32_lookup(const char *const *names, int n, const char *s) {
    for (int i = 0; i < n; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}
static int fp32_key(const char *b, const char *o, int *bi, int *oi) {
    if ((*oi = fp32_lookup(fp32_ops, 4, o)) < 0) { PyErr_Format(PyExc_RuntimeError, "Unknown op: %s", o); return -1; }
    if ((*bi = fp32_lookup(fp32_backends, 3, b)) < 0) { PyErr_Format(PyExc_RuntimeError, "Unknown backend: %s", b); return -1; }
    if (*bi == 0 && *oi != 0) { PyErr_Format(PyExc_RuntimeError, "Invalid (backend, op) pair: (%d, %d)", *bi, *oi); return -1; }
    return 0;
}
static bool flag_true(const char *name) {
    for (int i = 0; i < N_FLAGS; i++)
        if (strcmp(flag_table[i].name, name) == 0) return values[i] == Py_True;
    return false;
}
static PyObject *fp32_get(PyObject *self, PyObject *args) {
    const char *b, *o;
    int bi, oi;
    if (!PyArg_ParseTuple(args, "ss:_get_fp32_precision_getter", &b, &o) || fp32_key(b, o, &bi, &oi) < 0) return NULL;
    int p = fp32_table[bi][oi];
    if (!p) p = fp32_table[bi][0];
    if (!p) p = fp32_table[0][0];
    if (!p && !fp32_set_once[bi][oi] && bi == 1 && (oi == 1 || oi == 2) && flag_true("cudnn_allow_tf32")) p = 2;
    return PyUnicode_FromString(fp32_precs[p]);
}
static PyObject *fp32_set(PyObject *self, PyObject *args) {
    const char *b, *o, *v;
    int bi, oi, p;
    if (!PyArg_ParseTuple(args, "sss:_set_fp32_precision_setter", &b, &o, &v) || fp32_key(b, o, &bi, &oi) < 0) return NULL;
    if ((p = fp32_lookup(fp32_precs, 4, v)) < 0) return PyErr_Format(PyExc_RuntimeError, "Unknown precision: %s", v);
    if (bi == 1 && p == 3) return PyErr_Format(PyExc_RuntimeError, "backend '%s' does not support precision '%s'", b, v);
    fp32_table[bi][oi] = p;
    fp32_set_once[bi][oi] = true;
    return PyUnicode_FromString(v);   /* upstream's setter returns the precision */
}

/* _set_autograd_fallback_mode(str) / _get_autograd_fallback_mode(): what autograd's fallback does
 * for an operator without an autograd kernel (autograd/record.c's fallback_call): "warn" (the
 * default) or "nothing"; upstream names "error" but refuses it (NYI), and asserts on any other */
static bool fallback_nothing;
bool tn_autograd_fallback_nothing(void) { return fallback_nothing; }
static PyObject *fallback_mode_set(PyObject *self, PyObject *mode) {
    if (!PyUnicode_Check(mode))
        return PyErr_Format(PyExc_TypeError, "_set_autograd_fallback_mode(): incompatible function arguments. The following "
                            "argument types are supported:\n    1. (arg0: str) -> None\n\nInvoked with: %R", mode);
    const char *m = PyUnicode_AsUTF8AndSize(mode, NULL);
    if (!m) return NULL;
    if (strcmp(m, "nothing") && strcmp(m, "warn")) {
        if (!strcmp(m, "error")) return PyErr_Format(PyExc_RuntimeError, "NYI: mode='error'");
        return PyErr_Format(PyExc_RuntimeError, "false INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/torch/csrc/autograd/"
                            "init.cpp\":653, please report a bug to PyTorch. Unsupported AutogradFallbackMode: %s", m);
    }
    fallback_nothing = m[0] == 'n';
    Py_RETURN_NONE;
}
static PyObject *fallback_mode_get(PyObject *self, PyObject *u) { return PyUnicode_FromString(fallback_nothing ? "nothing" : "warn"); }

static PyMethodDef get_def = {"get", flag_get, METH_NOARGS, NULL};
static PyMethodDef set_def = {"set", flag_set, METH_VARARGS, NULL};
static PyMethodDef det_defs[] = {
    {"_set_deterministic_algorithms", (PyCFunction)(void (*)(void))det_set, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_get_deterministic_algorithms", det_get, METH_NOARGS, NULL},
    {"_get_deterministic_algorithms_warn_only", det_get_warn, METH_NOARGS, NULL},
    {"_get_fp32_precision_getter", fp32_get, METH_VARARGS, NULL},
    {"_set_fp32_precision_setter", fp32_set, METH_VARARGS, NULL},
    {"_set_autograd_fallback_mode", fallback_mode_set, METH_O, "_set_autograd_fallback_mode(arg0: str) -> None\n"},
    {"_get_autograd_fallback_mode", fallback_mode_get, METH_NOARGS, "_get_autograd_fallback_mode() -> str\n"},
    {NULL},
};

/* a builtin named `name` in module m calling `def` with `self` (functions carry their own name
 * only through ml_name, so each flag function gets its own PyMethodDef) */
static PyMethodDef fn_defs[2 * N_FLAGS];
static char fn_names[2 * N_FLAGS][64];

static int add(PyObject *m, PyObject *modname, int slot, const char *prefix, int i) {
    if (flag_table[i].kind == F_SDP)
        snprintf(fn_names[slot], sizeof fn_names[slot], prefix[1] == 'g' ? "_get_%s_sdp_enabled" : "_set_sdp_use_%s",
                 flag_table[i].name);
    else
        snprintf(fn_names[slot], sizeof fn_names[slot], "%s%s", prefix, flag_table[i].name);
    PyObject *d = PyModule_GetDict(m);
    if (PyDict_GetItemString(d, fn_names[slot])) return 0;
    fn_defs[slot] = prefix[1] == 'g' ? get_def : set_def;
    fn_defs[slot].ml_name = fn_names[slot];
    PyObject *self = PyLong_FromLong(i);
    PyObject *f = self ? PyCFunction_NewEx(&fn_defs[slot], self, modname) : NULL;
    Py_XDECREF(self);
    int rc = f ? PyDict_SetItemString(d, fn_names[slot], f) : -1;
    Py_XDECREF(f);
    return rc;
}

int tn_runtime_flags_init(PyObject *m) {
    for (int i = 0; i < N_FLAGS; i++) {
        switch (flag_table[i].kind) {
        case F_BOOL:
        case F_SDP: values[i] = Py_NewRef(flag_table[i].dflt ? Py_True : Py_False); break;
        case F_PAIR: values[i] = PyTuple_Pack(2, Py_True, Py_True); break;
        case F_PRECISION: values[i] = PyUnicode_FromString("highest"); break;
        default:
            if (strcmp(flag_table[i].name, "cudnn_depthwise_kernel") == 0) values[i] = PyUnicode_FromString("auto");
            else if (strcmp(flag_table[i].name, "sdp_priority_order") == 0) values[i] = Py_BuildValue("[iiiii]", 1, 2, 0, 3, 4);
            else values[i] = Py_NewRef(Py_None);
        }
        if (!values[i]) return -1;
    }
    det_algorithms = Py_NewRef(Py_False);
    det_warn_only = Py_NewRef(Py_False);
    PyObject *modname = PyModule_GetNameObject(m);
    if (!modname) return -1;
    int rc = 0;
    for (int i = 0; rc == 0 && i < N_FLAGS; i++)
        if (add(m, modname, 2 * i, "_get_", i) < 0 || add(m, modname, 2 * i + 1, "_set_", i) < 0) rc = -1;
    PyObject *d = PyModule_GetDict(m);
    for (PyMethodDef *f = det_defs; rc == 0 && f->ml_name; f++) {
        if (PyDict_GetItemString(d, f->ml_name)) continue;
        PyObject *fn = PyCFunction_NewEx(f, NULL, modname);
        rc = fn ? PyDict_SetItemString(d, f->ml_name, fn) : -1;
        Py_XDECREF(fn);
    }
    Py_DECREF(modname);
    return rc;
}

/* torch.backends.mkldnn.enabled (_get_mkldnn_enabled), read by the recurrent layers (ops/rnn.c):
 * upstream runs float32 LSTMs through its oneDNN layer op while it is on */
bool tn_mkldnn_enabled(void) {
    for (int i = 0; i < N_FLAGS; i++)
        if (strcmp(flag_table[i].name, "mkldnn_enabled") == 0) return values[i] == Py_True;
    return false;
}
