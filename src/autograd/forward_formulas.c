/* forward_formulas.c — forward-mode AD formulas: the evaluator of derivatives.yaml's forward
 * formulas (tools/fw_formulas.py turns torchgen's C++ expressions into prefix programs) and the
 * helper functions upstream's FunctionsManual.cpp gives them (maybe_multiply, logsumexp_jvp,
 * layer_norm_jvp, ...), written in C on ops called through the door.
 *
 * Values are Python objects; a tensor standing for an undefined input tangent is flagged `zero`
 * and mul/div/add/sub treat it as upstream's ZeroTensor kernels do (0 * inf stays 0, x + 0 is x
 * exactly). Calls resolve an aten name over its overloads in upstream's order, positional
 * arguments past the positional parameters filling the keyword-only ones in order (C++ passes
 * them positionally). */
#include "dispatch/args.h"
#include "tn_ops_gen.h"
#include "autograd/forward.h"
#include "autograd/bw_helpers.h"
#include "ops/matrix_exp.h"
#include "dispatch/functorch.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct { PyObject *o; bool zero; } fv;

typedef struct {
    PyObject *env;     /* name -> value */
    PyObject *zeros;   /* names bound to zero tangents */
} fctx;

/* ---- calling aten by name ---- */

static PyObject *call_name_kw(const char *name, PyObject *args, PyObject *kw0) {
    int first, last;
    if (!tn_op_range(name, &first, &last)) {
        char what[160];
        snprintf(what, sizeof what, "a forward AD formula calling %s", name);
        return tn_not_implemented(what);
    }
    Py_ssize_t npos = PyTuple_Size(args);
    for (int pass = 0; pass < 2; pass++) {
        for (int row = first; row < last; row++) {
            const tn_schema *s = tn_op_schema(row);
            if (!s) { PyErr_Clear(); continue; }
            bool out = false;
            int positional = 0;
            for (int i = 0; i < s->nargs; i++) {
                if (s->args[i].is_write && s->args[i].kwarg_only) out = true;
                if (!s->args[i].kwarg_only) positional++;
            }
            if (out) continue;
            PyObject *pa = NULL, *kw = NULL;
            if (npos > positional) {   /* overflow into keyword-only parameters, in order */
                kw = kw0 ? PyDict_Copy(kw0) : PyDict_New();
                if (!kw) return NULL;
                Py_ssize_t k = positional;
                bool fits = true;
                for (int i = 0; i < s->nargs && k < npos; i++)
                    if (s->args[i].kwarg_only) PyDict_SetItemString(kw, s->args[i].name, PyTuple_GetItem(args, k++));
                if (k < npos) fits = false;
                if (!fits) { Py_DECREF(kw); continue; }
                pa = PyTuple_GetSlice(args, 0, positional);
            } else {
                pa = Py_NewRef(args);
                kw = kw0 ? Py_NewRef(kw0) : NULL;
            }
            if (!pa) { Py_XDECREF(kw); return NULL; }
            tn_args a;
            a.nowned = a.nints = a.nheap = 0;
            a.out = NULL;
            int flags = TN_PARSE_ATEN | TN_PARSE_NUMBERS_AS_TENSORS | TN_PARSE_NUMBER_SELF |
                        (pass ? TN_PARSE_TENSORS_AS_SCALARS : 0);
            int r = tn_args_parse(s, NULL, pa, kw, flags, &a);
            PyObject *res = NULL;
            if (r == TN_PARSE_OK) res = tn_door_call(row, a.v);
            tn_args_release(&a);
            Py_DECREF(pa);
            Py_XDECREF(kw);
            if (r == TN_PARSE_OK) return res;
            if (r == TN_PARSE_ERROR) PyErr_Clear();
        }
    }
    PyErr_Format(PyExc_RuntimeError, "torchnative: a forward AD formula's call to %s matched no overload", name);
    return NULL;
}

static PyObject *call_name(const char *name, PyObject *args) { return call_name_kw(name, args, NULL); }

static PyObject *callv(const char *name, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    PyObject *a = Py_VaBuildValue(fmt, ap);
    va_end(ap);
    if (!a) return NULL;
    if (!PyTuple_Check(a)) {
        PyObject *t = PyTuple_Pack(1, a);
        Py_DECREF(a);
        if (!(a = t)) return NULL;
    }
    PyObject *r = call_name(name, a);
    Py_DECREF(a);
    return r;
}

static bool is_tensor(PyObject *o) { return o && tn_py_is_tensor(o); }
static bool is_number(PyObject *o) { return o && (PyFloat_Check(o) || PyLong_Check(o)); }

/* zero_() a fresh result: the ZeroTensor answer with the right shape and dtype */
static PyObject *zeroed(PyObject *r) {
    if (!r) return NULL;
    PyObject *z = callv("zero_", "(O)", r);
    Py_DECREF(r);
    return z;
}

/* ---- helpers of upstream's FunctionsManual.cpp ---- */

static bool scalar_is_one(PyObject *s) {
    if (PyFloat_Check(s)) return PyFloat_AsDouble(s) == 1.0;
    if (PyLong_Check(s) && !PyBool_Check(s)) return PyLong_AsLongLong(s) == 1;
    if (PyBool_Check(s)) return s == Py_True;
    return false;
}

static PyObject *intlist(PyObject *o) {   /* an int or a sequence of ints, as a tuple */
    if (PyLong_Check(o)) return PyTuple_Pack(1, o);
    return PySequence_Tuple(o);
}

static int tdim(PyObject *t) { return tn_tensor_of(t)->ndim; }
static PyObject *tensor_dtype_obj(PyObject *t) { return tn_py_from_dtype(tn_tensor_of(t)->dtype); }
/* upstream's areAnyTensorSubclassLike, whose helpers then take out-of-place ops: true under a
 * dispatch mode, inside a torch.func transform (upstream's tensors are functorch wrappers there) or
 * for a vmap BatchedTensor */
static bool subclass_like(PyObject *const *ts, int n) {
    if (tn_functorch_depth() > 0 || tn_bw_subclass_like()) return true;
    for (int i = 0; i < n; i++)
        if (ts[i] && ts[i] != Py_None && tn_bt_level(ts[i])) return true;
    return false;
}

/* restore_reduced_dims(output, dims, keepdim) */
static PyObject *restore_reduced_dims(PyObject *out, PyObject *dims, bool keepdim) {
    if (keepdim) return Py_NewRef(out);
    PyObject *dl = intlist(dims);
    if (!dl) return NULL;
    const tn_tensor *o = tn_tensor_of(out);
    int total = o->ndim + (int)PyTuple_Size(dl);
    int64_t shape[TN_MAX_DIMS + 8] = {0};
    for (Py_ssize_t i = 0; i < PyTuple_Size(dl); i++) {
        long long d = PyLong_AsLongLong(PyTuple_GetItem(dl, i));
        if (d < 0) d += total;
        if (d >= 0 && d < total) shape[d] = 1;
    }
    Py_DECREF(dl);
    int j = 0;
    for (int i = 0; i < o->ndim; i++) {
        while (j < total && shape[j] > 0) j++;
        if (j < total) shape[j++] = o->sizes[i];
    }
    PyObject *sz = PyTuple_New(total);
    for (int i = 0; sz && i < total; i++) PyTuple_SetItem(sz, i, PyLong_FromLongLong(shape[i]));
    if (!sz) return NULL;
    PyObject *r = callv("reshape", "(OO)", out, sz);
    Py_DECREF(sz);
    return r;
}

static PyObject *logsumexp_jvp(PyObject *self_p, PyObject *self_t, PyObject *dim, bool keepdim) {
    PyObject *e;
    int64_t numel = 1;
    const tn_tensor *p = tn_tensor_of(self_p);
    for (int i = 0; i < p->ndim; i++) numel *= p->sizes[i];
    if (numel > 0) {
        PyObject *m = callv("amax", "(OOO)", self_p, dim, Py_True);
        PyObject *d = m ? callv("sub", "(OO)", self_p, m) : NULL;
        Py_XDECREF(m);
        e = d ? callv("exp", "(O)", d) : NULL;
        Py_XDECREF(d);
    } else {
        e = callv("exp", "(O)", self_p);
    }
    if (!e) return NULL;
    PyObject *sp = callv("sum", "(OOO)", e, dim, keepdim ? Py_True : Py_False);
    /* upstream's areAnyTensorSubclassLike branch: a vmap BatchedTensor (dispatch/functorch.c)
     * takes the out-of-place products */
    bool sub = tn_bt_level(self_p) || tn_bt_level(self_t);
    PyObject *m = sp ? callv(sub ? "mul" : "mul_", "(OO)", e, self_t) : NULL;
    PyObject *st = m ? callv("sum", "(OOO)", sub ? m : e, dim, keepdim ? Py_True : Py_False) : NULL;
    Py_XDECREF(m);
    Py_DECREF(e);
    PyObject *r = st ? callv(sub ? "div" : "div_", "(OO)", st, sp) : NULL;
    Py_XDECREF(st);
    Py_XDECREF(sp);
    return r;
}

static PyObject *amaxamin_jvp(PyObject *x, PyObject *dx, PyObject *result, PyObject *dim, bool keepdim) {
    PyObject *rr = restore_reduced_dims(result, dim, keepdim);
    PyObject *mask = rr ? callv("eq", "(OO)", x, rr) : NULL;
    Py_XDECREF(rr);
    if (!mask) return NULL;
    /* the mask's count first: upstream's operands of `/` evaluate right to left */
    PyObject *den = callv("sum", "(OOO)", mask, dim, keepdim ? Py_True : Py_False);
    PyObject *w = den ? callv("where", "(OOd)", mask, dx, 0.0) : NULL;
    PyObject *num = w ? callv("sum", "(OOO)", w, dim, keepdim ? Py_True : Py_False) : NULL;
    PyObject *r = den ? callv("div", "(OO)", num, den) : NULL;
    Py_XDECREF(w);
    Py_XDECREF(num);
    Py_XDECREF(den);
    Py_DECREF(mask);
    return r;
}

/* layer_norm_jvp: the tangent of (x - mean) * invstd * weight + bias */
static PyObject *layer_norm_jvp(PyObject *input_p, PyObject *input_t, PyObject *weight_p, PyObject *weight_t,
                                PyObject *bias_p, PyObject *bias_t, PyObject *mean, PyObject *invstd,
                                PyObject *normalized_shape) {
    PyObject *ns = intlist(normalized_shape);
    if (!ns) return NULL;
    int nd = tdim(input_t), nn = (int)PyTuple_Size(ns);
    Py_DECREF(ns);
    const tn_tensor *it = tn_tensor_of(input_t);
    PyObject *view = PyTuple_New(nd), *vaff = PyTuple_New(nd), *dims = PyList_New(0);
    int64_t numel = 1;
    for (int i = 0; view && vaff && dims && i < nd; i++) {
        if (i < nd - nn) {
            PyTuple_SetItem(view, i, PyLong_FromLongLong(it->sizes[i]));
            PyTuple_SetItem(vaff, i, PyLong_FromLong(1));
        } else {
            numel *= it->sizes[i];
            PyTuple_SetItem(view, i, PyLong_FromLong(1));
            PyTuple_SetItem(vaff, i, PyLong_FromLongLong(it->sizes[i]));
            PyObject *d = PyLong_FromLong(i);
            PyList_Append(dims, d);
            Py_DECREF(d);
        }
    }
    PyObject *r = NULL, *mean_p = NULL, *invstd_p = NULL, *ic = NULL, *it_c = NULL, *tmp = NULL, *inv_t = NULL,
             *res = NULL;
    if (!view || !vaff || !dims) goto done;
    PyObject *dt = PySequence_Tuple(dims);
    Py_SETREF(dims, dt);
    if (!dims) goto done;
    if (!(mean_p = callv("view", "(OO)", mean, view))) goto done;
    if (!(invstd_p = callv("view", "(OO)", invstd, view))) goto done;
    /* invstd_t = -invstd_p^3 * ((x_t - x_t.mean) * (x_p - mean_p)).sum(dims, true) / numel */
    PyObject *mt = callv("mean", "(OOO)", input_t, dims, Py_True);
    if (!mt) goto done;
    it_c = callv("sub", "(OO)", input_t, mt);
    Py_DECREF(mt);
    if (!it_c) goto done;
    if (!(ic = callv("sub", "(OO)", input_p, mean_p))) goto done;
    {
        PyObject *p3 = callv("pow", "(Oi)", invstd_p, 3);
        PyObject *np3 = p3 ? callv("neg", "(O)", p3) : NULL;
        Py_XDECREF(p3);
        PyObject *pr = np3 ? callv("mul", "(OO)", it_c, ic) : NULL;
        PyObject *sm = pr ? callv("sum", "(OOO)", pr, dims, Py_True) : NULL;
        PyObject *a = sm ? callv("mul", "(OO)", np3, sm) : NULL;
        inv_t = a ? callv("div", "(OL)", a, (long long)numel) : NULL;
        Py_XDECREF(np3);
        Py_XDECREF(pr);
        Py_XDECREF(sm);
        Py_XDECREF(a);
        if (!inv_t) goto done;
    }
    /* result_t = (x_t - x_t.mean) * invstd_p + (x_p - mean_p) * invstd_t */
    {
        PyObject *a = callv("mul", "(OO)", it_c, invstd_p);
        PyObject *b = a ? callv("mul", "(OO)", ic, inv_t) : NULL;
        res = b ? callv("add", "(OO)", a, b) : NULL;
        Py_XDECREF(a);
        Py_XDECREF(b);
        if (!res) goto done;
    }
    if (weight_p != Py_None && weight_p) {   /* result_t * weight_p + normalized * weight_t */
        PyObject *wv = callv("view", "(OO)", weight_p, vaff);
        PyObject *a = wv ? callv("mul", "(OO)", res, wv) : NULL;
        Py_XDECREF(wv);
        if (!a) goto done;
        Py_SETREF(res, a);
        if (weight_t && weight_t != Py_None) {
            PyObject *wt = callv("view", "(OO)", weight_t, vaff);
            PyObject *nrm = wt ? callv("mul", "(OO)", ic, invstd_p) : NULL;
            PyObject *b = nrm ? callv("mul", "(OO)", nrm, wt) : NULL;
            PyObject *c = b ? callv("add", "(OO)", res, b) : NULL;
            Py_XDECREF(wt);
            Py_XDECREF(nrm);
            Py_XDECREF(b);
            if (!c) goto done;
            Py_SETREF(res, c);
        }
    }
    if (bias_t && bias_t != Py_None) {
        PyObject *bv = callv("view", "(OO)", bias_t, vaff);
        PyObject *c = bv ? callv("add", "(OO)", res, bv) : NULL;
        Py_XDECREF(bv);
        if (!c) goto done;
        Py_SETREF(res, c);
    }
    r = Py_NewRef(res);
done:
    Py_XDECREF(view);
    Py_XDECREF(vaff);
    Py_XDECREF(dims);
    Py_XDECREF(mean_p);
    Py_XDECREF(invstd_p);
    Py_XDECREF(ic);
    Py_XDECREF(it_c);
    Py_XDECREF(tmp);
    Py_XDECREF(inv_t);
    Py_XDECREF(res);
    return r;
}

/* the tangents of a tensor list (zeros where a tensor has none) */
static PyObject *list_tangents(PyObject *tensors) {
    PyObject *seq = PySequence_Tuple(tensors);
    if (!seq) return NULL;
    Py_ssize_t n = PyTuple_Size(seq);
    PyObject *out = PyTuple_New(n);
    for (Py_ssize_t i = 0; out && i < n; i++) {
        PyObject *t = PyTuple_GetItem(seq, i), *g = tn_fw_grad(t);
        PyObject *v = g ? Py_NewRef(g) : callv("zeros_like", "(O)", t);
        if (!v) { Py_CLEAR(out); break; }
        PyTuple_SetItem(out, i, v);
    }
    Py_DECREF(seq);
    return out;
}

/* cat_jvp / stack_jvp / block_diag_jvp (dim NULL): the op over the tangents (zeros for tensors
 * without one), or none at all */
static PyObject *list_jvp(const char *op, PyObject *tensors, PyObject *dim) {
    PyObject *seq = PySequence_Tuple(tensors);
    if (!seq) return NULL;
    bool any = false;
    for (Py_ssize_t i = 0; i < PyTuple_Size(seq); i++) any |= tn_fw_grad(PyTuple_GetItem(seq, i)) != NULL;
    Py_DECREF(seq);
    if (!any) Py_RETURN_NONE;
    PyObject *ts = list_tangents(tensors);
    if (!ts) return NULL;
    PyObject *r = dim ? callv(op, "(OO)", ts, dim) : callv(op, "(O)", ts);
    Py_DECREF(ts);
    return r;
}

/* gather_with_keepdimed_indices(input, dim, indices, keepdim) */
static PyObject *gather_keepdim(PyObject *input, PyObject *dim, PyObject *indices, bool keepdim) {
    PyObject *idx = keepdim ? Py_NewRef(indices) : callv("unsqueeze", "(OO)", indices, dim);
    if (!idx) return NULL;
    PyObject *g = callv("gather", "(OOO)", input, dim, idx);
    Py_DECREF(idx);
    if (!g || keepdim) return g;
    PyObject *r = callv("squeeze", "(OO)", g, dim);
    Py_DECREF(g);
    return r;
}

/* infinitely_differentiable_silu_backward(grad, input): grad * sigmoid * (1 + input * (1 - sigmoid)) */
static PyObject *inf_silu_backward(PyObject *g, PyObject *x) {
    PyObject *s = callv("sigmoid", "(O)", x);
    PyObject *one_m = s ? callv("sub", "(iO)", 1, s) : NULL;
    PyObject *xm = one_m ? callv("mul", "(OO)", x, one_m) : NULL;
    PyObject *p1 = xm ? callv("add", "(Oi)", xm, 1) : NULL;
    PyObject *gs = p1 ? callv("mul", "(OO)", g, s) : NULL;
    PyObject *r = gs ? callv("mul", "(OO)", gs, p1) : NULL;
    Py_XDECREF(s);
    Py_XDECREF(one_m);
    Py_XDECREF(xm);
    Py_XDECREF(p1);
    Py_XDECREF(gs);
    return r;
}

/* pow_backward(grad, self, exponent Scalar) */
static PyObject *pow_backward(PyObject *g, PyObject *self, PyObject *e) {
    double ev = PyFloat_AsDouble(e);
    if (ev == -1.0 && PyErr_Occurred()) return NULL;
    if (ev == 0.0) return callv("zeros_like", "(O)", self);
    /* self.pow(exponent - 1) with a Scalar exponent: pow.Tensor_Scalar, whose own forward formula
     * (seen by an outer level) has no exponent term (pow.Tensor_Tensor's would multiply log(self)) */
    PyObject *pm = PyLong_Check(e) ? tn_at_pow_Tensor_Scalar(self, TN_SI(PyLong_AsLongLong(e) - 1))
                                   : tn_at_pow_Tensor_Scalar(self, TN_SD(ev - 1.0));
    PyObject *a = pm ? callv("mul", "(OO)", pm, e) : NULL;
    PyObject *r = a ? callv("mul", "(OO)", g, a) : NULL;
    Py_XDECREF(pm);
    Py_XDECREF(a);
    return r;
}

/* angle_backward(grad, self): complex self: where(self == 0, 0, grad * self / self.abs().pow(2) * 1j);
 * real self: zeros_like(self) */
static PyObject *angle_backward(PyObject *g, PyObject *self) {
    if (!tn_dtype_is_complex(tn_tensor_of(self)->dtype)) return callv("zeros_like", "(O)", self);
    PyObject *j = PyComplex_FromDoubles(0.0, 1.0);
    PyObject *gs = j ? callv("mul", "(OO)", g, self) : NULL;
    PyObject *ab = gs ? callv("abs", "(O)", self) : NULL;
    PyObject *p2 = ab ? tn_at_pow_Tensor_Scalar(ab, TN_SI(2)) : NULL;
    PyObject *q = p2 ? callv("div", "(OO)", gs, p2) : NULL;
    PyObject *qj = q ? callv("mul", "(OO)", q, j) : NULL;
    PyObject *z = qj ? callv("eq", "(Od)", self, 0.0) : NULL;
    PyObject *r = z ? callv("where", "(OdO)", z, 0.0, qj) : NULL;
    Py_XDECREF(j);
    Py_XDECREF(gs);
    Py_XDECREF(ab);
    Py_XDECREF(p2);
    Py_XDECREF(q);
    Py_XDECREF(qj);
    Py_XDECREF(z);
    return r;
}

/* pow_backward_self(grad, self, exponent Tensor):
 * where(exponent == 0, 0, grad * (exponent * self.pow(exponent - 1))) */
static PyObject *pow_backward_self(PyObject *g, PyObject *self, PyObject *e) {
    PyObject *em = callv("sub", "(Oi)", e, 1);
    PyObject *pw = em ? callv("pow", "(OO)", self, em) : NULL;
    PyObject *a = pw ? callv("mul", "(OO)", e, pw) : NULL;
    PyObject *b = a ? callv("mul", "(OO)", g, a) : NULL;
    PyObject *z = b ? callv("eq", "(Oi)", e, 0) : NULL;
    PyObject *r = z ? callv("where", "(OdO)", z, 0.0, b) : NULL;
    Py_XDECREF(em);
    Py_XDECREF(pw);
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(z);
    return r;
}

/* pow_backward_exponent(grad, self, exponent, result): grad * where(cond, 0, result * self.log())
 * with cond = (self == 0) & (exponent >= 0) */
static PyObject *pow_backward_exponent(PyObject *g, PyObject *self, PyObject *e, PyObject *result) {
    PyObject *c1 = callv("eq", "(Oi)", self, 0);
    PyObject *c2 = c1 ? (is_tensor(e) ? callv("ge", "(Oi)", e, 0) : NULL) : NULL;
    PyObject *cond = NULL;
    if (c1 && is_tensor(e)) cond = c2 ? callv("logical_and", "(OO)", c1, c2) : NULL;
    else if (c1) {
        double ev = PyFloat_AsDouble(e);
        cond = ev >= 0 ? Py_NewRef(c1) : callv("zeros_like", "(O)", c1);
    }
    PyObject *lg = cond ? callv("log", "(O)", self) : NULL;
    PyObject *rl = lg ? callv("mul", "(OO)", result, lg) : NULL;
    PyObject *w = rl ? callv("where", "(OdO)", cond, 0.0, rl) : NULL;
    PyObject *r = w ? callv("mul", "(OO)", g, w) : NULL;
    Py_XDECREF(c1);
    Py_XDECREF(c2);
    Py_XDECREF(cond);
    Py_XDECREF(lg);
    Py_XDECREF(rl);
    Py_XDECREF(w);
    return r;
}

/* clamp_backward(grad, self, min, max) with optional Scalar bounds */
static PyObject *clamp_backward(PyObject *g, PyObject *self, PyObject *mn, PyObject *mx) {
    PyObject *mask = NULL;
    if (mn != Py_None && mx != Py_None) {
        PyObject *a = callv("ge", "(OO)", self, mn), *b = a ? callv("le", "(OO)", self, mx) : NULL;
        mask = b ? callv("logical_and_", "(OO)", a, b) : NULL;
        Py_XDECREF(a);
        Py_XDECREF(b);
    } else if (mn != Py_None) {
        mask = callv("ge", "(OO)", self, mn);
    } else if (mx != Py_None) {
        mask = callv("le", "(OO)", self, mx);
    } else {
        return Py_NewRef(g);
    }
    if (!mask) return NULL;
    PyObject *r = callv("where", "(OOd)", mask, g, 0.0);
    Py_DECREF(mask);
    return r;
}

/* clamp_jvp(self_p, self_t, min_p, min_t, max_p, max_t) with optional Tensor bounds */
static PyObject *clamp_jvp(PyObject *sp, PyObject *st, PyObject *mnp, PyObject *mnt, PyObject *mxp, PyObject *mxt) {
    bool hmin = mnp && mnp != Py_None, hmax = mxp && mxp != Py_None;
    if (hmin && hmax) {
        PyObject *c3 = callv("gt", "(OO)", sp, mxp), *w3 = c3 ? callv("where", "(OOO)", c3, mxt, st) : NULL;
        PyObject *c2 = w3 ? callv("lt", "(OO)", sp, mnp) : NULL, *w2 = c2 ? callv("where", "(OOO)", c2, mnt, w3) : NULL;
        PyObject *c1 = w2 ? callv("gt", "(OO)", mnp, mxp) : NULL, *r = c1 ? callv("where", "(OOO)", c1, mxt, w2) : NULL;
        Py_XDECREF(c3); Py_XDECREF(w3); Py_XDECREF(c2); Py_XDECREF(w2); Py_XDECREF(c1);
        return r;
    }
    if (hmin || hmax) {
        PyObject *c = callv(hmin ? "gt" : "lt", "(OO)", sp, hmin ? mnp : mxp);
        PyObject *r = c ? callv("where", "(OOO)", c, st, hmin ? mnt : mxt) : NULL;
        Py_XDECREF(c);
        return r;
    }
    return Py_NewRef(st);
}

/* evenly_read_jvp(fw_grad, input, value): the tangent spread evenly over the tied extrema */
static PyObject *evenly_read_jvp(PyObject *g, PyObject *input, PyObject *value) {
    PyObject *mask = callv("eq", "(OO)", input, value);
    PyObject *count = mask ? callv("sum", "(O)", mask) : NULL;
    PyObject *go = count ? callv("div", "(OO)", g, count) : NULL;
    PyObject *m = go ? callv("mul", "(OO)", mask, go) : NULL;
    PyObject *r = m ? callv("sum", "(O)", m) : NULL;
    Py_XDECREF(mask); Py_XDECREF(count); Py_XDECREF(go); Py_XDECREF(m);
    return r;
}

/* norm_jvp(self_p, self_t, p, norm, dim, keepdim) for real tensors (linalg_vector_norm_jvp passes
 * dim None as all dimensions) */
static PyObject *unsqueeze_multiple(PyObject *t, PyObject *dims, int ndim);
static PyObject *norm_jvp(PyObject *sp, PyObject *st, PyObject *pord, PyObject *norm, PyObject *dim, bool keepdim) {
    double p = pord == Py_None ? 2.0 : PyFloat_AsDouble(pord);
    if (p == -1.0 && PyErr_Occurred()) return NULL;
    PyObject *kd = keepdim ? Py_True : Py_False, *r = NULL;
    if (p == 0.0) return callv("zeros_like", "(O)", norm);
    if (p == 1.0) {
        PyObject *sg = callv("sgn", "(O)", sp), *m = sg ? callv("mul_", "(OO)", sg, st) : NULL;
        r = m ? callv("sum", "(OOO)", sg, dim, kd) : NULL;
        Py_XDECREF(sg);
        Py_XDECREF(m);
        return r;
    }
    if (p == 2.0) {
        PyObject *m = callv("mul", "(OO)", sp, st), *sm = m ? callv("sum", "(OOO)", m, dim, kd) : NULL;
        PyObject *dv = sm ? callv("div_", "(OO)", sm, norm) : NULL, *z = dv ? callv("eq", "(Oi)", norm, 0) : NULL;
        r = z ? callv("masked_fill_", "(OOi)", sm, z, 0) : NULL;
        Py_XDECREF(m); Py_XDECREF(sm); Py_XDECREF(dv); Py_XDECREF(z);
        return r;
    }
    if (isinf(p)) {
        int nd = tdim(sp);
        PyObject *n2 = !keepdim && nd != 0 ? unsqueeze_multiple(norm, dim, nd) : Py_NewRef(norm);
        PyObject *si = n2 ? callv("isnan", "(O)", sp) : NULL, *ni = si ? callv("isnan", "(O)", n2) : NULL;
        PyObject *both = ni ? callv("logical_and_", "(OO)", si, ni) : NULL;
        PyObject *ab = both ? callv("abs", "(O)", sp) : NULL, *eq = ab ? callv("eq", "(OO)", ab, n2) : NULL;
        PyObject *eo = eq ? callv("logical_or_", "(OO)", eq, both) : NULL, *ism = eo ? callv("type_as", "(OO)", eo, n2) : NULL;
        PyObject *nb = ism ? callv("count_nonzero", "(OO)", ism, dim) : NULL;
        PyObject *nb2 = nb ? (nd != 0 ? unsqueeze_multiple(nb, dim, nd) : Py_NewRef(nb)) : NULL;
        PyObject *sg = nb2 ? callv("sgn", "(O)", sp) : NULL, *a = sg ? callv("mul", "(OO)", sg, st) : NULL;
        PyObject *b = a ? callv("mul", "(OO)", a, ism) : NULL, *c = b ? callv("div", "(OO)", b, nb2) : NULL;
        r = c ? callv("sum", "(OOO)", c, dim, kd) : NULL;
        Py_XDECREF(n2); Py_XDECREF(si); Py_XDECREF(ni); Py_XDECREF(both); Py_XDECREF(ab); Py_XDECREF(eq);
        Py_XDECREF(eo); Py_XDECREF(ism); Py_XDECREF(nb); Py_XDECREF(nb2); Py_XDECREF(sg); Py_XDECREF(a);
        Py_XDECREF(b); Py_XDECREF(c);
        return r;
    }
    if (p < 1.0) {   /* (sgn(x) * t * |x|^(p-1), 0 where x == 0).sum(dim, keepdim) * norm^(1-p) */
        PyObject *sg = callv("sgn", "(O)", sp), *m = sg ? callv("mul", "(OO)", sg, st) : NULL;
        PyObject *ab = m ? callv("abs", "(O)", sp) : NULL, *pw = ab ? callv("pow", "(Od)", ab, p - 1) : NULL;
        PyObject *z = pw ? callv("eq", "(Oi)", sp, 0) : NULL, *mf = z ? callv("masked_fill_", "(OOi)", pw, z, 0) : NULL;
        PyObject *m2 = mf ? callv("mul", "(OO)", m, pw) : NULL, *sm = m2 ? callv("sum", "(OOO)", m2, dim, kd) : NULL;
        PyObject *np = sm ? callv("pow", "(Od)", norm, 1 - p) : NULL;
        r = np ? callv("mul", "(OO)", sm, np) : NULL;
        Py_XDECREF(sg); Py_XDECREF(m); Py_XDECREF(ab); Py_XDECREF(pw); Py_XDECREF(z); Py_XDECREF(mf);
        Py_XDECREF(m2); Py_XDECREF(sm); Py_XDECREF(np);
        return r;
    }
    if (p < 2.0) {   /* (|x|^(p-1) * sgn(x) * t).sum(dim, keepdim) / norm^(p-1), 0 where norm == 0 */
        PyObject *ab = callv("abs", "(O)", sp), *pw = ab ? callv("pow_", "(Od)", ab, p - 1) : NULL;
        PyObject *sg = pw ? callv("sgn", "(O)", sp) : NULL, *m = sg ? callv("mul", "(OO)", sg, st) : NULL;
        PyObject *m2 = m ? callv("mul", "(OO)", ab, m) : NULL, *sm = m2 ? callv("sum", "(OOO)", m2, dim, kd) : NULL;
        PyObject *np = sm ? callv("pow", "(Od)", norm, p - 1) : NULL, *dv = np ? callv("div", "(OO)", sm, np) : NULL;
        PyObject *z = dv ? callv("eq", "(Oi)", norm, 0) : NULL;
        r = z ? callv("masked_fill_", "(OOi)", dv, z, 0) : NULL;
        Py_XDECREF(ab); Py_XDECREF(pw); Py_XDECREF(sg); Py_XDECREF(m); Py_XDECREF(m2); Py_XDECREF(sm); Py_XDECREF(np);
        Py_XDECREF(dv); Py_XDECREF(z);
        return r;
    }
    /* (self_p * self_t * |self_p|^(p-2)).sum(dim, keepdim) / norm^(p-1), 0 where norm == 0 */
    PyObject *ab = callv("abs", "(O)", sp), *pw = ab ? callv("pow", "(Od)", ab, p - 2) : NULL;
    PyObject *m = pw ? callv("mul", "(OO)", sp, st) : NULL, *m2 = m ? callv("mul", "(OO)", m, pw) : NULL;
    PyObject *sm = m2 ? callv("sum", "(OOO)", m2, dim, kd) : NULL, *np = sm ? callv("pow", "(Od)", norm, p - 1) : NULL;
    PyObject *dv = np ? callv("div_", "(OO)", sm, np) : NULL, *z = dv ? callv("eq", "(Oi)", norm, 0) : NULL;
    r = z ? callv("masked_fill_", "(OOi)", sm, z, 0) : NULL;
    Py_XDECREF(ab); Py_XDECREF(pw); Py_XDECREF(m); Py_XDECREF(m2); Py_XDECREF(sm); Py_XDECREF(np); Py_XDECREF(dv);
    Py_XDECREF(z);
    return r;
}

/* unsqueeze_multiple(t, dims, ndim): unsqueeze at each reduced dim, in increasing order */
static PyObject *unsqueeze_multiple(PyObject *t, PyObject *dims, int ndim) {
    PyObject *dl = dims == Py_None ? PyTuple_New(0) : intlist(dims);
    if (!dl) return NULL;
    bool mark[TN_MAX_DIMS + 8] = {0};
    Py_ssize_t n = PyTuple_Size(dl);
    if (n == 0) for (int i = 0; i < ndim && i < TN_MAX_DIMS + 8; i++) mark[i] = true;
    for (Py_ssize_t i = 0; i < n; i++) {
        long long d = PyLong_AsLongLong(PyTuple_GetItem(dl, i));
        if (d < 0) d += ndim;
        if (d >= 0 && d < TN_MAX_DIMS + 8) mark[d] = true;
    }
    Py_DECREF(dl);
    PyObject *r = Py_NewRef(t);
    for (int i = 0; r && i < ndim && i < TN_MAX_DIMS + 8; i++)
        if (mark[i]) Py_SETREF(r, callv("unsqueeze", "(Oi)", r, i));
    return r;
}

/* var_backward(grad, self, dim, correction, keepdim) */
static PyObject *var_backward(PyObject *g, PyObject *self, PyObject *dim, PyObject *corr, bool keepdim) {
    double c = corr == Py_None ? 1.0 : PyFloat_AsDouble(corr);
    const tn_tensor *t = tn_tensor_of(self);
    PyObject *r = NULL;
    if (t->ndim == 0 || dim == Py_None) {
        int64_t numel = 1;
        for (int i = 0; i < t->ndim; i++) numel *= t->sizes[i];
        double dof = (double)numel - c;
        PyObject *mean = callv("mean", "(O)", self);
        if (!mean) return NULL;
        if (dof <= 0) {
            PyObject *eq = callv("eq", "(OO)", self, mean), *w = eq ? callv("where", "(Odd)", eq, NAN, INFINITY) : NULL;
            r = w ? callv("mul", "(OO)", g, w) : NULL;
            Py_XDECREF(eq); Py_XDECREF(w);
        } else {
            PyObject *a = callv("mul", "(Od)", g, 2.0 / dof), *d = a ? callv("sub", "(OO)", self, mean) : NULL;
            r = d ? callv("mul", "(OO)", a, d) : NULL;
            Py_XDECREF(a); Py_XDECREF(d);
        }
        Py_DECREF(mean);
        return r;
    }
    PyObject *gg = !keepdim && t->ndim > 1 ? unsqueeze_multiple(g, dim, t->ndim) : Py_NewRef(g);
    PyObject *dl = gg ? intlist(dim) : NULL;
    if (!dl) { Py_XDECREF(gg); return NULL; }
    double rnumel = 1;
    if (PyTuple_Size(dl) == 0) for (int i = 0; i < t->ndim; i++) rnumel *= (double)t->sizes[i];
    for (Py_ssize_t i = 0; i < PyTuple_Size(dl); i++) {
        long long d = PyLong_AsLongLong(PyTuple_GetItem(dl, i));
        if (d < 0) d += t->ndim;
        if (d >= 0 && d < t->ndim) rnumel *= (double)t->sizes[d];
    }
    PyObject *mean = callv("mean", "(OOO)", self, dl, Py_True);
    PyObject *a = mean ? callv("mul", "(Od)", gg, 2.0 / (rnumel - c)) : NULL, *d = a ? callv("sub", "(OO)", self, mean) : NULL;
    r = d ? callv("mul", "(OO)", a, d) : NULL;
    Py_XDECREF(gg); Py_XDECREF(dl); Py_XDECREF(mean); Py_XDECREF(a); Py_XDECREF(d);
    return r;
}

/* cumprod_jvp(self_t, self_p, result, dim): (self_t / self_p).cumsum(dim) * result where no zero came
 * before; from a slice's first zero on, cumprod of the input with that zero replaced by its tangent */
static PyObject *cumprod_jvp(PyObject *st, PyObject *sp, PyObject *result, int64_t dim) {
    PyObject *q = callv("div", "(OO)", st, sp), *cs = q ? callv("cumsum", "(OL)", q, (long long)dim) : NULL;
    PyObject *g = cs ? callv("mul", "(OO)", cs, result) : NULL, *r = NULL;
    Py_XDECREF(q);
    Py_XDECREF(cs);
    if (!g) return NULL;
    PyObject *mz = callv("eq", "(Oi)", sp, 0);
    if (!mz) { Py_DECREF(g); return NULL; }
    if (tdim(sp) == 0) {
        r = callv("masked_fill_", "(OOO)", g, mz, st);
        Py_DECREF(mz);
        Py_DECREF(g);
        return r;
    }
    PyObject *c1 = callv("cumsum", "(OL)", mz, (long long)dim), *e1 = c1 ? callv("eq", "(Oi)", c1, 1) : NULL;
    PyObject *first = e1 ? callv("logical_and", "(OO)", mz, e1) : NULL;
    PyObject *w = first ? callv("where", "(OOO)", first, st, sp) : NULL;
    PyObject *ng = w ? callv("cumprod", "(OL)", w, (long long)dim) : NULL;
    PyObject *after = ng ? callv("cumsum", "(OL)", first, (long long)dim) : NULL;
    PyObject *bt = after ? tn_py_from_dtype(TN_DTYPE_BOOL) : NULL, *ab = bt ? callv("to", "(OO)", after, bt) : NULL;
    r = ab ? callv("where", "(OOO)", ab, ng, g) : NULL;
    Py_DECREF(g); Py_DECREF(mz); Py_XDECREF(c1); Py_XDECREF(e1); Py_XDECREF(first); Py_XDECREF(w); Py_XDECREF(ng);
    Py_XDECREF(after); Py_XDECREF(bt); Py_XDECREF(ab);
    return r;
}

/* logcumsumexp_jvp(self_p, self_t, dim): cumsum(exp(x - max) * t) / (cumsum(exp(x - max)) + 1e-13) */
static PyObject *logcumsumexp_jvp(PyObject *sp, PyObject *st, int64_t dim) {
    PyObject *e;
    if (!tn_dtype_is_complex(tn_tensor_of(sp)->dtype)) {
        PyObject *mx = callv("max", "(OLO)", sp, (long long)dim, Py_True);
        PyObject *d = mx ? callv("sub", "(OO)", sp, PyTuple_GetItem(mx, 0)) : NULL;
        e = d ? callv("exp", "(O)", d) : NULL;
        Py_XDECREF(mx);
        Py_XDECREF(d);
    } else {
        e = callv("exp", "(O)", sp);   /* at::max has no complex kernel */
    }
    if (!e) return NULL;
    PyObject *csp = callv("cumsum", "(OL)", e, (long long)dim), *r = NULL;
    /* upstream's areAnyTensorSubclassLike branch (a vmap BatchedTensor) takes the out-of-place ops */
    PyObject *both[] = {sp, st};
    bool sub = subclass_like(both, 2);
    PyObject *m = csp ? callv(sub ? "mul" : "mul_", "(OO)", e, st) : NULL;
    PyObject *ct = m ? callv("cumsum", "(OL)", m, (long long)dim) : NULL;
    PyObject *den = ct ? callv("add_", "(Od)", csp, 1e-13) : NULL;
    r = den ? callv(sub ? "div" : "div_", "(OO)", ct, den) : NULL;
    Py_DECREF(e); Py_XDECREF(csp); Py_XDECREF(m); Py_XDECREF(ct); Py_XDECREF(den);
    return r;
}

/* renorm_jvp(self_p, self_t, p, dim, maxnorm): where(norm > maxnorm, factor * (t - x * invnorm *
 * norm_jvp), t) with the norm over every dim but `dim` (float for half / bfloat16 inputs) */
static PyObject *renorm_jvp(PyObject *sp, PyObject *st, PyObject *pord, int64_t dim, PyObject *maxnorm) {
    const tn_tensor *x = tn_tensor_of(sp);
    int nd = x->ndim;
    if (dim < -nd || dim >= (nd ? nd : 1)) {
        PyErr_Format(PyExc_IndexError, "Dimension out of range (expected to be in range of [%d, %d], but got %lld)",
                     nd ? -nd : -1, nd ? nd - 1 : 0, (long long)dim);
        return NULL;
    }
    if (dim < 0) dim += nd;
    PyObject *dims = PyTuple_New(nd > 0 ? nd - 1 : 0);
    for (int i = 0, k = 0; dims && i < nd; i++)
        if (i != dim) PyTuple_SetItem(dims, k++, PyLong_FromLong(i));
    if (!dims) return NULL;
    double pv = PyFloat_AsDouble(pord), mn = PyFloat_AsDouble(maxnorm);
    if (PyErr_Occurred()) { Py_DECREF(dims); return NULL; }
    PyObject *norm;
    if (x->dtype == TN_DTYPE_F16 || x->dtype == TN_DTYPE_BF16) {
        PyObject *f = tn_py_from_dtype(TN_DTYPE_F32), *kw = f ? Py_BuildValue("{sN}", "dtype", f) : NULL;
        PyObject *a = kw ? Py_BuildValue("(OdOO)", sp, pv, dims, Py_True) : NULL;
        norm = a ? call_name_kw("linalg_vector_norm", a, kw) : NULL;
        Py_XDECREF(kw);
        Py_XDECREF(a);
    } else {
        norm = callv("linalg_vector_norm", "(OdOO)", sp, pv, dims, Py_True);
    }
    PyObject *pd = norm ? PyFloat_FromDouble(pv) : NULL;
    PyObject *np1 = pd ? callv("add", "(Od)", norm, 1e-7) : NULL, *inv = np1 ? callv("reciprocal", "(O)", np1) : NULL;
    PyObject *factor = inv ? callv("mul", "(Od)", inv, mn) : NULL;
    PyObject *nj = factor ? norm_jvp(sp, st, pd, norm, dims, true) : NULL;
    PyObject *xi = nj ? callv("mul", "(OO)", sp, inv) : NULL, *xin = xi ? callv("mul", "(OO)", xi, nj) : NULL;
    PyObject *d = xin ? callv("sub", "(OO)", st, xin) : NULL, *fd = d ? callv("mul", "(OO)", factor, d) : NULL;
    PyObject *gt = fd ? callv("gt", "(Od)", norm, mn) : NULL, *r = gt ? callv("where", "(OOO)", gt, fd, st) : NULL;
    Py_DECREF(dims); Py_XDECREF(norm); Py_XDECREF(pd); Py_XDECREF(np1); Py_XDECREF(inv); Py_XDECREF(factor);
    Py_XDECREF(nj); Py_XDECREF(xi); Py_XDECREF(xin); Py_XDECREF(d); Py_XDECREF(fd); Py_XDECREF(gt);
    return r;
}

/* ---- batch / group norm (FunctionsManual's _invstd_jvp, _norm_jvp, _affine_jvp) ---- */

/* a tuple of ints from C */
static PyObject *int_tuple(const int64_t *v, int n) {
    PyObject *t = PyTuple_New(n);
    for (int i = 0; t && i < n; i++) PyTuple_SetItem(t, i, PyLong_FromLongLong(v[i]));
    return t;
}

/* sum(((t - t.mean(dims)) * (p - mean) * -invstd^3), dims, keepdim) / numel */
static PyObject *invstd_jvp(PyObject *ip, PyObject *it, PyObject *mean, PyObject *invstd, PyObject *dims, int64_t numel,
                            bool keepdim) {
    PyObject *ts[] = {ip, it, mean, invstd};
    bool sub = subclass_like(ts, 4);
    PyObject *mt = callv("mean", "(OOO)", it, dims, Py_True), *a = mt ? callv("sub", "(OO)", it, mt) : NULL, *r = NULL;
    PyObject *d = a ? callv("sub", "(OO)", ip, mean) : NULL, *ad = NULL, *p3 = NULL, *np3 = NULL, *v = NULL, *sm = NULL;
    if (sub) {   /* -invstd^3 * (t - t.mean) * (p - mean) */
        p3 = d ? callv("pow", "(Oi)", invstd, 3) : NULL;
        np3 = p3 ? callv("neg", "(O)", p3) : NULL;
        ad = np3 ? callv("mul", "(OO)", np3, a) : NULL;
        v = ad ? callv("mul", "(OO)", ad, d) : NULL;
    } else {
        ad = d ? callv("mul_", "(OO)", a, d) : NULL;
        p3 = ad ? callv("pow", "(Oi)", invstd, 3) : NULL;
        np3 = p3 ? callv("neg", "(O)", p3) : NULL;
        v = np3 ? callv("mul_", "(OO)", a, np3) : NULL;
    }
    sm = v ? callv("sum", "(OOO)", v, dims, keepdim ? Py_True : Py_False) : NULL;
    r = sm ? callv("div_", "(OL)", sm, (long long)numel) : NULL;
    Py_XDECREF(mt); Py_XDECREF(a); Py_XDECREF(d); Py_XDECREF(ad); Py_XDECREF(p3); Py_XDECREF(np3); Py_XDECREF(v);
    Py_XDECREF(sm);
    return r;
}

/* the tangent of (input - mean) * invstd over dims */
static PyObject *norm_t_jvp(PyObject *ip, PyObject *it, PyObject *mean, PyObject *invstd, PyObject *dims, int64_t numel) {
    PyObject *ts[] = {ip, it, mean, invstd};
    bool sub = subclass_like(ts, 4);
    PyObject *inv_t = invstd_jvp(ip, it, mean, invstd, dims, numel, true);
    PyObject *mt = inv_t ? callv("mean", "(OOO)", it, dims, Py_True) : NULL, *a = mt ? callv("sub", "(OO)", it, mt) : NULL;
    PyObject *ai = a ? callv(sub ? "mul" : "mul_", "(OO)", a, invstd) : NULL;
    PyObject *b = ai ? callv("sub", "(OO)", ip, mean) : NULL, *bi = b ? callv(sub ? "mul" : "mul_", "(OO)", b, inv_t) : NULL;
    PyObject *r = bi ? callv(sub ? "add" : "add_", "(OO)", ai, bi) : NULL;
    Py_XDECREF(inv_t); Py_XDECREF(mt); Py_XDECREF(a); Py_XDECREF(ai); Py_XDECREF(b); Py_XDECREF(bi);
    return r;
}

/* _affine_jvp: result_t * weight_p + result_p * weight_t + bias_t (each part when present; the
 * ZeroTensor tangents of a weight / bias without one add nothing). Steals result_t. */
static PyObject *affine_jvp(PyObject *result_p, PyObject *rt, PyObject *wp, PyObject *wt, bool wt_zero, PyObject *bt,
                            bool bt_zero) {
    if (!rt) return NULL;
    PyObject *ts[] = {result_p, rt, wp, wt};
    if (wp) {
        bool sub = subclass_like(ts, 4) || wt_zero;
        PyObject *a = callv(sub ? "mul" : "mul_", "(OO)", rt, wp), *b = NULL, *c = NULL;
        if (a && !wt_zero) {
            b = callv(sub ? "mul" : "mul_", "(OO)", result_p, wt);
            c = b ? callv(sub ? "add" : "add_", "(OO)", a, b) : NULL;
        } else {
            c = Py_XNewRef(a);
        }
        Py_XDECREF(a);
        Py_XDECREF(b);
        Py_SETREF(rt, c);
        if (!rt) return NULL;
    }
    if (bt && !bt_zero) {
        PyObject *ts2[] = {rt, bt};
        Py_SETREF(rt, callv(subclass_like(ts2, 2) ? "add" : "add_", "(OO)", rt, bt));
    }
    return rt;
}

static PyObject *view_opt(PyObject *t, PyObject *shape) {   /* t.view(shape), NULL for an undefined t */
    return t && t != Py_None ? callv("view", "(OO)", t, shape) : NULL;
}

/* batch_norm_jvp(input_p, input_t, weight_p, weight_t, bias_p, bias_t, running_mean, running_var,
 * saved_mean, saved_invstd, train, eps) */
static PyObject *batch_norm_jvp(PyObject *ip, PyObject *it, PyObject *wp, PyObject *wt, bool wt_zero, PyObject *bt,
                                bool bt_zero, PyObject *rm, PyObject *rv, PyObject *sm, PyObject *si, bool train, double eps) {
    const tn_tensor *x = tn_tensor_of(it);
    int64_t vs[TN_MAX_DIMS], dl[TN_MAX_DIMS], numel = 1;
    int nd = x->ndim, k = 0;
    for (int i = 0; i < nd; i++) {
        vs[i] = i == 1 ? x->sizes[i] : 1;
        if (i != 1) { numel *= x->sizes[i]; dl[k++] = i; }
    }
    PyObject *view = int_tuple(vs, nd), *dims = view ? int_tuple(dl, k) : NULL;
    PyObject *mean = NULL, *invstd = NULL, *rt = NULL, *r = NULL, *rp = NULL, *wpv = NULL, *wtv = NULL, *btv = NULL;
    if (!dims) goto done;
    if (train) {
        if (!(mean = callv("view", "(OO)", sm, view)) || !(invstd = callv("view", "(OO)", si, view))) goto done;
        rt = norm_t_jvp(ip, it, mean, invstd, dims, numel);
    } else {
        if (!rm || rm == Py_None || !rv || rv == Py_None || tn_fw_grad(rm) || tn_fw_grad(rv)) {
            PyErr_SetString(PyExc_RuntimeError, "batch_norm is not differentiable wrt running_mean and running_var, they "
                                                "cannot have forward grad defined");
            goto done;
        }
        PyObject *a = callv("add", "(Od)", rv, eps), *sq = a ? callv("sqrt", "(O)", a) : NULL;
        PyObject *q = sq ? callv("div", "(iO)", 1, sq) : NULL;
        invstd = q ? callv("view", "(OO)", q, view) : NULL;
        Py_XDECREF(a); Py_XDECREF(sq); Py_XDECREF(q);
        if (!invstd || !(mean = callv("view", "(OO)", rm, view))) goto done;
        rt = callv("mul", "(OO)", it, invstd);
    }
    if (!rt) goto done;
    if (wp && wp != Py_None) {
        PyObject *d = callv("sub", "(OO)", ip, mean);
        rp = d ? callv("mul", "(OO)", d, invstd) : NULL;
        Py_XDECREF(d);
        if (!rp || !(wpv = view_opt(wp, view)) || !(wtv = view_opt(wt, view))) goto done;
    }
    if (bt && bt != Py_None && !(btv = view_opt(bt, view))) goto done;
    r = affine_jvp(rp, rt, wpv, wtv, wt_zero, btv, bt_zero);
    rt = NULL;
done:
    Py_XDECREF(view); Py_XDECREF(dims); Py_XDECREF(mean); Py_XDECREF(invstd); Py_XDECREF(rt); Py_XDECREF(rp);
    Py_XDECREF(wpv); Py_XDECREF(wtv); Py_XDECREF(btv);
    return r;
}

/* convolution_backward_jvp_grad_bias(grad_out_t, grad_bias): grad_out_t summed over all but dim 1 */
static PyObject *conv_bw_jvp_grad_bias(PyObject *gt, PyObject *grad_bias) {
    if (!grad_bias || grad_bias == Py_None) Py_RETURN_NONE;
    int nd = tdim(gt);
    if (nd < 3 || nd > 5) {
        PyErr_Format(PyExc_RuntimeError, "convolution_backward_jvp_grad_bias expected dim of grad_out_t to be 3, 4, or 5, "
                                         "but got: %d", nd);
        return NULL;
    }
    int64_t dl[4] = {0, 2, 3, 4};
    PyObject *dims = int_tuple(dl, nd - 1), *r = dims ? callv("sum", "(OO)", gt, dims) : NULL;
    Py_XDECREF(dims);
    return r;
}

/* group norm views the input as (1, N * groups, rest) */
static PyObject *group_view(PyObject *t, int64_t groups) {
    const tn_tensor *x = tn_tensor_of(t);
    int64_t N = x->ndim ? x->sizes[0] : 1, v[3] = {1, N * groups, N ? -1 : 1};
    PyObject *shape = int_tuple(v, 3), *r = shape ? callv("view", "(OO)", t, shape) : NULL;
    Py_XDECREF(shape);
    return r;
}

static PyObject *group_norm_jvp(PyObject *ip, PyObject *it, PyObject *wp, PyObject *wt, bool wt_zero, PyObject *bt,
                                bool bt_zero, PyObject *sm, PyObject *si, int64_t groups) {
    const tn_tensor *x = tn_tensor_of(ip);
    PyObject *shape = tn_py_size_new(x->ndim, x->sizes);
    PyObject *itr = shape ? group_view(it, groups) : NULL, *ipr = itr ? group_view(ip, groups) : NULL;
    PyObject *bn = ipr ? batch_norm_jvp(ipr, itr, NULL, NULL, false, NULL, false, NULL, NULL, sm, si, true, 0.0) : NULL;
    PyObject *rt = bn ? callv("view", "(OO)", bn, shape) : NULL, *rp = NULL, *aff = NULL, *wpv = NULL, *wtv = NULL,
             *btv = NULL, *r = NULL;
    if (!rt) goto done;
    int64_t av[TN_MAX_DIMS];
    for (int i = 0; i < x->ndim; i++) av[i] = i == 1 ? x->sizes[1] : 1;
    if (!(aff = int_tuple(av, x->ndim))) goto done;
    if (wp && wp != Py_None) {
        int64_t vs[3] = {1, tn_tensor_of(itr)->sizes[1], 1};
        PyObject *v = int_tuple(vs, 3), *m = v ? callv("view", "(OO)", sm, v) : NULL, *s2 = m ? callv("view", "(OO)", si, v) : NULL;
        PyObject *d = s2 ? callv("sub", "(OO)", ipr, m) : NULL, *q = d ? callv("mul", "(OO)", d, s2) : NULL;
        rp = q ? callv("view", "(OO)", q, shape) : NULL;
        Py_XDECREF(v); Py_XDECREF(m); Py_XDECREF(s2); Py_XDECREF(d); Py_XDECREF(q);
        if (!rp || !(wpv = view_opt(wp, aff)) || !(wtv = view_opt(wt, aff))) goto done;
    }
    if (bt && bt != Py_None && !(btv = view_opt(bt, aff))) goto done;
    r = affine_jvp(rp, rt, wpv, wtv, wt_zero, btv, bt_zero);
    rt = NULL;
done:
    Py_XDECREF(shape); Py_XDECREF(itr); Py_XDECREF(ipr); Py_XDECREF(bn); Py_XDECREF(rt); Py_XDECREF(rp); Py_XDECREF(aff);
    Py_XDECREF(wpv); Py_XDECREF(wtv); Py_XDECREF(btv);
    return r;
}

/* group_norm_mean_jvp(input_t, mean_p, groups) and group_norm_invstd_jvp(input_p, input_t, mean_p,
 * invstd_p, groups); the latter passes input_t where _invstd_jvp takes input_p, as upstream does */
static PyObject *group_norm_stat_jvp(PyObject *ip, PyObject *it, PyObject *mean, PyObject *invstd, int64_t groups) {
    PyObject *itr = group_view(it, groups), *r = NULL, *two = PyLong_FromLong(2), *ipr = NULL, *mv = NULL, *iv = NULL;
    PyObject *d2 = two ? PyTuple_Pack(1, two) : NULL, *v = NULL;
    if (!itr || !d2) goto done;
    if (!ip) {
        v = callv("mean", "(OOO)", itr, d2, Py_False);
        r = v ? callv("view_as", "(OO)", v, mean) : NULL;
        goto done;
    }
    if (!(ipr = group_view(ip, groups)) || !(mv = group_view(mean, groups)) || !(iv = group_view(invstd, groups))) goto done;
    v = invstd_jvp(itr, ipr, mv, iv, d2, tn_tensor_of(itr)->sizes[2], false);
    r = v ? callv("view_as", "(OO)", v, invstd) : NULL;
done:
    Py_XDECREF(itr); Py_XDECREF(two); Py_XDECREF(d2); Py_XDECREF(ipr); Py_XDECREF(mv); Py_XDECREF(iv); Py_XDECREF(v);
    return r;
}

/* convolution_jvp / _convolution_jvp: conv(input_t, weight_p) + conv(input_p, weight_t, bias_t);
 * `rest` is stride .. groups (and _convolution's benchmark .. allow_tf32) */
static PyObject *convolution_jvp(const char *op, fv *argv, int n) {
    PyObject *bias_t = argv[5].o;
    PyObject *a = PyTuple_New(n - 3), *b = a ? PyTuple_New(n - 3) : NULL, *r = NULL;
    if (!b) { Py_XDECREF(a); return NULL; }
    PyTuple_SetItem(a, 0, Py_NewRef(argv[1].o));
    PyTuple_SetItem(a, 1, Py_NewRef(argv[2].o));
    PyTuple_SetItem(a, 2, Py_NewRef(Py_None));
    PyTuple_SetItem(b, 0, Py_NewRef(argv[0].o));
    PyTuple_SetItem(b, 1, Py_NewRef(argv[3].o));
    PyTuple_SetItem(b, 2, Py_NewRef(bias_t && !argv[5].zero ? bias_t : Py_None));
    for (int i = 6; i < n; i++) {
        PyTuple_SetItem(a, i - 3, Py_NewRef(argv[i].o));
        PyTuple_SetItem(b, i - 3, Py_NewRef(argv[i].o));
    }
    PyObject *x = call_name(op, a), *y = x ? call_name(op, b) : NULL;
    r = y ? callv("add", "(OO)", x, y) : NULL;
    Py_DECREF(a); Py_DECREF(b); Py_XDECREF(x); Py_XDECREF(y);
    return r;
}

/* safe_logsumexp_jvp(self_p, self_t, dim, keepdim): logsumexp_jvp, 0 on rows that are all -inf */
static PyObject *safe_logsumexp_jvp(PyObject *sp, PyObject *st, PyObject *dim, bool keepdim) {
    PyObject *j = logsumexp_jvp(sp, st, dim, keepdim);
    PyObject *dt = j ? tensor_dtype_obj(j) : NULL, *kw = dt ? Py_BuildValue("{sN}", "dtype", dt) : NULL;
    PyObject *a = kw ? Py_BuildValue("(d)", -INFINITY) : NULL, *ninf = a ? call_name_kw("scalar_tensor", a, kw) : NULL;
    PyObject *mk = ninf ? callv("eq", "(OO)", sp, ninf) : NULL, *rows = mk ? callv("all", "(OOO)", mk, dim, Py_True) : NULL;
    PyObject *a0 = rows ? Py_BuildValue("(d)", 0.0) : NULL, *zero = a0 ? call_name_kw("scalar_tensor", a0, kw) : NULL;
    PyObject *r = zero ? callv("where", "(OOO)", rows, zero, j) : NULL;
    Py_XDECREF(j); Py_XDECREF(kw); Py_XDECREF(a); Py_XDECREF(ninf); Py_XDECREF(mk); Py_XDECREF(rows); Py_XDECREF(a0);
    Py_XDECREF(zero);
    return r;
}

/* scatter_reduce_jvp(self_p, self_t, dim, index, src_p, src_t, reduce, include_self, result):
 * linear for sum / mean; for amin / amax the tangents of the tied extrema averaged; none for prod */
static PyObject *scatter_reduce_jvp(PyObject *sp, PyObject *st, PyObject *dim, PyObject *index, PyObject *srcp,
                                    PyObject *srct, PyObject *reduce, PyObject *incl, PyObject *result) {
    const char *red = PyUnicode_AsUTF8AndSize(reduce, NULL);
    if (!red) return NULL;
    if (!strcmp(red, "sum") || !strcmp(red, "mean"))
        return callv("scatter_reduce", "(OOOOOO)", st, dim, index, srct, reduce, incl);
    if (strcmp(red, "amin") && strcmp(red, "amax")) Py_RETURN_NONE;
    PyObject *g = callv("gather", "(OOO)", result, dim, index), *ms = g ? callv("eq", "(OO)", sp, result) : NULL;
    PyObject *mr = ms ? callv("eq", "(OO)", srcp, g) : NULL, *mst = mr ? callv("where", "(OOd)", mr, srct, 0.0) : NULL;
    PyObject *dt = mst ? tensor_dtype_obj(st) : NULL, *a = dt ? callv("to", "(OO)", ms, dt) : NULL;
    PyObject *b = a ? callv("to", "(OO)", mr, dt) : NULL, *sum = b ? PyUnicode_FromString("sum") : NULL;
    PyObject *div = sum ? callv("scatter_reduce", "(OOOOOO)", a, dim, index, b, sum, incl) : NULL;
    PyObject *w = div ? callv("where", "(OOd)", ms, st, 0.0) : NULL;
    PyObject *sr = w ? callv("scatter_reduce", "(OOOOOO)", w, dim, index, mst, sum, incl) : NULL;
    PyObject *r = sr ? callv("div", "(OO)", sr, div) : NULL;
    Py_XDECREF(g); Py_XDECREF(ms); Py_XDECREF(mr); Py_XDECREF(mst); Py_XDECREF(dt); Py_XDECREF(a); Py_XDECREF(b);
    Py_XDECREF(sum); Py_XDECREF(div); Py_XDECREF(w); Py_XDECREF(sr);
    return r;
}

/* glu_jvp(glu, x, dx, dim): upstream's is an aten kernel (not implemented here); the same
 * expression in ops: da * sig_b + glu * (db - sig_b * db), sig_b = sigmoid of x's second half */
static PyObject *glu_jvp(PyObject *glu, PyObject *x, PyObject *dx, int64_t dim) {
    int nd = tdim(x);
    if (dim < 0) dim += nd;
    int64_t h = tn_tensor_of(glu)->sizes[dim];
    PyObject *b = callv("narrow", "(OLLL)", x, (long long)dim, (long long)h, (long long)h);
    PyObject *da = b ? callv("narrow", "(OLLL)", dx, (long long)dim, 0LL, (long long)h) : NULL;
    PyObject *db = da ? callv("narrow", "(OLLL)", dx, (long long)dim, (long long)h, (long long)h) : NULL;
    PyObject *sg = db ? callv("sigmoid", "(O)", b) : NULL, *a1 = sg ? callv("mul", "(OO)", da, sg) : NULL;
    PyObject *sd = a1 ? callv("mul", "(OO)", sg, db) : NULL, *d = sd ? callv("sub", "(OO)", db, sd) : NULL;
    PyObject *a2 = d ? callv("mul", "(OO)", glu, d) : NULL, *r = a2 ? callv("add", "(OO)", a1, a2) : NULL;
    Py_XDECREF(b); Py_XDECREF(da); Py_XDECREF(db); Py_XDECREF(sg); Py_XDECREF(a1); Py_XDECREF(sd); Py_XDECREF(d);
    Py_XDECREF(a2);
    return r;
}

/* ---- linear algebra (FunctionsManual's cholesky_jvp, cholesky_inverse_jvp, linalg_lu_jvp,
 * lu_factor_ex_jvp, op for op) ---- */
static PyObject *solve_tri(PyObject *A, PyObject *B, bool upper, bool left, bool unit) {
    return callv("linalg_solve_triangular", "(OOOOO)", A, B, upper ? Py_True : Py_False, left ? Py_True : Py_False,
                 unit ? Py_True : Py_False);
}

/* dL = L pi(L^-1 dA L^-H), pi(X) = X.tril() - 0.5 diag(X) (upper: the same on L^H, transposed back) */
static PyObject *cholesky_jvp(PyObject *dA, PyObject *L, bool upper) {
    PyObject *L_ = upper ? callv("mH", "(O)", L) : Py_NewRef(L);
    PyObject *a = L_ ? solve_tri(L_, dA, false, true, false) : NULL, *Lh = a ? callv("mH", "(O)", L_) : NULL;
    PyObject *b = Lh ? solve_tri(Lh, a, true, false, false) : NULL, *tl = b ? callv("tril", "(O)", b) : NULL;
    PyObject *dg = tl ? callv("diagonal", "(Oiii)", b, 0, -2, -1) : NULL, *h = dg ? callv("mul", "(Od)", dg, 0.5) : NULL;
    PyObject *de = h ? callv("diag_embed", "(O)", h) : NULL, *d = de ? callv("sub", "(OO)", tl, de) : NULL;
    PyObject *m = d ? callv("matmul", "(OO)", L_, d) : NULL, *r = m && upper ? callv("mH", "(O)", m) : Py_XNewRef(m);
    Py_XDECREF(L_); Py_XDECREF(a); Py_XDECREF(Lh); Py_XDECREF(b); Py_XDECREF(tl); Py_XDECREF(dg); Py_XDECREF(h);
    Py_XDECREF(de); Py_XDECREF(d); Py_XDECREF(m);
    return r;
}

/* X = (L L^H)^-1: K = -X dCF X CF, dX = K + K^H */
static PyObject *cholesky_inverse_jvp(PyObject *F, PyObject *dF, PyObject *X, bool upper) {
    PyObject *CF = upper ? Py_NewRef(F) : callv("mH", "(O)", F), *dCF = CF ? (upper ? callv("mH", "(O)", dF) : Py_NewRef(dF)) : NULL;
    PyObject *a = dCF ? callv("matmul", "(OO)", X, dCF) : NULL, *b = a ? callv("matmul", "(OO)", a, X) : NULL;
    PyObject *c = b ? callv("matmul", "(OO)", b, CF) : NULL, *k = c ? callv("neg", "(O)", c) : NULL;
    PyObject *kh = k ? callv("mH", "(O)", k) : NULL, *r = kh ? callv("add", "(OO)", k, kh) : NULL;
    Py_XDECREF(CF); Py_XDECREF(dCF); Py_XDECREF(a); Py_XDECREF(b); Py_XDECREF(c); Py_XDECREF(k); Py_XDECREF(kh);
    return r;
}

static PyObject *narrow2(PyObject *t, int d1, int64_t s1, int64_t l1, int d2, int64_t s2, int64_t l2) {
    PyObject *a = callv("narrow", "(OiLL)", t, d1, (long long)s1, (long long)l1);
    PyObject *r = a && d2 ? callv("narrow", "(OiLL)", a, d2, (long long)s2, (long long)l2) : Py_XNewRef(a);
    Py_XDECREF(a);
    return r;
}

/* linalg_lu_jvp(dA, P, L, U, pivot): (dL, dU) from dK = L1^-1 P^T dA1 U1^-1 (block form for
 * rectangular A) */
static PyObject *linalg_lu_jvp(PyObject *dA, PyObject *P, PyObject *L, PyObject *U, bool pivot) {
    const tn_tensor *t = tn_tensor_of(dA);
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1], k = m < n ? m : n;
    PyObject *r = NULL, *PT = NULL, *PdA = NULL, *PdA1 = NULL, *L1 = NULL, *U1 = NULL, *dK0 = NULL, *dK = NULL, *tl = NULL,
             *dL1 = NULL, *tu = NULL, *dU1 = NULL, *PdA2 = NULL, *X2 = NULL, *s = NULL, *p = NULL, *d2 = NULL, *c = NULL;
    if (pivot) {
        if (!(PT = callv("mT", "(O)", P)) || !(PdA = callv("matmul", "(OO)", PT, dA))) goto done;
    } else {
        PdA = Py_NewRef(dA);
    }
    if (!(PdA1 = narrow2(PdA, -2, 0, k, -1, 0, k)) || !(L1 = narrow2(L, -2, 0, k, -1, 0, k)) ||
        !(U1 = narrow2(U, -2, 0, k, -1, 0, k)))
        goto done;
    if (!(dK0 = solve_tri(L1, PdA1, false, true, true)) || !(dK = solve_tri(U1, dK0, true, false, false))) goto done;
    if (!(tl = callv("tril", "(Oi)", dK, -1)) || !(dL1 = callv("matmul", "(OO)", L1, tl))) goto done;
    if (!(tu = callv("triu", "(O)", dK)) || !(dU1 = callv("matmul", "(OO)", tu, U1))) goto done;
    if (m == n) {
        r = PyTuple_Pack(2, dL1, dU1);
    } else if (m < n) {   /* dU2 = L1^-1 PdA2 - dK.tril(-1) U2 */
        if (!(PdA2 = callv("narrow", "(OiLL)", PdA, -1, (long long)k, (long long)(n - k))) ||
            !(X2 = callv("narrow", "(OiLL)", U, -1, (long long)k, (long long)(n - k))) ||
            !(s = solve_tri(L1, PdA2, false, true, true)) || !(p = callv("matmul", "(OO)", tl, X2)) ||
            !(d2 = callv("sub", "(OO)", s, p)))
            goto done;
        PyObject *l = PyTuple_Pack(2, dU1, d2);
        c = l ? callv("cat", "(Oi)", l, -1) : NULL;
        Py_XDECREF(l);
        r = c ? PyTuple_Pack(2, dL1, c) : NULL;
    } else {   /* dL2 = PdA2 U1^-1 - L2 dK.triu() */
        if (!(PdA2 = callv("narrow", "(OiLL)", PdA, -2, (long long)k, (long long)(m - k))) ||
            !(X2 = callv("narrow", "(OiLL)", L, -2, (long long)k, (long long)(m - k))) ||
            !(s = solve_tri(U1, PdA2, true, false, false)) || !(p = callv("matmul", "(OO)", X2, tu)) ||
            !(d2 = callv("sub", "(OO)", s, p)))
            goto done;
        PyObject *l = PyTuple_Pack(2, dL1, d2);
        c = l ? callv("cat", "(Oi)", l, -2) : NULL;
        Py_XDECREF(l);
        r = c ? PyTuple_Pack(2, c, dU1) : NULL;
    }
done:
    Py_XDECREF(PT); Py_XDECREF(PdA); Py_XDECREF(PdA1); Py_XDECREF(L1); Py_XDECREF(U1); Py_XDECREF(dK0); Py_XDECREF(dK);
    Py_XDECREF(tl); Py_XDECREF(dL1); Py_XDECREF(tu); Py_XDECREF(dU1); Py_XDECREF(PdA2); Py_XDECREF(X2); Py_XDECREF(s);
    Py_XDECREF(p); Py_XDECREF(d2); Py_XDECREF(c);
    return r;
}

/* lu_factor_ex_jvp(dA, LU, pivots, pivot): dL and dU packed as LU is */
static PyObject *lu_factor_ex_jvp(PyObject *dA, PyObject *LU, PyObject *piv, bool pivot) {
    PyObject *plu = callv("lu_unpack", "(OOOO)", LU, piv, Py_True, pivot ? Py_True : Py_False);
    PyObject *j = plu ? linalg_lu_jvp(dA, PyTuple_GetItem(plu, 0), PyTuple_GetItem(plu, 1), PyTuple_GetItem(plu, 2), pivot) : NULL;
    Py_XDECREF(plu);
    if (!j) return NULL;
    const tn_tensor *t = tn_tensor_of(dA);
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1];
    PyObject *dL = PyTuple_GetItem(j, 0), *dU = PyTuple_GetItem(j, 1), *into = m >= n ? dL : dU;
    PyObject *part = callv("narrow", "(OiLL)", into, m >= n ? -2 : -1, 0LL, (long long)(m >= n ? n : m));
    PyObject *a = part ? callv("add_", "(OO)", part, m >= n ? dU : dL) : NULL, *r = a ? Py_NewRef(into) : NULL;
    Py_XDECREF(part); Py_XDECREF(a); Py_DECREF(j);
    return r;
}

/* ---- FunctionsManual's loss, rms_norm, aminmax and linear-algebra jvps (helper-fwlin), op for op
 * through the typed op API. Each keeps its temporaries in a pool released at the end; KP(x) stores
 * x and is false when x is NULL (an exception is set). Tensor arguments are borrowed. ---- */
typedef struct { PyObject *t[64]; int n; } fpool;
static PyObject *fkeep(fpool *p, PyObject *x) {
    if (x && p->n == 64) {   /* a guard: the bodies below keep fewer */
        Py_DECREF(x);
        PyErr_SetString(PyExc_RuntimeError, "torchnative: forward formula temporaries exhausted");
        return NULL;
    }
    if (x) p->t[p->n++] = x;
    return x;
}
static void fdrain(fpool *p) { while (p->n) Py_DECREF(p->t[--p->n]); }
#define KP(e) (fkeep(&P_, (e)) != NULL)
#define FDEF(x) ((x) && (x) != Py_None)

/* glu_backward_jvp(grad_x, grad_glu, x, dgrad_glu, dx, dim): an aten kernel upstream; the tangent
 * of glu_backward's (grad_glu s, grad_glu a s (1 - s)), s = sigmoid(b), in ops:
 * (dgrad_glu s + grad_x_a (1 - s) db, dgrad_glu a s (1 - s) + grad_x_a (1 - s) da + grad_x_b (1 - 2s) db) */
static PyObject *glu_backward_jvp(PyObject *gx, PyObject *gg, PyObject *x, PyObject *dgg, PyObject *dx, int64_t dim) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *a, *b, *da, *db, *gxa, *gxb, *s, *oms, *u, *v, *ra, *rb;
    if (dim < 0) dim += tdim(x);
    int64_t h = tn_tensor_of(gg)->sizes[dim];
    if (!(KP(a = tn_at_narrow(x, dim, 0, h)) && KP(b = tn_at_narrow(x, dim, h, h)) && KP(da = tn_at_narrow(dx, dim, 0, h)) &&
          KP(db = tn_at_narrow(dx, dim, h, h)) && KP(gxa = tn_at_narrow(gx, dim, 0, h)) && KP(gxb = tn_at_narrow(gx, dim, h, h)) &&
          KP(s = tn_at_sigmoid(b)) && KP(oms = tn_at_rsub_Scalar(s, TN_SI(1), TN_SDEF))))
        goto done;
    /* first half */
    if (!(KP(u = tn_at_mul_Tensor(dgg, s)) && KP(v = tn_at_mul_Tensor(gxa, oms)) && KP(v = tn_at_mul_Tensor(v, db)) &&
          KP(ra = tn_at_add_Tensor(u, v, TN_SDEF))))
        goto done;
    /* second half */
    if (!(KP(u = tn_at_mul_Tensor(dgg, a)) && KP(u = tn_at_mul_Tensor(u, s)) && KP(u = tn_at_mul_Tensor(u, oms)) &&
          KP(v = tn_at_mul_Tensor(gxa, oms)) && KP(v = tn_at_mul_Tensor(v, da)) && KP(rb = tn_at_add_Tensor(u, v, TN_SDEF)) &&
          KP(u = tn_at_mul_Scalar(s, TN_SI(2))) && KP(u = tn_at_rsub_Scalar(u, TN_SI(1), TN_SDEF)) &&
          KP(u = tn_at_mul_Tensor(gxb, u)) && KP(u = tn_at_mul_Tensor(u, db)) && KP(rb = tn_at_add_Tensor(rb, u, TN_SDEF))))
        goto done;
    r = tn_at_cat(TN_TS(ra, rb), dim);
done:
    fdrain(&P_);
    return r;
}


static int64_t numel_of(PyObject *t) {
    const tn_tensor *x = tn_tensor_of(t);
    int64_t n = 1;
    for (int i = 0; i < x->ndim; i++) n *= x->sizes[i];
    return n;
}
static bool is_cplx(PyObject *t) { return tn_dtype_is_complex(tn_tensor_of(t)->dtype); }
/* C++'s `s - t` for a Scalar s: empty_like(t).fill_(s).sub_(t) */
static PyObject *scalar_sub(double s, PyObject *t) {
    PyObject *e = tn_at_empty_like(t, NULL, NULL, NULL, NULL, NULL);
    PyObject *f = e ? tn_at_fill__Scalar(e, TN_SD(s)) : NULL, *r = f ? tn_at_sub__Tensor(e, t, TN_SDEF) : NULL;
    Py_XDECREF(f);
    Py_XDECREF(e);
    return r;
}
/* x * y in place (x.mul_(y)) or not: x borrowed, a new reference */
static PyObject *mul_maybe(PyObject *x, PyObject *y, bool inplace) {
    return inplace ? tn_at_mul__Tensor(x, y) : tn_at_mul_Tensor(x, y);
}
/* _efficientzerotensor(like.sizes(), like.options()): zeros flagged as a ZeroTensor by the caller */
static PyObject *zeros_of(PyObject *like) {
    const tn_tensor *x = tn_tensor_of(like);
    return tn_at_zeros(TN_IN(x->sizes, x->ndim), TN_DT(x->dtype), NULL, NULL, NULL);
}

/* binary_cross_entropy_target_backward(grad, self, target, weight, reduction):
 * -logit(self) * grad [* weight] [/ target.numel() for Mean] */
PyObject *tn_bw_bce_target_backward(PyObject *grad, PyObject *self, PyObject *target, PyObject *w, int64_t red) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *g, *a, *ts[] = {grad};
    bool sub = subclass_like(ts, 1);
    if (!(KP(g = tn_at_logit(self, NULL)) && KP(a = tn_at_neg_(g)) && KP(g = mul_maybe(g, grad, !sub)))) goto done;
    if (FDEF(w) && !KP(g = mul_maybe(g, w, !subclass_like(&w, 1)))) goto done;
    if (red == 1 && !KP(a = tn_at_div__Scalar(g, TN_SI((long long)numel_of(target))))) goto done;
    r = Py_NewRef(g);
done:
    fdrain(&P_);
    return r;
}

/* binary_cross_entropy_double_backward(grad_output, grad, input, target, weight, reduction) and
 * its _grad_output form (go NULL): the derivative of bce's backward in input, and in grad_output.
 * The ops in upstream's order: its compiler evaluates a binary operator's right operand first. */
PyObject *tn_bw_bce_double_backward(PyObject *go, PyObject *grad, PyObject *x, PyObject *t, PyObject *w, int64_t red) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *xe, *ome, *a, *b, *c, *g;
    if (go) {   /* xe = x + eps, ome = 1 - x + eps; (x^2 - 2 x t + t) / (xe^2 ome^2) */
        if (!(KP(xe = tn_at_add_Scalar(x, TN_SD(1e-12), TN_SDEF)) && KP(a = scalar_sub(1.0, x)) &&
              KP(ome = tn_at_add_Scalar(a, TN_SD(1e-12), TN_SDEF)) && KP(b = tn_at_pow_Tensor_Scalar(ome, TN_SI(2))) &&
              KP(a = tn_at_pow_Tensor_Scalar(xe, TN_SI(2))) && KP(b = tn_at_mul_Tensor(a, b)) &&
              KP(a = tn_at_mul_Scalar(x, TN_SI(2))) && KP(a = tn_at_mul_Tensor(a, t)) && KP(c = tn_at_mul_Tensor(x, x)) &&
              KP(a = tn_at_sub_Tensor(c, a, TN_SDEF)) && KP(a = tn_at_add_Tensor(a, t, TN_SDEF)) && KP(g = tn_at_div_Tensor(a, b))))
            goto done;
        PyObject *ts[] = {g, grad};
        bool sub = subclass_like(ts, 2);
        if (!(KP(a = tn_at_mul_Tensor(grad, go)) && KP(g = mul_maybe(g, a, !sub)))) goto done;
    } else {    /* (x - t) / ((x + eps) (1 - x + eps)) */
        if (!(KP(a = scalar_sub(1.0, x)) && KP(ome = tn_at_add_Scalar(a, TN_SD(1e-12), TN_SDEF)) &&
              KP(xe = tn_at_add_Scalar(x, TN_SD(1e-12), TN_SDEF)) && KP(b = tn_at_mul_Tensor(xe, ome)) &&
              KP(a = tn_at_sub_Tensor(x, t, TN_SDEF)) && KP(g = tn_at_div_Tensor(a, b))))
            goto done;
        PyObject *ts[] = {g, grad};
        if (!KP(g = mul_maybe(g, grad, !subclass_like(ts, 2)))) goto done;
    }
    if (FDEF(w) && !KP(g = mul_maybe(g, w, !subclass_like(&w, 1)))) goto done;
    r = red == 1 ? tn_at_div_Scalar(g, TN_SI((long long)numel_of(x))) : Py_NewRef(g);
done:
    fdrain(&P_);
    return r;
}

/* binary_cross_entropy_double_backward_target(grad, grad_output, self, target, weight, reduction):
 * -grad * grad_output [* weight] / clamp_min((1 - self) * self, 1e-12) [/ target.numel()] */
PyObject *tn_bw_bce_double_backward_target(PyObject *grad, PyObject *go, PyObject *x, PyObject *t, PyObject *w, int64_t red) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *res, *a, *den;
    if (!(KP(a = tn_at_neg(grad)) && KP(res = tn_at_mul_Tensor(a, go)))) goto done;
    if (FDEF(w) && !KP(res = mul_maybe(res, w, !subclass_like(&w, 1)))) goto done;
    if (!(KP(a = scalar_sub(1.0, x)) && KP(den = mul_maybe(a, x, !subclass_like(&x, 1))))) goto done;
    bool was = tn_grad_mode_set(false);
    a = tn_at_clamp_min_(den, TN_SD(1e-12));
    tn_grad_mode_set(was);
    if (!KP(a)) goto done;
    if (!KP(res = subclass_like(&den, 1) ? tn_at_div_Tensor(res, den) : tn_at_div__Tensor(res, den))) goto done;
    if (red == 1 && !KP(a = tn_at_div__Scalar(res, TN_SI((long long)numel_of(t))))) goto done;
    r = Py_NewRef(res);
done:
    fdrain(&P_);
    return r;
}

/* binary_cross_entropy_with_logits_backward(grad, input, target, weight, pos_weight, reduction):
 * ((pos_weight * target + 1 - target) * sigmoid(input) - pos_weight * target, or sigmoid(input) -
 * target) * grad [* weight] [/ input.numel()]; out-of-place while grad mode is on */
PyObject *tn_bw_bce_logits_backward(PyObject *grad, PyObject *x, PyObject *t, PyObject *w, PyObject *pw, int64_t red) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *g, *a, *s, *ts[] = {x, t};
    bool gm = tn_grad_enabled(), oop = subclass_like(ts, 2) || gm;
    if (FDEF(pw)) {
        PyObject *pt;
        if (!(KP(pt = tn_at_mul_Tensor(pw, t)) && KP(g = tn_at_add_Scalar(pt, TN_SI(1), TN_SDEF)) &&
              KP(g = oop ? tn_at_sub_Tensor(g, t, TN_SDEF) : tn_at_sub__Tensor(g, t, TN_SDEF)) && KP(s = tn_at_sigmoid(x)) &&
              KP(g = mul_maybe(g, s, !oop)) && KP(g = oop ? tn_at_sub_Tensor(g, pt, TN_SDEF) : tn_at_sub__Tensor(g, pt, TN_SDEF))))
            goto done;
    } else if (!(KP(s = tn_at_sigmoid(x)) && KP(g = oop ? tn_at_sub_Tensor(s, t, TN_SDEF) : tn_at_sub__Tensor(s, t, TN_SDEF)))) {
        goto done;
    }
    if (!KP(g = mul_maybe(g, grad, !(subclass_like(&grad, 1) || gm)))) goto done;
    if (FDEF(w) && !KP(g = mul_maybe(g, w, !(subclass_like(&w, 1) || gm)))) goto done;
    if (red == 1 && !KP(a = tn_at_div__Scalar(g, TN_SI((long long)numel_of(x))))) goto done;
    r = Py_NewRef(g);
done:
    fdrain(&P_);
    return r;
}

/* binary_cross_entropy_with_logits_target_backward(grad_output, self, target, weight, pos_weight,
 * reduction): (log_sigmoid(-self) - log_sigmoid(self) * pos_weight, or -self) * grad_output
 * [* weight] [/ target.numel()] */
PyObject *tn_bw_bce_logits_target_backward(PyObject *go, PyObject *x, PyObject *t, PyObject *w, PyObject *pw, int64_t red) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *g, *a, *b;
    if (FDEF(pw)) {
        PyObject *ts[] = {pw, go};
        bool ip = !subclass_like(ts, 2);
        if (!(KP(a = tn_at_neg(x)) && KP(a = tn_at_log_sigmoid(a)) && KP(b = tn_at_log_sigmoid(x)) && KP(b = mul_maybe(b, pw, ip)) &&
              KP(g = ip ? tn_at_sub__Tensor(a, b, TN_SDEF) : tn_at_sub_Tensor(a, b, TN_SDEF)) && KP(g = mul_maybe(g, go, ip))))
            goto done;
    } else if (!(KP(a = tn_at_neg(x)) && KP(g = tn_at_mul_Tensor(a, go)))) {
        goto done;
    }
    if (FDEF(w) && !KP(g = mul_maybe(g, w, !subclass_like(&w, 1)))) goto done;
    if (red == 1 && !KP(a = tn_at_div__Scalar(g, TN_SI((long long)numel_of(t))))) goto done;
    r = Py_NewRef(g);
done:
    fdrain(&P_);
    return r;
}

/* rms_norm_jvp / rms_norm_rstd_jvp (weight_p NULL: the rstd output's): rstd_t =
 * sum(-rstd^3 * input_t * input_p over the normalized dims) / numel, result_t = input_t * rstd +
 * input_p * rstd_t, then _affine_jvp with the weight */
static PyObject *rms_norm_jvp(PyObject *ip, PyObject *it, bool it_zero, PyObject *wp, PyObject *wt, bool wt_zero,
                              PyObject *rstd, PyObject *normalized_shape, bool rstd_only) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *ns = intlist(normalized_shape), *rp, *rt, *a, *b;
    if (!ns || !fkeep(&P_, ns)) goto done;
    const tn_tensor *x = tn_tensor_of(it);
    int nd = x->ndim, nn = (int)PyTuple_Size(ns);
    int64_t vs[TN_MAX_DIMS], va[TN_MAX_DIMS], dl[TN_MAX_DIMS], numel = 1;
    int k = 0;
    for (int i = 0; i < nd; i++) {
        bool inner = i >= nd - nn;
        vs[i] = inner ? 1 : x->sizes[i];
        va[i] = inner ? x->sizes[i] : 1;
        if (inner) { numel *= x->sizes[i]; dl[k++] = i; }
    }
    PyObject *ts[] = {it, ip, NULL};
    if (!KP(rp = tn_at_view(rstd, TN_IN(vs, nd)))) goto done;
    ts[2] = rp;
    bool sub = subclass_like(ts, 3) || it_zero;
    if (sub) {
        if (!(KP(a = tn_at_pow_Tensor_Scalar(rp, TN_SI(3))) && KP(a = tn_at_neg(a)) && KP(a = tn_at_mul_Tensor(a, it)) &&
              KP(rt = tn_at_mul_Tensor(a, ip))))
            goto done;
    } else if (!(KP(rt = tn_at_mul_Tensor(it, ip)) && KP(a = tn_at_pow_Tensor_Scalar(rp, TN_SI(3))) && KP(a = tn_at_neg(a)) &&
                 KP(b = tn_at_mul__Tensor(rt, a)))) {
        goto done;
    }
    if (!(KP(rt = tn_at_sum_dim_IntList(rt, TN_IN(dl, k), true, NULL)) && KP(a = tn_at_div__Scalar(rt, TN_SI((long long)numel)))))
        goto done;
    if (rstd_only) { r = Py_NewRef(rt); goto done; }
    PyObject *res;
    if (sub) {
        if (!(KP(a = tn_at_mul_Tensor(it, rp)) && KP(b = tn_at_mul_Tensor(ip, rt)) && KP(res = tn_at_add_Tensor(a, b, TN_SDEF))))
            goto done;
    } else if (!(KP(res = tn_at_mul_Tensor(it, rp)) && KP(b = tn_at_mul_Tensor(ip, rt)) && KP(a = tn_at_add__Tensor(res, b, TN_SDEF)))) {
        goto done;
    }
    PyObject *resp = NULL, *wpv = NULL, *wtv = NULL;
    if (FDEF(wp) && !(KP(resp = tn_at_mul_Tensor(ip, rp)) && KP(wpv = tn_at_view(wp, TN_IN(va, nd))) &&
                      (!FDEF(wt) || KP(wtv = tn_at_view(wt, TN_IN(va, nd))))))
        goto done;
    r = affine_jvp(resp, Py_NewRef(res), wpv, wtv, wt_zero, NULL, false);
done:
    fdrain(&P_);
    return r;
}

/* aminmax_jvp(self_p, self_t, result, dim?, keepdim): amaxamin_jvp over dim, or over every dim */
static PyObject *aminmax_jvp(PyObject *sp, PyObject *st, PyObject *result, PyObject *dim, bool keepdim) {
    int64_t dl[TN_MAX_DIMS];
    int nd = tdim(sp);
    for (int i = 0; i < nd; i++) dl[i] = i;
    PyObject *dims = dim == Py_None ? int_tuple(dl, nd) : PyTuple_Pack(1, dim);
    PyObject *r = dims ? amaxamin_jvp(sp, st, result, dims, keepdim) : NULL;
    Py_XDECREF(dims);
    return r;
}

/* linalg_det_jvp(dA, det, LU, pivots, use_A_T): tr(A^-1 dA) det, with the LU's zero pivots moved
 * to eps (det is C^1) */
static PyObject *linalg_det_jvp(PyObject *dA, PyObject *det, PyObject *LU, PyObject *piv, bool use_A_T) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *a, *b, *c;
    tn_dtype d = tn_tensor_of(LU)->dtype;
    double eps = d == TN_DTYPE_F64 || d == TN_DTYPE_C128 ? 2.220446049250313e-16 : 1.1920928955078125e-07;
    /* at::where(mask, eps, 0.): two double Scalars, so the default dtype */
    PyObject *dt = TN_DT(TN_DTYPE_F32);
    if (!(KP(a = tn_at_diagonal(LU, 0, -2, -1)) && KP(a = tn_at_eq_Scalar(a, TN_SD(0.0))) &&
          KP(b = tn_at_scalar_tensor(TN_SD(0.0), dt, NULL, NULL, NULL)) && KP(c = tn_at_scalar_tensor(TN_SD(eps), dt, NULL, NULL, NULL)) &&
          KP(a = tn_at_where_self(a, c, b)) && KP(a = tn_at_diag_embed(a, 0, -2, -1)) && KP(a = tn_at_add_Tensor(LU, a, TN_SDEF)) &&
          KP(a = tn_at_linalg_lu_solve(a, piv, dA, true, use_A_T)) && KP(a = tn_at_diagonal(a, 0, -2, -1)) &&
          KP(a = tn_at_sum_dim_IntList(a, TN_IS(-1), false, NULL))))
        goto done;
    r = tn_at_mul_Tensor(a, det);
done:
    fdrain(&P_);
    return r;
}

/* slogdet_jvp(LU, pivots, dA, sign, use_A_T) -> (sign_t, logabsdet_t) with tr = tr(A^-1 dA):
 * complex (imag(tr) * i sign, real(tr)); real (a ZeroTensor, tr). *sign_zero: the first is one */
static PyObject *slogdet_jvp(PyObject *LU, PyObject *piv, PyObject *dA, PyObject *sign, bool use_A_T) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *tr, *a, *b;
    if (!(KP(a = tn_at_linalg_lu_solve(LU, piv, dA, true, use_A_T)) && KP(a = tn_at_diagonal(a, 0, -2, -1)) &&
          KP(tr = tn_at_sum_dim_IntList(a, TN_IS(-1), false, NULL))))
        goto done;
    if (is_cplx(LU)) {
        PyObject *i;
        if (!(KP(i = PyComplex_FromDoubles(0.0, 1.0)) && KP(b = tn_at_mul_Scalar(sign, TN_SO(i))) && KP(a = tn_at_imag(tr)) &&
              KP(a = tn_at_mul_Tensor(a, b)) && KP(b = tn_at_real(tr))))
            goto done;
        r = PyTuple_Pack(2, a, b);
    } else if (KP(a = zeros_of(sign))) {
        r = PyTuple_Pack(2, a, tr);
    }
done:
    fdrain(&P_);
    return r;
}

/* linalg_solve_is_vector_rhs(input, other): other is a vector, or a batch of them */
static bool vector_rhs(PyObject *input, PyObject *other) {
    const tn_tensor *a = tn_tensor_of(input), *b = tn_tensor_of(other);
    if (b->ndim == 1) return true;
    if (a->ndim - 1 != b->ndim) return false;
    for (int i = 0; i < b->ndim; i++)
        if (a->sizes[i] != b->sizes[i]) return false;
    return true;
}

/* linalg_solve_jvp(dA, dB, X, LU, pivots, left): A^-1 (dB - dA X) (left) or (dB - X dA) A^-1 */
static PyObject *linalg_solve_jvp(PyObject *dA, PyObject *dB, PyObject *X, PyObject *LU, PyObject *piv, bool left) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *Xm = X, *dBm = dB, *R, *a;
    bool vec = vector_rhs(LU, X);
    if (vec && !(KP(Xm = tn_at_unsqueeze(X, -1)) && KP(dBm = tn_at_unsqueeze(dB, -1)))) goto done;
    if (!(KP(R = left ? tn_at_matmul(dA, Xm) : tn_at_matmul(Xm, dA)) && KP(a = tn_at_sub_Tensor(dBm, R, TN_SDEF)) &&
          KP(a = tn_at_linalg_lu_solve(LU, piv, a, left, false))))
        goto done;
    r = vec ? tn_at_squeeze_dim(a, -1) : Py_NewRef(a);
done:
    fdrain(&P_);
    return r;
}

/* generic_solve_jvp's right-hand side dB - dA X (X a vector or not, as dB) */
static PyObject *solve_rhs(fpool *p, PyObject *X, PyObject *dA, PyObject *dB) {
    PyObject *c;
    if (vector_rhs(dA, dB)) {
        PyObject *xu = fkeep(p, tn_at_unsqueeze(X, -1)), *m = xu ? fkeep(p, tn_at_matmul(dA, xu)) : NULL;
        c = m ? fkeep(p, tn_at_squeeze_dim(m, -1)) : NULL;
    } else {
        c = fkeep(p, tn_at_matmul(dA, X));
    }
    return c ? fkeep(p, tn_at_sub_Tensor(dB, c, TN_SDEF)) : NULL;
}

/* triangular_solve_jvp(X, A, dA, dB, upper, transpose, unitriangular) */
static PyObject *triangular_solve_jvp(PyObject *X, PyObject *A, PyObject *dA, PyObject *dB, bool upper, bool tr, bool unit) {
    fpool P_ = {{0}, 0};
    PyObject *rhs = solve_rhs(&P_, X, dA, dB), *s = rhs ? tn_at_triangular_solve(rhs, A, upper, tr, unit) : NULL, *r = NULL;
    if (s) r = Py_NewRef(PyTuple_GetItem(s, 0));
    Py_XDECREF(s);
    fdrain(&P_);
    return r;
}

/* cholesky_solve_jvp(X, U, dU, dB, upper): dA = dK + dK^H with dK = dU^H U (upper) or dU U^H */
static PyObject *cholesky_solve_jvp(PyObject *X, PyObject *U, PyObject *dU, PyObject *dB, bool upper) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *dK, *a, *rhs;
    if (upper) { if (!(KP(a = tn_at_mH(dU)) && KP(dK = tn_at_matmul(a, U)))) goto done; }
    else if (!(KP(a = tn_at_mH(U)) && KP(dK = tn_at_matmul(dU, a)))) goto done;
    if (!(KP(a = tn_at_mH(dK)) && KP(a = tn_at_add_Tensor(dK, a, TN_SDEF)) && (rhs = solve_rhs(&P_, X, a, dB)))) goto done;
    r = tn_at_cholesky_solve(rhs, U, upper);
done:
    fdrain(&P_);
    return r;
}

/* linalg_solve_triangular_forward_AD(A_t, B_t, A, X, upper, left, unitriangular):
 * A^-1 (B_t - A_t' X) with A_t' projected on A's triangle */
static PyObject *solve_triangular_jvp(PyObject *At, PyObject *Bt, PyObject *A, PyObject *X, bool upper, bool left, bool unit) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *p, *a;
    if (!(KP(p = upper ? tn_at_triu(At, unit) : tn_at_tril(At, -(int64_t)unit)) &&
          KP(a = left ? tn_at_matmul(p, X) : tn_at_matmul(X, p)) && KP(a = tn_at_sub_Tensor(Bt, a, TN_SDEF))))
        goto done;
    r = tn_at_linalg_solve_triangular(A, a, upper, left, unit);
done:
    fdrain(&P_);
    return r;
}

/* linalg_lu_solve_jvp(X, LU, pivots, dLU, dB, left, adjoint) */
static PyObject *lu_solve_jvp(PyObject *X, PyObject *LU, PyObject *piv, PyObject *dLU, PyObject *dB, bool left, bool adjoint) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *S, *R, *U, *a, *b;
    if (!KP(S = tn_at_linalg_lu_solve(LU, piv, dB, left, adjoint))) goto done;
    if (left != adjoint) {   /* R = -U^-1 (dU + L^-1 dL U); dX = op_2(R op_2(X)) + S */
        if (!(KP(a = tn_at_tril(dLU, -1)) && KP(R = tn_at_linalg_solve_triangular(LU, a, false, true, true)) &&
              KP(U = tn_at_triu(LU, 0)) && KP(a = tn_at_triu(dLU, 0)) && KP(b = tn_at_matmul(R, U)) &&
              KP(a = tn_at_add_Tensor(a, b, TN_SDEF)) && KP(a = tn_at_linalg_solve_triangular(U, a, true, true, false)) &&
              KP(R = tn_at_neg(a))))
            goto done;
        if (left) { if (!KP(a = tn_at_matmul(R, X))) goto done; }
        else if (!(KP(b = tn_at_mH(R)) && KP(a = tn_at_matmul(X, b)))) goto done;
    } else {   /* R = (L dU U^-1 + dL); dX = op_2((-op_3(X)^H P R L^-1 P^T)^H or itself) + S */
        PyObject *plu, *P, *L, *V;
        if (!KP(plu = tn_at_lu_unpack(LU, piv, true, true))) goto done;
        P = PyTuple_GetItem(plu, 0), L = PyTuple_GetItem(plu, 1), U = PyTuple_GetItem(plu, 2);
        if (!(KP(V = left ? tn_at_mH(X) : Py_NewRef(X)) && KP(a = tn_at_triu(dLU, 0)) && KP(a = tn_at_matmul(L, a)) &&
              KP(a = tn_at_linalg_solve_triangular(U, a, true, false, false)) && KP(b = tn_at_tril(dLU, -1)) &&
              KP(R = tn_at_add_Tensor(a, b, TN_SDEF)) && KP(a = tn_at_matmul(V, P)) && KP(a = tn_at_matmul(a, R)) &&
              KP(a = tn_at_neg(a)) && KP(a = tn_at_linalg_solve_triangular(L, a, false, false, true)) && KP(b = tn_at_mT(P)) &&
              KP(a = tn_at_matmul(a, b)) && (!left || KP(a = tn_at_mH(a)))))
            goto done;
    }
    r = tn_at_add_Tensor(a, S, TN_SDEF);
done:
    fdrain(&P_);
    return r;
}

/* linalg_eig_jvp(dA, L, V, is_hermitian) -> (dL, dV): dP = V^-1 dA V (V^H dA V hermitian), dL =
 * diag(dP), dX = V ((dP / E) with a zero diagonal), dV = dX - V Re(diag(V^H dX)) (dX hermitian) */
static PyObject *linalg_eig_jvp(PyObject *dA, PyObject *L, PyObject *V, bool herm) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *dP, *dL, *dV, *a, *b;
    if (herm) {
        if (!(KP(a = tn_at_mH(V)) && KP(a = tn_at_matmul(a, dA)) && KP(dP = tn_at_matmul(a, V)))) goto done;
    } else {
        tn_dtype d = tn_tensor_of(dA)->dtype;
        tn_dtype cd = d == TN_DTYPE_F64 ? TN_DTYPE_C128 : d == TN_DTYPE_F32 ? TN_DTYPE_C64 : d;
        PyObject *dt = TN_DT(cd);
        if (!(KP(a = tn_at_to_dtype(dA, dt, false, false, NULL)) && KP(a = tn_at_matmul(a, V)) &&
              KP(dP = tn_at_linalg_solve(V, a, true))))
            goto done;
    }
    if (!KP(dL = tn_at_diagonal(dP, 0, -2, -1))) goto done;
    if (herm && is_cplx(dA) && !KP(dL = tn_at_real(dL))) goto done;
    if (!(KP(a = tn_at_unsqueeze(L, -2)) && KP(b = tn_at_unsqueeze(L, -1)) && KP(a = tn_at_sub_Tensor(a, b, TN_SDEF)) &&
          KP(a = tn_at_div_Tensor(dP, a)) && KP(b = tn_at_diagonal(a, 0, -2, -1)) && KP(b = tn_at_zero_(b)) &&
          KP(dV = tn_at_matmul(V, a))))
        goto done;
    if (!herm && !(KP(a = tn_at_mH(V)) && KP(a = tn_at_matmul(a, dV)) && KP(a = tn_at_diagonal(a, 0, -2, -1)) &&
                   KP(a = tn_at_real(a)) && KP(a = tn_at_unsqueeze(a, -2)) && KP(a = tn_at_mul_Tensor(V, a)) &&
                   KP(dV = tn_at_sub_Tensor(dV, a, TN_SDEF))))
        goto done;
    r = PyTuple_Pack(2, dL, dV);
done:
    fdrain(&P_);
    return r;
}

/* linalg_svd_jvp(dA, U, S, Vh, full_matrices) -> (dU, dS, dVh); svd_backward's derivation */
static PyObject *linalg_svd_jvp(PyObject *dA, PyObject *U_, PyObject *S, PyObject *Vh_, bool full) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *U = U_, *Vh = Vh_, *V, *UH, *dP, *dS, *E, *d2S = NULL, *dU, *dVh, *a, *b, *c;
    bool cplx = is_cplx(dA);
    const tn_tensor *t = tn_tensor_of(dA);
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1], k = tn_tensor_of(S)->sizes[tn_tensor_of(S)->ndim - 1];
    if (full && !(KP(U = tn_at_narrow(U_, -1, 0, k)) && KP(Vh = tn_at_narrow(Vh_, -2, 0, k)))) goto done;
    if (!(KP(V = tn_at_mH(Vh)) && KP(UH = tn_at_mH(U)))) goto done;
    if (m < n) { if (!(KP(a = tn_at_matmul(dA, V)) && KP(dP = tn_at_matmul(UH, a)))) goto done; }
    else if (!(KP(a = tn_at_matmul(UH, dA)) && KP(dP = tn_at_matmul(a, V)))) goto done;
    if (!(KP(dS = tn_at_diagonal(dP, 0, -2, -1)) && (!cplx || KP(dS = tn_at_real(dS))) && KP(a = tn_at_diag_embed(dS, 0, -2, -1)) &&
          KP(dP = tn_at_sub_Tensor(dP, a, TN_SDEF))))
        goto done;
    /* E_jk = S_k^2 - S_j^2, 1 on the diagonal */
    if (!(KP(a = tn_at_mul_Tensor(S, S)) && KP(b = tn_at_unsqueeze(a, -2)) && KP(c = tn_at_unsqueeze(a, -1)) &&
          KP(E = tn_at_sub_Tensor(b, c, TN_SDEF)) && KP(a = tn_at_diagonal(E, 0, -2, -1)) && KP(a = tn_at_fill__Scalar(a, TN_SI(1)))))
        goto done;
    if (cplx && !(KP(a = tn_at_diagonal(dP, 0, -2, -1)) && KP(b = tn_at_mul_Scalar(S, TN_SD(2.0))) && KP(d2S = tn_at_div_Tensor(a, b))))
        goto done;
    /* dU = U (sym(dP S) / E [+ diag(dP) / 2S]) */
    if (!(KP(a = tn_at_unsqueeze(S, -2)) && KP(a = tn_at_mul_Tensor(dP, a)) && KP(b = tn_at_mH(a)) &&
          KP(a = tn_at_add_Tensor(a, b, TN_SDEF)) && KP(a = tn_at_div_Tensor(a, E))))
        goto done;
    if (cplx && !(KP(b = tn_at_diag_embed(d2S, 0, -2, -1)) && KP(a = tn_at_add_Tensor(a, b, TN_SDEF)))) goto done;
    if (!KP(dU = tn_at_matmul(U, a))) goto done;
    if (m > n) {   /* dU += (I - U U^H) dA V S^-1 */
        if (!(KP(a = tn_at_unsqueeze(S, -2)) && KP(a = tn_at_div_Tensor(V, a)) && KP(a = tn_at_matmul(dA, a)) &&
              KP(dU = tn_at_add_Tensor(dU, a, TN_SDEF)) && KP(b = tn_at_matmul(UH, a)) && KP(b = tn_at_matmul(U, b)) &&
              KP(dU = tn_at_sub_Tensor(dU, b, TN_SDEF))))
            goto done;
        if (full) {
            const tn_tensor *u = tn_tensor_of(dU);
            int64_t sh[TN_MAX_DIMS];
            for (int i = 0; i < u->ndim; i++) sh[i] = u->sizes[i];
            sh[u->ndim - 1] = m - n;
            if (!(KP(a = tn_at_new_zeros(dU, TN_IN(sh, u->ndim), NULL, NULL, NULL, NULL)) && KP(dU = tn_at_cat(TN_TS(dU, a), -1))))
                goto done;
        }
    }
    /* dVh = (sym(dP (-S)) / E [+ diag(dP) / 2S]) Vh */
    if (!(KP(a = tn_at_neg(S)) && KP(a = tn_at_unsqueeze(a, -1)) && KP(a = tn_at_mul_Tensor(dP, a)) && KP(b = tn_at_mH(a)) &&
          KP(a = tn_at_add_Tensor(a, b, TN_SDEF)) && KP(a = tn_at_div_Tensor(a, E))))
        goto done;
    if (cplx && !(KP(b = tn_at_diag_embed(d2S, 0, -2, -1)) && KP(a = tn_at_add_Tensor(a, b, TN_SDEF)))) goto done;
    if (!KP(dVh = tn_at_matmul(a, Vh))) goto done;
    if (m < n) {   /* dVh += S^-1 U^H dA (I - V V^H) */
        if (!(KP(a = tn_at_unsqueeze(S, -1)) && KP(a = tn_at_div_Tensor(UH, a)) && KP(a = tn_at_matmul(a, dA)) &&
              KP(dVh = tn_at_add_Tensor(dVh, a, TN_SDEF)) && KP(b = tn_at_matmul(a, V)) && KP(b = tn_at_matmul(b, Vh)) &&
              KP(dVh = tn_at_sub_Tensor(dVh, b, TN_SDEF))))
            goto done;
        if (full) {
            const tn_tensor *v = tn_tensor_of(dVh);
            int64_t sh[TN_MAX_DIMS];
            for (int i = 0; i < v->ndim; i++) sh[i] = v->sizes[i];
            sh[v->ndim - 2] = n - m;
            if (!(KP(a = tn_at_new_zeros(dVh, TN_IN(sh, v->ndim), NULL, NULL, NULL, NULL)) && KP(dVh = tn_at_cat(TN_TS(dVh, a), -2))))
                goto done;
        }
    }
    r = PyTuple_Pack(3, dU, dS, dVh);
done:
    fdrain(&P_);
    return r;
}

/* linalg_qr_jvp(dA, Q, R, mode) -> (dQ, dR) */
static PyObject *linalg_qr_jvp(PyObject *dA, PyObject *Q, PyObject *R, const char *mode) {
    fpool P_ = {{0}, 0};
    PyObject *r = NULL, *dQ, *dR, *a, *b;
    if (!strcmp(mode, "r")) {
        PyErr_SetString(PyExc_RuntimeError, "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                                            "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr.");
        return NULL;
    }
    const tn_tensor *t = tn_tensor_of(dA);
    int64_t m = t->sizes[t->ndim - 2], n = t->sizes[t->ndim - 1];
    if (!strcmp(mode, "complete") && m > n) {
        PyErr_SetString(PyExc_RuntimeError, "The QR decomposition is not differentiable when mode='complete' and nrows > ncols.");
        return NULL;
    }
    if (m >= n) {   /* dR = syminv(sym(Q^H dA R^-1)) R, dQ = dA R^-1 - Q syminv(..) */
        PyObject *dARinv;
        if (!(KP(dARinv = tn_at_linalg_solve_triangular(R, dA, true, false, false)) && KP(a = tn_at_mH(Q)) &&
              KP(a = tn_at_matmul(a, dARinv)) && KP(b = tn_at_mH(a)) && KP(a = tn_at_add_Tensor(a, b, TN_SDEF)) &&
              KP(dR = tn_at_triu(a, 0)) && KP(a = tn_at_diagonal(dR, 0, -2, -1)) && KP(a = tn_at_mul__Scalar(a, TN_SD(0.5))) &&
              KP(a = tn_at_matmul(Q, dR)) && KP(dQ = tn_at_sub_Tensor(dARinv, a, TN_SDEF)) && KP(dR = tn_at_matmul(dR, R))))
            goto done;
    } else {   /* dQ = Q triliminv(trilim(Q^H dA_1 R_1^-1)), dR = Q^H dA - dQ' R */
        PyObject *QHdA, *X;
        if (!(KP(a = tn_at_mH(Q)) && KP(QHdA = tn_at_matmul(a, dA)) && KP(a = tn_at_narrow(R, -1, 0, m)) &&
              KP(b = tn_at_narrow(QHdA, -1, 0, m)) && KP(X = tn_at_linalg_solve_triangular(a, b, true, false, false))))
            goto done;
        if (is_cplx(X)) {
            if (!(KP(X = tn_at_tril(X, 0)) && KP(a = tn_at_diagonal(X, 0, -2, -1)) && KP(a = tn_at_real(a)) && KP(a = tn_at_zero_(a)) &&
                  KP(a = tn_at_mH(X)) && KP(dQ = tn_at_sub_Tensor(X, a, TN_SDEF)) && KP(a = tn_at_diagonal(dQ, 0, -2, -1)) &&
                  KP(a = tn_at_mul__Scalar(a, TN_SD(0.5)))))
                goto done;
        } else if (!(KP(X = tn_at_tril(X, -1)) && KP(a = tn_at_mT(X)) && KP(dQ = tn_at_sub_Tensor(X, a, TN_SDEF)))) {
            goto done;
        }
        if (!(KP(a = tn_at_matmul(dQ, R)) && KP(dR = tn_at_sub_Tensor(QHdA, a, TN_SDEF)) && KP(dQ = tn_at_matmul(Q, dQ)))) goto done;
    }
    r = PyTuple_Pack(2, dQ, dR);
done:
    fdrain(&P_);
    return r;
}
#undef KP

/* ---- the evaluator ---- */

static void skip_ws(const char **p) { while (**p == ' ') (*p)++; }

static int read_atom(const char **p, char *buf, int n) {
    skip_ws(p);
    int k = 0;
    while (**p && **p != ' ' && **p != ')' && **p != '(') {
        if (k < n - 1) buf[k++] = **p;
        (*p)++;
    }
    buf[k] = 0;
    return k;
}

static void skip_expr(const char **p) {
    skip_ws(p);
    if (**p != '(') { char b[64]; read_atom(p, b, sizeof b); return; }
    int depth = 0;
    do {
        if (**p == '(') depth++;
        else if (**p == ')') depth--;
        (*p)++;
    } while (**p && depth > 0);
}

static int eval(fctx *c, const char **p, fv *out);

/* evaluate arguments up to the closing paren */
static int eval_args(fctx *c, const char **p, fv *argv, int max, int *n) {
    *n = 0;
    for (;;) {
        skip_ws(p);
        if (**p == ')') { (*p)++; return 0; }
        if (!**p || *n >= max) { PyErr_SetString(PyExc_RuntimeError, "torchnative: malformed forward formula"); return -1; }
        if (eval(c, p, &argv[*n]) < 0) return -1;
        (*n)++;
    }
}

static void release(fv *a, int n) { for (int i = 0; i < n; i++) Py_CLEAR(a[i].o); }

static int truthy(PyObject *o) {
    if (o == Py_None) return 0;
    return PyObject_IsTrue(o);
}

/* binary arithmetic with ZeroTensor rules */
static PyObject *arith(const char *op, fv a, fv b, PyObject *alpha, bool *zero) {
    *zero = false;
    bool ta = is_tensor(a.o), tb = is_tensor(b.o);
    if (!ta && !tb && is_number(a.o) && is_number(b.o)) {
        bool ints = PyLong_Check(a.o) && PyLong_Check(b.o) && strcmp(op, "div");
        if (ints) {
            long long x = PyLong_AsLongLong(a.o), y = PyLong_AsLongLong(b.o);
            return PyLong_FromLongLong(!strcmp(op, "add") ? x + y : !strcmp(op, "sub") ? x - y : x * y);
        }
        double x = PyFloat_AsDouble(a.o), y = PyFloat_AsDouble(b.o);
        return PyFloat_FromDouble(!strcmp(op, "add") ? x + y : !strcmp(op, "sub") ? x - y : !strcmp(op, "mul") ? x * y : x / y);
    }
    /* Scalar op Tensor: C++ commutes + and *, fills a tensor for - and / */
    PyObject *r = alpha ? callv(op, "(OOO)", a.o, b.o, alpha) : callv(op, "(OO)", a.o, b.o);
    if (!r) return NULL;
    bool za = a.zero && ta, zb = b.zero && tb;
    if (!za && !zb) return r;
    if (!strcmp(op, "mul")) { *zero = true; return zeroed(r); }
    if (!strcmp(op, "div")) {
        if (za && !zb) { *zero = true; return zeroed(r); }
        PyObject *f = callv("fill_", "(Od)", r, za && zb ? NAN : INFINITY);
        Py_DECREF(r);
        return f;
    }
    /* add / sub: the other operand (times +-alpha), broadcast and cast into the result */
    if (za && zb) { *zero = true; return zeroed(r); }
    PyObject *src;
    if (za) {
        double s = alpha ? PyFloat_AsDouble(alpha) : 1.0;
        if (!strcmp(op, "sub")) s = -s;
        src = s == 1.0 ? Py_NewRef(b.o) : (alpha && !strcmp(op, "add") ? callv("mul", "(OO)", b.o, alpha)
                                                                       : callv("mul", "(Od)", b.o, s));
    } else {
        src = Py_NewRef(a.o);
    }
    PyObject *cp = src ? callv("copy_", "(OO)", r, src) : NULL;
    Py_XDECREF(src);
    Py_DECREF(r);
    return cp;
}

static const char *binop_name(const char *op) {
    static const char *map[][2] = {{"+", "add"}, {"-", "sub"}, {"*", "mul"}, {"/", "div"}, {"<", "lt"}, {"<=", "le"},
                                   {">", "gt"}, {">=", "ge"}, {"==", "eq"}, {"!=", "ne"}, {"&", "bitwise_and"}};
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(map[i][0], op)) return map[i][1];
    return NULL;
}


/* function/method call: helpers first, then aten by name. argv[0] is the receiver of a method. */
static int call_fn(const char *name, bool method, fv *argv, int n, fv *out) {
    out->zero = false;
    out->o = NULL;
    PyObject *a0 = n > 0 ? argv[0].o : NULL;
#define ARGN(k) (n > (k) ? argv[k].o : Py_None)
    if (!strcmp(name, "conj") && n == 1 && is_tensor(a0) && !tn_dtype_is_complex(tn_tensor_of(a0)->dtype)) {
        out->o = Py_NewRef(a0);
        out->zero = argv[0].zero;
        return 0;
    }
    if (!strcmp(name, "defined")) { out->o = PyBool_FromLong(a0 && a0 != Py_None); return 0; }
    if (!strcmp(name, "has_value")) { out->o = PyBool_FromLong(a0 && a0 != Py_None); return 0; }
    if (!strcmp(name, "value_or")) { out->o = Py_NewRef(a0 != Py_None ? a0 : ARGN(1)); return 0; }
    if (!strcmp(name, "GradMode_is_enabled")) { out->o = PyBool_FromLong(tn_grad_enabled()); return 0; }
    if (!strcmp(name, "options") && is_tensor(a0)) { out->o = Py_NewRef(a0); return 0; }
    if (!strcmp(name, "scalar_type") && is_tensor(a0)) { out->o = tensor_dtype_obj(a0); return out->o ? 0 : -1; }
    if (!strcmp(name, "is_complex") && is_tensor(a0)) {
        out->o = PyBool_FromLong(tn_dtype_is_complex(tn_tensor_of(a0)->dtype));
        return 0;
    }
    if (!strcmp(name, "sizes") && is_tensor(a0)) { out->o = tn_py_size_new(tdim(a0), tn_tensor_of(a0)->sizes); return out->o ? 0 : -1; }
    if ((!strcmp(name, "toDouble") || !strcmp(name, "IntArrayRef")) && n == 1) { out->o = Py_NewRef(a0); return 0; }
    if (!method && n == 1 && is_number(a0) && (!strcmp(name, "sqrt") || !strcmp(name, "exp") || !strcmp(name, "log"))) {
        double x = PyFloat_AsDouble(a0);
        out->o = PyFloat_FromDouble(!strcmp(name, "sqrt") ? sqrt(x) : !strcmp(name, "exp") ? exp(x) : log(x));
        return 0;
    }
    if (!strcmp(name, "maybe_multiply") && n == 2) {
        if (scalar_is_one(argv[1].o)) { out->o = Py_NewRef(a0); out->zero = argv[0].zero; return 0; }
        fv s = {argv[1].o, false};
        out->o = arith("mul", argv[0], s, NULL, &out->zero);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "handle_r_to_c") && n == 2) {
        tn_dtype d;
        if (tn_py_to_dtype(a0, &d) < 0) return -1;
        PyObject *g = argv[1].o;
        if (!tn_dtype_is_complex(d) && is_tensor(g) && tn_dtype_is_complex(tn_tensor_of(g)->dtype))
            out->o = callv("real", "(O)", g);
        else { out->o = Py_NewRef(g); out->zero = argv[1].zero; }
        return out->o ? 0 : -1;
    }
    if ((!strcmp(name, "mul") || !strcmp(name, "div")) && n == 2 && !(method && !is_tensor(a0))) {
        out->o = arith(name, argv[0], argv[1], NULL, &out->zero);
        return out->o ? 0 : -1;
    }
    if ((!strcmp(name, "add") || !strcmp(name, "sub")) && (n == 2 || n == 3)) {
        out->o = arith(name, argv[0], argv[1], n == 3 ? argv[2].o : NULL, &out->zero);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "logsumexp_jvp") && n == 4) {
        PyObject *dl = intlist(argv[2].o);
        out->o = dl ? logsumexp_jvp(a0, argv[1].o, dl, truthy(argv[3].o)) : NULL;
        Py_XDECREF(dl);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "amaxamin_jvp") && n == 5) {
        out->o = amaxamin_jvp(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "layer_norm_jvp") && n == 9) {
        out->o = layer_norm_jvp(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, argv[5].o, argv[6].o, argv[7].o, argv[8].o);
        return out->o ? 0 : -1;
    }
    if ((!strcmp(name, "cat_jvp") || !strcmp(name, "stack_jvp")) && n == 2) {
        out->o = list_jvp(name[0] == 'c' ? "cat" : "stack", a0, argv[1].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "block_diag_jvp") && n == 1) {
        out->o = list_jvp("block_diag", a0, NULL);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "gather_with_keepdimed_indices") && n == 4) {
        out->o = gather_keepdim(a0, argv[1].o, argv[2].o, truthy(argv[3].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "infinitely_differentiable_silu_backward") && n == 2) {
        out->o = inf_silu_backward(a0, argv[1].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "linalg_matrix_exp_differential") && n == 3 && is_tensor(argv[1].o)) {
        out->o = tn_matrix_exp_differential(a0, argv[1].o, truthy(argv[2].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "prod_backward") && (n == 3 || n == 5) && is_tensor(argv[1].o) && is_tensor(argv[2].o)) {
        bool has_dim = n == 5;   /* prod_backward(grad, input, result[, dim, keepdim]) */
        out->o = has_dim ? tn_bw_prod_backward_dim(a0, argv[1].o, argv[2].o, PyLong_AsLongLong(argv[3].o), truthy(argv[4].o))
                         : tn_bw_prod_backward(a0, argv[1].o, argv[2].o);
        return out->o ? 0 : -1;
    }
    /* the linear-algebra jvps of FunctionsManual written in formulas.c (docs/breadth_more2.md) */
    if (!strcmp(name, "pinv_jvp") && n == 3) {
        out->o = tn_pinv_jvp(a0, argv[1].o, argv[2].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "linalg_lstsq_solution_jvp") && n == 4) {
        out->o = tn_lstsq_solution_jvp(a0, argv[1].o, argv[2].o, argv[3].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "linalg_lstsq_residuals_jvp") && n == 6) {
        out->o = tn_lstsq_residuals_jvp(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, argv[5].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "householder_product_jvp") && n == 5) {
        out->o = tn_householder_product_jvp(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "angle_backward") && n == 2 && is_tensor(argv[1].o)) {
        out->o = angle_backward(a0, argv[1].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "pow_backward") && n == 3 && !is_tensor(argv[2].o)) {
        out->o = pow_backward(a0, argv[1].o, argv[2].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "apply_loss_reduction") && n == 2) {   /* Reduction::Mean 1, Sum 2, None 0 */
        long red = PyLong_AsLong(argv[1].o);
        out->o = red == 1 ? callv("mean", "(O)", a0) : red == 2 ? callv("sum", "(O)", a0) : Py_NewRef(a0);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "tuple_get") && n == 2 && PyTuple_Check(argv[1].o)) {   /* std::get<k>(tuple) */
        PyObject *e = PyTuple_GetItem(argv[1].o, PyLong_AsSsize_t(a0));
        if (!e) return -1;
        out->o = Py_NewRef(e);
        return 0;
    }
    if (!strcmp(name, "real") && n == 1 && is_tensor(a0) && !tn_dtype_is_complex(tn_tensor_of(a0)->dtype)) {
        out->o = Py_NewRef(a0);
        out->zero = argv[0].zero;
        return 0;
    }
    if (!strcmp(name, "linalg_vector_norm_jvp") && n == 6) {
        PyObject *dims = argv[4].o == Py_None ? PyTuple_New(0) : Py_NewRef(argv[4].o);
        out->o = dims ? norm_jvp(a0, argv[1].o, argv[2].o, argv[3].o, dims, truthy(argv[5].o)) : NULL;
        Py_XDECREF(dims);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "norm_jvp") && (n == 4 || n == 6)) {
        PyObject *dims = n == 6 ? Py_NewRef(argv[4].o) : PyTuple_New(0);
        /* the 4-argument form is norm_jvp(self_p, self_t, p, norm, {}, keepdim=true): a tangent of
         * shape (1, .., 1), which setting on the 0-dim result refuses, as upstream's does */
        out->o = dims ? norm_jvp(a0, argv[1].o, argv[2].o, argv[3].o, dims, n == 4 || truthy(argv[5].o)) : NULL;
        Py_XDECREF(dims);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "var_backward") && n == 5) {
        out->o = var_backward(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "log1p_backward") && n == 2) {   /* grad / (self + 1) */
        PyObject *p1 = callv("add", "(Oi)", argv[1].o, 1);
        out->o = p1 ? callv("div", "(OO)", a0, p1) : NULL;
        Py_XDECREF(p1);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "clamp_jvp") && n == 6) {
        out->o = clamp_jvp(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, argv[5].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "evenly_read_jvp") && n == 3) {
        out->o = evenly_read_jvp(a0, argv[1].o, argv[2].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "clamp_backward") && n == 4) {
        out->o = clamp_backward(a0, argv[1].o, argv[2].o, argv[3].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "pow_backward_self") && n == 3) {
        out->o = pow_backward_self(a0, argv[1].o, argv[2].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "pow_backward_exponent") && n == 4) {
        out->o = pow_backward_exponent(a0, argv[1].o, argv[2].o, argv[3].o);
        return out->o ? 0 : -1;
    }
    /* factories given another tensor's options (its dtype): scalar_tensor, zeros, ones, empty,
     * arange(start, end, step, options); _efficientzerotensor is zeros flagged as a ZeroTensor */
    bool ezt = !strcmp(name, "_efficientzerotensor");
    if ((!strcmp(name, "scalar_tensor") || !strcmp(name, "zeros") || !strcmp(name, "ones") || !strcmp(name, "empty") || ezt ||
         (!strcmp(name, "arange") && n == 4)) && (n == 2 || n == 4) && is_tensor(argv[n - 1].o)) {
        PyObject *dt = tensor_dtype_obj(argv[n - 1].o);
        PyObject *kw = dt ? Py_BuildValue("{sN}", "dtype", dt) : NULL;
        PyObject *a = kw ? PyTuple_New(n - 1) : NULL;
        for (int i = 0; a && i < n - 1; i++) PyTuple_SetItem(a, i, Py_NewRef(argv[i].o));
        out->o = a ? call_name_kw(ezt ? "zeros" : name, a, kw) : NULL;
        out->zero = ezt;
        Py_XDECREF(a);
        Py_XDECREF(kw);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "value") && method && n == 1) { out->o = Py_NewRef(a0); return 0; }   /* optional.value() */
    if (!strcmp(name, "toFloat") && n == 1 && is_number(a0)) {   /* Scalar::toFloat: rounded to float */
        double x = PyFloat_AsDouble(a0);
        out->o = PyFloat_FromDouble((double)(float)x);
        return out->o ? 0 : -1;
    }
    /* FunctionsManual helpers the backward formulas share (bw_helpers.h, bw_helpers.c) */
    if (!strcmp(name, "copysign_tensor_self_backward") && n == 3) {
        out->o = tn_bw_copysign_tensor_self_backward(a0, argv[1].o, argv[2].o);
        return out->o ? 0 : -1;
    }
    if ((!strcmp(name, "rad2deg_backward") || !strcmp(name, "deg2rad_backward")) && n == 1) {
        out->o = name[0] == 'r' ? tn_bw_rad2deg_backward(a0) : tn_bw_deg2rad_backward(a0);
        return out->o ? 0 : -1;
    }
    if ((!strcmp(name, "i1_backward") || !strcmp(name, "i1e_backward")) && n == 3) {
        out->o = name[2] == 'e' ? tn_bw_i1e_backward(a0, argv[1].o, argv[2].o) : tn_bw_i1_backward(a0, argv[1].o, argv[2].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "foreach_elem_") && n == 2) {   /* list[i] in a foreach formula */
        PyObject *e = PySequence_GetItem(a0, PyLong_AsSsize_t(argv[1].o));
        if (!e) return -1;
        out->o = e;
        return 0;
    }
    if (!strcmp(name, "cholesky_jvp") && n == 3) {
        out->o = cholesky_jvp(a0, argv[1].o, truthy(argv[2].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "cholesky_inverse_jvp") && n == 4) {
        out->o = cholesky_inverse_jvp(a0, argv[1].o, argv[2].o, truthy(argv[3].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "linalg_lu_jvp") && n == 5) {
        out->o = linalg_lu_jvp(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "lu_factor_ex_jvp") && n == 4) {
        out->o = lu_factor_ex_jvp(a0, argv[1].o, argv[2].o, truthy(argv[3].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "glu_jvp") && n == 4) {
        out->o = glu_jvp(a0, argv[1].o, argv[2].o, PyLong_AsLongLong(argv[3].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "Tensor") && n == 0) { out->o = Py_NewRef(Py_None); return 0; }   /* an undefined Tensor() */
#define UNDEF(k) (argv[k].o == Py_None ? NULL : argv[k].o)
    if (!strcmp(name, "batch_norm_jvp") && n == 12) {
        double eps = PyFloat_AsDouble(argv[11].o);
        if (eps == -1.0 && PyErr_Occurred()) return -1;
        out->o = batch_norm_jvp(a0, argv[1].o, UNDEF(2), UNDEF(3), argv[3].zero, UNDEF(5), argv[5].zero, UNDEF(6), UNDEF(7),
                                argv[8].o, argv[9].o, truthy(argv[10].o), eps);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "group_norm_jvp") && n == 9) {
        out->o = group_norm_jvp(a0, argv[1].o, UNDEF(2), UNDEF(3), argv[3].zero, UNDEF(5), argv[5].zero, argv[6].o,
                                argv[7].o, PyLong_AsLongLong(argv[8].o));
        return out->o ? 0 : -1;
    }
#undef UNDEF
    if (!strcmp(name, "convolution_backward_jvp_grad_bias") && n == 2) {
        out->o = conv_bw_jvp_grad_bias(a0, argv[1].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "group_norm_mean_jvp") && n == 3) {
        out->o = group_norm_stat_jvp(NULL, a0, argv[1].o, NULL, PyLong_AsLongLong(argv[2].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "group_norm_invstd_jvp") && n == 5) {
        out->o = group_norm_stat_jvp(a0, argv[1].o, argv[2].o, argv[3].o, PyLong_AsLongLong(argv[4].o));
        return out->o ? 0 : -1;
    }
    if ((!strcmp(name, "convolution_jvp") && n == 12) || (!strcmp(name, "_convolution_jvp") && n == 16)) {
        out->o = convolution_jvp(name[0] == '_' ? "_convolution" : "convolution", argv, n);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "safe_logsumexp_jvp") && n == 4) {
        PyObject *dl = intlist(argv[2].o);
        out->o = dl ? safe_logsumexp_jvp(a0, argv[1].o, dl, truthy(argv[3].o)) : NULL;
        Py_XDECREF(dl);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "scatter_reduce_jvp") && n == 9) {
        out->o = scatter_reduce_jvp(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, argv[5].o, argv[6].o, argv[7].o, argv[8].o);
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "cumprod_jvp") && n == 4) {
        out->o = cumprod_jvp(a0, argv[1].o, argv[2].o, PyLong_AsLongLong(argv[3].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "logcumsumexp_jvp") && n == 3) {
        out->o = logcumsumexp_jvp(a0, argv[1].o, PyLong_AsLongLong(argv[2].o));
        return out->o ? 0 : -1;
    }
    if (!strcmp(name, "renorm_jvp") && n == 5) {
        out->o = renorm_jvp(a0, argv[1].o, argv[2].o, PyLong_AsLongLong(argv[3].o), argv[4].o);
        return out->o ? 0 : -1;
    }
    /* helper-fwlin: the losses, rms_norm, aminmax and the linear-algebra jvps */
#define RET_(e) do { out->o = (e); return out->o ? 0 : -1; } while (0)
#define OPT(k) (argv[k].o == Py_None ? NULL : argv[k].o)
    if (!strcmp(name, "is_contiguous") && method && n == 1 && is_tensor(a0)) {
        out->o = PyBool_FromLong(tn_is_contiguous(tn_tensor_of(a0)));
        return 0;
    }
    if (!strcmp(name, "binary_cross_entropy_target_backward") && n == 5)
        RET_(tn_bw_bce_target_backward(a0, argv[1].o, argv[2].o, argv[3].o, PyLong_AsLongLong(argv[4].o)));
    if (!strcmp(name, "binary_cross_entropy_double_backward") && n == 6)
        RET_(tn_bw_bce_double_backward(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, PyLong_AsLongLong(argv[5].o)));
    if (!strcmp(name, "binary_cross_entropy_double_backward_grad_output") && n == 5)
        RET_(tn_bw_bce_double_backward(NULL, a0, argv[1].o, argv[2].o, argv[3].o, PyLong_AsLongLong(argv[4].o)));
    if (!strcmp(name, "binary_cross_entropy_double_backward_target") && n == 6)
        RET_(tn_bw_bce_double_backward_target(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, PyLong_AsLongLong(argv[5].o)));
    if ((!strcmp(name, "binary_cross_entropy_with_logits_backward") ||
         !strcmp(name, "binary_cross_entropy_with_logits_target_backward")) && n == 6) {
        bool tgt = strstr(name, "target") != NULL;
        if (argv[0].zero) {   /* a ZeroTensor grad: a ZeroTensor of input's (target's) shape */
            out->zero = true;
            RET_(zeros_of(tgt ? argv[2].o : argv[1].o));
        }
        long long red = PyLong_AsLongLong(argv[5].o);
        RET_(tgt ? tn_bw_bce_logits_target_backward(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, red)
                 : tn_bw_bce_logits_backward(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, red));
    }
    if (!strcmp(name, "rms_norm_jvp") && n == 6)
        RET_(rms_norm_jvp(a0, argv[1].o, argv[1].zero, OPT(2), OPT(3), argv[3].zero, argv[4].o, argv[5].o, false));
    if (!strcmp(name, "rms_norm_rstd_jvp") && n == 4)
        RET_(rms_norm_jvp(a0, argv[1].o, argv[1].zero, NULL, NULL, false, argv[2].o, argv[3].o, true));
    if (!strcmp(name, "glu_backward_jvp") && n == 6)
        RET_(glu_backward_jvp(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, PyLong_AsLongLong(argv[5].o)));
    if (!strcmp(name, "aminmax_jvp") && n == 5) RET_(aminmax_jvp(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o)));
    if (!strcmp(name, "linalg_det_jvp") && n == 5) RET_(linalg_det_jvp(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o)));
    if (!strcmp(name, "slogdet_jvp") && n == 5) RET_(slogdet_jvp(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o)));
    if (!strcmp(name, "linalg_solve_jvp") && n == 6)
        RET_(linalg_solve_jvp(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, truthy(argv[5].o)));
    if (!strcmp(name, "cholesky_solve_jvp") && n == 5)
        RET_(cholesky_solve_jvp(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o)));
    if (!strcmp(name, "linalg_lu_solve_jvp") && n == 7)
        RET_(lu_solve_jvp(a0, argv[1].o, argv[2].o, argv[3].o, argv[4].o, truthy(argv[5].o), truthy(argv[6].o)));
    if (!strcmp(name, "triangular_solve_jvp") && n == 7)
        RET_(triangular_solve_jvp(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o), truthy(argv[5].o), truthy(argv[6].o)));
    if (!strcmp(name, "linalg_solve_triangular_forward_AD") && n == 7)
        RET_(solve_triangular_jvp(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o), truthy(argv[5].o), truthy(argv[6].o)));
    if (!strcmp(name, "linalg_svd_jvp") && n == 5) RET_(linalg_svd_jvp(a0, argv[1].o, argv[2].o, argv[3].o, truthy(argv[4].o)));
    if (!strcmp(name, "linalg_eig_jvp") && n == 4) RET_(linalg_eig_jvp(a0, argv[1].o, argv[2].o, truthy(argv[3].o)));
    if (!strcmp(name, "linalg_qr_jvp") && n == 4 && PyUnicode_Check(argv[3].o)) {
        const char *mode = PyUnicode_AsUTF8AndSize(argv[3].o, NULL);
        RET_(mode ? linalg_qr_jvp(a0, argv[1].o, argv[2].o, mode) : NULL);
    }
#undef OPT
#undef RET_
    /* a function name upstream's FunctionsManual defines that we have not written yet */
    static const char *const manual_suffix[] = {"_jvp", NULL};
    size_t ln = strlen(name);
    for (int i = 0; manual_suffix[i]; i++) {
        size_t ls = strlen(manual_suffix[i]);
        if (ln > ls && !strcmp(name + ln - ls, manual_suffix[i])) {
            char what[200];
            snprintf(what, sizeof what, "the forward AD helper %s", name);
            tn_not_implemented(what);
            return -1;
        }
    }
    PyObject *args = PyTuple_New(n);
    if (!args) return -1;
    for (int i = 0; i < n; i++) PyTuple_SetItem(args, i, Py_NewRef(argv[i].o));
    out->o = call_name(name, args);
    Py_DECREF(args);
    if (out->o && (!strcmp(name, "view") || !strcmp(name, "_reshape_alias")) && argv[0].zero) out->zero = true;
    return out->o ? 0 : -1;
#undef ARGN
}

/* (with k name1 .. namek e1 .. ek body): an inlined FunctionsManual helper's parameters or one of
 * its statements. The values are evaluated first, then bound (shadowing the formula's names) while
 * body runs, then the previous bindings come back. */
static int bind(fctx *c, const char *name, PyObject *v, bool zero);
static int eval_with(fctx *c, const char **p, fv *out) {
    char buf[16], names[8][64];
    read_atom(p, buf, sizeof buf);
    int k = atoi(buf);
    if (k < 1 || k > 8) { PyErr_SetString(PyExc_RuntimeError, "torchnative: malformed forward formula"); return -1; }
    for (int i = 0; i < k; i++) read_atom(p, names[i], sizeof names[i]);
    fv vals[8];
    int n = 0, rc = -1;
    for (; n < k; n++)
        if (eval(c, p, &vals[n]) < 0) { release(vals, n); return -1; }
    PyObject *old[8] = {0}, *keys[8] = {0};
    int was_zero[8] = {0}, bound = 0;
    for (; bound < k; bound++) {
        keys[bound] = PyUnicode_FromString(names[bound]);
        if (!keys[bound]) break;
        old[bound] = Py_XNewRef(PyDict_GetItemWithError(c->env, keys[bound]));
        was_zero[bound] = PySet_Contains(c->zeros, keys[bound]);
        if (PyErr_Occurred() || was_zero[bound] < 0 || PySet_Discard(c->zeros, keys[bound]) < 0 ||
            bind(c, names[bound], vals[bound].o, vals[bound].zero) < 0) { bound++; break; }
    }
    if (bound == k && !PyErr_Occurred()) {
        rc = eval(c, p, out);
        if (rc == 0) {
            skip_ws(p);
            if (**p == ')') (*p)++;
        }
    }
    for (int i = bound - 1; i >= 0; i--) {   /* restore, innermost first */
        if (!keys[i]) continue;
        PySet_Discard(c->zeros, keys[i]);
        if (old[i]) PyDict_SetItem(c->env, keys[i], old[i]);
        else PyDict_DelItem(c->env, keys[i]);
        if (was_zero[i] == 1) PySet_Add(c->zeros, keys[i]);
        Py_XDECREF(old[i]);
        Py_DECREF(keys[i]);
    }
    release(vals, k);
    if (rc == 0 && PyErr_Occurred()) rc = -1;   /* a restore failed */
    if (rc < 0) Py_CLEAR(out->o);
    return rc;
}

static int eval(fctx *c, const char **p, fv *out) {
    skip_ws(p);
    out->o = NULL;
    out->zero = false;
    if (**p != '(') { PyErr_SetString(PyExc_RuntimeError, "torchnative: malformed forward formula"); return -1; }
    (*p)++;
    char head[64], name[96];
    read_atom(p, head, sizeof head);
    fv argv[16];
    int n = 0, rc = 0;
    if (!strcmp(head, "v")) {
        read_atom(p, name, sizeof name);
        PyObject *v = PyDict_GetItemString(c->env, name);
        if (!v) {
            PyErr_Format(PyExc_RuntimeError, "torchnative: forward formula reads %s, which is not bound", name);
            return -1;
        }
        out->o = Py_NewRef(v);
        PyObject *k = PyUnicode_FromString(name);
        out->zero = k && PySet_Contains(c->zeros, k) == 1;
        Py_XDECREF(k);
    } else if (!strcmp(head, "n")) {
        read_atom(p, name, sizeof name);
        out->o = PyFloat_FromDouble(strtod(name, NULL));
    } else if (!strcmp(head, "i")) {
        read_atom(p, name, sizeof name);
        out->o = PyLong_FromLongLong(strtoll(name, NULL, 10));
    } else if (!strcmp(head, "b")) {
        read_atom(p, name, sizeof name);
        out->o = PyBool_FromLong(name[0] == '1');
    } else if (!strcmp(head, "s")) {
        read_atom(p, name, sizeof name);
        out->o = PyUnicode_FromString(name);
    } else if (!strcmp(head, "none")) {
        out->o = Py_NewRef(Py_None);
    } else if (!strcmp(head, "l")) {
        if (eval_args(c, p, argv, 16, &n) < 0) { release(argv, n); return -1; }
        out->o = PyTuple_New(n);
        for (int i = 0; out->o && i < n; i++) PyTuple_SetItem(out->o, i, Py_NewRef(argv[i].o));
        release(argv, n);
        return out->o ? 0 : -1;
    } else if (!strcmp(head, "?")) {
        fv cnd;
        if (eval(c, p, &cnd) < 0) return -1;
        int t = truthy(cnd.o);
        Py_DECREF(cnd.o);
        if (t < 0) return -1;
        if (t) { if (eval(c, p, out) < 0) return -1; skip_expr(p); }
        else { skip_expr(p); if (eval(c, p, out) < 0) return -1; }
    } else if (!strcmp(head, "&&") || !strcmp(head, "||")) {
        fv a;
        if (eval(c, p, &a) < 0) return -1;
        int t = truthy(a.o);
        Py_DECREF(a.o);
        if (t < 0) return -1;
        if ((head[0] == '&') != (t != 0)) { skip_expr(p); out->o = PyBool_FromLong(t); }
        else {
            fv b;
            if (eval(c, p, &b) < 0) return -1;
            int u = truthy(b.o);
            Py_DECREF(b.o);
            if (u < 0) return -1;
            out->o = PyBool_FromLong(u);
        }
    } else if (!strcmp(head, "neg") || !strcmp(head, "not") || !strcmp(head, "deref")) {
        fv a;
        if (eval(c, p, &a) < 0) return -1;
        if (head[0] == 'd') *out = a;
        else if (head[0] == 'n' && head[1] == 'o') {
            int t = truthy(a.o);
            Py_DECREF(a.o);
            if (t < 0) return -1;
            out->o = PyBool_FromLong(!t);
        } else {
            out->o = is_tensor(a.o) ? callv("neg", "(O)", a.o) : PyNumber_Negative(a.o);
            Py_DECREF(a.o);
        }
    } else if (binop_name(head)) {
        if (eval_args(c, p, argv, 2, &n) < 0 || n != 2) {
            release(argv, n);
            if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: malformed forward formula");
            return -1;
        }
        const char *op = binop_name(head);
        if (!is_tensor(argv[0].o) && !is_tensor(argv[1].o) && head[0] != '+' && head[0] != '-' && head[0] != '*' &&
            head[0] != '/') {
            int cmp = !strcmp(head, "<") ? Py_LT : !strcmp(head, "<=") ? Py_LE : !strcmp(head, ">") ? Py_GT
                    : !strcmp(head, ">=") ? Py_GE : !strcmp(head, "==") ? Py_EQ : Py_NE;
            out->o = PyObject_RichCompare(argv[0].o, argv[1].o, cmp);
        } else if (!strcmp(op, "add") || !strcmp(op, "sub") || !strcmp(op, "mul") || !strcmp(op, "div")) {
            fv a = argv[0], b = argv[1];
            if (!is_tensor(a.o) && (head[0] == '+' || head[0] == '*')) { fv t = a; a = b; b = t; }
            out->o = arith(op, a, b, NULL, &out->zero);
        } else {
            out->o = callv(op, "(OO)", argv[0].o, argv[1].o);
        }
        release(argv, n);
        return out->o ? 0 : -1;
    } else if (!strcmp(head, "with")) {
        return eval_with(c, p, out);
    } else if (!strcmp(head, "c") || !strcmp(head, "m")) {
        read_atom(p, name, sizeof name);
        if (eval_args(c, p, argv, 16, &n) < 0) { release(argv, n); return -1; }
        rc = call_fn(name, head[0] == 'm', argv, n, out);
        release(argv, n);
        return rc;
    } else {
        PyErr_Format(PyExc_RuntimeError, "torchnative: unknown forward formula form %s", head);
        return -1;
    }
    if (!out->o) return -1;
    skip_ws(p);
    if (**p == ')') (*p)++;
    return 0;
}

/* ---- binding a derivative's names ---- */

static int bind(fctx *c, const char *name, PyObject *v, bool zero) {
    if (PyDict_SetItemString(c->env, name, v) < 0) return -1;
    if (zero) {
        PyObject *k = PyUnicode_FromString(name);
        if (!k || PySet_Add(c->zeros, k) < 0) { Py_XDECREF(k); return -1; }
        Py_DECREF(k);
    }
    return 0;
}

static int bind_tensor(fctx *c, const char *base, PyObject *t, bool wrapped, bool real_zeros) {
    char nm[96];
    snprintf(nm, sizeof nm, "%s_p", base);
    if (bind(c, nm, t ? t : Py_None, false) < 0) return -1;
    PyObject *g = t ? tn_fw_grad(t) : NULL;
    snprintf(nm, sizeof nm, "%s_t_raw", base);
    if (bind(c, nm, g ? g : Py_None, false) < 0) return -1;
    snprintf(nm, sizeof nm, "%s_t", base);
    if (!t) return bind(c, nm, Py_None, false);
    if (g) return bind(c, nm, g, false);
    PyObject *z;
    const tn_tensor *x = tn_tensor_of(t);
    if (wrapped) {
        PyObject *num = tn_dtype_is_floating(x->dtype) ? PyFloat_FromDouble(0) : PyLong_FromLong(0);
        z = num ? tn_tensor_from_number(num, true) : NULL;
        Py_XDECREF(num);
    } else {
        PyObject *sz = tn_py_size_new(x->ndim, x->sizes), *dt = tn_py_from_dtype(x->dtype);
        PyObject *kw = sz && dt ? Py_BuildValue("{sO}", "dtype", dt) : NULL;
        PyObject *a = kw ? PyTuple_Pack(1, sz) : NULL;
        z = a ? call_name_kw("zeros", a, kw) : NULL;
        Py_XDECREF(sz);
        Py_XDECREF(dt);
        Py_XDECREF(kw);
        Py_XDECREF(a);
    }
    if (!z) return -1;
    int r = bind(c, nm, z, !real_zeros);
    Py_DECREF(z);
    return r;
}

/* A foreach op: upstream's generated code runs the formula once per element i, with each Tensor[]
 * argument's name_p / name_t bound to element i and its tangent (a ZeroTensor where it has none;
 * zeros for an in-place op's self), `i` bound for the formula's list[i]; an element where no
 * required list has a tangent gets none; an in-place op reading original_self gets element i of
 * the clones of self made before the op (orig_list). Out of place, the tangents come back as a list (None for
 * those); in place, the formula has written into self[i]'s tangent or the new one is set on
 * self[i] here, and the answer is None. */
static PyObject *foreach_eval(fctx *c, const tn_fw_deriv *d, tn_value *args, const tn_schema *s, bool inplace,
                              PyObject *orig_list) {
    Py_ssize_t len = -1;
    for (int a = 0; a < s->nargs && len < 0; a++)
        if (s->args[a].type == TN_TYPE_TENSOR && s->args[a].is_list) {
            PyObject *l = PyDict_GetItemString(c->env, s->args[a].name);
            len = l ? PySequence_Size(l) : -1;
        }
    if (len < 0) {
        if (!PyErr_Occurred()) PyErr_SetString(PyExc_RuntimeError, "torchnative: a foreach forward formula without a list");
        return NULL;
    }
    /* in place, the formula is the reference op's: a Scalar[] argument's name stands for element i */
    PyObject *slists[64] = {0};
    for (int a = 1; inplace && a < s->nargs && a < 64; a++)
        if (s->args[a].is_list && s->args[a].type != TN_TYPE_TENSOR) {
            PyObject *l = PyDict_GetItemString(c->env, s->args[a].name);
            if (l && PySequence_Check(l)) slists[a] = Py_NewRef(l);
        }
    PyObject *out = PyList_New(len);
    for (Py_ssize_t i = 0; out && i < len; i++) {
        bool any = false;
        for (int a = 1; a < s->nargs && a < 64 && out; a++) {
            if (!slists[a]) continue;
            PyObject *e = PySequence_GetItem(slists[a], i);
            if (!e || bind(c, s->args[a].name, e, false) < 0) Py_CLEAR(out);
            Py_XDECREF(e);
        }
        if (!out) break;
        for (int a = 0; a < s->nargs && out; a++) {
            if (s->args[a].type != TN_TYPE_TENSOR || !s->args[a].is_list) continue;
            PyObject *l = PyDict_GetItemString(c->env, s->args[a].name), *e = l ? PySequence_GetItem(l, i) : NULL;
            if (!e) { Py_CLEAR(out); break; }
            if (a < 64 && (d->req_t >> a & 1) && tn_fw_grad(e)) any = true;
            char nm[96];
            snprintf(nm, sizeof nm, "%s_t", s->args[a].name);
            PyObject *k = PyUnicode_FromString(nm);   /* element i - 1's ZeroTensor flag goes */
            if (!k || PySet_Discard(c->zeros, k) < 0 || bind_tensor(c, s->args[a].name, e, false, inplace && a == 0) < 0)
                Py_CLEAR(out);
            Py_XDECREF(k);
            Py_DECREF(e);
        }
        if (!out) break;
        /* an in-place op reading the original self: element i of the clones forward.c made */
        if (orig_list && bind_tensor(c, "original_self", PyList_GetItem(orig_list, i), false, true) < 0) { Py_CLEAR(out); break; }
        PyObject *iv = PyLong_FromSsize_t(i);
        if (!iv || bind(c, "i", iv, false) < 0) { Py_XDECREF(iv); Py_CLEAR(out); break; }
        Py_DECREF(iv);
        if (!any) { PyList_SetItem(out, i, Py_NewRef(Py_None)); continue; }
        const char *p = d->prog;
        fv v;
        if (eval(c, &p, &v) < 0) { Py_CLEAR(out); break; }
        if (inplace) {   /* self[i] had no tangent: it gets this one */
            PyObject *l = PyDict_GetItemString(c->env, s->args[0].name), *e = l ? PySequence_GetItem(l, i) : NULL;
            int rc = !e ? -1 : tn_fw_grad(e) || !tn_py_is_tensor(v.o) ? 0 : tn_fw_set(e, v.o, true);
            Py_XDECREF(e);
            Py_DECREF(v.o);
            if (rc < 0) { Py_CLEAR(out); break; }
            PyList_SetItem(out, i, Py_NewRef(Py_None));
            continue;
        }
        PyList_SetItem(out, i, v.o);
    }
    for (int a = 0; a < 64; a++) Py_XDECREF(slists[a]);
    if (out && inplace) Py_SETREF(out, Py_NewRef(Py_None));
    return out;
}

PyObject *tn_fw_eval(int op, const tn_fw_deriv *d, tn_value *args, const tn_schema *s, PyObject *res,
                     PyObject **outs, int nouts, PyObject *orig_self, bool inplace) {
    fctx c = {PyDict_New(), PySet_New(NULL)};
    PyObject *r = NULL;
    if (!c.env || !c.zeros) goto done;
    for (int i = 0; i < s->nargs; i++) {
        const char *nm = s->args[i].name;
        PyObject *v = tn_value_to_python(&args[i]);
        if (!v) goto done;
        int rc = bind(&c, nm, v, false);
        Py_DECREF(v);
        if (rc < 0) goto done;
        if (s->args[i].type == TN_TYPE_TENSOR && !s->args[i].is_list) {
            PyObject *t = args[i].tag == TN_V_TENSOR ? args[i].u.obj : NULL;
            bool wrapped = t && (args[i].wrapped || ((tn_tensor_obj *)t)->wrapped_number);
            if (bind_tensor(&c, nm, t, wrapped, inplace && i == 0) < 0) goto done;
        }
    }
    if (orig_self && !PyList_Check(orig_self) && bind_tensor(&c, "original_self", orig_self, false, true) < 0) goto done;
    if (nouts == 1 && bind(&c, "result", outs[0], false) < 0) goto done;
    for (int k = 0; k < nouts; k++) {
        char nm[32];
        snprintf(nm, sizeof nm, "result%d", k);
        if (outs[k] && bind(&c, nm, outs[k], false) < 0) goto done;
        if (k < s->nrets && s->rets[k].name && outs[k] && bind(&c, s->rets[k].name, outs[k], false) < 0) goto done;
    }
    if (!strncmp(s->name, "_foreach_", 9) && s->nargs > 0 && s->args[0].type == TN_TYPE_TENSOR && s->args[0].is_list &&
        ((s->nrets == 1 && s->rets[0].is_list) || inplace)) {
        r = foreach_eval(&c, d, args, s, inplace, orig_self);
        goto done;
    }
    const char *p = d->prog;
    fv v;
    if (eval(&c, &p, &v) < 0) goto done;
    r = v.o;
done:
    Py_XDECREF(c.env);
    Py_XDECREF(c.zeros);
    return r;
}
