/* function.c — torch._C._FunctionBase: the C side of torch.autograd.Function (upstream's
 * THPFunction / PyNode, torch/csrc/autograd/python_function.cpp and custom_function.cpp).
 *
 * A custom Function's ctx is an instance of `<Name>Backward` (upstream's Python class built by
 * FunctionMeta over BackwardCFunction(_FunctionBase, FunctionCtx, _HookMixin)). Here the ctx *is*
 * the graph node: _FunctionBase has tn_node's layout (kind TN_NODE_PY), so the engine runs it like
 * any node, through fn_node_apply, which calls the Python method `ctx.apply(*grads)` (the user's
 * backward). `_FunctionBase.apply` (a classmethod, reached from Function.apply) makes the ctx,
 * runs forward with grad mode off, then wires the outputs (grad_fn, output_nr, mark_dirty,
 * mark_non_differentiable, inputs returned as views) and saves `ctx.to_save` with version
 * counters. Also here: saved-tensor default hooks (torch.autograd.graph.saved_tensors_hooks) for
 * the tensors a Function saves, torch._C._functions.DelayedError (once_differentiable) and the
 * graph-task queries checkpointing reads. See docs/ARCHITECTURE.md, "Autograd". */
#include "autograd/autograd.h"

#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>
#include <structmember.h>   /* PyMemberDef of the Function types */

extern PyMethodDef tn_node_methods[];
extern PyGetSetDef tn_node_getset[];

/* ---------------------------------------------------------------------------------------------
 * saved-tensor default hooks (torch._C._autograd._push_saved_tensors_default_hooks, ...) */

static _Thread_local PyObject *hook_stack;          /* list of (pack, unpack) */
static _Thread_local PyObject *hooks_disabled_msg;  /* str while disabled */

/* The innermost (pack, unpack) pair, borrowed, or NULL. */
PyObject *tn_saved_hooks_top(void) {
    if (!hook_stack || PyList_Size(hook_stack) == 0) return NULL;
    return PyList_GetItem(hook_stack, PyList_Size(hook_stack) - 1);
}

static PyObject *push_hooks(PyObject *m, PyObject *args) {
    PyObject *pack, *unpack;
    if (!PyArg_ParseTuple(args, "OO:_push_saved_tensors_default_hooks", &pack, &unpack)) return NULL;
    if (hooks_disabled_msg) { PyErr_SetObject(PyExc_RuntimeError, hooks_disabled_msg); return NULL; }
    if (!hook_stack && !(hook_stack = PyList_New(0))) return NULL;
    PyObject *p = PyTuple_Pack(2, pack, unpack);
    int r = p ? PyList_Append(hook_stack, p) : -1;
    Py_XDECREF(p);
    if (r < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *pop_hooks(PyObject *m, PyObject *u) {
    Py_ssize_t n = hook_stack ? PyList_Size(hook_stack) : 0;
    if (n == 0) {
        PyErr_SetString(PyExc_RuntimeError, "_pop_saved_tensors_default_hooks: no saved tensors hooks were pushed");
        return NULL;
    }
    if (PySequence_DelItem(hook_stack, n - 1) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *hooks_disable(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"message", "fail_if_non_empty", NULL};
    PyObject *msg;
    int fail = 1;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "U|p:_saved_tensors_hooks_disable", kws, &msg, &fail)) return NULL;
    Py_INCREF(msg);
    Py_XSETREF(hooks_disabled_msg, msg);
    if (fail && hook_stack && PyList_Size(hook_stack)) { PyErr_SetObject(PyExc_RuntimeError, msg); return NULL; }
    Py_RETURN_NONE;
}
static PyObject *hooks_enable(PyObject *m, PyObject *u) { Py_CLEAR(hooks_disabled_msg); Py_RETURN_NONE; }
static PyObject *hooks_is_enabled(PyObject *m, PyObject *u) { return PyBool_FromLong(hooks_disabled_msg == NULL); }
static PyObject *hooks_msg(PyObject *m, PyObject *u) {
    return Py_NewRef(hooks_disabled_msg ? hooks_disabled_msg : Py_None);
}
static _Thread_local bool hooks_tracing;
static PyObject *hooks_set_tracing(PyObject *m, PyObject *v) {
    int on = PyObject_IsTrue(v);
    if (on < 0) return NULL;
    bool was = hooks_tracing;
    hooks_tracing = on;
    return PyBool_FromLong(was);
}

/* ---------------------------------------------------------------------------------------------
 * saved variables (upstream's SavedVariable) */

typedef struct {
    PyObject_HEAD
    PyObject *data;       /* the tensor (an input saved whole), a detached alias (an output), or NULL with hooks */
    PyObject *packed;     /* with hooks: what pack returned */
    PyObject *unpack;     /* with hooks: the unpack hook */
    PyObject *grad_fn;    /* with hooks: the non-output, non-leaf tensor's grad_fn */
    PyObject *grad_acc;   /* with hooks: a leaf's AccumulateGrad (weak reference) */
    int64_t version;
    int output_nr;
    bool is_output, is_leaf, requires_grad;
} savedvar;

static PyTypeObject *savedvar_type;

static int sv_traverse(PyObject *self, visitproc visit, void *arg) {
    savedvar *s = (savedvar *)self;
    Py_VISIT(s->data); Py_VISIT(s->packed); Py_VISIT(s->unpack); Py_VISIT(s->grad_fn); Py_VISIT(s->grad_acc);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int sv_clear(PyObject *self) {
    savedvar *s = (savedvar *)self;
    Py_CLEAR(s->data); Py_CLEAR(s->packed); Py_CLEAR(s->unpack); Py_CLEAR(s->grad_fn); Py_CLEAR(s->grad_acc);
    return 0;
}
static void sv_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    sv_clear(self);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}
static PyObject *saved_unpack(tn_node *n, PyObject *sv);
/* torch._C._autograd.SavedTensor.unpack() (checkpoint keeps its inputs this way) */
static PyObject *sv_unpack_method(PyObject *self, PyObject *u) { return saved_unpack(NULL, self); }
static PyObject *sv_refuse(PyObject *self, PyObject *u) { return tn_not_implemented("torch._C._autograd.SavedTensor.register_hooks"); }
static PyObject *sv_refuse_get(PyObject *self, void *c) {
    char what[120];
    snprintf(what, sizeof what, "torch._C._autograd.SavedTensor.%s", (const char *)c);
    return tn_not_implemented(what);
}
static PyMethodDef sv_methods[] = {
    {"unpack", sv_unpack_method, METH_NOARGS, NULL},
    {"register_hooks", sv_refuse, METH_VARARGS, NULL},
    {NULL},
};
static PyGetSetDef sv_getset[] = {
    {"data", sv_refuse_get, NULL, NULL, "data"},
    {"unpack_hook", sv_refuse_get, NULL, NULL, "unpack_hook"},
    {NULL},
};
static PyType_Slot sv_slots[] = {{Py_tp_dealloc, sv_dealloc}, {Py_tp_traverse, sv_traverse}, {Py_tp_clear, sv_clear},
                                 {Py_tp_methods, sv_methods}, {Py_tp_getset, sv_getset}, {0, NULL}};
static PyType_Spec sv_spec = {"torch._C._autograd.SavedTensor", sizeof(savedvar), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, sv_slots};

/* Save tensor t for node n (is_output: t's grad_fn is n). With default hooks active, the pack
 * hook gets t and its result is kept instead of the tensor. New reference. */
static PyObject *saved_new(tn_node *n, PyObject *t, bool is_output) {
    allocfunc a = (allocfunc)PyType_GetSlot(savedvar_type, Py_tp_alloc);
    savedvar *s = (savedvar *)a(savedvar_type, 0);
    if (!s) return NULL;
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    s->version = tn_tensor_of(t)->storage->version;
    s->output_nr = o->output_nr;
    s->is_leaf = o->grad_fn == NULL;
    s->is_output = n && is_output && !s->is_leaf;
    s->requires_grad = tn_requires_grad(t);
    PyObject *hooks = tn_saved_hooks_top();
    if (hooks) {
        PyObject *pack = PyTuple_GetItem(hooks, 0);
        s->unpack = Py_NewRef(PyTuple_GetItem(hooks, 1));
        if (s->is_leaf && o->requires_grad) {
            tn_edge e;
            if (tn_gradient_edge(t, &e) < 0) goto fail;
            s->grad_acc = e.fn ? PyWeakref_NewRef(e.fn, NULL) : NULL;
            Py_XDECREF(e.fn);
            if (e.fn && !s->grad_acc) goto fail;
        } else if (!s->is_output && o->grad_fn) {
            s->grad_fn = Py_NewRef(o->grad_fn);
        }
        bool was = tn_grad_mode_set(false);
        s->packed = PyObject_CallFunctionObjArgs(pack, t, NULL);
        tn_grad_mode_set(was);
        if (!s->packed) goto fail;
        if (tn_tensor_of(t)->storage->version != s->version) {
            PyErr_SetString(PyExc_RuntimeError, "A saved tensor pack hook is modifying its input in place. Tensors "
                            "provided as input to pack hook can not be modified by in-place operations as this can "
                            "lead to unexpected side-effects. Please open an issue if you need to perform in-place "
                            "operations on the input to a pack hook.");
            goto fail;
        }
        return (PyObject *)s;
    }
    /* an output is kept without its history (no cycle output -> node -> output) */
    s->data = s->is_output ? tn_detached_alias(t) : Py_NewRef(t);
    if (!s->data) goto fail;
    return (PyObject *)s;
fail:
    Py_DECREF(s);
    return NULL;
}

/* The saved tensor as backward sees it (upstream's SavedVariable::unpack). New reference. */
static PyObject *saved_unpack(tn_node *n, PyObject *sv) {
    if (sv == Py_None) return Py_NewRef(Py_None);
    savedvar *s = (savedvar *)sv;
    if (s->is_output && !n) {   /* SavedTensor.unpack() of a saved output: no node to give it */
        PyErr_SetString(PyExc_RuntimeError, "Trying to use a saved tensor that has been detached in-place, i.e. with "
                        ".detach_().This is not supported, please use out-of-place `.detach()` instead");
        return NULL;
    }
    if (s->unpack) {
        PyObject *d = PyObject_CallFunctionObjArgs(s->unpack, s->packed, NULL);
        if (!d) return NULL;
        if (!tn_py_is_tensor(d)) {
            PyErr_Format(PyExc_TypeError, "Output of saved tensor unpack_hook expected to be a Tensor but got result of type %s",
                         tn_py_type_name(d));
            Py_DECREF(d);
            return NULL;
        }
        PyObject *v = tn_detached_alias(d);
        Py_DECREF(d);
        if (!v) return NULL;
        tn_tensor_obj *o = (tn_tensor_obj *)v;
        PyObject *fn = s->is_output ? (PyObject *)n : s->grad_fn;
        if (fn) {
            o->grad_fn = Py_NewRef(fn);
            o->output_nr = s->output_nr;
        } else if (s->requires_grad) {
            o->requires_grad = true;
            if (s->grad_acc) o->grad_acc = Py_NewRef(s->grad_acc);
        }
        return v;
    }
    if (!s->data) return tn_freed_error();
    const tn_tensor *g = tn_tensor_of(s->data);
    if (g->storage->version != s->version) {
        tn_tensor_obj *o = (tn_tensor_obj *)s->data;
        PyObject *fn = s->is_output ? (PyObject *)n : o->grad_fn;
        int nr = s->is_output ? s->output_nr : o->output_nr;
        char shape[256] = "";
        size_t at = 0;
        for (int d = 0; d < g->ndim && at < sizeof shape - 24; d++)
            at += (size_t)snprintf(shape + at, sizeof shape - at, "%s%lld", d ? ", " : "", (long long)g->sizes[d]);
        char which[200] = "";
        if (fn) {
            PyObject *nm = PyObject_CallMethod(fn, "name", NULL);
            const char *c = nm ? PyUnicode_AsUTF8AndSize(nm, NULL) : NULL;
            if (!c) { Py_XDECREF(nm); return NULL; }
            snprintf(which, sizeof which, ", which is output %d of %.*s,", nr, tn_node_short_name_len(c), c);
            Py_DECREF(nm);
        }
        PyErr_Format(PyExc_RuntimeError,
                     "one of the variables needed for gradient computation has been modified by an inplace "
                     "operation: [torch.%sTensor [%s]]%s is at version %lld; expected version %lld instead. Hint: "
                     "enable anomaly detection to find the operation that failed to compute its gradient, with "
                     "torch.autograd.set_detect_anomaly(True, check_nan=False).",
                     tn_dtype_cpp_name(g->dtype), shape, which, (long long)g->storage->version, (long long)s->version);
        return NULL;
    }
    if (!s->is_output) return Py_NewRef(s->data);
    PyObject *v = tn_detached_alias(s->data);
    if (!v) return NULL;
    ((tn_tensor_obj *)v)->grad_fn = Py_NewRef((PyObject *)n);
    ((tn_tensor_obj *)v)->output_nr = s->output_nr;
    return v;
}

/* Op nodes (record.c / node.c): with saved_tensors_hooks active, what an op node keeps for a saved
 * tensor is the packed form; it is unpacked when a formula or _saved_<name> reads it. */
PyObject *tn_saved_pack(tn_node *n, PyObject *t, bool is_output) { return saved_new(n, t, is_output); }
bool tn_saved_is_packed(PyObject *o) { return o && savedvar_type && Py_TYPE(o) == savedvar_type; }
PyObject *tn_saved_unpack(tn_node *n, PyObject *packed) { return saved_unpack(n, packed); }

/* ---------------------------------------------------------------------------------------------
 * the ctx's own state (kept in tn_node.fnstate) */

enum { OUT_OBJECT, OUT_NONDIFF, OUT_DIFF };

typedef struct {
    PyObject_HEAD
    PyObject *to_save, *dirty, *non_diff, *needs_input_grad, *saved_for_forward;
    int nin;
    int *edge_of;               /* forward input -> next edge, -1 for a non-tensor input */
    unsigned char *out_kind;    /* per forward output */
    bool materialize_grads, materialize_non_diff;
} fnstate;

static PyTypeObject *fnstate_type;

static int fs_traverse(PyObject *self, visitproc visit, void *arg) {
    fnstate *s = (fnstate *)self;
    Py_VISIT(s->to_save); Py_VISIT(s->dirty); Py_VISIT(s->non_diff); Py_VISIT(s->needs_input_grad);
    Py_VISIT(s->saved_for_forward);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int fs_clear(PyObject *self) {
    fnstate *s = (fnstate *)self;
    Py_CLEAR(s->to_save); Py_CLEAR(s->dirty); Py_CLEAR(s->non_diff); Py_CLEAR(s->needs_input_grad);
    Py_CLEAR(s->saved_for_forward);
    return 0;
}
static void fs_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    fs_clear(self);
    fnstate *s = (fnstate *)self;
    free(s->edge_of);
    free(s->out_kind);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}
static PyType_Slot fs_slots[] = {{Py_tp_dealloc, fs_dealloc}, {Py_tp_traverse, fs_traverse}, {Py_tp_clear, fs_clear}, {0, NULL}};
static PyType_Spec fs_spec = {"torchnative.FunctionState", sizeof(fnstate), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, fs_slots};

static fnstate *state_of(PyObject *self) {
    tn_node *n = (tn_node *)self;
    if (!n->fnstate) {
        allocfunc a = (allocfunc)PyType_GetSlot(fnstate_type, Py_tp_alloc);
        fnstate *s = (fnstate *)a(fnstate_type, 0);
        if (!s) return NULL;
        s->materialize_grads = s->materialize_non_diff = true;
        n->fnstate = (PyObject *)s;
    }
    return (fnstate *)n->fnstate;
}

/* ---------------------------------------------------------------------------------------------
 * the engine side: PyNode::apply */

static const char *node_name(PyObject *self, char *buf, size_t n) {
    PyObject *nm = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "__name__");
    const char *c = nm ? PyUnicode_AsUTF8AndSize(nm, NULL) : NULL;
    snprintf(buf, n, "%s", c ? c : "?");
    Py_XDECREF(nm);
    PyErr_Clear();
    return buf;
}

static PyObject *zeros_of(const tn_meta *m) {
    return tn_at_zeros(TN_IN(tn_meta_sizes(m), m->ndim), TN_DT(m->dtype), NULL, NULL, NULL);
}

static int fn_node_apply(tn_node *n, PyObject **grads, PyObject **outs) {
    PyObject *self = (PyObject *)n;
    fnstate *st = state_of(self);
    if (!st) return -1;
    char name[200];
    PyObject *args = PyTuple_New(n->nout);
    if (!args) return -1;
    for (int i = 0; i < n->nout; i++) {
        PyObject *g = grads[i];
        int kind = st->out_kind ? st->out_kind[i] : OUT_OBJECT;
        if (g) g = Py_NewRef(g);
        else if (st->materialize_grads && kind != OUT_OBJECT && (kind == OUT_DIFF || st->materialize_non_diff) &&
                 n->out_meta[i].defined) {
            if (!(g = zeros_of(&n->out_meta[i]))) { Py_DECREF(args); return -1; }
        } else {
            g = Py_NewRef(Py_None);
        }
        PyTuple_SetItem(args, i, g);
    }
    PyObject *fn = PyObject_GetAttrString(self, "apply");
    PyObject *r = fn ? PyObject_CallObject(fn, args) : NULL;
    Py_XDECREF(fn);
    Py_DECREF(args);
    if (!r) return -1;
    if (!PyTuple_Check(r)) {
        PyObject *t = PyTuple_Pack(1, r);
        Py_DECREF(r);
        if (!(r = t)) return -1;
    }
    Py_ssize_t got = PyTuple_Size(r), want = st->nin;
    if (got > want) {   /* extra results are fine when all None */
        bool all_none = true;
        for (Py_ssize_t i = want; i < got; i++) all_none &= PyTuple_GetItem(r, i) == Py_None;
        if (all_none) got = want;
    }
    if (got != want) {
        PyErr_Format(PyExc_RuntimeError, "function %s returned an incorrect number of gradients (expected %zd, got %zd)",
                     node_name(self, name, sizeof name), want, got);
        Py_DECREF(r);
        return -1;
    }
    for (Py_ssize_t i = 0; i < want; i++) {
        PyObject *g = PyTuple_GetItem(r, i);
        int e = st->edge_of ? st->edge_of[i] : -1;
        if (e < 0) {
            if (g != Py_None) {
                PyErr_Format(PyExc_RuntimeError, "function %s returned a gradient different than None at position %zd, "
                             "but the corresponding forward input was not a Variable", node_name(self, name, sizeof name), i + 1);
                Py_DECREF(r);
                return -1;
            }
            continue;
        }
        if (g == Py_None) continue;
        if (!tn_py_is_tensor(g)) {
            PyErr_Format(PyExc_RuntimeError, "expected Variable or None (got %s)", tn_py_type_name(g));
            Py_DECREF(r);
            return -1;
        }
        if (e < n->nnext) Py_XSETREF(outs[e], Py_NewRef(g));
    }
    Py_DECREF(r);
    return 0;
}

/* ---------------------------------------------------------------------------------------------
 * _FunctionBase.apply (THPFunction_apply) */

static PyObject *base_setup_context;   /* _SingleLevelFunction.setup_context */

static int is_in(PyObject *tuple, PyObject *o) {
    if (!tuple) return 0;
    for (Py_ssize_t i = 0; i < PyTuple_Size(tuple); i++)
        if (PyTuple_GetItem(tuple, i) == o) return 1;
    return 0;
}

/* apply(*args, **kwargs): keyword arguments name forward's positional parameters after ctx;
 * they are placed by position (upstream folds them the same way). New reference. */
static PyObject *fold_kwargs(PyObject *cls, PyObject *args, PyObject *kw, bool skip_ctx) {
    PyObject *fwd = PyObject_GetAttrString(cls, "forward");
    PyObject *code = fwd ? PyObject_GetAttrString(fwd, "__code__") : NULL;
    Py_XDECREF(fwd);
    if (!code) return NULL;
    if (!PyObject_HasAttrString(code, "co_argcount")) {
        Py_DECREF(code);
        PyErr_SetString(PyExc_TypeError, "forward().__code__ is not a code object");
        return NULL;
    }
    PyObject *argc = PyObject_GetAttrString(code, "co_argcount");
    PyObject *names = argc ? PyObject_GetAttrString(code, "co_varnames") : NULL;
    Py_DECREF(code);
    long npos = argc ? PyLong_AsLong(argc) : -1;
    Py_XDECREF(argc);
    if (!names || npos < 0) { Py_XDECREF(names); return NULL; }
    int skip = skip_ctx ? 1 : 0;
    Py_ssize_t nargs = PyTuple_Size(args), total = nargs;
    PyObject *slots = PyList_New(0), *k, *v;
    Py_ssize_t pos = 0;
    if (!slots) { Py_DECREF(names); return NULL; }
    for (Py_ssize_t i = 0; i < nargs; i++) PyList_Append(slots, PyTuple_GetItem(args, i));
    while (PyDict_Next(kw, &pos, &k, &v)) {
        Py_ssize_t at = -1;
        for (long j = skip; j < npos && j < PyTuple_Size(names); j++)
            if (PyUnicode_Compare(PyTuple_GetItem(names, j), k) == 0) { at = j - skip; break; }
        if (at < 0) { PyErr_Format(PyExc_TypeError, "forward() got an unexpected keyword argument '%U'", k); goto fail; }
        if (at < nargs) { PyErr_Format(PyExc_TypeError, "forward() got multiple values for argument '%U'", k); goto fail; }
        while (PyList_Size(slots) <= at) PyList_Append(slots, Py_None), total = -1;
        if (PyList_SetItem(slots, at, Py_NewRef(v)) < 0) goto fail;
    }
    /* every position between the given ones must be named */
    PyObject *given = PyDict_Copy(kw);
    if (!given) goto fail;
    for (Py_ssize_t i = nargs; i < PyList_Size(slots); i++) {
        PyObject *nm = PyTuple_GetItem(names, i + skip);
        if (!PyDict_GetItem(given, nm)) {
            PyErr_Format(PyExc_TypeError, "forward() missing required argument: '%U' (position %zd)", nm, i);
            Py_DECREF(given);
            goto fail;
        }
    }
    Py_DECREF(given);
    (void)total;
    Py_DECREF(names);
    PyObject *t = PyList_AsTuple(slots);
    Py_DECREF(slots);
    return t;
fail:
    Py_DECREF(names);
    Py_DECREF(slots);
    return NULL;
}

/* upstream's _view_as_self_with_no_grad: an input returned as an output comes back as a view */
static PyObject *view_as_self(PyObject *t) {
    const tn_tensor *g = tn_tensor_of(t);
    return tn_tensor_new_view(t, g->ndim, g->sizes, g->strides, g->offset);
}

static PyObject *set_output_history(tn_node *n, fnstate *st, PyObject *inputs, PyObject *dirty, PyObject *nondiff,
                                    bool executable, int nout, PyObject *var, int i) {
    tn_tensor_obj *o = (tn_tensor_obj *)var;
    bool is_input = is_in(inputs, var), is_modified = is_in(dirty, var);
    bool is_diff = executable && !is_in(nondiff, var) &&
                   (tn_dtype_is_floating(o->t.dtype) || tn_dtype_is_complex(o->t.dtype));
    if (executable) {
        tn_meta_set(&n->out_meta[i], &o->t);
        st->out_kind[i] = is_diff ? OUT_DIFF : OUT_NONDIFF;
    }
    if (!is_diff) {
        if (!tn_requires_grad(var)) {
            if (is_input && !is_modified) return view_as_self(var);
            return Py_NewRef(var);
        }
        if (is_input) return tn_detached_alias(var);
        if (!o->base) { o->requires_grad = false; Py_CLEAR(o->grad_fn); }
        return Py_NewRef(var);
    }
    if (is_modified) {
        if (!o->grad_fn && o->requires_grad) {
            PyErr_SetString(PyExc_RuntimeError, "a leaf Variable that requires grad has been used in an in-place operation.");
            return NULL;
        }
        if (!is_input && PyErr_WarnEx(PyExc_UserWarning, "Only input Tensors should be given to ctx.mark_dirty(). If a "
                                      "Tensor is not an input, there is no need to pass it to mark_dirty().", 1) < 0)
            return NULL;
        if (o->base && nout > 1) {
            PyErr_SetString(PyExc_RuntimeError,
                            "If your Function modifies inplace an input that is a view of another Tensor, your Function "
                            "cannot return more than one Tensor. This is not supported by the current autograd engine. "
                            "You should either make sure the input is not a view (using .clone() for example) or make "
                            "your Function only return one Tensor (potentially splitting it into two Functions: one doing "
                            "the inplace that returns a single Tensor and a second one that does the other operations). "
                            "You can ask on the forum https://discuss.pytorch.org/ if you need help to do this change.");
            return NULL;
        }
        if (o->base) return tn_not_implemented("autograd for a custom Function modifying a view in place (CopySlices)");
        Py_CLEAR(o->grad);
        if (o->grad_acc) {
            PyObject *acc = PyWeakref_GetObject(o->grad_acc);
            if (acc && acc != Py_None) Py_CLEAR(((tn_node *)acc)->variable);
            Py_CLEAR(o->grad_acc);
        }
        Py_XSETREF(o->grad_fn, Py_NewRef((PyObject *)n));
        o->output_nr = i;
        o->view_version = o->t.storage->version;
        o->requires_grad = false;
        return Py_NewRef(var);
    }
    PyObject *out = is_input ? view_as_self(var) : Py_NewRef(var);
    if (!out) return NULL;
    tn_tensor_obj *oo = (tn_tensor_obj *)out;
    Py_XSETREF(oo->grad_fn, Py_NewRef((PyObject *)n));
    oo->output_nr = i;
    oo->view_version = oo->t.storage->version;   /* a view's grad_fn is current (views.c) */
    oo->requires_grad = false;
    return out;
}

static PyObject *check_tensor_tuple(PyObject *t, const char *what) {
    if (!t) return NULL;
    if (!PyTuple_Check(t)) {
        PyErr_Format(PyExc_RuntimeError, "autograd internal error: %s attribute is expected to be a tuple but is %s",
                     what, tn_py_type_name(t));
        return (PyObject *)-1;
    }
    for (Py_ssize_t i = 0; i < PyTuple_Size(t); i++) {
        PyObject *e = PyTuple_GetItem(t, i);
        if (!tn_py_is_tensor(e)) {
            if (!strcmp(what, "dirty_tensors"))
                PyErr_Format(PyExc_RuntimeError, "mark_dirty can only accept variables, but argument %zd is of type %s",
                             i, tn_py_type_name(e));
            else
                PyErr_Format(PyExc_RuntimeError, "mark_non_differentiable only accepts variable arguments, but got %s",
                             tn_py_type_name(e));
            return (PyObject *)-1;
        }
    }
    return t;
}

static PyObject *process_outputs(tn_node *n, fnstate *st, PyObject *inputs, PyObject *raw, bool executable) {
    bool unpack = !PyTuple_Check(raw);
    PyObject *tup = unpack ? PyTuple_Pack(1, raw) : Py_NewRef(raw);
    if (!tup) return NULL;
    int nout = (int)PyTuple_Size(tup);
    PyObject *outputs = NULL, *dirty = st->dirty, *nondiff = st->non_diff, *result = NULL;
    st->dirty = NULL;
    st->non_diff = NULL;
    if (check_tensor_tuple(dirty, "dirty_tensors") == (PyObject *)-1 ||
        check_tensor_tuple(nondiff, "non_differentiable") == (PyObject *)-1)
        goto done;
    for (Py_ssize_t i = 0; dirty && i < PyTuple_Size(dirty); i++)
        tn_tensor_of(PyTuple_GetItem(dirty, i))->storage->version++;
    if (executable) {
        free(n->out_meta);
        n->out_meta = calloc((size_t)nout + 1, sizeof *n->out_meta);
        st->out_kind = calloc((size_t)nout + 1, 1);
        if (!n->out_meta || !st->out_kind) { PyErr_NoMemory(); goto done; }
        n->nout = nout;
    }
    if (!(outputs = PyTuple_New(nout))) goto done;
    for (int i = 0; i < nout; i++) {
        PyObject *o = PyTuple_GetItem(tup, i), *w;
        if (!tn_py_is_tensor(o)) w = Py_NewRef(o);
        else if (!(w = set_output_history(n, st, inputs, dirty, nondiff, executable, nout, o, i))) goto done;
        PyTuple_SetItem(outputs, i, w);
    }
    for (Py_ssize_t i = 0; dirty && i < PyTuple_Size(dirty); i++)
        if (!is_in(tup, PyTuple_GetItem(dirty, i))) {
            PyErr_SetString(PyExc_RuntimeError, "Some elements marked as dirty during the forward method were not returned "
                            "as output. The inputs that are modified inplace must all be outputs of the Function.");
            goto done;
        }
    /* saved tensors: after the outputs have their history, as upstream's */
    if (executable && st->to_save) {
        if (!PyTuple_Check(st->to_save)) {
            PyErr_Format(PyExc_RuntimeError, "autograd internal error: to_save attribute is expected to be a tuple but is %s",
                         tn_py_type_name(st->to_save));
            goto done;
        }
        Py_ssize_t ns = PyTuple_Size(st->to_save);
        PyObject *saved = PyTuple_New(ns);
        if (!saved) goto done;
        for (Py_ssize_t i = 0; i < ns; i++) {
            PyObject *t = PyTuple_GetItem(st->to_save, i), *s;
            if (t == Py_None) s = Py_NewRef(Py_None);
            else if (!tn_py_is_tensor(t)) {
                PyErr_Format(PyExc_TypeError, "save_for_backward can only save variables, but argument %zd is of type %s",
                             i, tn_py_type_name(t));
                Py_DECREF(saved);
                goto done;
            } else if (!(s = saved_new(n, t, ((tn_tensor_obj *)t)->grad_fn == (PyObject *)n))) {
                Py_DECREF(saved);
                goto done;
            }
            PyTuple_SetItem(saved, i, s);
        }
        Py_XSETREF(n->extra, saved);
    }
    Py_CLEAR(st->to_save);
    Py_CLEAR(st->saved_for_forward);
    result = unpack ? Py_NewRef(PyTuple_GetItem(outputs, 0)) : Py_NewRef(outputs);
done:
    Py_XDECREF(outputs);
    Py_XDECREF(dirty);
    Py_XDECREF(nondiff);
    Py_DECREF(tup);
    return result;
}

static PyObject *fb_apply(PyObject *cls, PyObject *args, PyObject *kw) {
    if (!base_setup_context) {
        PyObject *mod = PyImport_ImportModule("torch.autograd.function");
        PyObject *slf = mod ? PyObject_GetAttrString(mod, "_SingleLevelFunction") : NULL;
        Py_XDECREF(mod);
        base_setup_context = slf ? PyObject_GetAttrString(slf, "setup_context") : NULL;
        Py_XDECREF(slf);
        if (!base_setup_context) return NULL;
    }
    PyObject *bcls = PyObject_GetAttrString(cls, "_backward_cls");
    if (!bcls) return NULL;
    PyObject *setup = PyObject_GetAttrString(cls, "setup_context");
    if (!setup) { Py_DECREF(bcls); return NULL; }
    bool overridden = setup != base_setup_context;
    PyObject *inputs = kw && PyDict_Size(kw) ? fold_kwargs(cls, args, kw, !overridden) : Py_NewRef(args);
    PyObject *ctx = inputs ? PyObject_CallNoArgs(bcls) : NULL, *raw = NULL, *result = NULL;
    Py_DECREF(bcls);
    if (!ctx) goto done;
    if (!PyObject_TypeCheck(ctx, tn_function_base_type)) {
        PyErr_Format(PyExc_TypeError, "_backward_cls of %R must be a subclass of torch._C._FunctionBase", cls);
        goto done;
    }
    tn_node *n = (tn_node *)ctx;
    fnstate *st = state_of(ctx);
    if (!st) goto done;
    Py_ssize_t nin = PyTuple_Size(inputs);
    PyObject *nig = PyTuple_New(nin);
    if (!nig) goto done;
    Py_XSETREF(st->needs_input_grad, nig);
    free(st->edge_of);
    st->edge_of = malloc(((size_t)nin + 1) * sizeof *st->edge_of);
    if (!st->edge_of) { PyErr_NoMemory(); goto done; }
    st->nin = (int)nin;
    int ntensors = 0;
    bool any = false;
    for (Py_ssize_t i = 0; i < nin; i++) {
        PyObject *a = PyTuple_GetItem(inputs, i);
        bool t = tn_py_is_tensor(a), rg = t && tn_requires_grad(a);
        st->edge_of[i] = t ? ntensors++ : -1;
        any |= rg;
        PyTuple_SetItem(nig, i, Py_NewRef(rg ? Py_True : Py_False));
    }
    bool executable = tn_grad_enabled() && any;
    n->kind = TN_NODE_PY;
    n->op = -1;
    n->apply = fn_node_apply;
    if (executable) {
        n->seq = tn_next_sequence_nr();
        free(n->next);
        n->next = calloc((size_t)ntensors + 1, sizeof *n->next);
        if (!n->next) { PyErr_NoMemory(); goto done; }
        n->nnext = ntensors;
        for (Py_ssize_t i = 0; i < nin; i++) {
            PyObject *a = PyTuple_GetItem(inputs, i);
            if (st->edge_of[i] >= 0 && tn_gradient_edge(a, &n->next[st->edge_of[i]]) < 0) goto done;
        }
    }
    PyObject *fwd = PyObject_GetAttrString(cls, "forward");
    if (!fwd) goto done;
    bool was = tn_grad_mode_set(false);
    if (overridden) {
        raw = PyObject_CallObject(fwd, inputs);
        if (raw) {
            PyObject *r = PyObject_CallFunctionObjArgs(setup, ctx, inputs, raw, NULL);
            if (!r) Py_CLEAR(raw);
            Py_XDECREF(r);
        }
    } else {
        PyObject *full = PyTuple_New(nin + 1);
        if (full) {
            PyTuple_SetItem(full, 0, Py_NewRef(ctx));
            for (Py_ssize_t i = 0; i < nin; i++) PyTuple_SetItem(full, i + 1, Py_NewRef(PyTuple_GetItem(inputs, i)));
            raw = PyObject_CallObject(fwd, full);
            Py_DECREF(full);
        }
    }
    tn_grad_mode_set(was);
    Py_DECREF(fwd);
    if (!raw) goto done;
    result = process_outputs(n, st, inputs, raw, executable);
    if (!executable) Py_CLEAR(st->non_diff);
done:
    Py_XDECREF(raw);
    Py_XDECREF(ctx);
    Py_XDECREF(inputs);
    Py_DECREF(setup);
    return result;
}

/* ---------------------------------------------------------------------------------------------
 * _FunctionBase: properties and methods */

static PyObject *fb_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    allocfunc a = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    tn_node *n = (tn_node *)a(tp, 0);
    if (!n) return NULL;
    n->kind = TN_NODE_PY;
    n->op = -1;
    n->apply = fn_node_apply;
    if (!state_of((PyObject *)n)) { Py_DECREF(n); return NULL; }
    return (PyObject *)n;
}

static PyObject *fb_saved_tensors(PyObject *self, void *c) {
    tn_node *n = (tn_node *)self;
    if (n->released) return tn_freed_error();
    if (!n->extra) return PyTuple_New(0);
    Py_ssize_t k = PyTuple_Size(n->extra);
    PyObject *t = PyTuple_New(k);
    for (Py_ssize_t i = 0; t && i < k; i++) {
        PyObject *v = saved_unpack(n, PyTuple_GetItem(n->extra, i));
        if (!v) { Py_CLEAR(t); break; }
        PyTuple_SetItem(t, i, v);
    }
    return t;
}
static PyObject *fb_saved_variables(PyObject *self, void *c) {
    if (PyErr_WarnEx(PyExc_DeprecationWarning, "'saved_variables' is deprecated; use 'saved_tensors'", 1) < 0) return NULL;
    return fb_saved_tensors(self, c);
}
/* _raw_saved_tensors: the SavedTensor objects themselves (None for a saved None) */
static PyObject *fb_raw_saved_tensors(PyObject *self, void *c) {
    tn_node *n = (tn_node *)self;
    if (n->released) return tn_freed_error();
    return n->extra ? Py_NewRef(n->extra) : PyTuple_New(0);
}
static PyObject *fb_refuse(PyObject *self, void *c) {
    char what[160];
    snprintf(what, sizeof what, "torch._C._FunctionBase.%s", (const char *)c);
    return tn_not_implemented(what);
}

#define OBJ_FIELD(field)                                                                          \
    static PyObject *get_##field(PyObject *self, void *c) {                                       \
        fnstate *s = state_of(self);                                                              \
        return s ? Py_NewRef(s->field ? s->field : Py_None) : NULL;                               \
    }                                                                                             \
    static int set_##field(PyObject *self, PyObject *v, void *c) {                                \
        fnstate *s = state_of(self);                                                              \
        if (!s) return -1;                                                                        \
        Py_XSETREF(s->field, v && v != Py_None ? Py_NewRef(v) : NULL);                            \
        return 0;                                                                                 \
    }
OBJ_FIELD(to_save)
OBJ_FIELD(dirty)
OBJ_FIELD(non_diff)
OBJ_FIELD(needs_input_grad)
OBJ_FIELD(saved_for_forward)

static int set_bool(PyObject *v, bool *dst, const char *name) {
    if (!v || !PyBool_Check(v)) {
        PyErr_Format(PyExc_TypeError, "%s must be set to a bool", name);
        return -1;
    }
    *dst = v == Py_True;
    return 0;
}
static int set_materialize(PyObject *self, PyObject *v, void *c) {
    fnstate *s = state_of(self);
    return s ? set_bool(v, &s->materialize_grads, "materialize_grads") : -1;
}
static PyObject *get_materialize_non_diff(PyObject *self, void *c) {
    fnstate *s = state_of(self);
    return s ? PyBool_FromLong(s->materialize_non_diff) : NULL;
}
static int set_materialize_non_diff(PyObject *self, PyObject *v, void *c) {
    fnstate *s = state_of(self);
    return s ? set_bool(v, &s->materialize_non_diff, "_materialize_non_diff_grads") : -1;
}
static int set_pure_view(PyObject *self, PyObject *v, void *c) {
    bool b;
    return set_bool(v, &b, "_is_pure_view");
}
static PyObject *fb_requires_grad(PyObject *self, void *c) { Py_RETURN_TRUE; }

static PyObject *fb_name(PyObject *self, PyObject *u) {
    return PyObject_GetAttrString((PyObject *)Py_TYPE(self), "__name__");
}
static PyObject *fb_refuse_method(PyObject *self, PyObject *args) {
    return tn_not_implemented("torch._C._FunctionBase._get_compiled_autograd_symints");
}
static PyObject *fb_maybe_clear(PyObject *self, PyObject *args) {
    return tn_not_implemented("torch._C._FunctionBase.maybe_clear_saved_tensors");
}

static PyGetSetDef fb_getset[] = {
    {"saved_tensors", fb_saved_tensors, NULL, NULL, NULL},
    {"saved_variables", fb_saved_variables, NULL, NULL, NULL},
    {"_raw_saved_tensors", fb_raw_saved_tensors, NULL, NULL, NULL},
    {"to_save", get_to_save, set_to_save, NULL, NULL},
    {"non_differentiable", get_non_diff, set_non_diff, NULL, NULL},
    {"dirty_tensors", get_dirty, set_dirty, NULL, NULL},
    {"saved_for_forward", get_saved_for_forward, set_saved_for_forward, NULL, NULL},
    {"needs_input_grad", get_needs_input_grad, set_needs_input_grad, NULL, NULL},
    {"requires_grad", fb_requires_grad, NULL, NULL, NULL},
    {"materialize_grads", NULL, set_materialize, NULL, NULL},
    {"_materialize_non_diff_grads", get_materialize_non_diff, set_materialize_non_diff, NULL, NULL},
    {"_is_pure_view", NULL, set_pure_view, NULL, NULL},
    {"_input_metadata", fb_refuse, NULL, NULL, "_input_metadata"},
    {"_compiled_autograd_backward_state", fb_refuse, NULL, NULL, "_compiled_autograd_backward_state"},
    {NULL, NULL, NULL, NULL, NULL},   /* next_functions, metadata: copied from node.c at init */
    {NULL, NULL, NULL, NULL, NULL},
    {NULL},
};
static PyMethodDef fb_methods[] = {
    {"apply", (PyCFunction)(void (*)(void))fb_apply, METH_CLASS | METH_VARARGS | METH_KEYWORDS, NULL},
    {"name", fb_name, METH_NOARGS, NULL},
    {"maybe_clear_saved_tensors", fb_maybe_clear, METH_NOARGS, NULL},
    {"_get_compiled_autograd_symints", fb_refuse_method, METH_VARARGS, NULL},
    {NULL}, {NULL}, {NULL}, {NULL}, {NULL},   /* register_hook, register_prehook, _register_hook_dict,
                                                 _sequence_nr, _set_sequence_nr: from node.c */
    {NULL},
};

static PyMemberDef fb_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(tn_node, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(tn_node, weakrefs), READONLY, NULL},
    {NULL},
};

/* ---------------------------------------------------------------------------------------------
 * torch._C._functions.DelayedError (once_differentiable): outputs alias the inputs and have an
 * Error node that raises `msg` in backward. */

typedef struct { PyObject_HEAD PyObject *msg; int n; } delayed;

static int error_apply(tn_node *n, PyObject **g, PyObject **o) {
    PyErr_SetObject(PyExc_RuntimeError, n->extra ? n->extra : Py_None);
    return -1;
}
static PyObject *de_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    PyObject *msg;
    int num;
    if (!PyArg_ParseTuple(args, "Oi:DelayedError", &msg, &num)) return NULL;
    PyObject *s = PyBytes_Check(msg) ? PyUnicode_FromEncodedObject(msg, "utf-8", "replace")
                                     : PyUnicode_Check(msg) ? Py_NewRef(msg) : NULL;
    if (!s) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_TypeError, "DelayedError: msg must be bytes or str");
        return NULL;
    }
    allocfunc a = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    delayed *d = (delayed *)a(tp, 0);
    if (!d) { Py_DECREF(s); return NULL; }
    d->msg = s;
    d->n = num;
    return (PyObject *)d;
}
static void de_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(((delayed *)self)->msg);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}
/* the outputs of DelayedError(msg, n)(*args): aliases of the inputs, with an Error node raising msg
 * when any of them requires grad and gradients are being recorded */
static PyObject *delayed_apply(PyObject *msg, PyObject *args) {
    Py_ssize_t na = PyTuple_Size(args);
    bool any = false;
    for (Py_ssize_t i = 0; i < na; i++) {
        PyObject *a = PyTuple_GetItem(args, i);
        if (a != Py_None && !tn_py_is_tensor(a)) return PyErr_Format(PyExc_TypeError, "DelayedError: expected Tensors or None");
        any |= a != Py_None && tn_requires_grad(a);
    }
    tn_node *n = NULL;
    if (any && tn_grad_enabled()) {
        if (!(n = tn_node_new("Error", TN_NODE_ERROR, (int)na, (int)na))) return NULL;
        n->apply = error_apply;
        n->extra = Py_NewRef(msg);
    }
    PyObject *out = PyTuple_New(na);
    for (Py_ssize_t i = 0; out && i < na; i++) {
        PyObject *a = PyTuple_GetItem(args, i), *v;
        if (a == Py_None) { PyTuple_SetItem(out, i, Py_NewRef(Py_None)); continue; }
        if (n && tn_gradient_edge(a, &n->next[i]) < 0) { Py_CLEAR(out); break; }
        if (!(v = tn_detached_alias(a))) { Py_CLEAR(out); break; }
        if (n) {
            tn_meta_set(&n->out_meta[i], tn_tensor_of(a));
            ((tn_tensor_obj *)v)->grad_fn = Py_NewRef((PyObject *)n);
            ((tn_tensor_obj *)v)->output_nr = (int)i;
        }
        PyTuple_SetItem(out, i, v);
    }
    Py_XDECREF((PyObject *)n);
    if (out && na == 1) {
        PyObject *x = Py_NewRef(PyTuple_GetItem(out, 0));
        Py_DECREF(out);
        return x;
    }
    return out;
}
static PyObject *de_call(PyObject *self, PyObject *args, PyObject *kw) {
    delayed *d = (delayed *)self;
    Py_ssize_t na = PyTuple_Size(args);
    if (na != d->n) return PyErr_Format(PyExc_TypeError, "DelayedError expected %d inputs, got %zd", d->n, na);
    return delayed_apply(d->msg, args);
}
PyObject *tn_delayed_error(const char *msg, PyObject *t) {
    PyObject *m = PyUnicode_FromString(msg), *args = m ? PyTuple_Pack(1, t) : NULL, *r = args ? delayed_apply(m, args) : NULL;
    Py_XDECREF(m);
    Py_XDECREF(args);
    return r;
}
static PyType_Slot de_slots[] = {{Py_tp_new, de_new}, {Py_tp_dealloc, de_dealloc}, {Py_tp_call, de_call}, {0, NULL}};
static PyType_Spec de_spec = {"torch._C._functions.DelayedError", sizeof(delayed), 0, Py_TPFLAGS_DEFAULT, de_slots};

/* ---------------------------------------------------------------------------------------------
 * torch._C._functions.UndefinedGrad (gradcheck's check_undefined_grad): UndefinedGrad()(t) is a
 * clone of t whose node, UndefinedGradBackward, passes an undefined gradient to t's history. */

static int undefined_apply(tn_node *n, PyObject **g, PyObject **o) { return 0; }
static PyObject *ug_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    if (PyTuple_Size(args) || (kw && PyDict_Size(kw)))
        return PyErr_Format(PyExc_RuntimeError, "Requires zero arguments, got %zd", PyTuple_Size(args) + (kw ? PyDict_Size(kw) : 0));
    allocfunc a = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    return a(tp, 0);
}
static void ug_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}
static PyObject *ug_call(PyObject *self, PyObject *args, PyObject *kw) {
    Py_ssize_t na = PyTuple_Size(args);
    if (na != 1) return PyErr_Format(PyExc_TypeError, "expected 1 arguments, got %zd instead", na);
    PyObject *a = PyTuple_GetItem(args, 0);
    if (!tn_py_is_tensor(a)) return PyErr_Format(PyExc_TypeError, "argument 0 is not a Variable");
    bool rec = tn_requires_grad(a);   /* recorded under no_grad too, as upstream's */
    bool was = tn_grad_mode_set(false);
    PyObject *c = tn_at_clone(a, NULL);
    tn_grad_mode_set(was);
    if (!c || !rec) return c;
    PyObject *v = tn_detached_alias(c);
    Py_DECREF(c);
    if (!v) return NULL;
    bool edges = tn_grad_enabled();   /* under no_grad the node has no next edge, as upstream's */
    tn_node *n = tn_node_new("UndefinedGradBackward", TN_NODE_OP, edges ? 1 : 0, 1);
    if (!n) { Py_DECREF(v); return NULL; }
    n->apply = undefined_apply;
    if (edges && tn_gradient_edge(a, &n->next[0]) < 0) { Py_DECREF(n); Py_DECREF(v); return NULL; }
    tn_meta_set(&n->out_meta[0], tn_tensor_of(v));
    ((tn_tensor_obj *)v)->grad_fn = (PyObject *)n;
    ((tn_tensor_obj *)v)->output_nr = 0;
    return v;
}
static PyType_Slot ug_slots[] = {{Py_tp_new, ug_new}, {Py_tp_dealloc, ug_dealloc}, {Py_tp_call, ug_call}, {0, NULL}};
static PyType_Spec ug_spec = {"torch._C._functions.UndefinedGrad", sizeof(PyObject), 0, Py_TPFLAGS_DEFAULT, ug_slots};

/* ---------------------------------------------------------------------------------------------
 * init */

/* _make_saved_tensor(tensor, is_output, is_inplace_on_view=False) */
static PyObject *make_saved_tensor(PyObject *m, PyObject *args, PyObject *kw) {
    static char *kws[] = {"tensor", "is_output", "is_inplace_on_view", NULL};
    PyObject *t;
    int is_output, on_view = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Op|p:_make_saved_tensor", kws, &t, &is_output, &on_view)) return NULL;
    if (!tn_py_is_tensor(t)) return PyErr_Format(PyExc_TypeError, "_make_saved_tensor: expected a Tensor, got %s", tn_py_type_name(t));
    if (on_view) return tn_not_implemented("torch._C._autograd._make_saved_tensor(is_inplace_on_view=True)");
    return saved_new(NULL, t, is_output);
}

/* torch._C._autograd._get_creation_meta(view) / _set_creation_meta(view, meta): how a view was
 * made (upstream's CreationMeta; meta_utils copies it onto a fake tensor's view). Here: a view made
 * in no_grad / inference mode of a base requiring grad (autograd/views.c's ng_view), a view output of
 * a node with several outputs (split, unbind: MULTI_OUTPUT_NODE), of a custom Function
 * (IN_CUSTOM_FUNCTION), else DEFAULT. Setting takes DEFAULT, NO_GRAD_MODE and INFERENCE_MODE. */
enum { CM_DEFAULT, CM_CUSTOM, CM_MULTI, CM_NO_GRAD, CM_INFERENCE };
static PyObject *creation_meta_member(long v) {
    PyObject *ag = tn_py_submodule("_autograd");
    PyObject *cls = ag ? PyObject_GetAttrString(ag, "CreationMeta") : NULL;
    Py_XDECREF(ag);
    PyObject *r = cls ? PyObject_CallFunction(cls, "l", v) : NULL;
    Py_XDECREF(cls);
    return r;
}
static PyObject *get_creation_meta(PyObject *m, PyObject *t) {
    if (!tn_py_is_tensor(t)) return PyErr_Format(PyExc_TypeError, "_get_creation_meta(): expected a Tensor, got %s", tn_py_type_name(t));
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (!o->base) {
        PyErr_SetString(PyExc_RuntimeError, "Expected self to be a view");
        return NULL;
    }
    long v = o->ng_view == 2 ? CM_INFERENCE : o->ng_view == 1 ? CM_NO_GRAD : CM_DEFAULT;
    if (v == CM_DEFAULT && o->grad_fn && PyObject_TypeCheck(o->grad_fn, tn_function_base_type)) v = CM_CUSTOM;
    else if (v == CM_DEFAULT && o->grad_fn && tn_is_node(o->grad_fn) && ((tn_node *)o->grad_fn)->nout > 1) v = CM_MULTI;
    return creation_meta_member(v);
}
static PyObject *set_creation_meta(PyObject *m, PyObject *args) {
    PyObject *t, *meta;
    if (!PyArg_ParseTuple(args, "OO:_set_creation_meta", &t, &meta)) return NULL;
    if (!tn_py_is_tensor(t)) return PyErr_Format(PyExc_TypeError, "_set_creation_meta(): expected a Tensor, got %s", tn_py_type_name(t));
    PyObject *vo = PyObject_GetAttrString(meta, "value");
    long v = vo ? PyLong_AsLong(vo) : -1;
    Py_XDECREF(vo);
    if (v == -1 && PyErr_Occurred()) return NULL;
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (!o->base) {
        PyErr_SetString(PyExc_RuntimeError, "Expected self to be a view");
        return NULL;
    }
    if (v == CM_CUSTOM || v == CM_MULTI) {
        /* only the nodes that made the view carry these here */
        PyObject *cur = get_creation_meta(m, t);
        PyObject *cv = cur ? PyObject_GetAttrString(cur, "value") : NULL;
        long c = cv ? PyLong_AsLong(cv) : -1;
        Py_XDECREF(cur); Py_XDECREF(cv);
        if (c == v) Py_RETURN_NONE;
        if (!PyErr_Occurred()) tn_not_implemented("torch._C._autograd._set_creation_meta(IN_CUSTOM_FUNCTION / MULTI_OUTPUT_NODE)");
        return NULL;
    }
    o->ng_view = v == CM_INFERENCE ? 2 : v == CM_NO_GRAD ? 1 : 0;
    o->view_version = o->t.storage->version;
    Py_RETURN_NONE;
}

static PyMethodDef autograd_fns[] = {
    {"_get_creation_meta", get_creation_meta, METH_O, NULL},
    {"_set_creation_meta", set_creation_meta, METH_VARARGS, NULL},
    {"_make_saved_tensor", (PyCFunction)(void (*)(void))make_saved_tensor, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_push_saved_tensors_default_hooks", push_hooks, METH_VARARGS, NULL},
    {"_pop_saved_tensors_default_hooks", pop_hooks, METH_NOARGS, NULL},
    {"_saved_tensors_hooks_disable", (PyCFunction)(void (*)(void))hooks_disable, METH_VARARGS | METH_KEYWORDS, NULL},
    {"_saved_tensors_hooks_enable", hooks_enable, METH_NOARGS, NULL},
    {"_saved_tensors_hooks_is_enabled", hooks_is_enabled, METH_NOARGS, NULL},
    {"_saved_tensors_hooks_get_disabled_error_message", hooks_msg, METH_NOARGS, NULL},
    {"_saved_tensors_hooks_set_tracing", hooks_set_tracing, METH_O, NULL},
    {NULL},
};

static int copy_by_name(const char *name, PyMethodDef *dst) {
    for (PyMethodDef *m = tn_node_methods; m->ml_name; m++)
        if (!strcmp(m->ml_name, name)) { *dst = *m; return 0; }
    PyErr_Format(PyExc_RuntimeError, "torchnative: node method %s missing", name);
    return -1;
}
static int copy_getset(const char *name, PyGetSetDef *dst) {
    for (PyGetSetDef *g = tn_node_getset; g->name; g++)
        if (!strcmp(g->name, name)) { *dst = *g; return 0; }
    PyErr_Format(PyExc_RuntimeError, "torchnative: node property %s missing", name);
    return -1;
}

/* Tensor.output_nr is a property upstream (the generated aten::output_nr trampoline made it a
 * method here) */
static PyObject *t_output_nr(PyObject *self, void *c) {   /* among the node's differentiable outputs (node.c) */
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    return PyLong_FromLong(tn_exposed_nr(o->grad_fn, o->output_nr));
}
static PyGetSetDef output_nr_def = {"output_nr", t_output_nr, NULL, NULL, NULL};

int tn_function_init(PyObject *m) {
    PyObject *onr = PyDescr_NewGetSet(tn_py.TensorBase, &output_nr_def);
    int rc = onr ? PyObject_SetAttrString((PyObject *)tn_py.TensorBase, "output_nr", onr) : -1;
    Py_XDECREF(onr);
    if (rc < 0) return -1;

    /* borrow node.c's methods/properties that read only tn_node fields */
    int nm = 0, ng = 0;
    while (fb_methods[nm].ml_name) nm++;
    while (fb_getset[ng].name) ng++;
    const char *mnames[] = {"register_hook", "register_prehook", "_register_hook_dict", "_sequence_nr", "_set_sequence_nr"};
    for (int i = 0; i < 5; i++)
        if (copy_by_name(mnames[i], &fb_methods[nm + i]) < 0) return -1;
    if (copy_getset("next_functions", &fb_getset[ng]) < 0 || copy_getset("metadata", &fb_getset[ng + 1]) < 0) return -1;

    if (!(savedvar_type = (PyTypeObject *)PyType_FromSpec(&sv_spec))) return -1;
    if (!(fnstate_type = (PyTypeObject *)PyType_FromSpec(&fs_spec))) return -1;

    /* node.c's tp_dealloc / tp_traverse / tp_clear handle every tn_node field: borrowed from a
     * node type so the layout is handled in one place */
    PyTypeObject *nt = tn_node_type("AccumulateGrad");
    if (!nt) return -1;
    PyType_Slot slots[] = {
        {Py_tp_new, fb_new},
        {Py_tp_dealloc, PyType_GetSlot(nt, Py_tp_dealloc)},
        {Py_tp_traverse, PyType_GetSlot(nt, Py_tp_traverse)},
        {Py_tp_clear, PyType_GetSlot(nt, Py_tp_clear)},
        {Py_tp_methods, fb_methods},
        {Py_tp_getset, fb_getset},
        {Py_tp_members, fb_members},
        {0, NULL}};
    PyType_Spec spec = {"torch._C._FunctionBase", sizeof(tn_node), 0,
                        Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE, slots};
    PyObject *fb = PyType_FromSpec(&spec);
    if (!fb) return -1;
    tn_function_base_type = (PyTypeObject *)fb;
    if (PyModule_AddObject(m, "_FunctionBase", Py_NewRef(fb)) < 0) { Py_DECREF(fb); return -1; }

    PyObject *ag = tn_py_submodule("_autograd");
    if (!ag) return -1;
    int r = PyModule_AddFunctions(ag, autograd_fns);
    if (r == 0) r = PyModule_AddObject(ag, "SavedTensor", Py_NewRef((PyObject *)savedvar_type));
    Py_DECREF(ag);
    if (r < 0) return -1;

    PyObject *fns = tn_py_submodule("_functions");
    PyObject *de = fns ? PyType_FromSpec(&de_spec) : NULL;
    r = de ? PyObject_SetAttrString(fns, "DelayedError", de) : -1;
    Py_XDECREF(de);
    PyObject *ug = r == 0 ? PyType_FromSpec(&ug_spec) : NULL;
    r = ug ? PyObject_SetAttrString(fns, "UndefinedGrad", ug) : -1;
    Py_XDECREF(ug);
    Py_XDECREF(fns);
    return r;
}
