/* subclass.c — the door's tensor-subclass stage (upstream's Python dispatch key for tensors).
 *
 * A Tensor subclass whose class defines __torch_dispatch__ (anything but
 * torch._C._disabled_torch_dispatch_impl, which torch.Tensor itself carries) gets every call with
 * one of its instances among the arguments, inside lists too, below autograd and after the
 * dispatch modes (door.c): __torch_dispatch__(func, types, args, kwargs) of the first such class
 * in upstream's order (argument order, a subclass before a class it derives from), then the next
 * when one returns NotImplemented; all NotImplemented is upstream's TypeError. func, args and
 * kwargs are the mode stage's (tn_door_python_call). Such tensors are usually wrappers made by
 * Tensor._make_wrapper_subclass (python/tensor.c): geometry and a storage without bytes, which no
 * kernel may read (tn_door_no_data refuses, where upstream would crash). Their metadata queries
 * (size, stride, dim, numel, device, layout) go to __torch_dispatch__ when the class asked for it
 * (tn_subclass_query).
 *
 * torch._C._disabled_torch_dispatch_impl(func, types, args, kwargs) runs func with the stage and
 * the modes off (the _DisableTorchDispatch state, modes.c), as upstream excludes its Python key. */
#include "dispatch/subclass.h"

#include <stdio.h>
#include <string.h>

#include "core/object.h"
#include "autograd/autograd.h"
#include "dispatch/door.h"
#include "dispatch/modes.h"
#include "tn_ops_gen.h"

static PyObject *disabled_impl;   /* torch._C._disabled_torch_dispatch_impl */

/* The answer per class, looked up once (upstream decides when the tensor is made, from its class):
 * a few classes (nn.Parameter, buffers' subclasses, the user's) held so their address stays theirs */
#define N_SEEN 64
static struct { PyObject *type; bool has; } seen[N_SEEN];
static int nseen;

static bool lookup(PyTypeObject *tp);

bool tn_has_torch_dispatch(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    if (tp == tn_py.tensor_class || tp == tn_py.TensorBase || !disabled_impl) return false;
    for (int i = 0; i < nseen; i++)
        if (seen[i].type == (PyObject *)tp) return seen[i].has;
    bool has = lookup(tp);
    if (nseen < N_SEEN) {
        seen[nseen].type = Py_NewRef((PyObject *)tp);
        seen[nseen++].has = has;
    }
    return has;
}

static bool lookup(PyTypeObject *tp) {
    PyObject *td = PyObject_GetAttrString((PyObject *)tp, "__torch_dispatch__");
    if (!td) { PyErr_Clear(); return false; }
    /* a classmethod or staticmethod: compare the function it wraps */
    PyObject *fn = PyObject_GetAttrString(td, "__func__");
    if (!fn) { PyErr_Clear(); fn = Py_NewRef(td); }
    bool r = fn != disabled_impl && td != disabled_impl;
    Py_DECREF(fn);
    Py_DECREF(td);
    return r;
}

static bool wants(PyObject *o) { return tn_py_is_tensor(o) && Py_TYPE(o) != tn_py.tensor_class && tn_has_torch_dispatch(o); }

bool tn_subclass_wants(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR && wants(args[i].u.obj)) return true;
        if (args[i].tag == TN_V_TENSORLIST)
            for (Py_ssize_t k = 0; k < PyTuple_Size(args[i].u.obj); k++)
                if (wants(PyTuple_GetItem(args[i].u.obj, k))) return true;
    }
    return false;
}

static bool nested(PyObject *o) { return tn_py_is_tensor(o) && (((tn_tensor_obj *)o)->py_policy & TN_PY_NESTED); }

bool tn_subclass_nested(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return false; }
    for (int i = 0; i < s->nargs; i++) {
        if (args[i].tag == TN_V_TENSOR && nested(args[i].u.obj)) return true;
        if (args[i].tag == TN_V_TENSORLIST)
            for (Py_ssize_t k = 0; k < PyTuple_Size(args[i].u.obj); k++)
                if (nested(PyTuple_GetItem(args[i].u.obj, k))) return true;
    }
    return false;
}

/* "torch._ops.aten.add.Tensor", as upstream names func in its error */
static PyObject *func_name(int op) {
    const tn_op_def *d = tn_op_at(op);
    const char *colon = strstr(d->name, "::");
    char ns[64];
    snprintf(ns, sizeof ns, "%.*s", colon ? (int)(colon - d->name) : 4, colon ? d->name : "aten");
    return PyUnicode_FromFormat("torch._ops.%s.%s.%s", ns, colon ? colon + 2 : d->name, d->overload[0] ? d->overload : "default");
}

static PyObject *all_not_implemented(PyObject *name, PyObject *types) {
    PyObject *lines = PyUnicode_FromString("");
    for (Py_ssize_t i = 0; lines && i < PyTuple_Size(types); i++) {
        PyObject *l = PyUnicode_FromFormat("  - tensor subclass %R\n", PyTuple_GetItem(types, i));
        PyObject *j = l ? PyUnicode_Concat(lines, l) : NULL;
        Py_XDECREF(l);
        Py_XSETREF(lines, j);
    }
    if (lines)
        PyErr_Format(PyExc_TypeError,
                     "Multiple dispatch failed for '%U'; all __torch_dispatch__ handlers returned NotImplemented:\n\n%U"
                     "\nFor more information, try re-running with TORCH_LOGS=not_implemented", name, lines);
    Py_XDECREF(lines);
    return NULL;
}

/* torch.distributed.tensor.DTensor, if that module is loaded (NULL otherwise; borrowed from it) */
static PyObject *dtensor_class(void) {
    PyObject *mods = PyImport_GetModuleDict();   /* borrowed */
    PyObject *mod = mods ? PyDict_GetItemString(mods, "torch.distributed.tensor._api") : NULL;
    PyObject *c = mod ? PyObject_GetAttrString(mod, "DTensor") : NULL;
    if (!c) PyErr_Clear();
    Py_XDECREF(c);   /* the module keeps it */
    return c;
}

static PyObject *call_handlers(PyObject *func, PyObject *types, PyObject *pargs, PyObject *kwargs, PyObject *name) {
    /* upstream dispatches a DTensor in C++ (dispatchDTensorOp: sharding propagation, redistribution,
     * the local op); its Python __torch_dispatch__ only re-enters that path */
    PyObject *dt = dtensor_class();
    for (Py_ssize_t i = 0; dt && PyType_Check(dt) && i < PyTuple_Size(types); i++)
        if (PyType_IsSubtype((PyTypeObject *)PyTuple_GetItem(types, i), (PyTypeObject *)dt))
            return tn_not_implemented("DTensor operator dispatch (upstream's dispatchDTensorOp)");
    for (Py_ssize_t i = 0; i < PyTuple_Size(types); i++) {
        PyObject *r = PyObject_CallMethod(PyTuple_GetItem(types, i), "__torch_dispatch__", "OOOO", func, types, pargs, kwargs);
        if (r != Py_NotImplemented) return r;
        Py_DECREF(r);
    }
    return all_not_implemented(name, types);
}

PyObject *tn_subclass_call_python(PyObject *func, PyObject *types, PyObject *pargs, PyObject *kwargs, PyObject *name) {
    bool grad = tn_grad_mode_set(false), untracked = tn_tls_untracked_views;
    tn_tls_untracked_views = true;
    PyObject *r = call_handlers(func, types, pargs, kwargs, name);
    tn_tls_untracked_views = untracked;
    tn_grad_mode_set(grad);
    return r;
}

/* upstream's ADInplaceOrView sits above the Python key: a view op's results (a return aliasing an
 * argument without writing it: values(), unbind, t, ...) are views of that argument, whatever
 * the subclass returned */
static void mark_view(PyObject *out, PyObject *base) {
    if (!tn_py_is_tensor(out) || out == base || ((tn_tensor_obj *)out)->base) return;
    PyObject *root = ((tn_tensor_obj *)base)->base ? ((tn_tensor_obj *)base)->base : base;
    ((tn_tensor_obj *)out)->base = Py_NewRef(root);
    ((tn_tensor_obj *)out)->view_version = tn_tensor_of(out)->storage->version;
}

void tn_mark_views(int op, tn_value *args, PyObject *r) {
    /* detach's result aliases its input without being a view autograd tracks (_is_view() is False
     * upstream: a view that is not backward differentiable) */
    if (op == TN_ROW_detach || op == TN_ROW_detach_) return;
    const tn_schema *s = tn_op_schema(op);
    if (!s) { PyErr_Clear(); return; }
    for (int i = 0; i < s->nrets; i++) {
        if (!s->rets[i].alias_set || s->rets[i].is_write) continue;
        PyObject *base = NULL;
        for (int j = 0; j < s->nargs && !base; j++)
            if (s->args[j].alias_set == s->rets[i].alias_set && !s->args[j].is_write && args[j].tag == TN_V_TENSOR)
                base = args[j].u.obj;
        if (!base) continue;
        PyObject *out = s->nrets == 1 ? r : (PyTuple_Check(r) && i < PyTuple_Size(r) ? PyTuple_GetItem(r, i) : NULL);
        if (out && (PyList_Check(out) || PyTuple_Check(out)))
            for (Py_ssize_t k = 0; k < PySequence_Size(out); k++) {
                PyObject *e = PySequence_GetItem(out, k);
                if (e) { mark_view(e, base); Py_DECREF(e); }
            }
        else if (out) mark_view(out, base);
    }
}

PyObject *tn_subclass_call(int op, tn_value *args) {
    PyObject *func, *pargs, *kwargs, *types;
    if (tn_door_python_call(op, args, &func, &pargs, &kwargs, &types) < 0) return NULL;
    PyObject *name = func_name(op);
    /* below autograd and ADInplaceOrView, as upstream's Python key: no recording, no view tracking */
    bool untracked = tn_tls_untracked_views;
    tn_tls_untracked_views = true;
    tn_below_autograd_step(1);   /* grad mode stays as the user set it (grad_mode.c) */
    PyObject *r = name ? call_handlers(func, types, pargs, kwargs, name) : NULL;
    tn_below_autograd_step(-1);
    tn_tls_untracked_views = untracked;
    if (r) tn_mark_views(op, args, r);
    Py_XDECREF(name);
    Py_DECREF(pargs); Py_DECREF(kwargs); Py_DECREF(types);
    return r;
}

/* torch.ops.<ns>.<name>.default, looked up once per name */
static PyObject *overload_by_name(const char *ns, const char *name) {
    static PyObject *cache;
    if (!cache && !(cache = PyDict_New())) return NULL;
    PyObject *key = PyUnicode_FromFormat("%s.%s", ns, name);
    if (!key) return NULL;
    PyObject *f = PyDict_GetItemWithError(cache, key);
    if (f || PyErr_Occurred()) { Py_DECREF(key); return f; }
    PyObject *torch = PyImport_ImportModule("torch");
    PyObject *ops = torch ? PyObject_GetAttrString(torch, "ops") : NULL;
    PyObject *nso = ops ? PyObject_GetAttrString(ops, ns) : NULL;
    PyObject *packet = nso ? PyObject_GetAttrString(nso, name) : NULL;
    f = packet ? PyObject_GetAttrString(packet, "default") : NULL;
    Py_XDECREF(torch); Py_XDECREF(ops); Py_XDECREF(nso); Py_XDECREF(packet);
    if (f && PyDict_SetItem(cache, key, f) < 0) Py_CLEAR(f);
    Py_DECREF(key);
    Py_XDECREF(f);   /* the cache holds it */
    return f;
}

PyObject *tn_subclass_query(PyObject *self, const char *ns, const char *name) {
    PyObject *func = overload_by_name(ns, name);
    if (!func) return NULL;
    PyObject *fname = PyUnicode_FromFormat("torch._ops.%s.%s.default", ns, name);
    PyObject *types = PyTuple_Pack(1, (PyObject *)Py_TYPE(self));
    PyObject *pargs = PyTuple_Pack(1, self);
    PyObject *kwargs = PyDict_New();
    PyObject *r = fname && types && pargs && kwargs ? call_handlers(func, types, pargs, kwargs, fname) : NULL;
    Py_XDECREF(fname); Py_XDECREF(types); Py_XDECREF(pargs); Py_XDECREF(kwargs);
    return r;
}

static bool no_data(PyObject *o) {
    const tn_storage *s = tn_py_is_tensor(o) ? tn_tensor_of(o)->storage : NULL;
    return s && s->no_data && s->nbytes > 0;
}

bool tn_door_no_data(int op, tn_value *args) {
    const tn_schema *s = tn_op_schema(op);
    if (!s) return PyErr_Occurred() != NULL;
    bool bad = false;
    for (int i = 0; i < s->nargs && !bad; i++) {
        if (args[i].tag == TN_V_TENSOR) bad = no_data(args[i].u.obj);
        if (args[i].tag == TN_V_TENSORLIST)
            for (Py_ssize_t k = 0; k < PyTuple_Size(args[i].u.obj) && !bad; k++) bad = no_data(PyTuple_GetItem(args[i].u.obj, k));
    }
    if (bad) tn_no_data_error();   /* upstream crashes in the kernel instead */
    return bad;
}

PyObject *tn_no_data_error(void) {
    PyErr_SetString(PyExc_RuntimeError,
                    "The tensor has a non-zero number of elements, but its data is not allocated yet.\n"
                    "If you're using torch.compile/export/fx, it is likely that we are erroneously tracing into a "
                    "custom kernel. To fix this, please wrap the custom kernel into an opaque custom op. Please see "
                    "the following for details: https://pytorch.org/tutorials/advanced/custom_ops_landing_page.html");
    return NULL;
}

/* _disabled_torch_dispatch_impl(func, types, args=(), kwargs=None) */
static PyObject *disabled_dispatch(PyObject *m, PyObject *a) {
    PyObject *func, *types, *fargs = NULL, *fkw = NULL;
    if (!PyArg_ParseTuple(a, "OO|OO:_disabled_torch_dispatch_impl", &func, &types, &fargs, &fkw)) return NULL;
    PyObject *pa = fargs && fargs != Py_None ? PySequence_Tuple(fargs) : PyTuple_New(0);
    if (!pa) return NULL;
    if (fkw == Py_None) fkw = NULL;
    bool was = tn_dispatch_set_disabled(true);
    PyObject *r = PyObject_Call(func, pa, fkw);
    tn_dispatch_set_disabled(was);
    Py_DECREF(pa);
    return r;
}

static PyMethodDef methods[] = {
    {"_disabled_torch_dispatch_impl", disabled_dispatch, METH_VARARGS, NULL},
    {NULL},
};

int tn_subclass_init(PyObject *m) {
    if (PyModule_AddFunctions(m, methods) < 0) return -1;
    disabled_impl = PyObject_GetAttrString(m, "_disabled_torch_dispatch_impl");   /* kept */
    return disabled_impl ? 0 : -1;
}
