/* schema_info.c — torch._C._SchemaInfo, torch._C._SchemaArgument and torch._C._overlaps.
 *
 * What torch._subclasses.schema_check_mode.SchemaCheckMode (torch.library.opcheck's test_schema)
 * asks about an operator call: given its FunctionSchema and the values of its arguments, may an
 * input be mutated (is_mutable), may two arguments alias (may_alias), may one contain an alias of
 * the other (may_contain_alias)? The answers follow upstream's SchemaInfo (docs/custom_ops.md):
 *   - the schema's own annotations: an argument is mutable when its alias info writes (`Tensor(a!)`);
 *     two arguments may alias when their types can alias (alias type sets: Tensor, lists, dicts,
 *     Any, optionals and unions of those) and their after-sets share a name; a wildcard (`*`)
 *     argument may alias any container holding its type;
 *   - the values added with add_argument_value(s): inputs whose tensors share a storage alias each
 *     other (and so share mutability), an input held inside another input's container becomes a
 *     wildcard; an output aliases every input aliasing the input the schema says it aliases;
 *   - upstream's training special case: running_mean / running_var (noise) of batch_norm-like
 *     schemas are mutable only when training / train / use_input_stats is true or not given.
 * The work is on the Python FunctionSchema / Argument / type objects of schema_type.c. */
#include "python/common.h"
#include "python/library.h"
#include "core/object.h"

#include <stdlib.h>
#include <string.h>

enum { IN = 0, OUT = 1 };

/* ---------- alias type sets: dict key -> list of that entry's contained types ----------
 * Upstream compares the types of a set by identity: Tensor, Any and the scalar types are
 * singletons, while each argument's list, dict and class types are its own objects (two `Tensor[]`
 * arguments' lists are different types; measured: may_alias of `Tensor[](a) l` and the return
 * `Tensor[](a)` is False). So a key is str(type), with the argument's tag (`@kind:index`) appended
 * for those per-argument kinds, and a tuple entry (made afresh on each query upstream) is unique. */

static PyObject *type_kind(PyObject *t) {
    PyObject *k = PyObject_CallMethod(t, "kind", NULL);
    return k;
}

static bool per_argument_kind(const char *k) {
    return !strcmp(k, "ListType") || !strcmp(k, "DictType") || !strcmp(k, "ClassType") || !strcmp(k, "TupleType");
}

/* the key of type t in argument `tag`'s sets */
static PyObject *type_key(PyObject *t, PyObject *tag) {
    PyObject *kind = type_kind(t), *str = kind ? PyObject_Str(t) : NULL, *r = NULL;
    const char *k = str ? PyUnicode_AsUTF8AndSize(kind, NULL) : NULL;
    if (k) r = per_argument_kind(k) ? PyUnicode_FromFormat("%U%U", str, tag) : Py_NewRef(str);
    Py_XDECREF(kind);
    Py_XDECREF(str);
    return r;
}
static unsigned long tuple_serial;

/* merge src's entries into dst */
static int merge(PyObject *dst, PyObject *src) { return PyDict_Update(dst, src); }

/* upstream's mapTypeToAliasTypeSet: a new dict, or None for a type that cannot alias */
static PyObject *alias_type_set(PyObject *t, PyObject *tag) {
    PyObject *kind = type_kind(t);
    if (!kind) return NULL;
    const char *k = PyUnicode_AsUTF8AndSize(kind, NULL);
    PyObject *r = NULL;
    if (!k) goto done;
    if (!strcmp(k, "ListType") || !strcmp(k, "DictType") || !strcmp(k, "ClassType") || !strcmp(k, "TensorType") ||
        !strcmp(k, "AnyType")) {
        PyObject *key = type_key(t, tag), *cont = PyObject_CallMethod(t, "containedTypes", NULL);
        PyObject *l = cont ? PySequence_List(cont) : NULL;
        if (key && l && (r = PyDict_New()) && PyDict_SetItem(r, key, l) < 0) Py_CLEAR(r);
        Py_XDECREF(key);
        Py_XDECREF(cont);
        Py_XDECREF(l);
    } else if (!strcmp(k, "OptionalType")) {
        PyObject *e = PyObject_CallMethod(t, "getElementType", NULL);
        r = e ? alias_type_set(e, tag) : NULL;
        Py_XDECREF(e);
    } else if (!strcmp(k, "UnionType") || !strcmp(k, "TupleType")) {
        /* a union: its members' sets; a tuple: one entry standing for the tuple of them */
        PyObject *cont = PyObject_CallMethod(t, "containedTypes", NULL);
        PyObject *l = cont ? PySequence_List(cont) : NULL, *acc = l ? PyDict_New() : NULL, *inner = NULL;
        Py_XDECREF(cont);
        for (Py_ssize_t i = 0; acc && i < PyList_Size(l); i++) {
            PyObject *s = alias_type_set(PyList_GetItem(l, i), tag);
            if (!s || (s != Py_None && merge(acc, s) < 0)) Py_CLEAR(acc);
            Py_XDECREF(s);
        }
        if (acc && !PyDict_Size(acc)) r = Py_NewRef(Py_None);
        else if (acc && k[0] == 'U') r = Py_NewRef(acc);
        else if (acc && (inner = PySequence_List(acc)) && PyList_Sort(inner) == 0) {
            PyObject *sep = PyUnicode_FromString(", "), *j = sep ? PyUnicode_Join(sep, inner) : NULL;
            PyObject *key = j ? PyUnicode_FromFormat("Tuple[%U]#%lu", j, ++tuple_serial) : NULL;
            PyObject *types = PyList_New(0);   /* the tuple's contained types: its members' */
            PyObject *kk, *vv;
            Py_ssize_t pos = 0;
            while (types && PyDict_Next(acc, &pos, &kk, &vv))
                for (Py_ssize_t i = 0; i < PyList_Size(l); i++) {
                    PyObject *ks = type_key(PyList_GetItem(l, i), tag);
                    int eq = ks ? PyObject_RichCompareBool(ks, kk, Py_EQ) : -1;
                    Py_XDECREF(ks);
                    if (eq < 0 || (eq && PyList_Append(types, PyList_GetItem(l, i)) < 0)) { Py_CLEAR(types); break; }
                }
            if (key && types && (r = PyDict_New()) && PyDict_SetItem(r, key, types) < 0) Py_CLEAR(r);
            Py_XDECREF(sep);
            Py_XDECREF(j);
            Py_XDECREF(key);
            Py_XDECREF(types);
        }
        Py_XDECREF(inner);
        Py_XDECREF(acc);
        Py_XDECREF(l);
    } else {
        r = Py_NewRef(Py_None);
    }
done:
    Py_DECREF(kind);
    return r;
}

/* upstream's getAliasTypeSetContainedTypes: every type contained, at any depth, in the set's types */
static PyObject *contained_set(PyObject *set, PyObject *tag) {
    if (set == Py_None) return Py_NewRef(Py_None);
    PyObject *seen = PyDict_New(), *stack = PyList_New(0), *k, *v;
    Py_ssize_t pos = 0;
    while (seen && stack && PyDict_Next(set, &pos, &k, &v))
        for (Py_ssize_t i = 0; i < PyList_Size(v); i++)
            if (PyList_Append(stack, PyList_GetItem(v, i)) < 0) Py_CLEAR(stack);
    while (seen && stack && PyList_Size(stack)) {
        Py_ssize_t n = PyList_Size(stack);
        PyObject *t = Py_NewRef(PyList_GetItem(stack, n - 1));
        PyObject *key = PyList_SetSlice(stack, n - 1, n, NULL) == 0 ? type_key(t, tag) : NULL;
        PyObject *cont = key ? PyObject_CallMethod(t, "containedTypes", NULL) : NULL;
        PyObject *l = cont ? PySequence_List(cont) : NULL;
        int had = l ? PyDict_Contains(seen, key) : -1;
        if (had < 0 || PyDict_SetItem(seen, key, l) < 0) Py_CLEAR(seen);
        for (Py_ssize_t i = 0; seen && had == 0 && i < PyList_Size(l); i++)
            if (PyList_Append(stack, PyList_GetItem(l, i)) < 0) Py_CLEAR(stack);
        Py_DECREF(t);
        Py_XDECREF(key);
        Py_XDECREF(cont);
        Py_XDECREF(l);
    }
    Py_XDECREF(stack);
    if (!stack) Py_CLEAR(seen);
    return seen;
}

/* upstream's canAliasTypeSetsAlias: both sets exist and share a type */
static bool sets_can_alias(PyObject *a, PyObject *b) {
    if (a == Py_None || b == Py_None) return false;
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(a, &pos, &k, &v))
        if (PyDict_Contains(b, k) == 1) return true;
    return false;
}

/* ---------- values: which tensors share a storage ---------- */

static tn_storage *root_of(PyObject *t) { return tn_storage_root(tn_tensor_of(t)->storage); }

/* does v (a tensor, or a list / tuple / dict holding tensors at any depth) hold a tensor on
 * storage s? (upstream's IValue sub-values, keyed by storage) */
static bool holds_storage(PyObject *v, tn_storage *s) {
    if (tn_py_is_tensor(v)) return s && root_of(v) == s;
    bool r = false;
    /* a container holding itself: stop at Python's recursion limit (the error is cleared: no match) */
    if (!(PyList_Check(v) || PyTuple_Check(v) || PyDict_Check(v)) || Py_EnterRecursiveCall(" in _overlaps")) {
        PyErr_Clear();
        return false;
    }
    if (PyList_Check(v) || PyTuple_Check(v)) {
        for (Py_ssize_t i = 0; !r && i < PySequence_Size(v); i++)
            r = holds_storage(PyList_Check(v) ? PyList_GetItem(v, i) : PyTuple_GetItem(v, i), s);
    } else {
        PyObject *k, *x;
        Py_ssize_t pos = 0;
        while (!r && PyDict_Next(v, &pos, &k, &x)) r = holds_storage(k, s) || holds_storage(x, s);
    }
    Py_LeaveRecursiveCall();
    return r;
}

/* does any tensor inside a share a storage with a tensor inside b? */
static bool overlap(PyObject *a, PyObject *b) {
    if (tn_py_is_tensor(a)) return root_of(a) && holds_storage(b, root_of(a));
    bool r = false;
    if (!(PyList_Check(a) || PyTuple_Check(a) || PyDict_Check(a)) || Py_EnterRecursiveCall(" in _overlaps")) {
        PyErr_Clear();
        return false;
    }
    if (PyList_Check(a) || PyTuple_Check(a)) {
        for (Py_ssize_t i = 0; !r && i < PySequence_Size(a); i++)
            r = overlap(PyList_Check(a) ? PyList_GetItem(a, i) : PyTuple_GetItem(a, i), b);
    } else {
        PyObject *k, *x;
        Py_ssize_t pos = 0;
        while (!r && PyDict_Next(a, &pos, &k, &x)) r = overlap(k, b) || overlap(x, b);
    }
    Py_LeaveRecursiveCall();
    return r;
}

/* torch._C._overlaps(a, b): do the tensors held by a and b share a storage? */
static PyObject *py_overlaps(PyObject *m, PyObject *args) {
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO:_overlaps", &a, &b)) return NULL;
    return PyBool_FromLong(overlap(a, b));
}

/* ---------- _SchemaArgument ---------- */

typedef struct {
    PyObject_HEAD
    PyObject *type;   /* a torch._C._SchemaArgType */
    Py_ssize_t index;
} sarg_obj;

static PyTypeObject *sarg_type;

/* the _SchemaArgType enum's value of o (0 input, 1 output), or -1 when o is not one */
static int arg_type_value(PyObject *o) {
    static PyObject *tp;   /* surface.c's enum class, made after this file's init: found at first use */
    if (!tp) tp = PyObject_GetAttrString(tn_py.module, "_SchemaArgType");
    int ok = tp ? PyObject_IsInstance(o, tp) : -1;
    if (ok <= 0) { PyErr_Clear(); return -1; }
    PyObject *v = PyObject_GetAttrString(o, "value");
    long r = v ? PyLong_AsLong(v) : -1;
    Py_XDECREF(v);
    if (r == -1) PyErr_Clear();
    return r == IN || r == OUT ? (int)r : -1;
}

static PyObject *sarg_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    PyObject *t, *i;
    Py_ssize_t idx = -1;
    if (PyArg_ParseTuple(args, "OO", &t, &i) && arg_type_value(t) >= 0 && PyIndex_Check(i)) {
        idx = PyNumber_AsSsize_t(i, PyExc_OverflowError);
        if (idx == -1 && PyErr_Occurred()) PyErr_Clear();
    }
    if (idx < 0 || (kw && PyDict_Size(kw))) {
        PyErr_Clear();
        PyObject *r = PyObject_Repr(args);
        if (r) {
            /* pybind11's wording: the invocation without the tuple's parentheses */
            Py_ssize_t n = PyUnicode_GetLength(r);
            PyObject *inner = PyUnicode_Substring(r, 1, n - (PyTuple_Size(args) == 1 ? 2 : 1));
            if (inner)
                PyErr_Format(PyExc_TypeError, "__init__(): incompatible constructor arguments. The following argument types are "
                             "supported:\n    1. torch._C._SchemaArgument(arg0: torch._C._SchemaArgType, arg1: "
                             "typing.SupportsInt | typing.SupportsIndex)\n\nInvoked with: %U", inner);
            Py_XDECREF(inner);
            Py_DECREF(r);
        }
        return NULL;
    }
    sarg_obj *o = (sarg_obj *)PyType_GenericNew(tp, NULL, NULL);
    if (!o) return NULL;
    o->type = Py_NewRef(t);
    o->index = idx;
    return (PyObject *)o;
}

static void sarg_dealloc(PyObject *self) {
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(((sarg_obj *)self)->type);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

static PyObject *sarg_get_type(PyObject *self, void *c) { return Py_NewRef(((sarg_obj *)self)->type); }
static PyObject *sarg_get_index(PyObject *self, void *c) { return PyLong_FromSsize_t(((sarg_obj *)self)->index); }
static PyGetSetDef sarg_getset[] = {
    {"type", sarg_get_type, NULL, NULL, NULL},
    {"index", sarg_get_index, NULL, NULL, NULL},
    {NULL},
};
static PyType_Slot sarg_slots[] = {
    {Py_tp_new, sarg_new},
    {Py_tp_dealloc, sarg_dealloc},
    {Py_tp_getset, sarg_getset},
    {0, NULL},
};
static PyType_Spec sarg_spec = {"torch._C._SchemaArgument", sizeof(sarg_obj), 0, Py_TPFLAGS_DEFAULT, sarg_slots};

/* ---------- _SchemaInfo ---------- */

typedef struct {
    PyObject_HEAD
    PyObject *schema;
    PyObject *list[2];       /* the Argument objects of the inputs, of the outputs (lists) */
    PyObject *aset[2];       /* per argument: its alias type set (dict or None) */
    PyObject *cset[2];       /* per argument: the types its alias type set contains (dict or None) */
    PyObject *after[2];      /* per argument: its alias after-set (set of str) or None */
    PyObject *values;        /* argument name -> value (add_argument_value(s)) */
    Py_ssize_t n[2];
    unsigned char *wild[2], *cont[2];   /* upstream's wildcard and container sets */
    unsigned char *imap;     /* n[IN] x n[IN]: input i may alias input j (values) */
    unsigned char *omap;     /* n[OUT] x n[IN]: output j may alias input i */
    unsigned char *training; /* per input: a training-dependent argument (batch_norm's running stats) */
    bool maps_current;
} si_obj;

static PyTypeObject *si_type;

static void si_dealloc(PyObject *self) {
    si_obj *o = (si_obj *)self;
    PyTypeObject *tp = Py_TYPE(self);
    Py_CLEAR(o->schema);
    for (int k = 0; k < 2; k++) {
        Py_CLEAR(o->list[k]);
        Py_CLEAR(o->aset[k]);
        Py_CLEAR(o->cset[k]);
        Py_CLEAR(o->after[k]);
        free(o->wild[k]);
        free(o->cont[k]);
    }
    Py_CLEAR(o->values);
    free(o->imap);
    free(o->omap);
    free(o->training);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* upstream's training special cases: these schemas' named arguments are mutable only in training */
static const char *const training_ops[][2] = {
    {"aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, "
     "float momentum, float eps, bool cudnn_enabled) -> Tensor", "running_mean running_var"},
    {"aten::instance_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool "
     "use_input_stats, float momentum, float eps, bool cudnn_enabled) -> Tensor", "running_mean running_var"},
    {"aten::_batch_norm_impl_index(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
     "bool training, float momentum, float eps, bool cudnn_enabled) -> (Tensor, Tensor, Tensor, Tensor, int)",
     "running_mean running_var"},
    {"aten::cudnn_batch_norm(Tensor input, Tensor weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool "
     "training, float exponential_average_factor, float epsilon) -> (Tensor, Tensor, Tensor, Tensor)", "running_mean running_var"},
    {"aten::miopen_batch_norm(Tensor input, Tensor weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool "
     "training, float exponential_average_factor, float epsilon) -> (Tensor, Tensor, Tensor)", "running_mean running_var"},
    {"aten::native_batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool "
     "training, float momentum, float eps) -> (Tensor, Tensor, Tensor)", "running_mean running_var"},
    {"aten::native_batch_norm.out(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
     "bool training, float momentum, float eps, *, Tensor(a!) out, Tensor(b!) save_mean, Tensor(c!) save_invstd) -> "
     "(Tensor(a!), Tensor(b!), Tensor(c!))", "running_mean running_var"},
    {"aten::rrelu_with_noise(Tensor self, Tensor noise, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool "
     "training=False, Generator? generator=None) -> Tensor", "noise"},
    {"aten::rrelu_with_noise.out(Tensor self, Tensor noise, Scalar lower=0.125, Scalar upper=0.3333333333333333, bool "
     "training=False, Generator? generator=None, *, Tensor(a!) out) -> Tensor(a!)", "noise"},
};
static PyObject *training_strs;   /* str() of each parsed training schema, made at first use */

static const char *training_names(PyObject *schema) {
    if (!training_strs) {
        PyObject *parse = PyObject_GetAttrString(tn_py.module, "parse_schema");
        PyObject *l = parse ? PyList_New(0) : NULL;
        for (size_t i = 0; l && i < sizeof training_ops / sizeof training_ops[0]; i++) {
            PyObject *s = PyObject_CallFunction(parse, "s", training_ops[i][0]);
            PyObject *str = s ? PyObject_Str(s) : NULL;
            if (!str || PyList_Append(l, str) < 0) Py_CLEAR(l);
            Py_XDECREF(s);
            Py_XDECREF(str);
        }
        Py_XDECREF(parse);
        if (!l) { PyErr_Clear(); return NULL; }
        training_strs = l;
    }
    PyObject *str = PyObject_Str(schema);
    const char *r = NULL;
    for (Py_ssize_t i = 0; str && i < PyList_Size(training_strs); i++)
        if (PyObject_RichCompareBool(str, PyList_GetItem(training_strs, i), Py_EQ) == 1) r = training_ops[i][1];
    Py_XDECREF(str);
    PyErr_Clear();
    return r;
}

static const char *arg_name(si_obj *o, Py_ssize_t i) {
    PyObject *nm = PyObject_GetAttrString(PyList_GetItem(o->list[IN], i), "name");
    const char *r = nm ? PyUnicode_AsUTF8AndSize(nm, NULL) : NULL;
    Py_XDECREF(nm);   /* the Argument keeps its name alive */
    return r;
}

static Py_ssize_t index_of(si_obj *o, const char *name) {
    for (Py_ssize_t i = 0; i < o->n[IN]; i++) {
        const char *a = arg_name(o, i);
        if (!a) { PyErr_Clear(); continue; }
        if (!strcmp(a, name)) return i;
    }
    return -1;
}

static bool has_wildcard_after(PyObject *after) {
    if (after == Py_None) return false;
    PyObject *star = PyUnicode_FromString("*");
    bool r = star && PySet_Contains(after, star) == 1;
    Py_XDECREF(star);
    return r;
}

/* upstream's initSchemaInfo: the wildcard arguments (after-set `*`, or an alias set named twice in
 * one list: then aliasing answers get conservative), and the containers (types containing others) */
static int si_setup(si_obj *o) {
    for (int k = 0; k < 2; k++) {
        Py_ssize_t n = o->n[k];
        PyObject *seen = PySet_New(NULL), *dups = PySet_New(NULL);
        if (!seen || !dups) { Py_XDECREF(seen); Py_XDECREF(dups); return -1; }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *after = PyList_GetItem(o->after[k], i);
            if (has_wildcard_after(after)) o->wild[k][i] = 1;
            else if (after != Py_None) {
                PyObject *it = PyObject_GetIter(after), *s;
                while (it && (s = PyIter_Next(it))) {
                    if (PySet_Contains(seen, s) == 1) PySet_Add(dups, s);
                    else PySet_Add(seen, s);
                    Py_DECREF(s);
                }
                Py_XDECREF(it);
            }
            PyObject *c = PyList_GetItem(o->cset[k], i);
            if (c != Py_None && PyDict_Size(c)) o->cont[k][i] = 1;
        }
        for (Py_ssize_t i = 0; PySet_Size(dups) && i < n; i++) {
            PyObject *after = PyList_GetItem(o->after[k], i);
            PyObject *it = after != Py_None ? PyObject_GetIter(after) : NULL, *s;
            while (it && (s = PyIter_Next(it))) {
                if (PySet_Contains(dups, s) == 1) o->wild[k][i] = 1;
                Py_DECREF(s);
            }
            Py_XDECREF(it);
        }
        Py_DECREF(seen);
        Py_DECREF(dups);
        if (PyErr_Occurred()) return -1;
    }
    return 0;
}

static PyObject *value_of(si_obj *o, Py_ssize_t i) {
    const char *nm = arg_name(o, i);
    if (!nm) { PyErr_Clear(); return NULL; }
    return PyDict_GetItemString(o->values, nm);
}

/* upstream's FunctionSchema::may_alias: the types can alias and the after-sets share a name */
static bool schema_may_alias(si_obj *o, int lt, Py_ssize_t li, int rt, Py_ssize_t ri) {
    if (!sets_can_alias(PyList_GetItem(o->aset[lt], li), PyList_GetItem(o->aset[rt], ri))) return false;
    PyObject *a = PyList_GetItem(o->after[lt], li), *b = PyList_GetItem(o->after[rt], ri);
    if (a == Py_None || b == Py_None) return false;
    PyObject *inter = PyNumber_And(a, b);
    bool r = inter && PySet_Size(inter) > 0;
    Py_XDECREF(inter);
    PyErr_Clear();
    return r;
}

/* upstream's generateAliasMaps: from the values added so far */
static void si_maps(si_obj *o) {
    if (o->maps_current) return;
    o->maps_current = true;
    Py_ssize_t n = o->n[IN], m = o->n[OUT];
    memset(o->imap, 0, (size_t)(n * n) + 1);
    memset(o->omap, 0, (size_t)(m * n) + 1);
    for (Py_ssize_t i = 0; i < n; i++) {
        o->imap[i * n + i] = 1;
        PyObject *vi = value_of(o, i);
        for (Py_ssize_t j = i + 1; vi && j < n; j++) {
            PyObject *vj = value_of(o, j);
            if (!vj || !tn_py_is_tensor(vi) || !tn_py_is_tensor(vj) || !root_of(vi) || root_of(vi) != root_of(vj)) continue;
            o->imap[i * n + j] = o->imap[j * n + i] = 1;
            if (o->wild[IN][i]) o->wild[IN][j] = 1;
            else if (o->wild[IN][j]) o->wild[IN][i] = 1;
        }
    }
    /* an input held inside another input's container becomes a wildcard */
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *vi = value_of(o, i);
        if (!vi || !(PyList_Check(vi) || PyTuple_Check(vi) || PyDict_Check(vi))) continue;
        for (Py_ssize_t j = 0; j < n; j++) {
            PyObject *vj = value_of(o, j);
            if (!o->imap[i * n + j] && vj && tn_py_is_tensor(vj) && holds_storage(vi, root_of(vj))) o->wild[IN][j] = 1;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++)
        for (Py_ssize_t j = 0; j < m; j++)
            if (schema_may_alias(o, IN, i, OUT, j)) {
                if (o->wild[IN][i]) o->wild[OUT][j] = 1;
                for (Py_ssize_t a = 0; a < n; a++)
                    if (o->imap[i * n + a]) o->omap[j * n + a] = 1;
            }
}

static bool training_value(si_obj *o, const char *name) {
    if (index_of(o, name) < 0) return false;
    PyObject *v = PyDict_GetItemString(o->values, name);
    if (!v) return true;
    int t = PyObject_IsTrue(v);
    if (t < 0) PyErr_Clear();
    return t == 1;
}

static bool input_mutable(si_obj *o, Py_ssize_t i) {
    PyObject *ai = PyObject_GetAttrString(PyList_GetItem(o->list[IN], i), "alias_info");
    PyObject *w = ai && ai != Py_None ? PyObject_GetAttrString(ai, "is_write") : NULL;
    bool r = w == Py_True;
    Py_XDECREF(ai);
    Py_XDECREF(w);
    PyErr_Clear();
    return r;
}

static bool si_is_mutable(si_obj *o, int kind, Py_ssize_t idx) {
    si_maps(o);
    Py_ssize_t n = o->n[IN];
    const unsigned char *row = kind == IN ? o->imap + idx * n : o->omap + idx * n;
    for (Py_ssize_t a = 0; a < n; a++) {
        if (!row[a]) continue;
        if (o->training[a]) {
            if (training_value(o, "training") || training_value(o, "train") || training_value(o, "use_input_stats")) return true;
        } else if (input_mutable(o, a)) {
            return true;
        }
    }
    return false;
}

static bool si_may_alias(si_obj *o, int lt, Py_ssize_t li, int rt, Py_ssize_t ri) {
    if (schema_may_alias(o, lt, li, rt, ri)) return true;
    if (!sets_can_alias(PyList_GetItem(o->aset[lt], li), PyList_GetItem(o->aset[rt], ri))) return false;
    si_maps(o);
    if (o->wild[lt][li] && o->wild[rt][ri]) return true;
    Py_ssize_t n = o->n[IN];
    if (lt == IN && rt == IN) return o->imap[li * n + ri];
    if (lt == OUT && rt == OUT) {
        for (Py_ssize_t a = 0; a < n; a++)
            if (o->omap[li * n + a] && o->omap[ri * n + a]) return true;
        return false;
    }
    if (lt == OUT) return o->omap[li * n + ri];
    return o->omap[ri * n + li];
}

/* upstream's FunctionSchema::may_contain_alias (both directions) */
static bool schema_may_contain_alias(si_obj *o, int lt, Py_ssize_t li, int rt, Py_ssize_t ri) {
    if (schema_may_alias(o, lt, li, rt, ri)) return true;
    PyObject *la = PyList_GetItem(o->aset[lt], li), *ra = PyList_GetItem(o->aset[rt], ri);
    PyObject *lc = PyList_GetItem(o->cset[lt], li), *rc = PyList_GetItem(o->cset[rt], ri);
    bool lw = has_wildcard_after(PyList_GetItem(o->after[lt], li)) && sets_can_alias(la, rc);
    bool rw = has_wildcard_after(PyList_GetItem(o->after[rt], ri)) && sets_can_alias(ra, lc);
    return lw || rw || sets_can_alias(lc, rc);
}

/* upstream's mayContainAliasImpl: lhs is a container of a type rhs has, and rhs is a wildcard */
static bool contain_impl(si_obj *o, int lt, Py_ssize_t li, int rt, Py_ssize_t ri) {
    return sets_can_alias(PyList_GetItem(o->cset[lt], li), PyList_GetItem(o->aset[rt], ri)) && o->cont[lt][li] &&
           o->wild[rt][ri];
}

static bool si_may_contain_alias(si_obj *o, int lt, Py_ssize_t li, int rt, Py_ssize_t ri) {
    if (schema_may_contain_alias(o, lt, li, rt, ri) || si_may_alias(o, lt, li, rt, ri)) return true;
    si_maps(o);
    return contain_impl(o, lt, li, rt, ri) || contain_impl(o, rt, ri, lt, li);
}

static PyObject *si_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    PyObject *schema;
    PyObject *fs_type = PyObject_GetAttrString(tn_py.module, "FunctionSchema");
    int ok = fs_type && PyTuple_Size(args) == 1 && (!kw || !PyDict_Size(kw)) ? PyObject_IsInstance(PyTuple_GetItem(args, 0), fs_type) : 0;
    Py_XDECREF(fs_type);
    if (ok <= 0) {
        PyErr_Clear();
        PyObject *r = PyObject_Repr(args);
        PyObject *inner = r ? PyUnicode_Substring(r, 1, PyUnicode_GetLength(r) - (PyTuple_Size(args) == 1 ? 2 : 1)) : NULL;
        if (inner)
            PyErr_Format(PyExc_TypeError, "__init__(): incompatible constructor arguments. The following argument types are "
                         "supported:\n    1. torch._C._SchemaInfo(arg0: c10::FunctionSchema)\n\nInvoked with: %U", inner);
        Py_XDECREF(r);
        Py_XDECREF(inner);
        return NULL;
    }
    schema = PyTuple_GetItem(args, 0);
    si_obj *o = (si_obj *)PyType_GenericNew(tp, NULL, NULL);
    if (!o) return NULL;
    o->schema = Py_NewRef(schema);
    o->values = PyDict_New();
    if (!o->values) goto fail;
    for (int k = 0; k < 2; k++) {
        PyObject *seq = PyObject_GetAttrString(schema, k == IN ? "arguments" : "returns");
        o->list[k] = seq ? PySequence_List(seq) : NULL;
        Py_XDECREF(seq);
        if (!o->list[k]) goto fail;
        Py_ssize_t n = o->n[k] = PyList_Size(o->list[k]);
        o->aset[k] = PyList_New(n);
        o->after[k] = PyList_New(n);
        o->cset[k] = PyList_New(n);
        o->wild[k] = calloc((size_t)n + 1, 1);
        o->cont[k] = calloc((size_t)n + 1, 1);
        if (!o->aset[k] || !o->after[k] || !o->cset[k] || !o->wild[k] || !o->cont[k]) { PyErr_NoMemory(); goto fail; }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *a = PyList_GetItem(o->list[k], i);
            PyObject *t = PyObject_GetAttrString(a, "type"), *ai = PyObject_GetAttrString(a, "alias_info");
            PyObject *tag = PyUnicode_FromFormat("@%d:%zd", k, i);
            PyObject *set = t && tag ? alias_type_set(t, tag) : NULL;
            PyObject *cont = set ? contained_set(set, tag) : NULL;
            PyObject *after = ai == Py_None ? Py_NewRef(Py_None) : ai ? PyObject_GetAttrString(ai, "after_set") : NULL;
            Py_XDECREF(t);
            Py_XDECREF(ai);
            Py_XDECREF(tag);
            if (!set || !cont || !after) { Py_XDECREF(set); Py_XDECREF(cont); Py_XDECREF(after); goto fail; }
            PyList_SetItem(o->aset[k], i, set);
            PyList_SetItem(o->cset[k], i, cont);
            PyList_SetItem(o->after[k], i, after);
        }
    }
    o->imap = calloc((size_t)(o->n[IN] * o->n[IN]) + 1, 1);
    o->omap = calloc((size_t)(o->n[OUT] * o->n[IN]) + 1, 1);
    o->training = calloc((size_t)o->n[IN] + 1, 1);
    if (!o->imap || !o->omap || !o->training) { PyErr_NoMemory(); goto fail; }
    const char *tnames = training_names(schema);
    for (Py_ssize_t i = 0; tnames && i < o->n[IN]; i++) {
        const char *nm = arg_name(o, i);
        size_t l = nm ? strlen(nm) : 0;
        for (const char *p = tnames; nm && (p = strstr(p, nm)); p += l)
            if ((p == tnames || p[-1] == ' ') && (p[l] == ' ' || !p[l])) o->training[i] = 1;
        PyErr_Clear();
    }
    if (si_setup(o) < 0) goto fail;
    return (PyObject *)o;
fail:
    Py_DECREF(o);
    return NULL;
}

static PyObject *internal_assert(const char *cond, int line, const char *msg, const char *name) {
    return PyErr_Format(PyExc_RuntimeError, "%s INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/torch/csrc/utils/schema_info.cpp\":%d, "
                        "please report a bug to PyTorch. %s%s", cond, line, msg, name ? name : "");
}

/* add one value; "input" names `self` when the schema has no `input` (torch.fx's normalisation) */
static int si_add(si_obj *o, PyObject *name, PyObject *value) {
    const char *nm = PyUnicode_AsUTF8AndSize(name, NULL);
    if (!nm) return -1;
    if (!strcmp(nm, "input") && index_of(o, "input") < 0) nm = "self";
    if (index_of(o, nm) < 0) { internal_assert("index != std::nullopt", 9, "Schema has no argument named ", nm); return -1; }
    o->maps_current = false;
    return PyDict_SetItemString(o->values, nm, value);
}

static PyObject *si_add_value(PyObject *self, PyObject *args) {
    PyObject *name, *value;
    if (!PyArg_ParseTuple(args, "UO:add_argument_value", &name, &value)) return NULL;
    return si_add((si_obj *)self, name, value) < 0 ? NULL : Py_NewRef(Py_None);
}

static PyObject *si_add_values(PyObject *self, PyObject *d) {
    if (!PyDict_Check(d)) return PyErr_Format(PyExc_TypeError, "add_argument_values(): incompatible function arguments");
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &k, &v)) {
        if (!PyUnicode_Check(k))
            return PyErr_Format(PyExc_RuntimeError, "key.isString() INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/torch/csrc/"
                                "jit/python/init.cpp\":1967, please report a bug to PyTorch. Add argument value keys types "
                                "should be strings.");
        if (si_add((si_obj *)self, k, v) < 0) return NULL;
    }
    Py_RETURN_NONE;
}

/* a _SchemaArgument's kind and index, checked against the schema */
static int sarg_of(si_obj *o, PyObject *a, int *kind, Py_ssize_t *idx) {
    if (!PyObject_TypeCheck(a, sarg_type)) return 0;
    *kind = arg_type_value(((sarg_obj *)a)->type);
    *idx = ((sarg_obj *)a)->index;
    return *kind >= 0 ? 1 : 0;
}

static PyObject *bad_index(const char *cond, const char *file, int line) {
    return PyErr_Format(PyExc_RuntimeError, "%s INTERNAL ASSERT FAILED at \"/__w/pytorch/pytorch/%s\":%d, please report a "
                        "bug to PyTorch. Invalid index for schema.", cond, file, line);
}

static PyObject *incompatible(const char *what, const char *sigs, PyObject *self, PyObject *args) {
    PyObject *all = PyTuple_New(PyTuple_Size(args) + 1);
    if (!all) return NULL;
    PyTuple_SetItem(all, 0, Py_NewRef(self));
    for (Py_ssize_t i = 0; i < PyTuple_Size(args); i++) PyTuple_SetItem(all, i + 1, Py_NewRef(PyTuple_GetItem(args, i)));
    PyObject *parts = PyList_New(0);
    for (Py_ssize_t i = 0; parts && i < PyTuple_Size(all); i++) {
        PyObject *r = PyObject_Repr(PyTuple_GetItem(all, i));
        if (!r || PyList_Append(parts, r) < 0) Py_CLEAR(parts);
        Py_XDECREF(r);
    }
    PyObject *sep = PyUnicode_FromString(", "), *j = parts && sep ? PyUnicode_Join(sep, parts) : NULL;
    if (j)
        PyErr_Format(PyExc_TypeError, "%s(): incompatible function arguments. The following argument types are supported:\n%s\n"
                     "Invoked with: %U", what, sigs, j);
    Py_XDECREF(all);
    Py_XDECREF(parts);
    Py_XDECREF(sep);
    Py_XDECREF(j);
    return NULL;
}

static PyObject *si_py_is_mutable(PyObject *self, PyObject *args) {
    si_obj *o = (si_obj *)self;
    Py_ssize_t na = PyTuple_Size(args);
    if (na == 0) {
        for (Py_ssize_t i = 0; i < o->n[IN]; i++)
            if (si_is_mutable(o, IN, i)) Py_RETURN_TRUE;
        Py_RETURN_FALSE;
    }
    int kind;
    Py_ssize_t idx;
    PyObject *a = na == 1 ? PyTuple_GetItem(args, 0) : NULL;
    if (a && PyUnicode_Check(a)) {
        const char *nm = PyUnicode_AsUTF8AndSize(a, NULL);
        if (!nm) return NULL;
        Py_ssize_t i = index_of(o, nm);
        if (i < 0) return internal_assert("index.has_value()", 109, "Schema has no argument named ", nm);
        return PyBool_FromLong(si_is_mutable(o, IN, i));
    }
    if (!a || !sarg_of(o, a, &kind, &idx))
        return incompatible("is_mutable", "    1. (self: torch._C._SchemaInfo) -> bool\n    2. (self: torch._C._SchemaInfo, arg0: "
                            "torch._C._SchemaArgument) -> bool\n    3. (self: torch._C._SchemaInfo, arg0: str) -> bool\n", self, args);
    if (idx >= o->n[kind]) return internal_assert("argument.index < schema_.getCorrectList(argument.type).size()", 54,
                                                  "Invalid index for schema.", NULL);
    return PyBool_FromLong(si_is_mutable(o, kind, idx));
}

static PyObject *si_pair(PyObject *self, PyObject *args, bool contain) {
    si_obj *o = (si_obj *)self;
    int lt, rt;
    Py_ssize_t li, ri;
    const char *nm = contain ? "may_contain_alias" : "may_alias";
    if (PyTuple_Size(args) != 2 || !sarg_of(o, PyTuple_GetItem(args, 0), &lt, &li) || !sarg_of(o, PyTuple_GetItem(args, 1), &rt, &ri)) {
        char sig[256];
        snprintf(sig, sizeof sig, "    1. (self: torch._C._SchemaInfo, arg0: torch._C._SchemaArgument, arg1: "
                 "torch._C._SchemaArgument) -> bool\n");
        return incompatible(nm, sig, self, args);
    }
    if (li >= o->n[lt]) return bad_index("(lhs.index < getCorrectList(lhs.type).size())", "aten/src/ATen/core/function_schema.cpp", 154);
    if (ri >= o->n[rt]) return bad_index("(rhs.index < getCorrectList(rhs.type).size())", "aten/src/ATen/core/function_schema.cpp", 157);
    bool r = contain ? si_may_contain_alias(o, lt, li, rt, ri) : si_may_alias(o, lt, li, rt, ri);
    if (PyErr_Occurred()) return NULL;
    return PyBool_FromLong(r);
}
static PyObject *si_py_may_alias(PyObject *self, PyObject *args) { return si_pair(self, args, false); }
static PyObject *si_py_may_contain_alias(PyObject *self, PyObject *args) { return si_pair(self, args, true); }

static PyObject *si_has_argument(PyObject *self, PyObject *name) {
    const char *nm = PyUnicode_Check(name) ? PyUnicode_AsUTF8AndSize(name, NULL) : NULL;
    if (!nm) return PyErr_Format(PyExc_TypeError, "has_argument(): incompatible function arguments");
    return PyBool_FromLong(index_of((si_obj *)self, nm) >= 0);
}

static PyMethodDef si_methods[] = {
    {"add_argument_value", si_add_value, METH_VARARGS, "add_argument_value(self: torch._C._SchemaInfo, arg0: str, arg1: object) -> None\n"},
    {"add_argument_values", si_add_values, METH_O, "add_argument_values(self: torch._C._SchemaInfo, arg0: dict) -> None\n"},
    {"has_argument", si_has_argument, METH_O, "has_argument(self: torch._C._SchemaInfo, arg0: str) -> bool\n"},
    {"is_mutable", si_py_is_mutable, METH_VARARGS, NULL},
    {"may_alias", si_py_may_alias, METH_VARARGS, NULL},
    {"may_contain_alias", si_py_may_contain_alias, METH_VARARGS, NULL},
    {NULL},
};
static PyType_Slot si_slots[] = {
    {Py_tp_new, si_new},
    {Py_tp_dealloc, si_dealloc},
    {Py_tp_methods, si_methods},
    {0, NULL},
};
static PyType_Spec si_spec = {"torch._C._SchemaInfo", sizeof(si_obj), 0, Py_TPFLAGS_DEFAULT, si_slots};

static PyMethodDef overlaps_def[] = {
    {"_overlaps", py_overlaps, METH_VARARGS, "_overlaps(arg0: object, arg1: object) -> bool\n"},
    {NULL},
};

int tn_schema_info_init(PyObject *m) {
    sarg_type = (PyTypeObject *)PyType_FromSpec(&sarg_spec);
    si_type = (PyTypeObject *)PyType_FromSpec(&si_spec);
    if (!sarg_type || !si_type) return -1;
    if (PyModule_AddObjectRef(m, "_SchemaArgument", (PyObject *)sarg_type) < 0 ||
        PyModule_AddObjectRef(m, "_SchemaInfo", (PyObject *)si_type) < 0)
        return -1;
    return PyModule_AddFunctions(m, overlaps_def);
}
