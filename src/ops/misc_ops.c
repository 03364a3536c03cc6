/* ops/misc_ops.c — upstream CompositeImplicitAutograd ops of the misc breadth family, each step an
 * op through the door in the order upstream's composite makes it (checked with a
 * TorchDispatchMode on upstream 2.13.0):
 *  - fft_fftshift / fft_ifftshift (SpectralOps.cpp): roll by size/2 (ifftshift: (size+1)/2) over
 *    the given dims, all dims by default;
 *  - take_along_dim (TensorAdvancedIndexing.cpp): with a dim, indices and input broadcast against
 *    each other except along dim (expand), indices wrapped by remainder(size(dim)), then gather;
 *    without, view(-1) of both and gather along 0;
 *  - trapezoid / trapz (.x and .dx) and cumulative_trapezoid (Integration.cpp): slices, sub, add,
 *    mul, sum / cumsum and the final scaling, zeros for an empty integration dim;
 *  - combinations (Itertools.cpp): meshgrid 'ij' of r copies, a mask from an arange meshgrid
 *    (lt, or le with replacement, multiplied in place into a full True), masked_select of each
 *    grid, stack along 1. */
#include "ops/misc_ops.h"

#include "autograd/autograd.h"
#include "ops/common.h"
#include "ops/pad.h"
#include "ops/views.h"
#include "tn_ops_gen.h"
#include <stdlib.h>

#include <stdio.h>
#include <string.h>

static PyObject *slice_ll(PyObject *x, int64_t dim, long long start, long long end, bool has_end) {
    return tn_at_slice_Tensor(x, dim, TN_I(start), has_end ? TN_I(end) : NULL, 1);
}

/* ---- fftshift / ifftshift ---- */
static PyObject *fftshift(tn_value *a, bool inverse) {
    PyObject *x = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(x);
    int64_t dims[TN_MAX_DIMS], shifts[TN_MAX_DIMS];
    int n = 0;
    if (tn_is_none(&a[1])) {
        for (int i = 0; i < t->ndim; i++) dims[n++] = i;
    } else {
        if (a[1].u.ints.n > TN_MAX_DIMS) return tn_not_implemented("fftshift over more than 16 dims");
        for (int i = 0; i < a[1].u.ints.n; i++)
            if (tn_wrap_dim(a[1].u.ints.v[i], t->ndim, &dims[n++]) < 0) return NULL;
    }
    for (int i = 0; i < n; i++) shifts[i] = inverse ? (t->sizes[dims[i]] + 1) / 2 : t->sizes[dims[i]] / 2;
    return tn_at_roll(x, TN_IN(shifts, n), TN_IN(dims, n));
}
PyObject *tn_misc_d_fftshift(tn_value *a) { return fftshift(a, false); }
PyObject *tn_misc_d_ifftshift(tn_value *a) { return fftshift(a, true); }

/* ---- take_along_dim ---- */
static int infer_size(int na, const int64_t *sa, int nb, const int64_t *sb, int *no, int64_t *out) {
    int n = na > nb ? na : nb;
    for (int i = n - 1; i >= 0; i--) {
        int ia = i - n + na, ib = i - n + nb;
        int64_t x = ia >= 0 ? sa[ia] : 1, y = ib >= 0 ? sb[ib] : 1;
        if (x != y && x != 1 && y != 1) {
            PyErr_Format(PyExc_RuntimeError, "The size of tensor a (%lld) must match the size of tensor b (%lld) at "
                         "non-singleton dimension %d", (long long)x, (long long)y, i);
            return -1;
        }
        out[i] = x == 1 ? y : x;
    }
    *no = n;
    return 0;
}

PyObject *tn_misc_d_take_along_dim(tn_value *a) {
    PyObject *self = a[0].u.obj, *idx = a[1].u.obj;
    const tn_tensor *t = tn_tensor_of(self), *it = tn_tensor_of(idx);
    if (tn_is_none(&a[2])) {
        PyObject *v1 = tn_at_view(self, TN_IS(-1));
        PyObject *v2 = v1 ? tn_at_view(idx, TN_IS(-1)) : NULL;
        PyObject *r = v2 ? tn_at_gather(v1, 0, v2, false) : NULL;
        Py_XDECREF(v1); Py_XDECREF(v2);
        return r;
    }
    if (t->ndim != it->ndim) {
        PyErr_Format(PyExc_RuntimeError, "torch.take_along_dim(): input and indices should have the same number of "
                     "dimensions, but got %d dimensions for input, and %d dimensions for indices", t->ndim, it->ndim);
        return NULL;
    }
    if (it->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "torch.take_along_dim(): dtype of indices should be Long but got %s",
                     tn_dtype_cpp_name(it->dtype));
        return NULL;
    }
    int64_t dim;
    if (tn_wrap_dim(a[2].u.i, t->ndim, &dim) < 0) return NULL;
    if (t->ndim == 0) {   /* sym_size(0) of a 0-dim tensor */
        PyErr_SetString(PyExc_IndexError, "Dimension specified as 0 but tensor has no dimensions");
        return NULL;
    }
    int64_t ss[TN_MAX_DIMS], is[TN_MAX_DIMS], b1[TN_MAX_DIMS], b2[TN_MAX_DIMS];
    int n1, n2;
    for (int i = 0; i < t->ndim; i++) { ss[i] = t->sizes[i]; is[i] = it->sizes[i]; }
    ss[dim] = it->sizes[dim];
    if (infer_size(t->ndim, ss, it->ndim, it->sizes, &n1, b1) < 0) return NULL;
    is[dim] = t->sizes[dim];
    if (infer_size(it->ndim, is, t->ndim, t->sizes, &n2, b2) < 0) return NULL;
    PyObject *ib = tn_at_broadcast_to(idx, TN_IN(b1, n1));
    PyObject *sb = ib ? tn_at_broadcast_to(self, TN_IN(b2, n2)) : NULL;
    PyObject *iw = sb ? tn_at_remainder_Scalar(ib, TN_SI((long long)t->sizes[dim])) : NULL;
    PyObject *r = iw ? tn_at_gather(sb, (long long)dim, iw, false) : NULL;
    Py_XDECREF(ib); Py_XDECREF(sb); Py_XDECREF(iw);
    return r;
}

/* ---- trapezoid / trapz / cumulative_trapezoid ---- */

/* y's size along dim with upstream's sym_size errors; dim wrapped into *w */
static int size_along(const tn_tensor *t, int64_t dim, int64_t *w) {
    if (tn_wrap_dim(dim, t->ndim, w) < 0) return -1;
    if (t->ndim == 0) {
        PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no dimensions", (long long)dim);
        return -1;
    }
    return 0;
}

/* zeros of y's shape without dim, y's dtype */
static PyObject *zeros_except(PyObject *y, int64_t dim) {
    const tn_tensor *t = tn_tensor_of(y);
    int64_t s[TN_MAX_DIMS];
    int n = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != dim) s[n++] = t->sizes[i];
    return tn_at_zeros(TN_IN(s, n), TN_DT(t->dtype), NULL, NULL, NULL);
}

/* x viewed so that its differences broadcast against y's (upstream's x_viewed), then
 * x[1:] - x[:-1] along dim */
static PyObject *x_diff(PyObject *y, PyObject *x, int64_t dim, const char *who) {
    const tn_tensor *yt = tn_tensor_of(y), *xt = tn_tensor_of(x);
    PyObject *xv;
    if (xt->ndim == 1) {
        if (xt->sizes[0] != yt->sizes[dim]) {
            PyErr_Format(PyExc_RuntimeError, "%s: There must be one `x` value for each sample point", who);
            return NULL;
        }
        int64_t s[TN_MAX_DIMS];
        for (int i = 0; i < yt->ndim; i++) s[i] = 1;
        s[dim] = xt->sizes[0];
        xv = tn_at_view(x, TN_IN(s, yt->ndim));
    } else if (xt->ndim < yt->ndim) {
        int64_t s[TN_MAX_DIMS];
        int pad = yt->ndim - xt->ndim;
        for (int i = 0; i < pad; i++) s[i] = 1;
        for (int i = 0; i < xt->ndim; i++) s[pad + i] = xt->sizes[i];
        xv = tn_at_view(x, TN_IN(s, yt->ndim));
    } else {
        xv = Py_NewRef(x);
    }
    if (!xv) return NULL;
    PyObject *xl = slice_ll(xv, dim, 0, -1, true);
    PyObject *xr = xl ? slice_ll(xv, dim, 1, 0, false) : NULL;
    PyObject *dx = xr ? tn_at_sub_Tensor(xr, xl, TN_SDEF) : NULL;
    Py_DECREF(xv); Py_XDECREF(xl); Py_XDECREF(xr);
    return dx;
}

/* y[1:] + y[:-1] along dim (the slices made in upstream's order: [:-1] first) */
static PyObject *y_pair_sum(PyObject *y, int64_t dim, bool left_first) {
    PyObject *yl = slice_ll(y, dim, 0, -1, true);
    PyObject *yr = yl ? slice_ll(y, dim, 1, 0, false) : NULL;
    PyObject *s = yr ? tn_at_add_Tensor(left_first ? yl : yr, left_first ? yr : yl, TN_SDEF) : NULL;
    Py_XDECREF(yl); Py_XDECREF(yr);
    return s;
}

static bool is_bool(PyObject *t) { return tn_tensor_of(t)->dtype == TN_DTYPE_BOOL; }

static PyObject *trapezoid_x(tn_value *a) {
    PyObject *y = a[0].u.obj, *x = a[1].u.obj;
    int64_t dim;
    if (size_along(tn_tensor_of(y), a[2].u.i, &dim) < 0) return NULL;
    if (tn_tensor_of(y)->sizes[dim] == 0) return zeros_except(y, dim);
    if (is_bool(y) || is_bool(x)) {
        PyErr_SetString(PyExc_RuntimeError, "trapezoid: received a bool input for `x` or `y`, but bool is not supported");
        return NULL;
    }
    PyObject *dx = x_diff(y, x, dim, "trapezoid");
    PyObject *ys = dx ? y_pair_sum(y, dim, false) : NULL;
    PyObject *m = ys ? tn_at_mul_Tensor(ys, dx) : NULL;
    PyObject *s = m ? tn_at_sum_dim_IntList(m, TN_IS((long long)dim), false, NULL) : NULL;
    PyObject *r = s ? tn_at_div_Scalar(s, TN_SD(2.0)) : NULL;
    Py_XDECREF(dx); Py_XDECREF(ys); Py_XDECREF(m); Py_XDECREF(s);
    return r;
}

static int real_dx(const tn_value *v, const char *who, double *out) {
    if (v->tag == TN_V_COMPLEX || v->tag == TN_V_BOOL) {
        PyErr_Format(PyExc_RuntimeError, "%s: Currently, we only support dx as a real number.", who);
        return -1;
    }
    *out = tn_value_as_double(v);
    return 0;
}

/* scalar_dx: trapezoid.dx's Scalar (real only); else trapz.dx's float */
static PyObject *trapezoid_dx(tn_value *a, bool scalar_dx) {
    PyObject *y = a[0].u.obj;
    int64_t dim, d = a[2].u.i;
    if (size_along(tn_tensor_of(y), d, &dim) < 0) return NULL;
    if (tn_tensor_of(y)->sizes[dim] == 0) return zeros_except(y, dim);
    if (is_bool(y)) {
        PyErr_SetString(PyExc_RuntimeError, "trapezoid: received a bool input for `y`, but bool is not supported");
        return NULL;
    }
    double dx;
    if (scalar_dx) {
        if (real_dx(&a[1], "trapezoid", &dx) < 0) return NULL;
    } else {
        dx = a[1].u.f;
    }
    PyObject *last = tn_at_select_int(y, (long long)d, -1LL);
    PyObject *first = last ? tn_at_select_int(y, (long long)d, 0LL) : NULL;
    PyObject *ends = first ? tn_at_add_Tensor(first, last, TN_SDEF) : NULL;
    PyObject *half = ends ? tn_at_mul_Scalar(ends, TN_SD(0.5)) : NULL;
    PyObject *s = half ? tn_at_sum_dim_IntList(y, TN_IS((long long)d), false, NULL) : NULL;
    PyObject *diff = s ? tn_at_sub_Tensor(s, half, TN_SDEF) : NULL;
    PyObject *r = diff ? tn_at_mul_Scalar(diff, TN_SD(dx)) : NULL;
    Py_XDECREF(last); Py_XDECREF(first); Py_XDECREF(ends); Py_XDECREF(half); Py_XDECREF(s); Py_XDECREF(diff);
    return r;
}

PyObject *tn_misc_d_trapezoid_x(tn_value *a) { return trapezoid_x(a); }
/* trapezoid.dx takes a Scalar dx, trapz.dx a float: the same composite */
PyObject *tn_misc_d_trapezoid_dx(tn_value *a) { return trapezoid_dx(a, true); }
PyObject *tn_misc_d_trapz_dx(tn_value *a) { return trapezoid_dx(a, false); }

PyObject *tn_misc_d_cumulative_trapezoid_x(tn_value *a) {
    PyObject *y = a[0].u.obj, *x = a[1].u.obj;
    int64_t dim;
    if (tn_wrap_dim(a[2].u.i, tn_tensor_of(y)->ndim, &dim) < 0) return NULL;
    if (is_bool(y) || is_bool(x)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "cumulative_trapezoid: received a bool input for `x` or `y`, but bool is not supported");
        return NULL;
    }
    if (size_along(tn_tensor_of(y), a[2].u.i, &dim) < 0) return NULL;   /* y.sym_size(dim) of a 0-dim y */
    PyObject *dx = x_diff(y, x, dim, "cumulative_trapezoid");
    PyObject *ys = dx ? y_pair_sum(y, dim, true) : NULL;
    PyObject *m = ys ? tn_at_mul_Tensor(ys, dx) : NULL;
    PyObject *c = m ? tn_at_cumsum(m, (long long)dim, NULL) : NULL;
    PyObject *r = c ? tn_at_div_Scalar(c, TN_SD(2.0)) : NULL;
    Py_XDECREF(dx); Py_XDECREF(ys); Py_XDECREF(m); Py_XDECREF(c);
    return r;
}

PyObject *tn_misc_d_cumulative_trapezoid_dx(tn_value *a) {
    PyObject *y = a[0].u.obj;
    int64_t d = a[2].u.i;
    if (is_bool(y)) {
        PyErr_SetString(PyExc_RuntimeError, "cumulative_trapezoid: received a bool input for `y`, but bool is not supported");
        return NULL;
    }
    double dx;
    if (real_dx(&a[1], "cumulative_trapezoid", &dx) < 0) return NULL;
    PyObject *ys = y_pair_sum(y, d, true);
    PyObject *m = ys ? tn_at_mul_Scalar(ys, TN_SD(dx / 2.)) : NULL;
    PyObject *r = m ? tn_at_cumsum(m, (long long)d, NULL) : NULL;
    Py_XDECREF(ys); Py_XDECREF(m);
    return r;
}

/* ---- unsafe_chunk (TensorShape.cpp): unsafe_split by ceil(size / chunks); an empty dim goes
 * through unsafe_split_with_sizes ---- */
PyObject *tn_misc_d_unsafe_chunk(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int64_t chunks = a[1].u.i, dim;
    if (t->ndim == 0) return PyErr_Format(PyExc_RuntimeError, "chunk expects at least a 1-dimensional tensor");
    if (chunks <= 0) return PyErr_Format(PyExc_RuntimeError, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
    if (tn_wrap_dim(a[2].u.i, t->ndim, &dim) < 0) return NULL;
    int64_t ds = t->sizes[dim], each = (ds + chunks - 1) / chunks;
    if (each == 0 && ds == 0) {
        PyObject *l = PyList_New(chunks);
        for (int64_t i = 0; l && i < chunks; i++) PyList_SetItem(l, i, PyLong_FromLong(0));
        PyObject *r = l ? tn_at_unsafe_split_with_sizes(self, TN_IPY(l), (long long)a[2].u.i) : NULL;
        Py_XDECREF(l);
        return r;
    }
    return tn_at_unsafe_split_Tensor(self, (long long)each, (long long)a[2].u.i);
}

/* ---- combinations ---- */
static PyObject *meshgrid_copies(PyObject *x, int64_t r) {
    PyObject *l = PyList_New(r);
    for (int64_t i = 0; l && i < r; i++) PyList_SetItem(l, i, Py_NewRef(x));
    PyObject *g = l ? tn_at_meshgrid_indexing(TN_TPY(l), "ij") : NULL;
    Py_XDECREF(l);
    PyObject *t = g ? PySequence_Tuple(g) : NULL;   /* a tuple, to read with PyTuple_GetItem */
    Py_XDECREF(g);
    return t;
}

PyObject *tn_misc_d_combinations(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int64_t r = a[1].u.i;
    bool repl = a[2].u.i != 0;
    if (t->ndim != 1) {
        char buf[256];
        tn_shape_str(buf, sizeof buf, t->ndim, t->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expect a 1D vector, but got shape %s", buf);
        return NULL;
    }
    if (r < 0) return PyErr_Format(PyExc_RuntimeError, "Expect a non-negative number, but got %lld", (long long)r);
    if (r == 0) return tn_at_empty_memory_format(TN_IS(0), TN_DT(t->dtype), NULL, NULL, NULL, NULL);
    if (r > TN_MAX_DIMS) return tn_not_implemented("combinations with r > 16");
    int64_t n = tn_numel(t);
    PyObject *grids = meshgrid_copies(self, r);
    PyObject *range = grids ? tn_at_arange(TN_SI(n), TN_DT(TN_DTYPE_I64), NULL, NULL, NULL) : NULL;
    PyObject *ig = range ? meshgrid_copies(range, r) : NULL;
    PyObject *mask = NULL, *res = NULL;
    if (ig) {
        const tn_tensor *g0 = tn_tensor_of(PyTuple_GetItem(ig, 0));
        mask = tn_at_full(TN_IN(g0->sizes, g0->ndim), TN_SB(true), TN_DT(TN_DTYPE_BOOL), NULL, NULL, NULL);
    }
    for (int64_t i = 0; mask && i < r - 1; i++) {
        PyObject *c = (repl ? tn_at_le_Tensor(PyTuple_GetItem(ig, i), PyTuple_GetItem(ig, i + 1)) : tn_at_lt_Tensor(PyTuple_GetItem(ig, i), PyTuple_GetItem(ig, i + 1)));
        PyObject *m2 = c ? tn_at_mul__Tensor(mask, c) : NULL;
        Py_XDECREF(c);
        if (!m2) Py_CLEAR(mask);
        Py_XDECREF(m2);
    }
    PyObject *sel = mask ? PyList_New(r) : NULL;
    for (int64_t i = 0; sel && i < r; i++) {
        PyObject *s = tn_at_masked_select(PyTuple_GetItem(grids, i), mask);
        if (!s) { Py_CLEAR(sel); break; }
        PyList_SetItem(sel, i, s);
    }
    res = sel ? tn_at_stack(TN_TPY(sel), 1) : NULL;
    Py_XDECREF(grids); Py_XDECREF(range); Py_XDECREF(ig); Py_XDECREF(mask); Py_XDECREF(sel);
    return res;
}

/* ================================================================ ops with kernels of their own
 * (src/ops/misc.def): the *_scatter family, unfold (+ unfold_copy, unfold_backward), aminmax,
 * nonzero_static, empty_permuted. They run below autograd; their nodes and formulas come from
 * derivatives.yaml (autograd/formulas.c, misc block). */

/* upstream's clone_preserve_strides: a tensor with internal overlap is clone()d (contiguous);
 * otherwise the whole storage is copied and the result has self's sizes, strides and offset */
static PyObject *clone_preserve_strides(PyObject *self) {
    const tn_tensor *t = tn_tensor_of(self);
    bool overlap = false;
    for (int i = 0; i < t->ndim; i++)
        if (t->strides[i] == 0 && t->sizes[i] > 1) overlap = true;
    if (overlap) {
        PyObject *c = tn_tensor_new_empty(t->ndim, t->sizes, t->dtype, t->storage->device);
        if (c && tn_copy_into(c, self) < 0) Py_CLEAR(c);
        return c;
    }
    tn_tensor r = *t;
    r.math_bits = 0;
    r.storage = tn_storage_new(t->storage->nbytes, t->storage->device);
    if (!r.storage) return PyErr_NoMemory();
    if (t->storage->nbytes) memcpy(r.storage->data, t->storage->data, t->storage->nbytes);
    return tn_tensor_wrap(&r);
}

static int check_same_size(PyObject *slice, PyObject *src) {
    const tn_tensor *a = tn_tensor_of(slice), *b = tn_tensor_of(src);
    bool same = a->ndim == b->ndim;
    for (int i = 0; same && i < a->ndim; i++) same = a->sizes[i] == b->sizes[i];
    if (same) return 0;
    char s1[256], s2[256];
    tn_shape_str(s1, sizeof s1, b->ndim, b->sizes);
    tn_shape_str(s2, sizeof s2, a->ndim, a->sizes);
    PyErr_Format(PyExc_RuntimeError, "expected src to have a size equal to the slice of self. src size = %s, slice size = %s", s1, s2);
    return -1;
}

/* output = clone_preserve_strides(self); view = <view of output>; view.copy_(src), whose iterator
 * refuses a view with internal overlap (as_strided_scatter's zero strides, an expanded self; not
 * on meta, where copy_ returns early; measured: docs/breadth_more2.md "third pass") */
static PyObject *scatter_into(PyObject *self, PyObject *src, PyObject *(*make_view)(PyObject *out, tn_value *a), tn_value *a) {
    PyObject *out = clone_preserve_strides(self);
    PyObject *v = out ? make_view(out, a) : NULL;
    int rc = v ? check_same_size(v, src) : -1;
    if (rc == 0 && !tn_door_on_meta()) rc = tn_check_overlap(v, 0, NULL);
    if (rc == 0) rc = tn_copy_into(v, src);
    Py_XDECREF(v);
    if (rc < 0) Py_CLEAR(out);
    return out;
}

static PyObject *v_select(PyObject *out, tn_value *a) {
    return tn_at_select_int(out, (long long)a[2].u.i, (long long)a[3].u.i);
}
static PyObject *v_slice(PyObject *out, tn_value *a) {
    PyObject *r = tn_at_slice_Tensor(out, a[2].u.i, tn_opt_int_of(&a[3]), tn_opt_int_of(&a[4]), a[5].u.i);
    return r;
}
static PyObject *v_diagonal(PyObject *out, tn_value *a) {
    return tn_at_diagonal(out, (long long)a[2].u.i, (long long)a[3].u.i, (long long)a[4].u.i);
}
static PyObject *v_as_strided(PyObject *out, tn_value *a) {
    const tn_tensor *t = tn_tensor_of(out);
    int n = a[2].u.ints.n;
    if (n != a[3].u.ints.n) {
        PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
        return NULL;
    }
    if (n > TN_MAX_DIMS) return tn_not_implemented("as_strided_scatter of more than 16 dims");
    int64_t off = tn_is_none(&a[4]) ? t->offset : a[4].u.i;
    for (int i = 0; i < n; i++) {
        if (a[2].u.ints.v[i] < 0) {
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld]",
                         (long long)a[2].u.ints.v[i], (long long)a[2].u.ints.v[i]);
            return NULL;
        }
        if (a[3].u.ints.v[i] < 0) {
            PyErr_SetString(PyExc_RuntimeError, "as_strided: Negative strides are not supported at the moment, got strides: ");
            return NULL;
        }
    }
    if (off < 0) {
        PyErr_Format(PyExc_RuntimeError, "Tensor: invalid storage offset %lld", (long long)off);
        return NULL;
    }
    if (tn_door_on_meta() ? tn_meta_cover_view(t->storage, n, a[2].u.ints.v, a[3].u.ints.v, off, t->dtype) < 0
                          : tn_check_in_bounds(n, a[2].u.ints.v, a[3].u.ints.v, off, t->dtype, t->storage->nbytes) < 0)
        return NULL;
    return tn_tensor_new_view(out, n, a[2].u.ints.v, a[3].u.ints.v, off);
}

PyObject *tn_op_select_scatter(tn_value *a) { return scatter_into(a[0].u.obj, a[1].u.obj, v_select, a); }
PyObject *tn_op_slice_scatter(tn_value *a) { return scatter_into(a[0].u.obj, a[1].u.obj, v_slice, a); }
PyObject *tn_op_diagonal_scatter(tn_value *a) { return scatter_into(a[0].u.obj, a[1].u.obj, v_diagonal, a); }
PyObject *tn_op_as_strided_scatter(tn_value *a) { return scatter_into(a[0].u.obj, a[1].u.obj, v_as_strided, a); }

/* ---- unfold: a view with the window as a new last dim ---- */
PyObject *tn_op_unfold(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int64_t d, size = a[2].u.i, step = a[3].u.i;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &d) < 0) return NULL;
    int64_t max_size = t->ndim == 0 ? 1 : t->sizes[d];
    if (size > max_size) {
        PyErr_Format(PyExc_RuntimeError, "maximum size for tensor at dimension %lld is %lld but size is %lld",
                     (long long)d, (long long)max_size, (long long)size);
        return NULL;
    }
    if (size < 0) return PyErr_Format(PyExc_RuntimeError, "size is %lld but must be >= 0", (long long)size);
    if (step <= 0) return PyErr_Format(PyExc_RuntimeError, "step is %lld but must be > 0", (long long)step);
    /* after upstream's checks (measured) */
    if (t->ndim >= TN_MAX_DIMS) return tn_not_implemented("unfold of a 32-dim tensor (the result would have 33)");
    int64_t sz[TN_MAX_DIMS], st[TN_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) { sz[i] = t->sizes[i]; st[i] = t->strides[i]; }
    sz[t->ndim] = size;
    st[t->ndim] = t->ndim == 0 ? 1 : t->strides[d];
    if (d < t->ndim) {
        sz[d] = (sz[d] - size) / step + 1;
        st[d] *= step;
    }
    return tn_tensor_new_view(self, t->ndim + 1, sz, st, t->offset);
}

PyObject *tn_op_unfold_copy(tn_value *a) {
    PyObject *v = tn_door_call(TN_ROW_unfold, a);
    if (!v) return NULL;
    const tn_tensor *t = tn_tensor_of(v);
    PyObject *c = tn_tensor_new_empty(t->ndim, t->sizes, t->dtype, TN_DEVICE_CPU);
    if (c && tn_copy_into(c, v) < 0) Py_CLEAR(c);
    Py_DECREF(v);
    return c;
}

/* unfold_backward(grad, input_sizes, dim, size, step): zeros of input_sizes; without overlap
 * (step >= size) the windows are copied in; with overlap each input position sums its windows'
 * gradients in ascending window order starting from 0, as upstream's CPU kernel: here one
 * in-place add per window offset k (size-1 down to 0) of grad[..., k] into the strided slice
 * k, k+step, ... — for every position the same sequence of adds. */
PyObject *tn_op_unfold_backward(tn_value *a) {
    PyObject *g = a[0].u.obj;
    const tn_tensor *gt = tn_tensor_of(g);
    int nd = a[1].u.ints.n;
    int64_t size = a[3].u.i, step = a[4].u.i, dim;
    /* upstream's first check, a ValueError here (unfold's is a RuntimeError; measured) */
    if (step <= 0) return PyErr_Format(PyExc_ValueError, "step is %lld but must be > 0", (long long)step);
    if (tn_wrap_dim(a[2].u.i, nd, &dim) < 0) return NULL;
    PyObject *gi = tn_at_zeros(TN_IN(a[1].u.ints.v, nd), TN_DT(gt->dtype), NULL, NULL, NULL);
    if (!gi) return NULL;
    if (step >= size) {
        PyObject *u = tn_at_unfold(gi, (long long)dim, (long long)size, (long long)step);
        int rc = u ? tn_copy_into(u, g) : -1;
        Py_XDECREF(u);
        if (rc < 0) Py_CLEAR(gi);
        return gi;
    }
    if (nd == 0) return gi;   /* a 0-dim input: size <= 1 <= step */
    int64_t nw = gt->ndim > dim ? gt->sizes[dim] : 0;
    for (int64_t k = size - 1; nw > 0 && k >= 0; k--) {
        PyObject *sl = slice_ll(gi, dim, k, k + (nw - 1) * step + 1, true);
        PyObject *s2 = sl ? tn_at_slice_Tensor(sl, (long long)dim, NULL, NULL, (long long)step) : NULL;
        PyObject *gk = s2 ? tn_at_select_int(g, -1LL, (long long)k) : NULL;
        PyObject *r = gk ? tn_at_add__Tensor(s2, gk, TN_SDEF) : NULL;
        Py_XDECREF(sl); Py_XDECREF(s2); Py_XDECREF(gk);
        if (!r) { Py_DECREF(gi); return NULL; }
        Py_DECREF(r);
    }
    return gi;
}

/* ---- aminmax: amin and amax over one dim or all ---- */
static PyObject *aminmax_impl(tn_value *a, PyObject *mnout, PyObject *mxout) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    bool kd = a[2].u.i != 0;
    int64_t d = 0;
    int nd = 0;   /* no dim: amin / amax over all (an empty dim list) */
    if (tn_is_none(&a[1])) {
        if (tn_numel(t) == 0) {
            PyErr_SetString(PyExc_RuntimeError, "aminmax(): cannot compute aminmax over an empty dimension as the "
                            "operation has no identity.");
            return NULL;
        }
    } else {
        if (tn_wrap_dim(a[1].u.i, t->ndim, &d) < 0) return NULL;
        if (t->ndim > 0 && t->sizes[d] == 0) {
            PyErr_Format(PyExc_IndexError, "aminmax(): Expected reduction dim %lld to have non-zero size.", (long long)d);
            return NULL;
        }
        nd = 1;
    }
    /* the structured op's set_output: min= then max= of self's dtype exactly, before the kernel's dispatch */
    if (tn_out_dtype_exact(mnout, t->dtype) < 0 || tn_out_dtype_exact(mxout, t->dtype) < 0) return NULL;
    if (tn_dtype_is_complex(t->dtype)) return tn_kernel_missing("aminmax_cpu", t->dtype);
    PyObject *mn = tn_at_amin(self, TN_IN(&d, nd), kd);
    PyObject *mx = mn ? tn_at_amax(self, TN_IN(&d, nd), kd) : NULL;
    if (!mx) { Py_XDECREF(mn); return NULL; }
    return tn_return_pair("aminmax", mn, mx);
}

PyObject *tn_op_aminmax(tn_value *a) { return aminmax_impl(a, NULL, NULL); }

PyObject *tn_op_aminmax_out(tn_value *a) {
    PyObject *r = aminmax_impl(a, a[3].u.obj, a[4].u.obj);
    if (!r) return NULL;
    PyObject *mn = PySequence_GetItem(r, 0), *mx = PySequence_GetItem(r, 1);
    Py_DECREF(r);
    if (!mn || !mx) { Py_XDECREF(mn); Py_XDECREF(mx); return NULL; }
    PyObject *o1 = tn_out_deliver(mn, a[3].u.obj, "aminmax");   /* steals mn */
    if (!o1) { Py_DECREF(mx); return NULL; }
    PyObject *o2 = tn_out_deliver(mx, a[4].u.obj, "aminmax");
    if (!o2) { Py_DECREF(o1); return NULL; }
    return tn_return_pair("aminmax_out", o1, o2);
}

/* ---- nonzero_static(self, size, fill_value): nonzero's first `size` rows, padded with fill ---- */
PyObject *tn_op_nonzero_static(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int64_t size = a[1].u.i, fill = a[2].u.i;
    if (size < 0) {
        PyErr_SetString(PyExc_RuntimeError, "nonzero_static: 'size' must be an non-negative integer");
        return NULL;
    }
    PyObject *nz = tn_at_nonzero(self);
    if (!nz) return NULL;
    int64_t shape[2] = {size, t->ndim};
    PyObject *r = tn_tensor_new_empty(2, shape, TN_DTYPE_I64, TN_DEVICE_CPU);
    if (r) {
        int64_t *d = (int64_t *)tn_data(tn_tensor_of(r));
        for (int64_t i = 0; i < size * t->ndim; i++) d[i] = fill;
        int64_t cnt = tn_tensor_of(nz)->sizes[0], take = cnt < size ? cnt : size;
        if (take > 0 && t->ndim > 0) {
            PyObject *src = slice_ll(nz, 0, 0, take, true), *dst = src ? slice_ll(r, 0, 0, take, true) : NULL;
            int rc = dst ? tn_copy_into(dst, src) : -1;
            Py_XDECREF(src); Py_XDECREF(dst);
            if (rc < 0) Py_CLEAR(r);
        }
    }
    Py_DECREF(nz);
    return r;
}

/* ---- empty_permuted(size, physical_layout): empty in the physical order, permuted back ---- */
PyObject *tn_op_empty_permuted(tn_value *a) {
    int n = a[0].u.ints.n;
    const int64_t *size = a[0].u.ints.v, *perm = a[1].u.ints.v;
    if (n != a[1].u.ints.n) {
        PyErr_Format(PyExc_RuntimeError, "Number of dimensions in size does not match the length of the physical_layout; "
                     "i.e. len(size) = %d is not equal to len(physical_layout) = %d", n, a[1].u.ints.n);
        return NULL;
    }
    if (n > TN_MAX_DIMS) return tn_not_implemented("empty_permuted of more than 16 dims");
    bool seen[TN_MAX_DIMS] = {false};
    int64_t phys[TN_MAX_DIMS], inv[TN_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        if (perm[i] < 0 || perm[i] >= n) {
            PyErr_Format(PyExc_RuntimeError, "Dimension out of range (expected to be between 0 and %d, but got %lld at "
                         "index %d).  NB: negative dims not currently supported; file an issue if you want it.",
                         n - 1, (long long)perm[i], i);
            return NULL;
        }
        if (seen[perm[i]]) { PyErr_SetString(PyExc_RuntimeError, "Duplicate dim not allowed"); return NULL; }
        seen[perm[i]] = true;
        phys[i] = size[perm[i]];
        inv[perm[i]] = i;
    }
    PyObject *dev = tn_value_to_python(&a[4]);   /* dtype, layout, device, pin_memory as given */
    PyObject *e = dev ? tn_at_empty_memory_format(TN_IN(phys, n), a[2].tag == TN_V_DTYPE ? TN_DT(a[2].u.dtype) : NULL,
                                                  a[3].tag == TN_V_LAYOUT ? a[3].u.obj : NULL, dev,
                                                  a[5].tag == TN_V_BOOL ? TN_B(a[5].u.i) : NULL, NULL) : NULL;
    PyObject *v = e ? tn_at_permute(e, TN_IN(inv, n)) : NULL;
    Py_XDECREF(dev); Py_XDECREF(e);
    if (!v) return NULL;
    /* upstream's result is no view: the permuted geometry on its own reference to the storage */
    tn_tensor t = *tn_tensor_of(v);
    tn_storage_incref(t.storage);
    PyObject *r = tn_tensor_wrap(&t);
    Py_DECREF(v);
    return r;
}

/* ---- unsafe_split / unsafe_split_with_sizes: split's pieces as tensors of their own (no view
 * tracking: upstream's results share the bytes but _is_view() is False, each with its own
 * version counter) ---- */
static PyObject *unview_all(PyObject *v) {
    if (!v) return NULL;
    PyObject *seq = PySequence_Tuple(v);
    Py_DECREF(v);
    if (!seq) return NULL;
    Py_ssize_t n = PyTuple_Size(seq);
    PyObject *l = PyTuple_New(n);
    for (Py_ssize_t i = 0; l && i < n; i++) {
        tn_tensor t = *tn_tensor_of(PyTuple_GetItem(seq, i));
        /* each piece with a version counter of its own, as upstream's unsafe_split
         * (set_version_counter(VariableVersion(0))): in-place ops on one piece (RNN.cpp's gates
         * sigmoid_ / tanh_) leave the others' saved values valid */
        t.storage = tn_storage_alias(t.storage);
        if (!t.storage) { PyErr_NoMemory(); Py_CLEAR(l); break; }
        PyObject *c = tn_tensor_wrap(&t);
        if (!c) { Py_CLEAR(l); break; }
        PyTuple_SetItem(l, i, c);
    }
    Py_DECREF(seq);
    return l;
}
PyObject *tn_op_unsafe_split_Tensor(tn_value *a) { return unview_all(tn_door_call(TN_ROW_split_Tensor, a)); }
PyObject *tn_op_unsafe_split_with_sizes(tn_value *a) { return unview_all(tn_door_call(TN_ROW_split_with_sizes, a)); }

/* ---- put_ / put: elements of self in its logical (row-major) order, written or accumulated
 * from source in index order (upstream's serial take/put kernel) ---- */
static int64_t logical_offset(const tn_tensor *t, int64_t lin) {
    int64_t off = t->offset;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (lin % t->sizes[d]) * t->strides[d];
        lin /= t->sizes[d];
    }
    return off;
}

static void acc_elem(tn_dtype dt, char *dst, const char *src) {
    switch (dt) {
    case TN_DTYPE_F64: *(double *)dst += *(const double *)src; break;
    case TN_DTYPE_F32: *(float *)dst = (float)((double)*(float *)dst + (double)*(const float *)src); break;
    case TN_DTYPE_C64: ((float *)dst)[0] += ((const float *)src)[0]; ((float *)dst)[1] += ((const float *)src)[1]; break;
    case TN_DTYPE_C128: ((double *)dst)[0] += ((const double *)src)[0]; ((double *)dst)[1] += ((const double *)src)[1]; break;
    case TN_DTYPE_BF16:
        *(uint16_t *)dst = tn_f32_to_bf16(tn_bf16_to_f32(*(uint16_t *)dst) + tn_bf16_to_f32(*(const uint16_t *)src)); break;
    case TN_DTYPE_F16:
        *(uint16_t *)dst = tn_f32_to_f16(tn_f16_to_f32(*(uint16_t *)dst) + tn_f16_to_f32(*(const uint16_t *)src)); break;
    case TN_DTYPE_I64: *(int64_t *)dst = (int64_t)((uint64_t)*(int64_t *)dst + (uint64_t)*(const int64_t *)src); break;
    case TN_DTYPE_I32: *(int32_t *)dst = (int32_t)((uint32_t)*(int32_t *)dst + (uint32_t)*(const int32_t *)src); break;
    case TN_DTYPE_I16: *(int16_t *)dst = (int16_t)(*(int16_t *)dst + *(const int16_t *)src); break;
    case TN_DTYPE_I8: *(int8_t *)dst = (int8_t)(*(int8_t *)dst + *(const int8_t *)src); break;
    case TN_DTYPE_U8: *(uint8_t *)dst = (uint8_t)(*(uint8_t *)dst + *(const uint8_t *)src); break;
    case TN_DTYPE_BOOL: *(uint8_t *)dst = (*(uint8_t *)dst + *(const uint8_t *)src) != 0; break;
    default: break;
    }
}

static bool put_dtype_ok(tn_dtype dt) {
    return dt == TN_DTYPE_F64 || dt == TN_DTYPE_F32 || dt == TN_DTYPE_C64 || dt == TN_DTYPE_C128 || dt == TN_DTYPE_BF16 ||
           dt == TN_DTYPE_F16 || dt == TN_DTYPE_I64 || dt == TN_DTYPE_I32 || dt == TN_DTYPE_I16 || dt == TN_DTYPE_I8 ||
           dt == TN_DTYPE_U8 || dt == TN_DTYPE_BOOL;
}

static PyObject *put_into(PyObject *self, PyObject *index, PyObject *source, bool acc) {
    tn_tensor *t = tn_tensor_of(self);
    const tn_tensor *it = tn_tensor_of(index), *st = tn_tensor_of(source);
    if (it->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "put_(): Expected a long tensor for index, but got %s", tn_dtype_cpp_name(it->dtype));
        return NULL;
    }
    if (t->dtype != st->dtype) {
        PyErr_Format(PyExc_RuntimeError, "put_(): self and source expected to have the same dtype, but got self.dtype = %s "
                     "and source.dtype = %s", tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(st->dtype));
        return NULL;
    }
    int64_t ni = tn_numel(it), numel = tn_numel(t);
    if (tn_numel(st) != ni) {
        PyErr_Format(PyExc_IndexError, "put_(): Expected source and index to have the same number of elements, but got "
                     "source.numel() = %lld, index.numel() = %lld", (long long)tn_numel(st), (long long)ni);
        return NULL;
    }
    if (numel == 0 && ni > 0) {
        PyErr_SetString(PyExc_IndexError, "put_(): Tried to put elements into an empty tensor");
        return NULL;
    }
    PyObject *ins[2] = {index, source};
    if (tn_check_no_overlap(self, 2, ins) < 0) return NULL;   /* upstream's assert_no_internal_overlap / _overlap */
    if (ni == 0) return Py_NewRef(self);
    if (!put_dtype_ok(t->dtype)) return tn_kernel_missing("take_put_cpu", t->dtype);
    PyObject *ic = tn_clone_contiguous(index), *sc = ic ? tn_clone_contiguous(source) : NULL;
    if (!sc) { Py_XDECREF(ic); return NULL; }
    const int64_t *ix = (const int64_t *)tn_data(tn_tensor_of(ic));
    const char *sd = tn_data(tn_tensor_of(sc));
    char *base = t->storage->data;
    int isz = tn_dtype_itemsize(t->dtype);
    PyObject *r = Py_NewRef(self);
    for (int64_t i = 0; i < ni; i++) {
        int64_t k = ix[i];
        if (k < -numel || k >= numel) {
            PyErr_Format(PyExc_IndexError, "out of range: tried to access index %lld on a tensor of %lld elements.",
                         (long long)k, (long long)numel);
            Py_CLEAR(r);
            break;
        }
        if (k < 0) k += numel;
        char *dst = base + logical_offset(t, k) * isz;
        if (acc) acc_elem(t->dtype, dst, sd + i * isz);
        else memcpy(dst, sd + i * isz, (size_t)isz);
    }
    t->storage->version++;
    Py_DECREF(ic); Py_DECREF(sc);
    return r;
}

PyObject *tn_op_put_(tn_value *a) { return put_into(a[0].u.obj, a[1].u.obj, a[2].u.obj, a[3].u.i != 0); }
PyObject *tn_op_put(tn_value *a) {
    PyObject *c = tn_at_clone(a[0].u.obj, NULL);
    if (!c) return NULL;
    PyObject *r = put_into(c, a[1].u.obj, a[2].u.obj, a[3].u.i != 0);
    Py_DECREF(c);
    return r;
}

/* ---- masked_scatter_ / masked_scatter / masked_scatter_backward ---- */
static PyObject *masked_scatter_into(PyObject *self, PyObject *mask, PyObject *source) {
    tn_tensor *t = tn_tensor_of(self);
    const tn_tensor *st = tn_tensor_of(source), *mt = tn_tensor_of(mask);
    if (t->dtype != st->dtype) {
        PyErr_Format(PyExc_RuntimeError, "masked_scatter: expected self and source to have same dtypes but got%s and %s",
                     tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(st->dtype));
        return NULL;
    }
    if (mt->dtype != TN_DTYPE_BOOL) {
        PyErr_Format(PyExc_RuntimeError, "masked_scatter_ only supports boolean masks, but got mask with dtype %s",
                     tn_dtype_cpp_name(mt->dtype));
        return NULL;
    }
    if (tn_dtype_barebones(t->dtype) || t->dtype == TN_DTYPE_C32) /* no kernel upstream for these */
        return tn_kernel_missing("masked_scatter", t->dtype);
    PyObject *me = tn_at_expand(mask, TN_IN(t->sizes, t->ndim), false);
    if (!me) return NULL;
    PyObject *mc = tn_clone_contiguous(me), *sc = mc ? tn_clone_contiguous(source) : NULL;
    Py_DECREF(me);
    if (!sc) { Py_XDECREF(mc); return NULL; }
    const uint8_t *m = (const uint8_t *)tn_data(tn_tensor_of(mc));
    const char *sd = tn_data(tn_tensor_of(sc));
    int64_t n = tn_numel(t), ns = tn_numel(st), cnt = 0;
    for (int64_t i = 0; i < n; i++) cnt += m[i] != 0;
    PyObject *r = NULL;
    if (cnt > ns) {
        PyErr_SetString(PyExc_RuntimeError, "Number of elements of source < number of ones in mask");
    } else {
        int isz = tn_dtype_itemsize(t->dtype);
        char *base = t->storage->data;
        for (int64_t i = 0, k = 0; i < n; i++)
            if (m[i]) { memcpy(base + logical_offset(t, i) * isz, sd + (k++) * isz, (size_t)isz); }
        if (n) t->storage->version++;
        r = Py_NewRef(self);
    }
    Py_DECREF(mc); Py_DECREF(sc);
    return r;
}

/* masked_scatter_: self's internal overlap is refused before anything else (measured) */
PyObject *tn_op_masked_scatter_(tn_value *a) {
    if (tn_check_overlap(a[0].u.obj, 0, NULL) < 0) return NULL;
    return masked_scatter_into(a[0].u.obj, a[1].u.obj, a[2].u.obj);
}

/* masked_scatter: self and mask broadcast together (expand_outplace), a contiguous clone of the
 * expanded self, then masked_scatter_ */
PyObject *tn_op_masked_scatter(tn_value *a) {
    const tn_tensor *t = tn_tensor_of(a[0].u.obj), *m = tn_tensor_of(a[1].u.obj);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (infer_size(m->ndim, m->sizes, t->ndim, t->sizes, &nd, shape) < 0) return NULL;
    PyObject *se = tn_at_expand(a[0].u.obj, TN_IN(shape, nd), false);
    PyObject *c = se ? tn_at_clone(se, NULL) : NULL;
    Py_XDECREF(se);
    if (!c) return NULL;
    if (!tn_is_contiguous(tn_tensor_of(c))) {
        PyObject *cc = tn_clone_contiguous(c);
        Py_SETREF(c, cc);
        if (!c) return NULL;
    }
    PyObject *r = masked_scatter_into(c, a[1].u.obj, a[2].u.obj);
    Py_DECREF(c);
    return r;
}

/* masked_scatter_backward(grad, mask, sizes): grad.masked_select(mask), zeros appended up to
 * prod(sizes), viewed as sizes */
PyObject *tn_op_masked_scatter_backward(tn_value *a) {
    uint64_t prod = 1;   /* upstream's product wraps on overflow; view() then refuses the shape */
    for (int i = 0; i < a[2].u.ints.n; i++) prod *= (uint64_t)a[2].u.ints.v[i];
    int64_t numel = (int64_t)prod;
    PyObject *sel = tn_at_masked_select(a[0].u.obj, a[1].u.obj);
    if (!sel) return NULL;
    int64_t have = tn_numel(tn_tensor_of(sel)), diff = numel > have ? numel - have : 0;
    if (diff > 0) {
        PyObject *z = tn_at_zeros(TN_IS(diff), TN_DT(tn_tensor_of(a[0].u.obj)->dtype), NULL, NULL, NULL);
        PyObject *c = z ? tn_at_cat(TN_TS(sel, z), 0) : NULL;
        Py_XDECREF(z);
        Py_SETREF(sel, c);
        if (!sel) return NULL;
    }
    PyObject *v = tn_at_view(sel, tn_ints_of(&a[2]));
    Py_DECREF(sel);
    if (!v) return NULL;
    /* upstream's result is no view (the op is its own kernel below autograd) */
    tn_tensor t = *tn_tensor_of(v);
    tn_storage_incref(t.storage);
    PyObject *r = tn_tensor_wrap(&t);
    Py_DECREF(v);
    return r;
}

/* ---- resize_as_(self, the_template, memory_format): resize_(template.sizes(), memory_format);
 * preserve_format takes the template's suggested format, as upstream's ---- */
PyObject *tn_op_resize_as_(tn_value *a) {
    const tn_tensor *tt = tn_tensor_of(a[1].u.obj);
    PyObject *mf = a[2].tag == TN_V_MEMFORMAT ? a[2].u.obj : NULL;
    if (mf == tn_py.memory_format_preserve) {
        int f = tn_suggest_format(tt);
        mf = f == 2 ? tn_py.memory_format_channels_last : f == 3 ? tn_py.memory_format_channels_last_3d
                                                                 : tn_py.memory_format_contiguous;
    }
    return tn_at_resize_(a[0].u.obj, TN_IN(tt->sizes, tt->ndim), mf);
}

/* ---- block_diag(tensors): zeros of the summed shape in the promoted dtype, each input (0-dim as
 * 1x1, 1-d of n as 1xn) copied into its diagonal block ---- */
PyObject *tn_op_block_diag(tn_value *a) {
    PyObject *seq = PySequence_Tuple(a[0].u.obj);
    if (!seq) return NULL;
    Py_ssize_t k = PyTuple_Size(seq);
    PyObject *res = NULL;
    if (k == 0) {
        int64_t s[2] = {1, 0};
        res = tn_tensor_new_empty(2, s, tn_py.default_dtype, TN_DEVICE_CPU);   /* at::empty({1, 0}) */
        Py_DECREF(seq);
        return res;
    }
    tn_dtype ct = tn_tensor_of(PyTuple_GetItem(seq, 0))->dtype;
    {
        tn_value small[64], *vals = k > 64 ? malloc((size_t)k * sizeof *vals) : small;   /* any count */
        if (!vals) { Py_DECREF(seq); return PyErr_NoMemory(); }
        for (Py_ssize_t i = 0; i < k; i++) { vals[i].tag = TN_V_TENSOR; vals[i].wrapped = false; vals[i].u.obj = PyTuple_GetItem(seq, i); }
        ct = tn_result_type((int)k, vals);
        if (vals != small) free(vals);
        if (ct == TN_DTYPE_UNDEFINED) { Py_DECREF(seq); return NULL; }
    }
    int64_t r0 = 0, r1 = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        const tn_tensor *t = tn_tensor_of(PyTuple_GetItem(seq, i));
        if (t->ndim > 2) {
            PyErr_Format(PyExc_RuntimeError, "torch.block_diag: Input tensors must have 2 or fewer dimensions. Input %zd "
                         "has %d dimensions", i, t->ndim);
            Py_DECREF(seq);
            return NULL;
        }
        r0 += t->ndim == 2 ? t->sizes[0] : 1;
        r1 += t->ndim == 2 ? t->sizes[1] : t->ndim == 1 ? t->sizes[0] : 1;
    }
    int64_t s[2] = {r0, r1};
    res = tn_tensor_new_empty(2, s, ct, TN_DEVICE_CPU);
    if (res) memset(tn_data(tn_tensor_of(res)), 0, (size_t)(r0 * r1) * (size_t)tn_dtype_itemsize(ct));
    int64_t c0 = 0, c1 = 0;
    for (Py_ssize_t i = 0; res && i < k; i++) {
        PyObject *x = PyTuple_GetItem(seq, i);
        const tn_tensor *t = tn_tensor_of(x);
        int64_t d0 = t->ndim == 2 ? t->sizes[0] : 1, d1 = t->ndim == 2 ? t->sizes[1] : t->ndim == 1 ? t->sizes[0] : 1;
        tn_tensor blk = *tn_tensor_of(res);
        blk.offset = c0 * r1 + c1;
        blk.sizes[0] = d0; blk.sizes[1] = d1;
        PyObject *v = tn_tensor_new_view(res, 2, blk.sizes, blk.strides, blk.offset);
        int rc = v ? tn_copy_into(v, x) : -1;   /* broadcasts a 0-/1-dim input over its 1 x n block */
        Py_XDECREF(v);
        if (rc < 0) Py_CLEAR(res);
        c0 += d0; c1 += d1;
    }
    Py_DECREF(seq);
    return res;
}

/* ---- renorm(self, p, dim, maxnorm) ----
 * upstream's structured kernel: the p-norm of each slice along `dim` (linalg_vector_norm over the
 * other dims, keepdim, in float for bf16 / f16), factor = norm > maxnorm ? maxnorm / (norm + 1e-7)
 * : 1 in the norm's type, converted to self's dtype, then self * factor. */
static PyObject *renorm_compute(tn_value *a, PyObject *out) {
    const tn_tensor *t = TN_T(a[0]);
    double p = tn_value_as_double(&a[1]), maxnorm = tn_value_as_double(&a[3]);
    /* upstream's meta function, in its order; set_output (out='s exact dtype) ends it and the
     * dim is wrapped by the kernel after */
    if (a[1].tag == TN_V_COMPLEX) {
        PyErr_SetString(PyExc_RuntimeError, "renorm: p must be real-valued");
        return NULL;
    }
    if (!(p > 0.0)) {
        PyErr_SetString(PyExc_RuntimeError, "renorm: non-positive-norm not supported");
        return NULL;
    }
    if (a[3].tag == TN_V_COMPLEX) {
        PyErr_SetString(PyExc_RuntimeError, "renorm: maxnorm must be real-valued");
        return NULL;
    }
    if (!(maxnorm >= 0.0)) {
        char buf[48];   /* PyErr_Format has no %g; the C++ stream's default 6 significant digits */
        snprintf(buf, sizeof buf, "%g", maxnorm);
        PyErr_Format(PyExc_RuntimeError, "renorm: expected maxnorm to be >= 0 but got %s", buf);
        return NULL;
    }
    if (t->ndim < 2) {
        PyErr_Format(PyExc_RuntimeError, "renorm: input needs at least 2 dimensions, got %d dimensions", t->ndim);
        return NULL;
    }
    if (tn_out_dtype_exact(out, t->dtype) < 0) return NULL;
    int64_t dim, dims[TN_MAX_DIMS];
    if (tn_wrap_dim(a[2].u.i, t->ndim, &dim) < 0) return NULL;
    /* the kernel's accumulate type (measured after the dim's wrap): none for complex32 and the
     * fnuz / e8m0 float8 types (upstream's internal assert), Float for float8_e4m3fn / e5m2,
     * whose factor then fails self * factor's promotion */
    if (t->dtype == TN_DTYPE_C32 || (tn_dtype_infos[t->dtype].kind == TN_KIND_FLOAT8 &&
                                     t->dtype != TN_DTYPE_F8E4M3FN && t->dtype != TN_DTYPE_F8E5M2)) {
        PyErr_Format(PyExc_RuntimeError, "Unrecognized ScalarType: %s", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    if (tn_dtype_infos[t->dtype].kind == TN_KIND_FLOAT8 && tn_promote_types_checked(t->dtype, TN_DTYPE_F32) == TN_DTYPE_UNDEFINED)
        return NULL;
    int nd = 0;
    for (int i = 0; i < t->ndim; i++)
        if (i != dim) dims[nd++] = i;
    bool lowp = t->dtype == TN_DTYPE_BF16 || t->dtype == TN_DTYPE_F16;
    PyObject *norm = tn_at_linalg_vector_norm(a[0].u.obj, TN_SD(p), TN_IN(dims, nd), true, lowp ? TN_DT(TN_DTYPE_F32) : NULL);
    if (!norm) return NULL;
    tn_dtype nt = tn_tensor_of(norm)->dtype;
    /* maxnorm, 1e-7 and 1 as the norm's type, as the kernel's static_casts */
    double mx = nt == TN_DTYPE_F32 ? (double)(float)maxnorm : maxnorm, eps = nt == TN_DTYPE_F32 ? (double)1e-7f : 1e-7;
    PyObject *gt = tn_at_gt_Scalar(norm, TN_SD(mx));
    PyObject *den = gt ? tn_at_add_Scalar(norm, TN_SD(eps), TN_SDEF) : NULL;
    PyObject *num = den ? tn_at_full_like(norm, TN_SD(mx), NULL, NULL, NULL, NULL, NULL) : NULL;
    PyObject *q = num ? tn_at_div_Tensor(num, den) : NULL;
    PyObject *one = q ? tn_at_ones_like(norm, NULL, NULL, NULL, NULL, NULL) : NULL;
    PyObject *f = one ? tn_at_where_self(gt, q, one) : NULL;
    PyObject *dt = f ? tn_py_from_dtype(t->dtype) : NULL;
    PyObject *fc = dt ? tn_at_to_dtype(f, dt, false, false, NULL) : NULL;
    PyObject *r = fc ? tn_at_mul_Tensor(a[0].u.obj, fc) : NULL;
    Py_DECREF(norm); Py_XDECREF(gt); Py_XDECREF(den); Py_XDECREF(num); Py_XDECREF(q); Py_XDECREF(one);
    Py_XDECREF(f); Py_XDECREF(dt); Py_XDECREF(fc);
    if (r && !tn_is_contiguous(tn_tensor_of(r))) Py_SETREF(r, tn_clone_contiguous(r));   /* a structured op's fresh output */
    return r;
}
PyObject *tn_op_renorm(tn_value *a) { return renorm_compute(a, NULL); }
/* out= / self written after renorm's checks: their internal overlap is refused (measured) */
PyObject *tn_op_renorm_out(tn_value *a) { return tn_out_deliver_overlap(renorm_compute(a, a[4].u.obj), a[4].u.obj, "renorm", false); }
PyObject *tn_op_renorm_(tn_value *a) {
    PyObject *r = renorm_compute(a, NULL);
    if (!r) return NULL;
    int rc = tn_check_overlap(a[0].u.obj, 0, NULL);
    if (rc == 0) rc = tn_copy_into(a[0].u.obj, r);
    Py_DECREF(r);
    return rc < 0 ? NULL : Py_NewRef(a[0].u.obj);
}

/* vander(x, N=None, increasing=False): upstream's composite. A (len(x), N) tensor of x's dtype
 * promoted with int64 (integral and bool inputs give int64, as cumprod would), filled with 1, its
 * columns 1.. the running product of x (x copied in, then cumprod along the row), flipped unless
 * increasing. */
PyObject *tn_misc_d_vander(tn_value *a) {
    PyObject *x = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(x);
    if (t->ndim != 1) {
        PyErr_SetString(PyExc_RuntimeError, "x must be a one-dimensional tensor.");
        return NULL;
    }
    int64_t len = t->sizes[0], n = a[1].tag == TN_V_NONE ? len : a[1].u.i;
    if (n < 0) {
        PyErr_SetString(PyExc_RuntimeError, "N must be non-negative.");
        return NULL;
    }
    tn_dtype dt = tn_promote_types_checked(t->dtype, TN_DTYPE_I64);
    if (dt == TN_DTYPE_UNDEFINED) return NULL;
    PyObject *dev = t->storage->device == TN_DEVICE_META ? tn_py.device_meta : tn_py.device_cpu;
    PyObject *r = tn_at_empty_memory_format(TN_IS(len, n), TN_DT(dt), NULL, dev, NULL, NULL);
    if (r && n > 0) {
        PyObject *f = tn_at_fill__Scalar(r, TN_SI(1));
        if (!f) Py_CLEAR(r);
        Py_XDECREF(f);
    }
    if (r && n > 1) {
        const int64_t one = 1, end = INT64_MAX;
        PyObject *s = tn_at_slice_Tensor(r, 1, &one, &end, 1), *u = s ? tn_at_unsqueeze(x, 1) : NULL;
        PyObject *c1 = u ? tn_at_copy_(s, u, false) : NULL;
        PyObject *s2 = c1 ? tn_at_slice_Tensor(r, 1, &one, &end, 1) : NULL;
        PyObject *s3 = s2 ? tn_at_slice_Tensor(r, 1, &one, &end, 1) : NULL;
        PyObject *p = s3 ? tn_at_cumprod(s3, 1, NULL) : NULL;
        PyObject *c2 = p ? tn_at_copy_(s2, p, false) : NULL;
        if (!c2) Py_CLEAR(r);
        Py_XDECREF(s); Py_XDECREF(u); Py_XDECREF(c1); Py_XDECREF(s2); Py_XDECREF(s3); Py_XDECREF(p); Py_XDECREF(c2);
    }
    if (!r || a[2].u.i) return r;
    PyObject *fl = tn_at_flip(r, TN_IS(1));
    Py_DECREF(r);
    return fl;
}
