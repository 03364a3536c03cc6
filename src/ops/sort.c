/* ops/sort.c — sort, argsort, msort and topk.
 *
 * The sort dimension is moved last in a contiguous copy (f16/bf16 widened to f32, exactly), each
 * row is stably merge-sorted with its positions (kernels/nn.h tn_sort_rows), and values and
 * int64 indices are written back in the input's shape (contiguous). NaN sorts as the largest
 * value, as upstream. Upstream's default (stable=False) sort and topk may order equal keys
 * differently (it uses unstable vectorised sorts); results agree wherever keys are distinct. */
#include "ops/common.h"

#include "kernels/nn.h"

#include <stdio.h>


static bool sort_bool(const tn_value *v) { return (v->tag == TN_V_BOOL || v->tag == TN_V_INT) && v->u.i != 0; }

/* Key kind and the dtype keys are stored in. */
static int sort_key(tn_dtype d, tn_sortkey *kind, tn_dtype *kd) {
    *kd = d;
    switch (d) {
    case TN_DTYPE_BOOL: case TN_DTYPE_U8: *kind = TN_SORTKEY_U8; return 0;
    case TN_DTYPE_I8: *kind = TN_SORTKEY_I8; return 0;
    case TN_DTYPE_I16: *kind = TN_SORTKEY_I16; return 0;
    case TN_DTYPE_I32: *kind = TN_SORTKEY_I32; return 0;
    case TN_DTYPE_I64: *kind = TN_SORTKEY_I64; return 0;
    case TN_DTYPE_U16: *kind = TN_SORTKEY_U16; return 0;
    case TN_DTYPE_U32: *kind = TN_SORTKEY_U32; return 0;
    case TN_DTYPE_U64: *kind = TN_SORTKEY_U64; return 0;
    case TN_DTYPE_F32: *kind = TN_SORTKEY_F32; return 0;
    case TN_DTYPE_F64: *kind = TN_SORTKEY_F64; return 0;
    case TN_DTYPE_F16: case TN_DTYPE_BF16: *kind = TN_SORTKEY_F32; *kd = TN_DTYPE_F32; return 0;
    default:
        PyErr_Format(PyExc_NotImplementedError, "\"sort\" not implemented for '%s'", tn_dtype_cpp_name(d));
        return -1;
    }
}

/* Strides upstream's empty_like(self) gives a result of self's sizes: self's own strides when
 * self is dense and non-overlapping, else contiguous strides in the order of self's strides. */
static void like_strides(const tn_tensor *t, int64_t *st) {
    int nd = t->ndim, perm[TN_MAX_DIMS];
    for (int i = 0; i < nd; i++) perm[i] = i;
    for (int i = 1; i < nd; i++) /* outermost (largest stride) first, stable */
        for (int j = i; j > 0 && t->strides[perm[j]] > t->strides[perm[j - 1]]; j--) {
            int x = perm[j]; perm[j] = perm[j - 1]; perm[j - 1] = x;
        }
    bool dense = true;
    int64_t acc = 1;
    for (int i = nd - 1; i >= 0; i--) {
        int d = perm[i];
        if (t->sizes[d] != 1 && t->strides[d] != acc) dense = false;
        st[d] = acc;
        acc *= t->sizes[d];
    }
    if (dense)
        for (int i = 0; i < nd; i++) st[i] = t->strides[i];
}


/* Sort `self` along dim. Returns values (dtype of self) and indices (int64) in *vals / *idxs,
 * shaped like self but with the sort dim of length `keep` (the first `keep` of each row). */
static int sort_core(PyObject *self, int64_t dim_arg, bool desc, int64_t keep, PyObject **vals, PyObject **idxs) {
    tn_tensor *t = tn_tensor_of(self);
    int dim;
    if (tn_wrap_dim_i(dim_arg, t->ndim, &dim) < 0) return -1;
    tn_sortkey kind;
    tn_dtype kd;
    if (sort_key(t->dtype, &kind, &kd) < 0) return -1;
    int nd = t->ndim;
    int64_t n = nd ? t->sizes[dim] : 1;
    if (keep < 0) keep = n;
    /* view with the sort dim last */
    int64_t vsz[TN_MAX_DIMS], vst[TN_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < nd; d++)
        if (d != dim) { vsz[k] = t->sizes[d]; vst[k++] = t->strides[d]; }
    if (nd) { vsz[k] = t->sizes[dim]; vst[k++] = t->strides[dim]; }
    PyObject *view = tn_tensor_new_view(self, k, vsz, vst, t->offset);
    if (!view) return -1;
    PyObject *keys = tn_tensor_new_empty(k, vsz, kd, TN_DEVICE_CPU);
    if (!keys || tn_copy_into(keys, view) < 0) { Py_DECREF(view); Py_XDECREF(keys); return -1; }
    Py_DECREF(view);
    int64_t total = tn_numel(tn_tensor_of(keys));
    int64_t rows = n ? total / n : 0;
    PyObject *idx = tn_tensor_new_empty(k, vsz, TN_DTYPE_I64, TN_DEVICE_CPU);
    void *scratch = PyMem_Malloc((size_t)(n > 0 ? n : 1) * 16);
    if (!idx || !scratch) {
        Py_DECREF(keys); Py_XDECREF(idx); PyMem_Free(scratch);
        if (!PyErr_Occurred()) PyErr_NoMemory();
        return -1;
    }
    if (total > 0) {
        void *kp = tn_data(tn_tensor_of(keys));
        int64_t *ip = (int64_t *)tn_data(tn_tensor_of(idx));
        Py_BEGIN_ALLOW_THREADS
        tn_sort_rows(kind, kp, ip, rows, n, desc, scratch);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(scratch);
    /* results: sizes of self with the sort dim = keep; copy from the [.., n] buffers */
    int64_t osz[TN_MAX_DIMS];
    for (int d = 0; d < nd; d++) osz[d] = d == dim ? keep : t->sizes[d];
    /* sort keeps self's layout (empty_like); topk's results are contiguous */
    int64_t ost[TN_MAX_DIMS];
    if (keep == n) like_strides(t, ost);
    else tn_contiguous_strides(nd, osz, ost);
    PyObject *vo = tn_tensor_new_strided(nd, osz, ost, t->dtype);
    PyObject *io = tn_tensor_new_strided(nd, osz, ost, TN_DTYPE_I64);
    int rc = -1;
    if (vo && io) {
        /* views of the buffers restricted to the first `keep` and permuted back */
        int64_t bsz[TN_MAX_DIMS], bst[TN_MAX_DIMS], cst[TN_MAX_DIMS];
        tn_contiguous_strides(k, vsz, cst);
        int j = 0;
        for (int d = 0; d < nd; d++) {
            if (d == dim) { bsz[d] = keep; bst[d] = cst[k - 1]; }
            else { bsz[d] = t->sizes[d]; bst[d] = cst[j++]; }
        }
        PyObject *kv = tn_tensor_new_view(keys, nd, bsz, bst, 0);
        PyObject *iv = tn_tensor_new_view(idx, nd, bsz, bst, 0);
        if (kv && iv && tn_copy_into(vo, kv) == 0 && tn_copy_into(io, iv) == 0) rc = 0;
        Py_XDECREF(kv);
        Py_XDECREF(iv);
    }
    Py_DECREF(keys);
    Py_DECREF(idx);
    if (rc < 0) { Py_XDECREF(vo); Py_XDECREF(io); return -1; }
    *vals = vo;
    *idxs = io;
    return 0;
}


/* Copy into out= tensors (values, indices); steals v, i. */
static PyObject *sort_outs(const char *name, PyObject *v, PyObject *i, PyObject *vout, PyObject *iout) {
    tn_tensor *vt = tn_tensor_of(v);
    int rc = -1;
    if (tn_out_prepare(vout, vt->ndim, vt->sizes, vt->dtype, name) == 0 &&
        tn_out_prepare(iout, vt->ndim, vt->sizes, TN_DTYPE_I64, name) == 0 &&
        tn_copy_into(vout, v) == 0 && tn_copy_into(iout, i) == 0)
        rc = 0;
    Py_DECREF(v);
    Py_DECREF(i);
    if (rc < 0) return NULL;
    char cls[32];
    snprintf(cls, sizeof cls, "%s_out", name);
    return tn_return_pair(cls, Py_NewRef(vout), Py_NewRef(iout));
}

static PyObject *sort_impl(PyObject *self, int64_t dim, bool desc, PyObject *vout, PyObject *iout) {
    PyObject *v, *i;
    if (sort_core(self, dim, desc, -1, &v, &i) < 0) return NULL;
    if (vout) return sort_outs("sort", v, i, vout, iout);
    return tn_return_pair("sort", v, i);
}

/* sort(self, dim=-1, descending=False) */
PyObject *tn_op_sort(tn_value *a) { return sort_impl(a[0].u.obj, a[1].u.i, sort_bool(&a[2]), NULL, NULL); }
/* sort.stable(self, *, stable, dim=-1, descending=False) */
PyObject *tn_op_sort_stable(tn_value *a) { return sort_impl(a[0].u.obj, a[2].u.i, sort_bool(&a[3]), NULL, NULL); }
/* sort.values(self, dim=-1, descending=False, *, values, indices) */
PyObject *tn_op_sort_values(tn_value *a) { return sort_impl(a[0].u.obj, a[1].u.i, sort_bool(&a[2]), a[3].u.obj, a[4].u.obj); }
/* sort.values_stable(self, *, stable, dim=-1, descending=False, values, indices) */
PyObject *tn_op_sort_values_stable(tn_value *a) {
    return sort_impl(a[0].u.obj, a[2].u.i, sort_bool(&a[3]), a[4].u.obj, a[5].u.obj);
}

static PyObject *argsort_impl(PyObject *self, int64_t dim, bool desc, PyObject *out) {
    PyObject *v, *i;
    if (sort_core(self, dim, desc, -1, &v, &i) < 0) return NULL;
    Py_DECREF(v);
    if (!out) return i;
    tn_tensor *it = tn_tensor_of(i);
    if (tn_out_prepare(out, it->ndim, it->sizes, TN_DTYPE_I64, "argsort") < 0 || tn_copy_into(out, i) < 0) {
        Py_DECREF(i);
        return NULL;
    }
    Py_DECREF(i);
    return Py_NewRef(out);
}

PyObject *tn_op_argsort(tn_value *a) { return argsort_impl(a[0].u.obj, a[1].u.i, sort_bool(&a[2]), NULL); }
PyObject *tn_op_argsort_stable(tn_value *a) { return argsort_impl(a[0].u.obj, a[2].u.i, sort_bool(&a[3]), NULL); }
PyObject *tn_op_argsort_stable_out(tn_value *a) { return argsort_impl(a[0].u.obj, a[2].u.i, sort_bool(&a[3]), a[4].u.obj); }

static PyObject *msort_impl(PyObject *self, PyObject *out) {
    PyObject *v, *i;
    if (sort_core(self, 0, false, -1, &v, &i) < 0) return NULL;
    Py_DECREF(i);
    if (!out) return v;
    tn_tensor *vt = tn_tensor_of(v);
    if (tn_out_prepare(out, vt->ndim, vt->sizes, vt->dtype, "msort") < 0 || tn_copy_into(out, v) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    Py_DECREF(v);
    return Py_NewRef(out);
}

PyObject *tn_op_msort(tn_value *a) { return msort_impl(a[0].u.obj, NULL); }
PyObject *tn_op_msort_out(tn_value *a) { return msort_impl(a[0].u.obj, a[1].u.obj); }

/* topk(self, k, dim=-1, largest=True, sorted=True) */
static PyObject *topk_impl(tn_value *a, PyObject *vout, PyObject *iout) {
    tn_tensor *t = tn_tensor_of(a[0].u.obj);
    int dim;
    if (tn_wrap_dim_i(a[2].u.i, t->ndim, &dim) < 0) return NULL;
    int64_t n = t->ndim ? t->sizes[dim] : 1, k = a[1].u.i;
    if (k < 0 || k > n) {
        PyErr_SetString(PyExc_RuntimeError, "selected index k out of range");
        return NULL;
    }
    PyObject *v, *i;
    if (sort_core(a[0].u.obj, a[2].u.i, sort_bool(&a[3]), k, &v, &i) < 0) return NULL;
    if (vout) return sort_outs("topk", v, i, vout, iout);
    return tn_return_pair("topk", v, i);
}

PyObject *tn_op_topk(tn_value *a) { return topk_impl(a, NULL, NULL); }
PyObject *tn_op_topk_values(tn_value *a) { return topk_impl(a, a[5].u.obj, a[6].u.obj); }
