/* dist_placement.c — torch._C._distributed: Placement, Shard, StridedShard, Replicate, Partial,
 * the C bases of DTensor's placement classes (upstream's torch/distributed/tensor/placement_types.py
 * subclasses them and registers them as opaque value types, which needs their __eq__).
 *
 * Measured on upstream: Shard(dim), StridedShard(dim, *, split_factor), Replicate(),
 * Partial(reduce_op=None -> "sum"); read-only attributes; __eq__ compares the class and the
 * fields; the four leaf classes are unhashable; __getstate__/__setstate__ use a dict;
 * is_shard(dim=None) is true only for Shard (StridedShard keeps Placement's False),
 * is_partial(reduce_op=None), is_replicate(). */
#include "python/distributed.h"

#include <string.h>

enum { P_BASE, P_SHARD, P_STRIDED, P_REPLICATE, P_PARTIAL, P_N };
static const char *const names[P_N] = {"Placement", "Shard", "StridedShard", "Replicate", "Partial"};
static PyTypeObject *types[P_N];

typedef struct {
    PyObject_HEAD
    long long dim, split_factor;
    PyObject *reduce_op;
} pl_obj;
#define PL(o) ((pl_obj *)(o))

static int kind_of(PyObject *o) {
    for (int k = P_N - 1; k >= 1; k--)
        if (types[k] && PyObject_TypeCheck(o, types[k])) return k;
    return P_BASE;
}

static void pl_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(PL(self)->reduce_op);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}
static int pl_traverse(PyObject *self, visitproc visit, void *arg) {
    Py_VISIT(PL(self)->reduce_op);
    Py_VISIT(Py_TYPE(self));
    return 0;
}
static int pl_clear(PyObject *self) {
    Py_CLEAR(PL(self)->reduce_op);
    return 0;
}
static PyObject *pl_new(PyTypeObject *tp, PyObject *a, PyObject *k) { return PyType_GenericAlloc(tp, 0); }

static int base_init(PyObject *self, PyObject *args, PyObject *kw) {
    return PyArg_ParseTuple(args, ":Placement") ? 0 : -1;
}
static int shard_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"dim", NULL};
    long long dim;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "L:Shard", kws, &dim)) return -1;
    PL(self)->dim = dim;
    return 0;
}
static int strided_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"dim", "split_factor", NULL};
    long long dim, sf;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "L$L:StridedShard", kws, &dim, &sf)) return -1;
    PL(self)->dim = dim;
    PL(self)->split_factor = sf;
    return 0;
}
static int replicate_init(PyObject *self, PyObject *args, PyObject *kw) {
    return PyArg_ParseTuple(args, ":Replicate") ? 0 : -1;
}
static int partial_init(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"reduce_op", NULL};
    PyObject *op = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:Partial", kws, &op)) return -1;
    if (op != Py_None && !PyUnicode_Check(op)) {
        PyErr_Format(PyExc_TypeError, "Partial(): reduce_op must be str or None, got %s", tn_py_type_name(op));
        return -1;
    }
    PyObject *v = op == Py_None ? PyUnicode_FromString("sum") : Py_NewRef(op);
    if (!v) return -1;
    Py_XSETREF(PL(self)->reduce_op, v);
    return 0;
}

/* is_shard(dim=None) / is_partial(reduce_op=None) / is_replicate() */
static PyObject *is_shard(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"dim", NULL};
    PyObject *dim = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:is_shard", kws, &dim)) return NULL;
    if (kind_of(self) != P_SHARD) Py_RETURN_FALSE;
    if (dim == Py_None) Py_RETURN_TRUE;
    long long d = PyLong_AsLongLong(dim);
    if (d == -1 && PyErr_Occurred()) return NULL;
    return PyBool_FromLong(d == PL(self)->dim);
}
static PyObject *is_partial(PyObject *self, PyObject *args, PyObject *kw) {
    static char *kws[] = {"reduce_op", NULL};
    PyObject *op = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|O:is_partial", kws, &op)) return NULL;
    if (kind_of(self) != P_PARTIAL) Py_RETURN_FALSE;
    if (op == Py_None) Py_RETURN_TRUE;
    return PyObject_RichCompare(PL(self)->reduce_op ? PL(self)->reduce_op : Py_None, op, Py_EQ);
}
static PyObject *is_replicate(PyObject *self, PyObject *unused) { return PyBool_FromLong(kind_of(self) == P_REPLICATE); }

static PyObject *get_dim(PyObject *self, void *c) { return PyLong_FromLongLong(PL(self)->dim); }
static PyObject *get_split(PyObject *self, void *c) { return PyLong_FromLongLong(PL(self)->split_factor); }
static PyObject *get_op(PyObject *self, void *c) {
    return PL(self)->reduce_op ? Py_NewRef(PL(self)->reduce_op) : PyUnicode_FromString("sum");
}

static PyObject *pl_richcompare(PyObject *a, PyObject *b, int op) {
    if (op != Py_EQ && op != Py_NE) Py_RETURN_NOTIMPLEMENTED;
    int ka = kind_of(a);
    if (!PyObject_TypeCheck(b, types[P_BASE])) Py_RETURN_NOTIMPLEMENTED;
    int kb = kind_of(b), eq = ka == kb;
    if (eq && (ka == P_SHARD || ka == P_STRIDED)) eq = PL(a)->dim == PL(b)->dim;
    if (eq && ka == P_STRIDED) eq = PL(a)->split_factor == PL(b)->split_factor;
    if (eq && ka == P_PARTIAL) {
        PyObject *x = get_op(a, NULL), *y = x ? get_op(b, NULL) : NULL;
        int r = y ? PyObject_RichCompareBool(x, y, Py_EQ) : -1;
        Py_XDECREF(x);
        Py_XDECREF(y);
        if (r < 0) return NULL;
        eq = r;
    }
    return PyBool_FromLong(eq == (op == Py_EQ));
}

static PyObject *pl_getstate(PyObject *self, PyObject *unused) {
    switch (kind_of(self)) {
    case P_SHARD: return Py_BuildValue("{sL}", "dim", PL(self)->dim);
    case P_STRIDED: return Py_BuildValue("{sLsL}", "dim", PL(self)->dim, "split_factor", PL(self)->split_factor);
    case P_PARTIAL: return Py_BuildValue("{sN}", "reduce_op", get_op(self, NULL));
    default: return PyDict_New();
    }
}
static PyObject *pl_setstate(PyObject *self, PyObject *st) {
    if (!PyDict_Check(st)) return PyErr_Format(PyExc_TypeError, "__setstate__(): expected a dict, got %s", tn_py_type_name(st));
    PyObject *v;
    if ((v = PyDict_GetItemString(st, "dim"))) {
        long long d = PyLong_AsLongLong(v);
        if (d == -1 && PyErr_Occurred()) return NULL;
        PL(self)->dim = d;
    }
    if ((v = PyDict_GetItemString(st, "split_factor"))) {
        long long d = PyLong_AsLongLong(v);
        if (d == -1 && PyErr_Occurred()) return NULL;
        PL(self)->split_factor = d;
    }
    if ((v = PyDict_GetItemString(st, "reduce_op"))) Py_XSETREF(PL(self)->reduce_op, Py_NewRef(v));
    Py_RETURN_NONE;
}

static PyMethodDef base_methods[] = {
    {"is_shard", (PyCFunction)(void (*)(void))is_shard, METH_VARARGS | METH_KEYWORDS, NULL},
    {"is_partial", (PyCFunction)(void (*)(void))is_partial, METH_VARARGS | METH_KEYWORDS, NULL},
    {"is_replicate", is_replicate, METH_NOARGS, NULL},
    {NULL},
};
static PyMethodDef leaf_methods[] = {
    {"__getstate__", pl_getstate, METH_NOARGS, NULL},
    {"__setstate__", pl_setstate, METH_O, NULL},
    {NULL},
};
static PyGetSetDef shard_getset[] = {{"dim", get_dim, NULL, NULL, NULL}, {NULL}};
static PyGetSetDef strided_getset[] = {{"dim", get_dim, NULL, NULL, NULL}, {"split_factor", get_split, NULL, NULL, NULL}, {NULL}};
static PyGetSetDef partial_getset[] = {{"reduce_op", get_op, NULL, NULL, NULL}, {NULL}};

#define FLAGS (Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC)
#define COMMON {Py_tp_dealloc, pl_dealloc}, {Py_tp_traverse, pl_traverse}, {Py_tp_clear, pl_clear}, {Py_tp_new, pl_new}
static PyType_Slot base_slots[] = {COMMON, {Py_tp_init, base_init}, {Py_tp_methods, base_methods}, {0, NULL}};
#define LEAF {Py_tp_richcompare, pl_richcompare}, {Py_tp_hash, PyObject_HashNotImplemented}, {Py_tp_methods, leaf_methods}
static PyType_Slot shard_slots[] = {COMMON, LEAF, {Py_tp_init, shard_init}, {Py_tp_getset, shard_getset}, {0, NULL}};
static PyType_Slot strided_slots[] = {COMMON, LEAF, {Py_tp_init, strided_init}, {Py_tp_getset, strided_getset}, {0, NULL}};
static PyType_Slot replicate_slots[] = {COMMON, LEAF, {Py_tp_init, replicate_init}, {0, NULL}};
static PyType_Slot partial_slots[] = {COMMON, LEAF, {Py_tp_init, partial_init}, {Py_tp_getset, partial_getset}, {0, NULL}};
static PyType_Spec specs[P_N] = {
    {"torch._C._distributed.Placement", sizeof(pl_obj), 0, FLAGS, base_slots},
    {"torch._C._distributed.Shard", sizeof(pl_obj), 0, FLAGS, shard_slots},
    {"torch._C._distributed.StridedShard", sizeof(pl_obj), 0, FLAGS, strided_slots},
    {"torch._C._distributed.Replicate", sizeof(pl_obj), 0, FLAGS, replicate_slots},
    {"torch._C._distributed.Partial", sizeof(pl_obj), 0, FLAGS, partial_slots},
};

int tn_dist_placement_types_init(PyObject *mod) {
    for (int k = 0; k < P_N; k++) {
        PyObject *bases = k ? PyTuple_Pack(1, (PyObject *)types[P_BASE]) : NULL;
        if (k && !bases) return -1;
        PyObject *t = PyType_FromSpecWithBases(&specs[k], bases);
        Py_XDECREF(bases);
        if (!t || tn_dist_set_meta(t, 1) < 0 || PyModule_AddObjectRef(mod, names[k], t) < 0) {
            Py_XDECREF(t);
            return -1;
        }
        types[k] = (PyTypeObject *)t;   /* the module keeps it alive; this reference is ours too */
    }
    return 0;
}
