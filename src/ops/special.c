/* special.c — the special-function family: i0 / special_i0e / i1 / i1e, sinc, erfinv, ndtri,
 * ndtr, entr, angle, the Bessel / Airy functions, heaviside, gcd / lcm, logaddexp2, xlog1py,
 * zeta, the orthogonal polynomials, frexp / ldexp, complex / polar, nansum / nanmean.
 *
 * Kernels are kernels/ref/special.c (upstream's CPU algorithms). Two small drivers follow
 * upstream's TensorIterator rules as measured on torch 2.13: `sp_unary` (integer / bool inputs
 * promote to the default float for the float ops) and `sp_binary` (result_type promotion, the
 * same optional int->float promotion; Scalar overloads wrap their number as a 0-dim wrapped
 * number), each with in-place / out= checks; results are computed into a fresh tensor (or
 * written straight into a dense target of the result dtype) and copied into the target.
 * Composites (ldexp, special_ndtr, nanmean, the special_* aliases) call their pieces through
 * the door, as upstream's composites do. */
#include "ops/common.h"
#include "kernels/special.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include <math.h>

static bool is_int(tn_dtype d) { return tn_dtype_is_integral(d, true); }


/* Deliver res into target (in-place self or out=), or return res. */
static PyObject *deliver(PyObject *res, PyObject *target) {
    if (!res || !target) return res;
    int r = tn_copy_into(target, res);
    Py_DECREF(res);
    return r < 0 ? NULL : Py_NewRef(target);
}

/* Run a loop with n inputs (already of the compute dtype) into a result of dtype rt and the
 * broadcast shape, delivered to in-place self (ins0 is self) / out=. */
/* the operands' broadcast shape; in place, the self's shape must be it (upstream's TensorIterator
 * checks both before its dtype dispatch) */
static int broadcast_shape(const tn_tensor *const *ts, int nin, bool inplace, int *nd, int64_t *shape) {
    if (tn_broadcast_tensors_shape(nin, ts, nd, shape) < 0) return -1;
    const tn_tensor *t = ts[0];
    if (inplace && (t->ndim != *nd || memcmp(t->sizes, shape, (size_t)*nd * sizeof *shape))) {
        char a[128], b[128];
        tn_shape_str(a, sizeof a, t->ndim, t->sizes);
        tn_shape_str(b, sizeof b, *nd, shape);
        PyErr_Format(PyExc_RuntimeError, "output with shape %s doesn't match the broadcast shape %s", a, b);
        return -1;
    }
    return 0;
}

static PyObject *run_into(const char *name, tn_loop loop, PyObject *const *orig, PyObject *const *ins, int nin,
                          tn_dtype rt, PyObject *out, bool inplace) {
    const tn_tensor *ts[3];
    for (int i = 0; i < nin; i++) ts[i] = tn_tensor_of(orig[i]);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (broadcast_shape(ts, nin, inplace, &nd, shape) < 0) return NULL;
    PyObject *target = inplace ? orig[0] : out;
    if (inplace && !tn_can_cast(rt, ts[0]->dtype)) return tn_cast_error(rt, ts[0]->dtype);
    if (target && tn_check_overlap(target, nin, orig) < 0) return NULL;
    if (out && tn_out_prepare(out, nd, shape, rt, name) < 0) return NULL;
    if (!loop) return NULL;
    bool direct = target && tn_inplace_direct(target, rt, nin, ins);
    PyObject *res = direct ? Py_NewRef(target) : tn_new_result(nd, shape, rt, nin, ts);
    if (!res) return NULL;
    tn_run_loop(loop, NULL, res, nin, ins);
    if (direct) { tn_tensor_of(res)->storage->version++; return res; }
    return deliver(res, target);
}

/* ---------------------------------------------------------------- unary */
enum { SP_FLOAT = 1 };

static PyObject *sp_unary(tn_special_unary_op op, const char *name, PyObject *self, PyObject *out, bool inplace,
                          unsigned fl) {
    tn_dtype dt = tn_tensor_of(self)->dtype, ct = dt;
    if ((fl & SP_FLOAT) && is_int(ct)) ct = tn_py.default_dtype;
    tn_dtype rt = ct;
    if (op == TN_SPU_ANGLE && tn_dtype_is_complex(ct)) rt = ct == TN_DTYPE_C64 ? TN_DTYPE_F32 : TN_DTYPE_F64;
    tn_loop loop = tn_special_unary_loop(op, ct);
    if (!loop) {
        /* upstream checks the out= / in-place dtype first (complex sinc too, which upstream has) */
        if (inplace && !tn_can_cast(rt, dt)) return tn_cast_error(rt, dt);
        if (out && !tn_can_cast(rt, tn_tensor_of(out)->dtype)) return tn_cast_error(rt, tn_tensor_of(out)->dtype);
        if (op == TN_SPU_SINC && tn_dtype_is_complex(ct))
            return tn_refuse_op(inplace ? TN_ROW_sinc_ : out ? TN_ROW_sinc_out : TN_ROW_sinc);
        return tn_kernel_missing_cpu(name, ct);
    }
    PyObject *x = tn_as_dtype(self, ct, false);
    if (!x) return NULL;
    PyObject *r = run_into(name, loop, &self, &x, 1, rt, out, inplace);
    Py_DECREF(x);
    return r;
}

#define SPU3(fn, OP, kname)                                                                     \
    PyObject *tn_op_##fn(tn_value *a) { return sp_unary(TN_SPU_##OP, kname, a[0].u.obj, NULL, false, SP_FLOAT); } \
    PyObject *tn_op_##fn##_(tn_value *a) { return sp_unary(TN_SPU_##OP, kname, a[0].u.obj, NULL, true, SP_FLOAT); } \
    PyObject *tn_op_##fn##_out(tn_value *a) { return sp_unary(TN_SPU_##OP, kname, a[0].u.obj, a[1].u.obj, false, SP_FLOAT); }
#define SPU2(fn, OP, kname)                                                                     \
    PyObject *tn_op_##fn(tn_value *a) { return sp_unary(TN_SPU_##OP, kname, a[0].u.obj, NULL, false, SP_FLOAT); } \
    PyObject *tn_op_##fn##_out(tn_value *a) { return sp_unary(TN_SPU_##OP, kname, a[0].u.obj, a[1].u.obj, false, SP_FLOAT); }

SPU3(i0, I0, "i0")
SPU3(sinc, SINC, "sinc")
SPU3(erfinv, ERFINV, "erfinv")
SPU2(special_i0e, I0E, "i0e")
SPU2(special_i1, I1, "i1")
SPU2(special_i1e, I1E, "i1e")
SPU2(special_ndtri, NDTRI, "ndtri")
SPU2(special_entr, ENTR, "entr")
SPU2(special_bessel_j0, BESSEL_J0, "bessel_j0")
SPU2(special_bessel_j1, BESSEL_J1, "bessel_j1")
SPU2(special_bessel_y0, BESSEL_Y0, "bessel_y0")
SPU2(special_bessel_y1, BESSEL_Y1, "bessel_y1")
SPU2(special_modified_bessel_i0, MOD_I0, "modified_bessel_i0")
SPU2(special_modified_bessel_i1, MOD_I1, "modified_bessel_i1")
SPU2(special_modified_bessel_k0, MOD_K0, "modified_bessel_k0")
SPU2(special_modified_bessel_k1, MOD_K1, "modified_bessel_k1")
SPU2(special_scaled_modified_bessel_k0, SCALED_K0, "scaled_modified_bessel_k0")
SPU2(special_scaled_modified_bessel_k1, SCALED_K1, "scaled_modified_bessel_k1")
SPU2(special_spherical_bessel_j0, SPH_J0, "spherical_bessel_j0")
SPU2(special_airy_ai, AIRY_AI, "airy_ai")
SPU2(special_erfcx, ERFCX, "erfcx")
SPU2(special_log_ndtr, LOG_NDTR, "log_ndtr")
/* angle: real inputs (integers promote) and complex ones (atan2 into the real dtype) */
SPU2(angle, ANGLE, "angle")

/* the special_* aliases upstream defines as CompositeImplicitAutograd */
PyObject *tn_op_special_i0(tn_value *a) { return tn_door_call(TN_ROW_i0, a); }
PyObject *tn_op_special_i0_out(tn_value *a) { return tn_door_call(TN_ROW_i0_out, a); }
PyObject *tn_op_special_sinc(tn_value *a) { return tn_door_call(TN_ROW_sinc, a); }
PyObject *tn_op_special_sinc_out(tn_value *a) { return tn_door_call(TN_ROW_sinc_out, a); }
PyObject *tn_op_special_erfinv(tn_value *a) { return tn_door_call(TN_ROW_erfinv, a); }
PyObject *tn_op_special_erfinv_out(tn_value *a) { return tn_door_call(TN_ROW_erfinv_out, a); }

/* special_ndtr (upstream's composite): x_sqrt_2 = self * M_SQRT1_2; (1 + erf(x_sqrt_2)) * 0.5.
 * The out= form computes that, checks the cast into out, resizes out (resize_output's warning)
 * and copies (a copy_ autograd records: an input requiring grad gives out a CopyBackwards; an
 * expanded out of another shape is replaced, not refused) (measured: docs/breadth_more2.md "Fuzz
 * corpus: calls upstream runs, fourth pass") */
static PyObject *ndtr_compute(PyObject *self, PyObject *out) {
    PyObject *xs = tn_at_mul_Scalar(self, TN_SD(0.70710678118654752440));
    PyObject *e = xs ? tn_at_erf(xs) : NULL;
    PyObject *p = e ? tn_at_add_Scalar(e, TN_SD(1.0), TN_SDEF) : NULL;
    PyObject *r = p ? tn_at_mul_Scalar(p, TN_SD(0.5)) : NULL;
    Py_XDECREF(xs); Py_XDECREF(e); Py_XDECREF(p);
    if (r && out) {
        tn_tensor *rt = tn_tensor_of(r);
        PyObject *c = tn_out_prepare(out, rt->ndim, rt->sizes, rt->dtype, "special_ndtr") < 0 ? NULL : tn_at_copy_(out, r, false);
        Py_DECREF(r);
        r = c;
    }
    return r;
}
PyObject *tn_op_special_ndtr(tn_value *a) { return ndtr_compute(a[0].u.obj, NULL); }
PyObject *tn_op_special_ndtr_out(tn_value *a) { return ndtr_compute(a[0].u.obj, a[1].u.obj); }

/* ---------------------------------------------------------------- binary */
enum { SB_FLOAT = 1 };


static PyObject *sp_binary(tn_special_binary_op op, const char *name, tn_value *a, tn_value *b, PyObject *out,
                           bool inplace, unsigned fl) {
    tn_value pair[2] = {*a, *b};
    /* upstream's TensorIterator checks the written tensor's overlap first (measured) */
    PyObject *target = inplace ? a->u.obj : out, *operands[2] = {a->u.obj, b->u.obj};
    if (target && tn_check_overlap(target, 2, operands) < 0) return NULL;
    tn_dtype ct = tn_result_type(2, pair);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    if ((fl & SB_FLOAT) && is_int(ct)) ct = tn_py.default_dtype;
    if (op == TN_SPB_HEAVISIDE) {   /* upstream's meta: out= takes part in both checks (measured) */
        tn_dtype odt = out ? tn_tensor_of(out)->dtype : TN_T(*a)->dtype;
        if (tn_dtype_is_complex(ct) || tn_dtype_is_complex(odt)) {
            PyErr_SetString(PyExc_RuntimeError, "heaviside is not yet implemented for complex tensors.");
            return NULL;
        }
        if (TN_T(*a)->dtype != TN_T(*b)->dtype || odt != TN_T(*a)->dtype) {
            PyErr_SetString(PyExc_RuntimeError, "heaviside is not yet implemented for tensors with different dtypes.");
            return NULL;
        }
    }
    tn_loop loop = tn_special_binary_loop(op, ct);
    PyObject *orig[2] = {a->u.obj, b->u.obj};
    if (!loop) {
        const tn_tensor *ts[2] = {TN_T(*a), TN_T(*b)};
        int nd;
        int64_t shape[TN_MAX_DIMS];
        if (broadcast_shape(ts, 2, inplace, &nd, shape) < 0) return NULL;
        tn_dtype td = inplace ? TN_T(*a)->dtype : out ? tn_tensor_of(out)->dtype : ct;
        if (!tn_can_cast(ct, td)) return tn_cast_error(ct, td);
        /* on meta, upstream's meta functions / references of these build the iterator only: any
         * dtype gets its result, igamma's integral ones promoted to the default dtype, lcm of bool
         * refused by its reference's int64 result (measured, docs/breadth_more2.md group nieok) */
        if (tn_door_on_meta() && op != TN_SPB_HEAVISIDE && op != TN_SPB_LOGADDEXP2) {
            if (op == TN_SPB_LCM && ct == TN_DTYPE_BOOL) {
                PyErr_SetString(PyExc_RuntimeError, "Tensor with dtype torch.int64 is not the expected dtype of torch.bool!");
                return NULL;
            }
            if ((op == TN_SPB_IGAMMA || op == TN_SPB_IGAMMAC) && is_int(ct)) ct = tn_py.default_dtype;
            if (inplace) return Py_NewRef(a->u.obj);
            if (out) return tn_out_prepare(out, nd, shape, td, name) < 0 ? NULL : Py_NewRef(out);
            return tn_new_result(nd, shape, ct, 2, ts);
        }
        return tn_kernel_missing_cpu(name, ct);
    }
    PyObject *x = tn_as_dtype(orig[0], ct, false);
    PyObject *y = x ? tn_as_dtype(orig[1], ct, false) : NULL;
    PyObject *r = NULL;
    if (y) {
        PyObject *ins[2] = {x, y};
        r = run_into(name, loop, orig, ins, 2, ct, out, inplace);
    }
    Py_XDECREF(x);
    Py_XDECREF(y);
    return r;
}
static PyObject *sb_ts(tn_special_binary_op op, const char *name, tn_value *a, bool scalar_first, PyObject *out,
                       unsigned fl) {
    tn_value w;
    if (tn_value_as_tensor(scalar_first ? &a[0] : &a[1], &w) < 0) return NULL;
    PyObject *r = scalar_first ? sp_binary(op, name, &w, &a[1], out, false, fl) : sp_binary(op, name, &a[0], &w, out, false, fl);
    Py_DECREF(w.u.obj);
    return r;
}

#define SPB3(fn, OP, kname, FL)                                                                 \
    PyObject *tn_op_##fn(tn_value *a) { return sp_binary(TN_SPB_##OP, kname, &a[0], &a[1], NULL, false, FL); } \
    PyObject *tn_op_##fn##_(tn_value *a) { return sp_binary(TN_SPB_##OP, kname, &a[0], &a[1], NULL, true, FL); } \
    PyObject *tn_op_##fn##_out(tn_value *a) { return sp_binary(TN_SPB_##OP, kname, &a[0], &a[1], a[2].u.obj, false, FL); }
SPB3(heaviside, HEAVISIDE, "heaviside", 0)
SPB3(gcd, GCD, "gcd", 0)
SPB3(lcm, LCM, "lcm", 0)
SPB3(igamma, IGAMMA, "igamma", 0)
SPB3(igammac, IGAMMAC, "igammac", 0)
/* special_gammainc / special_gammaincc: upstream's CompositeImplicitAutograd aliases */
PyObject *tn_op_special_gammainc(tn_value *a) { return tn_door_call(TN_ROW_igamma, a); }
PyObject *tn_op_special_gammainc_out(tn_value *a) { return tn_door_call(TN_ROW_igamma_out, a); }
PyObject *tn_op_special_gammaincc(tn_value *a) { return tn_door_call(TN_ROW_igammac, a); }
PyObject *tn_op_special_gammaincc_out(tn_value *a) { return tn_door_call(TN_ROW_igammac_out, a); }
PyObject *tn_op_logaddexp2(tn_value *a) { return sp_binary(TN_SPB_LOGADDEXP2, "logaddexp2", &a[0], &a[1], NULL, false, 0); }
PyObject *tn_op_logaddexp2_out(tn_value *a) { return sp_binary(TN_SPB_LOGADDEXP2, "logaddexp2", &a[0], &a[1], a[2].u.obj, false, 0); }

/* the six overloads of a (Tensor|Scalar, Tensor|Scalar) float op */
#define SPB6(fn, x, n, OP, kname)                                                               \
    PyObject *tn_op_##fn(tn_value *a) { return sp_binary(TN_SPB_##OP, kname, &a[0], &a[1], NULL, false, SB_FLOAT); } \
    PyObject *tn_op_##fn##_out(tn_value *a) { return sp_binary(TN_SPB_##OP, kname, &a[0], &a[1], a[2].u.obj, false, SB_FLOAT); } \
    PyObject *tn_op_##fn##_##x##_scalar(tn_value *a) { return sb_ts(TN_SPB_##OP, kname, a, true, NULL, SB_FLOAT); } \
    PyObject *tn_op_##fn##_##x##_scalar_out(tn_value *a) { return sb_ts(TN_SPB_##OP, kname, a, true, a[2].u.obj, SB_FLOAT); } \
    PyObject *tn_op_##fn##_##n##_scalar(tn_value *a) { return sb_ts(TN_SPB_##OP, kname, a, false, NULL, SB_FLOAT); } \
    PyObject *tn_op_##fn##_##n##_scalar_out(tn_value *a) { return sb_ts(TN_SPB_##OP, kname, a, false, a[2].u.obj, SB_FLOAT); }
SPB6(special_xlog1py, self, other, XLOG1PY, "xlog1py")
SPB6(special_zeta, self, other, ZETA, "zeta")
/* The orthogonal polynomials run an n-step recurrence per element, as upstream's kernels do,
 * stopping at a NaN (or an overflow that leads to one: |x| > 1 grows exponentially), so a huge
 * degree costs nothing where the closed forms (|x| < 1 for the Chebyshev family) or a NaN end it.
 * An element still going after 2^24 steps (a bounded Laguerre / Legendre value, where upstream's
 * loop takes seconds at n = 3e9 and runs to 2^62) stops the run: it is refused by name, the
 * kernel's step budget (kernels/special.h; docs/breadth_more2.md, group nieok, session 37). */
static PyObject *poly_refuse_overrun(const char *kname, PyObject *r) {
    if (!r || !tn_special_poly_overran()) return r;
    Py_DECREF(r);
    char what[160];
    snprintf(what, sizeof what, "%s of an element whose recurrence would run past 2^24 steps (a degree above 2^24 "
             "that no NaN ends early)", kname);
    return tn_not_implemented(what);
}
#define SPBP(fn, OP, kname)                                                                     \
    static PyObject *poly_##fn(tn_value *a, bool scalar_x, bool scalar_n, PyObject *out) {      \
        tn_special_poly_reset();                                                                \
        PyObject *r = scalar_x   ? sb_ts(TN_SPB_##OP, kname, a, true, out, SB_FLOAT)            \
                      : scalar_n ? sb_ts(TN_SPB_##OP, kname, a, false, out, SB_FLOAT)           \
                                 : sp_binary(TN_SPB_##OP, kname, &a[0], &a[1], out, false, SB_FLOAT); \
        return poly_refuse_overrun(kname, r);                                                   \
    }                                                                                           \
    PyObject *tn_op_##fn(tn_value *a) { return poly_##fn(a, false, false, NULL); }              \
    PyObject *tn_op_##fn##_out(tn_value *a) { return poly_##fn(a, false, false, a[2].u.obj); }  \
    PyObject *tn_op_##fn##_x_scalar(tn_value *a) { return poly_##fn(a, true, false, NULL); }    \
    PyObject *tn_op_##fn##_x_scalar_out(tn_value *a) { return poly_##fn(a, true, false, a[2].u.obj); } \
    PyObject *tn_op_##fn##_n_scalar(tn_value *a) { return poly_##fn(a, false, true, NULL); }    \
    PyObject *tn_op_##fn##_n_scalar_out(tn_value *a) { return poly_##fn(a, false, true, a[2].u.obj); }
SPBP(special_chebyshev_polynomial_t, CHEB_T, "chebyshev_polynomial_t")
SPBP(special_chebyshev_polynomial_u, CHEB_U, "chebyshev_polynomial_u")
SPBP(special_chebyshev_polynomial_v, CHEB_V, "chebyshev_polynomial_v")
SPBP(special_chebyshev_polynomial_w, CHEB_W, "chebyshev_polynomial_w")
SPBP(special_shifted_chebyshev_polynomial_t, SCHEB_T, "shifted_chebyshev_polynomial_t")
SPBP(special_shifted_chebyshev_polynomial_u, SCHEB_U, "shifted_chebyshev_polynomial_u")
SPBP(special_shifted_chebyshev_polynomial_v, SCHEB_V, "shifted_chebyshev_polynomial_v")
SPBP(special_shifted_chebyshev_polynomial_w, SCHEB_W, "shifted_chebyshev_polynomial_w")
SPBP(special_hermite_polynomial_h, HERMITE_H, "hermite_polynomial_h")
SPBP(special_hermite_polynomial_he, HERMITE_HE, "hermite_polynomial_he")
SPBP(special_laguerre_polynomial_l, LAGUERRE_L, "laguerre_polynomial_l")
SPBP(special_legendre_polynomial_p, LEGENDRE_P, "legendre_polynomial_p")

/* ---------------------------------------------------------------- frexp */
static PyObject *frexp_run(PyObject *self, PyObject *mo, PyObject *eo) {
    tn_tensor *t = tn_tensor_of(self);
    if (!tn_dtype_is_floating(t->dtype)) {
        PyErr_SetString(PyExc_RuntimeError,
                        "torch.frexp() only supports floating-point dtypes");
        return NULL;
    }
    if (mo && tn_tensor_of(mo)->dtype != t->dtype) {
        PyErr_Format(PyExc_RuntimeError, "torch.frexp() expects mantissa to have dtype %s but got %s",
                     tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(tn_tensor_of(mo)->dtype));
        return NULL;
    }
    if (eo && tn_tensor_of(eo)->dtype != TN_DTYPE_I32) {
        PyErr_Format(PyExc_RuntimeError, "torch.frexp() expects exponent to have int dtype but got %s",
                     tn_dtype_cpp_name(tn_tensor_of(eo)->dtype));
        return NULL;
    }
    tn_loop loop = tn_special_frexp_loop(t->dtype);
    if (!loop) return tn_kernel_missing_cpu("frexp", t->dtype);
    if (mo && tn_out_prepare(mo, t->ndim, t->sizes, t->dtype, "frexp") < 0) return NULL;
    if (eo && tn_out_prepare(eo, t->ndim, t->sizes, TN_DTYPE_I32, "frexp") < 0) return NULL;
    const tn_tensor *ts[1] = {t};
    PyObject *m = tn_new_result(t->ndim, t->sizes, t->dtype, 1, ts);
    PyObject *e = m ? tn_new_result(t->ndim, t->sizes, TN_DTYPE_I32, 1, ts) : NULL;
    if (!e) { Py_XDECREF(m); return NULL; }
    /* two outputs: run over (mantissa, exponent, x) with the iterator's nout = 2 convention of
     * tn_run_loop: operand 0 is the output, the others inputs; the exponent is passed as an
     * input operand of matching shape so it is walked with its own strides */
    PyObject *ins[2] = {e, self};
    tn_run_loop(loop, NULL, m, 2, ins);
    if (mo) { m = deliver(m, mo); if (!m) { Py_DECREF(e); return NULL; } }
    if (eo) { e = deliver(e, eo); if (!e) { Py_DECREF(m); return NULL; } }
    return tn_return_pair(mo ? "frexp_out" : "frexp", m, e);
}
PyObject *tn_op_frexp_Tensor(tn_value *a) { return frexp_run(a[0].u.obj, NULL, NULL); }
PyObject *tn_op_frexp_Tensor_out(tn_value *a) { return frexp_run(a[0].u.obj, a[1].u.obj, a[2].u.obj); }

/* ---------------------------------------------------------------- ldexp
 * upstream 2.13: an integer (or bool) exponent with a floating self runs C's ldexp into a result
 * of self's dtype; anything else is self * _pow2(self, other), where _pow2 is pow(2.0, other) for
 * integer / float32 self, else a 0-dim 2.0 of self's dtype raised to other. */
static bool ldexp_direct(PyObject *self, PyObject *other) {
    return tn_dtype_is_integral(tn_tensor_of(other)->dtype, true) && tn_dtype_is_floating(tn_tensor_of(self)->dtype);
}
static PyObject *ldexp_kernel(PyObject *self, PyObject *other, PyObject *out, bool inplace) {
    tn_dtype dt = tn_tensor_of(self)->dtype, et = tn_tensor_of(other)->dtype;
    if (et == TN_DTYPE_U16 || et == TN_DTYPE_U32 || et == TN_DTYPE_U64) /* upstream's kernel takes no uint16/32/64 exponent */
        return tn_kernel_missing("ldexp_cpu_exp", et);
    PyObject *e = tn_as_dtype(other, TN_DTYPE_I64, false);
    if (!e) return NULL;
    PyObject *orig[2] = {self, other}, *ins[2] = {self, e};
    PyObject *r = run_into("ldexp", tn_special_ldexp_loop(dt), orig, ins, 2, dt, out, inplace);
    Py_DECREF(e);
    return r;
}
/* a bool exponent of a floating self reaches the kernel, which has no bool one: refused whatever
 * out='s dtype, empty tensors too (measured: docs/breadth_more2.md "fourth pass") */
static bool ldexp_bool_exp(PyObject *self, PyObject *other) {
    if (!ldexp_direct(self, other) || tn_tensor_of(other)->dtype != TN_DTYPE_BOOL) return false;
    const tn_tensor *ts[2] = {tn_tensor_of(self), tn_tensor_of(other)};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) < 0) return true;   /* the iterator's broadcast first */
    tn_kernel_missing("ldexp_cpu_exp", TN_DTYPE_BOOL);
    return true;
}
static PyObject *ldexp_pow2(PyObject *self, PyObject *other) {
    tn_dtype dt = tn_tensor_of(self)->dtype;
    if (tn_dtype_is_integral(dt, true) || dt == TN_DTYPE_F32) return tn_at_pow_Scalar(TN_SD(2.0), other);
    PyObject *two = tn_at_full(TN_IS0, TN_SD(2.0), TN_DT(dt), NULL, NULL, NULL);
    PyObject *r = two ? tn_at_pow_Tensor_Tensor(two, other) : NULL;
    Py_XDECREF(two);
    return r;
}
PyObject *tn_op_ldexp_Tensor(tn_value *a) {
    if (ldexp_bool_exp(a[0].u.obj, a[1].u.obj)) return NULL;
    if (ldexp_direct(a[0].u.obj, a[1].u.obj)) return ldexp_kernel(a[0].u.obj, a[1].u.obj, NULL, false);
    PyObject *p = ldexp_pow2(a[0].u.obj, a[1].u.obj);
    PyObject *r = p ? tn_at_mul_Tensor(a[0].u.obj, p) : NULL;
    Py_XDECREF(p);
    return r;
}
static PyObject *ldexp_out_impl(PyObject *self, PyObject *other, PyObject *out) {
    tn_dtype od = tn_tensor_of(out)->dtype;
    if (tn_dtype_is_integral(od, true)) {
        PyErr_Format(PyExc_RuntimeError, "ldexp can't be cast to the desired output type %s", tn_dtype_cpp_name(od));
        return NULL;
    }
    if (ldexp_bool_exp(self, other)) return NULL;
    if (ldexp_direct(self, other) && od == tn_tensor_of(self)->dtype)
        return ldexp_kernel(self, other, out == self ? NULL : out, out == self);
    PyObject *p = ldexp_pow2(self, other);
    PyObject *r = p ? tn_at_mul_out(self, p, out) : NULL;
    Py_XDECREF(p);
    return r;
}
PyObject *tn_op_ldexp_out(tn_value *a) { return ldexp_out_impl(a[0].u.obj, a[1].u.obj, a[2].u.obj); }
/* ldexp_: self.mul_(pow2): an in-place op, so self keeps its shape (no out= resize) */
PyObject *tn_op_ldexp_(tn_value *a) {
    PyObject *self = a[0].u.obj, *other = a[1].u.obj;
    tn_dtype sd = tn_tensor_of(self)->dtype;
    if (tn_dtype_is_integral(sd, true)) {
        PyErr_Format(PyExc_RuntimeError, "ldexp can't be cast to the desired output type %s", tn_dtype_cpp_name(sd));
        return NULL;
    }
    /* in place the iterator's shape and overlap checks on self come before the kernel (measured:
     * a 0-dim or expanded self raises those); such a call goes the product's way below */
    const tn_tensor *st = tn_tensor_of(self), *ts[2] = {st, tn_tensor_of(other)};
    int nd;
    int64_t shape[TN_MAX_DIMS];
    if (tn_broadcast_tensors_shape(2, ts, &nd, shape) == 0 && nd == st->ndim &&
        !memcmp(shape, st->sizes, (size_t)nd * sizeof *shape) && tn_check_overlap(self, 0, NULL) == 0 &&
        ldexp_bool_exp(self, other))
        return NULL;
    PyErr_Clear();
    if (ldexp_direct(self, other)) return ldexp_kernel(self, other, NULL, true);
    PyObject *p = ldexp_pow2(self, other);
    PyObject *r = p ? tn_at_mul__Tensor(self, p) : NULL;
    Py_XDECREF(p);
    return r;
}

/* ---------------------------------------------------------------- complex / polar */
static PyObject *complex_run(PyObject *re, PyObject *im, PyObject *out, bool polar) {
    tn_dtype d1 = tn_tensor_of(re)->dtype, d2 = tn_tensor_of(im)->dtype;
    bool ok1 = d1 == TN_DTYPE_F32 || d1 == TN_DTYPE_F64 || d1 == TN_DTYPE_F16;
    bool ok2 = d2 == TN_DTYPE_F32 || d2 == TN_DTYPE_F64 || d2 == TN_DTYPE_F16;
    if (!ok1 || !ok2) {
        PyErr_Format(PyExc_RuntimeError, "Expected both inputs to be Half, Float or Double tensors but got %s and %s",
                     tn_dtype_cpp_name(d1), tn_dtype_cpp_name(d2));
        return NULL;
    }
    if (d1 != d2) {
        PyErr_Format(PyExc_RuntimeError, "Expected object of scalar type %s but got scalar type %s for second argument",
                     tn_dtype_cpp_name(d1), tn_dtype_cpp_name(d2));
        return NULL;
    }
    tn_dtype rt = d1 == TN_DTYPE_F64 ? TN_DTYPE_C128 : d1 == TN_DTYPE_F32 ? TN_DTYPE_C64 : TN_DTYPE_C32;
    if (out && tn_tensor_of(out)->dtype != rt) {
        PyErr_Format(PyExc_RuntimeError, "Expected object of scalar type %s but got scalar type %s for argument 'out'",
                     tn_dtype_cpp_name(rt), tn_dtype_cpp_name(tn_tensor_of(out)->dtype));
        return NULL;
    }
    tn_loop loop = tn_special_complex_loop(d1, polar);
    if (!loop && !polar && d1 == TN_DTYPE_F16) {
        /* complex32 results: the halves paired exactly, through float32 / complex64 */
        PyObject *r32 = tn_as_dtype(re, TN_DTYPE_F32, false);
        PyObject *i32 = r32 ? tn_as_dtype(im, TN_DTYPE_F32, false) : NULL;
        PyObject *c = i32 ? complex_run(r32, i32, NULL, false) : NULL;
        /* in the inputs' layout, as the iterator gives */
        const tn_tensor *ct = c ? tn_tensor_of(c) : NULL, *ts[2] = {tn_tensor_of(re), tn_tensor_of(im)};
        PyObject *h = c ? tn_new_result(ct->ndim, ct->sizes, TN_DTYPE_C32, 2, ts) : NULL;
        if (h && tn_copy_into(h, c) < 0) Py_CLEAR(h);
        Py_XDECREF(r32); Py_XDECREF(i32); Py_XDECREF(c);
        return out ? tn_out_deliver(h, out, "complex") : h;
    }
    if (!loop) return tn_kernel_missing_cpu("polar", d1);
    PyObject *orig[2] = {re, im};
    return run_into(polar ? "polar" : "complex", loop, orig, orig, 2, rt, out, false);
}
PyObject *tn_op_complex(tn_value *a) { return complex_run(a[0].u.obj, a[1].u.obj, NULL, false); }
PyObject *tn_op_complex_out(tn_value *a) { return complex_run(a[0].u.obj, a[1].u.obj, a[2].u.obj, false); }
PyObject *tn_op_polar(tn_value *a) { return complex_run(a[0].u.obj, a[1].u.obj, NULL, true); }
PyObject *tn_op_polar_out(tn_value *a) { return complex_run(a[0].u.obj, a[1].u.obj, a[2].u.obj, true); }

/* ---------------------------------------------------------------- nansum / nanmean */
/* nansum: the sum of self with nan entries replaced by 0 (args: self, dim, keepdim, dtype[, out]) */
/* a float8 self cast to out='s dtype (tn_f8_reduces_in); NULL (no error) when that does not apply */
static PyObject *f8_into_out_dtype(const tn_value *self, PyObject *out) {
    if (!out || tn_door_on_meta() || !tn_f8_reduces_in(TN_T(*self)->dtype, tn_tensor_of(out)->dtype))
        return NULL;
    return tn_as_dtype(self->u.obj, tn_tensor_of(out)->dtype, false);
}
static PyObject *nansum_run(tn_value *a, bool with_out) {
    tn_dtype dt = TN_T(a[0])->dtype;
    /* upstream's functional form wraps the dims first (measured; its out= form refuses complex first) */
    uint64_t mask;
    if (!with_out && a[1].tag != TN_V_NONE && !tn_door_on_meta() && tn_dims_mask(TN_T(a[0]), &a[1], true, &mask) < 0)
        return NULL;
    if (tn_dtype_is_complex(dt)) {
        PyErr_SetString(PyExc_RuntimeError, tn_door_on_meta() ? "nansum does not support complex inputs"
                                                               : "nansum on CPU does not support complex inputs");
        return NULL;
    }
    if (with_out && a[3].tag == TN_V_DTYPE && a[3].u.dtype != tn_tensor_of(a[4].u.obj)->dtype) {   /* measured */
        PyErr_Format(PyExc_RuntimeError, "nansum: provided dtype must match dtype of result. Got %s and %s.",
                     tn_dtype_cpp_name(tn_tensor_of(a[4].u.obj)->dtype), tn_dtype_cpp_name(a[3].u.dtype));
        return NULL;
    }
    /* a float8 self is summed in the result's dtype (dtype=, else out='s, else its own): cast to it
     * first when that dtype has a kernel, else refused unless empty (measured: the kernel is not
     * dispatched for an empty self, nor on meta) */
    bool f8 = tn_dtype_infos[dt].kind == TN_KIND_FLOAT8 && !tn_door_on_meta();
    if (f8) {
        tn_dtype target = a[3].tag == TN_V_DTYPE ? a[3].u.dtype : with_out ? tn_tensor_of(a[4].u.obj)->dtype : dt;
        if (tn_dtype_is_floating(target) && tn_dtype_computable(target)) {
            tn_value wa[5];
            memcpy(wa, a, sizeof(tn_value) * (with_out ? 5 : 4));
            if (!(wa[0].u.obj = tn_as_dtype(a[0].u.obj, target, false))) return NULL;
            PyObject *r = nansum_run(wa, with_out);
            Py_DECREF(wa[0].u.obj);
            return r;
        }
        if (tn_numel(TN_T(a[0])) > 0) return tn_kernel_missing("nansum_cpu", target);
        /* empty: the zeros (or empty result) of float32, in the result's dtype */
        tn_value wa[4];
        memcpy(wa, a, sizeof wa);
        wa[3].tag = TN_V_NONE;
        if (!(wa[0].u.obj = tn_as_dtype(a[0].u.obj, TN_DTYPE_F32, false))) return NULL;
        PyObject *r32 = nansum_run(wa, false);
        Py_DECREF(wa[0].u.obj);
        PyObject *r = r32 ? tn_as_dtype(r32, target, false) : NULL;
        Py_XDECREF(r32);
        return with_out ? tn_out_deliver(r, a[4].u.obj, "nansum") : r;
    }
    /* a floating self reduces in the result's dtype: out='s (its kernel is built for the floating
     * dtypes only: bool, integral, complex, float8 refused), else dtype= (complex or float8 refused;
     * an integral one runs), after the reduction's dim wrap; not for an empty self (zero_ instead).
     * Measured: nansum(f32, dtype=complex128), nansum(f32, out=int64) refused, nansum(f32,
     * dtype=int64) runs. */
    if ((dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64 || dt == TN_DTYPE_F16 || dt == TN_DTYPE_BF16) && !tn_door_on_meta()) {
        tn_dtype rd = with_out ? tn_tensor_of(a[4].u.obj)->dtype : a[3].tag == TN_V_DTYPE ? a[3].u.dtype : dt;
        bool bad = tn_dtype_is_complex(rd) || tn_dtype_infos[rd].kind == TN_KIND_FLOAT8 ||
                   (with_out && tn_dtype_is_integral(rd, true) && !tn_dtype_barebones(rd));
        if (bad) {
            if (with_out && a[1].tag != TN_V_NONE && tn_dims_mask(TN_T(a[0]), &a[1], true, &mask) < 0) return NULL;
            if (tn_numel(TN_T(a[0])) != 0) return tn_kernel_missing("nansum_cpu", rd);
        }
    }
    PyObject *clean;
    if (tn_dtype_is_floating(dt) && tn_dtype_infos[dt].kind != TN_KIND_FLOAT8) {
        PyObject *m = tn_at_isnan(a[0].u.obj);
        clean = m ? tn_at_masked_fill_Scalar(a[0].u.obj, m, TN_SD(0.0)) : NULL;
        Py_XDECREF(m);
    } else {
        clean = Py_NewRef(a[0].u.obj);
    }
    if (!clean) return NULL;
    tn_value args[5];
    memcpy(args, a, sizeof(tn_value) * (with_out ? 5 : 4));
    args[0].u.obj = clean;
    PyObject *r = tn_door_call(with_out ? TN_ROW_sum_IntList_out : TN_ROW_sum_dim_IntList, args);
    Py_DECREF(clean);
    return r;
}
PyObject *tn_op_nansum(tn_value *a) { return nansum_run(a, false); }
PyObject *tn_op_nansum_out(tn_value *a) { return nansum_run(a, true); }

/* nanmean (upstream's composite): nansum(self, dim, keepdim, dtype) / (count of non-nan) */
static PyObject *nanmean_run(tn_value *a, PyObject *out) {
    tn_dtype dt = TN_T(a[0])->dtype;
    if (out && tn_dtype_is_integral(dt, true)) {   /* the out= form's own first check */
        PyErr_SetString(PyExc_RuntimeError, "nanmean(): integral types and 'Bool' are not supported for nanmean, even for empty tensors.");
        return NULL;
    }
    if (!tn_dtype_is_floating(dt) && !tn_dtype_is_complex(dt)) {
        PyErr_Format(PyExc_RuntimeError,
                     "nanmean(): expected input to have floating point or complex dtype but got %s",
                     tn_dtype_cpp_name(dt));
        return NULL;
    }
    if (a[3].tag == TN_V_DTYPE && !tn_dtype_is_floating(a[3].u.dtype) && !tn_dtype_is_complex(a[3].u.dtype)) {
        PyErr_Format(PyExc_RuntimeError, "nanmean(): could not infer output dtype. Optional dtype must be either a "
                     "floating point or complex dtype. Got: %s", tn_dtype_cpp_name(a[3].u.dtype));
        return NULL;
    }
    if (a[3].tag != TN_V_DTYPE) {
        PyObject *w = f8_into_out_dtype(&a[0], out);
        if (w || PyErr_Occurred()) {
            if (!w) return NULL;
            tn_value wa[5];
            memcpy(wa, a, sizeof wa);
            wa[0].u.obj = w;
            PyObject *r = nanmean_run(wa, out);
            Py_DECREF(w);
            return r;
        }
    }
    /* the out= form sums into out= (nansum.out): complex self refused first (nansum's check), then
     * its dtype-match check on CPU only (measured: "nansum: provided dtype must match dtype of result. Got
     * Float and ComplexHalf."; none on meta), then the kernel, dispatched over out='s dtype (floating
     * only: "nansum_cpu"), unless empty. The dims are wrapped first (the non-NaN count's sum). */
    uint64_t mask;
    if (out && a[1].tag != TN_V_NONE && !tn_door_on_meta() && tn_dims_mask(TN_T(a[0]), &a[1], true, &mask) < 0) return NULL;
    if (out && !tn_door_on_meta() && !tn_dtype_is_complex(dt) && a[3].tag == TN_V_DTYPE && a[3].u.dtype != tn_tensor_of(out)->dtype) {
        PyErr_Format(PyExc_RuntimeError, "nansum: provided dtype must match dtype of result. Got %s and %s.",
                     tn_dtype_cpp_name(tn_tensor_of(out)->dtype), tn_dtype_cpp_name(a[3].u.dtype));
        return NULL;
    }
    if (out && !tn_door_on_meta() && !tn_dtype_is_complex(dt) && tn_numel(TN_T(a[0]))) {
        tn_dtype od = tn_tensor_of(out)->dtype;
        if (od != TN_DTYPE_F32 && od != TN_DTYPE_F64 && od != TN_DTYPE_F16 && od != TN_DTYPE_BF16) return tn_kernel_missing("nansum_cpu", od);
    }
    /* upstream calls the isnan kernel directly on a detached self: detach, then ne(d, d) */
    PyObject *d = tn_at_detach(a[0].u.obj);
    PyObject *m = d ? tn_at_ne_Tensor(d, d) : NULL;
    Py_XDECREF(d);
    PyObject *nm = m ? tn_at_logical_not_(m) : NULL;
    PyObject *cnt = NULL, *s = NULL, *r = NULL;
    if (nm) {
        tn_value ca[4];
        memcpy(ca, a, sizeof ca);
        ca[0].u.obj = m;
        ca[3].tag = TN_V_NONE;
        cnt = tn_door_call(TN_ROW_sum_dim_IntList, ca);
    }
    if (cnt) s = tn_door_call(TN_ROW_nansum, a);
    if (s) {
        if (out) {
            /* upstream's nansum_out resizes out (with resize_output's warning) before its div_: an
             * expanded out of another shape is replaced, not refused as overlapping (measured) */
            tn_tensor *st = tn_tensor_of(s);
            r = tn_out_prepare(out, st->ndim, st->sizes, st->dtype, "nanmean") < 0 ? NULL : tn_at_div_out(s, cnt, out);
        } else {
            r = tn_at_div_Tensor(s, cnt);
        }
    }
    Py_XDECREF(m); Py_XDECREF(nm); Py_XDECREF(cnt); Py_XDECREF(s);
    return r;
}
PyObject *tn_op_nanmean(tn_value *a) { return nanmean_run(a, NULL); }
PyObject *tn_op_nanmean_out(tn_value *a) { return nanmean_run(a, a[4].u.obj); }
