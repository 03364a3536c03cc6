/* ops/nn.c — the neural-network operators transformer models dispatch: softmax / log_softmax
 * (and _safe_softmax), layer norm, RMS norm, scaled dot-product attention (the public op and
 * upstream's CPU flash overload and its backward), embedding, and isin.
 *
 * Each op validates as upstream does (exception types measured against torch 2.13.0), widens
 * f16/bf16 to f32 (f32 stays, f64 stays), runs a kernel of kernels/nn.h over contiguous or
 * strided buffers and narrows the result once. Composite upstream ops (softmax.int, layer_norm,
 * rms_norm, scaled_dot_product_attention) are computed directly here with the same results as
 * upstream's decompositions. */
#include "ops/common.h"
#include "ops/views.h"
#include "ops/pad.h"      /* tn_suggest_format */
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include "kernels/nn.h"
#include "core/parallel.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- helpers */


static bool nn_bool(const tn_value *v) { return (v->tag == TN_V_BOOL || v->tag == TN_V_INT) && v->u.i != 0; }

/* Convert a compute-dtype result to `dt` (steals res). */
static PyObject *nn_narrow(PyObject *res, tn_dtype dt) {
    if (!res) return NULL;
    PyObject *r = tn_as_dtype(res, dt, false);
    Py_DECREF(res);
    return r;
}

#define NN_BIG(n) ((n) >= 32768)

/* ---------------------------------------------------------------- softmax family */

typedef enum { NN_SOFTMAX, NN_LOG_SOFTMAX, NN_SAFE_SOFTMAX } nn_smax_kind;

/* Softmax of `self` (already in its final dtype) along dim. */
static PyObject *softmax_impl(nn_smax_kind kind, PyObject *self, int64_t dim_arg) {
    tn_tensor *t = tn_tensor_of(self);
    int dim;
    if (tn_wrap_dim_i(dim_arg, t->ndim, &dim) < 0) return NULL;
    bool last = t->ndim == 0 || dim == t->ndim - 1;
    /* an empty input returns before the kernel's dtype dispatch (any dtype); _safe_softmax's
     * masking then runs isneginf, which refuses complex and float8 (measured) */
    if (tn_numel(t) == 0) {
        if (kind == NN_SAFE_SOFTMAX && tn_dtype_is_complex(t->dtype)) {
            PyErr_SetString(PyExc_RuntimeError, "isneginf does not support complex inputs.");
            return NULL;
        }
        if (kind == NN_SAFE_SOFTMAX && tn_dtype_infos[t->dtype].kind == TN_KIND_FLOAT8)
            return tn_kernel_missing("isneginf_cpu", t->dtype);
        return tn_tensor_new_empty(t->ndim, t->sizes, t->dtype, TN_DEVICE_CPU);
    }
    if (!tn_nn_float(t->dtype))
        return tn_kernel_missing(kind == NN_LOG_SOFTMAX ? (last ? "log_softmax_lastdim_kernel_impl" : "log_softmax_kernel_impl")
                                                        : (last ? "softmax_lastdim_kernel_impl" : "softmax_kernel_impl"),
                                 t->dtype);
    tn_dtype ct = tn_nn_compute(t->dtype);
    int64_t outer = 1, n = t->ndim ? t->sizes[dim] : 1, inner = 1;
    for (int d = 0; d < t->ndim; d++) {
        if (d < dim) outer *= t->sizes[d];
        else if (d > dim) inner *= t->sizes[d];
    }
    PyObject *x = tn_as_dtype(self, ct, true);
    if (!x) return NULL;
    PyObject *y = tn_tensor_new_empty(t->ndim, t->sizes, ct, TN_DEVICE_CPU);
    if (!y) { Py_DECREF(x); return NULL; }
    int64_t total = outer * n * inner;
    if (total > 0) {
        char *xp = tn_data(tn_tensor_of(x)), *yp = tn_data(tn_tensor_of(y));
        bool lg = kind == NN_LOG_SOFTMAX, safe = kind == NN_SAFE_SOFTMAX;
        Py_BEGIN_ALLOW_THREADS
        if (ct == TN_DTYPE_F64) tn_softmax_f64((const double *)xp, (double *)yp, outer, n, inner, lg, safe);
        else tn_softmax_f32((const float *)xp, (float *)yp, outer, n, inner, lg, safe);
        Py_END_ALLOW_THREADS
    }
    Py_DECREF(x);
    return nn_narrow(y, t->dtype);
}

/* On meta, upstream's Meta kernel of _softmax (and of softmax.int, which reaches it) is a Python
 * function in the references' out wrapper that checks no dim and no dtype: half_to_float asserts
 * a half / bfloat16 self, the result is a contiguous empty tensor of self's dtype (float32 with
 * half_to_float), copied into out= by the references' safe cast (measured: docs/breadth_more2.md
 * "group meta (session 40)"). */
static PyObject *softmax_meta(PyObject *self, bool h2f, PyObject *out) {
    const tn_tensor *t = tn_tensor_of(self);
    if (h2f && t->dtype != TN_DTYPE_F16 && t->dtype != TN_DTYPE_BF16)
        return PyErr_Format(PyExc_AssertionError, "half_to_float is True but x.dtype is torch.%s, expected half or bfloat16",
                            tn_dtype_infos[t->dtype].name);
    PyObject *r = tn_tensor_new_empty(t->ndim, t->sizes, h2f ? TN_DTYPE_F32 : t->dtype, TN_DEVICE_CPU);
    if (!r || !out) return r;
    PyObject *o = tn_meta_copy_out(r, out, false);
    Py_DECREF(r);
    return o;
}

/* upstream's meta function wraps the dim and sets the output (out='s exact dtype: float with
 * half_to_float, else self's); the CPU kernel then refuses half_to_float, in softmax's words for
 * both. */
static PyObject *underscore_softmax(nn_smax_kind kind, tn_value *a, PyObject *out) {
    const tn_tensor *t = TN_T(a[0]);
    int64_t dim;
    if (kind == NN_SOFTMAX && tn_door_on_meta()) return softmax_meta(a[0].u.obj, nn_bool(&a[2]), out);
    if (tn_wrap_dim(a[1].u.i, t->ndim, &dim) < 0) return NULL;
    if (tn_out_dtype_exact(out, nn_bool(&a[2]) ? TN_DTYPE_F32 : t->dtype) < 0) return NULL;
    if (nn_bool(&a[2])) {
        PyErr_SetString(PyExc_RuntimeError, "softmax with half to float conversion is not supported on CPU");
        return NULL;
    }
    return tn_out_deliver(softmax_impl(kind, a[0].u.obj, a[1].u.i), out,
                          kind == NN_LOG_SOFTMAX ? "_log_softmax" : "_softmax");
}

/* softmax.int(self, dim, dtype=None): converts to dtype first when given. */
static PyObject *softmax_int(nn_smax_kind kind, tn_value *a, PyObject *out) {
    PyObject *x;
    if (a[2].tag == TN_V_DTYPE) {
        /* upstream's input.toType(dtype): to()'s empty_like, before the dim's wrap */
        if (a[2].u.dtype != TN_T(a[0])->dtype && tn_require_unquantized_result(a[2].u.dtype) < 0) return NULL;
        x = tn_as_dtype(a[0].u.obj, a[2].u.dtype, false);
        if (!x) return NULL;
    } else {
        x = Py_NewRef(a[0].u.obj);
    }
    if (kind == NN_SOFTMAX && tn_door_on_meta()) {
        PyObject *r = softmax_meta(x, false, out);
        Py_DECREF(x);
        return r;
    }
    /* out=: upstream's _softmax.out on the converted input, its meta's dim wrap then exact dtype */
    int64_t dim;
    if (out && (tn_wrap_dim(a[1].u.i, TN_T(a[0])->ndim, &dim) < 0 || tn_out_dtype_exact(out, tn_tensor_of(x)->dtype) < 0)) {
        Py_DECREF(x);
        return NULL;
    }
    PyObject *r = softmax_impl(kind, x, a[1].u.i);
    Py_DECREF(x);
    return tn_out_deliver_overlap(r, out, kind == NN_LOG_SOFTMAX ? "log_softmax" : "softmax", false);
}

PyObject *tn_op__softmax(tn_value *a) { return underscore_softmax(NN_SOFTMAX, a, NULL); }
PyObject *tn_op__softmax_out(tn_value *a) { return underscore_softmax(NN_SOFTMAX, a, a[3].u.obj); }
PyObject *tn_op__log_softmax(tn_value *a) { return underscore_softmax(NN_LOG_SOFTMAX, a, NULL); }
PyObject *tn_op__log_softmax_out(tn_value *a) { return underscore_softmax(NN_LOG_SOFTMAX, a, a[3].u.obj); }
PyObject *tn_op_softmax_int(tn_value *a) { return softmax_int(NN_SOFTMAX, a, NULL); }
PyObject *tn_op_softmax_int_out(tn_value *a) { return softmax_int(NN_SOFTMAX, a, a[3].u.obj); }
PyObject *tn_op_log_softmax_int(tn_value *a) { return softmax_int(NN_LOG_SOFTMAX, a, NULL); }
PyObject *tn_op_log_softmax_int_out(tn_value *a) { return softmax_int(NN_LOG_SOFTMAX, a, a[3].u.obj); }
PyObject *tn_op__safe_softmax(tn_value *a) { return softmax_int(NN_SAFE_SOFTMAX, a, NULL); }

/* ---------------------------------------------------------------- layer norm / rms norm */

static void fmt_shape(char *buf, size_t cap, int n, const int64_t *v) {
    size_t k = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < n && k < cap; i++) k += (size_t)snprintf(buf + k, cap - k, i ? ", %lld" : "%lld", (long long)v[i]);
    if (k < cap) snprintf(buf + k, cap - k, "]");
}

/* Checks shared by layer norm and rms norm; sets *M, *N. */
static int norm_check(const tn_tensor *x, const tn_value *ns, const tn_value *w, const tn_value *b, bool rms,
                      int64_t *M, int64_t *N) {
    int k = ns->u.ints.n;
    const int64_t *nv = ns->u.ints.v;
    char a1[256], a2[256];
    if (k < 1) {
        PyErr_SetString(PyExc_RuntimeError, "Expected normalized_shape to be at least 1-dimensional, i.e., containing "
                                            "at least one element, but got normalized_shape = []");
        return -1;
    }
    const tn_value *params[2] = {w, b};
    for (int p = 0; p < 2; p++) {
        if (!params[p] || params[p]->tag != TN_V_TENSOR) continue;
        const tn_tensor *pt = TN_T(*params[p]);
        bool same = pt->ndim == k;
        for (int i = 0; same && i < k; i++) same = pt->sizes[i] == nv[i];
        if (!same) {
            fmt_shape(a1, sizeof a1, pt->ndim, pt->sizes);
            fmt_shape(a2, sizeof a2, k, nv);
            PyErr_Format(PyExc_RuntimeError, "Expected %s to be of same shape as normalized_shape, but got %s of shape %s "
                         "and normalized_shape = %s", p ? "bias" : "weight", p ? "bias" : "weight", a1, a2);
            return -1;
        }
    }
    /* rms_norm: upstream's rank check after the weight's, a ValueError (measured: docs/breadth_more2.md
     * "group types (session 37)") */
    if (rms && x->ndim < k) {
        PyErr_Format(PyExc_ValueError, "Input tensor must have at least %d dimensions, but got %d", k, x->ndim);
        return -1;
    }
    bool ok = x->ndim >= k;
    for (int i = 0; ok && i < k; i++) ok = x->sizes[x->ndim - k + i] == nv[i];
    if (!ok) {
        fmt_shape(a1, sizeof a1, k, nv);
        fmt_shape(a2, sizeof a2, x->ndim, x->sizes);
        char star[260];
        snprintf(star, sizeof star, "%s", a1 + 1);
        star[strlen(star) - 1] = 0;
        PyErr_Format(PyExc_RuntimeError, "Given normalized_shape=%s, expected input with shape [*%s%s], but got input of size%s",
                     a1, rms ? "" : ", ", star, a2);
        return -1;
    }
    *M = 1;
    *N = 1;
    for (int i = 0; i < x->ndim; i++) {
        if (i < x->ndim - k) *M *= x->sizes[i];
        else *N *= x->sizes[i];
    }
    return 0;
}

/* Shape of mean / rstd: leading dims, then k ones. */
static int stat_shape(const tn_tensor *x, int k, int64_t *sz) {
    for (int i = 0; i < x->ndim; i++) sz[i] = i < x->ndim - k ? x->sizes[i] : 1;
    return x->ndim;
}

static PyObject *layer_norm_impl(tn_value *a, bool all3) {
    PyObject *self = a[0].u.obj;
    tn_tensor *x = tn_tensor_of(self);
    int64_t M, N;
    if (norm_check(x, &a[1], &a[2], &a[3], false, &M, &N) < 0) return NULL;
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("LayerNormKernelImpl", x->dtype);
    bool mixed = false;
    for (int p = 2; p <= 3; p++) {
        if (a[p].tag != TN_V_TENSOR) continue;
        tn_dtype pd = TN_T(a[p])->dtype;
        if (pd == x->dtype) continue;
        if ((x->dtype == TN_DTYPE_BF16 || x->dtype == TN_DTYPE_F16) && pd == TN_DTYPE_F32) { mixed = true; continue; }
        PyErr_SetString(PyExc_RuntimeError, "mixed dtype (CPU): expect parameter to have scalar type of Float");
        return NULL;
    }
    tn_dtype ct = tn_nn_compute(x->dtype);
    double eps = a[4].u.f;
    PyObject *xc = tn_as_dtype(self, ct, true), *wc = NULL, *bc = NULL, *y = NULL, *mean = NULL, *rstd = NULL;
    PyObject *res = NULL;
    if (!xc) return NULL;
    if (a[2].tag == TN_V_TENSOR && !(wc = tn_as_dtype(a[2].u.obj, ct, true))) goto done;
    if (a[3].tag == TN_V_TENSOR && !(bc = tn_as_dtype(a[3].u.obj, ct, true))) goto done;
    int64_t ssz[TN_MAX_DIMS];
    int sn = stat_shape(x, a[1].u.ints.n, ssz);
    y = tn_tensor_new_empty(x->ndim, x->sizes, ct, TN_DEVICE_CPU);
    mean = tn_tensor_new_empty(sn, ssz, ct, TN_DEVICE_CPU);
    rstd = tn_tensor_new_empty(sn, ssz, ct, TN_DEVICE_CPU);
    if (!y || !mean || !rstd) goto done;
    {
        char *xp = tn_data(tn_tensor_of(xc)), *yp = tn_data(tn_tensor_of(y));
        char *mp = tn_data(tn_tensor_of(mean)), *rp = tn_data(tn_tensor_of(rstd));
        char *wp = wc ? tn_data(tn_tensor_of(wc)) : NULL, *bp = bc ? tn_data(tn_tensor_of(bc)) : NULL;
        if (M > 0) {
            Py_BEGIN_ALLOW_THREADS
            if (ct == TN_DTYPE_F64)
                tn_layer_norm_f64((const double *)xp, (const double *)wp, (const double *)bp, (double *)yp,
                                  (double *)mp, (double *)rp, M, N, eps);
            else if (x->dtype == TN_DTYPE_F32) /* upstream's float32 rounding (kernels/layer_norm.c) */
                tn_layer_norm_f32((const float *)xp, (const float *)wp, (const float *)bp, (float *)yp,
                                  (float *)mp, (float *)rp, M, N, eps);
            else /* bfloat16 / float16: upstream's mixed-type kernel is not followed yet */
                tn_layer_norm_f32_wide((const float *)xp, (const float *)wp, (const float *)bp, (float *)yp,
                                       (float *)mp, (float *)rp, M, N, eps);
            Py_END_ALLOW_THREADS
        }
    }
    tn_dtype sd = mixed ? TN_DTYPE_F32 : x->dtype;
    y = nn_narrow(y, x->dtype);
    if (all3) {
        mean = nn_narrow(mean, sd);
        rstd = nn_narrow(rstd, sd);
        if (y && mean && rstd) res = PyTuple_Pack(3, y, mean, rstd);
    } else if (y) {
        res = Py_NewRef(y);
    }
done:
    Py_XDECREF(xc); Py_XDECREF(wc); Py_XDECREF(bc);
    Py_XDECREF(y); Py_XDECREF(mean); Py_XDECREF(rstd);
    return res;
}

PyObject *tn_op_native_layer_norm(tn_value *a) { return layer_norm_impl(a, true); }
PyObject *tn_op_layer_norm(tn_value *a) { return layer_norm_impl(a, false); }

/* x * rsqrt(pow(x, 2).mean(last k dims, keepdim=True).add_(eps)), x in its op-math type: the
 * steps of upstream's composite rms_norm (autograd/decomp.c's d_rms_norm records them for
 * gradients); *rs_out, when given, receives the rsqrt factor. */
PyObject *tn_rms_norm_steps(PyObject *x, int k, double eps, PyObject **rs_out) {
    const tn_tensor *t = tn_tensor_of(x);
    int64_t dims[TN_MAX_DIMS];
    for (int i = 0; i < k; i++) dims[i] = t->ndim - i - 1;
    PyObject *p = tn_at_pow_Tensor_Scalar(x, TN_SI(2));
    PyObject *dl = p ? tn_int_list(dims, k) : NULL;
    PyObject *m = dl ? tn_at_mean_dim(p, TN_IPY(dl), true, NULL) : NULL;
    PyObject *ad = m ? tn_at_add__Scalar(m, TN_SD(eps), TN_SDEF) : NULL;
    PyObject *rs = ad ? tn_at_rsqrt(m) : NULL;
    PyObject *y = rs ? tn_at_mul_Tensor(x, rs) : NULL;
    if (y && rs_out) *rs_out = Py_NewRef(rs);
    Py_XDECREF(p); Py_XDECREF(dl); Py_XDECREF(m); Py_XDECREF(ad); Py_XDECREF(rs);
    return y;
}

/* complex64 / complex128 (upstream dispatches rms_norm and _fused_rms_norm over the complex types
 * too): the composite's steps in the input's own type (its op-math type), eps defaulting to the
 * real type's epsilon, the weight (any dtype) cast to the input's dtype as the fused kernel reads
 * it. Within a few ulps of upstream, not bit-equal (complex pow / mean / rsqrt round differently):
 * compared with the float rule (tests/cases/test_nn.py) */
static PyObject *rms_norm_complex(tn_value *a, bool fused) {
    PyObject *self = a[0].u.obj;
    tn_dtype dt = tn_tensor_of(self)->dtype;
    double eps = a[3].tag == TN_V_FLOAT ? a[3].u.f : dt == TN_DTYPE_C128 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    PyObject *rs = NULL, *w = NULL;
    PyObject *y = tn_rms_norm_steps(self, a[1].u.ints.n, eps, fused ? &rs : NULL);
    if (y && a[2].tag == TN_V_TENSOR) {
        w = tn_as_dtype(a[2].u.obj, dt, true);
        Py_SETREF(y, w ? tn_at_mul_Tensor(y, w) : NULL);
    }
    PyObject *res = y && fused ? PyTuple_Pack(2, y, rs) : Py_XNewRef(y);
    Py_XDECREF(y); Py_XDECREF(rs); Py_XDECREF(w);
    return res;
}

/* _fused_rms_norm on CPU is upstream's CompositeImplicitAutograd rms_norm_composite, which checks
 * no shape: the input upcast to its op-math type (float32 for float16 / bfloat16), rstd =
 * rsqrt(mean(x^2 over its last len(normalized_shape) dims, keepdim) + eps) (eps cast to the
 * op-math type's precision first; an empty normalized_shape is mean over every dim), x * rstd,
 * times the weight with broadcasting and promotion (any dtype, any broadcastable shape), made
 * contiguous unless the input suggests a channels-last format, then cast back to the input's dtype
 * (type_as: a complex product into a real input warns). rms_norm_impl keeps its kernel for the
 * shapes and dtypes that kernel checks (within float rounding of these steps) and takes these for
 * any other call (docs/breadth_more2.md, session 39). */
static PyObject *rms_norm_composite(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *x = tn_tensor_of(self);
    tn_dtype dt = x->dtype, op = dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16 ? TN_DTYPE_F32 : dt;
    bool dbl = op == TN_DTYPE_F64 || op == TN_DTYPE_C128;
    double eps = a[3].tag == TN_V_FLOAT ? (dbl ? a[3].u.f : (double)(float)a[3].u.f)
               : dbl ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    bool keep_format = tn_suggest_format(x) != 0;
    PyObject *rs = NULL, *y = NULL, *res = NULL;
    /* through the door: autograd records it (tn_rms_norm_decomposed) */
    PyObject *xc = op == dt ? Py_NewRef(self) : tn_at_to_dtype(self, TN_DT(op), false, false, NULL);
    if (!xc || !(y = tn_rms_norm_steps(xc, a[1].u.ints.n, eps, &rs))) goto done;
    if (a[2].tag == TN_V_TENSOR) Py_SETREF(y, tn_at_mul_Tensor(y, a[2].u.obj));
    if (y && !keep_format) {
        Py_SETREF(y, tn_at_contiguous(y, NULL));
        if (y) Py_SETREF(rs, tn_at_contiguous(rs, NULL));
    }
    if (y && rs) Py_SETREF(y, tn_at_to_dtype(y, TN_DT(dt), false, false, NULL));
    if (y && rs) res = PyTuple_Pack(2, y, rs);
done:
    Py_XDECREF(xc); Py_XDECREF(y); Py_XDECREF(rs);
    return res;
}

/* upstream's TORCH_WARN_ONCE when rms_norm's weight has another dtype than its input */
static int rms_norm_warn_mismatch(tn_dtype x, tn_dtype w) {
    static bool warned;
    if (warned) return 0;
    warned = true;
    return PyErr_WarnFormat(PyExc_UserWarning, 1,
                            "Mismatch dtype between input and weight: input dtype = %s, weight dtype = %s, Cannot dispatch to "
                            "fused implementation. (Triggered internally at "
                            "/__w/pytorch/pytorch/aten/src/ATen/native/layer_norm.cpp:346.)",
                            tn_dtype_cxx_name(x), tn_dtype_cxx_name(w));
}

/* upstream's rms_norm past its checks for a real input: a channels-last input, or (warning once) a
 * weight of another dtype than the input's, takes the composite, which multiplies by the weight with
 * promotion (an integer or bool weight too; measured); an input of no floating type is then the
 * composite's dispatch error */
static PyObject *rms_norm_via_composite(tn_value *a) {
    const tn_tensor *x = TN_T(a[0]);
    if (tn_suggest_format(x) == 0 && a[2].tag == TN_V_TENSOR && TN_T(a[2])->dtype != x->dtype &&
        rms_norm_warn_mismatch(x->dtype, TN_T(a[2])->dtype) < 0)
        return NULL;
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("rms_norm", x->dtype);
    PyObject *r = rms_norm_composite(a), *y = r ? Py_NewRef(PyTuple_GetItem(r, 0)) : NULL;
    Py_XDECREF(r);
    return y;
}

/* rms_norm recorded by autograd (autograd/decomp.c): upstream's CompositeImplicitAutograd
 * rms_norm_symint, its checks, then the composite's steps op by op (whatever the weight's dtype;
 * the kernel case too, whose _fused_rms_norm is that composite on CPU) */
PyObject *tn_rms_norm_decomposed(tn_value *a) {
    int64_t M, N;
    if (norm_check(TN_T(a[0]), &a[1], &a[2], NULL, true, &M, &N) < 0) return NULL;
    return rms_norm_via_composite(a);
}

/* the fused kernel's case: normalized_shape the input's trailing sizes, a weight of exactly that
 * shape and a floating dtype (or none), a floating input not suggesting channels-last (whose
 * result upstream leaves in that format) */
static bool rms_norm_kernel_case(const tn_tensor *x, const tn_value *ns, const tn_value *w) {
    int k = ns->u.ints.n;
    if (k < 1 || x->ndim < k || !tn_nn_float(x->dtype) || tn_suggest_format(x) != 0) return false;
    for (int i = 0; i < k; i++)
        if (x->sizes[x->ndim - k + i] != ns->u.ints.v[i]) return false;
    if (w->tag != TN_V_TENSOR) return true;
    const tn_tensor *wt = TN_T(*w);
    if (wt->ndim != k || !tn_nn_float(wt->dtype)) return false;
    for (int i = 0; i < k; i++)
        if (wt->sizes[i] != ns->u.ints.v[i]) return false;
    return true;
}

/* rms_norm(input, normalized_shape, weight=None, eps=None): computed in the op-math type
 * (f32 for f16/bf16/f32, f64 for f64), eps defaulting to that type's epsilon; result in the
 * input dtype. */
static PyObject *rms_norm_impl(tn_value *a, bool fused) {
    PyObject *self = a[0].u.obj;
    tn_tensor *x = tn_tensor_of(self);
    int64_t M, N;
    bool cplx = x->dtype == TN_DTYPE_C64 || x->dtype == TN_DTYPE_C128;
    /* the fused kernel dispatches on the input's dtype first (it checks no shape: ours are guards) */
    if (fused && !cplx && !tn_nn_float(x->dtype)) return tn_kernel_missing("rms_norm", x->dtype);
    if (fused) {
        /* then it reduces over dims ndim-1, ..., ndim-k, all wrapped before the repeats are looked
         * for: IndexError past -max(ndim, 1), else "dim ndim-1 appears multiple times" (measured) */
        int k = a[1].u.ints.n, nw = x->ndim > 0 ? x->ndim : 1;
        int64_t w;
        if (k > x->ndim + nw) {
            tn_wrap_dim(-nw - 1, x->ndim, &w); /* raises */
            return NULL;
        }
        if (k > nw) {
            PyErr_Format(PyExc_RuntimeError, "dim %d appears multiple times in the list of dims", nw - 1);
            return NULL;
        }
        /* the weight's multiplication: on two devices (meta next to CPU; a CPU 0-dim tensor joins
         * any) the meta mul's message, the input's device expected (measured) */
        if (a[2].tag == TN_V_TENSOR && tn_door_on_meta()) {
            bool mx = tn_door_arg_device(self) == TN_DEVICE_META, mw = tn_door_arg_device(a[2].u.obj) == TN_DEVICE_META;
            if (mx != mw && !(mx ? TN_T(a[2])->ndim == 0 : x->ndim == 0))
                return PyErr_Format(PyExc_RuntimeError, "Tensor on device %s is not on the expected device %s!", mw ? "meta" : "cpu",
                                    mx ? "meta" : "cpu");
        }
        if (!rms_norm_kernel_case(x, &a[1], &a[2])) return rms_norm_composite(a);
    }
    if (norm_check(x, &a[1], &a[2], NULL, true, &M, &N) < 0) return NULL;
    if (cplx) return rms_norm_complex(a, fused);
    if (!fused && (tn_suggest_format(x) != 0 || (a[2].tag == TN_V_TENSOR && TN_T(a[2])->dtype != x->dtype)))
        return rms_norm_via_composite(a);
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("rms_norm", x->dtype);
    if (a[2].tag == TN_V_TENSOR && !tn_nn_float(TN_T(a[2])->dtype)) return tn_kernel_missing("rms_norm", TN_T(a[2])->dtype);
    tn_dtype ct = tn_nn_compute(x->dtype);
    double eps = a[3].tag == TN_V_FLOAT ? a[3].u.f : ct == TN_DTYPE_F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    PyObject *xc = tn_as_dtype(self, ct, true), *wc = NULL, *y = NULL, *rstd = NULL, *res = NULL;
    if (!xc) return NULL;
    if (a[2].tag == TN_V_TENSOR && !(wc = tn_as_dtype(a[2].u.obj, ct, true))) goto done;
    int64_t ssz[TN_MAX_DIMS];
    int sn = stat_shape(x, a[1].u.ints.n, ssz);
    y = tn_tensor_new_empty(x->ndim, x->sizes, ct, TN_DEVICE_CPU);
    rstd = tn_tensor_new_empty(sn, ssz, ct, TN_DEVICE_CPU);
    if (!y || !rstd) goto done;
    {
        char *xp = tn_data(tn_tensor_of(xc)), *yp = tn_data(tn_tensor_of(y)), *rp = tn_data(tn_tensor_of(rstd));
        char *wp = wc ? tn_data(tn_tensor_of(wc)) : NULL;
        if (M > 0) {
            Py_BEGIN_ALLOW_THREADS
            if (ct == TN_DTYPE_F64)
                tn_rms_norm_f64((const double *)xp, (const double *)wp, (double *)yp, (double *)rp, M, N, eps);
            else
                tn_rms_norm_f32((const float *)xp, (const float *)wp, (float *)yp, (float *)rp, M, N, eps);
            Py_END_ALLOW_THREADS
        }
    }
    y = nn_narrow(y, x->dtype);
    if (!y) goto done;
    res = fused ? PyTuple_Pack(2, y, rstd) : Py_NewRef(y);
done:
    Py_XDECREF(xc); Py_XDECREF(wc); Py_XDECREF(y); Py_XDECREF(rstd);
    return res;
}

PyObject *tn_op_rms_norm(tn_value *a) { return rms_norm_impl(a, false); }
PyObject *tn_op__fused_rms_norm(tn_value *a) { return rms_norm_impl(a, true); }

/* ---------------------------------------------------------------- attention */

/* 4-d sizes/strides of a tensor of 2..4 dims (missing leading dims: size 1, stride 0). */
static void as4(const tn_tensor *t, int64_t *sz, int64_t *st) {
    int pad = 4 - t->ndim;
    for (int i = 0; i < 4; i++) {
        sz[i] = i < pad ? 1 : t->sizes[i - pad];
        st[i] = i < pad ? 0 : t->strides[i - pad];
    }
}

/* Shared by scaled_dot_product_attention and _scaled_dot_product_flash_attention_for_cpu.
 * flash: upstream's CPU flash overload (4-d only, equal head sizes; returns (out, lse), out laid
 * out like query, lse [B,H,L] stored as [B,L,H]). */
static PyObject *attention(PyObject *qo, PyObject *ko, PyObject *vo, const tn_value *maskv, double dropout,
                           bool causal, const tn_value *scalev, bool gqa, bool flash, bool check_only) {
    tn_tensor *q = tn_tensor_of(qo), *k = tn_tensor_of(ko), *v = tn_tensor_of(vo);
    if (flash) {   /* upstream's flash op reads query.size(0), size(2), size(1), then checks its dtype */
        if (q->ndim == 0) {
            PyErr_SetString(PyExc_IndexError, "Dimension specified as 0 but tensor has no dimensions");
            return NULL;
        }
        int64_t d2;
        if (tn_wrap_dim(2, q->ndim, &d2) < 0) return NULL;
        if (!tn_dtype_is_floating(q->dtype)) {   /* c10::isFloatingType: float8 passes, refused below */
            PyErr_Format(PyExc_RuntimeError, "scaled_dot_product_attention_flash_attention: Expected data type in FP32, "
                         "FP64, BF16, FP16, but got %s instead.", tn_dtype_cpp_name(q->dtype));
            return NULL;
        }
    } else if (q->dtype != k->dtype || q->dtype != v->dtype) {   /* validate_sdpa_input */
        PyErr_Format(PyExc_RuntimeError, "Expected query, key, and value to have the same dtype, but got query.dtype: %s "
                     "key.dtype: %s and value.dtype: %s instead.", tn_dtype_cxx_name(q->dtype),
                     tn_dtype_cxx_name(k->dtype), tn_dtype_cxx_name(v->dtype));
        return NULL;
    }
    if (dropout > 0.0 && flash) { /* scaled_dot_product_attention takes the math path (its caller) */
        PyErr_SetString(PyExc_RuntimeError, "scaled_dot_product_attention_flash_attention: Currently do not support dropout > 0");
        return NULL;
    }
    if (maskv && maskv->tag == TN_V_TENSOR) {
        tn_dtype md = TN_T(*maskv)->dtype;
        if (flash && md != q->dtype && md != TN_DTYPE_F32) {   /* the flash overload takes no bool mask */
            PyErr_SetString(PyExc_RuntimeError, "scaled_dot_product_attention_flash_attention: Attention mask is the same data type as query");
            return NULL;
        }
        if (md != TN_DTYPE_BOOL && md != q->dtype && md != TN_DTYPE_F32) {
            PyErr_Format(PyExc_RuntimeError, "Expected attn_mask dtype to be bool or float or to match query dtype, but got "
                         "attn_mask.dtype: %s and  query.dtype: %s instead.", tn_dtype_cxx_name(md), tn_dtype_cxx_name(q->dtype));
            return NULL;
        }
    }
    if (flash && (q->ndim != 4 || k->ndim != 4 || v->ndim != 4)) {
        PyErr_SetString(PyExc_RuntimeError, "scaled_dot_product_attention_flash_attention: Accept only 4 dims inputs shape of {B, H, T, K}");
        return NULL;
    }
    /* the math path: upstream's validate_sdpa_input; shapes
     * the kernel below does not take went to the decomposition (sdpa_kernel_fits) */
    if (!flash) {
        if (q->ndim < 2 || k->ndim < 2 || v->ndim < 2) {
            PyErr_Format(PyExc_RuntimeError, "Expected query, key, and value to all be  at least 2 dimensional, but got "
                         "query.dim: %d key.dim: %d and value.dim: %d instead.", q->ndim, k->ndim, v->ndim);
            return NULL;
        }
        if (gqa && (q->ndim < 3 || k->ndim < 3 || v->ndim < 3)) {   /* upstream reads size(-3) of each (measured) */
            const tn_tensor *t2 = q->ndim < 3 ? q : k->ndim < 3 ? k : v;
            PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got -3)", -t2->ndim,
                         t2->ndim - 1);
            return NULL;
        }
        if (gqa) {
            int64_t hq = q->sizes[q->ndim - 3], hk = k->sizes[k->ndim - 3], hv = v->sizes[v->ndim - 3];
            if (!hk || !hv || hq % hk || hq % hv) {   /* upstream's message ends so */
                PyErr_SetString(PyExc_RuntimeError, "Number of heads in key and value must divide the number of heads in ");
                return NULL;
            }
        }
        if (check_only) return Py_NewRef(Py_None);
    }
    if (flash && maskv && maskv->tag == TN_V_TENSOR && TN_T(*maskv)->ndim != 2 && TN_T(*maskv)->ndim != 4) {
        PyErr_SetString(PyExc_RuntimeError, "scaled_dot_product_attention_flash_attention: Attention mask dim in {2, 4}");
        return NULL;
    }
    if (!tn_nn_float(q->dtype)) {   /* flash: float8 has no kernel; math: non-float inputs took the decomposition */
        if (flash) return tn_kernel_missing("flash_attention", q->dtype);
        PyErr_Format(PyExc_RuntimeError, "expected scalar type Float but found %s", tn_dtype_cpp_name(q->dtype));
        return NULL;
    }
    if (flash && (k->dtype != q->dtype || v->dtype != q->dtype)) {   /* the flash kernel's data_ptr<scalar_t> of key, value */
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(q->dtype),
                     tn_dtype_cpp_name(k->dtype != q->dtype ? k->dtype : v->dtype));
        return NULL;
    }
    int64_t qz[4], qs[4], kz[4], ks[4], vz[4], vs[4];
    as4(q, qz, qs);
    as4(k, kz, ks);
    as4(v, vz, vs);
    int64_t B = qz[0], H = qz[1], L = qz[2], E = qz[3], Hk = kz[1], S = kz[2], Ev = vz[3];
    /* flash only: sdpa_kernel_fits sent every other shape the math path's kernel does not take
     * to the decomposition */
    if (kz[3] != E || (flash && Ev != E)) {
        PyErr_SetString(PyExc_RuntimeError, "scaled_dot_product_attention_flash_attention: Q/K/V should have the same head size");
        return NULL;
    }
    if (vz[2] != S || kz[0] != B || vz[0] != B || vz[1] != Hk || (Hk != H && (Hk == 0 || H % Hk != 0))) {
        /* upstream's flash kernel reads past its operands here; refused instead */
        PyErr_SetString(PyExc_RuntimeError, "scaled_dot_product_attention_flash_attention: batch size, number of heads or "
                                            "sequence length of query, key and value do not match");
        return NULL;
    }
    tn_dtype dt = q->dtype, ct = tn_nn_compute(dt);
    double scale = scalev && scalev->tag == TN_V_FLOAT ? scalev->u.f : 1.0 / sqrt((double)E);
    if (E == 0) scale = 0.0;   /* empty dot products are 0 whatever the scale (upstream's inf / nan scale
                                * multiplies empty operands): the scores are 0 before the mask */

    PyObject *qc = NULL, *kc = NULL, *vc = NULL, *mc = NULL, *out = NULL, *lse = NULL, *res = NULL;
    void *scratch = NULL; /* the kernel's: S doubles (reference) or tn_attention_f32_scratch bytes */
    tn_attn_geom g;
    memset(&g, 0, sizeof g);
    g.B = B; g.H = H; g.Hk = Hk; g.L = L; g.S = S; g.E = E; g.Ev = Ev;
    g.causal = causal;
    g.scale = scale;

    /* The mask: bool (True = attend) becomes 0 / -inf; float must be f32 or the query dtype. */
    if (maskv && maskv->tag == TN_V_TENSOR) {
        tn_tensor *m = TN_T(*maskv);
        if (m->ndim > 4) {
            PyErr_SetString(PyExc_RuntimeError, "attn_mask must have at most 4 dimensions");
            return NULL;
        }
        int64_t full[4] = {B, H, L, S};
        int pad = 4 - m->ndim;
        for (int i = 0; i < m->ndim; i++) {
            int64_t s = m->sizes[i];
            if (s != 1 && s != full[pad + i]) {
                PyErr_Format(PyExc_RuntimeError, "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                             "non-singleton dimension %d", (long long)full[pad + i], (long long)s, pad + i);
                return NULL;
            }
        }
        if (check_only) return Py_NewRef(Py_None);
        if (m->dtype == TN_DTYPE_BOOL) {
            mc = tn_tensor_new_empty(m->ndim, m->sizes, ct, TN_DEVICE_CPU);
            if (!mc) return NULL;
            PyObject *mb = tn_as_dtype(maskv->u.obj, TN_DTYPE_BOOL, true);
            if (!mb) goto done;
            int64_t n = tn_numel(m);
            const bool *src = (const bool *)tn_data(tn_tensor_of(mb));
            char *dst = tn_data(tn_tensor_of(mc));
            for (int64_t i = 0; i < n; i++) {
                if (ct == TN_DTYPE_F64) ((double *)dst)[i] = src[i] ? 0.0 : -INFINITY;
                else ((float *)dst)[i] = src[i] ? 0.0f : -INFINITY;
            }
            Py_DECREF(mb);
        } else if (!(mc = tn_as_dtype(maskv->u.obj, ct, false))) {
            goto done;
        }
        tn_tensor *mt = tn_tensor_of(mc);
        for (int i = 0; i < 4; i++) {
            int64_t s = i < pad ? 1 : mt->sizes[i - pad];
            g.ms[i] = (i < pad || s == 1) ? 0 : mt->strides[i - pad];
        }
    }

    if (check_only) return Py_NewRef(Py_None);
    /* bf16 / f16 with unit-stride rows: widened block by block inside the kernel (no f32 copies) */
    const bool lp = (dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16) && E >= 1 && Ev > 1 && (qs[3] == 1 || E == 1) && (ks[3] == 1 || E == 1) &&
                    vs[3] == 1;
    /* Operands in the compute dtype (f32 / f64 keep their strides). */
    if (lp) {
        qc = Py_NewRef(qo); kc = Py_NewRef(ko); vc = Py_NewRef(vo);
    } else if (!(qc = tn_as_dtype(qo, ct, false)) || !(kc = tn_as_dtype(ko, ct, false)) || !(vc = tn_as_dtype(vo, ct, false))) {
        goto done;
    }
    int64_t dummy[4];
    as4(tn_tensor_of(qc), dummy, g.qs);
    as4(tn_tensor_of(kc), dummy, g.ks);
    as4(tn_tensor_of(vc), dummy, g.vs);

    /* Output layout: flash follows query's stride order, dense or not (upstream's empty_like rule:
     * a split-then-transposed query (240, 4, 48, 1) gives (80, 4, 16, 1), real and fake, measured in
     * docs/custom_ops.md); the math path follows a dense query's layout, else contiguous. */
    int64_t osz[4] = {B, H, L, Ev}, ost[4];
    int perm[4] = {0, 1, 2, 3};
    if (flash || (q->ndim == 4 && Ev == E)) {
        /* order dims by query stride (outermost first), stable */
        for (int i = 1; i < 4; i++)
            for (int j = i; j > 0 && q->strides[perm[j]] > q->strides[perm[j - 1]]; j--) {
                int t = perm[j]; perm[j] = perm[j - 1]; perm[j - 1] = t;
            }
        bool dense = true;
        int64_t expect = 1;
        for (int i = 3; i >= 0; i--) {
            if (q->sizes[perm[i]] != 1 && q->strides[perm[i]] != expect) dense = false;
            expect *= q->sizes[perm[i]];
        }
        if (!dense && !flash) for (int i = 0; i < 4; i++) perm[i] = i;
    }
    {
        int64_t acc = 1;
        for (int i = 3; i >= 0; i--) { ost[perm[i]] = acc; acc *= osz[perm[i]]; }
    }
    int ondim = flash ? 4 : q->ndim;
    int pad = 4 - ondim;
    out = tn_tensor_new_strided(ondim, osz + pad, ost + pad, lp ? dt : ct);
    if (!out) goto done;
    memcpy(g.os, ost, sizeof ost);
    if (flash) {
        int64_t lsz[3] = {B, H, L}, lst[3] = {L * H, 1, H};
        lse = tn_tensor_new_strided(3, lsz, lst, ct);
        if (!lse) goto done;
        memcpy(g.ls, lst, sizeof lst);
    }
    /* f32 with unit-stride rows runs on the GEMM kernels; anything else on the reference. */
    bool fast = ct == TN_DTYPE_F32 && (g.qs[3] == 1 || E <= 1) && (g.ks[3] == 1 || E <= 1) &&
                (g.vs[3] == 1 || Ev <= 1) && (g.os[3] == 1 || Ev <= 1);
    const int slots = tn_get_num_threads();
    scratch = PyMem_Malloc(lp ? tn_attention_lp_scratch(&g) : fast ? tn_attention_f32_scratch(&g, slots)
                                                                   : (size_t)(S > 0 ? S : 1) * sizeof(double));
    if (!scratch) { PyErr_NoMemory(); goto done; }
    {
        const char *qp = tn_data(tn_tensor_of(qc)), *kp = tn_data(tn_tensor_of(kc)), *vp = tn_data(tn_tensor_of(vc));
        const char *mp = mc ? tn_data(tn_tensor_of(mc)) : NULL;
        char *op = tn_data(tn_tensor_of(out)), *lp_ = lse ? tn_data(tn_tensor_of(lse)) : NULL;
        if (B * H * L > 0) {
            Py_BEGIN_ALLOW_THREADS
            if (lp)
                tn_attention_gemm_lp(dt == TN_DTYPE_F16 ? TN_LP_F16 : TN_LP_BF16, &g, (const uint16_t *)qp, (const uint16_t *)kp, (const uint16_t *)vp, (const float *)mp,
                                       (uint16_t *)op, (float *)lp_, scratch);
            else if (ct == TN_DTYPE_F64)
                tn_attention_f64(&g, (const double *)qp, (const double *)kp, (const double *)vp, (const double *)mp,
                                 (double *)op, (double *)lp_, (double *)scratch);
            else if (fast)
                tn_attention_gemm_f32(&g, (const float *)qp, (const float *)kp, (const float *)vp, (const float *)mp,
                                      (float *)op, (float *)lp_, (float *)scratch, slots);
            else
                tn_attention_f32(&g, (const float *)qp, (const float *)kp, (const float *)vp, (const float *)mp,
                                 (float *)op, (float *)lp_, (double *)scratch);
            Py_END_ALLOW_THREADS
        }
    }
    if (dt != ct && !lp) {
        /* narrow into a tensor of the same layout */
        PyObject *o2 = tn_tensor_new_strided(ondim, osz + pad, ost + pad, dt);
        if (!o2 || tn_copy_into(o2, out) < 0) { Py_XDECREF(o2); goto done; }
        Py_DECREF(out);
        out = o2;
    }
    res = flash ? PyTuple_Pack(2, out, lse) : Py_NewRef(out);
done:
    PyMem_Free(scratch);
    Py_XDECREF(qc); Py_XDECREF(kc); Py_XDECREF(vc); Py_XDECREF(mc); Py_XDECREF(out); Py_XDECREF(lse);
    return res;
}

bool tn_sdp_flash_enabled = true, tn_sdp_math_enabled = true;

/* upstream's use_flash_attention_cpp, its checks in its order: no dropout, 4-d, equal batch, equal
 * heads (or GQA), the mask's shape (check_attn_mask_shape: not requiring grad, last two sizes L or 1
 * and S or 1 — read as size(-2), an IndexError for a 1-d mask —, 2-d, or 4-d with batch and heads
 * B or 1 and H or 1), equal head sizes, nonempty sequences, unit last-dim strides, f32 / f64 / bf16 /
 * f16. 1 fits, 0 not, -1 error set. */
static int sdpa_flash_fits(const tn_value *a) {
    if (a[0].tag != TN_V_TENSOR || a[1].tag != TN_V_TENSOR || a[2].tag != TN_V_TENSOR) return 0;
    const tn_tensor *qt = tn_tensor_of(a[0].u.obj), *kt = tn_tensor_of(a[1].u.obj), *vt = tn_tensor_of(a[2].u.obj);
    if (!(a[4].u.f == 0.0 && qt->ndim == 4 && kt->ndim == 4 && vt->ndim == 4)) return 0;
    if (!(kt->sizes[0] == qt->sizes[0] && vt->sizes[0] == qt->sizes[0] && kt->sizes[1] == vt->sizes[1] &&
          (kt->sizes[1] == qt->sizes[1] || (a[7].u.i && kt->sizes[1] && qt->sizes[1] % kt->sizes[1] == 0))))
        return 0;
    if (a[3].tag == TN_V_TENSOR) {
        const tn_tensor *m = TN_T(a[3]);
        if (tn_requires_grad(a[3].u.obj)) return 0;
        int64_t d;
        if (tn_wrap_dim(-2, m->ndim, &d) < 0) return -1;
        int64_t ml = m->sizes[m->ndim - 2], ms = m->sizes[m->ndim - 1];
        if ((ml != qt->sizes[2] && ml != 1) || (ms != kt->sizes[2] && ms != 1)) return 0;
        if (m->ndim != 2 && !(m->ndim == 4 && (m->sizes[0] == 1 || m->sizes[0] == qt->sizes[0]) &&
                              (m->sizes[1] == 1 || m->sizes[1] == qt->sizes[1])))
            return 0;
    }
    return kt->sizes[3] == qt->sizes[3] && vt->sizes[3] == qt->sizes[3] && qt->sizes[2] > 0 && kt->sizes[2] > 0 &&
           (qt->strides[3] == 1 || qt->sizes[3] == 1) && (kt->strides[3] == 1 || kt->sizes[3] == 1) &&
           (vt->strides[3] == 1 || vt->sizes[3] == 1) && tn_nn_float(qt->dtype);
}

/* the shapes the non-flash kernel takes: q, k, v of one rank 2..4 with equal batch, k / v heads
 * equal (or dividing q's under enable_gqa), equal sequence and head sizes where the product needs
 * them, a mask broadcasting to (B, H, L, S); the rest (broadcast batches, mixed ranks, 5-d) runs
 * upstream's math path op by op, whose ops raise upstream's errors */
static bool sdpa_kernel_fits(const tn_value *a) {
    const tn_tensor *q = TN_T(a[0]), *k = TN_T(a[1]), *v = TN_T(a[2]);
    int n = q->ndim;
    if (n < 2 || n > 4 || k->ndim != n || v->ndim != n) return false;
    int64_t L = q->sizes[n - 2], S = k->sizes[n - 2], H = n >= 3 ? q->sizes[n - 3] : 1,
            Hk = n >= 3 ? k->sizes[n - 3] : 1;
    if (k->sizes[n - 1] != q->sizes[n - 1] || v->sizes[n - 2] != S || (n >= 3 && v->sizes[n - 3] != Hk)) return false;
    if (n == 4 && (k->sizes[0] != q->sizes[0] || v->sizes[0] != q->sizes[0])) return false;
    if (Hk != H && !(a[7].u.i && Hk && H % Hk == 0)) return false;
    if (a[3].tag == TN_V_TENSOR) {
        const tn_tensor *m = TN_T(a[3]);
        int64_t full[4] = {n == 4 ? q->sizes[0] : 1, H, L, S};
        if (m->ndim > 4) return false;
        for (int i = 0; i < m->ndim; i++)
            if (m->sizes[i] != 1 && m->sizes[i] != full[4 - m->ndim + i]) return false;
    }
    return true;
}

int tn_sdpa_choice(const tn_value *a) {
    if (!tn_sdp_flash_enabled && !tn_sdp_math_enabled) {
        PyErr_SetString(PyExc_RuntimeError, "No viable backend for scaled_dot_product_attention was found. This is likely "
                                            "due to turning off both the math kernel and the fused kernels.");
        return -1;
    }
    if (tn_sdp_flash_enabled) {
        int fits = sdpa_flash_fits(a);
        if (fits < 0) return -1;
        if (fits) return TN_SDP_FLASH;
    }
    if (tn_sdp_math_enabled) return TN_SDP_MATH;
    /* upstream also warns why flash did not fit (not reproduced: docs/opinfo.md) */
    PyErr_SetString(PyExc_RuntimeError, "No available kernel.  Aborting execution.");
    return -1;
}

/* scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0, is_causal=False,
 *                              *, scale=None, enable_gqa=False); one kernel for upstream's flash and
 * math choices (within the float rule of either) */
PyObject *tn_op_scaled_dot_product_attention(tn_value *a) {
    int choice = tn_sdpa_choice(a);
    if (choice < 0) return NULL;
    {   /* empty inputs (docs/breadth_more2.md "seventh pass", measured): after validate_sdpa_input, a
         * query of no rows or a value of no columns gives an empty result and an empty value zeros,
         * query.shape[:-1] + [value.size(-1)], contiguous, in query's dtype, before any shape check
         * of key, value or the mask, before enable_gqa's checks and the causal-with-mask refusal. Not under autograd
         * (upstream's result then has a grad_fn ours does not model): the ops below decide. */
        const tn_tensor *q = TN_T(a[0]), *v = TN_T(a[2]);
        if (q->ndim >= 2 && v->ndim >= 1 &&
            (q->sizes[q->ndim - 2] == 0 || v->sizes[v->ndim - 1] == 0 || tn_numel(v) == 0) &&
            !tn_requires_grad(a[0].u.obj) && !tn_requires_grad(a[1].u.obj) && !tn_requires_grad(a[2].u.obj) &&
            !(a[3].tag == TN_V_TENSOR && tn_requires_grad(a[3].u.obj))) {
            PyObject *ok = attention(a[0].u.obj, a[1].u.obj, a[2].u.obj, &a[3], a[4].u.f, false, &a[6], false /* gqa: its
                                     checks come after */, false, true);
            if (!ok) return NULL;
            Py_DECREF(ok);
            int64_t sz[TN_MAX_DIMS];
            memcpy(sz, q->sizes, sizeof(int64_t) * (size_t)q->ndim);
            sz[q->ndim - 1] = v->sizes[v->ndim - 1];
            PyObject *r = tn_tensor_new_empty(q->ndim, sz, q->dtype, q->storage->device);
            if (r && q->storage->device == TN_DEVICE_CPU && tn_numel(tn_tensor_of(r)))
                memset(tn_data(tn_tensor_of(r)), 0, (size_t)(tn_numel(tn_tensor_of(r)) * tn_dtype_itemsize(q->dtype)));
            return r;
        }
    }
    if (choice == TN_SDP_MATH && a[3].tag == TN_V_TENSOR && nn_bool(&a[5])) {   /* the math function's check, */
        PyObject *ok = attention(a[0].u.obj, a[1].u.obj, a[2].u.obj, &a[3], a[4].u.f, true, &a[6], nn_bool(&a[7]), false,
                                 true);   /* after validate_sdpa_input's */
        if (!ok) return NULL;
        Py_DECREF(ok);
        PyErr_SetString(PyExc_RuntimeError, "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True");
        return NULL;
    }
    /* dropout (never flash): upstream's math path op by op (autograd/decomp.c: the dropout draws
     * the generator as upstream's empty_like, bernoulli_, div_, mul), which checks what upstream's
     * validate_sdpa_input checks by asking this op (in_math: checks only); anything else fails in
     * the math path's own ops, as upstream's */
    if (a[4].u.f > 0.0 || (choice == TN_SDP_MATH && (!sdpa_kernel_fits(a) || !tn_nn_float(TN_T(a[0])->dtype)))) {
        static _Thread_local bool in_math;
        if (in_math) /* the decomposition asking for the arguments' errors */
            return attention(a[0].u.obj, a[1].u.obj, a[2].u.obj, &a[3], a[4].u.f, nn_bool(&a[5]), &a[6], nn_bool(&a[7]), false,
                             true);
        in_math = true;
        PyObject *r = tn_decomp_for(TN_ROW_scaled_dot_product_attention)(a);
        in_math = false;
        return r;
    }
    return attention(a[0].u.obj, a[1].u.obj, a[2].u.obj, &a[3], a[4].u.f, nn_bool(&a[5]), &a[6], nn_bool(&a[7]), false, false);
}

/* _scaled_dot_product_flash_attention_for_cpu(query, key, value, dropout_p=0.0, is_causal=False,
 *                                             *, attn_mask=None, scale=None) */
PyObject *tn_op__scaled_dot_product_flash_attention_for_cpu(tn_value *a) {
    /* an empty mask of an accepted dtype is no mask (upstream's kernel: has_attn_mask = mask.numel() != 0) */
    const tn_value none = {.tag = TN_V_NONE};
    const tn_value *m = &a[5];
    if (a[5].tag == TN_V_TENSOR && tn_numel(TN_T(a[5])) == 0 &&
        (TN_T(a[5])->dtype == TN_DTYPE_F32 || TN_T(a[5])->dtype == TN_T(a[0])->dtype))
        m = &none;
    return attention(a[0].u.obj, a[1].u.obj, a[2].u.obj, m, a[3].u.f, nn_bool(&a[4]), &a[6], false, true, false);
}

/* _scaled_dot_product_flash_attention_for_cpu_backward(grad_out, query, key, value, out, logsumexp,
 * dropout_p, is_causal, *, attn_mask=None, scale=None) -> (grad_query, grad_key, grad_value), upstream's
 * checks in its order; the gradients in the forward kernel's (B, L, H, E) memory. As upstream's kernel:
 * dropout_p is not read (no dropout mask exists to replay: the forward refuses dropout), the mask is
 * added to the scores as numbers (a bool mask adds 1 / 0: the public path passes an additive mask),
 * bf16 / f16 computed in float32. Sizes upstream's kernel does not check (it reads past its operands)
 * are refused. */
static PyObject *bw_dim_error(const tn_tensor *t, int want) {
    int n = t->ndim < 1 ? 1 : t->ndim;
    PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -n, n - 1,
                 want);
    return NULL;
}

/* an operand in the compute dtype with a unit-stride last dimension */
static PyObject *bw_operand(PyObject *o, tn_dtype ct) {
    const tn_tensor *t = tn_tensor_of(o);
    bool unit = t->sizes[3] <= 1 || t->strides[3] == 1;
    return tn_as_dtype(o, ct, !(t->dtype == ct && unit));
}

PyObject *tn_op__scaled_dot_product_flash_attention_for_cpu_backward(tn_value *a) {
    const char *who = "scaled_dot_product_attention_flash_attention_backward";
    tn_tensor *ts[6];
    for (int i = 0; i < 6; i++) {   /* upstream transposes dims 1 and 2 of each first */
        ts[i] = TN_T(a[i]);
        if (ts[i]->ndim < 3) return bw_dim_error(ts[i], ts[i]->ndim < 2 ? 1 : 2);
    }
    tn_tensor *go = ts[0], *q = ts[1], *k = ts[2], *v = ts[3], *o = ts[4], *l = ts[5];
    tn_dtype dt = q->dtype;
    if (!tn_nn_float(dt)) {
        PyErr_Format(PyExc_NotImplementedError, "\"flash_attention_backward\" not implemented for '%s'", tn_dtype_cpp_name(dt));
        return NULL;
    }
    tn_tensor *m = a[8].tag == TN_V_TENSOR && tn_numel(TN_T(a[8])) > 0 ? TN_T(a[8]) : NULL;
    if (m && m->dtype != TN_DTYPE_BOOL && !tn_nn_float(m->dtype)) {
        PyErr_Format(PyExc_NotImplementedError, "\"flash_attention_mask_backward\" not implemented for '%s'",
                     tn_dtype_cpp_name(m->dtype));
        return NULL;
    }
    for (int i = 1; i < 4; i++)
        if (ts[i]->ndim < 4) return bw_dim_error(ts[i], 3);
    const int64_t B = q->sizes[0], H = q->sizes[1], L = q->sizes[2], E = q->sizes[3];
    const int64_t Hk = k->sizes[1], S = k->sizes[2];
    if (q->sizes[3] != v->sizes[3] || k->sizes[3] != v->sizes[3]) {
        PyErr_Format(PyExc_RuntimeError, "%s: Q/K/V should have the same head size", who);
        return NULL;
    }
    int64_t msz[4] = {1, 1, 1, 1}, mst[4] = {0, 0, 0, 0};
    if (m) {   /* upstream's reshape_attn_mask_to_4d: view to (B or 1, H or 1, m[-2], m[-1]), expand to L, S */
        if (m->ndim < 2) return bw_dim_error(m, -2);
        int n = m->ndim;
        msz[0] = n == 4 && m->sizes[0] == B ? B : 1;
        msz[1] = n == 4 && m->sizes[1] == H ? H : 1;
        msz[2] = m->sizes[n - 2], msz[3] = m->sizes[n - 1];
        if (msz[0] * msz[1] * msz[2] * msz[3] != tn_numel(m)) {
            PyErr_Format(PyExc_RuntimeError, "shape '[%lld, %lld, %lld, %lld]' is invalid for input of size %lld",
                         (long long)msz[0], (long long)msz[1], (long long)msz[2], (long long)msz[3], (long long)tn_numel(m));
            return NULL;
        }
        const int64_t want[4] = {msz[0], msz[1], L, S};
        for (int d = 3; d >= 2; d--)
            if (msz[d] != 1 && msz[d] != want[d]) {
                PyErr_Format(PyExc_RuntimeError, "The expanded size of the tensor (%lld) must match the existing size (%lld) at "
                             "non-singleton dimension %d.  Target sizes: [%lld, %lld, %lld, %lld].  Tensor sizes: [%lld, %lld, %lld, %lld]",
                             (long long)want[d], (long long)msz[d], d, (long long)want[0], (long long)want[1], (long long)L,
                             (long long)S, (long long)msz[0], (long long)msz[1], (long long)msz[2], (long long)msz[3]);
                return NULL;
            }
    }
    const int64_t osz[3][4] = {{B, H, L, E}, {B, Hk, S, E}, {B, Hk, S, E}};
    bool fits = q->ndim == 4 && k->ndim == 4 && v->ndim == 4 && go->ndim == 4 && o->ndim == 4 && l->ndim == 3 && Hk > 0 && H % Hk == 0 && v->sizes[1] == Hk &&
                v->sizes[2] == S && k->sizes[0] == B && v->sizes[0] == B && l->sizes[0] == B && l->sizes[1] == H &&
                l->sizes[2] == L;
    for (int d = 0; fits && d < 4; d++) fits = go->sizes[d] == osz[0][d] && o->sizes[d] == osz[0][d];
    if (!fits && B * H * L * S * E != 0) {
        PyErr_Format(PyExc_RuntimeError, "%s: the sizes of grad_out, query, key, value, out and logsumexp do not match "
                     "(upstream's kernel reads past them here; refused)", who);
        return NULL;
    }
    const tn_dtype ct = tn_nn_compute(dt), lt = dt == TN_DTYPE_F64 ? TN_DTYPE_F64 : TN_DTYPE_F32;
    const tn_tensor *chk[5] = {go, k, v, o, l};
    for (int i = 0; i < 5; i++) {
        tn_dtype want = i == 4 ? lt : dt;
        if (chk[i]->dtype != want) {
            PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(want),
                         tn_dtype_cpp_name(chk[i]->dtype));
            return NULL;
        }
    }
    PyObject *gr[3] = {NULL, NULL, NULL}, *in[5] = {NULL, NULL, NULL, NULL, NULL}, *mc = NULL, *res = NULL;
    void *scratch = NULL;
    const int64_t heads[3] = {H, Hk, Hk}, rows[3] = {L, S, S};
    PyObject *acc[3] = {NULL, NULL, NULL};   /* f32 gradients of bf16 / f16 */
    for (int i = 0; i < 3; i++) {
        int64_t st[4] = {rows[i] * heads[i] * E, E, heads[i] * E, 1};
        if (!(gr[i] = tn_tensor_new_strided(4, osz[i], st, dt))) goto done;
        if (ct != dt && !(acc[i] = tn_tensor_new_strided(4, osz[i], st, ct))) goto done;
        memset(tn_data(tn_tensor_of(acc[i] ? acc[i] : gr[i])), 0, (size_t)tn_numel(tn_tensor_of(gr[i])) * tn_dtype_itemsize(ct));
    }
    if (B * H * L * S * E == 0) goto finish;
    PyObject *src[5] = {a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.obj, a[4].u.obj};
    for (int i = 0; i < 5; i++)
        if (!(in[i] = bw_operand(src[i], ct))) goto done;
    tn_attn_bw_geom bg;
    memset(&bg, 0, sizeof bg);
    tn_attn_geom *g = &bg.a;
    g->B = B; g->H = H; g->Hk = Hk; g->L = L; g->S = S; g->E = E; g->Ev = E;
    g->causal = nn_bool(&a[7]);
    g->scale = a[9].tag == TN_V_FLOAT ? a[9].u.f : 1.0 / sqrt((double)E);
    int64_t *dst4[5] = {bg.gs, g->qs, g->ks, g->vs, g->os};
    for (int i = 0; i < 5; i++) memcpy(dst4[i], tn_tensor_of(in[i])->strides, 4 * sizeof(int64_t));
    memcpy(g->ls, l->strides, 3 * sizeof(int64_t));
    int64_t *dst[3] = {bg.dqs, bg.dks, bg.dvs};
    for (int i = 0; i < 3; i++) memcpy(dst[i], tn_tensor_of(acc[i] ? acc[i] : gr[i])->strides, 4 * sizeof(int64_t));
    if (m) {   /* the mask's numbers in the compute type (bool: 1 / 0), broadcast where a size is 1 */
        if (!(mc = tn_as_dtype(a[8].u.obj, ct, false))) goto done;
        const tn_tensor *mt = tn_tensor_of(mc);
        const int n = mt->ndim;
        mst[2] = mt->strides[n - 2], mst[3] = mt->strides[n - 1];
        if (n == 4) mst[0] = mt->strides[0], mst[1] = mt->strides[1];
        for (int d = 0; d < 4; d++) g->ms[d] = msz[d] == 1 ? 0 : mst[d];
    }
    const int slots = tn_get_num_threads();
    const bool f64 = ct == TN_DTYPE_F64;
    if (!(scratch = PyMem_Malloc(tn_attention_bw_scratch(&bg, slots, f64)))) { PyErr_NoMemory(); goto done; }
    {
        const char *p[5];
        for (int i = 0; i < 5; i++) p[i] = tn_data(tn_tensor_of(in[i]));
        const char *lp = tn_data(l), *mp = mc ? tn_data(tn_tensor_of(mc)) : NULL;
        char *d[3];
        for (int i = 0; i < 3; i++) d[i] = tn_data(tn_tensor_of(acc[i] ? acc[i] : gr[i]));
        Py_BEGIN_ALLOW_THREADS
        if (f64)
            tn_attention_bw_f64(&bg, (const double *)p[0], (const double *)p[1], (const double *)p[2], (const double *)p[3],
                                (const double *)p[4], (const double *)lp, (const double *)mp, (double *)d[0], (double *)d[1],
                                (double *)d[2], scratch, slots);
        else
            tn_attention_bw_f32(&bg, (const float *)p[0], (const float *)p[1], (const float *)p[2], (const float *)p[3],
                                (const float *)p[4], (const float *)lp, (const float *)mp, (float *)d[0], (float *)d[1],
                                (float *)d[2], scratch, slots);
        Py_END_ALLOW_THREADS
    }
finish:
    for (int i = 0; i < 3; i++)
        if (acc[i] && tn_copy_into(gr[i], acc[i]) < 0) goto done;
    res = PyTuple_Pack(3, gr[0], gr[1], gr[2]);
done:
    PyMem_Free(scratch);
    for (int i = 0; i < 3; i++) { Py_XDECREF(gr[i]); Py_XDECREF(acc[i]); }
    for (int i = 0; i < 5; i++) Py_XDECREF(in[i]);
    Py_XDECREF(mc);
    return res;
}

/* ---------------------------------------------------------------- embedding */

/* embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False) */
PyObject *tn_op_embedding(tn_value *a) {
    PyObject *wo = a[0].u.obj;
    tn_tensor *w = tn_tensor_of(wo), *ix = TN_T(a[1]);
    if (w->ndim != 2) {
        PyErr_SetString(PyExc_RuntimeError, "'weight' must be 2-D");
        return NULL;
    }
    if (ix->dtype != TN_DTYPE_I64 && ix->dtype != TN_DTYPE_I32) {
        PyErr_Format(PyExc_RuntimeError, "Expected tensor for argument #1 'indices' to have one of the following scalar "
                     "types: Long, Int; but got torch.%sTensor instead (while checking arguments for embedding)",
                     tn_dtype_cpp_name(ix->dtype));
        return NULL;
    }
    PyObject *ic = tn_as_dtype(a[1].u.obj, TN_DTYPE_I64, true);
    if (!ic) return NULL;
    int64_t n = tn_numel(ix), V = w->sizes[0], D = w->sizes[1];
    if (V == 0 && n > 0) {   /* upstream's index_select of an empty weight (measured) */
        Py_DECREF(ic);
        PyErr_SetString(PyExc_RuntimeError, "index_select(): self indexing axis dim should be positive");
        return NULL;
    }
    const int64_t *idx = (const int64_t *)tn_data(tn_tensor_of(ic));
    for (int64_t i = 0; i < n; i++)
        if (idx[i] < 0 || idx[i] >= V) {
            Py_DECREF(ic);
            PyErr_SetString(PyExc_IndexError, "index out of range in self");
            return NULL;
        }
    int64_t sz[TN_MAX_DIMS];
    if (ix->ndim + 1 > TN_MAX_DIMS) { Py_DECREF(ic); PyErr_SetString(PyExc_RuntimeError, "too many dimensions"); return NULL; }
    for (int i = 0; i < ix->ndim; i++) sz[i] = ix->sizes[i];
    sz[ix->ndim] = D;
    PyObject *out = tn_tensor_new_empty(ix->ndim + 1, sz, w->dtype, TN_DEVICE_CPU);
    if (!out) { Py_DECREF(ic); return NULL; }
    int isz = tn_dtype_itemsize(w->dtype);
    if (n > 0 && D > 0)
        tn_gather_rows(tn_data(tn_tensor_of(out)), tn_data(w), w->strides[0] * isz, w->strides[1] * isz, D, isz, idx, n);
    Py_DECREF(ic);
    return out;
}

/* embedding_renorm_(self, indices, max_norm, norm_type): upstream's embedding_renorm_cpu_: each
 * distinct index (sorted) once: row = self[i], norm = row.norm(norm_type).item(); when norm >
 * max_norm, row *= max_norm / (norm + 1e-7). Through the door (select, norm, mul_) so errors and
 * rounding are upstream's. */
static int cmp_i64(const void *x, const void *y);
PyObject *tn_op_embedding_renorm_(tn_value *a) {
    PyObject *so = a[0].u.obj;
    tn_tensor *w = tn_tensor_of(so), *ix = TN_T(a[1]);
    double max_norm = a[2].u.f, norm_type = a[3].u.f;
    if (w->ndim != 2)
        return PyErr_Format(PyExc_RuntimeError, "Expected 2-dimensional tensor, but got %d-dimensional tensor for argument #1 "
                            "'self' (while checking arguments for embedding_renorm_)", w->ndim);
    if (ix->dtype != TN_DTYPE_I64 && ix->dtype != TN_DTYPE_I32)
        return PyErr_Format(PyExc_RuntimeError, "Expected tensor for argument #2 'indices' to have one of the following scalar "
                            "types: Long, Int; but got torch.%sTensor instead (while checking arguments for embedding_renorm_)",
                            tn_dtype_cpp_name(ix->dtype));
    PyObject *ic = tn_as_dtype(a[1].u.obj, TN_DTYPE_I64, true);
    if (!ic) return NULL;
    int64_t n = tn_numel(ix);
    int64_t *sorted = malloc((size_t)(n ? n : 1) * sizeof *sorted);
    if (!sorted) { Py_DECREF(ic); return PyErr_NoMemory(); }
    if (n) memcpy(sorted, tn_data(tn_tensor_of(ic)), (size_t)n * sizeof *sorted);
    Py_DECREF(ic);
    qsort(sorted, (size_t)n, sizeof *sorted, cmp_i64);
    for (int64_t i = 0; i < n; i++) {
        if (i > 0 && sorted[i] == sorted[i - 1]) continue;
        PyObject *row = tn_at_select_int(so, 0, (long long)sorted[i]);
        PyObject *nr = row ? tn_at_norm_Scalar(row, TN_SD(norm_type)) : NULL;
        PyObject *it = nr ? tn_at__local_scalar_dense(nr) : NULL;   /* .item<double>() */
        double norm = it ? PyFloat_AsDouble(it) : 0;
        Py_XDECREF(nr); Py_XDECREF(it);
        if (!it || PyErr_Occurred()) { Py_XDECREF(row); free(sorted); return NULL; }
        if (norm > max_norm) {
            PyObject *r = tn_at_mul__Scalar(row, TN_SD(max_norm / (norm + 1e-7)));
            if (!r) { Py_DECREF(row); free(sorted); return NULL; }
            Py_DECREF(r);
        }
        Py_DECREF(row);
    }
    free(sorted);
    return Py_NewRef(so);
}

/* ---------------------------------------------------------------- isin */

static int cmp_f64(const void *x, const void *y) {
    double a = *(const double *)x, b = *(const double *)y;
    return a < b ? -1 : a > b ? 1 : 0;
}
static int cmp_i64(const void *x, const void *y) {
    int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;
    return a < b ? -1 : a > b ? 1 : 0;
}

/* upstream's isin meta refuses a bool, complex64 or complex128 operand, each checked by its own
 * dtype (complex32 passes: the kernel refuses it) */
static int isin_dtype_ok(tn_dtype dt) {
    if (dt != TN_DTYPE_BOOL && dt != TN_DTYPE_C64 && dt != TN_DTYPE_C128) return 0;
    PyErr_Format(PyExc_RuntimeError, "Unsupported input type encountered for isin(): %s", tn_dtype_cpp_name(dt));
    return -1;
}

/* elements and test elements as tensors (numbers already wrapped into 0-dim tensors; their
 * dtypes checked by the caller); test_tensor: test elements were a tensor argument. */
static PyObject *isin_impl(PyObject *eo, PyObject *to, bool invert, PyObject *outo, bool test_tensor) {
    tn_tensor *e = tn_tensor_of(eo), *t = tn_tensor_of(to);
    /* the structured op's set_output check (a meta call goes through upstream's Python meta, which has none) */
    if (outo && !tn_door_on_meta() && tn_tensor_of(outo)->storage->device != TN_DEVICE_META &&
        tn_out_dtype_exact(outo, TN_DTYPE_BOOL) < 0)
        return NULL;
    tn_value vals[2];
    memset(vals, 0, sizeof vals);
    vals[0].tag = vals[1].tag = TN_V_TENSOR;
    vals[0].u.obj = eo;
    vals[1].u.obj = to;
    tn_dtype ct = tn_result_type(2, vals);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    /* the kernel is dispatched over the common dtype: the real types, half and bfloat16 */
    if (tn_dtype_is_complex(ct) || ct == TN_DTYPE_BOOL || !tn_dtype_computable(ct)) return tn_kernel_missing("isin_default_cpu", ct);
    int64_t ne = tn_numel(e), nt = tn_numel(t), flat[1];
    /* few test elements: upstream's brute-force kernel takes test_elements.to(common).view(-1),
     * which refuses a test tensor whose layout cannot be flattened as a view (.to keeps the layout
     * of the same dtype, and a converted copy's strides when the tensor is dense) */
    if (test_tensor && ne > 0 && (t->dtype == ct || tn_dense_non_overlapping(t)) &&
        nt < (int64_t)(10.0f * pow((double)ne, 0.145)) && !tn_view_strides(t, 1, &nt, flat)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                        "across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    bool fl = tn_dtype_is_floating(ct);
    tn_dtype kt = fl ? TN_DTYPE_F64 : TN_DTYPE_I64;
    PyObject *ec = NULL, *tc = NULL, *res = NULL, *e1 = NULL, *t1 = NULL;
    /* convert to the common dtype first (values as upstream compares them), then widen */
    if (!(e1 = tn_as_dtype(eo, ct, false)) || !(t1 = tn_as_dtype(to, ct, false))) goto done;
    if (!(ec = tn_as_dtype(e1, kt, true)) || !(tc = tn_as_dtype(t1, kt, true))) goto done;
    res = tn_tensor_new_empty(e->ndim, e->sizes, TN_DTYPE_BOOL, TN_DEVICE_CPU);
    if (!res) goto done;
    {
        size_t bytes = (size_t)(nt > 0 ? nt : 1) * 8;
        void *sorted = PyMem_Malloc(bytes);
        if (!sorted) { PyErr_NoMemory(); Py_CLEAR(res); goto done; }
        if (nt > 0) memcpy(sorted, tn_data(tn_tensor_of(tc)), (size_t)nt * 8);
        qsort(sorted, (size_t)nt, 8, fl ? cmp_f64 : cmp_i64);
        const char *ep = tn_data(tn_tensor_of(ec));
        bool *rp = (bool *)tn_data(tn_tensor_of(res));
        for (int64_t i = 0; i < ne; i++) {
            bool found = nt > 0 && bsearch(ep + i * 8, sorted, (size_t)nt, 8, fl ? cmp_f64 : cmp_i64) != NULL;
            if (fl && ((const double *)ep)[i] != ((const double *)ep)[i]) found = false;
            rp[i] = found != invert;
        }
        PyMem_Free(sorted);
    }
    res = tn_out_deliver(res, outo, "isin");
done:
    Py_XDECREF(e1); Py_XDECREF(t1); Py_XDECREF(ec); Py_XDECREF(tc);
    return res;
}

/* A tensor for a Scalar argument (tensor value or a Python number). */
static PyObject *scalar_tensor(const tn_value *v) {
    if (v->tag == TN_V_TENSOR) return Py_NewRef(v->u.obj);
    PyObject *num = v->tag == TN_V_BOOL ? PyBool_FromLong((long)v->u.i)
                  : v->tag == TN_V_INT ? PyLong_FromLongLong(v->u.i)
                  : v->tag == TN_V_COMPLEX ? PyComplex_FromDoubles(v->u.c.re, v->u.c.im)
                  : PyFloat_FromDouble(v->u.f);
    if (!num) return NULL;
    PyObject *t = tn_tensor_from_number(num, true);
    Py_DECREF(num);
    return t;
}

/* a Python number's dtype as upstream's isin meta names it (a complex Scalar is ComplexDouble) */
static tn_dtype isin_value_dtype(const tn_value *v) {
    return v->tag == TN_V_TENSOR ? tn_tensor_of(v->u.obj)->dtype
         : v->tag == TN_V_BOOL ? TN_DTYPE_BOOL : v->tag == TN_V_COMPLEX ? TN_DTYPE_C128 : TN_DTYPE_F64;
}

static PyObject *isin_scalar(tn_value *ev, tn_value *tv, bool invert, PyObject *out) {
    if (isin_dtype_ok(isin_value_dtype(ev)) < 0 || isin_dtype_ok(isin_value_dtype(tv)) < 0) return NULL;
    /* isin.Tensor_Scalar is upstream's eq / ne (elements, test_element): dtypes the isin kernel
     * lacks (complex32, float8, uint16/32/64) compare there (measured); the others keep isin's path */
    if (ev->tag == TN_V_TENSOR && tv->tag != TN_V_TENSOR) {
        tn_dtype et = tn_tensor_of(ev->u.obj)->dtype;
        if (tn_dtype_is_complex(et) || !tn_dtype_computable(et)) {
            if (out && !tn_door_on_meta() && tn_tensor_of(out)->storage->device != TN_DEVICE_META &&
                tn_out_dtype_exact(out, TN_DTYPE_BOOL) < 0)
                return NULL;
            tn_value v[3] = {*ev, *tv};
            if (out) v[2] = (tn_value){.tag = TN_V_TENSOR, .u.obj = out};
            return tn_door_call(out ? (invert ? TN_ROW_ne_Scalar_out : TN_ROW_eq_Scalar_out)
                                    : (invert ? TN_ROW_ne_Scalar : TN_ROW_eq_Scalar), v);
        }
    }
    PyObject *e = scalar_tensor(ev);
    if (!e) return NULL;
    PyObject *t = scalar_tensor(tv);
    if (!t) { Py_DECREF(e); return NULL; }
    PyObject *r = isin_impl(e, t, invert, out, tv->tag == TN_V_TENSOR);
    Py_DECREF(e);
    Py_DECREF(t);
    return r;
}

/* isin.X(elements, test_elements, *, assume_unique=False, invert=False[, out]) */
static PyObject *isin_tensors(tn_value *a, PyObject *out) {
    if (isin_dtype_ok(TN_T(a[0])->dtype) < 0 || isin_dtype_ok(TN_T(a[1])->dtype) < 0) return NULL;
    return isin_impl(a[0].u.obj, a[1].u.obj, nn_bool(&a[3]), out, true);
}
PyObject *tn_op_isin_Tensor_Tensor(tn_value *a) { return isin_tensors(a, NULL); }
PyObject *tn_op_isin_Tensor_Tensor_out(tn_value *a) { return isin_tensors(a, a[4].u.obj); }
PyObject *tn_op_isin_Tensor_Scalar(tn_value *a) { return isin_scalar(&a[0], &a[1], nn_bool(&a[3]), NULL); }
PyObject *tn_op_isin_Tensor_Scalar_out(tn_value *a) { return isin_scalar(&a[0], &a[1], nn_bool(&a[3]), a[4].u.obj); }
PyObject *tn_op_isin_Scalar_Tensor(tn_value *a) { return isin_scalar(&a[0], &a[1], nn_bool(&a[3]), NULL); }
PyObject *tn_op_isin_Scalar_Tensor_out(tn_value *a) { return isin_scalar(&a[0], &a[1], nn_bool(&a[3]), a[4].u.obj); }

/* ---------------------------------------------------------------- dropout */

/* The dropout family, upstream's CompositeImplicitAutograd _dropout_impl<feature, alpha, inplace>
 * (Dropout.cpp), op for op through the door so the random stream (bernoulli_ on the noise) and
 * every rounding match upstream's, and autograd records each piece:
 *   p outside [0, 1]: RuntimeError; p == 0, not training or no elements: input itself;
 *   p == 1: input * zeros(()) (mul_ in place);
 *   noise = empty_like(input) (feature: new_empty([N, C, 1, ...])), noise.bernoulli_(1 - p);
 *   plain: noise.div_(1 - p); result = input * noise;
 *   alpha: a = 1 / sqrt((alpha^2 p + 1)(1 - p)), b = noise.add(-1).mul_(alpha a).add_(alpha a p),
 *          noise.mul_(a); result = (input * noise).add_(b).
 * CPU never takes upstream's fused native_dropout path (is_fused_kernel_acceptable is false). */
PyObject *tn_dropout_composite(tn_value *a, bool feature, bool alpha, bool inplace) {
    PyObject *x = a[0].u.obj;
    double p = a[1].u.f;
    if (!(p >= 0.0 && p <= 1.0)) {
        PyErr_Format(PyExc_RuntimeError, "dropout probability has to be between 0 and 1, but got %g", p);
        return NULL;
    }
    const tn_tensor *t = tn_tensor_of(x);
    if (p == 0.0 || !nn_bool(&a[2]) || tn_numel(t) == 0) return Py_NewRef(x);
    if (feature && t->ndim < 2) {
        PyErr_SetString(PyExc_RuntimeError, "Feature dropout requires at least 2 dimensions in the input");
        return NULL;
    }
    PyObject *noise, *b = NULL;
    if (p == 1.0) {
        noise = tn_at_zeros(TN_IS0, TN_DT(t->dtype), NULL, NULL, NULL);
        if (!noise) return NULL;
        PyObject *r = (inplace ? tn_at_mul__Tensor(x, noise) : tn_at_mul_Tensor(x, noise));
        Py_DECREF(noise);
        return r;
    }
    if (feature) {
        int64_t sz[TN_MAX_DIMS];
        for (int i = 0; i < t->ndim; i++) sz[i] = i < 2 ? t->sizes[i] : 1;
        noise = tn_at_new_empty(x, TN_IN(sz, t->ndim), NULL, NULL, NULL, NULL);
    } else {
        noise = tn_at_empty_like(x, NULL, NULL, NULL, NULL, NULL);
    }
    if (!noise) return NULL;
    PyObject *tmp = tn_at_bernoulli__float(noise, 1 - p, NULL);
    if (!tmp) goto fail;
    Py_DECREF(tmp);
    if (alpha) {
        const double al = 1.7580993408473766, aa = 1. / sqrt((al * al * p + 1) * (1 - p));
        b = tn_at_add_Scalar(noise, TN_SI(-1), TN_SDEF);
        tmp = b ? tn_at_mul__Scalar(b, TN_SD(al * aa)) : NULL;
        Py_XDECREF(tmp);
        tmp = tmp ? tn_at_add__Scalar(b, TN_SD(al * aa * p), TN_SDEF) : NULL;
        Py_XDECREF(tmp);
        tmp = tmp ? tn_at_mul__Scalar(noise, TN_SD(aa)) : NULL;
    } else {
        tmp = tn_at_div__Scalar(noise, TN_SD(1 - p));
    }
    if (!tmp) goto fail;
    Py_DECREF(tmp);
    PyObject *r = (inplace ? tn_at_mul__Tensor(x, noise) : tn_at_mul_Tensor(x, noise));
    if (r && alpha) {
        tmp = tn_at_add__Tensor(r, b, TN_SDEF);
        Py_DECREF(r);
        r = tmp;
    }
    Py_DECREF(noise);
    Py_XDECREF(b);
    return r;
fail:
    Py_DECREF(noise);
    Py_XDECREF(b);
    return NULL;
}

/* native_dropout(input, p, train?): upstream's native_dropout_cpu: no elements: (input,
 * empty_like(input)); training (train None or true): mask = empty_like(input, bool).bernoulli_(1 - p),
 * output = input * (mask.type_as(input) * (1 / (1 - p))) (scale 0 when p == 1; the order measured
 * on upstream's bf16 results); else (input.clone(), ones_like
 * bool). p is checked by bernoulli_ alone, as upstream's. */
PyObject *tn_op_native_dropout(tn_value *a) {
    PyObject *x = a[0].u.obj, *out = NULL, *mask = NULL;
    double p = a[1].u.f;
    bool train = a[2].tag == TN_V_NONE || nn_bool(&a[2]);
    if (tn_numel(tn_tensor_of(x)) == 0) {
        mask = tn_at_empty_like(x, NULL, NULL, NULL, NULL, NULL);
        out = mask ? Py_NewRef(x) : NULL;
    } else if (train) {
        double p1m = 1. - p, scale = p1m == 0 ? 0. : 1. / p1m;
        mask = tn_at_empty_like(x, TN_DT(TN_DTYPE_BOOL), NULL, NULL, NULL, NULL);
        PyObject *t = mask ? tn_at_bernoulli__float(mask, p1m, NULL) : NULL;
        Py_XDECREF(t);
        /* the mask in input's dtype times scale (rounded there: bf16 rounds 1/0.7), times input */
        PyObject *mt = t ? tn_at_type_as(mask, x) : NULL;
        PyObject *ms = mt ? tn_at_mul_Scalar(mt, TN_SD(scale)) : NULL;
        out = ms ? tn_at_mul_Tensor(x, ms) : NULL;
        Py_XDECREF(mt); Py_XDECREF(ms);
    } else {
        mask = tn_at_ones_like(x, TN_DT(TN_DTYPE_BOOL), NULL, NULL, NULL, NULL);
        out = mask ? tn_at_clone(x, NULL) : NULL;
    }
    PyObject *r = out && mask ? PyTuple_Pack(2, out, mask) : NULL;
    Py_XDECREF(out); Py_XDECREF(mask);
    return r;
}

/* native_dropout_backward(grad_output, mask, scale): grad_output * mask * scale */
PyObject *tn_op_native_dropout_backward(tn_value *a) {
    PyObject *m = tn_at_mul_Tensor(a[0].u.obj, a[1].u.obj);
    PyObject *r = m ? tn_at_mul_Scalar(m, TN_SD(a[2].u.f)) : NULL;
    Py_XDECREF(m);
    return r;
}

PyObject *tn_op_dropout(tn_value *a) { return tn_dropout_composite(a, false, false, false); }
PyObject *tn_op_dropout_(tn_value *a) { return tn_dropout_composite(a, false, false, true); }
PyObject *tn_op_feature_dropout(tn_value *a) { return tn_dropout_composite(a, true, false, false); }
PyObject *tn_op_feature_dropout_(tn_value *a) { return tn_dropout_composite(a, true, false, true); }
PyObject *tn_op_alpha_dropout(tn_value *a) { return tn_dropout_composite(a, false, true, false); }
PyObject *tn_op_alpha_dropout_(tn_value *a) { return tn_dropout_composite(a, false, true, true); }
PyObject *tn_op_feature_alpha_dropout(tn_value *a) { return tn_dropout_composite(a, true, true, false); }
PyObject *tn_op_feature_alpha_dropout_(tn_value *a) { return tn_dropout_composite(a, true, true, true); }
