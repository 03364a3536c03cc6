/* decomp.c — CompositeImplicitAutograd overloads while gradients are recorded: each decomposes
 * into the ops upstream's composite calls (so the graph has upstream's nodes: linear -> t +
 * addmm, layer_norm -> native_layer_norm, reshape -> view / _unsafe_view, to -> _to_copy, ...),
 * every call through the door. Aliases (multiply -> mul, divide -> div, ...) call their base op.
 * Composites whose outputs never carry gradients (zeros_like, ...) run as they are. An overload
 * without an entry here runs and gets a node that refuses by name in backward (record.c). */
#include "autograd/autograd.h"

#include "python/args.h"
#include "tn_ops_gen.h"

#include <stdlib.h>
#include <string.h>

static PyObject *A(int i, tn_value *a) { return tn_value_to_python(&a[i]); }

/* same arguments, another row */
static PyObject *same_args(int row, tn_value *a) { return tn_door_call(row, a); }

/* ---- linear algebra ---- */

static PyObject *matmul2(PyObject *t1, PyObject *t2);
static PyObject *size_list(const int64_t *s, int n);
static PyObject *reshape_to(PyObject *x, PyObject *shape);

/* linear(input, weight, bias), as upstream's: addmm(bias, input, weight.t()) for a 2-D input with
 * bias; a contiguous >= 3-D input with a 1-D bias is flattened to 2-D first (reshape, then
 * weight.t(), addmm, and a view back); otherwise matmul(input, weight.t()) then add_(bias) */
static PyObject *d_linear(tn_value *a) {
    PyObject *x = a[0].u.obj, *w = a[1].u.obj, *b = a[2].tag == TN_V_TENSOR ? a[2].u.obj : NULL;
    const tn_tensor *xt = tn_tensor_of(x);
    PyObject *r = NULL;
    if (b && xt->ndim == 2) {
        PyObject *wt = tn_aten(TN_ROW_t, "(O)", w);
        r = wt ? tn_aten(TN_ROW_addmm, "(OOO)", b, x, wt) : NULL;
        Py_XDECREF(wt);
        return r;
    }
    if (b && xt->ndim >= 3 && tn_is_contiguous(xt) && tn_tensor_of(b)->ndim == 1) {
        int64_t rows = 1, out[TN_MAX_DIMS];
        for (int i = 0; i < xt->ndim - 1; i++) { rows *= xt->sizes[i]; out[i] = xt->sizes[i]; }
        PyObject *shape = Py_BuildValue("(LL)", (long long)rows, (long long)xt->sizes[xt->ndim - 1]);
        PyObject *xf = shape ? reshape_to(x, shape) : NULL;
        PyObject *wt = xf ? tn_aten(TN_ROW_t, "(O)", w) : NULL;
        PyObject *mm = wt ? tn_aten(TN_ROW_addmm, "(OOO)", b, xf, wt) : NULL;
        if (mm) out[xt->ndim - 1] = tn_tensor_of(mm)->sizes[1];
        PyObject *os = mm ? size_list(out, xt->ndim) : NULL;
        r = os ? tn_aten(TN_ROW_view, "(OO)", mm, os) : NULL;
        Py_XDECREF(shape); Py_XDECREF(xf); Py_XDECREF(wt); Py_XDECREF(mm); Py_XDECREF(os);
        return r;
    }
    PyObject *wt = tn_aten(TN_ROW_t, "(O)", w);
    r = wt ? matmul2(x, wt) : NULL;
    Py_XDECREF(wt);
    if (r && b) {
        PyObject *s2 = tn_aten(TN_ROW_add__Tensor, "(OO)", r, b);
        Py_XDECREF(s2);
        if (!s2) Py_CLEAR(r);
    }
    return r;
}

static PyObject *size_list(const int64_t *s, int n) {
    PyObject *l = PyList_New(n);
    for (int i = 0; l && i < n; i++) PyList_SetItem(l, i, PyLong_FromLongLong(s[i]));
    return l;
}

/* upstream's _matmul_impl without out= */
static PyObject *matmul2(PyObject *t1, PyObject *t2) {
    const tn_tensor *a = tn_tensor_of(t1), *b = tn_tensor_of(t2);
    int d1 = a->ndim, d2 = b->ndim;
    if (d1 == 0 || d2 == 0) {
        PyErr_Format(PyExc_RuntimeError, "both arguments to matmul need to be at least 1D, but they are %dD and %dD", d1, d2);
        return NULL;
    }
    if (d1 == 1 && d2 == 1) return tn_aten(TN_ROW_dot, "(OO)", t1, t2);
    if (d1 == 2 && d2 == 1) return tn_aten(TN_ROW_mv, "(OO)", t1, t2);
    if (d1 == 1 && d2 == 2) {
        PyObject *u = tn_aten(TN_ROW_unsqueeze, "(Oi)", t1, 0), *m = u ? tn_aten(TN_ROW_mm, "(OO)", u, t2) : NULL;
        PyObject *r = m ? tn_aten(TN_ROW_squeeze_dim, "(Oi)", m, 0) : NULL;
        Py_XDECREF(u); Py_XDECREF(m);
        return r;
    }
    if (d1 == 2 && d2 == 2) return tn_aten(TN_ROW_mm, "(OO)", t1, t2);
    bool fold = false;
    if (d1 >= 3 && (d2 == 1 || d2 == 2)) {
        fold = tn_requires_grad(t2) || tn_numel(a) == 0;
        if (!fold) {
            fold = true;
            for (int i = 0; i < d1 - 2; i++)
                if (a->strides[i] != a->strides[i + 1] * a->sizes[i + 1]) fold = false;
        }
    }
    if (fold) {
        int64_t folded = 1, out[TN_MAX_DIMS];
        int no = 0;
        for (int i = 0; i < d1 - 1; i++) { folded *= a->sizes[i]; out[no++] = a->sizes[i]; }
        if (d2 == 2) out[no++] = b->sizes[1];
        PyObject *f = tn_aten(TN_ROW_reshape, "(O(LL))", t1, (long long)folded, (long long)a->sizes[d1 - 1]);
        PyObject *m = f ? tn_aten(d2 == 2 ? TN_ROW_mm : TN_ROW_mv, "(OO)", f, t2) : NULL;
        PyObject *shape = m ? size_list(out, no) : NULL;
        PyObject *r = shape ? tn_aten(TN_ROW__unsafe_view, "(OO)", m, shape) : NULL;
        Py_XDECREF(f); Py_XDECREF(m); Py_XDECREF(shape);
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
    PyObject *u1 = d1 == 1 ? tn_aten(TN_ROW_unsqueeze, "(Oi)", t1, 0) : Py_NewRef(t1);
    PyObject *u2 = u1 ? (d2 == 1 ? tn_aten(TN_ROW_unsqueeze, "(Oi)", t2, 1) : Py_NewRef(t2)) : NULL;
    PyObject *s1 = u2 ? size_list(e1, nb + 2) : NULL, *s2 = s1 ? size_list(e2, nb + 2) : NULL;
    PyObject *x1 = s2 ? tn_aten(TN_ROW_expand, "(OO)", u1, s1) : NULL;
    PyObject *x2 = x1 ? tn_aten(TN_ROW_expand, "(OO)", u2, s2) : NULL;
    PyObject *r1 = x2 ? tn_aten(TN_ROW_reshape, "(O(LLL))", x1, (long long)bp, (long long)n, (long long)m1) : NULL;
    PyObject *r2 = r1 ? tn_aten(TN_ROW_reshape, "(O(LLL))", x2, (long long)bp, (long long)m2, (long long)p) : NULL;
    PyObject *mm = r2 ? tn_aten(TN_ROW_bmm, "(OO)", r1, r2) : NULL;
    PyObject *shape = mm ? size_list(out, no) : NULL;
    PyObject *r = shape ? tn_aten(TN_ROW__unsafe_view, "(OO)", mm, shape) : NULL;
    Py_XDECREF(u1); Py_XDECREF(u2); Py_XDECREF(s1); Py_XDECREF(s2); Py_XDECREF(x1); Py_XDECREF(x2);
    Py_XDECREF(r1); Py_XDECREF(r2); Py_XDECREF(mm); Py_XDECREF(shape);
    return r;
}
static PyObject *d_matmul(tn_value *a) { return matmul2(a[0].u.obj, a[1].u.obj); }

/* ---- shape ---- */

/* Whether sizes `ns` (n dims, -1 allowed once) can view a tensor of geometry t without a copy:
 * upstream's computeStride (dims merged only across contiguous chunks). */
static bool viewable(const tn_tensor *t, const int64_t *shape, int n) {
    int64_t numel = tn_numel(t), known = 1, ns[TN_MAX_DIMS];
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
    if (numel == 0 || t->ndim == 0) return true;
    int64_t view_d = n - 1, view_numel = 1, tensor_numel = 1, base_stride = t->strides[t->ndim - 1];
    for (int d = t->ndim - 1; d >= 0; d--) {
        tensor_numel *= t->sizes[d];
        if (d == 0 || (t->sizes[d - 1] != 1 && t->strides[d - 1] != tensor_numel * base_stride)) {
            while (view_d >= 0 && (view_numel < tensor_numel || ns[view_d] == 1)) view_numel *= ns[view_d--];
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
    if (!ok || viewable(tn_tensor_of(x), sz, (int)n)) return tn_aten(TN_ROW_view, "(OO)", x, shape);   /* view's own errors */
    PyObject *c = tn_aten_kw(TN_ROW_clone, NULL, "(O)", x);
    PyObject *r = c ? tn_aten(TN_ROW__unsafe_view, "(OO)", c, shape) : NULL;
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
    PyObject *s = shape_of(a[1].u.obj), *r = s ? tn_aten(TN_ROW_view, "(OO)", a[0].u.obj, s) : NULL;
    Py_XDECREF(s);
    return r;
}
static PyObject *d_expand_as(tn_value *a) {
    PyObject *s = shape_of(a[1].u.obj), *r = s ? tn_aten(TN_ROW_expand, "(OO)", a[0].u.obj, s) : NULL;
    Py_XDECREF(s);
    return r;
}
static PyObject *d_flatten(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int nd = t->ndim;
    int64_t s = a[1].u.i, e = a[2].u.i;
    if (nd == 0) return tn_aten(TN_ROW_reshape, "(O(i))", a[0].u.obj, 1);
    if (s < 0) s += nd;
    if (e < 0) e += nd;
    if (s < 0 || e >= nd || s > e) return tn_door_below_autograd(TN_ROW_flatten_using_ints, a);   /* its own errors */
    if (s == e) return Py_NewRef(a[0].u.obj);
    int64_t out[TN_MAX_DIMS], k = 0, prod = 1;
    for (int i = 0; i < s; i++) out[k++] = t->sizes[i];
    for (int64_t i = s; i <= e; i++) prod *= t->sizes[i];
    out[k++] = prod;
    for (int i = (int)e + 1; i < nd; i++) out[k++] = t->sizes[i];
    PyObject *sh = size_list(out, (int)k), *r = sh ? reshape_to(a[0].u.obj, sh) : NULL;
    Py_XDECREF(sh);
    return r;
}
static PyObject *d_contiguous(tn_value *a) {
    if (tn_is_contiguous(tn_tensor_of(a[0].u.obj))) return Py_NewRef(a[0].u.obj);
    PyObject *mf = A(1, a), *kw = mf ? Py_BuildValue("{sO}", "memory_format", mf) : NULL;
    PyObject *r = kw ? tn_aten_kw(TN_ROW_clone, kw, "(O)", a[0].u.obj) : NULL;
    Py_XDECREF(mf); Py_XDECREF(kw);
    return r;
}
static PyObject *d_narrow(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int64_t dim = a[1].u.i, start = a[2].u.i, len = a[3].u.i;
    if (t->ndim == 0) return tn_door_below_autograd(TN_ROW_narrow, a);
    if (dim < 0) dim += t->ndim;
    if (dim < 0 || dim >= t->ndim) return tn_door_below_autograd(TN_ROW_narrow, a);
    if (start < 0) start += t->sizes[dim];
    return tn_aten(TN_ROW_slice_Tensor, "(OLLL)", a[0].u.obj, (long long)dim, (long long)start, (long long)(start + len));
}
/* chunk(self, chunks, dim): split into pieces of ceil(size / chunks) */
static PyObject *d_chunk(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int64_t chunks = a[1].u.i, dim = a[2].u.i;
    if (t->ndim == 0 || chunks <= 0) return tn_door_below_autograd(TN_ROW_chunk, a);   /* its own errors */
    if (dim < 0) dim += t->ndim;
    if (dim < 0 || dim >= t->ndim) return tn_door_below_autograd(TN_ROW_chunk, a);
    int64_t each = (t->sizes[dim] + chunks - 1) / chunks;
    return tn_aten(TN_ROW_split_Tensor, "(OLL)", a[0].u.obj, (long long)(each ? each : 1), (long long)dim);
}
static PyObject *d_split_sizes(tn_value *a) { return same_args(TN_ROW_split_with_sizes, a); }
static PyObject *d_square(tn_value *a) { return tn_aten(TN_ROW_pow_Tensor_Scalar, "(Oi)", a[0].u.obj, 2); }

/* ---- dtype ---- */

static PyObject *to_dtype(PyObject *x, tn_dtype dt, bool copy, PyObject *mf) {
    const tn_tensor *t = tn_tensor_of(x);
    if (dt == t->dtype && !copy && (!mf || mf == Py_None || tn_is_contiguous(t))) return Py_NewRef(x);
    PyObject *d = tn_py_from_dtype(dt);
    PyObject *kw = d ? Py_BuildValue("{sOsO}", "dtype", d, "memory_format", mf ? mf : Py_None) : NULL;
    PyObject *r = kw ? tn_aten_kw(TN_ROW__to_copy, kw, "(O)", x) : NULL;
    Py_XDECREF(d); Py_XDECREF(kw);
    return r;
}
static PyObject *d_to_dtype(tn_value *a) {   /* to.dtype(self, dtype, non_blocking, copy, memory_format) */
    PyObject *mf = A(4, a);
    PyObject *r = mf ? to_dtype(a[0].u.obj, a[1].u.dtype, a[3].u.i, mf) : NULL;
    Py_XDECREF(mf);
    return r;
}
static PyObject *d_to_other(tn_value *a) {   /* to.other(self, other, non_blocking, copy, memory_format) */
    PyObject *mf = A(4, a);
    PyObject *r = mf ? to_dtype(a[0].u.obj, tn_tensor_of(a[1].u.obj)->dtype, a[3].u.i, mf) : NULL;
    Py_XDECREF(mf);
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
    tn_dtype dt = a[1].tag == TN_V_DTYPE ? a[1].u.dtype : tn_tensor_of(a[0].u.obj)->dtype;
    PyObject *mf = A(7, a);
    PyObject *r = mf ? to_dtype(a[0].u.obj, dt, a[6].u.i, mf) : NULL;
    Py_XDECREF(mf);
    return r;
}

/* ---- nn ---- */

static PyObject *softmax_like(tn_value *a, int row) {   /* softmax.int(self, dim, dtype?) */
    PyObject *x = a[2].tag == TN_V_DTYPE ? to_dtype(a[0].u.obj, a[2].u.dtype, false, NULL) : Py_NewRef(a[0].u.obj);
    PyObject *r = x ? tn_aten(row, "(OLO)", x, (long long)a[1].u.i, Py_False) : NULL;
    Py_XDECREF(x);
    return r;
}
static PyObject *d_softmax(tn_value *a) { return softmax_like(a, TN_ROW__softmax); }
static PyObject *d_log_softmax(tn_value *a) { return softmax_like(a, TN_ROW__log_softmax); }
static PyObject *d_layer_norm(tn_value *a) {   /* native_layer_norm(input, shape, weight, bias, eps)[0] */
    PyObject *ns = A(1, a), *w = A(2, a), *b = A(3, a);
    PyObject *r = ns && w && b ? tn_aten(TN_ROW_native_layer_norm, "(OOOOd)", a[0].u.obj, ns, w, b, a[4].u.f) : NULL;
    Py_XDECREF(ns); Py_XDECREF(w); Py_XDECREF(b);
    if (!r) return NULL;
    PyObject *out = Py_NewRef(PyTuple_GetItem(r, 0));
    Py_DECREF(r);
    return out;
}
/* dropout(input, p, train): input itself when not training; else input * (bernoulli(1-p) / (1-p)) */
static PyObject *d_dropout(tn_value *a) {
    PyObject *x = a[0].u.obj;
    double p = a[1].u.f;
    if (!a[2].u.i || p == 0 || tn_numel(tn_tensor_of(x)) == 0) return Py_NewRef(x);
    if (p < 0 || p > 1) return tn_door_below_autograd(TN_ROW_dropout, a);   /* its own error */
    if (p == 1) {
        PyObject *z = tn_aten_kw(TN_ROW_zeros_like, NULL, "(O)", x);
        PyObject *r = z ? tn_aten(TN_ROW_mul_Tensor, "(OO)", x, z) : NULL;
        Py_XDECREF(z);
        return r;
    }
    PyObject *noise = tn_aten_kw(TN_ROW_empty_like, NULL, "(O)", x);
    PyObject *b = noise ? tn_aten(TN_ROW_bernoulli__float, "(Od)", noise, 1 - p) : NULL;
    PyObject *d = b ? tn_aten(TN_ROW_div__Scalar, "(Od)", noise, 1 - p) : NULL;
    PyObject *r = d ? tn_aten(TN_ROW_mul_Tensor, "(OO)", x, noise) : NULL;
    Py_XDECREF(noise); Py_XDECREF(b); Py_XDECREF(d);
    return r;
}

/* composites whose results carry no gradient */
static PyObject *d_nondiff(tn_value *a) { return NULL; }

static const struct { int row; tn_decomp_fn fn; int base; } decomps[] = {
    {TN_ROW_linear, d_linear, -1}, {TN_ROW_matmul, d_matmul, -1},
    {TN_ROW_reshape, d_reshape, -1}, {TN_ROW_reshape_as, d_reshape_as, -1}, {TN_ROW_view_as, d_view_as, -1},
    {TN_ROW_expand_as, d_expand_as, -1}, {TN_ROW_flatten_using_ints, d_flatten, -1}, {TN_ROW_ravel, NULL, -2},
    {TN_ROW_contiguous, d_contiguous, -1}, {TN_ROW_narrow, d_narrow, -1}, {TN_ROW_split_sizes, d_split_sizes, -1}, {TN_ROW_chunk, d_chunk, -1},
    {TN_ROW_square, d_square, -1},
    {TN_ROW_to_dtype, d_to_dtype, -1}, {TN_ROW_to_other, d_to_other, -1}, {TN_ROW_type_as, d_type_as, -1},
    {TN_ROW_to_device, d_to_device, -1}, {TN_ROW_to_dtype_layout, d_to_dtype_layout, -1},
    {TN_ROW_softmax_int, d_softmax, -1}, {TN_ROW_log_softmax_int, d_log_softmax, -1},
    {TN_ROW_layer_norm, d_layer_norm, -1}, {TN_ROW_dropout, d_dropout, -1},
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
    {TN_ROW_zeros_like, d_nondiff, -3}, {TN_ROW_randn_like, d_nondiff, -3}, {TN_ROW_result_type_Tensor, d_nondiff, -3},
    {TN_ROW_is_floating_point, d_nondiff, -3}, {TN_ROW_is_complex, d_nondiff, -3}, {TN_ROW_item, d_nondiff, -3},
    {TN_ROW_is_nonzero, d_nondiff, -3}, {TN_ROW_isclose, d_nondiff, -3}, {TN_ROW_isfinite, d_nondiff, -3},
    {TN_ROW_argmax, d_nondiff, -3}, {TN_ROW_argmin, d_nondiff, -3}, {TN_ROW_argsort, d_nondiff, -3},
};

static int decomp_index[TN_OP_COUNT];   /* entry + 1, 0 none */

static PyObject *run_alias(int op, tn_value *a);
static PyObject *dispatch(int op, tn_value *a) {
    int k = decomp_index[op] - 1;
    if (decomps[k].base >= 0) return same_args(decomps[k].base, a);
    if (decomps[k].base == -3) {
        bool was = tn_grad_mode_set(false);
        PyObject *r = tn_door_below_autograd(op, a);
        tn_grad_mode_set(was);
        return r;
    }
    if (decomps[k].base == -2) return run_alias(op, a);
    return decomps[k].fn(a);
}

/* ravel: contiguous().view(-1) */
static PyObject *run_alias(int op, tn_value *a) {
    PyObject *c = d_contiguous(a);
    PyObject *r = c ? tn_aten(TN_ROW_view, "(O(i))", c, -1) : NULL;
    Py_XDECREF(c);
    return r;
}

/* Every decomposition enters through one trampoline per op row: tn_decomp_fn takes only args,
 * so the row is found from a thread-local set just before the call. */
static _Thread_local int current_op;
static PyObject *trampoline(tn_value *a) { return dispatch(current_op, a); }

bool tn_decomp_computes(int op) {
    tn_decomp_for(op);   /* builds the index */
    return op >= 0 && op < TN_OP_COUNT && decomp_index[op] && decomps[decomp_index[op] - 1].base != -3;
}

tn_decomp_fn tn_decomp_for(int op) {
    static bool built;
    if (!built) {
        for (size_t i = 0; i < sizeof decomps / sizeof *decomps; i++) decomp_index[decomps[i].row] = (int)i + 1;
        built = true;
    }
    if (op < 0 || op >= TN_OP_COUNT || !decomp_index[op]) return NULL;
    current_op = op;
    return trampoline;
}
