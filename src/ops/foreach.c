/* foreach.c — the _foreach_* list operators as upstream's CPU "slow" kernels
 * (ATen/native/ForeachOpsKernels.cpp): check the lists, then run the per-tensor operator on
 * each index — `t.add_(other, alpha)`, `at::linalg_vector_norm(t, ord, {}, false, dtype)`, ... —
 * so results are the per-tensor op's bits. maximum / minimum run upstream's clamp_min / clamp_max
 * kernels. Per-tensor ops are called by table row below the door (a dispatch mode sees the
 * _foreach_ op only, as upstream).
 *
 * Each overload is described by a per-tensor op and an argument recipe: for each argument of the
 * per-tensor schema, 'L'k = element i of the tensor list a[k], 'V'k = a[k] as given, 'S'k =
 * element i of the scalar list a[k] (int, bool, float or complex, as given), 'T'k = element i of
 * the packed 1-D scalar tensor a[k], '1' = the number 1 (a default alpha / value). The first 'L'
 * gives the length. Functional overloads return a tuple (torch.ops makes it a list), in-place ones
 * None. */
#include "ops/common.h"

#include <math.h>
#include <stdio.h>

static PyObject *check_fail(const char *msg) {
    PyErr_SetString(PyExc_RuntimeError, msg);
    return NULL;
}

/* The row of a per-tensor op; cached by the caller. */
static int row_of(const char *name, const char *ovl, int *cache) {
    if (*cache == 0) {
        int r = tn_op_find(name, ovl);
        *cache = r < 0 ? -1 : r + 1;
    }
    if (*cache < 0 || !tn_op_at(*cache - 1)->fn) {
        PyErr_Format(PyExc_NotImplementedError, "torchnative: aten::%s.%s is not implemented", name, ovl);
        return -1;
    }
    return *cache - 1;
}

/* Extra checks some overloads make besides (or instead of) check_foreach_api_restrictions. */
enum { FE_PLAIN, FE_MM, FE_MAX };

typedef struct {
    const char *op, *ovl;  /* per-tensor op */
    const char *recipe;    /* e.g. "L0 L1 V2" */
    int check;             /* FE_* */
    int row;               /* cache */
} fe_spec;

/* upstream's convert_tensor_to_scalar_list: a 1-D tensor of one scalar per list element, each
 * taken as a Scalar of the tensor's kind (int, bool, float or complex) */
static int packed_scalars_check(const tn_tensor *t, Py_ssize_t len) {
    if (t->ndim != 1) {
        PyErr_Format(PyExc_RuntimeError, "Expected packed scalar Tensor to be of dimension 1. Got %d instead.", t->ndim);
        return -1;
    }
    if (t->sizes[0] != len) {
        PyErr_Format(PyExc_RuntimeError, "Expected length of scalars to match input of length %zd but got %lld instead.",
                     len, (long long)t->sizes[0]);
        return -1;
    }
    return 0;
}

/* the packed scalars widened once (int64, bool, float64 or complex128; contiguous) */
static PyObject *packed_widen(PyObject *packed) {
    const tn_tensor *t = tn_tensor_of(packed);
    tn_dtype wide = tn_dtype_is_complex(t->dtype) ? TN_DTYPE_C128
                    : t->dtype == TN_DTYPE_BOOL ? TN_DTYPE_BOOL
                    : tn_dtype_is_integral(t->dtype, false) ? TN_DTYPE_I64 : TN_DTYPE_F64;
    return tn_as_dtype(packed, wide, true);
}

static void packed_scalar(PyObject *wide, Py_ssize_t i, tn_value *out) {
    const tn_tensor *t = tn_tensor_of(wide);
    const char *p = tn_data(t) + i * tn_dtype_itemsize(t->dtype);
    memset(out, 0, sizeof *out);
    if (t->dtype == TN_DTYPE_C128) { out->tag = TN_V_COMPLEX; memcpy(&out->u.c.re, p, 8); memcpy(&out->u.c.im, p + 8, 8); }
    else if (t->dtype == TN_DTYPE_BOOL) { out->tag = TN_V_BOOL; out->u.i = *p != 0; }
    else if (t->dtype == TN_DTYPE_I64) { out->tag = TN_V_INT; memcpy(&out->u.i, p, 8); }
    else { out->tag = TN_V_FLOAT; memcpy(&out->u.f, p, 8); }
}

static PyObject *run(fe_spec *sp, tn_value *a, bool inplace) {
    /* parse recipe */
    char kind[8];
    int src[8], n = 0, first = -1;
    for (const char *p = sp->recipe; *p && n < 8; p++) {
        if (*p == ' ') continue;
        kind[n] = *p;
        src[n] = *p == '1' ? 0 : p[1] - '0';
        if (*p != '1') p++;
        if (kind[n] == 'L' && first < 0) first = src[n];
        n++;
    }
    Py_ssize_t len = PyTuple_Size(a[first].u.obj);
    for (int j = 0; j < n; j++) {   /* a scalar tensor is checked before the lists */
        if (kind[j] == 'T' && packed_scalars_check(TN_T(a[src[j]]), len) < 0) return NULL;
        if (kind[j] == 'V' && a[src[j]].tag == TN_V_TENSOR) {
            const tn_tensor *t = TN_T(a[src[j]]);
            if (t->ndim != 0 || tn_numel(t) != 1) {
                PyErr_Format(PyExc_RuntimeError, "scalar tensor expected to be 0 dim but it has %d dimensions and %lld elements.",
                             t->ndim, (long long)tn_numel(t));
                return NULL;
            }
        }
    }
    if (sp->check == FE_MM) {
        if (len == 0) return check_fail("_foreach_mm requires non-empty tensor lists");
        if (PyTuple_Size(a[1].u.obj) != len) return check_fail("_foreach_mm: self and mat2 must have the same number of tensors");
    }
    if (len == 0) return check_fail("Tensor list must have at least one tensor.");
    for (int j = 0; j < n; j++) {
        if (kind[j] == 'L' && src[j] != first) {
            Py_ssize_t m = PyTuple_Size(a[src[j]].u.obj);
            if (m != len) {
                PyErr_Format(PyExc_RuntimeError, "Tensor lists must have the same number of tensors, got %zd and %zd",
                             len, m);
                return NULL;
            }
        } else if (kind[j] == 'S' && a[src[j]].u.floats.n != len) {
            return check_fail("Tensor list must have same number of elements as scalar list.");
        }
    }
    int row = row_of(sp->op, sp->ovl, &sp->row);
    if (row < 0) return NULL;
    PyObject *wide = NULL;   /* the one packed scalars tensor ('T'), widened */
    for (int j = 0; j < n; j++)
        if (kind[j] == 'T' && !(wide = packed_widen(a[src[j]].u.obj))) return NULL;
    PyObject *res = inplace ? NULL : PyTuple_New(len);
    if (!inplace && !res) { Py_XDECREF(wide); return NULL; }
    for (Py_ssize_t i = 0; i < len; i++) {
        tn_value v[8];
        memset(v, 0, sizeof v);
        for (int j = 0; j < n; j++) {
            switch (kind[j]) {
            case 'L': v[j].tag = TN_V_TENSOR; v[j].u.obj = PyTuple_GetItem(a[src[j]].u.obj, i); break;
            case 'V': v[j] = a[src[j]]; break;
            case 'S': tn_scalarlist_get(&a[src[j]], (int)i, &v[j]); break;
            case 'T': packed_scalar(wide, i, &v[j]); break;
            default: v[j].tag = TN_V_INT; v[j].u.i = 1; v[j].defaulted = true; break;
            }
        }
        PyObject *r = NULL;
        /* on meta, upstream's in-place loops reach the per-tensor op's meta kernel: a reference's
         * refuses a CPU operand of a meta self at that index, or the reverse (pow_, clamp_min_,
         * lerp_, addcmul_, ...; add_ / mul_ check nothing), docs/breadth_more2.md */
        if (inplace && tn_door_stand_in_same_device(row, v) < 0) { Py_XDECREF(wide); return NULL; }
        /* copy_ of a meta src into a CPU self (the door's rule for copy_ itself, measured) */
        if (inplace && tn_door_on_meta() && !strcmp(sp->op, "copy_") &&
            tn_door_arg_device(v[1].u.obj) == TN_DEVICE_META && tn_door_arg_device(v[0].u.obj) != TN_DEVICE_META) {
            Py_XDECREF(wide);
            PyErr_SetString(PyExc_NotImplementedError, "Cannot copy out of meta tensor; no data!");
            return NULL;
        }
        if (sp->check == FE_MAX && tn_numel(TN_T(v[0])) == 0)
            check_fail("_foreach_max cannot compute the maximum of an empty tensor; max over zero elements is undefined.");
        else
            r = tn_op_at(row)->fn(v);
        if (!r) { Py_XDECREF(res); Py_XDECREF(wide); return NULL; }
        if (inplace) Py_DECREF(r);
        else PyTuple_SetItem(res, i, r);
    }
    Py_XDECREF(wide);
    if (inplace) Py_RETURN_NONE;
    return res;
}

#define FE(NAME, OP, OVL, RECIPE, INPLACE, CHECK)                                                 \
    PyObject *tn_op_##NAME(tn_value *a) {                                                          \
        static fe_spec sp = {OP, OVL, RECIPE, CHECK, 0};                                           \
        return run(&sp, a, INPLACE);                                                               \
    }
/* functional + in-place pair on the per-tensor op OP / OP_ */
#define FE2(NAME, OP, OVL, RECIPE)                                                                 \
    FE(_foreach_##NAME, #OP, OVL, RECIPE, false, FE_PLAIN)                                         \
    FE(_foreach_##NAME##_, #OP "_", OVL, RECIPE, true, FE_PLAIN)
/* the same for an overload name: _foreach_add.Scalar -> tn_op__foreach_add_Scalar / _add__Scalar */
#define FE2O(NAME, O, OP, OVL, RECIPE)                                                             \
    FE(_foreach_##NAME##_##O, #OP, OVL, RECIPE, false, FE_PLAIN)                                   \
    FE(_foreach_##NAME##__##O, #OP "_", OVL, RECIPE, true, FE_PLAIN)

FE2O(add, Scalar, add, "Scalar", "L0 V1 1")
FE2O(add, List, add, "Tensor", "L0 L1 V2")
FE2O(add, ScalarList, add, "Scalar", "L0 S1 1")
FE2O(add, Tensor, add, "Tensor", "L0 V1 V2")
FE2O(sub, Scalar, sub, "Scalar", "L0 V1 1")
FE2O(sub, List, sub, "Tensor", "L0 L1 V2")
FE2O(sub, ScalarList, sub, "Scalar", "L0 S1 1")
FE2O(mul, Scalar, mul, "Scalar", "L0 V1")
FE2O(mul, List, mul, "Tensor", "L0 L1")
FE2O(mul, ScalarList, mul, "Scalar", "L0 S1")
FE2O(mul, Tensor, mul, "Tensor", "L0 V1")
FE2O(div, Scalar, div, "Scalar", "L0 V1")
FE2O(div, List, div, "Tensor", "L0 L1")
FE2O(div, ScalarList, div, "Scalar", "L0 S1")
FE2O(div, Tensor, div, "Tensor", "L0 V1")

/* maximum / minimum are upstream's clamp_min / clamp_max kernels (native_functions.yaml) */
FE2O(clamp_min, Scalar, clamp_min, "", "L0 V1")
FE2O(clamp_min, List, clamp_min, "Tensor", "L0 L1")
FE2O(clamp_min, ScalarList, clamp_min, "", "L0 S1")
FE2O(clamp_max, Scalar, clamp_max, "", "L0 V1")
FE2O(clamp_max, List, clamp_max, "Tensor", "L0 L1")
FE2O(clamp_max, ScalarList, clamp_max, "", "L0 S1")
FE2O(maximum, Scalar, clamp_min, "", "L0 V1")
FE2O(maximum, List, clamp_min, "Tensor", "L0 L1")
FE2O(maximum, ScalarList, clamp_min, "", "L0 S1")
FE2O(minimum, Scalar, clamp_max, "", "L0 V1")
FE2O(minimum, List, clamp_max, "Tensor", "L0 L1")
FE2O(minimum, ScalarList, clamp_max, "", "L0 S1")

/* pow_.Tensor / pow_.Scalar are pow.Tensor_Tensor's / pow.Tensor_Scalar's in-place forms */
FE(_foreach_pow_List, "pow", "Tensor_Tensor", "L0 L1", false, FE_PLAIN)
FE(_foreach_pow__List, "pow_", "Tensor", "L0 L1", true, FE_PLAIN)
FE(_foreach_pow_Scalar, "pow", "Tensor_Scalar", "L0 V1", false, FE_PLAIN)
FE(_foreach_pow__Scalar, "pow_", "Scalar", "L0 V1", true, FE_PLAIN)
FE(_foreach_pow_ScalarList, "pow", "Tensor_Scalar", "L0 S1", false, FE_PLAIN)
FE(_foreach_pow__ScalarList, "pow_", "Scalar", "L0 S1", true, FE_PLAIN)
FE(_foreach_pow_ScalarAndTensor, "pow", "Scalar", "V0 L1", false, FE_PLAIN)

FE2O(addcmul, Scalar, addcmul, "", "L0 L1 L2 V3")
FE2O(addcmul, ScalarList, addcmul, "", "L0 L1 L2 S3")
FE2O(addcmul, Tensor, addcmul, "", "L0 L1 L2 T3")
FE2O(addcdiv, Scalar, addcdiv, "", "L0 L1 L2 V3")
FE2O(addcdiv, ScalarList, addcdiv, "", "L0 L1 L2 S3")
FE2O(addcdiv, Tensor, addcdiv, "", "L0 L1 L2 T3")

FE2O(lerp, Scalar, lerp, "Scalar", "L0 L1 V2")
FE2O(lerp, List, lerp, "Tensor", "L0 L1 L2")
FE2O(lerp, ScalarList, lerp, "Scalar", "L0 L1 S2")

FE2(abs, abs, "", "L0")
FE2(acos, acos, "", "L0")
FE2(asin, asin, "", "L0")
FE2(atan, atan, "", "L0")
FE2(ceil, ceil, "", "L0")
FE2(cos, cos, "", "L0")
FE2(cosh, cosh, "", "L0")
FE2(erf, erf, "", "L0")
FE2(erfc, erfc, "", "L0")
FE2(exp, exp, "", "L0")
FE2(expm1, expm1, "", "L0")
FE2(floor, floor, "", "L0")
FE2(frac, frac, "", "L0")
FE2(lgamma, lgamma, "", "L0")
FE2(log, log, "", "L0")
FE2(log10, log10, "", "L0")
FE2(log1p, log1p, "", "L0")
FE2(log2, log2, "", "L0")
FE2(neg, neg, "", "L0")
FE2(reciprocal, reciprocal, "", "L0")
FE2(round, round, "", "L0")
FE2(rsqrt, rsqrt, "", "L0")
FE2(sigmoid, sigmoid, "", "L0")
FE2(sign, sign, "", "L0")
FE2(sin, sin, "", "L0")
FE2(sinh, sinh, "", "L0")
FE2(sqrt, sqrt, "", "L0")
FE2(tan, tan, "", "L0")
FE2(tanh, tanh, "", "L0")
FE2(trunc, trunc, "", "L0")
FE(_foreach_zero_, "zero_", "", "L0", true, FE_PLAIN)

FE(_foreach_max, "max", "", "L0", false, FE_MAX)
FE(_foreach_clone, "clone", "", "L0 V1", false, FE_PLAIN)
FE(_foreach_mm, "mm", "", "L0 L1", false, FE_MM)
/* _foreach_copy_(Tensor(a!)[] self, Tensor[] src, bool non_blocking=False) -> () */
FE(_foreach_copy_, "copy_", "", "L0 L1 V2", true, FE_PLAIN)

/* _foreach_norm.Scalar / _foreach_powsum.Scalar(Tensor[] self, Scalar ord=2, ScalarType? dtype=None):
 * linalg_vector_norm / linalg__powsum(t, ord, dim=None, keepdim=False, dtype) per tensor. */
static PyObject *per_tensor_norm(tn_value *a, const char *op, int *cache, bool norm) {
    tn_value b[5];
    memset(b, 0, sizeof b);
    b[0].tag = TN_V_TENSOR;
    b[1] = a[1];
    b[2].tag = TN_V_NONE; b[2].defaulted = true;
    b[3].tag = TN_V_BOOL; b[3].u.i = 0; b[3].defaulted = true;
    b[4] = a[2];
    int row = row_of(op, "", cache);
    if (row < 0) return NULL;
    Py_ssize_t len = PyTuple_Size(a[0].u.obj);
    if (len == 0) return check_fail("Tensor list must have at least one tensor.");
    if (norm && a[1].tag != TN_V_INT && a[1].tag != TN_V_FLOAT)
        return check_fail("foreach_tensor_norm_slow expects ord to be integer or float");
    bool inf = norm && a[1].tag == TN_V_FLOAT && isinf(a[1].u.f) && a[1].u.f > 0;
    PyObject *res = PyTuple_New(len);
    for (Py_ssize_t i = 0; res && i < len; i++) {
        b[0].u.obj = PyTuple_GetItem(a[0].u.obj, i);
        if (inf && tn_numel(tn_tensor_of(b[0].u.obj)) == 0) {
            Py_CLEAR(res);
            return check_fail("_foreach_norm cannot compute the infinity norm on an empty tensor because the operation "
                              "does not have an identity");
        }
        PyObject *r = tn_op_at(row)->fn(b);
        if (!r) { Py_CLEAR(res); break; }
        PyTuple_SetItem(res, i, r);
    }
    return res;
}

PyObject *tn_op__foreach_norm_Scalar(tn_value *a) {
    static int cache;
    return per_tensor_norm(a, "linalg_vector_norm", &cache, true);
}

PyObject *tn_op__foreach_powsum_Scalar(tn_value *a) {
    static int cache;
    return per_tensor_norm(a, "linalg__powsum", &cache, false);
}

/* _foreach_copy(Tensor[] self, Tensor[] src, bool non_blocking=False) -> Tensor[] self_out: as
 * measured, one new tensor per self with its sizes, strides and dtype (kept even when not dense),
 * src copied into it; empty lists give an empty list. (Upstream does not check the lengths: a
 * shorter src gives a shorter result, a longer one reads past self; ours raises the list-length
 * error of _foreach_copy_.) */
PyObject *tn_op__foreach_copy(tn_value *a) {
    Py_ssize_t len = PyTuple_Size(a[0].u.obj);
    if (len == 0 && PyTuple_Size(a[1].u.obj) == 0) return PyTuple_New(0);
    PyObject *outs = PyTuple_New(len);
    for (Py_ssize_t i = 0; outs && i < len; i++) {
        const tn_tensor *t = tn_tensor_of(PyTuple_GetItem(a[0].u.obj, i));
        PyObject *r = tn_cr_empty_strided(t->ndim, t->sizes, t->strides, t->dtype, t->storage->device);
        if (!r) { Py_CLEAR(outs); break; }
        PyTuple_SetItem(outs, i, r);
    }
    if (!outs) return NULL;
    tn_value b[3] = {a[0], a[1], a[2]};
    b[0].u.obj = outs;
    PyObject *r = tn_op__foreach_copy_(b);
    if (!r) { Py_DECREF(outs); return NULL; }
    Py_DECREF(r);
    return outs;
}
