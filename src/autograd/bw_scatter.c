/* bw_scatter.c — scatter_reduce_backward and index_reduce_backward (docs/bw_formulas.md): the
 * gradients of scatter_reduce.two and index_reduce for each reduction, following upstream's
 * FunctionsManual step for step through the typed op API, in the order upstream's build evaluates
 * the expressions (operands of a Tensor operator and a function's arguments right to left, a
 * method's receiver before its arguments). The two differ only in the ops that place and read
 * along `dim` (scatter_add / gather / scatter vs index_add / index_select / index_fill), in the
 * reductions they accept, and in two products of amax / amin (scatter_reduce multiplies by the
 * boolean mask, index_reduce by the mask converted to self's dtype). Tensor arguments are
 * borrowed; the result is a new (grad_self, grad_src) tuple, NULL with an exception. */
#include "autograd/bw_helpers.h"

#include <string.h>

typedef struct {
    bool index;  /* index_reduce (else scatter_reduce) */
    int64_t dim;
    PyObject *idx;
} along;

/* x.gather(dim, index) / x.index_select(dim, index) */
static PyObject *pick(const along *a, PyObject *x) {
    return a->index ? tn_at_index_select(x, a->dim, a->idx) : tn_at_gather(x, a->dim, a->idx, false);
}
/* x.scatter_add(dim, index, y) / x.index_add(dim, index, y) */
static PyObject *place_add(const along *a, PyObject *x, PyObject *y) {
    return a->index ? tn_at_index_add(x, a->dim, a->idx, y, TN_SDEF) : tn_at_scatter_add(x, a->dim, a->idx, y);
}
/* x.scatter_reduce(dim, index, y, reduce, include_self) / x.index_reduce(...) */
static PyObject *place_reduce(const along *a, PyObject *x, PyObject *y, const char *reduce, bool include_self) {
    return a->index ? tn_at_index_reduce(x, a->dim, a->idx, y, reduce, include_self)
                    : tn_at_scatter_reduce_two(x, a->dim, a->idx, y, reduce, include_self);
}

static PyObject *to_dtype_of(PyObject *x, PyObject *like) {
    return tn_at_to_dtype(x, TN_DT(tn_tensor_of(like)->dtype), false, false, NULL);
}

#define NTMP 32
#define KEEP(e) (nt < NTMP && (tmp[nt++] = (e)) != NULL)

/* prod: the exclusive products, computed with the zeros of self and of src masked out; a src
 * position that is the only zero reaching its slot gets its gradient from the product with that
 * zero replaced by 1. While gradients are recorded (double backward) and two or more zeros of src
 * reach one slot, grad_src is wrapped in a DelayedError node, as upstream's. */
static int prod_backward(const along *a, PyObject *grad, PyObject *self, PyObject *src, const char *reduce, bool include_self,
                         PyObject *result, PyObject **gs, PyObject **gr, const char *who, const char *what) {
    PyObject *tmp[NTMP] = {0};
    int nt = 0, rc = -1;
    PyObject *z, *ms, *msr, *m, *sz, *zl, *zf, *sa, *snz, *one, *ssz, *msk, *msrc, *den, *gr_, *num, *b, *gm, *ga, *g1;
    if (!KEEP(z = tn_at_eq_Scalar(self, TN_SI(0))) || !KEEP(ms = tn_at_masked_fill_Scalar(self, z, TN_SI(1))) ||
        !KEEP(msr = place_reduce(a, ms, src, reduce, include_self)) || !KEEP(m = tn_at_mul_Tensor(grad, msr)) ||
        !(*gs = tn_at_div_Tensor(m, ms)) ||
        !KEEP(sz = tn_at_eq_Scalar(src, TN_SI(0))) || !KEEP(zl = tn_at_zeros_like(self, NULL, NULL, NULL, NULL, NULL)) ||
        !KEEP(zf = to_dtype_of(sz, self)) || !KEEP(sa = place_add(a, zl, zf)) || !KEEP(snz = pick(a, sa)) ||
        !KEEP(one = tn_at_eq_Scalar(snz, TN_SI(1))) || !KEEP(ssz = tn_at_bitwise_and_Tensor(sz, one)) ||
        !KEEP(msk = tn_at_masked_fill_Scalar(src, ssz, TN_SI(1))) ||
        !KEEP(msrc = place_reduce(a, self, msk, reduce, include_self)) ||
        !KEEP(den = tn_at_masked_fill_Scalar(src, sz, TN_SI(1))) || !KEEP(gr_ = tn_at_mul_Tensor(grad, result)) ||
        !KEEP(num = pick(a, gr_)) || !KEEP(b = tn_at_div_Tensor(num, den)) ||
        !KEEP(gm = tn_at_mul_Tensor(grad, msrc)) || !KEEP(ga = pick(a, gm)) ||
        !(g1 = tn_at_where_self(ssz, ga, b)))
        goto done;
    *gr = g1;
    if (tn_grad_enabled()) {
        PyObject *gt, *any, *item;
        if (!KEEP(gt = tn_at_gt_Scalar(snz, TN_SI(1))) || !KEEP(any = tn_at_any(gt)) || !KEEP(item = tn_at_item(any))) goto done;
        int hit = PyObject_IsTrue(item);
        if (hit < 0) goto done;
        if (hit) {
            char msg[200];
            snprintf(msg, sizeof msg, "%s(): Double backward is unsupported for %s when >1 zeros in %s are scattered to the same "
                     "position in self", who, what, what);
            PyObject *w = tn_delayed_error(msg, g1);
            if (!w) goto done;
            *gr = w;
            Py_DECREF(g1);
        }
    }
    rc = 0;
done:
    for (int i = 0; i < nt; i++) Py_XDECREF(tmp[i]);
    return rc;
}

static PyObject *reduce_backward(const along *a, PyObject *grad, PyObject *self, PyObject *src, const char *reduce,
                                 bool include_self, PyObject *result) {
    PyObject *tmp[NTMP] = {0}, *gs = NULL, *gr = NULL, *r = NULL;
    int nt = 0;
    bool ok = false;
    if (!a->index && !strcmp(reduce, "sum")) {
        gs = Py_NewRef(grad);
        ok = (gr = pick(a, grad)) != NULL;
    } else if (!strcmp(reduce, "prod")) {
        ok = prod_backward(a, grad, self, src, reduce, include_self, result, &gs, &gr, a->index ? "index_reduce" : "scatter_reduce",
                           a->index ? "source" : "src") == 0;
    } else if (!strcmp(reduce, "mean")) {
        PyObject *n0, *os, *n, *z, *f, *ns, *gp;
        ok = KEEP(n0 = include_self ? tn_at_ones_like(grad, NULL, NULL, NULL, NULL, NULL)
                                    : tn_at_zeros_like(grad, NULL, NULL, NULL, NULL, NULL)) &&
             KEEP(os = tn_at_ones_like(src, NULL, NULL, NULL, NULL, NULL)) && KEEP(n = place_add(a, n0, os)) &&
             KEEP(z = tn_at_eq_Scalar(n, TN_SI(0))) && KEEP(f = tn_at_masked_fill__Scalar(n, z, TN_SI(1))) &&
             (gs = tn_at_div_Tensor(grad, n)) && KEEP(ns = pick(a, n)) && KEEP(gp = pick(a, grad)) &&
             (gr = tn_at_div_Tensor(gp, ns));
    } else if (!strcmp(reduce, "amax") || !strcmp(reduce, "amin")) {
        PyObject *v, *e1, *sir, *e2, *srr, *nd, *gd, *e3, *gg, *e4;
        ok = KEEP(v = pick(a, result)) && KEEP(e1 = tn_at_eq_Tensor(self, result)) && KEEP(sir = to_dtype_of(e1, self)) &&
             KEEP(e2 = tn_at_eq_Tensor(src, v)) && KEEP(srr = to_dtype_of(e2, self)) && KEEP(nd = place_add(a, sir, srr)) &&
             KEEP(gd = tn_at_div_Tensor(grad, nd));
        if (ok && a->index)
            ok = (gs = tn_at_mul_Tensor(sir, gd)) && KEEP(gg = pick(a, gd)) && (gr = tn_at_mul_Tensor(srr, gg));
        else if (ok)
            ok = KEEP(e3 = tn_at_eq_Tensor(self, result)) && (gs = tn_at_mul_Tensor(e3, gd)) && KEEP(gg = pick(a, gd)) &&
                 KEEP(e4 = tn_at_eq_Tensor(src, v)) && (gr = tn_at_mul_Tensor(e4, gg));
    } else {
        PyErr_Format(PyExc_RuntimeError, a->index ? "Expected 'reduce' to be one of 'prod', 'amax', 'amin' or 'mean' but got %s."
                                                  : "Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got %s.",
                     reduce);
    }
    if (ok && !include_self) {
        PyObject *g = a->index ? tn_at_index_fill_int_Scalar(gs, a->dim, a->idx, TN_SI(0))
                               : tn_at_scatter_value(gs, a->dim, a->idx, TN_SI(0));
        Py_DECREF(gs);
        ok = (gs = g) != NULL;
    }
    if (ok) r = PyTuple_Pack(2, gs, gr);
    for (int i = 0; i < nt; i++) Py_XDECREF(tmp[i]);
    Py_XDECREF(gs);
    Py_XDECREF(gr);
    return r;
}

PyObject *tn_bw_scatter_reduce_backward(PyObject *grad, PyObject *self, int64_t dim, PyObject *index, PyObject *src,
                                        const char *reduce, bool include_self, PyObject *result) {
    along a = {false, dim, index};
    return reduce_backward(&a, grad, self, src, reduce, include_self, result);
}

PyObject *tn_bw_index_reduce_backward(PyObject *grad, PyObject *self, int64_t dim, PyObject *index, PyObject *source,
                                      const char *reduce, bool include_self, PyObject *result) {
    along a = {true, dim, index};
    return reduce_backward(&a, grad, self, source, reduce, include_self, result);
}
