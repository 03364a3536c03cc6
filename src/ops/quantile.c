/* ops/quantile.c — quantile / nanquantile (+ .scalar, .out) as upstream's composite
 * (Sorting.cpp quantile_impl / quantile_compute), every step an op through the door: sort along
 * the reduced dim (moved last, or the flattened input), ranks q * (n - 1) (NaN rows ranked last
 * for quantile; non-NaN counts for nanquantile), rounded per interpolation, gathered below and
 * above and lerped. q is checked in C (upstream's check dispatches no op on CPU). */
#include "ops/quantile.h"

#include "autograd/autograd.h"
#include "ops/common.h"
#include "tn_ops_gen.h"

#include <stdio.h>
#include <string.h>

enum { Q_LINEAR, Q_LOWER, Q_HIGHER, Q_MIDPOINT, Q_NEAREST };

static int interp_mode(PyObject *s) {
    const char *v = PyUnicode_AsUTF8AndSize(s, NULL);
    if (!v) return -1;
    static const char *names[] = {"linear", "lower", "higher", "midpoint", "nearest"};
    for (int i = 0; i < 5; i++)
        if (!strcmp(v, names[i])) return i;
    PyErr_Format(PyExc_RuntimeError, "quantile() interpolation must be one of linear, lower, higher, midpoint or nearest, but got %s", v);
    return -1;
}


/* the checks of quantile_checks, then q in [0, 1] */
static int checks(PyObject *self, PyObject *q) {
    const tn_tensor *t = tn_tensor_of(self), *qt = tn_tensor_of(q);
    if (tn_numel(t) == 0) { PyErr_SetString(PyExc_RuntimeError, "quantile() input tensor must be non-empty"); return -1; }
    if (qt->ndim > 1) { PyErr_SetString(PyExc_RuntimeError, "quantile() q must be a scalar or 1D tensor"); return -1; }
    if (t->dtype != TN_DTYPE_F32 && t->dtype != TN_DTYPE_F64) {
        PyErr_SetString(PyExc_RuntimeError, "quantile() input tensor must be either float or double dtype");
        return -1;
    }
    if (qt->dtype != t->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "quantile() q tensor must be same dtype as the input tensor");
        return -1;
    }
    return 0;
}

static int q_in_range(PyObject *q) {
    PyObject *c = tn_as_dtype(q, TN_DTYPE_F64, true);
    if (!c) return -1;
    const tn_tensor *ct = tn_tensor_of(c);
    const double *v = (const double *)tn_data(ct);
    bool ok = true;
    for (int64_t i = 0; i < tn_numel(ct); i++)
        if (!(v[i] >= 0 && v[i] <= 1)) ok = false;
    Py_DECREF(c);
    if (!ok) { PyErr_SetString(PyExc_RuntimeError, "quantile() q values must be in the range [0, 1]"); return -1; }
    return 0;
}

/* steal x, return f(x) (NULL passes through) */
#define STEP(var, expr) do { PyObject *n_ = (var) ? (expr) : NULL; Py_XDECREF(var); (var) = n_; } while (0)

static PyObject *quantile_impl(PyObject *self, PyObject *q, const tn_value *dimv, bool keepdim, PyObject *interp,
                               bool ignore_nan, PyObject *out) {
    if (checks(self, q) < 0) return NULL;
    if (out && tn_tensor_of(out)->dtype != tn_tensor_of(self)->dtype) {
        PyErr_SetString(PyExc_RuntimeError, "quantile() out tensor must be same dtype as the input tensor");
        return NULL;
    }
    int mode = interp_mode(interp);
    if (mode < 0) return NULL;
    const tn_tensor *t = tn_tensor_of(self), *qt = tn_tensor_of(q);
    bool has_dim = !tn_is_none(dimv);
    int64_t wd = 0;
    if (tn_wrap_dim(has_dim ? dimv->u.i : 0, t->ndim, &wd) < 0) return NULL;
    /* out_shape, with the leading q slot always present (removed again for a 0-dim q) */
    int64_t os[TN_MAX_DIMS + 1];
    int on = 0;
    os[on++] = tn_numel(qt);
    if (has_dim && t->ndim > 0) {
        for (int d = 0; d < t->ndim; d++) {
            if (d != wd) os[on++] = t->sizes[d];
            else if (keepdim) os[on++] = 1;
        }
    } else if (keepdim) {
        for (int d = 0; d < t->ndim; d++) os[on++] = 1;
    }
    if (q_in_range(q) < 0) return NULL;
    PyObject *sorted = NULL;
    if (!has_dim) sorted = tn_at_flatten_using_ints(self, 0, -1);
    else if (wd == t->ndim - 1 || t->ndim == 0) sorted = Py_NewRef(self);
    else {
        sorted = tn_at_unsqueeze(self, -1);
        STEP(sorted, tn_at_transpose_int(sorted, (long long)wd, -1));
    }
    STEP(sorted, tn_at_sort(sorted, -1, false));
    if (!sorted) return NULL;
    {
        PyObject *v0 = PySequence_GetItem(sorted, 0);
        Py_SETREF(sorted, v0);
        if (!sorted) return NULL;
    }
    /* in_shape: out_shape without the q slot, then the reduced size */
    const tn_tensor *st = tn_tensor_of(sorted);
    int64_t last = st->ndim ? st->sizes[st->ndim - 1] : 1;
    int64_t is[TN_MAX_DIMS + 1];
    for (int k = 1; k < on; k++) is[k - 1] = os[k];
    is[on - 1] = last;
    STEP(sorted, tn_at_view(sorted, TN_IN(is, on)));
    if (!sorted) return NULL;
    PyObject *ranks = NULL, *res = NULL;
    if (ignore_nan) {
        PyObject *nn = tn_at_isnan(sorted);
        STEP(nn, tn_at_logical_not_(nn) ? Py_NewRef(nn) : NULL);
        STEP(nn, tn_at_sum_dim_IntList(nn, TN_IS(-1), true, NULL));
        STEP(nn, tn_at_sub_Scalar(nn, TN_SI(1), TN_SDEF));
        ranks = nn ? tn_at_mul_Tensor(q, nn) : NULL;
        Py_XDECREF(nn);
        PyObject *neg = ranks ? tn_at_lt_Scalar(ranks, TN_SI(0)) : NULL;
        PyObject *f = neg ? tn_at_masked_fill__Scalar(ranks, neg, TN_SI(0)) : NULL;
        Py_XDECREF(neg);
        if (!f) Py_CLEAR(ranks);
        Py_XDECREF(f);
    } else {
        int64_t li = last - 1;
        PyObject *qs = tn_at_mul_Scalar(q, TN_SI((long long)li));
        PyObject *an = qs ? tn_at_isnan(sorted) : NULL;
        STEP(an, tn_at_any_dim(an, -1, true));
        PyObject *tl = an ? tn_at_broadcast_tensors(TN_TS(qs, an)) : NULL;
        PyObject *t0 = tl ? PySequence_GetItem(tl, 0) : NULL, *t1 = t0 ? PySequence_GetItem(tl, 1) : NULL;
        ranks = t1 ? tn_at_masked_fill_Scalar(t0, t1, TN_SI((long long)li)) : NULL;
        Py_XDECREF(qs); Py_XDECREF(an); Py_XDECREF(tl); Py_XDECREF(t0); Py_XDECREF(t1);
    }
    if (!ranks) goto done;
    if (mode == Q_LOWER || mode == Q_HIGHER || mode == Q_NEAREST) {
        PyObject *r = mode == Q_LOWER ? tn_at_floor_(ranks) : mode == Q_HIGHER ? tn_at_ceil_(ranks) : tn_at_round_(ranks);
        if (!r) goto done;
        Py_DECREF(r);
    }
    PyObject *lng = tn_py_from_dtype(TN_DTYPE_I64);
    PyObject *rb = lng ? tn_at_to_dtype(ranks, lng, false, false, NULL) : NULL;
    PyObject *vb = rb ? tn_at_gather(sorted, -1, rb, false) : NULL;
    if (vb && (mode == Q_LINEAR || mode == Q_MIDPOINT)) {
        PyObject *w = mode == Q_MIDPOINT ? tn_at_full_like(ranks, TN_SD(0.5), NULL, NULL, NULL, NULL, NULL) : tn_at_sub_Tensor(ranks, rb, TN_SDEF);
        PyObject *c = w ? tn_at_ceil_(ranks) : NULL;
        PyObject *ra = c ? tn_at_to_dtype(c, lng, false, false, NULL) : NULL;
        PyObject *va = ra ? tn_at_gather(sorted, -1, ra, false) : NULL;
        PyObject *l = va ? tn_at_lerp__Tensor(vb, va, w) : NULL;
        if (!l) Py_CLEAR(vb);
        Py_XDECREF(w); Py_XDECREF(c); Py_XDECREF(ra); Py_XDECREF(va); Py_XDECREF(l);
    }
    if (vb) {
        PyObject *r;
        if (qt->ndim == 0) {
            r = tn_at_squeeze__dim(vb, -1);
        } else {
            r = tn_at_unsqueeze_(vb, 0);
            STEP(r, tn_at_transpose_(vb, 0, -1));
            STEP(r, tn_at_squeeze__dim(vb, -1));
        }
        if (r) res = Py_NewRef(vb);
        Py_XDECREF(r);
    }
    Py_XDECREF(lng); Py_XDECREF(rb); Py_XDECREF(vb);
done:
    Py_XDECREF(ranks);
    Py_DECREF(sorted);
    if (res && out) return tn_out_deliver(res, out, "quantile");
    return res;
}

/* quantile.scalar: q as a 0-dim tensor of self's dtype after its own range check */
static PyObject *scalar_q(PyObject *self, double q) {
    if (!(q >= 0 && q <= 1)) {
        char buf[64];
        snprintf(buf, sizeof buf, "%g", q);   /* C++'s default stream format */
        PyErr_Format(PyExc_RuntimeError, "quantile() q must be in the range [0, 1] but got %s", buf);
        return NULL;
    }
    return tn_at_scalar_tensor(TN_SD(q), TN_DT(tn_tensor_of(self)->dtype), NULL, NULL, NULL);
}

/* (self, q, dim?, keepdim, *, interpolation[, out]) */
static PyObject *tensor_q(tn_value *a, bool nan, PyObject *out) {
    return quantile_impl(a[0].u.obj, a[1].u.obj, &a[2], a[3].u.i != 0, a[4].u.obj, nan, out);
}
static PyObject *float_q(tn_value *a, bool nan, PyObject *out) {
    PyObject *q = scalar_q(a[0].u.obj, a[1].u.f);
    if (!q) return NULL;
    PyObject *r = quantile_impl(a[0].u.obj, q, &a[2], a[3].u.i != 0, a[4].u.obj, nan, out);
    Py_DECREF(q);
    return r;
}

PyObject *tn_quantile_d_quantile(tn_value *a) { return tensor_q(a, false, NULL); }
PyObject *tn_quantile_d_quantile_out(tn_value *a) { return tensor_q(a, false, a[5].u.obj); }
PyObject *tn_quantile_d_quantile_scalar(tn_value *a) { return float_q(a, false, NULL); }
PyObject *tn_quantile_d_quantile_scalar_out(tn_value *a) { return float_q(a, false, a[5].u.obj); }
PyObject *tn_quantile_d_nanquantile(tn_value *a) { return tensor_q(a, true, NULL); }
PyObject *tn_quantile_d_nanquantile_out(tn_value *a) { return tensor_q(a, true, a[5].u.obj); }
PyObject *tn_quantile_d_nanquantile_scalar(tn_value *a) { return float_q(a, true, NULL); }
PyObject *tn_quantile_d_nanquantile_scalar_out(tn_value *a) { return float_q(a, true, a[5].u.obj); }
