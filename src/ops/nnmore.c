/* ops/nnmore.c — nn.functional breadth (helper-nnf): glu / glu_backward, one_hot, pixel_shuffle,
 * pixel_unshuffle and channel_shuffle, each built from ops through the door in the order
 * upstream's CPU code computes (GluOpKernel.cpp, Activation.cpp, Onehot.cpp, PixelShuffle.cpp,
 * ChanelShuffle.cpp); checks and messages measured against torch 2.13.0.
 *  - glu: a * sigmoid(b) over the two halves of dim; bf16 / f16 widen to float and round once,
 *    as upstream's opmath kernel;
 *  - glu_backward: s = sigmoid(b) (stored in the dtype), second half (1 - s) * s * a * grad
 *    (opmath for bf16 / f16, one rounding), first half s * grad, concatenated along dim;
 *  - one_hot (CompositeImplicitAutograd, run by autograd/decomp.c as its pieces): min / max
 *    checks, zeros(shape + [C]) and scatter_(-1, self.unsqueeze(-1), 1);
 *  - the shuffles: reshape, permute, and a contiguous copy (upstream's kernels write a new
 *    tensor in the input's suggested memory format). */
#include "ops/nnmore.h"

#include "autograd/autograd.h"
#include "ops/common.h"
#include "tn_ops_gen.h"

#include <math.h>
#include "core/random.h"
#include "kernels/ref/ew_impl.h"
#include "core/pystate.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static PyObject *to_dt(PyObject *x, tn_dtype dt) {
    PyObject *d = tn_py_from_dtype(dt);
    PyObject *r = d ? tn_at_to_dtype(x, d, false, false, NULL) : NULL;
    Py_XDECREF(d);
    return r;
}

static bool reduced(tn_dtype dt) { return dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16; }

/* A result written into out= (resized to the result's shape, cast to out's dtype where the
 * result dtype can be cast to it, as upstream's TensorIterator out=). Steals r. */
static PyObject *into_out(PyObject *r, PyObject *out, const char *name) {
    if (!r || !out) return r;
    const tn_tensor *t = tn_tensor_of(r);
    if (tn_out_prepare(out, t->ndim, t->sizes, t->dtype, name) < 0 || tn_copy_into(out, r) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    Py_DECREF(r);
    return Py_NewRef(out);
}

/* ---------------------------------------------------------------- glu */

static int glu_dim(PyObject *self, int64_t dim, const char *scalar_msg, int64_t *wd) {
    const tn_tensor *t = tn_tensor_of(self);
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_RuntimeError, scalar_msg);
        return -1;
    }
    if (tn_wrap_dim(dim, t->ndim, wd) < 0) return -1;
    if (t->sizes[*wd] % 2) {
        PyErr_Format(PyExc_RuntimeError, "Halving dimension must be even, but dimension %lld is size %lld",
                     (long long)*wd, (long long)t->sizes[*wd]);
        return -1;
    }
    return 0;
}

static int glu_dtype(tn_dtype dt, const char *k) {
    if (tn_dtype_is_floating(dt)) return 0;
    PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'", k, tn_dtype_cpp_name(dt));
    return -1;
}

static PyObject *glu_impl(tn_value *a, PyObject *out) {
    PyObject *self = a[0].u.obj;
    int64_t d;
    if (glu_dim(self, a[1].u.i, "glu does not support scalars because halving size must be even", &d) < 0) return NULL;
    tn_dtype dt = tn_tensor_of(self)->dtype;
    /* the structured iterator's cast into out= before the kernel's dtype refusal (measured) */
    if (out && !tn_can_cast(dt, tn_tensor_of(out)->dtype)) return tn_cast_error(dt, tn_tensor_of(out)->dtype);
    if (glu_dtype(dt, "glu_cpu") < 0) return NULL;
    int64_t n = tn_tensor_of(self)->sizes[d] / 2;
    PyObject *x = reduced(dt) ? to_dt(self, TN_DTYPE_F32) : Py_NewRef(self);
    PyObject *h1 = x ? tn_at_narrow(x, (long long)d, 0LL, (long long)n) : NULL;
    PyObject *h2 = h1 ? tn_at_narrow(x, (long long)d, (long long)n, (long long)n) : NULL;
    PyObject *s = h2 ? tn_at_sigmoid(h2) : NULL;
    PyObject *r = s ? tn_at_mul_Tensor(h1, s) : NULL;
    Py_XDECREF(x); Py_XDECREF(h1); Py_XDECREF(h2); Py_XDECREF(s);
    if (r && reduced(dt)) {
        PyObject *c = to_dt(r, dt);
        Py_DECREF(r);
        r = c;
    }
    return into_out(r, out, "glu");
}
PyObject *tn_op_glu(tn_value *a) { return glu_impl(a, NULL); }
PyObject *tn_op_glu_out(tn_value *a) { return glu_impl(a, a[2].u.obj); }

/* glu_backward(grad_output, self, dim) */
static PyObject *glu_bwd_impl(tn_value *a, PyObject *out) {
    PyObject *g = a[0].u.obj, *self = a[1].u.obj;
    int64_t d;
    if (glu_dim(self, a[2].u.i, "glu does not support 0-dimensional tensors", &d) < 0) return NULL;
    tn_dtype dt = tn_tensor_of(self)->dtype, od = out ? tn_tensor_of(out)->dtype : dt, gd = tn_tensor_of(g)->dtype;
    /* upstream writes sigmoid(second half) into grad_input's first half (its cast check), then
     * runs an iterator of grad_input's dtype over that half, self and grad_output (all one dtype),
     * whose kernel takes floating dtypes only (measured) */
    tn_dtype sd = tn_dtype_is_integral(dt, true) ? tn_py.default_dtype : dt;
    if (!tn_can_cast(sd, od)) return tn_cast_error(sd, od);
    if (tn_dtype_infos[sd].kind == TN_KIND_FLOAT8 || sd == TN_DTYPE_C32)   /* sigmoid's kernel lacks them */
        return tn_kernel_missing(sd == TN_DTYPE_C32 ? "sigmoid_cpu" : "sigmoid_cpu_reduced_float", sd);
    if (dt != od || gd != od) {
        PyErr_Format(PyExc_RuntimeError, "Found dtype %s but expected %s", tn_dtype_cpp_name(dt != od ? dt : gd),
                     tn_dtype_cpp_name(od));
        return NULL;
    }
    if (glu_dtype(dt, "glu_backward_cpu") < 0) return NULL;
    int64_t n = tn_tensor_of(self)->sizes[d] / 2;
    bool rd = reduced(dt);
    PyObject *h1 = tn_at_narrow(self, (long long)d, 0LL, (long long)n);
    PyObject *h2 = h1 ? tn_at_narrow(self, (long long)d, (long long)n, (long long)n) : NULL;
    PyObject *s = h2 ? tn_at_sigmoid(h2) : NULL;
    PyObject *sf = s ? (rd ? to_dt(s, TN_DTYPE_F32) : Py_NewRef(s)) : NULL;
    PyObject *af = sf ? (rd ? to_dt(h1, TN_DTYPE_F32) : Py_NewRef(h1)) : NULL;
    PyObject *gf = af ? (rd ? to_dt(g, TN_DTYPE_F32) : Py_NewRef(g)) : NULL;
    PyObject *t1 = gf ? tn_at_rsub_Scalar(sf, TN_SI(1), TN_SDEF) : NULL;
    PyObject *t2 = t1 ? tn_at_mul_Tensor(t1, sf) : NULL;
    PyObject *t3 = t2 ? tn_at_mul_Tensor(t2, af) : NULL;
    PyObject *t4 = t3 ? tn_at_mul_Tensor(t3, gf) : NULL;
    PyObject *second = t4 ? (rd ? to_dt(t4, dt) : Py_NewRef(t4)) : NULL;
    PyObject *first = second ? tn_at_mul_Tensor(s, g) : NULL;
    PyObject *r = NULL;
    if (first) {
        const tn_tensor *f = tn_tensor_of(first), *sc = tn_tensor_of(second), *st = tn_tensor_of(s);
        bool same = f->ndim == st->ndim && sc->ndim == st->ndim;
        for (int i = 0; same && i < st->ndim; i++) same = f->sizes[i] == st->sizes[i] && sc->sizes[i] == st->sizes[i];
        if (!same) {   /* grad broadcast beyond the half's shape: upstream's resize of the output */
            char b1[128], b2[128];
            tn_shape_str(b1, sizeof b1, f->ndim, f->sizes);
            tn_shape_str(b2, sizeof b2, st->ndim, st->sizes);
            PyErr_Format(PyExc_RuntimeError, "output with shape %s doesn't match the broadcast shape %s", b2, b1);
        } else {
            r = tn_at_cat(TN_TS(first, second), (long long)d);
        }
    }
    Py_XDECREF(h1); Py_XDECREF(h2); Py_XDECREF(s); Py_XDECREF(sf); Py_XDECREF(af); Py_XDECREF(gf);
    Py_XDECREF(t1); Py_XDECREF(t2); Py_XDECREF(t3); Py_XDECREF(t4); Py_XDECREF(second); Py_XDECREF(first);
    return into_out(r, out, "glu_backward");
}
PyObject *tn_op_glu_backward(tn_value *a) { return glu_bwd_impl(a, NULL); }
PyObject *tn_op_glu_backward_grad_input(tn_value *a) { return glu_bwd_impl(a, a[3].u.obj); }

/* ---------------------------------------------------------------- one_hot */

static int item_i64(PyObject *t, int64_t *v) {
    tn_scalar s;
    if (!t) return -1;
    int rc = tn_scalar_of_0dim(t, &s);
    Py_DECREF(t);
    if (rc < 0) return -1;
    *v = s.i;   /* a long tensor's value (tn_scalar_of_0dim fills i for integral dtypes) */
    return 0;
}

PyObject *tn_op_one_hot(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int64_t nc = a[1].u.i;
    if (t->dtype != TN_DTYPE_I64) {
        PyErr_SetString(PyExc_RuntimeError, "one_hot is only applicable to index tensor of type LongTensor.");
        return NULL;
    }
    int64_t shape[TN_MAX_DIMS + 1];
    int nd = t->ndim;
    memcpy(shape, t->sizes, (size_t)nd * sizeof *shape);
    if (tn_numel(t) == 0) {
        if (nc <= 0) {
            PyErr_SetString(PyExc_RuntimeError, "Can not infer total number of classes from empty tensor.");
            return NULL;
        }
        shape[nd] = nc;
        return tn_at_empty_memory_format(TN_IN(shape, nd + 1), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL);
    }
    int64_t mn, mx;
    if (item_i64(tn_at_min(self), &mn) < 0) return NULL;
    if (mn < 0) {
        PyErr_SetString(PyExc_RuntimeError, "Class values must be non-negative.");
        return NULL;
    }
    if (item_i64(tn_at_max(self), &mx) < 0) return NULL;
    if (nc == -1) nc = mx + 1;
    else if (!(nc > mx)) {
        PyErr_SetString(PyExc_RuntimeError, "Class values must be smaller than num_classes.");
        return NULL;
    }
    shape[nd] = nc;
    PyObject *z = tn_at_zeros(TN_IN(shape, nd + 1), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL);
    PyObject *u = z ? tn_at_unsqueeze(self, -1) : NULL;
    PyObject *s = u ? tn_at_scatter__value(z, -1, u, TN_SI(1)) : NULL;
    Py_XDECREF(u);
    if (!s) { Py_XDECREF(z); return NULL; }
    Py_DECREF(s);
    return z;
}

/* ---------------------------------------------------------------- pixel / channel shuffle */

/* x reshaped to `mid`, permuted by `perm`, copied contiguous into shape `fin`. */
static PyObject *shuffle(PyObject *x, const int64_t *mid, int nm, const int64_t *perm, const int64_t *fin, int nf) {
    PyObject *v = tn_at_reshape(x, TN_IN(mid, nm));
    PyObject *p = v ? tn_at_permute(v, TN_IN(perm, nm)) : NULL;
    PyObject *c = p ? tn_at_contiguous(p, NULL) : NULL;
    if (c && tn_tensor_of(c)->storage == tn_tensor_of(x)->storage) {   /* upstream always writes a new tensor */
        PyObject *k = tn_at_clone(c, NULL);
        Py_DECREF(c);
        c = k;
    }
    PyObject *r = c ? tn_at__unsafe_view(c, TN_IN(fin, nf)) : NULL;
    Py_XDECREF(v); Py_XDECREF(p); Py_XDECREF(c);
    return r;
}

static PyObject *pixel_impl(tn_value *a, bool up) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int64_t f = a[1].u.i;
    const char *nm = up ? "pixel_shuffle" : "pixel_unshuffle";
    if (t->ndim < 3) {
        PyErr_Format(PyExc_RuntimeError, "%s expects input to have at least 3 dimensions, but got input with %d dimension(s)",
                     nm, t->ndim);
        return NULL;
    }
    if (f <= 0) {
        PyErr_Format(PyExc_RuntimeError, "%s expects a positive %s, but got %lld", nm, up ? "upscale_factor" : "downscale_factor",
                     (long long)f);
        return NULL;
    }
    int nd = t->ndim, nb = nd - 3;
    int64_t c = t->sizes[nd - 3], h = t->sizes[nd - 2], w = t->sizes[nd - 1];
    if (up && c % (f * f)) {
        PyErr_Format(PyExc_RuntimeError, "pixel_shuffle expects its input's 'channel' dimension to be divisible by the square "
                     "of upscale_factor, but input.size(-3)=%lld is not divisible by %lld", (long long)c, (long long)(f * f));
        return NULL;
    }
    if (!up && (h % f || w % f)) {
        bool hh = h % f;
        PyErr_Format(PyExc_RuntimeError, "pixel_unshuffle expects %s to be divisible by downscale_factor, but input.size(%d)=%lld "
                     "is not divisible by %lld", hh ? "height" : "width", hh ? -2 : -1, (long long)(hh ? h : w), (long long)f);
        return NULL;
    }
    int64_t mid[TN_MAX_DIMS + 3], perm[TN_MAX_DIMS + 3], fin[TN_MAX_DIMS];
    for (int i = 0; i < nb; i++) { mid[i] = fin[i] = t->sizes[i]; perm[i] = i; }
    if (up) {   /* (.., oc, f, f, h, w) -> (.., oc, h, f, w, f) */
        int64_t oc = c / (f * f);
        int64_t m[5] = {oc, f, f, h, w}, p[5] = {0, 3, 1, 4, 2}, o[3] = {oc, h * f, w * f};
        for (int i = 0; i < 5; i++) { mid[nb + i] = m[i]; perm[nb + i] = nb + p[i]; }
        for (int i = 0; i < 3; i++) fin[nb + i] = o[i];
    } else {    /* (.., c, oh, f, ow, f) -> (.., c, f, f, oh, ow) */
        int64_t oh = h / f, ow = w / f;
        int64_t m[5] = {c, oh, f, ow, f}, p[5] = {0, 2, 4, 1, 3}, o[3] = {c * f * f, oh, ow};
        for (int i = 0; i < 5; i++) { mid[nb + i] = m[i]; perm[nb + i] = nb + p[i]; }
        for (int i = 0; i < 3; i++) fin[nb + i] = o[i];
    }
    return shuffle(self, mid, nb + 5, perm, fin, nd);
}
PyObject *tn_op_pixel_shuffle(tn_value *a) { return pixel_impl(a, true); }
PyObject *tn_op_pixel_unshuffle(tn_value *a) { return pixel_impl(a, false); }

/* channel_shuffle(self, groups): (b, g, c/g, *rest) -> (b, c/g, g, *rest) */
PyObject *tn_op_channel_shuffle(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int64_t g = a[1].u.i;
    if (t->ndim <= 2) {
        char b[256];
        tn_shape_str(b, sizeof b, t->ndim, t->sizes);
        PyErr_Format(PyExc_RuntimeError, "channel_shuffle expects input with > 2 dims, but got input with sizes %s", b);
        return NULL;
    }
    if (g <= 0) {
        PyErr_Format(PyExc_RuntimeError, "Number of groups to divide channels in must be positive. Value of groups:%lld",
                     (long long)g);
        return NULL;
    }
    int64_t c = t->sizes[1];
    if (c % g) {
        PyErr_Format(PyExc_RuntimeError, "Number of channels must be divisible by groups. Got %lld channels and %lld groups.",
                     (long long)c, (long long)g);
        return NULL;
    }
    int nd = t->ndim;
    int64_t mid[TN_MAX_DIMS + 1], perm[TN_MAX_DIMS + 1];
    mid[0] = t->sizes[0]; mid[1] = g; mid[2] = c / g;
    perm[0] = 0; perm[1] = 2; perm[2] = 1;
    for (int i = 2; i < nd; i++) { mid[i + 1] = t->sizes[i]; perm[i + 1] = i + 1; }
    return shuffle(self, mid, nd + 1, perm, t->sizes, nd);
}

/* ---------------------------------------------------------------- prelu */

/* prelu(self, weight) (CompositeImplicitAutograd, run by autograd/decomp.c): upstream's checks,
 * weight reshaped to broadcast over self ([1, C, 1, ...]), then _prelu_kernel. */
PyObject *tn_op_prelu(tn_value *a) {
    PyObject *self = a[0].u.obj, *w = a[1].u.obj;
    const tn_tensor *x = tn_tensor_of(self), *wt = tn_tensor_of(w);
    if (x->dtype != wt->dtype) {
        PyErr_Format(PyExc_RuntimeError, "prelu: Type promoting not supported. Got %s and %s", tn_dtype_cpp_name(x->dtype),
                     tn_dtype_cpp_name(wt->dtype));
        return NULL;
    }
    int64_t wn = tn_numel(wt);
    if (wn != 1) {
        if (x->ndim == 0) {
            PyErr_SetString(PyExc_RuntimeError, "Not allow zero-dim input tensor.");
            return NULL;
        }
        int64_t ch = x->ndim > 1 ? x->sizes[1] : 1;
        if (ch != wn) {
            PyErr_Format(PyExc_RuntimeError, "Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                         "%lld and channel size = %lld.", (long long)wn, (long long)ch);
            return NULL;
        }
    }
    if (wt->ndim > 1) {
        PyErr_Format(PyExc_RuntimeError, "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = %d", wt->ndim);
        return NULL;
    }
    PyObject *wr;
    if (x->ndim != wt->ndim) {
        int64_t dw[TN_MAX_DIMS];
        for (int i = 0; i < x->ndim; i++) dw[i] = 1;
        if (x->ndim > 1) dw[1] = wn;
        wr = tn_at_reshape(w, TN_IN(dw, x->ndim));
    } else {
        wr = Py_NewRef(w);
    }
    PyObject *r = wr ? tn_at__prelu_kernel(self, wr) : NULL;
    Py_XDECREF(wr);
    return r;
}

/* the iterator's broadcast of the operands, then one dtype for all, then the kernel's (measured) */
static int prelu_types(PyObject *const *ts, int n) {
    const tn_tensor *tt[3];
    for (int i = 0; i < n; i++) tt[i] = tn_tensor_of(ts[i]);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(n, tt, &nd, shape) < 0) return -1;
    tn_dtype dt = tn_tensor_of(ts[0])->dtype;
    for (int i = 1; i < n; i++)
        if (tn_tensor_of(ts[i])->dtype != dt) {
            PyErr_Format(PyExc_RuntimeError, "Found dtype %s but expected %s", tn_dtype_cpp_name(tn_tensor_of(ts[i])->dtype),
                         tn_dtype_cpp_name(dt));
            return -1;
        }
    if (!tn_dtype_is_floating(dt)) {
        PyErr_Format(PyExc_NotImplementedError, "\"prelu_cpu\" not implemented for '%s'", tn_dtype_cpp_name(dt));
        return -1;
    }
    return 0;
}

/* _prelu_kernel(self, weight): self > 0 ? self : weight * self, broadcast */
PyObject *tn_op__prelu_kernel(tn_value *a) {
    PyObject *ts[2] = {a[0].u.obj, a[1].u.obj};
    if (prelu_types(ts, 2) < 0) return NULL;
    PyObject *p = tn_at_mul_Tensor(ts[1], ts[0]);
    PyObject *m = p ? tn_at_gt_Scalar(ts[0], TN_SI(0)) : NULL;
    PyObject *r = m ? tn_at_where_self(m, ts[0], p) : NULL;
    Py_XDECREF(p); Py_XDECREF(m);
    return r;
}

/* _prelu_kernel_backward(grad, self, weight) -> (self > 0 ? grad : weight * grad,
 * self > 0 ? 0 : self * grad), both of the broadcast shape (autograd sums to weight's) */
PyObject *tn_op__prelu_kernel_backward(tn_value *a) {
    PyObject *g = a[0].u.obj, *x = a[1].u.obj, *w = a[2].u.obj;
    PyObject *ts[3] = {x, w, g};
    if (prelu_types(ts, 3) < 0) return NULL;
    PyObject *m = tn_at_gt_Scalar(x, TN_SI(0));
    PyObject *wg = m ? tn_at_mul_Tensor(w, g) : NULL;
    PyObject *xg = wg ? tn_at_mul_Tensor(x, g) : NULL;
    PyObject *z = xg ? tn_at_zeros_like(xg, NULL, NULL, NULL, NULL, NULL) : NULL;
    PyObject *gi = z ? tn_at_where_self(m, g, wg) : NULL;
    PyObject *gw = gi ? tn_at_where_self(m, z, xg) : NULL;
    Py_XDECREF(m); Py_XDECREF(wg); Py_XDECREF(xg); Py_XDECREF(z);
    if (!gw) { Py_XDECREF(gi); return NULL; }
    /* both outputs take the broadcast shape of all three inputs */
    const tn_tensor *t3[3] = {tn_tensor_of(x), tn_tensor_of(w), tn_tensor_of(g)};
    int nd;
    int64_t sh[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(3, t3, &nd, sh) < 0) { Py_DECREF(gi); Py_DECREF(gw); return NULL; }
    PyObject *outs[2] = {gi, gw};
    for (int k = 0; k < 2; k++) {
        const tn_tensor *o = tn_tensor_of(outs[k]);
        bool same = o->ndim == nd;
        for (int i = 0; same && i < nd; i++) same = o->sizes[i] == sh[i];
        if (!same) {
            PyObject *e = tn_at_expand(outs[k], TN_IN(sh, nd), false), *c = e ? tn_at_contiguous(e, NULL) : NULL;
            Py_XDECREF(e);
            Py_DECREF(outs[k]);
            outs[k] = c;
        }
    }
    if (!outs[0] || !outs[1]) { Py_XDECREF(outs[0]); Py_XDECREF(outs[1]); return NULL; }
    PyObject *tup = PyTuple_Pack(2, outs[0], outs[1]);
    Py_DECREF(outs[0]); Py_DECREF(outs[1]);
    return tup;
}

/* ---------------------------------------------------------------- bilinear / _trilinear */

static int dims_mask(tn_value *v, int total, uint64_t *m) {
    *m = 0;
    PyObject *l = tn_value_to_python(v);
    if (!l) return -1;
    Py_ssize_t n = PySequence_Size(l);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *it = PySequence_GetItem(l, i);
        long long d = it ? PyLong_AsLongLong(it) : -1;
        Py_XDECREF(it);
        if (d == -1 && PyErr_Occurred()) { Py_DECREF(l); return -1; }
        int64_t w;
        if (tn_wrap_dim(d, total, &w) < 0) { Py_DECREF(l); return -1; }
        if (*m >> w & 1) {   /* upstream's dim_list_to_bitset, element by element (measured) */
            Py_DECREF(l);
            PyErr_Format(PyExc_RuntimeError, "dim %lld appears multiple times in the list of dims", (long long)w);
            return -1;
        }
        *m |= (uint64_t)1 << w;
    }
    Py_DECREF(l);
    return 0;
}

/* sum over dims (keepdim), nothing when dims is empty; steals x */
static PyObject *sum_keep(PyObject *x, const int64_t *dims, int n) {
    if (!x || n == 0) return x;
    PyObject *r = tn_at_sum_dim_IntList(x, TN_IN(dims, n), true, NULL);
    Py_DECREF(x);
    return r;
}

/* _trilinear(i1, i2, i3, expand1, expand2, expand3, sumdim, unroll_dim=1): upstream's two
 * sum-products, (i1 * i2) summed over the dims i3 lacks, then (. * i3) summed over the rest,
 * here as broadcast products and sums (float32 for bf16 / f16, rounded after each stage as
 * upstream's bmm rounds); the result has i1's dtype with the summed dims squeezed. */
PyObject *tn_op__trilinear(tn_value *a) {
    PyObject *in[3] = {a[0].u.obj, a[1].u.obj, a[2].u.obj};
    uint64_t ex[3], sd;
    int total;
    {
        PyObject *l = tn_value_to_python(&a[3]);
        if (!l) return NULL;
        total = tn_tensor_of(in[0])->ndim + (int)PySequence_Size(l);
        Py_DECREF(l);
    }
    if (total > 63) return tn_not_implemented("_trilinear over more than 63 dims");
    for (int k = 0; k < 3; k++)
        if (dims_mask(&a[3 + k], total, &ex[k]) < 0) return NULL;
    if (dims_mask(&a[6], total, &sd) < 0) return NULL;
    for (int k = 1; k < 3; k++)
        if (tn_tensor_of(in[k])->ndim + __builtin_popcountll(ex[k]) != total) {
            PyErr_Format(PyExc_RuntimeError, "expand%d dimension mismatch", k + 1);
            return NULL;
        }
    tn_dtype dt = tn_tensor_of(in[0])->dtype;
    bool rd = reduced(dt);
    PyObject *t[3] = {NULL, NULL, NULL}, *r = NULL;
    for (int k = 0; k < 3; k++) {
        t[k] = rd ? to_dt(in[k], TN_DTYPE_F32) : Py_NewRef(in[k]);
        for (int i = 0; t[k] && i < total; i++)
            if (ex[k] >> i & 1) {
                PyObject *u = tn_at_unsqueeze(t[k], i);
                Py_DECREF(t[k]);
                t[k] = u;
            }
        if (!t[k]) goto done;
    }
    int64_t d12[64], d23[64];
    int n12 = 0, n23 = 0;
    for (int i = 0; i < total; i++) {
        if (!(sd >> i & 1)) continue;
        if (ex[2] >> i & 1) d12[n12++] = i;
        else d23[n23++] = i;
    }
    PyObject *b = sum_keep(tn_at_mul_Tensor(t[0], t[1]), d12, n12);
    if (b && rd) { PyObject *c = to_dt(b, dt), *f = c ? to_dt(c, TN_DTYPE_F32) : NULL; Py_DECREF(b); Py_XDECREF(c); b = f; }
    PyObject *o = b ? sum_keep(tn_at_mul_Tensor(b, t[2]), d23, n23) : NULL;
    Py_XDECREF(b);
    if (!o) goto done;
    /* the output's size: 1 on summed dims (before squeezing), else the inputs' broadcast size */
    const tn_tensor *ot = tn_tensor_of(o);
    int64_t osz[64];
    for (int i = 0; i < total; i++) {
        osz[i] = 1;
        for (int k = 0; k < 3; k++)
            if (!(ex[k] >> i & 1)) osz[i] = tn_tensor_of(t[k])->sizes[i];
        if (sd >> i & 1) osz[i] = 1;
    }
    bool same = ot->ndim == total;
    for (int i = 0; same && i < total; i++) same = ot->sizes[i] == osz[i];
    if (!same) {   /* an empty factor: upstream's zeros of the output size */
        Py_DECREF(o);
        o = tn_at_zeros(TN_IN(osz, total), TN_DT(dt), NULL, NULL, NULL);
        if (!o) goto done;
    }
    if (tn_tensor_of(o)->dtype != dt) {
        PyObject *c = to_dt(o, dt);
        Py_DECREF(o);
        if (!(o = c)) goto done;
    }
    {   /* a fresh tensor (upstream's zeros + add_, then squeeze_ of the summed dims) */
        PyObject *c = tn_at_contiguous(o, NULL);
        Py_DECREF(o);
        if (!(o = c)) goto done;
        const tn_storage *st = tn_tensor_of(o)->storage;
        if (st == tn_tensor_of(in[0])->storage || st == tn_tensor_of(in[1])->storage || st == tn_tensor_of(in[2])->storage) {
            c = tn_at_clone(o, NULL);
            Py_DECREF(o);
            if (!(o = c)) goto done;
        }
        int64_t fin[64];
        int nf = 0;
        for (int i = 0; i < total; i++)
            if (!(sd >> i & 1)) fin[nf++] = osz[i];
        c = tn_at__unsafe_view(o, TN_IN(fin, nf));
        Py_DECREF(o);
        if (!(o = c)) goto done;
    }
    r = o;
done:
    for (int k = 0; k < 3; k++) Py_XDECREF(t[k]);
    return r;
}

/* bilinear(input1, input2, weight, bias) (CompositeImplicitAutograd, run by autograd/decomp.c):
 * upstream's checks, both inputs flattened to 2-D, _trilinear, reshape, + bias */
PyObject *tn_op_bilinear(tn_value *a) {
    PyObject *x1 = a[0].u.obj, *x2 = a[1].u.obj, *w = a[2].u.obj, *b = a[3].tag == TN_V_TENSOR ? a[3].u.obj : NULL;
    const tn_tensor *t1 = tn_tensor_of(x1), *t2 = tn_tensor_of(x2), *wt = tn_tensor_of(w);
    if (t1->dtype != t2->dtype || t1->dtype != wt->dtype || (b && t1->dtype != tn_tensor_of(b)->dtype)) {
        if (b)
            PyErr_Format(PyExc_RuntimeError, "All tensors must have the same dtype, got input1: %s, input2: %s, weight: %s, bias: %s",
                         tn_dtype_cxx_name(t1->dtype), tn_dtype_cxx_name(t2->dtype), tn_dtype_cxx_name(wt->dtype),
                         tn_dtype_cxx_name(tn_tensor_of(b)->dtype));
        else
            PyErr_Format(PyExc_RuntimeError, "All tensors must have the same dtype, got input1: %s, input2: %s, weight: %s",
                         tn_dtype_cxx_name(t1->dtype), tn_dtype_cxx_name(t2->dtype), tn_dtype_cxx_name(wt->dtype));
        return NULL;
    }
    if (t1->ndim != t2->ndim) {
        PyErr_Format(PyExc_RuntimeError, "bilinear(): input dimensions do not match: got %d and %d", t1->ndim, t2->ndim);
        return NULL;
    }
    for (int i = 0; i < t1->ndim - 1; i++)
        if (t1->sizes[i] != t2->sizes[i]) {
            PyErr_Format(PyExc_RuntimeError, "bilinear(): input batch dimensions do not match at dim %d: got %lld and %lld", i,
                         (long long)t1->sizes[i], (long long)t2->sizes[i]);
            return NULL;
        }
    /* upstream reads input1.size(-1) and weight.size(1), then input2.size(-1) and weight.size(2),
     * then bias.size(0): IndexError for a missing dim, each pair compared before the next read */
    if (tn_size_read(t1, -1) < 0 || tn_size_read(wt, 1) < 0) return NULL;
    if (t1->sizes[t1->ndim - 1] != wt->sizes[1]) {
        PyErr_Format(PyExc_RuntimeError, "bilinear(): input1 size does not match weight size: got %lld but expected %lld",
                     (long long)t1->sizes[t1->ndim - 1], (long long)wt->sizes[1]);
        return NULL;
    }
    if (tn_size_read(t2, -1) < 0 || tn_size_read(wt, 2) < 0) return NULL;
    if (t2->sizes[t2->ndim - 1] != wt->sizes[2]) {
        PyErr_Format(PyExc_RuntimeError, "bilinear(): input2 size does not match weight size: got %lld but expected %lld",
                     (long long)t2->sizes[t2->ndim - 1], (long long)wt->sizes[2]);
        return NULL;
    }
    if (b && tn_size_read(tn_tensor_of(b), 0) < 0) return NULL;
    if (b && tn_tensor_of(b)->sizes[0] != wt->sizes[0]) {
        PyErr_Format(PyExc_RuntimeError, "bilinear(): bias size does not match weight size: got %lld but expected %lld",
                     (long long)tn_tensor_of(b)->sizes[0], (long long)wt->sizes[0]);
        return NULL;
    }
    if (wt->ndim != 3) {
        PyErr_SetString(PyExc_RuntimeError, "bilinear(): expected 3-D weight");
        return NULL;
    }
    int64_t osz[TN_MAX_DIMS], f1[2] = {-1, t1->sizes[t1->ndim - 1]}, f2[2] = {-1, t2->sizes[t2->ndim - 1]};
    for (int i = 0; i < t1->ndim - 1; i++) osz[i] = t1->sizes[i];
    osz[t1->ndim - 1] = wt->sizes[0];
    static const int64_t e1[2] = {1, 3}, e2[1] = {0}, e3[2] = {1, 2}, sdm[2] = {2, 3};
    PyObject *a1 = tn_at_reshape(x1, TN_IN(f1, 2));
    PyObject *a2 = a1 ? tn_at_reshape(x2, TN_IN(f2, 2)) : NULL;
    PyObject *tr = a2 ? tn_at__trilinear(a1, w, a2, TN_IN(e1, 2), TN_IN(e2, 1), TN_IN(e3, 2), TN_IN(sdm, 2), 1) : NULL;
    PyObject *o = tr ? tn_at_reshape(tr, TN_IN(osz, t1->ndim)) : NULL;
    Py_XDECREF(a1); Py_XDECREF(a2); Py_XDECREF(tr);
    if (o && b) {
        PyObject *s = tn_at_add_Tensor(o, b, TN_SDEF);
        Py_DECREF(o);
        o = s;
    }
    return o;
}

/* ---------------------------------------------------------------- rrelu */

/* upstream's _rrelu_with_noise_train: over the contiguous input in order, x <= 0 draws
 * r = uniform_real<double>(lower, upper) from random64 (53 bits), cast to the opmath type;
 * out = x * r, noise = r; else noise = 1, out = x. x, out, noise: contiguous, of dt. */
static void rrelu_train(tn_generator *gen, tn_dtype dt, const char *x, char *out, char *noise, int64_t n, double lower,
                        double upper) {
    bool dbl = dt == TN_DTYPE_F64;
    double lo = dbl ? lower : (double)(float)lower, hi = dbl ? upper : (double)(float)upper;
    for (int64_t i = 0; i < n; i++) {
        double xv;
        switch (dt) {
        case TN_DTYPE_F64: xv = ((const double *)x)[i]; break;
        case TN_DTYPE_F32: xv = ((const float *)x)[i]; break;
        case TN_DTYPE_BF16: xv = tn__b2f(((const uint16_t *)x)[i]); break;
        default: xv = tn__h2f(((const uint16_t *)x)[i]); break;   /* not reached: f16 refused */
        }
        double r = 1.0, o = xv;
        if (xv <= 0) {
            uint64_t v = tn_generator_random64(gen);
            double u = (double)(v & ((UINT64_C(1) << 53) - 1)) * (1.0 / (double)(UINT64_C(1) << 53));
            double d = u * (hi - lo) + lo;
            if (dbl) { r = d; o = xv * r; }
            else { float rf = (float)d; r = rf; o = (float)((float)xv * rf); }
        }
        switch (dt) {
        case TN_DTYPE_F64: ((double *)out)[i] = o; ((double *)noise)[i] = r; break;
        case TN_DTYPE_F32: ((float *)out)[i] = (float)o; ((float *)noise)[i] = (float)r; break;
        case TN_DTYPE_BF16: ((uint16_t *)out)[i] = tn__f2b((float)o); ((uint16_t *)noise)[i] = tn__f2b((float)r); break;
        default: ((uint16_t *)out)[i] = tn__f2h((float)o); ((uint16_t *)noise)[i] = tn__f2h((float)r); break;
        }
    }
}

/* rrelu_with_noise(self, noise, lower, upper, training, generator) and its in-place / out= forms */
static PyObject *rrelu_noise_impl(tn_value *a, PyObject *out, bool inplace) {
    PyObject *self = a[0].u.obj, *noise = a[1].u.obj;
    const tn_tensor *x = tn_tensor_of(self), *nt = tn_tensor_of(noise);
    bool same = x->ndim == nt->ndim;
    for (int i = 0; same && i < x->ndim; i++) same = x->sizes[i] == nt->sizes[i];
    if (!same) {
        char b1[256], b2[256];
        tn_shape_str(b1, sizeof b1, x->ndim, x->sizes);
        tn_shape_str(b2, sizeof b2, nt->ndim, nt->sizes);
        PyErr_Format(PyExc_RuntimeError, "noise tensor shape must match self tensor shape. Got self.shape = %s noise.shape = %s", b1, b2);
        return NULL;
    }
    double lower = tn_value_as_double(&a[2]), upper = tn_value_as_double(&a[3]);
    bool training = a[4].u.i != 0;
    if (!training) {   /* leaky_relu with slope (lower + upper) / 2, computed in double */
        double slope = (lower + upper) / 2;
        if (a[2].tag == TN_V_COMPLEX || a[3].tag == TN_V_COMPLEX) {
            /* a complex bound makes the slope complex: leaky_relu's own checks, then its conversion */
            double im = ((a[2].tag == TN_V_COMPLEX ? a[2].u.c.im : 0) + (a[3].tag == TN_V_COMPLEX ? a[3].u.c.im : 0)) / 2;
            PyObject *cs = PyComplex_FromDoubles(slope, im);
            if (!cs) return NULL;
            PyObject *r = inplace ? tn_at_leaky_relu_(self, TN_SO(cs)) : out ? tn_at_leaky_relu_out(self, TN_SO(cs), out)
                                                                             : tn_at_leaky_relu(self, TN_SO(cs));
            Py_DECREF(cs);
            return r;
        }
        if (inplace) return tn_at_leaky_relu_(self, TN_SD(slope));
        if (out) return tn_at_leaky_relu_out(self, TN_SD(slope), out);   /* upstream's leaky_relu_out: its checks */
        return tn_at_leaky_relu(self, TN_SD(slope));
    }
    tn_dtype dt = x->dtype;
    if (!tn_dtype_is_floating(dt) || dt == TN_DTYPE_F16) {   /* upstream: floating types and bfloat16 */
        PyErr_Format(PyExc_NotImplementedError, "\"rrelu_with_noise_out_cpu\" not implemented for '%s'", tn_dtype_cpp_name(dt));
        return NULL;
    }
    /* the training kernel converts lower and upper to its opmath type first */
    if (tn_check_kernel_scalar(&a[2], dt, true) < 0 || tn_check_kernel_scalar(&a[3], dt, true) < 0) return NULL;
    if (nt->dtype != dt) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(dt), tn_dtype_cpp_name(nt->dtype));
        return NULL;
    }
    tn_generator *gen = tn_py_generator_of(a[5].tag == TN_V_GENERATOR ? a[5].u.obj : NULL);
    if (!gen) return NULL;
    PyObject *xc = tn_as_dtype(self, dt, true);   /* self.contiguous() */
    PyObject *res = xc ? tn_tensor_new_empty(x->ndim, x->sizes, dt, TN_DEVICE_CPU) : NULL;
    PyObject *nz = res ? (tn_is_contiguous(nt) ? Py_NewRef(noise) : tn_tensor_new_empty(x->ndim, x->sizes, dt, TN_DEVICE_CPU)) : NULL;
    PyObject *r = NULL;
    if (nz) {
        rrelu_train(gen, dt, tn_data(tn_tensor_of(xc)), tn_data(tn_tensor_of(res)), tn_data(tn_tensor_of(nz)),
                    tn_numel(x), lower, upper);
        tn_tensor_of(noise)->storage->version++;
        if (nz != noise && tn_copy_into(noise, nz) < 0) goto done;
        if (inplace) {
            if (tn_copy_into(self, res) < 0) goto done;
            r = Py_NewRef(self);
        } else {
            r = into_out(Py_NewRef(res), out, "rrelu_with_noise");
        }
    }
done:
    Py_XDECREF(xc); Py_XDECREF(res); Py_XDECREF(nz);
    return r;
}
PyObject *tn_op_rrelu_with_noise(tn_value *a) { return rrelu_noise_impl(a, NULL, false); }
PyObject *tn_op_rrelu_with_noise_(tn_value *a) { return rrelu_noise_impl(a, NULL, true); }
PyObject *tn_op_rrelu_with_noise_out(tn_value *a) { return rrelu_noise_impl(a, a[6].u.obj, false); }

/* rrelu / rrelu_ (CompositeImplicitAutograd, run by autograd/decomp.c): the bound checks, a
 * contiguous empty_like noise, rrelu_with_noise. Each bound is read as a double (a complex one
 * refuses); rrelu, not rrelu_, wants each finite, right after reading it (measured) */
static PyObject *rrelu_comp(tn_value *a, bool inplace) {
    static const char *const names[2] = {"lower", "upper"};
    for (int i = 0; i < 2; i++) {
        if (tn_cr_check_scalar(&a[1 + i], TN_DTYPE_F64) < 0) return NULL;
        double v = tn_value_as_double(&a[1 + i]);
        if (!inplace && !isfinite(v)) {
            PyErr_Format(PyExc_RuntimeError, "rrelu: %s bound must be finite, got %s", names[i],
                         isnan(v) ? "nan" : v > 0 ? "inf" : "-inf");
            return NULL;
        }
    }
    double lower = tn_value_as_double(&a[1]), upper = tn_value_as_double(&a[2]);
    if (!(lower <= upper)) {
        PyErr_SetString(PyExc_RuntimeError, "Lower bound should be less than or equal to the upper bound");
        return NULL;
    }
    PyObject *nz = tn_at_empty_like(a[0].u.obj, NULL, NULL, NULL, NULL, tn_py.memory_format_contiguous);
    if (!nz) return NULL;
    PyObject *l = tn_value_to_python(&a[1]), *u = l ? tn_value_to_python(&a[2]) : NULL;
    PyObject *g = u ? tn_value_to_python(&a[4]) : NULL;
    PyObject *r = g ? (inplace ? tn_at_rrelu_with_noise_(a[0].u.obj, nz, TN_SO(l), TN_SO(u), a[3].u.i, g) : tn_at_rrelu_with_noise(a[0].u.obj, nz, TN_SO(l), TN_SO(u), a[3].u.i, g)) : NULL;
    Py_XDECREF(l); Py_XDECREF(u); Py_XDECREF(g); Py_DECREF(nz);
    return r;
}
PyObject *tn_op_rrelu(tn_value *a) { return rrelu_comp(a, false); }
PyObject *tn_op_rrelu_(tn_value *a) { return rrelu_comp(a, true); }

/* rrelu_with_noise_backward(grad, self_or_result, noise, lower, upper, training, is_result) */
PyObject *tn_op_rrelu_with_noise_backward(tn_value *a) {
    if (a[5].u.i) return tn_at_mul_Tensor(a[0].u.obj, a[2].u.obj);
    /* upstream's (lower.toDouble() + upper.toDouble()) / 2: a complex bound refuses the double */
    if (tn_check_kernel_scalar(&a[3], TN_DTYPE_F64, false) < 0 || tn_check_kernel_scalar(&a[4], TN_DTYPE_F64, false) < 0)
        return NULL;
    double slope = (tn_value_as_double(&a[3]) + tn_value_as_double(&a[4])) / 2;
    return tn_at_leaky_relu_backward(a[0].u.obj, a[1].u.obj, TN_SD(slope), a[6].u.i);
}
