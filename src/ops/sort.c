/* ops/sort.c — sort, argsort, msort and topk.
 *
 * The sort dimension is moved last in a contiguous copy (f16/bf16 widened to f32, exactly), each
 * row is stably merge-sorted with its positions (kernels/nn.h tn_sort_rows), and values and
 * int64 indices are written back in the input's shape (contiguous). NaN sorts as the largest
 * value, as upstream. Upstream's default (stable=False) sort may order equal keys differently (it
 * uses unstable vectorised sorts); results agree wherever keys are distinct. topk follows
 * upstream's selection step by step (kernels/ref/topk.c), equal keys included. */
#include "ops/common.h"

#include "kernels/nn.h"

#include <math.h>
#include <stdio.h>


static bool sort_bool(const tn_value *v) { return (v->tag == TN_V_BOOL || v->tag == TN_V_INT) && v->u.i != 0; }

/* Key kind and the dtype keys are stored in. */
static int sort_key(tn_dtype d, tn_sortkey *kind, tn_dtype *kd, bool topk) {
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
    default: /* upstream's refusals (measured): complex first, then its dispatch macros' names */
        if (tn_dtype_is_complex(d))
            PyErr_Format(PyExc_RuntimeError, " %s does not support complex dtypes on CPU", topk ? "topk" : "Sort");
        else
            PyErr_Format(PyExc_NotImplementedError, "\"%s\" not implemented for '%s'",
                         topk ? "topk_cpu" : "sorting_kernel_method_name", tn_dtype_cpp_name(d));
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


/* Sort `self` along dim into contiguous buffers with the sort dim last: *keys (dtype *kd, f16/bf16
 * widened to f32) and *idx (int64), both of sizes vsz[0..*kn) (self's other dims, then n). With
 * topk >= 0 only the first topk of each row are meaningful: upstream's topk selection
 * (tn_topk_rows; largest = desc) instead of the sort. */
static int select_rows(PyObject *self, int dim, bool desc, int64_t topk, bool topk_sorted, tn_sortkey *kind,
                       tn_dtype *kd, PyObject **keys_out, PyObject **idx_out, int64_t *vsz, int *kn) {
    tn_tensor *t = tn_tensor_of(self);
    if (sort_key(t->dtype, kind, kd, topk >= 0) < 0) return -1;
    int nd = t->ndim;
    int64_t n = nd ? t->sizes[dim] : 1;
    /* view with the sort dim last */
    int64_t vst[TN_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < nd; d++)
        if (d != dim) { vsz[k] = t->sizes[d]; vst[k++] = t->strides[d]; }
    if (nd) { vsz[k] = t->sizes[dim]; vst[k++] = t->strides[dim]; }
    PyObject *view = tn_tensor_new_view(self, k, vsz, vst, t->offset);
    if (!view) return -1;
    PyObject *keys = tn_tensor_new_empty(k, vsz, *kd, TN_DEVICE_CPU);
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
        tn_sortkey kk = *kind;
        Py_BEGIN_ALLOW_THREADS
        if (topk >= 0) tn_topk_rows(kk, kp, ip, rows, n, topk, desc, topk_sorted, scratch);
        else tn_sort_rows(kk, kp, ip, rows, n, desc, scratch);
        Py_END_ALLOW_THREADS
    }
    PyMem_Free(scratch);
    *keys_out = keys;
    *idx_out = idx;
    *kn = k;
    return 0;
}

/* Sort `self` along dim (keep < 0), or take its top `keep` as upstream's topk (sorted or not).
 * Returns values (dtype of self) and indices (int64) in *vals / *idxs, shaped like self but with
 * the sort dim of length `keep` (the first `keep` of each row). */
static int sort_core(PyObject *self, int64_t dim_arg, bool desc, int64_t keep, bool topk_sorted, PyObject **vals,
                     PyObject **idxs) {
    tn_tensor *t = tn_tensor_of(self);
    int dim;
    if (tn_wrap_dim_i(dim_arg, t->ndim, &dim) < 0) return -1;
    tn_sortkey kind;
    tn_dtype kd;
    int nd = t->ndim, k;
    int64_t n = nd ? t->sizes[dim] : 1;
    int64_t vsz[TN_MAX_DIMS];
    PyObject *keys, *idx;
    if (select_rows(self, dim, desc, keep, topk_sorted, &kind, &kd, &keys, &idx, vsz, &k) < 0) return -1;
    if (keep < 0) keep = n;
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
/* The out= tensors of sort / topk and of the value-selecting ops (median, kthvalue, mode: self
 * NULL). Upstream's kernels write them through a TensorIterator or copy_ (sort's values.copy_(self)),
 * so values and indices as resized may not overlap themselves, and sort's / topk's values may not
 * partially overlap self (measured: docs/breadth_more2.md, "third pass"). */
static PyObject *sort_outs(const char *name, PyObject *self, PyObject *v, PyObject *i, PyObject *vout, PyObject *iout) {
    tn_tensor *vt = tn_tensor_of(v);
    int rc = -1;
    if (tn_out_dtype_exact(vout, vt->dtype) == 0 && tn_out_dtype_exact(iout, TN_DTYPE_I64) == 0 &&
        tn_out_prepare(vout, vt->ndim, vt->sizes, vt->dtype, name) == 0 &&
        tn_out_prepare(iout, vt->ndim, vt->sizes, TN_DTYPE_I64, name) == 0 &&
        tn_check_overlap(vout, self ? 1 : 0, &self) == 0 && tn_check_overlap(iout, 0, NULL) == 0 &&
        tn_copy_into(vout, v) == 0 && tn_copy_into(iout, i) == 0)
        rc = 0;
    Py_DECREF(v);
    Py_DECREF(i);
    if (rc < 0) return NULL;
    char cls[32];
    snprintf(cls, sizeof cls, "%s_out", name);
    return tn_return_pair(cls, Py_NewRef(vout), Py_NewRef(iout));
}

/* sort's out= forms: (complex refused first by sort_core), the dim, then out='s exact dtypes, then
 * the kernel's dtypes (measured: float8 into a float out=) */
static int sort_out_checks(PyObject *self, int64_t dim, PyObject *vout, PyObject *iout) {
    const tn_tensor *t = tn_tensor_of(self);
    int d;
    if (tn_dtype_is_complex(t->dtype)) return 0;
    if (tn_wrap_dim_i(dim, t->ndim, &d) < 0) return -1;
    return tn_out_dtype_exact(vout, t->dtype) < 0 || tn_out_dtype_exact(iout, TN_DTYPE_I64) < 0 ? -1 : 0;
}

/* On meta, upstream's Meta kernel of sort (Python meta_sort, which argsort reaches too) checks
 * nothing (no dim wrap, any dtype): values = empty_like(self), indices = empty_like(self, int64);
 * out= tensors are resized, restrided to those and take them by the references' safe-cast copy,
 * values first (measured: docs/breadth_more2.md "group meta (session 40)"). */
static PyObject *sort_meta(PyObject *self, PyObject *vout, PyObject *iout, bool want_values) {
    PyObject *v = want_values ? tn_at_empty_like(self, NULL, NULL, NULL, NULL, NULL) : NULL;
    PyObject *i = tn_at_empty_like(self, TN_DT(TN_DTYPE_I64), NULL, NULL, NULL, NULL);
    if ((want_values && !v) || !i) goto fail;
    if (iout) {
        /* both resized and restrided before either copy */
        PyObject *outs[2] = {vout, iout}, *res[2] = {v, i};
        for (int k = want_values ? 0 : 1; k < 2; k++) {
            const tn_tensor *r = tn_tensor_of(res[k]);
            if (tn_out_prepare(outs[k], r->ndim, r->sizes, tn_tensor_of(outs[k])->dtype, "sort") < 0) goto fail;
        }
        for (int k = want_values ? 0 : 1; k < 2; k++) {
            PyObject *o = tn_meta_copy_out(res[k], outs[k], true);
            if (!o) goto fail;
            Py_DECREF(o);
        }
        Py_XDECREF(v);
        Py_DECREF(i);
        return want_values ? tn_return_pair("sort_out", Py_NewRef(vout), Py_NewRef(iout)) : Py_NewRef(iout);
    }
    return want_values ? tn_return_pair("sort", v, i) : i;
fail:
    Py_XDECREF(v);
    Py_XDECREF(i);
    return NULL;
}

static PyObject *sort_impl(PyObject *self, int64_t dim, bool desc, PyObject *vout, PyObject *iout) {
    PyObject *v, *i;
    if (tn_door_on_meta()) return sort_meta(self, vout, iout, true);
    if (vout && sort_out_checks(self, dim, vout, iout) < 0) return NULL;
    if (sort_core(self, dim, desc, -1, false, &v, &i) < 0) return NULL;
    if (vout) return sort_outs("sort", self, v, i, vout, iout);
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
    if (tn_door_on_meta()) return sort_meta(self, NULL, out, false);
    if (out && sort_out_checks(self, dim, NULL, out) < 0) return NULL;
    if (sort_core(self, dim, desc, -1, false, &v, &i) < 0) return NULL;
    Py_DECREF(v);
    if (!out) return i;
    tn_tensor *it = tn_tensor_of(i);
    if (tn_out_dtype_exact(out, TN_DTYPE_I64) < 0 ||
        tn_out_prepare(out, it->ndim, it->sizes, TN_DTYPE_I64, "argsort") < 0 || tn_check_overlap(out, 0, NULL) < 0 ||
        tn_copy_into(out, i) < 0) {
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
    if (out && sort_out_checks(self, 0, out, NULL) < 0) return NULL;
    if (sort_core(self, 0, false, -1, false, &v, &i) < 0) return NULL;
    Py_DECREF(i);
    if (!out) return v;
    tn_tensor *vt = tn_tensor_of(v);
    if (tn_out_dtype_exact(out, vt->dtype) < 0 ||
        tn_out_prepare(out, vt->ndim, vt->sizes, vt->dtype, "msort") < 0 || tn_check_overlap(out, 1, &self) < 0 ||
        tn_copy_into(out, v) < 0) {
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
    if (t->dtype == TN_DTYPE_BOOL) {
        PyErr_SetString(PyExc_RuntimeError, "topk does not support bool dtypes on CPU");
        return NULL;
    }
    /* then out='s exact dtypes, then the kernel's (measured: float8 / uint16) */
    if (tn_out_dtype_exact(vout, t->dtype) < 0 || tn_out_dtype_exact(iout, TN_DTYPE_I64) < 0) return NULL;
    if (tn_dtype_barebones(t->dtype)) return tn_kernel_missing("topk_cpu", t->dtype);
    PyObject *v, *i;
    if (sort_core(a[0].u.obj, a[2].u.i, sort_bool(&a[3]), k, sort_bool(&a[4]), &v, &i) < 0) return NULL;
    if (vout) return sort_outs("topk", a[0].u.obj, v, i, vout, iout);
    return tn_return_pair("topk", v, i);
}

PyObject *tn_op_topk(tn_value *a) { return topk_impl(a, NULL, NULL); }
PyObject *tn_op_topk_values(tn_value *a) { return topk_impl(a, a[5].u.obj, a[6].u.obj); }


/* ---- kthvalue, median, nanmedian, mode (one element of each sorted row) ----
 * The row is stably sorted (NaN last) and tn_select_rows picks the element. Indices among equal
 * keys may differ from upstream's (its quick-select / std::sort order them differently). */

static bool select_dtype_ok(tn_dtype d, bool allow_bool) {
    switch (d) {
    case TN_DTYPE_BOOL: return allow_bool;
    case TN_DTYPE_U8: case TN_DTYPE_I8: case TN_DTYPE_I16: case TN_DTYPE_I32: case TN_DTYPE_I64:
    case TN_DTYPE_F32: case TN_DTYPE_F64: case TN_DTYPE_F16: case TN_DTYPE_BF16: return true;
    default: return false;
    }
}

static const char *legacy_name(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_F32: return "Float"; case TN_DTYPE_F64: return "Double"; case TN_DTYPE_F16: return "Half";
    case TN_DTYPE_BF16: return "BFloat16"; case TN_DTYPE_I64: return "Long"; case TN_DTYPE_I32: return "Int";
    case TN_DTYPE_I16: return "Short"; case TN_DTYPE_I8: return "Char"; case TN_DTYPE_U8: return "Byte";
    case TN_DTYPE_BOOL: return "Bool"; default: return "";
    }
}

/* upstream's checkScalarType / checkSameType on out= tensors of the value-selecting ops */
static int select_check_outs(const char *name, const tn_tensor *t, PyObject *vout, PyObject *iout) {
    const tn_tensor *v = tn_tensor_of(vout), *i = tn_tensor_of(iout);
    if (v->dtype != t->dtype) {
        PyErr_Format(PyExc_RuntimeError,
                     "Expected tensor for 'values' to have the same type as tensor for argument #2 'self'; but type "
                     "torch.%sTensor does not equal torch.%sTensor (while checking arguments for %s)",
                     legacy_name(v->dtype), legacy_name(t->dtype), name);
        return -1;
    }
    if (i->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError,
                     "Expected tensor for argument #1 'indices' to have scalar type Long; but got torch.%sTensor "
                     "instead (while checking arguments for %s)", legacy_name(i->dtype), name);
        return -1;
    }
    return 0;
}

/* Values and indices of `how` along dim; `kname` names the kernel in dtype refusals. */
static int select_core(PyObject *self, int64_t dim_arg, bool keepdim, tn_select_how how, int64_t kth,
                       const char *name, const char *kname, PyObject **vals, PyObject **idxs) {
    tn_tensor *t = tn_tensor_of(self);
    if (!select_dtype_ok(t->dtype, how == TN_SELECT_MODE)) { tn_kernel_missing(kname, t->dtype); return -1; }
    int dim;
    if (tn_wrap_dim_i(dim_arg, t->ndim, &dim) < 0) return -1;
    int nd = t->ndim;
    int64_t n = nd ? t->sizes[dim] : 1;
    if (n == 0) {
        /* upstream's median and nanmedian share one implementation and its "median()" message */
        PyErr_Format(PyExc_IndexError, "%s(): Expected reduction dim %d to have non-zero size.",
                     how == TN_SELECT_NANMEDIAN ? "median" : name, dim);
        return -1;
    }
    if (how == TN_SELECT_KTH && (kth < 1 || kth > n)) {
        PyErr_Format(PyExc_RuntimeError, "kthvalue(): selected number k out of range for dimension %d", dim);
        return -1;
    }
    int64_t osz[TN_MAX_DIMS];
    int on = 0;
    for (int d = 0; d < nd; d++) {
        if (d != dim) osz[on++] = t->sizes[d];
        else if (keepdim) osz[on++] = 1;
    }
    tn_sortkey kind;
    tn_dtype kd;
    int64_t vsz[TN_MAX_DIMS];
    int kn;
    PyObject *keys, *idx;
    if (select_rows(self, dim, false, -1, false, &kind, &kd, &keys, &idx, vsz, &kn) < 0) return -1;
    PyObject *ok = tn_tensor_new_empty(on, osz, kd, TN_DEVICE_CPU);
    PyObject *oi = tn_tensor_new_empty(on, osz, TN_DTYPE_I64, TN_DEVICE_CPU);
    if (!ok || !oi) { Py_DECREF(keys); Py_DECREF(idx); Py_XDECREF(ok); Py_XDECREF(oi); return -1; }
    int64_t rows = tn_numel(tn_tensor_of(ok));
    if (rows > 0)
        tn_select_rows(kind, tn_data(tn_tensor_of(keys)), (const int64_t *)tn_data(tn_tensor_of(idx)), rows, n, how,
                       kth, tn_data(tn_tensor_of(ok)), (int64_t *)tn_data(tn_tensor_of(oi)));
    Py_DECREF(keys);
    Py_DECREF(idx);
    if (kd != t->dtype) {   /* f16 / bf16 keys were widened exactly; narrow back */
        PyObject *v = tn_tensor_new_empty(on, osz, t->dtype, TN_DEVICE_CPU);
        if (!v || tn_copy_into(v, ok) < 0) { Py_XDECREF(v); Py_DECREF(ok); Py_DECREF(oi); return -1; }
        Py_DECREF(ok);
        ok = v;
    }
    *vals = ok;
    *idxs = oi;
    return 0;
}

static PyObject *select_op(tn_value *self, int64_t dim, bool keepdim, tn_select_how how, int64_t kth, const char *name,
                           const char *kname, PyObject *vout, PyObject *iout) {
    /* kthvalue / median / nanmedian wrap dim before the out= and dtype checks, mode after out=; kthvalue
     * then checks the dim's size and k (measured, docs/breadth_more2.md) */
    const tn_tensor *st = TN_T(*self);
    int wd;
    if (how == TN_SELECT_MODE && vout && select_check_outs(name, st, vout, iout) < 0) return NULL;   /* mode: out= first */
    if (tn_wrap_dim_i(dim, st->ndim, &wd) < 0) return NULL;
    int64_t slice = st->ndim ? st->sizes[wd] : 1;
    if (how == TN_SELECT_KTH && slice == 0) {
        PyErr_Format(PyExc_IndexError, "%s(): Expected reduction dim %d to have non-zero size.", name, wd);
        return NULL;
    }
    if (how == TN_SELECT_KTH && (kth < 1 || kth > slice)) {
        PyErr_Format(PyExc_RuntimeError, "kthvalue(): selected number k out of range for dimension %d", wd);
        return NULL;
    }
    if (how != TN_SELECT_MODE && vout && select_check_outs(name, st, vout, iout) < 0) return NULL;
    PyObject *v, *i;
    if (select_core(self->u.obj, dim, keepdim, how, kth, name, kname, &v, &i) < 0) return NULL;
    if (vout) return sort_outs(name, NULL, v, i, vout, iout);
    return tn_return_pair(name, v, i);
}

/* kthvalue(self, k, dim=-1, keepdim=False) */
PyObject *tn_op_kthvalue(tn_value *a) { return select_op(&a[0], a[2].u.i, sort_bool(&a[3]), TN_SELECT_KTH, a[1].u.i, "kthvalue", "kthvalue_cpu", NULL, NULL); }
PyObject *tn_op_kthvalue_values(tn_value *a) {
    return select_op(&a[0], a[2].u.i, sort_bool(&a[3]), TN_SELECT_KTH, a[1].u.i, "kthvalue", "kthvalue_cpu", a[4].u.obj, a[5].u.obj);
}
/* median.dim(self, dim, keepdim=False) */
PyObject *tn_op_median_dim(tn_value *a) { return select_op(&a[0], a[1].u.i, sort_bool(&a[2]), TN_SELECT_MEDIAN, 0, "median", "median_out", NULL, NULL); }
PyObject *tn_op_median_dim_values(tn_value *a) {
    return select_op(&a[0], a[1].u.i, sort_bool(&a[2]), TN_SELECT_MEDIAN, 0, "median", "median_out", a[3].u.obj, a[4].u.obj);
}
PyObject *tn_op_nanmedian_dim(tn_value *a) { return select_op(&a[0], a[1].u.i, sort_bool(&a[2]), TN_SELECT_NANMEDIAN, 0, "nanmedian", "median_out", NULL, NULL); }
PyObject *tn_op_nanmedian_dim_values(tn_value *a) {
    return select_op(&a[0], a[1].u.i, sort_bool(&a[2]), TN_SELECT_NANMEDIAN, 0, "nanmedian", "median_out", a[3].u.obj, a[4].u.obj);
}
/* mode(self, dim=-1, keepdim=False) */
PyObject *tn_op_mode(tn_value *a) { return select_op(&a[0], a[1].u.i, sort_bool(&a[2]), TN_SELECT_MODE, 0, "mode", "mode_cpu", NULL, NULL); }
PyObject *tn_op_mode_values(tn_value *a) {
    return select_op(&a[0], a[1].u.i, sort_bool(&a[2]), TN_SELECT_MODE, 0, "mode", "mode_cpu", a[3].u.obj, a[4].u.obj);
}

/* median() / nanmedian(): the selected element of all elements (NaN for an empty input). */
static PyObject *median_all(tn_value *a, tn_select_how how) {
    tn_tensor *t = tn_tensor_of(a[0].u.obj);
    if (!select_dtype_ok(t->dtype, false)) return tn_kernel_missing("median_cpu", t->dtype);
    int64_t numel = tn_numel(t);
    if (numel == 0) {
        PyObject *r = tn_tensor_new_empty(0, NULL, t->dtype, TN_DEVICE_CPU);
        tn_value nan = {.tag = TN_V_FLOAT, .u.f = NAN};
        if (r && tn_fill_number(r, &nan) < 0) Py_CLEAR(r);
        return r;
    }
    /* a contiguous copy seen as one row */
    PyObject *c = tn_tensor_new_empty(t->ndim, t->sizes, t->dtype, TN_DEVICE_CPU);
    if (!c || tn_copy_into(c, a[0].u.obj) < 0) { Py_XDECREF(c); return NULL; }
    int64_t one = 1;
    PyObject *flat = tn_tensor_new_view(c, 1, &numel, &one, 0);
    Py_DECREF(c);
    if (!flat) return NULL;
    PyObject *v, *i;
    int rc = select_core(flat, 0, false, how, 0, "median", "median_cpu", &v, &i);
    Py_DECREF(flat);
    if (rc < 0) return NULL;
    Py_DECREF(i);
    return v;
}
PyObject *tn_op_median(tn_value *a) { return median_all(a, TN_SELECT_MEDIAN); }
PyObject *tn_op_nanmedian(tn_value *a) { return median_all(a, TN_SELECT_NANMEDIAN); }


/* ---- unique family: _unique2 / _unique (sorted), unique_consecutive, unique_dim(_consecutive) ----
 * Elements (or slices along dim) are stably sorted (NaN last) and runs of equal keys merged; each
 * NaN is a run of its own, as upstream's `!=` comparison makes it. Results are plain tuples. */

static int unique_dtype(tn_dtype d) {
    if (select_dtype_ok(d, true) || d == TN_DTYPE_U16 || d == TN_DTYPE_U32 || d == TN_DTYPE_U64) return 0;
    tn_kernel_missing("unique", d);
    return -1;
}

/* A contiguous copy of self's elements as one row of n keys in the key dtype. */
static PyObject *flat_keys(PyObject *self, tn_dtype kd) {
    tn_tensor *t = tn_tensor_of(self);
    int64_t n = tn_numel(t), one = 1;
    PyObject *c = tn_tensor_new_empty(t->ndim, t->sizes, kd, TN_DEVICE_CPU);
    if (!c || tn_copy_into(c, self) < 0) { Py_XDECREF(c); return NULL; }
    PyObject *flat = tn_tensor_new_view(c, 1, &n, &one, 0);
    Py_DECREF(c);
    return flat;
}

/* The first m keys of a kd buffer as a new 1-D tensor of dtype dt. */
static PyObject *first_keys(PyObject *buf, int64_t m, tn_dtype dt) {
    int64_t one = 1;
    PyObject *v = tn_tensor_new_view(buf, 1, &m, &one, 0);
    PyObject *r = v ? tn_tensor_new_empty(1, &m, dt, TN_DEVICE_CPU) : NULL;
    if (r && tn_copy_into(r, v) < 0) Py_CLEAR(r);
    Py_XDECREF(v);
    return r;
}

static PyObject *empty_i64(void) { int64_t z = 0; return tn_tensor_new_empty(1, &z, TN_DTYPE_I64, TN_DEVICE_CPU); }

/* unique over all elements: sorted (`sort`) or consecutive runs in order */
static PyObject *unique_flat(PyObject *self, bool sort, bool want_inv, bool want_cnt, int nret) {
    tn_tensor *t = tn_tensor_of(self);
    if (unique_dtype(t->dtype) < 0) return NULL;
    tn_sortkey kind;
    tn_dtype kd;
    if (sort_key(t->dtype, &kind, &kd, false) < 0) return NULL;
    int64_t n = tn_numel(t);
    PyObject *keys = NULL, *pos = NULL, *okeys = NULL, *inv = NULL, *cnt = NULL, *vals = NULL, *cnt_out = NULL;
    PyObject *flat = flat_keys(self, kd);
    if (!flat) return NULL;
    if (sort) {
        int64_t vsz[TN_MAX_DIMS];
        int kn;
        int rc = select_rows(flat, 0, false, -1, false, &kind, &kd, &keys, &pos, vsz, &kn);
        Py_DECREF(flat);
        if (rc < 0) return NULL;
    } else {
        keys = flat;
    }
    okeys = tn_tensor_new_empty(1, &n, kd, TN_DEVICE_CPU);
    cnt = tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU);
    inv = want_inv ? tn_tensor_new_empty(t->ndim, t->sizes, TN_DTYPE_I64, TN_DEVICE_CPU) : empty_i64();
    PyObject *res = NULL;
    if (okeys && cnt && inv) {
        int64_t m = tn_unique_runs(kind, tn_data(tn_tensor_of(keys)), pos ? (const int64_t *)tn_data(tn_tensor_of(pos)) : NULL,
                                   n, tn_data(tn_tensor_of(okeys)), want_inv ? (int64_t *)tn_data(tn_tensor_of(inv)) : NULL,
                                   (int64_t *)tn_data(tn_tensor_of(cnt)));
        vals = first_keys(okeys, m, t->dtype);
        cnt_out = want_cnt ? first_keys(cnt, m, TN_DTYPE_I64) : empty_i64();
        if (vals && cnt_out)
            res = nret == 2 ? PyTuple_Pack(2, vals, inv) : PyTuple_Pack(3, vals, inv, cnt_out);
    }
    Py_XDECREF(keys); Py_XDECREF(pos); Py_XDECREF(okeys); Py_XDECREF(cnt); Py_XDECREF(inv);
    Py_XDECREF(vals); Py_XDECREF(cnt_out);
    return res;
}

/* unique over slices along dim (always returns inverse and counts, as upstream) */
static PyObject *unique_slices(PyObject *self, int64_t dim_arg, bool consecutive) {
    tn_tensor *t = tn_tensor_of(self);
    if (unique_dtype(t->dtype) < 0) return NULL;
    if (t->ndim == 0) {
        PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no dimensions", (long long)dim_arg);
        return NULL;
    }
    int dim;
    if (tn_wrap_dim_i(dim_arg, t->ndim, &dim) < 0) return NULL;
    int nd = t->ndim;
    int64_t n = t->sizes[dim], w = 1;
    for (int d = 0; d < nd; d++)
        if (d != dim) w *= t->sizes[d];
    if (tn_numel(t) == 0) {
        if (n != 0) {
            PyErr_SetString(PyExc_RuntimeError, "There are 0 sized dimensions, and they aren't selected, so unique cannot be applied");
            return NULL;
        }
        PyObject *v = tn_tensor_new_empty(nd, t->sizes, t->dtype, TN_DEVICE_CPU), *i = empty_i64(), *c = empty_i64();
        PyObject *r = v && i && c ? PyTuple_Pack(3, v, i, c) : NULL;
        Py_XDECREF(v); Py_XDECREF(i); Py_XDECREF(c);
        return r;
    }
    tn_sortkey kind;
    tn_dtype kd;
    if (sort_key(t->dtype, &kind, &kd, false) < 0) return NULL;
    /* moved: [n, others...] contiguous in kd */
    int64_t msz[TN_MAX_DIMS], mst[TN_MAX_DIMS];
    msz[0] = n; mst[0] = t->strides[dim];
    for (int d = 0, j = 1; d < nd; d++)
        if (d != dim) { msz[j] = t->sizes[d]; mst[j++] = t->strides[d]; }
    PyObject *mv = tn_tensor_new_view(self, nd, msz, mst, t->offset);
    PyObject *moved = mv ? tn_tensor_new_empty(nd, msz, kd, TN_DEVICE_CPU) : NULL;
    if (moved && tn_copy_into(moved, mv) < 0) Py_CLEAR(moved);
    Py_XDECREF(mv);
    if (!moved) return NULL;
    PyObject *inv = tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU);
    PyObject *cnt = tn_tensor_new_empty(1, &n, TN_DTYPE_I64, TN_DEVICE_CPU);
    int64_t *perm = PyMem_Malloc((size_t)n * 3 * sizeof(int64_t));
    PyObject *res = NULL, *vals = NULL, *cnt_out = NULL, *om = NULL;
    if (inv && cnt && perm) {
        int64_t *first = perm + n, *scratch = perm + 2 * n;
        const char *data = tn_data(tn_tensor_of(moved));
        int64_t m = tn_unique_rows(kind, data, n, w, consecutive, perm, first, (int64_t *)tn_data(tn_tensor_of(inv)),
                                   (int64_t *)tn_data(tn_tensor_of(cnt)), scratch);
        /* om: [m, others...] in kd: the first row of each run */
        msz[0] = m;
        om = tn_tensor_new_empty(nd, msz, kd, TN_DEVICE_CPU);
        if (om) {
            size_t rb = (size_t)w * tn_dtype_itemsize(kd);
            char *o = tn_data(tn_tensor_of(om));
            for (int64_t r = 0; r < m; r++) memcpy(o + r * rb, data + perm[first[r]] * rb, rb);
            /* back in self's dim order */
            int64_t osz[TN_MAX_DIMS], ost[TN_MAX_DIMS], cst[TN_MAX_DIMS];
            tn_contiguous_strides(nd, msz, cst);
            for (int d = 0, j = 1; d < nd; d++) {
                if (d == dim) { osz[d] = m; ost[d] = cst[0]; }
                else { osz[d] = msz[j]; ost[d] = cst[j++]; }
            }
            PyObject *ov = tn_tensor_new_view(om, nd, osz, ost, 0);
            vals = ov ? tn_tensor_new_strided(nd, osz, ost, t->dtype) : NULL;   /* moved-back strides, as upstream's */
            if (vals && tn_copy_into(vals, ov) < 0) Py_CLEAR(vals);
            Py_XDECREF(ov);
            cnt_out = vals ? first_keys(cnt, m, TN_DTYPE_I64) : NULL;
            if (cnt_out) res = PyTuple_Pack(3, vals, inv, cnt_out);
        }
    } else if (!perm) {
        PyErr_NoMemory();
    }
    PyMem_Free(perm);
    Py_DECREF(moved); Py_XDECREF(inv); Py_XDECREF(cnt); Py_XDECREF(om); Py_XDECREF(vals); Py_XDECREF(cnt_out);
    return res;
}

/* _unique2(self, sorted=True, return_inverse=False, return_counts=False): CPU always sorts */
PyObject *tn_op__unique2(tn_value *a) {
    return unique_flat(a[0].u.obj, true, sort_bool(&a[2]), sort_bool(&a[3]), 3);
}
/* _unique(self, sorted=True, return_inverse=False) */
PyObject *tn_op__unique(tn_value *a) {
    return unique_flat(a[0].u.obj, true, sort_bool(&a[2]), false, 2);
}
/* unique_consecutive(self, return_inverse=False, return_counts=False, dim=None) */
PyObject *tn_op_unique_consecutive(tn_value *a) {
    if (!tn_is_none(&a[3]) && !(a[3].u.i == 0 && TN_T(a[0])->ndim == 1)) return unique_slices(a[0].u.obj, a[3].u.i, true);
    return unique_flat(a[0].u.obj, false, sort_bool(&a[1]), sort_bool(&a[2]), 3);
}
/* unique_dim(self, dim, sorted=True, return_inverse=False, return_counts=False) */
PyObject *tn_op_unique_dim(tn_value *a) {
    return unique_slices(a[0].u.obj, a[1].u.i, false);
}
/* unique_dim_consecutive(self, dim, return_inverse=False, return_counts=False) */
PyObject *tn_op_unique_dim_consecutive(tn_value *a) {
    return unique_slices(a[0].u.obj, a[1].u.i, true);
}
