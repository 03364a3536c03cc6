/* pointwise.c — the pointwise operator family: unary math, activations, binary arithmetic and
 * comparisons beyond add/sub/mul/div (arith.c), logical and bitwise ops, where and clamp.
 *
 * Two small drivers do the work, both following upstream's TensorIterator rules as measured on
 * torch 2.13: `unary` (optional int->float promotion, upstream's "Found dtype X but expected Y"
 * strictness for ops whose out= must match exactly) and `binary` (result_type promotion, optional
 * int->float promotion or a forced float64 compute type, integer-division-by-zero check,
 * in-place / out= checks). Scalar overloads (`eq.Scalar`, `remainder.Scalar_Tensor`, ...) wrap
 * their number as a 0-dim wrapped-number tensor so that promotion follows upstream. Results are
 * computed into a fresh tensor of the result dtype and then copied into the in-place / out=
 * target, which keeps aliasing (x.op_(x), out=x) correct. */
#include "ops/common.h"
#include "ops/pointwise_kernels.h"
#include "tn_ops_gen.h"

#include <float.h>
#include <math.h>
#include <stdio.h>

/* ---------------------------------------------------------------- helpers */




static bool is_int(tn_dtype d) { return tn_dtype_is_integral(d, true); }

static bool wrapped(const tn_value *v) {
    return v->tag == TN_V_TENSOR && (v->wrapped || ((tn_tensor_obj *)v->u.obj)->wrapped_number);
}

/* A number value as a tn_scalar (kernels read .i for integral dtypes, .re/.im otherwise). */
static tn_scalar num_scalar(const tn_value *v) {
    switch (v->tag) {
    case TN_V_INT: case TN_V_BOOL: return tn_scalar_i(v->u.i);
    case TN_V_COMPLEX: return tn_scalar_c(v->u.c.re, v->u.c.im);
    default: return tn_scalar_f(v->u.f);
    }
}


static PyObject *deliver(PyObject *res, PyObject *target) {
    if (!res || !target) return res;
    int r = tn_copy_into(target, res);
    Py_DECREF(res);
    return r < 0 ? NULL : Py_NewRef(target);
}

static bool same_shape(const tn_tensor *t, int nd, const int64_t *shape) {
    return t->ndim == nd && memcmp(t->sizes, shape, (size_t)nd * sizeof *shape) == 0;
}

static PyObject *shape_mismatch(const tn_tensor *t, int nd, const int64_t *shape) {
    char a[256], b[256];
    size_t k = 0;
    k += (size_t)snprintf(a, sizeof a, "[");
    for (int i = 0; i < t->ndim && k < sizeof a; i++)
        k += (size_t)snprintf(a + k, sizeof a - k, i ? ", %lld" : "%lld", (long long)t->sizes[i]);
    if (k < sizeof a) snprintf(a + k, sizeof a - k, "]");
    k = (size_t)snprintf(b, sizeof b, "[");
    for (int i = 0; i < nd && k < sizeof b; i++)
        k += (size_t)snprintf(b + k, sizeof b - k, i ? ", %lld" : "%lld", (long long)shape[i]);
    if (k < sizeof b) snprintf(b + k, sizeof b - k, "]");
    PyErr_Format(PyExc_RuntimeError, "output with shape %s doesn't match the broadcast shape %s", a, b);
    return NULL;
}

/* urun's checks of the in-place / out= target, in upstream's order */
static int urun_checks(const char *name, PyObject *self, tn_dtype rt, PyObject *out, bool inplace, bool strict,
                       bool overlap) {
    tn_tensor *t = tn_tensor_of(self);
    if (inplace && !tn_can_cast(rt, t->dtype)) { tn_cast_error(rt, t->dtype); return -1; }
    if ((inplace || out) && overlap && tn_check_overlap(inplace ? self : out, 1, &self) < 0) return -1;
    if (out) {
        tn_dtype od = tn_tensor_of(out)->dtype;
        if (strict && od != rt) {
            PyErr_Format(PyExc_RuntimeError, "Found dtype %s but expected %s", tn_dtype_cpp_name(od), tn_dtype_cpp_name(rt));
            return -1;
        }
        if (tn_out_prepare(out, t->ndim, t->sizes, rt, name) < 0) return -1;
    }
    return 0;
}

/* A result of self's shape in dtype rt filled with the number v, after urun's checks: fills any
 * dtype with casts (float8, complex32 and uint16/32/64 have no fill loop) */
static PyObject *urun_fill(const char *name, PyObject *self, tn_dtype rt, const tn_value *v, PyObject *out,
                           bool inplace, bool strict) {
    if (urun_checks(name, self, rt, out, inplace, strict, true) < 0) return NULL;
    const tn_tensor *t0 = tn_tensor_of(self);
    PyObject *res = tn_new_result(t0->ndim, t0->sizes, rt, 1, &t0);
    if (!res) return NULL;
    if (tn_cr_fill_checked(res, v) < 0) { Py_DECREF(res); return NULL; }
    return deliver(res, inplace ? self : out);
}

/* Run a one-input loop: self (cast to ct) -> result of dtype rt, delivered to out= / in-place.
 * strict: out= must have exactly dtype rt (upstream's "Found dtype X but expected Y"). */
/* overlap: whether the written tensor is checked for overlap with self (threshold's iterator is
 * built without the check: an out= aliasing self or expanded runs upstream)
 * byname: a missing loop of a dtype we have no arithmetic for (complex32) is refused by name
 * (tn_require_computable), after the out= / in-place checks as upstream's kernel refusal is */
static PyObject *urun_ex(const char *name, tn_loop loop, const void *ctx, PyObject *self, tn_dtype ct,
                         tn_dtype rt, PyObject *out, bool inplace, bool strict, bool overlap, bool byname) {
    tn_tensor *t = tn_tensor_of(self);
    int nd = t->ndim;
    int64_t shape[TN_MAX_DIMS];
    memcpy(shape, t->sizes, (size_t)nd * sizeof *shape);
    if (urun_checks(name, self, rt, out, inplace, strict, overlap) < 0) return NULL;
    if (!loop) { /* after the dtype checks, as upstream */
        if (byname && tn_require_computable(name, ct) < 0) return NULL;
        return tn_kernel_missing_cpu(name, ct);
    }
    PyObject *x = tn_as_dtype(self, ct, false);
    if (!x) return NULL;
    const tn_tensor *t0 = t;
    PyObject *target = inplace ? self : out;
    bool direct = target && tn_inplace_direct(target, rt, 1, &x);
    PyObject *res = direct ? Py_NewRef(target) : tn_new_result(nd, shape, rt, 1, &t0);
    if (!res) { Py_DECREF(x); return NULL; }
    tn_run_loop(loop, ctx, res, 1, &x);
    Py_DECREF(x);
    if (direct) tn_tensor_of(res)->storage->version++;   /* as tn_copy_into counts a write */
    return direct ? res : deliver(res, target);
}
static PyObject *urun(const char *name, tn_loop loop, const void *ctx, PyObject *self, tn_dtype ct,
                      tn_dtype rt, PyObject *out, bool inplace, bool strict) {
    return urun_ex(name, loop, ctx, self, ct, rt, out, inplace, strict, true, false);
}

/* ---------------------------------------------------------------- unary */

enum { U_FLOAT = 1, U_STRICT = 2 };
typedef struct { tn_unary_op op; const char *name; unsigned fl; } uspec;

/* Upstream's dtype refusals that are not just "no kernel". */
static int uprecheck(tn_unary_op op, tn_dtype dt) {
    bool cplx = tn_dtype_is_complex(dt);
    switch (op) {
    case TN_UNARY_NEG:
        if (dt == TN_DTYPE_BOOL) {
            PyErr_SetString(PyExc_RuntimeError,
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert a mask, "
                "use the `~` or `logical_not()` operator instead.");
            return -1;
        }
        break;
    case TN_UNARY_ABS:
        if (dt == TN_DTYPE_BOOL) { tn_kernel_missing_cpu("abs", dt); return -1; }
        break;
    case TN_UNARY_SIGN:
        if (cplx) {
            PyErr_SetString(PyExc_NotImplementedError,
                "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.");
            return -1;
        }
        break;
    case TN_UNARY_CEIL: case TN_UNARY_FLOOR: case TN_UNARY_TRUNC:
        if (cplx) {
            PyErr_Format(PyExc_NotImplementedError, "%s is not supported for complex inputs",
                         tn_unary_names[op]);
            return -1;
        }
        break;
    case TN_UNARY_ISPOSINF: case TN_UNARY_ISNEGINF:
        if (cplx) {
            PyErr_Format(PyExc_RuntimeError, "%s does not support complex inputs.", tn_unary_names[op]);
            return -1;
        }
        break;
    case TN_UNARY_SIGNBIT:
        if (cplx) {
            PyErr_SetString(PyExc_NotImplementedError, "signbit is not implemented for complex tensors.");
            return -1;
        }
        break;
    case TN_UNARY_RELU:
        if (dt == TN_DTYPE_BOOL) {
            PyErr_SetString(PyExc_RuntimeError, "Boolean inputs not supported for relu");
            return -1;
        }
        if (cplx) {
            PyErr_SetString(PyExc_NotImplementedError, "clamp is not supported for complex types");
            return -1;
        }
        break;
    default:
        break;
    }
    return 0;
}

static PyObject *unary_ex(tn_unary_op op, const char *name, unsigned fl, tn_value *a, PyObject *out,
                          bool inplace, const void *ctx);

/* complex32 neg / abs / isnan / isinf / isfinite: upstream's kernels compute in complex<float>
 * (c10::complex<Half> widens) and round the result once; neg and the predicates are exact either way */
static PyObject *unary_c32(tn_unary_op op, const char *name, tn_value *a, PyObject *out, bool inplace, unsigned fl) {
    bool pred = op == TN_UNARY_ISNAN || op == TN_UNARY_ISINF || op == TN_UNARY_ISFINITE;
    tn_dtype rt = op == TN_UNARY_ABS ? TN_DTYPE_F16 : pred ? TN_DTYPE_BOOL : TN_DTYPE_C32;
    PyObject *self = a[0].u.obj, *target = inplace ? self : out;
    if (inplace && !tn_can_cast(rt, TN_DTYPE_C32)) return tn_cast_error(rt, TN_DTYPE_C32);
    if (inplace && op == TN_UNARY_ABS) {
        PyErr_SetString(PyExc_RuntimeError, "In-place abs is not supported for complex tensors.");
        return NULL;
    }
    tn_value w = a[0];
    w.u.obj = tn_as_dtype(self, TN_DTYPE_C64, false);
    if (!w.u.obj) return NULL;
    PyObject *wide = unary_ex(op, name, fl, &w, NULL, false, NULL);
    Py_DECREF(w.u.obj);
    if (!wide) return NULL;
    const tn_tensor *t0 = tn_tensor_of(self);   /* the layout the input's iterator gives */
    PyObject *res = tn_new_result(t0->ndim, t0->sizes, rt, 1, &t0);
    if (res && tn_copy_into(res, wide) < 0) Py_CLEAR(res);
    Py_DECREF(wide);
    if (!res || !target) return res;
    return tn_out_deliver(res, target, name);
}

static PyObject *unary_ex(tn_unary_op op, const char *name, unsigned fl, tn_value *a, PyObject *out,
                          bool inplace, const void *ctx) {
    PyObject *self = a[0].u.obj;
    tn_dtype dt = TN_T(a[0])->dtype;
    if (inplace && op == TN_UNARY_ABS && tn_dtype_is_complex(dt)) {   /* upstream's abs_ checks first */
        PyErr_SetString(PyExc_RuntimeError, "In-place abs is not supported for complex tensors.");
        return NULL;
    }
    /* abs.out of a bool self: the iterator's out= dtype check before the kernel's refusal (measured) */
    if (op == TN_UNARY_ABS && dt == TN_DTYPE_BOOL && out && tn_out_dtype_found(out, dt) < 0) return NULL;
    if (uprecheck(op, dt) < 0) return NULL;
    if (op == TN_UNARY_ABS && out && tn_dtype_is_complex(dt)) {
        /* upstream's complex-to-float out=: into a real out, abs computed into a fresh result, then
         * out resized and given it with the cast check of its real dtype ("result type Float can't
         * be cast to the desired output type Long"), not the exact-dtype check; into a complex out,
         * the iterator's own checks (overlap, exactly self's dtype) and abs as its real part
         * (measured: docs/breadth_more2.md "Fuzz corpus: calls upstream runs, fourth pass") */
        tn_dtype od = tn_tensor_of(out)->dtype;
        if (tn_dtype_is_complex(od)) {
            if (tn_check_overlap(out, 1, &self) < 0) return NULL;
            if (od != dt) {
                PyErr_Format(PyExc_RuntimeError, "Found dtype %s but expected %s", tn_dtype_cpp_name(od), tn_dtype_cpp_name(dt));
                return NULL;
            }
        }
        return tn_out_deliver(unary_ex(op, name, fl, a, NULL, false, ctx), out, name);
    }
    tn_dtype ct = dt;
    if ((fl & U_FLOAT) && is_int(ct)) ct = tn_py.default_dtype;
    if (op == TN_UNARY_SQUARE && ct == TN_DTYPE_BOOL) ct = TN_DTYPE_I64; /* pow(x, 2) promotes */
    if (ct == TN_DTYPE_C32 && (op == TN_UNARY_NEG || op == TN_UNARY_ABS || op == TN_UNARY_ISNAN ||
                               op == TN_UNARY_ISINF || op == TN_UNARY_ISFINITE))
        return unary_c32(op, name, a, out, inplace, fl);
    tn_loop loop = tn_unary_loop(op, ct);
    if (!loop && op == TN_UNARY_BITWISE_NOT && tn_door_on_meta()) {
        /* its meta function builds the iterator only: float / complex run on meta (measured) */
        if (urun_checks(name, self, ct, out, inplace, fl & U_STRICT, true) < 0) return NULL;
        if (inplace || out) return Py_NewRef(inplace ? self : out);
        const tn_tensor *t0 = TN_T(a[0]);
        return tn_new_result(t0->ndim, t0->sizes, ct, 1, &t0);
    }
    /* uint16/32/64 and float8 have a few kernels (kernels/ref/unary.c); urun refuses the rest
     * in upstream's words after the out= checks, complex32 by name */
    return urun_ex(name, loop, ctx, self, ct, tn_unary_out_dtype(op, ct), out, inplace, fl & U_STRICT, true,
                   !tn_dtype_barebones(ct));
}

static PyObject *unary(const uspec *s, tn_value *a, PyObject *out, bool inplace) {
    return unary_ex(s->op, s->name, s->fl, a, out, inplace, NULL);
}

/* name, name_, name.out */
#define U3(fn, OP, FL)                                                                          \
    static const uspec us_##fn = {TN_UNARY_##OP, #fn, FL};                                     \
    PyObject *tn_op_##fn(tn_value *a) { return unary(&us_##fn, a, NULL, false); }              \
    PyObject *tn_op_##fn##_(tn_value *a) { return unary(&us_##fn, a, NULL, true); }            \
    PyObject *tn_op_##fn##_out(tn_value *a) { return unary(&us_##fn, a, a[1].u.obj, false); }

U3(neg, NEG, U_STRICT)
U3(negative, NEG, U_STRICT)
U3(abs, ABS, U_STRICT)
U3(absolute, ABS, U_STRICT)
U3(exp, EXP, U_FLOAT)
U3(exp2, EXP2, U_FLOAT)
U3(expm1, EXPM1, U_FLOAT)
U3(log, LOG, U_FLOAT)
U3(log2, LOG2, U_FLOAT)
U3(log10, LOG10, U_FLOAT)
U3(log1p, LOG1P, U_FLOAT)
U3(sqrt, SQRT, U_FLOAT)
U3(rsqrt, RSQRT, U_FLOAT)
U3(sin, SIN, U_FLOAT)
U3(cos, COS, U_FLOAT)
U3(tan, TAN, U_FLOAT)
U3(asin, ASIN, U_FLOAT)
U3(acos, ACOS, U_FLOAT)
U3(atan, ATAN, U_FLOAT)
U3(arcsin, ASIN, U_FLOAT)
U3(arccos, ACOS, U_FLOAT)
U3(arctan, ATAN, U_FLOAT)
U3(sinh, SINH, U_FLOAT)
U3(cosh, COSH, U_FLOAT)
U3(tanh, TANH, U_FLOAT)
U3(asinh, ASINH, U_FLOAT)
U3(acosh, ACOSH, U_FLOAT)
U3(atanh, ATANH, U_FLOAT)
U3(arcsinh, ASINH, U_FLOAT)
U3(arccosh, ACOSH, U_FLOAT)
U3(arctanh, ATANH, U_FLOAT)
U3(erf, ERF, U_FLOAT)
U3(erfc, ERFC, U_FLOAT)
U3(sigmoid, SIGMOID, U_FLOAT)
U3(reciprocal, RECIPROCAL, U_FLOAT)
U3(sign, SIGN, U_STRICT)
U3(ceil, CEIL, U_STRICT)
U3(floor, FLOOR, U_STRICT)
U3(trunc, TRUNC, U_STRICT)
U3(fix, TRUNC, U_STRICT)
U3(frac, FRAC, U_STRICT)
U3(round, ROUND, U_STRICT)
U3(square, SQUARE, 0)
/* logical_not: upstream's kernel dispatches the input's dtype, then the output's, over the
 * standard dtypes: complex32, float8 and uint16/32/64 refused either side, empty tensors too
 * (measured: docs/breadth_more2.md "fourth pass"); not on meta */
static const uspec us_logical_not = {TN_UNARY_LOGICAL_NOT, "logical_not", 0};
static bool lnot_kernel(tn_dtype d) {
    return d != TN_DTYPE_C32 && tn_dtype_infos[d].kind != TN_KIND_FLOAT8 && !tn_dtype_barebones(d);
}
static PyObject *logical_not_impl(tn_value *a, PyObject *out, bool inplace) {
    if (!tn_door_on_meta()) {
        tn_dtype dt = TN_T(a[0])->dtype;
        if (!lnot_kernel(dt)) return tn_kernel_missing("logical_not_cpu", dt);
        if (out && !lnot_kernel(tn_tensor_of(out)->dtype)) return tn_kernel_missing("logical_not_cpu", tn_tensor_of(out)->dtype);
    }
    return unary(&us_logical_not, a, out, inplace);
}
PyObject *tn_op_logical_not(tn_value *a) { return logical_not_impl(a, NULL, false); }
PyObject *tn_op_logical_not_(tn_value *a) { return logical_not_impl(a, NULL, true); }
PyObject *tn_op_logical_not_out(tn_value *a) { return logical_not_impl(a, a[1].u.obj, false); }
U3(bitwise_not, BITWISE_NOT, U_STRICT)
U3(silu, SILU, U_STRICT)
U3(mish, MISH, U_STRICT)
U3(hardsigmoid, HARDSIGMOID, U_STRICT)
U3(hardswish, HARDSWISH, U_STRICT)

PyObject *tn_op_relu(tn_value *a) { return unary_ex(TN_UNARY_RELU, "relu", U_STRICT, a, NULL, false, NULL); }
PyObject *tn_op_relu_(tn_value *a) { return unary_ex(TN_UNARY_RELU, "relu", U_STRICT, a, NULL, true, NULL); }

PyObject *tn_op_isnan(tn_value *a) { return unary_ex(TN_UNARY_ISNAN, "isnan", 0, a, NULL, false, NULL); }
PyObject *tn_op_isinf(tn_value *a) { return unary_ex(TN_UNARY_ISINF, "isinf", 0, a, NULL, false, NULL); }
PyObject *tn_op_isfinite(tn_value *a) { return unary_ex(TN_UNARY_ISFINITE, "isfinite", 0, a, NULL, false, NULL); }

/* predicates whose out= must be bool */
static PyObject *bool_pred(tn_unary_op op, const char *msg, tn_value *a, PyObject *out) {
    if (out && tn_tensor_of(out)->dtype != TN_DTYPE_BOOL) {
        if (uprecheck(op, TN_T(a[0])->dtype) < 0) return NULL;
        PyErr_SetString(PyExc_RuntimeError, msg);
        return NULL;
    }
    return unary_ex(op, tn_unary_names[op], 0, a, out, false, NULL);
}
PyObject *tn_op_isposinf(tn_value *a) { return bool_pred(TN_UNARY_ISPOSINF, NULL, a, NULL); }
PyObject *tn_op_isposinf_out(tn_value *a) {
    return bool_pred(TN_UNARY_ISPOSINF, "isposinf does not support non-boolean outputs.", a, a[1].u.obj);
}
PyObject *tn_op_isneginf(tn_value *a) { return bool_pred(TN_UNARY_ISNEGINF, NULL, a, NULL); }
PyObject *tn_op_isneginf_out(tn_value *a) {
    return bool_pred(TN_UNARY_ISNEGINF, "isneginf does not support non-boolean outputs.", a, a[1].u.obj);
}
PyObject *tn_op_signbit(tn_value *a) { return bool_pred(TN_UNARY_SIGNBIT, NULL, a, NULL); }
PyObject *tn_op_signbit_out(tn_value *a) {
    return bool_pred(TN_UNARY_SIGNBIT, "signbit does not support non-boolean outputs.", a, a[1].u.obj);
}

/* positive: the input itself (an alias upstream); refuses bool */
PyObject *tn_op_positive(tn_value *a) {
    if (TN_T(a[0])->dtype == TN_DTYPE_BOOL) {
        PyErr_SetString(PyExc_RuntimeError,
            "The `+` operator, on a bool tensor is not supported.");
        return NULL;
    }
    return Py_NewRef(a[0].u.obj);
}

/* sgn: sign for real dtypes, z/|z| for complex */
static PyObject *sgn_impl(tn_value *a, PyObject *out, bool inplace) {
    tn_dtype dt = TN_T(a[0])->dtype;
    if (!tn_dtype_is_complex(dt)) return unary_ex(TN_UNARY_SIGN, "sgn", U_STRICT, a, out, inplace, NULL);
    /* the iterator's exact out= dtype before the refusal of complex32 by name (measured) */
    if (out && tn_out_dtype_found(out, dt) < 0) return NULL;
    if (dt == TN_DTYPE_C32) {
        /* upstream's complex<Half> sgn: z / |z| as a complex<float> division (|z| in float), rounded
         * once; 0 stays 0 (measured bit for bit on 20,000 values with zeros, inf and NaN,
         * docs/breadth_more2.md group nieok, session 37) */
        PyObject *self = a[0].u.obj;
        if (urun_checks("sgn", self, dt, out, inplace, true, true) < 0) return NULL;
        PyObject *w = tn_as_dtype(self, TN_DTYPE_C64, false);
        PyObject *ab = w ? tn_at_abs(w) : NULL;
        PyObject *q = ab ? tn_at_div_Tensor(w, ab) : NULL;
        PyObject *z = q ? tn_at_eq_Scalar(w, TN_SI(0)) : NULL;
        PyObject *q0 = z ? tn_at_masked_fill_Scalar(q, z, TN_SI(0)) : NULL;
        const tn_tensor *t0 = TN_T(a[0]);
        PyObject *res = q0 ? tn_new_result(t0->ndim, t0->sizes, dt, 1, &t0) : NULL;
        if (res && tn_copy_into(res, q0) < 0) Py_CLEAR(res);
        Py_XDECREF(w); Py_XDECREF(ab); Py_XDECREF(q); Py_XDECREF(z); Py_XDECREF(q0);
        return deliver(res, inplace ? self : out);
    }
    if (tn_require_computable("sgn", dt) < 0) return NULL;
    tn_loop loop = tn_pw_sgn_complex_loop(dt);
    if (!loop) return tn_kernel_missing_cpu("sgn", dt);
    return urun("sgn", loop, NULL, a[0].u.obj, dt, dt, out, inplace, true);
}
PyObject *tn_op_sgn(tn_value *a) { return sgn_impl(a, NULL, false); }
PyObject *tn_op_sgn_(tn_value *a) { return sgn_impl(a, NULL, true); }
PyObject *tn_op_sgn_out(tn_value *a) { return sgn_impl(a, a[1].u.obj, false); }

/* logit(self, eps=None) */
static PyObject *logit_impl(tn_value *a, PyObject *out, bool inplace) {
    tn_unary_params p = {1.0, 20.0, 0.0, false};
    /* the kernel converts eps to its computing dtype: self's floating one, float for an integral
     * or bool self, uint16/32/64 too (the overflow check; measured) */
    tn_dtype dt = TN_T(a[0])->dtype;
    if (a[1].tag != TN_V_NONE && (tn_nn_float(dt) || tn_dtype_is_integral(dt, true)) &&
        tn_check_kernel_scalar(&a[1], tn_nn_float(dt) ? dt : TN_DTYPE_F32, false) < 0)
        return NULL;
    if (a[1].tag != TN_V_NONE) { p.has_eps = true; p.eps = tn_value_as_double(&a[1]); }
    return unary_ex(TN_UNARY_LOGIT, "logit", U_FLOAT, a, out, inplace, &p);
}
PyObject *tn_op_logit(tn_value *a) { return logit_impl(a, NULL, false); }
PyObject *tn_op_logit_(tn_value *a) { return logit_impl(a, NULL, true); }
PyObject *tn_op_logit_out(tn_value *a) { return logit_impl(a, a[2].u.obj, false); }

/* gelu(self, *, approximate='none') */
static PyObject *gelu_impl(tn_value *a, PyObject *out, bool inplace) {
    tn_unary_op op = TN_UNARY_GELU;
    if (a[1].tag == TN_V_STR) {
        const char *m = PyUnicode_AsUTF8AndSize(a[1].u.obj, NULL);
        if (!m) return NULL;
        if (!strcmp(m, "tanh")) op = TN_UNARY_GELU_TANH;
        else if (strcmp(m, "none")) {
            PyErr_SetString(PyExc_RuntimeError, "approximate argument must be either none or tanh.");
            return NULL;
        }
    }
    return unary_ex(op, "gelu", U_STRICT, a, out, inplace, NULL);
}
PyObject *tn_op_gelu(tn_value *a) { return gelu_impl(a, NULL, false); }
PyObject *tn_op_gelu_(tn_value *a) { return gelu_impl(a, NULL, true); }
PyObject *tn_op_gelu_out(tn_value *a) { return gelu_impl(a, a[2].u.obj, false); }

/* On meta, upstream's Python reference of elu / leaky_relu / softplus / rsub (their functional and
 * in-place forms) refuses a complex Scalar for a real floating self before anything else, as
 * "<name> argument of type <class 'complex'> cannot be safely cast to type <class 'float'>!"
 * (measured: elu raises RuntimeError and checks input_scale, scale, then alpha; softplus checks
 * beta only; the others raise ValueError; docs/breadth_more2.md). The scalars a[idx[i]], named
 * names[i], in upstream's order. */
static int meta_complex_scalar(const tn_value *a, int n, const int *idx, const char *const *names, PyObject *exc) {
    if (!tn_door_meta_call(a)) return 0;
    tn_dtype dt = TN_T(a[0])->dtype;
    if (!tn_dtype_is_floating(dt) || tn_dtype_is_complex(dt)) return 0;
    for (int i = 0; i < n; i++)
        if (a[idx[i]].tag == TN_V_COMPLEX) {
            PyErr_Format(exc, "%s argument of type <class 'complex'> cannot be safely cast to type <class 'float'>!", names[i]);
            return -1;
        }
    return 0;
}
static int meta_complex_scalar1(const tn_value *a, int i, const char *name, PyObject *exc) {
    return meta_complex_scalar(a, 1, &i, &name, exc);
}

/* softplus(self, beta=1, threshold=20) */
static PyObject *softplus_impl(tn_value *a, PyObject *out) {
    if (!out && meta_complex_scalar1(a, 1, "beta", PyExc_ValueError) < 0) return NULL;
    /* a floating self's kernel converts beta and threshold to its opmath type (overflow check) */
    tn_dtype dt = TN_T(a[0])->dtype;
    if (tn_nn_float(dt) && (tn_check_kernel_scalar(&a[1], dt, true) < 0 || tn_check_kernel_scalar(&a[2], dt, true) < 0))
        return NULL;
    tn_unary_params p = {tn_value_as_double(&a[1]), tn_value_as_double(&a[2]), 0.0, false};
    return unary_ex(TN_UNARY_SOFTPLUS, "softplus", U_STRICT, a, out, false, &p);
}
PyObject *tn_op_softplus(tn_value *a) { return softplus_impl(a, NULL); }
PyObject *tn_op_softplus_out(tn_value *a) { return softplus_impl(a, a[3].u.obj); }

/* round(self, *, decimals) */
static PyObject *round_dec(tn_value *a, PyObject *out, bool inplace) {
    int64_t d = a[1].u.i;
    tn_dtype dt = TN_T(a[0])->dtype;
    if (d == 0 && !is_int(dt)) return unary_ex(TN_UNARY_ROUND, "round", U_STRICT, a, out, inplace, NULL);
    return urun_ex("round", tn_pw_round_decimals_loop(dt), &d, a[0].u.obj, dt, dt, out, inplace, true, true, true);
}
PyObject *tn_op_round_decimals(tn_value *a) { return round_dec(a, NULL, false); }
PyObject *tn_op_round__decimals(tn_value *a) { return round_dec(a, NULL, true); }
PyObject *tn_op_round_decimals_out(tn_value *a) { return round_dec(a, a[2].u.obj, false); }

/* nan_to_num(self, nan=None, posinf=None, neginf=None) */
static PyObject *nan_to_num_impl(tn_value *a, PyObject *out, bool inplace) {
    PyObject *self = a[0].u.obj;
    tn_dtype dt = TN_T(a[0])->dtype;
    if (out && tn_tensor_of(out)->dtype != dt) {
        PyErr_Format(PyExc_RuntimeError, "nan_to_num: dtype of out: %s should be same as input: %s",
                     tn_dtype_cpp_name(tn_tensor_of(out)->dtype), tn_dtype_cpp_name(dt));
        return NULL;
    }
    if (tn_dtype_infos[dt].kind == TN_KIND_FLOAT8) return tn_kernel_missing("nan_to_num", dt);
    if (!tn_dtype_is_integral(dt, true) && tn_require_computable("nan_to_num", dt) < 0) return NULL;
    if (!tn_dtype_is_floating(dt) && !tn_dtype_is_complex(dt)) { /* nothing to replace: a copy */
        if (inplace) return Py_NewRef(self);
        return urun("nan_to_num", tn_cast_loop(dt, dt), NULL, self, dt, dt, out, false, true);
    }
    double big;
    switch (dt) {
    case TN_DTYPE_F16: big = 65504.0; break;
    case TN_DTYPE_BF16: big = 3.3895313892515355e38; break;
    case TN_DTYPE_F32: case TN_DTYPE_C64: big = FLT_MAX; break;
    default: big = DBL_MAX; break;
    }
    tn_pw_nan_params p = {
        a[1].tag == TN_V_NONE ? 0.0 : tn_value_as_double(&a[1]),
        a[2].tag == TN_V_NONE ? big : tn_value_as_double(&a[2]),
        a[3].tag == TN_V_NONE ? -big : tn_value_as_double(&a[3]),
    };
    tn_loop loop = tn_pw_nan_to_num_loop(dt);
    if (!loop) return tn_kernel_missing_cpu("nan_to_num", dt);
    return urun("nan_to_num", loop, &p, self, dt, dt, out, inplace, true);
}
PyObject *tn_op_nan_to_num(tn_value *a) { return nan_to_num_impl(a, NULL, false); }
PyObject *tn_op_nan_to_num_(tn_value *a) { return nan_to_num_impl(a, NULL, true); }
PyObject *tn_op_nan_to_num_out(tn_value *a) { return nan_to_num_impl(a, a[4].u.obj, false); }

/* activations with parameters and their own loops (floating only unless noted) */
static PyObject *float_act(const char *name, tn_loop (*lookup)(tn_dtype), const void *ctx, tn_value *a,
                           PyObject *out, bool inplace) {
    tn_dtype dt = TN_T(a[0])->dtype;
    /* threshold's out= is a cast check upstream (a TensorIterator output), the others' an exact dtype */
    bool th = !strcmp(name, "threshold");
    if (out && th && !tn_can_cast(dt, tn_tensor_of(out)->dtype)) return tn_cast_error(dt, tn_tensor_of(out)->dtype);
    if ((!th && tn_out_dtype_found(out, dt) < 0) || tn_require_computable(name, dt) < 0) return NULL;
    /* threshold computes in self's dtype and casts into an out= of another dtype (docs/breadth_more2.md) */
    return urun_ex(name, lookup(dt), ctx, a[0].u.obj, dt, dt, out, inplace, !th, !th, false);
}
/* The same where the kernel converts Scalar arguments ss[0..n) to its opmath type once it has
 * dispatched on self's dtype (elu's alpha / scale / input_scale, leaky_relu's slope). */
static PyObject *float_act_s(const char *name, tn_loop (*lookup)(tn_dtype), const void *ctx, tn_value *a,
                             PyObject *out, bool inplace, int n, const tn_value *ss) {
    tn_dtype dt = TN_T(a[0])->dtype;
    if (tn_out_dtype_found(out, dt) < 0 || tn_require_computable(name, dt) < 0) return NULL;
    for (int i = 0; lookup(dt) && i < n; i++)
        if (tn_check_kernel_scalar(&ss[i], dt, true) < 0) return NULL;
    return urun(name, lookup(dt), ctx, a[0].u.obj, dt, dt, out, inplace, true);
}

static PyObject *leaky_impl(tn_value *a, PyObject *out, bool inplace) {
    if (!out && meta_complex_scalar1(a, 1, "negative_slope", PyExc_ValueError) < 0) return NULL;
    double slope = tn_value_as_double(&a[1]);
    return float_act_s("leaky_relu", tn_pw_leaky_relu_loop, &slope, a, out, inplace, 1, &a[1]);
}
PyObject *tn_op_leaky_relu(tn_value *a) { return leaky_impl(a, NULL, false); }
PyObject *tn_op_leaky_relu_(tn_value *a) { return leaky_impl(a, NULL, true); }
PyObject *tn_op_leaky_relu_out(tn_value *a) { return leaky_impl(a, a[2].u.obj, false); }

/* hardshrink(self, lambd=0.5) / softshrink(self, lambd=0.5) (nn.functional breadth, helper-nnf):
 * softshrink's meta function checks lambd against the dtype's range before any kernel. */
static PyObject *hardshrink_impl(tn_value *a, PyObject *out) {
    double l = tn_value_as_double(&a[1]);
    /* once dispatched, the kernel converts lambd to self's dtype (not the opmath one; measured) */
    tn_dtype dt = TN_T(a[0])->dtype;
    if (tn_out_dtype_found(out, dt) < 0 || tn_require_computable("hardshrink", dt) < 0) return NULL;
    if (tn_pw_hardshrink_loop(dt) && tn_check_kernel_scalar(&a[1], dt, false) < 0) return NULL;
    return float_act("hardshrink", tn_pw_hardshrink_loop, &l, a, out, false);
}
PyObject *tn_op_hardshrink(tn_value *a) { return hardshrink_impl(a, NULL); }
PyObject *tn_op_hardshrink_out(tn_value *a) { return hardshrink_impl(a, a[2].u.obj); }
static PyObject *softshrink_impl(tn_value *a, PyObject *out) {
    /* on meta, upstream's Python meta compares lambd first (0 <= lambd; measured) */
    if (!out && tn_door_meta_call(a) && a[1].tag == TN_V_COMPLEX) {
        PyErr_SetString(PyExc_TypeError, "'<=' not supported between instances of 'int' and 'complex'");
        return NULL;
    }
    if (tn_check_kernel_scalar(&a[1], TN_DTYPE_F64, false) < 0) return NULL;   /* lambd.to<double>() first (measured) */
    double l = tn_value_as_double(&a[1]);
    tn_dtype dt = TN_T(a[0])->dtype;
    /* the check is dispatched over float / double / half / bfloat16 (float8: the kernel's refusal) */
    if (dt != TN_DTYPE_F32 && dt != TN_DTYPE_F64 && dt != TN_DTYPE_F16 && dt != TN_DTYPE_BF16)
        return tn_kernel_missing("softshrink_check", dt);
    double mx = dt == TN_DTYPE_F64 ? DBL_MAX : dt == TN_DTYPE_F16 ? 65504.0 : dt == TN_DTYPE_BF16 ? 3.3895313892515355e38 : FLT_MAX;
    if (!(l >= 0.0 && l <= mx)) {   /* C++ stream formatting: 6 significant digits (PyErr_Format has no %g) */
        char ms[32], ls[32];
        snprintf(ms, sizeof ms, "%.6g", mx);
        snprintf(ls, sizeof ls, "%.6g", l);
        PyErr_Format(PyExc_RuntimeError, "lambda must be in range [0, %s] for input dtype %s, but found %s", ms,
                     tn_dtype_cpp_name(dt), ls);
        return NULL;
    }
    tn_pw_shrink_params p = {l, tn_pw_upstream_vec_bytes() / (int64_t)tn_dtype_itemsize(dt)};
    return float_act("softshrink", tn_pw_softshrink_loop, &p, a, out, false);
}
PyObject *tn_op_softshrink(tn_value *a) { return softshrink_impl(a, NULL); }
PyObject *tn_op_softshrink_out(tn_value *a) { return softshrink_impl(a, a[2].u.obj); }

static PyObject *elu_impl(tn_value *a, PyObject *out, bool inplace) {
    static const int idx[3] = {3, 2, 1};
    static const char *const names[3] = {"input_scale", "scale", "alpha"};
    if (!out && meta_complex_scalar(a, 3, idx, names, PyExc_RuntimeError) < 0) return NULL;
    tn_pw_elu_params p = {tn_value_as_double(&a[1]), tn_value_as_double(&a[2]), tn_value_as_double(&a[3])};
    return float_act_s("elu", tn_pw_elu_loop, &p, a, out, inplace, 3, &a[1]);
}


static PyObject *threshold_impl(tn_value *a, PyObject *out, bool inplace) {
    tn_dtype dt = TN_T(a[0])->dtype;
    switch (dt) { /* upstream's kernel converts threshold (to the opmath type) and value (to self's) */
    case TN_DTYPE_U8: case TN_DTYPE_I8: case TN_DTYPE_I16: case TN_DTYPE_I32: case TN_DTYPE_I64:
    case TN_DTYPE_F32: case TN_DTYPE_F64: case TN_DTYPE_F16: case TN_DTYPE_BF16:
        if (tn_check_kernel_scalar(&a[1], dt, true) < 0 || tn_check_kernel_scalar(&a[2], dt, false) < 0)
            return NULL;
        break;
    default: break; /* float_act names the dtype upstream does not build */
    }
    tn_scalar th = num_scalar(&a[1]), v = num_scalar(&a[2]);
    tn_pw_threshold_params p = {th.re, v.re, th.i, v.i};
    return float_act("threshold", tn_pw_threshold_loop, &p, a, out, inplace);
}
PyObject *tn_op_threshold(tn_value *a) { return threshold_impl(a, NULL, false); }
PyObject *tn_op_threshold_(tn_value *a) { return threshold_impl(a, NULL, true); }
PyObject *tn_op_threshold_out(tn_value *a) { return threshold_impl(a, a[3].u.obj, false); }

/* ---------------------------------------------------------------- binary */

enum {
    B_FLOAT = 1,    /* integral / bool compute dtype promotes to the default float */
    B_ZERO = 2,     /* integer division by zero raises */
    B_NOCPLX = 4,   /* "<op> not implemented for complex tensors." */
    B_F64 = 8,      /* float_power: compute in float64 / complex128 */
    B_META = 16,    /* on meta, a dtype without a CPU kernel still gets its result */
};
typedef struct { tn_binary_op op; const char *name; unsigned fl; } bspec;

static int zero_divisor(PyObject *b, tn_dtype ct) {
    PyObject *bz = tn_as_dtype(b, ct, true);
    if (!bz) return -1;
    tn_tensor *bt = tn_tensor_of(bz);
    int64_t n = tn_numel(bt);
    int isz = tn_dtype_itemsize(ct);
    const unsigned char *p = (const unsigned char *)tn_data(bt);
    bool zero = false;
    for (int64_t i = 0; i < n && !zero; i++) {
        bool nz = false;
        for (int k = 0; k < isz; k++) nz |= p[i * isz + k] != 0;
        zero = !nz;
    }
    Py_DECREF(bz);
    if (zero) { PyErr_SetString(PyExc_RuntimeError, "ZeroDivisionError: alpha cannot be 0 for CELU"); return -1; }
    return 0;
}

/* a, b: tensor values (wrapped numbers allowed). */
static PyObject *binary(const bspec *s, tn_value *a, tn_value *b, PyObject *out, bool inplace,
                        const void *ctx) {
    tn_value pair[2] = {*a, *b};
    PyObject *orig[2] = {a->u.obj, b->u.obj}, *target = inplace ? a->u.obj : out;
    /* upstream's TensorIterator checks overlap before the shapes and dtypes */
    if (target && tn_check_overlap(target, 2, orig) < 0) return NULL;
    /* float_power converts both operands to float64 / complex128 with no promotion between them
     * (upstream's base.to(dtype).pow(exp.to(dtype)): a float8 exponent runs) */
    tn_dtype ct = (s->fl & B_F64) ? (tn_dtype_is_complex(TN_T(*a)->dtype) || tn_dtype_is_complex(TN_T(*b)->dtype)
                                         ? TN_DTYPE_C128 : TN_DTYPE_F64)
                                  : tn_result_type(2, pair);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    if ((s->fl & B_FLOAT) && is_int(ct)) ct = tn_py.default_dtype;
    if ((s->fl & B_NOCPLX) && tn_dtype_is_complex(ct)) {
        PyErr_Format(PyExc_RuntimeError, "%s not implemented for complex tensors.", s->name);
        return NULL;
    }
    /* complex32 eq / ne: upstream compares complex<Half> values, which complex64 holds exactly */
    if (ct == TN_DTYPE_C32 && (s->op == TN_BINARY_EQ || s->op == TN_BINARY_NE)) ct = TN_DTYPE_C64;
    /* complex32 add / sub / mul (subtract, rsub, ...): the arithmetic driver's complex64 compute,
     * rounded once */
    if (ct == TN_DTYPE_C32 && (s->op == TN_BINARY_ADD || s->op == TN_BINARY_SUB || s->op == TN_BINARY_MUL))
        return tn_binary(s->op, s->name, a, b, out, inplace, ctx);
    tn_loop loop = tn_binary_loop(s->op, ct);
    bool barebones = tn_dtype_barebones(ct); /* a few kernels; the rest refused below */
    if (s->op == TN_BINARY_NEXTAFTER && !loop) loop = tn_pw_nextafter16_loop(ct);
    if (s->op == TN_BINARY_XLOGY && tn_pw_xlogy16_loop(ct)) loop = tn_pw_xlogy16_loop(ct);
    tn_dtype rt = tn_binary_out_dtype(s->op, ct);
    const tn_tensor *ts[2] = {TN_T(*a), TN_T(*b)};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return NULL;
    if (inplace) {
        tn_tensor *t = TN_T(*a);
        if (!same_shape(t, nd, shape)) return shape_mismatch(t, nd, shape);
        if ((s->fl & B_F64) && t->dtype != ct) {
            PyErr_Format(PyExc_RuntimeError,
                         "the base given to float_power_ has dtype %s but the operation's result requires dtype %s",
                         tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(ct));
            return NULL;
        }
        if (!tn_can_cast(rt, t->dtype)) return tn_cast_error(rt, t->dtype);
    } else if (out) {
        if ((s->fl & B_F64) && tn_tensor_of(out)->dtype != ct) {
            PyErr_Format(PyExc_RuntimeError,
                         "the output given to float_power has dtype %s but the operation's result requires dtype %s",
                         tn_dtype_cpp_name(tn_tensor_of(out)->dtype), tn_dtype_cpp_name(ct));
            return NULL;
        }
        if (tn_out_prepare(out, nd, shape, rt, s->name) < 0) return NULL;
    }
    /* a dtype we have no arithmetic for (complex32), refused by name after the iterator's checks
     * (upstream's come first: "result type ComplexHalf can't be cast to ...", measured) */
    if (!barebones && tn_require_computable(s->name, ct) < 0) return NULL;
    /* the bitwise ops' meta functions build the iterator only: a dtype without a CPU kernel (a
     * float bitwise_and) gets its meta result (the door runs meta calls on CPU stand-ins); not
     * the dunders' __lshift__ / __rshift__ (their meta wants an integral self); the dunders'
     * Tensor forms first refuse mixed meta / CPU operands (dunder_devices below) */
    if (!loop && tn_door_on_meta() && (s->fl & B_META))
        return inplace ? Py_NewRef(a->u.obj) : out ? Py_NewRef(out) : tn_new_result(nd, shape, rt, 2, ts);
    if (!loop) /* after the shape / dtype checks, as upstream */
        return barebones ? tn_binary_kernel_missing(s->op, false, ct) : tn_kernel_missing_cpu(s->name, ct);
    int64_t nres = 1;
    for (int i = 0; i < nd; i++) nres *= shape[i];
    if ((s->fl & B_ZERO) && tn_dtype_is_integral(ct, false) && nres > 0 && zero_divisor(b->u.obj, ct) < 0) return NULL;
    /* Tensor op wrapped-number on reduced floats keeps the number in opmath (elementwise.h) */
    tn_loop sloop = NULL;
    if (TN_T(*b)->ndim == 0 && !wrapped(a) && !ctx && (ct == TN_DTYPE_F16 || ct == TN_DTYPE_BF16) &&
        (s->op == TN_BINARY_MUL || s->op == TN_BINARY_DIV || s->op == TN_BINARY_DIV_FLOOR ||
         s->op == TN_BINARY_DIV_TRUNC))
        sloop = tn_binary_scalar_loop(s->op, ct);
    PyObject *x = tn_as_dtype(a->u.obj, ct, false), *y = NULL, *res = NULL;
    if (!x) return NULL;
    res = tn_new_result(nd, shape, rt, 2, ts);
    if (!res) goto fail;
    if (sloop) {
        tn_scalar sc;
        if (tn_scalar_of_0dim(b->u.obj, &sc) < 0) goto fail;
        tn_run_loop(sloop, &sc, res, 1, &x);
    } else {
        y = tn_as_dtype(b->u.obj, ct, false);
        if (!y) goto fail;
        PyObject *ins[2] = {x, y};
        tn_run_loop(loop, ctx, res, 2, ins);
    }
    Py_DECREF(x);
    Py_XDECREF(y);
    return deliver(res, inplace ? a->u.obj : out);
fail:
    Py_XDECREF(x);
    Py_XDECREF(y);
    Py_XDECREF(res);
    return NULL;
}

/* Tensor, Tensor */
static PyObject *b_tt(const bspec *s, tn_value *a, PyObject *out, bool inplace) {
    return binary(s, &a[0], &a[1], out, inplace, NULL);
}
/* Tensor, Scalar */
static PyObject *b_ts(const bspec *s, tn_value *a, PyObject *out, bool inplace) {
    tn_value w;
    if (tn_value_as_tensor(&a[1], &w) < 0) return NULL;
    PyObject *r = binary(s, &a[0], &w, out, inplace, NULL);
    Py_DECREF(w.u.obj);
    return r;
}
/* Scalar, Tensor */
static PyObject *b_st(const bspec *s, tn_value *a, PyObject *out) {
    tn_value w;
    if (tn_value_as_tensor(&a[0], &w) < 0) return NULL;
    PyObject *r = binary(s, &w, &a[1], out, false, NULL);
    Py_DECREF(w.u.obj);
    return r;
}

#define OUT(i) (a[i].u.obj)
#define DEF(fname, expr) PyObject *tn_op_##fname(tn_value *a) { return expr; }

/* name.Tensor, name_.Tensor, name.Tensor_out, name.Scalar, name_.Scalar, name.Scalar_out */
#define B_TS6(fn, S)                                                                            \
    DEF(fn##_Tensor, b_tt(&S, a, NULL, false))                                                  \
    DEF(fn##__Tensor, b_tt(&S, a, NULL, true))                                                  \
    DEF(fn##_Tensor_out, b_tt(&S, a, OUT(2), false))                                            \
    DEF(fn##_Scalar, b_ts(&S, a, NULL, false))                                                  \
    DEF(fn##__Scalar, b_ts(&S, a, NULL, true))                                                  \
    DEF(fn##_Scalar_out, b_ts(&S, a, OUT(2), false))
/* name, name_, name.out */
#define B_3(fn, S)                                                                              \
    DEF(fn, b_tt(&S, a, NULL, false))                                                           \
    DEF(fn##_, b_tt(&S, a, NULL, true))                                                         \
    DEF(fn##_out, b_tt(&S, a, OUT(2), false))

static const bspec bs_eq = {TN_BINARY_EQ, "eq", 0}, bs_ne = {TN_BINARY_NE, "ne", 0},
                   bs_lt = {TN_BINARY_LT, "lt", B_META}, bs_le = {TN_BINARY_LE, "le", B_META},
                   bs_gt = {TN_BINARY_GT, "gt", B_META}, bs_ge = {TN_BINARY_GE, "ge", B_META};
B_TS6(eq, bs_eq)
B_TS6(ne, bs_ne)
B_TS6(not_equal, bs_ne)
B_TS6(lt, bs_lt)
B_TS6(less, bs_lt)
B_TS6(le, bs_le)
B_TS6(less_equal, bs_le)
B_TS6(gt, bs_gt)
B_TS6(greater, bs_gt)
B_TS6(ge, bs_ge)
B_TS6(greater_equal, bs_ge)

static const bspec bs_rem = {TN_BINARY_REMAINDER, "remainder", B_ZERO | B_META},
                   bs_fmod = {TN_BINARY_FMOD, "fmod", B_ZERO | B_META};
B_TS6(remainder, bs_rem)
DEF(remainder_Scalar_Tensor, b_st(&bs_rem, a, NULL))
B_TS6(fmod, bs_fmod)

static const bspec bs_and = {TN_BINARY_BITWISE_AND, "bitwise_and", B_META},
                   bs_or = {TN_BINARY_BITWISE_OR, "bitwise_or", B_META},
                   bs_xor = {TN_BINARY_BITWISE_XOR, "bitwise_xor", B_META},
                   bs_lsh = {TN_BINARY_LSHIFT, "lshift", 0}, bs_rsh = {TN_BINARY_RSHIFT, "rshift", 0},
                   bs_lsh_m = {TN_BINARY_LSHIFT, "lshift", B_META}, bs_rsh_m = {TN_BINARY_RSHIFT, "rshift", B_META};
B_TS6(bitwise_and, bs_and)
B_TS6(bitwise_or, bs_or)
B_TS6(bitwise_xor, bs_xor)
DEF(bitwise_and_Scalar_Tensor, b_st(&bs_and, a, NULL))
DEF(bitwise_or_Scalar_Tensor, b_st(&bs_or, a, NULL))
DEF(bitwise_xor_Scalar_Tensor, b_st(&bs_xor, a, NULL))
/* The dunder shifts' meta kernel (upstream's Python meta registration, reached by meta calls and,
 * through its in-place decomposition, by __ilshift__ / __irshift__) wants an integral (not bool)
 * self, then an integral shift tensor or a Python int / bool shift, before its iterator (measured:
 * "lshift: Expected shift value to be an int. Got 1e+20", the value as Python prints it). */
static int shift_meta_check(const bspec *s, const tn_value *a) {
    if (!tn_door_on_meta()) return 0;
    tn_dtype sd = TN_T(a[0])->dtype;
    if (!tn_dtype_is_integral(sd, false)) {
        PyErr_Format(PyExc_RuntimeError, "%s: Expected input tensor to have an integral dtype. Got torch.%s", s->name,
                     tn_dtype_infos[sd].name);
        return -1;
    }
    if (a[1].tag == TN_V_TENSOR && !a[1].wrapped) {
        tn_dtype od = TN_T(a[1])->dtype;
        if (tn_dtype_is_integral(od, false)) return 0;
        PyErr_Format(PyExc_RuntimeError, "%s: Expected shift value to have an integral dtype. Got torch.%s", s->name,
                     tn_dtype_infos[od].name);
        return -1;
    }
    if (a[1].tag != TN_V_FLOAT && a[1].tag != TN_V_COMPLEX) return 0;
    PyObject *v = a[1].tag == TN_V_FLOAT ? PyFloat_FromDouble(a[1].u.f) : PyComplex_FromDoubles(a[1].u.c.re, a[1].u.c.im);
    if (v) PyErr_Format(PyExc_RuntimeError, "%s: Expected shift value to be an int. Got %S", s->name, v);
    Py_XDECREF(v);
    return -1;
}
/* The dunders' Tensor forms on meta end in the references' elementwise meta, which refuses
 * operands on two devices (a CPU 0-dim tensor joins any), naming self's device as the expected
 * one (measured: "Tensor on device cpu is not on the expected device meta!", float operands too,
 * before any dtype check; docs/breadth_more2.md). */
static int dunder_devices(const tn_value *a) {
    if (!tn_door_on_meta() || a[0].tag != TN_V_TENSOR || a[1].tag != TN_V_TENSOR || a[1].wrapped) return 0;
    bool mx = tn_door_arg_device(a[0].u.obj) == TN_DEVICE_META, my = tn_door_arg_device(a[1].u.obj) == TN_DEVICE_META;
    if (mx == my || (!mx && TN_T(a[0])->ndim == 0) || (!my && TN_T(a[1])->ndim == 0)) return 0;
    PyErr_Format(PyExc_RuntimeError, "Tensor on device %s is not on the expected device %s!", my ? "meta" : "cpu",
                 mx ? "meta" : "cpu");
    return -1;
}
static PyObject *shift_tt(const bspec *s, tn_value *a, bool inplace) {
    return shift_meta_check(s, a) < 0 || dunder_devices(a) < 0 ? NULL : b_tt(s, a, NULL, inplace);
}
static PyObject *dunder_tt(const bspec *s, tn_value *a, bool inplace) {
    return dunder_devices(a) < 0 ? NULL : b_tt(s, a, NULL, inplace);
}
static PyObject *shift_ts(const bspec *s, tn_value *a, bool inplace) {
    return shift_meta_check(s, a) < 0 ? NULL : b_ts(s, a, NULL, inplace);
}

/* the dunder overloads: __and__.Scalar/Tensor, __iand__.Scalar/Tensor, ... */
#define DUNDER(nm, S)                                                                           \
    DEF(__##nm##___Scalar, b_ts(&S, a, NULL, false))                                            \
    DEF(__##nm##___Tensor, dunder_tt(&S, a, false))                                             \
    DEF(__i##nm##___Scalar, b_ts(&S, a, NULL, true))                                            \
    DEF(__i##nm##___Tensor, dunder_tt(&S, a, true))
DUNDER(and, bs_and)
DUNDER(or, bs_or)
DUNDER(xor, bs_xor)
#define DUNDER_SHIFT(nm, S)                                                                     \
    DEF(__##nm##___Scalar, shift_ts(&S, a, false))                                              \
    DEF(__##nm##___Tensor, shift_tt(&S, a, false))                                              \
    DEF(__i##nm##___Scalar, shift_ts(&S, a, true))                                              \
    DEF(__i##nm##___Tensor, shift_tt(&S, a, true))
DUNDER_SHIFT(lshift, bs_lsh)
DUNDER_SHIFT(rshift, bs_rsh)
#define SHIFT(fn, S)                                                                            \
    DEF(fn##_Tensor, b_tt(&S, a, NULL, false))                                                  \
    DEF(fn##__Tensor, b_tt(&S, a, NULL, true))                                                  \
    DEF(fn##_Tensor_out, b_tt(&S, a, OUT(2), false))                                            \
    DEF(fn##_Tensor_Scalar, b_ts(&S, a, NULL, false))                                           \
    DEF(fn##__Tensor_Scalar, b_ts(&S, a, NULL, true))                                           \
    DEF(fn##_Tensor_Scalar_out, b_ts(&S, a, OUT(2), false))                                     \
    DEF(fn##_Scalar_Tensor, b_st(&S, a, NULL))
SHIFT(bitwise_left_shift, bs_lsh_m)
SHIFT(bitwise_right_shift, bs_rsh_m)

static const bspec bs_land = {TN_BINARY_LOGICAL_AND, "logical_and", 0},
                   bs_lor = {TN_BINARY_LOGICAL_OR, "logical_or", 0},
                   bs_lxor = {TN_BINARY_LOGICAL_XOR, "logical_xor", 0};
B_3(logical_and, bs_land)
B_3(logical_or, bs_lor)
B_3(logical_xor, bs_lxor)

static const bspec bs_max = {TN_BINARY_MAXIMUM, "maximum", B_NOCPLX}, bs_min = {TN_BINARY_MINIMUM, "minimum", B_NOCPLX},
                   bs_fmax = {TN_BINARY_FMAX, "fmax", B_NOCPLX}, bs_fmin = {TN_BINARY_FMIN, "fmin", B_NOCPLX};
DEF(maximum, b_tt(&bs_max, a, NULL, false))
DEF(maximum_out, b_tt(&bs_max, a, OUT(2), false))
DEF(minimum, b_tt(&bs_min, a, NULL, false))
DEF(minimum_out, b_tt(&bs_min, a, OUT(2), false))
/* binary max / min: upstream's composites call maximum / minimum */
DEF(max_other, b_tt(&bs_max, a, NULL, false))
DEF(max_out, b_tt(&bs_max, a, OUT(2), false))
DEF(min_other, b_tt(&bs_min, a, NULL, false))
DEF(min_out, b_tt(&bs_min, a, OUT(2), false))
DEF(fmax, b_tt(&bs_fmax, a, NULL, false))
DEF(fmax_out, b_tt(&bs_fmax, a, OUT(2), false))
DEF(fmin, b_tt(&bs_fmin, a, NULL, false))
DEF(fmin_out, b_tt(&bs_fmin, a, OUT(2), false))

static const bspec bs_atan2 = {TN_BINARY_ATAN2, "atan2", B_FLOAT | B_META}, bs_hypot = {TN_BINARY_HYPOT, "hypot", B_META},
                   bs_nextafter = {TN_BINARY_NEXTAFTER, "nextafter", B_META},
                   bs_logaddexp = {TN_BINARY_LOGADDEXP, "logaddexp", 0},
                   bs_copysign = {TN_BINARY_COPYSIGN, "copysign", B_FLOAT | B_META},
                   bs_xlogy = {TN_BINARY_XLOGY, "xlogy", B_FLOAT | B_META};
B_3(atan2, bs_atan2)
B_3(arctan2, bs_atan2)
B_3(hypot, bs_hypot)
B_3(nextafter, bs_nextafter)
DEF(logaddexp, b_tt(&bs_logaddexp, a, NULL, false))
DEF(logaddexp_out, b_tt(&bs_logaddexp, a, OUT(2), false))
DEF(copysign_Tensor, b_tt(&bs_copysign, a, NULL, false))
DEF(copysign__Tensor, b_tt(&bs_copysign, a, NULL, true))
DEF(copysign_out, b_tt(&bs_copysign, a, OUT(2), false))
DEF(copysign_Scalar, b_ts(&bs_copysign, a, NULL, false))
DEF(copysign__Scalar, b_ts(&bs_copysign, a, NULL, true))
DEF(copysign_Scalar_out, b_ts(&bs_copysign, a, OUT(2), false))
DEF(xlogy_Tensor, b_tt(&bs_xlogy, a, NULL, false))
DEF(xlogy__Tensor, b_tt(&bs_xlogy, a, NULL, true))
DEF(xlogy_OutTensor, b_tt(&bs_xlogy, a, OUT(2), false))
DEF(xlogy_Scalar_Other, b_ts(&bs_xlogy, a, NULL, false))
DEF(xlogy__Scalar_Other, b_ts(&bs_xlogy, a, NULL, true))
DEF(xlogy_OutScalar_Other, b_ts(&bs_xlogy, a, OUT(2), false))
DEF(xlogy_Scalar_Self, b_st(&bs_xlogy, a, NULL))
DEF(xlogy_OutScalar_Self, b_st(&bs_xlogy, a, OUT(2)))

static const bspec bs_floordiv = {TN_BINARY_DIV_FLOOR, "div_floor", B_ZERO},
                   bs_truediv = {TN_BINARY_DIV, "div", B_FLOAT},
                   bs_truncdiv = {TN_BINARY_DIV_TRUNC, "div_trunc", B_ZERO};
DEF(floor_divide, b_tt(&bs_floordiv, a, NULL, false))
DEF(floor_divide__Tensor, b_tt(&bs_floordiv, a, NULL, true))
DEF(floor_divide_out, b_tt(&bs_floordiv, a, OUT(2), false))
DEF(floor_divide_Scalar, b_ts(&bs_floordiv, a, NULL, false))
DEF(floor_divide__Scalar, b_ts(&bs_floordiv, a, NULL, true))
DEF(true_divide_Tensor, b_tt(&bs_truediv, a, NULL, false))
DEF(true_divide__Tensor, b_tt(&bs_truediv, a, NULL, true))
DEF(true_divide_out, b_tt(&bs_truediv, a, OUT(2), false))
DEF(true_divide_Scalar, b_ts(&bs_truediv, a, NULL, false))
DEF(true_divide__Scalar, b_ts(&bs_truediv, a, NULL, true))
/* multiply is mul's alias upstream (same kernels, same float8 / complex32 paths): ops/arith.c */
DEF(multiply_Tensor, tn_op_mul_Tensor(a))
DEF(multiply__Tensor, tn_op_mul__Tensor(a))
DEF(multiply_out, tn_op_mul_out(a))
DEF(multiply_Scalar, tn_op_mul_Scalar(a))
DEF(multiply__Scalar, tn_op_mul__Scalar(a))

/* divide with rounding_mode (None, 'trunc', 'floor'); `scalar`: other is a number */
static PyObject *divide_mode(tn_value *a, const tn_value *mode, PyObject *out, bool inplace, bool scalar) {
    /* divide.out_mode reaches div.out_mode's out wrapper, whose out= device check comes before the
     * reference's ValueError (measured): the door raises it first (copies_first), then this is the
     * reference's ValueError on meta as div's */
    (void)out;
    int m = tn_div_rounding_mode(mode, true);
    if (m < 0) return NULL;
    const bspec *s = m == 1 ? &bs_truncdiv : m == 2 ? &bs_floordiv : &bs_truediv;
    return scalar ? b_ts(s, a, out, inplace) : b_tt(s, a, out, inplace);
}
DEF(divide_Tensor, divide_mode(a, NULL, NULL, false, false))
DEF(divide__Tensor, divide_mode(a, NULL, NULL, true, false))
DEF(divide_out, divide_mode(a, NULL, OUT(2), false, false))
DEF(divide_Scalar, divide_mode(a, NULL, NULL, false, true))
DEF(divide__Scalar, divide_mode(a, NULL, NULL, true, true))
DEF(divide_Tensor_mode, divide_mode(a, &a[2], NULL, false, false))
DEF(divide__Tensor_mode, divide_mode(a, &a[2], NULL, true, false))
DEF(divide_out_mode, divide_mode(a, &a[2], OUT(3), false, false))
DEF(divide_Scalar_mode, divide_mode(a, &a[2], NULL, false, true))
DEF(divide__Scalar_mode, divide_mode(a, &a[2], NULL, true, true))

/* subtract / rsub: self, other, alpha. reverse: other - alpha * self. */
static const bspec bs_sub = {TN_BINARY_SUB, "sub", 0};
static PyObject *sub_like(tn_value *self, tn_value *other, const tn_value *alpha, PyObject *out, bool inplace,
                          bool reverse) {
    bool b0 = TN_T(*self)->dtype == TN_DTYPE_BOOL, b1 = TN_T(*other)->dtype == TN_DTYPE_BOOL;
    if (b0 || b1) {
        PyErr_SetString(PyExc_RuntimeError, b0 && b1
            ? "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
              "`logical_xor()` operator instead."
            : "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert "
              "a mask, use the `~` or `logical_not()` operator instead.");
        return NULL;
    }
    tn_value pair[2] = {*self, *other};
    tn_dtype ct = tn_result_type(2, pair);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    if (tn_alpha_check(ct, alpha, inplace ? self->u.obj : out, inplace, self, other) < 0) return NULL;
    tn_scalar al = num_scalar(alpha);
    bool unit = alpha->tag != TN_V_COMPLEX && al.re == 1.0;
    return reverse ? binary(&bs_sub, other, self, out, false, unit ? NULL : &al)
                   : binary(&bs_sub, self, other, out, inplace, unit ? NULL : &al);
}
static PyObject *sub_scalar(tn_value *a, PyObject *out, bool inplace, bool reverse) {
    tn_value w;
    if (tn_value_as_tensor(&a[1], &w) < 0) return NULL;
    PyObject *r = sub_like(&a[0], &w, &a[2], out, inplace, reverse);
    Py_DECREF(w.u.obj);
    return r;
}
DEF(subtract_Tensor, sub_like(&a[0], &a[1], &a[2], NULL, false, false))
DEF(subtract__Tensor, sub_like(&a[0], &a[1], &a[2], NULL, true, false))
DEF(subtract_out, sub_like(&a[0], &a[1], &a[2], OUT(3), false, false))
DEF(subtract_Scalar, sub_scalar(a, NULL, false, false))
DEF(subtract__Scalar, sub_scalar(a, NULL, true, false))
DEF(rsub_Tensor, sub_like(&a[0], &a[1], &a[2], NULL, false, true))
DEF(rsub_Scalar, meta_complex_scalar1(a, 2, "alpha", PyExc_ValueError) < 0 ? NULL : sub_scalar(a, NULL, false, true))

/* ---------------------------------------------------------------- pow / float_power */

static const bspec bs_pow = {TN_BINARY_POW, "pow", 0}, bs_fpow = {TN_BINARY_POW, "float_power", B_F64};

/* pow(Tensor, Scalar) and float_power(Tensor, Scalar) */
static PyObject *pow_ts(tn_value *a, PyObject *out, bool inplace, bool fpow) {
    tn_value *e = &a[1];
    tn_dtype dt = TN_T(a[0])->dtype, ct;
    if (fpow) {
        ct = tn_dtype_is_complex(dt) || e->tag == TN_V_COMPLEX ? TN_DTYPE_C128 : TN_DTYPE_F64;
        if (inplace && dt != ct) {
            PyErr_Format(PyExc_RuntimeError,
                         "the base given to float_power_ has dtype %s but the operation's result requires dtype %s",
                         tn_dtype_cpp_name(dt), tn_dtype_cpp_name(ct));
            return NULL;
        }
        if (out && tn_tensor_of(out)->dtype != ct) {
            PyErr_Format(PyExc_RuntimeError,
                         "the output given to float_power has dtype %s but the operation's result requires dtype %s",
                         tn_dtype_cpp_name(tn_tensor_of(out)->dtype), tn_dtype_cpp_name(ct));
            return NULL;
        }
    } else {
        tn_value pair[2] = {a[0], *e};
        ct = tn_result_type(2, pair);
        if (ct == TN_DTYPE_UNDEFINED) return NULL;
        if (e->tag == TN_V_INT && e->uns && tn_cr_check_scalar(e, ct) < 0) return NULL;
        if (is_int(ct) && e->tag == TN_V_INT && e->u.i < 0) {
            PyErr_SetString(PyExc_RuntimeError, "Integers to negative integer powers are not allowed.");
            return NULL;
        }
    }
    if (!fpow) {   /* the meta function's unary iterator: its cast check before any kernel (measured) */
        tn_dtype td = inplace ? dt : out ? tn_tensor_of(out)->dtype : ct;
        if (!tn_can_cast(ct, td)) return tn_cast_error(ct, td);
    }
    /* a dtype with casts only (uint16/32/64, float8, complex32) still takes the fill / copy below */
    if (tn_require_castable(fpow ? "float_power" : "pow", ct) < 0) return NULL;
    /* upstream: exponent 0 fills ones, exponent 1 copies (exact, also for complex and bool) */
    tn_scalar ev = num_scalar(e);
    if (ev.im == 0 && (ev.re == 0 || ev.re == 1)) {
        if (ev.re == 1)
            return urun(fpow ? "float_power" : "pow", tn_cast_loop(ct, ct), NULL, a[0].u.obj, ct, ct, out, inplace, false);
        tn_value one = {.tag = TN_V_INT, .u.i = 1}, w;
        if (!tn_fill_loop(ct)) return urun_fill(fpow ? "float_power" : "pow", a[0].u.obj, ct, &one, out, inplace, false);
        if (tn_value_as_tensor(&one, &w) < 0) return NULL;
        PyObject *o = tn_as_dtype(w.u.obj, ct, true);
        Py_DECREF(w.u.obj);
        if (!o) return NULL;
        PyObject *r = urun(fpow ? "float_power" : "pow", tn_fill_loop(ct), tn_data(tn_tensor_of(o)), a[0].u.obj,
                           ct, ct, out, inplace, false);
        Py_DECREF(o);
        return r;
    }
    if (ct == TN_DTYPE_F16 && ev.im == 0 && (ev.re == 0.5 || ev.re == -0.5)) {
        /* upstream's Half path takes std::pow here, not sqrt (pow(-0., .5) is +0) */
        tn_value w;
        if (tn_value_as_tensor(e, &w) < 0) return NULL;
        PyObject *r = binary(fpow ? &bs_fpow : &bs_pow, &a[0], &w, out, inplace, NULL);
        Py_DECREF(w.u.obj);
        return r;
    }
    tn_loop loop = ct == TN_DTYPE_BOOL || !tn_dtype_computable(ct) ? NULL : tn_pow_scalar_loop(ct);
    if (!loop) {
        PyErr_Format(PyExc_NotImplementedError, "\"pow\" not implemented for '%s'", tn_dtype_cpp_name(ct));
        return NULL;
    }
    /* the kernel's exp.to<scalar_t>() where it takes one: integral and reduced-precision floats
     * (float / double / complex pow take any exponent; measured) */
    if (!fpow && (is_int(ct) || ct == TN_DTYPE_F16 || ct == TN_DTYPE_BF16) && tn_check_kernel_scalar(e, ct, false) < 0)
        return NULL;
    tn_scalar sc = num_scalar(e);
    return urun(fpow ? "float_power" : "pow", loop, &sc, a[0].u.obj, ct, ct, out, inplace, false);
}

static PyObject *pow_tt(const bspec *s, tn_value *a, PyObject *out, bool inplace) {
    if (s->fl & B_F64) return b_tt(s, a, out, inplace);   /* no promotion: binary() converts both */
    tn_value pair[2] = {a[0], a[1]};
    tn_dtype rt = tn_result_type(2, pair);
    if (rt == TN_DTYPE_UNDEFINED) return NULL;
    if (!(s->fl & B_F64) && rt == TN_DTYPE_BOOL) {
        PyErr_SetString(PyExc_NotImplementedError, "\"pow\" not implemented for 'Bool'");
        return NULL;
    }
    return b_tt(s, a, out, inplace);
}

DEF(pow_Tensor_Tensor, pow_tt(&bs_pow, a, NULL, false))
DEF(pow_Tensor_Tensor_out, pow_tt(&bs_pow, a, OUT(2), false))
DEF(pow__Tensor, pow_tt(&bs_pow, a, NULL, true))
DEF(pow_Tensor_Scalar, pow_ts(a, NULL, false, false))
DEF(pow_Tensor_Scalar_out, pow_ts(a, OUT(2), false, false))
DEF(pow__Scalar, pow_ts(a, NULL, true, false))
/* pow.Scalar(_out) is structured upstream: its meta function sets the output first (a new
 * contiguous tensor of result_type(base, exponent), whatever the exponent's strides, or out resized to the exponent's sizes with
 * resize_output's warning), then a base equal to 1 (an int, float or complex 1, not True) is
 * out.fill_(1) with no dtype check or kernel (an int64 out, a float8 exponent run); any other base
 * runs the Tensor overload's iterator into that output, so an out it would refuse as overlapping
 * (an expanded 0-dim tensor of another shape) is replaced first (measured: docs/breadth_more2.md,
 * "Fuzz corpus: calls upstream runs, fifth pass") */
static bool scalar_is_one(const tn_value *v) {
    return (v->tag == TN_V_INT && v->u.i == 1 && !v->uns) || (v->tag == TN_V_FLOAT && v->u.f == 1.0) ||
           (v->tag == TN_V_COMPLEX && v->u.c.re == 1.0 && v->u.c.im == 0.0);
}
static const tn_value pow_one = {.tag = TN_V_INT, .u.i = 1};
static PyObject *pow_scalar(tn_value *a, PyObject *out) {
    const tn_tensor *e = TN_T(a[1]);
    if (!out) {
        tn_dtype dt = tn_result_type(2, a);
        if (dt == TN_DTYPE_UNDEFINED) return NULL;
        PyObject *r = tn_tensor_new_empty(e->ndim, e->sizes, dt, e->storage->device);
        if (!r) return NULL;
        PyObject *res = scalar_is_one(&a[0]) ? (tn_cr_fill_checked(r, &pow_one) < 0 ? NULL : Py_NewRef(r)) : b_st(&bs_pow, a, r);
        Py_DECREF(r);
        return res;
    }
    const tn_tensor *o = tn_tensor_of(out);
    bool same = o->ndim == e->ndim && memcmp(o->sizes, e->sizes, (size_t)e->ndim * sizeof *e->sizes) == 0;
    if (!same && tn_out_prepare(out, e->ndim, e->sizes, o->dtype, "pow") < 0) return NULL;
    if (!scalar_is_one(&a[0]) || o->storage->device != e->storage->device) return b_st(&bs_pow, a, out);
    return tn_cr_fill_checked(out, &pow_one) < 0 ? NULL : Py_NewRef(out);
}
DEF(pow_Scalar, pow_scalar(a, NULL))
DEF(pow_Scalar_out, pow_scalar(a, OUT(2)))
DEF(float_power_Tensor_Tensor, pow_tt(&bs_fpow, a, NULL, false))
DEF(float_power_Tensor_Tensor_out, pow_tt(&bs_fpow, a, OUT(2), false))
DEF(float_power__Tensor, pow_tt(&bs_fpow, a, NULL, true))
DEF(float_power_Tensor_Scalar, pow_ts(a, NULL, false, true))
DEF(float_power_Tensor_Scalar_out, pow_ts(a, OUT(2), false, true))
DEF(float_power__Scalar, pow_ts(a, NULL, true, true))
DEF(float_power_Scalar, b_st(&bs_fpow, a, NULL))
DEF(float_power_Scalar_out, b_st(&bs_fpow, a, OUT(2)))

/* ---------------------------------------------------------------- where */

static PyObject *where_impl(tn_value *cond, tn_value *x, tn_value *y, PyObject *out) {
    tn_tensor *c = TN_T(*cond);
    if (c->dtype == TN_DTYPE_U8) {
        if (PyErr_WarnEx(PyExc_UserWarning,
                         "where received a uint8 condition tensor. This behavior is deprecated and will be removed "
                         "in a future version of PyTorch. Use a boolean condition instead.", 1) < 0)
            return NULL;
    } else if (c->dtype != TN_DTYPE_BOOL) {
        PyErr_Format(PyExc_RuntimeError,
                     "where expected condition to be a boolean tensor, but got a tensor with dtype %s",
                     tn_dtype_cpp_name(c->dtype));
        return NULL;
    }
    tn_value pair[2] = {*x, *y};
    tn_dtype ct = tn_result_type(2, pair);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    /* where moves bytes: upstream runs it for uint16/32/64 and float8 too */
    if (!tn_dtype_barebones(ct) && ct != TN_DTYPE_C32 && tn_require_computable("where", ct) < 0) return NULL;
    tn_loop loop = tn_where_loop(ct);
    if (!loop) return tn_kernel_missing_cpu("where", ct);
    const tn_tensor *ts[3] = {c, TN_T(*x), TN_T(*y)};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(3, ts, &nd, shape) < 0) return NULL;
    if (out) {
        tn_dtype od = tn_tensor_of(out)->dtype;
        if (od != ct) {
            PyErr_Format(PyExc_RuntimeError, "Expected out type to be %s but got %s", tn_dtype_cpp_name(ct), tn_dtype_cpp_name(od));
            return NULL;
        }
        if (tn_out_prepare(out, nd, shape, ct, "where") < 0) return NULL;
    }
    PyObject *cb = tn_as_dtype(cond->u.obj, TN_DTYPE_BOOL, false), *xa = NULL, *ya = NULL, *res = NULL;
    if (!cb) return NULL;
    xa = tn_as_dtype(x->u.obj, ct, false);
    if (!xa) goto done;
    ya = tn_as_dtype(y->u.obj, ct, false);
    if (!ya) goto done;
    res = tn_new_result(nd, shape, ct, 3, ts);
    if (!res) goto done;
    PyObject *ins[3] = {cb, xa, ya};
    tn_run_loop(loop, NULL, res, 3, ins);
done:
    Py_DECREF(cb);
    Py_XDECREF(xa);
    Py_XDECREF(ya);
    return deliver(res, out);
}

static PyObject *where_sc(tn_value *a, bool wx, bool wy, PyObject *out) {
    tn_value x, y;
    /* an unsigned Scalar beside a tensor is made in the tensor's dtype (upstream's overflow check);
     * two Scalars promote as result_type does (uint64 with int64 refused) */
    for (int i = 1; i < 3; i++)
        if (a[i].tag == TN_V_INT && a[i].uns && a[3 - i].tag == TN_V_TENSOR && tn_cr_check_scalar(&a[i], TN_T(a[3 - i])->dtype) < 0)
            return NULL;
    if (tn_value_as_tensor(&a[1], &x) < 0) return NULL;
    if (tn_value_as_tensor(&a[2], &y) < 0) { Py_DECREF(x.u.obj); return NULL; }
    (void)wx; (void)wy;
    PyObject *r = where_impl(&a[0], &x, &y, out);
    Py_DECREF(x.u.obj);
    Py_DECREF(y.u.obj);
    return r;
}
DEF(where_self, where_impl(&a[0], &a[1], &a[2], NULL))
DEF(where_self_out, where_impl(&a[0], &a[1], &a[2], OUT(3)))
DEF(where_ScalarSelf, where_sc(a, true, false, NULL))
DEF(where_ScalarOther, where_sc(a, false, true, NULL))
DEF(where_Scalar, where_sc(a, true, true, NULL))

/* ---------------------------------------------------------------- clamp */


/* on meta upstream's Python reference raises a ValueError; with out= (the door hands the op CPU stand-ins of
 * every argument then, so a CPU out= cannot be told from a meta one) the RuntimeError stays: clip.out(meta,
 * out=cpu) reaches clamp.out's out wrapper, whose device check comes first (measured) */
static PyObject *clamp_none(bool has_out) {
    if (tn_door_on_meta() && !has_out)
        PyErr_SetString(PyExc_ValueError, "clamp called but both min and max are none!");
    else
        PyErr_SetString(PyExc_RuntimeError, "torch.clamp: At least one of 'min' or 'max' must not be None");
    return NULL;
}
static PyObject *clamp_cplx(void) {
    PyErr_SetString(PyExc_NotImplementedError, "clamp is not supported for complex types");
    return NULL;
}

/* self promoted with the bounds given (NULL: none), TN_DTYPE_UNDEFINED with the error set */
static tn_dtype clamp_promoted(const tn_value *self, const tn_value *mn, const tn_value *mx) {
    tn_value vals[3];
    int n = 0;
    vals[n++] = *self;
    if (mn) vals[n++] = *mn;
    if (mx) vals[n++] = *mx;
    return tn_result_type(n, vals);
}

/* The Scalar overloads, in upstream's order (measured, docs/breadth_more2.md "Fuzz corpus exception
 * types, group ne"): a floating self keeps its dtype (the bounds take no part in promotion), any
 * other self promotes with the bounds and in-place must keep self's dtype exactly (clamp_min /
 * clamp_max, `one`, refuse a complex bound before all that); then the
 * iterator's out= checks; then each bound read as a double (a complex bound with an imaginary part
 * refuses); then the dtype's kernel (NotImplementedError naming upstream's stub); then the bounds
 * converted to the dtype (overflow). */
static PyObject *clamp_scalar(tn_value *self, const tn_value *mn, const tn_value *mx, PyObject *out, bool inplace,
                              bool one) {
    bool hl = mn && mn->tag != TN_V_NONE, hh = mx && mx->tag != TN_V_NONE;
    if (!hl && !hh) return clamp_none(out != NULL);
    tn_dtype dt = TN_T(*self)->dtype, ct = dt;
    if (tn_door_on_meta() && (!out || (one && (tn_dtype_is_complex(dt) || (hl ? mn : mx)->tag == TN_V_COMPLEX)))) {
        /* clamp / clamp_min / clamp_max on meta are upstream's references: the bounds promote with
         * self (a bool self with an int bound is int64), nothing refuses complex, no bound is
         * checked against the dtype (1e308 on float16, 1000 on int8) and no kernel is needed
         * (float8, complex32), the result is cast into an in-place self (measured; out= on meta
         * keeps the checks below, but for clamp_min / clamp_max's complex cases) */
        if ((ct = clamp_promoted(self, hl ? mn : NULL, hh ? mx : NULL)) == TN_DTYPE_UNDEFINED) return NULL;
        PyObject *target = inplace ? self->u.obj : out;
        tn_dtype td = target ? tn_tensor_of(target)->dtype : ct;
        if (tn_ref_safe_cast(ct, td) < 0) return NULL;
        const tn_tensor *t0 = TN_T(*self);
        if (inplace) return Py_NewRef(target);
        if (out) return tn_out_prepare(out, t0->ndim, t0->sizes, td, "clamp") < 0 ? NULL : Py_NewRef(out);
        return tn_new_result(t0->ndim, t0->sizes, ct, 1, &t0);
    }
    if (tn_dtype_is_complex(dt)) return clamp_cplx();
    if (one && ((hl ? mn : mx)->tag == TN_V_COMPLEX)) return clamp_cplx();
    if (!tn_dtype_is_floating(dt)) {
        if ((ct = clamp_promoted(self, hl ? mn : NULL, hh ? mx : NULL)) == TN_DTYPE_UNDEFINED) return NULL;
        if (inplace && ct != dt) {
            PyErr_Format(PyExc_RuntimeError, "result type %s can't be cast to the desired output type %s",
                         tn_dtype_cpp_name(ct), tn_dtype_cxx_name(dt));
            return NULL;
        }
        if (tn_dtype_is_complex(ct)) return clamp_cplx();
    }
    PyObject *so = self->u.obj;
    if (out && tn_check_overlap(out, 1, &so) < 0) return NULL;
    if (tn_out_dtype_found(out, ct) < 0) return NULL;
    const tn_value *bs[2] = {hl ? mn : NULL, hh ? mx : NULL};
    for (int i = 0; i < 2; i++)
        if (bs[i] && bs[i]->tag == TN_V_COMPLEX && bs[i]->u.c.im != 0) {
            PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type double without overflow");
            return NULL;
        }
    /* a NaN bound fills the result with NaN before any kernel (upstream's clamp / clamp_min /
     * clamp_max: so a float8 self runs too, measured) */
    for (int i = 0; i < 2; i++)
        if (bs[i] && bs[i]->tag == TN_V_FLOAT && isnan(bs[i]->u.f))
            return urun_fill("clamp", self->u.obj, ct, bs[i], out, inplace, true);
    tn_loop loop = tn_clamp_loop(ct);
    if (!loop || !tn_dtype_computable(ct) || (ct == TN_DTYPE_BOOL && !tn_door_on_meta()))   /* upstream's scalar stubs: no bool */
        return tn_kernel_missing_cpu(hl && hh ? "clamp_scalar" : hl ? "clamp_min_scalar" : "clamp_max_scalar", ct);
    if ((hl && tn_cr_check_scalar(mn, ct) < 0) || (hh && tn_cr_check_scalar(mx, ct) < 0)) return NULL;
    tn_clamp_params p;
    memset(&p, 0, sizeof p);
    p.has_min = hl;
    p.has_max = hh;
    if (hl) p.min = num_scalar(mn);
    if (hh) p.max = num_scalar(mx);
    return urun("clamp", loop, &p, self->u.obj, ct, ct, out, inplace, true);
}

/* The Tensor overloads (measured): clamp's own meta refuses a complex self first (clamp_min /
 * clamp_max have no such check); then the iterator (overlap, promotion, shapes, casts); then the
 * kernel refuses a dtype it lacks, complex among them, by the stub's name: clamp with both bounds,
 * else maximum (a min) or minimum (a max). */
static PyObject *clamp_tensor(tn_value *self, tn_value *mn, tn_value *mx, PyObject *out, bool inplace, bool one) {
    bool hl = mn && mn->tag != TN_V_NONE, hh = mx && mx->tag != TN_V_NONE;
    if (!hl && !hh) return clamp_none(out != NULL);
    if (!one && tn_dtype_is_complex(TN_T(*self)->dtype)) return clamp_cplx();
    tn_value vals[3];
    const tn_tensor *ts[3];
    int n = 0;
    vals[n] = *self; ts[n++] = TN_T(*self);
    if (hl) { vals[n] = *mn; ts[n++] = TN_T(*mn); }
    if (hh) { vals[n] = *mx; ts[n++] = TN_T(*mx); }
    PyObject *given[3] = {self->u.obj, hl ? mn->u.obj : NULL, hh ? mx->u.obj : NULL};
    if ((inplace || out) && tn_check_overlap(inplace ? self->u.obj : out, 3, given) < 0) return NULL;
    tn_dtype ct = tn_result_type(n, vals);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    /* no bool in upstream's clamp stub (both bounds); maximum / minimum (one bound) take it */
    tn_loop loop = tn_dtype_is_complex(ct) || !tn_dtype_computable(ct) || (ct == TN_DTYPE_BOOL && hl && hh && !tn_door_on_meta())
                       ? NULL : tn_clamp_tensor_loop(ct);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(n, ts, &nd, shape) < 0) return NULL;
    tn_tensor *t = TN_T(*self);
    if (inplace) {
        if (!same_shape(t, nd, shape)) return shape_mismatch(t, nd, shape);
        if (!tn_can_cast(ct, t->dtype)) return tn_cast_error(ct, t->dtype);
    } else if (out) {
        /* an ordinary promoting iterator: out= takes any dtype the common one casts to (measured:
         * clamp(f32, min=f64, out=f16) runs); only the Scalar overloads want it exactly */
        if (tn_out_prepare(out, nd, shape, ct, "clamp") < 0) return NULL;
    }
    if (!loop) return tn_kernel_missing_cpu(hl && hh ? "clamp" : hl ? "maximum" : "minimum", ct);
    PyObject *x = tn_as_dtype(self->u.obj, ct, false), *lo = NULL, *hi = NULL, *res = NULL;
    if (!x) return NULL;
    lo = hl ? tn_as_dtype(mn->u.obj, ct, false) : Py_NewRef(x);
    if (!lo) goto done;
    hi = hh ? tn_as_dtype(mx->u.obj, ct, false) : Py_NewRef(x);
    if (!hi) goto done;
    res = tn_new_result(nd, shape, ct, n, ts);
    if (!res) goto done;
    tn_clamp_params p;
    memset(&p, 0, sizeof p);
    p.has_min = hl;
    p.has_max = hh;
    PyObject *ins[3] = {x, lo, hi};
    tn_run_loop(loop, &p, res, 3, ins);
done:
    Py_DECREF(x);
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    return deliver(res, inplace ? self->u.obj : out);
}

#define CLAMP_ALL(fn)                                                                           \
    DEF(fn, clamp_scalar(&a[0], &a[1], &a[2], NULL, false, false))                              \
    DEF(fn##_, clamp_scalar(&a[0], &a[1], &a[2], NULL, true, false))                            \
    DEF(fn##_out, clamp_scalar(&a[0], &a[1], &a[2], OUT(3), false, false))                      \
    DEF(fn##_Tensor, clamp_tensor(&a[0], &a[1], &a[2], NULL, false, false))                     \
    DEF(fn##__Tensor, clamp_tensor(&a[0], &a[1], &a[2], NULL, true, false))                     \
    DEF(fn##_Tensor_out, clamp_tensor(&a[0], &a[1], &a[2], OUT(3), false, false))
CLAMP_ALL(clamp)
CLAMP_ALL(clip)

/* clamp_min / clamp_max: one bound (`lo` says which) */
#define CLAMP_ONE(fn, L, H)                                                                     \
    DEF(fn, clamp_scalar(&a[0], L, H, NULL, false, true))                                       \
    DEF(fn##_, clamp_scalar(&a[0], L, H, NULL, true, true))                                     \
    DEF(fn##_out, clamp_scalar(&a[0], L, H, OUT(2), false, true))                               \
    DEF(fn##_Tensor, clamp_tensor(&a[0], L, H, NULL, false, true))                              \
    DEF(fn##__Tensor, clamp_tensor(&a[0], L, H, NULL, true, true))                              \
    DEF(fn##_Tensor_out, clamp_tensor(&a[0], L, H, OUT(2), false, true))
CLAMP_ONE(clamp_min, &a[1], NULL)
CLAMP_ONE(clamp_max, NULL, &a[1])

PyObject *tn_op_elu(tn_value *a) { return elu_impl(a, NULL, false); }
PyObject *tn_op_elu_(tn_value *a) { return elu_impl(a, NULL, true); }
PyObject *tn_op_elu_out(tn_value *a) { return elu_impl(a, a[4].u.obj, false); }

/* celu(self, alpha=1): elu with scale 1 and input_scale 1/alpha (upstream's celu calls elu) */
static PyObject *celu_impl(tn_value *a, bool inplace) {
    /* upstream: alpha.to<double>() (a complex alpha refuses), then elu(alpha, 1, 1 / alpha); on
     * meta its reference instead: alpha's Python type against self's dtype, and a zero alpha
     * runs (docs/breadth_more2.md "group meta2 (session 40)") */
    const bool meta = tn_door_on_meta();
    if (meta && tn_ref_weak_type_check("alpha", &a[1], TN_T(a[0])->dtype) < 0) return NULL;
    const tn_tensor *st = TN_T(a[0]);
    if (meta && (tn_dtype_is_integral(st->dtype, true) || tn_dtype_is_complex(st->dtype)))   /* in self's dtype */
        return inplace ? Py_NewRef(a[0].u.obj) : tn_tensor_new_empty(st->ndim, st->sizes, st->dtype, TN_DEVICE_CPU);
    if (tn_cr_check_scalar(&a[1], TN_DTYPE_F64) < 0) return NULL;
    double alpha = tn_value_as_double(&a[1]);
    if (alpha == 0 && !meta) {
        PyErr_SetString(PyExc_RuntimeError, "ZeroDivisionError: alpha cannot be 0 for CELU");
        return NULL;
    }
    tn_pw_elu_params p = {alpha, 1.0, 1.0 / alpha};
    tn_value ss[3] = {a[1], {.tag = TN_V_FLOAT, .u.f = 1.0}, {.tag = TN_V_FLOAT, .u.f = 1.0 / alpha}};
    return float_act_s("elu", tn_pw_elu_loop, &p, a, NULL, inplace, 3, ss);
}
PyObject *tn_op_celu(tn_value *a) { return celu_impl(a, false); }
PyObject *tn_op_celu_(tn_value *a) { return celu_impl(a, true); }

/* hardtanh(self, min_val=-1, max_val=1): upstream's clamp without type promotion: for an
 * integral self the limits become int64 first (and uint8 refuses negative ones) */
static PyObject *hardtanh_impl(tn_value *a, PyObject *out, bool inplace) {
    tn_dtype dt = TN_T(a[0])->dtype;
    if (dt == TN_DTYPE_BOOL) {
        PyErr_SetString(PyExc_RuntimeError, "Bool inputs not supported for hardtanh");
        return NULL;
    }
    if (tn_door_on_meta() && !out && !tn_dtype_is_integral(dt, true)) {
        /* upstream's meta hardtanh (its Python decomposition) of a floating or complex self keeps
         * self's dtype and checks no limit: 1e308 or 1j run (measured) */
        const tn_tensor *t0 = TN_T(a[0]);
        return inplace ? Py_NewRef(a[0].u.obj) : tn_new_result(t0->ndim, t0->sizes, dt, 1, &t0);
    }
    tn_value lim[2] = {a[1], a[2]};
    if (tn_dtype_is_integral(dt, false)) {
        for (int i = 0; i < 2; i++) {
            if (lim[i].tag != TN_V_INT) {
                if (tn_check_kernel_scalar(&lim[i], TN_DTYPE_I64, false) < 0) return NULL;   /* a complex limit too */
                double v = tn_value_as_double(&lim[i]);
                bool im = lim[i].tag == TN_V_COMPLEX && lim[i].u.c.im != 0;   /* measured: refused as well */
                if (im || !(v >= -0x1p63 && v < 0x1p63)) {
                    PyErr_Format(PyExc_RuntimeError, "value cannot be converted to type int64_t without overflow");
                    return NULL;
                }
                lim[i].tag = TN_V_INT;
                lim[i].u.i = (int64_t)v;
            }
        }
        if (dt == TN_DTYPE_U8 && (lim[0].u.i < 0 || lim[1].u.i < 0)) {
            PyErr_SetString(PyExc_RuntimeError, "cannot do hardtanh on an unsigned type with negative limits");
            return NULL;
        }
    }
    return clamp_scalar(&a[0], &lim[0], &lim[1], out, inplace, false);
}
PyObject *tn_op_hardtanh(tn_value *a) { return hardtanh_impl(a, NULL, false); }
PyObject *tn_op_hardtanh_(tn_value *a) { return hardtanh_impl(a, NULL, true); }
PyObject *tn_op_hardtanh_out(tn_value *a) { return hardtanh_impl(a, a[3].u.obj, false); }
/* ---------------------------------------------------------------- gamma family (helper-opb)
 * digamma / trigamma / polygamma / lgamma (kernels/ref/unary.c), upstream's unary float ops;
 * mvlgamma as upstream's composite (UnaryOps.cpp): lgamma_ of arange((1-p)/2, 0.5, 0.5) + x[..., None],
 * summed over the last dim, plus p(p-1)/4 log(pi), each step through the door. special_* are
 * upstream's aliases. */
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

U3(digamma, DIGAMMA, U_FLOAT)
U3(lgamma, LGAMMA, U_FLOAT)
PyObject *tn_op_special_psi(tn_value *a) { return unary(&us_digamma, a, NULL, false); }
PyObject *tn_op_special_psi_out(tn_value *a) { return unary(&us_digamma, a, a[1].u.obj, false); }
PyObject *tn_op_special_digamma(tn_value *a) { return unary(&us_digamma, a, NULL, false); }
PyObject *tn_op_special_digamma_out(tn_value *a) { return unary(&us_digamma, a, a[1].u.obj, false); }
PyObject *tn_op_special_gammaln(tn_value *a) { return unary(&us_lgamma, a, NULL, false); }
PyObject *tn_op_special_gammaln_out(tn_value *a) { return unary(&us_lgamma, a, a[1].u.obj, false); }

static PyObject *polygamma_run(int64_t n, tn_value *self, PyObject *out, bool inplace) {
    if (n < 0) {
        PyErr_SetString(PyExc_RuntimeError, "polygamma(n, x) does not support negative n.");
        return NULL;
    }
    return unary_ex(TN_UNARY_POLYGAMMA, "polygamma", U_FLOAT, self, out, inplace, &n);
}
/* polygamma(int n, Tensor self), polygamma.out(n, self, *, out), polygamma_(self, n) */
PyObject *tn_op_polygamma(tn_value *a) { return polygamma_run(a[0].u.i, &a[1], NULL, false); }
PyObject *tn_op_polygamma_out(tn_value *a) { return polygamma_run(a[0].u.i, &a[1], a[2].u.obj, false); }
PyObject *tn_op_polygamma_(tn_value *a) { return polygamma_run(a[1].u.i, &a[0], NULL, true); }
PyObject *tn_op_special_polygamma(tn_value *a) { return tn_op_polygamma(a); }
PyObject *tn_op_special_polygamma_out(tn_value *a) { return tn_op_polygamma_out(a); }

/* upstream's mvlgamma(self, p) */
static PyObject *mvlgamma_compute(PyObject *self, int64_t p) {
    tn_dtype dt = tn_tensor_of(self)->dtype;
    if (dt == TN_DTYPE_BOOL) {
        PyErr_SetString(PyExc_RuntimeError, "The input tensor may not be a boolean tensor.");
        return NULL;
    }
    if (p < 1) {
        PyErr_SetString(PyExc_RuntimeError, "p has to be greater than or equal to 1");
        return NULL;
    }
    tn_dtype ad = is_int(dt) ? tn_py.default_dtype : dt;
    PyObject *args = tn_at_arange_start_step(TN_SD(-(double)p * 0.5 + 0.5), TN_SD(0.5), TN_SD(0.5), TN_DT(ad), NULL, NULL, NULL);
    PyObject *u = args ? tn_at_unsqueeze(self, -1) : NULL;
    PyObject *s = u ? tn_at_add_Tensor(args, u, TN_SDEF) : NULL;
    PyObject *l = s ? tn_at_lgamma_(s) : NULL;
    PyObject *sm = l ? tn_at_sum_dim_IntList(s, TN_IS(-1), false, NULL) : NULL;
    PyObject *r = sm ? tn_at_add__Scalar(sm, TN_SD((double)(p * (p - 1)) * log(3.14159265358979323846) * 0.25), TN_SDEF) : NULL;
    Py_XDECREF(args); Py_XDECREF(u); Py_XDECREF(s); Py_XDECREF(l);
    if (!r) { Py_XDECREF(sm); return NULL; }
    Py_DECREF(r);
    return sm;
}
PyObject *tn_op_mvlgamma(tn_value *a) { return mvlgamma_compute(a[0].u.obj, a[1].u.i); }
PyObject *tn_op_special_multigammaln(tn_value *a) { return mvlgamma_compute(a[0].u.obj, a[1].u.i); }
/* mvlgamma_ / mvlgamma.out: computed, checked for a cast into the target, copied */
static PyObject *mvlgamma_into(PyObject *self, int64_t p, PyObject *dst, bool resize) {
    PyObject *r = mvlgamma_compute(self, p);
    if (!r) return NULL;
    tn_dtype rd = tn_tensor_of(r)->dtype, dd = tn_tensor_of(dst)->dtype;
    if (!tn_can_cast(rd, dd)) {
        PyErr_Format(PyExc_RuntimeError, "mvlgamma: result type %s can't be cast to the desired output type %s",
                     tn_dtype_cpp_name(tn_tensor_of(self)->dtype), tn_dtype_cpp_name(rd));
        Py_DECREF(r);
        return NULL;
    }
    if (resize && tn_out_prepare(dst, tn_tensor_of(r)->ndim, tn_tensor_of(r)->sizes, rd, "mvlgamma") < 0) {
        Py_DECREF(r);
        return NULL;
    }
    PyObject *c = tn_at_copy_(dst, r, false);
    Py_DECREF(r);
    return c;
}
PyObject *tn_op_mvlgamma_(tn_value *a) { return mvlgamma_into(a[0].u.obj, a[1].u.i, a[0].u.obj, false); }
PyObject *tn_op_mvlgamma_out(tn_value *a) { return mvlgamma_into(a[0].u.obj, a[1].u.i, a[2].u.obj, true); }
PyObject *tn_op_special_multigammaln_out(tn_value *a) { return mvlgamma_into(a[0].u.obj, a[1].u.i, a[2].u.obj, true); }
