/* ops/search.c — searchsorted / bucketize (binary search of sorted rows), histc (equal-width bin
 * counts) and _is_all_true / _is_any_true.
 *
 * searchsorted follows upstream's checks and messages; values and boundaries are converted to
 * promote_types(boundaries, values) first (so an int64 boundary and a float value compare as
 * upstream compares them), then widened exactly for the kernel (kernels/search.h). histc takes
 * its range from min/max or the input's extrema, widens an empty range as upstream (one float
 * step of the dtype, at least 1), and counts in the input's dtype. */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "kernels/search.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- searchsorted / bucketize ---- */

static void shape_str(char *b, size_t n, const tn_tensor *t) { tn_shape_str(b, n, t->ndim, t->sizes); }

/* A 0-dim tensor holding a Scalar argument (a wrapped number: int64, float64 or bool). */
static PyObject *scalar_tensor(const tn_value *v) {
    PyObject *t = tn_tensor_new_empty(0, NULL, tn_number_dtype(v), TN_DEVICE_CPU);
    if (t && tn_fill_number(t, v) < 0) Py_CLEAR(t);
    return t;
}

/* Contiguous copy of t in dtype `common`, then widened exactly to f64 (floating) or i64. */
static PyObject *search_operand(PyObject *t, tn_dtype common) {
    PyObject *c = tn_as_dtype(t, common, true);
    if (!c) return NULL;
    PyObject *w = tn_as_dtype(c, tn_dtype_is_floating(common) ? TN_DTYPE_F64 : TN_DTYPE_I64, true);
    Py_DECREF(c);
    return w;
}

/* searchsorted(sorted_sequence, self, out_int32, right, side, sorter, out) */
static PyObject *searchsorted(PyObject *bnd, PyObject *self, bool out_int32, bool right, const tn_value *side,
                              PyObject *sorter, PyObject *out, const char *name) {
    const tn_tensor *b = tn_tensor_of(bnd), *v = tn_tensor_of(self);
    char bs[160], vs[160];
    if (side && !tn_is_none(side)) {
        const char *sd = PyUnicode_AsUTF8AndSize(side->u.obj, NULL);
        if (!sd) return NULL;
        bool is_right = strcmp(sd, "right") == 0;
        if (!is_right && strcmp(sd, "left") != 0)
            return PyErr_Format(PyExc_RuntimeError,
                                "torch.searchsorted(): side can only be 'left' or 'right' but got %s", sd);
        if (right && !is_right)
            return PyErr_Format(PyExc_RuntimeError,
                                "torch.searchsorted(): side and right can't be set to opposites, got side of %s "
                                "while right was True", sd);
        right = is_right;
    }
    if (b->ndim == 0)
        return PyErr_Format(PyExc_RuntimeError, "torch.searchsorted(): boundaries tensor should have positive "
                                                "dimension, but got 0 dimension");
    bool shared = b->ndim == 1;
    if (!shared) {
        bool ok = b->ndim == v->ndim;
        for (int d = 0; ok && d < b->ndim - 1; d++) ok = b->sizes[d] == v->sizes[d];
        if (!ok) {
            shape_str(bs, sizeof bs, b);
            shape_str(vs, sizeof vs, v);
            return PyErr_Format(PyExc_RuntimeError,
                                "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 "
                                "dimensions of boundaries tensor and input value tensor must match, but we got "
                                "boundaries tensor %s and input value tensor %s", bs, vs);
        }
    }
    if (sorter) {
        const tn_tensor *s = tn_tensor_of(sorter);
        bool same = s->ndim == b->ndim;
        for (int d = 0; same && d < b->ndim; d++) same = s->sizes[d] == b->sizes[d];
        if (!same) {
            shape_str(bs, sizeof bs, b);
            shape_str(vs, sizeof vs, s);
            return PyErr_Format(PyExc_RuntimeError, "torch.searchsorted(): boundary and sorter must have the same "
                                                    "size, but got boundary tensor %sand got sorter tensor %s", bs, vs);
        }
        if (s->dtype != TN_DTYPE_I64)
            return PyErr_Format(PyExc_RuntimeError, "torch.searchsorted(): sorter must be a tensor of long dtype "
                                                    "but got dtype %s", tn_dtype_cpp_name(s->dtype));
    }
    /* out='s dtype is the last of upstream's pre-checks, before the kernel's dtype dispatch; bucketize
     * reaches it through searchsorted's, whose name it gives (measured) */
    if (out && tn_tensor_of(out)->dtype != (out_int32 ? TN_DTYPE_I32 : TN_DTYPE_I64))
        return PyErr_Format(PyExc_RuntimeError, "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) "
                                                "or Long(int64) depending on whether out_int32 flag is True, but we got "
                                                "output tensor's dtype %s and out_int32 flag is %s",
                            tn_dtype_cpp_name(tn_tensor_of(out)->dtype), out_int32 ? "True" : "False");
    /* an empty input returns its empty result before the dtypes are promoted or dispatched; then
     * promoteTypes refuses float8 with any other dtype (measured) */
    if (tn_numel(v) == 0 && !sorter)
        return tn_out_deliver(tn_tensor_new_empty(v->ndim, v->sizes, out_int32 ? TN_DTYPE_I32 : TN_DTYPE_I64, TN_DEVICE_CPU),
                              out, name);
    bool f8 = tn_dtype_infos[b->dtype].kind == TN_KIND_FLOAT8 || tn_dtype_infos[v->dtype].kind == TN_KIND_FLOAT8;
    tn_dtype common = f8 ? tn_promote_types_checked(b->dtype, v->dtype) : tn_promote_types(b->dtype, v->dtype);
    if (common == TN_DTYPE_UNDEFINED) return NULL;
    if (common == TN_DTYPE_BOOL || tn_dtype_is_complex(common) || tn_dtype_barebones(common))
        return tn_kernel_missing("searchsorted_out_cpu", common);
    PyObject *bw = search_operand(bnd, common), *vw = bw ? search_operand(self, common) : NULL;
    PyObject *sw = vw && sorter ? tn_as_dtype(sorter, TN_DTYPE_I64, true) : NULL;
    PyObject *res = NULL;
    if (!vw || (sorter && !sw)) goto done;
    int64_t nb = b->sizes[b->ndim - 1];
    if (sw) {
        const int64_t *sp = (const int64_t *)tn_data(tn_tensor_of(sw));
        int64_t ns = tn_numel(tn_tensor_of(sw));
        for (int64_t i = 0; i < ns; i++)
            if (sp[i] < 0 || sp[i] >= nb) {
                PyErr_SetString(PyExc_RuntimeError, "torch.searchsorted(): sorter index out of range");
                goto done;
            }
    }
    res = tn_tensor_new_empty(v->ndim, v->sizes, out_int32 ? TN_DTYPE_I32 : TN_DTYPE_I64, TN_DEVICE_CPU);
    if (!res) goto done;
    int64_t numel = tn_numel(v), per_row = shared ? numel : (v->ndim ? v->sizes[v->ndim - 1] : 1);
    int64_t nrows = shared ? 1 : (per_row ? numel / per_row : 0);
    if (numel)
        tn_searchsorted(tn_dtype_is_floating(common), tn_data(tn_tensor_of(bw)), tn_data(tn_tensor_of(vw)),
                        sw ? (const int64_t *)tn_data(tn_tensor_of(sw)) : NULL, nrows, per_row, nb, shared, right,
                        tn_data(tn_tensor_of(res)), out_int32);
done:
    Py_XDECREF(bw);
    Py_XDECREF(vw);
    Py_XDECREF(sw);
    if (res && out && tn_tensor_of(out)->dtype != tn_tensor_of(res)->dtype) {
        PyErr_Format(PyExc_RuntimeError, "torch.%s(): output tensor's dtype is wrong, it can only be Int(int32) "
                                         "or Long(int64) depending on whether out_int32 flag is True, but we got "
                                         "output tensor's dtype %s and out_int32 flag is %s",
                     name, tn_dtype_cpp_name(tn_tensor_of(out)->dtype), out_int32 ? "True" : "False");
        Py_CLEAR(res);
    }
    return tn_out_deliver(res, out, name);
}

static PyObject *opt_tensor(const tn_value *v) { return tn_is_none(v) ? NULL : v->u.obj; }

PyObject *tn_op_searchsorted_Tensor(tn_value *a) {
    return searchsorted(a[0].u.obj, a[1].u.obj, a[2].u.i, a[3].u.i, &a[4], opt_tensor(&a[5]), NULL, "searchsorted");
}
PyObject *tn_op_searchsorted_Tensor_out(tn_value *a) {
    return searchsorted(a[0].u.obj, a[1].u.obj, a[2].u.i, a[3].u.i, &a[4], opt_tensor(&a[5]), a[6].u.obj,
                        "searchsorted");
}
PyObject *tn_op_searchsorted_Scalar(tn_value *a) {
    PyObject *s = scalar_tensor(&a[1]);
    PyObject *r = s ? searchsorted(a[0].u.obj, s, a[2].u.i, a[3].u.i, &a[4], opt_tensor(&a[5]), NULL, "searchsorted")
                    : NULL;
    Py_XDECREF(s);
    return r;
}
PyObject *tn_op_searchsorted_Scalar_out(tn_value *a) {
    PyObject *s = scalar_tensor(&a[1]);
    PyObject *r = s ? searchsorted(a[0].u.obj, s, a[2].u.i, a[3].u.i, &a[4], opt_tensor(&a[5]), a[6].u.obj,
                                   "searchsorted")
                    : NULL;
    Py_XDECREF(s);
    return r;
}

static int bucketize_check(PyObject *bnd) {
    int nd = tn_tensor_of(bnd)->ndim;
    if (nd == 1) return 0;
    PyErr_Format(PyExc_RuntimeError, "boundaries tensor must be 1 dimension, but got dim(%d)", nd);
    return -1;
}
/* bucketize(self, boundaries, out_int32, right[, out]) */
PyObject *tn_op_bucketize_Tensor(tn_value *a) {
    if (bucketize_check(a[1].u.obj) < 0) return NULL;
    return searchsorted(a[1].u.obj, a[0].u.obj, a[2].u.i, a[3].u.i, NULL, NULL, NULL, "bucketize");
}
PyObject *tn_op_bucketize_Tensor_out(tn_value *a) {
    if (bucketize_check(a[1].u.obj) < 0) return NULL;
    return searchsorted(a[1].u.obj, a[0].u.obj, a[2].u.i, a[3].u.i, NULL, NULL, a[4].u.obj, "bucketize");
}
PyObject *tn_op_bucketize_Scalar(tn_value *a) {
    if (bucketize_check(a[1].u.obj) < 0) return NULL;
    PyObject *s = scalar_tensor(&a[0]);
    PyObject *r = s ? searchsorted(a[1].u.obj, s, a[2].u.i, a[3].u.i, NULL, NULL, NULL, "bucketize") : NULL;
    Py_XDECREF(s);
    return r;
}

/* ---- histc ---- */

/* An empty range [v, v] widened as upstream's histc: for float / double one representable step
 * of the dtype outwards or 1, whichever is wider; for f16 / bf16 by 1. */
static void widen_empty_range(tn_dtype dt, double *lo, double *hi) {
    if (dt == TN_DTYPE_F64) {
        *lo = fmin(nextafter(*lo, -INFINITY), *lo - 1.0);
        *hi = fmax(nextafter(*hi, INFINITY), *hi + 1.0);
    } else if (dt == TN_DTYPE_F32) {
        *lo = fmin((double)nextafterf((float)*lo, -INFINITY), *lo - 1.0);
        *hi = fmax((double)nextafterf((float)*hi, INFINITY), *hi + 1.0);
    } else {
        *lo -= 1;
        *hi += 1;
    }
}

/* A value as the dtype stores it (the first / last bin edge upstream's linspace produces). */
static double in_dtype(tn_dtype dt, double v) {
    switch (dt) {
    case TN_DTYPE_F32: return (float)v;
    case TN_DTYPE_BF16: return tn_bf16_to_f32(tn_f32_to_bf16((float)v));
    case TN_DTYPE_F16: return tn_f16_to_f32(tn_f32_to_f16((float)v));
    default: return v;
    }
}

/* upstream's %g-like formatting of a double in messages ("1", "inf", "0.5") */
static void fmt_num(char *b, size_t n, double v) {
    if (isinf(v)) snprintf(b, n, "%sinf", v < 0 ? "-" : "");
    else snprintf(b, n, "%.17g", v);
    /* shortest round-trip form */
    for (int p = 1; p <= 17 && !isnan(v) && !isinf(v); p++) {
        char t[64];
        snprintf(t, sizeof t, "%.*g", p, v);
        if (strtod(t, NULL) == v) { snprintf(b, n, "%s", t); break; }
    }
}

/* histc(self, bins, min, max[, out]) -- upstream's order of checks, measured (docs/breadth_more2.md
 * "Fuzz corpus exception types"): the out dtype, the bin count, the allocation of its bins + 1 edges
 * in self's dtype (bins = INT64_MAX: the count wraps), the input's extrema when the range is empty
 * (aminmax: no complex), the range, the edges (linspace: its dtypes, then each edge converted to
 * self's dtype), then the kernel's dtypes. */
static PyObject *histc(tn_value *a, PyObject *out) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int64_t bins = a[1].u.i;
    tn_dtype dt = t->dtype;
    if (out && tn_tensor_of(out)->dtype != dt)
        return PyErr_Format(PyExc_RuntimeError, "torch.histogram: input tensor and hist tensor should have the same dtype, "
                                                "but got input %s and hist %s",
                            tn_dtype_cxx_name(dt), tn_dtype_cxx_name(tn_tensor_of(out)->dtype));
    if (bins <= 0)
        return PyErr_Format(PyExc_RuntimeError, "torch.histogram(): bins must be > 0, but got %lld for dimension 0",
                            (long long)bins);
    if (t->storage->device != TN_DEVICE_META) {
        if (bins == INT64_MAX) return PyErr_Format(PyExc_RuntimeError, "numel: integer multiplication overflow");
        int64_t ne = bins + 1;
        if (ne > INT64_MAX / (tn_dtype_itemsize(dt) > 0 ? tn_dtype_itemsize(dt) : 1))
            return PyErr_Format(PyExc_RuntimeError, "Storage size calculation overflowed with sizes=[%lld]", (long long)ne);
        PyObject *edges = tn_tensor_new_empty(1, &ne, dt, TN_DEVICE_CPU);
        if (!edges) return NULL;
        Py_DECREF(edges);
    }
    bool fl = dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64 || dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16;
    double lo = tn_value_as_double(&a[2]), hi = tn_value_as_double(&a[3]);
    int64_t n = tn_numel(t);
    if (lo == hi && n > 0) { /* the input's extrema (NaN propagates, as aminmax) */
        if (tn_dtype_is_complex(dt)) return tn_kernel_missing("aminmax_cpu", dt);
        PyObject *w = tn_as_dtype(self, TN_DTYPE_F64, true);
        if (!w) return NULL;
        const double *p = (const double *)tn_data(tn_tensor_of(w));
        lo = hi = p[0];
        for (int64_t i = 0; i < n; i++) {
            if (isnan(p[i])) { lo = hi = p[i]; break; }
            if (p[i] < lo) lo = p[i];
            if (p[i] > hi) hi = p[i];
        }
        Py_DECREF(w);
    }
    if (lo == hi) widen_empty_range(dt, &lo, &hi);
    if (isinf(lo) || isinf(hi) || isnan(lo) || isnan(hi)) {
        char l[64], h[64];
        fmt_num(l, sizeof l, lo);
        fmt_num(h, sizeof h, hi);
        return PyErr_Format(PyExc_RuntimeError, "torch.histc: range of [%s, %s] is not finite", l, h);
    }
    if (!(lo < hi)) return PyErr_Format(PyExc_RuntimeError, "torch.histc: max must be larger than min");
    if (dt == TN_DTYPE_BOOL || !tn_dtype_computable(dt)) return tn_kernel_missing("linspace_cpu", dt);
    tn_value el = {.tag = TN_V_FLOAT, .u.f = lo}, eh = {.tag = TN_V_FLOAT, .u.f = hi};
    if (tn_cr_check_scalar(&el, dt) < 0 || tn_cr_check_scalar(&eh, dt) < 0) return NULL;
    if (!fl) return tn_kernel_missing("histogram_cpu", dt);
    PyObject *x = tn_as_dtype(self, dt, true);
    if (!x) return NULL;
    const tn_tensor *xt = tn_tensor_of(x);
    int64_t sz[1] = {bins};
    PyObject *res = tn_tensor_new_empty(1, sz, dt, TN_DEVICE_CPU);
    if (res) tn_histc(dt, tn_data(xt), n, bins, in_dtype(dt, lo), in_dtype(dt, hi), tn_data(tn_tensor_of(res)));
    Py_DECREF(x);
    return tn_out_deliver(res, out, "histc");
}

PyObject *tn_op_histc(tn_value *a) { return histc(a, NULL); }
PyObject *tn_op_histc_out(tn_value *a) { return histc(a, a[4].u.obj); }

/* ---- _is_all_true / _is_any_true: all() / any() of a bool tensor ---- */

static PyObject *bool_reduce(PyObject *self, PyObject *(*reduce)(PyObject *)) {
    if (tn_tensor_of(self)->dtype != TN_DTYPE_BOOL)
        return PyErr_Format(PyExc_RuntimeError, "self.scalar_type() == at::kBool INTERNAL ASSERT FAILED: "
                                                "expected a bool tensor");
    return reduce(self);
}
PyObject *tn_op__is_all_true(tn_value *a) { return bool_reduce(a[0].u.obj, tn_at_all); }
PyObject *tn_op__is_any_true(tn_value *a) { return bool_reduce(a[0].u.obj, tn_at_any); }


/* ---- bincount (helper-opa) ----
 * bincount(self, weights=None, minlength=0): counts (int64) or weight sums (float32 for float32
 * weights, else float64, accumulated in order as upstream) over max(self) + 1 (or minlength)
 * bins. An empty input gives int64 zeros of minlength even with weights, as upstream. */
PyObject *tn_op_bincount(tn_value *a) {
    PyObject *self = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(self);
    PyObject *w = opt_tensor(&a[1]);
    int64_t minlength = a[2].u.i;
    switch (t->dtype) {
    case TN_DTYPE_U8: case TN_DTYPE_I8: case TN_DTYPE_I16: case TN_DTYPE_I32: case TN_DTYPE_I64: break;
    default: return tn_kernel_missing("bincount_cpu", t->dtype);
    }
    if (minlength < 0) {
        PyErr_SetString(PyExc_RuntimeError, "minlength should be >= 0");
        return NULL;
    }
    int64_t n = tn_numel(t);
    if (t->ndim == 1 && n == 0) {
        PyObject *r = tn_tensor_new_empty(1, &minlength, TN_DTYPE_I64, TN_DEVICE_CPU);
        if (r && minlength) memset(tn_data(tn_tensor_of(r)), 0, (size_t)minlength * 8);
        return r;
    }
    PyObject *idx = t->ndim == 1 ? tn_as_dtype(self, TN_DTYPE_I64, true) : NULL;
    int64_t nb = minlength;
    bool bad = t->ndim != 1;
    if (idx) {
        const int64_t *ip = (const int64_t *)tn_data(tn_tensor_of(idx));
        for (int64_t i = 0; i < n && !bad; i++) {
            if (ip[i] < 0) bad = true;
            else if (ip[i] + 1 > nb) nb = ip[i] + 1;
        }
    } else if (!bad) {
        return NULL;
    }
    if (bad) {
        Py_XDECREF(idx);
        PyErr_SetString(PyExc_RuntimeError, "bincount only supports 1-d non-negative integral inputs.");
        return NULL;
    }
    PyObject *wc = NULL, *r = NULL;
    bool wd = false;
    if (w) {
        tn_tensor *wt = tn_tensor_of(w);
        if (wt->ndim != 1 || wt->sizes[0] != n) {
            Py_DECREF(idx);
            PyErr_SetString(PyExc_RuntimeError, "weights should be 1-d and have the same length as input");
            return NULL;
        }
        wd = wt->dtype != TN_DTYPE_F32;
        wc = tn_as_dtype(w, wd ? TN_DTYPE_F64 : TN_DTYPE_F32, true);
        if (!wc) { Py_DECREF(idx); return NULL; }
    }
    r = tn_tensor_new_empty(1, &nb, w ? (wd ? TN_DTYPE_F64 : TN_DTYPE_F32) : TN_DTYPE_I64, TN_DEVICE_CPU);
    if (r)
        tn_bincount((const int64_t *)tn_data(tn_tensor_of(idx)), n, wc ? tn_data(tn_tensor_of(wc)) : NULL, wd, nb, tn_data(tn_tensor_of(r)));
    Py_DECREF(idx);
    Py_XDECREF(wc);
    return r;
}
