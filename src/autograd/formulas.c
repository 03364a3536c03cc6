/* formulas.c — backward formulas: upstream's derivatives.yaml entries for the overloads we
 * implement, written in C against ops called through the door (the typed op API, dispatch/aten.h), so create_graph records
 * the backward graph. Each follows upstream's formula and helper (sum_backward, mm_mat1_backward,
 * pow_backward, ...) op by op, so gradients round as upstream's do. Node names, which arguments
 * are differentiable and what is saved come from derivatives.yaml at build time (tools/gen_ops.py).
 * The engine sums broadcast gradients and casts dtypes (validate_outputs), as upstream's. */
#include "autograd/autograd.h"
#include "autograd/bw_helpers.h"

#include "dispatch/modes.h"
#include "dispatch/args.h"
#include "ops/common.h"
#include "tn_ops_gen.h"
#include "ops/rnn.h"
#include "ops/matrix_exp.h"
#include "ops/linalg_lapack.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

#define PUT(arg, expr) do { if (need(n, arg)) { PyObject *v_ = (expr); if (!v_) return -1; put(n, o, arg, v_); } } while (0)
/* PUT, then release the listed references on every path (expr is evaluated only when the input is needed;
 * when it fails the formula returns -1 without leaking them) */
#define PUTX(arg, expr, ...)                                                                    \
    do {                                                                                        \
        const bool nd_ = need(n, arg);                                                          \
        PyObject *v_ = nd_ ? (expr) : NULL, *rel_[] = {__VA_ARGS__};                            \
        for (size_t i_ = 0; i_ < sizeof rel_ / sizeof rel_[0]; i_++) Py_XDECREF(rel_[i_]);       \
        if (nd_) {                                                                              \
            if (!v_) return -1;                                                                 \
            put(n, o, arg, v_);                                                                 \
        }                                                                                       \
    } while (0)

static bool is_tensor_arg(tn_node *n, int i) { return n->arg_nmeta[i] > 0; }
static PyObject *arg_obj(tn_node *n, int i) { return tn_value_to_python(&n->args[i]); }   /* new ref */
static double arg_f(tn_node *n, int i) { return tn_value_as_double(&n->args[i]); }
static int64_t arg_i(tn_node *n, int i) { return n->args[i].u.i; }
static const tn_meta *meta(tn_node *n, int i) { return &n->arg_meta[i][0]; }
static PyObject *sizes_of(tn_node *n, int i) { return tn_py_size_new(meta(n, i)->ndim, tn_meta_sizes(meta(n, i))); }


/* upstream's at::sum_to: one sum over the leading dims and the dims broadcast from 1 (keepdim),
 * then a view to the target shape when there were leading dims */
PyObject *tn_sum_to(PyObject *g, int ndim, const int64_t *sizes) {
    const tn_tensor *t = tn_tensor_of(g);
    if (ndim == 0 && t->ndim > 0) return tn_at_sum(g, NULL);   /* at::sum_to: to a 0-dim shape, sum() */
    int lead = t->ndim - ndim;
    PyObject *dims = PyList_New(0);
    if (!dims) return NULL;
    for (int d = 0; d < t->ndim; d++) {
        if (d >= lead && !(sizes[d - lead] == 1 && t->sizes[d] != 1)) continue;
        PyObject *i = PyLong_FromLong(d);
        if (!i || PyList_Append(dims, i) < 0) { Py_XDECREF(i); Py_DECREF(dims); return NULL; }
        Py_DECREF(i);
    }
    PyObject *r = PyList_Size(dims) ? tn_at_sum_dim_IntList(g, TN_IPY(dims), true, NULL) : Py_NewRef(g);
    Py_DECREF(dims);
    if (r && lead > 0) {
        PyObject *shape = tn_py_size_new(ndim, sizes);
        Py_SETREF(r, shape ? tn_at_view(r, TN_IPY(shape)) : NULL);
        Py_XDECREF(shape);
    }
    return r;
}

/* ---- arithmetic ---- */


/* ---- reductions ---- */


/* ---- matrix products ---- */

/* _grouped_mm: upstream's _grouped_mm_mat1_backward / _grouped_mm_mat2_backward, each one more
 * _grouped_mm with the same offs; when the input was column-major in its last two dims, the
 * product is taken transposed so its gradient comes out column-major too. mat2 first, as mm. */
static bool gmm_col_major(const tn_meta *m) {
    const int d = m->ndim;
    return tn_meta_strides(m)[d - 2] == 1 && tn_meta_strides(m)[d - 1] == tn_meta_sizes(m)[d - 2];
}
static PyObject *mt_(PyObject *x) { return x ? tn_at_transpose_int(x, -2, -1) : NULL; }
static PyObject *gmm_(PyObject *x, PyObject *y, PyObject *offs) {
    return x && y ? tn_at__grouped_mm(x, y, offs, NULL, NULL) : NULL;
}
static int f_grouped_mm(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *offs = is_tensor_arg(n, 2) ? saved(n, 2) : NULL;
    if (is_tensor_arg(n, 2) && !offs) return -1;
    for (int k = 1; k >= 0; k--) {
        if (!need(n, k)) continue;
        PyObject *other = saved(n, 1 - k), *r = NULL;
        if (other) {
            PyObject *x = NULL, *y = NULL, *p;
            bool col = gmm_col_major(meta(n, k));
            if (k == 0) {   /* self: mat2 @ grad^T, transposed; or grad @ mat2^T */
                if (col) { x = Py_NewRef(other); y = mt_(g[0]); }
                else { x = Py_NewRef(g[0]); y = mt_(other); }
            } else {        /* mat2: (grad^T @ self)^T; or self^T @ grad */
                if (col) { x = mt_(g[0]); y = Py_NewRef(other); }
                else { x = mt_(other); y = Py_NewRef(g[0]); }
            }
            p = gmm_(x, y, offs);
            r = col ? mt_(p) : Py_XNewRef(p);
            Py_XDECREF(x); Py_XDECREF(y); Py_XDECREF(p);
            Py_DECREF(other);
        }
        if (!r) { Py_XDECREF(offs); return -1; }
        put(n, o, k, r);
    }
    Py_XDECREF(offs);
    return 0;
}

/* ---- views and shape ---- */


/* copy_(self, src): self gets nothing of the gradient, src all of it (the engine sums it to
 * src's shape and casts it to src's dtype) */
static int f_copy(tn_node *n, PyObject **g, PyObject **o) {
    PUT(0, tn_at_zeros_like(g[0], NULL, NULL, NULL, NULL, NULL));
    PUT(1, Py_NewRef(g[0]));
    return 0;
}

/* ---- selection, masking ---- */

/* ---- nn ---- */


/* ==== more formulas (derivatives.yaml / FunctionsManual.cpp, op by op) ==== */

/* Temporaries of one formula: every intermediate goes in, all are released at the end. A NULL
 * argument makes Py_BuildValue fail without a new exception, so chains need no checks until the
 * end. */
typedef struct { PyObject *v[48]; int n; } tmps;
static PyObject *keep_(tmps *t, PyObject *o) {
    if (o && t->n < 48) t->v[t->n++] = o;
    else if (o) { Py_DECREF(o); PyErr_SetString(PyExc_RuntimeError, "torchnative: formula temporaries"); return NULL; }
    return o;
}
static void drop_(tmps *t) { for (int i = 0; i < t->n; i++) Py_DECREF(t->v[i]); t->n = 0; }
#define T_ tmps T = {{0}, 0}
#define K(x) keep_(&T, (x))
/* put expression `e` (a borrowed temporary) as the gradient of arg a */
#define OUTK(a, e) do { if (need(n, a)) { PyObject *v_ = (e); if (!v_) { drop_(&T); return -1; } put(n, o, a, Py_NewRef(v_)); } } while (0)
#define DONE do { drop_(&T); return 0; } while (0)
#define DONE_ERR do { drop_(&T); return -1; } while (0)

static int64_t wrap_dim(int64_t d, int nd) { int m = nd > 0 ? nd : 1; return d < 0 ? d + m : d; }
/* unsqueeze_multiple(t, dims, n_dims) (dims as a node argument: NONE = all, INTLIST) */
static PyObject *unsqueeze_multiple(PyObject *t, const tn_value *dv, int nd) {
    if (!t) return NULL;
    if (dv && dv->tag == TN_V_INTLIST) {
        if (dv->u.ints.n == 0) return Py_NewRef(t);
        if (dv->u.ints.n == 1) return tn_at_unsqueeze(t, (long long)dv->u.ints.v[0]);
    }
    if (dv && dv->tag == TN_V_INT) return tn_at_unsqueeze(t, (long long)dv->u.i);
    bool mask[TN_MAX_DIMS] = {0};
    if (!dv || dv->tag != TN_V_INTLIST) for (int d = 0; d < nd; d++) mask[d] = true;
    else for (int k = 0; k < dv->u.ints.n; k++) { int64_t d = wrap_dim(dv->u.ints.v[k], nd); if (d >= 0 && d < nd) mask[d] = true; }
    PyObject *r = Py_NewRef(t);
    for (int d = 0; d < nd && r; d++)
        if (mask[d]) Py_SETREF(r, tn_at_unsqueeze(r, d));
    return r;
}
static PyObject *zeros_grad(PyObject *g) { return tn_at_zeros_like(g, NULL, NULL, NULL, NULL, NULL); }

/* ---- pointwise ---- */

static int f_zeros(tn_node *n, PyObject **g, PyObject **o) { PUT(0, zeros_grad(g[0])); return 0; }   /* sign, round, floor, ... */


/* ---- clamp ---- */


/* ---- selecting reductions ---- */


/* ---- variance / std ---- */

/* var_backward(grad, self, dim?, correction?, keepdim) */
static PyObject *var_backward(PyObject *grad, PyObject *self, const tn_value *dv, double corr, bool keepdim) {
    T_;
    const tn_tensor *t = tn_tensor_of(self);
    PyObject *r;
    if (t->ndim == 0 || dv->tag == TN_V_NONE) {
        double dof = (double)tn_numel(t) - corr;
        PyObject *mean = K(tn_at_mean(self, NULL));
        if (dof <= 0) {
            PyObject *w = K(tn_at_where_Scalar(K(tn_at_eq_Tensor(self, mean)), TN_SD(NAN), TN_SD(INFINITY)));
            r = K(tn_at_mul_Tensor(grad, w));
        } else {
            r = K(tn_at_mul_Tensor(K(tn_at_mul_Scalar(grad, TN_SD(2.0 / dof))), K(tn_at_sub_Tensor(self, mean, TN_SDEF))));
        }
    } else {
        PyObject *gg = grad;
        if (!keepdim && t->ndim > 1) gg = K(unsqueeze_multiple(grad, dv, t->ndim));
        double rn = 1;
        for (int k = 0; k < dv->u.ints.n; k++) rn *= (double)t->sizes[wrap_dim(dv->u.ints.v[k], t->ndim)];
        PyObject *dims = K(tn_value_to_python((tn_value *)dv));
        PyObject *mean = K(tn_at_mean_dim(self, TN_IPY(dims), true, NULL));
        r = K(tn_at_mul_Tensor(K(tn_at_mul_Scalar(gg, TN_SD(2.0 / (rn - corr)))), K(tn_at_sub_Tensor(self, mean, TN_SDEF))));
    }
    Py_XINCREF(r);
    drop_(&T);
    return r;
}


/* ---- activations with aten backward ops ---- */


/* ---- indexing, scatter / gather ---- */

/* _unsafe_index.Tensor: upstream's _unsafe_index_put(grad.new_zeros(self.sizes(), self.options()),
 * indices, grad, true); _unsafe_index_put has no kernel here, so the same sums through
 * _index_put_impl_(..., accumulate=true, unsafe=true) (index.Tensor's formula is generated) */
static int f_unsafe_index(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *z = K(tn_at_new_zeros(g[0], TN_IPY(K(sizes_of(n, 0))), TN_DT(meta(n, 0)->dtype), NULL, NULL, NULL));
    PyObject *r = K(tn_at__index_put_impl_(z, TN_TPY(K(arg_obj(n, 1))), g[0], true, true));
    OUTK(0, r);
    DONE;
}

/* ---- shape ---- */

static int f_roll(tn_node *n, PyObject **g, PyObject **o) {   /* grad.roll(-reversed(shifts), reversed(dims)) */
    T_;
    const tn_value *sv = &n->args[1], *dv = &n->args[2];
    int ns = sv->u.ints.n, ndm = dv->tag == TN_V_INTLIST ? dv->u.ints.n : 0;
    PyObject *sh = K(PyList_New(ns)), *dm = K(PyList_New(ndm));
    for (int i = 0; sh && i < ns; i++) PyList_SetItem(sh, i, PyLong_FromLongLong(-sv->u.ints.v[ns - 1 - i]));
    for (int i = 0; dm && i < ndm; i++) PyList_SetItem(dm, i, PyLong_FromLongLong(dv->u.ints.v[ndm - 1 - i]));
    OUTK(0, K(tn_at_roll(g[0], TN_IPY(sh), TN_IPY(dm))));
    DONE;
}


/* ---- zeros for every differentiable input (fill, zero_, random fills, in-place comparisons) ---- */


/* ---- more binary pointwise ---- */


/* ---- activations without an aten backward op here: upstream's backward kernels' arithmetic,
 * written with ops (the infinitely differentiable forms upstream uses under grad mode) ---- */


/* ---- double backward: formulas of the backward ops ---- */


/* ---- more indexing ---- */


/* ---- attention ---- */

/* _scaled_dot_product_flash_attention_for_cpu(q, k, v, dropout_p, is_causal, attn_mask?, scale?)
 * -> (output, logsumexp): upstream's one op, _scaled_dot_product_flash_attention_for_cpu_backward
 * (grad, query, key, value, output, logsumexp, dropout_p, is_causal, attn_mask, scale), kernels/attention.c;
 * it has no derivative (double backward refuses as upstream's) */
static int f_flash_cpu(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    if (!g[0]) DONE;
    PyObject *mask = is_tensor_arg(n, 5) ? K(saved(n, 5)) : NULL;
    PyObject *r = K(tn_at__scaled_dot_product_flash_attention_for_cpu_backward(
        g[0], K(saved(n, 0)), K(saved(n, 1)), K(saved(n, 2)), K(result(n, 0)), K(result(n, 1)),
        n->args[3].tag == TN_V_NONE ? 0.0 : arg_f(n, 3), n->args[4].u.i, mask,
        n->args[6].tag == TN_V_NONE ? NULL : TN_F(arg_f(n, 6))));
    if (!r) DONE_ERR;
    for (int i = 0; i < 3; i++) OUTK(i, PyTuple_GetItem(r, i));
    DONE;
}


/* nll_loss_backward(grad_output, self, target, weight?, reduction, ignore_index, total_weight):
 * grad_output: nll_loss(grad, target, weight, reduction, ignore_index); self: zeros_like(grad) */
static int f_nll_loss_backward(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    if (need(n, 0)) {
        PyObject *w = is_tensor_arg(n, 3) ? K(saved(n, 3)) : Py_None;
        PyObject *r = K(tn_at_nll_loss_forward(g[0], K(saved(n, 2)), w, (long long)arg_i(n, 4), (long long)arg_i(n, 5)));
        OUTK(0, r ? PyTuple_GetItem(r, 0) : NULL);
    }
    if (need(n, 1)) OUTK(1, K(zeros_grad(g[0])));
    DONE;
}

/* mse_loss(self, target, reduction): self: mse_loss_backward(grad, self, target, reduction);
 * target: mse_loss_backward(grad, target, self, reduction) */

/* ---- loss family (ops/loss.c): derivatives.yaml's loss entries and FunctionsManual's helpers ---- */

static PyObject *loss_w(tn_node *n, int i, tmps *T) { return is_tensor_arg(n, i) ? keep_(T, saved(n, i)) : Py_None; }
/* binary_cross_entropy(self, target, weight?, reduction) */
static int f_bce(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *x = K(saved(n, 0)), *t = K(saved(n, 1)), *w = loss_w(n, 2, &T);
    long long red = (long long)arg_i(n, 3);
    if (!x || !t || !w) DONE_ERR;
    if (need(n, 0)) OUTK(0, K(tn_at_binary_cross_entropy_backward(g[0], x, t, w, red)));
    if (need(n, 1)) OUTK(1, K(tn_bw_bce_target_backward(g[0], x, t, w, red)));
    DONE;
}
/* binary_cross_entropy_with_logits(self, target, weight?, pos_weight?, reduction) */
static int f_bce_logits(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *x = K(saved(n, 0)), *t = K(saved(n, 1)), *w = loss_w(n, 2, &T), *pw = loss_w(n, 3, &T);
    long long red = (long long)arg_i(n, 4);
    if (!x || !t || !w || !pw) DONE_ERR;
    if (need(n, 0)) OUTK(0, K(tn_bw_bce_logits_backward(g[0], x, t, w, pw, red)));
    if (need(n, 1)) OUTK(1, K(tn_bw_bce_logits_target_backward(g[0], x, t, w, pw, red)));
    DONE;
}
typedef PyObject *(*loss_backward_fn)(PyObject *grad, PyObject *self, PyObject *target, int64_t reduction, double par);
/* nll_loss2d_backward: grad_output: nll_loss2d(grad, target, weight, reduction, ignore_index); self: zeros_like(grad) */
static int f_nll_loss2d_backward(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    if (need(n, 0)) {
        PyObject *r = K(tn_at_nll_loss2d_forward(g[0], K(saved(n, 2)), loss_w(n, 3, &T), (long long)arg_i(n, 4), (long long)arg_i(n, 5)));
        OUTK(0, r ? PyTuple_GetItem(r, 0) : NULL);
    }
    if (need(n, 1)) OUTK(1, K(zeros_grad(g[0])));
    DONE;
}

/* binary_cross_entropy_backward(grad_output, self, target, weight?, reduction):
 * grad_output: binary_cross_entropy_double_backward_grad_output(grad, self, target, weight, reduction);
 * self: binary_cross_entropy_double_backward(grad_output, grad, self, target, weight, reduction);
 * target: binary_cross_entropy_double_backward_target(grad, grad_output, self, target, weight, reduction) */
static int f_bce_backward(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *go = K(saved(n, 0)), *x = K(saved(n, 1)), *t = K(saved(n, 2)), *w = loss_w(n, 3, &T);
    int64_t red = arg_i(n, 4);
    if (!go || !x || !t || !w) DONE_ERR;
    if (need(n, 0)) OUTK(0, K(tn_bw_bce_double_backward(NULL, g[0], x, t, w, red)));
    if (need(n, 1)) OUTK(1, K(tn_bw_bce_double_backward(go, g[0], x, t, w, red)));
    if (need(n, 2)) OUTK(2, K(tn_bw_bce_double_backward_target(g[0], go, x, t, w, red)));
    DONE;
}

/* ---- more double backward ---- */


/* ---- convolution family (convolution, _convolution, im2col, col2im), as derivatives.yaml
 * writes them ---- */

/* convolution_backward(grad_output, input, weight, bias_sizes, stride, padding, dilation,
 * transposed, output_padding, groups, output_mask): upstream's _convolution_double_backward,
 * grads = (ggI, ggW, ggb): ggO = convolution(ggI, weight) + convolution(input, ggW) + ggb
 * (viewed (1, C, 1, ...) and expanded to grad_output's shape); the input and weight terms are the
 * convolution's own gradients (convolution_backward with gO and ggW / ggI), where upstream's
 * composite spells them as convolutions with swapped roles: the same sums. */
static int f_convolution_backward(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *ggI = g[0], *ggW = g[1], *ggb = g[2];
    PyObject *gO = saved(n, 0), *in = gO ? saved(n, 1) : NULL, *w = in ? saved(n, 2) : NULL;
    const tn_value *a = n->args;   /* stride, padding, dilation, transposed, output_padding, groups: 4 .. 9 */
    bool ok = w != NULL;
    PyObject *ggO = NULL, *gI = NULL, *gW = NULL;
    const tn_tensor *it = ok ? tn_tensor_of(in) : NULL;
    bool nonempty = it && tn_numel(it) != 0;
    if (ok && need(n, 0)) {
        if (nonempty && ggI)
            ok = (ggO = tn_at_convolution(ggI, w, NULL, tn_ints_of(&a[4]), tn_ints_of(&a[5]), tn_ints_of(&a[6]), a[7].u.i != 0,
                                          tn_ints_of(&a[8]), a[9].u.i)) != NULL;
        if (ok && nonempty && ggW) {
            PyObject *t = tn_at_convolution(in, ggW, NULL, tn_ints_of(&a[4]), tn_ints_of(&a[5]), tn_ints_of(&a[6]), a[7].u.i != 0,
                                            tn_ints_of(&a[8]), a[9].u.i);
            if (t && ggO) Py_SETREF(t, tn_at_add_Tensor(ggO, t, TN_SDEF));
            Py_XSETREF(ggO, t);
            ok = t != NULL;
        }
        if (ok && ggb) {
            const tn_tensor *go = tn_tensor_of(gO);
            int64_t shape[TN_MAX_DIMS];
            for (int i = 0; i < go->ndim; i++) shape[i] = 1;
            shape[1] = tn_tensor_of(ggb)->sizes[0];
            PyObject *c = tn_at_contiguous(ggb, NULL);
            PyObject *vs = c ? tn_py_size_new(go->ndim, shape) : NULL, *v = vs ? tn_at_view(c, TN_IPY(vs)) : NULL;
            PyObject *es = v ? tn_py_size_new(go->ndim, go->sizes) : NULL, *e = es ? tn_at_expand(v, TN_IPY(es), false) : NULL;
            Py_XDECREF(c); Py_XDECREF(vs); Py_XDECREF(v); Py_XDECREF(es);
            if (e && ggO) Py_SETREF(e, tn_at_add_Tensor(ggO, e, TN_SDEF));
            Py_XSETREF(ggO, e);
            ok = e != NULL;
        }
    }
    if (ok && need(n, 2) && ggI) {   /* gW: the weight gradient of a convolution of ggI giving gO */
        PyObject *r = tn_at_convolution_backward(gO, ggI, w, TN_INONE, tn_ints_of(&a[4]), tn_ints_of(&a[5]), tn_ints_of(&a[6]),
                                                 a[7].u.i != 0, tn_ints_of(&a[8]), a[9].u.i, TN_IS(0, 1, 0));
        if (r) gW = Py_NewRef(PyTuple_GetItem(r, 1));
        Py_XDECREF(r);
        ok = gW != NULL;
    }
    if (ok && need(n, 1) && ggW && nonempty) {   /* gI: the input gradient of a convolution with ggW giving gO */
        PyObject *r = tn_at_convolution_backward(gO, in, ggW, TN_INONE, tn_ints_of(&a[4]), tn_ints_of(&a[5]), tn_ints_of(&a[6]),
                                                 a[7].u.i != 0, tn_ints_of(&a[8]), a[9].u.i, TN_IS(1, 0, 0));
        if (r) gI = Py_NewRef(PyTuple_GetItem(r, 0));
        Py_XDECREF(r);
        ok = gI != NULL;
    }
    Py_XDECREF(gO); Py_XDECREF(in); Py_XDECREF(w);
    if (!ok) {
        Py_XDECREF(ggO); Py_XDECREF(gI); Py_XDECREF(gW);
        return -1;
    }
    if (ggO && need(n, 0)) put(n, o, 0, ggO); else Py_XDECREF(ggO);
    if (gI && need(n, 1)) put(n, o, 1, gI); else Py_XDECREF(gI);
    if (gW && need(n, 2)) put(n, o, 2, gW); else Py_XDECREF(gW);
    return 0;
}

/* ---- table ---- */

/* ---- blend family (lerp, addcmul, addcdiv), as derivatives.yaml writes them ---- */


/* ==== helper-autograd: group norm's double backward and the view backward ops' backward
 * (derivatives.yaml: native_group_norm with create_graph ->
 * infinitely_differentiable_native_group_norm_backward; slice_backward / select_backward ->
 * grad.slice / grad.select). Written op by op after upstream's FunctionsManual helpers. ==== */

/* a larger temporary pool than tmps: these formulas make ~100 intermediates */
typedef struct { PyObject *v[192]; int n; } ntmps;
static PyObject *nkeep_(ntmps *t, PyObject *o) {
    if (o && t->n < 192) t->v[t->n++] = o;
    else if (o) { Py_DECREF(o); PyErr_SetString(PyExc_RuntimeError, "torchnative: formula temporaries"); return NULL; }
    return o;
}
static void ndrop_(ntmps *t) { for (int i = 0; i < t->n; i++) Py_DECREF(t->v[i]); t->n = 0; }
#define NK(x) nkeep_(&NT, (x))
#define NFAIL(x) do { if (!(x)) goto fail; } while (0)

/* var_mean_backward(gvar, gmean, X, dims {2, 3}, correction 0, keepdim true) */
static PyObject *gn_var_mean_backward(ntmps *tt, PyObject *gvar, PyObject *gmean, PyObject *X) {
    int64_t dv[2] = {2, 3};
    tn_value dims = {0};
    dims.tag = TN_V_INTLIST;
    dims.u.ints.v = dv;
    dims.u.ints.n = 2;
    PyObject *gself = nkeep_(tt, var_backward(gvar, X, &dims, 0.0, true));
    if (!gself) return NULL;
    const tn_tensor *x = tn_tensor_of(X);
    PyObject *sz = nkeep_(tt, tn_py_size_new(x->ndim, x->sizes));
    PyObject *e = sz ? nkeep_(tt, tn_at_expand(gmean, TN_IPY(sz), false)) : NULL;
    PyObject *aux = e ? nkeep_(tt, tn_at_div_Scalar(e, TN_SI((long long)(x->sizes[2] * x->sizes[3])))) : NULL;
    return aux ? nkeep_(tt, tn_at_add_Tensor(gself, aux, TN_SDEF)) : NULL;
}
/* native_group_norm(input, weight, bias, N, C, HxW, group, eps) under create_graph or with
 * gradients for mean / rstd: infinitely_differentiable_native_group_norm_backward(dY, dmean,
 * drstd, input, mean = result1, rstd = result2, weight, N, C, HxW, group, eps, mask) */
static int gn_inf_diff_backward(tn_node *n, PyObject **g, PyObject **o) {
    ntmps NT = {{0}, 0};
    PyObject *dY = g[0], *dmean = g[1], *drstd = g[2];
    int64_t N = arg_i(n, 3), C = arg_i(n, 4), HxW = arg_i(n, 5), G = arg_i(n, 6);
    double eps = arg_f(n, 7);
    int64_t D = C / G;
    double s = 1.0 / (double)(D * HxW);
    bool has_gamma = is_tensor_arg(n, 1);
    PyObject *X = NK(saved(n, 0)), *mean = X ? NK(result(n, 1)) : NULL, *rstd = mean ? NK(result(n, 2)) : NULL;
    NFAIL(rstd);
    PyObject *gamma = has_gamma ? NK(saved(n, 1)) : NULL;
    if (has_gamma) NFAIL(gamma);
    PyObject *Xt = NK(tn_at_reshape(X, TN_IS((long long)N, (long long)G, (long long)D, (long long)HxW)));
    PyObject *mt = NK(tn_at_reshape(mean, TN_IS((long long)N, (long long)G, 1LL, 1LL)));
    PyObject *rt = NK(tn_at_reshape(rstd, TN_IS((long long)N, (long long)G, 1LL, 1LL)));
    NFAIL(Xt && mt && rt);
    PyObject *dYt = NULL, *ds = NULL, *db = NULL;
    if (dY) {
        NFAIL(dYt = NK(tn_at_reshape(dY, TN_IS((long long)N, (long long)G, (long long)D, (long long)HxW))));
        NFAIL(ds = NK(tn_at_sum_dim_IntList(NK(tn_at_mul_Tensor(dYt, Xt)), TN_IS(3), false, NULL)));
        NFAIL(NK(tn_at_unsqueeze_(ds, -1)));
        NFAIL(db = NK(tn_at_sum_dim_IntList(dYt, TN_IS(3), false, NULL)));
        NFAIL(NK(tn_at_unsqueeze_(db, -1)));
    }
    PyObject *dX = NULL, *dgamma = NULL, *dbeta = NULL;
    if (need(n, 0)) {
        PyObject *gt = NULL;
        if (has_gamma) NFAIL(gt = NK(tn_at_reshape(gamma, TN_IS(1LL, (long long)G, (long long)D, 1LL))));
        PyObject *rr = NK(tn_at_mul_Tensor(rt, rt));   /* var: computed, as upstream's, though unused */
        NFAIL(rr && NK(tn_at_reciprocal_(rr)));
        NFAIL(NK(tn_at_clamp_min(NK(tn_at_sub_Scalar(rr, TN_SD(eps), TN_SDEF)), TN_SI(0))));
        PyObject *rc = NK(tn_at_mul_Tensor(NK(tn_at_mul_Tensor(rt, rt)), rt));
        NFAIL(rc);
        PyObject *dvar = NULL;
        if (drstd)
            NFAIL(dvar = NK(tn_at_mul_Tensor(NK(tn_at_mul_Scalar(rc, TN_SD(-0.5))), NK(tn_at_view(drstd, TN_IS((long long)N, (long long)G, 1LL, 1LL))))));
        PyObject *vmb = NULL;
        if (dmean && drstd) {
            PyObject *dm = NK(tn_at_view(dmean, TN_IS((long long)N, (long long)G, 1LL, 1LL)));
            NFAIL(vmb = dm ? gn_var_mean_backward(&NT, dvar, dm, Xt) : NULL);
        }
        if (dY) {
            PyObject *a = has_gamma ? NK(tn_at_mul_Tensor(rt, gt)) : rt;
            PyObject *b = NK(tn_at_sum_dim_IntList(has_gamma ? NK(tn_at_mul_Tensor(ds, gt)) : ds, TN_IS(2), false, NULL));
            NFAIL(a && b && NK(tn_at_unsqueeze_(b, -2)));
            PyObject *c = NK(tn_at_sum_dim_IntList(has_gamma ? NK(tn_at_mul_Tensor(db, gt)) : db, TN_IS(2), false, NULL));
            NFAIL(c && NK(tn_at_unsqueeze_(c, -2)));
            /* b = (c * mean - b) * rstd_cube * s */
            PyObject *b2 = NK(tn_at_mul_Scalar(NK(tn_at_mul_Tensor(NK(tn_at_sub_Tensor(NK(tn_at_mul_Tensor(c, mt)), b, TN_SDEF)), rc)), TN_SD(s)));
            NFAIL(b2);
            /* c = -b * mean - c * rstd * s */
            PyObject *c2 = NK(tn_at_sub_Tensor(NK(tn_at_mul_Tensor(NK(tn_at_neg(b2)), mt)), NK(tn_at_mul_Scalar(NK(tn_at_mul_Tensor(c, rt)), TN_SD(s))), TN_SDEF));
            NFAIL(c2);
            PyObject *x = NK(tn_at_add_Tensor(NK(tn_at_add_Tensor(NK(tn_at_mul_Tensor(a, dYt)), NK(tn_at_mul_Tensor(b2, Xt)), TN_SDEF)), c2, TN_SDEF));
            NFAIL(x);
            if (vmb) NFAIL(NK(tn_at_add__Tensor(x, vmb, TN_SDEF)));
            NFAIL(dX = NK(tn_at_reshape_as(x, X)));
        } else if (vmb) {
            NFAIL(dX = NK(tn_at_reshape_as(vmb, X)));
        }
    }
    if (need(n, 1) && dY) {
        PyObject *t = NK(tn_at_mul_Tensor(NK(tn_at_sub_Tensor(ds, NK(tn_at_mul_Tensor(db, mt)), TN_SDEF)), rt));
        NFAIL(dgamma = NK(tn_at_reshape_as(NK(tn_at_sum_dim_IntList(t, TN_IS(0), false, NULL)), gamma)));
    }
    if (need(n, 2) && dY)
        NFAIL(dbeta = NK(tn_at_reshape_as(NK(tn_at_sum_dim_IntList(db, TN_IS(0), false, NULL)), gamma)));
    if (dX) put(n, o, 0, Py_NewRef(dX));
    if (dgamma) put(n, o, 1, Py_NewRef(dgamma));
    if (dbeta) put(n, o, 2, Py_NewRef(dbeta));
    ndrop_(&NT);
    return 0;
fail:
    ndrop_(&NT);
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: infinitely_differentiable_native_group_norm_backward failed");
    return -1;
}

/* ==== end helper-autograd block ==== */

/* ==== batch norm / group norm family (derivatives.yaml: native_batch_norm and its _legit /
 * _batch_norm_with_update / _no_update spellings -> native_batch_norm_backward / batch_norm_backward;
 * native_group_norm -> native_group_norm_backward) ==== */

/* grad_input_mask over (input, weight, bias) = args 0, 1, 2 */
static PyObject *mask3(tn_node *n) {
    return Py_BuildValue("[OOO]", need(n, 0) ? Py_True : Py_False, need(n, 1) ? Py_True : Py_False,
                         need(n, 2) ? Py_True : Py_False);
}
static void put3(tn_node *n, PyObject **o, PyObject *r) {
    for (int k = 0; k < 3; k++) {
        PyObject *x = PyTuple_GetItem(r, k);
        if (x && x != Py_None && need(n, k)) put(n, o, k, Py_NewRef(x));
    }
}
/* rm_i: index of running_mean (-1: none); train_i: index of `training` (-1: `train` fixed);
 * eps_i: index of eps */
static int bn_formula(tn_node *n, PyObject **g, PyObject **o, int rm_i, int train_i, bool train, int eps_i, bool nu) {
    if (!g[0]) return 0;
    if (train_i >= 0) train = n->args[train_i].u.i != 0;
    PyObject *in = saved(n, 0), *w = in ? tn_bw_saved_opt(n, 1) : NULL;
    PyObject *rm = w ? (rm_i >= 0 ? tn_bw_saved_opt(n, rm_i) : Py_NewRef(Py_None)) : NULL;
    PyObject *rv = rm ? (rm_i >= 0 ? tn_bw_saved_opt(n, rm_i + 1) : Py_NewRef(Py_None)) : NULL;
    PyObject *sm = rv ? result(n, 1) : NULL, *si = sm ? result(n, 2) : NULL, *mask = si ? mask3(n) : NULL;
    PyObject *r = NULL;
    if (mask && !nu)
        r = tn_at_native_batch_norm_backward(g[0], in, w, rm, rv, sm, si, train, n->args[eps_i].u.f, TN_IPY(mask));
    else if (mask) {
        PyObject *rs = result(n, 3);
        r = rs ? tn_at_batch_norm_backward(g[0], in, w, rm, rv, sm, si, train, n->args[eps_i].u.f, TN_IPY(mask), rs) : NULL;
        Py_XDECREF(rs);
    }
    Py_XDECREF(in); Py_XDECREF(w); Py_XDECREF(rm); Py_XDECREF(rv); Py_XDECREF(sm); Py_XDECREF(si); Py_XDECREF(mask);
    if (!r) return -1;
    put3(n, o, r);
    Py_DECREF(r);
    return 0;
}
/* _batch_norm_with_update / _batch_norm_no_update(input, weight, bias, running_mean, running_var, momentum, eps) */
static int f_bn_with_update(tn_node *n, PyObject **g, PyObject **o) { return bn_formula(n, g, o, 3, -1, true, 6, true); }
static int f_bn_no_update(tn_node *n, PyObject **g, PyObject **o) { return bn_formula(n, g, o, 3, -1, false, 6, true); }

/* native_group_norm(input, weight, bias, N, C, HxW, group, eps): with create_graph upstream takes
 * infinitely_differentiable_native_group_norm_backward (gn_inf_diff_backward above); else
 * native_group_norm_backward(grad.contiguous(), input.contiguous(), mean, rstd, weight, N, C, HxW,
 * group, mask) */
static int f_native_group_norm(tn_node *n, PyObject **g, PyObject **o) {
    if (tn_grad_enabled() || g[1] || g[2]) return gn_inf_diff_backward(n, g, o);
    if (!g[0]) return 0;
    PyObject *in = saved(n, 0), *w = in ? tn_bw_saved_opt(n, 1) : NULL, *mean = w ? result(n, 1) : NULL;
    PyObject *rstd = mean ? result(n, 2) : NULL, *gc = rstd ? tn_at_contiguous(g[0], NULL) : NULL;
    PyObject *ic = gc ? tn_at_contiguous(in, NULL) : NULL;
    PyObject *mask = ic ? mask3(n) : NULL;
    PyObject *r = mask ? tn_at_native_group_norm_backward(gc, ic, mean, rstd, w, (long long)n->args[3].u.i, (long long)n->args[4].u.i, (long long)n->args[5].u.i, (long long)n->args[6].u.i, TN_IPY(mask)) : NULL;
    Py_XDECREF(in); Py_XDECREF(gc); Py_XDECREF(ic); Py_XDECREF(w); Py_XDECREF(mean); Py_XDECREF(rstd); Py_XDECREF(mask);
    if (!r) return -1;
    put3(n, o, r);
    Py_DECREF(r);
    return 0;
}

/* ---- pooling and interpolation family (ops/pool.c, ops/interp.c), as derivatives.yaml writes them ---- */

/* avg_pool{2,3}d_backward: grad_output: avg_pool{2,3}d(grad, kernel_size, stride, padding,
 * ceil_mode, count_include_pad, divisor_override); self: zeros_like(self) */
typedef PyObject *(*avg_pool_fn)(PyObject *self, tn_ints kernel_size, tn_ints stride, tn_ints padding, bool ceil_mode,
                                   bool count_include_pad, const int64_t *divisor_override);

/* ==== training family (dropout, embedding; helper-data) ==== */

/* scale * mask (as grad's dtype) * grad: upstream's infinitely_differentiable_native_dropout_backward
 * (grad * (mask.type_as(grad) * scale)) under grad mode, else native_dropout_backward */
static PyObject *dropout_bw(PyObject *grad, PyObject *mask, double scale) {
    if (!tn_grad_enabled()) return tn_at_native_dropout_backward(grad, mask, scale);
    PyObject *mt = tn_at_type_as(mask, grad);
    PyObject *ms = mt ? tn_at_mul_Scalar(mt, TN_SD(scale)) : NULL;
    PyObject *r = ms ? tn_at_mul_Tensor(grad, ms) : NULL;
    Py_XDECREF(mt); Py_XDECREF(ms);
    return r;
}
static int f_native_dropout(tn_node *n, PyObject **g, PyObject **o) {
    /* derivatives.yaml's scale: 1 unless train is given and true (train=None gives 1, as upstream) */
    const tn_value *tr = &n->args[2];
    double p = arg_f(n, 1), scale = (tr->tag == TN_V_NONE || !tr->u.i) ? 1 : (p == 1 ? 0.0 : 1.0 / (1.0 - p));
    if (!g[0]) return 0;
    PyObject *m = result(n, 1);
    if (!m) return -1;
    PUTX(0, dropout_bw(g[0], m, scale), m);
    return 0;
}

/* ---- writes along one dim at indexed positions (ops/index_dim.c) ---- */

/* ---- linalg family (ops/linalg_lapack.c; helper-linalg): FunctionsManual's linalg backward
 * formulas, op by op (real and complex: conjugate transposes, as upstream's; cholesky_ex / cholesky
 * and _linalg_det are generated through bw_linalg.c's helpers) ---- */
#define LA_DECREF(...) do { PyObject *la_[] = {__VA_ARGS__}; for (size_t i_ = 0; i_ < sizeof la_ / sizeof *la_; i_++) Py_XDECREF(la_[i_]); } while (0)
static PyObject *la_mH1(PyObject *x) { return x ? tn_at_mH(x) : NULL; }   /* x^H (a transpose for a real x) */
static PyObject *la_mm(PyObject *a, PyObject *b) { return a && b ? tn_at_matmul(a, b) : NULL; }
static PyObject *la_solve_tri(PyObject *A, PyObject *B, bool upper, bool left, bool unit) {
    if (!A || !B) return NULL;
    return tn_at_linalg_solve_triangular(A, B, upper, left, unit);
}
static PyObject *la_lu_solve(PyObject *LU, PyObject *piv, PyObject *B, bool left, bool adjoint) {
    if (!LU || !piv || !B) return NULL;
    return tn_at_linalg_lu_solve(LU, piv, B, left, adjoint);
}

/* linalg_solve_triangular(self=A, B, upper, left, unitriangular) */
static int f_linalg_solve_triangular(tn_node *n, PyObject **g, PyObject **o) {
    if (!g[0] || (!need(n, 0) && !need(n, 1))) return 0;
    bool upper = arg_i(n, 2) != 0, left = arg_i(n, 3) != 0, unit = arg_i(n, 4) != 0;
    PyObject *A = saved(n, 0), *AH = la_mH1(A), *GB = la_solve_tri(AH, g[0], !upper, left, unit);
    if (!GB) { LA_DECREF(A, AH); return -1; }
    if (need(n, 0)) {
        PyObject *X = result(n, 0), *XH = la_mH1(X), *p = left ? la_mm(GB, XH) : la_mm(XH, GB);
        PyObject *ng = p ? tn_at_neg(p) : NULL;
        PyObject *GA = ng ? (upper ? tn_at_triu(ng, upper ? (int)unit : -(int)unit) : tn_at_tril(ng, upper ? (int)unit : -(int)unit)) : NULL;
        LA_DECREF(X, XH, p, ng);
        if (!GA) { LA_DECREF(A, AH, GB); return -1; }
        put(n, o, 0, GA);
    }
    if (need(n, 1)) put(n, o, 1, GB);
    else Py_DECREF(GB);
    LA_DECREF(A, AH);
    return 0;
}

/* _linalg_solve_ex: linalg_solve_backward(grad, result, A, LU, pivots, left, B needs grad). The saved
 * result is unpacked first (its detach before any op of the formula, as upstream's node unpacks it) */
static int f__linalg_solve_ex(tn_node *n, PyObject **g, PyObject **o) {
    if (!g[0] || (!need(n, 0) && !need(n, 1))) return 0;
    PyObject *X = result(n, 0);
    if (!X) return -1;
    bool left = arg_i(n, 2) != 0;
    const tn_meta *am = meta(n, 0);
    const tn_tensor *gt = tn_tensor_of(g[0]);
    bool vec = gt->ndim == 1 || (am->ndim - 1 == gt->ndim);
    if (vec && gt->ndim > 1)
        for (int i = 0; i < gt->ndim; i++) vec = vec && gt->sizes[i] == tn_meta_sizes(am)[i];
    PyObject *gX = vec ? tn_at_unsqueeze(g[0], -1) : Py_NewRef(g[0]), *gB_ = NULL;
    if (!gX) { Py_DECREF(X); return -1; }
    PyObject *A = saved(n, 0);
    if (tn_grad_enabled()) {   /* higher order: solve again with A^H */
        PyObject *AH = la_mH1(A);
        gB_ = AH ? tn_at_linalg_solve(AH, gX, left) : NULL;
        LA_DECREF(AH);
    } else {
        PyObject *LU = result(n, 1), *piv = result(n, 2);
        gB_ = la_lu_solve(LU, piv, gX, left, true);
        LA_DECREF(LU, piv);
    }
    Py_DECREF(gX);
    if (!gB_) { LA_DECREF(X, A); return -1; }
    if (need(n, 0)) {
        PyObject *Xm = vec ? tn_at_unsqueeze(X, -1) : Py_NewRef(X);
        PyObject *XH = la_mH1(Xm), *p = left ? la_mm(gB_, XH) : la_mm(XH, gB_);
        PyObject *gA = p ? tn_at_neg(p) : NULL;
        LA_DECREF(Xm, XH, p);
        if (!gA) { LA_DECREF(X, A, gB_); return -1; }
        put(n, o, 0, gA);
    }
    if (need(n, 1)) {
        PyObject *gB = vec ? tn_at_squeeze_dim(gB_, -1) : Py_NewRef(gB_);
        if (!gB) { LA_DECREF(X, A, gB_); return -1; }
        put(n, o, 1, gB);
    }
    LA_DECREF(X, A, gB_);
    return 0;
}

static PyObject *la_narrow(PyObject *x, int dim, int64_t len) {
    return x ? tn_at_narrow(x, dim, (long long)0, (long long)len) : NULL;
}
static PyObject *la_mul(PyObject *a, PyObject *b) { return a && b ? tn_at_mul_Tensor(a, b) : NULL; }
static PyObject *la_div(PyObject *a, PyObject *b) { return a && b ? tn_at_div_Tensor(a, b) : NULL; }
static PyObject *la_unsq(PyObject *x, int d) { return x ? tn_at_unsqueeze(x, d) : NULL; }

/* _linalg_svd: svd_backward (bw_linalg.c) on the first k = len(S) columns of U / rows of Vh and of
 * their gradients when full_matrices */
static int f__linalg_svd(tn_node *n, PyObject **g, PyObject **o) {
    if ((!g[0] && !g[1] && !g[2]) || !need(n, 0)) return 0;
    bool full = arg_i(n, 1) != 0;
    PyObject *U0 = result(n, 0), *S = result(n, 1), *Vh0 = result(n, 2);
    if (!U0 || !S || !Vh0) { LA_DECREF(U0, S, Vh0); return -1; }
    int64_t k = tn_tensor_of(S)->sizes[tn_tensor_of(S)->ndim - 1];
    PyObject *gU = g[0] ? (full ? la_narrow(g[0], -1, k) : Py_NewRef(g[0])) : NULL;
    PyObject *gVh = g[2] ? (full ? la_narrow(g[2], -2, k) : Py_NewRef(g[2])) : NULL;
    PyObject *U = full ? la_narrow(U0, -1, k) : Py_NewRef(U0), *Vh = full ? la_narrow(Vh0, -2, k) : Py_NewRef(Vh0);
    PyObject *r = (!g[0] || gU) && (!g[2] || gVh) && U && Vh ? tn_bw_svd_backward(gU, g[1], gVh, U, S, Vh) : NULL;
    LA_DECREF(U0, S, Vh0, gU, gVh, U, Vh);
    if (!r) return -1;
    PUT(0, r);
    return 0;
}

/* ---- pseudo-inverse and least squares (docs/breadth_more2.md): FunctionsManual's pinv_backward and
 * linalg_lstsq_backward, op by op ---- */
static PyObject *la_mH(tmps *T, PyObject *x) { return x ? keep_(T, tn_at_mH(x)) : NULL; }
static PyObject *la_mmk(tmps *T, PyObject *a, PyObject *b) { return keep_(T, la_mm(a, b)); }
static PyObject *la_bink(tmps *T, PyObject *(*op)(PyObject *, PyObject *), PyObject *a, PyObject *b) { return keep_(T, op(a, b)); }
/* pinv_backward(grad, pinvA, A): the matrices of the smaller of m, n inside (m = rows of A);
 * a temporary of T */
static PyObject *pinv_backward(tmps *T, PyObject *grad, PyObject *pA, PyObject *A) {
    const tn_tensor *a = tn_tensor_of(A);
    int64_t m = a->sizes[a->ndim - 2], nn = a->sizes[a->ndim - 1];
    PyObject *pAh = la_mH(T, pA), *gh = la_mH(T, grad);
    if (m <= nn) {
        /* K = grad^H pinvA; -(pinvA K)^H + K pinvA^H - (A pinvA) K pinvA^H + (pinvA^H pinvA)(grad^H - K A) */
        PyObject *Kx = la_mmk(T, gh, pA), *KpAh = la_mmk(T, Kx, pAh);
        PyObject *t1 = keep_(T, tn_at_neg(la_mH(T, la_mmk(T, pA, Kx))));
        PyObject *s = la_bink(T, tn_add_tt, t1, KpAh);
        s = la_bink(T, tn_sub_tt, s, la_mmk(T, la_mmk(T, A, pA), KpAh));
        return la_bink(T, tn_add_tt, s,
                       la_mmk(T, la_mmk(T, pAh, pA), la_bink(T, tn_sub_tt, gh, la_mmk(T, Kx, A))));
    }
    /* K = pinvA grad^H; -(K pinvA)^H + (grad^H - A K) pinvA pinvA^H + pinvA^H K - pinvA^H K pinvA A */
    PyObject *Kx = la_mmk(T, pA, gh), *pAhK = la_mmk(T, pAh, Kx);
    PyObject *t1 = keep_(T, tn_at_neg(la_mH(T, la_mmk(T, Kx, pA))));
    PyObject *s = la_bink(T, tn_add_tt, t1, la_mmk(T, la_mmk(T, la_bink(T, tn_sub_tt, gh, la_mmk(T, A, Kx)), pA), pAh));
    s = la_bink(T, tn_add_tt, s, pAhK);
    return la_bink(T, tn_sub_tt, s, la_mmk(T, la_mmk(T, pAhK, pA), A));
}
/* linalg_pinv.atol_rtol_tensor: pinv_backward(grad, result, self) */
static int f_linalg_pinv(tn_node *n, PyObject **g, PyObject **o) {
    if (!need(n, 0)) return 0;
    T_;
    PyObject *A = K(saved(n, 0)), *pA = A ? K(result(n, 0)) : NULL;
    OUTK(0, pA ? pinv_backward(&T, g[0], pA, A) : NULL);
    DONE;
}
static PyObject *la_pinv(PyObject *A) {   /* at::linalg_pinv(A): no tolerances, not hermitian */
    return tn_at_linalg_pinv_atol_rtol_tensor(A, NULL, NULL, false);
}
/* linalg_lstsq(self, b, rcond, driver): linalg_lstsq_backward(grads[0], grads[1], self, b, solution):
 * the solution's gradient through pinv(A), the residuals' as that of |A X - B|^2 with X fixed; a
 * vector b (linalg_solve_is_vector_rhs) is made a column first */
static int f_linalg_lstsq(tn_node *n, PyObject **g, PyObject **o) {
    bool a_req = need(n, 0), b_req = need(n, 1);
    bool has_gL = g[1] && tn_numel(tn_tensor_of(g[1])) > 0;
    if ((!g[0] && !has_gL) || (!a_req && !b_req)) return 0;
    const tn_meta *ma = meta(n, 0), *mb = meta(n, 1);
    bool vec = tn_linalg_vector_rhs(ma->ndim, tn_meta_sizes(ma), mb->ndim, tn_meta_sizes(mb));
    T_;
    PyObject *A = K(saved(n, 0)), *B0 = A ? K(saved(n, 1)) : NULL;
    PyObject *B = vec ? K(la_unsq(B0, -1)) : B0;
    if (!B) DONE_ERR;
    PyObject *gA = NULL, *gB = NULL;
    if (g[0]) {
        PyObject *gX = vec ? K(la_unsq(g[0], -1)) : g[0], *pA = gX ? K(la_pinv(A)) : NULL;
        if (!pA) DONE_ERR;
        if (a_req && !(gA = pinv_backward(&T, la_mmk(&T, gX, la_mH(&T, B)), pA, A))) DONE_ERR;
        if (b_req) {
            gB = la_mmk(&T, la_mH(&T, pA), gX);
            if (gB && vec) gB = K(tn_at_squeeze_dim(gB, -1));
            if (!gB) DONE_ERR;
        }
    }
    if (has_gL) {
        PyObject *X0 = K(result(n, 0)), *X = vec ? K(la_unsq(X0, -1)) : X0;
        PyObject *r = la_bink(&T, tn_sub_tt, la_mmk(&T, A, X), B), *gL = r ? K(la_unsq(g[1], -2)) : NULL;
        if (!gL) DONE_ERR;
        if (a_req) {
            PyObject *l = K(tn_at_mul_Scalar(la_mmk(&T, la_bink(&T, la_mul, gL, r), la_mH(&T, X)), TN_SI(2)));
            gA = gA ? la_bink(&T, tn_add_tt, gA, l) : l;
            if (!gA) DONE_ERR;
        }
        if (b_req) {
            PyObject *l = la_bink(&T, la_mul, K(tn_at_mul_Scalar(gL, TN_SI(-2))), r);
            if (l && vec) l = K(tn_at_squeeze_dim(l, -1));
            gB = gB ? la_bink(&T, tn_add_tt, gB, l) : l;
            if (!gB) DONE_ERR;
        }
    }
    if (a_req && gA) put(n, o, 0, Py_NewRef(gA));
    if (b_req && gB) put(n, o, 1, Py_NewRef(gB));
    DONE;
}

/* ---- forward AD of pinv and lstsq (docs/breadth_more2.md): FunctionsManual's pinv_jvp,
 * linalg_lstsq_solution_jvp and linalg_lstsq_residuals_jvp, op by op; forward_formulas.c calls them
 * for derivatives.yaml's `result:` / `solution:` / `residuals:` entries ---- */
/* pinv_jvp(A, pinvA, dA) = -Ap dA Ap + (I - Ap A) dA^H Ap^H Ap + Ap Ap^H dA^H (I - A Ap), grouped as
 * upstream's so that the products are of the smaller of m, n; a temporary of T */
static PyObject *pinv_jvp(tmps *T, PyObject *A, PyObject *pA, PyObject *dA) {
    const tn_tensor *a = tn_tensor_of(A);
    int64_t m = a->sizes[a->ndim - 2], nn = a->sizes[a->ndim - 1];
    PyObject *dAh = la_mH(T, dA), *pAh = la_mH(T, pA);
    if (m <= nn) {
        /* K = pinvA^H dA^H; pinvA (K - K^H - K (A pinvA)) + (dA^H - pinvA (A dA^H)) (pinvA^H pinvA) */
        PyObject *Kx = la_mmk(T, pAh, dAh);
        PyObject *s = la_bink(T, tn_sub_tt, la_bink(T, tn_sub_tt, Kx, la_mH(T, Kx)), la_mmk(T, Kx, la_mmk(T, A, pA)));
        PyObject *l = la_mmk(T, pA, s);
        PyObject *r = la_mmk(T, la_bink(T, tn_sub_tt, dAh, la_mmk(T, pA, la_mmk(T, A, dAh))), la_mmk(T, pAh, pA));
        return la_bink(T, tn_add_tt, l, r);
    }
    /* K = pinvA dA; (K^H - K - (pinvA A) K^H) pinvA + (pinvA pinvA^H) (dA^H - (dA^H A) pinvA) */
    PyObject *Kx = la_mmk(T, pA, dA), *Kh = la_mH(T, Kx);
    PyObject *s = la_bink(T, tn_sub_tt, la_bink(T, tn_sub_tt, Kh, Kx), la_mmk(T, la_mmk(T, pA, A), Kh));
    PyObject *l = la_mmk(T, s, pA);
    PyObject *r = la_mmk(T, la_mmk(T, pA, pAh), la_bink(T, tn_sub_tt, dAh, la_mmk(T, la_mmk(T, dAh, A), pA)));
    return la_bink(T, tn_add_tt, l, r);
}
PyObject *tn_pinv_jvp(PyObject *A, PyObject *pA, PyObject *dA) {
    T_;
    PyObject *r = pinv_jvp(&T, A, pA, dA);
    Py_XINCREF(r);
    drop_(&T);
    return r;
}
/* linalg_solve_is_vector_rhs(A, B) */
static bool ls_vector_rhs(PyObject *A, PyObject *B) {
    const tn_tensor *a = tn_tensor_of(A), *b = tn_tensor_of(B);
    return tn_linalg_vector_rhs(a->ndim, a->sizes, b->ndim, b->sizes);
}
/* linalg_lstsq_solution_jvp(A, B, dA, dB) = pinv_jvp(A, pinv(A), dA) B + pinv(A) dB, a vector B
 * made a column first */
PyObject *tn_lstsq_solution_jvp(PyObject *A, PyObject *B0, PyObject *dA, PyObject *dB0) {
    bool vec = ls_vector_rhs(A, B0);
    T_;
    PyObject *B = vec ? K(la_unsq(B0, -1)) : B0, *dB = vec ? K(la_unsq(dB0, -1)) : dB0;
    PyObject *pA = B && dB ? K(la_pinv(A)) : NULL, *dpA = pA ? pinv_jvp(&T, A, pA, dA) : NULL;
    PyObject *dX = la_bink(&T, tn_add_tt, la_mmk(&T, dpA, B), la_mmk(&T, pA, dB));
    PyObject *r = dX && vec ? tn_at_squeeze_dim(dX, -1) : Py_XNewRef(dX);
    drop_(&T);
    return r;
}
/* linalg_lstsq_residuals_jvp(A, B, dA, dB, X, L) = 2 Re(r * conj(dr)).sum(-2), r = A X - B,
 * dr = dA X - dB (X held fixed: Danskin's theorem); an empty L (no residuals computed) gives a copy */
PyObject *tn_lstsq_residuals_jvp(PyObject *A, PyObject *B0, PyObject *dA, PyObject *dB0, PyObject *X0, PyObject *L) {
    if (tn_numel(tn_tensor_of(L)) == 0) return tn_at_clone(L, NULL);
    bool vec = ls_vector_rhs(A, B0);
    T_;
    PyObject *B = vec ? K(la_unsq(B0, -1)) : B0, *dB = vec ? K(la_unsq(dB0, -1)) : dB0, *X = vec ? K(la_unsq(X0, -1)) : X0;
    PyObject *r = la_bink(&T, tn_sub_tt, la_mmk(&T, A, X), B), *dr = la_bink(&T, tn_sub_tt, la_mmk(&T, dA, X), dB);
    PyObject *p = dr ? la_bink(&T, la_mul, r, K(tn_at_conj(dr))) : NULL;
    PyObject *re = p ? K(tn_at_real(p)) : NULL;
    PyObject *sm = re ? K(tn_at_sum_dim_IntList(re, TN_IS(-2), false, NULL)) : NULL;
    PyObject *res = sm ? tn_at_mul_Scalar(sm, TN_SI(2)) : NULL;
    drop_(&T);
    return res;
}

/* ---- Householder products (docs/breadth_more2.md): FunctionsManual's householder_product_backward
 * (linalg_householder_product) and ormqr_backward, op by op. H_i = I - tau_i v_i v_i^H; K is updated
 * by reflectors from both sides, H(sigma_i) = H(tau_i)^-1 with sigma = tau / (tau |v|^2 - 1). Without
 * grad mode K is updated in place on its rows / columns i.. (v_i is zero above row i), as upstream;
 * with grad mode out of place on the whole matrix. ---- */
static PyObject *hh_narrow(PyObject *x, int dim, int64_t start, int64_t len) {
    return x ? tn_at_narrow(x, dim, (long long)start, (long long)len) : NULL;
}
/* apply_simple_transformation(m, k, v, v, t, K, in_place, condition_with_I=true, left): (I - t v v^H) K
 * (left) or K (I - t v v^H). Steals K; returns the new K. */
static PyObject *hh_reflect(int64_t m, int64_t k, PyObject *v_full, PyObject *t, PyObject *Km, bool in_place, bool left) {
    if (!Km) return NULL;
    T_;
    PyObject *tu = K(la_unsq(t, -1)), *r = NULL;
    if (in_place) {
        PyObject *v = K(hh_narrow(v_full, -2, k, m - k)), *Kp = K(hh_narrow(Km, left ? -2 : -1, k, m - k));
        PyObject *d = left ? la_bink(&T, la_mul, la_bink(&T, la_mul, tu, v), la_mmk(&T, la_mH(&T, v), Kp))
                           : la_bink(&T, la_mul, la_mmk(&T, Kp, la_bink(&T, la_mul, tu, v)), la_mH(&T, v));
        PyObject *sub = d ? K(tn_at_sub__Tensor(Kp, d, TN_SDEF)) : NULL;
        r = sub ? Py_NewRef(Km) : NULL;
    } else {
        PyObject *d = left ? la_bink(&T, la_mul, la_bink(&T, la_mul, tu, v_full), la_mmk(&T, la_mH(&T, v_full), Km))
                           : la_bink(&T, la_mul, la_mmk(&T, Km, la_bink(&T, la_mul, tu, v_full)), la_mH(&T, v_full));
        r = d ? tn_at_sub_Tensor(Km, d, TN_SDEF) : NULL;
    }
    Py_DECREF(Km);
    drop_(&T);
    return r;
}
/* update_grad: v_i's and tau_i's gradients from K, written into column i of gin / element i of gtau */
static int hh_update(int64_t m, int64_t i, PyObject *v_full, PyObject *t, PyObject *K, PyObject *gin, PyObject *gtau) {
    T_;
    PyObject *v = K(hh_narrow(v_full, -2, i, m - i));
    PyObject *vHK = la_mmk(&T, la_mH(&T, v), K(hh_narrow(K, -2, i, m - i)));
    PyObject *Kv = la_mmk(&T, K(hh_narrow(K, -1, i, m - i)), v), *tu = K(la_unsq(t, -1));
    PyObject *a = tu ? K(tn_at_neg(tu)) : NULL;
    a = la_bink(&T, la_mul, a, vHK);
    a = a ? K(tn_at_squeeze_dim(K(tn_at_conj(a)), -2)) : NULL;
    PyObject *b = la_bink(&T, la_mul, tu, Kv);
    b = b ? K(tn_at_squeeze_dim(b, -1)) : NULL;
    PyObject *vg = la_bink(&T, tn_sub_tt, a, b);
    vg = vg ? K(tn_at_squeeze_dim(K(la_unsq(vg, -1)), -1)) : NULL;   /* returned unsqueezed, copied squeezed */
    PyObject *tg = la_mmk(&T, K(hh_narrow(vHK, -1, i, m - i)), v);
    tg = tg ? K(tn_at_neg(K(tn_at_conj(tg)))) : NULL;
    tg = tg ? K(tn_at_squeeze_dim(tg, -1)) : NULL;   /* (tau_grad.squeeze(-1)).squeeze(-1) */
    PyObject *c1 = vg ? K(tn_at_copy_(K(tn_at_select_int(gin, -1, (long long)i)), vg, false)) : NULL;
    PyObject *c2 = c1 && tg ? K(tn_at_copy_(K(tn_at_select_int(gtau, -1, (long long)i)), K(tn_at_squeeze_dim(tg, -1)), false)) : NULL;
    drop_(&T);
    return c2 ? 0 : -1;
}
/* householder_product_backward(grad, result, input, tau, flip_order): (input_grad, tau_grad) into
 * *gi / *gt (new references; both NULL without an error when there is nothing to do) */
static int hh_backward(PyObject *grad, PyObject *result, PyObject *input_, PyObject *tau, bool flip, PyObject **gi, PyObject **gt) {
    *gi = *gt = NULL;
    const tn_tensor *ti = tn_tensor_of(input_), *tt = tn_tensor_of(tau);
    if (!grad || tn_numel(ti) == 0 || tn_numel(tt) == 0) return 0;
    int64_t m = ti->sizes[ti->ndim - 2], k = tt->sizes[tt->ndim - 1];
    bool in_place = !tn_grad_enabled(), left = !flip;
    T_;
    PyObject *in = K(tn_at_tril(input_, -1));
    PyObject *dg = in ? K(tn_at_diagonal(in, 0, -2, -1)) : NULL;
    PyObject *fl = dg ? K(tn_at_fill__Scalar(dg, TN_SD(1.0))) : NULL;
    PyObject *ik = fl ? K(hh_narrow(in, -1, 0, k)) : NULL;
    PyObject *nsq = ik ? K(tn_at_sum_dim_IntList(la_bink(&T, la_mul, ik, K(tn_at_conj(ik))), TN_IS(-2), false, NULL)) : NULL;
    PyObject *den = nsq ? K(tn_at_sub_Scalar(la_bink(&T, la_mul, tau, nsq), TN_SD(1.0), TN_SDEF)) : NULL;
    PyObject *sigma = la_bink(&T, la_div, tau, den);
    PyObject *Kx = sigma ? tn_at_matmul(result, la_mH(&T, grad)) : NULL;   /* owned, updated below */
    PyObject *gin = Kx ? K(tn_at_zeros_like(input_, NULL, NULL, NULL, NULL, NULL)) : NULL;
    PyObject *gtau = gin ? K(tn_at_zeros_like(tau, NULL, NULL, NULL, NULL, NULL)) : NULL;
    if (!gtau) { Py_XDECREF(Kx); DONE_ERR; }
    /* the loop's columns are released as it goes (T holds a fixed number of temporaries) */
    int64_t z = flip ? k - 1 : 0, last = flip ? 0 : k - 1;
    PyObject *vz = hh_narrow(in, -1, z, 1), *sz = vz ? hh_narrow(sigma, -1, z, 1) : NULL;
    Kx = sz ? hh_reflect(m, z, vz, sz, Kx, in_place, left) : (Py_DECREF(Kx), NULL);
    Py_XDECREF(vz);
    Py_XDECREF(sz);
    for (int64_t idx = 0; Kx && idx < k; idx++) {
        int64_t i = flip ? k - idx - 1 : idx;
        PyObject *v = hh_narrow(in, -1, i, 1), *t = v ? hh_narrow(tau, -1, i, 1) : NULL;
        if (!t || hh_update(m, i, v, t, Kx, gin, gtau) < 0) Py_CLEAR(Kx);
        else if (i != last) {
            int64_t nx = flip ? i - 1 : i + 1;
            PyObject *vn = hh_narrow(in, -1, nx, 1), *sn = vn ? hh_narrow(sigma, -1, nx, 1) : NULL;
            Kx = sn ? hh_reflect(m, nx, vn, sn, Kx, in_place, left) : (Py_DECREF(Kx), NULL);
            Kx = hh_reflect(m, i, v, t, Kx, in_place, !left);
            Py_XDECREF(vn);
            Py_XDECREF(sn);
        }
        Py_XDECREF(v);
        Py_XDECREF(t);
    }
    if (!Kx || !K(tn_at_tril_(gin, -1))) { Py_XDECREF(Kx); DONE_ERR; }
    Py_DECREF(Kx);
    *gi = Py_NewRef(gin);
    *gt = Py_NewRef(gtau);
    DONE;
}
/* householder_product_jvp(dV, dtau, prod, V, tau): dQ = sum_i H_1..H_{i-1} dH_i H_{i+1}..H_k (first n
 * columns), dH_i = -(dtau_i v_i v_i^H + tau_i dv_i v_i^H + tau_i v_i dv_i^H); H_plus starts as the
 * product and loses H_i from the left (H(sigma_i) = H_i^-1), H_minus gains it on the right; all out of
 * place, as upstream's */
static PyObject *hh_simple(PyObject *u, PyObject *v, PyObject *t, PyObject *Km) {   /* -(t u v^H) K */
    T_;
    PyObject *d = la_bink(&T, la_mul, la_bink(&T, la_mul, K(la_unsq(t, -1)), u), la_mmk(&T, la_mH(&T, v), Km));
    PyObject *r = d ? tn_at_neg(d) : NULL;
    drop_(&T);
    return r;
}
PyObject *tn_householder_product_jvp(PyObject *dV0, PyObject *dtau, PyObject *prod, PyObject *V0, PyObject *tau) {
    const tn_tensor *tv = tn_tensor_of(V0), *tt = tn_tensor_of(tau);
    int64_t m = tv->sizes[tv->ndim - 2], k = tt->sizes[tt->ndim - 1];
    T_;
    PyObject *V = K(tn_at_tril(V0, -1));
    PyObject *dg = V ? K(tn_at_diagonal(V, 0, -2, -1)) : NULL;
    PyObject *fl = dg ? K(tn_at_fill__Scalar(dg, TN_SD(1.0))) : NULL;
    PyObject *dV = fl ? K(tn_at_tril(dV0, -1)) : NULL;
    PyObject *vk = dV ? K(hh_narrow(V, -1, 0, k)) : NULL;
    PyObject *nsq = vk ? K(tn_at_sum_dim_IntList(la_bink(&T, la_mul, vk, K(tn_at_conj(vk))), TN_IS(-2), false, NULL)) : NULL;
    PyObject *den = nsq ? K(tn_at_sub_Scalar(la_bink(&T, la_mul, tau, nsq), TN_SD(1.0), TN_SDEF)) : NULL;
    PyObject *sigma = la_bink(&T, la_div, tau, den);
    PyObject *bsz = sigma ? K(tn_py_size_new(tv->ndim - 1, tv->sizes)) : NULL;
    PyObject *Hm = bsz ? tn_at_diag_embed(K(tn_at_new_ones(V, TN_IPY(bsz), NULL, NULL, NULL, NULL)), 0, -2, -1) : NULL;   /* owned */
    PyObject *Hp = Hm ? tn_at_clone(K(tn_at_detach(prod)), NULL) : NULL;   /* owned */
    PyObject *dprod = Hp ? K(tn_at_zeros_like(prod, NULL, NULL, NULL, NULL, NULL)) : NULL;
    if (!dprod) { Py_XDECREF(Hm); Py_XDECREF(Hp); drop_(&T); return NULL; }
    /* the loop's columns are released as it goes (T holds a fixed number of temporaries) */
    for (int64_t i = 0; Hp && Hm && i < k; i++) {
        PyObject *v = hh_narrow(V, -1, i, 1), *dv = hh_narrow(dV, -1, i, 1), *t = hh_narrow(tau, -1, i, 1);
        PyObject *dt = hh_narrow(dtau, -1, i, 1), *s = hh_narrow(sigma, -1, i, 1);
        if (!v || !dv || !t || !dt || !s) Py_CLEAR(Hp);
        Hp = Hp ? hh_reflect(m, 0, v, s, Hp, false, true) : NULL;
        PyObject *a = Hp ? hh_simple(v, v, dt, Hp) : NULL, *b = a ? hh_simple(dv, v, t, Hp) : NULL;
        PyObject *c = b ? hh_simple(v, dv, t, Hp) : NULL, *ab = c ? tn_add_tt(a, b) : NULL;
        PyObject *abc = ab ? tn_add_tt(ab, c) : NULL, *x = abc ? la_mm(Hm, abc) : NULL;
        PyObject *ad = x ? tn_at_add__Tensor(dprod, x, TN_SDEF) : NULL;
        if (!ad) Py_CLEAR(Hp);
        else Hm = hh_reflect(m, 0, v, t, Hm, false, false);
        LA_DECREF(v, dv, t, dt, s, a, b, c, ab, abc, x, ad);
    }
    PyObject *r = Hp && Hm ? Py_NewRef(dprod) : NULL;
    Py_XDECREF(Hm);
    Py_XDECREF(Hp);
    drop_(&T);
    return r;
}
/* linalg_householder_product(input, tau): householder_product_backward(grad, result, input, tau) */
static int f_linalg_householder_product(tn_node *n, PyObject **g, PyObject **o) {
    if (!need(n, 0) && !need(n, 1)) return 0;
    T_;
    PyObject *in = K(saved(n, 0)), *tau = in ? K(saved(n, 1)) : NULL, *res = tau ? K(result(n, 0)) : NULL, *gi, *gt;
    if (!res || hh_backward(g[0], res, in, tau, false, &gi, &gt) < 0) DONE_ERR;
    K(gi), K(gt);
    if (gi && need(n, 0)) put(n, o, 0, Py_NewRef(gi));
    if (gt && need(n, 1)) put(n, o, 1, Py_NewRef(gt));
    DONE;
}
/* ormqr(self, tau, other, left, transpose): other: ormqr(self, tau, grad, left, !transpose); self and
 * tau through householder_product_backward, with grad and result (conjugate-)transposed and the
 * order flipped as upstream's ormqr_backward chooses by left ^ transpose */
static int f_ormqr(tn_node *n, PyObject **g, PyObject **o) {
    bool left = arg_i(n, 3) != 0, tr = arg_i(n, 4) != 0;
    if (!g[0]) return 0;
    T_;
    PyObject *self = K(saved(n, 0)), *tau = self ? K(saved(n, 1)) : NULL;
    if (!tau) DONE_ERR;
    if (need(n, 2)) {
        PyObject *og = K(tn_at_ormqr(self, tau, g[0], left, !(tr)));
        if (!og) DONE_ERR;
        put(n, o, 2, Py_NewRef(og));
    }
    if (need(n, 0) || need(n, 1)) {
        PyObject *res = K(result(n, 0)), *hg, *hr, *gi, *gt;
        if (!res) DONE_ERR;
        if (left ^ tr) { hg = tr ? la_mH(&T, g[0]) : g[0]; hr = tr ? la_mH(&T, res) : res; }
        else { hg = tr ? res : la_mH(&T, res); hr = tr ? g[0] : la_mH(&T, g[0]); }
        if (!hg || !hr || hh_backward(hg, hr, self, tau, !(left ^ tr), &gi, &gt) < 0) DONE_ERR;
        K(gi), K(gt);
        if (gi && need(n, 0)) put(n, o, 0, Py_NewRef(gi));
        if (gt && need(n, 1)) put(n, o, 1, Py_NewRef(gt));
    }
    DONE;
}

/* ---- *_copy view variants (ops/copies.c; helper-opa): the views' formulas (narrow_copy's is
 * generated) ---- */

/* ---- distances: _cdist_forward / _pdist_forward / _euclidean_dist (ops/distance.c; helper-opa) ---- */
/* _euclidean_dist_backward(grad, x1, x2, res): ratio = grad / res, 0 where res == 0;
 * x1: x1 * ratio.sum(-1, true) - ratio.matmul(x2); x2: x2 * ratio.sum(-2).unsqueeze(-1) - ratio.mT().matmul(x1) */
static int f__euclidean_dist(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    if (!g[0]) DONE;
    PyObject *x1 = K(saved(n, 0)), *x2 = K(saved(n, 1)), *res = K(result(n, 0));
    PyObject *ratio = K(tn_at_div_Tensor(g[0], res));
    PyObject *z = ratio ? K(tn_at_eq_Scalar(res, TN_SI(0))) : NULL;
    if (!z || !K(tn_at_masked_fill__Scalar(ratio, z, TN_SI(0)))) { drop_(&T); return -1; }
    if (need(n, 0)) {
        PyObject *s = K(tn_at_sum_dim_IntList(ratio, TN_IS(-1), true, NULL));
        PyObject *a = s ? K(tn_at_mul_Tensor(x1, s)) : NULL;
        PyObject *b = a ? K(tn_at_matmul(ratio, x2)) : NULL;
        OUTK(0, b ? K(tn_at_sub_Tensor(a, b, TN_SDEF)) : NULL);
    }
    if (need(n, 1)) {
        PyObject *s = K(tn_at_sum_dim_IntList(ratio, TN_IS(-2), false, NULL));
        PyObject *u = s ? K(tn_at_unsqueeze(s, -1)) : NULL;
        PyObject *a = u ? K(tn_at_mul_Tensor(x2, u)) : NULL;
        PyObject *rt = a ? K(tn_at_transpose_int(ratio, -2, -1)) : NULL;
        PyObject *b = rt ? K(tn_at_matmul(rt, x1)) : NULL;
        OUTK(1, b ? K(tn_at_sub_Tensor(a, b, TN_SDEF)) : NULL);
    }
    DONE;
}


/* ==== misc breadth family (ops/misc_ops.c; helper-misc) ==== */

/* aminmax(self, dim?, keepdim): aminmax_backward: for each defined grad (min, then max)
 * scale_grad_by_count(restore(grad), self == restore(result), dims), summed */
static PyObject *aminmax_part(tn_node *n, tmps *Tp, PyObject *gk, int k) {
#define KK(x) keep_(Tp, (x))
    const tn_meta *m = meta(n, 0);
    int nd = m->ndim;
    const int64_t *sz = tn_meta_sizes(m);
    bool kd = n->args[2].u.i != 0, all = n->args[1].tag == TN_V_NONE;
    int64_t d = 0, shape[TN_MAX_DIMS], dims[TN_MAX_DIMS];
    int ndims = 0;
    if (!all) { d = arg_i(n, 1); if (d < 0) d += nd; }
    for (int i = 0; i < nd; i++) {
        shape[i] = all || i == d ? 1 : sz[i];
        if (all || i == d) dims[ndims++] = i;
    }
    PyObject *gr = gk, *rr = KK(result(n, k));
    if (!kd && rr) {
        PyObject *sl = KK(tn_int_list(shape, nd));
        gr = sl ? KK(tn_at_view(gk, TN_IPY(sl))) : NULL;
        rr = gr ? KK(tn_at_view(rr, TN_IPY(sl))) : NULL;
    }
    PyObject *mask = rr ? KK(tn_at_eq_Tensor(KK(saved(n, 0)), rr)) : NULL;
    PyObject *dl = mask ? KK(tn_int_list(dims, ndims)) : NULL;
    PyObject *cnt = dl ? KK(tn_at_sum_dim_IntList(mask, TN_IPY(dl), true, NULL)) : NULL;
    PyObject *q = cnt ? KK(tn_at_div_Tensor(gr, cnt)) : NULL;
    return q ? KK(tn_at_mul_Tensor(q, mask)) : NULL;
#undef KK
}
static int f_aminmax(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *pmin = g[0] ? aminmax_part(n, &T, g[0], 0) : NULL;
    if (g[0] && !pmin) { drop_(&T); return -1; }
    PyObject *pmax = g[1] ? aminmax_part(n, &T, g[1], 1) : NULL;
    if (g[1] && !pmax) { drop_(&T); return -1; }
    PyObject *r = pmin && pmax ? K(tn_at_add_Tensor(pmin, pmax, TN_SDEF)) : pmin ? pmin : pmax;
    if (r || PyErr_Occurred()) OUTK(0, r);
    DONE;
}
/* _trilinear: _trilinear_backward, each input's gradient another _trilinear with grad in its place
 * and sumdim / its expand swapped */
static int f_trilinear(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *i1 = K(saved(n, 0)), *i2 = K(saved(n, 1)), *i3 = K(saved(n, 2));
    PyObject *e1 = K(arg_obj(n, 3)), *e2 = K(arg_obj(n, 4)), *e3 = K(arg_obj(n, 5)), *sd = K(arg_obj(n, 6));
    if (need(n, 0)) OUTK(0, K(tn_at__trilinear(g[0], i2, i3, TN_IPY(sd), TN_IPY(e2), TN_IPY(e3), TN_IPY(e1), 1)));
    if (need(n, 1)) OUTK(1, K(tn_at__trilinear(i1, g[0], i3, TN_IPY(e1), TN_IPY(sd), TN_IPY(e3), TN_IPY(e2), 1)));
    if (need(n, 2)) OUTK(2, K(tn_at__trilinear(i1, i2, g[0], TN_IPY(e1), TN_IPY(e2), TN_IPY(sd), TN_IPY(e3), 1)));
    DONE;
}

/* ---- special family (helper-special): Bessel I, sinc, erfinv, ndtri, entr, logaddexp2,
 * xlog1py, zeta, ldexp, complex, frexp, angle, nansum ----
 * derivatives.yaml and FunctionsManual (i1_backward, i1e_backward, sinc_backward, angle_backward,
 * nansum_backward), op by op. */


/* ---- fft family (helper-fft): derivatives.yaml's _fft_r2c / _fft_c2r / _fft_c2c, following
 * FunctionsManual's fft_r2c_backward / fft_c2r_backward op by op ---- */
static PyObject *fft_real_of(PyObject *c) {   /* at::real: view_as_real + select(-1, 0); steals c */
    if (!c) return NULL;
    PyObject *r = tn_at_real(c);
    Py_DECREF(c);
    return r;
}
static int f_fft_r2c(tn_node *n, PyObject **g, PyObject **o) {
    if (!need(n, 0)) return 0;
    PyObject *dim = arg_obj(n, 1);
    if (!dim) return -1;
    int64_t norm = arg_i(n, 2);
    bool onesided = arg_i(n, 3) != 0;
    PyObject *full = Py_NewRef(g[0]);
    if (onesided) {
        const tn_tensor *gt = tn_tensor_of(g[0]);
        int ndim = gt->ndim, last;
        Py_ssize_t nd = PyList_Size(dim);
        int64_t dl = PyLong_AsLongLong(PyList_GetItem(dim, nd - 1));
        last = (int)(dl < 0 ? dl + ndim : dl);
        int64_t last_size = tn_meta_sizes(meta(n, 0))[last];
        if (last_size - gt->sizes[last] > 0) {
            int64_t sz[TN_MAX_DIMS];
            memcpy(sz, gt->sizes, (size_t)ndim * sizeof *sz);
            sz[last] = last_size;
            PyObject *szo = tn_py_size_new(ndim, sz);
            Py_SETREF(full, szo ? tn_at_new_zeros(g[0], TN_IPY(szo), NULL, NULL, NULL, NULL) : NULL);
            Py_XDECREF(szo);
            PyObject *sl = full ? tn_at_slice_Tensor(full, last, TN_I((long long)0), TN_I((long long)gt->sizes[last]), 1) : NULL;
            PyObject *c = sl ? tn_at_copy_(sl, g[0], false) : NULL;
            Py_XDECREF(sl);
            if (!c) Py_CLEAR(full);
            Py_XDECREF(c);
        }
    }
    PyObject *r = full ? fft_real_of(tn_at__fft_c2c(full, TN_IPY(dim), (long long)norm, false)) : NULL;
    Py_XDECREF(full);
    Py_DECREF(dim);
    if (!r) return -1;
    put(n, o, 0, r);
    return 0;
}
static int f_fft_c2r(tn_node *n, PyObject **g, PyObject **o) {
    if (!need(n, 0)) return 0;
    PyObject *dim = arg_obj(n, 1);
    if (!dim) return -1;
    PyObject *gi = tn_at__fft_r2c(g[0], TN_IPY(dim), (long long)arg_i(n, 2), true);
    if (gi) {
        Py_ssize_t nd = PyList_Size(dim);
        int64_t dl = PyLong_AsLongLong(PyList_GetItem(dim, nd - 1));
        const tn_tensor *t = tn_tensor_of(gi);
        int last = (int)(dl < 0 ? dl + t->ndim : dl);
        int64_t dbl = tn_tensor_of(g[0])->sizes[last] - t->sizes[last];
        if (dbl > 0) {
            PyObject *nw = tn_at_narrow(gi, last, (long long)1, (long long)dbl);
            PyObject *two = PyLong_FromLong(2);
            PyObject *m = nw && two ? tn_at_mul__Scalar(nw, TN_SO(two)) : NULL;
            if (!m) Py_CLEAR(gi);
            Py_XDECREF(m); Py_XDECREF(nw); Py_XDECREF(two);
        }
    }
    Py_DECREF(dim);
    if (!gi) return -1;
    put(n, o, 0, gi);
    return 0;
}

/* ---- recurrent layers (helper-rnn): packed sequences ---- */

/* mkldnn_rnn_layer: input, weight0..3, hx_, cx_ get mkldnn_rnn_layer_differentiable_backward(...)
 * under create_graph (its ops recorded), else the mkldnn_rnn_layer_backward op (one node-free call) */
static int f_mkldnn_rnn_layer(tn_node *n, PyObject **g, PyObject **o) {
    if (!g[0] && !g[1] && !g[2]) return 0;
    PyObject *sv[7] = {0}, *rs[4] = {0}, *r = NULL;
    int rc = -1;
    for (int i = 0; i < 7; i++) if (!(sv[i] = saved(n, i))) goto done;
    for (int k = 0; k < 4; k++) if (!(rs[k] = result(n, k))) goto done;
    PyObject *go = g[0] ? g[0] : Py_None, *gh = g[1] ? g[1] : Py_None, *gc = g[2] ? g[2] : Py_None;
    if (tn_grad_enabled())
        r = tn_rnn_lstm_layer_backward(sv[0], sv[1], sv[2], sv[3], sv[4], sv[5], sv[6], rs[0], g[0], g[1], g[2],
                                       arg_i(n, 7) != 0, arg_i(n, 10), arg_i(n, 12) != 0, false);
    else {
        PyObject *bs = arg_obj(n, 8);
        r = bs ? tn_at_mkldnn_rnn_layer_backward(sv[0], sv[1], sv[2], sv[3], sv[4], sv[5], sv[6], rs[0], rs[1], rs[2], go, gh, gc, arg_i(n, 7), (long long)arg_i(n, 9), (long long)arg_i(n, 10), (long long)arg_i(n, 11), arg_i(n, 12), arg_i(n, 15), arg_i(n, 13), TN_IPY(bs), arg_i(n, 14), rs[3]) : NULL;
        Py_XDECREF(bs);
    }
    if (!r) goto done;
    for (int i = 0; i < 7; i++) {
        PyObject *v = PySequence_GetItem(r, i);
        if (!v) goto done;
        if (need(n, i) && v != Py_None) put(n, o, i, v);
        else Py_DECREF(v);
    }
    rc = 0;
done:
    for (int i = 0; i < 7; i++) Py_XDECREF(sv[i]);
    for (int k = 0; k < 4; k++) Py_XDECREF(rs[k]);
    Py_XDECREF(r);
    return rc;
}

/* ---- breadth-more (helper-breadth, docs/breadth_more.md) ---- */

/* segment_reduce: data: _segment_reduce_backward(grad, result, data, reduce, lengths, offsets,
 * axis, initial) (args: data, reduce, lengths, indices, offsets, axis, unsafe, initial) */
static int f_segment_reduce(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *data = K(saved(n, 0)), *res = K(result(n, 0));
    PyObject *red = K(arg_obj(n, 1)), *init = K(arg_obj(n, 7));
    PyObject *len = n->args[2].tag == TN_V_TENSOR ? K(saved(n, 2)) : NULL;
    PyObject *off = n->args[4].tag == TN_V_TENSOR ? K(saved(n, 4)) : NULL;
    const char *mode = red ? PyUnicode_AsUTF8AndSize(red, NULL) : NULL;
    if (!data || !res || !mode || !init) { drop_(&T); return -1; }
    OUTK(0, K(tn_at__segment_reduce_backward(g[0], res, data, mode, len, off, arg_i(n, 5), TN_SO(init))));
    DONE;
}


/* linalg_matrix_exp: self: linalg_matrix_exp_differential(self, grad, adjoint = true) */
static int f_linalg_matrix_exp(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    if (!g[0]) DONE;
    PyObject *A = K(saved(n, 0));
    if (!A) { drop_(&T); return -1; }
    OUTK(0, K(tn_matrix_exp_differential(A, g[0], true)));
    DONE;
}


/* _weight_norm_interface(v, g, dim) -> (w, norm): v, g: grad.defined() ? (GradMode::is_enabled() ?
 * _weight_norm_differentiable_backward(grad.contiguous(), v, g, result1, dim) :
 * _weight_norm_interface_backward(grad.contiguous(), v, g, result1, dim)) : nothing */
static int f_weight_norm_interface(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    if (!g[0]) DONE;
    PyObject *gc = K(tn_at_contiguous(g[0], NULL)), *v = gc ? K(saved(n, 0)) : NULL;
    PyObject *gs = v ? K(saved(n, 1)) : NULL, *r1 = gs ? K(result(n, 1)) : NULL;
    if (!r1) DONE_ERR;
    PyObject *r = K((tn_grad_enabled() ? tn_at__weight_norm_differentiable_backward : tn_at__weight_norm_interface_backward)(
        gc, v, gs, r1, arg_i(n, 2)));
    if (!r) DONE_ERR;
    for (int k = 0; k < 2; k++) {
        PyObject *x = PyTuple_GetItem(r, k);
        if (x && x != Py_None && need(n, k)) put(n, o, k, Py_NewRef(x));
    }
    DONE;
}


/* ==== helper-autograd (second round): sgn's derivative (abs's double backward goes through it) ====
 * sgn_backward(self, grad, result), op for op as upstream's (measured under a dispatch mode):
 * ((gx - (sgn * sgn) * gx.conj()) / (2. * abs)).masked_fill_(abs == 0., 0.) */
static int f_sgn(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *x = K(saved(n, 0)), *sg = x ? K(result(n, 0)) : NULL;
    if (!sg) { drop_(&T); return -1; }
    PyObject *ab = K(tn_at_abs(x));
    PyObject *ab2 = ab ? K(tn_at_mul_Scalar(ab, TN_SD(2.0))) : NULL;
    PyObject *gc = ab2 ? K(tn_at_conj(g[0])) : NULL;
    PyObject *s2 = gc ? K(tn_at_mul_Tensor(sg, sg)) : NULL;
    PyObject *t = s2 ? K(tn_at_mul_Tensor(s2, gc)) : NULL;
    PyObject *d = t ? K(tn_at_sub_Tensor(g[0], t, TN_SDEF)) : NULL;
    PyObject *q = d ? K(tn_at_div_Tensor(d, ab2)) : NULL;
    PyObject *z = q ? K(tn_at_eq_Scalar(ab, TN_SD(0.0))) : NULL;
    OUTK(0, z ? K(tn_at_masked_fill__Scalar(q, z, TN_SD(0.0))) : NULL);
    DONE;
}

/* ==== torch.nested's jagged layout (derivatives.yaml): the NestedTensor accessors below are
 * answered by its class through the door (dispatch/subclass.c) ==== */
static PyObject *undef_null(PyObject *o) { return o == Py_None ? NULL : o; }   /* an undefined tensor */

/* the jagged metadata of saved NestedTensor `self`: offsets, dummy, lengths, ragged_idx, min / max seqlen */
typedef struct { PyObject *off, *dummy, *len, *min, *max; int64_t ragged_idx; } jagged_meta;
static int jagged_of(tmps *t, PyObject *self, jagged_meta *j) {
    j->off = keep_(t, tn_at__nested_get_offsets(self));
    j->dummy = j->off ? keep_(t, tn_at__nested_get_jagged_dummy(self)) : NULL;
    j->len = j->dummy ? keep_(t, tn_at__nested_get_lengths(self)) : NULL;
    PyObject *ri = j->len ? keep_(t, tn_at__nested_get_ragged_idx(self)) : NULL;
    j->min = ri ? keep_(t, tn_at__nested_get_min_seqlen(self)) : NULL;
    j->max = j->min ? keep_(t, tn_at__nested_get_max_seqlen(self)) : NULL;
    if (!j->max) return -1;
    j->ragged_idx = PyLong_AsLongLong(ri);
    return j->ragged_idx == -1 && PyErr_Occurred() ? -1 : 0;
}

/* _nested_get_values: self = _nested_view_from_jagged(grad, offsets, dummy, lengths, ragged_idx, min, max) */
static int f_nested_get_values(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    jagged_meta j;
    PyObject *self = K(saved(n, 0));
    if (!self || jagged_of(&T, self, &j) < 0) DONE_ERR;
    OUTK(0, K(tn_at__nested_view_from_jagged(g[0], j.off, j.dummy, undef_null(j.len), j.ragged_idx, undef_null(j.min),
                                             undef_null(j.max))));
    DONE;
}

/* _nested_view_from_jagged: self = grad.values() */
static int f_nested_view_from_jagged(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    OUTK(0, K(tn_at__nested_get_values(g[0])));
    DONE;
}

/* to_padded_tensor of a jagged tensor: _nested_from_padded_tensor(grad, offsets, dummy, ragged_idx,
 * min, max, values.size(0)); of a strided one (ops/nested.c): _nested_from_padded_and_nested_example */
static int f_to_padded_tensor(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    jagged_meta j;
    PyObject *self = K(saved(n, 0));
    if (!self) DONE_ERR;
    if (!(((tn_tensor_obj *)self)->py_policy & TN_PY_NESTED)) {
        OUTK(0, K(tn_at__nested_from_padded_and_nested_example(g[0], self)));
        DONE;
    }
    if (jagged_of(&T, self, &j) < 0) DONE_ERR;
    PyObject *vals = K(tn_at__nested_get_values(self));
    if (!vals) DONE_ERR;
    int64_t total = tn_tensor_of(vals)->ndim ? tn_tensor_of(vals)->sizes[0] : 1;
    OUTK(0, K(tn_at__nested_from_padded_tensor(g[0], j.off, j.dummy, j.ragged_idx, undef_null(j.min), undef_null(j.max), &total)));
    DONE;
}

/* _nested_from_padded_tensor: padded = grad.to_padded_tensor(0.0, padded.sizes()) */
static int f_nested_from_padded_tensor(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *sz = K(sizes_of(n, 0));
    OUTK(0, sz ? K(tn_at_to_padded_tensor(g[0], 0.0, TN_IPY(sz))) : NULL);
    DONE;
}

/* ---- sparse COO tensors (ops/sparse.c) */
/* _to_dense(self, dtype, masked_grad): to_dense_backward(grad, self, masked_grad) */
static int f_to_dense(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *self = K(saved(n, 0));
    const bool *masked = n->args[2].tag == TN_V_BOOL ? TN_B(n->args[2].u.i) : NULL;
    OUTK(0, self ? K(tn_at_to_dense_backward(g[0], self, masked)) : NULL);
    DONE;
}
/* _to_sparse / _to_sparse.sparse_dim / _to_sparse_csr / _csc / _bsr / _bsc: to_sparse_backward,
 * the gradient's dense form (upstream's for a strided self; a sparse self would get one in its own
 * layout there, ours stays dense: docs/sparse_compressed.md) */
static int f_to_sparse(tn_node *n, PyObject **g, PyObject **o) {
    PUT(0, tn_at_to_dense(g[0], NULL, NULL));
    return 0;
}
/* _sparse_coo_tensor_with_dims_and_tensors: values: grad.sparse_mask(result)._values() */
static int f_sparse_coo_values(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *res = K(result(n, 0));
    PyObject *m = res ? K(tn_at_sparse_mask(g[0], res)) : NULL;
    OUTK(4, m ? K(tn_at__values(m)) : NULL);
    DONE;
}

/* values(self) of a coalesced sparse tensor: values_backward, the gradient at self's indices */
static int f_values(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *self = K(saved(n, 0));
    PyObject *ix = self ? K(tn_at__indices(self)) : NULL;
    PyObject *sz = ix ? K(sizes_of(n, 0)) : NULL;
    PyObject *r = sz ? K(tn_at__sparse_coo_tensor_unsafe(ix, g[0], TN_IPY(sz), NULL, NULL, NULL, NULL, NULL)) : NULL;
    OUTK(0, r);
    DONE;
}
/* scalar * x, x itself when the scalar is 1 (maybe_multiply) */
static PyObject *maybe_mul(PyObject *x, const tn_value *c) {
    if (c->defaulted || (c->tag == TN_V_INT && c->u.i == 1) || (c->tag == TN_V_FLOAT && c->u.f == 1.0)) return Py_NewRef(x);
    return tn_at_mul_Scalar(x, TN_SV(c));
}
/* _sparse_addmm(self, mat1, mat2, *, beta, alpha): self: maybe_multiply(grad, beta); mat1 (sparse):
 * (grad @ mat2^T) * alpha at mat1's entries; mat2: mat1^T @ grad * alpha */
static int f_sparse_addmm(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    if (need(n, 0)) OUTK(0, K(maybe_mul(g[0], &n->args[3])));
    if (need(n, 1)) {
        PyObject *m1 = K(saved(n, 1)), *m2 = m1 ? K(saved(n, 2)) : NULL;
        PyObject *m2t = m2 ? K(tn_at_t(m2)) : NULL;
        PyObject *p = m2t ? K(tn_at_mm(g[0], m2t)) : NULL;
        PyObject *pa = p ? K(maybe_mul(p, &n->args[4])) : NULL;
        OUTK(1, pa ? K(tn_at_sparse_mask(pa, m1)) : NULL);
    }
    if (need(n, 2)) {
        PyObject *m1 = K(saved(n, 1));
        PyObject *m1t = m1 ? K(tn_at_t(m1)) : NULL;
        PyObject *p = m1t ? K(tn_at_mm(m1t, g[0])) : NULL;
        OUTK(2, p ? K(maybe_mul(p, &n->args[4])) : NULL);
    }
    DONE;
}

/* _sparse_softmax / _sparse_log_softmax(self, dim, half_to_float): self:
 * _sparse_(log_)softmax_backward_data(grad, result, dim, self) (ops/sparse.c) */
static int sparse_softmax_bw(tn_node *n, PyObject **g, PyObject **o, bool logsm) {
    T_;
    PyObject *self = K(saved(n, 0)), *res = self ? K(result(n, 0)) : NULL;
    int64_t dim = n->args[1].u.i;
    OUTK(0, res ? K(logsm ? tn_at__sparse_log_softmax_backward_data(g[0], res, dim, self)
                          : tn_at__sparse_softmax_backward_data(g[0], res, dim, self)) : NULL);
    DONE;
}
static int f_sparse_softmax(tn_node *n, PyObject **g, PyObject **o) { return sparse_softmax_bw(n, g, o, false); }
static int f_sparse_log_softmax(tn_node *n, PyObject **g, PyObject **o) { return sparse_softmax_bw(n, g, o, true); }

/* sparse_sampled_addmm(self, mat1, mat2, *, beta, alpha), upstream's sparse_sampled_addmm_backward:
 * g = grad.sparse_mask(self); self: grad * beta; mat1: g @ mat2^H * alpha; mat2: mat1^H @ g * alpha */
static int f_sampled_addmm(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    if (need(n, 0)) OUTK(0, K(maybe_mul(g[0], &n->args[3])));
    if (need(n, 1) || need(n, 2)) {
        PyObject *self = K(saved(n, 0));
        PyObject *gp = self ? K(tn_at_sparse_mask(g[0], self)) : NULL;
        if (need(n, 1)) {
            PyObject *m2 = gp ? K(saved(n, 2)) : NULL, *m2h = m2 ? K(tn_at_mH(m2)) : NULL;
            PyObject *p = m2h ? K(tn_at_matmul(gp, m2h)) : NULL;
            OUTK(1, p ? K(maybe_mul(p, &n->args[4])) : NULL);
        }
        if (need(n, 2)) {
            PyObject *m1 = gp ? K(saved(n, 1)) : NULL, *m1h = m1 ? K(tn_at_mH(m1)) : NULL;
            PyObject *p = m1h ? K(tn_at_matmul(m1h, gp)) : NULL;
            OUTK(2, p ? K(maybe_mul(p, &n->args[4])) : NULL);
        }
    }
    DONE;
}

/* _sparse_mm_reduce_impl(self, other, reduce): self, other: _sparse_mm_reduce_impl_backward(self,
 * grad, other, reduce, result1, grad_input_mask) (ops/sparse_compressed.c) */
static int f_sparse_mm_reduce(tn_node *n, PyObject **g, PyObject **o) {
    T_;
    PyObject *self = K(saved(n, 0)), *other = self ? K(saved(n, 1)) : NULL, *arg = other ? K(result(n, 1)) : NULL;
    PyObject *r = arg ? K(tn_at__sparse_mm_reduce_impl_backward(self, g[0], other, tn_str_of(&n->args[2]), arg,
                                                               TN_IS(need(n, 0), need(n, 1)))) : NULL;
    OUTK(0, r ? PyTuple_GetItem(r, 0) : NULL);
    OUTK(1, r ? PyTuple_GetItem(r, 1) : NULL);
    DONE;
}

/* _coalesce: self: grad */
static int f_coalesce(tn_node *n, PyObject **g, PyObject **o) {
    PUT(0, Py_NewRef(g[0]));
    return 0;
}

/* _foreach_maximum/minimum.Scalar/.ScalarList have derivatives.yaml formulas of their own (no
 * per-tensor op has them): per element, where(self[i] == s, grads[i] / 2, grads[i])
 * .masked_fill_(self[i] < s, 0) (maximum; > for minimum). The element node is recorded as the
 * reference clamp_min / clamp_max (record.c), whose saved self and scalar (args 0, 1) they read. */
static int fe_minmax_scalar(tn_node *n, PyObject **g, PyObject **o, bool max) {
    T_;
    if (!g[0] || !need(n, 0)) DONE;
    PyObject *self = K(saved(n, 0));
    if (!self) DONE_ERR;
    tn_scalar_arg sc = TN_SV(&n->args[1]);
    PyObject *eq = K(tn_at_eq_Scalar(self, sc)), *half = eq ? K(tn_at_div_Scalar(g[0], TN_SI(2))) : NULL;
    PyObject *w = half ? K(tn_at_where_self(eq, half, g[0])) : NULL;
    PyObject *m = w ? K(max ? tn_at_lt_Scalar(self, sc) : tn_at_gt_Scalar(self, sc)) : NULL;
    OUTK(0, m ? K(tn_at_masked_fill__Scalar(w, m, TN_SI(0))) : NULL);
    DONE;
}
static int f_fe_maximum_scalar(tn_node *n, PyObject **g, PyObject **o) { return fe_minmax_scalar(n, g, o, true); }
static int f_fe_minimum_scalar(tn_node *n, PyObject **g, PyObject **o) { return fe_minmax_scalar(n, g, o, false); }

tn_apply_fn tn_foreach_formula(int op, int ref) {
    if (op == TN_ROW__foreach_maximum_Scalar || op == TN_ROW__foreach_maximum_ScalarList) return f_fe_maximum_scalar;
    if (op == TN_ROW__foreach_minimum_Scalar || op == TN_ROW__foreach_minimum_ScalarList) return f_fe_minimum_scalar;
    return tn_formula_for(ref);
}

static const struct { const char *name, *overload; tn_apply_fn fn; } formula_by_name[] = {
    {"values", "", f_values}, {"_coalesce", "", f_coalesce}, {"_sparse_addmm", "", f_sparse_addmm},
    {"_sparse_softmax", "", f_sparse_softmax}, {"sparse_sampled_addmm", "", f_sampled_addmm},
    {"_sparse_mm_reduce_impl", "", f_sparse_mm_reduce}, {"_sparse_log_softmax", "", f_sparse_log_softmax},
    {"_to_dense", "", f_to_dense}, {"_to_sparse", "", f_to_sparse}, {"_to_sparse", "sparse_dim", f_to_sparse},
    {"_to_sparse_csr", "", f_to_sparse}, {"_to_sparse_csc", "", f_to_sparse}, {"_to_sparse_bsr", "", f_to_sparse},
    {"_to_sparse_bsc", "", f_to_sparse},
    {"_sparse_coo_tensor_with_dims_and_tensors", "", f_sparse_coo_values},
    {"_nested_get_values", "", f_nested_get_values}, {"_nested_view_from_jagged", "", f_nested_view_from_jagged},
    {"to_padded_tensor", "", f_to_padded_tensor}, {"_nested_from_padded_tensor", "", f_nested_from_padded_tensor},
};

static const struct { int row; tn_apply_fn fn; } formulas[] = {
    {TN_ROW__grouped_mm, f_grouped_mm},
    {TN_ROW_copy_, f_copy},
    {TN_ROW__weight_norm_interface, f_weight_norm_interface},
    /* pointwise */
    {TN_ROW_sgn, f_zeros}, {TN_ROW_sgn_, f_zeros},
    /* reductions */
    /* indexing */
    /* shape */
    {TN_ROW_roll, f_roll},
    {TN_ROW__unsafe_index_Tensor, f_unsafe_index},
    {TN_ROW__scaled_dot_product_flash_attention_for_cpu, f_flash_cpu},
    {TN_ROW_nll_loss_backward, f_nll_loss_backward},
    /* batch norm / group norm family */
    {TN_ROW__batch_norm_with_update, f_bn_with_update}, {TN_ROW__batch_norm_no_update, f_bn_no_update},
    {TN_ROW_native_group_norm, f_native_group_norm},
    /* convolution family */
    {TN_ROW_convolution_backward, f_convolution_backward},
    /* pooling and interpolation family */
    /* training family (dropout, embedding; helper-data) */
    {TN_ROW_native_dropout, f_native_dropout}, 
    /* loss family (ops/loss.c) */
    {TN_ROW_binary_cross_entropy, f_bce}, {TN_ROW_binary_cross_entropy_with_logits, f_bce_logits},
    {TN_ROW_nll_loss2d_backward, f_nll_loss2d_backward},
    {TN_ROW_binary_cross_entropy_backward, f_bce_backward},
    /* linalg family (ops/linalg_lapack.c; helper-linalg) */
    {TN_ROW_linalg_solve_triangular, f_linalg_solve_triangular}, {TN_ROW__linalg_solve_ex, f__linalg_solve_ex},
    {TN_ROW_linalg_pinv_atol_rtol_tensor, f_linalg_pinv}, {TN_ROW_linalg_lstsq, f_linalg_lstsq},
    {TN_ROW_linalg_householder_product, f_linalg_householder_product}, {TN_ROW_ormqr, f_ormqr},
    {TN_ROW__linalg_svd, f__linalg_svd},
    /* *_copy view variants (ops/copies.c; helper-opa) */
    /* distances (ops/distance.c; helper-opa) */
    {TN_ROW__euclidean_dist, f__euclidean_dist},
    /* breadth family (helper-opb): gamma functions */
    /* misc breadth family (helper-misc) */
    {TN_ROW_aminmax, f_aminmax},
    /* nn.functional breadth (helper-nnf) */
    {TN_ROW__trilinear, f_trilinear},
    /* special family (helper-special) */
    
    /* linalg family, more (ops/linalg_more.c; helper-linalg) */
    /* helper-autograd: double backward of batch norm's backward ops and of the view backward ops */
    /* fft family (helper-fft) */
    {TN_ROW__fft_r2c, f_fft_r2c}, {TN_ROW__fft_c2r, f_fft_c2r}, 
    /* recurrent layers (helper-rnn) */
    {TN_ROW_mkldnn_rnn_layer, f_mkldnn_rnn_layer},
    /* breadth-more (helper-breadth) */
    {TN_ROW_segment_reduce, f_segment_reduce},
    {TN_ROW_linalg_matrix_exp, f_linalg_matrix_exp},
    /* embedding_bag / grid_sample / affine_grid (helper-embbag) */
    /* helper-autograd, second round (later rows override earlier ones: sgn was f_zeros) */
    {TN_ROW_sgn, f_sgn}, {TN_ROW_sgn_, f_sgn},
};

tn_apply_fn tn_formula_for(int op) {
    static tn_apply_fn *by_row;
    if (!by_row) {
        by_row = calloc(TN_OP_COUNT, sizeof *by_row);
        if (!by_row) return NULL;
        for (size_t i = 0; i < sizeof formulas / sizeof *formulas; i++) by_row[formulas[i].row] = formulas[i].fn;
        /* rows without a kernel of ours (no TN_ROW_ constant): only a tensor subclass runs them */
        for (size_t i = 0; i < sizeof formula_by_name / sizeof *formula_by_name; i++) {
            int row = tn_op_find(formula_by_name[i].name, formula_by_name[i].overload);
            if (row >= 0) by_row[row] = formula_by_name[i].fn;
        }
    }
    if (op < 0 || op >= TN_OP_COUNT) return NULL;
    /* a hand-written override, else the formula generated from derivatives.yaml (docs/bw_formulas.md) */
    return by_row[op] ? by_row[op] : tn_bw_gen_for(op);
}
