/* python/parse_to.c — torch._C._nn._parse_to, the argument parser nn.Module.to (and other
 * upstream Python code) uses to read Tensor.to-style arguments without converting anything.
 *
 * Upstream matches three signatures in order and returns (device, dtype, non_blocking,
 * memory_format), None for what was not given:
 *   to(Device device=None, ScalarType dtype=None, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)
 *   to(ScalarType dtype, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)
 *   to(Tensor tensor, bool non_blocking=False, bool copy=False, *, MemoryFormat? memory_format=None)
 * A device is a str, an int (not bool) or a torch.device, turned into torch.device afterwards (its
 * own RuntimeErrors); a dtype is a torch.dtype or one of the Python types float/int/bool/complex;
 * a Tensor may also be a Python number (its wrapped-number dtype). Any copy argument, even False,
 * is refused after matching. Mismatches raise upstream's TypeError listing the three signatures
 * (measured against torch 2.13.0). */
#include "python/common.h"
#include "python/tensor.h"

#include <string.h>

enum { P_DEVICE, P_DTYPE, P_TENSOR, P_BOOL, P_MEMFMT };

typedef struct {
    const char *name;
    int kind;
    bool required;
    bool none_ok;
} pt_param;

/* positional parameters first (npos), then the keyword-only memory_format */
typedef struct {
    int npos;
    int n;
    pt_param p[5];
} pt_sig;

static const pt_sig sigs[3] = {
    {4, 5, {{"device", P_DEVICE, false, true}, {"dtype", P_DTYPE, false, true}, {"non_blocking", P_BOOL, false, false},
            {"copy", P_BOOL, false, false}, {"memory_format", P_MEMFMT, false, true}}},
    {3, 4, {{"dtype", P_DTYPE, true, false}, {"non_blocking", P_BOOL, false, false}, {"copy", P_BOOL, false, false},
            {"memory_format", P_MEMFMT, false, true}}},
    {3, 4, {{"tensor", P_TENSOR, true, false}, {"non_blocking", P_BOOL, false, false}, {"copy", P_BOOL, false, false},
            {"memory_format", P_MEMFMT, false, true}}},
};

static const char expected_text[] =
    "but expected one of:\n"
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n";

static bool is_pytype_dtype(PyObject *o) {
    return o == (PyObject *)&PyFloat_Type || o == (PyObject *)&PyLong_Type || o == (PyObject *)&PyBool_Type ||
           o == (PyObject *)&PyComplex_Type;
}

static bool is_number(PyObject *o) {
    return PyBool_Check(o) || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o);
}

static bool accepts(const pt_param *p, PyObject *o) {
    if (o == Py_None) return p->none_ok;
    switch (p->kind) {
    case P_DEVICE:
        return PyObject_TypeCheck(o, tn_py.device_type) || PyUnicode_Check(o) || (PyLong_Check(o) && !PyBool_Check(o));
    case P_DTYPE: return tn_py_is_dtype(o) || is_pytype_dtype(o);
    case P_TENSOR: return tn_py_is_tensor(o) || is_number(o);
    case P_BOOL: return PyBool_Check(o);
    case P_MEMFMT: return PyObject_TypeCheck(o, tn_py.memory_format_type);
    }
    return false;
}

/* Bind args/kw to sig into vals (NULL: not given). */
static bool bind(const pt_sig *s, PyObject *args, PyObject *kw, PyObject **vals) {
    Py_ssize_t n = PyTuple_Size(args);
    if (n > s->npos) return false;
    for (int i = 0; i < s->n; i++) vals[i] = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *o = PyTuple_GetItem(args, i);
        if (!accepts(&s->p[i], o)) return false;
        vals[i] = o;
    }
    if (kw) {
        PyObject *key, *val;
        Py_ssize_t it = 0;
        while (PyDict_Next(kw, &it, &key, &val)) {
            const char *k = PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, NULL) : NULL;
            if (!k) { PyErr_Clear(); return false; }
            int j = -1;
            for (int i = 0; i < s->n; i++)
                if (!strcmp(k, s->p[i].name)) j = i;
            if (j < 0 || vals[j] || !accepts(&s->p[j], val)) return false;
            vals[j] = val;
        }
    }
    for (int i = 0; i < s->n; i++)
        if (s->p[i].required && !vals[i]) return false;
    return true;
}

/* Upstream's short type names in "got (...)". */
static PyObject *type_label(PyObject *o) {
    if (tn_py_is_tensor(o)) return PyUnicode_FromString("Tensor");
    if (tn_py_is_dtype(o)) return PyUnicode_FromString("torch.dtype");
    if (PyObject_TypeCheck(o, tn_py.device_type)) return PyUnicode_FromString("torch.device");
    if (PyObject_TypeCheck(o, tn_py.memory_format_type)) return PyUnicode_FromString("torch.memory_format");
    if (PyObject_TypeCheck(o, tn_py.layout_type)) return PyUnicode_FromString("torch.layout");
    return PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__name__");
}

/* TypeError: "to() received an invalid combination of arguments - got (A, B, k=T), but expected
 * one of: ...". Keywords are listed sorted by name; with no positional arguments each keyword
 * is followed by ", " (upstream's spelling). */
PyObject *tn_to_no_match(PyObject *args, PyObject *kw) {
    PyObject *parts = PyList_New(0);
    Py_ssize_t n = PyTuple_Size(args);
    for (Py_ssize_t i = 0; parts && i < n; i++) {
        PyObject *l = type_label(PyTuple_GetItem(args, i));
        if (!l || PyList_Append(parts, l) < 0) Py_CLEAR(parts);
        Py_XDECREF(l);
    }
    PyObject *keys = kw ? PyDict_Keys(kw) : PyList_New(0);
    if (keys && PyList_Sort(keys) < 0) Py_CLEAR(keys);
    for (Py_ssize_t i = 0; parts && keys && i < PyList_Size(keys); i++) {
        PyObject *k = PyList_GetItem(keys, i);
        PyObject *l = type_label(PyDict_GetItem(kw, k));
        PyObject *s = l ? PyUnicode_FromFormat("%S=%U", k, l) : NULL;
        if (!s || PyList_Append(parts, s) < 0) Py_CLEAR(parts);
        Py_XDECREF(l);
        Py_XDECREF(s);
    }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *joined = parts && sep ? PyUnicode_Join(sep, parts) : NULL;
    if (joined) {
        bool trailing = n == 0 && keys && PyList_Size(keys) > 0;
        PyErr_Format(PyExc_TypeError, "to() received an invalid combination of arguments - got (%U%s), %s", joined,
                     trailing ? ", " : "", expected_text);
    }
    Py_XDECREF(parts);
    Py_XDECREF(keys);
    Py_XDECREF(sep);
    Py_XDECREF(joined);
    return NULL;
}

static PyObject *dtype_of(PyObject *o) {
    if (tn_py_is_dtype(o)) return Py_NewRef(o);
    tn_dtype d = o == (PyObject *)&PyFloat_Type ? TN_DTYPE_F64
               : o == (PyObject *)&PyLong_Type ? TN_DTYPE_I64
               : o == (PyObject *)&PyBool_Type ? TN_DTYPE_BOOL
                                                : TN_DTYPE_C128;
    return tn_py_from_dtype(d);
}

static PyObject *parse_to(PyObject *mod, PyObject *args, PyObject *kw) {
    Py_ssize_t n = PyTuple_Size(args);
    if (n > 4) {
        PyErr_Format(PyExc_TypeError, "to() takes from 0 to 4 positional arguments but %zd were given", n);
        return NULL;
    }
    PyObject *vals[5];
    int which = -1;
    for (int s = 0; s < 3 && which < 0; s++)
        if (bind(&sigs[s], args, kw, vals)) which = s;
    if (which < 0) return tn_to_no_match(args, kw);
    const pt_sig *s = &sigs[which];
    PyObject *dev = NULL, *dt = NULL, *nb = NULL, *cp = NULL, *mf = NULL;
    for (int i = 0; i < s->n; i++) {
        switch (s->p[i].kind) {
        case P_DEVICE: dev = vals[i]; break;
        case P_DTYPE: dt = vals[i]; break;
        case P_BOOL: if (!strcmp(s->p[i].name, "copy")) cp = vals[i]; else nb = vals[i]; break;
        case P_MEMFMT: mf = vals[i]; break;
        case P_TENSOR: break;
        }
    }
    PyObject *rdev = NULL, *rdt = NULL;
    if (which == 2) {
        PyObject *t = vals[0];
        if (tn_py_is_tensor(t)) {
            rdev = PyObject_GetAttrString(t, "device");
            rdt = rdev ? PyObject_GetAttrString(t, "dtype") : NULL;
        } else {
            rdev = Py_NewRef(tn_py.device_cpu);
            tn_dtype d = PyBool_Check(t) ? TN_DTYPE_BOOL : PyLong_Check(t) ? TN_DTYPE_I64
                       : PyFloat_Check(t) ? TN_DTYPE_F64 : TN_DTYPE_C128;
            rdt = tn_py_from_dtype(d);
        }
        if (!rdt) { Py_XDECREF(rdev); return NULL; }
    } else {
        rdev = dev && dev != Py_None ? PyObject_CallFunctionObjArgs((PyObject *)tn_py.device_type, dev, NULL) : Py_NewRef(Py_None);
        if (!rdev) return NULL;
        rdt = dt && dt != Py_None ? dtype_of(dt) : Py_NewRef(Py_None);
        if (!rdt) { Py_DECREF(rdev); return NULL; }
    }
    if (cp) {
        Py_DECREF(rdev);
        Py_DECREF(rdt);
        PyErr_SetString(PyExc_RuntimeError, ".to() does not accept copy argument");
        return NULL;
    }
    PyObject *r = PyTuple_New(4);
    if (!r) { Py_DECREF(rdev); Py_DECREF(rdt); return NULL; }
    PyTuple_SetItem(r, 0, rdev);
    PyTuple_SetItem(r, 1, rdt);
    PyTuple_SetItem(r, 2, Py_NewRef(nb == Py_True ? Py_True : Py_False));
    PyTuple_SetItem(r, 3, Py_NewRef(mf ? mf : Py_None));
    return r;
}

static PyMethodDef parse_to_methods[] = {
    {"_parse_to", (PyCFunction)(void (*)(void))parse_to, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL, NULL, 0, NULL},
};

int tn_parse_to_init(PyObject *m) {
    PyObject *nn = PyObject_GetAttrString(m, "_nn");
    if (!nn) {
        PyErr_Clear();
        nn = tn_py_submodule("_nn");
        if (!nn) return -1;
    }
    PyObject *name = PyUnicode_FromString("torch._C._nn");
    PyObject *f = name ? PyCMethod_New(&parse_to_methods[0], NULL, name, NULL) : NULL;
    Py_XDECREF(name);
    int rc = f ? PyObject_SetAttrString(nn, "_parse_to", f) : -1;
    Py_XDECREF(f);
    Py_DECREF(nn);
    return rc;
}
