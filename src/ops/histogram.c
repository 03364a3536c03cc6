/* ops/histogram.c — torch.histogram (bin count / bin edges tensor, range, weight, density, out=)
 * and torch.histogramdd with its pieces _histogramdd_bin_edges / _histogramdd_from_bin_cts /
 * _histogramdd_from_bin_tensors.
 *
 * Upstream's Histogram.cpp: the input is viewed as (M, D) points (histogram: D = 1); the outer
 * edges come from `range`, else the input's per-dimension extrema (0 and 1 for an empty input),
 * an empty range widened by 0.5 each way; the edges are linspace(lo, hi, bins + 1) in the input's
 * dtype; the counts come from the binning kernel histc shares (kernels/search.h), linear
 * interpolation with a local search for bin counts, binary search for given edges; density
 * divides by the total and by each dimension's bin widths. f32 / f64 only, as upstream. */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "kernels/search.h"
#include "core/pystate.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#define HMAX TN_MAX_DIMS

/* upstream's C++ stream formatting of a double in messages (shortest round trip, "inf") */
static void fmt_num(char *b, size_t n, double v) {
    if (isinf(v)) { snprintf(b, n, "%sinf", v < 0 ? "-" : ""); return; }
    if (isnan(v)) { snprintf(b, n, "nan"); return; }
    for (int p = 1; p <= 17; p++) {
        snprintf(b, n, "%.*g", p, v);
        if (strtod(b, NULL) == v) return;
    }
}

/* f16 / bf16 points, edges and weights are widened to f32 for the kernel (exactly) */
static tn_dtype compute_dtype(tn_dtype dt) {
    return dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16 ? TN_DTYPE_F32 : dt;
}

typedef struct {
    PyObject *x;        /* the input as contiguous (M, D), in compute_dtype */
    PyObject *w;        /* contiguous weights (M) or NULL */
    int64_t M;
    int D;
    tn_dtype dt;
} hist_in;

static void hist_in_free(hist_in *h) { Py_CLEAR(h->x); Py_CLEAR(h->w); }

static int hist_weight(PyObject *self, const tn_value *weight, bool one_d, hist_in *h);

/* The input as (M, D) points (D = 1 for histogram); the weight's shape and dtype unless `weight` is
 * NULL (histogramdd checks it after the bins: hist_weight then). */
static int hist_prepare(PyObject *self, const tn_value *weight, bool one_d, hist_in *h) {
    memset(h, 0, sizeof *h);
    const tn_tensor *t = tn_tensor_of(self);
    h->dt = t->dtype;
    int64_t n = tn_numel(t);
    int64_t shp[2];
    if (one_d) {
        h->D = 1;
        shp[0] = n;
        shp[1] = 1;
    } else {
        if (t->ndim < 2) {
            /* upstream allocates the edges first: its message without the count */
            PyErr_SetString(PyExc_RuntimeError, "torch.histogramdd: input tensor should have at least 2 dimensions");
            return -1;
        }
        h->D = (int)t->sizes[t->ndim - 1];
        if (h->D > HMAX) return tn_not_implemented("histogramdd over more than 64 dimensions") ? -1 : -1;
        shp[1] = h->D;
        shp[0] = h->D ? n / h->D : 0;
    }
    h->M = shp[0];
    h->x = tn_as_dtype(self, compute_dtype(h->dt), true);
    if (!h->x) return -1;
    if (hist_weight(self, weight, one_d, h) < 0) { hist_in_free(h); return -1; }
    return 0;
}

/* histogramdd_check_inputs' weight part: its dtype and shape, then its contiguous compute copy */
static int hist_weight(PyObject *self, const tn_value *weight, bool one_d, hist_in *h) {
    const tn_tensor *t = tn_tensor_of(self);
    int64_t n = tn_numel(t), shp[2] = {h->M, h->D};
    if (weight && weight->tag == TN_V_TENSOR) {
        const tn_tensor *wt = TN_T(*weight);
        if (wt->dtype != h->dt) {
            PyErr_Format(PyExc_RuntimeError, "torch.histogramdd: if weight tensor is provided, input tensor and weight tensor "
                         "should have the same dtype, but got input(%s), and weight(%s)",
                         tn_dtype_cxx_name(h->dt), tn_dtype_cxx_name(wt->dtype));
            return -1;
        }
        /* the weight's shape is the input's without its innermost dimension (histogram: the input's) */
        int ind = one_d ? t->ndim : t->ndim - 1;
        const int64_t *isz = t->sizes;
        int64_t one_sz[HMAX + 1];
        if (one_d) {   /* upstream flattens the weight and compares it with the (M, 1) reshape */
            one_sz[0] = n;
            ind = 1;
            isz = one_sz;
        }
        int64_t wflat = tn_numel(wt);
        bool ok = one_d ? wflat == n : wt->ndim == ind;
        for (int i = 0; ok && !one_d && i < ind; i++) ok = wt->sizes[i] == isz[i];
        if (!ok) {
            char a[256], b[256];
            if (one_d) tn_shape_str(a, sizeof a, 2, shp);
            else tn_shape_str(a, sizeof a, t->ndim, t->sizes);
            if (one_d) tn_shape_str(b, sizeof b, 1, &wflat);
            else tn_shape_str(b, sizeof b, wt->ndim, wt->sizes);
            PyErr_Format(PyExc_RuntimeError, "torch.histogramdd: if weight tensor is provided it should have the same shape "
                         "as the input tensor excluding its innermost dimension, but got input with shape %s and weight "
                         "with shape %s", a, b);
            return -1;
        }
        h->w = tn_as_dtype(weight->u.obj, compute_dtype(h->dt), true);
        if (!h->w) return -1;
    }
    return 0;
}

static int check_bins(int D, const int64_t *bins) {
    for (int d = 0; d < D; d++)
        if (bins[d] <= 0) {
            PyErr_Format(PyExc_RuntimeError, "torch.histogram(): bins must be > 0, but got %lld for dimension %d",
                         (long long)bins[d], d);
            return -1;
        }
    return 0;
}

/* the kernel's dtypes; the extrema of bin counts without a range: f32 / f64 only */
static int check_dtype(tn_dtype dt, bool lowp_ok) {
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64 && !(lowp_ok && (dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16))) {
        tn_kernel_missing(lowp_ok ? "histogram_cpu" : "histogramdd", dt);   /* the kernel's / the extrema's */
        return -1;
    }
    return 0;
}

/* The edges tensors (one per dimension) for bin counts: linspace between the outer edges. */
static int bin_edges_from_cts(const hist_in *h, const int64_t *bins, int nb, const tn_value *range, PyObject **edges) {
    int D = h->D;
    double lo[HMAX], hi[HMAX];
    for (int d = 0; d < D; d++) { lo[d] = 0; hi[d] = 1; }
    if (range && range->tag == TN_V_FLOATLIST) {
        if (range->u.floats.n != 2 * D) {
            PyErr_Format(PyExc_RuntimeError, "torch.histogramdd: for a %d-dimensional histogram range should have %d elements, "
                         "but got %d", D, 2 * D, range->u.floats.n);
            return -1;
        }
        for (int d = 0; d < D; d++) { lo[d] = range->u.floats.v[2 * d]; hi[d] = range->u.floats.v[2 * d + 1]; }
    } else if (h->M > 0) {   /* the extrema (NaN propagates, as aminmax) */
        if (check_dtype(h->dt, false) < 0) return -1;
        PyObject *wx = tn_as_dtype(h->x, TN_DTYPE_F64, true);
        if (!wx) return -1;
        const double *p = (const double *)tn_data(tn_tensor_of(wx));
        for (int d = 0; d < D; d++) {
            double a = p[d], b = p[d];
            for (int64_t i = 0; i < h->M; i++) {
                double v = p[i * D + d];
                if (isnan(v)) { a = b = v; break; }
                if (v < a) a = v;
                if (v > b) b = v;
            }
            lo[d] = a;
            hi[d] = b;
        }
        Py_DECREF(wx);
    }
    for (int d = 0; d < D; d++) {
        char a[64], b[64];
        fmt_num(a, sizeof a, lo[d]);
        fmt_num(b, sizeof b, hi[d]);
        if (!isfinite(lo[d]) || !isfinite(hi[d])) {
            PyErr_Format(PyExc_RuntimeError, "torch.histogramdd: dimension %d's range [%s, %s] is not finite", d, a, b);
            return -1;
        }
        if (!(lo[d] <= hi[d])) {
            PyErr_Format(PyExc_RuntimeError, "torch.histogramdd: min should not exceed max, but got min %s max %s for "
                         "dimension %d", a, b, d);
            return -1;
        }
        if (lo[d] == hi[d]) { lo[d] -= 0.5; hi[d] += 0.5; }
    }
    if (nb != D) {
        PyErr_SetString(PyExc_RuntimeError,
                        "histogramdd: The size of bins must be equal to the innermost dimension of the input.");
        return -1;
    }
    for (int d = 0; d < D; d++) {
        edges[d] = tn_at_linspace(TN_SD(lo[d]), TN_SD(hi[d]), bins[d] + 1, TN_DT(h->dt), NULL, NULL, NULL);
        if (!edges[d]) {
            for (int k = 0; k < d; k++) Py_CLEAR(edges[k]);
            return -1;
        }
    }
    return 0;
}

/* histogramdd_check_inputs' bins part for given edge tensors */
static int check_edge_tensors(const hist_in *h, PyObject *const *edges, int nb) {
    if (nb != h->D) {
        PyErr_Format(PyExc_RuntimeError, "torch.histogramdd: expected %d sequences of bin edges for a %d-dimensional "
                     "histogram but got %d", h->D, h->D, nb);
        return -1;
    }
    for (int d = 0; d < nb; d++) {
        const tn_tensor *e = tn_tensor_of(edges[d]);
        if (e->dtype != h->dt) {
            PyErr_Format(PyExc_RuntimeError, "torch.histogramdd: input tensor and bins tensors should have the same dtype, "
                         "but got input with dtype %s and bins for dimension %d with dtype %s",
                         tn_dtype_cxx_name(h->dt), d, tn_dtype_cxx_name(e->dtype));
            return -1;
        }
        if (e->ndim != 1) {
            PyErr_Format(PyExc_RuntimeError, "torch.histogramdd: bins tensor should have one dimension, but got %d "
                         "dimensions in the bins tensor for dimension %d", e->ndim, d);
            return -1;
        }
        if (tn_numel(e) == 0) {
            PyErr_Format(PyExc_RuntimeError, "torch.histogramdd: bins tensor should have at least 1 element, but got 0 "
                         "elements in the bins tensor for dimension %d", d);
            return -1;
        }
    }
    return 0;
}

/* The counts over the given edges (then density): a new tensor of shape (ne[d] - 1 ...). */
static PyObject *hist_count(const hist_in *h, PyObject *const *edges, tn_hist_algo algo, bool density) {
    int D = h->D;
    int64_t ne[HMAX] = {0}, shape[HMAX] = {0};
    PyObject *ec[HMAX] = {0};
    const void *ep[HMAX];
    for (int d = 0; d < D; d++) {
        ne[d] = tn_numel(tn_tensor_of(edges[d]));
        shape[d] = ne[d] - 1;
    }
    if (check_bins(D, shape) < 0 || check_dtype(h->dt, true) < 0) return NULL;
    tn_dtype ct = compute_dtype(h->dt);
    PyObject *hist = tn_tensor_new_empty(D, shape, ct, TN_DEVICE_CPU);
    for (int d = 0; hist && d < D; d++) {
        ec[d] = tn_as_dtype(edges[d], ct, true);
        if (!ec[d]) Py_CLEAR(hist);
        else ep[d] = tn_data(tn_tensor_of(ec[d]));
    }
    if (hist)
        tn_histogramdd(ct, tn_data(tn_tensor_of(h->x)), h->M, D, ep, ne, h->w ? tn_data(tn_tensor_of(h->w)) : NULL,
                       algo, h->dt, tn_data(tn_tensor_of(hist)));
    for (int d = 0; d < D; d++) Py_XDECREF(ec[d]);
    if (hist && ct != h->dt) {   /* every count is a value of the dtype already */
        PyObject *c = tn_as_dtype(hist, h->dt, true);
        Py_DECREF(hist);
        hist = c;
    }
    if (!hist || !density) return hist;
    /* hist /= hist.sum(); hist /= each dimension's bin widths, broadcast along it */
    PyObject *s = tn_at_sum(hist, NULL);
    PyObject *sv = s ? PyObject_CallMethod(s, "item", NULL) : NULL;
    Py_XDECREF(s);
    PyObject *r = sv ? tn_at_div__Scalar(hist, TN_SO(sv)) : NULL;
    Py_XDECREF(sv);
    Py_XDECREF(r);
    if (!r) { Py_DECREF(hist); return NULL; }
    for (int d = 0; d < D; d++) {
        PyObject *len = tn_at_diff(edges[d], 1, -1, NULL, NULL);
        int64_t vs[HMAX];
        for (int k = 0; k < D; k++) vs[k] = k == d ? shape[d] : 1;
        PyObject *v = len ? tn_at_view(len, TN_IN(vs, D)) : NULL;
        Py_XDECREF(len);
        r = v ? tn_at_div__Tensor(hist, v) : NULL;
        Py_XDECREF(v);
        Py_XDECREF(r);
        if (!r) { Py_DECREF(hist); return NULL; }
    }
    return hist;
}

/* ---- histogram ---- */

/* resize a given out tensor as upstream's resize_output and copy `res` into it; checks dtypes */
static PyObject *deliver(PyObject *res, PyObject *out, const char *what) {
    if (!res || !out) return res;
    tn_dtype rd = tn_tensor_of(res)->dtype, od = tn_tensor_of(out)->dtype;
    if (rd != od) {
        PyErr_Format(PyExc_RuntimeError, "torch.histogram: input tensor and %s tensor should have the same dtype, but got "
                     "input %s and %s %s", what, tn_dtype_cxx_name(rd), what, tn_dtype_cxx_name(od));
        Py_DECREF(res);
        return NULL;
    }
    return tn_out_deliver(res, out, "histogram");
}

/* histogramdd_prepare_out's dtype checks of given out tensors (before the bin counts') */
static int check_out_dtypes(tn_dtype dt, PyObject *ohist, PyObject *oedges) {
    if (ohist && tn_tensor_of(ohist)->dtype != dt) {
        PyErr_Format(PyExc_RuntimeError, "torch.histogram: input tensor and hist tensor should have the same dtype, but "
                     "got input %s and hist %s", tn_dtype_cxx_name(dt), tn_dtype_cxx_name(tn_tensor_of(ohist)->dtype));
        return -1;
    }
    if (oedges && tn_tensor_of(oedges)->dtype != dt) {
        PyErr_Format(PyExc_RuntimeError, "torch.histogram: input tensor and bin_edges tensor should have the same dtype, "
                     "but got input %s and bin_edges %s for dimension 0", tn_dtype_cxx_name(dt),
                     tn_dtype_cxx_name(tn_tensor_of(oedges)->dtype));
        return -1;
    }
    return 0;
}

/* histogram(self, bins (int or tensor), range, weight, density[, hist, bin_edges]); upstream's order,
 * measured: bin counts -- the out dtypes, the count, the outer edges, linspace, the weight;
 * bin edges -- the edges, the weight, the out dtypes; then the kernel's dtypes. */
static PyObject *histogram(tn_value *a, bool bins_tensor, PyObject *ohist, PyObject *oedges) {
    PyObject *self = a[0].u.obj;
    const tn_value *range = bins_tensor ? NULL : &a[2];
    const tn_value *weight = bins_tensor ? &a[2] : &a[3];
    bool density = (bins_tensor ? a[3] : a[4]).u.i != 0;
    hist_in h;
    if (hist_prepare(self, NULL, true, &h) < 0) return NULL;
    PyObject *edges;
    if (bins_tensor) {
        edges = Py_NewRef(a[1].u.obj);
        if (check_edge_tensors(&h, &edges, 1) < 0 || hist_weight(self, weight, true, &h) < 0 ||
            check_out_dtypes(h.dt, ohist, oedges) < 0) {
            Py_DECREF(edges);
            hist_in_free(&h);
            return NULL;
        }
    } else {
        int64_t b = a[1].u.i;
        if (check_out_dtypes(h.dt, ohist, oedges) < 0 || check_bins(1, &b) < 0 ||
            bin_edges_from_cts(&h, &b, 1, range, &edges) < 0) {
            hist_in_free(&h);
            return NULL;
        }
        if (hist_weight(self, weight, true, &h) < 0) {
            Py_DECREF(edges);
            hist_in_free(&h);
            return NULL;
        }
    }
    PyObject *hist = hist_count(&h, &edges, bins_tensor ? TN_HIST_BINARY : TN_HIST_LINEAR_LOCAL, density);
    hist_in_free(&h);
    if (!hist) { Py_DECREF(edges); return NULL; }
    if (bins_tensor && !oedges) {   /* upstream returns a copy of the given edges */
        PyObject *c = tn_at_clone(edges, NULL);
        Py_DECREF(edges);
        edges = c;
    }
    hist = deliver(hist, ohist, "hist");
    if (!hist) { Py_XDECREF(edges); return NULL; }   /* never deliver the second with an error set */
    edges = deliver(edges, oedges, "bin_edges");
    if (!edges) { Py_DECREF(hist); return NULL; }
    return tn_return_pair("histogram", hist, edges);
}

/* upstream has no Meta kernel for the histogram family: any meta argument refuses (not histc) */
#define NO_META(op) do { if (tn_door_on_meta()) return tn_meta_no_kernel(op); } while (0)
PyObject *tn_op_histogram_bins_tensor(tn_value *a) { NO_META("histogram.bins_tensor"); return histogram(a, true, NULL, NULL); }
PyObject *tn_op_histogram_bins_tensor_out(tn_value *a) {
    NO_META("histogram.bins_tensor_out");
    return histogram(a, true, a[4].u.obj, a[5].u.obj);
}
PyObject *tn_op_histogram_bin_ct(tn_value *a) { NO_META("histogram.bin_ct"); return histogram(a, false, NULL, NULL); }
PyObject *tn_op_histogram_bin_ct_out(tn_value *a) { NO_META("histogram.bin_ct_out"); return histogram(a, false, a[5].u.obj, a[6].u.obj); }

/* ---- histogramdd pieces ---- */

/* a Tensor[] result: a tuple, as the Python bindings give it (torch.ops makes it a list) */
static PyObject *edges_list(PyObject **edges, int D) {
    PyObject *l = PyTuple_New(D);
    for (int d = 0; d < D; d++) {
        if (l) PyTuple_SetItem(l, d, edges[d]);
        else Py_DECREF(edges[d]);
    }
    return l;
}

/* _histogramdd_bin_edges(self, int[] bins, range, weight, density) -> Tensor[]: upstream's order,
 * measured (docs/breadth_more2.md "Fuzz corpus exception types"): the input's rank, the outer edges
 * (the range's length, else the extrema: f32 / f64 only), the number of bin counts, then linspace;
 * the weight is not looked at. */
static PyObject *dd_edges(tn_value *a, PyObject **edges, hist_in *h) {
    if (hist_prepare(a[0].u.obj, NULL, false, h) < 0) return NULL;
    if (bin_edges_from_cts(h, a[1].u.ints.v, a[1].u.ints.n, &a[2], edges) < 0) {
        hist_in_free(h);
        return NULL;
    }
    return Py_None;
}

PyObject *tn_op__histogramdd_bin_edges(tn_value *a) {
    NO_META("_histogramdd_bin_edges");
    PyObject *edges[HMAX];
    hist_in h;
    if (!dd_edges(a, edges, &h)) return NULL;
    int D = h.D;
    hist_in_free(&h);
    return edges_list(edges, D);
}

PyObject *tn_op__histogramdd_from_bin_cts(tn_value *a) {
    NO_META("_histogramdd_from_bin_cts");
    PyObject *edges[HMAX];
    hist_in h;
    if (!dd_edges(a, edges, &h)) return NULL;
    PyObject *r = NULL;
    /* histogramdd_check_inputs on the edges (one element at least), then the weight */
    if (check_edge_tensors(&h, edges, h.D) == 0 && hist_weight(a[0].u.obj, &a[3], false, &h) == 0)
        r = hist_count(&h, edges, TN_HIST_LINEAR_LOCAL, a[4].u.i != 0);
    for (int d = 0; d < h.D; d++) Py_DECREF(edges[d]);
    hist_in_free(&h);
    return r;
}

/* _histogramdd_from_bin_tensors(self, Tensor[] bins, *, weight, density) */
PyObject *tn_op__histogramdd_from_bin_tensors(tn_value *a) {
    NO_META("_histogramdd_from_bin_tensors");
    hist_in h;
    if (hist_prepare(a[0].u.obj, NULL, false, &h) < 0) return NULL;
    PyObject *seq = PySequence_List(a[1].u.obj);
    if (!seq) { hist_in_free(&h); return NULL; }
    int nb = (int)PyList_Size(seq);
    PyObject *edges[HMAX];
    for (int d = 0; d < nb && d < HMAX; d++) edges[d] = PyList_GetItem(seq, d);
    PyObject *r = NULL;
    if (check_edge_tensors(&h, edges, nb) == 0 && hist_weight(a[0].u.obj, &a[2], false, &h) == 0) r = hist_count(&h, edges, TN_HIST_BINARY, a[3].u.i != 0);
    Py_DECREF(seq);
    hist_in_free(&h);
    return r;
}

/* histogramdd (CompositeImplicitAutograd): _histogramdd_bin_edges + _histogramdd_from_bin_cts */
static PyObject *dd_from_cts(PyObject *self, PyObject *bins, const tn_value *range, const tn_value *weight, bool density) {
    PyObject *rg = range->tag == TN_V_FLOATLIST ? PyList_New(range->u.floats.n) : Py_NewRef(Py_None);
    for (int i = 0; rg && rg != Py_None && i < range->u.floats.n; i++)
        if (PyList_SetItem(rg, i, PyFloat_FromDouble(range->u.floats.v[i])) < 0) Py_CLEAR(rg);
    PyObject *w = weight->tag == TN_V_TENSOR ? weight->u.obj : Py_None;
    if (!rg) return NULL;
    PyObject *e = tn_at__histogramdd_bin_edges(self, TN_IPY(bins), rg, w, density);
    PyObject *hst = e ? tn_at__histogramdd_from_bin_cts(self, TN_IPY(bins), rg, w, density) : NULL;
    Py_DECREF(rg);
    if (!hst) { Py_XDECREF(e); return NULL; }
    if (!PyTuple_Check(e)) {   /* the door gave it as a list */
        PyObject *t = PySequence_Tuple(e);
        Py_DECREF(e);
        e = t;
    }
    if (!e) { Py_DECREF(hst); return NULL; }
    return tn_return_pair("histogramdd", hst, e);
}

PyObject *tn_op_histogramdd(tn_value *a) {
    PyObject *bins = tn_int_list(a[1].u.ints.v, a[1].u.ints.n);
    PyObject *r = bins ? dd_from_cts(a[0].u.obj, bins, &a[2], &a[3], a[4].u.i != 0) : NULL;
    Py_XDECREF(bins);
    return r;
}

PyObject *tn_op_histogramdd_int_bins(tn_value *a) {
    const tn_tensor *t = TN_T(a[0]);
    /* upstream reads self.size(-1) for the bin count first: a 0-d self is its IndexError */
    if (tn_size_read(t, -1) < 0) return NULL;
    int64_t D = t->sizes[t->ndim - 1], v[HMAX];
    if (D > HMAX) return tn_not_implemented("histogramdd over more than 64 dimensions");
    for (int64_t i = 0; i < D; i++) v[i] = a[1].u.i;
    PyObject *bins = tn_int_list(v, (int)D);
    PyObject *r = bins ? dd_from_cts(a[0].u.obj, bins, &a[2], &a[3], a[4].u.i != 0) : NULL;
    Py_XDECREF(bins);
    return r;
}

PyObject *tn_op_histogramdd_TensorList_bins(tn_value *a) {
    PyObject *w = a[3].tag == TN_V_TENSOR ? a[3].u.obj : Py_None;
    PyObject *hst = tn_at__histogramdd_from_bin_tensors(a[0].u.obj, TN_TPY(a[1].u.obj), w, a[4].u.i != 0);
    if (!hst) return NULL;
    PyObject *l = PySequence_Tuple(a[1].u.obj);   /* upstream returns the given edge tensors */
    if (!l) { Py_DECREF(hst); return NULL; }
    return tn_return_pair("histogramdd", hst, l);
}
