/* ops/fft.c — torch.fft through pocketfft (src/third_party/pocketfft, BSD-3; the C version numpy
 * 1.17-1.26 shipped). The three primitives upstream's torch.fft functions decompose to
 * (_fft_r2c, _fft_c2r, _fft_c2c) run 1-D transforms along each requested dimension in double
 * precision (pocketfft's C version is double-only; complex64 results are rounded once at the
 * end); the normalisation (0 none, 1 1/sqrt(n), 2 1/n over the signal sizes) is applied after.
 * The fft_* composites follow upstream's SpectralOps.cpp: norm strings, n/s resizing (slice or
 * zero pad), dim canonicalisation, real/complex promotion, and their messages. */
#include "ops/common.h"
#include "ops/fft.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"
#include "third_party/pocketfft/pocketfft.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static char *D(PyObject *t) { return tn_data(tn_tensor_of(t)); }

/* lines of a contiguous tensor along dim d: outer x n x inner */
typedef struct { int64_t outer, n, inner; } lines;
static lines lines_of(const tn_tensor *t, int d) {
    lines l = {1, t->sizes[d], 1};
    for (int i = 0; i < d; i++) l.outer *= t->sizes[i];
    for (int i = d + 1; i < t->ndim; i++) l.inner *= t->sizes[i];
    return l;
}

/* In-place complex transforms of a contiguous complex128 tensor along dim d. */
static int c2c_dim(PyObject *W, int d, bool forward) {
    const tn_tensor *t = tn_tensor_of(W);
    lines l = lines_of(t, d);
    if (!l.n || !l.outer || !l.inner) return 0;
    cfft_plan p = make_cfft_plan((size_t)l.n);
    double *buf = malloc((size_t)l.n * 2 * sizeof(double));
    if (!p || !buf) {
        if (p) destroy_cfft_plan(p);
        free(buf);
        PyErr_NoMemory();
        return -1;
    }
    double *w = (double *)D(W);
    int rc = 0;
    Py_BEGIN_ALLOW_THREADS
    for (int64_t o = 0; o < l.outer && !rc; o++)
        for (int64_t i = 0; i < l.inner && !rc; i++) {
            double *base = w + 2 * (o * l.n * l.inner + i);
            for (int64_t k = 0; k < l.n; k++) { buf[2 * k] = base[2 * k * l.inner]; buf[2 * k + 1] = base[2 * k * l.inner + 1]; }
            rc = forward ? cfft_forward(p, buf, 1.0) : cfft_backward(p, buf, 1.0);
            for (int64_t k = 0; k < l.n; k++) { base[2 * k * l.inner] = buf[2 * k]; base[2 * k * l.inner + 1] = buf[2 * k + 1]; }
        }
    Py_END_ALLOW_THREADS
    destroy_cfft_plan(p);
    free(buf);
    if (rc) { PyErr_NoMemory(); return -1; }
    return 0;
}

static void scale(PyObject *W, double f) {
    if (f == 1) return;
    const tn_tensor *t = tn_tensor_of(W);
    int64_t n = tn_numel(t) * (tn_dtype_is_complex(t->dtype) ? 2 : 1);
    double *w = (double *)D(W);
    for (int64_t i = 0; i < n; i++) w[i] *= f;
}
static double norm_factor(int64_t mode, double n) {
    return mode == 1 ? 1 / sqrt(n) : mode == 2 ? 1 / n : 1;
}

/* dims (room for TN_MAX_DIMS) wrapped; a repeated dim is refused as torch.fft's public functions
 * refuse it (upstream's _fft_* ops read uninitialised memory for one). A dim past the tensor's
 * dims: upstream's CPU kernels index its sizes with it unchecked (an internal assert, a failed
 * reshape, an MKL error or a corrupted heap, measured: RuntimeError whenever it raises), refused
 * here by name with that type (op NULL: every dim wrapped, IndexError); on meta its Python meta
 * functions wrap the dims (IndexError). */
static int get_dims(const tn_value *v, const tn_tensor *t, int *dims, int *nd, const char *op) {
    bool seen[TN_MAX_DIMS] = {0};
    *nd = v->u.ints.n;
    int span = t->ndim ? t->ndim : 1;
    for (int i = 0; i < *nd; i++) {
        int d;
        int64_t given = v->u.ints.v[i];
        if (op && (given >= span || given < -span) && !tn_door_on_meta()) {
            PyErr_Format(PyExc_RuntimeError, "%s: dim %lld is out of range for a tensor of %d dimensions",
                         op, (long long)given, t->ndim);
            return -1;
        }
        if (tn_wrap_dim_i(given, t->ndim, &d) < 0) return -1;
        if (seen[d]) {
            PyErr_SetString(PyExc_RuntimeError, "FFT dims must be unique");
            return -1;
        }
        seen[d] = true;
        dims[i] = d;
    }
    return 0;
}
static tn_dtype complex_of(tn_dtype d) { return d == TN_DTYPE_F64 || d == TN_DTYPE_C128 ? TN_DTYPE_C128 : TN_DTYPE_C64; }
static tn_dtype real_of(tn_dtype d) { return d == TN_DTYPE_C128 || d == TN_DTYPE_F64 ? TN_DTYPE_F64 : TN_DTYPE_F32; }
static int fft_dtype_ok(tn_dtype d) {
    if (d == TN_DTYPE_F32 || d == TN_DTYPE_F64 || d == TN_DTYPE_C64 || d == TN_DTYPE_C128) return 0;
    PyErr_Format(PyExc_RuntimeError, "Unsupported dtype %s", tn_dtype_cpp_name(d));
    return -1;
}
/* the result in `want` (complex64 / float32 from the contiguous complex128 / float64 work
 * tensor: plain loops, rounding once) */
static PyObject *deliver(PyObject *W, tn_dtype want) {
    const tn_tensor *t = tn_tensor_of(W);
    if (t->dtype == want) return W;
    PyObject *r = tn_tensor_new_empty(t->ndim, t->sizes, want, TN_DEVICE_CPU);
    if (r) {
        int64_t n = tn_numel(t) * (tn_dtype_is_complex(want) ? 2 : 1);
        const double *src = (const double *)D(W);
        float *dst = (float *)D(r);
        for (int64_t i = 0; i < n; i++) dst[i] = (float)src[i];
    }
    Py_DECREF(W);
    return r;
}
/* a new contiguous complex128 (complex input) or float64 (real input) copy of x */
static PyObject *widen(PyObject *x) {
    const tn_tensor *t = tn_tensor_of(x);
    bool cplx = tn_dtype_is_complex(t->dtype);
    PyObject *c = tn_as_dtype(x, t->dtype, true);   /* contiguous, same dtype */
    if (!c) return NULL;
    PyObject *r = tn_tensor_new_empty(t->ndim, t->sizes, cplx ? TN_DTYPE_C128 : TN_DTYPE_F64, TN_DEVICE_CPU);
    if (r) {
        int64_t n = tn_numel(t) * (cplx ? 2 : 1);
        double *dst = (double *)D(r);
        if (t->dtype == TN_DTYPE_F32 || t->dtype == TN_DTYPE_C64) {
            const float *src = (const float *)D(c);
            for (int64_t i = 0; i < n; i++) dst[i] = src[i];
        } else if (n) {
            memcpy(dst, D(c), (size_t)n * sizeof(double));
        }
    }
    Py_DECREF(c);
    return r;
}

/* Upstream's output layout (MKL build, aten/src/ATen/native/mkl/SpectralOps.cpp: _exec_fft and
 * _sort_dims), reproduced as a rule over the input's strides and measured on 3,811 random
 * shapes, permutations, slices and dim lists (docs/fft_layout.md):
 *  - the transform dims are first ordered by the input's stride, largest first (a stable
 *    insertion sort: libstdc++'s std::sort on fewer than 17 elements); for r2c the last listed
 *    dim stays last;
 *  - the batch (untransformed) dims are what libstdc++'s std::partition leaves in front of the
 *    list 0..ndim-1 (it swaps from both ends, so their order is not ascending), then sorted the
 *    same stable way by input stride;
 *  - the result is the contiguous [batch, transform dims in order] block: the transform dims get
 *    contiguous strides (a size 0 or 1 counting as 1), the batch dims multiples of that block
 *    in the sorted order, the last fastest. */
static void sort_by_stride(int *d, int n, const int64_t *st) {
    for (int i = 1; i < n; i++) {   /* libstdc++'s __insertion_sort with comp(a, b) = st[a] > st[b] */
        int v = d[i], j = i;
        if (st[v] > st[d[0]]) {
            memmove(d + 1, d, (size_t)i * sizeof *d);
            d[0] = v;
            continue;
        }
        while (st[v] > st[d[j - 1]]) { d[j] = d[j - 1]; j--; }
        d[j] = v;
    }
}
/* out_st for a transform over dims (already sorted) of an input with strides in_st */
static void exec_strides(int ndim, const int64_t *in_st, const int64_t *out_sizes, const int *dims, int nd, int64_t *out_st) {
    bool tr[TN_MAX_DIMS] = {0};
    int perm[TN_MAX_DIMS], f = 0, l = ndim;
    for (int i = 0; i < nd; i++) tr[dims[i]] = true;
    for (int i = 0; i < ndim; i++) perm[i] = i;
    for (;;) {   /* std::partition (bidirectional): keep untransformed dims in front */
        while (f != l && !tr[perm[f]]) f++;
        if (f == l) break;
        l--;
        while (f != l && tr[perm[l]]) l--;
        if (f == l) break;
        int tmp = perm[f]; perm[f] = perm[l]; perm[l] = tmp;
        f++;
    }
    sort_by_stride(perm, f, in_st);
    int64_t acc = 1;
    for (int i = nd - 1; i >= 0; i--) { out_st[dims[i]] = acc; acc *= out_sizes[dims[i]] > 1 ? out_sizes[dims[i]] : 1; }
    int64_t bn = 1;
    for (int i = f - 1; i >= 0; i--) { out_st[perm[i]] = bn * acc; bn *= out_sizes[perm[i]]; }
}
static void sorted_dims(const int *dims, int nd, const int64_t *in_st, bool exclude_last, int *out) {
    memcpy(out, dims, (size_t)nd * sizeof *out);
    sort_by_stride(out, exclude_last ? nd - 1 : nd, in_st);
}
/* r (contiguous, fresh) laid out with strides st; steals r */
static PyObject *relayout(PyObject *r, const int64_t *st) {
    if (!r) return NULL;
    const tn_tensor *t = tn_tensor_of(r);
    bool same = memcmp(st, t->strides, (size_t)t->ndim * sizeof *st) == 0;
    if (same) return r;
    PyObject *c = tn_tensor_new_strided(t->ndim, t->sizes, st, t->dtype);
    if (c && tn_copy_into(c, r) < 0) Py_CLEAR(c);
    Py_DECREF(r);
    return c;
}

/* upstream's primitives refuse an input without elements: MKL refuses a batch of 0 transforms
 * (DFTI "Inconsistent configuration parameters") and, before it, _exec_fft's reshape of the
 * batch to [-1, signal sizes...] refuses a zero signal size */
static int refuse_empty(const tn_tensor *t, const int *dims, int nd) {
    if (tn_numel(t) != 0) return 0;
    for (int i = 0; i < nd; i++)
        if (t->sizes[dims[i]] == 0) {
            char buf[512];
            int k = snprintf(buf, sizeof buf, "[-1");
            for (int j = 0; j < nd && k < (int)sizeof buf - 32; j++) k += snprintf(buf + k, sizeof buf - (size_t)k, ", %lld", (long long)t->sizes[dims[j]]);
            PyErr_Format(PyExc_RuntimeError, "cannot reshape tensor of 0 elements into shape %s] because the unspecified dimension size -1 can be any value and is ambiguous", buf);
            return -1;
        }
    PyErr_SetString(PyExc_RuntimeError, "MKL FFT error: Intel oneMKL DFTI ERROR: Inconsistent configuration parameters");
    return -1;
}

/* _fft_c2c(self, dim, normalization, forward) */
PyObject *tn_op__fft_c2c(tn_value *a) {
    PyObject *x = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(x);
    if (fft_dtype_ok(t->dtype) < 0) return NULL;
    if (!tn_dtype_is_complex(t->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "Only supports complex dtypes, but found: %s", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    int dims[TN_MAX_DIMS], nd;
    if (get_dims(&a[1], t, dims, &nd, "_fft_c2c") < 0) return NULL;
    int sd[TN_MAX_DIMS];
    sorted_dims(dims, nd, t->strides, false, sd);
    if (nd && refuse_empty(t, sd, nd) < 0) return NULL;
    PyObject *W = widen(x);
    if (!W) return NULL;
    double n = 1;
    for (int i = 0; i < nd; i++) {
        if (c2c_dim(W, dims[i], a[3].u.i != 0) < 0) { Py_DECREF(W); return NULL; }
        n *= (double)t->sizes[dims[i]];
    }
    scale(W, norm_factor(a[2].u.i, n));
    int64_t st[TN_MAX_DIMS];
    exec_strides(t->ndim, t->strides, t->sizes, sd, nd, st);
    return relayout(deliver(W, t->dtype), st);
}

/* _fft_r2c(self, dim, normalization, onesided): forward real-to-complex; the last listed dim
 * keeps n/2 + 1 bins when onesided, else the full conjugate-symmetric spectrum. */
PyObject *tn_op__fft_r2c(tn_value *a) {
    PyObject *x = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(x);
    if (fft_dtype_ok(t->dtype) < 0) return NULL;
    if (tn_dtype_is_complex(t->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "Only supports floating-point dtypes, but found: %s", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    /* upstream reads dim.back() first (ArrayRef's check; its Python meta function dim[-1]), uses
     * the dims unwrapped (a negative one indexes past the sizes: a failed permute, reshape or
     * internal assert, measured; refused here by name; its meta function wraps them), and a 0-dim
     * input never reshapes to its batch of signals (measured for every dim / normalization /
     * onesided) */
    bool meta = tn_door_on_meta();
    if (a[1].u.ints.n == 0) {
        PyErr_SetString(meta ? PyExc_IndexError : PyExc_RuntimeError,
                        meta ? "list index out of range" : "ArrayRef: attempted to access back() of empty list");
        return NULL;
    }
    if (t->ndim == 0 && !meta) {
        PyErr_SetString(PyExc_RuntimeError, "shape '[-1, 0]' is invalid for input of size 1");
        return NULL;
    }
    for (int i = 0; i < a[1].u.ints.n && !meta; i++)
        if (a[1].u.ints.v[i] < 0) {
            PyErr_Format(PyExc_RuntimeError, "_fft_r2c: dims must be non-negative (wrapped), got %lld",
                         (long long)a[1].u.ints.v[i]);
            return NULL;
        }
    /* its last dim past the tensor's dims as the other two ops' (above); another one is wrapped
     * first, upstream's IndexError (measured) */
    int64_t last = a[1].u.ints.v[a[1].u.ints.n - 1];
    if (!meta && last >= (t->ndim ? t->ndim : 1)) {
        PyErr_Format(PyExc_RuntimeError, "_fft_r2c: dim %lld is out of range for a tensor of %d dimensions",
                     (long long)last, t->ndim);
        return NULL;
    }
    int dims[TN_MAX_DIMS], nd;
    if (get_dims(&a[1], t, dims, &nd, NULL) < 0) return NULL;
    bool onesided = a[3].u.i != 0;
    int dl = dims[nd - 1];
    int sd[TN_MAX_DIMS];
    sorted_dims(dims, nd, t->strides, true, sd);
    if (refuse_empty(t, sd, nd) < 0) return NULL;
    PyObject *X = widen(x);
    if (!X) return NULL;
    int64_t osz[TN_MAX_DIMS];
    memcpy(osz, t->sizes, (size_t)t->ndim * sizeof *osz);
    int64_t n = t->sizes[dl], half = n / 2 + 1;
    osz[dl] = onesided ? (n ? half : 0) : n;
    PyObject *W = tn_tensor_new_empty(t->ndim, osz, TN_DTYPE_C128, TN_DEVICE_CPU);
    if (!W) { Py_DECREF(X); return NULL; }
    lines li = lines_of(tn_tensor_of(X), dl), lo = lines_of(tn_tensor_of(W), dl);
    int rc = 0;
    if (n && li.outer && li.inner) {
        rfft_plan p = make_rfft_plan((size_t)n);
        double *buf = malloc((size_t)(n + 2) * sizeof(double));
        if (!p || !buf) {
            if (p) destroy_rfft_plan(p);
            free(buf);
            Py_DECREF(X); Py_DECREF(W);
            return PyErr_NoMemory();
        }
        const double *xi = (const double *)D(X);
        double *wo = (double *)D(W);
        Py_BEGIN_ALLOW_THREADS
        for (int64_t o = 0; o < li.outer && !rc; o++)
            for (int64_t i = 0; i < li.inner && !rc; i++) {
                const double *src = xi + o * n * li.inner + i;
                double *dst = wo + 2 * (o * lo.n * lo.inner + i);
                for (int64_t k = 0; k < n; k++) buf[k + 1] = src[k * li.inner];
                rc = rfft_forward(p, buf + 1, 1.0);
                buf[0] = buf[1];
                buf[1] = 0;
                if (n % 2 == 0) buf[n + 1] = 0;
                for (int64_t k = 0; k < half; k++) { dst[2 * k * lo.inner] = buf[2 * k]; dst[2 * k * lo.inner + 1] = buf[2 * k + 1]; }
                if (!onesided)
                    for (int64_t k = half; k < n; k++) {
                        dst[2 * k * lo.inner] = buf[2 * (n - k)];
                        dst[2 * k * lo.inner + 1] = -buf[2 * (n - k) + 1];
                    }
            }
        Py_END_ALLOW_THREADS
        destroy_rfft_plan(p);
        free(buf);
    }
    Py_DECREF(X);
    if (rc) { Py_DECREF(W); return PyErr_NoMemory(); }
    double total = (double)n;
    for (int i = 0; i < nd - 1; i++) {
        if (c2c_dim(W, dims[i], true) < 0) { Py_DECREF(W); return NULL; }
        total *= (double)t->sizes[dims[i]];
    }
    scale(W, norm_factor(a[2].u.i, total));
    int64_t st[TN_MAX_DIMS];
    exec_strides(t->ndim, t->strides, osz, sd, nd, st);
    return relayout(deliver(W, complex_of(t->dtype)), st);
}

/* _fft_c2r(self, dim, normalization, last_dim_size): backward complex-to-real; the last listed
 * dim's output has last_dim_size points from its first last_dim_size/2 + 1 bins. */
PyObject *tn_op__fft_c2r(tn_value *a) {
    PyObject *x = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(x);
    if (fft_dtype_ok(t->dtype) < 0) return NULL;
    if (!tn_dtype_is_complex(t->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "Only supports complex dtypes, but found: %s", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    int dims[TN_MAX_DIMS], nd;
    if (get_dims(&a[1], t, dims, &nd, "_fft_c2r") < 0) return NULL;
    int64_t n = a[3].u.i;
    if (nd == 0 || n < 1) {
        PyErr_Format(PyExc_RuntimeError, "Invalid number of data points (%lld) specified", (long long)n);
        return NULL;
    }
    int dl = dims[nd - 1];
    {
        int sd[TN_MAX_DIMS];
        sorted_dims(dims, nd > 1 ? nd - 1 : nd, t->strides, false, sd);
        if (refuse_empty(t, sd, nd > 1 ? nd - 1 : nd) < 0) return NULL;
    }
    {   /* _exec_fft's signal-size assertion: the input holds n or n/2 + 1 points of the last dim */
        int64_t in = t->sizes[dl], sig = in > n ? in : n;
        if (!(in == sig || in == sig / 2 + 1) || !(n == sig || n == sig / 2 + 1)) {
            PyErr_SetString(PyExc_RuntimeError, (in == sig || in == sig / 2 + 1)
                ? "out_size == signal_size[i + 1] || out_size == (signal_size[i + 1] / 2) + 1 INTERNAL ASSERT FAILED (torchnative: upstream's _exec_fft assertion)"
                : "in_size == signal_size[i + 1] || in_size == (signal_size[i + 1] / 2) + 1 INTERNAL ASSERT FAILED (torchnative: upstream's _exec_fft assertion)");
            return NULL;
        }
    }
    int64_t sz[TN_MAX_DIMS];
    memcpy(sz, t->sizes, (size_t)t->ndim * sizeof *sz);
    PyObject *W = widen(x);
    if (!W) return NULL;
    double total = (double)n;
    for (int i = 0; i < nd - 1; i++) {
        if (c2c_dim(W, dims[i], false) < 0) { Py_DECREF(W); return NULL; }
        total *= (double)t->sizes[dims[i]];
    }
    sz[dl] = n;
    PyObject *R = tn_tensor_new_empty(t->ndim, sz, TN_DTYPE_F64, TN_DEVICE_CPU);
    if (!R) { Py_DECREF(W); return NULL; }
    lines li = lines_of(tn_tensor_of(W), dl), lo = lines_of(tn_tensor_of(R), dl);
    int rc = 0;
    if (lo.outer && lo.inner) {
        rfft_plan p = make_rfft_plan((size_t)n);
        double *buf = malloc((size_t)(n + 2) * sizeof(double));
        if (!p || !buf) {
            if (p) destroy_rfft_plan(p);
            free(buf);
            Py_DECREF(W); Py_DECREF(R);
            return PyErr_NoMemory();
        }
        const double *wi = (const double *)D(W);
        double *ro = (double *)D(R);
        int64_t half = n / 2 + 1;
        Py_BEGIN_ALLOW_THREADS
        for (int64_t o = 0; o < lo.outer && !rc; o++)
            for (int64_t i = 0; i < lo.inner && !rc; i++) {
                const double *src = wi + 2 * (o * li.n * li.inner + i);
                double *dst = ro + o * n * lo.inner + i;
                /* bins 0..half-1 (zero past the input's end), packed as FFTPACK's halfcomplex */
                double *cb = buf;   /* cb[2k], cb[2k+1] = re, im of bin k */
                for (int64_t k = 0; k < half; k++) {
                    bool in = k < li.n;
                    cb[2 * k] = in ? src[2 * k * li.inner] : 0;
                    cb[2 * k + 1] = in ? src[2 * k * li.inner + 1] : 0;
                }
                /* [r0, r1, i1, r2, i2, ...]: drop i0 by shifting the rest down one */
                memmove(cb + 1, cb + 2, (size_t)(n - 1) * sizeof(double));
                rc = rfft_backward(p, cb, 1.0);
                for (int64_t k = 0; k < n; k++) dst[k * lo.inner] = cb[k];
            }
        Py_END_ALLOW_THREADS
        destroy_rfft_plan(p);
        free(buf);
    }
    Py_DECREF(W);
    if (rc) { Py_DECREF(R); return PyErr_NoMemory(); }
    scale(R, norm_factor(a[2].u.i, total));
    /* upstream: a c2c over the leading dims (its own layout), then the 1-D c2r on the last */
    int64_t mid[TN_MAX_DIMS], st[TN_MAX_DIMS];
    memcpy(mid, t->strides, (size_t)t->ndim * sizeof *mid);
    if (nd > 1) {
        int sd[TN_MAX_DIMS];
        sorted_dims(dims, nd - 1, t->strides, false, sd);
        exec_strides(t->ndim, t->strides, t->sizes, sd, nd - 1, mid);
    }
    exec_strides(t->ndim, mid, sz, &dl, 1, st);
    return relayout(deliver(R, real_of(t->dtype)), st);
}

/* ---- the torch.fft composites ---- */
enum { NORM_NONE = 0, NORM_SQRT = 1, NORM_N = 2 };
static int norm_from(const tn_value *v, bool forward, int *mode) {
    const char *s = tn_is_none(v) ? NULL : PyUnicode_AsUTF8AndSize(v->u.obj, NULL);
    if (!s || !strcmp(s, "backward")) *mode = forward ? NORM_NONE : NORM_N;
    else if (!strcmp(s, "forward")) *mode = forward ? NORM_N : NORM_NONE;
    else if (!strcmp(s, "ortho")) *mode = NORM_SQRT;
    else {
        PyErr_Format(PyExc_RuntimeError, "Invalid normalization mode: \"%s\"", s);
        return -1;
    }
    return 0;
}
/* x resized along dims to sizes (slice or zero pad at the end) through the door; new ref */
static PyObject *resize_input(PyObject *x, int nd, const int *dims, const int64_t *sizes) {
    PyObject *r = Py_NewRef(x);
    for (int i = 0; i < nd && r; i++) {
        const tn_tensor *t = tn_tensor_of(r);
        int64_t have = t->sizes[dims[i]];
        if (have > sizes[i]) {
            Py_SETREF(r, tn_at_slice_Tensor(r, dims[i], TN_I((long long)0), TN_I((long long)sizes[i]), 1));
        } else if (have < sizes[i]) {
            int64_t pad[2 * TN_MAX_DIMS] = {0};   /* the last dim first: only dims[i]'s right side pads */
            int np = 2 * (t->ndim - dims[i]);
            pad[np - 1] = sizes[i] - have;
            Py_SETREF(r, tn_at_constant_pad_nd(r, TN_IN(pad, np), TN_SDEF));
        }
    }
    return r;
}
/* promote_tensor_fft: integral -> default float; complex when required */
static PyObject *promote(PyObject *x, bool want_complex) {
    tn_dtype d = tn_tensor_of(x)->dtype;
    if (!tn_dtype_is_floating(d) && !tn_dtype_is_complex(d)) d = tn_py.default_dtype;
    if (fft_dtype_ok(d) < 0) return NULL;
    if (want_complex) d = complex_of(d);
    if (d == tn_tensor_of(x)->dtype) return Py_NewRef(x);
    /* upstream: t.to(dtype), i.e. _to_copy with the input's layout preserved (its strides when
     * dense, else dense strides in the same order); the layout reaches the primitives' rule */
    return tn_at__to_copy(x, TN_DT(d), NULL, NULL, NULL, false, NULL);
}
static PyObject *dimlist(int nd, const int *dims) {
    PyObject *l = PyList_New(nd);
    for (int i = 0; l && i < nd; i++) PyList_SetItem(l, i, PyLong_FromLong(dims[i]));
    return l;
}
static int wrap_fft_dim(int64_t d, const tn_tensor *t, int *out) {
    if (t->ndim == 0) {
        PyErr_Format(PyExc_IndexError, "Dimension specified as %lld but tensor has no dimensions", (long long)d);
        return -1;
    }
    return tn_wrap_dim_i(d, t->ndim, out);
}
typedef enum { K_C2C, K_R2C, K_C2R } fft_kind;

/* one-dimensional transforms: fft, ifft, rfft, irfft, hfft, ihfft */
static PyObject *fft1(tn_value *a, const char *fname, fft_kind kind, bool forward, bool onesided) {
    PyObject *x = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(x);
    int mode, dim;
    bool cplx = tn_dtype_is_complex(t->dtype);
    if (kind == K_R2C && cplx) {
        PyErr_Format(PyExc_RuntimeError, "%s expects a real input tensor, but got %s", fname, tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    PyObject *in = promote(x, kind != K_R2C);
    if (!in) return NULL;
    t = tn_tensor_of(in);
    if (wrap_fft_dim(a[2].u.i, t, &dim) < 0 || norm_from(&a[3], forward, &mode) < 0) { Py_DECREF(in); return NULL; }
    bool has_n = !tn_is_none(&a[1]);
    int64_t n = has_n ? a[1].u.i : (kind == K_C2R ? 2 * (t->sizes[dim] - 1) : t->sizes[dim]);
    if (n < 1) {
        Py_DECREF(in);
        PyErr_Format(PyExc_RuntimeError, "Invalid number of data points (%lld) specified", (long long)n);
        return NULL;
    }
    if (has_n) {
        int64_t want = kind == K_C2R ? n / 2 + 1 : n;
        Py_SETREF(in, resize_input(in, 1, &dim, &want));
        if (!in) return NULL;
    }
    PyObject *dl = dimlist(1, &dim), *r = NULL;
    if (!dl) { Py_DECREF(in); return NULL; }
    if (kind == K_C2C) r = tn_at__fft_c2c(in, TN_IPY(dl), mode, forward);
    else if (kind == K_R2C) {
        r = tn_at__fft_r2c(in, TN_IPY(dl), mode, onesided);
        if (!forward && r) Py_SETREF(r, tn_at_conj(r));   /* upstream: ret.conj(), a lazy view */
    } else {
        if (forward) Py_SETREF(in, tn_at_conj(in));   /* upstream: input.conj(), a lazy view */
        r = in ? tn_at__fft_c2r(in, TN_IPY(dl), mode, (long long)n) : NULL;
    }
    Py_XDECREF(in);
    Py_DECREF(dl);
    return r;
}
PyObject *tn_fft_d_fft(tn_value *a) {
    bool c = tn_dtype_is_complex(TN_T(a[0])->dtype);
    return fft1(a, "fft", c ? K_C2C : K_R2C, true, false);
}
PyObject *tn_fft_d_ifft(tn_value *a) {
    bool c = tn_dtype_is_complex(TN_T(a[0])->dtype);
    return fft1(a, "ifft", c ? K_C2C : K_R2C, false, false);
}
PyObject *tn_fft_d_rfft(tn_value *a) { return fft1(a, "rfft", K_R2C, true, true); }
PyObject *tn_fft_d_irfft(tn_value *a) { return fft1(a, "irfft", K_C2R, false, false); }
PyObject *tn_fft_d_hfft(tn_value *a) { return fft1(a, "hfft", K_C2R, true, false); }
PyObject *tn_fft_d_ihfft(tn_value *a) { return fft1(a, "ihfft", K_R2C, false, true); }

/* canonicalize_fft_shape_and_dim_args: (s, dim) -> dims and shape (-1 = input's size) */
static int canon(const tn_tensor *t, const tn_value *s, const tn_value *d, int *dims, int64_t *shape, int *nd) {
    bool hs = !tn_is_none(s), hd = !tn_is_none(d);
    if (hd) {
        *nd = d->u.ints.n;
        for (int i = 0; i < *nd; i++) {
            if (wrap_fft_dim(d->u.ints.v[i], t, &dims[i]) < 0) return -1;
            for (int j = 0; j < i; j++)
                if (dims[j] == dims[i]) { PyErr_SetString(PyExc_RuntimeError, "FFT dims must be unique"); return -1; }
        }
        if (hs && s->u.ints.n != *nd) {
            PyErr_SetString(PyExc_RuntimeError, "When given, dim and shape arguments must have the same length");
            return -1;
        }
    } else if (hs) {
        *nd = s->u.ints.n;
        if (*nd > t->ndim) {
            PyErr_Format(PyExc_RuntimeError, "Got shape with %d values but input tensor only has %d dimensions.", *nd, t->ndim);
            return -1;
        }
        for (int i = 0; i < *nd; i++) dims[i] = t->ndim - *nd + i;
    } else {
        *nd = t->ndim;
        for (int i = 0; i < *nd; i++) dims[i] = i;
    }
    for (int i = 0; i < *nd; i++) {
        shape[i] = hs && s->u.ints.v[i] != -1 ? s->u.ints.v[i] : t->sizes[dims[i]];
        if (shape[i] < 1) {
            PyErr_Format(PyExc_RuntimeError, "Invalid number of data points (%lld) specified", (long long)shape[i]);
            return -1;
        }
    }
    return 0;
}

/* n-dimensional: fftn/ifftn (c2c), rfftn (r2c), irfftn (c2r); fft2 & co. share them */
static PyObject *fftn(tn_value *a, const char *fname, fft_kind kind, bool forward) {
    PyObject *x = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(x);
    if (kind == K_R2C && tn_dtype_is_complex(t->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "%s expects a real-valued input tensor, but got %s", fname, tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    int dims[TN_MAX_DIMS], nd, mode;
    int64_t shape[TN_MAX_DIMS];
    if (canon(t, &a[1], &a[2], dims, shape, &nd) < 0 || norm_from(&a[3], forward, &mode) < 0) return NULL;
    int64_t last = 0;
    if (kind == K_R2C && nd == 0) {
        PyErr_SetString(PyExc_RuntimeError, "rfftn must transform at least one axis");
        return NULL;
    }
    if (kind == K_C2R) {
        if (nd == 0) {
            PyErr_SetString(PyExc_RuntimeError, "Must transform at least one axis");
            return NULL;
        }
        bool given = !tn_is_none(&a[1]) && a[1].u.ints.v[nd - 1] != -1;
        last = given ? a[1].u.ints.v[nd - 1] : 2 * (t->sizes[dims[nd - 1]] - 1);
        if (last < 1) {
            PyErr_Format(PyExc_RuntimeError, "Invalid number of data points (%lld) specified", (long long)last);
            return NULL;
        }
        shape[nd - 1] = last / 2 + 1;
    }
    PyObject *in = promote(x, kind != K_R2C);
    if (!in) return NULL;
    Py_SETREF(in, resize_input(in, nd, dims, shape));
    if (!in) return NULL;
    PyObject *dl = dimlist(nd, dims), *r = NULL;
    if (!dl) { Py_DECREF(in); return NULL; }
    if (kind == K_C2C) r = tn_at__fft_c2c(in, TN_IPY(dl), mode, forward);
    else if (kind == K_R2C) r = tn_at__fft_r2c(in, TN_IPY(dl), mode, true);
    else r = tn_at__fft_c2r(in, TN_IPY(dl), mode, (long long)last);
    Py_DECREF(in);
    Py_DECREF(dl);
    return r;
}
PyObject *tn_fft_d_fftn(tn_value *a) { return fftn(a, "fftn", K_C2C, true); }
PyObject *tn_fft_d_ifftn(tn_value *a) { return fftn(a, "ifftn", K_C2C, false); }
PyObject *tn_fft_d_rfftn(tn_value *a) { return fftn(a, "rfftn", K_R2C, true); }
PyObject *tn_fft_d_irfftn(tn_value *a) { return fftn(a, "irfftn", K_C2R, false); }

/* hfftn / hfft2 (SpectralOps.cpp fft_hfftn_impl): irfftn's shape rules, a forward c2c over all
 * but the last dim, then conj() (a lazy view) and a 1-D c2r on the last dim */
PyObject *tn_fft_d_hfftn(tn_value *a) {
    PyObject *x = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(x);
    int dims[TN_MAX_DIMS], nd, mode;
    int64_t shape[TN_MAX_DIMS];
    if (canon(t, &a[1], &a[2], dims, shape, &nd) < 0) return NULL;
    if (nd == 0) {
        PyErr_SetString(PyExc_RuntimeError, "hfftn must transform at least one axis");
        return NULL;
    }
    bool given = !tn_is_none(&a[1]) && a[1].u.ints.v[nd - 1] != -1;
    int64_t last = given ? a[1].u.ints.v[nd - 1] : 2 * (t->sizes[dims[nd - 1]] - 1);
    if (last < 1) {
        PyErr_Format(PyExc_RuntimeError, "Invalid number of data points (%lld) specified", (long long)last);
        return NULL;
    }
    shape[nd - 1] = last / 2 + 1;
    PyObject *in = promote(x, true);
    if (!in) return NULL;
    Py_SETREF(in, resize_input(in, nd, dims, shape));
    if (!in || norm_from(&a[3], true, &mode) < 0) { Py_XDECREF(in); return NULL; }
    if (nd > 1) {
        PyObject *dl = dimlist(nd - 1, dims);
        if (!dl) { Py_DECREF(in); return NULL; }
        Py_SETREF(in, tn_at__fft_c2c(in, TN_IPY(dl), mode, true));
        Py_DECREF(dl);
        if (!in) return NULL;
    }
    Py_SETREF(in, tn_at_conj(in));
    if (!in) return NULL;
    PyObject *dl = dimlist(1, &dims[nd - 1]), *r = NULL;
    if (dl) r = tn_at__fft_c2r(in, TN_IPY(dl), mode, (long long)last);
    Py_XDECREF(dl);
    Py_DECREF(in);
    return r;
}

/* ihfftn / ihfft2 (fft_ihfftn_impl): a onesided r2c over the last dim; alone, its conj() view;
 * else conj_physical and a backward c2c over the other dims */
PyObject *tn_fft_d_ihfftn(tn_value *a) {
    PyObject *x = a[0].u.obj;
    tn_tensor *t = tn_tensor_of(x);
    int dims[TN_MAX_DIMS], nd, mode;
    int64_t shape[TN_MAX_DIMS];
    if (canon(t, &a[1], &a[2], dims, shape, &nd) < 0) return NULL;
    if (nd == 0) {
        PyErr_SetString(PyExc_RuntimeError, "ihfftn must transform at least one axis");
        return NULL;
    }
    PyObject *in = promote(x, false);
    if (!in) return NULL;
    Py_SETREF(in, resize_input(in, nd, dims, shape));
    if (!in || norm_from(&a[3], false, &mode) < 0) { Py_XDECREF(in); return NULL; }
    PyObject *dl = dimlist(1, &dims[nd - 1]);
    PyObject *r = dl ? tn_at__fft_r2c(in, TN_IPY(dl), mode, true) : NULL;
    Py_XDECREF(dl);
    Py_DECREF(in);
    if (!r) return NULL;
    if (nd == 1) { Py_SETREF(r, tn_at_conj(r)); return r; }
    Py_SETREF(r, tn_at_conj_physical(r));
    if (!r) return NULL;
    dl = dimlist(nd - 1, dims);
    if (!dl) { Py_DECREF(r); return NULL; }
    Py_SETREF(r, tn_at__fft_c2c(r, TN_IPY(dl), mode, false));
    Py_DECREF(dl);
    return r;
}

/* ---- stft (SpectralOps.cpp's stft; torch.stft pads for center=True in Python and calls the
 * overload without center). The op stream follows upstream's: unsqueeze of a 1-D signal, the
 * centring pad (stft.center), the window padded to n_fft, the align_to_window pad, frames as an
 * as_strided view, times the window, r2c (or c2c) over the last dim, transpose_, squeeze_,
 * view_as_real for return_complex=False. ---- */
static PyObject *stft_error(const tn_tensor *t, int64_t n_fft, int64_t hop, int64_t win, const char *what) {
    char shape[256];
    int k = snprintf(shape, sizeof shape, "[");
    for (int i = 0; i < t->ndim && k < 200; i++) k += snprintf(shape + k, sizeof shape - (size_t)k, "%s%lld", i ? ", " : "", (long long)t->sizes[i]);
    snprintf(shape + k, sizeof shape - (size_t)k, "]");
    PyErr_Format(PyExc_RuntimeError, "stft(%s%s, n_fft=%lld, hop_length=%lld, win_length=%lld, ...) : %s",
                 tn_dtype_cpp_name(t->dtype), shape, (long long)n_fft, (long long)hop, (long long)win, what);
    return NULL;
}
#define STEP(var, expr) do { PyObject *n_ = (expr); Py_DECREF(var); var = n_; if (!var) goto fail; } while (0)

/* The frames' transform over the last dim, for stft (forward: c2c, or r2c keeping n_fft/2+1 bins
 * when onesided) and istft (inverse: c2c, or c2r of the first n_fft/2+1 bins to n_fft samples).
 * complex_frames selects c2c, which has no onesided form. Takes the reference to `in`. */
static PyObject *frame_fft(PyObject *in, int mode, bool complex_frames, bool onesided, bool forward, int64_t n_fft) {
    PyObject *dl = NULL;
    if (complex_frames && onesided) {
        PyErr_SetString(PyExc_RuntimeError, "Cannot have onesided output if window or input is complex");
        goto fail;
    }
    dl = Py_BuildValue("[i]", tn_tensor_of(in)->ndim - 1);
    if (!dl) goto fail;
    if (complex_frames) STEP(in, tn_at__fft_c2c(in, TN_IPY(dl), mode, forward));
    else if (forward) STEP(in, tn_at__fft_r2c(in, TN_IPY(dl), mode, onesided));
    else {
        if (!onesided) STEP(in, tn_at_slice_Tensor(in, -1, TN_I((long long)0), TN_I((long long)(n_fft / 2 + 1)), 1));
        STEP(in, tn_at__fft_c2r(in, TN_IPY(dl), mode, (long long)n_fft));
    }
    Py_DECREF(dl);
    return in;
fail:
    Py_XDECREF(in);
    Py_XDECREF(dl);
    return NULL;
}
static PyObject *stft_impl(PyObject *self, int64_t n_fft, const tn_value *hop_v, const tn_value *win_v,
                           const tn_value *window_v, bool center, PyObject *pad_mode, bool normalized,
                           const tn_value *onesided_v, const tn_value *rc_v, const tn_value *align_v) {
    const tn_tensor *t = tn_tensor_of(self);
    PyObject *window = tn_is_none(window_v) ? NULL : window_v->u.obj;
    int64_t hop = tn_is_none(hop_v) ? n_fft >> 2 : hop_v->u.i;
    int64_t win = tn_is_none(win_v) ? n_fft : win_v->u.i;
    bool wcplx = window && tn_dtype_is_complex(tn_tensor_of(window)->dtype);
    bool rc = tn_is_none(rc_v) ? (tn_dtype_is_complex(t->dtype) || wcplx) : rc_v->u.i != 0;
    if (!rc && tn_is_none(rc_v)) {
        PyErr_SetString(PyExc_RuntimeError, "stft requires the return_complex parameter be given for real inputs, and will further require that return_complex=True in a future PyTorch release.");
        return NULL;
    }
    if (!tn_dtype_is_floating(t->dtype) && !tn_dtype_is_complex(t->dtype))
        return stft_error(t, n_fft, hop, win, "expected a tensor of floating point or complex values");
    if (t->ndim > 2 || t->ndim < 1) return stft_error(t, n_fft, hop, win, "expected a 1D or 2D tensor");
    bool one_d = t->ndim == 1;
    PyObject *in = one_d ? tn_at_unsqueeze(self, 0) : Py_NewRef(self);
    PyObject *w = NULL;
    if (!in) return NULL;
    if (center) {
        const tn_tensor *it = tn_tensor_of(in);
        int64_t len = it->sizes[1], b = it->sizes[0], p = n_fft / 2;
        STEP(in, tn_at_view(in, TN_IS((long long)1, (long long)b, (long long)len)));
        const char *pm = pad_mode && pad_mode != Py_None ? PyUnicode_AsUTF8AndSize(pad_mode, NULL) : NULL;
        STEP(in, tn_at_pad(in, TN_IS(p, p), pm, NULL));
        const tn_tensor *pt = tn_tensor_of(in);
        STEP(in, tn_at_view(in, TN_IS((long long)pt->sizes[1], (long long)pt->sizes[2])));
    }
    const tn_tensor *it = tn_tensor_of(in);
    int64_t batch = it->sizes[0], len = it->sizes[1];
    char msg[160];
    if (n_fft <= 0 || n_fft > len) {
        snprintf(msg, sizeof msg, "expected 0 < n_fft < %lld, but got n_fft=%lld", (long long)len, (long long)win);
        stft_error(t, n_fft, hop, win, msg);
        goto fail;
    }
    if (hop <= 0) {
        snprintf(msg, sizeof msg, "expected hop_length > 0, but got hop_length=%lld", (long long)hop);
        stft_error(t, n_fft, hop, win, msg);
        goto fail;
    }
    if (win <= 0 || win > n_fft) {
        snprintf(msg, sizeof msg, "expected 0 < win_length <= n_fft, but got win_length=%lld", (long long)win);
        stft_error(t, n_fft, hop, win, msg);
        goto fail;
    }
    if (window && (tn_tensor_of(window)->ndim != 1 || tn_tensor_of(window)->sizes[0] != win)) {
        const tn_tensor *wt = tn_tensor_of(window);
        int k = snprintf(msg, sizeof msg, "expected a 1D window tensor of size equal to win_length=%lld, but got window with size [", (long long)win);
        for (int i = 0; i < wt->ndim && k < 140; i++) k += snprintf(msg + k, sizeof msg - (size_t)k, "%s%lld", i ? ", " : "", (long long)wt->sizes[i]);
        snprintf(msg + k, sizeof msg - (size_t)k, "]");
        stft_error(t, n_fft, hop, win, msg);
        goto fail;
    }
    static bool warned;   /* upstream: TORCH_WARN_ONCE */
    if (!window && !warned) {
        warned = true;
        if (PyErr_WarnEx(PyExc_UserWarning, "A window was not provided. A rectangular window will be applied,which is known to cause spectral leakage. Other windows such as torch.hann_window or torch.hamming_window are recommended to reduce spectral leakage.To suppress this warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.", 1) < 0) goto fail;
    }
    w = window ? Py_NewRef(window) : NULL;
    int64_t left = (n_fft - win) / 2;
    if (win < n_fft) {   /* the window centred in n_fft zeros (upstream: at::zeros + narrow) */
        PyObject *z = tn_at_new_zeros(window ? window : self, TN_IS((long long)n_fft), NULL, NULL, NULL, NULL);
        if (!z) goto fail;
        PyObject *sl = tn_at_slice_Tensor(z, 0, TN_I((long long)left), TN_I((long long)(left + win)), 1);
        PyObject *c = !sl ? NULL : window ? tn_at_copy_(sl, window, false) : tn_at_fill__Scalar(sl, TN_SI(1));
        Py_XDECREF(sl);
        if (!c) { Py_DECREF(z); goto fail; }
        Py_DECREF(c);
        Py_XSETREF(w, z);
    }
    bool align = !tn_is_none(align_v) && align_v->u.i;
    int64_t n_frames;
    if (!center && align) {   /* frames start where the window starts: pad left on both sides */
        n_frames = 1 + (len - win) / hop;
        STEP(in, tn_at_constant_pad_nd(in, TN_IS(left, left), TN_SD(0.0)));
    } else {
        n_frames = 1 + (len - n_fft) / hop;
    }
    it = tn_tensor_of(in);
    STEP(in, tn_at_as_strided(in, TN_IS((long long)batch, (long long)n_frames, (long long)n_fft), TN_IS((long long)it->strides[0], (long long)(hop * it->strides[1]), (long long)it->strides[1]), TN_I((long long)it->offset)));
    if (w) STEP(in, tn_at_mul_Tensor(in, w));
    bool cfft = tn_dtype_is_complex(tn_tensor_of(in)->dtype);
    bool onesided = tn_is_none(onesided_v) ? !cfft : onesided_v->u.i != 0;
    in = frame_fft(in, normalized ? NORM_SQRT : NORM_NONE, cfft, onesided, true, n_fft);
    if (!in) goto fail;
    PyObject *tr = tn_at_transpose_(in, 1, 2);
    if (!tr) goto fail;
    Py_DECREF(tr);
    if (one_d) {
        PyObject *sq = tn_at_squeeze__dim(in, 0);
        if (!sq) goto fail;
        Py_DECREF(sq);
    }
    if (!rc) STEP(in, tn_at_view_as_real(in));
    Py_XDECREF(w);
    return in;
fail:
    Py_XDECREF(in);
    Py_XDECREF(w);
    return NULL;
}
/* stft(self, n_fft, hop_length, win_length, window, normalized, onesided, return_complex, align_to_window) */
PyObject *tn_fft_d_stft(tn_value *a) {
    return stft_impl(a[0].u.obj, a[1].u.i, &a[2], &a[3], &a[4], false, NULL, a[5].u.i != 0, &a[6], &a[7], &a[8]);
}
/* stft.center(self, n_fft, hop_length, win_length, window, center, pad_mode, normalized, onesided, return_complex, align_to_window) */
PyObject *tn_fft_d_stft_center(tn_value *a) {
    bool center = a[5].u.i != 0;
    if (center && !tn_is_none(&a[10])) {
        PyErr_SetString(PyExc_RuntimeError, "stft align_to_window should only be set when center = false.");
        return NULL;
    }
    return stft_impl(a[0].u.obj, a[1].u.i, &a[2], &a[3], &a[4], center, a[6].u.obj, a[7].u.i != 0, &a[8], &a[9], &a[10]);
}

/* ---- istft (SpectralOps.cpp's istft): c2r (or c2c) of each frame, times the window, overlap-add
 * by unfold_backward, divided by the overlap-added squared window (refused where it is below
 * 1e-11), trimmed for center / length and zero-padded up to length ---- */
static PyObject *istft_error(const tn_tensor *t, int64_t n_fft, int64_t hop, int64_t win, const char *what) {
    char shape[256];
    int k = snprintf(shape, sizeof shape, "[");
    for (int i = 0; i < t->ndim && k < 200; i++) k += snprintf(shape + k, sizeof shape - (size_t)k, "%s%lld", i ? ", " : "", (long long)t->sizes[i]);
    snprintf(shape + k, sizeof shape - (size_t)k, "]");
    PyErr_Format(PyExc_RuntimeError, "istft(%s%s, n_fft=%lld, hop_length=%lld, win_length=%lld, ...) : %s",
                 tn_dtype_cpp_name(t->dtype), shape, (long long)n_fft, (long long)hop, (long long)win, what);
    return NULL;
}
/* istft(self, n_fft, hop_length, win_length, window, center, normalized, onesided, length, return_complex) */
PyObject *tn_fft_d_istft(tn_value *a) {
    PyObject *self = a[0].u.obj, *window = tn_is_none(&a[4]) ? NULL : a[4].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    int64_t n_fft = a[1].u.i;
    int64_t hop = tn_is_none(&a[2]) ? n_fft >> 2 : a[2].u.i;
    int64_t win = tn_is_none(&a[3]) ? n_fft : a[3].u.i;
    bool center = a[5].u.i != 0, normalized = a[6].u.i != 0, rc = a[9].u.i != 0;
    if (!tn_dtype_is_complex(t->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "istft requires a complex-valued input tensor matching the output from stft with return_complex=True.");
        return NULL;
    }
    PyObject *in = tn_at_resolve_conj(self), *w = NULL, *y = NULL, *env = NULL;
    if (!in) return NULL;
    STEP(in, tn_at_view_as_real(in));
    const tn_tensor *it = tn_tensor_of(in);
    int input_dim = it->ndim;
    if (input_dim < 3) {   /* input.size(-3) */
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got -3)", -input_dim, input_dim - 1);
        goto fail;
    }
    int64_t n_frames = it->sizes[input_dim - 2], fft_size = it->sizes[input_dim - 3];
    int64_t expected = n_fft + hop * (n_frames - 1);
    char msg[200];
    if (tn_numel(it) == 0) { istft_error(t, n_fft, hop, win, "input tensor cannot be empty."); goto fail; }
    if (input_dim != 3 && input_dim != 4) {
        snprintf(msg, sizeof msg, "expected a tensor with 3 or 4 dimensions, but got %d", input_dim);
        istft_error(t, n_fft, hop, win, msg);
        goto fail;
    }
    bool onesided = tn_is_none(&a[7]) ? fft_size != n_fft : a[7].u.i != 0;
    if (onesided ? n_fft / 2 + 1 != fft_size : n_fft != fft_size) {
        snprintf(msg, sizeof msg, "expected the frequency dimension (3rd to the last) of the input tensor to match %s, but got %lld",
                 onesided ? "n_fft / 2 + 1 when onesided=True" : "n_fft when onesided=False", (long long)fft_size);
        istft_error(t, n_fft, hop, win, msg);
        goto fail;
    }
    if (!(0 < hop && hop <= win)) { istft_error(t, n_fft, hop, win, "expected 0 < hop_length <= win_length"); goto fail; }
    if (!(0 < win && win <= n_fft)) { istft_error(t, n_fft, hop, win, "expected 0 < win_length <= n_fft"); goto fail; }
    if (window && (tn_tensor_of(window)->ndim != 1 || tn_tensor_of(window)->sizes[0] != win)) {
        istft_error(t, n_fft, hop, win, "Invalid window shape. window has to be 1D and length of `win_length`");
        goto fail;
    }
    static bool warned;   /* upstream: TORCH_WARN_ONCE */
    if (!window && !warned) {
        warned = true;
        if (PyErr_WarnEx(PyExc_UserWarning, "A window was not provided. A rectangular window will be applied.Please provide the same window used by stft to make the inversion lossless.To suppress this warning and use a rectangular window, explicitly set `window=torch.ones(n_fft, device=<device>)`.", 1) < 0) goto fail;
    }
    w = window ? Py_NewRef(window) : tn_at_new_ones(in, TN_IS((long long)win), NULL, NULL, NULL, NULL);   /* upstream: at::ones(win, input's options) */
    if (!w) goto fail;
    if (win != n_fft) {
        int64_t left = (n_fft - win) / 2;
        STEP(w, tn_at_constant_pad_nd(w, TN_IS(left, (n_fft - win - left)), TN_SD(0.0)));
    }
    if (input_dim == 3) STEP(in, tn_at_unsqueeze(in, 0));
    STEP(in, tn_at_transpose_int(in, 1, 2));
    {   /* as_complex: a view when the strides allow one, else a contiguous clone first */
        const tn_tensor *c = tn_tensor_of(in);
        bool can = c->strides[c->ndim - 1] == 1 && c->offset % 2 == 0;
        for (int i = 0; i < c->ndim - 1; i++) can = can && c->strides[i] % 2 == 0;
        if (!can) {
            STEP(in, tn_at_clone(in, tn_py.memory_format_contiguous));
        }
        STEP(in, tn_at_view_as_complex(in));
    }
    if (!rc && window && tn_dtype_is_complex(tn_tensor_of(window)->dtype)) {
        PyErr_SetString(PyExc_RuntimeError, "Complex windows are incompatible with return_complex=False");
        goto fail;
    }
    in = frame_fft(in, normalized ? NORM_SQRT : NORM_N, rc, onesided, false, n_fft);
    if (!in) goto fail;
    {
        PyObject *wv = tn_at_view(w, TN_IS((long long)1, (long long)1, (long long)n_fft));
        if (!wv) goto fail;
        STEP(in, tn_at_mul_Tensor(in, wv));
        Py_DECREF(wv);
    }
    int64_t ch = tn_tensor_of(in)->sizes[0];
    y = tn_at_unfold_backward(in, TN_IS((long long)ch, (long long)expected), 1, (long long)n_fft, (long long)hop);
    if (!y) goto fail;
    STEP(w, tn_at_pow_Tensor_Scalar(w, TN_SI(2)));
    STEP(w, tn_at_expand(w, TN_IS((long long)1, (long long)n_frames, (long long)n_fft), false));
    env = tn_at_unfold_backward(w, TN_IS((long long)1, (long long)expected), 1, (long long)n_fft, (long long)hop);
    if (!env) goto fail;
    int64_t start = center ? n_fft / 2 : 0;
    int64_t end = !tn_is_none(&a[8]) ? start + a[8].u.i : center ? -(n_fft / 2) : expected;
    STEP(y, tn_at_slice_Tensor(y, 1, TN_I((long long)start), TN_I((long long)end), 1));
    STEP(env, tn_at_slice_Tensor(env, 1, TN_I((long long)start), TN_I((long long)end), 1));
    {
        PyObject *ab = tn_at_abs(env);
        PyObject *mn = ab ? tn_at_min(ab) : NULL;
        PyObject *lt = mn ? tn_at_lt_Scalar(mn, TN_SD(1e-11)) : NULL;
        Py_XDECREF(ab); Py_XDECREF(mn);
        if (!lt) goto fail;
        bool low = *(const bool *)tn_data(tn_tensor_of(lt));
        Py_DECREF(lt);
        if (low) { istft_error(t, n_fft, hop, win, "window overlap add min: 1"); goto fail; }
    }
    STEP(y, tn_at_div_Tensor(y, env));
    if (input_dim == 3) STEP(y, tn_at_squeeze_dim(y, 0));
    if (end > expected) {
        if (PyErr_WarnEx(PyExc_UserWarning, "The length of signal is shorter than the length parameter. Result is being padded with zeros in the tail. Please check your center and hop_length settings.", 1) < 0) goto fail;
        STEP(y, tn_at_constant_pad_nd(y, TN_IS(0, (end - expected)), TN_SD(0.0)));
    }
    Py_DECREF(in); Py_DECREF(w); Py_DECREF(env);
    return y;
fail:
    Py_XDECREF(in); Py_XDECREF(w); Py_XDECREF(y); Py_XDECREF(env);
    return NULL;
}

/* ---- out= (upstream: the *_maybe_out helpers check out's kind, then resize_output + copy_; the
 * inverse r2c transforms write conj_physical into out, so out never carries the conj bit) ---- */
static PyObject *with_out(PyObject *r, PyObject *out, const char *fname, bool want_complex) {
    if (!r) return NULL;
    tn_dtype od = tn_tensor_of(out)->dtype;
    if (want_complex ? !tn_dtype_is_complex(od) : !tn_dtype_is_floating(od)) {
        PyErr_Format(PyExc_RuntimeError, "%s expects a %s output tensor, but got %s", fname,
                     want_complex ? "complex" : "floating point", tn_dtype_cpp_name(od));
        Py_DECREF(r);
        return NULL;
    }
    if (tn_tensor_of(r)->math_bits) Py_SETREF(r, tn_at_resolve_conj(r));
    return tn_out_deliver(r, out, fname);
}
#define FFT_OUT(name, fn, fname, cplx) \
    PyObject *tn_fft_d_##name##_out(tn_value *a) { return with_out(fn(a), a[4].u.obj, fname, cplx); }
FFT_OUT(fft, tn_fft_d_fft, "fft", true)
FFT_OUT(ifft, tn_fft_d_ifft, "ifft", true)
FFT_OUT(rfft, tn_fft_d_rfft, "rfft", true)
FFT_OUT(irfft, tn_fft_d_irfft, "irfft", false)
FFT_OUT(hfft, tn_fft_d_hfft, "hfft", false)
FFT_OUT(ihfft, tn_fft_d_ihfft, "ihfft", true)
FFT_OUT(fftn, tn_fft_d_fftn, "fftn", true)
FFT_OUT(ifftn, tn_fft_d_ifftn, "ifftn", true)
FFT_OUT(rfftn, tn_fft_d_rfftn, "rfftn", true)
FFT_OUT(irfftn, tn_fft_d_irfftn, "irfftn", false)
FFT_OUT(hfftn, tn_fft_d_hfftn, "hfftn", false)
/* ihfftn / ihfft2 with out=: over several dims the c2c's out path; over one dim upstream calls
 * at::conj_physical_out(tmp, out) with the arguments swapped (out is the first parameter), so it
 * writes conj(out) into the temporary, resized to out's shape (warning when they differ), and
 * leaves out untouched; dtypes must agree (copy's "Found dtype" check). Reproduced as measured. */
PyObject *tn_fft_d_ihfftn_out(tn_value *a) {
    PyObject *out = a[4].u.obj;
    PyObject *r = tn_fft_d_ihfftn(a);
    if (!r) return NULL;
    const tn_tensor *rt = tn_tensor_of(r);
    if (!rt->math_bits) return with_out(r, out, "ihfftn", true);   /* several dims: a plain c2c result */
    const tn_tensor *ot = tn_tensor_of(out);
    if (rt->dtype != ot->dtype) {
        PyErr_Format(PyExc_RuntimeError, "Found dtype %s but expected %s", tn_dtype_cpp_name(rt->dtype), tn_dtype_cpp_name(ot->dtype));
        Py_DECREF(r);
        return NULL;
    }
    if ((rt->ndim != ot->ndim || memcmp(rt->sizes, ot->sizes, (size_t)rt->ndim * sizeof *rt->sizes)) && tn_numel(rt)) {
        char sa[256], sb[256];
        tn_shape_str(sa, sizeof sa, rt->ndim, rt->sizes);
        tn_shape_str(sb, sizeof sb, ot->ndim, ot->sizes);
        if (PyErr_WarnFormat(PyExc_UserWarning, 1,
                "An output with one or more elements was resized since it had shape %s, which does not "
                "match the required output shape %s. This behavior is deprecated, and in a future PyTorch "
                "release outputs will not be resized unless they have zero elements. You can explicitly "
                "reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).", sa, sb) < 0) {
            Py_DECREF(r);
            return NULL;
        }
    }
    Py_DECREF(r);
    return Py_NewRef(out);
}

/* The primitives' out= overloads take an out of any dtype: upstream resizes it (resize_output)
 * and copy_s the transform in, so a real out gets the real part (with copy_'s warning), an integer
 * one the truncated values. _fft_r2c with onesided=False copies the onesided half and fills the
 * rest by conjugate symmetry, a kernel built for complex outs only, which has nothing to fill (and
 * so runs for any out) when the last dim has at most 2 elements. Measured: docs/breadth_more2.md
 * "Fuzz corpus: calls upstream runs". Steals r. */
static PyObject *prim_out(PyObject *r, PyObject *out, const char *op, const tn_value *dim, bool fill_conj) {
    if (!r) return NULL;
    tn_tensor *rt = tn_tensor_of(r), *ot = tn_tensor_of(out);
    int n = dim->u.ints.n;
    int64_t last = n ? dim->u.ints.v[n - 1] : 0;
    if (last < 0) last += rt->ndim;
    if (tn_out_prepare(out, rt->ndim, rt->sizes, ot->dtype, op) < 0 || tn_check_overlap(out, 0, NULL) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    if (fill_conj && !tn_dtype_is_complex(ot->dtype) && tn_numel(rt) > 0 && n && rt->sizes[last] > 2) {
        Py_DECREF(r);
        PyErr_Format(PyExc_NotImplementedError, "\"_fft_fill_with_conjugate_symmetry\" not implemented for '%s'",
                     tn_dtype_cpp_name(ot->dtype));
        return NULL;
    }
    if (tn_dtype_is_complex(rt->dtype) && !tn_dtype_is_complex(ot->dtype) && tn_numel(rt) > 0 &&
        PyErr_WarnEx(PyExc_UserWarning, "Casting complex values to real discards the imaginary part", 1) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    int rc = tn_copy_into(out, r);
    Py_DECREF(r);
    return rc < 0 ? NULL : Py_NewRef(out);
}
PyObject *tn_op__fft_r2c_out(tn_value *a) { return prim_out(tn_op__fft_r2c(a), a[4].u.obj, "_fft_r2c", &a[1], !a[3].u.i); }
PyObject *tn_op__fft_c2r_out(tn_value *a) { return prim_out(tn_op__fft_c2r(a), a[4].u.obj, "_fft_c2r", &a[1], false); }
PyObject *tn_op__fft_c2c_out(tn_value *a) { return prim_out(tn_op__fft_c2c(a), a[4].u.obj, "_fft_c2c", &a[1], false); }

/* ---- fftfreq / rfftfreq (CompositeExplicitAutograd upstream: arange into the result, the upper
 * half re-filled with arange(-(n/2), 0), then mul_(1 / (n * d)) — the multiply through the door,
 * so it rounds as upstream's mul with a scalar; the integer ramp is exact in every dtype arange
 * rounds it to: (dtype)k as arange's accumulate-then-cast) ---- */
int tn_cr_options(const tn_value *dtype, const tn_value *layout, const tn_value *device, const tn_value *pin,
                  tn_dtype def_dtype, tn_device_type def_dev, tn_dtype *dt, tn_device_type *dev);
static PyObject *freq_fill(PyObject *r, int64_t n, double d, bool full, const char *fname) {
    tn_tensor *t = tn_tensor_of(r);
    if (!tn_dtype_is_floating(t->dtype) && !tn_dtype_is_complex(t->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "%s requires a floating point or complex dtype", fname);
        Py_DECREF(r);
        return NULL;
    }
    if (tn_dtype_is_complex(t->dtype)) {   /* upstream's arange has no complex kernel */
        PyErr_Format(PyExc_NotImplementedError, "\"arange_cpu\" not implemented for '%s'", tn_dtype_cpp_name(t->dtype));
        Py_DECREF(r);
        return NULL;
    }
    int64_t m = tn_numel(t);
    PyObject *k = tn_tensor_new_empty(t->ndim, t->sizes, TN_DTYPE_F64, TN_DEVICE_CPU);
    if (!k) { Py_DECREF(r); return NULL; }
    double *kv = (double *)D(k);
    /* the upper half along dim 0 (every element when the other dims are 1); none for an out= of
     * more dims without those rows (freq_out takes only those) */
    bool neg = full && t->ndim >= 1 && t->sizes[0] == m;
    for (int64_t i = 0; i < m; i++) kv[i] = neg && i >= (n + 1) / 2 ? (double)(i - n) : (double)i;
    int rc = tn_copy_into(r, k);
    Py_DECREF(k);
    if (rc < 0) { Py_DECREF(r); return NULL; }
    /* upstream's out.mul_(Scalar) is mul_.Scalar, which multiplies by the scalar as a 0-dim
     * tensor cast to the result dtype (bf16 / f16: the scalar rounds first; measured) */
    double sv = 1.0 / ((double)n * d);
    PyObject *s64 = tn_tensor_new_empty(0, NULL, TN_DTYPE_F64, TN_DEVICE_CPU);
    if (s64) *(double *)D(s64) = sv;
    PyObject *sc = s64 ? tn_as_dtype(s64, t->dtype, false) : NULL;
    Py_XDECREF(s64);
    PyObject *res = sc ? tn_at_mul__Tensor(r, sc) : NULL;
    Py_XDECREF(sc);
    if (!res) { Py_DECREF(r); return NULL; }
    Py_DECREF(res);
    return r;
}
static PyObject *freq_new(tn_value *a, bool full) {
    tn_dtype dt;
    tn_device_type dev;
    if (tn_cr_options(&a[2], &a[3], &a[4], &a[5], tn_py.default_dtype, TN_DEVICE_CPU, &dt, &dev) < 0) return NULL;
    int64_t n = a[0].u.i, m = full ? n : n / 2 + 1;
    if (m < 0) {
        PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld]", (long long)m, (long long)m);
        return NULL;
    }
    if (dev == TN_DEVICE_META) {   /* upstream's composite on meta: the shape and the dtype check */
        if (!tn_dtype_is_floating(dt) && !tn_dtype_is_complex(dt))
            return PyErr_Format(PyExc_RuntimeError, "%s requires a floating point or complex dtype", full ? "fftfreq" : "rfftfreq");
        return tn_tensor_new_empty(1, &m, dt, TN_DEVICE_META);
    }
    PyObject *r = tn_tensor_new_empty(1, &m, dt, TN_DEVICE_CPU);
    return r ? freq_fill(r, n, a[1].u.f, full, full ? "fftfreq" : "rfftfreq") : NULL;
}
static PyObject *freq_out(tn_value *a, bool full) {
    PyObject *out = a[2].u.obj;
    int64_t n = a[0].u.i, m = full ? n : n / 2 + 1;
    tn_dtype od = tn_tensor_of(out)->dtype;
    if (!tn_dtype_is_floating(od) && !tn_dtype_is_complex(od)) {
        PyErr_Format(PyExc_RuntimeError, "%s requires a floating point or complex dtype", full ? "fftfreq" : "rfftfreq");
        return NULL;
    }
    if (m < 0) {
        PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld]", (long long)m, (long long)m);
        return NULL;
    }
    /* arange_out: a numel mismatch warns (its own wording) and resizes to [m]; a matching numel
     * keeps out's shape and fills it in order */
    const tn_tensor *ot = tn_tensor_of(out);
    if (tn_numel(ot) != m) {
        char sh[256];
        tn_shape_str(sh, sizeof sh, ot->ndim, ot->sizes);
        if (tn_numel(ot) && PyErr_WarnFormat(PyExc_UserWarning, 1,
                "The number of elements in the out tensor of shape %s is %lld which does not match the computed number of elements %lld. "
                "Note that this may occur as a result of rounding error. The out tensor will be resized to a tensor of shape (%lld,).",
                sh, (long long)tn_numel(ot), (long long)m, (long long)m) < 0)
            return NULL;
        if (tn_resize(out, 1, &m) < 0) return NULL;
    } else if (full && ot->ndim == 0) {   /* upstream slices the result along dim 0 (measured) */
        PyErr_SetString(PyExc_IndexError, "slice() cannot be applied to a 0-dim tensor.");
        return NULL;
    } else if (!tn_is_contiguous(ot) || (full && ot->ndim != 1 && ot->sizes[0] != m && ot->sizes[0] > (n + 1) / 2)) {
        /* upstream fills a matching out= in order, then copies the negative half into its rows
         * from (n + 1) / 2 along dim 0: none for a contiguous out= of more dims with no such rows
         * (fftfreq.out(6, out=2x3): 0 .. 5 / 6d, measured); the rest is not reproduced */
        return tn_not_implemented("fft_fftfreq.out into a non-contiguous or multi-row out tensor"), NULL;
    }
    return freq_fill(Py_NewRef(out), n, a[1].u.f, full, full ? "fftfreq" : "rfftfreq");
}
PyObject *tn_op_fft_fftfreq(tn_value *a) { return freq_new(a, true); }
PyObject *tn_op_fft_rfftfreq(tn_value *a) { return freq_new(a, false); }
PyObject *tn_op_fft_fftfreq_out(tn_value *a) { return freq_out(a, true); }
PyObject *tn_op_fft_rfftfreq_out(tn_value *a) { return freq_out(a, false); }
