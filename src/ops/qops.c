/* qops.c — the quantized ops a converted ConvNet runs between its convolutions
 * (docs/quant_tensors.md "Quantized ops between the convolutions"): quantized::add / add_relu /
 * mul / mul_relu (FloatFunctional), quantized::cat / cat_relu, quantized::relu6 / max_pool2d, and on
 * quantized tensors aten's hardtanh / relu6, max_pool2d (quantized_max_pool2d), avg_pool2d,
 * adaptive_avg_pool2d (_adaptive_avg_pool2d), cat, flatten and reshape.
 * Checks, allocation and layouts here; the arithmetic (upstream's vector and scalar roundings) in
 * kernels/ref/qops.c. ops/qtensor.c's door stage asks tn_qops_aten_fn for aten rows on quantized
 * tensors, ops/qlinear.c's tn_qlinear_op_fn asks tn_qops_op_fn for the quantized:: rows. */
#include "ops/qops.h"

#include "ops/fakequant.h"
#include "ops/common.h"
#include "core/object.h"
#include "ops/qlinear.h"
#include "ops/qtensor.h"
#include "ops/pad.h"
#include "kernels/qops.h"
#include "tn_aten_gen.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

enum { PER_TENSOR = 0 };

PyObject *tn_op_max_pool2d(tn_value *a);              /* ops/pool.c: upstream's composites */
PyObject *tn_op_adaptive_avg_pool2d(tn_value *a);

static int dtcode(tn_dtype d) { return d == TN_DTYPE_QU8 ? 0 : d == TN_DTYPE_QI8 ? 1 : 2; }
static tn_dtype underlying(tn_dtype d) {
    return d == TN_DTYPE_QI8 ? TN_DTYPE_I8 : d == TN_DTYPE_QI32 ? TN_DTYPE_I32 : TN_DTYPE_U8;
}
static void qrange(tn_dtype d, int64_t *lo, int64_t *hi) {
    *lo = d == TN_DTYPE_QU8 ? 0 : d == TN_DTYPE_QI8 ? -128 : INT32_MIN;
    *hi = d == TN_DTYPE_QU8 ? 255 : d == TN_DTYPE_QI8 ? 127 : INT32_MAX;
}

/* Vectorized<T>::size() of the kernels upstream runs: its quantized kernels are registered for
 * AVX2 only (REGISTER_DISPATCH without the AVX-512 opt-in), so AVX-512 hosts run the AVX2 code:
 * 32-byte vectors (measured: add's vector body covers 64-element blocks of quint8) */
static int64_t vec_size(tn_dtype qd) { return qd == TN_DTYPE_QI32 ? 8 : 32; }

/* upstream's quantize_val of one float (fbgemm's Quantize: zp + x * (1 / scale), no FMA, rounded
 * half to even), clamped to the type's range */
static int64_t quantize_val(double scale, int64_t zp, float x, tn_dtype qd) {
    int64_t lo, hi;
    qrange(qd, &lo, &hi);
    float t = x * (1.0f / (float)scale);
    float q = rintf((float)zp + t);
    return q != q ? lo : q < (float)lo ? lo : q > (float)hi ? hi : (int64_t)q;
}

/* an empty per-tensor quantized tensor, contiguous or (fmt 2, 4-d) channels last with upstream's
 * strides */
static PyObject *new_q(int nd, const int64_t *sizes, int fmt, tn_dtype qd, double scale, int64_t zp) {
    PyObject *r = tn_tensor_new_empty(nd, sizes, underlying(qd), TN_DEVICE_CPU);
    if (!r) return NULL;
    tn_tensor *t = tn_tensor_of(r);
    if (fmt == 2 && nd == 4) {
        int64_t C = sizes[1], H = sizes[2], W = sizes[3];
        int64_t st[4] = {H * W * C, 1, W * C, C};
        memcpy(t->strides, st, sizeof st);
    }
    t->dtype = qd;
    tn_qparams q = {PER_TENSOR, scale, zp, NULL, NULL, 0};
    if (tn_quant_set(r, &q) < 0) Py_CLEAR(r);
    return r;
}

static PyObject *per_tensor_failed(void) { return tn_fq_check_failed("quantizer->qscheme() == kPerTensorAffine"); }

/* ---- add / add_relu / mul / mul_relu ---- */

/* TensorIterator's iteration of (out, a, b): dims of size > 1 innermost first by out's strides,
 * adjacent dims merged where every operand allows */
static void coalesce(tn_qbin_args *k, const tn_tensor *o, const tn_tensor *a, const int64_t *bst) {
    int order[TN_MAX_DIMS], n = 0;
    for (int d = o->ndim - 1; d >= 0; d--)
        if (o->sizes[d] != 1) order[n++] = d;
    for (int i = 1; i < n; i++)   /* stable insertion sort by out's stride */
        for (int j = i; j > 0 && o->strides[order[j]] < o->strides[order[j - 1]]; j--) {
            int t = order[j];
            order[j] = order[j - 1];
            order[j - 1] = t;
        }
    k->ndim = 0;
    for (int i = 0; i < n; i++) {
        int d = order[i];
        int64_t s[3] = {o->strides[d], a->strides[d], bst[d]};
        if (k->ndim > 0) {
            int j = k->ndim - 1;
            bool merge = true;
            for (int q = 0; q < 3; q++) merge = merge && s[q] == k->st[q][j] * k->sizes[j];
            if (merge) {
                k->sizes[j] *= o->sizes[d];
                continue;
            }
        }
        k->sizes[k->ndim] = o->sizes[d];
        for (int q = 0; q < 3; q++) k->st[q][k->ndim] = s[q];
        k->ndim++;
    }
}

static PyObject *binary(tn_value *a, const char *op, int mul, int relu) {
    PyObject *xa = a[0].u.obj, *xb = a[1].u.obj;
    tn_qparams *A = tn_quant_of(xa), *B = tn_quant_of(xb);
    const char *what = mul ? "Mul" : "Add";
    if (!A && !B) return tn_q_backend_error(op, "CPU");
    if (!A) return tn_q_backend_error("aten::qscheme", "CPU");
    if (A->scheme != PER_TENSOR)
        return PyErr_Format(PyExc_RuntimeError, "Only per tensor quantization is supported in %s.", what);
    const tn_tensor *ta = tn_tensor_of(xa), *tb = tn_tensor_of(xb);
    if (mul && ta->dtype != tb->dtype) return PyErr_Format(PyExc_RuntimeError, "Mul operands should have same data type.");
    if (!B) return tn_q_backend_error("aten::qscheme", "CPU");
    if (A->scheme != B->scheme)
        return PyErr_Format(PyExc_RuntimeError, "Both inputs to %s must have the same quantization scheme.", what);
    if (ta->dtype != tb->dtype) return PyErr_Format(PyExc_RuntimeError, "Add operands should have same data type.");
    /* qb broadcast to qa's shape (the output's, as upstream allocates it) */
    int64_t bst[TN_MAX_DIMS];
    if (tb->ndim > ta->ndim) return tn_not_implemented("quantized::add / mul with a second input of more dims than the first (upstream resizes its output)");
    for (int d = ta->ndim - 1, e = tb->ndim - 1; d >= 0; d--, e--) {
        int64_t sb = e >= 0 ? tb->sizes[e] : 1;
        if (sb == ta->sizes[d]) bst[d] = e >= 0 ? tb->strides[e] : 0;
        else if (sb == 1) bst[d] = 0;
        else if (ta->sizes[d] == 1)
            return tn_not_implemented("quantized::add / mul with a first input smaller than the broadcast shape (upstream resizes its output)");
        else
            return PyErr_Format(PyExc_RuntimeError, "The size of tensor a (%lld) must match the size of tensor b (%lld) at non-singleton dimension %d",
                                (long long)ta->sizes[d], (long long)sb, d);
    }
    double scale = a[2].u.f;
    int64_t zp = a[3].u.i;
    PyObject *y = new_q(ta->ndim, ta->sizes, tn_suggest_format(ta), ta->dtype, scale, zp);
    if (!y) return NULL;
    const tn_tensor *ty = tn_tensor_of(y);
    tn_qbin_args k = {.dt = dtcode(ta->dtype), .out = tn_data(ty), .a = tn_data(ta), .b = tn_data(tb), .mul = mul,
                      .relu = relu, .sa = (float)A->scale, .sb = (float)B->scale, .so = (float)scale,
                      .za = (int32_t)A->zero_point, .zb = (int32_t)B->zero_point, .zo = (int32_t)zp};
    if (tn_numel(ty) == 0) return y;
    coalesce(&k, ty, ta, bst);
    /* cpu_kernel_vec's vector body: every operand contiguous in the run, or one input broadcast */
    int64_t so = k.ndim ? k.st[0][0] : 1, sa = k.ndim ? k.st[1][0] : 1, sb = k.ndim ? k.st[2][0] : 1;
    bool vec = so == 1 && ((sa == 1 && sb == 1) || (sa == 0 && sb == 1) || (sa == 1 && sb == 0));
    k.vblock = vec ? 2 * vec_size(ta->dtype) : 0;   /* vectorized_loop: two vectors a step */
    Py_BEGIN_ALLOW_THREADS
    tn_qbinary(&k);
    Py_END_ALLOW_THREADS
    return y;
}
static PyObject *op_add(tn_value *a) { return binary(a, "quantized::add", 0, 0); }
static PyObject *op_add_relu(tn_value *a) { return binary(a, "quantized::add_relu", 0, 1); }
static PyObject *op__add(tn_value *a) { return binary(a, "_quantized::add", 0, 0); }
static PyObject *op_mul(tn_value *a) { return binary(a, "quantized::mul", 1, 0); }
static PyObject *op_mul_relu(tn_value *a) { return binary(a, "quantized::mul_relu", 1, 1); }

/* ---- cat / cat_relu ---- */

static PyObject *cat(tn_value *a, const char *op, int relu) {
    PyObject *xs = a[0].u.obj;
    Py_ssize_t n = PyTuple_Size(xs);
    int64_t dim = a[1].u.i;
    bool any = false;
    for (Py_ssize_t i = 0; i < n; i++) any = any || tn_quant_of(PyTuple_GetItem(xs, i));
    if (n == 0)
        return PyErr_Format(PyExc_NotImplementedError, "There were no tensor arguments to this function (e.g., you passed an "
                            "empty list of Tensors), but no fallback function is registered for schema %s.  This usually "
                            "means that this function requires a non-empty list of Tensors, or that you (the operator "
                            "writer) forgot to register a fallback function.  Available functions are [QuantizedCPU, "
                            "BackendSelect, Python, FuncTorchDynamicLayerBackMode, Functionalize, Named, Conjugate, "
                            "Negative, ZeroTensor, ADInplaceOrView, AutogradOther, AutogradCPU, AutogradCUDA, AutogradXLA, "
                            "AutogradMPS, AutogradXPU, AutogradHPU, AutogradLazy, AutogradMTIA, AutogradMeta, Tracer, "
                            "AutocastCPU, AutocastMTIA, AutocastMAIA, AutocastXPU, AutocastMPS, AutocastCUDA, FuncTorchBatched, "
                            "BatchedNestedTensor, FuncTorchVmapMode, Batched, VmapMode, FuncTorchGradWrapper, PythonTLSSnapshot, "
                            "FuncTorchDynamicLayerFrontMode, PreDispatch, PythonDispatcher].", op);
    if (!any) return tn_q_backend_error(op, "CPU");
    PyObject *x0 = PyTuple_GetItem(xs, 0);
    tn_qparams *Q0 = tn_quant_of(x0);
    if (!Q0) return tn_q_backend_error("aten::qscheme", "CPU");
    if (Q0->scheme != PER_TENSOR) return PyErr_Format(PyExc_RuntimeError, "Only per-tensor quantization is supported in 'cat'!");
    double scale = a[2].tag == TN_V_NONE ? Q0->scale : a[2].u.f;
    int64_t zp = a[3].tag == TN_V_NONE ? Q0->zero_point : a[3].u.i;
    const tn_tensor *t0 = tn_tensor_of(x0);
    /* upstream's NHWC kernel: dim 1 of channels-last 4-d inputs */
    bool nhwc = dim == 1;
    for (Py_ssize_t i = 0; i < n; i++) {
        const tn_tensor *t = tn_tensor_of(PyTuple_GetItem(xs, i));
        nhwc = nhwc && t->ndim == 4 && tn_is_contiguous_as(t, 2);
    }
    if (nhwc) {
        int64_t C_out = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            const tn_tensor *t = tn_tensor_of(PyTuple_GetItem(xs, i));
            for (int d = 0; d < 4; d++)
                if (d != 1 && t->sizes[d] != t0->sizes[d])
                    return PyErr_Format(PyExc_RuntimeError, "Sizes of tensors must match expect in dimension 1. Got%lld and %lld",
                                        (long long)t->sizes[d], (long long)t0->sizes[d]);
            if (t->dtype != t0->dtype)
                return PyErr_Format(PyExc_RuntimeError, "Expected object of scalar type %s but got scalar type %s",
                                    tn_dtype_cpp_name(t0->dtype), tn_dtype_cpp_name(t->dtype));
            if (!tn_quant_of(PyTuple_GetItem(xs, i))) return tn_q_backend_error("aten::q_scale", "CPU");
            if (tn_quant_of(PyTuple_GetItem(xs, i))->scheme != PER_TENSOR) return per_tensor_failed();
            C_out += t->sizes[1];
        }
        int64_t ys[4] = {t0->sizes[0], C_out, t0->sizes[2], t0->sizes[3]};
        PyObject *y = new_q(4, ys, 2, t0->dtype, scale, zp);
        if (!y) return NULL;
        int64_t c0 = 0, vl = vec_size(t0->dtype);
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *x = PyTuple_GetItem(xs, i);
            const tn_tensor *t = tn_tensor_of(x);
            tn_qparams *Q = tn_quant_of(x);
            tn_qcat_args k = {.dt = dtcode(t->dtype), .rows = ys[0] * ys[2] * ys[3], .C = t->sizes[1], .C_out = C_out, .c0 = c0,
                              .x = tn_data(t), .y = tn_data(tn_tensor_of(y)), .copy = Q->scale == scale && Q->zero_point == zp && !relu,
                              .vlen = vl, .flen = vl == 32 ? 8 : 0, .sx = (float)Q->scale, .so = (float)scale,
                              .inv = (float)(1.0 / scale), .zx = (int32_t)Q->zero_point, .zo = (int32_t)zp, .relu = relu};
            if (k.rows * k.C > 0) tn_qcat_nhwc(&k);
            c0 += t->sizes[1];
        }
        return y;
    }
    /* otherwise upstream dequantizes, concatenates the floats and quantizes the result */
    PyObject *fs = PyTuple_New(n);
    if (!fs) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GetItem(xs, i);
        tn_qparams *Q = tn_quant_of(x);
        if (tn_tensor_of(x)->dtype != t0->dtype) {
            Py_DECREF(fs);
            return PyErr_Format(PyExc_RuntimeError, "All dtypes must be the same.");
        }
        if (!Q || Q->scheme != Q0->scheme) {
            Py_DECREF(fs);
            return PyErr_Format(PyExc_RuntimeError, "Quantization schemes must be the same.");
        }
        PyObject *f = tn_at_dequantize_self(x);
        if (!f) {
            Py_DECREF(fs);
            return NULL;
        }
        PyTuple_SetItem(fs, i, f);
    }
    PyObject *fy = tn_at_cat(TN_TPY(fs), dim);
    Py_DECREF(fs);
    PyObject *dt = fy ? tn_py_from_dtype(t0->dtype) : NULL;
    PyObject *y = dt ? tn_at_quantize_per_tensor(fy, scale, zp, dt) : NULL;
    Py_XDECREF(dt);
    Py_XDECREF(fy);
    /* upstream's cat keeps the inputs' common channels-last format */
    bool cl = t0->ndim == 4;
    for (Py_ssize_t i = 0; i < n; i++) cl = cl && tn_suggest_format(tn_tensor_of(PyTuple_GetItem(xs, i))) == 2;
    if (y && cl && !tn_is_contiguous_as(tn_tensor_of(y), 2)) {
        PyObject *c = tn_at_contiguous(y, tn_py.memory_format_channels_last);
        Py_DECREF(y);
        y = c;
    }
    if (!y || !relu) return y;
    PyObject *r = tn_at_relu(y);
    Py_DECREF(y);
    return r;
}
static PyObject *op_cat(tn_value *a) { return cat(a, "quantized::cat", 0); }
static PyObject *op_cat_relu(tn_value *a) { return cat(a, "quantized::cat_relu", 1); }

/* ---- clamps: hardtanh / relu6 ---- */

/* the integers of qx clamped to [lo, hi] (quantize_val of the float bounds), in place or new */
static PyObject *qclamp(PyObject *qx, int64_t lo, int64_t hi, bool inplace) {
    PyObject *v = tn_quant_int_alias(qx), *r = NULL;
    if (!v) return NULL;
    if (inplace) {
        PyObject *c = tn_at_clamp_(v, TN_SI(lo), TN_SI(hi));
        if (c) {
            Py_DECREF(c);
            tn_tensor_of(qx)->storage->version++;
            r = Py_NewRef(qx);
        }
    } else {
        r = tn_quant_like(tn_at_clamp(v, TN_SI(lo), TN_SI(hi)), qx);
    }
    Py_DECREF(v);
    return r;
}

static PyObject *hardtanh(PyObject *qx, double lo, double hi, bool inplace) {
    tn_qparams *Q = tn_quant_of(qx);
    if (Q->scheme != PER_TENSOR) return per_tensor_failed();
    tn_dtype qd = tn_tensor_of(qx)->dtype;
    return qclamp(qx, quantize_val(Q->scale, Q->zero_point, (float)lo, qd), quantize_val(Q->scale, Q->zero_point, (float)hi, qd), inplace);
}

/* quantized::relu6(Tensor qx, bool inplace=False): [zero point, quantize_val(6)] */
static PyObject *op_relu6(tn_value *a) {
    PyObject *qx = a[0].u.obj;
    tn_qparams *Q = tn_quant_of(qx);
    if (!Q) return tn_q_backend_error("quantized::relu6", "CPU");
    if (Q->scheme != PER_TENSOR) return per_tensor_failed();
    tn_dtype qd = tn_tensor_of(qx)->dtype;
    return qclamp(qx, Q->zero_point, quantize_val(Q->scale, Q->zero_point, 6.0f, qd), a[1].u.i != 0);
}

static double num(const tn_value *v) { return v->tag == TN_V_FLOAT ? v->u.f : v->tag == TN_V_BOOL ? (double)v->u.i : (double)v->u.i; }
static PyObject *aten_hardtanh(tn_value *a) { return hardtanh(a[0].u.obj, num(&a[1]), num(&a[2]), false); }
static PyObject *aten_hardtanh_(tn_value *a) { return hardtanh(a[0].u.obj, num(&a[1]), num(&a[2]), true); }
static PyObject *aten_relu6(tn_value *a) { return hardtanh(a[0].u.obj, 0, 6, false); }
static PyObject *aten_relu6_(tn_value *a) { return hardtanh(a[0].u.obj, 0, 6, true); }

/* ---- max_pool2d ---- */

/* upstream's pooling_output_shape */
static int64_t pool_out(int64_t in, int64_t k, int64_t p, int64_t s, int64_t d, bool ceil) {
    int64_t num = in + 2 * p - d * (k - 1) - 1 + (ceil ? s - 1 : 0);
    int64_t o = (num >= 0 ? num / s : -((-num + s - 1) / s)) + 1;
    if (ceil && (o - 1) * s >= in + p) o--;
    return o;
}

static int pair(const tn_value *v, int64_t out[2], int64_t dflt0, int64_t dflt1) {
    if (v->tag != TN_V_INTLIST || v->u.ints.n == 0) { out[0] = dflt0; out[1] = dflt1; return 0; }
    out[0] = v->u.ints.v[0];
    out[1] = v->u.ints.n > 1 ? v->u.ints.v[1] : v->u.ints.v[0];
    return (int)v->u.ints.n;
}

/* (self, kernel_size, stride, padding, dilation, ceil_mode) */
static PyObject *maxpool(tn_value *a, const char *op) {
    PyObject *qx = a[0].u.obj;
    tn_qparams *Q = tn_quant_of(qx);
    if (!Q) return tn_q_backend_error(op, "CPU");
    int64_t k[2], s[2], p[2], d[2];
    int nk = pair(&a[1], k, 0, 0), ns, np = pair(&a[3], p, 0, 0), nd = pair(&a[4], d, 1, 1);
    if (nk != 1 && nk != 2) return PyErr_Format(PyExc_RuntimeError, "Expected 1d or 2d kernel size, got %d", nk);
    ns = pair(&a[2], s, k[0], k[1]);
    if (ns != 0 && ns != 2) return PyErr_Format(PyExc_RuntimeError, "Expected no strides or 2d strides, got%d", ns);
    if (a[3].tag == TN_V_INTLIST && np != 1 && np != 2) return PyErr_Format(PyExc_RuntimeError, "Expected 1d or 2d padding, got %d", np);
    if (a[4].tag == TN_V_INTLIST && nd != 1 && nd != 2) return PyErr_Format(PyExc_RuntimeError, "Expected 1d or 2d dilation, got %d", nd);
    if (k[0] <= 0 || k[1] <= 0) return PyErr_Format(PyExc_RuntimeError, "kernel_size should be greater than zero.");
    if (s[0] <= 0 || s[1] <= 0) return PyErr_Format(PyExc_RuntimeError, "strides should be greater than zero.");
    if (d[0] <= 0 || d[1] <= 0)
        return PyErr_Format(PyExc_RuntimeError, "dilation should be greater than zero. Got (%lld, %lld)", (long long)d[0], (long long)d[1]);
    const tn_tensor *t = tn_tensor_of(qx);
    if (t->ndim != 3 && t->ndim != 4) return PyErr_Format(PyExc_RuntimeError, "Expecting the input tensor of rank 3 or 4.");
    int b = t->ndim - 3;
    int64_t N = b ? t->sizes[0] : 1, C = t->sizes[b], H = t->sizes[b + 1], W = t->sizes[b + 2];
    if (C <= 0 || H <= 0 || W <= 0) return PyErr_Format(PyExc_RuntimeError, "input dimensions must be non-zero.");
    if (k[0] / 2 < p[0] || k[1] / 2 < p[1]) return PyErr_Format(PyExc_RuntimeError, "padding should be smaller than half of kernel_size.");
    if (p[0] < 0 || p[1] < 0)
        return PyErr_Format(PyExc_RuntimeError, "pad must be non-negative, but got pad: %lld", (long long)(p[0] < 0 ? p[0] : p[1]));
    bool ceil = a[5].u.i != 0;
    int64_t OH = pool_out(H, k[0], p[0], s[0], d[0], ceil), OW = pool_out(W, k[1], p[1], s[1], d[1], ceil);
    if (OH <= 0 || OW <= 0)
        return PyErr_Format(PyExc_RuntimeError, "Given input size: (%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lld). "
                            "Output size is too small.", (long long)C, (long long)H, (long long)W, (long long)C, (long long)OH, (long long)OW);
    if (Q->scheme != PER_TENSOR) return per_tensor_failed();
    int64_t ys[4] = {N, C, OH, OW};
    bool cl = t->ndim == 4 && tn_is_contiguous_as(t, 2);
    int fmt = cl ? tn_suggest_format(t) : 0;
    PyObject *y = b ? new_q(4, ys, fmt, t->dtype, Q->scale, Q->zero_point) : new_q(3, ys + 1, 0, t->dtype, Q->scale, Q->zero_point);
    if (!y) return NULL;
    const tn_tensor *ty = tn_tensor_of(y);
    tn_qpool_args q = {.dt = dtcode(t->dtype), .N = N, .C = C, .H = H, .W = W, .OH = OH, .OW = OW, .kh = k[0], .kw = k[1],
                       .sh = s[0], .sw = s[1], .ph = p[0], .pw = p[1], .dh = d[0], .dw = d[1], .x = tn_data(t), .y = tn_data(ty)};
    /* strides N, C, H, W of input and output (a 3-d tensor has one image); upstream's channels-last
     * kernel writes NHWC whatever the output's strides (a contiguous [N, C, 1, 1] input gets a
     * contiguous output holding NHWC bytes: reproduced) */
    int64_t nhwc[4] = {OH * OW * C, 1, OW * C, C};
    for (int i = 0; i < 4; i++) {
        q.xs[i] = b ? t->strides[i] : i == 0 ? 0 : t->strides[i - 1];
        q.ys[i] = cl ? nhwc[i] : b ? ty->strides[i] : i == 0 ? 0 : ty->strides[i - 1];
    }
    Py_BEGIN_ALLOW_THREADS
    tn_qmaxpool2d(&q);
    Py_END_ALLOW_THREADS
    return y;
}
static PyObject *aten_quantized_max_pool2d(tn_value *a) { return maxpool(a, "aten::quantized_max_pool2d"); }
static PyObject *op_max_pool2d(tn_value *a) { return maxpool(a, "quantized::max_pool2d"); }

/* ---- avg_pool2d / adaptive_avg_pool2d ---- */

/* the strides (N, C, H, W) of a 3-d or 4-d tensor, a 3-d one as one image */
static void nchw_strides(const tn_tensor *t, int64_t s[4]) {
    int b = t->ndim - 3;
    for (int i = 0; i < 4; i++) s[i] = b ? t->strides[i] : i == 0 ? 0 : t->strides[i - 1];
}

/* the pooled result of qx in upstream's layout: channels-last inputs through its NHWC kernels
 * (the output allocated in suggest_memory_format, written NHWC), the others NCHW contiguous */
static PyObject *avg_run(PyObject *qx, tn_qavg_args *k) {
    tn_qparams *Q = tn_quant_of(qx);
    if (Q->scheme != PER_TENSOR) return per_tensor_failed();
    const tn_tensor *t = tn_tensor_of(qx);
    int b = t->ndim - 3;
    k->nhwc = t->ndim == 4 && tn_is_contiguous_as(t, 2);
    int64_t ys[4] = {k->N, k->C, k->OH, k->OW};
    PyObject *y = new_q(t->ndim, ys + 1 - b, k->nhwc ? tn_suggest_format(t) : 0, t->dtype, Q->scale, Q->zero_point);
    if (!y) return NULL;
    k->dt = dtcode(t->dtype);
    k->x = tn_data(t);
    k->y = tn_data(tn_tensor_of(y));
    k->zp = (int32_t)Q->zero_point;
    nchw_strides(t, k->xs);
    int64_t nhwc[4] = {k->OH * k->OW * k->C, 1, k->OW * k->C, k->C};
    if (k->nhwc) memcpy(k->ys, nhwc, sizeof nhwc);
    else nchw_strides(tn_tensor_of(y), k->ys);
    /* the NHWC kernels' vector part: whole 8-channel groups of the 8-bit types (AVX2) */
    k->vend = k->nhwc && t->dtype != TN_DTYPE_QI32 ? k->C / 8 * 8 : 0;
    if (k->N * k->C * k->OH * k->OW > 0) {
        Py_BEGIN_ALLOW_THREADS
        tn_qavgpool2d(k);
        Py_END_ALLOW_THREADS
    }
    return y;
}

/* avg_pool2d(self, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override) */
static PyObject *aten_avg_pool2d(tn_value *a) {
    PyObject *qx = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(qx);
    int64_t k[2], s[2], p[2];
    int nk = pair(&a[1], k, 0, 0);
    if (nk != 1 && nk != 2)
        return PyErr_Format(PyExc_RuntimeError, "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints");
    int ns = pair(&a[2], s, k[0], k[1]);
    if (ns > 2)
        return PyErr_Format(PyExc_RuntimeError, "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
    int np = pair(&a[3], p, 0, 0);
    if (a[3].tag == TN_V_INTLIST && np != 1 && np != 2)
        return PyErr_Format(PyExc_RuntimeError, "avg_pool2d: padding must either be a single int, or a tuple of two ints");
    if (t->ndim != 3 && t->ndim != 4) return tn_not_implemented("quantized avg_pool2d of an input that is not 3-d or 4-d");
    bool has_div = a[6].tag != TN_V_NONE;
    if (has_div && a[6].u.i == 0) return PyErr_Format(PyExc_RuntimeError, "divisor must be not zero");
    for (int i = 0; i < 2; i++) {
        if (s[i] == 0) return PyErr_Format(PyExc_RuntimeError, "stride should not be zero");
        if (p[i] < 0) return PyErr_Format(PyExc_RuntimeError, "pad must be non-negative, but got pad: %lld", (long long)p[i]);
        if (p[i] > k[i] / 2)
            return PyErr_Format(PyExc_RuntimeError, "pad should be at most half of effective kernel size, but got pad=%lld, "
                                "kernel_size=%lld and dilation=1", (long long)p[i], (long long)k[i]);
    }
    int b = t->ndim - 3;
    bool ceil = a[4].u.i != 0;
    tn_qavg_args q = {.N = b ? t->sizes[0] : 1, .C = t->sizes[b], .H = t->sizes[b + 1], .W = t->sizes[b + 2], .kh = k[0],
                      .kw = k[1], .sh = s[0], .sw = s[1], .ph = p[0], .pw = p[1], .divisor = has_div ? a[6].u.i : 0,
                      .count_include_pad = a[5].u.i != 0};
    q.OH = pool_out(q.H, k[0], p[0], s[0], 1, ceil);
    q.OW = pool_out(q.W, k[1], p[1], s[1], 1, ceil);
    if (q.OH < 0 || q.OW < 0) {   /* upstream's allocation refuses the shape */
        char sz[160];
        if (b) snprintf(sz, sizeof sz, "[%lld, %lld, %lld, %lld]", (long long)q.N, (long long)q.C, (long long)q.OH, (long long)q.OW);
        else snprintf(sz, sizeof sz, "[%lld, %lld, %lld]", (long long)q.C, (long long)q.OH, (long long)q.OW);
        return PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: %s",
                            (long long)(q.OH < 0 ? q.OH : q.OW), sz);
    }
    return avg_run(qx, &q);
}

/* _adaptive_avg_pool2d(self, output_size) */
static PyObject *aten__adaptive_avg_pool2d(tn_value *a) {
    PyObject *qx = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(qx);
    if (a[1].u.ints.n != 2)
        return PyErr_Format(PyExc_RuntimeError, "adaptive_avg_pool2d: output_size must be 2");
    int64_t oh = a[1].u.ints.v[0], ow = a[1].u.ints.v[1];
    for (int i = 1; i < t->ndim; i++)
        if (t->sizes[i] <= 0) {
            char sz[256];
            int o = snprintf(sz, sizeof sz, "[");
            for (int j = 0; j < t->ndim && o < 200; j++) o += snprintf(sz + o, sizeof sz - o, "%s%lld", j ? ", " : "", (long long)t->sizes[j]);
            snprintf(sz + o, sizeof sz - o, "]");
            return PyErr_Format(PyExc_RuntimeError, "adaptive_avg_pooling2d(): expected input to have non-empty spatial dimensions, "
                                "but input has sizes %s with dimension %d being empty", sz, i);
        }
    if (t->ndim != 3 && t->ndim != 4)
        return PyErr_Format(PyExc_RuntimeError, "non-empty 3D or 4D (batch mode) tensor expected for input");
    if (oh < 0 || ow < 0) return tn_not_implemented("quantized _adaptive_avg_pool2d with a negative output size");
    int b = t->ndim - 3;
    tn_qavg_args q = {.adaptive = 1, .N = b ? t->sizes[0] : 1, .C = t->sizes[b], .H = t->sizes[b + 1], .W = t->sizes[b + 2],
                      .OH = oh, .OW = ow};
    return avg_run(qx, &q);
}

/* ---- aten::cat, flatten / reshape ---- */

/* cat(tensors, dim) with a quantized input: upstream's quantized cat at the first input's qparams
 * (warning when they differ), dim wrapped */
static PyObject *aten_cat(tn_value *a) {
    PyObject *xs = a[0].u.obj;
    Py_ssize_t n = PyTuple_Size(xs);
    tn_qparams *Q0 = n ? tn_quant_of(PyTuple_GetItem(xs, 0)) : NULL;
    if (!Q0) return tn_q_backend_error("aten::qscheme", "CPU");
    if (Q0->scheme != PER_TENSOR) return PyErr_Format(PyExc_RuntimeError, "Only per-tensor quantization is supported in 'cat'!");
    bool same = true;
    for (Py_ssize_t i = 1; i < n; i++) {
        tn_qparams *Q = tn_quant_of(PyTuple_GetItem(xs, i));
        same = same && Q && Q->scheme == PER_TENSOR && Q->scale == Q0->scale && Q->zero_point == Q0->zero_point;
    }
    if (!same && PyErr_WarnEx(PyExc_UserWarning, "All inputs of this cat operator must share the same quantization parameters. "
                              "Otherwise large numerical inaccuracies may occur.", 1) < 0)
        return NULL;
    int64_t dim = a[1].u.i;
    for (Py_ssize_t i = 0; i < n; i++)
        if (tn_tensor_of(PyTuple_GetItem(xs, i))->ndim == 0)
            return PyErr_Format(PyExc_RuntimeError, "zero-dimensional tensor (at position %zd) cannot be concatenated", i);
    for (Py_ssize_t i = 0; i < n; i++) {   /* legacy_cat_wrap_dim: the first input that is not 1-d empty */
        const tn_tensor *t = tn_tensor_of(PyTuple_GetItem(xs, i));
        if (t->ndim == 1 && t->sizes[0] == 0) continue;
        if (dim < -t->ndim || dim >= t->ndim)
            return PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
                                -t->ndim, t->ndim - 1, (long long)dim);
        if (dim < 0) dim += t->ndim;
        break;
    }
    tn_value c[4] = {a[0], {.tag = TN_V_INT, .u.i = dim}, {.tag = TN_V_NONE}, {.tag = TN_V_NONE}};
    return cat(c, "aten::cat", 0);
}

/* reshape(self, shape): a view when the strides allow, else of a contiguous copy (upstream's
 * composite: view or clone + _unsafe_view) */
static PyObject *reshape_to(PyObject *qx, tn_ints shape) {
    PyObject *r = tn_at_view(qx, shape);
    if (r || !PyErr_ExceptionMatches(PyExc_RuntimeError)) return r;
    PyErr_Clear();
    PyObject *c = tn_at_contiguous(qx, tn_py.memory_format_contiguous);
    r = c ? tn_at_view(c, shape) : NULL;
    Py_XDECREF(c);
    return r;
}
static PyObject *aten_reshape(tn_value *a) { return reshape_to(a[0].u.obj, TN_IN(a[1].u.ints.v, a[1].u.ints.n)); }
/* flatten.using_ints(self, start_dim, end_dim) */
static PyObject *aten_flatten(tn_value *a) {
    PyObject *qx = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(qx);
    int nd = t->ndim ? t->ndim : 1;
    int64_t s = a[1].u.i, e = a[2].u.i;
    if (s < -nd || s >= nd || e < -nd || e >= nd)
        return PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)", -nd,
                            nd - 1, (long long)(s < -nd || s >= nd ? s : e));
    if (s < 0) s += nd;
    if (e < 0) e += nd;
    if (s > e) return PyErr_Format(PyExc_RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim");
    if (t->ndim == 0) return reshape_to(qx, TN_IS(1));
    if (s == e) return Py_NewRef(qx);
    int64_t shape[TN_MAX_DIMS], m = 1;
    int n = 0;
    for (int d = 0; d < s; d++) shape[n++] = t->sizes[d];
    for (int64_t d = s; d <= e; d++) m *= t->sizes[d];
    shape[n++] = m;
    for (int d = (int)e + 1; d < t->ndim; d++) shape[n++] = t->sizes[d];
    return reshape_to(qx, TN_IN(shape, n));
}

/* ---- the tables ---- */

static const struct { const char *name, *overload; tn_op_fn fn; } ns_ops[] = {
    {"quantized::add", "", op_add},         {"quantized::add_relu", "", op_add_relu}, {"_quantized::add", "", op__add},
    {"quantized::mul", "", op_mul},         {"quantized::mul_relu", "", op_mul_relu}, {"quantized::cat", "", op_cat},
    {"quantized::cat_relu", "", op_cat_relu}, {"quantized::relu6", "", op_relu6},   {"quantized::max_pool2d", "", op_max_pool2d},
};

tn_op_fn tn_qops_op_fn(const char *name, const char *overload) {
    for (size_t i = 0; i < sizeof ns_ops / sizeof *ns_ops; i++)
        if (!strcmp(ns_ops[i].name, name) && !strcmp(ns_ops[i].overload, overload)) return ns_ops[i].fn;
    return NULL;
}

/* aten rows with a quantized argument (upstream's QuantizedCPU kernels; relu6 is upstream's
 * composite over hardtanh; max_pool2d and adaptive_avg_pool2d run ops/pool.c's composites, which
 * reach quantized_max_pool2d / _adaptive_avg_pool2d here) */
static const struct { const char *name, *overload; tn_op_fn fn; } aten_ops[] = {
    {"hardtanh", "", aten_hardtanh},     {"hardtanh_", "", aten_hardtanh_},           {"relu6", "", aten_relu6},
    {"relu6_", "", aten_relu6_},         {"max_pool2d", "", tn_op_max_pool2d},         {"quantized_max_pool2d", "", aten_quantized_max_pool2d},
    {"avg_pool2d", "", aten_avg_pool2d}, {"_adaptive_avg_pool2d", "", aten__adaptive_avg_pool2d},
    {"adaptive_avg_pool2d", "", tn_op_adaptive_avg_pool2d}, {"cat", "", aten_cat}, {"flatten", "using_ints", aten_flatten},
    {"reshape", "", aten_reshape},
};

tn_op_fn tn_qops_aten_fn(const char *name, const char *overload) {
    for (size_t i = 0; i < sizeof aten_ops / sizeof *aten_ops; i++)
        if (!strcmp(aten_ops[i].name, name) && !strcmp(aten_ops[i].overload, overload)) return aten_ops[i].fn;
    return NULL;
}
