/* arg_errors.c — upstream's TypeError for a Python call that no overload takes.
 *
 * Our parser (functions.c, dispatch/args.c) matches calls against aten schemas. When nothing
 * matches, upstream's generated bindings word the error from their own signature strings
 * (torchgen's Python signatures, emitted per name into tn_pysigs_gen.h by tools/gen_pysigs.py):
 * a specific message when one signature is plausible ("add(): argument 'alpha' must be Number,
 * not str", "exp() takes 1 positional argument but 2 were given", ...), else "received an invalid
 * combination of arguments - got (...), but expected one of: ..." with each signature and why it
 * did not match. This file follows that procedure and its exact wording, quirks included
 * (docs/arg_errors.md): the list of signatures is parsed back by splitting on ", " (so "*" and
 * "name = default" become pseudo-arguments there), and keyword arguments are listed in the order
 * a libstdc++ std::unordered_map<std::string, ...> iterates them.
 *
 * tn_arg_error returns 1 with a TypeError set, or 0 when upstream would have accepted the call or
 * has no generated signatures for the name (hand-written bindings): the caller words it then. */
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include "python/common.h"
#include "python/arg_errors.h"
#include "core/dtype.h"

typedef struct { const char *key; int noarg; const char *sigs; } tn_pysig_entry;
#include "tn_pysigs_gen.h"

/* ---- one signature, parsed as upstream's FunctionSignature / FunctionParameter ---- */

enum {
    P_TENSOR, P_SCALAR, P_INT64, P_SYM_INT, P_DOUBLE, P_COMPLEX, P_TENSOR_LIST, P_INT_LIST, P_SYM_INT_LIST,
    P_FLOAT_LIST, P_GENERATOR, P_BOOL, P_STORAGE, P_PYOBJECT, P_SCALARTYPE, P_LAYOUT, P_MEMORY_FORMAT, P_QSCHEME,
    P_DEVICE, P_STREAM, P_STRING, P_DIMNAME, P_DIMNAME_LIST, P_SCALAR_LIST, P_DISPATCH_KEY_SET,
};

static const struct { const char *c; int t; } type_map[] = {
    {"Tensor", P_TENSOR}, {"Scalar", P_SCALAR}, {"int64_t", P_INT64}, {"SymInt", P_SYM_INT},
    {"double", P_DOUBLE}, {"complex", P_COMPLEX}, {"TensorList", P_TENSOR_LIST},
    {"c10::List<::std::optional<Tensor>>", P_TENSOR_LIST}, {"IntArrayRef", P_INT_LIST},
    {"SymIntArrayRef", P_SYM_INT_LIST}, {"ArrayRef<double>", P_FLOAT_LIST}, {"Generator", P_GENERATOR},
    {"bool", P_BOOL}, {"Storage", P_STORAGE}, {"PyObject*", P_PYOBJECT}, {"ScalarType", P_SCALARTYPE},
    {"Layout", P_LAYOUT}, {"MemoryFormat", P_MEMORY_FORMAT}, {"QScheme", P_QSCHEME}, {"Device", P_DEVICE},
    {"DeviceIndex", P_INT64}, {"Stream", P_STREAM}, {"std::string", P_STRING}, {"c10::string_view", P_STRING},
    {"std::string_view", P_STRING}, {"::std::string_view", P_STRING}, {"Dimname", P_DIMNAME},
    {"DimnameList", P_DIMNAME_LIST}, {"ScalarList", P_SCALAR_LIST}, {"DispatchKeySet", P_DISPATCH_KEY_SET},
};

/* FunctionParameter::type_name */
static const char *type_name(int t) {
    switch (t) {
    case P_TENSOR: return "Tensor";
    case P_SCALAR: return "Number";
    case P_INT64: case P_SYM_INT: return "int";
    case P_DOUBLE: return "float";
    case P_COMPLEX: return "complex";
    case P_TENSOR_LIST: return "tuple of Tensors";
    case P_INT_LIST: case P_SYM_INT_LIST: return "tuple of ints";
    case P_FLOAT_LIST: return "tuple of floats";
    case P_GENERATOR: return "torch.Generator";
    case P_BOOL: return "bool";
    case P_STORAGE: return "torch.Storage";
    case P_PYOBJECT: return "object";
    case P_SCALARTYPE: return "torch.dtype";
    case P_LAYOUT: return "torch.layout";
    case P_MEMORY_FORMAT: return "torch.memory_format";
    case P_QSCHEME: return "torch.qscheme";
    case P_DEVICE: return "torch.device";
    case P_STRING: return "str";
    case P_DIMNAME: return "name";
    case P_DIMNAME_LIST: return "tuple of names";
    case P_SCALAR_LIST: return "tuple of Scalars";
    default: return "DispatchKeySet";
    }
}

#define MAXP 48
typedef struct {
    int type, size;
    bool optional, allow_none, kwonly;
    char name[48], defv[48];
} param;

typedef struct {
    char name[64];
    param p[MAXP];
    int n, min_args, max_pos;
    bool hidden;
} signature;

/* "name(T a, T? b=None, *, T c=1)|deprecated" -> sig; -1 if malformed (never for generated text) */
static int parse_sig(const char *s, size_t len, signature *sig) {
    memset(sig, 0, sizeof *sig);
    const char *open = memchr(s, '(', len), *end = s + len;
    if (!open || (size_t)(open - s) >= sizeof sig->name) return -1;
    memcpy(sig->name, s, (size_t)(open - s));
    const char *close = NULL;
    for (const char *q = end; q > open; q--)
        if (q[-1] == ')') { close = q - 1; break; }
    if (!close) return -1;
    sig->hidden = (size_t)(end - close) > 1; /* "|deprecated" (the generated strings have no "|hidden") */
    bool kwonly = false;
    for (const char *q = open + 1; q < close;) {
        const char *e = q;
        while (e < close && !(e[0] == ',' && e[1] == ' ')) e++;
        if (e - q == 1 && *q == '*') {
            kwonly = true;
        } else {
            if (sig->n == MAXP) return -1;
            param *p = &sig->p[sig->n++];
            const char *sp = memchr(q, ' ', (size_t)(e - q));
            if (!sp) return -1;
            char type[64];
            size_t tl = (size_t)(sp - q);
            if (tl >= sizeof type) return -1;
            memcpy(type, q, tl);
            type[tl] = 0;
            char *qm = strchr(type, '?');
            if (qm) { p->allow_none = true; *qm = 0; }
            char *br = strchr(type, '[');
            if (br) { p->size = atoi(br + 1); *br = 0; }
            p->type = -1;
            for (size_t k = 0; k < sizeof type_map / sizeof *type_map; k++)
                if (!strcmp(type, type_map[k].c)) p->type = type_map[k].t;
            if (p->type < 0) return -1;
            const char *nm = sp + 1, *eq = memchr(nm, '=', (size_t)(e - nm));
            size_t nl = (size_t)((eq ? eq : e) - nm);
            if (nl >= sizeof p->name) return -1;
            memcpy(p->name, nm, nl);
            if (eq) {
                size_t dl = (size_t)(e - eq - 1);
                if (dl >= sizeof p->defv) return -1;
                memcpy(p->defv, eq + 1, dl);
                p->optional = true;
                if (!strcmp(p->defv, "None")) p->allow_none = true;
            }
            p->kwonly = kwonly;
            if (!p->optional) sig->min_args++;
            if (!kwonly) sig->max_pos++;
        }
        q = e < close ? e + 2 : close;
    }
    return 0;
}

/* FunctionSignature::toString: "(T a, T b = d, *, T c = d)" */
static void sig_to_string(const signature *sig, char *buf, size_t cap) {
    size_t k = 0;
    bool kw = false;
    k += (size_t)snprintf(buf + k, cap - k, "(");
    for (int i = 0; i < sig->n && k < cap; i++) {
        const param *p = &sig->p[i];
        if (i) k += (size_t)snprintf(buf + k, cap - k, ", ");
        if (k < cap && p->kwonly && !kw) { k += (size_t)snprintf(buf + k, cap - k, "*, "); kw = true; }
        if (k < cap) k += (size_t)snprintf(buf + k, cap - k, "%s %s", type_name(p->type), p->name);
        if (k < cap && p->optional) k += (size_t)snprintf(buf + k, cap - k, " = %s", p->defv);
    }
    if (k < cap) snprintf(buf + k, cap - k, ")");
}

/* ---- Python-side checks (FunctionParameter::check and the THPUtils_check* it calls) ---- */

/* Py_TYPE(o)->tp_name: a Python class's __name__; a C type's "module.name" (builtins: the name) */
static PyObject *tp_name(PyObject *o) {
    PyTypeObject *t = Py_TYPE(o);
    PyObject *name = PyObject_GetAttrString((PyObject *)t, "__name__");
    if (!name) return NULL;
    bool ours = t == tn_py.dtype_type || t == tn_py.device_type || t == tn_py.layout_type ||
                t == tn_py.memory_format_type || t == tn_py.generator_type || t == tn_py.size_type;
    if (!ours && (PyType_GetFlags(t) & Py_TPFLAGS_HEAPTYPE)) return name;
    PyObject *mod = PyObject_GetAttrString((PyObject *)t, "__module__");
    if (!mod) { PyErr_Clear(); return name; }
    PyObject *r = PyUnicode_Check(mod) && PyUnicode_CompareWithASCIIString(mod, "builtins")
                      ? PyUnicode_FromFormat("%U.%U", mod, name) : Py_NewRef(name);
    Py_DECREF(mod);
    Py_DECREF(name);
    return r;
}

/* check_has_torch_function: an object whose type overrides __torch_function__ (torch.Tensor's
 * own and the disabled implementation nn.Parameter uses do not count) */
static bool has_torch_function(PyObject *o) {
    if (Py_TYPE(o) == tn_py.tensor_class || Py_TYPE(o) == tn_py.TensorBase) return false;
    PyObject *tf = PyObject_GetAttrString((PyObject *)Py_TYPE(o), "__torch_function__");
    if (!tf) { PyErr_Clear(); return false; }
    PyObject *base = tn_py.tensor_class ? PyObject_GetAttrString((PyObject *)tn_py.tensor_class, "__torch_function__") : NULL;
    PyObject *disabled = PyObject_GetAttrString(tn_py.module, "_disabled_torch_function_impl");
    PyErr_Clear();
    bool r = tf != disabled && !(base && PyObject_RichCompareBool(tf, base, Py_EQ) > 0);
    PyErr_Clear();
    Py_DECREF(tf); Py_XDECREF(base); Py_XDECREF(disabled);
    return r;
}
static bool is_tensor(PyObject *o) { return PyObject_TypeCheck(o, tn_py.TensorBase) || has_torch_function(o); }
static bool check_long(PyObject *o) { return PyLong_Check(o) && !PyBool_Check(o); }
static bool check_double(PyObject *o) { return PyFloat_Check(o) || PyLong_Check(o); }
static bool check_scalar(PyObject *o) { return PyFloat_Check(o) || PyLong_Check(o) || PyComplex_Check(o); }
static bool check_string(PyObject *o) { return PyUnicode_Check(o) || PyBytes_Check(o); }
static bool is_instance_of(PyObject *o, const char *mod, const char *name) {
    PyObject *m = PyImport_ImportModule(mod);
    PyObject *t = m ? PyObject_GetAttrString(m, name) : NULL;
    int r = t ? PyObject_IsInstance(o, t) : 0;
    Py_XDECREF(m); Py_XDECREF(t);
    if (r < 0 || !t) PyErr_Clear();
    return r > 0;
}
/* A tensor's dim() and whether its dtype is integral, through its Python face (error path only). */
static int tensor_dim(PyObject *o) {
    PyObject *d = PyObject_CallMethod(o, "dim", NULL);
    long v = d ? PyLong_AsLong(d) : -1;
    Py_XDECREF(d);
    if (PyErr_Occurred()) PyErr_Clear();
    return (int)v;
}
static Py_ssize_t tensor_numel(PyObject *o) {
    PyObject *d = PyObject_CallMethod(o, "numel", NULL);
    Py_ssize_t v = d ? PyLong_AsSsize_t(d) : -1;
    Py_XDECREF(d);
    if (PyErr_Occurred()) PyErr_Clear();
    return v;
}
static bool tensor_integral(PyObject *o, bool include_bool) {
    PyObject *dt = PyObject_GetAttrString(o, "dtype");
    tn_dtype d;
    bool r = dt && tn_py_to_dtype(dt, &d) == 0 && tn_dtype_is_integral(d, include_bool);
    Py_XDECREF(dt);
    if (PyErr_Occurred()) PyErr_Clear();
    return r;
}
static bool tensor_requires_grad(PyObject *o) {
    PyObject *v = PyObject_GetAttrString(o, "requires_grad");
    int r = v ? PyObject_IsTrue(v) : 0;
    Py_XDECREF(v);
    if (r < 0 || !v) PyErr_Clear();
    return r > 0;
}
/* THPUtils_checkIndex: an int (not bool) or anything with __index__ */
static bool check_index(PyObject *o) {
    if (PyBool_Check(o)) return false;
    if (check_long(o)) return true;
    PyObject *i = PyNumber_Index(o);
    if (!i) { PyErr_Clear(); return false; }
    Py_DECREF(i);
    return true;
}
static bool is_int_or_symint(PyObject *o) {
    if (tn_py_is_symint(o)) return true;
    if (PyObject_TypeCheck(o, tn_py.TensorBase) && tensor_numel(o) == 1 && tensor_integral(o, true)) return true;
    return check_index(o);
}
static bool is_seq(PyObject *o) { return PyTuple_Check(o) || PyList_Check(o); }
/* *failed: the element that failed (upstream reports 0, the only one it looks at) */
static bool is_int_list(PyObject *o, int size, Py_ssize_t *failed) {
    if (is_seq(o)) {
        if (PySequence_Size(o) == 0) return true;
        PyObject *it = PySequence_GetItem(o, 0);
        bool ok = it && is_int_or_symint(it);
        Py_XDECREF(it);
        if (!ok && failed) *failed = 0;
        return ok;
    }
    return size > 0 && is_int_or_symint(o);
}

/* FunctionParameter::check. Returns 1 / 0, or -1 with the TypeError a Tensor list raises even
 * when the parser is only trying a signature. */
static int check(const param *p, PyObject *o, int argnum, bool numbers_as_tensors, Py_ssize_t *failed) {
    switch (p->type) {
    case P_TENSOR:
        return is_tensor(o) || (numbers_as_tensors && check_scalar(o));
    case P_SCALAR:
    case P_COMPLEX:
    case P_DOUBLE:
        if (p->type != P_DOUBLE && PyComplex_Check(o)) return 1;
        if (p->type == P_SCALAR && check_scalar(o)) return 1;
        if (check_double(o)) return 1;
        if (PyObject_TypeCheck(o, tn_py.TensorBase)) return !tensor_requires_grad(o) && tensor_dim(o) == 0;
        return tn_py_is_symint(o);
    case P_INT64:
        if (check_long(o)) return 1;
        if (PyObject_TypeCheck(o, tn_py.TensorBase))
            return tensor_integral(o, false) && !tensor_requires_grad(o) && tensor_dim(o) == 0;
        return tn_py_is_symint(o);
    case P_DIMNAME:
        return o == Py_None || PyUnicode_Check(o);
    case P_DIMNAME_LIST:
        if (is_seq(o)) {
            for (Py_ssize_t i = 0; i < PySequence_Size(o); i++) {
                PyObject *it = PySequence_GetItem(o, i);
                bool ok = it && (it == Py_None || PyUnicode_Check(it));
                Py_XDECREF(it);
                if (!ok) return 0;
            }
            return 1;
        }
        return p->size == 1 && (o == Py_None || PyUnicode_Check(o));
    case P_TENSOR_LIST:
        if (!is_seq(o)) return 0;
        for (Py_ssize_t i = 0; i < PySequence_Size(o); i++) {
            PyObject *it = PySequence_GetItem(o, i);
            if (!it) return -1;
            bool ok = is_tensor(it);
            if (!ok) {
                PyObject *tn = tp_name(it);
                if (tn) PyErr_Format(PyExc_TypeError, "expected Tensor as element %zd in argument %d, but got %U", i, argnum, tn);
                Py_XDECREF(tn);
            }
            Py_DECREF(it);
            if (!ok) return -1;
        }
        return 1;
    case P_FLOAT_LIST: {
        if (!is_seq(o)) return 0;
        if (PySequence_Size(o) == 0) return 1;
        PyObject *it = PySequence_GetItem(o, 0);
        bool ok = it && (check_double(it) || PyComplex_Check(it));
        Py_XDECREF(it);
        return ok;
    }
    case P_GENERATOR: return PyObject_TypeCheck(o, tn_py.generator_type);
    case P_BOOL: return PyBool_Check(o);
    case P_STORAGE: return is_instance_of(o, "torch", "UntypedStorage") || is_instance_of(o, "torch", "TypedStorage");
    case P_PYOBJECT: return 1;
    case P_SCALARTYPE:
        if (PyObject_TypeCheck(o, tn_py.dtype_type)) return 1;
        if (o == (PyObject *)&PyFloat_Type || o == (PyObject *)&PyLong_Type || o == (PyObject *)&PyBool_Type ||
            o == (PyObject *)&PyComplex_Type)
            return 1;
        return has_torch_function(o);
    case P_LAYOUT: return PyObject_TypeCheck(o, tn_py.layout_type);
    case P_MEMORY_FORMAT: return PyObject_TypeCheck(o, tn_py.memory_format_type);
    case P_QSCHEME: return is_instance_of(o, "torch", "qscheme");
    case P_DEVICE: return check_long(o) || check_string(o) || PyObject_TypeCheck(o, tn_py.device_type);
    case P_STREAM: return is_instance_of(o, "torch", "Stream");
    case P_STRING: return check_string(o);
    case P_SCALAR_LIST:
        if (!is_seq(o)) return 0;
        for (Py_ssize_t i = 0; i < PySequence_Size(o); i++) {
            PyObject *it = PySequence_GetItem(o, i);
            bool ok = it && check_scalar(it);
            Py_XDECREF(it);
            if (!ok) return 0;
        }
        return 1;
    case P_SYM_INT: return is_int_or_symint(o);
    case P_INT_LIST:
    case P_SYM_INT_LIST: return is_int_list(o, p->size, failed);
    default: return is_instance_of(o, "torch._C", "DispatchKeySet");
    }
}

/* names upstream's parser lets Python numbers bind to Tensor parameters for */
static bool numbers_as_tensors(const char *name) {
    static const char *const names[] = {"add", "add_", "div", "div_", "divide", "divide_", "mul", "mul_",
                                        "multiply", "multiply_", "sub", "sub_", "subtract", "subtract_",
                                        "true_divide", "true_divide_", "to", "_to_copy", "copy_", "copy",
                                        "floor_divide", "floor_divide_", "_conj"};
    for (size_t i = 0; i < sizeof names / sizeof *names; i++)
        if (!strcmp(name, names[i])) return true;
    return false;
}

/* NumPy spellings the parser also accepts for some keywords */
static PyObject *kw_lookup(PyObject *kw, const char *name) {
    PyObject *o = PyDict_GetItemString(kw, name);
    static const char *const alias[][4] = {{"dim", "axis"}, {"keepdim", "keepdims"}, {"input", "x", "a", "x1"}, {"other", "x2"}};
    for (size_t i = 0; !o && i < sizeof alias / sizeof *alias; i++)
        if (!strcmp(name, alias[i][0]))
            for (int k = 1; k < 4 && alias[i][k] && !o; k++) o = PyDict_GetItemString(kw, alias[i][k]);
    return o;
}

static void extra_args(const signature *s, Py_ssize_t nargs) {
    if (s->min_args != s->max_pos)
        PyErr_Format(PyExc_TypeError, "%s() takes from %d to %d positional arguments but %zd were given", s->name,
                     s->min_args, s->max_pos, nargs);
    else
        PyErr_Format(PyExc_TypeError, "%s() takes %d positional argument%s but %zd %s given", s->name, s->max_pos,
                     s->max_pos == 1 ? "" : "s", nargs, nargs == 1 ? "was" : "were");
}

static void missing_args(const signature *s, int idx) {
    char buf[512];
    size_t k = 0;
    int missing = 0;
    buf[0] = 0;
    for (int i = idx; i < s->n; i++)
        if (!s->p[i].optional && k < sizeof buf)
            k += (size_t)snprintf(buf + k, sizeof buf - k, "%s\"%s\"", missing++ ? ", " : "", s->p[i].name);
    /* upstream's plural is inverted: "missing 1 required positional arguments" */
    PyErr_Format(PyExc_TypeError, "%s() missing %d required positional argument%s: %s", s->name, missing,
                 missing == 1 ? "s" : "", buf);
}

static void extra_kwargs(const signature *s, PyObject *kw, Py_ssize_t nargs) {
    PyObject *key, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kw, &pos, &key, &val)) {
        if (!PyUnicode_Check(key)) { PyErr_SetString(PyExc_TypeError, "keywords must be strings"); return; }
        int idx = -1;
        for (int i = 0; i < s->n && idx < 0; i++)
            if (!PyUnicode_CompareWithASCIIString(key, s->p[i].name)) idx = i;
        if (idx < 0) { PyErr_Format(PyExc_TypeError, "%s() got an unexpected keyword argument '%U'", s->name, key); return; }
        if (idx < nargs) { PyErr_Format(PyExc_TypeError, "%s() got multiple values for argument '%U'", s->name, key); return; }
    }
    PyErr_SetString(PyExc_TypeError, "invalid keyword arguments");
}

/* FunctionSignature::parse. 1: upstream would take the call with this signature; 0: it would not
 * (with raise: a TypeError is set); -1: a TypeError is set (a Tensor list's element). */
static int sig_parse(const signature *s, PyObject *args, PyObject *kw, bool raise) {
    Py_ssize_t nargs = args ? PyTuple_Size(args) : 0, remaining = kw ? PyDict_Size(kw) : 0, arg_pos = 0;
    bool varargs_intlist = s->max_pos == 1 && (s->p[0].type == P_INT_LIST || s->p[0].type == P_SYM_INT_LIST);
    bool nat = numbers_as_tensors(s->name);
    if (nargs > s->max_pos && !varargs_intlist) {
        if (raise) extra_args(s, nargs);
        return 0;
    }
    for (int i = 0; i < s->n; i++) {
        const param *p = &s->p[i];
        PyObject *o = NULL;
        bool is_kwd = false;
        if (arg_pos < nargs) {
            if (p->kwonly) {
                if (raise) extra_args(s, nargs);
                return 0;
            }
            o = PyTuple_GetItem(args, arg_pos);
        } else if (kw) {
            o = kw_lookup(kw, p->name);
            is_kwd = true;
        }
        Py_ssize_t failed = -1;
        bool varargs_eligible = varargs_intlist && arg_pos == 0 && !is_kwd;
        int ok;
        if ((!o && p->optional) || (o == Py_None && p->allow_none)) {
            ok = 1;
        } else if (!o) {
            if (raise) missing_args(s, i);
            return 0;
        } else if ((ok = check(p, o, i, nat, &failed)) < 0) {
            return -1;
        } else if (!ok && varargs_eligible && is_int_list(args, p->size, NULL)) {
            arg_pos = nargs; /* the positional arguments are this list: view(2, 3) */
            continue;
        } else if (!ok && raise) {
            PyObject *tn = tp_name(o);
            if (!tn) return -1;
            if (is_kwd)
                PyErr_Format(PyExc_TypeError, "%s(): argument '%s' must be %s, not %U", s->name, p->name,
                             type_name(p->type), tn);
            else if (nargs > s->max_pos)   /* zeros(1.5, 2): no list in the varargs either (measured) */
                extra_args(s, nargs);
            else if (failed != -1 && is_seq(o)) {
                PyObject *el = PySequence_GetItem(o, failed);
                PyObject *etn = el ? tp_name(el) : NULL;
                if (etn)
                    PyErr_Format(PyExc_TypeError,
                                 "%s(): argument '%s' (position %zd) must be %s, but found element of type %U at pos %zd",
                                 s->name, p->name, arg_pos + 1, type_name(p->type), etn, failed);
                Py_XDECREF(el); Py_XDECREF(etn);
            } else {
                PyErr_Format(PyExc_TypeError, "%s(): argument '%s' (position %zd) must be %s, not %U", s->name, p->name,
                             arg_pos + 1, type_name(p->type), tn);
            }
            Py_DECREF(tn);
            return 0;
        }
        if (!ok) return 0;
        if (!is_kwd) arg_pos++;
        else if (o) remaining--;
    }
    if (arg_pos < nargs) { /* permute((0, 1), 5): a list given whole, then more positional values */
        if (raise) extra_args(s, nargs);
        return 0;
    }
    if (remaining > 0) {
        if (raise) extra_kwargs(s, kw, nargs);
        return 0;
    }
    return 1;
}

/* A signature upstream takes, with an int list whose later element is not an int: upstream fails
 * when it unpacks the list ("failed to unpack the object at pos N"). 1 with the error set, else 0. */
static int intlist_unpack_error(const signature *s, PyObject *args, PyObject *kw) {
    Py_ssize_t nargs = args ? PyTuple_Size(args) : 0, arg_pos = 0;
    for (int i = 0; i < s->n; i++) {
        const param *p = &s->p[i];
        PyObject *o = arg_pos < nargs ? PyTuple_GetItem(args, arg_pos) : kw ? kw_lookup(kw, p->name) : NULL;
        bool positional = arg_pos < nargs;
        if (positional) arg_pos++;
        if (!o || o == Py_None || (p->type != P_INT_LIST && p->type != P_SYM_INT_LIST)) continue;
        /* view(2, 'a'): the positional arguments are the list */
        PyObject *seq = is_seq(o) ? o : (positional && s->max_pos == 1 && nargs > 1) ? args : NULL;
        if (!seq) continue;
        for (Py_ssize_t k = 0; k < PySequence_Size(seq); k++) {
            PyObject *it = PySequence_GetItem(seq, k);
            bool ok = it && is_int_or_symint(it);
            if (!ok && it) {
                PyObject *tn = tp_name(it);
                if (tn)
                    PyErr_Format(PyExc_TypeError,
                                 "%s(): argument '%s' failed to unpack the object at pos %zd with error \"type must be "
                                 "tuple of ints,but got %U\"", s->name, p->name, k + 1, tn);
                Py_XDECREF(tn);
            }
            Py_XDECREF(it);
            if (!ok) return 1;
        }
    }
    return 0;
}

/* ---- format_invalid_args (torch/csrc/utils/invalid_arguments.cpp's procedure) ---- */

/* libstdc++'s std::hash<std::string> (_Hash_bytes, seed 0xc70f6907) */
static uint64_t shift_mix(uint64_t v) { return v ^ (v >> 47); }
static uint64_t hash_bytes(const char *b, size_t len) {
    const uint64_t mul = ((uint64_t)0xc6a4a793u << 32) + 0x5bd1e995u;
    size_t aligned = len & ~(size_t)7;
    uint64_t h = 0xc70f6907u ^ (len * mul);
    for (size_t i = 0; i < aligned; i += 8) {
        uint64_t d;
        memcpy(&d, b + i, 8);
        h ^= shift_mix(d * mul) * mul;
        h *= mul;
    }
    if (len & 7) {
        uint64_t d = 0;
        for (size_t n = len & 7; n-- > 0;) d = (d << 8) + (unsigned char)b[aligned + n];
        h ^= d;
        h *= mul;
    }
    h = shift_mix(h) * mul;
    return shift_mix(h);
}

/* The order in which a std::unordered_map<std::string, PyObject*> filled from kw (in its order)
 * iterates: libstdc++'s prime rehash policy and bucket-front insertion. order[] gets indices into
 * the dict's order. */
#define MAXKW 64
static int kw_order(PyObject *kw, PyObject **keys, int *order) {
    static const unsigned char fast[] = {2, 2, 2, 3, 5, 5, 7, 7, 11, 11, 11, 11, 13, 13};
    static const unsigned primes[] = {17, 19, 23, 29, 31, 37, 41, 43, 47, 53, 59, 61, 67, 71, 73, 79, 83, 89, 97, 103,
                                      109, 113, 127, 137, 139, 149, 157, 167, 179, 193, 199, 211, 227, 241, 257};
    int n = 0;
    uint64_t hash[MAXKW];
    PyObject *key, *val;
    Py_ssize_t pos = 0;
    while (PyDict_Next(kw, &pos, &key, &val) && n < MAXKW) {
        Py_ssize_t len;
        const char *s = PyUnicode_Check(key) ? PyUnicode_AsUTF8AndSize(key, &len) : NULL;
        if (!s) { PyErr_Clear(); s = ""; len = 0; }
        keys[n] = key;
        hash[n++] = hash_bytes(s, (size_t)len);
    }
    /* the list as a sequence of indices; a node goes to the front of its bucket's run, or to the
     * list's front when its bucket is empty */
    int list[MAXKW], len = 0;
    unsigned nb = 1, next_resize = 0;
    for (int k = 0; k < n; k++) {
        if ((unsigned)len + 1 > next_resize) {
            unsigned min_b = (unsigned)len + 1 > (next_resize ? 0u : 11u) ? (unsigned)len + 1 : 11u;
            if (min_b >= nb) {
                unsigned want = min_b + 1 > nb * 2 ? min_b + 1 : nb * 2;
                if (want < sizeof fast) nb = fast[want];
                else {
                    nb = primes[sizeof primes / sizeof *primes - 1];
                    for (size_t i = 0; i < sizeof primes / sizeof *primes; i++)
                        if (primes[i] >= want) { nb = primes[i]; break; }
                }
                next_resize = nb;
                int old[MAXKW];
                memcpy(old, list, sizeof(int) * (size_t)len);
                int m = 0;
                for (int i = 0; i < len; i++) {
                    int at = 0;
                    bool found = false;
                    for (int j = 0; j < m && !found; j++)
                        if (hash[list[j]] % nb == hash[old[i]] % nb) at = j, found = true;
                    memmove(list + at + 1, list + at, sizeof(int) * (size_t)(m - at));
                    list[at] = old[i];
                    m++;
                }
            } else {
                next_resize = nb;
            }
        }
        int at = 0;
        for (int j = 0; j < len; j++)
            if (hash[list[j]] % nb == hash[k] % nb) { at = j; break; }
        memmove(list + at + 1, list + at, sizeof(int) * (size_t)(len - at));
        list[at] = k;
        len++;
    }
    memcpy(order, list, sizeof(int) * (size_t)len);
    return n;
}

/* a growing string for the message */
typedef struct { char *b; size_t n, cap; } sbuf;
static void put(sbuf *s, const char *t) {
    size_t l = strlen(t);
    if (s->n + l + 1 > s->cap) {
        size_t cap = (s->n + l + 1) * 2;
        char *nb = realloc(s->b, cap);
        if (!nb) return;
        s->b = nb, s->cap = cap;
    }
    memcpy(s->b + s->n, t, l + 1);
    s->n += l;
}
static void put_obj(sbuf *s, PyObject *u) {
    const char *t = u ? PyUnicode_AsUTF8AndSize(u, NULL) : NULL;
    put(s, t ? t : "?");
    if (!t) PyErr_Clear();
}
static void put_tp(sbuf *s, PyObject *o) {
    PyObject *tn = tp_name(o);
    put_obj(s, tn);
    Py_XDECREF(tn);
}

/* an option as invalid_arguments.cpp's _parseOption reads the printed signature back: split on
 * ", ", each piece "type... name" at its last space ("*" and "T x = d" included as they are) */
typedef struct { char name[48]; char type[80]; } opt_arg;
typedef struct { opt_arg a[MAXP + 1]; int n; } option;

static void parse_option(const char *str, option *op) {
    op->n = 0;
    size_t l = strlen(str);
    const char *q = str + 1, *end = str + l - 1; /* inside the parentheses */
    if (end <= q) { /* "()": one empty piece */
        op->a[0].name[0] = op->a[0].type[0] = 0;
        op->n = 1;
        return;
    }
    while (q <= end && op->n < MAXP + 1) {
        const char *e = q;
        while (e < end && !(e[0] == ',' && e[1] == ' ')) e++;
        opt_arg *a = &op->a[op->n++];
        const char *sp = NULL;
        for (const char *c = q; c < e; c++) if (*c == ' ') sp = c;
        size_t tl = sp ? (size_t)(sp - q) : (size_t)(e - q), nl = sp ? (size_t)(e - sp - 1) : (size_t)(e - q);
        if (tl >= sizeof a->type) tl = sizeof a->type - 1;
        if (nl >= sizeof a->name) nl = sizeof a->name - 1;
        memcpy(a->type, q, tl); a->type[tl] = 0;
        memcpy(a->name, sp ? sp + 1 : q, nl); a->name[nl] = 0;
        if (e >= end) break;
        q = e + 2;
    }
}

/* SimpleType / MultiType matching on tp_name */
static bool opt_matches(const opt_arg *a, PyObject *o) {
    PyObject *tn = tp_name(o);
    const char *t = tn ? PyUnicode_AsUTF8AndSize(tn, NULL) : NULL;
    bool r = false;
    if (t) {
        if (!strcmp(a->type, "float")) r = !strcmp(t, "float") || !strcmp(t, "int") || !strcmp(t, "long");
        else if (!strcmp(a->type, "int")) r = !strcmp(t, "int") || !strcmp(t, "long");
        else r = !strcmp(t, a->type);
    }
    if (!t) PyErr_Clear();
    Py_XDECREF(tn);
    return r;
}

typedef struct {
    PyObject *args;
    PyObject *keys[MAXKW];
    int order[MAXKW], nkw;
    PyObject *kw;
    bool tty;
} given;

static PyObject *kw_at(const given *g, const char *name) {
    return g->kw ? PyDict_GetItemString(g->kw, name) : NULL;
}

static void arg_desc(sbuf *s, const given *g) {
    Py_ssize_t n = PyTuple_Size(g->args);
    put(s, "(");
    for (Py_ssize_t i = 0; i < n; i++) { put_tp(s, PyTuple_GetItem(g->args, i)); put(s, ", "); }
    for (int k = 0; k < g->nkw; k++) {
        PyObject *key = g->keys[g->order[k]];
        put_obj(s, key); put(s, "=");
        put_tp(s, PyDict_GetItem(g->kw, key)); put(s, ", ");
    }
    if (n > 0) s->n -= 2, s->b[s->n] = 0;
    put(s, ")");
}

/* 0, or -1 where upstream's kwargs.at() would throw (a keyword not at the option's position) */
static int formatted_arg_desc(sbuf *s, const option *op, const given *g) {
    const char *red = g->tty ? "\33[31;1m" : "!", *reset_red = g->tty ? "\33[0m" : "!";
    const char *green = g->tty ? "\33[32;1m" : "", *reset_green = g->tty ? "\33[0m" : "";
    Py_ssize_t nargs = PyTuple_Size(g->args), num = nargs + g->nkw;
    put(s, "(");
    for (Py_ssize_t i = 0; i < num; i++) {
        bool is_kwarg = i >= nargs;
        PyObject *o = is_kwarg ? (i < op->n ? kw_at(g, op->a[i].name) : NULL) : PyTuple_GetItem(g->args, i);
        if (!o) return -1;
        bool match = i < op->n && opt_matches(&op->a[i], o);
        put(s, match ? green : red);
        if (is_kwarg) { put(s, op->a[i].name); put(s, "="); }
        if (is_seq(o)) {
            bool tuple = PyTuple_Check(o);
            put_tp(s, o);
            put(s, tuple ? " of (" : " of [");
            Py_ssize_t m = PySequence_Size(o);
            for (Py_ssize_t k = 0; k < m; k++) {
                if (k) put(s, ", ");
                PyObject *it = PySequence_GetItem(o, k);
                if (it) put_tp(s, it);
                Py_XDECREF(it);
            }
            put(s, tuple ? (m == 1 ? ",)" : ")") : "]");
        } else {
            put_tp(s, o);
        }
        put(s, match ? reset_green : reset_red);
        put(s, ", ");
    }
    if (nargs > 0) s->n -= 2, s->b[s->n] = 0;
    put(s, ")");
    return 0;
}

static bool argcount_match(const option *op, const given *g) {
    Py_ssize_t got = PyTuple_Size(g->args) + g->nkw;
    return got == op->n; /* the generated signatures have neither "..." nor '#' */
}

/* keywords not among the option's last len(kwargs) names, in map order */
static void unmatched_kwargs(sbuf *s, const option *op, const given *g, int *count) {
    int start = op->n - g->nkw;
    if (start < 0) start = 0;
    *count = 0;
    for (int k = 0; k < g->nkw; k++) {
        PyObject *key = g->keys[g->order[k]];
        bool found = false;
        for (int i = start; i < op->n && !found; i++) found = !PyUnicode_CompareWithASCIIString(key, op->a[i].name);
        if (!found) { put_obj(s, key); put(s, ", "); (*count)++; }
    }
    if (*count) s->n -= 2, s->b[s->n] = 0;
}

static int format_invalid_args(const char *fname, const signature *sigs, int nsigs, PyObject *args, PyObject *kw) {
    given g = {.args = args, .kw = kw, .tty = isatty(1) && isatty(2)};
    g.nkw = kw ? kw_order(kw, g.keys, g.order) : 0;
    sbuf s = {0};
    put(&s, fname);
    put(&s, "() received an invalid combination of arguments - ");
    char str[2048];
    int visible = 0, last = -1;
    for (int i = 0; i < nsigs; i++) if (!sigs[i].hidden) visible++, last = i;
    int rc = 0;
    if (visible == 1) {
        option op;
        sig_to_string(&sigs[last], str, sizeof str);
        parse_option(str, &op);
        sbuf um = {0};
        int count = 0;
        if (g.nkw) unmatched_kwargs(&um, &op, &g, &count);
        if (count) {
            put(&s, "got unrecognized keyword arguments: ");
            put(&s, um.b);
        } else {
            put(&s, "got ");
            if (argcount_match(&op, &g)) rc = formatted_arg_desc(&s, &op, &g);
            else arg_desc(&s, &g);
            put(&s, ", but expected ");
            put(&s, str);
        }
        free(um.b);
    } else {
        put(&s, "got ");
        arg_desc(&s, &g);
        put(&s, ", but expected one of:\n");
        for (int i = 0; i < nsigs && !rc; i++) {
            if (sigs[i].hidden) continue;
            option op;
            sig_to_string(&sigs[i], str, sizeof str);
            parse_option(str, &op);
            put(&s, " * ");
            put(&s, str);
            put(&s, "\n");
            if (!argcount_match(&op, &g)) continue;
            sbuf um = {0};
            int count = 0;
            if (g.nkw) unmatched_kwargs(&um, &op, &g, &count);
            if (count) {
                put(&s, "      didn't match because some of the keywords were incorrect: ");
                put(&s, um.b);
                put(&s, "\n");
            } else {
                put(&s, "      didn't match because some of the arguments have invalid types: ");
                rc = formatted_arg_desc(&s, &op, &g);
                put(&s, "\n");
            }
            free(um.b);
        }
    }
    if (!rc && s.b) PyErr_SetString(PyExc_TypeError, s.b);
    free(s.b);
    return rc ? 0 : 1;
}

static int cmp_entry(const void *k, const void *e) { return strcmp((const char *)k, ((const tn_pysig_entry *)e)->key); }

static const tn_pysig_entry *find(const char *name, bool method) {
    char key[128];
    snprintf(key, sizeof key, "%c:%s", method ? 'm' : 'f', name);
    return bsearch(key, tn_pysigs, sizeof tn_pysigs / sizeof *tn_pysigs, sizeof *tn_pysigs, cmp_entry);
}

bool tn_arg_noargs(const char *name) {
    const tn_pysig_entry *e = find(name, true);
    return e && e->noarg;
}

int tn_arg_error(const char *name, bool method, PyObject *args, PyObject *kw) {
    const tn_pysig_entry *e = find(name, method);
    if (!e) return 0;
    PyObject *empty = NULL;
    if (!args) args = empty = PyTuple_New(0);
    if (!args) return 1;
    if (kw && !PyDict_Size(kw)) kw = NULL;
    int rc = 0;
    if (e->noarg && method) {
        /* a METH_NOARGS method: CPython's own wording */
        if (kw) PyErr_Format(PyExc_TypeError, "TensorBase.%s() takes no keyword arguments", name);
        else PyErr_Format(PyExc_TypeError, "TensorBase.%s() takes no arguments (%zd given)", name, PyTuple_Size(args));
        rc = 1;
        goto done;
    }
    signature *sigs = PyMem_Calloc(32, sizeof *sigs);
    if (!sigs) { PyErr_NoMemory(); rc = 1; goto done; }
    int n = 0;
    for (const char *q = e->sigs; *q && n < 32;) {
        const char *nl = strchr(q, '\n');
        size_t l = nl ? (size_t)(nl - q) : strlen(q);
        if (parse_sig(q, l, &sigs[n]) == 0) n++;
        q += l + (nl ? 1 : 0);
    }
    Py_ssize_t nargs = PyTuple_Size(args), num = nargs + (kw ? PyDict_Size(kw) : 0);
    /* the parser's own pass: the first signature that takes the call */
    for (int i = 0; i < n && !rc; i++) {
        int r = sig_parse(&sigs[i], args, kw, false);
        if (r < 0) rc = 1;
        else if (r > 0) { rc = intlist_unpack_error(&sigs[i], args, kw); goto freed; }
    }
    if (!rc) {
        /* one signature, or one plausible by argument count: its specific error */
        int pick = n == 1 ? 0 : -1, plausible = 0;
        for (int i = 0; n > 1 && i < n; i++)
            if (num >= sigs[i].min_args && num <= sigs[i].n && !sigs[i].hidden) {
                if (plausible++ == 0) pick = i;
            }
        if (n > 1 && plausible != 1) pick = -1;
        if (pick >= 0) {
            sig_parse(&sigs[pick], args, kw, true);
            rc = PyErr_Occurred() != NULL;
        }
        if (!rc) rc = format_invalid_args(sigs[0].name, sigs, n, args, kw);
    }
freed:
    PyMem_Free(sigs);
done:
    Py_XDECREF(empty);
    return rc;
}
