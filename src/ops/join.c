/* ops/join.c — joining and rearranging copies: cat, stack, hstack, vstack, repeat, tile, flip,
 * roll, tril / triu, diag.
 *
 * These produce new tensors by copying through views: each input (or a restrided view of it:
 * negative strides for flip, zero strides for repeat) is copied into the matching window of a
 * freshly allocated output with tn_copy_into, which casts and broadcasts. tril / triu zero
 * the elements outside the band with a small plain-C strided loop. */
#include "ops/views.h"
#include "ops/pad.h"
#include "ops/pool.h"

#include <stdlib.h>

/* A view of `t` (any geometry) as a Python tensor, for use as a copy source / destination. */
static PyObject *geom_view(PyObject *base, int nd, const int64_t *sizes, const int64_t *strides, int64_t off) {
    return tn_tensor_new_view(base, nd, sizes, strides, off);
}

static int copy_window(PyObject *out, int nd, const int64_t *sizes, const int64_t *strides, int64_t off, PyObject *src) {
    PyObject *w = geom_view(out, nd, sizes, strides, off);
    if (!w) return -1;
    int r = tn_copy_into(w, src);
    Py_DECREF(w);
    return r;
}

/* ---------- cat / stack ---------- */

static bool cat_skipped(const tn_tensor *t) { return t->ndim == 1 && t->sizes[0] == 0; }

static PyObject *cat_impl(PyObject *list, int64_t dim, PyObject *out, const char *name) {
    Py_ssize_t n = PyTuple_Size(list);
    if (n == 0) {
        PyErr_Format(PyExc_ValueError, "torch.%s(): expected a non-empty list of Tensors", name);
        return NULL;
    }
    tn_dtype dt = TN_DTYPE_UNDEFINED;
    const tn_tensor *ref = NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        tn_tensor *t = tn_tensor_of(PyTuple_GetItem(list, i));
        if (t->ndim == 0) {
            PyErr_Format(PyExc_RuntimeError, "zero-dimensional tensor (at position %zd) cannot be concatenated", i);
            return NULL;
        }
        dt = tn_promote_types_checked(dt, t->dtype); /* upstream refuses float8 / uint16-64 mixes */
        if (dt == TN_DTYPE_UNDEFINED) return NULL;
        if (!ref && !cat_skipped(t)) ref = t;
    }
    if (tn_require_castable("cat", dt) < 0) return NULL;
    int64_t d = 0, shape[TN_MAX_DIMS];
    int nd = 1;
    shape[0] = 0;
    if (ref) {
        if (tn_wrap_dim(dim, ref->ndim, &d) < 0) return NULL;
        nd = ref->ndim;
        memcpy(shape, ref->sizes, (size_t)nd * sizeof *shape);
        shape[d] = 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            tn_tensor *t = tn_tensor_of(PyTuple_GetItem(list, i));
            if (cat_skipped(t)) continue;
            if (t->ndim != nd) {
                PyErr_Format(PyExc_RuntimeError, "Tensors must have same number of dimensions: got %d and %d", nd, t->ndim);
                return NULL;
            }
            for (int k = 0; k < nd; k++)
                if (k != d && t->sizes[k] != ref->sizes[k]) {
                    PyErr_Format(PyExc_RuntimeError,
                                 "Sizes of tensors must match except in dimension %lld. Expected size %lld but got size %lld for tensor number %zd in the list.",
                                 (long long)d, (long long)ref->sizes[k], (long long)t->sizes[k], i);
                    return NULL;
                }
            shape[d] += t->sizes[d];
        }
    } else {
        int64_t dd;
        if (tn_wrap_dim(dim, 1, &dd) < 0) return NULL;
    }
    PyObject *res;
    if (out) {
        tn_tensor *o = tn_tensor_of(out);
        if (!tn_can_cast(dt, o->dtype)) {
            PyErr_Format(PyExc_TypeError, "torch.%s(): input types can't be cast to the desired output type %s", name,
                         tn_dtype_cpp_name(o->dtype));
            return NULL;
        }
        if (tn_out_prepare(out, nd, shape, dt, name) < 0) return NULL;
        res = Py_NewRef(out);
    } else {
        /* upstream's cat_compute_output_memory_format: every input's suggested format when
         * they all agree, else contiguous */
        int fmt = -1;
        for (Py_ssize_t i = 0; i < n && fmt != 0; i++) {
            int f = tn_suggest_format(tn_tensor_of(PyTuple_GetItem(list, i)));
            fmt = (fmt >= 0 && fmt != f) ? 0 : f;
        }
        res = fmt > 0 && (nd == 4 || nd == 5) ? tn_pool_new(nd, shape, dt, fmt)
                                              : tn_tensor_new_empty(nd, shape, dt, TN_DEVICE_CPU);
        if (!res) return NULL;
    }
    tn_tensor *o = tn_tensor_of(res);
    int64_t off = 0;
    for (Py_ssize_t i = 0; ref && i < n; i++) {
        PyObject *src = PyTuple_GetItem(list, i);
        tn_tensor *t = tn_tensor_of(src);
        if (cat_skipped(t) || t->sizes[d] == 0) continue;
        int64_t sz[TN_MAX_DIMS];
        memcpy(sz, o->sizes, (size_t)nd * sizeof *sz);
        sz[d] = t->sizes[d];
        if (copy_window(res, nd, sz, o->strides, o->offset + off * o->strides[d], src) < 0) { Py_DECREF(res); return NULL; }
        off += t->sizes[d];
    }
    return res;
}

PyObject *tn_op_cat(tn_value *a) { return cat_impl(a[0].u.obj, a[1].u.i, NULL, "cat"); }
PyObject *tn_op_cat_out(tn_value *a) { return cat_impl(a[0].u.obj, a[1].u.i, a[2].u.obj, "cat"); }
PyObject *tn_op_concat(tn_value *a) { return cat_impl(a[0].u.obj, a[1].u.i, NULL, "cat"); }
PyObject *tn_op_concat_out(tn_value *a) { return cat_impl(a[0].u.obj, a[1].u.i, a[2].u.obj, "cat"); }
PyObject *tn_op_concatenate(tn_value *a) { return cat_impl(a[0].u.obj, a[1].u.i, NULL, "cat"); }
PyObject *tn_op_concatenate_out(tn_value *a) { return cat_impl(a[0].u.obj, a[1].u.i, a[2].u.obj, "cat"); }

static PyObject *stack_impl(PyObject *list, int64_t dim, PyObject *out) {
    Py_ssize_t n = PyTuple_Size(list);
    if (n == 0) { PyErr_SetString(PyExc_RuntimeError, "stack expects a non-empty TensorList"); return NULL; }
    tn_tensor *t0 = tn_tensor_of(PyTuple_GetItem(list, 0));
    tn_dtype dt = TN_DTYPE_UNDEFINED;
    for (Py_ssize_t i = 0; i < n; i++) {
        tn_tensor *t = tn_tensor_of(PyTuple_GetItem(list, i));
        if (t->ndim != t0->ndim || memcmp(t->sizes, t0->sizes, (size_t)t->ndim * sizeof *t->sizes)) {
            char b1[256], b2[256];
            tn_shape_str(b1, sizeof b1, t0->ndim, t0->sizes);
            tn_shape_str(b2, sizeof b2, t->ndim, t->sizes);
            PyErr_Format(PyExc_RuntimeError, "stack expects each tensor to be equal size, but got %s at entry 0 and %s at entry %zd", b1, b2, i);
            return NULL;
        }
        dt = tn_promote_types_checked(dt, t->dtype); /* upstream refuses float8 / uint16-64 mixes */
        if (dt == TN_DTYPE_UNDEFINED) return NULL;
    }
    int64_t d;
    if (tn_wrap_dim(dim, t0->ndim + 1, &d) < 0) return NULL;
    if (tn_require_castable("stack", dt) < 0) return NULL;
    int nd = t0->ndim + 1;
    if (nd > TN_MAX_DIMS) return tn_not_implemented("tensors of more than " TN_MAX_DIMS_S " dimensions");
    int64_t shape[TN_MAX_DIMS];
    for (int k = 0, j = 0; k < nd; k++) shape[k] = k == d ? n : t0->sizes[j++];
    PyObject *res;
    if (out) {
        /* upstream's stack.out falls back to cat.out for an out= of another dtype: cat's TypeError
         * (its Python meta words its own RuntimeError, kept on meta) */
        if (!tn_door_on_meta() && !tn_can_cast(dt, tn_tensor_of(out)->dtype)) {
            PyErr_Format(PyExc_TypeError, "torch.cat(): input types can't be cast to the desired output type %s",
                         tn_dtype_cpp_name(tn_tensor_of(out)->dtype));
            return NULL;
        }
        if (tn_out_prepare(out, nd, shape, dt, "stack") < 0) return NULL;
        res = Py_NewRef(out);
    } else {
        /* upstream's cat_compute_output_memory_format: every input's suggested format when
         * they all agree, else contiguous */
        int fmt = -1;
        for (Py_ssize_t i = 0; i < n && fmt != 0; i++) {
            int f = tn_suggest_format(tn_tensor_of(PyTuple_GetItem(list, i)));
            fmt = (fmt >= 0 && fmt != f) ? 0 : f;
        }
        res = fmt > 0 && (nd == 4 || nd == 5) ? tn_pool_new(nd, shape, dt, fmt)
                                              : tn_tensor_new_empty(nd, shape, dt, TN_DEVICE_CPU);
        if (!res) return NULL;
    }
    tn_tensor *o = tn_tensor_of(res);
    int64_t sz[TN_MAX_DIMS], st[TN_MAX_DIMS];
    for (int k = 0, j = 0; k < nd; k++) if (k != d) { sz[j] = o->sizes[k]; st[j] = o->strides[k]; j++; }
    for (Py_ssize_t i = 0; i < n; i++)
        if (copy_window(res, nd - 1, sz, st, o->offset + i * o->strides[d], PyTuple_GetItem(list, i)) < 0) {
            Py_DECREF(res);
            return NULL;
        }
    return res;
}

PyObject *tn_op_stack(tn_value *a) { return stack_impl(a[0].u.obj, a[1].u.i, NULL); }
PyObject *tn_op_stack_out(tn_value *a) { return stack_impl(a[0].u.obj, a[1].u.i, a[2].u.obj); }

/* A tuple of the tensors with at least `k` dims (atleast_1d / atleast_2d geometry, as views). */
static PyObject *atleast(PyObject *list, int k) {
    Py_ssize_t n = PyTuple_Size(list);
    PyObject *tup = PyTuple_New(n);
    if (!tup) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *x = PyTuple_GetItem(list, i);
        tn_tensor *t = tn_tensor_of(x);
        PyObject *v;
        if (t->ndim >= k) v = Py_NewRef(x);
        else {
            int64_t sz[2], st[2] = {1, 1};
            if (t->ndim == 0) { sz[0] = sz[1] = 1; }
            else { sz[0] = 1; sz[1] = t->sizes[0]; st[0] = t->sizes[0] * t->strides[0]; st[1] = t->strides[0]; }
            v = k == 1 ? geom_view(x, 1, sz, st, t->offset) : geom_view(x, 2, sz, st, t->offset);
        }
        if (!v) { Py_DECREF(tup); return NULL; }
        PyTuple_SetItem(tup, i, v);
    }
    return tup;
}

static PyObject *hvstack(PyObject *list, PyObject *out, bool vertical) {
    if (PyTuple_Size(list) == 0) {
        PyErr_Format(PyExc_RuntimeError, "%s expects a non-empty TensorList", vertical ? "vstack" : "hstack");
        return NULL;
    }
    PyObject *l = atleast(list, vertical ? 2 : 1);
    if (!l) return NULL;
    int64_t dim = vertical ? 0 : (tn_tensor_of(PyTuple_GetItem(l, 0))->ndim == 1 ? 0 : 1);
    PyObject *r = cat_impl(l, dim, out, "cat");
    Py_DECREF(l);
    return r;
}

/* _chunk_cat(tensors, dim, num_chunks): each tensor zero-padded along dim to a multiple of
 * num_chunks (constant_pad_nd), viewed as sizes[:dim] + [num_chunks, -1], and the views cat along
 * dim + 1. Upstream's checks in its order (num_chunks, list, per tensor: nonempty, dtype; dim
 * wrapped when every ndim agrees, else dim >= 0 and < every ndim; leading sizes). No gradient, as
 * upstream (it has no derivative formula). */
static PyObject *chunk_cat(PyObject *list, int64_t dim, int64_t nch) {
    Py_ssize_t n = PyTuple_Size(list);
    if (nch < 1) return PyErr_Format(PyExc_RuntimeError, "_chunk_cat expects positive num_chunks");
    if (n == 0) return PyErr_Format(PyExc_RuntimeError, "_chunk_cat expects a non-empty input tensor list");
    const tn_tensor *t0 = tn_tensor_of(PyTuple_GetItem(list, 0));
    bool same_ndim = true;
    for (Py_ssize_t i = 0; i < n; i++) {
        const tn_tensor *t = tn_tensor_of(PyTuple_GetItem(list, i));
        if (tn_numel(t) == 0) return PyErr_Format(PyExc_RuntimeError, "_chunk_cat expects non-empty tensor");
        if (t->dtype != t0->dtype) return PyErr_Format(PyExc_RuntimeError, "_chunk_cat expects all input tensors with the same dtype");
        same_ndim = same_ndim && t->ndim == t0->ndim;
    }
    if (same_ndim) {
        if (tn_wrap_dim(dim, t0->ndim, &dim) < 0) return NULL;
        /* 0-dim tensors: upstream 2.13.0 reads past their sizes and crashes (measured); refused */
        if (t0->ndim == 0) return PyErr_Format(PyExc_RuntimeError, "_chunk_cat expects dim < ndim for all input tensors");
    } else {
        if (dim < 0) return PyErr_Format(PyExc_RuntimeError, "_chunk_cat expects non-negative dim when input tensors have different ndims");
        for (Py_ssize_t i = 0; i < n; i++)
            if (dim >= tn_tensor_of(PyTuple_GetItem(list, i))->ndim)
                return PyErr_Format(PyExc_RuntimeError, "_chunk_cat expects dim < ndim for all input tensors");
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        const tn_tensor *t = tn_tensor_of(PyTuple_GetItem(list, i));
        for (int64_t d = 0; d < dim; d++)
            if (t->sizes[d] != t0->sizes[d])
                return PyErr_Format(PyExc_RuntimeError, "_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all tensors");
    }
    PyObject *views = PyTuple_New(n);
    for (Py_ssize_t i = 0; views && i < n; i++) {
        PyObject *x = PyTuple_GetItem(list, i);
        const tn_tensor *t = tn_tensor_of(x);
        int64_t along = (t->sizes[dim] + nch - 1) / nch * nch;
        int64_t pad[2 * TN_MAX_DIMS] = {0}, vs[TN_MAX_DIMS];
        int np = 2 * (t->ndim - (int)dim);
        pad[np - 1] = along - t->sizes[dim];
        PyObject *p = along != t->sizes[dim] ? tn_at_constant_pad_nd(x, TN_IN(pad, np), TN_SI(0)) : Py_NewRef(x);
        for (int64_t d = 0; d < dim; d++) vs[d] = t->sizes[d];
        vs[dim] = nch;
        vs[dim + 1] = -1;
        PyObject *v = p ? tn_at_reshape(p, TN_IN(vs, dim + 2)) : NULL;
        Py_XDECREF(p);
        if (!v) Py_CLEAR(views);
        else PyTuple_SetItem(views, i, v);
    }
    if (!views) return NULL;
    PyObject *r = cat_impl(views, dim + 1, NULL, "cat");
    Py_DECREF(views);
    return r;
}

PyObject *tn_op__chunk_cat(tn_value *a) { return chunk_cat(a[0].u.obj, a[1].u.i, a[2].u.i); }

PyObject *tn_op_hstack(tn_value *a) { return hvstack(a[0].u.obj, NULL, false); }
PyObject *tn_op_hstack_out(tn_value *a) { return hvstack(a[0].u.obj, a[1].u.obj, false); }
PyObject *tn_op_vstack(tn_value *a) { return hvstack(a[0].u.obj, NULL, true); }
PyObject *tn_op_vstack_out(tn_value *a) { return hvstack(a[0].u.obj, a[1].u.obj, true); }
PyObject *tn_op_row_stack(tn_value *a) { return hvstack(a[0].u.obj, NULL, true); }
PyObject *tn_op_row_stack_out(tn_value *a) { return hvstack(a[0].u.obj, a[1].u.obj, true); }

/* ---------- repeat / tile ---------- */

static PyObject *repeat_impl(PyObject *self, int n, const int64_t *reps) {
    tn_tensor *t = tn_tensor_of(self);
    if (n < t->ndim) {
        PyErr_SetString(PyExc_RuntimeError, "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor");
        return NULL;
    }
    if (n > TN_MAX_DIMS) return tn_not_implemented("repeat with more than " TN_MAX_DIMS_S " dimensions");
    if (tn_require_castable("repeat", t->dtype) < 0) return NULL;
    int lead = n - t->ndim;
    int64_t psz[TN_MAX_DIMS], pst[TN_MAX_DIMS], shape[TN_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        psz[i] = i < lead ? 1 : t->sizes[i - lead];
        pst[i] = i < lead ? 0 : t->strides[i - lead];
        if (__builtin_mul_overflow(psz[i], reps[i], &shape[i])) {
            PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
            return NULL;
        }
    }
    /* the target size is checked, not the repeats: a negative repeat of a 0 size is a 0 (measured) */
    for (int i = 0; i < n; i++)
        if (shape[i] < 0) {
            char b[512];
            tn_shape_str(b, sizeof b, n, shape);
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: %s", (long long)shape[i], b);
            return NULL;
        }
    PyObject *res = tn_tensor_new_empty(n, shape, t->dtype, TN_DEVICE_CPU);
    if (!res) return NULL;
    if (tn_numel(tn_tensor_of(res)) == 0) return res;
    tn_tensor *o = tn_tensor_of(res);
    /* each dim i of the result as (repeat, self's size): a pair where reps[i] != 1, the size
     * alone otherwise, and nothing for a size of 1 repeated once, so up to 32 dims fit */
    int64_t osz[2 * TN_MAX_DIMS], ost[2 * TN_MAX_DIMS], ssz[2 * TN_MAX_DIMS], sst[2 * TN_MAX_DIMS];
    int k = 0;
    for (int i = 0; i < n; i++) {
        if (reps[i] != 1) {
            osz[k] = reps[i]; ost[k] = psz[i] * o->strides[i];
            ssz[k] = reps[i]; sst[k++] = 0;
        }
        if (psz[i] != 1) {
            osz[k] = psz[i]; ost[k] = o->strides[i];
            ssz[k] = psz[i]; sst[k++] = pst[i];
        }
    }
    if (k > TN_MAX_DIMS) { Py_DECREF(res); return tn_not_implemented("repeat with more than " TN_MAX_DIMS_S " dims that repeat or have size > 1"); }
    if (k == 0) { osz[0] = ssz[0] = 1; ost[0] = 1; sst[0] = 0; k = 1; }
    PyObject *src = geom_view(self, k, ssz, sst, t->offset);
    if (!src) { Py_DECREF(res); return NULL; }
    int r = copy_window(res, k, osz, ost, o->offset, src);
    Py_DECREF(src);
    if (r < 0) { Py_DECREF(res); return NULL; }
    return res;
}

PyObject *tn_op_repeat(tn_value *a) { return repeat_impl(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v); }

PyObject *tn_op_tile(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    int n = a[1].u.ints.n;
    int64_t reps[TN_MAX_DIMS];
    int m = n < t->ndim ? t->ndim : n;
    if (m > TN_MAX_DIMS) return tn_not_implemented("tile with this many dimensions");
    for (int i = 0; i < m; i++) reps[i] = i < m - n ? 1 : a[1].u.ints.v[i - (m - n)];
    return repeat_impl(a[0].u.obj, m, reps);
}

/* ---------- flip / roll ---------- */

static PyObject *flip_impl(PyObject *self, int n, const int64_t *dims) {
    tn_tensor *t = tn_tensor_of(self);
    bool flip[TN_MAX_DIMS] = {0};
    for (int i = 0; i < n; i++) {
        int64_t d;
        if (tn_wrap_dim(dims[i], t->ndim, &d) < 0) return NULL;
        if (flip[d]) {
            PyErr_Format(PyExc_RuntimeError, "dim %lld appears multiple times in the list of dims", (long long)d);
            return NULL;
        }
        flip[d] = true;
    }
    int64_t st[1][TN_MAX_DIMS], ost[TN_MAX_DIMS];
    for (int d = 0; d < t->ndim; d++) st[0][d] = t->sizes[d] == 1 ? 0 : t->strides[d];
    tn_ti_output_strides(t->ndim, t->sizes, 1, st, ost);
    if (!tn_dtype_computable(t->dtype)) {
        /* upstream's flip kernel has no uint16/32/64, float8 or complex32, but two of its paths
         * copy bytes for any dtype (measured, docs/breadth_more2.md "group nieok"): nothing to
         * flip (each flipped dim of size 1 or stride 0, or at most one element) is a copy_; and
         * when the innermost dim of the output (smallest stride, size > 1) is not flipped and
         * has stride 1 in both, rows are memcpy'd (its vertical flip) */
        bool work = false, rows = true;
        for (int d = 0; d < t->ndim; d++)
            if (flip[d] && t->sizes[d] > 1 && t->strides[d] != 0) work = true;
        if (work && tn_numel(t) > 1) {
            int in = -1;
            for (int d = 0; d < t->ndim; d++)
                if (t->sizes[d] > 1 && (in < 0 || ost[d] < ost[in])) in = d;
            rows = in >= 0 && ost[in] == 1 && t->strides[in] == 1 && !flip[in];
        }
        if (!rows) {
            if (tn_require_castable("flip", t->dtype) == 0) return tn_kernel_missing_cpu("flip", t->dtype);
            return NULL;
        }
        if (tn_require_castable("flip", t->dtype) < 0) return NULL;
    }
    PyObject *res = tn_tensor_new_empty(t->ndim, t->sizes, t->dtype, TN_DEVICE_CPU);
    if (!res) return NULL;
    tn_tensor *o = tn_tensor_of(res);
    memcpy(o->strides, ost, (size_t)t->ndim * sizeof *ost);
    if (tn_numel(t) == 0) return res;
    int64_t vst[TN_MAX_DIMS], off = t->offset;
    for (int d = 0; d < t->ndim; d++) {
        vst[d] = flip[d] ? -t->strides[d] : t->strides[d];
        if (flip[d]) off += (t->sizes[d] - 1) * t->strides[d];
    }
    PyObject *src = geom_view(self, t->ndim, t->sizes, vst, off);
    if (!src) { Py_DECREF(res); return NULL; }
    int r = tn_copy_into(res, src);
    Py_DECREF(src);
    if (r < 0) { Py_DECREF(res); return NULL; }
    return res;
}

PyObject *tn_op_flip(tn_value *a) { return flip_impl(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v); }
PyObject *tn_op_fliplr(tn_value *a) {
    if (TN_T(a[0])->ndim < 2) { PyErr_SetString(PyExc_RuntimeError, "Input must be >= 2-d."); return NULL; }
    int64_t d = 1;
    return flip_impl(a[0].u.obj, 1, &d);
}
PyObject *tn_op_flipud(tn_value *a) {
    if (TN_T(a[0])->ndim < 1) { PyErr_SetString(PyExc_RuntimeError, "Input must be >= 1-d."); return NULL; }
    int64_t d = 0;
    return flip_impl(a[0].u.obj, 1, &d);
}

/* roll one dim of contiguous `src` into new contiguous tensor. */
static PyObject *roll_one(PyObject *src, int64_t d, int64_t shift) {
    tn_tensor *t = tn_tensor_of(src);
    PyObject *res = tn_tensor_new_empty(t->ndim, t->sizes, t->dtype, TN_DEVICE_CPU);
    if (!res) return NULL;
    int64_t size = t->sizes[d];
    if (size == 0 || tn_numel(t) == 0) return res;
    int64_t s = ((shift % size) + size) % size;
    tn_tensor *o = tn_tensor_of(res);
    /* out[s:] = src[:size-s], out[:s] = src[size-s:] */
    int64_t sz[TN_MAX_DIMS];
    memcpy(sz, t->sizes, sizeof sz);
    int r = 0;
    if (size - s > 0) {
        sz[d] = size - s;
        PyObject *v = geom_view(src, t->ndim, sz, t->strides, t->offset);
        r = v ? copy_window(res, t->ndim, sz, o->strides, o->offset + s * o->strides[d], v) : -1;
        Py_XDECREF(v);
    }
    if (r == 0 && s > 0) {
        sz[d] = s;
        PyObject *v = geom_view(src, t->ndim, sz, t->strides, t->offset + (size - s) * t->strides[d]);
        r = v ? copy_window(res, t->ndim, sz, o->strides, o->offset, v) : -1;
        Py_XDECREF(v);
    }
    if (r < 0) { Py_DECREF(res); return NULL; }
    return res;
}

static void roll_misaligned(int ns, int nd) {   /* (its meta function's message has a space more) */
    PyErr_Format(PyExc_RuntimeError, tn_door_on_meta() ? "shifts and dimensions must align. shifts: %d, dims: %d"
                                                       : "shifts and dimensions must align. shifts: %d, dims:%d", ns, nd);
}

PyObject *tn_op_roll(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    int ns = a[1].u.ints.n, nd = a[2].u.ints.n;
    if ((!tn_door_on_meta() && tn_symints_concrete(a[1].u.ints.v, ns) < 0) ||   /* (its meta function runs) */
        tn_require_castable("roll", t->dtype) < 0)
        return NULL;
    int64_t w;   /* its meta function (a Python reference) wraps every dim first */
    for (int i = 0; tn_door_on_meta() && i < nd; i++)
        if (tn_wrap_dim(a[2].u.ints.v[i], t->ndim, &w) < 0) return NULL;
    if (ns == 0) {   /* upstream's roll_common, reached whenever shifts is not one long */
        PyErr_SetString(PyExc_RuntimeError, "`shifts` required");
        return NULL;
    }
    if (nd == 0) {
        if (ns != 1) {
            roll_misaligned(ns, nd);
            return NULL;
        }
        PyObject *flat = tn_clone_contiguous(self);
        if (!flat) return NULL;
        tn_tensor *ft = tn_tensor_of(flat);
        int64_t numel = tn_numel(t);
        ft->ndim = 1; ft->sizes[0] = numel; ft->strides[0] = 1;
        PyObject *r = roll_one(flat, 0, a[1].u.ints.v[0]);
        Py_DECREF(flat);
        if (!r) return NULL;
        tn_tensor *rt = tn_tensor_of(r);
        rt->ndim = t->ndim;
        memcpy(rt->sizes, t->sizes, sizeof rt->sizes);
        tn_contiguous_strides(t->ndim, t->sizes, rt->strides);
        return r;
    }
    if (ns != nd) {
        roll_misaligned(ns, nd);
        return NULL;
    }
    /* upstream's one-dim roll returns a clone of an empty tensor before it reads the dim's size:
     * no dim is checked then (torch.roll(empty(0, 3), [1, 1], [-1, 2]) runs) */
    if (tn_numel(t) == 0) return tn_at_clone(self, NULL);
    PyObject *cur = Py_NewRef(self);
    for (int i = 0; i < nd; i++) {
        int64_t d;   /* upstream reads self.size(dim): a 0-d tensor has no dim 0 (IndexError) */
        if (tn_size_read(t, a[2].u.ints.v[i]) < 0 || tn_wrap_dim(a[2].u.ints.v[i], t->ndim, &d) < 0) {
            Py_DECREF(cur);
            return NULL;
        }
        PyObject *nx = roll_one(cur, d, a[1].u.ints.v[i]);
        Py_DECREF(cur);
        if (!nx) return NULL;
        cur = nx;
    }
    return cur;
}

/* ---------- tril / triu ---------- */

/* Zero elements of t (ndim >= 2) where keep(col - row, k) is false. */
static void zero_band(tn_tensor *t, int64_t k, bool lower) {
    int nd = t->ndim, isz = tn_dtype_itemsize(t->dtype);
    int64_t rows = t->sizes[nd - 2], cols = t->sizes[nd - 1];
    int64_t rs = t->strides[nd - 2] * isz, cs = t->strides[nd - 1] * isz;
    int64_t batch = 1;
    for (int d = 0; d < nd - 2; d++) batch *= t->sizes[d];
    if (batch == 0 || rows == 0 || cols == 0) return;
    int64_t idx[TN_MAX_DIMS] = {0};
    char *base = tn_data(t);
    for (int64_t b = 0; b < batch; b++) {
        char *p = base;
        for (int d = 0; d < nd - 2; d++) p += idx[d] * t->strides[d] * isz;
        for (int64_t i = 0; i < rows; i++)
            for (int64_t j = 0; j < cols; j++) {
                bool keep = lower ? (j - i <= k) : (j - i >= k);
                if (!keep) memset(p + i * rs + j * cs, 0, (size_t)isz);
            }
        for (int d = nd - 3; d >= 0; d--) {
            if (++idx[d] < t->sizes[d]) break;
            idx[d] = 0;
        }
    }
}

static PyObject *tri(tn_value *a, bool lower, bool inplace, PyObject *out) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    if (t->ndim < 2) {
        PyErr_Format(PyExc_RuntimeError, "%s: input tensor must have at least 2 dimensions", lower ? "tril" : "triu");
        return NULL;
    }
    if (tn_out_dtype_exact(out, t->dtype) < 0) return NULL;   /* the structured op's set_output */
    /* upstream's tril / triu kernel has complex32 (zeroing bytes here) */
    if (t->dtype != TN_DTYPE_C32 && tn_require_computable(lower ? "tril" : "triu", t->dtype) < 0) return NULL;
    PyObject *res;
    if (inplace) res = Py_NewRef(self);
    else if (out) {
        if (tn_out_prepare(out, t->ndim, t->sizes, t->dtype, lower ? "tril" : "triu") < 0) return NULL;
        if (out != self && tn_copy_into(out, self) < 0) return NULL;
        res = Py_NewRef(out);
    } else {
        res = tn_clone_contiguous(self);
        if (!res) return NULL;
    }
    zero_band(tn_tensor_of(res), a[1].u.i, lower);
    tn_tensor_of(res)->storage->version++;
    return res;
}

PyObject *tn_op_tril(tn_value *a) { return tri(a, true, false, NULL); }
PyObject *tn_op_tril_(tn_value *a) { return tri(a, true, true, NULL); }
PyObject *tn_op_tril_out(tn_value *a) { return tri(a, true, false, a[2].u.obj); }
PyObject *tn_op_triu(tn_value *a) { return tri(a, false, false, NULL); }
PyObject *tn_op_triu_(tn_value *a) { return tri(a, false, true, NULL); }
PyObject *tn_op_triu_out(tn_value *a) { return tri(a, false, false, a[2].u.obj); }

/* ---------- diag ---------- */

static PyObject *diag_impl(PyObject *self, int64_t k, PyObject *out) {
    tn_tensor *t = tn_tensor_of(self);
    if (t->ndim != 1 && t->ndim != 2) {
        /* the out= form says it without the "diag(): " (measured) */
        PyErr_Format(PyExc_RuntimeError, "%sSupports 1D or 2D tensors. Got %dD", out ? "" : "diag(): ", t->ndim);
        return NULL;
    }
    if (tn_out_dtype_exact(out, t->dtype) < 0) return NULL;   /* out= of self's dtype exactly (measured) */
    if (tn_require_castable("diag", t->dtype) < 0) return NULL;
    PyObject *res;
    if (t->ndim == 1) {
        int64_t n = t->sizes[0] + (k >= 0 ? k : -k), shape[2] = {n, n};
        res = tn_tensor_new_empty(2, shape, t->dtype, TN_DEVICE_CPU);
        if (!res) return NULL;
        tn_tensor *o = tn_tensor_of(res);
        if (n > 0) memset(tn_data(o), 0, (size_t)(n * n * tn_dtype_itemsize(t->dtype)));
        int64_t sz = t->sizes[0], st = n + 1, off = k >= 0 ? k : -k * n;
        if (sz > 0 && copy_window(res, 1, &sz, &st, off, self) < 0) { Py_DECREF(res); return NULL; }
    } else {
        int64_t n, off = t->offset;
        if (k >= 0) n = t->sizes[0] < t->sizes[1] - k ? t->sizes[0] : t->sizes[1] - k;
        else n = t->sizes[0] + k < t->sizes[1] ? t->sizes[0] + k : t->sizes[1];
        if (n < 0) n = 0;
        if (n > 0) off += k >= 0 ? k * t->strides[1] : -k * t->strides[0];
        int64_t st = t->strides[0] + t->strides[1];
        PyObject *v = geom_view(self, 1, &n, &st, off);
        if (!v) return NULL;
        res = tn_clone_contiguous(v);
        Py_DECREF(v);
        if (!res) return NULL;
    }
    return tn_out_deliver(res, out, "diag");
}

PyObject *tn_op_diag(tn_value *a) { return diag_impl(a[0].u.obj, a[1].u.i, NULL); }
PyObject *tn_op_diag_out(tn_value *a) { return diag_impl(a[0].u.obj, a[1].u.i, a[2].u.obj); }
