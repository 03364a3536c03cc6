/* runtime.c — the small torch._C functions upstream calls while importing, done for real.
 *
 * Measured with tools/trace_surface.py: importing torch / nn / optim / data / autograd /
 * distributed / transformers / safetensors calls only a few dozen _C functions. Each does here
 * what upstream's does where that is cheap (initialisation hooks, flags that store and return,
 * default dtype, dispatch-key parsing, torch-function mode bookkeeping; dynamo's pieces live in
 * dynamo.c). Everything else stays a refusing name in surface.c.
 *
 * Placeholders for names another file will own are marked TEMP and added only when absent. */
#include "python/common.h"
#include "dispatch/schema.h"
#include "python/tensor.h"

#include <string.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

PyObject *tn_py_submodule(const char *dotted);
PyObject *tn_py_named_constants(void);
PyObject *tn_py_dispatch_key_by_name(const char *name);
PyObject *tn_py_dispatch_keyset_full(void);
PyObject *tn_py_refusing_class(const char *module, const char *name);
PyObject *tn_py_placeholder_class(const char *module, const char *name);

/* classes upstream instantiates while importing; the instances only need to exist */
static const char *const placeholder_classes[][2] = {
    {"", "CompilationUnit"},
    {NULL, NULL},
};

/* ---------------------------------------------------------------------------------------------
 * initialisation hooks */

/* dtype names upstream's torch exposes, including aliases */
static const struct { const char *alias; tn_dtype d; } dtype_aliases[] = {
    {"short", TN_DTYPE_I16}, {"int", TN_DTYPE_I32}, {"long", TN_DTYPE_I64}, {"half", TN_DTYPE_F16},
    {"float", TN_DTYPE_F32}, {"double", TN_DTYPE_F64}, {"chalf", TN_DTYPE_C32}, {"cfloat", TN_DTYPE_C64},
    {"cdouble", TN_DTYPE_C128}, {"bit", TN_DTYPE_U1}, {NULL, 0},
};

/* Functions upstream's C++ writes straight into the torch module (functionalization helpers,
 * to_dlpack). A tensor is never functional here; the rest refuse by name when called. */
static PyObject *rt_never(PyObject *self, PyObject *arg) { Py_RETURN_FALSE; }
static PyObject *rt_refuse_torch(PyObject *self, PyObject *args, PyObject *kw) {
    char what[128];
    snprintf(what, sizeof what, "torch.%s", PyUnicode_AsUTF8AndSize(self, NULL));
    return tn_not_implemented(what);
}
static const char *const torch_refusing[] = {
    "_disable_functionalization", "_enable_functionalization", "_freeze_functional_tensor",
    "_from_functional_tensor", "_functionalize_are_all_mutations_hidden_from_autograd",
    "_functionalize_are_all_mutations_under_no_grad_or_inference_mode", "_functionalize_commit_update",
    "_functionalize_enable_reapply_views", "_functionalize_get_storage_size", "_functionalize_has_data_mutation",
    "_functionalize_has_metadata_mutation", "_functionalize_inductor_storage_resized_counter",
    "_functionalize_is_multi_output_view", "_functionalize_is_symbolic", "_functionalize_mark_mutation_hidden_from_autograd",
    "_functionalize_mark_storage_changed", "_functionalize_mutation_counter", "_functionalize_replace",
    "_functionalize_storage_changed_counter", "_functionalize_sync",
    "_functionalize_was_inductor_storage_resized", "_functionalize_was_storage_changed", "_mirror_autograd_meta_to",
    "_to_functional_tensor", "to_dlpack", NULL,
};
/* torch._functionalize_unsafe_set(dst, src): dst shares src's storage, its own sizes, strides and
 * offset kept (what return_and_correct_aliasing does to a wrapper subclass's view results) */
static PyObject *rt_unsafe_set(PyObject *self, PyObject *args) {
    PyObject *dst, *src;
    if (!PyArg_ParseTuple(args, "OO:_functionalize_unsafe_set", &dst, &src)) return NULL;
    if (!tn_py_is_tensor(dst) || !tn_py_is_tensor(src)) {
        PyErr_SetString(PyExc_TypeError, "_functionalize_unsafe_set(): expected (Tensor dst, Tensor src)");
        return NULL;
    }
    tn_tensor *d = tn_tensor_of(dst);
    tn_storage *st = tn_tensor_of(src)->storage;
    tn_storage_incref(st);
    tn_storage_decref(d->storage);
    d->storage = st;
    Py_RETURN_NONE;
}
static PyMethodDef never_def[] = {{"_is_functional_tensor", rt_never, METH_O, NULL},
                                  {"_is_functional_tensor_base", rt_never, METH_O, NULL},
                                  {"_functionalize_unsafe_set", rt_unsafe_set, METH_VARARGS, NULL}};
static PyMethodDef refuse_torch_def = {"refusing", (PyCFunction)(void (*)(void))rt_refuse_torch, METH_VARARGS | METH_KEYWORDS, NULL};

static int add_torch_functions(PyObject *torch) {
    PyObject *modname = PyUnicode_FromString("torch");
    if (!modname) return -1;
    for (size_t i = 0; i < sizeof never_def / sizeof *never_def; i++) {
        PyObject *f = PyCFunction_NewEx(&never_def[i], NULL, modname);
        if (!f || PyObject_SetAttrString(torch, never_def[i].ml_name, f) < 0) { Py_XDECREF(f); Py_DECREF(modname); return -1; }
        Py_DECREF(f);
    }
    for (int i = 0; torch_refusing[i]; i++) {
        PyObject *name = PyUnicode_FromString(torch_refusing[i]);
        PyObject *f = name ? PyCFunction_NewEx(&refuse_torch_def, name, modname) : NULL;
        Py_XDECREF(name);
        if (!f || PyObject_SetAttrString(torch, torch_refusing[i], f) < 0) { Py_XDECREF(f); Py_DECREF(modname); return -1; }
        Py_DECREF(f);
    }
    Py_DECREF(modname);
    return 0;
}

int tn_legacy_types_install(PyObject *torch); /* legacy_types.c */

/* torch.Storage: the legacy storage class of the default dtype (torch.FloatStorage at start), as
 * upstream's set_default_storage_type; torch.multiprocessing's StorageWeakRef reads it. */
static int set_default_storage(PyObject *torch) {
    char name[64];
    snprintf(name, sizeof name, "%sStorage", tn_dtype_cpp_name(tn_py.default_dtype));
    PyObject *cls = PyObject_GetAttrString(torch, name);
    if (!cls) { PyErr_Clear(); return 0; }
    int rc = PyObject_SetAttrString(torch, "Storage", cls);
    Py_DECREF(cls);
    return rc;
}

static PyObject *rt_initExtension(PyObject *self, PyObject *args) {
    PyObject *torch = PyImport_ImportModule("torch");
    if (!torch) return NULL;
    if (add_torch_functions(torch) < 0 || tn_legacy_types_install(torch) < 0) goto fail;
    for (int d = 0; d < TN_DTYPE_COUNT; d++)
        if (PyObject_SetAttrString(torch, tn_dtype_infos[d].name, tn_py.dtypes[d]) < 0) goto fail;
    for (int i = 0; dtype_aliases[i].alias; i++)
        if (PyObject_SetAttrString(torch, dtype_aliases[i].alias, tn_py.dtypes[dtype_aliases[i].d]) < 0) goto fail;
    PyObject *k, *v, *named = tn_py_named_constants();
    Py_ssize_t pos = 0;
    while (PyDict_Next(named, &pos, &k, &v))
        if (PyObject_SetAttr(torch, k, v) < 0) goto fail;
    PyObject *fn = tn_py_submodule("_functions");
    if (!fn) goto fail;
    Py_DECREF(fn);
    PyObject *tensor = PyObject_GetAttrString(torch, "Tensor");
    if (!tensor) goto fail;
    if (!PyType_Check(tensor)) {
        Py_DECREF(tensor);
        PyErr_SetString(PyExc_TypeError, "torch.Tensor is not a type");
        goto fail;
    }
    Py_XSETREF(tn_py.tensor_class, (PyTypeObject *)tensor);
    if (set_default_storage(torch) < 0) goto fail;
    Py_DECREF(torch);
    Py_RETURN_NONE;
fail:
    Py_DECREF(torch);
    return NULL;
}

static PyObject *rt_true(PyObject *self, PyObject *args) { Py_RETURN_TRUE; }
static PyObject *rt_false(PyObject *self, PyObject *args) { Py_RETURN_FALSE; }
static PyObject *rt_none(PyObject *self, PyObject *args) { Py_RETURN_NONE; }

static PyObject *rt_prctl_pdeathsig(PyObject *self, PyObject *sig) {
    long s = PyLong_AsLong(sig);
    if (s == -1 && PyErr_Occurred()) return NULL;
#ifdef __linux__
    if (prctl(PR_SET_PDEATHSIG, s) != 0) return PyErr_SetFromErrno(PyExc_OSError);
#endif
    Py_RETURN_NONE;
}
/* _get_default_device(): torch.set_default_device is not supported, so always "cpu". */
static PyObject *rt_get_default_device(PyObject *self, PyObject *u) { return PyUnicode_FromString("cpu"); }
static PyObject *rt_privateuse1_name(PyObject *self, PyObject *u) { return PyUnicode_FromString("privateuseone"); }

static PyMethodDef prctl_def = {"_prctl_pr_set_pdeathsig", rt_prctl_pdeathsig, METH_O, NULL};

static PyObject *rt_multiprocessing_init(PyObject *self, PyObject *args) {
    PyObject *mp = PyImport_ImportModule("torch.multiprocessing");
    if (!mp) return NULL;
    PyObject *f = PyCFunction_NewEx(&prctl_def, NULL, NULL);
    int rc = f ? PyObject_SetAttrString(mp, "_prctl_pr_set_pdeathsig", f) : -1;
    Py_XDECREF(f);
    Py_DECREF(mp);
    if (rc < 0) return NULL;
    Py_RETURN_TRUE;
}

/* _add_docstr(obj, doc): upstream attaches the docstring to a C function; under the limited API
 * C functions' docstrings are fixed, so we set __doc__ where the object allows it. Returns obj. */
static PyObject *rt_add_docstr(PyObject *self, PyObject *args) {
    PyObject *obj, *doc;
    if (!PyArg_ParseTuple(args, "OO:_add_docstr", &obj, &doc)) return NULL;
    if (!PyUnicode_Check(doc)) {
        PyErr_SetString(PyExc_TypeError, "_add_docstr(): argument 'doc' must be str");
        return NULL;
    }
    if (PyType_Check(obj) || !PyCFunction_Check(obj)) {
        if (PyObject_SetAttrString(obj, "__doc__", doc) < 0) PyErr_Clear();
    }
    return Py_NewRef(obj);
}

static PyObject *rt_get_all_dtypes(PyObject *self, PyObject *args) {
    /* upstream's list: every scalar type except the quantized and sub-byte integer ones */
    PyObject *l = PyList_New(0);
    if (!l) return NULL;
    for (int d = 0; d < TN_DTYPE_COUNT; d++) {
        tn_dtype_kind k = tn_dtype_infos[d].kind;
        if (k == TN_KIND_QUANT || k == TN_KIND_SUBBYTE_INT || k == TN_KIND_SUBBYTE_UINT) continue;
        if (PyList_Append(l, tn_py.dtypes[d]) < 0) {
            Py_DECREF(l);
            return NULL;
        }
    }
    return l;
}

/* ---------------------------------------------------------------------------------------------
 * default dtype */

static PyObject *rt_get_default_dtype(PyObject *self, PyObject *args) {
    return Py_NewRef(tn_py.dtypes[tn_py.default_dtype]);
}
static PyObject *rt_set_default_dtype(PyObject *self, PyObject *o) {
    tn_dtype d;
    if (tn_py_to_dtype(o, &d) < 0) return NULL;
    if (d != TN_DTYPE_F32 && d != TN_DTYPE_F64 && d != TN_DTYPE_F16 && d != TN_DTYPE_BF16) {
        PyErr_Format(PyExc_TypeError, "only floating-point types are supported as the default type");
        return NULL;
    }
    tn_py.default_dtype = d;
    PyObject *torch = PyImport_ImportModule("torch");
    int rc = torch ? set_default_storage(torch) : -1;
    Py_XDECREF(torch);
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

/* ---------------------------------------------------------------------------------------------
 * dispatch keys */

static PyObject *rt_parse_dispatch_key(PyObject *self, PyObject *name) {
    const char *s = PyUnicode_AsUTF8AndSize(name, NULL);
    if (!s) return NULL;
    return tn_py_dispatch_key_by_name(s);
}
static PyObject *rt_dispatch_keyset_full(PyObject *self, PyObject *args) { return tn_py_dispatch_keyset_full(); }

/* ---------------------------------------------------------------------------------------------
 * __torch_function__ bookkeeping: the mode stack and the disabled state */

static PyObject *tf_stack;   /* list of modes */
static int tf_state;         /* 0 enabled, 1 subclasses disabled, 2 all disabled */

int tn_torch_function_state(void) { return tf_state; }
Py_ssize_t tn_torch_function_stack_len(void) { return tf_stack ? PyList_Size(tf_stack) : 0; }

static PyObject *rt_is_tf_enabled(PyObject *s, PyObject *a) { return PyBool_FromLong(tf_state == 0); }
static PyObject *rt_is_tf_all_disabled(PyObject *s, PyObject *a) { return PyBool_FromLong(tf_state == 2); }
static PyObject *rt_is_tf_mode_enabled(PyObject *s, PyObject *a) {
    return PyBool_FromLong(tf_state != 2 && PyList_Size(tf_stack) > 0);
}
static PyObject *rt_len_tf_stack(PyObject *s, PyObject *a) { return PyLong_FromSsize_t(PyList_Size(tf_stack)); }
static PyObject *rt_push_tf_stack(PyObject *s, PyObject *mode) {
    if (PyList_Append(tf_stack, mode) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *rt_pop_tf_stack(PyObject *s, PyObject *a) {
    Py_ssize_t n = PyList_Size(tf_stack);
    if (n <= 0) {
        PyErr_SetString(PyExc_RuntimeError, "Trying to pop from an empty mode stack");
        return NULL;
    }
    PyObject *m = PyList_GetItem(tf_stack, n - 1);
    Py_INCREF(m);
    if (PySequence_DelItem(tf_stack, n - 1) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
static PyObject *rt_get_tf_stack_at(PyObject *s, PyObject *i) {
    Py_ssize_t k = PyLong_AsSsize_t(i);
    if (k == -1 && PyErr_Occurred()) return NULL;
    PyObject *m = PySequence_GetItem(tf_stack, k);
    return m;
}
/* _disabled_torch_function_impl(func, types, args=(), kwargs=None): run func with
 * __torch_function__ disabled for subclasses. */
static PyObject *rt_disabled_tf_impl(PyObject *s, PyObject *args) {
    PyObject *func, *types, *fargs = NULL, *fkw = NULL;
    if (!PyArg_ParseTuple(args, "OO|OO:_disabled_torch_function_impl", &func, &types, &fargs, &fkw)) return NULL;
    int old = tf_state;
    if (tf_state == 0) tf_state = 1;
    PyObject *a = fargs ? PySequence_Tuple(fargs) : PyTuple_New(0);
    PyObject *r = NULL;
    if (a) r = PyObject_Call(func, a, fkw && fkw != Py_None ? fkw : NULL);
    Py_XDECREF(a);
    tf_state = old;
    return r;
}

/* DisableTorchFunction / DisableTorchFunctionSubclass context managers */
typedef struct {
    PyObject_HEAD
    int target, saved;
} tn_tfctx;
static PyObject *tfctx_enter(PyObject *self, PyObject *a) {
    tn_tfctx *c = (tn_tfctx *)self;
    c->saved = tf_state;
    if (tf_state < c->target) tf_state = c->target;
    Py_RETURN_NONE;
}
static PyObject *tfctx_exit(PyObject *self, PyObject *a) {
    tf_state = ((tn_tfctx *)self)->saved;
    Py_RETURN_NONE;
}
static PyObject *tfctx_new_sub(PyTypeObject *tp, PyObject *a, PyObject *k) {
    PyObject *o = PyType_GenericAlloc(tp, 0);
    if (o) ((tn_tfctx *)o)->target = 1;
    return o;
}
static PyObject *tfctx_new_all(PyTypeObject *tp, PyObject *a, PyObject *k) {
    PyObject *o = PyType_GenericAlloc(tp, 0);
    if (o) ((tn_tfctx *)o)->target = 2;
    return o;
}
static PyMethodDef tfctx_methods[] = {
    {"__enter__", tfctx_enter, METH_NOARGS, NULL}, {"__exit__", tfctx_exit, METH_VARARGS, NULL}, {NULL},
};
static PyType_Slot tfsub_slots[] = {{Py_tp_new, tfctx_new_sub}, {Py_tp_methods, tfctx_methods}, {0, NULL}};
static PyType_Slot tfall_slots[] = {{Py_tp_new, tfctx_new_all}, {Py_tp_methods, tfctx_methods}, {0, NULL}};
static PyType_Spec tfsub_spec = {"torch._C.DisableTorchFunctionSubclass", sizeof(tn_tfctx), 0, Py_TPFLAGS_DEFAULT, tfsub_slots};
static PyType_Spec tfall_spec = {"torch._C.DisableTorchFunction", sizeof(tn_tfctx), 0, Py_TPFLAGS_DEFAULT, tfall_slots};

/* ---------------------------------------------------------------------------------------------
 * Generator metaclass (upstream late-binds OpaqueBaseMeta as Generator's metaclass) */

static PyObject *rt_set_generator_metaclass(PyObject *s, PyObject *meta) {
    if (!PyType_Check(meta) || !PyType_IsSubtype((PyTypeObject *)meta, &PyType_Type)) {
        PyErr_SetString(PyExc_TypeError, "_set_generator_metaclass: expected a metaclass");
        return NULL;
    }
    PyObject *g = (PyObject *)tn_py.generator_type;
    PyObject *old = (PyObject *)Py_TYPE(g);
    Py_INCREF(meta);
    Py_SET_TYPE(g, (PyTypeObject *)meta);
    if (PyType_GetFlags((PyTypeObject *)old) & Py_TPFLAGS_HEAPTYPE) Py_DECREF(old);  /* static type: unowned */
    Py_RETURN_NONE;
}

static PyObject *opaque_types;   /* set of names registered by _register_opaque_type */
/* the schema parser's question (with the GIL, as every parse from Python) */
static bool opaque_lookup(const char *name, int n) {
    if (!opaque_types) return false;
    PyObject *k = PyUnicode_FromStringAndSize(name, n);
    int r = k ? PySet_Contains(opaque_types, k) : -1;
    Py_XDECREF(k);
    if (r < 0) PyErr_Clear();
    return r == 1;
}
static PyObject *rt_register_opaque_type(PyObject *s, PyObject *args) {
    PyObject *name;
    if (!PyArg_ParseTuple(args, "O", &name)) return NULL;
    if (PySet_Add(opaque_types, name) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *rt_unregister_opaque_type(PyObject *s, PyObject *name) {
    if (PySet_Discard(opaque_types, name) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *rt_is_opaque_type(PyObject *s, PyObject *name) {
    int r = PySet_Contains(opaque_types, name);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

static PyObject *rt_dlpack_exchange_api(PyObject *s, PyObject *a) {
    static int api;   /* we export no DLPack C exchange table yet: an empty named capsule */
    return PyCapsule_New(&api, "dlpack_exchange_api", NULL);
}

/* _get_custom_class_python_wrapper(ns, name): the torch::class_ registry. Of the custom classes
 * upstream's core registers, aten::OpaqueObject and quantized::LinearPackedParamsBase (whose
 * objects quantized::linear_prepack makes, ops/qlinear.c) exist here; their methods refuse; any
 * other name raises upstream's RuntimeError. */
static PyObject *rt_custom_class_wrapper(PyObject *s, PyObject *args) {
    const char *ns, *name;
    if (!PyArg_ParseTuple(args, "ss:_get_custom_class_python_wrapper", &ns, &name)) return NULL;
    if ((strcmp(ns, "aten") == 0 && strcmp(name, "OpaqueObject") == 0) ||
        (strcmp(ns, "quantized") == 0 && strcmp(name, "LinearPackedParamsBase") == 0)) {
        PyObject *cls = PyObject_GetAttrString(tn_py.module, "ScriptClass");
        if (!cls) return NULL;
        PyObject *o = PyType_Check(cls) ? PyType_GenericAlloc((PyTypeObject *)cls, 0) : NULL;
        Py_DECREF(cls);
        return o;
    }
    PyErr_Format(PyExc_RuntimeError,
                 "Tried to instantiate class '%s.%s', but it does not exist! Ensure that it is registered via torch::class_",
                 ns, name);
    return NULL;
}

/* ErrorReport.call_stack(): upstream returns the TorchScript call stack, empty outside scripting */
static PyObject *rt_empty_str(PyObject *s, PyObject *a) { return PyUnicode_FromString(""); }
static PyMethodDef call_stack_def = {"call_stack", rt_empty_str, METH_NOARGS, NULL};

/* ---------------------------------------------------------------------------------------------
 * _stash_obj_in_tls / _get_obj_in_tls / _is_key_in_tls: a per-thread dict of Python objects
 * (autograd stashes the contextvars context before running the engine). */

static PyObject *tls_dict(void) {   /* borrowed; the thread state's dict holds it */
    PyObject *ts = PyThreadState_GetDict();
    if (!ts) {
        PyErr_SetString(PyExc_RuntimeError, "no thread state");
        return NULL;
    }
    PyObject *d = PyDict_GetItemString(ts, "torchnative.tls_stash");
    if (d) return d;
    d = PyDict_New();
    int rc = d ? PyDict_SetItemString(ts, "torchnative.tls_stash", d) : -1;
    Py_XDECREF(d);
    return rc < 0 ? NULL : d;
}
static PyObject *rt_stash_obj_in_tls(PyObject *s, PyObject *args) {
    PyObject *key, *obj, *d = tls_dict();
    if (!d || !PyArg_ParseTuple(args, "UO:_stash_obj_in_tls", &key, &obj)) return NULL;
    if (PyDict_SetItem(d, key, obj) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *rt_get_obj_in_tls(PyObject *s, PyObject *key) {
    PyObject *d = tls_dict();
    if (!d) return NULL;
    PyObject *v = PyDict_GetItemWithError(d, key);
    if (!v && !PyErr_Occurred())
        PyErr_Format(PyExc_RuntimeError, "Key '%S' not found in the thread-local stash", key);
    return v ? Py_NewRef(v) : NULL;
}
static PyObject *rt_is_key_in_tls(PyObject *s, PyObject *key) {
    PyObject *d = tls_dict();
    int r = d ? PyDict_Contains(d, key) : -1;
    return r < 0 ? NULL : PyBool_FromLong(r);
}

/* torch._library.utils._c_check_aliasing_constraint(args, kwargs, result): does a custom
 * operator's output share a storage with an input or with another output? As upstream's
 * (measured): inputs are the tensors of the args tuple and of the kwargs dict's values, a list
 * counting by its tensor elements (tuples are not looked into); outputs are the result tuple's
 * tensors and lists' tensors; inputs aliasing each other do not count; a non-tuple args / result
 * contributes nothing. Storage identity is the storage owning the bytes (.data shares it). */
static const void *alias_key(PyObject *o) {
    if (!tn_py_is_tensor(o)) return NULL;
    tn_storage *s = tn_tensor_of(o)->storage;
    if (!s) return NULL;
    return s->alias_of ? (const void *)s->alias_of : (const void *)s;
}
typedef struct { const void **k; Py_ssize_t n, cap; } alias_set;
static int alias_add(alias_set *a, const void *k) {
    if (a->n == a->cap) {
        Py_ssize_t cap = a->cap ? 2 * a->cap : 16;
        const void **nk = PyMem_Realloc(a->k, (size_t)cap * sizeof *nk);
        if (!nk) { PyErr_NoMemory(); return -1; }
        a->k = nk;
        a->cap = cap;
    }
    a->k[a->n++] = k;
    return 0;
}
static int alias_has(const alias_set *a, const void *k) {
    for (Py_ssize_t i = 0; i < a->n; i++)
        if (a->k[i] == k) return 1;
    return 0;
}
/* add the tensors of one value (a tensor, or a list's tensors) */
static int alias_add_value(alias_set *a, PyObject *v) {
    const void *k = alias_key(v);
    if (k) return alias_add(a, k);
    if (PyList_Check(v))
        for (Py_ssize_t i = 0; i < PyList_Size(v); i++)
            if ((k = alias_key(PyList_GetItem(v, i))) && alias_add(a, k) < 0) return -1;
    return 0;
}
/* 1 when an output's key is already seen, else adds it */
static int alias_check_out(alias_set *a, PyObject *o) {
    const void *k = alias_key(o);
    if (!k) return 0;
    if (alias_has(a, k)) return 1;
    return alias_add(a, k) < 0 ? -1 : 0;
}
static PyObject *rt_any_output_alias(PyObject *s, PyObject *args) {
    Py_ssize_t na = PyTuple_Size(args);
    if (na < 3) {
        PyErr_Format(PyExc_TypeError, "_any_output_is_alias_to_input_or_output() takes 3 positional arguments "
                     "(args, kwargs, result) but %zd were given", na);
        return NULL;
    }
    PyObject *a = PyTuple_GetItem(args, 0), *kw = PyTuple_GetItem(args, 1), *res = PyTuple_GetItem(args, 2);
    if (!PyDict_Check(kw)) {
        PyErr_Format(PyExc_TypeError, "_any_output_is_alias_to_input_or_output(): kwargs must be a dict, not %s",
                     tn_py_type_name(kw));
        return NULL;
    }
    alias_set set = {NULL, 0, 0};
    int found = 0;
    if (PyTuple_Check(a))
        for (Py_ssize_t i = 0; i < PyTuple_Size(a); i++)
            if (alias_add_value(&set, PyTuple_GetItem(a, i)) < 0) goto fail;
    {
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        while (PyDict_Next(kw, &pos, &k, &v))
            if (alias_add_value(&set, v) < 0) goto fail;
    }
    if (PyTuple_Check(res))
        for (Py_ssize_t i = 0; i < PyTuple_Size(res) && !found; i++) {
            PyObject *o = PyTuple_GetItem(res, i);
            if (PyList_Check(o)) {
                for (Py_ssize_t j = 0; j < PyList_Size(o) && !found; j++)
                    if ((found = alias_check_out(&set, PyList_GetItem(o, j))) < 0) goto fail;
            } else if ((found = alias_check_out(&set, o)) < 0) {
                goto fail;
            }
        }
    PyMem_Free(set.k);
    return PyBool_FromLong(found);
fail:
    PyMem_Free(set.k);
    return NULL;
}

/* ---------------------------------------------------------------------------------------------
 * registration */

static PyMethodDef rt_methods[] = {
    {"_initExtension", rt_initExtension, METH_VARARGS, NULL},
    {"_autograd_init", rt_true, METH_NOARGS, NULL},
    {"_jit_init", rt_true, METH_NOARGS, NULL},
    {"_multiprocessing_init", rt_multiprocessing_init, METH_NOARGS, NULL},
    {"_add_docstr", rt_add_docstr, METH_VARARGS, NULL},
    {"_get_all_dtypes", rt_get_all_dtypes, METH_NOARGS, NULL},
    {"_init_names", rt_none, METH_VARARGS, NULL},
    {"_log_api_usage_once", rt_none, METH_VARARGS, NULL},
    {"_log_api_usage_metadata", rt_none, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_tracer_warn_use_python", rt_none, METH_NOARGS, NULL},
    {"_accelerator_getAccelerator", rt_none, METH_NOARGS, NULL},   /* CPU only: no accelerator */
    {"_mtia_isBuilt", rt_false, METH_NOARGS, NULL},
    {"_mps_is_available", rt_false, METH_NOARGS, NULL},
    {"_stash_obj_in_tls", rt_stash_obj_in_tls, METH_VARARGS, NULL},
    {"_get_obj_in_tls", rt_get_obj_in_tls, METH_O, NULL},
    {"_is_key_in_tls", rt_is_key_in_tls, METH_O, NULL},
    {"get_default_dtype", rt_get_default_dtype, METH_NOARGS, NULL},
    {"_set_default_dtype", rt_set_default_dtype, METH_O, NULL},
    {"_parse_dispatch_key", rt_parse_dispatch_key, METH_O, NULL},
    {"_get_default_device", rt_get_default_device, METH_NOARGS, NULL},
    {"_get_tracing_state", rt_none, METH_NOARGS, NULL},   /* the JIT tracer never runs */
    {"_is_tracing", rt_false, METH_NOARGS, NULL},
    {"_mps_is_in_bad_fork", rt_false, METH_NOARGS, NULL},
    {"_mtia_isInBadFork", rt_false, METH_NOARGS, NULL},
    {"_has_distributed", rt_false, METH_NOARGS, NULL},
    {"_get_privateuse1_backend_name", rt_privateuse1_name, METH_NOARGS, NULL},
    {"_is_torch_function_enabled", rt_is_tf_enabled, METH_NOARGS, NULL},
    {"_is_torch_function_all_disabled", rt_is_tf_all_disabled, METH_NOARGS, NULL},
    {"_is_torch_function_mode_enabled", rt_is_tf_mode_enabled, METH_NOARGS, NULL},
    {"_len_torch_function_stack", rt_len_tf_stack, METH_NOARGS, NULL},
    {"_push_on_torch_function_stack", rt_push_tf_stack, METH_O, NULL},
    {"_pop_torch_function_stack", rt_pop_tf_stack, METH_NOARGS, NULL},
    {"_get_function_stack_at", rt_get_tf_stack_at, METH_O, NULL},
    {"_disabled_torch_function_impl", rt_disabled_tf_impl, METH_VARARGS, NULL},
    {"_set_generator_metaclass", rt_set_generator_metaclass, METH_O, NULL},
    {"_register_opaque_type", rt_register_opaque_type, METH_VARARGS, NULL},
    {"_is_opaque_type_registered", rt_is_opaque_type, METH_O, NULL},
    {"_unregister_opaque_type", rt_unregister_opaque_type, METH_O, NULL},
    {"_dispatch_keyset_full", rt_dispatch_keyset_full, METH_NOARGS, NULL},
    {"_dlpack_exchange_api", rt_dlpack_exchange_api, METH_NOARGS, NULL},
    {"_get_custom_class_python_wrapper", rt_custom_class_wrapper, METH_VARARGS, NULL},
    {"_any_output_is_alias_to_input_or_output", rt_any_output_alias, METH_VARARGS, NULL},
    {NULL},
};

static int add_functions(PyObject *mod, PyMethodDef *defs, int only_if_absent) {
    PyObject *name = PyModule_GetNameObject(mod);
    if (!name) return -1;
    PyObject *d = PyModule_GetDict(mod);
    for (PyMethodDef *f = defs; f->ml_name; f++) {
        if (only_if_absent && PyDict_GetItemString(d, f->ml_name)) continue;
        PyObject *fn = PyCFunction_NewEx(f, NULL, name);
        if (!fn || PyDict_SetItemString(d, f->ml_name, fn) < 0) {
            Py_XDECREF(fn);
            Py_DECREF(name);
            return -1;
        }
        Py_DECREF(fn);
    }
    Py_DECREF(name);
    return 0;
}

int tn_runtime_flags_init(PyObject *m);   /* runtime_flags.c */
int tn_threads_init(PyObject *m);         /* threads.c */
int tn_cpu_info_init(PyObject *m);        /* cpu_info.c */
int tn_dlpack_init(PyObject *m);          /* dlpack.c */

/* torchnative has no TorchScript compiler, so torch runs in upstream's documented JIT-disabled
 * mode unless the user set PYTORCH_JIT: torch.jit.script/trace return the Python callable, which
 * runs eagerly on this core, and forward_ad.make_dual skips the TorchScript jvp decompositions
 * (forward AD uses the C formulas; docs/ARCHITECTURE.md, "Forward AD"). Set before torch.jit is
 * imported, which reads it once. */
static int default_jit_disabled(void) {
    PyObject *os = PyImport_ImportModule("os");
    PyObject *env = os ? PyObject_GetAttrString(os, "environ") : NULL;
    PyObject *r = env ? PyObject_CallMethod(env, "setdefault", "ss", "PYTORCH_JIT", "0") : NULL;
    Py_XDECREF(r);
    Py_XDECREF(env);
    Py_XDECREF(os);
    return r ? 0 : -1;
}

/* torch._C._profiler.symbolize_tracebacks(tracebacks): nothing to symbolize for no tracebacks
 * (what LoggingTensor's capture_logs passes without collect_traceback); any traceback refuses */
static PyObject *rt_symbolize_tracebacks(PyObject *self, PyObject *tbs) {
    Py_ssize_t n = PySequence_Size(tbs);
    if (n < 0) return NULL;
    if (n > 0) return tn_not_implemented("torch._C._profiler.symbolize_tracebacks");
    return PyList_New(0);
}
static PyMethodDef profiler_methods[] = {{"symbolize_tracebacks", rt_symbolize_tracebacks, METH_O, NULL}, {NULL}};

/* torch._C._get_constant_bool_symnode(b): upstream's ConstantSymNodeImpl<bool>, the node a
 * torch.SymBool wraps when a comparison of nested ints (torch.nested's jagged sizes) is decided:
 * bool_() / guard_bool() / constant_bool() give b, and it says it is a constant */
typedef struct { PyObject_HEAD bool v; } const_bool_node;
static PyObject *cbn_value(PyObject *self, PyObject *a) { return PyBool_FromLong(((const_bool_node *)self)->v); }
static PyObject *cbn_true(PyObject *self, PyObject *a) { Py_RETURN_TRUE; }
static PyObject *cbn_false(PyObject *self, PyObject *a) { Py_RETURN_FALSE; }
static PyObject *cbn_str(PyObject *self) { return PyUnicode_FromString(((const_bool_node *)self)->v ? "True" : "False"); }
static PyObject *cbn_str_m(PyObject *self, PyObject *a) { return cbn_str(self); }
static PyMethodDef cbn_methods[] = {
    {"bool_", cbn_value, METH_VARARGS, NULL}, {"guard_bool", cbn_value, METH_VARARGS, NULL},
    {"expect_true", cbn_value, METH_VARARGS, NULL}, {"constant_bool", cbn_value, METH_NOARGS, NULL},
    {"maybe_as_bool", cbn_value, METH_NOARGS, NULL}, {"is_constant", cbn_true, METH_NOARGS, NULL},
    {"has_hint", cbn_true, METH_NOARGS, NULL}, {"is_bool", cbn_true, METH_NOARGS, NULL},
    {"is_symbolic", cbn_false, METH_NOARGS, NULL}, {"is_nested_int", cbn_false, METH_NOARGS, NULL},
    {"is_int", cbn_false, METH_NOARGS, NULL}, {"is_float", cbn_false, METH_NOARGS, NULL},
    {"str", cbn_str_m, METH_NOARGS, NULL}, {"_graph_repr", cbn_str_m, METH_NOARGS, NULL}, {NULL}};
static PyType_Slot cbn_slots[] = {{Py_tp_methods, cbn_methods}, {Py_tp_str, cbn_str}, {Py_tp_repr, cbn_str}, {0, NULL}};
static PyType_Spec cbn_spec = {"torch._C._ConstantBoolSymNode", sizeof(const_bool_node), 0, Py_TPFLAGS_DEFAULT, cbn_slots};
static PyObject *cbn_type;
static PyObject *rt_constant_bool_symnode(PyObject *self, PyObject *arg) {
    int v = PyObject_IsTrue(arg);
    if (v < 0) return NULL;
    if (!cbn_type && !(cbn_type = PyType_FromSpec(&cbn_spec))) return NULL;
    allocfunc a = (allocfunc)PyType_GetSlot((PyTypeObject *)cbn_type, Py_tp_alloc);
    const_bool_node *n = (const_bool_node *)a((PyTypeObject *)cbn_type, 0);
    if (n) n->v = v;
    return (PyObject *)n;
}
static PyMethodDef symnode_methods[] = {{"_get_constant_bool_symnode", rt_constant_bool_symnode, METH_O, NULL}, {NULL}};

/* torch._C._SDPAParams(query, key, value, attn_mask, dropout, is_causal, enable_gqa): the fields
 * scaled_dot_product_attention's backend choice reads (torch.nested's jagged path builds one);
 * _can_use_flash_attention / _mem_efficient_ / _cudnn_ answer False, as upstream's CPU build */
typedef struct { PyObject_HEAD PyObject *f[7]; } sdpa_params;
static const char *const sdpa_fields[] = {"query", "key", "value", "attn_mask", "dropout", "is_causal", "enable_gqa"};
static int sdpa_init(PyObject *self, PyObject *args, PyObject *kw) {
    sdpa_params *o = (sdpa_params *)self;
    if ((kw && PyDict_Size(kw)) || PyTuple_Size(args) != 7) {
        PyErr_SetString(PyExc_TypeError, "__init__(): incompatible constructor arguments: expected (query, key, value, "
                                         "attn_mask, dropout, is_causal, enable_gqa)");
        return -1;
    }
    for (int i = 0; i < 7; i++) {
        PyObject *v = PyTuple_GetItem(args, i);
        bool ok = i < 3 ? tn_py_is_tensor(v) : i == 3 ? (v == Py_None || tn_py_is_tensor(v))
                : i == 4 ? PyFloat_Check(v) || PyLong_Check(v) : PyBool_Check(v);
        if (!ok) {
            PyErr_Format(PyExc_TypeError, "__init__(): incompatible constructor arguments: argument %d (%s) got %s", i,
                         sdpa_fields[i], tn_py_type_name(v));
            return -1;
        }
        if (i == 4) v = PyNumber_Float(v); else Py_INCREF(v);
        if (!v) return -1;
        Py_XSETREF(o->f[i], v);
    }
    return 0;
}
static void sdpa_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    for (int i = 0; i < 7; i++) Py_CLEAR(((sdpa_params *)self)->f[i]);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static PyObject *sdpa_get(PyObject *self, void *i) {
    PyObject *v = ((sdpa_params *)self)->f[(intptr_t)i];
    return Py_NewRef(v ? v : Py_None);
}
static PyGetSetDef sdpa_getset[] = {
    {"query", sdpa_get, NULL, NULL, (void *)0}, {"key", sdpa_get, NULL, NULL, (void *)1},
    {"value", sdpa_get, NULL, NULL, (void *)2}, {"attn_mask", sdpa_get, NULL, NULL, (void *)3},
    {"dropout", sdpa_get, NULL, NULL, (void *)4}, {"is_causal", sdpa_get, NULL, NULL, (void *)5},
    {"enable_gqa", sdpa_get, NULL, NULL, (void *)6}, {NULL}};
static PyType_Slot sdpa_slots[] = {{Py_tp_init, sdpa_init}, {Py_tp_new, PyType_GenericNew}, {Py_tp_dealloc, sdpa_dealloc},
                                   {Py_tp_getset, sdpa_getset}, {0, NULL}};
static PyType_Spec sdpa_spec = {"torch._C._SDPAParams", sizeof(sdpa_params), 0, Py_TPFLAGS_DEFAULT, sdpa_slots};
static PyObject *rt_sdpa_no_kernel(PyObject *self, PyObject *args) {
    PyObject *p, *debug = NULL;
    if (!PyArg_ParseTuple(args, "O|O", &p, &debug)) return NULL;
    Py_RETURN_FALSE;
}
static PyMethodDef sdpa_methods[] = {
    {"_can_use_flash_attention", rt_sdpa_no_kernel, METH_VARARGS, NULL},
    {"_can_use_mem_efficient_attention", rt_sdpa_no_kernel, METH_VARARGS, NULL},
    {"_can_use_cudnn_attention", rt_sdpa_no_kernel, METH_VARARGS, NULL},
    {NULL}};

/* torch._C._dispatch_tls_is_dispatch_key_included(key): the thread's local include set. Eager
 * torchnative never includes a key there (no PythonDispatcher, functionalization or tracing
 * state), except AutocastCPU while CPU autocast is on, as upstream's autocast guard */
static PyObject *rt_tls_key_included(PyObject *self, PyObject *key) {
    PyObject *ks = PyObject_Str(key);
    const char *k = ks ? PyUnicode_AsUTF8AndSize(ks, NULL) : NULL;
    if (!k) { Py_XDECREF(ks); return NULL; }
    if (!strncmp(k, "DispatchKey.", 12)) k += 12;
    PyObject *r;
    if (!strcmp(k, "AutocastCPU")) r = PyObject_CallMethod(tn_py.module, "is_autocast_enabled", "s", "cpu");
    else r = Py_NewRef(Py_False);
    Py_DECREF(ks);
    return r;
}
static PyMethodDef tls_methods[] = {{"_dispatch_tls_is_dispatch_key_included", rt_tls_key_included, METH_O, NULL}, {NULL}};

int tn_runtime_init(PyObject *m) {
    if (PyModule_AddFunctions(m, tls_methods) < 0) return -1;
    PyObject *sp = PyType_FromSpec(&sdpa_spec);
    if (!sp || PyModule_AddObject(m, "_SDPAParams", sp) < 0) { Py_XDECREF(sp); return -1; }
    if (PyModule_AddFunctions(m, sdpa_methods) < 0) return -1;
    if (PyModule_AddFunctions(m, symnode_methods) < 0) return -1;
    PyObject *prof = tn_py_submodule("_profiler");
    int prc = prof ? PyModule_AddFunctions(prof, profiler_methods) : -1;
    Py_XDECREF(prof);
    if (prc < 0) return -1;
    if (tn_runtime_flags_init(m) < 0 || tn_threads_init(m) < 0 || tn_cpu_info_init(m) < 0 || tn_dlpack_init(m) < 0)
        return -1;
    if (default_jit_disabled() < 0) return -1;
    tf_stack = PyList_New(0);
    opaque_types = PySet_New(NULL);
    tn_schema_opaque_type = opaque_lookup;
    if (!tf_stack || !opaque_types) return -1;
    if (add_functions(m, rt_methods, 1) < 0) return -1;
    for (int i = 0; placeholder_classes[i][1]; i++) {
        PyObject *own = placeholder_classes[i][0][0] ? tn_py_submodule(placeholder_classes[i][0]) : Py_NewRef(m);
        PyObject *mn = own ? PyModule_GetNameObject(own) : NULL;
        PyObject *c = mn ? tn_py_placeholder_class(PyUnicode_AsUTF8AndSize(mn, NULL), placeholder_classes[i][1]) : NULL;
        int rc2 = c ? PyObject_SetAttrString(own, placeholder_classes[i][1], c) : -1;
        Py_XDECREF(c);
        Py_XDECREF(mn);
        Py_XDECREF(own);
        if (rc2 < 0) return -1;
    }
    PyObject *er = tn_py_refusing_class("torch._C", "ErrorReport");
    PyObject *cs = er ? PyCFunction_NewEx(&call_stack_def, NULL, NULL) : NULL;
    if (!cs || PyObject_SetAttrString(er, "call_stack", cs) < 0 || PyModule_AddObjectRef(m, "ErrorReport", er) < 0) {
        Py_XDECREF(cs);
        Py_XDECREF(er);
        return -1;
    }
    Py_DECREF(cs);
    Py_DECREF(er);
    PyObject *sub = PyType_FromSpec(&tfsub_spec), *all = sub ? PyType_FromSpec(&tfall_spec) : NULL;
    if (!all || PyModule_AddObjectRef(m, "DisableTorchFunctionSubclass", sub) < 0 ||
        PyModule_AddObjectRef(m, "DisableTorchFunction", all) < 0) {
        Py_XDECREF(sub);
        Py_XDECREF(all);
        return -1;
    }
    Py_DECREF(sub);
    Py_DECREF(all);
    return 0;
}
