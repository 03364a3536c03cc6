/* fx.c — torch._C's half of torch.fx: the _NodeBase type that torch.fx.Node subclasses, the
 * _NodeIter that walks a graph's node list, and _fx_map_aggregate / _fx_map_arg. Behaviour as
 * upstream torch 2.13's (measured: tests/cases/test_fx.py):
 *  - a node is in a circular doubly linked list (_prev / _next, itself alone); _prepend(x) moves x
 *    before self and gives x a sort key between its neighbours' (keys are int sequences compared
 *    lexicographically by <, >, <=, >=; the longer neighbour's prefix one past / before, or the
 *    previous key with a 0 appended when both are as long);
 *  - _update_args_kwargs(args, kwargs) drops self from its old inputs' `users`, then maps args and
 *    kwargs (lists -> immutable_list, dicts -> immutable_dict, tuples and named tuples rebuilt,
 *    slices mapped per field) recording every Node met in `_input_nodes` and itself in that
 *    node's `users`, in order of appearance;
 *  - _NodeIter(root, reversed) yields the nodes after (before) root that are not _erased. */
#include "python/common.h"

#include <structmember.h>
#include <stdlib.h>
#include <string.h>

typedef struct node_obj {
    PyObject_HEAD
    char erased; /* T_BOOL */
    struct node_obj *prev, *next;
    PyObject *graph, *name, *op, *target, *type, *input_nodes, *args, *kwargs, *users, *repr_fn, *meta;
    int64_t *key; /* the sort key: nkey ints */
    Py_ssize_t nkey;
} node_obj;

static PyObject *node_type, *immutable_list, *immutable_dict, *fx_node_cls;

/* torch.fx's own classes, imported on first use (torch.fx imports torch._C first) */
static PyObject *fx_attr(PyObject **slot, const char *module, const char *name) {
    if (!*slot) {
        PyObject *m = PyImport_ImportModule(module);
        if (!m) return NULL;
        *slot = PyObject_GetAttrString(m, name);
        Py_DECREF(m);
    }
    return *slot;
}

/* 1 if x is a torch.fx.Node, 0 if not, -1 on error */
static int is_node(PyObject *x) {
    PyObject *cls = fx_attr(&fx_node_cls, "torch.fx.node", "Node");
    return cls ? PyObject_IsInstance(x, cls) : -1;
}

/* ---- map_aggregate: fn(ctx, leaf) for every leaf of nested tuples / lists / dicts / slices ---- */
typedef PyObject *(*leaf_fn)(void *ctx, PyObject *leaf); /* new reference or NULL */

static PyObject *map_agg(PyObject *a, leaf_fn fn, void *ctx) {
    if (PyTuple_Check(a)) {
        Py_ssize_t n = PyTuple_Size(a);
        if (n == 0 && PyTuple_CheckExact(a)) return Py_NewRef(a);
        PyObject *t = PyTuple_New(n);
        if (!t) return NULL;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *v = map_agg(PyTuple_GetItem(a, i), fn, ctx);
            if (!v) { Py_DECREF(t); return NULL; }
            PyTuple_SetItem(t, i, v);
        }
        if (!PyTuple_CheckExact(a) && PyObject_HasAttrString(a, "_fields")) { /* a named tuple */
            PyObject *r = PyObject_CallObject((PyObject *)Py_TYPE(a), t);
            Py_DECREF(t);
            return r;
        }
        return t;
    }
    if (PyList_Check(a)) {
        PyObject *cls = fx_attr(&immutable_list, "torch.fx.immutable_collections", "immutable_list");
        if (!cls) return NULL;
        Py_ssize_t n = PyList_Size(a);
        if (n == 0 && Py_TYPE(a) == (PyTypeObject *)cls) return Py_NewRef(a);
        PyObject *r = PyObject_CallNoArgs(cls);
        for (Py_ssize_t i = 0; r && i < n; i++) {
            PyObject *v = map_agg(PyList_GetItem(a, i), fn, ctx);
            if (!v || PyList_Append(r, v) < 0) Py_CLEAR(r);
            Py_XDECREF(v);
        }
        return r;
    }
    if (PyDict_Check(a)) {
        PyObject *cls = fx_attr(&immutable_dict, "torch.fx.immutable_collections", "immutable_dict");
        if (!cls) return NULL;
        if (PyDict_Size(a) == 0 && Py_TYPE(a) == (PyTypeObject *)cls) return Py_NewRef(a);
        PyObject *r = PyObject_CallNoArgs(cls), *k, *v;
        Py_ssize_t pos = 0;
        while (r && PyDict_Next(a, &pos, &k, &v)) {
            PyObject *m = map_agg(v, fn, ctx);
            if (!m || PyDict_SetItem(r, k, m) < 0) Py_CLEAR(r);
            Py_XDECREF(m);
        }
        return r;
    }
    if (PySlice_Check(a)) {
        static const char *const f[3] = {"start", "stop", "step"};
        PyObject *m[3] = {NULL, NULL, NULL}, *r = NULL;
        int i = 0;
        for (; i < 3; i++) {
            PyObject *v = PyObject_GetAttrString(a, f[i]);
            m[i] = v ? map_agg(v, fn, ctx) : NULL;
            Py_XDECREF(v);
            if (!m[i]) break;
        }
        if (i == 3) r = PySlice_New(m[0], m[1], m[2]);
        for (int j = 0; j < 3; j++) Py_XDECREF(m[j]);
        return r;
    }
    return fn(ctx, a);
}

static PyObject *call_fn(void *fn, PyObject *x) { return PyObject_CallFunctionObjArgs((PyObject *)fn, x, NULL); }

static PyObject *call_on_nodes(void *fn, PyObject *x) {
    int k = is_node(x);
    if (k < 0) return NULL;
    return k ? PyObject_CallFunctionObjArgs((PyObject *)fn, x, NULL) : Py_NewRef(x);
}

static PyObject *fx_map_aggregate(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "map_aggregate() takes exactly two arguments");
    return map_agg(args[0], call_fn, args[1]);
}

static PyObject *fx_map_arg(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "map_arg() takes exactly two arguments");
    return map_agg(args[0], call_on_nodes, args[1]);
}

/* ---- _NodeBase ---- */

#define NODE(o) ((node_obj *)(o))

/* o as a _NodeBase, or NULL with a TypeError (the links and keys are typed fields, but Python can
 * assign anything to them) */
static node_obj *as_node(PyObject *o, const char *what) {
    if (o && PyObject_TypeCheck(o, (PyTypeObject *)node_type)) return NODE(o);
    PyErr_Format(PyExc_TypeError, "torch.fx node: %s is not a Node", what);
    return NULL;
}

static int node_init(PyObject *self, PyObject *args, PyObject *kw) {
    node_obj *n = NODE(self);
    PyObject *g, *nm, *op, *tg, *ty;
    if (!PyArg_ParseTuple(args, "OOOOO", &g, &nm, &op, &tg, &ty)) return -1;
    n->erased = 0;
    Py_XSETREF(n->prev, (node_obj *)Py_NewRef(self));
    Py_XSETREF(n->next, (node_obj *)Py_NewRef(self));
    Py_XSETREF(n->graph, Py_NewRef(g));
    Py_XSETREF(n->name, Py_NewRef(nm));
    Py_XSETREF(n->op, Py_NewRef(op));
    Py_XSETREF(n->target, Py_NewRef(tg));
    Py_XSETREF(n->type, Py_NewRef(ty));
    Py_XSETREF(n->input_nodes, PyDict_New());
    Py_CLEAR(n->args);   /* set by _update_args_kwargs */
    Py_CLEAR(n->kwargs);
    Py_XSETREF(n->users, PyDict_New());
    Py_XSETREF(n->repr_fn, Py_NewRef(Py_None));
    Py_XSETREF(n->meta, PyDict_New());
    return n->input_nodes && n->users && n->meta ? 0 : -1;
}

static int node_traverse(PyObject *self, visitproc visit, void *arg) {
    node_obj *n = NODE(self);
    Py_VISIT(n->prev);
    Py_VISIT(n->next);
    Py_VISIT(n->graph); Py_VISIT(n->name); Py_VISIT(n->op); Py_VISIT(n->target); Py_VISIT(n->type);
    Py_VISIT(n->input_nodes); Py_VISIT(n->args); Py_VISIT(n->kwargs); Py_VISIT(n->users);
    Py_VISIT(n->repr_fn); Py_VISIT(n->meta);
    Py_VISIT(Py_TYPE(self));
    return 0;
}

static int node_clear(PyObject *self) {
    node_obj *n = NODE(self);
    Py_CLEAR(n->prev);
    Py_CLEAR(n->next);
    Py_CLEAR(n->graph); Py_CLEAR(n->name); Py_CLEAR(n->op); Py_CLEAR(n->target); Py_CLEAR(n->type);
    Py_CLEAR(n->input_nodes); Py_CLEAR(n->args); Py_CLEAR(n->kwargs); Py_CLEAR(n->users);
    Py_CLEAR(n->repr_fn); Py_CLEAR(n->meta);
    return 0;
}

static void node_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    node_clear(self);
    free(NODE(self)->key);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}

/* link setters keeping references: the list holds a reference to each neighbour */
static void set_prev(node_obj *n, node_obj *v) { Py_XSETREF(n->prev, (node_obj *)Py_NewRef((PyObject *)v)); }
static void set_next(node_obj *n, node_obj *v) { Py_XSETREF(n->next, (node_obj *)Py_NewRef((PyObject *)v)); }

static int unlink_node(node_obj *n) {
    node_obj *p = as_node((PyObject *)n->prev, "_prev"), *x = as_node((PyObject *)n->next, "_next");
    if (!p || !x) return -1;
    if (p == n && x == n) return 0;
    Py_INCREF((PyObject *)p); Py_INCREF((PyObject *)x);
    set_next(p, x);
    set_prev(x, p);
    Py_DECREF((PyObject *)p); Py_DECREF((PyObject *)x);
    return 0;
}

typedef struct { PyObject *self, *inputs; } visit_ctx;

/* d.setdefault(k) (insertion order kept: an existing key stays where it is) */
static int setdefault_none(PyObject *d, PyObject *k) {
    int has = PyDict_Contains(d, k);
    return has < 0 ? -1 : has ? 0 : PyDict_SetItem(d, k, Py_None);
}

/* a Node met in the new args: recorded in self._input_nodes, self in its users */
static PyObject *record_input(void *vctx, PyObject *x) {
    visit_ctx *c = vctx;
    int k = is_node(x);
    if (k < 0) return NULL;
    if (k) {
        if (!NODE(x)->users) return PyErr_Format(PyExc_AttributeError, "users");
        if (setdefault_none(c->inputs, x) < 0 || setdefault_none(NODE(x)->users, c->self) < 0) return NULL;
    }
    return Py_NewRef(x);
}

static PyObject *update_args_kwargs(PyObject *self, PyObject *args, PyObject *kwargs) {
    node_obj *n = NODE(self);
    if (!n->input_nodes || !PyDict_Check(n->input_nodes)) return PyErr_Format(PyExc_AttributeError, "_input_nodes");
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(n->input_nodes, &pos, &k, &v)) /* k.users.pop(self), a missing key ignored */
        if (PyObject_TypeCheck(k, (PyTypeObject *)node_type) && NODE(k)->users && PyDict_Check(NODE(k)->users) &&
            PyDict_DelItem(NODE(k)->users, self) < 0)
            PyErr_Clear();
    PyDict_Clear(n->input_nodes);
    visit_ctx c = {self, n->input_nodes};
    PyObject *na = map_agg(args, record_input, &c);
    if (!na) return NULL;
    Py_XSETREF(n->args, na);
    PyObject *nk = map_agg(kwargs, record_input, &c);
    if (!nk) return NULL;
    Py_XSETREF(n->kwargs, nk);
    Py_RETURN_NONE;
}

static PyObject *node_update_args_kwargs(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2)
        return PyErr_Format(PyExc_TypeError, "_update_args_kwargs() requires exactly 2 arguments (new_args, new_kwargs)");
    return update_args_kwargs(self, args[0], args[1]);
}

static PyObject *node_remove_from_list(PyObject *self, PyObject *unused) {
    if (unlink_node(NODE(self)) < 0) return NULL;
    Py_RETURN_NONE;
}

typedef struct { PyObject *old, *new_; } replace_ctx;
static PyObject *replace_leaf(void *vctx, PyObject *x) {
    replace_ctx *c = vctx;
    return Py_NewRef(x == c->old ? c->new_ : x);
}

static PyObject *node_replace_input_with(PyObject *self, PyObject *const *args, Py_ssize_t nargs) {
    if (nargs != 2)
        return PyErr_Format(PyExc_TypeError, "_replace_input_with() requires exactly 2 arguments (old_input, new_input)");
    node_obj *n = NODE(self);
    if (!n->args || !n->kwargs) return PyErr_Format(PyExc_AttributeError, "_args");
    replace_ctx c = {args[0], args[1]};
    PyObject *na = map_agg(n->args, replace_leaf, &c), *nk = na ? map_agg(n->kwargs, replace_leaf, &c) : NULL;
    PyObject *r = nk ? update_args_kwargs(self, na, nk) : NULL;
    Py_XDECREF(na);
    Py_XDECREF(nk);
    return r;
}

/* x's sort key from its new neighbours' */
static int set_key_between(node_obj *x) {
    const node_obj *p = x->prev, *nx = x->next;
    Py_ssize_t len = p->nkey > nx->nkey ? nx->nkey + 1 : p->nkey + 1;
    int64_t *k = malloc((size_t)len * sizeof *k);
    if (!k) return PyErr_NoMemory(), -1;
    if (p->nkey > nx->nkey) {        /* the previous key's prefix, its last element one more */
        memcpy(k, p->key, (size_t)len * sizeof *k);
        k[len - 1]++;
    } else if (p->nkey < nx->nkey) { /* the next key's prefix, its last element one less */
        memcpy(k, nx->key, (size_t)len * sizeof *k);
        k[len - 1]--;
    } else {                         /* as long: the previous key and a 0 */
        if (p->nkey) memcpy(k, p->key, (size_t)p->nkey * sizeof *k);
        k[len - 1] = 0;
    }
    free(x->key);
    x->key = k;
    x->nkey = len;
    return 0;
}

static PyObject *node_prepend(PyObject *self, PyObject *arg) {
    if (self == arg) Py_RETURN_NONE;
    int k = is_node(arg);
    if (k <= 0) return k < 0 ? NULL : PyErr_Format(PyExc_TypeError, "_prepend() argument must be a Node");
    node_obj *s = NODE(self), *x = NODE(arg);
    if (s->graph != x->graph) return PyErr_Format(PyExc_AssertionError, "Attempting to move a Node into a different Graph");
    if (unlink_node(x) < 0 || !as_node((PyObject *)s->prev, "_prev")) return NULL;
    node_obj *p = (node_obj *)Py_NewRef((PyObject *)s->prev);
    set_next(p, x);
    set_prev(x, p);
    set_next(x, s);
    set_prev(s, x);
    Py_DECREF((PyObject *)p);
    if (set_key_between(x) < 0) return NULL;
    Py_RETURN_NONE;
}

/* lexicographic order of the sort keys: -1, 0, 1 */
static int key_cmp(const node_obj *a, const node_obj *b) {
    for (Py_ssize_t i = 0; i < a->nkey && i < b->nkey; i++)
        if (a->key[i] != b->key[i]) return a->key[i] < b->key[i] ? -1 : 1;
    return a->nkey < b->nkey ? -1 : a->nkey > b->nkey ? 1 : 0;
}

/* __lt__ / __gt__ / __le__ / __ge__ as methods, as upstream's (a type with tp_richcompare and no
 * tp_hash would be unhashable; Node subclasses pick these up); == stays identity */
static PyObject *node_order(PyObject *self, PyObject *other, int opid) {
    int k = is_node(other);
    if (k <= 0) {
        if (k < 0) return NULL;
        Py_RETURN_NOTIMPLEMENTED;
    }
    if (self == other && (opid == Py_LE || opid == Py_GE)) Py_RETURN_TRUE;
    int c = key_cmp(NODE(self), NODE(other));
    return PyBool_FromLong(opid == Py_LT || opid == Py_LE ? c < 0 : c > 0);
}
static PyObject *node_lt(PyObject *self, PyObject *o) { return node_order(self, o, Py_LT); }
static PyObject *node_gt(PyObject *self, PyObject *o) { return node_order(self, o, Py_GT); }
static PyObject *node_le(PyObject *self, PyObject *o) { return node_order(self, o, Py_LE); }
static PyObject *node_ge(PyObject *self, PyObject *o) { return node_order(self, o, Py_GE); }

static PyObject *node_get_sort_key(PyObject *self, void *closure) {
    node_obj *n = NODE(self);
    PyObject *t = PyTuple_New(n->nkey);
    for (Py_ssize_t i = 0; t && i < n->nkey; i++) {
        PyObject *v = PyLong_FromLongLong(n->key[i]);
        if (!v) { Py_CLEAR(t); break; }
        PyTuple_SetItem(t, i, v);
    }
    return t;
}

static int node_set_sort_key(PyObject *self, PyObject *value, void *closure) {
    if (!value || !PyTuple_Check(value)) {
        PyErr_SetString(PyExc_TypeError, "_sort_key must be an tuple of ints");
        return -1;
    }
    Py_ssize_t n = PyTuple_Size(value);
    int64_t *k = malloc((size_t)(n ? n : 1) * sizeof *k);
    if (!k) return PyErr_NoMemory(), -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        k[i] = PyLong_AsSsize_t(PyTuple_GetItem(value, i));
        if (k[i] == -1 && PyErr_Occurred()) { free(k); return -1; }
    }
    free(NODE(self)->key);
    NODE(self)->key = k;
    NODE(self)->nkey = n;
    return 0;
}

static PyMemberDef node_members[] = {
    {"_erased", T_BOOL, offsetof(node_obj, erased), 0, NULL},
    {"_prev", T_OBJECT_EX, offsetof(node_obj, prev), 0, NULL},
    {"_next", T_OBJECT_EX, offsetof(node_obj, next), 0, NULL},
    {"graph", T_OBJECT_EX, offsetof(node_obj, graph), 0, NULL},
    {"name", T_OBJECT_EX, offsetof(node_obj, name), 0, NULL},
    {"op", T_OBJECT_EX, offsetof(node_obj, op), 0, NULL},
    {"target", T_OBJECT_EX, offsetof(node_obj, target), 0, NULL},
    {"type", T_OBJECT_EX, offsetof(node_obj, type), 0, NULL},
    {"_input_nodes", T_OBJECT_EX, offsetof(node_obj, input_nodes), 0, NULL},
    {"_args", T_OBJECT_EX, offsetof(node_obj, args), 0, NULL},
    {"_kwargs", T_OBJECT_EX, offsetof(node_obj, kwargs), 0, NULL},
    {"users", T_OBJECT_EX, offsetof(node_obj, users), 0, NULL},
    {"_repr_fn", T_OBJECT_EX, offsetof(node_obj, repr_fn), 0, NULL},
    {"meta", T_OBJECT_EX, offsetof(node_obj, meta), 0, NULL},
    {NULL}};

static PyGetSetDef node_getset[] = {
    {"_sort_key", node_get_sort_key, node_set_sort_key, "The sort key as a tuple of ints", NULL}, {NULL}};

static PyMethodDef node_methods[] = {
    {"_update_args_kwargs", (PyCFunction)(void (*)(void))node_update_args_kwargs, METH_FASTCALL, "Internal method: do not call directly."},
    {"_remove_from_list", node_remove_from_list, METH_NOARGS, "Internal method: do not call directly."},
    {"_replace_input_with", (PyCFunction)(void (*)(void))node_replace_input_with, METH_FASTCALL,
     "Internal method: replace occurrences of one input Node with another."},
    {"_prepend", node_prepend, METH_O, "Internal method: do not call directly."},
    {"__lt__", node_lt, METH_O, "Return True if self.sort_key < other.sort_key"},
    {"__gt__", node_gt, METH_O, "Return True if self.sort_key > other.sort_key"},
    {"__le__", node_le, METH_O, "Return True if self.sort_key <= other.sort_key"},
    {"__ge__", node_ge, METH_O, "Return True if self.sort_key >= other.sort_key"},
    {NULL}};

static PyType_Slot node_slots[] = {
    {Py_tp_new, PyType_GenericNew}, {Py_tp_init, node_init}, {Py_tp_dealloc, node_dealloc},
    {Py_tp_traverse, node_traverse}, {Py_tp_clear, node_clear}, {Py_tp_members, node_members},
    {Py_tp_getset, node_getset}, {Py_tp_methods, node_methods}, {0, NULL}};
static PyType_Spec node_spec = {"torch._C._NodeBase", sizeof(node_obj), 0,
                                Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, node_slots};

/* ---- _NodeIter ---- */

typedef struct {
    PyObject_HEAD
    char reversed;
    node_obj *root, *cur;
} iter_obj;

static int iter_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"root", "reversed", NULL};
    PyObject *root;
    int rev = 0;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "Op", kws, &root, &rev)) return -1;
    if (!PyObject_TypeCheck(root, (PyTypeObject *)node_type)) {
        PyErr_SetString(PyExc_TypeError, "_NodeIter(): root must be a Node");
        return -1;
    }
    iter_obj *it = (iter_obj *)self;
    it->reversed = (char)rev;
    Py_XSETREF(it->root, (node_obj *)Py_NewRef(root));
    Py_XSETREF(it->cur, (node_obj *)Py_NewRef(root));
    return 0;
}

static PyObject *iter_next(PyObject *self) {
    iter_obj *it = (iter_obj *)self;
    if (!it->cur) return NULL;
    for (;;) {
        node_obj *nx = as_node((PyObject *)(it->reversed ? it->cur->prev : it->cur->next), it->reversed ? "_prev" : "_next");
        if (!nx) return NULL;
        Py_XSETREF(it->cur, (node_obj *)Py_NewRef((PyObject *)nx));
        if (it->cur == it->root) return NULL; /* StopIteration */
        if (!it->cur->erased) return Py_NewRef((PyObject *)it->cur);
    }
}

static int iter_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(((iter_obj *)self)->root);
    Py_VISIT(((iter_obj *)self)->cur);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int iter_clear(PyObject *self) {
    Py_CLEAR(((iter_obj *)self)->root);
    Py_CLEAR(((iter_obj *)self)->cur);
    return 0;
}
static void iter_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    iter_clear(self);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}
static PyObject *iter_self(PyObject *self) { return Py_NewRef(self); }

static PyType_Slot iter_slots[] = {
    {Py_tp_new, PyType_GenericNew}, {Py_tp_init, iter_init}, {Py_tp_dealloc, iter_dealloc},
    {Py_tp_traverse, iter_traverse}, {Py_tp_clear, iter_clear}, {Py_tp_iter, iter_self},
    {Py_tp_iternext, iter_next}, {0, NULL}};
static PyType_Spec iter_spec = {"torch._C._NodeIter", sizeof(iter_obj), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
                                iter_slots};

static PyMethodDef fx_functions[] = {
    {"_fx_map_aggregate", (PyCFunction)(void (*)(void))fx_map_aggregate, METH_FASTCALL,
     "Recursively apply a function to every element in an aggregate object."},
    {"_fx_map_arg", (PyCFunction)(void (*)(void))fx_map_arg, METH_FASTCALL,
     "Recursively apply a function to every Node in an aggregate object."},
    {NULL}};

int tn_fx_init(PyObject *m) {
    node_type = PyType_FromSpec(&node_spec);
    PyObject *it = node_type ? PyType_FromSpec(&iter_spec) : NULL;
    if (!it || PyModule_AddObjectRef(m, "_NodeBase", node_type) < 0 || PyModule_AddObjectRef(m, "_NodeIter", it) < 0 ||
        PyModule_AddFunctions(m, fx_functions) < 0) {
        Py_XDECREF(it);
        return -1;
    }
    Py_DECREF(it);
    return 0;
}
