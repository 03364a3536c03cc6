/* foreach.c — the _foreach_* list operators as upstream's CPU "slow" kernels
 * (ATen/native/ForeachOpsKernels.cpp): check the lists, then run the per-tensor operator on
 * each index — `t.add_(other, alpha)`, `at::linalg_vector_norm(t, ord, {}, false, dtype)`, ... —
 * so results are the per-tensor op's bits. maximum_ has no in-place per-tensor op: upstream
 * computes at::maximum and copies back. Per-tensor ops are called by table row below the door
 * (a dispatch mode sees the _foreach_ op only, as upstream).
 *
 * Each overload is described by a per-tensor op and an argument recipe: for each argument of the
 * per-tensor schema, 'L'k = element i of the tensor list a[k], 'V'k = a[k] as given, 'S'k =
 * element i of the scalar list a[k], '1' = the number 1 (a default alpha / value). Scalar lists
 * arrive as doubles (an integer in a scalar list is used as a float). Functional overloads return
 * a tuple (torch.ops makes it a list), in-place ones None. */
#include "ops/common.h"

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

typedef struct {
    const char *op, *ovl;  /* per-tensor op */
    const char *recipe;    /* e.g. "L0 L1 V2" */
    int copy_back;         /* in-place through functional op + copy_ (maximum_) */
    int row;               /* cache */
} fe_spec;

static PyObject *run(fe_spec *sp, tn_value *a, bool inplace) {
    /* parse recipe */
    char kind[8];
    int src[8], n = 0;
    for (const char *p = sp->recipe; *p && n < 8; p++) {
        if (*p == ' ') continue;
        kind[n] = *p;
        src[n] = *p == '1' ? 0 : p[1] - '0';
        if (*p != '1') p++;
        n++;
    }
    Py_ssize_t len = PyTuple_Size(a[0].u.obj);
    if (len == 0) return check_fail("Tensor list must have at least one tensor.");
    for (int j = 0; j < n; j++) {
        if (kind[j] == 'L' && src[j] != 0) {
            Py_ssize_t m = PyTuple_Size(a[src[j]].u.obj);
            if (m != len) {
                PyErr_Format(PyExc_RuntimeError, "Tensor lists must have the same number of tensors, got %zd and %zd",
                             len, m);
                return NULL;
            }
        } else if (kind[j] == 'S' && a[src[j]].u.floats.n != len) {
            return check_fail("Tensor list must have same number of elements as scalar list.");
        } else if (kind[j] == 'V' && a[src[j]].tag == TN_V_TENSOR) {
            const tn_tensor *t = TN_T(a[src[j]]);
            if (t->ndim != 0 || tn_numel(t) != 1) {
                PyErr_Format(PyExc_RuntimeError, "scalar tensor expected to be 0 dim but it has %d dimensions and %lld elements.",
                             t->ndim, (long long)tn_numel(t));
                return NULL;
            }
        }
    }
    int row = row_of(sp->op, sp->ovl, &sp->row);
    if (row < 0) return NULL;
    static int copy_cache;
    int copy_row = inplace && sp->copy_back ? row_of("copy_", "", &copy_cache) : 0;
    if (copy_row < 0) return NULL;
    PyObject *res = inplace ? NULL : PyTuple_New(len);
    if (!inplace && !res) return NULL;
    for (Py_ssize_t i = 0; i < len; i++) {
        tn_value v[8];
        memset(v, 0, sizeof v);
        for (int j = 0; j < n; j++) {
            switch (kind[j]) {
            case 'L': v[j].tag = TN_V_TENSOR; v[j].u.obj = PyTuple_GetItem(a[src[j]].u.obj, i); break;
            case 'V': v[j] = a[src[j]]; break;
            case 'S': v[j].tag = TN_V_FLOAT; v[j].u.f = a[src[j]].u.floats.v[i]; break;
            default: v[j].tag = TN_V_INT; v[j].u.i = 1; v[j].defaulted = true; break;
            }
        }
        PyObject *r = tn_op_at(row)->fn(v);
        if (r && inplace && sp->copy_back) {
            tn_value c[3];
            memset(c, 0, sizeof c);
            c[0].tag = TN_V_TENSOR; c[0].u.obj = v[0].u.obj;
            c[1].tag = TN_V_TENSOR; c[1].u.obj = r;
            c[2].tag = TN_V_BOOL; c[2].u.i = 0;
            PyObject *r2 = tn_op_at(copy_row)->fn(c);
            Py_DECREF(r);
            r = r2;
        }
        if (!r) { Py_XDECREF(res); return NULL; }
        if (inplace) Py_DECREF(r);
        else PyTuple_SetItem(res, i, r);
    }
    if (inplace) Py_RETURN_NONE;
    return res;
}

#define FE(NAME, OP, OVL, RECIPE, INPLACE, COPYBACK)                                              \
    PyObject *tn_op_##NAME(tn_value *a) {                                                          \
        static fe_spec sp = {OP, OVL, RECIPE, COPYBACK, 0};                                        \
        return run(&sp, a, INPLACE);                                                               \
    }

FE(_foreach_add_Scalar, "add", "Scalar", "L0 V1 1", false, 0)
FE(_foreach_add__Scalar, "add_", "Scalar", "L0 V1 1", true, 0)
FE(_foreach_add_List, "add", "Tensor", "L0 L1 V2", false, 0)
FE(_foreach_add__List, "add_", "Tensor", "L0 L1 V2", true, 0)
FE(_foreach_add_ScalarList, "add", "Scalar", "L0 S1 1", false, 0)
FE(_foreach_add__ScalarList, "add_", "Scalar", "L0 S1 1", true, 0)
FE(_foreach_add_Tensor, "add", "Tensor", "L0 V1 V2", false, 0)
FE(_foreach_add__Tensor, "add_", "Tensor", "L0 V1 V2", true, 0)

FE(_foreach_mul_Scalar, "mul", "Scalar", "L0 V1", false, 0)
FE(_foreach_mul__Scalar, "mul_", "Scalar", "L0 V1", true, 0)
FE(_foreach_mul_List, "mul", "Tensor", "L0 L1", false, 0)
FE(_foreach_mul__List, "mul_", "Tensor", "L0 L1", true, 0)
FE(_foreach_mul_ScalarList, "mul", "Scalar", "L0 S1", false, 0)
FE(_foreach_mul__ScalarList, "mul_", "Scalar", "L0 S1", true, 0)
FE(_foreach_mul_Tensor, "mul", "Tensor", "L0 V1", false, 0)
FE(_foreach_mul__Tensor, "mul_", "Tensor", "L0 V1", true, 0)

FE(_foreach_div_Scalar, "div", "Scalar", "L0 V1", false, 0)
FE(_foreach_div__Scalar, "div_", "Scalar", "L0 V1", true, 0)
FE(_foreach_div_List, "div", "Tensor", "L0 L1", false, 0)
FE(_foreach_div__List, "div_", "Tensor", "L0 L1", true, 0)
FE(_foreach_div_ScalarList, "div", "Scalar", "L0 S1", false, 0)
FE(_foreach_div__ScalarList, "div_", "Scalar", "L0 S1", true, 0)
FE(_foreach_div_Tensor, "div", "Tensor", "L0 V1", false, 0)
FE(_foreach_div__Tensor, "div_", "Tensor", "L0 V1", true, 0)

FE(_foreach_maximum_List, "maximum", "", "L0 L1", false, 0)
FE(_foreach_maximum__List, "maximum", "", "L0 L1", true, 1)

FE(_foreach_addcmul_Scalar, "addcmul", "", "L0 L1 L2 V3", false, 0)
FE(_foreach_addcmul__Scalar, "addcmul_", "", "L0 L1 L2 V3", true, 0)
FE(_foreach_addcmul_ScalarList, "addcmul", "", "L0 L1 L2 S3", false, 0)
FE(_foreach_addcmul__ScalarList, "addcmul_", "", "L0 L1 L2 S3", true, 0)
FE(_foreach_addcdiv_Scalar, "addcdiv", "", "L0 L1 L2 V3", false, 0)
FE(_foreach_addcdiv__Scalar, "addcdiv_", "", "L0 L1 L2 V3", true, 0)
FE(_foreach_addcdiv_ScalarList, "addcdiv", "", "L0 L1 L2 S3", false, 0)
FE(_foreach_addcdiv__ScalarList, "addcdiv_", "", "L0 L1 L2 S3", true, 0)

FE(_foreach_lerp_Scalar, "lerp", "Scalar", "L0 L1 V2", false, 0)
FE(_foreach_lerp__Scalar, "lerp_", "Scalar", "L0 L1 V2", true, 0)
FE(_foreach_lerp_List, "lerp", "Tensor", "L0 L1 L2", false, 0)
FE(_foreach_lerp__List, "lerp_", "Tensor", "L0 L1 L2", true, 0)

FE(_foreach_neg, "neg", "", "L0", false, 0)
FE(_foreach_neg_, "neg_", "", "L0", true, 0)
FE(_foreach_sqrt, "sqrt", "", "L0", false, 0)
FE(_foreach_sqrt_, "sqrt_", "", "L0", true, 0)

FE(_foreach_sub_Scalar, "sub", "Scalar", "L0 V1 1", false, 0)
FE(_foreach_sub__Scalar, "sub_", "Scalar", "L0 V1 1", true, 0)
FE(_foreach_sub_List, "sub", "Tensor", "L0 L1 V2", false, 0)
FE(_foreach_sub__List, "sub_", "Tensor", "L0 L1 V2", true, 0)
FE(_foreach_sub_ScalarList, "sub", "Scalar", "L0 S1 1", false, 0)
FE(_foreach_sub__ScalarList, "sub_", "Scalar", "L0 S1 1", true, 0)
FE(_foreach_clamp_min_Scalar, "clamp_min", "", "L0 V1", false, 0)
FE(_foreach_clamp_min__Scalar, "clamp_min_", "", "L0 V1", true, 0)
FE(_foreach_clamp_max_Scalar, "clamp_max", "", "L0 V1", false, 0)
FE(_foreach_clamp_max__Scalar, "clamp_max_", "", "L0 V1", true, 0)
FE(_foreach_abs, "abs", "", "L0", false, 0)
FE(_foreach_abs_, "abs_", "", "L0", true, 0)
FE(_foreach_reciprocal, "reciprocal", "", "L0", false, 0)
FE(_foreach_reciprocal_, "reciprocal_", "", "L0", true, 0)
FE(_foreach_sign, "sign", "", "L0", false, 0)
FE(_foreach_sign_, "sign_", "", "L0", true, 0)
FE(_foreach_zero_, "zero_", "", "L0", true, 0)

/* _foreach_norm.Scalar(Tensor[] self, Scalar ord=2, ScalarType? dtype=None): linalg_vector_norm(
 * t, ord, dim=None, keepdim=False, dtype) per tensor. */
PyObject *tn_op__foreach_norm_Scalar(tn_value *a) {
    tn_value b[5];
    memset(b, 0, sizeof b);
    b[0].tag = TN_V_TENSOR;
    b[1] = a[1];
    b[2].tag = TN_V_NONE; b[2].defaulted = true;
    b[3].tag = TN_V_BOOL; b[3].u.i = 0; b[3].defaulted = true;
    b[4] = a[2];
    static int cache;
    int row = row_of("linalg_vector_norm", "", &cache);
    if (row < 0) return NULL;
    Py_ssize_t len = PyTuple_Size(a[0].u.obj);
    if (len == 0) return check_fail("Tensor list must have at least one tensor.");
    PyObject *res = PyTuple_New(len);
    for (Py_ssize_t i = 0; res && i < len; i++) {
        b[0].u.obj = PyTuple_GetItem(a[0].u.obj, i);
        PyObject *r = tn_op_at(row)->fn(b);
        if (!r) { Py_CLEAR(res); break; }
        PyTuple_SetItem(res, i, r);
    }
    return res;
}

/* _foreach_copy_(Tensor(a!)[] self, Tensor[] src, bool non_blocking=False) -> () */
PyObject *tn_op__foreach_copy_(tn_value *a) {
    static fe_spec sp = {"copy_", "", "L0 L1 V2", 0, 0};
    return run(&sp, a, true);
}
