/* ops/loss.c — the loss operators of torch.nn with kernels of their own upstream: mse_loss
 * (the elementwise (self - target)^2 of the broadcast operands, then mean or sum, composed of
 * the elementwise and reduction ops through the door (the typed op API), so it rounds as they do; its
 * backward kernel is in ops/backward.c), smooth_l1 / huber / binary_cross_entropy / log_sigmoid
 * forward and backward (elementwise kernels, kernels/ref/loss.c), binary_cross_entropy_with_logits
 * and soft_margin_loss (upstream composes them of other ops inside one kernel: the same ops here,
 * through the door), multi_margin / multilabel_margin forward and backward, nll_loss2d forward
 * and backward (the nll_loss kernels over pixels), and broadcast_tensors (upstream's
 * expand_outplace: each tensor itself when it has the broadcast shape, else its expand).
 * Reductions: 0 none, 1 mean, 2 sum; mean and sum are the mean / sum ops of the elementwise loss. */
#include "autograd/autograd.h"
#include "kernels/backward.h"
#include "kernels/loss.h"
#include "ops/common.h"
#include "core/pystate.h"
#include "core/object.h"
#include "tn_ops_gen.h"
#include <stdlib.h>

#include <math.h>
#include <string.h>

/* mse_loss and smooth_l1_loss's structured meta functions assert a reduction other than none is
 * mean or sum (after the operands' broadcast and dtype checks); upstream's first line, its
 * Loss.cpp line numbers included. */
static int reduction_assert(int64_t red, int line) {
    if (red == 0 || red == 1 || red == 2) return 0;
    PyErr_Format(PyExc_RuntimeError, "reduction == Reduction::Mean || reduction == Reduction::Sum INTERNAL ASSERT "
                 "FAILED at \"/__w/pytorch/pytorch/aten/src/ATen/native/Loss.cpp\":%d, please report a bug to PyTorch. ", line);
    return -1;
}

/* (self - target)^2 in the operands' common dtype: a bool operand is promoted first (upstream's
 * iterator computes in the common dtype; two bools reach the kernel, which has no Bool) */
static PyObject *mse_squared(tn_value *a, int64_t red, PyObject *out) {
    PyObject *ins[2] = {a[0].u.obj, a[1].u.obj};
    if (out && tn_check_overlap(out, 2, ins) < 0) return NULL;   /* the meta function's iterator, on out as given */
    tn_dtype ct = tn_result_type(2, a);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    if (out && !tn_can_cast(ct, tn_tensor_of(out)->dtype)) return tn_cast_error(ct, tn_tensor_of(out)->dtype);
    /* the iterator's broadcast, the reduction's assert, then the kernel's dtypes (floating only: "mse_cpu"),
     * measured */
    const tn_tensor *ts[2] = {TN_T(a[0]), TN_T(a[1])};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return NULL;
    if (reduction_assert(red, 97) < 0) return NULL;
    if (!tn_nn_float(ct)) return tn_kernel_missing("mse_cpu", ct);
    PyObject *s = tn_as_dtype(a[0].u.obj, ct, false), *t = s ? tn_as_dtype(a[1].u.obj, ct, false) : NULL;
    PyObject *d = t ? tn_at_sub_Tensor(s, t, TN_SDEF) : NULL;
    Py_XDECREF(s); Py_XDECREF(t);
    PyObject *sq = d ? tn_at_mul_Tensor(d, d) : NULL;
    Py_XDECREF(d);
    return sq;
}

/* mse_loss(self, target, reduction=Mean) */
PyObject *tn_op_mse_loss(tn_value *a) {
    int64_t red = a[2].u.i;
    PyObject *sq = mse_squared(a, red, NULL);
    if (!sq || red == 0) return sq;
    PyObject *r = (red == 1 ? tn_at_mean(sq, NULL) : tn_at_sum(sq, NULL));
    Py_DECREF(sq);
    return r;
}

/* mse_loss.out: the squared difference in the operands' type, then (reductions) the mean / sum
 * into out as upstream's mean_out / sum_out, accumulating in out's dtype */
PyObject *tn_op_mse_loss_out(tn_value *a) {
    int64_t red = a[2].u.i;
    PyObject *out = a[3].u.obj;
    PyObject *sq = mse_squared(a, red, out);
    if (!sq || red == 0) return tn_out_deliver(sq, out, "mse_loss");
    tn_dtype od = tn_tensor_of(out)->dtype;   /* castable: mse_squared checked */
    PyObject *r = red == 1 ? tn_at_mean(sq, TN_DT(od)) : tn_at_sum(sq, TN_DT(od));
    Py_DECREF(sq);
    return tn_out_deliver(r, out, "mse_loss");
}

/* broadcast_tensors(tensors) -> Tensor[] */
PyObject *tn_op_broadcast_tensors(tn_value *a) {
    PyObject *l = a[0].u.obj;
    Py_ssize_t n = PyTuple_Size(l);
    const tn_tensor *small[64], **ts = n > 64 ? malloc((size_t)n * sizeof *ts) : small;   /* any count */
    if (!ts) return PyErr_NoMemory();
    for (Py_ssize_t i = 0; i < n; i++) ts[i] = tn_tensor_of(PyTuple_GetItem(l, i));
    int nd = 0;
    int64_t shape[TN_MAX_DIMS];
    PyObject *out = n > 0 && tn_broadcast_tensors_shape((int)n, ts, &nd, shape) < 0 ? NULL : PyTuple_New(n);
    if (!out) { if (ts != small) free(ts); return NULL; }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *t = PyTuple_GetItem(l, i);
        bool same = ts[i]->ndim == nd;
        for (int d = 0; same && d < nd; d++) same = ts[i]->sizes[d] == shape[d];
        PyObject *r;
        if (same) r = Py_NewRef(t);
        else r = tn_at_expand(t, TN_IN(shape, nd), false);
        if (!r) { Py_CLEAR(out); break; }
        PyTuple_SetItem(out, i, r);
    }
    if (ts != small) free(ts);
    return out;
}

/* ================================================================ shared pieces */

/* the loss reduced: none -> l itself, mean -> l.mean(), sum -> l.sum(). Steals l. */
/* upstream's apply_loss_reduction: mean (1), sum (2), else the unreduced loss */
static PyObject *reduce_loss(PyObject *l, int64_t red) {
    if (!l || (red != 1 && red != 2)) return l;
    PyObject *r = (red == 1 ? tn_at_mean(l, NULL) : tn_at_sum(l, NULL));
    Py_DECREF(l);
    return r;
}

static bool same_shape(const tn_tensor *t, int nd, const int64_t *shape) {
    if (t->ndim != nd) return false;
    for (int d = 0; d < nd; d++)
        if (t->sizes[d] != shape[d]) return false;
    return true;
}

/* An elementwise loss kernel over n tensors broadcast together, computed in dtype ct; a new
 * contiguous tensor of ct and the broadcast shape. */
static PyObject *ew_run(tn_loss_op op, const char *kname, tn_dtype ct, const tn_loss_params *p, int n,
                        PyObject *const *ins) {
    tn_loop loop = tn_loss_loop(op, ct);
    if (!loop) return tn_kernel_missing(kname, ct);
    const tn_tensor *ts[4];
    for (int i = 0; i < n; i++) ts[i] = tn_tensor_of(ins[i]);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(n, ts, &nd, shape) < 0) return NULL;
    PyObject *cast[4] = {0}, *res = NULL;
    for (int i = 0; i < n; i++)
        if (!(cast[i] = tn_as_dtype(ins[i], ct, false))) goto done;
    if (!(res = tn_new_result(nd, shape, ct, n, ts))) goto done;   /* TensorIterator's output layout */
    tn_run_loop(loop, p, res, n, cast);
done:
    for (int i = 0; i < n; i++) Py_XDECREF(cast[i]);
    return res;
}

/* upstream's TensorIterator check_all_same_dtype: the first input's dtype is expected of every
 * operand (output first) */
static int expect_dtype(tn_dtype expected, int n, const tn_dtype *dts) {
    for (int i = 0; i < n; i++)
        if (dts[i] != expected) {
            PyErr_Format(PyExc_RuntimeError, "Found dtype %s but expected %s", tn_dtype_cpp_name(dts[i]),
                         tn_dtype_cpp_name(expected));
            return -1;
        }
    return 0;
}

/* out= of the loss ops whose out function builds a TensorIterator over it first: upstream's memory
 * overlap checks on out as given (an expanded out, or one partially overlapping an input: self[0],
 * self.t()), before any shape or dtype check (measured: docs/breadth_more2.md "third pass") */
static int out_overlap_first(PyObject *out, int n, const tn_value *a, const int *which) {
    PyObject *ins[4];
    for (int i = 0; i < n; i++) ins[i] = a[which[i]].u.obj;
    return out ? tn_check_overlap(out, n, ins) : 0;
}
static const int SELF_TARGET[2] = {0, 1}, GRAD_SELF_TARGET[3] = {0, 1, 2};

/* ================================================================ smooth_l1 / huber */

/* out= of smooth_l1_loss / huber_loss is the output of a binary iterator over self and target:
 * its shape and cast checks come before the kernel's dtype refusal (measured) */
static int binary_out_check(tn_value *a, PyObject *out) {
    if (!out) return 0;
    const tn_tensor *ts[2] = {TN_T(a[0]), TN_T(a[1])};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return -1;
    tn_dtype ct = tn_result_type(2, a);
    if (ct == TN_DTYPE_UNDEFINED) return -1;
    if (!tn_can_cast(ct, tn_tensor_of(out)->dtype)) {
        tn_cast_error(ct, tn_tensor_of(out)->dtype);
        return -1;
    }
    return 0;
}

/* smooth_l1_loss(self, target, reduction, beta): beta 0 is l1_loss */
static PyObject *sl1(tn_value *a, PyObject *out) {
    double beta = a[3].u.f;
    int64_t red = a[2].u.i;
    if (beta < 0) {
        PyErr_SetString(PyExc_RuntimeError, "smooth_l1_loss does not support negative values for beta.");
        return NULL;
    }
    if (out_overlap_first(out, 2, a, SELF_TARGET) < 0) return NULL;
    if (binary_out_check(a, out) < 0) return NULL;
    /* the meta function's binary iterator (broadcast, common dtype), then its reduction assert,
     * before the kernel's dtypes (measured) */
    const tn_tensor *ts[2] = {TN_T(a[0]), TN_T(a[1])};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return NULL;
    if (tn_result_type(2, a) == TN_DTYPE_UNDEFINED) return NULL;
    if (reduction_assert(red, 86) < 0) return NULL;
    PyObject *r;
    if (beta == 0) {
        PyObject *d = tn_at_sub_Tensor(a[0].u.obj, a[1].u.obj, TN_SDEF);
        r = reduce_loss(d ? tn_at_abs(d) : NULL, red);
        Py_XDECREF(d);
    } else {
        tn_dtype ct = tn_result_type(2, a);
        if (ct == TN_DTYPE_UNDEFINED) return NULL;
        tn_loss_params p = {beta, 0};
        PyObject *ins[2] = {a[0].u.obj, a[1].u.obj};
        r = reduce_loss(ew_run(TN_LOSS_SMOOTH_L1, "smooth_l1_cpu", ct, &p, 2, ins), red);
    }
    if (r && out && red != 0) { /* upstream's mean_out / sum_out into out itself: no complex32 or float8 sum */
        tn_dtype od = tn_tensor_of(out)->dtype;
        if (od == TN_DTYPE_C32 || tn_dtype_infos[od].kind == TN_KIND_FLOAT8) {
            Py_DECREF(r);
            return tn_kernel_missing_cpu("sum", od);
        }
    }
    return out ? tn_out_deliver(r, out, "smooth_l1_loss") : r;
}
PyObject *tn_op_smooth_l1_loss(tn_value *a) { return sl1(a, NULL); }
PyObject *tn_op_smooth_l1_loss_out(tn_value *a) { return sl1(a, a[4].u.obj); }

/* huber_loss(self, target, reduction, delta): loss = empty_like(self), computed in the operands'
 * common dtype */
static int huber_delta(double delta) {
    if (delta > 0) return 0;
    PyErr_SetString(PyExc_RuntimeError, "huber_loss does not support non-positive values for delta.");
    return -1;
}
PyObject *tn_op_huber_loss(tn_value *a) {
    double delta = a[3].u.f;
    /* on meta, upstream's reference maps the reduction to its name first (docs/breadth_more2.md
     * "group meta (session 40)") */
    if (tn_door_on_meta() && (a[2].u.i < 0 || a[2].u.i > 2))
        return PyErr_Format(PyExc_ValueError, "%lld is not a valid value for reduction", (long long)a[2].u.i);
    if (huber_delta(delta) < 0) return NULL;
    tn_tensor *x = TN_T(a[0]);
    const tn_tensor *ts[2] = {x, TN_T(a[1])};   /* the iterator's broadcast, then its dtypes */
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return NULL;
    tn_dtype ct = tn_result_type(2, a);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    if (!tn_can_cast(ct, x->dtype)) {
        tn_cast_error(ct, x->dtype);
        return NULL;
    }
    tn_loss_params p = {delta, 0};
    PyObject *ins[2] = {a[0].u.obj, a[1].u.obj};
    /* upstream's iterator resizes loss = empty_like(self) to the broadcast shape */
    PyObject *l = ew_run(TN_LOSS_HUBER, "huber_cpu", ct, &p, 2, ins);
    if (l && ct != x->dtype) {
        PyObject *c = tn_as_dtype(l, x->dtype, false);
        Py_SETREF(l, c);
    }
    return reduce_loss(l, a[2].u.i);
}
/* huber_loss.out: out itself is the iterator's output (so any dtype the common dtype casts to,
 * whatever self's), then for a reduction other than none out.resize_([]).copy_(reduced), where
 * the "reduced" loss of an unknown reduction is out itself: its first element (upstream's
 * huber_loss_out; docs/breadth_more2.md "Fuzz corpus: calls upstream runs") */
PyObject *tn_op_huber_loss_out(tn_value *a) {
    PyObject *out = a[4].u.obj;
    if (huber_delta(a[3].u.f) < 0) return NULL;
    if (out_overlap_first(out, 2, a, SELF_TARGET) < 0 || binary_out_check(a, out) < 0) return NULL;   /* shapes and the cast into out= */
    tn_dtype ct = tn_result_type(2, a);
    tn_loss_params p = {a[3].u.f, 0};
    PyObject *ins[2] = {a[0].u.obj, a[1].u.obj};
    PyObject *l = ew_run(TN_LOSS_HUBER, "huber_cpu", ct, &p, 2, ins);
    if (!l) return NULL;
    const tn_tensor *lt = tn_tensor_of(l);
    int rc = tn_out_prepare(out, lt->ndim, lt->sizes, ct, "huber_loss");
    if (rc == 0) rc = tn_copy_into(out, l);
    Py_DECREF(l);
    if (rc < 0) return NULL;
    int64_t red = a[2].u.i;
    if (red != 0) {
        PyObject *r = reduce_loss(Py_NewRef(out), red);
        if (!r) return NULL;
        rc = tn_resize(out, 0, NULL);
        if (rc == 0) rc = tn_copy_into(out, r);
        Py_DECREF(r);
        if (rc < 0) return NULL;
    }
    return Py_NewRef(out);
}

/* smooth_l1_loss_backward / huber_loss_backward(grad_output, self, target, reduction, beta):
 * grad_input = zeros_like(self), then the kernel over (self, target, grad_output) broadcast to
 * self's shape; norm = 1 / numel for mean */
static PyObject *sl1_huber_bwd(tn_value *a, PyObject *out, bool is_huber) {
    tn_tensor *x = TN_T(a[1]);
    double par = a[4].u.f;
    int64_t red = a[3].u.i;
    if (out_overlap_first(out, 3, a, GRAD_SELF_TARGET) < 0) return NULL;
    if (!is_huber && par <= 0) {   /* upstream: l1_loss's gradient, sign(self - target) * grad [/ numel] */
        PyObject *d = tn_at_sub_Tensor(a[1].u.obj, a[2].u.obj, TN_SDEF);
        PyObject *sg = d ? tn_at_sign(d) : NULL;
        PyObject *r = sg ? tn_at_mul_Tensor(sg, a[0].u.obj) : NULL;
        Py_XDECREF(d); Py_XDECREF(sg);
        if (r && red == 1) Py_SETREF(r, tn_at_div_Scalar(r, TN_SI((long long)tn_numel(x))));
        return out ? tn_out_deliver(r, out, "smooth_l1_loss_backward") : r;
    }
    /* huber's iterator wants one dtype throughout; smooth_l1's promotes (self, target, grad_output)
     * to their common dtype and casts it into grad_input (zeros_like(self) or the given out) */
    tn_dtype ct = x->dtype, gd = out ? tn_tensor_of(out)->dtype : x->dtype;
    if (is_huber) {
        /* its operands (grad_input, self, target, grad_output), all in self's dtype */
        tn_dtype dts[4] = {gd, x->dtype, TN_T(a[2])->dtype, TN_T(a[0])->dtype};
        if (expect_dtype(x->dtype, 4, dts) < 0) return NULL;
    } else {
        if ((ct = tn_result_type(3, a)) == TN_DTYPE_UNDEFINED) return NULL;
        if (!tn_can_cast(ct, gd)) return tn_cast_error(ct, gd);
    }
    tn_loss_params p = {red == 1 ? 1.0 / (double)tn_numel(x) : 1.0, par};
    PyObject *ins[3] = {a[1].u.obj, a[2].u.obj, a[0].u.obj};
    PyObject *r = ew_run(is_huber ? TN_LOSS_HUBER_BWD : TN_LOSS_SMOOTH_L1_BWD,
                         is_huber ? "huber_backward_cpu_out" : "smooth_l1_backward_cpu_out", ct, &p, 3, ins);
    if (r && !out && ct != gd) Py_SETREF(r, tn_as_dtype(r, gd, false));
    return out ? tn_out_deliver(r, out, is_huber ? "huber_loss_backward" : "smooth_l1_loss_backward") : r;
}
PyObject *tn_op_smooth_l1_loss_backward(tn_value *a) { return sl1_huber_bwd(a, NULL, false); }
PyObject *tn_op_smooth_l1_loss_backward_grad_input(tn_value *a) { return sl1_huber_bwd(a, a[5].u.obj, false); }
PyObject *tn_op_huber_loss_backward(tn_value *a) { return sl1_huber_bwd(a, NULL, true); }
PyObject *tn_op_huber_loss_backward_out(tn_value *a) { return sl1_huber_bwd(a, a[5].u.obj, true); }

/* ================================================================ binary cross entropy */

/* in-place loss.mul_(weight) when a weight is given; steals l */
static PyObject *mul_weight(PyObject *l, const tn_value *w) {
    if (!l || w->tag != TN_V_TENSOR) return l;
    PyObject *r = tn_at_mul__Tensor(l, w->u.obj);
    Py_XDECREF(r);
    if (!r) Py_CLEAR(l);
    return l;
}

/* The out= forms multiply the weight into the out= tensor itself (loss.mul_(weight)), at the
 * shape it was given (the kernel wrote a squeezed view of it, which the iterator resized): a weight
 * that does not broadcast to that shape is refused, an empty out= too (measured,
 * docs/breadth_more2.md). */
static int out_weight_shape(PyObject *out, const tn_value *w) {
    if (!out || w->tag != TN_V_TENSOR) return 0;
    const tn_tensor *ts[2] = {tn_tensor_of(out), TN_T(*w)};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return -1;
    if (nd == ts[0]->ndim && !memcmp(shape, ts[0]->sizes, (size_t)nd * sizeof *shape)) return 0;
    char b1[256], b2[256];
    tn_shape_str(b1, sizeof b1, ts[0]->ndim, ts[0]->sizes);
    tn_shape_str(b2, sizeof b2, nd, shape);
    PyErr_Format(PyExc_RuntimeError, "output with shape %s doesn't match the broadcast shape %s", b1, b2);
    return -1;
}

/* binary_cross_entropy(self, target, weight?, reduction) */
static PyObject *bce(tn_value *a, PyObject *out) {
    tn_tensor *x = TN_T(a[0]), *t = TN_T(a[1]);
    if (out_overlap_first(out, 2, a, SELF_TARGET) < 0) return NULL;
    /* the iterator's operands: the loss (out=, else empty_like(self)), self, target */
    const tn_tensor *ts[2] = {x, t};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return NULL;   /* its shape, then its dtypes */
    tn_dtype dts[3] = {out ? tn_tensor_of(out)->dtype : x->dtype, x->dtype, t->dtype};
    if (expect_dtype(x->dtype, 3, dts) < 0) return NULL;
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("binary_cross_entropy", x->dtype);
    /* upstream checks each element in the kernel: input first, then target */
    PyObject *xd = tn_as_dtype(a[0].u.obj, TN_DTYPE_F64, true), *td = xd ? tn_as_dtype(a[1].u.obj, TN_DTYPE_F64, true) : NULL;
    if (!td) { Py_XDECREF(xd); return NULL; }
    const double *xv = (const double *)tn_data(tn_tensor_of(xd)), *tv = (const double *)tn_data(tn_tensor_of(td));
    int64_t nx = tn_numel(x), nt = tn_numel(t), n = nx > nt ? nx : nt;
    for (int64_t i = 0; nx && nt && i < n; i++) {
        double xi = xv[nx == n ? i : i % nx], ti = tv[nt == n ? i : i % nt];
        if (!(xi >= 0 && xi <= 1) || !(ti >= 0 && ti <= 1)) {
            PyErr_Format(PyExc_RuntimeError, "all elements of %s should be between 0 and 1",
                         !(xi >= 0 && xi <= 1) ? "input" : "target");
            Py_DECREF(xd); Py_DECREF(td);
            return NULL;
        }
    }
    Py_DECREF(xd); Py_DECREF(td);
    if (out_weight_shape(out, &a[2]) < 0) return NULL;
    PyObject *ins[2] = {a[0].u.obj, a[1].u.obj};
    PyObject *l = mul_weight(ew_run(TN_LOSS_BCE, "binary_cross_entropy", x->dtype, NULL, 2, ins), &a[2]);
    PyObject *r = reduce_loss(l, a[3].u.i);
    return out ? tn_out_deliver(r, out, "binary_cross_entropy") : r;
}
PyObject *tn_op_binary_cross_entropy(tn_value *a) { return bce(a, NULL); }
PyObject *tn_op_binary_cross_entropy_out(tn_value *a) { return bce(a, a[4].u.obj); }

/* binary_cross_entropy_backward(grad_output, self, target, weight?, reduction):
 * grad * (x - t) / max((1 - x) * x, 1e-12), times weight, / numel for mean */
static PyObject *bce_bwd(tn_value *a, PyObject *out) {
    tn_tensor *g = TN_T(a[0]), *x = TN_T(a[1]), *t = TN_T(a[2]);
    if (out_overlap_first(out, 3, a, GRAD_SELF_TARGET) < 0) return NULL;
    /* the iterator's operands: grad_input (out=, else empty_like(self)), grad_output, self, target,
     * all in grad_output's dtype (the first input's) */
    tn_dtype dts[4] = {out ? tn_tensor_of(out)->dtype : x->dtype, g->dtype, x->dtype, t->dtype};
    if (expect_dtype(g->dtype, 4, dts) < 0) return NULL;
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("binary_cross_entropy_backward", x->dtype);
    if (out_weight_shape(out, &a[3]) < 0) return NULL;
    PyObject *ins[3] = {a[0].u.obj, a[1].u.obj, a[2].u.obj};
    PyObject *r = mul_weight(ew_run(TN_LOSS_BCE_BWD, "binary_cross_entropy_backward", x->dtype, NULL, 3, ins), &a[3]);
    if (r && a[4].u.i == 1) {
        PyObject *q = tn_at_div__Scalar(r, TN_SI((long long)tn_numel(x)));
        Py_XDECREF(q);
        if (!q) Py_CLEAR(r);
    }
    return out ? tn_out_deliver(r, out, "binary_cross_entropy_backward") : r;
}
PyObject *tn_op_binary_cross_entropy_backward(tn_value *a) { return bce_bwd(a, NULL); }
PyObject *tn_op_binary_cross_entropy_backward_grad_input(tn_value *a) { return bce_bwd(a, a[5].u.obj); }

/* binary_cross_entropy_with_logits(self, target, weight?, pos_weight?, reduction), upstream's ops:
 * lsi = log_sigmoid(self); with pos_weight lsi *= (pos_weight - 1) * target + 1;
 * loss = (1 - target) * self - lsi; loss *= weight; reduced */
static PyObject *log_sigmoid_of(PyObject *x) {
    PyObject *r = tn_at_log_sigmoid_forward(x);
    if (!r) return NULL;
    PyObject *o = Py_NewRef(PyTuple_GetItem(r, 0));
    Py_DECREF(r);
    return o;
}
static PyObject *inplace(PyObject *r, PyObject *self) {   /* result of an in-place op: keep self */
    if (!r) return NULL;
    Py_DECREF(r);
    return self;
}
PyObject *tn_op_binary_cross_entropy_with_logits(tn_value *a) {
    PyObject *x = a[0].u.obj, *t = a[1].u.obj;
    PyObject *lsi = log_sigmoid_of(x);
    if (lsi && a[3].tag == TN_V_TENSOR) {
        PyObject *pw = tn_at_sub_Scalar(a[3].u.obj, TN_SI(1), TN_SDEF);
        PyObject *lw = pw ? tn_at_mul_Tensor(pw, t) : NULL;
        Py_XDECREF(pw);
        if (lw && !inplace(tn_at_add__Scalar(lw, TN_SI(1), TN_SDEF), lw)) Py_CLEAR(lw);
        if (!lw || !inplace(tn_at_mul__Tensor(lsi, lw), lsi)) Py_CLEAR(lsi);
        Py_XDECREF(lw);
    }
    PyObject *loss = lsi ? tn_at_rsub_Scalar(t, TN_SI(1), TN_SDEF) : NULL;
    if (loss && !inplace(tn_at_mul__Tensor(loss, x), loss)) Py_CLEAR(loss);
    if (loss && !inplace(tn_at_sub__Tensor(loss, lsi, TN_SDEF), loss)) Py_CLEAR(loss);
    Py_XDECREF(lsi);
    return reduce_loss(mul_weight(loss, &a[2]), a[4].u.i);
}

/* ================================================================ log_sigmoid */

/* log_sigmoid_forward.output: upstream resizes output and buffer to self's shape (resize_as_, no
 * warning), wants both of self's dtype ("expected scalar type Float but found Double"), then builds
 * its iterator over output (internal overlap only; measured: docs/breadth_more2.md "third pass") */
static int ls_fwd_outs(PyObject *self, PyObject *oo, PyObject *bo) {
    const tn_tensor *x = tn_tensor_of(self);
    PyObject *outs[2] = {oo, bo};
    /* output.resize_as_(self) keeps an output of self's sizes as it is; buffer's takes the
     * contiguous format (restrided always; output too when it is the same tensor) */
    const tn_tensor *o = tn_tensor_of(oo);
    if (((o->ndim != x->ndim || memcmp(o->sizes, x->sizes, (size_t)x->ndim * sizeof *x->sizes) != 0) &&
         tn_resize(oo, x->ndim, x->sizes) < 0) || tn_resize(bo, x->ndim, x->sizes) < 0)
        return -1;
    for (int i = 0; i < 2; i++)
        if (tn_tensor_of(outs[i])->dtype != x->dtype) {
            PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(x->dtype),
                         tn_dtype_cpp_name(tn_tensor_of(outs[i])->dtype));
            return -1;
        }
    return tn_check_overlap(oo, 0, NULL);   /* internal only: a partial overlap with self runs */
}

static PyObject *ls_fwd(tn_value *a, PyObject *oo, PyObject *bo) {
    tn_tensor *x = TN_T(a[0]);
    if (!tn_nn_float(x->dtype)) return tn_kernel_missing("log_sigmoid_cpu", x->dtype);
    if (oo && ls_fwd_outs(a[0].u.obj, oo, bo) < 0) return NULL;
    PyObject *xc = tn_as_dtype(a[0].u.obj, x->dtype, true);
    PyObject *out = xc ? tn_tensor_new_empty(x->ndim, x->sizes, x->dtype, TN_DEVICE_CPU) : NULL;
    PyObject *buf = out ? tn_tensor_new_empty(x->ndim, x->sizes, x->dtype, TN_DEVICE_CPU) : NULL;
    PyObject *ret = NULL;
    if (buf) {
        tn_log_sigmoid_forward(x->dtype, tn_data(tn_tensor_of(xc)), tn_data(tn_tensor_of(out)),
                               tn_data(tn_tensor_of(buf)), tn_numel(x));
        if (oo) {
            out = tn_out_deliver(out, oo, "log_sigmoid_forward");
            buf = out ? tn_out_deliver(buf, bo, "log_sigmoid_forward") : (Py_DECREF(buf), NULL);
            if (out && buf) ret = PyTuple_Pack(2, out, buf);
        } else {
            ret = tn_return_pair("log_sigmoid_forward", out, buf);
            out = buf = NULL;
        }
    }
    Py_XDECREF(xc); Py_XDECREF(out); Py_XDECREF(buf);
    return ret;
}
PyObject *tn_op_log_sigmoid_forward(tn_value *a) { return ls_fwd(a, NULL, NULL); }
PyObject *tn_op_log_sigmoid_forward_output(tn_value *a) { return ls_fwd(a, a[1].u.obj, a[2].u.obj); }

/* log_sigmoid_backward(grad_output, self, buffer) */
static PyObject *ls_bwd(tn_value *a, PyObject *out) {
    tn_tensor *x = TN_T(a[1]);
    if (out_overlap_first(out, 3, a, GRAD_SELF_TARGET) < 0) return NULL;   /* grad_output, self, buffer */
    /* the iterator's operands: grad_input (out=, else empty_like(grad_output)), self, buffer,
     * grad_output, all in self's dtype (the first input's) */
    tn_dtype dts[4] = {out ? tn_tensor_of(out)->dtype : TN_T(a[0])->dtype, x->dtype, TN_T(a[2])->dtype,
                       TN_T(a[0])->dtype};
    if (expect_dtype(x->dtype, 4, dts) < 0) return NULL;
    PyObject *ins[3] = {a[1].u.obj, a[2].u.obj, a[0].u.obj};
    PyObject *r = ew_run(TN_LOSS_LOG_SIGMOID_BWD, "log_sigmoid_backward_cpu", x->dtype, NULL, 3, ins);
    return out ? tn_out_deliver(r, out, "log_sigmoid_backward") : r;
}
PyObject *tn_op_log_sigmoid_backward(tn_value *a) { return ls_bwd(a, NULL); }
PyObject *tn_op_log_sigmoid_backward_grad_input(tn_value *a) { return ls_bwd(a, a[3].u.obj); }

/* ================================================================ soft margin */

/* soft_margin_loss(self, target, reduction): log1p(exp(-self * target)), reduced */
static PyObject *soft_margin(tn_value *a, PyObject *out) {
    /* upstream's neg_out(output, self) first: a unary op's iterator wants out in self's dtype */
    if (out && tn_check_overlap(out, 1, &a[0].u.obj) < 0) return NULL;   /* neg_out's iterator: overlap first */
    tn_dtype dts[2] = {TN_T(a[0])->dtype, out ? tn_tensor_of(out)->dtype : TN_T(a[0])->dtype};
    if (dts[0] != TN_DTYPE_BOOL && expect_dtype(dts[0], 2, dts) < 0) return NULL;   /* neg's bool check first */
    PyObject *l = tn_at_neg(a[0].u.obj);
    if (l && !inplace(tn_at_mul__Tensor(l, a[1].u.obj), l)) Py_CLEAR(l);
    if (l && !inplace(tn_at_exp_(l), l)) Py_CLEAR(l);
    if (l && !inplace(tn_at_log1p_(l), l)) Py_CLEAR(l);
    int64_t red = a[2].u.i;
    PyObject *r;
    if (l && red != 0 && red != 1 && red != 2) {
        /* upstream resizes its output, which apply_loss_reduction returned unreduced, to [] in
         * place: the loss's first element */
        int64_t all = -1;
        PyObject *flat = tn_at_reshape(l, TN_IN(&all, 1));
        r = flat ? tn_at_select_int(flat, 0, 0) : NULL;
        Py_XDECREF(flat);
        if (r) Py_SETREF(r, tn_at_clone(r, NULL));
        Py_DECREF(l);
    } else {
        r = reduce_loss(l, red);
    }
    return out ? tn_out_deliver(r, out, "soft_margin_loss") : r;
}
PyObject *tn_op_soft_margin_loss(tn_value *a) { return soft_margin(a, NULL); }
PyObject *tn_op_soft_margin_loss_out(tn_value *a) { return soft_margin(a, a[3].u.obj); }

/* soft_margin_loss_backward(grad_output, self, target, reduction):
 * z = exp(-target * self); gi = target * z * -norm; gi /= z + 1; gi *= grad_output */
static PyObject *soft_margin_bwd(tn_value *a, PyObject *out) {
    double norm = a[3].u.i == 1 ? 1.0 / (double)tn_numel(TN_T(a[1])) : 1.0;
    PyObject *nt = tn_at_neg(a[2].u.obj);
    PyObject *m = nt ? tn_at_mul_Tensor(nt, a[1].u.obj) : NULL;
    PyObject *z = m ? tn_at_exp(m) : NULL;
    Py_XDECREF(nt); Py_XDECREF(m);
    /* upstream's mul_out(grad_input, target, z): grad_input's overlap checks after z's shape */
    if (z && out && tn_check_overlap(out, 2, (PyObject *const[]){a[2].u.obj, z}) < 0) Py_CLEAR(z);
    /* ... whose product must cast to grad_input's dtype: the functional form's grad_input is
     * empty({0}, self.options()), so an integral or bool self refuses a float product and the
     * result has self's dtype (measured); a float8 grad_input refuses z's promotion in div_ */
    tn_dtype gd = out ? tn_tensor_of(out)->dtype : TN_T(a[1])->dtype;
    if (z) {
        tn_dtype zd = tn_tensor_of(z)->dtype, pd = tn_promote_types(TN_T(a[2])->dtype, zd);
        if (!tn_can_cast(pd, gd)) { tn_cast_error(pd, gd); Py_CLEAR(z); }
        else if (tn_dtype_infos[gd].kind == TN_KIND_FLOAT8 && gd != zd && tn_promote_types_checked(gd, zd) == TN_DTYPE_UNDEFINED)
            Py_CLEAR(z);
    }
    PyObject *gi = z ? tn_at_mul_Tensor(a[2].u.obj, z) : NULL;
    if (gi && !inplace(tn_at_mul__Scalar(gi, TN_SD(-norm)), gi)) Py_CLEAR(gi);
    if (gi && !inplace(tn_at_add__Scalar(z, TN_SI(1), TN_SDEF), z)) Py_CLEAR(gi);
    if (gi && !inplace(tn_at_div__Tensor(gi, z), gi)) Py_CLEAR(gi);
    if (gi && !inplace(tn_at_mul__Tensor(gi, a[0].u.obj), gi)) Py_CLEAR(gi);
    Py_XDECREF(z);
    if (out) return tn_out_deliver(gi, out, "soft_margin_loss_backward");
    if (gi && tn_tensor_of(gi)->dtype != gd) Py_SETREF(gi, tn_as_dtype(gi, gd, false));
    return gi;
}
PyObject *tn_op_soft_margin_loss_backward(tn_value *a) { return soft_margin_bwd(a, NULL); }
PyObject *tn_op_soft_margin_loss_backward_grad_input(tn_value *a) { return soft_margin_bwd(a, a[4].u.obj); }

/* ================================================================ multi margin / multilabel margin */

/* upstream's shape check: non-empty vector or matrix (or 0-dim); nframe, dim */
static int margin_shape(const tn_tensor *x, int64_t *nframe, int64_t *dim) {
    if (!((x->ndim == 2 && x->sizes[1] != 0) || (x->ndim == 1 && x->sizes[0] != 0) || x->ndim == 0)) {
        char s[256];
        tn_shape_str(s, sizeof s, x->ndim, x->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected non-empty vector or matrix with optional 0-dim batch size, but got: %s", s);
        return -1;
    }
    *nframe = x->ndim <= 1 ? 1 : x->sizes[0];
    *dim = x->ndim == 0 ? 1 : x->sizes[x->ndim - 1];
    return 0;
}
/* t as contiguous int64 (upstream reads the data as int64: other dtypes are refused) */
static PyObject *long_target(PyObject *to) {
    tn_tensor *t = tn_tensor_of(to);
    if (t->dtype != TN_DTYPE_I64) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type Long but found %s", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    return tn_as_dtype(to, TN_DTYPE_I64, true);
}
static int scalar_type_check(tn_dtype expected, tn_dtype found) {
    if (expected == found) return 0;
    PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(expected), tn_dtype_cpp_name(found));
    return -1;
}

/* the checks multi_margin_loss forward and backward share; returns the contiguous target and weight */
static int mm_prepare(tn_value *x_v, tn_value *t_v, tn_value *p_v, tn_value *w_v, int64_t *nframe, int64_t *dim,
                      int *p, PyObject **tc, PyObject **wc, const char *kname) {
    tn_tensor *x = TN_T(*x_v), *t = TN_T(*t_v);
    double pv = tn_value_as_double(p_v);
    if (pv != 1 && pv != 2) {
        PyErr_SetString(PyExc_RuntimeError, "only p == 1 and p == 2 supported");
        return -1;
    }
    *p = (int)pv;
    if (margin_shape(x, nframe, dim) < 0) return -1;
    char s[256];
    if (!(t->ndim <= 1 && tn_numel(t) == *nframe)) {
        tn_shape_str(s, sizeof s, t->ndim, t->sizes);
        PyErr_Format(PyExc_RuntimeError, "inconsistent target size, expected %lld but got %s", (long long)*nframe, s);
        return -1;
    }
    if (w_v->tag == TN_V_TENSOR) {
        tn_tensor *w = TN_T(*w_v);
        if (!(w->ndim <= 1 && tn_numel(w) == *dim)) {
            tn_shape_str(s, sizeof s, w->ndim, w->sizes);
            PyErr_Format(PyExc_RuntimeError, "inconsistent weight size, expected %lld but got %s", (long long)*dim, s);
            return -1;
        }
    }
    if (x->dtype != TN_DTYPE_F32 && x->dtype != TN_DTYPE_F64) { tn_kernel_missing(kname, x->dtype); return -1; }
    if (!(*tc = long_target(t_v->u.obj))) return -1;
    if (w_v->tag == TN_V_TENSOR && (scalar_type_check(x->dtype, TN_T(*w_v)->dtype) < 0 ||
                                    !(*wc = tn_as_dtype(w_v->u.obj, x->dtype, true)))) {
        Py_CLEAR(*tc);
        return -1;
    }
    const int64_t *tp = (const int64_t *)tn_data(tn_tensor_of(*tc));
    for (int64_t i = 0; i < *nframe; i++)
        if (tp[i] < 0 || tp[i] >= *dim) {
            PyErr_SetString(PyExc_RuntimeError, "target out of range");
            Py_CLEAR(*tc); Py_CLEAR(*wc);
            return -1;
        }
    return 0;
}

/* multi_margin_loss(self, target, p, margin, weight?, reduction) */
static PyObject *mm_fwd(tn_value *a, PyObject *out) {
    tn_tensor *x = TN_T(a[0]);
    int64_t nframe, dim;
    int p;
    PyObject *tc = NULL, *wc = NULL, *xc = NULL, *res = NULL;
    if (mm_prepare(&a[0], &a[1], &a[2], &a[4], &nframe, &dim, &p, &tc, &wc, "multi_margin_loss_cpu_kernel") < 0) return NULL;
    int64_t red = a[5].u.i;
    bool per_frame = red == 0 && TN_T(a[1])->ndim > 0;
    int64_t osz[1] = {nframe};
    if (!(xc = tn_as_dtype(a[0].u.obj, x->dtype, true))) goto done;
    if (!(res = tn_tensor_new_empty(per_frame ? 1 : 0, osz, x->dtype, TN_DEVICE_CPU))) goto done;
    tn_multi_margin_forward(x->dtype, tn_data(tn_tensor_of(xc)), (const int64_t *)tn_data(tn_tensor_of(tc)), p,
                            tn_value_as_double(&a[3]), wc ? tn_data(tn_tensor_of(wc)) : NULL, nframe, dim, per_frame,
                            red == 1, tn_data(tn_tensor_of(res)));
    res = tn_out_deliver(res, out, "multi_margin_loss");
done:
    Py_XDECREF(tc); Py_XDECREF(wc); Py_XDECREF(xc);
    return res;
}
PyObject *tn_op_multi_margin_loss(tn_value *a) { return mm_fwd(a, NULL); }
PyObject *tn_op_multi_margin_loss_out(tn_value *a) { return mm_fwd(a, a[6].u.obj); }

/* multi_margin_loss_backward(grad_output, self, target, p, margin, weight?, reduction) */
static PyObject *mm_bwd(tn_value *a, PyObject *out) {
    tn_tensor *x = TN_T(a[1]), *g = TN_T(a[0]);
    int64_t nframe, dim;
    int p;
    PyObject *tc = NULL, *wc = NULL, *xc = NULL, *gc = NULL, *res = NULL;
    if (mm_prepare(&a[1], &a[2], &a[3], &a[5], &nframe, &dim, &p, &tc, &wc, "multi_margin_loss_backward_cpu_kernel") < 0)
        return NULL;
    int64_t red = a[6].u.i;
    bool per_frame = !(red != 0 || g->ndim == 0);
    if ((per_frame && tn_numel(g) != nframe) || (!per_frame && tn_numel(g) != 1)) {
        char s[256];
        tn_shape_str(s, sizeof s, g->ndim, g->sizes);
        PyErr_Format(PyExc_RuntimeError, "torchnative: multi_margin_loss_backward: grad_output of shape %s does not fit "
                     "%lld frames", s, (long long)nframe);
        goto done;
    }
    if (scalar_type_check(x->dtype, g->dtype) < 0) goto done;
    if (!(xc = tn_as_dtype(a[1].u.obj, x->dtype, true)) || !(gc = tn_as_dtype(a[0].u.obj, x->dtype, true))) goto done;
    if (!(res = tn_tensor_new_empty(x->ndim, x->sizes, x->dtype, TN_DEVICE_CPU))) goto done;
    tn_multi_margin_backward(x->dtype, tn_data(tn_tensor_of(gc)), per_frame, tn_data(tn_tensor_of(xc)),
                             (const int64_t *)tn_data(tn_tensor_of(tc)), p, tn_value_as_double(&a[4]),
                             wc ? tn_data(tn_tensor_of(wc)) : NULL, nframe, dim, red == 1, tn_data(tn_tensor_of(res)));
    res = tn_out_deliver(res, out, "multi_margin_loss_backward");
done:
    Py_XDECREF(tc); Py_XDECREF(wc); Py_XDECREF(xc); Py_XDECREF(gc);
    return res;
}
PyObject *tn_op_multi_margin_loss_backward(tn_value *a) { return mm_bwd(a, NULL); }
PyObject *tn_op_multi_margin_loss_backward_grad_input(tn_value *a) { return mm_bwd(a, a[7].u.obj); }

/* upstream's `t.min().item<int64_t>() >= lo` and `t.max().item<int64_t>() < hi` (t non-empty): min / max refuse
 * the dtypes without a reduction kernel ("min_all"), a float extremum converts to int64 by truncation, with
 * item's overflow error for NaN or out of range */
static int int_range_check(PyObject *to, int64_t lo, int64_t hi, const char *what) {
    tn_tensor *t = tn_tensor_of(to);
    if (tn_dtype_is_complex(t->dtype) || !tn_dtype_computable(t->dtype)) {
        tn_kernel_missing("min_all", t->dtype);
        return -1;
    }
    bool fl = tn_dtype_is_floating(t->dtype);
    PyObject *c = tn_as_dtype(to, fl ? TN_DTYPE_F64 : TN_DTYPE_I64, true);
    if (!c) return -1;
    int64_t n = tn_numel(t), mn = 0, mx = 0;
    bool over = false;
    if (fl) {
        const double *v = (const double *)tn_data(tn_tensor_of(c));
        double a = v[0], b = v[0];
        for (int64_t i = 1; i < n; i++) {
            if (isnan(v[i]) || v[i] < a) a = isnan(a) ? a : v[i];
            if (isnan(v[i]) || v[i] > b) b = isnan(b) ? b : v[i];
        }
        if (!(a >= -9223372036854775808.0 && a < 9223372036854775808.0) ||
            !(b >= -9223372036854775808.0 && b < 9223372036854775808.0))
            over = true;
        else
            mn = (int64_t)a, mx = (int64_t)b;
    } else {
        const int64_t *v = (const int64_t *)tn_data(tn_tensor_of(c));
        mn = mx = v[0];
        for (int64_t i = 1; i < n; i++) {
            if (v[i] < mn) mn = v[i];
            if (v[i] > mx) mx = v[i];
        }
    }
    Py_DECREF(c);
    if (over) {
        PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type int64_t without overflow");
        return -1;
    }
    if (mn < lo || mx >= hi) {
        PyErr_Format(PyExc_RuntimeError, "%s is out of range", what);
        return -1;
    }
    return 0;
}

/* multilabel_margin_loss checks in upstream's order: shapes (and is_target's, when given); then, for a non-empty
 * input, target in [-1, dim) over target's own dtype and the input's dtype (kname). Returns 1 for an empty input,
 * which upstream returns without reading anything; the caller checks the target's dtype (int64) after. */
static int mlm_prepare(tn_value *x_v, tn_value *t_v, const tn_tensor *it, int64_t *nframe, int64_t *dim,
                       const char *kname, const char *targ) {
    tn_tensor *x = TN_T(*x_v), *t = TN_T(*t_v);
    if (margin_shape(x, nframe, dim) < 0) return -1;
    bool ok = x->ndim <= 1 ? (t->ndim <= 1 && tn_numel(t) == *dim)
                           : (t->ndim == 2 && t->sizes[0] == *nframe && t->sizes[1] == *dim);
    char s1[256], s2[256];
    if (!ok) {
        tn_shape_str(s1, sizeof s1, t->ndim, t->sizes);
        tn_shape_str(s2, sizeof s2, x->ndim, x->sizes);
        PyErr_Format(PyExc_RuntimeError, "inconsistent target size: %s for input of size: %s", s1, s2);
        return -1;
    }
    if (it && !same_shape(it, t->ndim, t->sizes)) {
        tn_shape_str(s1, sizeof s1, t->ndim, t->sizes);
        tn_shape_str(s2, sizeof s2, it->ndim, it->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected tensor for %s to have same size as tensor for argument #5 'is_target'; "
                     "but %s does not equal %s (while checking arguments for multilabel_margin_loss_backward_cpu_template)",
                     targ, s1, s2);
        return -1;
    }
    if (tn_numel(x) == 0) return 1;
    if (int_range_check(t_v->u.obj, -1, *dim, targ) < 0) return -1;
    if (x->dtype != TN_DTYPE_F32 && x->dtype != TN_DTYPE_F64) { tn_kernel_missing(kname, x->dtype); return -1; }
    return 0;
}

/* multilabel_margin_loss_forward(self, target, reduction) -> (output, is_target) */
static PyObject *mlm_fwd(tn_value *a, PyObject *oo, PyObject *io) {
    tn_tensor *x = TN_T(a[0]), *t = TN_T(a[1]);
    int64_t nframe, dim;
    PyObject *tc = NULL, *xc = NULL, *out = NULL, *ist = NULL, *ret = NULL;
    int empty = mlm_prepare(&a[0], &a[1], NULL, &nframe, &dim, "multilabel_margin_loss_forward_out_frame",
                            "argument #2 'target'");
    if (empty < 0 || (!empty && !(tc = long_target(a[1].u.obj)))) return NULL;
    int64_t red = a[2].u.i;
    bool per_frame = !(red != 0 || t->ndim <= 1);
    int64_t osz[1] = {nframe};
    if (!(out = tn_tensor_new_empty(per_frame ? 1 : 0, osz, x->dtype, TN_DEVICE_CPU))) goto done;
    if (!(ist = tn_tensor_new_empty(t->ndim, t->sizes, x->dtype, TN_DEVICE_CPU))) goto done;
    if (!empty) {
        if (!(xc = tn_as_dtype(a[0].u.obj, x->dtype, true))) goto done;
        tn_multilabel_margin_forward(x->dtype, tn_data(tn_tensor_of(xc)), (const int64_t *)tn_data(tn_tensor_of(tc)),
                                     nframe, dim, per_frame, red == 1, tn_data(tn_tensor_of(out)),
                                     tn_data(tn_tensor_of(ist)));
    } else { /* upstream returns the resized output unwritten and is_target zeroed */
        memset(tn_data(tn_tensor_of(out)), 0, (size_t)(per_frame ? nframe : 1) * tn_dtype_itemsize(x->dtype));
        memset(tn_data(tn_tensor_of(ist)), 0, (size_t)tn_numel(t) * tn_dtype_itemsize(x->dtype));
    }
    if (oo) {
        out = tn_out_deliver(out, oo, "multilabel_margin_loss_forward");
        ist = tn_out_deliver(ist, io, "multilabel_margin_loss_forward");
        if (out && ist) ret = PyTuple_Pack(2, out, ist);
    } else {
        ret = tn_return_pair("multilabel_margin_loss_forward", out, ist);
        out = ist = NULL;
    }
done:
    Py_XDECREF(tc); Py_XDECREF(xc); Py_XDECREF(out); Py_XDECREF(ist);
    return ret;
}
PyObject *tn_op_multilabel_margin_loss_forward(tn_value *a) { return mlm_fwd(a, NULL, NULL); }
PyObject *tn_op_multilabel_margin_loss_forward_output(tn_value *a) { return mlm_fwd(a, a[3].u.obj, a[4].u.obj); }

/* multilabel_margin_loss_backward(grad_output, self, target, reduction, is_target), upstream's order: the shapes,
 * an empty input (zeros), target's range, self's dtype, is_target in [0, 1] (as self's dtype), target's dtype,
 * is_target's, then grad_output: with a reduction (or 0-dim) upstream reads its first element whatever its shape
 * (we refuse an empty one rather than read past it), else a [nframe] vector. */
static PyObject *mlm_bwd(tn_value *a, PyObject *out) {
    tn_tensor *g = TN_T(a[0]), *x = TN_T(a[1]), *it = TN_T(a[4]);
    int64_t nframe, dim;
    PyObject *tc = NULL, *xc = NULL, *gc = NULL, *ic = NULL, *res = NULL;
    if (tn_door_on_meta() || (out && tn_tensor_of(out)->storage->device == TN_DEVICE_META)) /* no Meta kernel upstream */
        return tn_meta_no_kernel(out ? "multilabel_margin_loss_backward.grad_input" : "multilabel_margin_loss_backward");
    int empty = mlm_prepare(&a[1], &a[2], it, &nframe, &dim, "multilabel_margin_loss_backward_out_frame",
                            "argument #3 'target'");
    if (empty < 0) return NULL;
    if (empty) {
        if ((res = tn_tensor_new_empty(x->ndim, x->sizes, x->dtype, TN_DEVICE_CPU)))
            res = tn_out_deliver(res, out, "multilabel_margin_loss_backward");
        return res;
    }
    if (tn_dtype_is_complex(it->dtype) || !tn_dtype_computable(it->dtype)) return tn_kernel_missing("min_all", it->dtype);
    if (!(ic = tn_as_dtype(a[4].u.obj, x->dtype, true))) goto done;
    for (int64_t i = 0, n = tn_numel(it); i < n; i++) {
        double v = x->dtype == TN_DTYPE_F32 ? ((const float *)tn_data(tn_tensor_of(ic)))[i]
                                            : ((const double *)tn_data(tn_tensor_of(ic)))[i];
        if (!(v >= 0 && v <= 1)) {
            PyErr_SetString(PyExc_RuntimeError, "argument #5 'is_target' is out of range");
            goto done;
        }
    }
    if (!(tc = long_target(a[2].u.obj)) || scalar_type_check(x->dtype, it->dtype) < 0) goto done;
    int64_t red = a[3].u.i;
    bool per_frame = !(red != 0 || g->ndim == 0);
    if (per_frame && !(g->ndim == 1 && g->sizes[0] == nframe)) {
        PyErr_Format(PyExc_RuntimeError, "Expected a tensor of dimension 1 and tensor.size[0] == %lld but got: dimension %d "
                     "and tensor.size[0] = %lld", (long long)nframe, g->ndim, (long long)(g->ndim ? g->sizes[0] : 0));
        goto done;
    }
    if (scalar_type_check(x->dtype, g->dtype) < 0) goto done;
    if (tn_numel(g) == 0) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: multilabel_margin_loss_backward: grad_output is empty "
                        "(upstream reads its first element)");
        goto done;
    }
    if (!(xc = tn_as_dtype(a[1].u.obj, x->dtype, true)) || !(gc = tn_as_dtype(a[0].u.obj, x->dtype, true))) goto done;
    if (!(res = tn_tensor_new_empty(x->ndim, x->sizes, x->dtype, TN_DEVICE_CPU))) goto done;
    tn_multilabel_margin_backward(x->dtype, tn_data(tn_tensor_of(gc)), per_frame, tn_data(tn_tensor_of(xc)),
                                  (const int64_t *)tn_data(tn_tensor_of(tc)), tn_data(tn_tensor_of(ic)), nframe, dim,
                                  red == 1, tn_data(tn_tensor_of(res)));
    res = tn_out_deliver(res, out, "multilabel_margin_loss_backward");
done:
    Py_XDECREF(tc); Py_XDECREF(xc); Py_XDECREF(gc); Py_XDECREF(ic);
    return res;
}
PyObject *tn_op_multilabel_margin_loss_backward(tn_value *a) { return mlm_bwd(a, NULL); }
PyObject *tn_op_multilabel_margin_loss_backward_grad_input(tn_value *a) { return mlm_bwd(a, a[5].u.obj); }

/* ================================================================ nll_loss2d */

/* upstream's check_inputs_nll_loss2d plus the target dtype / range and weight checks. The
 * kernels are nll_loss's over pixels: input [N, C, H, W] permuted to [N*H*W, C], whose row order
 * is upstream's linear pixel index, so the cascade sum adds in upstream's order. */
static int nll2d_check(tn_tensor *x, tn_tensor *t, tn_value *w_v) {
    char s1[256], s2[256];
    if (t->ndim != 3) {
        PyErr_Format(PyExc_RuntimeError, "only batches of spatial targets supported (3D tensors) but got targets of dimension: %d", t->ndim);
        return -1;
    }
    if (x->ndim != 4) {
        PyErr_Format(PyExc_RuntimeError, "only batches of spatial inputs supported (4D tensors), but got input of dimension: %d", x->ndim);
        return -1;
    }
    if (w_v->tag == TN_V_TENSOR && tn_numel(TN_T(*w_v)) != x->sizes[1]) {
        PyErr_SetString(PyExc_RuntimeError, "weight tensor should be defined either for all or no classes");
        return -1;
    }
    if (x->sizes[0] != t->sizes[0] || x->sizes[2] != t->sizes[1] || x->sizes[3] != t->sizes[2]) {
        tn_shape_str(s1, sizeof s1, x->ndim, x->sizes);
        tn_shape_str(s2, sizeof s2, t->ndim, t->sizes);
        PyErr_Format(PyExc_RuntimeError, "size mismatch (got input: %s , target: %s", s1, s2);
        return -1;
    }
    return 0;
}
/* target as contiguous int64, ranges checked (ignore_index excepted) */
static PyObject *nll2d_target(PyObject *to, int64_t C, int64_t ignore) {
    tn_tensor *t = tn_tensor_of(to);
    if (t->dtype != TN_DTYPE_I64) {
        if (t->dtype == TN_DTYPE_U8) PyErr_SetString(PyExc_RuntimeError, "expected scalar type Long but found Byte");
        else PyErr_Format(PyExc_RuntimeError, "expected target dtype to be Long or Byte, but got %s", tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    PyObject *tc = tn_as_dtype(to, TN_DTYPE_I64, true);
    if (!tc) return NULL;
    const int64_t *tp = (const int64_t *)tn_data(tn_tensor_of(tc));
    for (int64_t i = 0; i < tn_numel(t); i++)
        if (tp[i] != ignore && (tp[i] < 0 || tp[i] >= C)) {
            PyErr_Format(PyExc_IndexError, "Target %lld is out of bounds.", (long long)tp[i]);
            Py_DECREF(tc);
            return NULL;
        }
    return tc;
}
/* [N, C, H, W] -> contiguous [N, H, W, C] */
static PyObject *channels_last_rows(PyObject *x) {
    PyObject *p = tn_at_permute(x, TN_IS(0, 2, 3, 1));
    PyObject *c = p ? tn_as_dtype(p, tn_tensor_of(p)->dtype, true) : NULL;
    Py_XDECREF(p);
    return c;
}

/* nll_loss2d_forward(self, target, weight?, reduction, ignore_index) -> (output, total_weight) */
static PyObject *nll2d_fwd(tn_value *a, PyObject *oo, PyObject *two) {
    tn_tensor *x = TN_T(a[0]), *t = TN_T(a[1]);
    if (nll2d_check(x, t, &a[2]) < 0) return NULL;
    int64_t C = x->sizes[1], red = a[3].u.i, ignore = a[4].u.i;
    PyObject *tc = NULL, *xc = NULL, *wc = NULL, *out = NULL, *tw = NULL, *ret = NULL;
    if (!(tc = nll2d_target(a[1].u.obj, C, ignore))) goto done;
    if (!tn_nn_float(x->dtype)) { tn_kernel_missing("nll_loss2d_forward_out_frame", x->dtype); goto done; }
    if (a[2].tag == TN_V_TENSOR && (scalar_type_check(x->dtype, TN_T(a[2])->dtype) < 0 ||
                                    !(wc = tn_as_dtype(a[2].u.obj, x->dtype, true))))
        goto done;
    if (!(xc = channels_last_rows(a[0].u.obj))) goto done;
    if (!(out = tn_tensor_new_empty(red == 0 ? 3 : 0, t->sizes, x->dtype, TN_DEVICE_CPU))) goto done;
    if (!(tw = tn_tensor_new_empty(0, t->sizes, x->dtype, TN_DEVICE_CPU))) goto done;
    tn_nll_loss_forward(x->dtype, tn_data(tn_tensor_of(xc)), (const int64_t *)tn_data(tn_tensor_of(tc)),
                        wc ? tn_data(tn_tensor_of(wc)) : NULL, tn_numel(t), C, ignore, red == 0 ? 0 : red == 1 ? 1 : 2,
                        tn_data(tn_tensor_of(out)), tn_data(tn_tensor_of(tw)));
    if (oo) {
        out = tn_out_deliver(out, oo, "nll_loss2d_forward");
        tw = tn_out_deliver(tw, two, "nll_loss2d_forward");
        if (out && tw) ret = PyTuple_Pack(2, out, tw);
    } else {
        ret = tn_return_pair("nll_loss2d_forward", out, tw);
        out = tw = NULL;
    }
done:
    Py_XDECREF(tc); Py_XDECREF(xc); Py_XDECREF(wc); Py_XDECREF(out); Py_XDECREF(tw);
    return ret;
}
PyObject *tn_op_nll_loss2d_forward(tn_value *a) { return nll2d_fwd(a, NULL, NULL); }
PyObject *tn_op_nll_loss2d_forward_output(tn_value *a) { return nll2d_fwd(a, a[5].u.obj, a[6].u.obj); }

/* nll_loss2d_backward(grad_output, self, target, weight?, reduction, ignore_index, total_weight) */
static PyObject *nll2d_bwd(tn_value *a, PyObject *outo) {
    tn_tensor *g = TN_T(a[0]), *x = TN_T(a[1]), *t = TN_T(a[2]), *tw = TN_T(a[6]);
    char s[256];
    /* on meta, upstream's decomposition asserts the input's dims, then the target's
     * (docs/breadth_more2.md "group meta (session 40)") */
    if (tn_door_on_meta() && x->ndim != 4)
        return PyErr_Format(PyExc_AssertionError, "only batches of spatial inputs supported (4D tensors), but got input of "
                            "dimension: %d", x->ndim);
    if (tn_door_on_meta() && t->ndim != 3)
        return PyErr_Format(PyExc_AssertionError, "only batches of spatial targets supported (3D tensors) but got targets of "
                            "dimension: %d", t->ndim);
    if (nll2d_check(x, t, &a[3]) < 0) return NULL;
    if (tn_numel(tw) != 1) {
        tn_shape_str(s, sizeof s, tw->ndim, tw->sizes);
        PyErr_Format(PyExc_RuntimeError, "expected total_weight to be a single element tensor, got: %s (%lld elements)",
                     s, (long long)tn_numel(tw));
        return NULL;
    }
    int64_t C = x->sizes[1], red = a[4].u.i, ignore = a[5].u.i;
    if (red == 0) {
        if (g->ndim != 3) {
            tn_shape_str(s, sizeof s, g->ndim, g->sizes);
            PyErr_Format(PyExc_RuntimeError, "grad_output must have same dimension as target (3) but got dimension: %s", s);
            return NULL;
        }
        for (int d = 0; d < 3; d++)
            if (g->sizes[d] != t->sizes[d]) {
                PyErr_Format(PyExc_RuntimeError, "Expected tensor to have size %lld at dimension %d, but got size %lld for "
                             "argument #1 'grad_output' (while checking arguments for nll_loss2d_backward_out_frame)",
                             (long long)t->sizes[d], d, (long long)g->sizes[d]);
                return NULL;
            }
    } else if (g->ndim > 1 || tn_numel(g) != 1) {
        tn_shape_str(s, sizeof s, g->ndim, g->sizes);
        PyErr_Format(PyExc_RuntimeError, "Expected a single element grad_output tensor, but got: %s", s);
        return NULL;
    }
    PyObject *tc = NULL, *wc = NULL, *gc = NULL, *twc = NULL, *res = NULL, *ret = NULL;
    if (!(tc = nll2d_target(a[2].u.obj, C, ignore))) goto done;
    if (!tn_nn_float(x->dtype)) { tn_kernel_missing("nll_loss2d_backward_out_frame", x->dtype); goto done; }
    if (a[3].tag == TN_V_TENSOR && (scalar_type_check(x->dtype, TN_T(a[3])->dtype) < 0 ||
                                    !(wc = tn_as_dtype(a[3].u.obj, x->dtype, true))))
        goto done;
    if (scalar_type_check(x->dtype, g->dtype) < 0) goto done;
    if (red != 0 && scalar_type_check(x->dtype, tw->dtype) < 0) goto done;
    if (!(gc = tn_as_dtype(a[0].u.obj, x->dtype, true)) || !(twc = tn_as_dtype(a[6].u.obj, x->dtype, true))) goto done;
    int64_t rs[4] = {x->sizes[0], x->sizes[2], x->sizes[3], C};
    if (!(res = tn_tensor_new_empty(4, rs, x->dtype, TN_DEVICE_CPU))) goto done;
    memset(tn_data(tn_tensor_of(res)), 0, (size_t)(tn_numel(x) * tn_dtype_itemsize(x->dtype)));
    tn_nll_loss_backward(x->dtype, tn_data(tn_tensor_of(gc)), 1, (const int64_t *)tn_data(tn_tensor_of(tc)),
                         wc ? tn_data(tn_tensor_of(wc)) : NULL, tn_data(tn_tensor_of(twc)), tn_numel(t), C, ignore,
                         red == 0 ? 0 : red == 1 ? 1 : 2, red == 0, tn_data(tn_tensor_of(res)));
    {   /* back to [N, C, H, W], contiguous */
        PyObject *p = tn_at_permute(res, TN_IS(0, 3, 1, 2));
        PyObject *c = p ? tn_as_dtype(p, x->dtype, true) : NULL;
        Py_XDECREF(p);
        ret = c ? tn_out_deliver(c, outo, "nll_loss2d_backward") : NULL;
    }
done:
    Py_XDECREF(tc); Py_XDECREF(wc); Py_XDECREF(gc); Py_XDECREF(twc); Py_XDECREF(res);
    return ret;
}
PyObject *tn_op_nll_loss2d_backward(tn_value *a) { return nll2d_bwd(a, NULL); }
PyObject *tn_op_nll_loss2d_backward_grad_input(tn_value *a) { return nll2d_bwd(a, a[7].u.obj); }

/* ================================================================ CTC */

/* lengths from an int[] value or an integral tensor (as contiguous int64); *buf owns them */
static int ctc_lengths(tn_value *v, const char *what, PyObject **buf, const int64_t **out, int64_t *n) {
    if (v->tag == TN_V_TENSOR) {
        tn_tensor *t = TN_T(*v);
        if (!tn_dtype_is_integral(t->dtype, false)) {
            PyErr_Format(PyExc_RuntimeError, "%s must be integral", what);
            return -1;
        }
        if (!(*buf = tn_as_dtype(v->u.obj, TN_DTYPE_I64, true))) return -1;
        *out = (const int64_t *)tn_data(tn_tensor_of(*buf));
        *n = tn_numel(t);
        return 0;
    }
    *buf = NULL;
    *out = v->u.ints.v;
    *n = v->u.ints.n;
    return 0;
}

typedef struct {
    PyObject *il_buf, *tl_buf, *tg;   /* owned */
    const int64_t *il, *tl;
    int64_t T, B, C, S, tg_stride, offsets[4096];
} ctc_args;

static void ctc_release(ctc_args *c) { Py_XDECREF(c->il_buf); Py_XDECREF(c->tl_buf); Py_XDECREF(c->tg); }

/* upstream's checks (ctc_loss_cpu) and the admin bits: batch offsets into the targets */
static int ctc_prepare(tn_value *lp_v, tn_value *tg_v, tn_value *il_v, tn_value *tl_v, int64_t blank, bool fwd,
                       ctc_args *c) {
    memset(c, 0, sizeof *c);
    tn_tensor *lp = TN_T(*lp_v), *tg = TN_T(*tg_v);
    int64_t nil, ntl;
    if (ctc_lengths(il_v, "input_lengths", &c->il_buf, &c->il, &nil) < 0 ||
        ctc_lengths(tl_v, "target_lengths", &c->tl_buf, &c->tl, &ntl) < 0)
        return -1;
    if (lp->dtype != TN_DTYPE_F32 && lp->dtype != TN_DTYPE_F64) {
        tn_kernel_missing(fwd ? "ctc_loss_cpu" : "ctc_loss_backward_cpu", lp->dtype);
        return -1;
    }
    /* the backward reads log_probs.size(0..2) before its argument checks: IndexError for fewer
     * than 3 dims (docs/breadth_more2.md "Fuzz corpus exception types"); on meta upstream has no kernel */
    if (!fwd && !tn_door_on_meta())
        for (int d = 0; d < 3; d++)
            if (tn_size_read(lp, d) < 0) return -1;
    const char *from = fwd ? "ctc_loss_cpu" : "ctc_loss_backward_cpu";
    if (tg->dtype != TN_DTYPE_I64 && tg->dtype != TN_DTYPE_I32) {
        PyErr_Format(PyExc_RuntimeError, "Expected tensor for argument #2 'targets' to have scalar type Int; but got "
                     "torch.%sTensor instead (while checking arguments for %s)", tn_dtype_cpp_name(tg->dtype), from);
        return -1;
    }
    if (lp->ndim != 3) {
        PyErr_Format(PyExc_RuntimeError, "Expected %d-dimensional tensor, but got %d-dimensional tensor for argument #1 "
                     "'log_probs' (while checking arguments for %s)", 3, lp->ndim, from);
        return -1;
    }
    if (tg->ndim < 1 || tg->ndim > 2) {
        PyErr_Format(PyExc_RuntimeError, "Expected 1 to 2 dimensions, but got %d-dimensional tensor for argument #2 "
                     "'targets' (while checking arguments for %s)", tg->ndim, from);
        return -1;
    }
    c->T = lp->sizes[0];
    c->B = lp->sizes[1];
    c->C = lp->sizes[2];
    if (c->B > 4096) { tn_not_implemented("ctc_loss with a batch of more than 4096"); return -1; }
    if (!(0 <= blank && blank < c->C)) {
        PyErr_SetString(PyExc_RuntimeError, "blank must be in label range");
        return -1;
    }
    if (nil != c->B) { PyErr_SetString(PyExc_RuntimeError, "input_lengths must be of size batch_size"); return -1; }
    if (ntl != c->B) { PyErr_SetString(PyExc_RuntimeError, "target_lengths must be of size batch_size"); return -1; }
    if (!(c->tg = tn_as_dtype(tg_v->u.obj, TN_DTYPE_I64, true))) return -1;
    int64_t maxtl = 0;
    for (int64_t b = 0; b < c->B; b++) {
        if (c->tl[b] < 0) {
            PyErr_Format(PyExc_RuntimeError, "Expected target_lengths to have value at least 0, but got value %lld "
                         "(while checking arguments for %s)", (long long)c->tl[b], from);
            return -1;
        }
        if (c->tl[b] > maxtl) maxtl = c->tl[b];
    }
    if (tg->ndim == 1) {
        int64_t pos = 0;
        for (int64_t b = 0; b < c->B; b++) { c->offsets[b] = pos; pos += c->tl[b]; }
        c->tg_stride = 1;
        if (fwd && tg->sizes[0] != pos) {
            PyErr_Format(PyExc_RuntimeError, "Expected tensor to have size %lld at dimension 0, but got size %lld for "
                         "argument #2 'targets' (while checking arguments for %s)", (long long)pos,
                         (long long)tg->sizes[0], from);
            return -1;
        }
    } else {
        for (int64_t b = 0; b < c->B; b++) c->offsets[b] = b * tg->sizes[1];
        c->tg_stride = 1;
        if (fwd && tg->sizes[0] != c->B) {
            PyErr_Format(PyExc_RuntimeError, "Expected tensor to have size %lld at dimension 0, but got size %lld for "
                         "argument #2 'targets' (while checking arguments for %s)", (long long)c->B,
                         (long long)tg->sizes[0], from);
            return -1;
        }
        if (fwd && tg->sizes[1] < maxtl) {
            PyErr_Format(PyExc_RuntimeError, "Expected tensor to have size at least %lld at dimension 1, but got size "
                         "%lld for argument #2 'targets' (while checking arguments for %s)", (long long)maxtl,
                         (long long)tg->sizes[1], from);
            return -1;
        }
        if (!fwd) maxtl = tg->sizes[1];
    }
    for (int64_t b = 0; b < c->B; b++) {
        if (c->il[b] < 0 || c->il[b] > c->T) {
            PyErr_Format(PyExc_RuntimeError, "Expected input_lengths to have value at %s %lld, but got value %lld "
                         "(while checking arguments for %s)", c->il[b] < 0 ? "least" : "most",
                         (long long)(c->il[b] < 0 ? 0 : c->T), (long long)c->il[b], from);
            return -1;
        }
    }
    /* target labels are read for the positions the recursions visit: they must index log_probs */
    const int64_t *tp = (const int64_t *)tn_data(tn_tensor_of(c->tg));
    for (int64_t b = 0; b < c->B; b++)
        for (int64_t k = 0; k < c->tl[b] && c->il[b] > 0; k++) {
            int64_t idx = c->offsets[b] + c->tg_stride * k;
            if (idx >= tn_numel(tg) || tp[idx] < 0 || tp[idx] >= c->C) {
                PyErr_Format(PyExc_IndexError, "torchnative: ctc_loss: target label %lld out of range [0, %lld)",
                             idx < tn_numel(tg) ? (long long)tp[idx] : -1LL, (long long)c->C);
                return -1;
            }
        }
    c->S = 2 * maxtl + 1;
    return 0;
}

/* _ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, zero_infinity)
 *   -> (neg_log_likelihood [B], log_alpha [B, T, 2 * max_target_length + 1]) */
static PyObject *ctc_fwd(tn_value *a) {
    tn_tensor *lp = TN_T(a[0]);
    ctc_args c;
    PyObject *lpc = NULL, *nll = NULL, *la = NULL, *ret = NULL;
    if (ctc_prepare(&a[0], &a[1], &a[2], &a[3], a[4].u.i, true, &c) < 0) goto done;
    int64_t ls[3] = {c.B, c.T, c.S};
    if (!(lpc = tn_as_dtype(a[0].u.obj, lp->dtype, true))) goto done;
    if (!(nll = tn_tensor_new_empty(1, &c.B, lp->dtype, TN_DEVICE_CPU))) goto done;
    if (!(la = tn_tensor_new_empty(3, ls, lp->dtype, TN_DEVICE_CPU))) goto done;
    tn_ctc_loss_forward(lp->dtype, tn_data(tn_tensor_of(lpc)), (const int64_t *)tn_data(tn_tensor_of(c.tg)), c.offsets,
                        c.tg_stride, c.il, c.tl, c.T, c.B, c.C, c.S, a[4].u.i, tn_data(tn_tensor_of(nll)),
                        tn_data(tn_tensor_of(la)));
    ret = PyTuple_Pack(2, nll, la);
done:
    ctc_release(&c);
    Py_XDECREF(lpc); Py_XDECREF(nll); Py_XDECREF(la);
    return ret;
}
PyObject *tn_op__ctc_loss(tn_value *a) { return ctc_fwd(a); }
PyObject *tn_op__ctc_loss_Tensor(tn_value *a) { return ctc_fwd(a); }

/* _ctc_loss_backward(grad, log_probs, targets, input_lengths, target_lengths, neg_log_likelihood,
 *                    log_alpha, blank, zero_infinity) */
static PyObject *ctc_bwd(tn_value *a) {
    tn_tensor *lp = TN_T(a[1]), *g = TN_T(a[0]), *nllt = TN_T(a[5]), *lat = TN_T(a[6]);
    ctc_args c;
    PyObject *lpc = NULL, *gc = NULL, *nc = NULL, *lac = NULL, *lb = NULL, *res = NULL, *ret = NULL;
    if (ctc_prepare(&a[1], &a[2], &a[3], &a[4], a[7].u.i, false, &c) < 0) goto done;
    if (lat->ndim != 3 || lat->sizes[0] != c.B || lat->sizes[1] != c.T || tn_numel(nllt) != c.B ||
        tn_numel(g) != c.B) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: _ctc_loss_backward: grad / neg_log_likelihood / log_alpha do "
                                            "not have the forward's shapes");
        goto done;
    }
    if (scalar_type_check(lp->dtype, g->dtype) < 0 || scalar_type_check(lp->dtype, nllt->dtype) < 0 ||
        scalar_type_check(lp->dtype, lat->dtype) < 0)
        goto done;
    c.S = lat->sizes[2];
    for (int64_t b = 0; b < c.B; b++)
        if (2 * c.tl[b] + 1 > c.S) {
            PyErr_SetString(PyExc_RuntimeError, "torchnative: _ctc_loss_backward: a target length exceeds log_alpha's");
            goto done;
        }
    if (!(lpc = tn_as_dtype(a[1].u.obj, lp->dtype, true)) || !(gc = tn_as_dtype(a[0].u.obj, lp->dtype, true)) ||
        !(nc = tn_as_dtype(a[5].u.obj, lp->dtype, true)) || !(lac = tn_as_dtype(a[6].u.obj, lp->dtype, true)))
        goto done;
    if (!(lb = tn_tensor_new_empty(3, lat->sizes, lp->dtype, TN_DEVICE_CPU))) goto done;
    if (!(res = tn_tensor_new_empty(3, lp->sizes, lp->dtype, TN_DEVICE_CPU))) goto done;
    tn_ctc_loss_backward(lp->dtype, tn_data(tn_tensor_of(gc)), 1, tn_data(tn_tensor_of(lpc)),
                         (const int64_t *)tn_data(tn_tensor_of(c.tg)), c.offsets, c.tg_stride, c.il, c.tl,
                         tn_data(tn_tensor_of(nc)), tn_data(tn_tensor_of(lac)), c.T, c.B, c.C, c.S, a[7].u.i,
                         a[8].u.i != 0, tn_data(tn_tensor_of(lb)), tn_data(tn_tensor_of(res)));
    ret = res;
    res = NULL;
done:
    ctc_release(&c);
    Py_XDECREF(lpc); Py_XDECREF(gc); Py_XDECREF(nc); Py_XDECREF(lac); Py_XDECREF(lb); Py_XDECREF(res);
    return ret;
}
PyObject *tn_op__ctc_loss_backward(tn_value *a) { return ctc_bwd(a); }
PyObject *tn_op__ctc_loss_backward_Tensor(tn_value *a) { return ctc_bwd(a); }
