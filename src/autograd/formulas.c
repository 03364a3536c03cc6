/* formulas.c — backward formulas: upstream's derivatives.yaml entries for the overloads we
 * implement, written in C against ops called through the door (tn_aten), so create_graph records
 * the backward graph. Each follows upstream's formula and helper (sum_backward, mm_mat1_backward,
 * pow_backward, ...) op by op, so gradients round as upstream's do. Node names, which arguments
 * are differentiable and what is saved come from derivatives.yaml at build time (tools/gen_ops.py).
 * The engine sums broadcast gradients and casts dtypes (validate_outputs), as upstream's. */
#include "autograd/autograd.h"

#include "python/args.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- helpers ---- */

static bool need(tn_node *n, int arg) {
    int e = n->arg_edge[arg];
    return e >= 0 && e < n->nnext && n->next[e].fn;
}
static void put(tn_node *n, PyObject **o, int arg, PyObject *v) { o[n->arg_edge[arg]] = v; }
#define PUT(arg, expr) do { if (need(n, arg)) { PyObject *v_ = (expr); if (!v_) return -1; put(n, o, arg, v_); } } while (0)

static bool is_tensor_arg(tn_node *n, int i) { return n->arg_nmeta[i] > 0; }
static PyObject *arg_obj(tn_node *n, int i) { return tn_value_to_python(&n->args[i]); }   /* new ref */
static double arg_f(tn_node *n, int i) { return tn_value_as_double(&n->args[i]); }
static int64_t arg_i(tn_node *n, int i) { return n->args[i].u.i; }
static const tn_meta *meta(tn_node *n, int i) { return &n->arg_meta[i][0]; }
static PyObject *sizes_of(tn_node *n, int i) { return tn_py_size_new(meta(n, i)->ndim, tn_meta_sizes(meta(n, i))); }
static PyObject *saved(tn_node *n, int i) { return tn_node_saved_arg(n, i); }
static PyObject *result(tn_node *n, int k) { return tn_node_saved_result(n, k); }

static int row_of(int *cache, const char *name, const char *ov) {
    if (*cache == -2) *cache = tn_op_find(name, ov);
    return *cache;
}
/* An op found by name at run time (backward ops may be added later); refuses by name if absent. */
static PyObject *call_named(int *cache, const char *name, const char *ov, PyObject *args) {
    int r = row_of(cache, name, ov);
    if (!args) return NULL;
    if (r < 0) {
        Py_DECREF(args);
        char what[160];
        snprintf(what, sizeof what, "aten::%s%s%s", name, ov[0] ? "." : "", ov);
        return tn_not_implemented(what);
    }
    PyObject *res = tn_aten(r, "O", args);   /* args is a tuple: passed as the argument tuple */
    Py_DECREF(args);
    return res;
}
#define NAMED(name, ov, ...) ({ static int c_ = -2; call_named(&c_, name, ov, Py_BuildValue(__VA_ARGS__)); })

/* maybe_multiply(t, s): t when s is 1, else t * s. Steals t. */
static PyObject *maybe_multiply(PyObject *t, tn_node *n, int si) {
    if (!t) return NULL;
    const tn_value *v = &n->args[si];
    if (v->tag == TN_V_NONE || (tn_value_is_number(v) && v->tag != TN_V_COMPLEX && tn_value_as_double(v) == 1.0)) return t;
    PyObject *s = arg_obj(n, si);
    PyObject *r = s ? tn_aten(TN_ROW_mul_Tensor, "(OO)", t, s) : NULL;
    Py_XDECREF(s);
    Py_DECREF(t);
    return r;
}

/* upstream's at::sum_to: one sum over the leading dims and the dims broadcast from 1 (keepdim),
 * then a view to the target shape when there were leading dims */
PyObject *tn_sum_to(PyObject *g, int ndim, const int64_t *sizes) {
    const tn_tensor *t = tn_tensor_of(g);
    int lead = t->ndim - ndim;
    PyObject *dims = PyList_New(0);
    if (!dims) return NULL;
    for (int d = 0; d < t->ndim; d++) {
        if (d >= lead && !(sizes[d - lead] == 1 && t->sizes[d] != 1)) continue;
        PyObject *i = PyLong_FromLong(d);
        if (!i || PyList_Append(dims, i) < 0) { Py_XDECREF(i); Py_DECREF(dims); return NULL; }
        Py_DECREF(i);
    }
    PyObject *r = PyList_Size(dims) ? tn_aten(TN_ROW_sum_dim_IntList, "(OOO)", g, dims, Py_True) : Py_NewRef(g);
    Py_DECREF(dims);
    if (r && lead > 0) {
        PyObject *shape = tn_py_size_new(ndim, sizes);
        Py_SETREF(r, shape ? tn_aten(TN_ROW_view, "(OO)", r, shape) : NULL);
        Py_XDECREF(shape);
    }
    return r;
}

/* ---- arithmetic ---- */

/* Input gradients are computed in the alphabetical order of the argument names (other before
 * self, mat2 before self), the order of upstream's generated nodes, so the op stream matches. */
static int f_add(tn_node *n, PyObject **g, PyObject **o) {   /* add.Tensor / add_.Tensor / add.Scalar */
    if (n->nargs > 2 && is_tensor_arg(n, 1)) PUT(1, maybe_multiply(Py_NewRef(g[0]), n, 2));
    PUT(0, Py_NewRef(g[0]));
    return 0;
}
static int f_sub(tn_node *n, PyObject **g, PyObject **o) {
    if (n->nargs > 2 && is_tensor_arg(n, 1)) PUT(1, maybe_multiply(tn_aten(TN_ROW_neg, "(O)", g[0]), n, 2));
    PUT(0, Py_NewRef(g[0]));
    return 0;
}
static int f_rsub(tn_node *n, PyObject **g, PyObject **o) {   /* rsub.Tensor(self, other, alpha) = other - alpha*self */
    PUT(0, maybe_multiply(tn_aten(TN_ROW_neg, "(O)", g[0]), n, 2));
    if (is_tensor_arg(n, 1)) PUT(1, Py_NewRef(g[0]));
    return 0;
}
static int f_mul(tn_node *n, PyObject **g, PyObject **o) {
    if (is_tensor_arg(n, 1) && need(n, 1)) {
        PyObject *self = saved(n, 0);
        if (!self) return -1;
        PUT(1, tn_aten(TN_ROW_mul_Tensor, "(OO)", g[0], self));
        Py_DECREF(self);
    }
    if (need(n, 0)) {
        PyObject *other = is_tensor_arg(n, 1) ? saved(n, 1) : arg_obj(n, 1);
        if (!other) return -1;
        PUT(0, tn_aten(TN_ROW_mul_Tensor, "(OO)", g[0], other));
        Py_DECREF(other);
    }
    return 0;
}
static int f_div(tn_node *n, PyObject **g, PyObject **o) {   /* div.Tensor, div.Scalar */
    bool tensor_other = is_tensor_arg(n, 1);
    if (tensor_other && need(n, 1)) {   /* -grad * ((self / other) / other) */
        PyObject *self = saved(n, 0), *other = self ? saved(n, 1) : NULL;
        PyObject *q = other ? tn_aten(TN_ROW_div_Tensor, "(OO)", self, other) : NULL;
        PyObject *q2 = q ? tn_aten(TN_ROW_div_Tensor, "(OO)", q, other) : NULL;
        PyObject *ng = q2 ? tn_aten(TN_ROW_neg, "(O)", g[0]) : NULL;
        PyObject *r = ng ? tn_aten(TN_ROW_mul_Tensor, "(OO)", ng, q2) : NULL;
        Py_XDECREF(self); Py_XDECREF(other); Py_XDECREF(q); Py_XDECREF(q2); Py_XDECREF(ng);
        PUT(1, r);
    }
    if (need(n, 0)) {
        PyObject *other = tensor_other ? saved(n, 1) : arg_obj(n, 1);
        if (!other) return -1;
        PUT(0, tn_aten(TN_ROW_div_Tensor, "(OO)", g[0], other));
        Py_DECREF(other);
    }
    return 0;
}
static int f_neg(tn_node *n, PyObject **g, PyObject **o) { PUT(0, tn_aten(TN_ROW_neg, "(O)", g[0])); return 0; }
static int f_identity(tn_node *n, PyObject **g, PyObject **o) { PUT(0, Py_NewRef(g[0])); return 0; }

/* pow.Tensor_Scalar: grad * (exponent * self.pow(exponent - 1)) */
static int f_pow_scalar(tn_node *n, PyObject **g, PyObject **o) {
    double e = arg_f(n, 1);
    if (!need(n, 0)) return 0;
    if (e == 0.0) { PUT(0, tn_aten_kw(TN_ROW_zeros_like, NULL, "(O)", g[0])); return 0; }
    PyObject *self = saved(n, 0);
    if (!self) return -1;
    bool is_int = n->args[1].tag == TN_V_INT;
    PyObject *em1 = is_int ? PyLong_FromLongLong(arg_i(n, 1) - 1) : PyFloat_FromDouble(e - 1);
    PyObject *ex = is_int ? PyLong_FromLongLong(arg_i(n, 1)) : PyFloat_FromDouble(e);
    PyObject *p = tn_aten(TN_ROW_pow_Tensor_Scalar, "(OO)", self, em1);
    PyObject *m = p ? tn_aten(TN_ROW_mul_Scalar, "(OO)", p, ex) : NULL;
    PyObject *r = m ? tn_aten(TN_ROW_mul_Tensor, "(OO)", g[0], m) : NULL;
    Py_DECREF(self); Py_XDECREF(em1); Py_XDECREF(ex); Py_XDECREF(p); Py_XDECREF(m);
    PUT(0, r);
    return 0;
}

/* unary: grad op saved value */
static int f_exp(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *r = result(n, 0);
    if (!r) return -1;
    PUT(0, tn_aten(TN_ROW_mul_Tensor, "(OO)", g[0], r));
    Py_DECREF(r);
    return 0;
}
static int f_log(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *s = saved(n, 0);
    if (!s) return -1;
    PUT(0, tn_aten(TN_ROW_div_Tensor, "(OO)", g[0], s));
    Py_DECREF(s);
    return 0;
}
static int f_sqrt(tn_node *n, PyObject **g, PyObject **o) {   /* grad / (2 * result) */
    PyObject *r = result(n, 0), *t = r ? tn_aten(TN_ROW_mul_Scalar, "(Oi)", r, 2) : NULL;
    Py_XDECREF(r);
    if (!t) return -1;
    PUT(0, tn_aten(TN_ROW_div_Tensor, "(OO)", g[0], t));
    Py_DECREF(t);
    return 0;
}
static int f_rsqrt(tn_node *n, PyObject **g, PyObject **o) {   /* -0.5 * grad * result.pow(3) */
    PyObject *r = result(n, 0), *p = r ? tn_aten(TN_ROW_pow_Tensor_Scalar, "(Oi)", r, 3) : NULL;
    PyObject *a = p ? tn_aten(TN_ROW_mul_Scalar, "(Od)", g[0], -0.5) : NULL;
    PyObject *b = a ? tn_aten(TN_ROW_mul_Tensor, "(OO)", a, p) : NULL;
    Py_XDECREF(r); Py_XDECREF(p); Py_XDECREF(a);
    PUT(0, b);
    return 0;
}
static int f_reciprocal(tn_node *n, PyObject **g, PyObject **o) {   /* -grad * (result * result) */
    PyObject *r = result(n, 0), *rr = r ? tn_aten(TN_ROW_mul_Tensor, "(OO)", r, r) : NULL;
    PyObject *ng = rr ? tn_aten(TN_ROW_neg, "(O)", g[0]) : NULL;
    PyObject *b = ng ? tn_aten(TN_ROW_mul_Tensor, "(OO)", ng, rr) : NULL;
    Py_XDECREF(r); Py_XDECREF(rr); Py_XDECREF(ng);
    PUT(0, b);
    return 0;
}
static int f_sin(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *s = saved(n, 0), *c = s ? tn_aten(TN_ROW_cos, "(O)", s) : NULL;
    Py_XDECREF(s);
    if (!c) return -1;
    PUT(0, tn_aten(TN_ROW_mul_Tensor, "(OO)", g[0], c));
    Py_DECREF(c);
    return 0;
}
static int f_cos(tn_node *n, PyObject **g, PyObject **o) {   /* grad * -self.sin() */
    PyObject *s = saved(n, 0), *sn = s ? tn_aten(TN_ROW_sin, "(O)", s) : NULL;
    PyObject *ns = sn ? tn_aten(TN_ROW_neg, "(O)", sn) : NULL;
    Py_XDECREF(s); Py_XDECREF(sn);
    if (!ns) return -1;
    PUT(0, tn_aten(TN_ROW_mul_Tensor, "(OO)", g[0], ns));
    Py_DECREF(ns);
    return 0;
}
static int f_abs(tn_node *n, PyObject **g, PyObject **o) {   /* grad * self.sgn() */
    PyObject *s = saved(n, 0), *sg = s ? tn_aten(TN_ROW_sgn, "(O)", s) : NULL;
    Py_XDECREF(s);
    if (!sg) return -1;
    PUT(0, tn_aten(TN_ROW_mul_Tensor, "(OO)", g[0], sg));
    Py_DECREF(sg);
    return 0;
}
/* activations through their aten backward ops */
static int f_tanh(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *r = result(n, 0);
    if (!r) return -1;
    PUT(0, NAMED("tanh_backward", "", "(OO)", g[0], r));
    Py_DECREF(r);
    return 0;
}
static int f_sigmoid(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *r = result(n, 0);
    if (!r) return -1;
    PUT(0, NAMED("sigmoid_backward", "", "(OO)", g[0], r));
    Py_DECREF(r);
    return 0;
}
static int f_relu(tn_node *n, PyObject **g, PyObject **o) {   /* threshold_backward(grad, result, 0) */
    PyObject *r = result(n, 0);
    if (!r) return -1;
    PUT(0, NAMED("threshold_backward", "", "(OOi)", g[0], r, 0));
    Py_DECREF(r);
    return 0;
}
static int f_silu(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *s = saved(n, 0);
    if (!s) return -1;
    PUT(0, NAMED("silu_backward", "", "(OO)", g[0], s));
    Py_DECREF(s);
    return 0;
}
static int f_gelu(tn_node *n, PyObject **g, PyObject **o) {   /* gelu_backward(grad, self, approximate=) */
    static int row = -2;
    if (row_of(&row, "gelu_backward", "") < 0) {
        tn_not_implemented("aten::gelu_backward");
        return -1;
    }
    PyObject *s = saved(n, 0), *ap = s ? arg_obj(n, 1) : NULL;
    PyObject *kw = ap ? Py_BuildValue("{sO}", "approximate", ap) : NULL;
    if (kw) PUT(0, tn_aten_kw(row, kw, "(OO)", g[0], s));
    Py_XDECREF(s); Py_XDECREF(ap); Py_XDECREF(kw);
    return kw ? 0 : -1;
}

/* ---- reductions ---- */

static PyObject *expand_to(PyObject *t, tn_node *n, int i) {
    PyObject *sz = sizes_of(n, i);
    PyObject *r = sz ? tn_aten(TN_ROW_expand, "(OO)", t, sz) : NULL;
    Py_XDECREF(sz);
    return r;
}
/* sum_backward(grad, sizes, dims, keepdim): unsqueeze the reduced dims (ascending), expand */
static PyObject *sum_backward(PyObject *grad, tn_node *n, int dims_arg, bool keepdim) {
    const tn_meta *m = meta(n, 0);
    PyObject *gg = Py_NewRef(grad);
    if (!keepdim && m->ndim > 0) {
        bool mask[TN_MAX_DIMS] = {0};
        const tn_value *dv = dims_arg >= 0 ? &n->args[dims_arg] : NULL;
        if (!dv || dv->tag != TN_V_INTLIST || dv->u.ints.n == 0) {
            for (int d = 0; d < m->ndim; d++) mask[d] = true;
        } else {
            for (int k = 0; k < dv->u.ints.n; k++) {
                int64_t d = dv->u.ints.v[k];
                if (d < 0) d += m->ndim;
                if (d >= 0 && d < m->ndim) mask[d] = true;
            }
        }
        int cnt = 0;
        for (int d = 0; d < m->ndim; d++) cnt += mask[d];
        if (cnt == 1) {
            for (int d = 0; d < m->ndim; d++)
                if (mask[d]) Py_SETREF(gg, tn_aten(TN_ROW_unsqueeze, "(Oi)", gg, d));
        } else if (tn_tensor_of(gg)->ndim != m->ndim) {
            for (int d = 0; d < m->ndim && gg; d++)
                if (mask[d]) Py_SETREF(gg, tn_aten(TN_ROW_unsqueeze, "(Oi)", gg, d));
        }
        if (!gg) return NULL;
    }
    PyObject *r = expand_to(gg, n, 0);
    Py_DECREF(gg);
    return r;
}
static int f_sum(tn_node *n, PyObject **g, PyObject **o) { PUT(0, expand_to(g[0], n, 0)); return 0; }
static int f_sum_dim(tn_node *n, PyObject **g, PyObject **o) { PUT(0, sum_backward(g[0], n, 1, n->args[2].u.i)); return 0; }
static int f_mean(tn_node *n, PyObject **g, PyObject **o) {   /* grad.expand(sizes) / numel */
    int64_t numel = 1;
    for (int d = 0; d < meta(n, 0)->ndim; d++) numel *= tn_meta_sizes(meta(n, 0))[d];
    PyObject *e = expand_to(g[0], n, 0);
    if (!e) return -1;
    PUT(0, tn_aten(TN_ROW_div_Scalar, "(OL)", e, (long long)numel));
    Py_DECREF(e);
    return 0;
}
static int f_mean_dim(tn_node *n, PyObject **g, PyObject **o) {
    const tn_meta *m = meta(n, 0);
    const tn_value *dv = &n->args[1];
    int64_t cnt = 1;
    if (dv->tag != TN_V_INTLIST || dv->u.ints.n == 0) {
        for (int d = 0; d < m->ndim; d++) cnt *= tn_meta_sizes(m)[d];
    } else {
        for (int k = 0; k < dv->u.ints.n; k++) {
            int64_t d = dv->u.ints.v[k];
            if (d < 0) d += m->ndim;
            cnt *= m->ndim ? tn_meta_sizes(m)[d] : 1;
        }
    }
    PyObject *s = sum_backward(g[0], n, 1, n->args[2].u.i);
    if (!s) return -1;
    PUT(0, tn_aten(TN_ROW_div_Scalar, "(OL)", s, (long long)cnt));
    Py_DECREF(s);
    return 0;
}

/* ---- matrix products ---- */

static bool col_major(const tn_meta *m) {
    return m->ndim == 2 && tn_meta_strides(m)[0] == 1 && tn_meta_strides(m)[1] == tn_meta_sizes(m)[0];
}
static PyObject *t_(PyObject *x) { return x ? tn_aten(TN_ROW_t, "(O)", x) : NULL; }
/* mm_mat1_backward: grad.mm(mat2.t()), or mat2.mm(grad.t()).t() when mat1 was column-major */
static PyObject *mm_mat1_backward(PyObject *grad, PyObject *mat2, const tn_meta *m1) {
    if (col_major(m1)) {
        PyObject *gt = t_(grad), *p = gt ? tn_aten(TN_ROW_mm, "(OO)", mat2, gt) : NULL, *r = t_(p);
        Py_XDECREF(gt); Py_XDECREF(p);
        return r;
    }
    PyObject *m2t = t_(mat2), *r = m2t ? tn_aten(TN_ROW_mm, "(OO)", grad, m2t) : NULL;
    Py_XDECREF(m2t);
    return r;
}
static PyObject *mm_mat2_backward(PyObject *grad, PyObject *mat1, const tn_meta *m2) {
    if (col_major(m2)) {
        PyObject *gt = t_(grad), *p = gt ? tn_aten(TN_ROW_mm, "(OO)", gt, mat1) : NULL, *r = t_(p);
        Py_XDECREF(gt); Py_XDECREF(p);
        return r;
    }
    PyObject *m1t = t_(mat1), *r = m1t ? tn_aten(TN_ROW_mm, "(OO)", m1t, grad) : NULL;
    Py_XDECREF(m1t);
    return r;
}
/* a1/a2: the two matrices; when a2's name sorts before self's (mat2, batch2) it goes first */
static int mm_like(tn_node *n, PyObject **g, PyObject **o, int a1, int a2, int alpha) {
    for (int pass = 0; pass < 2; pass++) {
        bool first = a1 == 0 ? pass == 1 : pass == 0;   /* mm(self, mat2): mat2, self; addmm: mat1, mat2 */
        if (first && need(n, a1)) {
            PyObject *m2 = saved(n, a2);
            if (!m2) return -1;
            PyObject *r = mm_mat1_backward(g[0], m2, meta(n, a1));
            Py_DECREF(m2);
            PUT(a1, alpha >= 0 ? maybe_multiply(r, n, alpha) : r);
        }
        if (pass == 0 && need(n, a2)) {
            PyObject *m1 = saved(n, a1);
            if (!m1) return -1;
            PyObject *r = mm_mat2_backward(g[0], m1, meta(n, a2));
            Py_DECREF(m1);
            PUT(a2, alpha >= 0 ? maybe_multiply(r, n, alpha) : r);
        }
    }
    return 0;
}
static int f_mm(tn_node *n, PyObject **g, PyObject **o) { return mm_like(n, g, o, 0, 1, -1); }
static int f_addmm(tn_node *n, PyObject **g, PyObject **o) {   /* addmm(self, mat1, mat2, beta, alpha) */
    if (mm_like(n, g, o, 1, 2, 4) < 0) return -1;
    PUT(0, maybe_multiply(Py_NewRef(g[0]), n, 3));
    return 0;
}
static PyObject *bt(PyObject *x) { return x ? tn_aten(TN_ROW_transpose_int, "(Oii)", x, 1, 2) : NULL; }
static int bmm_like(tn_node *n, PyObject **g, PyObject **o, int a1, int a2, int alpha) {
    for (int pass = 0; pass < 2; pass++) {
        bool first = a1 == 0 ? pass == 1 : pass == 0;
        if (first && need(n, a1)) {   /* grad.bmm(mat2.transpose(1, 2)) */
            PyObject *m2 = saved(n, a2), *m2t = bt(m2), *r = m2t ? tn_aten(TN_ROW_bmm, "(OO)", g[0], m2t) : NULL;
            Py_XDECREF(m2); Py_XDECREF(m2t);
            PUT(a1, alpha >= 0 ? maybe_multiply(r, n, alpha) : r);
        }
        if (pass == 0 && need(n, a2)) {   /* self.transpose(1, 2).bmm(grad) */
            PyObject *m1 = saved(n, a1), *m1t = bt(m1), *r = m1t ? tn_aten(TN_ROW_bmm, "(OO)", m1t, g[0]) : NULL;
            Py_XDECREF(m1); Py_XDECREF(m1t);
            PUT(a2, alpha >= 0 ? maybe_multiply(r, n, alpha) : r);
        }
    }
    return 0;
}
static int f_bmm(tn_node *n, PyObject **g, PyObject **o) { return bmm_like(n, g, o, 0, 1, -1); }
static int f_baddbmm(tn_node *n, PyObject **g, PyObject **o) {   /* batch1, batch2, self */
    if (bmm_like(n, g, o, 1, 2, 4) < 0) return -1;
    PUT(0, maybe_multiply(Py_NewRef(g[0]), n, 3));
    return 0;
}
static int f_dot(tn_node *n, PyObject **g, PyObject **o) {   /* self: grad * tensor; tensor: grad * self */
    if (need(n, 0)) { PyObject *t = saved(n, 1); if (!t) return -1; PUT(0, tn_aten(TN_ROW_mul_Tensor, "(OO)", g[0], t)); Py_DECREF(t); }
    if (need(n, 1)) { PyObject *t = saved(n, 0); if (!t) return -1; PUT(1, tn_aten(TN_ROW_mul_Tensor, "(OO)", g[0], t)); Py_DECREF(t); }
    return 0;
}
static int f_mv(tn_node *n, PyObject **g, PyObject **o) {   /* self: grad.ger(vec); vec: self.t().mv(grad) */
    if (need(n, 0)) {
        PyObject *v = saved(n, 1), *gu = v ? tn_aten(TN_ROW_unsqueeze, "(Oi)", g[0], 1) : NULL;
        PyObject *vu = gu ? tn_aten(TN_ROW_unsqueeze, "(Oi)", v, 0) : NULL;
        PyObject *r = vu ? tn_aten(TN_ROW_mul_Tensor, "(OO)", gu, vu) : NULL;
        Py_XDECREF(v); Py_XDECREF(gu); Py_XDECREF(vu);
        PUT(0, r);
    }
    if (need(n, 1)) {
        PyObject *s = saved(n, 0), *st = t_(s), *r = st ? tn_aten(TN_ROW_mv, "(OO)", st, g[0]) : NULL;
        Py_XDECREF(s); Py_XDECREF(st);
        PUT(1, r);
    }
    return 0;
}

/* ---- views and shape ---- */

static int f_view(tn_node *n, PyObject **g, PyObject **o) {   /* grad.reshape(self_sizes) */
    PyObject *sz = sizes_of(n, 0);
    if (!sz) return -1;
    PUT(0, tn_aten(TN_ROW_reshape, "(OO)", g[0], sz));
    Py_DECREF(sz);
    return 0;
}
static int f_t(tn_node *n, PyObject **g, PyObject **o) { PUT(0, t_(g[0])); return 0; }
static int f_transpose(tn_node *n, PyObject **g, PyObject **o) {
    PUT(0, tn_aten(TN_ROW_transpose_int, "(OLL)", g[0], (long long)arg_i(n, 1), (long long)arg_i(n, 2)));
    return 0;
}
static int f_permute(tn_node *n, PyObject **g, PyObject **o) {
    const tn_value *dv = &n->args[1];
    int nd = dv->u.ints.n;
    PyObject *inv = PyList_New(nd);
    if (!inv) return -1;
    for (int i = 0; i < nd; i++) PyList_SetItem(inv, i, PyLong_FromLong(0));
    for (int i = 0; i < nd; i++) {
        int64_t d = dv->u.ints.v[i];
        if (d < 0) d += nd;
        PyList_SetItem(inv, d, PyLong_FromLong(i));
    }
    PUT(0, tn_aten(TN_ROW_permute, "(OO)", g[0], inv));
    Py_DECREF(inv);
    return 0;
}
static int f_expand(tn_node *n, PyObject **g, PyObject **o) {
    PUT(0, tn_sum_to(g[0], meta(n, 0)->ndim, tn_meta_sizes(meta(n, 0))));
    return 0;
}
static int f_unsqueeze(tn_node *n, PyObject **g, PyObject **o) {
    PUT(0, tn_aten(TN_ROW_squeeze_dim, "(OL)", g[0], (long long)arg_i(n, 1)));
    return 0;
}
/* squeeze variants: unsqueeze_to(grad, [dims,] self_sizes) */
static int f_squeeze(tn_node *n, PyObject **g, PyObject **o) {
    const tn_meta *m = meta(n, 0);
    const int64_t *sz = tn_meta_sizes(m);
    bool mask[TN_MAX_DIMS] = {0};
    if (n->nargs == 1) {
        for (int d = 0; d < m->ndim; d++) mask[d] = sz[d] == 1;
    } else if (n->args[1].tag == TN_V_INT) {
        int64_t d = n->args[1].u.i;
        if (d < 0) d += m->ndim;
        if (d >= 0 && d < m->ndim) mask[d] = sz[d] == 1;
    } else {
        for (int k = 0; k < n->args[1].u.ints.n; k++) {
            int64_t d = n->args[1].u.ints.v[k];
            if (d < 0) d += m->ndim;
            if (d >= 0 && d < m->ndim) mask[d] = sz[d] == 1;
        }
    }
    PyObject *r = Py_NewRef(g[0]);
    for (int d = 0; d < m->ndim && r; d++)
        if (mask[d]) Py_SETREF(r, tn_aten(TN_ROW_unsqueeze, "(Oi)", r, d));
    PUT(0, r);
    return 0;
}
static PyObject *zeros_meta(PyObject *like, const tn_meta *m) {
    PyObject *sz = tn_py_size_new(m->ndim, tn_meta_sizes(m));
    PyObject *r = sz ? tn_aten(TN_ROW_new_zeros, "(OO)", like, sz) : NULL;
    Py_XDECREF(sz);
    return r;
}
/* select / slice: select_backward / slice_backward with the input's sizes */
static int f_select(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *sz = sizes_of(n, 0);
    if (!sz) return -1;
    PUT(0, tn_aten(TN_ROW_select_backward, "(OOLL)", g[0], sz, (long long)arg_i(n, 1), (long long)arg_i(n, 2)));
    Py_DECREF(sz);
    return 0;
}
static int f_slice(tn_node *n, PyObject **g, PyObject **o) {   /* slice.Tensor(self, dim, start?, end?, step) */
    /* upstream saves start and end as given (None: 0 and INT64_MAX); slice_backward clamps */
    int64_t start = n->args[2].tag == TN_V_INT ? n->args[2].u.i : 0;
    int64_t end = n->args[3].tag == TN_V_INT ? n->args[3].u.i : INT64_MAX;
    PyObject *sz = sizes_of(n, 0);
    if (!sz) return -1;
    PUT(0, tn_aten(TN_ROW_slice_backward, "(OOLLLL)", g[0], sz, (long long)arg_i(n, 1), (long long)start, (long long)end,
                   (long long)arg_i(n, 4)));
    Py_DECREF(sz);
    return 0;
}
/* cat: every input's part of the gradient along dim (narrow), computed for all inputs as
 * upstream's cat_tensors_backward does; a legacy empty 1-D input gets zeros({0}) */
static int f_cat(tn_node *n, PyObject **g, PyObject **o) {
    int k = n->arg_nmeta[0];
    int64_t dim = n->args[1].u.i, at = 0;
    int nd = 0;
    for (int i = 0; i < k; i++) if (n->arg_meta[0][i].ndim > 1 || (n->arg_meta[0][i].ndim == 1 && tn_meta_sizes(&n->arg_meta[0][i])[0])) { nd = n->arg_meta[0][i].ndim; break; }
    if (dim < 0) dim += nd;
    for (int i = 0; i < k; i++) {
        const tn_meta *m = &n->arg_meta[0][i];
        int e = n->arg_edge[0] + i;
        PyObject *part;
        if (m->ndim == 1 && tn_meta_sizes(m)[0] == 0) {
            PyObject *dt = tn_py_from_dtype(tn_tensor_of(g[0])->dtype);
            PyObject *kw = dt ? Py_BuildValue("{sO}", "dtype", dt) : NULL;
            part = kw ? tn_aten_kw(TN_ROW_zeros, kw, "((i))", 0) : NULL;
            Py_XDECREF(dt); Py_XDECREF(kw);
        } else {
            int64_t len = tn_meta_sizes(m)[dim];
            part = tn_aten(TN_ROW_narrow, "(OLLL)", g[0], (long long)dim, (long long)at, (long long)len);
            at += len;
        }
        if (!part) return -1;
        if (n->next[e].fn) o[e] = part;
        else Py_DECREF(part);
    }
    return 0;
}
static int f_stack(tn_node *n, PyObject **g, PyObject **o) {
    int k = n->arg_nmeta[0];
    int64_t dim = n->args[1].u.i;
    if (dim < 0) dim += n->arg_meta[0][0].ndim + 1;
    for (int i = 0; i < k; i++) {
        int e = n->arg_edge[0] + i;
        if (!n->next[e].fn) continue;
        if (!(o[e] = tn_aten(TN_ROW_select_int, "(OLL)", g[0], (long long)dim, (long long)i))) return -1;
    }
    return 0;
}
/* split / split_with_sizes / unbind: the gradients of the pieces (zeros for pieces without one)
 * joined again */
static int join_pieces(tn_node *n, PyObject **g, PyObject **o, int64_t dim, bool stack) {
    PyObject *like = NULL;
    for (int k = 0; k < n->nout && !like; k++) like = g[k];
    if (!like) return 0;
    PyObject *l = PyList_New(n->nout);
    if (!l) return -1;
    for (int k = 0; k < n->nout; k++) {
        PyObject *p = g[k] ? Py_NewRef(g[k]) : zeros_meta(like, &n->out_meta[k]);
        if (!p) { Py_DECREF(l); return -1; }
        PyList_SetItem(l, k, p);
    }
    PUT(0, tn_aten(stack ? TN_ROW_stack : TN_ROW_cat, "(OL)", l, (long long)dim));
    Py_DECREF(l);
    return 0;
}
static int f_split(tn_node *n, PyObject **g, PyObject **o) { return join_pieces(n, g, o, n->args[2].u.i, false); }
static int f_unbind(tn_node *n, PyObject **g, PyObject **o) { return join_pieces(n, g, o, n->args[1].u.i, true); }

static int f_to_copy(tn_node *n, PyObject **g, PyObject **o) {
    tn_dtype want = meta(n, 0)->dtype;
    if (tn_tensor_of(g[0])->dtype == want) { PUT(0, Py_NewRef(g[0])); return 0; }
    PyObject *dt = tn_py_from_dtype(want), *kw = dt ? Py_BuildValue("{sO}", "dtype", dt) : NULL;
    PUT(0, kw ? tn_aten_kw(TN_ROW__to_copy, kw, "(O)", g[0]) : NULL);
    Py_XDECREF(dt); Py_XDECREF(kw);
    return 0;
}

/* copy_(self, src): self gets nothing of the gradient, src all of it (the engine sums it to
 * src's shape and casts it to src's dtype) */
static int f_copy(tn_node *n, PyObject **g, PyObject **o) {
    PUT(0, tn_aten_kw(TN_ROW_zeros_like, NULL, "(O)", g[0]));
    PUT(1, Py_NewRef(g[0]));
    return 0;
}
static int f_zero(tn_node *n, PyObject **g, PyObject **o) {   /* zero_ / fill_.Scalar */
    PUT(0, tn_aten_kw(TN_ROW_zeros_like, NULL, "(O)", g[0]));
    return 0;
}

/* ---- selection, masking ---- */

static int f_where(tn_node *n, PyObject **g, PyObject **o) {   /* where.self(condition, self, other) */
    PyObject *c = saved(n, 0);
    if (!c) return -1;
    if (is_tensor_arg(n, 2)) PUT(2, tn_aten(TN_ROW_where_ScalarSelf, "(OdO)", c, 0.0, g[0]));   /* other */
    if (is_tensor_arg(n, 1)) PUT(1, tn_aten(TN_ROW_where_ScalarOther, "(OOd)", c, g[0], 0.0));  /* self */
    Py_DECREF(c);
    return 0;
}
static int f_masked_fill(tn_node *n, PyObject **g, PyObject **o) {   /* self: grad.masked_fill(mask, 0) */
    PyObject *m = saved(n, 1);
    if (!m) return -1;
    PUT(0, tn_aten(TN_ROW_masked_fill_Scalar, "(OOi)", g[0], m, 0));
    Py_DECREF(m);
    if (is_tensor_arg(n, 2) && need(n, 2)) {
        tn_not_implemented("the derivative of masked_fill's value");
        return -1;
    }
    return 0;
}

/* ---- nn ---- */

static int f_softmax(tn_node *n, PyObject **g, PyObject **o) {   /* _softmax(self, dim, half_to_float) */
    PyObject *r = result(n, 0), *dt = r ? tn_py_from_dtype(meta(n, 0)->dtype) : NULL;
    if (!dt) { Py_XDECREF(r); return -1; }
    PUT(0, NAMED("_softmax_backward_data", "", "(OOLO)", g[0], r, (long long)arg_i(n, 1), dt));
    Py_DECREF(r); Py_DECREF(dt);
    return 0;
}
static int f_log_softmax(tn_node *n, PyObject **g, PyObject **o) {
    PyObject *r = result(n, 0), *dt = r ? tn_py_from_dtype(meta(n, 0)->dtype) : NULL;
    if (!dt) { Py_XDECREF(r); return -1; }
    PUT(0, NAMED("_log_softmax_backward_data", "", "(OOLO)", g[0], r, (long long)arg_i(n, 1), dt));
    Py_DECREF(r); Py_DECREF(dt);
    return 0;
}
/* native_layer_norm(input, normalized_shape, weight, bias, eps) -> (out, mean, rstd) */
static int f_native_layer_norm(tn_node *n, PyObject **g, PyObject **o) {
    if (!g[0]) return 0;
    PyObject *in = saved(n, 0), *ns = in ? arg_obj(n, 1) : NULL, *mean = ns ? result(n, 1) : NULL;
    PyObject *rstd = mean ? result(n, 2) : NULL;
    PyObject *w = rstd ? (is_tensor_arg(n, 2) ? saved(n, 2) : Py_NewRef(Py_None)) : NULL;
    PyObject *b = w ? (is_tensor_arg(n, 3) ? saved(n, 3) : Py_NewRef(Py_None)) : NULL;
    PyObject *mask = b ? Py_BuildValue("[OOO]", need(n, 0) ? Py_True : Py_False, need(n, 2) ? Py_True : Py_False,
                                       need(n, 3) ? Py_True : Py_False) : NULL;
    PyObject *r = mask ? NAMED("native_layer_norm_backward", "", "(OOOOOOOO)", g[0], in, ns, mean, rstd, w, b, mask) : NULL;
    Py_XDECREF(in); Py_XDECREF(ns); Py_XDECREF(mean); Py_XDECREF(rstd); Py_XDECREF(w); Py_XDECREF(b); Py_XDECREF(mask);
    if (!r) return -1;
    int args_of[3] = {0, 2, 3};
    for (int k = 0; k < 3; k++) {
        PyObject *x = PyTuple_GetItem(r, k);
        if (x && x != Py_None && need(n, args_of[k])) put(n, o, args_of[k], Py_NewRef(x));
    }
    Py_DECREF(r);
    return 0;
}
/* embedding(weight, indices, padding_idx, scale_grad_by_freq, sparse) */
static int f_embedding(tn_node *n, PyObject **g, PyObject **o) {
    if (n->args[4].u.i) {
        tn_not_implemented("sparse embedding gradients");
        return -1;
    }
    PyObject *idx = saved(n, 1);
    if (!idx) return -1;
    PUT(0, NAMED("embedding_dense_backward", "", "(OOLLO)", g[0], idx, (long long)tn_meta_sizes(meta(n, 0))[0],
                 (long long)arg_i(n, 2), n->args[3].u.i ? Py_True : Py_False));
    Py_DECREF(idx);
    return 0;
}

/* ---- table ---- */

static const struct { int row; tn_apply_fn fn; } formulas[] = {
    {TN_ROW_add_Tensor, f_add}, {TN_ROW_add__Tensor, f_add}, {TN_ROW_add_Scalar, f_add}, {TN_ROW_add__Scalar, f_add},
    {TN_ROW_sub_Tensor, f_sub}, {TN_ROW_sub__Tensor, f_sub}, {TN_ROW_sub_Scalar, f_add}, {TN_ROW_sub__Scalar, f_add},
    {TN_ROW_rsub_Tensor, f_rsub}, {TN_ROW_rsub_Scalar, f_rsub},
    {TN_ROW_mul_Tensor, f_mul}, {TN_ROW_mul__Tensor, f_mul}, {TN_ROW_mul_Scalar, f_mul}, {TN_ROW_mul__Scalar, f_mul},
    {TN_ROW_div_Tensor, f_div}, {TN_ROW_div__Tensor, f_div}, {TN_ROW_div_Scalar, f_div}, {TN_ROW_div__Scalar, f_div},
    {TN_ROW_neg, f_neg}, {TN_ROW_neg_, f_neg}, {TN_ROW_pow_Tensor_Scalar, f_pow_scalar}, {TN_ROW_pow__Scalar, f_pow_scalar},
    {TN_ROW_exp, f_exp}, {TN_ROW_exp_, f_exp}, {TN_ROW_log, f_log}, {TN_ROW_log_, f_log},
    {TN_ROW_sqrt, f_sqrt}, {TN_ROW_sqrt_, f_sqrt}, {TN_ROW_rsqrt, f_rsqrt}, {TN_ROW_rsqrt_, f_rsqrt},
    {TN_ROW_reciprocal, f_reciprocal}, {TN_ROW_reciprocal_, f_reciprocal},
    {TN_ROW_sin, f_sin}, {TN_ROW_sin_, f_sin}, {TN_ROW_cos, f_cos}, {TN_ROW_cos_, f_cos}, {TN_ROW_abs, f_abs},
    {TN_ROW_tanh, f_tanh}, {TN_ROW_tanh_, f_tanh}, {TN_ROW_sigmoid, f_sigmoid}, {TN_ROW_sigmoid_, f_sigmoid},
    {TN_ROW_relu, f_relu}, {TN_ROW_relu_, f_relu}, {TN_ROW_silu, f_silu}, {TN_ROW_silu_, f_silu},
    {TN_ROW_gelu, f_gelu}, {TN_ROW_gelu_, f_gelu},
    {TN_ROW_sum, f_sum}, {TN_ROW_sum_dim_IntList, f_sum_dim}, {TN_ROW_mean, f_mean}, {TN_ROW_mean_dim, f_mean_dim},
    {TN_ROW_mm, f_mm}, {TN_ROW_addmm, f_addmm}, {TN_ROW_bmm, f_bmm}, {TN_ROW_baddbmm, f_baddbmm},
    {TN_ROW_dot, f_dot}, {TN_ROW_mv, f_mv},
    {TN_ROW_view, f_view}, {TN_ROW__unsafe_view, f_view}, {TN_ROW_t, f_t}, {TN_ROW_transpose_int, f_transpose},
    {TN_ROW_permute, f_permute}, {TN_ROW_expand, f_expand}, {TN_ROW_unsqueeze, f_unsqueeze},
    {TN_ROW_squeeze, f_squeeze}, {TN_ROW_squeeze_dim, f_squeeze}, {TN_ROW_squeeze_dims, f_squeeze},
    {TN_ROW_select_int, f_select}, {TN_ROW_slice_Tensor, f_slice}, {TN_ROW_cat, f_cat}, {TN_ROW_stack, f_stack},
    {TN_ROW_split_Tensor, f_split}, {TN_ROW_split_with_sizes, f_split}, {TN_ROW_unbind_int, f_unbind},
    {TN_ROW_copy_, f_copy}, {TN_ROW_zero_, f_zero}, {TN_ROW_fill__Scalar, f_zero},
    {TN_ROW_t_, f_t}, {TN_ROW_transpose_, f_transpose}, {TN_ROW_unsqueeze_, f_unsqueeze},
    {TN_ROW_squeeze_, f_squeeze}, {TN_ROW_squeeze__dim, f_squeeze}, {TN_ROW_squeeze__dims, f_squeeze},
    {TN_ROW_clone, f_identity}, {TN_ROW_alias, f_identity}, {TN_ROW__to_copy, f_to_copy},
    {TN_ROW_where_self, f_where}, {TN_ROW_masked_fill_Scalar, f_masked_fill}, {TN_ROW_masked_fill__Scalar, f_masked_fill},
    {TN_ROW__softmax, f_softmax}, {TN_ROW__log_softmax, f_log_softmax},
    {TN_ROW_native_layer_norm, f_native_layer_norm}, {TN_ROW_embedding, f_embedding},
};

tn_apply_fn tn_formula_for(int op) {
    static tn_apply_fn *by_row;
    if (!by_row) {
        by_row = calloc(TN_OP_COUNT, sizeof *by_row);
        if (!by_row) return NULL;
        for (size_t i = 0; i < sizeof formulas / sizeof *formulas; i++) by_row[formulas[i].row] = formulas[i].fn;
    }
    return op >= 0 && op < TN_OP_COUNT ? by_row[op] : NULL;
}
