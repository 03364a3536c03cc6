/* ops/shape_composites.c — upstream's CompositeImplicitAutograd shape helpers, each step an op
 * through the door as upstream writes it (TensorShape.cpp / Linear.cpp / LinearAlgebra.cpp):
 * atleast_{1,2,3}d (reshape / unsqueeze, else the input itself), column_stack (columns, then
 * hstack), dstack (atleast_3d, cat along 2), tensor_split / hsplit / vsplit / dsplit (slices),
 * outer (reshape * vec2), inner (mul for 0-dim, else tensordot over the last dims), kron
 * (_unsafe_view both to interleaved shapes, mul, _unsafe_view), diagflat (contiguous, view(-1),
 * diag_embed), cartesian_prod (meshgrid 'ij', flatten, stack) and sum_to_size (sum_to). */
#include "ops/shape_composites.h"

#include "autograd/autograd.h"
#include "ops/common.h"
#include "tn_ops_gen.h"

#include <stdio.h>


/* ---- atleast_Nd ---- */
static PyObject *atleast(PyObject *x, int n) {
    int nd = tn_tensor_of(x)->ndim;
    static const int64_t ones[3] = {1, 1, 1};
    if (nd == 0) return tn_at_reshape(x, TN_IN(ones, n));
    if (n == 2 && nd == 1) return tn_at_unsqueeze(x, 0);
    if (n == 3 && nd == 1) {
        PyObject *u = tn_at_unsqueeze(x, 0), *r = u ? tn_at_unsqueeze(u, -1) : NULL;
        Py_XDECREF(u);
        return r;
    }
    if (n == 3 && nd == 2) return tn_at_unsqueeze(x, -1);
    return Py_NewRef(x);
}
/* a tuple of f(t) over a sequence of tensors */
static PyObject *map_seq(PyObject *seq_obj, int n) {
    PyObject *seq = PySequence_Tuple(seq_obj);
    if (!seq) return NULL;
    Py_ssize_t k = PyTuple_Size(seq);
    PyObject *r = PyTuple_New(k);
    for (Py_ssize_t i = 0; r && i < k; i++) {
        PyObject *v = atleast(PyTuple_GetItem(seq, i), n);
        if (!v) { Py_CLEAR(r); break; }
        PyTuple_SetItem(r, i, v);
    }
    Py_DECREF(seq);
    return r;
}
PyObject *tn_shape_d_atleast_1d(tn_value *a) { return atleast(a[0].u.obj, 1); }
PyObject *tn_shape_d_atleast_2d(tn_value *a) { return atleast(a[0].u.obj, 2); }
PyObject *tn_shape_d_atleast_3d(tn_value *a) { return atleast(a[0].u.obj, 3); }
PyObject *tn_shape_d_atleast_1d_seq(tn_value *a) { return map_seq(a[0].u.obj, 1); }
PyObject *tn_shape_d_atleast_2d_seq(tn_value *a) { return map_seq(a[0].u.obj, 2); }
PyObject *tn_shape_d_atleast_3d_seq(tn_value *a) { return map_seq(a[0].u.obj, 3); }

/* column_stack(tensors): 0-/1-dim inputs become (numel, 1) columns, then hstack */
PyObject *tn_shape_d_column_stack(tn_value *a) {
    PyObject *seq = PySequence_Tuple(a[0].u.obj);
    if (!seq) return NULL;
    Py_ssize_t k = PyTuple_Size(seq);
    PyObject *r = NULL;
    if (k == 0) {
        PyErr_SetString(PyExc_RuntimeError, "column_stack expects a non-empty TensorList");
        Py_DECREF(seq);
        return NULL;
    }
    PyObject *l = PyList_New(k);
    for (Py_ssize_t i = 0; l && i < k; i++) {
        PyObject *t = PyTuple_GetItem(seq, i);
        const tn_tensor *tt = tn_tensor_of(t);
        PyObject *v;
        if (tt->ndim <= 1) {
            int64_t s[2] = {tn_numel(tt), 1};
            v = tn_at_reshape(t, TN_IN(s, 2));
        } else {
            v = Py_NewRef(t);
        }
        if (!v) { Py_CLEAR(l); break; }
        PyList_SetItem(l, i, v);
    }
    if (l) r = tn_at_hstack(TN_TPY(l));
    Py_XDECREF(l);
    Py_DECREF(seq);
    return r;
}

/* dstack(tensors): atleast_3d, then cat along dim 2 */
PyObject *tn_shape_d_dstack(tn_value *a) {
    Py_ssize_t k = PySequence_Size(a[0].u.obj);
    if (k < 0) return NULL;
    if (k == 0) {
        PyErr_SetString(PyExc_RuntimeError, "dstack expects a non-empty TensorList");
        return NULL;
    }
    PyObject *rep = map_seq(a[0].u.obj, 3);
    PyObject *l = rep ? PySequence_List(rep) : NULL;
    PyObject *r = l ? tn_at_cat(TN_TPY(l), 2) : NULL;
    Py_XDECREF(rep); Py_XDECREF(l);
    return r;
}

/* ---- tensor_split family ---- */
static int split_dim(PyObject *self, int64_t dim, int64_t *wd) {
    const tn_tensor *t = tn_tensor_of(self);
    if (t->ndim == 0) {
        PyErr_Format(PyExc_RuntimeError, "tensor_split expected at least a 1-dimensional tensor, but got a tensor with %d dims", t->ndim);
        return -1;
    }
    return tn_wrap_dim(dim, t->ndim, wd);
}
static PyObject *slices(PyObject *self, int64_t dim, const int64_t *starts, const int64_t *ends, int64_t n) {
    PyObject *r = PyTuple_New(n);
    for (int64_t i = 0; r && i < n; i++) {
        PyObject *s = tn_at_slice_Tensor(self, (long long)dim, TN_I((long long)starts[i]), TN_I((long long)ends[i]), 1);
        if (!s) { Py_CLEAR(r); break; }
        PyTuple_SetItem(r, i, s);
    }
    return r;
}
static PyObject *split_sections(PyObject *self, int64_t sections, int64_t dim) {
    int64_t wd;
    if (split_dim(self, dim, &wd) < 0) return NULL;
    if (sections <= 0) {
        PyErr_Format(PyExc_RuntimeError, "number of sections must be larger than 0, got %lld", (long long)sections);
        return NULL;
    }
    int64_t size = tn_tensor_of(self)->sizes[wd], mn = size / sections, extra = size % sections, at = 0;
    int64_t *st = PyMem_Malloc((size_t)sections * 2 * sizeof(int64_t));
    if (!st) return PyErr_NoMemory();
    for (int64_t i = 0; i < sections; i++) {
        int64_t len = extra > i ? mn + 1 : mn;
        st[i] = at;
        st[sections + i] = at + len;
        at += len;
    }
    PyObject *r = slices(self, wd, st, st + sections, sections);
    PyMem_Free(st);
    return r;
}
static PyObject *split_indices(PyObject *self, const int64_t *idx, int64_t n, int64_t dim) {
    int64_t wd;
    if (split_dim(self, dim, &wd) < 0) return NULL;
    int64_t *st = PyMem_Malloc((size_t)(n + 1) * 2 * sizeof(int64_t));
    if (!st) return PyErr_NoMemory();
    int64_t at = 0;
    for (int64_t i = 0; i < n; i++) { st[i] = at; st[n + 1 + i] = idx[i]; at = idx[i]; }
    st[n] = at;
    st[n + 1 + n] = tn_tensor_of(self)->sizes[wd];
    PyObject *r = slices(self, wd, st, st + n + 1, n + 1);
    PyMem_Free(st);
    return r;
}
PyObject *tn_shape_d_tensor_split_sections(tn_value *a) { return split_sections(a[0].u.obj, a[1].u.i, a[2].u.i); }
PyObject *tn_shape_d_tensor_split_indices(tn_value *a) { return split_indices(a[0].u.obj, a[1].u.ints.v, a[1].u.ints.n, a[2].u.i); }
PyObject *tn_shape_d_tensor_split_tensor(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]), *s = TN_T(a[1]);
    if (t->ndim == 0) return split_sections(a[0].u.obj, 1, a[2].u.i);   /* its 0-dim error */
    if (s->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "tensor_split expected tensor_indices_or_sections to have dtype of long, but got %s",
                     tn_dtype_cpp_name(s->dtype));
        return NULL;
    }
    if (s->ndim > 1) {
        PyErr_Format(PyExc_RuntimeError, "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional tensor, but got a tensor with %d dims",
                     s->ndim);
        return NULL;
    }
    const int64_t *p = (const int64_t *)tn_data(s);
    if (s->ndim == 0) return split_sections(a[0].u.obj, p[0], a[2].u.i);
    int64_t n = s->sizes[0], *idx = PyMem_Malloc((size_t)(n + 1) * sizeof(int64_t));
    if (!idx) return PyErr_NoMemory();
    for (int64_t i = 0; i < n; i++) idx[i] = p[i * s->strides[0]];
    PyObject *r = split_indices(a[0].u.obj, idx, n, a[2].u.i);
    PyMem_Free(idx);
    return r;
}

/* hsplit / vsplit / dsplit: `which` 0 (h), 1 (v), 2 (d) */
static int hvd_check(PyObject *self, int which, int64_t *dim) {
    static const char *names[3] = {"hsplit", "vsplit", "dsplit"};
    static const int need[3] = {1, 2, 3};
    int nd = tn_tensor_of(self)->ndim;
    if (nd < need[which]) {
        PyErr_Format(PyExc_RuntimeError, "torch.%s requires a tensor with at least %d dimension, but got a tensor with %d dimensions!",
                     names[which], need[which], nd);
        return -1;
    }
    *dim = which == 0 ? (nd == 1 ? 0 : 1) : which == 1 ? 0 : 2;
    return 0;
}
static PyObject *hvd_int(tn_value *a, int which) {
    static const char *names[3] = {"hsplit", "vsplit", "dsplit"};
    int64_t dim;
    if (hvd_check(a[0].u.obj, which, &dim) < 0) return NULL;
    int64_t sz = TN_T(a[0])->sizes[dim], k = a[1].u.i;
    if (k == 0 || sz % k != 0) {
        PyErr_Format(PyExc_RuntimeError, "torch.%s attempted to split along dimension %lld, but the size of the dimension %lld is not divisible by the split_size %lld!",
                     names[which], (long long)dim, (long long)sz, (long long)k);
        return NULL;
    }
    return split_sections(a[0].u.obj, k, dim);
}
static PyObject *hvd_array(tn_value *a, int which) {
    int64_t dim;
    if (hvd_check(a[0].u.obj, which, &dim) < 0) return NULL;
    return split_indices(a[0].u.obj, a[1].u.ints.v, a[1].u.ints.n, dim);
}
PyObject *tn_shape_d_hsplit_int(tn_value *a) { return hvd_int(a, 0); }
PyObject *tn_shape_d_vsplit_int(tn_value *a) { return hvd_int(a, 1); }
PyObject *tn_shape_d_dsplit_int(tn_value *a) { return hvd_int(a, 2); }
PyObject *tn_shape_d_hsplit_array(tn_value *a) { return hvd_array(a, 0); }
PyObject *tn_shape_d_vsplit_array(tn_value *a) { return hvd_array(a, 1); }
PyObject *tn_shape_d_dsplit_array(tn_value *a) { return hvd_array(a, 2); }

/* ---- products ---- */
/* inner(self, other): self * other for a 0-dim side, else tensordot over the last dims */
PyObject *tn_shape_d_inner(tn_value *a) {
    const tn_tensor *s = TN_T(a[0]), *o = TN_T(a[1]);
    if (s->ndim == 0 || o->ndim == 0) return tn_at_mul_Tensor(a[0].u.obj, a[1].u.obj);
    if (s->sizes[s->ndim - 1] != o->sizes[o->ndim - 1]) {
        char b1[256], b2[256];
        tn_shape_str(b1, sizeof b1, s->ndim, s->sizes);
        tn_shape_str(b2, sizeof b2, o->ndim, o->sizes);
        PyErr_Format(PyExc_RuntimeError, "inner() the last dimension must match on both input tensors but got shapes %s and %s", b1, b2);
        return NULL;
    }
    return tn_at_tensordot(a[0].u.obj, a[1].u.obj, TN_IS(-1), TN_IS(-1));
}
/* kron(self, other): both viewed with interleaved singleton dims, multiplied, viewed back */
PyObject *tn_shape_d_kron(tn_value *a) {
    const tn_tensor *s = TN_T(a[0]), *o = TN_T(a[1]);
    int maxdim = s->ndim > o->ndim ? s->ndim : o->ndim, ps = maxdim - s->ndim, po = maxdim - o->ndim;
    if (2 * maxdim > TN_MAX_DIMS) { PyErr_SetString(PyExc_RuntimeError, "kron: too many dimensions"); return NULL; }
    int64_t ar[TN_MAX_DIMS], br[TN_MAX_DIMS], rr[TN_MAX_DIMS];
    for (int i = 0; i < maxdim; i++) {
        int64_t si = i >= ps ? s->sizes[i - ps] : 1, oi = i >= po ? o->sizes[i - po] : 1;
        ar[2 * i] = si; ar[2 * i + 1] = 1;
        br[2 * i] = 1; br[2 * i + 1] = oi;
        rr[i] = si * oi;
    }
    PyObject *sv = tn_at__unsafe_view(a[0].u.obj, TN_IN(ar, 2 * maxdim));
    PyObject *ov = sv ? tn_at__unsafe_view(a[1].u.obj, TN_IN(br, 2 * maxdim)) : NULL;
    PyObject *m = ov ? tn_at_mul_Tensor(sv, ov) : NULL;
    PyObject *r = m ? tn_at__unsafe_view(m, TN_IN(rr, maxdim)) : NULL;
    Py_XDECREF(sv); Py_XDECREF(ov); Py_XDECREF(m);
    return r;
}
/* diagflat(self, offset): contiguous, view(-1), diag_embed(offset) */
PyObject *tn_shape_d_diagflat(tn_value *a) {
    PyObject *c = tn_at_contiguous(a[0].u.obj, NULL);
    PyObject *v = c ? tn_at_view(c, TN_IS(-1)) : NULL;
    PyObject *r = v ? tn_at_diag_embed(v, (long long)a[1].u.i, -2, -1) : NULL;
    Py_XDECREF(c); Py_XDECREF(v);
    return r;
}
/* cartesian_prod(tensors): 1-D inputs; one input is returned itself; else meshgrid 'ij',
 * each flattened, stacked along 1 */
PyObject *tn_shape_d_cartesian_prod(tn_value *a) {
    PyObject *seq = PySequence_Tuple(a[0].u.obj);
    if (!seq) return NULL;
    Py_ssize_t k = PyTuple_Size(seq);
    PyObject *r = NULL;
    for (Py_ssize_t i = 0; i < k; i++) {
        const tn_tensor *t = tn_tensor_of(PyTuple_GetItem(seq, i));
        if (t->ndim != 1) {
            char b[256];
            tn_shape_str(b, sizeof b, t->ndim, t->sizes);
            PyErr_Format(PyExc_RuntimeError, "Expect a 1D vector, but got shape %s", b);
            Py_DECREF(seq);
            return NULL;
        }
    }
    if (k == 1) {
        r = Py_NewRef(PyTuple_GetItem(seq, 0));
        Py_DECREF(seq);
        return r;
    }
    PyObject *l = PySequence_List(seq);
    PyObject *grids = l ? tn_at_meshgrid_indexing(TN_TPY(l), "ij") : NULL;
    PyObject *gs = grids ? PySequence_Tuple(grids) : NULL;
    PyObject *flat = gs ? PyList_New(PyTuple_Size(gs)) : NULL;
    for (Py_ssize_t i = 0; flat && i < PyTuple_Size(gs); i++) {
        PyObject *f = tn_at_flatten_using_ints(PyTuple_GetItem(gs, i), 0, -1);
        if (!f) { Py_CLEAR(flat); break; }
        PyList_SetItem(flat, i, f);
    }
    r = flat ? tn_at_stack(TN_TPY(flat), 1) : NULL;
    Py_XDECREF(l); Py_XDECREF(grids); Py_XDECREF(gs); Py_XDECREF(flat);
    Py_DECREF(seq);
    return r;
}
/* sum_to_size(self, size): sum over leading dims and dims where size is 1, keepdim, then view */
PyObject *tn_shape_d_sum_to_size(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    const int64_t *shape = a[1].u.ints.v;
    int n = a[1].u.ints.n, lead = t->ndim - n;
    bool ok = lead >= 0;
    for (int i = 0; ok && i < n; i++) {
        int64_t s = t->sizes[lead + i];
        if (!(shape[i] == s || shape[i] == 1)) ok = false;
    }
    if (!ok) {
        char b1[256], b2[256];
        tn_shape_str(b1, sizeof b1, n, shape);
        tn_shape_str(b2, sizeof b2, t->ndim, t->sizes);
        PyErr_Format(PyExc_RuntimeError, "size {%s} is not expandable to size {%s}.", b1, b2);
        return NULL;
    }
    if (n == 0) return tn_at_sum(a[0].u.obj, NULL);
    int64_t rd[TN_MAX_DIMS];
    int nr = 0;
    for (int i = 0; i < lead; i++) rd[nr++] = i;
    for (int i = lead; i < t->ndim; i++)
        if (shape[i - lead] == 1 && t->sizes[i] != 1) rd[nr++] = i;
    PyObject *x = Py_NewRef(a[0].u.obj);
    if (nr) {
        Py_SETREF(x, tn_at_sum_dim_IntList(x, TN_IN(rd, nr), true, NULL));
        if (!x) return NULL;
    }
    if (lead > 0) Py_SETREF(x, tn_at_view(x, TN_IN(shape, n)));
    return x;
}
