/* return_types.c — torch._C._return_types: the named-tuple result types (torch.return_types.max
 * with fields values, indices, ...), one per operator returning several named values, made from
 * the generated table as struct sequences. Upstream's torch/return_types.py re-exports them. */
#include "python/common.h"
#include "dispatch/door.h"
#include "tn_ops_gen.h"

#include <string.h>

static PyObject *types[TN_RETURN_TYPE_COUNT];

PyObject *tn_return_type(const char *name) {
    int lo = 0, hi = TN_RETURN_TYPE_COUNT;
    while (lo < hi) {
        int mid = (lo + hi) / 2, c = strcmp(tn_return_type_defs[mid].name, name);
        if (c == 0) return types[mid];
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* upstream's repr (returned_structseq_repr): "torch.return_types.max(\nvalues=...,\nindices=...)",
 * one field per line, each value's own repr unindented; `flat`: the struct sequence's own one-line
 * repr, what the type's __repr__ attribute still gives upstream */
static PyObject *repr_with(PyObject *self, bool flat) {
    PyObject *type = (PyObject *)Py_TYPE(self);
    PyObject *name = PyObject_GetAttrString(type, "__name__"), *fields = PyObject_GetAttrString(type, "__match_args__");
    PyObject *parts = PyList_New(0), *r = NULL;
    Py_ssize_t n = fields ? PyTuple_Size(fields) : -1;
    for (Py_ssize_t i = 0; parts && i < n; i++) {
        PyObject *v = PySequence_GetItem(self, i);
        PyObject *part = v ? PyUnicode_FromFormat("%U=%R", PyTuple_GetItem(fields, i), v) : NULL;
        Py_XDECREF(v);
        if (!part || PyList_Append(parts, part) < 0) Py_CLEAR(parts);
        Py_XDECREF(part);
    }
    PyObject *sep = PyUnicode_FromString(flat ? ", " : ",\n"), *body = parts && sep ? PyUnicode_Join(sep, parts) : NULL;
    if (name && body) r = PyUnicode_FromFormat(flat ? "torch.return_types.%U(%U)" : "torch.return_types.%U(\n%U)", name, body);
    Py_XDECREF(name); Py_XDECREF(fields); Py_XDECREF(parts); Py_XDECREF(sep); Py_XDECREF(body);
    return r;
}
static PyObject *structseq_repr(PyObject *self, PyObject *unused) { return repr_with(self, false); }
static PyMethodDef repr_def = {"__repr__", structseq_repr, METH_NOARGS, NULL};

/* the descriptor set as each type's __repr__: getting it through an instance binds that instance */
static PyObject *repr_descr_get(PyObject *descr, PyObject *obj, PyObject *type) {
    if (!obj || obj == Py_None) return Py_NewRef(descr);
    return PyCFunction_NewEx(&repr_def, obj, NULL);
}
static PyObject *repr_descr_call(PyObject *descr, PyObject *args, PyObject *kw) {   /* type.__repr__(instance) */
    if (PyTuple_Size(args) != 1 || (kw && PyDict_Size(kw))) {
        PyErr_SetString(PyExc_TypeError, "__repr__() takes exactly one argument");
        return NULL;
    }
    return repr_with(PyTuple_GetItem(args, 0), true);
}
static PyType_Slot repr_descr_slots[] = {{Py_tp_descr_get, repr_descr_get}, {Py_tp_call, repr_descr_call}, {0, NULL}};
static PyType_Spec repr_descr_spec = {"torch._C._return_types._repr", 0, 0, Py_TPFLAGS_DEFAULT, repr_descr_slots};

int tn_return_types_init(PyObject *m) {
    PyObject *sub = tn_py_submodule("_return_types");
    if (!sub) return -1;
    PyObject *descr_type = PyType_FromSpec(&repr_descr_spec);
    PyObject *descr = descr_type ? PyObject_CallNoArgs(descr_type) : NULL;
    Py_XDECREF(descr_type);
    if (!descr) { Py_DECREF(sub); return -1; }
    for (int i = 0; i < TN_RETURN_TYPE_COUNT; i++) {
        int n = tn_return_type_defs[i].n;
        PyStructSequence_Field *fields = PyMem_Calloc((size_t)n + 1, sizeof *fields);
        char *qual = PyMem_Malloc(strlen(tn_return_type_defs[i].name) + 32);
        if (!fields || !qual) { Py_DECREF(sub); PyErr_NoMemory(); return -1; }
        for (int k = 0; k < n; k++) fields[k].name = tn_return_type_defs[i].fields[k];
        sprintf(qual, "torch.return_types.%s", tn_return_type_defs[i].name);
        PyStructSequence_Desc desc = {qual, NULL, fields, n};
        PyObject *t = (PyObject *)PyStructSequence_NewType(&desc);
        if (!t || PyObject_SetAttrString(t, "__repr__", descr) < 0 || PyModule_AddObjectRef(sub, tn_return_type_defs[i].name, t) < 0) {
            Py_XDECREF(t);
            Py_DECREF(sub);
            Py_DECREF(descr);
            return -1;
        }
        types[i] = t;
    }
    Py_DECREF(descr);
    Py_DECREF(sub);
    return 0;
}
