/* modes.c — the TorchDispatchMode stack (torch.utils._python_dispatch pushes and pops here).
 *
 * User modes form a stack; "infra" modes (FAKE, PROXY, FUNCTIONAL — modes carrying a _mode_key)
 * sit in fixed slots below it, as upstream's TorchDispatchModeTLS keeps them. The door consults
 * tn_dispatch_mode_top() to hand a call to the innermost mode's __torch_dispatch__. */
#include "dispatch/modes.h"
#include "dispatch/autocast.h"
#include "autograd/autograd.h"

#include <string.h>

#define N_INFRA 3
static PyObject *user_stack;              /* list, innermost last */
static PyObject *infra[N_INFRA];          /* indexed by _TorchDispatchModeKey value */

static int stack_ready(void) {
    if (!user_stack && !(user_stack = PyList_New(0))) return -1;
    return 0;
}

static int infra_count(void) {
    int n = 0;
    for (int i = 0; i < N_INFRA; i++) n += infra[i] != NULL;
    return n;
}

Py_ssize_t tn_dispatch_mode_len(void) {
    return (user_stack ? PyList_Size(user_stack) : 0) + infra_count();
}

/* The mode a call reaches first: the top of the user stack, else the highest infra slot. */
PyObject *tn_dispatch_mode_pop_top(void) {
    if (stack_ready() < 0) return NULL;
    Py_ssize_t n = PyList_Size(user_stack);
    if (n) {
        PyObject *m = Py_NewRef(PyList_GetItem(user_stack, n - 1));
        PySequence_DelItem(user_stack, n - 1);
        return m;
    }
    for (int i = N_INFRA - 1; i >= 0; i--)
        if (infra[i]) {
            PyObject *m = infra[i];
            infra[i] = NULL;
            return m;
        }
    PyErr_SetString(PyExc_RuntimeError, "Trying to pop from empty mode stack");
    return NULL;
}

static long mode_key(PyObject *mode) {
    PyObject *k = PyObject_GetAttrString(mode, "_mode_key");
    if (!k) { PyErr_Clear(); return -1; }
    long v = -1;
    if (k != Py_None) {
        PyObject *i = PyNumber_Index(k);
        if (!i) { PyErr_Clear(); PyObject *val = PyObject_GetAttrString(k, "value"); if (val) { v = PyLong_AsLong(val); Py_DECREF(val); } else PyErr_Clear(); }
        else { v = PyLong_AsLong(i); Py_DECREF(i); }
    }
    Py_DECREF(k);
    return v >= 0 && v < N_INFRA ? v : -1;
}

int tn_dispatch_mode_push(PyObject *mode) {
    if (stack_ready() < 0) return -1;
    long k = mode_key(mode);
    if (k >= 0) {
        Py_XSETREF(infra[k], Py_NewRef(mode));
        return 0;
    }
    return PyList_Append(user_stack, mode);
}

PyObject *tn_dispatch_mode_restore(PyObject *mode, PyObject *res) {
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);   /* the handler's error survives putting the mode back */
    if (tn_dispatch_mode_push(mode) < 0) {
        Py_CLEAR(res);
        Py_XDECREF(et); Py_XDECREF(ev); Py_XDECREF(tb);
    } else {
        PyErr_Restore(et, ev, tb);
    }
    Py_DECREF(mode);
    return res;
}

static PyObject *push(PyObject *m, PyObject *mode) {
    return tn_dispatch_mode_push(mode) < 0 ? NULL : Py_NewRef(Py_None);
}

static long key_arg(PyObject *k) {
    if (!k || k == Py_None) return -1;
    PyObject *i = PyNumber_Index(k);
    if (!i) {
        PyErr_Clear();
        PyObject *val = PyObject_GetAttrString(k, "value");
        if (!val) return -2;
        i = val;
    }
    long v = PyLong_AsLong(i);
    Py_DECREF(i);
    return v;
}

static PyObject *pop(PyObject *m, PyObject *args) {
    PyObject *k = NULL;
    if (!PyArg_ParseTuple(args, "|O:_pop_torch_dispatch_stack", &k)) return NULL;
    long key = key_arg(k);
    if (key == -2) return NULL;
    if (key >= 0 && key < N_INFRA) {
        PyObject *mode = infra[key];
        if (!mode) return PyErr_Format(PyExc_RuntimeError, "Attempted to unset a mode that was not set");
        infra[key] = NULL;
        return mode;
    }
    return tn_dispatch_mode_pop_top();
}

static PyObject *len(PyObject *m, PyObject *u) { return PyLong_FromSsize_t(tn_dispatch_mode_len()); }

static PyObject *get_at(PyObject *m, PyObject *arg) {
    Py_ssize_t i = PyLong_AsSsize_t(arg);
    if (i == -1 && PyErr_Occurred()) return NULL;
    Py_ssize_t n = tn_dispatch_mode_len();
    if (i < 0 || i >= n) return PyErr_Format(PyExc_IndexError, "Trying to get dispatch mode at %zd but the stack has %zd", i, n);
    for (int k = 0; k < N_INFRA; k++)
        if (infra[k] && i-- == 0) return Py_NewRef(infra[k]);
    return Py_NewRef(PyList_GetItem(user_stack, i));
}

static PyObject *get_mode(PyObject *m, PyObject *k) {
    long key = key_arg(k);
    if (key == -2) return NULL;
    if (key < 0 || key >= N_INFRA) return Py_NewRef(Py_None);
    return Py_NewRef(infra[key] ? infra[key] : Py_None);
}

static PyObject *unset_mode(PyObject *m, PyObject *k) {
    long key = key_arg(k);
    if (key == -2) return NULL;
    if (key < 0 || key >= N_INFRA || !infra[key]) Py_RETURN_NONE;
    PyObject *mode = infra[key];
    infra[key] = NULL;
    return mode;
}

static PyObject *set_mode(PyObject *m, PyObject *mode) {
    long k = mode_key(mode);
    if (k < 0) return PyErr_Format(PyExc_RuntimeError, "_set_dispatch_mode: the mode has no _mode_key");
    Py_XSETREF(infra[k], Py_NewRef(mode));
    Py_RETURN_NONE;
}

static PyMethodDef mode_methods[] = {
    {"_push_on_torch_dispatch_stack", push, METH_O, NULL},
    {"_pop_torch_dispatch_stack", pop, METH_VARARGS, NULL},
    {"_len_torch_dispatch_stack", len, METH_NOARGS, NULL},
    {"_get_dispatch_stack_at", get_at, METH_O, NULL},
    {"_get_dispatch_mode", get_mode, METH_O, NULL},
    {"_unset_dispatch_mode", unset_mode, METH_O, NULL},
    {"_set_dispatch_mode", set_mode, METH_O, NULL},
    {NULL},
};

/* torch._C._DisableTorchDispatch: while one lives, no call reaches a dispatch mode (upstream
 * excludes the Python dispatch keys from construction to destruction, restoring the previous
 * state; __enter__/__exit__ do nothing — upstream's "DEPRECATED" context manager, also used as
 * `guard = _DisableTorchDispatch(); ...; del guard`). */
static int dispatch_disabled;
bool tn_dispatch_modes_disabled(void) { return dispatch_disabled != 0; }
bool tn_dispatch_set_disabled(bool on) {
    bool was = dispatch_disabled != 0;
    dispatch_disabled = on;
    return was;
}

typedef struct {
    PyObject_HEAD
    int saved;
} disable_obj;
static PyObject *disable_new(PyTypeObject *tp, PyObject *a, PyObject *k) {
    disable_obj *o = (disable_obj *)PyType_GenericAlloc(tp, 0);
    if (!o) return NULL;
    o->saved = dispatch_disabled;
    dispatch_disabled = 1;
    return (PyObject *)o;
}
static void disable_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    dispatch_disabled = ((disable_obj *)self)->saved;
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static PyObject *disable_noop(PyObject *self, PyObject *a) { Py_RETURN_NONE; }
static PyMethodDef disable_methods[] = {
    {"__enter__", disable_noop, METH_NOARGS, NULL}, {"__exit__", disable_noop, METH_VARARGS, NULL}, {NULL}};
static PyType_Slot disable_slots[] = {
    {Py_tp_new, disable_new}, {Py_tp_dealloc, disable_dealloc}, {Py_tp_methods, disable_methods}, {0, NULL}};
static PyType_Spec disable_spec = {"torch._C._DisableTorchDispatch", sizeof(disable_obj), 0, Py_TPFLAGS_DEFAULT,
                                   disable_slots};

/* The thread's local dispatch key sets as upstream reports them (measured; docs/custom_ops.md).
 * They are derived from the state that decides dispatch here: the _DisableTorchDispatch state
 * (Python, PythonTLSSnapshot, PreDispatch excluded), inference mode (autograd keys excluded,
 * ADInplaceOrView no longer included), CPU autocast (AutocastCPU excluded while off) and the Meta
 * include flag below. Upstream's sets also hold keys DispatchKeySet cannot (AutocastCUDA, ...;
 * python/types_enum.c). Meta in the include set changes no kernel choice here: upstream's CPU
 * tensors keep their CPU kernels under it too (measured), and a fake tensor's storage is meta. */
static _Thread_local bool meta_included;

static PyObject *local_include_set(PyObject *m, PyObject *u) {
    char names[64];
    snprintf(names, sizeof names, "BackendSelect%s%s", tn_inference_mode() ? "" : " ADInplaceOrView",
             meta_included ? " Meta" : "");
    return tn_py_dispatch_keyset_from_names(names);
}
static PyObject *local_exclude_set(PyObject *m, PyObject *u) {
    char names[160];
    snprintf(names, sizeof names, "%s%s%s", dispatch_disabled ? "Python PythonTLSSnapshot PreDispatch " : "",
             tn_inference_mode() ? "AutogradOther AutogradNestedTensor " : "",
             tn_autocast_enabled(TN_AC_CPU) ? "" : "AutocastCPU");
    return tn_py_dispatch_keyset_from_names(names);
}
static PyObject *meta_in_include(PyObject *m, PyObject *u) { return PyBool_FromLong(meta_included); }
static PyObject *set_meta_in_include(PyObject *m, PyObject *v) {   /* any truth value, as upstream's (1 measured) */
    int on = PyObject_IsTrue(v);
    if (on < 0) return NULL;
    meta_included = on;
    Py_RETURN_NONE;
}
/* _dispatch_tls_is_dispatch_key_excluded(key) reads the exclude set above;
 * _dispatch_tls_set_dispatch_key_excluded(key, on) changes what maps onto state here (Python: the
 * _DisableTorchDispatch state) and accepts a request that changes nothing (meta_utils re-enables
 * ADInplaceOrView, never excluded here); other changes are refused by name */
static PyObject *key_excluded(PyObject *m, PyObject *key) {
    PyObject *s = local_exclude_set(m, NULL);
    PyObject *r = s ? PyObject_CallMethod(s, "has", "O", key) : NULL;
    Py_XDECREF(s);
    return r;
}
static PyObject *set_key_excluded(PyObject *m, PyObject *args) {
    PyObject *key, *on;
    if (!PyArg_ParseTuple(args, "OO:_dispatch_tls_set_dispatch_key_excluded", &key, &on)) return NULL;
    int want = PyObject_IsTrue(on);
    PyObject *cur = want < 0 ? NULL : key_excluded(m, key);
    if (!cur) return NULL;
    int is = cur == Py_True;
    Py_DECREF(cur);
    if (is == want) Py_RETURN_NONE;
    PyObject *name = PyObject_GetAttrString(key, "name");
    const char *n = name ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    if (n && !strcmp(n, "Python")) {
        dispatch_disabled = want;
        Py_DECREF(name);
        Py_RETURN_NONE;
    }
    char what[128];
    snprintf(what, sizeof what, "torch._C._dispatch_tls_set_dispatch_key_excluded(%s, %s)", n ? n : "?", want ? "True" : "False");
    Py_XDECREF(name);
    PyErr_Clear();
    return tn_not_implemented(what);
}

static PyMethodDef tls_methods[] = {
    {"_dispatch_tls_is_dispatch_key_excluded", key_excluded, METH_O, NULL},
    {"_dispatch_tls_set_dispatch_key_excluded", set_key_excluded, METH_VARARGS, NULL},
    {"_dispatch_tls_local_include_set", local_include_set, METH_NOARGS, NULL},
    {"_dispatch_tls_local_exclude_set", local_exclude_set, METH_NOARGS, NULL},
    {"_meta_in_tls_dispatch_include", meta_in_include, METH_NOARGS, NULL},
    {"_set_meta_in_tls_dispatch_include", set_meta_in_include, METH_O, NULL},
    {NULL},
};

/* torch._C._PreserveDispatchKeyGuard: restores the local include / exclude state on exit (the
 * Meta flag and the _DisableTorchDispatch state; FakeTensorMode's in_kernel_invocation_manager) */
typedef struct {
    PyObject_HEAD
    bool meta, disabled, entered;
} preserve_obj;
static PyObject *preserve_enter(PyObject *self, PyObject *a) {
    preserve_obj *p = (preserve_obj *)self;
    p->meta = meta_included;
    p->disabled = dispatch_disabled != 0;
    p->entered = true;
    return Py_NewRef(self);
}
static PyObject *preserve_exit(PyObject *self, PyObject *a) {
    preserve_obj *p = (preserve_obj *)self;
    if (p->entered) {
        meta_included = p->meta;
        dispatch_disabled = p->disabled;
        p->entered = false;
    }
    Py_RETURN_NONE;
}
static PyMethodDef preserve_methods[] = {
    {"__enter__", preserve_enter, METH_NOARGS, NULL}, {"__exit__", preserve_exit, METH_VARARGS, NULL}, {NULL}};
static PyType_Slot preserve_slots[] = {{Py_tp_new, PyType_GenericNew}, {Py_tp_methods, preserve_methods}, {0, NULL}};
static PyType_Spec preserve_spec = {"torch._C._PreserveDispatchKeyGuard", sizeof(preserve_obj), 0, Py_TPFLAGS_DEFAULT,
                                    preserve_slots};

/* torch._C._RestorePythonTLSSnapshot: upstream re-enables the Python dispatch state captured
 * when dispatch entered Python (torch.overrides.enable_reentrant_dispatch, what torch.nested's
 * jagged fallback uses to run a decomposition); the mode stack and the subclass stage here are
 * process state, never a snapshot, so there is nothing to restore */
static PyType_Slot restore_slots[] = {{Py_tp_methods, disable_methods}, {0, NULL}};
static PyType_Spec restore_spec = {"torch._C._RestorePythonTLSSnapshot", sizeof(PyObject), 0, Py_TPFLAGS_DEFAULT,
                                   restore_slots};

int tn_modes_init(PyObject *m) {
    PyObject *t = PyType_FromSpec(&disable_spec);
    if (!t || PyModule_AddObject(m, "_DisableTorchDispatch", t) < 0) {
        Py_XDECREF(t);
        return -1;
    }
    t = PyType_FromSpec(&preserve_spec);
    if (!t || PyModule_AddObject(m, "_PreserveDispatchKeyGuard", t) < 0) {
        Py_XDECREF(t);
        return -1;
    }
    if (PyModule_AddFunctions(m, tls_methods) < 0) return -1;
    t = PyType_FromSpec(&restore_spec);
    if (!t || PyModule_AddObject(m, "_RestorePythonTLSSnapshot", t) < 0) {
        Py_XDECREF(t);
        return -1;
    }
    return PyModule_AddFunctions(m, mode_methods);
}
