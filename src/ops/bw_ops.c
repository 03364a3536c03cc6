/* ops/bw_ops.c — aten backward operators that upstream writes as compositions of other ops
 * (trace_backward, index_select_backward, gather_backward, masked_select_backward,
 * cummaxmin_backward: CompositeImplicitAutograd; diagonal_backward: CompositeExplicitAutograd),
 * and the reflection / replication pad backward kernels' op layer,
 * so the formulas generated from derivatives.yaml can call them (docs/bw_formulas.md).
 *
 * Each calls the ops upstream's composite calls, through the typed op API, in upstream's order.
 * Where upstream's composite takes an out-of-place variant for a tensor subclass
 * (`isTensorSubclassLike`, true while a dispatch mode is active), so do these. The composite
 * ones are also their own decompositions (autograd/decomp.c), so a double backward records
 * the ops they call. */
#include "ops/bw_ops.h"

#include "kernels/pad_backward.h"

#include "autograd/autograd.h"
#include "dispatch/modes.h"
#include "ops/common.h"
#include "tn_ops_gen.h"

#include <stdio.h>
#include <string.h>

/* upstream's isTensorSubclassLike on plain tensors: a dispatch mode is active */
static bool subclass_like(void) { return tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled(); }

/* tensor.options() as a factory records it: dtype, strided, CPU */
#define OPTS(dt) TN_DT(dt), tn_py.layout_strided, tn_py.device_cpu, NULL

/* trace_backward(grad, sizes): zeros(M * N) with grad's options, grad filled in at the min(M, N)
 * diagonal positions arange(0, min(M, N) * (N + 1), N + 1), viewed as sizes */
PyObject *tn_op_trace_backward(tn_value *a) {
    const tn_value *sz = &a[1];
    if (sz->u.ints.n != 2) {
        PyErr_SetString(PyExc_RuntimeError, "expected matrix input");
        return NULL;
    }
    const int64_t m = sz->u.ints.v[0], n = sz->u.ints.v[1], step = n + 1, diag = m < n ? m : n;
    const int64_t numel = m * n;
    PyObject *g = a[0].u.obj;
    PyObject *z = tn_at_zeros(TN_IN(&numel, 1), OPTS(tn_tensor_of(g)->dtype));
    PyObject *idx = z ? tn_at_arange_start_step(TN_SI(0), TN_SI(diag * step), TN_SI(step), OPTS(TN_DTYPE_I64)) : NULL;
    PyObject *f = NULL, *r = NULL;
    if (idx) f = subclass_like() ? tn_at_index_fill_int_Tensor(z, 0, idx, g) : tn_at_index_fill__int_Tensor(z, 0, idx, g);
    if (f) r = tn_at_view(f, tn_ints_of(sz));
    Py_XDECREF(z);
    Py_XDECREF(idx);
    Py_XDECREF(f);
    return r;
}

/* diagonal_backward(grad_output, input_sizes, offset, dim1, dim2): zeros(input_sizes) with grad's
 * options, grad copied into its diagonal */
PyObject *tn_op_diagonal_backward(tn_value *a) {
    PyObject *g = a[0].u.obj;
    PyObject *z = tn_at_zeros(tn_ints_of(&a[1]), OPTS(tn_tensor_of(g)->dtype));
    PyObject *d = z ? tn_at_diagonal(z, a[2].u.i, a[3].u.i, a[4].u.i) : NULL;
    PyObject *c = d ? tn_at_copy_(d, g, false) : NULL;
    Py_XDECREF(d);
    if (!c) {
        Py_XDECREF(z);
        return NULL;
    }
    Py_DECREF(c);
    return z;
}

/* index_select_backward(grad, self_sizes, dim, index): grad.new_zeros(self_sizes, grad.options())
 * .index_add_(dim, index, grad) (index_add for a subclass-like index) */
PyObject *tn_op_index_select_backward(tn_value *a) {
    PyObject *g = a[0].u.obj, *index = a[3].u.obj;
    PyObject *z = tn_at_new_zeros(g, tn_ints_of(&a[1]), OPTS(tn_tensor_of(g)->dtype));
    if (!z) return NULL;
    PyObject *r = subclass_like() ? tn_at_index_add(z, a[2].u.i, index, g, TN_SDEF) : tn_at_index_add_(z, a[2].u.i, index, g, TN_SDEF);
    Py_DECREF(z);
    return r;
}

/* result.scatter_add_(dim, index, src), or scatter_add for subclass-like arguments; steals result */
static PyObject *scatter_add_into(PyObject *result, int64_t dim, PyObject *index, PyObject *src) {
    if (!result) return NULL;
    PyObject *r = subclass_like() ? tn_at_scatter_add(result, dim, index, src) : tn_at_scatter_add_(result, dim, index, src);
    Py_DECREF(result);
    return r;
}

/* gather_backward(grad, self, dim, index, sparse_grad): grad.new_zeros(self.sizes())
 * .scatter_add_(dim, index, grad); sparse_grad: _gather_sparse_backward */
PyObject *tn_op_gather_backward(tn_value *a) {
    PyObject *g = a[0].u.obj, *self = a[1].u.obj, *index = a[3].u.obj;
    if (a[4].u.i) return tn_at__gather_sparse_backward(self, a[2].u.i, index, g);
    const tn_tensor *st = tn_tensor_of(self);
    PyObject *z = tn_at_new_zeros(g, TN_IN(st->sizes, st->ndim), NULL, NULL, NULL, NULL);
    return scatter_add_into(z, a[2].u.i, index, g);
}

/* masked_select_backward(grad, input, mask): zeros_like(input.expand(infer_size(input, mask)))
 * .masked_scatter_(mask, grad) (masked_scatter for subclass-like arguments) */
PyObject *tn_op_masked_select_backward(tn_value *a) {
    PyObject *g = a[0].u.obj, *input = a[1].u.obj, *mask = a[2].u.obj;
    const tn_tensor *it = tn_tensor_of(input), *mt = tn_tensor_of(mask);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_shapes_checked(it->ndim, it->sizes, mt->ndim, mt->sizes, &nd, shape) < 0) return NULL;
    PyObject *e = tn_at_expand(input, TN_IN(shape, nd), false);
    PyObject *z = e ? tn_at_zeros_like(e, NULL, NULL, NULL, NULL, tn_py.memory_format_preserve) : NULL;
    Py_XDECREF(e);
    if (!z) return NULL;
    PyObject *r = subclass_like() ? tn_at_masked_scatter(z, mask, g) : tn_at_masked_scatter_(z, mask, g);
    Py_DECREF(z);
    return r;
}

/* cummaxmin_backward(grad, input, indices, dim): input itself when empty; else zeros of input's
 * sizes and options, .scatter_add_(dim, indices, grad) */
PyObject *tn_op_cummaxmin_backward(tn_value *a) {
    PyObject *g = a[0].u.obj, *input = a[1].u.obj, *indices = a[2].u.obj;
    const tn_tensor *t = tn_tensor_of(input);
    if (tn_numel(t) == 0) return Py_NewRef(input);
    PyObject *z = tn_at_zeros(TN_IN(t->sizes, t->ndim), OPTS(t->dtype));
    return scatter_add_into(z, a[3].u.i, indices, g);
}

/* ---- cumprod_backward(grad, input, dim, output): upstream's three paths, op by op ---- */

/* a pool of temporaries released together (the ops fail without running once one failed) */
typedef struct { PyObject *v[48]; int n; } tmps;
static PyObject *keep(tmps *t, PyObject *x) {
    if (x && t->n < 48) t->v[t->n++] = x;
    else if (x) {
        Py_DECREF(x);
        x = NULL;
        PyErr_SetString(PyExc_RuntimeError, "cumprod_backward: too many temporaries");
    }
    return x;
}
static void drop(tmps *t) {
    while (t->n) Py_DECREF(t->v[--t->n]);
}
#define K(x) keep(&T, (x))

/* w.flip(dim).cumsum(dim).flip(dim) */
static PyObject *reversed_cumsum(tmps *t, PyObject *w, int64_t dim) {
    PyObject *f = keep(t, tn_at_flip(w, TN_IN(&dim, 1)));
    PyObject *c = f ? keep(t, tn_at_cumsum(f, dim, NULL)) : NULL;   /* its dtype refusal is the op's */
    return c ? keep(t, tn_at_flip(c, TN_IN(&dim, 1))) : NULL;
}
/* x.conj(): a conjugate view of a complex tensor, x itself otherwise (nothing recorded) */
static PyObject *conj_of(tmps *tp, PyObject *x) {
    if (!tn_dtype_is_complex(tn_tensor_of(x)->dtype)) return x;
    return keep(tp, tn_at_conj(x));
}

PyObject *tn_op_cumprod_backward(tn_value *a) {
    PyObject *grad = a[0].u.obj, *input = a[1].u.obj, *output = a[3].u.obj;
    const tn_tensor *it = tn_tensor_of(input);
    if (tn_numel(it) <= 1) return Py_NewRef(grad);
    int64_t dim;
    if (tn_wrap_dim(a[2].u.i, it->ndim, &dim) < 0) return NULL;
    const int64_t n = it->sizes[dim];
    if (n == 1) return Py_NewRef(grad);
    tmps T = {.n = 0};
    PyObject *r = NULL;
    PyObject *in_c = conj_of(&T, input), *out_c = in_c ? conj_of(&T, output) : NULL;
    const bool sub = subclass_like();
    PyObject *w = K(tn_at_mul_Tensor(out_c, grad));
    PyObject *is_zero = K(tn_at_eq_Scalar(input, TN_SI(0)));
    if (!is_zero) goto done;
    if (!sub) {
        PyObject *any = K(tn_at_item(K(tn_at_any(is_zero))));
        if (!any) goto done;
        if (!PyObject_IsTrue(any)) {
            PyObject *rc = reversed_cumsum(&T, w, dim);   /* NULL keeps cumsum's own error */
            r = rc ? tn_at_div_Tensor(rc, in_c) : NULL;
            goto done;
        }
    }
    const tn_dtype gdt = tn_tensor_of(grad)->dtype;
    if (!tn_grad_enabled()) {   /* the O(n) path: masks around the first zero, out of place (where) */
        PyObject *gi = K(tn_at_zeros(TN_IN(it->sizes, it->ndim), OPTS(gdt)));
        PyObject *cs = K(tn_at_cumsum(is_zero, dim, NULL));
        PyObject *mask = K(tn_at_eq_Scalar(cs, TN_SI(0)));
        PyObject *wm = K(tn_at_masked_fill_Scalar(w, K(tn_at_bitwise_not(mask)), TN_SD(0.0)));
        PyObject *rc = wm ? reversed_cumsum(&T, wm, dim) : NULL;
        if (!rc) goto done;
        gi = K(tn_at_where_self(mask, K(tn_at_div_Tensor(rc, in_c)), gi));
        mask = K(tn_at_eq_Scalar(cs, TN_SI(1)));
        PyObject *mx = K(tn_at_max_dim(mask, dim, true));
        PyObject *fzi = mx ? PyTuple_GetItem(mx, 1) : NULL;
        PyObject *fzm = K(tn_at_logical_and_(K(tn_at_scatter__value(K(tn_at_zeros_like(mask, NULL, NULL, NULL, NULL, NULL)), dim, fzi, TN_SI(1))), mask));
        K(tn_at_bitwise_and__Tensor(mask, K(tn_at_bitwise_not(fzm))));
        /* upstream's order: the cumprod, the masked grad and the gathered output, then the products */
        PyObject *cp = K(tn_at_cumprod(K(tn_at_masked_fill_Scalar(in_c, K(tn_at_bitwise_not(mask)), TN_SD(1.0))), dim, NULL));
        PyObject *gm = K(tn_at_masked_fill_Scalar(grad, K(tn_at_ne_Scalar(cs, TN_SI(1))), TN_SD(0.0)));
        PyObject *ga = K(tn_at_gather(out_c, dim, K(tn_at_relu_(K(tn_at_sub_Scalar(fzi, TN_SI(1), TN_SDEF)))), false));
        K(tn_at_masked_fill__Scalar(ga, K(tn_at_eq_Scalar(fzi, TN_SI(0))), TN_SD(1.0)));
        PyObject *sm = K(tn_at_sum_dim_IntList(K(tn_at_mul_Tensor(cp, gm)), TN_IN(&dim, 1), true, NULL));
        r = tn_at_where_self(fzm, K(tn_at_mul_Tensor(sm, ga)), gi);
        goto done;
    }
    /* grad mode (double backward) or a subclass: the O(n^2) path, differentiable */
    PyObject *gi = sub ? NULL : K(tn_at_zeros(TN_IN(it->sizes, it->ndim), OPTS(gdt)));
    PyObject *slices = sub ? K(PyList_New(0)) : NULL;
    int64_t osz[TN_MAX_DIMS];
    for (int d = 0; d < it->ndim; d++) osz[d] = it->sizes[d];
    osz[dim] = 1;
    const int64_t one = 1;
    PyObject *ones = K(tn_at_expand(K(tn_at_ones(TN_IN(&one, 1), OPTS(gdt))), TN_IN(osz, it->ndim), false));
    if (!ones || (sub && !slices) || (!sub && !gi)) goto done;
    for (int64_t k = 0; k < n; k++) {
        tmps L = {.n = 0};
        PyObject *om;
#define KL(x) keep(&L, (x))
        /* each step only once the one before succeeded: a refusal (cumprod's dtype) stays the op's */
        PyObject *sl, *pf = NULL, *pu = NULL, *ex, *pr, *gk, *gm;
        if (k == 0) {
            sl = KL(tn_at_slice_Tensor(in_c, dim, TN_I(1), NULL, 1));
            pf = sl ? KL(tn_at_cumprod(sl, dim, NULL)) : NULL;
            om = pf ? KL(tn_at_cat(TN_TS(ones, pf), dim)) : NULL;
        } else if (k == n - 1) {
            sl = KL(tn_at_slice_Tensor(in_c, dim, TN_I(0), TN_I(k), 1));
            om = sl ? KL(tn_at_prod_dim_int(sl, dim, true, NULL)) : NULL;
        } else {
            sl = KL(tn_at_slice_Tensor(in_c, dim, TN_I(0), TN_I(k), 1));
            pu = sl ? KL(tn_at_prod_dim_int(sl, dim, true, NULL)) : NULL;
            sl = pu ? KL(tn_at_slice_Tensor(in_c, dim, TN_I(k + 1), NULL, 1)) : NULL;
            pf = sl ? KL(tn_at_cumprod(sl, dim, NULL)) : NULL;
            ex = pf ? KL(tn_at_expand_as(pu, pf)) : NULL;
            pr = ex ? KL(tn_at_mul_Tensor(ex, pf)) : NULL;
            om = pr ? KL(tn_at_cat(TN_TS(pu, pr), dim)) : NULL;
        }
        gk = om ? KL(tn_at_slice_Tensor(grad, dim, TN_I(k), NULL, 1)) : NULL;
        gm = gk ? KL(tn_at_mul_Tensor(gk, om)) : NULL;
        PyObject *gs = gm ? KL(tn_at_sum_dim_IntList(gm, TN_IN(&dim, 1), false, NULL)) : NULL;
        bool ok = gs && (sub ? PyList_Append(slices, gs) == 0 : KL(tn_at_copy_(KL(tn_at_select_int(gi, dim, k)), gs, false)) != NULL);
#undef KL
        drop(&L);
        if (!ok) goto done;
    }
    r = sub ? tn_at_stack(TN_TPY(slices), dim) : Py_NewRef(gi);
done:
    drop(&T);
    return r;
}
#undef K

/* ---- reflection_pad{1,2,3}d_backward / replication_pad{1,2,3}d_backward(grad_output, self,
 * padding): a zero tensor of self's shape gets each output position's gradient added at the
 * input position the pad read it from (kernels/pad_backward.h). The checks and their wording
 * are each op's upstream ones (measured). */
static const char *const dim_names[] = {"width", "height", "depth"};

static PyObject *pad_too_big(int64_t l, int64_t r, int dim, const tn_tensor *xt) {
    char shape[256];
    tn_shape_str(shape, sizeof shape, xt->ndim, xt->sizes);
    PyErr_Format(PyExc_RuntimeError, "Argument #4: Padding size should be less than the corresponding input dimension, "
                 "but got: padding (%lld, %lld) at dimension %d of input %s", (long long)l, (long long)r, dim, shape);
    return NULL;
}

static PyObject *pad_backward(tn_value *a, int k, bool reflect) {
    PyObject *go = a[0].u.obj, *self = a[1].u.obj;
    const tn_tensor *gt = tn_tensor_of(go), *xt = tn_tensor_of(self);
    const tn_value *pv = &a[2];
    char kname[40];
    snprintf(kname, sizeof kname, "%s_pad%dd_backward", reflect ? "reflection" : "replication", k);
    const bool rep3 = !reflect && k == 3;
    /* on meta, upstream's Python meta function of the 2d forms unpacks the padding in fours, then
     * reads self's height and width from its shape tuple (docs/breadth_more2.md "group meta2
     * (session 40)") */
    if (k == 2 && tn_door_on_meta()) {
        if (pv->u.ints.n != 4) return tn_py_unpack_error(4, pv->u.ints.n), NULL;
        if (xt->ndim < 3) {
            PyErr_SetString(PyExc_IndexError, "tuple index out of range");
            return NULL;
        }
        /* then grad_output's width and height against the padded ones, and an empty tensor of
         * self's shape: nothing else is checked */
        const int dw = xt->ndim == 4 ? 3 : 2, dh = dw - 1;
        const int64_t *p = pv->u.ints.v, want_w = xt->sizes[dw] + p[0] + p[1], want_h = xt->sizes[dh] + p[2] + p[3];
        if (tn_size_read(gt, dw) < 0) return NULL;
        if (gt->sizes[dw] != want_w || gt->sizes[dh] != want_h) {
            bool w = gt->sizes[dw] != want_w;
            PyErr_Format(PyExc_RuntimeError, "grad_output %s unexpected. Expected: %lld, Got: %lld", w ? "width" : "height",
                         (long long)(w ? want_w : want_h), (long long)gt->sizes[w ? dw : dh]);
            return NULL;
        }
        return tn_tensor_new_empty(xt->ndim, xt->sizes, xt->dtype, TN_DEVICE_CPU);
    }
    /* reflection 1d / 2d read self's sizes (the plane / height dim of a missing one first) before
     * they look at the padding's length: IndexError for self of at most k dims (measured; an empty
     * padding list crashes upstream, a meta operand goes to its Python meta function) */
    if (reflect && k < 3 && pv->u.ints.n >= 1 && xt->ndim <= k && !tn_door_on_meta()) {
        tn_size_read(xt, xt->ndim ? xt->ndim : 1);
        return NULL;
    }
    /* reflection 2d with a padding of 2 or 3: upstream reads self's sizes, then
     * grad_output.size(dimw) (IndexError for a grad of fewer dims) and checks the width, which
     * needs only the first pair, before its reads past the list (measured) */
    if (reflect && k == 2 && (pv->u.ints.n == 2 || pv->u.ints.n == 3) && !tn_door_on_meta()) {
        const int dw = xt->ndim == 4 ? 3 : 2;
        if (tn_size_read(gt, dw) < 0) return NULL;
        const int64_t want = xt->sizes[dw] + pv->u.ints.v[0] + pv->u.ints.v[1], got = gt->sizes[dw];
        if (got != want) {
            PyErr_Format(PyExc_RuntimeError, "gradOutput width unexpected. Expected: %lld, Got: %lld", (long long)want, (long long)got);
            return NULL;
        }
    }
    if (pv->u.ints.n != 2 * k && (!reflect || k == 3)) {   /* reflection 1d / 2d read the first 2k */
        if (reflect) PyErr_Format(PyExc_RuntimeError, "padding size is expected to be %d, but got: %d", 2 * k, pv->u.ints.n);
        else PyErr_Format(PyExc_RuntimeError, "padding size is expected to be %d", 2 * k);
        return NULL;
    }
    if (pv->u.ints.n < 2 * k) {
        PyErr_Format(PyExc_RuntimeError, "padding size is expected to be %d", 2 * k);
        return NULL;
    }
    if (xt->ndim <= k) {
        if (reflect && k == 3) {
            PyErr_SetString(PyExc_RuntimeError, "Expected input.dim() > 3 to be true, but got false.  (Could this error message "
                                                "be improved?  If so, please report an enhancement request to PyTorch.)");
            return NULL;
        }
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %d)", -xt->ndim,
                     xt->ndim - 1, k);
        return NULL;
    }
    /* the 1d forms read grad_output.size(dimw) (dimw: 2 for a 3-d self, else 1) for the width
     * check before anything else of grad's: IndexError for a grad of fewer dims (measured) */
    if (k == 1 && !tn_door_on_meta() && xt->ndim <= 3) {   /* reflection: the padding against self's width first */
        const int64_t w = xt->sizes[xt->ndim - 1], l = pv->u.ints.v[0], r = pv->u.ints.v[1];
        if (reflect && (l >= w || r >= w)) return pad_too_big(l, r, xt->ndim - 1, xt);
    }
    if (k == 1 && !tn_door_on_meta() && gt->ndim <= (xt->ndim == 3 ? 2 : 1)) {
        tn_size_read(gt, xt->ndim == 3 ? 2 : 1);
        return NULL;
    }
    /* then grad_output.size(dimw) against the padded width, whatever grad's other dims (measured:
     * upstream checks no more of grad's shape; ours refuses the rest below) */
    if (k == 1 && !tn_door_on_meta() && xt->ndim <= 3) {
        const int64_t want = xt->sizes[xt->ndim - 1] + pv->u.ints.v[0] + pv->u.ints.v[1], got = gt->sizes[xt->ndim - 1];
        if (got != want) {
            if (reflect) PyErr_Format(PyExc_RuntimeError, "grad_output width unexpected. Expected: %lld, Got: %lld", (long long)want, (long long)got);
            else PyErr_Format(PyExc_RuntimeError, "gradOutput width unexpected. Expected: %lld Got: %lld", (long long)want, (long long)got);
            return NULL;
        }
        /* reflection then reads self.size(ndim) once the padding has ndim pairs or more (measured:
         * [0] * 4 for a 2-d self, [0] * 6 for a 3-d one) */
        if (reflect && pv->u.ints.n / 2 >= xt->ndim) {
            tn_size_read(xt, xt->ndim);
            return NULL;
        }
    }
    if (xt->ndim > k + 2 || gt->ndim != xt->ndim) {
        PyErr_Format(PyExc_RuntimeError, "%s: expected grad_output of %d dims like self, got %d", kname, xt->ndim, gt->ndim);
        return NULL;
    }
    int64_t in[3], out[3], pb[3];
    for (int j = 0; j < k; j++) {   /* trailing dim j of k: padding pair k - 1 - j */
        const int d = xt->ndim - k + j, q = k - 1 - j;
        in[j] = xt->sizes[d];
        pb[j] = pv->u.ints.v[2 * q];
        out[j] = in[j] + pb[j] + pv->u.ints.v[2 * q + 1];
    }
    if (reflect && k == 1)
        for (int j = 0; j < k; j++) {
            int64_t l = pv->u.ints.v[2 * j], r = pv->u.ints.v[2 * j + 1];
            if (l >= in[k - 1 - j] || r >= in[k - 1 - j]) {
                return pad_too_big(l, r, xt->ndim - 1 - j, xt);
            }
        }
    const int pd = xt->ndim - k - 1;   /* the plane (channel) dim */
    if (rep3 && gt->sizes[pd] != xt->sizes[pd]) {
        PyErr_Format(PyExc_RuntimeError, "gradOutput channel unexpected. Expected: %lld, Got: %lld", (long long)xt->sizes[pd],
                     (long long)gt->sizes[pd]);
        return NULL;
    }
    for (int j = k - 1; j >= 0; j--) {   /* width first */
        const int64_t got = gt->sizes[xt->ndim - k + j];
        if (got == out[j]) continue;
        const char *nm = dim_names[k - 1 - j];
        if (!reflect && k == 1)
            PyErr_Format(PyExc_RuntimeError, "gradOutput %s unexpected. Expected: %lld Got: %lld", nm, (long long)out[j], (long long)got);
        else
            PyErr_Format(PyExc_RuntimeError, "%s %s unexpected. Expected: %lld, Got: %lld",
                         (reflect && k != 2) ? "grad_output" : "gradOutput", nm, (long long)out[j], (long long)got);
        return NULL;
    }
    for (int d = 0; d < xt->ndim - k; d++)
        if (gt->sizes[d] != xt->sizes[d]) {
            PyErr_Format(PyExc_RuntimeError, "%s: grad_output size %lld at dim %d, self's is %lld", kname, (long long)gt->sizes[d], d,
                         (long long)xt->sizes[d]);
            return NULL;
        }
    if (reflect)   /* the reflected index needs padding < size (upstream checks it in the forward) */
        for (int j = 0; j < k; j++) {
            int64_t l = pb[j], r = out[j] - in[j] - pb[j];
            if (l >= in[j] || r >= in[j]) {
                return pad_too_big(l, r, xt->ndim - k + j, xt);
            }
        }
    if (!reflect)
        for (int j = 0; j < k; j++)
            if (in[j] == 0 && out[j] > 0) {
                PyErr_Format(PyExc_RuntimeError, "%s: an empty input dimension cannot be padded", kname);
                return NULL;
            }
    if (gt->dtype != xt->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected scalar type %s but found %s", tn_dtype_cpp_name(gt->dtype), tn_dtype_cpp_name(xt->dtype));
        return NULL;
    }
    const tn_dtype dt = xt->dtype;
    if (!(dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64 || dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16 || dt == TN_DTYPE_C64 ||
          dt == TN_DTYPE_C128))
        return tn_kernel_missing(kname, dt);
    PyObject *r = tn_tensor_new_empty(xt->ndim, xt->sizes, dt, TN_DEVICE_CPU);
    if (!r) return NULL;
    memset(tn_data(tn_tensor_of(r)), 0, (size_t)tn_numel(xt) * tn_dtype_itemsize(dt));
    if (tn_numel(gt) == 0) return r;
    PyObject *gc = tn_as_dtype(go, dt, true);
    if (!gc) {
        Py_DECREF(r);
        return NULL;
    }
    int64_t planes = 1;
    for (int d = 0; d < xt->ndim - k; d++) planes *= xt->sizes[d];
    tn_pad_backward(dt, reflect, k, planes, in, out, pb, tn_data(tn_tensor_of(gc)), tn_data(tn_tensor_of(r)));
    Py_DECREF(gc);
    return r;
}
PyObject *tn_op_reflection_pad1d_backward(tn_value *a) { return pad_backward(a, 1, true); }
PyObject *tn_op_reflection_pad2d_backward(tn_value *a) { return pad_backward(a, 2, true); }
PyObject *tn_op_reflection_pad3d_backward(tn_value *a) { return pad_backward(a, 3, true); }
PyObject *tn_op_replication_pad1d_backward(tn_value *a) { return pad_backward(a, 1, false); }
PyObject *tn_op_replication_pad2d_backward(tn_value *a) { return pad_backward(a, 2, false); }
PyObject *tn_op_replication_pad3d_backward(tn_value *a) { return pad_backward(a, 3, false); }
