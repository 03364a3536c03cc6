/* args.c — the argument parser: Python call arguments matched against one upstream schema.
 *
 * A name (torch.add) has several overloads; functions.c tries them in upstream's order and the
 * first that matches wins. Matching here is by Python type, the way upstream's bindings match:
 * Tensor takes tensors (and Python numbers where the op allows them, as wrapped numbers), Scalar
 * takes numbers, int[] takes sequences of ints (or one int for a fixed-size list), and so on.
 * Defaults come from the schema text. Nothing here computes. */
#include "dispatch/args.h"

#include <stdlib.h>
#include <string.h>

#include "core/object.h"

static bool is_int_like(PyObject *o) {
    if (PyBool_Check(o)) return false;
    if (PyLong_Check(o)) return true;
    if (tn_py_is_tensor(o)) {
        tn_tensor *t = tn_tensor_of(o);
        return t->ndim == 0 && tn_dtype_is_integral(t->dtype, false);
    }
    if (PyFloat_Check(o) || PyComplex_Check(o) || PyUnicode_Check(o)) return false;
    return PyIndex_Check(o);
}

int64_t *tn_args_int_store(tn_args *a, Py_ssize_t n) {
    if (a->nints + n <= (Py_ssize_t)(sizeof a->ints / sizeof a->ints[0])) {
        int64_t *p = a->ints + a->nints;
        a->nints += (int)n;
        return p;
    }
    if (a->nheap == 4) return NULL;
    int64_t *p = malloc((size_t)(n ? n : 1) * sizeof(int64_t));
    if (p) a->heap[a->nheap++] = p;
    return p;
}

int tn_args_own(tn_args *a, PyObject *o) {
    if (a->nowned == TN_MAX_ARGS) { Py_DECREF(o); return -1; }
    a->owned[a->nowned++] = o;
    return 0;
}

void tn_args_release(tn_args *a) {
    for (int i = 0; i < a->nowned; i++) Py_DECREF(a->owned[i]);
    for (int i = 0; i < a->nheap; i++) free(a->heap[i]);
    a->nowned = a->nheap = a->nints = 0;
}

bool tn_value_is_number(const tn_value *v) {
    return v->tag == TN_V_INT || v->tag == TN_V_FLOAT || v->tag == TN_V_BOOL || v->tag == TN_V_COMPLEX;
}

double tn_value_as_double(const tn_value *v) {
    switch (v->tag) {
    case TN_V_INT: return v->uns ? (double)(uint64_t)v->u.i : (double)v->u.i;
    case TN_V_BOOL: return (double)v->u.i;
    case TN_V_FLOAT: return v->u.f;
    case TN_V_COMPLEX: return v->u.c.re;
    default: return 0;
    }
}

/* A Python number (or 0-dim tensor for Scalar) into a number value. 1 ok, 0 not a number, -1 error.
 * An int outside int64 is read as upstream reads a Scalar: as uint64, so below INT64_MIN and
 * from 2**64 on it raises the OverflowError of that conversion ("can't convert negative int to
 * unsigned", "int too big to convert"); in [2**63, 2**64) upstream makes an unsigned Scalar: we
 * hold it as a float64 when a floating tensor takes part (`float_peer`), else as an INT flagged
 * `uns` holding its bits (the int64 a cast wraps it to; Scalar::to<T>()'s overflow check,
 * tn_cr_check_scalar, and tn_cr_store read the flag). */
static int to_number(PyObject *o, tn_value *v, bool tensors_ok, bool float_peer) {
    if (PyBool_Check(o)) { v->tag = TN_V_BOOL; v->u.i = o == Py_True; return 1; }
    if (PyLong_Check(o)) {
        int overflow;
        long long x = PyLong_AsLongLongAndOverflow(o, &overflow);
        if (overflow) {
            unsigned long long u = PyLong_AsUnsignedLongLong(o);
            if (u == (unsigned long long)-1 && PyErr_Occurred()) return -1;   /* upstream's OverflowError */
            if (float_peer) { v->tag = TN_V_FLOAT; v->u.f = (double)u; return 1; }
            v->tag = TN_V_INT; v->u.i = (int64_t)(u - (1ULL << 63)) + INT64_MIN; v->uns = true;   /* its bits */
            return 1;
        }
        v->tag = TN_V_INT; v->u.i = x; return 1;
    }
    if (PyFloat_Check(o)) { v->tag = TN_V_FLOAT; v->u.f = PyFloat_AsDouble(o); return 1; }
    if (PyComplex_Check(o)) {
        v->tag = TN_V_COMPLEX;
        v->u.c.re = PyComplex_RealAsDouble(o);
        v->u.c.im = PyComplex_ImagAsDouble(o);
        return 1;
    }
    if (tensors_ok && tn_py_is_tensor(o) && tn_tensor_of(o)->ndim == 0) {
        PyObject *item = PyObject_CallMethod(o, "item", NULL);
        if (!item) return -1;
        int r = to_number(item, v, false, false);
        Py_DECREF(item);
        return r;
    }
    /* numpy scalars and other numbers */
    if (PyIndex_Check(o) && !tn_py_is_tensor(o)) {
        PyObject *i = PyNumber_Index(o);
        if (!i) return -1;
        int r = to_number(i, v, false, false);
        Py_DECREF(i);
        return r;
    }
    return 0;
}

/* An int that does not fit int64 where an int (list) is expected: the parse does not match and
 * remembers where (0: the int itself, k >= 1: element k of the list); tn_args_parse raises
 * upstream's error for the spelling. */
static _Thread_local int ovf_pos = -1;

static int int_overflowed(int pos) {
    if (!PyErr_ExceptionMatches(PyExc_OverflowError)) return -1;
    PyErr_Clear();
    ovf_pos = pos;
    return 0;
}

static int int_list(PyObject *o, const tn_arg *p, tn_args *a, tn_value *v) {
    if (is_int_like(o)) {
        if (p->list_size < 1) return 0;
        int64_t x = PyLong_AsLongLong(o);
        if (x == -1 && PyErr_Occurred()) return int_overflowed(0);   /* one int: unpacked as an int */
        int64_t *st = tn_args_int_store(a, p->list_size);
        if (!st) { PyErr_NoMemory(); return -1; }
        for (int i = 0; i < p->list_size; i++) st[i] = x;
        v->tag = TN_V_INTLIST; v->u.ints.v = st; v->u.ints.n = p->list_size;
        return 1;
    }
    if (!PyTuple_Check(o) && !PyList_Check(o)) return 0;
    Py_ssize_t n = PySequence_Size(o);
    int64_t *st = tn_args_int_store(a, n);
    if (!st) { PyErr_NoMemory(); return -1; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PySequence_GetItem(o, i);
        if (!e) return -1;
        if (!is_int_like(e)) { Py_DECREF(e); return 0; }
        st[i] = PyLong_AsLongLong(e);
        Py_DECREF(e);
        if (st[i] == -1 && PyErr_Occurred()) return int_overflowed((int)i + 1);
    }
    v->tag = TN_V_INTLIST; v->u.ints.v = st; v->u.ints.n = (int)n;
    return 1;
}


/* Convert Python object `o` for parameter p. 1 ok, 0 no match, -1 error. */
static int convert(PyObject *o, const tn_arg *p, bool numbers_as_tensors, bool tensors_as_scalars,
                   bool float_peer, tn_args *a, tn_value *v) {
    memset(v, 0, sizeof *v);
    if (o == Py_None && (p->optional || (p->is_list && p->type == TN_TYPE_TENSOR && p->elem_optional))) {
        v->tag = TN_V_NONE;
        return 1;
    }
    if (p->is_list) {
        switch (p->type) {
        case TN_TYPE_INT: case TN_TYPE_SYMINT:
            return int_list(o, p, a, v);
        case TN_TYPE_BOOL: {
            if (!PyTuple_Check(o) && !PyList_Check(o)) return 0;
            Py_ssize_t n = PySequence_Size(o);
            int64_t *st = tn_args_int_store(a, n);
            if (!st) { PyErr_NoMemory(); return -1; }
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *e = PySequence_GetItem(o, i);
                if (!e) return -1;
                bool ok = PyBool_Check(e);
                st[i] = e == Py_True;
                Py_DECREF(e);
                if (!ok) return 0;
            }
            v->tag = TN_V_BOOLLIST; v->u.ints.v = st; v->u.ints.n = (int)n;
            return 1;
        }
        case TN_TYPE_FLOAT: case TN_TYPE_SCALAR: {
            if (!PyTuple_Check(o) && !PyList_Check(o)) {
                if (p->type == TN_TYPE_FLOAT && p->list_size > 0 && (PyFloat_Check(o) || PyLong_Check(o))) {
                    double *st = (double *)tn_args_int_store(a, p->list_size);
                    if (!st) { PyErr_NoMemory(); return -1; }
                    for (int i = 0; i < p->list_size; i++) st[i] = PyFloat_AsDouble(o);
                    v->tag = TN_V_FLOATLIST; v->u.floats.v = st; v->u.floats.n = p->list_size;
                    return 1;
                }
                return 0;
            }
            Py_ssize_t n = PySequence_Size(o);
            bool sl = p->type == TN_TYPE_SCALAR;
            double *st = (double *)tn_args_int_store(a, sl ? 3 * n : n);
            if (!st) { PyErr_NoMemory(); return -1; }
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *e = PySequence_GetItem(o, i);
                if (!e) return -1;
                bool ok = (PyFloat_Check(e) || PyLong_Check(e) || (sl && PyComplex_Check(e))) &&
                          !(p->type == TN_TYPE_FLOAT && PyBool_Check(e));
                int64_t kind = TN_SL_FLOAT, bits = 0;
                if (ok && sl && PyComplex_Check(e)) {
                    kind = TN_SL_COMPLEX;
                    st[i] = PyComplex_RealAsDouble(e);
                    double im = PyComplex_ImagAsDouble(e);
                    memcpy(&bits, &im, 8);
                } else if (ok && sl && PyLong_Check(e)) {   /* ints and bools keep their exact value */
                    int ovf = 0;
                    bits = PyLong_AsLongLongAndOverflow(e, &ovf);
                    kind = PyBool_Check(e) ? TN_SL_BOOL : TN_SL_INT;
                    ok = !ovf;
                    st[i] = (double)bits;
                } else {
                    st[i] = ok ? PyFloat_AsDouble(e) : 0;
                    if (ok) memcpy(&bits, &st[i], 8);
                }
                Py_DECREF(e);
                if (!ok) return 0;
                if (sl) { memcpy(&st[n + i], &bits, 8); memcpy(&st[2 * n + i], &kind, 8); }
            }
            v->tag = sl ? TN_V_SCALARLIST : TN_V_FLOATLIST;
            v->u.floats.v = st; v->u.floats.n = (int)n;
            return 1;
        }
        case TN_TYPE_TENSOR: {
            if (!PyTuple_Check(o) && !PyList_Check(o)) return 0;
            Py_ssize_t n = PySequence_Size(o);
            for (Py_ssize_t i = 0; i < n; i++) {
                PyObject *e = PySequence_GetItem(o, i);
                if (!e) return -1;
                bool ok = tn_py_is_tensor(e) || (p->elem_optional && e == Py_None);
                Py_DECREF(e);
                if (!ok) return 0;
            }
            PyObject *tup = PySequence_Tuple(o);
            if (!tup || tn_args_own(a, tup) < 0) return -1;
            v->tag = TN_V_TENSORLIST; v->u.obj = tup;
            return 1;
        }
        default:
            return 0;
        }
    }
    switch (p->type) {
    case TN_TYPE_TENSOR:
        if (tn_py_is_tensor(o)) { v->tag = TN_V_TENSOR; v->u.obj = o; return 1; }
        if (numbers_as_tensors && (PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o))) {
            /* an int in [2**63, 2**64) is upstream's unsigned Scalar, a uint64 wrapped number
             * (tn_tensor_from_number); beyond it upstream's OverflowError */
            int overflow;
            if (PyLong_Check(o) && (PyLong_AsLongLongAndOverflow(o, &overflow), overflow) &&
                PyLong_AsUnsignedLongLong(o) == (unsigned long long)-1 && PyErr_Occurred())
                return -1;
            PyObject *t = tn_tensor_from_number(o, true);
            if (!t || tn_args_own(a, t) < 0) return -1;
            v->tag = TN_V_TENSOR; v->u.obj = t; v->wrapped = true;
            return 1;
        }
        return 0;
    case TN_TYPE_INT: case TN_TYPE_SYMINT: case TN_TYPE_DEVICEINDEX:
        /* a 0-dim integer tensor binds an int only in the loose pass: upstream orders an
         * overload taking Tensor before one taking int there (max(x, tensor(2)) is max.other) */
        if (!is_int_like(o) || (tn_py_is_tensor(o) && !tensors_as_scalars)) return 0;
        v->tag = TN_V_INT;
        v->u.i = PyLong_AsLongLong(o);
        return (v->u.i == -1 && PyErr_Occurred()) ? int_overflowed(0) : 1;
    case TN_TYPE_FLOAT:
        if (PyFloat_Check(o) || PyLong_Check(o)) { v->tag = TN_V_FLOAT; v->u.f = PyFloat_AsDouble(o); return 1; }
        if (tn_py_is_tensor(o) && tn_tensor_of(o)->ndim == 0 && !tn_dtype_is_complex(tn_tensor_of(o)->dtype)) {
            PyObject *f = PyNumber_Float(o);
            if (!f) return -1;
            v->tag = TN_V_FLOAT; v->u.f = PyFloat_AsDouble(f);
            Py_DECREF(f);
            return 1;
        }
        return 0;
    case TN_TYPE_BOOL:
        if (!PyBool_Check(o)) return 0;
        v->tag = TN_V_BOOL; v->u.i = o == Py_True;
        return 1;
    case TN_TYPE_COMPLEX: case TN_TYPE_SCALAR:
        return to_number(o, v, tensors_as_scalars, float_peer);
    case TN_TYPE_STR:
        if (!PyUnicode_Check(o)) return 0;
        v->tag = TN_V_STR; v->u.obj = o;
        return 1;
    case TN_TYPE_SCALARTYPE:
        if (tn_py_is_dtype(o)) {
            v->tag = TN_V_DTYPE;
            return tn_py_to_dtype(o, &v->u.dtype) < 0 ? -1 : 1;
        }
        if (o == (PyObject *)&PyFloat_Type) { v->tag = TN_V_DTYPE; v->u.dtype = TN_DTYPE_F64; return 1; }
        if (o == (PyObject *)&PyLong_Type) { v->tag = TN_V_DTYPE; v->u.dtype = TN_DTYPE_I64; return 1; }
        if (o == (PyObject *)&PyBool_Type) { v->tag = TN_V_DTYPE; v->u.dtype = TN_DTYPE_BOOL; return 1; }
        if (o == (PyObject *)&PyComplex_Type) { v->tag = TN_V_DTYPE; v->u.dtype = TN_DTYPE_C128; return 1; }
        return 0;
    case TN_TYPE_DEVICE:
        if (!PyUnicode_Check(o) && !PyLong_Check(o) && !PyObject_TypeCheck(o, tn_py.device_type)) return 0;
        v->tag = TN_V_DEVICE;
        return tn_py_parse_device(o, &v->u.device.type, &v->u.device.index) < 0 ? -1 : 1;
    case TN_TYPE_LAYOUT:
        if (!PyObject_TypeCheck(o, tn_py.layout_type)) return 0;
        v->tag = TN_V_LAYOUT; v->u.obj = o;
        return 1;
    case TN_TYPE_MEMORYFORMAT:
        if (!PyObject_TypeCheck(o, tn_py.memory_format_type)) return 0;
        v->tag = TN_V_MEMFORMAT; v->u.obj = o;
        return 1;
    case TN_TYPE_GENERATOR:
        if (!PyObject_TypeCheck(o, tn_py.generator_type)) return 0;
        v->tag = TN_V_GENERATOR; v->u.obj = o;
        return 1;
    case TN_TYPE_DIMNAME:
        return 0; /* named tensors are not supported: never match these overloads */
    case TN_TYPE_STORAGE: /* UntypedStorage, or a TypedStorage (it carries _untyped_storage) */
        if (!PyObject_TypeCheck(o, tn_py.storage_type) && !PyObject_HasAttrString(o, "_untyped_storage")) return 0;
        v->tag = TN_V_OBJECT; v->u.obj = o;
        return 1;
    default:
        v->tag = TN_V_OBJECT; v->u.obj = o;
        return 1;
    }
}

/* torch.ops.aten.X.overload: upstream's schema matching (toIValue) converts more than its Python
 * bindings do; measured on 2.13.0 for one named overload: an int (or SymInt, Optional[int]) takes
 * a bool; an int or Optional[int] also takes a dtype as its ScalarType number (aten.select.int(x,
 * torch.float32, 0) is dim 6, so is aten.argmax.default(x, torch.float32): measured in session 37;
 * SymInt refuses it); a bool takes an int, a float, a
 * complex, None or a one-element tensor as its truth (argsort(stable=2)); an int (SymInt, int?)
 * takes a one-element real tensor as int(t) (aten.diff.default(x, torch.tensor(1.5)) is n=1); a Scalar (number) takes a dtype
 * as its number and refuses a tensor (0-dim too: "Expected a value of type 'number' ... found type
 * 'Tensor'"). 1 converted, 0 no match, 2 not such a case (the ordinary conversion decides). */
static int aten_loose(PyObject *o, const tn_arg *p, tn_value *v) {
    if (p->is_list || (o == Py_None && p->optional)) return 2;
    switch (p->type) {
    case TN_TYPE_INT: case TN_TYPE_SYMINT:
        memset(v, 0, sizeof *v);
        if (PyBool_Check(o)) { v->tag = TN_V_INT; v->u.i = o == Py_True; return 1; }
        if (tn_py_is_dtype(o) && p->type == TN_TYPE_INT) {
            v->tag = TN_V_INT;
            if (tn_py_to_dtype(o, &v->u.dtype) < 0) return -1;
            v->u.i = (int64_t)v->u.dtype; /* tn_dtype follows upstream's ScalarType numbering */
            return 1;
        }
        if (tn_py_is_tensor(o)) {
            /* a one-element tensor of a real dtype (any shape) is int(t), truncated: upstream's
             * py::cast<int64_t>; NaN, out of int64, complex or meta do not match */
            const tn_tensor *t = tn_tensor_of(o);
            if (tn_numel(t) != 1 || tn_dtype_is_complex(t->dtype) || t->storage->device == TN_DEVICE_META) return 0;
            PyObject *n = PyNumber_Long(o);
            int ovf = 0;
            long long x = n ? PyLong_AsLongLongAndOverflow(n, &ovf) : -1;
            Py_XDECREF(n);
            if (!n || ovf || (x == -1 && PyErr_Occurred())) { PyErr_Clear(); return 0; }
            v->tag = TN_V_INT; v->u.i = x;
            return 1;
        }
        return 2;
    case TN_TYPE_BOOL: {
        if (PyBool_Check(o)) return 2;
        bool num = o == Py_None || PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o);
        if (!num && !(tn_py_is_tensor(o) && tn_numel(tn_tensor_of(o)) == 1)) return 2;
        int truth = PyObject_IsTrue(o);
        if (truth < 0) return -1;
        memset(v, 0, sizeof *v);
        v->tag = TN_V_BOOL; v->u.i = truth;
        return 1;
    }
    case TN_TYPE_LAYOUT: {
        /* a Layout is an int in upstream's schemas: an int (or bool) is read as its Layout number,
         * kept to 8 bits as c10::Layout (int8_t) keeps it (2**40 is Strided); a number past
         * upstream's last layout is "Unknown layout" (measured for zeros, zeros_like, to, _to_copy,
         * empty_strided) */
        if (!PyLong_Check(o)) return 2;
        int ovf = 0;
        long long x = PyLong_AsLongLongAndOverflow(o, &ovf);
        if (ovf || (x == -1 && PyErr_Occurred())) { PyErr_Clear(); return 0; }
        int8_t code = (int8_t)(uint8_t)((unsigned long long)x & 0xff);
        if (code < 0 || code >= 8) {
            PyErr_SetString(PyExc_RuntimeError, "Unknown layout");
            return -1;
        }
        memset(v, 0, sizeof *v);
        v->tag = TN_V_LAYOUT; v->u.obj = tn_py.layout_codes[code];
        return 1;
    }
    case TN_TYPE_SCALAR:
        if (tn_py_is_tensor(o)) return 0;
        if (tn_py_is_dtype(o)) {
            memset(v, 0, sizeof *v);
            tn_dtype d;
            if (tn_py_to_dtype(o, &d) < 0) return -1;
            v->tag = TN_V_INT; v->u.i = (int64_t)d;
            return 1;
        }
        return 2;
    default:
        return 2;
    }
}

/* The default written in the schema, as a value. */
static int default_value(const tn_arg *p, tn_args *a, tn_value *v) {
    const char *d = p->default_text;
    memset(v, 0, sizeof *v);
    if (!strcmp(d, "None")) { v->tag = TN_V_NONE; return 0; }
    if (!strcmp(d, "True") || !strcmp(d, "False")) {
        v->tag = TN_V_BOOL; v->u.i = d[0] == 'T';
        return 0;
    }
    if (d[0] == '[') {
        int64_t tmp[16];
        int n = 0;
        const char *c = d + 1;
        while (*c && *c != ']' && n < 16) {
            char *end;
            tmp[n++] = strtoll(c, &end, 10);
            c = end;
            while (*c == ',' || *c == ' ') c++;
        }
        if (p->list_size > 0 && n == 1)
            for (; n < p->list_size; n++) tmp[n] = tmp[0];
        if (p->type == TN_TYPE_FLOAT) {
            v->tag = TN_V_FLOATLIST; v->u.floats.n = 0; v->u.floats.v = NULL; /* only [] occurs */
            return 0;
        }
        int64_t *st = tn_args_int_store(a, n);
        if (!st) { PyErr_NoMemory(); return -1; }
        memcpy(st, tmp, (size_t)n * sizeof *st);
        v->tag = p->type == TN_TYPE_BOOL ? TN_V_BOOLLIST : TN_V_INTLIST;
        v->u.ints.v = st; v->u.ints.n = n;
        return 0;
    }
    if (p->type == TN_TYPE_MEMORYFORMAT) {
        v->tag = TN_V_MEMFORMAT;
        v->u.obj = !strcmp(d, "contiguous_format") ? tn_py.memory_format_contiguous : tn_py.memory_format_preserve;
        return 0;
    }
    if (p->type == TN_TYPE_STR) {
        size_t n = strlen(d);
        const char *s = d;
        if (n >= 2 && (d[0] == '"' || d[0] == '\'')) { s = d + 1; n -= 2; }
        PyObject *u = PyUnicode_FromStringAndSize(s, (Py_ssize_t)n);
        if (!u || tn_args_own(a, u) < 0) return -1;
        v->tag = TN_V_STR; v->u.obj = u;
        return 0;
    }
    if (p->type == TN_TYPE_SCALARTYPE) {
        v->tag = TN_V_DTYPE;
        v->u.dtype = !strcmp(d, "long") ? TN_DTYPE_I64 : !strcmp(d, "float") ? TN_DTYPE_F32 : TN_DTYPE_F64;
        return 0;
    }
    if (p->type == TN_TYPE_LAYOUT) { v->tag = TN_V_LAYOUT; v->u.obj = tn_py.layout_strided; return 0; }
    if (!strcmp(d, "Mean") || !strcmp(d, "at::Reduction::Mean")) { v->tag = TN_V_INT; v->u.i = 1; return 0; }
    if (!strcmp(d, "Sum")) { v->tag = TN_V_INT; v->u.i = 2; return 0; }
    /* numbers */
    char *end;
    if (strpbrk(d, ".eE") && p->type != TN_TYPE_INT) {
        v->tag = TN_V_FLOAT; v->u.f = strtod(d, &end);
    } else {
        long long x = strtoll(d, &end, 10);
        if (p->type == TN_TYPE_FLOAT) { v->tag = TN_V_FLOAT; v->u.f = (double)x; }
        else { v->tag = TN_V_INT; v->u.i = x; }
    }
    if (p->type == TN_TYPE_TENSOR) { /* e.g. "Tensor? weight=None" handled above; others rare */
        v->tag = TN_V_NONE;
    }
    return 0;
}

int tn_args_convert(const tn_arg *p, PyObject *o, tn_args *a, tn_value *v) {
    return convert(o, p, true, true, 0, a, v);
}

/* What torch.ops refuses that upstream's Python bindings take: None for a Tensor?[] list (it takes
 * None elements: index.Tensor), and one int for a SymInt[N] (only an int[N] repeats one int N times;
 * measured: roll.default(x, 1), col2im's output_size refused). */
static bool aten_refuses(const tn_arg *p, PyObject *o) {
    if (!p->is_list) return false;
    if (o == Py_None) return p->type == TN_TYPE_TENSOR && p->elem_optional && !p->optional;
    return p->type == TN_TYPE_SYMINT && is_int_like(o);
}

int tn_args_aten_convertible(const tn_arg *p, PyObject *o, bool numbers_as_tensors) {
    tn_args a;
    tn_value v;
    a.nowned = a.nints = a.nheap = 0;
    a.out = NULL;
    if (aten_refuses(p, o)) return 0;
    int r = aten_loose(o, p, &v);
    if (r < 0 && p->type == TN_TYPE_LAYOUT) { PyErr_Clear(); return 1; }   /* an int: "Unknown layout" when parsed */
    if (r == 2) r = convert(o, p, numbers_as_tensors, true, false, &a, &v);
    tn_args_release(&a);
    ovf_pos = -1;
    return r;
}

int tn_args_default(const tn_arg *p, tn_args *a, tn_value *v) {
    if (!p->default_text) { memset(v, 0, sizeof *v); v->tag = TN_V_NONE; return 0; }
    if (default_value(p, a, v) < 0) return -1;
    v->defaulted = true;
    return 0;
}

static bool is_out_param(const tn_arg *p) { return p->kwarg_only && p->is_write; }

/* true when some of the n values differ from x */
static bool any_differs(const int64_t *v, int n, int64_t x) {
    for (int i = 0; i < n; i++)
        if (v[i] != x) return true;
    return false;
}

/* Whether a value equals its parameter's schema default (upstream omits such trailing positional
 * and keyword-only arguments when it hands a call to a Python dispatch mode). */
bool tn_value_is_default(const tn_arg *p, const tn_value *v) {
    if (!p->default_text) return false;
    tn_args tmp;
    tmp.nowned = tmp.nints = tmp.nheap = 0;
    tmp.out = NULL;
    tn_value d;
    bool same = false;
    if (default_value(p, &tmp, &d) < 0) { PyErr_Clear(); tn_args_release(&tmp); return false; }
    /* upstream compares IValues: a Scalar keeps its kind (alpha=1.0 or True is not the default 1,
     * leaky_relu's 0 not its 0.01), an int / float / bool parameter holds its schema type; an
     * int[N] default written as one number is that number N times */
    bool scalar = p->type == TN_TYPE_SCALAR;
    if (d.tag == TN_V_NONE) same = v->tag == TN_V_NONE;
    else if (d.tag == TN_V_INT && p->is_list)
        same = (v->tag == TN_V_INT && v->u.i == d.u.i) ||   /* the default itself, unexpanded */
               (v->tag == TN_V_INTLIST && v->u.ints.n == p->list_size && !any_differs(v->u.ints.v, v->u.ints.n, d.u.i));
    else if (d.tag == TN_V_BOOL || d.tag == TN_V_INT)
        same = (scalar ? v->tag == d.tag : (v->tag == TN_V_BOOL || v->tag == TN_V_INT)) && v->u.i == d.u.i;
    else if (d.tag == TN_V_FLOAT)
        same = (v->tag == TN_V_FLOAT && v->u.f == d.u.f) || (!scalar && v->tag == TN_V_INT && (double)v->u.i == d.u.f);
    else if (d.tag == TN_V_DTYPE)
        same = v->tag == TN_V_DTYPE && v->u.dtype == d.u.dtype;
    else if (d.tag == TN_V_LAYOUT || d.tag == TN_V_MEMFORMAT)
        same = v->tag == d.tag && v->u.obj == d.u.obj;
    else if (d.tag == TN_V_INTLIST || d.tag == TN_V_BOOLLIST)
        same = v->tag == d.tag && v->u.ints.n == d.u.ints.n &&
               (d.u.ints.n == 0 || !memcmp(v->u.ints.v, d.u.ints.v, (size_t)d.u.ints.n * sizeof(int64_t)));
    else if (d.tag == TN_V_STR)
        same = v->tag == TN_V_STR && PyUnicode_Compare(v->u.obj, d.u.obj) == 0;
    tn_args_release(&tmp);
    if (PyErr_Occurred()) PyErr_Clear();
    return same;
}

/* upstream's parser also takes numpy's keyword names for these parameters (its
 * numpy_compatibility_arg_names): axis for dim, keepdims for keepdim, x / a / x1 for the input of
 * a function, x2 for other */
static bool numpy_alias(const char *param, const char *given, bool is_input) {
    if (!strcmp(param, "dim")) return !strcmp(given, "axis");
    if (!strcmp(param, "keepdim")) return !strcmp(given, "keepdims");
    if (!strcmp(param, "other")) return !strcmp(given, "x2");
    if (is_input && (!strcmp(param, "self") || !strcmp(param, "input")))
        return !strcmp(given, "x") || !strcmp(given, "a") || !strcmp(given, "x1");
    return false;
}


/* Upstream's Python bindings pack dtype / layout / device / pin_memory into TensorOptions
 * (torchgen's python.py): pin_memory is always a bool (False unless given), and a factory function
 * (no tensor input, or category_override: factory; not new_* / *_like) takes the default device
 * when none is given. The op sees the same values, so a dispatch mode sees them as upstream's. */
static bool factory_override(const char *name) {
    return !strcmp(name, "linspace") || !strcmp(name, "logspace") || !strcmp(name, "empty_quantized") ||
           !strcmp(name, "_empty_per_channel_affine_quantized");
}
static void python_tensor_options(const tn_schema *s, tn_value *v) {
    int pin = -1, dev = -1;
    bool tensor_input = false;
    for (int i = 0; i < s->nargs; i++) {
        const tn_arg *p = &s->args[i];
        if (p->kwarg_only && p->type == TN_TYPE_BOOL && !p->is_list && !strcmp(p->name, "pin_memory")) pin = i;
        else if (p->kwarg_only && p->type == TN_TYPE_DEVICE && !strcmp(p->name, "device")) dev = i;
        else if (p->type == TN_TYPE_TENSOR && !is_out_param(p)) tensor_input = true;
    }
    if (pin < 0 || dev < 0) return;   /* no TensorOptions group */
    size_t n = strlen(s->name);
    bool like_new = !strncmp(s->name, "new_", 4) || (n >= 5 && !strcmp(s->name + n - 5, "_like"));
    if (!tensor_input || like_new || factory_override(s->name)) {
        if (v[pin].tag == TN_V_NONE) { v[pin].tag = TN_V_BOOL; v[pin].u.i = 0; }
        if (!like_new && v[dev].tag == TN_V_NONE) {
            v[dev].tag = TN_V_DEVICE;
            v[dev].u.device.type = TN_DEVICE_CPU;
            v[dev].u.device.index = -1;
        }
    }
}

/* Upstream's generated bindings initialize the device of a TensorOptions group (dtype, layout,
 * device, pin_memory) lazily (torch.utils.device_lazy_init); bindings without one (pin_memory,
 * is_pinned) and the hand-written sparse factories do not (measured: RuntimeError "PyTorch is not
 * linked with support for cuda devices"). */
static bool lazy_init_device(const tn_schema *s, const tn_arg *dev) {
    if (!dev->kwarg_only || strcmp(dev->name, "device") || !strncmp(s->name, "sparse_", 7) || !strncmp(s->name, "_sparse_", 8))
        return false;
    for (int i = 0; i < s->nargs; i++)
        if (s->args[i].kwarg_only && s->args[i].type == TN_TYPE_BOOL && !s->args[i].is_list && !strcmp(s->args[i].name, "pin_memory"))
            return true;
    return false;
}

int tn_args_parse(const tn_schema *s, PyObject *self, PyObject *args, PyObject *kw,
                  int flags, tn_args *a) {
    PyObject *given[TN_MAX_ARGS] = {0};
    int given_at[TN_MAX_ARGS] = {0};   /* 1-based position in the call's positional arguments, 0: keyword */
    ovf_pos = -1;
    a->accel = NULL;
    int np = s->nargs, nout = 0, first_out = -1;
    Py_ssize_t nargs = args ? PyTuple_Size(args) : 0, pos = 0;
    if (np > TN_MAX_ARGS) return TN_PARSE_NOMATCH;
    for (int i = 0; i < np; i++)
        if (is_out_param(&s->args[i])) { if (first_out < 0) first_out = i; nout++; }
    int k = 0, max_pos = 0, self_at = -1; /* self_at: the parameter a method's self binds */
    for (int i = 0; i < np; i++) if (!s->args[i].kwarg_only) max_pos++;
    if (self) {
        max_pos--;
        self_at = 0;
        for (int i = 0; i < np && !s->args[i].kwarg_only; i++)
            if (!strcmp(s->args[i].name, "self")) { self_at = i; break; }
        if (np == 0 || s->args[self_at].type != TN_TYPE_TENSOR || s->args[self_at].is_list)
            return TN_PARSE_NOMATCH;
        given[self_at] = self;
    }
    /* positional (skipping the parameter self bound) */
    for (; k < np && pos < nargs; k++) {
        if (k == self_at) continue;
        const tn_arg *p = &s->args[k];
        if (p->kwarg_only) break;
        PyObject *o = PyTuple_GetItem(args, pos);
        /* varargs int list: torch.zeros(2, 3), x.view(2, 3), x.permute(1, 0), x.view(5) — only when
         * the int list is the signature's one positional parameter besides self (as upstream's
         * Python bindings; torch.ops has no varargs: aten.zeros.default(5) is refused, measured) */
        if (!(flags & TN_PARSE_ATEN) && p->is_list && (p->type == TN_TYPE_INT || p->type == TN_TYPE_SYMINT) &&
            is_int_like(o) && k == (self_at == 0 ? 1 : 0) && max_pos == 1) {
            PyObject *rest = PyTuple_GetSlice(args, pos, nargs);
            if (!rest || tn_args_own(a, rest) < 0) return TN_PARSE_ERROR;
            given[k] = rest;
            pos = nargs;
            k++;
            break;
        }
        given[k] = o;
        given_at[k] = (int)pos + 1;
        pos++;
    }
    if (pos < nargs) return TN_PARSE_NOMATCH; /* too many positional arguments */
    /* keywords */
    if (kw) {
        PyObject *key, *val;
        Py_ssize_t it = 0;
        while (PyDict_Next(kw, &it, &key, &val)) {
            const char *name = PyUnicode_AsUTF8AndSize(key, NULL);
            if (!name) return TN_PARSE_ERROR;
            int j = -1;
            /* torch.ops.aten.X.out(..., out=t, indices=i): a multi-output overload whose first out
             * parameter is named `out` takes it by name, as upstream's torch.ops binding does */
            bool by_name = (flags & TN_PARSE_ATEN) && nout > 1 && tn_py_is_tensor(val);
            /* upstream's Python bindings name a lone out parameter by its schema name
             * (torch._softmax_backward_data(..., grad_input=t), the one such binding in 2.13;
             * `out=` is an unexpected keyword there) */
            const char *out_kw = nout == 1 && !(flags & TN_PARSE_ATEN) ? s->args[first_out].name : "out";
            if (!strcmp(name, out_kw) && nout && !by_name) {
                a->out = val;
                if (val == Py_None) continue;
                if (nout == 1) { given[first_out] = val; continue; }
                if (!PyTuple_Check(val) && !PyList_Check(val)) return TN_PARSE_NOMATCH;
                if (PySequence_Size(val) != nout) return TN_PARSE_NOMATCH;
                for (int q = 0, i = first_out; i < np; i++)
                    if (is_out_param(&s->args[i])) {
                        given[i] = PySequence_GetItem(val, q++);
                        if (!given[i] || tn_args_own(a, given[i]) < 0) return TN_PARSE_ERROR;
                    }
                continue;
            }
            for (int i = 0; i < np; i++) {
                const char *pn = s->args[i].name;
                if (is_out_param(&s->args[i]) && !(flags & TN_PARSE_ATEN)) continue;
                if (!strcmp(pn, name) || (!self && i == 0 && !strcmp(pn, "self") && !strcmp(name, "input"))) {
                    j = i;
                    break;
                }
            }
            for (int i = 0; j < 0 && !(flags & TN_PARSE_ATEN) && i < np; i++)
                if (numpy_alias(s->args[i].name, name, !self && i == 0)) j = i;
            if (j < 0 || j == self_at) return TN_PARSE_NOMATCH;
            if (given[j]) return TN_PARSE_NOMATCH; /* given twice */
            given[j] = val;
        }
    }
    /* overloads with out= parameters match only when out= is given, and vice versa */
    if (nout && !given[first_out]) return TN_PARSE_NOMATCH;
    if (!nout && a->out && a->out != Py_None) return TN_PARSE_NOMATCH;
    bool float_peer = false; /* a floating or complex tensor argument (see to_number) */
    for (int i = 0; i < np; i++)
        if (given[i] && tn_py_is_tensor(given[i]) && !tn_dtype_is_integral(tn_tensor_of(given[i])->dtype, true))
            float_peer = true;
    for (int i = 0; i < np; i++) {
        const tn_arg *p = &s->args[i];
        int r;
        /* upstream's Python bindings: a list whose schema default is [] takes None as that default
         * (torchgen writes the C++ default {} as None in the binding's signature, and its parser
         * leaves a None given for a None default unset); torch.ops does not */
        if (given[i] == Py_None && !(flags & TN_PARSE_ATEN) && p->is_list && !p->optional && p->default_text &&
            !strcmp(p->default_text, "[]"))
            given[i] = NULL;
        if (!given[i]) {
            if (!p->default_text) return TN_PARSE_NOMATCH;
            if (default_value(p, a, &a->v[i]) < 0) return TN_PARSE_ERROR;
            /* upstream's Python bindings (torch.X, torch._C._nn.X) read the default `int
             * reduction=Mean` as 0 (none), measured; torch.ops.aten takes the schema's 1 */
            if (!(flags & TN_PARSE_ATEN) && !strcmp(p->default_text, "Mean")) a->v[i].u.i = 0;
            continue;
        }
        if (p->is_list && p->type == TN_TYPE_TENSOR && p->elem_optional && !(flags & TN_PARSE_ATEN) &&
            (PyTuple_Check(given[i]) || PyList_Check(given[i]))) {
            /* upstream's bindings take only tensors here (torch.index_put(x, (None, i), v) raises) */
            Py_ssize_t n = PySequence_Size(given[i]);
            for (Py_ssize_t e = 0; e < n; e++) {
                PyObject *el = PySequence_GetItem(given[i], e);
                if (!el) return TN_PARSE_ERROR;
                bool ok = tn_py_is_tensor(el);
                PyObject *tname = ok ? NULL : PyObject_GetAttrString((PyObject *)Py_TYPE(el), "__name__");
                Py_DECREF(el);
                if (ok) continue;
                if (tname)
                    PyErr_Format(PyExc_TypeError, "expected Tensor as element %zd in argument %d, but got %U", e,
                                 self_at >= 0 && i > self_at ? i - 1 : i, tname);
                Py_XDECREF(tname);
                return TN_PARSE_ERROR;
            }
        }
        if (!(flags & TN_PARSE_ATEN) && given[i] == Py_None && p->is_list && p->type == TN_TYPE_TENSOR &&
            p->elem_optional && !p->optional) {
            /* upstream's Python bindings: None for a Tensor?[] list (index_put(x, None, v)) */
            char at[32] = "";
            if (given_at[i]) snprintf(at, sizeof at, " (position %d)", given_at[i]);
            PyErr_Format(PyExc_TypeError, "%s(): argument '%s'%s must be tuple of Tensors, not NoneType", s->name, p->name, at);
            return TN_PARSE_ERROR;
        }
        if ((flags & TN_PARSE_ATEN) && aten_refuses(p, given[i])) return TN_PARSE_NOMATCH;
        if ((flags & TN_PARSE_ACCEL) && p->type == TN_TYPE_DEVICE && given[i] != Py_None &&
            (a->accel = tn_py_device_backend(given[i]))) {
            a->v[i].tag = TN_V_DEVICE;
            a->v[i].u.device.type = TN_DEVICE_CPU;
            a->v[i].u.device.index = -1;
            continue;
        }
        if (p->type == TN_TYPE_DEVICE && given[i] != Py_None && !strcmp(s->name, "is_pinned") && tn_py_device_unbuilt(given[i])) {
            /* is_pinned's deprecated device is not read (upstream answers false for any device,
             * cuda included: measured); it binds as the CPU */
            a->v[i].tag = TN_V_DEVICE;
            a->v[i].u.device.type = TN_DEVICE_CPU;
            a->v[i].u.device.index = -1;
            continue;
        }
        bool nat = (flags & TN_PARSE_NUMBERS_AS_TENSORS) && (i != 0 || (flags & TN_PARSE_NUMBER_SELF));
        r = (flags & TN_PARSE_ATEN_LOOSE) ? aten_loose(given[i], p, &a->v[i]) : 2;
        if (r == 2) r = convert(given[i], p, nat, (flags & TN_PARSE_TENSORS_AS_SCALARS) != 0, float_peer, a, &a->v[i]);
        if (r == 0 && ovf_pos >= 0 && !(flags & TN_PARSE_ATEN)) {
            /* upstream's Python bindings: the int unpacks with a ValueError, a list element
             * with a TypeError naming the function, the argument and the 1-based position
             * (torch.ops reports the argument as a value of the wrong type: functions.c) */
            if (ovf_pos == 0)
                PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
            else
                PyErr_Format(PyExc_TypeError, "%s(): argument '%s' failed to unpack the object at pos %d with error "
                             "\"Overflow when unpacking long long\n\"", s->name, p->name, ovf_pos);   /* less the C++ trace */
            return TN_PARSE_ERROR;
        }
        if (r < 0 && !(flags & TN_PARSE_ATEN) && p->type == TN_TYPE_DEVICE && !p->is_list && lazy_init_device(s, p))
            tn_py_device_lazy_init(given[i]);   /* torch.zeros(2, device="cuda"): AssertionError */
        if (r != 1) return r < 0 ? TN_PARSE_ERROR : TN_PARSE_NOMATCH;
    }
    if (!(flags & TN_PARSE_ATEN)) python_tensor_options(s, a->v);
    return TN_PARSE_OK;
}
