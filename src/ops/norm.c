/* ops/norm.c — vector norms: linalg_vector_norm (+out) and the legacy norm.* overloads that
 * torch.norm / Tensor.norm / torch._VF.norm reach (norm.Scalar, ScalarOpt_dim, ..._dtype, their
 * out= forms). torch.linalg.norm of vectors and F.normalize arrive here through
 * linalg_vector_norm (measured with a TorchDispatchMode on upstream 2.13.0).
 *
 * The op layer checks arguments in upstream's order and with its messages, resolves dims,
 * keepdim and dtypes, and runs the plain C reduction kernel below. The kernel reproduces
 * upstream's CPU arithmetic (measured bit-for-bit against torch 2.13.0 on random inputs):
 *  - accumulation in the input's real type (float for f16/bf16/f32/c64, double for f64/c128);
 *  - the reduced elements of one output are visited in TensorIterator's order: reduced dims
 *    sorted by input stride (smallest innermost), ties keep the original order;
 *  - p=2 on float/double/bf16 whose reduced dims coalesce into one contiguous last dim (and no
 *    dtype conversion in the kernel) takes upstream's vectorised path: 8 float (4 double) lanes of
 *    x*x, lanes summed left to right, the tail added one square at a time, then sqrt (this
 *    matches upstream on ~95% of random f32 rows; the rest differ in the last bit: upstream's
 *    compiled tail mixes fused and unfused multiply-adds in a way not reproduced here);
 *  - everywhere else a sequential fold: p=0 counts non-zeros, p=1 sums |x|, p=2 sums |x|*|x|,
 *    +-inf is a NaN-propagating max/min of |x|, other p sums pow(|x|, p) (pow evaluated in
 *    double, rounded to the accumulator) and finishes with pow(acc, 1/p), 1/p in the
 *    accumulator type; complex |x| is hypot(re, im);
 *  - reductions over dims that all have size 1 are |x| (p != 0) or x != 0 (p == 0), as upstream
 *    short-cuts them; empty inputs give 0 (or +inf for p < 0).
 * Upstream splits full reductions of >= 32768 elements across threads; results agree bitwise
 * below that size (or with torch.set_num_threads(1)). */
#include "ops/common.h"
#include "ops/linalg_more.h"
#include "autograd/autograd.h"
#include "tn_ops_gen.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ---------------------------------------------------------------- kernel (plain C) */

typedef enum { TN_NORM_REDUCE, TN_NORM_ELEMWISE } tn_norm_mode;

typedef struct {
    double p;
    bool f32acc;      /* accumulate in float (else double) */
    bool fast_ok;     /* kernel input dtype == output dtype (vectorised p=2 path allowed) */
    tn_norm_mode mode;
    bool powsum;      /* linalg__powsum: sum(|x|^p) without the root; p = 0, +-inf through pow too */
} tn_norm_cfg;

/* |x| (or x != 0 when `nz`) of one element, widened to double (exact for every input dtype,
 * since float hypot is computed in float first). */
static inline double norm_load_abs(const char *p, tn_dtype dt, bool nz) {
    switch (dt) {
    case TN_DTYPE_F16: { float v = tn_f16_to_f32(*(const uint16_t *)p); return nz ? (v != 0.0f) : fabsf(v); }
    case TN_DTYPE_BF16: { float v = tn_bf16_to_f32(*(const uint16_t *)p); return nz ? (v != 0.0f) : fabsf(v); }
    case TN_DTYPE_F32: { float v = *(const float *)p; return nz ? (v != 0.0f) : fabsf(v); }
    case TN_DTYPE_F64: { double v = *(const double *)p; return nz ? (v != 0.0) : fabs(v); }
    case TN_DTYPE_C64: {
        const float *c = (const float *)p;
        return nz ? (c[0] != 0.0f || c[1] != 0.0f) : hypotf(c[0], c[1]);
    }
    case TN_DTYPE_C128: {
        const double *c = (const double *)p;
        return nz ? (c[0] != 0.0 || c[1] != 0.0) : hypot(c[0], c[1]);
    }
    case TN_DTYPE_C32: {   /* complex32: each half widened to float, |x| in float */
        const uint16_t *c = (const uint16_t *)p;
        float re = tn_f16_to_f32(c[0]), im = tn_f16_to_f32(c[1]);
        return nz ? (re != 0.0f || im != 0.0f) : hypotf(re, im);
    }
    default: return 0.0;
    }
}

static inline double norm_round(double v, bool f32) { return f32 ? (double)(float)v : v; }

static void norm_store(char *out, tn_dtype od, double v) {
    switch (od) {
    case TN_DTYPE_F16: *(uint16_t *)out = tn_f32_to_f16((float)v); break;
    case TN_DTYPE_BF16: *(uint16_t *)out = tn_f32_to_bf16((float)v); break;
    case TN_DTYPE_F32: *(float *)out = (float)v; break;
    case TN_DTYPE_F64: *(double *)out = v; break;
    default: break;
    }
}

static inline double nan_max(double a, double b) { return a != a ? a : b != b ? b : (a > b ? a : b); }
static inline double nan_min(double a, double b) { return a != a ? a : b != b ? b : (a < b ? a : b); }

/* Sequential fold over `n` elements at `base` + i*`stride` bytes (one reduced run). Every
 * intermediate is rounded to the accumulator type; float arithmetic done in double and rounded
 * once per operation is exactly float arithmetic (double has more than 2*24+2 bits). */
static double norm_fold(double acc, const char *base, int64_t n, int64_t stride, tn_dtype dt,
                        const tn_norm_cfg *c, double pw) {
    const double p = c->p;
    const bool f = c->f32acc;
    if (c->powsum && p != 1.0 && p != 2.0) {
        for (int64_t i = 0; i < n; i++)
            acc = norm_round(acc + norm_round(pow(norm_load_abs(base + i * stride, dt, false), pw), f), f);
    } else if (p == 0.0) {
        for (int64_t i = 0; i < n; i++) acc = norm_round(acc + norm_load_abs(base + i * stride, dt, true), f);
    } else if (p == 1.0) {
        for (int64_t i = 0; i < n; i++) acc = norm_round(acc + norm_load_abs(base + i * stride, dt, false), f);
    } else if (p == 2.0) {
        for (int64_t i = 0; i < n; i++) {
            double a = norm_load_abs(base + i * stride, dt, false);
            acc = norm_round(acc + norm_round(a * a, f), f);
        }
    } else if (p == INFINITY) {
        for (int64_t i = 0; i < n; i++) acc = nan_max(acc, norm_load_abs(base + i * stride, dt, false));
    } else if (p == -INFINITY) {
        for (int64_t i = 0; i < n; i++) acc = nan_min(acc, norm_load_abs(base + i * stride, dt, false));
    } else {
        for (int64_t i = 0; i < n; i++)
            acc = norm_round(acc + norm_round(pow(norm_load_abs(base + i * stride, dt, false), pw), f), f);
    }
    return acc;
}

static double norm_project(double acc, const tn_norm_cfg *c) {
    const double p = c->p;
    if (c->powsum || p == 0.0 || p == 1.0 || p == INFINITY || p == -INFINITY) return acc;
    if (p == 2.0) return norm_round(sqrt(acc), c->f32acc);
    double inv = c->f32acc ? (double)(1.0f / (float)p) : 1.0 / p;
    return norm_round(pow(acc, inv), c->f32acc);
}

/* Upstream's vectorised p=2 row: L lanes of x*x (no FMA), lanes folded left to right, tail
 * squares added in order, sqrt. bf16 rows feed 16 values per step as two 8-lane halves. */
static double norm_two_row(const char *row, int64_t n, tn_dtype dt, bool root) {
    if (dt == TN_DTYPE_F64) {
        const double *x = (const double *)row;
        double acc[4] = {0, 0, 0, 0};
        int64_t d = 0;
        for (; d + 4 <= n; d += 4)
            for (int j = 0; j < 4; j++) { double s = x[d + j] * x[d + j]; acc[j] = acc[j] + s; }
        double b = acc[0];
        for (int j = 1; j < 4; j++) b = b + acc[j];
        for (; d < n; d++) { double sq = x[d] * x[d]; b = b + sq; }
        return root ? sqrt(b) : b;
    }
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t d = 0;
    if (dt == TN_DTYPE_F32) {
        const float *x = (const float *)row;
        for (; d + 8 <= n; d += 8)
            for (int j = 0; j < 8; j++) { float s = x[d + j] * x[d + j]; acc[j] = acc[j] + s; }
    } else {
        const uint16_t *x = (const uint16_t *)row;
        for (; d + 16 <= n; d += 16) {
            for (int j = 0; j < 8; j++) { float v = tn_bf16_to_f32(x[d + j]); float s = v * v; acc[j] = acc[j] + s; }
            for (int j = 0; j < 8; j++) { float v = tn_bf16_to_f32(x[d + 8 + j]); float s = v * v; acc[j] = acc[j] + s; }
        }
    }
    float b = acc[0];
    for (int j = 1; j < 8; j++) b = b + acc[j];
    for (; d < n; d++) {
        float v = dt == TN_DTYPE_F32 ? ((const float *)row)[d] : tn_bf16_to_f32(((const uint16_t *)row)[d]);
        float sq = v * v;
        b = b + sq;
    }
    return root ? (double)sqrtf(b) : (double)b;
}

/* Reduce `in` over the dims in `mask` (0 on a 0-dim tensor: its one element) into contiguous
 * `out` (kept dims in order) of dtype od (f16/bf16/f32/f64). ELEMWISE mode: every reduced dim
 * has size 1; out[i] = |x| or x != 0. */
static void tn_norm_kernel(const tn_tensor *in, uint64_t mask, const tn_norm_cfg *c, char *out, tn_dtype od) {
    const tn_dtype dt = in->dtype;
    const int isz = tn_dtype_itemsize(dt), osz = tn_dtype_itemsize(od);
    const char *data = tn_data(in);
    int kd[TN_MAX_DIMS], rd[TN_MAX_DIMS], nk = 0, nr = 0;
    int64_t nout = 1, nred = 1;
    for (int d = 0; d < in->ndim; d++) {
        if (mask >> d & 1) { nred *= in->sizes[d]; if (in->sizes[d] != 1) rd[nr++] = d; }
        else { nout *= in->sizes[d]; kd[nk++] = d; }
    }
    if (nout == 0) return;
    if (nred == 0) {
        for (int64_t o = 0; o < nout; o++) norm_store(out + o * osz, od, c->p < 0 && !c->powsum ? INFINITY : 0.0);
        return;
    }
    /* TensorIterator's order of the reduced dims: start from the last dim innermost and
     * insertion-sort by input stride (a zero stride compares as a tie). order[0] = innermost. */
    int order[TN_MAX_DIMS];
    for (int i = 0; i < nr; i++) order[i] = rd[nr - 1 - i];
    for (int i = 1; i < nr; i++) {
        for (int j = i; j > 0; j--) {
            int64_t s0 = in->strides[order[j - 1]], s1 = in->strides[order[j]];
            int cmp = 0;
            if (s0 != 0 && s1 != 0) {
                if (s0 < s1) cmp = -1;
                else if (s0 > s1) cmp = 1;
                else if (in->sizes[order[j - 1]] > in->sizes[order[j]]) cmp = 1;
            }
            if (cmp > 0) { int t = order[j - 1]; order[j - 1] = order[j]; order[j] = t; }
            else if (cmp < 0) break;
        }
    }
    /* coalesce: do the reduced dims form one contiguous run? */
    bool one_run = nr > 0 && in->strides[order[0]] == 1;
    for (int i = 1; i < nr && one_run; i++)
        if (in->strides[order[i]] != in->strides[order[i - 1]] * in->sizes[order[i - 1]]) one_run = false;
    bool fast = c->mode == TN_NORM_REDUCE && c->p == 2.0 && c->fast_ok && one_run &&
                (dt == TN_DTYPE_F32 || dt == TN_DTYPE_F64 || dt == TN_DTYPE_BF16);
    double pw = c->f32acc ? (double)(float)c->p : c->p;
    double init = c->p == -INFINITY && !c->powsum ? INFINITY : 0.0;

    int64_t kidx[TN_MAX_DIMS] = {0};
    for (int64_t o = 0; o < nout; o++) {
        int64_t off = 0;
        for (int i = 0; i < nk; i++) off += kidx[i] * in->strides[kd[i]];
        const char *base = data + off * isz;
        double r;
        if (c->mode == TN_NORM_ELEMWISE) {
            r = norm_load_abs(base, dt, c->p == 0.0);
        } else if (fast) {
            r = norm_two_row(base, nred, dt, !c->powsum);
        } else if (nr == 0) {
            r = norm_project(norm_fold(init, base, 1, 0, dt, c, pw), c);
        } else {
            /* odometer over the outer reduced dims, fold along the innermost */
            double acc = init;
            int64_t ridx[TN_MAX_DIMS] = {0};
            int64_t inner_n = in->sizes[order[0]], inner_s = in->strides[order[0]] * isz;
            for (;;) {
                int64_t roff = 0;
                for (int i = 1; i < nr; i++) roff += ridx[i] * in->strides[order[i]];
                acc = norm_fold(acc, base + roff * isz, inner_n, inner_s, dt, c, pw);
                int i = 1;
                for (; i < nr; i++) {
                    if (++ridx[i] < in->sizes[order[i]]) break;
                    ridx[i] = 0;
                }
                if (i >= nr) break;
            }
            r = norm_project(acc, c);
        }
        norm_store(out + o * osz, od, r);
        for (int i = nk - 1; i >= 0; i--) {
            if (++kidx[i] < in->sizes[kd[i]]) break;
            kidx[i] = 0;
        }
    }
}

/* ---------------------------------------------------------------- op layer */

static tn_dtype to_real(tn_dtype d) {
    switch (d) {
    case TN_DTYPE_C32: return TN_DTYPE_F16;
    case TN_DTYPE_C64: return TN_DTYPE_F32;
    case TN_DTYPE_C128: return TN_DTYPE_F64;
    default: return d;
    }
}

static bool float_or_complex(tn_dtype d) { return tn_dtype_is_floating(d) || tn_dtype_is_complex(d); }


/* An order Scalar as upstream prints it in messages (C++ ostream: ints as ints, doubles %g). */
static void ord_str(char *buf, size_t n, const tn_value *v) {
    if (v->tag == TN_V_INT) snprintf(buf, n, "%lld", (long long)v->u.i);
    else if (v->tag == TN_V_BOOL) snprintf(buf, n, "%s", v->u.i ? "true" : "false");
    else snprintf(buf, n, "%g", v->u.f);
}

/* Dims (NONE / INT / INTLIST) into a mask; an empty list or None reduces everything. `given` says
 * whether a dim or a non-empty dim list was passed. */
static int norm_dims(const tn_tensor *t, const tn_value *dv, uint64_t *mask, bool *given) {
    *given = dv && (dv->tag == TN_V_INT || (dv->tag == TN_V_INTLIST && dv->u.ints.n > 0));
    return tn_dims_mask(t, dv, true, mask);
}

/* tn_norm_kernel, without the GIL for a large input (other Python threads run meanwhile) */
static void norm_run(const tn_tensor *in, uint64_t mask, const tn_norm_cfg *c, char *out, tn_dtype od) {
    if (tn_numel(in) >= 65536) {
        Py_BEGIN_ALLOW_THREADS
        tn_norm_kernel(in, mask, c, out, od);
        Py_END_ALLOW_THREADS
    } else {
        tn_norm_kernel(in, mask, c, out, od);
    }
}

/* linalg_vector_norm with upstream's checks. ordv: the order Scalar (NONE means 2). dtype:
 * UNDEFINED for none. out: out= tensor or NULL. out_dtype_override: for the legacy norm overloads
 * with a dtype, the result dtype they ask for (may be complex, which then fails the out check as
 * upstream does); UNDEFINED otherwise. */
static PyObject *vector_norm(tn_value *selfv, const tn_value *ordv, const tn_value *dimv, bool keepdim,
                             tn_dtype dtype, PyObject *out, tn_dtype want_dtype) {
    PyObject *self = selfv->u.obj;
    tn_tensor *t = tn_tensor_of(self);
    if (!float_or_complex(t->dtype)) {
        /* on meta upstream's Python reference names the dtype as Python prints it (measured) */
        if (tn_door_on_meta())
            PyErr_Format(PyExc_RuntimeError, "linalg.vector_norm: Expected a floating point or complex tensor as input. "
                         "Got torch.%s", tn_dtype_infos[t->dtype].name);
        else
            PyErr_Format(PyExc_RuntimeError, "linalg.vector_norm: Expected a floating point or complex tensor as input. Got %s",
                         tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    double p = 2.0;
    if (ordv && ordv->tag != TN_V_NONE) {
        if (ordv->tag == TN_V_COMPLEX) {
            /* on meta upstream's Python reference compares the order with 0.0 first (measured; a
             * meta input with a CPU out= is a RuntimeError upstream: a cross-device copy) */
            if (tn_door_on_meta() && (!out || tn_door_arg_device(out) == TN_DEVICE_META))
                PyErr_SetString(PyExc_TypeError, "'<' not supported between instances of 'complex' and 'float'");
            else
                PyErr_SetString(PyExc_RuntimeError, "linalg.vector_norm: Expected a non-complex scalar as the order of norm.");
            return NULL;
        }
        p = ordv->tag == TN_V_FLOAT ? ordv->u.f : (double)ordv->u.i;
    }
    if (dtype != TN_DTYPE_UNDEFINED && dtype != t->dtype && tn_dtype_infos[t->dtype].kind == TN_KIND_FLOAT8 &&
        float_or_complex(dtype) && !tn_dtype_is_complex(dtype) && !(tn_numel(t) == 0 && (p < 0.0 || p == INFINITY))) {
        /* a float8 input with another dtype: upstream promotes the two before wrapping the dims (no
         * float8 promotion); its Python meta refuses the conversion in its own words (measured) */
        if (tn_door_on_meta())
            PyErr_Format(PyExc_RuntimeError, "linalg.vector_norm: the dtype of the input (torch.%s) should be "
                         "convertible without narrowing to the specified dtype (torch.%s)",
                         tn_dtype_infos[t->dtype].name, tn_dtype_infos[dtype].name);
        else
            PyErr_Format(PyExc_RuntimeError, "Promotion for Float8 Types is not supported, attempted to promote %s and %s",
                         tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(dtype));
        return NULL;
    }
    /* upstream's order (measured): the empty-tensor identity check, then the dtype checks, then the
     * dims wrapped into a mask (a complex input with a real dtype and a dim out of range is the dtype's
     * RuntimeError, not the dim's IndexError) */
    bool given = dimv && (dimv->tag == TN_V_INT || (dimv->tag == TN_V_INTLIST && dimv->u.ints.n > 0));
    if (tn_numel(t) == 0 && (p < 0.0 || p == INFINITY)) {
        char os[64];
        if (ordv && ordv->tag != TN_V_NONE) ord_str(os, sizeof os, ordv);
        else snprintf(os, sizeof os, "2");
        if (!given) {
            PyErr_Format(PyExc_RuntimeError, "linalg.vector_norm cannot compute the %s norm on an empty tensor "
                         "because the operation does not have an identity", os);
            return NULL;
        }
        int nd = dimv->tag == TN_V_INT ? 1 : dimv->u.ints.n;
        for (int i = 0; i < nd; i++) {
            int64_t given_d = dimv->tag == TN_V_INT ? dimv->u.i : dimv->u.ints.v[i];
            int d;
            if (tn_wrap_dim_i(given_d, t->ndim, &d) < 0) return NULL;
            if (t->ndim && t->sizes[d] == 0) {
                PyErr_Format(PyExc_RuntimeError, "linalg.vector_norm cannot compute the %s norm on the dimension %lld"
                             "because this dimension is empty and the operation does not have an identity",
                             os, (long long)given_d);
                return NULL;
            }
        }
    }
    if (dtype != TN_DTYPE_UNDEFINED) {
        bool sc = tn_dtype_is_complex(t->dtype), dc = tn_dtype_is_complex(dtype);
        if (!float_or_complex(dtype)) {
            PyErr_Format(PyExc_RuntimeError, "linalg.vector_norm: dtype should be floating point or complex, but got %s",
                         tn_dtype_cpp_name(dtype));
            return NULL;
        }
        if (sc != dc) {
            PyErr_Format(PyExc_RuntimeError, "linalg.vector_norm: dtype should be %s for %s inputs, but got %s",
                         sc ? "complex" : "real", sc ? "complex" : "real", tn_dtype_cpp_name(dtype));
            return NULL;
        }
        if (tn_promote_types(t->dtype, dtype) != dtype) {
            PyErr_Format(PyExc_RuntimeError, "linalg.vector_norm: the dtype of the input (%s) should be convertible "
                         "without narrowing to the specified dtype (%s)", tn_dtype_cpp_name(t->dtype), tn_dtype_cpp_name(dtype));
            return NULL;
        }
    }
    uint64_t mask;
    if (norm_dims(t, dimv, &mask, &given) < 0) return NULL;
    tn_dtype cdt = dtype != TN_DTYPE_UNDEFINED ? dtype : t->dtype;   /* compute (input) dtype */
    tn_dtype od = to_real(cdt);
    if (want_dtype != TN_DTYPE_UNDEFINED && want_dtype != od) {
        /* the legacy norm allocates its result in the dtype asked for, then hands it to
         * linalg_vector_norm's out= (whose dtype check it fails) */
        PyErr_Format(PyExc_RuntimeError, "Expected out tensor to have dtype %s, but got %s instead",
                     tn_dtype_cxx_name(od), tn_dtype_cxx_name(want_dtype));
        return NULL;
    }
    if (tn_out_dtype_exact(out, od) < 0) return NULL;
    /* complex32 has a norm kernel upstream (accumulated in float, a float16 result) */
    if (cdt != TN_DTYPE_C32 && tn_require_computable("linalg_vector_norm", cdt) < 0) return NULL;

    int64_t sz[TN_MAX_DIMS];
    int k = 0;
    bool all_one = true;
    for (int d = 0; d < t->ndim; d++) {
        if (mask >> d & 1) {
            if (t->sizes[d] != 1) all_one = false;
            if (keepdim) sz[k++] = 1;
        } else {
            sz[k++] = t->sizes[d];
        }
    }
    PyObject *res = tn_tensor_new_empty(k, sz, od, t->storage->device);
    if (!res) return NULL;
    if (t->storage->device != TN_DEVICE_META) {
        /* a dtype= conversion happens before the reduction (measured: f16 input with
         * dtype=float32 equals the norm of x.float(), vectorised path included) */
        PyObject *src = cdt == t->dtype ? Py_NewRef(self) : tn_as_dtype(self, cdt, false);
        if (!src) { Py_DECREF(res); return NULL; }
        const tn_tensor *st = tn_tensor_of(src);
        tn_norm_cfg cfg = {
            .p = p,
            .f32acc = to_real(st->dtype) != TN_DTYPE_F64,
            .fast_ok = true,
            .mode = all_one ? TN_NORM_ELEMWISE : TN_NORM_REDUCE,
        };
        norm_run(st, mask, &cfg, tn_data(tn_tensor_of(res)), od);
        Py_DECREF(src);
    }
    return tn_out_deliver(res, out, "linalg_vector_norm");
}

static bool arg_bool(const tn_value *v) { return (v->tag == TN_V_BOOL || v->tag == TN_V_INT) && v->u.i != 0; }
static tn_dtype arg_dtype(const tn_value *v) { return v->tag == TN_V_DTYPE ? v->u.dtype : TN_DTYPE_UNDEFINED; }

PyObject *tn_op_linalg_vector_norm(tn_value *a) {
    return vector_norm(&a[0], &a[1], &a[2], arg_bool(&a[3]), arg_dtype(&a[4]), NULL, TN_DTYPE_UNDEFINED);
}
PyObject *tn_op_linalg_vector_norm_out(tn_value *a) {
    return vector_norm(&a[0], &a[1], &a[2], arg_bool(&a[3]), arg_dtype(&a[4]), a[5].u.obj, TN_DTYPE_UNDEFINED);
}

/* The legacy norm: its own dtype checks, then linalg_vector_norm into a result of the dtype it
 * chose (the input's real dtype, or `dtype` as given). */
static PyObject *legacy_norm(tn_value *self, const tn_value *p, const tn_value *dimv, bool keepdim,
                             const tn_value *dtv, PyObject *out) {
    tn_tensor *t = TN_T(*self);
    tn_dtype dt = dtv ? arg_dtype(dtv) : TN_DTYPE_UNDEFINED;
    if (dt != TN_DTYPE_UNDEFINED) {
        if (!float_or_complex(dt)) {
            PyErr_Format(PyExc_RuntimeError, "norm(): the desired output dtype should be either floating point or complex. "
                         "Got %s instead.", tn_dtype_cpp_name(dt));
            return NULL;
        }
    } else if (!float_or_complex(t->dtype)) {
        PyErr_Format(PyExc_RuntimeError, "norm(): input dtype should be either floating point or complex. Got %s instead.",
                     tn_dtype_cpp_name(t->dtype));
        return NULL;
    }
    /* norm(self, p) of the whole tensor, no dtype: upstream's norm kernel dispatches on a non-empty
     * float8 input before out='s dtype check (measured; with dims or a dtype the out= check comes first,
     * a complex p is refused first) */
    if (!dimv && !dtv && p->tag != TN_V_COMPLEX && tn_dtype_infos[t->dtype].kind == TN_KIND_FLOAT8 && tn_numel(t) > 0 &&
        !tn_door_on_meta())
        return tn_kernel_missing_cpu("norm", t->dtype);
    /* then upstream's meta wraps the dims (resize_reduction), before linalg_vector_norm's checks (measured) */
    uint64_t mask;
    if (dimv && tn_dims_mask(t, dimv, true, &mask) < 0) return NULL;
    return vector_norm(self, p, dimv, keepdim, dt, out, dt);
}

PyObject *tn_op_norm_Scalar(tn_value *a) { return legacy_norm(&a[0], &a[1], NULL, false, NULL, NULL); }
PyObject *tn_op_norm_Scalar_out(tn_value *a) { return legacy_norm(&a[0], &a[1], NULL, false, NULL, a[2].u.obj); }
PyObject *tn_op_norm_ScalarOpt_dtype(tn_value *a) { return legacy_norm(&a[0], &a[1], NULL, false, &a[2], NULL); }
PyObject *tn_op_norm_ScalarOpt_dtype_out(tn_value *a) { return legacy_norm(&a[0], &a[1], NULL, false, &a[2], a[3].u.obj); }
PyObject *tn_op_norm_ScalarOpt_dim(tn_value *a) { return legacy_norm(&a[0], &a[1], &a[2], arg_bool(&a[3]), NULL, NULL); }
PyObject *tn_op_norm_out(tn_value *a) { return legacy_norm(&a[0], &a[1], &a[2], arg_bool(&a[3]), NULL, a[4].u.obj); }
PyObject *tn_op_norm_ScalarOpt_dim_dtype(tn_value *a) { return legacy_norm(&a[0], &a[1], &a[2], arg_bool(&a[3]), &a[4], NULL); }
PyObject *tn_op_norm_dtype_out(tn_value *a) { return legacy_norm(&a[0], &a[1], &a[2], arg_bool(&a[3]), &a[4], a[5].u.obj); }

/* ---------------------------------------------------------------- linalg_norm */

/* linalg.norm: vectors go to linalg_vector_norm; matrices (an ord with two dims, or a 2-D input
 * without dims) to the matrix norm, of which only 'fro' is here (the others need an SVD or
 * column sums we have not written: refused by name). */
static int linalg_norm_dims_check(const tn_tensor *t, const tn_value *dimv, bool ord_given) {
    if (dimv->tag == TN_V_INTLIST) {
        if (dimv->u.ints.n != 1 && dimv->u.ints.n != 2) {
            char buf[256];
            tn_shape_str(buf, sizeof buf, dimv->u.ints.n, dimv->u.ints.v);
            PyErr_Format(PyExc_RuntimeError, "linalg.norm: If dim is specified, it must be of length 1 or 2. Got %s", buf);
            return -1;
        }
    } else if (dimv->tag == TN_V_NONE && ord_given && t->ndim != 1 && t->ndim != 2) {
        PyErr_Format(PyExc_RuntimeError, "linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got %dD.",
                     t->ndim);
        return -1;
    }
    return 0;
}

static PyObject *matrix_fro(tn_value *selfv, const char *ord, const tn_value *dimv, bool keepdim, tn_dtype dt, PyObject *out) {
    tn_tensor *t = TN_T(*selfv);
    if (t->ndim < 2) {
        PyErr_SetString(PyExc_RuntimeError, "linalg.matrix_norm: The input tensor A must have at least 2 dimensions.");
        return NULL;
    }
    tn_value d2 = {.tag = TN_V_INTLIST};
    int64_t dd[2] = {-2, -1};
    if (dimv->tag == TN_V_INTLIST) {
        if (dimv->u.ints.n != 2) {
            char buf[256] = "";
            size_t k = 0;
            for (int i = 0; i < dimv->u.ints.n && k < sizeof buf - 24; i++)
                k += (size_t)snprintf(buf + k, sizeof buf - k, "%s%lld", i ? " " : "", (long long)dimv->u.ints.v[i]);
            PyErr_Format(PyExc_RuntimeError, "linalg.matrix_norm: dim must be a 2-tuple. Got %s", buf);
            return NULL;
        }
        dd[0] = dimv->u.ints.v[0];
        dd[1] = dimv->u.ints.v[1];
    } else if (t->ndim == 2) {
        dd[0] = 0;
        dd[1] = 1;
    }
    d2.u.ints.v = dd;
    d2.u.ints.n = 2;
    if (!strcmp(ord, "fro")) {
        tn_value two = {.tag = TN_V_FLOAT, .u.f = 2.0};
        return vector_norm(selfv, &two, &d2, keepdim, dt, out, TN_DTYPE_UNDEFINED);
    }
    if (!strcmp(ord, "nuc")) {   /* linalg_matrix_norm (ops/linalg_more.c) */
        PyObject *o = PyUnicode_FromString("nuc");
        tn_value dtv = {.tag = dt == TN_DTYPE_UNDEFINED ? TN_V_NONE : TN_V_DTYPE, .u.dtype = dt};
        PyObject *r = o ? tn_linalg_more_matrix_norm_call(selfv->u.obj, o, &d2, keepdim, &dtv) : NULL;
        Py_XDECREF(o);
        return r ? tn_out_deliver(r, out, "linalg_norm") : NULL;
    }
    PyErr_Format(PyExc_RuntimeError, "linalg.matrix_norm: Order %s not supported.", ord);
    return NULL;
}

static PyObject *linalg_norm_impl(tn_value *a, PyObject *out) {
    tn_tensor *t = TN_T(a[0]);
    bool ord_given = a[1].tag != TN_V_NONE;
    if (linalg_norm_dims_check(t, &a[2], ord_given) < 0) return NULL;
    bool two_dims = a[2].tag == TN_V_INTLIST ? a[2].u.ints.n == 2 : (a[2].tag == TN_V_NONE && t->ndim == 2);
    if (ord_given && two_dims) {   /* linalg_matrix_norm (ops/linalg_more.c) */
        PyObject *ord = tn_value_to_python(&a[1]);
        PyObject *r = ord ? tn_linalg_more_matrix_norm_call(a[0].u.obj, ord, &a[2], arg_bool(&a[3]), &a[4]) : NULL;
        Py_XDECREF(ord);
        return r ? tn_out_deliver(r, out, "linalg_norm") : NULL;
    }
    return vector_norm(&a[0], &a[1], &a[2], arg_bool(&a[3]), arg_dtype(&a[4]), out, TN_DTYPE_UNDEFINED);
}

static PyObject *linalg_norm_str_impl(tn_value *a, PyObject *out) {
    tn_tensor *t = TN_T(a[0]);
    if (linalg_norm_dims_check(t, &a[2], true) < 0) return NULL;
    const char *ord = PyUnicode_AsUTF8AndSize(a[1].u.obj, NULL);
    if (!ord) return NULL;
    return matrix_fro(&a[0], ord, &a[2], arg_bool(&a[3]), arg_dtype(&a[4]), out);
}

/* upstream's linalg_norm.out (both overloads) runs the functional form, then wants out= of its
 * result's dtype exactly, in its own words (measured: a float16 input into a float32 out=, a float32
 * one into float64 with ord=2, refused), then resizes and copies */
static int linalg_norm_out_dtype(PyObject *r, PyObject *out) {
    tn_dtype rd = tn_tensor_of(r)->dtype, od = tn_tensor_of(out)->dtype;
    if (rd == od) return 0;
    PyErr_Format(PyExc_RuntimeError, "linalg.norm expected out tensor dtype %s but got: %s", tn_dtype_cpp_name(rd),
                 tn_dtype_cpp_name(od));
    return -1;
}
static PyObject *linalg_norm_out_exact(PyObject *r, PyObject *out) {
    if (!r) return NULL;
    if (linalg_norm_out_dtype(r, out) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return tn_out_deliver(r, out, "linalg_norm");
}

/* The same composite at the autograd layer (autograd/decomp.c), taken when a tensor argument
 * requires grad: upstream's kernel runs the functional with autograd, so an input requiring grad
 * gives out a CopyBackwards and out itself goes through copy_ (a leaf requiring grad is refused
 * as "a leaf Variable that requires grad is being used in an in-place operation"), where the
 * generated out= check (functions with out=... don't support automatic differentiation) never
 * runs (measured: docs/breadth_more2.md, "Fuzz corpus: calls upstream runs, fifth pass"). */
static PyObject *linalg_norm_out_grad(int functional, int op, tn_value *a) {
    PyObject *out = a[5].u.obj;
    bool grad = tn_grad_mode() && tn_requires_grad(out);
    for (int i = 0; i < 5 && !grad; i++) grad = tn_grad_mode() && a[i].tag == TN_V_TENSOR && tn_requires_grad(a[i].u.obj);
    if (!grad) return tn_door_below_autograd(op, a);
    PyObject *r = tn_door_call(functional, a);
    if (!r) return NULL;
    const tn_tensor *rt = tn_tensor_of(r);
    PyObject *c = linalg_norm_out_dtype(r, out) < 0 || tn_out_prepare(out, rt->ndim, rt->sizes, rt->dtype, "linalg_norm") < 0
                      ? NULL : tn_at_copy_(out, r, false);
    Py_DECREF(r);
    return c;
}
PyObject *tn_norm_d_linalg_norm_out(tn_value *a) { return linalg_norm_out_grad(TN_ROW_linalg_norm, TN_ROW_linalg_norm_out, a); }
PyObject *tn_norm_d_linalg_norm_ord_str_out(tn_value *a) {
    return linalg_norm_out_grad(TN_ROW_linalg_norm_ord_str, TN_ROW_linalg_norm_ord_str_out, a);
}
PyObject *tn_op_linalg_norm(tn_value *a) { return linalg_norm_impl(a, NULL); }
PyObject *tn_op_linalg_norm_out(tn_value *a) {
    if (tn_door_on_meta() || tn_door_out_trial()) return linalg_norm_impl(a, a[5].u.obj);
    return linalg_norm_out_exact(linalg_norm_impl(a, NULL), a[5].u.obj);
}
PyObject *tn_op_linalg_norm_ord_str(tn_value *a) { return linalg_norm_str_impl(a, NULL); }
PyObject *tn_op_linalg_norm_ord_str_out(tn_value *a) {
    if (tn_door_on_meta() || tn_door_out_trial()) return linalg_norm_str_impl(a, a[5].u.obj);
    return linalg_norm_out_exact(linalg_norm_str_impl(a, NULL), a[5].u.obj);
}

/* linalg__powsum(Tensor self, Scalar ord=2, int[1]? dim=None, bool keepdim=False, *,
 * ScalarType? dtype=None): sum(|x|^ord) over dim, linalg_vector_norm's kernel without the root
 * (upstream's powsum kernel: its vectorised p=2 rows, pow for every other order but 1, so
 * ord 0 counts zeros too and +-inf give inf); the input converted to dtype first (narrowing
 * allowed, as measured); an empty reduction is 0; no |x| short-cut for size-1 dims. */
PyObject *tn_op_linalg__powsum(tn_value *a) {
    PyObject *self = a[0].u.obj;
    const tn_tensor *t = tn_tensor_of(self);
    double p = 2.0;
    if (a[1].tag == TN_V_COMPLEX) {
        PyErr_SetString(PyExc_RuntimeError, "value cannot be converted to type double without overflow");
        return NULL;
    }
    if (a[1].tag == TN_V_FLOAT) p = a[1].u.f;
    else if (a[1].tag == TN_V_INT || a[1].tag == TN_V_BOOL) p = (double)a[1].u.i;
    uint64_t mask;
    bool given;
    if (norm_dims(t, &a[2], &mask, &given) < 0) return NULL;
    tn_dtype cdt = a[4].tag == TN_V_DTYPE ? a[4].u.dtype : t->dtype;
    bool keepdim = arg_bool(&a[3]);
    int64_t sz[TN_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < t->ndim; d++) {
        if (!(mask >> d & 1)) sz[k++] = t->sizes[d];
        else if (keepdim) sz[k++] = 1;
    }
    if (tn_numel(t) == 0 && t->storage->device != TN_DEVICE_META) {
        /* an empty input: zeros before any dtype dispatch, integral dtypes as int64 (measured) */
        tn_dtype zd = tn_dtype_is_integral(cdt, true) ? TN_DTYPE_I64 : to_real(cdt);
        PyObject *z = tn_tensor_new_empty(k, sz, zd, TN_DEVICE_CPU);
        if (z) memset(tn_data(tn_tensor_of(z)), 0, (size_t)tn_numel(tn_tensor_of(z)) * (size_t)tn_dtype_itemsize(zd));
        return z;
    }
    if (!float_or_complex(cdt)) {
        PyErr_SetString(PyExc_NotImplementedError, "\"powsum_cpu\" not implemented for 'Long'");
        return NULL;
    }
    if (cdt != TN_DTYPE_C32 && !tn_dtype_computable(cdt)) return tn_kernel_missing("powsum_cpu", cdt);   /* float8 */
    tn_dtype od = to_real(cdt);
    PyObject *res = tn_tensor_new_empty(k, sz, od, t->storage->device);
    if (!res || t->storage->device == TN_DEVICE_META) return res;
    PyObject *src = cdt == t->dtype ? Py_NewRef(self) : tn_as_dtype(self, cdt, false);
    if (!src) { Py_DECREF(res); return NULL; }
    const tn_tensor *st = tn_tensor_of(src);
    tn_norm_cfg cfg = {.p = p, .f32acc = to_real(st->dtype) != TN_DTYPE_F64, .fast_ok = true,
                       .mode = TN_NORM_REDUCE, .powsum = true};
    norm_run(st, mask, &cfg, tn_data(tn_tensor_of(res)), od);
    Py_DECREF(src);
    return res;
}
