/* bw_helpers.h — what backward formulas are written with, generated (tn_bw_gen.c, by
 * tools/bw_formulas.py from derivatives.yaml) and hand-written (formulas.c): which inputs want a
 * gradient, where it goes, the saved inputs and outputs, and the small helpers upstream's formula
 * text names (docs/bw_formulas.md). */
#ifndef TN_AUTOGRAD_BW_HELPERS_H
#define TN_AUTOGRAD_BW_HELPERS_H

#include "autograd/autograd.h"
#include "dispatch/aten.h"
#include "ops/common.h"
#include "dispatch/modes.h"

/* argument `arg`'s gradient is wanted: it has an edge to a node the engine will run */
static inline bool need(tn_node *n, int arg) { return tn_edge_wanted(n, n->arg_edge[arg]); }
/* the gradient of argument `arg` (steals v; None, a helper's undefined tensor, is no gradient) */
static inline void put(tn_node *n, PyObject **o, int arg, PyObject *v) {
    if (v == Py_None) Py_DECREF(v);
    else o[n->arg_edge[arg]] = v;
}
static inline PyObject *saved(tn_node *n, int i) { return tn_node_saved_arg(n, i); }     /* new ref */
static inline PyObject *result(tn_node *n, int k) { return tn_node_saved_result(n, k); }  /* new ref */
/* a saved Tensor? input: the tensor, or None when the argument was None (new ref) */
static inline PyObject *tn_bw_saved_opt(tn_node *n, int i) { return n->arg_nmeta[i] > 0 ? saved(n, i) : Py_NewRef(Py_None); }

/* a formula for several inputs at once: element k of the tuple r (borrowed) is the gradient of
 * argument args[k], given when that input wants one and the element is not None (upstream's
 * copy_range under should_compute_output; an undefined tensor is no gradient) */
static inline int tn_bw_put_each(tn_node *n, PyObject **o, PyObject *r, const int *args, int k) {
    if (!PyTuple_Check(r) || PyTuple_Size(r) != k) {
        PyErr_Format(PyExc_RuntimeError, "torchnative: a backward formula for %d inputs did not return %d tensors", k, k);
        return -1;
    }
    for (int i = 0; i < k; i++) {
        PyObject *x = PyTuple_GetItem(r, i);
        if (x != Py_None && need(n, args[i])) put(n, o, args[i], Py_NewRef(x));
    }
    return 0;
}

/* x.conj(): a conjugate view through the door for a complex x, x itself otherwise (upstream's
 * conj() returns self for a real tensor, recording nothing). New reference; x is borrowed. */
static inline PyObject *tn_bw_conj(PyObject *x) {
    return tn_dtype_is_complex(tn_tensor_of(x)->dtype) ? tn_at_conj(x) : Py_NewRef(x);
}

/* float? from a node's parsed argument: a pointer to its value, NULL for None */
static inline const double *tn_bw_opt_float(const tn_value *v) { return v->tag == TN_V_FLOAT ? &v->u.f : NULL; }

/* ---- FunctionsManual helpers (upstream's torch/csrc/autograd/FunctionsManual.cpp behaviour,
 * written here against the typed op API). Tensor arguments are borrowed; results are new
 * references, NULL with an exception. A Scalar is a node's parsed argument (const tn_value *). */

/* Scalar::conj(): the conjugate of a complex Scalar, the Scalar itself otherwise (a copy that
 * shares any object the original holds: valid while the original lives) */
static inline tn_value tn_bw_sconj(const tn_value *s) {
    tn_value r = *s;
    if (r.tag == TN_V_COMPLEX) r.u.c.im = -r.u.c.im;
    return r;
}

/* -s for a Scalar (C++'s Scalar unary minus): of its own kind (int, float, complex) */
static inline tn_value tn_bw_sneg(const tn_value *s) {
    tn_value r = *s;
    if (r.tag == TN_V_COMPLEX) { r.u.c.re = -r.u.c.re; r.u.c.im = -r.u.c.im; }
    else if (r.tag == TN_V_FLOAT) r.u.f = -r.u.f;
    else if (r.tag == TN_V_INT || r.tag == TN_V_BOOL) { r.tag = TN_V_INT; r.u.i = -r.u.i; }
    return r;
}

/* C++'s arithmetic of numbers and Scalars (`1 - weight.conj().toComplexDouble()`): complex when
 * either side is complex, else double */
static inline tn_value tn_bw_sarith(char op, tn_value a, tn_value b) {
    bool c = a.tag == TN_V_COMPLEX || b.tag == TN_V_COMPLEX;
    double ar = a.tag == TN_V_COMPLEX ? a.u.c.re : tn_value_as_double(&a), ai = a.tag == TN_V_COMPLEX ? a.u.c.im : 0.0;
    double br = b.tag == TN_V_COMPLEX ? b.u.c.re : tn_value_as_double(&b), bi = b.tag == TN_V_COMPLEX ? b.u.c.im : 0.0;
    double rr = 0, ri = 0;
    switch (op) {
    case '+': rr = ar + br; ri = ai + bi; break;
    case '-': rr = ar - br; ri = ai - bi; break;
    case '*': rr = ar * br - ai * bi; ri = ar * bi + ai * br; break;
    default: { double d = br * br + bi * bi; rr = (ar * br + ai * bi) / d; ri = (ai * br - ar * bi) / d; }
    }
    tn_value r = {.tag = c ? TN_V_COMPLEX : TN_V_FLOAT};
    if (c) { r.u.c.re = rr; r.u.c.im = ri; }
    else r.u.f = rr;
    return r;
}
/* a number as a Scalar value, and Scalar::toComplexDouble() */
static inline tn_value tn_bw_snum(double x) { tn_value r = {.tag = TN_V_FLOAT}; r.u.f = x; return r; }
static inline tn_value tn_bw_scomplex(const tn_value *s) {
    if (s->tag == TN_V_COMPLEX) return *s;
    tn_value r = {.tag = TN_V_COMPLEX};
    r.u.c.re = tn_value_as_double(s);
    r.u.c.im = 0.0;
    return r;
}

/* handle_r_to_c(self_st, g): the real part of a complex gradient of a real input */
static inline PyObject *tn_bw_r_to_c(tn_dtype self_st, PyObject *g) {
    if (!tn_dtype_is_complex(self_st) && tn_dtype_is_complex(tn_tensor_of(g)->dtype)) return tn_at_real(g);
    return Py_NewRef(g);
}
/* handle_r_to_c(self, g): the same with the input's dtype read from a tensor */
static inline PyObject *tn_bw_r_to_c_t(PyObject *self, PyObject *g) { return tn_bw_r_to_c(tn_tensor_of(self)->dtype, g); }

/* maybe_multiply(t, s): t itself when s is a floating or integral (bool included) 1, else
 * t * s (mul.Scalar) */
static inline PyObject *tn_bw_maybe_multiply(PyObject *t, const tn_value *s) {
    bool one = (s->tag == TN_V_FLOAT && s->u.f == 1.0) || ((s->tag == TN_V_INT || s->tag == TN_V_BOOL) && s->u.i == 1);
    return one ? Py_NewRef(t) : tn_at_mul_Scalar(t, TN_SV(s));
}

/* mul_tensor_backward(grad, other, self_st): handle_r_to_c(self_st, grad * other.conj()) */
static inline PyObject *tn_bw_mul_tensor_backward(PyObject *grad, PyObject *other, tn_dtype self_st) {
    PyObject *c = tn_bw_conj(other), *m = c ? tn_at_mul_Tensor(grad, c) : NULL, *r = m ? tn_bw_r_to_c(self_st, m) : NULL;
    Py_XDECREF(c);
    Py_XDECREF(m);
    return r;
}
static inline PyObject *tn_bw_mul_tensor_backward_s(PyObject *grad, const tn_value *other, tn_dtype self_st) {
    tn_value c = tn_bw_sconj(other);
    PyObject *m = tn_at_mul_Scalar(grad, TN_SV(&c)), *r = m ? tn_bw_r_to_c(self_st, m) : NULL;
    Py_XDECREF(m);
    return r;
}
/* div_tensor_self_backward(grad, other, self_st): handle_r_to_c(self_st, grad / other.conj()) */
static inline PyObject *tn_bw_div_tensor_self_backward(PyObject *grad, PyObject *other, tn_dtype self_st) {
    PyObject *c = tn_bw_conj(other), *d = c ? tn_at_div_Tensor(grad, c) : NULL, *r = d ? tn_bw_r_to_c(self_st, d) : NULL;
    Py_XDECREF(c);
    Py_XDECREF(d);
    return r;
}
static inline PyObject *tn_bw_div_tensor_self_backward_s(PyObject *grad, const tn_value *other, tn_dtype self_st) {
    tn_value c = tn_bw_sconj(other);
    PyObject *d = tn_at_div_Scalar(grad, TN_SV(&c)), *r = d ? tn_bw_r_to_c(self_st, d) : NULL;
    Py_XDECREF(d);
    return r;
}
/* div_tensor_other_backward(grad, self, other): handle_r_to_c(other, -grad * ((self / other) / other).conj());
 * the right operand first, as upstream's build evaluates it */
static inline PyObject *tn_bw_div_tensor_other_backward(PyObject *grad, PyObject *self, PyObject *other) {
    PyObject *q = tn_at_div_Tensor(self, other), *q2 = q ? tn_at_div_Tensor(q, other) : NULL;
    PyObject *c = q2 ? tn_bw_conj(q2) : NULL, *ng = c ? tn_at_neg(grad) : NULL;
    PyObject *m = ng ? tn_at_mul_Tensor(ng, c) : NULL, *r = m ? tn_bw_r_to_c_t(other, m) : NULL;
    Py_XDECREF(q); Py_XDECREF(q2); Py_XDECREF(c); Py_XDECREF(ng); Py_XDECREF(m);
    return r;
}

/* the rounding-mode forms (div.Tensor_mode, div.Scalar_mode): with a mode the gradient is
 * zeros_like(grad, grad.options().dtype(st)) (st: self's dtype, other's for other's gradient) */
static inline PyObject *tn_bw_zeros_like_dtype(PyObject *grad, tn_dtype st) {
    return tn_at_zeros_like(grad, TN_DT(st), tn_py.layout_strided, tn_py.device_cpu, NULL, NULL);
}
static inline PyObject *tn_bw_div_tensor_self_backward_mode(PyObject *grad, PyObject *other, tn_dtype self_st, const char *mode) {
    return mode ? tn_bw_zeros_like_dtype(grad, self_st) : tn_bw_div_tensor_self_backward(grad, other, self_st);
}
static inline PyObject *tn_bw_div_tensor_self_backward_s_mode(PyObject *grad, const tn_value *other, tn_dtype self_st, const char *mode) {
    return mode ? tn_bw_zeros_like_dtype(grad, self_st) : tn_bw_div_tensor_self_backward_s(grad, other, self_st);
}
static inline PyObject *tn_bw_div_tensor_other_backward_mode(PyObject *grad, PyObject *self, PyObject *other, const char *mode) {
    return mode ? tn_bw_zeros_like_dtype(grad, tn_tensor_of(other)->dtype) : tn_bw_div_tensor_other_backward(grad, self, other);
}

/* at::sum_to(grad, sizes) for sizes held as a C array (formulas.c's tn_sum_to) */
static inline PyObject *tn_bw_sum_to(PyObject *g, tn_ints sizes) {
    if (!sizes.v && sizes.n) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: sum_to: sizes not held as a C array");
        return NULL;
    }
    return tn_sum_to(g, sizes.n, sizes.v);
}

/* an int list argument as a C array: its length (-1 for None) and *v */
static inline int tn_bw_ints(tn_ints x, const int64_t **v) {
    if (x.v || !x.val) { *v = x.v; return x.n; }
    if (x.val->tag == TN_V_INTLIST || x.val->tag == TN_V_BOOLLIST) { *v = x.val->u.ints.v; return x.val->u.ints.n; }
    if (x.val->tag == TN_V_INT) { *v = &x.val->u.i; return 1; }
    *v = NULL;
    return -1;
}
/* unsqueeze_to(self, sizes): self unsqueezed at every dim whose size is 1 (the reverse of squeeze()) */
static inline PyObject *tn_bw_unsqueeze_to(PyObject *g, tn_ints sizes) {
    const int64_t *sz;
    int nd = tn_bw_ints(sizes, &sz);
    PyObject *r = Py_NewRef(g);
    for (int d = 0; d < nd && r; d++)
        if (sz[d] == 1) Py_SETREF(r, tn_at_unsqueeze(r, d));
    return r;
}
/* unsqueeze_to(self, dim, sizes): at dim (wrapped) when its size is 1 */
static inline PyObject *tn_bw_unsqueeze_to_dim(PyObject *g, int64_t dim, tn_ints sizes) {
    const int64_t *sz;
    int nd = tn_bw_ints(sizes, &sz);
    int64_t d;
    if (tn_wrap_dim(dim, nd, &d) < 0) return NULL;
    return nd > 0 && sz[d] == 1 ? tn_at_unsqueeze(g, d) : Py_NewRef(g);
}
/* unsqueeze_to(self, dims, sizes): at each of dims (wrapped) whose size is 1, in increasing order */
static inline PyObject *tn_bw_unsqueeze_to_dims(PyObject *g, tn_ints dims, tn_ints sizes) {
    const int64_t *sz, *dv;
    int nd = tn_bw_ints(sizes, &sz), k = tn_bw_ints(dims, &dv);
    bool mask[64] = {0};
    if (nd > 64) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: unsqueeze_to: more than 64 dims");
        return NULL;
    }
    for (int i = 0; i < k; i++) {
        int64_t d;
        if (tn_wrap_dim(dv[i], nd, &d) < 0) return NULL;
        mask[d] = true;
    }
    PyObject *r = Py_NewRef(g);
    for (int d = 0; d < nd && r; d++)
        if (mask[d] && sz[d] == 1) Py_SETREF(r, tn_at_unsqueeze(r, d));
    return r;
}

/* TypeAndSize::zeros() (torchgen's `x_info.zeros()`): zeros of the input's recorded shape and
 * options (its dtype, strided, CPU: the keywords upstream's call records) */
static inline PyObject *tn_bw_info_zeros(const tn_meta *m) {
    return tn_at_zeros(TN_IN(tn_meta_sizes(m), m->ndim), TN_DT(m->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL);
}

/* rad2deg_backward / deg2rad_backward: grad times the constant (mul.Scalar) */
static inline PyObject *tn_bw_rad2deg_backward(PyObject *g) { return tn_at_mul_Scalar(g, TN_SD(57.295779513082320876798154814105170332405472466564)); }
static inline PyObject *tn_bw_deg2rad_backward(PyObject *g) { return tn_at_mul_Scalar(g, TN_SD(0.017453292519943295769236907684886127134428718885417)); }

/* C++'s Scalar - Tensor and Scalar / Tensor (ATen's TensorOperators.h):
 * empty_like(t, preserve_format).fill_(s).sub_(t) / .div_(t) */
static inline PyObject *tn_bw_scalar_rop(tn_scalar_arg s, PyObject *t, bool div) {
    PyObject *e = tn_at_empty_like(t, NULL, NULL, NULL, NULL, tn_py.memory_format_preserve);
    PyObject *f = e ? tn_at_fill__Scalar(e, s) : NULL;
    PyObject *r = f ? (div ? tn_at_div__Tensor(f, t) : tn_at_sub__Tensor(f, t, TN_SDEF)) : NULL;
    Py_XDECREF(e);
    Py_XDECREF(f);
    return r;
}

/* not_implemented(name): upstream's NotImplementedError for a derivative it does not have */
static inline PyObject *tn_bw_not_implemented(const char *name) {
    PyErr_Format(PyExc_NotImplementedError, "the derivative for '%s' is not implemented.", name);
    return NULL;
}

/* at::scalar_tensor(v, x.options()): a 0-dim tensor of x's dtype (aten::scalar_tensor) */
static inline PyObject *tn_bw_scalar_tensor(double v, PyObject *like) {
    return tn_at_scalar_tensor(TN_SD(v), TN_DT(tn_tensor_of(like)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL);
}

/* value_selecting_reduction_backward(grad, dim, indices, sizes, keepdim) (max.dim, kthvalue, mode,
 * ...): grad scattered at indices into grad.new_zeros(sizes); without keepdim (and a non-0-dim
 * input) grad and indices are unsqueezed at dim first; scatter_ in place, or out of place while a
 * dispatch mode is active (upstream's areAnyTensorSubclassLike branch; measured: new_zeros,
 * scatter.src under a mode) */
static inline PyObject *tn_bw_value_selecting_reduction_backward(PyObject *grad, int64_t dim, PyObject *indices,
                                                                 tn_ints sizes, bool keepdim) {
    const int64_t *sz;
    int nd = tn_bw_ints(sizes, &sz);
    bool unsq = !keepdim && nd > 0;
    PyObject *g = unsq ? tn_at_unsqueeze(grad, dim) : Py_NewRef(grad);
    PyObject *i = !g ? NULL : unsq ? tn_at_unsqueeze(indices, dim) : Py_NewRef(indices);
    PyObject *z = i ? tn_at_new_zeros(g, TN_IN(sz, nd), NULL, NULL, NULL, NULL) : NULL;
    bool mode = tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled();
    PyObject *r = z ? (mode ? tn_at_scatter_src(z, dim, i, g) : tn_at_scatter__src(z, dim, i, g)) : NULL;
    Py_XDECREF(g);
    Py_XDECREF(i);
    Py_XDECREF(z);
    return r;
}

/* max_pool_double_backward(grad, indices, dim) (the double backward of the max pools, max_unpool's
 * backward): grad.contiguous(fmt).view(lead + [-1]).gather(-1, indices.view(lead + [-1]))
 * .view(indices.sizes()), lead = indices' sizes but its last dim; empty indices: empty_like(indices,
 * grad's dtype). Upstream asks for indices' suggested memory format; a channels-last one cannot
 * take the view in either implementation, so contiguous is what succeeds. */
static inline PyObject *tn_bw_max_pool_double_backward(PyObject *grad, PyObject *indices, int64_t dim) {
    const tn_tensor *it = tn_tensor_of(indices);
    if (tn_numel(it) == 0) return tn_at_empty_like(indices, TN_DT(tn_tensor_of(grad)->dtype), NULL, NULL, NULL, NULL);
    int64_t lead[TN_MAX_DIMS + 1];
    int k = it->ndim - (int)dim;
    for (int i = 0; i < k; i++) lead[i] = it->sizes[i];
    lead[k] = -1;
    PyObject *iv = tn_at_view(indices, TN_IN(lead, k + 1));
    PyObject *gc = iv ? tn_at_contiguous(grad, NULL) : NULL;
    PyObject *gv = gc ? tn_at_view(gc, TN_IN(lead, k + 1)) : NULL;
    PyObject *ga = gv ? tn_at_gather(gv, -1, iv, false) : NULL;
    PyObject *r = ga ? tn_at_view(ga, TN_IN(it->sizes, it->ndim)) : NULL;
    Py_XDECREF(iv);
    Py_XDECREF(gc);
    Py_XDECREF(gv);
    Py_XDECREF(ga);
    return r;
}

/* evenly_distribute_backward(grad, input, value) (max(), min(), median(), nanmedian(): the
 * gradient shared evenly among the elements equal to the value, NaN matching NaN). Upstream's
 * areAnyTensorSubclassLike branch while a dispatch mode is active (isnan of both,
 * logical_and, eq, logical_or_, then mask * (grad / mask.sum())); otherwise
 * grad.new_zeros(input.sizes(), input.options()).masked_fill_(mask, grad / mask.sum()), mask =
 * input.isnan() when the value is NaN, else input == value. */
static inline PyObject *tn_bw_evenly_distribute_backward(PyObject *grad, PyObject *input, PyObject *value) {
    const tn_tensor *it = tn_tensor_of(input);
    PyObject *r = NULL;
    if (tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled()) {
        PyObject *in = tn_at_isnan(input), *vn = in ? tn_at_isnan(value) : NULL;
        PyObject *both = vn ? tn_at_logical_and(in, vn) : NULL, *eq = both ? tn_at_eq_Tensor(input, value) : NULL;
        PyObject *mask = eq ? tn_at_logical_or_(eq, both) : NULL;
        PyObject *s = mask ? tn_at_sum(mask, NULL) : NULL, *d = s ? tn_at_div_Tensor(grad, s) : NULL;
        r = d ? tn_at_mul_Tensor(mask, d) : NULL;
        Py_XDECREF(in); Py_XDECREF(vn); Py_XDECREF(both); Py_XDECREF(eq); Py_XDECREF(mask); Py_XDECREF(s); Py_XDECREF(d);
        return r;
    }
    PyObject *vn = tn_at_isnan(value);
    int isn = vn ? PyObject_IsTrue(vn) : -1;
    Py_XDECREF(vn);
    if (isn < 0) return NULL;
    PyObject *mask = isn ? tn_at_isnan(input) : tn_at_eq_Tensor(input, value);
    PyObject *z = mask ? tn_at_new_zeros(grad, TN_IN(it->sizes, it->ndim), TN_DT(it->dtype), NULL, NULL, NULL) : NULL;
    PyObject *s = z ? tn_at_sum(mask, NULL) : NULL, *d = s ? tn_at_div_Tensor(grad, s) : NULL;
    PyObject *f = d ? tn_at_masked_fill__Tensor(z, mask, d) : NULL;
    if (f) r = Py_NewRef(z);
    Py_XDECREF(mask); Py_XDECREF(z); Py_XDECREF(s); Py_XDECREF(d); Py_XDECREF(f);
    return r;
}

/* copysign_tensor_self_backward(grad, self, result): grad * (result / self) with the ratio
 * zeroed where self == 0 (masked_fill_ in place, as upstream's) */
static inline PyObject *tn_bw_copysign_tensor_self_backward(PyObject *grad, PyObject *self, PyObject *result) {
    PyObject *ratio = tn_at_div_Tensor(result, self), *z = ratio ? tn_at_eq_Scalar(self, TN_SI(0)) : NULL;
    PyObject *f = z ? tn_at_masked_fill__Scalar(ratio, z, TN_SI(0)) : NULL, *r = f ? tn_at_mul_Tensor(grad, ratio) : NULL;
    Py_XDECREF(ratio); Py_XDECREF(z); Py_XDECREF(f);
    return r;
}

/* cumsum_backward(grad, dim): grad itself when it has at most one element or size 1 at dim, else
 * the reversed cumsum grad.flip(dim).cumsum(dim).flip(dim) */
static inline PyObject *tn_bw_cumsum_backward(PyObject *grad, int64_t dim) {
    const tn_tensor *t = tn_tensor_of(grad);
    int64_t d = dim < 0 ? dim + (t->ndim ? t->ndim : 1) : dim;
    if (tn_numel(t) <= 1 || (t->ndim ? t->sizes[d] : 1) == 1) return Py_NewRef(grad);
    PyObject *f = tn_at_flip(grad, TN_IN(&dim, 1)), *c = f ? tn_at_cumsum(f, dim, NULL) : NULL;
    PyObject *r = c ? tn_at_flip(c, TN_IN(&dim, 1)) : NULL;
    Py_XDECREF(f); Py_XDECREF(c);
    return r;
}

/* atan2_backward(grad, self, other, mask) -> (self's, other's): denom = self * self + other *
 * other (right operand first, as upstream's build evaluates it), recip = denom.reciprocal()
 * .masked_fill(denom == 0, 0) (0 at the origin, where 1 / 0 would make 0 * inf = NaN), then
 * grad * other * recip and grad * -self * recip, each only when its mask entry is set (None
 * otherwise). Op order measured on 2.13.0 with a dispatch mode: mul, mul, add, reciprocal,
 * eq.Scalar, masked_fill.Scalar, mul, mul, neg, mul, mul. */
static inline PyObject *tn_bw_atan2_backward(PyObject *grad, PyObject *self, PyObject *other, tn_ints mask) {
    const int64_t *m;
    if (tn_bw_ints(mask, &m) != 2) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: atan2_backward: a mask of 2");
        return NULL;
    }
    PyObject *oo = tn_at_mul_Tensor(other, other), *ss = oo ? tn_at_mul_Tensor(self, self) : NULL;
    PyObject *sum = ss ? tn_at_add_Tensor(ss, oo, TN_SDEF) : NULL, *rc = sum ? tn_at_reciprocal(sum) : NULL;
    PyObject *z = rc ? tn_at_eq_Scalar(sum, TN_SI(0)) : NULL, *recip = z ? tn_at_masked_fill_Scalar(rc, z, TN_SI(0)) : NULL;
    PyObject *a = NULL, *b = NULL, *t = NULL, *r = NULL;
    bool ok = recip != NULL;
    if (ok && m[0]) {
        t = tn_at_mul_Tensor(grad, other);
        ok = t && (a = tn_at_mul_Tensor(t, recip));
        Py_CLEAR(t);
    }
    if (ok && m[1]) {
        PyObject *ns = tn_at_neg(self);
        t = ns ? tn_at_mul_Tensor(grad, ns) : NULL;
        ok = t && (b = tn_at_mul_Tensor(t, recip));
        Py_XDECREF(ns);
        Py_CLEAR(t);
    }
    if (ok) r = PyTuple_Pack(2, a ? a : Py_None, b ? b : Py_None);
    Py_XDECREF(oo); Py_XDECREF(ss); Py_XDECREF(sum); Py_XDECREF(rc); Py_XDECREF(z); Py_XDECREF(recip);
    Py_XDECREF(a); Py_XDECREF(b);
    return r;
}

/* index_backward(zeros, indices, grad): grad accumulated into zeros at indices; upstream's
 * areAnyTensorSubclassLike branch (index_put, out of place) while a dispatch mode is active, else
 * _index_put_impl_(zeros, indices, grad, accumulate=true, unsafe=true) (measured op stream) */
static inline PyObject *tn_bw_index_backward(PyObject *zeros, tn_tensors indices, PyObject *grad) {
    if (tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled()) return tn_at_index_put(zeros, indices, grad, true);
    return tn_at__index_put_impl_(zeros, indices, grad, true, true);
}

/* slice_backward_wrapper(grad, sizes, dim, start?, end?, step): slice_backward with a None start
 * as 0 and a None end as INT64_MAX (slice_backward clamps them) */
static inline PyObject *tn_bw_slice_backward_wrapper_i(PyObject *grad, tn_ints sizes, int64_t dim, int64_t start, int64_t end,
                                                       int64_t step) {
    return tn_at_slice_backward(grad, sizes, dim, start, end, step);
}
static inline PyObject *tn_bw_slice_backward_wrapper(PyObject *grad, tn_ints sizes, int64_t dim, const int64_t *start,
                                                     const int64_t *end, int64_t step) {
    return tn_at_slice_backward(grad, sizes, dim, start ? *start : 0, end ? *end : INT64_MAX, step);
}

/* _to_copy_backward(grad, self_options): the real part of a complex grad for a real input, then
 * grad.to(self's dtype, strided, CPU) (to.dtype_layout: no op when it has them already) */
static inline PyObject *tn_bw_to_copy_backward(PyObject *grad, tn_dtype dt) {
    PyObject *g = tn_bw_r_to_c(dt, grad);
    if (!g) return NULL;
    PyObject *r = tn_at_to_dtype_layout(g, TN_DT(dt), tn_py.layout_strided, tn_py.device_cpu, NULL, false, false, NULL);
    Py_DECREF(g);
    return r;
}

/* constant_pad_nd_backward(grad, pad): constant_pad_nd(grad, -pad, 0) */
static inline PyObject *tn_bw_constant_pad_nd_backward(PyObject *grad, tn_ints pad) {
    const int64_t *pv;
    int k = tn_bw_ints(pad, &pv);
    int64_t neg[2 * TN_MAX_DIMS];
    if (k < 0 || k > 2 * TN_MAX_DIMS) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: constant_pad_nd_backward: bad pad");
        return NULL;
    }
    for (int i = 0; i < k; i++) neg[i] = -pv[i];
    return tn_at_constant_pad_nd(grad, TN_IN(neg, k), TN_SI(0));
}

/* ---- small typed pieces the generated code and the formula-text helpers (bw_formulas.py
 * INLINE) use ---- */

/* upstream's areAnyTensorSubclassLike(...) / isTensorSubclassLike: true while a dispatch mode is
 * active (a mode makes every tensor subclass-like to the formula; measured) */
static inline bool tn_bw_subclass_like(void) { return tn_dispatch_mode_len() > 0 && !tn_dispatch_modes_disabled(); }
/* x.sizes() of a tensor (the array lives as long as x) */
static inline tn_ints tn_bw_sizes(PyObject *x) { const tn_tensor *t = tn_tensor_of(x); return TN_IN(t->sizes, t->ndim); }
static inline int64_t tn_bw_numel(PyObject *x) { return tn_numel(tn_tensor_of(x)); }
/* x.size(d), d wrapped (an out-of-range d gives size 1 here; the ops given it refuse it) */
static inline int64_t tn_bw_size(PyObject *x, int64_t d) {
    const tn_tensor *t = tn_tensor_of(x);
    if (d < 0) d += t->ndim;
    return d >= 0 && d < t->ndim ? t->sizes[d] : 1;
}
/* torchgen's saved `x.sym_numel()`: the input's recorded element count */
static inline int64_t tn_bw_meta_numel(const tn_meta *m) {
    int64_t k = 1;
    for (int d = 0; d < m->ndim; d++) k *= tn_meta_sizes(m)[d];
    return k;
}
/* torchgen's saved `x.sym_size(d)`: the input's recorded size at dim d (wrapped; 1 out of range,
 * which the ops given it refuse) */
static inline int64_t tn_bw_meta_size(const tn_meta *m, int64_t d) {
    if (d < 0) d += m->ndim;
    return d >= 0 && d < m->ndim ? tn_meta_sizes(m)[d] : 1;
}
/* at::result_type(a, b) of two tensors (dim-0 tensors rank below dimensioned ones) */
static inline tn_dtype tn_bw_result_type(PyObject *a, PyObject *b) {
    tn_value v[2] = {tn_tensor_value(a), tn_tensor_value(b)};
    return tn_result_type(2, v);
}

/* unsqueeze_multiple(t, dims, n_dims): None or several dims: t unsqueezed at each (wrapped
 * against n_dims) in increasing order; one dim: t.unsqueeze(dim) as given; none: t itself */
static inline PyObject *tn_bw_unsqueeze_multiple(PyObject *t, tn_ints dims, int64_t n_dims) {
    const int64_t *dv;
    int k = tn_bw_ints(dims, &dv);
    if (k == 0) return Py_NewRef(t);
    if (k == 1) return tn_at_unsqueeze(t, dv[0]);
    bool mask[64] = {0};
    if (n_dims > 64) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: unsqueeze_multiple: more than 64 dims");
        return NULL;
    }
    for (int64_t i = 0; i < (k < 0 ? n_dims : k); i++) {
        int64_t d = i;
        if (k > 0) {
            if (tn_wrap_dim(dv[i], n_dims, &d) < 0) return NULL;
            if (mask[d]) {
                PyErr_Format(PyExc_RuntimeError, "dim %lld appears multiple times in the list of dims", (long long)d);
                return NULL;
            }
        }
        mask[d] = true;
    }
    PyObject *r = Py_NewRef(t);
    for (int64_t d = 0; d < n_dims && r; d++)
        if (mask[d]) Py_SETREF(r, tn_at_unsqueeze(r, d));
    return r;
}

/* sum_backward(grad, sizes, dims?, keepdim): grad unsqueezed at the reduced dims (without
 * keepdim, for a non-0-dim input and a non-empty dims list), then expanded to sizes */
static inline PyObject *tn_bw_sum_backward(PyObject *grad, tn_ints sizes, tn_ints dims, bool keepdim) {
    const int64_t *sz, *dv;
    int nd = tn_bw_ints(sizes, &sz), k = tn_bw_ints(dims, &dv);
    PyObject *g = !keepdim && nd > 0 && k > 0 ? tn_bw_unsqueeze_multiple(grad, dims, nd) : Py_NewRef(grad);
    PyObject *r = g ? tn_at_expand(g, TN_IN(sz, nd), false) : NULL;
    Py_XDECREF(g);
    return r;
}
/* mean_backward(grad, sizes, dims?, numel, keepdim): sum_backward(...) / n, n the number of
 * elements reduced (numel for None or an empty dims list) */
static inline PyObject *tn_bw_mean_backward(PyObject *grad, tn_ints sizes, tn_ints dims, int64_t numel, bool keepdim) {
    const int64_t *sz, *dv;
    int nd = tn_bw_ints(sizes, &sz), k = tn_bw_ints(dims, &dv);
    int64_t cnt = 1;
    if (k <= 0) cnt = numel;
    else if (nd > 0)
        for (int i = 0; i < k; i++) {
            int64_t d;
            if (tn_wrap_dim(dv[i], nd, &d) < 0) return NULL;
            cnt *= sz[d];
        }
    PyObject *s = tn_bw_sum_backward(grad, sizes, dims, keepdim), *r = s ? tn_at_div_Scalar(s, TN_SI(cnt)) : NULL;
    Py_XDECREF(s);
    return r;
}

/* logsumexp_backward(grad, self, result, dims, keepdim): grad * (self - result).exp().conj(),
 * grad and result unsqueezed at dims first (without keepdim, for a non-0-dim self) */
static inline PyObject *tn_bw_logsumexp_backward(PyObject *grad, PyObject *self, PyObject *result, tn_ints dims, bool keepdim) {
    int64_t nd = tn_tensor_of(self)->ndim;
    bool u = !keepdim && nd != 0;
    PyObject *g = u ? tn_bw_unsqueeze_multiple(grad, dims, nd) : Py_NewRef(grad);
    PyObject *r = !g ? NULL : u ? tn_bw_unsqueeze_multiple(result, dims, nd) : Py_NewRef(result);
    PyObject *d = r ? tn_at_sub_Tensor(self, r, TN_SDEF) : NULL, *e = d ? tn_at_exp(d) : NULL;
    PyObject *c = e ? tn_bw_conj(e) : NULL, *out = c ? tn_at_mul_Tensor(g, c) : NULL;
    Py_XDECREF(g); Py_XDECREF(r); Py_XDECREF(d); Py_XDECREF(e); Py_XDECREF(c);
    return out;
}

/* restore_reduced_dims(output, dims, keepdim): output reshaped with a 1 at each reduced dim */
static inline PyObject *tn_bw_restore_reduced_dims(PyObject *output, tn_ints dims, bool keepdim) {
    if (keepdim) return Py_NewRef(output);
    const tn_tensor *t = tn_tensor_of(output);
    const int64_t *dv;
    int k = tn_bw_ints(dims, &dv);
    if (k < 0) k = 0;
    int64_t total = t->ndim + k, shape[2 * TN_MAX_DIMS];
    if (total > 2 * TN_MAX_DIMS) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: restore_reduced_dims: too many dims");
        return NULL;
    }
    for (int64_t i = 0; i < total; i++) shape[i] = 0;
    for (int i = 0; i < k; i++) {
        int64_t d = dv[i] < 0 ? total + dv[i] : dv[i];
        if (d < 0 || d >= total) {
            PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%lld, %lld], but got %lld)",
                         (long long)-total, (long long)(total - 1), (long long)dv[i]);
            return NULL;
        }
        shape[d] = 1;
    }
    int64_t j = 0;
    for (int i = 0; i < t->ndim; i++) {
        while (j < total && shape[j] > 0) j++;
        if (j < total) shape[j++] = t->sizes[i];
    }
    return tn_at_reshape(output, TN_IN(shape, total));
}

/* permute_backwards(grad, dims): grad permuted by the inverse permutation */
static inline PyObject *tn_bw_permute_backwards(PyObject *grad, tn_ints fwd) {
    const int64_t *dv;
    int k = tn_bw_ints(fwd, &dv);
    int64_t inv[TN_MAX_DIMS];
    if (k < 0 || k > TN_MAX_DIMS) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: permute_backwards: bad dims");
        return NULL;
    }
    for (int i = 0; i < k; i++) {
        int64_t d;
        if (tn_wrap_dim(dv[i], k, &d) < 0) return NULL;
        inv[d] = i;
    }
    return tn_at_permute(grad, TN_IN(inv, k));
}

/* pow_backward(grad, self, exponent) for a Scalar exponent: zeros_like(self, contiguous) for a
 * 0 exponent, else handle_r_to_c(self, grad * (exponent * self.pow(exponent - 1)).conj()) with
 * the exponent as a double (or a complex) */
static inline PyObject *tn_bw_pow_backward(PyObject *grad, PyObject *self, const tn_value *e) {
    bool cplx = e->tag == TN_V_COMPLEX;
    double re = cplx ? e->u.c.re : tn_value_as_double(e), im = cplx ? e->u.c.im : 0.0;
    if (re == 0.0 && im == 0.0) return tn_at_zeros_like(self, NULL, NULL, NULL, NULL, tn_py.memory_format_contiguous);
    tn_value em1 = {.tag = cplx ? TN_V_COMPLEX : TN_V_FLOAT}, ev = em1;
    if (cplx) { em1.u.c.re = re - 1; em1.u.c.im = im; ev.u.c.re = re; ev.u.c.im = im; }
    else { em1.u.f = re - 1; ev.u.f = re; }
    PyObject *p = tn_at_pow_Tensor_Scalar(self, TN_SV(&em1)), *m = p ? tn_at_mul_Scalar(p, TN_SV(&ev)) : NULL;
    PyObject *c = m ? tn_bw_conj(m) : NULL, *out = c ? tn_at_mul_Tensor(grad, c) : NULL;
    PyObject *r = out ? tn_bw_r_to_c_t(self, out) : NULL;
    Py_XDECREF(p); Py_XDECREF(m); Py_XDECREF(c); Py_XDECREF(out);
    return r;
}

/* ---- `grads`: all of a node's output gradients (a formula over several outputs); a missing
 * one is NULL ---- */
static inline bool tn_bw_any_grad(tn_node *n, PyObject **g) {
    for (int k = 0; k < n->nout; k++)
        if (g[k]) return true;
    return false;
}

/* split_with_sizes_backward(grads, split_sizes, dim, sizes, options): the pieces' gradients
 * concatenated along dim, a missing one as zeros(sizes with split_sizes[j] at dim, options) */
static inline PyObject *tn_bw_split_with_sizes_backward(tn_node *n, PyObject **g, tn_ints split_sizes, int64_t dim,
                                                        tn_ints sizes, tn_dtype dt) {
    const int64_t *sz, *ss;
    int nd = tn_bw_ints(sizes, &sz), ns = tn_bw_ints(split_sizes, &ss);
    int64_t d, shape[TN_MAX_DIMS];
    if (tn_wrap_dim(dim, nd, &d) < 0) return NULL;
    if (nd > TN_MAX_DIMS || ns < n->nout) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: split_with_sizes_backward: sizes do not fit");
        return NULL;
    }
    PyObject *l = PyList_New(n->nout);
    if (!l) return NULL;
    for (int j = 0; j < n->nout; j++) {
        PyObject *p;
        if (g[j]) p = Py_NewRef(g[j]);
        else {
            for (int i = 0; i < nd; i++) shape[i] = sz[i];
            shape[d] = ss[j];
            p = tn_at_zeros(TN_IN(shape, nd), TN_DT(dt), tn_py.layout_strided, tn_py.device_cpu, NULL);
        }
        if (!p) { Py_DECREF(l); return NULL; }
        PyList_SetItem(l, j, p);
    }
    PyObject *r = tn_at_cat(TN_TPY(l), d);
    Py_DECREF(l);
    return r;
}
/* split_backward(grads, split_size, dim, sizes, options): split_with_sizes_backward with every
 * piece split_size long but the last, which takes the rest */
static inline PyObject *tn_bw_split_backward(tn_node *n, PyObject **g, int64_t split_size, int64_t dim, tn_ints sizes, tn_dtype dt) {
    const int64_t *sz;
    int nd = tn_bw_ints(sizes, &sz);
    int64_t d, ss[64];
    if (tn_wrap_dim(dim, nd, &d) < 0) return NULL;
    if (n->nout > 64 || n->nout < 1) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: split_backward: more than 64 pieces");
        return NULL;
    }
    for (int j = 0; j < n->nout; j++) ss[j] = split_size;
    ss[n->nout - 1] = split_size - (split_size * n->nout - sz[d]);
    return tn_bw_split_with_sizes_backward(n, g, TN_IN(ss, n->nout), d, sizes, dt);
}
/* unbind_backward(grads, dim): the pieces' gradients stacked along dim, a missing one as
 * zeros({}, options).expand(sizes), sizes and options those of the first gradient there is */
static inline PyObject *tn_bw_unbind_backward(tn_node *n, PyObject **g, int64_t dim) {
    PyObject *like = NULL;
    for (int k = 0; k < n->nout && !like; k++) like = g[k];
    if (!like) return NULL;
    PyObject *l = PyList_New(n->nout);
    if (!l) return NULL;
    for (int j = 0; j < n->nout; j++) {
        PyObject *p;
        if (g[j]) p = Py_NewRef(g[j]);
        else {
            PyObject *z = tn_at_zeros(TN_IS0, TN_DT(tn_tensor_of(like)->dtype), tn_py.layout_strided, tn_py.device_cpu, NULL);
            p = z ? tn_at_expand(z, tn_bw_sizes(like), false) : NULL;
            Py_XDECREF(z);
        }
        if (!p) { Py_DECREF(l); return NULL; }
        PyList_SetItem(l, j, p);
    }
    PyObject *r = tn_at_stack(TN_TPY(l), dim);
    Py_DECREF(l);
    return r;
}

/* ---- var / std (a Scalar? correction: NULL for None) ---- */
static inline const tn_value *tn_bw_opt_scalar(const tn_value *v) { return v->tag == TN_V_NONE ? NULL : v; }

/* var_backward(grad, self, dims?, correction?, keepdim): 2 / (n - correction) * grad * (self -
 * mean), n the number of elements reduced; for a full reduction with n <= correction, grad *
 * where(self == self.mean(), NaN, inf) */
static inline PyObject *tn_bw_var_backward(PyObject *grad, PyObject *self, tn_ints dims, const tn_value *corr, bool keepdim) {
    double c = corr ? tn_value_as_double(corr) : 1.0;
    const tn_tensor *st = tn_tensor_of(self);
    const int64_t *dv;
    int k = tn_bw_ints(dims, &dv);
    if (st->ndim == 0 || k < 0) {
        double dof = (double)tn_numel(st) - c;
        PyObject *m = tn_at_mean(self, NULL), *r = NULL;
        if (!m) return NULL;
        if (dof <= 0) {
            /* upstream's where(cond, Scalar, Scalar): where.self of the two as scalar tensors of the
             * default dtype (other's first; measured: float32, so a float32 result the engine casts) */
            tn_dtype dd = tn_py.default_dtype;
            PyObject *eq = tn_at_eq_Tensor(self, m);
            PyObject *inf = eq ? tn_at_scalar_tensor(TN_SD(INFINITY), TN_DT(dd), tn_py.layout_strided, tn_py.device_cpu, NULL) : NULL;
            PyObject *nan = inf ? tn_at_scalar_tensor(TN_SD(NAN), TN_DT(dd), tn_py.layout_strided, tn_py.device_cpu, NULL) : NULL;
            PyObject *w = nan ? tn_at_where_self(eq, nan, inf) : NULL;
            r = w ? tn_at_mul_Tensor(grad, w) : NULL;
            Py_XDECREF(eq); Py_XDECREF(inf); Py_XDECREF(nan); Py_XDECREF(w);
        } else {
            PyObject *d = tn_at_sub_Tensor(self, m, TN_SDEF), *gs = d ? tn_at_mul_Scalar(grad, TN_SD(2.0 / dof)) : NULL;
            r = gs ? tn_at_mul_Tensor(gs, d) : NULL;
            Py_XDECREF(d); Py_XDECREF(gs);
        }
        Py_DECREF(m);
        return r;
    }
    PyObject *g = !keepdim && st->ndim > 1 ? tn_bw_unsqueeze_multiple(grad, dims, st->ndim) : Py_NewRef(grad);
    if (!g) return NULL;
    double rnumel = 1;
    for (int i = 0; i < k; i++) {
        int64_t d;
        if (tn_wrap_dim(dv[i], st->ndim, &d) < 0) { Py_DECREF(g); return NULL; }
        rnumel *= (double)st->sizes[d];
    }
    PyObject *m = tn_at_mean_dim(self, dims, true, NULL), *d = m ? tn_at_sub_Tensor(self, m, TN_SDEF) : NULL;
    PyObject *gs = d ? tn_at_mul_Scalar(g, TN_SD(2.0 / (rnumel - c))) : NULL, *r = gs ? tn_at_mul_Tensor(gs, d) : NULL;
    Py_XDECREF(g); Py_XDECREF(m); Py_XDECREF(d); Py_XDECREF(gs);
    return r;
}
/* std_backward(result, grad, self, dims?, correction?, keepdim): var_backward of
 * (grad / (result * 2)).masked_fill_(result == 0, 0) */
static inline PyObject *tn_bw_std_backward(PyObject *result, PyObject *grad, PyObject *self, tn_ints dims, const tn_value *corr,
                                           bool keepdim) {
    PyObject *r2 = tn_at_mul_Scalar(result, TN_SI(2)), *q = r2 ? tn_at_div_Tensor(grad, r2) : NULL;
    PyObject *z = q ? tn_at_eq_Scalar(result, TN_SI(0)) : NULL, *f = z ? tn_at_masked_fill__Scalar(q, z, TN_SI(0)) : NULL;
    PyObject *r = f ? tn_bw_var_backward(q, self, dims, corr, keepdim) : NULL;
    Py_XDECREF(r2); Py_XDECREF(q); Py_XDECREF(z); Py_XDECREF(f);
    return r;
}
/* var_mean_backward(gvar, gmean, self, dims?, correction?, keepdim) and std_mean_backward(gstd,
 * gmean, self, std, ...): the var (std) part for a defined gvar (gstd), plus mean_backward of
 * gmean (dims None as []) for a defined gmean; NULL is an undefined gradient */
static inline PyObject *tn_bw_moments_mean_part(PyObject *gself, PyObject *gmean, PyObject *self, tn_ints dims, bool keepdim) {
    if (!gmean) return gself;
    const int64_t *dv;
    int k = tn_bw_ints(dims, &dv);
    PyObject *aux = tn_bw_mean_backward(gmean, tn_bw_sizes(self), k < 0 ? TN_IS0 : dims, tn_bw_numel(self), keepdim);
    if (!aux) { Py_XDECREF(gself); return NULL; }
    if (!gself) return aux;
    PyObject *r = tn_at_add_Tensor(gself, aux, TN_SDEF);
    Py_DECREF(gself); Py_DECREF(aux);
    return r;
}
static inline PyObject *tn_bw_var_mean_backward(PyObject *gvar, PyObject *gmean, PyObject *self, tn_ints dims, const tn_value *corr,
                                                bool keepdim) {
    PyObject *gself = NULL;
    if (gvar && !(gself = tn_bw_var_backward(gvar, self, dims, corr, keepdim))) return NULL;
    return tn_bw_moments_mean_part(gself, gmean, self, dims, keepdim);
}
static inline PyObject *tn_bw_std_mean_backward(PyObject *gstd, PyObject *gmean, PyObject *self, PyObject *std, tn_ints dims,
                                                const tn_value *corr, bool keepdim) {
    PyObject *gself = NULL;
    if (gstd && !(gself = tn_bw_std_backward(std, gstd, self, dims, corr, keepdim))) return NULL;
    return tn_bw_moments_mean_part(gself, gmean, self, dims, keepdim);
}

/* ---- clamp ---- */
/* clamp_backward(grad, self, min?, max?) for Scalar bounds: grad where self is within the bounds
 * it has, 0 elsewhere (scalar_tensor(0., grad's dtype) first, then the mask, then where) */
static inline PyObject *tn_bw_clamp_backward(PyObject *grad, PyObject *self, const tn_value *min, const tn_value *max) {
    if (!min && !max) return Py_NewRef(grad);
    PyObject *zero = tn_bw_scalar_tensor(0.0, grad), *pred = NULL, *r = NULL;
    if (!zero) return NULL;
    if (min && max) {
        PyObject *ge = tn_at_ge_Scalar(self, TN_SV(min)), *le = ge ? tn_at_le_Scalar(self, TN_SV(max)) : NULL;
        pred = le ? tn_at_logical_and_(ge, le) : NULL;
        Py_XDECREF(ge); Py_XDECREF(le);
    } else pred = min ? tn_at_ge_Scalar(self, TN_SV(min)) : tn_at_le_Scalar(self, TN_SV(max));
    r = pred ? tn_at_where_self(pred, grad, zero) : NULL;
    Py_DECREF(zero); Py_XDECREF(pred);
    return r;
}
/* the same for Tensor? bounds (None: absent); logical_and out of place while a dispatch mode is
 * active (upstream's areAnyTensorSubclassLike branch) */
static inline PyObject *tn_bw_clamp_backward_t(PyObject *grad, PyObject *self, PyObject *min, PyObject *max) {
    bool hmin = min && min != Py_None, hmax = max && max != Py_None;
    if (!hmin && !hmax) return Py_NewRef(grad);
    PyObject *zero = tn_bw_scalar_tensor(0.0, grad), *pred = NULL, *r = NULL;
    if (!zero) return NULL;
    if (hmin && hmax) {
        PyObject *ge = tn_at_ge_Tensor(self, min), *le = ge ? tn_at_le_Tensor(self, max) : NULL;
        pred = le ? (tn_bw_subclass_like() ? tn_at_logical_and(ge, le) : tn_at_logical_and_(ge, le)) : NULL;
        Py_XDECREF(ge); Py_XDECREF(le);
    } else pred = hmin ? tn_at_ge_Tensor(self, min) : tn_at_le_Tensor(self, max);
    r = pred ? tn_at_where_self(pred, grad, zero) : NULL;
    Py_DECREF(zero); Py_XDECREF(pred);
    return r;
}
/* clamp_backward_min_max(grad, self, min?, max?, mask) -> (min's, max's): grad where the bound was
 * the one taken (with both: self < min and min < max for min, self > max or max < min for max),
 * 0 elsewhere; None where the mask says no or the bound is absent */
static inline PyObject *tn_bw_clamp_backward_min_max(PyObject *grad, PyObject *self, PyObject *min, PyObject *max, tn_ints mask) {
    const int64_t *m;
    if (tn_bw_ints(mask, &m) != 2) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: clamp_backward_min_max: a mask of 2");
        return NULL;
    }
    bool hmin = min && min != Py_None, hmax = max && max != Py_None, sub = tn_bw_subclass_like();
    PyObject *zero = tn_bw_scalar_tensor(0.0, grad), *a = NULL, *b = NULL, *r = NULL;
    bool ok = zero != NULL;
    if (ok && hmin && hmax) {
        if (m[0]) {
            PyObject *x = tn_at_lt_Tensor(self, min), *y = x ? tn_at_lt_Tensor(min, max) : NULL;
            PyObject *p = y ? (sub ? tn_at_logical_and(x, y) : tn_at_logical_and_(x, y)) : NULL;
            ok = p && (a = tn_at_where_self(p, grad, zero));
            Py_XDECREF(x); Py_XDECREF(y); Py_XDECREF(p);
        }
        if (ok && m[1]) {
            PyObject *x = tn_at_gt_Tensor(self, max), *y = x ? tn_at_lt_Tensor(max, min) : NULL;
            PyObject *p = y ? (sub ? tn_at_logical_or(x, y) : tn_at_logical_or_(x, y)) : NULL;
            ok = p && (b = tn_at_where_self(p, grad, zero));
            Py_XDECREF(x); Py_XDECREF(y); Py_XDECREF(p);
        }
    } else if (ok && hmin && m[0]) {
        PyObject *p = tn_at_lt_Tensor(self, min);
        ok = p && (a = tn_at_where_self(p, grad, zero));
        Py_XDECREF(p);
    } else if (ok && hmax && m[1]) {
        PyObject *p = tn_at_gt_Tensor(self, max);
        ok = p && (b = tn_at_where_self(p, grad, zero));
        Py_XDECREF(p);
    }
    if (ok) r = PyTuple_Pack(2, a ? a : Py_None, b ? b : Py_None);
    Py_XDECREF(zero); Py_XDECREF(a); Py_XDECREF(b);
    return r;
}

/* ---- bw_helpers.c ---- */
/* prod_backward(grad, input, result[, dim, keepdim]) (prod, prod.dim_int and prod's forward-AD formula) */
PyObject *tn_bw_prod_backward(PyObject *grad, PyObject *input, PyObject *result);
PyObject *tn_bw_prod_backward_dim(PyObject *grad, PyObject *input, PyObject *result, int64_t dim, bool keepdim);
/* norm_backward(grad, self, p?, norm, dims, keepdim) (also linalg_vector_norm_backward, dims None
 * as none); p NULL is 2; None (no gradient) for p == 0 */
PyObject *tn_bw_norm_backward(PyObject *grad, PyObject *self, const tn_value *p, PyObject *norm, tn_ints dims, bool keepdim);
/* layer_norm_double_backward(input, weight?, grads[0..2] (maybe NULL), grad_out, mean, rstd,
 * normalized_shape, mask) -> (input's, weight's, grad_out's) (bw_helpers.c) */
/* batchnorm_double_backward(input, weight?, grads[0..2] (maybe NULL), grad_out, running_mean?,
 * running_var?, train, eps, save_mean?, save_invstd?, mask) -> (input's, weight's, grad_out's) */
PyObject *tn_bw_batchnorm_double_backward(PyObject *input, PyObject *gamma, PyObject *ggI, PyObject *ggG, PyObject *ggB,
                                          PyObject *gO, PyObject *running_mean, PyObject *running_var, bool training,
                                          double eps, PyObject *save_mean, PyObject *save_invstd, tn_ints mask);
/* grid_sampler_{2,3}d_double_backward(ggI, ggGrid (maybe NULL), grad_output, input, grid, interpolation,
 * padding, align_corners, mask) -> (grad_output's, input's, grid's) (bw_grid.c) */
PyObject *tn_bw_grid_sampler_2d_double_backward(PyObject *ggI, PyObject *ggGrid, PyObject *gO, PyObject *input,
                                                PyObject *grid, int64_t interpolation, int64_t padding, bool align,
                                                tn_ints mask);
PyObject *tn_bw_grid_sampler_3d_double_backward(PyObject *ggI, PyObject *ggGrid, PyObject *gO, PyObject *input,
                                                PyObject *grid, int64_t interpolation, int64_t padding, bool align,
                                                tn_ints mask);
/* i1_backward / i1e_backward(grad, self, result); polar_backward(grad, result) -> (abs's, angle's) */
PyObject *tn_bw_i1_backward(PyObject *grad, PyObject *self, PyObject *result);
PyObject *tn_bw_i1e_backward(PyObject *grad, PyObject *self, PyObject *result);
PyObject *tn_bw_polar_backward(PyObject *grad, PyObject *result);
/* renorm_backward(grad, self, p, dim, maxnorm) */
PyObject *tn_bw_renorm_backward(PyObject *grad, PyObject *self, const tn_value *p, int64_t dim, const tn_value *maxnorm);
/* scatter_reduce_backward / index_reduce_backward(grad, self, dim, index, src, reduce, include_self,
 * result) -> (grad_self, grad_src) (bw_scatter.c) */
PyObject *tn_bw_scatter_reduce_backward(PyObject *grad, PyObject *self, int64_t dim, PyObject *index, PyObject *src,
                                        const char *reduce, bool include_self, PyObject *result);
PyObject *tn_bw_index_reduce_backward(PyObject *grad, PyObject *self, int64_t dim, PyObject *index, PyObject *source,
                                      const char *reduce, bool include_self, PyObject *result);
/* cholesky_inverse_backward(grad, L, upper, inverse) and cholesky_solve_backward(grad, self, input2,
 * result, upper, mask) -> (self's, input2's) (bw_linalg.c) */
PyObject *tn_bw_cholesky_inverse_backward(PyObject *grad, PyObject *L, bool upper, PyObject *inverse);
PyObject *tn_bw_cholesky_solve_backward(PyObject *grad, PyObject *self, PyObject *input2, PyObject *result, bool upper, tn_ints mask);
/* glu_backward's own gradients (double backward of glu): glu_double_backward_grad_output(grad,
 * input, dim) and glu_double_backward(grad, grad_output, input, dim) (bw_helpers.c) */
PyObject *tn_bw_glu_double_backward_grad_output(PyObject *grad, PyObject *input, int64_t dim);
PyObject *tn_bw_glu_double_backward(PyObject *grad, PyObject *gO, PyObject *input, int64_t dim);
/* the LU, triangular_solve and eig helpers (bw_linalg.c); a gradient argument that may be
 * undefined is NULL or None, an undefined result None */
PyObject *tn_bw_linalg_lu_backward(PyObject *L_grad, PyObject *U_grad, PyObject *P, PyObject *L, PyObject *U, bool pivot);
PyObject *tn_bw_lu_factor_ex_backward(PyObject *grad, PyObject *LU, PyObject *pivots, bool pivot);
PyObject *tn_bw_lu_unpack_backward(PyObject *L_grad, PyObject *U_grad, int64_t m, int64_t n);
PyObject *tn_bw_linalg_lu_solve_LU(PyObject *gX, PyObject *LU, PyObject *pivots, PyObject *X, bool left, bool adjoint);
/* -> (self's, A's) */
PyObject *tn_bw_triangular_solve_backward(PyObject *grad_x, PyObject *grad_m, PyObject *b, PyObject *a, PyObject *x, bool upper,
                                          bool transpose, bool unitriangular, tn_ints mask);
PyObject *tn_bw_linalg_eig_backward(PyObject *gL, PyObject *gV, PyObject *L, PyObject *V, bool is_hermitian);
PyObject *tn_bw_slogdet_backward(PyObject *grad_sign, PyObject *grad_logabsdet, PyObject *A, PyObject *sign, PyObject *LU, PyObject *pivots);
PyObject *tn_bw_linalg_qr_backward(PyObject *gQ, PyObject *gR, PyObject *Q, PyObject *R, const char *mode);
/* cholesky_backward(grad, upper, L), linalg_det_backward(grad, det, A, LU, pivots) and svd_backward(gU, gS,
 * gVh, U, S, Vh) (bw_linalg.c; _linalg_svd's hand-written formula in formulas.c cuts U / Vh first) */
/* prod_safe_zeros_backward(grad, inp, dim) (bw_helpers.c; linalg_det_backward's singular branch) */
PyObject *tn_bw_prod_safe_zeros_backward(PyObject *grad, PyObject *inp, int64_t dim);
PyObject *tn_bw_cholesky_backward(PyObject *grad, bool upper, PyObject *L);
PyObject *tn_bw_linalg_det_backward(PyObject *grad, PyObject *det, PyObject *A, PyObject *LU, PyObject *pivots);
PyObject *tn_bw_svd_backward(PyObject *gU, PyObject *gS, PyObject *gVh, PyObject *U, PyObject *S, PyObject *Vh);
/* logcumsumexp_backward(grad, self, result, dim) */
PyObject *tn_bw_logcumsumexp_backward(PyObject *grad, PyObject *self, PyObject *result, int64_t dim);
/* repeat_backward(grad, repeats, input_shape) */
PyObject *tn_bw_repeat_backward(PyObject *grad, tn_ints repeats, tn_ints input_shape);
/* embedding_dense_double_backward(grad, indices, padding_idx) */
PyObject *tn_bw_embedding_dense_double_backward(PyObject *grad, PyObject *indices, int64_t padding_idx);
PyObject *tn_bw_layer_norm_double_backward(PyObject *input, PyObject *gamma, PyObject *ggI, PyObject *ggG, PyObject *ggB, PyObject *gO,
                                           PyObject *mean, PyObject *invstd, tn_ints normalized_shape, tn_ints mask);
/* norm_backward(grad, self, p?, norm): over all dims, keepdim */
static inline PyObject *tn_bw_norm_backward_all(PyObject *grad, PyObject *self, const tn_value *p, PyObject *norm) {
    return tn_bw_norm_backward(grad, self, p, norm, TN_IS0, true);
}

/* the helpers of a Tensor[] input (cat, stack, block_diag): a list of one gradient per tensor.
 * torchgen's `tensors_args_sizes` / `tensors_args_scalartypes` are both the inputs' recorded
 * metadata (m, k: n->arg_meta[i], n->arg_nmeta[i]) */
PyObject *tn_bw_cat_tensors_backward(PyObject *grad, const tn_meta *m, int k, const tn_meta *m2, int k2, int64_t dim);
PyObject *tn_bw_stack_tensors_backward(PyObject *grad, int64_t dim, const tn_meta *m, int k);
PyObject *tn_bw_block_diag_backward(PyObject *grad, const tn_meta *m, int k, const tn_meta *m2, int k2);
/* as_strided_backward(grad, input_geometry, sizes, strides, storage_offset?) and
 * as_strided_scatter_backward(grad, input_geometry, src_geometry, ...): a geometry is the input's
 * recorded metadata (sizes, strides, storage offset) */
PyObject *tn_bw_as_strided_backward(PyObject *grad, const tn_meta *input, tn_ints sizes, tn_ints strides, const int64_t *offset);
PyObject *tn_bw_as_strided_scatter_backward(PyObject *grad, const tn_meta *input, const tn_meta *src, tn_ints sizes, tn_ints strides,
                                            const int64_t *offset);
/* mm_mat1_backward / mm_mat2_backward(grad, other, sizes, strides, layout, alpha) (mm, addmm); the
 * _i forms take an int alpha (mm's literal 1) */
PyObject *tn_bw_mm_mat1_backward(PyObject *grad, PyObject *mat2, tn_ints sizes, tn_ints strides, PyObject *layout, const tn_value *alpha);
PyObject *tn_bw_mm_mat2_backward(PyObject *grad, PyObject *mat1, tn_ints sizes, tn_ints strides, PyObject *layout, const tn_value *alpha);
static inline PyObject *tn_bw_mm_mat1_backward_i(PyObject *grad, PyObject *mat2, tn_ints sizes, tn_ints strides, PyObject *layout,
                                                 int64_t alpha) {
    tn_value a = {.tag = TN_V_INT, .u.i = alpha};
    return tn_bw_mm_mat1_backward(grad, mat2, sizes, strides, layout, &a);
}
static inline PyObject *tn_bw_mm_mat2_backward_i(PyObject *grad, PyObject *mat1, tn_ints sizes, tn_ints strides, PyObject *layout,
                                                 int64_t alpha) {
    tn_value a = {.tag = TN_V_INT, .u.i = alpha};
    return tn_bw_mm_mat2_backward(grad, mat1, sizes, strides, layout, &a);
}
/* pow_backward_exponent(grad, base, exponent, result) for a Scalar base (pow.Scalar) */
PyObject *tn_bw_pow_backward_exponent_s(PyObject *grad, const tn_value *base, PyObject *exponent, PyObject *result);
/* a Tensor[] input wants a gradient: any of its tensors has an edge to a node */
static inline bool tn_bw_need_list(tn_node *n, int arg) {
    for (int i = 0; i < n->arg_nmeta[arg]; i++) {
        int e = n->arg_edge[arg] + i;
        if (e >= 0 && e < n->nnext && n->next[e].fn) return true;
    }
    return false;
}
/* element i of the list l (borrowed) to tensor i of the Tensor[] input arg, where that tensor has an
 * edge and the element is not None (upstream's copy_range) */
static inline int tn_bw_put_list(tn_node *n, PyObject **o, int arg, PyObject *l) {
    if (!PyList_Check(l) || PyList_Size(l) != n->arg_nmeta[arg]) {
        PyErr_SetString(PyExc_RuntimeError, "torchnative: a backward formula for a tensor list returned another count");
        return -1;
    }
    for (int i = 0; i < n->arg_nmeta[arg]; i++) {
        int e = n->arg_edge[arg] + i;
        PyObject *x = PyList_GetItem(l, i);
        if (x != Py_None && e >= 0 && e < n->nnext && n->next[e].fn) o[e] = Py_NewRef(x);
    }
    return 0;
}

/* the generated formula of op row `op` (tn_bw_gen.c), NULL when derivatives.yaml's formula was not
 * translated (formulas.c then has it, or the row has none) */
tn_apply_fn tn_bw_gen_for(int op);

/* FunctionsManual's binary_cross_entropy helpers (forward_formulas.c; the backward formulas of
 * formulas.c call them too). w / pw may be NULL or None; go NULL in tn_bw_bce_double_backward is
 * binary_cross_entropy_double_backward_grad_output. New references. */
PyObject *tn_bw_bce_target_backward(PyObject *grad, PyObject *self, PyObject *target, PyObject *w, int64_t red);
PyObject *tn_bw_bce_double_backward(PyObject *go, PyObject *grad, PyObject *x, PyObject *t, PyObject *w, int64_t red);
PyObject *tn_bw_bce_double_backward_target(PyObject *grad, PyObject *go, PyObject *x, PyObject *t, PyObject *w, int64_t red);
PyObject *tn_bw_bce_logits_backward(PyObject *grad, PyObject *x, PyObject *t, PyObject *w, PyObject *pw, int64_t red);
PyObject *tn_bw_bce_logits_target_backward(PyObject *go, PyObject *x, PyObject *t, PyObject *w, PyObject *pw, int64_t red);

#endif
