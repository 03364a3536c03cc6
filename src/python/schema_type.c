/* schema_type.c — FunctionSchema, Argument, _AliasInfo and the JIT Type classes of torch._C.
 *
 * Upstream Python reads operator schemas as objects: torch._C.parse_schema(text), _get_schema and
 * the overload packets give FunctionSchema objects whose .arguments/.returns are Argument objects
 * (name, type, real_type, default_value, N, kwarg_only, alias_info, is_out, is_write) and whose
 * str() is a normalised schema text. This file converts a C tn_schema (src/dispatch/schema.c) into
 * those objects once, eagerly: every attribute is a stored Python object, str() is precomputed.
 * Measured upstream rules reproduced here: "fake" vs real types (ScalarType, Layout, MemoryFormat
 * print as int in .type; SymInt's real type is SymIntType printing "int"; Scalar is "number");
 * defaults are Python values (enum identifiers become ints, float arguments turn int literals into
 * floats, T[N] defaults written as one number are broadcast); printed floats use "1." / %.17g;
 * int lists whose elements are all equal print as one number; strings print double-quoted.
 * Everything is a heap type (limited API); the type objects live in file-level pointers so that
 * tn_schema_to_python needs no module argument. */
#include "schema_type.h"
#include "python/common.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <structmember.h>

/* ---- JIT type kinds ---- */

enum {
    K_TENSOR, K_INT, K_SYMINT, K_FLOAT, K_BOOL, K_STRING, K_NUMBER, K_SCALARTYPE, K_LAYOUT,
    K_MEMFMT, K_DEVICE, K_GENERATOR, K_STORAGE, K_STREAM, K_QSCHEME, K_COMPLEX, K_ANY, K_SYMBOOL,
    K_OPTIONAL, K_LIST, K_COUNT
};
static const char *const kind_names[K_COUNT] = {
    "TensorType", "IntType", "SymIntType", "FloatType", "BoolType", "StringType", "NumberType",
    "ScalarTypeType", "LayoutType", "MemoryFormatType", "DeviceObjType", "GeneratorType",
    "StorageType", "StreamObjType", "QSchemeType", "ComplexType", "AnyType", "SymBoolType",
    "OptionalType", "ListType"};
static const char *const kind_str[K_COUNT] = {
    "Tensor", "int", "int", "float", "bool", "str", "number", "ScalarType", "Layout",
    "MemoryFormat", "Device", "Generator", "Storage", "Stream", "QScheme", "complex", "Any", "bool",
    NULL, NULL};

static PyTypeObject *g_type_base, *g_kind_types[K_COUNT], *g_alias_type, *g_arg_type,
    *g_schema_type;

typedef struct {
    PyObject_HEAD
    int kind;
    PyObject *elem; /* OptionalType / ListType element, else NULL */
} tn_type_obj;

typedef struct {
    PyObject_HEAD
    PyObject *before_set, *after_set;
    char is_write;
} tn_alias_obj;

typedef struct {
    PyObject_HEAD
    PyObject *name, *type, *real_type, *default_value, *N, *alias_info;
    char kwarg_only, has_default, is_out, is_write;
} tn_arg_obj;

typedef struct {
    PyObject_HEAD
    PyObject *name, *overload_name, *arguments, *returns, *text;
    char is_mutable, is_vararg, is_varret;
    PyObject *dict; /* instance attributes of Python subclasses (HopSchema) */
} tn_schema_obj;

static void generic_free(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    freefunc f = (freefunc)PyType_GetSlot(tp, Py_tp_free);
    f(self);
    Py_DECREF(tp);
}

/* ---- growable text buffer ---- */

typedef struct {
    char *p;
    size_t n, cap;
    bool oom;
} tn_buf;

static void bput(tn_buf *b, const char *fmt, ...)
{
    if (b->oom)
        return;
    for (;;) {
        va_list ap;
        va_start(ap, fmt);
        size_t room = b->cap - b->n;
        int k = vsnprintf(b->p ? b->p + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0) {
            b->oom = true;
            return;
        }
        if ((size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        size_t nc = (b->cap ? b->cap * 2 : 256) + (size_t)k;
        char *np = realloc(b->p, nc);
        if (!np) {
            b->oom = true;
            return;
        }
        b->p = np;
        b->cap = nc;
    }
}

/* ---- Type ---- */

/* Simple types are singletons, as upstream's (fake_impls reads `arg.type is TensorType.get()`). */
static PyObject *g_simple[K_OPTIONAL];

static PyObject *type_new(int kind, PyObject *elem /* stolen */)
{
    if (!elem && kind < K_OPTIONAL && g_simple[kind])
        return Py_NewRef(g_simple[kind]);
    tn_type_obj *t = PyObject_New(tn_type_obj, g_kind_types[kind]);
    if (!t) {
        Py_XDECREF(elem);
        return NULL;
    }
    t->kind = kind;
    t->elem = elem;
    if (!elem && kind < K_OPTIONAL)
        g_simple[kind] = Py_NewRef((PyObject *)t);
    return (PyObject *)t;
}

static void type_dealloc(PyObject *self)
{
    Py_CLEAR(((tn_type_obj *)self)->elem);
    generic_free(self);
}

static void type_text(tn_buf *b, const tn_type_obj *t)
{
    if (t->kind == K_OPTIONAL || t->kind == K_LIST) {
        bput(b, t->kind == K_OPTIONAL ? "Optional[" : "List[");
        type_text(b, (const tn_type_obj *)t->elem);
        bput(b, "]");
    } else {
        bput(b, "%s", kind_str[t->kind]);
    }
}

static PyObject *type_str(PyObject *self)
{
    tn_buf b = {0};
    type_text(&b, (tn_type_obj *)self);
    PyObject *r = b.oom ? PyErr_NoMemory() : PyUnicode_FromStringAndSize(b.p ? b.p : "", (Py_ssize_t)b.n);
    free(b.p);
    return r;
}

static PyObject *type_kind(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyUnicode_FromString(kind_names[((tn_type_obj *)self)->kind]);
}

static PyObject *type_str_m(PyObject *self, PyObject *unused)
{
    (void)unused;
    return type_str(self);
}

static PyObject *type_elem(PyObject *self, PyObject *unused)
{
    (void)unused;
    PyObject *e = ((tn_type_obj *)self)->elem;
    if (!e) {
        PyErr_SetString(PyExc_RuntimeError, "type has no element type");
        return NULL;
    }
    Py_INCREF(e);
    return e;
}

static PyObject *type_contained(PyObject *self, PyObject *unused)
{
    (void)unused;
    PyObject *e = ((tn_type_obj *)self)->elem;
    PyObject *l = PyList_New(0);
    if (l && e && PyList_Append(l, e) < 0)
        Py_CLEAR(l);
    return l;
}

static bool type_equal(const tn_type_obj *a, const tn_type_obj *b)
{
    if (a->kind != b->kind)
        return false;
    if (!a->elem || !b->elem)
        return a->elem == b->elem;
    return type_equal((const tn_type_obj *)a->elem, (const tn_type_obj *)b->elem);
}

static PyObject *type_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, g_type_base))
        Py_RETURN_NOTIMPLEMENTED;
    bool eq = type_equal((tn_type_obj *)a, (tn_type_obj *)b);
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}

static PyObject *type_get(PyObject *cls, PyObject *unused)
{
    (void)unused;
    for (int k = 0; k < K_OPTIONAL; k++)
        if (cls == (PyObject *)g_kind_types[k])
            return type_new(k, NULL);
    PyErr_SetString(PyExc_TypeError, "get() is only available on simple JIT types");
    return NULL;
}

/* T.isSubtypeOf(U): equal types, or U = Optional[X] with T a subtype of X (upstream's rule for
 * the types our schemas produce). */
static PyObject *type_is_subtype_of(PyObject *self, PyObject *other)
{
    if (!PyObject_TypeCheck(other, g_type_base)) {
        PyErr_SetString(PyExc_TypeError, "isSubtypeOf() expects a torch._C.Type");
        return NULL;
    }
    const tn_type_obj *t = (const tn_type_obj *)self, *u = (const tn_type_obj *)other;
    while (u) {
        if (type_equal(t, u))
            Py_RETURN_TRUE;
        u = u->kind == K_OPTIONAL ? (const tn_type_obj *)u->elem : NULL;
    }
    Py_RETURN_FALSE;
}

static PyMethodDef type_methods[] = {
    {"isSubtypeOf", type_is_subtype_of, METH_O, "isSubtypeOf(other) -> bool"},
    {"kind", type_kind, METH_NOARGS, "kind() -> str"},
    {"str", type_str_m, METH_NOARGS, "str() -> str"},
    {"containedTypes", type_contained, METH_NOARGS, "contained types"},
    {"get", type_get, METH_NOARGS | METH_CLASS, "the singleton of a simple type"},
    {NULL, NULL, 0, NULL},
};
/* OptionalType(T) / ListType(T), as upstream's constructors. */
static PyObject *container_new(PyTypeObject *cls, PyObject *args, PyObject *kw)
{
    PyObject *elem;
    if (!PyArg_ParseTuple(args, "O", &elem))
        return NULL;
    if (!PyObject_TypeCheck(elem, g_type_base)) {
        PyErr_SetString(PyExc_TypeError, "expected a torch._C.Type as the element type");
        return NULL;
    }
    int kind = cls == g_kind_types[K_LIST] ? K_LIST : K_OPTIONAL;
    return type_new(kind, Py_NewRef(elem));
}

static PyMethodDef container_methods[] = {
    {"getElementType", type_elem, METH_NOARGS, "element type"},
    {NULL, NULL, 0, NULL},
};

static PyObject *type_annotation(PyObject *self, void *unused)
{
    (void)unused;
    return type_str(self);
}

static PyGetSetDef type_getset[] = {
    {"annotation_str", type_annotation, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

/* ---- _AliasInfo ---- */

static void alias_dealloc(PyObject *self)
{
    tn_alias_obj *a = (tn_alias_obj *)self;
    Py_CLEAR(a->before_set);
    Py_CLEAR(a->after_set);
    generic_free(self);
}

static PyMemberDef alias_members[] = {
    {"is_write", T_BOOL, offsetof(tn_alias_obj, is_write), READONLY, NULL},
    {"before_set", T_OBJECT, offsetof(tn_alias_obj, before_set), READONLY, NULL},
    {"after_set", T_OBJECT, offsetof(tn_alias_obj, after_set), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyObject *alias_set_from(const char *text)
{
    PyObject *set = PySet_New(NULL);
    if (!set || !text)
        return set;
    const char *s = text;
    while (*s) {
        const char *e = strchr(s, '|');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        PyObject *name = PyUnicode_FromStringAndSize(s, (Py_ssize_t)n);
        if (!name || PySet_Add(set, name) < 0) {
            Py_XDECREF(name);
            Py_DECREF(set);
            return NULL;
        }
        Py_DECREF(name);
        s += n;
        if (*s == '|')
            s++;
    }
    return set;
}

static PyObject *alias_new(const tn_arg *a)
{
    if (!a->alias_before)
        Py_RETURN_NONE;
    tn_alias_obj *o = PyObject_New(tn_alias_obj, g_alias_type);
    if (!o)
        return NULL;
    o->is_write = a->is_write;
    /* an annotation on a list's element leaves the list's own sets empty (measured upstream) */
    bool on_elem = a->is_list && a->alias_on_elem;
    o->before_set = alias_set_from(on_elem ? NULL : a->alias_before);
    o->after_set = alias_set_from(on_elem ? NULL : a->alias_after);
    if (!o->before_set || !o->after_set) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

/* ---- type objects for an argument ---- */

static int base_kind(tn_type_kind t, bool real)
{
    switch (t) {
    case TN_TYPE_TENSOR: return K_TENSOR;
    case TN_TYPE_INT: return K_INT;
    case TN_TYPE_DEVICEINDEX: return K_INT;
    case TN_TYPE_SYMINT: return real ? K_SYMINT : K_INT;
    case TN_TYPE_FLOAT: return K_FLOAT;
    case TN_TYPE_BOOL: return K_BOOL;
    case TN_TYPE_SYMBOOL: return K_SYMBOOL;
    case TN_TYPE_STR: return K_STRING;
    case TN_TYPE_SCALAR: return K_NUMBER;
    case TN_TYPE_SCALARTYPE: return real ? K_SCALARTYPE : K_INT;
    case TN_TYPE_LAYOUT: return real ? K_LAYOUT : K_INT;
    case TN_TYPE_MEMORYFORMAT: return real ? K_MEMFMT : K_INT;
    case TN_TYPE_DEVICE: return K_DEVICE;
    case TN_TYPE_GENERATOR: return K_GENERATOR;
    case TN_TYPE_STORAGE: return K_STORAGE;
    case TN_TYPE_STREAM: return K_STREAM;
    case TN_TYPE_QSCHEME: return K_QSCHEME;
    case TN_TYPE_COMPLEX: return K_COMPLEX;
    case TN_TYPE_ANY: return K_ANY;
    default: return -1; /* Dimname, DimVector: not JIT schema types upstream */
    }
}

static PyObject *arg_type_obj(const tn_arg *a, bool real)
{
    int k = base_kind(a->type, real);
    if (k < 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "unknown type specifier '%s' (not a schema type upstream accepts)",
                     tn_type_names[a->type]);
        return NULL;
    }
    PyObject *t = type_new(k, NULL);
    if (t && a->elem_optional)
        t = type_new(K_OPTIONAL, t);
    if (t && a->is_list)
        t = type_new(K_LIST, t);
    if (t && a->nested_list)
        t = type_new(K_LIST, t);
    if (t && a->optional)
        t = type_new(K_OPTIONAL, t);
    return t;
}

/* ---- defaults: text (validated by the C parser) → Python value ---- */

typedef struct {
    const char *s;
    tn_type_kind type;
} tn_dscan;

static void ds_ws(tn_dscan *d)
{
    while (*d->s == ' ' || *d->s == '\t' || *d->s == '\n' || *d->s == '\r')
        d->s++;
}

static PyObject *ds_string(tn_dscan *d)
{
    char q = *d->s++;
    tn_buf b = {0};
    bput(&b, "%s", "");
    while (*d->s && *d->s != q) {
        char c = *d->s++;
        if (c == '\\' && *d->s) {
            char e = *d->s++;
            switch (e) {
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            case 'r': c = '\r'; break;
            case 'a': c = '\a'; break;
            case 'b': c = '\b'; break;
            case 'f': c = '\f'; break;
            case 'v': c = '\v'; break;
            case '0': c = '\0'; break;
            default: c = e; break;
            }
        }
        bput(&b, "%c", c);
    }
    if (*d->s == q)
        d->s++;
    PyObject *r = b.oom ? PyErr_NoMemory() : PyUnicode_FromStringAndSize(b.p, (Py_ssize_t)b.n);
    free(b.p);
    return r;
}

static PyObject *ds_scalar(tn_dscan *d)
{
    ds_ws(d);
    const char *s = d->s;
    if (*s == '\'' || *s == '"')
        return ds_string(d);
    if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_') {
        char id[64];
        size_t n = 0;
        while (((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
                (*s >= '0' && *s <= '9')) && n + 1 < sizeof id)
            id[n++] = *s++;
        id[n] = 0;
        d->s = s;
        if (!strcmp(id, "None"))
            Py_RETURN_NONE;
        if (!strcmp(id, "True"))
            Py_RETURN_TRUE;
        if (!strcmp(id, "False"))
            Py_RETURN_FALSE;
        int64_t v;
        if (tn_schema_ident_value(id, d->type, &v))
            return PyLong_FromLongLong((long long)v);
        PyErr_Format(PyExc_RuntimeError, "invalid default value '%s'", id);
        return NULL;
    }
    char num[80];
    size_t n = 0;
    bool is_float = false;
    while (n + 1 < sizeof num &&
           ((*s >= '0' && *s <= '9') || *s == '-' || *s == '+' || *s == '.' || *s == 'e' ||
            *s == 'E')) {
        if (*s == '.' || *s == 'e' || *s == 'E')
            is_float = true;
        num[n++] = *s++;
    }
    num[n] = 0;
    d->s = s;
    if (!n) {
        PyErr_SetString(PyExc_RuntimeError, "invalid default value");
        return NULL;
    }
    if (is_float) {
        PyObject *u = PyUnicode_FromString(num);
        PyObject *f = u ? PyFloat_FromString(u) : NULL;
        Py_XDECREF(u);
        return f;
    }
    return PyLong_FromString(num, NULL, 10);
}

static PyObject *ds_value(tn_dscan *d)
{
    ds_ws(d);
    if (*d->s != '[')
        return ds_scalar(d);
    d->s++;
    PyObject *list = PyList_New(0);
    if (!list)
        return NULL;
    ds_ws(d);
    if (*d->s == ']') {
        d->s++;
        return list;
    }
    for (;;) {
        PyObject *v = ds_scalar(d);
        if (!v || PyList_Append(list, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(list);
            return NULL;
        }
        Py_DECREF(v);
        ds_ws(d);
        if (*d->s == ',') {
            d->s++;
            continue;
        }
        if (*d->s == ']')
            d->s++;
        return list;
    }
}

static PyObject *to_float_if_int(PyObject *v /* stolen */)
{
    if (v && PyLong_Check(v) && !PyBool_Check(v)) {
        PyObject *f = PyNumber_Float(v);
        Py_DECREF(v);
        return f;
    }
    return v;
}

static PyObject *default_value(const tn_arg *a)
{
    tn_dscan d = {a->default_text, a->type};
    PyObject *v = ds_value(&d);
    if (!v)
        return NULL;
    if (v == Py_None)
        return v;
    if (a->is_list && !a->optional && !PyList_Check(v)) {
        int n = a->list_size > 0 ? a->list_size : 1;
        PyObject *list = PyList_New(n);
        if (!list) {
            Py_DECREF(v);
            return NULL;
        }
        for (int i = 0; i < n; i++) {
            Py_INCREF(v);
            PyList_SetItem(list, i, v);
        }
        Py_DECREF(v);
        v = list;
    }
    if (a->type == TN_TYPE_FLOAT && !a->optional && !a->elem_optional) {
        if (PyList_Check(v)) {
            Py_ssize_t n = PyList_Size(v);
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *e = PyList_GetItem(v, i);
                Py_INCREF(e);
                e = to_float_if_int(e);
                if (!e || PyList_SetItem(v, i, e) < 0) {
                    Py_DECREF(v);
                    return NULL;
                }
            }
        } else {
            v = to_float_if_int(v);
        }
    }
    return v;
}

/* ---- printing like upstream ---- */

static void put_double(tn_buf *b, double x)
{
    if (isfinite(x) && x == floor(x) && fabs(x) < 9.2233720368547758e18)
        bput(b, "%lld.", (long long)x);
    else
        bput(b, "%.17g", x);
}

static int put_value(tn_buf *b, PyObject *v, bool collapse_ints)
{
    if (v == Py_None) {
        bput(b, "None");
    } else if (PyBool_Check(v)) {
        bput(b, v == Py_True ? "True" : "False");
    } else if (PyLong_Check(v)) {
        long long x = PyLong_AsLongLong(v);
        if (x == -1 && PyErr_Occurred())
            return -1;
        bput(b, "%lld", x);
    } else if (PyFloat_Check(v)) {
        put_double(b, PyFloat_AsDouble(v));
    } else if (PyUnicode_Check(v)) {
        Py_ssize_t n;
        const char *s = PyUnicode_AsUTF8AndSize(v, &n);
        if (!s)
            return -1;
        bput(b, "\"");
        for (Py_ssize_t i = 0; i < n; i++) {
            char c = s[i];
            switch (c) {
            case '"': bput(b, "\\\""); break;
            case '\'': bput(b, "\\'"); break;
            case '\\': bput(b, "\\\\"); break;
            case '\n': bput(b, "\\n"); break;
            case '\t': bput(b, "\\t"); break;
            default: bput(b, "%c", c);
            }
        }
        bput(b, "\"");
    } else if (PyList_Check(v)) {
        Py_ssize_t n = PyList_Size(v);
        if (collapse_ints && n > 1) {
            PyObject *first = PyList_GetItem(v, 0);
            bool same = PyLong_Check(first);
            for (Py_ssize_t i = 1; i < n && same; i++) {
                int r = PyObject_RichCompareBool(first, PyList_GetItem(v, i), Py_EQ);
                if (r < 0)
                    return -1;
                same = r;
            }
            if (same)
                return put_value(b, first, false);
        }
        bput(b, "[");
        for (Py_ssize_t i = 0; i < n; i++) {
            if (i)
                bput(b, ", ");
            if (put_value(b, PyList_GetItem(v, i), false) < 0)
                return -1;
        }
        bput(b, "]");
    } else {
        PyObject *s = PyObject_Str(v);
        const char *u = s ? PyUnicode_AsUTF8AndSize(s, NULL) : NULL;
        if (!u) {
            Py_XDECREF(s);
            return -1;
        }
        bput(b, "%s", u);
        Py_DECREF(s);
    }
    return 0;
}

static void put_alias(tn_buf *b, const tn_arg *a)
{
    bput(b, "(%s%s", a->alias_before, a->is_write ? "!" : "");
    if (a->alias_after && strcmp(a->alias_after, a->alias_before))
        bput(b, " -> %s", a->alias_after);
    bput(b, ")");
}

static int put_arg(tn_buf *b, const tn_arg *a, PyObject *dflt)
{
    bput(b, "%s", a->type == TN_TYPE_DEVICEINDEX ? "int" : tn_type_names[a->type]);
    if (a->is_list) {
        if (a->elem_optional)
            bput(b, "?");
        if (a->alias_before && a->alias_on_elem)
            put_alias(b, a);
        if (a->list_size >= 0)
            bput(b, "[%d]", a->list_size);
        else
            bput(b, a->nested_list ? "[][]" : "[]");
        if (a->alias_before && !a->alias_on_elem)
            put_alias(b, a);
    } else if (a->alias_before) {
        put_alias(b, a);
    }
    if (a->optional)
        bput(b, "?");
    if (a->name)
        bput(b, " %s", a->name);
    if (dflt) {
        bput(b, "=");
        bool collapse = a->is_list && !a->optional && !a->elem_optional &&
                        (a->type == TN_TYPE_INT || a->type == TN_TYPE_DEVICEINDEX);
        if (put_value(b, dflt, collapse) < 0)
            return -1;
    }
    return 0;
}

/* ---- Argument ---- */

static void arg_dealloc(PyObject *self)
{
    tn_arg_obj *a = (tn_arg_obj *)self;
    Py_CLEAR(a->name);
    Py_CLEAR(a->type);
    Py_CLEAR(a->real_type);
    Py_CLEAR(a->default_value);
    Py_CLEAR(a->N);
    Py_CLEAR(a->alias_info);
    generic_free(self);
}

static PyObject *arg_has_default(PyObject *self, PyObject *unused)
{
    (void)unused;
    return PyBool_FromLong(((tn_arg_obj *)self)->has_default);
}

static PyMethodDef arg_methods[] = {
    {"has_default_value", arg_has_default, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef arg_members[] = {
    {"name", T_OBJECT, offsetof(tn_arg_obj, name), READONLY, NULL},
    {"type", T_OBJECT, offsetof(tn_arg_obj, type), READONLY, NULL},
    {"real_type", T_OBJECT, offsetof(tn_arg_obj, real_type), READONLY, NULL},
    {"default_value", T_OBJECT, offsetof(tn_arg_obj, default_value), READONLY, NULL},
    {"N", T_OBJECT, offsetof(tn_arg_obj, N), READONLY, NULL},
    {"alias_info", T_OBJECT, offsetof(tn_arg_obj, alias_info), READONLY, NULL},
    {"kwarg_only", T_BOOL, offsetof(tn_arg_obj, kwarg_only), READONLY, NULL},
    {"is_out", T_BOOL, offsetof(tn_arg_obj, is_out), READONLY, NULL},
    {"is_write", T_BOOL, offsetof(tn_arg_obj, is_write), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyObject *arg_new(const tn_arg *a, bool is_ret)
{
    tn_arg_obj *o = PyObject_New(tn_arg_obj, g_arg_type);
    if (!o)
        return NULL;
    o->name = o->type = o->real_type = o->default_value = o->N = o->alias_info = NULL;
    o->kwarg_only = a->kwarg_only;
    o->has_default = !is_ret && a->default_text != NULL;
    o->is_write = a->alias_before && a->is_write;
    o->is_out = o->is_write && a->kwarg_only && !is_ret;
    o->name = PyUnicode_FromString(a->name ? a->name : "");
    o->type = arg_type_obj(a, false);
    o->real_type = o->type ? arg_type_obj(a, true) : NULL;
    o->alias_info = o->real_type ? alias_new(a) : NULL;
    if (o->alias_info) {
        if (a->is_list && a->list_size >= 0)
            o->N = PyLong_FromLong(a->list_size);
        else
            o->N = Py_NewRef(Py_None);
    }
    if (o->N) {
        if (o->has_default)
            o->default_value = default_value(a);
        else
            o->default_value = Py_NewRef(Py_None);
    }
    if (!o->name || !o->default_value) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

/* ---- FunctionSchema ---- */

static void schema_dealloc(PyObject *self)
{
    tn_schema_obj *s = (tn_schema_obj *)self;
    Py_CLEAR(s->name);
    Py_CLEAR(s->overload_name);
    Py_CLEAR(s->arguments);
    Py_CLEAR(s->returns);
    Py_CLEAR(s->text);
    Py_CLEAR(s->dict);
    generic_free(self);
}

static PyObject *schema_str(PyObject *self)
{
    tn_schema_obj *s = (tn_schema_obj *)self;
    if (!s->text) return PyUnicode_FromString("<uninitialized FunctionSchema>");
    return Py_NewRef(s->text);
}

/* FunctionSchema(name, overload_name, arguments, returns, is_vararg, is_varret), as upstream's
 * constructor (used by Python subclasses such as torch._higher_order_ops.schema.HopSchema). The
 * text is rebuilt from the parts. */
static int schema_init(PyObject *self, PyObject *args, PyObject *kw)
{
    tn_schema_obj *s = (tn_schema_obj *)self;
    PyObject *name, *ov, *arguments, *returns;
    int vararg, varret;
    if (!PyArg_ParseTuple(args, "UUOOpp:FunctionSchema", &name, &ov, &arguments, &returns, &vararg, &varret))
        return -1;
    PyObject *at = PySequence_Tuple(arguments), *rt = at ? PySequence_Tuple(returns) : NULL;
    if (!rt) { Py_XDECREF(at); return -1; }
    PyObject *sep = PyUnicode_FromString(", ");
    PyObject *astr = PyList_New(0), *rstr = PyList_New(0);
    for (Py_ssize_t i = 0; astr && i < PyTuple_Size(at); i++) {
        PyObject *x = PyObject_Str(PyTuple_GetItem(at, i));
        if (!x || PyList_Append(astr, x) < 0) Py_CLEAR(astr);
        Py_XDECREF(x);
    }
    for (Py_ssize_t i = 0; rstr && i < PyTuple_Size(rt); i++) {
        PyObject *x = PyObject_Str(PyTuple_GetItem(rt, i));
        if (!x || PyList_Append(rstr, x) < 0) Py_CLEAR(rstr);
        Py_XDECREF(x);
    }
    PyObject *aj = (sep && astr) ? PyUnicode_Join(sep, astr) : NULL;
    PyObject *rj = (sep && rstr) ? PyUnicode_Join(sep, rstr) : NULL;
    PyObject *text = (aj && rj) ? PyUnicode_FromFormat(PyTuple_Size(rt) == 1 ? "%U%s%U(%U) -> %U" : "%U%s%U(%U) -> (%U)",
                                                       name, PyUnicode_GetLength(ov) ? "." : "", ov, aj, rj) : NULL;
    Py_XDECREF(sep); Py_XDECREF(astr); Py_XDECREF(rstr); Py_XDECREF(aj); Py_XDECREF(rj);
    if (!text) { Py_DECREF(at); Py_DECREF(rt); return -1; }
    Py_XSETREF(s->name, Py_NewRef(name));
    Py_XSETREF(s->overload_name, Py_NewRef(ov));
    Py_XSETREF(s->arguments, at);
    Py_XSETREF(s->returns, rt);
    Py_XSETREF(s->text, text);
    s->is_vararg = (char)vararg;
    s->is_varret = (char)varret;
    return 0;
}

static Py_hash_t schema_hash(PyObject *self)
{
    return PyObject_Hash(((tn_schema_obj *)self)->text);
}

static PyObject *schema_richcompare(PyObject *a, PyObject *b, int op)
{
    if ((op != Py_EQ && op != Py_NE) || !PyObject_TypeCheck(b, g_schema_type))
        Py_RETURN_NOTIMPLEMENTED;
    return PyObject_RichCompare(((tn_schema_obj *)a)->text, ((tn_schema_obj *)b)->text, op);
}

static PyObject *schema_get_arguments(PyObject *self, void *unused)
{
    (void)unused;
    PyObject *a = ((tn_schema_obj *)self)->arguments;
    return a ? PySequence_List(a) : PyList_New(0);
}

static PyObject *schema_get_returns(PyObject *self, void *unused)
{
    (void)unused;
    PyObject *r = ((tn_schema_obj *)self)->returns;
    return r ? PySequence_List(r) : PyList_New(0);
}

static PyObject *schema_is_view_op(PyObject *self, PyObject *unused)
{
    (void)unused;
    PyObject *args = ((tn_schema_obj *)self)->arguments;
    if (!args) Py_RETURN_FALSE;
    Py_ssize_t n = PyTuple_Size(args);
    for (Py_ssize_t i = 0; i < n; i++) {
        tn_arg_obj *a = (tn_arg_obj *)PyTuple_GetItem(args, i);
        if (a->alias_info != Py_None && !((tn_alias_obj *)a->alias_info)->is_write)
            Py_RETURN_TRUE;
    }
    Py_RETURN_FALSE;
}

static PyGetSetDef schema_getset[] = {
    {"arguments", schema_get_arguments, NULL, NULL, NULL},
    {"returns", schema_get_returns, NULL, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyMemberDef schema_members[] = {
    {"name", T_OBJECT, offsetof(tn_schema_obj, name), READONLY, NULL},
    {"overload_name", T_OBJECT, offsetof(tn_schema_obj, overload_name), READONLY, NULL},
    {"is_mutable", T_BOOL, offsetof(tn_schema_obj, is_mutable), READONLY, NULL},
    {"__dictoffset__", T_PYSSIZET, offsetof(tn_schema_obj, dict), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyMethodDef schema_methods[] = {
    {"_is_view_op", schema_is_view_op, METH_NOARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static int schema_text(tn_buf *b, const tn_schema *s, PyObject *args)
{
    if (s->ns && s->ns[0])
        bput(b, "%s::", s->ns);
    bput(b, "%s", s->name);
    if (s->overload && s->overload[0])
        bput(b, ".%s", s->overload);
    bput(b, "(");
    bool kw = false;
    for (int i = 0; i < s->nargs; i++) {
        if (i)
            bput(b, ", ");
        if (s->args[i].kwarg_only && !kw) {
            kw = true;
            bput(b, "*, ");
        }
        tn_arg_obj *ao = (tn_arg_obj *)PyTuple_GetItem(args, i);
        if (put_arg(b, &s->args[i], ao->has_default ? ao->default_value : NULL) < 0)
            return -1;
    }
    if (s->is_vararg)
        bput(b, s->nargs ? ", ..." : "...");
    bput(b, ") -> ");
    if (s->nrets == 1 && !s->is_varret) {
        put_arg(b, &s->rets[0], NULL);
    } else if (s->nrets == 0 && s->is_varret) {
        bput(b, "...");
    } else {
        bput(b, "(");
        for (int i = 0; i < s->nrets; i++) {
            if (i)
                bput(b, ", ");
            put_arg(b, &s->rets[i], NULL);
        }
        if (s->is_varret)
            bput(b, ", ...");
        bput(b, ")");
    }
    return 0;
}

PyObject *tn_schema_to_python(const tn_schema *s)
{
    if (!g_schema_type) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: schema types are not initialised");
        return NULL;
    }
    PyObject *args = PyTuple_New(s->nargs), *rets = PyTuple_New(s->nrets);
    if (!args || !rets)
        goto fail;
    bool mutable_ = false;
    for (int i = 0; i < s->nargs; i++) {
        PyObject *a = arg_new(&s->args[i], false);
        if (!a)
            goto fail;
        PyTuple_SetItem(args, i, a);
        mutable_ |= s->args[i].alias_before && s->args[i].is_write;
    }
    for (int i = 0; i < s->nrets; i++) {
        PyObject *a = arg_new(&s->rets[i], true);
        if (!a)
            goto fail;
        PyTuple_SetItem(rets, i, a);
    }
    tn_buf b = {0};
    if (schema_text(&b, s, args) < 0 || b.oom) {
        free(b.p);
        if (!PyErr_Occurred())
            PyErr_NoMemory();
        goto fail;
    }
    PyObject *text = PyUnicode_FromStringAndSize(b.p, (Py_ssize_t)b.n);
    free(b.p);
    if (!text)
        goto fail;
    PyObject *name = s->ns && s->ns[0] ? PyUnicode_FromFormat("%s::%s", s->ns, s->name)
                                       : PyUnicode_FromString(s->name);
    PyObject *ov = PyUnicode_FromString(s->overload ? s->overload : "");
    tn_schema_obj *o = name && ov ? PyObject_New(tn_schema_obj, g_schema_type) : NULL;
    if (!o) {
        Py_XDECREF(name);
        Py_XDECREF(ov);
        Py_DECREF(text);
        goto fail;
    }
    o->dict = NULL;
    o->name = name;
    o->overload_name = ov;
    o->arguments = args;
    o->returns = rets;
    o->text = text;
    o->is_mutable = mutable_;
    o->is_vararg = s->is_vararg;
    o->is_varret = s->is_varret;
    return (PyObject *)o;
fail:
    Py_XDECREF(args);
    Py_XDECREF(rets);
    return NULL;
}

/* ---- parse_schema ---- */

static PyObject *py_parse_schema(PyObject *self, PyObject *arg)
{
    (void)self;
    if (!PyUnicode_Check(arg)) {
        PyErr_SetString(PyExc_TypeError, "parse_schema(): argument 'schema' must be str");
        return NULL;
    }
    const char *text = PyUnicode_AsUTF8AndSize(arg, NULL);
    if (!text)
        return NULL;
    tn_schema s;
    char err[1024];
    if (tn_schema_parse(text, &s, err, sizeof err) != 0) {
        PyErr_SetString(PyExc_RuntimeError, err);
        return NULL;
    }
    PyObject *r = tn_schema_to_python(&s);
    tn_schema_free(&s);
    return r;
}

static PyMethodDef parse_def = {"parse_schema", py_parse_schema, METH_O,
                                "parse_schema(schema: str) -> FunctionSchema"};

/* ---- init ---- */

static PyTypeObject *make_type(const char *name, int basicsize, PyType_Slot *slots,
                               PyTypeObject *base, unsigned flags)
{
    PyType_Spec spec = {name, basicsize, 0, Py_TPFLAGS_DEFAULT | flags, slots};
    PyObject *bases = base ? PyTuple_Pack(1, (PyObject *)base) : NULL;
    if (base && !bases)
        return NULL;
    PyObject *t = PyType_FromSpecWithBases(&spec, bases);
    Py_XDECREF(bases);
    return (PyTypeObject *)t;
}

static int add_if_absent(PyObject *module, const char *name, PyObject *obj)
{
    if (PyObject_HasAttrString(module, name))
        return 0;
    return PyModule_AddObjectRef(module, name, obj);
}

int tn_schema_types_init(PyObject *module)
{
    if (!g_type_base) {
        PyType_Slot base_slots[] = {
            {Py_tp_dealloc, (void *)type_dealloc},
            {Py_tp_str, (void *)type_str},
            {Py_tp_repr, (void *)type_str},
            {Py_tp_richcompare, (void *)type_richcompare},
            {Py_tp_hash, (void *)PyObject_HashNotImplemented},
            {Py_tp_methods, type_methods},
            {Py_tp_getset, type_getset},
            {0, NULL},
        };
        g_type_base = make_type("torch.Type", sizeof(tn_type_obj), base_slots, NULL,
                                Py_TPFLAGS_BASETYPE | Py_TPFLAGS_DISALLOW_INSTANTIATION);
        if (!g_type_base)
            return -1;
        static char names[K_COUNT][40];
        for (int k = 0; k < K_COUNT; k++) {
            snprintf(names[k], sizeof names[k], "torch.%s", kind_names[k]);
            PyType_Slot sub_slots[] = {
                {Py_tp_methods, (void *)container_methods},
                {Py_tp_new, (void *)container_new},
                {0, NULL},
            };
            if (k < K_OPTIONAL)
                sub_slots[0].slot = 0;
            g_kind_types[k] = make_type(names[k], sizeof(tn_type_obj), k < K_OPTIONAL ? sub_slots + 2 : sub_slots,
                                        g_type_base, k < K_OPTIONAL ? Py_TPFLAGS_DISALLOW_INSTANTIATION : 0);
            if (!g_kind_types[k])
                return -1;
        }
        PyType_Slot alias_slots[] = {
            {Py_tp_dealloc, (void *)alias_dealloc},
            {Py_tp_members, alias_members},
            {0, NULL},
        };
        g_alias_type = make_type("torch._C._AliasInfo", sizeof(tn_alias_obj), alias_slots, NULL,
                                 Py_TPFLAGS_DISALLOW_INSTANTIATION);
        PyType_Slot arg_slots[] = {
            {Py_tp_dealloc, (void *)arg_dealloc},
            {Py_tp_members, arg_members},
            {Py_tp_methods, arg_methods},
            {0, NULL},
        };
        g_arg_type = g_alias_type ? make_type("torch.Argument", sizeof(tn_arg_obj), arg_slots, NULL,
                                              Py_TPFLAGS_DISALLOW_INSTANTIATION)
                                  : NULL;
        PyType_Slot schema_slots[] = {
            {Py_tp_dealloc, (void *)schema_dealloc},
            {Py_tp_str, (void *)schema_str},
            {Py_tp_repr, (void *)schema_str},
            {Py_tp_hash, (void *)schema_hash},
            {Py_tp_richcompare, (void *)schema_richcompare},
            {Py_tp_members, schema_members},
            {Py_tp_getset, schema_getset},
            {Py_tp_methods, schema_methods},
            {Py_tp_init, (void *)schema_init},
            {Py_tp_new, (void *)PyType_GenericNew},
            {0, NULL},
        };
        g_schema_type = g_arg_type ? make_type("torch._C.FunctionSchema", sizeof(tn_schema_obj),
                                               schema_slots, NULL, Py_TPFLAGS_BASETYPE)
                                   : NULL;
        if (!g_schema_type)
            return -1;
    }
    if (PyModule_AddObjectRef(module, "FunctionSchema", (PyObject *)g_schema_type) < 0 ||
        PyModule_AddObjectRef(module, "Argument", (PyObject *)g_arg_type) < 0 ||
        PyModule_AddObjectRef(module, "_AliasInfo", (PyObject *)g_alias_type) < 0 ||
        add_if_absent(module, "Type", (PyObject *)g_type_base) < 0)
        return -1;
    /* upstream's torch._C has no ScalarTypeType, LayoutType, MemoryFormatType, GeneratorType,
     * StorageType or QSchemeType (its schemas type dtype/layout/memory_format as int); those
     * classes stay internal, so the torch namespace (which copies _C's public names) has none */
    for (int k = 0; k < K_COUNT; k++) {
        if (k == K_SCALARTYPE || k == K_LAYOUT || k == K_MEMFMT || k == K_GENERATOR || k == K_STORAGE || k == K_QSCHEME)
            continue;
        if (add_if_absent(module, kind_names[k], (PyObject *)g_kind_types[k]) < 0)
            return -1;
    }
    PyObject *modname = PyModule_GetNameObject(module);
    if (!modname)
        return -1;
    PyObject *fn = PyCFunction_NewEx(&parse_def, NULL, modname);
    Py_DECREF(modname);
    if (!fn)
        return -1;
    int rc = PyModule_AddObjectRef(module, "parse_schema", fn);
    Py_DECREF(fn);
    return rc;
}
