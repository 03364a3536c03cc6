/* ops/backward.c — the aten backward operators autograd's formulas call: activation backwards
 * (threshold / relu, sigmoid, tanh, silu, gelu, hardtanh, leaky_relu, elu, hardsigmoid, hardswish,
 * softplus, mish, logit), softmax and
 * log_softmax backward, embedding backward, layer norm backward, mse_loss backward and
 * nll_loss forward / backward.
 *
 * Elementwise backwards follow upstream's TensorIterator rules (result dtype = promotion of the
 * two inputs, broadcasting, out= cast checks) and run loops of kernels/backward.h. Validation
 * order, messages and exception types were measured against torch 2.13.0 CPU. */
#include "ops/common.h"

#include "kernels/backward.h"
#include "ops/pointwise_kernels.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>

/* ---------------------------------------------------------------- helpers */

static PyObject *bw_scalar_type(tn_dtype expected, tn_dtype found) {
    PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(expected),
                 tn_dtype_cpp_name(found));
    return NULL;
}

static double bw_num(const tn_value *v) {
    if (v->tag == TN_V_FLOAT) return v->u.f;
    if (v->tag == TN_V_INT || v->tag == TN_V_BOOL) return (double)v->u.i;
    if (v->tag == TN_V_COMPLEX) return v->u.c.re;
    if (v->tag == TN_V_TENSOR) {
        tn_scalar s;
        if (tn_scalar_of_0dim(v->u.obj, &s) == 0) return s.re;
        PyErr_Clear();
    }
    return 0.0;
}
static int64_t bw_int(const tn_value *v) {
    if (v->tag == TN_V_INT || v->tag == TN_V_BOOL) return v->u.i;
    double d = bw_num(v);
    return d == d && d < 9.2e18 && d > -9.2e18 ? (int64_t)d : 0;
}
static bool bw_bool(const tn_value *v) { return (v->tag == TN_V_BOOL || v->tag == TN_V_INT) && v->u.i != 0; }

/* ---------------------------------------------------------------- elementwise backwards */

/* out = f(grad, x) with upstream's binary TensorIterator: promotion, broadcasting, out=. */
/* s0, s1 (or NULL): Scalar arguments the kernel converts to its opmath type (`opmath`) or to
 * the compute dtype once it dispatched (tn_check_kernel_scalar) */
/* `after_iter` (or NULL): a check the kernel makes once the iterator built (gelu_backward's oneDNN
 * path), given the result's shape */
typedef int (*ew_after_iter)(const tn_value *g, const tn_value *x, PyObject *out, int nd, const int64_t *shape);
static PyObject *ew_backward_h(const char *kname, tn_bwd_op op, const tn_bwd_params *p, tn_value *g, tn_value *x,
                               PyObject *out, const tn_value *s0, const tn_value *s1, bool opmath, ew_after_iter after_iter) {
    tn_value pair[2] = {*g, *x};
    PyObject *orig[2] = {g->u.obj, x->u.obj};
    /* TensorIterator: before dtypes; threshold_backward's is built without it (threshold is
     * idempotent upstream: a grad_input aliasing or expanding an operand runs, measured) */
    if (out && op != TN_BWD_THRESHOLD && tn_check_overlap(out, 2, orig) < 0) return NULL;
    tn_dtype ct = tn_result_type(2, pair);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    const tn_tensor *ts[2] = {TN_T(*g), TN_T(*x)};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    /* threshold_backward's iterator takes (self, grad): its broadcast error names them so */
    const tn_tensor *bs[2] = {op == TN_BWD_THRESHOLD ? ts[1] : ts[0], op == TN_BWD_THRESHOLD ? ts[0] : ts[1]};
    if (tn_broadcast_tensors_shape(2, bs, &nd, shape) < 0) return NULL;
    if (out && tn_out_prepare(out, nd, shape, ct, kname) < 0) return NULL;
    if (after_iter && after_iter(g, x, out, nd, shape) < 0) return NULL;
    tn_loop loop = tn_bwd_loop(op, ct);   /* the kernel's dtype refusal after the iterator's checks */
    if (!loop) return tn_kernel_missing(kname, ct);
    if (tn_check_kernel_scalar(s0, ct, opmath) < 0 || tn_check_kernel_scalar(s1, ct, opmath) < 0) return NULL;
    PyObject *a = tn_as_dtype(g->u.obj, ct, false), *b = NULL, *res = NULL;
    if (!a) return NULL;
    if (!(b = tn_as_dtype(x->u.obj, ct, false))) goto done;
    if (!(res = tn_new_result(nd, shape, ct, 2, ts))) goto done;
    PyObject *ins[2] = {a, b};
    tn_run_loop(loop, p, res, 2, ins);
    res = tn_out_deliver(res, out, kname);
done:
    Py_DECREF(a);
    Py_XDECREF(b);
    return res;
}

static PyObject *ew_backward_s(const char *kname, tn_bwd_op op, const tn_bwd_params *p, tn_value *g, tn_value *x,
                               PyObject *out, const tn_value *s0, const tn_value *s1, bool opmath) {
    return ew_backward_h(kname, op, p, g, x, out, s0, s1, opmath, NULL);
}

static PyObject *ew_backward(const char *kname, tn_bwd_op op, const tn_bwd_params *p, tn_value *g, tn_value *x,
                             PyObject *out) {
    return ew_backward_s(kname, op, p, g, x, out, NULL, NULL, false);
}

/* threshold_backward(grad_output, self, threshold): self <= threshold ? 0 : grad */
static PyObject *threshold_bwd(tn_value *a, PyObject *out) {
    tn_bwd_params p = {0};
    p.p0 = bw_num(&a[2]);
    p.i0 = bw_int(&a[2]);
    /* the kernel converts threshold to the opmath type with the overflow check (measured:
     * 1e308 refused for float, 300 for uint8; 1e5 runs for half) */
    return ew_backward_s("threshold_cpu", TN_BWD_THRESHOLD, &p, &a[0], &a[1], out, &a[2], NULL, true);
}
PyObject *tn_op_threshold_backward(tn_value *a) { return threshold_bwd(a, NULL); }
PyObject *tn_op_threshold_backward_grad_input(tn_value *a) { return threshold_bwd(a, a[3].u.obj); }

/* sigmoid_backward / tanh_backward(grad_output, output) */
PyObject *tn_op_sigmoid_backward(tn_value *a) {
    return ew_backward("sigmoid_backward_cpu", TN_BWD_SIGMOID, NULL, &a[0], &a[1], NULL);
}
PyObject *tn_op_sigmoid_backward_grad_input(tn_value *a) {
    return ew_backward("sigmoid_backward_cpu", TN_BWD_SIGMOID, NULL, &a[0], &a[1], a[2].u.obj);
}
PyObject *tn_op_tanh_backward(tn_value *a) { return ew_backward("tanh_backward_cpu", TN_BWD_TANH, NULL, &a[0], &a[1], NULL); }
PyObject *tn_op_tanh_backward_grad_input(tn_value *a) {
    return ew_backward("tanh_backward_cpu", TN_BWD_TANH, NULL, &a[0], &a[1], a[2].u.obj);
}

/* silu_backward(grad_output, self) */
PyObject *tn_op_silu_backward(tn_value *a) { return ew_backward("silu_backward_cpu", TN_BWD_SILU, NULL, &a[0], &a[1], NULL); }
PyObject *tn_op_silu_backward_grad_input(tn_value *a) {
    return ew_backward("silu_backward_cpu", TN_BWD_SILU, NULL, &a[0], &a[1], a[2].u.obj);
}

/* Upstream's CPU gelu_backward (approximate='none') hands a contiguous float32 self of more than
 * one element to oneDNN while torch.backends.mkldnn is enabled, with grad_output and grad_input as
 * they are (measured, docs/breadth_more2.md): each of self, grad_output, grad_input must be of a
 * dtype oneDNN views (float, bfloat16, half, int8, uint8, float8 e4m3fn / e5m2) and of at most
 * 12 dims, then all three of self's sizes (no broadcasting). */
bool tn_mkldnn_enabled(void);   /* python/runtime_flags.c */
static int gelu_onednn_tensor(const tn_tensor *t) {
    tn_dtype d = t->dtype;
    if (d != TN_DTYPE_F32 && d != TN_DTYPE_BF16 && d != TN_DTYPE_F16 && d != TN_DTYPE_U8 && d != TN_DTYPE_I8 &&
        d != TN_DTYPE_F8E4M3FN && d != TN_DTYPE_F8E5M2) {
        PyErr_Format(PyExc_RuntimeError, "itensor_view_from_dense expects float/bfloat16/half/int8/fp8 tensor input%s",
                     tn_dtype_cpp_name(d));
        return -1;
    }
    if (t->ndim > 12) {
        PyErr_SetString(PyExc_RuntimeError, "dimensions are invalid");
        return -1;
    }
    return 0;
}
static bool same_sizes(int nd, const int64_t *s, const tn_tensor *t) {
    return nd == t->ndim && !memcmp(s, t->sizes, (size_t)nd * sizeof *s);
}
static int gelu_onednn(const tn_value *g, const tn_value *x, PyObject *out, int nd, const int64_t *shape) {
    const tn_tensor *xt = TN_T(*x), *gt = TN_T(*g);
    if (tn_door_on_meta() || !tn_mkldnn_enabled() || xt->dtype != TN_DTYPE_F32 || !tn_is_contiguous(xt) ||
        tn_numel(xt) <= 1)
        return 0;
    if (gelu_onednn_tensor(xt) < 0 || gelu_onednn_tensor(gt) < 0 || (out && gelu_onednn_tensor(tn_tensor_of(out)) < 0))
        return -1;
    if (!same_sizes(xt->ndim, xt->sizes, gt) || !same_sizes(nd, shape, xt)) {
        PyErr_SetString(PyExc_RuntimeError, "could not create a primitive descriptor for the reorder primitive. Run workload "
                        "with environment variable ONEDNN_VERBOSE=all to get additional diagnostic information.");
        return -1;
    }
    return 0;
}

/* gelu_backward(grad_output, self, *, approximate='none') */
static PyObject *gelu_bwd(tn_value *a, PyObject *out) {
    tn_bwd_op op = TN_BWD_GELU;
    if (a[2].tag == TN_V_STR) {
        const char *m = PyUnicode_AsUTF8AndSize(a[2].u.obj, NULL);
        if (!m) return NULL;
        if (!strcmp(m, "tanh")) op = TN_BWD_GELU_TANH;
        else if (strcmp(m, "none")) {
            PyErr_SetString(PyExc_RuntimeError, "approximate argument must be either none or tanh.");
            return NULL;
        }
    }
    return ew_backward_h("GeluBackwardKernelImpl", op, NULL, &a[0], &a[1], out, NULL, NULL, false,
                         op == TN_BWD_GELU ? gelu_onednn : NULL);
}
PyObject *tn_op_gelu_backward(tn_value *a) { return gelu_bwd(a, NULL); }
PyObject *tn_op_gelu_backward_grad_input(tn_value *a) { return gelu_bwd(a, a[3].u.obj); }

/* hardtanh_backward(grad_output, self, min_val, max_val) */
static PyObject *hardtanh_bwd(tn_value *a, PyObject *out) {
    tn_bwd_params p = {0};
    p.p0 = bw_num(&a[2]);
    p.p1 = bw_num(&a[3]);
    return ew_backward_s("hardshrink_backward_cpu", TN_BWD_HARDTANH, &p, &a[0], &a[1], out, &a[2], &a[3], true);
}
PyObject *tn_op_hardtanh_backward(tn_value *a) { return hardtanh_bwd(a, NULL); }
PyObject *tn_op_hardtanh_backward_grad_input(tn_value *a) { return hardtanh_bwd(a, a[4].u.obj); }

/* leaky_relu_backward(grad_output, self, negative_slope, self_is_result) */
static PyObject *leaky_bwd(tn_value *a, PyObject *out) {
    tn_bwd_params p = {0};
    p.p0 = bw_num(&a[2]);
    if (bw_bool(&a[3]) && !(p.p0 >= 0.0)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "In-place leakyReLu backward calculation is triggered with a negative slope which is not "
                        "supported. This is caused by calling in-place forward function with a negative slope, "
                        "please call out-of-place version instead. File an issue at "
                        "https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward "
                        "calculation with negative slope");
        return NULL;
    }
    return ew_backward_s("leaky_relu_backward_cpu", TN_BWD_LEAKY_RELU, &p, &a[0], &a[1], out, &a[2], NULL, true);
}
PyObject *tn_op_leaky_relu_backward(tn_value *a) { return leaky_bwd(a, NULL); }
PyObject *tn_op_leaky_relu_backward_grad_input(tn_value *a) { return leaky_bwd(a, a[4].u.obj); }

/* hardshrink_backward / softshrink_backward(grad, self, lambd): upstream's shrink_backward */
static PyObject *shrink_bwd(const char *k, tn_value *a, PyObject *out) {
    tn_bwd_params p = {0};
    p.p0 = bw_num(&a[2]);
    tn_value pair[2] = {a[0], a[1]};
    tn_dtype ct = tn_result_type(2, pair);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    p.i0 = tn_pw_upstream_vec_bytes() / (int64_t)tn_dtype_itemsize(ct);
    return ew_backward_s(k, TN_BWD_SHRINK, &p, &a[0], &a[1], out, &a[2], NULL, false);
}
/* upstream's hardshrink_backward runs the shrink_backward kernel (its name in messages) */
PyObject *tn_op_hardshrink_backward(tn_value *a) { return shrink_bwd("shrink_backward_cpu", a, NULL); }
PyObject *tn_op_hardshrink_backward_grad_input(tn_value *a) { return shrink_bwd("shrink_backward_cpu", a, a[3].u.obj); }
PyObject *tn_op_softshrink_backward(tn_value *a) { return shrink_bwd("shrink_backward_cpu", a, NULL); }
PyObject *tn_op_softshrink_backward_grad_input(tn_value *a) { return shrink_bwd("shrink_backward_cpu", a, a[3].u.obj); }

/* elu_backward(grad_output, alpha, scale, input_scale, is_result, self_or_result) */
static PyObject *elu_bwd(tn_value *a, PyObject *out) {
    tn_bwd_params p = {0};
    /* a floating kernel converts alpha, scale and input_scale to its opmath type (overflow check) */
    tn_dtype gdt = TN_T(a[0])->dtype;
    for (int i = 1; i <= 3 && tn_nn_float(gdt) && TN_T(a[5])->dtype == gdt; i++)
        if (tn_check_kernel_scalar(&a[i], gdt, true) < 0) return NULL;
    p.p0 = bw_num(&a[1]);
    p.p1 = bw_num(&a[2]);
    p.p2 = bw_num(&a[3]);
    p.flag = bw_bool(&a[4]);
    if (p.flag && !(p.p0 >= 0.0)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "In-place elu backward calculation is triggered with a negative slope which is not "
                        "supported. This is caused by calling in-place forward function with a negative slope, "
                        "please call out-of-place version instead.");
        return NULL;
    }
    return ew_backward("elu_backward_cpu", TN_BWD_ELU, &p, &a[0], &a[5], out);
}
PyObject *tn_op_elu_backward(tn_value *a) { return elu_bwd(a, NULL); }
PyObject *tn_op_elu_backward_grad_input(tn_value *a) { return elu_bwd(a, a[6].u.obj); }

/* hardsigmoid_backward / hardswish_backward(grad_output, self) */
PyObject *tn_op_hardsigmoid_backward(tn_value *a) {
    return ew_backward("hardsigmoid_backward", TN_BWD_HARDSIGMOID, NULL, &a[0], &a[1], NULL);
}
PyObject *tn_op_hardsigmoid_backward_grad_input(tn_value *a) {
    return ew_backward("hardsigmoid_backward", TN_BWD_HARDSIGMOID, NULL, &a[0], &a[1], a[2].u.obj);
}
PyObject *tn_op_hardswish_backward(tn_value *a) {
    return ew_backward("hardswish_backward_cpu", TN_BWD_HARDSWISH, NULL, &a[0], &a[1], NULL);
}

/* softplus_backward(grad_output, self, beta, threshold) */
static PyObject *softplus_bwd(tn_value *a, PyObject *out) {
    tn_bwd_params p = {0};
    p.p0 = bw_num(&a[2]);
    p.p1 = bw_num(&a[3]);
    return ew_backward_s("softplus_backward_cpu", TN_BWD_SOFTPLUS, &p, &a[0], &a[1], out, &a[2], &a[3], true);
}
PyObject *tn_op_softplus_backward(tn_value *a) { return softplus_bwd(a, NULL); }
PyObject *tn_op_softplus_backward_grad_input(tn_value *a) { return softplus_bwd(a, a[4].u.obj); }

/* mish_backward(grad_output, self): upstream's grad_input is an empty tensor of self's dtype the
 * binary iterator resizes and restrides: the result has self's dtype (computed in the promoted
 * one) and the iterator's layout */
PyObject *tn_op_mish_backward(tn_value *a) {
    tn_dtype dt = TN_T(a[1])->dtype;
    tn_value pair[2] = {a[0], a[1]};
    const tn_tensor *ts[2] = {TN_T(a[0]), TN_T(a[1])};
    tn_dtype ct = tn_result_type(2, pair);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (ct == TN_DTYPE_UNDEFINED || tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return NULL;
    if (!tn_can_cast(ct, dt)) return tn_cast_error(ct, dt);   /* the iterator's cast into that grad_input */
    PyObject *r = ew_backward("mish_backward_cpu", TN_BWD_MISH, NULL, &a[0], &a[1], NULL);
    if (!r || tn_tensor_of(r)->dtype == dt) return r;
    const tn_tensor *t = tn_tensor_of(r);
    PyObject *c = tn_tensor_new_strided(t->ndim, t->sizes, t->strides, dt);
    if (c && tn_copy_into(c, r) < 0) Py_CLEAR(c);
    Py_DECREF(r);
    return c;
}

/* logit_backward(grad_output, self, eps=None): eps None is -1 (NaN outside [0, 1]) */
static PyObject *logit_bwd(tn_value *a, PyObject *out) {
    tn_bwd_params p = {0};
    p.p0 = tn_is_none(&a[2]) ? -1.0 : bw_num(&a[2]);
    p.flag = p.p0 < 0.0;
    tn_value pair[2] = {a[0], a[1]};
    PyObject *orig[2] = {a[0].u.obj, a[1].u.obj};
    if (out && tn_check_overlap(out, 2, orig) < 0) return NULL;
    tn_dtype ct = tn_result_type(2, pair);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    const tn_tensor *ts[2] = {TN_T(a[0]), TN_T(a[1])};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return NULL;
    if (out && tn_out_prepare(out, nd, shape, ct, "logit_backward") < 0) return NULL;
    tn_loop loop = tn_logit_backward_loop(ct);
    if (!loop) return tn_kernel_missing("logit_backward_cpu", ct);
    /* then eps converted to the computing dtype itself (measured: 1e5 refused for half) */
    if (!tn_is_none(&a[2]) && tn_check_kernel_scalar(&a[2], ct, false) < 0) return NULL;
    PyObject *g = tn_as_dtype(a[0].u.obj, ct, false), *x = NULL, *res = NULL;
    if (!g) return NULL;
    if (!(x = tn_as_dtype(a[1].u.obj, ct, false))) goto done;
    if (!(res = tn_new_result(nd, shape, ct, 2, ts))) goto done;
    PyObject *ins[2] = {g, x};
    tn_run_loop(loop, &p, res, 2, ins);
    res = tn_out_deliver(res, out, "logit_backward");
done:
    Py_DECREF(g);
    Py_XDECREF(x);
    return res;
}
PyObject *tn_op_logit_backward(tn_value *a) { return logit_bwd(a, NULL); }
PyObject *tn_op_logit_backward_grad_input(tn_value *a) { return logit_bwd(a, a[3].u.obj); }

/* ---------------------------------------------------------------- mse_loss_backward */

/* mse_loss_backward(grad_output, self, target, reduction): grad_input starts as zeros_like(self)
 * (or the given out=), resized to the broadcast of (grad_input, self, target, grad_output); the
 * computation runs in the inputs' common dtype and is cast to grad_input's dtype. */
static PyObject *mse_bwd(tn_value *a, PyObject *out) {
    tn_tensor *x = TN_T(a[1]);
    /* its iterator's overlap checks on grad_input as given come first (docs/breadth_more2.md "third pass") */
    if (out && tn_check_overlap(out, 3, (PyObject *const[]){a[1].u.obj, a[2].u.obj, a[0].u.obj}) < 0) return NULL;
    PyObject *gi = out;
    if (!gi) {
        gi = tn_tensor_new_empty(x->ndim, x->sizes, x->dtype, TN_DEVICE_CPU);
        if (!gi) return NULL;
    } else {
        Py_INCREF(gi);
    }
    tn_tensor *o = tn_tensor_of(gi);
    tn_value vals[3] = {a[1], a[2], a[0]};
    tn_dtype ct = tn_result_type(3, vals); /* the inputs' common dtype; the output takes no part */
    if (ct == TN_DTYPE_UNDEFINED) { Py_DECREF(gi); return NULL; }
    const tn_tensor *ts[3] = {x, TN_T(a[2]), TN_T(a[0])};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    PyObject *xi = NULL, *ti = NULL, *go = NULL, *res = NULL, *ret = NULL;
    tn_loop loop;
    if (tn_broadcast_tensors_shape(3, ts, &nd, shape) < 0) goto done;
    if (!tn_can_cast(ct, o->dtype)) {
        tn_cast_error(ct, o->dtype);
        goto done;
    }
    if (!(loop = tn_mse_backward_loop(ct))) {
        tn_kernel_missing("mse_backward_cpu_out", ct);
        goto done;
    }
    if (tn_out_prepare(gi, nd, shape, ct, "mse_loss_backward") < 0) goto done;
    int64_t numel = tn_numel(x);
    double norm = a[3].u.i == 1 ? 2.0 / (double)numel : 2.0;
    if (!(xi = tn_as_dtype(a[1].u.obj, ct, false)) || !(ti = tn_as_dtype(a[2].u.obj, ct, false)) ||
        !(go = tn_as_dtype(a[0].u.obj, ct, false)))
        goto done;
    if (!(res = tn_tensor_new_empty(nd, shape, ct, TN_DEVICE_CPU))) goto done;
    PyObject *ins[3] = {xi, ti, go};
    tn_run_loop(loop, &norm, res, 3, ins);
    if (tn_copy_into(gi, res) < 0) goto done;
    ret = Py_NewRef(gi);
done:
    Py_XDECREF(xi); Py_XDECREF(ti); Py_XDECREF(go); Py_XDECREF(res);
    Py_DECREF(gi);
    return ret;
}
PyObject *tn_op_mse_loss_backward(tn_value *a) { return mse_bwd(a, NULL); }
PyObject *tn_op_mse_loss_backward_grad_input(tn_value *a) { return mse_bwd(a, a[4].u.obj); }

/* ---------------------------------------------------------------- softmax backward */

/* _softmax_backward_data / _log_softmax_backward_data(grad_output, output, dim, input_dtype) */
static PyObject *softmax_bwd(bool lg, tn_value *a, PyObject *out) {
    PyObject *go = a[0].u.obj, *yo = a[1].u.obj;
    tn_tensor *g = tn_tensor_of(go), *y = tn_tensor_of(yo);
    const char *opname = lg ? "log_softmax_backward" : "softmax_backward";
    bool same = g->ndim == y->ndim;
    for (int i = 0; same && i < g->ndim; i++) same = g->sizes[i] == y->sizes[i];
    if (lg && !out && !same && tn_numel(y) > 0 && !tn_nn_float(g->dtype)) {
        /* log_softmax_backward's dtype dispatch on grad comes before its size check (measured: a Long grad of
         * another shape, even empty, is refused by the kernel's name; an out= form checks out= first) */
        int d0;
        if (tn_wrap_dim_i(a[2].u.i, g->ndim, &d0) < 0) return NULL;
        bool last0 = g->ndim == 0 || d0 == g->ndim - 1;
        return tn_kernel_missing(lg ? (last0 ? "log_softmax_backward_lastdim_kernel_impl" : "log_softmax_backward_kernel_impl")
                                    : (last0 ? "softmax_backward_lastdim_kernel_impl" : "softmax_backward_kernel_impl"),
                                 g->dtype);
    }
    if (!same) {
        char s1[256], s2[256];
        tn_shape_str(s1, sizeof s1, g->ndim, g->sizes);
        tn_shape_str(s2, sizeof s2, y->ndim, y->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected tensor for argument #1 'grad' to have same size as tensor for "
                     "argument #2 'output'; but %s does not equal %s (while checking arguments for %s)", s1, s2, opname);
        return NULL;
    }
    int dim;
    if (tn_wrap_dim_i(a[2].u.i, g->ndim, &dim) < 0) return NULL;
    tn_dtype rd = g->dtype;
    if (g->dtype == TN_DTYPE_F32 && a[3].tag == TN_V_DTYPE && a[3].u.dtype == TN_DTYPE_F16) rd = TN_DTYPE_F16;
    if (tn_out_dtype_exact(out, rd) < 0) return NULL;
    int64_t total = tn_numel(y);
    bool last = g->ndim == 0 || dim == g->ndim - 1;
    if (total > 0) {
        if (!tn_nn_float(g->dtype))
            return tn_kernel_missing(lg ? (last ? "log_softmax_backward_lastdim_kernel_impl" : "log_softmax_backward_kernel_impl")
                                  : (last ? "softmax_backward_lastdim_kernel_impl" : "softmax_backward_kernel_impl"),
                               g->dtype);
        if (y->dtype != g->dtype) return bw_scalar_type(g->dtype, y->dtype);
        if (rd != g->dtype) return bw_scalar_type(g->dtype, rd);
    }
    tn_dtype ct = tn_nn_compute(rd);
    int64_t outer = 1, n = g->ndim ? g->sizes[dim] : 1, inner = 1;
    for (int d = 0; d < g->ndim; d++) {
        if (d < dim) outer *= g->sizes[d];
        else if (d > dim) inner *= g->sizes[d];
    }
    PyObject *gc = NULL, *yc = NULL, *res = NULL;
    if (!(res = tn_tensor_new_empty(g->ndim, g->sizes, ct, TN_DEVICE_CPU))) return NULL;
    if (total > 0) {
        if (!(gc = tn_as_dtype(go, ct, true)) || !(yc = tn_as_dtype(yo, ct, true))) {
            Py_CLEAR(res);
            goto done;
        }
        char *gp = tn_data(tn_tensor_of(gc)), *yp = tn_data(tn_tensor_of(yc)), *rp = tn_data(tn_tensor_of(res));
        Py_BEGIN_ALLOW_THREADS
        if (ct == TN_DTYPE_F64) tn_softmax_backward_f64((const double *)gp, (const double *)yp, (double *)rp, outer, n, inner, lg);
        else tn_softmax_backward_f32((const float *)gp, (const float *)yp, (float *)rp, outer, n, inner, lg);
        Py_END_ALLOW_THREADS
    }
    if (rd != ct) {
        PyObject *r2 = tn_as_dtype(res, rd, false);
        Py_DECREF(res);
        res = r2;
    }
    res = tn_out_deliver(res, out, lg ? "_log_softmax_backward_data" : "_softmax_backward_data");
done:
    Py_XDECREF(gc);
    Py_XDECREF(yc);
    return res;
}
PyObject *tn_op__softmax_backward_data(tn_value *a) { return softmax_bwd(false, a, NULL); }
PyObject *tn_op__softmax_backward_data_out(tn_value *a) { return softmax_bwd(false, a, a[4].u.obj); }
PyObject *tn_op__log_softmax_backward_data(tn_value *a) { return softmax_bwd(true, a, NULL); }
PyObject *tn_op__log_softmax_backward_data_out(tn_value *a) { return softmax_bwd(true, a, a[4].u.obj); }

/* ---------------------------------------------------------------- embedding backward */

/* embedding_dense_backward(grad_output, indices, num_weights, padding_idx, scale_grad_by_freq):
 * grad_weight rows accumulate grad rows in index order with upstream's add kernel (alpha 1, or
 * 1 / count with scale_grad_by_freq); indices outside [0, num_weights) are skipped. */
static PyObject *embedding_bwd(tn_value *a, PyObject *out) {
    PyObject *go = a[0].u.obj;
    tn_tensor *g = tn_tensor_of(go), *ix = TN_T(a[1]);
    if (ix->dtype != TN_DTYPE_I64 && ix->dtype != TN_DTYPE_I32) {
        PyErr_Format(PyExc_RuntimeError, "Expected tensor for argument #2 'indices' to have one of the following scalar "
                     "types: Long, Int; but got torch.%sTensor instead (while checking arguments for embedding_backward)",
                     tn_dtype_cpp_name(ix->dtype));
        return NULL;
    }
    if (g->ndim == 0) {
        PyErr_SetString(PyExc_IndexError, "Dimension specified as -1 but tensor has no dimensions");
        return NULL;
    }
    int64_t V = a[2].u.i, pad = a[3].u.i, D = g->sizes[g->ndim - 1], n = tn_numel(ix);
    bool freq = bw_bool(&a[4]);
    if (V < 0) {
        PyErr_Format(PyExc_RuntimeError, "Trying to create tensor with negative dimension %lld: [%lld, %lld]",
                     (long long)V, (long long)V, (long long)D);
        return NULL;
    }
    if (n * D != tn_numel(g)) {
        PyErr_Format(PyExc_RuntimeError, "shape '[%lld, %lld]' is invalid for input of size %lld", (long long)n,
                     (long long)D, (long long)tn_numel(g));
        return NULL;
    }
    if (tn_out_dtype_exact(out, g->dtype) < 0) return NULL;
    tn_loop add = tn_binary_loop(TN_BINARY_ADD, g->dtype);
    if (!add) return tn_kernel_missing("embedding_dense_backward_cpu", g->dtype);
    int64_t sz[2] = {V, D};
    PyObject *res = tn_tensor_new_empty(2, sz, g->dtype, TN_DEVICE_CPU), *gc = NULL, *ic = NULL;
    int64_t *counts = NULL;
    if (!res) return NULL;
    int isz = tn_dtype_itemsize(g->dtype);
    memset(tn_data(tn_tensor_of(res)), 0, (size_t)(V * D * isz));
    if (!(gc = tn_as_dtype(go, g->dtype, true)) || !(ic = tn_as_dtype(a[1].u.obj, TN_DTYPE_I64, true))) {
        Py_CLEAR(res);
        goto done;
    }
    const int64_t *idx = (const int64_t *)tn_data(tn_tensor_of(ic));
    if (freq && n > 0) {
        counts = PyMem_Calloc((size_t)(V > 0 ? V : 1), sizeof *counts);
        if (!counts) { PyErr_NoMemory(); Py_CLEAR(res); goto done; }
        for (int64_t i = 0; i < n; i++)
            if (idx[i] >= 0 && idx[i] < V) counts[idx[i]]++;
    }
    {
        char *wp = tn_data(tn_tensor_of(res));
        const char *gp = tn_data(tn_tensor_of(gc));
        int64_t st[3] = {isz, isz, isz};
        for (int64_t i = 0; i < n && D > 0; i++) {
            int64_t k = idx[i];
            if (k == pad || k < 0 || k >= V) continue;
            tn_scalar alpha = tn_scalar_f(counts ? 1.0 / (double)counts[k] : 1.0);
            if (!counts) alpha = tn_scalar_i(1);
            char *row = wp + k * D * isz;
            char *data[3] = {row, row, (char *)(gp + i * D * isz)};
            add(data, st, D, &alpha);
        }
    }
    res = tn_out_deliver(res, out, "embedding_dense_backward");
done:
    PyMem_Free(counts);
    Py_XDECREF(gc);
    Py_XDECREF(ic);
    return res;
}
PyObject *tn_op_embedding_dense_backward(tn_value *a) { return embedding_bwd(a, NULL); }
PyObject *tn_op_embedding_dense_backward_out(tn_value *a) { return embedding_bwd(a, a[5].u.obj); }

/* embedding_backward(grad, indices, num_weights, padding_idx, scale_grad_by_freq, sparse):
 * upstream's composite: the dense backward unless sparse (embedding_sparse_backward, ops/sparse.c) */
PyObject *tn_op_embedding_backward(tn_value *a) {
    if (bw_bool(&a[5])) return tn_at_embedding_sparse_backward(a[0].u.obj, a[1].u.obj, a[2].u.i, a[3].u.i, bw_bool(&a[4]));
    return embedding_bwd(a, NULL);
}

/* ---------------------------------------------------------------- layer norm backward */

/* native_layer_norm_backward(grad_out, input, normalized_shape, mean, rstd, weight, bias,
 * output_mask): (grad_input, grad_weight, grad_bias), None where the mask is False. */
static PyObject *layer_norm_bwd(tn_value *a, PyObject *const *outs) {
    PyObject *dyo = a[0].u.obj, *xo = a[1].u.obj;
    tn_tensor *x = tn_tensor_of(xo), *dy = tn_tensor_of(dyo);
    const tn_value *ns = &a[2], *wv = &a[5], *bv = &a[6];
    int k = ns->u.ints.n;
    const int64_t *nv = ns->u.ints.v;
    char s1[256], s2[256];
    if (k < 1) {
        PyErr_SetString(PyExc_RuntimeError, "Expected normalized_shape to be at least 1-dimensional, i.e., containing "
                                            "at least one element, but got normalized_shape = []");
        return NULL;
    }
    const tn_value *params[2] = {wv, bv};
    for (int p = 0; p < 2; p++) {
        if (params[p]->tag != TN_V_TENSOR) continue;
        const tn_tensor *pt = TN_T(*params[p]);
        bool same = pt->ndim == k;
        for (int i = 0; same && i < k; i++) same = pt->sizes[i] == nv[i];
        if (!same) {
            tn_shape_str(s1, sizeof s1, pt->ndim, pt->sizes);
            tn_shape_str(s2, sizeof s2, k, nv);
            PyErr_Format(PyExc_RuntimeError, "Expected %s to be of same shape as normalized_shape, but got %s of shape %s "
                         "and normalized_shape = %s", p ? "bias" : "weight", p ? "bias" : "weight", s1, s2);
            return NULL;
        }
    }
    bool ok = x->ndim >= k;
    for (int i = 0; ok && i < k; i++) ok = x->sizes[x->ndim - k + i] == nv[i];
    if (!ok) {
        tn_shape_str(s1, sizeof s1, k, nv);
        tn_shape_str(s2, sizeof s2, x->ndim, x->sizes);
        char star[260];
        snprintf(star, sizeof star, "%s", s1 + 1);
        star[strlen(star) - 1] = 0;
        PyErr_Format(PyExc_RuntimeError, "Given normalized_shape=%s, expected input with shape [*, %s], but got input "
                     "of size%s", s1, star, s2);
        return NULL;
    }
    int64_t M = 1, N = 1;
    for (int i = 0; i < x->ndim; i++) {
        if (i < x->ndim - k) M *= x->sizes[i];
        else N *= x->sizes[i];
    }
    bool mask[3] = {true, true, true};
    for (int i = 0; i < 3 && i < a[7].u.ints.n; i++) mask[i] = a[7].u.ints.v[i] != 0;
    if ((mask[1] && wv->tag != TN_V_TENSOR) || (mask[2] && bv->tag != TN_V_TENSOR)) {
        PyErr_SetString(PyExc_RuntimeError, "tensor does not have a device");
        return NULL;
    }
    /* the element counts the kernel reads: refuse what upstream would read out of bounds */
    if (tn_numel(dy) != M * N || tn_numel(TN_T(a[3])) < M || tn_numel(TN_T(a[4])) < M) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: native_layer_norm_backward: grad_out, mean and rstd must "
                                            "match the input's shape");
        return NULL;
    }
    /* out= tensors: exact dtypes; a masked-out result has none */
    tn_dtype want[3] = {x->dtype, wv->tag == TN_V_TENSOR ? TN_T(*wv)->dtype : TN_DTYPE_UNDEFINED,
                        bv->tag == TN_V_TENSOR ? TN_T(*bv)->dtype : TN_DTYPE_UNDEFINED};
    PyObject *res[3] = {NULL, NULL, NULL}, *dyc = NULL, *xc = NULL, *mc = NULL, *rc = NULL, *wc = NULL;
    PyObject *ret = NULL;
    tn_dtype dt = x->dtype;
    if (M > 0) {
        if (!tn_nn_float(dt)) return tn_kernel_missing("LayerNormBackwardKernelImpl", dt);
        bool mixed = false;
        for (int p = 0; p < 2; p++)
            if (params[p]->tag == TN_V_TENSOR && (dt == TN_DTYPE_BF16 || dt == TN_DTYPE_F16) &&
                TN_T(*params[p])->dtype == TN_DTYPE_F32)
                mixed = true;
        tn_dtype pd = mixed ? TN_DTYPE_F32 : dt;
        if (dy->dtype != dt) return bw_scalar_type(dt, dy->dtype);
        if (TN_T(a[3])->dtype != pd) return bw_scalar_type(pd, TN_T(a[3])->dtype);
        if (TN_T(a[4])->dtype != pd) return bw_scalar_type(pd, TN_T(a[4])->dtype);
        for (int p = 0; p < 2; p++)
            if (params[p]->tag == TN_V_TENSOR && TN_T(*params[p])->dtype != pd)
                return bw_scalar_type(pd, TN_T(*params[p])->dtype);
    }
    if (outs)
        for (int i = 0; i < 3; i++) {
            if (!mask[i]) {
                PyErr_Format(PyExc_RuntimeError, "Expected out tensor to have dtype nullptr (uninitialized), but got "
                             "%s instead", tn_dtype_cxx_name(tn_tensor_of(outs[i])->dtype));
                return NULL;
            }
            if (tn_out_dtype_exact(outs[i], want[i]) < 0) return NULL;
        }
    tn_dtype ct = tn_nn_compute(dt);
    if (!tn_dtype_is_floating(dt)) ct = TN_DTYPE_F64; /* empty integer input: nothing computed */
    const tn_tensor *pt = mask[1] ? TN_T(*wv) : mask[2] ? TN_T(*bv) : NULL;
    if (mask[0] && !(res[0] = tn_tensor_new_empty(x->ndim, x->sizes, ct, TN_DEVICE_CPU))) goto done;
    if (mask[1] && !(res[1] = tn_tensor_new_empty(pt->ndim, pt->sizes, ct, TN_DEVICE_CPU))) goto done;
    if (mask[2] && !(res[2] = tn_tensor_new_empty(TN_T(*bv)->ndim, TN_T(*bv)->sizes, ct, TN_DEVICE_CPU))) goto done;
    for (int i = 1; i < 3; i++)
        if (res[i] && M == 0) memset(tn_data(tn_tensor_of(res[i])), 0, (size_t)(N * tn_dtype_itemsize(ct)));
    if (M > 0) {
        if (!(dyc = tn_as_dtype(dyo, ct, true)) || !(xc = tn_as_dtype(xo, ct, true)) ||
            !(mc = tn_as_dtype(a[3].u.obj, ct, true)) || !(rc = tn_as_dtype(a[4].u.obj, ct, true)))
            goto done;
        if (wv->tag == TN_V_TENSOR && !(wc = tn_as_dtype(wv->u.obj, ct, true))) goto done;
        char *dyp = tn_data(tn_tensor_of(dyc)), *xp = tn_data(tn_tensor_of(xc)), *mp = tn_data(tn_tensor_of(mc));
        char *rp = tn_data(tn_tensor_of(rc)), *wp = wc ? tn_data(tn_tensor_of(wc)) : NULL;
        char *o0 = res[0] ? tn_data(tn_tensor_of(res[0])) : NULL, *o1 = res[1] ? tn_data(tn_tensor_of(res[1])) : NULL;
        char *o2 = res[2] ? tn_data(tn_tensor_of(res[2])) : NULL;
        Py_BEGIN_ALLOW_THREADS
        if (ct == TN_DTYPE_F64)
            tn_layer_norm_backward_f64((const double *)dyp, (const double *)xp, (const double *)mp, (const double *)rp,
                                       (const double *)wp, (double *)o0, (double *)o1, (double *)o2, M, N);
        else if (dt == TN_DTYPE_F32) /* upstream's float32 rounding (kernels/layer_norm.c) */
            tn_layer_norm_backward_f32((const float *)dyp, (const float *)xp, (const float *)mp, (const float *)rp,
                                       (const float *)wp, (float *)o0, (float *)o1, (float *)o2, M, N);
        else /* bfloat16 / float16: upstream's mixed-type kernel is not followed yet */
            tn_layer_norm_backward_f32_wide((const float *)dyp, (const float *)xp, (const float *)mp, (const float *)rp,
                                       (const float *)wp, (float *)o0, (float *)o1, (float *)o2, M, N);
        Py_END_ALLOW_THREADS
    }
    for (int i = 0; i < 3; i++) {
        if (!res[i]) continue;
        PyObject *r = tn_as_dtype(res[i], want[i], false);
        Py_DECREF(res[i]);
        res[i] = r;
        if (!r) goto done;
        if (outs) {
            res[i] = tn_out_deliver(res[i], outs[i], "native_layer_norm_backward");
            if (!res[i]) goto done;
        }
    }
    ret = PyTuple_Pack(3, res[0] ? res[0] : Py_None, res[1] ? res[1] : Py_None, res[2] ? res[2] : Py_None);
done:
    for (int i = 0; i < 3; i++) Py_XDECREF(res[i]);
    Py_XDECREF(dyc); Py_XDECREF(xc); Py_XDECREF(mc); Py_XDECREF(rc); Py_XDECREF(wc);
    return ret;
}
PyObject *tn_op_native_layer_norm_backward(tn_value *a) { return layer_norm_bwd(a, NULL); }
PyObject *tn_op_native_layer_norm_backward_out(tn_value *a) {
    PyObject *outs[3] = {a[8].u.obj, a[9].u.obj, a[10].u.obj};
    return layer_norm_bwd(a, outs);
}

/* ---------------------------------------------------------------- nll_loss */

/* Checks shared by nll_loss_forward and nll_loss_backward (upstream's meta functions). */
/* fwd: the forward's order (measured on 2.13): the target's dtype after its dims, before the
 * sizes (target.size(0) read) and the 1-D target's size (not on meta, its Python meta's) */
static int nll_check(const tn_tensor *x, const tn_tensor *t, bool fwd) {
    char s1[256], s2[256];
    /* on meta, upstream's decompositions assert the dims first, in their own words
     * (docs/breadth_more2.md "group meta (session 40)"); the backward's allows a 0-d self */
    if (tn_door_on_meta() && (x->ndim > 2 || (fwd && x->ndim < 1))) {
        PyErr_Format(PyExc_AssertionError, "input tensor should be 1D or 2D, got %dD", x->ndim);
        return -1;
    }
    if (tn_door_on_meta() && t->ndim > 1) {
        PyErr_Format(PyExc_AssertionError, "0D or 1D target tensor expected, multi-target not supported, got %dD", t->ndim);
        return -1;
    }
    if (x->ndim < 1 || x->ndim > 2) {
        PyErr_SetString(PyExc_RuntimeError, "input tensor should be 1D or 2D");
        return -1;
    }
    if (t->ndim > 1) {
        PyErr_SetString(PyExc_RuntimeError, "0D or 1D target tensor expected, multi-target not supported");
        return -1;
    }
    if (fwd && !tn_door_on_meta() && t->dtype != TN_DTYPE_I64 && t->dtype != TN_DTYPE_U8) {
        PyErr_Format(PyExc_RuntimeError, "expected target dtype to be Long or Byte, but got %s", tn_dtype_cpp_name(t->dtype));
        return -1;
    }
    if (!fwd && !(x->ndim == 1 && t->ndim == 0)) {
        /* the backward's meta compares self.size(0) with target.size(0) whenever there is a batch
         * dim to either (a 1-D self with a 1-D target too; its kernel reads target[0]; measured) */
        if (tn_size_read(t, 0) < 0) return -1;
        if (x->sizes[0] != t->sizes[0]) {
            tn_shape_str(s1, sizeof s1, x->ndim, x->sizes);
            tn_shape_str(s2, sizeof s2, t->ndim, t->sizes);
            PyErr_Format(PyExc_RuntimeError, "size mismatch (got input: %s, target: %s)", s1, s2);
            return -1;
        }
        return 0;
    }
    if (x->ndim == 1 && t->ndim == 1 && t->sizes[0] != 1) {
        PyErr_Format(PyExc_ValueError, "For 1D input, 1D target must have size 1, but got target size: %lld",
                     (long long)t->sizes[0]);
        return -1;
    }
    if (x->ndim == 2 && t->ndim == 0) return tn_size_read(t, 0);   /* target.size(0) read: IndexError */
    if (x->ndim == 2 && x->sizes[0] != t->sizes[0]) {
        tn_shape_str(s1, sizeof s1, x->ndim, x->sizes);
        tn_shape_str(s2, sizeof s2, t->ndim, t->sizes);
        PyErr_Format(PyExc_RuntimeError, "size mismatch (got input: %s, target: %s)", s1, s2);
        return -1;
    }
    return 0;
}

/* Target as contiguous int64 (Long or Byte upstream), range-checked except ignore_index. */
static PyObject *nll_target(const tn_tensor *x, PyObject *to, int64_t ignore, int64_t *B) {
    tn_tensor *t = tn_tensor_of(to);
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("nll_loss_out_frame", x->dtype);
    if (t->dtype != TN_DTYPE_I64 && t->dtype != TN_DTYPE_U8) {
        PyErr_Format(PyExc_RuntimeError, "expected target dtype to be Long or Byte, but got %s", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    PyObject *tc = tn_as_dtype(to, TN_DTYPE_I64, true);
    if (!tc) return NULL;
    int64_t n = tn_numel(t), C = x->sizes[x->ndim - 1];
    const int64_t *tp = (const int64_t *)tn_data(tn_tensor_of(tc));
    for (int64_t i = 0; i < n; i++)
        if (tp[i] != ignore && (tp[i] < 0 || tp[i] >= C)) {
            PyErr_Format(PyExc_IndexError, "Target %lld is out of bounds.", (long long)tp[i]);
            Py_DECREF(tc);
            return NULL;
        }
    *B = x->ndim == 2 ? x->sizes[0] : 1;
    return tc;
}

/* Weight: all C classes or none; the input's dtype. */
static PyObject *nll_weight(const tn_tensor *x, const tn_value *wv, bool fwd) {
    if (wv->tag != TN_V_TENSOR) return Py_NewRef(Py_None);
    tn_tensor *w = TN_T(*wv);
    int64_t C = x->sizes[x->ndim - 1];
    if (fwd ? (w->ndim != 1 || w->sizes[0] != C) : tn_numel(w) != C) {
        if (fwd) {
            char s[256];
            tn_shape_str(s, sizeof s, w->ndim, w->sizes);
            PyErr_Format(PyExc_RuntimeError, "weight tensor should be defined either for all %lld classes or no classes "
                         "but got weight tensor of shape: %s", (long long)C, s);
        } else {
            PyErr_SetString(PyExc_RuntimeError, "weight tensor should be defined either for all or no classes");
        }
        return NULL;
    }
    return Py_NewRef(wv->u.obj);
}

static int reduction_of(int64_t r) { return r == 0 ? 0 : r == 1 ? 1 : 2; }

/* nll_loss_forward(self, target, weight, reduction, ignore_index) -> (output, total_weight) */
static PyObject *nll_fwd(tn_value *a, PyObject *outo, PyObject *two) {
    PyObject *xo = a[0].u.obj;
    tn_tensor *x = tn_tensor_of(xo), *t = TN_T(a[1]);
    if (nll_check(x, t, true) < 0) return NULL;
    PyObject *wo = nll_weight(x, &a[2], true);
    if (!wo) return NULL;
    int red = reduction_of(a[3].u.i);
    int64_t ignore = a[4].u.i;
    bool none2d = red == 0 && x->ndim == 2;
    int64_t osz[1] = {x->sizes[0]};
    PyObject *tc = NULL, *xc = NULL, *wc = NULL, *out = NULL, *tw = NULL, *ret = NULL;
    int64_t B = 0;
    if (tn_out_dtype_exact(outo, x->dtype) < 0 || tn_out_dtype_exact(two, x->dtype) < 0) goto done;
    if (!(tc = nll_target(x, a[1].u.obj, ignore, &B))) goto done;
    if (wo != Py_None && TN_T(a[2])->dtype != x->dtype) {
        bw_scalar_type(x->dtype, TN_T(a[2])->dtype);
        goto done;
    }
    if (!(xc = tn_as_dtype(xo, x->dtype, true))) goto done;
    if (wo != Py_None && !(wc = tn_as_dtype(wo, x->dtype, true))) goto done;
    if (!(out = tn_tensor_new_empty(none2d ? 1 : 0, osz, x->dtype, TN_DEVICE_CPU))) goto done;
    if (!(tw = tn_tensor_new_empty(0, osz, x->dtype, TN_DEVICE_CPU))) goto done;
    tn_nll_loss_forward(x->dtype, tn_data(tn_tensor_of(xc)), (const int64_t *)tn_data(tn_tensor_of(tc)),
                        wc ? tn_data(tn_tensor_of(wc)) : NULL, B, x->sizes[x->ndim - 1], ignore,
                        none2d ? 0 : red == 0 ? 2 : red, tn_data(tn_tensor_of(out)), tn_data(tn_tensor_of(tw)));
    if (outo) {
        out = tn_out_deliver(out, outo, "nll_loss_forward");
        tw = tn_out_deliver(tw, two, "nll_loss_forward");
        if (out && tw) ret = PyTuple_Pack(2, out, tw);
    } else {
        ret = tn_return_pair("nll_loss_forward", out, tw);
        out = tw = NULL;
    }
done:
    Py_DECREF(wo);
    Py_XDECREF(tc); Py_XDECREF(xc); Py_XDECREF(wc); Py_XDECREF(out); Py_XDECREF(tw);
    return ret;
}
PyObject *tn_op_nll_loss_forward(tn_value *a) { return nll_fwd(a, NULL, NULL); }
PyObject *tn_op_nll_loss_forward_output(tn_value *a) { return nll_fwd(a, a[5].u.obj, a[6].u.obj); }

/* nll_loss_backward(grad_output, self, target, weight, reduction, ignore_index, total_weight) */
static PyObject *nll_bwd(tn_value *a, PyObject *outo) {
    PyObject *xo = a[1].u.obj;
    tn_tensor *g = TN_T(a[0]), *x = tn_tensor_of(xo), *t = TN_T(a[2]), *tw = TN_T(a[6]);
    char s[256];
    if (nll_check(x, t, false) < 0) return NULL;
    if (tn_numel(tw) != 1) {
        tn_shape_str(s, sizeof s, tw->ndim, tw->sizes);
        PyErr_Format(PyExc_RuntimeError, "expected total_weight to be a  single element tensor, got: %s (%lld elements)",
                     s, (long long)tn_numel(tw));
        return NULL;
    }
    PyObject *wo = nll_weight(x, &a[3], false);
    if (!wo) return NULL;
    int red = reduction_of(a[4].u.i);
    int64_t ignore = a[5].u.i;
    bool none2d = red == 0 && x->ndim == 2;
    PyObject *tc = NULL, *wc = NULL, *gc = NULL, *twc = NULL, *res = NULL;
    int64_t B = 0;
    if (none2d) {
        if (g->ndim == 0) {
            PyErr_SetString(PyExc_IndexError, "Dimension specified as 0 but tensor has no dimensions");
            goto done;
        }
        if (g->sizes[0] != x->sizes[0]) {
            PyErr_Format(PyExc_RuntimeError, "Expected tensor to have size %lld at dimension 0, but got size %lld for "
                         "argument #1 'self' (while checking arguments for nll_loss_backward)",
                         (long long)x->sizes[0], (long long)g->sizes[0]);
            goto done;
        }
        if (g->ndim != 1) {
            PyErr_SetString(PyExc_RuntimeError, "torchnative: nll_loss_backward: grad_output must be 1-D for "
                                                "reduction='none'");
            goto done;
        }
    } else if (g->ndim > 1 || tn_numel(g) != 1) {
        tn_shape_str(s, sizeof s, g->ndim, g->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected a single element grad_output tensor, but got: %s", s);
        goto done;
    }
    if (tn_out_dtype_exact(outo, x->dtype) < 0) goto done;
    if (!(tc = nll_target(x, a[2].u.obj, ignore, &B))) goto done;
    if (wo != Py_None && TN_T(a[3])->dtype != x->dtype) {
        bw_scalar_type(x->dtype, TN_T(a[3])->dtype);
        goto done;
    }
    if (g->dtype != x->dtype) { bw_scalar_type(x->dtype, g->dtype); goto done; }
    if (!none2d && tw->dtype != x->dtype) { bw_scalar_type(x->dtype, tw->dtype); goto done; }
    if (wo != Py_None && !(wc = tn_as_dtype(wo, x->dtype, true))) goto done;
    if (!(gc = tn_as_dtype(a[0].u.obj, x->dtype, true)) || !(twc = tn_as_dtype(a[6].u.obj, x->dtype, true))) goto done;
    if (!(res = tn_tensor_new_empty(x->ndim, x->sizes, x->dtype, TN_DEVICE_CPU))) goto done;
    memset(tn_data(tn_tensor_of(res)), 0, (size_t)(tn_numel(x) * tn_dtype_itemsize(x->dtype)));
    tn_nll_loss_backward(x->dtype, tn_data(tn_tensor_of(gc)), 1, (const int64_t *)tn_data(tn_tensor_of(tc)),
                         wc ? tn_data(tn_tensor_of(wc)) : NULL, tn_data(tn_tensor_of(twc)), B, x->sizes[x->ndim - 1],
                         ignore, red, none2d, tn_data(tn_tensor_of(res)));
    res = tn_out_deliver(res, outo, "nll_loss_backward");
done:
    Py_DECREF(wo);
    Py_XDECREF(tc); Py_XDECREF(wc); Py_XDECREF(gc); Py_XDECREF(twc);
    return res;
}
PyObject *tn_op_nll_loss_backward(tn_value *a) { return nll_bwd(a, NULL); }
PyObject *tn_op_nll_loss_backward_grad_input(tn_value *a) { return nll_bwd(a, a[7].u.obj); }
