/* ops/pool.c — pooling: max_pool{2,3}d_with_indices (+ backward), max_pool1d (upstream's own
 * no-grad kernel), avg_pool{2,3}d (+ backward), _adaptive_avg_pool{2,3}d (+ backward),
 * adaptive_max_pool{2,3}d (+ backward). The 1-d and plain spellings (max_pool1d_with_indices,
 * max_pool2d, avg_pool1d, adaptive_avg_pool{1,2,3}d, adaptive_max_pool1d, ...) are upstream
 * composites, decomposed in autograd/decomp.c as upstream's.
 *
 * Each op validates as upstream's meta function does (messages measured on torch 2.13.0),
 * builds per-dimension window tables, runs a kernel of kernels/pool.h on a contiguous
 * [planes, D, H, W] buffer in the compute dtype (f32 for f16 / bf16, as upstream's accumulate
 * type) and lays the result out as upstream does (channels-last in, channels-last out). */
#include "ops/pool.h"

#include "core/dtype.h"
#include "kernels/pool.h"
#include "ops/common.h"
#include "autograd/autograd.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <stdio.h>

/* ---------------------------------------------------------------- shared pieces */

/* A new tensor of sizes laid out contiguous, or channels-last when fmt and rank allow. */
PyObject *tn_pool_new(int nd, const int64_t *sz, tn_dtype dt, int fmt) {
    if (!fmt || (nd != 4 && nd != 5)) return tn_tensor_new_empty(nd, sz, dt, TN_DEVICE_CPU);
    int64_t st[5], acc = 1;
    st[1] = acc;
    acc *= sz[1] > 1 ? sz[1] : 1;
    for (int d = nd - 1; d >= 2; d--) {
        st[d] = acc;
        acc *= sz[d] > 1 ? sz[d] : 1;
    }
    st[0] = acc;
    return tn_tensor_new_strided(nd, sz, st, dt);
}

/* Deliver `r` (contiguous, compute dtype; stolen) as dtype dt in layout fmt. */
static PyObject *finish(PyObject *r, tn_dtype dt, int fmt) {
    if (!r) return NULL;
    tn_tensor *t = tn_tensor_of(r);
    if (t->dtype == dt && (!fmt || t->ndim < 4)) return r;
    PyObject *o = tn_pool_new(t->ndim, t->sizes, dt, fmt);
    if (o && tn_copy_into(o, r) < 0) Py_CLEAR(o);
    Py_DECREF(r);
    return o;
}

static tn_dtype compute_dtype(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F64: return TN_DTYPE_F64;
    case TN_DTYPE_F32: case TN_DTYPE_F16: case TN_DTYPE_BF16: return TN_DTYPE_F32;
    default: return TN_DTYPE_I64;
    }
}

/* Rounding after each accumulation, as upstream's kernels that add in the tensor's own dtype. */
static int rnd_of(tn_dtype dt) { return dt == TN_DTYPE_BF16 ? 1 : dt == TN_DTYPE_F16 ? 2 : 0; }

static void shape_str(char *b, size_t n, const tn_tensor *t) { tn_shape_str(b, n, t->ndim, t->sizes); }

/* Expand an int[k] argument given as 1 or k values; `empty_as` (may be NULL) stands for []. */
/* (an int[k] default such as padding=0 arrives as one int) */
static void expand(const tn_value *v, int k, const int64_t *empty_as, int64_t *out) {
    int n = v->tag == TN_V_INTLIST ? v->u.ints.n : v->tag == TN_V_INT ? 1 : 0;
    for (int i = 0; i < k; i++) {
        if (n == 0) out[i] = empty_as ? empty_as[i] : 0;
        else out[i] = v->tag == TN_V_INT ? v->u.i : v->u.ints.v[n == 1 ? 0 : i];
    }
}
static int list_len(const tn_value *v) { return v->tag == TN_V_INTLIST ? v->u.ints.n : v->tag == TN_V_INT ? 1 : 0; }
static int64_t list_at(const tn_value *v, int i) { return v->tag == TN_V_INT ? v->u.i : v->u.ints.v[i]; }

static int64_t div_rtn(int64_t a, int64_t b) {
    int64_t q = a / b, r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) q--;
    return q;
}

/* upstream's pooling_output_shape (checks included) */
static int out_shape(int64_t in, int64_t k, int64_t pad, int64_t s, int64_t dil, bool ceil, int64_t *o) {
    if (s == 0) {
        PyErr_SetString(PyExc_RuntimeError, "stride should not be zero");
        return -1;
    }
    if (pad < 0) {
        PyErr_Format(PyExc_RuntimeError, "pad must be non-negative, but got pad: %lld", (long long)pad);
        return -1;
    }
    /* every intermediate in int64 without overflow (upstream's wraps; out-of-range parameters
     * are refused here instead) */
    int64_t ek, num;
    bool ovf = k == INT64_MIN || __builtin_mul_overflow(k - 1, dil, &ek) || __builtin_add_overflow(ek, 1, &ek);
    ovf = ovf || __builtin_mul_overflow(pad, 2, &num) || __builtin_add_overflow(in, num, &num) ||
          __builtin_sub_overflow(num, ek, &num) || __builtin_add_overflow(num, ceil ? s - 1 : 0, &num);
    if (ovf) {
        PyErr_Format(PyExc_RuntimeError, "pooling output size overflows int64: input size %lld, kernel_size=%lld, "
                     "padding=%lld, stride=%lld, dilation=%lld", (long long)in, (long long)k, (long long)pad,
                     (long long)s, (long long)dil);
        return -1;
    }
    if (pad > ek / 2) {
        PyErr_Format(PyExc_RuntimeError, "pad should be at most half of effective kernel size, but got pad=%lld, "
                     "kernel_size=%lld and dilation=%lld", (long long)pad, (long long)k, (long long)dil);
        return -1;
    }
    int64_t r = div_rtn(num, s) + 1;
    if (ceil && (r - 1) * s >= in + pad) r--;
    *o = r;
    return 0;
}

/* The plan's int64 tables: 3 dims x (start, end, div) x out[d] entries. */
typedef struct {
    tn_pool_plan p;
    int64_t *buf;
} plan_buf;

static int plan_alloc(plan_buf *b, int64_t planes, const int64_t *in, const int64_t *out) {
    memset(b, 0, sizeof *b);
    int64_t tot = 0;
    for (int d = 0; d < 3; d++) tot += 3 * (out[d] > 0 ? out[d] : 0) + 1;
    b->buf = PyMem_Malloc((size_t)tot * sizeof(int64_t));
    if (!b->buf) {
        PyErr_NoMemory();
        return -1;
    }
    int64_t *w = b->buf;
    b->p.planes = planes;
    for (int d = 0; d < 3; d++) {
        b->p.in[d] = in[d];
        b->p.out[d] = out[d];
        b->p.start[d] = w;
        b->p.end[d] = w + out[d];
        b->p.div[d] = w + 2 * out[d];
        b->p.step[d] = 1;
        w += 3 * out[d] + 1;
    }
    return 0;
}

/* windows of a dilated max pool over dim d */
static void max_windows(plan_buf *b, int d, int64_t k, int64_t s, int64_t pad, int64_t dil) {
    int64_t *st = (int64_t *)b->p.start[d], *en = (int64_t *)b->p.end[d];
    for (int64_t o = 0; o < b->p.out[d]; o++) {
        int64_t a = o * s - pad, e = a + (k - 1) * dil + 1;
        if (e > b->p.in[d]) e = b->p.in[d];
        while (a < 0) a += dil;
        st[o] = a;
        en[o] = e;
    }
    b->p.step[d] = dil;
}

/* windows of an average pool over dim d, with its divisor factor */
static void avg_windows(plan_buf *b, int d, int64_t k, int64_t s, int64_t pad, bool include_pad) {
    int64_t *st = (int64_t *)b->p.start[d], *en = (int64_t *)b->p.end[d], *dv = (int64_t *)b->p.div[d];
    int64_t in = b->p.in[d];
    for (int64_t o = 0; o < b->p.out[d]; o++) {
        int64_t a = o * s - pad, e = a + k < in + pad ? a + k : in + pad, pool = e - a;
        if (a < 0) a = 0;
        if (e > in) e = in;
        st[o] = a;
        en[o] = e;
        dv[o] = include_pad ? pool : e - a;
    }
}

/* adaptive windows over dim d: [floor(o*I/O), ceil((o+1)*I/O)) */
static void adaptive_windows(plan_buf *b, int d) {
    int64_t *st = (int64_t *)b->p.start[d], *en = (int64_t *)b->p.end[d], *dv = (int64_t *)b->p.div[d];
    int64_t I = b->p.in[d], O = b->p.out[d];
    for (int64_t o = 0; o < O; o++) {
        st[o] = (o * I) / O;
        en[o] = ((o + 1) * I + O - 1) / O;
        dv[o] = en[o] - st[o];
    }
}

/* Leading 1s for the unused spatial dims: spatial sizes of t's last k dims into sp[3]. */
static void spatial(const tn_tensor *t, int k, int64_t *sp) {
    for (int d = 0; d < 3; d++) sp[d] = d < 3 - k ? 1 : t->sizes[t->ndim - 3 + d];
}
static int64_t planes_of(const tn_tensor *t, int k) {
    int64_t p = 1;
    for (int d = 0; d < t->ndim - k; d++) p *= t->sizes[d];
    return p;
}

static bool max_dtype_ok(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F32: case TN_DTYPE_F64: case TN_DTYPE_F16: case TN_DTYPE_BF16:
    case TN_DTYPE_I64: case TN_DTYPE_I32: case TN_DTYPE_I16: case TN_DTYPE_I8: case TN_DTYPE_U8:
        return true;
    default:
        return false;
    }
}

/* Run a max kernel over x (contiguous compute dtype): values and indices of output sizes osz. */
static int run_max(const tn_pool_plan *p, PyObject *x, int nd, const int64_t *osz, PyObject **val, PyObject **idx) {
    tn_dtype ct = tn_tensor_of(x)->dtype;
    *val = tn_tensor_new_empty(nd, osz, ct, TN_DEVICE_CPU);
    *idx = *val ? tn_tensor_new_empty(nd, osz, TN_DTYPE_I64, TN_DEVICE_CPU) : NULL;
    if (!*idx) {
        Py_CLEAR(*val);
        return -1;
    }
    if (tn_numel(tn_tensor_of(*val)) == 0) return 0;
    const void *in = tn_data(tn_tensor_of(x));
    void *out = tn_data(tn_tensor_of(*val));
    int64_t *ix = (int64_t *)tn_data(tn_tensor_of(*idx));
    Py_BEGIN_ALLOW_THREADS
    if (ct == TN_DTYPE_F32) tn_maxpool_f32(p, in, out, ix);
    else if (ct == TN_DTYPE_F64) tn_maxpool_f64(p, in, out, ix);
    else tn_maxpool_i64(p, in, out, ix);
    Py_END_ALLOW_THREADS
    return 0;
}

/* Backward of any max pool: gin of input's sizes from gout and indices (both output-shaped). */
static PyObject *run_max_bwd(PyObject *gout, PyObject *input, PyObject *indices, int k, const char *kname) {
    tn_tensor *in = tn_tensor_of(input);
    tn_dtype dt = in->dtype;
    if (!tn_nn_float(dt)) return tn_kernel_missing(kname, dt);
    int fmt = tn_suggest_format(in);
    tn_dtype ct = compute_dtype(dt);
    int64_t isp[3], osp[3];
    spatial(in, k, isp);
    spatial(tn_tensor_of(gout), k, osp);
    PyObject *g = tn_as_dtype(gout, ct, true), *ix = g ? tn_as_dtype(indices, TN_DTYPE_I64, true) : NULL;
    PyObject *r = ix ? tn_tensor_new_empty(in->ndim, in->sizes, ct, TN_DEVICE_CPU) : NULL;
    plan_buf b = {0};
    if (r && plan_alloc(&b, planes_of(in, k), isp, osp) == 0) {
        int64_t plane = isp[0] * isp[1] * isp[2], n = tn_numel(tn_tensor_of(ix));
        const int64_t *iv = (const int64_t *)tn_data(tn_tensor_of(ix));
        for (int64_t i = 0; i < n; i++)
            if (iv[i] < 0 || iv[i] >= plane) {
                PyErr_Format(PyExc_RuntimeError, "%s: index %lld out of range for an input plane of %lld elements",
                             kname, (long long)iv[i], (long long)plane);
                Py_CLEAR(r);
                break;
            }
        b.p.rnd = rnd_of(dt);
        if (r && tn_numel(tn_tensor_of(r)) > 0) {
            void *gi = tn_data(tn_tensor_of(r));
            const void *gv = tn_data(tn_tensor_of(g));
            Py_BEGIN_ALLOW_THREADS
            if (ct == TN_DTYPE_F64) tn_maxpool_bwd_f64(&b.p, gv, iv, gi);
            else tn_maxpool_bwd_f32(&b.p, gv, iv, gi);
            Py_END_ALLOW_THREADS
        }
    } else {
        Py_CLEAR(r);
    }
    PyMem_Free(b.buf);
    Py_XDECREF(g);
    Py_XDECREF(ix);
    return finish(r, dt, fmt);
}

/* upstream's check_dim_size */
static int check_dim_size(const tn_tensor *t, int nd, int dim, int64_t size) {
    if (t->ndim == nd && t->sizes[dim] == size) return 0;
    PyErr_Format(PyExc_RuntimeError, "Expected a tensor of dimension %d and tensor.size[%d] == %lld but got: dimension %d "
                 "and tensor.size[%d] = %lld", nd, dim, (long long)size, t->ndim, dim,
                 (long long)(dim < t->ndim ? t->sizes[dim] : 0));
    return -1;
}

/* ---------------------------------------------------------------- max pool 2d / 3d */

typedef struct {
    int64_t k[3], s[3], p[3], d[3];   /* D, H, W order, leading 1 / 0 for 2-d */
    int64_t out[3];
    int fmt;
} pool_args;


/* 2-d checks (upstream's pool2d_shape_check) */
static int shape_check2(const tn_tensor *t, const pool_args *a, int64_t planes_c, const int64_t *isp) {
    int nd = t->ndim;
    const int64_t *k = a->k + 1, *s = a->s + 1, *p = a->p + 1, *dl = a->d + 1, *o = a->out + 1;
    char sh[256];
    if (!(k[0] > 0 && k[1] > 0)) {
        PyErr_Format(PyExc_RuntimeError, "kernel size should be greater than zero, but got kH: %lld kW: %lld", (long long)k[0], (long long)k[1]);
        return -1;
    }
    if (!(s[0] > 0 && s[1] > 0)) {
        PyErr_Format(PyExc_RuntimeError, "stride should be greater than zero, but got dH: %lld dW: %lld", (long long)s[0], (long long)s[1]);
        return -1;
    }
    if (!(dl[0] > 0 && dl[1] > 0)) {
        PyErr_Format(PyExc_RuntimeError, "dilation should be greater than zero, but got dilationH: %lld dilationW: %lld",
                     (long long)dl[0], (long long)dl[1]);
        return -1;
    }
    bool valid = t->sizes[1] != 0 && t->sizes[2] != 0;
    shape_str(sh, sizeof sh, t);
    if (a->fmt == 2) {
        if (!(nd == 4 && valid && t->sizes[3] != 0)) {
            PyErr_Format(PyExc_RuntimeError, "Expected 4D (batch mode) tensor expected for input with channels_last layout with "
                         "optional 0 dim batch size for input, but got: %s", sh);
            return -1;
        }
    } else if (!((nd == 3 && t->sizes[0] != 0 && valid) || (nd == 4 && valid && t->sizes[3] != 0))) {
        PyErr_Format(PyExc_RuntimeError, "Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, but got:%s", sh);
        return -1;
    }
    if (!(k[1] / 2 >= p[1] && k[0] / 2 >= p[0])) {
        PyErr_Format(PyExc_RuntimeError, "pad should be smaller than or equal to half of kernel size, but got padW = %lld, "
                     "padH = %lld, kW = %lld, kH = %lld", (long long)p[1], (long long)p[0], (long long)k[1], (long long)k[0]);
        return -1;
    }
    if (!(o[1] >= 1 && o[0] >= 1)) {
        PyErr_Format(PyExc_RuntimeError, "Given input size: (%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lld). "
                     "Output size is too small", (long long)planes_c, (long long)isp[1], (long long)isp[2],
                     (long long)planes_c, (long long)o[0], (long long)o[1]);
        return -1;
    }
    return 0;
}

/* 3-d checks (upstream's pool3d_shape_check) */
static int shape_check3(const tn_tensor *t, const pool_args *a, int64_t nslices, const int64_t *isp, const char *fn,
                        bool check_input_size) {
    const int64_t *k = a->k, *s = a->s, *p = a->p, *dl = a->d, *o = a->out;
    int nd = t->ndim;
    char sh[256];
    shape_str(sh, sizeof sh, t);
    if (!(k[0] > 0 && k[2] > 0 && k[1] > 0)) {
        PyErr_Format(PyExc_RuntimeError, "kernel size should be greater than zero, but got kT: %lld kH: %lld kW: %lld",
                     (long long)k[0], (long long)k[1], (long long)k[2]);
        return -1;
    }
    if (!(s[0] > 0 && s[2] > 0 && s[1] > 0)) {
        PyErr_Format(PyExc_RuntimeError, "stride should be greater than zero, but got dT: %lld dH: %lld dW: %lld",
                     (long long)s[0], (long long)s[1], (long long)s[2]);
        return -1;
    }
    if (!(dl[0] > 0 && dl[2] > 0 && dl[1] > 0)) {
        PyErr_Format(PyExc_RuntimeError, "dilation should be greater than zero, but got dilationT: %lld dilationH: %lld dilationW: %lld",
                     (long long)dl[0], (long long)dl[1], (long long)dl[2]);
        return -1;
    }
    if (!(nd == 4 || nd == 5)) {
        PyErr_Format(PyExc_RuntimeError, "%s: Expected 4D or 5D tensor for input, but got: %s", fn, sh);
        return -1;
    }
    for (int i = 0; i < nd; i++) {
        if (nd == 5 && i == 0) continue;
        if (t->sizes[i] <= 0) {
            PyErr_Format(PyExc_RuntimeError, "%s: Expected input's non-batch dimensions to have positive length, but input has a "
                         "shape of %s and non-batch dimension %lld has length zero!", fn, sh, (long long)t->sizes[i]);
            return -1;
        }
    }
    if (check_input_size && !(isp[0] >= k[0] && isp[1] >= k[1] && isp[2] >= k[2])) {
        PyErr_Format(PyExc_RuntimeError, "input image (T: %lld H: %lld W: %lld) smaller than kernel size (kT: %lld kH: %lld kW: %lld)",
                     (long long)isp[0], (long long)isp[1], (long long)isp[2], (long long)k[0], (long long)k[1], (long long)k[2]);
        return -1;
    }
    if (!(k[0] / 2 >= p[0] && k[2] / 2 >= p[2] && k[1] / 2 >= p[1])) {
        PyErr_Format(PyExc_RuntimeError, "pad should be smaller than or equal to half of kernel size, but got kT: %lld kW: %lld kH: %lld "
                     "padT: %lld padW: %lld padH: %lld", (long long)k[0], (long long)k[2], (long long)k[1], (long long)p[0],
                     (long long)p[2], (long long)p[1]);
        return -1;
    }
    if (!(o[0] >= 1 && o[2] >= 1 && o[1] >= 1)) {
        PyErr_Format(PyExc_RuntimeError, "Given input size: (%lldx%lldx%lldx%lld). Calculated output size: (%lldx%lldx%lldx%lld). "
                     "Output size is too small", (long long)nslices, (long long)isp[0], (long long)isp[1], (long long)isp[2],
                     (long long)nslices, (long long)o[0], (long long)o[1], (long long)o[2]);
        return -1;
    }
    return 0;
}

/* Parse and check max_pool{2,3}d arguments (self, kernel_size, stride, padding, dilation,
 * ceil_mode at a[0..5]); k = 2 or 3; fwd: the forward (not the backward's self). */
static int max_args(tn_value *a, int k, bool fwd, pool_args *r) {
    const tn_tensor *t = TN_T(a[0]);
    const char *nm = k == 2 ? "max_pool2d" : "max_pool3d";
    const char *what = k == 2 ? "two" : "three";
    if (!(list_len(&a[1]) == 1 || list_len(&a[1]) == k)) {
        PyErr_Format(PyExc_RuntimeError, "%s: kernel_size must either be a single int, or a tuple of %s ints", nm, what);
        return -1;
    }
    if (!(list_len(&a[2]) == 0 || list_len(&a[2]) == 1 || list_len(&a[2]) == k)) {
        PyErr_Format(PyExc_RuntimeError, "%s: stride must either be omitted, a single int, or a tuple of %s ints", nm, what);
        return -1;
    }
    if (!(list_len(&a[3]) == 1 || list_len(&a[3]) == k)) {
        PyErr_Format(PyExc_RuntimeError, "%s: padding must either be a single int, or a tuple of %s ints", nm, what);
        return -1;
    }
    if (!(list_len(&a[4]) == 1 || list_len(&a[4]) == k)) {
        PyErr_Format(PyExc_RuntimeError, "%s: dilation must be either a single int, or a tuple of %s ints", nm, what);
        return -1;
    }
    int off = 3 - k;
    for (int i = 0; i < 3; i++) r->k[i] = r->s[i] = r->d[i] = 1, r->p[i] = 0, r->out[i] = 1;
    expand(&a[1], k, NULL, r->k + off);
    expand(&a[2], k, r->k + off, r->s + off);
    expand(&a[3], k, NULL, r->p + off);
    expand(&a[4], k, NULL, r->d + off);
    /* a forward on meta: upstream's Python meta function reads input.size(-3) next (IndexError, measured) */
    if (k == 2 && fwd && tn_door_on_meta() && tn_size_read(t, -3) < 0) return -1;
    r->fmt = tn_suggest_format(t);
    if (k == 2) {
        if (r->fmt == 2 && t->ndim != 4) {
            PyErr_SetString(PyExc_RuntimeError, "non-empty 4D (batch mode) tensor expected for input with channels_last layout");
            return -1;
        }
        if (r->fmt == 3 || !(t->ndim == 3 || t->ndim == 4)) {
            PyErr_SetString(PyExc_RuntimeError, r->fmt == 3 ? "Unsupport memory format. Supports only ChannelsLast, Contiguous"
                                                            : "non-empty 3D or 4D (batch mode) tensor expected for input");
            return -1;
        }
        if (r->fmt == 3) r->fmt = 0;
    } else {
        if (r->fmt == 2) r->fmt = 0;
        if (r->fmt == 3 && t->ndim != 5) {
            PyErr_SetString(PyExc_RuntimeError, "non-empty 5D (batch mode) tensor expected for input with channels_last_3d layout");
            return -1;
        }
        if (!(t->ndim == 4 || t->ndim == 5)) {
            PyErr_SetString(PyExc_RuntimeError, "non-empty 4D or 5D (batch mode) tensor expected for input");
            return -1;
        }
    }
    bool ceil = a[5].u.i != 0;
    for (int i = off; i < 3; i++)
        if (out_shape(t->sizes[t->ndim - 3 + i], r->k[i], r->p[i], r->s[i], r->d[i], ceil, &r->out[i]) < 0) return -1;
    int64_t isp[3];
    spatial(t, k, isp);
    if (k == 2) return shape_check2(t, r, t->sizes[t->ndim - 3], isp);
    return shape_check3(t, r, t->sizes[t->ndim - 4], isp, "max_pool3d_with_indices_out_cpu_template()", false);
}

static PyObject *max_pool_fwd(tn_value *a, int k) {
    pool_args pa;
    if (max_args(a, k, true, &pa) < 0) return NULL;
    tn_tensor *t = TN_T(a[0]);
    if (!max_dtype_ok(t->dtype)) return tn_kernel_missing(k == 2 ? "max_pool2d" : "max_pool3d", t->dtype);
    int64_t isp[3], osz[TN_MAX_DIMS];
    spatial(t, k, isp);
    int nd = t->ndim;
    for (int d = 0; d < nd; d++) osz[d] = d < nd - k ? t->sizes[d] : pa.out[d - nd + 3];
    PyObject *x = tn_as_dtype(a[0].u.obj, compute_dtype(t->dtype), true);
    if (!x) return NULL;
    plan_buf b;
    PyObject *val = NULL, *idx = NULL;
    if (plan_alloc(&b, planes_of(t, k), isp, pa.out) == 0) {
        for (int d = 0; d < 3; d++) max_windows(&b, d, pa.k[d], pa.s[d], pa.p[d], pa.d[d]);
        run_max(&b.p, x, nd, osz, &val, &idx);
        PyMem_Free(b.buf);
    }
    Py_DECREF(x);
    if (!idx) return NULL;
    val = finish(val, t->dtype, pa.fmt);
    idx = finish(idx, TN_DTYPE_I64, pa.fmt);
    if (!val || !idx) {
        Py_XDECREF(val);
        Py_XDECREF(idx);
        return NULL;
    }
    PyObject *r = PyTuple_Pack(2, val, idx);
    Py_DECREF(val);
    Py_DECREF(idx);
    return r;
}

PyObject *tn_op_max_pool2d_with_indices(tn_value *a) { return max_pool_fwd(a, 2); }
PyObject *tn_op_max_pool3d_with_indices(tn_value *a) { return max_pool_fwd(a, 3); }

/* max_pool{2,3}d_with_indices_backward(grad_output, self, kernel_size, stride, padding,
 * dilation, ceil_mode, indices) */
static PyObject *max_pool_bwd(tn_value *a, int k) {
    pool_args pa;
    if (max_args(a + 1, k, false, &pa) < 0) return NULL;
    tn_tensor *t = TN_T(a[1]), *g = TN_T(a[0]), *ix = TN_T(a[7]);
    if (t->dtype != g->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected dtype %s for `gradOutput` but got dtype %s", tn_dtype_cxx_name(t->dtype),
                     tn_dtype_cxx_name(g->dtype));
        return NULL;
    }
    int nd = t->ndim;
    for (int i = 0; i < k + 1; i++) {
        int dim = nd - k - 1 + i;
        int64_t want = i == 0 ? t->sizes[dim] : pa.out[3 - k + i - 1];
        if (check_dim_size(g, nd, dim, want) < 0) return NULL;
    }
    for (int i = 0; i < k + 1; i++) {
        int dim = nd - k - 1 + i;
        int64_t want = i == 0 ? t->sizes[dim] : pa.out[3 - k + i - 1];
        if (check_dim_size(ix, nd, dim, want) < 0) return NULL;
    }
    if (nd == k + 2 && (g->sizes[0] != t->sizes[0] || ix->sizes[0] != t->sizes[0])) {
        PyErr_SetString(PyExc_RuntimeError, "max_pool backward: grad_output and indices must have the input's batch size");
        return NULL;
    }
    return run_max_bwd(a[0].u.obj, a[1].u.obj, a[7].u.obj, k, k == 2 ? "max_pool2d_backward" : "max_pool3d_backward");
}

PyObject *tn_op_max_pool2d_with_indices_backward(tn_value *a) { return max_pool_bwd(a, 2); }
PyObject *tn_op_max_pool3d_with_indices_backward(tn_value *a) { return max_pool_bwd(a, 3); }

/* max_pool1d(self, kernel_size, stride, padding, dilation, ceil_mode): upstream's own kernel
 * when no gradient is recorded (autograd/decomp.c decomposes it otherwise). */
int tn_max_pool1d_check(tn_value *a, int64_t *ow) {
    const tn_tensor *t = TN_T(a[0]);
    char sh[256];
    shape_str(sh, sizeof sh, t);
    int nd = t->ndim;
    if (!((nd == 2 && t->sizes[0] != 0 && t->sizes[1] != 0) || (nd == 3 && t->sizes[1] != 0 && t->sizes[2] != 0))) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                     "input, but got:%s", sh);
        return -1;
    }
    if (list_len(&a[1]) != 1) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but got size %d", list_len(&a[1]));
        return -1;
    }
    if (!(list_len(&a[2]) == 0 || list_len(&a[2]) == 1)) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() stride must be None, an int, list of ints, or tuple of ints of size 1 but got size %d", list_len(&a[2]));
        return -1;
    }
    if (list_len(&a[3]) != 1) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() padding must be an int, list of ints, or tuple of ints of size 1 but got size %d", list_len(&a[3]));
        return -1;
    }
    if (list_len(&a[4]) != 1) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() dilation must be an int, list of ints or tuple of ints of size 1 but got size %d", list_len(&a[4]));
        return -1;
    }
    int64_t k = list_at(&a[1], 0), s = list_len(&a[2]) ? list_at(&a[2], 0) : k, p = list_at(&a[3], 0), d = list_at(&a[4], 0);
    if (k <= 0) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() kernel_size must be greater than zero, but got %lld", (long long)k);
        return -1;
    }
    if (s <= 0) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() stride must be greater than zero, but got %lld", (long long)s);
        return -1;
    }
    if (p < 0) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() padding must be non-negative, but got %lld", (long long)p);
        return -1;
    }
    if (p > k / 2) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() padding should be at most half of kernel size, but got padding=%lld and "
                     "kernel_size=%lld", (long long)p, (long long)k);
        return -1;
    }
    if (d <= 0) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() dilation must be greater than zero, but got %lld", (long long)d);
        return -1;
    }
    if (out_shape(t->sizes[nd - 1], k, p, s, d, a[5].u.i != 0, ow) < 0) return -1;
    if (*ow <= 0) {
        PyErr_Format(PyExc_RuntimeError, "max_pool1d() Invalid computed output size: %lld", (long long)*ow);
        return -1;
    }
    return 0;
}

PyObject *tn_op_max_pool1d(tn_value *a) {
    int64_t ow;
    if (tn_max_pool1d_check(a, &ow) < 0) return NULL;
    tn_tensor *t = TN_T(a[0]);
    if (!tn_nn_float(t->dtype)) return tn_kernel_missing("max_pool1d_impl", t->dtype);
    int64_t k = list_at(&a[1], 0), s = list_len(&a[2]) ? list_at(&a[2], 0) : k, p = list_at(&a[3], 0), d = list_at(&a[4], 0);
    int64_t isp[3] = {1, 1, t->sizes[t->ndim - 1]}, osp[3] = {1, 1, ow}, osz[3];
    for (int i = 0; i < t->ndim; i++) osz[i] = i == t->ndim - 1 ? ow : t->sizes[i];
    PyObject *x = tn_as_dtype(a[0].u.obj, compute_dtype(t->dtype), true);
    if (!x) return NULL;
    plan_buf b;
    PyObject *val = NULL, *idx = NULL;
    if (plan_alloc(&b, planes_of(t, 1), isp, osp) == 0) {
        max_windows(&b, 0, 1, 1, 0, 1);
        max_windows(&b, 1, 1, 1, 0, 1);
        max_windows(&b, 2, k, s, p, d);
        run_max(&b.p, x, t->ndim, osz, &val, &idx);
        PyMem_Free(b.buf);
    }
    Py_DECREF(x);
    Py_XDECREF(idx);
    return finish(val, t->dtype, 0);
}

/* ---------------------------------------------------------------- average pool */

/* avg_pool{2,3}d(self, kernel_size, stride, padding, ceil_mode, count_include_pad,
 * divisor_override) */
/* upstream's safe_downcast<int> of each value of an int list: RuntimeError when one does not fit */
static int int_values(const tn_value *v) {
    for (int i = 0; i < list_len(v); i++)
        if (list_at(v, i) < INT32_MIN || list_at(v, i) > INT32_MAX) {
            PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type int without overflow");
            return -1;
        }
    return 0;
}

static int avg_args(tn_value *a, int k, pool_args *r) {
    const tn_tensor *t = TN_T(a[0]);
    int off = 3 - k;
    if (k == 2) {
        /* upstream's meta narrows each list's values to int right after its length check (measured) */
        if (!(list_len(&a[1]) == 1 || list_len(&a[1]) == 2)) {
            PyErr_SetString(PyExc_RuntimeError, "avg_pool2d: kernel_size must either be a single int, or a tuple of two ints");
            return -1;
        }
        if (int_values(&a[1]) < 0) return -1;
        if (!(list_len(&a[2]) == 0 || list_len(&a[2]) == 1 || list_len(&a[2]) == 2)) {
            PyErr_SetString(PyExc_RuntimeError, "avg_pool2d: stride must either be omitted, a single int, or a tuple of two ints");
            return -1;
        }
        if (int_values(&a[2]) < 0) return -1;
        if (!(list_len(&a[3]) == 1 || list_len(&a[3]) == 2)) {
            PyErr_SetString(PyExc_RuntimeError, "avg_pool2d: padding must either be a single int, or a tuple of two ints");
            return -1;
        }
        if (int_values(&a[3]) < 0) return -1;
    } else {
        if (!(list_len(&a[1]) == 1 || list_len(&a[1]) == 3)) {
            PyErr_SetString(PyExc_RuntimeError, "avg_pool3d: kernel_size must be a single int, or a tuple of three ints");
            return -1;
        }
        if (!(list_len(&a[2]) == 0 || list_len(&a[2]) == 1 || list_len(&a[2]) == 3)) {
            PyErr_SetString(PyExc_RuntimeError, "avg_pool3d: stride must be omitted, a single int, or a tuple of three ints");
            return -1;
        }
        if (!(list_len(&a[3]) == 1 || list_len(&a[3]) == 3)) {
            PyErr_SetString(PyExc_RuntimeError, "avg_pool3d: padding must be a single int, or a tuple of three ints");
            return -1;
        }
        if (!(t->ndim == 4 || t->ndim == 5)) {
            PyErr_SetString(PyExc_RuntimeError, "non-empty 4D or 5D (batch mode) tensor expected for input");
            return -1;
        }
    }
    if (a[6].tag == TN_V_INT && a[6].u.i == 0) {
        PyErr_SetString(PyExc_RuntimeError, "divisor must be not zero");
        return -1;
    }
    for (int i = 0; i < 3; i++) r->k[i] = r->s[i] = r->d[i] = 1, r->p[i] = 0, r->out[i] = 1;
    expand(&a[1], k, NULL, r->k + off);
    expand(&a[2], k, r->k + off, r->s + off);
    expand(&a[3], k, NULL, r->p + off);
    int64_t isp[3];
    if (t->ndim < k + 1) return tn_size_read(t, -k - 1);   /* upstream reads size(-k-1) first */
    bool ceil = a[4].u.i != 0;
    for (int i = off; i < 3; i++)
        if (out_shape(t->sizes[t->ndim - 3 + i], r->k[i], r->p[i], r->s[i], 1, ceil, &r->out[i]) < 0) return -1;
    spatial(t, k, isp);
    r->fmt = tn_suggest_format(t);
    if (k == 2) {
        if (r->fmt == 3) r->fmt = 0;
        return shape_check2(t, r, t->sizes[t->ndim - 3], isp);
    }
    r->fmt = 0;   /* upstream's 3-d frame kernel: contiguous output */
    return shape_check3(t, r, t->sizes[t->ndim - 4], isp, "avg_pool3d()", true);
}

static PyObject *avg_pool_fwd(tn_value *a, int k) {
    pool_args pa;
    if (avg_args(a, k, &pa) < 0) return NULL;
    tn_tensor *t = TN_T(a[0]);
    tn_dtype dt = t->dtype;
    bool ok = dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64 || dt == TN_DTYPE_I64 || (k == 2 && (dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16));
    if (!ok) return tn_kernel_missing(k == 3 ? "avg_pool3d_out_frame" : pa.fmt ? "avg_pool2d_channels_last" : "avg_pool2d", dt);
    tn_dtype ct = compute_dtype(dt);
    int nd = t->ndim;
    int64_t isp[3], osz[TN_MAX_DIMS];
    spatial(t, k, isp);
    for (int d = 0; d < nd; d++) osz[d] = d < nd - k ? t->sizes[d] : pa.out[d - nd + 3];
    PyObject *x = tn_as_dtype(a[0].u.obj, ct, true);
    PyObject *r = x ? tn_tensor_new_empty(nd, osz, ct, TN_DEVICE_CPU) : NULL;
    plan_buf b;
    if (r && plan_alloc(&b, planes_of(t, k), isp, pa.out) == 0) {
        for (int d = 0; d < 3; d++) avg_windows(&b, d, pa.k[d], pa.s[d], pa.p[d], a[5].u.i != 0);
        b.p.divisor = a[6].tag == TN_V_INT ? a[6].u.i : 0;
        if (tn_numel(tn_tensor_of(r)) > 0) {
            const void *in = tn_data(tn_tensor_of(x));
            void *out = tn_data(tn_tensor_of(r));
            Py_BEGIN_ALLOW_THREADS
            if (ct == TN_DTYPE_F32) tn_avgpool_f32(&b.p, in, out);
            else if (ct == TN_DTYPE_F64) tn_avgpool_f64(&b.p, in, out);
            else tn_avgpool_i64(&b.p, in, out);
            Py_END_ALLOW_THREADS
        }
        PyMem_Free(b.buf);
    } else {
        Py_CLEAR(r);
    }
    Py_XDECREF(x);
    return finish(r, dt, pa.fmt);
}

PyObject *tn_op_avg_pool2d(tn_value *a) { return avg_pool_fwd(a, 2); }
PyObject *tn_op_avg_pool3d(tn_value *a) { return avg_pool_fwd(a, 3); }

/* avg_pool{2,3}d_backward(grad_output, self, kernel_size, stride, padding, ceil_mode,
 * count_include_pad, divisor_override) */
static PyObject *avg_pool_bwd(tn_value *a, int k) {
    pool_args pa;
    if (avg_args(a + 1, k, &pa) < 0) return NULL;
    tn_tensor *t = TN_T(a[1]), *g = TN_T(a[0]);
    tn_dtype dt = t->dtype;
    if (dt != g->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected dtype %s for `gradOutput` but got dtype %s", tn_dtype_cxx_name(dt),
                     tn_dtype_cxx_name(g->dtype));
        return NULL;
    }
    int nd = t->ndim;
    for (int i = 0; i < k + 1; i++) {
        int dim = nd - k - 1 + i;
        if (check_dim_size(g, nd, dim, i == 0 ? t->sizes[dim] : pa.out[3 - k + i - 1]) < 0) return NULL;
    }
    if (nd == k + 2 && g->sizes[0] != t->sizes[0]) {
        PyErr_SetString(PyExc_RuntimeError, "avg_pool backward: grad_output must have the input's batch size");
        return NULL;
    }
    bool ok = dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64 || (k == 2 && (dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16));
    if (!ok) return tn_kernel_missing(k == 2 ? "avg_pool2d_backward" : "avg_pool3d_backward_out_frame", dt);
    tn_dtype ct = compute_dtype(dt);
    int64_t isp[3];
    spatial(t, k, isp);
    PyObject *gc = tn_as_dtype(a[0].u.obj, ct, true);
    PyObject *r = gc ? tn_tensor_new_empty(nd, t->sizes, ct, TN_DEVICE_CPU) : NULL;
    plan_buf b;
    if (r && plan_alloc(&b, planes_of(t, k), isp, pa.out) == 0) {
        for (int d = 0; d < 3; d++) avg_windows(&b, d, pa.k[d], pa.s[d], pa.p[d], a[6].u.i != 0);
        b.p.divisor = a[7].tag == TN_V_INT ? a[7].u.i : 0;
        b.p.rnd = rnd_of(dt);
        if (tn_numel(tn_tensor_of(r)) > 0) {
            const void *gv = tn_data(tn_tensor_of(gc));
            void *gi = tn_data(tn_tensor_of(r));
            Py_BEGIN_ALLOW_THREADS
            if (ct == TN_DTYPE_F64) tn_avgpool_bwd_f64(&b.p, gv, gi);
            else tn_avgpool_bwd_f32(&b.p, gv, gi);
            Py_END_ALLOW_THREADS
        }
        PyMem_Free(b.buf);
    } else {
        Py_CLEAR(r);
    }
    Py_XDECREF(gc);
    return finish(r, dt, pa.fmt);
}

PyObject *tn_op_avg_pool2d_backward(tn_value *a) { return avg_pool_bwd(a, 2); }
PyObject *tn_op_avg_pool3d_backward(tn_value *a) { return avg_pool_bwd(a, 3); }

/* ---------------------------------------------------------------- adaptive pools */

/* _adaptive_avg_pool{2,3}d(self, output_size) */
static PyObject *adaptive_avg_fwd(tn_value *a, int k) {
    tn_tensor *t = TN_T(a[0]);
    const char *nm = k == 2 ? "adaptive_avg_pool2d" : "adaptive_avg_pool3d";
    char sh[256];
    shape_str(sh, sizeof sh, t);
    int nd = t->ndim;
    if (list_len(&a[1]) != k) {
        PyErr_Format(PyExc_RuntimeError, "%s: output_size must be %d", nm, k);
        return NULL;
    }
    if (!(nd == k + 1 || nd == k + 2)) {
        PyErr_Format(PyExc_RuntimeError, "%s(): Expected %dD or %dD tensor, but got %s", nm, k + 1, k + 2, sh);
        return NULL;
    }
    for (int i = nd - k; i < nd; i++)
        if (t->sizes[i] <= 0) {
            PyErr_Format(PyExc_RuntimeError, "%s(): Expected input to have non-zero size for non-batch dimensions, but input has "
                         "sizes %s with dimension %d being empty", nm, sh, i);
            return NULL;
        }
    int64_t osp[3] = {1, 1, 1}, isp[3], osz[5];
    for (int i = 0; i < k; i++) osp[3 - k + i] = list_at(&a[1], i);
    for (int d = 0; d < nd; d++) {
        osz[d] = d < nd - k ? t->sizes[d] : osp[d - nd + 3];
        if (osz[d] < 0) {
            char os[256];
            tn_shape_str(os, sizeof os, nd, osz);
            for (int e = d + 1; e < nd; e++) osz[e] = e < nd - k ? t->sizes[e] : osp[e - nd + 3];
            tn_shape_str(os, sizeof os, nd, osz);
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: %s", (long long)osz[d], os);
            return NULL;
        }
    }
    tn_dtype dt = t->dtype;
    int fmt = nd == 4 && k == 2 ? tn_suggest_format(t) : 0;   /* 3-d: upstream's contiguous frame kernel */
    int64_t onum = 1;
    for (int d = 0; d < nd; d++) onum *= osz[d];
    if (onum == 0) return tn_pool_new(nd, osz, dt, fmt);
    if (!tn_nn_float(dt))
        return tn_kernel_missing(k == 3 ? "adaptive_avg_pool3d_cpu" : fmt ? "adaptive_avg_pool2d_channels_last" : nm, dt);
    tn_dtype ct = compute_dtype(dt);
    spatial(t, k, isp);
    PyObject *x = tn_as_dtype(a[0].u.obj, ct, true);
    PyObject *r = x ? tn_tensor_new_empty(nd, osz, ct, TN_DEVICE_CPU) : NULL;
    plan_buf b;
    if (r && plan_alloc(&b, planes_of(t, k), isp, osp) == 0) {
        for (int d = 0; d < 3; d++) adaptive_windows(&b, d);
        b.p.seq_div = true;
        if (k == 3) b.p.rnd = rnd_of(dt);   /* the 3-d frame kernel sums in the tensor's dtype */
        const void *in = tn_data(tn_tensor_of(x));
        void *out = tn_data(tn_tensor_of(r));
        Py_BEGIN_ALLOW_THREADS
        if (ct == TN_DTYPE_F64) tn_avgpool_f64(&b.p, in, out);
        else tn_avgpool_f32(&b.p, in, out);
        Py_END_ALLOW_THREADS
        PyMem_Free(b.buf);
    } else {
        Py_CLEAR(r);
    }
    Py_XDECREF(x);
    return finish(r, dt, fmt);
}

PyObject *tn_op__adaptive_avg_pool2d(tn_value *a) { return adaptive_avg_fwd(a, 2); }
PyObject *tn_op__adaptive_avg_pool3d(tn_value *a) { return adaptive_avg_fwd(a, 3); }

/* _adaptive_avg_pool{2,3}d_backward(grad_output, self) */
static PyObject *adaptive_avg_bwd(tn_value *a, int k) {
    tn_tensor *g = TN_T(a[0]), *t = TN_T(a[1]);
    const char *nm = k == 2 ? "adaptive_avg_pool2d_backward" : "adaptive_avg_pool3d_backward";
    char sh[256];
    int nd = g->ndim;
    shape_str(sh, sizeof sh, g);
    for (int i = 1; i < nd; i++)
        if (g->sizes[i] <= 0) {
            PyErr_Format(PyExc_RuntimeError, "%s(): Expected grad_output to have non-zero size for non-batch dimensions, but "
                         "grad_output has sizes %s with dimension %d being empty", nm, sh, i);
            return NULL;
        }
    /* the 3d CPU kernel then wants grad_output of self's dims and reads self.size(-4) (IndexError
     * for self of fewer than 4 dims) before its other checks (measured); meta goes elsewhere */
    if (k == 3 && !tn_door_on_meta()) {
        if (nd != t->ndim) {
            PyErr_Format(PyExc_RuntimeError, "adaptive_avg_pool3d_backward_out_cpu_template: Expected dimensions %d for "
                         "`gradOutput_` but got dimensions %d", t->ndim, nd);
            return NULL;
        }
        if (tn_size_read(t, -4) < 0) return NULL;
    }
    if (!(nd == k + 1 || nd == k + 2)) {
        shape_str(sh, sizeof sh, t);
        PyErr_Format(PyExc_RuntimeError, "%s(): Expected %dD or %dD tensor, but got %s", nm, k + 1, k + 2, sh);
        return NULL;
    }
    if (t->dtype != g->dtype) {
        PyErr_Format(PyExc_RuntimeError, "adaptive_avg_pool%dd_backward_out_cpu_template: Expected dtype %s for `grad_output` but "
                     "got dtype %s", k, tn_dtype_cxx_name(t->dtype), tn_dtype_cxx_name(g->dtype));
        return NULL;
    }
    bool same = t->ndim == nd;
    for (int i = 0; same && i < nd - k; i++) same = t->sizes[i] == g->sizes[i];
    if (!same) {
        PyErr_Format(PyExc_RuntimeError, "%s: grad_output and self must agree in their non-spatial dimensions", nm);
        return NULL;
    }
    tn_dtype dt = t->dtype;
    int fmt = k == 2 && t->ndim == 4 ? tn_suggest_format(t) : 0;
    if (!tn_nn_float(dt)) return tn_kernel_missing(k == 3 ? "adaptive_avg_pool3d_backward_cpu" : fmt ? "adaptive_avg_pool2d_backward_channels_last" : nm, dt);
    tn_dtype ct = compute_dtype(dt);
    int64_t isp[3], osp[3];
    spatial(t, k, isp);
    spatial(g, k, osp);
    PyObject *gc = tn_as_dtype(a[0].u.obj, ct, true);
    PyObject *r = gc ? tn_tensor_new_empty(nd, t->sizes, ct, TN_DEVICE_CPU) : NULL;
    plan_buf b;
    if (r && plan_alloc(&b, planes_of(t, k), isp, osp) == 0) {
        for (int d = 0; d < 3; d++) adaptive_windows(&b, d);
        b.p.seq_div = true;
        b.p.rnd = rnd_of(dt);
        if (tn_numel(tn_tensor_of(r)) > 0) {
            const void *gv = tn_data(tn_tensor_of(gc));
            void *gi = tn_data(tn_tensor_of(r));
            Py_BEGIN_ALLOW_THREADS
            if (ct == TN_DTYPE_F64) tn_avgpool_bwd_f64(&b.p, gv, gi);
            else tn_avgpool_bwd_f32(&b.p, gv, gi);
            Py_END_ALLOW_THREADS
        }
        PyMem_Free(b.buf);
    } else {
        Py_CLEAR(r);
    }
    Py_XDECREF(gc);
    return finish(r, dt, fmt);
}

PyObject *tn_op__adaptive_avg_pool2d_backward(tn_value *a) { return adaptive_avg_bwd(a, 2); }
PyObject *tn_op__adaptive_avg_pool3d_backward(tn_value *a) { return adaptive_avg_bwd(a, 3); }

/* adaptive_max_pool{2,3}d(self, output_size) -> (values, indices) */
static PyObject *adaptive_max_fwd(tn_value *a, int k) {
    tn_tensor *t = TN_T(a[0]);
    const char *nm = k == 2 ? "adaptive_max_pool2d" : "adaptive_max_pool3d";
    char sh[256];
    shape_str(sh, sizeof sh, t);
    int nd = t->ndim;
    if (!(nd == k + 1 || nd == k + 2)) {
        PyErr_Format(PyExc_RuntimeError, "%s(): Expected %dD or %dD tensor, but got: %s", nm, k + 1, k + 2, sh);
        return NULL;
    }
    for (int i = 1; i < nd; i++)
        if (t->sizes[i] <= 0) {
            PyErr_Format(PyExc_RuntimeError, "%s(): Expected input to have non-zero size for non-batch dimensions, but input has "
                         "sizes %s with dimension %d being empty", nm, sh, i);
            return NULL;
        }
    if (list_len(&a[1]) != k) {
        PyErr_Format(PyExc_RuntimeError, "%s(): internal error: output_size.size() must be %d", nm, k);
        return NULL;
    }
    int64_t osp[3] = {1, 1, 1}, isp[3], osz[5];
    for (int i = 0; i < k; i++) osp[3 - k + i] = list_at(&a[1], i);
    for (int d = 0; d < nd; d++) osz[d] = d < nd - k ? t->sizes[d] : osp[d - nd + 3];
    for (int d = 0; d < nd; d++)
        if (osz[d] < 0) {
            char os[256];
            tn_shape_str(os, sizeof os, nd, osz);
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: %s", (long long)osz[d], os);
            return NULL;
        }
    tn_dtype dt = t->dtype;
    int fmt = nd == k + 2 ? tn_suggest_format(t) : 0;
    if (fmt != k) fmt = 0;
    if (!tn_nn_float(dt))
        return tn_kernel_missing(k == 3 ? "adaptive_max_pool3d_cpu" : fmt ? "adaptive_max_pool2d_channels_last" : nm, dt);
    spatial(t, k, isp);
    PyObject *x = tn_as_dtype(a[0].u.obj, compute_dtype(dt), true);
    if (!x) return NULL;
    plan_buf b;
    PyObject *val = NULL, *idx = NULL;
    if (plan_alloc(&b, planes_of(t, k), isp, osp) == 0) {
        for (int d = 0; d < 3; d++) adaptive_windows(&b, d);
        run_max(&b.p, x, nd, osz, &val, &idx);
        PyMem_Free(b.buf);
    }
    Py_DECREF(x);
    if (!idx) return NULL;
    val = finish(val, dt, fmt);
    idx = finish(idx, TN_DTYPE_I64, fmt);
    if (!val || !idx) {
        Py_XDECREF(val);
        Py_XDECREF(idx);
        return NULL;
    }
    PyObject *r = PyTuple_Pack(2, val, idx);
    Py_DECREF(val);
    Py_DECREF(idx);
    return r;
}

PyObject *tn_op_adaptive_max_pool2d(tn_value *a) { return adaptive_max_fwd(a, 2); }
PyObject *tn_op_adaptive_max_pool3d(tn_value *a) { return adaptive_max_fwd(a, 3); }

/* adaptive_max_pool{2,3}d_backward(grad_output, self, indices) */
static PyObject *adaptive_max_bwd(tn_value *a, int k) {
    tn_tensor *g = TN_T(a[0]), *t = TN_T(a[1]), *ix = TN_T(a[2]);
    char sh[256];
    int nd = g->ndim;
    shape_str(sh, sizeof sh, g);
    if (!(nd == k + 1 || nd == k + 2)) {
        PyErr_Format(PyExc_RuntimeError, "adaptive_max_pooling%dd_backward(): Expected %dD or %dD grad_output, but got: %s", k, k + 1,
                     k + 2, sh);
        return NULL;
    }
    for (int i = 1; i < nd; i++)
        if (g->sizes[i] <= 0) {
            PyErr_Format(PyExc_RuntimeError, "adaptive_max_pool%dd_backward(): Expected grad_output to have non-zero size for "
                         "non-batch dimensions, but grad_output has sizes %s with dimension %d being empty", k, sh, i);
            return NULL;
        }
    if (t->dtype != g->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected dtype %s for `grad_output` but got dtype %s", tn_dtype_cxx_name(t->dtype),
                     tn_dtype_cxx_name(g->dtype));
        return NULL;
    }
    bool same = ix->ndim == nd;
    for (int i = 0; same && i < nd; i++) same = ix->sizes[i] == g->sizes[i];
    if (!same) {
        char s1[256];
        shape_str(s1, sizeof s1, ix);
        PyErr_Format(PyExc_RuntimeError, "expected sizes %s for `grad_output` but got sizes %s", s1, sh);
        return NULL;
    }
    same = t->ndim == nd;
    for (int i = 0; same && i < nd - k; i++) same = t->sizes[i] == g->sizes[i];
    if (!same) {
        PyErr_Format(PyExc_RuntimeError, "adaptive_max_pool%dd_backward: grad_output, indices and self do not agree in shape", k);
        return NULL;
    }
    return run_max_bwd(a[0].u.obj, a[1].u.obj, a[2].u.obj, k,
                       k == 2 ? "adaptive_max_pool2d_backward_cpu" : "adaptive_max_pool3d_backward_cpu");
}

PyObject *tn_op_adaptive_max_pool2d_backward(tn_value *a) { return adaptive_max_bwd(a, 2); }
PyObject *tn_op_adaptive_max_pool3d_backward(tn_value *a) { return adaptive_max_bwd(a, 3); }

/* ---------------------------------------------------------------- upstream's composites
 * Written over the door (the typed op API, dispatch/aten.h), so the same functions serve as
 * autograd/decomp.c's decompositions: under a dispatch mode or while recording, the pieces are what upstream's
 * composite calls. */

/* upstream's checkDimRange(name, self, 2, 4) */
static int pool_dim_range(tn_value *a, const char *name) {
    int nd = tn_tensor_of(a[0].u.obj)->ndim;
    if (nd >= 2 && nd < 4) return 0;
    PyErr_Format(PyExc_RuntimeError, "Expected 2 to 3 dimensions, but got %d-dimensional tensor for argument #1 'self' "
                 "(while checking arguments for %s)", nd, name);
    return -1;
}
/* upstream's check1d */
static int pool_check1d(const char *fn, const char *arg, const tn_value *v) {
    int n = list_len(v);
    if (n == 1) return 0;
    PyErr_Format(PyExc_RuntimeError, "%s() argument '%s' should contain one int (got %d)", fn, arg, n);
    return -1;
}
/* element k of a tuple result (steals r) */
static PyObject *pool_item(PyObject *r, int k) {
    PyObject *x = r ? Py_XNewRef(PyTuple_GetItem(r, k)) : NULL;
    Py_XDECREF(r);
    return x;
}
/* (squeeze(a, -2), squeeze(b, -2)) of a pair (steals r) */
static PyObject *pool_squeeze_pair(PyObject *r) {
    if (!r) return NULL;
    PyObject *v = tn_at_squeeze_dim(PyTuple_GetItem(r, 0), -2);
    PyObject *i = v ? tn_at_squeeze_dim(PyTuple_GetItem(r, 1), -2) : NULL;
    Py_DECREF(r);
    PyObject *t = i ? PyTuple_Pack(2, v, i) : NULL;
    Py_XDECREF(v);
    Py_XDECREF(i);
    return t;
}
PyObject *tn_op_max_pool2d(tn_value *a) {
    PyObject *k = tn_value_to_python(&a[1]), *s = tn_value_to_python(&a[2]), *p = tn_value_to_python(&a[3]), *d = tn_value_to_python(&a[4]);
    if (k && s && p && d && tn_quant_of(a[0].u.obj)) {   /* upstream's composite: quantized_max_pool2d (ops/qops.c) */
        PyObject *q = tn_at_quantized_max_pool2d(a[0].u.obj, TN_IPY(k), TN_IPY(s), TN_IPY(p), TN_IPY(d), a[5].u.i);
        Py_DECREF(k); Py_DECREF(s); Py_DECREF(p); Py_DECREF(d);
        return q;
    }
    PyObject *r = k && s && p && d ? tn_at_max_pool2d_with_indices(a[0].u.obj, TN_IPY(k), TN_IPY(s), TN_IPY(p), TN_IPY(d), a[5].u.i) : NULL;
    Py_XDECREF(k); Py_XDECREF(s); Py_XDECREF(p); Py_XDECREF(d);
    return pool_item(r, 0);
}
PyObject *tn_op_max_pool3d(tn_value *a) {
    PyObject *k = tn_value_to_python(&a[1]), *s = tn_value_to_python(&a[2]), *p = tn_value_to_python(&a[3]), *d = tn_value_to_python(&a[4]);
    PyObject *r = k && s && p && d ? tn_at_max_pool3d_with_indices(a[0].u.obj, TN_IPY(k), TN_IPY(s), TN_IPY(p), TN_IPY(d), a[5].u.i) : NULL;
    Py_XDECREF(k); Py_XDECREF(s); Py_XDECREF(p); Py_XDECREF(d);
    return pool_item(r, 0);
}
/* max_pool1d_with_indices: max_pool2d_with_indices over self.unsqueeze(-2), both results squeezed */
PyObject *tn_op_max_pool1d_with_indices(tn_value *a) {
    if (pool_dim_range(a, "max_pool1d") < 0) return NULL;
    bool no_stride = list_len(&a[2]) == 0;
    if (pool_check1d("max_pool1d", "kernel_size", &a[1]) < 0 || pool_check1d("max_pool1d", "stride", no_stride ? &a[1] : &a[2]) < 0 ||
        pool_check1d("max_pool1d", "padding", &a[3]) < 0 || pool_check1d("max_pool1d", "dilation", &a[4]) < 0)
        return NULL;
    long long k = list_at(&a[1], 0), s = no_stride ? k : list_at(&a[2], 0), p = list_at(&a[3], 0), d = list_at(&a[4], 0);
    PyObject *u = tn_at_unsqueeze(a[0].u.obj, -2);
    PyObject *r = u ? tn_at_max_pool2d_with_indices(u, TN_IS(1, k), TN_IS(1, s), TN_IS(0, p), TN_IS(1, d), a[5].u.i) : NULL;
    Py_XDECREF(u);
    return pool_squeeze_pair(r);
}
PyObject *tn_pool_max_pool1d_composite(tn_value *a) {
    int64_t ow;
    if (tn_max_pool1d_check(a, &ow) < 0) return NULL;
    return pool_item(tn_op_max_pool1d_with_indices(a), 0);
}
/* avg_pool1d: avg_pool2d over self.unsqueeze(-2), squeezed */
PyObject *tn_op_avg_pool1d(tn_value *a) {
    bool no_stride = list_len(&a[2]) == 0;
    if (pool_dim_range(a, "avg_pool1d") < 0 || pool_check1d("avg_pool1d", "kernel_size", &a[1]) < 0 ||
        pool_check1d("avg_pool1d", "stride", no_stride ? &a[1] : &a[2]) < 0 || pool_check1d("avg_pool1d", "padding", &a[3]) < 0)
        return NULL;
    long long k = list_at(&a[1], 0), s = no_stride ? k : list_at(&a[2], 0), p = list_at(&a[3], 0);
    PyObject *u = tn_at_unsqueeze(a[0].u.obj, -2);
    PyObject *r = u ? tn_at_avg_pool2d(u, TN_IS(1, k), TN_IS(1, s), TN_IS(0, p), a[4].u.i, a[5].u.i, NULL) : NULL;
    Py_XDECREF(u);
    PyObject *o = r ? tn_at_squeeze_dim(r, -2) : NULL;
    Py_XDECREF(r);
    return o;
}
/* adaptive_avg_pool{2,3}d: output 1 x 1 (x 1) is a mean over the spatial dims (restrided to
 * channels-last for a channels-last input), else _adaptive_avg_pool{2,3}d */
static PyObject *adaptive_avg_nd(tn_value *a, int k) {
    int n = list_len(&a[1]);
    int64_t o[3] = {0, 0, 0};
    for (int i = 0; i < n && i < 3; i++) o[i] = list_at(&a[1], i);
    if (n != k) {
        PyErr_Format(PyExc_RuntimeError, "adaptive_avg_pool%dd: output_size must be %d", k, k);
        return NULL;
    }
    if (k == 2 && !(o[0] >= 0 && o[1] >= 0)) {
        PyErr_Format(PyExc_RuntimeError, "adaptive_avg_pool2d: elements of output_size must be greater than or equal to 0 but "
                     "received {%lld, %lld}", (long long)o[0], (long long)o[1]);
        return NULL;
    }
    if (k == 3 && !(o[0] >= 0 && o[1] >= 0 && o[2] >= 0)) {
        PyErr_Format(PyExc_RuntimeError, "adaptive_avg_pool3d: elements of output_size must be greater than or equal to 0 but "
                     "received {%lld, %lld,%lld}", (long long)o[0], (long long)o[1], (long long)o[2]);
        return NULL;
    }
    bool ones = true;
    for (int i = 0; i < k; i++) ones = ones && o[i] == 1;
    PyObject *x = a[0].u.obj;
    if (!ones || tn_quant_of(x)) {   /* upstream's composite: quantized inputs never take the mean */
        PyObject *os = tn_value_to_python(&a[1]), *r = os ? (k == 2 ? tn_at__adaptive_avg_pool2d(x, TN_IPY(os)) : tn_at__adaptive_avg_pool3d(x, TN_IPY(os))) : NULL;
        Py_XDECREF(os);
        return r;
    }
    PyObject *r = k == 2 ? tn_at_mean_dim(x, TN_IS(-1, -2), true, NULL)
                         : tn_at_mean_dim(x, TN_IS(-1, -2, -3), true, NULL);
    const tn_tensor *t = tn_tensor_of(x);
    if (r && tn_suggest_format(t) == k && !((tn_tensor_obj *)r)->grad_fn && tn_tensor_of(r)->storage->refcnt == 1) {
        /* upstream: out.as_strided_(sizes, channels-last strides). The fresh mean result is
         * contiguous [n, c, 1, ...], which holds its elements where those strides put them, so
         * restriding in place changes no element */
        tn_tensor *rt = tn_tensor_of(r);
        rt->strides[0] = t->sizes[1];
        rt->strides[1] = 1;
        for (int d = 2; d < rt->ndim; d++) rt->strides[d] = t->sizes[1];
    } else if (r && tn_suggest_format(t) == k) {
        /* recording: upstream's in-place as_strided_ (AsStridedBackward1) is not implemented;
         * the same view through as_strided (AsStridedBackward0) gives the same values and
         * gradients */
        long long nb = t->sizes[0], c = t->sizes[1];
        PyObject *v = k == 2 ? tn_at_as_strided(r, TN_IS(nb, c, 1, 1), TN_IS(c, 1, c, c), NULL)
                             : tn_at_as_strided(r, TN_IS(nb, c, 1, 1, 1), TN_IS(c, 1, c, c, c), NULL);
        Py_SETREF(r, v);
    }
    return r;
}
PyObject *tn_op_adaptive_avg_pool2d(tn_value *a) { return adaptive_avg_nd(a, 2); }
PyObject *tn_op_adaptive_avg_pool3d(tn_value *a) { return adaptive_avg_nd(a, 3); }
/* adaptive_avg_pool1d / adaptive_max_pool1d: the 2-d op over self.unsqueeze(-2) with output (1, n) */
PyObject *tn_op_adaptive_avg_pool1d(tn_value *a) {
    if (pool_dim_range(a, "adaptive_avg_pool1d") < 0 || pool_check1d("adaptive_avg_pool1d", "output_size", &a[1]) < 0) return NULL;
    PyObject *u = tn_at_unsqueeze(a[0].u.obj, -2);
    PyObject *r = u ? tn_at_adaptive_avg_pool2d(u, TN_IS(1, (long long)list_at(&a[1], 0))) : NULL;
    Py_XDECREF(u);
    PyObject *o = r ? tn_at_squeeze_dim(r, -2) : NULL;
    Py_XDECREF(r);
    return o;
}
PyObject *tn_op_adaptive_max_pool1d(tn_value *a) {
    if (pool_dim_range(a, "adaptive_max_pool1d") < 0 || pool_check1d("adaptive_max_pool1d", "output_size", &a[1]) < 0) return NULL;
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    for (int i = 1; i < t->ndim; i++)
        if (t->sizes[i] <= 0) {
            char sh[256];
            tn_shape_str(sh, sizeof sh, t->ndim, t->sizes);
            PyErr_Format(PyExc_RuntimeError, "adaptive_max_pool1d(): Expected input to have non-zero size for non-batch dimensions, "
                         "but input has sizes %s with dimension %d being empty", sh, i);
            return NULL;
        }
    PyObject *u = tn_at_unsqueeze(a[0].u.obj, -2);
    PyObject *r = u ? tn_at_adaptive_max_pool2d(u, TN_IS(1, (long long)list_at(&a[1], 0))) : NULL;
    Py_XDECREF(u);
    return pool_squeeze_pair(r);
}

