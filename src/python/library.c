/* library.c — operators defined at run time through torch.library (torch._C._dispatch_library).
 *
 * Upstream's Python defines whole namespaces this way at import (prims, higher-order helpers,
 * custom ops). A definition records its schema; `impl` records a Python kernel per dispatch key.
 * torch.ops.<ns>.<op> finds them through tn_library_lookup (functions.c), and calling one runs
 * the Python kernel registered for the first of these keys: CompositeImplicitAutograd, CPU,
 * CompositeExplicitAutograd, Autograd, AutogradCPU — the keys a CPU eager call reaches. An
 * operator with none of them refuses by name. */
#include "python/library.h"

#include <string.h>

#include "python/common.h"
#include "python/schema_type.h"
#include "dispatch/door.h"
#include "autograd/autograd.h"

/* qualname "ns::name" -> list of [overload (str), schema (FunctionSchema), impls (dict key->fn)] */
static PyObject *registry;

static PyObject *entries_of(const char *qualname, int create) {
    if (!registry && !(registry = PyDict_New())) return NULL;
    PyObject *l = PyDict_GetItemString(registry, qualname);
    if (l || !create) return l;
    l = PyList_New(0);
    if (!l || PyDict_SetItemString(registry, qualname, l) < 0) { Py_XDECREF(l); return NULL; }
    Py_DECREF(l);
    return l;
}

static PyObject *find_entry(const char *qualname, const char *overload) {
    PyObject *l = entries_of(qualname, 0);
    for (Py_ssize_t i = 0; l && i < PyList_Size(l); i++) {
        PyObject *e = PyList_GetItem(l, i);
        const char *ov = PyUnicode_AsUTF8AndSize(PyList_GetItem(e, 0), NULL);
        if (ov && !strcmp(ov, overload)) return e;
    }
    return NULL;
}

static const char *const call_keys[] = {"CompositeImplicitAutograd", "CPU", "CompositeExplicitAutograd",
                                        "Autograd", "AutogradCPU", NULL};

/* Call a registered overload (entry) or, for a packet, the first overload with a kernel. */
static PyObject *call_entry(PyObject *entry, const char *what, PyObject *args, PyObject *kw) {
    PyObject *impls = PyList_GetItem(entry, 2);
    for (int k = 0; call_keys[k]; k++) {
        PyObject *fn = PyDict_GetItemString(impls, call_keys[k]);
        if (fn) return PyObject_Call(fn, args, kw);
    }
    PyErr_Format(PyExc_NotImplementedError, "torchnative: %s is not implemented", what);
    return NULL;
}

/* m_self: (qualname, overload or None) */
static PyObject *op_entry(PyObject *self, PyObject *args, PyObject *kw) {
    const char *q = PyUnicode_AsUTF8AndSize(PyTuple_GetItem(self, 0), NULL);
    PyObject *ovo = PyTuple_GetItem(self, 1);
    if (!q) return NULL;
    if (ovo != Py_None) {
        const char *ov = PyUnicode_AsUTF8AndSize(ovo, NULL);
        PyObject *e = ov ? find_entry(q, ov) : NULL;
        if (!e) return PyErr_Format(PyExc_RuntimeError, "operator %s.%s was removed", q, ov ? ov : "");
        char what[256];
        snprintf(what, sizeof what, "%s%s%s", q, ov[0] ? "." : "", ov);
        return call_entry(e, what, args, kw);
    }
    PyObject *l = entries_of(q, 0);
    for (Py_ssize_t i = 0; l && i < PyList_Size(l); i++) {
        PyObject *e = PyList_GetItem(l, i);
        if (PyDict_Size(PyList_GetItem(e, 2))) return call_entry(e, q, args, kw);
    }
    return PyErr_Format(PyExc_NotImplementedError, "torchnative: %s is not implemented", q);
}

static PyMethodDef op_def = {"op", (PyCFunction)(void (*)(void))op_entry, METH_VARARGS | METH_KEYWORDS, NULL};

static PyObject *make_op(const char *qualname, PyObject *overload) {
    PyObject *self = Py_BuildValue("(sO)", qualname, overload);
    if (!self) return NULL;
    PyObject *f = PyCFunction_NewEx(&op_def, self, NULL);
    Py_DECREF(self);
    return f;
}

PyObject *tn_library_get_operation(const char *qualname) {
    PyObject *l = entries_of(qualname, 0);
    if (!l || !PyList_Size(l)) return NULL;
    PyObject *names = PyList_New(0);
    for (Py_ssize_t i = 0; names && i < PyList_Size(l); i++)
        if (PyList_Append(names, PyList_GetItem(PyList_GetItem(l, i), 0)) < 0) Py_CLEAR(names);
    PyObject *f = names ? make_op(qualname, Py_None) : NULL;
    if (!f) { Py_XDECREF(names); return NULL; }
    return Py_BuildValue("(NN)", f, names);
}

PyObject *tn_library_get_overload(const char *qualname, const char *overload) {
    PyObject *e = find_entry(qualname, overload);
    if (!e) return NULL;
    PyObject *ov = PyList_GetItem(e, 0);
    PyObject *f = make_op(qualname, ov), *fdk = make_op(qualname, ov), *tags = PyList_New(0);
    if (!f || !fdk || !tags) { Py_XDECREF(f); Py_XDECREF(fdk); Py_XDECREF(tags); return NULL; }
    return Py_BuildValue("(NNN)", f, fdk, tags);
}

PyObject *tn_library_get_schema(const char *qualname, const char *overload) {
    PyObject *e = find_entry(qualname, overload);
    return e ? Py_NewRef(PyList_GetItem(e, 1)) : NULL;
}

bool tn_library_has(const char *qualname, const char *overload, const char *key) {
    PyObject *e = find_entry(qualname, overload ? overload : "");
    if (!e) return false;
    return !key || PyDict_GetItemString(PyList_GetItem(e, 2), key) != NULL;
}

/* ---------- the Library handle returned by _dispatch_library ---------- */

typedef struct {
    PyObject_HEAD
    PyObject *ns;      /* str */
    PyObject *key;     /* default dispatch key str ("" for none) */
    PyObject *defs;    /* list of (qualname, overload) this handle defined, removed by reset() */
} lib_obj;

static void lib_dealloc(PyObject *self) {
    lib_obj *o = (lib_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(o->ns);
    Py_CLEAR(o->key);
    Py_CLEAR(o->defs);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* "name.overload" or "ns::name.overload" -> qualified name and overload */
static int split_name(lib_obj *o, const char *full, char *q, size_t qn, const char **ov) {
    const char *dot = strchr(full, '.');
    const char *colon = strstr(full, "::");
    size_t n = dot ? (size_t)(dot - full) : strlen(full);
    if (colon) snprintf(q, qn, "%.*s", (int)n, full);
    else snprintf(q, qn, "%s::%.*s", PyUnicode_AsUTF8AndSize(o->ns, NULL), (int)n, full);
    *ov = dot ? dot + 1 : "";
    return 0;
}

static PyObject *lib_define(PyObject *self, PyObject *args, PyObject *kw) {
    lib_obj *o = (lib_obj *)self;
    static char *kws[] = {"schema", "alias_analysis", "tags", NULL};
    const char *schema, *alias = "";
    PyObject *tags = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "s|sO:define", kws, &schema, &alias, &tags)) return NULL;
    char q[256];
    const char *ov;
    const char *paren = strchr(schema, '(');
    if (!paren) return PyErr_Format(PyExc_RuntimeError, "Expected a schema, got '%s'", schema);
    char head[256];
    snprintf(head, sizeof head, "%.*s", (int)(paren - schema), schema);
    split_name(o, head, q, sizeof q, &ov);
    if (find_entry(q, ov))
        return PyErr_Format(PyExc_RuntimeError, "Tried to register an operator (%s%s%s) with the same name and overload name multiple times.",
                            q, ov[0] ? "." : "", ov);
    /* parse with the namespace so FunctionSchema.name is "ns::name" */
    char full[4096];
    snprintf(full, sizeof full, "%s%s", strstr(schema, "::") ? "" : PyUnicode_AsUTF8AndSize(o->ns, NULL), strstr(schema, "::") ? "" : "::");
    strncat(full, schema, sizeof full - strlen(full) - 1);
    PyObject *text = PyUnicode_FromString(full);
    PyObject *parse = text ? PyObject_GetAttrString(tn_py.module, "parse_schema") : NULL;
    PyObject *fs = parse ? PyObject_CallFunctionObjArgs(parse, text, NULL) : NULL;
    Py_XDECREF(text);
    Py_XDECREF(parse);
    if (!fs) return NULL;
    PyObject *l = entries_of(q, 1);
    PyObject *e = l ? Py_BuildValue("[sNN]", ov, fs, PyDict_New()) : NULL;
    if (!e || PyList_Append(l, e) < 0) { Py_XDECREF(e); return NULL; }
    Py_DECREF(e);
    PyObject *rec = Py_BuildValue("(ss)", q, ov);
    if (!rec || PyList_Append(o->defs, rec) < 0) { Py_XDECREF(rec); return NULL; }
    Py_DECREF(rec);
    return PyUnicode_FromString(head);
}

static PyObject *lib_impl(PyObject *self, PyObject *args, PyObject *kw) {
    lib_obj *o = (lib_obj *)self;
    static char *kws[] = {"name", "dispatch", "func", "with_keyset", NULL};
    const char *name, *key;
    PyObject *fn;
    int with_keyset = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "ssO|p:impl", kws, &name, &key, &fn, &with_keyset)) return NULL;
    char q[256];
    const char *ov;
    split_name(o, name, q, sizeof q, &ov);
    PyObject *e = find_entry(q, ov);
    if (!key[0]) key = PyUnicode_AsUTF8AndSize(o->key, NULL);
    if (!key || !key[0]) key = "CompositeImplicitAutograd";
    if (!e && !strncmp(q, "aten::", 6) && !strcmp(key, "Meta")) /* a Python meta kernel of an aten op (door.c) */
        tn_door_mark_py_meta(tn_op_find(q + 6, ov), fn);
    if (!e) /* an impl for an operator we do not know (e.g. an aten op with a C kernel): record nothing */
        Py_RETURN_NONE;
    if (with_keyset) Py_RETURN_NONE; /* kernels taking a DispatchKeySet are not callable from here */
    if (PyDict_SetItemString(PyList_GetItem(e, 2), key, fn) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *lib_reset(PyObject *self, PyObject *unused) {
    lib_obj *o = (lib_obj *)self;
    for (Py_ssize_t i = 0; i < PyList_Size(o->defs); i++) {
        PyObject *rec = PyList_GetItem(o->defs, i);
        const char *q = PyUnicode_AsUTF8AndSize(PyTuple_GetItem(rec, 0), NULL);
        PyObject *l = q ? entries_of(q, 0) : NULL;
        for (Py_ssize_t j = 0; l && j < PyList_Size(l); j++)
            if (PyObject_RichCompareBool(PyList_GetItem(PyList_GetItem(l, j), 0), PyTuple_GetItem(rec, 1), Py_EQ) == 1) {
                PySequence_DelItem(l, j);
                break;
            }
    }
    Py_XSETREF(o->defs, PyList_New(0));
    Py_RETURN_NONE;
}

static PyObject *lib_fallback(PyObject *self, PyObject *args, PyObject *kw) { Py_RETURN_NONE; }

static PyMethodDef lib_methods[] = {
    {"define", (PyCFunction)(void (*)(void))lib_define, METH_VARARGS | METH_KEYWORDS, NULL},
    {"impl", (PyCFunction)(void (*)(void))lib_impl, METH_VARARGS | METH_KEYWORDS, NULL},
    {"fallback", (PyCFunction)(void (*)(void))lib_fallback, METH_VARARGS | METH_KEYWORDS, NULL},
    {"reset", lib_reset, METH_NOARGS, NULL},
    {NULL},
};

static PyType_Slot lib_slots[] = {
    {Py_tp_dealloc, lib_dealloc},
    {Py_tp_methods, lib_methods},
    {0, NULL},
};
static PyType_Spec lib_spec = {"torch._C._DispatchModule", sizeof(lib_obj), 0, Py_TPFLAGS_DEFAULT, lib_slots};
static PyTypeObject *lib_type;

static PyObject *dispatch_library(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"kind", "ns", "dispatch_key", "file", "linenum", NULL};
    const char *kind, *file = "";
    PyObject *ns, *key = NULL;
    int line = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "sU|Usi:_dispatch_library", kws, &kind, &ns, &key, &file, &line))
        return NULL;
    lib_obj *o = PyObject_New(lib_obj, lib_type);
    if (!o) return NULL;
    o->ns = Py_NewRef(ns);
    o->key = key ? Py_NewRef(key) : PyUnicode_FromString("");
    o->defs = PyList_New(0);
    if (!o->key || !o->defs) { Py_DECREF(o); return NULL; }
    return (PyObject *)o;
}

/* "ns::name.overload" -> does it have a kernel for `key` (NULL: any)? Static aten operators have
 * one C kernel, which serves the CPU key; run-time operators answer from their registrations. */
static int has_kernel(PyObject *qualified, const char *key) {
    const char *full = PyUnicode_AsUTF8AndSize(qualified, NULL);
    if (!full) return -1;
    char q[256];
    const char *dot = strrchr(full, '.'), *colon = strstr(full, "::");
    const char *ov = (dot && colon && dot > colon) ? dot + 1 : "";
    snprintf(q, sizeof q, "%.*s", (int)(ov[0] ? dot - full : (long)strlen(full)), full);
    if (tn_library_has(q, ov, key)) return 1;
    if (strncmp(q, "aten::", 6) == 0) {
        /* every native_functions.yaml operator has a kernel upstream (JIT-only overloads such as
         * add.float_int do not); ours refuse by name when called, but they exist */
        int row = tn_op_find(q + 6, ov);
        if (row >= 0 && !key && tn_op_at(row)->variants) return 1;
        if (row >= 0 && key && tn_op_at(row)->fn && !strcmp(key, "CPU")) return 1;
        /* a CompositeImplicitAutograd overload we run as its decomposition (autograd/decomp.c) */
        if (row >= 0 && key && !strcmp(key, "CompositeImplicitAutograd")) return tn_op_decomposes(row);
    }
    return 0;
}

static PyObject *has_kernel_for_key(PyObject *m, PyObject *args) {
    PyObject *name, *key;
    if (!PyArg_ParseTuple(args, "UO:_dispatch_has_kernel_for_dispatch_key", &name, &key)) return NULL;
    PyObject *ks = PyObject_Str(key);
    if (!ks) return NULL;
    const char *k = PyUnicode_AsUTF8AndSize(ks, NULL);
    if (k && !strncmp(k, "DispatchKey.", 12)) k += 12;
    int r = k ? has_kernel(name, k) : -1;
    Py_DECREF(ks);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

static PyObject *has_kernel_any(PyObject *m, PyObject *name) {
    if (!PyUnicode_Check(name)) return PyErr_Format(PyExc_TypeError, "expected an operator name");
    int r = has_kernel(name, NULL);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

static PyMethodDef library_functions[] = {
    {"_dispatch_has_kernel_for_dispatch_key", has_kernel_for_key, METH_VARARGS, NULL},
    {"_dispatch_has_kernel", has_kernel_any, METH_O, NULL},
    {"_dispatch_library", (PyCFunction)(void (*)(void))dispatch_library, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL},
};

int tn_library_init(PyObject *m) {
    lib_type = (PyTypeObject *)PyType_FromSpec(&lib_spec);
    if (!lib_type) return -1;
    return PyModule_AddFunctions(m, library_functions);
}
