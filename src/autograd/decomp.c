/* decomp.c — CompositeImplicitAutograd overloads while gradients are recorded: each decomposes
 * into the ops upstream's composite calls (so the graph has upstream's nodes: linear -> t +
 * addmm, layer_norm -> native_layer_norm, reshape -> view / _unsafe_view, to -> _to_copy, ...),
 * every call through the door. Aliases (multiply -> mul, divide -> div, ...) call their base op.
 * Composites whose outputs never carry gradients (zeros_like, ...) run as they are. An overload
 * without an entry here runs and gets a node that refuses by name in backward (record.c). */
#include "ops/linalg_lapack.h"
#include "ops/views.h"
#include "ops/linalg_more.h"
#include "ops/fft.h"
#include "ops/distance.h"
#include "ops/einsum.h"
#include "ops/quantile.h"
#include "ops/shape_composites.h"
#include "ops/misc_ops.h"
#include "ops/nnmore.h"
#include "ops/rnn.h"
#include "ops/bw_ops.h"
#include "ops/sparse.h"
#include "autograd/autograd.h"

#include "dispatch/modes.h"
#include "ops/common.h"
#include "ops/pad.h"
#include "ops/pool.h"
#include "dispatch/args.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static PyObject *A(int i, tn_value *a) { return tn_value_to_python(&a[i]); }

/* same arguments, another row */
/* Same arguments, another row: only for rows whose schemas take the same arguments (aliases). */
static PyObject *same_args(int row, tn_value *a) { return tn_door_call(row, a); }

/* ---- linear algebra ---- */

static PyObject *matmul2(PyObject *t1, PyObject *t2);
static PyObject *reshape_to(PyObject *x, PyObject *shape);

/* linear(input, weight, bias), as upstream's: addmm(bias, input, weight.t()) for a 2-D input with
 * bias; another input tn_linear_fused takes is flattened to 2-D first (reshape, then weight.t(),
 * addmm, and a view back); otherwise matmul(input, weight.t()) then output.add_(bias) in place */
static PyObject *d_linear(tn_value *a) {
    PyObject *x = a[0].u.obj, *w = a[1].u.obj, *b = a[2].tag == TN_V_TENSOR ? a[2].u.obj : NULL;
    const tn_tensor *xt = tn_tensor_of(x);
    PyObject *r = NULL;
    bool fused = b && tn_linear_fused(xt, tn_tensor_of(b), false);
    if (fused && xt->ndim == 2) {
        PyObject *wt = tn_at_t(w);
        r = wt ? tn_at_addmm(b, x, wt, TN_SDEF, TN_SDEF) : NULL;
        Py_XDECREF(wt);
        return r;
    }
    if (fused) {
        int64_t rows = 1, out[TN_MAX_DIMS];
        for (int i = 0; i < xt->ndim - 1; i++) { rows *= xt->sizes[i]; out[i] = xt->sizes[i]; }
        PyObject *shape = Py_BuildValue("(LL)", (long long)rows, (long long)xt->sizes[xt->ndim - 1]);
        PyObject *xf = shape ? reshape_to(x, shape) : NULL;
        PyObject *wt = xf ? tn_at_t(w) : NULL;
        PyObject *mm = wt ? tn_at_addmm(b, xf, wt, TN_SDEF, TN_SDEF) : NULL;
        if (mm) out[xt->ndim - 1] = tn_tensor_of(mm)->sizes[1];
        PyObject *os = mm ? tn_int_list(out, xt->ndim) : NULL;
        r = os ? tn_at_view(mm, TN_IPY(os)) : NULL;
        Py_XDECREF(shape); Py_XDECREF(xf); Py_XDECREF(wt); Py_XDECREF(mm); Py_XDECREF(os);
        return r;
    }
    PyObject *wt = tn_at_t(w);
    r = wt ? tn_at_matmul(x, wt) : NULL;   /* through the door, as upstream's at::matmul */
    Py_XDECREF(wt);
    if (r && b) {
        /* a 1-D input's product is our squeeze's view (upstream squeezes in place; our vmap has no
         * squeeze_): an in-place add would rebase it, so a 0-d bias, the one that fits in place
         * there, is added out of place (the same result, AddBackward0 as upstream's) */
        bool inplace = !(xt->ndim == 1 && tn_tensor_of(b)->ndim == 0);
        PyObject *s2 = inplace ? tn_at_add__Tensor(r, b, TN_SDEF) : tn_at_add_Tensor(r, b, TN_SDEF);
        Py_SETREF(r, s2);
    }
    return r;
}


/* upstream's _matmul_impl without out= */
static PyObject *matmul2(PyObject *t1, PyObject *t2) {
    const tn_tensor *a = tn_tensor_of(t1), *b = tn_tensor_of(t2);
    int d1 = a->ndim, d2 = b->ndim;
    if (d1 == 0 || d2 == 0) {
        PyErr_Format(PyExc_RuntimeError, "both arguments to matmul need to be at least 1D, but they are %dD and %dD", d1, d2);
        return NULL;
    }
    if (d1 == 1 && d2 == 1) return tn_at_dot(t1, t2);
    if (d1 == 2 && d2 == 1) return tn_at_mv(t1, t2);
    if (d1 == 1 && d2 == 2) {
        PyObject *u = tn_at_unsqueeze(t1, 0), *m = u ? tn_at_mm(u, t2) : NULL;
        PyObject *r = m ? tn_at_squeeze_dim(m, 0) : NULL;
        Py_XDECREF(u); Py_XDECREF(m);
        return r;
    }
    if (d1 == 2 && d2 == 2) return tn_at_mm(t1, t2);
    if (d1 < d2) { /* upstream's should_fold takes tensor2.mT() (a transpose op) to inspect it */
        PyObject *mt = tn_at_transpose_int(t2, -2, -1);
        if (!mt) return NULL;
        Py_DECREF(mt);
    }
    if (tn_matmul_should_fold(t1, t2)) {
        /* the larger operand's batch folded into mm / mv rows; when it is t2: t2.mT() against
         * t1.t() (a matrix t1) or t1, and the result transposed back and made contiguous */
        const bool tr = d2 > d1;
        PyObject *big = tr ? tn_at_transpose_int(t2, -2, -1) : Py_NewRef(t1);
        PyObject *small = !big ? NULL : !tr ? Py_NewRef(t2) : d1 == 2 ? tn_at_t(t1) : Py_NewRef(t1);
        if (!small) { Py_XDECREF(big); return NULL; }
        const tn_tensor *bt = tn_tensor_of(big), *st = tn_tensor_of(small);
        int64_t folded = 1, out[TN_MAX_DIMS];
        int no = 0;
        for (int i = 0; i < bt->ndim - 1; i++) { folded *= bt->sizes[i]; out[no++] = bt->sizes[i]; }
        if (st->ndim == 2) out[no++] = st->sizes[1];
        PyObject *f = tn_at_reshape(big, TN_IS((long long)folded, (long long)bt->sizes[bt->ndim - 1]));
        PyObject *m = f ? (st->ndim == 2 ? tn_at_mm(f, small) : tn_at_mv(f, small)) : NULL;
        PyObject *shape = m ? tn_int_list(out, no) : NULL;
        PyObject *r = shape ? tn_at__unsafe_view(m, TN_IPY(shape)) : NULL;
        if (r && tr && st->ndim == 2) {
            PyObject *rt = tn_at_transpose_int(r, -2, -1);
            Py_SETREF(r, rt ? tn_at_contiguous(rt, NULL) : NULL);
            Py_XDECREF(rt);
        }
        Py_XDECREF(big); Py_XDECREF(small); Py_XDECREF(f); Py_XDECREF(m); Py_XDECREF(shape);
        return r;
    }
    /* batched: expand the batch dims, fold to 3-D, bmm, view back */
    int64_t n = d1 > 1 ? a->sizes[d1 - 2] : 1, m1 = a->sizes[d1 - 1];
    int64_t m2 = d2 > 1 ? b->sizes[d2 - 2] : b->sizes[0], p = d2 > 1 ? b->sizes[d2 - 1] : 1;
    int nb1 = d1 > 2 ? d1 - 2 : 0, nb2 = d2 > 2 ? d2 - 2 : 0, nb;
    int64_t batch[TN_MAX_DIMS];
    if (!tn_broadcast_shapes(nb1, a->sizes, nb2, b->sizes, &nb, batch)) {
        PyErr_SetString(PyExc_RuntimeError, "matmul: batch dimensions are not broadcastable");
        return NULL;
    }
    int64_t bp = 1, e1[TN_MAX_DIMS + 2], e2[TN_MAX_DIMS + 2], out[TN_MAX_DIMS + 2];
    for (int i = 0; i < nb; i++) { bp *= batch[i]; e1[i] = e2[i] = out[i] = batch[i]; }
    int no = nb;
    e1[nb] = n; e1[nb + 1] = m1; e2[nb] = m2; e2[nb + 1] = p;
    if (d1 > 1) out[no++] = n;
    if (d2 > 1) out[no++] = p;
    PyObject *u1 = d1 == 1 ? tn_at_unsqueeze(t1, 0) : Py_NewRef(t1);
    PyObject *u2 = u1 ? (d2 == 1 ? tn_at_unsqueeze(t2, 1) : Py_NewRef(t2)) : NULL;
    PyObject *s1 = u2 ? tn_int_list(e1, nb + 2) : NULL, *s2 = s1 ? tn_int_list(e2, nb + 2) : NULL;
    /* upstream's order: tensor1 expanded and reshaped, then tensor2 */
    PyObject *x1 = s2 ? tn_at_expand(u1, TN_IPY(s1), false) : NULL;
    PyObject *r1 = x1 ? tn_at_reshape(x1, TN_IS((long long)bp, (long long)n, (long long)m1)) : NULL;
    PyObject *x2 = r1 ? tn_at_expand(u2, TN_IPY(s2), false) : NULL;
    PyObject *r2 = x2 ? tn_at_reshape(x2, TN_IS((long long)bp, (long long)m2, (long long)p)) : NULL;
    PyObject *mm = r2 ? tn_at_bmm(r1, r2) : NULL;
    PyObject *shape = mm ? tn_int_list(out, no) : NULL;
    PyObject *r = shape ? tn_at__unsafe_view(mm, TN_IPY(shape)) : NULL;
    Py_XDECREF(u1); Py_XDECREF(u2); Py_XDECREF(s1); Py_XDECREF(s2); Py_XDECREF(x1); Py_XDECREF(x2);
    Py_XDECREF(r1); Py_XDECREF(r2); Py_XDECREF(mm); Py_XDECREF(shape);
    return r;
}
static PyObject *d_matmul(tn_value *a) { return matmul2(a[0].u.obj, a[1].u.obj); }

/* ---- shape ---- */

/* Whether sizes `ns` (n dims, -1 allowed once) can view a tensor of geometry t without a copy:
 * upstream's computeStride (dims merged only across contiguous chunks). */
static bool viewable(const tn_tensor *t, const int64_t *shape, int n, int64_t *ns, int64_t *nst) {
    int64_t numel = tn_numel(t), known = 1;
    int infer = -1;
    if (n > TN_MAX_DIMS) return false;
    for (int i = 0; i < n; i++) {
        ns[i] = shape[i];
        if (shape[i] == -1 && infer < 0) infer = i;
        else if (shape[i] < 0) return false;
        else known *= shape[i];
    }
    if (infer >= 0) {
        if (known == 0 || numel % known) return false;
        ns[infer] = numel / known;
    } else if (known != numel) {
        return false;
    }
    if (numel == 0 || t->ndim == 0) {
        tn_contiguous_strides(n, ns, nst);
        return true;
    }
    int64_t view_d = n - 1, view_numel = 1, tensor_numel = 1, base_stride = t->strides[t->ndim - 1];
    for (int d = t->ndim - 1; d >= 0; d--) {
        tensor_numel *= t->sizes[d];
        if (d == 0 || (t->sizes[d - 1] != 1 && t->strides[d - 1] != tensor_numel * base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || ns[view_d] == 1)) {
                nst[view_d] = view_numel * base_stride;
                view_numel *= ns[view_d--];
            }
            if (view_numel != tensor_numel) return false;
            if (d > 0) {
                base_stride = t->strides[d - 1];
                tensor_numel = 1;
                view_numel = 1;
            }
        }
    }
    return view_d == -1;
}

/* reshape: a view when the geometry allows (decided without dispatching, as upstream), else
 * clone + _unsafe_view */
static PyObject *reshape_to(PyObject *x, PyObject *shape) {
    int64_t sz[TN_MAX_DIMS];
    Py_ssize_t n = PySequence_Size(shape);
    bool ok = n >= 0 && n <= TN_MAX_DIMS;
    for (Py_ssize_t i = 0; ok && i < n; i++) {
        PyObject *e = PySequence_GetItem(shape, i);
        sz[i] = e ? PyLong_AsLongLong(e) : -2;
        Py_XDECREF(e);
        if (sz[i] == -1 && PyErr_Occurred()) { PyErr_Clear(); ok = false; }
    }
    if (n < 0) PyErr_Clear();
    int64_t ns[TN_MAX_DIMS], nst[TN_MAX_DIMS];
    const tn_tensor *t = tn_tensor_of(x);
    if (!ok || tn_is_contiguous(t)) return tn_at_view(x, TN_IPY(shape));   /* view's own errors */
    if (viewable(t, sz, (int)n, ns, nst)) {
        /* upstream: _reshape_alias, or view when a dispatch mode is active (isTensorSubclassLike) */
        if (tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled()) return tn_at_view(x, TN_IPY(shape));
        PyObject *a = tn_int_list(ns, (int)n), *b = a ? tn_int_list(nst, (int)n) : NULL;
        PyObject *r = b ? tn_at__reshape_alias(x, TN_IPY(a), TN_IPY(b)) : NULL;
        Py_XDECREF(a); Py_XDECREF(b);
        return r;
    }
    /* upstream clones with memory_format=contiguous_format */
    PyObject *c = tn_at_clone(x, tn_py.memory_format_contiguous);
    PyObject *r = c ? tn_at__unsafe_view(c, TN_IPY(shape)) : NULL;
    Py_XDECREF(c);
    return r;
}
static PyObject *d_reshape(tn_value *a) {
    PyObject *s = A(1, a), *r = s ? reshape_to(a[0].u.obj, s) : NULL;
    Py_XDECREF(s);
    return r;
}
static PyObject *shape_of(PyObject *t) { return tn_py_size_new(tn_tensor_of(t)->ndim, tn_tensor_of(t)->sizes); }
static PyObject *d_reshape_as(tn_value *a) {
    PyObject *s = shape_of(a[1].u.obj), *r = s ? reshape_to(a[0].u.obj, s) : NULL;
    Py_XDECREF(s);
    return r;
}
static PyObject *d_view_as(tn_value *a) {
    PyObject *s = shape_of(a[1].u.obj), *r = s ? tn_at_view(a[0].u.obj, TN_IPY(s)) : NULL;
    Py_XDECREF(s);
    return r;
}
static PyObject *d_expand_as(tn_value *a) {
    PyObject *s = shape_of(a[1].u.obj), *r = s ? tn_at_expand(a[0].u.obj, TN_IPY(s), false) : NULL;
    Py_XDECREF(s);
    return r;
}
static PyObject *d_flatten(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int nd = t->ndim;
    int64_t s = a[1].u.i, e = a[2].u.i;
    if (nd == 0) return tn_at_reshape(a[0].u.obj, TN_IS(1));
    if (s < 0) s += nd;
    if (e < 0) e += nd;
    if (s < 0 || e >= nd || s > e) return tn_door_below_autograd(TN_ROW_flatten_using_ints, a);   /* its own errors */
    if (s == e) return Py_NewRef(a[0].u.obj);
    int64_t out[TN_MAX_DIMS], k = 0, prod = 1;
    for (int i = 0; i < s; i++) out[k++] = t->sizes[i];
    for (int64_t i = s; i <= e; i++) prod *= t->sizes[i];
    out[k++] = prod;
    for (int i = (int)e + 1; i < nd; i++) out[k++] = t->sizes[i];
    PyObject *sh = tn_int_list(out, (int)k), *r = sh ? reshape_to(a[0].u.obj, sh) : NULL;
    Py_XDECREF(sh);
    return r;
}
static PyObject *d_contiguous(tn_value *a) {
    int c = tn_contiguous_check(a[0].u.obj, a[1].tag == TN_V_MEMFORMAT ? a[1].u.obj : NULL);
    if (c != 0) return c > 0 ? Py_NewRef(a[0].u.obj) : NULL;
    PyObject *mf = A(1, a), *r = mf ? tn_at_clone(a[0].u.obj, mf) : NULL;
    Py_XDECREF(mf);
    return r;
}
static PyObject *d_narrow(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int64_t dim = a[1].u.i, start = a[2].u.i, len = a[3].u.i;
    if (t->ndim == 0) return tn_door_below_autograd(TN_ROW_narrow, a);
    if (dim < 0) dim += t->ndim;
    if (dim < 0 || dim >= t->ndim) return tn_door_below_autograd(TN_ROW_narrow, a);
    if (start < 0) start += t->sizes[dim];
    return tn_at_slice_Tensor(a[0].u.obj, (long long)dim, TN_I((long long)start), TN_I((long long)(start + len)), 1);
}
/* chunk(self, chunks, dim): split into pieces of ceil(size / chunks) */
static PyObject *d_chunk(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int64_t chunks = a[1].u.i, dim = a[2].u.i;
    if (t->ndim == 0 || chunks <= 0) return tn_door_below_autograd(TN_ROW_chunk, a);   /* its own errors */
    if (dim < 0) dim += t->ndim;
    if (dim < 0 || dim >= t->ndim) return tn_door_below_autograd(TN_ROW_chunk, a);
    int64_t each = (t->sizes[dim] + chunks - 1) / chunks;
    return tn_at_split_Tensor(a[0].u.obj, (long long)(each ? each : 1), (long long)dim);
}
static PyObject *d_split_sizes(tn_value *a) { return same_args(TN_ROW_split_with_sizes, a); }
static PyObject *d_square(tn_value *a) { return tn_at_pow_Tensor_Scalar(a[0].u.obj, TN_SI(2)); }

/* ---- dtype ---- */

static PyObject *to_dtype(PyObject *x, tn_dtype dt, bool copy, PyObject *mf) {
    const tn_tensor *t = tn_tensor_of(x);
    if (tn_to_will_alias(t, dt, t->storage->device, copy, mf)) return Py_NewRef(x);
    return tn_at__to_copy(x, TN_DT(dt), NULL, NULL, NULL, false, mf ? mf : Py_None);
}
static PyObject *d_to_dtype(tn_value *a) {   /* to.dtype(self, dtype, non_blocking, copy, memory_format) */
    PyObject *mf = A(4, a);
    PyObject *r = mf ? to_dtype(a[0].u.obj, a[1].u.dtype, a[3].u.i, mf) : NULL;
    Py_XDECREF(mf);
    return r;
}
static PyObject *d_to_other(tn_value *a) {   /* to.other(self, other, non_blocking, copy, memory_format) */
    const tn_tensor *t = tn_tensor_of(a[0].u.obj), *o = tn_tensor_of(a[1].u.obj);
    PyObject *mf = A(4, a);
    if (!mf) return NULL;
    PyObject *r;
    if (tn_to_will_alias(t, o->dtype, o->storage->device, a[3].u.i, mf)) r = Py_NewRef(a[0].u.obj);
    else {   /* upstream passes other's dtype and device */
        PyObject *dev = PyObject_GetAttrString(a[1].u.obj, "device");
        r = dev ? tn_at__to_copy(a[0].u.obj, TN_DT(o->dtype), NULL, dev, NULL, a[2].u.i != 0, mf) : NULL;
        Py_XDECREF(dev);
    }
    Py_DECREF(mf);
    return r;
}
static PyObject *d_type_as(tn_value *a) { return to_dtype(a[0].u.obj, tn_tensor_of(a[1].u.obj)->dtype, false, NULL); }
static PyObject *d_to_device(tn_value *a) {   /* to.device(self, device, dtype, non_blocking, copy, memory_format) */
    if (a[1].u.device.type != TN_DEVICE_CPU) return tn_not_implemented("autograd through .to(device) off the CPU");
    PyObject *mf = A(5, a);
    PyObject *r = mf ? to_dtype(a[0].u.obj, a[2].u.dtype, a[4].u.i, mf) : NULL;
    Py_XDECREF(mf);
    return r;
}
static PyObject *d_to_dtype_layout(tn_value *a) {   /* (self, dtype?, layout?, device?, pin_memory?, non_blocking, copy, memory_format?) */
    if (a[3].tag == TN_V_DEVICE && a[3].u.device.type != TN_DEVICE_CPU) return tn_not_implemented("autograd through .to(device) off the CPU");
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    tn_dtype dt = a[1].tag == TN_V_DTYPE ? a[1].u.dtype : t->dtype;
    PyObject *mf = A(7, a);
    if (!mf) return NULL;
    if (tn_to_will_alias(t, dt, t->storage->device, a[6].u.i, mf)) {
        Py_DECREF(mf);
        return Py_NewRef(a[0].u.obj);
    }
    /* upstream's to_impl hands its options to _to_copy as given */
    PyObject *o[3] = {A(1, a), A(2, a), A(3, a)}, *r = NULL;
    bool pin = a[4].u.i != 0;
    if (o[0] && o[1] && o[2])
        r = tn_at__to_copy(a[0].u.obj, o[0], o[1], o[2], a[4].tag == TN_V_BOOL ? &pin : NULL, a[5].u.i != 0, mf);
    for (int i = 0; i < 3; i++) Py_XDECREF(o[i]);
    Py_DECREF(mf);
    return r;
}

/* ---- nn ---- */

static PyObject *softmax_like(tn_value *a, PyObject *(*softmax)(PyObject *, int64_t, bool)) {   /* softmax.int(self, dim, dtype?) */
    PyObject *x = a[2].tag == TN_V_DTYPE ? to_dtype(a[0].u.obj, a[2].u.dtype, false, NULL) : Py_NewRef(a[0].u.obj);
    PyObject *r = x ? softmax(x, a[1].u.i, false) : NULL;
    Py_XDECREF(x);
    return r;
}
static PyObject *d_softmax(tn_value *a) { return softmax_like(a, tn_at__softmax); }
static PyObject *d_log_softmax(tn_value *a) { return softmax_like(a, tn_at__log_softmax); }
static PyObject *d_layer_norm(tn_value *a) {   /* native_layer_norm(input, shape, weight, bias, eps)[0] */
    PyObject *ns = A(1, a), *w = A(2, a), *b = A(3, a);
    PyObject *r = ns && w && b ? tn_at_native_layer_norm(a[0].u.obj, TN_IPY(ns), w, b, a[4].u.f) : NULL;
    Py_XDECREF(ns); Py_XDECREF(w); Py_XDECREF(b);
    if (!r) return NULL;
    PyObject *out = Py_NewRef(PyTuple_GetItem(r, 0));
    Py_DECREF(r);
    return out;
}
/* the dropout family: ops/nn.c's composite (upstream's _dropout_impl), each piece recorded */
PyObject *tn_dropout_composite(tn_value *a, bool feature, bool alpha, bool inplace);
static PyObject *d_dropout(tn_value *a) { return tn_dropout_composite(a, false, false, false); }
static PyObject *d_dropout_(tn_value *a) { return tn_dropout_composite(a, false, false, true); }
static PyObject *d_feature_dropout(tn_value *a) { return tn_dropout_composite(a, true, false, false); }
static PyObject *d_feature_dropout_(tn_value *a) { return tn_dropout_composite(a, true, false, true); }
static PyObject *d_alpha_dropout(tn_value *a) { return tn_dropout_composite(a, false, true, false); }
static PyObject *d_alpha_dropout_(tn_value *a) { return tn_dropout_composite(a, false, true, true); }
static PyObject *d_feature_alpha_dropout(tn_value *a) { return tn_dropout_composite(a, true, true, false); }
static PyObject *d_feature_alpha_dropout_(tn_value *a) { return tn_dropout_composite(a, true, true, true); }

/* ---- reductions: the unbiased spellings call the correction overload ---- */

/* var / std / var_mean / std_mean (self, unbiased) and .dim (self, dim?, unbiased, keepdim) */
typedef PyObject *(*correction_fn)(PyObject *self, tn_ints dim, tn_scalar_arg correction, bool keepdim);
static PyObject *var_like(tn_value *a, correction_fn op, bool has_dim) {
    PyObject *dim = has_dim ? A(1, a) : Py_NewRef(Py_None);
    bool unbiased = a[has_dim ? 2 : 1].u.i, keepdim = has_dim ? a[3].u.i : false;
    PyObject *r = dim ? op(a[0].u.obj, TN_IPY(dim), TN_SI(unbiased ? 1 : 0), keepdim) : NULL;
    Py_XDECREF(dim);
    return r;
}
static PyObject *d_var(tn_value *a) { return var_like(a, tn_at_var_correction, false); }
static PyObject *d_var_dim(tn_value *a) { return var_like(a, tn_at_var_correction, true); }
static PyObject *d_std(tn_value *a) { return var_like(a, tn_at_std_correction, false); }
static PyObject *d_std_dim(tn_value *a) { return var_like(a, tn_at_std_correction, true); }
static PyObject *d_var_mean(tn_value *a) { return var_like(a, tn_at_var_mean_correction, false); }
static PyObject *d_var_mean_dim(tn_value *a) { return var_like(a, tn_at_var_mean_correction, true); }
static PyObject *d_std_mean(tn_value *a) { return var_like(a, tn_at_std_mean_correction, false); }
static PyObject *d_std_mean_dim(tn_value *a) { return var_like(a, tn_at_std_mean_correction, true); }

/* ---- selection ---- */

/* scalar_tensor(s, dtype, strided, like's device): the options upstream's where composites take from
 * a tensor argument */
static PyObject *scalar_tensor_on(const tn_value *s, tn_dtype dt, PyObject *like) {
    PyObject *dev = tn_py_device_new(tn_tensor_of(like)->storage->device, -1);
    PyObject *r = dev ? tn_at_scalar_tensor(TN_SV(s), TN_DT(dt), tn_py.layout_strided, dev, NULL) : NULL;
    Py_XDECREF(dev);
    return r;
}

/* where.ScalarOther(condition, self, other) / where.ScalarSelf / where.Scalar, as upstream's composites:
 * the Scalar(s) as scalar_tensor of result_type(self, other) on the tensor's (where.Scalar: the
 * condition's) device, other's first; then the tensor argument .to(that dtype); then where.self */
static PyObject *where_scalar(tn_value *a, bool self_scalar, bool other_scalar) {
    for (int i = 1; i < 3; i++)   /* an int above INT64_MAX refused as the where kernels refuse it (ops/pointwise.c) */
        if (a[i].tag == TN_V_INT && a[i].uns && tn_cr_check_scalar(&a[i], TN_DTYPE_I64) < 0) return NULL;
    /* result_type in C, as upstream's composite computes it (no op a dispatch mode would see) */
    tn_dtype dt = tn_result_type(2, &a[1]);
    if (dt == TN_DTYPE_UNDEFINED) return NULL;
    PyObject *like = a[self_scalar ? (other_scalar ? 0 : 2) : 1].u.obj, *t[3] = {NULL, NULL, NULL}, *r = NULL;
    bool scalar[3] = {false, self_scalar, other_scalar};
    for (int i = 2; i >= 1; i--)
        if (scalar[i] && !(t[i] = scalar_tensor_on(&a[i], dt, like))) goto done;
    for (int i = 1; i <= 2; i++)
        if (!scalar[i] && !(t[i] = to_dtype(a[i].u.obj, dt, false, NULL))) goto done;
    r = tn_at_where_self(a[0].u.obj, t[1], t[2]);
done:
    Py_XDECREF(t[1]); Py_XDECREF(t[2]);
    return r;
}
static PyObject *d_where_scalar_other(tn_value *a) { return where_scalar(a, false, true); }
static PyObject *d_where_scalar_self(tn_value *a) { return where_scalar(a, true, false); }
static PyObject *d_where_scalar(tn_value *a) { return where_scalar(a, true, true); }

/* ---- shape ---- */

/* pad(self, pad, mode, value): constant -> constant_pad_nd; reflect / replicate -> the N-d kernel;
 * circular -> _pad_circular */
static PyObject *d_pad(tn_value *a) {
    const char *mode = a[2].tag == TN_V_STR ? PyUnicode_AsUTF8AndSize(a[2].u.obj, NULL) : "constant";
    if (!mode) return NULL;
    PyObject *pad = A(1, a);
    if (!pad) return NULL;
    int k = a[1].u.ints.n / 2, nd = tn_tensor_of(a[0].u.obj)->ndim;
    /* the (pad length, rank) pairs upstream's non-constant modes accept, with no value or 0;
     * anything else goes to the kernel for upstream's error */
    bool edge = a[1].u.ints.n % 2 == 0 && k >= 1 && k <= 3 && (nd == k + 1 || nd == k + 2) &&
                (a[3].tag == TN_V_NONE || (a[3].tag == TN_V_FLOAT && a[3].u.f == 0.0) || (a[3].tag == TN_V_INT && a[3].u.i == 0));
    PyObject *r = NULL;
    if (!strcmp(mode, "constant")) {
        PyObject *v = a[3].tag == TN_V_NONE ? PyFloat_FromDouble(0.0) : A(3, a);   /* value_or(0.0), as upstream */
        r = v ? tn_at_constant_pad_nd(a[0].u.obj, TN_IPY(pad), TN_SO(v)) : NULL;
        Py_XDECREF(v);
    } else if (!strcmp(mode, "reflect") && edge) {
        PyObject *(*pads[3])(PyObject *, tn_ints) = {tn_at_reflection_pad1d, tn_at_reflection_pad2d, tn_at_reflection_pad3d};
        r = pads[k - 1](a[0].u.obj, TN_IPY(pad));
    } else if (!strcmp(mode, "replicate") && edge) {
        PyObject *(*pads[3])(PyObject *, tn_ints) = {tn_at_replication_pad1d, tn_at_replication_pad2d, tn_at_replication_pad3d};
        r = pads[k - 1](a[0].u.obj, TN_IPY(pad));
    } else if (!strcmp(mode, "circular") && edge) {
        r = tn_at__pad_circular(a[0].u.obj, TN_IPY(pad));
    } else {
        /* the kernel's own errors, raised before any dispatch as upstream's composite raises them:
         * not through the door's mode stage, which would decompose pad back to here */
        r = tn_door_below_autograd_op(tn_op_at(TN_ROW_pad), tn_op_schema(TN_ROW_pad), a);
        if (r) { Py_CLEAR(r); tn_not_implemented("autograd through aten::pad with this mode"); }
    }
    Py_DECREF(pad);
    return r;
}
/* _pad_circular(self, pad), upstream's composite: new_empty, the kept input copied into the middle
 * (slices chained dim by dim, last dim first), then each padded dim's left and right pads copied
 * from inside the result (corners written more than once); autograd records CopySlices */
static PyObject *slice_of(PyObject *t, int dim, int64_t a, int64_t b) {
    return tn_at_slice_Tensor(t, dim, TN_I((long long)a), TN_I((long long)b), 1);
}
/* dst.copy_(src); both references are released; false on error */
static bool copy_into(PyObject *dst, PyObject *src) {
    PyObject *r = dst && src ? tn_at_copy_(dst, src, false) : NULL;
    Py_XDECREF(dst);
    Py_XDECREF(src);
    Py_XDECREF(r);
    return r != NULL;
}
static PyObject *d_pad_circular(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    const int64_t *pad = a[1].u.ints.v;
    int npad = a[1].u.ints.n, nd = t->ndim, k = npad / 2;
    int64_t osz[TN_MAX_DIMS];
    bool empty_crop;
    if (tn_pad_circular_check(self, pad, npad, osz, &empty_crop) < 0) return NULL;
    PyObject *dev = tn_py_device_new(t->storage->device, -1);
    PyObject *out = dev ? tn_at_new_empty(self, TN_IN(osz, nd), TN_DT(t->dtype), tn_py.layout_strided, dev, NULL) : NULL;
    Py_XDECREF(dev);
    if (!out) return NULL;
    PyObject *os = Py_NewRef(out), *is = Py_NewRef(self);
    for (int i = 0; i < k && os && is; i++) {
        int dim = nd - 1 - i;
        int64_t l = pad[2 * i], r = pad[2 * i + 1];
        Py_SETREF(os, slice_of(os, dim, l > 0 ? l : 0, osz[dim] - (r > 0 ? r : 0)));
        if (os) Py_SETREF(is, slice_of(is, dim, l < 0 ? -l : 0, t->sizes[dim] - (r < 0 ? -r : 0)));
    }
    bool ok = os && is;
    ok = copy_into(os, is) && ok;
    for (int i = 0; i < k && ok; i++) {
        int dim = nd - 1 - i;
        int64_t l = pad[2 * i], r = pad[2 * i + 1], lp = l > 0 ? l : 0, rp = r > 0 ? r : 0;
        if (l > 0) {
            PyObject *dst = slice_of(out, dim, 0, l);
            ok = copy_into(dst, dst ? slice_of(out, dim, osz[dim] - l - rp, osz[dim] - rp) : NULL);
        }
        if (ok && r > 0) {
            PyObject *dst = slice_of(out, dim, osz[dim] - r, osz[dim]);
            ok = copy_into(dst, dst ? slice_of(out, dim, lp, lp + r) : NULL);
        }
    }
    if (!ok) Py_CLEAR(out);
    return out;
}
/* movedim(self, source, destination): permute by the order upstream computes; 0-dim: alias */
static PyObject *movedim_lists(tn_value *a, const int64_t *src, const int64_t *dst, int k) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int nd = t->ndim;
    if (nd == 0) return tn_at_alias(a[0].u.obj);
    int64_t order[TN_MAX_DIMS], s[TN_MAX_DIMS], d[TN_MAX_DIMS];
    bool used_src[TN_MAX_DIMS] = {0}, used_dst[TN_MAX_DIMS] = {0};
    if (k > nd) return NULL;
    for (int i = 0; i < k; i++) {
        s[i] = src[i] < 0 ? src[i] + nd : src[i];
        d[i] = dst[i] < 0 ? dst[i] + nd : dst[i];
        if (s[i] < 0 || s[i] >= nd || d[i] < 0 || d[i] >= nd || used_src[s[i]] || used_dst[d[i]]) return NULL;
        used_src[s[i]] = used_dst[d[i]] = true;
    }
    for (int i = 0; i < nd; i++) order[i] = -1;
    for (int i = 0; i < k; i++) order[d[i]] = s[i];
    int si = 0;
    for (int i = 0; i < nd; i++) {
        if (order[i] != -1) continue;
        while (used_src[si]) si++;
        order[i] = si++;
    }
    PyObject *l = tn_int_list(order, nd), *r = l ? tn_at_permute(a[0].u.obj, TN_IPY(l)) : NULL;
    Py_XDECREF(l);
    return r;
}
static PyObject *d_movedim_int(tn_value *a) {
    int64_t s = a[1].u.i, d = a[2].u.i;
    PyObject *r = movedim_lists(a, &s, &d, 1);
    if (!r && !PyErr_Occurred()) return tn_door_below_autograd(TN_ROW_movedim_int, a);   /* its own errors */
    return r;
}
static PyObject *d_movedim_list(tn_value *a) {
    if (a[1].u.ints.n != a[2].u.ints.n) return tn_door_below_autograd(TN_ROW_movedim_intlist, a);
    PyObject *r = movedim_lists(a, a[1].u.ints.v, a[2].u.ints.v, a[1].u.ints.n);
    if (!r && !PyErr_Occurred()) return tn_door_below_autograd(TN_ROW_movedim_intlist, a);
    return r;
}
/* unflatten(self, dim, sizes): view with the -1 inferred */
static PyObject *d_unflatten(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int nd = t->ndim, k = a[2].u.ints.n;
    int64_t dim = a[1].u.i;
    if (nd == 0 || k == 0) return tn_door_below_autograd(TN_ROW_unflatten_int, a);
    if (dim < 0) dim += nd;
    if (dim < 0 || dim >= nd || nd - 1 + k > TN_MAX_DIMS) return tn_door_below_autograd(TN_ROW_unflatten_int, a);
    int64_t out[TN_MAX_DIMS], prod = 1;
    int infer = -1, no = 0;
    for (int i = 0; i < dim; i++) out[no++] = t->sizes[i];
    for (int i = 0; i < k; i++) {
        int64_t v = a[2].u.ints.v[i];
        if (v == -1) { if (infer >= 0) return tn_door_below_autograd(TN_ROW_unflatten_int, a); infer = no; }
        else prod *= v;
        out[no++] = v;
    }
    if (infer >= 0) {
        if (prod == 0 || t->sizes[dim] % prod) return tn_door_below_autograd(TN_ROW_unflatten_int, a);
        out[infer] = t->sizes[dim] / prod;
    } else if (prod != t->sizes[dim]) return tn_door_below_autograd(TN_ROW_unflatten_int, a);
    for (int i = (int)dim + 1; i < nd; i++) out[no++] = t->sizes[i];
    PyObject *l = tn_int_list(out, no), *r = l ? tn_at_view(a[0].u.obj, TN_IPY(l)) : NULL;
    Py_XDECREF(l);
    return r;
}
/* tile(self, dims): repeat with the dims padded with leading ones to self.dim() */
static PyObject *d_tile(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int k = a[1].u.ints.n, nd = t->ndim, m = k < nd ? nd : k;
    if (m > TN_MAX_DIMS) return tn_door_below_autograd(TN_ROW_tile, a);
    int64_t reps[TN_MAX_DIMS];
    for (int i = 0; i < m - k; i++) reps[i] = 1;
    for (int i = 0; i < k; i++) reps[m - k + i] = a[1].u.ints.v[i];
    PyObject *l = tn_int_list(reps, m), *r = l ? tn_at_repeat(a[0].u.obj, TN_IPY(l)) : NULL;
    Py_XDECREF(l);
    return r;
}

/* ---- nn: the CPU composite paths upstream records ---- */

/* rms_norm(input, normalized_shape, weight?, eps?): x = input.to(opmath);
 * x.mul(rsqrt(pow(x, 2).mean(dims, keepdim=True).add_(eps))).mul(weight) (promoting),
 * .contiguous(), .type_as(input) (ops/nn.c, tn_rms_norm_decomposed; measured grad_fn chains).
 * complex64 / complex128 inputs compute without gradients (ops/nn.c); their gradients are refused:
 * the composite's complex pow / rsqrt derivatives lack upstream's conjugate (docs/opinfo.md) */
static PyObject *d_rms_norm(tn_value *a) {
    PyObject *in = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(in);
    tn_dtype dt = t->dtype;
    if ((dt == TN_DTYPE_C64 || dt == TN_DTYPE_C128) && tn_grad_enabled() &&
        (tn_requires_grad(in) || (a[2].tag == TN_V_TENSOR && tn_requires_grad(a[2].u.obj))))
        return tn_not_implemented("rms_norm gradients for complex inputs");
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64 && dt != TN_DTYPE_F16 && dt != TN_DTYPE_BF16)
        return tn_door_below_autograd(TN_ROW_rms_norm, a);   /* its own errors */
    if (a[1].u.ints.n > t->ndim) return tn_door_below_autograd(TN_ROW_rms_norm, a);
    return tn_rms_norm_decomposed(a);
}

/* _fused_rms_norm(input, normalized_shape, weight?, eps?): CompositeImplicitAutograd on CPU upstream
 * (rms_norm_composite): the same steps, returning (output, rstd); float32 / float64 (other dtypes
 * run the kernel) */
static PyObject *d_fused_rms_norm(tn_value *a) {
    PyObject *in = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(in);
    if ((t->dtype != TN_DTYPE_F32 && t->dtype != TN_DTYPE_F64) || a[1].u.ints.n > t->ndim)
        return tn_door_below_autograd(TN_ROW__fused_rms_norm, a);
    double eps = a[3].tag == TN_V_FLOAT ? a[3].u.f : t->dtype == TN_DTYPE_F64 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    PyObject *rs = NULL, *y = tn_rms_norm_steps(in, a[1].u.ints.n, eps, &rs);
    if (y && a[2].tag == TN_V_TENSOR) Py_SETREF(y, tn_at_mul_Tensor(y, a[2].u.obj));
    PyObject *r = y && rs ? PyTuple_Pack(2, y, rs) : NULL;
    Py_XDECREF(y); Py_XDECREF(rs);
    return r;
}

/* where(mask, 0.0, scalar_tensor(-inf, dtype)) for a boolean mask (convert_boolean_attn_mask) */
static PyObject *bool_mask_to_additive(PyObject *mask, tn_dtype dt) {
    PyObject *ninf = tn_at_scalar_tensor(TN_SD(-INFINITY), TN_DT(dt), NULL, NULL, NULL);
    PyObject *r = ninf ? tn_at_where_ScalarSelf(mask, TN_SD(0.0), ninf) : NULL;
    Py_XDECREF(ninf);
    return r;
}
/* scaled_dot_product_attention(q, k, v, attn_mask?, dropout_p, is_causal, scale?, enable_gqa):
 * upstream on CPU with gradients takes the math path (_scaled_dot_product_attention_math):
 * q * sf, matmul(q, k.transpose(-2, -1) * sf) (+ mask), _safe_softmax(-1), dropout, matmul(., v),
 * sf = sqrt(scale or 1 / sqrt(E)) */
static PyObject *d_sdpa(tn_value *a) {
    PyObject *q = a[0].u.obj, *k = a[1].u.obj, *v = a[2].u.obj;
    const tn_tensor *qt = tn_tensor_of(q), *kt = tn_tensor_of(k), *vt = tn_tensor_of(v);
    tn_dtype dt = qt->dtype;
    bool has_mask = a[3].tag == TN_V_TENSOR, causal = a[5].u.i;
    const bool gqa = a[7].u.i && qt->ndim >= 3 && kt->ndim >= 3 && vt->ndim >= 3;
    const int64_t hq = gqa ? qt->sizes[qt->ndim - 3] : 1, hk = gqa ? kt->sizes[kt->ndim - 3] : 1,
                  hv = gqa ? vt->sizes[vt->ndim - 3] : 1;
    if (qt->ndim < 2 || kt->ndim < 2 || vt->ndim < 2 || kt->dtype != dt || vt->dtype != dt || (causal && has_mask) ||
        (gqa && (!hk || !hv || hq % hk || hq % hv)) || (a[7].u.i && !gqa) /* a 2-d operand: size(-3) */ ||
        (has_mask && tn_tensor_of(a[3].u.obj)->dtype != TN_DTYPE_BOOL && tn_tensor_of(a[3].u.obj)->dtype != dt)) {
        PyObject *r = tn_door_below_autograd(TN_ROW_scaled_dot_product_attention, a);   /* its own errors */
        if (!r) return NULL;
        Py_DECREF(r);
    }
    PyObject *mask = NULL;
    /* upstream's CPU choice (ops/nn.c tn_sdpa_choice): flash -> _scaled_dot_product_flash_attention_for_cpu */
    int choice = tn_sdpa_choice(a);
    if (choice < 0) return NULL;
    if (choice == TN_SDP_FLASH) {
        if (has_mask) {
            mask = tn_tensor_of(a[3].u.obj)->dtype == TN_DTYPE_BOOL ? bool_mask_to_additive(a[3].u.obj, dt) : Py_NewRef(a[3].u.obj);
            if (!mask) return NULL;
        }
        PyObject *r = tn_at__scaled_dot_product_flash_attention_for_cpu(q, k, v, 0.0, causal, mask,
                                                                        a[6].tag == TN_V_NONE ? NULL : TN_F(a[6].u.f));
        Py_XDECREF(mask);
        if (!r) return NULL;
        PyObject *out = Py_NewRef(PyTuple_GetItem(r, 0));
        Py_DECREF(r);
        return out;
    }
    /* the math path in bf16 / f16 computes in float32 (q, k, v widened; an additive mask is not)
     * and rounds the output (and, discarded, the attention weights) back */
    tn_dtype orig = dt;
    PyObject *widened[3] = {NULL, NULL, NULL};
    if (dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16) {
        for (int i = 0; i < 3; i++)
            if (!(widened[i] = to_dtype(a[i].u.obj, TN_DTYPE_F32, false, NULL))) goto widen_failed;
        q = widened[0], k = widened[1], v = widened[2], dt = TN_DTYPE_F32;
        qt = tn_tensor_of(q), kt = tn_tensor_of(k);
    }
    if (has_mask) {
        mask = tn_tensor_of(a[3].u.obj)->dtype == TN_DTYPE_BOOL ? bool_mask_to_additive(a[3].u.obj, dt) : Py_NewRef(a[3].u.obj);
        if (!mask) goto widen_failed;
    }
    double sc = a[6].tag == TN_V_NONE ? 1.0 / sqrt((double)qt->sizes[qt->ndim - 1]) : a[6].u.f;
    bool neg = a[6].tag != TN_V_NONE && sc < 0;
    double sf = sqrt(neg ? -sc : sc);
    PyObject *qs = tn_at_mul_Scalar(q, TN_SD(neg ? 0.0 - sf : sf));
    if (qs && causal) {
        int64_t L = qt->sizes[qt->ndim - 2], S = kt->sizes[kt->ndim - 2];
        PyObject *ones = tn_at_ones(TN_IS(L, S), TN_DT(TN_DTYPE_BOOL), NULL, NULL, NULL);
        PyObject *tr = ones ? tn_at_tril(ones, 0) : NULL;
        mask = tr ? bool_mask_to_additive(tr, tn_tensor_of(qs)->dtype) : NULL;   /* the scaled query's dtype */
        Py_XDECREF(ones); Py_XDECREF(tr);
        if (!mask) Py_CLEAR(qs);
    }
    /* grouped query attention: key and value repeat_interleave'd along the heads (dim -3) */
    PyObject *kr = NULL, *vr = NULL;
    if (qs && gqa && (hq != hk || hq != hv)) {
        const int64_t hdim = -3;
        kr = tn_at_repeat_interleave_self_int(k, hq / hk, &hdim, NULL);
        vr = kr ? tn_at_repeat_interleave_self_int(v, hq / hv, &hdim, NULL) : NULL;
        if (!vr) Py_CLEAR(qs);
        k = kr, v = vr;
    }
    PyObject *kT = qs ? tn_at_transpose_int(k, -2, -1) : NULL;
    PyObject *kTs = kT ? tn_at_mul_Scalar(kT, TN_SD(sf)) : NULL;
    PyObject *attn = kTs ? tn_at_matmul(qs, kTs) : NULL;
    if (attn && mask) {   /* in place, as upstream's (a mask broadcasting past attn's shape is refused) */
        PyObject *r2 = tn_at_add__Tensor(attn, mask, TN_SDEF);
        if (!r2) Py_CLEAR(attn);
        Py_XDECREF(r2);
    }
    if (attn) Py_SETREF(attn, tn_at__safe_softmax(attn, -1, NULL));
    if (attn && a[4].u.f > 0.0) Py_SETREF(attn, tn_at_dropout(attn, a[4].u.f, true));
    PyObject *w = attn && orig != dt ? to_dtype(attn, orig, false, NULL) : NULL;   /* upstream's order */
    PyObject *r = attn && (w || orig == dt) ? tn_at_matmul(attn, v) : NULL;
    if (r && orig != dt) Py_SETREF(r, to_dtype(r, orig, false, NULL));
    Py_XDECREF(w);
    Py_XDECREF(mask); Py_XDECREF(qs); Py_XDECREF(kT); Py_XDECREF(kTs); Py_XDECREF(attn); Py_XDECREF(kr); Py_XDECREF(vr);
    for (int i = 0; i < 3; i++) Py_XDECREF(widened[i]);
    return r;
widen_failed:
    for (int i = 0; i < 3; i++) Py_XDECREF(widened[i]);
    return NULL;
}

/* silu_backward (math_silu_backward): grad_output * (sigmoid(x) * (1 + x * (1 - sigmoid(x)))) */
static PyObject *d_silu_backward(tn_value *a) {
    PyObject *go = a[0].u.obj, *x = a[1].u.obj;
    PyObject *sg = tn_at_sigmoid(x);
    PyObject *om = sg ? tn_at_empty_like(sg, NULL, NULL, NULL, NULL, NULL) : NULL;   /* 1 - sig: empty_like.fill_.sub_ */
    PyObject *fl = om ? tn_at_fill__Scalar(om, TN_SI(1)) : NULL;
    PyObject *sb = fl ? tn_at_sub__Tensor(om, sg, TN_SDEF) : NULL;
    Py_XDECREF(fl);
    if (!sb) Py_CLEAR(om);
    Py_XDECREF(sb);
    PyObject *xm = om ? tn_at_mul_Tensor(x, om) : NULL;
    PyObject *op = xm ? tn_at_add_Scalar(xm, TN_SI(1), TN_SDEF) : NULL;
    PyObject *sm = op ? tn_at_mul_Tensor(sg, op) : NULL;
    PyObject *r = sm ? tn_at_mul_Tensor(go, sm) : NULL;
    Py_XDECREF(sg); Py_XDECREF(om); Py_XDECREF(xm); Py_XDECREF(op); Py_XDECREF(sm);
    return r;
}

/* ---- losses upstream only composes (no kernels here): found by name ---- */

static PyObject *first_of(PyObject *r);
/* at::nll_loss / at::nll_loss2d as upstream's nll_loss_nd calls them: through the door, so the
 * autocast stage sees them (both are on upstream's AutocastCPU float32 list) */
typedef PyObject *(*nll_fn)(PyObject *self, PyObject *target, PyObject *weight, int64_t reduction, int64_t ignore_index);
static PyObject *nll_call(nll_fn nll, PyObject *self, PyObject *target, PyObject *w, long long red, long long ign) {
    return nll(self, target, w == Py_None ? NULL : w, red, ign);
}
/* nll_loss(self, target, weight?, reduction, ignore_index): nll_loss_forward(...)[0] */
static PyObject *nll_loss_of(PyObject *self, PyObject *target, PyObject *w, long long red, long long ign) {
    PyObject *r = tn_at_nll_loss_forward(self, target, w, red, ign);
    if (!r) return NULL;
    PyObject *o = Py_NewRef(PyTuple_GetItem(r, 0));
    Py_DECREF(r);
    return o;
}
static PyObject *d_nll_loss(tn_value *a) {
    PyObject *w = A(2, a);
    PyObject *r = w ? nll_loss_of(a[0].u.obj, a[1].u.obj, w, (long long)a[3].u.i, (long long)a[4].u.i) : NULL;
    Py_XDECREF(w);
    return r;
}
/* nll_loss_nd(self, target, weight?, reduction, ignore_index): checks, then nll_loss for 1-D / 2-D */
static PyObject *nll_nd(PyObject *self, PyObject *target, PyObject *w, long long red, long long ign) {
    const tn_tensor *t = tn_tensor_of(self), *tt = tn_tensor_of(target);
    if (t->ndim < 1) return PyErr_Format(PyExc_ValueError, "Expected 1 or more dimensions (got %d)", t->ndim);
    if (t->ndim != 1 && (tt->ndim < 1 || t->sizes[0] != tt->sizes[0]))
        return PyErr_Format(PyExc_ValueError, "Expected input batch_size (%lld) to match target batch_size (%lld).",
                            (long long)t->sizes[0], (long long)(tt->ndim ? tt->sizes[0] : 1));
    if (t->ndim <= 2) return nll_call(tn_at_nll_loss, self, target, w, red, ign);
    if (t->ndim == 4) return nll_call(tn_at_nll_loss2d, self, target, w, red, ign);
    /* 3-D or > 4-D: contiguous views [N, C, 1, -1] / [N, 1, -1], then nll_loss2d (viewed back for none) */
    int64_t n = t->sizes[0], c = t->sizes[1], osz[TN_MAX_DIMS];
    int no = 0;
    osz[no++] = n;
    for (int d = 2; d < t->ndim; d++) osz[no++] = t->sizes[d];
    bool ok = tt->ndim == t->ndim - 1;
    for (int d = 1; ok && d < tt->ndim; d++) ok = tt->sizes[d] == t->sizes[d + 1];
    if (!ok) {
        char s1[256], s2[256];
        tn_shape_str(s1, sizeof s1, no, osz);
        tn_shape_str(s2, sizeof s2, tt->ndim, tt->sizes);
        return PyErr_Format(PyExc_RuntimeError, "Expected target size %s, got %s", s1, s2);
    }
    PyObject *ic = tn_at_contiguous(self, NULL), *tc = ic ? tn_at_contiguous(target, NULL) : NULL;
    bool ie = tn_numel(t) == 0, te = tn_numel(tt) == 0;
    PyObject *iv = tc ? tn_at_view(ic, TN_IS((long long)n, (long long)c, ie ? 0LL : 1LL, ie ? 0LL : -1LL)) : NULL;
    PyObject *tv = iv ? tn_at_view(tc, TN_IS((long long)n, te ? 0LL : 1LL, te ? 0LL : -1LL)) : NULL;
    PyObject *r = tv ? nll_call(tn_at_nll_loss2d, iv, tv, w, red, ign) : NULL;
    if (r && red == 0) {
        PyObject *sz = tn_int_list(osz, no);
        Py_SETREF(r, sz ? tn_at_view(r, TN_IPY(sz)) : NULL);
        Py_XDECREF(sz);
    }
    Py_XDECREF(ic); Py_XDECREF(tc); Py_XDECREF(iv); Py_XDECREF(tv);
    return r;
}
static PyObject *d_nll_loss_nd(tn_value *a) {
    PyObject *w = A(2, a);
    PyObject *r = w ? nll_nd(a[0].u.obj, a[1].u.obj, w, (long long)a[3].u.i, (long long)a[4].u.i) : NULL;
    Py_XDECREF(w);
    return r;
}
static int TN_ROW_cross_entropy_loss_row(void) {
    static int r = -2;
    if (r == -2) r = tn_op_find("cross_entropy_loss", "");
    return r;
}
/* the broadcast view of a 1-d class weight: [1, C, 1, ...] */
static PyObject *class_weight_view(PyObject *w, int ndim, int cd) {
    if (ndim <= 1) return Py_NewRef(w);
    int64_t sh[TN_MAX_DIMS];
    for (int i = 0; i < ndim; i++) sh[i] = 1;
    sh[cd] = tn_tensor_of(w)->sizes[0];
    PyObject *l = tn_int_list(sh, ndim), *r = l ? tn_at_view(w, TN_IPY(l)) : NULL;
    Py_XDECREF(l);
    return r;
}
static PyObject *log_softmax_self(PyObject *x, int cd) {
    return tn_at_log_softmax_int(x, cd, TN_DT(tn_tensor_of(x)->dtype));
}
static PyObject *steal2(PyObject *r, PyObject *a, PyObject *b) { Py_XDECREF(a); Py_XDECREF(b); return r; }
/* cross_entropy_loss_prob_target: -(log_softmax(self) * target [* weight]) reduced; label
 * smoothing mixes the target with the uniform distribution */
static PyObject *ce_prob_target(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int cd = t->ndim == 1 ? 0 : 1;
    int64_t nc = t->sizes[cd];
    double ls = a[5].u.f;
    bool hw = a[2].tag == TN_V_TENSOR;
    if (ls > 1.0 || (hw && (tn_tensor_of(a[2].u.obj)->ndim != 1 || tn_tensor_of(a[2].u.obj)->sizes[0] != nc)))
        return tn_door_below_autograd(TN_ROW_cross_entropy_loss_row(), a);
    PyObject *in = log_softmax_self(self, cd);
    PyObject *tg = in ? Py_NewRef(a[1].u.obj) : NULL;
    if (tg && ls > 0.0) {
        tg = steal2(tn_at_mul_Scalar(tg, TN_SD(1 - ls)), tg, NULL);
        if (tg) tg = steal2(tn_at_add_Scalar(tg, TN_SD(ls / (double)nc), TN_SDEF), tg, NULL);
    }
    PyObject *p = tg ? tn_at_mul_Tensor(in, tg) : NULL;
    if (p && hw) {
        PyObject *wv = class_weight_view(a[2].u.obj, t->ndim, cd);
        p = steal2(wv ? tn_at_mul_Tensor(p, wv) : NULL, p, wv);
    }
    PyObject *r = NULL;
    int64_t red = a[3].u.i;
    if (p) {
        if (red == 0) {
            PyObject *sm = tn_at_sum_dim_IntList(p, TN_IS(cd), false, NULL);
            r = sm ? tn_at_neg(sm) : NULL;
            Py_XDECREF(sm);
        } else {
            PyObject *sm = tn_at_sum(p, NULL), *ng = sm ? tn_at_neg(sm) : NULL;
            Py_XDECREF(sm);
            if (ng && red == 1) {
                int64_t numel = tn_numel(t);
                if (numel == 0) { PyObject *f = tn_at_fill__Scalar(ng, TN_SD(NAN)); if (!f) Py_CLEAR(ng); Py_XDECREF(f); r = ng; }
                else { r = tn_at_div_Scalar(ng, TN_SI((long long)(numel / nc))); Py_DECREF(ng); }
            } else r = ng;
        }
    }
    Py_XDECREF(in); Py_XDECREF(tg); Py_XDECREF(p);
    return r;
}
/* cross_entropy_loss_label_smoothing (class-index targets):
 * (1 - ls) * nll_loss_nd(log_softmax) + smooth_loss_reduced * (ls / n_classes) */
static PyObject *nll_nd(PyObject *self, PyObject *target, PyObject *w, long long red, long long ign);
static PyObject *ce_label_smoothing(tn_value *a) {
    PyObject *self = a[0].u.obj, *target = a[1].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int cd = t->ndim == 1 ? 0 : 1;
    double ls = a[5].u.f;
    if (ls > 1.0) return tn_door_below_autograd(TN_ROW_cross_entropy_loss_row(), a);
    bool hw = a[2].tag == TN_V_TENSOR;
    int64_t red = a[3].u.i;
    PyObject *w = A(2, a);
    PyObject *in = w ? log_softmax_self(self, cd) : NULL;
    PyObject *nll = in ? tn_at_nll_loss_nd(in, target, w == Py_None ? NULL : w, red, a[4].u.i) : NULL;
    int64_t nc = t->sizes[cd];
    PyObject *ig = nll ? tn_at_eq_Scalar(target, TN_SI((long long)a[4].u.i)) : NULL;
    PyObject *sm = NULL;
    if (ig) {
        PyObject *x = hw ? class_weight_view(a[2].u.obj, t->ndim, cd) : NULL;
        PyObject *xw = hw ? (x ? tn_at_mul_Tensor(in, x) : NULL) : Py_NewRef(in);
        PyObject *s1 = xw ? tn_at_sum_dim_IntList(xw, TN_IS(cd), false, NULL) : NULL;
        sm = s1 ? tn_at_neg(s1) : NULL;
        Py_XDECREF(x); Py_XDECREF(xw); Py_XDECREF(s1);
        PyObject *f = sm ? tn_at_masked_fill__Scalar(sm, ig, TN_SD(0.0)) : NULL;
        if (!f) Py_CLEAR(sm);
        Py_XDECREF(f);
    }
    PyObject *ret = NULL;
    if (sm) {
        if (red == 1) {
            PyObject *tot = tn_at_sum(sm, NULL), *den = NULL;
            PyObject *ni = tot ? tn_at_bitwise_not(ig) : NULL;
            if (ni && hw) {
                PyObject *ms = tn_at_masked_select(target, ni);
                PyObject *fl = ms ? tn_at_flatten_using_ints(ms, 0, -1) : NULL;
                PyObject *ga = fl ? tn_at_gather(a[2].u.obj, 0, fl, false) : NULL;
                den = ga ? tn_at_sum(ga, NULL) : NULL;
                Py_XDECREF(ms); Py_XDECREF(fl); Py_XDECREF(ga);
            } else if (ni) {
                den = tn_at_sum(ni, NULL);
            }
            ret = den ? tn_at_div_Tensor(tot, den) : NULL;
            Py_XDECREF(tot); Py_XDECREF(den); Py_XDECREF(ni);
        } else if (red == 2) {
            ret = tn_at_sum(sm, NULL);
        } else {
            ret = Py_NewRef(sm);
        }
    }
    PyObject *l = ret ? tn_at_mul_Scalar(nll, TN_SD(1 - ls)) : NULL;
    PyObject *rr = l ? tn_at_mul_Scalar(ret, TN_SD(ls / (double)nc)) : NULL;
    PyObject *r = rr ? tn_at_add_Tensor(l, rr, TN_SDEF) : NULL;
    Py_XDECREF(w); Py_XDECREF(in); Py_XDECREF(nll); Py_XDECREF(ig); Py_XDECREF(sm); Py_XDECREF(ret); Py_XDECREF(l); Py_XDECREF(rr);
    return r;
}
/* cross_entropy_loss(self, target, weight?, reduction, ignore_index, label_smoothing):
 * class-index targets without smoothing: nll_loss_nd(log_softmax(self, class_dim, self.dtype), ...) */
static PyObject *d_cross_entropy(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj), *tt = tn_tensor_of(a[1].u.obj);
    bool same = t->ndim == tt->ndim;
    for (int i = 0; same && i < t->ndim; i++) same = t->sizes[i] == tt->sizes[i];
    if (same) return ce_prob_target(a);
    if (a[5].u.f > 0.0) return ce_label_smoothing(a);
    int cd = t->ndim == 1 ? 0 : 1;
    PyObject *ls = tn_at_log_softmax_int(a[0].u.obj, cd, TN_DT(t->dtype));
    PyObject *w = ls ? A(2, a) : NULL;
    /* upstream's cross_entropy_loss calls at::nll_loss_nd (through the door) */
    PyObject *r = w ? tn_at_nll_loss_nd(ls, a[1].u.obj, w == Py_None ? NULL : w, a[3].u.i, a[4].u.i) : NULL;
    Py_XDECREF(ls); Py_XDECREF(w);
    return r;
}
/* ---- loss family: composites of torch.nn's losses, op by op as upstream's (ATen/native/Loss.cpp) ---- */

static PyObject *first_of(PyObject *r) {   /* r[0] of a tuple result; steals r */
    if (!r) return NULL;
    PyObject *o = Py_NewRef(PyTuple_GetItem(r, 0));
    Py_DECREF(r);
    return o;
}
static PyObject *ip(PyObject *r, PyObject *self) {   /* an in-place op's result: self (steals self) */
    if (!r) { Py_XDECREF(self); return NULL; }
    Py_DECREF(r);
    return self;
}
static PyObject *loss_reduced(PyObject *l, int64_t red) {   /* apply_loss_reduction; steals l */
    if (!l || red == 0) return l;
    PyObject *r = (red == 1 ? tn_at_mean(l, NULL) : tn_at_sum(l, NULL));
    Py_DECREF(l);
    return r;
}
/* C++ `c - t` (Scalar - Tensor) in upstream's composites: empty_like(t).fill_(c).sub_(t) */
static PyObject *scalar_minus(double c, PyObject *t) {
    PyObject *e = tn_at_empty_like(t, NULL, NULL, NULL, NULL, NULL);
    if (e) e = ip(tn_at_fill__Scalar(e, TN_SD(c)), e);
    if (e) e = ip(tn_at_sub__Tensor(e, t, TN_SDEF), e);
    return e;
}
static PyObject *d_log_sigmoid(tn_value *a) { return first_of(tn_at_log_sigmoid_forward(a[0].u.obj)); }
static PyObject *d_multilabel_margin_loss(tn_value *a) {
    return first_of(tn_at_multilabel_margin_loss_forward(a[0].u.obj, a[1].u.obj, (long long)a[2].u.i));
}
static PyObject *d_nll_loss2d(tn_value *a) {
    PyObject *w = A(2, a);
    PyObject *r = w ? first_of(tn_at_nll_loss2d_forward(a[0].u.obj, a[1].u.obj, w, (long long)a[3].u.i, (long long)a[4].u.i)) : NULL;
    Py_XDECREF(w);
    return r;
}
/* kl_div(self, target, reduction, log_target): log_target: exp(target) * (target - self);
 * else xlogy(target, target) - target * self */
static PyObject *d_kl_div(tn_value *a) {
    PyObject *x = a[0].u.obj, *t = a[1].u.obj;
    tn_dtype dx = tn_tensor_of(x)->dtype, dt = tn_tensor_of(t)->dtype;
    if (tn_dtype_is_complex(dx) || tn_dtype_is_complex(dt)) {
        PyErr_SetString(PyExc_RuntimeError, "kl_div: Complex inputs not supported.");
        return NULL;
    }
    if (!tn_dtype_is_floating(dx) || !tn_dtype_is_floating(dt)) {
        PyErr_SetString(PyExc_RuntimeError, "kl_div: Integral inputs not supported.");
        return NULL;
    }
    PyObject *out;
    if (a[3].u.i) {
        PyObject *d = tn_at_sub_Tensor(t, x, TN_SDEF), *e = d ? tn_at_exp(t) : NULL;
        out = e ? tn_at_mul_Tensor(e, d) : NULL;
        Py_XDECREF(d); Py_XDECREF(e);
    } else {
        PyObject *m = tn_at_mul_Tensor(t, x), *xl = m ? tn_at_xlogy_Tensor(t, t) : NULL;
        out = xl ? tn_at_sub_Tensor(xl, m, TN_SDEF) : NULL;
        Py_XDECREF(m); Py_XDECREF(xl);
    }
    return loss_reduced(out, a[2].u.i);
}
/* poisson_nll_loss(input, target, log_input, full, eps, reduction) */
static PyObject *d_poisson_nll_loss(tn_value *a) {
    PyObject *x = a[0].u.obj, *t = a[1].u.obj, *loss;
    if (a[2].u.i) {   /* exp(input) - target * input */
        PyObject *m = tn_at_mul_Tensor(t, x), *e = m ? tn_at_exp(x) : NULL;
        loss = e ? tn_at_sub_Tensor(e, m, TN_SDEF) : NULL;
        Py_XDECREF(m); Py_XDECREF(e);
    } else {          /* input - target * log(input + eps) */
        PyObject *ad = tn_at_add_Scalar(x, TN_SD(a[4].u.f), TN_SDEF), *lg = ad ? tn_at_log(ad) : NULL;
        PyObject *m = lg ? tn_at_mul_Tensor(t, lg) : NULL;
        loss = m ? tn_at_sub_Tensor(x, m, TN_SDEF) : NULL;
        Py_XDECREF(ad); Py_XDECREF(lg); Py_XDECREF(m);
    }
    if (loss && a[3].u.i) {   /* + (target * log(target) - target + 0.5 * log(2 pi target)).masked_fill(target <= 1, 0) */
        PyObject *p2 = tn_at_mul_Scalar(t, TN_SD(2 * 3.14159265358979323846));
        PyObject *l2 = p2 ? tn_at_log(p2) : NULL;
        PyObject *h = l2 ? tn_at_mul_Scalar(l2, TN_SD(0.5)) : NULL;
        PyObject *lt = h ? tn_at_log(t) : NULL;
        PyObject *tl = lt ? tn_at_mul_Tensor(t, lt) : NULL;
        PyObject *sb = tl ? tn_at_sub_Tensor(tl, t, TN_SDEF) : NULL;
        PyObject *st = sb ? tn_at_add_Tensor(sb, h, TN_SDEF) : NULL;
        PyObject *le = st ? tn_at_le_Scalar(t, TN_SI(1)) : NULL;
        PyObject *mf = le ? tn_at_masked_fill_Scalar(st, le, TN_SI(0)) : NULL;
        PyObject *r = mf ? tn_at_add__Tensor(loss, mf, TN_SDEF) : NULL;
        Py_XDECREF(p2); Py_XDECREF(l2); Py_XDECREF(h); Py_XDECREF(lt); Py_XDECREF(tl); Py_XDECREF(sb);
        Py_XDECREF(st); Py_XDECREF(le); Py_XDECREF(mf);
        loss = ip(r, loss);
    }
    return loss_reduced(loss, a[5].u.i);
}
/* hinge_embedding_loss(self, target, margin, reduction):
 * where(target != 1, (margin - self).clamp_min_(0), 0) + where(target != -1, self, 0) */
static PyObject *d_hinge_embedding_loss(tn_value *a) {
    PyObject *x = a[0].u.obj, *t = a[1].u.obj;
    PyObject *z = tn_at_zeros_like(x, NULL, NULL, NULL, NULL, NULL);
    PyObject *mc = z ? scalar_minus(a[2].u.f, x) : NULL;
    if (mc) mc = ip(tn_at_clamp_min_(mc, TN_SI(0)), mc);
    PyObject *n1 = mc ? tn_at_ne_Scalar(t, TN_SI(1)) : NULL;
    PyObject *om = n1 ? tn_at_where_self(n1, mc, z) : NULL;
    PyObject *n2 = om ? tn_at_ne_Scalar(t, TN_SI(-1)) : NULL;
    PyObject *os = n2 ? tn_at_where_self(n2, x, z) : NULL;
    PyObject *out = os ? tn_at_add_Tensor(om, os, TN_SDEF) : NULL;
    Py_XDECREF(z); Py_XDECREF(mc); Py_XDECREF(n1); Py_XDECREF(om); Py_XDECREF(n2); Py_XDECREF(os);
    return loss_reduced(out, a[3].u.i);
}
/* margin_ranking_loss(input1, input2, target, margin, reduction):
 * (-target * (input1 - input2) + margin).clamp_min_(0) */
static PyObject *d_margin_ranking_loss(tn_value *a) {
    PyObject *d = tn_at_sub_Tensor(a[0].u.obj, a[1].u.obj, TN_SDEF);
    PyObject *nt = d ? tn_at_neg(a[2].u.obj) : NULL;
    PyObject *m = nt ? tn_at_mul_Tensor(nt, d) : NULL;
    PyObject *out = m ? tn_at_add_Scalar(m, TN_SD(a[3].u.f), TN_SDEF) : NULL;
    if (out) out = ip(tn_at_clamp_min_(out, TN_SI(0)), out);
    Py_XDECREF(d); Py_XDECREF(nt); Py_XDECREF(m);
    return loss_reduced(out, a[4].u.i);
}
/* cosine_embedding_loss(input1, input2, target, margin, reduction) */
static PyObject *d_cosine_embedding_loss(tn_value *a) {
    PyObject *i1 = a[0].u.obj, *i2 = a[1].u.obj, *t = a[2].u.obj;
    const tn_tensor *x1 = tn_tensor_of(i1), *x2 = tn_tensor_of(i2);
    int td = tn_tensor_of(t)->ndim;
    char s1[256], s2[256];
    if (td != 1 && td != 0) {
        PyErr_SetString(PyExc_RuntimeError, "0D or 1D target tensor expected, multi-target not supported");
        return NULL;
    }
    if ((td == 1 && x1->ndim != 2) || (td == 0 && x1->ndim != 1)) {
        tn_shape_str(s1, sizeof s1, x1->ndim, x1->sizes);
        tn_shape_str(s2, sizeof s2, x2->ndim, x2->sizes);
        PyErr_Format(PyExc_RuntimeError, "%s target tensor expects %s input tensors, but found inputs with sizes %s and %s.",
                     td == 1 ? "1D" : "0D", td == 1 ? "2D" : "1D", s1, s2);
        return NULL;
    }
    const double eps = (double)1e-12f;
    PyObject *p = tn_at_mul_Tensor(i1, i2);
    PyObject *ps = p ? tn_at_sum_dim_IntList(p, TN_IS(td), false, NULL) : NULL;
    PyObject *q1 = ps ? tn_at_mul_Tensor(i1, i1) : NULL;
    PyObject *s1s = q1 ? tn_at_sum_dim_IntList(q1, TN_IS(td), false, NULL) : NULL;
    PyObject *m1 = s1s ? tn_at_add_Scalar(s1s, TN_SD(eps), TN_SDEF) : NULL;
    PyObject *q2 = m1 ? tn_at_mul_Tensor(i2, i2) : NULL;
    PyObject *s2s = q2 ? tn_at_sum_dim_IntList(q2, TN_IS(td), false, NULL) : NULL;
    PyObject *m2 = s2s ? tn_at_add_Scalar(s2s, TN_SD(eps), TN_SDEF) : NULL;
    PyObject *den = m2 ? tn_at_mul_Tensor(m1, m2) : NULL;
    if (den) den = ip(tn_at_sqrt_(den), den);
    PyObject *cs = den ? tn_at_div_Tensor(ps, den) : NULL;
    PyObject *z = cs ? tn_at_zeros_like(cs, NULL, NULL, NULL, NULL, NULL) : NULL;
    PyObject *pos = z ? scalar_minus(1.0, cs) : NULL;
    PyObject *ng = pos ? tn_at_sub_Scalar(cs, TN_SD(a[3].u.f), TN_SDEF) : NULL;
    if (ng) ng = ip(tn_at_clamp_min_(ng, TN_SI(0)), ng);
    PyObject *e1 = ng ? tn_at_eq_Scalar(t, TN_SI(1)) : NULL;
    PyObject *op = e1 ? tn_at_where_self(e1, pos, z) : NULL;
    PyObject *e2 = op ? tn_at_eq_Scalar(t, TN_SI(-1)) : NULL;
    PyObject *on = e2 ? tn_at_where_self(e2, ng, z) : NULL;
    PyObject *out = on ? tn_at_add_Tensor(op, on, TN_SDEF) : NULL;
    PyObject *tmp[] = {p, ps, q1, s1s, m1, q2, s2s, m2, den, cs, z, pos, ng, e1, op, e2, on};
    for (size_t i = 0; i < sizeof tmp / sizeof *tmp; i++) Py_XDECREF(tmp[i]);
    return loss_reduced(out, a[4].u.i);
}
/* pairwise_distance(x1, x2, p, eps, keepdim): norm(x1 - x2 + eps, p, innermost dim, keepdim) */
static PyObject *pairwise_dist(PyObject *x1, PyObject *x2, double p, double eps, bool keepdim) {
    int d1 = tn_tensor_of(x1)->ndim, d2 = tn_tensor_of(x2)->ndim, od = d1 > d2 ? d1 : d2;
    PyObject *d = tn_at_sub_Tensor(x1, x2, TN_SDEF), *ad = d ? tn_at_add_Scalar(d, TN_SD(eps), TN_SDEF) : NULL;
    PyObject *r = ad ? tn_at_norm_ScalarOpt_dim(ad, TN_SD(p), TN_IS(od - 1), keepdim) : NULL;
    Py_XDECREF(d); Py_XDECREF(ad);
    return r;
}
static PyObject *d_pairwise_distance(tn_value *a) {
    return pairwise_dist(a[0].u.obj, a[1].u.obj, a[2].u.f, a[3].u.f, a[4].u.i != 0);
}
/* triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction) */
static PyObject *d_triplet_margin_loss(tn_value *a) {
    PyObject *an = a[0].u.obj, *po = a[1].u.obj, *ne = a[2].u.obj;
    int ad = tn_tensor_of(an)->ndim, pd = tn_tensor_of(po)->ndim, nd = tn_tensor_of(ne)->ndim;
    if (!(ad == pd && pd == nd)) {
        PyErr_Format(PyExc_RuntimeError, "All inputs should have same dimension but got %dD, %dD and %dD inputs.", ad, pd, nd);
        return NULL;
    }
    double p = a[4].u.f, eps = a[5].u.f;
    PyObject *dp = pairwise_dist(an, po, p, eps, false), *dn = dp ? pairwise_dist(an, ne, p, eps, false) : NULL;
    if (dn && a[6].u.i) {
        PyObject *ds = pairwise_dist(po, ne, p, eps, false);
        PyObject *m = ds ? tn_at_minimum(dn, ds) : NULL;
        Py_XDECREF(ds);
        Py_SETREF(dn, m);
    }
    PyObject *s = dn ? tn_at_add_Scalar(dp, TN_SD(a[3].u.f), TN_SDEF) : NULL;
    PyObject *df = s ? tn_at_sub_Tensor(s, dn, TN_SDEF) : NULL;
    PyObject *out = df ? tn_at_clamp_min(df, TN_SI(0)) : NULL;
    Py_XDECREF(dp); Py_XDECREF(dn); Py_XDECREF(s); Py_XDECREF(df);
    return loss_reduced(out, a[7].u.i);
}
/* ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, reduction, zero_infinity), both
 * overloads: _ctc_loss on the batched log_probs and int64 targets; zero_infinity: where(res == inf,
 * 0, res); mean: (res / target_lengths.clamp_min(1)).mean(); sum: res.sum(); none: res (squeezed
 * back for unbatched input) */
static PyObject *ctc_loss_composite(tn_value *a, bool tensor_lengths) {
    PyObject *lp = a[0].u.obj;
    bool batched = tn_tensor_of(lp)->ndim == 3;
    if (tensor_lengths) {
        for (int i = 2; i <= 3; i++)
            if (!tn_dtype_is_integral(tn_tensor_of(a[i].u.obj)->dtype, false)) {
                PyErr_Format(PyExc_RuntimeError, "%s must be integral", i == 2 ? "input_lengths" : "target_lengths");
                return NULL;
            }
    }
    /* upstream keeps tensor lengths (_ctc_loss.Tensor) only for tensor subclasses / under a dispatch
     * mode; otherwise they become int lists (_ctc_loss, CtcLossBackward0), measured */
    tn_value lv[2];
    int64_t lbuf[2][512];
    if (tensor_lengths && !(tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled())) {
        for (int i = 0; i < 2; i++) {
            PyObject *c = tn_as_dtype(a[2 + i].u.obj, TN_DTYPE_I64, true);
            if (!c) return NULL;
            int64_t n = tn_numel(tn_tensor_of(c));
            if (n > 512) { Py_DECREF(c); return tn_not_implemented("ctc_loss with more than 512 lengths"); }
            memcpy(lbuf[i], tn_data(tn_tensor_of(c)), (size_t)n * sizeof(int64_t));
            Py_DECREF(c);
            lv[i] = (tn_value){.tag = TN_V_INTLIST, .u.ints = {lbuf[i], (int)n}};
        }
        tn_value b[7] = {a[0], a[1], lv[0], lv[1], a[4], a[5], a[6]};
        return ctc_loss_composite(b, false);
    }
    PyObject *lpb = batched ? Py_NewRef(lp) : tn_at_unsqueeze(lp, 1);
    PyObject *tg = lpb ? to_dtype(a[1].u.obj, TN_DTYPE_I64, false, NULL) : NULL;
    PyObject *il = tg ? A(2, a) : NULL, *tl = il ? A(3, a) : NULL;
    PyObject *r = tl ? (tensor_lengths ? tn_at__ctc_loss_Tensor(lpb, tg, il, tl, (long long)a[4].u.i, a[6].u.i) : tn_at__ctc_loss(lpb, tg, TN_IPY(il), TN_IPY(tl), (long long)a[4].u.i, a[6].u.i)) : NULL;
    PyObject *res = first_of(r);
    Py_XDECREF(lpb); Py_XDECREF(tg); Py_XDECREF(il);
    if (res && a[6].u.i) {
        const tn_tensor *rt = tn_tensor_of(res);
        PyObject *z = tn_at_zeros(TN_IS0, TN_DT(rt->dtype), NULL, NULL, NULL);
        PyObject *e = z ? tn_at_eq_Scalar(res, TN_SD((double)INFINITY)) : NULL;
        PyObject *w = e ? tn_at_where_self(e, z, res) : NULL;
        Py_XDECREF(z); Py_XDECREF(e);
        Py_SETREF(res, w);
    }
    int64_t red = a[5].u.i;
    PyObject *out = NULL;
    if (res && red == 1) {
        PyObject *tlt;
        if (tensor_lengths) {
            tlt = tn_at_clamp_min(tl, TN_SI(1));
        } else {   /* at::tensor(target_lengths, res.options()).clamp_min(1) */
            const tn_value *v = &a[3];
            int64_t n = v->u.ints.n;
            tn_dtype dt = tn_tensor_of(res)->dtype;
            PyObject *e = tn_at_empty_memory_format(TN_IS(n), TN_DT(dt), NULL, NULL, NULL, NULL);
            if (e) {
                char *p = tn_data(tn_tensor_of(e));
                for (int64_t i = 0; i < n; i++) {
                    if (dt == TN_DTYPE_F64) ((double *)p)[i] = (double)v->u.ints.v[i];
                    else ((float *)p)[i] = (float)v->u.ints.v[i];
                }
            }
            tlt = e ? tn_at_clamp_min(e, TN_SI(1)) : NULL;
            Py_XDECREF(e);
        }
        PyObject *q = tlt ? tn_at_div_Tensor(res, tlt) : NULL;
        out = q ? tn_at_mean(q, NULL) : NULL;
        Py_XDECREF(tlt); Py_XDECREF(q);
    } else if (res && red == 2) {
        out = tn_at_sum(res, NULL);
    } else if (res) {
        out = batched ? Py_NewRef(res) : tn_at_squeeze_dim(res, 0);
    }
    Py_XDECREF(tl); Py_XDECREF(res);
    return out;
}
static PyObject *d_ctc_loss_intlist(tn_value *a) { return ctc_loss_composite(a, false); }
static PyObject *d_ctc_loss_tensor(tn_value *a) { return ctc_loss_composite(a, true); }
/* cosine_similarity(x1, x2, dim, eps): integer operands to the common floating dtype, expanded
 * together when their shapes differ; norms along dim (keepdim, cloned), clamped to eps without
 * recording; sum(x1 / n1 * (x2 / n2), dim) */
static PyObject *d_cosine_similarity(tn_value *a) {
    PyObject *x1 = a[0].u.obj, *x2 = a[1].u.obj;
    tn_dtype ct = tn_result_type(2, a);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    if (!tn_dtype_is_floating(ct))
        return PyErr_Format(PyExc_RuntimeError, "expected common dtype to be floating point, yet common dtype is %s",
                            tn_dtype_cpp_name(ct));
    PyObject *t1 = tn_dtype_is_integral(tn_tensor_of(x1)->dtype, true) ? to_dtype(x1, ct, false, NULL) : Py_NewRef(x1);
    PyObject *t2 = !t1 ? NULL : tn_dtype_is_integral(tn_tensor_of(x2)->dtype, true) ? to_dtype(x2, ct, false, NULL) : Py_NewRef(x2);
    if (!t2) { Py_XDECREF(t1); return NULL; }
    const tn_tensor *a1 = tn_tensor_of(t1), *a2 = tn_tensor_of(t2);
    bool same = a1->ndim == a2->ndim;
    for (int d = 0; same && d < a1->ndim; d++) same = a1->sizes[d] == a2->sizes[d];
    if (!same) {   /* expand_outplace */
        const tn_tensor *ts[2] = {a1, a2};
        int nd;
        int64_t shape[TN_MAX_DIMS];
        if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) { Py_DECREF(t1); Py_DECREF(t2); return NULL; }
        PyObject *sz = tn_int_list(shape, nd);
        PyObject *e1 = sz ? tn_at_expand(t1, TN_IPY(sz), false) : NULL, *e2 = e1 ? tn_at_expand(t2, TN_IPY(sz), false) : NULL;
        Py_XDECREF(sz); Py_DECREF(t1); Py_DECREF(t2);
        if (!e2) { Py_XDECREF(e1); return NULL; }
        t1 = e1; t2 = e2;
    }
    long long dim = (long long)a[2].u.i;
    PyObject *n1 = tn_at_linalg_vector_norm(t1, TN_SI(2), TN_IS(dim), true, NULL);
    PyObject *c1 = n1 ? tn_at_clone(n1, NULL) : NULL;
    PyObject *n2 = c1 ? tn_at_linalg_vector_norm(t2, TN_SI(2), TN_IS(dim), true, NULL) : NULL;
    PyObject *c2 = n2 ? tn_at_clone(n2, NULL) : NULL;
    PyObject *r = NULL;
    if (c2) {
        bool was = tn_grad_mode_set(false);
        PyObject *e = tn_at_scalar_tensor(TN_SD(a[3].u.f), TN_DT(tn_tensor_of(c1)->dtype), NULL, NULL, NULL);
        PyObject *k1 = e ? tn_at_clamp_min__Tensor(c1, e) : NULL;
        PyObject *k2 = k1 ? tn_at_clamp_min__Tensor(c2, e) : NULL;
        tn_grad_mode_set(was);
        if (k2) {
            PyObject *q1 = tn_at_div_Tensor(t1, c1), *q2 = q1 ? tn_at_div_Tensor(t2, c2) : NULL;
            PyObject *m = q2 ? tn_at_mul_Tensor(q1, q2) : NULL;
            r = m ? tn_at_sum_dim_IntList(m, TN_IS(dim), false, NULL) : NULL;
            Py_XDECREF(q1); Py_XDECREF(q2); Py_XDECREF(m);
        }
        Py_XDECREF(e); Py_XDECREF(k1); Py_XDECREF(k2);
    }
    Py_XDECREF(n1); Py_XDECREF(c1); Py_XDECREF(n2); Py_XDECREF(c2); Py_DECREF(t1); Py_DECREF(t2);
    return r;
}
/* broadcast_tensors: the op itself, each expand passing the door (recorded, seen by a dispatch
 * mode); not through the door again, which under a mode would decompose it once more */
static PyObject *d_broadcast_tensors(tn_value *a) { return tn_op_broadcast_tensors(a); }
/* l1_loss(self, target, reduction): apply_loss_reduction((self - target).abs(), reduction) */
static PyObject *d_l1_loss(tn_value *a) {
    PyObject *d = tn_at_sub_Tensor(a[0].u.obj, a[1].u.obj, TN_SDEF);
    PyObject *ab = d ? tn_at_abs(d) : NULL;
    Py_XDECREF(d);
    if (!ab || (a[2].u.i != 1 && a[2].u.i != 2)) return ab;
    PyObject *r = (a[2].u.i == 1 ? tn_at_mean(ab, NULL) : tn_at_sum(ab, NULL));
    Py_DECREF(ab);
    return r;
}
/* ---- convolution (conv family): the composites of ATen's Convolution.cpp, each reaching
 * aten::convolution (or _convolution) through the door; they have no kernel of their own ---- */

/* upstream's batchify: (un)batched input of dim + 1 or dim + 2 dims; *batched tells which. */
static PyObject *conv_batchify(PyObject *x, int dim, const char *fname, bool *batched) {
    const tn_tensor *t = tn_tensor_of(x);
    *batched = t->ndim == dim + 2;
    if (t->ndim != dim + 1 && !*batched) {
        char b[256];
        tn_shape_str(b, sizeof b, t->ndim, t->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected %dD (unbatched) or %dD (batched) input to %s, but got input of size: %s",
                     dim + 1, dim + 2, fname, b);
        return NULL;
    }
    return *batched ? Py_NewRef(x) : tn_at_unsqueeze(x, 0);
}

static PyObject *conv_unbatch(PyObject *r, bool batched) {
    if (!r || batched) return r;
    PyObject *s = tn_at_squeeze_dim(r, 0);
    Py_DECREF(r);
    return s;
}

static int conv_bias_type(tn_value *a) {
    if (a[2].tag != TN_V_TENSOR) return 0;
    tn_dtype xd = tn_tensor_of(a[0].u.obj)->dtype, bd = tn_tensor_of(a[2].u.obj)->dtype;
    if (xd == bd) return 0;
    PyErr_Format(PyExc_RuntimeError, "Input type (%s) and bias type (%s) should be the same", tn_dtype_cxx_name(xd),
                 tn_dtype_cxx_name(bd));
    return -1;
}

static PyObject *zeros_list(int n) {
    PyObject *l = PyList_New(n);
    for (int i = 0; l && i < n; i++) PyList_SetItem(l, i, PyLong_FromLong(0));
    return l;
}

/* an int-list argument as a list; a bare int (a defaulted SymInt[k]) repeated dim times */
static PyObject *conv_ilist(tn_value *a, int i, int dim) {
    if (a[i].tag != TN_V_INT) return A(i, a);
    PyObject *l = PyList_New(dim);
    for (int k = 0; l && k < dim; k++) PyList_SetItem(l, k, PyLong_FromLongLong((long long)a[i].u.i));
    return l;
}

/* Complex input (issue #9): upstream's complex_convolution, three real convolutions by Gauss's
 * trick, recorded piece by piece as upstream's composite (docs/breadth_more2.md):
 * a = conv(xr, wr, br), b = conv(xi, wi), c = conv(xr + xi, wr + wi, br + bi),
 * result a - b + i (c - a - b). */
static PyObject *conv_complex(PyObject *x, PyObject *w, PyObject *bias, PyObject *stride, PyObject *padding,
                              PyObject *dilation, bool transposed, PyObject *out_pad, int64_t groups) {
    PyObject *T[32];
    int nt = 0;
#define CK(e) (T[nt] = (e), T[nt] ? T[nt++] : NULL)
    PyObject *res = NULL, *tr = transposed ? Py_True : Py_False;
    PyObject *xc = CK(tn_at_resolve_conj(x)), *wc = xc ? CK(tn_at_resolve_conj(w)) : NULL;
    /* upstream's complex_to_real: view_as_real, then select(-1, 0) and select(-1, 1) */
    PyObject *xv = wc ? CK(tn_at_view_as_real(xc)) : NULL, *wv = xv ? CK(tn_at_view_as_real(wc)) : NULL;
    PyObject *xr = wv ? CK(tn_at_select_int(xv, -1, 0)) : NULL, *xi = xr ? CK(tn_at_select_int(xv, -1, 1)) : NULL;
    PyObject *wr = xi ? CK(tn_at_select_int(wv, -1, 0)) : NULL, *wi = wr ? CK(tn_at_select_int(wv, -1, 1)) : NULL;
    PyObject *br = Py_None, *bi = Py_None, *bs = Py_None;
    if (wi && bias != Py_None) {
        PyObject *bc = CK(tn_at_resolve_conj(bias)), *bv = bc ? CK(tn_at_view_as_real(bc)) : NULL;
        br = bv ? CK(tn_at_select_int(bv, -1, 0)) : NULL;
        bi = br ? CK(tn_at_select_int(bv, -1, 1)) : NULL;
        bs = bi ? CK(tn_at_add_Tensor(br, bi, TN_SDEF)) : NULL;
        if (!bs) wi = NULL;
    }
    PyObject *ca = wi ? CK(tn_at_convolution(xr, wr, br, TN_IPY(stride), TN_IPY(padding), TN_IPY(dilation), (tr) == Py_True, TN_IPY(out_pad), (long long)groups)) : NULL;
    PyObject *cb = ca ? CK(tn_at_convolution(xi, wi, NULL, TN_IPY(stride), TN_IPY(padding), TN_IPY(dilation), (tr) == Py_True, TN_IPY(out_pad), (long long)groups)) : NULL;
    PyObject *xs = cb ? CK(tn_at_add_Tensor(xr, xi, TN_SDEF)) : NULL, *ws = xs ? CK(tn_at_add_Tensor(wr, wi, TN_SDEF)) : NULL;
    PyObject *cc = ws ? CK(tn_at_convolution(xs, ws, bs, TN_IPY(stride), TN_IPY(padding), TN_IPY(dilation), (tr) == Py_True, TN_IPY(out_pad), (long long)groups)) : NULL;
    PyObject *re = cc ? CK(tn_at_sub_Tensor(ca, cb, TN_SDEF)) : NULL;
    PyObject *t1 = re ? CK(tn_at_sub_Tensor(cc, ca, TN_SDEF)) : NULL, *t2 = t1 ? CK(tn_at_sub_Tensor(t1, cb, TN_SDEF)) : NULL;
    PyObject *j = t2 ? CK(PyComplex_FromDoubles(0.0, 1.0)) : NULL;
    PyObject *im = j ? CK(tn_at_mul_Scalar(t2, TN_SO(j))) : NULL;
    if (im) res = tn_at_add_Tensor(re, im, TN_SDEF);
#undef CK
    for (int i = 0; i < nt; i++) Py_DECREF(T[i]);
    return res;
}

static PyObject *conv_call(PyObject *x, tn_value *a, PyObject *stride, PyObject *padding, PyObject *dilation,
                           bool transposed, PyObject *out_pad, int64_t groups) {
    if (tn_dtype_is_complex(tn_tensor_of(x)->dtype)) {
        PyObject *b = A(2, a);
        PyObject *r = b ? conv_complex(x, a[1].u.obj, b, stride, padding, dilation, transposed, out_pad, groups) : NULL;
        Py_XDECREF(b);
        return r;
    }
    PyObject *b = A(2, a);
    PyObject *r = b ? tn_at_convolution(x, a[1].u.obj, b, TN_IPY(stride), TN_IPY(padding), TN_IPY(dilation), transposed, TN_IPY(out_pad), (long long)groups) : NULL;
    Py_XDECREF(b);
    return r;
}

static PyObject *conv_nd(tn_value *a, int dim) {   /* conv{1,2,3}d(input, weight, bias, stride, padding, dilation, groups) */
    static const char *names[] = {"", "conv1d", "conv2d", "conv3d"};
    if (conv_bias_type(a) < 0) return NULL;
    bool batched;
    PyObject *x = conv_batchify(a[0].u.obj, dim, names[dim], &batched);
    PyObject *st = x ? conv_ilist(a, 3, dim) : NULL, *pd = st ? conv_ilist(a, 4, dim) : NULL;
    PyObject *dl = pd ? conv_ilist(a, 5, dim) : NULL, *op = dl ? zeros_list(dim) : NULL;
    PyObject *r = op ? conv_call(x, a, st, pd, dl, false, op, a[6].u.i) : NULL;
    Py_XDECREF(x); Py_XDECREF(st); Py_XDECREF(pd); Py_XDECREF(dl); Py_XDECREF(op);
    return conv_unbatch(r, batched);
}
static PyObject *d_conv1d(tn_value *a) { return conv_nd(a, 1); }
static PyObject *d_conv2d(tn_value *a) { return conv_nd(a, 2); }
static PyObject *d_conv3d(tn_value *a) { return conv_nd(a, 3); }

/* _convolution_mode(input, weight, bias, stride, padding: str, dilation, groups) */
static PyObject *conv_mode(PyObject *x, tn_value *a) {
    const char *mode = PyUnicode_AsUTF8AndSize(a[4].u.obj, NULL);
    if (!mode) return NULL;
    const tn_tensor *w = tn_tensor_of(a[1].u.obj), *xt = tn_tensor_of(x);
    const int wdim = w->ndim - 2 > 0 ? w->ndim - 2 : 1;
    if (strcmp(mode, "valid") == 0) {
        PyObject *st = conv_ilist(a, 3, wdim), *z = st ? zeros_list(1) : NULL, *dl = z ? conv_ilist(a, 5, wdim) : NULL;
        PyObject *r = dl ? conv_call(x, a, st, z, dl, false, z, a[6].u.i) : NULL;
        Py_XDECREF(st); Py_XDECREF(z); Py_XDECREF(dl);
        return r;
    }
    if (strcmp(mode, "same") != 0) {
        PyErr_Format(PyExc_RuntimeError, "Invalid padding string: '%s'", mode);
        return NULL;
    }
    int k = w->ndim, dim = k - 2;
    if (k <= 2) {
        PyErr_SetString(PyExc_RuntimeError, "weight should have at least three dimensions");
        return NULL;
    }
    if (k != xt->ndim) {
        char ws[256], is[256];
        tn_shape_str(ws, sizeof ws, w->ndim, w->sizes);
        tn_shape_str(is, sizeof is, xt->ndim, xt->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected %d-dimensional input for %d-dimensional weight%s, but got "
                     "%d-dimensional input of size %s instead", k, k, ws, xt->ndim, is);
        return NULL;
    }
    int64_t one_s = a[3].tag == TN_V_INT ? a[3].u.i : 0, one_d = a[5].tag == TN_V_INT ? a[5].u.i : 0;
    tn_value sv_[1] = {a[3]}, dv_[1] = {a[5]};
    if (a[3].tag == TN_V_INT) { sv_[0].tag = TN_V_INTLIST; sv_[0].u.ints.v = &one_s; sv_[0].u.ints.n = 1; }
    if (a[5].tag == TN_V_INT) { dv_[0].tag = TN_V_INTLIST; dv_[0].u.ints.v = &one_d; dv_[0].u.ints.n = 1; }
    const tn_value *sv = sv_, *dv = dv_;
    if (sv->u.ints.n != dim && sv->u.ints.n != 1) {
        PyErr_Format(PyExc_RuntimeError, "stride cannot broadcast to %d dimensions", dim);
        return NULL;
    }
    if (dv->u.ints.n != dim && dv->u.ints.n != 1) {
        PyErr_Format(PyExc_RuntimeError, "dilation cannot broadcast to %d dimensions", dim);
        return NULL;
    }
    for (int i = 0; i < sv->u.ints.n; i++)
        if (sv->u.ints.v[i] != 1) {
            PyErr_SetString(PyExc_RuntimeError, "padding='same' is not supported for strided convolutions");
            return NULL;
        }
    int64_t pl[3], pad_nd[6] = {0};
    bool symmetric = true;
    for (int i = 0; i < dim; i++) {
        int64_t d = dv->u.ints.n == 1 ? dv->u.ints.v[0] : dv->u.ints.v[i];
        int64_t total = d * (w->sizes[i + 2] - 1), l = total / 2, r = total - l;
        pl[i] = l;
        if (l != r) {
            symmetric = false;
            pad_nd[2 * (dim - 1 - i) + 1] = r - l;   /* F.pad's order: last dim first */
        }
    }
    PyObject *st = conv_ilist(a, 3, dim), *dl = st ? conv_ilist(a, 5, dim) : NULL, *pad = dl ? tn_int_list(pl, dim) : NULL, *op = pad ? zeros_list(dim) : NULL;
    PyObject *xin = NULL, *r = NULL;
    if (op) {
        if (symmetric) {
            xin = Py_NewRef(x);
        } else {
            if (PyErr_WarnEx(PyExc_UserWarning, "Using padding='same' with even kernel lengths and odd dilation may "
                             "require a zero-padded copy of the input be created", 1) == 0) {
                PyObject *pn = tn_int_list(pad_nd, 2 * dim);
                xin = pn ? tn_at_constant_pad_nd(x, TN_IPY(pn), TN_SDEF) : NULL;
                Py_XDECREF(pn);
            }
        }
    }
    if (xin) r = conv_call(xin, a, st, pad, dl, false, op, a[6].u.i);
    Py_XDECREF(st); Py_XDECREF(dl); Py_XDECREF(pad); Py_XDECREF(op); Py_XDECREF(xin);
    return r;
}
static PyObject *d_convolution_mode(tn_value *a) { return conv_mode(a[0].u.obj, a); }

static PyObject *conv_nd_padding(tn_value *a, int dim) {   /* conv{1,2,3}d.padding */
    static const char *names[] = {"", "conv1d", "conv2d", "conv3d"};
    if (conv_bias_type(a) < 0) return NULL;
    bool batched;
    PyObject *x = conv_batchify(a[0].u.obj, dim, names[dim], &batched);
    PyObject *r = x ? conv_mode(x, a) : NULL;
    Py_XDECREF(x);
    return conv_unbatch(r, batched);
}
static PyObject *d_conv1d_padding(tn_value *a) { return conv_nd_padding(a, 1); }
static PyObject *d_conv2d_padding(tn_value *a) { return conv_nd_padding(a, 2); }
static PyObject *d_conv3d_padding(tn_value *a) { return conv_nd_padding(a, 3); }

/* conv_transpose{1,2,3}d(input, weight, bias, stride, padding, output_padding, groups, dilation) */
static PyObject *conv_transpose_nd(tn_value *a, int dim) {
    static const char *names[] = {"", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d"};
    bool batched;
    PyObject *x = conv_batchify(a[0].u.obj, dim, names[dim], &batched);
    PyObject *st = x ? conv_ilist(a, 3, dim) : NULL, *pd = st ? conv_ilist(a, 4, dim) : NULL;
    PyObject *op = pd ? conv_ilist(a, 5, dim) : NULL, *dl = op ? conv_ilist(a, 7, dim) : NULL;
    PyObject *r = dl ? conv_call(x, a, st, pd, dl, true, op, a[6].u.i) : NULL;
    Py_XDECREF(x); Py_XDECREF(st); Py_XDECREF(pd); Py_XDECREF(dl); Py_XDECREF(op);
    return conv_unbatch(r, batched);
}
static PyObject *d_conv_transpose1d(tn_value *a) { return conv_transpose_nd(a, 1); }
static PyObject *d_conv_transpose2d(tn_value *a) { return conv_transpose_nd(a, 2); }
static PyObject *d_conv_transpose3d(tn_value *a) { return conv_transpose_nd(a, 3); }

/* _convolution.deprecated: _convolution with allow_tf32 from the global context (true) */
static PyObject *d_convolution_deprecated(tn_value *a) {
    return tn_at__convolution(a[0].u.obj, a[1].u.obj, a[2].tag == TN_V_TENSOR ? a[2].u.obj : NULL, tn_ints_of(&a[3]),
                              tn_ints_of(&a[4]), tn_ints_of(&a[5]), a[6].u.i != 0, tn_ints_of(&a[7]), a[8].u.i, a[9].u.i != 0,
                              a[10].u.i != 0, a[11].u.i != 0, true);
}

/* ---- adapt family (torchnative.adapt needed these; upstream's composites op by op) ---- */

/* where(condition) is condition.nonzero_numpy() (ops/index.c) */
static PyObject *d_where_condition(tn_value *a) { return tn_op_nonzero_numpy(a); }


/* Named decompositions are also the op's implementation when it has no kernel row: they run
 * without recording or a mode too (the door's composite path, tn_decomp_computes). */
/* ---- activations ---- */
/* selu(self) / selu_(self): upstream's elu with SELU's alpha and scale */
#define SELU_ALPHA 1.6732632423543772848170429916717
#define SELU_SCALE 1.0507009873554804934193349852946
static PyObject *d_selu(tn_value *a) { return tn_at_elu(a[0].u.obj, TN_SD(SELU_ALPHA), TN_SD(SELU_SCALE), TN_SDEF); }
static PyObject *d_selu_(tn_value *a) { return tn_at_elu_(a[0].u.obj, TN_SD(SELU_ALPHA), TN_SD(SELU_SCALE), TN_SDEF); }
/* relu6(self) / relu6_(self): upstream's hardtanh(self, 0, 6) */
static PyObject *d_relu6(tn_value *a) { return tn_at_hardtanh(a[0].u.obj, TN_SI(0), TN_SI(6)); }
static PyObject *d_relu6_(tn_value *a) { return tn_at_hardtanh_(a[0].u.obj, TN_SI(0), TN_SI(6)); }

static const struct { const char *name, *overload; tn_decomp_fn fn; } named_decomps[] = {
    {"selu", "", d_selu}, {"selu_", "", d_selu_}, {"relu6", "", d_relu6}, {"relu6_", "", d_relu6_},
    /* fake quantization (ops/fakequant.c) */
    {"fake_quantize_per_tensor_affine", "", tn_op_fake_quantize_per_tensor_affine}, {"fake_quantize_per_tensor_affine", "tensor_qparams", tn_op_fake_quantize_per_tensor_affine_tensor_qparams},
    {"fake_quantize_per_tensor_affine_cachemask_backward", "", tn_op_fake_quantize_per_tensor_affine_cachemask_backward},
    {"fake_quantize_per_channel_affine", "", tn_op_fake_quantize_per_channel_affine},
    {"fake_quantize_per_channel_affine_cachemask_backward", "", tn_op_fake_quantize_per_channel_affine_cachemask_backward},
    {"fused_moving_avg_obs_fake_quant", "", tn_op_fused_moving_avg_obs_fake_quant}, {"_choose_qparams_per_tensor", "", tn_op__choose_qparams_per_tensor},
    {"choose_qparams_optimized", "", tn_op_choose_qparams_optimized},
    {"l1_loss", "", d_l1_loss},
    /* backward composites the generated formulas call (ops/bw_ops.c) */
    {"trace_backward", "", tn_op_trace_backward}, {"index_select_backward", "", tn_op_index_select_backward},
    {"gather_backward", "", tn_op_gather_backward}, {"masked_select_backward", "", tn_op_masked_select_backward},
    {"cummaxmin_backward", "", tn_op_cummaxmin_backward}, {"cumprod_backward", "", tn_op_cumprod_backward},
    /* sparse COO tensors (ops/sparse.c) */
    {"sparse_coo_tensor", "indices", tn_sparse_d_coo_tensor_indices}, {"sparse_coo_tensor", "indices_size", tn_sparse_d_coo_tensor_indices_size},
    {"_sparse_coo_tensor_unsafe", "", tn_sparse_d_coo_tensor_unsafe}, {"_validate_sparse_coo_tensor_args", "", tn_sparse_d_validate_args},
    {"to_dense", "", tn_sparse_d_to_dense}, {"to_dense_backward", "", tn_sparse_d_to_dense_backward},
    {"to_sparse", "", tn_sparse_d_to_sparse}, {"to_sparse", "sparse_dim", tn_sparse_d_to_sparse_dim},
    {"coalesce", "", tn_sparse_d_coalesce}, {"_sparse_mm", "", tn_sparse_d_sparse_mm}, {"_sparse_sum", "", tn_sparse_d_sparse_sum},
    {"_sparse_sum", "dtype", tn_sparse_d_sparse_sum_dtype}, {"_sparse_sum", "dim_dtype", tn_sparse_d_sparse_sum_dim_dtype},
    {"embedding_sparse_backward", "", tn_sparse_d_embedding_sparse_backward},
    {"_sparse_softmax", "int", tn_sparse_d_softmax_int}, {"_sparse_log_softmax", "int", tn_sparse_d_log_softmax_int},
    /* the sparse compressed layouts (ops/sparse_compressed.c) */
    {"_sparse_compressed_tensor_unsafe", "", tn_compressed_d_unsafe},
    {"sparse_csr_tensor", "crow_col_value_size", tn_compressed_d_csr_size}, {"sparse_csc_tensor", "ccol_row_value_size", tn_compressed_d_csc_size},
    {"sparse_bsr_tensor", "crow_col_value_size", tn_compressed_d_bsr_size}, {"sparse_bsc_tensor", "ccol_row_value_size", tn_compressed_d_bsc_size},
    {"sparse_csr_tensor", "crow_col_value", tn_compressed_d_csr}, {"sparse_csc_tensor", "ccol_row_value", tn_compressed_d_csc},
    {"sparse_bsr_tensor", "crow_col_value", tn_compressed_d_bsr}, {"sparse_bsc_tensor", "ccol_row_value", tn_compressed_d_bsc},
    {"_sparse_csr_tensor_unsafe", "", tn_compressed_d_csr_unsafe}, {"_sparse_csc_tensor_unsafe", "", tn_compressed_d_csc_unsafe},
    {"_sparse_bsr_tensor_unsafe", "", tn_compressed_d_bsr_unsafe}, {"_sparse_bsc_tensor_unsafe", "", tn_compressed_d_bsc_unsafe},
    {"_validate_sparse_compressed_tensor_args", "", tn_compressed_d_validate},
    {"_validate_sparse_csr_tensor_args", "", tn_compressed_d_validate_csr}, {"_validate_sparse_csc_tensor_args", "", tn_compressed_d_validate_csc},
    {"_validate_sparse_bsr_tensor_args", "", tn_compressed_d_validate_bsr}, {"_validate_sparse_bsc_tensor_args", "", tn_compressed_d_validate_bsc},
    {"to_sparse_csr", "", tn_compressed_d_to_csr}, {"to_sparse_csc", "", tn_compressed_d_to_csc},
    {"to_sparse_bsr", "", tn_compressed_d_to_bsr}, {"to_sparse_bsc", "", tn_compressed_d_to_bsc},
    {"_sparse_mm", "reduce", tn_compressed_d_sparse_mm_reduce},
    {"nll_loss", "", d_nll_loss}, {"nll_loss_nd", "", d_nll_loss_nd}, {"cross_entropy_loss", "", d_cross_entropy},
    /* convolution */
    {"conv1d", "", d_conv1d}, {"conv2d", "", d_conv2d}, {"conv3d", "", d_conv3d},
    {"conv1d", "padding", d_conv1d_padding}, {"conv2d", "padding", d_conv2d_padding}, {"conv3d", "padding", d_conv3d_padding},
    {"conv_transpose1d", "", d_conv_transpose1d}, {"conv_transpose2d", "input", d_conv_transpose2d},
    {"conv_transpose3d", "input", d_conv_transpose3d}, {"_convolution", "deprecated", d_convolution_deprecated},
    {"_convolution_mode", "", d_convolution_mode},
    /* loss family */
    {"log_sigmoid", "", d_log_sigmoid}, {"multilabel_margin_loss", "", d_multilabel_margin_loss},
    {"nll_loss2d", "", d_nll_loss2d}, {"kl_div", "", d_kl_div}, {"poisson_nll_loss", "", d_poisson_nll_loss},
    {"hinge_embedding_loss", "", d_hinge_embedding_loss}, {"margin_ranking_loss", "", d_margin_ranking_loss},
    {"cosine_embedding_loss", "", d_cosine_embedding_loss}, {"pairwise_distance", "", d_pairwise_distance},
    {"triplet_margin_loss", "", d_triplet_margin_loss},
    {"ctc_loss", "IntList", d_ctc_loss_intlist}, {"ctc_loss", "Tensor", d_ctc_loss_tensor},
    {"cosine_similarity", "", d_cosine_similarity},
    /* linalg family (ops/linalg_lapack.c): upstream's composites over the LAPACK-backed ops */
    {"linalg_inv", "", tn_linalg_d_inv}, {"inverse", "", tn_linalg_d_inv},
    {"linalg_inv", "out", tn_linalg_d_inv_out}, {"inverse", "out", tn_linalg_d_inv_out},
    {"linalg_solve", "", tn_linalg_d_solve}, {"linalg_solve_ex", "", tn_linalg_d_solve_ex},
    {"linalg_cholesky", "", tn_linalg_d_cholesky},
    {"linalg_det", "", tn_linalg_d_det}, {"det", "", tn_linalg_d_det},
    {"linalg_slogdet", "", tn_linalg_d_slogdet}, {"slogdet", "", tn_linalg_d_slogdet_old}, {"logdet", "", tn_linalg_d_logdet},
    {"linalg_svd", "", tn_linalg_d_svd}, {"linalg_svdvals", "", tn_linalg_d_svdvals}, {"svd", "", tn_linalg_d_svd_old},
    {"linalg_eigh", "", tn_linalg_d_eigh}, {"linalg_eigvalsh", "", tn_linalg_d_eigvalsh},
    {"linalg_lu_factor", "", tn_linalg_d_lu_factor}, {"qr", "", tn_linalg_d_qr_old}, {"linalg_eigvals", "", tn_linalg_d_eigvals},
    {"linalg_ldl_factor", "", tn_linalg_d_ldl_factor}, {"linalg_ldl_factor", "out", tn_linalg_d_ldl_factor_out},
    /* linalg family, more (ops/linalg_more.c; helper-linalg): upstream's CompositeImplicit linalg functions */
    {"linalg_diagonal", "", tn_linalg_more_d_diagonal}, {"cross", "", tn_linalg_more_d_cross},
    {"linalg_vander", "", tn_linalg_more_d_vander}, {"linalg_matrix_power", "", tn_linalg_more_d_matrix_power},
    {"matrix_power", "", tn_linalg_more_d_matrix_power}, {"linalg_multi_dot", "", tn_linalg_more_d_multi_dot},
    {"linalg_matrix_norm", "", tn_linalg_more_d_matrix_norm}, {"linalg_matrix_norm", "str_ord", tn_linalg_more_d_matrix_norm_str},
    {"linalg_matrix_norm", "out", tn_linalg_more_d_matrix_norm_out}, {"linalg_matrix_norm", "str_ord_out", tn_linalg_more_d_matrix_norm_str_out},
    {"nuclear_norm", "", tn_linalg_more_d_nuclear_norm}, {"nuclear_norm", "dim", tn_linalg_more_d_nuclear_norm_dim},
    {"linalg_cond", "", tn_linalg_more_d_cond}, {"linalg_cond", "p_str", tn_linalg_more_d_cond_str},
    {"linalg_pinv", "atol_rtol_float", tn_linalg_more_d_pinv_ff},
    {"linalg_pinv", "", tn_linalg_more_d_pinv_rcond}, {"linalg_pinv", "rcond_tensor", tn_linalg_more_d_pinv_rcond_tensor},
    {"linalg_pinv", "atol_rtol_float_out", tn_linalg_more_d_pinv_ff_out}, {"linalg_pinv", "out", tn_linalg_more_d_pinv_rcond_out},
    {"linalg_pinv", "out_rcond_tensor", tn_linalg_more_d_pinv_rcond_tensor_out},
    {"pinverse", "", tn_linalg_more_d_pinverse},
    {"linalg_matrix_rank", "atol_rtol_tensor", tn_linalg_more_d_rank_tt}, {"linalg_matrix_rank", "atol_rtol_float", tn_linalg_more_d_rank_ff},
    {"linalg_matrix_rank", "", tn_linalg_more_d_rank_tol}, {"linalg_matrix_rank", "tol_tensor", tn_linalg_more_d_rank_tol_tensor},
    {"linalg_tensorinv", "", tn_linalg_more_d_tensorinv}, {"linalg_tensorsolve", "", tn_linalg_more_d_tensorsolve},
    {"cov", "", tn_linalg_more_d_cov}, {"corrcoef", "", tn_linalg_more_d_corrcoef},
    {"lu_solve", "", tn_linalg_more_d_lu_solve_old}, {"_lu_with_info", "", tn_linalg_more_d_lu_with_info},
    {"orgqr", "", tn_linalg_more_d_orgqr},
    /* fft family (ops/fft.c): upstream's SpectralOps composites over _fft_r2c/_fft_c2r/_fft_c2c */
    /* distances (ops/distance.c; helper-opa) */
    {"cdist", "", tn_distance_d_cdist}, {"pdist", "", tn_distance_d_pdist},
    {"quantile", "", tn_quantile_d_quantile}, {"quantile", "out", tn_quantile_d_quantile_out},
    {"quantile", "scalar", tn_quantile_d_quantile_scalar}, {"quantile", "scalar_out", tn_quantile_d_quantile_scalar_out},
    {"nanquantile", "", tn_quantile_d_nanquantile}, {"nanquantile", "out", tn_quantile_d_nanquantile_out},
    {"nanquantile", "scalar", tn_quantile_d_nanquantile_scalar}, {"nanquantile", "scalar_out", tn_quantile_d_nanquantile_scalar_out},
    {"atleast_1d", "", tn_shape_d_atleast_1d}, {"atleast_2d", "", tn_shape_d_atleast_2d}, {"atleast_3d", "", tn_shape_d_atleast_3d},
    {"atleast_1d", "Sequence", tn_shape_d_atleast_1d_seq}, {"atleast_2d", "Sequence", tn_shape_d_atleast_2d_seq},
    {"atleast_3d", "Sequence", tn_shape_d_atleast_3d_seq}, {"column_stack", "", tn_shape_d_column_stack}, {"dstack", "", tn_shape_d_dstack},
    {"tensor_split", "sections", tn_shape_d_tensor_split_sections}, {"tensor_split", "indices", tn_shape_d_tensor_split_indices},
    {"tensor_split", "tensor_indices_or_sections", tn_shape_d_tensor_split_tensor},
    {"hsplit", "int", tn_shape_d_hsplit_int}, {"hsplit", "array", tn_shape_d_hsplit_array},
    {"vsplit", "int", tn_shape_d_vsplit_int}, {"vsplit", "array", tn_shape_d_vsplit_array},
    {"dsplit", "int", tn_shape_d_dsplit_int}, {"dsplit", "array", tn_shape_d_dsplit_array},
    {"inner", "", tn_shape_d_inner}, {"kron", "", tn_shape_d_kron},
    {"diagflat", "", tn_shape_d_diagflat}, {"cartesian_prod", "", tn_shape_d_cartesian_prod}, {"sum_to_size", "", tn_shape_d_sum_to_size},
    {"einsum", "", tn_einsum_d_einsum}, {"tensordot", "", tn_einsum_d_tensordot}, {"tensordot", "out", tn_einsum_d_tensordot_out},
    {"fft_fft", "", tn_fft_d_fft}, {"fft_ifft", "", tn_fft_d_ifft}, {"fft_rfft", "", tn_fft_d_rfft},
    {"fft_irfft", "", tn_fft_d_irfft}, {"fft_hfft", "", tn_fft_d_hfft}, {"fft_ihfft", "", tn_fft_d_ihfft},
    {"fft_fftn", "", tn_fft_d_fftn}, {"fft_ifftn", "", tn_fft_d_ifftn}, {"fft_rfftn", "", tn_fft_d_rfftn},
    {"fft_irfftn", "", tn_fft_d_irfftn}, {"fft_fft2", "", tn_fft_d_fftn}, {"fft_ifft2", "", tn_fft_d_ifftn},
    {"fft_rfft2", "", tn_fft_d_rfftn}, {"fft_irfft2", "", tn_fft_d_irfftn},
    {"fft_hfftn", "", tn_fft_d_hfftn}, {"fft_hfft2", "", tn_fft_d_hfftn},
    {"fft_ihfftn", "", tn_fft_d_ihfftn}, {"fft_ihfft2", "", tn_fft_d_ihfftn},
    {"stft", "", tn_fft_d_stft}, {"stft", "center", tn_fft_d_stft_center}, {"istft", "", tn_fft_d_istft},
    {"fft_fft", "out", tn_fft_d_fft_out}, {"fft_ifft", "out", tn_fft_d_ifft_out}, {"fft_rfft", "out", tn_fft_d_rfft_out},
    {"fft_irfft", "out", tn_fft_d_irfft_out}, {"fft_hfft", "out", tn_fft_d_hfft_out}, {"fft_ihfft", "out", tn_fft_d_ihfft_out},
    {"fft_fftn", "out", tn_fft_d_fftn_out}, {"fft_ifftn", "out", tn_fft_d_ifftn_out}, {"fft_rfftn", "out", tn_fft_d_rfftn_out},
    {"fft_irfftn", "out", tn_fft_d_irfftn_out}, {"fft_hfftn", "out", tn_fft_d_hfftn_out}, {"fft_ihfftn", "out", tn_fft_d_ihfftn_out},
    {"fft_fft2", "out", tn_fft_d_fftn_out}, {"fft_ifft2", "out", tn_fft_d_ifftn_out}, {"fft_rfft2", "out", tn_fft_d_rfftn_out},
    {"fft_irfft2", "out", tn_fft_d_irfftn_out}, {"fft_hfft2", "out", tn_fft_d_hfftn_out}, {"fft_ihfft2", "out", tn_fft_d_ihfftn_out},
    /* adapt family */
    {"where", "", d_where_condition},
    /* misc breadth family (ops/misc_ops.c; helper-misc) */
    {"fft_fftshift", "", tn_misc_d_fftshift}, {"fft_ifftshift", "", tn_misc_d_ifftshift},
    {"take_along_dim", "", tn_misc_d_take_along_dim},
    {"trapezoid", "x", tn_misc_d_trapezoid_x}, {"trapezoid", "dx", tn_misc_d_trapezoid_dx},
    {"trapz", "x", tn_misc_d_trapezoid_x}, {"trapz", "dx", tn_misc_d_trapz_dx},
    {"cumulative_trapezoid", "x", tn_misc_d_cumulative_trapezoid_x},
    {"cumulative_trapezoid", "dx", tn_misc_d_cumulative_trapezoid_dx}, {"vander", "", tn_misc_d_vander},
    {"combinations", "", tn_misc_d_combinations}, {"unsafe_chunk", "", tn_misc_d_unsafe_chunk},
};
static tn_decomp_fn *named_decomp_by_row;   /* TN_OP_COUNT entries */

static int current_op_of(void);
/* ---- small composites ---- */


static PyObject *d_conj_like(tn_value *a) {   /* conj: _conj for complex, else self */
    if (tn_dtype_is_complex(tn_tensor_of(a[0].u.obj)->dtype)) return tn_at__conj(a[0].u.obj);
    return Py_NewRef(a[0].u.obj);
}
/* conj_physical: _conj_physical for complex, else self */
static PyObject *d_conj_physical(tn_value *a) {
    if (tn_dtype_is_complex(tn_tensor_of(a[0].u.obj)->dtype)) return tn_at__conj_physical(a[0].u.obj);
    return Py_NewRef(a[0].u.obj);
}
static PyObject *d_positive(tn_value *a) {
    if (tn_tensor_of(a[0].u.obj)->dtype == TN_DTYPE_BOOL) return tn_door_below_autograd(TN_ROW_positive, a);
    return Py_NewRef(a[0].u.obj);
}
static PyObject *d_mT(tn_value *a) {   /* mT / mH / adjoint (real): transpose(-2, -1) */
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int op = current_op_of();   /* read before the nested door calls below replace it */
    if (t->ndim == 0)   /* upstream returns a 0-dim self itself (its conj() for mH / adjoint of complex) */
        return op != TN_ROW_mT && tn_dtype_is_complex(t->dtype) ? tn_at__conj(a[0].u.obj) : Py_NewRef(a[0].u.obj);
    if (t->ndim < 2) return tn_door_below_autograd(op, a);
    PyObject *v = tn_at_transpose_int(a[0].u.obj, -2, -1);
    if (v && op != TN_ROW_mT && tn_dtype_is_complex(t->dtype)) Py_SETREF(v, tn_at__conj(v));
    return v;
}
static PyObject *d_matrix_H(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    if (t->ndim == 0) return tn_dtype_is_complex(t->dtype) ? tn_at__conj(a[0].u.obj) : Py_NewRef(a[0].u.obj);
    if (t->ndim != 2) return tn_door_below_autograd(TN_ROW_matrix_H, a);
    PyObject *v = tn_at_transpose_int(a[0].u.obj, 0, 1);
    if (v && tn_dtype_is_complex(t->dtype)) Py_SETREF(v, tn_at__conj(v));
    return v;
}
static PyObject *d_numpy_T(tn_value *a) {   /* permute(reversed dims) */
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    if (t->ndim != 2 && t->ndim != 0) {   /* upstream's deprecation warning */
        PyObject *r = tn_door_below_autograd(TN_ROW_numpy_T, a);
        if (!r) return NULL;
        Py_DECREF(r);
    }
    int64_t p[TN_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) p[i] = t->ndim - 1 - i;
    PyObject *l = tn_int_list(p, t->ndim), *r = l ? tn_at_permute(a[0].u.obj, TN_IPY(l)) : NULL;
    Py_XDECREF(l);
    return r;
}
/* broadcast_to(self, size) -> expand(self, size): expand has one argument more (implicit) */
static PyObject *d_broadcast_to(tn_value *a) {
    PyObject *sz = A(1, a), *r = sz ? tn_at_expand(a[0].u.obj, TN_IPY(sz), false) : NULL;
    Py_XDECREF(sz);
    return r;
}
static PyObject *d_fliplr(tn_value *a) {
    if (tn_tensor_of(a[0].u.obj)->ndim < 2) return tn_door_below_autograd(TN_ROW_fliplr, a);
    return tn_at_flip(a[0].u.obj, TN_IS(1));
}
static PyObject *d_flipud(tn_value *a) {
    if (tn_tensor_of(a[0].u.obj)->ndim < 1) return tn_door_below_autograd(TN_ROW_flipud, a);
    return tn_at_flip(a[0].u.obj, TN_IS(0));
}
static PyObject *d_square_(tn_value *a) { return tn_at_pow__Scalar(a[0].u.obj, TN_SI(2)); }
static PyObject *d_narrow_tensor(tn_value *a) {   /* narrow(self, dim, start.item(), length) */
    bool was = tn_grad_mode_set(false);
    PyObject *st = tn_at_item(a[2].u.obj);
    tn_grad_mode_set(was);
    if (!st) return NULL;
    int64_t start = PyLong_AsLongLong(st);
    PyObject *r = start == -1 && PyErr_Occurred() ? NULL : tn_at_narrow(a[0].u.obj, a[1].u.i, start, a[3].u.i);
    Py_DECREF(st);
    return r;
}
static PyObject *d_msort(tn_value *a) {   /* sort(self, 0)[0] */
    PyObject *r = tn_at_sort(a[0].u.obj, 0, false);
    if (!r) return NULL;
    PyObject *v = Py_NewRef(PyTuple_GetItem(r, 0));
    Py_DECREF(r);
    return v;
}
/* float_power: the operands in double (complex double when complex), then pow */
static tn_dtype fp_dtype(bool cplx) { return cplx ? TN_DTYPE_C128 : TN_DTYPE_F64; }
static PyObject *d_float_power_ts(tn_value *a) {   /* (Tensor self, Scalar exponent) */
    bool c = tn_dtype_is_complex(tn_tensor_of(a[0].u.obj)->dtype) || a[1].tag == TN_V_COMPLEX;
    PyObject *x = to_dtype(a[0].u.obj, fp_dtype(c), false, NULL), *e = x ? A(1, a) : NULL;
    PyObject *r = e ? tn_at_pow_Tensor_Scalar(x, TN_SO(e)) : NULL;
    Py_XDECREF(x); Py_XDECREF(e);
    return r;
}
static PyObject *d_float_power_tt(tn_value *a) {
    bool c = tn_dtype_is_complex(tn_tensor_of(a[0].u.obj)->dtype) || tn_dtype_is_complex(tn_tensor_of(a[1].u.obj)->dtype);
    PyObject *x = to_dtype(a[0].u.obj, fp_dtype(c), false, NULL), *e = x ? to_dtype(a[1].u.obj, fp_dtype(c), false, NULL) : NULL;
    PyObject *r = e ? tn_at_pow_Tensor_Tensor(x, e) : NULL;
    Py_XDECREF(x); Py_XDECREF(e);
    return r;
}
static PyObject *d_float_power_s(tn_value *a) {   /* (Scalar self, Tensor exponent) */
    bool c = tn_dtype_is_complex(tn_tensor_of(a[1].u.obj)->dtype) || a[0].tag == TN_V_COMPLEX;
    PyObject *e = to_dtype(a[1].u.obj, fp_dtype(c), false, NULL), *b = e ? A(0, a) : NULL;
    PyObject *r = b ? tn_at_pow_Scalar(TN_SO(b), e) : NULL;
    Py_XDECREF(e); Py_XDECREF(b);
    return r;
}
/* hstack / vstack: atleast_1d / atleast_2d each (reshape / unsqueeze), then cat */
static PyObject *stack_like(tn_value *a, bool vertical) {
    PyObject *l = a[0].u.obj;
    Py_ssize_t n = PyTuple_Size(l);
    PyObject *parts = PyList_New(n);
    if (!parts) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyTuple_GetItem(l, i);
        int nd = tn_tensor_of(t)->ndim;
        PyObject *p;
        if (nd == 0) p = vertical ? tn_at_reshape(t, TN_IS(1, 1)) : tn_at_reshape(t, TN_IS(1));
        else if (nd == 1 && vertical) p = tn_at_unsqueeze(t, 0);
        else p = Py_NewRef(t);
        if (!p) { Py_DECREF(parts); return NULL; }
        PyList_SetItem(parts, i, p);
    }
    int dim = vertical ? 0 : (n > 0 && tn_tensor_of(PyList_GetItem(parts, 0))->ndim == 1 ? 0 : 1);
    PyObject *r = tn_at_cat(TN_TPY(parts), dim);
    Py_DECREF(parts);
    return r;
}
static PyObject *d_hstack(tn_value *a) { return stack_like(a, false); }
static PyObject *d_vstack(tn_value *a) { return stack_like(a, true); }
PyObject *tn_norm_d_linalg_norm_out(tn_value *a);          /* ops/norm.c: functional, then copy_ into out */
PyObject *tn_norm_d_linalg_norm_ord_str_out(tn_value *a);
/* linalg_norm(self, ord?, dim?, keepdim, dtype?): the vector norm unless a matrix norm is asked */
static PyObject *d_linalg_norm(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    bool has_ord = a[1].tag != TN_V_NONE, has_dim = a[2].tag == TN_V_INTLIST;
    if ((has_dim && a[2].u.ints.n == 2 && has_ord) || (!has_dim && has_ord && t->ndim == 2))
    {
        PyObject *ord = A(1, a);
        PyObject *r = ord ? tn_linalg_more_matrix_norm_call(a[0].u.obj, ord, &a[2], a[3].u.i != 0, &a[4]) : NULL;
        Py_XDECREF(ord);
        return r;
    }
    if ((has_dim && a[2].u.ints.n != 1 && a[2].u.ints.n != 2) || (!has_dim && has_ord && t->ndim != 1))
        return tn_door_below_autograd(TN_ROW_linalg_norm, a);   /* its own errors */
    PyObject *ord = has_ord ? A(1, a) : PyFloat_FromDouble(2.0), *dim = ord ? A(2, a) : NULL, *dt = dim ? A(4, a) : NULL;
    PyObject *r = dt ? tn_at_linalg_vector_norm(a[0].u.obj, TN_SO(ord), TN_IPY(dim), a[3].u.i != 0, dt) : NULL;
    Py_XDECREF(ord); Py_XDECREF(dim); Py_XDECREF(dt);
    return r;
}
/* linalg_norm.ord_str(self, ord, dim?, keepdim, dtype?): 'fro' -> vector 2-norm over the two dims */
static PyObject *d_linalg_norm_str(tn_value *a) {
    const char *ord = PyUnicode_AsUTF8AndSize(a[1].u.obj, NULL);
    if (!ord) return NULL;
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    if (a[2].tag == TN_V_NONE ? t->ndim != 2 : a[2].u.ints.n != 2) return tn_door_below_autograd(TN_ROW_linalg_norm_ord_str, a);
    if (strcmp(ord, "fro") != 0) return tn_linalg_more_matrix_norm_call(a[0].u.obj, a[1].u.obj, &a[2], a[3].u.i != 0, &a[4]);
    PyObject *dim = a[2].tag == TN_V_NONE ? Py_BuildValue("[ii]", 0, 1) : A(2, a), *dt = dim ? A(4, a) : NULL;
    PyObject *r = dt ? tn_at_linalg_vector_norm(a[0].u.obj, TN_SI(2), TN_IPY(dim), a[3].u.i != 0, dt) : NULL;
    Py_XDECREF(dim); Py_XDECREF(dt);
    return r;
}
/* diff(self, n, dim, prepend?, append?): cat prepend/append, then n times narrow(1) - narrow(0) */
static PyObject *d_diff(tn_value *a) {
    PyObject *x = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(x);
    int64_t n = a[1].u.i, dim = a[2].u.i;
    if (t->ndim < 1 || n < 0) return tn_door_below_autograd(TN_ROW_diff, a);
    if (dim < 0) dim += t->ndim;
    if (dim < 0 || dim >= t->ndim) return tn_door_below_autograd(TN_ROW_diff, a);
    bool pre = a[3].tag == TN_V_TENSOR, app = a[4].tag == TN_V_TENSOR;
    if (n == 0) {   /* zeros_like(self).copy_(self) */
        PyObject *z = tn_at_zeros_like(x, NULL, NULL, NULL, NULL, NULL), *c = z ? tn_at_copy_(z, x, false) : NULL;
        Py_XDECREF(c);
        if (!c) Py_CLEAR(z);
        return z;
    }
    PyObject *r;
    if (pre || app) {
        r = pre && app ? tn_at_cat(TN_TS(a[3].u.obj, x, a[4].u.obj), (long long)dim)
            : pre ? tn_at_cat(TN_TS(a[3].u.obj, x), (long long)dim) : tn_at_cat(TN_TS(x, a[4].u.obj), (long long)dim);
    } else {
        r = Py_NewRef(x);
    }
    if (!r) return NULL;
    bool is_bool = tn_tensor_of(r)->dtype == TN_DTYPE_BOOL;
    int64_t len = tn_tensor_of(r)->sizes[dim];
    if (n > len) n = len;
    int64_t out_len = len - 1;
    for (int64_t i = 0; i < n && r; i++) {
        PyObject *hi = tn_at_narrow(r, (long long)dim, 1LL, (long long)out_len);
        PyObject *lo = hi ? tn_at_narrow(r, (long long)dim, 0LL, (long long)out_len) : NULL;
        PyObject *d = lo ? (is_bool ? tn_at_logical_xor(hi, lo) : tn_at_sub_Tensor(hi, lo, TN_SDEF)) : NULL;
        Py_XDECREF(hi); Py_XDECREF(lo);
        Py_SETREF(r, d);
        out_len--;
    }
    return r;
}

/* embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse) */
static PyObject *d_embedding_backward(tn_value *a) {
    if (a[5].u.i) return tn_not_implemented("sparse embedding gradients");
    return tn_at_embedding_dense_backward(a[0].u.obj, a[1].u.obj, (long long)a[2].u.i, (long long)a[3].u.i, a[4].u.i);
}
/* float_power_(self, exponent): self must already be double (complex double): self.pow_(exponent) */
static PyObject *float_power_inplace(tn_value *a, bool tensor_exp) {
    tn_dtype sd = tn_tensor_of(a[0].u.obj)->dtype;
    bool c = tn_dtype_is_complex(sd) || (tensor_exp ? tn_dtype_is_complex(tn_tensor_of(a[1].u.obj)->dtype) : a[1].tag == TN_V_COMPLEX);
    if (sd != fp_dtype(c)) return tn_door_below_autograd(current_op_of(), a);   /* its own error */
    if (!tensor_exp) {
        PyObject *e = A(1, a), *r = e ? tn_at_pow__Scalar(a[0].u.obj, TN_SO(e)) : NULL;
        Py_XDECREF(e);
        return r;
    }
    PyObject *e = to_dtype(a[1].u.obj, fp_dtype(c), false, NULL);
    PyObject *r = e ? tn_at_pow__Tensor(a[0].u.obj, e) : NULL;
    Py_XDECREF(e);
    return r;
}
static PyObject *d_float_power__s(tn_value *a) { return float_power_inplace(a, false); }
static PyObject *d_float_power__t(tn_value *a) { return float_power_inplace(a, true); }

/* composites whose results carry no gradient */
static PyObject *d_nondiff(tn_value *a) { return NULL; }
/* item(): upstream's CompositeImplicitAutograd kernel checks the element count, then
 * _local_scalar_dense (what a dispatch mode or a tensor subclass sees) */
static PyObject *d_item(tn_value *a) {
    int64_t n = tn_numel(tn_tensor_of(a[0].u.obj));
    if (n != 1) return PyErr_Format(PyExc_RuntimeError, "a Tensor with %lld elements cannot be converted to Scalar", (long long)n);
    return tn_at__local_scalar_dense(a[0].u.obj);
}

/* is_nonzero(): upstream's CompositeImplicitAutograd kernel checks the element count, then item() */
static PyObject *d_is_nonzero(tn_value *a) {
    int64_t n = tn_numel(tn_tensor_of(a[0].u.obj));
    if (n != 1) {
        PyErr_SetString(PyExc_RuntimeError, n == 0 ? "Boolean value of Tensor with no values is ambiguous"
                                                   : "Boolean value of Tensor with more than one value is ambiguous");
        return NULL;
    }
    PyObject *v = tn_at_item(a[0].u.obj);
    int b = v ? PyObject_IsTrue(v) : -1;
    Py_XDECREF(v);
    return b < 0 ? NULL : PyBool_FromLong(b);
}

/* batch / group / instance norm composites: built in ops/bnorm.c from the ops upstream's composites call */
static PyObject *d_batch_norm(tn_value *a) { return tn_op_batch_norm(a); }
static PyObject *d_batch_norm_impl_index(tn_value *a) { return tn_op__batch_norm_impl_index(a); }
static PyObject *d_instance_norm(tn_value *a) { return tn_op_instance_norm(a); }
static PyObject *d_group_norm(tn_value *a) { return tn_op_group_norm(a); }

static const struct { int row; tn_decomp_fn fn; int base; } decomps[] = {
    {TN_ROW_batch_norm, d_batch_norm, -1}, {TN_ROW__batch_norm_impl_index, d_batch_norm_impl_index, -1},
    {TN_ROW_instance_norm, d_instance_norm, -1}, {TN_ROW_group_norm, d_group_norm, -1},
    {TN_ROW_linear, d_linear, -1}, {TN_ROW_matmul, d_matmul, -1},
    {TN_ROW_reshape, d_reshape, -1}, {TN_ROW_reshape_as, d_reshape_as, -1}, {TN_ROW_view_as, d_view_as, -1},
    {TN_ROW_expand_as, d_expand_as, -1}, {TN_ROW_flatten_using_ints, d_flatten, -1}, {TN_ROW_ravel, NULL, -2},
    {TN_ROW_contiguous, d_contiguous, -1}, {TN_ROW_narrow, d_narrow, -1}, {TN_ROW_split_sizes, d_split_sizes, -1}, {TN_ROW_chunk, d_chunk, -1},
    {TN_ROW_square, d_square, -1},
    {TN_ROW_to_dtype, d_to_dtype, -1}, {TN_ROW_to_other, d_to_other, -1}, {TN_ROW_type_as, d_type_as, -1},
    {TN_ROW_to_device, d_to_device, -1}, {TN_ROW_to_dtype_layout, d_to_dtype_layout, -1},
    {TN_ROW_softmax_int, d_softmax, -1}, {TN_ROW_log_softmax_int, d_log_softmax, -1},
    {TN_ROW_layer_norm, d_layer_norm, -1}, {TN_ROW_dropout, d_dropout, -1},
    {TN_ROW_embedding_backward, d_embedding_backward, -1},
    {TN_ROW_float_power__Scalar, d_float_power__s, -1}, {TN_ROW_float_power__Tensor, d_float_power__t, -1},
    {TN_ROW_result_type_Scalar_Scalar, d_nondiff, -3},
    {TN_ROW_dropout_, d_dropout_, -1}, {TN_ROW_feature_dropout, d_feature_dropout, -1},
    {TN_ROW_feature_dropout_, d_feature_dropout_, -1}, {TN_ROW_alpha_dropout, d_alpha_dropout, -1},
    {TN_ROW_alpha_dropout_, d_alpha_dropout_, -1}, {TN_ROW_feature_alpha_dropout, d_feature_alpha_dropout, -1},
    {TN_ROW_feature_alpha_dropout_, d_feature_alpha_dropout_, -1},
    {TN_ROW_var, d_var, -1}, {TN_ROW_var_dim, d_var_dim, -1}, {TN_ROW_std, d_std, -1}, {TN_ROW_std_dim, d_std_dim, -1},
    {TN_ROW_var_mean, d_var_mean, -1}, {TN_ROW_var_mean_dim, d_var_mean_dim, -1},
    {TN_ROW_std_mean, d_std_mean, -1}, {TN_ROW_std_mean_dim, d_std_mean_dim, -1},
    {TN_ROW_where_ScalarOther, d_where_scalar_other, -1}, {TN_ROW_where_ScalarSelf, d_where_scalar_self, -1},
    {TN_ROW_where_Scalar, d_where_scalar, -1},
    {TN_ROW_pad, d_pad, -1}, {TN_ROW__pad_circular, d_pad_circular, -1}, {TN_ROW_movedim_int, d_movedim_int, -1}, {TN_ROW_movedim_intlist, d_movedim_list, -1},
    {TN_ROW_moveaxis_int, d_movedim_int, -1}, {TN_ROW_moveaxis_intlist, d_movedim_list, -1},
    {TN_ROW_unflatten_int, d_unflatten, -1}, {TN_ROW_tile, d_tile, -1},
    {TN_ROW_rms_norm, d_rms_norm, -1}, {TN_ROW__fused_rms_norm, d_fused_rms_norm, -1}, {TN_ROW_scaled_dot_product_attention, d_sdpa, -1},
    {TN_ROW_silu_backward, d_silu_backward, -1},
    {TN_ROW_broadcast_tensors, d_broadcast_tensors, -1},
    /* ops/arrange.c: composites written as the door calls upstream's composite makes */
    {TN_ROW_meshgrid, tn_op_meshgrid, -1}, {TN_ROW_meshgrid_indexing, tn_op_meshgrid_indexing, -1},
    {TN_ROW_repeat_interleave_self_Tensor, tn_op_repeat_interleave_self_Tensor, -1},
    {TN_ROW_repeat_interleave_self_int, tn_op_repeat_interleave_self_int, -1},
    /* ops/gradient.c (windows/histogram/gradient family): torch.gradient as upstream's door calls */
    {TN_ROW_gradient_scalarint, tn_op_gradient_scalarint, -1}, {TN_ROW_gradient_scalararray, tn_op_gradient_scalararray, -1},
    {TN_ROW_gradient_array, tn_op_gradient_array, -1}, {TN_ROW_gradient_scalarrayint, tn_op_gradient_scalarrayint, -1},
    {TN_ROW_gradient_scalarrayarray, tn_op_gradient_scalarrayarray, -1},
    {TN_ROW_gradient_tensorarrayint, tn_op_gradient_tensorarrayint, -1}, {TN_ROW_gradient_tensorarray, tn_op_gradient_tensorarray, -1},
    {TN_ROW_conj, d_conj_like, -1}, {TN_ROW_resolve_conj, tn_op_resolve_conj, -1}, {TN_ROW_resolve_neg, tn_op_resolve_neg, -1},
    {TN_ROW_positive, d_positive, -1}, {TN_ROW_mT, d_mT, -1}, {TN_ROW_mH, d_mT, -1}, {TN_ROW_adjoint, d_mT, -1},
    {TN_ROW_matrix_H, d_matrix_H, -1}, {TN_ROW_numpy_T, d_numpy_T, -1}, {TN_ROW_broadcast_to, d_broadcast_to, -1},
    {TN_ROW_fliplr, d_fliplr, -1}, {TN_ROW_flipud, d_flipud, -1}, {TN_ROW_square_, d_square_, -1},
    {TN_ROW_narrow_Tensor, d_narrow_tensor, -1}, {TN_ROW_msort, d_msort, -1},
    {TN_ROW_float_power_Tensor_Scalar, d_float_power_ts, -1}, {TN_ROW_float_power_Tensor_Tensor, d_float_power_tt, -1},
    {TN_ROW_float_power_Scalar, d_float_power_s, -1},
    {TN_ROW_hstack, d_hstack, -1}, {TN_ROW_vstack, d_vstack, -1}, {TN_ROW_row_stack, d_vstack, -1},
    {TN_ROW_linalg_norm, d_linalg_norm, -1}, {TN_ROW_linalg_norm_ord_str, d_linalg_norm_str, -1},
    {TN_ROW_linalg_norm_out, tn_norm_d_linalg_norm_out, -1}, {TN_ROW_linalg_norm_ord_str_out, tn_norm_d_linalg_norm_ord_str_out, -1}, {TN_ROW_diff, d_diff, -1},
    {TN_ROW_absolute_, NULL, TN_ROW_abs_},
    {TN_ROW_greater_Scalar, NULL, TN_ROW_gt_Scalar}, {TN_ROW_greater_Tensor, NULL, TN_ROW_gt_Tensor},
    {TN_ROW_greater__Scalar, NULL, TN_ROW_gt__Scalar}, {TN_ROW_greater__Tensor, NULL, TN_ROW_gt__Tensor},
    {TN_ROW_greater_equal_Scalar, NULL, TN_ROW_ge_Scalar}, {TN_ROW_greater_equal_Tensor, NULL, TN_ROW_ge_Tensor},
    {TN_ROW_greater_equal__Scalar, NULL, TN_ROW_ge__Scalar}, {TN_ROW_greater_equal__Tensor, NULL, TN_ROW_ge__Tensor},
    {TN_ROW_less_Scalar, NULL, TN_ROW_lt_Scalar}, {TN_ROW_less_Tensor, NULL, TN_ROW_lt_Tensor},
    {TN_ROW_less__Scalar, NULL, TN_ROW_lt__Scalar}, {TN_ROW_less__Tensor, NULL, TN_ROW_lt__Tensor},
    {TN_ROW_less_equal_Scalar, NULL, TN_ROW_le_Scalar}, {TN_ROW_less_equal_Tensor, NULL, TN_ROW_le_Tensor},
    {TN_ROW_less_equal__Scalar, NULL, TN_ROW_le__Scalar}, {TN_ROW_less_equal__Tensor, NULL, TN_ROW_le__Tensor},
    {TN_ROW_not_equal_Scalar, NULL, TN_ROW_ne_Scalar}, {TN_ROW_not_equal_Tensor, NULL, TN_ROW_ne_Tensor},
    {TN_ROW_not_equal__Scalar, NULL, TN_ROW_ne__Scalar}, {TN_ROW_not_equal__Tensor, NULL, TN_ROW_ne__Tensor},
    {TN_ROW_is_conj, d_nondiff, -3}, {TN_ROW_is_neg, d_nondiff, -3}, {TN_ROW_is_inference, d_nondiff, -3},
    {TN_ROW_is_signed, d_nondiff, -3}, {TN_ROW_argwhere, d_nondiff, -3}, {TN_ROW_result_type_Scalar, d_nondiff, -3},
    {TN_ROW_result_type_Scalar_Tensor, d_nondiff, -3}, {TN_ROW__is_zerotensor, d_nondiff, -3},
    {TN_ROW__has_compatible_shallow_copy_type, d_nondiff, -3},
    {TN_ROW_clip, NULL, TN_ROW_clamp}, {TN_ROW_clip_Tensor, NULL, TN_ROW_clamp_Tensor},
    {TN_ROW_clip_, NULL, TN_ROW_clamp_}, {TN_ROW_clip__Tensor, NULL, TN_ROW_clamp__Tensor},
    {TN_ROW_arccos, NULL, TN_ROW_acos}, {TN_ROW_arccos_, NULL, TN_ROW_acos_}, {TN_ROW_arcsin, NULL, TN_ROW_asin}, {TN_ROW_arcsin_, NULL, TN_ROW_asin_},
    {TN_ROW_arctan, NULL, TN_ROW_atan}, {TN_ROW_arctan_, NULL, TN_ROW_atan_}, {TN_ROW_arccosh, NULL, TN_ROW_acosh}, {TN_ROW_arccosh_, NULL, TN_ROW_acosh_},
    {TN_ROW_arcsinh, NULL, TN_ROW_asinh}, {TN_ROW_arcsinh_, NULL, TN_ROW_asinh_}, {TN_ROW_arctanh, NULL, TN_ROW_atanh}, {TN_ROW_arctanh_, NULL, TN_ROW_atanh_},
    {TN_ROW_arctan2, NULL, TN_ROW_atan2}, {TN_ROW_arctan2_, NULL, TN_ROW_atan2_},
    {TN_ROW_fix, NULL, TN_ROW_trunc}, {TN_ROW_fix_, NULL, TN_ROW_trunc_},
    {TN_ROW_divide_Tensor_mode, NULL, TN_ROW_div_Tensor_mode}, {TN_ROW_divide_Scalar_mode, NULL, TN_ROW_div_Scalar_mode},
    {TN_ROW_divide__Tensor_mode, NULL, TN_ROW_div__Tensor_mode}, {TN_ROW_divide__Scalar_mode, NULL, TN_ROW_div__Scalar_mode},
    {TN_ROW_true_divide__Tensor, NULL, TN_ROW_div__Tensor}, {TN_ROW_true_divide__Scalar, NULL, TN_ROW_div__Scalar},
    /* aliases: same schema, another name */
    {TN_ROW_multiply_Tensor, NULL, TN_ROW_mul_Tensor}, {TN_ROW_multiply_Scalar, NULL, TN_ROW_mul_Scalar},
    {TN_ROW_multiply__Tensor, NULL, TN_ROW_mul__Tensor}, {TN_ROW_multiply__Scalar, NULL, TN_ROW_mul__Scalar},
    {TN_ROW_divide_Tensor, NULL, TN_ROW_div_Tensor}, {TN_ROW_divide_Scalar, NULL, TN_ROW_div_Scalar},
    {TN_ROW_divide__Tensor, NULL, TN_ROW_div__Tensor}, {TN_ROW_divide__Scalar, NULL, TN_ROW_div__Scalar},
    {TN_ROW_true_divide_Tensor, NULL, TN_ROW_div_Tensor}, {TN_ROW_true_divide_Scalar, NULL, TN_ROW_div_Scalar},
    {TN_ROW_subtract_Tensor, NULL, TN_ROW_sub_Tensor}, {TN_ROW_subtract_Scalar, NULL, TN_ROW_sub_Scalar},
    {TN_ROW_subtract__Tensor, NULL, TN_ROW_sub__Tensor}, {TN_ROW_subtract__Scalar, NULL, TN_ROW_sub__Scalar},
    {TN_ROW_negative, NULL, TN_ROW_neg}, {TN_ROW_negative_, NULL, TN_ROW_neg_}, {TN_ROW_absolute, NULL, TN_ROW_abs},
    {TN_ROW_concat, NULL, TN_ROW_cat}, {TN_ROW_concatenate, NULL, TN_ROW_cat},
    {TN_ROW_swapaxes, NULL, TN_ROW_transpose_int}, {TN_ROW_swapdims, NULL, TN_ROW_transpose_int},
    {TN_ROW_swapaxes_, NULL, TN_ROW_transpose_}, {TN_ROW_swapdims_, NULL, TN_ROW_transpose_},
    {TN_ROW_zeros_like, d_nondiff, -3}, {TN_ROW_randn_like, d_nondiff, -3}, {TN_ROW_result_type_Tensor, d_nondiff, -3},
    {TN_ROW_is_floating_point, d_nondiff, -3}, {TN_ROW_is_complex, d_nondiff, -3}, {TN_ROW_item, d_item, -1},
    {TN_ROW_is_nonzero, d_is_nonzero, -1}, {TN_ROW_isclose, d_nondiff, -3}, {TN_ROW_isfinite, d_nondiff, -3},
    {TN_ROW_argmax, d_nondiff, -3}, {TN_ROW_argmin, d_nondiff, -3}, {TN_ROW_argsort, d_nondiff, -3},
    /* pooling and interpolation family: upstream's composites, written in ops/pool.c over the door */
    {TN_ROW_max_pool2d, tn_op_max_pool2d, -1}, {TN_ROW_max_pool3d, tn_op_max_pool3d, -1},
    {TN_ROW_max_pool1d, tn_pool_max_pool1d_composite, -1}, {TN_ROW_max_pool1d_with_indices, tn_op_max_pool1d_with_indices, -1},
    {TN_ROW_avg_pool1d, tn_op_avg_pool1d, -1}, {TN_ROW_adaptive_avg_pool1d, tn_op_adaptive_avg_pool1d, -1},
    {TN_ROW_adaptive_avg_pool2d, tn_op_adaptive_avg_pool2d, -1}, {TN_ROW_adaptive_avg_pool3d, tn_op_adaptive_avg_pool3d, -1},
    {TN_ROW_adaptive_max_pool1d, tn_op_adaptive_max_pool1d, -1},
    {TN_ROW_upsample_nearest1d_vec, tn_op_upsample_nearest1d_vec, -1}, {TN_ROW_upsample_nearest2d_vec, tn_op_upsample_nearest2d_vec, -1},
    {TN_ROW_upsample_nearest3d_vec, tn_op_upsample_nearest3d_vec, -1},
    {TN_ROW__upsample_nearest_exact1d_vec, tn_op__upsample_nearest_exact1d_vec, -1},
    {TN_ROW__upsample_nearest_exact2d_vec, tn_op__upsample_nearest_exact2d_vec, -1},
    {TN_ROW__upsample_nearest_exact3d_vec, tn_op__upsample_nearest_exact3d_vec, -1},
    {TN_ROW_upsample_linear1d_vec, tn_op_upsample_linear1d_vec, -1}, {TN_ROW_upsample_bilinear2d_vec, tn_op_upsample_bilinear2d_vec, -1},
    {TN_ROW_upsample_trilinear3d_vec, tn_op_upsample_trilinear3d_vec, -1}, {TN_ROW_upsample_bicubic2d_vec, tn_op_upsample_bicubic2d_vec, -1},
    {TN_ROW__upsample_bilinear2d_aa_vec, tn_op__upsample_bilinear2d_aa_vec, -1}, {TN_ROW__upsample_bicubic2d_aa_vec, tn_op__upsample_bicubic2d_aa_vec, -1},
    /* OpInfo family (found by tests/test_opinfo.py): binary max / min are maximum / minimum */
    {TN_ROW_max_other, NULL, TN_ROW_maximum}, {TN_ROW_min_other, NULL, TN_ROW_minimum},
    {TN_ROW_max_out, NULL, TN_ROW_maximum_out}, {TN_ROW_min_out, NULL, TN_ROW_minimum_out},
    {TN_ROW_nonzero_numpy, tn_op_nonzero_numpy, -1},
    /* breadth family (helper-opb): conjugate bit composites (ops/predicates.c, through the door) */
    {TN_ROW_conj_physical, d_conj_physical, -1}, {TN_ROW_real, tn_op_real, -1}, {TN_ROW_imag, tn_op_imag, -1},
    {TN_ROW_outer, tn_op_outer, -1}, {TN_ROW_ger, tn_op_ger, -1}, {TN_ROW_linalg_vecdot, tn_op_linalg_vecdot, -1}, {TN_ROW_isreal, tn_op_isreal, -1},
    /* breadth family (helper-opb): upstream's special_* aliases of the gamma functions */
    {TN_ROW_special_psi, NULL, TN_ROW_digamma}, {TN_ROW_special_psi_out, NULL, TN_ROW_digamma_out},
    {TN_ROW_special_digamma, NULL, TN_ROW_digamma}, {TN_ROW_special_digamma_out, NULL, TN_ROW_digamma_out},
    {TN_ROW_special_gammaln, NULL, TN_ROW_lgamma}, {TN_ROW_special_gammaln_out, NULL, TN_ROW_lgamma_out},
    {TN_ROW_special_polygamma, NULL, TN_ROW_polygamma}, {TN_ROW_special_polygamma_out, NULL, TN_ROW_polygamma_out},
    {TN_ROW_special_multigammaln, NULL, TN_ROW_mvlgamma}, {TN_ROW_special_multigammaln_out, NULL, TN_ROW_mvlgamma_out},
    /* nn.functional breadth (ops/nnmore.c; helper-nnf) */
    {TN_ROW_one_hot, tn_op_one_hot, -1}, {TN_ROW_prelu, tn_op_prelu, -1},
    {TN_ROW_bilinear, tn_op_bilinear, -1}, {TN_ROW_rrelu, tn_op_rrelu, -1}, {TN_ROW_rrelu_, tn_op_rrelu_, -1},
    /* special family (helper-special): upstream's special_* aliases and composites */
    {TN_ROW_special_i0, NULL, TN_ROW_i0}, {TN_ROW_special_i0_out, NULL, TN_ROW_i0_out},
    {TN_ROW_special_sinc, NULL, TN_ROW_sinc}, {TN_ROW_special_sinc_out, NULL, TN_ROW_sinc_out},
    {TN_ROW_special_erfinv, NULL, TN_ROW_erfinv}, {TN_ROW_special_erfinv_out, NULL, TN_ROW_erfinv_out},
    {TN_ROW_special_ndtr, tn_op_special_ndtr, -1}, {TN_ROW_special_ndtr_out, tn_op_special_ndtr_out, -1},
    {TN_ROW_nanmean, tn_op_nanmean, -1}, {TN_ROW_nanmean_out, tn_op_nanmean_out, -1},
    {TN_ROW_special_gammainc, NULL, TN_ROW_igamma}, {TN_ROW_special_gammainc_out, NULL, TN_ROW_igamma_out},
    {TN_ROW_special_gammaincc, NULL, TN_ROW_igammac}, {TN_ROW_special_gammaincc_out, NULL, TN_ROW_igammac_out},
    /* recurrent layers (ops/rnn.c; helper-rnn): RNN.cpp / PackedSequence.cpp composites through the door */
    {TN_ROW_rnn_tanh_input, tn_op_rnn_tanh_input, -1}, {TN_ROW_rnn_tanh_data, tn_op_rnn_tanh_data, -1},
    {TN_ROW_rnn_relu_input, tn_op_rnn_relu_input, -1}, {TN_ROW_rnn_relu_data, tn_op_rnn_relu_data, -1},
    {TN_ROW_lstm_input, tn_op_lstm_input, -1}, {TN_ROW_lstm_data, tn_op_lstm_data, -1},
    {TN_ROW_gru_input, tn_op_gru_input, -1}, {TN_ROW_gru_data, tn_op_gru_data, -1},
    {TN_ROW_rnn_tanh_cell, tn_op_rnn_tanh_cell, -1}, {TN_ROW_rnn_relu_cell, tn_op_rnn_relu_cell, -1},
    {TN_ROW_lstm_cell, tn_op_lstm_cell, -1}, {TN_ROW_gru_cell, tn_op_gru_cell, -1},
    {TN_ROW__pack_padded_sequence_backward, tn_op__pack_padded_sequence_backward, -1},
    {TN_ROW__pad_packed_sequence, tn_op__pad_packed_sequence, -1}, {TN_ROW_pad_sequence, tn_op_pad_sequence, -1},
    /* breadth-more (helper-breadth, docs/breadth_more.md): aliases */
    {TN_ROW_special_logsumexp, NULL, TN_ROW_logsumexp}, {TN_ROW_special_logsumexp_out, NULL, TN_ROW_logsumexp_out},
    /* breadth-more2 (docs/breadth_more2.md): matrix_exp is linalg_matrix_exp; matrix_exp_backward composed */
    {TN_ROW_matrix_exp, NULL, TN_ROW_linalg_matrix_exp}, {TN_ROW_matrix_exp_backward, tn_op_matrix_exp_backward, -1},
    /* embedding_bag (helper-embbag, ops/embbag.c): the composites call _embedding_bag through the door */
    {TN_ROW_embedding_bag, tn_op_embedding_bag, -1}, {TN_ROW_embedding_bag_padding_idx, tn_op_embedding_bag_padding_idx, -1},
    {TN_ROW_grid_sampler, tn_op_grid_sampler, -1}, {TN_ROW_affine_grid_generator_backward, tn_op_affine_grid_generator_backward, -1},
    /* weight norm (ops/weight_norm.c): WeightNorm.cpp's composites through the door */
    {TN_ROW_norm_except_dim, tn_op_norm_except_dim, -1}, {TN_ROW__weight_norm, tn_op__weight_norm, -1},
    {TN_ROW__weight_norm_differentiable_backward, tn_op__weight_norm_differentiable_backward, -1},
};

static int decomp_index[TN_OP_COUNT];   /* entry + 1, 0 none */

static PyObject *run_alias(int op, tn_value *a);
static PyObject *dispatch(int op, tn_value *a) {
    int k = decomp_index[op] - 1;
    if (decomps[k].base >= 0) {
        const tn_schema *from = tn_op_schema(op), *to = tn_op_schema(decomps[k].base);
        if (!from || !to) return NULL;
        if (from->nargs != to->nargs) return tn_not_implemented("an alias decomposition whose schemas differ");
        return same_args(decomps[k].base, a);
    }
    if (decomps[k].base == -3) {
        bool was = tn_grad_mode_set(false);
        PyObject *r = tn_door_below_autograd(op, a);
        tn_grad_mode_set(was);
        return r;
    }
    if (decomps[k].base == -2) return run_alias(op, a);
    return decomps[k].fn(a);
}

/* ravel: contiguous().view(-1). contiguous goes through the door with its own arguments (ravel
 * has no memory_format: d_contiguous(a) read past ravel's one argument, a crash on a
 * non-contiguous input) */
static PyObject *run_alias(int op, tn_value *a) {
    PyObject *c = tn_at_contiguous(a[0].u.obj, NULL);
    PyObject *r = c ? tn_at_view(c, TN_IS(-1)) : NULL;
    Py_XDECREF(c);
    return r;
}

/* Every decomposition enters through one trampoline per op row: tn_decomp_fn takes only args,
 * so the row is found from a thread-local set just before the call. */
static _Thread_local int current_op;
static PyObject *trampoline(tn_value *a) { return dispatch(current_op, a); }
static int current_op_of(void) { return current_op; }

int tn_decomp_kind(int op) {
    tn_decomp_for(op);   /* builds the index */
    if (op < 0 || op >= TN_OP_COUNT || !decomp_index[op]) return -100;
    return decomps[decomp_index[op] - 1].base;
}

bool tn_decomp_computes(int op) {
    tn_decomp_for(op);   /* builds the index */
    if (op >= 0 && op < TN_OP_COUNT && named_decomp_by_row && named_decomp_by_row[op]) return true;   /* the losses */
    return op >= 0 && op < TN_OP_COUNT && decomp_index[op] && decomps[decomp_index[op] - 1].base != -3;
}

tn_decomp_fn tn_decomp_for(int op) {
    static bool built;
    if (!built) {
        for (size_t i = 0; i < sizeof decomps / sizeof *decomps; i++) decomp_index[decomps[i].row] = (int)i + 1;
        if ((named_decomp_by_row = calloc(TN_OP_COUNT, sizeof *named_decomp_by_row)))
            for (size_t i = 0; i < sizeof named_decomps / sizeof *named_decomps; i++) {
                int r = tn_op_find(named_decomps[i].name, named_decomps[i].overload);
                if (r >= 0 && r < TN_OP_COUNT) named_decomp_by_row[r] = named_decomps[i].fn;
            }
        built = true;
    }
    if (op >= 0 && op < TN_OP_COUNT && named_decomp_by_row && named_decomp_by_row[op]) return named_decomp_by_row[op];
    if (op < 0 || op >= TN_OP_COUNT || !decomp_index[op]) return NULL;
    current_op = op;
    return trampoline;
}
