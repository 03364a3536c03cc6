/* ops/conv.c — convolution: convolution, _convolution, convolution_backward, im2col, col2im.
 *
 * The composites (conv1d/2d/3d and their padding-string overloads, conv_transpose1d/2d/3d,
 * _convolution.deprecated, _convolution_mode) have no kernel here: they run as their upstream
 * decomposition (autograd/decomp.c) into aten::convolution, always. Validation follows upstream's
 * _convolution (messages measured on torch 2.13.0); the products run on kernels/conv.c in the
 * compute type (f32 for f32/f16/bf16, f64, i64 for integer types; the backward refuses integers
 * as upstream's does). Results are laid out as upstream's: channels_last when a 4-d input or
 * weight suggests it (a 5-d one only for bfloat16, upstream's oneDNN path). */
#include "autograd/autograd.h"
#include "ops/common.h"
#include "ops/pad.h"
#include "kernels/conv.h"
#include "core/parallel.h"
#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

typedef struct {
    int dim; /* spatial dims, 1..3 */
    int64_t stride[3], padding[3], dilation[3], output_padding[3], groups;
    bool transposed;
} conv_params;

static void list_str(char *buf, size_t n, const int64_t *v, int k) { tn_shape_str(buf, n, k, v); }

/* upstream's expand_param_if_needed: one value for every dim, or exactly dim values */
static int expand(const tn_value *v, const char *name, int dim, int64_t *out) {
    int n = v->u.ints.n;
    if (n == 1) {
        for (int i = 0; i < dim; i++) out[i] = v->u.ints.v[0];
        return 0;
    }
    if (n != dim) {
        char b[256];
        list_str(b, sizeof b, v->u.ints.v, n);
        PyErr_Format(PyExc_RuntimeError, "expected %s to be a single integer value or a list of %d values to match the "
                     "convolution dimensions, but got %s=%s", name, dim, name, b);
        return -1;
    }
    for (int i = 0; i < dim; i++) out[i] = v->u.ints.v[i];
    return 0;
}

/* args: stride, padding, dilation, transposed, output_padding, groups at a[0..5] */
static int parse_params(const tn_tensor *w, const tn_value *a, conv_params *p) {
    int dim = w->ndim - 2;
    if (dim <= 0) {
        PyErr_SetString(PyExc_RuntimeError, "weight should have at least three dimensions");
        return -1;
    }
    if (dim > 3) {
        tn_not_implemented("aten::convolution with more than 3 spatial dimensions");
        return -1;
    }
    p->dim = dim;
    p->transposed = a[3].u.i != 0;
    p->groups = a[5].u.i;
    if (expand(&a[0], "stride", dim, p->stride) < 0 || expand(&a[1], "padding", dim, p->padding) < 0 ||
        expand(&a[2], "dilation", dim, p->dilation) < 0 || expand(&a[4], "output_padding", dim, p->output_padding) < 0)
        return -1;
    return 0;
}

static int fail(const char *msg) {
    PyErr_SetString(PyExc_RuntimeError, msg);
    return -1;
}

/* upstream's check_shape_forward (and the parameter checks before it); bias may be NULL */
static int check_shape(const tn_tensor *in, const tn_tensor *w, const tn_tensor *bias, const conv_params *p,
                       bool check_bias) {
    const int dim = p->dim;
    char ws[256], is[256], bs[256];
    if (p->groups <= 0) return fail("non-positive groups is not supported");
    for (int i = 0; i < dim; i++)
        if (p->dilation[i] < 0) return fail("dilation should be greater than zero");
    for (int i = 0; i < dim; i++)
        if (p->padding[i] < 0) return fail("negative padding is not supported");
    for (int i = 0; i < dim; i++)
        if (p->output_padding[i] < 0) return fail("negative output_padding is not supported");
    for (int i = 0; i < dim; i++)
        if (p->stride[i] <= 0) return fail("non-positive stride is not supported");
    for (int i = 0; i < dim; i++)
        if (p->dilation[i] <= 0) return fail("non-positive dilation is not supported");
    tn_shape_str(ws, sizeof ws, w->ndim, w->sizes);
    tn_shape_str(is, sizeof is, in->ndim, in->sizes);
    if (in->ndim != w->ndim) {
        PyErr_Format(PyExc_RuntimeError, "Expected %d-dimensional input for %d-dimensional weight %s, but got "
                     "%d-dimensional input of size %s instead", w->ndim, w->ndim, ws, in->ndim, is);
        return -1;
    }
    if (w->sizes[0] < p->groups) {
        PyErr_Format(PyExc_RuntimeError, "Given groups=%lld, expected weight to be at least %lld at dimension 0, but got "
                     "weight of size %s instead", (long long)p->groups, (long long)p->groups, ws);
        return -1;
    }
    if (w->sizes[0] % p->groups) {
        PyErr_Format(PyExc_RuntimeError, "Given groups=%lld, expected weight to be divisible by %lld at dimension 0, but "
                     "got weight of size [%s] instead", (long long)p->groups, (long long)p->groups, ws);
        return -1;
    }
    if (!p->transposed) {
        if (in->sizes[1] != w->sizes[1] * p->groups) {
            PyErr_Format(PyExc_RuntimeError, "Given groups=%lld, weight of size %s, expected input%s to have %lld "
                         "channels, but got %lld channels instead", (long long)p->groups, ws, is,
                         (long long)(w->sizes[1] * p->groups), (long long)in->sizes[1]);
            return -1;
        }
        if (check_bias && bias && (bias->ndim != 1 || bias->sizes[0] != w->sizes[0])) {
            tn_shape_str(bs, sizeof bs, bias->ndim, bias->sizes);
            PyErr_Format(PyExc_RuntimeError, "Given weight of size %s, expected bias to be 1-dimensional with %lld "
                         "elements, but got bias of size %s instead", ws, (long long)w->sizes[0], bs);
            return -1;
        }
        bool ok = true;
        char a[128] = "", k[128] = "";
        for (int i = 0; i < dim; i++) {
            int64_t pi = in->sizes[i + 2] + 2 * p->padding[i], ki = p->dilation[i] * (w->sizes[i + 2] - 1) + 1;
            if (pi < ki) ok = false;
            snprintf(a + strlen(a), sizeof a - strlen(a), "%s%lld", i ? " x " : "", (long long)pi);
            snprintf(k + strlen(k), sizeof k - strlen(k), "%s%lld", i ? " x " : "", (long long)ki);
        }
        if (!ok) {
            PyErr_Format(PyExc_RuntimeError, "Calculated padded input size per channel: (%s). Kernel size: (%s). Kernel "
                         "size can't be greater than actual input size", a, k);
            return -1;
        }
    } else {
        if (in->sizes[1] != w->sizes[0]) {
            PyErr_Format(PyExc_RuntimeError, "Given transposed=1, weight of size %s, expected input%s to have %lld "
                         "channels, but got %lld channels instead", ws, is, (long long)w->sizes[0], (long long)in->sizes[1]);
            return -1;
        }
        if (check_bias && bias && (bias->ndim != 1 || bias->sizes[0] != w->sizes[1] * p->groups)) {
            tn_shape_str(bs, sizeof bs, bias->ndim, bias->sizes);
            PyErr_Format(PyExc_RuntimeError, "Given transposed=1, weight of size %s, expected bias to be 1-dimensional "
                         "with %lld elements, but got bias of size %s instead", ws, (long long)(w->sizes[1] * p->groups), bs);
            return -1;
        }
        bool big = false;
        for (int i = 0; i < dim; i++)
            if (p->output_padding[i] >= p->stride[i] && p->output_padding[i] >= p->dilation[i]) big = true;
        if (big) {
            static const char *names[3] = {"depth", "height", "width"};
            const int first = dim == 3 ? 0 : 1, shown = dim == 1 ? 2 : dim;
            int64_t op[3], st[3], dl[3];
            for (int i = 0; i < shown; i++) { /* 1-d shows as 2-d (height 0 / 1) */
                int s = i - (shown - dim);
                op[i] = s < 0 ? 0 : p->output_padding[s];
                st[i] = s < 0 ? 1 : p->stride[s];
                dl[i] = s < 0 ? 1 : p->dilation[s];
            }
            char m[512] = "output padding must be smaller than either stride or dilation, but got";
            const int64_t *vals[3] = {op, st, dl};
            static const char *what[3] = {"output_padding", "stride", "dilation"};
            for (int v = 0; v < 3; v++)
                for (int i = 0; i < shown; i++)
                    snprintf(m + strlen(m), sizeof m - strlen(m), " %s_%s: %lld", what[v], names[first + i],
                             (long long)vals[v][i]);
            return fail(m);
        }
    }
    return 0;
}

static int compute_type(tn_dtype d, tn_conv_type *t, tn_dtype *ct) {
    switch (d) {
    case TN_DTYPE_F32: case TN_DTYPE_F16: case TN_DTYPE_BF16: *t = TN_CONV_F32; *ct = TN_DTYPE_F32; return 0;
    case TN_DTYPE_F64: *t = TN_CONV_F64; *ct = TN_DTYPE_F64; return 0;
    case TN_DTYPE_U8: case TN_DTYPE_I8: case TN_DTYPE_I16: case TN_DTYPE_I32: case TN_DTYPE_I64:
        *t = TN_CONV_I64; *ct = TN_DTYPE_I64; return 0;
    default: return -1;
    }
}

static int refuse_dtype(tn_dtype d, int dim) {
    if (tn_dtype_is_complex(d)) tn_not_implemented("aten::convolution for complex dtypes");
    else tn_kernel_missing(dim == 3 ? "slow_conv3d_cpu" : "slow_conv2d_cpu", d);
    return -1;
}

static const char *legacy_name(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F32: return "torch.FloatTensor";
    case TN_DTYPE_F64: return "torch.DoubleTensor";
    case TN_DTYPE_F16: return "torch.HalfTensor";
    case TN_DTYPE_BF16: return "CPUBFloat16Type";
    case TN_DTYPE_I64: return "torch.LongTensor";
    case TN_DTYPE_I32: return "torch.IntTensor";
    case TN_DTYPE_I16: return "torch.ShortTensor";
    case TN_DTYPE_I8: return "torch.CharTensor";
    case TN_DTYPE_U8: return "torch.ByteTensor";
    case TN_DTYPE_BOOL: return "torch.BoolTensor";
    default: return tn_dtype_cxx_name(d);
    }
}

static bool onednn_path(tn_dtype dt);
static int check_types(const tn_tensor *in, const tn_tensor *w, const tn_tensor *b) {
    if (in->dtype != w->dtype) {
        if (tn_nn_float(in->dtype) && in->dtype != TN_DTYPE_F64)
            PyErr_Format(PyExc_RuntimeError, "Input type (%s) and weight type (%s) should be the same or input should be a "
                         "MKLDNN tensor and weight is a dense tensor", legacy_name(in->dtype), legacy_name(w->dtype));
        else
            PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(in->dtype),
                         tn_dtype_cpp_name(w->dtype));
        return -1;
    }
    /* upstream's oneDNN path (f32, bf16) requires the bias in the input's type; the others cast it */
    if (b && b->dtype != in->dtype && (in->dtype == TN_DTYPE_F32 || (in->dtype == TN_DTYPE_BF16 && onednn_path(in->dtype)))) {
        PyErr_Format(PyExc_RuntimeError, "Input type (%s) and bias type (%s) should be the same or input should be a "
                     "MKLDNN tensor and bias is a dense tensor", legacy_name(in->dtype), legacy_name(b->dtype));
        return -1;
    }
    return 0;
}

/* Geometry of the convolution proper: for a transposed one its input is the transposed output. */
static void geometry(const tn_tensor *x, const tn_tensor *w, const conv_params *p, tn_conv_geom *g, int64_t *out_sp) {
    const int dim = p->dim, lead = 3 - dim;
    for (int d = 0; d < 3; d++) {
        g->I[d] = g->O[d] = g->K[d] = g->S[d] = g->D[d] = 1;
        g->P[d] = 0;
    }
    g->N = x->sizes[0];
    g->groups = p->groups;
    for (int i = 0; i < dim; i++) {
        int d = lead + i;
        g->K[d] = w->sizes[i + 2];
        g->S[d] = p->stride[i];
        g->P[d] = p->padding[i];
        g->D[d] = p->dilation[i];
        int64_t xi = x->sizes[i + 2];
        if (!p->transposed) {
            g->I[d] = xi;
            g->O[d] = (xi + 2 * p->padding[i] - p->dilation[i] * (g->K[d] - 1) - 1) / p->stride[i] + 1;
            out_sp[i] = g->O[d];
        } else {
            g->O[d] = xi;
            g->I[d] = (xi - 1) * p->stride[i] - 2 * p->padding[i] + p->dilation[i] * (g->K[d] - 1) + p->output_padding[i] + 1;
            out_sp[i] = g->I[d];
        }
    }
    if (!p->transposed) {
        g->C = x->sizes[1];
        g->OC = w->sizes[0];
    } else {
        g->C = w->sizes[1] * p->groups;
        g->OC = w->sizes[0];
    }
}

/* Whether upstream runs a convolution of this dtype on oneDNN on this CPU. float32: always.
 * bfloat16 / float16: only where oneDNN has the type (ideep's has_bf16_type_support /
 * has_fp16_type_support: AVX-512 BW+VL+DQ / AVX-512-FP16, or AVX-NE-CONVERT); elsewhere its
 * im2col path, which rounds in other steps (tn_conv_geom.bf16_steps) and differs in layout and
 * outputs (docs/host_paths.md). TN_CONV_LOWP=onednn / im2col forces either (testing both on one
 * host). Measured on an AVX2-only host against upstream 2.13.0. */
static bool onednn_path(tn_dtype dt) {
    static int bf16 = -1, f16 = -1;
    if (dt != TN_DTYPE_BF16 && dt != TN_DTYPE_F16) return true;
    if (bf16 < 0) {
        const char *e = getenv("TN_CONV_LOWP");
        int b = 0, h = 0;
#if defined(__x86_64__) || defined(__i386__)
        unsigned a = 0, bx = 0, c = 0, d = 0;
        bool ne_convert = __get_cpuid_count(7, 1, &a, &bx, &c, &d) && (d & (1u << 5));
        b = ne_convert || (__builtin_cpu_supports("avx512bw") && __builtin_cpu_supports("avx512vl") &&
                           __builtin_cpu_supports("avx512dq"));
        h = ne_convert || __builtin_cpu_supports("avx512fp16");
#endif
        if (e && !strcmp(e, "onednn")) b = h = 1;
        if (e && !strcmp(e, "im2col")) b = h = 0;
        f16 = h;
        bf16 = b;
    }
    return dt == TN_DTYPE_BF16 ? bf16 : f16;
}

/* Whether results take channels_last strides: a 4-d input or weight suggesting it; 5-d only for
 * bfloat16 on oneDNN (it keeps channels_last_3d there; measured: upstream's other bfloat16 / f16
 * paths and its float32 path on AVX-512 hosts return contiguous). */
static bool channels_last(const tn_tensor *x, const tn_tensor *w) {
    if (x->ndim == 4) return tn_suggest_format(x) == 2 || tn_suggest_format(w) == 2;
    if (x->ndim == 5 && x->dtype == TN_DTYPE_BF16 && onednn_path(TN_DTYPE_BF16))
        return tn_suggest_format(x) == 3 || tn_suggest_format(w) == 3;
    return false;
}

static void cl_strides(int nd, const int64_t *sz, int64_t *st) {
    int64_t acc = 1;
    st[1] = acc;
    acc *= sz[1] > 1 ? sz[1] : 1;
    for (int d = nd - 1; d >= 2; d--) {
        st[d] = acc;
        acc *= sz[d] > 1 ? sz[d] : 1;
    }
    st[0] = acc;
}

/* res (contiguous, compute type) to dtype dt, in channels_last layout when cl. Steals res. */
static PyObject *finish(PyObject *res, tn_dtype dt, bool cl) {
    if (!res) return NULL;
    const tn_tensor *r = tn_tensor_of(res);
    if (!cl) {
        PyObject *o = tn_as_dtype(res, dt, false);
        Py_DECREF(res);
        return o;
    }
    int64_t st[TN_MAX_DIMS];
    cl_strides(r->ndim, r->sizes, st);
    PyObject *o = tn_tensor_new_strided(r->ndim, r->sizes, st, dt);
    if (o && tn_copy_into(o, res) < 0) Py_CLEAR(o);
    Py_DECREF(res);
    return o;
}

static int slots(void) { return tn_get_num_threads(); }

static void *scratch_alloc(size_t n, bool *ok) {
    void *p = malloc(n ? n : 1);
    *ok = p != NULL;
    if (!p) PyErr_NoMemory();
    return p;
}

/* new contiguous tensor of shape (N, ch, spatial...) in ct */
static PyObject *new_nc(int64_t N, int64_t ch, int dim, const int64_t *sp, tn_dtype ct) {
    int64_t s[5] = {N, ch};
    for (int i = 0; i < dim; i++) s[2 + i] = sp[i];
    return tn_tensor_new_empty(dim + 2, s, ct, TN_DEVICE_CPU);
}

/* ---- forward ---- */

static PyObject *convolution(PyObject *input, PyObject *weight, PyObject *bias, const tn_value *pa) {
    const tn_tensor *x = tn_tensor_of(input), *w = tn_tensor_of(weight), *b = bias ? tn_tensor_of(bias) : NULL;
    conv_params p;
    if (parse_params(w, pa, &p) < 0 || check_shape(x, w, b, &p, true) < 0 || check_types(x, w, b) < 0) return NULL;
    tn_conv_type t;
    tn_dtype ct, dt = x->dtype;
    if (compute_type(dt, &t, &ct) < 0) return refuse_dtype(dt, p.dim), NULL;
    tn_conv_geom g = {0};
    int64_t osp[3];
    geometry(x, w, &p, &g, osp);
    g.bf16_steps = dt == TN_DTYPE_BF16 && !onednn_path(dt) ? TN_CONV_BF16_STEPS : 0;
    for (int i = 0; i < p.dim; i++)
        if (osp[i] < 0) {
            PyErr_SetString(PyExc_RuntimeError, "convolution: the computed output size is negative");
            return NULL;
        }
    /* no input channels: upstream returns no output channels either */
    const int64_t och = x->sizes[1] == 0 ? 0 : p.transposed ? g.C : g.OC;
    if (och == 0) {
        PyObject *e = new_nc(g.N, 0, p.dim, osp, dt);
        return finish(e, dt, channels_last(x, w));
    }
    PyObject *X = tn_as_dtype(input, ct, true), *W = X ? tn_as_dtype(weight, ct, true) : NULL;
    /* a bias of another type is cast to the input's first (upstream's paths that accept one) */
    PyObject *Bd = W && bias ? tn_as_dtype(bias, dt, false) : NULL;
    PyObject *B = Bd ? tn_as_dtype(Bd, ct, true) : NULL;
    Py_XDECREF(Bd);
    PyObject *res = W && (!bias || B) ? new_nc(g.N, och, p.dim, osp, ct) : NULL;
    if (res) {
        int ns = slots();
        size_t sb = p.transposed ? tn_conv_grad_input_scratch(&g, t, ns) : tn_conv_forward_scratch(&g, t, ns);
        bool ok;
        void *scr = scratch_alloc(sb, &ok);
        if (!ok) {
            Py_CLEAR(res);
        } else {
            const void *xd = tn_data(tn_tensor_of(X)), *wd = tn_data(tn_tensor_of(W)), *bd = B ? tn_data(tn_tensor_of(B)) : NULL;
            void *od = tn_data(tn_tensor_of(res));
            Py_BEGIN_ALLOW_THREADS
            if (p.transposed) tn_conv_grad_input(&g, t, xd, wd, bd, od, scr, ns);
            else tn_conv_forward(&g, t, xd, wd, bd, od, scr, ns);
            Py_END_ALLOW_THREADS
            free(scr);
        }
    }
    Py_XDECREF(X);
    Py_XDECREF(W);
    Py_XDECREF(B);
    return finish(res, dt, channels_last(x, w));
}

/* convolution(input, weight, bias?, stride, padding, dilation, transposed, output_padding, groups) */
PyObject *tn_op_convolution(tn_value *a) {
    return convolution(a[0].u.obj, a[1].u.obj, a[2].tag == TN_V_TENSOR ? a[2].u.obj : NULL, &a[3]);
}
/* _convolution(..., groups, benchmark, deterministic, cudnn_enabled, allow_tf32): the same product */
PyObject *tn_op__convolution(tn_value *a) { return tn_op_convolution(a); }

/* ---- backward ---- */

/* per_image: upstream's dilated im2col path in bfloat16 sums each image's gradient, rounds it and
 * adds it to the total rounded (measured); otherwise one sum, rounded once */
static PyObject *bias_grad(PyObject *gout, tn_dtype dt, bool per_image) {
    const tn_tensor *go = tn_tensor_of(gout);
    tn_conv_type t;
    tn_dtype ct;
    if (compute_type(dt, &t, &ct) < 0) return refuse_dtype(dt, go->ndim - 2), NULL;
    int64_t N = go->sizes[0], ch = go->sizes[1], P = 1;
    for (int i = 2; i < go->ndim; i++) P *= go->sizes[i];
    PyObject *G = tn_as_dtype(gout, ct, true);
    PyObject *r = G ? tn_tensor_new_empty(1, &ch, ct, TN_DEVICE_CPU) : NULL;
    float *one = r && per_image && t == TN_CONV_F32 ? PyMem_Malloc((size_t)(ch > 0 ? ch : 1) * sizeof(float)) : NULL;
    if (one) {
        float *sum = (float *)tn_data(tn_tensor_of(r));
        const float *gd = (const float *)tn_data(tn_tensor_of(G));
        for (int64_t n = 0; n < N; n++) {
            tn_conv_grad_bias(1, ch, P, t, gd + n * ch * P, one);
            for (int64_t c = 0; c < ch; c++) {
                float v = tn_bf16_to_f32(tn_f32_to_bf16(one[c]));
                sum[c] = n ? tn_bf16_to_f32(tn_f32_to_bf16(sum[c] + v)) : v;
            }
        }
        if (N == 0)
            for (int64_t c = 0; c < ch; c++) sum[c] = 0.0f;
        PyMem_Free(one);
    } else if (r && per_image && t == TN_CONV_F32) {
        Py_CLEAR(r);
        PyErr_NoMemory();
    } else if (r) {
        tn_conv_grad_bias(N, ch, P, t, tn_data(tn_tensor_of(G)), tn_data(tn_tensor_of(r)));
    }
    Py_XDECREF(G);
    return finish(r, dt, false);
}

/* convolution_backward(grad_output, input, weight, bias_sizes?, stride, padding, dilation,
 * transposed, output_padding, groups, output_mask) */
PyObject *tn_op_convolution_backward(tn_value *a) {
    PyObject *gout = a[0].u.obj, *input = a[1].u.obj, *weight = a[2].u.obj;
    const tn_tensor *go = tn_tensor_of(gout), *x = tn_tensor_of(input), *w = tn_tensor_of(weight);
    conv_params p;
    if (parse_params(w, &a[4], &p) < 0 || check_shape(x, w, NULL, &p, false) < 0 || check_types(x, w, NULL) < 0) return NULL;
    const tn_dtype dt = x->dtype;
    bool mask[3] = {a[10].u.ints.v[0] != 0, a[10].u.ints.v[1] != 0, a[10].u.ints.v[2] != 0};
    tn_conv_geom g = {0};
    int64_t osp[3];
    geometry(x, w, &p, &g, osp);
    g.bf16_steps = dt != TN_DTYPE_BF16 || onednn_path(dt) ? 0
                   : channels_last(x, w) ? TN_CONV_BF16_STEPS_CL : TN_CONV_BF16_STEPS;
    /* upstream's oneDNN path (f32, bf16, f16) computes the weight gradient with the bias's, and
     * returns it; for a 1-d convolution in the 2-d shape it computed it in. grad_output must have
     * the forward's output shape (for the bias gradient alone, channels in dim 1) */
    bool w_extra = (dt == TN_DTYPE_F32 || dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16) && onednn_path(dt) && mask[2] && !mask[1];
    bool shape_ok = go->ndim >= 2 && (!(mask[0] || mask[1] || w_extra) ||
                    (go->ndim == x->ndim && go->sizes[0] == x->sizes[0] && go->sizes[1] == (p.transposed ? g.C : g.OC)));
    for (int i = 0; shape_ok && (mask[0] || mask[1] || w_extra) && i < p.dim; i++) shape_ok = go->sizes[i + 2] == osp[i];
    if (!shape_ok) {
        char gs[256];
        tn_shape_str(gs, sizeof gs, go->ndim, go->sizes);
        PyErr_Format(PyExc_RuntimeError, "convolution_backward: grad_output of size %s does not match the convolution's "
                     "output size", gs);
        return NULL;
    }
    if (go->dtype != dt) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(dt),
                     tn_dtype_cpp_name(go->dtype));
        return NULL;
    }
    tn_conv_type t;
    tn_dtype ct;
    if (compute_type(dt, &t, &ct) < 0) return refuse_dtype(dt, p.dim), NULL;
    if (t == TN_CONV_I64 && (mask[0] || mask[1]))
        return tn_kernel_missing(p.transposed ? "slow_conv_transpose2d_backward_out_cpu"
                                 : p.dim == 3 ? (mask[0] ? "slow_conv3d_cpu_grad_input" : "slow_conv3d_cpu_grad_weight")
                                 : mask[0] ? "slow_conv2d_cpu_grad_input" : "slow_conv2d_cpu_grad_weight", dt);
    PyObject *gi = NULL, *gw = NULL, *gb = NULL, *G = NULL, *X = NULL, *W = NULL;
    bool cl = channels_last(x, w);
    int ns = slots();
    if (mask[0] || mask[1] || w_extra) {
        G = tn_as_dtype(gout, ct, true);
        X = G ? tn_as_dtype(input, ct, true) : NULL;
        W = X ? tn_as_dtype(weight, ct, true) : NULL;
        if (!W) goto fail;
    }
    if (mask[0]) {
        gi = new_nc(x->sizes[0], x->sizes[1], p.dim, x->sizes + 2, ct);
        if (!gi) goto fail;
        size_t sb = p.transposed ? tn_conv_forward_scratch(&g, t, ns) : tn_conv_grad_input_scratch(&g, t, ns);
        bool ok;
        void *scr = scratch_alloc(sb, &ok);
        if (!ok) goto fail;
        const void *gd = tn_data(tn_tensor_of(G)), *wd = tn_data(tn_tensor_of(W));
        void *od = tn_data(tn_tensor_of(gi));
        Py_BEGIN_ALLOW_THREADS
        if (p.transposed) tn_conv_forward(&g, t, gd, wd, NULL, od, scr, ns);
        else tn_conv_grad_input(&g, t, gd, wd, NULL, od, scr, ns);
        Py_END_ALLOW_THREADS
        free(scr);
        if (!(gi = finish(gi, dt, cl))) goto fail;
    }
    if (mask[1] || w_extra) {
        gw = tn_tensor_new_empty(w->ndim, w->sizes, ct, TN_DEVICE_CPU);
        if (!gw) goto fail;
        bool ok;
        void *scr = scratch_alloc(tn_conv_grad_weight_scratch(&g, t, ns), &ok);
        if (!ok) goto fail;
        /* transposed: the convolution's output gradient is the input x, its input the grad_output */
        const void *gd = tn_data(tn_tensor_of(p.transposed ? X : G)), *xd = tn_data(tn_tensor_of(p.transposed ? G : X));
        void *od = tn_data(tn_tensor_of(gw));
        Py_BEGIN_ALLOW_THREADS
        tn_conv_grad_weight(&g, t, gd, xd, od, scr, ns);
        Py_END_ALLOW_THREADS
        free(scr);
        if (w_extra && p.dim == 1) {
            tn_tensor *wt = tn_tensor_of(gw);
            wt->ndim = 4;
            wt->sizes[3] = wt->sizes[2];
            wt->sizes[2] = 1;
            tn_contiguous_strides(4, wt->sizes, wt->strides);
        }
        if (!(gw = finish(gw, dt, cl))) goto fail;
    }
    bool dilated = false;
    for (int d = 0; d < 3; d++) dilated |= g.D[d] > 1;
    if (mask[2] && !(gb = bias_grad(gout, go->dtype, g.bf16_steps && dilated && !p.transposed))) goto fail;
    Py_XDECREF(G);
    Py_XDECREF(X);
    Py_XDECREF(W);
    return Py_BuildValue("(NNN)", gi ? gi : Py_NewRef(Py_None), gw ? gw : Py_NewRef(Py_None), gb ? gb : Py_NewRef(Py_None));
fail:
    Py_XDECREF(G);
    Py_XDECREF(X);
    Py_XDECREF(W);
    Py_XDECREF(gi);
    Py_XDECREF(gw);
    Py_XDECREF(gb);
    return NULL;
}

/* ---- im2col / col2im (F.unfold / F.fold) ---- */

/* an int[2] argument of im2col / col2im: upstream checks each list's length first, in argument order */
static int pair(const tn_value *v, int64_t *o, const char *name) {
    int n = v->u.ints.n;
    if (n != 2) {
        PyErr_Format(PyExc_RuntimeError, "It is expected %s equals to 2, but got size %d", name, n);
        return -1;
    }
    o[0] = v->u.ints.v[0];
    o[1] = v->u.ints.v[1];
    return 0;
}

static int unfold_params(const tn_value *a, int64_t *k, int64_t *d, int64_t *pd, int64_t *s) {
    if (pair(&a[0], k, "kernel_size") < 0 || pair(&a[1], d, "dilation") < 0 || pair(&a[2], pd, "padding") < 0 ||
        pair(&a[3], s, "stride") < 0)
        return -1;
    if (k[0] <= 0 || k[1] <= 0) {
        PyErr_Format(PyExc_RuntimeError, "kernel size should be greater than zero, but got kernel_height: %lld "
                     "kernel_width: %lld", (long long)k[0], (long long)k[1]);
        return -1;
    }
    if (s[0] <= 0 || s[1] <= 0) {
        PyErr_Format(PyExc_RuntimeError, "stride should be greater than zero, but got stride_height: %lld stride_width: %lld",
                     (long long)s[0], (long long)s[1]);
        return -1;
    }
    if (d[0] <= 0 || d[1] <= 0) {
        PyErr_Format(PyExc_RuntimeError, "dilation should be greater than zero, but got dilation_height: %lld "
                     "dilation_width: %lld", (long long)d[0], (long long)d[1]);
        return -1;
    }
    if (pd[0] < 0 || pd[1] < 0) {
        PyErr_Format(PyExc_RuntimeError, "padding should be non-negative, but got pad_height: %lld pad_width: %lld",
                     (long long)pd[0], (long long)pd[1]);
        return -1;
    }
    return 0;
}

/* (size + 2*pad - (dil*(k-1) + 1)) / stride + 1, wrapping instead of overflowing on absurd
 * arguments (the callers reject any result below 1); stride > 0 */
static int64_t sliding_blocks(int64_t size, int64_t pad, int64_t dil, int64_t k, int64_t stride) {
    uint64_t span = (uint64_t)dil * (uint64_t)(k - 1) + 1u;
    int64_t num = (int64_t)((uint64_t)size + 2u * (uint64_t)pad - span);
    return num / stride + 1;
}

static void geom2(tn_conv_geom *g, int64_t N, int64_t C, const int64_t *isz, const int64_t *osz, const int64_t *k,
                  const int64_t *d, const int64_t *pd, const int64_t *s) {
    memset(g, 0, sizeof *g);
    g->N = N;
    g->C = g->OC = C;
    g->groups = 1;
    g->I[0] = g->O[0] = g->K[0] = g->S[0] = g->D[0] = 1;
    for (int i = 0; i < 2; i++) {
        g->I[i + 1] = isz[i];
        g->O[i + 1] = osz[i];
        g->K[i + 1] = k[i];
        g->S[i + 1] = s[i];
        g->P[i + 1] = pd[i];
        g->D[i + 1] = d[i];
    }
}

static int unfold_dtype(const char *kname, tn_dtype dt, tn_conv_type *t, tn_dtype *ct) {
    if (dt == TN_DTYPE_F32 || dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16) { *t = TN_CONV_F32; *ct = TN_DTYPE_F32; return 0; }
    if (dt == TN_DTYPE_F64) { *t = TN_CONV_F64; *ct = TN_DTYPE_F64; return 0; }
    if (tn_dtype_is_complex(dt) && dt != TN_DTYPE_C32) tn_not_implemented("im2col / col2im for complex dtypes");
    else tn_kernel_missing(kname, dt);
    return -1;
}

/* im2col(self, kernel_size, dilation, padding, stride) */
PyObject *tn_op_im2col(tn_value *a) {
    const tn_tensor *x = TN_T(a[0]);
    int64_t k[2], d[2], pd[2], s[2];
    if (unfold_params(&a[1], k, d, pd, s) < 0) return NULL;
    if (tn_door_on_meta()) {   /* upstream's Python decomposition checks the shape, its own words */
        bool good = x->ndim == 3 || x->ndim == 4;
        for (int i = x->ndim - 3; good && i < x->ndim; i++) good = x->sizes[i] != 0;
        if (!good) {
            char b[256];
            size_t l = (size_t)snprintf(b, sizeof b, "(");
            for (int i = 0; i < x->ndim && l < sizeof b; i++)
                l += (size_t)snprintf(b + l, sizeof b - l, "%s%lld", i ? ", " : "", (long long)x->sizes[i]);
            if (l < sizeof b) snprintf(b + l, sizeof b - l, x->ndim == 1 ? ",)" : ")");
            PyErr_Format(PyExc_RuntimeError, "Expected 3D or 4D (batch mode) tensor for input with possible 0 batch size and "
                         "non-zero dimensions, but got: %s", b);
            return NULL;
        }
    }
    /* upstream reads input.size(1), then (when not 0) input.size(2) first (measured) */
    if (tn_size_read(x, 1) < 0 || (x->sizes[1] != 0 && tn_size_read(x, 2) < 0)) return NULL;
    bool batched = x->ndim == 4, ok = x->ndim == 3 || x->ndim == 4;
    for (int i = batched ? 1 : 0; ok && i < x->ndim; i++) ok = x->sizes[i] != 0;
    if (!ok) {
        char b[256];
        tn_shape_str(b, sizeof b, x->ndim, x->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other "
                     "non-zero dimensions for input, but got: %s", b);
        return NULL;
    }
    const int64_t N = batched ? x->sizes[0] : 1, C = x->sizes[x->ndim - 3], H = x->sizes[x->ndim - 2], W = x->sizes[x->ndim - 1];
    int64_t isz[2] = {H, W}, osz[2];
    for (int i = 0; i < 2; i++) osz[i] = sliding_blocks(isz[i], pd[i], d[i], k[i], s[i]);
    if (osz[0] < 1 || osz[1] < 1) {
        PyErr_Format(PyExc_RuntimeError, "Given input with spatial size (%lld, %lld), kernel_size=(%lld, %lld), "
                     "dilation=(%lld, %lld), padding=(%lld, %lld), calculated shape of the array of sliding blocks as "
                     "(%lld, %lld), but its components must be at least one.", (long long)H, (long long)W, (long long)k[0],
                     (long long)k[1], (long long)d[0], (long long)d[1], (long long)pd[0], (long long)pd[1],
                     (long long)osz[0], (long long)osz[1]);
        return NULL;
    }
    if (tn_dtype_is_complex(x->dtype) && x->dtype != TN_DTYPE_C32) {   /* upstream has no complex32 kernel */
        /* a gather: the real and imaginary parts unfold independently */
        PyObject *l[4], *re = NULL, *im = NULL, *ur = NULL, *ui = NULL, *r = NULL;
        int nl = 0;
        for (; nl < 4 && (l[nl] = tn_int_list(a[1 + nl].u.ints.v, a[1 + nl].u.ints.n)); nl++) {}
        if (nl == 4) re = tn_at_real(a[0].u.obj);
        if (re) im = tn_at_imag(a[0].u.obj);
        if (im) ur = tn_at_im2col(re, TN_IPY(l[0]), TN_IPY(l[1]), TN_IPY(l[2]), TN_IPY(l[3]));
        if (ur) ui = tn_at_im2col(im, TN_IPY(l[0]), TN_IPY(l[1]), TN_IPY(l[2]), TN_IPY(l[3]));
        if (ui) r = tn_at_complex(ur, ui);
        for (int i = 0; i < nl; i++) Py_DECREF(l[i]);
        Py_XDECREF(re); Py_XDECREF(im); Py_XDECREF(ur); Py_XDECREF(ui);
        return r;
    }
    tn_conv_type t;
    tn_dtype ct;
    /* bool: a gather of 0 / 1 values, exact through f32 */
    if (x->dtype == TN_DTYPE_BOOL) { t = TN_CONV_F32; ct = TN_DTYPE_F32; }
    else if (unfold_dtype("im2col_out_cpu", x->dtype, &t, &ct) < 0) return NULL;
    tn_conv_geom g = {0};
    geom2(&g, N, C, isz, osz, k, d, pd, s);
    int64_t rs[3] = {N, C * k[0] * k[1], osz[0] * osz[1]};
    PyObject *X = tn_as_dtype(a[0].u.obj, ct, true);
    PyObject *r = X ? tn_tensor_new_empty(3, rs, ct, TN_DEVICE_CPU) : NULL;
    if (r) {
        const char *xd = tn_data(tn_tensor_of(X));
        char *rd = tn_data(tn_tensor_of(r));
        size_t es = tn_dtype_itemsize(ct);
        for (int64_t n = 0; n < N; n++) tn_im2col(&g, t, C, xd + (size_t)(n * C * H * W) * es, rd + (size_t)(n * rs[1] * rs[2]) * es);
        if (!batched) {
            tn_tensor *rt = tn_tensor_of(r);
            rt->ndim = 2;
            rt->sizes[0] = rs[1];
            rt->sizes[1] = rs[2];
            tn_contiguous_strides(2, rt->sizes, rt->strides);
        }
    }
    Py_XDECREF(X);
    return finish(r, x->dtype, false);
}

/* col2im(self, output_size, kernel_size, dilation, padding, stride) */
PyObject *tn_op_col2im(tn_value *a) {
    const tn_tensor *x = TN_T(a[0]);
    int64_t o[2], k[2], d[2], pd[2], s[2];
    if (pair(&a[1], o, "output_size") < 0 || unfold_params(&a[2], k, d, pd, s) < 0) return NULL;
    bool batched = x->ndim == 3, ok = x->ndim == 2 || x->ndim == 3;
    for (int i = batched ? 1 : 0; ok && i < x->ndim; i++) ok = x->sizes[i] != 0;
    if (!ok) {
        char b[256];
        tn_shape_str(b, sizeof b, x->ndim, x->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and "
                     "non-zero dimensions for input, but got: %s", b);
        return NULL;
    }
    const int64_t N = batched ? x->sizes[0] : 1, rows = x->sizes[x->ndim - 2], L = x->sizes[x->ndim - 1];
    int64_t kk;
    if (__builtin_mul_overflow(k[0], k[1], &kk)) {
        PyErr_Format(PyExc_RuntimeError, "Given kernel_width = %lld and kernel_height = %lld the product of "
                     "kernel_width and kernel_height overflowed.", (long long)k[1], (long long)k[0]);
        return NULL;
    }
    if (rows % kk) {
        PyErr_Format(PyExc_RuntimeError, "Expected size of input's dimension 1 to be divisible by the product of "
                     "kernel_size, but got input.size(1)=%lld and kernel_size=(%lld, %lld).", (long long)rows,
                     (long long)k[0], (long long)k[1]);
        return NULL;
    }
    int64_t nb[2];
    for (int i = 0; i < 2; i++) nb[i] = sliding_blocks(o[i], pd[i], d[i], k[i], s[i]);
    /* the product as upstream's int64 arithmetic wraps it (printed in the message); an overflowing
     * product never matches a real size */
    int64_t blocks = (int64_t)((uint64_t)nb[0] * (uint64_t)nb[1]), exact;
    if (nb[0] < 1 || nb[1] < 1 || __builtin_mul_overflow(nb[0], nb[1], &exact) || exact != L) {
        PyErr_Format(PyExc_RuntimeError, "Given output_size=(%lld, %lld), kernel_size=(%lld, %lld), dilation=(%lld, %lld), "
                     "padding=(%lld, %lld), stride=(%lld, %lld), expected size of input's dimension 2 to match the "
                     "calculated number of sliding blocks %lld * %lld = %lld, but got input.size(2)=%lld.",
                     (long long)o[0], (long long)o[1], (long long)k[0], (long long)k[1], (long long)d[0], (long long)d[1],
                     (long long)pd[0], (long long)pd[1], (long long)s[0], (long long)s[1], (long long)nb[0],
                     (long long)nb[1], (long long)blocks, (long long)L);
        return NULL;
    }
    if (tn_dtype_is_complex(x->dtype) && x->dtype != TN_DTYPE_C32) {
        /* a scatter-add: the real and imaginary parts fold independently (bitwise upstream's, measured) */
        PyObject *l[5], *re = NULL, *im = NULL, *fr = NULL, *fi = NULL, *r = NULL;
        int nl = 0;
        for (; nl < 5 && (l[nl] = tn_int_list(a[1 + nl].u.ints.v, a[1 + nl].u.ints.n)); nl++) {}
        if (nl == 5) re = tn_at_real(a[0].u.obj);
        if (re) im = tn_at_imag(a[0].u.obj);
        if (im) fr = tn_at_col2im(re, TN_IPY(l[0]), TN_IPY(l[1]), TN_IPY(l[2]), TN_IPY(l[3]), TN_IPY(l[4]));
        if (fr) fi = tn_at_col2im(im, TN_IPY(l[0]), TN_IPY(l[1]), TN_IPY(l[2]), TN_IPY(l[3]), TN_IPY(l[4]));
        if (fi) r = tn_at_complex(fr, fi);
        for (int i = 0; i < nl; i++) Py_DECREF(l[i]);
        Py_XDECREF(re); Py_XDECREF(im); Py_XDECREF(fr); Py_XDECREF(fi);
        return r;
    }
    tn_conv_type t;
    tn_dtype ct;
    /* bool: upstream's += on bool is an or: the 0 / 1 sums in f32 (exact), cast back (nonzero) */
    if (x->dtype == TN_DTYPE_BOOL) { t = TN_CONV_F32; ct = TN_DTYPE_F32; }
    else if (unfold_dtype("col2im_out_cpu", x->dtype, &t, &ct) < 0) return NULL;
    const int64_t C = rows / (k[0] * k[1]);
    tn_conv_geom g = {0};
    geom2(&g, N, C, o, nb, k, d, pd, s);
    int64_t rs[4] = {N, C, o[0], o[1]};
    PyObject *X = tn_as_dtype(a[0].u.obj, ct, true);
    PyObject *r = X ? tn_tensor_new_empty(4, rs, ct, TN_DEVICE_CPU) : NULL;
    if (r) {
        const char *xd = tn_data(tn_tensor_of(X));
        char *rd = tn_data(tn_tensor_of(r));
        size_t es = tn_dtype_itemsize(ct);
        memset(rd, 0, (size_t)(N * C * o[0] * o[1]) * es);
        for (int64_t n = 0; n < N; n++) tn_col2im(&g, t, C, xd + (size_t)(n * rows * L) * es, rd + (size_t)(n * C * o[0] * o[1]) * es);
        if (!batched) {
            tn_tensor *rt = tn_tensor_of(r);
            rt->ndim = 3;
            memmove(rt->sizes, rt->sizes + 1, 3 * sizeof *rt->sizes);
            tn_contiguous_strides(3, rt->sizes, rt->strides);
        }
    }
    Py_XDECREF(X);
    return finish(r, x->dtype, false);
}
