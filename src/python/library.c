/* library.c — operators defined at run time through torch.library (torch._C._dispatch_library).
 *
 * Upstream's Python defines whole namespaces this way at import (prims, higher-order helpers,
 * custom ops). A definition records its schema; `impl` records a Python kernel per dispatch key.
 * torch.ops.<ns>.<op> finds them through tn_library_lookup (functions.c), and calling one runs
 * its kernels by upstream's dispatch stages for a CPU call: autograd (AutogradCPU, Autograd, else
 * CompositeImplicitAutograd), ADInplaceOrView, then the backend (CPU, CompositeExplicitAutograd,
 * CompositeImplicitAutograd). A kernel registered with_keyset (torch.library.custom_op's autograd
 * and ADInplaceOrView kernels) gets the DispatchKeySet first and continues with
 * OpOverload.redispatch (_DispatchOperatorHandle.redispatch_boxed), which starts at the stage the
 * keyset allows; below autograd (torch._C._AutoDispatchBelowAutograd) is grad mode off with the
 * door's below-autograd mark. An operator with no kernel at those keys refuses by name. */
#include "python/library.h"

#include <stdlib.h>
#include <string.h>

#include "python/common.h"
#include "python/schema_type.h"
#include "dispatch/door.h"
#include "dispatch/modes.h"
#include "dispatch/subclass.h"
#include "core/object.h"
#include "autograd/autograd.h"

/* qualname "ns::name" -> list of [overload (str), schema (FunctionSchema), impls (dict key->fn),
 * keyset impls (dict key->fn: kernels registered with_keyset), qualname (str)] */
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

/* the dispatch stages of a CPU call, each with its keys in upstream's order of precedence; the
 * Python key (dispatch modes, then tensor subclasses' __torch_dispatch__) sits between
 * ADInplaceOrView and the backend, and a call with a meta tensor argument (a fake tensor's
 * kernel invocation) looks for the Meta key's kernel first */
enum { STAGE_AUTOGRAD, STAGE_INPLACE_OR_VIEW, STAGE_BACKEND, NSTAGES };
static const char *const stage_keys[NSTAGES][5] = {
    {"AutogradCPU", "Autograd", "CompositeImplicitAutograd", NULL},
    {"ADInplaceOrView", NULL},
    {"CPU", "CompositeExplicitAutograd", "CompositeImplicitAutograd", NULL},
};
static const char *const meta_keys[] = {"Meta", "CompositeExplicitAutograd", "CompositeImplicitAutograd", NULL};

/* the keyset a kernel registered with_keyset receives: given (a redispatch), else the full set
 * (types_enum.c's DispatchKeySet, made without a lookup through torch._C) */
static PyObject *keyset_for(PyObject *given) {
    return given ? Py_NewRef(given) : tn_py_dispatch_keyset_full();
}

/* the OpOverload object of "ns::name" and overload: torch.ops.<ns>.<name>.<overload or default> */
static PyObject *overload_object(const char *q, const char *ov) {
    const char *colon = strstr(q, "::");
    if (!colon) return PyErr_Format(PyExc_RuntimeError, "bad operator name");
    PyObject *ops = PyImport_ImportModule("torch._ops");
    PyObject *root = ops ? PyObject_GetAttrString(ops, "ops") : NULL;
    Py_XDECREF(ops);
    PyObject *ns = root ? PyObject_CallMethod(root, "__getattr__", "s#", q, (Py_ssize_t)(colon - q)) : NULL;
    Py_XDECREF(root);
    PyObject *packet = ns ? PyObject_GetAttrString(ns, colon + 2) : NULL;
    Py_XDECREF(ns);
    PyObject *r = packet ? PyObject_GetAttrString(packet, ov[0] ? ov : "default") : NULL;
    Py_XDECREF(packet);
    return r;
}

/* walk the tensors of a call's arguments (in lists and tuples too): the types with their own
 * __torch_dispatch__ (added to `types` once each, in order) and whether one is on meta */
static int scan_tensors(PyObject *v, PyObject *types, bool *meta) {
    if (tn_py_is_tensor(v)) {
        if (tn_tensor_of(v)->storage && tn_tensor_of(v)->storage->device == TN_DEVICE_META) *meta = true;
        PyObject *tp = (PyObject *)Py_TYPE(v);
        if (tn_has_torch_dispatch(v) && !PySequence_Contains(types, tp) && PyList_Append(types, tp) < 0) return -1;
        return 0;
    }
    if (!(PyList_Check(v) || PyTuple_Check(v))) return 0;
    if (Py_EnterRecursiveCall(" while scanning an operator's arguments")) return -1;
    int r = 0;
    for (Py_ssize_t i = 0; r == 0 && i < PySequence_Size(v); i++)
        r = scan_tensors(PyList_Check(v) ? PyList_GetItem(v, i) : PyTuple_GetItem(v, i), types, meta);
    Py_LeaveRecursiveCall();
    return r;
}

/* upstream's Python key for a run-time operator: the innermost dispatch mode's __torch_dispatch__
 * (types: the subclasses among the arguments), else the subclasses' own; *handled says whether it
 * took the call. func is the operator's OpOverload. */
static PyObject *python_key(PyObject *entry, PyObject *args, PyObject *kw, bool *meta, bool *handled) {
    *handled = false;
    PyObject *types = PyList_New(0), *k, *v;
    if (!types || scan_tensors(args, types, meta) < 0) { Py_XDECREF(types); *handled = true; return NULL; }
    Py_ssize_t pos = 0;
    while (kw && PyDict_Next(kw, &pos, &k, &v))
        if (scan_tensors(v, types, meta) < 0) { Py_DECREF(types); *handled = true; return NULL; }
    bool mode = tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled();
    if (!mode && (!PyList_Size(types) || tn_dispatch_modes_disabled())) { Py_DECREF(types); return NULL; }
    *handled = true;
    const char *q = PyUnicode_AsUTF8AndSize(PyList_GetItem(entry, 4), NULL);
    const char *ov = PyUnicode_AsUTF8AndSize(PyList_GetItem(entry, 0), NULL);
    PyObject *func = q && ov ? overload_object(q, ov) : NULL, *ttypes = PyList_AsTuple(types);
    PyObject *kwargs = kw ? Py_NewRef(kw) : PyDict_New(), *r = NULL;
    Py_DECREF(types);
    if (!func || !ttypes || !kwargs) goto done;
    if (mode) {
        PyObject *m = tn_dispatch_mode_pop_top();
        if (!m) goto done;
        r = PyObject_CallMethod(m, "__torch_dispatch__", "OOOO", func, ttypes, args, kwargs);
        r = tn_dispatch_mode_restore(m, r);
    } else {
        PyObject *name = PyObject_Str(func);
        r = name ? tn_subclass_call_python(func, ttypes, args, kwargs, name) : NULL;
        Py_XDECREF(name);
    }
done:
    Py_XDECREF(func);
    Py_XDECREF(ttypes);
    Py_XDECREF(kwargs);
    return r;
}

/* Run an entry's kernels from stage `first` on: the first key registered at a stage runs (a
 * with_keyset kernel gets the keyset first), the Python key before the backend; no kernel at any
 * stage refuses by name. */
static PyObject *call_stages(PyObject *entry, const char *what, int first, PyObject *keyset, PyObject *args,
                             PyObject *kw) {
    PyObject *impls = PyList_GetItem(entry, 2), *ks_impls = PyList_GetItem(entry, 3);
    bool meta = false;
    for (int st = first; st < NSTAGES; st++) {
        if (st == STAGE_BACKEND) {
            bool handled;
            PyObject *r = python_key(entry, args, kw, &meta, &handled);
            if (handled) return r;
        }
        const char *const *keys = st == STAGE_BACKEND && meta ? meta_keys : stage_keys[st];
        for (int k = 0; keys[k]; k++) {
            const char *key = keys[k];
            PyObject *fn = PyDict_GetItemString(impls, key);
            if (fn) return PyObject_Call(fn, args, kw);
            if (!(fn = PyDict_GetItemString(ks_impls, key))) continue;
            PyObject *ks = keyset_for(keyset);
            Py_ssize_t n = PyTuple_Size(args);
            PyObject *a2 = ks ? PyTuple_New(n + 1) : NULL;
            if (!a2) { Py_XDECREF(ks); return NULL; }
            PyTuple_SetItem(a2, 0, ks);
            for (Py_ssize_t i = 0; i < n; i++) PyTuple_SetItem(a2, i + 1, Py_NewRef(PyTuple_GetItem(args, i)));
            PyObject *r = PyObject_Call(fn, a2, kw);
            Py_DECREF(a2);
            return r;
        }
    }
    PyErr_Format(PyExc_NotImplementedError, "torchnative: %s is not implemented", what);
    return NULL;
}

/* ---------- autograd's fallback: an operator with no kernel at an autograd key ----------
 * Upstream's basic autograd fallback (mode "warn", torch._C._set_autograd_fallback_mode) runs
 * the operator's kernels (a Python kernel's own ops record autograd as usual) and, with grad mode
 * on and a tensor argument requiring grad, makes backward through the outputs warn: an output
 * that requires grad gets a hook on its gradient that warns; one that does not (a detached
 * result) and is not written in place gets a WarnNotImplemented node (edges to every tensor
 * argument, made before the kernels run) whose backward warns and gives no gradient. Mode
 * "nothing" runs the kernels only. (record.c does the same for static operators.) */

bool tn_autograd_fallback_nothing(void);   /* python/runtime_flags.c */

static bool differentiable(PyObject *t) {
    tn_dtype d = tn_tensor_of(t)->dtype;
    return tn_dtype_is_floating(d) || tn_dtype_is_complex(d);
}

/* the tensors of a value (a tensor, or a list / tuple of them), appended to `out` */
static int tensors_of(PyObject *v, PyObject *out) {
    if (tn_py_is_tensor(v)) return PyList_Append(out, v);
    if (PyList_Check(v) || PyTuple_Check(v))
        for (Py_ssize_t i = 0; i < PySequence_Size(v); i++) {
            PyObject *e = PyList_Check(v) ? PyList_GetItem(v, i) : PyTuple_GetItem(v, i);
            if (tn_py_is_tensor(e) && PyList_Append(out, e) < 0) return -1;
        }
    return 0;
}

static PyObject *call_stages(PyObject *entry, const char *what, int first, PyObject *keyset, PyObject *args, PyObject *kw);

static PyObject *autograd_fallback(PyObject *entry, const char *what, PyObject *args, PyObject *kw) {
    PyObject *ins = PyList_New(0), *k, *v;
    if (!ins) return NULL;
    for (Py_ssize_t i = 0; i < PyTuple_Size(args); i++)
        if (tensors_of(PyTuple_GetItem(args, i), ins) < 0) { Py_DECREF(ins); return NULL; }
    Py_ssize_t pos = 0;
    while (kw && PyDict_Next(kw, &pos, &k, &v))
        if (tensors_of(v, ins) < 0) { Py_DECREF(ins); return NULL; }
    bool any = false;
    for (Py_ssize_t i = 0; i < PyList_Size(ins); i++) any = any || tn_requires_grad(PyList_GetItem(ins, i));
    any = any && tn_grad_enabled();
    const char *q = PyUnicode_AsUTF8AndSize(PyList_GetItem(entry, 4), NULL);
    tn_node *node = NULL;
    if (any && q) {
        node = tn_autograd_warn_node(q, (int)PyList_Size(ins), 0);
        for (int i = 0; node && i < (int)PyList_Size(ins); i++)
            if (tn_gradient_edge(PyList_GetItem(ins, i), &node->next[i]) < 0) { Py_DECREF((PyObject *)node); node = NULL; }
        if (!node) { Py_DECREF(ins); return NULL; }
    }
    Py_DECREF(ins);
    PyObject *r = call_stages(entry, what, STAGE_INPLACE_OR_VIEW, NULL, args, kw);
    if (!r || !node) { Py_XDECREF((PyObject *)node); return r; }
    /* the outputs, per return, and whether that return is written in place (Tensor(a!)) */
    PyObject *rets = PyObject_GetAttrString(PyList_GetItem(entry, 1), "returns");
    PyObject *outs = PyList_New(0), *mut = PyList_New(0);
    Py_ssize_t nret = rets ? PySequence_Size(rets) : -1;
    int rc = rets && outs && mut && nret >= 0 ? 0 : -1;
    for (Py_ssize_t i = 0; rc == 0 && i < nret; i++) {
        PyObject *val = nret == 1 ? Py_NewRef(r) : PySequence_GetItem(r, i);
        PyObject *ret = PySequence_GetItem(rets, i);
        PyObject *ai = ret ? PyObject_GetAttrString(ret, "alias_info") : NULL;
        PyObject *w = ai && ai != Py_None ? PyObject_GetAttrString(ai, "is_write") : (ai ? Py_NewRef(Py_False) : NULL);
        Py_ssize_t before = PyList_Size(outs);
        rc = val && w && tensors_of(val, outs) == 0 ? 0 : -1;
        for (Py_ssize_t j = before; rc == 0 && j < PyList_Size(outs); j++) rc = PyList_Append(mut, w);
        Py_XDECREF(val); Py_XDECREF(ret); Py_XDECREF(ai); Py_XDECREF(w);
    }
    int nouts = rc == 0 ? (int)PyList_Size(outs) : 0;
    if (rc == 0 && nouts > 0) {
        tn_meta *m = realloc(node->out_meta, (size_t)nouts * sizeof *m);
        if (!m) { PyErr_NoMemory(); rc = -1; }
        else { memset(m, 0, (size_t)nouts * sizeof *m); node->out_meta = m; node->nout = nouts; }
    }
    for (int i = 0; rc == 0 && i < nouts; i++) {
        PyObject *t = PyList_GetItem(outs, i);
        bool is_mut = PyList_GetItem(mut, i) == Py_True, attach = false;
        if (differentiable(t) && tn_requires_grad(t)) {
            rc = tn_autograd_add_warn_hook(t, q);
            /* an in-place result that is a view: its history may be rebased, so its base warns too */
            PyObject *base = ((tn_tensor_obj *)t)->base;
            if (rc == 0 && is_mut && base && tn_requires_grad(base)) rc = tn_autograd_add_warn_hook(base, q);
        } else if (differentiable(t) && !is_mut) {
            attach = true;
        }
        if (!attach) {
            if (i < 64) node->nodiff_out |= 1ull << i;
            continue;
        }
        tn_meta_set(&node->out_meta[i], tn_tensor_of(t));
        tn_tensor_obj *o = (tn_tensor_obj *)t;
        Py_XSETREF(o->grad_fn, Py_NewRef((PyObject *)node));
        o->output_nr = i;
    }
    Py_XDECREF(rets); Py_XDECREF(outs); Py_XDECREF(mut);
    Py_DECREF((PyObject *)node);
    if (rc < 0) Py_CLEAR(r);
    return r;
}

/* whether the entry has a kernel at one of the stage's keys */
static bool has_stage_kernel(PyObject *entry, int st) {
    for (int k = 0; stage_keys[st][k]; k++)
        if (PyDict_GetItemString(PyList_GetItem(entry, 2), stage_keys[st][k]) ||
            PyDict_GetItemString(PyList_GetItem(entry, 3), stage_keys[st][k]))
            return true;
    return false;
}

/* the first stage a call starts at: below autograd (the guard, or a call autograd runs below
 * itself) skips the autograd stage */
static int first_stage(void) { return tn_below_autograd() ? STAGE_INPLACE_OR_VIEW : STAGE_AUTOGRAD; }

/* Call a registered overload (entry). */
static PyObject *call_entry(PyObject *entry, const char *what, PyObject *args, PyObject *kw) {
    int first = first_stage();
    if (first == STAGE_AUTOGRAD && !has_stage_kernel(entry, STAGE_AUTOGRAD) && !tn_autograd_fallback_nothing())
        return autograd_fallback(entry, what, args, kw);
    return call_stages(entry, what, first, NULL, args, kw);
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
        if (PyDict_Size(PyList_GetItem(e, 2)) || PyDict_Size(PyList_GetItem(e, 3))) return call_entry(e, q, args, kw);
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
    return !key || PyDict_GetItemString(PyList_GetItem(e, 2), key) != NULL ||
           PyDict_GetItemString(PyList_GetItem(e, 3), key) != NULL;
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
    PyObject *e = l ? Py_BuildValue("[sNNNs]", ov, fs, PyDict_New(), PyDict_New(), q) : NULL;
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
    /* a kernel is either plain or takes the keyset (impls / keyset impls); the last one wins */
    PyObject *mine = PyList_GetItem(e, with_keyset ? 3 : 2), *other = PyList_GetItem(e, with_keyset ? 2 : 3);
    if (PyDict_SetItemString(mine, key, fn) < 0) return NULL;
    if (PyDict_GetItemString(other, key) && PyDict_DelItemString(other, key) < 0) return NULL;
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
/* upstream registers its C++ ADInplaceOrView kernel for the op; here the stage needs no kernel:
 * custom_op's own with_keyset kernel there bumps the versions (call_stages) */
static PyObject *lib_register_inplace_view_fallback(PyObject *self, PyObject *name) { Py_RETURN_NONE; }

static PyMethodDef lib_methods[] = {
    {"define", (PyCFunction)(void (*)(void))lib_define, METH_VARARGS | METH_KEYWORDS, NULL},
    {"impl", (PyCFunction)(void (*)(void))lib_impl, METH_VARARGS | METH_KEYWORDS, NULL},
    {"fallback", (PyCFunction)(void (*)(void))lib_fallback, METH_VARARGS | METH_KEYWORDS, NULL},
    {"register_ad_inplace_or_view_fallback", lib_register_inplace_view_fallback, METH_O, NULL},
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

/* torch._C._dispatch_has_computed_kernel_for_dispatch_key(name, key): whether the dispatch table
 * entry for `key` (a runtime key) would run a kernel. Measured on upstream: alias keys raise; Meta,
 * the autograd keys, Python and the other keys with a global fallback answer True for every
 * operator; a backend key has the operator's kernel there or a CompositeExplicitAutograd /
 * CompositeImplicitAutograd one. */
static PyObject *has_computed_kernel(PyObject *m, PyObject *args) {
    PyObject *name, *key;
    if (!PyArg_ParseTuple(args, "UO:_dispatch_has_computed_kernel_for_dispatch_key", &name, &key)) return NULL;
    PyObject *ks = PyObject_Str(key);
    const char *k = ks ? PyUnicode_AsUTF8AndSize(ks, NULL) : NULL;
    if (!k) { Py_XDECREF(ks); return NULL; }
    if (!strncmp(k, "DispatchKey.", 12)) k += 12;
    PyObject *r = NULL, *dk = NULL;
    int any = has_kernel(name, NULL);   /* the operator first, then the key (measured) */
    if (any < 0) goto done;
    if (!any) { PyErr_Format(PyExc_RuntimeError, "operator %U does not exist", name); goto done; }
    dk = tn_py_dispatch_key_by_name(k);
    if (!dk || dk == Py_None) {
        if (dk) PyErr_Format(PyExc_RuntimeError, "could not parse dispatch key: %s", k);
        goto done;
    }
    if (!strcmp(k, "CompositeImplicitAutograd") || !strcmp(k, "CompositeExplicitAutograd") || !strcmp(k, "Autograd") ||
        !strcmp(k, "CompositeExplicitAutogradNonFunctional") || !strcmp(k, "CompositeImplicitAutogradNestedTensor") ||
        !strcmp(k, "FuncTorchBatchedDecomposition")) {
        PyErr_SetString(PyExc_RuntimeError, "Alias keys do not have runtime kernel registrations.");
        goto done;
    }
    if (!strcmp(k, "Meta") || !strncmp(k, "Autograd", 8) || !strcmp(k, "Python") || !strcmp(k, "ADInplaceOrView") ||
        !strcmp(k, "PythonTLSSnapshot") || !strcmp(k, "Functionalize") || !strcmp(k, "BackendSelect")) {
        r = Py_NewRef(Py_True);
        goto done;
    }
    int v = has_kernel(name, k);
    if (v == 0) v = has_kernel(name, "CompositeExplicitAutograd");
    if (v == 0) v = has_kernel(name, "CompositeImplicitAutograd");
    if (v >= 0) r = PyBool_FromLong(v);
done:
    Py_XDECREF(dk);
    Py_DECREF(ks);
    return r;
}

static PyObject *has_kernel_any(PyObject *m, PyObject *name) {
    if (!PyUnicode_Check(name)) return PyErr_Format(PyExc_TypeError, "expected an operator name");
    int r = has_kernel(name, NULL);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

/* ---------- below autograd, redispatch, _any_requires_grad ---------- */

/* torch._C._AutoDispatchBelowAutograd / _AutoDispatchBelowADInplaceOrView: while entered, calls run
 * below autograd (the door's below-autograd mark; grad mode reads as the user set it), as
 * upstream's key exclusion */
typedef struct {
    PyObject_HEAD
    bool was, entered;
} below_obj;

static PyObject *below_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    below_obj *o = (below_obj *)PyType_GenericNew(tp, NULL, NULL);
    if (o) o->was = o->entered = false;
    return (PyObject *)o;
}
static PyObject *below_enter(PyObject *self, PyObject *unused) {
    below_obj *o = (below_obj *)self;
    if (!o->entered) {
        tn_below_autograd_step(1);
        o->entered = true;
    }
    Py_RETURN_NONE;
}
static PyObject *below_exit(PyObject *self, PyObject *args) {
    below_obj *o = (below_obj *)self;
    if (o->entered) {
        tn_below_autograd_step(-1);
        o->entered = false;
    }
    Py_RETURN_FALSE;
}
static PyMethodDef below_methods[] = {
    {"__enter__", below_enter, METH_NOARGS, NULL},
    {"__exit__", below_exit, METH_VARARGS, NULL},
    {NULL},
};
static PyType_Slot below_slots[] = {
    {Py_tp_new, below_new},
    {Py_tp_methods, below_methods},
    {0, NULL},
};
static PyType_Spec below_spec = {"torch._C._AutoDispatchBelowAutograd", sizeof(below_obj), 0, Py_TPFLAGS_DEFAULT, below_slots};
static PyType_Spec below_view_spec = {"torch._C._AutoDispatchBelowADInplaceOrView", sizeof(below_obj), 0,
                                      Py_TPFLAGS_DEFAULT, below_slots};

/* torch._C._DispatchOperatorHandle of one operator (torch._C._dispatch_find_schema_or_throw):
 * schema(), debug(), redispatch_boxed(keyset, *args, **kwargs) */
typedef struct {
    PyObject_HEAD
    PyObject *qualname, *overload;   /* str */
} handle_obj;

static void handle_dealloc(PyObject *self) {
    handle_obj *o = (handle_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(o->qualname);
    Py_CLEAR(o->overload);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* the OpOverload object of the handle's operator: torch.ops.<ns>.<name>.<overload or default> */
static PyObject *handle_overload(handle_obj *o) {
    const char *q = PyUnicode_AsUTF8AndSize(o->qualname, NULL), *ov = PyUnicode_AsUTF8AndSize(o->overload, NULL);
    return q && ov ? overload_object(q, ov) : NULL;
}

static PyObject *handle_schema(PyObject *self, PyObject *unused) {
    handle_obj *o = (handle_obj *)self;
    PyObject *op = handle_overload(o);
    PyObject *r = op ? PyObject_GetAttrString(op, "_schema") : NULL;
    Py_XDECREF(op);
    return r;
}

static PyObject *handle_debug(PyObject *self, PyObject *unused) {
    PyObject *s = handle_schema(self, NULL);
    PyObject *r = s ? PyUnicode_FromFormat("%S registered at torchnative", s) : NULL;
    Py_XDECREF(s);
    return r;
}

/* whether keyset (a torch._C.DispatchKeySet) has torch._C.DispatchKey.<key>: 1, 0, -1 */
static int keyset_has(PyObject *keyset, const char *key) {
    PyObject *k = tn_py_dispatch_key_by_name(key);   /* the enum member itself, no torch._C import */
    if (k == Py_None) { Py_DECREF(k); PyErr_Format(PyExc_RuntimeError, "unknown dispatch key %s", key); return -1; }
    PyObject *r = k ? PyObject_CallMethod(keyset, "has", "O", k) : NULL;
    Py_XDECREF(k);
    int v = r ? PyObject_IsTrue(r) : -1;
    Py_XDECREF(r);
    return v;
}

/* redispatch_boxed(keyset, *args, **kwargs): the call from the stage the keyset allows. A
 * run-time operator runs its kernels from there; an aten operator runs as usual with the keyset's
 * autograd keys, else below autograd. */
static PyObject *handle_redispatch(PyObject *self, PyObject *args, PyObject *kw) {
    handle_obj *o = (handle_obj *)self;
    if (PyTuple_Size(args) < 1) return PyErr_Format(PyExc_TypeError, "redispatch_boxed() missing the keyset");
    PyObject *keyset = PyTuple_GetItem(args, 0), *rest = PyTuple_GetSlice(args, 1, PyTuple_Size(args));
    if (!rest) return NULL;
    int ag = keyset_has(keyset, "AutogradCPU"), iv = ag == 0 ? keyset_has(keyset, "ADInplaceOrView") : 1;
    PyObject *r = NULL;
    const char *q = PyUnicode_AsUTF8AndSize(o->qualname, NULL), *ov = PyUnicode_AsUTF8AndSize(o->overload, NULL);
    PyObject *e = q && ov ? find_entry(q, ov) : NULL;
    if (ag < 0 || iv < 0 || !q || !ov) goto done;
    bool below = ag == 0;
    if (below) tn_below_autograd_step(1);
    if (e) {
        r = call_stages(e, q, ag ? STAGE_AUTOGRAD : iv ? STAGE_INPLACE_OR_VIEW : STAGE_BACKEND, keyset, rest, kw);
    } else {
        PyObject *op = handle_overload(o);
        r = op ? PyObject_Call(op, rest, kw) : NULL;
        Py_XDECREF(op);
    }
    if (below) tn_below_autograd_step(-1);
done:
    Py_DECREF(rest);
    return r;
}

static PyMethodDef handle_methods[] = {
    {"schema", handle_schema, METH_NOARGS, NULL},
    {"debug", handle_debug, METH_NOARGS, NULL},
    {"redispatch_boxed", (PyCFunction)(void (*)(void))handle_redispatch, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL},
};
static PyType_Slot handle_slots[] = {
    {Py_tp_dealloc, handle_dealloc},
    {Py_tp_methods, handle_methods},
    {0, NULL},
};
static PyType_Spec handle_spec = {"torch._C._DispatchOperatorHandle", sizeof(handle_obj), 0, Py_TPFLAGS_DEFAULT, handle_slots};
static PyTypeObject *handle_type;

/* torch._C._dispatch_find_schema_or_throw(name, overload): the handle, or upstream's error */
static PyObject *find_schema_or_throw(PyObject *m, PyObject *args) {
    const char *name, *ov;
    if (!PyArg_ParseTuple(args, "ss:_dispatch_find_schema_or_throw", &name, &ov)) return NULL;
    bool known = find_entry(name, ov) != NULL ||
                 (!strncmp(name, "aten::", 6) && tn_op_find(name + 6, ov) >= 0);
    if (!known) return PyErr_Format(PyExc_RuntimeError, "Could not find schema for %s.%s", name, ov);
    handle_obj *o = PyObject_New(handle_obj, handle_type);
    if (!o) return NULL;
    o->qualname = PyUnicode_FromString(name);
    o->overload = PyUnicode_FromString(ov);
    if (!o->qualname || !o->overload) { Py_DECREF(o); return NULL; }
    return (PyObject *)o;
}

/* torch._C._any_requires_grad(*args, **kwargs): an argument that is a tensor requiring grad, or a
 * list of tensors (all of them tensors) holding one; tuples and dicts are not searched (measured) */
static bool any_rg(PyObject *v) {
    if (tn_py_is_tensor(v)) return tn_requires_grad(v);
    if (!PyList_Check(v)) return false;
    bool any = false;
    for (Py_ssize_t i = 0; i < PyList_Size(v); i++) {
        PyObject *e = PyList_GetItem(v, i);
        if (!tn_py_is_tensor(e)) return false;
        any = any || tn_requires_grad(e);
    }
    return any;
}
static PyObject *any_requires_grad(PyObject *m, PyObject *args, PyObject *kw) {
    for (Py_ssize_t i = 0; i < PyTuple_Size(args); i++)
        if (any_rg(PyTuple_GetItem(args, i))) Py_RETURN_TRUE;
    PyObject *k, *x;
    Py_ssize_t pos = 0;
    while (kw && PyDict_Next(kw, &pos, &k, &x))
        if (any_rg(x)) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* torch._C._only_lift_cpu_tensors() / _set_only_lift_cpu_tensors(bool): a flag FakeTensorMode
 * saves, sets and restores around its use (upstream's is thread-local, default False) */
static _Thread_local bool only_lift_cpu;
static PyObject *only_lift_get(PyObject *m, PyObject *u) { return PyBool_FromLong(only_lift_cpu); }
static PyObject *only_lift_set(PyObject *m, PyObject *v) {
    if (!PyBool_Check(v))
        return PyErr_Format(PyExc_TypeError, "_set_only_lift_cpu_tensors(): incompatible function arguments. The following "
                            "argument types are supported:\n    1. (arg0: bool) -> None\n\nInvoked with: %R", v);
    only_lift_cpu = v == Py_True;
    Py_RETURN_NONE;
}

/* torch._C._ensureCUDADeviceGuardSet(): upstream installs a no-op CUDA device guard when CUDA is
 * absent, so FakeTensorMode can trace CUDA-device code; with no CUDA here there is nothing to set */
static PyObject *ensure_cuda_guard(PyObject *m, PyObject *u) { Py_RETURN_NONE; }

/* torch._C._functionalization_reapply_views_tls(): functionalization's thread-local reapply-views
 * flag; functionalization is never enabled here, so it keeps upstream's default, False */
static PyObject *reapply_views_tls(PyObject *m, PyObject *u) { Py_RETURN_FALSE; }

/* pybind11's message for a call whose arguments do not match the one signature */
static PyObject *bad_args(const char *fn, const char *sig, PyObject *args) {
    PyObject *inv = PyObject_Str(args);
    if (!inv) return NULL;
    PyObject *s = PyUnicode_Substring(inv, 1, PyUnicode_GetLength(inv) - (PyTuple_Size(args) == 1 ? 2 : 1));
    Py_DECREF(inv);
    if (!s) return NULL;
    PyErr_Format(PyExc_TypeError, "%s(): incompatible function arguments. The following argument types are supported:\n"
                 "    1. %s\n\nInvoked with: %U", fn, sig, s);
    Py_DECREF(s);
    return NULL;
}

/* torch._C._set_conj(t, bool) / _set_neg(t, bool): set or clear a tensor's lazy conjugate /
 * negative bit (meta_utils copies them onto a fake tensor's meta twin) */
static PyObject *set_math_bit(PyObject *args, const char *fn, uint8_t bit) {
    PyObject *t, *on;
    if (PyTuple_Size(args) != 2 || !tn_py_is_tensor(t = PyTuple_GetItem(args, 0)) || !PyBool_Check(on = PyTuple_GetItem(args, 1)))
        return bad_args(fn, "(arg0: torch.Tensor, arg1: bool) -> None", args);
    tn_tensor *x = tn_tensor_of(t);
    x->math_bits = on == Py_True ? (uint8_t)(x->math_bits | bit) : (uint8_t)(x->math_bits & ~bit);
    Py_RETURN_NONE;
}
static PyObject *set_conj(PyObject *m, PyObject *args) { return set_math_bit(args, "_set_conj", TN_BIT_CONJ); }
static PyObject *set_neg(PyObject *m, PyObject *args) { return set_math_bit(args, "_set_neg", TN_BIT_NEG); }

/* torch._C._set_warn_deprecated_on_mutable_data_ptr(t) / _set_throw_on_mutable_data_ptr(t): mark
 * t's storage so data_ptr() warns / raises (tn_storage.data_ptr_guard; FakeTensor.__new__) */
static PyObject *mark_data_ptr(PyObject *t, const char *fn, uint8_t how) {
    if (!tn_py_is_tensor(t)) {
        PyObject *a = PyTuple_Pack(1, t);
        if (a) bad_args(fn, "(arg0: torch.Tensor) -> None", a);
        Py_XDECREF(a);
        return NULL;
    }
    tn_tensor_of(t)->storage->data_ptr_guard = how;
    Py_RETURN_NONE;
}
static PyObject *warn_data_ptr(PyObject *m, PyObject *t) { return mark_data_ptr(t, "_set_warn_deprecated_on_mutable_data_ptr", 1); }
static PyObject *throw_data_ptr(PyObject *m, PyObject *t) { return mark_data_ptr(t, "_set_throw_on_mutable_data_ptr", 2); }

/* torch._C._should_allow_numbers_as_tensors(name): the operators whose Tensor arguments accept a
 * Python number (upstream's fixed list, each name measured on upstream: docs/custom_ops.md) */
static PyObject *numbers_as_tensors(PyObject *m, PyObject *name) {
    static const char *const allowed[] = {
        "add", "add_", "add_out", "div", "div_", "div_out", "divide", "divide_", "divide_out", "mul", "mul_",
        "mul_out", "multiply", "multiply_", "multiply_out", "sub", "sub_", "sub_out", "subtract", "subtract_",
        "subtract_out", "true_divide", "true_divide_", "true_divide_out", "to", "_to_copy", "copy_", "copy",
        "floor_divide", "floor_divide_", "floor_divide_out", "_conj", NULL};
    const char *s = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    if (!s) {
        PyObject *a = PyTuple_Pack(1, name);
        if (a) bad_args("_should_allow_numbers_as_tensors", "(arg0: str) -> bool", a);
        Py_XDECREF(a);
        return NULL;
    }
    for (int i = 0; allowed[i]; i++)
        if (!strcmp(s, allowed[i])) Py_RETURN_TRUE;
    Py_RETURN_FALSE;
}

/* torch._C._dispatch_key_set(t): the text of the key set upstream's tensor carries (measured): its backend's
 * dense key (device_for_backend_keys's device, else the storage's), Python and PythonTLSSnapshot
 * for a class with its own __torch_dispatch__, ADInplaceOrView and the backend's autograd key
 * unless it is an inference tensor, AutocastCPU on cpu */
static PyObject *dispatch_key_set(PyObject *m, PyObject *t) {
    if (!tn_py_is_tensor(t)) {
        PyObject *a = PyTuple_Pack(1, t);
        if (a) bad_args("_dispatch_key_set", "(arg0: torch.Tensor) -> str", a);
        Py_XDECREF(a);
        return NULL;
    }
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    int dev = o->key_device ? o->key_device - 1 : (int)o->t.storage->device;
    bool meta = dev == TN_DEVICE_META;
    char names[160];
    snprintf(names, sizeof names, "%s%s%s%s%s", meta ? "Meta" : "CPU",
             tn_has_torch_dispatch(t) ? " Python PythonTLSSnapshot" : "",
             o->t.storage->inference ? "" : " ADInplaceOrView",
             o->t.storage->inference ? "" : meta ? " AutogradMeta" : " AutogradCPU", meta ? "" : " AutocastCPU");
    PyObject *ks = tn_py_dispatch_keyset_from_names(names);
    PyObject *r = ks ? PyObject_Repr(ks) : NULL;   /* upstream returns the set's text */
    Py_XDECREF(ks);
    return r;
}

static PyMethodDef library_functions[] = {
    {"_set_conj", set_conj, METH_VARARGS, NULL},
    {"_set_neg", set_neg, METH_VARARGS, NULL},
    {"_set_warn_deprecated_on_mutable_data_ptr", warn_data_ptr, METH_O, NULL},
    {"_set_throw_on_mutable_data_ptr", throw_data_ptr, METH_O, NULL},
    {"_should_allow_numbers_as_tensors", numbers_as_tensors, METH_O, NULL},
    {"_dispatch_key_set", dispatch_key_set, METH_O, NULL},
    {"_functionalization_reapply_views_tls", reapply_views_tls, METH_NOARGS, NULL},
    {"_ensureCUDADeviceGuardSet", ensure_cuda_guard, METH_NOARGS, NULL},
    {"_only_lift_cpu_tensors", only_lift_get, METH_NOARGS, NULL},
    {"_set_only_lift_cpu_tensors", only_lift_set, METH_O, NULL},
    {"_dispatch_find_schema_or_throw", find_schema_or_throw, METH_VARARGS, NULL},
    {"_any_requires_grad", (PyCFunction)(void (*)(void))any_requires_grad, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_dispatch_has_kernel_for_dispatch_key", has_kernel_for_key, METH_VARARGS, NULL},
    {"_dispatch_has_kernel", has_kernel_any, METH_O, NULL},
    {"_dispatch_has_computed_kernel_for_dispatch_key", has_computed_kernel, METH_VARARGS, NULL},
    {"_dispatch_library", (PyCFunction)(void (*)(void))dispatch_library, METH_VARARGS | METH_KEYWORDS, NULL},
    {NULL},
};

int tn_library_init(PyObject *m) {
    if (tn_schema_info_init(m) < 0) return -1;
    lib_type = (PyTypeObject *)PyType_FromSpec(&lib_spec);
    if (!lib_type) return -1;
    handle_type = (PyTypeObject *)PyType_FromSpec(&handle_spec);
    if (!handle_type || PyModule_AddObjectRef(m, "_DispatchOperatorHandle", (PyObject *)handle_type) < 0) return -1;
    PyObject *below = PyType_FromSpec(&below_spec), *below_view = PyType_FromSpec(&below_view_spec);
    int rc = below && below_view ? PyModule_AddObjectRef(m, "_AutoDispatchBelowAutograd", below) : -1;
    if (rc == 0) rc = PyModule_AddObjectRef(m, "_AutoDispatchBelowADInplaceOrView", below_view);
    Py_XDECREF(below);
    Py_XDECREF(below_view);
    if (rc < 0) return -1;
    return PyModule_AddFunctions(m, library_functions);
}
