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
 * refuse it (upstream's _fft_* ops read uninitialised memory for one) */
static int get_dims(const tn_value *v, const tn_tensor *t, int *dims, int *nd) {
    bool seen[TN_MAX_DIMS] = {0};
    *nd = v->u.ints.n;
    for (int i = 0; i < *nd; i++) {
        int d;
        if (tn_wrap_dim_i(v->u.ints.v[i], t->ndim, &d) < 0) return -1;
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
    if (get_dims(&a[1], t, dims, &nd) < 0) return NULL;
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
    int dims[TN_MAX_DIMS], nd;
    if (get_dims(&a[1], t, dims, &nd) < 0) return NULL;
    bool onesided = a[3].u.i != 0;
    if (nd == 0) {
        PyObject *c = tn_as_dtype(x, complex_of(t->dtype), true);
        if (c == x) { Py_DECREF(c); c = NULL; }
        return c;
    }
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
    if (get_dims(&a[1], t, dims, &nd) < 0) return NULL;
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
            Py_SETREF(r, tn_aten(TN_ROW_slice_Tensor, "(OiLLi)", r, dims[i], (long long)0, (long long)sizes[i], 1));
        } else if (have < sizes[i]) {
            PyObject *pad = PyList_New(2 * (t->ndim - dims[i]));
            if (!pad) { Py_DECREF(r); return NULL; }
            for (Py_ssize_t k = 0; k < PyList_Size(pad); k++) PyList_SetItem(pad, k, PyLong_FromLongLong(k == PyList_Size(pad) - 1 ? sizes[i] - have : 0));
            Py_SETREF(r, tn_aten(TN_ROW_constant_pad_nd, "(OO)", r, pad));
            Py_DECREF(pad);
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
    return tn_as_dtype(x, d, false);
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
/* conj of a fresh complex result, materialised (no lazy conjugate bit here) */
static PyObject *conj_fresh(PyObject *r) {
    if (!r) return NULL;
    const tn_tensor *t = tn_tensor_of(r);
    PyObject *c = tn_as_dtype(r, t->dtype, true);   /* r itself (fresh, ours) or a contiguous copy */
    Py_DECREF(r);
    if (!c) return NULL;
    t = tn_tensor_of(c);
    int64_t n = tn_numel(tn_tensor_of(c));
    if (t->dtype == TN_DTYPE_C64) { float *p = (float *)D(c); for (int64_t i = 0; i < n; i++) p[2 * i + 1] = -p[2 * i + 1]; }
    else { double *p = (double *)D(c); for (int64_t i = 0; i < n; i++) p[2 * i + 1] = -p[2 * i + 1]; }
    return c;
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
    if (kind == K_C2C) r = tn_aten(TN_ROW__fft_c2c, "(OOiO)", in, dl, mode, forward ? Py_True : Py_False);
    else if (kind == K_R2C) {
        r = tn_aten(TN_ROW__fft_r2c, "(OOiO)", in, dl, mode, onesided ? Py_True : Py_False);
        if (!forward && r) Py_SETREF(r, tn_aten(TN_ROW_conj, "(O)", r));   /* upstream: ret.conj(), a lazy view */
    } else {
        if (forward) Py_SETREF(in, conj_fresh(tn_aten(TN_ROW_clone, "(O)", in)));
        r = in ? tn_aten(TN_ROW__fft_c2r, "(OOiL)", in, dl, mode, (long long)n) : NULL;
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
    if (kind == K_C2C) r = tn_aten(TN_ROW__fft_c2c, "(OOiO)", in, dl, mode, forward ? Py_True : Py_False);
    else if (kind == K_R2C) r = tn_aten(TN_ROW__fft_r2c, "(OOiO)", in, dl, mode, Py_True);
    else r = tn_aten(TN_ROW__fft_c2r, "(OOiL)", in, dl, mode, (long long)last);
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
        Py_SETREF(in, tn_aten(TN_ROW__fft_c2c, "(OOiO)", in, dl, mode, Py_True));
        Py_DECREF(dl);
        if (!in) return NULL;
    }
    Py_SETREF(in, tn_aten(TN_ROW_conj, "(O)", in));
    if (!in) return NULL;
    PyObject *dl = dimlist(1, &dims[nd - 1]), *r = NULL;
    if (dl) r = tn_aten(TN_ROW__fft_c2r, "(OOiL)", in, dl, mode, (long long)last);
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
    PyObject *r = dl ? tn_aten(TN_ROW__fft_r2c, "(OOiO)", in, dl, mode, Py_True) : NULL;
    Py_XDECREF(dl);
    Py_DECREF(in);
    if (!r) return NULL;
    if (nd == 1) { Py_SETREF(r, tn_aten(TN_ROW_conj, "(O)", r)); return r; }
    Py_SETREF(r, tn_aten(TN_ROW_conj_physical, "(O)", r));
    if (!r) return NULL;
    dl = dimlist(nd - 1, dims);
    if (!dl) { Py_DECREF(r); return NULL; }
    Py_SETREF(r, tn_aten(TN_ROW__fft_c2c, "(OOiO)", r, dl, mode, Py_False));
    Py_DECREF(dl);
    return r;
}
