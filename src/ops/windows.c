/* ops/windows.c — the window factories: hann_window, hamming_window, blackman_window,
 * bartlett_window, kaiser_window (every overload and the autogen .out forms).
 *
 * Upstream builds each window from an arange of the window's dtype followed by in-place pointwise
 * ops (mul_, cos_, add_, ...), each rounding to the dtype; we issue the same op sequence through
 * the door, so the values are those of our pointwise kernels (which agree with upstream's). The
 * Kaiser window is one fused kernel upstream, computed in the dtype's opmath type (float for
 * f16 / bf16): we run its steps as ops on an f32 (or f64) tensor and round once at the end, which
 * gives the fused kernel's rounding. Checks and messages follow upstream's window_function_checks
 * (sparse layout, non-floating dtype, negative length: RuntimeError). */
#include "ops/common.h"

#include "autograd/autograd.h"
#include "core/pystate.h"
#include "kernels/special.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdio.h>

PyObject *tn_cr_empty(int nd, const int64_t *sizes, tn_dtype dt, tn_device_type dev);   /* ops/create.c */

#define WIN_PI 3.14159265358979323846

typedef struct {
    tn_dtype dt;
    tn_device_type dev;
    bool meta;   /* on the meta device, or out= a meta tensor (a CPU stand-in here, docs/breadth_more2.md) */
} win_opts;

/* upstream's TensorOptions printout in the window checks' messages */
static void opts_str(char *b, size_t n, tn_dtype dt, bool dtype_default, bool sparse, bool layout_default,
                     bool pin_default) {
    snprintf(b, n,
             "TensorOptions(dtype=%s%s, device=cpu, layout=%s%s, requires_grad=false (default), "
             "pinned_memory=false%s, memory_format=(nullopt))",
             tn_dtype_cxx_name(dt), dtype_default ? " (default)" : "", sparse ? "Sparse" : "Strided",
             layout_default ? " (default)" : "", pin_default ? " (default)" : "");
}

/* window_function_checks(name, options, L): options from the schema's dtype / layout / device /
 * pin_memory values (a[0..3]), or from out= (out != NULL). `dtype_default`: hann_window checks
 * before defaulting the dtype, so its message says "(default)". */
static int window_checks(const char *name, int64_t L, const tn_value *a, PyObject *out, bool hann, win_opts *o) {
    bool sparse = false, dtype_given, layout_given, pin_default;
    if (out) {
        o->dt = tn_tensor_of(out)->dtype;
        o->dev = tn_tensor_of(out)->storage->device;
        dtype_given = layout_given = true;
        pin_default = true;
    } else {
        dtype_given = a[0].tag == TN_V_DTYPE;
        layout_given = a[1].tag == TN_V_LAYOUT;
        pin_default = false;
        sparse = layout_given && a[1].u.obj != tn_py.layout_strided && a[1].u.obj != tn_py.layout_jagged;
        o->dt = dtype_given ? a[0].u.dtype : tn_py.default_dtype;
        o->dev = a[2].tag == TN_V_DEVICE ? a[2].u.device.type : TN_DEVICE_CPU;
        if (a[3].tag == TN_V_BOOL && a[3].u.i) {
            PyErr_SetString(PyExc_RuntimeError, "pin_memory=True requires a CUDA or other accelerator backend; "
                                                "no pinned memory allocator is available on this system.");
            return -1;
        }
    }
    char b[320];
    bool dflt = hann && !dtype_given;
    if (sparse) {
        opts_str(b, sizeof b, o->dt, dflt, true, false, pin_default);
        PyErr_Format(PyExc_RuntimeError, "%s is not implemented for sparse types, got: %s", name, b);
        return -1;
    }
    /* measured: upstream's hann_window on the meta device (or into a meta out=) returns any dtype's
     * empty window */
    o->meta = o->dev == TN_DEVICE_META || (out && tn_door_on_meta());
    if (!(hann && o->meta) && !tn_dtype_is_floating(o->dt) && !tn_dtype_is_complex(o->dt)) {
        opts_str(b, sizeof b, o->dt, dflt, false, !layout_given, pin_default);
        PyErr_Format(PyExc_RuntimeError, "%s expects floating point dtypes, got: %s", name, b);
        return -1;
    }
    if (L < 0) {
        PyErr_Format(PyExc_RuntimeError, "%s requires non-negative window_length, got window_length=%lld", name,
                     (long long)L);
        return -1;
    }
    return 0;
}

/* factory ops with dtype=dt: empty((n,)), ones((n,)), arange(n) */
static PyObject *empty_n(int64_t n, tn_dtype dt) { return tn_at_empty_memory_format(TN_IS(n), TN_DT(dt), NULL, NULL, NULL, NULL); }
static PyObject *ones_n(int64_t n, tn_dtype dt) { return tn_at_ones(TN_IS(n), TN_DT(dt), NULL, NULL, NULL); }
static PyObject *arange_n(int64_t n, tn_dtype dt) { return tn_at_arange(TN_SI(n), TN_DT(dt), NULL, NULL, NULL); }

/* In-place op with one double argument: steals w, returns the op's result (w itself) or NULL. */
static PyObject *mul_(PyObject *w, tn_scalar_arg v) { return tn_at_mul__Scalar(w, v); }
static PyObject *add_(PyObject *w, tn_scalar_arg v) { return tn_at_add__Scalar(w, v, TN_SDEF); }
static PyObject *ip(PyObject *w, PyObject *(*op)(PyObject *, tn_scalar_arg), double v) {
    if (!w) return NULL;
    PyObject *r = op(w, TN_SD(v));
    Py_DECREF(w);
    return r;
}
static PyObject *cos_(PyObject *w) {   /* in place, steals w */
    if (!w) return NULL;
    PyObject *r = tn_at_cos_(w);
    Py_DECREF(w);
    return r;
}

/* The trivial windows (length 0 and 1, meta) or NULL with *done false when the formula runs. */
static PyObject *trivial(int64_t L, const win_opts *o, bool *done) {
    *done = true;
    if (o->meta) return tn_cr_empty(1, &L, o->dt, o->dev);
    if (L == 0) return empty_n(0, o->dt);
    if (L == 1) return ones_n(1, o->dt);
    *done = false;
    return NULL;
}

/* the periodic window drops the last point of the symmetric window of length L + 1; steals w */
static PyObject *finish(PyObject *w, bool periodic, int64_t L) {
    if (!w || !periodic) return w;
    /* upstream narrows below autograd: the result shares the storage but is no view (._base None) */
    tn_tensor t = *tn_tensor_of(w);
    t.sizes[0] = L - 1;
    tn_storage_incref(t.storage);
    PyObject *r = tn_tensor_wrap(&t);
    Py_DECREF(w);
    return r;
}

/* the autogen .out form: the functional result (in out's dtype) copied into out */
static PyObject *deliver(PyObject *res, PyObject *out, const char *name) {
    return out ? tn_out_deliver(res, out, name) : res;
}

/* hamming_window(L, periodic, alpha, beta): alpha - beta * cos(2 pi n / (N - 1)) */
static PyObject *hamming(const char *name, int64_t L, bool periodic, double alpha, double beta, const tn_value *opt,
                         PyObject *out, bool hann) {
    win_opts o;
    if (window_checks(name, L, opt, out, hann, &o) < 0) return NULL;
    bool done;
    PyObject *w = trivial(L, &o, &done);
    if (done) return deliver(w, out, name);
    if (periodic) L += 1;
    w = arange_n(L, o.dt);
    w = ip(w, mul_, WIN_PI * 2. / (double)(L - 1));
    w = cos_(w);
    w = ip(w, mul_, -beta);
    w = ip(w, add_, alpha);
    return deliver(finish(w, periodic, L), out, name);
}

/* blackman_window: 0.42 - 0.5 cos(2 pi n / (N - 1)) + 0.08 cos(4 pi n / (N - 1)), as upstream
 * orders it: (cos(4x) * 0.08 - cos(2x) * 0.5) + 0.42 with x = pi n / (N - 1) */
static PyObject *blackman(int64_t L, bool periodic, const tn_value *opt, PyObject *out) {
    const char *name = "blackman_window";
    win_opts o;
    if (window_checks(name, L, opt, out, false, &o) < 0) return NULL;
    bool done;
    PyObject *w = trivial(L, &o, &done);
    if (done) return deliver(w, out, name);
    if (periodic) L += 1;
    w = arange_n(L, o.dt);
    w = ip(w, mul_, WIN_PI / (double)(L - 1));
    if (!w) return NULL;
    PyObject *a = tn_at_mul_Scalar(w, TN_SI(4));
    a = ip(cos_(a), mul_, 0.08);
    PyObject *b = tn_at_mul_Scalar(w, TN_SI(2));
    b = ip(cos_(b), mul_, 0.5);
    Py_DECREF(w);
    PyObject *d = a && b ? tn_at_sub_Tensor(a, b, TN_SDEF) : NULL;
    Py_XDECREF(a);
    Py_XDECREF(b);
    PyObject *r = d ? tn_at_add_Scalar(d, TN_SD(0.42), TN_SDEF) : NULL;
    Py_XDECREF(d);
    return deliver(finish(r, periodic, L), out, name);
}

/* bartlett_window: 2n / (N - 1) on the first half, 2 - 2n / (N - 1) on the second */
static PyObject *bartlett(int64_t L, bool periodic, const tn_value *opt, PyObject *out) {
    const char *name = "bartlett_window";
    win_opts o;
    if (window_checks(name, L, opt, out, false, &o) < 0) return NULL;
    bool done;
    PyObject *w = trivial(L, &o, &done);
    if (done) return deliver(w, out, name);
    if (periodic) L += 1;
    w = arange_n(L, o.dt);
    w = ip(w, mul_, 2. / (double)(L - 1));
    if (!w) return NULL;
    int64_t first = ((L - 1) >> 1) + 1;
    PyObject *second = tn_at_narrow(w, 0LL, (long long)first, (long long)(L - first));
    second = ip(ip(second, mul_, -1.0), add_, 2.0);
    if (!second) { Py_DECREF(w); return NULL; }
    Py_DECREF(second);
    return deliver(finish(w, periodic, L), out, name);
}

/* kaiser_window: I0(beta * sqrt(|1 - ((n - a) / a)^2|)) / I0(beta), a = (N - 1) / 2, upstream's
 * fused kernel (kernels/special.h) in the opmath type, rounded once to the dtype */
static PyObject *kaiser(int64_t L, bool periodic, double beta, const tn_value *opt, PyObject *out) {
    const char *name = "kaiser_window";
    win_opts o;
    if (window_checks(name, L, opt, out, false, &o) < 0) return NULL;
    if (o.dev == TN_DEVICE_META) return deliver(tn_cr_empty(1, &L, o.dt, o.dev), out, name);
    /* complex and float8: lengths 0 and 1 are empty / ones, longer ones refused by upstream's
     * arange (measured) */
    if ((tn_dtype_is_complex(o.dt) || tn_dtype_infos[o.dt].kind == TN_KIND_FLOAT8) && L >= 2)
        return arange_n(L + periodic, o.dt);
    bool done;
    PyObject *w = trivial(L, &o, &done);
    if (done) return deliver(w, out, name);
    int64_t N = L + (periodic ? 1 : 0);
    w = tn_tensor_new_empty(1, &L, o.dt, TN_DEVICE_CPU);
    if (w) tn_kaiser_window(o.dt, L, N, beta, tn_data(tn_tensor_of(w)));
    return deliver(w, out, name);
}

/* ---- overloads (options at a[k..k+3]) ---- */
#define B(v) ((v).u.i != 0)
PyObject *tn_op_hann_window(tn_value *a) { return hamming("hann_window", a[0].u.i, true, 0.5, 0.5, &a[1], NULL, true); }
PyObject *tn_op_hann_window_periodic(tn_value *a) {
    return hamming("hann_window", a[0].u.i, B(a[1]), 0.5, 0.5, &a[2], NULL, true);
}
PyObject *tn_op_hann_window_out(tn_value *a) {
    return hamming("hann_window", a[0].u.i, true, 0.5, 0.5, NULL, a[1].u.obj, true);
}
PyObject *tn_op_hann_window_periodic_out(tn_value *a) {
    return hamming("hann_window", a[0].u.i, B(a[1]), 0.5, 0.5, NULL, a[2].u.obj, true);
}
PyObject *tn_op_hamming_window(tn_value *a) {
    return hamming("hamming_window", a[0].u.i, true, 0.54, 0.46, &a[1], NULL, false);
}
PyObject *tn_op_hamming_window_periodic(tn_value *a) {
    return hamming("hamming_window", a[0].u.i, B(a[1]), 0.54, 0.46, &a[2], NULL, false);
}
PyObject *tn_op_hamming_window_periodic_alpha(tn_value *a) {
    return hamming("hamming_window", a[0].u.i, B(a[1]), a[2].u.f, 0.46, &a[3], NULL, false);
}
PyObject *tn_op_hamming_window_periodic_alpha_beta(tn_value *a) {
    return hamming("hamming_window", a[0].u.i, B(a[1]), a[2].u.f, a[3].u.f, &a[4], NULL, false);
}
PyObject *tn_op_hamming_window_out(tn_value *a) {
    return hamming("hamming_window", a[0].u.i, true, 0.54, 0.46, NULL, a[1].u.obj, false);
}
PyObject *tn_op_hamming_window_periodic_out(tn_value *a) {
    return hamming("hamming_window", a[0].u.i, B(a[1]), 0.54, 0.46, NULL, a[2].u.obj, false);
}
PyObject *tn_op_hamming_window_periodic_alpha_out(tn_value *a) {
    return hamming("hamming_window", a[0].u.i, B(a[1]), a[2].u.f, 0.46, NULL, a[3].u.obj, false);
}
PyObject *tn_op_hamming_window_periodic_alpha_beta_out(tn_value *a) {
    return hamming("hamming_window", a[0].u.i, B(a[1]), a[2].u.f, a[3].u.f, NULL, a[4].u.obj, false);
}
PyObject *tn_op_blackman_window(tn_value *a) { return blackman(a[0].u.i, true, &a[1], NULL); }
PyObject *tn_op_blackman_window_periodic(tn_value *a) { return blackman(a[0].u.i, B(a[1]), &a[2], NULL); }
PyObject *tn_op_blackman_window_out(tn_value *a) { return blackman(a[0].u.i, true, NULL, a[1].u.obj); }
PyObject *tn_op_blackman_window_periodic_out(tn_value *a) { return blackman(a[0].u.i, B(a[1]), NULL, a[2].u.obj); }
PyObject *tn_op_bartlett_window(tn_value *a) { return bartlett(a[0].u.i, true, &a[1], NULL); }
PyObject *tn_op_bartlett_window_periodic(tn_value *a) { return bartlett(a[0].u.i, B(a[1]), &a[2], NULL); }
PyObject *tn_op_bartlett_window_out(tn_value *a) { return bartlett(a[0].u.i, true, NULL, a[1].u.obj); }
PyObject *tn_op_bartlett_window_periodic_out(tn_value *a) { return bartlett(a[0].u.i, B(a[1]), NULL, a[2].u.obj); }
PyObject *tn_op_kaiser_window(tn_value *a) { return kaiser(a[0].u.i, true, 12.0, &a[1], NULL); }
PyObject *tn_op_kaiser_window_periodic(tn_value *a) { return kaiser(a[0].u.i, B(a[1]), 12.0, &a[2], NULL); }
PyObject *tn_op_kaiser_window_beta(tn_value *a) { return kaiser(a[0].u.i, B(a[1]), a[2].u.f, &a[3], NULL); }
PyObject *tn_op_kaiser_window_out(tn_value *a) { return kaiser(a[0].u.i, true, 12.0, NULL, a[1].u.obj); }
PyObject *tn_op_kaiser_window_periodic_out(tn_value *a) { return kaiser(a[0].u.i, B(a[1]), 12.0, NULL, a[2].u.obj); }
PyObject *tn_op_kaiser_window_beta_out(tn_value *a) { return kaiser(a[0].u.i, B(a[1]), a[2].u.f, NULL, a[3].u.obj); }
