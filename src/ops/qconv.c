/* qconv.c — static quantized convolution (quantized::conv2d_prepack / conv2d / conv2d_relu /
 * conv2d_unpack and the getters, conv1d as upstream's: a conv2d over an unsqueezed height; the
 * transposed conv_transpose2d / conv_transpose1d on the same packed object; conv3d and
 * conv_transpose3d on a 3-d one, Conv3dPackedParamsBase; the dynamic conv*_dynamic ops, float in and
 * out, over the same), as upstream's x86 engine runs it (docs/quant_tensors.md "Static
 * convolution", "Transposed convolution", "Convolution 3-d", "Dynamic convolution").
 *
 * Upstream's x86 engine chooses its kernel per packed weight (qconv_prepack.cpp,
 * should_use_onednn_quant): oneDNN when the host has AVX-512 VNNI, groups <= 100 and the weight is
 * symmetric (zero points all 0), fbgemm otherwise (and always under the fbgemm engine). The two
 * requantize differently (kernels/qconv.h); this file makes the same choice at prepack, so the
 * output and the error messages are those of the kernel upstream would run on this host.
 *
 * The packed parameters are upstream's Conv2dPackedParamsBase inside the torch.ScriptObject type of
 * ops/qlinear.c; their state is upstream's version-2 serialization, so state_dicts and pickles of
 * the object load on either torch. */
#include "ops/qconv.h"

#include "ops/common.h"
#include "ops/fakequant.h"
#include "ops/qlinear.h"
#include "ops/qtensor.h"
#include "kernels/fakequant.h"
#include "kernels/qconv.h"
#include "kernels/qlinear.h"
#include "tn_aten_gen.h"

#include <stdlib.h>
#include <string.h>

long tn_qengine_current(void);   /* python/cpu_info.c: 1 FBGEMM, 4 X86 */

struct tn_qconv_w {
    PyObject *w;               /* the quantized weight as given (contiguous) */
    PyObject *wi;              /* its integers, int8, OC x C/G x KH x KW contiguous */
    int16_t *w16;              /* the kernel's: w - w_zp[oc], OC x KH x KW x C/G */
    void *wp;                  /* the same packed for the fast variant (tn_qconv_pack), or NULL */
    PyObject *bias;            /* or NULL */
    int64_t OC, CG, KH, KW, groups;
    int64_t stride[2], padding[2], dilation[2];
    int per_channel, onednn;
    int transpose;             /* conv_transpose2d: the weight is IC x OC/G x KH x KW; w16 as above */
    int64_t output_padding[2], opd;   /* opd: the depth's output padding (3-d) */
    int dims;                  /* 2, or 3: conv3d (Conv3dPackedParamsBase), its depth below, w16 OC x KD x KH x KW x C/G */
    int64_t KD, sd, pd, dd;    /* 1, 1, 0, 1 in 2-d */
    int dw_fast;               /* fbgemm's depthwise fast path (kernels/qconv.h dw_pairs) */
    float *w_scale;            /* OC */
    int32_t *w_zp;             /* OC */
};

void tn_qconv_free(tn_qconv_w *c) {
    if (!c) return;
    Py_XDECREF(c->w);
    Py_XDECREF(c->wi);
    Py_XDECREF(c->bias);
    free(c->w_scale);
    free(c->w_zp);
    free(c->w16);
    free(c->wp);
    free(c);
}

/* oneDNN's refusal of a convolution it cannot describe (mismatched channels, groups, ...) */
static PyObject *onednn_error(void) {
    return tn_fq_error("could not create a primitive descriptor for the convolution forward propagation primitive. "
                       "Run workload with environment variable ONEDNN_VERBOSE=all to get additional diagnostic information.");
}

static bool avx512vnni(void) {
#if defined(__x86_64__)
    __builtin_cpu_init();
    return __builtin_cpu_supports("avx512vnni");
#else
    return false;
#endif
}

/* W (quantized, per tensor or per channel along axis 0) with a dimension of size 1 inserted at 2
 * (insert) or removed from 2: made from its integers, as the per-channel views are not here */
static PyObject *reshaped_at_2(PyObject *W, int insert) {
    tn_qparams *Q = tn_quant_of(W);
    PyObject *ints = tn_at_int_repr(W);
    PyObject *v = ints ? (insert ? tn_at_unsqueeze(ints, 2) : tn_at_squeeze_dim(ints, 2)) : NULL;
    Py_XDECREF(ints);
    if (!v) return NULL;
    PyObject *r = Q->scheme == 0 ? tn_at__make_per_tensor_quantized_tensor(v, Q->scale, Q->zero_point)
                                 : tn_at__make_per_channel_quantized_tensor(v, Q->scales, Q->zero_points, Q->axis);
    Py_DECREF(v);
    return r;
}

/* upstream's oneDNN path of a transposed conv reads each group's IC/G x OC/G block of kernels as if
 * transposed twice as (OC/G, IC/G) matrices (measured with one-hot weights: a square block is
 * unchanged, others permuted): the kernel of block element e = ci * og + j is the one given at h(h(e)) */
static int64_t onednn_t_src(int64_t e, int64_t cg, int64_t og) {
    for (int i = 0; i < 2; i++) e = (e % og) * cg + e / og;
    return e;
}

/* fbgemm's direct transposed convolution (takeDirectConvPath): its row offsets ignore the height
 * stride and the batch, its products sum in int16-saturating pairs: measured off, not reproduced */
static int fbgemm_directconv(const tn_qconv_w *c) {
    int ok = c->transpose && c->dims == 2 && !c->onednn && c->groups == 1 && (c->CG % 8) == 0 && (c->OC % 8) == 0 && c->KH == 2 &&
             c->KW <= 6;
    for (int i = 0; i < 2; i++)
        ok &= (c->stride[i] == 1 || c->stride[i] == 2) && c->dilation[i] == 1 && c->padding[i] == 0;
    return ok;
}

/* ---- packing: upstream's conv2d_prepack / conv_transpose2d_prepack (x86 engine; opad NULL: not
 * transposed) ---- */

static tn_qconv_w *prepack(int dims, PyObject *W, PyObject *B, const int64_t *stride, int ns, const int64_t *padding,
                           int np, const int64_t *dilation, int nd, int64_t groups, const int64_t *opad, int nop) {
    const tn_tensor *w = tn_tensor_of(W);
    tn_qparams *Q = tn_quant_of(W);
    int transpose = opad != NULL;
    if (ns != dims) {
        PyErr_Format(PyExc_RuntimeError, "stride should contain %d elements for %dD convolution.", dims, dims);
        return NULL;
    }
    if (np != dims) {
        tn_fq_error("Specify front/top/left padding only. end/bottom/right padding assumed to be equal to front/top/left");
        return NULL;
    }
    if (transpose && nop != dims) {
        tn_fq_error("quantized::conv_prepack: Specify top/left output padding only. bottom/right padding assumed to be "
                    "equal to top/left");
        return NULL;
    }
    if (nd != dims) {
        PyErr_Format(PyExc_RuntimeError, "dilation should contain %d elements for %dD convolution.", dims, dims);
        return NULL;
    }
    if (w->ndim != dims + 2) { PyErr_Format(PyExc_RuntimeError, "Weights are expected to have %d dimensions", dims + 2); return NULL; }
    if (transpose && Q->scheme != 0) { tn_fq_error("Per Channel Quantization is currently disabled for transposed conv"); return NULL; }
    for (int i = 0; i < dims; i++)
        if (stride[i] <= 0) { tn_fq_error("quantized::conv_prepack: stride should be positive."); return NULL; }
    if (transpose && (groups <= 0 || w->sizes[0] % groups != 0))
        return PyErr_Format(PyExc_RuntimeError, "groups = %lld does not divide number of input channels = %lld",
                            (long long)groups, (long long)w->sizes[0]), NULL;
    if (w->dtype != TN_DTYPE_QI8) { tn_not_implemented("quantized::conv2d_prepack of a weight that is not qint8"); return NULL; }
    if (Q->scheme != 0 && !(Q->scheme == 1 && Q->axis == 0)) {
        tn_not_implemented("quantized::conv2d_prepack of a weight of this qscheme (per tensor, or per channel along axis 0)");
        return NULL;
    }
    int64_t OC = transpose ? w->sizes[1] * groups : w->sizes[0];
    if (B) {
        const tn_tensor *b = tn_tensor_of(B);
        if (b->ndim != 1) { tn_fq_error("bias should be a vector (1D Tensor)"); return NULL; }
        if (b->sizes[0] != OC) { PyErr_Format(PyExc_RuntimeError, "bias should have K elements: %lld", (long long)OC); return NULL; }
    }
    tn_qconv_w *c = calloc(1, sizeof *c);
    if (!c) { PyErr_NoMemory(); return NULL; }
    size_t n = (size_t)(OC > 0 ? OC : 1);
    c->w_scale = malloc(n * sizeof(float));
    c->w_zp = malloc(n * sizeof(int32_t));
    if (!c->w_scale || !c->w_zp) { PyErr_NoMemory(); goto fail; }
    c->OC = OC;
    c->CG = transpose ? w->sizes[0] / groups : w->sizes[1];
    c->transpose = transpose;
    c->dims = dims;
    int d3 = dims == 3;   /* the depth leads each list; the 2-d fields hold height and width */
    if (transpose) {
        memcpy(c->output_padding, opad + d3, sizeof c->output_padding);
        c->opd = d3 ? opad[0] : 0;
    }
    c->KD = d3 ? w->sizes[2] : 1;
    c->sd = d3 ? stride[0] : 1;
    c->pd = d3 ? padding[0] : 0;
    c->dd = d3 ? dilation[0] : 1;
    c->KH = w->sizes[2 + d3];
    c->KW = w->sizes[3 + d3];
    c->groups = groups;
    memcpy(c->stride, stride + d3, sizeof c->stride);
    memcpy(c->padding, padding + d3, sizeof c->padding);
    memcpy(c->dilation, dilation + d3, sizeof c->dilation);
    c->per_channel = Q->scheme == 1;
    int symmetric = 1;
    if (!c->per_channel) {
        for (int64_t j = 0; j < OC; j++) { c->w_scale[j] = (float)Q->scale; c->w_zp[j] = (int32_t)Q->zero_point; }
    } else {
        PyObject *s = tn_as_dtype(Q->scales, TN_DTYPE_F64, true), *z = s ? tn_as_dtype(Q->zero_points, TN_DTYPE_I64, true) : NULL;
        if (!z) { Py_XDECREF(s); goto fail; }
        const double *sd = (const double *)tn_data(tn_tensor_of(s));
        const int64_t *zd = (const int64_t *)tn_data(tn_tensor_of(z));
        for (int64_t j = 0; j < OC; j++) { c->w_scale[j] = (float)sd[j]; c->w_zp[j] = (int32_t)zd[j]; }
        Py_DECREF(s);
        Py_DECREF(z);
    }
    for (int64_t j = 0; j < OC; j++) symmetric &= c->w_zp[j] == 0;
    c->onednn = tn_qengine_current() == 4 && avx512vnni() && groups <= 100 && symmetric &&
                (!transpose || (opad[0] == 0 && opad[1] == 0 && (!d3 || opad[2] == 0)));
    /* fbgemm's takeDepthWiseFastPath (measured: its int16 pair sums show on exactly these; in 3-d
     * the depth's kernel may differ from the square height x width one) */
    c->dw_fast = !c->onednn && !transpose && c->CG == 1 && groups % 8 == 0 && (OC == groups || OC == 2 * groups) && c->KH == c->KW;
    int64_t k3[3] = {c->KD, c->KH, c->KW}, s3[3] = {c->sd, c->stride[0], c->stride[1]};
    int64_t p3[3] = {c->pd, c->padding[0], c->padding[1]}, d3s[3] = {c->dd, c->dilation[0], c->dilation[1]};
    for (int i = 3 - dims; i < 3; i++)
        c->dw_fast &= (k3[i] == 3 || k3[i] == 5 || k3[i] == 7) && (s3[i] == 1 || s3[i] == 2) && d3s[i] == 1 &&
                      p3[i] == (k3[i] - 1) / 2;
    if (!(c->w = tn_is_contiguous(w) ? Py_NewRef(W) : tn_at_clone(W, tn_py.memory_format_contiguous))) goto fail;
    PyObject *ints = tn_at_int_repr(W);
    c->wi = ints ? tn_as_dtype(ints, TN_DTYPE_I8, true) : NULL;
    Py_XDECREF(ints);
    if (!c->wi) goto fail;
    int64_t kk = c->KD * c->KH * c->KW, per = kk * c->CG;
    if (!(c->w16 = malloc((size_t)(OC * per > 0 ? OC * per : 1) * sizeof(int16_t)))) { PyErr_NoMemory(); goto fail; }
    const int8_t *wd = (const int8_t *)tn_data(tn_tensor_of(c->wi));
    if (!transpose) {
        for (int64_t o = 0; o < OC; o++)
            for (int64_t ci = 0; ci < c->CG; ci++)
                for (int64_t t = 0; t < kk; t++)
                    c->w16[o * per + t * c->CG + ci] = (int16_t)(wd[o * per + ci * kk + t] - c->w_zp[o]);
    } else {   /* weight (g * CG + ci, j) -> output channel g * og + j, input channel ci of the group */
        int64_t og = OC / groups;
        for (int64_t o = 0; o < OC; o++)
            for (int64_t ci = 0; ci < c->CG; ci++) {
                int64_t g = o / og, e = ci * og + o % og, src = c->onednn ? onednn_t_src(e, c->CG, og) : e;
                const int8_t *wk = wd + ((g * c->CG + src / og) * og + src % og) * kk;
                for (int64_t t = 0; t < kk; t++) c->w16[o * per + t * c->CG + ci] = (int16_t)(wk[t] - c->w_zp[o]);
            }
    }
    /* the fast variants take the forward 2-d convolution's weights (the rest runs the reference) */
    if (!transpose && dims == 2) c->wp = tn_qconv_pack(OC, groups, c->KH, c->KW, c->CG, c->w16, c->w_zp, c->dw_fast);
    if (B && !(c->bias = tn_is_contiguous(tn_tensor_of(B)) ? Py_NewRef(B) : tn_at_clone(B, tn_py.memory_format_contiguous))) goto fail;
    return c;
fail:
    tn_qconv_free(c);
    return NULL;
}

/* ---- the object's surface ---- */

PyObject *tn_qconv_unpack(tn_qconv_w *c) {
    /* upstream's unpack gives a new weight each call; oneDNN keeps the weight as given, fbgemm
     * rebuilds it from float scales (as quantized::linear's) */
    PyObject *w;
    w = c->onednn ? tn_at_clone(c->w, NULL) : tn_q_weight(c->wi, c->per_channel, c->OC, c->w_scale, c->w_zp);
    if (!w) return NULL;
    if (!c->onednn && !c->transpose) {   /* fbgemm's unpacked weight is channels last (measured) */
        PyObject *cl = tn_at_clone(w, c->dims == 3 ? tn_py.memory_format_channels_last_3d : tn_py.memory_format_channels_last);
        Py_DECREF(w);
        if (!(w = cl)) return NULL;
    } else if (!c->onednn) {   /* transposed: (IC, OC/G, (KD,) KH, KW) over OC/G x (KD x) KH x KW x IC memory (measured) */
        PyObject *p = c->dims == 3 ? tn_at_permute(w, TN_IS(1, 2, 3, 4, 0)) : tn_at_permute(w, TN_IS(1, 2, 3, 0));
        PyObject *cc = p ? tn_at_clone(p, tn_py.memory_format_contiguous) : NULL;
        Py_XDECREF(p);
        Py_DECREF(w);
        w = !cc ? NULL : c->dims == 3 ? tn_at_permute(cc, TN_IS(4, 0, 1, 2, 3)) : tn_at_permute(cc, TN_IS(3, 0, 1, 2));
        Py_XDECREF(cc);
        if (!w) return NULL;
    }
    return Py_BuildValue("(NO)", w, c->bias ? c->bias : Py_None);
}

/* a list per spatial dimension: the depth's d first in 3-d */
static PyObject *spatial(const tn_qconv_w *c, const int64_t *v, int64_t d) {
    if (c->dims == 3) return Py_BuildValue("[LLL]", (long long)d, (long long)v[0], (long long)v[1]);
    return Py_BuildValue("[LL]", (long long)v[0], (long long)v[1]);
}

PyObject *tn_qconv_method(tn_qconv_w *c, int which) {
    switch (which) {
    case TN_QCONV_WEIGHT: {
        PyObject *wb = tn_qconv_unpack(c);
        PyObject *w = wb ? Py_NewRef(PyTuple_GetItem(wb, 0)) : NULL;
        Py_XDECREF(wb);
        return w;
    }
    case TN_QCONV_BIAS: return Py_NewRef(c->bias ? c->bias : Py_None);
    case TN_QCONV_STRIDE: return spatial(c, c->stride, c->sd);
    case TN_QCONV_PADDING: return spatial(c, c->padding, c->pd);
    case TN_QCONV_OUTPUT_PADDING: return spatial(c, c->output_padding, c->opd);
    case TN_QCONV_DILATION: return spatial(c, c->dilation, c->dd);
    case TN_QCONV_GROUPS: return PyLong_FromLongLong(c->groups);
    default: return PyBool_FromLong(c->transpose);   /* TN_QCONV_TRANSPOSE */
    }
}

const char *tn_qconv_class(const tn_qconv_w *c) { return c->dims == 3 ? TN_QCONV3D_CLASS : TN_QCONV_CLASS; }

/* ('2', [config, weight], [bias]); config int16: [dims, stride, padding, dilation, output_padding,
 * groups, transpose], each list of dims values (the depth's first in 3-d) */
PyObject *tn_qconv_getstate(tn_qconv_w *c) {
    int64_t n = 0, v[15];
    v[n++] = c->dims;
    const int64_t *lists[4] = {c->stride, c->padding, c->dilation, c->output_padding}, dep[4] = {c->sd, c->pd, c->dd, c->opd};
    for (int l = 0; l < 4; l++) {
        if (c->dims == 3) v[n++] = dep[l];
        v[n++] = lists[l][0];
        v[n++] = lists[l][1];
    }
    v[n++] = c->groups;
    v[n++] = c->transpose;
    PyObject *cfg = tn_tensor_new_empty(1, &n, TN_DTYPE_I16, TN_DEVICE_CPU);
    if (!cfg) return NULL;
    int16_t *d = (int16_t *)tn_data(tn_tensor_of(cfg));
    for (int64_t i = 0; i < n; i++) d[i] = (int16_t)v[i];
    PyObject *wb = tn_qconv_unpack(c);
    if (!wb) { Py_DECREF(cfg); return NULL; }
    PyObject *r = Py_BuildValue("(s[NO][O])", "2", cfg, PyTuple_GetItem(wb, 0), PyTuple_GetItem(wb, 1));
    Py_DECREF(wb);
    return r;
}

tn_qconv_w *tn_qconv_from_state(PyObject *st) {
    PyObject *ver, *ts, *opt;
    if (!PyTuple_Check(st) || PyTuple_Size(st) != 3 || !PyUnicode_Check(ver = PyTuple_GetItem(st, 0)) ||
        !PyList_Check(ts = PyTuple_GetItem(st, 1)) || !PyList_Check(opt = PyTuple_GetItem(st, 2))) {
        tn_not_implemented("Conv2dPackedParamsBase.__setstate__ of a state other than version '2'");
        return NULL;
    }
    if (PyUnicode_CompareWithASCIIString(ver, "2") != 0 || PyList_Size(ts) != 2 || PyList_Size(opt) != 1) {
        tn_not_implemented("Conv2dPackedParamsBase.__setstate__ of a state other than version '2'");
        return NULL;
    }
    PyObject *cfg = PyList_GetItem(ts, 0), *W = PyList_GetItem(ts, 1), *B = PyList_GetItem(opt, 0);
    if (!tn_py_is_tensor(cfg) || !tn_py_is_tensor(W) || !tn_quant_of(W) || (B != Py_None && !tn_py_is_tensor(B))) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: Conv2dPackedParamsBase.__setstate__ expects ('2', [Tensor, "
                        "Tensor], [Tensor?])");
        return NULL;
    }
    PyObject *ci = tn_as_dtype(cfg, TN_DTYPE_I64, true);
    if (!ci) return NULL;
    const tn_tensor *ct = tn_tensor_of(ci);
    const int64_t *v = (const int64_t *)tn_data(ct);
    tn_qconv_w *c = NULL;
    int k = ct->ndim == 1 && ct->sizes[0] > 0 ? (int)v[0] : 0;   /* 2 or 3 spatial dimensions */
    if (!((k == 2 && ct->sizes[0] == 11) || (k == 3 && ct->sizes[0] == 15))) {
        tn_not_implemented("ConvNdPackedParamsBase.__setstate__ of a configuration other than 2-d or 3-d");
    } else {
        c = prepack(k, W, B == Py_None ? NULL : B, v + 1, k, v + 1 + k, k, v + 1 + 2 * k, k, v[1 + 4 * k],
                    v[2 + 4 * k] ? v + 1 + 3 * k : NULL, k);
    }
    Py_DECREF(ci);
    return c;
}

/* ---- applying: upstream's apply (quint8 in, quint8 out of scale oscale, zero point ozp) ---- */

/* fbgemm's refusal of an input whose channels are not the weight's (both directions) */
static PyObject *fbgemm_channels_error(const tn_qconv_w *c, const tn_tensor *x) {
    if (c->dims == 3)
        return PyErr_Format(PyExc_RuntimeError, "[QConv3D] Given groups=%lld, weight of size %lld, %lld, %lld, %lld, %lld, "
                            "expected input (NCDHW) %lld, %lld, %lld, %lld, %lld to have %lld channels, but got %lld "
                            "channels instead", (long long)c->groups, (long long)c->OC, (long long)c->KD, (long long)c->KH,
                            (long long)c->KW, (long long)c->CG, (long long)x->sizes[0], (long long)x->sizes[1],
                            (long long)x->sizes[2], (long long)x->sizes[3], (long long)x->sizes[4],
                            (long long)(c->CG * c->groups), (long long)x->sizes[1]);
    return PyErr_Format(PyExc_RuntimeError, "[QConv2D] Given groups=%lld, weight of size %lld, %lld, %lld, %lld, expected "
                        "input (NCHW) %lld, %lld, %lld, %lld to have %lld channels, but got %lld channels instead",
                        (long long)c->groups, (long long)c->OC, (long long)c->KH, (long long)c->KW, (long long)c->CG,
                        (long long)x->sizes[0], (long long)x->sizes[1], (long long)x->sizes[2], (long long)x->sizes[3],
                        (long long)(c->CG * c->groups), (long long)x->sizes[1]);
}

static PyObject *run_kernel(tn_qconv_w *c, PyObject *X, int64_t OD, int64_t OH, int64_t OW, double oscale, int64_t ozp,
                            int relu);
static PyObject *apply_t(tn_qconv_w *c, PyObject *X, double oscale, int64_t ozp, int relu);

static PyObject *apply(tn_qconv_w *c, PyObject *X, double oscale, int64_t ozp, int relu) {
    if (c->transpose) return apply_t(c, X, oscale, ozp, relu);
    const tn_tensor *x = tn_tensor_of(X);
    tn_qparams *Q = tn_quant_of(X);
    int k = c->dims;
    if (c->onednn) {
        if (x->dtype != TN_DTYPE_QU8)
            return PyErr_Format(PyExc_RuntimeError, "quantized::conv%dd (ONEDNN): data type of input should be QUint8.", k);
        if (x->ndim != k + 2)
            return PyErr_Format(PyExc_RuntimeError, "quantized::conv%dd%dd(): Expected activation tensor to have %d "
                                "dimensions, got %d", k, k, k + 2, x->ndim);
    } else {
        if (x->dtype != TN_DTYPE_QU8)
            return PyErr_Format(PyExc_RuntimeError, "quantized::conv(FBGEMM): Expected activation data type QUInt8 but "
                                "got %s", tn_dtype_cpp_name(x->dtype));
        if (x->ndim != k + 2)
            return PyErr_Format(PyExc_RuntimeError, "quantized::conv%dd(): Expected activation tensor to have %d "
                                "dimensions, got %d", k, k + 2, x->ndim);
    }
    if (Q->scheme != 0) return tn_at_q_scale(X);   /* upstream's q_scale() check failure */
    int64_t C = x->sizes[1], G = c->groups;
    /* the spatial dimensions, depth (1 in 2-d), height, width */
    int64_t in[3] = {k == 3 ? x->sizes[2] : 1, x->sizes[k], x->sizes[k + 1]}, kn[3] = {c->KD, c->KH, c->KW};
    int64_t st[3] = {c->sd, c->stride[0], c->stride[1]}, pd[3] = {c->pd, c->padding[0], c->padding[1]};
    int64_t dl[3] = {c->dd, c->dilation[0], c->dilation[1]}, out[3], ext[3];
    for (int i = 0; i < 3; i++)
        if (pd[i] < 0 || dl[i] <= 0) {
            if (c->onednn) return onednn_error();
            return tn_not_implemented("quantized::conv2d / conv3d with a negative padding or a dilation below 1 (fbgemm)");
        }
    if (G <= 0 || c->OC % G != 0 || C != c->CG * G) {
        if (c->onednn) return onednn_error();
        if (G > 0 && c->OC % G != 0)
            return PyErr_Format(PyExc_RuntimeError, "groups = %lld does not divide number of output channels = %lld",
                                (long long)G, (long long)c->OC);
        return fbgemm_channels_error(c, x);
    }
    /* upstream's output size, C's truncating division included */
    int pos = 1, neg = -1;
    for (int i = 0; i < 3; i++) {
        ext[i] = in[i] + 2 * pd[i] - dl[i] * (kn[i] - 1) - 1;
        out[i] = ext[i] / st[i] + 1;
        pos &= out[i] > 0;
        if (out[i] < 0 && neg < 0) neg = i;
    }
    if (!c->onednn && !pos)
        return PyErr_Format(PyExc_RuntimeError, "[QConv%dD] each dimension of output tensor should be greater than 0", k);
    if (neg >= 0) {
        if (k == 3)
            return PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld, %lld, "
                                "%lld, %lld, %lld]", (long long)out[neg], (long long)x->sizes[0], (long long)c->OC,
                                (long long)out[0], (long long)out[1], (long long)out[2]);
        return PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld, %lld, %lld, "
                            "%lld]", (long long)out[neg], (long long)x->sizes[0], (long long)c->OC, (long long)out[1],
                            (long long)out[2]);
    }
    return run_kernel(c, X, out[0], out[1], out[2], oscale, ozp, relu);
}

/* quantized::conv_transpose2d / conv_transpose3d: upstream's checks (worded by the kernel it would
 * run) and output size (H - 1) * s - 2 p + d (K - 1) + output_padding + 1 per spatial dimension */
static PyObject *apply_t(tn_qconv_w *c, PyObject *X, double oscale, int64_t ozp, int relu) {
    const tn_tensor *x = tn_tensor_of(X);
    int k = c->dims, d3 = k == 3;
    if (x->dtype != TN_DTYPE_QU8)
        return c->onednn ? PyErr_Format(PyExc_RuntimeError, "quantized::conv_transpose%dd (ONEDNN): data type of input "
                                        "should be QUint8.", k)
                         : PyErr_Format(PyExc_RuntimeError, "quantized::conv_transpose(FBGEMM): Expected activation data "
                                        "type QUInt8 but got %s", tn_dtype_cpp_name(x->dtype));
    if (x->ndim != k + 2) {
        if (c->onednn)
            return PyErr_Format(PyExc_RuntimeError, "quantized::conv_transpose%dd%dd(): Expected activation tensor to have "
                                "%d dimensions, got %d", k, k, k + 2, x->ndim);
        return PyErr_Format(PyExc_RuntimeError, "quantized::conv_transpose%dd(): Expected activation tensor to have %d "
                            "dimensions, got %d", k, k + 2, x->ndim);
    }
    if (tn_quant_of(X)->scheme != 0) return tn_at_q_scale(X);
    int64_t C = x->sizes[1], G = c->groups;
    if (C != c->CG * G) {
        if (c->onednn)
            return PyErr_Format(PyExc_RuntimeError, "quantized::conv_transpose%dd (ONEDNN): input channel number should be "
                                "%lld, but got %lld", k, (long long)(c->CG * G), (long long)C);
        return fbgemm_channels_error(c, x);
    }
    /* depth (3-d only), height, width */
    int64_t in[3] = {d3 ? x->sizes[2] : 1, x->sizes[2 + d3], x->sizes[3 + d3]}, kn[3] = {c->KD, c->KH, c->KW};
    int64_t st[3] = {c->sd, c->stride[0], c->stride[1]}, pd[3] = {c->pd, c->padding[0], c->padding[1]};
    int64_t dl[3] = {c->dd, c->dilation[0], c->dilation[1]}, op[3] = {c->opd, c->output_padding[0], c->output_padding[1]};
    int64_t out[3] = {1, 1, 1};
    for (int i = 0; i < 3; i++)
        if (pd[i] < 0 || dl[i] <= 0) {
            if (c->onednn)
                return tn_fq_error("could not create a primitive descriptor for the deconvolution forward propagation "
                                   "primitive. Run workload with environment variable ONEDNN_VERBOSE=all to get "
                                   "additional diagnostic information.");
            return tn_not_implemented("quantized::conv_transpose2d / 3d with a negative padding or a dilation below 1 (fbgemm)");
        }
    if (fbgemm_directconv(c))
        return tn_not_implemented("quantized::conv_transpose2d on fbgemm's direct convolution path (an asymmetric weight "
                                  "or output padding, 2 x (1-6) kernel, no padding, stride 1 or 2, channels multiples of 8)");
    for (int i = 3 - k; i < 3; i++) {
        out[i] = (in[i] - 1) * st[i] - 2 * pd[i] + dl[i] * (kn[i] - 1) + op[i] + 1;
        if (out[i] <= 0)
            return PyErr_Format(PyExc_RuntimeError, "Output dimension is zero for %d axis; kernel: %lld, stride: %lld, "
                                "input padding: %lld, output padding: %lld, dilation: %lld", i - (3 - k), (long long)kn[i],
                                (long long)st[i], (long long)pd[i], (long long)op[i], (long long)dl[i]);
    }
    return run_kernel(c, X, out[0], out[1], out[2], oscale, ozp, relu);
}

/* the shared part: the bias, the input's int16 form, the kernel, the NC(D)HW (channels last) result */
static PyObject *run_kernel(tn_qconv_w *c, PyObject *X, int64_t OD, int64_t OH, int64_t OW, double oscale, int64_t ozp,
                            int relu) {
    const tn_tensor *x = tn_tensor_of(X);
    tn_qparams *Q = tn_quant_of(X);
    int d3 = c->dims == 3;
    int64_t N = x->sizes[0], C = x->sizes[1], D = d3 ? x->sizes[2] : 1, H = x->sizes[2 + d3], Wd = x->sizes[3 + d3];
    int64_t G = c->groups;
    if (c->bias && tn_tensor_of(c->bias)->dtype != TN_DTYPE_F32 && !c->onednn)
        return tn_fq_error("[QConv3D] The 'bias' tensor must have 'torch.float' dtype");
    if (c->bias && tn_tensor_of(c->bias)->dtype != TN_DTYPE_F32)   /* upstream's output is not the float bias's */
        return tn_not_implemented("quantized::conv2d (oneDNN) with a bias that is not float32");
    PyObject *bf = c->bias ? tn_as_dtype(c->bias, TN_DTYPE_F32, true) : NULL;
    if (c->bias && !bf) return NULL;
    PyObject *ints = tn_quant_int_alias(X);   /* a channels-last input: NHWC below without a copy */
    PyObject *nhwc = !ints ? NULL : d3 ? tn_at_permute(ints, TN_IS(0, 2, 3, 4, 1)) : tn_at_permute(ints, TN_IS(0, 2, 3, 1));
    Py_XDECREF(ints);
    PyObject *xc = nhwc ? tn_as_dtype(nhwc, TN_DTYPE_U8, true) : NULL;
    Py_XDECREF(nhwc);
    int64_t ys[5] = {N, OD, OH, OW, c->OC}, nx = N * D * H * Wd * C;
    PyObject *y = !xc ? NULL : d3 ? tn_tensor_new_empty(5, ys, TN_DTYPE_U8, TN_DEVICE_CPU)
                                  : tn_tensor_new_empty(4, (int64_t[]){N, OH, OW, c->OC}, TN_DTYPE_U8, TN_DEVICE_CPU);
    size_t nn = (size_t)(c->OC > 0 ? c->OC : 1);
    float *sc = y ? malloc(2 * nn * sizeof(float) + (size_t)nx * sizeof(int16_t)) : NULL;
    if (!sc) {
        if (y) PyErr_NoMemory();
        Py_XDECREF(bf);
        Py_XDECREF(xc);
        Py_XDECREF(y);
        return NULL;
    }
    float a_scale = (float)Q->scale, *atws = sc, *mult = sc + nn;
    for (int64_t j = 0; j < c->OC; j++) {
        atws[j] = a_scale * c->w_scale[j];
        mult[j] = atws[j] / (float)oscale;
    }
    tn_qconv_args a = {
        .N = N, .C = C, .H = H, .W = Wd, .OC = c->OC, .OH = OH, .OW = OW, .KH = c->KH, .KW = c->KW, .G = G,
        .sh = c->stride[0], .sw = c->stride[1], .ph = c->padding[0], .pw = c->padding[1], .dh = c->dilation[0],
        .dw = c->dilation[1], .d3 = d3, .D = D, .OD = OD, .KD = c->KD, .sd = c->sd, .pd = c->pd, .dd = c->dd, .xu = (const uint8_t *)tn_data(tn_tensor_of(xc)), .x = (int16_t *)(sc + 2 * nn),
        .x_zp = (int32_t)Q->zero_point, .w = c->w16, .wp = c->wp, .w_zp = c->w_zp,
        .bias = bf ? (const float *)tn_data(tn_tensor_of(bf)) : NULL, .onednn = c->onednn, .w_scale = c->w_scale,
        .src_scale = a_scale,
        .dinv = (float)(1.0 / oscale), .atws = atws, .mult = mult, .rcp = (float)(1.0 / (double)atws[0]),
        .per_channel = c->per_channel, .dw_pairs = c->dw_fast, .transpose = c->transpose, .y_zp = (int32_t)ozp, .relu = relu, .y = (uint8_t *)tn_data(tn_tensor_of(y)),
    };
    Py_BEGIN_ALLOW_THREADS
    tn_qconv2d(&a);
    Py_END_ALLOW_THREADS
    free(sc);
    Py_XDECREF(bf);
    Py_DECREF(xc);
    PyObject *q = tn_at__make_per_tensor_quantized_tensor(y, oscale, ozp);
    Py_DECREF(y);
    /* NC(D)HW, channels last as upstream's (an empty one with upstream's strides, which do not round
     * zero sizes up to 1 as a permuted contiguous tensor's do) */
    int64_t st[5] = {OD * OH * OW * c->OC, 1, OH * OW * c->OC, OW * c->OC, c->OC};
    PyObject *r = NULL;
    if (q && d3)
        r = N * OD * OH * OW * c->OC != 0 ? tn_at_permute(q, TN_IS(0, 4, 1, 2, 3))
                                          : tn_at_as_strided(q, TN_IS(N, c->OC, OD, OH, OW), TN_IN(st, 5), NULL);
    else if (q)
        r = N * OH * OW * c->OC != 0 ? tn_at_permute(q, TN_IS(0, 3, 1, 2))
                                     : tn_at_as_strided(q, TN_IS(N, c->OC, OH, OW), TN_IS(st[0], 1, st[3], st[4]), NULL);
    Py_XDECREF(q);
    return r;
}

/* ---- the operators ---- */

/* the packed parameters of an op of dims spatial dimensions (2 or 3), or upstream's refusal */
static tn_qconv_w *conv_arg(const tn_value *v, const char *op, int dims) {
    PyObject *o = v->tag == TN_V_NONE ? Py_None : v->u.obj;
    tn_qconv_w *c = tn_qpacked_conv(o);
    const char *want = dims == 3 ? TN_QCONV3D_CLASS : TN_QCONV_CLASS;
    if (!c && !strcmp(tn_py_type_name(o), "ScriptObject"))   /* the other packed objects are quantized Linear's */
        PyErr_Format(PyExc_RuntimeError, "Tried to convert an IValue of type __torch__.torch.classes.quantized."
                     "LinearPackedParamsBase (of Python compilation unit at: 0) to custom class type %s (of Python "
                     "compilation unit at: 0)", want);
    else if (!c)
        PyErr_Format(PyExc_RuntimeError, "%s() Expected a value of type '%s (of Python compilation unit at: 0)' for "
                     "argument 'packed_weight' but instead found type '%s'.", op, want,
                     tn_py_is_tensor(o) ? "Tensor" : tn_py_type_name(o));
    else if (c->dims != dims) {
        PyErr_Format(PyExc_RuntimeError, "Tried to convert an IValue of type %s (of Python compilation unit at: 0) to "
                     "custom class type %s (of Python compilation unit at: 0)", tn_qconv_class(c), want);
        c = NULL;
    }
    return c;
}

static PyObject *opt_tensor(const tn_value *v) { return v->tag == TN_V_TENSOR ? v->u.obj : NULL; }

/* quantized::conv2d_prepack(Tensor weight, Tensor? bias, int[] stride, int[] padding, int[]
 * dilation, int groups) -> Any; conv1d_prepack: the same over weight.unsqueeze(2) with stride
 * [1, s], padding [0, p], dilation [1, d]; conv_transpose2d_prepack / conv_transpose1d_prepack:
 * output_padding ([0, o] in 1-d) after padding */
static PyObject *prepack_op(tn_value *a, const char *op, int one_d, int transpose, int dims) {
    if (!tn_quant_of(a[0].u.obj)) return tn_q_backend_error(op, "CPU");
    const tn_value *d = &a[transpose ? 5 : 4], *o = transpose ? &a[4] : NULL;
    int64_t groups = a[transpose ? 6 : 5].u.i;
    tn_qconv_w *c;
    if (!one_d) {
        c = prepack(dims, a[0].u.obj, opt_tensor(&a[1]), a[2].u.ints.v, a[2].u.ints.n, a[3].u.ints.v, a[3].u.ints.n,
                    d->u.ints.v, d->u.ints.n, groups, o ? o->u.ints.v : NULL, o ? o->u.ints.n : 0);
    } else {
        if (a[2].u.ints.n != 1 || a[3].u.ints.n != 1 || d->u.ints.n != 1 || (o && o->u.ints.n != 1))
            return tn_not_implemented("quantized::conv1d_prepack with stride / padding / dilation of other than one element");
        if (tn_tensor_of(a[0].u.obj)->ndim != 3)   /* upstream unsqueezes any weight */
            return tn_not_implemented("quantized::conv1d_prepack of a weight that is not 3-d");
        int64_t s[2] = {1, a[2].u.ints.v[0]}, p[2] = {0, a[3].u.ints.v[0]}, dd[2] = {1, d->u.ints.v[0]};
        int64_t op2[2] = {0, o ? o->u.ints.v[0] : 0};
        PyObject *w4 = reshaped_at_2(a[0].u.obj, 1);
        c = w4 ? prepack(2, w4, opt_tensor(&a[1]), s, 2, p, 2, dd, 2, groups, o ? op2 : NULL, 2) : NULL;
        Py_XDECREF(w4);
    }
    return c ? tn_qpacked_new_conv(c) : NULL;
}
static PyObject *op_conv2d_prepack(tn_value *a) { return prepack_op(a, "quantized::conv2d_prepack", 0, 0, 2); }
static PyObject *op_conv3d_prepack(tn_value *a) { return prepack_op(a, "quantized::conv3d_prepack", 0, 0, 3); }
static PyObject *op_conv1d_prepack(tn_value *a) { return prepack_op(a, "quantized::conv1d_prepack", 1, 0, 2); }
static PyObject *op_conv_transpose2d_prepack(tn_value *a) {
    return prepack_op(a, "quantized::conv_transpose2d_prepack", 0, 1, 2);
}
static PyObject *op_conv_transpose3d_prepack(tn_value *a) {
    return prepack_op(a, "quantized::conv_transpose3d_prepack", 0, 1, 3);
}
static PyObject *op_conv_transpose1d_prepack(tn_value *a) {
    return prepack_op(a, "quantized::conv_transpose1d_prepack", 1, 1, 2);
}

/* quantized::conv2d.new(Tensor qx, Any packed_weight, float output_scale, int output_zero_point),
 * conv2d_relu.new; conv1d / conv1d_relu: over qx.unsqueeze(2), the result squeezed */
static PyObject *run(tn_value *a, const char *op, int relu, int one_d) {
    if (!tn_quant_of(a[0].u.obj)) return tn_q_backend_error(op, "CPU");
    tn_qconv_w *c = conv_arg(&a[1], op, strstr(op, "3d") ? 3 : 2);
    if (!c) return NULL;
    if (!one_d) return apply(c, a[0].u.obj, a[2].u.f, a[3].u.i, relu);
    if (c->onednn) relu = 0;   /* upstream's conv1d_relu on oneDNN returns conv1d's values (measured) */
    if (tn_tensor_of(a[0].u.obj)->ndim != 3) return tn_not_implemented("quantized::conv1d of an input that is not 3-d");
    PyObject *x4 = tn_at_unsqueeze(a[0].u.obj, 2);
    PyObject *y = x4 ? apply(c, x4, a[2].u.f, a[3].u.i, relu) : NULL;
    Py_XDECREF(x4);
    PyObject *r = y ? tn_at_squeeze_dim(y, 2) : NULL;
    Py_XDECREF(y);
    return r;
}
static PyObject *op_conv2d(tn_value *a) { return run(a, "quantized::conv2d.new", 0, 0); }
static PyObject *op_conv2d_relu(tn_value *a) { return run(a, "quantized::conv2d_relu.new", 1, 0); }
static PyObject *op_conv3d(tn_value *a) { return run(a, "quantized::conv3d.new", 0, 0); }
static PyObject *op_conv3d_relu(tn_value *a) { return run(a, "quantized::conv3d_relu.new", 1, 0); }
/* upstream registers no kernel for _quantized::conv3d / conv3d_relu (measured) */
static PyObject *no_kernel(tn_value *a, const char *op) {
    return tn_q_backend_error(op, tn_quant_of(a[0].u.obj) ? "QuantizedCPU" : "CPU");
}
static PyObject *op_conv3d_none(tn_value *a) { return no_kernel(a, "_quantized::conv3d"); }
static PyObject *op_conv3d_relu_none(tn_value *a) { return no_kernel(a, "_quantized::conv3d_relu"); }
static PyObject *op_conv1d(tn_value *a) { return run(a, "quantized::conv1d", 0, 1); }
static PyObject *op_conv1d_relu(tn_value *a) { return run(a, "quantized::conv1d_relu", 1, 1); }
/* conv_transpose2d / conv_transpose1d: the packed object decides (a transposed one runs transposed,
 * whichever op is called, as upstream's) */
static PyObject *op_conv_transpose2d(tn_value *a) { return run(a, "quantized::conv_transpose2d", 0, 0); }
static PyObject *op_conv_transpose1d(tn_value *a) { return run(a, "quantized::conv_transpose1d", 0, 1); }
static PyObject *op_conv_transpose3d(tn_value *a) { return run(a, "quantized::conv_transpose3d", 0, 0); }

/* quantized::conv{1,2,3}d_dynamic / conv_transpose{1,2,3}d_dynamic(Tensor qx, Any packed_weight, bool
 * reduce_range=False): upstream's apply_dynamic (measured identical): the float input quantized per
 * tensor to quint8 with ChooseQuantizationParams(min, max, 0, 255, reduce_range), the static conv
 * with the input's scale and zero point as the output's, dequantized. min / max: oneDNN's
 * input.min() / max() (NaN propagates, any dtype until quantize refuses it), fbgemm's FindMinMax
 * over the float data pointer's numel values */
static PyObject *dynamic_op(tn_value *a, const char *op, int dims, int one_d) {
    PyObject *X = a[0].u.obj;
    if (tn_quant_of(X)) return tn_q_backend_error(op, "QuantizedCPU");
    tn_qconv_w *c = conv_arg(&a[1], op, dims);
    if (!c) return NULL;
    const tn_tensor *x = tn_tensor_of(X);
    if (x->dtype != TN_DTYPE_F32) {
        if (c->onednn)
            return PyErr_Format(PyExc_RuntimeError, "Quantize only works on Float Tensor, got %s", tn_dtype_cpp_name(x->dtype));
        return PyErr_Format(PyExc_RuntimeError, "expected scalar type Float but found %s", tn_dtype_cpp_name(x->dtype));
    }
    /* fbgemm's FindMinMax reads numel floats from the data pointer whatever the strides (a view's
     * first numel floats of its storage, measured): reproduced while they lie inside the storage */
    int64_t n = tn_numel(x);
    if (!c->onednn && (size_t)(x->offset + n) * sizeof(float) > x->storage->nbytes)
        return tn_not_implemented("quantized::conv_dynamic (fbgemm) of a view whose numel values from its data pointer "
                                  "pass the end of its storage (upstream reads past it)");
    PyObject *xc = c->onednn ? tn_as_dtype(X, TN_DTYPE_F32, true) : Py_NewRef(X);
    if (!xc) return NULL;
    const float *xd = (const float *)tn_data(tn_tensor_of(xc));
    float mn = 0.0f, mx = 0.0f;
    if (!c->onednn) tn_qdyn_minmax(xd, n, &mn, &mx);
    else if (n > 0) {   /* min() / max(): NaN propagates */
        mn = mx = xd[0];
        for (int64_t i = 0; i < n && mn == mn; i++) {
            float v = xd[i];
            if (v != v) mn = mx = v;
            else {
                mn = v < mn ? v : mn;
                mx = v > mx ? v : mx;
            }
        }
    }
    Py_DECREF(xc);
    double scale;
    int32_t zp;
    if (!tn_fq_choose_qparams(mn, mx, 0, 255, false, a[2].u.i != 0, &scale, &zp))
        return tn_fq_error("In ChooseQuantizationParams, min should be less than or equal to max");
    PyObject *X4 = one_d ? tn_at_unsqueeze(X, 2) : Py_NewRef(X);
    PyObject *dt = X4 ? tn_py_from_dtype(TN_DTYPE_QU8) : NULL;
    PyObject *qx = dt ? tn_at_quantize_per_tensor(X4, scale, zp, dt) : NULL;
    Py_XDECREF(dt);
    Py_XDECREF(X4);
    PyObject *qy = qx ? apply(c, qx, scale, zp, 0) : NULL;
    Py_XDECREF(qx);
    PyObject *y = qy ? tn_at_dequantize_self(qy) : NULL;   /* channels last kept */
    Py_XDECREF(qy);
    if (!y || !one_d) return y;
    /* 1-d: upstream squeezes the height in place (its result is no view) */
    PyObject *v = tn_at_squeeze_dim(y, 2);
    PyObject *r = v ? tn_at_clone(v, tn_py.memory_format_preserve) : NULL;
    Py_XDECREF(v);
    Py_DECREF(y);
    return r;
}
static PyObject *op_conv1d_dynamic(tn_value *a) { return dynamic_op(a, "quantized::conv1d_dynamic", 2, 1); }
static PyObject *op_conv2d_dynamic(tn_value *a) { return dynamic_op(a, "quantized::conv2d_dynamic", 2, 0); }
static PyObject *op_conv3d_dynamic(tn_value *a) { return dynamic_op(a, "quantized::conv3d_dynamic", 3, 0); }
static PyObject *op_conv_transpose1d_dynamic(tn_value *a) { return dynamic_op(a, "quantized::conv_transpose1d_dynamic", 2, 1); }
static PyObject *op_conv_transpose2d_dynamic(tn_value *a) { return dynamic_op(a, "quantized::conv_transpose2d_dynamic", 2, 0); }
static PyObject *op_conv_transpose3d_dynamic(tn_value *a) { return dynamic_op(a, "quantized::conv_transpose3d_dynamic", 3, 0); }

/* quantized::conv2d_unpack / conv_unpack / conv1d_unpack (the weight squeezed at 2) */
static PyObject *unpack_op(tn_value *a, const char *op, int one_d) {
    tn_qconv_w *c = conv_arg(&a[0], op, strstr(op, "3d") ? 3 : 2);
    PyObject *wb = c ? tn_qconv_unpack(c) : NULL;
    if (!wb || !one_d) return wb;
    PyObject *w = reshaped_at_2(PyTuple_GetItem(wb, 0), 0);
    PyObject *r = w ? Py_BuildValue("(NO)", w, PyTuple_GetItem(wb, 1)) : NULL;
    Py_DECREF(wb);
    return r;
}
static PyObject *op_conv2d_unpack(tn_value *a) { return unpack_op(a, "quantized::conv2d_unpack", 0); }
static PyObject *op_conv_unpack(tn_value *a) { return unpack_op(a, "quantized::conv_unpack", 0); }
static PyObject *op_conv1d_unpack(tn_value *a) { return unpack_op(a, "quantized::conv1d_unpack", 1); }
static PyObject *op_conv3d_unpack(tn_value *a) { return unpack_op(a, "quantized::conv3d_unpack", 0); }
static PyObject *op_conv_transpose2d_unpack(tn_value *a) { return unpack_op(a, "quantized::conv_transpose2d_unpack", 0); }
static PyObject *op_conv_transpose3d_unpack(tn_value *a) { return unpack_op(a, "quantized::conv_transpose3d_unpack", 0); }
static PyObject *op_conv_transpose1d_unpack(tn_value *a) { return unpack_op(a, "quantized::conv_transpose1d_unpack", 1); }

static PyObject *qc_getter(tn_value *a, const char *op, int which) {
    tn_qconv_w *c = conv_arg(&a[0], op, strstr(op, "3d") ? 3 : 2);
    if (!c) return NULL;
    if (which == TN_QCONV_TRANSPOSE) return PyLong_FromLong(c->transpose);   /* the op returns int */
    return tn_qconv_method(c, which);
}
static PyObject *op_stride(tn_value *a) { return qc_getter(a, "quantized::conv2d_stride", TN_QCONV_STRIDE); }
static PyObject *op_padding(tn_value *a) { return qc_getter(a, "quantized::conv2d_padding", TN_QCONV_PADDING); }
static PyObject *op_output_padding(tn_value *a) {
    return qc_getter(a, "quantized::conv2d_output_padding", TN_QCONV_OUTPUT_PADDING);
}
static PyObject *op_dilation(tn_value *a) { return qc_getter(a, "quantized::conv2d_dilation", TN_QCONV_DILATION); }
static PyObject *op_groups(tn_value *a) { return qc_getter(a, "quantized::conv2d_groups", TN_QCONV_GROUPS); }
static PyObject *op_transpose(tn_value *a) { return qc_getter(a, "quantized::conv2d_transpose", TN_QCONV_TRANSPOSE); }
static PyObject *op_stride3(tn_value *a) { return qc_getter(a, "quantized::conv3d_stride", TN_QCONV_STRIDE); }
static PyObject *op_padding3(tn_value *a) { return qc_getter(a, "quantized::conv3d_padding", TN_QCONV_PADDING); }
static PyObject *op_output_padding3(tn_value *a) {
    return qc_getter(a, "quantized::conv3d_output_padding", TN_QCONV_OUTPUT_PADDING);
}
static PyObject *op_dilation3(tn_value *a) { return qc_getter(a, "quantized::conv3d_dilation", TN_QCONV_DILATION); }
static PyObject *op_groups3(tn_value *a) { return qc_getter(a, "quantized::conv3d_groups", TN_QCONV_GROUPS); }
static PyObject *op_transpose3(tn_value *a) { return qc_getter(a, "quantized::conv3d_transpose", TN_QCONV_TRANSPOSE); }

static const struct { const char *name, *overload; tn_op_fn fn; } qconv_ops[] = {
    {"quantized::conv2d_prepack", "", op_conv2d_prepack},
    {"_quantized::conv2d_prepack", "", op_conv2d_prepack},
    {"quantized::conv_prepack", "", op_conv2d_prepack},
    {"quantized::conv1d_prepack", "", op_conv1d_prepack},
    {"quantized::conv3d_prepack", "", op_conv3d_prepack},
    {"_quantized::conv3d_prepack", "", op_conv3d_prepack},
    {"quantized::conv3d", "new", op_conv3d},
    {"_quantized::conv3d", "", op_conv3d_none},
    {"quantized::conv3d_relu", "new", op_conv3d_relu},
    {"_quantized::conv3d_relu", "", op_conv3d_relu_none},
    {"quantized::conv3d_unpack", "", op_conv3d_unpack},
    {"quantized::conv3d_stride", "", op_stride3},
    {"quantized::conv3d_padding", "", op_padding3},
    {"quantized::conv3d_output_padding", "", op_output_padding3},
    {"quantized::conv3d_dilation", "", op_dilation3},
    {"quantized::conv3d_groups", "", op_groups3},
    {"quantized::conv3d_transpose", "", op_transpose3},
    {"quantized::conv2d", "new", op_conv2d},
    {"_quantized::conv2d", "", op_conv2d},
    {"quantized::conv2d_relu", "new", op_conv2d_relu},
    {"_quantized::conv2d_relu", "", op_conv2d_relu},
    {"quantized::conv1d", "", op_conv1d},
    {"quantized::conv1d_relu", "", op_conv1d_relu},
    {"quantized::conv2d_unpack", "", op_conv2d_unpack},
    {"quantized::conv_unpack", "", op_conv_unpack},
    {"quantized::conv1d_unpack", "", op_conv1d_unpack},
    {"quantized::conv2d_stride", "", op_stride},
    {"quantized::conv2d_padding", "", op_padding},
    {"quantized::conv2d_output_padding", "", op_output_padding},
    {"quantized::conv2d_dilation", "", op_dilation},
    {"quantized::conv2d_groups", "", op_groups},
    {"quantized::conv2d_transpose", "", op_transpose},
    {"quantized::conv_transpose2d_prepack", "", op_conv_transpose2d_prepack},
    {"_quantized::conv_transpose2d_prepack", "", op_conv_transpose2d_prepack},
    {"quantized::conv_transpose1d_prepack", "", op_conv_transpose1d_prepack},
    {"_quantized::conv_transpose1d_prepack", "", op_conv_transpose1d_prepack},
    {"quantized::conv_transpose2d", "", op_conv_transpose2d},
    {"_quantized::conv_transpose2d", "", op_conv_transpose2d},
    {"quantized::conv_transpose1d", "", op_conv_transpose1d},
    {"_quantized::conv_transpose1d", "", op_conv_transpose1d},
    {"quantized::conv_transpose2d_unpack", "", op_conv_transpose2d_unpack},
    {"quantized::conv_transpose1d_unpack", "", op_conv_transpose1d_unpack},
    {"quantized::conv_transpose2d_stride", "", op_stride},
    {"quantized::conv_transpose2d_padding", "", op_padding},
    {"quantized::conv_transpose2d_output_padding", "", op_output_padding},
    {"quantized::conv_transpose2d_dilation", "", op_dilation},
    {"quantized::conv_transpose2d_groups", "", op_groups},
    {"quantized::conv_transpose2d_transpose", "", op_transpose},
    {"quantized::conv_transpose3d_prepack", "", op_conv_transpose3d_prepack},
    {"_quantized::conv_transpose3d_prepack", "", op_conv_transpose3d_prepack},
    {"quantized::conv_transpose3d", "", op_conv_transpose3d},
    {"quantized::conv_transpose3d_unpack", "", op_conv_transpose3d_unpack},
    {"quantized::conv_transpose3d_stride", "", op_stride3},
    {"quantized::conv_transpose3d_padding", "", op_padding3},
    {"quantized::conv_transpose3d_output_padding", "", op_output_padding3},
    {"quantized::conv_transpose3d_dilation", "", op_dilation3},
    {"quantized::conv_transpose3d_groups", "", op_groups3},
    {"quantized::conv_transpose3d_transpose", "", op_transpose3},
    {"quantized::conv1d_dynamic", "", op_conv1d_dynamic},
    {"quantized::conv2d_dynamic", "", op_conv2d_dynamic},
    {"quantized::conv3d_dynamic", "", op_conv3d_dynamic},
    {"quantized::conv_transpose1d_dynamic", "", op_conv_transpose1d_dynamic},
    {"quantized::conv_transpose2d_dynamic", "", op_conv_transpose2d_dynamic},
    {"quantized::conv_transpose3d_dynamic", "", op_conv_transpose3d_dynamic},
};

tn_op_fn tn_qconv_op_fn(const char *name, const char *overload) {
    for (size_t i = 0; i < sizeof qconv_ops / sizeof *qconv_ops; i++)
        if (!strcmp(qconv_ops[i].name, name) && !strcmp(qconv_ops[i].overload, overload)) return qconv_ops[i].fn;
    return NULL;
}
