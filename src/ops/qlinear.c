/* qlinear.c — quantized Linear, dynamic (float in and out) and static (quint8 in and out), as
 * upstream's x86 engine (fbgemm) runs it (docs/quant_tensors.md "Dynamic quantization", "Static
 * Linear").
 *
 * quantized::linear_prepack returns upstream's packed parameters, a torch.ScriptObject of the
 * custom class __torch__.torch.classes.quantized.LinearPackedParamsBase. Upstream's Python only
 * passes it back to the quantized:: operators, pickles it (__getstate__ / __setstate__ /
 * __reduce_ex__, deepcopy) and prints the module around it, so the object here is a small C
 * type named torch.ScriptObject holding what the kernels read: int8 weights (their integers,
 * scales, zero points and fbgemm's column offsets) or float16-rounded weights, and the bias as
 * given. Its pickled state is upstream's, ((weight, bias), qualified class name), so a whole
 * model saved on either torch loads on the other.
 *
 * The kernels (kernels/ref/qlinear.c) follow fbgemm's float steps, measured bit for bit against
 * upstream: min / max, quant_utils' qparams (with reduce_range), uint8 activations, exact int32
 * products, requantization with one FMA for the bias; float16 weights in K blocks of 512; the
 * static output requantized as fbgemm's ReQuantizeOutput. */
#include "ops/qlinear.h"
#include "ops/qops.h"

#include "ops/common.h"
#include "ops/fakequant.h"
#include "ops/qconv.h"
#include "kernels/fakequant.h"
#include "kernels/qlinear.h"
#include "tn_aten_gen.h"

#include <stdlib.h>
#include <string.h>

#define CLASS_NAME "__torch__.torch.classes.quantized.LinearPackedParamsBase"

enum { PK_EMPTY, PK_INT8, PK_FP16, PK_CONV };   /* PK_CONV: ops/qconv.c's Conv2dPackedParamsBase */

typedef struct {
    PyObject_HEAD
    int kind;
    int64_t N, K;
    /* PK_INT8: the integers (dense int8, contiguous N x K); PK_FP16: the weights rounded to
     * float16, as float32 (contiguous N x K) */
    PyObject *w;
    PyObject *bias;            /* or NULL */
    int per_channel;
    float *w_scale;            /* PK_INT8: N each (per tensor: the one value repeated) */
    int32_t *w_zp, *col_off;
    int8_t *wp;                /* PK_INT8: the weights packed for the kernel variant, or NULL */
    float *wp16;               /* PK_FP16: the same */
    tn_qconv_w *conv;          /* PK_CONV (owned) */
} packed;

static PyTypeObject *packed_type;

static void packed_clear(packed *p) {
    Py_CLEAR(p->w);
    Py_CLEAR(p->bias);
    free(p->w_scale);
    free(p->w_zp);
    free(p->col_off);
    free(p->wp);
    free(p->wp16);
    tn_qconv_free(p->conv);
    p->conv = NULL;
    p->wp = NULL;
    p->wp16 = NULL;
    p->w_scale = NULL;
    p->w_zp = p->col_off = NULL;
    p->kind = PK_EMPTY;
}

static PyObject *packed_alloc(void) {
    packed *p = (packed *)((allocfunc)PyType_GetSlot(packed_type, Py_tp_alloc))(packed_type, 0);
    return (PyObject *)p;   /* zero-filled: PK_EMPTY */
}

PyObject *tn_q_backend_error(const char *op, const char *backend) {
    return PyErr_Format(PyExc_NotImplementedError, "Could not run '%s' with arguments from the '%s' backend. This could "
                        "be because the operator doesn't exist for this backend, or was omitted during the "
                        "selective/custom build process (if using custom build).", op, backend);
}

static PyObject *not_float(const tn_tensor *t) {
    return PyErr_Format(PyExc_RuntimeError, "expected scalar type Float but found %s", tn_dtype_cpp_name(t->dtype));
}

/* a contiguous tensor: t itself when it is, else a contiguous clone */
static PyObject *contiguous(PyObject *t) {
    return tn_is_contiguous(tn_tensor_of(t)) ? Py_NewRef(t) : tn_at_clone(t, tn_py.memory_format_contiguous);
}

/* ---- packing ---- */

/* upstream's PackedLinearWeight::prepack (fbgemm) into p (empty) */
static int pack_int8(packed *p, PyObject *W, PyObject *B) {
    tn_qparams *Q = tn_quant_of(W);
    const tn_tensor *w = tn_tensor_of(W);
    if (w->ndim != 2) {
        tn_fq_error("The weight tensor for quantized::linear_prepack (fbgemm) should be 2-dimensional.");
        return -1;
    }
    int64_t N = w->sizes[0], K = w->sizes[1];
    if (Q->scheme != 0 && Q->scheme != 1) {
        tn_not_implemented("quantized::linear_prepack of a weight of this qscheme");
        return -1;
    }
    if (Q->scheme == 1 && Q->axis != 0) {   /* upstream reads the first N channel parameters anyway */
        tn_not_implemented("quantized::linear_prepack of a weight quantized per channel along axis 1");
        return -1;
    }
    if (w->dtype != TN_DTYPE_QI8) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type QInt8 but found %s", tn_dtype_cpp_name(w->dtype));
        return -1;
    }
    PyObject *bc = NULL;
    if (B) {
        const tn_tensor *b = tn_tensor_of(B);
        if (b->ndim != 1) { tn_fq_error("bias should be a vector (1D Tensor)"); return -1; }
        if (b->sizes[0] != N) {
            PyErr_Format(PyExc_RuntimeError, "bias should have N elements: %lld", (long long)N);
            return -1;
        }
        if (!(bc = contiguous(B))) return -1;
    }
    PyObject *ints = tn_at_int_repr(W);
    PyObject *wc = ints ? tn_as_dtype(ints, TN_DTYPE_I8, true) : NULL;
    Py_XDECREF(ints);
    p->w = wc;
    p->bias = bc;
    if (!wc) goto fail;
    size_t n = (size_t)(N > 0 ? N : 1);
    int64_t pb = tn_qdyn_packed_bytes(N, K);
    p->w_scale = malloc(n * sizeof(float));
    p->w_zp = malloc(n * sizeof(int32_t));
    p->col_off = malloc(n * sizeof(int32_t));
    p->wp = pb > 0 ? malloc((size_t)pb) : NULL;
    if (!p->w_scale || !p->w_zp || !p->col_off || (pb > 0 && !p->wp)) { PyErr_NoMemory(); goto fail; }
    if (Q->scheme == 0) {
        for (int64_t j = 0; j < N; j++) { p->w_scale[j] = (float)Q->scale; p->w_zp[j] = (int32_t)Q->zero_point; }
    } else {
        PyObject *s = tn_as_dtype(Q->scales, TN_DTYPE_F64, true), *z = s ? tn_as_dtype(Q->zero_points, TN_DTYPE_I64, true) : NULL;
        if (!z) { Py_XDECREF(s); goto fail; }
        const double *sd = (const double *)tn_data(tn_tensor_of(s));
        const int64_t *zd = (const int64_t *)tn_data(tn_tensor_of(z));
        for (int64_t j = 0; j < N; j++) { p->w_scale[j] = (float)sd[j]; p->w_zp[j] = (int32_t)zd[j]; }
        Py_DECREF(s);
        Py_DECREF(z);
    }
    const int8_t *wd = (const int8_t *)tn_data(tn_tensor_of(wc));
    tn_qdyn_col_offsets(wd, N, K, p->w_zp, p->col_off);
    if (p->wp) tn_qdyn_pack(wd, N, K, p->wp);
    p->kind = PK_INT8;
    p->N = N;
    p->K = K;
    p->per_channel = Q->scheme == 1;
    return 0;
fail:
    packed_clear(p);
    return -1;
}

/* upstream's PackedLinearWeightFp16::prepack: weight.to(float); a contiguous float weight is
 * saturated to +-65504 in place first (_saturate_weight_to_fp16, measured: the caller's tensor
 * changes); the bias is kept as given */
static int pack_fp16(packed *p, PyObject *W, PyObject *B) {
    const tn_tensor *w = tn_tensor_of(W);
    if (w->ndim != 2) {   /* upstream reads size(0) x size(1) elements of any shape */
        tn_not_implemented("quantized::linear_prepack_fp16 of a weight that is not 2-dimensional");
        return -1;
    }
    PyObject *wf = tn_as_dtype(W, TN_DTYPE_F32, false);
    if (!wf) return -1;
    tn_tensor *ft = tn_tensor_of(wf);
    int64_t N = w->sizes[0], K = w->sizes[1];
    if (tn_is_contiguous(ft)) tn_qdyn_saturate_f16((float *)tn_data(ft), N * K);
    PyObject *c = tn_tensor_new_empty(2, w->sizes, TN_DTYPE_F32, TN_DEVICE_CPU);
    int rc = c ? tn_copy_into(c, wf) : -1;
    Py_DECREF(wf);
    if (rc < 0) { Py_XDECREF(c); return -1; }
    tn_qdyn_round_f16((float *)tn_data(tn_tensor_of(c)), N * K);
    int64_t pf = tn_qdyn_fp16_packed_floats(N, K);
    if (pf > 0) {
        if (!(p->wp16 = malloc((size_t)pf * sizeof(float)))) { Py_DECREF(c); PyErr_NoMemory(); return -1; }
        tn_qdyn_fp16_pack((const float *)tn_data(tn_tensor_of(c)), N, K, p->wp16);
    }
    p->kind = PK_FP16;
    p->N = N;
    p->K = K;
    p->w = c;
    p->bias = B ? Py_NewRef(B) : NULL;
    return 0;
}

/* ---- reading the object ---- */

/* the packed parameters in an `Any W_prepack` argument, or upstream's schema error */
static packed *packed_arg(const tn_value *v, const char *op) {
    PyObject *o = v->tag == TN_V_NONE ? Py_None : v->u.obj;
    if (PyObject_TypeCheck(o, packed_type)) {
        packed *p = (packed *)o;
        if (p->kind == PK_CONV) {
            PyErr_Format(PyExc_RuntimeError, "Tried to convert an IValue of type %s (of Python compilation unit at: 0) "
                         "to custom class type " CLASS_NAME " (of Python compilation unit at: 0)", tn_qconv_class(p->conv));
            return NULL;
        }
        if (p->kind != PK_EMPTY) return p;
        PyErr_SetString(PyExc_RuntimeError, "torchnative: this torch.ScriptObject holds no packed parameters "
                        "(made by ScriptObject.__new__ and never given a state)");
        return NULL;
    }
    PyErr_Format(PyExc_RuntimeError, "%s() Expected a value of type '" CLASS_NAME " (of Python compilation unit at: 0)' "
                 "for argument 'W_prepack' but instead found type '%s'.", op,
                 tn_py_is_tensor(o) ? "Tensor" : tn_py_type_name(o));
    return NULL;
}

PyObject *tn_q_weight(PyObject *ints, int per_channel, int64_t n, const float *scale, const int32_t *zp) {
    if (!per_channel) return tn_at__make_per_tensor_quantized_tensor(ints, (double)scale[0], zp[0]);
    PyObject *s = tn_tensor_new_empty(1, &n, TN_DTYPE_F64, TN_DEVICE_CPU);
    PyObject *z = s ? tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
    PyObject *w = NULL;
    if (z) {
        double *sd = (double *)tn_data(tn_tensor_of(s));
        int64_t *zd = (int64_t *)tn_data(tn_tensor_of(z));
        for (int64_t j = 0; j < n; j++) { sd[j] = scale[j]; zd[j] = zp[j]; }
        w = tn_at__make_per_channel_quantized_tensor(ints, s, z, 0);
    }
    Py_XDECREF(s);
    Py_XDECREF(z);
    return w;
}

/* upstream's unpack(): a new quantized weight (per tensor: scale rounded through float; per
 * channel: float scales as float64, zero points as int64, axis 0), or the float16-rounded
 * weights as a new float tensor; and the bias */
static PyObject *unpack(packed *p) {
    PyObject *w;
    if (p->kind == PK_CONV) return tn_qconv_unpack(p->conv);
    w = p->kind == PK_FP16 ? tn_at_clone(p->w, NULL) : tn_q_weight(p->w, p->per_channel, p->N, p->w_scale, p->w_zp);
    if (!w) return NULL;
    PyObject *r = PyTuple_Pack(2, w, p->bias ? p->bias : Py_None);
    Py_DECREF(w);
    return r;
}

/* ---- applying ---- */

static PyObject *apply_int8(packed *p, PyObject *X, bool reduce_range, int relu) {
    const tn_tensor *x = tn_tensor_of(X);
    if (x->dtype != TN_DTYPE_F32) return not_float(x);
    if (x->ndim < 2) return tn_fq_error("The dimension of input tensor should be larger than or equal to 2");
    int64_t K = x->sizes[x->ndim - 1], M = 1;
    if (K != p->K)
        return PyErr_Format(PyExc_RuntimeError, "The number of rows in the packB should be equal to K: %lld", (long long)K);
    for (int i = 0; i < x->ndim - 1; i++) M *= x->sizes[i];
    PyObject *xc = tn_as_dtype(X, TN_DTYPE_F32, true);
    if (!xc) return NULL;
    const float *xd = (const float *)tn_data(tn_tensor_of(xc));
    float mn, mx;
    tn_qdyn_minmax(xd, M * K, &mn, &mx);
    double scale;
    int32_t zp;
    if (!tn_fq_choose_qparams(mn, mx, 0, 255, false, reduce_range, &scale, &zp)) {
        Py_DECREF(xc);
        return tn_fq_error("In ChooseQuantizationParams, min should be less than or equal to max");
    }
    if (p->bias && tn_tensor_of(p->bias)->dtype != TN_DTYPE_F32) { Py_DECREF(xc); return not_float(tn_tensor_of(p->bias)); }
    int64_t sizes[TN_MAX_DIMS];
    memcpy(sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    sizes[x->ndim - 1] = p->N;
    PyObject *y = tn_tensor_new_empty(x->ndim, sizes, TN_DTYPE_F32, TN_DEVICE_CPU);
    int64_t ldq = tn_qdyn_row_stride(K);
    void *scratch = y ? malloc((size_t)(M * ldq) + (size_t)M * sizeof(int32_t) + 1) : NULL;
    if (!scratch) {
        if (y) PyErr_NoMemory();
        Py_DECREF(xc);
        Py_XDECREF(y);
        return NULL;
    }
    tn_qdyn_args a = {
        .M = M, .N = p->N, .K = K, .x = xd, .a_scale = (float)scale, .a_zp = zp,
        .w = (const int8_t *)tn_data(tn_tensor_of(p->w)), .wp = p->wp, .col_off = p->col_off, .w_scale = p->w_scale, .w_zp = p->w_zp,
        .bias = p->bias ? (const float *)tn_data(tn_tensor_of(p->bias)) : NULL, .y = (float *)tn_data(tn_tensor_of(y)),
        .row_off = (int32_t *)scratch, .qx = (uint8_t *)scratch + (size_t)M * sizeof(int32_t), .ldq = ldq, .relu = relu,
    };
    Py_BEGIN_ALLOW_THREADS
    tn_qdyn_linear(&a);
    Py_END_ALLOW_THREADS
    free(scratch);
    Py_DECREF(xc);
    return y;
}

static PyObject *apply_fp16(packed *p, PyObject *X, int relu) {
    const tn_tensor *x = tn_tensor_of(X);
    if (x->dtype != TN_DTYPE_F32) return not_float(x);
    if (x->ndim == 0)
        return PyErr_Format(PyExc_IndexError, "dimension specified as -1 but tensor has no dimensions");
    int64_t K = x->sizes[x->ndim - 1], M = 1;
    if (K != p->K) return tn_fq_check_failed("input.size(input.dim() - 1) == packed_weight_fp16.numRows()");
    if (x->ndim < 2) return tn_fq_check_failed("input.dim() >= 2");
    for (int i = 0; i < x->ndim - 1; i++) M *= x->sizes[i];
    PyObject *xc = tn_as_dtype(X, TN_DTYPE_F32, true);
    if (!xc) return NULL;
    int64_t sizes[TN_MAX_DIMS];
    memcpy(sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    sizes[x->ndim - 1] = p->N;
    PyObject *y = tn_tensor_new_empty(x->ndim, sizes, TN_DTYPE_F32, TN_DEVICE_CPU);
    if (!y) { Py_DECREF(xc); return NULL; }
    const float *xd = (const float *)tn_data(tn_tensor_of(xc)), *wd = (const float *)tn_data(tn_tensor_of(p->w));
    float *yd = (float *)tn_data(tn_tensor_of(y));
    Py_BEGIN_ALLOW_THREADS
    tn_qdyn_linear_fp16(M, p->N, K, xd, wd, p->wp16, yd);
    Py_END_ALLOW_THREADS
    Py_DECREF(xc);
    PyObject *r = y;
    if (p->bias) {   /* output.add_(bias) */
        if (tn_tensor_of(p->bias)->ndim != 1) { Py_DECREF(y); return tn_fq_check_failed("bias_->dim() == 1"); }
        r = tn_at_add__Tensor(y, p->bias, TN_SI(1));
        Py_DECREF(y);
    }
    if (r && relu) {
        PyObject *t = tn_at_relu_(r);
        Py_DECREF(r);
        r = t;
    }
    return r;
}

/* quantized::linear: upstream's PackedLinearWeight::apply (fbgemm): quint8 input, quint8 output
 * of scale oscale and zero point ozp */
static PyObject *apply_static(packed *p, PyObject *X, double oscale, int64_t ozp, int relu) {
    if (p->kind == PK_FP16) return tn_not_implemented("quantized::linear on float16 packed weights");
    const tn_tensor *x = tn_tensor_of(X);
    tn_qparams *Q = tn_quant_of(X);
    if (x->dtype != TN_DTYPE_QU8)
        return PyErr_Format(PyExc_RuntimeError, "Expected input data type QUInt8 but got %s", tn_dtype_cpp_name(x->dtype));
    if (x->ndim < 2) return tn_fq_error("The dimension of input tensor should be larger than or equal to 2");
    int64_t K = x->sizes[x->ndim - 1], M = 1;
    if (K != p->K)
        return PyErr_Format(PyExc_RuntimeError, "The number of rows in the packB should be equal to K: %lld", (long long)K);
    if (Q->scheme != 0) return tn_at_q_scale(X);   /* upstream's q_scale() error */
    if (p->bias && tn_tensor_of(p->bias)->dtype != TN_DTYPE_F32) return not_float(tn_tensor_of(p->bias));
    for (int i = 0; i < x->ndim - 1; i++) M *= x->sizes[i];
    int64_t N = p->N, sizes[TN_MAX_DIMS];
    memcpy(sizes, x->sizes, sizeof(int64_t) * (size_t)x->ndim);
    sizes[x->ndim - 1] = N;
    PyObject *ints = tn_at_int_repr(X);
    PyObject *xc = ints ? tn_as_dtype(ints, TN_DTYPE_U8, true) : NULL;
    Py_XDECREF(ints);
    PyObject *y = xc ? tn_tensor_new_empty(x->ndim, sizes, TN_DTYPE_U8, TN_DEVICE_CPU) : NULL;
    int64_t ldq = tn_qdyn_row_stride(K);
    size_t nn = (size_t)(N > 0 ? N : 1);
    void *scratch = y ? malloc((size_t)(M * ldq) + (size_t)M * sizeof(int32_t) + 2 * nn * sizeof(float) + 1) : NULL;
    if (!scratch) {
        if (y) PyErr_NoMemory();
        Py_XDECREF(xc);
        Py_XDECREF(y);
        return NULL;
    }
    float a_scale = (float)Q->scale, *atws = (float *)scratch, *mult = atws + nn;
    for (int64_t j = 0; j < N; j++) {
        atws[j] = a_scale * p->w_scale[j];
        mult[j] = atws[j] / (float)oscale;
    }
    tn_qdyn_args a = {
        .M = M, .N = N, .K = K, .a_scale = a_scale, .a_zp = (int32_t)Q->zero_point,
        .w = (const int8_t *)tn_data(tn_tensor_of(p->w)), .wp = p->wp, .col_off = p->col_off, .w_scale = p->w_scale,
        .w_zp = p->w_zp, .bias = p->bias ? (const float *)tn_data(tn_tensor_of(p->bias)) : NULL,
        .row_off = (int32_t *)(mult + nn), .qx = (uint8_t *)(mult + nn) + (size_t)M * sizeof(int32_t), .ldq = ldq,
        .relu = relu, .xq = (const uint8_t *)tn_data(tn_tensor_of(xc)), .yq = (uint8_t *)tn_data(tn_tensor_of(y)),
        .atws = atws, .mult = mult, .rcp = (float)(1.0 / (double)atws[0]), .per_channel = p->per_channel,
        .out_zp = (int32_t)ozp,
    };
    Py_BEGIN_ALLOW_THREADS
    tn_qdyn_linear(&a);
    Py_END_ALLOW_THREADS
    free(scratch);
    Py_DECREF(xc);
    PyObject *r = tn_at__make_per_tensor_quantized_tensor(y, oscale, ozp);
    Py_DECREF(y);
    return r;
}

static PyObject *apply(packed *p, PyObject *X, bool reduce_range, int relu) {
    return p->kind == PK_FP16 ? apply_fp16(p, X, relu) : apply_int8(p, X, reduce_range, relu);
}

/* ---- the operators ---- */

static PyObject *opt_tensor(const tn_value *v) { return v->tag == TN_V_TENSOR ? v->u.obj : NULL; }

/* quantized::linear_prepack(Tensor W, Tensor? B=None) -> LinearPackedParamsBase (QuantizedCPU) */
static PyObject *op_linear_prepack(tn_value *a) {
    if (!tn_quant_of(a[0].u.obj)) return tn_q_backend_error("quantized::linear_prepack", "CPU");
    PyObject *p = packed_alloc();
    if (p && pack_int8((packed *)p, a[0].u.obj, opt_tensor(&a[1])) < 0) Py_CLEAR(p);
    return p;
}

/* quantized::linear_prepack_fp16(Tensor W, Tensor? B=None) (CPU) */
static PyObject *op_linear_prepack_fp16(tn_value *a) {
    if (tn_quant_of(a[0].u.obj)) return tn_q_backend_error("quantized::linear_prepack_fp16", "QuantizedCPU");
    PyObject *p = packed_alloc();
    if (p && pack_fp16((packed *)p, a[0].u.obj, opt_tensor(&a[1])) < 0) Py_CLEAR(p);
    return p;
}

/* quantized::linear_unpack / linear_unpack_fp16(LinearPackedParamsBase) -> (Tensor, Tensor?):
 * upstream's unpack is the object's own, whichever name is called. A tensor or None matches
 * upstream's .legacy overload first, which refuses (upstream's errors, by type). */
static PyObject *unpack_op(tn_value *a, const char *op) {
    PyObject *o = a[0].tag == TN_V_NONE ? Py_None : a[0].u.obj;
    if (o == Py_None)
        return PyErr_Format(PyExc_NotImplementedError, "There were no tensor arguments to this function (e.g., you "
                            "passed an empty list of Tensors), but no fallback function is registered for schema "
                            "%s.legacy.", op);
    if (tn_py_is_tensor(o)) {
        if (tn_quant_of(o)) return PyErr_Format(PyExc_NotImplementedError, "Could not run '%s.legacy' with arguments "
                                                "from the 'QuantizedCPU' backend.", op);
        return tn_fq_error("quantized.linear_unpack(Tensor) is unsupported! Please upgrade your model to use the "
                           "newer quantized.linear_unpack(LinearPackedParamsBase) overload");
    }
    packed *p = packed_arg(&a[0], op);
    return p ? unpack(p) : NULL;
}
static PyObject *op_linear_unpack(tn_value *a) { return unpack_op(a, "quantized::linear_unpack"); }
static PyObject *op_linear_unpack_fp16(tn_value *a) { return unpack_op(a, "quantized::linear_unpack_fp16"); }

/* quantized::linear_dynamic(Tensor X, LinearPackedParamsBase W_prepack, bool reduce_range=False)
 * (CPU); the object's own apply_dynamic: float16 weights ignore reduce_range */
static PyObject *dynamic(tn_value *a, const char *op, bool has_rr, int relu) {
    packed *p = packed_arg(&a[1], op);
    if (!p) return NULL;
    if (tn_quant_of(a[0].u.obj)) return tn_q_backend_error(op, "QuantizedCPU");
    return apply(p, a[0].u.obj, has_rr && a[2].u.i != 0, relu);
}
static PyObject *op_linear_dynamic(tn_value *a) { return dynamic(a, "quantized::linear_dynamic", true, 0); }
static PyObject *op_linear_relu_dynamic(tn_value *a) { return dynamic(a, "quantized::linear_relu_dynamic", true, 1); }
static PyObject *op_linear_dynamic_fp16(tn_value *a) { return dynamic(a, "quantized::linear_dynamic_fp16", false, 0); }
static PyObject *op_linear_relu_dynamic_fp16(tn_value *a) { return dynamic(a, "quantized::linear_relu_dynamic_fp16", false, 1); }

/* quantized::linear(Tensor X, LinearPackedParamsBase W_prepack, float Y_scale_i, int
 * Y_zero_point_i) (QuantizedCPU), and linear_relu */
static PyObject *static_op(tn_value *a, const char *op, int relu) {
    if (!tn_quant_of(a[0].u.obj)) return tn_q_backend_error(op, "CPU");
    packed *p = packed_arg(&a[1], op);
    return p ? apply_static(p, a[0].u.obj, a[2].u.f, a[3].u.i, relu) : NULL;
}
static PyObject *op_linear(tn_value *a) { return static_op(a, "quantized::linear", 0); }
static PyObject *op_linear_relu(tn_value *a) { return static_op(a, "quantized::linear_relu", 1); }

/* quantized::linear_dynamic_fp16_unpacked_weight(Tensor X, Tensor weight, Tensor? bias) */
static PyObject *op_linear_dynamic_fp16_unpacked_weight(tn_value *a) {
    if (tn_quant_of(a[0].u.obj) || tn_quant_of(a[1].u.obj))
        return tn_q_backend_error("quantized::linear_dynamic_fp16_unpacked_weight", "QuantizedCPU");
    if (tn_tensor_of(a[1].u.obj)->ndim != 2) return tn_fq_error("The dimension of weight tensor should be equal to 2");
    PyObject *o = packed_alloc();
    if (!o || pack_fp16((packed *)o, a[1].u.obj, opt_tensor(&a[2])) < 0) { Py_XDECREF(o); return NULL; }
    PyObject *r = apply_fp16((packed *)o, a[0].u.obj, 0);
    Py_DECREF(o);
    return r;
}

static const struct { const char *name; tn_op_fn fn; } qlinear_ops[] = {
    {"quantized::linear_prepack", op_linear_prepack},
    {"_quantized::linear_prepack", op_linear_prepack},
    {"quantized::linear_prepack_fp16", op_linear_prepack_fp16},
    {"_quantized::linear_prepack_fp16", op_linear_prepack_fp16},
    {"quantized::linear_unpack", op_linear_unpack},
    {"quantized::linear_unpack_fp16", op_linear_unpack_fp16},
    {"quantized::linear_dynamic", op_linear_dynamic},
    {"_quantized::linear_dynamic", op_linear_dynamic},
    {"quantized::linear_relu_dynamic", op_linear_relu_dynamic},
    {"quantized::linear_dynamic_fp16", op_linear_dynamic_fp16},
    {"quantized::linear_relu_dynamic_fp16", op_linear_relu_dynamic_fp16},
    {"quantized::linear_dynamic_fp16_unpacked_weight", op_linear_dynamic_fp16_unpacked_weight},
    {"quantized::linear", op_linear},
    {"_quantized::linear", op_linear},
    {"quantized::linear_relu", op_linear_relu},
};

tn_op_fn tn_qlinear_op_fn(const char *name, const char *overload) {
    tn_op_fn f = tn_qconv_op_fn(name, overload);
    if (f || (f = tn_qops_op_fn(name, overload))) return f;   /* ops/qconv.c, ops/qops.c */
    if (overload[0]) return NULL;   /* the .legacy overloads stay refused */
    for (size_t i = 0; i < sizeof qlinear_ops / sizeof *qlinear_ops; i++)
        if (!strcmp(qlinear_ops[i].name, name)) return qlinear_ops[i].fn;
    return NULL;
}

/* ---- torch.ScriptObject ---- */

static packed *filled(PyObject *self) {
    packed *p = (packed *)self;
    if (p->kind != PK_EMPTY) return p;
    PyErr_SetString(PyExc_RuntimeError, "torchnative: this torch.ScriptObject holds no packed parameters "
                    "(made by ScriptObject.__new__ and never given a state)");
    return NULL;
}

/* __getstate__(): ((weight, bias), qualified class name), upstream's */
static PyObject *so_getstate(PyObject *self, PyObject *unused) {
    packed *p = filled(self);
    if (p && p->kind == PK_CONV) {
        PyObject *st = tn_qconv_getstate(p->conv);
        return st ? Py_BuildValue("(Ns)", st, tn_qconv_class(p->conv)) : NULL;
    }
    PyObject *wb = p ? unpack(p) : NULL;
    if (!wb) return NULL;
    PyObject *r = Py_BuildValue("(Ns)", wb, CLASS_NAME);
    return r;
}

/* __setstate__(state): the class's setstate, upstream's for the x86 engine: a qint8 weight
 * packs as int8, a float one as float16 */
static PyObject *so_setstate(PyObject *self, PyObject *state) {
    PyObject *wb = NULL, *name = NULL;
    if (PyTuple_Check(state) && PyTuple_Size(state) == 2 && PyUnicode_Check(name = PyTuple_GetItem(state, 1)) &&
        (PyUnicode_CompareWithASCIIString(name, TN_QCONV_CLASS) == 0 ||
         PyUnicode_CompareWithASCIIString(name, TN_QCONV3D_CLASS) == 0)) {
        tn_qconv_w *c = tn_qconv_from_state(PyTuple_GetItem(state, 0));
        if (!c) return NULL;
        packed_clear((packed *)self);
        ((packed *)self)->conv = c;
        ((packed *)self)->kind = PK_CONV;
        Py_RETURN_NONE;
    }
    if (!PyTuple_Check(state) || PyTuple_Size(state) != 2 || !PyTuple_Check(wb = PyTuple_GetItem(state, 0)) ||
        PyTuple_Size(wb) != 2 || !PyUnicode_Check(name = PyTuple_GetItem(state, 1))) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: ScriptObject.__setstate__ expects ((weight, bias), class name)");
        return NULL;
    }
    const char *cn = PyUnicode_AsUTF8AndSize(name, NULL);
    if (!cn) return NULL;
    if (strcmp(cn, CLASS_NAME) != 0) {
        char what[300];
        snprintf(what, sizeof what, "torch.ScriptObject of class %s", cn);
        return tn_not_implemented(what);
    }
    PyObject *W = PyTuple_GetItem(wb, 0), *B = PyTuple_GetItem(wb, 1);
    if (!tn_py_is_tensor(W) || (B != Py_None && !tn_py_is_tensor(B))) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: ScriptObject.__setstate__ expects (Tensor, Tensor?) parameters");
        return NULL;
    }
    packed *p = (packed *)self;
    packed_clear(p);
    tn_dtype dt = tn_tensor_of(W)->dtype;
    int rc;
    if (dt == TN_DTYPE_QI8 && tn_quant_of(W)) rc = pack_int8(p, W, B == Py_None ? NULL : B);
    else if (dt == TN_DTYPE_F32) rc = pack_fp16(p, W, B == Py_None ? NULL : B);
    else {
        PyErr_Format(PyExc_RuntimeError, "Unsupported data type%s in serialized LinearPackedParams object!", tn_dtype_cpp_name(dt));
        rc = -1;
    }
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

/* a new object with the state `state` */
static PyObject *with_state(PyObject *state) {
    PyObject *o = packed_alloc();
    PyObject *r = o ? so_setstate(o, state) : NULL;
    if (!r) { Py_XDECREF(o); return NULL; }
    Py_DECREF(r);
    return o;
}

/* __reduce_ex__(protocol): (copyreg.__newobj__, (torch.ScriptObject,), state, None, None) */
static PyObject *so_reduce_ex(PyObject *self, PyObject *proto) {
    PyObject *state = so_getstate(self, NULL);
    if (!state) return NULL;
    PyObject *copyreg = PyImport_ImportModule("copyreg");
    PyObject *newobj = copyreg ? PyObject_GetAttrString(copyreg, "__newobj__") : NULL;
    Py_XDECREF(copyreg);
    if (!newobj) { Py_DECREF(state); return NULL; }
    return Py_BuildValue("(N(O)NOO)", newobj, (PyObject *)packed_type, state, Py_None, Py_None);
}

/* __copy__ / __deepcopy__(memo): a new object over the same state (upstream's deep copy of a
 * custom-class object shares its tensors too, measured: the copy's bias() is the original's) */
static PyObject *so_copy(PyObject *self, PyObject *unused) {
    PyObject *state = so_getstate(self, NULL);
    PyObject *o = state ? with_state(state) : NULL;
    Py_XDECREF(state);
    return o;
}

static PyObject *so_unpack(PyObject *self, PyObject *unused) {
    packed *p = filled(self);
    return p ? unpack(p) : NULL;
}

static PyObject *so_bias(PyObject *self, PyObject *unused) {
    packed *p = filled(self);
    if (p && p->kind == PK_CONV) return tn_qconv_method(p->conv, TN_QCONV_BIAS);
    return p ? Py_NewRef(p->bias ? p->bias : Py_None) : NULL;
}

/* the Conv2dPackedParamsBase methods (ops/qconv.c); on a Linear object, Python's AttributeError */
static PyObject *conv_method(PyObject *self, int which, const char *name) {
    packed *p = filled(self);
    if (!p) return NULL;
    if (p->kind != PK_CONV)
        return PyErr_Format(PyExc_AttributeError, "'torch.ScriptObject' object has no attribute '%s'", name);
    return tn_qconv_method(p->conv, which);
}
static PyObject *so_weight(PyObject *self, PyObject *unused) { return conv_method(self, TN_QCONV_WEIGHT, "weight"); }
static PyObject *so_stride(PyObject *self, PyObject *unused) { return conv_method(self, TN_QCONV_STRIDE, "stride"); }
static PyObject *so_padding(PyObject *self, PyObject *unused) { return conv_method(self, TN_QCONV_PADDING, "padding"); }
static PyObject *so_output_padding(PyObject *self, PyObject *unused) {
    return conv_method(self, TN_QCONV_OUTPUT_PADDING, "output_padding");
}
static PyObject *so_dilation(PyObject *self, PyObject *unused) { return conv_method(self, TN_QCONV_DILATION, "dilation"); }
static PyObject *so_groups(PyObject *self, PyObject *unused) { return conv_method(self, TN_QCONV_GROUPS, "groups"); }
static PyObject *so_transpose(PyObject *self, PyObject *unused) { return conv_method(self, TN_QCONV_TRANSPOSE, "transpose"); }

static PyObject *so_method_names(PyObject *self, PyObject *unused) {
    if (((packed *)self)->kind == PK_CONV)
        return Py_BuildValue("[sssssssssss]", "__getstate__", "__setstate__", "weight", "bias", "unpack", "stride",
                             "padding", "output_padding", "dilation", "groups", "transpose");
    return Py_BuildValue("[ssss]", "__getstate__", "__setstate__", "bias", "unpack");
}

static PyObject *so_has_method(PyObject *self, PyObject *name) {
    PyObject *names = so_method_names(self, NULL);
    int r = names ? PySequence_Contains(names, name) : -1;
    Py_XDECREF(names);
    return r < 0 ? NULL : PyBool_FromLong(r);
}

static PyObject *so_properties(PyObject *self, PyObject *unused) { return PyList_New(0); }

/* the TorchScript side of the object (its ClassType, methods as callables) is not here */
static PyObject *so_refuse(PyObject *self, PyObject *args) { return tn_not_implemented("torch._C.ScriptObject._type / _get_method"); }

static PyObject *so_repr(PyObject *self) { return PyUnicode_FromFormat("<torch.ScriptObject object at %p>", self); }
static PyObject *so_str(PyObject *self) {
    packed *p = (packed *)self;
    return PyUnicode_FromFormat("ScriptObject <%s>", p->kind == PK_CONV ? tn_qconv_class(p->conv) : CLASS_NAME);
}

static int so_init(PyObject *self, PyObject *args, PyObject *kw) {
    PyErr_SetString(PyExc_TypeError, "torch._C.ScriptObject: No constructor defined!");
    return -1;
}

static void so_dealloc(PyObject *self) {
    packed_clear((packed *)self);
    PyTypeObject *tp = Py_TYPE(self);
    ((freefunc)PyType_GetSlot(tp, Py_tp_free))(self);
    Py_DECREF(tp);
}

static PyMethodDef so_methods[] = {
    {"__getstate__", so_getstate, METH_NOARGS, NULL},
    {"__setstate__", so_setstate, METH_O, NULL},
    {"__reduce_ex__", so_reduce_ex, METH_O, NULL},
    {"__copy__", so_copy, METH_NOARGS, NULL},
    {"__deepcopy__", so_copy, METH_O, NULL},
    {"unpack", so_unpack, METH_NOARGS, NULL},
    {"bias", so_bias, METH_NOARGS, NULL},
    {"weight", so_weight, METH_NOARGS, NULL},
    {"stride", so_stride, METH_NOARGS, NULL},
    {"padding", so_padding, METH_NOARGS, NULL},
    {"output_padding", so_output_padding, METH_NOARGS, NULL},
    {"dilation", so_dilation, METH_NOARGS, NULL},
    {"groups", so_groups, METH_NOARGS, NULL},
    {"transpose", so_transpose, METH_NOARGS, NULL},
    {"_method_names", so_method_names, METH_NOARGS, NULL},
    {"_has_method", so_has_method, METH_O, NULL},
    {"_properties", so_properties, METH_NOARGS, NULL},
    {"_type", so_refuse, METH_VARARGS, NULL},
    {"_get_method", so_refuse, METH_VARARGS, NULL},
    {NULL, NULL, 0, NULL},
};

static PyType_Slot so_slots[] = {
    {Py_tp_dealloc, (void *)so_dealloc},
    {Py_tp_repr, (void *)so_repr},
    {Py_tp_str, (void *)so_str},
    {Py_tp_init, (void *)so_init},
    {Py_tp_new, (void *)PyType_GenericNew},
    {Py_tp_methods, so_methods},
    {0, NULL},
};
static PyType_Spec so_spec = {"torch.ScriptObject", sizeof(packed), 0, Py_TPFLAGS_DEFAULT, so_slots};

PyObject *tn_qpacked_new_conv(tn_qconv_w *c) {
    packed *p = (packed *)packed_alloc();
    if (!p) { tn_qconv_free(c); return NULL; }
    p->conv = c;
    p->kind = PK_CONV;
    return (PyObject *)p;
}

tn_qconv_w *tn_qpacked_conv(PyObject *o) {
    return PyObject_TypeCheck(o, packed_type) && ((packed *)o)->kind == PK_CONV ? ((packed *)o)->conv : NULL;
}

int tn_qlinear_init(PyObject *m) {
    if (!(packed_type = (PyTypeObject *)PyType_FromSpec(&so_spec))) return -1;
    return PyModule_AddObjectRef(m, "ScriptObject", (PyObject *)packed_type);
}
