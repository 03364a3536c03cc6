/* node.c — autograd nodes as Python objects: one heap type per upstream node name
 * (AddBackward0, MmBackward0, AccumulateGrad, ...; module "builtins" as upstream's), sharing one C
 * layout (tn_node). Python sees name(), next_functions, metadata, register_hook,
 * register_prehook, _register_hook_dict, _sequence_nr, _saved_<arg> / _saved_result and
 * AccumulateGrad.variable. See docs/ARCHITECTURE.md, "Autograd". */
#include "core/profiler.h"
#include "autograd/autograd.h"
#include "dispatch/functorch.h"
#include "autograd/forward.h"

#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>
#include <structmember.h>   /* PyMemberDef of the node types */

static _Thread_local uint64_t next_seq;
uint64_t tn_next_sequence_nr(void) { return next_seq++; }
uint64_t tn_peek_sequence_nr(void) { return next_seq; }

void tn_meta_set(tn_meta *m, const tn_tensor *t) {
    m->defined = true;
    m->dtype = t->dtype;
    m->ndim = t->ndim;
    m->offset = t->offset;
    m->big = NULL;
    int64_t *sz = m->sizes, *st = m->strides;
    if (t->ndim > 8) {
        m->big = malloc(2 * (size_t)t->ndim * sizeof(int64_t));
        if (!m->big) { m->ndim = 0; return; }   /* degrade: only used for zero-fill shapes */
        sz = m->big;
        st = m->big + t->ndim;
    }
    memcpy(sz, t->sizes, (size_t)t->ndim * sizeof(int64_t));
    memcpy(st, t->strides, (size_t)t->ndim * sizeof(int64_t));
}
void tn_meta_clear(tn_meta *m) { free(m->big); m->big = NULL; }

bool tn_requires_grad(PyObject *t) {
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    if (o->ng_view) return o->requires_grad || o->grad_fn || tn_requires_grad(o->base);   /* views.c */
    if (o->base && !o->grad_fn && !o->requires_grad) tn_view_refresh(t);   /* its base got history since */
    return o->requires_grad || o->grad_fn;
}

PyObject *tn_detached_alias(PyObject *t) {
    tn_tensor g = *tn_tensor_of(t);
    tn_storage_incref(g.storage);
    PyObject *r = tn_tensor_wrap(&g);
    if (r) tn_bt_copy_meta(r, t);   /* a BatchedTensor's alias is one too (dispatch/functorch.c) */
    return r;
}

/* ---------------------------------------------------------------------------------------------
 * types */

static PyObject *node_types;   /* dict name -> type */
PyTypeObject *tn_function_base_type;   /* torch._C._FunctionBase (function.c), once made */

static int node_traverse(PyObject *self, visitproc visit, void *arg) {
    tn_node *n = (tn_node *)self;
    Py_VISIT(n->dict);
    for (int i = 0; i < n->nnext; i++) Py_VISIT(n->next[i].fn);
    for (int i = 0; i < n->nargs; i++)
        if (tn_value_holds_object(n->args[i].tag)) Py_VISIT(n->args[i].u.obj);
    for (int k = 0; n->results && k < n->nout; k++) Py_VISIT(n->results[k]);
    Py_VISIT(n->pre_hooks);
    Py_VISIT(n->post_hooks);
    Py_VISIT(n->tensor_hooks);
    Py_VISIT(n->retains);
    Py_VISIT(n->metadata);
    Py_VISIT(n->variable);
    Py_VISIT(n->extra);
    Py_VISIT(n->inner);
    Py_VISIT(n->fnstate);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

void tn_node_release(tn_node *n) {
    for (int i = 0; i < n->nargs; i++)   /* saved tensors go; scalars and names stay readable */
        if (n->args[i].tag == TN_V_TENSOR || n->args[i].tag == TN_V_TENSORLIST) Py_CLEAR(n->args[i].u.obj);
    for (int k = 0; n->results && k < n->nout; k++) Py_CLEAR(n->results[k]);
    Py_CLEAR(n->extra);
    n->released = true;
}

static int node_clear(PyObject *self) {
    tn_node *n = (tn_node *)self;
    Py_CLEAR(n->dict);
    for (int i = 0; i < n->nnext; i++) Py_CLEAR(n->next[i].fn);
    for (int i = 0; i < n->nargs; i++)
        if (tn_value_holds_object(n->args[i].tag)) Py_CLEAR(n->args[i].u.obj);
    for (int k = 0; n->results && k < n->nout; k++) Py_CLEAR(n->results[k]);
    Py_CLEAR(n->pre_hooks);
    Py_CLEAR(n->post_hooks);
    Py_CLEAR(n->tensor_hooks);
    Py_CLEAR(n->retains);
    Py_CLEAR(n->metadata);
    Py_CLEAR(n->variable);
    Py_CLEAR(n->extra);
    Py_CLEAR(n->inner);
    Py_CLEAR(n->fnstate);
    return 0;
}

static void node_free_arrays(tn_node *n) {
    for (int i = 0; i < n->nargs; i++) {
        tn_value *v = &n->args[i];
        if (v->tag == TN_V_INTLIST || v->tag == TN_V_BOOLLIST) free(v->u.ints.v);
        if (v->tag == TN_V_FLOATLIST || v->tag == TN_V_SCALARLIST) free(v->u.floats.v);
        for (int k = 0; n->arg_nmeta && k < n->arg_nmeta[i]; k++) tn_meta_clear(&n->arg_meta[i][k]);
        if (n->arg_meta) free(n->arg_meta[i]);
    }
    for (int k = 0; n->out_meta && k < n->nout; k++) tn_meta_clear(&n->out_meta[k]);
    free(n->args); free(n->arg_nmeta); free(n->arg_meta); free(n->arg_edge); free(n->arg_ver);
    free(n->results); free(n->result_ver); free(n->out_meta); free(n->next);
    n->args = NULL; n->nargs = 0; n->next = NULL; n->nnext = 0; n->results = NULL; n->out_meta = NULL;
}

static void node_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    tn_node *n = (tn_node *)self;
    if (n->weakrefs) PyObject_ClearWeakRefs(self);
    node_clear(self);
    node_free_arrays(n);
    if (n->geo) tn_geometry_free(n->geo);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* ---- Python API ---- */

/* name(): the type's name; nodes upstream defines in C++ only carry their namespace */
static PyObject *n_name(PyObject *self, PyObject *u) {
    if (((tn_node *)self)->cpp_name) return PyUnicode_FromString(((tn_node *)self)->cpp_name);
    PyObject *name = PyObject_GetAttrString((PyObject *)Py_TYPE(self), "__qualname__");
    if (name && (!PyUnicode_CompareWithASCIIString(name, "AccumulateGrad") ||
                 !PyUnicode_CompareWithASCIIString(name, "NotImplemented") ||
                 !PyUnicode_CompareWithASCIIString(name, "CopySlices") ||
                 !PyUnicode_CompareWithASCIIString(name, "Error") ||
                 !PyUnicode_CompareWithASCIIString(name, "UndefinedGradBackward") ||
                 !PyUnicode_CompareWithASCIIString(name, "CopyBackwards")))
        Py_SETREF(name, PyUnicode_FromFormat("torch::autograd::%U", name));
    return name;
}

int tn_exposed_nr(PyObject *fn, int nr) {
    if (!fn || !tn_is_node(fn) || nr <= 0 || nr >= 64) return nr;
    uint64_t m = ((tn_node *)fn)->nodiff_out & ((1ull << nr) - 1);
    return nr - __builtin_popcountll(m);
}

static PyObject *n_next_functions(PyObject *self, void *c) {
    tn_node *n = (tn_node *)self;
    PyObject *t = PyTuple_New(n->nnext);
    for (int i = 0; t && i < n->nnext; i++) {
        PyObject *e = Py_BuildValue("(Oi)", n->next[i].fn ? n->next[i].fn : Py_None, tn_exposed_nr(n->next[i].fn, n->next[i].nr));
        if (!e) { Py_CLEAR(t); break; }
        PyTuple_SetItem(t, i, e);
    }
    return t;
}

static PyObject **lazy_list(PyObject **slot) {
    if (!*slot) *slot = PyList_New(0);
    return *slot ? slot : NULL;
}

/* A handle removing `hook` from `list` (torch.utils.hooks.RemovableHandle over a dict keyed by
 * id would need the dict; upstream returns its own handle type with .remove()). */
static PyObject *handle_type;
static PyObject *make_handle(PyObject *list, PyObject *hook) {
    return PyObject_CallFunction(handle_type, "OO", list, hook);
}

static PyObject *n_register_hook(PyObject *self, PyObject *fn) {
    tn_node *n = (tn_node *)self;
    if (!PyCallable_Check(fn)) { PyErr_SetString(PyExc_TypeError, "hook must be callable"); return NULL; }
    if (!lazy_list(&n->post_hooks) || PyList_Append(n->post_hooks, fn) < 0) return NULL;
    return make_handle(n->post_hooks, fn);
}
static PyObject *n_register_prehook(PyObject *self, PyObject *fn) {
    tn_node *n = (tn_node *)self;
    if (!PyCallable_Check(fn)) { PyErr_SetString(PyExc_TypeError, "hook must be callable"); return NULL; }
    if (!lazy_list(&n->pre_hooks) || PyList_Append(n->pre_hooks, fn) < 0) return NULL;
    return make_handle(n->pre_hooks, fn);
}
/* grad_fn._register_hook_dict(tensor): the tensor's _backward_hooks dict runs on the gradient of
 * its output slot before this node. */
static PyObject *n_register_hook_dict(PyObject *self, PyObject *t) {
    tn_node *n = (tn_node *)self;
    if (!tn_py_is_tensor(t)) { PyErr_SetString(PyExc_TypeError, "expected a Tensor"); return NULL; }
    PyObject *d = PyObject_GetAttrString(t, "_backward_hooks");
    if (!d) return NULL;
    PyObject *pair = Py_BuildValue("(Oi)", d, ((tn_tensor_obj *)t)->output_nr);
    Py_DECREF(d);
    int r = pair && lazy_list(&n->tensor_hooks) ? PyList_Append(n->tensor_hooks, pair) : -1;
    Py_XDECREF(pair);
    if (r < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *n_sequence_nr(PyObject *self, PyObject *u) { return PyLong_FromUnsignedLongLong(((tn_node *)self)->seq); }
static PyObject *n_set_sequence_nr(PyObject *self, PyObject *v) {
    unsigned long long s = PyLong_AsUnsignedLongLong(v);
    if (s == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    ((tn_node *)self)->seq = s;
    Py_RETURN_NONE;
}
static PyObject *n_metadata(PyObject *self, void *c) {
    tn_node *n = (tn_node *)self;
    if (!n->metadata && !(n->metadata = PyDict_New())) return NULL;
    return Py_NewRef(n->metadata);
}
static PyObject *n_variable(PyObject *self, void *c) {
    tn_node *n = (tn_node *)self;
    if (n->kind != TN_NODE_ACCUMULATE || !n->variable) {
        PyErr_SetString(PyExc_AttributeError, "'variable' is only defined on AccumulateGrad nodes");
        return NULL;
    }
    return Py_NewRef(n->variable);
}
static PyObject *n_requires_grad(PyObject *self, void *c) { Py_RETURN_TRUE; }

/* grad_fn(*grads): run the node's formula directly (outside the engine). */
static PyObject *n_call(PyObject *self, PyObject *args, PyObject *kw) {
    tn_node *n = (tn_node *)self;
    Py_ssize_t na = PyTuple_Size(args);
    if (na != n->nout) return PyErr_Format(PyExc_TypeError, "%s: expected %d gradients, got %zd",
                                           tn_py_type_name(self), n->nout, na);
    PyObject *grads[16] = {0}, *outs[64] = {0};
    if (n->nout > 16 || n->nnext > 64) return tn_not_implemented("calling a node with this many inputs");
    for (int i = 0; i < n->nout; i++) {
        PyObject *g = PyTuple_GetItem(args, i);
        grads[i] = g == Py_None ? NULL : g;
    }
    if (n->apply(n, grads, outs) < 0) return NULL;
    PyObject *t = PyTuple_New(n->nnext);
    for (int i = 0; i < n->nnext; i++) PyTuple_SetItem(t, i, outs[i] ? outs[i] : Py_NewRef(Py_None));
    if (t && n->nnext == 1) {
        PyObject *x = Py_NewRef(PyTuple_GetItem(t, 0));
        Py_DECREF(t);
        return x;
    }
    return t;
}

PyMethodDef tn_node_methods[] = {
    {"name", n_name, METH_NOARGS, NULL},
    {"register_hook", n_register_hook, METH_O, NULL},
    {"register_prehook", n_register_prehook, METH_O, NULL},
    {"_register_hook_dict", n_register_hook_dict, METH_O, NULL},
    {"_sequence_nr", n_sequence_nr, METH_NOARGS, NULL},
    {"_set_sequence_nr", n_set_sequence_nr, METH_O, NULL},
    {NULL},
};
PyGetSetDef tn_node_getset[] = {
    {"next_functions", n_next_functions, NULL, NULL, NULL},
    {"metadata", n_metadata, NULL, NULL, NULL},
    {"requires_grad", n_requires_grad, NULL, NULL, NULL},
    {NULL},
};
static PyGetSetDef acc_getset[] = {
    {"next_functions", n_next_functions, NULL, NULL, NULL},
    {"metadata", n_metadata, NULL, NULL, NULL},
    {"requires_grad", n_requires_grad, NULL, NULL, NULL},
    {"variable", n_variable, NULL, NULL, NULL},
    {NULL},
};

/* _saved_<arg> / _saved_result<k> / _saved_<arg>_sym_sizes: what upstream's nodes expose. */
static PyObject *saved_attr(tn_node *n, const char *name) {
    if (n->kind != TN_NODE_OP || n->op < 0 || strncmp(name, "_saved_", 7) != 0) return NULL;
    const char *what = name + 7;
    if (!strncmp(what, "result", 6)) {
        int k = what[6] ? atoi(what + 6) : 0;
        if (k < n->nout && n->results && (n->results[k] || n->released)) return tn_node_saved_result(n, k);
        return NULL;
    }
    const tn_schema *s = tn_op_schema(n->op);
    if (!s) { PyErr_Clear(); return NULL; }
    for (int i = 0; i < s->nargs && i < n->nargs; i++) {
        size_t len = strlen(s->args[i].name);
        if (strncmp(what, s->args[i].name, len) != 0) continue;
        const char *rest = what + len;
        tn_value *v = &n->args[i];
        if (!*rest) {
            if (i < 64 && (n->unsaved >> i & 1)) Py_RETURN_NONE;
            if (v->tag == TN_V_TENSOR || (v->tag == TN_V_NONE && n->released && n->arg_nmeta[i]))
                return tn_node_saved_arg(n, i);
            if (v->tag == TN_V_NONE && n->arg_nmeta[i]) continue;   /* not saved whole */
            return tn_value_to_python(v);
        }
        if (!strcmp(rest, "_sym_sizes") && n->arg_nmeta[i] == 1)
            return tn_py_size_new(n->arg_meta[i][0].ndim, tn_meta_sizes(&n->arg_meta[i][0]));
        if (!strcmp(rest, "_scalar_type") && n->arg_nmeta[i] == 1) return tn_py_from_dtype(n->arg_meta[i][0].dtype);
    }
    return NULL;
}

static PyObject *node_getattro(PyObject *self, PyObject *name) {
    PyObject *r = PyObject_GenericGetAttr(self, name);
    if (r || !PyErr_ExceptionMatches(PyExc_AttributeError)) return r;
    const char *s = PyUnicode_AsUTF8AndSize(name, NULL);
    if (!s) return NULL;
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    PyObject *v = saved_attr((tn_node *)self, s);
    if (v || PyErr_Occurred()) { Py_XDECREF(et); Py_XDECREF(ev); Py_XDECREF(tb); return v; }
    PyErr_Restore(et, ev, tb);
    return NULL;
}

static PyObject *node_repr(PyObject *self) {
    return PyUnicode_FromFormat("<%s object at %p>", tn_py_type_name(self), self);
}

static PyMemberDef node_members[] = {
    {"__dictoffset__", T_PYSSIZET, offsetof(tn_node, dict), READONLY, NULL},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(tn_node, weakrefs), READONLY, NULL},
    {NULL},
};

PyTypeObject *tn_node_type(const char *name) {
    if (!node_types && !(node_types = PyDict_New())) return NULL;
    PyObject *t = PyDict_GetItemString(node_types, name);
    if (t) return (PyTypeObject *)t;
    bool acc = !strcmp(name, "AccumulateGrad");
    PyType_Slot slots[] = {
        {Py_tp_dealloc, node_dealloc}, {Py_tp_traverse, node_traverse}, {Py_tp_clear, node_clear},
        {Py_tp_methods, tn_node_methods}, {Py_tp_getset, acc ? acc_getset : tn_node_getset},
        {Py_tp_members, node_members}, {Py_tp_getattro, node_getattro}, {Py_tp_call, n_call},
        {Py_tp_repr, node_repr}, {0, NULL}};
    size_t len = strlen(name) + 10;
    char *full = malloc(len);   /* tp_name lives as long as the type (the process) */
    if (!full) return (PyTypeObject *)PyErr_NoMemory();
    snprintf(full, len, "builtins.%s", name);
    PyType_Spec spec = {full, sizeof(tn_node), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC, slots};
    t = PyType_FromSpec(&spec);
    if (!t) return NULL;
    if (PyDict_SetItemString(node_types, name, t) < 0) { Py_DECREF(t); return NULL; }
    Py_DECREF(t);
    return (PyTypeObject *)t;
}

bool tn_is_node(PyObject *o) {
    if (!o || !node_types) return false;
    PyObject *nm = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__qualname__");
    if (!nm) { PyErr_Clear(); return false; }
    PyObject *t = PyDict_GetItemWithError(node_types, nm);
    Py_DECREF(nm);
    if (t == (PyObject *)Py_TYPE(o)) return true;
    PyErr_Clear();
    return tn_function_base_type && PyObject_TypeCheck(o, tn_function_base_type);
}

tn_node *tn_node_new(const char *name, int kind, int nnext, int nout) {
    return tn_node_new_seq(name, kind, nnext, nout, TN_SEQ_TAKE);
}
tn_node *tn_node_new_seq(const char *name, int kind, int nnext, int nout, uint64_t seq) {
    PyTypeObject *tp = tn_node_type(name);
    if (!tp) return NULL;
    allocfunc a = (allocfunc)PyType_GetSlot(tp, Py_tp_alloc);
    tn_node *n = (tn_node *)a(tp, 0);
    if (!n) return NULL;
    n->kind = kind;
    n->op = -1;
    n->seq = kind == TN_NODE_ACCUMULATE ? UINT64_MAX : seq == TN_SEQ_TAKE ? tn_next_sequence_nr() : seq;
    n->nnext = nnext;
    n->nout = nout;
    n->next = calloc(nnext ? nnext : 1, sizeof *n->next);
    n->out_meta = calloc(nout ? nout : 1, sizeof *n->out_meta);
    if (!n->next || !n->out_meta) { Py_DECREF(n); return (tn_node *)PyErr_NoMemory(); }
    if (tn_anomaly_enabled() && kind != TN_NODE_ACCUMULATE) {   /* where the forward ran */
        PyObject *tb = PyImport_ImportModule("traceback");
        PyObject *st = tb ? PyObject_CallMethod(tb, "format_stack", NULL) : NULL;
        Py_XDECREF(tb);
        if (!st || !(n->metadata = PyDict_New()) || PyDict_SetItemString(n->metadata, "traceback_", st) < 0) {
            Py_XDECREF(st);
            Py_DECREF(n);
            return NULL;
        }
        Py_DECREF(st);
    }
    return n;
}

/* ---- saved values ---- */

int tn_node_short_name_len(const char *name) {
    int len = (int)strlen(name), end = len;
    while (end > 0 && name[end - 1] >= '0' && name[end - 1] <= '9') end--;
    if (end >= 8 && !strncmp(name + end - 8, "Backward", 8)) return end - 8;
    return len;
}

static PyObject *modified_error(tn_node *n, PyObject *t, int64_t was, int output_nr) {
    const tn_tensor *g = tn_tensor_of(t);
    char shape[256] = "";
    size_t at = 0;
    for (int d = 0; d < g->ndim && at < sizeof shape - 24; d++)
        at += (size_t)snprintf(shape + at, sizeof shape - at, "%s%lld", d ? ", " : "", (long long)g->sizes[d]);
    char which[200] = "";   /* a leaf has no node to name */
    if (n) {
        const char *nm = tn_py_type_name((PyObject *)n);
        snprintf(which, sizeof which, ", which is output %d of %.*s,", output_nr, tn_node_short_name_len(nm), nm);
    }
    PyErr_Format(PyExc_RuntimeError,
                 "one of the variables needed for gradient computation has been modified by an inplace "
                 "operation: [torch.%sTensor [%s]]%s is at version %lld; expected "
                 "version %lld instead. Hint: enable anomaly detection to find the operation that failed to "
                 "compute its gradient, with torch.autograd.set_detect_anomaly(True, check_nan=False).",
                 tn_dtype_cpp_name(g->dtype), shape, which, (long long)g->storage->version, (long long)was);
    return NULL;
}

PyObject *tn_freed_error(void) {
    PyErr_SetString(PyExc_RuntimeError,
                    "Trying to backward through the graph a second time (or directly access saved tensors after "
                    "they have already been freed). Saved intermediate values of the graph are freed when you call "
                    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
                    "graph a second time or if you need to access saved tensors after calling backward.");
    return NULL;
}

PyObject *tn_node_saved_arg(tn_node *n, int i) {
    if (n->released) return tn_freed_error();
    PyObject *t = n->args[i].u.obj;
    if (n->args[i].tag != TN_V_TENSOR || !t) return tn_not_implemented("autograd: a formula read an argument that was not saved");
    if (tn_saved_is_packed(t)) return tn_saved_unpack(n, t);
    if (tn_tensor_of(t)->storage->version != n->arg_ver[i]) {
        PyObject *src = ((tn_tensor_obj *)t)->grad_fn;
        return modified_error((tn_node *)src, t, n->arg_ver[i], tn_exposed_nr(src, ((tn_tensor_obj *)t)->output_nr));
    }
    return Py_NewRef(t);
}

PyObject *tn_node_saved_result(tn_node *n, int k) {
    if (n->released) return tn_freed_error();
    PyObject *r = n->results ? n->results[k] : NULL;
    if (!r) return tn_not_implemented("autograd: a formula read an output that was not saved");
    if (tn_saved_is_packed(r)) return tn_saved_unpack(n, r);
    if (tn_tensor_of(r)->storage->version != n->result_ver[k]) return modified_error(n, r, n->result_ver[k], k);
    if (!(n->result_diff >> k & 1)) return Py_NewRef(r);   /* a non-differentiable output, kept as is */
    /* the unpacked output has this node as its grad_fn again (double backward goes through it);
     * upstream's unpack dispatches a detach */
    bool was = tn_grad_mode_set(false);
    int hid = tn_prof_set_hidden(1);   /* not a profiler event upstream */
    PyObject *a = tn_at_detach(r);
    tn_prof_set_hidden(hid);
    tn_grad_mode_set(was);
    if (!a) return NULL;
    /* the tangents saved with it (torch.func's jvp over grad) */
    if (tn_fw_copy_levels(a, r) < 0) { Py_DECREF(a); return NULL; }
    tn_tensor_obj *o = (tn_tensor_obj *)a;
    o->grad_fn = Py_NewRef((PyObject *)n);
    o->output_nr = k;
    return a;
}

/* ---- edges ---- */

int tn_gradient_edge(PyObject *t, tn_edge *e) {
    tn_tensor_obj *o = (tn_tensor_obj *)t;
    e->fn = NULL;
    e->nr = 0;
    if (tn_ng_view_check(t) < 0) return -1;   /* a no_grad view: no edge unless requires_grad_() (views.c) */
    tn_view_refresh(t);
    if (o->grad_fn) {
        e->fn = Py_NewRef(o->grad_fn);
        e->nr = o->output_nr;
        return 0;
    }
    if (!o->requires_grad) return 0;
    /* the leaf's AccumulateGrad, shared while alive (held weakly by the tensor, as upstream) */
    if (o->grad_acc) {
        PyObject *acc = PyWeakref_GetObject(o->grad_acc);
        if (!acc) return -1;
        if (acc != Py_None) { e->fn = Py_NewRef(acc); return 0; }
    }
    tn_node *acc = tn_node_new("AccumulateGrad", TN_NODE_ACCUMULATE, 0, 1);
    if (!acc) return -1;
    acc->variable = Py_NewRef(t);
    tn_meta_set(&acc->out_meta[0], &o->t);
    extern int tn_accumulate_apply(tn_node *, PyObject **, PyObject **);
    acc->apply = tn_accumulate_apply;
    PyObject *ref = PyWeakref_NewRef((PyObject *)acc, NULL);
    if (!ref) { Py_DECREF(acc); return -1; }
    Py_XSETREF(o->grad_acc, ref);
    e->fn = (PyObject *)acc;
    return 0;
}

/* ---- Tensor.retain_grad / retains_grad ---- */

int tn_retain_grad(PyObject *self) {
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    if (!tn_requires_grad(self)) {
        PyErr_SetString(PyExc_RuntimeError, "can't retain_grad on Tensor that has requires_grad=False");
        return -1;
    }
    if (!o->grad_fn || o->retains_grad) return 0;
    tn_node *n = (tn_node *)o->grad_fn;
    PyObject *ref = PyWeakref_NewRef(self, NULL);
    PyObject *pair = ref ? Py_BuildValue("(Ni)", ref, o->output_nr) : NULL;
    int r = pair && lazy_list(&n->retains) ? PyList_Append(n->retains, pair) : -1;
    Py_XDECREF(pair);
    if (r < 0) return -1;
    o->retains_grad = true;
    return 0;
}
static PyObject *t_retain_grad(PyObject *self, PyObject *u) {
    if (tn_retain_grad(self) < 0) return NULL;
    Py_RETURN_NONE;
}
static PyObject *t_retains_grad(PyObject *self, void *c) {
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    return PyBool_FromLong(o->grad_fn && o->retains_grad);
}
static PyObject *t_output_nr(PyObject *self, void *c) {
    tn_tensor_obj *o = (tn_tensor_obj *)self;
    return PyLong_FromLong(tn_exposed_nr(o->grad_fn, o->output_nr));
}
static PyGetSetDef output_nr_def = {"output_nr", t_output_nr, NULL, NULL, NULL};
static PyMethodDef retain_def = {"retain_grad", t_retain_grad, METH_NOARGS, NULL};
static PyGetSetDef retains_def = {"retains_grad", t_retains_grad, NULL, NULL, NULL};

/* torch._C._increment_version(tensor or tensors): what an in-place op does to the counter */
static PyObject *increment_version(PyObject *m, PyObject *arg) {
    if (tn_py_is_tensor(arg)) { tn_tensor_of(arg)->storage->version++; Py_RETURN_NONE; }
    PyObject *it = PyObject_GetIter(arg);
    if (!it) return NULL;
    PyObject *t;
    while ((t = PyIter_Next(it))) {
        if (!tn_py_is_tensor(t)) {
            Py_DECREF(t); Py_DECREF(it);
            PyErr_SetString(PyExc_TypeError, "_increment_version expects a Tensor or an iterable of Tensors");
            return NULL;
        }
        tn_tensor_of(t)->storage->version++;
        Py_DECREF(t);
    }
    Py_DECREF(it);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}
static PyMethodDef node_module_methods[] = {{"_increment_version", increment_version, METH_O, NULL}, {NULL}};

/* ---- init ---- */

static const char handle_src[] =
    "class RemovableHandle:\n"
    "    __slots__ = ('_list', '_hook')\n"
    "    def __init__(self, lst, hook):\n"
    "        self._list = lst; self._hook = hook\n"
    "    def remove(self):\n"
    "        for i, h in enumerate(self._list):\n"
    "            if h is self._hook:\n"
    "                del self._list[i]; break\n"
    "    def __enter__(self): return self\n"
    "    def __exit__(self, *a): self.remove()\n";

int tn_autograd_init(PyObject *m) {
    /* declarative glue only: the handle a node's register_hook returns */
    PyObject *g = PyDict_New();
    if (!g || PyDict_SetItemString(g, "__builtins__", PyEval_GetBuiltins()) < 0) { Py_XDECREF(g); return -1; }
    PyObject *code = Py_CompileString(handle_src, "<torchnative autograd>", Py_file_input);
    PyObject *r = code ? PyEval_EvalCode(code, g, g) : NULL;
    Py_XDECREF(code);
    if (!r) { Py_DECREF(g); return -1; }
    Py_DECREF(r);
    handle_type = PyDict_GetItemString(g, "RemovableHandle");
    Py_XINCREF(handle_type);
    Py_DECREF(g);
    if (!handle_type) return -1;
    if (!tn_node_type("AccumulateGrad") || PyModule_AddFunctions(m, node_module_methods) < 0) return -1;
    PyObject *d1 = PyDescr_NewMethod(tn_py.TensorBase, &retain_def);
    PyObject *d2 = d1 ? PyDescr_NewGetSet(tn_py.TensorBase, &retains_def) : NULL;
    int rr = d2 ? PyObject_SetAttrString((PyObject *)tn_py.TensorBase, "retain_grad", d1) : -1;
    if (rr == 0) rr = PyObject_SetAttrString((PyObject *)tn_py.TensorBase, "retains_grad", d2);
    Py_XDECREF(d1); Py_XDECREF(d2);
    PyObject *d3 = rr == 0 ? PyDescr_NewGetSet(tn_py.TensorBase, &output_nr_def) : NULL;
    rr = d3 ? PyObject_SetAttrString((PyObject *)tn_py.TensorBase, "output_nr", d3) : -1;
    Py_XDECREF(d3);
    if (rr < 0) return -1;
    if (tn_function_init(m) < 0) return -1;
    return tn_engine_init(m);
}
