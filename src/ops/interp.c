/* ops/interp.c — interpolation: upsample_nearest{1,2,3}d, _upsample_nearest_exact{1,2,3}d,
 * upsample_linear1d, upsample_bilinear2d, upsample_trilinear3d, upsample_bicubic2d, their
 * _backward ops, and the .vec composites (output size from scale factors, then the op).
 *
 * Upstream chooses among kernels by layout and size, and their index / weight formulas differ;
 * each is reproduced: the generic kernel (weights in the tensor's dtype, nearest indices from
 * the compute-type scale), the channels-last kernel (nearest_idx with its float scale and
 * special cases; linear weights multiplied out in the compute type), and the backward kernels
 * (nearest_idx; compute-type weights, accumulated in f32 for f16 / bf16). Index and weight
 * arithmetic carries the fused multiply-adds upstream's AVX2 / AVX-512 builds form (measured bit
 * for bit on torch 2.13.0); see kernels/ref/pool.c for the sums. */
#include "autograd/autograd.h"
#include "core/dtype.h"
#include "core/parallel.h"
#include "kernels/pool.h"
#include "ops/common.h"
#include "ops/pool.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdio.h>

typedef enum { K_NEAREST, K_NEAREST_EXACT, K_LINEAR, K_CUBIC } ikind;

/* ---------------------------------------------------------------- index / weight tables */

static bool has_scale(const tn_value *s) { return s && (s->tag == TN_V_FLOAT || s->tag == TN_V_INT) && tn_value_as_double(s) > 0.; }

#define TABLES(SUF, T, FMA)                                                                             \
    static T scale_##SUF(int64_t I, int64_t O, bool align, const tn_value *s) {                         \
        if (align) return O > 1 ? (T)(I - 1) / (T)(O - 1) : (T)0;                                       \
        if (has_scale(s)) return (T)(1.0 / tn_value_as_double(s));                                      \
        return (T)I / (T)O;                                                                             \
    }                                                                                                   \
    /* a * b + c, fused as upstream's kernels under FMA contraction, or not (its files built      \
     * without it: the bicubic backward) */                                                         \
    static T mad_##SUF(T a, T b, T c, bool fused) { return fused ? FMA(a, b, c) : a * b + c; }         \
    static T src_##SUF(T scale, int64_t i, bool align, bool cubic, bool fu) {                          \
        if (align) return scale * (T)i;                                                                 \
        T r = mad_##SUF(scale, (T)i + (T)0.5, (T)-0.5, fu);                                             \
        return (!cubic && r < (T)0) ? (T)0 : r;                                                         \
    }                                                                                                   \
    /* upstream's guard_index_and_lambda */                                                             \
    static int64_t guard_##SUF(T r, int64_t I, T *lambda) {                                             \
        int64_t i = (int64_t)floorf((float)r);                                                          \
        if (i > I - 1) i = I - 1;                                                                       \
        T l = r - (T)i;                                                                                 \
        *lambda = l < (T)0 ? (T)0 : l > (T)1 ? (T)1 : l;                                                \
        return i;                                                                                       \
    }                                                                                                   \
    /* upstream's cubic_convolution1 / 2, with the contractions its build forms (the last step is \
     * not fused in either) */                                                                      \
    static T cc1_##SUF(T x, T A, bool fu) { return mad_##SUF(A + 2, x, -(A + 3), fu) * x * x + 1; }       \
    static T cc2_##SUF(T x, T A, bool fu) {                                                             \
        return mad_##SUF(mad_##SUF(A, x, -5 * A, fu), x, 8 * A, fu) * x - 4 * A;                        \
    }                                                                                                   \
    /* upstream's get_cubic_upsample_coefficients */                                                    \
    static void cubic_##SUF(T t, T *c, bool fu) {                                                       \
        T A = (T)-0.75, x2 = (T)(1.0 - t);                                                              \
        c[0] = cc2_##SUF((T)(t + 1.0), A, fu);                                                          \
        c[1] = cc1_##SUF(t, A, fu);                                                                     \
        c[2] = cc1_##SUF(x2, A, fu);                                                                    \
        c[3] = cc2_##SUF((T)(x2 + 1.0), A, fu);                                                         \
    }                                                                                                   \
    /* one dim's table. rnd: round weights to the tensor's dtype (upstream's generic kernel        \
     * stores them in it); nearest_cl: upstream's nearest_idx / nearest_exact_idx instead of the   \
     * generic kernel's indices. */                                                                 \
    static void table_##SUF(ikind k, int64_t I, int64_t O, bool align, const tn_value *s, int rnd,      \
                            bool nearest_cl, bool fu, int64_t *idx, double *w) {                        \
        T scale = scale_##SUF(I, O, align, s);                                                          \
        for (int64_t o = 0; o < O; o++) {                                                               \
            if (k == K_NEAREST || k == K_NEAREST_EXACT) {                                               \
                int64_t i;                                                                              \
                if (nearest_cl) {                                                                       \
                    float f = has_scale(s) ? (float)(1.0 / tn_value_as_double(s)) : (float)I / (float)O; \
                    if (k == K_NEAREST_EXACT) i = (int64_t)floorf((float)(((double)o + 0.5) * (double)f)); \
                    else if (O == I) i = o;                                                             \
                    else if (O == 2 * I) i = o >> 1;                                                    \
                    else i = (int64_t)floorf((float)o * f);                                             \
                } else if (k == K_NEAREST) {                                                            \
                    i = (int64_t)floorf((float)(scale * (T)o));                                         \
                } else {                                                                                \
                    i = (int64_t)floorf((float)((double)src_##SUF(scale, o, false, false, fu) + 0.5));      \
                }                                                                                       \
                idx[o] = i < I - 1 ? i : I - 1;                                                         \
            } else if (k == K_LINEAR) {                                                                 \
                int64_t i0 = o, i1 = o;                                                                 \
                T l0 = 1, l1 = 0;                                                                       \
                if (O != I) {                                                                           \
                    i0 = guard_##SUF(src_##SUF(scale, o, align, false, fu), I, &l1);                        \
                    i1 = i0 + (i0 < I - 1 ? 1 : 0);                                                     \
                    l1 = (T)round_w(l1, rnd);                                                           \
                    l0 = (T)1 - l1;                                                                     \
                }                                                                                       \
                idx[2 * o] = i0;                                                                        \
                idx[2 * o + 1] = i1;                                                                    \
                w[2 * o] = round_w(l0, rnd);                                                            \
                w[2 * o + 1] = l1;                                                                      \
            } else {                                                                                    \
                T t, c[4];                                                                              \
                int64_t i = guard_##SUF(src_##SUF(scale, o, align, true, fu), I, &t);                   \
                cubic_##SUF(t, c, fu);                                                                  \
                for (int j = 0; j < 4; j++) {                                                           \
                    int64_t q = i + j - 1;                                                              \
                    q = q < I - 1 ? q : I - 1;                                                          \
                    idx[4 * o + j] = q > 0 ? q : 0;                                                     \
                    w[4 * o + j] = round_w(c[j], rnd);                                                  \
                }                                                                                       \
            }                                                                                           \
        }                                                                                               \
    }

/* a weight stored in the tensor's dtype (rnd 1 bf16, 2 f16), as a double */
static double round_w(double v, int rnd) {
    if (rnd == 1) return tn_bf16_to_f32(tn_f32_to_bf16((float)v));
    if (rnd == 2) return tn_f16_to_f32(tn_f32_to_f16((float)v));
    return v;
}

TABLES(f32, float, fmaf)
TABLES(f64, double, fma)

static int taps_of(ikind k) { return k == K_LINEAR ? 2 : k == K_CUBIC ? 4 : 1; }

typedef struct {
    tn_interp_plan p;
    int64_t *ibuf;
    double *wbuf;
} iplan;

/* Build the plan for nd real dims, input spatial sizes isz[nd], output osz[nd]. */
static int plan_build(iplan *b, ikind k, int nd, int64_t planes, const int64_t *isz, const int64_t *osz, bool align,
                      const tn_value *const *scales, bool dbl, int rnd, bool nearest_cl, bool fused) {
    memset(b, 0, sizeof *b);
    int K = taps_of(k);
    int64_t tot = 3;
    for (int d = 0; d < nd; d++) tot += osz[d] * K;
    b->ibuf = PyMem_Malloc((size_t)tot * sizeof(int64_t));
    b->wbuf = PyMem_Malloc((size_t)tot * sizeof(double));
    if (!b->ibuf || !b->wbuf) {
        PyMem_Free(b->ibuf);
        PyMem_Free(b->wbuf);
        b->ibuf = NULL;
        b->wbuf = NULL;
        PyErr_NoMemory();
        return -1;
    }
    int64_t *iw = b->ibuf;
    double *ww = b->wbuf;
    b->p.planes = planes;
    b->p.nd = nd;
    b->p.taps = K;
    b->p.order = TN_FWD_NESTED;
    for (int d = 0; d < 3; d++) {
        int r = d - (3 - nd);   /* real dim index, < 0: a leading dummy dim */
        if (r < 0) {
            b->p.in[d] = b->p.out[d] = 1;
            *iw = 0;
            *ww = 1;
            b->p.idx[d] = iw++;
            b->p.w[d] = ww++;
            continue;
        }
        b->p.in[d] = isz[r];
        b->p.out[d] = osz[r];
        if (dbl) table_f64(k, isz[r], osz[r], align, scales[r], 0, nearest_cl, fused, iw, ww);
        else table_f32(k, isz[r], osz[r], align, scales[r], rnd, nearest_cl, fused, iw, ww);
        b->p.idx[d] = iw;
        b->p.w[d] = K > 1 ? ww : NULL;
        iw += osz[r] * K;
        ww += osz[r] * K;
    }
    return 0;
}

static void plan_free(iplan *b) {
    PyMem_Free(b->ibuf);
    PyMem_Free(b->wbuf);
}

/* ---------------------------------------------------------------- the operators */

typedef struct {
    ikind kind;
    int nd;
    const char *name;      /* upsample_nearest2d, ... */
} iop;

static const char *const AXES[3][3] = {{"W"}, {"H", "W"}, {"D", "H", "W"}};

/* upstream's upsample_{1,2,3}d_common_check */
static int common_check(int nd, int in_n, const int64_t *in, int out_n, const int64_t *out) {
    if (out_n != nd) {
        PyErr_Format(PyExc_RuntimeError, "It is expected output_size equals to %d, but got size %d", nd, out_n);
        return -1;
    }
    if (in_n != nd + 2) {
        PyErr_Format(PyExc_RuntimeError, "It is expected input_size equals to %d, but got size %d", nd + 2, in_n);
        return -1;
    }
    bool ok = true;
    for (int d = 0; d < nd; d++) ok = ok && in[2 + d] > 0 && out[d] > 0;
    if (ok) return 0;
    char a[128] = "", b[128] = "";
    size_t la = 0, lb = 0;
    for (int d = 0; d < nd; d++) {
        la += (size_t)snprintf(a + la, sizeof a - la, "%s%s: %lld", d ? ", " : "", AXES[nd - 1][d], (long long)in[2 + d]);
        lb += (size_t)snprintf(b + lb, sizeof b - lb, "%s%s: %lld", d ? ", " : "", AXES[nd - 1][d], (long long)out[d]);
    }
    PyErr_Format(PyExc_RuntimeError, "Input and output sizes should be greater than 0, but got input (%s) output (%s)", a, b);
    return -1;
}

static bool cl_contiguous(const tn_tensor *t) {
    int nd = t->ndim;
    if (nd != 4 && nd != 5) return false;
    int64_t acc = 1;
    int order[5] = {1, nd - 1, nd - 2, nd == 5 ? 2 : 0, 0};
    for (int i = 0; i < nd; i++) {
        int d = order[i];
        if (t->sizes[d] != 1 && t->strides[d] != acc) return false;
        acc *= t->sizes[d];
    }
    return true;
}

/* the forward ops' argument checks: upstream's upsample_{1,2,3}d_common_check and its non-empty
 * check */
static int fwd_check(int nd, const tn_tensor *t, int on, const int64_t *osz) {
    if (common_check(nd, t->ndim, t->sizes, on, osz) < 0) return -1;
    bool empty_ok = true;
    for (int d = 1; d < t->ndim; d++) empty_ok = empty_ok && t->sizes[d] != 0;
    if (empty_ok) return 0;
    char sh[256];
    tn_shape_str(sh, sizeof sh, t->ndim, t->sizes);
    PyErr_Format(PyExc_RuntimeError, "Non-empty %dD data tensor expected but got a tensor with sizes %s", nd + 2, sh);
    return -1;
}

/* the backward ops' argument checks (upstream's meta functions) */
static int bwd_check(int nd, const tn_tensor *g, int in_n, const int64_t *isz, int on, const int64_t *osz) {
    if (common_check(nd, in_n, isz, on, osz) < 0) return -1;
    if (g->ndim != nd + 2) {
        PyErr_Format(PyExc_RuntimeError, "Expected grad_output to be a tensor of dimension %d but got: dimension %d", nd + 2, g->ndim);
        return -1;
    }
    for (int i = 0; i < nd + 2; i++) {
        int64_t want = i < 2 ? isz[i] : osz[i - 2];
        if (g->sizes[i] != want) {
            PyErr_Format(PyExc_RuntimeError, "Expected grad_output to have the same shape as output; output.size(%d) = %lld but got "
                         "grad_output.size(%d) = %lld", i, (long long)want, i, (long long)g->sizes[i]);
            return -1;
        }
    }
    for (int i = 0; i < 2; i++)
        if (isz[i] < 0) {
            PyErr_SetString(PyExc_RuntimeError, "Trying to create tensor with negative dimension");
            return -1;
        }
    return 0;
}

/* the width in elements of the vector loop of upstream's channels-last linear kernel: 32 bytes
 * (measured: an f64 tensor of 5 channels takes channels 0-3 through it on an AVX-512 host) */
static int64_t vec_width(tn_dtype dt) { return 32 / tn_dtype_itemsize(dt); }

/* forward: a = (self, output_size, [align_corners], scales...) */
static PyObject *separable_resize(PyObject *self, const int64_t *osz, bool cubic, bool aa, bool align,
                                  const tn_value *sh, const tn_value *sw);

/* One output size as the decompositions take it: its scale (in / out divides by zero without
 * align_corners or a positive scale), then arange(out), which refuses a negative size. */
static int meta_decomp_size(int64_t in, int64_t out, bool align, const tn_value *scale) {
    (void)in;
    if (!align && !has_scale(scale) && out == 0) {
        PyErr_SetString(PyExc_ZeroDivisionError, "division by zero");
        return -1;
    }
    if (out < 0) {
        PyErr_SetString(PyExc_RuntimeError, "upper bound and lower bound inconsistent with step sign");
        return -1;
    }
    return 0;
}

/* On meta, upstream's Meta kernel of the linear / bicubic forward ops is a Python decomposition
 * without argument checks: it unpacks the input's shape first, and the rank errors are Python's
 * (docs/breadth_more2.md "group meta (session 40)"). The linear ones read size(1), then zip the
 * spatial sizes with output_size and unpack the result in threes, each size's scale and arange
 * first; bicubic unpacks four sizes, then takes output_size[0] and [1]'s scales, then their
 * aranges. Only these refusals are taken: what the decomposition accepts goes to the checks
 * below (its results for other ranks are not reproduced). */
static int meta_decomp_check(const iop *op, const tn_tensor *t, int on, const int64_t *osz, bool align,
                             const tn_value *const *scales) {
    if (op->kind == K_CUBIC) {
        if (t->ndim != 4) return tn_py_unpack_error(4, t->ndim);
        for (int d = 0; d < 2; d++) {
            if (on <= d) {
                PyErr_SetString(PyExc_IndexError, "list index out of range");
                return -1;
            }
            if (meta_decomp_size(t->sizes[2 + d], osz[d], align, scales[d]) < 0 && PyErr_ExceptionMatches(PyExc_ZeroDivisionError))
                return -1;
            PyErr_Clear();
        }
        for (int d = 0; d < 2; d++)
            if (osz[d] < 0) return meta_decomp_size(t->sizes[2 + d], osz[d], true, scales[d]);
        return 0;
    }
    if (op->kind != K_LINEAR) return 0;
    if (t->ndim < 2) {
        PyErr_SetString(PyExc_IndexError, "tuple index out of range");
        return -1;
    }
    int n = t->ndim - 2, k = n < on ? n : on;
    if (k > op->nd) k = op->nd;
    if (k == 0) {
        PyErr_SetString(PyExc_ValueError, "not enough values to unpack (expected 3, got 0)");
        return -1;
    }
    for (int d = 0; d < k; d++)
        if (meta_decomp_size(t->sizes[2 + d], osz[d], align, scales[d]) < 0) return -1;
    if (k < n) {   /* the corner loop indexes one per spatial dim */
        PyErr_SetString(PyExc_IndexError, "tuple index out of range");
        return -1;
    }
    return 0;
}

static PyObject *interp_fwd(const iop *op, tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    int nd = op->nd;
    bool lin = op->kind == K_LINEAR || op->kind == K_CUBIC;
    bool align = lin && a[2].u.i != 0;
    const tn_value *scales[3];
    for (int d = 0; d < nd; d++) scales[d] = &a[(lin ? 3 : 2) + d];
    int on = a[1].u.ints.n;
    const int64_t *osz = a[1].u.ints.v;
    if (lin && tn_door_on_meta() && meta_decomp_check(op, t, on, osz, align, scales) < 0) return NULL;
    if (fwd_check(nd, t, on, osz) < 0) return NULL;
    int64_t out_sizes[5] = {t->sizes[0], t->sizes[1]};
    for (int d = 0; d < nd; d++) out_sizes[2 + d] = osz[d];
    int fmt = tn_suggest_format(t);
    tn_dtype dt = t->dtype;
    int64_t C = t->sizes[1];
    /* upstream's choice of kernel */
    bool cl = false;
    if (nd == 2 && op->kind != K_CUBIC)
        cl = (cl_contiguous(t) && C > 3) || osz[0] + osz[1] <= 128 ||
             (op->kind == K_LINEAR && tn_get_num_threads() == 1 && C == 3);
    if (nd == 3 && op->kind != K_CUBIC) cl = cl_contiguous(t) && C > 3;
    bool floaty = tn_nn_float(dt);
    /* uint8 bilinear / bicubic: upstream's integer separable path (antialiased section below) */
    if (dt == TN_DTYPE_U8 && lin && nd == 2)
        return separable_resize(a[0].u.obj, osz, op->kind == K_CUBIC, false, align, scales[0], scales[1]);
    if (!floaty && !(dt == TN_DTYPE_U8 && !lin)) {
        const char *kn = op->kind == K_LINEAR ? (cl ? (nd == 2 ? "upsample_bilinear2d_channels_last" : "upsample_trilinear3d_channels_last")
                                                    : "compute_indices_weights_linear")
                         : op->kind == K_CUBIC ? "compute_indices_weights_cubic"
                         : cl ? (nd == 2 ? "upsample_nearest2d_channels_last" : "upsample_nearest3d_channels_last")
                              : "compute_indices_weights_nearest";
        return tn_kernel_missing(kn, dt);
    }
    if (tn_numel(t) == 0) return tn_pool_new(nd + 2, out_sizes, dt, fmt);
    tn_dtype ct = lin ? tn_nn_compute(dt) : dt;
    int rnd = dt == TN_DTYPE_BF16 ? 1 : dt == TN_DTYPE_F16 ? 2 : 0;
    PyObject *x = tn_as_dtype(a[0].u.obj, ct, true);
    PyObject *r = x ? tn_tensor_new_empty(nd + 2, out_sizes, ct, TN_DEVICE_CPU) : NULL;
    iplan b;
    if (r && plan_build(&b, op->kind, nd, t->sizes[0] * C, t->sizes + 2, osz, align, scales, ct == TN_DTYPE_F64,
                        cl ? 0 : rnd, cl, true) == 0) {
        if (cl && op->kind == K_LINEAR) {
            b.p.order = TN_FWD_PRODUCT;
            b.p.channels = C;
            int64_t V = vec_width(dt);
            b.p.vec_planes = C - C % V;
            b.p.reduced = dt == TN_DTYPE_BF16 ? 1 : dt == TN_DTYPE_F16 ? 2 : 0;
        }
        const void *in = tn_data(tn_tensor_of(x));
        void *out = tn_data(tn_tensor_of(r));
        Py_BEGIN_ALLOW_THREADS
        if (!lin) tn_interp_nearest(&b.p, in, out, tn_dtype_itemsize(ct));
        else if (ct == TN_DTYPE_F64) tn_interp_f64(&b.p, in, out);
        else tn_interp_f32(&b.p, in, out);
        Py_END_ALLOW_THREADS
        plan_free(&b);
    } else {
        Py_CLEAR(r);
    }
    Py_XDECREF(x);
    if (!r) return NULL;
    if (tn_tensor_of(r)->dtype == dt && !fmt) return r;
    PyObject *o = tn_pool_new(nd + 2, out_sizes, dt, fmt);
    if (o && tn_copy_into(o, r) < 0) Py_CLEAR(o);
    Py_DECREF(r);
    return o;
}

/* backward: a = (grad_output, output_size, input_size, [align_corners], scales...) */
static PyObject *interp_bwd(const iop *op, tn_value *a) {
    tn_tensor *g = TN_T(a[0]);
    int nd = op->nd;
    bool lin = op->kind == K_LINEAR || op->kind == K_CUBIC;
    bool align = lin && a[3].u.i != 0;
    const tn_value *scales[3];
    for (int d = 0; d < nd; d++) scales[d] = &a[(lin ? 4 : 3) + d];
    int on = a[1].u.ints.n, in_n = a[2].u.ints.n;
    const int64_t *osz = a[1].u.ints.v, *isz = a[2].u.ints.v;
    if (bwd_check(nd, g, in_n, isz, on, osz) < 0) return NULL;
    tn_dtype dt = g->dtype;
    int fmt = tn_suggest_format(g);
    if (!tn_nn_float(dt)) {
        char kn[64];
        snprintf(kn, sizeof kn, "%s_backward", op->name);
        return tn_kernel_missing(kn, dt);
    }
    tn_dtype ct = tn_nn_compute(dt);
    int64_t in_sizes[5];
    for (int i = 0; i < nd + 2; i++) in_sizes[i] = isz[i];
    PyObject *gc = tn_as_dtype(a[0].u.obj, ct, true);
    PyObject *r = gc ? tn_tensor_new_empty(nd + 2, in_sizes, ct, TN_DEVICE_CPU) : NULL;
    iplan b;
    if (r && plan_build(&b, op->kind, nd, isz[0] * isz[1], isz + 2, osz, align, scales, ct == TN_DTYPE_F64, 0, true,
                        op->kind != K_CUBIC) == 0) {
        if (tn_numel(tn_tensor_of(r)) > 0) {
            const void *gv = tn_data(tn_tensor_of(gc));
            void *gi = tn_data(tn_tensor_of(r));
            Py_BEGIN_ALLOW_THREADS
            if (ct == TN_DTYPE_F64) tn_interp_f64_bwd(&b.p, gv, gi);
            else tn_interp_f32_bwd(&b.p, gv, gi);
            Py_END_ALLOW_THREADS
        }
        plan_free(&b);
    } else {
        Py_CLEAR(r);
    }
    Py_XDECREF(gc);
    if (!r) return NULL;
    if (dt == ct && !fmt) return r;
    PyObject *o = tn_pool_new(nd + 2, in_sizes, dt, fmt);
    if (o && tn_copy_into(o, r) < 0) Py_CLEAR(o);
    Py_DECREF(r);
    return o;
}

static const iop OP_N1 = {K_NEAREST, 1, "upsample_nearest1d"}, OP_N2 = {K_NEAREST, 2, "upsample_nearest2d"},
                 OP_N3 = {K_NEAREST, 3, "upsample_nearest3d"}, OP_E1 = {K_NEAREST_EXACT, 1, "_upsample_nearest_exact1d"},
                 OP_E2 = {K_NEAREST_EXACT, 2, "_upsample_nearest_exact2d"}, OP_E3 = {K_NEAREST_EXACT, 3, "_upsample_nearest_exact3d"},
                 OP_L1 = {K_LINEAR, 1, "upsample_linear1d"}, OP_L2 = {K_LINEAR, 2, "upsample_bilinear2d"},
                 OP_L3 = {K_LINEAR, 3, "upsample_trilinear3d"}, OP_C2 = {K_CUBIC, 2, "upsample_bicubic2d"};

PyObject *tn_op_upsample_nearest1d(tn_value *a) { return interp_fwd(&OP_N1, a); }
PyObject *tn_op_upsample_nearest2d(tn_value *a) { return interp_fwd(&OP_N2, a); }
PyObject *tn_op_upsample_nearest3d(tn_value *a) { return interp_fwd(&OP_N3, a); }
PyObject *tn_op__upsample_nearest_exact1d(tn_value *a) { return interp_fwd(&OP_E1, a); }
PyObject *tn_op__upsample_nearest_exact2d(tn_value *a) { return interp_fwd(&OP_E2, a); }
PyObject *tn_op__upsample_nearest_exact3d(tn_value *a) { return interp_fwd(&OP_E3, a); }
PyObject *tn_op_upsample_linear1d(tn_value *a) { return interp_fwd(&OP_L1, a); }
PyObject *tn_op_upsample_bilinear2d(tn_value *a) { return interp_fwd(&OP_L2, a); }
PyObject *tn_op_upsample_trilinear3d(tn_value *a) { return interp_fwd(&OP_L3, a); }
PyObject *tn_op_upsample_bicubic2d(tn_value *a) { return interp_fwd(&OP_C2, a); }
PyObject *tn_op_upsample_nearest1d_backward(tn_value *a) { return interp_bwd(&OP_N1, a); }
PyObject *tn_op_upsample_nearest2d_backward(tn_value *a) { return interp_bwd(&OP_N2, a); }
PyObject *tn_op_upsample_nearest3d_backward(tn_value *a) { return interp_bwd(&OP_N3, a); }
PyObject *tn_op__upsample_nearest_exact1d_backward(tn_value *a) { return interp_bwd(&OP_E1, a); }
PyObject *tn_op__upsample_nearest_exact2d_backward(tn_value *a) { return interp_bwd(&OP_E2, a); }
PyObject *tn_op__upsample_nearest_exact3d_backward(tn_value *a) { return interp_bwd(&OP_E3, a); }
PyObject *tn_op_upsample_linear1d_backward(tn_value *a) { return interp_bwd(&OP_L1, a); }
PyObject *tn_op_upsample_bilinear2d_backward(tn_value *a) { return interp_bwd(&OP_L2, a); }
PyObject *tn_op_upsample_trilinear3d_backward(tn_value *a) { return interp_bwd(&OP_L3, a); }
PyObject *tn_op_upsample_bicubic2d_backward(tn_value *a) { return interp_bwd(&OP_C2, a); }

/* ---------------------------------------------------------------- antialiased (_upsample_*2d_aa)
 * Upstream's separable kernel (f32 / f64): per dim a PIL-style window of inputs around each
 * output's centre, triangle (bilinear) or Keys a = -0.5 (bicubic) filter stretched by the scale
 * when downsampling, weights normalised to sum 1, all in the data's type; the last dim is resized
 * first, then H. The arithmetic keeps upstream's mixed float / double steps (its `center`,
 * `support` and filter argument round through double). */
#define AA_TABLES(SUF, T, FMA)                                                                          \
    /* Keys' cubic (a = -0.5 antialiased, -0.75 in the uint8 plain path); unlike the plain bicubic's \
     * kernel, every step is fused in upstream's build */                                               \
    static T aa_filter_##SUF(T x, bool cubic, T A) {                                                     \
        x = x < 0 ? -x : x;                                                                             \
        if (!cubic) return x < 1.0 ? (T)(1.0 - x) : (T)0;                                               \
        if (x < 1.0) return FMA(FMA(A + 2, x, -(A + 3)) * x, x, (T)1);                                  \
        if (x < 2.0) return FMA(FMA(FMA(A, x, -5 * A), x, 8 * A), x, -4 * A);                           \
        return (T)0;                                                                                    \
    }                                                                                                   \
    static T aa_support_##SUF(T scale, bool cubic) {                                                    \
        double half = cubic ? 2.0 : 1.0;                                                                \
        return scale >= 1.0 ? (T)(half * (double)scale) : (T)half;                                      \
    }                                                                                                   \
    static void aa_table_##SUF(bool cubic, int64_t I, int64_t O, T scale, int64_t width, int64_t *xmin,  \
                               int64_t *xsize, T *w) {                                                  \
        T support = aa_support_##SUF(scale, cubic);                                                     \
        T inv = (T)(scale >= 1.0 ? 1.0 / (double)scale : 1.0);                                          \
        for (int64_t i = 0; i < O; i++) {                                                               \
            T center = (T)((double)scale * ((double)i + 0.5)), total = 0, *wi = w + i * width;          \
            int64_t lo = (int64_t)((double)(center - support) + 0.5), hi;                               \
            lo = lo > 0 ? lo : 0;                                                                       \
            hi = (int64_t)((double)(center + support) + 0.5);                                           \
            int64_t n = (hi < I ? hi : I) - lo;                                                         \
            n = n < 0 ? 0 : n > width ? width : n;                                                      \
            int64_t j = 0;                                                                              \
            for (; j < n; j++) {                                                                        \
                wi[j] = aa_filter_##SUF((T)(((double)((T)(j + lo) - center) + 0.5) * (double)inv), cubic, (T)-0.5); \
                total += wi[j];                                                                         \
            }                                                                                           \
            if (total != 0)                                                                             \
                for (j = 0; j < n; j++) wi[j] /= total;                                                 \
            for (; j < width; j++) wi[j] = 0;                                                           \
            xmin[i] = lo;                                                                               \
            xsize[i] = n;                                                                               \
        }                                                                                               \
    }
AA_TABLES(f32, float, fmaf)
AA_TABLES(f64, double, fma)

/* The plain (not antialiased) kernel's taps as upstream's uint8 path weighs them (its
 * _compute_indices_min_size_weights): 2 (linear) or 4 (cubic, Keys a = -0.75) filter values around
 * the source index, taps outside the input folded onto the edge tap. Returns the largest weight
 * seen while accumulating, as upstream's precision rule takes it. */
static double u8_plain_table(bool cubic, int64_t I, int64_t O, double scale, bool align, int64_t *xmin,
                             int64_t *xsize, double *w) {
    int64_t width = cubic ? 4 : 2, support = width / 2;
    double wmax = 0;
    for (int64_t i = 0; i < O; i++) {
        double lambda, *wi = w + i * width;
        int64_t idx = guard_f64(src_f64(scale, i, align, cubic, true), I, &lambda);
        int64_t umin = idx - support + 1, umax = idx + support + 1;
        int64_t lo = umin > 0 ? umin : 0, n = (umax < I ? umax : I) - lo;
        n = n < 1 ? 1 : n > width ? width : n;   /* >= 1: the input is not empty */
        for (int64_t j = 0, k = 0; j < width; j++, k++) {
            wi[j] = 0;
            if (umin + j <= 0) k = 0;
            else if (umin + j >= I - 1) k = n - 1;
            wi[k] += aa_filter_f64((double)(j + 1 - support) - lambda, cubic, -0.75);
            wmax = wi[k] > wmax ? wi[k] : wmax;
        }
        xmin[i] = lo;
        xsize[i] = n;
    }
    return wmax;
}

/* upstream's int16 weights: the largest precision p < 22 with round(2 * wmax * 2**p) < 2**15, each
 * weight rounded half away from zero at 2**p; converted in place (an int16 is written at or
 * before the double it comes from). Returns p. */
static int u8_int16_weights(double *w, int64_t n, double wmax) {
    int p;
    for (p = 0; p < 22; p++)
        if ((int)(0.5 + wmax * (double)(1 << (p + 1))) >= (1 << 15)) break;
    int16_t *k = (int16_t *)w;
    for (int64_t i = 0; i < n; i++) {
        double v = w[i] * (double)(1 << p);
        k[i] = (int16_t)(v < 0 ? (int)(-0.5 + v) : (int)(0.5 + v));
    }
    return p;
}

/* one dim's window table: xmin / xsize / weights in one allocation (weights of the data's type;
 * for uint8, upstream's double weights turned into int16 at precision `prec`) */
typedef struct {
    tn_aa_plan p;
    int prec;
    void *buf;
} aa_dim;

static int aa_dim_build(aa_dim *d, bool cubic, tn_dtype dt, bool aa, int64_t I, int64_t O, bool align, const tn_value *s) {
    bool dbl = dt != TN_DTYPE_F32;   /* float64, and uint8's double weights */
    int64_t width;
    if (!aa) width = cubic ? 4 : 2;
    else if (dbl) width = (int64_t)ceil(aa_support_f64(scale_f64(I, O, align, s), cubic)) * 2 + 1;
    else width = (int64_t)ceilf(aa_support_f32(scale_f32(I, O, align, s), cubic)) * 2 + 1;
    size_t wsz = dbl ? sizeof(double) : sizeof(float);
    d->buf = PyMem_Malloc((size_t)O * (2 * sizeof(int64_t) + (size_t)width * wsz) + 1);
    if (!d->buf) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t *xmin = d->buf, *xsize = xmin + O;
    void *w = xsize + O;
    double wmax = 0;
    if (!aa) wmax = u8_plain_table(cubic, I, O, scale_f64(I, O, align, s), align, xmin, xsize, w);
    else if (dbl) aa_table_f64(cubic, I, O, scale_f64(I, O, align, s), width, xmin, xsize, w);
    else aa_table_f32(cubic, I, O, scale_f32(I, O, align, s), width, xmin, xsize, w);
    if (aa && dt == TN_DTYPE_U8)
        for (int64_t i = 0; i < O * width; i++) wmax = ((double *)w)[i] > wmax ? ((double *)w)[i] : wmax;
    d->prec = dt == TN_DTYPE_U8 ? u8_int16_weights(w, O * width, wmax) : 0;
    d->p = (tn_aa_plan){.in_n = I, .out_n = O, .xmin = xmin, .xsize = xsize, .width = width, .w = w};
    return 0;
}

/* one pass over dim `dim` (2: H, 3: W) of a contiguous (N, C, H, W) tensor x into sizes `to` */
static PyObject *aa_pass(PyObject *x, int dim, const int64_t *to, bool cubic, bool aa, bool align, const tn_value *s) {
    const tn_tensor *t = tn_tensor_of(x);
    tn_dtype dt = t->dtype;
    aa_dim d;
    if (aa_dim_build(&d, cubic, dt, aa, t->sizes[dim], to[dim], align, s) < 0) return NULL;
    d.p.outer = dim == 3 ? t->sizes[0] * t->sizes[1] * t->sizes[2] : t->sizes[0] * t->sizes[1];
    d.p.inner = dim == 3 ? 1 : t->sizes[3];
    PyObject *r = tn_tensor_new_empty(4, to, dt, TN_DEVICE_CPU);
    if (r) {
        const void *in = tn_data(t);
        void *out = tn_data(tn_tensor_of(r));
        Py_BEGIN_ALLOW_THREADS
        if (dt == TN_DTYPE_U8) tn_interp_aa_u8(&d.p, d.prec, in, out);
        else if (dt == TN_DTYPE_F64) tn_interp_aa_f64(&d.p, in, out);
        else tn_interp_aa_f32(&d.p, in, out);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(d.buf);
    return r;
}

/* Separable resize of a 4-d tensor: W, then H, each only when its size changes (upstream's
 * separable kernels, and its uint8 AVX2 one, skip such a dim); the result in the input's
 * suggested layout. sh / sw: the scales. */
static PyObject *separable_resize(PyObject *self, const int64_t *osz, bool cubic, bool aa, bool align,
                                  const tn_value *sh, const tn_value *sw) {
    const tn_tensor *t = tn_tensor_of(self);
    tn_dtype dt = t->dtype;
    int64_t out_sizes[4] = {t->sizes[0], t->sizes[1], osz[0], osz[1]}, mid[4] = {t->sizes[0], t->sizes[1], t->sizes[2], osz[1]};
    int fmt = tn_suggest_format(t);
    if (tn_numel(t) == 0) return tn_pool_new(4, out_sizes, dt, fmt);
    PyObject *x = tn_as_dtype(self, dt, true), *r = x;
    if (r && osz[1] != t->sizes[3]) {
        r = aa_pass(x, 3, mid, cubic, aa, align, sw);
        Py_DECREF(x);
        x = r;
    }
    if (r && osz[0] != t->sizes[2]) {
        r = aa_pass(x, 2, out_sizes, cubic, aa, align, sh);
        Py_DECREF(x);
    }
    if (!r) return NULL;
    PyObject *o = tn_pool_new(4, out_sizes, dt, fmt);
    if (o && tn_copy_into(o, r) < 0) Py_CLEAR(o);
    Py_DECREF(r);
    return o;
}

/* a = (self, output_size, align_corners, scales_h, scales_w) */
static PyObject *aa_fwd(bool cubic, tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    if (fwd_check(2, t, a[1].u.ints.n, a[1].u.ints.v) < 0) return NULL;
    tn_dtype dt = t->dtype;
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64 && dt != TN_DTYPE_U8) return tn_kernel_missing("compute_index_ranges_weights", dt);
    return separable_resize(a[0].u.obj, a[1].u.ints.v, cubic, true, a[2].u.i != 0, &a[3], &a[4]);
}

/* a = (grad_output, output_size, input_size, align_corners, scales_h, scales_w) */
static PyObject *aa_bwd(bool cubic, const char *kname, tn_value *a) {
    tn_tensor *g = TN_T(a[0]);
    const int64_t *osz = a[1].u.ints.v, *isz = a[2].u.ints.v;
    if (bwd_check(2, g, a[2].u.ints.n, isz, a[1].u.ints.n, osz) < 0) return NULL;
    tn_dtype dt = g->dtype;
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64) return tn_kernel_missing(kname, dt);
    bool align = a[3].u.i != 0, dbl = dt == TN_DTYPE_F64;
    int64_t in_sizes[4] = {isz[0], isz[1], isz[2], isz[3]};
    PyObject *gc = tn_as_dtype(a[0].u.obj, dt, true);
    PyObject *r = gc ? tn_tensor_new_empty(4, in_sizes, dt, TN_DEVICE_CPU) : NULL;
    aa_dim h = {0}, w = {0};
    if (r && tn_numel(tn_tensor_of(r)) > 0) {
        if (aa_dim_build(&h, cubic, dt, true, isz[2], osz[0], align, &a[4]) < 0 ||
            aa_dim_build(&w, cubic, dt, true, isz[3], osz[1], align, &a[5]) < 0) {
            Py_CLEAR(r);
        } else {
            const void *gv = tn_data(tn_tensor_of(gc));
            void *gi = tn_data(tn_tensor_of(r));
            int64_t planes = isz[0] * isz[1];
            Py_BEGIN_ALLOW_THREADS
            if (dbl) tn_interp_aa_bwd_f64(&h.p, &w.p, planes, gv, gi);
            else tn_interp_aa_bwd_f32(&h.p, &w.p, planes, gv, gi);
            Py_END_ALLOW_THREADS
        }
    }
    PyMem_Free(h.buf);
    PyMem_Free(w.buf);
    Py_XDECREF(gc);
    /* upstream's bilinear backward keeps grad_output's suggested layout, its bicubic one does not */
    int fmt = cubic ? 0 : tn_suggest_format(g);
    if (!r || !fmt) return r;
    PyObject *o = tn_pool_new(4, in_sizes, dt, fmt);
    if (o && tn_copy_into(o, r) < 0) Py_CLEAR(o);
    Py_DECREF(r);
    return o;
}

PyObject *tn_op__upsample_bilinear2d_aa(tn_value *a) { return aa_fwd(false, a); }
PyObject *tn_op__upsample_bicubic2d_aa(tn_value *a) { return aa_fwd(true, a); }
PyObject *tn_op__upsample_bilinear2d_aa_backward(tn_value *a) { return aa_bwd(false, "upsample_bilinear2d_aa_backward_cpu", a); }
PyObject *tn_op__upsample_bicubic2d_aa_backward(tn_value *a) { return aa_bwd(true, "upsample_bicubic2d_aa_backward_cpu", a); }

/* ---------------------------------------------------------------- .vec composites
 * (input, output_size?, [align_corners], scale_factors?): upstream's compute_output_size, then
 * the op with the output size and the scale factors (or None) as its scales; through the door,
 * so these serve as the decompositions autograd and dispatch modes see. */
static PyObject *interp_vec(int row, tn_value *a, int nd, bool lin) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    const tn_value *os = &a[1], *sf = &a[lin ? 3 : 2];
    int spatial = t->ndim - 2;
    int64_t out[3] = {0, 0, 0};
    bool has_os = os->tag == TN_V_INTLIST, has_sf = sf->tag == TN_V_FLOATLIST;
    if (has_os) {
        if (has_sf) {
            PyErr_SetString(PyExc_RuntimeError, "Must specify exactly one of output_size and scale_factors");
            return NULL;
        }
        if (os->u.ints.n != spatial) {
            PyErr_SetString(PyExc_RuntimeError, "Expected static_cast<int64_t>(output_size->size()) == spatial_dimensions to be "
                            "true, but got false.  (Could this error message be improved?  If so, please report an "
                            "enhancement request to PyTorch.)");
            return NULL;
        }
    } else if (has_sf) {
        if (sf->u.floats.n != spatial) {
            PyErr_SetString(PyExc_RuntimeError, "Expected static_cast<int64_t>(scale_factors->size()) == spatial_dimensions to be "
                            "true, but got false.  (Could this error message be improved?  If so, please report an "
                            "enhancement request to PyTorch.)");
            return NULL;
        }
    } else {
        PyErr_SetString(PyExc_RuntimeError, "Must specify exactly one of output_size and scale_factors");
        return NULL;
    }
    int64_t size[TN_MAX_DIMS];
    for (int i = 0; i < spatial; i++) {
        size[i] = has_os ? os->u.ints.v[i] : (int64_t)((double)t->sizes[i + 2] * sf->u.floats.v[i]);
        if (i < 3) out[i] = size[i];
    }
    (void)out;
    /* (input, output_size, [align_corners,] scales...) */
    tn_value v[8];
    int k = 0;
    v[k++] = tn_tensor_value(a[0].u.obj);
    v[k++] = tn_ints_value(size, spatial);
    if (lin) v[k++] = a[2];
    for (int d = 0; d < nd; d++) {
        tn_value s = {.tag = TN_V_NONE};
        if (has_sf && d < sf->u.floats.n) { s.tag = TN_V_FLOAT; s.u.f = sf->u.floats.v[d]; }
        v[k++] = s;
    }
    return tn_call_row(row, v, k);
}

PyObject *tn_op_upsample_nearest1d_vec(tn_value *a) { return interp_vec(TN_ROW_upsample_nearest1d, a, 1, false); }
PyObject *tn_op_upsample_nearest2d_vec(tn_value *a) { return interp_vec(TN_ROW_upsample_nearest2d, a, 2, false); }
PyObject *tn_op_upsample_nearest3d_vec(tn_value *a) { return interp_vec(TN_ROW_upsample_nearest3d, a, 3, false); }
PyObject *tn_op__upsample_nearest_exact1d_vec(tn_value *a) { return interp_vec(TN_ROW__upsample_nearest_exact1d, a, 1, false); }
PyObject *tn_op__upsample_nearest_exact2d_vec(tn_value *a) { return interp_vec(TN_ROW__upsample_nearest_exact2d, a, 2, false); }
PyObject *tn_op__upsample_nearest_exact3d_vec(tn_value *a) { return interp_vec(TN_ROW__upsample_nearest_exact3d, a, 3, false); }
PyObject *tn_op_upsample_linear1d_vec(tn_value *a) { return interp_vec(TN_ROW_upsample_linear1d, a, 1, true); }
PyObject *tn_op_upsample_bilinear2d_vec(tn_value *a) { return interp_vec(TN_ROW_upsample_bilinear2d, a, 2, true); }
PyObject *tn_op_upsample_trilinear3d_vec(tn_value *a) { return interp_vec(TN_ROW_upsample_trilinear3d, a, 3, true); }
PyObject *tn_op_upsample_bicubic2d_vec(tn_value *a) { return interp_vec(TN_ROW_upsample_bicubic2d, a, 2, true); }
PyObject *tn_op__upsample_bilinear2d_aa_vec(tn_value *a) { return interp_vec(TN_ROW__upsample_bilinear2d_aa, a, 2, true); }
PyObject *tn_op__upsample_bicubic2d_aa_vec(tn_value *a) { return interp_vec(TN_ROW__upsample_bicubic2d_aa, a, 2, true); }
