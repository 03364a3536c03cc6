/* types.c — the small value types of torch._C: dtype, finfo, iinfo, layout, memory_format,
 * qscheme, device and Size (Generator lives in types_gen.c, enums in types_enum.c).
 *
 * Every behaviour here was measured on upstream torch 2.13.0 (attributes, reprs, pickling and the
 * exception types for bad input). All types are heap types named "torch.X" so their __module__
 * is "torch" as upstream's are. The objects live in tn_py (core/pystate.h) for the rest of _C. */
#include "python/common.h"

#include <float.h>
#include <math.h>
#include <string.h>

/* ---------------------------------------------------------------------------------------------
 * dtype */

typedef struct {
    PyObject_HEAD
    tn_dtype d;
} tn_dtype_obj;

/* dtype.abbr, measured */
static const char *const abbrs[TN_DTYPE_COUNT] = {
    "u8", "i8", "i16", "i32", "i64", "f16", "f32", "f64", "c32", "c64", "c128", "b8", "qint8",
    "quint8", "qint32", "bf16", "quint4x2", "quint2x4", "b1x8", "b2x4", "b4x2", "b8x1", "b16x1",
    "f8e5m2", "f8e4m3fn", "f8e5m2fnuz", "f8e4m3fnuz", "u16", "u32", "u64", "uint1", "uint2",
    "uint3", "uint4", "uint5", "uint6", "uint7", "int1", "int2", "int3", "int4", "int5", "int6",
    "int7", "f8e8m0fnu", "f4e2m1fnx2",
};

#define DT(o) (((tn_dtype_obj *)(o))->d)

int tn_py_is_dtype(PyObject *o) { return tn_py.dtype_type && PyObject_TypeCheck(o, tn_py.dtype_type); }

int tn_py_to_dtype(PyObject *o, tn_dtype *out) {
    if (!tn_py_is_dtype(o)) {
        PyErr_Format(PyExc_TypeError, "expected torch.dtype, but got %s", tn_py_type_name(o));
        return -1;
    }
    *out = DT(o);
    return 0;
}

PyObject *tn_py_from_dtype(tn_dtype d) {
    if ((int)d < 0 || d >= TN_DTYPE_COUNT) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: invalid dtype");
        return NULL;
    }
    return Py_NewRef(tn_py.dtypes[d]);
}

static PyObject *dtype_repr(PyObject *self) {
    return PyUnicode_FromFormat("torch.%s", tn_dtype_infos[DT(self)].name);
}
static PyObject *dtype_reduce(PyObject *self, PyObject *unused) {
    return PyUnicode_FromString(tn_dtype_infos[DT(self)].name);
}
static PyObject *dtype_is_fp(PyObject *self, void *c) { return PyBool_FromLong(tn_dtype_is_floating(DT(self))); }
static PyObject *dtype_is_cx(PyObject *self, void *c) { return PyBool_FromLong(tn_dtype_is_complex(DT(self))); }
static PyObject *dtype_itemsize(PyObject *self, void *c) { return PyLong_FromLong(tn_dtype_itemsize(DT(self))); }
static PyObject *dtype_abbr(PyObject *self, void *c) { return PyUnicode_FromString(abbrs[DT(self)]); }
static PyObject *dtype_is_signed(PyObject *self, void *c) {
    tn_dtype d = DT(self);
    switch (tn_dtype_infos[d].kind) {
    case TN_KIND_QUANT:
        PyErr_SetString(PyExc_RuntimeError, "isSignedType not supported for quantized types");
        return NULL;
    case TN_KIND_BITS:
        PyErr_SetString(PyExc_RuntimeError, "Bits types are undefined");
        return NULL;
    case TN_KIND_BOOL: case TN_KIND_UINT: case TN_KIND_SUBBYTE_UINT: Py_RETURN_FALSE;
    default: return PyBool_FromLong(d != TN_DTYPE_F8E8M0FNU);
    }
}
static PyObject *dtype_to_real(PyObject *self, PyObject *unused) {
    switch (DT(self)) {
    case TN_DTYPE_C32: return tn_py_from_dtype(TN_DTYPE_F16);
    case TN_DTYPE_C64: return tn_py_from_dtype(TN_DTYPE_F32);
    case TN_DTYPE_C128: return tn_py_from_dtype(TN_DTYPE_F64);
    default: return Py_NewRef(self);
    }
}
static PyObject *dtype_to_complex(PyObject *self, PyObject *unused) {
    switch (DT(self)) {
    case TN_DTYPE_F16: return tn_py_from_dtype(TN_DTYPE_C32);
    case TN_DTYPE_F32: case TN_DTYPE_BF16: return tn_py_from_dtype(TN_DTYPE_C64);
    case TN_DTYPE_F64: return tn_py_from_dtype(TN_DTYPE_C128);
    case TN_DTYPE_C32: case TN_DTYPE_C64: case TN_DTYPE_C128: return Py_NewRef(self);
    default:
        PyErr_Format(PyExc_RuntimeError, "Unknown Complex ScalarType for %s", tn_dtype_cpp_name(DT(self)));
        return NULL;
    }
}

static PyGetSetDef dtype_getset[] = {
    {"is_floating_point", dtype_is_fp, NULL, NULL, NULL},
    {"is_complex", dtype_is_cx, NULL, NULL, NULL},
    {"is_signed", dtype_is_signed, NULL, NULL, NULL},
    {"itemsize", dtype_itemsize, NULL, NULL, NULL},
    {"abbr", dtype_abbr, NULL, NULL, NULL},
    {NULL},
};
static PyMethodDef dtype_methods[] = {
    {"__reduce__", dtype_reduce, METH_NOARGS, NULL},
    {"to_real", dtype_to_real, METH_NOARGS, NULL},
    {"to_complex", dtype_to_complex, METH_NOARGS, NULL},
    {NULL},
};
static PyType_Slot dtype_slots[] = {
    {Py_tp_repr, dtype_repr}, {Py_tp_getset, dtype_getset}, {Py_tp_methods, dtype_methods}, {0, NULL},
};
static PyType_Spec dtype_spec = {"torch.dtype", sizeof(tn_dtype_obj), 0,
                                 Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION, dtype_slots};

/* ---------------------------------------------------------------------------------------------
 * finfo / iinfo: values measured on upstream */

typedef struct {
    PyObject_HEAD
    int bits;
    double eps, max, min, tiny, resolution;
    int64_t imin;     /* iinfo */
    uint64_t imax;
    tn_dtype d;       /* the dtype named by .dtype (complex resolves to its real type) */
} tn_info_obj;

static tn_dtype finfo_real(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_C32: return TN_DTYPE_F16;
    case TN_DTYPE_C64: return TN_DTYPE_F32;
    case TN_DTYPE_C128: return TN_DTYPE_F64;
    default: return d;
    }
}

static int finfo_fill(tn_info_obj *o, tn_dtype d) {
    d = finfo_real(d);
    o->d = d;
    switch (d) {
    case TN_DTYPE_F16: o->bits = 16; o->eps = ldexp(1, -10); o->max = 65504.0; o->tiny = ldexp(1, -14); o->resolution = 1e-3; break;
    case TN_DTYPE_F32: o->bits = 32; o->eps = FLT_EPSILON; o->max = FLT_MAX; o->tiny = FLT_MIN; o->resolution = 1e-6; break;
    case TN_DTYPE_F64: o->bits = 64; o->eps = DBL_EPSILON; o->max = DBL_MAX; o->tiny = DBL_MIN; o->resolution = 1e-15; break;
    case TN_DTYPE_BF16: o->bits = 16; o->eps = ldexp(1, -7); o->max = ldexp(255, 120); o->tiny = ldexp(1, -126); o->resolution = 0.01; break;
    case TN_DTYPE_F8E5M2: o->bits = 8; o->eps = 0.25; o->max = 57344.0; o->tiny = ldexp(1, -14); o->resolution = 1.0; break;
    case TN_DTYPE_F8E4M3FN: o->bits = 8; o->eps = 0.125; o->max = 448.0; o->tiny = ldexp(1, -6); o->resolution = 1.0; break;
    case TN_DTYPE_F8E5M2FNUZ: o->bits = 8; o->eps = 0.125; o->max = 57344.0; o->tiny = ldexp(1, -15); o->resolution = 1.0; break;
    case TN_DTYPE_F8E4M3FNUZ: o->bits = 8; o->eps = 0.125; o->max = 240.0; o->tiny = ldexp(1, -7); o->resolution = 1.0; break;
    case TN_DTYPE_F8E8M0FNU: o->bits = 8; o->eps = 1.0; o->max = ldexp(1, 127); o->tiny = ldexp(1, -127); o->resolution = 1.0;
        o->min = o->tiny;
        return 0;
    case TN_DTYPE_F4E2M1FNX2:
        PyErr_SetString(PyExc_TypeError, "bad argument type for built-in operation");
        return -1;
    default:
        PyErr_SetString(PyExc_TypeError, "torch.finfo() requires a floating point input type. "
                                         "Use torch.iinfo to handle 'torch.finfo'");
        return -1;
    }
    o->min = -o->max;
    return 0;
}

static int iinfo_fill(tn_info_obj *o, tn_dtype d) {
    o->d = d;
    const tn_dtype_info *in = &tn_dtype_infos[d];
    if (in->kind == TN_KIND_INT || in->kind == TN_KIND_UINT) {
        o->bits = in->itemsize * 8;
        if (in->kind == TN_KIND_INT) {
            o->imax = (UINT64_C(1) << (o->bits - 1)) - 1;
            o->imin = -(int64_t)o->imax - 1;
        } else {
            o->imax = o->bits == 64 ? UINT64_MAX : (UINT64_C(1) << o->bits) - 1;
            o->imin = 0;
        }
        return 0;
    }
    if (in->kind == TN_KIND_BOOL)
        PyErr_SetString(PyExc_TypeError, "torch.bool is not supported by torch.iinfo");
    else if (in->kind == TN_KIND_QUANT) {
        /* upstream fills bits / min / max from the underlying integer type (quint4x2 and quint2x4:
         * uint8's); .dtype, repr and str raise (measured) */
        o->bits = d == TN_DTYPE_QI32 ? 32 : 8;
        o->imin = d == TN_DTYPE_QI8 ? -128 : d == TN_DTYPE_QI32 ? INT32_MIN : 0;
        o->imax = d == TN_DTYPE_QI8 ? 127 : d == TN_DTYPE_QI32 ? INT32_MAX : 255;
        return 0;
    } else
        PyErr_SetString(PyExc_TypeError, "torch.iinfo() requires an integer input type. "
                                         "Use torch.finfo to handle 'torch.iinfo'");
    return -1;
}

static PyObject *info_new(PyTypeObject *tp, PyObject *args, PyObject *kw, int is_f) {
    static char *kwl[] = {"type", NULL};
    PyObject *t = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, is_f ? "|O:finfo" : "|O:iinfo", kwl, &t)) return NULL;
    tn_dtype d;
    if (!t) {
        if (!is_f) {
            PyErr_SetString(PyExc_TypeError, "iinfo() missing 1 required positional arguments: \"type\"");
            return NULL;
        }
        d = tn_py.default_dtype;
    } else if (!tn_py_is_dtype(t)) {
        PyErr_Format(PyExc_TypeError, "%s(): argument 'type' (position 1) must be torch.dtype, not %s",
                     is_f ? "finfo" : "iinfo", tn_py_type_name(t));
        return NULL;
    } else {
        d = DT(t);
    }
    tn_info_obj *o = (tn_info_obj *)PyType_GenericAlloc(tp, 0);
    if (!o) return NULL;
    if ((is_f ? finfo_fill(o, d) : iinfo_fill(o, d)) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}
static PyObject *finfo_new(PyTypeObject *tp, PyObject *a, PyObject *k) { return info_new(tp, a, k, 1); }
static PyObject *iinfo_new(PyTypeObject *tp, PyObject *a, PyObject *k) { return info_new(tp, a, k, 0); }

#define INFO(o) ((tn_info_obj *)(o))
static PyObject *fi_bits(PyObject *s, void *c) { return PyLong_FromLong(INFO(s)->bits); }
static PyObject *fi_dtype(PyObject *s, void *c) {
    if (tn_dtype_infos[INFO(s)->d].kind == TN_KIND_QUANT)
        return PyErr_Format(PyExc_NotImplementedError, "\"dtype\" not implemented for '%s'", tn_dtype_cpp_name(INFO(s)->d));
    return PyUnicode_FromString(tn_dtype_infos[INFO(s)->d].name);
}
static PyObject *fi_double(PyObject *s, void *c) {
    return PyFloat_FromDouble(*(double *)((char *)s + (size_t)(uintptr_t)c));
}
static PyObject *ii_max(PyObject *s, void *c) { return PyLong_FromUnsignedLongLong(INFO(s)->imax); }
static PyObject *ii_min(PyObject *s, void *c) { return PyLong_FromLongLong(INFO(s)->imin); }

#define OFF(f) ((void *)(uintptr_t)offsetof(tn_info_obj, f))
static PyGetSetDef finfo_getset[] = {
    {"bits", fi_bits, NULL, NULL, NULL},
    {"eps", fi_double, NULL, NULL, OFF(eps)},
    {"max", fi_double, NULL, NULL, OFF(max)},
    {"min", fi_double, NULL, NULL, OFF(min)},
    {"tiny", fi_double, NULL, NULL, OFF(tiny)},
    {"smallest_normal", fi_double, NULL, NULL, OFF(tiny)},
    {"resolution", fi_double, NULL, NULL, OFF(resolution)},
    {"dtype", fi_dtype, NULL, NULL, NULL},
    {NULL},
};
static PyGetSetDef iinfo_getset[] = {
    {"bits", fi_bits, NULL, NULL, NULL},
    {"max", ii_max, NULL, NULL, NULL},
    {"min", ii_min, NULL, NULL, NULL},
    {"dtype", fi_dtype, NULL, NULL, NULL},
    {NULL},
};

static void fmt_g(char *buf, size_t n, double v) {
    char *s = PyOS_double_to_string(v, 'g', 6, 0, NULL);
    if (s) {
        snprintf(buf, n, "%s", s);
        PyMem_Free(s);
    } else {
        PyErr_Clear();
        snprintf(buf, n, "?");
    }
}
static PyObject *finfo_repr(PyObject *s) {
    tn_info_obj *o = INFO(s);
    char r[40], mn[40], mx[40], ep[40], ti[40];
    fmt_g(r, sizeof r, o->resolution); fmt_g(mn, sizeof mn, o->min); fmt_g(mx, sizeof mx, o->max);
    fmt_g(ep, sizeof ep, o->eps); fmt_g(ti, sizeof ti, o->tiny);
    return PyUnicode_FromFormat("finfo(resolution=%s, min=%s, max=%s, eps=%s, smallest_normal=%s, tiny=%s, dtype=%s)",
                                r, mn, mx, ep, ti, ti, tn_dtype_infos[o->d].name);
}
static PyObject *iinfo_repr(PyObject *s) {
    tn_info_obj *o = INFO(s);
    if (tn_dtype_infos[o->d].kind == TN_KIND_QUANT) return fi_dtype(s, NULL);
    char mn[40], mx[40];
    fmt_g(mn, sizeof mn, (double)o->imin); fmt_g(mx, sizeof mx, (double)o->imax);
    return PyUnicode_FromFormat("iinfo(min=%s, max=%s, dtype=%s)", mn, mx, tn_dtype_infos[o->d].name);
}
static PyObject *info_richcompare(PyObject *a, PyObject *b, int op) {
    if (Py_TYPE(a) != Py_TYPE(b) || (op != Py_EQ && op != Py_NE)) Py_RETURN_NOTIMPLEMENTED;
    int eq = INFO(a)->d == INFO(b)->d;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
static Py_hash_t info_hash(PyObject *s) { return (Py_hash_t)INFO(s)->d + 1; }

static PyType_Slot finfo_slots[] = {
    {Py_tp_new, finfo_new}, {Py_tp_repr, finfo_repr}, {Py_tp_str, finfo_repr},
    {Py_tp_getset, finfo_getset}, {Py_tp_richcompare, info_richcompare}, {Py_tp_hash, info_hash}, {0, NULL},
};
static PyType_Slot iinfo_slots[] = {
    {Py_tp_new, iinfo_new}, {Py_tp_repr, iinfo_repr}, {Py_tp_str, iinfo_repr},
    {Py_tp_getset, iinfo_getset}, {Py_tp_richcompare, info_richcompare}, {Py_tp_hash, info_hash}, {0, NULL},
};
static PyType_Spec finfo_spec = {"torch.finfo", sizeof(tn_info_obj), 0, Py_TPFLAGS_DEFAULT, finfo_slots};
static PyType_Spec iinfo_spec = {"torch.iinfo", sizeof(tn_info_obj), 0, Py_TPFLAGS_DEFAULT, iinfo_slots};

/* ---------------------------------------------------------------------------------------------
 * layout, memory_format, qscheme: named singletons */

typedef struct {
    PyObject_HEAD
    const char *name;
} tn_named_obj;

enum { REDUCE_NONE, REDUCE_QUALIFIED, REDUCE_BARE };

static PyObject *named_repr(PyObject *s) { return PyUnicode_FromFormat("torch.%s", ((tn_named_obj *)s)->name); }
static PyObject *named_reduce_q(PyObject *s, PyObject *u) { return named_repr(s); }
static PyObject *named_reduce_b(PyObject *s, PyObject *u) { return PyUnicode_FromString(((tn_named_obj *)s)->name); }
static PyMethodDef memfmt_methods[] = {{"__reduce__", named_reduce_q, METH_NOARGS, NULL}, {NULL}};
static PyMethodDef qscheme_methods[] = {{"__reduce__", named_reduce_b, METH_NOARGS, NULL}, {NULL}};
static PyType_Slot layout_slots[] = {{Py_tp_repr, named_repr}, {0, NULL}};
static PyType_Slot memfmt_slots[] = {{Py_tp_repr, named_repr}, {Py_tp_methods, memfmt_methods}, {0, NULL}};
static PyType_Slot qscheme_slots[] = {{Py_tp_repr, named_repr}, {Py_tp_methods, qscheme_methods}, {0, NULL}};
#define NAMED_FLAGS (Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION)
static PyType_Spec layout_spec = {"torch.layout", sizeof(tn_named_obj), 0, NAMED_FLAGS, layout_slots};
static PyType_Spec memfmt_spec = {"torch.memory_format", sizeof(tn_named_obj), 0, NAMED_FLAGS, memfmt_slots};
static PyType_Spec qscheme_spec = {"torch.qscheme", sizeof(tn_named_obj), 0, NAMED_FLAGS, qscheme_slots};

static const char *const layout_names[] = {"strided", "sparse_coo", "sparse_csr", "sparse_csc",
                                           "sparse_bsr", "sparse_bsc", "_mkldnn", "jagged", NULL};
static const char *const memfmt_names[] = {"preserve_format", "contiguous_format", "channels_last",
                                           "channels_last_3d", NULL};
static const char *const qscheme_names[] = {"per_tensor_affine", "per_channel_affine", "per_tensor_symmetric",
                                            "per_channel_symmetric", "per_channel_affine_float_qparams", NULL};

/* name -> object, in creation order, for _initExtension (which writes them into torch) */
static PyObject *named_all;   /* dict */

static PyObject *named_make(PyTypeObject *tp, const char *name) {
    tn_named_obj *o = PyObject_New(tn_named_obj, tp);
    if (!o) return NULL;
    o->name = name;
    if (PyDict_SetItemString(named_all, name, (PyObject *)o) < 0) {
        Py_DECREF(o);
        return NULL;
    }
    return (PyObject *)o;
}

/* ---------------------------------------------------------------------------------------------
 * device */

static const char *const device_types[] = {
    "cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve", "fpga",
    "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone", NULL,
};
/* upstream's c10::DeviceType numbers, for hashing */
static const int device_type_ids[] = {0, 1, 18, 12, 2, 3, 4, 5, 6, 10, 7, 8, 9, 17, 10, 13, 14, 15, 16, 19};
#define DEV_META 16

typedef struct {
    PyObject_HEAD
    int type;     /* index into device_types */
    int index;    /* -1: none */
} tn_device_obj;
#define DEV(o) ((tn_device_obj *)(o))

static PyObject *device_make(PyTypeObject *tp, int type, int index) {
    tn_device_obj *o = (tn_device_obj *)PyType_GenericAlloc(tp ? tp : tn_py.device_type, 0);
    if (!o) return NULL;
    o->type = type;
    o->index = index;
    return (PyObject *)o;
}

/* Parse "type" or "type:index" as upstream's c10::Device(string) does. */
static int device_parse_str(PyObject *s, int *type, int *index) {
    Py_ssize_t n;
    const char *str = PyUnicode_AsUTF8AndSize(s, &n);
    if (!str) return -1;
    if (n == 0) {
        PyErr_SetString(PyExc_RuntimeError, "Device string must not be empty");
        return -1;
    }
    Py_ssize_t i = 0;
    while (i < n && str[i] != ':') {
        char c = str[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'))
            goto invalid;
        i++;
    }
    Py_ssize_t tlen = i;
    int t = -1;
    for (int k = 0; device_types[k]; k++)
        if ((Py_ssize_t)strlen(device_types[k]) == tlen && memcmp(device_types[k], str, tlen) == 0) t = k;
    int idx = -1;
    if (i < n) {   /* ':' then digits, no sign, no leading zero */
        i++;
        if (i == n) goto invalid;
        if (str[i] == '0' && i + 1 < n) goto invalid;
        int64_t v = 0;
        for (; i < n; i++) {
            if (str[i] < '0' || str[i] > '9') goto invalid;
            v = v * 10 + (str[i] - '0');
            if (v > 127) goto invalid;
        }
        idx = (int)v;
    }
    if (t < 0) {
        PyErr_Format(PyExc_RuntimeError,
                     "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, "
                     "maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of "
                     "device string: %s", str);
        return -1;
    }
    if (t == 4 && PyErr_WarnEx(PyExc_UserWarning,
                               "'mkldnn' is no longer used as device type. So torch.device('mkldnn') will be "
                               "deprecated and removed in the future. Please use other valid device types instead.",
                               1) < 0)
        return -1;
    *type = t;
    *index = idx;
    return 0;
invalid:
    PyErr_Format(PyExc_RuntimeError, "Invalid device string: '%s'", str);
    return -1;
}

/* The device type of a device string ("cpu", "cuda:1") as an index into device_types, with
 * upstream's errors (autocast's device_type arguments). */
int tn_py_device_type_parse(PyObject *s, int *type) {
    int index;
    return device_parse_str(s, type, &index);
}

static PyObject *device_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    static char *kwl[] = {"type", "index", NULL};
    PyObject *t = NULL, *ix = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "O|O:device", kwl, &t, &ix)) return NULL;
    if (PyObject_TypeCheck(t, tn_py.device_type) && !ix) return Py_NewRef(t);
    if (PyLong_Check(t) && !ix) {
        long v = PyLong_AsLong(t);
        if (v == -1 && PyErr_Occurred()) return NULL;
        PyErr_SetString(PyExc_RuntimeError, v < 0 ? "Device index must not be negative"
                                                  : "Cannot access accelerator device when none is available.");
        return NULL;
    }
    if (!PyUnicode_Check(t)) {
        if (ix)
            PyErr_Format(PyExc_TypeError, "device(): argument 'type' (position 1) must be str, not %s",
                         tn_py_type_name(t));
        else
            PyErr_Format(PyExc_TypeError,
                         "device() received an invalid combination of arguments - got (%s), but expected one of:\n"
                         " * (torch.device device)\n * (str type, int index = -1)\n",
                         tn_py_type_name(t));
        return NULL;
    }
    int type, index;
    if (device_parse_str(t, &type, &index) < 0) return NULL;
    if (ix && ix != Py_None) {
        if (!PyLong_Check(ix)) {
            PyErr_Format(PyExc_TypeError, "device(): argument 'index' (position 2) must be int, not %s",
                         tn_py_type_name(ix));
            return NULL;
        }
        if (index >= 0) {
            PyErr_Format(PyExc_RuntimeError,
                         "type (string) must not include an index because index was passed explicitly: %U", t);
            return NULL;
        }
        long v = PyLong_AsLong(ix);
        if (v == -1 && PyErr_Occurred()) return NULL;
        if (v < 0) {
            PyErr_SetString(PyExc_RuntimeError, "Device index must not be negative");
            return NULL;
        }
        index = (int)v;
    }
    return device_make(tp, type, index);
}

static PyObject *device_repr(PyObject *s) {
    if (DEV(s)->index < 0) return PyUnicode_FromFormat("device(type='%s')", device_types[DEV(s)->type]);
    return PyUnicode_FromFormat("device(type='%s', index=%d)", device_types[DEV(s)->type], DEV(s)->index);
}
static PyObject *device_str(PyObject *s) {
    if (DEV(s)->index < 0) return PyUnicode_FromString(device_types[DEV(s)->type]);
    return PyUnicode_FromFormat("%s:%d", device_types[DEV(s)->type], DEV(s)->index);
}
static PyObject *device_richcompare(PyObject *a, PyObject *b, int op) {
    if (!PyObject_TypeCheck(a, tn_py.device_type) || !PyObject_TypeCheck(b, tn_py.device_type))
        Py_RETURN_NOTIMPLEMENTED;
    if (op != Py_EQ && op != Py_NE) {
        PyErr_SetString(PyExc_TypeError, "comparison not implemented");
        return NULL;
    }
    int eq = DEV(a)->type == DEV(b)->type && DEV(a)->index == DEV(b)->index;
    return PyBool_FromLong(op == Py_EQ ? eq : !eq);
}
static Py_hash_t device_hash(PyObject *s) {
    return ((Py_hash_t)device_type_ids[DEV(s)->type] << 8) | (uint8_t)DEV(s)->index;
}
static PyObject *device_get_type(PyObject *s, void *c) { return PyUnicode_FromString(device_types[DEV(s)->type]); }
static PyObject *device_get_index(PyObject *s, void *c) {
    if (DEV(s)->index < 0) Py_RETURN_NONE;
    return PyLong_FromLong(DEV(s)->index);
}
static PyObject *device_reduce(PyObject *s, PyObject *u) {
    if (DEV(s)->index < 0)
        return Py_BuildValue("(O(s))", (PyObject *)Py_TYPE(s), device_types[DEV(s)->type]);
    return Py_BuildValue("(O(si))", (PyObject *)Py_TYPE(s), device_types[DEV(s)->type], DEV(s)->index);
}

/* `with torch.device(...)`: upstream enters a torch.utils._device.DeviceContext; we keep the
 * entered contexts on a stack so __exit__ leaves the right one. */
static PyObject *device_ctx_stack;
static PyObject *device_enter(PyObject *s, PyObject *u) {
    PyObject *mod = PyImport_ImportModule("torch.utils._device");
    if (!mod) return NULL;
    PyObject *ctx = PyObject_CallMethod(mod, "DeviceContext", "O", s);
    Py_DECREF(mod);
    if (!ctx) return NULL;
    PyObject *r = PyObject_CallMethod(ctx, "__enter__", NULL);
    if (!r || PyList_Append(device_ctx_stack, ctx) < 0) {
        Py_XDECREF(r);
        Py_DECREF(ctx);
        return NULL;
    }
    Py_DECREF(ctx);
    Py_DECREF(r);
    return Py_NewRef(s);
}
static PyObject *device_exit(PyObject *s, PyObject *args) {
    Py_ssize_t n = PyList_Size(device_ctx_stack);
    if (n <= 0) Py_RETURN_NONE;
    PyObject *ctx = PyList_GetItem(device_ctx_stack, n - 1);
    Py_INCREF(ctx);
    if (PySequence_DelItem(device_ctx_stack, n - 1) < 0) {
        Py_DECREF(ctx);
        return NULL;
    }
    PyObject *exit = PyObject_GetAttrString(ctx, "__exit__");
    Py_DECREF(ctx);
    if (!exit) return NULL;
    PyObject *r = PyObject_Call(exit, args, NULL);
    Py_DECREF(exit);
    if (!r) return NULL;
    Py_DECREF(r);
    Py_RETURN_NONE;
}

static PyGetSetDef device_getset[] = {
    {"type", device_get_type, NULL, NULL, NULL},
    {"index", device_get_index, NULL, NULL, NULL},
    {NULL},
};
static PyMethodDef device_methods[] = {
    {"__reduce__", device_reduce, METH_NOARGS, NULL},
    {"__enter__", device_enter, METH_NOARGS, NULL},
    {"__exit__", device_exit, METH_VARARGS, NULL},
    {NULL},
};
static PyType_Slot device_slots[] = {
    {Py_tp_new, device_new}, {Py_tp_repr, device_repr}, {Py_tp_str, device_str},
    {Py_tp_richcompare, device_richcompare}, {Py_tp_hash, device_hash},
    {Py_tp_getset, device_getset}, {Py_tp_methods, device_methods}, {0, NULL},
};
static PyType_Spec device_spec = {"torch.device", sizeof(tn_device_obj), 0, Py_TPFLAGS_DEFAULT, device_slots};

int tn_py_parse_device(PyObject *o, tn_device_type *type, int *index) {
    int t, ix;
    if (PyObject_TypeCheck(o, tn_py.device_type)) {
        t = DEV(o)->type;
        ix = DEV(o)->index;
    } else if (PyUnicode_Check(o)) {
        if (device_parse_str(o, &t, &ix) < 0) return -1;
    } else if (PyLong_Check(o)) {
        long v = PyLong_AsLong(o);
        if (v == -1 && PyErr_Occurred()) return -1;
        PyErr_SetString(PyExc_RuntimeError, v < 0 ? "Device index must not be negative"
                                                  : "Cannot access accelerator device when none is available.");
        return -1;
    } else {
        PyErr_Format(PyExc_TypeError, "expected torch.device, str or int, but got %s", tn_py_type_name(o));
        return -1;
    }
    if (t == 0) *type = TN_DEVICE_CPU;
    else if (t == DEV_META) *type = TN_DEVICE_META;
    else {
        PyErr_Format(PyExc_RuntimeError, "torchnative: device type '%s' is not available (CPU-only build)",
                     device_types[t]);
        return -1;
    }
    if (index) *index = ix;
    return 0;
}

/* Upstream's Python bindings, after parsing a device argument of a type it initializes lazily
 * (CUDA, XPU, HPU, MTIA, PrivateUse1), import torch.<type> and call its _lazy_init() before the op
 * runs; on a CPU-only build that raises (AssertionError "Torch not compiled with CUDA enabled",
 * ModuleNotFoundError for torch.hpu). A device argument tn_py_parse_device refused (the
 * RuntimeError pending) is replaced by that error when o names such a type; the torch.ops path
 * does not call this (upstream's dispatcher refuses there, docs/breadth_more2.md). */
int tn_py_device_lazy_init(PyObject *o) {
    int t = -1, ix;
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
    if (PyObject_TypeCheck(o, tn_py.device_type)) t = DEV(o)->type;
    else if (PyUnicode_Check(o) && device_parse_str(o, &t, &ix) < 0) { PyErr_Clear(); t = -1; }
    static const char *const lazy[] = {"cuda", "xpu", "hpu", "mtia", "privateuseone", NULL};
    bool found = false;
    for (int k = 0; t >= 0 && lazy[k]; k++) found = found || !strcmp(device_types[t], lazy[k]);
    if (!found) { PyErr_Restore(et, ev, tb); return -1; }
    char name[32];
    snprintf(name, sizeof name, "torch.%s", device_types[t]);
    PyObject *mod = PyImport_ImportModule(name);
    PyObject *r = mod ? PyObject_CallMethod(mod, "_lazy_init", NULL) : NULL;
    Py_XDECREF(mod);
    if (!r) {   /* upstream's error stands */
        Py_XDECREF(et); Py_XDECREF(ev); Py_XDECREF(tb);
        return -1;
    }
    Py_DECREF(r);
    PyErr_Restore(et, ev, tb);
    return -1;
}

/* upstream's dispatch key of the accelerators whose backend its dispatcher reports as missing
 * ("Could not run 'aten::empty.memory_format' with arguments from the 'CUDA' backend"), by
 * device_types index; NULL for the types it refuses otherwise (the grandfathered Caffe2 types'
 * INTERNAL ASSERT, fpga / maia / vulkan without Quantized / Sparse keys), cpu and meta */
static const char *const device_backends[] = {
    NULL, "CUDA", "IPU", "XPU", NULL, NULL, NULL, NULL, "HIP", "VE", NULL,
    NULL, "XLA", "Lazy", NULL, "MPS", NULL, "HPU", "MTIA", "PrivateUse1",
};

const char *tn_py_device_backend(PyObject *o) {
    int t = -1, ix;
    if (PyObject_TypeCheck(o, tn_py.device_type)) t = DEV(o)->type;
    else if (PyUnicode_Check(o) && device_parse_str(o, &t, &ix) < 0) {
        PyErr_Clear();
        return NULL;
    }
    return t >= 0 && t < (int)(sizeof device_backends / sizeof *device_backends) ? device_backends[t] : NULL;
}

/* a device upstream's parser takes whose type this build lacks (cuda, mkldnn, vulkan, ...): a device
 * object or string of a type other than cpu / meta (a string that does not parse: false) */
bool tn_py_device_unbuilt(PyObject *o) {
    int t = -1, ix;
    if (PyObject_TypeCheck(o, tn_py.device_type)) t = DEV(o)->type;
    else if (PyUnicode_Check(o) && device_parse_str(o, &t, &ix) < 0) {
        PyErr_Clear();
        return false;
    }
    return t > 0 && t != DEV_META;
}

PyObject *tn_py_device_new(tn_device_type type, int index) {
    return device_make(NULL, type == TN_DEVICE_META ? DEV_META : 0, index);
}

/* ---------------------------------------------------------------------------------------------
 * Size: a tuple subclass */

static newfunc tuple_new;

static PyObject *size_from_tuple(PyTypeObject *tp, PyObject *tup) {
    PyObject *args = PyTuple_Pack(1, tup);
    if (!args) return NULL;
    PyObject *r = tuple_new(tp ? tp : tn_py.size_type, args, NULL);
    Py_DECREF(args);
    return r;
}

PyObject *tn_py_size_new(int ndim, const int64_t *sizes) {
    PyObject *t = PyTuple_New(ndim);
    if (!t) return NULL;
    for (int i = 0; i < ndim; i++) {
        PyObject *v = PyLong_FromLongLong(sizes[i]);
        if (!v) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SetItem(t, i, v);
    }
    PyObject *r = size_from_tuple(NULL, t);
    Py_DECREF(t);
    return r;
}

bool tn_py_is_symint(PyObject *o) {
    if (PyLong_Check(o)) return false;
    PyObject *torch = PyImport_AddModule("torch");   /* borrowed */
    PyObject *si = torch ? PyObject_GetAttrString(torch, "SymInt") : NULL;
    int r = si && PyType_Check(si) ? PyObject_IsInstance(o, si) : 0;
    Py_XDECREF(si);
    if (r < 0 || !si) PyErr_Clear();
    return r > 0;
}

static PyObject *size_new(PyTypeObject *tp, PyObject *args, PyObject *kw) {
    PyObject *src = NULL;
    if (!PyArg_ParseTuple(args, "|O:Size", &src)) return NULL;
    if (!src) return size_from_tuple(tp, args);   /* empty tuple */
    PyObject *seq = PySequence_Fast(src, "'object' is not iterable");
    if (!seq) {
        PyErr_Clear();
        PyObject *it = PyObject_GetIter(src);   /* re-raise iter()'s own TypeError */
        if (!it) return NULL;
        seq = PySequence_List(it);
        Py_DECREF(it);
        if (!seq) return NULL;
    }
    Py_ssize_t n = PySequence_Size(seq);
    PyObject *t = PyTuple_New(n);
    if (!t) goto fail;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PySequence_GetItem(seq, i);
        if (!it) goto fail;
        PyObject *v = NULL;
        if (PyLong_Check(it)) {
            v = PyNumber_Index(it);
        } else if (tn_py_is_symint(it)) {   /* kept as it is (a jagged tensor's nested int), as upstream */
            PyTuple_SetItem(t, i, it);
            continue;
        } else if (!PyFloat_Check(it) && PyObject_HasAttrString(it, "__index__")) {
            v = PyNumber_Index(it);
        } else {
            PyErr_Format(PyExc_TypeError, "torch.Size() takes an iterable of 'int' (item %zd is '%s')", i,
                         tn_py_type_name(it));
        }
        Py_DECREF(it);
        if (!v) goto fail;
        int ovf;
        PyLong_AsLongLongAndOverflow(v, &ovf);
        if (ovf) {
            Py_DECREF(v);
            PyErr_SetString(PyExc_ValueError, "Overflow when unpacking long long");
            goto fail;
        }
        if (PyBool_Check(v)) {   /* bool is an int: stored as the plain int */
            PyObject *w = PyLong_FromLong(v == Py_True);
            Py_DECREF(v);
            v = w;
        }
        PyTuple_SetItem(t, i, v);
    }
    Py_DECREF(seq);
    PyObject *r = size_from_tuple(tp, t);
    Py_DECREF(t);
    return r;
fail:
    Py_XDECREF(t);
    Py_DECREF(seq);
    return NULL;
}

static PyObject *size_repr(PyObject *s) {
    Py_ssize_t n = PyTuple_Size(s);
    PyObject *l = PySequence_List(s);
    if (!l) return NULL;
    PyObject *lr = PyObject_Repr(l);
    Py_DECREF(l);
    if (!lr) return NULL;
    PyObject *r = PyUnicode_FromFormat("torch.Size(%U)", lr);
    Py_DECREF(lr);
    (void)n;
    return r;
}

static PyObject *as_size(PyObject *r) {   /* wrap a tuple result as Size */
    if (!r || !PyTuple_Check(r)) return r;
    PyObject *s = size_from_tuple(NULL, r);
    Py_DECREF(r);
    return s;
}
static PyObject *tuple_slot(PyObject *self, int slot, PyObject *a, PyObject *b) {
    binaryfunc f = (binaryfunc)PyType_GetSlot(&PyTuple_Type, slot);
    return f(a, b);
}
static PyObject *size_getitem(PyObject *s, PyObject *key) {
    PyObject *r = tuple_slot(s, Py_mp_subscript, s, key);
    if (r && PySlice_Check(key)) return as_size(r);
    return r;
}
static PyObject *size_add(PyObject *a, PyObject *b) {
    if (!PyTuple_Check(a) || !PyTuple_Check(b)) {
        PyObject *other = PyTuple_Check(a) ? b : a;
        PyErr_Format(PyExc_TypeError, "can only concatenate tuple (not \"%s\") to tuple", tn_py_type_name(other));
        return NULL;
    }
    PyObject *ta = PySequence_Tuple(a), *tb = ta ? PySequence_Tuple(b) : NULL;
    if (!tb) {
        Py_XDECREF(ta);
        return NULL;
    }
    PyObject *r = PySequence_Concat(ta, tb);
    Py_DECREF(ta);
    Py_DECREF(tb);
    return as_size(r);
}
static PyObject *size_mul(PyObject *a, PyObject *b) {
    PyObject *seq = PyTuple_Check(a) ? a : b, *cnt = PyTuple_Check(a) ? b : a;
    Py_ssize_t n = PyNumber_AsSsize_t(cnt, PyExc_OverflowError);
    if (n == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_NOTIMPLEMENTED;
    }
    PyObject *t = PySequence_Tuple(seq);
    if (!t) return NULL;
    PyObject *r = PySequence_Repeat(t, n);
    Py_DECREF(t);
    return as_size(r);
}
static PyObject *size_numel(PyObject *s, PyObject *u) {
    Py_ssize_t n = PyTuple_Size(s);
    PyObject *acc = PyLong_FromLong(1);
    for (Py_ssize_t i = 0; acc && i < n; i++) {
        PyObject *r = PyNumber_Multiply(acc, PyTuple_GetItem(s, i));
        Py_DECREF(acc);
        acc = r;
    }
    return acc;
}
static PyObject *size_reduce(PyObject *s, PyObject *u) {
    PyObject *t = PySequence_Tuple(s);
    if (!t) return NULL;
    PyObject *r = Py_BuildValue("(O(N))", (PyObject *)Py_TYPE(s), t);
    return r;
}
static PyObject *size_getnewargs(PyObject *s, PyObject *u) {
    PyObject *t = PySequence_Tuple(s);
    if (!t) return NULL;
    return Py_BuildValue("(N)", t);
}
static PyMethodDef size_methods[] = {
    {"numel", size_numel, METH_NOARGS, NULL},
    {"__reduce__", size_reduce, METH_NOARGS, NULL},
    {"__getnewargs__", size_getnewargs, METH_NOARGS, NULL},
    {NULL},
};
static PyType_Slot size_slots[] = {
    {Py_tp_new, size_new}, {Py_tp_repr, size_repr}, {Py_tp_methods, size_methods},
    {Py_mp_subscript, size_getitem}, {Py_nb_add, size_add}, {Py_nb_multiply, size_mul},
    {Py_sq_concat, size_add}, {0, NULL},
};
static PyType_Spec size_spec = {"torch.Size", 0, 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE, size_slots};

/* ---------------------------------------------------------------------------------------------
 * init */

PyObject *tn_py_named_constants(void) { return named_all; }

static int add_type(PyObject *m, const char *name, PyType_Spec *spec, PyObject *bases, PyTypeObject **out) {
    PyObject *t = PyType_FromSpecWithBases(spec, bases);
    if (!t) return -1;
    if (out) *out = (PyTypeObject *)t;
    return PyModule_AddObjectRef(m, name, t) < 0 ? -1 : (Py_DECREF(t), 0) ;
}

int tn_types_enum_init(PyObject *m);
int tn_types_gen_init(PyObject *m);

int tn_types_init(PyObject *m) {
    PyTypeObject *finfo_t, *iinfo_t, *layout_t, *memfmt_t, *qscheme_t;
    tuple_new = (newfunc)PyType_GetSlot(&PyTuple_Type, Py_tp_new);
    named_all = PyDict_New();
    device_ctx_stack = PyList_New(0);
    if (!named_all || !device_ctx_stack) return -1;
    PyObject *tuple_base = PyTuple_Pack(1, (PyObject *)&PyTuple_Type);
    if (!tuple_base) return -1;
    int rc = add_type(m, "Size", &size_spec, tuple_base, &tn_py.size_type);
    Py_DECREF(tuple_base);
    if (rc < 0 || add_type(m, "dtype", &dtype_spec, NULL, &tn_py.dtype_type) < 0 ||
        add_type(m, "finfo", &finfo_spec, NULL, &finfo_t) < 0 || add_type(m, "iinfo", &iinfo_spec, NULL, &iinfo_t) < 0 ||
        add_type(m, "layout", &layout_spec, NULL, &layout_t) < 0 ||
        add_type(m, "memory_format", &memfmt_spec, NULL, &memfmt_t) < 0 ||
        add_type(m, "qscheme", &qscheme_spec, NULL, &qscheme_t) < 0 ||
        add_type(m, "device", &device_spec, NULL, &tn_py.device_type) < 0)
        return -1;
    tn_py.layout_type = layout_t;
    tn_py.memory_format_type = memfmt_t;
    for (int d = 0; d < TN_DTYPE_COUNT; d++) {
        tn_dtype_obj *o = PyObject_New(tn_dtype_obj, tn_py.dtype_type);
        if (!o) return -1;
        o->d = (tn_dtype)d;
        tn_py.dtypes[d] = (PyObject *)o;
    }
    for (int i = 0; layout_names[i]; i++) {
        PyObject *o = named_make(layout_t, layout_names[i]);
        if (!o) return -1;
        if (i == 0) tn_py.layout_strided = o;
        else if (i == 1) tn_py.layout_sparse_coo = o;
        else if (i == 2) tn_py.layout_sparse_csr = o;
        else if (i == 3) tn_py.layout_sparse_csc = o;
        else if (i == 4) tn_py.layout_sparse_bsr = o;
        else if (i == 5) tn_py.layout_sparse_bsc = o;
        else if (i == 7) tn_py.layout_jagged = o;
        /* upstream's Layout numbers (layout_names is in creation order) */
        static const int code[] = {0, 1, 2, 4, 5, 6, 3, 7};
        tn_py.layout_codes[code[i]] = o;   /* borrowed from named_all, as the others */
        if (i == 6) Py_DECREF(o);
    }
    for (int i = 0; memfmt_names[i]; i++) {
        PyObject *o = named_make(memfmt_t, memfmt_names[i]);
        if (!o) return -1;
        if (i == 0) tn_py.memory_format_preserve = o;
        else if (i == 1) tn_py.memory_format_contiguous = o;
        else if (i == 2) tn_py.memory_format_channels_last = o;
        else tn_py.memory_format_channels_last_3d = o;
    }
    if (PyDict_SetItemString(named_all, "legacy_contiguous_format", tn_py.memory_format_contiguous) < 0) return -1;
    for (int i = 0; qscheme_names[i]; i++) {
        PyObject *o = named_make(qscheme_t, qscheme_names[i]);
        if (!o) return -1;
        Py_DECREF(o);
    }
    tn_py.device_cpu = device_make(NULL, 0, -1);
    tn_py.device_meta = device_make(NULL, DEV_META, -1);
    if (!tn_py.device_cpu || !tn_py.device_meta) return -1;
    return tn_types_enum_init(m) < 0 || tn_types_gen_init(m) < 0 ? -1 : 0;
}
