/* blend.c — lerp, addcmul and addcdiv: three-operand elementwise updates (torch.optim's
 * Adam / AdamW / RMSprop / Adagrad steps), following upstream's CPU kernels as measured on torch
 * 2.13 (AVX2 / AVX-512 builds, which contract these expressions into fused multiply-adds):
 *  - lerp(self, end, w) = |w| < 0.5 ? fma(w, end - self, self) : fma(w - 1, end - self, end),
 *    in the opmath type (float for f16 / bf16, rounded once); the Scalar weight is converted to
 *    the opmath type. Floating and complex dtypes (complex: see the complex loops below).
 *  - addcmul(self, t1, t2, value) = fma(value * t1, t2, self); integers wrap in int64.
 *  - addcdiv(self, t1, t2, value) = self + value * t1 / t2 (no contraction); integer t1 and t2
 *    refuse as upstream.
 * Operands broadcast; dtype: lerp requires self / end (/ non-0-dim weight) to match, addcmul /
 * addcdiv promote over the three tensors (value does not take part). In-place results must have
 * self's shape and be castable to its dtype; out= resizes as everywhere (tn_out_deliver). */
#include "ops/common.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

typedef struct { double v; int64_t i; double vi; } bctx;   /* vi: a complex value's imaginary part */

#define AT(k, T) (*(T *)(d[k] + i * s[k]))

/* ---- lerp: data = {out, self, end[, weight]} ---- */
#define LERP_F(CT, w, a, b) (fabs((double)(w)) < 0.5 ? fma_##CT((w), (b) - (a), (a)) : fma_##CT((w) - (CT)1, (b) - (a), (b)))
static inline float fma_float(float a, float b, float c) { return fmaf(a, b, c); }
static inline double fma_double(double a, double b, double c) { return fma(a, b, c); }

/* Each loop has a contiguous body (plain indexing, vectorisable) and a strided one. */
#define CONTIG(nin, T) (s[0] == (int64_t)sizeof(T) && s[1] == (int64_t)sizeof(T) && s[2] == (int64_t)sizeof(T) && \
                        ((nin) < 3 || s[3] == (int64_t)sizeof(T)))
#define DEF_LERP(NAME, T, CT, LD, ST)                                                              \
    TN_EW_CLONES static void NAME##_s(char **d, const int64_t *s, int64_t n, const void *ctx) {    \
        const CT w = (CT)((const bctx *)ctx)->v;                                                   \
        if (CONTIG(2, T)) {                                                                        \
            T *o = (T *)d[0];                                                                      \
            const T *x = (const T *)d[1], *y = (const T *)d[2];                                    \
            /* the weight's branch taken once, so each body is one vectorisable expression */      \
            if (fabs((double)w) < 0.5)                                                             \
                for (int64_t i = 0; i < n; i++) o[i] = ST(fma_##CT(w, LD(y[i]) - LD(x[i]), LD(x[i]))); \
            else                                                                                   \
                for (int64_t i = 0; i < n; i++)                                                    \
                    o[i] = ST(fma_##CT(w - (CT)1, LD(y[i]) - LD(x[i]), LD(y[i])));                 \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            CT a = LD(AT(1, T)), b = LD(AT(2, T));                                                 \
            AT(0, T) = ST(LERP_F(CT, w, a, b));                                                    \
        }                                                                                          \
    }                                                                                              \
    TN_EW_CLONES static void NAME##_t(char **d, const int64_t *s, int64_t n, const void *ctx) {    \
        for (int64_t i = 0; i < n; i++) {                                                          \
            CT a = LD(AT(1, T)), b = LD(AT(2, T)), w = LD(AT(3, T));                               \
            AT(0, T) = ST(LERP_F(CT, w, a, b));                                                    \
        }                                                                                          \
    }
#define ID(x) (x)
DEF_LERP(lerp_f32, float, float, ID, ID)
DEF_LERP(lerp_f64, double, double, ID, ID)
DEF_LERP(lerp_f16, uint16_t, float, tn_f16_to_f32, tn_f32_to_f16)
DEF_LERP(lerp_bf16, uint16_t, float, tn_bf16_to_f32, tn_f32_to_bf16)

/* ---- addcmul / addcdiv: data = {out, self, t1, t2} ---- */
#define DEF_ADDC(NAME, T, CT, LD, ST, VAL)                                                         \
    TN_EW_CLONES static void NAME##_mul(char **d, const int64_t *s, int64_t n, const void *ctx) {  \
        const CT v = (CT)(((const bctx *)ctx)->VAL);                                               \
        if (CONTIG(3, T)) {                                                                        \
            T *o = (T *)d[0];                                                                      \
            const T *x = (const T *)d[1], *y = (const T *)d[2], *z = (const T *)d[3];              \
            for (int64_t i = 0; i < n; i++) o[i] = ST(fma_##CT(v * LD(y[i]), LD(z[i]), LD(x[i])));  \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            AT(0, T) = ST(fma_##CT(v * LD(AT(2, T)), LD(AT(3, T)), LD(AT(1, T))));                 \
    }                                                                                              \
    TN_EW_CLONES static void NAME##_div(char **d, const int64_t *s, int64_t n, const void *ctx) {  \
        const CT v = (CT)(((const bctx *)ctx)->VAL);                                               \
        if (CONTIG(3, T)) {                                                                        \
            T *o = (T *)d[0];                                                                      \
            const T *x = (const T *)d[1], *y = (const T *)d[2], *z = (const T *)d[3];              \
            for (int64_t i = 0; i < n; i++) o[i] = ST(LD(x[i]) + v * LD(y[i]) / LD(z[i]));         \
            return;                                                                                \
        }                                                                                          \
        for (int64_t i = 0; i < n; i++)                                                            \
            AT(0, T) = ST(LD(AT(1, T)) + v * LD(AT(2, T)) / LD(AT(3, T)));                         \
    }
DEF_ADDC(addc_f32, float, float, ID, ID, v)
DEF_ADDC(addc_f64, double, double, ID, ID, v)
DEF_ADDC(addc_f16, uint16_t, float, tn_f16_to_f32, tn_f32_to_f16, v)
DEF_ADDC(addc_bf16, uint16_t, float, tn_bf16_to_f32, tn_f32_to_bf16, v)

/* integers: self + value * t1 * t2 with wrap-around (computed in uint64, stored truncated) */
#define DEF_ADDC_INT(NAME, T)                                                                      \
    static void NAME(char **d, const int64_t *s, int64_t n, const void *ctx) {                     \
        const uint64_t v = (uint64_t)(T)((const bctx *)ctx)->i;                                    \
        for (int64_t i = 0; i < n; i++)                                                            \
            AT(0, T) = (T)((uint64_t)(int64_t)AT(1, T) + v * (uint64_t)(int64_t)AT(2, T) * (uint64_t)(int64_t)AT(3, T)); \
    }
DEF_ADDC_INT(addc_u8, uint8_t)
DEF_ADDC_INT(addc_i8, int8_t)
DEF_ADDC_INT(addc_i16, int16_t)
DEF_ADDC_INT(addc_i32, int32_t)
DEF_ADDC_INT(addc_i64, int64_t)

/* ---- complex (misc breadth family): c10::complex arithmetic as upstream's scalar kernels write
 * it: addcmul self + value * t1 * t2, addcdiv self + value * t1 / t2 (numpy's scaled division),
 * lerp |w| < 0.5 ? self + w * (end - self) : end - (end - self) * (1 - w). Golden cases compare
 * them under the float rule (upstream's vectorised complex loops order the products differently). */
#define CDEF(NAME, T)                                                                              \
    typedef struct { T re, im; } NAME##_c;                                                         \
    static inline NAME##_c NAME##_mul(NAME##_c a, NAME##_c b) {                                    \
        return (NAME##_c){a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re};                   \
    }                                                                                              \
    static inline NAME##_c NAME##_div(NAME##_c x, NAME##_c y) {                                    \
        T a = x.re, b = x.im, c = y.re, d = y.im, ac = c < 0 ? -c : c, ad = d < 0 ? -d : d;        \
        if (ac >= ad) {                                                                            \
            if (ac == 0 && ad == 0) return (NAME##_c){a / ac, b / ad};                             \
            T rat = d / c, scl = (T)1.0 / (c + d * rat);                                           \
            return (NAME##_c){(a + b * rat) * scl, (b - a * rat) * scl};                           \
        }                                                                                          \
        T rat = c / d, scl = (T)1.0 / (d + c * rat);                                               \
        return (NAME##_c){(a * rat + b) * scl, (b * rat - a) * scl};                               \
    }                                                                                              \
    static inline NAME##_c NAME##_at(char **d, const int64_t *s, int k, int64_t i) {               \
        const T *p = (const T *)(d[k] + i * s[k]);                                                 \
        return (NAME##_c){p[0], p[1]};                                                             \
    }                                                                                              \
    static inline void NAME##_put(char **d, const int64_t *s, int64_t i, NAME##_c v) {             \
        T *p = (T *)(d[0] + i * s[0]);                                                             \
        p[0] = v.re; p[1] = v.im;                                                                  \
    }                                                                                              \
    static void NAME##_addcmul(char **d, const int64_t *s, int64_t n, const void *ctx) {           \
        const bctx *c = ctx;                                                                       \
        NAME##_c v = {(T)c->v, (T)c->vi};                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            NAME##_c x = NAME##_at(d, s, 1, i), p = NAME##_mul(NAME##_mul(v, NAME##_at(d, s, 2, i)), NAME##_at(d, s, 3, i)); \
            NAME##_put(d, s, i, (NAME##_c){x.re + p.re, x.im + p.im});                             \
        }                                                                                          \
    }                                                                                              \
    static void NAME##_addcdiv(char **d, const int64_t *s, int64_t n, const void *ctx) {           \
        const bctx *c = ctx;                                                                       \
        NAME##_c v = {(T)c->v, (T)c->vi};                                                          \
        for (int64_t i = 0; i < n; i++) {                                                          \
            NAME##_c x = NAME##_at(d, s, 1, i), p = NAME##_div(NAME##_mul(v, NAME##_at(d, s, 2, i)), NAME##_at(d, s, 3, i)); \
            NAME##_put(d, s, i, (NAME##_c){x.re + p.re, x.im + p.im});                             \
        }                                                                                          \
    }                                                                                              \
    static inline NAME##_c NAME##_lerp1(NAME##_c a, NAME##_c b, NAME##_c w) {                      \
        NAME##_c diff = {b.re - a.re, b.im - a.im};                                                \
        if (hypot((double)w.re, (double)w.im) < 0.5) {                                             \
            NAME##_c p = NAME##_mul(w, diff);                                                      \
            return (NAME##_c){a.re + p.re, a.im + p.im};                                           \
        }                                                                                          \
        NAME##_c p = NAME##_mul(diff, (NAME##_c){(T)1 - w.re, -w.im});                             \
        return (NAME##_c){b.re - p.re, b.im - p.im};                                               \
    }                                                                                              \
    static void NAME##_lerp_s(char **d, const int64_t *s, int64_t n, const void *ctx) {            \
        const bctx *c = ctx;                                                                       \
        NAME##_c w = {(T)c->v, (T)c->vi};                                                          \
        for (int64_t i = 0; i < n; i++) NAME##_put(d, s, i, NAME##_lerp1(NAME##_at(d, s, 1, i), NAME##_at(d, s, 2, i), w)); \
    }                                                                                              \
    static void NAME##_lerp_t(char **d, const int64_t *s, int64_t n, const void *ctx) {            \
        for (int64_t i = 0; i < n; i++)                                                            \
            NAME##_put(d, s, i, NAME##_lerp1(NAME##_at(d, s, 1, i), NAME##_at(d, s, 2, i), NAME##_at(d, s, 3, i))); \
    }
CDEF(c64, float)
CDEF(c128, double)

static tn_loop lerp_loop(tn_dtype dt, bool tensor_weight) {
    switch (dt) {
    case TN_DTYPE_F32: return tensor_weight ? lerp_f32_t : lerp_f32_s;
    case TN_DTYPE_F64: return tensor_weight ? lerp_f64_t : lerp_f64_s;
    case TN_DTYPE_F16: return tensor_weight ? lerp_f16_t : lerp_f16_s;
    case TN_DTYPE_BF16: return tensor_weight ? lerp_bf16_t : lerp_bf16_s;
    case TN_DTYPE_C64: return tensor_weight ? c64_lerp_t : c64_lerp_s;
    case TN_DTYPE_C128: return tensor_weight ? c128_lerp_t : c128_lerp_s;
    default: return NULL;
    }
}

static tn_loop addc_loop(tn_dtype dt, bool div) {
    switch (dt) {
    case TN_DTYPE_F32: return div ? addc_f32_div : addc_f32_mul;
    case TN_DTYPE_F64: return div ? addc_f64_div : addc_f64_mul;
    case TN_DTYPE_F16: return div ? addc_f16_div : addc_f16_mul;
    case TN_DTYPE_BF16: return div ? addc_bf16_div : addc_bf16_mul;
    case TN_DTYPE_U8: return div ? NULL : addc_u8;
    case TN_DTYPE_I8: return div ? NULL : addc_i8;
    case TN_DTYPE_I16: return div ? NULL : addc_i16;
    case TN_DTYPE_I32: return div ? NULL : addc_i32;
    case TN_DTYPE_I64: return div ? NULL : addc_i64;
    case TN_DTYPE_C64: return div ? c64_addcdiv : c64_addcmul;
    case TN_DTYPE_C128: return div ? c128_addcdiv : c128_addcmul;
    default: return NULL;
    }
}

/* Number value -> bctx (value as double and as int64, as upstream's Scalar.to<T>()). */
static bctx num_ctx(const tn_value *v) {
    bctx c = {0};
    if (v->tag == TN_V_INT || v->tag == TN_V_BOOL) { c.i = v->u.i; c.v = (double)v->u.i; }
    else if (v->tag == TN_V_COMPLEX) { c.v = v->u.c.re; c.i = (int64_t)v->u.c.re; c.vi = v->u.c.im; }
    else { c.v = v->u.f; c.i = (v->u.f == v->u.f && fabs(v->u.f) < 9.2e18) ? (int64_t)v->u.f : 0; }
    return c;
}

/* Run `loop` over tensors ins (cast to ct) into a fresh result of dtype ct, delivered to
 * self (in-place), out (out=) or returned. */
/* a complex64 tensor's values rounded to complex32 and widened back (new reference) */
static PyObject *round_c32(PyObject *t) {
    PyObject *h = tn_as_dtype(t, TN_DTYPE_C32, false);
    PyObject *w = h ? tn_as_dtype(h, TN_DTYPE_C64, false) : NULL;
    Py_XDECREF(h);
    return w;
}
static PyObject *run3(const char *name, tn_loop loop, const bctx *ctx, int nin, PyObject **ins, tn_dtype ct,
                      PyObject *out, bool inplace, const tn_value *scalar) {
    const tn_tensor *ts[4];
    for (int k = 0; k < nin; k++) ts[k] = tn_tensor_of(ins[k]);
    int nd;
    int64_t shape[TN_MAX_DIMS];
    PyObject *self = ins[0];
    if ((inplace || out) && tn_check_overlap(inplace ? self : out, nin, ins) < 0) return NULL;
    if (tn_broadcast_tensors_shape(nin, ts, &nd, shape) < 0) return NULL;
    if (inplace) {
        const tn_tensor *t = ts[0];
        if (t->ndim != nd || memcmp(t->sizes, shape, (size_t)nd * sizeof *shape) != 0) {
            char a[256], b[256];
            tn_shape_str(a, sizeof a, t->ndim, t->sizes);
            tn_shape_str(b, sizeof b, nd, shape);
            PyErr_Format(PyExc_RuntimeError, "output with shape %s doesn't match the broadcast shape %s", a, b);
            return NULL;
        }
        if (!tn_can_cast(ct, t->dtype)) {
            tn_cast_error(ct, t->dtype);
            return NULL;
        }
    }
    if (out && tn_out_prepare(out, nd, shape, ct, name) < 0) return NULL;
    bool c32 = !loop && ct == TN_DTYPE_C32 && !strcmp(name, "addcmul_cpu_out");
    if (!loop && !c32) return tn_kernel_missing(name, ct);
    if (tn_check_kernel_scalar(scalar, ct, true) < 0) return NULL;   /* the kernel's value / weight */
    PyObject *cast[4] = {NULL};
    PyObject *res = NULL;
    for (int k = 0; k < nin; k++)
        if (!(cast[k] = c32 ? round_c32(ins[k]) : tn_as_dtype(ins[k], ct, false))) goto done;   /* c32: cast, widened */
    PyObject *target = inplace ? self : out;
    bool direct = !c32 && target && tn_inplace_direct(target, ct, nin, cast);
    res = direct ? Py_NewRef(target) : tn_new_result(nd, shape, ct, nin, ts);
    if (!res) goto done;
    if (c32) {
        /* complex32 addcmul: upstream's kernel computes in complex<Half>, each operation in
         * complex<float> rounded back: value (rounded) * t1, then * t2, then self + that (measured
         * bit for bit on 20,000 values, docs/breadth_more2.md group nieok, session 37) */
        PyObject *steps[6] = {NULL};
        PyObject *num = tn_value_to_python(scalar);
        PyObject *v = num ? tn_tensor_from_number(num, false) : NULL;   /* a 0-dim tensor, not a wrapped number */
        Py_XDECREF(num);
        PyObject *vw = v ? tn_as_dtype(v, TN_DTYPE_C64, false) : NULL;
        Py_XDECREF(v);
        PyObject *vh = vw ? round_c32(vw) : NULL;
        Py_XDECREF(vw);
        steps[0] = vh ? tn_at_mul_Tensor(vh, cast[1]) : NULL;
        steps[1] = steps[0] ? round_c32(steps[0]) : NULL;
        steps[2] = steps[1] ? tn_at_mul_Tensor(steps[1], cast[2]) : NULL;
        steps[3] = steps[2] ? round_c32(steps[2]) : NULL;
        steps[4] = steps[3] ? tn_at_add_Tensor(cast[0], steps[3], TN_SDEF) : NULL;
        int rc = steps[4] ? tn_copy_into(res, steps[4]) : -1;
        Py_XDECREF(vh);
        for (int k = 0; k < 5; k++) Py_XDECREF(steps[k]);
        if (rc < 0) { Py_CLEAR(res); goto done; }
    } else {
        tn_run_loop(loop, ctx, res, nin, cast);
    }
    if (direct) {
        tn_tensor_of(res)->storage->version++;   /* as tn_copy_into counts a write */
    } else if (inplace) {
        int r = tn_copy_into(self, res);
        Py_DECREF(res);
        res = r < 0 ? NULL : Py_NewRef(self);
    } else if (out) {
        res = tn_out_deliver(res, out, name);
    }
done:
    for (int k = 0; k < nin; k++) Py_XDECREF(cast[k]);
    return res;
}

/* ---- lerp ---- */
static PyObject *lerp(tn_value *a, bool tensor_weight, PyObject *out, bool inplace) {
    const tn_tensor *s = TN_T(a[0]), *e = TN_T(a[1]);
    if (s->dtype != e->dtype) {
        PyErr_Format(PyExc_RuntimeError, "expected dtype %s for `end` but got dtype %s", tn_dtype_cxx_name(s->dtype),
                     tn_dtype_cxx_name(e->dtype));
        return NULL;
    }
    if (tensor_weight) {
        const tn_tensor *w = TN_T(a[2]);
        if (w->ndim != 0 && w->dtype != s->dtype) {
            PyErr_Format(PyExc_RuntimeError, "expected dtype %s for `weight` but got dtype %s",
                         tn_dtype_cxx_name(s->dtype), tn_dtype_cxx_name(w->dtype));
            return NULL;
        }
        /* lerp.Tensor's iterator keeps every operand's dtype: with a weight that is not 0-dim, out=
         * must have self's, whatever its shape, before the kernel's dtype refusal (measured: "Found
         * dtype Float but expected Long"; a 0-dim weight or the Scalar form casts) */
        if (out && w->ndim != 0 && tn_out_dtype_found(out, s->dtype) < 0) return NULL;
    }
    bctx c = {0};
    if (!tensor_weight) c = num_ctx(&a[2]);
    PyObject *ins[3] = {a[0].u.obj, a[1].u.obj, tensor_weight ? a[2].u.obj : NULL};
    return run3(tensor_weight ? "lerp_kernel_tensor" : "lerp_kernel_scalar", lerp_loop(s->dtype, tensor_weight), &c,
                tensor_weight ? 3 : 2, ins, s->dtype, out, inplace, tensor_weight ? NULL : &a[2]);
}

PyObject *tn_op_lerp_Scalar(tn_value *a) { return lerp(a, false, NULL, false); }
PyObject *tn_op_lerp_Tensor(tn_value *a) { return lerp(a, true, NULL, false); }
PyObject *tn_op_lerp__Scalar(tn_value *a) { return lerp(a, false, NULL, true); }
PyObject *tn_op_lerp__Tensor(tn_value *a) { return lerp(a, true, NULL, true); }
PyObject *tn_op_lerp_Scalar_out(tn_value *a) { return lerp(a, false, a[3].u.obj, false); }
PyObject *tn_op_lerp_Tensor_out(tn_value *a) { return lerp(a, true, a[3].u.obj, false); }

/* ---- addcmul / addcdiv ---- */
static PyObject *addc(tn_value *a, bool div, PyObject *out, bool inplace) {
    const tn_tensor *t1 = TN_T(a[1]), *t2 = TN_T(a[2]);
    if (div && tn_dtype_is_integral(t1->dtype, true) && tn_dtype_is_integral(t2->dtype, true)) {
        PyErr_SetString(PyExc_RuntimeError,
            "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a "
            "true division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as "
            "(input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as "
            "(input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior is just the latter "
            "implementation: (input + value * tensor1 / tensor2), for all dtypes.");
        return NULL;
    }
    tn_dtype ct = tn_result_type(3, a);
    if (ct == TN_DTYPE_UNDEFINED) return NULL;
    bctx c = num_ctx(&a[3]);
    PyObject *ins[3] = {a[0].u.obj, a[1].u.obj, a[2].u.obj};
    return run3(div ? "addcdiv_cpu_out" : "addcmul_cpu_out", addc_loop(ct, div), &c, 3, ins, ct, out, inplace, &a[3]);
}

PyObject *tn_op_addcmul(tn_value *a) { return addc(a, false, NULL, false); }
PyObject *tn_op_addcmul_(tn_value *a) { return addc(a, false, NULL, true); }
PyObject *tn_op_addcmul_out(tn_value *a) { return addc(a, false, a[4].u.obj, false); }
PyObject *tn_op_addcdiv(tn_value *a) { return addc(a, true, NULL, false); }
PyObject *tn_op_addcdiv_(tn_value *a) { return addc(a, true, NULL, true); }
PyObject *tn_op_addcdiv_out(tn_value *a) { return addc(a, true, a[4].u.obj, false); }
