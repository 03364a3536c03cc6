/* ops/views.c — view operators: new geometry over the same storage (view, reshape, permute,
 * transpose, expand, squeeze, unsqueeze, narrow, select, slice, as_strided, diagonal, split,
 * unbind, ...), plus the in-place geometry changes (t_, transpose_, squeeze_, unsqueeze_) and
 * the identity-like ops (contiguous, detach, alias, lift_fresh).
 *
 * Every view shares storage with its input and records the root base (tn_tensor_new_view);
 * strides, storage offsets and error wording follow upstream 2.13.0 as measured. Geometry
 * helpers used by the indexing and joining families live here too (ops/views.h). */
#include <string.h>
#include "ops/views.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include <stdlib.h>

/* ---------- helpers ---------- */


int tn_infer_size(int n, const int64_t *shape, int64_t numel, int64_t *out) {
    int infer = -1;
    int64_t prod = 1;
    bool overflow = false, zero = false;
    for (int i = 0; i < n; i++) {
        if (shape[i] == -1) {
            if (infer >= 0) { PyErr_SetString(PyExc_RuntimeError, "only one dimension can be inferred"); return -1; }
            infer = i;
        } else if (shape[i] < 0) {
            PyErr_Format(PyExc_RuntimeError, "invalid shape dimension %lld", (long long)shape[i]);
            return -1;
        } else if (shape[i] == 0) {
            zero = true;
        } else if (__builtin_mul_overflow(prod, shape[i], &prod)) {
            overflow = true;
        }
        out[i] = shape[i];
    }
    /* a product that overflows int64 matches no tensor's numel, unless a 0 makes it 0 */
    if (zero) prod = 0;
    else if (overflow) prod = -1;
    char s[512];
    if (infer >= 0) {
        /* upstream's infer_size: the ambiguity is refused only when the numel is 0 too; a 0
         * product for a non-empty tensor is an invalid shape (measured) */
        if (prod == 0 && numel == 0) {
            tn_shape_str(s, sizeof s, n, shape);
            PyErr_Format(PyExc_RuntimeError,
                         "cannot reshape tensor of 0 elements into shape %s because the unspecified dimension size -1 can be any value and is ambiguous", s);
            return -1;
        }
        if (prod > 0 && numel % prod == 0) { out[infer] = numel / prod; return 0; }
    } else if (prod == numel) {
        return 0;
    }
    tn_shape_str(s, sizeof s, n, shape);
    PyErr_Format(PyExc_RuntimeError, "shape '%s' is invalid for input of size %lld", s, (long long)numel);
    return -1;
}

bool tn_view_strides(const tn_tensor *t, int nd, const int64_t *sizes, int64_t *strides) {
    int64_t numel = tn_numel(t);
    if (t->ndim == 0) { /* a scalar: every new dim has size 1 */
        for (int i = 0; i < nd; i++) strides[i] = 1;
        return true;
    }
    if (numel == 0) {
        if (nd == t->ndim && memcmp(sizes, t->sizes, (size_t)nd * sizeof *sizes) == 0) {
            memcpy(strides, t->strides, (size_t)nd * sizeof *strides);
            return true;
        }
        tn_contiguous_strides(nd, sizes, strides);
        return true;
    }
    int view_d = nd - 1;
    int64_t chunk = t->strides[t->ndim - 1], tnumel = 1, vnumel = 1;
    for (int td = t->ndim - 1; td >= 0; td--) {
        tnumel *= t->sizes[td];
        if (td == 0 || (t->sizes[td - 1] != 1 && t->strides[td - 1] != tnumel * chunk)) {
            while (view_d >= 0 && (vnumel < tnumel || sizes[view_d] == 1)) {
                strides[view_d] = vnumel * chunk;
                vnumel *= sizes[view_d];
                view_d--;
            }
            if (vnumel != tnumel) return false;
            if (td > 0) { chunk = t->strides[td - 1]; tnumel = 1; vnumel = 1; }
        }
    }
    return view_d == -1;
}

PyObject *tn_clone_contiguous(PyObject *x) {
    tn_tensor *t = tn_tensor_of(x);
    PyObject *r = tn_tensor_new_empty(t->ndim, t->sizes, t->dtype, t->storage->device);
    if (!r) return NULL;
    if (tn_copy_into(r, x) < 0) { Py_DECREF(r); return NULL; }
    return r;
}

static PyObject *view_sizes(PyObject *self, int n, const int64_t *shape, bool allow_copy) {
    tn_tensor *t = tn_tensor_of(self);
    int64_t sizes[TN_MAX_DIMS], strides[TN_MAX_DIMS];
    if (n > TN_MAX_DIMS) {
        /* upstream's shape check (infer_size: "shape '[...]' is invalid for input of size 6")
         * comes first; a shape it accepts is past our dimension limit */
        int64_t *all = malloc((size_t)n * sizeof *all);
        if (!all) return PyErr_NoMemory();
        int bad = tn_infer_size(n, shape, tn_numel(t), all);
        free(all);
        return bad < 0 ? NULL : tn_not_implemented("tensors of more than " TN_MAX_DIMS_S " dimensions");
    }
    if (tn_infer_size(n, shape, tn_numel(t), sizes) < 0) return NULL;
    if (tn_view_strides(t, n, sizes, strides)) return tn_tensor_new_view(self, n, sizes, strides, t->offset);
    if (!allow_copy) {
        PyErr_SetString(PyExc_RuntimeError,
                        "view size is not compatible with input tensor's size and stride (at least one dimension spans "
                        "across two contiguous subspaces). Use .reshape(...) instead.");
        return NULL;
    }
    PyObject *c = tn_clone_contiguous(self);
    if (!c) return NULL;
    tn_tensor *ct = tn_tensor_of(c);
    ct->ndim = n;
    memcpy(ct->sizes, sizes, (size_t)n * sizeof *sizes);
    tn_contiguous_strides(n, sizes, ct->strides);
    return c;
}

PyObject *tn_reshape(PyObject *self, int n, const int64_t *shape) { return view_sizes(self, n, shape, true); }

static PyObject *view_same(PyObject *self) {
    tn_tensor *t = tn_tensor_of(self);
    return tn_tensor_new_view(self, t->ndim, t->sizes, t->strides, t->offset);
}

/* ---------- view / reshape ---------- */

PyObject *tn_op_view(tn_value *a) { return view_sizes(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v, false); }

PyObject *tn_op_view_dtype(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    tn_dtype to = a[1].u.dtype, from = t->dtype;
    int si = tn_dtype_itemsize(from), so = tn_dtype_itemsize(to);
    tn_tensor r = *t;
    r.dtype = to;
    if (si != so) {
        const char *fn = tn_dtype_cpp_name(from), *tn = tn_dtype_cpp_name(to);
        if (t->ndim == 0) {
            PyErr_Format(PyExc_RuntimeError, "self.dim() cannot be 0 to view %s as %s (different element sizes)", fn, tn);
            return NULL;
        }
        int last = t->ndim - 1;
        if (t->strides[last] != 1) {
            PyErr_Format(PyExc_RuntimeError, "self.stride(-1) must be 1 to view %s as %s (different element sizes), but got %lld",
                         fn, tn, (long long)t->strides[last]);
            return NULL;
        }
        if (so > si) {
            int64_t ratio = so / si;
            if (t->sizes[last] % ratio) {
                PyErr_Format(PyExc_RuntimeError, "self.size(-1) must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                             (long long)ratio, fn, tn, (long long)t->sizes[last]);
                return NULL;
            }
            if (t->offset % ratio) {
                PyErr_Format(PyExc_RuntimeError, "self.storage_offset() must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                             (long long)ratio, fn, tn, (long long)t->offset);
                return NULL;
            }
            for (int i = 0; i < last; i++)
                if (t->strides[i] % ratio) {
                    PyErr_Format(PyExc_RuntimeError, "self.stride(%d) must be divisible by %lld to view %s as %s (different element sizes), but got %lld",
                                 i, (long long)ratio, fn, tn, (long long)t->strides[i]);
                    return NULL;
                }
            r.sizes[last] /= ratio;
            for (int i = 0; i < last; i++) r.strides[i] /= ratio;
            r.offset /= ratio;
        } else {
            int64_t ratio = si / so;
            r.sizes[last] *= ratio;
            for (int i = 0; i < last; i++) r.strides[i] *= ratio;
            r.offset *= ratio;
        }
    }
    tn_storage_incref(r.storage);
    return tn_tensor_wrap(&r); /* upstream does not record a view base here (measured) */
}

PyObject *tn_op__unsafe_view(tn_value *a) {
    PyObject *v = view_sizes(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v, true);
    if (v) Py_CLEAR(((tn_tensor_obj *)v)->base);
    return v;
}

PyObject *tn_op_reshape(tn_value *a) { return tn_reshape(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v); }

PyObject *tn_op_reshape_as(tn_value *a) {
    tn_tensor *o = TN_T(a[1]);
    return tn_reshape(a[0].u.obj, o->ndim, o->sizes);
}

PyObject *tn_op_view_as(tn_value *a) {
    tn_tensor *o = TN_T(a[1]);
    return view_sizes(a[0].u.obj, o->ndim, o->sizes, false);
}

PyObject *tn_op__reshape_alias(tn_value *a) {
    if (a[1].u.ints.n != a[2].u.ints.n) {
        PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
        return NULL;
    }
    return tn_tensor_new_view(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v, a[2].u.ints.v, TN_T(a[0])->offset);
}

/* as_strided's geometry (size, stride, storage_offset=None: self's) checked against self's
 * storage (not on meta, but for the in-place as_strided_: tn_meta_cover_view); the offset it
 * lands on in *off */
static int as_strided_check(tn_value *a, int64_t *off_out, bool inplace) {
    tn_tensor *t = TN_T(a[0]);
    int n = a[1].u.ints.n;
    const int64_t *sz = a[1].u.ints.v, *st = a[2].u.ints.v;
    int64_t off = a[3].tag == TN_V_NONE ? t->offset : a[3].u.i;
    if (a[2].u.ints.n != n) {
        PyErr_Format(PyExc_RuntimeError, "mismatch in length of strides and shape");
        return -1;
    }
    char b1[256], b2[256];
    for (int i = 0; i < n; i++)
        if (st[i] < 0) {
            tn_shape_str(b1, sizeof b1, n, st);
            PyErr_Format(PyExc_RuntimeError, "as_strided: Negative strides are not supported at the moment, got strides: %s", b1);
            return -1;
        }
    if (off < 0) {
        PyErr_Format(PyExc_RuntimeError, "Tensor: invalid storage offset %lld", (long long)off);
        return -1;
    }
    for (int i = 0; i < n; i++) {
        if (sz[i] < 0) {
            PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld", (long long)sz[i]);
            return -1;
        }
    }
    if (tn_door_on_meta() && !inplace) {
        if (tn_meta_cover_view(t->storage, n, sz, st, off, t->dtype) < 0) return -1;
        *off_out = off;
        return 0;
    }
    int isz = tn_dtype_itemsize(t->dtype);
    uint64_t need;
    if (!tn_extent_bytes(n, sz, st, off, isz, &need)) {
        PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
        return -1;
    }
    if (need > t->storage->nbytes) {
        tn_shape_str(b1, sizeof b1, n, sz);
        tn_shape_str(b2, sizeof b2, n, st);
        PyErr_Format(PyExc_RuntimeError,
                     "setStorage: sizes %s, strides %s, storage offset %lld, and itemsize %d requiring a storage size of %llu "
                     "are out of bounds for storage of size %zu", b1, b2, (long long)off, isz, (unsigned long long)need,
                     t->storage->nbytes);
        return -1;
    }
    *off_out = off;
    return 0;
}

PyObject *tn_op_as_strided(tn_value *a) {
    int64_t off;
    if (as_strided_check(a, &off, false) < 0) return NULL;
    return tn_tensor_new_view(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v, a[2].u.ints.v, off);
}

PyObject *tn_op_as_strided_(tn_value *a) {
    int64_t off;
    if (as_strided_check(a, &off, true) < 0) return NULL;
    tn_tensor *t = TN_T(a[0]);
    if (a[1].u.ints.n > TN_MAX_DIMS) {
        PyErr_Format(PyExc_RuntimeError, "as_strided_: at most %d dimensions are supported", TN_MAX_DIMS);
        return NULL;
    }
    t->ndim = a[1].u.ints.n;
    memcpy(t->sizes, a[1].u.ints.v, sizeof(int64_t) * (size_t)t->ndim);
    memcpy(t->strides, a[2].u.ints.v, sizeof(int64_t) * (size_t)t->ndim);
    t->offset = off;
    return Py_NewRef(a[0].u.obj);
}

/* ---------- permutations ---------- */

static PyObject *permuted(PyObject *self, const int64_t *perm) {
    tn_tensor *t = tn_tensor_of(self);
    int64_t sz[TN_MAX_DIMS], st[TN_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) { sz[i] = t->sizes[perm[i]]; st[i] = t->strides[perm[i]]; }
    return tn_tensor_new_view(self, t->ndim, sz, st, t->offset);
}

PyObject *tn_op_permute(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    int n = a[1].u.ints.n;
    if (n != t->ndim) {
        PyErr_Format(PyExc_RuntimeError,
                     "permute(sparse_coo): number of dimensions in the tensor input does not match the length of the desired "
                     "ordering of dimensions i.e. input.dim() = %d is not equal to len(dims) = %d", t->ndim, n);
        return NULL;
    }
    int64_t perm[TN_MAX_DIMS];
    bool seen[TN_MAX_DIMS] = {0};
    for (int i = 0; i < n; i++) {
        if (tn_wrap_dim(a[1].u.ints.v[i], t->ndim, &perm[i]) < 0) return NULL;
        if (seen[perm[i]]) { PyErr_SetString(PyExc_RuntimeError, "permute(): duplicate dims are not allowed."); return NULL; }
        seen[perm[i]] = true;
    }
    return permuted(a[0].u.obj, perm);
}

static int transposed_geometry(tn_tensor *t, int64_t d0, int64_t d1, tn_tensor *r) {
    int64_t a, b;
    if (tn_wrap_dim(d0, t->ndim, &a) < 0 || tn_wrap_dim(d1, t->ndim, &b) < 0) return -1;
    *r = *t;
    if (t->ndim == 0) return 0;
    r->sizes[a] = t->sizes[b]; r->sizes[b] = t->sizes[a];
    r->strides[a] = t->strides[b]; r->strides[b] = t->strides[a];
    return 0;
}

static PyObject *transpose_view(PyObject *self, int64_t d0, int64_t d1) {
    tn_tensor r;
    if (transposed_geometry(tn_tensor_of(self), d0, d1, &r) < 0) return NULL;
    return tn_tensor_new_view(self, r.ndim, r.sizes, r.strides, r.offset);
}

PyObject *tn_op_transpose_int(tn_value *a) { return transpose_view(a[0].u.obj, a[1].u.i, a[2].u.i); }
PyObject *tn_op_swapaxes(tn_value *a) { return transpose_view(a[0].u.obj, a[1].u.i, a[2].u.i); }
PyObject *tn_op_swapdims(tn_value *a) { return transpose_view(a[0].u.obj, a[1].u.i, a[2].u.i); }

PyObject *tn_op_transpose_(tn_value *a) {
    tn_tensor r;
    if (transposed_geometry(TN_T(a[0]), a[1].u.i, a[2].u.i, &r) < 0) return NULL;
    *TN_T(a[0]) = r;
    return Py_NewRef(a[0].u.obj);
}

PyObject *tn_op_swapaxes_(tn_value *a) { return tn_op_transpose_(a); }
PyObject *tn_op_swapdims_(tn_value *a) { return tn_op_transpose_(a); }

static int check_t(tn_tensor *t, const char *name) {
    if (t->ndim > 2) {
        PyErr_Format(PyExc_RuntimeError, "%s() expects a tensor with <= 2 dimensions, but self is %dD", name, t->ndim);
        return -1;
    }
    return 0;
}

PyObject *tn_op_t(tn_value *a) {
    if (check_t(TN_T(a[0]), "t") < 0) return NULL;
    return transpose_view(a[0].u.obj, 0, TN_T(a[0])->ndim < 2 ? 0 : 1);
}

PyObject *tn_op_t_(tn_value *a) {
    if (check_t(TN_T(a[0]), "t_") < 0) return NULL;
    tn_tensor r;
    if (transposed_geometry(TN_T(a[0]), 0, TN_T(a[0])->ndim < 2 ? 0 : 1, &r) < 0) return NULL;
    *TN_T(a[0]) = r;
    return Py_NewRef(a[0].u.obj);
}

PyObject *tn_op_numpy_T(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    static bool warned = false;
    if (t->ndim != 2 && t->ndim != 0 && !warned) {
        warned = true;
        if (PyErr_WarnEx(PyExc_UserWarning,
                "The use of `x.T` on tensors of dimension other than 2 to reverse their shape is deprecated and it will "
                "throw an error in a future release. Consider `x.mT` to transpose batches of matrices or "
                "`x.permute(*torch.arange(x.ndim - 1, -1, -1))` to reverse the dimensions of a tensor.", 1) < 0)
            return NULL;
    }
    int64_t perm[TN_MAX_DIMS];
    for (int i = 0; i < t->ndim; i++) perm[i] = t->ndim - 1 - i;
    return permuted(a[0].u.obj, perm);
}

static PyObject *matrix_t(tn_value *a, const char *what, bool conj) {
    tn_tensor *t = TN_T(a[0]);
    if (t->ndim == 0)   /* upstream: a 0-dim self itself, or its conj() (measured, test_fuzz_refuse3.py) */
        return conj && tn_dtype_is_complex(t->dtype) ? tn_at__conj(a[0].u.obj) : Py_NewRef(a[0].u.obj);
    if (t->ndim < 2) {
        PyErr_Format(PyExc_RuntimeError, "tensor.%s is only supported on matrices or batches of matrices. Got %d-D tensor.",
                     what, t->ndim);
        return NULL;
    }
    PyObject *v = transpose_view(a[0].u.obj, -2, -1);
    if (v && conj && tn_dtype_is_complex(t->dtype)) Py_SETREF(v, tn_at__conj(v));   /* mT().conj() */
    return v;
}

PyObject *tn_op_mT(tn_value *a) { return matrix_t(a, "mT", false); }
PyObject *tn_op_mH(tn_value *a) { return matrix_t(a, "mH", true); }
PyObject *tn_op_adjoint(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    if (t->ndim == 1) {
        PyErr_Format(PyExc_RuntimeError, "tensor.adjoint() is only supported on matrices or batches of matrices. Got %d-D tensor.", t->ndim);
        return NULL;
    }
    return matrix_t(a, "adjoint()", true);
}
PyObject *tn_op_matrix_H(tn_value *a) {
    tn_tensor *t = TN_T(a[0]);
    if (t->ndim != 2 && t->ndim != 0) {
        PyErr_Format(PyExc_RuntimeError, "tensor.H is only supported on matrices (2-D tensors). Got %d-D tensor.%s", t->ndim,
                     t->ndim > 2 ? " For batches of matrices, consider using tensor.mH" : "");
        return NULL;
    }
    return matrix_t(a, "H", true);
}

static PyObject *movedim(PyObject *self, int n, const int64_t *src, const int64_t *dst) {
    tn_tensor *t = tn_tensor_of(self);
    char b1[256];
    int64_t s[TN_MAX_DIMS], d[TN_MAX_DIMS];
    for (int i = 0; i < n; i++) {
        if (tn_wrap_dim(src[i], t->ndim, &s[i]) < 0 || tn_wrap_dim(dst[i], t->ndim, &d[i]) < 0) return NULL;
    }
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++) {
            if (s[i] == s[j]) {
                tn_shape_str(b1, sizeof b1, n, src);
                PyErr_Format(PyExc_RuntimeError, "movedim: repeated dim in `source` (%s)", b1);
                return NULL;
            }
            if (d[i] == d[j]) {
                tn_shape_str(b1, sizeof b1, n, dst);
                PyErr_Format(PyExc_RuntimeError, "movedim: repeated dim in `destination` (%s)", b1);
                return NULL;
            }
        }
    int nd = t->ndim;
    int64_t perm[TN_MAX_DIMS];
    bool used_src[TN_MAX_DIMS] = {0}, used_dst[TN_MAX_DIMS] = {0};
    for (int i = 0; i < nd; i++) perm[i] = -1;
    for (int i = 0; i < n; i++) { perm[d[i]] = s[i]; used_src[s[i]] = true; used_dst[d[i]] = true; }
    int next = 0;
    for (int i = 0; i < nd; i++) {
        if (used_dst[i]) continue;
        while (used_src[next]) next++;
        perm[i] = next++;
    }
    return permuted(self, perm);
}

static PyObject *movedim_lists(tn_value *a) {
    int n = a[1].u.ints.n;
    if (n != a[2].u.ints.n) {
        char b1[256], b2[256];
        tn_shape_str(b1, sizeof b1, n, a[1].u.ints.v);
        tn_shape_str(b2, sizeof b2, a[2].u.ints.n, a[2].u.ints.v);
        PyErr_Format(PyExc_RuntimeError,
                     "movedim: Invalid source or destination dims: source (%s dims) should contain the same number of dims as destination (%s dims)",
                     b1, b2);
        return NULL;
    }
    return movedim(a[0].u.obj, n, a[1].u.ints.v, a[2].u.ints.v);
}

PyObject *tn_op_movedim_intlist(tn_value *a) { return movedim_lists(a); }
PyObject *tn_op_moveaxis_intlist(tn_value *a) { return movedim_lists(a); }
PyObject *tn_op_movedim_int(tn_value *a) { return movedim(a[0].u.obj, 1, &a[1].u.i, &a[2].u.i); }
PyObject *tn_op_moveaxis_int(tn_value *a) { return movedim(a[0].u.obj, 1, &a[1].u.i, &a[2].u.i); }

/* ---------- expand ---------- */

static PyObject *expand_to(PyObject *self, int n, const int64_t *want) {
    tn_tensor *t = tn_tensor_of(self);
    char b1[256], b2[256];
    if (n < t->ndim) {
        tn_shape_str(b1, sizeof b1, t->ndim, t->sizes);
        tn_shape_str(b2, sizeof b2, n, want);
        PyErr_Format(PyExc_RuntimeError,
                     "expand(torch.%sTensor{%s}, size=%s): the number of sizes provided (%d) must be greater or equal to the "
                     "number of dimensions in the tensor (%d)", tn_dtype_cpp_name(t->dtype), b1, b2, n, t->ndim);
        return NULL;
    }
    /* more dims than our limit: upstream's size checks below come first (measured: "The expanded
     * size of the tensor (1) must match the existing size (3) at non-singleton dimension 32"),
     * run over scratch arrays; a size they accept is past our dimension limit */
    int64_t szs[TN_MAX_DIMS], sts[TN_MAX_DIMS], *sz = szs, *st = sts;
    if (n > TN_MAX_DIMS) {
        sz = malloc(2 * (size_t)n * sizeof *sz);
        if (!sz) return PyErr_NoMemory();
        st = sz + n;
    }
    PyObject *r = NULL;
    for (int i = n - 1; i >= 0; i--) {
        int off = n - 1 - i, td = t->ndim - 1 - off;
        int64_t w = want[i];
        if (td >= 0) {
            int64_t have = t->sizes[td], hs = t->strides[td];
            if (w == -1) w = have;
            if (have == w) { sz[i] = w; st[i] = hs; continue; }
            if (have != 1) {
                tn_shape_str(b1, sizeof b1, n, want);
                tn_shape_str(b2, sizeof b2, t->ndim, t->sizes);
                PyErr_Format(PyExc_RuntimeError,
                             "The expanded size of the tensor (%lld) must match the existing size (%lld) at non-singleton "
                             "dimension %d.  Target sizes: %s.  Tensor sizes: %s", (long long)w, (long long)have, i, b1, b2);
                goto done;
            }
            if (w < 0) {
                tn_shape_str(b1, sizeof b1, n, want);
                PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: %s", (long long)w, b1);
                goto done;
            }
            sz[i] = w; st[i] = 0;
        } else {
            if (w == -1) {
                PyErr_Format(PyExc_RuntimeError,
                             "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension %d", i);
                goto done;
            }
            if (w < 0) {
                tn_shape_str(b1, sizeof b1, n, want);
                PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: %s", (long long)w, b1);
                goto done;
            }
            /* upstream's inferExpandGeometry: a new leading dim of size 1 keeps the stride a
             * contiguous dim would have (the next dim's size * stride; 0 past a 0-dim tensor) */
            sz[i] = w; st[i] = (w == 1 && i < n - 1) ? sz[i + 1] * st[i + 1] : 0;
        }
    }
    r = n > TN_MAX_DIMS ? tn_not_implemented("tensors of more than " TN_MAX_DIMS_S " dimensions")
                        : tn_tensor_new_view(self, n, sz, st, t->offset);
done:
    if (sz != szs) free(sz);
    return r;
}

PyObject *tn_op_expand(tn_value *a) { return expand_to(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v); }
PyObject *tn_op_broadcast_to(tn_value *a) { return expand_to(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v); }
PyObject *tn_op_expand_as(tn_value *a) { return expand_to(a[0].u.obj, TN_T(a[1])->ndim, TN_T(a[1])->sizes); }

/* ---------- squeeze / unsqueeze ---------- */

/* Geometry of t with dims flagged in `drop` (size 1 only) removed. */
static void squeeze_geometry(const tn_tensor *t, const bool *drop, tn_tensor *r) {
    *r = *t;
    int k = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (drop[i] && t->sizes[i] == 1) continue;
        r->sizes[k] = t->sizes[i];
        r->strides[k] = t->strides[i];
        k++;
    }
    r->ndim = k;
}

static int squeeze_mask(tn_value *a, int which, bool *drop) {
    tn_tensor *t = TN_T(a[0]);
    memset(drop, 0, TN_MAX_DIMS * sizeof *drop);
    if (which == 0) {
        for (int i = 0; i < t->ndim; i++) drop[i] = true;
        return 0;
    }
    int n = which == 1 ? 1 : a[1].u.ints.n;
    const int64_t *dims = which == 1 ? &a[1].u.i : a[1].u.ints.v;
    bool seen[TN_MAX_DIMS + 1] = {false};   /* a 0-dim tensor's dims wrap to 0: repeats refused too (measured) */
    for (int i = 0; i < n; i++) {
        int64_t d;
        if (tn_wrap_dim(dims[i], t->ndim, &d) < 0) return -1;
        if (which == 2 && seen[d]) {
            PyErr_Format(PyExc_RuntimeError, "dim %lld appears multiple times in the list of dims", (long long)d);
            return -1;
        }
        seen[d] = true;
        if (t->ndim > 0) drop[d] = true;
    }
    return 0;
}

static PyObject *squeeze_op(tn_value *a, int which, bool inplace) {
    bool drop[TN_MAX_DIMS];
    if (squeeze_mask(a, which, drop) < 0) return NULL;
    tn_tensor r;
    squeeze_geometry(TN_T(a[0]), drop, &r);
    if (inplace) { *TN_T(a[0]) = r; return Py_NewRef(a[0].u.obj); }
    return tn_tensor_new_view(a[0].u.obj, r.ndim, r.sizes, r.strides, r.offset);
}

PyObject *tn_op_squeeze(tn_value *a) { return squeeze_op(a, 0, false); }
PyObject *tn_op_squeeze_dim(tn_value *a) { return squeeze_op(a, 1, false); }
PyObject *tn_op_squeeze_dims(tn_value *a) { return squeeze_op(a, 2, false); }
PyObject *tn_op_squeeze_(tn_value *a) { return squeeze_op(a, 0, true); }
PyObject *tn_op_squeeze__dim(tn_value *a) { return squeeze_op(a, 1, true); }
PyObject *tn_op_squeeze__dims(tn_value *a) { return squeeze_op(a, 2, true); }

static int unsqueeze_geometry(const tn_tensor *t, int64_t dim, tn_tensor *r) {
    int64_t d;
    if (tn_wrap_dim(dim, t->ndim + 1, &d) < 0) return -1;
    if (t->ndim + 1 > TN_MAX_DIMS) { tn_not_implemented("tensors of more than " TN_MAX_DIMS_S " dimensions"); return -1; }
    *r = *t;
    for (int i = t->ndim; i > d; i--) { r->sizes[i] = t->sizes[i - 1]; r->strides[i] = t->strides[i - 1]; }
    r->sizes[d] = 1;
    r->strides[d] = d >= t->ndim ? 1 : t->sizes[d] * t->strides[d];
    r->ndim = t->ndim + 1;
    return 0;
}

PyObject *tn_op_unsqueeze(tn_value *a) {
    tn_tensor r;
    if (unsqueeze_geometry(TN_T(a[0]), a[1].u.i, &r) < 0) return NULL;
    return tn_tensor_new_view(a[0].u.obj, r.ndim, r.sizes, r.strides, r.offset);
}

PyObject *tn_op_unsqueeze_(tn_value *a) {
    tn_tensor r;
    if (unsqueeze_geometry(TN_T(a[0]), a[1].u.i, &r) < 0) return NULL;
    *TN_T(a[0]) = r;
    return Py_NewRef(a[0].u.obj);
}

/* ---------- narrow / select / slice ---------- */

static PyObject *narrow(PyObject *self, int64_t dim, int64_t start, int64_t length) {
    tn_tensor *t = tn_tensor_of(self);
    int64_t d;
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_RuntimeError, "narrow() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    if (tn_wrap_dim(dim, t->ndim, &d) < 0) return NULL;
    if (length < 0) { PyErr_SetString(PyExc_RuntimeError, "narrow(): length must be non-negative."); return NULL; }
    int64_t size = t->sizes[d];
    if (start < -size || start > size) {
        PyErr_Format(PyExc_IndexError, "start out of range (expected to be in range of [%lld, %lld], but got %lld)",
                     (long long)-size, (long long)size, (long long)start);
        return NULL;
    }
    if (start < 0) start += size;
    if (start + length > size) {
        PyErr_Format(PyExc_RuntimeError, "start (%lld) + length (%lld) exceeds dimension size (%lld).",
                     (long long)start, (long long)length, (long long)size);
        return NULL;
    }
    tn_tensor r = *t;
    r.sizes[d] = length;
    r.offset += start * t->strides[d];
    return tn_tensor_new_view(self, r.ndim, r.sizes, r.strides, r.offset);
}

PyObject *tn_op_narrow(tn_value *a) { return narrow(a[0].u.obj, a[1].u.i, a[2].u.i, a[3].u.i); }

static int scalar_index(PyObject *t, int64_t *out) {
    tn_tensor *s = tn_tensor_of(t);
    if (s->ndim != 0 || !tn_dtype_is_integral(s->dtype, false)) {
        PyErr_SetString(PyExc_RuntimeError, "start must be an 0-dim integral Tensor.");
        return -1;
    }
    PyObject *c = tn_as_dtype(t, TN_DTYPE_I64, true);
    if (!c) return -1;
    memcpy(out, tn_data(tn_tensor_of(c)), 8);
    Py_DECREF(c);
    return 0;
}

PyObject *tn_op_narrow_Tensor(tn_value *a) {
    int64_t start;
    if (scalar_index(a[2].u.obj, &start) < 0) return NULL;
    return narrow(a[0].u.obj, a[1].u.i, start, a[3].u.i);
}

PyObject *tn_op_select_int(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_IndexError, "select() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    int64_t d, i = a[2].u.i;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &d) < 0) return NULL;
    int64_t size = t->sizes[d];
    if (i < -size || i >= size) {
        char b[512];
        tn_shape_str(b, sizeof b, t->ndim, t->sizes);
        PyErr_Format(PyExc_IndexError, "select(): index %lld out of range for tensor of size %s at dimension %lld",
                     (long long)i, b, (long long)d);
        return NULL;
    }
    if (i < 0) i += size;
    tn_tensor r = *t;
    r.offset += i * t->strides[d];
    for (int k = (int)d; k < t->ndim - 1; k++) { r.sizes[k] = t->sizes[k + 1]; r.strides[k] = t->strides[k + 1]; }
    r.ndim--;
    return tn_tensor_new_view(self, r.ndim, r.sizes, r.strides, r.offset);
}

PyObject *tn_op_slice_Tensor(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_IndexError, "slice() cannot be applied to a 0-dim tensor.");
        return NULL;
    }
    int64_t d;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &d) < 0) return NULL;
    int64_t size = t->sizes[d], step = a[4].u.i;
    int64_t start = a[2].tag == TN_V_NONE ? 0 : a[2].u.i;
    int64_t end = a[3].tag == TN_V_NONE ? INT64_MAX : a[3].u.i;
    if (step <= 0) { PyErr_SetString(PyExc_RuntimeError, "slice step must be positive"); return NULL; }
    if (start < 0) start += size;
    if (end < 0) end += size;
    if (start < 0) start = 0; else if (start > size) start = size;
    if (end < start) end = start; else if (end > size) end = size;
    tn_tensor r = *t;
    r.offset += start * t->strides[d];
    r.sizes[d] = end == start ? 0 : (end - start - 1) / step + 1; /* no overflow for huge steps */
    if (__builtin_mul_overflow(t->strides[d], step, &r.strides[d])) {
        /* upstream's stride wraps and then fails its storage checks: a RuntimeError too */
        PyErr_SetString(PyExc_RuntimeError, "Storage size calculation overflowed");
        return NULL;
    }
    return tn_tensor_new_view(self, r.ndim, r.sizes, r.strides, r.offset);
}

/* ---------- diagonal ---------- */

PyObject *tn_op_diagonal(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    int64_t off = a[1].u.i, d1, d2;
    if (tn_wrap_dim(a[2].u.i, t->ndim, &d1) < 0 || tn_wrap_dim(a[3].u.i, t->ndim, &d2) < 0) return NULL;
    if (d1 == d2) {
        PyErr_Format(PyExc_RuntimeError, "diagonal dimensions cannot be identical %lld, %lld", (long long)a[2].u.i, (long long)a[3].u.i);
        return NULL;
    }
    int64_t n, offset = t->offset;
    if (off >= 0) {
        n = t->sizes[d1] < t->sizes[d2] - off ? t->sizes[d1] : t->sizes[d2] - off;
    } else {
        n = t->sizes[d1] + off < t->sizes[d2] ? t->sizes[d1] + off : t->sizes[d2];
    }
    if (n < 0) n = 0;
    if (n > 0) offset += off >= 0 ? off * t->strides[d2] : -off * t->strides[d1];
    tn_tensor r = *t;
    int k = 0;
    for (int i = 0; i < t->ndim; i++) {
        if (i == d1 || i == d2) continue;
        r.sizes[k] = t->sizes[i];
        r.strides[k] = t->strides[i];
        k++;
    }
    r.sizes[k] = n;
    r.strides[k] = t->strides[d1] + t->strides[d2];
    return tn_tensor_new_view(self, k + 1, r.sizes, r.strides, offset);
}

/* ---------- flatten / unflatten ---------- */

PyObject *tn_op_flatten_using_ints(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    int64_t s, e;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &s) < 0 || tn_wrap_dim(a[2].u.i, t->ndim, &e) < 0) return NULL;
    if (s > e) {
        PyErr_SetString(PyExc_RuntimeError, "flatten() has invalid args: start_dim cannot come after end_dim");
        return NULL;
    }
    if (t->ndim == 0) { int64_t one = 1; return tn_reshape(self, 1, &one); }
    if (s == e) return Py_NewRef(self);
    int64_t shape[TN_MAX_DIMS];
    int k = 0;
    for (int i = 0; i < s; i++) shape[k++] = t->sizes[i];
    int64_t p = 1;
    for (int64_t i = s; i <= e; i++) p *= t->sizes[i];
    shape[k++] = p;
    for (int i = (int)e + 1; i < t->ndim; i++) shape[k++] = t->sizes[i];
    return tn_reshape(self, k, shape);
}

/* upstream: self.contiguous().view(-1) — always a view, of a contiguous copy when needed */
PyObject *tn_op_ravel(tn_value *a) {
    PyObject *self = a[0].u.obj;
    PyObject *c = tn_is_contiguous(tn_tensor_of(self)) ? Py_NewRef(self) : tn_clone_contiguous(self);
    if (!c) return NULL;
    int64_t m1 = -1;
    PyObject *r = view_sizes(c, 1, &m1, false);
    Py_DECREF(c);
    return r;
}

static PyObject *unflatten_bad_product(int n, const int64_t *sz, int64_t d, int64_t size) {
    char b[256];
    tn_shape_str(b, sizeof b, n, sz);
    PyErr_Format(PyExc_RuntimeError,
                 "unflatten: Provided sizes %s don't multiply up to the size of dim %lld (%lld) in the input tensor",
                 b, (long long)d, (long long)size);
    return NULL;
}

PyObject *tn_op_unflatten_int(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    int64_t d;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &d) < 0) return NULL;
    int n = a[2].u.ints.n;
    const int64_t *sz = a[2].u.ints.v;
    if (n == 0) { PyErr_SetString(PyExc_RuntimeError, "unflatten: sizes must be non-empty"); return NULL; }
    if (t->ndim == 0) { PyErr_SetString(PyExc_RuntimeError, "unflatten: Dimension size must be non-empty"); return NULL; }
    /* upstream's infer_size first, over all n sizes (before our dimension limit); its error is
     * rephrased as upstream's handle_unflatten_exception does, by the message: a shape invalid
     * for the dim's size (with or without -1: measured) "don't multiply up", any other (two -1)
     * "unexpected error" */
    int64_t small[TN_MAX_DIMS], *inferred = n <= TN_MAX_DIMS ? small : malloc((size_t)n * sizeof *inferred);
    if (!inferred) return PyErr_NoMemory();
    if (tn_infer_size(n, sz, t->sizes[d], inferred) < 0) {
        if (inferred != small) free(inferred);
        PyObject *ty, *val, *tb;
        PyErr_Fetch(&ty, &val, &tb);
        PyObject *msg = val ? PyObject_Str(val) : NULL;
        const char *m = msg ? PyUnicode_AsUTF8AndSize(msg, NULL) : NULL;
        if (!m || strstr(m, "is invalid for input of size")) unflatten_bad_product(n, sz, d, t->sizes[d]);
        else PyErr_Format(PyExc_RuntimeError, "unflatten got an unexpected error:\n%s", m);
        Py_XDECREF(msg);
        Py_XDECREF(ty); Py_XDECREF(val); Py_XDECREF(tb);
        return NULL;
    }
    if (t->ndim - 1 + n > TN_MAX_DIMS) {
        if (inferred != small) free(inferred);
        return tn_not_implemented("tensors of more than " TN_MAX_DIMS_S " dimensions");
    }
    int64_t shape[TN_MAX_DIMS];
    int k = 0;
    for (int i = 0; i < d; i++) shape[k++] = t->sizes[i];
    for (int i = 0; i < n; i++) shape[k++] = inferred[i];
    for (int i = (int)d + 1; i < t->ndim; i++) shape[k++] = t->sizes[i];
    return tn_reshape(self, k, shape);
}

/* ---------- splitting ---------- */

static PyObject *narrow_pieces(PyObject *self, int64_t d, int n, const int64_t *lengths) {
    PyObject *tup = PyTuple_New(n);
    if (!tup) return NULL;
    tn_tensor *t = tn_tensor_of(self);
    int64_t start = 0;
    for (int i = 0; i < n; i++) {
        tn_tensor r = *t;
        r.sizes[d] = lengths[i];
        r.offset += start * t->strides[d];
        PyObject *v = tn_tensor_new_view(self, r.ndim, r.sizes, r.strides, r.offset);
        if (!v) { Py_DECREF(tup); return NULL; }
        PyTuple_SetItem(tup, i, v);
        start += lengths[i];
    }
    return tup;
}

static int split_dim(PyObject *self, int64_t dim, int64_t *d) {
    tn_tensor *t = tn_tensor_of(self);
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_RuntimeError, "split expects at least a 1-dimensional tensor");
        return -1;
    }
    return tn_wrap_dim(dim, t->ndim, d);
}

static PyObject *split_size(PyObject *self, int64_t size, int64_t dim) {
    int64_t d;
    if (split_dim(self, dim, &d) < 0) return NULL;
    int64_t len = tn_tensor_of(self)->sizes[d];
    if (size < 0) {
        PyErr_Format(PyExc_RuntimeError, "split expects split_size be non-negative, but got split_size=%lld", (long long)size);
        return NULL;
    }
    if (size == 0 && len != 0) {
        PyErr_Format(PyExc_RuntimeError, "split_size can only be 0 if dimension size is 0, but got dimension size of %lld", (long long)len);
        return NULL;
    }
    int64_t n = size == 0 ? 1 : (len + size - 1) / size;
    if (n == 0) n = 1;
    int64_t *lens = malloc((size_t)n * sizeof *lens);
    if (!lens) return PyErr_NoMemory();
    for (int64_t i = 0; i < n; i++) lens[i] = size == 0 ? 0 : (i == n - 1 ? len - size * (n - 1) : size);
    PyObject *r = narrow_pieces(self, d, (int)n, lens);
    free(lens);
    return r;
}

static PyObject *split_sizes(PyObject *self, int n, const int64_t *sizes, int64_t dim) {
    int64_t d;
    if (split_dim(self, dim, &d) < 0) return NULL;
    int64_t len = tn_tensor_of(self)->sizes[d], sum = 0;
    for (int i = 0; i < n; i++) {
        if (sizes[i] < 0) {
            PyErr_Format(PyExc_RuntimeError, "split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes=[...]");
            return NULL;
        }
        if (__builtin_add_overflow(sum, sizes[i], &sum)) sum = -1; /* matches no length */
    }
    if (sum != len) {
        char b[512];
        tn_shape_str(b, sizeof b, n, sizes);
        PyErr_Format(PyExc_RuntimeError,
                     "split_with_sizes expects split_sizes to sum exactly to %lld (input tensor's size at dimension %lld), but got split_sizes=%s",
                     (long long)len, (long long)d, b);
        return NULL;
    }
    return narrow_pieces(self, d, n, sizes);
}

PyObject *tn_op_split_Tensor(tn_value *a) { return split_size(a[0].u.obj, a[1].u.i, a[2].u.i); }
PyObject *tn_op_split_sizes(tn_value *a) { return split_sizes(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v, a[2].u.i); }
PyObject *tn_op_split_with_sizes(tn_value *a) { return split_sizes(a[0].u.obj, a[1].u.ints.n, a[1].u.ints.v, a[2].u.i); }

PyObject *tn_op_chunk(tn_value *a) {
    PyObject *self = a[0].u.obj;
    int64_t chunks = a[1].u.i, d;
    if (tn_tensor_of(self)->ndim == 0) {
        PyErr_SetString(PyExc_RuntimeError, "chunk expects at least a 1-dimensional tensor");
        return NULL;
    }
    if (chunks <= 0) {
        PyErr_Format(PyExc_RuntimeError, "chunk expects `chunks` to be greater than 0, got: %lld", (long long)chunks);
        return NULL;
    }
    if (tn_wrap_dim(a[2].u.i, tn_tensor_of(self)->ndim, &d) < 0) return NULL;
    int64_t len = tn_tensor_of(self)->sizes[d];
    int64_t size = (len + chunks - 1) / chunks;
    if (size == 0 && len == 0) {
        /* upstream: every chunk of an empty dim is empty, `chunks` of them */
        int64_t *lens = calloc((size_t)chunks, sizeof *lens);
        if (!lens) return PyErr_NoMemory();
        PyObject *r = narrow_pieces(self, d, (int)chunks, lens);
        free(lens);
        return r;
    }
    return split_size(self, size, d);
}

PyObject *tn_op_unbind_int(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    if (t->ndim == 0) {
        PyErr_SetString(PyExc_IndexError, "Dimension specified as 0 but tensor has no dimensions");
        return NULL;
    }
    int64_t d;
    if (tn_wrap_dim(a[1].u.i, t->ndim, &d) < 0) return NULL;
    int64_t n = t->sizes[d];
    PyObject *tup = PyTuple_New((Py_ssize_t)n);
    if (!tup) return NULL;
    for (int64_t i = 0; i < n; i++) {
        tn_tensor r = *t;
        r.offset += i * t->strides[d];
        for (int k = (int)d; k < t->ndim - 1; k++) { r.sizes[k] = t->sizes[k + 1]; r.strides[k] = t->strides[k + 1]; }
        PyObject *v = tn_tensor_new_view(self, t->ndim - 1, r.sizes, r.strides, r.offset);
        if (!v) { Py_DECREF(tup); return NULL; }
        PyTuple_SetItem(tup, (Py_ssize_t)i, v);
    }
    return tup;
}

/* ---------- identity-like ---------- */

int tn_contiguous_check(PyObject *self, PyObject *mf) {
    int code = tn_py_memformat_code(mf);
    if (code >= 0 && tn_is_contiguous_as(tn_tensor_of(self), code == 1 ? 0 : code)) return 1;
    if (code == 1) {
        PyErr_SetString(PyExc_RuntimeError, "preserve memory format is unsupported by the contiguous operator");
        return -1;
    }
    return 0;
}

PyObject *tn_op_contiguous(tn_value *a) {
    PyObject *self = a[0].u.obj, *mf = a[1].tag == TN_V_MEMFORMAT ? a[1].u.obj : NULL;
    int c = tn_contiguous_check(self, mf);
    if (c != 0) return c > 0 ? Py_NewRef(self) : NULL;
    return tn_py_memformat_code(mf) == 0 ? tn_clone_contiguous(self) : tn_at_clone(self, mf);
}

PyObject *tn_op_detach(tn_value *a) {
    tn_tensor r = *TN_T(a[0]);
    /* upstream: detach of an inference tensor outside inference mode is an inference tensor with
     * a fresh version counter (measured: _version 0, in-place allowed; its views have none) */
    bool fresh = r.storage->inference && !tn_tls_inference_mode && !((tn_tensor_obj *)a[0].u.obj)->inf_versioned;
    if (fresh) {
        if (!(r.storage = tn_storage_alias(r.storage))) return PyErr_NoMemory();
    } else {
        tn_storage_incref(r.storage);
    }
    PyObject *o = tn_tensor_wrap(&r);
    if (o && r.storage->inference && !tn_tls_inference_mode) ((tn_tensor_obj *)o)->inf_versioned = true;
    return o;
}

/* detach_: self leaves the graph in place (upstream's manual autograd kernel, which runs in any
 * grad mode and records nothing: autograd/record.c passes it through); a view refuses */
PyObject *tn_op_detach_(tn_value *a) {
    tn_tensor_obj *o = (tn_tensor_obj *)a[0].u.obj;
    if (o->base) {
        PyErr_SetString(PyExc_RuntimeError, "Can't detach views in-place. Use detach() instead. If you are using "
                        "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set as True, "
                        "gradients are views of DDP buckets, and hence detach_() cannot be called on these gradients. "
                        "To fix this error, please refer to the Optimizer.zero_grad() function in "
                        "torch/optim/optimizer.py as the solution.");
        return NULL;
    }
    o->requires_grad = false;
    Py_CLEAR(o->grad_fn);
    o->output_nr = 0;
    Py_CLEAR(o->fw_grad);
    return Py_NewRef(a[0].u.obj);
}

PyObject *tn_op_alias(tn_value *a) { return view_same(a[0].u.obj); }
/* lift and lift_fresh (functionalization's markers) hand back the argument itself, as upstream's */
PyObject *tn_op_lift_fresh(tn_value *a) { return Py_NewRef(a[0].u.obj); }
PyObject *tn_op_lift(tn_value *a) { return Py_NewRef(a[0].u.obj); }
