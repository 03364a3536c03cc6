/* functorch.c — torch._C._functorch: what upstream's torch.func Python calls. The levels,
 * BatchedTensors and the vmap stage are dispatch/functorch.c's; docs/func.md has the design. */
#include "python/common.h"
#include "dispatch/functorch.h"
#include "python/tensor.h"

static tn_tensor_obj *O(PyObject *t) { return (tn_tensor_obj *)t; }
static bool is_bt(PyObject *o) { return tn_py_is_tensor(o) && O(o)->bt_value; }

static PyObject *is_batched(PyObject *m, PyObject *o) { return PyBool_FromLong(is_bt(o)); }
static PyObject *never(PyObject *m, PyObject *arg) { Py_RETURN_FALSE; }
static PyObject *none_false(PyObject *m, PyObject *args) { Py_RETURN_FALSE; }
static PyObject *same(PyObject *m, PyObject *arg) { return Py_NewRef(arg); }

static PyObject *level_or_none(PyObject *m, PyObject *u) {
    int d = tn_functorch_depth();
    if (!d) Py_RETURN_NONE;
    return PyLong_FromLong(d);
}
static PyObject *current_level(PyObject *m, PyObject *u) {
    int d = tn_functorch_depth();
    if (!d) {
        PyErr_SetString(PyExc_RuntimeError, "maybe_layer.has_value() INTERNAL ASSERT FAILED: no torch.func transform is active");
        return NULL;
    }
    return PyLong_FromLong(d);
}

static PyObject *push(int kind, int64_t batch, const char *randomness) {
    int l = tn_functorch_push(kind, batch, randomness);
    return l < 0 ? NULL : PyLong_FromLong(l);
}
static PyObject *pop(int kind) {
    int l = tn_functorch_pop(kind);
    return l < 0 ? NULL : PyLong_FromLong(l);
}
static PyObject *grad_inc(PyObject *m, PyObject *u) { return push(TN_LAYER_GRAD, 0, NULL); }
static PyObject *grad_dec(PyObject *m, PyObject *u) { return pop(TN_LAYER_GRAD); }
static PyObject *jvp_inc(PyObject *m, PyObject *u) { return push(TN_LAYER_JVP, 0, NULL); }
static PyObject *jvp_dec(PyObject *m, PyObject *u) { return pop(TN_LAYER_JVP); }
static PyObject *vmap_inc(PyObject *m, PyObject *args) {
    long long b;
    const char *rnd;
    if (!PyArg_ParseTuple(args, "Ls:_vmap_increment_nesting", &b, &rnd)) return NULL;
    return push(TN_LAYER_VMAP, b, rnd);
}
static PyObject *vmap_dec(PyObject *m, PyObject *u) { return pop(TN_LAYER_VMAP); }

static PyObject *wrap_for_grad(PyObject *m, PyObject *args) {
    PyObject *t;
    int level;
    if (!PyArg_ParseTuple(args, "Oi:_wrap_for_grad", &t, &level)) return NULL;
    return tn_wrap_for_grad(t, level);
}
static PyObject *unwrap_for_grad(PyObject *m, PyObject *args) {
    PyObject *t;
    int level;
    if (!PyArg_ParseTuple(args, "Oi:_unwrap_for_grad", &t, &level)) return NULL;
    return tn_unwrap_for_grad(t, level);
}

static PyObject *add_batch_dim(PyObject *m, PyObject *args) {
    PyObject *t;
    long long bdim;
    int level;
    if (!PyArg_ParseTuple(args, "OLi:_add_batch_dim", &t, &bdim, &level)) return NULL;
    if (!tn_py_is_tensor(t)) return PyErr_Format(PyExc_TypeError, "_add_batch_dim(): argument 'self' must be Tensor");
    return tn_bt_make(t, bdim, level);
}

static PyObject *remove_batch_dim(PyObject *m, PyObject *args) {
    PyObject *t;
    int level;
    long long batch, out_dim;
    if (!PyArg_ParseTuple(args, "OiLL:_remove_batch_dim", &t, &level, &batch, &out_dim)) return NULL;
    if (!tn_py_is_tensor(t)) return PyErr_Format(PyExc_TypeError, "_remove_batch_dim(): argument 'self' must be Tensor");
    PyObject *torch = PyImport_ImportModule("torch");
    if (!torch) return NULL;
    PyObject *r = NULL;
    if (tn_bt_level(t) == level) {
        PyObject *p = O(t)->bt_value;
        int pnd = tn_tensor_of(p)->ndim;
        if (out_dim == O(t)->bt_bdim || out_dim + pnd == O(t)->bt_bdim) r = Py_NewRef(p);   /* as upstream: no view */
        else r = PyObject_CallMethod(torch, "movedim", "OiL", p, O(t)->bt_bdim, out_dim);
    } else {
        /* not batched at this level: broadcast along a new dim (an expanded view, as upstream) */
        int nd = tn_tensor_of(t)->ndim;
        if (out_dim < 0) out_dim += nd + 1;
        PyObject *u = PyObject_CallMethod(t, "unsqueeze", "L", out_dim);
        PyObject *sizes = u ? PyObject_GetAttrString(u, "shape") : NULL;
        PyObject *l = sizes ? PySequence_List(sizes) : NULL;
        PyObject *bo = l ? PyLong_FromLongLong(batch) : NULL;
        if (bo && PyList_SetItem(l, (Py_ssize_t)out_dim, bo) == 0)
            r = PyObject_CallMethod(u, "expand", "O", l);
        else
            Py_XDECREF(bo);
        Py_XDECREF(u); Py_XDECREF(sizes); Py_XDECREF(l);
    }
    Py_DECREF(torch);
    return r;
}

static PyObject *unwrap_batched(PyObject *m, PyObject *args) {
    PyObject *t;
    int level;
    if (!PyArg_ParseTuple(args, "Oi:_unwrap_batched", &t, &level)) return NULL;
    if (tn_bt_level(t) == level) return Py_BuildValue("(Oi)", O(t)->bt_value, O(t)->bt_bdim);
    return Py_BuildValue("(OO)", t, Py_None);
}

static PyObject *get_unwrapped(PyObject *m, PyObject *t) {
    if (!is_bt(t)) {
        PyErr_SetString(PyExc_RuntimeError, "No wrappers present!");
        return NULL;
    }
    return Py_NewRef(O(t)->bt_value);
}
static PyObject *maybe_get_bdim(PyObject *m, PyObject *t) { return PyLong_FromLong(is_bt(t) ? O(t)->bt_bdim : -1); }
static PyObject *maybe_get_level(PyObject *m, PyObject *t) { return PyLong_FromLong(is_bt(t) ? O(t)->bt_level : -1); }

static PyObject *get_irg(PyObject *m, PyObject *u) { return PyBool_FromLong(tn_functorch_inplace_rg_allowed()); }
static PyObject *set_irg(PyObject *m, PyObject *v) {
    int b = PyObject_IsTrue(v);
    if (b < 0) return NULL;
    tn_functorch_set_inplace_rg_allowed(b);
    Py_RETURN_NONE;
}

static PyObject *set_fallback_warn(PyObject *m, PyObject *v) {
    int b = PyObject_IsTrue(v);
    if (b < 0) return NULL;
    tn_vmap_fallback_warn = b;
    Py_RETURN_NONE;
}

/* peek_interpreter_stack(): None outside every transform, as upstream's (FakeTensorMode and
 * meta_utils ask); inside one upstream gives its CInterpreter objects, which do not exist here */
static PyObject *peek_interpreter_stack(PyObject *m, PyObject *u) {
    if (tn_functorch_depth() == 0) Py_RETURN_NONE;
    return tn_not_implemented("torch._C._functorch.peek_interpreter_stack inside a torch.func transform");
}

static PyMethodDef toplevel_methods[] = {
    /* autograd.Function stays on its plain path under transforms (docs/func.md) */
    {"_are_functorch_transforms_active", (PyCFunction)(void (*)(void))none_false, METH_NOARGS, NULL},
    {NULL},
};

static PyMethodDef functorch_methods[] = {
    {"peek_interpreter_stack", peek_interpreter_stack, METH_NOARGS, NULL},
    {"is_functorch_wrapped_tensor", is_batched, METH_O, NULL},
    {"is_batchedtensor", is_batched, METH_O, NULL},
    {"is_legacy_batchedtensor", never, METH_O, NULL},
    {"is_gradtrackingtensor", never, METH_O, NULL},
    {"is_functionaltensor", never, METH_O, NULL},
    {"maybe_current_level", level_or_none, METH_NOARGS, NULL},
    {"current_level", current_level, METH_NOARGS, NULL},
    {"unwrap_if_dead", same, METH_O, NULL},
    {"_grad_increment_nesting", grad_inc, METH_NOARGS, NULL},
    {"_grad_decrement_nesting", grad_dec, METH_NOARGS, NULL},
    {"_jvp_increment_nesting", jvp_inc, METH_NOARGS, NULL},
    {"_jvp_decrement_nesting", jvp_dec, METH_NOARGS, NULL},
    {"_vmap_increment_nesting", vmap_inc, METH_VARARGS, NULL},
    {"_vmap_decrement_nesting", vmap_dec, METH_NOARGS, NULL},
    {"_wrap_for_grad", wrap_for_grad, METH_VARARGS, NULL},
    {"_unwrap_for_grad", unwrap_for_grad, METH_VARARGS, NULL},
    {"_add_batch_dim", add_batch_dim, METH_VARARGS, NULL},
    {"_remove_batch_dim", remove_batch_dim, METH_VARARGS, NULL},
    {"_unwrap_batched", unwrap_batched, METH_VARARGS, NULL},
    {"get_unwrapped", get_unwrapped, METH_O, NULL},
    {"maybe_get_bdim", maybe_get_bdim, METH_O, NULL},
    {"maybe_get_level", maybe_get_level, METH_O, NULL},
    {"get_inplace_requires_grad_allowed", get_irg, METH_NOARGS, NULL},
    {"set_inplace_requires_grad_allowed", set_irg, METH_O, NULL},
    {"_set_vmap_fallback_warning_enabled", set_fallback_warn, METH_O, NULL},
    {NULL},
};

int tn_functorch_init(PyObject *m) {
    PyObject *sub = tn_py_submodule("_functorch");
    if (!sub) return -1;
    int r = PyModule_AddFunctions(sub, functorch_methods);
    Py_DECREF(sub);
    return r < 0 ? r : PyModule_AddFunctions(m, toplevel_methods);
}
