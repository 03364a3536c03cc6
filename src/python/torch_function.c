/* torch_function.c — the __torch_function__ hand-off of the C bindings.
 *
 * A call whose arguments include an object overriding __torch_function__ (a Tensor subclass, or
 * any object with the attribute other than _disabled_torch_function_impl), or made while a
 * TorchFunctionMode is active, is handed to upstream's own
 * torch.overrides.handle_torch_function(public_api, relevant_args, *args, **kwargs), which runs
 * the overrides in upstream's order. Exact torch.Tensor arguments are the fast path: no lookup. */
#include "python/torch_function.h"

#include "python/tensor.h"

static PyObject *disabled_impl;  /* torch._C._disabled_torch_function_impl */
static PyObject *handle_fn;      /* torch.overrides.handle_torch_function */

static bool overrides(PyObject *o) {
    PyTypeObject *tp = Py_TYPE(o);
    if (tp == tn_py.tensor_class || tp == tn_py.TensorBase) return false;
    if (PyLong_CheckExact(o) || PyFloat_CheckExact(o) || PyUnicode_CheckExact(o) || o == Py_None ||
        PyBool_Check(o) || PyTuple_CheckExact(o) || PyList_CheckExact(o))
        return false;
    PyObject *tf = PyObject_GetAttrString((PyObject *)tp, "__torch_function__");
    if (!tf) { PyErr_Clear(); return false; }
    if (!disabled_impl) disabled_impl = PyObject_GetAttrString(tn_py.module, "_disabled_torch_function_impl");
    PyErr_Clear();
    /* compare the underlying function (classmethods and staticmethods wrap it) */
    PyObject *fn = PyObject_GetAttrString(tf, "__func__");
    if (!fn) { PyErr_Clear(); fn = Py_NewRef(tf); }
    bool r = fn != disabled_impl && tf != disabled_impl;
    Py_DECREF(fn);
    Py_DECREF(tf);
    return r;
}

/* Append o to rel when it overrides (and lists/tuples one level down). */
static int collect(PyObject *o, PyObject *rel) {
    if (PyTuple_Check(o) || PyList_Check(o)) {
        Py_ssize_t n = PySequence_Size(o);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *e = PySequence_GetItem(o, i);
            if (!e) return -1;
            int r = (!PyTuple_Check(e) && !PyList_Check(e) && overrides(e)) ? PyList_Append(rel, e) : 0;
            Py_DECREF(e);
            if (r < 0) return -1;
        }
        return 0;
    }
    return overrides(o) ? PyList_Append(rel, o) : 0;
}

bool tn_torch_function_active(PyObject *self, PyObject *args, PyObject *kw, PyObject **relevant) {
    *relevant = NULL;
    int state = tn_torch_function_state();
    if (state == 2) return false;
    bool modes = tn_torch_function_stack_len() > 0;
    PyObject *rel = PyList_New(0);
    if (!rel) return PyErr_Clear(), false;
    if (state == 0) {
        if (self && collect(self, rel) < 0) goto fail;
        Py_ssize_t n = args ? PyTuple_Size(args) : 0;
        for (Py_ssize_t i = 0; i < n; i++)
            if (collect(PyTuple_GetItem(args, i), rel) < 0) goto fail;
        if (kw) {
            PyObject *k, *v;
            Py_ssize_t pos = 0;
            while (PyDict_Next(kw, &pos, &k, &v))
                if (collect(v, rel) < 0) goto fail;
        }
    }
    if (!modes && PyList_Size(rel) == 0) { Py_DECREF(rel); return false; }
    *relevant = rel;
    return true;
fail:
    PyErr_Clear();
    Py_DECREF(rel);
    return false;
}

PyObject *tn_torch_function_call(PyObject *public_api, PyObject *relevant, PyObject *self, PyObject *args,
                                 PyObject *kw) {
    if (!handle_fn) {
        PyObject *ov = PyImport_ImportModule("torch.overrides");
        handle_fn = ov ? PyObject_GetAttrString(ov, "handle_torch_function") : NULL;
        Py_XDECREF(ov);
        if (!handle_fn) { Py_DECREF(relevant); return NULL; }
    }
    Py_ssize_t n = args ? PyTuple_Size(args) : 0, off = self ? 1 : 0;
    PyObject *full = PyTuple_New(n + 2 + off);
    if (!full) { Py_DECREF(relevant); return NULL; }
    PyTuple_SetItem(full, 0, Py_NewRef(public_api));
    PyTuple_SetItem(full, 1, relevant); /* reference passes to the tuple */
    if (self) PyTuple_SetItem(full, 2, Py_NewRef(self));
    for (Py_ssize_t i = 0; i < n; i++) PyTuple_SetItem(full, i + 2 + off, Py_NewRef(PyTuple_GetItem(args, i)));
    PyObject *r = PyObject_Call(handle_fn, full, kw);
    Py_DECREF(full);
    return r;
}

/* ---------- _has_torch_function* ---------- */

static PyObject *has_tf(PyObject *m, PyObject *arg) {
    PyObject *seq = PySequence_Tuple(arg), *rel;
    if (!seq) return NULL;
    bool r = tn_torch_function_active(NULL, seq, NULL, &rel);
    Py_DECREF(seq);
    Py_XDECREF(rel);
    return PyBool_FromLong(r);
}

static PyObject *has_tf_unary(PyObject *m, PyObject *arg) {
    PyObject *rel;
    bool r = tn_torch_function_active(arg, NULL, NULL, &rel);
    Py_XDECREF(rel);
    return PyBool_FromLong(r);
}

static PyObject *has_tf_variadic(PyObject *m, PyObject *args) {
    PyObject *rel;
    bool r = tn_torch_function_active(NULL, args, NULL, &rel);
    Py_XDECREF(rel);
    return PyBool_FromLong(r);
}

static PyMethodDef tf_methods[] = {
    {"_has_torch_function", has_tf, METH_O, NULL},
    {"_has_torch_function_unary", has_tf_unary, METH_O, NULL},
    {"_has_torch_function_variadic", has_tf_variadic, METH_VARARGS, NULL},
    {NULL},
};

int tn_torch_function_init(PyObject *m) { return PyModule_AddFunctions(m, tf_methods); }

/* For manual bindings (torch.tensor, torch.as_tensor, ...): if __torch_function__ handling
 * applies, run it with torch.<name> as public_api and return its result (*handled = true). */
PyObject *tn_torch_function_manual(const char *name, PyObject *args, PyObject *kw, bool *handled) {
    PyObject *rel;
    *handled = false;
    if (!tn_torch_function_active(NULL, args, kw, &rel)) return NULL;
    *handled = true;
    PyObject *vf = PyObject_GetAttrString(tn_py.module, "_VariableFunctions");
    PyObject *api = vf ? PyObject_GetAttrString(vf, name) : NULL;
    Py_XDECREF(vf);
    if (!api) { Py_DECREF(rel); return NULL; }
    PyObject *r = tn_torch_function_call(api, rel, NULL, args, kw);
    Py_DECREF(api);
    return r;
}
